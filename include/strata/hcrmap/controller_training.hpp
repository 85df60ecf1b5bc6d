// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Offline training of the slow controller's value function (HCRMap §6.4: "during offline
/// training, HCRMap uses Masked Double DQN"; the controller is frozen for evaluation) on the
/// policy comparison's own simulator: the same substrate, package plans, evaluated layers,
/// layouts, fast mapper and critical-path evaluation as `experiment.hpp` (`serving.hpp`).
///
/// Data: only the *profile* split of each scene's trace (sequences at even positions,
/// `split_by_sequence`), the split every policy builds its layout from; the evaluation split (odd
/// positions), on which every reported number is measured, is never read. A scene is a model, a
/// routing trace and a mode; the suite trains on the eight Table 2 models in prefill and decode.
/// A scene in file order (`training_scene::file_order`) is a task-switch scene instead: its
/// windows are the trace's first ones in file order (`windows_in_file_order`, `task_switch.hpp`),
/// so the agent meets drift — used with synthetic traces of the fitted drift
/// (`workload/task_drift.hpp`), never with a trace a task-switch result is measured on.
///
/// Episodes (`controller_env`, a `dqn_environment`): episode i takes scene i mod |scenes| and,
/// cycling with each pass over the scenes, one stage of its package plan that holds evaluated
/// layers. HCRMap's layout is built from profile window 0; on every second pass the greedy
/// planning promotions are installed first (so the agent sees layouts with the copy budget spent
/// and with it free), then windows 1 … `windows` of the profile split are served: each is
/// evaluated, copies in flight land, the controller observes it and makes its ⌊T_window/Δ_w⌋
/// decisions. Each decision with more than one legal candidate is a step: the candidates'
/// feature vectors (F × n) are the columns, every one legal (the controller offers only legal
/// actions, Eq. 28–30, 40), the agent chooses (ε-greedy, `dqn_train.hpp`), the reward is the
/// same-window counterfactual reward of that action (Eq. 31–33, `same_window_reward`; no-op and
/// retain change nothing and earn exactly 0), and the action is applied. The episode ends after
/// the last window's decisions.
///
/// Reproducibility: scenes, windows and stages are fixed; the agent draws from its seeded streams
/// only; every call is made in a fixed order — the same seed gives the same checkpoint.

#include <algorithm>  // std::max
#include <cstddef>    // std::size_t
#include <cstdint>    // std::int64_t
#include <optional>   // std::optional
#include <string>     // std::string
#include <utility>    // std::move
#include <vector>     // std::vector

#include <Eigen/Core>

#include "strata/chiplet/scale_out.hpp"
#include "strata/chiplet/substrate.hpp"
#include "strata/core/error.hpp"
#include "strata/hcrmap/action.hpp"
#include "strata/hcrmap/dqn.hpp"
#include "strata/hcrmap/dqn_train.hpp"
#include "strata/hcrmap/experiment.hpp"
#include "strata/hcrmap/reward.hpp"
#include "strata/hcrmap/scorer.hpp"
#include "strata/hcrmap/serving.hpp"
#include "strata/hcrmap/task_switch.hpp"
#include "strata/hcrmap/trace_split.hpp"
#include "strata/workload/trace.hpp"

namespace strata {
inline namespace v0 {

/// A model, its routing trace (only the profile split is used) and a mode.
struct training_scene {
  model m;
  routing_trace trace;
  phase mode = phase::decode;
  /// Decode windows may reuse sequences of a trace with fewer than the batch's
  /// (`experiment_params::trace_reuse`, which also allows it for every scene).
  bool trace_reuse = false;
  /// Windows in file order over the whole trace (a task-switch scene, file comment) instead of
  /// the profile split's.
  bool file_order = false;
};

/// Knobs of an offline training run.
struct controller_training_params {
  /// The agent. Defaults scaled to a run of a few thousand decisions: hidden {32, 32}
  /// [design choice: 23 features], replay 4 096, learning starts after 256 transitions, target
  /// refreshed every 100 updates, ε from 1 to 0.05 over the first 2 000 actions; the rest as
  /// `dqn_params` (Adam 10⁻³, γ = 0.99, batch 32, Huber δ = 1, seed 20160212).
  dqn_params dqn = [] {
    dqn_params p;
    p.hidden = {32, 32};
    p.replay_capacity = 4096;
    p.learning_starts = 256;
    p.target_update_period = 100;
    p.epsilon_end = 0.05;
    p.epsilon_decay_steps = 2000;
    return p;
  }();
  /// Episodes. [Design choice: 640 — twenty passes over the 32 scenes of the suite: the eight
  /// models in two modes, each on its profile split and on a task-switch trace]
  int episodes = 640;
  /// Training windows served per episode (profile windows 1 … windows). [Design choice: 16]
  int windows = 16;
  /// Steps after which an episode is cut (not terminal). [Design choice: 256]
  int max_steps = 256;
  /// The harness (the same defaults as the comparison).
  experiment_params experiment{};
};

/// The offline environment of the file comment.
class controller_env {
 public:
  template <class = void>
  controller_env(const substrate& s, const std::vector<training_scene>& scenes, const experiment_params& xp = {},
                 int windows = 4)
      : s_(&s), xp_(xp), windows_(windows) {
    constexpr const char* id = "strata.hcrmap.training";
    validate(xp_);
    detail::require(!scenes.empty(), id, "scenes", scenes.size(), "at least one scene");
    detail::require(windows >= 1 && windows <= 1024, id, "windows", windows, "in [1, 1024]");
    const int C = s.chiplets();
    for (const auto& sc : scenes) {
      validate(sc.m);
      require_trace_of_model(sc.trace, sc.m, "the trace of a training scene");
      prepared p;
      p.m = sc.m;
      p.setup = detail::make_experiment_setup(s, sc.m, sc.mode, xp_);
      const auto static_res = stage_residencies(s, sc.m, p.setup.plan, xp_.scale_out);
      const std::vector<std::vector<token_group>> none(static_cast<std::size_t>(sc.m.moe_layers()));
      const auto nr = evaluate_pipeline(s, sc.m, p.setup.plan, static_res, none, p.setup.spec, xp_.scale_out, xp_.critical_path);
      p.non_routed_s = (nr.non_routed + nr.inter_package).si();
      if (sc.file_order) {
        auto w = windows_in_file_order(sc.trace, sc.mode, C, p.setup.spec.tokens, windows + 1, xp_.fast_map.block_tokens);
        detail::require(w.windows.size() == static_cast<std::size_t>(windows) + 1, id, "trace", w.windows.size(),
                        ("windows in file order for a warm-up and " + std::to_string(windows) + " training windows").c_str());
        p.windows = std::move(w.windows);
      } else {
        const auto prof = split_by_sequence(sc.trace).first;  // the training split only
        std::string note;
        for (int i = 0; i <= windows; ++i) {
          p.windows.push_back(detail::window_groups(prof, sc.mode, C, p.setup.spec.tokens, i, xp_.fast_map.block_tokens,
                                                    xp_.trace_reuse || sc.trace_reuse, note));
        }
      }
      scenes_.push_back(std::move(p));
    }
  }
  controller_env(const controller_env&) = delete;
  controller_env& operator=(const controller_env&) = delete;

  /// Starts the next episode (file comment).
  template <class = void>
  void reset() {
    const auto n = static_cast<std::int64_t>(scenes_.size());
    const auto& sc = scenes_[static_cast<std::size_t>(episode_ % n)];
    const std::int64_t pass = episode_ / n;
    ++episode_;
    scene_ = &sc;
    const auto& es = sc.setup.stages[static_cast<std::size_t>(pass % static_cast<std::int64_t>(sc.setup.stages.size()))];
    const std::vector<std::vector<std::vector<token_group>>> first{sc.windows.front()};
    const auto prof = detail::stage_profile(es, sc.m.experts, s_->chiplets(), first);
    eval_.reset();
    session_.reset();
    layers_ = es.local;
    session_.emplace(*s_, sc.m, sc.setup.shape, es, policy_kind::hcrmap, xp_, prof, sc.m.moe_layers());
    if (pass % 2 == 1) session_->plan(sc.windows.front());
    window_ = 0;
    left_ = 0;
    done_ = false;
    next_decision_();
  }
  /// Feature matrix (F × n) of the current decision's legal candidates.
  template <class = void>
  [[nodiscard]] Eigen::MatrixXd candidates() const {
    Eigen::MatrixXd x(static_cast<Eigen::Index>(controller_feature_count), static_cast<Eigen::Index>(acts_.size()));
    for (std::size_t j = 0; j < acts_.size(); ++j) {
      for (std::size_t i = 0; i < controller_feature_count; ++i) {
        x(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = acts_[j].features[i];
      }
    }
    return x;
  }
  /// Every candidate is legal (the controller offers only legal actions).
  template <class = void>
  [[nodiscard]] std::vector<bool> legal() const {
    std::vector<bool> all(acts_.size(), true);  // (a braced list would be two bools)
    return all;
  }
  /// Applies candidate `i` and returns its same-window reward (Eq. 31–33); 0 once done.
  template <class = void>
  double step(int i) {
    if (done_) return 0.0;
    detail::require(i >= 0 && static_cast<std::size_t>(i) < acts_.size(), "strata.hcrmap.training", "choice", i,
                    "a candidate of the current decision");
    const auto a = acts_[static_cast<std::size_t>(i)].action;
    using K = residency_action_kind;
    double r = 0.0;
    if (a.kind == K::promote || a.kind == K::demote || a.kind == K::evict) {
      r = same_window_reward(*s_, scene_->setup.shape, session_->layout(), layers_, eval_->groups, a, xp_.fast_map,
                             xp_.critical_path, session_->controller_knobs());
    }
    session_->controller().apply(a);
    ++steps_;
    --left_;
    next_decision_();
    return r;
  }
  template <class = void>
  [[nodiscard]] bool done() const { return done_; }
  /// Steps taken over all episodes.
  template <class = void>
  [[nodiscard]] std::int64_t steps() const { return steps_; }

 private:
  struct prepared {
    model m;
    detail::experiment_setup setup;
    double non_routed_s = 0.0;
    std::vector<std::vector<std::vector<token_group>>> windows;  ///< profile windows 0 … windows
  };

  /// Moves to the next decision with more than one legal candidate (no-op alone is applied as
  /// the controller would), serving windows as needed; sets done_ after the last window.
  template <class = void>
  void next_decision_() {
    for (;;) {
      while (left_ > 0) {
        acts_ = session_->controller().legal_actions();
        if (acts_.size() > 1) return;
        --left_;  // only no-op: nothing to decide
      }
      if (eval_) session_->end_control();
      if (window_ >= windows_) {
        // The end: a no-op column keeps `candidates` non-empty (an episode without a decision).
        done_ = true;
        acts_.assign(1, scored_action{});
        acts_.front().features[feature::action_no_op] = 1.0;
        return;
      }
      ++window_;
      eval_.emplace(session_->evaluate(scene_->windows[static_cast<std::size_t>(window_)], nullptr, 1.0, 1));
      const double window_s = scene_->non_routed_s + eval_->moe_s * scene_->setup.scale;
      session_->begin_control(*eval_, window_s);
      left_ = session_->decisions(window_s);
    }
  }

  const substrate* s_;
  experiment_params xp_;
  int windows_ = 4;
  std::vector<prepared> scenes_;
  const prepared* scene_ = nullptr;
  std::optional<detail::policy_session> session_;
  std::optional<detail::window_evaluation> eval_;
  std::vector<int> layers_;
  std::vector<scored_action> acts_;
  std::int64_t episode_ = 0, steps_ = 0;
  int window_ = 0, left_ = 0;
  bool done_ = true;
};

/// Trains a fresh agent (seeded by `p.dqn.seed`) on `scenes` (file comment); the frozen result is
/// the agent (save it with `save_dqn_checkpoint`, `dqn_json.hpp`). `log` receives the run's
/// episodes, steps, updates and returns. (A template on the agent's real type, `double`, only so
/// that including this header instantiates no training code: dqn.hpp, "Scalar type".)
template <class Real = double>
basic_dqn_agent<Real> train_controller(const substrate& s, const std::vector<training_scene>& scenes,
                                       const controller_training_params& p = {}, dqn_train_result* log = nullptr) {
  detail::require(p.episodes >= 0, "strata.hcrmap.training", "episodes", p.episodes, ">= 0");
  controller_env env(s, scenes, p.experiment, p.windows);
  basic_dqn_agent<Real> agent(static_cast<int>(controller_feature_count), p.dqn);
  const auto r = train(agent, env, {.episodes = p.episodes, .max_steps = p.max_steps});
  if (log != nullptr) *log = r;
  return agent;
}

}  // namespace v0
}  // namespace strata
