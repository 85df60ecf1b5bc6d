// SPDX-License-Identifier: MIT
// Fuzz target: a masked Double DQN checkpoint (strata/hcrmap/dqn_json.hpp). The input is parsed
// with strata::parse_json and loaded as a checkpoint; a network that loads scores a fixed set of
// candidate actions, decides greedily under a mask, and must give finite values and a legal choice.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz_support.hpp"
#include "strata/hcrmap/dqn_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
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
    // The loaded agent saves back to a checkpoint that loads to the same network.
    const strata::dqn_agent again = strata::parse_dqn_checkpoint(strata::save_dqn_checkpoint(agent, -1));
    if (!(again.online() == agent.online())) strata_fuzz::finding("checkpoint round trip changed the network");
  });
  return 0;
}
