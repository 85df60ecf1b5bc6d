// SPDX-License-Identifier: MIT
// The exact window integrator (thermal/rc_network.hpp, window_integrator): one RC node by hand,
// a layered network against extrapolated backward Euler, energy books, the steady state, bounds.
#include "strata/thermal/model.hpp"

#include <doctest/doctest.h>

#include <algorithm>  // std::max
#include <cmath>      // std::exp, std::abs
#include <vector>     // std::vector

#include "strata/thermal/stratum_stack.hpp"

using namespace strata::thermal;

namespace {

/// A 4 mm source on a 1 cm plate (four fillers), die over interface, cooled by a plate below.
thermal_network window_integrator_network(thermal_model_kind kind) {
  const double L = 0.01, a = 0.004, e = (L - a) / 2;
  floorplan f;
  f.blocks.push_back({"src", a, a, e, e, {}, {}});
  f.blocks.push_back({"south", L, e, 0.0, 0.0, {}, {}});
  f.blocks.push_back({"north", L, e, 0.0, e + a, {}, {}});
  f.blocks.push_back({"west", e, a, 0.0, e, {}, {}});
  f.blocks.push_back({"east", e, a, e + a, e, {}, {}});
  thermal_stack s;
  s.package.cooling = cooling_kind::cold_plate;
  s.package.cold_plate_h_W_m2K = 2e4;
  s.package.ambient_K = 300.0;
  s.layers = {thermal_layer{f, 150e-6, 100.0, 1.75e6, true, true}, thermal_layer{f, 20e-6, 4.0, 4e6, false, true}};
  thermal_options o;
  o.model = kind;
  o.grid_rows = o.grid_cols = 6;
  return build_thermal_network(s, o);
}

/// Backward Euler over one window of `steps` equal steps (the reference, extrapolated below).
std::vector<double> window_integrator_be(const rc_network& n, std::vector<double> theta, const std::vector<double>& p,
                                         double window, int steps) {
  const transient_solver<> be(n, window / steps);
  transient_energy e;
  for (int k = 0; k < steps; ++k) be.step(theta, p, e);
  return theta;
}

}  // namespace

TEST_CASE("window integrator: one RC node is the exponential by hand, books balance") {
  rc_network n;
  n.add_node(2.0, 0.5);  // C = 2 J/K, g = 0.5 W/K: tau = 4 s
  window_integrator<> w(n, 1.0, {{1.0}}, {0});
  transient_energy e;
  w.advance({3.0}, e);  // from 0 under 3 W: 6 (1 - e^{-1/4})
  CHECK(w.outputs()[0] == doctest::Approx(6.0 * (1.0 - std::exp(-0.25))).epsilon(1e-14));
  w.advance({0.0}, e);  // decays by e^{-1/4}
  CHECK(w.outputs()[0] == doctest::Approx(6.0 * (1.0 - std::exp(-0.25)) * std::exp(-0.25)).epsilon(1e-14));
  CHECK(e.injected_J == doctest::Approx(3.0));
  CHECK(e.stored_J == doctest::Approx(2.0 * w.outputs()[0]).epsilon(1e-14));
  CHECK(e.stored_J == doctest::Approx(e.injected_J - e.removed_J).epsilon(1e-13));
  CHECK(w.slow_modes() == 1);
  w.start_steady({3.0});
  CHECK(w.outputs()[0] == doctest::Approx(6.0).epsilon(1e-15));
}

TEST_CASE("window integrator: a layered network equals backward Euler's limit and settles on the steady state") {
  for (auto kind : {thermal_model_kind::block, thermal_model_kind::grid}) {
    const auto tn = window_integrator_network(kind);
    const auto& n = tn.net;
    const auto N = static_cast<std::size_t>(n.size());
    // Two shapes: the source's power and the fillers' (block powers mapped to nodes).
    const auto src = node_power(tn, block_power{{1.0, 0.0, 0.0, 0.0, 0.0}, {0, 0, 0, 0, 0}});
    const auto rim = node_power(tn, block_power{{0.0, 0.25, 0.25, 0.25, 0.25}, {0, 0, 0, 0, 0}});
    std::vector<int> outs;
    for (int i = 0; i < n.size(); ++i) outs.push_back(i);
    const double window = 2e-3;
    window_integrator<> w(n, window, {src, rim}, outs);
    CHECK(w.slow_modes() > 0);
    CHECK(w.slow_modes() <= n.size());
    w.start_steady({1.0, 0.5});
    const steady_solver<> st(n);
    auto p0 = src;
    for (std::size_t i = 0; i < N; ++i) p0[i] = src[i] + 0.5 * rim[i];
    auto theta = st.rise(p0);
    double peak = 0.0;
    for (double v : theta) peak = std::max(peak, v);
    for (std::size_t i = 0; i < N; ++i) CHECK(std::abs(w.outputs()[i] - theta[i]) <= 1e-9 * peak);
    // A trace of windows: the exact solution against backward Euler at 400 and 800 steps a
    // window, extrapolated (2 BE(h/2) - BE(h): second order), within 1e-6 of the peak rise.
    transient_energy e;
    const std::vector<std::vector<double>> weights{{20.0, 1.0}, {2.0, 4.0}, {0.0, 0.0}, {35.0, 2.0}, {5.0, 5.0}};
    for (const auto& u : weights) {
      std::vector<double> p(N);
      for (std::size_t i = 0; i < N; ++i) p[i] = u[0] * src[i] + u[1] * rim[i];
      const auto coarse = window_integrator_be(n, theta, p, window, 400);
      const auto fine = window_integrator_be(n, theta, p, window, 800);
      w.advance(u, e);
      double worst = 0.0, top = 0.0;
      for (std::size_t i = 0; i < N; ++i) {
        theta[i] = 2.0 * fine[i] - coarse[i];
        worst = std::max(worst, std::abs(w.outputs()[i] - theta[i]));
        top = std::max(top, std::abs(theta[i]));
      }
      CHECK(worst <= 1e-6 * top);
    }
    CHECK(e.injected_J == doctest::Approx(window * (21.0 + 6.0 + 0.0 + 37.0 + 10.0)).epsilon(1e-12));
    CHECK(e.stored_J == doctest::Approx(e.injected_J - e.removed_J).epsilon(1e-9));
    // Constant power for many windows ends on the steady state of a separate solve.
    for (int k = 0; k < 2000; ++k) w.advance({7.0, 3.0}, e);
    std::vector<double> p7(N);
    for (std::size_t i = 0; i < N; ++i) p7[i] = 7.0 * src[i] + 3.0 * rim[i];
    const auto ss = st.rise(p7);
    for (std::size_t i = 0; i < N; ++i) CHECK(std::abs(w.outputs()[i] - ss[i]) <= 1e-9 * ss[0]);
    CHECK(e.stored_J == doctest::Approx(e.injected_J - e.removed_J).epsilon(1e-9));
  }
}

TEST_CASE("window integrator: the Stratum stack's block network steps only its slow modes") {
  stratum_stack_params sp;
  sp.model = thermal_options{thermal_model_kind::block, 1, 1, 0.0};  // the serving coupling's default
  const auto chip = strata::evaluate(sp.chip);
  const auto lp = stratum_logic_floorplan(chip);
  const auto tn = build_thermal_network(stratum_thermal_stack(sp, lp.plan), sp.model);
  const auto n = tn.net.size();
  std::vector<double> flat(static_cast<std::size_t>(n), 1.0 / n);
  const window_integrator<> w(tn.net, 5e-3, {flat}, {0});
  MESSAGE("Stratum block network: " << n << " nodes, " << w.slow_modes() << " slow modes at 5 ms");
  CHECK(w.slow_modes() < n);
}

TEST_CASE("window integrator: bad input is a config_error naming the field") {
  rc_network n;
  n.add_node(1.0, 1.0);
  CHECK_THROWS_WITH_AS(window_integrator<>(n, 1.0, {{1.0, 2.0}}, {0}), doctest::Contains("power"), strata::config_error);
  CHECK_THROWS_WITH_AS(window_integrator<>(n, 1.0, {{1.0}}, {1}), doctest::Contains("outputs"), strata::config_error);
  CHECK_THROWS_WITH_AS(window_integrator<>(n, 0.0, {{1.0}}, {0}), doctest::Contains("time_step"), strata::config_error);
  CHECK_THROWS_WITH_AS(window_integrator<>(n, 1.0, {}, {0}), doctest::Contains("shapes"), strata::config_error);
  rc_network big;
  for (int i = 0; i <= window_integrator_max_nodes; ++i) big.add_node(1.0, 1.0);
  CHECK_THROWS_WITH_AS(window_integrator<>(big, 1.0, {std::vector<double>(big.capacity_J_K.size(), 0.0)}, {0}),
                       doctest::Contains("nodes"), strata::config_error);
  window_integrator<> w(n, 1.0, {{1.0}}, {0});
  strata::thermal::transient_energy e;
  CHECK_THROWS_WITH_AS(w.advance({1.0, 2.0}, e), doctest::Contains("power"), strata::config_error);
}
