// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// `gpu_knob_set`: which serving-software knobs a GPU baseline carries, and the default of every
/// comparison (`baseline/baseline_gpu.hpp` applies a set to a card and says why `cited` is the
/// default; `knobs_note`, `baseline/validated_gpu.hpp`, names a set in a result).

#include <array>    // std::array
#include <utility>  // std::pair

namespace strata {
inline namespace v0 {

/// Which serving-software knobs a GPU baseline carries (`baseline/baseline_gpu.hpp`).
enum class gpu_knob_set { cited, fitted };
constexpr auto enum_names(gpu_knob_set) {
  return std::array{std::pair{gpu_knob_set::cited, "cited"}, std::pair{gpu_knob_set::fitted, "fitted"}};
}

/// The knob set of every comparison unless a caller names another (`baseline/baseline_gpu.hpp`: the
/// paper's baseline engine, vLLM 0.8.1, Stratum §6.1).
inline constexpr gpu_knob_set default_gpu_knobs = gpu_knob_set::cited;

}  // namespace v0
}  // namespace strata
