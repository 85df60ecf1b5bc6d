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
///   evict r:         r's tokens go evenly to the other replicas of e, and r's stream leaves
///   demote r:        r's stream becomes the slower tier's
///   move r to c:     (a promote or demote that moves, `bound_after_move`) r's tokens all go to
///                    the new copy on c; r's stream leaves its span, the copy's joins c's
/// A stream that joins or leaves a bank span moves the other streams of those banks: each bank
/// serves its accesses FCFS (Eq. 10), so every stream of the span's banks that completes after
/// the joining stream's slot is later by that stream's service on the bank, and every stream
/// behind a leaving one is earlier by it. (Without this, a copy's stream looked free whenever it
/// alone finished before the bound, while it pushed the bank's last stream past the bound: a
/// memory-bound decode layer got slower from copies the estimate called gains.)
/// An action that pushes a term past the bound is charged the whole rise of the bound: the layer
/// waits for its slowest term, however many others are relieved.
/// After an action is applied the bound is updated, so later decisions see it.

#include <algorithm>  // std::max, std::min, std::fill, std::remove, std::sort, std::unique
#include <atomic>     // std::atomic (the summaries' stamps)
#include <cstddef>    // std::size_t
#include <cstdint>    // std::uint64_t
#include <vector>     // std::vector

#include "strata/chiplet/critical_path.hpp"
#include "strata/chiplet/residency.hpp"
#include "strata/chiplet/substrate.hpp"
#include "strata/hcrmap/layer_eval.hpp"
#include "strata/hcrmap/placement.hpp"

namespace strata {
inline namespace v0 {
namespace detail {

/// One observed layer of a served window: its evaluation and the terms of the bound.
struct layer_obs {
  int layer = 0;
  /// What decisions read of the layer's evaluation, copied (`residency_controller::keep_observed_`:
  /// the per-group vectors are left empty): the caller's evaluations need not outlive the call.
  directory_layer_eval eval;
  double t_moe = 0.0, t_gate = 0.0, mean_demand = 0.0;
  double tail = 0.0;
  std::vector<double> demand, src, finish, ready, busy, tokens, comp, cores;
  std::vector<int> active;  ///< active replicas per chiplet (Eq. 4's split counts them)
  std::vector<int> streams;        ///< directory entries whose weights the window streamed
  std::vector<double> rep_ready;   ///< weights-ready time per directory entry (s; 0: not streamed)
  std::vector<double> bank_bytes;  ///< per bank: the window's traffic (Eq. 9) and applied actions' streams
  // The estimate's summary of the terms above, taken once per state of them (every candidate of
  // a decision is weighed against the same layer): the bound, τ, the near-critical count, the
  // excess of the own terms and the compute terms above τ, in index order. `stamp` is 0 until
  // the summary is taken and again once the estimate changes the terms (`apply`); the terms are
  // written only where the observation is built and by the estimate's `apply`.
  mutable std::uint64_t stamp = 0;
  mutable double sum_bound = 0.0, sum_tau = 0.0, sum_excess = 0.0;
  mutable int sum_near = 0;
  mutable std::vector<int> sum_above;
};

/// A process-wide source of summary stamps: an estimate's buffers are keyed by the stamp of the
/// layer they mirror, so two layers never share one, whichever estimate took their summaries.
template <class = void>
inline std::uint64_t next_obs_stamp() {
  static std::atomic<std::uint64_t> n{0};
  return n.fetch_add(1, std::memory_order_relaxed) + 1;
}

/// The bound of the file comment over observed layers of one residency.
class critical_estimate {
 public:
  critical_estimate(const substrate& s, const residency& res, const moe_layer_shape& shape, const critical_path_params& cp)
      : s_(&s), res_(&res), shape_(shape), cp_(cp) {}

  /// Service rate of one core (FLOP/s).
  template <class = void>
  [[nodiscard]] double core_rate() const {
    return s_->core_throughput().si() * cp_.tile_utilization * cp_.compute_scale;
  }
  /// Service rate of the cores of one chiplet (FLOP/s).
  template <class = void>
  [[nodiscard]] double chiplet_rate() const {
    return s_->core_throughput().si() * cp_.tile_utilization * cp_.compute_scale * s_->params().cores_per_chiplet;
  }
  /// max(max_c busy_c, max_e mem_e) of the bound in the file comment.
  template <class = void>
  [[nodiscard]] static double bound(const layer_obs& o) { return bound(o.busy, o.comp, o.ready, o.t_gate); }
  /// The same max over given terms.
  template <class = void>
  [[nodiscard]] static double bound(const std::vector<double>& busy, const std::vector<double>& comp,
                                    const std::vector<double>& ready, double t_gate) {
    double b = 0.0;
    for (double x : busy) b = std::max(b, x);
    for (double x : comp) b = std::max(b, x);
    for (double x : ready) b = std::max(b, x - t_gate);
    return b;
  }
  /// Tokens the observed window sent to residency entry `entry`.
  template <class = void>
  [[nodiscard]] double entry_tokens(const layer_obs& o, int entry) const {
    return static_cast<std::size_t>(entry) < o.tokens.size() ? o.tokens[static_cast<std::size_t>(entry)] : 0.0;
  }
  /// The bound after promoting e to `target` (its stream ready `mem_new` after the gate), or with
  /// `evict` ≥ 0 after retiring that replica; `apply` makes the change in `o`.
  template <class = void>
  [[nodiscard]] double bound_after(layer_obs& o, int e, const place_candidate& target, double mem_new, int evict,
                                   bool apply) const {
    const int target_chiplet = target.chiplet;
    const auto& all = res_->of(o.layer, e);  // its published entries are the legal replicas
    int n_legal = 0;
    for (int r : all) n_legal += res_->published(r) ? 1 : 0;
    const double n = double(n_legal);
    const double per_tok = shape_.flops_per_token.si() / chiplet_rate();
    const double tok_core = shape_.flops_per_token.si() / core_rate();
    const int cores = s_->params().cores_per_chiplet;
    // The terms after the change, in the estimate's reusable buffers (this runs for every
    // candidate of every expert the controller weighs); `apply` swaps them into `o`.
    auto& busy = ws_.busy;
    auto& tok = ws_.tok;
    auto& comp = ws_.comp;
    auto& kc = ws_.kc;
    const std::size_t fresh = load_terms_(o, e, evict);
    const auto k_of = [&](std::size_t r) { return std::max(1.0, kc[r]); };
    if (evict < 0) {
      double moved = 0.0;
      for (int r : all) {
        if (!res_->published(r)) continue;
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
      for (int r : all) {
        if (!res_->published(r) || r == evict || n < 2.0) continue;
        const auto ri = static_cast<std::size_t>(r);
        busy[res_->entries()[ri].chiplet] += mine / (n - 1.0) * per_tok;
        tok[ri] += mine / (n - 1.0);
        comp[ri] = tok[ri] * tok_core / k_of(ri);
      }
    }
    // Streams: the new copy's joins its span; an evicted replica's leaves its span.
    auto& rep = ws_.rep;
    bool moved_streams = false;
    if (evict < 0 && mem_new > 0.0 && tok[fresh] > 0.0) {
      rep[fresh] = o.t_gate + mem_new;
      shift_streams_(o, rep, target.bank, target.span, rep[fresh], +1.0, fresh);
      moved_streams = true;
    } else if (evict >= 0 && static_cast<std::size_t>(evict) < o.rep_ready.size() && o.rep_ready[static_cast<std::size_t>(evict)] > 0.0) {
      const auto& de = res_->entries()[static_cast<std::size_t>(evict)];
      const double at = rep[static_cast<std::size_t>(evict)];
      rep[static_cast<std::size_t>(evict)] = 0.0;
      shift_streams_(o, rep, de.bank, de.span, at, -1.0, fresh);
      moved_streams = true;
    }
    auto& ready = ws_.ready;
    ready.assign(o.ready.begin(), o.ready.end());
    if (moved_streams) {
      std::fill(ready.begin(), ready.end(), 0.0);
      for (int r : o.streams) {
        const auto ri = static_cast<std::size_t>(r);
        const auto ex = static_cast<std::size_t>(res_->entries()[ri].expert);
        ready[ex] = std::max(ready[ex], rep[ri]);
      }
      if (evict < 0) ready[static_cast<std::size_t>(e)] = std::max(ready[static_cast<std::size_t>(e)], rep[fresh]);
    }
    const double x = excess_after_(o);
    if (!apply) {
      restore_terms_(o);
      return x;
    }
    {
      // Active replicas per chiplet: the new copy joins its chiplet; an evicted replica that
      // served tokens leaves its chiplet's count.
      if (static_cast<std::size_t>(target_chiplet) < o.active.size() && evict < 0 && tok[fresh] > 0.0) {
        ++o.active[static_cast<std::size_t>(target_chiplet)];
      }
      if (evict >= 0 && o.tokens.size() > static_cast<std::size_t>(evict) && o.tokens[static_cast<std::size_t>(evict)] > 0.0) {
        const auto c = static_cast<std::size_t>(res_->entries()[static_cast<std::size_t>(evict)].chiplet);
        if (c < o.active.size() && o.active[c] > 0) --o.active[c];
      }
      if (moved_streams) {
        const double wt = res_->expert_bytes().si();
        if (evict < 0) {
          o.streams.push_back(static_cast<int>(fresh));
          for (int k = 0; k < target.span; ++k) o.bank_bytes[static_cast<std::size_t>(target.bank) + static_cast<std::size_t>(k)] += wt / target.span;
        } else {
          const auto& de = res_->entries()[static_cast<std::size_t>(evict)];
          o.streams.erase(std::remove(o.streams.begin(), o.streams.end(), evict), o.streams.end());
          for (int k = 0; k < de.span; ++k) {
            auto& q = o.bank_bytes[static_cast<std::size_t>(de.bank) + static_cast<std::size_t>(k)];
            q = std::max(0.0, q - wt / de.span);
          }
        }
        o.rep_ready.swap(rep);
      }
      store_terms_(o, ready);
    }
    return x;
  }
  /// The bound after moving replica `from` of expert e to `target` (a promote or demote that
  /// moves, §6.3: "promote moves or creates a replica", "demote moves a replica"): `from`'s
  /// tokens go to the new copy on `target.chiplet` (one more active replica there, Eq. 4's split;
  /// one fewer on `from`'s chiplet if it served tokens), `from`'s stream leaves its span and the
  /// new copy's (ready `mem_new` after the gate) joins `target`'s, each moving the streams behind
  /// it on a shared bank (file comment). `apply` makes the change in `o` (the new copy is the
  /// entry appended next, as `residency::begin_copy` appends it).
  template <class = void>
  [[nodiscard]] double bound_after_move(layer_obs& o, int e, int from, const place_candidate& target, double mem_new,
                                        bool apply) const {
    const auto fi = static_cast<std::size_t>(from);
    const auto& src = res_->entries()[fi];
    const auto tc = static_cast<std::size_t>(target.chiplet);
    const double per_tok = shape_.flops_per_token.si() / chiplet_rate();
    const double tok_core = shape_.flops_per_token.si() / core_rate();
    auto& busy = ws_.busy;
    auto& tok = ws_.tok;
    auto& comp = ws_.comp;
    auto& kc = ws_.kc;
    const std::size_t fresh = load_terms_(o, e, from);
    const double mine = tok[fi];
    busy[src.chiplet] -= mine * per_tok;
    tok[fi] = 0.0;
    comp[fi] = 0.0;
    const bool left_chiplet = mine > 0.0 && src.chiplet == target.chiplet;  // the mover leaves the count it joins
    const int active = 1 + (tc < o.active.size() ? o.active[tc] : 0) - (left_chiplet ? 1 : 0);
    const double w_c = busy[tc] + mine * per_tok;
    kc[fresh] = replica_core_share(s_->params().cores_per_chiplet, std::max(1, active), mine * per_tok, w_c);
    busy[tc] = w_c;
    tok[fresh] = mine;
    comp[fresh] = mine * tok_core / kc[fresh];
    auto& rep = ws_.rep;
    const bool streamed = fi < o.rep_ready.size() && o.rep_ready[fi] > 0.0;
    if (streamed) {
      const double at = rep[fi];
      rep[fi] = 0.0;
      shift_streams_(o, rep, src.bank, src.span, at, -1.0, fresh);
    }
    const bool joins = mem_new > 0.0 && mine > 0.0;
    if (joins) {
      rep[fresh] = o.t_gate + mem_new;
      shift_streams_(o, rep, target.bank, target.span, rep[fresh], +1.0, fresh);
    }
    auto& ready = ws_.ready;
    ready.assign(o.ready.begin(), o.ready.end());
    if (streamed || joins) {
      std::fill(ready.begin(), ready.end(), 0.0);
      for (int r : o.streams) {
        const auto ri = static_cast<std::size_t>(r);
        const auto ex = static_cast<std::size_t>(res_->entries()[ri].expert);
        ready[ex] = std::max(ready[ex], rep[ri]);
      }
      ready[static_cast<std::size_t>(e)] = std::max(ready[static_cast<std::size_t>(e)], rep[fresh]);
    }
    const double x = excess_after_(o);
    if (!apply) {
      restore_terms_(o);
      return x;
    }
    {
      if (mine > 0.0) {
        const auto sc = static_cast<std::size_t>(src.chiplet);
        if (sc < o.active.size() && o.active[sc] > 0) --o.active[sc];
        if (tc < o.active.size()) ++o.active[tc];
      }
      const double wt = res_->expert_bytes().si();
      if (streamed) {
        o.streams.erase(std::remove(o.streams.begin(), o.streams.end(), from), o.streams.end());
        for (int k = 0; k < src.span; ++k) {
          auto& q = o.bank_bytes[static_cast<std::size_t>(src.bank) + static_cast<std::size_t>(k)];
          q = std::max(0.0, q - wt / src.span);
        }
      }
      if (joins) {
        o.streams.push_back(static_cast<int>(fresh));
        for (int k = 0; k < target.span; ++k) o.bank_bytes[static_cast<std::size_t>(target.bank) + static_cast<std::size_t>(k)] += wt / target.span;
      }
      o.rep_ready.swap(rep);
      store_terms_(o, ready);
    }
    return x;
  }
  /// Near-critical excess of a layer (the file comment): Σ of the busy and mem terms above
  /// τ = (1 − band)·(the bound now), over the number of terms above τ now.
  template <class = void>
  [[nodiscard]] double excess(const layer_obs& o, const std::vector<double>& busy, const std::vector<double>& ready,
                               const std::vector<double>& comp) const {
    summary_(o);
    return excess_over_(o, o.sum_tau, o.sum_near, busy, ready, comp);
  }
  /// The excess with the layer's own terms.
  template <class = void>
  [[nodiscard]] double excess(const layer_obs& o) const { return summary_(o).sum_excess; }
  /// Band below the bound whose terms count as near-critical. [Design choice: 0.25]
  static constexpr double critical_band = 0.25;

 private:
  // The layer's summary (`layer_obs::stamp`), taken if it is not.
  template <class = void>
  const layer_obs& summary_(const layer_obs& o) const {
    if (o.stamp != 0) return o;
    o.sum_bound = bound(o);
    o.sum_tau = (1.0 - critical_band) * o.sum_bound;
    o.sum_near = near_critical_(o, o.sum_tau);
    o.sum_excess = excess_over_(o, o.sum_tau, o.sum_near, o.busy, o.ready, o.comp);
    o.sum_above.clear();
    for (std::size_t i = 0; i < o.comp.size(); ++i) {
      if (o.comp[i] > o.sum_tau) o.sum_above.push_back(static_cast<int>(i));
    }
    o.stamp = next_obs_stamp();
    return o;
  }
  // The workspace's busy, token, compute, core and stream terms as `o`'s, one slot beyond the
  // directory's entries for a fresh copy; returns the directory's entry count. The entry-indexed
  // terms are copied only when the workspace does not mirror `o` already: a priced candidate
  // writes them only at the entries of expert e, at `extra` (an evicted or moved replica) and at
  // the fresh slot (`ws_.dirty`), and at the streams of `o` (`shift_streams_`), which
  // `restore_terms_` puts back.
  template <class = void>
  std::size_t load_terms_(const layer_obs& o, int e, int extra) const {
    summary_(o);
    const std::size_t fresh = res_->entries().size();
    ws_.busy.assign(o.busy.begin(), o.busy.end());
    if (ws_.stamp != o.stamp || ws_.fresh != fresh) {
      ws_.tok.assign(o.tokens.begin(), o.tokens.end());
      ws_.comp.assign(o.comp.begin(), o.comp.end());
      ws_.kc.assign(o.cores.begin(), o.cores.end());
      ws_.rep.assign(o.rep_ready.begin(), o.rep_ready.end());
      ws_.tok.resize(fresh + 1, 0.0);
      ws_.comp.resize(fresh + 1, 0.0);
      ws_.kc.resize(fresh + 1, 0.0);
      ws_.rep.resize(fresh + 1, 0.0);
      ws_.stamp = o.stamp;
      ws_.fresh = fresh;
    }
    auto& d = ws_.dirty;
    d.clear();
    for (int r : res_->of(o.layer, e)) d.push_back(static_cast<std::size_t>(r));
    if (extra >= 0) d.push_back(static_cast<std::size_t>(extra));
    d.push_back(fresh);
    std::sort(d.begin(), d.end());
    d.erase(std::unique(d.begin(), d.end()), d.end());
    while (!d.empty() && d.back() > fresh) d.pop_back();
    return fresh;
  }
  // The entry-indexed terms a priced candidate wrote (`load_terms_`) put back to `o`'s.
  template <class = void>
  void restore_terms_(const layer_obs& o) const {
    const auto put = [](std::vector<double>& w, const std::vector<double>& from, std::size_t i) {
      w[i] = i < from.size() ? from[i] : 0.0;
    };
    for (std::size_t i : ws_.dirty) {
      put(ws_.tok, o.tokens, i);
      put(ws_.comp, o.comp, i);
      put(ws_.kc, o.cores, i);
      put(ws_.rep, o.rep_ready, i);
    }
    for (int r : o.streams) {
      if (static_cast<std::size_t>(r) < ws_.rep.size()) put(ws_.rep, o.rep_ready, static_cast<std::size_t>(r));
    }
  }
  // The workspace's terms and `ready` swapped into `o` (the change applied), and its bound anew;
  // the workspace mirrors no layer after, and `o` needs a new summary.
  template <class = void>
  void store_terms_(layer_obs& o, std::vector<double>& ready) const {
    o.busy.swap(ws_.busy);
    o.tokens.swap(ws_.tok);
    o.comp.swap(ws_.comp);
    o.cores.swap(ws_.kc);
    o.ready.swap(ready);
    o.t_moe = o.t_gate + o.tail + bound(o);
    o.stamp = 0;
    ws_.stamp = 0;
  }
  /// The file comment's FCFS shift: a stream of one expert's weights striped over (bank, span),
  /// ready at `at`, joins (`sign` +1) or leaves (−1) those banks. Every other streamed entry of
  /// `o` whose span shares a bank and that completes after the joining stream's slot on it
  /// (after `at` − its service there) or behind the leaving stream (after `at`) moves by the
  /// stream's service on the shared bank (the largest, if it shares several); `skip` is left.
  template <class = void>
  void shift_streams_(const layer_obs& o, std::vector<double>& rep, int bank, int span, double at, double sign,
                      std::size_t skip) const {
    const auto stripe = data_size<>::from_si(res_->expert_bytes().si() / std::max(1, span));
    for (int r : o.streams) {
      const auto ri = static_cast<std::size_t>(r);
      if (ri == skip || rep[ri] <= 0.0) continue;
      const auto& de = res_->entries()[ri];
      const int lo = std::max(bank, int(de.bank)), hi = std::min(bank + span, int(de.bank) + int(de.span));
      double shift = 0.0;
      for (int b = lo; b < hi; ++b) {
        const auto& bk = s_->banks()[static_cast<std::size_t>(b)];
        const double own = bank_service_time(stripe, bk.latency, bk.bandwidth).si();
        if (rep[ri] > (sign > 0.0 ? at - own : at)) shift = std::max(shift, own);
      }
      rep[ri] = std::max(o.t_gate, rep[ri] + sign * shift);
    }
  }

  /// The near-critical excess after a change to the terms of `o` (the workspace's busy, ready
  /// and comp, `load_terms_`). A term pushed past the bound raises the layer's time by all of its
  /// excess: the relief of the other near-critical terms cannot hide it. (`excess` of the changed
  /// and of the own terms, with `o`'s bound and near-critical count from its summary.)
  ///
  /// Only the compute terms above τ in `o` and the ones the candidate wrote (`ws_.dirty`) are
  /// read: every other compute term is `o`'s, at most τ, so it adds exactly +0.0 to the excess
  /// (the sum keeps its index order over the terms that add), and at most `o`'s bound, so the
  /// bound rises past `o`'s only if a written term, a busy or a mem term does, and then to their
  /// largest.
  template <class = void>
  [[nodiscard]] double excess_after_(const layer_obs& o) const {
    const auto& busy = ws_.busy;
    const auto& ready = ws_.ready;
    const auto& comp = ws_.comp;
    const auto& d = ws_.dirty;
    const auto& a = o.sum_above;
    const double bound_o = o.sum_bound;
    const double tau = o.sum_tau;
    double x = 0.0, top = 0.0;
    for (double b : busy) {
      x += std::max(0.0, b - tau);
      top = std::max(top, b);
    }
    std::size_t i = 0, j = 0;
    const std::size_t n = comp.size();
    while (i < a.size() || j < d.size()) {
      std::size_t k;
      if (j >= d.size() || (i < a.size() && static_cast<std::size_t>(a[i]) < d[j])) {
        k = static_cast<std::size_t>(a[i++]);
      } else {
        k = d[j++];
        if (i < a.size() && static_cast<std::size_t>(a[i]) == k) ++i;
        if (k < n) top = std::max(top, comp[k]);
      }
      if (k < n) x += std::max(0.0, comp[k] - tau);
    }
    for (double r : ready) {
      x += std::max(0.0, r - o.t_gate - tau);
      top = std::max(top, r - o.t_gate);
    }
    const double x_after = x / std::max(1, o.sum_near);
    const double raised = top - bound_o;
    return top > bound_o ? std::max(x_after, o.sum_excess + raised) : x_after;
  }
  /// The terms of `o` above τ: the count the excess divides by.
  template <class = void>
  static int near_critical_(const layer_obs& o, double tau) {
    int k = 0;
    for (double b : o.busy) k += b > tau ? 1 : 0;
    for (double c : o.comp) k += c > tau ? 1 : 0;
    for (double r : o.ready) k += r - o.t_gate > tau ? 1 : 0;
    return k;
  }
  /// Σ of the given terms above τ, over `k` (at least 1).
  template <class = void>
  static double excess_over_(const layer_obs& o, double tau, int k, const std::vector<double>& busy,
                             const std::vector<double>& ready, const std::vector<double>& comp) {
    double x = 0.0;
    for (double b : busy) x += std::max(0.0, b - tau);
    for (double c : comp) x += std::max(0.0, c - tau);
    for (double r : ready) x += std::max(0.0, r - o.t_gate - tau);
    return x / std::max(1, k);
  }

  const substrate* s_;
  const residency* res_;
  moe_layer_shape shape_;
  critical_path_params cp_;
  // bound_after's buffers, reused from call to call (so one estimate must not be used from
  // several threads at once, as its controller is not).
  struct workspace {
    std::vector<double> busy, tok, comp, kc, rep, ready;
    std::vector<std::size_t> dirty;  ///< entry-indexed slots the candidate writes, ascending
    std::uint64_t stamp = 0;         ///< the summary stamp of the layer tok, comp, kc and rep mirror (0: none)
    std::size_t fresh = 0;           ///< the fresh slot they were sized for
  };
  mutable workspace ws_;
};

}  // namespace detail
}  // namespace v0
}  // namespace strata
