#include "strata/hcrmap/replay.hpp"

#include <doctest/doctest.h>

#include <cmath>   // std::nan
#include <limits>  // std::numeric_limits
#include <vector>  // std::vector

#include "support/field_of.hpp"

using namespace strata;
using strata_test::field_of;

namespace {
dqn_transition terminal_with_reward(double r) {
  return {.action = Eigen::VectorXd::Constant(2, r), .reward = r, .terminal = true, .next_legal = {}};
}
}  // namespace

TEST_CASE("the buffer keeps the last `capacity` transitions, overwriting the oldest") {
  replay_buffer b(3);
  for (int i = 0; i < 5; ++i) b.push(terminal_with_reward(i));
  CHECK(b.size() == 3);
  CHECK(b.capacity() == 3);
  // Pushes 0,1,2 fill slots 0,1,2; 3 and 4 overwrite slots 0 and 1.
  CHECK(b[0].reward == 3.0);
  CHECK(b[1].reward == 4.0);
  CHECK(b[2].reward == 2.0);
  CHECK(b.next_slot() == 2);
  CHECK(field_of([] { replay_buffer(0); }) == "replay_capacity");
}

TEST_CASE("sampling is uniform with replacement and reproducible from the stream's seed") {
  replay_buffer b(4);
  for (int i = 0; i < 4; ++i) b.push(terminal_with_reward(i));
  detail::portable_rng r1(9), r2(9);
  const auto s1 = b.sample(40000, r1);
  CHECK(s1 == b.sample(40000, r2));
  std::vector<int> counts(4, 0);
  for (const auto i : s1) ++counts[i];
  // 10 000 expected per slot, binomial sd = sqrt(40000 · 1/4 · 3/4) = 87: within 5 sd.
  for (const int c : counts) CHECK(std::abs(c - 10000) < 5 * 87);
  CHECK(replay_buffer(2).sample(5, r1).empty());
}

TEST_CASE("a transition is checked against the network's features") {
  const auto ok = [] {
    return dqn_transition{.action = Eigen::VectorXd::Zero(3), .reward = 1.0, .terminal = false,
                          .next_legal = Eigen::MatrixXd::Zero(3, 2)};
  };
  CHECK(field_of([&] { validate(ok(), 3); }) == "<no config_error>");
  CHECK(field_of([&] { validate(ok(), 4); }) == "transition.action");
  auto t = ok();
  t.action(1) = std::nan("");
  CHECK(field_of([&] { validate(t, 3); }) == "transition.action");
  t = ok();
  t.reward = std::numeric_limits<double>::infinity();
  CHECK(field_of([&] { validate(t, 3); }) == "transition.reward");
  t = ok();
  t.next_legal.resize(3, 0);  // a non-terminal step needs a legal next action
  CHECK(field_of([&] { validate(t, 3); }) == "transition.next_legal");
  t = ok();
  t.next_legal = Eigen::MatrixXd::Zero(2, 2);
  CHECK(field_of([&] { validate(t, 3); }) == "transition.next_legal");
  t = ok();
  t.terminal = true;  // a terminal step has no next actions
  CHECK(field_of([&] { validate(t, 3); }) == "transition.next_legal");
}
