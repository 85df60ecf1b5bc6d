// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Results of the HCRMap policy comparison (`experiment.hpp`): per policy, the window latencies,
/// energy, EDP, routed time, stage attribution (Fig. 5), streaming bytes, per-chiplet compute
/// (Fig. 8), replicas, edits and constraint violations; per model and mode, every policy.

#include <cstddef>  // std::size_t
#include <string>   // std::string
#include <vector>   // std::vector

#include "strata/chiplet/layer_model.hpp"
#include "strata/core/error.hpp"
#include "strata/hcrmap/policies.hpp"
#include "strata/workload/operators.hpp"

namespace strata {
inline namespace v0 {

/// Residency edits a controller applied while serving (HCRMap's decisions; MoEntwine's
/// NI-Balancer moves, a copy then a retire, count as demotes), and the copies that landed.
struct edit_counts {
  int promotes = 0;   ///< promote(e, t, c): a new replica's copy begun
  int demotes = 0;    ///< demote(e, t, c): a replica's copy to a farther tier begun (the old one retires on landing)
  int evictions = 0;  ///< evict(e, t, c): a replica retired
  int published = 0;  ///< copies that landed and were published while serving
  /// Of the promotes and demotes, the moves: a copy whose source replica (possibly its expert's
  /// last) is retired once the copy is published (§6.3, `controller.hpp`).
  int moves = 0;
  /// Edits applied: promotes + demotes + evictions.
  template <class = void>
  [[nodiscard]] int total() const { return promotes + demotes + evictions; }

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("promotes", s.promotes);
    v("demotes", s.demotes);
    v("evictions", s.evictions);
    v("published", s.published);
    v("moves", s.moves);
  }
};

/// One policy over the windows of one model and mode.
struct policy_result {
  policy_kind policy = policy_kind::single_copy_static;
  std::vector<double> e2e_s;       ///< T_E2E per window (s)
  double latency_s = 0.0;          ///< mean T_E2E (s)
  double energy_j = 0.0;           ///< mean window energy (J)
  double edp = 0.0;                ///< energy × latency (J·s)
  double moe_s = 0.0;              ///< mean routed time, scaled to all MoE layers (s)
  stage_times stages{};            ///< mean Σ_l critical-group stages, scaled (Fig. 5)
  double dram_stream_bytes = 0.0;  ///< mean weight bytes streamed from the DRAM tier, scaled
  double hbm_stream_bytes = 0.0;   ///< mean weight bytes streamed from HBM, scaled
  /// Mean bytes × package links crossed per window, scaled (Σ_u L^phys_u, Eq. 5): the D2D traffic
  /// of Fig. 2(a); `d2d_token_bytes` its dispatch and gather part
  double d2d_bytes = 0.0;
  double d2d_token_bytes = 0.0;    ///< dispatch + gather bytes × links crossed per window, scaled
  std::vector<double> chiplet_busy_s;  ///< compute service per chiplet, evaluated layers (Fig. 8)
  int replicas = 0;                ///< published replicas on the evaluated layers at the end
  int edits = 0;                   ///< residency edits scheduled while serving
  edit_counts controller_edits{};  ///< the same edits by kind, and the copies published
  std::size_t violations = 0;      ///< Eq. 1–4, 21–24 violations found in any window (0 expected)

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("policy", s.policy);
    v("e2e_s", s.e2e_s);
    v("latency_s", s.latency_s);
    v("energy_J", s.energy_j);
    v("edp_J_s", s.edp);
    v("moe_s", s.moe_s);
    v("stages", s.stages);
    v("dram_stream_bytes_B", s.dram_stream_bytes);
    v("hbm_stream_bytes_B", s.hbm_stream_bytes);
    v("d2d_bytes_B", s.d2d_bytes);
    v("d2d_token_bytes_B", s.d2d_token_bytes);
    v("chiplet_busy_s", s.chiplet_busy_s);
    v("replicas", s.replicas);
    v("edits", s.edits);
    v("controller_edits", s.controller_edits);
    v("violations", s.violations);
  }
};

/// Every policy on one model and mode.
struct experiment_result {
  std::string model;
  phase mode = phase::decode;
  int packages = 0;
  int moe_layers = 0;
  std::vector<int> evaluated_layers;  ///< MoE layer indices evaluated
  double non_routed_s = 0.0;          ///< non-routed time + hand-offs per window (s)
  std::string note;                   ///< protocol notes (decode reuse, layer sampling)
  int window_tokens = 0;              ///< tokens per window: 2048 prefill, the batch B decode
  int context = 0;                    ///< decode context per sequence (KV tokens)
  /// A decode window took several tokens of one sequence (`experiment_params::trace_reuse`; the
  /// note says how many): false when every window is B distinct sequences.
  bool sequences_reused = false;
  std::vector<policy_result> policies;

  /// The result of policy `k` (throws `config_error` if it was not run).
  template <class = void>
  [[nodiscard]] const policy_result& of(policy_kind k) const {
    for (const auto& p : policies) {
      if (p.policy == k) return p;
    }
    throw config_error("policy", std::string("[strata.hcrmap.experiment] policy ") + to_string(k) + " was not run");
  }
  /// Latency of `k` normalised to single-copy static (§7.1).
  template <class = void>
  [[nodiscard]] double normalised(policy_kind k) const {
    return of(k).latency_s / of(policy_kind::single_copy_static).latency_s;
  }

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("model", s.model);
    v("mode", s.mode);
    v("packages", s.packages);
    v("moe_layers", s.moe_layers);
    v("evaluated_layers", s.evaluated_layers);
    v("non_routed_s", s.non_routed_s);
    v("note", s.note);
    v("window_tokens", s.window_tokens);
    v("context", s.context);
    v("sequences_reused", s.sequences_reused);
    v("policies", s.policies);
  }
};

}  // namespace v0
}  // namespace strata
