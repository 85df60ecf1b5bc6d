// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The knobs of HCRMap's slow residency controller (§6.2–6.6, §7.5): EWMA memory, U_max, the
/// pending-copy region, minimum residency age A_min, hysteresis, candidate counts, Eq. 40's η_u,
/// Eq. 33's μ1 and μ2, decisions per window, the extra-copy cap and the Eq. 36 weights.

#include "strata/core/error.hpp"
#include "strata/hcrmap/placement.hpp"

namespace strata {
inline namespace v0 {

/// Knobs of the controller (defaults: design choices unless cited; none is fitted to a row).
struct controller_params {
  /// EWMA weight α of the previous windows (§6.2). [Design choice: 0.5, a two-window memory]
  double ewma_alpha = 0.5;
  /// U_max: actions other than no-op per decision. [HCRMap §7.5: U_max = 1]
  int u_max = 1;
  /// Copies in flight at once (the pending-migration region). [HCRMap §7.5: bounded by one
  /// expert object]
  int pending_copies = 1;
  /// A_min: windows a replica must be resident before it may be demoted or evicted (§6.6).
  /// [Design choice: 2]
  int min_age = 2;
  /// Hysteresis h: a promote must save at least h·T^MoE_l; a replica is stale below (1 − h)/2 of
  /// its fair token share. [Design choice: 0.01]
  double hysteresis = 0.01;
  /// Experts of each observed layer's busiest chiplet taken as persistent-hot candidates.
  /// [Design choice: 3]
  int hot_per_layer = 3;
  /// Stale replicas considered per decision. [Design choice: 4]
  int stale_candidates = 4;
  /// η_u of Eq. 40. [Design choice: 0.9 — a copy may take the links' idle time but leave 10 %]
  double eta_mig = 0.9;
  /// μ1 of Eq. 33 (exposed migration, as a fraction of T^cf). [Design choice: 1]
  double mu_mig = 1.0;
  /// μ2 of Eq. 33 (churn per edit). [Design choice: 0.01]
  double mu_churn = 0.01;
  /// Decisions per serving window at most (⌊T_window/Δ_w⌋ otherwise). [Design choice: 16]
  int max_decisions = 16;
  /// Extra copies (beyond one per expert) the controller may hold over the observed layers;
  /// < 0: no cap besides B_res. The harness sets (budget_factor − 1)·observed experts.
  long long copy_cap = -1;
  placement_params placement{};  ///< Eq. 36 weights
  friend bool operator==(const controller_params&, const controller_params&) = default;

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("ewma_alpha", s.ewma_alpha);
    v("u_max", s.u_max);
    v("pending_copies", s.pending_copies);
    v("min_age", s.min_age);
    v("hysteresis", s.hysteresis);
    v("hot_per_layer", s.hot_per_layer);
    v("stale_candidates", s.stale_candidates);
    v("eta_mig", s.eta_mig);
    v("mu_mig", s.mu_mig);
    v("mu_churn", s.mu_churn);
    v("max_decisions", s.max_decisions);
    v("copy_cap", s.copy_cap);
    v("placement", s.placement);
  }
};

/// Checks the knobs; throws `config_error` naming the field.
template <class = void>
inline void validate(const controller_params& p) {
  constexpr const char* id = "strata.hcrmap.controller";
  detail::require_in(p.ewma_alpha, 0.0, 1.0, id, "ewma_alpha");
  detail::require(p.u_max >= 0 && p.u_max <= 1024, id, "u_max", p.u_max, "in [0, 1024]");
  detail::require(p.pending_copies >= 0 && p.pending_copies <= 1024, id, "pending_copies", p.pending_copies, "in [0, 1024]");
  detail::require(p.min_age >= 0 && p.min_age <= 1 << 20, id, "min_age", p.min_age, "in [0, 2^20]");
  detail::require_in(p.hysteresis, 0.0, 1.0, id, "hysteresis");
  detail::require(p.hot_per_layer >= 0 && p.hot_per_layer <= 4096, id, "hot_per_layer", p.hot_per_layer, "in [0, 4096]");
  detail::require(p.stale_candidates >= 0 && p.stale_candidates <= 4096, id, "stale_candidates", p.stale_candidates,
                  "in [0, 4096]");
  detail::require_in(p.eta_mig, 0.0, 1.0, id, "eta_mig");
  detail::require_in(p.mu_mig, 0.0, 1e6, id, "mu_mig");
  detail::require_in(p.mu_churn, 0.0, 1e6, id, "mu_churn");
  detail::require(p.max_decisions >= 1 && p.max_decisions <= 1 << 16, id, "max_decisions", p.max_decisions, "in [1, 65536]");
  validate(p.placement);
}

}  // namespace v0
}  // namespace strata
