// Tests of Stratum's expert placement, Algorithm 1 (Stratum §5.2, Fig. 11), the row plan of the
// data classes and the per-tier traffic, on Mono3D tiers and on HCRMap's package tiers.
#include "strata/stratum/placement.hpp"

#include <doctest/doctest.h>

#include <algorithm>  // std::sort
#include <cstdint>    // std::uint64_t
#include <numeric>    // std::accumulate
#include <random>     // std::mt19937_64
#include <string>     // std::string
#include <vector>     // std::vector

#include "strata/chiplet/substrate.hpp"
#include "strata/core/json.hpp"
#include "strata/device/mono3d.hpp"
#include "strata/stratum/usage.hpp"
#include "strata/workload/model.hpp"
#include "strata/workload/presets.hpp"
#include "strata/workload/trace_io.hpp"
#include "support/field_of.hpp"
#include "support/scalars.hpp"

using namespace strata;
using strata_test::field_of;

namespace {

// The hand case: L = 2, E = 4, A = 1, one bank of 1 KiB rows, S_w = 3 KiB (Δ = 3), Φ = 30.
expert_placement_params<> hand_params() {
  return {.layers = 2, .experts = 4, .active = 1, .expert_bytes = units::KiB(3.0), .banks = 1,
          .row_buffer = units::KiB(1.0), .phi = 30};
}
// Σ_e f = A = 1 per layer.
const usage_table hand_f = {{0.1, 0.6, 0.2, 0.1}, {0.4, 0.1, 0.4, 0.1}};

// Tiers of 8, 12 and 10 rows for the hand case (one bank, 1 KiB rows).
std::vector<memory_tier<>> hand_tiers() {
  return {{"fast", units::KiB(8.0), units::GBps(100.0), units::ns(10.0), units::pJ_per_B(1.0), 1},
          {"mid", units::KiB(12.0), units::GBps(80.0), units::ns(20.0), units::pJ_per_B(2.0), 1},
          {"slow", units::KiB(10.0), units::GBps(50.0), units::ns(30.0), units::pJ_per_B(3.0), 1}};
}

// `chips` default Mono3D chips side by side: capacity, bandwidth and banks scale (Stratum-L: 6).
std::vector<memory_tier<>> mono3d_system_tiers(int chips) {
  const mono3d_params<> p;
  auto tiers = memory_tiers(p, evaluate(p));
  for (auto& t : tiers) {
    t.capacity = t.capacity * static_cast<double>(chips);
    t.bandwidth = t.bandwidth * static_cast<double>(chips);
    t.banks *= chips;
  }
  return tiers;
}

// HCRMap's package as three tiers, totals over the package (HCRMap Table 1 via substrate_params):
// SRAM = one chiplet_tier_spec per chiplet group, HBM and DRAM are already package totals.
std::vector<memory_tier<>> hcrmap_package_tiers() {
  const substrate_params s;
  const int group_count = (s.mesh_x / s.group_x) * (s.mesh_y / s.group_y);  // 2 x 2 groups of 2 x 2 chiplets
  const double groups = static_cast<double>(group_count);
  return {{"sram", s.sram.capacity * groups, s.sram.bandwidth * groups, s.sram.latency, s.sram.energy,
           static_cast<int>(s.sram.banks * groups)},
          {"hbm", s.hbm.capacity, s.hbm.bandwidth, s.hbm.latency, s.hbm.energy, s.hbm.banks},
          {"dram", s.dram.capacity, s.dram.bandwidth, s.dram.latency, s.dram.energy, s.dram.banks}};
}

// Checks the invariants of a feasible layout: one interval of Δ rows per expert, inside [0, Φ),
// no two overlapping, the K fast ones packed from row 0 in sorted order.
void check_layout_invariants(const expert_layout& a) {
  REQUIRE(a.feasible);
  const std::size_t n = static_cast<std::size_t>(a.layers) * static_cast<std::size_t>(a.experts);
  REQUIRE(a.intervals.size() == n);
  std::vector<row_interval> iv = a.intervals;
  for (const auto& x : iv) {
    CHECK(x.rows() == a.delta);
    CHECK(x.first >= 0);
    CHECK(x.last < a.phi);
  }
  std::sort(iv.begin(), iv.end(), [](const row_interval& p, const row_interval& q) { return p.first < q.first; });
  for (std::size_t i = 1; i < iv.size(); ++i) CHECK(iv[i].first > iv[i - 1].last);
  for (long long i = 0; i < a.fast; ++i) {
    CHECK(a.intervals[static_cast<std::size_t>(a.order[static_cast<std::size_t>(i)])].first == i * a.delta);
  }
}

}  // namespace

TEST_CASE("Algorithm 1 on the hand case: L=2, E=4, A=1, delta=3, phi=30") {
  // Sorted descending, ties by lower layer then lower expert:
  //   i=1 (0,1) 0.6, i=2 (1,0) 0.4, i=3 (1,2) 0.4, i=4 (0,2) 0.2,
  //   i=5 (0,0) 0.1, i=6 (0,3) 0.1, i=7 (1,1) 0.1, i=8 (1,3) 0.1.
  // K = L*A = 2: i <= 2 start at (i-1)*3 -> [0,2], [3,5];
  // i > 2 start at 30 - (8 - i + 1)*3 -> i=3: 12, i=4: 15, i=5: 18, i=6: 21, i=7: 24, i=8: 27.
  const auto a = place_experts(hand_params(), hand_f);
  REQUIRE(a.feasible);
  CHECK(a.delta == 3);
  CHECK(a.fast == 2);
  CHECK(a.order == std::vector<int>{1, 4, 6, 2, 0, 3, 5, 7});
  CHECK(a.interval(0, 1) == row_interval{0, 2});
  CHECK(a.interval(1, 0) == row_interval{3, 5});
  CHECK(a.interval(1, 2) == row_interval{12, 14});
  CHECK(a.interval(0, 2) == row_interval{15, 17});
  CHECK(a.interval(0, 0) == row_interval{18, 20});
  CHECK(a.interval(0, 3) == row_interval{21, 23});
  CHECK(a.interval(1, 1) == row_interval{24, 26});
  CHECK(a.interval(1, 3) == row_interval{27, 29});
  CHECK(a.is_fast(0, 1));
  CHECK(a.is_fast(1, 0));
  CHECK_FALSE(a.is_fast(1, 2));  // ties with (1,0) at 0.4 but comes later in expert order
  CHECK(a.expert_rows() == 24);
  CHECK(a.gap() == row_interval{6, 11});  // the free rows between the packs
  check_layout_invariants(a);
  // Hit rate: (0.6 + 0.4) / (0.6+0.4 + ... ) = 1 / 2.
  CHECK(hot_hit_rate(a, hand_f) == doctest::Approx(0.5));

  SUBCASE("exactly L*E*delta = phi fits, one row less does not") {
    auto p = hand_params();
    p.phi = 24;
    const auto tight = place_experts(p, hand_f);
    CHECK(tight.feasible);
    CHECK(tight.gap().rows() == 0);
    check_layout_invariants(tight);
    p.phi = 23;
    const auto over = place_experts(p, hand_f);
    CHECK_FALSE(over.feasible);
    CHECK(over.intervals.empty());
    // The reason gives the bytes and the rows.
    CHECK(over.reason.find("24576 B") != std::string::npos);  // 8 x 3 KiB
    CHECK(over.reason.find("24 rows") != std::string::npos);
    CHECK(over.reason.find("phi = 23 rows") != std::string::npos);
    CHECK(field_of([&] { (void)over.interval(0, 0); }) == "layout");
    CHECK(hot_hit_rate(over, hand_f) == doctest::Approx(0.5));  // defined from the order alone
  }
  SUBCASE("a partial row rounds delta up") {
    auto p = hand_params();
    p.expert_bytes = units::B(2049.0);  // 2.0009 rows -> 3
    CHECK(place_experts(p, hand_f).delta == 3);
  }
}

TEST_CASE("Intervals never overlap and stay in [0, phi) for random usage, L, E, A (seeded)") {
  std::mt19937_64 rng(20241201);
  for (int trial = 0; trial < 200; ++trial) {
    const int layers = 1 + static_cast<int>(rng() % 8);
    const int experts = 1 + static_cast<int>(rng() % 20);
    const int active = 1 + static_cast<int>(rng() % static_cast<std::uint64_t>(experts));
    const long long delta = 1 + static_cast<long long>(rng() % 5);
    const long long slack = static_cast<long long>(rng() % 50);
    usage_table f(static_cast<std::size_t>(layers), std::vector<double>(static_cast<std::size_t>(experts)));
    for (auto& row : f) {
      // Coarse values so that ties happen often and the tie-break is exercised.
      for (auto& x : row) x = static_cast<double>(rng() % 5) / 4.0;
    }
    const expert_placement_params<> p{.layers = layers, .experts = experts, .active = active,
                                      .expert_bytes = units::B(static_cast<double>(delta) * 64.0), .banks = 2,
                                      .row_buffer = units::B(32.0),
                                      .phi = static_cast<long long>(layers) * experts * delta + slack};
    const auto a = place_experts(p, f);
    CAPTURE(trial);
    CHECK(a.delta == delta);
    check_layout_invariants(a);
    // The K fast experts are the K largest f: no slow expert beats a fast one.
    double min_fast = 2.0, max_slow = -1.0;
    for (int l = 0; l < layers; ++l) {
      for (int e = 0; e < experts; ++e) {
        const double x = f[static_cast<std::size_t>(l)][static_cast<std::size_t>(e)];
        if (a.is_fast(l, e)) min_fast = std::min(min_fast, x);
        else max_slow = std::max(max_slow, x);
      }
    }
    CHECK(min_fast >= max_slow);
    // Deterministic: the same input gives the same layout.
    CHECK(place_experts(p, f) == a);
  }
}

TEST_CASE("Expert tier shares split an interval that straddles a tier boundary") {
  const auto table = make_tiering_table(hand_tiers(), 1, units::KiB(1.0));  // [0,8) [8,20) [20,30)
  const auto a = place_experts(hand_params(), hand_f);
  const auto s00 = expert_tier_shares(a, table, 0, 0);  // rows [18, 20]: 18, 19 in tier 1, 20 in tier 2
  CHECK(s00.share[0] == 0.0);
  CHECK(s00.share[1] == doctest::Approx(2.0 / 3.0));
  CHECK(s00.share[2] == doctest::Approx(1.0 / 3.0));
  CHECK(s00.fastest_tier == 1);
  CHECK(s00.slowest_tier == 2);
  const auto s01 = expert_tier_shares(a, table, 0, 1);  // rows [0, 2]
  CHECK(s01.share == std::vector<double>{1.0, 0.0, 0.0});
  CHECK(s01.slowest_tier == 0);

  // Traffic: tier 0 serves (0,1) 0.6 and (1,0) 0.4; tier 1 (1,2) 0.4, (0,2) 0.2 and 2/3 of (0,0)
  // 0.1; tier 2 the rest. Σ f = 2.
  const auto share = tier_traffic_share(a, table, hand_f);
  CHECK(share[0] == doctest::Approx(1.0 / 2.0));
  CHECK(share[1] == doctest::Approx((0.4 + 0.2 + 0.1 * 2.0 / 3.0) / 2.0));
  CHECK(share[2] == doctest::Approx((0.1 / 3.0 + 0.3) / 2.0));
  CHECK(std::accumulate(share.begin(), share.end(), 0.0) == doctest::Approx(1.0));
  CHECK(field_of([&] { (void)expert_tier_shares(a, table, 2, 0); }) == "layer");
  CHECK(field_of([&] { (void)expert_tier_shares(a, table, 0, 4); }) == "expert");
  // A layout beyond the table's rows is rejected.
  auto p = hand_params();
  p.phi = 40;
  const auto wide = place_experts(p, hand_f);
  CHECK(field_of([&] { (void)tier_traffic_share(wide, table, hand_f); }) == "layout.phi");
}

TEST_CASE("Traffic shares are conserved and the hit rate follows the usage table") {
  const auto tiers = mono3d_system_tiers(1);
  const auto table = make_tiering_table(tiers, 256, units::KiB(4.0));
  const expert_placement_params<> p;  // OLMoE-1B-7B on one chip
  for (const double h : {0.125, 0.3, 0.485, 0.7, 1.0}) {
    const auto f = usage_from_hit_rate(p.layers, p.experts, p.active, h);
    const auto a = place_experts(p, f);
    CAPTURE(h);
    check_layout_invariants(a);
    const auto share = tier_traffic_share(a, table, f);
    CHECK(std::accumulate(share.begin(), share.end(), 0.0) == doctest::Approx(1.0).epsilon(1e-12));
    CHECK(hot_hit_rate(a, f) == doctest::Approx(h).epsilon(1e-12));
    // OLMoE: K = 128 experts x 12 rows = 1536 rows, all in tier 0 (4096 rows): tier 0 serves h.
    CHECK(share[0] == doctest::Approx(h).epsilon(1e-12));
  }
  // More hot share puts more traffic in tier 0 (monotone).
  double last = -1.0;
  for (const double h : {0.2, 0.4, 0.6, 0.8}) {
    const auto f = usage_from_hit_rate(p.layers, p.experts, p.active, h);
    const double s0 = tier_traffic_share(place_experts(p, f), table, f)[0];
    CHECK(s0 > last);
    last = s0;
  }
}

TEST_CASE("The defaults are OLMoE-1B-7B on one Stratum chip") {
  const expert_placement_params<> p;
  const model m = preset("OLMoE-1B-7B-0924");
  CHECK(p.layers == m.moe_layers());
  CHECK(p.experts == m.experts);
  CHECK(p.active == m.top_k);
  CHECK(p.expert_bytes.si() == expert_bytes(m).si());
  const mono3d_params<> chip;
  CHECK(p.banks == chip.banks);
  CHECK(p.row_buffer.si() == chip.bank_access_bytes.si());
  CHECK(p.phi == make_tiering_table(mono3d_system_tiers(1), chip.banks, chip.bank_access_bytes).rows);
  const auto a = place_experts(p, uniform_usage(p.layers, p.experts, p.active));
  CHECK(a.delta == 12);  // 12 MiB / (256 x 4 KiB)
  check_layout_invariants(a);
}

TEST_CASE("Mixtral-8x7B experts on the default Mono3D chip: infeasible on one chip, packed on Stratum-L's six") {
  const model m = preset("Mixtral-8x7B");
  const auto f = usage_from_hit_rate(m.moe_layers(), m.experts, m.top_k, 0.316);
  SUBCASE("one chip: 256 experts x 336 rows = 86016 rows > 32768") {
    const auto tiers = mono3d_system_tiers(1);
    const auto table = make_tiering_table(tiers, 256, units::KiB(4.0));
    const expert_placement_params<> p{.layers = m.moe_layers(), .experts = m.experts, .active = m.top_k,
                                      .expert_bytes = expert_bytes(m), .banks = 256,
                                      .row_buffer = units::KiB(4.0), .phi = table.rows};
    const auto a = place_experts(p, f);
    CHECK(a.delta == 336);
    CHECK_FALSE(a.feasible);
    CHECK(a.reason.find("86016 rows") != std::string::npos);
    CHECK(a.reason.find("phi = 32768 rows") != std::string::npos);
  }
  SUBCASE("six chips (1536 banks): delta = 56, 4096 rows per tier") {
    const auto tiers = mono3d_system_tiers(6);
    const auto table = make_tiering_table(tiers, 1536, units::KiB(4.0));
    CHECK(table.rows == 32768);
    CHECK(table.first_row == std::vector<long long>{0, 4096, 8192, 12288, 16384, 20480, 24576, 28672});
    // Non-NMP data 10 GiB -> 10 GiB / 6 MiB = 1706.67 -> 1707 rows at the top of tier 7;
    // KV 40 GiB -> 6827 rows.
    const expert_placement_params<> base{.layers = m.moe_layers(), .experts = m.experts, .active = m.top_k,
                                         .expert_bytes = expert_bytes(m), .banks = 1536,
                                         .row_buffer = units::KiB(4.0), .phi = 1};
    const auto plan = plan_rows(table, base, units::GiB(40.0), units::GiB(10.0));
    CHECK(plan.feasible);
    CHECK(plan.delta == 56);
    CHECK(plan.non_nmp_rows == 1707);
    CHECK(plan.phi == 32768 - 1707);
    CHECK(plan.non_nmp_region == row_interval{31061, 32767});
    CHECK(plan.non_nmp_first_tier == 7);
    CHECK(plan.kv_rows == 6827);
    // K = 64 experts x 56 = 3584 rows from 0; 192 x 56 = 10752 rows against phi.
    CHECK(plan.fast_pack == row_interval{0, 3583});
    CHECK(plan.slow_pack == row_interval{31061 - 10752, 31060});
    CHECK(plan.kv_region == row_interval{3584, 31061 - 10752 - 1});
    CHECK(plan.kv_first_tier == 0);
    CHECK(plan.kv_last_tier == 4);  // row 20308 is in tier 4 [16384, 20480)
    auto p = base;
    p.phi = plan.phi;
    const auto a = place_experts(p, f);
    check_layout_invariants(a);
    CHECK(a.gap() == plan.kv_region);
    // Every hot expert is in tier 0; the hit rate is the one the table was built with.
    for (int l = 0; l < m.moe_layers(); ++l) {
      for (int e = 0; e < m.experts; ++e) {
        if (a.is_fast(l, e)) CHECK(expert_tier_shares(a, table, l, e).slowest_tier == 0);
      }
    }
    const auto share = tier_traffic_share(a, table, f);
    CHECK(share[0] == doctest::Approx(0.316));
    CHECK(std::accumulate(share.begin(), share.end(), 0.0) == doctest::Approx(1.0));
    SUBCASE("too much KV or non-NMP data is an infeasible plan naming the class") {
      const auto kv = plan_rows(table, base, units::GiB(200.0), units::GiB(10.0));
      CHECK_FALSE(kv.feasible);
      CHECK(kv.reason.find("KV cache") != std::string::npos);
      const auto nn = plan_rows(table, base, units::GiB(1.0), units::GiB(500.0));
      CHECK_FALSE(nn.feasible);
      CHECK(nn.reason.find("non-NMP") != std::string::npos);
      const auto ex = plan_rows(table, base, units::GiB(1.0), units::GiB(150.0));
      CHECK_FALSE(ex.feasible);
      CHECK(ex.reason.find("experts need") != std::string::npos);
    }
  }
}

TEST_CASE("Cross-paper: Stratum's Algorithm 1 places DeepSeek-V2-Lite experts on HCRMap's SRAM/HBM/DRAM package") {
  const model m = preset("DeepSeek-V2-Lite");
  const auto tiers = hcrmap_package_tiers();
  // 4 SRAM groups x 64 MB = 256 MB over 64 banks; HBM 8 GB; DRAM 32 GB (HCRMap Table 1).
  CHECK(tiers[0].capacity.in(units::MB) == doctest::Approx(256.0));
  CHECK(tiers[0].banks == 64);
  // Row space: 8 banks (the DRAM pool's channels, so a row-space bank maps onto whole banks of
  // every tier) of 4 KiB rows: 32 KiB per row.
  const auto table = make_tiering_table(tiers, 8, units::KiB(4.0));
  // 256e6 / 32768 = 7812.5 -> 7812; 8e9 / 32768 = 244140.6 -> 244140; 32e9 / 32768 = 976562.5 -> 976562.
  CHECK(table.first_row == std::vector<long long>{0, 7812, 7812 + 244140});
  CHECK(table.rows == 7812 + 244140 + 976562);
  // DeepSeek-V2-Lite: 26 MoE layers x 64 experts of 3 x 2048 x 1408 FP16 = 17 301 504 B -> 528 rows.
  const expert_placement_params<> p{.layers = m.moe_layers(), .experts = m.experts, .active = m.top_k,
                                    .expert_bytes = expert_bytes(m), .banks = 8, .row_buffer = units::KiB(4.0),
                                    .phi = table.rows};
  CHECK(p.layers == 26);
  const auto table_counts = load_expert_counts_csv(std::string(STRATA_TEST_DATA_DIR) +
                                                   "/traces/dsv2lite_esft_expert_counts_by_task.csv");
  const expert_counts* intent = nullptr;
  for (const auto& s : table_counts.series) {
    if (s.key.topic == "intent") intent = &s;
  }
  REQUIRE(intent != nullptr);
  const auto f = usage_from_counts(*intent);  // the 26 saved MoE layers 1..26
  REQUIRE(f.size() == 26);
  const auto a = place_experts(p, f);
  CHECK(a.delta == 528);
  check_layout_invariants(a);
  // K = 26 x 6 = 156 hot experts x 528 rows = 82368 rows: 14 whole experts in SRAM (7812 rows),
  // the 15th straddles SRAM and HBM, the rest in HBM; the cold pack ends in DRAM.
  const auto first_hot = expert_tier_shares(a, table, a.order[0] / 64, a.order[0] % 64);
  CHECK(first_hot.share[0] == 1.0);
  const int straddler = a.order[14];  // rows [7392, 7919]: 420 in SRAM, 108 in HBM
  const auto s = expert_tier_shares(a, table, straddler / 64, straddler % 64);
  CHECK(s.share[0] == doctest::Approx(420.0 / 528.0));
  CHECK(s.share[1] == doctest::Approx(108.0 / 528.0));
  CHECK(s.fastest_tier == 0);
  CHECK(s.slowest_tier == 1);
  const int coldest = a.order.back();
  CHECK(expert_tier_shares(a, table, coldest / 64, coldest % 64).share[2] == 1.0);
  const auto share = tier_traffic_share(a, table, f);
  CHECK(std::accumulate(share.begin(), share.end(), 0.0) == doctest::Approx(1.0));
  // The hottest 14.8 of 1664 experts (0.9 % of them) serve more than their share from SRAM.
  CHECK(share[0] > 7812.0 / 878592.0);
  MESSAGE("DeepSeek-V2-Lite on HCRMap tiers (intent): traffic SRAM " << share[0] << ", HBM " << share[1] << ", DRAM "
                                                                   << share[2] << "; hit rate " << hot_hit_rate(a, f));
  // The fast set is what Algorithm 1 would put in the hot tiers; the hit rate is the best any
  // K-expert set reaches, so it beats the uniform table's layout.
  const auto uni = place_experts(p, uniform_usage(p.layers, p.experts, p.active));
  CHECK(hot_hit_rate(a, f) > hot_hit_rate(uni, f));
}

TEST_CASE("Bad placement input is a config_error naming the field") {
  const auto good = hand_params();
  auto p = good;
  p.layers = 0;
  CHECK(field_of([&] { (void)place_experts(p, hand_f); }) == "layers");
  p = good;
  p.experts = 0;
  CHECK(field_of([&] { (void)place_experts(p, hand_f); }) == "experts");
  p = good;
  p.active = 5;
  CHECK(field_of([&] { (void)place_experts(p, hand_f); }) == "active");
  p = good;
  p.expert_bytes = units::B(0.0);
  CHECK(field_of([&] { (void)place_experts(p, hand_f); }) == "expert_bytes");
  p = good;
  p.expert_bytes = units::B(strata_test::k_inf);
  CHECK(field_of([&] { (void)place_experts(p, hand_f); }) == "expert_bytes");
  p = good;
  p.banks = 0;
  CHECK(field_of([&] { (void)place_experts(p, hand_f); }) == "banks");
  p = good;
  p.row_buffer = units::B(0.5);
  CHECK(field_of([&] { (void)place_experts(p, hand_f); }) == "row_buffer");
  p = good;
  p.layers = 1024;
  p.experts = 1025;  // 1 049 600 experts > 2^20
  CHECK(field_of([&] { (void)validate(p); }) == "layers * experts");
  p = good;
  p.phi = 0;
  CHECK(field_of([&] { (void)place_experts(p, hand_f); }) == "phi");
  CHECK(field_of([&] { (void)place_experts(good, usage_table{{0.1, 0.6, 0.2, 0.1}}); }) == "f");
  CHECK(field_of([&] { (void)place_experts(good, usage_table{{0.1, 0.6, 0.2, 0.1}, {0.5, 0.5}}); }) == "f[1]");
  CHECK(field_of([&] { (void)place_experts(good, usage_table{{0.1, 0.6, 0.2, 0.1}, {0.5, strata_test::k_nan, 0, 0}}); }) ==
        "f[1][1]");
  CHECK(field_of([&] { (void)place_experts(good, usage_table{{0.1, 1.5, 0.2, 0.1}, {0.5, 0.5, 0, 0}}); }) == "f[0][1]");
  CHECK(field_of([&] { (void)place_experts(good, usage_table{{0.1, -0.1, 0.2, 0.1}, {0.5, 0.5, 0, 0}}); }) == "f[0][1]");
  const auto table = make_tiering_table(hand_tiers(), 1, units::KiB(1.0));
  auto q = good;
  q.banks = 2;
  CHECK(field_of([&] { (void)plan_rows(table, q, units::B(0.0), units::B(0.0)); }) == "banks");
  q = good;
  q.row_buffer = units::KiB(2.0);
  CHECK(field_of([&] { (void)plan_rows(table, q, units::B(0.0), units::B(0.0)); }) == "row_buffer");
  CHECK(field_of([&] { (void)plan_rows(table, good, units::B(-1.0), units::B(0.0)); }) == "kv_bytes");
  CHECK(field_of([&] { (void)plan_rows(table, good, units::B(0.0), units::B(strata_test::k_nan)); }) == "non_nmp_bytes");
}

TEST_CASE("Placement parameters, layouts and row plans round-trip through JSON") {
  const auto p = hand_params();
  const json j = p;
  CHECK(j.at("phi") == 30);
  CHECK(j.get<expert_placement_params<>>() == p);
  CHECK(field_of([&] { (void)json::parse(R"({"phi": 10, "bankz": 3})").get<expert_placement_params<>>(); }) == "bankz");
  const auto a = place_experts(p, hand_f);
  CHECK(json(a).get<expert_layout>() == a);
  const auto table = make_tiering_table(hand_tiers(), 1, units::KiB(1.0));
  const auto plan = plan_rows(table, p, units::KiB(2.0), units::KiB(1.0));
  CHECK(json(plan).get<row_plan>() == plan);
  const auto s = expert_tier_shares(a, table, 0, 0);
  CHECK(json(s).get<expert_tier_share>() == s);
}

TEST_CASE("Algorithm 1 and the row plan instantiate with the autodiff scalar") {
  using strata_test::fvar1;
  const expert_placement_params<fvar1> p{.layers = 2, .experts = 4, .active = 1,
                                         .expert_bytes = units::KiB(strata_test::make_fvar<double, 1>(3.0)),
                                         .banks = 1, .row_buffer = units::KiB(fvar1(1.0)), .phi = 30};
  const auto a = place_experts(p, hand_f);
  CHECK(a == place_experts(hand_params(), hand_f));
  std::vector<memory_tier<fvar1>> tiers;
  for (const auto& t : hand_tiers()) tiers.push_back({t.name, t.capacity, t.bandwidth, t.latency, t.energy_per_byte, 1});
  const auto table = make_tiering_table(tiers, 1, units::KiB(fvar1(1.0)));
  const auto plan = plan_rows(table, p, units::KiB(fvar1(6.0)), units::KiB(fvar1(0.0)));
  CHECK(plan.feasible);
  CHECK(plan.kv_region == row_interval{6, 11});
}
