// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The masked Double DQN of HCRMap's slow residency controller (HCRMap §6.3–6.4, Eq. 34;
/// van Hasselt, Guez and Silver, "Deep Reinforcement Learning with Double Q-learning", AAAI 2016;
/// Mnih et al., "Human-level control through deep reinforcement learning", Nature 518, 2015).
/// It is the learnable value function the controller plugs in: independent of the chiplet model,
/// it sees only feature vectors φ(s_w, a) of (state, candidate action) pairs and the rewards the
/// controller computes (Eq. 31–33).
///
/// Masking. In each window the controller offers its candidate actions (no-op, promote, retain,
/// demote, evict of the candidate experts over their feasible locations, Eq. 27) as the columns of
/// a feature matrix, with a legal mask from Eq. 28–30 (replica count, residency budget, bank
/// capacity, migration path). `greedy` returns argmax_{a legal} Q_θ(s, a); `act` is ε-greedy and
/// explores uniformly among the legal columns only, so an illegal action is never chosen, not even
/// at random. Ties go to the lowest column, so a decision is a deterministic function of the
/// weights and the features.
///
/// Target (Eq. 34, Double DQN). For a stored transition (φ(s_w, a_w), R_w, terminal, the legal
/// next features {φ(s_{w+1}, a′)}):
///   a* = argmax_{a′ ∈ A^legal_{w+1}} Q_θ(s_{w+1}, a′)        (the online network selects)
///   y  = R_w + γ · Q_θ̄(s_{w+1}, a*)                            (the target network evaluates)
/// and y = R_w for a terminal transition. Decoupling selection from evaluation is what reduces
/// DQN's max-operator overestimation (van Hasselt et al., §3–4); the maximum runs over the legal
/// next set only, so training never bootstraps from an infeasible edit. An episode cut short by
/// `dqn_train_options::max_steps` is not terminal: its last step still bootstraps (a time limit
/// is not a state of the MDP; Pardo et al., "Time Limits in Reinforcement Learning", ICML 2018).
///
/// Loss. The Huber loss of the TD error u = Q_θ(s_w, a_w) − y with threshold δ:
///   ℓ(u) = u²/2 for |u| ≤ δ,  δ(|u| − δ/2) otherwise;   ∂ℓ/∂Q = clamp(u, −δ, δ),
/// averaged over the minibatch. For |u| ≤ δ it is the squared loss L(θ) = (Q_θ − y)² of §6.4
/// (halved); beyond δ its gradient is bounded, which is DQN's "error clipping" (Mnih et al.,
/// Methods). The gradient is then clipped to a global norm (`max_grad_norm`) and applied by Adam
/// or SGD (q_network.hpp gives the equations).
///
/// Schedule. Every call of `observe` stores a transition in the replay buffer (replay.hpp);
/// once `learning_starts` transitions have been observed, every `train_period`-th one triggers a
/// minibatch update. The target network θ̄ is a copy of θ refreshed every `target_update_period`
/// updates (DQN's hard update), or, with `polyak_tau` τ > 0, moved after every update as
/// θ̄ ← (1 − τ) θ̄ + τ θ (Lillicrap et al., "Continuous control with deep reinforcement learning",
/// ICLR 2016). ε falls linearly from `epsilon_start` to `epsilon_end` over `epsilon_decay_steps`
/// calls of `act` (Mnih et al., Extended Data Table 1).
///
/// Determinism. The agent draws from three portable streams seeded from `seed` (core/rng.hpp):
/// initial weights, exploration, replay sampling. The same seed, features and sequence of calls
/// give bit-identical weights on one build, and the same decisions; `train` (dqn_train.hpp)
/// drives the calls in a fixed order from an environment, so seeded training is reproducible end
/// to end.
///
/// \code
/// strata::dqn_params p;                  // documented defaults
/// p.hidden = {32, 32};
/// strata::dqn_agent agent(/*features=*/12, p);
/// my_env env;                            // satisfies strata::dqn_environment
/// const auto log = strata::train(agent, env, {.episodes = 500, .max_steps = 64});  // dqn_train.hpp
/// const int choice = agent.greedy(candidates, legal);   // a frozen decision
/// \endcode

#include <algorithm>  // std::max, std::min, std::clamp
#include <cmath>      // std::abs, std::isfinite
#include <cstddef>    // std::size_t
#include <cstdint>    // std::int64_t, std::uint64_t
#include <optional>   // std::optional
#include <string>     // std::string, std::to_string
#include <utility>    // std::move
#include <vector>     // std::vector

#include <Eigen/Core>

#include "strata/core/error.hpp"
#include "strata/core/limits.hpp"
#include "strata/core/rng.hpp"
#include "strata/hcrmap/q_network.hpp"
#include "strata/hcrmap/replay.hpp"

namespace strata {
inline namespace v0 {

/// Size bounds of a Double DQN (a checkpoint from outside is checked against them before anything
/// is allocated). The default network has 6 337 parameters for 32 features (checked in
/// dqn_test.cpp); these bounds allow networks over 600 times larger while the five copies an agent
/// keeps (online and target networks, gradient, Adam's two moments) stay within 160 MiB.
struct dqn_size_limits {
  static constexpr int features = 4096;       ///< input features F
  static constexpr int width = 4096;          ///< any hidden width h_k
  static constexpr int hidden_layers = 8;     ///< hidden layers K
  static constexpr std::int64_t parameters = std::int64_t{1} << 22;  ///< weights + biases (32 MiB)
  static constexpr int batch_size = 1 << 16;  ///< minibatch size
  static constexpr int replay_capacity = 1 << 22;  ///< transitions kept
};

/// Hyper-parameters of the masked Double DQN. Standard choices follow DQN (Mnih et al., Nature
/// 2015, Extended Data Table 1: [Mnih ED1]) and Double DQN (van Hasselt et al., AAAI 2016:
/// [vH16]); where the Atari-scale value does not fit a residency controller that sees 10³–10⁵
/// windows, the default is scaled and says so.
struct dqn_params {
  /// Hidden widths h_1 … h_K (ReLU). [Design choice: two layers of 64 — the residency features
  /// (demand, fluctuation, entropy, age, pressures, capacity, the action's tier and chiplet) are a
  /// few dozen, and one 64-candidate decision stays in tens of µs (benchmarks/dqn_bench.cpp)]
  std::vector<int> hidden = {64, 64};
  /// Optimiser. [Adam, Kingma and Ba, ICLR 2015; Mnih ED1 used RMSProp, Adam is the usual
  /// replacement in later DQN work]
  q_optimizer optimizer = q_optimizer::adam;
  /// Step size α. [Kingma and Ba 2015, §2 and Algorithm 1: α = 0.001]
  double learning_rate = 1e-3;
  /// Adam β1. [Kingma and Ba 2015, Algorithm 1: 0.9]
  double adam_beta1 = 0.9;
  /// Adam β2. [Kingma and Ba 2015, Algorithm 1: 0.999]
  double adam_beta2 = 0.999;
  /// Adam ε̂. [Kingma and Ba 2015, Algorithm 1: 10⁻⁸]
  double adam_epsilon = 1e-8;
  /// Discount γ of Eq. 34. [Mnih ED1 and vH16: 0.99]
  double gamma = 0.99;
  /// Minibatch size. [Mnih ED1: 32]
  int batch_size = 32;
  /// Transitions kept in the replay buffer. [Mnih ED1: 1 000 000 frames; design choice 10 000,
  /// scaled to an offline run of 10³–10⁵ windows]
  int replay_capacity = 10000;
  /// Transitions observed before the first update. [Mnih ED1: replay start size 50 000, 5 % of the
  /// memory; design choice 1 000, 10 % of `replay_capacity`]
  std::int64_t learning_starts = 1000;
  /// Transitions observed between updates. [Mnih ED1: update frequency 4]
  int train_period = 4;
  /// Updates between hard target refreshes θ̄ ← θ (used when `polyak_tau` = 0). [Mnih ED1:
  /// 10 000 parameter updates; vH16 tuned: 30 000 frames = 7 500 updates; design choice 1 000,
  /// scaled as `replay_capacity`]
  int target_update_period = 1000;
  /// Soft target rate τ (0: hard updates as DQN and Double DQN do). [Lillicrap et al., ICLR 2016:
  /// τ = 0.001 when used]
  double polyak_tau = 0.0;
  /// ε at the first action. [Mnih ED1: initial exploration 1]
  double epsilon_start = 1.0;
  /// ε after the decay. [vH16, tuned Double DQN: 0.01 during learning (Mnih ED1: 0.1)]
  double epsilon_end = 0.01;
  /// Actions over which ε falls linearly (0: ε = `epsilon_end` throughout). [Mnih ED1: final
  /// exploration frame 1 000 000, 20 × the replay start; design choice 10 000, scaled as
  /// `learning_starts`]
  std::int64_t epsilon_decay_steps = 10000;
  /// Huber threshold δ on the TD error. [Mnih ED1 / Methods: error term clipped to [−1, 1], which
  /// is δ = 1]
  double huber_delta = 1.0;
  /// Global gradient-norm clip (0: none). [Design choice: 10 bounds an update after a reward
  /// outlier without touching typical minibatches, whose Huber gradients have norm ≲ 1 per layer]
  double max_grad_norm = 10.0;
  /// Seed of the three random streams (weights, exploration, replay). [Design choice: any fixed
  /// value; results are reproducible for a given seed]
  std::uint64_t seed = 20160212;

  /// Field list for JSON (strata/core/json.hpp).
  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("hidden", s.hidden);
    v("optimizer", s.optimizer);
    v("learning_rate", s.learning_rate);
    v("adam_beta1", s.adam_beta1);
    v("adam_beta2", s.adam_beta2);
    v("adam_epsilon", s.adam_epsilon);
    v("gamma", s.gamma);
    v("batch_size", s.batch_size);
    v("replay_capacity", s.replay_capacity);
    v("learning_starts", s.learning_starts);
    v("train_period", s.train_period);
    v("target_update_period", s.target_update_period);
    v("polyak_tau", s.polyak_tau);
    v("epsilon_start", s.epsilon_start);
    v("epsilon_end", s.epsilon_end);
    v("epsilon_decay_steps", s.epsilon_decay_steps);
    v("huber_delta", s.huber_delta);
    v("max_grad_norm", s.max_grad_norm);
    v("seed", s.seed);
  }
  friend bool operator==(const dqn_params&, const dqn_params&) = default;
};

namespace detail {

/// validate(dqn_params) with every field named `prefix + field` (a checkpoint passes "params.").
template <class = void>
inline void validate_dqn(const dqn_params& p, int features, const std::string& prefix) {
  constexpr const char* id = "strata.dqn";
  using L = dqn_size_limits;
  const auto f = [&](const char* name) { return prefix + name; };
  require(features >= 1 && features <= L::features, id, f("features"), features,
          ("in [1, " + std::to_string(L::features) + "] (strata::dqn_size_limits::features)").c_str());
  require(p.hidden.size() <= static_cast<std::size_t>(L::hidden_layers), id, f("hidden"), p.hidden.size(),
          ("at most " + std::to_string(L::hidden_layers) + " hidden layers (strata::dqn_size_limits::hidden_layers)")
              .c_str());
  std::int64_t params = 0;
  std::int64_t in = features;
  for (std::size_t k = 0; k <= p.hidden.size(); ++k) {
    const std::int64_t out = k == p.hidden.size() ? 1 : p.hidden[k];
    if (k < p.hidden.size()) {
      require(out >= 1 && out <= L::width, id, f("hidden[") + std::to_string(k) + "]", out,
              ("in [1, " + std::to_string(L::width) + "] (strata::dqn_size_limits::width)").c_str());
    }
    params += (in + 1) * out;  // widths <= 4096: no overflow
    in = out;
  }
  require(params <= L::parameters, id, f("hidden"), params,
          ("a network of at most " + std::to_string(L::parameters) +
           " weights and biases (strata::dqn_size_limits::parameters)")
              .c_str());
  require(p.learning_rate > 0.0 && p.learning_rate <= 1.0, id, f("learning_rate"), p.learning_rate, "in (0, 1]");
  require(p.adam_beta1 >= 0.0 && p.adam_beta1 < 1.0, id, f("adam_beta1"), p.adam_beta1, "in [0, 1)");
  require(p.adam_beta2 >= 0.0 && p.adam_beta2 < 1.0, id, f("adam_beta2"), p.adam_beta2, "in [0, 1)");
  require(p.adam_epsilon > 0.0 && p.adam_epsilon <= 1.0, id, f("adam_epsilon"), p.adam_epsilon, "in (0, 1]");
  require_in(p.gamma, 0.0, 1.0, id, f("gamma"));
  require(p.batch_size >= 1 && p.batch_size <= L::batch_size, id, f("batch_size"), p.batch_size,
          ("in [1, " + std::to_string(L::batch_size) + "] (strata::dqn_size_limits::batch_size)").c_str());
  require(p.replay_capacity >= 1 && p.replay_capacity <= L::replay_capacity, id, f("replay_capacity"),
          p.replay_capacity,
          ("in [1, " + std::to_string(L::replay_capacity) + "] (strata::dqn_size_limits::replay_capacity)").c_str());
  require(p.learning_starts >= 0, id, f("learning_starts"), p.learning_starts, ">= 0");
  require(p.train_period >= 1, id, f("train_period"), p.train_period, ">= 1");
  require(p.target_update_period >= 1, id, f("target_update_period"), p.target_update_period, ">= 1");
  require_in(p.polyak_tau, 0.0, 1.0, id, f("polyak_tau"));
  require_in(p.epsilon_start, 0.0, 1.0, id, f("epsilon_start"));
  require_in(p.epsilon_end, 0.0, 1.0, id, f("epsilon_end"));
  require(p.epsilon_decay_steps >= 0, id, f("epsilon_decay_steps"), p.epsilon_decay_steps, ">= 0");
  require_positive(p.huber_delta, id, f("huber_delta"));
  require_nonnegative(p.max_grad_norm, id, f("max_grad_norm"));
}

/// Seed of the agent's random stream `stream` (0 weights, 1 exploration, 2 replay).
template <class = void>
inline std::uint64_t dqn_stream_seed(std::uint64_t seed, std::uint64_t stream) noexcept {
  std::uint64_t x = seed ^ (0xA0761D6478BD642Full * (stream + 1));
  return splitmix64_mix(x);
}

/// Index of the largest value among the legal entries (ties: lowest index); -1 if none is legal.
template <class V>
int legal_argmax(const V& q, const std::vector<bool>* legal) {
  int best = -1;
  for (Eigen::Index i = 0; i < q.size(); ++i) {
    if (legal != nullptr && !(*legal)[static_cast<std::size_t>(i)]) continue;
    if (best < 0 || q(i) > q(best)) best = static_cast<int>(i);
  }
  return best;
}

}  // namespace detail

/// Throws `config_error` naming the field unless `p` is a valid Double DQN for `features` inputs
/// (ranges as commented on each field; sizes within `dqn_size_limits`).
template <class = void>
inline void validate(const dqn_params& p, int features) { detail::validate_dqn(p, features, {}); }

/// Huber loss ℓ_δ(u) (see the file comment).
template <class = void>
inline double huber_loss(double u, double delta) {
  const double a = std::abs(u);
  return a <= delta ? 0.5 * u * u : delta * (a - 0.5 * delta);
}
/// ∂ℓ_δ/∂u = clamp(u, −δ, δ).
template <class = void>
inline double huber_derivative(double u, double delta) { return std::clamp(u, -delta, delta); }

/// The Double DQN target of Eq. 34 for one transition: R + γ · Q_target(s′, argmax_{a′ legal}
/// Q_online(s′, a′)), or R if terminal. `t` must be valid for the networks' features.
template <class Real>
Real double_dqn_target(const basic_q_network<Real>& online, const basic_q_network<Real>& target,
                       const basic_dqn_transition<Real>& t, double gamma) {
  if (t.terminal) return t.reward;
  const q_vector<Real> q = online.values(t.next_legal);
  const int best = detail::legal_argmax(q, nullptr);
  return t.reward + static_cast<Real>(gamma) * target.value(t.next_legal.col(best));
}

/// A masked Double DQN agent: online and target networks, optimiser state, replay buffer and the
/// seeded random streams (see the file comment). A template on the real type only so that
/// including the header instantiates nothing (q_network.hpp, "Scalar type"); use `dqn_agent`.
template <class Real = double>
class basic_dqn_agent {
 public:
  using network = basic_q_network<Real>;
  using transition = basic_dqn_transition<Real>;
  using matrix = q_matrix<Real>;
  using vector = q_vector<Real>;

  /// A fresh agent for `features` inputs; throws `config_error` naming the field of a bad `p`.
  explicit basic_dqn_agent(int features, const dqn_params& p = {}) : p_(p), features_(features) {
    validate(p_, features_);
    detail::portable_rng init(detail::dqn_stream_seed(p_.seed, 0));
    online_ = network(features_, p_.hidden, init);
    init_state();
  }

  /// An agent around a given network (a loaded checkpoint): the target network starts as a copy,
  /// the optimiser, replay and counters start empty. Throws `config_error` unless `net`'s shape
  /// is the one `p.hidden` describes.
  basic_dqn_agent(const dqn_params& p, network net) : p_(p), features_(net.features()), online_(std::move(net)) {
    validate(p_, features_);
    detail::require(online_.hidden() == p_.hidden, "strata.dqn", "hidden", online_.hidden().size(),
                    "the hidden widths of the network (a network and params that agree)");
    init_state();
  }

  [[nodiscard]] const dqn_params& params() const { return p_; }
  [[nodiscard]] int features() const { return features_; }
  /// Q_θ, the network that decides.
  [[nodiscard]] const network& online() const { return online_; }
  /// Q_θ̄, the network that evaluates the targets.
  [[nodiscard]] const network& target() const { return target_; }
  [[nodiscard]] const basic_replay_buffer<Real>& replay() const { return replay_; }
  /// Calls of `act` so far (the ε schedule's clock).
  [[nodiscard]] std::int64_t actions() const { return actions_; }
  /// Transitions observed so far.
  [[nodiscard]] std::int64_t observed() const { return observed_; }
  /// Minibatch updates applied so far.
  [[nodiscard]] std::int64_t updates() const { return trainer_.steps(); }

  /// Q_θ of every candidate (column) of `candidates` (F × n, n ≥ 1, finite).
  [[nodiscard]] vector scores(const Eigen::Ref<const matrix>& candidates) const {
    check_candidates(candidates, nullptr);
    return checked_values(candidates);
  }

  /// argmax_a Q_θ(s, a) over every column (all legal); ties go to the lowest column.
  [[nodiscard]] int greedy(const Eigen::Ref<const matrix>& candidates) const {
    return detail::legal_argmax(scores(candidates), nullptr);
  }
  /// argmax over the columns with `legal[i]` true (the mask of Eq. 28–30); `legal` has one entry
  /// per column and at least one true. Illegal columns are never returned.
  [[nodiscard]] int greedy(const Eigen::Ref<const matrix>& candidates, const std::vector<bool>& legal) const {
    check_candidates(candidates, &legal);
    return detail::legal_argmax(checked_values(candidates), &legal);
  }

  /// ε at the current action count: linear from `epsilon_start` to `epsilon_end` over
  /// `epsilon_decay_steps` actions, then constant.
  [[nodiscard]] double epsilon() const {
    if (p_.epsilon_decay_steps <= 0 || actions_ >= p_.epsilon_decay_steps) return p_.epsilon_end;
    const double frac = static_cast<double>(actions_) / static_cast<double>(p_.epsilon_decay_steps);
    return p_.epsilon_start + frac * (p_.epsilon_end - p_.epsilon_start);
  }

  /// ε-greedy choice over every column (all legal); advances the ε clock.
  int act(const Eigen::Ref<const matrix>& candidates) { return act_impl(candidates, nullptr); }
  /// ε-greedy choice over the legal columns only: with probability ε a uniformly drawn legal
  /// column, else `greedy(candidates, legal)`. Advances the ε clock. Never returns an illegal column.
  int act(const Eigen::Ref<const matrix>& candidates, const std::vector<bool>& legal) {
    return act_impl(candidates, &legal);
  }

  /// The Double DQN target y of Eq. 34 for `t` with the agent's online and target networks.
  [[nodiscard]] Real target_value(const transition& t) const {
    validate(t, features_);
    return double_dqn_target(online_, target_, t, p_.gamma);
  }

  /// Stores `t` (validated) in the replay buffer and, on the schedule of the file comment, runs
  /// one minibatch update; returns its loss when it ran.
  std::optional<double> observe(transition t) {
    validate(t, features_);
    replay_.push(std::move(t));
    ++observed_;
    if (observed_ >= p_.learning_starts && observed_ % p_.train_period == 0) return train_step();
    return std::nullopt;
  }

  /// One minibatch update now: samples `batch_size` transitions, computes their Eq. 34 targets,
  /// takes one optimiser step on the mean Huber loss, updates the target network; returns the
  /// loss before the step. Throws `config_error` if the replay buffer is empty.
  double train_step() {
    detail::require(replay_.size() >= 1, "strata.dqn", "replay", replay_.size(), ">= 1 stored transition");
    const auto idx = replay_.sample(static_cast<std::size_t>(p_.batch_size), replay_rng_);
    const auto n = static_cast<Eigen::Index>(idx.size());
    // Chosen actions, and every legal next action of the non-terminal samples side by side.
    matrix xa(features_, n);
    Eigen::Index next_cols = 0;
    for (std::size_t i = 0; i < idx.size(); ++i) {
      const transition& t = replay_[idx[i]];
      xa.col(static_cast<Eigen::Index>(i)) = t.action;
      next_cols += t.next_legal.cols();
    }
    vector y(n);
    if (next_cols > 0) {
      matrix xn(features_, next_cols);
      Eigen::Index c = 0;
      for (const std::size_t i : idx) {
        const transition& t = replay_[i];
        if (t.terminal) continue;  // no next actions (a 0 × 0 matrix)
        xn.middleCols(c, t.next_legal.cols()) = t.next_legal;
        c += t.next_legal.cols();
      }
      const vector q_next = online_.values(xn);  // selection by θ ...
      matrix chosen(features_, n);
      Eigen::Index used = 0;
      c = 0;
      for (const std::size_t i : idx) {
        const transition& t = replay_[i];
        if (t.terminal) continue;
        const int best = detail::legal_argmax(q_next.segment(c, t.next_legal.cols()), nullptr);
        chosen.col(used++) = t.next_legal.col(best);
        c += t.next_legal.cols();
      }
      const vector q_eval = target_.values(chosen.leftCols(used));  // ... evaluation by θ̄
      const Real gamma = static_cast<Real>(p_.gamma);
      used = 0;
      for (std::size_t i = 0; i < idx.size(); ++i) {
        const transition& t = replay_[idx[i]];
        y(static_cast<Eigen::Index>(i)) = t.terminal ? t.reward : t.reward + gamma * q_eval(used++);
      }
    } else {
      for (std::size_t i = 0; i < idx.size(); ++i) y(static_cast<Eigen::Index>(i)) = replay_[idx[i]].reward;
    }
    // Mean Huber loss and its gradient ∂L/∂Q_i = clamp(Q_i − y_i, −δ, δ) / n.
    const vector q = online_.forward(xa, cache_);
    vector dq(n);
    double loss = 0.0;
    for (Eigen::Index i = 0; i < n; ++i) {
      const double u = static_cast<double>(q(i) - y(i));
      loss += huber_loss(u, p_.huber_delta);
      dq(i) = static_cast<Real>(huber_derivative(u, p_.huber_delta) / static_cast<double>(n));
    }
    grad_.zero();
    online_.backward(cache_, dq, grad_);
    // Checked before the step, so a diverged batch leaves the weights as they were.
    if (!std::isfinite(loss) || !grad_.finite()) {
      throw solver_error("[strata.dqn] training diverged: the minibatch loss or gradient is not finite (lower "
                         "learning_rate, or bound the rewards and features)");
    }
    if (p_.max_grad_norm > 0.0) {
      const double norm = static_cast<double>(grad_.norm());
      if (norm > p_.max_grad_norm) grad_.scale(static_cast<Real>(p_.max_grad_norm / norm));
    }
    trainer_.step(online_, grad_,
                  {.kind = p_.optimizer, .learning_rate = p_.learning_rate, .beta1 = p_.adam_beta1,
                   .beta2 = p_.adam_beta2, .epsilon = p_.adam_epsilon});
    if (p_.polyak_tau > 0.0) {
      target_.blend_from(online_, p_.polyak_tau);
    } else if (trainer_.steps() % p_.target_update_period == 0) {
      target_ = online_;
    }
    return loss / static_cast<double>(n);
  }

 private:
  void init_state() {
    target_ = online_;
    trainer_ = basic_q_trainer<Real>(online_);
    grad_ = online_.zero_gradient();
    replay_ = basic_replay_buffer<Real>(static_cast<std::size_t>(p_.replay_capacity));
    explore_rng_ = detail::portable_rng(detail::dqn_stream_seed(p_.seed, 1));
    replay_rng_ = detail::portable_rng(detail::dqn_stream_seed(p_.seed, 2));
  }

  void check_candidates(const Eigen::Ref<const matrix>& x, const std::vector<bool>* legal) const {
    constexpr const char* id = "strata.dqn";
    detail::require(x.cols() >= 1, id, "candidates", x.cols(), ">= 1 candidate action (a column)");
    detail::require(x.rows() == features_, id, "candidates", x.rows(),
                    ("rows equal to the network's " + std::to_string(features_) + " features").c_str());
    detail::require(x.allFinite(), id, "candidates", "a non-finite feature", "finite");
    if (legal != nullptr) {
      detail::require(legal->size() == static_cast<std::size_t>(x.cols()), id, "legal", legal->size(),
                      ("one entry per candidate (" + std::to_string(x.cols()) + ")").c_str());
      bool any = false;
      for (const bool b : *legal) any = any || b;
      detail::require(any, id, "legal", "no legal action", "at least one legal candidate (no-op is always legal)");
    }
  }

  int act_impl(const Eigen::Ref<const matrix>& candidates, const std::vector<bool>* legal) {
    check_candidates(candidates, legal);
    const double eps = epsilon();
    ++actions_;
    // Both draws are taken on every call, so the exploration stream stays aligned whatever ε is.
    const double u = explore_rng_.uniform();
    const auto n = static_cast<std::size_t>(candidates.cols());
    std::size_t n_legal = n;
    if (legal != nullptr) {
      n_legal = 0;
      for (const bool b : *legal) n_legal += b ? 1 : 0;
    }
    const std::uint64_t pick = explore_rng_.below(n_legal);
    if (u < eps) {
      if (legal == nullptr) return static_cast<int>(pick);
      std::uint64_t seen = 0;
      for (std::size_t i = 0; i < n; ++i) {
        if ((*legal)[i] && seen++ == pick) return static_cast<int>(i);
      }
    }
    return detail::legal_argmax(checked_values(candidates), legal);
  }

  // Q_θ of the candidates; a non-finite Q (finite weights and features can still overflow) is an
  // error, never a decision.
  [[nodiscard]] vector checked_values(const Eigen::Ref<const matrix>& candidates) const {
    vector q = online_.values(candidates);
    detail::require(q.allFinite(), "strata.dqn", "candidates", "a non-finite Q value",
                    "features for which the network's Q is finite (weights or features too large)");
    return q;
  }

  dqn_params p_;
  int features_ = 0;
  network online_, target_;
  basic_q_trainer<Real> trainer_;
  basic_q_gradient<Real> grad_;
  typename network::cache cache_;
  basic_replay_buffer<Real> replay_;
  detail::portable_rng explore_rng_{0}, replay_rng_{0};
  std::int64_t actions_ = 0;
  std::int64_t observed_ = 0;
};

/// The `double` agent the controller trains and decides with.
using dqn_agent = basic_dqn_agent<double>;

}  // namespace v0
}  // namespace strata
