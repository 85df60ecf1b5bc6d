// SPDX-License-Identifier: MIT
#include "strata/thermal/model.hpp"

#include <doctest/doctest.h>

#include <boost/math/differentiation/autodiff.hpp>  // make_fvar

#include <cmath>   // std::abs
#include <vector>  // std::vector

using namespace strata::thermal;

namespace {

floorplan thermal_model_square(double side_m) { return floorplan{{flp_block{"die", side_m, side_m, 0.0, 0.0, {}, {}}}}; }

/// A uniformly heated square source of side `a` centred on a plate of side `L` (four fillers).
floorplan thermal_model_source_plan(double L, double a) {
  const double e = (L - a) / 2;
  floorplan f;
  f.blocks.push_back({"src", a, a, e, e, {}, {}});
  f.blocks.push_back({"south", L, e, 0.0, 0.0, {}, {}});
  f.blocks.push_back({"north", L, e, 0.0, e + a, {}, {}});
  f.blocks.push_back({"west", e, a, 0.0, e, {}, {}});
  f.blocks.push_back({"east", e, a, e + a, e, {}, {}});
  return f;
}

}  // namespace

TEST_CASE("Closed forms: slab, convection, trapezoid and spreading resistance") {
  CHECK(slab_resistance(150e-6, 100.0, 1e-4) == doctest::Approx(0.015));
  CHECK(convection_resistance(1e4, 1e-4) == doctest::Approx(1.0));
  // A trapezoid with equal edges is a rectangle: d / (k t a).
  CHECK(trapezoid_resistance(1e-3, 2e-3, 2e-3, 1e-3, 400.0) == doctest::Approx(1e-3 / (400.0 * 1e-3 * 2e-3)));
  // ln(b/a)/(b−a) for a = 1, b = 2 mm, d = 1 mm, t = 1 mm, k = 1: 1e-3·ln2/(1e-3·1e-3) = 693.1 K/W.
  CHECK(trapezoid_resistance(1e-3, 1e-3, 2e-3, 1e-3, 1.0) == doctest::Approx(693.147).epsilon(1e-5));
  SUBCASE("a source covering the plate has no spreading resistance") {
    const auto r = spreading_resistance<double>({1e-2, 1e-2, 1e-3, 400.0, 1e4});
    CHECK(r.spreading_avg_K_W == doctest::Approx(0.0));
    CHECK(r.total_avg_K_W() == doctest::Approx(1e-3 / (400.0 * M_PI * 1e-4) + 1.0 / (1e4 * M_PI * 1e-4)));
  }
  SUBCASE("spreading grows as the source shrinks; centre hotter than mean") {
    const auto a = spreading_resistance<double>({2e-3, 1e-2, 1e-3, 400.0, 1e4});
    const auto b = spreading_resistance<double>({1e-3, 1e-2, 1e-3, 400.0, 1e4});
    CHECK(b.spreading_avg_K_W > a.spreading_avg_K_W);
    CHECK(a.spreading_max_K_W > a.spreading_avg_K_W);
  }
  SUBCASE("derivatives with autodiff") {
    using boost::math::differentiation::make_fvar;
    using ad = decltype(make_fvar<double, 1>(0.0));
    const ad k = make_fvar<double, 1>(100.0);
    const ad r = slab_resistance<ad>(ad(150e-6), k, ad(1e-4));
    CHECK(r.derivative(1) == doctest::Approx(-150e-6 / (100.0 * 100.0 * 1e-4)));  // d(t/kA)/dk = −t/(k²A)
    spreading_params<ad> p{ad(2e-3), ad(1e-2), ad(1e-3), make_fvar<double, 1>(400.0), ad(1e4)};
    const auto s = spreading_resistance(p);
    CHECK(s.total_avg_K_W().derivative(1) < 0.0);  // better conductor, less resistance
  }
  CHECK_THROWS_WITH_AS(slab_resistance(0.0, 1.0, 1.0), doctest::Contains("thickness"), strata::config_error);
  CHECK_THROWS_WITH_AS(spreading_resistance<double>({2e-2, 1e-2, 1e-3, 400.0, 1e4}), doctest::Contains("source_radius"),
                       strata::config_error);
}

TEST_CASE("1D conduction through a layered slab is exact in both models and both node depths") {
  const double side = 0.01, A = side * side, P = 50.0, h = 2e4;
  thermal_stack s;
  s.package.cooling = cooling_kind::cold_plate;
  s.package.cold_plate_h_W_m2K = h;
  s.package.ambient_K = 300.0;
  s.layers = {thermal_layer{thermal_model_square(side), 100e-6, 120.0, 1.6e6, true, true},
              thermal_layer{thermal_model_square(side), 10e-6, 2.0, 2e6, false, true},
              thermal_layer{thermal_model_square(side), 500e-6, 150.0, 1.6e6, false, true}};
  const std::vector<slab<double>> slabs{{100e-6, 120.0}, {10e-6, 2.0}, {500e-6, 150.0}};
  const double r_total = layered_slab_resistance(slabs, A, h);
  for (double depth : {0.0, 0.5}) {
    for (auto kind : {thermal_model_kind::block, thermal_model_kind::grid}) {
      thermal_options o;
      o.model = kind;
      o.grid_rows = 5;
      o.grid_cols = 7;
      o.node_depth = depth;
      const auto net = build_thermal_network(s, o);
      const auto r = steady_state(net, block_power{{P}, {0.0}, {0.0}});
      // The node of the top layer sits `depth` of that layer below the stack's top face.
      const double expect = 300.0 + P * (r_total - depth * 100e-6 / (120.0 * A));
      CHECK(r.block_K[0][0] == doctest::Approx(expect).epsilon(1e-10));
      CHECK(r.max_node_K == doctest::Approx(expect).epsilon(1e-10));
    }
  }
}

TEST_CASE("A uniformly heated square on a cooled plate matches Lee et al.'s spreading resistance") {
  // Plate 20 mm × 20 mm × 2 mm copper (k = 400), source 5 mm square, h = 1e4 W/(m²K) below:
  // ε = 0.25, τ = 0.18, Bi = 0.28. Eight sublayers with nodes at their top faces give the source
  // face's mean temperature; Lee et al. state their closed form within a few percent of the
  // exact series and the equal-area circle adds a few more for squares: tolerance 8 %.
  const double L = 0.02, a = 0.005, t = 0.002, k = 400.0, h = 1e4, P = 10.0;
  thermal_stack s;
  s.package.cooling = cooling_kind::cold_plate;
  s.package.cold_plate_h_W_m2K = h;
  s.package.ambient_K = 300.0;
  const int sub = 8;
  for (int i = 0; i < sub; ++i)
    s.layers.push_back(thermal_layer{thermal_model_source_plan(L, a), t / sub, k, 3.4e6, i == 0, true});
  thermal_options o;
  o.model = thermal_model_kind::grid;
  o.grid_rows = o.grid_cols = 40;
  const auto net = build_thermal_network(s, o);
  block_power p(sub, std::vector<double>(5, 0.0));
  p[0][0] = P;
  const auto r = steady_state(net, p);
  const auto lee = spreading_resistance<double>({a / std::sqrt(M_PI), L / std::sqrt(M_PI), t, k, h});
  const double model_R = (r.block_K[0][0] - 300.0) / P;
  CHECK(model_R == doctest::Approx(lee.total_avg_K_W()).epsilon(0.08));
  // Spreading is a real part of it: the 1D resistance alone is well below.
  CHECK(model_R > 1.5 * lee.one_d_K_W);
}

TEST_CASE("Backward Euler conserves energy and settles on the steady state") {
  const double side = 0.01;
  thermal_stack s;
  s.package.ambient_K = 300.0;
  s.layers = {thermal_layer{thermal_model_source_plan(side, 0.004), 150e-6, 100.0, 1.75e6, true, true},
              thermal_layer{thermal_model_source_plan(side, 0.004), 20e-6, 4.0, 4e6, false, true}};
  for (auto kind : {thermal_model_kind::block, thermal_model_kind::grid}) {
    thermal_options o;
    o.model = kind;
    o.grid_rows = o.grid_cols = 12;
    const auto net = build_thermal_network(s, o);
    const block_power hi{{20.0, 1.0, 1.0, 1.0, 1.0}, {0, 0, 0, 0, 0}};
    const block_power lo{{2.0, 0.5, 0.5, 0.5, 0.5}, {0, 0, 0, 0, 0}};
    std::vector<block_power> trace;
    for (int i = 0; i < 40; ++i) trace.push_back(i % 3 == 0 ? lo : hi);
    const auto tr = transient(net, trace, 0.05, 4);
    const auto& e = tr.energy;
    CHECK(e.injected_J > 0.0);
    CHECK(e.stored_J == doctest::Approx(e.injected_J - e.removed_J).epsilon(1e-9));
    // A hot block heats, a long constant run reaches the steady state.
    CHECK(tr.block_K[1][0][0] > tr.block_K[0][0][0]);
    std::vector<block_power> hold(200, hi);
    const auto settle = transient(net, hold, 5.0, 1, tr.node_rise_K);
    const auto st = steady_state(net, hi);
    CHECK(settle.block_K.back()[0][0] == doctest::Approx(st.block_K[0][0]).epsilon(1e-6));
  }
}

TEST_CASE("Grid refinement converges and agrees with the block model where blocks are uniform") {
  const double side = 0.012;
  thermal_stack s;
  s.layers = {thermal_layer{thermal_model_source_plan(side, 0.004), 150e-6, 100.0, 1.75e6, true, true},
              thermal_layer{thermal_model_source_plan(side, 0.004), 20e-6, 4.0, 4e6, false, true}};
  const block_power p{{15.0, 2.0, 2.0, 2.0, 2.0}, {0, 0, 0, 0, 0}};
  std::vector<double> src;
  for (int n : {8, 16, 32, 64}) {
    thermal_options o;
    o.model = thermal_model_kind::grid;
    o.grid_rows = o.grid_cols = n;
    src.push_back(steady_state(build_thermal_network(s, o), p).block_K[0][0]);
  }
  const double d1 = std::abs(src[1] - src[0]), d2 = std::abs(src[2] - src[1]), d3 = std::abs(src[3] - src[2]);
  CHECK(d2 < d1);
  CHECK(d3 < d2);
  CHECK(d3 < 0.6 * d2);  // at least first-order convergence (the cell size halves each step)
  // Uniform power density over the whole die: no lateral gradient, block and grid agree exactly.
  const double density = 1e5;  // W/m²
  block_power u(2);
  for (const auto& b : s.layers[0].plan.blocks) u[0].push_back(density * b.area_m2());
  u[1].assign(5, 0.0);
  const auto blk = steady_state(build_thermal_network(s, {}), u);
  thermal_options g;
  g.model = thermal_model_kind::grid;
  g.grid_rows = g.grid_cols = 24;
  const auto grd = steady_state(build_thermal_network(s, g), u);
  for (std::size_t b = 0; b < 5; ++b) CHECK(grd.block_K[0][b] == doctest::Approx(blk.block_K[0][b]).epsilon(1e-3));
}

TEST_CASE("Bad stacks raise config_error naming the field") {
  thermal_stack s;
  s.layers = {thermal_layer{thermal_model_square(0.01), 150e-6, 100.0, 1.75e6, true, true}};
  SUBCASE("no layers") {
    thermal_stack e;
    CHECK_THROWS_WITH_AS(build_thermal_network(e), doctest::Contains("layers"), strata::config_error);
  }
  SUBCASE("a spreader smaller than the die") {
    s.package.spreader_side_m = 0.005;
    CHECK_THROWS_WITH_AS(build_thermal_network(s), doctest::Contains("s_spreader"), strata::config_error);
  }
  SUBCASE("a sink no larger than the spreader") {
    s.package.sink_side_m = 0.03;
    CHECK_THROWS_WITH_AS(build_thermal_network(s), doctest::Contains("s_sink"), strata::config_error);
  }
  SUBCASE("negative thickness") {
    s.layers[0].thickness_m = -1.0;
    CHECK_THROWS_WITH_AS(build_thermal_network(s), doctest::Contains("layer.thickness"), strata::config_error);
  }
  SUBCASE("overlapping blocks") {
    s.layers[0].plan.blocks.push_back({"b", 0.005, 0.005, 0.001, 0.001, {}, {}});
    CHECK_THROWS_WITH_AS(build_thermal_network(s), doctest::Contains("overlap"), strata::config_error);
  }
  SUBCASE("a cold plate without h") {
    s.package.cooling = cooling_kind::cold_plate;
    CHECK_THROWS_WITH_AS(build_thermal_network(s), doctest::Contains("cold_plate_h"), strata::config_error);
  }
  SUBCASE("a grid too large for the node limit") {
    thermal_options o;
    o.model = thermal_model_kind::grid;
    o.grid_rows = o.grid_cols = 4096;
    CHECK_THROWS_WITH_AS(build_thermal_network(s, o), doctest::Contains("thermal_nodes"), strata::config_error);
  }
  SUBCASE("negative power") {
    const auto net = build_thermal_network(s);
    CHECK_THROWS_WITH_AS(steady_state(net, block_power{{-1.0}}), doctest::Contains("power"), strata::config_error);
  }
}
