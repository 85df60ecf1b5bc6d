// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The expert-management policies HCRMap is compared with, and HCRMap's own initial layout, on
/// the same substrate, the same residency type and the same resident-copy budget (HCRMap §2.3,
/// §7.1). A policy is (1) an initial layout built from a demand profile measured on a split of the
/// trace that is never evaluated, (2) a token routing per layer and (3) what it changes between
/// windows; `experiment.hpp` runs them. What each keeps from its paper and what is simplified:
///
/// - **Single-copy static** (`policy_kind::single_copy_static`, the normaliser of §7.1):
///   `chiplet/residency.hpp`'s `single_copy_static` — one replica per expert, experts dealt
///   round-robin over the chiplets, nearest tier with room. Popularity-agnostic; nothing changes.
/// - **Fixed replication** (`fixed_replication`, "static replicas with simple routing", §7.1):
///   the static layout plus extra copies of the most demanded experts of the profile, hottest
///   first, one extra copy per expert per pass until the matched resident-copy capacity is used;
///   a copy goes to the chiplet holding the fewest replicas of its layer (ties: the farthest from
///   the expert's copies, then the lowest index; never a chiplet with a copy of the expert),
///   nearest tier with room — replicas spread evenly over the mesh by count, blind to where the
///   tokens come from. Simple routing: each group to the replica nearest its source. Never
///   changes. Simplified: a real deployment would pick copies from a longer profile. (A fixed
///   offset of k·|C|/R^max chiplets from the first copy, tried first, put half the copies of a
///   layer with fewer experts than chiplets onto chiplets serving other experts of that layer
///   while others had none: Mixtral-8x7B prefill 1.22 of static, against 0.85 now.)
/// - **Hydra** [6] (`hydra`): keeps popularity prediction and mapping popular experts close to
///   their dominant token source, one copy per expert — experts in decreasing predicted
///   popularity (the profile) each placed on the chiplet that sends it most tokens, nearest tier
///   with room. Simplified: the prediction is the profile itself (a perfect predictor of the
///   profile split); no replication, as in the paper's description of Hydra.
/// - **MoEntwine** [17] (`moentwine`): keeps ER-mapping's balancing of communication and load
///   (experts of each layer assigned longest-processing-time first to the chiplet with the least
///   expected tokens), shadow replicas (extra copies of the hottest experts on the least loaded
///   chiplets, within the matched budget) with load-balancing routing (fewest tokens so far),
///   and NI-Balancer's non-invasive migration: between windows at most one expert is moved from
///   the most loaded chiplet to the least loaded one, only over a path whose links stay within
///   the cold-link threshold (Eq. 40 with η = 0.5), the copy charged as migration traffic.
///   Simplified: the wafer-scale topology is the package mesh; memory tiers are not considered
///   beyond "nearest tier with room" (the paper's cost model has no tier or bank pressure).
/// - **PIMoE** [18] (`pimoe`): keeps throttle-aware offloading of memory-bound cold-expert work
///   to PIM near the memory while hot work stays on the cores: hot experts (profile order) take
///   the near tiers, one copy each; a group of an expert resident in a tier with PIM units (HBM;
///   DDR5 DRAM only when given a source, `pim.hpp`) runs on the PIM unit of its bank when the PIM
///   estimate (dispatch + max(PIM compute, internal stream) + gather) beats the core estimate, and
///   the PIM unit's queue stays below the throttle threshold (`pim_params`); a bank serving a PIM
///   and a core stream shares its bandwidth between them. Simplified: PIM units are per bank span
///   with the cited throughput; their power throttling is the queue threshold, not a thermal model.
/// - **HCRMap** (`hcrmap`): initial layout by Eq. 35–36 for every expert's first copy, in
///   decreasing profile demand over all layers (so hot experts of every layer compete for the near
///   tiers and each layer's streams spread over banks), then the slow controller's promotions on
///   the profile windows (installed before serving, as every policy's layout, so planned without
///   hysteresis: installing moves no weights while serving), the fast token
///   mapper (Algorithm 2), and one controller decision per decision window while serving.
///   `hcrmap_frozen` is HCRMap with the layout it installed before serving kept for good (the
///   same layout and mapper, no serving-time decision): what the controller adds is its gap.
///
/// Every policy: Eq. 21–24 hold in every window (the residency refuses what breaks them); extra
/// copies only on the evaluated layers, at most (budget_factor − 1)·(their experts) — the same cap
/// for every replicating policy.

#include <algorithm>  // std::sort, std::max, std::min
#include <array>      // std::array
#include <cstddef>    // std::size_t
#include <string>     // std::string
#include <utility>    // std::pair
#include <vector>     // std::vector

#include "strata/chiplet/residency.hpp"
#include "strata/chiplet/substrate.hpp"
#include "strata/core/error.hpp"
#include "strata/hcrmap/placement.hpp"

namespace strata {
inline namespace v0 {

/// The policies and ablations of §7.
enum class policy_kind {
  single_copy_static,
  fixed_replication,
  hydra,
  moentwine,
  pimoe,
  hcrmap,
  hcrmap_no_link,       ///< ablation: ω_p = 0, α_p = 0 (no link pressure)
  hcrmap_no_bank,       ///< ablation: ω_b = 0, χ_p = 0 (no bank pressure)
  hcrmap_no_compute,    ///< ablation: ω_q = 0, β_p = 0 (no compute-load pressure)
  hcrmap_no_migration,  ///< ablation: no migration exposure (score and Eq. 40 mask off)
  hcrmap_no_fast_map,   ///< ablation: nearest-replica routing instead of Algorithm 2
  hcrmap_no_hbm,        ///< ablation: HBM is no residency tier (only a forced fallback)
  hcrmap_greedy,        ///< ablation: the greedy one-step scorer instead of the learned value (§6.4)
  hcrmap_frozen         ///< ablation: HCRMap's installed layout frozen (no decision while serving)
};
constexpr auto enum_names(policy_kind) {
  return std::array{std::pair{policy_kind::single_copy_static, "static"}, std::pair{policy_kind::fixed_replication, "fixed"},
                    std::pair{policy_kind::hydra, "hydra"}, std::pair{policy_kind::moentwine, "moentwine"},
                    std::pair{policy_kind::pimoe, "pimoe"}, std::pair{policy_kind::hcrmap, "hcrmap"},
                    std::pair{policy_kind::hcrmap_no_link, "hcrmap_no_link"},
                    std::pair{policy_kind::hcrmap_no_bank, "hcrmap_no_bank"},
                    std::pair{policy_kind::hcrmap_no_compute, "hcrmap_no_compute"},
                    std::pair{policy_kind::hcrmap_no_migration, "hcrmap_no_migration"},
                    std::pair{policy_kind::hcrmap_no_fast_map, "hcrmap_no_fast_map"},
                    std::pair{policy_kind::hcrmap_no_hbm, "hcrmap_no_hbm"},
                    std::pair{policy_kind::hcrmap_greedy, "hcrmap_greedy"},
                    std::pair{policy_kind::hcrmap_frozen, "hcrmap_frozen"}};
}
/// Name of a policy (as in `enum_names`).
template <class = void>
inline const char* to_string(policy_kind k) {
  for (const auto& [v, n] : enum_names(policy_kind{})) {
    if (v == k) return n;
  }
  return "?";
}
/// True for HCRMap and its ablations.
constexpr bool is_hcrmap(policy_kind k) { return k >= policy_kind::hcrmap; }

/// A demand profile: tokens per (layer, expert) and per (layer, expert, source chiplet), from
/// windows of a trace split that is not evaluated.
struct expert_profile {
  int layers = 0, experts = 0, chiplets = 0;
  std::vector<double> demand;  ///< [l·E + e]
  std::vector<double> source;  ///< [(l·E + e)·C + c]

  expert_profile() = default;
  expert_profile(int l, int e, int c)
      : layers(l), experts(e), chiplets(c), demand(static_cast<std::size_t>(l) * e, 0.0),
        source(static_cast<std::size_t>(l) * e * c, 0.0) {}
  /// Adds a window's groups (layer field = the residency's layer index).
  template <class = void>
  void add(const std::vector<token_group>& groups) {
    for (const auto& g : groups) {
      detail::require(g.layer >= 0 && g.layer < layers && g.expert >= 0 && g.expert < experts && g.source >= 0 &&
                          g.source < chiplets,
                      "strata.hcrmap.policies", "profile group", g.expert, "inside the profile's layers, experts, chiplets");
      const auto k = static_cast<std::size_t>(g.layer) * static_cast<std::size_t>(experts) + static_cast<std::size_t>(g.expert);
      demand[k] += g.tokens;
      source[k * static_cast<std::size_t>(chiplets) + static_cast<std::size_t>(g.source)] += g.tokens;
    }
  }
  template <class = void>
  [[nodiscard]] double at(int l, int e) const { return demand[static_cast<std::size_t>(l) * static_cast<std::size_t>(experts) + static_cast<std::size_t>(e)]; }
  /// (layer, expert) pairs by decreasing demand (ties by layer, then expert).
  template <class = void>
  [[nodiscard]] std::vector<std::pair<int, int>> by_demand() const {
    std::vector<std::pair<int, int>> out;
    for (int l = 0; l < layers; ++l) {
      for (int e = 0; e < experts; ++e) out.emplace_back(l, e);
    }
    std::stable_sort(out.begin(), out.end(), [&](const auto& a, const auto& b) { return at(a.first, a.second) > at(b.first, b.second); });
    return out;
  }
};

namespace detail {
/// Places a replica of (l, e) executing on chiplet c in the first tier of `order` with room
/// (`residency::nearest_room`: SRAM, every bank of c's group; HBM/DRAM, every bank of one home,
/// nearest first). Returns the entry or −1.
template <class = void>
inline int place_nearest(residency& r, int l, int e, int c,
                         const std::array<tier_kind, 3>& order = {tier_kind::sram, tier_kind::hbm, tier_kind::dram},
                         int tiers = 3, int rotate = 0) {
  for (int i = 0; i < tiers; ++i) {
    if (const auto p = r.nearest_room(l, e, c, order[static_cast<std::size_t>(i)], rotate)) {
      return r.place(l, e, c, p->bank, p->span);
    }
  }
  return -1;
}
template <class = void>
inline void no_fit(int l, int e) {
  throw config_error("placement", "[strata.hcrmap.policies] expert (" + std::to_string(l) + ", " + std::to_string(e) +
                                      ") fits in no tier: the model exceeds the package's memory");
}
/// Extra copies allowed on `layers` (the evaluated layers): (budget_factor − 1)·|layers|·E.
template <class = void>
inline long long copy_cap(const residency& r, const std::vector<int>& layers) {
  return static_cast<long long>((r.params().budget_factor - 1.0) * double(layers.size()) * r.experts() + 1e-9);
}
}  // namespace detail

/// Fixed replication (file comment): static layout, then extra copies of the hottest profiled
/// experts of `layers` round by round, at most `detail::copy_cap`.
template <class = void>
inline residency fixed_replication_layout(const substrate& s, int layers, int experts, data_size<> wt, const residency_params& rp,
                                          const expert_profile& prof, const std::vector<int>& replicate) {
  auto r = single_copy_static(s, layers, experts, wt, rp);
  long long left = detail::copy_cap(r, replicate);
  std::vector<std::pair<int, int>> hot;
  for (const auto& [l, e] : prof.by_demand()) {
    if (std::find(replicate.begin(), replicate.end(), l) != replicate.end() && prof.at(l, e) > 0.0) hot.emplace_back(l, e);
  }
  const int C = s.chiplets(), rmax = rp.max_replicas_per_expert;
  // Replicas per (layer, chiplet), so that a copy goes where the layer has the fewest.
  std::vector<int> count(static_cast<std::size_t>(layers) * static_cast<std::size_t>(C), 0);
  for (const auto& de : r.entries()) ++count[static_cast<std::size_t>(de.layer) * static_cast<std::size_t>(C) + static_cast<std::size_t>(de.chiplet)];
  std::vector<int> order(static_cast<std::size_t>(C));
  for (int pass = 1; pass < rmax && left > 0; ++pass) {
    for (const auto& [l, e] : hot) {
      if (left <= 0) break;
      // Chiplets by (replicas of layer l, −hops to the expert's nearest copy, index); one that
      // holds a copy of the expert already is skipped.
      const auto copies = r.of(l, e);
      const std::size_t row = static_cast<std::size_t>(l) * static_cast<std::size_t>(C);
      std::vector<int> near(static_cast<std::size_t>(C), -1);  // hops to the expert's nearest copy
      for (int c = 0; c < C; ++c) {
        for (int x : copies) {
          const int d = s.hops(c, r.entries()[static_cast<std::size_t>(x)].chiplet);
          int& h = near[static_cast<std::size_t>(c)];
          h = h < 0 ? d : std::min(h, d);
        }
      }
      for (int c = 0; c < C; ++c) order[static_cast<std::size_t>(c)] = c;
      std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        const auto ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b);
        return count[row + ua] != count[row + ub] ? count[row + ua] < count[row + ub] : near[ua] > near[ub];
      });
      for (int c : order) {
        if (near[static_cast<std::size_t>(c)] == 0) continue;
        if (detail::place_nearest(r, l, e, c) >= 0) {
          ++count[row + static_cast<std::size_t>(c)];
          --left;
          break;
        }
      }
    }
  }
  return r;
}

/// Hydra (file comment): one copy each, popular experts on their dominant source chiplet.
template <class = void>
inline residency hydra_layout(const substrate& s, int layers, int experts, data_size<> wt, const residency_params& rp,
                              const expert_profile& prof) {
  residency r(s, layers, experts, wt, rp);
  const int C = s.chiplets();
  int rr = 0;
  for (const auto& [l, e] : prof.by_demand()) {
    int c = -1;
    double best = 0.0;
    for (int k = 0; k < C; ++k) {
      const double v = prof.source[(static_cast<std::size_t>(l) * static_cast<std::size_t>(experts) + static_cast<std::size_t>(e)) * static_cast<std::size_t>(C) + static_cast<std::size_t>(k)];
      if (v > best) {
        best = v;
        c = k;
      }
    }
    if (c < 0) c = rr++ % C;  // never routed in the profile: spread
    if (detail::place_nearest(r, l, e, c) < 0) detail::no_fit(l, e);
  }
  return r;
}

/// MoEntwine (file comment): per layer, LPT assignment of experts to chiplets by expected tokens,
/// nearest tier with room; shadow replicas of the hottest experts of `replicate` on the least
/// loaded chiplets.
template <class = void>
inline residency moentwine_layout(const substrate& s, int layers, int experts, data_size<> wt, const residency_params& rp,
                                  const expert_profile& prof, const std::vector<int>& replicate) {
  residency r(s, layers, experts, wt, rp);
  const int C = s.chiplets();
  std::vector<std::vector<double>> load(static_cast<std::size_t>(layers), std::vector<double>(static_cast<std::size_t>(C), 0.0));
  const auto order = prof.by_demand();
  auto least = [&](int l, int avoid_expert) {
    int best = -1;
    for (int c = 0; c < C; ++c) {
      bool has = false;
      if (avoid_expert >= 0) {
        for (int x : r.of(l, avoid_expert)) has |= r.entries()[static_cast<std::size_t>(x)].chiplet == c;
      }
      if (has) continue;
      if (best < 0 || load[static_cast<std::size_t>(l)][static_cast<std::size_t>(c)] < load[static_cast<std::size_t>(l)][static_cast<std::size_t>(best)]) best = c;
    }
    return best;
  };
  for (const auto& [l, e] : order) {
    const int c = least(l, -1);
    if (detail::place_nearest(r, l, e, c, {tier_kind::sram, tier_kind::hbm, tier_kind::dram}, 3, c) < 0) detail::no_fit(l, e);
    load[static_cast<std::size_t>(l)][static_cast<std::size_t>(c)] += std::max(prof.at(l, e), 1e-9);
  }
  long long left = detail::copy_cap(r, replicate);
  for (int pass = 1; pass < rp.max_replicas_per_expert && left > 0; ++pass) {
    for (const auto& [l, e] : order) {
      if (left <= 0) break;
      if (std::find(replicate.begin(), replicate.end(), l) == replicate.end() || prof.at(l, e) <= 0.0) continue;
      const int c = least(l, e);
      if (c < 0) continue;
      const double n = double(r.of(l, e).size());
      if (detail::place_nearest(r, l, e, c, {tier_kind::sram, tier_kind::hbm, tier_kind::dram}, 3, c) >= 0) {
        // The shadow takes its share of the expert's tokens off the other copies' chiplets.
        for (int x : r.of(l, e)) {
          const int cx = r.entries()[static_cast<std::size_t>(x)].chiplet;
          const double share = prof.at(l, e) / (n + 1.0);
          load[static_cast<std::size_t>(l)][static_cast<std::size_t>(cx)] += cx == c ? share : -share / n;
        }
        --left;
      }
    }
  }
  return r;
}

/// PIMoE (file comment): hot experts first into the near tiers, one copy each, round-robin over
/// the chiplets within each layer in decreasing demand.
template <class = void>
inline residency pimoe_layout(const substrate& s, int layers, int experts, data_size<> wt, const residency_params& rp,
                              const expert_profile& prof) {
  residency r(s, layers, experts, wt, rp);
  std::vector<int> next(static_cast<std::size_t>(layers), 0);
  for (const auto& [l, e] : prof.by_demand()) {
    const int c = (next[static_cast<std::size_t>(l)]++ + l) % s.chiplets();
    if (detail::place_nearest(r, l, e, c, {tier_kind::sram, tier_kind::hbm, tier_kind::dram}, 3, c) < 0) detail::no_fit(l, e);
  }
  return r;
}

/// HCRMap's first copies (file comment): every expert, in decreasing profile demand over all
/// layers, at the Eq. 35 best location of Ω under the layout's running per-layer pressure: bank
/// pressure from the streams already placed in the same layer (an expert streams its weights once
/// per layer whenever a token is routed to it, Eq. 9; every expert is counted, since one the
/// profile saw no token for is still routed tokens in serving windows — counting only profiled
/// experts stacked DeepSeek-V2's unprofiled ones on one DRAM home, 38 streams against 34 on the
/// others), chiplet queue from the profiled work already placed in the layer, both over
/// `window_s`; tier scarcity from the residency. `allowed` limits the tiers
/// (the no-HBM ablation); an expert that fits none of them falls back to any tier.
template <class = void>
inline residency hcrmap_layout(const substrate& s, int layers, int experts, data_size<> wt, const residency_params& rp,
                               const expert_profile& prof, double flops_per_token, double chiplet_flops, double window_s,
                               const placement_params& pp = {}, const std::array<bool, 3>& allowed = {true, true, true}) {
  residency r(s, layers, experts, wt, rp);
  const int C = s.chiplets();
  const std::size_t nb = s.banks().size();
  std::vector<std::vector<double>> bank(static_cast<std::size_t>(layers), std::vector<double>(nb, 0.0));
  std::vector<std::vector<double>> queue(static_cast<std::size_t>(layers), std::vector<double>(static_cast<std::size_t>(C), 0.0));
  placement_inputs in;
  in.stream_bytes = wt.si();
  in.window_s = window_s;
  const auto hops = chiplet_hops(s);
  validate(pp);
  // Ω's locations, probed once and again only where a placement took room.
  placement_rooms rooms;
  rooms.build(s, r);
  std::vector<place_candidate> omega;
  // Per tier: Σ usable (fixed), Σ used (taken again after a placement in the tier).
  std::array<double, 3> tier_cap{}, tier_used{};
  std::array<bool, 3> tier_dirty{true, true, true};
  for (tier_kind t : {tier_kind::sram, tier_kind::hbm, tier_kind::dram}) {
    for (int b : s.banks_of(t)) tier_cap[static_cast<std::size_t>(t)] += r.usable(b);
  }
  for (const auto& [l, e] : prof.by_demand()) {
    const auto k = static_cast<std::size_t>(l) * static_cast<std::size_t>(experts) + static_cast<std::size_t>(e);
    in.source_tokens.assign(prof.source.begin() + static_cast<std::ptrdiff_t>(k * static_cast<std::size_t>(C)),
                            prof.source.begin() + static_cast<std::ptrdiff_t>((k + 1) * static_cast<std::size_t>(C)));
    fill_source_terms(s, in, hops);  // D_src per chiplet once, not per candidate of Ω
    // The layer's pressures lent to `in` for the search (not copied), given back after it.
    in.chiplet_queue.swap(queue[static_cast<std::size_t>(l)]);
    in.bank_pressure.swap(bank[static_cast<std::size_t>(l)]);
    for (tier_kind t : {tier_kind::sram, tier_kind::hbm, tier_kind::dram}) {
      const auto ti = static_cast<std::size_t>(t);
      if (tier_dirty[ti]) {  // Σ used in bank order, as ever; only a placement in the tier changes it
        double used = 0.0;
        for (int b : s.banks_of(t)) used += r.used(b);
        tier_used[ti] = used;
        tier_dirty[ti] = false;
      }
      in.tier_scarcity[ti] = tier_cap[ti] > 0.0 ? tier_used[ti] / tier_cap[ti] : 1.0;
    }
    in.replica_chiplets.clear();
    rooms.candidates(r, l, e, allowed, -1, omega);  // `feasible_candidates(s, r, l, e, allowed)`
    if (omega.empty()) rooms.candidates(r, l, e, {true, true, true}, -1, omega);
    const auto best = detail::best_placement_checked(s, in, omega, pp);
    in.chiplet_queue.swap(queue[static_cast<std::size_t>(l)]);
    in.bank_pressure.swap(bank[static_cast<std::size_t>(l)]);
    if (!best) detail::no_fit(l, e);
    r.place(l, e, best->chiplet, best->bank, best->span);
    tier_dirty[static_cast<std::size_t>(s.banks()[static_cast<std::size_t>(best->bank)].tier)] = true;
    rooms.update(s, r, best->bank, best->span);
    for (int j = 0; j < best->span; ++j) {
      const auto b = static_cast<std::size_t>(best->bank) + static_cast<std::size_t>(j);
      bank[static_cast<std::size_t>(l)][b] += wt.si() / best->span / (s.banks()[b].bandwidth.si() * window_s);
    }
    queue[static_cast<std::size_t>(l)][static_cast<std::size_t>(best->chiplet)] += prof.at(l, e) * flops_per_token / chiplet_flops / window_s;
  }
  return r;
}

}  // namespace v0
}  // namespace strata
