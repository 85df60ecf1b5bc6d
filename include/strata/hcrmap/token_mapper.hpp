// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// HCRMap's fast token-to-replica mapping (§6.7, Algorithm 2, Eq. 37–39) and the simple routings
/// the compared policies use.
///
/// For token group g of expert e_g, among the published replicas R_{l,e_g} of the current
/// directory (`residency::legal`), choose
///   r*_g = argmin_r C_tok(g, r),   x_{g,r*} = 1                                   (Eq. 37–38)
///   C_tok(g, r) = ω_q·C^queue + ω_p·C^path + ω_b·C^bank + ω_s·C^stream            (Eq. 39)
/// Each term is a time estimate of this layer normalised by the decision window Δ_w (so it reads
/// as a utilisation, like the pressure counters of Eq. 19), built from the same substrate data
/// the critical path uses:
///   C^queue  = max(W_c / (N_core·Π_core·η), W_r / (k_r·Π_core·η)) / Δ_w with W_c, W_r the work
///              (Ops) mapped to r's chiplet and to r once g joins, and k_r r's cores under the
///              critical path's Eq. 4 split (`replica_core_share`: one core per active replica of
///              the chiplet, the rest in proportion to work; one core each once the chiplet has
///              as many active replicas as cores): the compute service queued for g (Eq. 13);
///   C^path   = for the dispatch route s_g → c_r and the gather route c_r → a_g: the route time of
///              g's bytes (Eq. 7) plus the bytes already mapped onto the most loaded link of the
///              route over its bandwidth (Eq. 8's drain term), / Δ_w;
///   C^bank   = the wait of r's weight stream behind the bytes already streamed from its banks in
///              this layer (the most loaded bank of the span, Eq. 9–10), beyond C^queue:
///              max(0, wait/Δ_w − C^queue);
///   C^stream = the rest of r's weights-ready time — its own stream Lat + S^wt/(span·BW) and
///              memory route (Eq. 10, 12) after the wait — beyond C^queue:
///              max(0, ready/Δ_w − C^queue) − C^bank.
/// The weights stream overlaps the replica's compute (Eq. 15, max(T^comp, T^mem)), so only the
/// memory time that outlasts the queued service delays g; with equal weights the proxy is
/// queue + path + max(0, memory − queue). A replica's wait and ready time are fixed when it
/// opens (its stream is then scheduled); an open replica pays no stream again.
/// Groups are taken in small token blocks: `split_blocks` cuts every group into blocks of at most
/// `block_tokens` tokens (each block a token group of the same expert, source and aggregation
/// chiplet), and the counters are updated after every block, so a hot expert's tokens spread over
/// its replicas instead of following the window-start state. The weights only rank legal
/// replicas (§6.7); latency is what the critical path then gives.
///
/// Simple routings (the baselines' "simple routing", §7.1): `nearest_replica` sends a group to the
/// replica nearest its source chiplet (hops, ties by entry order) and `least_tokens_replica` to the
/// replica with the fewest tokens so far (`chiplet/window.hpp`'s `least_loaded`).

#include <algorithm>  // std::max, std::min
#include <cstddef>    // std::size_t
#include <limits>     // std::numeric_limits
#include <utility>    // std::pair
#include <vector>     // std::vector

#include "strata/chiplet/critical_path.hpp"
#include "strata/chiplet/residency.hpp"
#include "strata/core/error.hpp"

namespace strata {
inline namespace v0 {

/// Weights and block size of the fast token mapper (Eq. 39).
struct fast_map_params {
  /// ω_q. [Design choice: 1 — every term is a time over Δ_w, so equal weights compare like with
  /// like; not fitted to any row]
  double w_queue = 1.0;
  double w_path = 1.0;    ///< ω_p [design choice: 1, as ω_q]
  double w_bank = 1.0;    ///< ω_b [design choice: 1, as ω_q]
  double w_stream = 1.0;  ///< ω_s [design choice: 1, as ω_q]
  /// Token block: counters are updated after every block of at most this many tokens (§6.7
  /// "small token blocks"). [Design choice: 16 — a prefill group of a hot expert (≈ 2048·k/E/16
  /// tokens per source chiplet, 48–200 for the Table 2 models) splits into a few blocks; decode
  /// groups (1–10 tokens) stay whole]
  int block_tokens = 16;

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("w_queue", s.w_queue);
    v("w_path", s.w_path);
    v("w_bank", s.w_bank);
    v("w_stream", s.w_stream);
    v("block_tokens", s.block_tokens);
  }
  friend bool operator==(const fast_map_params&, const fast_map_params&) = default;
};

/// Checks the weights (finite, ≥ 0, not all 0) and the block size (≥ 1); throws `config_error`.
template <class = void>
inline void validate(const fast_map_params& p) {
  constexpr const char* id = "strata.hcrmap.token_mapper";
  detail::require_in(p.w_queue, 0.0, 1e6, id, "w_queue");
  detail::require_in(p.w_path, 0.0, 1e6, id, "w_path");
  detail::require_in(p.w_bank, 0.0, 1e6, id, "w_bank");
  detail::require_in(p.w_stream, 0.0, 1e6, id, "w_stream");
  detail::require(p.w_queue + p.w_path + p.w_bank + p.w_stream > 0.0, id, "w_queue", p.w_queue,
                  "weights not all zero");
  detail::require(p.block_tokens >= 1 && p.block_tokens <= (1 << 20), id, "block_tokens", p.block_tokens,
                  "in [1, 2^20]");
}

/// Cuts every group into blocks of at most `block_tokens` tokens (same layer, expert, source and
/// aggregation chiplet), in order; token counts are conserved.
template <class = void>
inline std::vector<token_group> split_blocks(const std::vector<token_group>& groups, int block_tokens) {
  detail::require(block_tokens >= 1, "strata.hcrmap.token_mapper", "block_tokens", block_tokens, ">= 1");
  std::vector<token_group> out;
  out.reserve(groups.size());
  for (const auto& g : groups) {
    int left = g.tokens;
    do {
      auto b = g;
      b.tokens = std::min(left, block_tokens);
      out.push_back(b);
      left -= b.tokens;
    } while (left > 0);
  }
  return out;
}

/// The four terms of Eq. 39 for one (group, replica) pair, each normalised by Δ_w.
struct token_cost_terms {
  double queue = 0.0, path = 0.0, bank = 0.0, stream = 0.0;
};

/// Algorithm 2's running counters for one layer and the costs they give.
class fast_token_mapper {
 public:
  template <class = void>
  fast_token_mapper(const substrate& s, const moe_layer_shape& shape, const residency& res, const fast_map_params& p = {},
                    const critical_path_params& cp = {})
      : s_(&s), res_(&res), p_(p), shape_(shape), window_(cp.window.si()) {
    validate(p_);
    validate(cp);
    validate(shape);
    core_rate_ = s.core_throughput().si() * cp.tile_utilization * cp.compute_scale;
    cores_ = s.params().cores_per_chiplet;
    chiplet_rate_ = core_rate_ * cores_;
    reset();
  }

  /// Clears the counters (a new layer).
  template <class = void>
  void reset() {
    chiplet_ops_.assign(static_cast<std::size_t>(s_->chiplets()), 0.0);
    replica_ops_.assign(res_->entries().size(), 0.0);
    link_bytes_.assign(s_->links().size(), 0.0);
    bank_bytes_.assign(s_->banks().size(), 0.0);
    active_.assign(res_->entries().size(), 0);
    active_on_.assign(static_cast<std::size_t>(s_->chiplets()), 0);
    wait_.assign(res_->entries().size(), 0.0);
    ready_.assign(res_->entries().size(), 0.0);
  }

  /// Eq. 39's terms for group `g` on directory entry `entry`, under the current counters.
  template <class = void>
  [[nodiscard]] token_cost_terms terms(const token_group& g, int entry) const {
    const auto& e = res_->entries()[static_cast<std::size_t>(entry)];
    const auto& links = s_->links();
    token_cost_terms t;
    const double ops = g.tokens * shape_.flops_per_token.si();
    // Chiplet level, and replica level: the chiplet's cores are split in proportion to work
    // (Eq. 4, at least one each), so a replica's work runs on about N_core·W_r/W_c cores.
    const double w_c = chiplet_ops_[e.chiplet] + ops;
    const double w_r = replica_ops_[static_cast<std::size_t>(entry)] + ops;
    const int n = active_on_[e.chiplet] + (active_[static_cast<std::size_t>(entry)] != 0 ? 0 : 1);
    const double k = replica_core_share(static_cast<int>(cores_), n, w_r, w_c);
    t.queue = std::max(w_c / chiplet_rate_, w_r / (k * core_rate_)) / window_;
    const double bytes = g.tokens * shape_.token_bytes.si();
    const auto [dispatch, gather] = routes_(g.source, e.chiplet, g.aggregate);
    double path = 0.0, drain_d = 0.0, drain_g = 0.0;
    for (const int* u = dispatch.first; u != dispatch.second; ++u) {
      const auto& l = links[static_cast<std::size_t>(*u)];
      path += l.lambda.si() + bytes / l.bandwidth.si();
      drain_d = std::max(drain_d, link_bytes_[static_cast<std::size_t>(*u)] / l.bandwidth.si());
    }
    for (const int* u = gather.first; u != gather.second; ++u) {
      const auto& l = links[static_cast<std::size_t>(*u)];
      path += l.lambda.si() + bytes / l.bandwidth.si();
      drain_g = std::max(drain_g, link_bytes_[static_cast<std::size_t>(*u)] / l.bandwidth.si());
    }
    t.path = (path + drain_d + drain_g) / window_;
    const auto [wait, ready] = memory_(entry);
    // The weights stream overlaps the replica's compute (Eq. 15): only the part of the bank
    // wait and of the stream that outlasts the queued service delays g.
    t.bank = std::max(0.0, wait / window_ - t.queue);
    t.stream = std::max(0.0, ready / window_ - t.queue) - t.bank;
    return t;
  }

  /// Replica `entry`'s weights in this layer: (bank wait, ready time) after the gate, in s — the
  /// traffic already on its banks over their bandwidth, then its own stream (Eq. 10) and memory
  /// route (Eq. 7); fixed once the replica opens.
  template <class = void>
  [[nodiscard]] std::pair<double, double> memory_(int entry) const {
    const auto i = static_cast<std::size_t>(entry);
    if (active_[i] != 0) return {wait_[i], ready_[i]};
    const auto& e = res_->entries()[i];
    const auto& banks = s_->banks();
    const double stripe = shape_.weight_bytes.si() / e.span;
    double wait = 0.0, own = 0.0;
    for (int k = 0; k < e.span; ++k) {
      const auto b = static_cast<std::size_t>(e.bank) + static_cast<std::size_t>(k);
      wait = std::max(wait, bank_bytes_[b] / banks[b].bandwidth.si());
      own = std::max(own, bank_service_time(data_size<>::from_si(stripe), banks[b].latency, banks[b].bandwidth).si());
    }
    route_.clear();
    s_->append_memory_path(e.bank, e.chiplet, route_);
    for (int u : route_) {
      own += link_time(s_->links()[static_cast<std::size_t>(u)].lambda, s_->links()[static_cast<std::size_t>(u)].bandwidth, shape_.weight_bytes).si();
    }
    return {wait, wait + own};
  }

  /// C_tok (Eq. 39).
  template <class = void>
  [[nodiscard]] double cost(const token_group& g, int entry) const {
    const auto t = terms(g, entry);
    return p_.w_queue * t.queue + p_.w_path * t.path + p_.w_bank * t.bank + p_.w_stream * t.stream;
  }

  /// Records group `g` on `entry` (Algorithm 2, line 12): chiplet work, dispatch and gather link
  /// bytes and, when the replica opens, its weight stream on its banks and memory route.
  template <class = void>
  void commit(const token_group& g, int entry) {
    const auto& e = res_->entries()[static_cast<std::size_t>(entry)];
    chiplet_ops_[e.chiplet] += g.tokens * shape_.flops_per_token.si();
    replica_ops_[static_cast<std::size_t>(entry)] += g.tokens * shape_.flops_per_token.si();
    const double bytes = g.tokens * shape_.token_bytes.si();
    const auto [dispatch, gather] = routes_(g.source, e.chiplet, g.aggregate);
    for (const int* u = dispatch.first; u != dispatch.second; ++u) link_bytes_[static_cast<std::size_t>(*u)] += bytes;
    for (const int* u = gather.first; u != gather.second; ++u) link_bytes_[static_cast<std::size_t>(*u)] += bytes;
    auto& a = active_[static_cast<std::size_t>(entry)];
    if (a == 0) {
      const auto [wait, ready] = memory_(entry);
      wait_[static_cast<std::size_t>(entry)] = wait;
      ready_[static_cast<std::size_t>(entry)] = ready;
      a = 1;
      ++active_on_[e.chiplet];
      for (int k = 0; k < e.span; ++k) bank_bytes_[static_cast<std::size_t>(e.bank) + static_cast<std::size_t>(k)] += shape_.weight_bytes.si() / e.span;
      route_.clear();
      s_->append_memory_path(e.bank, e.chiplet, route_);
      for (int u : route_) link_bytes_[static_cast<std::size_t>(u)] += shape_.weight_bytes.si();
    }
  }

  /// Maps one layer's groups (Algorithm 2): entry of each group, lowest C_tok among the legal
  /// replicas, ties by entry order; counters updated after each group (block). Resets first.
  template <class = void>
  [[nodiscard]] std::vector<int> map(const std::vector<token_group>& groups) {
    std::vector<int> out;
    map_into(groups, out);
    return out;
  }
  /// `map` into `out` (its capacity kept): a mapper kept from layer to layer, and from one
  /// directory to the next (`map` resets the counters to the directory's size; the chiplet pairs'
  /// routes it keeps are the substrate's), maps as a new one would.
  template <class = void>
  void map_into(const std::vector<token_group>& groups, std::vector<int>& out) {
    reset();
    out.assign(groups.size(), -1);
    // The legal replicas (`residency::legal`) are read in place: nothing is allocated per group.
    // Groups whose expert has one published replica have no choice: their load is committed
    // first, so the groups with a choice see it.
    for (std::size_t g = 0; g < groups.size(); ++g) {
      int only = -1, n = 0;
      for (int r : res_->of(groups[g].layer, groups[g].expert)) {
        if (res_->published(r)) only = r, ++n;
      }
      detail::require(n > 0, "strata.hcrmap.token_mapper", "residency", groups[g].expert,
                      "a published replica for every routed expert (Eq. 21)");
      if (n == 1) {
        commit(groups[g], only);
        out[g] = only;
      }
    }
    for (std::size_t g = 0; g < groups.size(); ++g) {
      if (out[g] >= 0) continue;
      int best = -1;
      double best_cost = std::numeric_limits<double>::infinity();
      for (int r : res_->of(groups[g].layer, groups[g].expert)) {
        if (!res_->published(r)) continue;
        const double c = cost(groups[g], r);
        if (best < 0 || c < best_cost) {
          best_cost = c;
          best = r;
        }
      }
      commit(groups[g], best);
      out[g] = best;
    }
  }

 private:
  struct pair_span {
    std::size_t begin = 0, end = 0;  // the pair's links in pair_links_
    bool known = false;
  };
  using link_range = std::pair<const int*, const int*>;
  /// The dispatch route `source` → `chiplet` and the gather route `chiplet` → `aggregate`
  /// (`append_pair_`'s links, in order), read in place from the kept pair routes, or from the
  /// scratch route when a pair is not kept (beyond 256 chiplets).
  template <class = void>
  std::pair<link_range, link_range> routes_(int source, int chiplet, int aggregate) const {
    const pair_span* d = kept_pair_(source, chiplet);
    const pair_span* g = d != nullptr ? kept_pair_(chiplet, aggregate) : nullptr;
    if (g != nullptr) {  // both kept: pair_links_ grows no more until the next call
      const int* base = pair_links_.data();
      return {{base + d->begin, base + d->end}, {base + g->begin, base + g->end}};
    }
    route_.clear();
    append_pair_(source, chiplet, route_);
    const std::size_t dispatch_end = route_.size();
    append_pair_(chiplet, aggregate, route_);
    const int* base = route_.data();
    return {{base, base + dispatch_end}, {base + dispatch_end, base + route_.size()}};
  }
  /// The kept route of chiplet pair (a, b), taken from the substrate on its first use; null when
  /// pairs are not kept (beyond 256 chiplets, or an id off the mesh).
  template <class = void>
  const pair_span* kept_pair_(int a, int b) const {
    const int C = s_->chiplets();
    if (C > 256 || a < 0 || b < 0 || a >= C || b >= C) return nullptr;
    const auto n = static_cast<std::size_t>(C);
    if (pair_at_.empty()) pair_at_.assign(n * n, pair_span{});
    auto& at = pair_at_[static_cast<std::size_t>(a) * n + static_cast<std::size_t>(b)];
    if (!at.known) {
      at.begin = pair_links_.size();
      s_->append_route(a, b, pair_links_);
      at.end = pair_links_.size();
      at.known = true;
    }
    return &at;
  }
  /// Appends the route from compute chiplet `a` to `b` (`substrate::append_route`'s links), each
  /// pair's taken from the substrate once per mapper (up to 256 chiplets; beyond, every time).
  template <class = void>
  void append_pair_(int a, int b, std::vector<int>& out) const {
    const pair_span* at = kept_pair_(a, b);
    if (at == nullptr) {
      s_->append_route(a, b, out);
      return;
    }
    out.insert(out.end(), pair_links_.begin() + static_cast<std::ptrdiff_t>(at->begin),
               pair_links_.begin() + static_cast<std::ptrdiff_t>(at->end));
  }

  const substrate* s_;
  const residency* res_;
  fast_map_params p_;
  moe_layer_shape shape_;
  double window_ = 1e-3;
  double chiplet_rate_ = 1.0, core_rate_ = 1.0, cores_ = 1.0;
  std::vector<double> replica_ops_, chiplet_ops_, link_bytes_, bank_bytes_;
  std::vector<char> active_;
  std::vector<int> active_on_;  // active replicas per chiplet
  std::vector<double> wait_, ready_;  // per entry once open: bank wait and weights-ready time (s)
  mutable std::vector<int> route_;  // scratch route buffer (allocation-free after the first use)
  mutable std::vector<pair_span> pair_at_;  // per (a, b) chiplet pair, once taken
  mutable std::vector<int> pair_links_;
};

/// Simple routing: each group to the published replica of its expert nearest its source chiplet
/// (hop count; ties by entry order).
template <class = void>
inline std::vector<int> nearest_replica(const substrate& s, const residency& res, const std::vector<token_group>& groups) {
  std::vector<int> out(groups.size(), -1);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    // The legal replicas (`residency::legal`) read in place, in entry order.
    int best = -1, best_h = std::numeric_limits<int>::max();
    for (int r : res.of(groups[g].layer, groups[g].expert)) {
      if (!res.published(r)) continue;
      const int h = s.hops(groups[g].source, res.entries()[static_cast<std::size_t>(r)].chiplet);
      if (best < 0 || h < best_h) {
        best_h = h;
        best = r;
      }
    }
    detail::require(best >= 0, "strata.hcrmap.token_mapper", "residency", groups[g].expert,
                    "a published replica for every routed expert (Eq. 21)");
    out[g] = best;
  }
  return out;
}

/// Simple balancing: each group to the published replica with the fewest tokens so far in this
/// layer (ties by entry order).
template <class = void>
inline std::vector<int> least_tokens_replica(const residency& res, const std::vector<token_group>& groups) {
  std::vector<double> load(res.entries().size(), 0.0);
  std::vector<int> out(groups.size(), -1);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    // The legal replicas (`residency::legal`) read in place, in entry order.
    int best = -1;
    for (int r : res.of(groups[g].layer, groups[g].expert)) {
      if (!res.published(r)) continue;
      if (best < 0 || load[static_cast<std::size_t>(r)] < load[static_cast<std::size_t>(best)]) best = r;
    }
    detail::require(best >= 0, "strata.hcrmap.token_mapper", "residency", groups[g].expert,
                    "a published replica for every routed expert (Eq. 21)");
    load[static_cast<std::size_t>(best)] += groups[g].tokens;
    out[g] = best;
  }
  return out;
}

}  // namespace v0
}  // namespace strata
