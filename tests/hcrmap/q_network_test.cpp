#include "strata/hcrmap/q_network.hpp"

#include <doctest/doctest.h>

#include <cmath>   // std::abs, std::sqrt
#include <vector>  // std::vector

#include "support/field_of.hpp"

using namespace strata;
using doctest::Approx;
using strata_test::field_of;

namespace {

// A loss that mixes every output: L = Σ_i c_i · Q(x_i) + ½ Σ_i Q(x_i)², so ∂L/∂Q_i = c_i + Q_i.
double loss_of(const q_network& net, const Eigen::MatrixXd& x, const Eigen::VectorXd& c) {
  const Eigen::VectorXd q = net.values(x);
  return c.dot(q) + 0.5 * q.squaredNorm();
}

Eigen::MatrixXd random_matrix(Eigen::Index rows, Eigen::Index cols, detail::portable_rng& r) {
  Eigen::MatrixXd m(rows, cols);
  for (Eigen::Index j = 0; j < cols; ++j) {
    for (Eigen::Index i = 0; i < rows; ++i) m(i, j) = r.normal();
  }
  return m;
}

}  // namespace

TEST_CASE("a hand-built network computes W2 ReLU(W1 x + b1) + b2") {
  // W1 = [[1, -1], [2, 0.5]], b1 = [0, -1]; W2 = [3, -2], b2 = 0.25.
  // x = (1, 2): z1 = (-1, 2 + 1 - 1 = 2) -> a1 = (0, 2); Q = 3·0 - 2·2 + 0.25 = -3.75.
  // x = (2, 0): z1 = (2, 4 - 1 = 3) -> a1 = (2, 3); Q = 6 - 6 + 0.25 = 0.25.
  q_layer l1{Eigen::MatrixXd(2, 2), Eigen::VectorXd(2)};
  l1.weights << 1, -1, 2, 0.5;
  l1.bias << 0, -1;
  q_layer l2{Eigen::MatrixXd(1, 2), Eigen::VectorXd(1)};
  l2.weights << 3, -2;
  l2.bias << 0.25;
  const q_network net({l1, l2});
  Eigen::MatrixXd x(2, 2);
  x << 1, 2, 2, 0;  // columns (1, 2) and (2, 0)
  const Eigen::VectorXd q = net.values(x);
  CHECK(q(0) == Approx(-3.75));
  CHECK(q(1) == Approx(0.25));
  CHECK(net.value(x.col(1)) == Approx(0.25));
  CHECK(net.features() == 2);
  CHECK(net.hidden() == std::vector<int>{2});
  CHECK(net.parameters() == 9);
}

TEST_CASE("back-propagation matches central finite differences on every parameter") {
  detail::portable_rng r(11);
  const std::vector<int> hidden = {7, 6};
  q_network net(5, hidden, r);
  const Eigen::MatrixXd x = random_matrix(5, 4, r);
  const Eigen::VectorXd c = random_matrix(4, 1, r);
  q_network::cache cache;
  const Eigen::VectorXd q = net.forward(x, cache);
  CHECK(q.isApprox(net.values(x)));
  q_gradient g = net.zero_gradient();
  net.backward(cache, c + q, g);  // ∂L/∂Q_i = c_i + Q_i
  const double h = 1e-6;
  double worst = 0.0;
  int checked = 0;
  for (std::size_t k = 0; k < net.layers().size(); ++k) {
    const auto probe = [&](double& theta, double analytic) {
      const double keep = theta;
      theta = keep + h;
      const double up = loss_of(net, x, c);
      theta = keep - h;
      const double down = loss_of(net, x, c);
      theta = keep;
      const double fd = (up - down) / (2 * h);
      worst = std::max(worst, std::abs(fd - analytic) / std::max(1.0, std::abs(fd)));
      ++checked;
    };
    auto& layer = net.mutable_layers()[k];
    for (Eigen::Index i = 0; i < layer.weights.rows(); ++i) {
      for (Eigen::Index j = 0; j < layer.weights.cols(); ++j) probe(layer.weights(i, j), g.weights[k](i, j));
      probe(layer.bias(i), g.bias[k](i));
    }
  }
  CHECK(checked == net.parameters());  // 5·7+7 + 7·6+6 + 6+1 = 97
  CHECK(checked == 97);
  CHECK(worst < 1e-6);
  // Some ReLU units are inactive somewhere in the batch, so the mask path is exercised.
  CHECK((cache.acts[1].array() == 0.0).any());
}

TEST_CASE("He initialisation: weights N(0, 2/fan_in), output N(0, 1/fan_in), biases zero") {
  detail::portable_rng r(3);
  const std::vector<int> hidden = {256, 128};
  const q_network net(200, hidden, r);
  const auto& w1 = net.layers()[0].weights;  // 256 × 200 = 51 200 draws
  const double var1 = w1.squaredNorm() / static_cast<double>(w1.size());
  CHECK(var1 == Approx(2.0 / 200).epsilon(0.03));  // sd of the estimate: sqrt(2/51200) = 0.6 %
  CHECK(std::abs(w1.mean()) < 5 * std::sqrt(2.0 / 200 / static_cast<double>(w1.size())));
  const auto& w3 = net.layers()[2].weights;  // 1 × 128
  CHECK(w3.squaredNorm() / 128.0 == Approx(1.0 / 128).epsilon(0.5));  // 128 draws: sd 12.5 %
  for (const auto& l : net.layers()) CHECK(l.bias.isZero(0.0));
  detail::portable_rng r2(3);
  CHECK(q_network(200, hidden, r2) == net);  // the same seed, the same network
}

TEST_CASE("SGD and Adam steps follow their update equations") {
  q_layer l{Eigen::MatrixXd(1, 2), Eigen::VectorXd(1)};
  l.weights << 1.0, -2.0;
  l.bias << 0.5;
  q_network net({l});
  q_gradient g = net.zero_gradient();
  g.weights[0] << 0.4, -3.0;
  g.bias[0] << 0.0;
  SUBCASE("SGD: θ − α g") {
    q_trainer t(net);
    t.step(net, g, {.kind = q_optimizer::sgd, .learning_rate = 0.1});
    CHECK(net.layers()[0].weights(0, 0) == Approx(1.0 - 0.04));
    CHECK(net.layers()[0].weights(0, 1) == Approx(-2.0 + 0.3));
    CHECK(net.layers()[0].bias(0) == Approx(0.5));
  }
  SUBCASE("Adam: the first step is α g / (|g| + ε), then the moments carry over") {
    q_trainer t(net);
    const q_optimizer_settings s{.kind = q_optimizer::adam, .learning_rate = 0.01};
    t.step(net, g, s);
    // t = 1: m̂ = g, v̂ = g², so the step is α·g/(|g| + ε) ≈ α·sign(g).
    CHECK(net.layers()[0].weights(0, 0) == Approx(1.0 - 0.01 * 0.4 / (0.4 + 1e-8)));
    CHECK(net.layers()[0].weights(0, 1) == Approx(-2.0 + 0.01 * 3.0 / (3.0 + 1e-8)));
    CHECK(net.layers()[0].bias(0) == 0.5);  // zero gradient: m = 0, no move
    // t = 2 with gradient g' = 0 on the first weight: m = 0.9·0.1·0.4 = 0.036, m̂ = 0.036/0.19;
    // v = 0.999·0.001·0.16 = 1.5984e-4, v̂ = v/(1 − 0.998001); step α m̂/(√v̂ + ε).
    q_gradient g2 = net.zero_gradient();
    const double before = net.layers()[0].weights(0, 0);
    t.step(net, g2, s);
    const double m_hat = 0.036 / (1 - 0.81);
    const double v_hat = 1.5984e-4 / (1 - 0.998001);
    CHECK(net.layers()[0].weights(0, 0) == Approx(before - 0.01 * m_hat / (std::sqrt(v_hat) + 1e-8)));
    CHECK(t.steps() == 2);
  }
}

TEST_CASE("Polyak blending moves a network towards another by τ") {
  detail::portable_rng r(5);
  const std::vector<int> hidden = {3};
  q_network a(2, hidden, r), b(2, hidden, r);
  q_network c = a;
  c.blend_from(b, 0.25);
  CHECK(c.layers()[0].weights.isApprox(0.75 * a.layers()[0].weights + 0.25 * b.layers()[0].weights));
  c.blend_from(b, 1.0);
  CHECK(c == b);
}

TEST_CASE("a network from layers rejects shapes that do not chain and non-finite values") {
  const auto layer = [](int out, int in, double v = 0.1) {
    return q_layer{Eigen::MatrixXd::Constant(out, in, v), Eigen::VectorXd::Zero(out)};
  };
  CHECK(field_of([&] { q_network(std::vector<q_layer>{}); }) == "layers");
  CHECK(field_of([&] { q_network({layer(3, 2), layer(1, 4)}); }) == "layers[1].weights");
  CHECK(field_of([&] { q_network({layer(3, 2), layer(2, 3)}); }) == "layers[1]");  // two outputs
  q_layer bad = layer(3, 2);
  bad.bias = Eigen::VectorXd::Zero(2);
  CHECK(field_of([&] { q_network({bad, layer(1, 3)}); }) == "layers[0].bias");
  CHECK(field_of([&] { q_network({layer(3, 2, std::nan("")), layer(1, 3)}); }) == "layers[0]");
  CHECK(field_of([&] { q_network({layer(3, 2), layer(1, 3)}); }) == "<no config_error>");
}
