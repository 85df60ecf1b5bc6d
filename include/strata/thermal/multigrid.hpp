// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Conjugate gradients preconditioned by an aggregation multigrid V-cycle, for the steady state
/// G θ = P of a large thermal network (`steady_method::multigrid`, `thermal/rc_network.hpp`).
///
/// **Why.** On HotSpot's grids the Jacobi-preconditioned iteration needs 345 steps at 64 × 64
/// (16 396 nodes): the copper spreader and sink conduct laterally 25–180 × more than the die, so
/// G's smooth modes across the sink (λ ∝ k_Cu·t/N² against a diagonal of 4·k_Cu·t) are nearly
/// singular after diagonal scaling, and a diagonal preconditioner cannot reach them: the
/// iteration count grows with the grid side. A multigrid cycle removes those modes on coarse
/// grids, where they are not smooth.
///
/// **The cycle** (unsmoothed aggregation; Vaněk, Mandel & Brezina, Computing 56, 1996, §3 for the
/// aggregation; Notay, ETNA 37, 2010, for plain aggregates as a CG preconditioner):
/// - *strength*: nodes i and j are strongly coupled when −G_ij ≥ θ √(G_ii G_jj), θ = 0.02
///   (`strength`; measured on the EV6 64 × 64 grid with Gauss–Seidel smoothing: 43 iterations,
///   against 52 at Vaněk's 0.08);
/// - *aggregates* (Vaněk's three passes): a node whose strong neighbours are all free starts an
///   aggregate with them; a node left over joins the aggregate of its strongest aggregated
///   neighbour; what is still left forms aggregates of its free strong neighbours;
/// - *coarse operator*: G_c = Aᵀ G A with A the 0/1 matrix of node → aggregate (each coarse
///   entry is a sum of fine entries: still symmetric, positive definite, an M-matrix); levels
///   until at most `coarse_nodes` (512) remain or an aggregation keeps more than 85 % of them,
///   the last factorised (dense LLᵀ up to 1 024 nodes, sparse LDLᵀ above);
/// - *V-cycle*: one damped Jacobi step from zero, x = ω D⁻¹ b (ω = 0.8, `smoothing_weight`),
///   restriction of the residual (sums over aggregates), the coarse correction, one more damped
///   Jacobi step x += ω D⁻¹ (b − G x). G is diagonally dominant (its diagonal is g_i0 plus its
///   links), so by Gershgorin the eigenvalues of D⁻¹G lie in [0, 2] and the step converges in
///   G's energy norm for ω < 1: the symmetric cycle is then a symmetric positive definite
///   operator, as CG requires (Trottenberg, Oosterlee & Schüller, *Multigrid*, 2001, §2.5 and
///   §A.2.4). Jacobi rather than Gauss–Seidel: a Jacobi step is a sparse product that runs at the
///   memory's pace, while a Gauss–Seidel sweep waits on each row's predecessor; measured on EV6
///   64 × 64, 49 Jacobi-smoothed iterations took half the time of 46 Gauss–Seidel ones.
///
/// The iteration stops at the relative residual ‖Gθ − P‖/‖P‖ ≤ `steady_cg_tolerance` (1e-12),
/// as the Jacobi-preconditioned iteration does. On the EV6 64 × 64 grid: 49 iterations instead
/// of 345, each three sparse products and the coarse levels' work. Hierarchies use O(nnz(G)) memory (each level's matrix has
/// fewer entries than the one above).
///
/// `double` only (the network is not a closed form, `rc_network.hpp`).

#include <algorithm>  // std::max, std::sort
#include <cmath>      // std::sqrt
#include <cstddef>    // std::size_t
#include <utility>    // std::move, std::pair
#include <vector>     // std::vector

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>

#include "strata/core/error.hpp"

namespace strata {
inline namespace v0 {
namespace thermal {

/// A multigrid-preconditioned CG solver for a symmetric positive definite sparse matrix
/// (file comment). `solve` returns false when the iteration did not converge within
/// `max_iterations`, so that the caller can factorise instead.
template <class = void>
class multigrid_cg {
 public:
  using matrix = Eigen::SparseMatrix<double>;
  /// Levels are held row-major: a row-major product gathers (one dot per row) where a
  /// column-major one scatters; G is symmetric, so the two storages hold the same arrays.
  using row_matrix = Eigen::SparseMatrix<double, Eigen::RowMajor>;
  /// Strength threshold θ of the aggregation (file comment).
  static constexpr double strength = 0.02;
  /// The coarsest level holds at most this many nodes (or coarsening stalled) and is factorised.
  static constexpr int coarse_nodes = 512;
  /// A coarsest level up to this size is factorised dense (8 MB at the bound).
  static constexpr int dense_coarse_nodes = 1024;
  /// The damping ω of the Jacobi smoothing steps (file comment: convergent for ω < 1).
  static constexpr double smoothing_weight = 0.8;
  /// Hard bound on the levels (each level keeps at most 85 % of the nodes above it).
  static constexpr int max_levels = 40;

  multigrid_cg() = default;
  /// Builds the hierarchy of `g` (symmetric, both triangles stored, compressed), which it keeps.
  explicit multigrid_cg(row_matrix g) { compute(std::move(g)); }

  /// The finest level's matrix (G).
  [[nodiscard]] const row_matrix& matrix_g() const { return levels_.front().a; }

  /// Builds (or rebuilds) the hierarchy of `g`, taking the matrix over.
  void compute(row_matrix g) {
    strata::detail::require(g.isCompressed() && g.rows() == g.cols(), "strata.thermal", "matrix", g.rows(),
                            "a square compressed matrix");
    levels_.clear();
    levels_.reserve(static_cast<std::size_t>(max_levels));  // a level is never moved (nor copied)
    levels_.emplace_back();
    levels_.back().a.swap(g);  // taken over, not copied: fresh pages are what setup costs
    for (;;) {
      auto& L = levels_.back();
      const auto n = static_cast<int>(L.a.rows());
      L.inv_diag = L.a.diagonal().cwiseInverse();
      L.x.setZero(n);
      L.b.setZero(n);
      L.r.setZero(n);
      if (n <= coarse_nodes || static_cast<int>(levels_.size()) >= max_levels) break;
      int nc = 0;
      std::vector<int> agg = aggregate(L.a, nc);
      if (static_cast<double>(nc) > 0.85 * n) break;
      L.agg = std::move(agg);
      levels_.emplace_back();
      const auto& fine = levels_[levels_.size() - 2];
      galerkin(fine.a, fine.agg, nc, levels_.back().a);
    }
    // The coarsest level is nearly dense after a few aggregations (each coarse row sums whole
    // aggregates' rows): a dense factorisation up to `dense_coarse_nodes`, a sparse one above
    // (where coarsening stalled).
    const matrix last(levels_.back().a);
    if (last.rows() <= dense_coarse_nodes) {
      dense_coarse_.compute(Eigen::MatrixXd(last));
      if (dense_coarse_.info() != Eigen::Success)
        throw solver_error("[strata.thermal] multigrid coarse factorisation failed");
    } else {
      coarse_.compute(last);
      if (coarse_.info() != Eigen::Success) throw solver_error("[strata.thermal] multigrid coarse factorisation failed");
    }
    dense_ = last.rows() <= dense_coarse_nodes;
  }

  /// Nodes per level, finest first.
  [[nodiscard]] std::vector<int> level_sizes() const {
    std::vector<int> s;
    for (const auto& L : levels_) s.push_back(static_cast<int>(L.a.rows()));
    return s;
  }
  /// Iterations of the last `solve`.
  [[nodiscard]] int iterations() const { return iterations_; }

  /// x = G⁻¹ b to the relative residual `tol`; false if `max_iterations` did not reach it.
  bool solve(const Eigen::VectorXd& b, Eigen::VectorXd& x, double tol, int max_iterations) const {
    const row_matrix& g = levels_.front().a;
    const auto n = g.rows();
    x.setZero(n);
    iterations_ = 0;
    const double bn = b.norm();
    if (bn == 0.0) return true;
    Eigen::VectorXd r = b, z(n), p(n), q(n);
    precondition(r, z);
    p = z;
    double rz = r.dot(z);
    for (int it = 1; it <= max_iterations; ++it) {
      q.noalias() = g * p;
      const double alpha = rz / p.dot(q);
      x.noalias() += alpha * p;
      r.noalias() -= alpha * q;
      iterations_ = it;
      if (r.norm() <= tol * bn) return true;
      precondition(r, z);
      const double rz_next = r.dot(z);
      p = z + (rz_next / rz) * p;
      rz = rz_next;
    }
    return false;
  }

 private:
  struct level {
    row_matrix a;
    Eigen::VectorXd inv_diag;
    std::vector<int> agg;  ///< node -> aggregate of the next level (empty on the last)
    mutable Eigen::VectorXd x, b, r;
  };

  /// Vaněk's three passes (file comment); `nc` receives the number of aggregates.
  static std::vector<int> aggregate(const row_matrix& a, int& nc) {
    const auto n = static_cast<int>(a.rows());
    const Eigen::VectorXd d = a.diagonal();
    std::vector<int> agg(static_cast<std::size_t>(n), -1);
    const auto strong = [&](int i, Eigen::Index j, double v) {
      return j != i && -v >= strength * std::sqrt(d(i) * d(j));
    };
    const auto at = [&](Eigen::Index j) -> int& { return agg[static_cast<std::size_t>(j)]; };
    nc = 0;
    for (int i = 0; i < n; ++i) {  // pass 1: a free node with free strong neighbours
      if (at(i) >= 0) continue;
      bool free = true;
      int count = 0;
      for (row_matrix::InnerIterator it(a, i); it && free; ++it)
        if (strong(i, it.index(), it.value())) {
          ++count;
          free = at(it.index()) < 0;
        }
      if (!free || count == 0) continue;
      at(i) = nc;
      for (row_matrix::InnerIterator it(a, i); it; ++it)
        if (strong(i, it.index(), it.value())) at(it.index()) = nc;
      ++nc;
    }
    const std::vector<int> first = agg;
    for (int i = 0; i < n; ++i) {  // pass 2: join the strongest aggregated neighbour
      if (at(i) >= 0) continue;
      double best = 0.0;
      for (row_matrix::InnerIterator it(a, i); it; ++it) {
        const int fj = first[static_cast<std::size_t>(it.index())];
        if (fj >= 0 && strong(i, it.index(), it.value()) && -it.value() > best) {
          best = -it.value();
          at(i) = fj;
        }
      }
    }
    for (int i = 0; i < n; ++i) {  // pass 3: what is left, with its free strong neighbours
      if (at(i) >= 0) continue;
      at(i) = nc;
      for (row_matrix::InnerIterator it(a, i); it; ++it)
        if (at(it.index()) < 0 && strong(i, it.index(), it.value())) at(it.index()) = nc;
      ++nc;
    }
    return agg;
  }

  /// c = Aᵀ G A for the node -> aggregate map `agg` (`nc` aggregates): row I sums the rows of I's
  /// members, their columns mapped to aggregates (a marker per coarse column; rows sorted).
  static void galerkin(const row_matrix& a, const std::vector<int>& agg, int nc, row_matrix& c) {
    const auto n = static_cast<int>(a.rows());
    std::vector<int> start(static_cast<std::size_t>(nc) + 1, 0), members(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) ++start[static_cast<std::size_t>(agg[static_cast<std::size_t>(i)]) + 1];
    for (int I = 0; I < nc; ++I) start[static_cast<std::size_t>(I) + 1] += start[static_cast<std::size_t>(I)];
    {
      std::vector<int> fill(start.begin(), start.end() - 1);
      for (int i = 0; i < n; ++i) members[static_cast<std::size_t>(fill[static_cast<std::size_t>(agg[static_cast<std::size_t>(i)])]++)] = i;
    }
    // At most nnz(G) entries: written into the coarse matrix's own arrays, then shrunk.
    c.resize(nc, nc);
    c.resizeNonZeros(a.nonZeros());
    int* outer = c.outerIndexPtr();
    int* inner = c.innerIndexPtr();
    double* value = c.valuePtr();
    std::vector<int> slot(static_cast<std::size_t>(nc), -1);
    std::vector<std::pair<int, double>> row;
    int w = 0;
    for (int I = 0; I < nc; ++I) {
      row.clear();
      for (int m = start[static_cast<std::size_t>(I)]; m < start[static_cast<std::size_t>(I) + 1]; ++m)
        for (row_matrix::InnerIterator it(a, members[static_cast<std::size_t>(m)]); it; ++it) {
          const int J = agg[static_cast<std::size_t>(it.index())];
          int& k = slot[static_cast<std::size_t>(J)];
          if (k < 0) {
            k = static_cast<int>(row.size());
            row.emplace_back(J, 0.0);
          }
          row[static_cast<std::size_t>(k)].second += it.value();
        }
      std::sort(row.begin(), row.end());
      for (const auto& [J, v] : row) {
        slot[static_cast<std::size_t>(J)] = -1;
        inner[w] = J;
        value[w] = v;
        ++w;
      }
      outer[I + 1] = w;
    }
    c.resizeNonZeros(w);
  }

  void cycle(std::size_t l) const {
    const auto& L = levels_[l];
    if (l + 1 == levels_.size()) {
      if (dense_)
        L.x = dense_coarse_.solve(L.b);
      else
        L.x = coarse_.solve(L.b);
      return;
    }
    // Pre-smoothing from zero: x = ω D⁻¹ b; the residual; the coarse correction; post-smoothing
    // x += ω D⁻¹ (b − G x). Both steps are the same symmetric operator, so the cycle is symmetric.
    const auto n = L.b.size();
    L.x = smoothing_weight * L.b.cwiseProduct(L.inv_diag);
    L.r.noalias() = L.a * L.x;
    L.r = L.b - L.r;
    const auto& C = levels_[l + 1];
    C.b.setZero();
    for (Eigen::Index i = 0; i < n; ++i) C.b(L.agg[static_cast<std::size_t>(i)]) += L.r(i);
    cycle(l + 1);
    for (Eigen::Index i = 0; i < n; ++i) L.x(i) += C.x(L.agg[static_cast<std::size_t>(i)]);
    L.r.noalias() = L.a * L.x;
    L.x += smoothing_weight * (L.b - L.r).cwiseProduct(L.inv_diag);
  }

  void precondition(const Eigen::VectorXd& r, Eigen::VectorXd& z) const {
    levels_.front().b = r;
    cycle(0);
    z = levels_.front().x;
  }

  std::vector<level> levels_;
  Eigen::SimplicialLDLT<matrix> coarse_;  // of the last level (its column-major copy)
  Eigen::LLT<Eigen::MatrixXd> dense_coarse_;
  bool dense_ = true;
  mutable int iterations_ = 0;
};

}  // namespace thermal
}  // namespace v0
}  // namespace strata
