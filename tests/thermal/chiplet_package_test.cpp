// SPDX-License-Identifier: MIT
#include "strata/thermal/chiplet_package.hpp"

#include <doctest/doctest.h>

#include <cmath>   // std::exp, std::abs
#include <string>  // std::string
#include <vector>  // std::vector

#include "strata/core/json.hpp"
#include "strata/workload/presets.hpp"
#include "strata/workload/trace_io.hpp"

using namespace strata;
using namespace strata::thermal;

namespace {
const routing_trace& chiplet_pkg_trace() {
  static const routing_trace t =
      load_trace_csv(std::string(STRATA_TEST_DATA_DIR) + "/traces/dsv2lite_esft_trace_intent.csv", {.experts = 64});
  return t;
}
}  // namespace

TEST_CASE("HCRMap's package as a stack: 16 chiplets on the 10 mm mesh, 2 HBM stacks, 4 IO dies, 57.5 x 60 mm") {
  const substrate s;
  const auto pkg = chiplet_package_stack(s);
  CHECK(pkg.compute == 16);
  CHECK(pkg.hbm == 2);
  CHECK(pkg.io == 4);
  REQUIRE(pkg.stack.layers.size() == 3);
  const auto& dies = pkg.stack.layers[1].plan.blocks;
  REQUIRE(dies.size() == 22);
  CHECK(dies[0].name == "chiplet_0");
  CHECK(dies[16].name == "hbm_0");
  CHECK(dies[21].name == "io_3");
  // Width: HBM 7.75 + 1 gap on each side of the 40 mm mesh; height: IO 9 + 1 on each side.
  const auto box = bounding_box(pkg.stack.layers[1].plan);
  CHECK(box.width_m() == doctest::Approx(0.0575).epsilon(1e-12));
  CHECK(box.height_m() == doctest::Approx(0.060).epsilon(1e-12));
  // Chiplet 5 = (1, 1): 8.75 mm of HBM column, then 10 mm pitch, 0.5 mm half-gap.
  CHECK(dies[5].left_m == doctest::Approx(0.00875 + 0.010 + 0.0005).epsilon(1e-12));
  CHECK(dies[5].bottom_m == doctest::Approx(0.010 + 0.010 + 0.0005).epsilon(1e-12));
  // The network builds (no overlap) in the grid model.
  thermal_options o;
  o.model = thermal_model_kind::grid;
  o.grid_rows = o.grid_cols = 12;
  CHECK(build_thermal_network(pkg.stack, o).net.size() == 3 * 144);
}

TEST_CASE("A window's energy on the package's blocks, by hand") {
  const substrate s;
  const auto pkg = chiplet_package_stack(s);
  window_result w;
  w.e2e = units::ms(2.0);
  w.energy.compute = units::J(0.016);
  w.energy.sram = units::J(0.008);
  w.energy.hbm = units::J(0.004);
  w.energy.dram = units::J(0.002);
  w.non_routed_energy = units::J(0.008);
  chiplet_thermal_params tp;
  tp.dram_on_package_share = 1.0;
  const auto p = window_block_power(pkg, w, tp);
  // Compute side 0.032 J / 2 ms = 16 W over 16 chiplets; HBM 2 W over 2 stacks; DRAM 1 W over 4 IO.
  CHECK(p[1][0] == doctest::Approx(1.0));
  CHECK(p[1][15] == doctest::Approx(1.0));
  CHECK(p[1][16] == doctest::Approx(1.0));
  CHECK(p[1][17] == doctest::Approx(1.0));
  CHECK(p[1][18] == doctest::Approx(0.25));
  // The default: the DDR5 devices are off the package, the IO dies dissipate none of it.
  const auto q = window_block_power(pkg, w);
  CHECK(q[1][0] == doctest::Approx(1.0));
  CHECK(q[1][18] == 0.0);
  CHECK(q[1][21] == 0.0);
  CHECK(p[0][0] == 0.0);
  CHECK(p[2][0] == 0.0);
  w.e2e = units::s(0.0);
  CHECK_THROWS_WITH_AS(window_block_power(pkg, w), doctest::Contains("e2e"), config_error);
}

TEST_CASE("modal_stepper: one RC node by hand, any window length, and the steady state") {
  rc_network n;
  n.add_node(2.0, 0.5);  // C = 2 J/K, g = 0.5 W/K: tau = 4 s
  modal_stepper<> m(n);
  m.step({1.0}, 1.0);
  CHECK(m.rise()[0] == doctest::Approx(2.0 * (1 - std::exp(-0.25))).epsilon(1e-14));
  m.step({1.0}, 3.0);  // windows of different lengths compose: 4 s in all
  CHECK(m.rise()[0] == doctest::Approx(2.0 * (1 - std::exp(-1.0))).epsilon(1e-13));
  m.settle({3.0});
  CHECK(m.rise()[0] == doctest::Approx(6.0).epsilon(1e-14));
}

TEST_CASE("evaluate_windows_thermal: off is evaluate_windows; cool, nothing changes; hot, the budget rule throttles") {
  const substrate s;
  const auto m = preset("DeepSeek-V2-Lite");
  const auto res = single_copy_static(s, m.moe_layers(), m.experts, expert_bytes(m));
  critical_path_params cp;
  cp.window = units::ms(10.0);
  const window_spec w{phase::decode, 64, 2048, {}};
  const int n = 4;
  const auto plain = evaluate_windows(s, m, res, chiplet_pkg_trace(), w, n, units::W(1000.0), cp);
  chiplet_thermal_params tp;
  const auto off = evaluate_windows_thermal(s, m, res, chiplet_pkg_trace(), w, n, units::W(1000.0), cp, least_loaded, tp);
  REQUIRE(off.windows.size() == plain.size());
  for (std::size_t i = 0; i < plain.size(); ++i) {
    CHECK(json(off.windows[i]).dump() == json(plain[i]).dump());
  }
  CHECK(off.thermal.window_peak_C.empty());

  // On, HotSpot's cooling: the package stays far under 85 C; every window is the uncoupled one.
  tp.enabled = true;
  const auto cool = evaluate_windows_thermal(s, m, res, chiplet_pkg_trace(), w, n, units::W(1000.0), cp, least_loaded, tp);
  REQUIRE(cool.windows.size() == plain.size());
  for (std::size_t i = 0; i < plain.size(); ++i) CHECK(json(cool.windows[i]).dump() == json(plain[i]).dump());
  CHECK(cool.thermal.throttled_windows == 0);
  CHECK(cool.thermal.throughput_lost == 0.0);
  CHECK(cool.thermal.time_above_limit_s == 0.0);
  CHECK(cool.thermal.peak_C > 45.0);
  CHECK(cool.thermal.peak_C < tp.limit_C);
  REQUIRE(cool.thermal.window_power_W.size() == static_cast<std::size_t>(n));
  // The steady start: the first window's peak is the steady state of its power. Its hottest block
  // is a compute chiplet (the HBM stacks and IO dies dissipate less per area).
  CHECK(!cool.thermal.hottest_block.empty());
  // The power balances: every window's package power is its energy over its time.
  for (std::size_t i = 0; i < plain.size(); ++i)
    CHECK(cool.thermal.window_power_W[i] ==
          doctest::Approx((plain[i].total_energy() - plain[i].inter_package_energy - plain[i].energy.dram).si() /
                          plain[i].e2e.si())
              .epsilon(1e-12));

  // Measured: 20.9 W on the package, the hottest block a compute chiplet at 49.3 C.
  CHECK(cool.thermal.peak_C == doctest::Approx(49.3).epsilon(0.002));
  // A cold plate 28-fold worse (100 W/(m^2 K), still air's order): the package passes 85 C (128 C);
  // the window after each hot one runs at half compute throughput, longer than its uncoupled
  // self, but decode here is bound by DRAM streaming, so little throughput is lost (4e-5).
  tp.cold_plate_h_W_m2K = 100.0;
  const auto hot = evaluate_windows_thermal(s, m, res, chiplet_pkg_trace(), w, n, units::W(1000.0), cp, least_loaded, tp);
  CHECK(hot.thermal.peak_C > tp.limit_C);
  CHECK(hot.thermal.time_above_limit_s > 0.0);
  CHECK(hot.thermal.throttled_windows == n - 1);  // every window after the first (which starts steady, hot)
  CHECK(hot.thermal.throughput_lost > 0.0);
  CHECK(hot.thermal.throughput_lost < 1.0);
  CHECK(hot.windows[0].e2e == plain[0].e2e);  // the first window runs at full speed
  CHECK(hot.windows[1].e2e > plain[1].e2e);
  CHECK(hot.windows[1].stages.compute > plain[1].stages.compute);
}

TEST_CASE("chiplet thermal parameters: bad values name their field") {
  const substrate s;
  chiplet_thermal_params p;
  p.grid = 1;
  CHECK_THROWS_WITH_AS(chiplet_package_stack(s, p), doctest::Contains("grid"), config_error);
  p = {};
  p.throttle_factor = 0.0;
  CHECK_THROWS_WITH_AS(chiplet_package_stack(s, p), doctest::Contains("throttle_factor"), config_error);
  p = {};
  p.cold_plate_h_W_m2K = -1.0;
  CHECK_THROWS_WITH_AS(chiplet_package_stack(s, p), doctest::Contains("cold_plate_h_W_m2K"), config_error);
  p = {};
  p.chiplet_side_m = 0.02;  // wider than the 10 mm pitch
  CHECK_THROWS_WITH_AS(chiplet_package_stack(s, p), doctest::Contains("chiplet_side_m"), config_error);
}
