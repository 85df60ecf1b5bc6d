// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Expert-parallel placement over the chips of a stage (`expert_split::expert_parallel`,
/// `expert_mapping.hpp`): which chip holds each routed expert, and Algorithm 1 on each chip.
/// Citations give the paper's section and the line of the project's English account of it (the
/// Stratum spec).
///
/// Assignment (per MoE layer, greedy longest processing time). An expert's expected work in a
/// decode step of B tokens, in units of one expert's weight stream:
///   p = 1 − (1 − f)^B            probability it runs (f: per-token usage, `stratum/usage.hpp`)
///   T = B·f / p                  its tokens when it runs
///   w = p · max(1, T / T*)       stream-bound below T* tokens, compute-bound above
///   T* = chip peak · bytes per weight / (2 · fastest tier's bandwidth)
/// (an expert of N weights streams N·b bytes at the chip's bandwidth or does 2·T·N FLOPs at its
/// peak, whichever is slower; §1 line 10: decode streams the weights of every activated expert).
/// The experts of a layer, by descending w (ties: lower expert index), each go to the chip of
/// least load in that layer; ties go to the chip of least load over the stage's earlier layers,
/// then to the chip holding the fewest experts, then to the lower chip index. The tie-breaks
/// spread what each layer's balance leaves open over the chips: a layer's hottest expert goes
/// where the earlier layers put the least work, so the hot experts (and their fast rows, below)
/// are shared out among the chips rather than piled on the first ones, and 8 equal experts on 6
/// chips put the two extra experts of each layer on different chips from layer to layer.
/// Deterministic; greedy list scheduling bounds the busiest chip by the mean load plus the
/// largest single load (each expert goes where the load is at most the mean).
/// The usage table is the memory mapper's prediction (§6 lines 150–152: "aggregates the
/// per-topic usage table into a hit prediction for the batch and produces the target
/// expert-to-tier mapping"). A topic switch moves experts between tiers by in-bank row swaps,
/// never through the xPU (§5.2 lines 141–143), and the chips meet only through the xPU (§3 lines
/// 45–47), so a switch keeps the assignment: a placement for another topic reuses it
/// (`place_model`'s `chips_from`; the serving simulator's topic layouts reuse the mix's).
///
/// Capacity and tiers (Algorithm 1 per chip, §5.2 lines 127–139). Chip j holds the whole rows of
/// its N_j experts (Δ = ⌈S_w / (N_bank·S_rb)⌉ rows per bank of its own banks: §5.2 line 139, an
/// expert is sharded over the banks following §4.1's partition, here one chip's). Algorithm 1
/// runs on each chip's experts as one list in (layer, expert) order, with K_j the chip's experts
/// among the stage's K = L·A fastest by Algorithm 1's own order (f descending, ties by lower
/// index): the fast packs of the chips together are Algorithm 1's hot set, each expert in its
/// chip's fastest rows; a chip holding none of them packs all its experts against Φ (Algorithm 1
/// with K = 0: every start_i = Φ − (N_j − i + 1)·Δ). With c = 1 it is Algorithm 1 on the L×E
/// table exactly. Every chip keeps the same always-read region, KV share (attention is head parallel
/// over the chips, §4.2 line 81) and non-NMP share, so the chips' Φ are equal and the capacity
/// verdict is the fullest chip's. `combined_layout` gathers the chips' intervals back into one
/// L×E layout (each interval in its own chip's rows; `is_fast` true for each chip's fast pack).

#include <algorithm>  // std::sort, std::partial_sort, std::max, std::min, std::rotate
#include <cmath>      // std::pow
#include <cstddef>    // std::size_t, std::ptrdiff_t
#include <string>     // std::string
#include <utility>    // std::pair
#include <vector>     // std::vector

#include "strata/core/error.hpp"
#include "strata/stratum/placement.hpp"

namespace strata {
inline namespace v0 {

/// The routed experts of a stage's MoE layers on its chips.
struct expert_chips {
  int chips = 1;                ///< c
  int layers = 0;               ///< L: MoE layers of the stage
  int experts = 0;              ///< E
  std::vector<int> chip;        ///< by stage-local index l·E + e
  std::vector<long long> fast;  ///< K_j: experts in chip j's fast pack
  std::vector<double> load;     ///< expected work by l·c + j (file comment)

  template <class = void>
  [[nodiscard]] bool empty() const { return chip.empty(); }
  /// Experts chip j holds, in (layer, expert) order (stage-local indices l·E + e).
  template <class = void>
  [[nodiscard]] std::vector<int> members(int j) const {
    std::vector<int> out;
    for (std::size_t i = 0; i < chip.size(); ++i) {
      if (chip[i] == j) out.push_back(static_cast<int>(i));
    }
    return out;
  }

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("chips", s.chips);
    v("layers", s.layers);
    v("experts", s.experts);
    v("chip", s.chip);
    v("fast", s.fast);
    v("load", s.load);
  }
  friend bool operator==(const expert_chips&, const expert_chips&) = default;
};

/// Expected work of an expert of usage `f` in a step of `batch` tokens (file comment), in units
/// of its weight stream; `knee_tokens` is T*.
template <class = void>
inline double expected_expert_work(double f, int batch, double knee_tokens) {
  if (!(f > 0.0)) return 0.0;
  const double p = 1.0 - std::pow(1.0 - std::min(f, 1.0), double(batch));
  const double tokens = double(batch) * f / p;
  return p * std::max(1.0, tokens / knee_tokens);
}

/// Greedy LPT assignment of the experts of `f` (L × E, one stage's MoE layers) to `chips` chips
/// (file comment) and each chip's fast pack K_j for `active` experts per token.
template <class = void>
inline expert_chips assign_experts(const usage_table& f, int chips, int batch, double knee_tokens, int active) {
  constexpr const char* m = "strata.chip_assignment";
  detail::require_count(chips, 1, 1 << 16, m, "chips");
  detail::require_count(batch, 1, 1 << 24, m, "batch");
  detail::require(knee_tokens > 0.0 && knee_tokens < 1e18, m, "knee_tokens", knee_tokens, "> 0 and finite");
  expert_chips a;
  a.chips = chips;
  a.layers = static_cast<int>(f.size());
  a.experts = f.empty() ? 0 : static_cast<int>(f.front().size());
  validate_usage(f, a.layers, a.experts);
  detail::require_count(active, 1, std::max(1, a.experts), m, "active");
  const std::size_t E = static_cast<std::size_t>(a.experts), C = static_cast<std::size_t>(chips);
  a.chip.assign(static_cast<std::size_t>(a.layers) * E, 0);
  a.load.assign(static_cast<std::size_t>(a.layers) * C, 0.0);
  std::vector<long long> held(C, 0);
  std::vector<double> before(C, 0.0);  // load over the earlier layers
  std::vector<std::pair<double, int>> order(E);
  for (std::size_t l = 0; l < f.size(); ++l) {
    for (std::size_t e = 0; e < E; ++e) order[e] = {expected_expert_work(f[l][e], batch, knee_tokens), static_cast<int>(e)};
    std::sort(order.begin(), order.end(), [](const std::pair<double, int>& x, const std::pair<double, int>& y) {
      return x.first > y.first || (x.first == y.first && x.second < y.second);
    });
    double* load = a.load.data() + l * C;
    for (const auto& [w, e] : order) {
      std::size_t best = 0;
      for (std::size_t j = 1; j < C; ++j) {
        if (load[j] != load[best]) {
          if (load[j] < load[best]) best = j;
        } else if (before[j] != before[best]) {
          if (before[j] < before[best]) best = j;
        } else if (held[j] < held[best]) {
          best = j;
        }
      }
      load[best] += w;
      ++held[best];
      a.chip[l * E + static_cast<std::size_t>(e)] = static_cast<int>(best);
    }
    for (std::size_t j = 0; j < C; ++j) before[j] += load[j];
  }
  // K_j: the chip's experts among Algorithm 1's K = L·A fastest of the stage (f descending, ties
  // by lower index l·E + e), at least one on a chip holding any (Algorithm 1's A ≥ 1).
  const std::size_t n = a.chip.size();
  std::vector<std::pair<double, int>> keys(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = {f[i / E][i % E], static_cast<int>(i)};
  const std::size_t k_all = std::min(n, static_cast<std::size_t>(a.layers) * static_cast<std::size_t>(active));
  std::partial_sort(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(k_all), keys.end(),
                    [](const std::pair<double, int>& x, const std::pair<double, int>& y) {
                      return x.first > y.first || (x.first == y.first && x.second < y.second);
                    });
  std::vector<long long> nj(C, 0);
  for (int c : a.chip) ++nj[static_cast<std::size_t>(c)];
  a.fast.assign(C, 0);
  for (std::size_t i = 0; i < k_all; ++i) ++a.fast[static_cast<std::size_t>(a.chip[static_cast<std::size_t>(keys[i].second)])];
  return a;
}

/// The row plan of each chip (`plan_rows` of its N_j whole experts and K_j fast ones, the chip's
/// KV and non-NMP bytes); a chip without experts keeps its rows for KV and non-NMP data.
template <class T>
std::vector<row_plan> chip_plans(const expert_chips& a, const tiering_table& rows, expert_placement_params<T> p,
                                 const data_size<T>& kv_bytes, const data_size<T>& non_nmp_bytes) {
  std::vector<row_plan> out(static_cast<std::size_t>(a.chips));
  std::vector<long long> n(static_cast<std::size_t>(a.chips), 0);
  for (int c : a.chip) ++n[static_cast<std::size_t>(c)];
  for (std::size_t j = 0; j < out.size(); ++j) {
    auto& r = out[j];
    if (n[j] > 0) {
      r = plan_rows_of(rows, p, n[j], std::max(1LL, a.fast[j]), kv_bytes, non_nmp_bytes);
      if (a.fast[j] == 0 && r.expert_rows <= r.phi && r.non_nmp_rows <= r.rows) {
        // No fast pack: the KV gap starts at row 0 (plan_rows needs A ≥ 1).
        r.fast_pack = {0, -1};
        r.kv_region.first = 0;
        r.kv_first_tier = r.kv_region.rows() > 0 ? rows.tier_of(0) : -1;
        r.kv_last_tier = r.kv_region.rows() > 0 ? rows.tier_of(r.kv_region.last) : -1;
        r.feasible = r.kv_rows <= r.kv_region.rows();
        if (r.feasible) r.reason.clear();
      }
      continue;
    }
    const double rb = rows.row_bytes();
    r.rows = rows.rows;
    r.kv_rows = detail::ceil_rows(value_of(kv_bytes.si()) / rb);
    r.non_nmp_rows = detail::ceil_rows(value_of(non_nmp_bytes.si()) / rb);
    r.phi = r.rows - r.non_nmp_rows;
    r.kv_region = {0, r.phi - 1};
    r.feasible = r.kv_rows + r.non_nmp_rows <= r.rows;
    if (!r.feasible) {
      r.reason = "KV cache needs " + std::to_string(r.kv_rows) + " rows per bank and non-NMP data " +
                 std::to_string(r.non_nmp_rows) + ", " + std::to_string(r.rows) + " rows remain";
    }
  }
  return out;
}

/// Algorithm 1 on each chip (file comment): chip j's layout over its members (one "layer" of
/// N_j experts with usage f in member order and A = K_j); empty chips get an empty feasible
/// layout. `p` gives Δ's inputs (`expert_bytes`: one whole expert) and Φ.
template <class T>
std::vector<expert_layout> place_on_chips(const expert_chips& a, const usage_table& f, expert_placement_params<T> p) {
  std::vector<expert_layout> out(static_cast<std::size_t>(a.chips));
  for (int j = 0; j < a.chips; ++j) {
    const auto members = a.members(j);
    if (members.empty()) continue;
    usage_table fj(1);
    fj[0].reserve(members.size());
    for (int i : members) {
      fj[0].push_back(f[static_cast<std::size_t>(i / a.experts)][static_cast<std::size_t>(i % a.experts)]);
    }
    const long long k = a.fast[static_cast<std::size_t>(j)];
    p.active = static_cast<int>(std::max(1LL, k));
    auto& lay = out[static_cast<std::size_t>(j)];
    lay = place_expert_group(p, fj);
    if (k == 0) {
      // Algorithm 1 with K = 0 (place_experts needs A ≥ 1): every expert against Φ.
      lay.active = 0;
      lay.fast = 0;
      if (lay.feasible) {
        const long long nn = static_cast<long long>(members.size());
        for (long long i = 1; i <= nn; ++i) {
          const long long start = lay.phi - (nn - i + 1) * lay.delta;
          lay.intervals[static_cast<std::size_t>(lay.order[static_cast<std::size_t>(i - 1)])] = {start, start + lay.delta - 1};
        }
      }
    }
  }
  return out;
}

/// The chips' layouts gathered into one L × E layout (file comment): intervals in each chip's
/// rows, `fast` = Σ K_j, `order` the fast experts of every chip then the others, each by
/// descending f (ties: lower index), so `is_fast` is each chip's verdict. Infeasible (no
/// intervals) when a chip's is, its reason prefixed with the chip.
template <class = void>
inline expert_layout combined_layout(const expert_chips& a, const std::vector<expert_layout>& per_chip,
                                     const usage_table& f, int active) {
  expert_layout out;
  out.layers = a.layers;
  out.experts = a.experts;
  out.active = active;
  const std::size_t n = a.chip.size();
  std::vector<int> slot(n, 0);
  std::vector<int> next(static_cast<std::size_t>(a.chips), 0);
  for (std::size_t i = 0; i < n; ++i) slot[i] = next[static_cast<std::size_t>(a.chip[i])]++;
  bool delta_set = false;
  for (std::size_t j = 0; j < per_chip.size(); ++j) {
    const auto& c = per_chip[j];
    if (c.experts == 0) continue;
    if (!delta_set) {
      out.delta = c.delta;
      out.phi = c.phi;
      delta_set = true;
    }
    out.fast += c.fast;
    if (!c.feasible && out.feasible) {
      out.feasible = false;
      out.reason = a.chips > 1 ? "chip " + std::to_string(j) + ": " + c.reason : c.reason;
    }
  }
  // The sort keys computed once per expert (whether it is in its chip's fast pack, its usage),
  // then sorted as (fast first, f descending, lower index): the order the file comment states.
  struct sort_key {
    bool fast;
    double f;
    int i;
  };
  std::vector<sort_key> keys(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto& c = per_chip[static_cast<std::size_t>(a.chip[i])];
    keys[i] = {c.rank[static_cast<std::size_t>(slot[i])] < c.fast,
               f[i / static_cast<std::size_t>(a.experts)][i % static_cast<std::size_t>(a.experts)], static_cast<int>(i)};
  }
  std::sort(keys.begin(), keys.end(), [](const sort_key& x, const sort_key& y) {
    if (x.fast != y.fast) return x.fast;
    return x.f > y.f || (x.f == y.f && x.i < y.i);
  });
  std::vector<int> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = keys[i].i;
  out.order = order;
  out.rank.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) out.rank[static_cast<std::size_t>(order[i])] = static_cast<int>(i);
  if (out.feasible) {
    out.intervals.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      const auto& c = per_chip[static_cast<std::size_t>(a.chip[i])];
      out.intervals[i] = c.intervals[static_cast<std::size_t>(slot[i])];
    }
  }
  return out;
}

/// Expert-parallel placements kept from one call to the next (`place_model`'s `kept`): the
/// results of `assign_experts` and of `place_on_chips` with `combined_layout`, each with the exact
/// inputs it was computed from. A call whose inputs equal a kept entry's takes that entry's
/// result, else computes it and keeps it: the same result either way, each being a function of
/// those inputs alone. A caller that re-places one model many times while changing parameters
/// these inputs do not depend on (the gap explainer, `report/explain_groups.hpp`) keeps one and
/// skips the sorts; the context of a step changes none of them either (only the KV rows, outside
/// Algorithm 1's inputs). At most `capacity` entries of each kind, the least recently used dropped
/// first.
struct expert_chips_keep {
  /// `assign_experts`'s inputs and result.
  struct assignment {
    usage_table f;
    int chips = 0, batch = 0, active = 0;
    double knee_tokens = 0.0;
    expert_chips result;
  };
  /// `place_on_chips`'s and `combined_layout`'s inputs and results.
  struct layouts {
    expert_chips chips;
    usage_table f;
    expert_placement_params<> params{};
    int active = 0;
    std::vector<expert_layout> per_chip;
    expert_layout combined;
  };
  std::vector<assignment> assignments;
  std::vector<layouts> chip_layouts;
  std::size_t capacity = 128;  ///< entries of each kind [design choice: a few models × batches × stages]
  long long hits = 0, misses = 0;  ///< lookups answered from a kept entry, and computed
};

namespace detail {
/// Moves entry `i` of `v` to the back (most recently used) and returns it.
template <class E>
E& keep_touch(std::vector<E>& v, std::size_t i) {
  std::rotate(v.begin() + static_cast<std::ptrdiff_t>(i), v.begin() + static_cast<std::ptrdiff_t>(i) + 1, v.end());
  return v.back();
}
/// Appends `e` to `v`, dropping the least recently used entry (the front) when `v` holds `capacity`.
template <class E>
void keep_add(std::vector<E>& v, E e, std::size_t capacity) {
  if (capacity == 0) return;
  if (v.size() >= capacity) v.erase(v.begin());
  v.push_back(std::move(e));
}
}  // namespace detail

/// `assign_experts`, taken from `kept` when it holds these inputs' result (null: computed).
template <class = void>
inline expert_chips assign_experts(const usage_table& f, int chips, int batch, double knee_tokens, int active,
                                   expert_chips_keep* kept) {
  if (kept == nullptr) return assign_experts(f, chips, batch, knee_tokens, active);
  auto& v = kept->assignments;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const auto& k = v[i];
    if (k.chips == chips && k.batch == batch && k.active == active && k.knee_tokens == knee_tokens && k.f == f) {
      ++kept->hits;
      return detail::keep_touch(v, i).result;
    }
  }
  ++kept->misses;
  auto a = assign_experts(f, chips, batch, knee_tokens, active);
  detail::keep_add(v, expert_chips_keep::assignment{f, chips, batch, active, knee_tokens, a}, kept->capacity);
  return a;
}

/// `place_on_chips(a, f, p)` and `combined_layout` of them (`active` per token), taken from `kept`
/// when it holds these inputs' results (null: computed).
template <class = void>
inline std::pair<std::vector<expert_layout>, expert_layout>
chip_layouts(const expert_chips& a, const usage_table& f, const expert_placement_params<>& p, int active,
             expert_chips_keep* kept) {
  if (kept != nullptr) {
    auto& v = kept->chip_layouts;
    for (std::size_t i = 0; i < v.size(); ++i) {
      const auto& k = v[i];
      if (k.active == active && k.params == p && k.chips == a && k.f == f) {
        ++kept->hits;
        const auto& e = detail::keep_touch(v, i);
        return {e.per_chip, e.combined};
      }
    }
    ++kept->misses;
  }
  auto per_chip = place_on_chips(a, f, p);
  auto combined = combined_layout(a, per_chip, f, active);
  if (kept != nullptr) {
    detail::keep_add(kept->chip_layouts, expert_chips_keep::layouts{a, f, p, active, per_chip, combined}, kept->capacity);
  }
  return {std::move(per_chip), std::move(combined)};
}

}  // namespace v0
}  // namespace strata
