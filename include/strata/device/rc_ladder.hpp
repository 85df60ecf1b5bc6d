// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Exact step response of a discretised RC line (an RC ladder), the reference against which the
/// closed-form Elmore word-line delay of `mono3d.hpp` is checked.
///
/// The line is a driver resistance followed by wire sections, each a uniform distributed RC
/// (total R, total C) cut into `n` π-segments. Node equations C·dv/dt = −G·v + g_d·u(t) are
/// symmetrised with D = C^{−1/2}: A = D·G·D is symmetric positive definite and, because the
/// ladder is a chain, tridiagonal. It is diagonalised once (A = Q·Λ·Qᵀ, implicit QL iteration
/// with Wilkinson shifts on the tridiagonal form), and the unit-step response of the far end is
/// then exact:
///   v(t) = 1 − Σ_k a_k·e^{−λ_k·t},  a_k = (D·Q)_{far,k} · (Qᵀ·D^{−1}·1)_k.
/// Only the two rows of Q that enter a_k are accumulated, so a ladder of N nodes costs O(N²)
/// time and O(N) memory. The 50 % crossing is found by safeguarded Newton steps on that sum.
///
/// The header needs neither a linear-algebra library nor a root finder.

#include <cmath>    // std::exp, std::hypot, std::copysign, std::abs
#include <cstddef>  // std::size_t
#include <string>   // std::string, std::to_string
#include <vector>   // std::vector

#include "strata/core/error.hpp"
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
  template <class = void>
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
    // Node 0 is the driver output; node k is the end of segment k. Chain: G is tridiagonal.
    const std::size_t N = n + 1;
    std::vector<double> gd(N, 0.0), go(N, 0.0), C(N, 0.0);  // diagonal, off-diagonal (k, k+1)
    gd[0] += 1.0 / line.driver.si();
    std::size_t k = 0;
    for (const auto& sec : line.sections) {
      const double rs = sec.r.si() / sec.segments;
      const double cs = sec.c.si() / sec.segments;
      for (int i = 0; i < sec.segments; ++i, ++k) {
        // A zero-resistance segment is modelled as a tiny resistance so G stays finite.
        const double g = 1.0 / (rs > 0.0 ? rs : 1e-9 * line.driver.si());
        gd[k] += g;
        gd[k + 1] += g;
        go[k] -= g;
        C[k] += cs / 2;
        C[k + 1] += cs / 2;
      }
    }
    C[N - 1] += line.load.si();
    // Nodes with no capacitance would make the system singular in C; give them a negligible one.
    double cmax = 0.0;
    for (double c : C) cmax = c > cmax ? c : cmax;
    const double cmin = 1e-12 * (cmax > 0.0 ? cmax : 1e-15);
    for (double& c : C) c = c > cmin ? c : cmin;
    // A = D·G·D with D = C^{-1/2}: diagonal d, off-diagonal e (e[N-1] unused).
    std::vector<double> d(N), e(N, 0.0), sq(N);
    for (std::size_t i = 0; i < N; ++i) sq[i] = std::sqrt(C[i]);
    for (std::size_t i = 0; i < N; ++i) d[i] = gd[i] / C[i];
    for (std::size_t i = 0; i + 1 < N; ++i) e[i] = go[i] / (sq[i] * sq[i + 1]);
    // Rows of Q carried through the rotations: the far-end row (starts as the unit vector) and
    // sqrt(C)ᵀ·Q (starts as sqrt(C)ᵀ), whose transpose is Qᵀ·D⁻¹·1.
    std::vector<double> far_row(N, 0.0), w = sq;
    far_row[N - 1] = 1.0;
    tridiagonal_eigen(d, e, far_row, w);
    lambda_ = d;
    coef_.resize(N);
    elmore_ = 0.0;
    for (std::size_t i = 0; i < N; ++i) {
      coef_[i] = far_row[i] * w[i] / sq[N - 1];
      elmore_ += coef_[i] / lambda_[i];
    }
  }

  /// Far-end voltage at time `t` for a unit step at t = 0.
  template <class = void>
  [[nodiscard]] double far_end(duration<> t) const {
    double v = 1.0;
    for (std::size_t i = 0; i < lambda_.size(); ++i) v -= coef_[i] * std::exp(-lambda_[i] * t.si());
    return v;
  }

  /// First moment of the far-end impulse response (the exact Elmore delay of the ladder).
  template <class = void>
  [[nodiscard]] duration<> elmore() const { return duration<>::from_si(elmore_); }

  /// Time at which the far end crosses `fraction` (default 50 %) of its final value: Newton's
  /// method on the monotone response, safeguarded by bisection inside a bracket found by
  /// doubling from the Elmore delay; converges to 1e-12 relative. Throws `solver_error` if it
  /// does not within 200 steps.
  template <class = void>
  [[nodiscard]] duration<> crossing(double fraction = 0.5) const {
    detail::require(fraction > 0.0 && fraction < 1.0, "strata.rc_ladder", "fraction", fraction,
                    "in (0, 1)");
    const auto f = [&](double t) { return far_end(duration<>::from_si(t)) - fraction; };
    double lo = 0.0, hi = elmore_ > 0.0 ? elmore_ : 1e-12;
    for (int k = 0; f(hi) < 0.0; ++k) {
      if (k == 200) throw solver_error("[strata.rc_ladder] crossing: no upper bracket");
      lo = hi;
      hi *= 2.0;
    }
    double t = 0.5 * (lo + hi);
    for (int k = 0; k < 200; ++k) {
      const double ft = f(t);
      if (ft < 0.0) lo = t; else hi = t;
      double slope = 0.0;  // dv/dt = Σ a_k·λ_k·e^{−λ_k·t}
      for (std::size_t i = 0; i < lambda_.size(); ++i) {
        slope += coef_[i] * lambda_[i] * std::exp(-lambda_[i] * t);
      }
      double next = slope > 0.0 ? t - ft / slope : 0.5 * (lo + hi);
      if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);  // Newton left the bracket
      if (std::abs(next - t) <= 1e-12 * t || hi - lo <= 1e-12 * hi) return duration<>::from_si(next);
      t = next;
    }
    throw solver_error("[strata.rc_ladder] crossing did not converge");
  }

 private:
  /// Eigenvalues of the symmetric tridiagonal matrix (diagonal `d`, off-diagonal `e[i]` =
  /// A(i, i+1)) by implicit QL iteration with Wilkinson shifts (Wilkinson & Reinsch, Handbook
  /// for Automatic Computation II, 1971; Golub & Van Loan, Matrix Computations, §8.3). On return
  /// `d` holds the eigenvalues; each row vector in `rows` (a row r of the identity-initialised
  /// eigenvector matrix times the original rows) is rotated with the columns of Q, so it ends as
  /// rᵀ·Q. Throws `solver_error` if an eigenvalue does not converge in 64 sweeps.
  template <class = void>
  static void tridiagonal_eigen(std::vector<double>& d, std::vector<double>& e,
                                std::vector<double>& row_a, std::vector<double>& row_b) {
    const std::size_t n = d.size();
    const double eps = 1e-15;
    for (std::size_t l = 0; l < n; ++l) {
      for (int sweep = 0;; ++sweep) {
        // The first negligible off-diagonal at or after l splits the matrix.
        std::size_t m = l;
        for (; m + 1 < n; ++m) {
          if (std::abs(e[m]) <= eps * (std::abs(d[m]) + std::abs(d[m + 1]))) break;
        }
        if (m == l) break;
        if (sweep == 64) throw solver_error("[strata.rc_ladder] eigenvalues did not converge");
        // Shift: the eigenvalue of the leading 2×2 block closer to d[l].
        double g = (d[l + 1] - d[l]) / (2.0 * e[l]);
        double r = std::hypot(g, 1.0);
        g = d[m] - d[l] + e[l] / (g + std::copysign(r, g));
        double s = 1.0, c = 1.0, p = 0.0;
        bool deflated = false;
        // Chase the bulge from the bottom of the block up to l with Givens rotations.
        for (std::size_t i = m; i-- > l;) {
          const double f = s * e[i];
          const double b = c * e[i];
          r = std::hypot(f, g);
          e[i + 1] = r;
          if (r == 0.0) {  // exact split inside the block: restart on the smaller problem
            d[i + 1] -= p;
            e[m] = 0.0;
            deflated = true;
            break;
          }
          s = f / r;
          c = g / r;
          g = d[i + 1] - p;
          r = (d[i] - g) * s + 2.0 * c * b;
          p = s * r;
          d[i + 1] = g + p;
          g = c * r - b;
          for (auto* z : {&row_a, &row_b}) {
            const double zi1 = (*z)[i + 1];
            (*z)[i + 1] = s * (*z)[i] + c * zi1;
            (*z)[i] = c * (*z)[i] - s * zi1;
          }
        }
        if (deflated) continue;
        d[l] -= p;
        e[l] = g;
        e[m] = 0.0;
      }
    }
  }

  std::vector<double> lambda_;
  std::vector<double> coef_;
  double elmore_ = 0.0;
};

}  // namespace v0
}  // namespace strata
