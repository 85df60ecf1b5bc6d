// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Every row of the paper report, in order: Stratum device, logic die, chip, system sizes, the
/// Stratum systems' results (`stratum_rows.hpp`), serving (`serving_rows.hpp`), HCRMap, then the GPU baseline's validation
/// against published measurements (`validation_rows.hpp`). The row families live in their own
/// headers so that a user who wants one family does not compile the others.

#include <cstddef>      // std::size_t
#include <functional>   // std::function
#include <optional>     // std::optional
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::move
#include <vector>       // std::vector

#include "strata/report/hcrmap_rows.hpp"
#include "strata/report/paper.hpp"
#include "strata/report/placement.hpp"
#include "strata/report/serving_rows.hpp"
#include "strata/report/stratum_rows.hpp"
#include "strata/report/validation_rows.hpp"

namespace strata {
inline namespace v0 {

/// Called after each family of rows is computed, with the family's name and the number of rows it
/// added, and inside the HCRMap policy family (whole experiments, most of the time) after each of
/// its 16 experiments (in the order they end), with "hcrmap policies: <model> <mode>" and 0 rows.
using paper_progress = std::function<void(std::string_view family, std::size_t rows)>;

/// Called with each family's rows as soon as they are computed, in report order (a program can
/// print them then instead of after the last family: the HCRMap family alone takes most of the
/// time).
using paper_row_sink = std::function<void(std::span<const paper_row> family_rows)>;

/// Every row the library computes today. `dsv2lite_trace` is the path of the real DeepSeek-V2-Lite
/// routing trace (tests/data/traces/dsv2lite_esft_trace_intent.csv) for the HCRMap policy rows;
/// without it they use the fitted synthetic trace for that model too. `domain_counts` is the
/// OLMoE/Mixtral per-domain count file (tests/data/traces/olmoe_mixtral_expert_counts_by_domain.csv)
/// of the serving rows; without it there are no `stratum.serving.*` rows (they need real tables).
/// `hcrmap_value` is the value function HCRMap's controller decides with (the frozen DQN
/// checkpoint; the default is the greedy fallback). `progress`, when set, hears of each family as
/// it is done; `sink`, when set, receives its rows then (before `progress`). `threads` runs the
/// HCRMap experiments in parallel (0: the machine's hardware threads; the rows are the same for
/// every count, and the calls to `progress` never overlap).
inline std::vector<paper_row> paper_rows(const std::optional<std::string>& dsv2lite_trace = std::nullopt,
                                         const std::optional<std::string>& domain_counts = std::nullopt,
                                         const controller_value& hcrmap_value = {},
                                         const paper_progress& progress = {}, const paper_row_sink& sink = {},
                                         unsigned threads = 0) {
  std::vector<paper_row> rows;
  const auto add = [&](std::string_view family, std::vector<paper_row> part) {
    const std::size_t n = part.size();
    for (auto& r : part) rows.push_back(std::move(r));
    if (sink) sink(std::span<const paper_row>(rows).last(n));
    if (progress) progress(family, n);
  };
  add("stratum device", stratum_device_rows());
  add("stratum logic die", stratum_logic_rows());
  add("stratum chip", stratum_chip_rows());
  add("stratum systems", stratum_system_rows());
  add("stratum results", stratum_result_rows());
  add("stratum placement", stratum_placement_rows());
  if (domain_counts) add("stratum serving", serving_rows(*domain_counts));
  add("hcrmap metadata", hcrmap_metadata_rows());
  hcrmap_suite_progress step;
  if (progress) {
    step = [&progress](const std::string& model, const char* mode) {
      progress("hcrmap policies: " + model + " " + mode, 0);
    };
  }
  add("hcrmap policies", hcrmap_policy_rows(dsv2lite_trace, hcrmap_value, step, threads));
  add("gpu validation", validation_rows());
  return rows;
}

}  // namespace v0
}  // namespace strata
