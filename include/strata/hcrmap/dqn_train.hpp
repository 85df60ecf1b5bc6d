// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Offline training of HCRMap's masked Double DQN (HCRMap §6.4: "during offline training, HCRMap
/// uses Masked Double DQN"; the controller is frozen for evaluation). The controller wraps its
/// simulator as an environment — each step one decision window: the candidate actions' feature
/// vectors and legal mask, the chosen edit applied, the same-window counterfactual reward of
/// Eq. 31–33 returned — and `train` runs the agent of dqn.hpp on it.
///
/// One step of `train`: the agent chooses ε-greedily among the legal candidates (`act`), the
/// environment applies the choice and returns R_w, and the transition (features of the chosen
/// action, R_w, whether the episode ended, the features of every legal action of the next window)
/// is observed — stored in the replay buffer and trained on per the agent's schedule. An episode
/// ends when the environment says `done()` (a terminal transition, no bootstrap) or after
/// `max_steps` steps (not terminal: the last transition still bootstraps, since the time limit
/// is not part of the MDP; Pardo et al., ICML 2018). Every call is made in a fixed order, so a
/// seeded agent on a deterministic environment trains to bit-identical weights.

#include <concepts>  // std::convertible_to
#include <cstddef>   // std::size_t
#include <cstdint>   // std::int64_t
#include <string>    // std::to_string
#include <utility>   // std::move
#include <vector>    // std::vector

#include <Eigen/Core>

#include "strata/core/error.hpp"
#include "strata/hcrmap/dqn.hpp"

namespace strata {
inline namespace v0 {

/// An environment a `dqn_agent` can be trained on offline (e.g. the residency controller replaying
/// simulator windows): `reset()` starts an episode; `candidates()` returns the feature matrix of
/// the current window's candidate actions (F × n, one column per action); `step(i)` applies
/// candidate i and returns its reward (Eq. 33); `done()` says whether the episode has ended. An
/// environment may also have `legal()`, a `std::vector<bool>` mask over the columns (Eq. 28–30);
/// without it every column is legal.
template <class E>
concept dqn_environment = requires(E& env, int choice) {
  env.reset();
  { env.candidates() } -> std::convertible_to<Eigen::MatrixXd>;
  { env.step(choice) } -> std::convertible_to<double>;
  { env.done() } -> std::convertible_to<bool>;
};

/// Length of an offline training run.
struct dqn_train_options {
  /// Episodes to run. [Design choice: a short run; an offline training run sets its own]
  int episodes = 100;
  /// Steps after which an episode is cut (not terminal: the last step bootstraps).
  int max_steps = 1000;
};

/// What a training run did.
struct dqn_train_result {
  int episodes = 0;
  std::int64_t steps = 0;
  std::int64_t updates = 0;
  /// Undiscounted return of every episode.
  std::vector<double> returns;
  /// Mean loss of the last update (0 if none ran).
  double last_loss = 0.0;
};

/// Trains `agent` on `env` for `o.episodes` episodes: in each step the agent acts ε-greedily over
/// the legal candidates, the environment returns the reward, and the transition (chosen features,
/// reward, end of episode, legal next features) is observed (stored, trained on per schedule).
template <class Real, dqn_environment E>
dqn_train_result train(basic_dqn_agent<Real>& agent, E& env, const dqn_train_options& o = {}) {
  using matrix = q_matrix<Real>;
  detail::require(o.episodes >= 0, "strata.dqn", "episodes", o.episodes, ">= 0");
  detail::require(o.max_steps >= 1, "strata.dqn", "max_steps", o.max_steps, ">= 1");
  constexpr bool masked = requires(E& e) {
    { e.legal() } -> std::convertible_to<std::vector<bool>>;
  };
  // The legal columns of the current window, and its mask.
  const auto window = [&env](matrix& x, std::vector<bool>& legal) {
    x = env.candidates();
    if constexpr (masked) {
      legal = env.legal();
      detail::require(legal.size() == static_cast<std::size_t>(x.cols()), "strata.dqn", "legal", legal.size(),
                      ("one entry per candidate (" + std::to_string(x.cols()) + ")").c_str());
    } else {
      legal.assign(static_cast<std::size_t>(x.cols()), true);
    }
  };
  const auto legal_columns = [](const matrix& x, const std::vector<bool>& legal) {
    Eigen::Index n = 0;
    for (const bool b : legal) n += b ? 1 : 0;
    matrix out(x.rows(), n);
    n = 0;
    for (std::size_t i = 0; i < legal.size(); ++i) {
      if (legal[i]) out.col(n++) = x.col(static_cast<Eigen::Index>(i));
    }
    return out;
  };
  dqn_train_result r;
  matrix x, x_next;
  std::vector<bool> legal, legal_next;
  for (int ep = 0; ep < o.episodes; ++ep) {
    env.reset();
    window(x, legal);
    double ret = 0.0;
    for (int t = 0; t < o.max_steps; ++t) {
      const int a = agent.act(x, legal);
      const double reward = env.step(a);
      const bool done = env.done();
      basic_dqn_transition<Real> tr{.action = x.col(a), .reward = static_cast<Real>(reward), .terminal = done,
                                    .next_legal = {}};
      if (!done) {
        window(x_next, legal_next);
        tr.next_legal = legal_columns(x_next, legal_next);
      }
      if (const auto loss = agent.observe(std::move(tr))) r.last_loss = *loss;
      ret += reward;
      ++r.steps;
      if (done) break;
      x.swap(x_next);
      legal.swap(legal_next);
    }
    r.returns.push_back(ret);
    ++r.episodes;
  }
  r.updates = agent.updates();
  return r;
}

}  // namespace v0
}  // namespace strata
