// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Every row of the paper report, in order: Stratum device, logic die, chip (with its thermal cap, `thermal_rows.hpp`), system sizes, the
/// Stratum systems' results (`stratum_rows.hpp`), serving (`serving_rows.hpp`), HCRMap, then the GPU baseline's validation
/// against published measurements (`validation_rows.hpp`) and measured vLLM serving runs
/// (`serving_validation_rows.hpp`). The row families live in their own
/// headers so that a user who wants one family does not compile the others.

#include <cstddef>      // std::size_t
#include <exception>    // std::exception_ptr, std::current_exception, std::rethrow_exception
#include <array>        // std::array, the families
#include <functional>   // std::function
#include <memory>       // std::shared_ptr, the HCRMap trace cache
#include <mutex>        // std::mutex, std::lock_guard
#include <optional>     // std::optional
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::move
#include <vector>       // std::vector

#include "strata/report/hcrmap_rows.hpp"
#include "strata/report/hcrmap_metadata_rows.hpp"
#include "strata/report/placement.hpp"
#include "strata/report/serving_rows.hpp"
#include "strata/report/serving_validation_rows.hpp"
#include "strata/report/stratum_chip_rows.hpp"
#include "strata/report/stratum_device_rows.hpp"
#include "strata/report/stratum_logic_rows.hpp"
#include "strata/report/stratum_rows.hpp"
#include "strata/report/stratum_system_rows.hpp"
#include "strata/report/thermal_rows.hpp"
#include "strata/report/validation_rows.hpp"

namespace strata {
inline namespace v0 {

/// Called after each family of rows is computed, with the family's name ("stratum device", the
/// `paper_family::name` of `paper_families()`) and the number of rows it added. The families are
/// heard in report order, each once every family before it is done.
using paper_progress = std::function<void(std::string_view family, std::size_t rows)>;

/// Called inside the HCRMap policy family (whole experiments, most of the time) after each of its
/// 16 experiments, in the order they end, with the model and the mode ("DBRX", "prefill").
using paper_experiment_progress = std::function<void(std::string_view model, std::string_view mode)>;

/// Called with each family's rows as soon as they and every family before them are computed, in
/// report order (a program can print them then instead of after the last family: the HCRMap
/// family alone takes most of the time).
using paper_row_sink = std::function<void(std::span<const paper_row> family_rows)>;

/// A family of rows of the paper report: its name (as `paper_progress` hears it) and the
/// spelling `paper_report_options::only` and `strata-paper-report --only` take.
struct paper_family {
  std::string_view name;  ///< "stratum device"
  std::string_view cli;   ///< "stratum-device"
};

/// The families of the paper report, in report order. `stratum serving` has rows only with the
/// per-domain count table (`paper_report_options::domain_counts`).
template <class = void>
inline constexpr std::array<paper_family, 10> paper_families() {
  return {{{"stratum device", "stratum-device"},
           {"stratum logic die", "stratum-logic"},
           {"stratum chip", "stratum-chip"},
           {"stratum systems", "stratum-systems"},
           {"stratum results", "stratum-results"},
           {"stratum placement", "stratum-placement"},
           {"stratum serving", "stratum-serving"},
           {"hcrmap metadata", "hcrmap-metadata"},
           {"hcrmap policies", "hcrmap-policies"},
           {"gpu validation", "gpu-validation"}}};
}

/// The group names `only` also takes: each selects the families whose CLI spelling starts with it
/// and a '-' ("stratum": the seven Stratum families).
template <class = void>
inline constexpr std::array<std::string_view, 3> paper_family_groups() { return {"stratum", "hcrmap", "gpu"}; }

/// Does `only` (family spellings and groups, `paper_report_options::only`) select the family whose
/// CLI spelling is `cli`? An empty `only` selects every family.
template <class = void>
inline bool paper_family_selected(std::span<const std::string> only, std::string_view cli) {
  if (only.empty()) return true;
  for (const auto& o : only) {
    if (o == cli) return true;
    if (cli.size() > o.size() && cli.substr(0, o.size()) == o && cli[o.size()] == '-') return true;
  }
  return false;
}

/// Every spelling `only` takes, comma-separated: the groups, then the families in report order.
template <class = void>
inline std::string paper_family_spellings() {
  std::string s;
  for (const auto g : paper_family_groups()) s += (s.empty() ? "" : ", ") + std::string(g);
  for (const auto& f : paper_families()) s += ", " + std::string(f.cli);
  return s;
}

/// Throws `config_error` naming `only` when an entry of `only` is neither a family's CLI spelling
/// nor a group; the message names the entry and lists the valid spellings.
template <class = void>
inline void check_paper_families(std::span<const std::string> only) {
  for (const auto& o : only) {
    bool known = false;
    for (const auto g : paper_family_groups()) known = known || o == g;
    for (const auto& f : paper_families()) known = known || o == f.cli;
    if (!known) {
      throw config_error("only", "[strata.report] only: unknown family '" + o + "' (valid: " + paper_family_spellings() + ")");
    }
  }
}

/// What `paper_rows` computes and whom it tells.
struct paper_report_options {
  /// The real DeepSeek-V2-Lite routing trace (tests/data/traces/dsv2lite_esft_trace_intent.csv)
  /// for the HCRMap policy rows; without it they use the fitted synthetic trace for that model too.
  std::optional<std::string> dsv2lite_trace;
  /// The OLMoE/Mixtral per-domain count file (tests/data/traces/olmoe_mixtral_expert_counts_by_domain.csv)
  /// of the serving rows; without it there are no `stratum.serving.*` rows (they need real tables).
  std::optional<std::string> domain_counts;
  /// The `config.json` fixture directory (tests/data/hf) the vLLM campaign rows read the models
  /// strata has no preset of from; without it those runs have no rows.
  std::optional<std::string> hf_dir;
  /// The `config.json` reader of those fixtures (`load_hf_config`, `strata/workload/hf_config.hpp`;
  /// given by the caller so that the row builders do not include the JSON library).
  config_reader read_config;
  /// The value function HCRMap's controller decides with (the frozen DQN checkpoint; the default
  /// is the greedy fallback).
  controller_value hcrmap_value;
  /// The HCRMap suite's traces (`hcrmap_trace_cache`, report/hcrmap_rows.hpp), each built once
  /// when first asked for; a caller that also runs the gap explainer gives it the same cache
  /// (`explain_options::hcrmap_traces`) so that the explainer's HCRMap families reuse the traces
  /// instead of building them again. Empty (the default): the suite builds its own. The rows are
  /// the same either way.
  std::shared_ptr<hcrmap_trace_cache> hcrmap_traces;
  /// Hears of each family as it is handed on.
  paper_progress progress;
  /// Hears of each HCRMap experiment as it ends.
  paper_experiment_progress experiment_progress;
  /// Receives each family's rows when it is handed on (before `progress`).
  paper_row_sink sink;
  /// Threads for the HCRMap experiments and, in the same queue beside them, the other costly
  /// families (Stratum results, serving, GPU validation), longest first (0: the machine's
  /// hardware threads). The rows are the same for every count.
  unsigned threads = 0;
  /// The families to compute (`paper_family::cli` spellings or `paper_family_groups()`); empty:
  /// every family. A family not selected is neither computed nor heard of; the rows keep report
  /// order. An unknown spelling throws `config_error` naming `only` before anything is computed.
  std::vector<std::string> only;
};

/// Every row the library computes today (`options.only`: the selected families), in report
/// order. The calls to `progress`, `experiment_progress` and `sink` never overlap (they may come
/// from any of the threads). A failing family throws its exception: the first in report order of
/// the families that failed.
///
/// \code
///   strata::paper_report_options o;
///   o.only = {"stratum-device", "hcrmap-metadata"};
///   const auto rows = strata::paper_rows(o);   // 16 rows, no experiment run
/// \endcode
// Not `inline`: strata::compiled holds its instantiation (end of file), which an `inline` one would
// not spare a STRATA_COMPILED consumer (GCC instantiates inline functions for inlining).
template <class = void>
std::vector<paper_row> paper_rows(const paper_report_options& options = {}) {
  check_paper_families(options.only);
  const auto& domain_counts = options.domain_counts;
  const unsigned threads = options.threads;
  // One slot per selected family in report order; a slot is handed on (sink, progress) once it
  // and every slot before it are done. A family not selected has no slot (`none`).
  struct family {
    std::string_view name;
    std::vector<paper_row> rows;
    std::exception_ptr error;
    bool done = false;
  };
  constexpr std::size_t none = static_cast<std::size_t>(-1);
  std::vector<family> fams;
  const auto slot = [&](std::string_view cli, bool available = true) {
    if (!available || !paper_family_selected(options.only, cli)) return none;
    std::string_view name;
    for (const auto& f : paper_families()) {
      if (f.cli == cli) name = f.name;
    }
    fams.push_back(family{name, {}, {}, false});
    return fams.size() - 1;
  };
  const std::size_t device = slot("stratum-device"), logic = slot("stratum-logic"), chip = slot("stratum-chip"),
                    systems = slot("stratum-systems"), results = slot("stratum-results"),
                    placement = slot("stratum-placement");
  const std::size_t serving = slot("stratum-serving", domain_counts.has_value());
  const std::size_t metadata = slot("hcrmap-metadata"), policies = slot("hcrmap-policies"),
                    validation = slot("gpu-validation");
  std::mutex lock;  // the slots' done flags and rows, the next slot to hand on, progress and sink
  std::size_t handed = 0;
  std::vector<paper_row> rows;
  const auto hand_on = [&]() {  // under `lock`
    for (; handed < fams.size() && fams[handed].done && !fams[handed].error; ++handed) {
      auto& f = fams[handed];
      const std::size_t n = f.rows.size();
      for (auto& r : f.rows) rows.push_back(std::move(r));
      if (options.sink) options.sink(std::span<const paper_row>(rows).last(n));
      if (options.progress) options.progress(f.name, n);
    }
  };
  const auto compute = [&](std::size_t i, auto&& make) {
    if (i == none) return;
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
  compute(chip, [] {
    auto rows = stratum_chip_rows();
    for (auto& r : stratum_thermal_rows()) rows.push_back(std::move(r));
    return rows;
  });
  compute(systems, [] { return stratum_system_rows(); });
  compute(placement, [] { return stratum_placement_rows(); });
  compute(metadata, [] { return hcrmap_metadata_rows(); });
  // The costly families beside the HCRMap experiments (work in the suite's unit, about 45 000 per
  // CPU second: it only orders the queue). The Stratum results (a quarter of a second) start
  // first: every family after them waits for them to be handed on.
  std::vector<suite_side_task> beside;
  if (results != none) beside.push_back({1e12, [&] { compute(results, [] { return stratum_result_rows(); }); }});
  if (serving != none) beside.push_back({2.6 * 45000.0, [&] { compute(serving, [&] { return serving_rows(*domain_counts); }); }});
  // The GPU validation family: the published measurements, then the measured vLLM serving runs.
  const auto gpu_validation = [&] {
    auto rows = validation_rows();
    for (auto& r : serving_validation_rows(options.hf_dir, options.read_config)) rows.push_back(std::move(r));
    return rows;
  };
  if (validation != none) beside.push_back({4.3 * 45000.0, [&] { compute(validation, gpu_validation); }});
  hcrmap_suite_progress step;
  if (options.experiment_progress) {
    step = [&](const std::string& model, const char* mode) {
      const std::lock_guard<std::mutex> hold(lock);
      options.experiment_progress(model, mode);
    };
  }
  if (policies != none) {
    compute(policies, [&] {
      return hcrmap_policy_rows(options.dsv2lite_trace, options.hcrmap_value, step, threads, beside,
                                options.hcrmap_traces);
    });
  } else {
    // No experiment: the costly families share the threads alone.
    detail::run_tasks(beside.size(), threads, [&](std::size_t i) { beside[i].run(); });
  }
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

// strata::compiled (STRATA_BUILD_COMPILED, src/compiled_report.cpp) holds the family's
// instantiations; STRATA_COMPILED=1, which that target puts on its users, keeps their translation
// units from generating them. Without it this header is unchanged (header-only).
#if defined(STRATA_COMPILED) && STRATA_COMPILED
namespace strata {
inline namespace v0 {
extern template std::vector<paper_row> paper_rows<void>(const paper_report_options&);
}  // namespace v0
}  // namespace strata
#endif
