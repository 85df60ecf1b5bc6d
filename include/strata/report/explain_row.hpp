// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// One check row of the paper report explained, as `strata-eval explain <row>` does it, for every
/// front end: the command line (`examples/strata-eval/explain.cpp` prints it as text or JSON) and
/// the Python module (`strata.explain(row_id)` returns its JSON as a dict). One implementation, so
/// the two cannot drift.
///
/// `explain_row(id)` computes the report family that holds the row (`explain_family_of`:
/// stratum-results, gpu-validation, stratum-chip or hcrmap-policies) with `paper_rows`, finds the row, and explains it with
/// `explain_report` when it is a check out of tolerance. The outcome says which of four cases
/// applies (`explain_status`); `explain_row_json` is the document of `strata-eval explain <row>
/// --json`. A row the explainer does not know is a `config_error` naming "row".
///
/// \code
///   const strata::explain_outcome x = strata::explain_row("stratum.system.olmoe.decode_speedup");
///   const strata::json j = strata::explain_row_json(x);  // strata-eval explain ... --json
/// \endcode

#include <filesystem>  // std::filesystem::exists, the data directory's inputs
#include <memory>    // std::make_shared, the HCRMap trace cache
#include <optional>  // std::optional
#include <string>    // std::string
#include <system_error>  // std::error_code
#include <utility>   // std::move
#include <vector>    // std::vector

#include "strata/core/error.hpp"
#include "strata/core/files.hpp"
#include "strata/core/json.hpp"
#include "strata/core/limits.hpp"
#include "strata/hcrmap/dqn_json.hpp"
#include "strata/hcrmap/dqn_scorer.hpp"
#include "strata/report/explain_groups.hpp"
#include "strata/report/explain_json.hpp"
#include "strata/report/paper_rows.hpp"
#include "strata/workload/hf_config.hpp"

namespace strata {
inline namespace v0 {

/// The paper report's inputs a data directory holds (the layout of `tests/data/`, installed as
/// `share/strata/`): the real DeepSeek-V2-Lite trace of the HCRMap rows
/// (`traces/dsv2lite_esft_trace_intent.csv`), the per-domain count table of the serving rows
/// (`traces/olmoe_mixtral_expert_counts_by_domain.csv`), the checkpoint of HCRMap's controller
/// (`hcrmap/dqn_checkpoint.json`) and the directory of the vLLM campaign runs' `config.json`
/// fixtures (`hf/`, when it holds `qwen3-14b.config.json`). Each is set when the directory has it;
/// without one the rows fall back (`paper_report_options`: the fitted synthetic trace, no serving
/// rows, the greedy one-step rule, the campaign runs of preset models only).
struct paper_report_inputs {
  std::optional<std::string> dsv2lite_trace, domain_counts, checkpoint, hf_dir;
};

/// The inputs `dir` holds (`paper_report_inputs`; an empty `dir`: none). A probe that opens
/// nothing (a FIFO would block an open): the readers open what it finds under the opening rule
/// (`core/files.hpp`) and refuse a directory, a device or a FIFO. `strata-paper-report`,
/// `strata-eval explain` and the Python module's `paper_rows` and `explain` find their inputs by it,
/// so each computes the rows the others do.
template <class = void>
inline paper_report_inputs find_paper_report_inputs(const std::string& dir) {
  paper_report_inputs in;
  if (dir.empty()) return in;
  const auto present = [](const std::string& p) {
    std::error_code ec;
    return std::filesystem::exists(p, ec);
  };
  const auto at = [&](const char* rel) -> std::optional<std::string> {
    std::string p = dir + "/" + rel;
    if (present(p)) return p;
    return std::nullopt;
  };
  in.dsv2lite_trace = at("traces/dsv2lite_esft_trace_intent.csv");
  in.domain_counts = at("traces/olmoe_mixtral_expert_counts_by_domain.csv");
  in.checkpoint = at("hcrmap/dqn_checkpoint.json");
  if (present(dir + "/hf/qwen3-14b.config.json")) in.hf_dir = dir + "/hf";
  return in;
}

/// The value function of HCRMap's controller the report decides with: the checkpoint at `path`
/// ("masked Double DQN checkpoint", read within `limits().checkpoint_file_bytes`), or none (the
/// greedy one-step rule) without a path. Throws as `read_input_file` and `parse_dqn_checkpoint` do.
template <class = void>
inline controller_value load_report_controller_value(const std::optional<std::string>& path) {
  controller_value value;
  if (!path) return value;
  const std::string text = read_input_file(*path, "checkpoint", limits().checkpoint_file_bytes, "checkpoint_file_bytes");
  value.name = "masked Double DQN checkpoint";
  value.score = dqn_scorer(parse_dqn_checkpoint(text, *path));
  return value;
}

/// `paper_report_options` reading `in` (its trace, count table and fixtures, `load_hf_config` the
/// fixtures' reader) and deciding HCRMap's actions with `value` (`load_report_controller_value`).
template <class = void>
inline paper_report_options paper_report_options_with(const paper_report_inputs& in, const controller_value& value) {
  paper_report_options o;
  o.dsv2lite_trace = in.dsv2lite_trace;
  o.domain_counts = in.domain_counts;
  o.hf_dir = in.hf_dir;
  o.read_config = [](const std::string& path) { return load_hf_config(path); };
  o.hcrmap_value = value;
  return o;
}

/// What `explain_row` found.
enum class explain_status {
  explained,          ///< a failing check row, explained (`row`, `families`)
  not_reevaluated,    ///< an hcrmap.* row the explainer has no family for (`reason`)
  nothing_to_explain, ///< a row that is not a check, or within tolerance (`reason`)
  no_evaluator,       ///< a failing check row of a known family without an evaluator (`reason`)
};

/// The outcome of `explain_row`.
struct explain_outcome {
  std::string id;
  explain_status status = explain_status::explained;
  std::string reason;                       ///< why there is no explanation (all but `explained`)
  std::optional<row_explanation> row;       ///< the explanation (`explained`)
  std::vector<family_line> families;        ///< the family lines of `explain_report` (`explained`)
};

/// The report family (`paper_report_options::only`) that computes row `id`, or "" for a row the
/// explainer does not re-evaluate.
template <class = void>
inline std::string explain_family_of(const std::string& id) {
  if (id.rfind("stratum.system.", 0) == 0 || id.rfind("stratum.placement.accurate_vs_uniform_m", 0) == 0) {
    return "stratum-results";
  }
  if (id.rfind("validation.", 0) == 0) return "gpu-validation";
  if (id.rfind("stratum.thermal.", 0) == 0) return "stratum-chip";
  if (id == "hcrmap.best_on_every_model" || id == "hcrmap.premise.hydra_d2d_ratio" ||
      id == "hcrmap.premise.hydra_latency_ratio") {
    return "hcrmap-policies";
  }
  return "";
}

/// Explains check row `id` of the paper report (the family that holds it computed with `threads`
/// threads, default inputs, as `strata-eval explain` computes it; `hf_dir` and `read` the
/// `config.json` fixtures of the campaign runs that need one, `dsv2lite_trace` and `hcrmap_value`
/// the inputs of the HCRMap rows, as the report's). Throws `config_error` naming "row" for a row
/// the explainer does not know or the report does not have.
/// `hcrmap.premise.migration_delays_dispatch` is computed by `hcrmap_premise_rows` without the
/// suite (the row does not read it); `hcrmap.best_on_every_model` and the two Hydra premise rows
/// run the 16 HCRMap experiments (the report's) and their families rerun them at every point
/// (`explain_options::hcrmap_hydra_premise`, on here).
template <class = void>
inline explain_outcome explain_row(const std::string& id, unsigned threads, const std::optional<std::string>& hf_dir,
                                   const config_reader& read, const std::optional<std::string>& dsv2lite_trace,
                                   const controller_value& hcrmap_value) {
  explain_outcome out;
  out.id = id;
  const std::string fam = explain_family_of(id);
  const bool migration = id == "hcrmap.premise.migration_delays_dispatch";
  if (fam.empty() && !migration) {
    if (id.rfind("hcrmap.", 0) == 0) {
      out.status = explain_status::not_reevaluated;
      out.reason = explain_unexplained_reason(id);
      return out;
    }
    throw config_error("row", "[strata.explain] row " + id +
                                  " is not a check row the explainer knows (stratum.system.*, "
                                  "stratum.placement.accurate_vs_uniform_*, validation.*, hcrmap.*, "
                                  "stratum.thermal.*)");
  }
  // The HCRMap suite's traces built once, for the report's rows and the explainer's families.
  const auto traces = std::make_shared<hcrmap_trace_cache>();
  paper_report_options po;
  po.hcrmap_traces = traces;
  po.only = {fam};
  po.threads = threads;
  po.hf_dir = hf_dir;
  po.read_config = read;
  po.dsv2lite_trace = dsv2lite_trace;
  po.hcrmap_value = hcrmap_value;
  const auto rows = migration ? hcrmap_premise_rows({}, {}) : paper_rows(po);
  const paper_row* row = nullptr;
  for (const auto& r : rows) {
    if (r.id == id) row = &r;
  }
  if (row == nullptr) throw config_error("row", "[strata.explain] the paper report has no row " + id);
  if (row->kind != row_kind::check || row->ok().value_or(true)) {
    out.status = explain_status::nothing_to_explain;
    out.reason = row->kind != row_kind::check ? std::string("a ") + to_string(row->kind) + " row, not a check"
                                              : std::string("within tolerance");
    return out;
  }
  explain_options eo;
  eo.threads = threads;
  eo.hf_dir = hf_dir;
  eo.read_config = read;
  eo.dsv2lite_trace = dsv2lite_trace;
  eo.hcrmap_value = hcrmap_value;
  eo.hcrmap_traces = traces;
  eo.hcrmap_hydra_premise = true;
  auto x = explain_report(rows, {id}, eo);
  if (x.rows.empty()) {
    out.status = explain_status::no_evaluator;
    out.reason = x.unexplained.empty() ? std::string("no evaluator") : x.unexplained.front().reason;
    return out;
  }
  out.row = std::move(x.rows.front());
  out.families = std::move(x.families);
  return out;
}

/// `explain_row` without the HCRMap inputs (the synthetic DeepSeek-V2-Lite trace and the greedy
/// value, as a report computed without them).
template <class = void>
inline explain_outcome explain_row(const std::string& id, unsigned threads, const std::optional<std::string>& hf_dir,
                                   const config_reader& read) {
  return explain_row(id, threads, hf_dir, read, std::nullopt, controller_value{});
}

/// `explain_row` on the inputs `in` of a data directory (`find_paper_report_inputs`: the fixtures
/// with `load_hf_config`, the real trace, the controller's checkpoint), as `strata-eval explain`
/// and the Python module's `explain` compute it.
template <class = void>
inline explain_outcome explain_row(const std::string& id, unsigned threads, const paper_report_inputs& in) {
  return explain_row(id, threads, in.hf_dir, [](const std::string& path) { return load_hf_config(path); },
                     in.dsv2lite_trace, load_report_controller_value(in.checkpoint));
}

/// `explain_row` without `config.json` fixtures (the campaign runs of preset models only).
template <class = void>
inline explain_outcome explain_row(const std::string& id, unsigned threads = 1) {
  return explain_row(id, threads, std::nullopt, config_reader{});
}

/// The document of `strata-eval explain <row> --json`: the explanation with its family line
/// (`row_explanation_json`, "family_line" null when there is none), or `{"id", "explained": false,
/// "reason"}`.
template <class = void>
inline json explain_row_json(const explain_outcome& x) {
  if (x.status != explain_status::explained || !x.row) return json{{"id", x.id}, {"explained", false}, {"reason", x.reason}};
  json j = row_explanation_json(*x.row);
  j["family_line"] = x.families.empty() ? json(nullptr) : family_line_json(x.families.front());
  return j;
}

}  // namespace v0
}  // namespace strata
