// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Capacity of the HCRMap package (§4.3 Eq. 1, Table 1): where a window's non-expert data lives
/// and whether everything fits — expert replicas, non-routed weights, the KV cache, the embedding
/// and LM head, and the activation workspace, each against the tier that holds it.
///
/// Tier capacities are the sums over the substrate's banks (`tier_capacity`), so they follow the
/// substrate's geometry whatever it is (a pool behind the IO chiplets, or chiplet-local HBM).
///
/// Placement rule (first fit by data class, in this order, each class whole in one tier):
///   activations      SRAM → HBM → DRAM   (the near tier; spills when the window is large)
///   non-routed weights  HBM → DRAM       (read every step)
///   KV cache         HBM → DRAM by default; `residency_params::kv` (`kv_placement`): `dram`
///                    DRAM → HBM; `by_pressure` the tier whose used / capacity is lower after
///                    placing it (ties HBM), the other as fallback
///   embedding / LM head DRAM → HBM       (read once per step, a few rows)
/// into each tier's free space: capacity − expert bytes already resident there − the residency's
/// per-bank reserves A (SRAM) and M (every bank) of Eq. 1. A class that fits no tier makes the
/// point infeasible (`package_fit::feasible == false`, `reason` naming the class, its bytes and
/// every tier's free space); it is then charged to its first-choice tier so the window is still
/// timed. The roofline of the non-routed work reads each class from the tier it was placed in.
///
/// For planning (`scale_out.hpp`) the non-expert data is placed first on an empty package and the
/// experts get what remains: `expert_room` counts the expert copies a package can hold the way
/// `single_copy_static` places them (striped over every bank of a home, whole experts per home).

#include <algorithm>  // std::min
#include <array>      // std::array
#include <cmath>      // std::floor
#include <cstddef>    // std::size_t
#include <string>     // std::string
#include <vector>     // std::vector

#include "strata/chiplet/residency.hpp"
#include "strata/chiplet/substrate.hpp"
#include "strata/core/error.hpp"
#include "strata/workload/roofline.hpp"

namespace strata {
inline namespace v0 {

/// Tier of each non-expert data class on the package.
struct package_placement {
  tier_kind weights = tier_kind::hbm;      ///< non-routed weights (attention, router, shared, dense)
  tier_kind kv = tier_kind::hbm;           ///< KV cache
  tier_kind non_nmp = tier_kind::dram;     ///< embedding, LM head, norm scales
  tier_kind activations = tier_kind::sram; ///< activation workspace

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("weights", s.weights);
    v("kv", s.kv);
    v("non_nmp", s.non_nmp);
    v("activations", s.activations);
  }
  friend bool operator==(const package_placement&, const package_placement&) = default;
};

/// A package's capacity verdict: placement of the non-expert data and every tier's contents.
struct package_fit {
  bool feasible = true;
  std::string reason;
  package_placement placement{};
  std::vector<tier_usage> tiers;  ///< sram, hbm, dram: capacity and bytes placed (experts included)

  /// Bytes of non-expert data placed in tier `t`.
  template <class = void>
  [[nodiscard]] data_size<> other(tier_kind t) const {
    const auto& p = tiers[static_cast<std::size_t>(t)].placed;
    return p.weights + p.kv + p.non_nmp + p.activations;
  }
  /// `base` with the non-expert data of every tier reserved from the experts' banks (at most
  /// the tier's capacity: an infeasible fit overfills a tier).
  template <class = void>
  [[nodiscard]] residency_params expert_params(residency_params base = {}) const {
    const auto cap = [&](tier_kind t) {
      const auto& u = tiers[static_cast<std::size_t>(t)];
      return other(t) < u.capacity ? other(t) : u.capacity;
    };
    base.sram_other = cap(tier_kind::sram);
    base.hbm_other = cap(tier_kind::hbm);
    base.dram_other = cap(tier_kind::dram);
    return base;
  }

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("feasible", s.feasible);
    v("reason", s.reason);
    v("placement", s.placement);
    v("tiers", s.tiers);
  }
};

namespace detail {
constexpr std::array<tier_kind, 3> all_tiers{tier_kind::sram, tier_kind::hbm, tier_kind::dram};

/// Per-bank reserves A + M of Eq. 1 summed over a tier.
template <class = void>
inline double tier_reserve(const substrate& s, tier_kind t, const residency_params& p) {
  double r = 0.0;
  for (const auto& b : s.banks()) {
    if (b.tier == t) r += p.metadata_reserve.si() + (t == tier_kind::sram ? p.sram_reserve.si() : 0.0);
  }
  return r;
}
}  // namespace detail

/// Places the non-expert classes of `need` (its `experts` field is ignored) on `s` by the rule of
/// the file comment, with `experts[t]` bytes of expert replicas already in tier t and the
/// reserves of `rp`; `need.experts` is not placed. `where` ends the reason ("" or " on stage 2").
template <class = void>
inline package_fit place_package(const substrate& s, const footprint& need, const std::array<double, 3>& experts,
                                 const residency_params& rp = {}, const std::string& where = "") {
  package_fit f;
  std::array<double, 3> free{};
  for (tier_kind t : detail::all_tiers) {
    const auto i = static_cast<std::size_t>(t);
    tier_usage u;
    u.tier = to_string(t);
    u.capacity = tier_capacity(s, t);
    u.placed.experts = data_size<>::from_si(experts[i]);
    f.tiers.push_back(u);
    free[i] = u.capacity.si() - experts[i] - detail::tier_reserve(s, t, rp);
  }
  struct item {
    const char* name;
    data_size<> bytes;
    tier_kind* slot;
    data_size<> footprint::*field;
    std::array<tier_kind, 3> order;
    int choices;
  };
  // KV cache order by `rp.kv`; by pressure, from the free space left by the classes before it
  // (activations and non-routed weights: placed below in this order, their choices known only
  // then, so the KV order is settled when its turn comes).
  std::array<tier_kind, 3> kv_order{tier_kind::hbm, tier_kind::dram, tier_kind::dram};
  if (rp.kv == kv_placement::dram) kv_order = {tier_kind::dram, tier_kind::hbm, tier_kind::hbm};
  const item items[] = {
      {"activations", need.activations, &f.placement.activations, &footprint::activations,
       {tier_kind::sram, tier_kind::hbm, tier_kind::dram}, 3},
      {"non-routed weights", need.weights, &f.placement.weights, &footprint::weights,
       {tier_kind::hbm, tier_kind::dram, tier_kind::dram}, 2},
      {"KV cache", need.kv, &f.placement.kv, &footprint::kv, kv_order, 2},
      {"embedding/LM head", need.non_nmp, &f.placement.non_nmp, &footprint::non_nmp,
       {tier_kind::dram, tier_kind::hbm, tier_kind::hbm}, 2},
  };
  for (const auto& item_ : items) {
    item it = item_;
    if (it.field == &footprint::kv && rp.kv == kv_placement::by_pressure) {
      const auto pressure = [&](tier_kind t) {
        const auto i = static_cast<std::size_t>(t);
        const double cap = f.tiers[i].capacity.si();
        return cap > 0.0 ? 1.0 - (free[i] - it.bytes.si()) / cap : 1e300;
      };
      if (pressure(tier_kind::dram) < pressure(tier_kind::hbm)) it.order = {tier_kind::dram, tier_kind::hbm, tier_kind::hbm};
    }
    tier_kind chosen = it.order[0];
    bool placed = false;
    for (int c = 0; c < it.choices && !placed; ++c) {
      const auto i = static_cast<std::size_t>(it.order[static_cast<std::size_t>(c)]);
      if (it.bytes.si() <= free[i] * (1.0 + 1e-12)) {
        chosen = it.order[static_cast<std::size_t>(c)];
        placed = true;
      }
    }
    const auto i = static_cast<std::size_t>(chosen);
    *it.slot = chosen;
    f.tiers[i].placed.*(it.field) += it.bytes;
    free[i] -= it.bytes.si();
    if (!placed && f.feasible) {
      f.feasible = false;
      f.reason = std::string("does not fit") + where + ": " + it.name + " " + detail::gb(it.bytes) + " fit no tier (";
      for (int c = 0; c < it.choices; ++c) {
        const auto t = it.order[static_cast<std::size_t>(c)];
        const auto& u = f.tiers[static_cast<std::size_t>(t)];
        const double left = free[static_cast<std::size_t>(t)] + (t == chosen ? it.bytes.si() : 0.0);
        f.reason += std::string(c ? "; " : "") + to_string(t) + " " + detail::gb(u.capacity) + ": experts " +
                    detail::gb(u.placed.experts) + ", free " + detail::gb(data_size<>::from_si(left > 0.0 ? left : 0.0));
      }
      f.reason += ")";
    }
  }
  if (f.feasible) {
    f.reason = "fits" + where + ":";
    for (const auto& u : f.tiers) f.reason += " " + u.tier + " " + detail::gb(u.used()) + " of " + detail::gb(u.capacity) + ";";
    f.reason.pop_back();
  }
  return f;
}

/// Capacity of a window on one package with the experts of `res` already placed: non-expert data
/// of `need` placed by the rule of the file comment around them.
template <class = void>
inline package_fit fit_window(const substrate& s, const residency& res, const footprint& need,
                              const std::string& where = "") {
  std::array<double, 3> experts{};
  for (std::size_t b = 0; b < s.banks().size(); ++b) {
    experts[static_cast<std::size_t>(s.banks()[b].tier)] += res.used(static_cast<int>(b));
  }
  // The residency's own reservation of other data is what is being placed here: do not count it twice.
  residency_params rp = res.params();
  return place_package(s, need, experts, rp, where);
}

/// Whole expert copies of `expert_bytes` a package can hold the way `single_copy_static` places
/// them (each striped over every bank of one home: an SRAM group, or the HBM or DRAM banks of one
/// IO chiplet or, for chiplet-local memory, one compute chiplet), with the banks' reserves and
/// non-expert data of `rp`.
template <class = void>
inline long long expert_room(const substrate& s, data_size<> expert_bytes, const residency_params& rp) {
  detail::require_positive(expert_bytes.si(), "strata.capacity", "expert_bytes", "B");
  const residency probe(s, 1, 1, expert_bytes, rp);
  std::vector<std::vector<int>> homes;
  for (tier_kind t : detail::all_tiers) {
    for (int h : detail::homes_of(s, t)) homes.push_back(s.banks_of(t, h));
  }
  long long n = 0;
  for (const auto& h : homes) {
    if (h.empty()) continue;
    double least = probe.usable(h.front());
    for (int b : h) least = std::min(least, probe.usable(b));
    n += static_cast<long long>(std::floor(least * double(h.size()) / expert_bytes.si() * (1.0 + 1e-12)));
  }
  return n;
}

}  // namespace v0
}  // namespace strata
