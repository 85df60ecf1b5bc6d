// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Calibration solvers of the Mono3D device model, kept apart from `mono3d.hpp` so that the
/// model itself does not pull in the root finder (Boost.Math TOMS 748 via `core/solve.hpp`).
///
/// \code
/// auto s = strata::solve_staircase_step(strata::mono3d_params<>{}, 1.6);  // 1.108 µm
/// \endcode

#include "strata/core/error.hpp"
#include "strata/core/solve.hpp"
#include "strata/core/units.hpp"
#include "strata/device/mono3d.hpp"

namespace strata {
inline namespace v0 {

/// Staircase step that makes the slowest/fastest tier latency ratio equal `target_ratio`, all
/// else as in `p` (double only; used to calibrate `staircase_step` and for design questions such
/// as "what step keeps the spread under 1.3× at 512 layers?"). Throws `solver_error` if no step
/// in [0, 1 mm] reaches the target.
template <class = void>
inline length<> solve_staircase_step(mono3d_params<> p, double target_ratio,
                                     const solve_options& opt = {}) {
  detail::require(target_ratio > 1.0, "strata.mono3d", "target_ratio", target_ratio, "> 1");
  const auto f = [&](double step_m) {
    p.staircase_step = length<>::from_si(step_m);
    return evaluate(p).fast_slow_latency_ratio - target_ratio;
  };
  return length<>::from_si(detail::solve_bracketed(f, 0.0, 1e-3, opt, "staircase_step"));
}

}  // namespace v0
}  // namespace strata
