#include "strata/hcrmap/dqn.hpp"

#include <doctest/doctest.h>

#include <cmath>       // std::abs, std::pow
#include <functional>  // std::function
#include <limits>      // std::numeric_limits
#include <vector>      // std::vector

#include "support/field_of.hpp"
#include "support/common.hpp"

using namespace strata;
using doctest::Approx;
using strata_test::field_of;

namespace {

// Q(x) = w2 · ReLU(w1 · x + b1) + b2 with one hidden unit, for hand-computed targets.
q_network one_unit(double w1a, double w1b, double b1, double w2, double b2) {
  q_layer l1{Eigen::MatrixXd(1, 2), Eigen::VectorXd(1)};
  l1.weights << w1a, w1b;
  l1.bias << b1;
  q_layer l2{Eigen::MatrixXd(1, 1), Eigen::VectorXd(1)};
  l2.weights << w2;
  l2.bias << b2;
  return q_network({l1, l2});
}

using strata_test::mask_of;

}  // namespace

TEST_CASE("the Double DQN target selects with the online network and evaluates with the target (Eq. 34)") {
  // Online Q(x) = ReLU(x0); target Q̄(x) = 2 ReLU(x1) + 0.5.
  const q_network online = one_unit(1, 0, 0, 1, 0);
  const q_network target = one_unit(0, 1, 0, 2, 0.5);
  dqn_transition t{.action = Eigen::Vector2d(1, 1), .reward = 1.0, .terminal = false, .next_legal = Eigen::MatrixXd(2, 2)};
  t.next_legal << 3, 1,  // columns a = (3, 1) and b = (1, 5)
      1, 5;
  // Online scores a: 3, b: 1 -> a* = a. Target at a: 2·1 + 0.5 = 2.5. y = 1 + 0.9·2.5 = 3.25.
  // (DQN's max over the target would take b: 2·5 + 0.5 = 10.5 and give 10.45.)
  CHECK(double_dqn_target(online, target, t, 0.9) == Approx(3.25));
  SUBCASE("only legal next actions enter the maximum") {
    // With a illegal, only b is stored: y = 1 + 0.9·10.5 = 10.45.
    t.next_legal = t.next_legal.col(1).eval();
    CHECK(double_dqn_target(online, target, t, 0.9) == Approx(10.45));
  }
  SUBCASE("a terminal transition does not bootstrap") {
    t.terminal = true;
    t.next_legal.resize(2, 0);
    CHECK(double_dqn_target(online, target, t, 0.9) == 1.0);
  }
  SUBCASE("ties in the online scores go to the first column") {
    t.next_legal << 2, 2, 1, 5;  // online 2 and 2 -> first: target 2·1 + 0.5
    CHECK(double_dqn_target(online, target, t, 0.5) == Approx(1.0 + 0.5 * 2.5));
  }
  SUBCASE("the agent computes the same target with its own networks") {
    dqn_params p;
    p.hidden = {1};
    dqn_agent agent(p, online);  // target = online at load: y = 1 + 0.99 · ReLU(3) = 3.97
    CHECK(agent.target_value(t) == Approx(1.0 + 0.99 * 3.0));
  }
}

TEST_CASE("an illegal action is never chosen, not even when exploring") {
  constexpr int n = 6;
  dqn_params p;
  p.hidden = {8};
  p.epsilon_decay_steps = 0;
  detail::portable_rng draw(77);
  Eigen::MatrixXd x(4, n);
  for (Eigen::Index j = 0; j < n; ++j) {
    for (Eigen::Index i = 0; i < 4; ++i) x(i, j) = draw.normal();
  }
  SUBCASE("ε = 1: uniform over the legal set") {
    p.epsilon_end = 1.0;
    dqn_agent agent(4, p);
    std::vector<int> counts(n, 0);
    int illegal = 0, draws_on_mask_0b100101 = 0;
    for (int k = 0; k < 20000; ++k) {
      const unsigned bits = static_cast<unsigned>(draw.below((1u << n) - 1)) + 1;
      const auto legal = mask_of(bits, n);
      const int a = agent.act(x, legal);
      illegal += legal[static_cast<std::size_t>(a)] ? 0 : 1;
      if (bits == 0b100101u) {
        ++counts[static_cast<std::size_t>(a)];
        ++draws_on_mask_0b100101;
      }
    }
    CHECK(illegal == 0);
    // On mask {0, 2, 5}: each legal column about a third of the ~317 draws, the others never.
    CHECK(draws_on_mask_0b100101 > 200);
    for (const int a : {0, 2, 5}) CHECK(counts[static_cast<std::size_t>(a)] > draws_on_mask_0b100101 / 6);
    for (const int a : {1, 3, 4}) CHECK(counts[static_cast<std::size_t>(a)] == 0);
    CHECK(agent.actions() == 20000);
  }
  SUBCASE("ε = 0.3: the greedy choice is the best legal column by Q") {
    p.epsilon_end = 0.3;
    dqn_agent agent(4, p);
    const Eigen::VectorXd q = agent.scores(x);
    int illegal = 0, greedy_matches = 0;
    for (int k = 0; k < 5000; ++k) {
      const auto legal = mask_of(static_cast<unsigned>(draw.below((1u << n) - 1)) + 1, n);
      int best = -1;
      for (int a = 0; a < n; ++a) {
        if (legal[static_cast<std::size_t>(a)] && (best < 0 || q(a) > q(best))) best = a;
      }
      CHECK(agent.greedy(x, legal) == best);
      const int a = agent.act(x, legal);
      illegal += legal[static_cast<std::size_t>(a)] ? 0 : 1;
      greedy_matches += a == best ? 1 : 0;
    }
    CHECK(illegal == 0);
    // P(act = best) ≥ 0.7 (exploitation) + exploration hits; well above 0.7 of 5000.
    CHECK(greedy_matches > 3500);
  }
  SUBCASE("the unmasked overloads treat every column as legal") {
    dqn_agent agent(4, p);
    const Eigen::VectorXd q = agent.scores(x);
    Eigen::Index best = 0;
    q.maxCoeff(&best);
    CHECK(agent.greedy(x) == static_cast<int>(best));
    CHECK(agent.greedy(x, std::vector<bool>(n, true)) == static_cast<int>(best));
  }
}

TEST_CASE("ε falls linearly from epsilon_start to epsilon_end over epsilon_decay_steps actions") {
  dqn_params p;
  p.hidden = {2};
  p.epsilon_start = 1.0;
  p.epsilon_end = 0.2;
  p.epsilon_decay_steps = 4;
  dqn_agent agent(1, p);
  const Eigen::MatrixXd x = Eigen::MatrixXd::Ones(1, 2);
  std::vector<double> eps;
  for (int k = 0; k < 6; ++k) {
    eps.push_back(agent.epsilon());
    agent.act(x);
  }
  // 1, 0.8, 0.6, 0.4, then 0.2 from action 4 on.
  CHECK(eps[0] == Approx(1.0));
  CHECK(eps[1] == Approx(0.8));
  CHECK(eps[3] == Approx(0.4));
  CHECK(eps[4] == Approx(0.2));
  CHECK(eps[5] == Approx(0.2));
}

TEST_CASE("one training step is a gradient step on the Huber loss against a fixed target") {
  // SGD, no clipping, δ huge (the loss is ½ (Q − y)²), a replay of one transition: every sample of
  // the minibatch is that transition, so the step is θ ← θ − α ∇_θ ½ (Q_θ(x) − y)², y from θ̄ = θ₀.
  dqn_params p;
  p.hidden = {5, 4};
  p.optimizer = q_optimizer::sgd;
  p.learning_rate = 1e-3;
  p.max_grad_norm = 0.0;
  p.huber_delta = 1e9;
  p.learning_starts = 1000000;  // observe never trains: the test calls train_step
  p.batch_size = 4;
  p.gamma = 0.9;
  dqn_agent agent(3, p);
  dqn_transition t{.action = Eigen::Vector3d(0.5, -1.0, 2.0), .reward = 0.3, .terminal = false,
                   .next_legal = Eigen::MatrixXd(3, 2)};
  t.next_legal << 1, 0, 0, 1, -1, 0.5;
  CHECK_FALSE(agent.observe(t).has_value());
  const double y = agent.target_value(t);
  const q_network before = agent.online();
  const auto loss_at = [&](const q_network& net) {
    const double u = net.value(t.action) - y;
    return 0.5 * u * u;
  };
  const double loss = agent.train_step();
  CHECK(loss == Approx(loss_at(before)).epsilon(1e-12));
  CHECK(agent.target() == before);  // the target network waits for target_update_period
  q_network probe = before;
  double worst = 0.0;
  const double h = 1e-6;
  for (std::size_t k = 0; k < probe.layers().size(); ++k) {
    auto& l = probe.mutable_layers()[k];
    const auto check = [&](double& theta, double after) {
      const double keep = theta;
      theta = keep + h;
      const double up = loss_at(probe);
      theta = keep - h;
      const double down = loss_at(probe);
      theta = keep;
      const double fd = (up - down) / (2 * h);
      const double applied = (keep - after) / p.learning_rate;  // = ∂L/∂θ
      worst = std::max(worst, std::abs(fd - applied) / std::max(1.0, std::abs(fd)));
    };
    for (Eigen::Index i = 0; i < l.weights.rows(); ++i) {
      for (Eigen::Index j = 0; j < l.weights.cols(); ++j) check(l.weights(i, j), agent.online().layers()[k].weights(i, j));
      check(l.bias(i), agent.online().layers()[k].bias(i));
    }
  }
  CHECK(worst < 1e-6);
  CHECK(agent.updates() == 1);
}

TEST_CASE("the Huber loss is quadratic inside δ and linear outside, with a clamped gradient") {
  CHECK(huber_loss(0.5, 1.0) == Approx(0.125));
  CHECK(huber_loss(-3.0, 1.0) == Approx(2.5));  // 1 · (3 − 0.5)
  CHECK(huber_derivative(0.5, 1.0) == 0.5);
  CHECK(huber_derivative(-3.0, 1.0) == -1.0);
  CHECK(huber_loss(2.0, 2.0) == Approx(2.0));  // continuous at |u| = δ: ½·4 = 2·(2 − 1)
}

TEST_CASE("the target network is refreshed every target_update_period updates, or blended by τ") {
  dqn_params p;
  p.hidden = {4};
  p.learning_starts = 0;
  p.train_period = 1;
  p.target_update_period = 3;
  const dqn_transition t{.action = Eigen::Vector2d(1, 0), .reward = 1.0, .terminal = true, .next_legal = {}};
  SUBCASE("hard updates") {
    dqn_agent agent(2, p);
    const q_network start = agent.target();
    agent.observe(t);
    agent.observe(t);
    CHECK(agent.target() == start);
    CHECK_FALSE(agent.online() == start);
    agent.observe(t);  // third update: θ̄ ← θ
    CHECK(agent.target() == agent.online());
  }
  SUBCASE("Polyak") {
    p.polyak_tau = 0.5;
    dqn_agent agent(2, p);
    const q_network start = agent.target();
    agent.observe(t);
    q_network expect = start;
    expect.blend_from(agent.online(), 0.5);
    CHECK(agent.target() == expect);
  }
}

TEST_CASE("bad parameters raise config_error naming the field") {
  const auto expect_field = [](const std::function<void(dqn_params&)>& edit, const char* field, int features = 4) {
    dqn_params p;
    edit(p);
    CHECK(field_of([&] { dqn_agent(features, p); }) == field);
  };
  CHECK(field_of([] { dqn_agent(4); }) == "<no config_error>");
  // The default 64-64 network on 32 features: (32 + 1)·64 + (64 + 1)·64 + (64 + 1)·1 parameters.
  CHECK(dqn_agent(32).online().parameters() == 6337);
  CHECK(dqn_size_limits::parameters / 6337 > 600);
  expect_field([](dqn_params&) {}, "features", 0);
  expect_field([](dqn_params&) {}, "features", 5000);
  expect_field([](dqn_params& p) { p.hidden = {64, 0}; }, "hidden[1]");
  expect_field([](dqn_params& p) { p.hidden = {5000}; }, "hidden[0]");
  expect_field([](dqn_params& p) { p.hidden = std::vector<int>(9, 4); }, "hidden");
  expect_field([](dqn_params& p) { p.hidden = {4096, 4096}; }, "hidden");  // 16.8 M parameters
  expect_field([](dqn_params& p) { p.learning_rate = 0.0; }, "learning_rate");
  expect_field([](dqn_params& p) { p.learning_rate = std::numeric_limits<double>::quiet_NaN(); }, "learning_rate");
  expect_field([](dqn_params& p) { p.adam_beta1 = 1.0; }, "adam_beta1");
  expect_field([](dqn_params& p) { p.adam_beta2 = -0.1; }, "adam_beta2");
  expect_field([](dqn_params& p) { p.adam_epsilon = 0.0; }, "adam_epsilon");
  expect_field([](dqn_params& p) { p.gamma = 1.01; }, "gamma");
  expect_field([](dqn_params& p) { p.batch_size = 0; }, "batch_size");
  expect_field([](dqn_params& p) { p.replay_capacity = 0; }, "replay_capacity");
  expect_field([](dqn_params& p) { p.replay_capacity = (1 << 22) + 1; }, "replay_capacity");
  expect_field([](dqn_params& p) { p.learning_starts = -1; }, "learning_starts");
  expect_field([](dqn_params& p) { p.train_period = 0; }, "train_period");
  expect_field([](dqn_params& p) { p.target_update_period = 0; }, "target_update_period");
  expect_field([](dqn_params& p) { p.polyak_tau = 1.5; }, "polyak_tau");
  expect_field([](dqn_params& p) { p.epsilon_start = -0.1; }, "epsilon_start");
  expect_field([](dqn_params& p) { p.epsilon_end = 2.0; }, "epsilon_end");
  expect_field([](dqn_params& p) { p.epsilon_decay_steps = -5; }, "epsilon_decay_steps");
  expect_field([](dqn_params& p) { p.huber_delta = 0.0; }, "huber_delta");
  expect_field([](dqn_params& p) { p.max_grad_norm = -1.0; }, "max_grad_norm");
}

TEST_CASE("bad candidates, masks and transitions raise config_error naming them") {
  dqn_params p;
  p.hidden = {4};
  dqn_agent agent(3, p);
  const Eigen::MatrixXd x = Eigen::MatrixXd::Ones(3, 2);
  CHECK(field_of([&] { (void)agent.greedy(Eigen::MatrixXd::Ones(2, 2)); }) == "candidates");
  CHECK(field_of([&] { (void)agent.greedy(Eigen::MatrixXd(3, 0)); }) == "candidates");
  Eigen::MatrixXd nan_x = x;
  nan_x(1, 1) = std::numeric_limits<double>::quiet_NaN();
  CHECK(field_of([&] { (void)agent.scores(nan_x); }) == "candidates");
  CHECK(field_of([&] { (void)agent.greedy(x, {true}); }) == "legal");
  CHECK(field_of([&] { (void)agent.act(x, {false, false}); }) == "legal");
  // Finite weights and features whose Q overflows: an error, never a decision.
  dqn_params p1;
  p1.hidden = {1};
  const dqn_agent big(p1, one_unit(1e10, 1e10, 0, 1e10, 0));
  CHECK(field_of([&] { (void)big.greedy(Eigen::MatrixXd::Constant(2, 2, 1e300)); }) == "candidates");
  CHECK(field_of([&] { (void)big.greedy(Eigen::MatrixXd::Constant(2, 2, 1.0)); }) == "<no config_error>");
  CHECK(field_of([&] {
          agent.observe({.action = Eigen::Vector2d(1, 1), .reward = 0, .terminal = true, .next_legal = {}});
        }) == "transition.action");
  CHECK(field_of([&] { agent.train_step(); }) == "replay");
  CHECK(agent.observed() == 0);
}
