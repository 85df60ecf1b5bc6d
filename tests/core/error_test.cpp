#include "strata/core/error.hpp"

#include <doctest/doctest.h>

#include "support/field_of.hpp"
#include "support/scalars.hpp"

#include <boost/math/differentiation/autodiff.hpp>  // make_fvar, autodiff_fvar
#include <limits>                                   // std::numeric_limits
#include <stdexcept>                                // std::invalid_argument, std::runtime_error
#include <cstdint>                                  // std::int64_t
#include <string>                                   // std::string
#include <string_view>                              // std::string_view
#include <type_traits>                              // std::is_base_of_v

#include "strata/core/limits.hpp"  // checked_mul
#include "strata/core/scalar.hpp"  // value_of, max_of, min_of, abs_of (also reached via error.hpp)
#include "strata/core/units.hpp"   // value_of on a quantity

using namespace strata;
using namespace strata::literals;
using doctest::Approx;

namespace {

using strata_test::fvar1;
using strata_test::make_fvar;

using strata_test::k_inf;
using strata_test::k_nan;

using strata_test::field_of;

}  // namespace

TEST_CASE("config_error is an invalid_argument that carries the field it rejects") {
  static_assert(std::is_base_of_v<std::invalid_argument, config_error>);
  static_assert(std::is_base_of_v<std::runtime_error, solver_error>);
  const config_error e("t_rcd", "[strata.dram.101] t_rcd must be > 0 ns, got -1 ns");
  CHECK(e.field() == "t_rcd");
  CHECK(std::string(e.what()) == "[strata.dram.101] t_rcd must be > 0 ns, got -1 ns");
  const solver_error s("no convergence");
  CHECK(std::string(s.what()) == "no convergence");
}

TEST_CASE("require throws the documented message only when the condition fails") {
  CHECK_NOTHROW(detail::require(true, "strata.mono3d", "layers", -1, "in [2, 4096]"));
  CHECK_THROWS_WITH_AS(detail::require(false, "strata.mono3d", "layers", -1, "in [2, 4096]"),
                       "[strata.mono3d] layers must be in [2, 4096], got -1", config_error);
  CHECK(field_of([] { detail::require(false, "strata.mono3d", "layers", -1, "in [2, 4096]"); }) == "layers");
  SUBCASE("values print with six significant figures") {
    CHECK_THROWS_WITH_AS(detail::require(false, "m", "pi", 3.14159265358979, "rational"),
                         "[m] pi must be rational, got 3.14159", config_error);
    CHECK(detail::to_text(1e-9) == "1e-09");
    CHECK(detail::to_text(2.5) == "2.5");
  }
}

TEST_CASE("a check's field is a path made a string only on failure, with the same messages") {
  // A prefix and a suffix (a tier's name and its field), a std::string, a literal: one message form.
  const std::string tier = "hbm";
  CHECK_NOTHROW(detail::require_positive(1.0, "strata.tier", detail::field_path(tier, ".capacity"), "B"));
  CHECK_THROWS_WITH_AS(detail::require_positive(0.0, "strata.tier", detail::field_path(tier, ".capacity"), "B"),
                       "[strata.tier] hbm.capacity must be a finite value > 0, got 0 B", config_error);
  CHECK(field_of([&] { detail::require_in(2.0, 0.0, 1.0, "m", detail::field_path(tier, ".eta")); }) == "hbm.eta");
  CHECK(field_of([&] { detail::require(false, "m", "histogram[" + std::to_string(3) + "].experts", 7, "= 8"); }) ==
        "histogram[3].experts");
  CHECK_THROWS_WITH_AS(detail::require_nonnegative(-1.0, "m", std::string("t"), "s"),
                       "[m] t must be a finite value >= 0, got -1 s", config_error);
  CHECK(detail::field_path("layers").str() == "layers");
  CHECK(detail::field_path(std::string_view("tiers[2]"), ".banks").str() == "tiers[2].banks");
  CHECK_THROWS_WITH_AS(detail::checked_mul(std::int64_t{1} << 62, 4, "strata.model", detail::field_path("vocab")),
                       "[strata.model] vocab: 4611686018427387904 * 4 overflows a 64-bit integer (expected a size below 2^63)",
                       config_error);
}

TEST_CASE("require_positive accepts finite values above zero only") {
  CHECK_NOTHROW(detail::require_positive(1e-300, "m", "x"));
  CHECK_NOTHROW(detail::require_positive(1_ns, "m", "t", "s"));  // a quantity, through value_of
  CHECK_THROWS_WITH_AS(detail::require_positive(0.0, "m", "t", "ns"),
                       "[m] t must be a finite value > 0, got 0 ns", config_error);
  CHECK_THROWS_WITH_AS(detail::require_positive(-2.0, "m", "x"), "[m] x must be a finite value > 0, got -2",
                       config_error);  // no unit: no trailing space
  CHECK_THROWS_AS(detail::require_positive(k_nan, "m", "x"), config_error);
  CHECK_THROWS_AS(detail::require_positive(k_inf, "m", "x"), config_error);
  CHECK(field_of([] { detail::require_positive(0.0, "m", "hbm.bandwidth"); }) == "hbm.bandwidth");
}

TEST_CASE("require_nonnegative accepts zero and finite positive values only") {
  CHECK_NOTHROW(detail::require_nonnegative(0.0, "m", "x"));
  CHECK_NOTHROW(detail::require_nonnegative(-0.0, "m", "x"));
  CHECK_NOTHROW(detail::require_nonnegative(3.0, "m", "x"));
  CHECK_THROWS_WITH_AS(detail::require_nonnegative(-1e-9, "m", "lat", "s"),
                       "[m] lat must be a finite value >= 0, got -1e-09 s", config_error);
  CHECK_THROWS_AS(detail::require_nonnegative(k_nan, "m", "x"), config_error);
  CHECK_THROWS_AS(detail::require_nonnegative(k_inf, "m", "x"), config_error);
}

TEST_CASE("require_in accepts the closed interval only") {
  CHECK_NOTHROW(detail::require_in(2, 2.0, 4096.0, "strata.mono3d", "layers"));
  CHECK_NOTHROW(detail::require_in(4096, 2.0, 4096.0, "strata.mono3d", "layers"));
  CHECK_THROWS_WITH_AS(detail::require_in(1, 2.0, 4096.0, "strata.mono3d", "layers"),
                       "[strata.mono3d] layers must be in [2, 4096], got 1", config_error);
  CHECK_THROWS_AS(detail::require_in(4097, 2.0, 4096.0, "strata.mono3d", "layers"), config_error);
  CHECK_THROWS_AS(detail::require_in(k_nan, 0.0, 1.0, "m", "f"), config_error);
}

TEST_CASE("value_of extracts the plain double from numbers, quantities and autodiff values") {
  CHECK(value_of(3) == 3.0);
  CHECK(value_of(2.5f) == 2.5);
  CHECK(value_of(13.75_ns) == Approx(13.75e-9).epsilon(1e-15));
  const auto x = make_fvar<double, 1>(1.5);
  CHECK(value_of(x) == 1.5);
  CHECK(value_of(units::ns(x)) == Approx(1.5e-9).epsilon(1e-15));
  static_assert(value_of(4) == 4.0);  // usable in constant expressions
}

TEST_CASE("max_of, min_of and abs_of work on doubles and carry autodiff derivatives") {
  static_assert(detail::max_of(1.0, 2.0) == 2.0);
  static_assert(detail::min_of(1.0, 2.0) == 1.0);
  static_assert(detail::abs_of(-3.0) == 3.0);
  SUBCASE("max picks the derivative of the larger argument") {
    const auto x = make_fvar<double, 1>(3.0);
    const auto two = fvar1(2.0);
    CHECK(detail::max_of(x, two).derivative(0) == 3.0);
    CHECK(detail::max_of(x, two).derivative(1) == 1.0);
    CHECK(detail::max_of(two, x).derivative(1) == 1.0);
    CHECK(detail::min_of(x, two).derivative(0) == 2.0);
    CHECK(detail::min_of(x, two).derivative(1) == 0.0);
  }
  SUBCASE("abs flips the derivative below zero") {
    const auto x = make_fvar<double, 1>(-2.0);
    CHECK(detail::abs_of(x).derivative(0) == 2.0);
    CHECK(detail::abs_of(x).derivative(1) == -1.0);
    const auto y = make_fvar<double, 1>(2.0);
    CHECK(detail::abs_of(y).derivative(1) == 1.0);
  }
}
