#include "strata/chiplet/critical_path.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include <boost/math/differentiation/autodiff.hpp>

#include "strata/chiplet/token_groups.hpp"
#include "strata/chiplet/window.hpp"
#include "strata/core/json.hpp"
#include "strata/workload/presets.hpp"
#include "strata/workload/trace_gen.hpp"
#include "support/critical_path_reference.hpp"

using namespace strata;
using doctest::Approx;

namespace {
// A 2 × 2 mesh (chiplets 0 (0,0), 1 (1,0), 2 (0,1), 3 (1,1)) with one IO chiplet (node 4) on
// chiplet 0 and one SRAM group covering the whole mesh; HBM's 32 pseudo-channels divided over
// the home nodes (stripe 0: 8 under each chiplet, or all 32 behind the IO chiplet).
substrate two_by_two(hbm_placement hbm = hbm_placement::chiplet_local) {
  substrate_params p;
  p.mesh_x = 2;
  p.mesh_y = 2;
  p.io_attach = {0};
  p.hbm.stripe = 0;
  p.hbm_at = hbm;
  return substrate(p);
}
// 1 MB experts, 1 MFLOP per token, 4 KB per token, gate and combine 10 kFLOP per token, k = 1.
moe_layer_shape toy_shape() {
  return {units::MB(1.0), units::flop(1e6), units::KB(4.0), units::flop(1e4), units::flop(1e4), 1};
}
constexpr double lambda_ns = 5.0 + 10e-3 / 1.5e8 * 1e9;  // (2 + 1) cycles + 2 ns PHY + flight
constexpr double chiplet_flops = 16 * 512e9 * 0.8;       // 16 cores · Π_core · η
}  // namespace

TEST_CASE("a route's time is the sum over its links of latency plus bytes over bandwidth (Eq. 7)") {
  const auto s = two_by_two();
  // One group of 10 tokens from chiplet 1 to a replica on chiplet 2 (route 1→0→2), weights in
  // SRAM so no memory traffic crosses links.
  const int sram = s.banks_of(tier_kind::sram)[0];
  const std::vector<token_group> g{{0, 0, 1, 2, 10}};
  const std::vector<replica> r{{0, 0, 2, sram, 1}};
  const auto res = evaluate_layer(s, toy_shape(), g, r, {0});
  // Eq. 7: 2·λ + 2·(40 KB / 256 GB/s) = 2·5.0667 ns + 2·156.25 ns.
  const double route_us = (2 * lambda_ns + 2 * 40e3 / 256e9 * 1e9) * 1e-3;
  CHECK(res.critical.dispatch.in(units::us) == Approx(route_us));
  CHECK(res.t_net.in(units::us) == Approx(route_us));  // Eq. 8: the route beats every drain time
}

TEST_CASE("a bank's service time is latency plus traffic over bandwidth (Eq. 10)") {
  const auto s = two_by_two();
  const int hbm = s.banks_of(tier_kind::hbm)[0];
  const std::vector<token_group> g{{0, 0, 0, 0, 1}};
  const std::vector<replica> r{{0, 0, 0, hbm, 1}};
  const auto res = evaluate_layer(s, toy_shape(), g, r, {0});
  // 1 MB from a 460/32 GB/s pseudo-channel with 50 ns latency.
  CHECK(res.t_bank.in(units::us) == Approx(0.05 + 1e6 / (460e9 / 32) * 1e6));
  CHECK(res.bank_load(hbm) == Approx(1e6));
  SUBCASE("striping over two banks halves the traffic per bank") {
    const std::vector<replica> r2{{0, 0, 0, hbm, 2}};
    const auto res2 = evaluate_layer(s, toy_shape(), g, r2, {0});
    CHECK(res2.bank_load(hbm) == Approx(0.5e6));
    CHECK(res2.t_bank.in(units::us) == Approx(0.05 + 0.5e6 / (460e9 / 32) * 1e6));
  }
}

TEST_CASE("a two-group window on a 2x2 mesh gives the hand-derived critical path (Eq. 8, 12, 14-15)") {
  const auto s = two_by_two(hbm_placement::behind_io);  // HBM pool behind IO chiplet 4 on chiplet 0
  const auto hbm = s.banks_of(tier_kind::hbm);
  // g0: expert 0, 100 tokens from chiplet 0, combined on 3, replica on chiplet 3 (HBM bank 0).
  // g1: expert 1,  50 tokens from chiplet 1, combined on 1, replica on chiplet 0 (HBM bank 1).
  const std::vector<token_group> g{{0, 0, 0, 3, 100}, {0, 1, 1, 1, 50}};
  const std::vector<replica> r{{0, 0, 3, hbm[0], 1}, {0, 1, 0, hbm[1], 1}};
  // Gate: 100 tokens on chiplet 0 × 10 kFLOP / (16 · 409.6 GFLOP/s) = 0.152588 µs; combine the
  // same (100 tokens combined on chiplet 3).
  const double gate = 100 * 1e4 / chiplet_flops * 1e6;
  const double combine = gate;
  const double lam = lambda_ns * 1e-3;
  // Dispatch (separate links): g0 0→1→3, 2·(λ + 400 KB / 256 GB/s); g1 1→0, λ + 200 KB / 256 GB/s.
  const double disp0 = 2 * lam + 2 * 400e3 / 256e9 * 1e6;
  const double disp1 = lam + 200e3 / 256e9 * 1e6;
  const double comp0 = 100e6 / chiplet_flops * 1e6, comp1 = 50e6 / chiplet_flops * 1e6;
  // Each replica's weights: 1 MB from a 14.375 GB/s pseudo-channel + 50 ns (the bank dominates
  // the 1 MB crossing of the IO link at 256 GB/s).
  const double tb = 0.05 + 1e6 / (460e9 / 32) * 1e6;
  const double xfer_mb = 1e6 / 256e9 * 1e6;
  SUBCASE("Eq. 15: the weight stream overlaps compute only (default)") {
    const auto res = evaluate_layer(s, toy_shape(), g, r, {0, 1});
    // Streams are released when the replicas start computing: r1 at gate + disp1, r0 at
    // gate + disp0. r0's stream waits on the IO link 4→0 for r1's 1 MB ahead of it (same class).
    CHECK(res.memory_ready[1].in(units::us) == Approx(gate + disp1 + tb));
    CHECK(res.memory_ready[0].in(units::us) == Approx(gate + disp0 + tb));
    // g0 = gate + disp + max(comp, mem) + combine (gather is local); g1 adds its gather 0→1.
    const double c0 = gate + disp0 + std::max(comp0, tb) + combine;
    const double c1 = gate + disp1 + std::max(comp1, tb) + lam + 200e3 / 256e9 * 1e6 + combine;
    CHECK(res.completion[0].in(units::us) == Approx(c0));
    CHECK(res.completion[1].in(units::us) == Approx(c1));
    REQUIRE(res.critical_group == 0);
    CHECK(res.critical.gate.in(units::us) == Approx(gate));
    CHECK(res.critical.dispatch.in(units::us) == Approx(disp0));
    CHECK(res.critical.queue.in(units::us) == Approx(0.0));
    CHECK(res.critical.compute.in(units::us) == Approx(comp0));
    CHECK((res.critical.compute + res.critical.memory).in(units::us) == Approx(std::max(comp0, tb)));
    CHECK(res.critical.gather.in(units::us) == Approx(0.0));
    CHECK(res.critical.combine.in(units::us) == Approx(combine));
    CHECK(res.t_moe.in(units::us) == Approx(c0));
    CHECK(res.critical.total().in(units::us) == Approx(res.t_moe.in(units::us)));
    // Eq. 12: T_mem is the slowest bank (both serve 1 MB). Eq. 8: the longest route is r0's
    // weights IO→0→1→3, 3·(λ + 1 MB / 256 GB/s), beyond every link's drain (0→1: 1.6 MB).
    CHECK(res.t_mem.in(units::us) == Approx(tb));
    CHECK(res.t_net.in(units::us) == Approx(3 * (lam + xfer_mb)));
    for (std::size_t gi = 0; gi < 2; ++gi) CHECK(res.group_stages[gi].total().si() == Approx(res.completion[gi].si()));
  }
  SUBCASE("dispatch_and_queue: the stream starts at the gate and hides dispatch too") {
    critical_path_params cp;
    cp.overlap = memory_overlap::dispatch_and_queue;
    const auto res = evaluate_layer(s, toy_shape(), g, r, {0, 1}, cp);
    // Both streams released at T_gate; r1's waits on 4→0 for r0's 1 MB, still under the bank.
    CHECK(res.memory_ready[0].in(units::us) == Approx(gate + tb));
    CHECK(res.memory_ready[1].in(units::us) == Approx(gate + tb));
    const double c0 = gate + tb + combine;
    const double c1 = gate + tb + lam + 200e3 / 256e9 * 1e6 + combine;
    CHECK(res.completion[0].in(units::us) == Approx(c0));
    CHECK(res.completion[1].in(units::us) == Approx(c1));
    REQUIRE(res.critical_group == 1);
    CHECK(res.t_moe.in(units::us) == Approx(c1));
    // Hiding dispatch under the stream is faster than Eq. 15 by g0's dispatch minus g1's gather.
    const auto eq15 = evaluate_layer(s, toy_shape(), g, r, {0, 1});
    CHECK((eq15.t_moe - res.t_moe).in(units::us) == Approx(disp0 - disp1));
  }
  SUBCASE("energy by component follows Eq. 17") {
    const auto res = evaluate_layer(s, toy_shape(), g, r, {0, 1});
    // Compute: 150 tokens × 1 MFLOP × 0.25 pJ; HBM: 2 MB × 31.8 pJ/B.
    CHECK(res.energy.compute.in(units::uJ) == Approx(150 * 1e6 * 0.25e-12 * 1e6));
    CHECK(res.energy.hbm.in(units::uJ) == Approx(2e6 * 31.8e-12 * 1e6));
    CHECK(res.energy.sram.in(units::uJ) == Approx(0.0));
    // Mesh links carry: g0 dispatch 0→1→3 (2 × 400 KB), g1 dispatch 1→0 (200 KB), g1 gather
    // 0→1 (200 KB), g0 weights 0→1→3 (2 × 1 MB); the IO link carries 2 × 1 MB of weights.
    // All of them are UCIe-class D2D links at 0.3 pJ/bit.
    const double link_bytes = 2 * 400e3 + 200e3 + 200e3 + 2 * 1e6 + 2e6;
    CHECK(res.energy.d2d.in(units::uJ) == Approx(link_bytes * 0.3e-12 * 8 * 1e6));
    // On-chiplet network, bytes × compute chiplets crossed: g0 dispatch 0→1→3 (3 chiplets),
    // g0 gather 3→3 (local, 1), g1 dispatch 1→0 and gather 0→1 (2 each), g0 weights
    // IO→0→1→3 (3), g1 weights IO→0 (1).
    const double noc_bytes = 400e3 * 3 + 400e3 * 1 + 200e3 * 2 + 200e3 * 2 + 1e6 * 3 + 1e6 * 1;
    CHECK(res.energy.noc.in(units::uJ) == Approx(noc_bytes * 0.5e-12 * 8 * 1e6));
    CHECK(res.energy.gate.in(units::uJ) == Approx(150 * 1e4 * 0.25e-12 * 1e6));
  }
}

TEST_CASE("causal links: a group waits only for same-class traffic ahead of it on the same link and direction") {
  const auto s = two_by_two();
  const auto sram = s.banks_of(tier_kind::sram);
  const double lam = lambda_ns * 1e-3;
  // g0 (100 tokens, 400 KB) and g1 (50 tokens, 200 KB) both dispatch from chiplet 1 to replicas
  // on chiplet 0 over the one link 1→0; weights in SRAM and aggregation on chiplet 0, so no
  // other traffic crosses a link.
  const std::vector<replica> r{{0, 0, 0, sram[0], 1}, {0, 1, 0, sram[1], 1}};
  const std::vector<token_group> g{{0, 0, 1, 0, 100}, {0, 1, 1, 0, 50}};
  const auto res = evaluate_layer(s, toy_shape(), g, r, {0, 1});
  // Both are released at T_gate; g0 is ahead (lower index). g1 waits exactly g0's transfer on
  // the shared link, 400 KB / 256 GB/s = 1.5625 µs; g0 does not wait for g1 (causality).
  CHECK(res.dispatch_wait[0].in(units::us) == Approx(0.0));
  CHECK(res.dispatch_wait[1].in(units::us) == Approx(400e3 / 256e9 * 1e6));
  CHECK(res.group_stages[0].dispatch.in(units::us) == Approx(lam + 400e3 / 256e9 * 1e6));
  CHECK(res.group_stages[1].dispatch.in(units::us) == Approx(lam + 200e3 / 256e9 * 1e6 + 400e3 / 256e9 * 1e6));
  SUBCASE("in the other order the 100-token group waits for the 50-token one") {
    const std::vector<token_group> swapped{g[1], g[0]};
    const auto res2 = evaluate_layer(s, toy_shape(), swapped, r, {1, 0});
    CHECK(res2.dispatch_wait[0].in(units::us) == Approx(0.0));
    CHECK(res2.dispatch_wait[1].in(units::us) == Approx(200e3 / 256e9 * 1e6));
  }
  SUBCASE("the opposite direction of the same link is another queue") {
    // g1 now dispatches 0→1 to a replica on chiplet 1 (SRAM of the one group), aggregated there.
    const std::vector<replica> r2{{0, 0, 0, sram[0], 1}, {0, 1, 1, sram[1], 1}};
    const std::vector<token_group> g2{{0, 0, 1, 0, 100}, {0, 1, 0, 1, 50}};
    const auto res2 = evaluate_layer(s, toy_shape(), g2, r2, {0, 1});
    CHECK(res2.dispatch_wait[1].in(units::us) == Approx(0.0));
  }
  SUBCASE("a migration in flight delays a dispatch only when classes share the queue") {
    // 2 MB migrate from chiplet 1's local HBM to chiplet 0's over the same link 1→0.
    const auto hbm1 = s.banks_of(tier_kind::hbm, 1), hbm0 = s.banks_of(tier_kind::hbm, 0);
    const std::vector<migration> mig{{hbm1[0], hbm0[0], units::MB(2.0), true}};
    const auto per_class = evaluate_layer(s, toy_shape(), g, r, {0, 1}, {}, mig);
    CHECK(per_class.dispatch_wait[0].in(units::us) == Approx(0.0));
    critical_path_params cp;
    cp.arbitration = link_arbitration::shared;
    const auto shared = evaluate_layer(s, toy_shape(), g, r, {0, 1}, cp, mig);
    // The migration (released at the start of the layer) is ahead of g0: g0 waits its 2 MB
    // transfer minus the gate it was already waiting for.
    const double gate = 150 * 1e4 / chiplet_flops * 1e6;
    CHECK(shared.dispatch_wait[0].in(units::us) == Approx(2e6 / 256e9 * 1e6 - gate));
    CHECK(shared.dispatch_wait[1].in(units::us) == Approx(2e6 / 256e9 * 1e6 - gate + 400e3 / 256e9 * 1e6));
    CHECK(shared.t_moe > per_class.t_moe);
  }
}

TEST_CASE("causal banks: a stream waits only for the accesses ahead of it on its bank") {
  const auto s = two_by_two();
  const int hbm = s.banks_of(tier_kind::hbm, 0)[0];  // one pseudo-channel under chiplet 0
  // Two experts' replicas on chiplet 0 share that bank; both streams are released at the gate.
  const std::vector<token_group> g{{0, 0, 0, 0, 10}, {0, 1, 0, 0, 10}};
  const std::vector<replica> r{{0, 0, 0, hbm, 1}, {0, 1, 0, hbm, 1}};
  critical_path_params cp;
  cp.overlap = memory_overlap::dispatch_and_queue;
  const auto res = evaluate_layer(s, toy_shape(), g, r, {0, 1}, cp);
  const double gate = 20 * 1e4 / chiplet_flops * 1e6;
  const double one = 0.05 + 1e6 / 14.375e9 * 1e6;  // Eq. 10 for one 1 MB access
  CHECK(res.memory_ready[0].in(units::us) == Approx(gate + one));
  CHECK(res.memory_ready[1].in(units::us) == Approx(gate + 2 * one));  // behind replica 0's access
  // Eq. 11's layer bound charges the bank's whole 2 MB once: latency + 2 MB / BW.
  CHECK(res.t_bank.in(units::us) == Approx(0.05 + 2e6 / 14.375e9 * 1e6));
  SUBCASE("a migration on the bank is ahead of both") {
    const std::vector<migration> m{{hbm, s.banks_of(tier_kind::hbm, 0)[1], units::MB(1.0), true}};
    const auto res2 = evaluate_layer(s, toy_shape(), g, r, {0, 1}, cp, m);
    CHECK(res2.memory_ready[0].in(units::us) == Approx(std::max(gate, one) + one));
  }
}

TEST_CASE("migration routes count in T^net's route term (Eq. 8)") {
  const auto s = two_by_two();
  const int sram = s.banks_of(tier_kind::sram)[0];
  // Foreground: a local group on chiplet 0 with SRAM weights: no link traffic.
  const std::vector<token_group> g{{0, 0, 0, 0, 10}};
  const std::vector<replica> r{{0, 0, 0, sram, 1}};
  const auto quiet = evaluate_layer(s, toy_shape(), g, r, {0});
  CHECK(quiet.t_net.si() == 0.0);
  // 4 MB from a DRAM channel (behind IO chiplet 4 on chiplet 0) to chiplet 3's local HBM:
  // route 4→0→1→3, three links.
  const std::vector<migration> mig{{s.banks_of(tier_kind::dram)[0], s.banks_of(tier_kind::hbm, 3)[0], units::MB(4.0), true}};
  const auto res = evaluate_layer(s, toy_shape(), g, r, {0}, {}, mig);
  const double lam = lambda_ns * 1e-3;
  CHECK(res.t_net.in(units::us) == Approx(3 * (lam + 4e6 / 256e9 * 1e6)));
  double on_links = 0.0;
  for (std::size_t u = 0; u < s.links().size(); ++u) on_links += res.link_bytes[u * 4 + 3];
  CHECK(on_links == Approx(3 * 4e6));
  // A migration not executed (y_m = 0) is not a request.
  const std::vector<migration> idle{{mig[0].source_bank, mig[0].destination_bank, units::MB(4.0), false}};
  CHECK(evaluate_layer(s, toy_shape(), g, r, {0}, {}, idle).t_net.si() == 0.0);
}

TEST_CASE("HBM placement: chiplet-local weights skip the package links, behind-IO weights cross them") {
  // One 10-token group on chiplet 5 of the Table 1 package, its replica's weights striped over
  // the HBM pseudo-channels of one home.
  const std::vector<token_group> g{{0, 0, 5, 5, 10}};
  const auto shape = toy_shape();
  substrate_params lp;
  lp.hbm.stripe = 2;  // the earlier layout: 2 PCs (28.75 GB/s) under each chiplet
  const substrate local(lp);
  const auto mine = local.banks_of(tier_kind::hbm, 5);
  const auto a = evaluate_layer(local, shape, g, {{0, 0, 5, mine.front(), static_cast<int>(mine.size())}}, {0});
  substrate_params p;
  p.hbm_at = hbm_placement::behind_io;
  p.hbm.stripe = 0;
  const substrate io(p);  // 8 PCs (115 GB/s) behind IO chiplet 16, attached to chiplet 0
  const auto pool = io.banks_of(tier_kind::hbm, 16);
  const auto b = evaluate_layer(io, shape, g, {{0, 0, 5, pool.front(), static_cast<int>(pool.size())}}, {0});
  // Bank service (Eq. 10) per pseudo-channel of the span: 0.5 MB at 14.375 GB/s vs 125 kB.
  CHECK(a.t_bank.in(units::us) == Approx(0.05 + 0.5e6 / 14.375e9 * 1e6));
  CHECK(b.t_bank.in(units::us) == Approx(0.05 + 0.125e6 / 14.375e9 * 1e6));
  // Link loads: none locally; behind IO, 1 MB on each of IO→0, 0→1, 1→5.
  double la = 0.0, lb = 0.0;
  for (std::size_t u = 0; u < local.links().size(); ++u) la += a.link_load(static_cast<int>(u));
  for (std::size_t u = 0; u < io.links().size(); ++u) lb += b.link_load(static_cast<int>(u));
  CHECK(la == 0.0);
  CHECK(lb == Approx(3 * 1e6));
  CHECK(a.energy.d2d.si() == 0.0);
  CHECK(b.energy.d2d.in(units::uJ) == Approx(3e6 * 0.3e-12 * 8 * 1e6));
  // The memory route term of Eq. 12 appears only behind IO.
  CHECK(a.t_mem == a.t_bank);
  // Behind IO the route IO→0→1→5, 3·(λ + 1 MB / 256 GB/s) = 11.73 µs, exceeds the 8-PC bank
  // service (8.75 µs): the stream is route-bound.
  const double lam = lambda_ns * 1e-3;
  CHECK(b.t_mem.in(units::us) == Approx(3 * (lam + 1e6 / 256e9 * 1e6)));
  CHECK(a.memory_ready[0].si() == Approx(a.group_stages[0].gate.si() + a.t_bank.si()));
  CHECK(b.memory_ready[0].si() == Approx(b.group_stages[0].gate.si() + b.t_mem.si()));
}

TEST_CASE("tokens queue behind the work ahead of them at a replica") {
  const auto s = two_by_two();
  const int sram = s.banks_of(tier_kind::sram)[0];
  // Two groups of the same expert on one replica on chiplet 0, both local (no links).
  const std::vector<token_group> g{{0, 0, 0, 0, 100}, {0, 0, 0, 0, 100}};
  const std::vector<replica> one{{0, 0, 0, sram, 1}};
  const auto res = evaluate_layer(s, toy_shape(), g, one, {0, 0});
  const double comp = 100e6 / chiplet_flops * 1e6;
  CHECK(res.critical.queue.in(units::us) == Approx(comp));
  SUBCASE("a second replica on another chiplet removes the queue") {
    const int sram2 = s.banks_of(tier_kind::sram)[1];
    const std::vector<replica> two{{0, 0, 0, sram, 1}, {0, 0, 1, sram2, 1}};
    const auto res2 = evaluate_layer(s, toy_shape(), g, two, {0, 1});
    CHECK(res2.critical.queue.in(units::us) == Approx(0.0));
    CHECK(res2.t_moe < res.t_moe);
  }
}

TEST_CASE("random placements keep the invariants of Eq. 5-12") {
  const substrate s;
  std::mt19937_64 rng(42);
  for (int trial = 0; trial < 20; ++trial) {
    CAPTURE(trial);
    const int experts = 8;
    std::vector<replica> reps;
    std::vector<std::vector<int>> of(experts);
    for (int e = 0; e < experts; ++e) {
      const int copies = 1 + static_cast<int>(rng() % 3);
      for (int c = 0; c < copies; ++c) {
        const int chiplet = static_cast<int>(rng() % 16);
        const bool use_sram = rng() % 2 == 0;
        const auto pool = use_sram ? s.banks_of(tier_kind::sram, s.group_of(chiplet)) : s.banks_of(tier_kind::hbm);
        of[static_cast<std::size_t>(e)].push_back(static_cast<int>(reps.size()));
        reps.push_back({0, e, chiplet, pool[rng() % pool.size()], 1});
      }
    }
    std::vector<token_group> groups;
    std::vector<int> assign;
    for (int i = 0; i < 40; ++i) {
      const int e = static_cast<int>(rng() % experts);
      groups.push_back({0, e, static_cast<int>(rng() % 16), static_cast<int>(rng() % 16), 1 + static_cast<int>(rng() % 64)});
      const auto& cands = of[static_cast<std::size_t>(e)];
      assign.push_back(cands[rng() % cands.size()]);
    }
    const auto shape = toy_shape();
    const auto res = evaluate_layer(s, shape, groups, reps, assign);
    const auto again = evaluate_layer(s, shape, groups, reps, assign);
    CHECK(again.t_moe == res.t_moe);  // deterministic
    // Link loads equal the sums of the requests crossing them (dispatch + gather classes).
    std::vector<double> expect(s.links().size(), 0.0);
    for (std::size_t g = 0; g < groups.size(); ++g) {
      const int c = reps[static_cast<std::size_t>(assign[g])].chiplet;
      for (int u : s.route(groups[g].source, c)) expect[static_cast<std::size_t>(u)] += groups[g].tokens * 4e3;
      for (int u : s.route(c, groups[g].aggregate)) expect[static_cast<std::size_t>(u)] += groups[g].tokens * 4e3;
    }
    for (std::size_t u = 0; u < expect.size(); ++u) {
      CHECK(res.link_bytes[u * 4] + res.link_bytes[u * 4 + 1] == Approx(expect[u]));
    }
    // Bank traffic: one weight stream per active replica.
    double bank_total = 0.0;
    int active = 0;
    for (std::size_t b = 0; b < s.banks().size(); ++b) bank_total += res.bank_load(static_cast<int>(b));
    for (double n : res.replica_tokens) active += n > 0.0 ? 1 : 0;
    CHECK(bank_total == Approx(active * 1e6));
    // Latency is never below the pure-bandwidth bound of any foreground class on any link
    // (per-class queues: each class's queue on u drains its own bytes).
    for (std::size_t u = 0; u < expect.size(); ++u) {
      for (std::size_t k = 0; k < 3; ++k) {
        CHECK(res.t_moe.si() >= res.link_bytes[u * 4 + k] / s.links()[u].bandwidth.si() * (1 - 1e-12));
      }
    }
    CHECK(res.t_moe >= res.t_bank);
    CHECK(res.t_moe >= res.t_comp);
    CHECK(res.critical.total().si() == Approx(res.t_moe.si()));
    // Cores on a chiplet never exceed its 16 (Eq. 4).
    std::vector<int> used(16, 0);
    for (std::size_t r = 0; r < reps.size(); ++r) used[static_cast<std::size_t>(reps[r].chiplet)] += res.replica_cores[r];
    for (int u : used) CHECK(u <= 16);
    // Eq. 3, 4 and 21 hold for every random input.
    const auto v = constraint_violations(s, groups, reps, assign, res);
    CHECK_MESSAGE(v.empty(), (v.empty() ? std::string() : v.front()));
  }
}

TEST_CASE("migration is allowed only under the link utilisation threshold (Eq. 40)") {
  const auto s = two_by_two();
  const int sram = s.banks_of(tier_kind::sram)[0];
  const std::vector<token_group> g{{0, 0, 1, 1, 1000}};  // 4 MB dispatched 1→0, gathered 0→1
  const std::vector<replica> r{{0, 0, 0, sram, 1}};
  const auto res = evaluate_layer(s, toy_shape(), g, r, {0});
  const auto path = s.route(0, 1);
  // Window 100 µs: link 0→1 moves 25.6 MB at full rate; foreground 4 MB = 15.6 %.
  CHECK(migration_allowed(s, res, path, units::MB(1.0), units::us(100.0), 0.5));
  CHECK_FALSE(migration_allowed(s, res, path, units::MB(12.0), units::us(100.0), 0.5));
}

TEST_CASE("a bad assignment raises config_error (routing correctness, Eq. 21)") {
  const auto s = two_by_two();
  const int sram = s.banks_of(tier_kind::sram)[0];
  const std::vector<token_group> g{{0, 1, 0, 0, 10}};
  const std::vector<replica> r{{0, 0, 0, sram, 1}};
  CHECK_THROWS_AS((void)evaluate_layer(s, toy_shape(), g, r, {0}), config_error);  // wrong expert
  CHECK_THROWS_AS((void)evaluate_layer(s, toy_shape(), g, r, {}), config_error);   // missing
  const std::vector<token_group> ok{{0, 0, 0, 0, 10}};
  substrate_params p;  // default 4x4: SRAM of group 0 is not visible from chiplet 2
  const substrate big(p);
  const std::vector<replica> far{{0, 0, 2, big.banks_of(tier_kind::sram, 0)[0], 1}};
  CHECK_THROWS_AS((void)evaluate_layer(big, toy_shape(), ok, far, {0}), config_error);
}

TEST_CASE("a layer's first error names the group, then the replica, whatever the group order") {
  // The checks run group by group, then replica by replica: a replica off the mesh used by
  // group 0 is reported only when no later group is bad.
  const auto s = two_by_two();
  const int sram = s.banks_of(tier_kind::sram)[0];
  const std::vector<replica> r{{0, 0, 7, sram, 1}, {0, 1, 0, sram, 1}};
  const std::vector<token_group> bad_tokens{{0, 0, 0, 0, 10}, {0, 1, 0, 0, -3}};
  CHECK_THROWS_WITH_AS((void)evaluate_layer(s, toy_shape(), bad_tokens, r, {0, 1}),
                       doctest::Contains("groups[1].tokens"), config_error);
  const std::vector<token_group> bad_source{{0, 0, 0, 0, 10}, {0, 1, 9, 0, 4}};
  CHECK_THROWS_WITH_AS((void)evaluate_layer(s, toy_shape(), bad_source, r, {0, 1}),
                       doctest::Contains("groups[1].source"), config_error);
  const std::vector<token_group> good{{0, 0, 0, 0, 10}, {0, 1, 1, 0, 4}};
  CHECK_THROWS_WITH_AS((void)evaluate_layer(s, toy_shape(), good, r, {0, 1}),
                       doctest::Contains("replicas[0].chiplet"), config_error);
  const std::vector<replica> fine{{0, 0, 0, sram, 1}, {0, 1, 0, sram, 1}};
  CHECK(evaluate_layer(s, toy_shape(), good, fine, {0, 1}).t_moe.si() > 0.0);
}

TEST_CASE("constraint_violations reports a broken assignment and core allocation") {
  const auto s = two_by_two();
  const int sram = s.banks_of(tier_kind::sram)[0];
  const std::vector<token_group> g{{0, 0, 0, 0, 10}};
  const std::vector<replica> r{{0, 0, 0, sram, 1}, {0, 0, 1, sram + 1, 1}};
  auto res = evaluate_layer(s, toy_shape(), g, r, {0});
  CHECK(constraint_violations(s, g, r, {0}, res).empty());
  CHECK(res.replica_cores[0] == 16);  // the only active replica on chiplet 0 takes all cores
  CHECK(res.replica_cores[1] == 0);
  res.replica_cores[1] = 2;  // an idle replica holding cores breaks Eq. 4
  CHECK(constraint_violations(s, g, r, {0}, res).size() == 1);
  res.replica_cores[1] = 0;
  res.replica_cores[0] = 17;  // more cores than the chiplet has: the replica's and the chiplet's Eq. 4
  const auto over = constraint_violations(s, g, r, {0}, res);
  REQUIRE(over.size() == 2);
  CHECK(over[0] == "Eq. 4: active replica 0 has 17 cores");
  CHECK(over[1] == "Eq. 4: chiplet 0 allocates 17 cores");
  res.replica_cores[0] = 16;
  CHECK_FALSE(constraint_violations(s, g, r, {1}, res).empty());  // Eq. 3: replica 1 has the group
}

TEST_CASE("the per-term closed forms of Eq. 7, 10 and 13 differentiate with autodiff") {
  using boost::math::differentiation::make_fvar;
  using F = boost::math::differentiation::autodiff_fvar<double, 1>;
  // Eq. 10 for 1 MB on a 14.375 GB/s bank: d(T)/d(BW) = −Q / BW².
  const F bw = make_fvar<double, 1>(14.375e9);
  const auto t = bank_service_time(data_size<F>(units::MB(1.0)), duration<F>(units::ns(50.0)), bandwidth<F>::from_si(bw));
  CHECK(t.si().derivative(1) == Approx(-1e6 / (14.375e9 * 14.375e9)));
  CHECK(bank_service_time(data_size<>{}, units::ns(50.0), units::GBps(1.0)).si() == 0.0);  // no traffic, no latency
  // Eq. 7 for one link: d(T)/d(D) = 1 / B.
  const F bytes = make_fvar<double, 1>(4e3);
  const auto r = link_time(duration<F>(units::ns(5.0)), bandwidth<F>(units::GBps(256.0)), data_size<F>::from_si(bytes));
  CHECK(r.si().derivative(1) == Approx(1.0 / 256e9));
  // Eq. 13: d(T)/d(k) = −Ops / (k² · Π · η).
  const F k = make_fvar<double, 1>(4.0);
  const auto c = replica_compute_time(op_count<F>(units::flop(1e9)), k, op_rate<F>(units::Gflops(512.0)), F(0.8));
  CHECK(c.si().derivative(0) == Approx(1e9 / (4 * 512e9 * 0.8)));
  CHECK(c.si().derivative(1) == Approx(-1e9 / (16 * 512e9 * 0.8)));
}

namespace {
// A random layer on the Table 1 package (or a variant): 8 experts with 1–3 replicas on random
// chiplets in SRAM, HBM or DRAM, 40 groups, and 0–2 migrations between random banks.
struct random_layer {
  std::vector<replica> reps;
  std::vector<token_group> groups;
  std::vector<int> assign;
  std::vector<migration> migs;
};
random_layer make_random_layer(const substrate& s, std::mt19937_64& rng) {
  random_layer L;
  const int experts = 8, nc = s.chiplets();
  std::vector<std::vector<int>> of(experts);
  for (int e = 0; e < experts; ++e) {
    const int copies = 1 + static_cast<int>(rng() % 3);
    for (int c = 0; c < copies; ++c) {
      const int chiplet = static_cast<int>(rng() % static_cast<unsigned>(nc));
      const auto t = static_cast<tier_kind>(rng() % 3);
      const auto pool = t == tier_kind::sram ? s.banks_of(t, s.group_of(chiplet)) : s.banks_of(t);
      of[static_cast<std::size_t>(e)].push_back(static_cast<int>(L.reps.size()));
      L.reps.push_back({0, e, chiplet, pool[rng() % pool.size()], 1});
    }
  }
  for (int i = 0; i < 40; ++i) {
    const int e = static_cast<int>(rng() % experts);
    L.groups.push_back({0, e, static_cast<int>(rng() % static_cast<unsigned>(nc)),
                        static_cast<int>(rng() % static_cast<unsigned>(nc)), static_cast<int>(rng() % 64)});
    const auto& cands = of[static_cast<std::size_t>(e)];
    L.assign.push_back(cands[rng() % cands.size()]);
  }
  const auto nb = s.banks().size();
  for (int m = static_cast<int>(rng() % 3); m > 0; --m) {
    L.migs.push_back({static_cast<int>(rng() % nb), static_cast<int>(rng() % nb), units::MB(double(rng() % 4)), true});
  }
  return L;
}
bool all_finite(const layer_result& r) {
  bool ok = std::isfinite(r.t_moe.si()) && std::isfinite(r.t_net.si()) && std::isfinite(r.t_mem.si()) &&
            std::isfinite(r.energy.total().si()) && std::isfinite(r.pressure.link) && std::isfinite(r.pressure.load);
  for (const auto& c : r.completion) ok = ok && std::isfinite(c.si());
  for (const auto& st : r.group_stages) {
    for (const auto d : {st.gate, st.dispatch, st.queue, st.memory, st.compute, st.gather, st.combine}) {
      ok = ok && std::isfinite(d.si()) && d.si() >= -1e-18;
    }
  }
  return ok;
}
}  // namespace

TEST_CASE("property: more link bandwidth is never slower, for every arbitration and overlap") {
  for (const auto hbm : {hbm_placement::chiplet_local, hbm_placement::behind_io}) {
    substrate_params p;
    p.hbm_at = hbm;
    const substrate slow(p);
    std::mt19937_64 rng(7);
    for (int trial = 0; trial < 40; ++trial) {
      CAPTURE(trial);
      const auto L = make_random_layer(slow, rng);
      const double factor = 1.0 + double(rng() % 8);
      substrate_params q = p;
      q.d2d.bandwidth = q.d2d.bandwidth * factor;
      q.io_link.bandwidth = q.io_link.bandwidth * (1.0 + double(rng() % 8));
      const substrate fast(q);
      for (const auto arb : {link_arbitration::per_class, link_arbitration::shared}) {
        for (const auto ov : {memory_overlap::compute_only, memory_overlap::dispatch_and_queue}) {
          critical_path_params cp;
          cp.arbitration = arb;
          cp.overlap = ov;
          const auto a = evaluate_layer(slow, toy_shape(), L.groups, L.reps, L.assign, cp, L.migs);
          const auto b = evaluate_layer(fast, toy_shape(), L.groups, L.reps, L.assign, cp, L.migs);
          CHECK(b.t_moe.si() <= a.t_moe.si() * (1 + 1e-12));
          CHECK(b.t_net.si() <= a.t_net.si() * (1 + 1e-12));
          CHECK(all_finite(a));
          CHECK(all_finite(b));
        }
      }
    }
  }
}

namespace {
// Every number of a layer's result, bit for bit (memcmp of the doubles: -0 and +0 differ too).
void check_identical(const layer_result& a, const layer_result& b) {
  const auto same = [](double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; };
  const auto stages = [](const stage_times& s) {
    return std::array{s.gate.si(), s.dispatch.si(), s.queue.si(), s.memory.si(), s.compute.si(), s.gather.si(), s.combine.si()};
  };
  CHECK(same(a.t_moe.si(), b.t_moe.si()));
  CHECK(a.critical_group == b.critical_group);
  CHECK(stages(a.critical) == stages(b.critical));
  for (const auto& [x, y] : {std::pair{a.t_net, b.t_net}, std::pair{a.t_bank, b.t_bank}, std::pair{a.t_mem, b.t_mem},
                            std::pair{a.t_comp, b.t_comp}}) {
    CHECK(same(x.si(), y.si()));
  }
  REQUIRE(a.completion.size() == b.completion.size());
  for (std::size_t g = 0; g < a.completion.size(); ++g) {
    CHECK(same(a.completion[g].si(), b.completion[g].si()));
    CHECK(same(a.dispatch_wait[g].si(), b.dispatch_wait[g].si()));
    CHECK(same(a.gather_wait[g].si(), b.gather_wait[g].si()));
    for (std::size_t i = 0; i < 7; ++i) CHECK(same(stages(a.group_stages[g])[i], stages(b.group_stages[g])[i]));
  }
  CHECK(std::memcmp(a.link_bytes.data(), b.link_bytes.data(), a.link_bytes.size() * sizeof(double)) == 0);
  CHECK(std::memcmp(a.bank_bytes.data(), b.bank_bytes.data(), a.bank_bytes.size() * sizeof(double)) == 0);
  CHECK(a.replica_tokens == b.replica_tokens);
  CHECK(a.replica_cores == b.replica_cores);
  REQUIRE(a.memory_ready.size() == b.memory_ready.size());
  for (std::size_t r = 0; r < a.memory_ready.size(); ++r) CHECK(same(a.memory_ready[r].si(), b.memory_ready[r].si()));
  for (const auto& [x, y] : {std::pair{a.energy.compute, b.energy.compute}, std::pair{a.energy.noc, b.energy.noc},
                            std::pair{a.energy.d2d, b.energy.d2d}, std::pair{a.energy.sram, b.energy.sram},
                            std::pair{a.energy.hbm, b.energy.hbm}, std::pair{a.energy.dram, b.energy.dram},
                            std::pair{a.energy.migration, b.energy.migration}, std::pair{a.energy.gate, b.energy.gate}}) {
    CHECK(same(x.si(), y.si()));
  }
  CHECK(same(a.pressure.load, b.pressure.load));
  CHECK(same(a.pressure.link, b.pressure.link));
  CHECK(same(a.pressure.bank, b.pressure.bank));
  CHECK(same(a.pressure.mig, b.pressure.mig));
}
}  // namespace

TEST_CASE("the workspace evaluation equals the former one bit for bit, one workspace across layers") {
  // Random layers (SRAM, HBM and DRAM replicas, migrations) on both HBM placements, every
  // arbitration and overlap, with and without PIM bank shares; one workspace and one result
  // reused across all of them, so nothing one layer leaves behind may change the next.
  layer_workspace ws;
  layer_result out;
  for (const auto hbm : {hbm_placement::chiplet_local, hbm_placement::behind_io}) {
    substrate_params p;
    p.hbm_at = hbm;
    const substrate s(p);
    std::mt19937_64 rng(23);
    for (int trial = 0; trial < 30; ++trial) {
      CAPTURE(trial);
      auto L = make_random_layer(s, rng);
      if (trial % 3 == 0) {  // equal tokens and routes: ties in arrival and release, broken by index
        for (auto& g : L.groups) g.tokens = 8;
      }
      std::vector<double> share;
      if (trial % 2 == 1) {
        for (std::size_t b = 0; b < s.banks().size(); ++b) share.push_back(0.25 + 0.75 * double(rng() % 4) / 3.0);
      }
      for (const auto arb : {link_arbitration::per_class, link_arbitration::shared}) {
        for (const auto ov : {memory_overlap::compute_only, memory_overlap::dispatch_and_queue}) {
          critical_path_params cp;
          cp.arbitration = arb;
          cp.overlap = ov;
          const auto before = reference::evaluate_layer_reference(s, toy_shape(), L.groups, L.reps, L.assign, cp, L.migs, share);
          evaluate_layer_into(out, ws, s, toy_shape(), L.groups, L.reps, L.assign, cp, L.migs, share);
          check_identical(before, out);
          check_identical(before, evaluate_layer(s, toy_shape(), L.groups, L.reps, L.assign, cp, L.migs, share));
        }
      }
    }
  }
}

TEST_CASE("a workspace moved between substrates of one chiplet count evaluates bit for bit as the former evaluation") {
  // The workspace keeps the chiplet-pair routes of its substrate: a 4 x 4, an 8 x 2 and a 2 x 8
  // mesh have the same 16 x 16 pairs with other routes, and a faster D2D link the same routes
  // with other hops; alternating between them must never reuse a route of another substrate.
  std::vector<substrate_params> ps(4);
  ps[1].mesh_x = 8;
  ps[1].mesh_y = 2;
  ps[2].mesh_x = 2;
  ps[2].mesh_y = 8;
  ps[3].d2d.bandwidth = ps[3].d2d.bandwidth * 3.0;
  std::vector<substrate> subs;
  for (const auto& p : ps) subs.emplace_back(p);
  layer_workspace ws;
  layer_result out;
  std::mt19937_64 rng(41);
  for (int trial = 0; trial < 24; ++trial) {
    CAPTURE(trial);
    const auto& s = subs[static_cast<std::size_t>(trial) % subs.size()];
    REQUIRE(s.chiplets() == 16);
    const auto L = make_random_layer(s, rng);
    critical_path_params cp;
    cp.arbitration = trial % 2 == 0 ? link_arbitration::per_class : link_arbitration::shared;
    evaluate_layer_into(out, ws, s, toy_shape(), L.groups, L.reps, L.assign, cp, L.migs);
    check_identical(reference::evaluate_layer_reference(s, toy_shape(), L.groups, L.reps, L.assign, cp, L.migs), out);
  }
}

TEST_CASE("DeepSeek-V3 decode layers evaluate bit for bit as the former evaluation, loads taken per pair or per request") {
  // The benchmark's window (512 decode tokens, 256 experts, top-8: ~1 800 groups per layer) on
  // a few layers: weights behind the IO chiplets (span of a DRAM home) or one HBM bank each,
  // with migrations in flight, every arbitration and overlap; with an integer activation size
  // the link loads are summed per chiplet pair (exact), with a fractional one per request.
  trace_gen_params tp;
  tp.layers = 3;
  tp.experts = 256;
  tp.k = 8;
  tp.sequences = 512;
  tp.min_length = 1;
  tp.max_length = 1;
  const auto trace = generate_trace(tp);
  const substrate s;
  const auto m = preset("DeepSeek-V3");
  const auto shape = moe_shape(m);
  REQUIRE(shape.token_bytes.si() == std::floor(shape.token_bytes.si()));
  auto fractional = shape;
  fractional.token_bytes = data_size<>::from_si(shape.token_bytes.si() + 0.3);
  const auto groups = token_groups(trace, s.chiplets(), window_tokens{0, 512});
  const auto hbm = s.banks_of(tier_kind::hbm);
  const std::vector<migration> migs{{0, 40, units::MB(3.0), true}, {5, 70, units::MB(1.5), true}};
  layer_workspace ws;
  layer_result out;
  for (std::size_t l = 0; l < groups.size(); ++l) {
    CAPTURE(l);
    CHECK(groups[l].size() > 1500);
    std::vector<replica> dram_reps, hbm_reps;
    for (int e = 0; e < m.experts; ++e) {
      const auto dram = s.banks_of(tier_kind::dram, s.chiplets() + e % s.io_chiplets());
      dram_reps.push_back({static_cast<int>(l), e, e % s.chiplets(), dram.front(), static_cast<int>(dram.size())});
      hbm_reps.push_back({static_cast<int>(l), e, e % s.chiplets(), hbm[static_cast<std::size_t>(e) % hbm.size()], 1});
    }
    std::vector<int> assign;
    for (const auto& g : groups[l]) assign.push_back(g.expert);
    for (const auto arb : {link_arbitration::per_class, link_arbitration::shared}) {
      for (const auto ov : {memory_overlap::compute_only, memory_overlap::dispatch_and_queue}) {
        critical_path_params cp;
        cp.arbitration = arb;
        cp.overlap = ov;
        for (const auto* sh : {&shape, static_cast<const moe_layer_shape*>(&fractional)}) {
          evaluate_layer_into(out, ws, s, *sh, groups[l], dram_reps, assign, cp);
          check_identical(reference::evaluate_layer_reference(s, *sh, groups[l], dram_reps, assign, cp), out);
          evaluate_layer_into(out, ws, s, *sh, groups[l], hbm_reps, assign, cp, migs);
          check_identical(reference::evaluate_layer_reference(s, *sh, groups[l], hbm_reps, assign, cp, migs), out);
        }
      }
    }
  }
}

TEST_CASE("sort_by_time orders (time, index) pairs as a comparison sort does, for spread, crowded, equal and negative times") {
  std::mt19937_64 rng(5);
  std::vector<std::pair<double, std::size_t>> v, tmp;
  std::vector<std::size_t> count, bucket;
  const auto earlier = [](const auto& a, const auto& b) { return a.first < b.first || (a.first == b.first && a.second < b.second); };
  for (int trial = 0; trial < 48; ++trial) {
    CAPTURE(trial);
    const std::size_t n = 1 + rng() % 3000;
    v.clear();
    for (std::size_t i = 0; i < n; ++i) {
      double t = 1e-6 * double(rng() % 1000000) / 1e6;  // spread
      if (trial % 6 == 1) t = 1e-6 + 1e-18 * double(rng() % 64);  // crowded into a few buckets
      if (trial % 6 == 2) t = (rng() % 8 == 0) ? 1e-3 : 1e-6 * double(rng() % 1000);  // an outlier, equal times
      if (trial % 6 == 3 && i == 0) t = trial % 12 == 3 ? HUGE_VAL : 1e200;  // one bucket for the rest, or none
      if (trial % 6 == 4) t = 1e-6 * (double(rng() % 200) - 100.0);  // negative times, -0 and +0 equal
      if (trial % 6 == 5) t = double(i % 2) * 1e-310;  // a range too small to scale
      if (trial % 6 == 4 && i % 7 == 0) t = i % 14 == 0 ? -0.0 : 0.0;
      v.emplace_back(t, i);  // listed in index order, as the caller lists them
    }
    auto expected = v;
    std::sort(expected.begin(), expected.end(), earlier);
    if ((trial / 6) % 2 == 0) {  // the least and greatest times taken, or given
      detail::sort_by_time(v, tmp, count, bucket);
    } else {
      const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
      detail::sort_by_time(v, tmp, count, bucket, lo->first, hi->first);
    }
    REQUIRE(v.size() == expected.size());
    bool same_order = true;
    for (std::size_t i = 0; i < v.size(); ++i) same_order = same_order && v[i].second == expected[i].second;
    CHECK(same_order);
  }
}

TEST_CASE("property: bytes on links equal bytes sent, per class (Eq. 5), and energy is non-negative") {
  const substrate s;
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 30; ++trial) {
    CAPTURE(trial);
    const auto L = make_random_layer(s, rng);
    critical_path_params cp;
    cp.arbitration = trial % 2 == 0 ? link_arbitration::per_class : link_arbitration::shared;
    const auto res = evaluate_layer(s, toy_shape(), L.groups, L.reps, L.assign, cp, L.migs);
    // Sent: each request's bytes times the links of its route.
    std::array<double, 4> sent{}, carried{};
    std::vector<bool> active(L.reps.size(), false);
    for (std::size_t g = 0; g < L.groups.size(); ++g) {
      if (L.groups[g].tokens == 0) continue;
      const auto& rp = L.reps[static_cast<std::size_t>(L.assign[g])];
      active[static_cast<std::size_t>(L.assign[g])] = true;
      sent[0] += L.groups[g].tokens * 4e3 * double(s.hops(L.groups[g].source, rp.chiplet));
      sent[1] += L.groups[g].tokens * 4e3 * double(s.hops(rp.chiplet, L.groups[g].aggregate));
    }
    double bank_fg = 0.0, bank_mig = 0.0, mig_bytes = 0.0;
    for (std::size_t r = 0; r < L.reps.size(); ++r) {
      if (active[r]) sent[2] += 1e6 * double(s.memory_path(L.reps[r].bank, L.reps[r].chiplet).size());
      if (active[r]) bank_fg += 1e6;
    }
    for (const auto& m : L.migs) {
      sent[3] += m.bytes.si() * double(s.hops(s.bank_node(m.source_bank), s.bank_node(m.destination_bank)));
      mig_bytes += 2 * m.bytes.si();
    }
    for (std::size_t u = 0; u < s.links().size(); ++u) {
      for (std::size_t k = 0; k < 4; ++k) carried[k] += res.link_bytes[u * 4 + k];
    }
    for (std::size_t k = 0; k < 4; ++k) CHECK(carried[k] == Approx(sent[k]));
    for (std::size_t b = 0; b < s.banks().size(); ++b) {
      bank_fg -= res.bank_bytes[b * 2];
      bank_mig += res.bank_bytes[b * 2 + 1];
    }
    CHECK(bank_fg == Approx(0.0).epsilon(1e-9).scale(1e6));
    CHECK(bank_mig == Approx(mig_bytes));
    // D2D energy is exactly the carried bytes at 0.3 pJ/bit (every link is UCIe-class).
    CHECK(res.energy.d2d.si() == Approx((carried[0] + carried[1] + carried[2] + carried[3]) * 0.3e-12 * 8));
    for (const auto e : {res.energy.compute, res.energy.noc, res.energy.d2d, res.energy.sram, res.energy.hbm,
                         res.energy.dram, res.energy.migration, res.energy.gate}) {
      CHECK(e.si() >= 0.0);
    }
    CHECK(all_finite(res));
    // Every group's stages sum to its completion (Eq. 14).
    for (std::size_t g = 0; g < L.groups.size(); ++g) {
      CHECK(res.group_stages[g].total().si() == Approx(res.completion[g].si()).epsilon(1e-12));
    }
    // With one queue per link for all classes no link carries more than B_u: latency is at least
    // every link's foreground drain.
    if (cp.arbitration == link_arbitration::shared) {
      for (std::size_t u = 0; u < s.links().size(); ++u) {
        const double fg = res.link_bytes[u * 4] + res.link_bytes[u * 4 + 1] + res.link_bytes[u * 4 + 2];
        CHECK(res.t_moe.si() >= fg / s.links()[u].bandwidth.si() * (1 - 1e-12));
      }
    }
  }
}

TEST_CASE("extreme but valid inputs stay finite; out-of-range ones raise config_error naming the field") {
  const auto s = two_by_two();
  const int dram = s.banks_of(tier_kind::dram)[0];
  // 2^31 − 1 tokens of a DeepSeek-V3-sized expert (44 MB, 7168-wide activations).
  const moe_layer_shape big{units::MB(44.0), units::flop(2.0 * 3 * 7168 * 2048), units::KB(14.336),
                            units::flop(2.0 * 7168 * 256), units::flop(2.0 * 7168 * 8), 8};
  const std::vector<token_group> g{{0, 0, 1, 2, 2147483647}};
  const std::vector<replica> r{{0, 0, 3, dram, 1}};
  const auto res = evaluate_layer(s, big, g, r, {0});
  CHECK(all_finite(res));
  CHECK(res.t_moe.si() > 0.0);
  auto throws_on = [&](const moe_layer_shape& shape, const critical_path_params& cp, const std::vector<migration>& m,
                       const char* field) {
    CAPTURE(field);
    try {
      (void)evaluate_layer(s, shape, g, r, {0}, cp, m);
      FAIL("no config_error");
    } catch (const config_error& e) {
      CHECK(e.field() == field);
    }
  };
  auto shape = toy_shape();
  shape.weight_bytes = units::B(1e300);
  throws_on(shape, {}, {}, "shape.weight_bytes");
  shape = toy_shape();
  shape.token_bytes = units::B(-1.0);
  throws_on(shape, {}, {}, "shape.token_bytes");
  critical_path_params cp;
  cp.window = units::s(4.9e-324);
  throws_on(toy_shape(), cp, {}, "window");
  cp = {};
  cp.compute_scale = 1e300;
  throws_on(toy_shape(), cp, {}, "compute_scale");
  cp = {};
  cp.alpha_mig = 2.0;
  throws_on(toy_shape(), cp, {}, "alpha_mig");
  throws_on(toy_shape(), {}, {{dram, dram + 1, units::B(1e300), true}}, "migrations[0].bytes");
}

TEST_CASE("critical-path knobs round-trip through JSON with the enums by name") {
  critical_path_params cp;
  cp.overlap = memory_overlap::dispatch_and_queue;
  cp.arbitration = link_arbitration::shared;
  const json j = cp;
  CHECK(j["memory_overlap"] == "dispatch_and_queue");
  CHECK(j["link_arbitration"] == "shared");
  const auto back = j.get<critical_path_params>();
  CHECK(back.overlap == memory_overlap::dispatch_and_queue);
  CHECK(back.arbitration == link_arbitration::shared);
  CHECK(json::parse("{}").get<critical_path_params>().overlap == memory_overlap::compute_only);
  CHECK_THROWS_AS((void)json::parse(R"({"memory_overlap": "all"})").get<critical_path_params>(), config_error);
}
