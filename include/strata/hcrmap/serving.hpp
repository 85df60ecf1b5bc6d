// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// One policy serving the evaluated layers of one pipeline stage, window after window — the loop
/// the policy comparison (`experiment.hpp`), its sweeps (`sweeps.hpp`), the trace replay
/// (`replay.hpp`) and the offline training of the controller's value function
/// (`controller_training.hpp`) share, so that all of them see the same layouts, routing,
/// evaluation and residency control.
///
/// A `policy_session` holds the policy's residency (its initial layout from a profile of routed
/// groups, `policies.hpp`) and a residency controller (HCRMap's, §6; MoEntwine uses its copy
/// machinery for the NI-Balancer's moves). Per window: `evaluate` routes every evaluated layer's
/// groups the policy's way (HCRMap: the fast mapper of Algorithm 2; MoEntwine: the least-loaded
/// replica; PIMoE: nearest replica with the throttle-aware PIM offload of cold bank-resident
/// experts; the others: nearest replica) and evaluates the layers' critical paths with the
/// copies in flight charged as migrations; `control` lands copies (`advance`), lets the
/// controller observe the window and decide (HCRMap), or moves one expert from the most to the
/// least loaded chiplet over cold links (MoEntwine), and collects retired replicas.

#include <algorithm>  // std::max, std::min, std::clamp, std::find, std::max_element, std::min_element
#include <array>      // std::array
#include <cstddef>    // std::size_t
#include <optional>   // std::optional
#include <span>       // std::span
#include <stdexcept>  // std::logic_error
#include <string>     // std::string
#include <utility>    // std::move
#include <vector>     // std::vector

#include "strata/chiplet/critical_path.hpp"
#include "strata/chiplet/residency.hpp"
#include "strata/chiplet/substrate.hpp"
#include "strata/chiplet/token_groups.hpp"
#include "strata/chiplet/window.hpp"
#include "strata/hcrmap/action.hpp"
#include "strata/hcrmap/controller.hpp"
#include "strata/hcrmap/experiment_params.hpp"
#include "strata/hcrmap/experiment_result.hpp"
#include "strata/hcrmap/layer_eval.hpp"
#include "strata/hcrmap/pim.hpp"
#include "strata/hcrmap/policies.hpp"
#include "strata/hcrmap/scorer.hpp"
#include "strata/hcrmap/token_mapper.hpp"
#include "strata/workload/trace.hpp"

namespace strata {
inline namespace v0 {
namespace detail {

/// A stage of the pipeline that holds evaluated layers.
struct experiment_stage {
  int index = 0;  ///< stage in the plan
  int first_moe = 0, moe_layers = 0;
  residency_params rp{};
  std::vector<int> local;  ///< evaluated layers, stage-local indices
};

/// Stage times × f.
template <class = void>
inline stage_times scaled(stage_times t, double f) {
  t.gate = t.gate * f;
  t.dispatch = t.dispatch * f;
  t.queue = t.queue * f;
  t.memory = t.memory * f;
  t.compute = t.compute * f;
  t.gather = t.gather * f;
  t.combine = t.combine * f;
  return t;
}

/// Groups of MoE layer `moe` (model index) as stage-local layer `local`.
template <class = void>
inline std::vector<token_group> local_groups(const std::vector<std::vector<token_group>>& g, int moe, int local) {
  auto out = g[static_cast<std::size_t>(moe)];
  for (auto& x : out) x.layer = local;
  return out;
}

/// Window `i` of `t` as token groups per MoE layer, cut into blocks of `block_tokens`: prefill
/// window i is tokens [n·i, n·(i + 1)) (wrapping around), decode window i is step i of one
/// running batch of n concurrent sequences. A decode window is n DISTINCT sequences of `t`: with
/// fewer, it is refused (`config_error` naming `batch`, the message naming `trace_reuse` and
/// `--trace-reuse`) unless `allow_reuse`, which takes several tokens of a sequence, sets `*reused`
/// (when given) and appends a note on the reuse to `note` once.
template <class = void>
inline std::vector<std::vector<token_group>> window_groups(const routing_trace& t, phase mode, int chiplets, int tokens, int i,
                                                           int block_tokens, bool allow_reuse, std::string& note,
                                                           bool* reused = nullptr) {
  decode_batch batch;
  std::vector<std::vector<token_group>> g;
  if (mode == phase::prefill) {
    g = token_groups(t, chiplets, window_tokens{static_cast<std::size_t>(i) * static_cast<std::size_t>(tokens), tokens});
  } else {
    try {
      g = decode_token_groups(t, chiplets, {.batch = tokens, .position = -1, .seed = 0, .step = i, .allow_reuse = allow_reuse},
                              &batch);
    } catch (const config_error& e) {
      if (e.field() != "batch" || allow_reuse) throw;
      throw config_error("batch", "[strata.hcrmap.experiment] a decode window of batch " + std::to_string(tokens) +
                                      " takes one token from each of " + std::to_string(tokens) +
                                      " distinct sequences of each split of the trace (the comparison splits it by "
                                      "sequence), and a split has fewer (" + e.what() +
                                      "): lower the batch (strata-eval hcrmap --batch), give a trace with more sequences, "
                                      "or allow reusing sequences with trace_reuse (strata-eval: --trace-reuse), which "
                                      "the result states");
    }
    if (!batch.concurrent() && reused != nullptr) *reused = true;
  }
  if (!batch.note.empty() && note.find("decode") == std::string::npos) {
    note += (note.empty() ? "" : "; ") + ("decode (trace_reuse): " + batch.note);
  }
  for (auto& gl : g) gl = split_blocks(gl, block_tokens);
  return g;
}

/// One window's evaluation of a stage's evaluated layers.
struct window_evaluation {
  std::vector<std::vector<token_group>> groups;  ///< per evaluated layer, the groups served on cores
  std::vector<directory_layer_eval> evals;       ///< per evaluated layer
  energy_breakdown energy{};
  stage_times stages{};
  double moe_s = 0.0;  ///< Σ T^MoE over the evaluated layers (unscaled)
};

/// HCRMap's first copies (`hcrmap_layout`) of the policies served on one setup, profile and
/// stage set (one `serve_windows` run), kept by (stage, placement knobs, tiers allowed): the
/// variants that change neither — the learned value, the greedy rule, no fast mapping, no
/// migration awareness — start from the same layout, computed once.
struct hcrmap_layout_memo {
  struct entry {
    int stage = 0;
    placement_params knobs;
    std::array<bool, 3> tiers{};
    residency layout;
  };
  std::vector<entry> entries;
};

/// HCRMap's installations before serving (`policy_session::plan`) of the policies served on one
/// setup, profile and stage set and planned on the same windows (one `serve_windows` run), kept by
/// what planning reads: the stage, the first copies (placement knobs, tiers allowed), the routing
/// (the fast mapper and its knobs, or nearest-replica), the controller's knobs but those planning
/// does not read (Eq. 40's η_u: an installation meets no traffic; Eq. 33's μ1, μ2: planning takes
/// no reward), and the windows. The learned value, the greedy rule and the no-migration ablation
/// install the same copies: planned once, the residency and the controller's observed demand
/// taken by the others.
///
/// An entry also keeps the evaluation of the first window served after planning
/// (`policy_session::first_served`): the sessions that take the entry hold the same residency,
/// no copy in flight, and route the same way (the mapper is part of the key), so they evaluate
/// that window as the first did — they differ only in what they decide after it.
struct hcrmap_plan_memo {
  struct entry {
    int stage = 0;
    std::array<bool, 3> tiers{};
    bool fast_map = true;
    fast_map_params mapper;
    controller_params knobs;
    const void* windows = nullptr;  ///< identity of the windows planned on (compared, never read)
    residency planned;
    residency_controller::observed_state observed;
    const void* served = nullptr;  ///< identity of the first served window (compared, never read)
    std::optional<window_evaluation> first;  ///< its evaluation on `planned`
  };
  std::vector<entry> entries;
};

/// One policy on one stage (file comment).
class policy_session {
 public:
  /// The policy's layout from `prof` (the stage's profile, stage-local layers); `moe_layers` is
  /// the model's MoE layer count (copies in flight spread their bytes over it). `value` scores
  /// HCRMap's decisions (an empty function: `greedy_score`); `policy_kind::hcrmap_greedy` always
  /// uses `greedy_score`. `layouts`, when given, holds HCRMap's first copies of the sessions
  /// before this one on the same setup and profile (`hcrmap_layout_memo`): a layout already there
  /// is copied, a new one added.
  template <class = void>
  policy_session(const substrate& s, const model& m, const moe_layer_shape& shape, const experiment_stage& es,
                 policy_kind k, const experiment_params& xp, const expert_profile& prof, int moe_layers,
                 const action_scorer& value = {}, hcrmap_layout_memo* layouts = nullptr)
      : s_(&s), shape_(shape), es_(es), k_(k), xp_(xp), prof_(prof), L_(moe_layers), experts_(m.experts),
        value_(k == policy_kind::hcrmap_greedy || !value ? action_scorer(greedy_score) : value), fm_(xp.fast_map),
        ctl_(xp.controller) {
    std::array<bool, 3> tiers{true, true, true};
    placement_params& pp = ctl_.placement;
    if (k == policy_kind::hcrmap_no_link) fm_.w_path = 0.0, pp.alpha_src = 0.0;
    if (k == policy_kind::hcrmap_no_bank) fm_.w_bank = 0.0, pp.chi_bank = 0.0;
    if (k == policy_kind::hcrmap_no_compute) fm_.w_queue = 0.0, pp.beta_queue = 0.0;
    if (k == policy_kind::hcrmap_no_migration) {
      // Without migration-exposure awareness (Fig. 6): no Eq. 40 mask, no exposure term in the
      // reward, and the value function scores every action as if its copy exposed nothing (the
      // greedy rule's − exposure and the learned value's exposure input are both zero).
      ctl_.eta_mig = 1.0, ctl_.mu_mig = 0.0;
      value_ = [inner = value_](std::span<const double> f) {
        std::array<double, controller_feature_count> blind{};
        detail::require(f.size() == blind.size(), "strata.hcrmap.controller", "features", f.size(), "controller_feature_count entries");
        std::copy(f.begin(), f.end(), blind.begin());
        blind[feature::exposure] = 0.0;
        return inner(blind);
      };
    }
    if (k == policy_kind::hcrmap_no_hbm) tiers = {true, false, true};
    tiers_ = tiers;
    wt_ = expert_bytes(m);
    chiplet_flops_ = s.core_throughput().si() * xp.critical_path.tile_utilization * s.params().cores_per_chiplet;
    switch (k) {
      case policy_kind::single_copy_static: res_.emplace(single_copy_static(s, es.moe_layers, m.experts, wt_, es.rp)); break;
      case policy_kind::fixed_replication:
        res_.emplace(fixed_replication_layout(s, es.moe_layers, m.experts, wt_, es.rp, prof, es.local));
        break;
      case policy_kind::hydra: res_.emplace(hydra_layout(s, es.moe_layers, m.experts, wt_, es.rp, prof)); break;
      case policy_kind::moentwine: res_.emplace(moentwine_layout(s, es.moe_layers, m.experts, wt_, es.rp, prof, es.local)); break;
      case policy_kind::pimoe: res_.emplace(pimoe_layout(s, es.moe_layers, m.experts, wt_, es.rp, prof)); break;
      default: {
        hcrmap_layout_memo::entry* known = nullptr;
        if (layouts != nullptr) {
          for (auto& e : layouts->entries) {
            if (e.stage == es.index && e.knobs == pp && e.tiers == tiers) known = &e;
          }
        }
        if (known != nullptr) {
          res_.emplace(known->layout);
        } else {
          res_.emplace(hcrmap_layout(s, es.moe_layers, m.experts, wt_, es.rp, prof, shape.flops_per_token.si(),
                                     chiplet_flops_, xp.critical_path.window.si(), pp, tiers));
          if (layouts != nullptr) layouts->entries.push_back({es.index, pp, tiers, *res_});
        }
        break;
      }
    }
    ctl_.copy_cap = detail::copy_cap(*res_, es.local) + static_cast<long long>(res_->entries().size()) -
                    static_cast<long long>(es.moe_layers) * m.experts;
    controller_.emplace(s, shape, *res_, ctl_, xp.critical_path);
  }
  // The controller points into the residency: a session is not copied or moved.
  policy_session(const policy_session&) = delete;
  policy_session& operator=(const policy_session&) = delete;

  template <class = void>
  [[nodiscard]] policy_kind policy() const { return k_; }
  template <class = void>
  [[nodiscard]] const residency& layout() const { return *res_; }
  template <class = void>
  [[nodiscard]] residency_controller& controller() { return *controller_; }
  /// The controller's knobs for this policy (the ablation's changes and the copy cap applied).
  template <class = void>
  [[nodiscard]] const controller_params& controller_knobs() const { return ctl_; }
  template <class = void>
  [[nodiscard]] const action_scorer& value() const { return value_; }

  /// HCRMap's promotions before serving (installed at once, like every policy's layout: no
  /// foreground traffic meets these copies, so they carry no Eq. 40 exposure and no feasibility
  /// test, `residency_controller::set_installing`): up to `planning_rounds` rounds on `window`,
  /// each observing the window on the current layout and installing up to ⌈cap / rounds⌉ promotes,
  /// each the legal promote of highest greedy one-step value while it is positive (hysteresis off:
  /// no weights move while serving); planning ends at the first round that installs nothing (with
  /// several windows, the first whole cycle of windows that installs nothing); a layer that the
  /// first window serves slower than before planning then keeps none of its planned copies. The
  /// installer is
  /// the greedy rule for every HCRMap variant: the learned value is trained on serving-time
  /// transitions (copies in flight, exposure, churn; Eq. 31–33), not on installations, and is
  /// used for the serving-time decisions (`control`). No-op for the other policies.
  template <class = void>
  void plan(const std::vector<std::vector<token_group>>& window) {
    plan(std::vector<std::vector<std::vector<token_group>>>{window});
  }
  /// The same over several profile windows (`experiment_params::profile_windows`, the windows
  /// every policy's layout is built from): round r observes window r mod |windows|, so the
  /// controller's demand average and its one-step values see them all.
  ///
  /// `plans`, when given, holds the installations of the sessions before this one on the same
  /// setup and profile, planned on the same `windows` object (`hcrmap_plan_memo`): one already
  /// there is taken (the residency it left and the controller's observed state), a new one added.
  template <class = void>
  void plan(const std::vector<std::vector<std::vector<token_group>>>& windows, hcrmap_plan_memo* plans = nullptr) {
    if (!is_hcrmap(k_) || windows.empty()) return;
    controller_params key = ctl_;  // the knobs planning reads (`hcrmap_plan_memo`)
    key.eta_mig = controller_params{}.eta_mig;
    key.mu_mig = controller_params{}.mu_mig;
    key.mu_churn = controller_params{}.mu_churn;
    const bool fast = k_ != policy_kind::hcrmap_no_fast_map;
    if (plans != nullptr) {
      for (std::size_t i = 0; i < plans->entries.size(); ++i) {
        const auto& e = plans->entries[i];
        if (e.stage != es_.index || e.tiers != tiers_ || e.fast_map != fast || !(e.mapper == fm_) || !(e.knobs == key) ||
            e.windows != static_cast<const void*>(&windows)) {
          continue;
        }
        *res_ = e.planned;  // the controller keeps pointing at *res_
        controller_->adopt(e.observed);
        planned_as_ = i;
        return;
      }
    }
    plan_(windows);
    if (plans != nullptr) {
      plans->entries.push_back({es_.index, tiers_, fast, fm_, key, static_cast<const void*>(&windows), *res_,
                                controller_->observed(), nullptr, std::nullopt});
      planned_as_ = plans->entries.size() - 1;
    }
  }

  /// The first window served after `plan` with `plans` (`evaluate(window, account, scale,
  /// windows)`): the evaluation kept in the plan's entry when a session before this one on the
  /// same entry evaluated the same `window` object there (`hcrmap_plan_memo`), its accounting
  /// added to `account` as `evaluate` adds it; else evaluated and kept there, or, without an
  /// entry, evaluated into `own`. The reference is valid until `plans` gains an entry or `own`
  /// changes. Call it for the first window served, before any `control`: then this session's
  /// residency is the entry's and no copy is in flight (checked: otherwise it evaluates into `own`).
  template <class = void>
  const window_evaluation& first_served(const std::vector<std::vector<token_group>>& window, policy_result* account,
                                        double scale, int windows, hcrmap_plan_memo* plans, window_evaluation& own) const {
    if (plans == nullptr || planned_as_ >= plans->entries.size() || !controller_->pending().empty()) {
      evaluate_into(own, window, account, scale, windows);
      return own;
    }
    auto& e = plans->entries[planned_as_];
    if (e.first && e.served == static_cast<const void*>(&window)) {
      if (account != nullptr) account_(*e.first, account, scale, windows);
      return *e.first;
    }
    if (e.first) {  // kept for another window: this one is not shared
      evaluate_into(own, window, account, scale, windows);
      return own;
    }
    e.served = static_cast<const void*>(&window);
    e.first = evaluate(window, account, scale, windows);
    return *e.first;
  }

 private:
  template <class = void>
  void plan_(const std::vector<std::vector<std::vector<token_group>>>& windows) {
    auto install = ctl_;
    install.hysteresis = 0.0;  // no migration while serving: any gain is worth installing
    controller_->set_params(install);
    controller_->set_installing(true);
    // The installation is checked against the critical path it estimates: a layer that the
    // first window serves slower on the installed layout than on the layout before planning
    // keeps none of its planned copies (the one-step estimate prices each copy against the
    // observed window, so several copies of one layer can together cost what each alone saves).
    const auto& first_window = windows.front();
    const auto before = evaluate(first_window, nullptr, 1.0, 1);
    const std::size_t planned_from = res_->entries().size();
    // Each window's latest evaluation and the evaluated layers (as `es_.local`) given a copy
    // since: planning only adds entries and moves no copy, so a layer it left alone is taken
    // from there (`evaluate_`), not evaluated again.
    std::vector<window_evaluation> latest(windows.size());
    std::vector<std::vector<char>> changed(windows.size(), std::vector<char>(es_.local.size(), 1));
    const auto observed = [&](std::size_t k) -> const window_evaluation& {
      const bool known = !latest[k].evals.empty();
      evaluate_(latest[k], windows[k], nullptr, 1.0, 1, known ? &latest[k] : nullptr, changed[k]);
      std::fill(changed[k].begin(), changed[k].end(), 0);
      return latest[k];
    };
    latest[0] = before;
    std::fill(changed[0].begin(), changed[0].end(), 0);
    std::size_t installed = 0;
    int idle = 0;
    for (int round = 0; round < xp_.planning_rounds; ++round) {
      // Round 0 observes the first window on the layout `before` was evaluated on (nothing
      // installed yet, no copy in flight): that evaluation, not a second one.
      const auto& w = round == 0 ? before : observed(static_cast<std::size_t>(round) % windows.size());
      controller_->observe(es_.local, w.groups, w.evals, std::max(w.moe_s, 1e-12));
      int made = 0;
      const int per_round = static_cast<int>(ctl_.copy_cap / std::max(1, xp_.planning_rounds)) + 1;
      for (int i = 0; i < per_round; ++i) {
        const auto acts = controller_->new_copy_actions();  // what the loop below weighs
        std::size_t best = 0;
        double best_v = 0.0;
        for (std::size_t a = 1; a < acts.size(); ++a) {
          // New copies only: a promote that moves (`entry` ≥ 0) would retire a layout replica.
          if (acts[a].action.kind != residency_action_kind::promote || acts[a].action.entry >= 0) continue;
          const double v = greedy_score(acts[a].features);
          if (v > best_v) {
            best_v = v;
            best = a;
          }
        }
        if (best == 0) break;
        controller_->apply(acts[best].action, true);
        const auto at = std::find(es_.local.begin(), es_.local.end(), acts[best].action.layer) - es_.local.begin();
        for (auto& c : changed) {
          if (static_cast<std::size_t>(at) < c.size()) c[static_cast<std::size_t>(at)] = 1;
          else std::fill(c.begin(), c.end(), 1);  // not an evaluated layer: nothing is taken as known
        }
        ++made;
      }
      controller_->collect();
      installed += static_cast<std::size_t>(made);
      idle = made == 0 ? idle + 1 : 0;
      if (idle >= static_cast<int>(windows.size())) break;  // a whole cycle of windows installed nothing
    }
    // The rollback below retires entries from `planned_from` on, taking them for the planned
    // copies: right only because planning installs promotes alone (each appends one published
    // entry) and retires nothing, so `collect` removed and shifted no entry and the rollback never
    // reaches a layout copy (an expert's first among them). Checked rather than assumed: an
    // installer that also evicted or demoted, or a retiring entry left from before, breaks it.
    if (res_->entries().size() != planned_from + installed) {
      throw std::logic_error("[strata.hcrmap.serving] planning removed or added residency entries other than its promotes: "
                             "its rollback by entry index would retire the wrong replicas");
    }
    const auto& after = observed(0);
    bool undone = false;
    for (std::size_t i = 0; i < es_.local.size(); ++i) {
      if (after.evals[i].result.t_moe.si() <= before.evals[i].result.t_moe.si()) continue;
      for (std::size_t j = planned_from; j < res_->entries().size(); ++j) {
        const auto& de = res_->entries()[j];
        if (de.layer != es_.local[i] || de.state != replica_state::published) continue;
        res_->retire(static_cast<int>(j));
        undone = true;
      }
    }
    if (undone) controller_->collect();
    controller_->set_installing(false);
    controller_->set_params(ctl_);
  }

 public:
  /// Routes and evaluates the window's groups (model MoE-layer indexed) on the evaluated layers.
  /// With `account`, adds the per-chiplet compute and the DRAM/HBM streaming bytes (× `scale` /
  /// `windows`) to it.
  template <class = void>
  window_evaluation evaluate(const std::vector<std::vector<token_group>>& win, policy_result* account, double scale,
                             int windows) const {
    window_evaluation out;
    evaluate_(out, win, account, scale, windows, nullptr, {});
    return out;
  }
  /// `evaluate` into `out`, which is rewritten whole: its buffers (the groups and the layers'
  /// evaluations, `evaluate_directory_layer_into`) are reused, so serving window after window
  /// into one `out` allocates little once they have grown. The same numbers as `evaluate`.
  template <class = void>
  void evaluate_into(window_evaluation& out, const std::vector<std::vector<token_group>>& win, policy_result* account,
                     double scale, int windows) const {
    evaluate_(out, win, account, scale, windows, nullptr, {});
  }

  /// Eq. 1–4 and 21–24 violations of the layout and of every layer's assignment in `w`.
  template <class = void>
  [[nodiscard]] std::size_t violations(const window_evaluation& w) const {
    std::size_t n = res_->violations().size();
    std::vector<replica> reps;
    std::vector<int> assign, at;  // at[entry]: the entry's first position in entry_of_replica
    for (std::size_t i = 0; i < w.evals.size(); ++i) {
      const auto& ev = w.evals[i];
      reps.clear();
      for (int en : ev.entry_of_replica) reps.push_back(res_->as_replica(en));
      // Each group's replica by its entry's position in entry_of_replica (its size when absent).
      const int none = static_cast<int>(ev.entry_of_replica.size());
      std::size_t top = 0;
      for (int en : ev.entry_of_replica) top = std::max(top, static_cast<std::size_t>(en) + 1);
      at.assign(top, none);
      for (std::size_t r = ev.entry_of_replica.size(); r-- > 0;) at[static_cast<std::size_t>(ev.entry_of_replica[r])] = static_cast<int>(r);
      assign.clear();
      for (int en : ev.entry_of_group) {
        assign.push_back(en >= 0 && static_cast<std::size_t>(en) < top ? at[static_cast<std::size_t>(en)] : none);
      }
      n += constraint_violations(*s_, w.groups[i], reps, assign, ev.result).size();
    }
    return n;
  }

  /// Number of controller decisions after a served window of `window_s` (⌊T_window/Δ_w⌋, at
  /// least 1, at most `max_decisions`).
  template <class = void>
  [[nodiscard]] int decisions(double window_s) const {
    return std::clamp(static_cast<int>(window_s / xp_.critical_path.window.si()), 1, ctl_.max_decisions);
  }

  /// The first half of `control`: lands the copies in flight during the window of `window_s`
  /// and lets the controller observe `w` (HCRMap and MoEntwine). Decisions follow (`controller()`
  /// `.decide`), then `end_control`. Returns the copies published.
  template <class = void>
  int begin_control(const window_evaluation& w, double window_s) {
    const int published = controller_->advance(window_s);
    if (is_hcrmap(k_) || k_ == policy_kind::moentwine) {
      controller_->observe(es_.local, w.groups, w.evals, std::max(w.moe_s, 1e-12));
    }
    return published;
  }
  /// The last step of `control`: retired replicas are collected and every replica ages a window.
  template <class = void>
  void end_control() { controller_->collect(); }

  /// Residency control after window `w` of `window_s` was served (file comment); returns the
  /// edits scheduled, and adds them by kind (and the copies published) to `kinds` when given.
  /// `hcrmap_frozen` decides nothing (so nothing is ever in flight): its installed layout stays.
  template <class = void>
  int control(const window_evaluation& w, double window_s, edit_counts* kinds = nullptr) {
    using K = residency_action_kind;
    int edits = 0;
    const int published = begin_control(w, window_s);
    if (kinds != nullptr) kinds->published += published;
    if (is_hcrmap(k_) && k_ != policy_kind::hcrmap_frozen) {
      const int n = decisions(window_s);
      for (int d = 0; d < n; ++d) {
        const auto a = controller_->decide(value_);
        // A decision that changes nothing (no-op, retain) leaves the state every later decision
        // of this window is taken in as it was, and the value function is a function of the
        // features alone (`scorer.hpp`): each of them would make the same choice again.
        if (a.kind == K::no_op || a.kind == K::retain) break;
        edits += 1;
        if (kinds != nullptr) {
          kinds->promotes += a.kind == K::promote ? 1 : 0;
          kinds->demotes += a.kind == K::demote ? 1 : 0;
          kinds->evictions += a.kind == K::evict ? 1 : 0;
          kinds->moves += a.kind == K::demote || (a.kind == K::promote && a.entry >= 0) ? 1 : 0;
        }
      }
    } else if (k_ == policy_kind::moentwine && controller_->pending().empty()) {
      const int moved = ni_balance_(w);
      edits += moved;
      if (kinds != nullptr) kinds->demotes += moved, kinds->moves += moved;
    }
    end_control();
    return edits;
  }

  /// Published replicas of the evaluated layers.
  template <class = void>
  [[nodiscard]] int replicas() const {
    int n = 0;
    for (int l : es_.local) {
      for (int e = 0; e < experts_; ++e) n += static_cast<int>(res_->legal(l, e).size());
    }
    return n;
  }

 private:
  /// The entry of each group of `g` (the policy's routing), valid until the next call. HCRMap's
  /// fast mapper is built once per session and reset per layer (`fast_token_mapper::map`): its
  /// counters are cleared and sized to the directory each time, and what it keeps — the routes
  /// between chiplet pairs — is a function of the substrate alone.
  template <class = void>
  [[nodiscard]] const std::vector<int>& route_(const std::vector<token_group>& g) const {
    if (is_hcrmap(k_) && k_ != policy_kind::hcrmap_no_fast_map) {
      if (!mapper_) mapper_.emplace(*s_, shape_, *res_, fm_, xp_.critical_path);
      mapper_->map_into(g, routed_);
    } else if (k_ == policy_kind::moentwine) {
      routed_ = least_tokens_replica(*res_, g);
    } else {
      routed_ = nearest_replica(*s_, *res_, g);
    }
    return routed_;
  }

  /// `evaluate` into `out` (rewritten whole, its buffers reused), taking from `known` — an
  /// evaluation of the same window on this residency, which has only gained entries since, `out`
  /// itself or another — every evaluated layer `changed` does not mark (indexed as `es_.local`):
  /// a layer's routing and critical path read the window's groups of the layer, the entries of
  /// the layer and the copies in flight (none while planning), so an unchanged layer evaluates as
  /// before, its entry-indexed vectors padded with zeros to the directory's size.
  template <class = void>
  void evaluate_(window_evaluation& out, const std::vector<std::vector<token_group>>& win, policy_result* account,
                 double scale, int windows, const window_evaluation* known, const std::vector<char>& changed) const {
    const auto mig = controller_->migrations(L_);
    const auto& res = *res_;
    const int C = s_->chiplets();
    const std::size_t n = es_.local.size();
    if (known != &out) {
      out.groups.resize(n);
      out.evals.resize(n);
    }
    out.energy = energy_breakdown{};
    out.stages = stage_times{};
    out.moe_s = 0.0;
    for (std::size_t li = 0; li < n; ++li) {
      const int local = es_.local[li];
      if (known != nullptr && changed[li] == 0) {
        if (known != &out) {
          out.groups[li] = known->groups[li];
          out.evals[li] = known->evals[li];
        }
        out.evals[li].entry_tokens.resize(res.entries().size(), 0.0);
        out.evals[li].entry_finish_s.resize(res.entries().size(), 0.0);
      } else {
        auto& lg = out.groups[li];
        {  // `detail::local_groups` into the kept buffer
          const auto& src = win[static_cast<std::size_t>(es_.first_moe) + static_cast<std::size_t>(local)];
          lg.assign(src.begin(), src.end());
          for (auto& x : lg) x.layer = local;
        }
        const auto& entries = route_(lg);
        if (k_ == policy_kind::pimoe) {
          // Throttle-aware offload: cold bank-resident experts' groups to PIM when the PIM estimate
          // beats the core estimate and the unit is below its throttle.
          std::vector<token_group> core, pim;
          std::vector<int> core_e, pim_e;
          std::vector<double> unit(s_->banks().size(), 0.0), chip(static_cast<std::size_t>(C), 0.0);
          double mean = 0.0;
          for (int e = 0; e < experts_; ++e) mean += prof_.at(local, e) / experts_;
          for (std::size_t g = 0; g < lg.size(); ++g) {
            const auto& grp = lg[g];
            const auto& de = res.entries()[static_cast<std::size_t>(entries[g])];
            const double flops = grp.tokens * shape_.flops_per_token.si();
            bool off = false;
            const auto& unit_p = xp_.pim.of(res.tier(entries[g]));  // SRAM, and tiers without PIM: 0
            if (unit_p.flops_per_byte > 0.0 && prof_.at(local, grp.expert) < mean) {
              double bw = 0.0;
              for (int j = 0; j < de.span; ++j) bw += s_->banks()[static_cast<std::size_t>(de.bank) + static_cast<std::size_t>(j)].bandwidth.si();
              const double t_pim = unit[de.bank] + flops / (unit_p.flops_per_byte * bw);
              const double t_core = chip[de.chiplet] + flops / chiplet_flops_ + wt_.si() / bw;
              off = t_pim < t_core && unit[de.bank] < xp_.pim.throttle * xp_.critical_path.window.si();
              if (off) unit[de.bank] = t_pim;
            }
            if (!off) chip[de.chiplet] += flops / chiplet_flops_;
            (off ? pim : core).push_back(grp);
            (off ? pim_e : core_e).push_back(entries[g]);
          }
          // Banks serving a PIM stream and a core stream share their bandwidth (`pim.hpp`).
          std::vector<double> core_s(s_->banks().size(), 0.0);
          {
            std::vector<char> seen(res.entries().size(), 0);
            for (std::size_t g = 0; g < core.size(); ++g) {
              if (core[g].tokens <= 0 || seen[static_cast<std::size_t>(core_e[g])] != 0) continue;
              seen[static_cast<std::size_t>(core_e[g])] = 1;
              const auto& de = res.entries()[static_cast<std::size_t>(core_e[g])];
              for (int j = 0; j < de.span; ++j) {
                const auto b = static_cast<std::size_t>(de.bank) + static_cast<std::size_t>(j);
                core_s[b] += shape_.weight_bytes.si() / de.span / s_->banks()[b].bandwidth.si();
              }
            }
          }
          const auto share = pim_bank_contention(core_s, detail::pim_bank_stream_s(*s_, shape_, res, pim_e, xp_.pim));
          auto& ev = out.evals[li];
          evaluate_directory_layer_into(ev, *s_, shape_, res, core, core_e, xp_.critical_path, mig, share);
          const double t_pim = detail::pim_layer(*s_, shape_, res, pim, pim_e, ev.result.critical.gate.si(),
                                                 ev.result.critical.combine.si(), xp_.pim, ev.result.energy, core_s);
          if (t_pim > ev.result.t_moe.si()) {
            // The PIM groups are critical: their excess over the cores' path is memory-side service.
            ev.result.critical.memory += duration<>::from_si(t_pim - ev.result.t_moe.si());
            ev.result.t_moe = duration<>::from_si(t_pim);
          }
          lg = std::move(core);
        } else {
          evaluate_directory_layer_into(out.evals[li], *s_, shape_, res, lg, entries, xp_.critical_path, mig);
        }
      }
      const auto& r = out.evals[li].result;
      out.moe_s += r.t_moe.si();
      out.energy += r.energy;
      out.stages += r.critical;
    }
    if (account != nullptr) account_(out, account, scale, windows);
  }

  /// Adds the compute per chiplet and the DRAM/HBM streaming and D2D bytes of `w` (× `scale` /
  /// `windows`) to `account`, layer by layer (each sum in the order of the layers).
  template <class = void>
  void account_(const window_evaluation& w, policy_result* account, double scale, int windows) const {
    const auto& res = *res_;
    for (const auto& ev : w.evals) {
      const auto& r = ev.result;
      for (std::size_t i = 0; i < ev.entry_of_replica.size(); ++i) {
        const auto& de = res.entries()[static_cast<std::size_t>(ev.entry_of_replica[i])];
        account->chiplet_busy_s[de.chiplet] += r.replica_tokens[i] * shape_.flops_per_token.si() / chiplet_flops_;
      }
      for (std::size_t b = 0; b < s_->banks().size(); ++b) {
        if (s_->banks()[b].tier == tier_kind::dram) account->dram_stream_bytes += r.bank_bytes[b * 2] * scale / windows;
        if (s_->banks()[b].tier == tier_kind::hbm) account->hbm_stream_bytes += r.bank_bytes[b * 2] * scale / windows;
      }
      for (std::size_t u = 0; u < s_->links().size(); ++u) {
        account->d2d_bytes += r.link_load(static_cast<int>(u)) * scale / windows;
        account->d2d_token_bytes += (r.link_bytes[u * 4] + r.link_bytes[u * 4 + 1]) * scale / windows;
      }
    }
  }

  /// MoEntwine's NI-Balancer: one expert from the most to the least loaded chiplet over cold links.
  template <class = void>
  int ni_balance_(const window_evaluation& w) {
    const auto& s = *s_;
    auto& res = *res_;
    const int C = s.chiplets();
    std::vector<double> busy(static_cast<std::size_t>(C), 0.0);
    const directory_layer_eval* worst = nullptr;
    for (const auto& ev : w.evals) {
      if (worst == nullptr || ev.result.t_moe > worst->result.t_moe) worst = &ev;
    }
    for (std::size_t i = 0; worst != nullptr && i < worst->entry_of_replica.size(); ++i) {
      busy[res.entries()[static_cast<std::size_t>(worst->entry_of_replica[i])].chiplet] += worst->result.replica_tokens[i];
    }
    const auto hi = static_cast<int>(std::max_element(busy.begin(), busy.end()) - busy.begin());
    const auto lo = static_cast<int>(std::min_element(busy.begin(), busy.end()) - busy.begin());
    int pick = -1;
    double pick_tok = 0.0;
    for (std::size_t i = 0; worst != nullptr && i < worst->entry_of_replica.size(); ++i) {
      const int en = worst->entry_of_replica[i];
      const auto& de = res.entries()[static_cast<std::size_t>(en)];
      if (de.chiplet != hi || static_cast<int>(de.age) < ctl_.min_age) continue;
      if (worst->result.replica_tokens[i] > pick_tok) {
        pick_tok = worst->result.replica_tokens[i];
        pick = en;
      }
    }
    if (pick < 0 || hi == lo) return 0;
    const auto& de = res.entries()[static_cast<std::size_t>(pick)];
    // Only the nearest home with room is tried: a hot path to it stops the move.
    const auto to = res.nearest_room(de.layer, de.expert, lo, res.tier(pick), lo);
    if (!to) return 0;
    std::vector<int> path;
    s.append_route(s.bank_node(de.bank), s.bank_node(to->bank), path);
    const auto per_layer = data_size<>::from_si(wt_.si() / L_);
    if (!path.empty() && !migration_allowed(s, worst->result, path, per_layer, worst->result.t_moe, 0.5)) return 0;
    residency_action a;
    a.kind = residency_action_kind::demote;  // a move: copy, then retire the old replica
    a.layer = de.layer;
    a.expert = de.expert;
    a.entry = pick;
    a.target = *to;
    controller_->apply(a);
    return 1;
  }

  const substrate* s_;
  moe_layer_shape shape_;
  experiment_stage es_;
  policy_kind k_;
  experiment_params xp_;
  expert_profile prof_;
  int L_ = 0, experts_ = 0;
  action_scorer value_;
  fast_map_params fm_;
  controller_params ctl_;
  data_size<> wt_{};
  std::array<bool, 3> tiers_{true, true, true};  ///< tiers the first copies may use
  double chiplet_flops_ = 0.0;
  std::size_t planned_as_ = static_cast<std::size_t>(-1);  ///< the `hcrmap_plan_memo` entry planned or taken
  std::optional<residency> res_;
  std::optional<residency_controller> controller_;
  mutable std::optional<fast_token_mapper> mapper_;  ///< HCRMap's (`route_`), on `*res_`
  mutable std::vector<int> routed_;                  ///< `route_`'s result
};

}  // namespace detail
}  // namespace v0
}  // namespace strata
