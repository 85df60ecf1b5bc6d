// Tests of the row-swap cost of a topic switch (Stratum §3.2 row-swap buffer, §5.2, Table 4).
#include "strata/stratum/row_swap.hpp"

#include <doctest/doctest.h>

#include <string>  // std::string
#include <vector>  // std::vector

#include "strata/chiplet/substrate.hpp"
#include "strata/core/json.hpp"
#include "strata/device/mono3d.hpp"
#include "strata/stratum/placement.hpp"
#include "strata/stratum/usage.hpp"
#include "strata/workload/model.hpp"
#include "strata/workload/presets.hpp"
#include "strata/workload/trace_io.hpp"
#include "support/field_of.hpp"
#include "support/scalars.hpp"

using namespace strata;
using strata_test::field_of;

namespace {

// One bank, 1 KiB rows; tier 0 = rows 0-1, tier 1 = rows 2-3. A row operation takes
// latency + 1 KiB / 102.4 GB/s = latency + 10 ns: 20 ns in tier 0, 30 ns in tier 1.
template <class T = double>
std::vector<memory_tier<T>> swap_tiers(T lat0 = T(10.0)) {
  return {{"t0", units::KiB(T(2.0)), units::GBps(T(102.4)), units::ns(lat0), units::pJ_per_B(T(1.0)), 1},
          {"t1", units::KiB(T(2.0)), units::GBps(T(102.4)), units::ns(T(20.0)), units::pJ_per_B(T(2.0)), 1}};
}

// L = 1, E = 3, A = 1, Δ = 1, Φ = 4: expert 0 at row 0 or 3, the others in rows 0, 2, 3; row 1 free.
template <class T = double>
expert_placement_params<T> swap_params() {
  return {.layers = 1, .experts = 3, .active = 1, .expert_bytes = units::KiB(T(1.0)), .banks = 1,
          .row_buffer = units::KiB(T(1.0)), .phi = 4};
}

}  // namespace

TEST_CASE("A topic switch that rotates three experts is one 3-cycle: two swaps through the fastest row") {
  const auto tiers = swap_tiers();
  const auto table = make_tiering_table(tiers, 1, units::KiB(1.0));
  // A: f = (0.6, 0.3, 0.1) -> e0 [0], e1 [2], e2 [3].  B: f = (0.1, 0.6, 0.3) -> e1 [0], e2 [2], e0 [3].
  const auto a = place_experts(swap_params(), usage_table{{0.6, 0.3, 0.1}});
  const auto b = place_experts(swap_params(), usage_table{{0.1, 0.6, 0.3}});
  REQUIRE(a.interval(0, 0) == row_interval{0, 0});
  REQUIRE(b.interval(0, 0) == row_interval{3, 3});
  const auto r = row_swap_cost(a, b, table, tiers);
  // e0: 0 -> 3, e2: 3 -> 2, e1: 2 -> 0: one cycle over rows {0, 3, 2}, 3 - 1 = 2 swaps.
  CHECK(r.experts_moved == 3);
  CHECK(r.rows_moved == 3);
  CHECK(r.rows_changing_tier == 2);  // 0 -> 3 and 2 -> 0 cross tiers, 3 -> 2 stays in tier 1
  CHECK(r.cycles == 1);
  CHECK(r.swaps == 2);
  CHECK(r.chains == 0);
  CHECK(r.moves == 0);
  CHECK(r.row_reads == 4);
  CHECK(r.row_writes == 4);
  // Pivot row 0 (tier 0): 2 swaps x (1 read + 1 write) = 4 ops; rows 3 and 2 (tier 1): 2 each.
  CHECK(r.ops_per_tier == std::vector<long long>{4, 4});
  // 4 x 20 ns + 4 x 30 ns = 200 ns; 4 KiB x 1 pJ/B + 4 KiB x 2 pJ/B = 12 288 pJ; 8 KiB moved.
  CHECK(r.time.in(units::ns) == doctest::Approx(200.0));
  CHECK(r.energy.in(units::pJ) == doctest::Approx(12288.0));
  CHECK(r.bytes.in(units::B) == doctest::Approx(8192.0));

  SUBCASE("as a cost leaf: the same time and energy, the bytes per tier") {
    const auto c = row_swap_leaf(r, tiers, table);
    CHECK(c.time.in(units::ns) == doctest::Approx(200.0));
    CHECK(c.energy.in(units::pJ) == doctest::Approx(12288.0));
    CHECK(c.bytes_on("t0").in(units::B) == doctest::Approx(4096.0));
    CHECK(c.bytes_on("t1").in(units::B) == doctest::Approx(4096.0));
    CHECK(field_of([&] { (void)row_swap_leaf(r, std::vector<memory_tier<>>{tiers[0]}, table); }) == "tiers");
  }
  SUBCASE("back to A costs the same: the cycle reversed") {
    const auto back = row_swap_cost(b, a, table, tiers);
    CHECK(back == r);
  }
  SUBCASE("identical layouts cost nothing") {
    const auto z = row_swap_cost(a, a, table, tiers);
    CHECK(z.rows_moved == 0);
    CHECK(z.swaps == 0);
    CHECK(z.time.in(units::ns) == 0.0);
    CHECK(z.energy.in(units::pJ) == 0.0);
    CHECK(z.bytes.in(units::B) == 0.0);
  }
  SUBCASE("exchanging two experts is one swap; an expert that keeps its rows does not move") {
    // C: f = (0.1, 0.3, 0.6) -> e2 [0], e1 [2] (as in A), e0 [3].
    const auto c = place_experts(swap_params(), usage_table{{0.1, 0.3, 0.6}});
    const auto x = row_swap_cost(a, c, table, tiers);
    CHECK(x.experts_moved == 2);
    CHECK(x.swaps == 1);
    CHECK(x.row_reads == 2);
    CHECK(x.time.in(units::ns) == doctest::Approx(2 * 20.0 + 2 * 30.0));
  }
  SUBCASE("the in-bank energy replaces the tier energy (a buffer on the memory die: lower energy)") {
    const row_swap_params<> p{.in_bank_energy = {units::pJ_per_B(0.5), units::pJ_per_B(0.5)}};
    const auto lo = row_swap_cost(a, b, table, tiers, p);
    CHECK(lo.energy.in(units::pJ) == doctest::Approx(8 * 1024 * 0.5));
    CHECK(lo.time.in(units::ns) == r.time.in(units::ns));
    CHECK(value_of(lo.energy) < value_of(r.energy));
  }
}

TEST_CASE("Rows that move into a free row are single moves: one read and one write each") {
  const auto tiers = swap_tiers();
  const auto table = make_tiering_table(tiers, 1, units::KiB(1.0));
  const auto a = place_experts(swap_params(), usage_table{{0.6, 0.3, 0.1}});  // e0 [0], e1 [2], e2 [3]
  SUBCASE("one expert into the free row 1") {
    auto b = a;
    b.intervals[0] = {1, 1};
    const auto r = row_swap_cost(a, b, table, tiers);
    CHECK(r.chains == 1);
    CHECK(r.moves == 1);
    CHECK(r.swaps == 0);
    // Read row 0 and write row 1, both tier 0: 2 x 20 ns; 2 KiB x 1 pJ/B.
    CHECK(r.time.in(units::ns) == doctest::Approx(40.0));
    CHECK(r.energy.in(units::pJ) == doctest::Approx(2048.0));
  }
  SUBCASE("a chain of two: e1 2 -> 0 after e0 0 -> 1") {
    auto b = a;
    b.intervals[0] = {1, 1};
    b.intervals[1] = {0, 0};
    const auto r = row_swap_cost(a, b, table, tiers);
    CHECK(r.chains == 1);
    CHECK(r.moves == 2);
    CHECK(r.cycles == 0);
    // read 0 (20), write 1 (20), read 2 (30), write 0 (20) = 90 ns.
    CHECK(r.time.in(units::ns) == doctest::Approx(90.0));
    CHECK(r.ops_per_tier == std::vector<long long>{3, 1});
  }
}

TEST_CASE("Shards serialise when the row space has more banks than a tier") {
  // The same switch on a row space of 2 banks over 1-bank tiers: each op moves 2 KiB through the
  // one bank, so the data part doubles (20 ns instead of 10); latency is paid once.
  const auto tiers = swap_tiers();
  auto two = tiers;
  for (auto& t : two) t.capacity = t.capacity * 2.0;
  const auto table = make_tiering_table(two, 2, units::KiB(1.0));
  auto p = swap_params();
  p.banks = 2;
  p.expert_bytes = units::KiB(2.0);
  const auto a = place_experts(p, usage_table{{0.6, 0.3, 0.1}});
  const auto b = place_experts(p, usage_table{{0.1, 0.6, 0.3}});
  const auto r = row_swap_cost(a, b, table, two);
  CHECK(r.swaps == 2);
  CHECK(r.time.in(units::ns) == doctest::Approx(4 * (10.0 + 20.0) + 4 * (20.0 + 20.0)));
  CHECK(r.bytes.in(units::B) == doctest::Approx(8 * 2048.0));
}

TEST_CASE("A real topic switch on the default Mono3D chip: OLMoE arxiv -> github and back") {
  const mono3d_params<> chip;
  const auto tiers = memory_tiers(chip, evaluate(chip));
  const auto table = make_tiering_table(tiers, chip.banks, chip.bank_access_bytes);
  const auto counts = load_expert_counts_csv(std::string(STRATA_TEST_DATA_DIR) +
                                             "/traces/olmoe_mixtral_expert_counts_by_domain.csv");
  const expert_placement_params<> p;  // OLMoE-1B-7B on one chip
  const auto fa = usage_from_counts(counts.at("OLMoE-1B-7B-0824", "arxiv", "topk8"), p.layers);
  const auto fb = usage_from_counts(counts.at("OLMoE-1B-7B-0824", "github", "topk8"), p.layers);
  const auto a = place_experts(p, fa);
  const auto b = place_experts(p, fb);
  const auto ab = row_swap_cost(a, b, table, tiers);
  const auto ba = row_swap_cost(b, a, table, tiers);
  CHECK(ab.rows_moved > 0);
  CHECK(ab.rows_moved <= a.expert_rows());
  CHECK(ab.rows_moved == ab.experts_moved * a.delta);
  CHECK(ab.rows_changing_tier <= ab.rows_moved);
  CHECK(ab.rows_changing_tier == ba.rows_changing_tier);
  CHECK(value_of(ab.time) > 0.0);
  CHECK(value_of(ab.energy) > 0.0);
  // Same intervals occupied in A and B (Algorithm 1 packs the same rows): no free row, only cycles.
  CHECK(ab.moves == 0);
  CHECK(ab.swaps == ab.rows_moved - ab.cycles);
  // Symmetric: the reverse switch walks the same cycles.
  CHECK(ba.swaps == ab.swaps);
  CHECK(ba.time.in(units::us) == doctest::Approx(ab.time.in(units::us)).epsilon(1e-12));
  CHECK(ba.energy.in(units::uJ) == doctest::Approx(ab.energy.in(units::uJ)).epsilon(1e-12));
  // Bound: every moved row is read and written at most twice at the slowest tier's timing.
  const double t_slow_ns = tiers.back().latency.in(units::ns) +
                           4096.0 / (tiers.back().bandwidth.in(units::Bps) / 256.0) * 1e9;
  CHECK(ab.time.in(units::ns) <= 4.0 * static_cast<double>(ab.rows_moved) * t_slow_ns * (1.0 + 1e-12));
  MESSAGE("OLMoE arxiv -> github on one chip: " << ab.experts_moved << " experts, " << ab.rows_moved
                                                << " rows per bank (" << ab.rows_changing_tier
                                                << " change tier), " << ab.swaps << " swaps in " << ab.cycles
                                                << " cycles; " << ab.time.in(units::us) << " us, "
                                                << ab.energy.in(units::uJ) << " uJ (tier energy: swap buffer in the PE), "
                                                << ab.bytes.in(units::MiB) << " MiB read + written in banks");
}

TEST_CASE("Cross-paper: a topic switch of DeepSeek-V2-Lite on HCRMap's package tiers swaps inside each tier's banks") {
  const substrate_params s;
  const int group_count = (s.mesh_x / s.group_x) * (s.mesh_y / s.group_y);  // 2 x 2 groups of 2 x 2 chiplets
  const double groups = static_cast<double>(group_count);
  const std::vector<memory_tier<>> tiers{
      {"sram", s.sram.capacity * groups, s.sram.bandwidth * groups, s.sram.latency, s.sram.energy,
       static_cast<int>(s.sram.banks * groups)},
      {"hbm", s.hbm.capacity, s.hbm.bandwidth, s.hbm.latency, s.hbm.energy, s.hbm.banks},
      {"dram", s.dram.capacity, s.dram.bandwidth, s.dram.latency, s.dram.energy, s.dram.banks}};
  const auto table = make_tiering_table(tiers, 8, units::KiB(4.0));
  const model m = preset("DeepSeek-V2-Lite");
  const expert_placement_params<> p{.layers = m.moe_layers(), .experts = m.experts, .active = m.top_k,
                                    .expert_bytes = expert_bytes(m), .banks = 8, .row_buffer = units::KiB(4.0),
                                    .phi = table.rows};
  const auto counts = load_expert_counts_csv(std::string(STRATA_TEST_DATA_DIR) +
                                             "/traces/dsv2lite_esft_expert_counts_by_task.csv");
  const auto pick = [&](const char* task) -> const expert_counts& {
    for (const auto& x : counts.series) {
      if (x.key.topic == task) return x;
    }
    FAIL("no series " << task);
    return counts.series.front();
  };
  const auto a = place_experts(p, usage_from_counts(pick("intent")));
  const auto b = place_experts(p, usage_from_counts(pick("law")));
  const auto ab = row_swap_cost(a, b, table, tiers);
  const auto ba = row_swap_cost(b, a, table, tiers);
  CHECK(ab.rows_moved > 0);
  CHECK(ab.swaps == ba.swaps);
  CHECK(ab.time.in(units::ms) == doctest::Approx(ba.time.in(units::ms)).epsilon(1e-12));
  CHECK(ab.ops_per_tier.size() == 3);
  CHECK(ab.ops_per_tier[0] > 0);  // hot experts change inside SRAM too
  MESSAGE("DeepSeek-V2-Lite intent -> law on HCRMap tiers: " << ab.experts_moved << " experts, "
                                                             << ab.rows_changing_tier << " rows change tier, "
                                                             << ab.swaps
                                                             << " swaps; " << ab.time.in(units::ms) << " ms, "
                                                             << ab.energy.in(units::mJ) << " mJ");
}

TEST_CASE("Bad row-swap input is a config_error naming the field") {
  const auto tiers = swap_tiers();
  const auto table = make_tiering_table(tiers, 1, units::KiB(1.0));
  const auto a = place_experts(swap_params(), usage_table{{0.6, 0.3, 0.1}});
  auto other = swap_params();
  other.phi = 3;
  const auto c = place_experts(other, usage_table{{0.6, 0.3, 0.1}});
  CHECK(field_of([&] { (void)row_swap_cost(a, c, table, tiers); }) == "layout_b");
  other.phi = 2;
  const auto bad = place_experts(other, usage_table{{0.6, 0.3, 0.1}});
  REQUIRE_FALSE(bad.feasible);
  CHECK(field_of([&] { (void)row_swap_cost(bad, a, table, tiers); }) == "layout_a");
  CHECK(field_of([&] { (void)row_swap_cost(a, a, table, std::vector<memory_tier<>>{tiers[0]}); }) == "tiers");
  CHECK(field_of([&] {
          (void)row_swap_cost(a, a, table, tiers, row_swap_params<>{.in_bank_energy = {units::pJ_per_B(1.0)}});
        }) == "in_bank_energy");
  CHECK(field_of([&] {
          (void)row_swap_cost(a, a, table, tiers,
                              row_swap_params<>{.in_bank_energy = {units::pJ_per_B(-1.0), units::pJ_per_B(1.0)}});
        }) == "in_bank_energy[0]");
  const auto b = place_experts(swap_params(), usage_table{{0.1, 0.6, 0.3}});
  CHECK(field_of([&] { (void)row_swap_cost(a, b, table, tiers, row_swap_params<>{.in_bank_energy = {}, .max_moved_rows = 2}); }) ==
        "max_moved_rows");
}

TEST_CASE("Row-swap parameters and results round-trip through JSON") {
  const row_swap_params<> p{.in_bank_energy = {units::pJ_per_B(0.5), units::pJ_per_B(0.7)}, .max_moved_rows = 1000};
  const json j = p;
  CHECK(j.at("in_bank_energy").size() == 2);
  CHECK(j.get<row_swap_params<>>() == p);
  const auto tiers = swap_tiers();
  const auto table = make_tiering_table(tiers, 1, units::KiB(1.0));
  const auto r = row_swap_cost(place_experts(swap_params(), usage_table{{0.6, 0.3, 0.1}}),
                               place_experts(swap_params(), usage_table{{0.1, 0.6, 0.3}}), table, tiers);
  const auto back = json(r).get<row_swap_result<>>();
  CHECK(back.swaps == r.swaps);
  CHECK(back.time.in(units::ns) == doctest::Approx(r.time.in(units::ns)));
}

TEST_CASE("The swap cost instantiates with the autodiff scalar: d time / d latency counts the ops of a tier") {
  using strata_test::fvar1;
  using strata_test::make_fvar;
  const auto tiers = swap_tiers<fvar1>(make_fvar<double, 1>(10.0));
  const auto table = make_tiering_table(tiers, 1, units::KiB(fvar1(1.0)));
  const auto a = place_experts(swap_params<fvar1>(), usage_table{{0.6, 0.3, 0.1}});
  const auto b = place_experts(swap_params<fvar1>(), usage_table{{0.1, 0.6, 0.3}});
  const auto r = row_swap_cost(a, b, table, tiers, row_swap_params<fvar1>{});
  const fvar1 t_ns = r.time.in(units::ns);
  CHECK(t_ns.derivative(0) == doctest::Approx(200.0));
  // Four operations in tier 0: one more ns of its latency adds 4 ns.
  CHECK(t_ns.derivative(1) == doctest::Approx(4.0));
  CHECK(r.energy.in(units::pJ).derivative(1) == doctest::Approx(0.0));
}
