#include "strata/core/solve.hpp"

#include <doctest/doctest.h>

#include "support/field_of.hpp"

#include <boost/math/tools/roots.hpp>  // toms748_solve, eps_tolerance: the iteration count Boost needs
#include <cmath>                       // std::sqrt, std::exp, std::log, std::abs
#include <cstdint>                     // std::uintmax_t
#include <exception>                   // std::exception
#include <limits>                      // std::numeric_limits
#include <stdexcept>                   // std::runtime_error, std::invalid_argument
#include <string>                      // std::string

using namespace strata;
using doctest::Approx;

namespace {

const double sqrt2 = std::sqrt(2.0);

double x2m2(double x) { return x * x - 2.0; }

using strata_test::field_of;

}  // namespace

TEST_CASE("default solve options are a relative tolerance of 1e-12 and 200 iterations") {
  const solve_options o{};
  CHECK(o.rel_tol == 1e-12);
  CHECK(o.max_iter == 200);
}

TEST_CASE("solve_bracketed finds sqrt 2 as the root of x^2 - 2 on [0, 2] to the relative tolerance") {
  SUBCASE("default tolerance 1e-12") {
    const double r = detail::solve_bracketed(x2m2, 0.0, 2.0, solve_options{}, "sqrt2");
    CHECK(std::abs(r - sqrt2) <= 1e-12 * sqrt2);
  }
  SUBCASE("loose tolerance 1e-6") {
    const double r = detail::solve_bracketed(x2m2, 0.0, 2.0, solve_options{.rel_tol = 1e-6}, "sqrt2");
    CHECK(std::abs(r - sqrt2) <= 1e-6 * sqrt2);
  }
  SUBCASE("a decreasing function, 2 - x^2") {
    const double r = detail::solve_bracketed([](double x) { return 2.0 - x * x; }, 0.0, 2.0, solve_options{},
                                             "sqrt2");
    CHECK(std::abs(r - sqrt2) <= 1e-12 * sqrt2);
  }
  SUBCASE("other roots: e^x = 10 and x^3 - x - 2") {
    const double ln10 = detail::solve_bracketed([](double x) { return std::exp(x) - 10.0; }, 0.0, 5.0,
                                                solve_options{}, "ln10");
    CHECK(ln10 == Approx(std::log(10.0)).epsilon(1e-12));
    // Real root of x^3 - x - 2 (Cardano): 1.5213797068045676.
    const double c = detail::solve_bracketed([](double x) { return x * x * x - x - 2.0; }, 1.0, 2.0,
                                             solve_options{}, "cubic");
    CHECK(c == Approx(1.5213797068045676).epsilon(1e-12));
  }
  SUBCASE("a root at an end of the bracket is returned exactly without a search") {
    int calls = 0;
    const auto f = [&](double x) {
      ++calls;
      return x - 1.0;
    };
    CHECK(detail::solve_bracketed(f, 1.0, 3.0, solve_options{}, "lo") == 1.0);
    CHECK(detail::solve_bracketed(f, -1.0, 1.0, solve_options{}, "hi") == 1.0);
    CHECK(calls == 4);  // two end evaluations per call, nothing else
  }
}

TEST_CASE("solve_bracketed throws solver_error when the ends do not bracket a sign change") {
  SUBCASE("both ends positive") {
    CHECK_THROWS_WITH_AS(detail::solve_bracketed(x2m2, 2.0, 3.0, solve_options{}, "sqrt2"),
                         "[strata.solve] sqrt2: no sign change on [2, 3]", solver_error);
  }
  SUBCASE("a function with no real root") {
    CHECK_THROWS_AS(
        detail::solve_bracketed([](double x) { return x * x + 1.0; }, -1.0, 1.0, solve_options{}, "none"),
        solver_error);
  }
  SUBCASE("two roots inside the bracket cancel the sign change") {
    CHECK_THROWS_AS(detail::solve_bracketed(x2m2, -2.0, 2.0, solve_options{}, "two"), solver_error);
  }
  SUBCASE("a degenerate bracket") {
    CHECK_THROWS_AS(detail::solve_bracketed(x2m2, 1.0, 1.0, solve_options{}, "point"), solver_error);
  }
  SUBCASE("solver_error is a std::runtime_error") {
    CHECK_THROWS_AS(detail::solve_bracketed(x2m2, 2.0, 3.0, solve_options{}, "sqrt2"), std::runtime_error);
  }
}

TEST_CASE("solve_bracketed throws solver_error when it runs out of iterations") {
  SUBCASE("one iteration is not enough for x^2 - 2") {
    CHECK_THROWS_WITH_AS(detail::solve_bracketed(x2m2, 0.0, 2.0, solve_options{.max_iter = 1}, "sqrt2"),
                         "[strata.solve] sqrt2: no convergence in 1 iterations", solver_error);
  }
  SUBCASE("three iterations are not enough for a steep x^19 - 0.5") {
    CHECK_THROWS_AS(detail::solve_bracketed([](double x) { return std::pow(x, 19) - 0.5; }, 0.0, 1.0,
                                            solve_options{.max_iter = 3}, "steep"),
                    solver_error);
  }
  SUBCASE("one iteration fewer than TOMS 748 needs throws") {
    // 1e-12 -> ceil(-log2 1e-12) = 40 bits, the tolerance solve_bracketed hands to Boost.
    std::uintmax_t needed = 200;
    boost::math::tools::toms748_solve(x2m2, 0.0, 2.0, x2m2(0.0), x2m2(2.0),
                                      boost::math::tools::eps_tolerance<double>(40), needed);
    REQUIRE(needed > 1);
    REQUIRE(needed < 200);
    CHECK_THROWS_AS(
        detail::solve_bracketed(x2m2, 0.0, 2.0, solve_options{.max_iter = needed - 1}, "sqrt2"),
        solver_error);
  }
}

TEST_CASE("a root found on the last allowed iteration is returned, not reported as non-convergence") {
  // BUG (solve.hpp): after toms748_solve, `it >= opt.max_iter` is also true when the search
  // converged on exactly the last allowed iteration, so a converged result is thrown away.
  SUBCASE("x^2 - 2 with max_iter equal to the iterations TOMS 748 needs") {
    std::uintmax_t needed = 200;
    boost::math::tools::toms748_solve(x2m2, 0.0, 2.0, x2m2(0.0), x2m2(2.0),
                                      boost::math::tools::eps_tolerance<double>(40), needed);
    REQUIRE(needed < 200);
    double r = 0.0;
    CHECK_NOTHROW(r = detail::solve_bracketed(x2m2, 0.0, 2.0, solve_options{.max_iter = needed}, "sqrt2"));
    CHECK(std::abs(r - sqrt2) <= 1e-12 * sqrt2);
  }
  SUBCASE("a straight line, whose first secant step lands on the root, with max_iter 1") {
    double r = 0.0;
    CHECK_NOTHROW(r = detail::solve_bracketed([](double x) { return x - 1.0; }, 0.0, 2.0,
                                              solve_options{.max_iter = 1}, "line"));
    CHECK(r == 1.0);
  }
}

TEST_CASE("an ill-formed bracket raises a strata error, never a Boost one") {
  // BUG (solve.hpp): a reversed bracket, or a NaN at one end, reaches toms748_solve, whose
  // default policy throws boost::wrapexcept<std::domain_error>: neither config_error nor
  // solver_error. Either answer below is acceptable; a foreign exception is not.
  const auto outcome = [](auto&& call) -> std::string {
    try {
      const double r = call();
      return std::abs(r - sqrt2) <= 1e-12 * sqrt2 ? "root" : "wrong root";
    } catch (const config_error&) {
      return "strata error";
    } catch (const solver_error&) {
      return "strata error";
    } catch (const std::exception& e) {
      return std::string("foreign exception: ") + e.what();
    }
  };
  SUBCASE("reversed bracket [2, 0]") {
    const auto o = outcome([] { return detail::solve_bracketed(x2m2, 2.0, 0.0, solve_options{}, "rev"); });
    CAPTURE(o);
    CHECK((o == "root" || o == "strata error"));
  }
  SUBCASE("NaN at the lower end, positive at the upper end") {
    const auto o = outcome([] {
      return detail::solve_bracketed(
          [](double x) { return x < 0.5 ? std::numeric_limits<double>::quiet_NaN() : 1.0; }, 0.0, 1.0,
          solve_options{}, "nan");
    });
    CAPTURE(o);
    CHECK(o == "strata error");
  }
}

TEST_CASE("bad solve options raise config_error naming the field before f is called") {
  int calls = 0;
  const auto f = [&](double x) {
    ++calls;
    return x2m2(x);
  };
  SUBCASE("rel_tol 0") {
    CHECK_THROWS_WITH_AS(detail::solve_bracketed(f, 0.0, 2.0, solve_options{.rel_tol = 0.0}, "s"),
                         "[strata.solve] rel_tol must be in (0, 1), got 0", config_error);
    CHECK(field_of([&] { (void)detail::solve_bracketed(f, 0.0, 2.0, solve_options{.rel_tol = 0.0}, "s"); }) ==
          "rel_tol");
  }
  SUBCASE("rel_tol 1") {
    CHECK_THROWS_WITH_AS(detail::solve_bracketed(f, 0.0, 2.0, solve_options{.rel_tol = 1.0}, "s"),
                         "[strata.solve] rel_tol must be in (0, 1), got 1", config_error);
  }
  SUBCASE("negative rel_tol") {
    CHECK_THROWS_AS(detail::solve_bracketed(f, 0.0, 2.0, solve_options{.rel_tol = -1e-3}, "s"), config_error);
  }
  SUBCASE("NaN rel_tol") {
    CHECK_THROWS_AS(detail::solve_bracketed(
                        f, 0.0, 2.0, solve_options{.rel_tol = std::numeric_limits<double>::quiet_NaN()}, "s"),
                    config_error);
  }
  SUBCASE("max_iter 0") {
    CHECK_THROWS_WITH_AS(detail::solve_bracketed(f, 0.0, 2.0, solve_options{.max_iter = 0}, "s"),
                         "[strata.solve] max_iter must be >= 1, got 0", config_error);
    CHECK(field_of([&] { (void)detail::solve_bracketed(f, 0.0, 2.0, solve_options{.max_iter = 0}, "s"); }) ==
          "max_iter");
  }
  SUBCASE("config_error is a std::invalid_argument") {
    CHECK_THROWS_AS(detail::solve_bracketed(f, 0.0, 2.0, solve_options{.rel_tol = 0.0}, "s"),
                    std::invalid_argument);
  }
  CHECK(calls == 0);
}
