// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Every row of the paper report, in order: Stratum device, logic die, chip, system sizes, the
/// Stratum systems' results (`stratum_rows.hpp`), serving (`serving_rows.hpp`), HCRMap, then the GPU baseline's validation
/// against published measurements (`validation_rows.hpp`) and measured vLLM serving runs
/// (`serving_validation_rows.hpp`). The row families live in their own
/// headers so that a user who wants one family does not compile the others.

#include <cstddef>      // std::size_t
#include <exception>    // std::exception_ptr, std::current_exception, std::rethrow_exception
#include <functional>   // std::function
#include <mutex>        // std::mutex, std::lock_guard
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
#include "strata/report/serving_validation_rows.hpp"
#include "strata/report/stratum_rows.hpp"
#include "strata/report/validation_rows.hpp"

namespace strata {
inline namespace v0 {

/// Called after each family of rows is computed, with the family's name and the number of rows it
/// added, and inside the HCRMap policy family (whole experiments, most of the time) after each of
/// its 16 experiments (in the order they end), with "hcrmap policies: <model> <mode>" and 0 rows.
/// The families are heard in report order, each once every family before it is done.
using paper_progress = std::function<void(std::string_view family, std::size_t rows)>;

/// Called with each family's rows as soon as they and every family before them are computed, in
/// report order (a program can print them then instead of after the last family: the HCRMap
/// family alone takes most of the time).
using paper_row_sink = std::function<void(std::span<const paper_row> family_rows)>;

/// Every row the library computes today. `dsv2lite_trace` is the path of the real DeepSeek-V2-Lite
/// routing trace (tests/data/traces/dsv2lite_esft_trace_intent.csv) for the HCRMap policy rows;
/// without it they use the fitted synthetic trace for that model too. `domain_counts` is the
/// OLMoE/Mixtral per-domain count file (tests/data/traces/olmoe_mixtral_expert_counts_by_domain.csv)
/// of the serving rows; without it there are no `stratum.serving.*` rows (they need real tables).
/// `hcrmap_value` is the value function HCRMap's controller decides with (the frozen DQN
/// checkpoint; the default is the greedy fallback). `progress`, when set, hears of each family as
/// it is done; `sink`, when set, receives its rows then (before `progress`). `threads` runs the
/// HCRMap experiments in parallel (0: the machine's hardware threads), and the other costly
/// families (Stratum results, serving, GPU validation) in the same queue beside them, longest
/// first; the rows are the same for every count, and the calls to `progress` and `sink` never
/// overlap (they may come from any of the threads). A failing family throws its exception: the
/// first in report order of the families that failed.
inline std::vector<paper_row> paper_rows(const std::optional<std::string>& dsv2lite_trace = std::nullopt,
                                         const std::optional<std::string>& domain_counts = std::nullopt,
                                         const controller_value& hcrmap_value = {},
                                         const paper_progress& progress = {}, const paper_row_sink& sink = {},
                                         unsigned threads = 0) {
  // One slot per family in report order; a slot is handed on (sink, progress) once it and every
  // slot before it are done.
  struct family {
    std::string_view name;
    std::vector<paper_row> rows;
    std::exception_ptr error;
    bool done = false;
  };
  std::vector<family> fams;
  const auto slot = [&fams](std::string_view name) {
    fams.push_back(family{name, {}, {}, false});
    return fams.size() - 1;
  };
  const std::size_t device = slot("stratum device"), logic = slot("stratum logic die"), chip = slot("stratum chip"),
                    systems = slot("stratum systems"), results = slot("stratum results"),
                    placement = slot("stratum placement");
  const std::size_t serving = domain_counts ? slot("stratum serving") : fams.size();
  const std::size_t metadata = slot("hcrmap metadata"), policies = slot("hcrmap policies"),
                    validation = slot("gpu validation");
  std::mutex lock;  // the slots' done flags and rows, the next slot to hand on, progress and sink
  std::size_t handed = 0;
  std::vector<paper_row> rows;
  const auto hand_on = [&]() {  // under `lock`
    for (; handed < fams.size() && fams[handed].done && !fams[handed].error; ++handed) {
      auto& f = fams[handed];
      const std::size_t n = f.rows.size();
      for (auto& r : f.rows) rows.push_back(std::move(r));
      if (sink) sink(std::span<const paper_row>(rows).last(n));
      if (progress) progress(f.name, n);
    }
  };
  const auto compute = [&](std::size_t i, auto&& make) {
    std::vector<paper_row> part;
    std::exception_ptr error;
    try {
      part = make();
    } catch (...) {
      error = std::current_exception();
    }
    const std::lock_guard<std::mutex> hold(lock);
    fams[i].rows = std::move(part);
    fams[i].error = error;
    fams[i].done = true;
    hand_on();
  };
  compute(device, [] { return stratum_device_rows(); });
  compute(logic, [] { return stratum_logic_rows(); });
  compute(chip, [] { return stratum_chip_rows(); });
  compute(systems, [] { return stratum_system_rows(); });
  compute(placement, [] { return stratum_placement_rows(); });
  compute(metadata, [] { return hcrmap_metadata_rows(); });
  // The costly families beside the HCRMap experiments (work in the suite's unit, about 45 000 per
  // CPU second: it only orders the queue). The Stratum results (a quarter of a second) start
  // first: every family after them waits for them to be handed on.
  std::vector<suite_side_task> beside;
  beside.push_back({1e12, [&] { compute(results, [] { return stratum_result_rows(); }); }});
  if (domain_counts) beside.push_back({2.6 * 45000.0, [&] { compute(serving, [&] { return serving_rows(*domain_counts); }); }});
  // The GPU validation family: the published measurements, then the measured vLLM serving runs.
  const auto gpu_validation = [] {
    auto rows = validation_rows();
    for (auto& r : serving_validation_rows()) rows.push_back(std::move(r));
    return rows;
  };
  beside.push_back({4.3 * 45000.0, [&] { compute(validation, gpu_validation); }});
  hcrmap_suite_progress step;
  if (progress) {
    step = [&](const std::string& model, const char* mode) {
      const std::lock_guard<std::mutex> hold(lock);
      progress("hcrmap policies: " + model + " " + mode, 0);
    };
  }
  compute(policies, [&] { return hcrmap_policy_rows(dsv2lite_trace, hcrmap_value, step, threads, beside); });
  // A family the pool did not start (it stops at a failure) runs now, so that the error thrown is
  // the first in report order.
  for (std::size_t i = 0; i < fams.size() && !fams[i].error; ++i) {
    if (fams[i].done) continue;
    if (i == results) compute(results, [] { return stratum_result_rows(); });
    if (i == serving) compute(serving, [&] { return serving_rows(*domain_counts); });
    if (i == validation) compute(validation, gpu_validation);
  }
  for (const auto& f : fams) {
    if (f.error) std::rethrow_exception(f.error);
  }
  return rows;
}

}  // namespace v0
}  // namespace strata
