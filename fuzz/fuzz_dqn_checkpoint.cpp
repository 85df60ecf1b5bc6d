// SPDX-License-Identifier: MIT
// Fuzz target: a masked Double DQN checkpoint (strata/hcrmap/dqn_json.hpp). The input is parsed
// with strata::parse_json and loaded as a checkpoint; a network that loads scores a fixed set of
// candidate actions, decides greedily under a mask, and must give finite values and a legal choice;
// a network of the controller's 23 features is also wrapped as the controller's value function
// (strata/hcrmap/dqn_scorer.hpp, what the paper report loads) and must score as the agent does.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "fuzz_support.hpp"
#include "strata/hcrmap/dqn_json.hpp"
#include "strata/hcrmap/dqn_scorer.hpp"

STRATA_FUZZ_TARGET(fuzz_dqn_checkpoint) {
  strata_fuzz::run([&] {
    const strata::dqn_agent agent = strata::parse_dqn_checkpoint(strata_fuzz::as_text(data, size), "fuzz.json");
    // Three candidates with features in [-1, 1] (the scale the controller's features have).
    Eigen::MatrixXd x(agent.features(), 3);
    for (Eigen::Index j = 0; j < x.cols(); ++j) {
      for (Eigen::Index i = 0; i < x.rows(); ++i) x(i, j) = static_cast<double>((i * 7 + j * 3) % 9) / 4.0 - 1.0;
    }
    // A network whose Q overflows on these features is a config_error of `candidates`: accepted.
    const Eigen::VectorXd q = agent.scores(x);
    for (Eigen::Index i = 0; i < q.size(); ++i) strata_fuzz::require_finite(q(i), "Q value");
    const std::vector<bool> legal = {false, true, true};
    const int a = agent.greedy(x, legal);
    if (a != 1 && a != 2) strata_fuzz::finding("greedy chose an illegal or out-of-range action", a);
    if (agent.features() == static_cast<int>(strata::controller_feature_count)) {
      const strata::dqn_scorer value(agent);
      const Eigen::VectorXd col = x.col(1);
      const double v = value(std::span<const double>(col.data(), static_cast<std::size_t>(col.size())));
      // One column against the batched pass: equal up to rounding.
      if (!(std::abs(v - q(1)) <= 1e-9 * (1.0 + std::abs(q(1))))) {
        strata_fuzz::finding("the controller's value differs from the agent's Q", v);
      }
    }
    // The loaded agent saves back to a checkpoint that loads to the same network.
    const strata::dqn_agent again = strata::parse_dqn_checkpoint(strata::save_dqn_checkpoint(agent, -1));
    if (!(again.online() == agent.online())) strata_fuzz::finding("checkpoint round trip changed the network");
  });
  return 0;
}
