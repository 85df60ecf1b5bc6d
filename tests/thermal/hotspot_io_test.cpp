// SPDX-License-Identifier: MIT
#include "strata/thermal/hotspot_io.hpp"

#include <doctest/doctest.h>

#include <cmath>    // std::abs
#include <fstream>  // the reference steady file
#include <map>      // name -> kelvin
#include <sstream>  // write_grid_steady's output
#include <string>   // std::string
#include <utility>  // std::pair
#include <vector>   // std::vector

using namespace strata::thermal;

namespace {

const std::string hotspot_io_dir = std::string(STRATA_TEST_DATA_DIR) + "/thermal/hotspot/";

std::map<std::string, double> hotspot_io_reference() {
  std::map<std::string, double> ref;
  std::ifstream in(hotspot_io_dir + "gcc.steady");
  std::string n;
  double v = 0;
  while (in >> n >> v) ref[n] = v;
  return ref;
}

}  // namespace

TEST_CASE("HotSpot's EV6 example reads and solves; the block temperatures are compared with HotSpot's") {
  const auto cfg = read_hotspot_config(hotspot_io_dir + "hotspot.config");
  CHECK(cfg.package.convection_resistance_K_W == doctest::Approx(0.1));
  CHECK(cfg.grid_rows == 64);
  CHECK(cfg.ignored.empty());
  CHECK(cfg.grid_map == grid_map_mode::avg);
  const auto f = read_flp(hotspot_io_dir + "ev6.flp");
  REQUIRE(f.blocks.size() == 30);
  CHECK(f.blocks[1].name == "L2");
  CHECK(f.blocks[1].width_m == doctest::Approx(0.016));
  const auto tr = read_ptrace(hotspot_io_dir + "gcc.ptrace");
  CHECK(tr.names.size() == 30);
  CHECK(tr.rows.size() == 100);
  const auto m = hotspot_2d_model(cfg, f);
  const auto p = map_power(m, tr.names, tr.mean());
  double total = 0;
  for (double w : p[0]) total += w;
  CHECK(total == doctest::Approx(40.21).epsilon(1e-3));
  const auto ref = hotspot_io_reference();
  REQUIRE(ref.size() == 30);
  // gcc.steady is HotSpot 6's grid model (64 × 64, grid_map_mode center): its block temperatures are
  // the centre cells of gcc.grid.steady (docs/thermal.md). strata's 64 × 64 grid with the same map
  // reproduces every block to the file's rounding; the block model differs from HotSpot's grid by
  // the block model's own discretisation (worst 2.6 K, IntReg_1).
  SUBCASE("grid model 64 x 64, HotSpot's center map: every block within 0.01 K") {
    thermal_options o;
    o.model = thermal_model_kind::grid;
    o.grid_map = grid_map_mode::center;
    const auto r = steady_state(build_thermal_network(m.stack, o), p);
    double worst = 0;
    for (std::size_t b = 0; b < 30; ++b) worst = std::max(worst, std::abs(r.block_K[0][b] - ref.at(f.blocks[b].name)));
    CHECK(worst < 0.01);  // measured 0.005 K: gcc.steady prints two decimals
    // The other maps read the same cells differently: min <= center <= max, and no map changes a node.
    for (const auto mode : {grid_map_mode::avg, grid_map_mode::min, grid_map_mode::max, grid_map_mode::area}) {
      o.grid_map = mode;
      const auto q = steady_state(build_thermal_network(m.stack, o), p);
      CHECK(q.node_rise_K == r.node_rise_K);
      if (mode == grid_map_mode::min)
        for (std::size_t b = 0; b < 30; ++b) CHECK(q.block_K[0][b] <= r.block_K[0][b] + 1e-12);
      if (mode == grid_map_mode::max)
        for (std::size_t b = 0; b < 30; ++b) CHECK(q.block_K[0][b] >= r.block_K[0][b] - 1e-12);
    }
  }
  SUBCASE("block model") {
    const auto net = build_thermal_network(m.stack, {});
    CHECK(net.net.size() == 4 * 30 + 12);  // HotSpot's block model: 4 layers of 30 blocks + 12 package nodes
    const auto r = steady_state(net, p);
    double worst = 0, l2 = 0;
    for (std::size_t b = 0; b < 30; ++b) worst = std::max(worst, std::abs(r.block_K[0][b] - ref.at(f.blocks[b].name)));
    l2 = r.block_K[0][1] - ref.at("L2");
    CHECK(worst < 2.6);  // measured 2.59 K (IntReg_1, hotter) against HotSpot's grid model
    CHECK(std::abs(l2) < 0.2);
  }
  SUBCASE("where the heat goes (the figures docs/thermal.md quotes)") {
    const auto net = build_thermal_network(m.stack, {});
    const auto r = steady_state(net, p);
    const int n = 30, pkg = net.package_first_node;
    const auto out = [&](int node) {
      return net.net.ambient_W_K[static_cast<std::size_t>(node)] * r.node_rise_K[static_cast<std::size_t>(node)];
    };
    double under = 0, inner = 0, outer = 0;
    for (int i = 0; i < n; ++i) under += out(pkg + n + i);
    for (int s = 0; s < 4; ++s) {
      inner += out(pkg + 2 * n + 3 * s + 1);
      outer += out(pkg + 2 * n + 3 * s + 2);
    }
    CHECK(under + inner + outer == doctest::Approx(total).epsilon(1e-9));  // every watt reaches the air
    CHECK(under == doctest::Approx(4.0).epsilon(0.02));
    CHECK(inner == doctest::Approx(8.1).epsilon(0.02));
    CHECK(outer == doctest::Approx(28.0).epsilon(0.02));
    // IntReg_1 (block 24): 26 K above ambient; 4 K in the die, 13 K across the interface, 2.4 K in
    // the spreader, 6.6 K from the sink to the air.
    const auto rise = [&](int node) { return r.node_rise_K[static_cast<std::size_t>(node)]; };
    CHECK(rise(24) == doctest::Approx(26.1).epsilon(0.01));
    CHECK(rise(24) - rise(n + 24) == doctest::Approx(3.9).epsilon(0.03));
    CHECK(rise(n + 24) - rise(pkg + 24) == doctest::Approx(13.1).epsilon(0.02));
    CHECK(rise(pkg + 24) - rise(pkg + n + 24) == doctest::Approx(2.4).epsilon(0.05));
    CHECK(rise(pkg + n + 24) == doctest::Approx(6.6).epsilon(0.02));
  }
  SUBCASE("grid model") {
    thermal_options o;
    o.model = thermal_model_kind::grid;
    o.grid_rows = o.grid_cols = 32;
    const auto r = steady_state(build_thermal_network(m.stack, o), p);
    double worst = 0;
    for (std::size_t b = 0; b < 30; ++b) worst = std::max(worst, std::abs(r.block_K[0][b] - ref.at(f.blocks[b].name)));
    CHECK(worst < 2.05);  // measured 2.01 K with the area-weighted map (grid_map_mode::area)
  }
}

TEST_CASE("HotSpot readers refuse bad input with the field and line") {
  SUBCASE("floorplan") {
    CHECK_THROWS_WITH_AS(parse_flp("a 1 2 3\n", "x.flp"), doctest::Contains("x.flp:1"), strata::config_error);
    CHECK_THROWS_WITH_AS(parse_flp("a 0.001 nan 0 0\n"), doctest::Contains("height"), strata::config_error);
    CHECK_THROWS_WITH_AS(parse_flp("a 0.001 0.001 0 0\na 0.001 0.001 0.001 0\n"), doctest::Contains("twice"),
                         strata::config_error);
    CHECK_THROWS_WITH_AS(parse_flp("# nothing\n"), doctest::Contains("no blocks"), strata::config_error);
    CHECK_THROWS_WITH_AS(parse_flp("a 1e-8 0.001 0 0\n"), doctest::Contains("[0.1 um, 1 m]"), strata::config_error);
    const auto f = parse_flp("tsv 0.001 0.002 0 0 4e6 0.0025 # with materials\n");
    CHECK(*f.blocks[0].resistivity_mK_W == doctest::Approx(0.0025));
  }
  SUBCASE("power trace") {
    CHECK_THROWS_WITH_AS(parse_ptrace("a b\n1\n"), doctest::Contains("1 values for 2 names"), strata::config_error);
    CHECK_THROWS_WITH_AS(parse_ptrace("a b\n1 -2\n"), doctest::Contains("b must be in [0, 1e6] W"), strata::config_error);
    CHECK_THROWS_WITH_AS(parse_ptrace("a b\n"), doctest::Contains("no row"), strata::config_error);
    CHECK_THROWS_WITH_AS(parse_ptrace("a a\n1 2\n"), doctest::Contains("twice"), strata::config_error);
    strata::input_limits saved = strata::limits();
    strata::limits().thermal_trace_cells = 3;
    CHECK_THROWS_WITH_AS(parse_ptrace("a b\n1 2\n3 4\n"), doctest::Contains("thermal_trace_cells"), strata::config_error);
    strata::limits() = saved;
  }
  SUBCASE("config") {
    CHECK_THROWS_WITH_AS(parse_hotspot_config("-r_convec -1\n"), doctest::Contains("r_convec"), strata::config_error);
    CHECK_THROWS_WITH_AS(parse_hotspot_config("r_convec 1\n"), doctest::Contains("-name value"), strata::config_error);
    CHECK_THROWS_WITH_AS(parse_hotspot_config("-model_type foo\n"), doctest::Contains("model_type"), strata::config_error);
    CHECK(parse_hotspot_config("-k_chip 130 # silicon\n").chip_conductivity_W_mK == doctest::Approx(130.0));
  }
  SUBCASE("layer file") {
    const auto l = parse_lcf("0\nY\nY\n1.75e6\n0.01\n0.00015\na.flp\n1\nN\nN\n4e6\n0.25\n2e-5\nb.flp\n");
    REQUIRE(l.size() == 2);
    CHECK(!l[1].lateral);
    CHECK(l[1].resistivity_mK_W == doctest::Approx(0.25));
    CHECK_THROWS_WITH_AS(parse_lcf("0\nY\nY\n1.75e6\n0.01\n0.00015\n"), doctest::Contains("seven lines"),
                         strata::config_error);
    CHECK_THROWS_WITH_AS(parse_lcf("0\nQ\nY\n1.75e6\n0.01\n0.00015\na.flp\n"), doctest::Contains("lateral heat flow"),
                         strata::config_error);
    CHECK_THROWS_WITH_AS(parse_lcf("1\nY\nY\n1.75e6\n0.01\n0.00015\na.flp\n"), doctest::Contains("numbered"),
                         strata::config_error);
  }
  SUBCASE("the opening rule: not a regular file") {
    CHECK_THROWS_WITH_AS(read_flp("/dev/null"), doctest::Contains("not a regular file"), strata::config_error);
    CHECK_THROWS_WITH_AS(read_ptrace(hotspot_io_dir), doctest::Contains("a directory"), strata::config_error);
  }
  SUBCASE("power columns that name no block, or miss one") {
    const auto m = hotspot_2d_model(hotspot_config{}, parse_flp("a 0.001 0.001 0 0\nb 0.001 0.001 0.001 0\n"));
    CHECK_THROWS_WITH_AS(map_power(m, {"a", "c"}, {1.0, 2.0}), doctest::Contains("'c'"), strata::config_error);
    CHECK_THROWS_WITH_AS(map_power(m, {"a"}, {1.0}), doctest::Contains("no column for block 'b'"), strata::config_error);
  }
}

TEST_CASE("A layered stack reads from an .lcf, names blocks layer_N_block and solves in both models") {
  const std::string d = std::string(STRATA_TEST_DATA_DIR) + "/thermal/stack3d/";
  const auto cfg = read_hotspot_config(d + "stack.config");
  const auto m = read_hotspot_layers(cfg, d + "stack.lcf");
  REQUIRE(m.stack.layers.size() == 4);
  CHECK(m.layered);
  CHECK(m.names[1][1] == "layer_1_tsv");
  CHECK(!m.stack.layers[1].power);
  CHECK(m.stack.layers[1].conductivity_W_mK == doctest::Approx(4.0));
  CHECK(*m.stack.layers[1].plan.blocks[1].resistivity_mK_W == doctest::Approx(0.0058));
  const auto tr = read_ptrace(d + "stack.ptrace");
  const auto p = map_power(m, tr.names, tr.mean());
  CHECK(p[0][0] == doctest::Approx(3.0));
  CHECK(p[2][1] == doctest::Approx(0.5));
  for (auto kind : {thermal_model_kind::block, thermal_model_kind::grid}) {
    thermal_options o;
    o.model = kind;
    o.grid_rows = o.grid_cols = 16;
    const auto r = steady_state(build_thermal_network(m.stack, o), p);
    // The die farther from the sink runs hotter; its hot core hotter than its cache.
    CHECK(r.block_K[0][0] > r.block_K[2][0]);
    CHECK(r.block_K[0][0] > r.block_K[0][1]);
    CHECK(r.block_K[3][0] > cfg.package.ambient_K);
  }
  // Plain names map when a block name is unique among the power layers: here it is not.
  CHECK_THROWS_WITH_AS(map_power(m, {"core"}, {1.0}), doctest::Contains("'core'"), strata::config_error);
}

TEST_CASE("The steady state by conjugate gradients equals the factorisation within 1e-9") {
  const auto cfg = read_hotspot_config(hotspot_io_dir + "hotspot.config");
  const auto m = hotspot_2d_model(cfg, read_flp(hotspot_io_dir + "ev6.flp"));
  const auto tr = read_ptrace(hotspot_io_dir + "gcc.ptrace");
  const auto p = map_power(m, tr.names, tr.mean());
  for (const int g : {8, 32}) {
    thermal_options o;
    o.model = thermal_model_kind::grid;
    o.grid_rows = o.grid_cols = g;
    const auto net = build_thermal_network(m.stack, o);
    const auto direct = steady_state(net, p, steady_method::direct);
    const auto iter = steady_state(net, p, steady_method::iterative);
    const auto mg = steady_state(net, p, steady_method::multigrid);
    double peak = 0, worst = 0, worst_mg = 0;
    for (double v : direct.node_rise_K) peak = std::max(peak, std::abs(v));
    for (std::size_t i = 0; i < direct.node_rise_K.size(); ++i) {
      worst = std::max(worst, std::abs(iter.node_rise_K[i] - direct.node_rise_K[i]));
      worst_mg = std::max(worst_mg, std::abs(mg.node_rise_K[i] - direct.node_rise_K[i]));
    }
    CHECK(worst / peak < 1e-9);
    CHECK(worst_mg / peak < 1e-9);
    // automatic: the factorisation below 2 048 nodes, the multigrid iteration from there up
    // (8 x 8: 268 nodes, 32 x 32: 4 108).
    const steady_solver<> a(net.net, steady_method::automatic);
    CHECK(a.iterative() == (net.net.size() >= steady_iterative_min_nodes));
    CHECK(a.multigrid() == (net.net.size() >= steady_iterative_min_nodes));
    const auto autom = steady_state(net, p);
    CHECK(autom.node_rise_K == (net.net.size() >= steady_iterative_min_nodes ? mg.node_rise_K : direct.node_rise_K));
  }
  // No power: both give the ambient exactly.
  thermal_options o;
  o.model = thermal_model_kind::grid;
  o.grid_rows = o.grid_cols = 4;
  const auto net = build_thermal_network(m.stack, o);
  const steady_solver<> s(net.net, steady_method::iterative);
  for (double v : s.rise(std::vector<double>(static_cast<std::size_t>(net.net.size()), 0.0))) CHECK(v == 0.0);
  const steady_solver<> s_mg(net.net, steady_method::multigrid);
  for (double v : s_mg.rise(std::vector<double>(static_cast<std::size_t>(net.net.size()), 0.0))) CHECK(v == 0.0);
  CHECK(s_mg.iterations() == 0);
}

TEST_CASE("The multigrid preconditioner: the 64 x 64 EV6 grid in 49 iterations where Jacobi takes 345") {
  // The cause of the Jacobi iteration's count is the copper layers' smooth modes (multigrid.hpp);
  // the aggregation hierarchy removes them: a grid-size-independent count, here a seventh.
  const auto cfg = read_hotspot_config(hotspot_io_dir + "hotspot.config");
  const auto m = hotspot_2d_model(cfg, read_flp(hotspot_io_dir + "ev6.flp"));
  const auto tr = read_ptrace(hotspot_io_dir + "gcc.ptrace");
  thermal_options o;
  o.model = thermal_model_kind::grid;
  o.grid_rows = o.grid_cols = 64;
  const auto net = build_thermal_network(m.stack, o);
  const auto pw = node_power(net, map_power(m, tr.names, tr.mean()));
  const steady_solver<> mg(net.net, steady_method::multigrid), jac(net.net, steady_method::iterative);
  const auto x = mg.rise(pw), y = jac.rise(pw);
  CHECK(mg.multigrid());
  CHECK(mg.iterations() <= 60);
  CHECK(jac.iterations() >= 6 * mg.iterations());
  double peak = 0, worst = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    peak = std::max(peak, std::abs(y[i]));
    worst = std::max(worst, std::abs(x[i] - y[i]));
  }
  CHECK(worst / peak < 1e-9);
  // The hierarchy: each level under 85 % of the one above, the last at most coarse_nodes.
  const multigrid_cg<> h(strata::thermal::detail::conductance_matrix<Eigen::RowMajor>(net.net, 0.0));
  const auto sizes = h.level_sizes();
  REQUIRE(sizes.size() >= 2);
  CHECK(sizes.front() == net.net.size());
  for (std::size_t l = 1; l < sizes.size(); ++l) CHECK(sizes[l] < 0.85 * sizes[l - 1]);
  CHECK(sizes.back() <= multigrid_cg<>::coarse_nodes);
}

TEST_CASE("conductance_matrix: G by hand for three nodes, a repeated link summed, both storage orders") {
  rc_network n;
  n.add_node(1.0, 0.5);
  n.add_node(2.0, 0.0);
  n.add_node(3.0, 0.25);
  n.connect(0, 1, 2.0);
  n.connect(2, 1, 1.0);
  n.connect(1, 0, 0.5);  // the same pair again: g = 2.5 between 0 and 1
  const Eigen::MatrixXd expect = (Eigen::MatrixXd(3, 3) << 3.0, -2.5, 0.0, -2.5, 3.5, -1.0, 0.0, -1.0, 1.25).finished();
  const auto g = strata::thermal::detail::conductance_matrix(n, 0.0);
  CHECK(g.nonZeros() == 7);
  CHECK((Eigen::MatrixXd(g) - expect).cwiseAbs().maxCoeff() == 0.0);
  const auto gr = strata::thermal::detail::conductance_matrix<Eigen::RowMajor>(n, 0.0);
  CHECK((Eigen::MatrixXd(gr) - expect).cwiseAbs().maxCoeff() == 0.0);
  // With C/h (h = 0.5 s): the diagonal gains 2 C.
  const auto gh = strata::thermal::detail::conductance_matrix(n, 2.0);
  CHECK(gh.coeff(0, 0) == 5.0);
  CHECK(gh.coeff(1, 1) == 7.5);
  CHECK(gh.coeff(2, 2) == 7.25);
}

TEST_CASE("write_grid_steady writes HotSpot's -grid_steady_file: every layer's cells, row 0 at the die's top") {
  const auto cfg = read_hotspot_config(hotspot_io_dir + "hotspot.config");
  const auto m = hotspot_2d_model(cfg, read_flp(hotspot_io_dir + "ev6.flp"));
  const auto tr = read_ptrace(hotspot_io_dir + "gcc.ptrace");
  thermal_options o;
  o.model = thermal_model_kind::grid;
  o.grid_rows = 8;
  o.grid_cols = 6;  // not square: rows and columns must not be swapped
  const auto net = build_thermal_network(m.stack, o);
  const auto st = steady_state(net, map_power(m, tr.names, tr.mean()));
  std::ostringstream os;
  write_grid_steady(os, net, o, st.node_rise_K);
  std::istringstream in(os.str());
  std::string line;
  std::vector<std::vector<std::pair<long, double>>> layers;
  while (std::getline(in, line)) {
    if (line.rfind("Layer ", 0) == 0) {
      CHECK(line == "Layer " + std::to_string(layers.size()) + ":");
      layers.emplace_back();
      continue;
    }
    REQUIRE(!layers.empty());
    const auto tab = line.find('\t');
    REQUIRE(tab != std::string::npos);
    layers.back().emplace_back(std::stol(line.substr(0, tab)), std::stod(line.substr(tab + 1)));
    CHECK(line.size() - line.find('.') == 3);  // HotSpot's %.2f
  }
  // Die, interface, spreader and sink (HotSpot's four grid layers in 2D), 48 cells each, in index order.
  REQUIRE(layers.size() == 4);
  for (const auto& l : layers) {
    REQUIRE(l.size() == 48);
    for (std::size_t k = 0; k < l.size(); ++k) CHECK(l[k].first == static_cast<long>(k));
  }
  // A known cell: HotSpot's row 0 is the top row (our row 7), index i*cols + j.
  const auto kelvin = [&](int layer_first, int r, int c) {
    return net.ambient_K + st.node_rise_K[static_cast<std::size_t>(layer_first + r * o.grid_cols + c)];
  };
  CHECK(std::abs(layers[0][0 * 6 + 2].second - kelvin(net.layer_first_node[0], 7, 2)) <= 0.005 + 1e-9);
  CHECK(std::abs(layers[0][5 * 6 + 4].second - kelvin(net.layer_first_node[0], 2, 4)) <= 0.005 + 1e-9);
  CHECK(std::abs(layers[1][7 * 6 + 0].second - kelvin(net.layer_first_node[1], 0, 0)) <= 0.005 + 1e-9);
  CHECK(std::abs(layers[2][3].second - kelvin(net.package_first_node, 7, 3)) <= 0.005 + 1e-9);
  CHECK(std::abs(layers[3][3].second - kelvin(net.package_first_node + 48, 7, 3)) <= 0.005 + 1e-9);
  // The die's hottest written cell is the model's hottest die node; heat flows down the stack.
  double die_max = 0, sink_max = 0;
  for (const auto& [k, v] : layers[0]) die_max = std::max(die_max, v);
  for (const auto& [k, v] : layers[3]) sink_max = std::max(sink_max, v);
  double node_max = 0;
  for (int i = 0; i < 48; ++i) node_max = std::max(node_max, st.node_rise_K[static_cast<std::size_t>(i)]);
  CHECK(std::abs(die_max - (net.ambient_K + node_max)) <= 0.005 + 1e-9);
  CHECK(sink_max < die_max);

  // Refused: the block model, options that do not match the network, a rise vector of another size.
  thermal_options b;
  const auto bnet = build_thermal_network(m.stack, b);
  std::ostringstream sink;
  CHECK_THROWS_WITH_AS(write_grid_steady(sink, bnet, b, steady_state(bnet, map_power(m, tr.names, tr.mean())).node_rise_K),
                       doctest::Contains("model"), strata::config_error);
  thermal_options other = o;
  other.grid_rows = 6;
  other.grid_cols = 6;
  CHECK_THROWS_WITH_AS(write_grid_steady(sink, net, other, st.node_rise_K), doctest::Contains("model"),
                       strata::config_error);
  CHECK_THROWS_WITH_AS(write_grid_steady(sink, net, o, std::vector<double>(3, 0.0)), doctest::Contains("rise_K"),
                       strata::config_error);
}
