// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The GPU model every Stratum comparison divides by: a card's preset (`baseline/gpu.hpp`: what
/// the card is) with the three serving-software knobs fitted on the published measurement set
/// (`baseline/validation.hpp`: what vLLM achieves on it). One calibration, shared by every GPU,
/// model and Stratum system's xPU; the fit is the `validation.fit.*` rows of the paper report.
///
/// The fit runs once per process (a few hundred roofline evaluations of the 34 published rows,
/// about 0.2 s) and is cached; it is deterministic, so every caller sees the same knobs.
///
/// \code
/// const strata::gpu_params g = strata::validated_gpu(strata::h100_sxm5());
/// \endcode

#include <utility>  // std::move

#include "strata/baseline/gpu.hpp"
#include "strata/baseline/gpu_measurements_data.hpp"
#include "strata/baseline/validation.hpp"

namespace strata {
inline namespace v0 {

namespace detail {
// A function template (of a scalar it does not use) so that strata::compiled can hold its one
// instantiation: a consumer built with STRATA_COMPILED=1 then compiles neither the CSV reader nor
// the fit, which every default Stratum system (its xPU) calls.
template <class T = double>
const fit_result& published_gpu_fit() {
  static const fit_result fit = fit_gpu_knobs(published_gpu_measurements());
  return fit;
}
}  // namespace detail

/// The knobs fitted on the fit rows of the published set with the default options
/// (`fit_gpu_knobs`), computed on first use.
inline const fit_result& published_gpu_fit() { return detail::published_gpu_fit<>(); }

/// `card` with the published fit's knobs (`with_knobs`: energy per FLOP re-derived from η_c).
inline gpu_params validated_gpu(gpu_params card) { return with_knobs(std::move(card), published_gpu_fit().knobs); }

}  // namespace v0
}  // namespace strata

// strata::compiled (STRATA_BUILD_COMPILED, src/compiled.cpp) holds the instantiation below;
// STRATA_COMPILED=1, which that target puts on its users, keeps their translation units from
// instantiating it again. Without it this header is unchanged (header-only).
#if defined(STRATA_COMPILED) && STRATA_COMPILED
namespace strata {
inline namespace v0 {
extern template const fit_result& detail::published_gpu_fit<double>();
}  // namespace v0
}  // namespace strata
#endif
