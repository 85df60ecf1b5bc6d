// Speed of the masked Double DQN of HCRMap's residency controller (Google Benchmark). Medians go
// into docs/speed.md. Target: one controller decision (64 candidate actions scored, the best legal one
// chosen) under 1 ms (issue 10, "Done when").
#include <benchmark/benchmark.h>

#include <vector>

#include "strata/core/rng.hpp"
#include "strata/hcrmap/dqn.hpp"

namespace {

constexpr int k_features = 32;  // a few dozen residency features per (state, action) pair

Eigen::MatrixXd random_candidates(int n, std::uint64_t seed) {
  strata::detail::portable_rng r(seed);
  Eigen::MatrixXd x(k_features, n);
  for (Eigen::Index j = 0; j < x.cols(); ++j) {
    for (Eigen::Index i = 0; i < x.rows(); ++i) x(i, j) = r.uniform();
  }
  return x;
}

// One frozen decision: score `range(0)` candidates with the default 64-64 network and take the
// best legal one (every third candidate illegal).
void bm_dqn_decision(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const strata::dqn_agent agent(k_features);
  const Eigen::MatrixXd x = random_candidates(n, 1);
  std::vector<bool> legal(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) legal[static_cast<std::size_t>(i)] = i % 3 != 1;
  for (auto _ : state) {
    benchmark::DoNotOptimize(agent.greedy(x, legal));
  }
  state.counters["candidates"] = n;
  state.counters["parameters"] = static_cast<double>(agent.online().parameters());
}
BENCHMARK(bm_dqn_decision)->Arg(16)->Arg(64)->Arg(256)->Unit(benchmark::kMicrosecond);

// One minibatch update (batch 32, Adam, Eq. 34 targets over `range(0)` legal next actions per
// transition) with the default network, on a full replay buffer of 1 000 transitions.
void bm_dqn_train_step(benchmark::State& state) {
  const int next = static_cast<int>(state.range(0));
  strata::dqn_params p;
  p.learning_starts = 1 << 30;  // fill without training; the loop calls train_step
  p.replay_capacity = 1000;
  strata::dqn_agent agent(k_features, p);
  strata::detail::portable_rng r(2);
  for (int i = 0; i < p.replay_capacity; ++i) {
    const bool terminal = i % 50 == 49;
    agent.observe({.action = random_candidates(1, 10 + static_cast<std::uint64_t>(i)).col(0),
                   .reward = r.uniform() - 0.5,
                   .terminal = terminal,
                   .next_legal = terminal ? Eigen::MatrixXd() : random_candidates(next, 5000 + static_cast<std::uint64_t>(i))});
  }
  for (auto _ : state) {
    benchmark::DoNotOptimize(agent.train_step());
  }
  state.counters["batch"] = p.batch_size;
  state.counters["next_actions"] = next;
}
BENCHMARK(bm_dqn_train_step)->Arg(8)->Arg(64)->Unit(benchmark::kMicrosecond);

}  // namespace
