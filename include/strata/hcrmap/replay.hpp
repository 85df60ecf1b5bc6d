// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Experience replay for HCRMap's masked Double DQN (HCRMap §6.4; Mnih et al., "Human-level
/// control through deep reinforcement learning", Nature 518, 2015, Methods "experience replay").
///
/// A transition (s_w, a_w, R_w, s_{w+1}) of the residency MDP is stored as the controller sees it:
/// the feature vector φ(s_w, a_w) of the action taken, the reward R_w (Eq. 33), whether the
/// episode ended, and the feature vectors φ(s_{w+1}, a′) of every action of the legal set
/// A^legal_{w+1} (Eq. 28–30). Storing the legal next actions, not a mask over a fixed action set,
/// is what lets the candidate set change from window to window; it is also exactly what the
/// Double DQN target of Eq. 34 maximises over, so masking holds in training as in inference.
///
/// The buffer keeps the last `capacity` transitions (a ring: the oldest is overwritten) and
/// samples a minibatch uniformly with replacement, as DQN does, from a caller-given portable
/// random stream (core/rng.hpp), so sampling is reproducible from the agent's seed. Memory is
/// capacity × (1 + legal next actions) × features doubles: 10 000 transitions of 64 candidates
/// of 32 features hold 166 MB; the controller sizes `dqn_params::replay_capacity` to its
/// candidate count.

#include <cmath>    // std::isfinite
#include <cstddef>  // std::size_t
#include <string>   // std::to_string
#include <utility>  // std::move
#include <vector>   // std::vector

#include <Eigen/Core>

#include "strata/core/error.hpp"
#include "strata/core/rng.hpp"
#include "strata/hcrmap/q_network.hpp"

namespace strata {
inline namespace v0 {

/// One step of the residency MDP, in feature space (see the file comment).
template <class Real = double>
struct basic_dqn_transition {
  /// φ(s_w, a_w): features of the action taken (F).
  q_vector<Real> action;
  /// R_w (Eq. 33).
  Real reward = 0;
  /// The episode ended with this step: the target is R_w alone (no bootstrap).
  bool terminal = false;
  /// φ(s_{w+1}, a′) for every a′ ∈ A^legal_{w+1}, one column each (F × |A^legal_{w+1}|). Empty
  /// when `terminal`; a non-terminal step needs at least one column (no-op is always legal).
  q_matrix<Real> next_legal;
};

/// The `double` transition the controller stores.
using dqn_transition = basic_dqn_transition<double>;

/// Throws `config_error` naming the field unless `t` is a well-formed transition of `features`
/// inputs: finite features and reward, and next actions present exactly when not terminal.
template <class Real>
void validate(const basic_dqn_transition<Real>& t, int features) {
  constexpr const char* id = "strata.dqn";
  detail::require(t.action.size() == features, id, "transition.action", t.action.size(),
                  ("a vector of the network's " + std::to_string(features) + " features").c_str());
  detail::require(t.action.allFinite(), id, "transition.action", "a non-finite feature", "finite");
  detail::require(std::isfinite(t.reward), id, "transition.reward", t.reward, "finite");
  if (t.terminal) {
    detail::require(t.next_legal.size() == 0, id, "transition.next_legal", t.next_legal.cols(),
                    "empty for a terminal transition (0 columns)");
  } else {
    detail::require(t.next_legal.cols() >= 1, id, "transition.next_legal", t.next_legal.cols(),
                    ">= 1 legal next action for a non-terminal transition");
    detail::require(t.next_legal.rows() == features, id, "transition.next_legal", t.next_legal.rows(),
                    ("rows equal to the network's " + std::to_string(features) + " features").c_str());
    detail::require(t.next_legal.allFinite(), id, "transition.next_legal", "a non-finite feature", "finite");
  }
}

/// A bounded ring of transitions with uniform sampling (see the file comment).
template <class Real = double>
class basic_replay_buffer {
 public:
  using transition = basic_dqn_transition<Real>;

  /// A buffer of at most `capacity` transitions (> 0; `dqn_params` bounds it). Nothing is
  /// reserved up front: memory grows with the transitions actually stored.
  explicit basic_replay_buffer(std::size_t capacity = 1) : capacity_(capacity) {
    detail::require(capacity >= 1, "strata.dqn", "replay_capacity", capacity, ">= 1");
  }

  /// Stores `t`, overwriting the oldest transition once full.
  void push(transition t) {
    if (items_.size() < capacity_) {
      items_.push_back(std::move(t));
    } else {
      items_[next_] = std::move(t);
    }
    next_ = (next_ + 1) % capacity_;
  }

  /// `n` indices drawn uniformly with replacement from the stored transitions (none if empty).
  [[nodiscard]] std::vector<std::size_t> sample(std::size_t n, detail::portable_rng& rng) const {
    std::vector<std::size_t> idx;
    if (items_.empty()) return idx;
    idx.reserve(n);
    for (std::size_t i = 0; i < n; ++i) idx.push_back(static_cast<std::size_t>(rng.below(items_.size())));
    return idx;
  }

  /// The transition at storage index `i` (< size()).
  [[nodiscard]] const transition& operator[](std::size_t i) const { return items_[i]; }
  /// Transitions stored.
  [[nodiscard]] std::size_t size() const { return items_.size(); }
  /// Largest number of transitions kept.
  [[nodiscard]] std::size_t capacity() const { return capacity_; }
  /// Storage index the next `push` writes.
  [[nodiscard]] std::size_t next_slot() const { return next_; }

 private:
  std::size_t capacity_;
  std::size_t next_ = 0;
  std::vector<transition> items_;
};

/// The `double` replay buffer.
using replay_buffer = basic_replay_buffer<double>;

}  // namespace v0
}  // namespace strata
