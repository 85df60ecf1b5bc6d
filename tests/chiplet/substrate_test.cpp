#include "strata/chiplet/substrate.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <vector>

#include <boost/math/differentiation/autodiff.hpp>

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
  // Chiplet-local HBM: stack 0 (pseudo-channels 0-15) sits beside chiplet 5; chiplet 15 reaches
  // it over XY (5 → 6 → 7 → 11 → 15).
  CHECK(s.memory_path(hbm, 5).empty());
  CHECK(s.memory_path(hbm, 15).size() == 4);
  substrate_params p;
  p.hbm_at = hbm_placement::behind_io;
  const substrate io(p);
  const int pooled = io.banks_of(tier_kind::hbm)[0];
  CHECK(io.memory_path(pooled, 15).size() == 1 + 6);  // IO→0, then 0 → 15
  CHECK(io.memory_path(pooled, 0).size() == 1);
  const int dram = s.banks_of(tier_kind::dram)[0];
  CHECK(s.memory_path(dram, 0).size() == 1);  // DRAM stays behind the IO chiplets
}

TEST_CASE("chiplet-local HBM is Table 1's 32 pseudo-channels as two HBM2 stacks of 16 beside chiplets 5 and 10") {
  const substrate s;  // default: chiplet_local, hbm.stripe 16
  REQUIRE(s.params().hbm_at == hbm_placement::chiplet_local);
  for (int c = 0; c < 16; ++c) {
    CAPTURE(c);
    const auto local = s.banks_of(tier_kind::hbm, c);
    if (c != 5 && c != 10) {
      CHECK(local.empty());
      continue;
    }
    REQUIRE(local.size() == 16);  // one stack: 8 channels × 2 pseudo-channels (JESD235)
    CHECK(local.back() == local.front() + 15);  // a span
    double cap = 0.0;
    for (int b : local) {
      cap += s.banks()[static_cast<std::size_t>(b)].capacity.si();
      CHECK(s.memory_path(b, c).empty());  // local: no package link
      CHECK(s.bank_node(b) == c);
    }
    CHECK(cap == Approx(4e9));                                         // 8 GB over two stacks
    CHECK(s.home_rate(tier_kind::hbm, c).in(units::GBps) == Approx(230.0));  // 460 GB/s · 16 / 32
  }
  CHECK(s.banks_of(tier_kind::hbm, s.chiplets()).empty());  // nothing behind the IO chiplets
  SUBCASE("stripe 2: the earlier layout, 2 PCs (28.75 GB/s) under each chiplet") {
    substrate_params p;
    p.hbm.stripe = 2;
    const substrate sl(p);
    for (int c = 0; c < 16; ++c) {
      REQUIRE(sl.banks_of(tier_kind::hbm, c).size() == 2);
      CHECK(sl.home_rate(tier_kind::hbm, c).in(units::GBps) == Approx(28.75));
    }
  }
  SUBCASE("behind_io, stripe 0: 8 pseudo-channels (115 GB/s) behind each of the 4 IO chiplets") {
    substrate_params p;
    p.hbm_at = hbm_placement::behind_io;
    p.hbm.stripe = 0;
    const substrate io(p);
    for (int i = 0; i < 4; ++i) {
      const auto pool = io.banks_of(tier_kind::hbm, 16 + i);
      REQUIRE(pool.size() == 8);
      CHECK(io.home_rate(tier_kind::hbm, 16 + i).in(units::GBps) == Approx(115.0));
    }
    CHECK(io.banks_of(tier_kind::hbm, 0).empty());
  }
  SUBCASE("behind_io, stripe 16: the two stacks behind IO chiplets 16 and 18") {
    substrate_params p;
    p.hbm_at = hbm_placement::behind_io;
    const substrate io(p);
    CHECK(io.banks_of(tier_kind::hbm, 16).size() == 16);
    CHECK(io.banks_of(tier_kind::hbm, 17).empty());
    CHECK(io.banks_of(tier_kind::hbm, 18).size() == 16);
  }
  SUBCASE("fewer pseudo-channels than chiplets, stripe 0: contiguous blocks, some chiplets without HBM") {
    substrate_params p;
    p.hbm.banks = 4;
    p.hbm.stripe = 0;
    const substrate few(p);
    for (int c = 0; c < 16; ++c) CHECK(few.banks_of(tier_kind::hbm, c).size() == (c % 4 == 0 ? 1u : 0u));
  }
  SUBCASE("explicit hbm_attach places the stacks") {
    substrate_params p;
    p.hbm_attach = {0, 15, 7};  // the first two are used
    const substrate at(p);
    CHECK(at.banks_of(tier_kind::hbm, 0).size() == 16);
    CHECK(at.banks_of(tier_kind::hbm, 15).size() == 16);
    CHECK(at.banks_of(tier_kind::hbm, 7).empty());
  }
}

TEST_CASE("homes_for orders a chiplet's HBM homes by distance and the IO pools round-robin") {
  const substrate s;
  const auto h = s.homes_for(tier_kind::hbm, 6);
  REQUIRE(h.size() == 2);
  CHECK(h == std::vector<int>{5, 10});  // 1 hop, then 2
  for (std::size_t i = 1; i < h.size(); ++i) CHECK(s.hops(h[i - 1], 5) <= s.hops(h[i], 5));
  CHECK(s.homes_for(tier_kind::sram, 5) == std::vector<int>{s.group_of(5)});
  CHECK(s.homes_for(tier_kind::dram, 5, 2) == std::vector<int>{18, 19, 16, 17});
  substrate_params p;
  p.hbm_at = hbm_placement::behind_io;
  CHECK(substrate(p).homes_for(tier_kind::hbm, 5, 1) == std::vector<int>{18, 16});  // the stacks behind IO 0 and 2
  p.hbm.stripe = 0;
  CHECK(substrate(p).homes_for(tier_kind::hbm, 5, 1) == std::vector<int>{17, 18, 19, 16});
}

TEST_CASE("home_banks is the span banks_of lists, and visit_homes stops where its callback says") {
  // The index built at construction must agree with the bank list it replaces on every home of
  // every tier, for both HBM placements and for a package whose HBM banks skip chiplets.
  substrate_params sparse;
  sparse.hbm.banks = 4;  // one HBM bank on every fourth chiplet
  sparse.hbm.stripe = 0;
  substrate_params pooled;
  pooled.hbm_at = hbm_placement::behind_io;
  for (const auto& p : {substrate_params{}, sparse, pooled}) {
    const substrate s(p);
    for (tier_kind t : {tier_kind::sram, tier_kind::hbm, tier_kind::dram}) {
      for (int h = 0; h < s.nodes(); ++h) {
        const auto list = s.banks_of(t, h);
        const auto [first, count] = s.home_banks(t, h);
        REQUIRE(count == static_cast<int>(list.size()));
        for (int i = 0; i < count; ++i) CHECK(list[static_cast<std::size_t>(i)] == first + i);
      }
      for (int c = 0; c < s.chiplets(); ++c) {
        std::vector<int> seen;
        const bool found = s.visit_homes(t, c, c, [&](int h) {
          seen.push_back(h);
          return false;
        });
        CHECK_FALSE(found);
        CHECK(seen == s.homes_for(t, c, c));
        if (seen.size() < 2) continue;
        int calls = 0;
        CHECK(s.visit_homes(t, c, c, [&](int h) {
          ++calls;
          return h == seen[1];
        }));
        CHECK(calls == 2);  // stopped at the second home
      }
    }
  }
  CHECK(substrate().home_banks(tier_kind::dram, -1) == std::pair<int, int>{0, 0});
}

namespace {
// The construction the substrate's tables replace, from its public lists alone: a home of `tier`
// holds a bank of banks(); chiplet-local HBM homes are every chiplet id with a bank, stably
// sorted by hop distance from `c`; pools the IO chiplets with a bank from `rotate` on.
std::vector<int> homes_by_scan(const substrate& s, tier_kind tier, int c, int rotate) {
  const auto holds = [&](int h) {
    for (const auto& b : s.banks()) {
      if (b.tier == tier && b.home == h) return true;
    }
    return false;
  };
  if (tier == tier_kind::sram) return {s.group_of(c)};
  std::vector<int> out;
  if (tier == tier_kind::hbm && s.params().hbm_at == hbm_placement::chiplet_local) {
    for (int h = 0; h < s.chiplets(); ++h) {
      if (holds(h)) out.push_back(h);
    }
    std::stable_sort(out.begin(), out.end(), [&](int a, int b) { return s.hops(a, c) < s.hops(b, c); });
    return out;
  }
  const int nio = s.io_chiplets();
  for (int k = 0; k < nio; ++k) {
    const int h = s.chiplets() + ((rotate % nio + nio) % nio + k) % nio;
    if (holds(h)) out.push_back(h);
  }
  return out;
}
}  // namespace

TEST_CASE("the substrate's tables agree with a scan of its links and banks on meshes from 2x2 to 16x16") {
  struct mesh {
    int x, y, gx, gy, hbm, dram;
    std::vector<int> io;
    hbm_placement at;
  };
  const std::vector<mesh> meshes = {
      {2, 2, 1, 1, 32, 8, {0, 3}, hbm_placement::chiplet_local},
      {4, 4, 2, 2, 32, 8, {0, 3, 12, 15}, hbm_placement::chiplet_local},
      {4, 4, 2, 2, 32, 8, {0, 3, 12, 15}, hbm_placement::behind_io},
      {8, 4, 2, 2, 32, 8, {0, 7, 24, 31}, hbm_placement::chiplet_local},
      {8, 4, 4, 2, 5, 3, {5, 5, 1}, hbm_placement::chiplet_local},  // HBM on 5 of 32 chiplets
      {16, 16, 2, 2, 32, 8, {0, 15, 240, 255}, hbm_placement::chiplet_local},
      {16, 16, 4, 4, 300, 8, {0, 15, 240, 255, 100}, hbm_placement::chiplet_local},  // more banks than chiplets
      {1, 9, 1, 3, 4, 2, {4}, hbm_placement::chiplet_local},
      {9, 1, 3, 1, 9, 2, {0, 8}, hbm_placement::behind_io},
  };
  for (const auto& m : meshes) {
    substrate_params p;
    p.mesh_x = m.x;
    p.mesh_y = m.y;
    p.group_x = m.gx;
    p.group_y = m.gy;
    p.hbm.banks = m.hbm;
    p.dram.banks = m.dram;
    p.io_attach = m.io;
    p.hbm_at = m.at;
    const substrate s(p);
    CAPTURE(m.x);
    CAPTURE(m.y);
    CAPTURE(m.hbm);
    // Every link is found between its ends; every route is the XY walk (x first), link to link.
    for (std::size_t l = 0; l < s.links().size(); ++l) CHECK(s.link_between(s.links()[l].from, s.links()[l].to) == int(l));
    for (int a = 0; a < s.nodes(); ++a) {
      for (int b = 0; b < s.nodes(); ++b) {
        const auto r = s.route(a, b);
        REQUIRE(int(r.size()) == s.hops(a, b));
        int at = a;
        bool turned = false;
        for (int l : r) {
          const auto& k = s.links()[static_cast<std::size_t>(l)];
          REQUIRE(k.from == at);
          if (k.kind == link_kind::mesh_d2d) {
            const bool vertical = std::abs(k.to - k.from) == m.x && m.x > 1;
            CHECK((vertical || !turned));  // no x step after a y step
            turned = turned || vertical;
          }
          at = k.to;
        }
        CHECK(at == b);
      }
    }
    // Banks: a home's banks are the span home_banks gives; homes in every tier's preference order.
    for (tier_kind t : {tier_kind::sram, tier_kind::hbm, tier_kind::dram}) {
      for (int h = 0; h < s.nodes(); ++h) {
        const auto [first, count] = s.home_banks(t, h);
        int n = 0;
        for (std::size_t i = 0; i < s.banks().size(); ++i) {
          if (s.banks()[i].tier != t || s.banks()[i].home != h) continue;
          CHECK(int(i) == first + n);
          CHECK(s.banks()[i].index == n);
          ++n;
        }
        CHECK(n == count);
      }
      for (int c = 0; c < s.chiplets(); ++c) {
        for (int rotate : {-1, 0, 1, 2, 7}) CHECK(s.homes_for(t, c, rotate) == homes_by_scan(s, t, c, rotate));
      }
    }
  }
}

TEST_CASE("link_between finds exactly the adjacent pairs") {
  const substrate s;
  CHECK(s.link_between(0, 1) >= 0);
  CHECK(s.link_between(3, 4) == -1);  // row wrap is not a link
  CHECK(s.link_between(0, 5) == -1);
  CHECK(s.link_between(16, 0) >= 0);  // IO chiplet 16 on chiplet 0
  CHECK(s.link_between(16, 1) == -1);
  CHECK(s.link_between(0, 0) == -1);
  CHECK(s.link_between(-1, 0) == -1);
  for (std::size_t u = 0; u < s.links().size(); ++u) {
    CHECK(s.link_between(s.links()[u].from, s.links()[u].to) == static_cast<int>(u));
  }
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
  SUBCASE("huge bandwidth") { p.d2d.bandwidth = units::Bps(1e300); throws_on(p, "d2d.bandwidth"); }
  SUBCASE("denormal bandwidth") { p.hbm.bandwidth = units::Bps(4.9e-324); throws_on(p, "hbm.bandwidth"); }
  SUBCASE("huge latency") { p.dram.latency = units::s(1e300); throws_on(p, "dram.latency"); }
  SUBCASE("denormal signal speed") { p.io_link.signal_speed = units::m_per_s(4.9e-324); throws_on(p, "io_link.signal_speed"); }
  SUBCASE("huge clock") { p.clock = units::GHz(1e300); throws_on(p, "clock"); }
  SUBCASE("huge energy") { p.sram.energy = units::pJ_per_B(1e300); throws_on(p, "sram.energy"); }
  SUBCASE("negative cycles") { p.router_cycles = -1; throws_on(p, "router_cycles"); }
  SUBCASE("negative stripe") { p.hbm.stripe = -1; throws_on(p, "hbm.stripe"); }
  SUBCASE("SRAM stripe cutting a group") { p.sram.stripe = 4; throws_on(p, "sram.stripe"); }
  SUBCASE("more DRAM homes than IO chiplets") { p.dram.stripe = 1; throws_on(p, "dram.stripe"); }
  SUBCASE("more HBM homes than chiplets") {
    p.hbm.banks = 64;
    p.hbm.stripe = 2;
    throws_on(p, "hbm.stripe");
  }
  SUBCASE("HBM attachment outside the mesh") { p.hbm_attach = {5, 16}; throws_on(p, "hbm_attach[1]"); }
  SUBCASE("HBM attachment repeated") { p.hbm_attach = {5, 5}; throws_on(p, "hbm_attach[1]"); }
  SUBCASE("fewer HBM attachments than homes") { p.hbm_attach = {5}; throws_on(p, "hbm_attach"); }
}

TEST_CASE("a stream's rate follows from its tier's units and striping, and from its path (hand-derived)") {
  // A 2 × 1 mesh, one IO chiplet (node 2) on chiplet 0; HBM of 8 units sharing 80 GB/s striped 4
  // wide: 2 homes of 40 GB/s beside chiplets 0 and 1; DRAM of 4 channels at 40 GB/s in one home
  // behind the IO chiplet: 40 GB/s; D2D at 100 GB/s.
  substrate_params p;
  p.mesh_x = 2;
  p.mesh_y = 1;
  p.group_x = 1;
  p.group_y = 1;
  p.io_attach = {0};
  p.hbm = {units::GB(1.0), 8, units::GBps(80.0), units::ns(50.0), units::pJ_per_B(30.0), 4};
  p.dram = {units::GB(4.0), 4, units::GBps(40.0), units::ns(70.0), units::pJ_per_B(160.0), 0};
  p.hbm_attach = {0, 1};
  p.d2d.bandwidth = units::GBps(100.0);
  p.io_link.bandwidth = units::GBps(100.0);
  const substrate s(p);
  CHECK(stripe_rate(p.hbm.bandwidth, p.hbm.banks, p.hbm.stripe).in(units::GBps) == Approx(40.0));  // 80 · 4 / 8
  CHECK(s.home_rate(tier_kind::hbm, 0).in(units::GBps) == Approx(40.0));
  CHECK(s.home_rate(tier_kind::hbm, 1).in(units::GBps) == Approx(40.0));
  const auto [h0, n0] = s.home_banks(tier_kind::hbm, 0);
  CHECK(n0 == 4);
  CHECK(s.stream_rate_to(h0, n0, 0).in(units::GBps) == Approx(40.0));  // local: the home's rate
  CHECK(s.stream_rate_to(h0, n0, 1).in(units::GBps) == Approx(40.0));  // one 100 GB/s link: min(40, 100)
  const auto [d0, nd] = s.home_banks(tier_kind::dram, 2);
  CHECK(nd == 4);
  CHECK(s.home_rate(tier_kind::dram, 2).in(units::GBps) == Approx(40.0));
  // DRAM to chiplet 1: IO link then 0 → 1, two 100 GB/s links: (1/100 + 1/100)^-1 = 50 GB/s > 40.
  CHECK(s.stream_rate_to(d0, nd, 1).in(units::GBps) == Approx(40.0));
  // With 60 GB/s links the route binds: (2/60)^-1 = 30 GB/s.
  p.d2d.bandwidth = units::GBps(60.0);
  p.io_link.bandwidth = units::GBps(60.0);
  const substrate slow(p);
  CHECK(slow.stream_rate_to(d0, nd, 1).in(units::GBps) == Approx(30.0));
  CHECK(slow.stream_rate_to(d0, nd, 0).in(units::GBps) == Approx(40.0));  // one link: min(40, 60)
  CHECK_THROWS_AS((void)s.stream_rate_to(h0, 99, 0), config_error);
}

TEST_CASE("under Table 1 an HBM home streams at least as fast as a DRAM home (what Table 1 gives, not a target)") {
  const substrate s;
  // HBM: 460 GB/s · 16 / 32 = 230 GB/s per stack; DRAM: 409.6 GB/s · 2 / 8 = 102.4 GB/s per IO
  // chiplet; SRAM: a group's 2.0 TB/s.
  const double hbm = s.home_rate(tier_kind::hbm, 5).in(units::GBps);
  const double dram = s.home_rate(tier_kind::dram, 16).in(units::GBps);
  CHECK(hbm == Approx(230.0));
  CHECK(dram == Approx(102.4));
  CHECK(hbm >= dram);
  CHECK(s.home_rate(tier_kind::sram, 0).in(units::GBps) == Approx(2000.0));
  for (int h = 16; h < 20; ++h) CHECK(s.home_rate(tier_kind::dram, h).in(units::GBps) == Approx(102.4));
}

TEST_CASE("the stripe and stream rates differentiate with autodiff") {
  using boost::math::differentiation::make_fvar;
  using F = boost::math::differentiation::autodiff_fvar<double, 1>;
  // ∂(BW · w / N)/∂BW = w / N = 16 / 32.
  const auto r = stripe_rate(bandwidth<F>::from_si(make_fvar<double, 1>(460e9)), 32, 16);
  CHECK(r.si().derivative(0) == Approx(230e9));
  CHECK(r.si().derivative(1) == Approx(0.5));
  // Route-bound: (2 / B)^-1 = B / 2, so ∂/∂B = 1/2; the home's rate does not enter.
  const F b = make_fvar<double, 1>(100e9);
  const std::vector<bandwidth<F>> links{bandwidth<F>::from_si(b), bandwidth<F>::from_si(b)};
  const auto s = stream_rate(bandwidth<F>::from_si(F(80e9)), links);
  CHECK(s.si().derivative(0) == Approx(50e9));
  CHECK(s.si().derivative(1) == Approx(0.5));
  // Home-bound: the links do not enter.
  const auto h = stream_rate(bandwidth<F>::from_si(F(40e9)), links);
  CHECK(h.si().derivative(0) == Approx(40e9));
  CHECK(h.si().derivative(1) == Approx(0.0));
}

TEST_CASE("a DRAM stream crosses its IO chiplet's link, then the XY mesh links from the attachment") {
  const substrate s;
  // DRAM home 17 (IO chiplet 1) attaches to chiplet 3 (3,0); to chiplet 9 (1,2): 17→3, 3→2, 2→1,
  // 1→5, 5→9.
  const int d = s.home_banks(tier_kind::dram, 17).first;
  const auto path = s.memory_path(d, 9);
  const int expect[][2] = {{17, 3}, {3, 2}, {2, 1}, {1, 5}, {5, 9}};
  REQUIRE(path.size() == 5);
  for (std::size_t i = 0; i < path.size(); ++i) {
    const auto& l = s.links()[static_cast<std::size_t>(path[i])];
    CHECK(l.from == expect[i][0]);
    CHECK(l.to == expect[i][1]);
    CHECK(l.kind == (i == 0 ? link_kind::io_d2d : link_kind::mesh_d2d));
  }
  // Its rate: min(102.4 GB/s, (5 / 256 GB/s)^-1 = 51.2 GB/s): the route binds at 5 links.
  const auto [first, n] = s.home_banks(tier_kind::dram, 17);
  CHECK(s.stream_rate_to(first, n, 9).in(units::GBps) == Approx(51.2));
  CHECK(s.stream_rate_to(first, n, 3).in(units::GBps) == Approx(102.4));  // one link: the home binds
}

TEST_CASE("substrate size is bounded by max_chiplets and max_banks, and construction is proportional") {
  substrate_params p;
  p.mesh_x = 65;
  p.mesh_y = 64;
  CHECK_THROWS_WITH_AS(substrate{p}, doctest::Contains("mesh_x * mesh_y must be <= max_chiplets = 4096"), config_error);
  p.mesh_x = 5000;
  p.mesh_y = 1;
  CHECK_THROWS_WITH_AS(substrate{p}, doctest::Contains("mesh_x must be in [1, max_chiplets = 4096]"), config_error);
  p = {};
  p.sram.banks = 1 << 20;
  CHECK_THROWS_WITH_AS(substrate{p}, doctest::Contains("max_banks = 65536"), config_error);
  p = {};
  p.max_chiplets = 0;
  CHECK_THROWS_WITH_AS(substrate{p}, doctest::Contains("max_chiplets must be in [1, 2^24]"), config_error);
  const substrate s;
  CHECK_THROWS_WITH_AS((void)s.route(0, 20), doctest::Contains("b must be a node id"), config_error);
  CHECK_THROWS_AS((void)s.memory_path(-1, 0), config_error);
  CHECK_THROWS_AS((void)s.memory_path(0, 16), config_error);
  SUBCASE("64 x 64, the largest default size, builds with storage proportional to its links") {
    substrate_params big;
    big.mesh_x = 64;
    big.mesh_y = 64;
    const substrate s(big);
    // 2·(63·64 + 64·63) mesh links and 2 per IO chiplet; routes are generated, not stored.
    CHECK(s.links().size() == 2u * (63 * 64 + 64 * 63) + 8);
    CHECK(s.banks().size() == 32u * 32 * 16 + 32 + 8);
    CHECK(s.route(0, 4095).size() == 126);
    CHECK(s.hops(0, 4095) == 126);
    CHECK(s.route(4096, 4095).size() == 1 + 126);
  }
  SUBCASE("a raised limit admits a larger mesh") {
    substrate_params big;
    big.mesh_x = 80;
    big.mesh_y = 64;
    big.max_chiplets = 80 * 64;
    CHECK(substrate(big).chiplets() == 80 * 64);
  }
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
  CHECK(q.hbm_at == hbm_placement::chiplet_local);
  const auto r = json::parse(R"({"hbm_placement": "behind_io"})").get<substrate_params>();
  CHECK(r.hbm_at == hbm_placement::behind_io);
  CHECK(json(r)["hbm_placement"] == "behind_io");
  CHECK_THROWS_AS((void)json::parse(R"({"hbm_placement": "on_die"})").get<substrate_params>(), config_error);
}
