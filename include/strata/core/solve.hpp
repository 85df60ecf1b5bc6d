// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Numerics knobs for implicit equations, kept apart from physics parameters,
/// and the one root finder strata uses: Boost.Math TOMS 748 on a bracket.

#include <cmath>    // std::log2, std::ceil
#include <cstdint>  // std::uintmax_t
#include <string>   // std::string

#include <boost/math/tools/roots.hpp>  // toms748_solve, eps_tolerance

#include "strata/core/error.hpp"

namespace strata {
inline namespace v0 {

/// Tolerance and iteration cap of a root search.
struct solve_options {
  double rel_tol = 1e-12;          ///< relative width of the final bracket
  std::uintmax_t max_iter = 200;   ///< iterations before `solver_error`

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("rel_tol", s.rel_tol);
    v("max_iter", s.max_iter);
  }
};

namespace detail {

/// Root of `f` in [lo, hi] (f(lo), f(hi) of opposite sign) by TOMS 748; throws `solver_error`
/// naming `what` if the bracket is not a bracket or the search does not converge.
template <class F>
double solve_bracketed(F&& f, double lo, double hi, const solve_options& opt, const char* what) {
  require(opt.rel_tol > 0.0 && opt.rel_tol < 1.0, "strata.solve", "rel_tol", opt.rel_tol,
          "in (0, 1)");
  require(opt.max_iter >= 1, "strata.solve", "max_iter", opt.max_iter, ">= 1");
  if (!(lo <= hi)) {
    throw config_error("bracket", std::string("[strata.solve] ") + what +
                                      ": bracket must have lo <= hi, got [" + to_text(lo) + ", " +
                                      to_text(hi) + "]");
  }
  const double flo = f(lo), fhi = f(hi);
  if (!(std::isfinite(flo) && std::isfinite(fhi))) {
    throw solver_error(std::string("[strata.solve] ") + what + ": f is not finite at an end of [" +
                       to_text(lo) + ", " + to_text(hi) + "]");
  }
  if (flo == 0.0) return lo;
  if (fhi == 0.0) return hi;
  if ((flo > 0.0) == (fhi > 0.0)) {
    throw solver_error(std::string("[strata.solve] ") + what + ": no sign change on [" +
                       to_text(lo) + ", " + to_text(hi) + "]");
  }
  const int bits = static_cast<int>(std::ceil(-std::log2(opt.rel_tol)));
  std::uintmax_t it = opt.max_iter;
  boost::math::tools::eps_tolerance<double> tol(bits);  // operator() is non-const in Boost 1.74
  const auto r = boost::math::tools::toms748_solve(f, lo, hi, flo, fhi, tol, it);
  // Converged means an exact root (first == second) or a bracket within tolerance, whatever the
  // iteration count: `it >= max_iter` is also true when the last allowed iteration converged.
  if (r.first != r.second && !tol(r.first, r.second)) {
    throw solver_error(std::string("[strata.solve] ") + what + ": no convergence in " +
                       to_text(opt.max_iter) + " iterations");
  }
  return 0.5 * (r.first + r.second);
}

}  // namespace detail
}  // namespace v0
}  // namespace strata
