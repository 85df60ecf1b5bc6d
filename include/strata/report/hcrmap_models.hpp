// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The HCRMap benchmark models by name: the list the `hcrmap metadata` and `hcrmap policies`
/// families of the paper report (`report/hcrmap_metadata_rows.hpp`, `report/hcrmap_rows.hpp`) share.

#include <string>  // std::string
#include <vector>  // std::vector

namespace strata {
inline namespace v0 {

/// The eight HCRMap benchmark models (HCRMap Table 2).
template <class = void>
inline std::vector<std::string> hcrmap_models() {
  return {"DBRX", "DeepSeek-V2-Lite", "DeepSeek-V2", "DeepSeek-V3", "DeepSeekMoE-16B",
          "Mixtral-8x7B", "Mixtral-8x22B", "Qwen1.5-MoE-A2.7B"};
}

}  // namespace v0
}  // namespace strata
