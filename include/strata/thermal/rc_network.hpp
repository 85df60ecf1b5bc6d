// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// A thermal RC network and its two solutions: the steady state and implicit (backward-Euler)
/// time stepping. The compact models (`thermal/model.hpp`) build one of these from a stack.
///
/// **The network.** Node i holds a heat capacity C_i (J/K) and the temperature rise θ_i = T_i −
/// T_amb; a conductance g_ij (W/K) joins nodes i and j, and g_i0 joins node i to the ambient. The
/// heat balance of node i with injected power P_i is (Skadron et al., ACM TACO 1(1) 2004, §3;
/// Huang et al., IEEE TVLSI 14(5) 2006, Eq. 1)
///   C_i dθ_i/dt = P_i − g_i0 θ_i − Σ_j g_ij (θ_i − θ_j),  i.e.  C θ' = P − G θ
/// with G = diag(g_i0) + the weighted graph Laplacian: symmetric, and positive definite as soon
/// as every connected part of the network reaches the ambient (which `validate` checks).
///
/// **Steady state.** G θ = P, solved by a sparse LDLᵀ factorisation (Eigen's
/// `SimplicialLDLT` with its approximate-minimum-degree ordering; the factorisation is kept, so
/// another power vector costs two triangular solves), or, for large networks, by conjugate
/// gradients to a relative residual ‖Gθ − P‖/‖P‖ ≤ `steady_cg_tolerance` = 1e-12, preconditioned
/// by an aggregation multigrid V-cycle (`steady_method::multigrid`, `thermal/multigrid.hpp`) or by
/// the diagonal (`steady_method::iterative`, Jacobi; Eigen's `ConjugateGradient`). On HotSpot's
/// EV6 grids (4 108 and 16 396 nodes) both put every node within 5e-14 of the direct solve,
/// relative to the largest rise (tests hold 1e-9): Jacobi in 179 and 345 iterations, multigrid in
/// 45 and 49; at 64 × 64 the multigrid solve is 1.6 × faster than Jacobi and 4–6 × faster than the
/// factorisation (the simplicial LDLᵀ of a layered grid fills in heavily; docs/thermal.md). `steady_method::automatic` takes the multigrid solve
/// from `steady_iterative_min_nodes` (2 048) nodes up; an iteration that does not converge (Jacobi:
/// 2N steps; multigrid: `steady_multigrid_max_iterations`) falls back to the factorisation.
///
/// **Transient.** Backward Euler with step h: (C/h + G) θ_{n+1} = (C/h) θ_n + P_{n+1}, also SPD,
/// factorised once per step size; unconditionally stable, first-order in h. It conserves energy
/// exactly in the discrete sense: over any run, Σ_i C_i (θ_i,end − θ_i,0) = Σ_n h (Σ_i P_i −
/// Σ_i g_i0 θ_i,n+1), which `transient_result` reports and the tests hold to round-off.
///
/// **Windows of constant power** (`window_integrator`): the exact solution over each window in the
/// network's modes, for networks of up to 1 024 nodes (class comment).
///
/// The sparse solve is `double` only (Eigen's sparse factorisations are not instantiated for
/// autodiff types here): the network is not a closed form. Its conductances come from the
/// templated closed forms of `thermal/conduction.hpp`.

#include <algorithm>  // std::equal
#include <cmath>    // std::isfinite, std::exp, std::expm1, std::sqrt
#include <cstdint>  // std::int64_t
#include <string>   // std::string
#include <utility>  // std::swap
#include <vector>   // std::vector

#include <Eigen/Core>
#include <Eigen/Eigenvalues>  // window_integrator
#include <Eigen/IterativeLinearSolvers>
#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>

#include "strata/core/error.hpp"
#include "strata/core/limits.hpp"
#include "strata/thermal/multigrid.hpp"

namespace strata {
inline namespace v0 {
namespace thermal {

/// Conductances and capacities of a thermal network (SI: W/K, J/K).
struct rc_network {
  /// One conductance g between nodes a and b.
  struct link {
    int a = 0;
    int b = 0;
    double g_W_K = 0.0;
  };
  std::vector<double> capacity_J_K;  ///< C_i, one per node
  std::vector<double> ambient_W_K;   ///< g_i0, one per node (0: no path to the ambient)
  std::vector<link> links;           ///< g_ij, each pair once (a ≠ b)

  /// Adds a node and returns its index.
  template <class = void>
  int add_node(double capacity_J_K_ = 0.0, double ambient_W_K_ = 0.0) {
    capacity_J_K.push_back(capacity_J_K_);
    ambient_W_K.push_back(ambient_W_K_);
    return static_cast<int>(capacity_J_K.size()) - 1;
  }
  /// Joins `a` and `b` with conductance `g` (ignored if g = 0).
  template <class = void>
  void connect(int a, int b, double g) {
    if (g > 0.0) links.push_back({a, b, g});
  }
  [[nodiscard]] int size() const { return static_cast<int>(capacity_J_K.size()); }
};

namespace detail {

/// Throws unless every value is finite and non-negative, links name nodes, and every connected
/// part of the network has a path to the ambient (else G is singular).
template <class = void>
void validate_network(const rc_network& n) {
  const int N = n.size();
  strata::detail::require(N > 0, "strata.thermal.network", "nodes", N, "at least one node");
  strata::detail::require(static_cast<std::int64_t>(N) <= limits().thermal_nodes, "strata.thermal.network", "nodes", N,
                          "at most strata::limits().thermal_nodes");
  strata::detail::require(n.ambient_W_K.size() == n.capacity_J_K.size(), "strata.thermal.network", "ambient",
                          n.ambient_W_K.size(), "one conductance per node");
  for (int i = 0; i < N; ++i) {
    strata::detail::require_nonnegative(n.capacity_J_K[static_cast<std::size_t>(i)], "strata.thermal.network",
                                        "capacity", "J/K");
    strata::detail::require_nonnegative(n.ambient_W_K[static_cast<std::size_t>(i)], "strata.thermal.network",
                                        "ambient", "W/K");
  }
  // Union-find over links; a component is grounded if any member reaches the ambient.
  std::vector<int> parent(static_cast<std::size_t>(N));
  for (int i = 0; i < N; ++i) parent[static_cast<std::size_t>(i)] = i;
  const auto find = [&](int x) {
    while (parent[static_cast<std::size_t>(x)] != x) {
      parent[static_cast<std::size_t>(x)] = parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(x)])];
      x = parent[static_cast<std::size_t>(x)];
    }
    return x;
  };
  for (const auto& l : n.links) {
    strata::detail::require(l.a >= 0 && l.a < N && l.b >= 0 && l.b < N && l.a != l.b, "strata.thermal.network",
                            "link", l.a, "two distinct nodes of the network");
    strata::detail::require_positive(l.g_W_K, "strata.thermal.network", "link.g", "W/K");
    parent[static_cast<std::size_t>(find(l.a))] = find(l.b);
  }
  std::vector<char> grounded(static_cast<std::size_t>(N), 0);
  for (int i = 0; i < N; ++i)
    if (n.ambient_W_K[static_cast<std::size_t>(i)] > 0.0) grounded[static_cast<std::size_t>(find(i))] = 1;
  for (int i = 0; i < N; ++i)
    strata::detail::require(grounded[static_cast<std::size_t>(find(i))] != 0, "strata.thermal.network", "node", i,
                            "connected to the ambient (a node with no path to the heat sink has no steady state)");
}

/// G (+ C/h if `inv_h` > 0) as a sparse symmetric matrix, both triangles stored. Assembled in
/// the matrix's own arrays, column by column (each node's links counted, placed, sorted by row,
/// a repeated pair summed), not through Eigen's triplet list, whose sort and two copies touched
/// three times the memory (fresh pages are most of what an assembly costs on the build machine).
/// `Order`: Eigen::ColMajor or Eigen::RowMajor (the same arrays: G is symmetric).
template <int Order = Eigen::ColMajor>
Eigen::SparseMatrix<double, Order> conductance_matrix(const rc_network& n, double inv_h) {
  const int N = n.size();
  Eigen::SparseMatrix<double, Order> g(N, N);
  int* outer = g.outerIndexPtr();  // N + 1 zeros
  for (const auto& l : n.links) {
    ++outer[l.a + 1];
    ++outer[l.b + 1];
  }
  for (int i = 0; i < N; ++i) outer[i + 1] += outer[i] + 1;  // + the diagonal
  g.resizeNonZeros(outer[N]);
  int* inner = g.innerIndexPtr();
  double* value = g.valuePtr();
  // The diagonal first in every column: g_i0 (+ C_i/h), then each link's g in the links' order.
  std::vector<int> fill(static_cast<std::size_t>(N));
  for (int i = 0; i < N; ++i) {
    const auto k = static_cast<std::size_t>(i);
    inner[outer[i]] = i;
    value[outer[i]] = n.ambient_W_K[k] + inv_h * n.capacity_J_K[k];
    fill[k] = outer[i] + 1;
  }
  for (const auto& l : n.links) {
    value[outer[l.a]] += l.g_W_K;
    value[outer[l.b]] += l.g_W_K;
    const int ka = fill[static_cast<std::size_t>(l.a)]++, kb = fill[static_cast<std::size_t>(l.b)]++;
    inner[ka] = l.b;
    value[ka] = -l.g_W_K;
    inner[kb] = l.a;
    value[kb] = -l.g_W_K;
  }
  // Sort every column by row (a few entries: insertion sort) and sum a pair linked twice.
  int w = 0;
  for (int j = 0; j < N; ++j) {
    const int b = outer[j], e = outer[j + 1];
    for (int k = b + 1; k < e; ++k)
      for (int m = k; m > b && inner[m - 1] > inner[m]; --m) {
        std::swap(inner[m - 1], inner[m]);
        std::swap(value[m - 1], value[m]);
      }
    outer[j] = w;
    for (int k = b; k < e; ++k) {
      if (w > outer[j] && inner[w - 1] == inner[k]) {
        value[w - 1] += value[k];
        continue;
      }
      inner[w] = inner[k];
      value[w] = value[k];
      ++w;
    }
  }
  outer[N] = w;
  g.resizeNonZeros(w);
  return g;
}

}  // namespace detail

/// How the steady state is solved (file comment).
enum class steady_method {
  automatic,  ///< multigrid from `steady_iterative_min_nodes` nodes up, direct below
  direct,     ///< sparse LDLᵀ, factorised once (many power vectors, small networks)
  iterative,  ///< Jacobi-preconditioned conjugate gradients, per power vector
  multigrid,  ///< conjugate gradients preconditioned by an aggregation V-cycle (`multigrid.hpp`)
};
/// Networks of at least this many nodes take the multigrid solve under `steady_method::automatic`
/// (measured: on HotSpot's EV6 grid of 4 108 nodes an iteration is already 5 × faster than the
/// factorisation).
inline constexpr int steady_iterative_min_nodes = 2048;
/// Relative residual ‖Gθ − P‖/‖P‖ at which the iterative solve stops.
inline constexpr double steady_cg_tolerance = 1e-12;
/// The multigrid iteration gives up (and factorises) after this many steps (EV6 64 × 64: 49).
inline constexpr int steady_multigrid_max_iterations = 1000;

/// The direct solve's factorisation of G kept from one network to the next, for a sequence of
/// networks of one geometry whose conductances change (the gap explainer's re-evaluations of one
/// stack, `report/explain_groups.hpp`). Eigen's `SimplicialLDLT` splits `compute` into
/// `analyzePattern` (the approximate-minimum-degree ordering and the elimination tree, which read
/// only where G has entries) and `factorize` (the numbers); `factorise(n)` therefore
/// - re-uses the factorisation as it is when G equals the last one entry for entry (a change of
///   the coolant, the limit or the power moves no conductance);
/// - re-uses the ordering and the tree, and factorises again into the same storage, when G has
///   the last one's entries at new values;
/// - analyses and factorises afresh otherwise (the first network, a new grid).
/// Each path gives the same factors, bit for bit, as `steady_solver`'s own `compute`: the ordering
/// and the tree are functions of the pattern alone, and `factorize` performs the same operations
/// in the same order whatever it ran before. Not thread-safe: one cache per sequence.
template <class = void>
class steady_factorisation_cache {
 public:
  using factorisation = Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>>;
  /// The factorisation of G of `n` (checked as `steady_solver` checks it); valid until the next
  /// call. Throws `solver_error` when the factorisation fails.
  const factorisation& factorise(const rc_network& n) {
    detail::validate_network(n);
    Eigen::SparseMatrix<double> g = detail::conductance_matrix(n, 0.0);
    const auto same = [](const auto* a, const auto* b, Eigen::Index count) { return std::equal(a, a + count, b); };
    const bool same_pattern = analysed_ && g.rows() == g_.rows() && g.nonZeros() == g_.nonZeros() &&
                              same(g.outerIndexPtr(), g_.outerIndexPtr(), g.rows() + 1) &&
                              same(g.innerIndexPtr(), g_.innerIndexPtr(), g.nonZeros());
    if (same_pattern && factored_ && same(g.valuePtr(), g_.valuePtr(), g.nonZeros())) {
      ++reused_;
      return ldlt_;
    }
    factored_ = false;
    if (!same_pattern) {
      analysed_ = false;
      ldlt_.analyzePattern(g);
      ++analyses_;
    }
    g_.swap(g);  // Eigen's SparseMatrix has no move assignment: swap, not a copy
    analysed_ = true;
    ldlt_.factorize(g_);
    ++factorisations_;
    if (ldlt_.info() != Eigen::Success) throw solver_error("[strata.thermal] steady-state factorisation failed");
    factored_ = true;
    return ldlt_;
  }
  /// Orderings computed (`analyzePattern`), numeric factorisations, and calls answered by the
  /// last factorisation as it was.
  [[nodiscard]] int analyses() const { return analyses_; }
  [[nodiscard]] int factorisations() const { return factorisations_; }
  [[nodiscard]] int reused() const { return reused_; }

 private:
  Eigen::SparseMatrix<double> g_;
  factorisation ldlt_;
  bool analysed_ = false;
  bool factored_ = false;
  int analyses_ = 0;
  int factorisations_ = 0;
  int reused_ = 0;
};

/// The steady state of a network: `rise(P)` returns θ = G⁻¹ P (kelvin above ambient) for any
/// power vector, by a factorisation made once (`direct`) or by conjugate gradients
/// (`iterative`; file comment).
template <class = void>
class steady_solver {
 public:
  /// The direct solve with the factorisation kept in `cache` (`steady_factorisation_cache`): the
  /// same rises as `steady_method::direct`, bit for bit. The solver reads the cache's
  /// factorisation: it answers for `n` until the cache factorises another network.
  steady_solver(const rc_network& n, steady_factorisation_cache<>& cache)
      : n_(n.size()), shared_(&cache.factorise(n)) {}
  explicit steady_solver(const rc_network& n, steady_method m = steady_method::direct) : n_(n.size()) {
    detail::validate_network(n);
    multigrid_ = m == steady_method::multigrid || (m == steady_method::automatic && n_ >= steady_iterative_min_nodes);
    iterative_ = multigrid_ || m == steady_method::iterative;
    if (multigrid_) {  // the hierarchy keeps G (row-major: the same arrays)
      mg_.compute(detail::conductance_matrix<Eigen::RowMajor>(n, 0.0));
      return;
    }
    g_ = detail::conductance_matrix(n, 0.0);
    if (iterative_) {
      cg_.setTolerance(steady_cg_tolerance);
      cg_.compute(g_);
      return;
    }
    factorise();
  }
  /// Whether `rise` iterates (Jacobi or multigrid; else it uses the factorisation).
  [[nodiscard]] bool iterative() const { return iterative_; }
  /// Whether `rise` iterates with the multigrid preconditioner.
  [[nodiscard]] bool multigrid() const { return multigrid_ && iterative_; }
  /// Iterations of the last iterative `rise` (0 for the factorisation).
  [[nodiscard]] int iterations() const { return iterations_; }
  /// θ = G⁻¹ P (K above ambient); `power_W` has one entry per node.
  [[nodiscard]] std::vector<double> rise(const std::vector<double>& power_W) const {
    strata::detail::require(static_cast<int>(power_W.size()) == n_, "strata.thermal", "power", power_W.size(),
                            "one value per node");
    const Eigen::Map<const Eigen::VectorXd> p(power_W.data(), n_);
    Eigen::VectorXd x;
    iterations_ = 0;
    if (iterative_ && multigrid_) {
      const bool ok = mg_.solve(p, x, steady_cg_tolerance, steady_multigrid_max_iterations);
      iterations_ = mg_.iterations();
      if (!ok) {  // not converged: factorise after all
        iterative_ = false;
        factorise();
      }
    } else if (iterative_) {
      x = cg_.solve(p);
      iterations_ = static_cast<int>(cg_.iterations());
      if (cg_.info() != Eigen::Success) {  // not converged within 2N steps: factorise after all
        iterative_ = false;
        factorise();
      }
    }
    if (!iterative_) x = shared_ != nullptr ? shared_->solve(p) : ldlt_.solve(p);
    // A network whose conductances span too many decades for double precision (blocks of a
    // micrometre beside a metre-wide sink) is refused rather than answered with a wrong number.
    if (!x.allFinite())
      throw config_error("network", "[strata.thermal] the steady state is not finite: the network's conductances "
                                    "span too many orders of magnitude for a double-precision solve");
    return {x.data(), x.data() + n_};
  }

 private:
  void factorise() const {
    if (multigrid_) {  // G is held by the hierarchy, row-major: the same arrays read as columns
      const auto& a = mg_.matrix_g();
      ldlt_.compute(Eigen::Map<const Eigen::SparseMatrix<double>>(a.rows(), a.cols(), a.nonZeros(), a.outerIndexPtr(),
                                                                  a.innerIndexPtr(), a.valuePtr()));
    } else {
      ldlt_.compute(g_);
    }
    if (ldlt_.info() != Eigen::Success) throw solver_error("[strata.thermal] steady-state factorisation failed");
  }
  int n_;
  bool multigrid_ = false;
  mutable bool iterative_ = false;
  mutable int iterations_ = 0;
  multigrid_cg<> mg_;
  Eigen::SparseMatrix<double> g_;
  mutable Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> ldlt_;
  const Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>>* shared_ = nullptr;  // a cache's (direct only)
  Eigen::ConjugateGradient<Eigen::SparseMatrix<double>, Eigen::Lower | Eigen::Upper> cg_;
};

/// Energy bookkeeping of a transient run (J): `stored` = Σ C (θ_end − θ_0), `injected` = Σ h ΣP,
/// `removed` = Σ h Σ g_i0 θ; backward Euler makes stored = injected − removed to round-off.
struct transient_energy {
  double injected_J = 0.0;
  double removed_J = 0.0;
  double stored_J = 0.0;
};

/// Backward-Euler stepping with a fixed step `h_s`, factorised once.
template <class = void>
class transient_solver {
 public:
  transient_solver(const rc_network& n, double h_s) : net_(&n), h_(h_s) {
    detail::validate_network(n);
    strata::detail::require_positive(h_s, "strata.thermal", "time_step", "s");
    for (double c : n.capacity_J_K)
      strata::detail::require(c > 0.0, "strata.thermal.network", "capacity", c,
                              "> 0 J/K at every node for a transient (a massless node has no time constant)");
    ldlt_.compute(detail::conductance_matrix(n, 1.0 / h_s));
    if (ldlt_.info() != Eigen::Success) throw solver_error("[strata.thermal] transient factorisation failed");
  }
  /// Advances `theta` (K above ambient, one per node) by one step under `power_W`; adds to `e`.
  void step(std::vector<double>& theta, const std::vector<double>& power_W, transient_energy& e) const {
    const int N = net_->size();
    strata::detail::require(static_cast<int>(theta.size()) == N && static_cast<int>(power_W.size()) == N,
                            "strata.thermal", "power", power_W.size(), "one value per node");
    Eigen::VectorXd rhs(N);
    double p_sum = 0.0;
    for (int i = 0; i < N; ++i) {
      const auto k = static_cast<std::size_t>(i);
      rhs(i) = net_->capacity_J_K[k] / h_ * theta[k] + power_W[k];
      p_sum += power_W[k];
    }
    const Eigen::VectorXd x = ldlt_.solve(rhs);
    if (!x.allFinite())
      throw config_error("network", "[strata.thermal] a transient step is not finite: the network's conductances "
                                    "span too many orders of magnitude for a double-precision solve");
    double removed = 0.0;
    double stored = 0.0;
    for (int i = 0; i < N; ++i) {
      const auto k = static_cast<std::size_t>(i);
      removed += net_->ambient_W_K[k] * x(i);
      stored += net_->capacity_J_K[k] * (x(i) - theta[k]);
      theta[k] = x(i);
    }
    e.injected_J += h_ * p_sum;
    e.removed_J += h_ * removed;
    e.stored_J += stored;
  }
  [[nodiscard]] double time_step() const { return h_; }

 private:
  const rc_network* net_;
  double h_;
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> ldlt_;
};

/// How many nodes a network may have for `window_integrator` (its dense eigendecomposition costs
/// O(N³) once and N² doubles: 8 MB at this bound).
inline constexpr int window_integrator_max_nodes = 1024;

/// The exact solution of C θ' = P − G θ for power that is constant over each window of length Δ
/// (a zero-order hold: the exponential integrator of the network), in the network's modes, for
/// power vectors that are combinations Σ_j u_j P_j of a few fixed shapes P_j, read at chosen
/// output nodes.
///
/// **Modes.** With D = diag(C), S = D^{-1/2} G D^{-1/2} is symmetric positive definite; S = Q Λ Qᵀ
/// (Eigen's `SelfAdjointEigenSolver`) and z = Qᵀ D^{1/2} θ decouple the network into modes
/// z_k' = −λ_k z_k + b_k, b = Qᵀ D^{-1/2} P. Over a window of constant power
///   z_k(Δ) = e^{−λ_k Δ} z_k(0) + (1 − e^{−λ_k Δ}) b_k/λ_k,
///   ∫₀^Δ z_k = (1 − e^{−λ_k Δ}) z_k(0)/λ_k + (Δ − (1 − e^{−λ_k Δ})/λ_k) b_k/λ_k,
/// exactly (no time-step error, unlike backward Euler's first-order (1 + hλ)^{-1}). θ = D^{-1/2} Q z.
///
/// **Fast modes are exact, not truncated.** A mode with λ_k Δ ≥ `fast_decay` (41.6: e^{−λΔ} <
/// 2⁻⁶⁰ ≈ 8.7e-19) forgets its start within one window below double precision: at every window's
/// end it sits at b_k/λ_k of that window's power. Its contribution to the outputs is therefore a
/// fixed matrix times the window's weights u, and only the slow modes (λ_k Δ < 41.6) are stepped
/// and read: a window costs O(n_out · n_slow + N_slow · J), not a sparse solve. On the Stratum
/// stack's block model (462 nodes, Δ = 5 ms) most modes are fast: the thin bond and BEOL layers
/// relax in micro- to nanoseconds.
///
/// **Energy books.** stored = Σ C (θ_end − θ_0) = s·(z_end − z_0) with s = Qᵀ D^{1/2} 1; removed =
/// ∫ Σ g_i0 θ_i = Σ_k λ_k s_k ∫z_k (G 1 = g0, so Qᵀ D^{-1/2} g0 = Λ s); injected = Δ Σ_j u_j ΣP_j.
/// Each mode's step satisfies Δz_k = b_k Δ − λ_k ∫z_k, so stored = injected − removed to round-off.
///
/// Eigenvalue accuracy: the smallest λ carry an absolute error of about ε·λ_max, relative
/// ε·λ_max/λ_min (≈ 2e-10 on the Stratum stack, whose bond layer's λ ≈ 1.6e8 /s against 100 /s
/// for the slowest mode), so the steady state it reaches agrees with a sparse solve to about that.
template <class = void>
class window_integrator {
 public:
  /// The network `n`, windows of `window_s`, power shapes `shapes` (J vectors of one value per
  /// node) and the `outputs` (node indices) read after each window. Starts at θ = 0.
  window_integrator(const rc_network& n, double window_s, const std::vector<std::vector<double>>& shapes,
                    const std::vector<int>& outputs)
      : n_(n.size()), dt_(window_s), out_nodes_(outputs) {
    detail::validate_network(n);
    strata::detail::require_positive(window_s, "strata.thermal", "time_step", "s");
    strata::detail::require(n_ <= window_integrator_max_nodes, "strata.thermal.network", "nodes", n_,
                            "at most window_integrator_max_nodes (1024) for the modal window integrator");
    for (double c : n.capacity_J_K)
      strata::detail::require(c > 0.0, "strata.thermal.network", "capacity", c,
                              "> 0 J/K at every node for a transient (a massless node has no time constant)");
    strata::detail::require(!shapes.empty() && shapes.size() <= 16, "strata.thermal", "shapes", shapes.size(),
                            "1 to 16 power shapes");
    for (const auto& sh : shapes)
      strata::detail::require(static_cast<int>(sh.size()) == n_, "strata.thermal", "power", sh.size(),
                              "one value per node");
    for (int o : outputs)
      strata::detail::require(o >= 0 && o < n_, "strata.thermal", "outputs", o, "a node of the network");
    const auto N = static_cast<Eigen::Index>(n_);
    Eigen::VectorXd d_half(N), d_inv_half(N);
    for (Eigen::Index i = 0; i < N; ++i) {
      d_half(i) = std::sqrt(n.capacity_J_K[static_cast<std::size_t>(i)]);
      d_inv_half(i) = 1.0 / d_half(i);
    }
    const Eigen::MatrixXd g = Eigen::MatrixXd(detail::conductance_matrix(n, 0.0));
    const Eigen::MatrixXd sym = d_inv_half.asDiagonal() * g * d_inv_half.asDiagonal();
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(sym);
    if (es.info() != Eigen::Success) throw solver_error("[strata.thermal] the network's eigendecomposition failed");
    const Eigen::VectorXd& lambda = es.eigenvalues();
    const Eigen::MatrixXd& q = es.eigenvectors();
    // Slow modes: those a window does not relax below 2^-60 (file comment).
    std::vector<Eigen::Index> slow, fast;
    for (Eigen::Index k = 0; k < N; ++k) {
      if (!(lambda(k) > 0.0))
        throw config_error("network", "[strata.thermal] the network's conductance matrix is not positive definite "
                                      "to double precision (its conductances span too many orders of magnitude)");
      (lambda(k) * dt_ < fast_decay ? slow : fast).push_back(k);
    }
    const auto J = static_cast<Eigen::Index>(shapes.size());
    const auto M = static_cast<Eigen::Index>(slow.size());
    const auto O = static_cast<Eigen::Index>(outputs.size());
    // b per unit weight of each shape, all modes; the shapes' total power.
    Eigen::MatrixXd b(N, J);
    shape_total_.assign(shapes.size(), 0.0);
    for (Eigen::Index j = 0; j < J; ++j) {
      const Eigen::Map<const Eigen::VectorXd> pj(shapes[static_cast<std::size_t>(j)].data(), N);
      b.col(j) = q.transpose() * d_inv_half.cwiseProduct(pj);
      shape_total_[static_cast<std::size_t>(j)] = pj.sum();
    }
    const Eigen::VectorXd s = q.transpose() * d_half;
    // Slow modes: their decay, gain, unit inputs, read-out rows and energy weights.
    decay_.resize(M);
    gain_.resize(M);
    tail_.resize(M);
    lam_.resize(M);
    s_slow_.resize(M);
    b_slow_.resize(M, J);
    read_slow_.resize(O, M);
    for (Eigen::Index m = 0; m < M; ++m) {
      const Eigen::Index k = slow[static_cast<std::size_t>(m)];
      const double x = lambda(k) * dt_;
      lam_(m) = lambda(k);
      decay_(m) = std::exp(-x);
      gain_(m) = -std::expm1(-x) / lambda(k);  // (1 - e^{-x})/lambda
      // (dt - gain)/lambda = (x - (1 - e^{-x}))/lambda^2, by its series where x is small.
      const double xm = x < 1e-4 ? x * x * (0.5 - x / 6.0) : x + std::expm1(-x);
      tail_(m) = xm / (lambda(k) * lambda(k));
      s_slow_(m) = s(k);
      b_slow_.row(m) = b.row(k);
      for (Eigen::Index o = 0; o < O; ++o)
        read_slow_(o, m) = d_inv_half(outputs[static_cast<std::size_t>(o)]) * q(outputs[static_cast<std::size_t>(o)], k);
    }
    // Fast modes: at a window's end each sits at b_k/lambda_k of that window's power.
    read_fast_ = Eigen::MatrixXd::Zero(O, J);
    s_fast_ = Eigen::VectorXd::Zero(J);     // s . z_fast per unit weight
    r_fast_ = Eigen::VectorXd::Zero(J);     // removed from the start's part: lambda s z0 (1 - e)/lambda = s z0
    r_fast_in_ = Eigen::VectorXd::Zero(J);  // removed from the window's input: s b (dt - 1/lambda)
    for (const Eigen::Index k : fast) {
      const double lk = lambda(k);
      for (Eigen::Index j = 0; j < J; ++j) {
        const double zk = b(k, j) / lk;
        s_fast_(j) += s(k) * zk;
        r_fast_(j) += s(k) * zk;
        r_fast_in_(j) += s(k) * b(k, j) * (dt_ - 1.0 / lk);
        for (Eigen::Index o = 0; o < O; ++o)
          read_fast_(o, j) += d_inv_half(outputs[static_cast<std::size_t>(o)]) * q(outputs[static_cast<std::size_t>(o)], k) * zk;
      }
    }
    r_slow_ = s_slow_.cwiseProduct(lam_);
    z_ = Eigen::VectorXd::Zero(M);
    u_ = Eigen::VectorXd::Zero(J);
    u_prev_ = u_;
    bu_.resize(M);
    integral_.resize(M);
    out_.assign(outputs.size(), 0.0);
    y_.resize(O);
    slow_modes_ = static_cast<int>(M);
  }

  /// Sets the state to the steady state of the power Σ_j `u`_j P_j.
  void start_steady(const std::vector<double>& u) {
    set_weights(u);
    bu_.noalias() = b_slow_ * u_;
    z_ = bu_.cwiseQuotient(lam_);
    read();
  }
  /// One window under the constant power Σ_j `u`_j P_j; adds to the books `e`.
  void advance(const std::vector<double>& u, transient_energy& e) {
    u_prev_ = u_;
    set_weights(u);
    bu_.noalias() = b_slow_ * u_;
    // Slow modes, exactly; the energy they store and remove.
    integral_.array() = gain_.array() * z_.array() + tail_.array() * bu_.array();
    const double stored_slow_before = s_slow_.dot(z_);
    z_.array() = decay_.array() * z_.array() + gain_.array() * bu_.array();
    double removed = r_slow_.dot(integral_);
    double stored = s_slow_.dot(z_) - stored_slow_before;
    // Fast modes: from the previous window's quasi-static value to this one's.
    removed += r_fast_.dot(u_prev_) + r_fast_in_.dot(u_);
    stored += s_fast_.dot(u_) - s_fast_.dot(u_prev_);
    double injected = 0.0;
    for (std::size_t j = 0; j < shape_total_.size(); ++j) injected += u[j] * shape_total_[j];
    e.injected_J += dt_ * injected;
    e.removed_J += removed;
    e.stored_J += stored;
    read();
  }
  /// θ (K above ambient) at the output nodes, in `outputs` order, after the last window.
  [[nodiscard]] const std::vector<double>& outputs() const { return out_; }
  /// Modes stepped per window (the others relax within one window; file comment).
  [[nodiscard]] int slow_modes() const { return slow_modes_; }
  [[nodiscard]] double window() const { return dt_; }
  /// λΔ from which a mode is at its window's quasi-static value: e^{−41.6} < 2⁻⁶⁰.
  static constexpr double fast_decay = 41.6;

 private:
  void set_weights(const std::vector<double>& u) {
    strata::detail::require(u.size() == shape_total_.size(), "strata.thermal", "power", u.size(),
                            "one weight per power shape");
    for (std::size_t j = 0; j < u.size(); ++j) {
      strata::detail::require(std::isfinite(u[j]), "strata.thermal", "power", u[j], "a finite weight");
      u_(static_cast<Eigen::Index>(j)) = u[j];
    }
  }
  void read() {
    y_.noalias() = read_slow_ * z_;
    y_.noalias() += read_fast_ * u_;
    if (!y_.allFinite())
      throw config_error("network", "[strata.thermal] a window's temperatures are not finite");
    for (std::size_t o = 0; o < out_.size(); ++o) out_[o] = y_(static_cast<Eigen::Index>(o));
  }
  int n_;
  double dt_;
  std::vector<int> out_nodes_;
  std::vector<double> shape_total_;
  Eigen::VectorXd decay_, gain_, tail_, lam_, s_slow_, r_slow_, z_, u_, u_prev_, bu_, integral_, y_;
  Eigen::MatrixXd b_slow_, read_slow_, read_fast_;
  Eigen::VectorXd s_fast_, r_fast_, r_fast_in_;
  std::vector<double> out_;
  int slow_modes_ = 0;
};

}  // namespace thermal
}  // namespace v0
}  // namespace strata
