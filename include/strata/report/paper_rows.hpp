// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Every row of the paper report, in order: Stratum device, logic die, chip, system sizes, the
/// Stratum systems' results (`stratum_rows.hpp`), serving (`serving_rows.hpp`), HCRMap, then the GPU baseline's validation
/// against published measurements (`validation_rows.hpp`). The row families live in their own
/// headers so that a user who wants one family does not compile the others.

#include <optional>  // std::optional
#include <string>    // std::string
#include <utility>   // std::move
#include <vector>   // std::vector

#include "strata/report/hcrmap_rows.hpp"
#include "strata/report/paper.hpp"
#include "strata/report/placement.hpp"
#include "strata/report/serving_rows.hpp"
#include "strata/report/stratum_rows.hpp"
#include "strata/report/validation_rows.hpp"

namespace strata {
inline namespace v0 {

/// Every row the library computes today. `dsv2lite_trace` is the path of the real DeepSeek-V2-Lite
/// routing trace (tests/data/traces/dsv2lite_esft_trace_intent.csv) for the HCRMap policy rows;
/// without it they use the fitted synthetic trace for that model too. `domain_counts` is the
/// OLMoE/Mixtral per-domain count file (tests/data/traces/olmoe_mixtral_expert_counts_by_domain.csv)
/// of the serving rows; without it there are no `stratum.serving.*` rows (they need real tables).
/// `hcrmap_value` is the value function HCRMap's controller decides with (the frozen DQN
/// checkpoint; the default is the greedy fallback).
inline std::vector<paper_row> paper_rows(const std::optional<std::string>& dsv2lite_trace = std::nullopt,
                                         const std::optional<std::string>& domain_counts = std::nullopt,
                                         const controller_value& hcrmap_value = {}) {
  auto rows = stratum_device_rows();
  for (auto& r : stratum_logic_rows()) rows.push_back(std::move(r));
  for (auto& r : stratum_chip_rows()) rows.push_back(std::move(r));
  for (auto& r : stratum_system_rows()) rows.push_back(std::move(r));
  for (auto& r : stratum_result_rows()) rows.push_back(std::move(r));
  for (auto& r : stratum_placement_rows()) rows.push_back(std::move(r));
  if (domain_counts) {
    for (auto& r : serving_rows(*domain_counts)) rows.push_back(std::move(r));
  }
  for (auto& r : hcrmap_metadata_rows()) rows.push_back(std::move(r));
  for (auto& r : hcrmap_policy_rows(dsv2lite_trace, hcrmap_value)) rows.push_back(std::move(r));
  for (auto& r : validation_rows()) rows.push_back(std::move(r));
  return rows;
}

}  // namespace v0
}  // namespace strata
