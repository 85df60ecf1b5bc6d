// SPDX-License-Identifier: MIT
#include "strata/thermal/stratum_stack.hpp"

#include <doctest/doctest.h>

#include <boost/math/differentiation/autodiff.hpp>  // make_fvar

#include <algorithm>  // std::max
#include <cmath>   // std::abs
#include <string>  // std::string

using namespace strata::thermal;
using doctest::Approx;

namespace {

/// The default stack in the block model (one node per block per layer: fast, and within a few
/// per cent of the converged grid, checked below).
stratum_stack_params stratum_stack_block() {
  stratum_stack_params s;
  s.model.model = thermal_model_kind::block;
  return s;
}

}  // namespace

TEST_CASE("Stack materials: parallel, series, Wiedemann-Franz and the Mono3D cell stack") {
  CHECK(parallel_conductivity(0.25, 400.0, 2.0) == Approx(0.25 * 400.0 + 0.75 * 2.0));
  CHECK(series_conductivity(0.5, 1.0, 3.0) == Approx(1.0 / (0.5 / 1.0 + 0.5 / 3.0)));
  // Copper: 1.68e-8 ohm m at 300 K gives 2.44e-8 * 300 / 1.68e-8 = 435.7 W/(m K) (bulk 398).
  CHECK(wiedemann_franz_conductivity(1.68e-8, 300.0) == Approx(435.714).epsilon(1e-5));
  // Series never exceeds parallel (harmonic <= arithmetic mean).
  CHECK(series_conductivity(0.3, 1.38, 22.0) < parallel_conductivity(0.3, 1.38, 22.0));
  // The default cell stack by hand: bit-line share 35^2 / (70 * 337.9) = 0.05179; tungsten
  // rho = 98 ohm/um * (35 nm)^2 = 1.2005e-7 ohm m, k = 2.44e-8 * 300 / rho = 60.97; laminate
  // 1 / (0.5/1.38 + 0.5/22) = 2.5971; k = 0.05179 * 60.97 + 0.94821 * 2.5971 = 5.620 W/(m K).
  const strata::mono3d_params<> dev;
  const double f = 35.0 * 35.0 / (70.0 * 337.9);
  const double k_w = 2.44e-8 * 300.0 / (98e6 * 35e-9 * 35e-9);
  const double lam = 1.0 / (0.5 / 1.38 + 0.5 / 22.0);
  CHECK(mono3d_stack_conductivity(mono3d_stack_materials<>{}, dev) == Approx(f * k_w + (1 - f) * lam).epsilon(1e-9));
  CHECK(mono3d_stack_conductivity(mono3d_stack_materials<>{}, dev) == Approx(5.620).epsilon(1e-3));
  SUBCASE("bad input names the field") {
    CHECK_THROWS_WITH_AS(parallel_conductivity(1.5, 1.0, 1.0), doctest::Contains("fraction"), strata::config_error);
    CHECK_THROWS_WITH_AS(series_conductivity(0.5, 0.0, 1.0), doctest::Contains("conductivity_a"), strata::config_error);
    CHECK_THROWS_WITH_AS(wiedemann_franz_conductivity(-1.0, 300.0), doctest::Contains("resistivity"),
                         strata::config_error);
    mono3d_stack_materials<> m;
    m.tier_pitch_m = 0.0;
    CHECK_THROWS_WITH_AS(mono3d_stack_conductivity(m, dev), doctest::Contains("array.tier_pitch"), strata::config_error);
  }
  SUBCASE("derivatives with autodiff") {
    using boost::math::differentiation::make_fvar;
    using F = boost::math::differentiation::autodiff_v1::detail::fvar<double, 1>;
    // d(parallel)/df = k_a - k_b; d(series)/dk_a = f / (k_a^2 S^2), S = f/k_a + (1-f)/k_b;
    // d(WF)/drho = -L T / rho^2.
    CHECK(parallel_conductivity<F>(make_fvar<double, 1>(0.2), F(398.0), F(1.38)).derivative(1) == Approx(398.0 - 1.38));
    const double S = 0.5 / 1.38 + 0.5 / 22.0;
    CHECK(series_conductivity<F>(F(0.5), make_fvar<double, 1>(1.38), F(22.0)).derivative(1) ==
          Approx(0.5 / (1.38 * 1.38 * S * S)));
    CHECK(wiedemann_franz_conductivity<F>(make_fvar<double, 1>(1.2e-7), F(300.0)).derivative(1) ==
          Approx(-2.44e-8 * 300.0 / (1.2e-7 * 1.2e-7)));
    // Through the device: a deeper cell dilutes the bit lines, d k / d cell_depth < 0, and equals
    // the finite difference.
    strata::mono3d_params<F> p;
    const double d0 = dev.cell_depth.in(strata::units::um);
    p.cell_depth = strata::units::um(make_fvar<double, 1>(d0));
    mono3d_stack_materials<F> m;
    const double ad = mono3d_stack_conductivity(m, p).derivative(1);
    const auto at = [&](double d) {
      strata::mono3d_params<> q;
      q.cell_depth = strata::units::um(d);
      return mono3d_stack_conductivity(mono3d_stack_materials<>{}, q);
    };
    CHECK(ad < 0.0);
    CHECK(ad == Approx((at(d0 + 1e-5) - at(d0 - 1e-5)) / 2e-5).epsilon(1e-6));
  }
}

TEST_CASE("The logic-die floorplan covers the die and carries Eq. 1's power") {
  const stratum_stack_params s;
  const auto chip = strata::evaluate(s.chip);
  const auto lp = stratum_logic_floorplan(chip);
  validate_floorplan(lp.plan, "stratum logic die");
  CHECK(lp.plan.blocks.size() == 2 * 32 + 2);
  CHECK(lp.pu_cols * lp.pu_rows == 32);
  CHECK(lp.pu_cols == 8);  // the divisor of 32 nearest sqrt(32 * 11 / 7.47) = 6.9
  double area = 0.0, power = 0.0;
  for (std::size_t i = 0; i < lp.plan.blocks.size(); ++i) {
    area += lp.plan.blocks[i].area_m2();
    power += lp.power_W[i];
  }
  CHECK(area == Approx(chip.logic_params.die_area.si()).epsilon(1e-12));
  CHECK(power == Approx(chip.logic.p_logic.si()).epsilon(1e-12));
  CHECK(lp.p_logic_W == Approx(42.64).epsilon(2e-3));  // Table 3's 42.67 W row (±1 %)
  // PE arrays (MACs at 0.71 W/mm2) are denser than the PU-shared blocks (0.26 W/mm2).
  const auto& pe = lp.plan.blocks[1];
  const auto& shared = lp.plan.blocks[2];
  CHECK(pe.name == "pu0_pe");
  CHECK(shared.name == "pu0_shared");
  CHECK(lp.power_W[1] / pe.area_m2() > 2.0 * lp.power_W[2] / shared.area_m2());
  CHECK(lp.power_W.front() == 0.0);  // the PHY
  CHECK(lp.power_W.back() == 0.0);   // the periphery
}

TEST_CASE("DRAM power: refresh at the limit temperature plus access at the stated load") {
  stratum_stack_params s;
  const auto chip = strata::evaluate(s.chip);
  const auto d = stratum_stack_dram_power(s, chip);
  // 32 GiB * 8 b * 0.11 pJ/b / 32 ms = 0.945 W; BW_fast * 8 * (0.1 + 0.01 + 0.0173 + 0.0363) pJ/b.
  CHECK(d.refresh_W == Approx(32.0 * 1073741824.0 * 8.0 * 0.11e-12 / 0.032).epsilon(1e-9));
  CHECK(d.access_W == Approx(chip.bw_fast.si() * 8.0 * 0.1636e-12).epsilon(1e-9));
  s.dram_limit_C = 90.0;  // extended range: twice the refresh
  CHECK(stratum_stack_dram_power(s, chip).refresh_W == Approx(2.0 * d.refresh_W));
  s.dram_load = 0.5;
  CHECK(stratum_stack_dram_power(s, chip).access_W == Approx(0.5 * d.access_W));
}

TEST_CASE("The mean cell-stack rise per logic watt is the 1D series resistance below it") {
  // Adiabatic sides and a uniform h below: the area mean of any plane's rise is exactly 1D, so
  // the cell stack's mean rise per watt is R_array + R_substrate + R_tim + 1/(hA).
  stratum_stack_params s;
  s.model.grid_rows = s.model.grid_cols = 16;
  const auto chip = strata::evaluate(s.chip);
  const auto lp = stratum_logic_floorplan(chip);
  const auto st = stratum_thermal_stack(s, lp.plan);
  const auto net = build_thermal_network(st, s.model);
  block_power p(st.layers.size(), std::vector<double>(lp.plan.blocks.size(), 0.0));
  for (std::size_t b = 0; b < lp.power_W.size(); ++b) p[stratum_stack_logic_layer][b] = lp.power_W[b] / lp.p_logic_W;
  const auto r = steady_state(net, p);
  const int first = net.layer_first_node[stratum_stack_array_layer];
  double mean = 0.0, hottest = 0.0;
  for (int i = 0; i < 256; ++i) {
    mean += r.node_rise_K[static_cast<std::size_t>(first) + static_cast<std::size_t>(i)] / 256.0;
    hottest = std::max(hottest, r.node_rise_K[static_cast<std::size_t>(first) + static_cast<std::size_t>(i)]);
  }
  const double A = chip.logic_params.die_area.si();
  const auto& L = st.layers;
  const double r1d = L[4].thickness_m / (L[4].conductivity_W_mK * A) + L[5].thickness_m / (L[5].conductivity_W_mK * A) +
                     L[6].thickness_m / (L[6].conductivity_W_mK * A) + 1.0 / (s.cold_plate_h_W_m2K * A);
  CHECK(mean == Approx(r1d).epsilon(1e-9));
  CHECK(hottest > 1.2 * mean);  // the processor region is hotter than the PHY and periphery
}

TEST_CASE("logic_power_limit: closed form, verified by a second solve") {
  const auto s = stratum_stack_block();
  const auto r = logic_power_limit(s);
  CHECK(r.feasible);
  CHECK(r.limit_K == Approx(358.15));
  CHECK(r.limit_W == Approx((r.limit_K - r.coolant_K - r.dram_self_rise_K) / r.rise_per_W_K).epsilon(1e-12));
  CHECK(r.verified_max_dram_K == Approx(r.limit_K).epsilon(1e-10));
  CHECK(r.logic_max_K > r.limit_K);  // the logic die sits below the DRAM, farther from the plate
  CHECK(r.binding_block.find("_pe") != std::string::npos);
  REQUIRE(r.layers.size() == 7);
  CHECK(r.layers[stratum_stack_array_layer].name == "array");
  CHECK(r.layers[stratum_stack_array_layer].hotspot_K == Approx(r.limit_K).epsilon(1e-10));
  CHECK(r.layers[stratum_stack_array_layer].thickness_m == Approx(1024 * 50e-9));
  CHECK(r.layers[1].unit_resistance_Kmm2_W == Approx(6.75).epsilon(1e-3));  // the IBM BEOL measurement, 2.25 groups
  // Temperatures fall toward the plate along the column of the binding cell.
  for (std::size_t l = 2; l < r.layers.size(); ++l) CHECK(r.layers[l].hotspot_K < r.layers[l - 1].hotspot_K);
  CHECK(r.cold_plate_resistance_K_W == Approx(1.0 / (1.11e5 * 121e-6)).epsilon(1e-3));
  CHECK(r.reason.find("reaches 85 degC") != std::string::npos);
}

TEST_CASE("logic_power_limit responds to the stack as the physics says") {
  auto s = stratum_stack_block();
  const auto base = logic_power_limit(s);
  SUBCASE("without DRAM power the limit is the budget over the rise per watt: linear in the budget") {
    s.dram_load = 0.0;
    s.refresh.enabled = false;
    const auto a = logic_power_limit(s);
    CHECK(a.dram_self_rise_K == 0.0);
    CHECK(a.limit_W > base.limit_W);
    s.dram_limit_C = 65.0;
    const auto b = logic_power_limit(s);
    CHECK(b.limit_W / a.limit_W == Approx((65.0 - 45.0) / (85.0 - 45.0)).epsilon(1e-12));
    CHECK(b.rise_per_W_K == Approx(a.rise_per_W_K).epsilon(1e-12));
  }
  SUBCASE("a higher limit temperature raises the limit") {
    s.dram_limit_C = 80.0;
    CHECK(logic_power_limit(s).limit_W < base.limit_W);
  }
  SUBCASE("a more conductive TIM raises it") {
    s.tim.conductivity_W_mK = 8.0;
    CHECK(logic_power_limit(s).limit_W > base.limit_W);
  }
  SUBCASE("doubling h lowers the rise per watt and raises the limit") {
    s.cold_plate_h_W_m2K *= 2.0;
    const auto r = logic_power_limit(s);
    CHECK(r.rise_per_W_K < base.rise_per_W_K);
    CHECK(r.limit_W > base.limit_W);
  }
  SUBCASE("more DRAM traffic lowers it") {
    s.dram_load = 0.5;
    CHECK(logic_power_limit(s).limit_W > base.limit_W);
  }
  SUBCASE("a thicker cell stack (more layers, same pitch) lowers it") {
    s.array.tier_pitch_m *= 2.0;
    CHECK(logic_power_limit(s).limit_W < base.limit_W);
  }
  SUBCASE("the grid model agrees with the block model") {
    s.model = stratum_stack_params{}.model;
    s.model.grid_rows = s.model.grid_cols = 16;
    const auto g = logic_power_limit(s);
    CHECK(g.limit_W == Approx(base.limit_W).epsilon(0.03));
  }
  SUBCASE("DRAM that reaches the limit on its own leaves no logic power: a result, then an error for Eq. 1") {
    s.dram_limit_C = 50.0;  // 5 K above the coolant, below the DRAM's own rise
    const auto r = logic_power_limit(s);
    CHECK_FALSE(r.feasible);
    CHECK(r.limit_W == 0.0);
    CHECK(r.reason.find("without any logic power") != std::string::npos);
    CHECK_THROWS_WITH_AS(with_derived_power_cap(s), doctest::Contains("logic.p_peak"), strata::config_error);
  }
}

TEST_CASE("A factorisation cache re-uses the ordering and the factors and moves no bit") {
  steady_factorisation_cache<> cache;
  auto s = stratum_stack_block();
  const auto same_bits = [](const logic_power_limit_result& a, const logic_power_limit_result& b) {
    bool same = a.limit_W == b.limit_W && a.rise_per_W_K == b.rise_per_W_K &&
                a.dram_self_rise_K == b.dram_self_rise_K && a.verified_max_dram_K == b.verified_max_dram_K &&
                a.logic_max_K == b.logic_max_K && a.binding_node == b.binding_node && a.reason == b.reason &&
                a.layers.size() == b.layers.size();
    for (std::size_t l = 0; same && l < a.layers.size(); ++l) same = a.layers[l].hotspot_K == b.layers[l].hotspot_K;
    return same;
  };
  CHECK(same_bits(logic_power_limit(s, cache), logic_power_limit(s)));
  CHECK(cache.analyses() == 1);
  CHECK(cache.factorisations() == 1);
  SUBCASE("a new conductance: the same ordering, factorised again") {
    s.tim.conductivity_W_mK = 8.0;
    CHECK(same_bits(logic_power_limit(s, cache), logic_power_limit(s)));
    CHECK(cache.analyses() == 1);
    CHECK(cache.factorisations() == 2);
    CHECK(cache.reused() == 0);
  }
  SUBCASE("no conductance moves (the coolant, the DRAM's load): the factors as they were") {
    s.coolant_K = 313.15;
    s.dram_load = 0.5;
    CHECK(same_bits(logic_power_limit(s, cache), logic_power_limit(s)));
    CHECK(cache.factorisations() == 1);
    CHECK(cache.reused() == 1);
  }
  SUBCASE("a new pattern (the grid model): analysed afresh") {
    s.model = stratum_stack_params{}.model;
    s.model.grid_rows = s.model.grid_cols = 8;
    CHECK(same_bits(logic_power_limit(s, cache), logic_power_limit(s)));
    CHECK(cache.analyses() == 2);
    CHECK(cache.factorisations() == 2);
  }
  SUBCASE("a stack the model refuses leaves the cache usable") {
    s.tim.conductivity_W_mK = -1.0;
    CHECK_THROWS_AS(logic_power_limit(s, cache), strata::config_error);
    s.tim.conductivity_W_mK = 4.0;
    CHECK(same_bits(logic_power_limit(s, cache), logic_power_limit(s)));
    CHECK(cache.reused() == 1);
  }
}

TEST_CASE("Eq. 1-3 take the derived cap as an option; 45 W stays the default") {
  const auto s = stratum_stack_block();
  const auto r = logic_power_limit(s);
  const auto p = with_derived_power_cap(s);
  CHECK(p.logic.p_peak.si() == Approx(r.limit_W));
  CHECK(strata::stratum_chip_params<>{}.logic.p_peak.si() == 45.0);
  const auto at_45 = strata::with_macs_sized_to_budget(s.chip);
  const auto at_derived = strata::with_macs_sized_to_budget(p);
  // A cap above Eq. 1's 42.6 W frees MACs until the area (Eq. 2) binds.
  CHECK(r.limit_W > 45.0);
  CHECK(at_derived.logic.n_mac >= at_45.logic.n_mac);
  CHECK(strata::max_macs_within_budget(p).binding == "area");
}

TEST_CASE("Bad stack input raises config_error naming the field") {
  auto s = stratum_stack_block();
  SUBCASE("h") {
    s.cold_plate_h_W_m2K = 0.0;
    CHECK_THROWS_WITH_AS(logic_power_limit(s), doctest::Contains("cold_plate_h"), strata::config_error);
  }
  SUBCASE("a layer") {
    s.tim.conductivity_W_mK = -1.0;
    CHECK_THROWS_WITH_AS(logic_power_limit(s), doctest::Contains("tim.conductivity"), strata::config_error);
    s = stratum_stack_block();
    s.logic_beol.thickness_m = 2e-3;
    CHECK_THROWS_WITH_AS(logic_power_limit(s), doctest::Contains("logic_beol.thickness"), strata::config_error);
  }
  SUBCASE("the limit: above 95 degC, or not above the coolant") {
    s.dram_limit_C = 100.0;
    CHECK_THROWS_WITH_AS(logic_power_limit(s), doctest::Contains("dram_limit"), strata::config_error);
    s.dram_limit_C = 40.0;
    CHECK_THROWS_WITH_AS(logic_power_limit(s), doctest::Contains("dram_limit"), strata::config_error);
  }
  SUBCASE("load and coolant") {
    s.dram_load = 1.5;
    CHECK_THROWS_WITH_AS(logic_power_limit(s), doctest::Contains("dram_load"), strata::config_error);
    s.dram_load = 1.0;
    s.coolant_K = 0.0;
    CHECK_THROWS_WITH_AS(logic_power_limit(s), doctest::Contains("coolant"), strata::config_error);
  }
  SUBCASE("the chip") {
    s.chip.memory.layers = 1;
    CHECK_THROWS_WITH_AS(logic_power_limit(s), doctest::Contains("layers"), strata::config_error);
  }
}
