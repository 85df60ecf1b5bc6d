// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The value network of HCRMap's slow residency controller (HCRMap §6.3, Eq. 34): a small
/// multilayer perceptron that scores one (state, candidate action) feature vector with a scalar
/// Q-value, its exact gradient by back-propagation, and the two optimisers that train it.
///
/// Why a per-(state, action) score and not one output per action. HCRMap's action set is built
/// anew in every window from the candidate experts H_w and their feasible locations Ω_e(w)
/// (§6.3, Algorithm 1 lines 8–11), so the number and meaning of the actions change from window
/// to window. The network therefore reads a feature vector φ(s_w, a) that describes the state and
/// one candidate action together, and returns Q(s_w, a); a window's candidates are the columns of
/// one matrix, scored in one batched pass.
///
/// Network. With x = φ(s, a) ∈ R^F, hidden widths h_1 … h_K and ReLU(z) = max(z, 0):
///   a_0 = x,   z_k = W_k a_{k−1} + b_k,   a_k = ReLU(z_k)   (k = 1 … K),
///   Q(x) = W_{K+1} a_K + b_{K+1}   (a 1 × h_K row: the output is linear).
/// W_k is h_k × h_{k−1} (h_0 = F), b_k ∈ R^{h_k}. K = 0 is a linear Q.
///
/// Initialisation (He et al., "Delving Deep into Rectifiers", ICCV 2015, Eq. 10): every weight
/// N(0, 2 / fan_in), which keeps the variance of the ReLU activations constant through the layers;
/// the linear output layer N(0, 1 / fan_in); biases 0. The normals come from the portable stream
/// of core/rng.hpp, so one seed gives the same network with every standard library.
///
/// Gradient (back-propagation; Rumelhart, Hinton and Williams, Nature 323, 1986). For a batch
/// X = [x_1 … x_n] and upstream derivatives g_i = ∂L/∂Q(x_i), with δ_{K+1} = gᵀ (1 × n):
///   ∂L/∂W_k = δ_k A_{k−1}ᵀ,   ∂L/∂b_k = δ_k 1,   δ_{k−1} = (W_kᵀ δ_k) ⊙ [Z_{k−1} > 0],
/// the ReLU's derivative taken as 0 at 0 (the subgradient PyTorch and TensorFlow use).
///
/// Optimisers, for every parameter θ with gradient g at update t = 1, 2, …:
/// - SGD: θ ← θ − α g.
/// - Adam (Kingma and Ba, ICLR 2015, Algorithm 1): m ← β1 m + (1 − β1) g,
///   v ← β2 v + (1 − β2) g², m̂ = m / (1 − β1^t), v̂ = v / (1 − β2^t), θ ← θ − α m̂ / (√v̂ + ε̂).
///
/// Scalar type. The network is meant for `double` (`q_network`, `dqn_agent` and the other aliases),
/// unlike the library's closed-form models, which also run on autodiff scalars: its inputs are
/// features computed from simulator counters, not model parameters a user differentiates, and its
/// own gradient is computed exactly by back-propagation (checked against finite differences in
/// the tests). The classes are templates on the floating-point type `Real` only so that a
/// translation unit that includes the header without using the network does not instantiate
/// Eigen's dense kernels (inline non-template code would make every includer pay for them);
/// they are instantiated and tested with `double` alone.
///
/// Determinism. Every operation is a fixed sequence of Eigen dense products and coefficient-wise
/// maps with no threading (strata does not enable Eigen's OpenMP), so the same build computes
/// bit-identical values from bit-identical inputs.

#include <array>        // std::array (enum names)
#include <cmath>        // std::sqrt, std::pow
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int64_t
#include <span>         // std::span
#include <string>       // std::string, std::to_string
#include <type_traits>  // std::is_floating_point_v
#include <utility>      // std::move, std::pair
#include <vector>       // std::vector

#include <Eigen/Core>

#include "strata/core/error.hpp"
#include "strata/core/rng.hpp"

namespace strata {
inline namespace v0 {

/// Dense column-major matrix and vector of the Q-network (`Eigen::MatrixXd`, `Eigen::VectorXd`
/// for `double`).
template <class Real>
using q_matrix = Eigen::Matrix<Real, Eigen::Dynamic, Eigen::Dynamic>;
template <class Real>
using q_vector = Eigen::Matrix<Real, Eigen::Dynamic, 1>;

/// One affine layer of a `q_network`: out = W · in + b.
template <class Real = double>
struct basic_q_layer {
  static_assert(std::is_floating_point_v<Real>, "a Q-network computes in a floating-point type");
  q_matrix<Real> weights;  ///< out × in
  q_vector<Real> bias;     ///< out
  friend bool operator==(const basic_q_layer& a, const basic_q_layer& b) {
    return a.weights.rows() == b.weights.rows() && a.weights.cols() == b.weights.cols() &&
           a.bias.size() == b.bias.size() && a.weights == b.weights && a.bias == b.bias;
  }
};

/// Gradient of a scalar loss with respect to every weight and bias of a `q_network` (same shapes).
template <class Real = double>
struct basic_q_gradient {
  std::vector<q_matrix<Real>> weights;
  std::vector<q_vector<Real>> bias;

  /// Euclidean norm over every entry, ‖g‖₂.
  [[nodiscard]] Real norm() const {
    Real s = 0;
    for (const auto& w : weights) s += w.squaredNorm();
    for (const auto& b : bias) s += b.squaredNorm();
    return std::sqrt(s);
  }
  /// Every entry is finite.
  [[nodiscard]] bool finite() const {
    bool ok = true;
    for (const auto& w : weights) ok = ok && w.allFinite();
    for (const auto& b : bias) ok = ok && b.allFinite();
    return ok;
  }
  /// Multiplies every entry by `c` (global-norm clipping).
  void scale(Real c) {
    for (auto& w : weights) w *= c;
    for (auto& b : bias) b *= c;
  }
  /// Sets every entry to zero, keeping the shapes.
  void zero() {
    for (auto& w : weights) w.setZero();
    for (auto& b : bias) b.setZero();
  }
};

/// The Q-value MLP (see the file comment). A value type: copying it copies the weights (the target
/// network of Double DQN is a copy of the online one).
template <class Real = double>
class basic_q_network {
 public:
  using layer = basic_q_layer<Real>;
  using gradient = basic_q_gradient<Real>;
  using matrix = q_matrix<Real>;
  using vector = q_vector<Real>;

  basic_q_network() = default;

  /// A network of `features` inputs, hidden layers of widths `hidden` and a scalar output, with He
  /// initialisation from `rng`. The caller validates the sizes (dqn.hpp bounds them).
  basic_q_network(int features, std::span<const int> hidden, detail::portable_rng& rng) {
    int in = features;
    for (std::size_t k = 0; k <= hidden.size(); ++k) {
      const bool out_layer = k == hidden.size();
      const int out = out_layer ? 1 : hidden[k];
      layer l{matrix(out, in), vector::Zero(out)};
      const double sd = std::sqrt((out_layer ? 1.0 : 2.0) / in);
      // Column-major fill order, so the draws map to entries the same way on every build.
      for (Eigen::Index j = 0; j < l.weights.cols(); ++j) {
        for (Eigen::Index i = 0; i < l.weights.rows(); ++i) l.weights(i, j) = static_cast<Real>(sd * rng.normal());
      }
      layers_.push_back(std::move(l));
      in = out;
    }
  }

  /// A network from given layers (a checkpoint, a hand-built test case). Throws `config_error`
  /// naming `layers[k]` unless the shapes chain (layer k's input is layer k−1's output), the last
  /// layer has one output and every value is finite.
  explicit basic_q_network(std::vector<layer> layers) : layers_(std::move(layers)) {
    constexpr const char* id = "strata.q_network";
    detail::require(!layers_.empty(), id, "layers", layers_.size(), "at least one layer (the output)");
    for (std::size_t k = 0; k < layers_.size(); ++k) {
      const std::string at = "layers[" + std::to_string(k) + "]";
      const layer& l = layers_[k];
      detail::require(l.weights.rows() >= 1 && l.weights.cols() >= 1, id, at + ".weights", l.weights.size(),
                      "a matrix with at least one row and one column");
      detail::require(l.bias.size() == l.weights.rows(), id, at + ".bias", l.bias.size(),
                      ("as many entries as the weights have rows (" + std::to_string(l.weights.rows()) + ")").c_str());
      if (k > 0) {
        detail::require(l.weights.cols() == layers_[k - 1].weights.rows(), id, at + ".weights", l.weights.cols(),
                        ("columns equal to the previous layer's outputs (" +
                         std::to_string(layers_[k - 1].weights.rows()) + ")")
                            .c_str());
      }
      detail::require(l.weights.allFinite() && l.bias.allFinite(), id, at, "a non-finite value",
                      "finite in every weight and bias");
    }
    detail::require(layers_.back().weights.rows() == 1, id, "layers[" + std::to_string(layers_.size() - 1) + "]",
                    layers_.back().weights.rows(), "a single output (the scalar Q)");
  }

  /// Input features F.
  [[nodiscard]] int features() const { return layers_.empty() ? 0 : static_cast<int>(layers_.front().weights.cols()); }
  /// Hidden widths h_1 … h_K.
  [[nodiscard]] std::vector<int> hidden() const {
    std::vector<int> h;
    for (std::size_t k = 0; k + 1 < layers_.size(); ++k) h.push_back(static_cast<int>(layers_[k].weights.rows()));
    return h;
  }
  /// The affine layers, input first.
  [[nodiscard]] const std::vector<layer>& layers() const { return layers_; }
  /// Number of weights and biases.
  [[nodiscard]] std::int64_t parameters() const {
    std::int64_t n = 0;
    for (const auto& l : layers_) n += static_cast<std::int64_t>(l.weights.size() + l.bias.size());
    return n;
  }

  /// Q(x) of one feature vector.
  [[nodiscard]] Real value(const Eigen::Ref<const vector>& x) const {
    const vector q = values(x);
    return q(0);
  }

  /// Q of every column of `x` (F × n): the n values, one batched pass.
  [[nodiscard]] vector values(const Eigen::Ref<const matrix>& x) const {
    matrix a = x;
    matrix z;
    for (std::size_t k = 0; k < layers_.size(); ++k) {
      z.noalias() = layers_[k].weights * a;
      z.colwise() += layers_[k].bias;
      if (k + 1 < layers_.size()) {
        a = z.cwiseMax(Real(0));
      } else {
        a.swap(z);
      }
    }
    return a.row(0).transpose();
  }

  /// The activations of one batch, kept by `forward` for `backward`.
  struct cache {
    std::vector<matrix> acts;  ///< a_0 = x, a_1 … a_K, and the output row last
  };

  /// Q of every column of `x`, keeping the activations in `c` for `backward`.
  vector forward(const Eigen::Ref<const matrix>& x, cache& c) const {
    const std::size_t n_layers = layers_.size();
    c.acts.resize(n_layers + 1);
    c.acts[0] = x;
    for (std::size_t k = 0; k < n_layers; ++k) {
      matrix& z = c.acts[k + 1];
      z.noalias() = layers_[k].weights * c.acts[k];
      z.colwise() += layers_[k].bias;
      if (k + 1 < n_layers) z = z.cwiseMax(Real(0));
    }
    return c.acts[n_layers].row(0).transpose();
  }

  /// Adds to `g` the gradient of a loss L that depends on the network through the Q values of the
  /// batch `forward` cached in `c`, where `dq(i)` = ∂L/∂Q(x_i) (back-propagation, see the file
  /// comment). `g` must have this network's shapes (`zero_gradient()`).
  void backward(const cache& c, const Eigen::Ref<const vector>& dq, gradient& g) const {
    matrix delta = dq.transpose();  // ∂L/∂z_k, one column per sample
    matrix up;
    for (std::size_t k = layers_.size(); k-- > 0;) {
      g.weights[k].noalias() += delta * c.acts[k].transpose();
      g.bias[k].noalias() += delta.rowwise().sum();
      if (k == 0) break;
      up.noalias() = layers_[k].weights.transpose() * delta;
      // ReLU'(z) = [z > 0] = [a > 0], since a = max(z, 0).
      delta = up.cwiseProduct((c.acts[k].array() > Real(0)).template cast<Real>().matrix());
    }
  }

  /// A gradient of this network's shapes, all zero.
  [[nodiscard]] gradient zero_gradient() const {
    gradient g;
    for (const auto& l : layers_) {
      g.weights.push_back(matrix::Zero(l.weights.rows(), l.weights.cols()));
      g.bias.push_back(vector::Zero(l.bias.size()));
    }
    return g;
  }

  /// θ ← (1 − τ) θ + τ θ_src for every parameter (Polyak averaging; τ = 1 copies `src`).
  void blend_from(const basic_q_network& src, double tau) {
    const Real t = static_cast<Real>(tau), keep = static_cast<Real>(1.0 - tau);
    for (std::size_t k = 0; k < layers_.size(); ++k) {
      layers_[k].weights = keep * layers_[k].weights + t * src.layers_[k].weights;
      layers_[k].bias = keep * layers_[k].bias + t * src.layers_[k].bias;
    }
  }

  /// Mutable layers, for the optimisers.
  [[nodiscard]] std::vector<layer>& mutable_layers() { return layers_; }

  friend bool operator==(const basic_q_network&, const basic_q_network&) = default;

 private:
  std::vector<layer> layers_;
};

/// The `double` network, layer and gradient the controller uses.
using q_layer = basic_q_layer<double>;
using q_gradient = basic_q_gradient<double>;
using q_network = basic_q_network<double>;

/// The optimiser of a `dqn_agent` (see the file comment of q_network.hpp).
enum class q_optimizer {
  adam,  ///< Adam (Kingma and Ba, ICLR 2015)
  sgd,   ///< plain stochastic gradient descent
};
constexpr auto enum_names(q_optimizer) {
  return std::array{std::pair{q_optimizer::adam, "adam"}, std::pair{q_optimizer::sgd, "sgd"}};
}

/// Hyper-parameters of one optimiser step.
struct q_optimizer_settings {
  q_optimizer kind = q_optimizer::adam;
  double learning_rate = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double epsilon = 1e-8;
};

/// Optimiser state (Adam's first and second moments and its step count) for one network.
template <class Real = double>
class basic_q_trainer {
 public:
  basic_q_trainer() = default;
  explicit basic_q_trainer(const basic_q_network<Real>& net) : m_(net.zero_gradient()), v_(net.zero_gradient()) {}

  /// Applies one update of gradient `g` to `net` (the equations of the file comment).
  void step(basic_q_network<Real>& net, const basic_q_gradient<Real>& g, const q_optimizer_settings& s) {
    ++t_;
    auto& layers = net.mutable_layers();
    const Real lr = static_cast<Real>(s.learning_rate);
    if (s.kind == q_optimizer::sgd) {
      for (std::size_t k = 0; k < layers.size(); ++k) {
        layers[k].weights.noalias() -= lr * g.weights[k];
        layers[k].bias.noalias() -= lr * g.bias[k];
      }
      return;
    }
    const Real b1 = static_cast<Real>(s.beta1), b2 = static_cast<Real>(s.beta2), eps = static_cast<Real>(s.epsilon);
    const Real c1 = static_cast<Real>(1.0 - std::pow(s.beta1, static_cast<double>(t_)));  // bias corrections
    const Real c2 = static_cast<Real>(1.0 - std::pow(s.beta2, static_cast<double>(t_)));
    const auto update = [&](auto& theta, auto& m, auto& v, const auto& grad) {
      m = b1 * m + (Real(1) - b1) * grad;
      v = b2 * v + (Real(1) - b2) * grad.cwiseAbs2();
      theta.array() -= lr * (m.array() / c1) / ((v.array() / c2).sqrt() + eps);
    };
    for (std::size_t k = 0; k < layers.size(); ++k) {
      update(layers[k].weights, m_.weights[k], v_.weights[k], g.weights[k]);
      update(layers[k].bias, m_.bias[k], v_.bias[k], g.bias[k]);
    }
  }
  /// Updates applied so far (t).
  [[nodiscard]] std::int64_t steps() const { return t_; }

 private:
  basic_q_gradient<Real> m_, v_;
  std::int64_t t_ = 0;
};

/// The optimiser state of a `q_network`.
using q_trainer = basic_q_trainer<double>;

}  // namespace v0
}  // namespace strata
