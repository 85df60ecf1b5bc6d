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

#include <cctype>       // std::tolower
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::move
#include <vector>       // std::vector

#include "strata/baseline/gpu.hpp"
#include "strata/baseline/gpu_knob_set.hpp"
#include "strata/baseline/gpu_measurements_data.hpp"
#include "strata/baseline/validated_gpu_fwd.hpp"
#include "strata/baseline/validation.hpp"

namespace strata {
inline namespace v0 {

namespace detail {
// A GPU preset's name as the measurement set spells it: lower case, "-" read as "_".
template <class = void>
inline std::string canonical_gpu_name(std::string_view s) {
  std::string c;
  for (const char ch : s) c += ch == '-' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return c;
}

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
template <class = void>
inline const fit_result& published_gpu_fit() { return detail::published_gpu_fit<>(); }

// `validated_gpu` (baseline/validated_gpu_fwd.hpp): `card` with the published fit's knobs.
template <class T>
gpu_params detail::with_published_knobs(gpu_params card) {
  return with_knobs(std::move(card), published_gpu_fit().knobs);
}

/// Rows of the published measurement set measured on GPU preset `preset` (case-insensitive,
/// "-" = "_"). A card with none (H200, B200, MI300X, MI325X) runs with the knobs fitted on the
/// other cards' rows: its datasheet is its own, its serving software's efficiency is not measured.
// Not `inline`: strata::compiled holds its instantiation (end of file; also `knobs_note`'s), which an
// `inline` one would not spare a STRATA_COMPILED consumer (GCC instantiates inline functions for
// inlining); a consumer then compiles neither it nor the measurement set's reader under it.
template <class = void>
int published_rows_on(std::string_view preset) {
  // The published set's GPU of every row, canonical, parsed once per process.
  static const std::vector<std::string> gpus = [&] {
    std::vector<std::string> g;
    for (const auto& r : published_gpu_measurements()) g.push_back(detail::canonical_gpu_name(r.gpu));
    return g;
  }();
  const std::string want = detail::canonical_gpu_name(preset);
  int n = 0;
  for (const auto& g : gpus) n += g == want ? 1 : 0;
  return n;
}

/// Where the serving knobs of GPU preset `preset` come from, one line for a result:
/// "validated on N published rows of this card" or "knobs fitted on other cards (...), not
/// validated on this card".
template <class = void>
std::string knobs_note(std::string_view preset) {
  const int n = published_rows_on(preset);
  if (n > 0) return "serving knobs fitted on the published set, " + std::to_string(n) + " rows on this card";
  return "serving knobs fitted on H100 SXM5 and A100 SXM4 rows, not validated on " + std::string(preset) +
         " (no published measurement of it in the set)";
}


/// Where the serving knobs of GPU preset `preset` come from under `knobs`, one line for a result
/// (the fitted set's note is `knobs_note(preset)` above).
template <class = void>
std::string knobs_note(std::string_view preset, gpu_knob_set knobs) {
  if (knobs == gpu_knob_set::fitted) return knobs_note(preset);
  const std::string canon = detail::canonical_gpu_name(preset);
  const std::string note = "the card's cited serving knobs (baseline/gpu.hpp), fitted to nothing";
  if (canon == "h100_sxm5") return note + "; checked against three measured vLLM v0.15.1 serving runs on this card";
  return note + "; no measured serving run of " + std::string(preset) + " checks them";
}

}  // namespace v0
}  // namespace strata

// strata::compiled (STRATA_BUILD_COMPILED, src/compiled.cpp) holds the instantiations below;
// STRATA_COMPILED=1, which that target puts on its users, keeps their translation units from
// instantiating it again. Without it this header is unchanged (header-only).
#if defined(STRATA_COMPILED) && STRATA_COMPILED
namespace strata {
inline namespace v0 {
extern template const fit_result& detail::published_gpu_fit<double>();
extern template int published_rows_on<void>(std::string_view);
extern template std::string knobs_note<void>(std::string_view);
extern template std::string knobs_note<void>(std::string_view, gpu_knob_set);
}  // namespace v0
}  // namespace strata
#endif
