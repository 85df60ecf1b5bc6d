// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The HCRMap sensitivity studies as data (§7.4): the resident-copy budget sweep and the SRAM/HBM
/// capacity sweep of Fig. 7 (latency per policy, normalised per point to single-copy static), and
/// the per-chiplet compute-pressure grid of Fig. 8. Each point is one `run_experiment` with the
/// protocol of `experiment.hpp` unchanged — the same trace, split, windows and policies — and only
/// the swept quantity changed, for every policy alike.
///
/// - Budget: B_res = factor · Σ S^wt (Eq. 29) for every stage's residency, with the package plan
///   sized for the same number of copies (`scale_out_params::expert_copies` = factor), so that a
///   larger budget is room the policies can fill. The paper's default is Table 1's 1.3×.
/// - Capacity: the SRAM capacity per chiplet group, or the HBM capacity, scaled by a factor of
///   Table 1's (the banks' bandwidths unchanged); the package plan is redone, so a smaller tier may
///   need more packages.
/// - Pressure grid (Fig. 8): each chiplet's compute service time (Σ N_r·Ops / (N_core·Π_core·η)
///   over its replicas, Eq. 13 at chiplet level) per serving window, summed over the evaluated
///   layers and every stage, laid out on the `mesh_x × mesh_y` mesh (chiplet id = y·mesh_x + x),
///   and its pressure busy_c / mean_c busy. The grid's total is the routed work the policy served on
///   cores; for every policy without PIM offload it is the same total.
///
/// Work: a sweep's expert routes (points × `experiment_routes`) are checked against
/// `hcrmap_limits().routes` before its first point (`config_error` naming `factors`).

#include <algorithm>  // std::max, std::find
#include <array>      // std::array
#include <cstddef>    // std::size_t
#include <cstdint>    // std::int64_t
#include <string>     // std::string
#include <utility>    // std::pair
#include <vector>     // std::vector

#include "strata/chiplet/substrate.hpp"
#include "strata/core/error.hpp"
#include "strata/hcrmap/experiment.hpp"
#include "strata/hcrmap/experiment_params.hpp"
#include "strata/hcrmap/experiment_result.hpp"
#include "strata/hcrmap/policies.hpp"
#include "strata/hcrmap/scorer.hpp"
#include "strata/workload/trace.hpp"

namespace strata {
inline namespace v0 {

/// The swept quantity of a Fig. 7 point.
enum class sweep_kind { budget = 0, sram_capacity = 1, hbm_capacity = 2 };
constexpr auto enum_names(sweep_kind) {
  return std::array{std::pair{sweep_kind::budget, "budget"}, std::pair{sweep_kind::sram_capacity, "sram_capacity"},
                    std::pair{sweep_kind::hbm_capacity, "hbm_capacity"}};
}
template <class = void>
inline const char* to_string(sweep_kind k) {
  for (const auto& [v, n] : enum_names(sweep_kind{})) {
    if (v == k) return n;
  }
  return "?";
}

/// One policy at one point of a Fig. 7 sweep.
struct sweep_row {
  std::string model;
  phase mode = phase::decode;
  sweep_kind kind = sweep_kind::budget;
  double factor = 1.0;  ///< budget factor, or capacity scale of Table 1's tier
  policy_kind policy = policy_kind::single_copy_static;
  double latency_s = 0.0;     ///< mean T_E2E of the point
  double normalised = 1.0;    ///< latency / single-copy static's at the same point
  int packages = 0;           ///< packages of the point's plan
  int replicas = 0;           ///< published replicas on the evaluated layers at the end

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("model", s.model);
    v("mode", s.mode);
    v("kind", s.kind);
    v("factor", s.factor);
    v("policy", s.policy);
    v("latency_s", s.latency_s);
    v("normalised", s.normalised);
    v("packages", s.packages);
    v("replicas", s.replicas);
  }
};

namespace detail {
template <class = void>
inline void add_sweep_rows(const experiment_result& r, sweep_kind kind, double factor, std::vector<sweep_row>& out) {
  for (const auto& p : r.policies) {
    sweep_row row;
    row.model = r.model;
    row.mode = r.mode;
    row.kind = kind;
    row.factor = factor;
    row.policy = p.policy;
    row.latency_s = p.latency_s;
    row.normalised = r.normalised(p.policy);
    row.packages = r.packages;
    row.replicas = p.replicas;
    out.push_back(row);
  }
}
template <class = void>
inline void require_factors(const std::vector<double>& f, double lo, double hi) {
  detail::require(!f.empty(), "strata.hcrmap.sweeps", "factors", f.size(), "at least one point");
  for (double x : f) detail::require_in(x, lo, hi, "strata.hcrmap.sweeps", "factors");
}
/// The expert routes of a sweep of `points` points (single-copy static added when missing), at
/// most `hcrmap_limits().routes`; `config_error` naming `factors` otherwise.
template <class = void>
inline void require_sweep_routes(std::size_t points, const model& m, phase mode, const std::vector<policy_kind>& policies,
                                 const experiment_params& xp) {
  const bool has_static = std::find(policies.begin(), policies.end(), policy_kind::single_copy_static) != policies.end();
  require_routes(static_cast<std::int64_t>(points), m, mode, static_cast<std::int64_t>(policies.size()) + (has_static ? 0 : 1),
                 xp, "strata.hcrmap.sweeps", "factors");
}
}  // namespace detail

/// One point of the Fig. 7 space: the resident-copy budget factor (B_res = factor · Σ S^wt,
/// Eq. 29, with the package plan sized for as many copies; Table 1: 1.3) and the scales of the
/// SRAM and HBM capacities of the substrate (1: Table 1's).
struct residency_point {
  double budget_factor = 1.3;
  double sram_scale = 1.0;
  double hbm_scale = 1.0;
};

/// The experiment at point `x` (file comment): `run_experiment` on `sp` with the tiers' capacities
/// scaled and the budget set, for every policy of `policies` alike. Throws `config_error` naming
/// `budget_factor` (outside [1, 4]), `sram_scale` or `hbm_scale` (outside [1/16, 16]).
template <class = void>
inline experiment_result run_residency_point(const substrate_params& sp, const model& m, const routing_trace& trace, phase mode,
                                             const residency_point& x, const std::vector<policy_kind>& policies,
                                             experiment_params xp = {}, const action_scorer& value = {},
                                             const std::string& trace_note = {}) {
  constexpr const char* id = "strata.hcrmap.sweeps";
  detail::require_in(x.budget_factor, 1.0, 4.0, id, "budget_factor");
  detail::require_in(x.sram_scale, 1.0 / 16.0, 16.0, id, "sram_scale");
  detail::require_in(x.hbm_scale, 1.0 / 16.0, 16.0, id, "hbm_scale");
  substrate_params p = sp;
  p.sram.capacity = p.sram.capacity * x.sram_scale;
  p.hbm.capacity = p.hbm.capacity * x.hbm_scale;
  xp.scale_out.residency.budget_factor = x.budget_factor;
  xp.scale_out.expert_copies = x.budget_factor;
  return run_experiment(substrate(p), m, trace, mode, policies, xp, trace_note, value);
}

/// Fig. 7, resident-copy budget: one point per factor of `budget_factors` (each in [1, 4]), every
/// policy of `policies` (file comment). `value` as `run_experiment`'s.
template <class = void>
inline std::vector<sweep_row> budget_sweep(const substrate_params& sp, const model& m, const routing_trace& trace, phase mode,
                                           const std::vector<double>& budget_factors, const std::vector<policy_kind>& policies,
                                           const experiment_params& xp = {}, const action_scorer& value = {}) {
  detail::require_factors(budget_factors, 1.0, 4.0);
  detail::require_sweep_routes(budget_factors.size(), m, mode, policies, xp);
  std::vector<sweep_row> out;
  for (double f : budget_factors) {
    const residency_point x{.budget_factor = f, .sram_scale = 1.0, .hbm_scale = 1.0};
    detail::add_sweep_rows(run_residency_point(sp, m, trace, mode, x, policies, xp, value), sweep_kind::budget, f, out);
  }
  return out;
}

/// Fig. 7, tier capacity: the SRAM (`tier` = sram) or HBM (`tier` = hbm) capacity of `sp` scaled by
/// each factor of `factors` (each in [1/16, 16]), every policy of `policies` (file comment); the
/// budget factor stays `xp`'s residency one (the plan sized for as many copies).
template <class = void>
inline std::vector<sweep_row> capacity_sweep(const substrate_params& sp, const model& m, const routing_trace& trace, phase mode,
                                             tier_kind tier, const std::vector<double>& factors,
                                             const std::vector<policy_kind>& policies, const experiment_params& xp = {},
                                             const action_scorer& value = {}) {
  detail::require(tier == tier_kind::sram || tier == tier_kind::hbm, "strata.hcrmap.sweeps", "tier", static_cast<int>(tier),
                  "sram or hbm");
  detail::require_factors(factors, 1.0 / 16.0, 16.0);
  detail::require_sweep_routes(factors.size(), m, mode, policies, xp);
  std::vector<sweep_row> out;
  for (double f : factors) {
    residency_point x{.budget_factor = xp.scale_out.residency.budget_factor, .sram_scale = 1.0, .hbm_scale = 1.0};
    (tier == tier_kind::sram ? x.sram_scale : x.hbm_scale) = f;
    const auto r = run_residency_point(sp, m, trace, mode, x, policies, xp, value);
    detail::add_sweep_rows(r, tier == tier_kind::sram ? sweep_kind::sram_capacity : sweep_kind::hbm_capacity, f, out);
  }
  return out;
}

/// Fig. 8: one policy's per-chiplet compute pressure on the mesh (file comment).
struct pressure_grid {
  std::string model;
  phase mode = phase::decode;
  policy_kind policy = policy_kind::single_copy_static;
  int mesh_x = 0, mesh_y = 0;
  std::vector<double> busy_s;    ///< per chiplet (y·mesh_x + x), compute service per window (s)
  std::vector<double> pressure;  ///< busy_c / mean busy (Σ = chiplets; all 0 if nothing was computed)
  double total_s = 0.0;          ///< Σ busy_s
  double peak = 0.0;             ///< max pressure (1 = perfectly balanced)

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("model", s.model);
    v("mode", s.mode);
    v("policy", s.policy);
    v("mesh_x", s.mesh_x);
    v("mesh_y", s.mesh_y);
    v("busy_s", s.busy_s);
    v("pressure", s.pressure);
    v("total_s", s.total_s);
    v("peak", s.peak);
  }
};

/// The grid of policy `k` in `r` (run on a substrate of `sp`'s mesh); throws `config_error` if `k`
/// was not run or the mesh does not match the result's chiplets.
template <class = void>
inline pressure_grid compute_pressure_grid(const experiment_result& r, policy_kind k, const substrate_params& sp = {}) {
  const auto& p = r.of(k);
  const auto C = static_cast<std::size_t>(sp.mesh_x) * static_cast<std::size_t>(sp.mesh_y);
  detail::require(p.chiplet_busy_s.size() == C, "strata.hcrmap.sweeps", "mesh", p.chiplet_busy_s.size(),
                  "the result's chiplet count (mesh_x * mesh_y)");
  pressure_grid g;
  g.model = r.model;
  g.mode = r.mode;
  g.policy = k;
  g.mesh_x = sp.mesh_x;
  g.mesh_y = sp.mesh_y;
  const double windows = static_cast<double>(std::max<std::size_t>(p.e2e_s.size(), 1));
  for (double b : p.chiplet_busy_s) {
    g.busy_s.push_back(b / windows);
    g.total_s += b / windows;
  }
  const double mean = g.total_s / static_cast<double>(C);
  for (double b : g.busy_s) {
    g.pressure.push_back(mean > 0.0 ? b / mean : 0.0);
    g.peak = std::max(g.peak, g.pressure.back());
  }
  return g;
}

}  // namespace v0
}  // namespace strata
