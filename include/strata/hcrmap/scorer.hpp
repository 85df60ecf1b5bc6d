// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Value functions of the slow controller: a scorer maps the feature vector of a legal action
/// (`action.hpp`) to a value, and the controller takes the argmax (ties: no-op, then the first).
/// `greedy_score` is §6.4's one-step rule in closed form — the benefit feature minus the
/// migration exposure feature — the ablation and fallback of the learned value function
/// (`dqn_scorer.hpp`, the masked Double DQN of Eq. 34).

#include <functional>  // std::function
#include <span>        // std::span
#include <string>      // std::to_string

#include "strata/core/error.hpp"
#include "strata/hcrmap/action.hpp"

namespace strata {
inline namespace v0 {

/// A value function over feature vectors: a function of the features alone (the same features,
/// the same value; the controller's serving loop relies on it, `policy_session::control`).
using action_scorer = std::function<double(std::span<const double>)>;

/// A value function with the name a report gives it ("greedy", "dqn:<checkpoint>", ...); an
/// empty `score` is the greedy rule.
struct controller_value {
  std::string name = "greedy";
  action_scorer score;
};

/// The greedy one-step scorer (§6.4 in closed form): benefit − migration exposure.
inline double greedy_score(std::span<const double> f) {
  if (f.size() != controller_feature_count) {
    throw config_error("features", "[strata.hcrmap.controller] features has " + std::to_string(f.size()) +
                                       " entries, expected controller_feature_count = " +
                                       std::to_string(controller_feature_count));
  }
  return f[feature::benefit] - f[feature::exposure];
}

}  // namespace v0
}  // namespace strata
