// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// HCRMap's latency-aware multi-level placement (§6.5, Eq. 35–36): where a promoted, retained or
/// demoted replica goes, among the feasible candidates Ω.
///
///   (t_r, c_r, b_r) = argmin_{(t,c,b) ∈ Ω_r} C_place(r, t, c, b)                      (Eq. 35)
///   C_place = α_p·D_src(e, c) + β_p·Q_c + χ_p·U^bank_{t,c,b} + ψ_p·U^cap_t − η_p·D_div(r, c)  (Eq. 36)
///
/// Terms (all dimensionless):
/// - D_src(e, c): the token-weighted mean hop distance from the expert's routed-token sources
///   to c, over the mesh diameter (0 … 1);
/// - Q_c: compute-queue pressure of chiplet c — its expected compute service time over Δ_w
///   (Eq. 19's P^load for one chiplet), as the caller measured or estimated it;
/// - U^bank: the bank's expected access pressure — streamed bytes over BW·Δ_w (Eq. 19's P^bank
///   for one bank), the most pressured bank of the span, including the candidate's own stream
///   once per layer;
/// - U^cap_t: tier t's capacity scarcity, used / usable over its banks (§6.2's P^tier per tier);
/// - D_div(r, c): location diversity, the hop distance from c to the nearest existing replica of
///   the same expert over the mesh diameter (1 when the expert has none).
/// Ω_r (`feasible_candidates`): for each compute chiplet c and tier t, the bank span the
/// single-copy baseline would use (`residency::nearest_room`) — every bank of c's SRAM group; the
/// HBM banks of the nearest HBM home of c with room — and, for a tier pooled behind the IO
/// chiplets (DRAM; HBM `behind_io`), the banks of EVERY IO chiplet with room, from c on, so that
/// Eq. 36's bank term chooses among the DRAM homes (the first home with room alone left chiplet c
/// one DRAM home, c mod 4, whatever its pressure) — where `residency::check_add` accepts one
/// (visibility B_{t,c}, bank capacity Eq. 1/22/30, replica count Eq. 23/28, budget Eq. 24/29).
/// Migration-path feasibility (Eq. 40) is the controller's part of the mask (`controller.hpp`).

#include <algorithm>  // std::max, std::min
#include <array>      // std::array
#include <cstddef>    // std::size_t
#include <limits>     // std::numeric_limits
#include <optional>   // std::optional
#include <vector>     // std::vector

#include "strata/chiplet/residency.hpp"
#include "strata/chiplet/substrate.hpp"
#include "strata/core/error.hpp"

namespace strata {
inline namespace v0 {

/// Weights of Eq. 36.
struct placement_params {
  /// α_p. [Design choice: 1 — a full-diameter detour for all of an expert's tokens weighs as
  /// much as a fully busy chiplet or bank; not fitted]
  double alpha_src = 1.0;
  double beta_queue = 1.0;  ///< β_p [design choice: 1, as α_p]
  double chi_bank = 1.0;    ///< χ_p [design choice: 1, as α_p]
  /// ψ_p. [Design choice: 0.25 — tier scarcity breaks ties between tiers of similar pressure
  /// without overriding a bank that is actually faster]
  double psi_cap = 0.25;
  /// η_p. [Design choice: 0.5 — spreading replicas of one expert matters less than its
  /// sources' distance]
  double eta_div = 0.5;

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("alpha_src", s.alpha_src);
    v("beta_queue", s.beta_queue);
    v("chi_bank", s.chi_bank);
    v("psi_cap", s.psi_cap);
    v("eta_div", s.eta_div);
  }
  friend bool operator==(const placement_params&, const placement_params&) = default;
};

/// Checks the weights (finite, ≥ 0); throws `config_error` naming the field.
template <class = void>
inline void validate(const placement_params& p) {
  constexpr const char* id = "strata.hcrmap.placement";
  detail::require_in(p.alpha_src, 0.0, 1e6, id, "alpha_src");
  detail::require_in(p.beta_queue, 0.0, 1e6, id, "beta_queue");
  detail::require_in(p.chi_bank, 0.0, 1e6, id, "chi_bank");
  detail::require_in(p.psi_cap, 0.0, 1e6, id, "psi_cap");
  detail::require_in(p.eta_div, 0.0, 1e6, id, "eta_div");
}

/// The pressure picture a placement is decided on (per chiplet, per bank, per tier).
struct placement_inputs {
  std::vector<double> source_tokens;   ///< the expert's routed tokens by source chiplet
  std::vector<double> chiplet_queue;   ///< Q_c per compute chiplet
  std::vector<double> bank_pressure;   ///< U^bank per bank, before the candidate's own stream
  std::array<double, 3> tier_scarcity{};  ///< U^cap per tier (sram, hbm, dram)
  std::vector<int> replica_chiplets;   ///< chiplets of the expert's existing replicas
  double stream_bytes = 0.0;  ///< the candidate's own stream per layer (S^wt, B), striped over its span
  double window_s = 1e-3;     ///< Δ_w (s) the pressures are over
  /// D_src per compute chiplet, when `fill_source_terms` filled it from `source_tokens` (a
  /// search that prices many candidates of one expert reads it instead of summing the sources
  /// per candidate; the same values). Empty: computed per candidate.
  std::vector<double> source_term;
  /// U^bank of the span of `bank_term_span[b]` banks from bank b, when `fill_bank_terms` filled
  /// it from the pressures, stream and window above (0 or absent: computed per candidate).
  std::vector<double> bank_term;
  std::vector<int> bank_term_span;
};

/// Largest hop distance between two compute chiplets.
template <class = void>
inline int mesh_diameter(const substrate& s) {
  return std::max(1, s.params().mesh_x - 1 + s.params().mesh_y - 1);
}

/// The terms of Eq. 36 for a candidate.
struct placement_terms {
  double source = 0.0, queue = 0.0, bank = 0.0, capacity = 0.0, diversity = 0.0;
};

/// `s.hops(a, b)` between compute chiplets at [a·C + b], for searches that read them per
/// candidate; empty past `max_chiplets` chiplets (C² entries).
template <class = void>
inline std::vector<int> chiplet_hops(const substrate& s, int max_chiplets = 256) {
  const int C = s.chiplets();
  std::vector<int> h;
  if (C > max_chiplets) return h;
  h.resize(static_cast<std::size_t>(C) * static_cast<std::size_t>(C));
  for (int a = 0; a < C; ++a) {
    for (int b = 0; b < C; ++b) h[static_cast<std::size_t>(a) * static_cast<std::size_t>(C) + static_cast<std::size_t>(b)] = s.hops(a, b);
  }
  return h;
}

/// D_src(e, c) of the file comment from the expert's tokens by source chiplet; `hops`, when not
/// empty, is `chiplet_hops(s)` (the same distances, read instead of computed).
template <class = void>
inline double placement_source_term(const substrate& s, const std::vector<double>& source_tokens, int chiplet,
                                    const std::vector<int>& hops = {}) {
  const double dia = mesh_diameter(s);
  const auto C = static_cast<std::size_t>(s.chiplets());
  const bool table = !hops.empty() && static_cast<std::size_t>(chiplet) < C && source_tokens.size() <= C;
  double tok = 0.0, dist = 0.0;
  for (std::size_t k = 0; k < source_tokens.size(); ++k) {
    if (source_tokens[k] == 0.0) continue;  // adds +0.0 to both sums (at least +0.0): nothing
    tok += source_tokens[k];
    dist += source_tokens[k] * (table ? hops[k * C + static_cast<std::size_t>(chiplet)] : s.hops(static_cast<int>(k), chiplet));
  }
  return tok > 0.0 ? dist / tok / dia : 0.0;
}

/// Fills `in.source_term` for every compute chiplet from `in.source_tokens` (`hops` as
/// `placement_source_term`'s).
template <class = void>
inline void fill_source_terms(const substrate& s, placement_inputs& in, const std::vector<int>& hops = {}) {
  in.source_term.resize(static_cast<std::size_t>(s.chiplets()));
  for (int c = 0; c < s.chiplets(); ++c) {
    in.source_term[static_cast<std::size_t>(c)] = placement_source_term(s, in.source_tokens, c, hops);
  }
}

/// U^bank of the file comment for a span of `span` banks from `bank`, with the candidate's own stream.
template <class = void>
inline double placement_bank_term(const substrate& s, const placement_inputs& in, int bank, int span) {
  double u = 0.0;
  for (int k = 0; k < span; ++k) {
    const auto b = static_cast<std::size_t>(bank) + static_cast<std::size_t>(k);
    const double base = b < in.bank_pressure.size() ? in.bank_pressure[b] : 0.0;
    const double bw = s.banks()[b].bandwidth.si();
    u = std::max(u, base + in.stream_bytes / span / (bw * in.window_s));
  }
  return u;
}

/// Fills `in.bank_term` for the spans of `spans` (one per first bank: a later span from the same
/// bank is computed per candidate).
template <class = void>
inline void fill_bank_terms(const substrate& s, placement_inputs& in, const std::vector<place_candidate>& spans) {
  in.bank_term.assign(s.banks().size(), 0.0);
  in.bank_term_span.assign(s.banks().size(), 0);
  for (const auto& c : spans) {
    const auto b = static_cast<std::size_t>(c.bank);
    if (b >= in.bank_term_span.size() || in.bank_term_span[b] != 0) continue;
    in.bank_term[b] = placement_bank_term(s, in, c.bank, c.span);
    in.bank_term_span[b] = c.span;
  }
}

/// Eq. 36's terms of `c` under `in`.
template <class = void>
inline placement_terms placement_cost_terms(const substrate& s, const placement_inputs& in, const place_candidate& c) {
  placement_terms t;
  const double dia = mesh_diameter(s);
  t.source = static_cast<std::size_t>(c.chiplet) < in.source_term.size() ? in.source_term[static_cast<std::size_t>(c.chiplet)]
                                                                          : placement_source_term(s, in.source_tokens, c.chiplet);
  t.queue = static_cast<std::size_t>(c.chiplet) < in.chiplet_queue.size() ? in.chiplet_queue[static_cast<std::size_t>(c.chiplet)] : 0.0;
  const auto b0 = static_cast<std::size_t>(c.bank);
  t.bank = b0 < in.bank_term_span.size() && in.bank_term_span[b0] == c.span ? in.bank_term[b0]
                                                                           : placement_bank_term(s, in, c.bank, c.span);
  t.capacity = in.tier_scarcity[static_cast<std::size_t>(c.tier)];
  int nearest = -1;
  for (int r : in.replica_chiplets) {
    const int h = s.hops(r, c.chiplet);
    nearest = nearest < 0 ? h : std::min(nearest, h);
  }
  t.diversity = nearest < 0 ? 1.0 : nearest / dia;
  return t;
}

/// C_place (Eq. 36).
template <class = void>
inline double placement_cost(const substrate& s, const placement_inputs& in, const place_candidate& c,
                             const placement_params& p = {}) {
  const auto t = placement_cost_terms(s, in, c);
  return p.alpha_src * t.source + p.beta_queue * t.queue + p.chi_bank * t.bank + p.psi_cap * t.capacity -
         p.eta_div * t.diversity;
}

/// Ω for a new replica of (layer, expert): per chiplet c and tier, the bank span of the file
/// comment, `res.nearest_room(layer, expert, c, tier, c)`, where there is one; for a pooled tier
/// (homes are IO chiplets) one span per IO chiplet with room, in `substrate::visit_homes` order
/// from c (the first is `nearest_room`'s, so ties keep its choice). `tiers` limits the
/// tiers considered (all by default). A chiplet that already holds a replica of the expert is left
/// out (a second copy on the same chiplet adds no execution slot) — except the chiplet of entry
/// `moving` (≥ 0: the replica a move releases once its copy is published, §6.3), which a move may
/// keep.
template <class = void>
inline std::vector<place_candidate> feasible_candidates(const substrate& s, const residency& res, int layer, int expert,
                                                        const std::array<bool, 3>& tiers = {true, true, true},
                                                        int moving = -1) {
  std::vector<place_candidate> out;
  std::vector<char> taken(static_cast<std::size_t>(s.chiplets()), 0);
  for (int i : res.of(layer, expert)) {
    if (i != moving) taken[res.entries()[static_cast<std::size_t>(i)].chiplet] = 1;
  }
  for (int c = 0; c < s.chiplets(); ++c) {
    if (taken[static_cast<std::size_t>(c)] != 0) continue;
    for (tier_kind t : {tier_kind::sram, tier_kind::hbm, tier_kind::dram}) {
      if (!tiers[static_cast<std::size_t>(t)]) continue;
      const bool pooled = t == tier_kind::dram || (t == tier_kind::hbm && s.params().hbm_at == hbm_placement::behind_io);
      if (!pooled) {
        if (const auto p = res.nearest_room(layer, expert, c, t, c)) out.push_back(*p);
        continue;
      }
      (void)s.visit_homes(t, c, c, [&](int h) {
        const auto [first, span] = s.home_banks(t, h);
        if (span > 0 && res.can_add(layer, expert, c, first, span)) out.push_back(place_candidate{t, c, first, span});
        return false;
      });
    }
  }
  return out;
}

/// Ω's locations for one state of a residency, probed once for every expert a search weighs:
/// per compute chiplet and tier, the spans `feasible_candidates` would offer, each probed with
/// `residency::has_room` (the part of `residency::can_add` that does not depend on the expert).
/// For the state it was built on, `candidates` gives exactly `feasible_candidates`' Ω (the same
/// spans in the same order): an expert at R^max gets none, any other the spans of the chiplets
/// that hold none of its replicas.
class placement_rooms {
 public:
  /// Probes every location of `res`'s present state.
  template <class = void>
  void build(const substrate& s, const residency& res) {
    chiplets_ = s.chiplets();
    spans_.clear();
    start_.assign(static_cast<std::size_t>(chiplets_) * 3 + 1, 0);
    for (int c = 0; c < chiplets_; ++c) {
      for (tier_kind t : {tier_kind::sram, tier_kind::hbm, tier_kind::dram}) {
        start_[static_cast<std::size_t>(c) * 3 + static_cast<std::size_t>(t)] = spans_.size();
        probe_(s, res, c, t, spans_);
      }
    }
    start_.back() = spans_.size();
  }
  /// After a replica was added to `res` on banks [bank, bank + span) — the only banks whose room
  /// changed, besides the budget — the state `build` would probe now: the locations of each
  /// chiplet and tier that held one of those banks probed again (a nearest home with room stays
  /// the nearest when room only shrinks elsewhere), none left when the budget is spent.
  template <class = void>
  void update(const substrate& s, const residency& res, int bank, int span) {
    if (!res.budget_room()) {
      spans_.clear();
      std::fill(start_.begin(), start_.end(), 0);
      return;
    }
    next_.clear();
    next_start_.assign(start_.size(), 0);
    for (int c = 0; c < chiplets_; ++c) {
      for (tier_kind t : {tier_kind::sram, tier_kind::hbm, tier_kind::dram}) {
        const std::size_t k = static_cast<std::size_t>(c) * 3 + static_cast<std::size_t>(t);
        next_start_[k] = next_.size();
        bool hit = false;
        for (std::size_t i = start_[k]; i < start_[k + 1] && !hit; ++i) {
          hit = spans_[i].bank < bank + span && bank < spans_[i].bank + spans_[i].span;
        }
        if (hit) {
          probe_(s, res, c, t, next_);
        } else {
          next_.insert(next_.end(), spans_.begin() + static_cast<std::ptrdiff_t>(start_[k]),
                       spans_.begin() + static_cast<std::ptrdiff_t>(start_[k + 1]));
        }
      }
    }
    next_start_.back() = next_.size();
    spans_.swap(next_);
    start_.swap(next_start_);
  }
  /// Every location probed with room (each chiplet's, tier by tier).
  template <class = void>
  [[nodiscard]] const std::vector<place_candidate>& spans() const { return spans_; }
  /// `feasible_candidates(s, res, layer, expert, tiers, moving)` for the state `build` probed, in `out`.
  template <class = void>
  void candidates(const residency& res, int layer, int expert, const std::array<bool, 3>& tiers, int moving,
                  std::vector<place_candidate>& out) const {
    out.clear();
    if (layer < 0 || layer >= res.layers() || expert < 0 || expert >= res.experts()) return;
    const auto& mine = res.of(layer, expert);
    if (static_cast<int>(mine.size()) >= res.params().max_replicas_per_expert) return;
    taken_.assign(static_cast<std::size_t>(chiplets_), 0);
    for (int i : mine) {
      if (i != moving) taken_[res.entries()[static_cast<std::size_t>(i)].chiplet] = 1;
    }
    for (int c = 0; c < chiplets_; ++c) {
      if (taken_[static_cast<std::size_t>(c)] != 0) continue;
      for (std::size_t t = 0; t < 3; ++t) {
        if (!tiers[t]) continue;
        const std::size_t k = static_cast<std::size_t>(c) * 3 + t;
        out.insert(out.end(), spans_.begin() + static_cast<std::ptrdiff_t>(start_[k]),
                   spans_.begin() + static_cast<std::ptrdiff_t>(start_[k + 1]));
      }
    }
  }

 private:
  /// The locations of chiplet c in tier t with room, appended to `out`.
  template <class = void>
  static void probe_(const substrate& s, const residency& res, int c, tier_kind t, std::vector<place_candidate>& out) {
    const bool pooled = t == tier_kind::dram || (t == tier_kind::hbm && s.params().hbm_at == hbm_placement::behind_io);
    (void)s.visit_homes(t, c, c, [&](int h) {
      const auto [first, span] = s.home_banks(t, h);
      const bool room = span > 0 && res.has_room(c, first, span);
      if (room) out.push_back(place_candidate{t, c, first, span});
      return room && !pooled;  // the nearest home with room (`residency::nearest_room`), or every one
    });
  }

  int chiplets_ = 0;
  std::vector<place_candidate> spans_;
  std::vector<std::size_t> start_;  // spans_ of (chiplet c, tier t) from start_[3c + t] to start_[3c + t + 1]
  std::vector<place_candidate> next_;  // `update`'s scratch
  std::vector<std::size_t> next_start_;
  mutable std::vector<char> taken_;
};

namespace detail {
/// `best_placement` with weights already checked (`validate`), for searches that call it per
/// expert and tier with the same weights.
template <class = void>
inline std::optional<place_candidate> best_placement_checked(const substrate& s, const placement_inputs& in,
                                                             const std::vector<place_candidate>& omega,
                                                             const placement_params& p) {
  std::optional<place_candidate> best;
  double best_cost = std::numeric_limits<double>::infinity();
  for (const auto& c : omega) {
    const double v = placement_cost(s, in, c, p);
    if (v < best_cost) {
      best_cost = v;
      best = c;
    }
  }
  return best;
}
}  // namespace detail

/// Eq. 35: the candidate of `omega` with the lowest C_place (ties by order); none when Ω is empty.
template <class = void>
inline std::optional<place_candidate> best_placement(const substrate& s, const placement_inputs& in,
                                                     const std::vector<place_candidate>& omega,
                                                     const placement_params& p = {}) {
  validate(p);
  return detail::best_placement_checked(s, in, omega, p);
}

}  // namespace v0
}  // namespace strata
