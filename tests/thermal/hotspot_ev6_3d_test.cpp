// SPDX-License-Identifier: MIT
// HotSpot's 3D EV6 example (uvahotspot/HotSpot examples/example4, the 2014 3D_testcase: four EV6
// cores on one layer, the L2 split over two layers, TIM layers with TSV strips), shipped verbatim
// under tests/data/thermal/hotspot/ev6_3d/ (provenance and HotSpot's license in its NOTICE).
// HotSpot's repository holds no computed output for it, so these are the checks that can be
// derived: what the files say, energy balance, the hottest block where the power density is,
// the block and grid models' agreement per layer, and the TSVs' direction of effect.
#include "strata/thermal/hotspot_io.hpp"

#include <doctest/doctest.h>

#include <algorithm>  // std::max, std::find
#include <cmath>      // std::abs
#include <cstddef>    // std::size_t
#include <string>     // std::string
#include <vector>     // std::vector

using namespace strata::thermal;

namespace {

const std::string ev6_3d_dir = std::string(STRATA_TEST_DATA_DIR) + "/thermal/hotspot/ev6_3d/";

struct ev6_3d_case {
  hotspot_config cfg;
  hotspot_model m;
  power_trace trace;
  block_power power;
};

ev6_3d_case ev6_3d_read() {
  ev6_3d_case c;
  c.cfg = read_hotspot_config(ev6_3d_dir + "example.config");
  c.m = read_hotspot_layers(c.cfg, ev6_3d_dir + "ev6_3D.lcf");
  c.trace = read_ptrace(ev6_3d_dir + "ev6_3D.ptrace");
  c.power = map_power(c.m, c.trace.names, c.trace.mean());
  return c;
}

thermal_options ev6_3d_options(const hotspot_config& cfg, thermal_model_kind kind) {
  thermal_options o;  // as strata-eval thermal builds them from the config
  o.model = kind;
  o.grid_rows = cfg.grid_rows;
  o.grid_cols = cfg.grid_cols;
  o.grid_map = cfg.grid_map;
  return o;
}

double ev6_3d_total(const block_power& p) {
  double s = 0.0;
  for (const auto& l : p)
    for (double w : l) s += w;
  return s;
}

}  // namespace

TEST_CASE("HotSpot's 3D EV6 example reads: six layers, TSV blocks with their own material, 120 power columns") {
  const auto c = ev6_3d_read();
  // example.config: HotSpot 6's package, the centre-cell map, the secondary path off.
  CHECK(c.cfg.package.convection_resistance_K_W == doctest::Approx(0.1));
  CHECK(c.cfg.package.ambient_K == doctest::Approx(318.15));
  CHECK(c.cfg.grid_rows == 64);
  CHECK(c.cfg.grid_cols == 64);
  CHECK(c.cfg.grid_map == grid_map_mode::center);
  CHECK(std::find(c.cfg.ignored.begin(), c.cfg.ignored.end(), "model_secondary") != c.cfg.ignored.end());
  // ev6_3D.lcf: cache 1, TIM+TSV, cache 2, TIM+TSV, cores, TIM (top first, the sink under layer 5).
  const auto& L = c.m.stack.layers;
  REQUIRE(L.size() == 6);
  const std::size_t blocks[6] = {4, 4, 4, 4, 112, 1};
  for (std::size_t l = 0; l < 6; ++l) {
    CAPTURE(l);
    CHECK(L[l].plan.blocks.size() == blocks[l]);
    CHECK(L[l].power == (l % 2 == 0));
    CHECK(L[l].lateral);
    CHECK(L[l].thickness_m == doctest::Approx(l % 2 == 0 ? 150e-6 : 20e-6));
    CHECK(L[l].conductivity_W_mK == doctest::Approx(l % 2 == 0 ? 100.0 : 4.0));  // 1 / (0.01 or 0.25 m·K/W)
    CHECK(L[l].heat_capacity_J_m3K == doctest::Approx(l % 2 == 0 ? 1.75e6 : 4e6));
  }
  // The seventh and sixth columns of a TSV block: 4e6 J/(m³·K), 0.0058 m·K/W (172 W/(m·K), 43 × the TIM).
  int tsv = 0;
  for (const auto& layer : L)
    for (const auto& b : layer.plan.blocks) {
      const bool is_tsv = b.name.find("TSV") != std::string::npos || b.name.find("tsv") != std::string::npos;
      CHECK(b.resistivity_mK_W.has_value() == is_tsv);
      if (!is_tsv) continue;
      ++tsv;
      CHECK(*b.resistivity_mK_W == doctest::Approx(0.0058));
      CHECK(*b.heat_capacity_J_m3K == doctest::Approx(4e6));
      CHECK(b.height_m == doctest::Approx(180e-6));
    }
  CHECK(tsv == 2 + 2 + 2 + 2 + 4);
  CHECK(c.m.names[4].back() == "layer_4_TSV_3");
  CHECK(c.m.names[1][1] == "layer_1_TIM_tsv_0");
  // Every layer's die is 12.4 mm x 12.76 mm.
  for (const auto& layer : L) {
    double area = 0.0;
    for (const auto& b : layer.plan.blocks) area += b.width_m * b.height_m;
    CHECK(area == doctest::Approx(0.0124 * 0.01276).epsilon(1e-5));
  }
  // The trace: HotSpot's plain block names (unique over the power layers), nine rows. Its mean
  // sums to 146.1953 W (the file's 9 x 120 values summed by hand / 9); the cache layers' L2
  // halves 16.718 W / 9 = 1.8576 W each, the TSVs none.
  CHECK(c.trace.names.size() == 120);
  CHECK(c.trace.rows.size() == 9);
  CHECK(ev6_3d_total(c.power) == doctest::Approx(146.195333).epsilon(1e-7));
  CHECK(c.power[0][0] == doctest::Approx(16.718 / 9.0));
  CHECK(c.power[0][1] == 0.0);
  CHECK(c.power[2][2] == doctest::Approx(16.718 / 9.0));
  for (std::size_t l : {1u, 3u, 5u})
    for (double w : c.power[l]) CHECK(w == 0.0);
}

TEST_CASE("HotSpot's 3D EV6 example solves in both models: energy balance, hottest block, block against grid") {
  const auto c = ev6_3d_read();
  const double P = ev6_3d_total(c.power), amb = c.cfg.package.ambient_K;
  std::vector<steady_result> res;
  for (auto kind : {thermal_model_kind::block, thermal_model_kind::grid}) {
    CAPTURE(static_cast<int>(kind));
    const auto net = build_thermal_network(c.m.stack, ev6_3d_options(c.cfg, kind));
    auto r = steady_state(net, c.power);
    // Every watt leaves through the convection: Σ g_i0 θ_i = P (the sink's area-weighted mean
    // rise is P · r_convec = 14.6 K).
    double out = 0.0;
    for (std::size_t i = 0; i < r.node_rise_K.size(); ++i) out += net.net.ambient_W_K[i] * r.node_rise_K[i];
    CHECK(out == doctest::Approx(P).epsilon(1e-8));
    // Every block of every layer above the ambient, indeed above the sink's mean.
    double hottest = 0.0;
    std::size_t hl = 0, hb = 0;
    for (std::size_t l = 0; l < r.block_K.size(); ++l)
      for (std::size_t b = 0; b < r.block_K[l].size(); ++b) {
        CHECK(r.block_K[l][b] > amb + P * c.cfg.package.convection_resistance_K_W);
        if (r.block_K[l][b] > hottest) hottest = r.block_K[l][b], hl = l, hb = b;
      }
    // The hottest block is on the core layer (138.8 of the 146.2 W) and is an integer register file,
    // the floorplan's highest power density (IntReg_1: 1.82 W on 0.60 mm², 3.0 W/mm²; LdStQ 2.0, Dcache 1.3 W/mm²).
    CHECK(hl == 4);
    CHECK(c.m.names[hl][hb].rfind("layer_4_IntReg_", 0) == 0);
    CHECK(r.max_node_K >= hottest - 1e-9);
    res.push_back(std::move(r));
  }
  // Block against grid (64 x 64, HotSpot's centre-cell map), layer by layer. The block model has
  // one node per block: an L2 half above the cores is one node 12.4 mm x 6.2 mm wide, a lateral
  // short across the cores beneath it, so the block model's core layer is flatter (350.3–354.0 K
  // against the grid's 340.1–357.1 K). Measured worst differences (K): 3.9, 4.0, 4.1, 4.4, 10.5,
  // 0.8; bounds 5 K on the cache and TIM layers, 11 K on the core layer, 1 K on the last TIM.
  const double bound[6] = {5.0, 5.0, 5.0, 5.0, 11.0, 1.0};
  for (std::size_t l = 0; l < 6; ++l) {
    double worst = 0.0;
    for (std::size_t b = 0; b < res[0].block_K[l].size(); ++b)
      worst = std::max(worst, std::abs(res[0].block_K[l][b] - res[1].block_K[l][b]));
    CAPTURE(l);
    CHECK(worst < bound[l]);
  }
}

TEST_CASE("HotSpot's 3D EV6 example: the TSV strips carry heat down; without their material the top layer runs hotter") {
  auto c = ev6_3d_read();
  const auto o = ev6_3d_options(c.cfg, thermal_model_kind::grid);
  const auto with = steady_state(build_thermal_network(c.m.stack, o), c.power);
  for (auto& layer : c.m.stack.layers)
    for (auto& b : layer.plan.blocks) b.resistivity_mK_W.reset(), b.heat_capacity_J_m3K.reset();
  const auto without = steady_state(build_thermal_network(c.m.stack, o), c.power);
  for (std::size_t b = 0; b < with.block_K[0].size(); ++b) CHECK(without.block_K[0][b] > with.block_K[0][b]);
}
