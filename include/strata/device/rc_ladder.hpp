// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Exact step response of a discretised RC line (an RC ladder), the reference against which the
/// closed-form Elmore word-line delay of `mono3d.hpp` is checked.
///
/// The line is a driver resistance followed by wire sections, each a uniform distributed RC
/// (total R, total C) cut into `n` π-segments. Node equations C·dv/dt = −G·v + g_d·u(t) are
/// symmetrised with D = C^{−1/2} (A = D·G·D is symmetric positive definite), diagonalised once
/// (A = Q·Λ·Qᵀ), and the unit-step response of any node is then exact:
///   v(t) = 1 − D·Q·e^{−Λt}·Qᵀ·D^{−1}·1.
/// The 50 % crossing is found by TOMS 748 on that sum. Only this header uses Eigen.

#include <Eigen/Dense>  // Eigen::MatrixXd, Eigen::SelfAdjointEigenSolver

#include <cmath>    // std::exp
#include <cstddef>  // std::size_t
#include <vector>   // std::vector

#include "strata/core/error.hpp"
#include "strata/core/solve.hpp"
#include "strata/core/units.hpp"

namespace strata {
inline namespace v0 {

/// One uniform distributed-RC section of a line.
struct rc_section {
  resistance<> r{};        ///< total series resistance of the section
  capacitance<> c{};       ///< total capacitance to ground of the section
  int segments = 64;       ///< π-segments used to discretise it
};

/// A driven RC line: source → `driver` → sections in order → `load` at the far end.
struct rc_line {
  resistance<> driver{};
  std::vector<rc_section> sections;
  capacitance<> load{};
};

/// Exact step response of the discretised line.
class rc_ladder {
 public:
  explicit rc_ladder(const rc_line& line) {
    detail::require_positive(line.driver.si(), "strata.rc_ladder", "driver", "ohm");
    detail::require(!line.sections.empty(), "strata.rc_ladder", "sections", line.sections.size(),
                    "non-empty");
    std::size_t n = 0;
    for (std::size_t s = 0; s < line.sections.size(); ++s) {
      const auto& sec = line.sections[s];
      const std::string f = "sections[" + std::to_string(s) + "]";
      detail::require_nonnegative(sec.r.si(), "strata.rc_ladder", f + ".r", "ohm");
      detail::require_nonnegative(sec.c.si(), "strata.rc_ladder", f + ".c", "F");
      detail::require(sec.segments >= 1, "strata.rc_ladder", f + ".segments", sec.segments, ">= 1");
      n += static_cast<std::size_t>(sec.segments);
    }
    detail::require_nonnegative(line.load.si(), "strata.rc_ladder", "load", "F");
    // Node 0 is the driver output; node k is the end of segment k.
    const auto N = static_cast<Eigen::Index>(n + 1);
    Eigen::MatrixXd G = Eigen::MatrixXd::Zero(N, N);
    Eigen::VectorXd C = Eigen::VectorXd::Zero(N);
    G(0, 0) += 1.0 / line.driver.si();
    Eigen::Index k = 0;
    for (const auto& sec : line.sections) {
      const double rs = sec.r.si() / sec.segments;
      const double cs = sec.c.si() / sec.segments;
      for (int i = 0; i < sec.segments; ++i, ++k) {
        // A zero-resistance segment is modelled as a tiny resistance so G stays finite.
        const double g = 1.0 / (rs > 0.0 ? rs : 1e-9 * line.driver.si());
        G(k, k) += g;
        G(k + 1, k + 1) += g;
        G(k, k + 1) -= g;
        G(k + 1, k) -= g;
        C(k) += cs / 2;
        C(k + 1) += cs / 2;
      }
    }
    C(N - 1) += line.load.si();
    // Nodes with no capacitance would make the system singular in C; give them a negligible one.
    const double cmin = 1e-12 * (C.maxCoeff() > 0.0 ? C.maxCoeff() : 1e-15);
    for (Eigen::Index i = 0; i < N; ++i) C(i) = C(i) > cmin ? C(i) : cmin;
    const Eigen::VectorXd d = C.cwiseSqrt().cwiseInverse();
    const Eigen::MatrixXd A = d.asDiagonal() * G * d.asDiagonal();
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(A);
    lambda_ = es.eigenvalues();
    // Far-end coefficients: a_k = (D·Q)_{far,k} · (Qᵀ·D⁻¹·1)_k.
    const Eigen::VectorXd w = es.eigenvectors().transpose() * C.cwiseSqrt();
    coef_ = (d(N - 1) * es.eigenvectors().row(N - 1).transpose()).cwiseProduct(w);
    elmore_ = 0.0;
    for (Eigen::Index i = 0; i < N; ++i) elmore_ += coef_(i) / lambda_(i);
  }

  /// Far-end voltage at time `t` for a unit step at t = 0.
  [[nodiscard]] double far_end(duration<> t) const {
    double v = 1.0;
    for (Eigen::Index i = 0; i < lambda_.size(); ++i) v -= coef_(i) * std::exp(-lambda_(i) * t.si());
    return v;
  }

  /// First moment of the far-end impulse response (the exact Elmore delay of the ladder).
  [[nodiscard]] duration<> elmore() const { return duration<>::from_si(elmore_); }

  /// Time at which the far end crosses `fraction` (default 50 %) of its final value.
  [[nodiscard]] duration<> crossing(double fraction = 0.5, const solve_options& opt = {}) const {
    detail::require(fraction > 0.0 && fraction < 1.0, "strata.rc_ladder", "fraction", fraction,
                    "in (0, 1)");
    const auto f = [&](double t) { return far_end(duration<>::from_si(t)) - fraction; };
    double hi = elmore_ > 0.0 ? elmore_ : 1e-12;
    while (f(hi) < 0.0) hi *= 2.0;
    return duration<>::from_si(detail::solve_bracketed(f, 0.0, hi, opt, "rc_ladder crossing"));
  }

 private:
  Eigen::VectorXd lambda_;
  Eigen::VectorXd coef_;
  double elmore_ = 0.0;
};

}  // namespace v0
}  // namespace strata
