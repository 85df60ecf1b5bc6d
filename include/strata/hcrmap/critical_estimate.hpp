// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The slow controller's closed-form estimate of a layer's critical path and of an action's
/// one-step benefit (§6.4), read from the critical path of the window just served.
///
/// The layer's time is read as
///   T^MoE_l ≈ t_gate + tail + max(max_c busy_c, max_e mem_e)
/// with busy_c the compute service of chiplet c's replicas (Eq. 13 at chiplet level: Σ N_r·Ops /
/// (N_core·Π_core·η)), mem_e the weights-ready time of expert e's replicas after the gate, and
/// tail the rest of the measured T^MoE_l (dispatch, gather, combine; ≥ 0). An action changes
/// busy and mem. Several chiplets or experts are often near the maximum, so one action rarely
/// moves the max itself: the benefit is the decrease of the near-critical excess — the sum of
/// the terms above τ = 0.75·bound over the number of terms above τ before the action (the
/// expected drop of the max once the near-critical terms are relieved) — the loss its increase:
///   promote e to c:  each replica r of e gives N_r/(n + 1) tokens to the new copy on c, whose
///                    stream (Eq. 10 with the bank's observed traffic, plus its memory route) is
///                    a new mem term; benefit × min(1, d̄/d) (a burst is discounted)
///   evict r:         r's tokens go evenly to the other replicas of e
///   demote r:        r's stream becomes the slower tier's
/// After an action is applied the bound is updated, so later decisions see it.

#include <algorithm>  // std::max
#include <cstddef>    // std::size_t
#include <vector>     // std::vector

#include "strata/chiplet/critical_path.hpp"
#include "strata/chiplet/residency.hpp"
#include "strata/chiplet/substrate.hpp"
#include "strata/hcrmap/layer_eval.hpp"

namespace strata {
inline namespace v0 {
namespace detail {

/// One observed layer of a served window: its evaluation and the terms of the bound.
struct layer_obs {
  int layer = 0;
  directory_layer_eval eval;  // a copy: the caller's evaluations need not outlive the call
  double t_moe = 0.0, t_gate = 0.0, mean_demand = 0.0;
  double tail = 0.0;
  std::vector<double> demand, src, finish, ready, busy, tokens, comp, cores;
  std::vector<int> active;  ///< active replicas per chiplet (Eq. 4's split counts them)
};

/// The bound of the file comment over observed layers of one residency.
class critical_estimate {
 public:
  critical_estimate(const substrate& s, const residency& res, const moe_layer_shape& shape, const critical_path_params& cp)
      : s_(&s), res_(&res), shape_(shape), cp_(cp) {}

  /// Service rate of one core (FLOP/s).
  [[nodiscard]] double core_rate() const {
    return s_->core_throughput().si() * cp_.tile_utilization * cp_.compute_scale;
  }
  /// Service rate of the cores of one chiplet (FLOP/s).
  [[nodiscard]] double chiplet_rate() const {
    return s_->core_throughput().si() * cp_.tile_utilization * cp_.compute_scale * s_->params().cores_per_chiplet;
  }
  /// max(max_c busy_c, max_e mem_e) of the bound in the file comment.
  [[nodiscard]] static double bound(const layer_obs& o) {
    double b = 0.0;
    for (double x : o.busy) b = std::max(b, x);
    for (double x : o.comp) b = std::max(b, x);
    for (double x : o.ready) b = std::max(b, x - o.t_gate);
    return b;
  }
  /// Tokens the observed window sent to residency entry `entry`.
  [[nodiscard]] double entry_tokens(const layer_obs& o, int entry) const {
    return static_cast<std::size_t>(entry) < o.tokens.size() ? o.tokens[static_cast<std::size_t>(entry)] : 0.0;
  }
  /// The bound after promoting e to `c` (stream `mem_new` after the gate), or with `evict` ≥ 0
  /// after retiring that replica; `apply` makes the change in `o`.
  [[nodiscard]] double bound_after(layer_obs& o, int e, int target_chiplet, double mem_new, int evict, bool apply) const {
    const auto legal = res_->legal(o.layer, e);
    const double n = double(legal.size());
    const double per_tok = shape_.flops_per_token.si() / chiplet_rate();
    const double tok_core = shape_.flops_per_token.si() / core_rate();
    const int cores = s_->params().cores_per_chiplet;
    std::vector<double> busy = o.busy;
    std::vector<double> tok = o.tokens, comp = o.comp, kc = o.cores;
    const std::size_t fresh = res_->entries().size();
    tok.resize(fresh + 1, 0.0);
    comp.resize(fresh + 1, 0.0);
    kc.resize(fresh + 1, 0.0);
    const auto k_of = [&](std::size_t r) { return std::max(1.0, kc[r]); };
    if (evict < 0) {
      double moved = 0.0;
      for (int r : legal) {
        const auto ri = static_cast<std::size_t>(r);
        const double give = tok[ri] / (n + 1.0);
        busy[res_->entries()[ri].chiplet] -= give * per_tok;
        tok[ri] -= give;
        comp[ri] = tok[ri] * tok_core / k_of(ri);
        moved += give;
      }
      // The new copy's cores: Eq. 4's split as the critical path makes it (`replica_core_share`),
      // one more active replica on its chiplet.
      // (The replicas that give tokens keep some, so none of them goes idle.)
      const double w_c = busy[static_cast<std::size_t>(target_chiplet)] + moved * per_tok;
      const int active = 1 + (static_cast<std::size_t>(target_chiplet) < o.active.size() ? o.active[static_cast<std::size_t>(target_chiplet)] : 0);
      kc[fresh] = replica_core_share(cores, active, moved * per_tok, w_c);
      busy[static_cast<std::size_t>(target_chiplet)] = w_c;
      tok[fresh] = moved;
      comp[fresh] = moved * tok_core / kc[fresh];
    } else {
      const auto ei = static_cast<std::size_t>(evict);
      const double mine = tok[ei];
      busy[res_->entries()[ei].chiplet] -= mine * per_tok;
      tok[ei] = 0.0;
      comp[ei] = 0.0;
      for (int r : legal) {
        if (r == evict || n < 2.0) continue;
        const auto ri = static_cast<std::size_t>(r);
        busy[res_->entries()[ri].chiplet] += mine / (n - 1.0) * per_tok;
        tok[ri] += mine / (n - 1.0);
        comp[ri] = tok[ri] * tok_core / k_of(ri);
      }
    }
    std::vector<double> ready = o.ready;
    if (mem_new > 0.0) ready[static_cast<std::size_t>(e)] = std::max(ready[static_cast<std::size_t>(e)], o.t_gate + mem_new);
    const double x = excess(o, busy, ready, comp);
    if (apply) {
      // Active replicas per chiplet: the new copy joins its chiplet; an evicted replica that
      // served tokens leaves its chiplet's count.
      if (static_cast<std::size_t>(target_chiplet) < o.active.size() && evict < 0 && tok[fresh] > 0.0) {
        ++o.active[static_cast<std::size_t>(target_chiplet)];
      }
      if (evict >= 0 && o.tokens.size() > static_cast<std::size_t>(evict) && o.tokens[static_cast<std::size_t>(evict)] > 0.0) {
        const auto c = static_cast<std::size_t>(res_->entries()[static_cast<std::size_t>(evict)].chiplet);
        if (c < o.active.size() && o.active[c] > 0) --o.active[c];
      }
      o.busy = std::move(busy);
      o.tokens = std::move(tok);
      o.comp = std::move(comp);
      o.cores = std::move(kc);
      o.ready = std::move(ready);
      o.t_moe = o.t_gate + o.tail + bound(o);
    }
    return x;
  }
  /// Near-critical excess of a layer (the file comment): Σ of the busy and mem terms above
  /// τ = (1 − band)·(the bound now), over the number of terms above τ now.
  [[nodiscard]] double excess(const layer_obs& o, const std::vector<double>& busy, const std::vector<double>& ready,
                               const std::vector<double>& comp) const {
    const double tau = (1.0 - critical_band) * bound(o);
    double x = 0.0;
    int k = 0;
    for (double b : o.busy) k += b > tau ? 1 : 0;
    for (double c : o.comp) k += c > tau ? 1 : 0;
    for (double r : o.ready) k += r - o.t_gate > tau ? 1 : 0;
    for (double b : busy) x += std::max(0.0, b - tau);
    for (double c : comp) x += std::max(0.0, c - tau);
    for (double r : ready) x += std::max(0.0, r - o.t_gate - tau);
    return x / std::max(1, k);
  }
  /// The excess with the layer's own terms.
  [[nodiscard]] double excess(const layer_obs& o) const { return excess(o, o.busy, o.ready, o.comp); }
  /// Band below the bound whose terms count as near-critical. [Design choice: 0.25]
  static constexpr double critical_band = 0.25;

 private:
  const substrate* s_;
  const residency* res_;
  moe_layer_shape shape_;
  critical_path_params cp_;
};

}  // namespace detail
}  // namespace v0
}  // namespace strata
