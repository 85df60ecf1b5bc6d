#include "strata/chiplet/substrate.hpp"

#include <doctest/doctest.h>

#include <set>

#include "strata/core/json.hpp"

using namespace strata;
using doctest::Approx;

TEST_CASE("the Table 1 package has 16 chiplets in a 4x4 mesh, 4 IO chiplets and three tiers") {
  const substrate s;
  CHECK(s.chiplets() == 16);
  CHECK(s.io_chiplets() == 4);
  // 4x4 mesh: 2·(3·4 + 4·3) = 48 directed D2D links, plus 2 per IO chiplet.
  CHECK(s.links().size() == 48 + 8);
  // Banks: 4 SRAM groups × 16 banks, 32 HBM pseudo-channels, 8 DDR5 channels (Table 1).
  CHECK(s.banks_of(tier_kind::sram).size() == 64);
  CHECK(s.banks_of(tier_kind::hbm).size() == 32);
  CHECK(s.banks_of(tier_kind::dram).size() == 8);
  // Per-bank shares of the Table 1 aggregates.
  const auto& hbm = s.banks()[static_cast<std::size_t>(s.banks_of(tier_kind::hbm)[0])];
  CHECK(hbm.bandwidth.in(units::GBps) == Approx(460.0 / 32));
  CHECK(hbm.capacity.in(units::GB) == Approx(8.0 / 32));
  const auto& dram = s.banks()[static_cast<std::size_t>(s.banks_of(tier_kind::dram)[0])];
  CHECK(dram.bandwidth.in(units::GBps) == Approx(51.2));
  CHECK(dram.energy.in(units::pJ_per_B) == Approx(160.0));
  const auto& sram = s.banks()[0];
  CHECK(sram.tier == tier_kind::sram);
  CHECK(sram.bandwidth.in(units::GBps) == Approx(2000.0 / 16));
  // Π_core = 2 · 256 MAC/cycle · 1 GHz.
  CHECK(s.core_throughput().in(units::Gflops) == Approx(512.0));
}

TEST_CASE("a link's fixed latency is router and link cycles plus PHY plus flight time") {
  const substrate s;
  // λ = (2 + 1) cycles at 1 GHz + 2 ns PHY + 10 mm / 1.5e8 m/s = 3 + 2 + 0.0667 ns.
  CHECK(s.links()[0].lambda.in(units::ns) == Approx(5.0 + 10e-3 / 1.5e8 * 1e9));
  CHECK(s.links()[0].bandwidth.in(units::GBps) == Approx(256.0));
}

TEST_CASE("routes are dimension-ordered XY and enter the mesh at the IO attachment") {
  const substrate s;
  SUBCASE("x first, then y") {
    // 0 (0,0) → 15 (3,3): 0→1→2→3→7→11→15.
    const auto r = s.route(0, 15);
    REQUIRE(r.size() == 6);
    const int expect[][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 7}, {7, 11}, {11, 15}};
    for (std::size_t i = 0; i < r.size(); ++i) {
      CHECK(s.links()[static_cast<std::size_t>(r[i])].from == expect[i][0]);
      CHECK(s.links()[static_cast<std::size_t>(r[i])].to == expect[i][1]);
    }
  }
  SUBCASE("route length is the Manhattan distance") {
    for (int a = 0; a < 16; ++a) {
      for (int b = 0; b < 16; ++b) {
        CHECK(s.hops(a, b) == std::abs(a % 4 - b % 4) + std::abs(a / 4 - b / 4));
      }
    }
  }
  SUBCASE("IO chiplet 16 attaches to chiplet 0") {
    const auto r = s.route(16, 5);
    REQUIRE(r.size() == 3);
    CHECK(s.links()[static_cast<std::size_t>(r[0])].kind == link_kind::io_d2d);
    CHECK(s.links()[static_cast<std::size_t>(r[2])].to == 5);
  }
  SUBCASE("consecutive links of a route connect") {
    for (int a = 0; a < s.nodes(); ++a) {
      for (int b = 0; b < s.nodes(); ++b) {
        const auto r = s.route(a, b);
        int at = a;
        for (int u : r) {
          CHECK(s.links()[static_cast<std::size_t>(u)].from == at);
          at = s.links()[static_cast<std::size_t>(u)].to;
        }
        CHECK(at == b);
      }
    }
  }
}

TEST_CASE("SRAM is visible only to its chiplet group; HBM and DRAM to every chiplet") {
  const substrate s;
  CHECK(s.group_of(0) == 0);
  CHECK(s.group_of(5) == 0);
  CHECK(s.group_of(2) == 1);
  CHECK(s.group_of(15) == 3);
  const int sram0 = s.banks_of(tier_kind::sram, 0)[0];
  CHECK(s.visible(sram0, 5));
  CHECK_FALSE(s.visible(sram0, 2));
  CHECK(s.memory_path(sram0, 5).empty());
  const int hbm = s.banks_of(tier_kind::hbm)[0];
  for (int c = 0; c < 16; ++c) CHECK(s.visible(hbm, c));
  CHECK(s.memory_path(hbm, 15).size() == 1 + 6);  // IO→0, then 0 → 15
}

TEST_CASE("bad substrate parameters raise config_error naming the field") {
  auto throws_on = [](substrate_params p, const char* field) {
    CAPTURE(field);
    try {
      substrate s(p);
      FAIL("no config_error");
    } catch (const config_error& e) {
      CHECK(e.field() == field);
    }
  };
  substrate_params p;
  SUBCASE("zero mesh") { p.mesh_x = 0; throws_on(p, "mesh_x"); }
  SUBCASE("group not dividing the mesh") { p.group_x = 3; throws_on(p, "group_x"); }
  SUBCASE("IO attachment outside the mesh") { p.io_attach = {0, 99}; throws_on(p, "io_attach[1]"); }
  SUBCASE("zero D2D bandwidth") { p.d2d.bandwidth = units::GBps(0.0); throws_on(p, "d2d.bandwidth"); }
  SUBCASE("zero HBM banks") { p.hbm.banks = 0; throws_on(p, "hbm.banks"); }
}

TEST_CASE("substrate parameters round-trip through JSON") {
  const substrate_params p;
  const json j = p;
  CHECK(j.get<substrate_params>() == p);
  const auto q = json::parse(R"({"mesh_x": 2, "mesh_y": 2, "io_attach": [0], "hbm": {"bandwidth": "920 GB/s"}})")
                     .get<substrate_params>();
  CHECK(q.hbm.bandwidth.in(units::GBps) == Approx(920.0));
  CHECK(q.hbm.banks == 32);
  CHECK_NOTHROW(substrate{q});
}
