// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Replay of a routing trace through the compared policies (HCRMap §7.1–7.2): the library side of
/// `strata-eval hcrmap`. Any trace in the documented `seq,pos,L1..LN` format
/// (`workload/trace_io.hpp`) whose layers and experts match the model can be replayed, in prefill
/// or decode, with the protocol of `experiment.hpp` — the comparison's fairness included:
///
/// - the trace is split by sequence (`split_by_sequence`): even-position sequences build every
///   policy's layout (and HCRMap's promotions), odd-position sequences are served;
/// - prefill serves the evaluation split in windows of 2048 tokens, ⌈tokens / 2048⌉ of them;
///   decode serves steps of one batch of B = `experiment.batch` (512) distinct concurrent
///   sequences — a split with fewer is refused unless `experiment.trace_reuse` (stated in the
///   result) —, as many steps as the longest evaluation sequence has tokens (a step wraps within
///   a sequence), with `experiment.context` KV tokens per sequence; both at most `max_windows`,
///   and the replay's expert routes at most `hcrmap_limits().routes` (`config_error` naming
///   `max_windows`, checked before the replay starts);
/// - every policy sees the same substrate, package plan, evaluated layers, windows and
///   resident-copy budget; HCRMap decides with the value function given (the frozen DQN
///   checkpoint; empty: the greedy rule).
///
/// With `replay_params::order` = `replay_order::file` the trace is served in file order instead
/// (the task-switch workload of `task_switch.hpp`: the first window warms up every policy's
/// layout, every later one is served, at most `max_windows`; a controller observes a window only
/// after serving it).
///
/// Per policy it returns mean window latency, energy and EDP (absolute and normalised to
/// single-copy static), the stage attribution of the routed time (Fig. 5) and the weight bytes
/// streamed from DRAM and HBM, T_E2E per window and the edits applied while serving by kind. `trace_replay_json.hpp` (the io header) writes it as JSON and as a
/// text table.

#include <algorithm>  // std::max, std::min, std::clamp, std::find
#include <limits>     // std::numeric_limits
#include <cstdint>    // std::int64_t
#include <cstddef>    // std::size_t
#include <string>     // std::string
#include <vector>     // std::vector

#include "strata/chiplet/substrate.hpp"
#include "strata/core/error.hpp"
#include "strata/hcrmap/experiment.hpp"
#include "strata/hcrmap/experiment_params.hpp"
#include "strata/hcrmap/experiment_result.hpp"
#include "strata/hcrmap/policies.hpp"
#include "strata/hcrmap/scorer.hpp"
#include "strata/hcrmap/task_switch.hpp"
#include "strata/hcrmap/trace_split.hpp"
#include "strata/workload/trace.hpp"

namespace strata {
inline namespace v0 {

/// The six compared policies (§7.1), single-copy static first.
template <class = void>
inline std::vector<policy_kind> compared_policies() {
  return {policy_kind::single_copy_static, policy_kind::fixed_replication, policy_kind::hydra,
          policy_kind::moentwine,          policy_kind::pimoe,             policy_kind::hcrmap};
}

/// How a replay orders a trace's windows.
enum class replay_order {
  split,  ///< even sequences build the layouts, odd ones are served (`experiment.hpp`)
  file    ///< file order: the first window warms up, the rest is served (`task_switch.hpp`)
};

/// Parses `strata-eval hcrmap --order` ("split" or "file"); throws `config_error` ("order") naming
/// the choices otherwise.
template <class = void>
inline replay_order parse_order(const std::string& name) {
  if (name == "split") return replay_order::split;
  if (name == "file") return replay_order::file;
  throw config_error("order", "[strata.hcrmap.replay] order must be one of split, file, got '" + name + "'");
}

/// Knobs of a replay.
struct replay_params {
  /// Windows served at most. [Design choice: 32 — an 8 000-token trace replays in seconds]
  int max_windows = 32;
  replay_order order = replay_order::split;  ///< the split protocol, or file order
  experiment_params experiment{};  ///< the harness (the comparison's defaults)
};

/// One policy's replay.
struct replay_policy {
  policy_kind policy = policy_kind::single_copy_static;
  double latency_s = 0.0;   ///< mean window T_E2E (s)
  double energy_j = 0.0;    ///< mean window energy (J)
  double edp = 0.0;         ///< energy × latency (J·s)
  double normalised_latency = 1.0, normalised_energy = 1.0, normalised_edp = 1.0;  ///< / single-copy static
  double moe_s = 0.0;       ///< mean routed time, scaled to all MoE layers (s)
  stage_times stages{};     ///< mean Σ_l critical-group stages of the routed time, scaled (Fig. 5)
  double dram_stream_bytes = 0.0;  ///< mean weight bytes streamed from DRAM per window, scaled
  double hbm_stream_bytes = 0.0;   ///< mean weight bytes streamed from HBM per window, scaled
  int edits = 0;                   ///< residency edits while serving
  edit_counts controller_edits{};  ///< the same by kind (promotes, demotes, evictions) and copies published
  std::vector<double> e2e_s;       ///< T_E2E per served window (s)
  std::size_t violations = 0;      ///< Eq. 1–4, 21–24 violations (0 expected)
};

/// A replay: the trace, the protocol's choices and every policy.
struct replay_result {
  std::string model;
  phase mode = phase::decode;
  replay_order order = replay_order::split;
  std::size_t tokens = 0;             ///< tokens of the trace
  std::size_t profile_tokens = 0;     ///< of which in the profile split (file order: the warm-up windows)
  std::size_t evaluation_tokens = 0;  ///< of which in the evaluation split (file order: the served windows)
  std::vector<std::string> window_task;  ///< file order: per served window, the task holding most of its tokens
  int windows = 0;                    ///< windows served
  int window_tokens = 0;              ///< tokens per window: 2048 prefill, the batch B decode
  int context = 0;                    ///< decode context per sequence (KV tokens)
  bool sequences_reused = false;      ///< a decode window took several tokens of one sequence (trace_reuse)
  int packages = 0;
  std::vector<int> evaluated_layers;
  double non_routed_s = 0.0;
  std::string value;  ///< HCRMap's value function
  std::string note;
  std::vector<replay_policy> policies;
};

/// The largest decode batch `replay_trace` serves from `trace` in `order` without taking several
/// tokens of one sequence (`experiment_params::trace_reuse`): a window of B decodes B distinct
/// sequences side by side, from each split in split order (the smaller: the odd positions, ⌊n/2⌋
/// of n sequences; a trace of one sequence splits its tokens and holds 1) and from the whole
/// trace in file order. At least 1.
template <class = void>
inline int replay_batch_limit(const routing_trace& trace, replay_order order) {
  const auto n = static_cast<long long>(detail::sequences_of(trace).size());
  const long long limit = order == replay_order::file ? n : n / 2;
  return static_cast<int>(std::clamp<long long>(limit, 1, std::numeric_limits<int>::max()));
}

/// Replays `trace` on `m` in `mode` through `policies` (empty: `compared_policies()`; single-copy
/// static is added first if missing) (file comment). Throws `config_error` ("trace") unless the
/// trace's layers, experts and routing width are the model's (`require_trace_of_model`).
template <class = void>
inline replay_result replay_trace(const substrate& s, const model& m, const routing_trace& trace, phase mode,
                                  std::vector<policy_kind> policies = {}, const replay_params& rp = {},
                                  const controller_value& value = {}) {
  constexpr const char* id = "strata.hcrmap.replay";
  detail::require(rp.max_windows >= 1 && rp.max_windows <= 1024, id, "max_windows", rp.max_windows, "in [1, 1024]");
  detail::require(!trace.empty(), id, "trace", trace.tokens(), "at least one token");
  require_trace_of_model(trace, m, "the replayed trace");
  if (policies.empty()) policies = compared_policies();
  replay_result out;
  experiment_result r;
  int windows = 1;
  if (rp.order == replay_order::file) {
    auto ts = run_task_switch(s, m, trace, mode, policies, rp.experiment, rp.max_windows, value.score);
    r = std::move(ts.experiment);
    windows = static_cast<int>(ts.window_task.size());
    out.profile_tokens = ts.warmup_tokens;
    out.evaluation_tokens = ts.served_tokens;
    out.window_task = std::move(ts.window_task);
  } else {
    const auto [prof, eval] = split_by_sequence(trace);
    experiment_params xp = rp.experiment;
    if (mode == phase::prefill) {
      windows = static_cast<int>((eval.tokens() + 2047) / 2048);
    } else {
      for (const auto& seq : detail::sequences_of(eval)) windows = std::max(windows, static_cast<int>(seq.size()));
    }
    windows = std::clamp(windows, 1, rp.max_windows);
    xp.windows = windows;
    const bool has_static = std::find(policies.begin(), policies.end(), policy_kind::single_copy_static) != policies.end();
    detail::require_routes(1, m, mode, static_cast<std::int64_t>(policies.size()) + (has_static ? 0 : 1), xp, id,
                           "max_windows");
    r = run_experiment(s, m, trace, mode, policies, xp, {}, value.score);
    out.profile_tokens = prof.tokens();
    out.evaluation_tokens = eval.tokens();
  }
  out.model = r.model;
  out.mode = mode;
  out.order = rp.order;
  out.tokens = trace.tokens();
  out.windows = windows;
  out.window_tokens = r.window_tokens;
  out.context = r.context;
  out.sequences_reused = r.sequences_reused;
  out.packages = r.packages;
  out.evaluated_layers = r.evaluated_layers;
  out.non_routed_s = r.non_routed_s;
  out.value = value.score ? value.name : std::string("greedy");
  out.note = r.note;
  const auto& base = r.of(policy_kind::single_copy_static);
  for (const auto& p : r.policies) {
    replay_policy q;
    q.policy = p.policy;
    q.latency_s = p.latency_s;
    q.energy_j = p.energy_j;
    q.edp = p.edp;
    q.normalised_latency = p.latency_s / base.latency_s;
    q.normalised_energy = p.energy_j / base.energy_j;
    q.normalised_edp = p.edp / base.edp;
    q.moe_s = p.moe_s;
    q.stages = p.stages;
    q.dram_stream_bytes = p.dram_stream_bytes;
    q.hbm_stream_bytes = p.hbm_stream_bytes;
    q.edits = p.edits;
    q.controller_edits = p.controller_edits;
    q.e2e_s = p.e2e_s;
    q.violations = p.violations;
    out.policies.push_back(q);
  }
  return out;
}

/// Parses a policy name of `strata-eval hcrmap --policy` ("static", "fixed", "hydra", "moentwine",
/// "pimoe", "hcrmap", an ablation's name, or "all" for `compared_policies()`); throws
/// `config_error` ("policy") naming the choices otherwise.
template <class = void>
inline std::vector<policy_kind> parse_policies(const std::string& name) {
  if (name == "all") return compared_policies();
  std::string names = "all";
  for (const auto& [k, n] : enum_names(policy_kind{})) {
    if (name == n) return {k};
    names += std::string(", ") + n;
  }
  throw config_error("policy", "[strata.hcrmap.replay] policy must be one of " + names + ", got '" + name + "'");
}

}  // namespace v0
}  // namespace strata
