// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// A routing trace replayed through the HCRMap comparison's policies, as `strata-eval hcrmap`
/// runs it, for every front end: the command line (`examples/strata-eval/hcrmap.cpp` parses its
/// options into an `hcrmap_request` and prints the result as a table or JSON) and the Python
/// module (`strata.hcrmap(...)` returns `replay_json` of it as a dict). One implementation, so the
/// two cannot drift.
///
/// `run_hcrmap(model, request)`: the traces (relative paths in the working directory, then in
/// `data_dir`; several served one after the other, each labelled by the last '_'-separated word
/// of its file name) or the synthetic task-switch trace of `drift_tasks`, HCRMap's value function
/// (the checkpoint named, else `hcrmap/dqn_checkpoint.json` in `data_dir`, else the greedy rule,
/// said through `warn`), the decode batch (Table 2's 512 capped at the distinct sequences a
/// window holds unless given or `trace_reuse`, said through `warn`), then `replay_trace`. An
/// option out of range or that does not apply is a `config_error` naming it.
///
/// \code
///   strata::hcrmap_request r;
///   r.mode = "prefill";
///   r.traces = {"traces/dsv2lite_esft_trace_intent.csv"};
///   r.data_dir = strata::data_dir();
///   const auto result = strata::run_hcrmap(strata::preset("DeepSeek-V2-Lite"), r);
/// \endcode

#include <algorithm>    // std::any_of
#include <cstdint>      // std::uint64_t
#include <filesystem>   // std::filesystem::path, std::filesystem::is_regular_file
#include <functional>   // std::function
#include <optional>     // std::optional
#include <string>       // std::string
#include <system_error>  // std::error_code
#include <utility>      // std::move
#include <vector>       // std::vector

#include "strata/chiplet/substrate.hpp"
#include "strata/core/data_dir.hpp"
#include "strata/core/error.hpp"
#include "strata/core/files.hpp"
#include "strata/core/limits.hpp"
#include "strata/hcrmap/dqn_json.hpp"
#include "strata/hcrmap/dqn_scorer.hpp"
#include "strata/hcrmap/trace_replay.hpp"
#include "strata/workload/model.hpp"
#include "strata/workload/task_drift.hpp"
#include "strata/workload/trace_io.hpp"

namespace strata {
inline namespace v0 {

/// The options of `strata-eval hcrmap` (the keyword arguments of Python's `strata.hcrmap`).
struct hcrmap_request {
  std::string mode;                      ///< "prefill" (windows of 2048 tokens) or "decode" (steps of `batch` sequences)
  std::string policy = "all";            ///< one policy or ablation (`policy_kind` names), or "all" (`compared_policies`)
  std::vector<std::string> traces;       ///< routing trace CSVs, served one after the other
  int drift_tasks = 0;                   ///< instead of traces: a synthetic task switch of this many tasks, in [2, 64]
  std::optional<int> drift_sequences;    ///< with drift_tasks: sequences in all, in [1, 2^20] (unset: 512 per task)
  std::optional<long long> drift_seed;   ///< with drift_tasks: the generator's seed, in [0, 2^62] (unset: 1)
  std::string checkpoint;                ///< HCRMap's masked Double DQN checkpoint (empty: the data directory's)
  std::optional<std::string> order;      ///< "split" or "file" (unset: split, file with drift_tasks)
  int layers = experiment_params::all_layers;  ///< MoE layers evaluated, in [1, all_layers]
  std::optional<int> max_windows;        ///< windows served at most, in [1, 1024] (unset: 32; file order: 1024)
  std::optional<int> batch;              ///< decode: sequences per window, in [1, 65536] (unset: 512, capped)
  std::optional<int> context;            ///< decode: KV context per sequence, in [1, 2^24] (unset: 2048)
  bool trace_reuse = false;              ///< decode: allow a window from fewer distinct sequences than batch
  std::string data_dir;                  ///< relative traces and the default checkpoint are looked for here too
  std::string data_hint;                 ///< how the data directory was found (the no-checkpoint warning says it)
};

/// Where a run's warnings and notes go ("warning: ..." and "note: ..."): the CLI prints them to
/// stderr, Python issues them as warnings.
using hcrmap_warning_sink = std::function<void(const std::string&)>;

/// True if `policy` names policies of which one decides with HCRMap's value function (hcrmap and
/// its ablations but the greedy-rule ablation and the frozen layout).
template <class = void>
inline bool hcrmap_uses_value(const std::string& policy) {
  const auto asked = parse_policies(policy);
  return std::any_of(asked.begin(), asked.end(), [](policy_kind k) {
    return k >= policy_kind::hcrmap && k != policy_kind::hcrmap_greedy && k != policy_kind::hcrmap_frozen;
  });
}

namespace detail {
template <class = void>
inline void hcrmap_range(const char* field, long long v, long long lo, long long hi) {
  if (v < lo || v > hi) {
    throw config_error(field, "[strata.hcrmap] " + std::string(field) + " must be in [" + std::to_string(lo) + ", " +
                                  std::to_string(hi) + "], got " + std::to_string(v));
  }
}
}  // namespace detail

/// Replays the request's trace through its policies on the chiplet package (`substrate`), as
/// `strata-eval hcrmap` does; see the file comment.
template <class = void>
inline replay_result run_hcrmap(const model& m, const hcrmap_request& o, const hcrmap_warning_sink& warn = {}) {
  if (o.mode != "prefill" && o.mode != "decode") {
    throw config_error("mode", "[strata.hcrmap] mode must be prefill or decode, got " + detail::quoted_path(o.mode));
  }
  const bool drift = o.drift_tasks != 0;
  if (drift && !o.traces.empty()) throw config_error("drift_tasks", "[strata.hcrmap] traces and drift_tasks exclude each other");
  if (!drift && o.traces.empty()) throw config_error("trace", "[strata.hcrmap] a trace or drift_tasks is required");
  if (drift) detail::hcrmap_range("drift_tasks", o.drift_tasks, 2, 64);
  if (!drift && (o.drift_sequences || o.drift_seed)) {
    throw config_error(o.drift_sequences ? "drift_sequences" : "drift_seed", "[strata.hcrmap] drift_sequences and drift_seed apply with drift_tasks");
  }
  if (o.drift_sequences) detail::hcrmap_range("drift_sequences", *o.drift_sequences, 1, 1 << 20);
  if (o.drift_seed) detail::hcrmap_range("drift_seed", *o.drift_seed, 0, 1LL << 62);
  detail::hcrmap_range("layers", o.layers, 1, experiment_params::all_layers);
  if (o.max_windows) detail::hcrmap_range("max_windows", *o.max_windows, 1, 1024);
  if (o.batch) detail::hcrmap_range("batch", *o.batch, 1, 1 << 16);
  if (o.context) detail::hcrmap_range("context", *o.context, 1, 1 << 24);
  const bool uses_value = hcrmap_uses_value(o.policy);  // parses the policy (config_error "policy")
  if (!uses_value && !o.checkpoint.empty()) {
    throw config_error("checkpoint", "[strata.hcrmap] checkpoint applies to a policy that decides with HCRMap's value "
                                     "function (hcrmap and its ablations but hcrmap_greedy and hcrmap_frozen), not to "
                                     "policy " + o.policy);
  }
  if (o.mode == "prefill" && (o.batch || o.context || o.trace_reuse)) {
    throw config_error(o.batch ? "batch" : o.context ? "context" : "trace_reuse",
                       "[strata.hcrmap] batch, context and trace_reuse apply to mode decode; a prefill window is 2048 "
                       "tokens of the trace's sequences");
  }
  // A synthetic task switch is served in file order unless the order is given.
  const replay_order order = parse_order(o.order.value_or(drift ? "file" : "split"));
  const auto label = [](const std::string& path) {
    auto stem = std::filesystem::path(path).stem().string();
    const auto cut = stem.rfind('_');
    return cut == std::string::npos ? stem : stem.substr(cut + 1);
  };
  std::vector<routing_trace> parts;
  std::vector<std::string> labels;
  for (const auto& given : o.traces) {
    // A relative path: in the working directory first, then in the data directory.
    const std::string path = resolve_input_path(given, ".", o.data_dir);
    labels.push_back(label(path));
    parts.push_back(load_trace_csv(path, {.experts = m.experts, .label = labels.back()}));
    require_trace_of_model(parts.back(), m, path);
  }
  const auto routing = [&] {
    if (!drift) return parts.size() == 1 ? std::move(parts.front()) : concatenate_traces(parts, labels);
    const int seqs = o.drift_sequences.value_or(512 * o.drift_tasks);
    return generate_trace(task_switch_gen_for(m, o.drift_tasks, seqs, 8, 16, static_cast<std::uint64_t>(o.drift_seed.value_or(1))));
  }();
  std::string ck = o.checkpoint;
  if (ck.empty()) {
    const std::string path = o.data_dir.empty() ? std::string() : o.data_dir + "/hcrmap/dqn_checkpoint.json";
    std::error_code ec;
    if (!path.empty() && std::filesystem::is_regular_file(path, ec)) {
      ck = path;
    } else if (uses_value && warn) {
      warn("warning: no controller checkpoint (hcrmap/dqn_checkpoint.json) in the " + o.data_hint +
           "; HCRMap decides with the greedy one-step rule (--checkpoint FILE names one)");
    }
  }
  controller_value value;
  if (!ck.empty()) {
    const std::string text = read_input_file(ck, "checkpoint", limits().checkpoint_file_bytes, "checkpoint_file_bytes");
    value.name = "masked Double DQN " + ck;
    value.score = dqn_scorer(parse_dqn_checkpoint(text, ck));
  }
  replay_params rp;
  rp.order = order;
  // File order serves the whole trace unless max_windows caps it.
  rp.max_windows = o.max_windows.value_or(order == replay_order::file ? 1024 : 32);
  rp.experiment.max_layers = o.layers;
  // Decode's batch: Table 2's 512 unless given, at most the distinct sequences the trace holds for
  // a window (`replay_batch_limit`), stated; trace_reuse keeps 512.
  rp.experiment.batch = o.batch.value_or(512);
  if (o.mode == "decode" && !o.batch && !o.trace_reuse) {
    const int limit = replay_batch_limit(routing, order);
    if (limit < rp.experiment.batch) {
      if (warn) {
        warn("note: --batch " + std::to_string(rp.experiment.batch) + " (HCRMap Table 2) is more than the " +
             std::to_string(limit) + " distinct sequences a window of this trace holds" +
             (order == replay_order::split ? " in each split" : "") + "; batch " + std::to_string(limit) +
             " (--batch sets it)");
      }
      rp.experiment.batch = limit;
    }
  }
  rp.experiment.context = o.context.value_or(2048);
  rp.experiment.trace_reuse = o.trace_reuse;
  const substrate s;
  return replay_trace(s, m, routing, o.mode == "prefill" ? phase::prefill : phase::decode, parse_policies(o.policy), rp, value);
}

}  // namespace v0
}  // namespace strata
