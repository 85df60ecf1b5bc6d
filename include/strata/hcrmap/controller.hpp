// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// HCRMap's slow residency controller (§6.2–6.6, §6.8, Algorithm 1): the state it observes, the
/// candidates and legal mask it offers, and one decision by a pluggable value function
/// (`scorer.hpp`: the greedy one-step rule by default; `dqn_scorer.hpp`: the masked Double DQN).
///
/// State (§6.2, Eq. 25–26), per observed (layer, expert):
///   d_{l,e}(w) = Σ_{g: e_g = e} N_g                                              (Eq. 25)
///   d̄(w) = α·d̄(w−1) + (1 − α)·d(w);  σ²(w) = α·σ²(w−1) + (1 − α)·(d(w) − d̄(w−1))²
///   H^src = −Σ_c p_c log p_c / log|C| over the expert's token sources (0 … 1)
/// plus each replica's residency age, each tier's remaining capacity, the budget left, the
/// window's pressure counters P_w (Eq. 19) and, from the critical path of the window just served,
/// each expert's latest group completion F_e, its replicas' weights-ready time and each layer's
/// T^MoE_l (`critical_estimate.hpp`).
///
/// Candidates H_w and actions (§6.3, Eq. 27; `action.hpp`): per observed layer up to
/// `hot_per_layer` + 1 experts — those of the replicas with the longest compute (many tokens on
/// few cores, Eq. 4, 13) and with the most tokens on the layer's busiest chiplet, then the expert
/// completing last — if their smoothed demand is at least the layer's mean (persistent hot: a
/// burst with d ≫ d̄ scores lower), the hottest expert without an SRAM replica (SRAM-overflow
/// warm), and stale replicas — not the last of their expert, at least A_min windows old, serving
/// at most (1 − h)/2 of their fair share of the expert's tokens — and cold last replicas: an
/// expert's only published replica in SRAM or HBM, at least A_min windows old, whose smoothed
/// demand is at most (1 − h)/2 of the layer's mean (up to `stale_candidates` of them, coldest
/// first). Hot experts get promote(e, t, c) for the Eq. 35 best location of each tier
/// (`placement.hpp`), as a new copy and, for each tier nearer than the expert's farthest replica
/// and for that replica's own tier on another chiplet, as a move of that replica; stale replicas get retain, evict, and demote to the best location
/// of the next farther tier; cold last replicas get retain and demote. no-op is always legal.
///
/// Moves (HCRMap §6.3, after Eq. 27: "promote moves or creates a replica of expert e in a nearer tier
/// t and chiplet c; retain keeps an existing replica; demote moves a replica to a tier with more
/// capacity or lower pressure; and evict removes an extra replica"). A demote, and a promote whose
/// `entry` ≥ 0, is a move: the copy lands chunk by chunk in a pending entry at the target (not a
/// legal target until published, §6.8), its traffic charged as a migration while in flight;
/// once published the source is retired (no new groups) and removed when its in-flight groups
/// have finished (`collect`). So the expert keeps at least one published replica at every moment
/// and a move is legal for its last replica too; only evict is barred for it (§6.3, after Eq. 30: "an action
/// cannot evict the last legal replica of an expert"). A move keeps the replica count: it needs
/// room for its copy in flight (Eq. 29–30, R^max) but not the extra-copy cap; its source must be
/// at least A_min windows old (§6.6, age(r) ≥ A^min) and not the source of a move already in flight.
///
/// Legal mask (Eq. 28–30, 40): Ω already satisfies visibility, bank capacity (Eq. 30), replica
/// count (Eq. 28) and budget (Eq. 29) — `residency::check_add`; evict needs a replica that is
/// not the expert's last, evict and every move a replica with age ≥ A_min (§6.6); promote and demote need a free
/// pending region (at most `pending_copies` copies in flight, §7.5: one expert object) and a
/// migration path that passes Eq. 40 (`migration_allowed`) on the most loaded observed layer;
/// a promote that creates needs the extra-copy cap (`copy_cap`) not reached, every promote an
/// estimated benefit of at least `hysteresis`·T^MoE_l (hysteresis: small gains do not trigger
/// copies). At most U_max actions
/// other than no-op per decision (`decide` makes one; the harness makes ⌊T_window/Δ_w⌋ decisions
/// per serving window, at most `max_decisions`).
///
/// Features (`action.hpp`): the benefit is the closed-form one-step reduction of the layer's
/// near-critical excess (`critical_estimate.hpp`; a promote that moves: `bound_after_move`, the
/// source's tokens and stream going to the copy); `release` adds to evict and demote the best
/// promote benefit the mask rejected for lack of budget or of room in the freed tier (the value of
/// the capacity released). Exposure (Eq. 40): the copy's transfer time over the bottleneck of its
/// path times the path's foreground utilisation, plus the destination bank's service of the copy
/// times its utilisation. Both are normalised by Σ_l T^MoE_l of the observed layers. After an
/// action is applied the estimate is updated, so later decisions see it. The reward a learned
/// value function is trained on is `reward.hpp`'s (Eq. 31–33).

#include <algorithm>  // std::max, std::min, std::sort, std::find
#include <array>      // std::array
#include <cmath>      // std::log, std::sqrt, std::floor
#include <cstddef>    // std::size_t
#include <cstdint>    // std::uint32_t
#include <functional>  // std::greater
#include <limits>     // std::numeric_limits
#include <optional>   // std::optional
#include <stdexcept>  // std::logic_error
#include <utility>    // std::pair
#include <vector>     // std::vector, std::erase_if

#include "strata/chiplet/critical_path.hpp"
#include "strata/chiplet/residency.hpp"
#include "strata/core/error.hpp"
#include "strata/hcrmap/action.hpp"
#include "strata/hcrmap/controller_params.hpp"
#include "strata/hcrmap/critical_estimate.hpp"
#include "strata/hcrmap/layer_eval.hpp"
#include "strata/hcrmap/migration_copy.hpp"
#include "strata/hcrmap/placement.hpp"
#include "strata/hcrmap/scorer.hpp"
#include "strata/hcrmap/token_mapper.hpp"

namespace strata {
inline namespace v0 {

/// The slow controller of one residency (one package's MoE layers).
class residency_controller {
 public:
  template <class = void>
  residency_controller(const substrate& s, const moe_layer_shape& shape, residency& res, const controller_params& p = {},
                       const critical_path_params& cp = {})
      : s_(&s), res_(&res), shape_(shape), p_(p), cp_(cp), est_(s, res, shape, cp), hops_(chiplet_hops(s)) {
    validate(p_);
    validate(cp_);
    const auto n = static_cast<std::size_t>(res.layers()) * static_cast<std::size_t>(res.experts());
    ewma_.assign(n, 0.0);
    var_.assign(n, 0.0);
    last_.assign(n, 0.0);
    seen_.assign(n, 0);
  }

  template <class = void>
  [[nodiscard]] const controller_params& params() const { return p_; }
  /// Replaces the knobs (validated), keeping the observed state: a layout installed before
  /// serving moves no weights while serving, so it is planned without hysteresis.
  template <class = void>
  void set_params(const controller_params& p) {
    validate(p);
    p_ = p;
  }
  /// While installing a layout before serving (`policy_session::plan`), copies are placed at once
  /// as every policy's layout is: no foreground traffic meets them, so Eq. 40's exposure is zero
  /// and its feasibility test does not apply.
  template <class = void>
  void set_installing(bool on) { installing_ = on; }
  template <class = void>
  [[nodiscard]] const std::vector<pending_copy>& pending() const { return pending_; }
  /// What observing windows left in the controller once their decisions are collected (no
  /// observation or copy in flight kept): per (layer, expert) the smoothed demand, its variance,
  /// the last demand and whether it was seen (§6.2), and the last window's pressures.
  struct observed_state {
    std::vector<double> ewma, var, last;
    std::vector<char> seen;
    pressure_counters pressure{};
    double window_s = 0.0;
  };
  /// The observed state (throws `std::logic_error` while an observation or a copy is pending:
  /// those point into this controller's residency).
  template <class = void>
  [[nodiscard]] observed_state observed() const {
    if (!obs_.empty() || !pending_.empty()) {
      throw std::logic_error("[strata.hcrmap.controller] observed state taken with an observation or a copy pending");
    }
    return {ewma_, var_, last_, seen_, pressure_, window_s_};
  }
  /// Takes `st` (another controller's `observed`, on a residency of the same shape) as this
  /// controller's observed state; the same conditions as `observed`.
  template <class = void>
  void adopt(const observed_state& st) {
    if (!obs_.empty() || !pending_.empty() || st.ewma.size() != ewma_.size()) {
      throw std::logic_error("[strata.hcrmap.controller] observed state adopted with an observation or a copy pending, or "
                             "of another shape");
    }
    ewma_ = st.ewma;
    var_ = st.var;
    last_ = st.last;
    seen_ = st.seen;
    pressure_ = st.pressure;
    window_s_ = st.window_s;
  }
  /// Smoothed demand d̄ of (layer, expert).
  template <class = void>
  [[nodiscard]] double smoothed_demand(int layer, int expert) const { return ewma_[idx_(layer, expert)]; }
  /// Fluctuation σ of (layer, expert).
  template <class = void>
  [[nodiscard]] double fluctuation(int layer, int expert) const { return std::sqrt(var_[idx_(layer, expert)]); }

  /// Observes a served window: `layers[i]` (residency layer index) was evaluated as `evals[i]` on
  /// groups `groups[i]`; `window_s` is the window's duration (Eq. 40's utilisation interval).
  template <class = void>
  void observe(const std::vector<int>& layers, const std::vector<std::vector<token_group>>& groups,
               const std::vector<directory_layer_eval>& evals, double window_s) {
    constexpr const char* id = "strata.hcrmap.controller";
    detail::require(layers.size() == groups.size() && layers.size() == evals.size(), id, "evals", evals.size(),
                    "one evaluation and group list per observed layer");
    detail::require_positive(window_s, id, "window_s", "s");
    const int E = res_->experts(), C = s_->chiplets();
    retire_obs_();
    pressure_ = {};
    window_s_ = window_s;
    for (std::size_t i = 0; i < layers.size(); ++i) {
      const int l = layers[i];
      detail::require(l >= 0 && l < res_->layers(), id, "layers", l, "a layer of the residency");
      detail::layer_obs o = spare_obs_();  // every field written below (its buffers reused)
      o.layer = l;
      keep_observed_(o.eval, evals[i]);
      o.t_moe = evals[i].result.t_moe.si();
      o.t_gate = evals[i].result.critical.gate.si();
      o.demand.assign(static_cast<std::size_t>(E), 0.0);
      o.src.assign(static_cast<std::size_t>(E) * static_cast<std::size_t>(C), 0.0);
      for (const auto& g : groups[i]) {
        o.demand[static_cast<std::size_t>(g.expert)] += g.tokens;
        o.src[static_cast<std::size_t>(g.expert) * static_cast<std::size_t>(C) + static_cast<std::size_t>(g.source)] += g.tokens;
      }
      o.finish.assign(static_cast<std::size_t>(E), 0.0);
      o.ready.assign(static_cast<std::size_t>(E), 0.0);
      const auto& ev = evals[i];
      for (std::size_t e = 0; e < ev.entry_finish_s.size(); ++e) {
        const auto& de = res_->entries()[e];
        if (de.layer != l) continue;
        o.finish[de.expert] = std::max(o.finish[de.expert], ev.entry_finish_s[e]);
      }
      o.rep_ready.assign(res_->entries().size(), 0.0);
      for (std::size_t r = 0; r < ev.entry_of_replica.size(); ++r) {
        const auto en = static_cast<std::size_t>(ev.entry_of_replica[r]);
        const auto& de = res_->entries()[en];
        const double ready = ev.result.memory_ready[r].si();
        o.ready[de.expert] = std::max(o.ready[de.expert], ready);
        if (ready > 0.0) {
          o.streams.push_back(static_cast<int>(en));
          o.rep_ready[en] = ready;
        }
      }
      o.bank_bytes.assign(s_->banks().size(), 0.0);
      for (std::size_t b = 0; b < o.bank_bytes.size() && 2 * b + 1 < ev.result.bank_bytes.size(); ++b) {
        o.bank_bytes[b] = ev.result.bank_bytes[2 * b] + ev.result.bank_bytes[2 * b + 1];
      }
      o.tokens = ev.entry_tokens;
      o.busy.assign(static_cast<std::size_t>(C), 0.0);
      o.active.assign(static_cast<std::size_t>(C), 0);
      for (std::size_t r = 0; r < ev.entry_of_replica.size(); ++r) {
        const auto& de = res_->entries()[static_cast<std::size_t>(ev.entry_of_replica[r])];
        o.busy[de.chiplet] += ev.result.replica_tokens[r] * shape_.flops_per_token.si() / est_.chiplet_rate();
        if (ev.result.replica_tokens[r] > 0.0) ++o.active[de.chiplet];
      }
      o.comp.assign(res_->entries().size(), 0.0);
      o.cores.assign(res_->entries().size(), 0.0);
      for (std::size_t r = 0; r < ev.entry_of_replica.size(); ++r) {
        const auto en = static_cast<std::size_t>(ev.entry_of_replica[r]);
        o.cores[en] = std::max(1, ev.result.replica_cores[r]);
        o.comp[en] = ev.result.replica_tokens[r] * shape_.flops_per_token.si() / (o.cores[en] * est_.core_rate());
      }
      o.tail = std::max(0.0, o.t_moe - o.t_gate - detail::critical_estimate::bound(o));
      double sum = 0.0;
      for (int e = 0; e < E; ++e) {
        const auto k = idx_(l, e);
        const double d = o.demand[static_cast<std::size_t>(e)];
        sum += d;
        if (seen_[k] == 0) {
          ewma_[k] = d;
          var_[k] = 0.0;
          seen_[k] = 1;
        } else {
          const double dev = d - ewma_[k];
          ewma_[k] = p_.ewma_alpha * ewma_[k] + (1.0 - p_.ewma_alpha) * d;
          var_[k] = p_.ewma_alpha * var_[k] + (1.0 - p_.ewma_alpha) * dev * dev;
        }
        last_[k] = d;
      }
      o.mean_demand = sum / E;
      pressure_.merge_max(ev.result.pressure);
      obs_.push_back(std::move(o));
    }
    pressure_.tier = res_->tier_pressure();
  }

  /// Candidates, legal mask and features (file comment). no-op is always first.
  template <class = void>
  [[nodiscard]] std::vector<scored_action> legal_actions() const { return actions_(false); }
  /// The legal promotes of `legal_actions` that create a copy (`entry` −1), in its order and with
  /// its features, after no-op: what an installer before serving chooses among
  /// (`policy_session::plan`), without pricing the moves, retains, evicts and demotes.
  template <class = void>
  [[nodiscard]] std::vector<scored_action> new_copy_actions() const { return actions_(true); }

  /// One decision (Algorithm 1, line 14): the legal action of highest score (ties: no-op, then
  /// the first), applied (`apply`). Returns it.
  template <class = void>
  residency_action decide(const action_scorer& scorer = greedy_score) {
    const auto acts = legal_actions();
    std::size_t best = 0;
    double best_v = scorer(acts[0].features);
    for (std::size_t i = 1; i < acts.size(); ++i) {
      const double v = scorer(acts[i].features);
      if (v > best_v) {
        best_v = v;
        best = i;
      }
    }
    apply(acts[best].action);
    return acts[best].action;
  }

  /// Schedules an action (Algorithm 1, ScheduleAction): promote and demote begin a chunked copy
  /// into a pending entry (not a legal target until published, §6.8) — or, with `instant`, place
  /// a published replica at once (a layout installed before serving, as every policy's initial
  /// layout); evict retires the replica; no-op and retain change nothing. Updates the
  /// controller's estimate of the acted expert's completion (`greedy_score`'s F'_e) so that
  /// later decisions of the same window see it.
  template <class = void>
  void apply(const residency_action& a, bool instant = false) {
    using K = residency_action_kind;
    if (a.kind == K::no_op || a.kind == K::retain) return;
    if (a.kind == K::evict) {
      update_estimate_(a, a.entry);
      res_->retire(a.entry);
      return;
    }
    const bool move = a.kind == K::demote || (a.kind == K::promote && a.entry >= 0);
    if (a.kind == K::promote || a.kind == K::demote) update_estimate_(a, -1);
    int src = a.entry;
    if (a.kind == K::promote && !move) {
      // Copy from the expert's replica in the nearest tier (fastest source).
      for (int r : res_->legal(a.layer, a.expert)) {
        if (src < 0 || res_->tier(r) < res_->tier(src)) src = r;
      }
    }
    const auto& se = res_->entries()[static_cast<std::size_t>(src)];
    if (instant) {
      res_->place(a.layer, a.expert, a.target.chiplet, a.target.bank, a.target.span);
      if (move) res_->retire(a.entry);
    } else {
      pending_copy pc;
      pc.source_bank = se.bank;
      pc.source_span = se.span;
      pc.entry = res_->begin_copy(a.layer, a.expert, a.target.chiplet, a.target.bank, a.target.span);
      pc.destination_bank = a.target.bank;
      pc.destination_span = a.target.span;
      pc.replaces = move ? a.entry : -1;
      pending_.push_back(pc);
    }
  }

  /// The copies in flight as migrations of one layer: bytes spread over `layers` MoE layers.
  template <class = void>
  [[nodiscard]] std::vector<migration> migrations(int layers) const {
    std::vector<migration> out;
    for (const auto& pc : pending_) {
      out.push_back({pc.source_bank, pc.destination_bank, res_->expert_bytes() / double(std::max(layers, 1)), true});
    }
    return out;
  }

  /// After a window of `window_s` in which the pending copies were in flight: each lands the
  /// chunks its transfer time allows (`copy_time_s`); a complete copy is published (a new
  /// directory version, Algorithm 1's PublishCompleted) and a demote's old replica retired.
  /// Returns how many copies were published.
  template <class = void>
  int advance(double window_s) {
    int published = 0;
    std::vector<pending_copy> left;
    for (auto pc : pending_) {
      const auto& e = res_->entries()[static_cast<std::size_t>(pc.entry)];
      const double t = copy_time_s(*s_, pc.source_bank, pc.source_span, pc.destination_bank, pc.destination_span,
                                   res_->expert_bytes().si());
      const auto chunks = static_cast<std::uint32_t>(std::floor(double(e.chunks_total) * std::min(1.0, window_s / t)));
      if (res_->land_chunks(pc.entry, std::max<std::uint32_t>(chunks, 1))) {
        ++published;
        const auto& old = res_->entries()[static_cast<std::size_t>(pc.replaces < 0 ? pc.entry : pc.replaces)];
        if (pc.replaces >= 0 && old.state == replica_state::published && res_->legal(e.layer, e.expert).size() >= 2) {
          res_->retire(pc.replaces);
        }
      } else {
        left.push_back(pc);
      }
    }
    pending_ = std::move(left);
    return published;
  }

  /// Removes retired replicas (their in-flight groups have finished at a window boundary) and
  /// renumbers the pending copies' entries to match. Call between windows, after `advance`.
  template <class = void>
  void collect() {
    // Map old entry index -> new after the residency drops retiring entries.
    std::vector<int> remap;
    int next = 0;
    for (const auto& e : res_->entries()) remap.push_back(e.state == replica_state::retiring && e.in_flight == 0 ? -1 : next++);
    res_->collect();
    for (auto& pc : pending_) {
      pc.entry = remap[static_cast<std::size_t>(pc.entry)];
      if (pc.replaces >= 0) pc.replaces = remap[static_cast<std::size_t>(pc.replaces)];
    }
    retire_obs_();  // entry-indexed observations are stale now
    res_->tick();
  }

 private:
  /// What an observation keeps of a layer's evaluation (`layer_obs::eval`): every field a decision
  /// reads — the replicas, their tokens, cores and weights-ready times, the entries' tokens, the
  /// layer's times, energy and pressure, its link and bank bytes — copied into `to`'s buffers;
  /// the per-group vectors (each group's entry, completion, stages and waits, the entries' finish
  /// times), which no decision reads (`observe` takes what it needs of them from the caller's
  /// evaluation), left empty rather than copied.
  template <class = void>
  static void keep_observed_(directory_layer_eval& to, const directory_layer_eval& from) {
    to.entry_of_replica = from.entry_of_replica;
    to.entry_of_group.clear();
    to.entry_tokens = from.entry_tokens;
    to.entry_finish_s.clear();
    auto& r = to.result;
    const auto& f = from.result;
    r.t_moe = f.t_moe;
    r.critical_group = f.critical_group;
    r.critical = f.critical;
    r.t_net = f.t_net;
    r.t_bank = f.t_bank;
    r.t_mem = f.t_mem;
    r.t_comp = f.t_comp;
    r.completion.clear();
    r.link_bytes = f.link_bytes;
    r.bank_bytes = f.bank_bytes;
    r.replica_tokens = f.replica_tokens;
    r.replica_cores = f.replica_cores;
    r.group_stages.clear();
    r.dispatch_wait.clear();
    r.gather_wait.clear();
    r.memory_ready = f.memory_ready;
    r.energy = f.energy;
    r.pressure = f.pressure;
  }
  /// `legal_actions`, or with `new_only` its promotes that create a copy alone.
  template <class = void>
  [[nodiscard]] std::vector<scored_action> actions_(bool new_only) const {
    std::vector<scored_action> out;
    out.push_back(noop_());
    if (p_.u_max < 1) return out;
    double total = 0.0;
    for (const auto& o : obs_) total += o.t_moe;
    if (obs_.empty() || total <= 0.0) return out;
    blocked_budget_ = 0.0;
    blocked_tier_ = {0.0, 0.0, 0.0};
    // What every candidate of this decision reads of the residency and of each observed layer,
    // taken once: the state does not change until an action is applied.
    for (tier_kind t : {tier_kind::sram, tier_kind::hbm, tier_kind::dram}) tier_free_now_[static_cast<std::size_t>(t)] = tier_free_(t);
    rooms_.build(*s_, *res_);
    place_base_.resize(obs_.size());
    for (std::size_t i = 0; i < obs_.size(); ++i) place_base_[i] = placement_base_(obs_[i]);
    const bool copy_free = static_cast<int>(pending_.size()) < p_.pending_copies && p_.u_max >= 1;
    const double wt = res_->expert_bytes().si();
    long long extra = 0;
    {
      const auto total_entries = static_cast<long long>(res_->entries().size());
      extra = total_entries - static_cast<long long>(res_->layers()) * res_->experts();
    }
    const bool cap_left = p_.copy_cap < 0 || extra < p_.copy_cap;
    const bool budget_left = (res_->resident_bytes().si() + wt) <= res_->budget().si() * (1 + 1e-12);
    // Most loaded observed layer: Eq. 40's foreground.
    const directory_layer_eval* fg = nullptr;
    for (const auto& o : obs_) {
      if (fg == nullptr || o.t_moe > fg->result.t_moe.si()) fg = &o.eval;
    }
    for (const auto& o : obs_) {
      const int E = res_->experts();
      // Persistent hot: the experts with most tokens on the busiest chiplet, and the last to finish.
      const auto busiest = static_cast<int>(std::max_element(o.busy.begin(), o.busy.end()) - o.busy.begin());
      std::vector<std::pair<double, int>> on;
      for (std::size_t r = 0; r < o.eval.entry_of_replica.size(); ++r) {
        const int en = o.eval.entry_of_replica[r];
        const auto& de = res_->entries()[static_cast<std::size_t>(en)];
        if (de.chiplet == busiest) on.emplace_back(-est_.entry_tokens(o, en), de.expert);
      }
      // ... and the replicas with the longest compute (few cores for many tokens, Eq. 4, 13).
      for (std::size_t r = 0; r < o.eval.entry_of_replica.size(); ++r) {
        const auto en = static_cast<std::size_t>(o.eval.entry_of_replica[r]);
        on.emplace_back(-o.comp[en] * 1e12, res_->entries()[en].expert);
      }
      std::vector<int> hot;
      const auto last = static_cast<int>(std::max_element(o.finish.begin(), o.finish.end()) - o.finish.begin());
      const auto consider = [&](int e) {
        if (std::find(hot.begin(), hot.end(), e) != hot.end()) return;
        if (ewma_[idx_(o.layer, e)] >= o.mean_demand) hot.push_back(e);
      };
      // `on` in increasing order, then the expert completing last, until the hot list is full:
      // drawn from a heap as far as needed (the sequence a full sort gives, equal pairs being
      // the same values).
      std::make_heap(on.begin(), on.end(), std::greater<>());
      auto end = on.end();
      for (; end != on.begin() && static_cast<int>(hot.size()) <= p_.hot_per_layer; --end) {
        std::pop_heap(on.begin(), end, std::greater<>());
        consider((end - 1)->second);
      }
      if (static_cast<int>(hot.size()) <= p_.hot_per_layer) consider(last);
      // SRAM-overflow warm: the hottest expert of the layer without an SRAM replica.
      int warm = -1;
      for (int e = 0; e < E; ++e) {
        bool in_sram = false;
        for (int r : res_->of(o.layer, e)) in_sram |= res_->tier(r) == tier_kind::sram;
        if (in_sram) continue;
        if (warm < 0 || ewma_[idx_(o.layer, e)] > ewma_[idx_(o.layer, warm)]) warm = e;
      }
      if (warm >= 0 && std::find(hot.begin(), hot.end(), warm) == hot.end() && ewma_[idx_(o.layer, warm)] >= o.mean_demand) {
        hot.push_back(warm);
      }
      for (int e : hot) promotes_(o, e, total, fg, copy_free, cap_left, budget_left, out, new_only);
    }
    if (new_only) return out;
    stale_(total, fg, copy_free, out);
    cold_last_(total, fg, copy_free, out);
    return out;
  }

  template <class = void>
  [[nodiscard]] std::size_t idx_(int layer, int expert) const {
    return static_cast<std::size_t>(layer) * static_cast<std::size_t>(res_->experts()) + static_cast<std::size_t>(expert);
  }

  template <class = void>
  void base_features_(std::array<double, controller_feature_count>& f) const {
    f[feature::budget_free] = 1.0 - res_->resident_bytes().si() / res_->budget().si();
    f[feature::p_load] = pressure_.load;
    f[feature::p_link] = pressure_.link;
    f[feature::p_bank] = pressure_.bank;
    f[feature::p_tier] = pressure_.tier;
    f[feature::p_mig] = pressure_.mig;
  }
  template <class = void>
  [[nodiscard]] scored_action noop_() const {
    scored_action a;
    base_features_(a.features);
    a.features[feature::action_no_op] = 1.0;
    return a;
  }
  template <class = void>
  void expert_features_(const detail::layer_obs& o, int e, std::array<double, controller_feature_count>& f) const {
    const auto k = idx_(o.layer, e);
    f[feature::demand_ewma] = o.mean_demand > 0.0 ? ewma_[k] / o.mean_demand : 0.0;
    f[feature::fluctuation] = std::sqrt(var_[k]) / std::max(ewma_[k], 1.0);
    const int C = s_->chiplets();
    double tot = 0.0, h = 0.0;
    for (int c = 0; c < C; ++c) tot += o.src[static_cast<std::size_t>(e) * static_cast<std::size_t>(C) + static_cast<std::size_t>(c)];
    for (int c = 0; c < C && tot > 0.0; ++c) {
      const double q = o.src[static_cast<std::size_t>(e) * static_cast<std::size_t>(C) + static_cast<std::size_t>(c)] / tot;
      if (q > 0.0) h -= q * std::log(q);
    }
    f[feature::source_entropy] = C > 1 ? h / std::log(double(C)) : 0.0;
    f[feature::replicas] = double(res_->of(o.layer, e).size()) / res_->params().max_replicas_per_expert;
  }
  template <class = void>
  [[nodiscard]] double tier_free_(tier_kind t) const {
    double used = 0.0, cap = 0.0;
    for (int b : s_->banks_of(t)) {
      used += res_->used(b);
      cap += res_->usable(b);
    }
    return cap > 0.0 ? 1.0 - used / cap : 0.0;
  }
  /// When a new copy's weights at `c` are in, after the gate of layer `o`: the later of its bank
  /// service (Eq. 10) and its memory route's arrival (Eq. 7), as the critical path's
  /// weights-ready time max(bank service of the span, memory arrival). Both wait, FCFS in
  /// release order with releases spread over the layer, for half of the traffic of their class
  /// already there (the bank's, the route's most loaded link's memory streams).
  template <class = void>
  [[nodiscard]] double stream_s_(const detail::layer_obs& o, const place_candidate& c) const {
    const double wt = res_->expert_bytes().si();
    double t = 0.0;
    for (int k = 0; k < c.span; ++k) {
      const auto b = static_cast<std::size_t>(c.bank) + static_cast<std::size_t>(k);
      const auto& bk = s_->banks()[b];
      const double q = 0.5 * o.bank_bytes[b] + wt / c.span;
      t = std::max(t, bank_service_time(data_size<>::from_si(q), bk.latency, bk.bandwidth).si());
    }
    std::vector<int> path;
    s_->append_memory_path(c.bank, c.chiplet, path);
    double route = 0.0, wait = 0.0;
    const auto& lb = o.eval.result.link_bytes;
    for (int u : path) {
      const auto& lk = s_->links()[static_cast<std::size_t>(u)];
      route += link_time(lk.lambda, lk.bandwidth, res_->expert_bytes()).si();
      const auto i = static_cast<std::size_t>(u) * 4 + static_cast<std::size_t>(request_class::memory);
      if (i < lb.size()) wait = std::max(wait, 0.5 * lb[i] / lk.bandwidth.si());
    }
    return std::max(t, wait + route);
  }
  /// Eq. 40 exposure and feasibility of a copy from span (b0, n0) to candidate `c`.
  template <class = void>
  [[nodiscard]] std::pair<bool, double> migration_(int b0, int n0, const place_candidate& c,
                                                   const directory_layer_eval* fg) const {
    if (installing_) return {true, 0.0};
    const double wt = res_->expert_bytes().si();
    std::vector<int> path;
    s_->append_route(s_->bank_node(b0), s_->bank_node(c.bank), path);
    const double layer_s = std::max(fg->result.t_moe.si(), 1e-12);
    const auto per_layer = data_size<>::from_si(wt / std::max(1, res_->layers()));
    const bool ok = path.empty() || migration_allowed(*s_, fg->result, path, per_layer, duration<>::from_si(layer_s), p_.eta_mig);
    double u_fg = 0.0;
    for (int u : path) {
      const auto i = static_cast<std::size_t>(u) * 4;
      const double b = s_->links()[static_cast<std::size_t>(u)].bandwidth.si() * layer_s;
      u_fg = std::max(u_fg, (fg->result.link_bytes[i] + fg->result.link_bytes[i + 1] + fg->result.link_bytes[i + 2]) / b);
    }
    const double t_copy = copy_time_s(*s_, b0, n0, c.bank, c.span, wt);
    double u_bank = 0.0, t_bank = 0.0;
    for (int k = 0; k < c.span; ++k) {
      const auto b = static_cast<std::size_t>(c.bank) + static_cast<std::size_t>(k);
      const auto& bk = s_->banks()[b];
      u_bank = std::max(u_bank, (fg->result.bank_bytes[b * 2] + fg->result.bank_bytes[b * 2 + 1]) / (bk.bandwidth.si() * layer_s));
      t_bank = std::max(t_bank, wt / c.span / bk.bandwidth.si());
    }
    // A copy spread over the window exposes the share of its transfer that meets foreground
    // traffic on the path and at the destination bank.
    return {ok, t_copy * std::min(1.0, u_fg) + t_bank * std::min(1.0, u_bank)};
  }
  template <class = void>
  void promotes_(const detail::layer_obs& o, int e, double total, const directory_layer_eval* fg, bool copy_free, bool cap_left,
                 bool budget_left, std::vector<scored_action>& out, bool new_only = false) const {
    const bool copy_ok = copy_free && cap_left;
    const auto& legal = res_->legal(o.layer, e);
    if (legal.empty()) return;
    int src = legal.front();
    for (int r : legal) {
      if (res_->tier(r) < res_->tier(src)) src = r;
    }
    const auto& se = res_->entries()[static_cast<std::size_t>(src)];
    const double d = last_[idx_(o.layer, e)], dbar = ewma_[idx_(o.layer, e)];
    const double persist = d > 0.0 ? std::min(1.0, dbar / d) : 0.0;
    auto& ob = const_cast<detail::layer_obs&>(o);  // bound_after without `apply` leaves it unchanged
    const double now = est_.excess(o);             // so this holds for every tier below
    const placement_inputs& in = placement_in_(o, e);  // used before promote_moves_ refills it
    // Ω per tier, Eq. 35 within each tier. Candidates the budget or a full tier rules out are
    // valued for `release` below (what capacity freed elsewhere would buy).
    for (tier_kind t : {tier_kind::sram, tier_kind::hbm, tier_kind::dram}) {
      std::array<bool, 3> only{false, false, false};
      only[static_cast<std::size_t>(t)] = true;
      auto& omega = omega_;
      rooms_.candidates(*res_, o.layer, e, only, -1, omega);
      if (!copy_ok) {
        // No copy can be offered: only a blocked tier's benefit is used (`release`), and a tier is
        // blocked when no candidate of Ω has a cost below +∞ (`best_placement_checked`).
        bool open = false;
        for (const auto& x : omega) {
          if (placement_cost(*s_, in, x, p_.placement) < std::numeric_limits<double>::infinity()) {
            open = true;
            break;
          }
        }
        if (open) continue;
      }
      std::optional<place_candidate> c = detail::best_placement_checked(*s_, in, omega, p_.placement);
      const bool blocked = !c.has_value();
      place_candidate cand = c.value_or(place_candidate{t, se.chiplet, se.bank, se.span});
      const double after = est_.bound_after(ob, e, cand, blocked ? 0.0 : stream_s_(o, cand), -1, false);
      const double benefit = std::max(0.0, now - after) * persist;
      if (blocked) {
        if (!budget_left) blocked_budget_ = std::max(blocked_budget_, benefit);
        else blocked_tier_[static_cast<std::size_t>(t)] = std::max(blocked_tier_[static_cast<std::size_t>(t)], benefit);
        continue;
      }
      if (!copy_ok || benefit < p_.hysteresis * o.t_moe) continue;
      const auto [mig_ok, exposure] = migration_(se.bank, se.span, cand, fg);
      if (!mig_ok) continue;
      out.push_back(promote_(o, e, t, -1, cand, benefit, exposure, total));
    }
    if (!new_only) promote_moves_(o, e, total, fg, copy_free, out);
  }
  /// A promote's action and features: a new copy (`entry` −1) or a move of `entry` to `cand`.
  template <class = void>
  [[nodiscard]] scored_action promote_(const detail::layer_obs& o, int e, tier_kind t, int entry, const place_candidate& cand,
                                       double benefit, double exposure, double total) const {
    scored_action a;
    a.action = {residency_action_kind::promote, o.layer, e, entry, cand};
    base_features_(a.features);
    expert_features_(o, e, a.features);
    a.features[feature::tier_free] = tier_free_now_[static_cast<std::size_t>(t)];
    a.features[feature::action_promote] = 1.0;
    a.features[feature::tier_sram + static_cast<std::size_t>(t)] = 1.0;
    a.features[feature::benefit] = benefit / total;
    a.features[feature::exposure] = exposure / total;
    a.features[feature::replica_share] = 1.0;
    return a;
  }
  /// Whether entry `r` is the source of a move in flight.
  template <class = void>
  [[nodiscard]] bool moving_(int r) const {
    for (const auto& pc : pending_) {
      if (pc.replaces == r) return true;
    }
    return false;
  }
  /// Promote as a move (file comment): the expert's farthest published replica (ties: the one
  /// that served fewest tokens), at least A_min windows old, moves to the Eq. 35 best location of
  /// each nearer tier (the freed chiplet may be chosen again) and of its own tier on another
  /// chiplet (a location nearer its token sources or less loaded, "in a nearer tier t and chiplet
  /// c"); benefit from `bound_after_move`, at least `hysteresis`·T^MoE_l, the persistence
  /// discount as a new copy's.
  template <class = void>
  void promote_moves_(const detail::layer_obs& o, int e, double total, const directory_layer_eval* fg, bool copy_free,
                      std::vector<scored_action>& out) const {
    if (!copy_free) return;
    int from = -1;
    for (int r : res_->of(o.layer, e)) {
      if (!res_->published(r)) continue;
      if (from < 0 || res_->tier(r) > res_->tier(from) ||
          (res_->tier(r) == res_->tier(from) && est_.entry_tokens(o, r) < est_.entry_tokens(o, from))) {
        from = r;
      }
    }
    if (from < 0 || moving_(from)) return;
    const auto& fe = res_->entries()[static_cast<std::size_t>(from)];
    if (static_cast<int>(fe.age) < p_.min_age) return;
    const double d = last_[idx_(o.layer, e)], dbar = ewma_[idx_(o.layer, e)];
    const double persist = d > 0.0 ? std::min(1.0, dbar / d) : 0.0;
    auto& ob = const_cast<detail::layer_obs&>(o);  // bound_after_move without `apply` leaves it unchanged
    const double now = est_.excess(o);
    const placement_inputs& in = placement_in_(o, e, from);
    for (tier_kind t : {tier_kind::sram, tier_kind::hbm, tier_kind::dram}) {
      if (t > res_->tier(from)) break;
      std::array<bool, 3> only{false, false, false};
      only[static_cast<std::size_t>(t)] = true;
      auto& omega = omega_;
      rooms_.candidates(*res_, o.layer, e, only, from, omega);
      if (t == res_->tier(from)) {  // within the tier: to another chiplet only
        std::erase_if(omega, [&](const place_candidate& c) { return c.chiplet == fe.chiplet; });
      }
      const auto cand = detail::best_placement_checked(*s_, in, omega, p_.placement);
      if (!cand) continue;
      const double after = est_.bound_after_move(ob, e, from, *cand, stream_s_(o, *cand), false);
      const double benefit = std::max(0.0, now - after) * persist;
      if (benefit < p_.hysteresis * o.t_moe) continue;
      const auto [mig_ok, exposure] = migration_(fe.bank, fe.span, *cand, fg);
      if (!mig_ok) continue;
      out.push_back(promote_(o, e, t, from, *cand, benefit, exposure, total));
    }
  }
  /// Eq. 36's inputs for a replica of expert e; `moving` (≥ 0) is a replica a move releases, not
  /// counted in the diversity term. (Within `legal_actions`: the layer's part from `place_base_`,
  /// in the scratch `place_in_`, valid until the next call; `p_.placement` is validated when set,
  /// so the searches use `best_placement_checked`.)
  template <class = void>
  [[nodiscard]] const placement_inputs& placement_in_(const detail::layer_obs& o, int e, int moving = -1) const {
    placement_inputs& in = place_in_;
    in = place_base_[static_cast<std::size_t>(&o - obs_.data())];
    const int C = s_->chiplets();
    in.source_tokens.assign(o.src.begin() + static_cast<std::ptrdiff_t>(e) * C, o.src.begin() + static_cast<std::ptrdiff_t>(e + 1) * C);
    for (int x : res_->of(o.layer, e)) {
      if (x != moving) in.replica_chiplets.push_back(res_->entries()[static_cast<std::size_t>(x)].chiplet);
    }
    fill_source_terms(*s_, in, hops_);
    return in;
  }
  /// The part of Eq. 36's inputs that is the layer's, the same for each of its experts: chiplet
  /// queues, bank pressures, tier scarcities, the stream and the window.
  template <class = void>
  [[nodiscard]] placement_inputs placement_base_(const detail::layer_obs& o) const {
    placement_inputs in;
    const int C = s_->chiplets();
    in.chiplet_queue.assign(static_cast<std::size_t>(C), 0.0);
    const auto& r = o.eval.result;
    const double w = std::max(o.t_moe, 1e-12);
    for (std::size_t i = 0; i < o.eval.entry_of_replica.size(); ++i) {
      const auto& de = res_->entries()[static_cast<std::size_t>(o.eval.entry_of_replica[i])];
      const double busy = r.replica_tokens[i] * shape_.flops_per_token.si() /
                          (s_->core_throughput().si() * cp_.tile_utilization * s_->params().cores_per_chiplet);
      in.chiplet_queue[de.chiplet] += busy / w;
    }
    in.bank_pressure.assign(s_->banks().size(), 0.0);
    for (std::size_t b = 0; b < s_->banks().size(); ++b) {
      in.bank_pressure[b] = o.bank_bytes[b] / (s_->banks()[b].bandwidth.si() * w);
    }
    for (tier_kind t : {tier_kind::sram, tier_kind::hbm, tier_kind::dram}) {
      in.tier_scarcity[static_cast<std::size_t>(t)] = 1.0 - tier_free_now_[static_cast<std::size_t>(t)];
    }
    in.stream_bytes = res_->expert_bytes().si();
    in.window_s = w;
    fill_bank_terms(*s_, in, rooms_.spans());
    return in;
  }
  template <class = void>
  void stale_(double total, const directory_layer_eval* fg, bool copy_free, std::vector<scored_action>& out) const {
    struct cand {
      double share;
      const detail::layer_obs* o;
      int entry;
    };
    std::vector<cand> st;
    for (const auto& o : obs_) {
      for (int e = 0; e < res_->experts(); ++e) {
        const auto& all = res_->of(o.layer, e);  // its published entries are the legal replicas
        std::size_t n_legal = 0;
        for (int r : all) n_legal += res_->published(r) ? 1 : 0;
        if (n_legal < 2) continue;
        const double tok = o.demand[static_cast<std::size_t>(e)];
        for (int r : all) {
          if (!res_->published(r)) continue;
          const auto& de = res_->entries()[static_cast<std::size_t>(r)];
          if (static_cast<int>(de.age) < p_.min_age) continue;
          const double mine = static_cast<std::size_t>(r) < o.eval.entry_tokens.size() ? o.eval.entry_tokens[static_cast<std::size_t>(r)] : 0.0;
          const double share = tok > 0.0 ? mine / tok : 0.0;
          if (share > (1.0 - p_.hysteresis) * 0.5 / double(n_legal)) continue;
          st.push_back({share, &o, r});
        }
      }
    }
    std::sort(st.begin(), st.end(), [](const cand& a, const cand& b) { return a.share < b.share || (a.share == b.share && a.entry < b.entry); });
    if (static_cast<int>(st.size()) > p_.stale_candidates) st.resize(static_cast<std::size_t>(p_.stale_candidates));
    for (const auto& c : st) offer_(*c.o, c.entry, c.share, true, total, fg, copy_free, out);
  }
  /// Cold last replicas (file comment): retain and demote (a move) only — the mask bars evicting
  /// an expert's last replica (Eq. 28).
  template <class = void>
  void cold_last_(double total, const directory_layer_eval* fg, bool copy_free, std::vector<scored_action>& out) const {
    if (p_.stale_candidates < 1) return;
    struct cand {
      double cold;
      const detail::layer_obs* o;
      int entry;
    };
    std::vector<cand> st;
    for (const auto& o : obs_) {
      if (o.mean_demand <= 0.0) continue;
      for (int e = 0; e < res_->experts(); ++e) {
        int last = -1, n = 0;
        for (int r : res_->of(o.layer, e)) {
          if (res_->published(r)) last = r, ++n;
        }
        if (n != 1 || res_->tier(last) == tier_kind::dram || moving_(last)) continue;
        if (static_cast<int>(res_->entries()[static_cast<std::size_t>(last)].age) < p_.min_age) continue;
        const double cold = ewma_[idx_(o.layer, e)] / o.mean_demand;
        if (cold > (1.0 - p_.hysteresis) * 0.5) continue;
        st.push_back({cold, &o, last});
      }
    }
    std::sort(st.begin(), st.end(), [](const cand& a, const cand& b) { return a.cold < b.cold || (a.cold == b.cold && a.entry < b.entry); });
    if (static_cast<int>(st.size()) > p_.stale_candidates) st.resize(static_cast<std::size_t>(p_.stale_candidates));
    for (const auto& c : st) {
      const double tok = c.o->demand[static_cast<std::size_t>(res_->entries()[static_cast<std::size_t>(c.entry)].expert)];
      offer_(*c.o, c.entry, tok > 0.0 ? 1.0 : 0.0, false, total, fg, copy_free, out);
    }
  }
  /// retain, evict (`evict`: not for a last replica) and demote of replica `entry`, which served
  /// `share` of its expert's tokens in the window observed in `o`.
  template <class = void>
  void offer_(const detail::layer_obs& o, int entry, double share, bool evict, double total, const directory_layer_eval* fg,
              bool copy_free, std::vector<scored_action>& out) const {
    const auto& de = res_->entries()[static_cast<std::size_t>(entry)];
    const int e = de.expert;
    auto& ob = const_cast<detail::layer_obs&>(o);  // bound_after without `apply` leaves it unchanged
    const double now = est_.excess(o);
    const tier_kind t = res_->tier(entry);
    const double release = std::max(blocked_budget_, blocked_tier_[static_cast<std::size_t>(t)]);
    auto base = [&](residency_action_kind k) {
      scored_action a;
      a.action = {k, o.layer, e, entry, {}};
      base_features_(a.features);
      expert_features_(o, e, a.features);
      a.features[feature::age] = std::min(1.0, double(de.age) / (4.0 * std::max(1, p_.min_age)));
      a.features[feature::tier_free] = tier_free_now_[static_cast<std::size_t>(t)];
      a.features[feature::tier_sram + static_cast<std::size_t>(t)] = 1.0;
      a.features[feature::replica_share] = share;
      return a;
    };
    auto keep = base(residency_action_kind::retain);
    keep.features[feature::action_retain] = 1.0;
    out.push_back(keep);
    if (evict) {
      // Evict: the replica's tokens move to the others.
      const double loss = std::max(0.0, est_.bound_after(ob, e, place_candidate{}, 0.0, entry, false) - now);
      auto ev = base(residency_action_kind::evict);
      ev.features[feature::action_evict] = 1.0;
      ev.features[feature::benefit] = (release - loss) / total;
      out.push_back(ev);
    }
    // Demote (a move) to the next farther tier; the replica's own chiplet may be kept.
    if (t == tier_kind::dram || !copy_free || moving_(entry)) return;
    const tier_kind farther = t == tier_kind::sram ? tier_kind::hbm : tier_kind::dram;
    std::array<bool, 3> only{false, false, false};
    only[static_cast<std::size_t>(farther)] = true;
    auto& omega = omega_;
    rooms_.candidates(*res_, o.layer, e, only, entry, omega);
    const auto cand_place = detail::best_placement_checked(*s_, placement_in_(o, e, entry), omega, p_.placement);
    if (!cand_place) return;
    const auto [mig_ok, exposure] = migration_(de.bank, de.span, *cand_place, fg);
    if (!mig_ok) return;
    auto dm = base(residency_action_kind::demote);
    dm.action.target = *cand_place;
    dm.features[feature::action_demote] = 1.0;
    dm.features[feature::tier_free] = tier_free_now_[static_cast<std::size_t>(farther)];
    dm.features[feature::tier_sram + static_cast<std::size_t>(t)] = 0.0;
    dm.features[feature::tier_sram + static_cast<std::size_t>(farther)] = 1.0;
    const double dloss = std::max(0.0, est_.bound_after_move(ob, e, entry, *cand_place, stream_s_(o, *cand_place), false) - now);
    dm.features[feature::benefit] = (blocked_tier_[static_cast<std::size_t>(t)] - dloss) / total;
    dm.features[feature::exposure] = exposure / total;
    out.push_back(dm);
  }
  /// Applies an action's effect to the bound of its layer (file comment).
  template <class = void>
  void update_estimate_(const residency_action& a, int evicted) {
    for (auto& o : obs_) {
      if (o.layer != a.layer) continue;
      if (a.kind == residency_action_kind::demote || (a.kind == residency_action_kind::promote && a.entry >= 0)) {
        (void)est_.bound_after_move(o, a.expert, a.entry, a.target, stream_s_(o, a.target), true);
      } else if (evicted >= 0) {
        (void)est_.bound_after(o, a.expert, place_candidate{}, 0.0, evicted, true);
      } else {
        (void)est_.bound_after(o, a.expert, a.target, stream_s_(o, a.target), -1, true);
      }
    }
  }

  const substrate* s_;
  residency* res_;
  moe_layer_shape shape_;
  /// Empties `obs_`, its observations kept for their buffers.
  void retire_obs_() {
    for (auto& o : obs_) obs_pool_.spare.push_back(std::move(o));
    obs_.clear();
  }
  /// An observation to fill (`observe`): a kept one with its buffers, the fields `observe` sets by
  /// adding to them emptied and the summary's reset, or a new one.
  detail::layer_obs spare_obs_() {
    if (obs_pool_.spare.empty()) return {};
    detail::layer_obs o = std::move(obs_pool_.spare.back());
    obs_pool_.spare.pop_back();
    o.streams.clear();
    o.stamp = 0;
    o.sum_bound = o.sum_tau = o.sum_excess = 0.0;
    o.sum_near = 0;
    o.sum_above.clear();
    return o;
  }

  controller_params p_;
  bool installing_ = false;
  critical_path_params cp_;
  detail::critical_estimate est_;
  std::vector<double> ewma_, var_, last_;
  std::vector<char> seen_;
  std::vector<detail::layer_obs> obs_;
  // Observations of earlier windows kept for their buffers (`spare_obs_`): a copy of the
  // controller starts without them.
  struct obs_pool {
    std::vector<detail::layer_obs> spare;
    obs_pool() = default;
    obs_pool(const obs_pool&) {}
    obs_pool(obs_pool&&) noexcept = default;
    obs_pool& operator=(const obs_pool&) { return *this; }
    obs_pool& operator=(obs_pool&&) noexcept = default;
    ~obs_pool() = default;
  };
  obs_pool obs_pool_;
  pressure_counters pressure_{};
  double window_s_ = 0.0;
  std::vector<pending_copy> pending_;
  mutable double blocked_budget_ = 0.0;
  mutable std::array<double, 3> blocked_tier_{};
  // Taken once per `legal_actions` (the state its candidates are weighed in): each tier's free
  // share, Ω's locations, each observed layer's part of Eq. 36's inputs; Ω's scratch.
  mutable std::array<double, 3> tier_free_now_{};
  mutable placement_rooms rooms_;
  mutable std::vector<placement_inputs> place_base_;
  mutable placement_inputs place_in_;
  std::vector<int> hops_;  // chiplet_hops(*s_): D_src's distances
  mutable std::vector<place_candidate> omega_;
};

}  // namespace v0
}  // namespace strata
