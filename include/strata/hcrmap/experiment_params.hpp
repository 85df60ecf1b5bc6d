// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The knobs of the HCRMap policy comparison (`experiment.hpp`): windows, profile windows,
/// evaluated layers, planning rounds, decode context, and the nested knobs of the fast mapper,
/// the controller, PIM, the critical path and the package plan.

#include "strata/chiplet/critical_path.hpp"
#include "strata/chiplet/scale_out.hpp"
#include "strata/core/error.hpp"
#include "strata/hcrmap/controller_params.hpp"
#include "strata/hcrmap/pim.hpp"
#include "strata/hcrmap/token_mapper.hpp"

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
  /// Decode context of each sequence (KV cache tokens). [Design choice: 2048, the prefill length]
  int context = 2048;
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
    v("fast_map", s.fast_map);
    v("controller", s.controller);
    v("pim", s.pim);
    v("critical_path", s.critical_path);
    v("scale_out", s.scale_out);
  }
};

/// Checks the knobs; throws `config_error` naming the field.
inline void validate(const experiment_params& p) {
  constexpr const char* id = "strata.hcrmap.experiment";
  detail::require(p.windows >= 1 && p.windows <= 1024, id, "windows", p.windows, "in [1, 1024]");
  detail::require(p.profile_windows >= 1 && p.profile_windows <= 1024, id, "profile_windows", p.profile_windows, "in [1, 1024]");
  detail::require(p.max_layers >= 1 && p.max_layers <= 1 << 16, id, "max_layers", p.max_layers, "in [1, 65536]");
  detail::require(p.planning_rounds >= 0 && p.planning_rounds <= 64, id, "planning_rounds", p.planning_rounds, "in [0, 64]");
  detail::require(p.context >= 1, id, "context", p.context, ">= 1");
  validate(p.pim, "pim.");
  validate(p.fast_map);
  validate(p.controller);
  validate(p.critical_path);
  validate(p.scale_out);
}

}  // namespace v0
}  // namespace strata
