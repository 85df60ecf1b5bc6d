// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The knobs of the HCRMap policy comparison (`experiment.hpp`): windows, profile windows,
/// evaluated layers, planning rounds, decode context, and the nested knobs of the fast mapper,
/// the controller, PIM, the critical path and the package plan; and the work limit of the
/// experiments and studies (`hcrmap_limits()`, expert routes).

#include <algorithm>  // std::min
#include <cstdint>    // std::int64_t
#include <string>     // std::string, std::to_string

#include "strata/chiplet/critical_path.hpp"
#include "strata/chiplet/scale_out.hpp"
#include "strata/core/error.hpp"
#include "strata/core/limits.hpp"
#include "strata/hcrmap/controller_params.hpp"
#include "strata/hcrmap/pim.hpp"
#include "strata/hcrmap/token_mapper.hpp"
#include "strata/workload/model.hpp"
#include "strata/workload/operators.hpp"

namespace strata {
inline namespace v0 {

/// Knobs of the experiment (the protocol of `experiment.hpp`).
struct experiment_params {
  int windows = 3;          ///< evaluation windows in sequence [design choice: 3]
  int profile_windows = 1;  ///< profile windows the layouts are built from [design choice: 1]
  /// MoE layers evaluated at most, evenly spaced. [Default: every MoE layer (`all_layers`): the
  /// paper's latency is end to end. A sample is biased: replicating policies then place their
  /// extra copies only on the sampled layers, at (budget_factor − 1) × those layers' experts
  /// (fixed replication served DeepSeek-V2 decode 2.05× slower than static on six sampled layers,
  /// 1.52× on all 59), and a stage fills its fast tiers layer by layer or spread over its layers
  /// depending on the policy, which a sample of one layer per stage sees at one position only.
  /// Smaller values are for quick sweeps and tests.]
  int max_layers = all_layers;
  /// `max_layers` that evaluates every MoE layer of any model (the bound `validate` allows).
  static constexpr int all_layers = 1 << 16;
  /// Rounds of HCRMap's pre-serving promotions on the profile window at most, each re-observing
  /// the window on the layout so far (`policy_session::plan`, which stops at the first round that
  /// installs nothing). [Design choice: 16]
  int planning_rounds = 16;
  /// Decode context of each sequence (KV cache tokens). [Design choice: 2048, the prefill length;
  /// HCRMap Table 2 gives the 512 active tokens, not their context. The KV cache's tier is a
  /// residency option, `scale_out.residency.kv` (`kv_placement`: HBM first by default, DRAM, or
  /// by capacity pressure); `examples/scenarios/decode_shape_kv_*.json` sweep 512…4096]
  int context = 2048;
  /// Decode batch B: a decode window takes one token from each of B concurrent sequences.
  /// [HCRMap Table 2: 512 active tokens]
  int batch = 512;
  /// A decode window from a trace split with fewer than `batch` sequences reuses sequences
  /// (several tokens of one sequence in a window; the result's `sequences_reused` and note say so)
  /// instead of being refused. [Default false: a window of B is B distinct sequences]
  bool trace_reuse = false;
  fast_map_params fast_map{};
  controller_params controller{};
  pim_params pim{};
  critical_path_params critical_path{};
  scale_out_params scale_out{};

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("windows", s.windows);
    v("profile_windows", s.profile_windows);
    v("max_layers", s.max_layers);
    v("planning_rounds", s.planning_rounds);
    v("context", s.context);
    v("batch", s.batch);
    v("trace_reuse", s.trace_reuse);
    v("fast_map", s.fast_map);
    v("controller", s.controller);
    v("pim", s.pim);
    v("critical_path", s.critical_path);
    v("scale_out", s.scale_out);
  }
};

/// What an HCRMap experiment or study may ask for (inclusive; process-wide, adjustable before
/// running, e.g. `strata::hcrmap_limits().routes = std::int64_t{1} << 32;`).
struct hcrmap_input_limits {
  /// Expert routes one experiment, sweep or study replays, counted before it starts
  /// (`experiment_routes`): points × policies × (profile + evaluation windows) × evaluated MoE
  /// layers × tokens per window (2048 prefill, `batch` decode) × top-k. [Design choice: 2^30, about
  /// 1.07·10^9: about 3.5 minutes of one core at DeepSeek-V3 decode's ≈ 0.19 µs per route, the
  /// slowest measured; 100 times the largest shipped scenario (examples/scenarios/fig7_*.json:
  /// 10.6 M) and 35 times the paper report's largest experiment (DeepSeek-V3 prefill, 8
  /// policies: 30.4 M)]
  std::int64_t routes = std::int64_t{1} << 30;
};

/// The process-wide HCRMap limits (see `hcrmap_input_limits`).
template <class = void>
inline hcrmap_input_limits& hcrmap_limits() {
  static hcrmap_input_limits l;
  return l;
}

/// Tokens of one serving window: prefill 2048 tokens, decode one step of 512 concurrent sequences.
constexpr int tokens_per_window(phase mode) { return mode == phase::prefill ? 2048 : 512; }
/// Tokens of one serving window under `xp`: prefill 2048 tokens, decode one step of `xp.batch`
/// concurrent sequences.
template <class = void>
inline int tokens_per_window(phase mode, const experiment_params& xp) { return mode == phase::prefill ? 2048 : xp.batch; }

/// Expert routes one experiment of `policies` policies on `m` in `mode` replays:
/// policies × (profile_windows + windows) × min(max_layers, MoE layers) × tokens per window × top-k
/// (the work of `run_experiment` grows with it; `hcrmap_input_limits::routes` bounds it).
template <class = void>
inline std::int64_t experiment_routes(const model& m, phase mode, std::int64_t policies, const experiment_params& xp) {
  constexpr const char* id = "strata.hcrmap.experiment";
  const std::int64_t layers = std::min<std::int64_t>(xp.max_layers, m.moe_layers());
  std::int64_t r = detail::checked_mul(policies, std::int64_t{xp.profile_windows} + xp.windows, id, "windows");
  r = detail::checked_mul(r, layers, id, "max_layers");
  r = detail::checked_mul(r, tokens_per_window(mode, xp), id, "mode");
  return detail::checked_mul(r, m.top_k, id, "top_k");
}

namespace detail {
/// "(points x policies x windows (w + p profile) x layers x tokens x top-k)": the terms of
/// `points` times `experiment_routes`, for messages.
template <class = void>
inline std::string routes_terms(std::int64_t points, const model& m, phase mode, std::int64_t policies,
                                const experiment_params& xp) {
  return "(" + std::to_string(points) + " points x " + std::to_string(policies) + " policies x " +
         std::to_string(xp.profile_windows + xp.windows) + " windows (" + std::to_string(xp.windows) + " + " +
         std::to_string(xp.profile_windows) + " profile) x " + std::to_string(std::min(xp.max_layers, m.moe_layers())) +
          " MoE layers x " + std::to_string(tokens_per_window(mode, xp)) + " tokens x top-" + std::to_string(m.top_k) + ")";
}

/// Throws `config_error` naming `field` unless `points` experiments of `policies` policies on `m`
/// in `mode` replay at most `hcrmap_limits().routes` expert routes; the message gives every term.
template <class = void>
inline void require_routes(std::int64_t points, const model& m, phase mode, std::int64_t policies,
                           const experiment_params& xp, const char* id, const std::string& field) {
  const std::int64_t routes = checked_mul(points, experiment_routes(m, mode, policies, xp), id, field);
  const std::int64_t limit = hcrmap_limits().routes;
  if (routes > limit) {
    throw config_error(field, std::string("[") + id + "] " + field + ": " + std::to_string(routes) + " expert routes " +
                                  routes_terms(points, m, mode, policies, xp) + " exceed the limit " +
                                  std::to_string(limit) + " (strata::hcrmap_limits().routes)");
  }
}
}  // namespace detail

/// Checks the knobs; throws `config_error` naming the field.
template <class = void>
inline void validate(const experiment_params& p) {
  constexpr const char* id = "strata.hcrmap.experiment";
  detail::require(p.windows >= 1 && p.windows <= 1024, id, "windows", p.windows, "in [1, 1024]");
  detail::require(p.profile_windows >= 1 && p.profile_windows <= 1024, id, "profile_windows", p.profile_windows, "in [1, 1024]");
  detail::require(p.max_layers >= 1 && p.max_layers <= 1 << 16, id, "max_layers", p.max_layers, "in [1, 65536]");
  detail::require(p.planning_rounds >= 0 && p.planning_rounds <= 64, id, "planning_rounds", p.planning_rounds, "in [0, 64]");
  detail::require(p.context >= 1, id, "context", p.context, ">= 1");
  detail::require(p.batch >= 1 && p.batch <= 1 << 16, id, "batch", p.batch, "in [1, 65536]");
  validate(p.pim, "pim.");
  validate(p.fast_map);
  validate(p.controller);
  validate(p.critical_path);
  validate(p.scale_out);
}

}  // namespace v0
}  // namespace strata
