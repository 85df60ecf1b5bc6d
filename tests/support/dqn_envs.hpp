// Toy environments for the masked Double DQN tests: small MDPs whose optimal legal action is known
// in closed form, with legal sets that change from step to step as HCRMap's candidate sets do.
#pragma once

#include <cstdint>  // std::uint64_t
#include <vector>   // std::vector

#include <Eigen/Core>

#include "strata/core/rng.hpp"
#include "strata/hcrmap/dqn_train.hpp"

namespace strata_test {

/// A contextual bandit: 4 contexts, 5 actions, one step per episode, reward R[s][a] (no noise).
/// Features: one-hot context (4) then one-hot action (5). Every column is a candidate; a random
/// non-empty subset is legal (`legal()`, the masked environment form). The optimal legal action
/// is argmax over the legal a of R[s][a].
struct bandit_env {
  static constexpr int contexts = 4;
  static constexpr int actions = 5;
  static constexpr int features = contexts + actions;
  // Best action differs per context; values 0.25 apart within a row.
  static constexpr double reward_table[contexts][actions] = {
      {0.00, 0.25, 1.00, 0.50, 0.75},
      {1.00, 0.75, 0.50, 0.25, 0.00},
      {0.25, 0.00, 0.75, 1.00, 0.50},
      {0.50, 1.00, 0.00, 0.75, 0.25},
  };

  explicit bandit_env(std::uint64_t seed) : rng(seed) {}

  static Eigen::MatrixXd features_of(int s) {
    Eigen::MatrixXd x = Eigen::MatrixXd::Zero(features, actions);
    for (int a = 0; a < actions; ++a) {
      x(s, a) = 1.0;
      x(contexts + a, a) = 1.0;
    }
    return x;
  }
  /// Optimal legal action of context s under `mask`.
  static int best(int s, const std::vector<bool>& mask) {
    int b = -1;
    for (int a = 0; a < actions; ++a) {
      if (mask[static_cast<std::size_t>(a)] && (b < 0 || reward_table[s][a] > reward_table[s][b])) b = a;
    }
    return b;
  }

  void reset() {
    state = static_cast<int>(rng.below(contexts));
    const auto subset = rng.below((1u << actions) - 1) + 1;  // 1 … 31: a non-empty subset
    mask.assign(actions, false);
    for (int a = 0; a < actions; ++a) mask[static_cast<std::size_t>(a)] = ((subset >> a) & 1u) != 0;
    finished = false;
  }
  [[nodiscard]] Eigen::MatrixXd candidates() const { return features_of(state); }
  [[nodiscard]] std::vector<bool> legal() const { return mask; }
  double step(int a) {
    if (!mask[static_cast<std::size_t>(a)]) illegal_taken = true;
    finished = true;
    return reward_table[state][a];
  }
  [[nodiscard]] bool done() const { return finished; }

  strata::detail::portable_rng rng;
  int state = 0;
  std::vector<bool> mask;
  bool finished = false;
  bool illegal_taken = false;
};

/// A 5-state chain that needs the bootstrap of Eq. 34: states 0 … 4, start uniform in 0 … 3.
/// Actions: right (s → s+1; reward 1 and the end on reaching 4, else 0), exit (reward 0.2, end),
/// stay (reward 0, s unchanged). Right is always legal, exit and stay each with probability 1/2
/// per step. Only the legal actions are offered, as columns (the unmasked environment form), so
/// the number of candidates varies. With γ = 0.9: Q*(s, right) = 0.9^(3 − s) (0.729 … 1),
/// Q*(s, stay) = 0.9 · Q*(s, right), Q*(s, exit) = 0.2: right is optimal everywhere, though a
/// myopic (γ = 0) learner would exit from states 0 … 2.
struct chain_env {
  static constexpr int states = 5;
  static constexpr int kinds = 3;  // right, exit, stay
  static constexpr int features = states + kinds;
  enum { right = 0, exit = 1, stay = 2 };

  explicit chain_env(std::uint64_t seed) : rng(seed) {}

  static Eigen::VectorXd feature(int s, int kind) {
    Eigen::VectorXd x = Eigen::VectorXd::Zero(features);
    x(s) = 1.0;
    x(states + kind) = 1.0;
    return x;
  }
  /// Q* of (s, kind) with γ = 0.9.
  static double q_star(int s, int kind) {
    double right_value = 1.0;
    for (int k = s; k < 3; ++k) right_value *= 0.9;
    return kind == right ? right_value : kind == exit ? 0.2 : 0.9 * right_value;
  }

  void draw_legal() {
    offered = {right};
    if (rng.uniform() < 0.5) offered.push_back(exit);
    if (rng.uniform() < 0.5) offered.push_back(stay);
  }
  void reset() {
    state = static_cast<int>(rng.below(4));
    finished = false;
    draw_legal();
  }
  [[nodiscard]] Eigen::MatrixXd candidates() const {
    Eigen::MatrixXd x(features, static_cast<Eigen::Index>(offered.size()));
    for (std::size_t i = 0; i < offered.size(); ++i) x.col(static_cast<Eigen::Index>(i)) = feature(state, offered[i]);
    return x;
  }
  double step(int column) {
    const int kind = offered[static_cast<std::size_t>(column)];
    double r = 0.0;
    if (kind == exit) {
      r = 0.2;
      finished = true;
    } else if (kind == right) {
      ++state;
      if (state == 4) {
        r = 1.0;
        finished = true;
      }
    }
    draw_legal();
    return r;
  }
  [[nodiscard]] bool done() const { return finished; }

  strata::detail::portable_rng rng;
  int state = 0;
  std::vector<int> offered;
  bool finished = false;
};

static_assert(strata::dqn_environment<bandit_env>);
static_assert(strata::dqn_environment<chain_env>);

/// Parameters that train the toy problems in a few thousand steps. (With these, the bandit and
/// chain tests of dqn_test.cpp pass for each of the agent seeds 1 … 40 tried, not just the one
/// they use; the debug + sanitizer build runs them in seconds.)
inline strata::dqn_params toy_params(std::uint64_t seed) {
  strata::dqn_params p;
  p.hidden = {16, 16};
  p.learning_rate = 3e-3;
  p.batch_size = 32;
  p.replay_capacity = 5000;
  p.learning_starts = 200;
  p.train_period = 1;
  p.target_update_period = 100;
  p.epsilon_start = 1.0;
  p.epsilon_end = 0.05;
  p.epsilon_decay_steps = 800;
  p.seed = seed;
  return p;
}

}  // namespace strata_test
