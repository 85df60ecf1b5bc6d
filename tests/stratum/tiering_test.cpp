// Tests of the bank-sharded row space and the tiering table (Stratum §3.2, §5.2, §6.2.1).
#include "strata/stratum/tiering.hpp"

#include <doctest/doctest.h>

#include <string>  // std::string
#include <vector>  // std::vector

#include "strata/core/json.hpp"
#include "strata/device/logic_die_params.hpp"
#include "strata/device/mono3d.hpp"
#include "support/field_of.hpp"
#include "support/scalars.hpp"

using namespace strata;
using strata_test::field_of;

namespace {

// Three tiers of 8, 12 and 10 KiB: with one bank of 1 KiB rows they hold 8, 12 and 10 rows.
std::vector<memory_tier<>> small_tiers() {
  return {{"fast", units::KiB(8.0), units::GBps(100.0), units::ns(10.0), units::pJ_per_B(1.0), 1},
          {"mid", units::KiB(12.5), units::GBps(80.0), units::ns(20.0), units::pJ_per_B(2.0), 1},
          {"slow", units::KiB(10.0), units::GBps(50.0), units::ns(30.0), units::pJ_per_B(3.0), 1}};
}

}  // namespace

TEST_CASE("A tier holds floor(capacity / (banks * row buffer)) rows, contiguous and fastest first") {
  const auto t = make_tiering_table(small_tiers(), 1, units::KiB(1.0));
  // 8 KiB / 1 KiB = 8; 12.5 KiB / 1 KiB = 12.5 -> 12 (a partial row holds nothing); 10.
  CHECK(t.tiers() == 3);
  CHECK(t.first_row == std::vector<long long>{0, 8, 20});
  CHECK(t.rows == 30);
  CHECK(t.tier_rows(1) == 12);
  CHECK(t.tier_interval(2) == row_interval{20, 29});
  CHECK(t.row_bytes() == 1024.0);
  CHECK(t.tier_of(0) == 0);
  CHECK(t.tier_of(7) == 0);
  CHECK(t.tier_of(8) == 1);
  CHECK(t.tier_of(19) == 1);
  CHECK(t.tier_of(20) == 2);
  CHECK(t.tier_of(29) == 2);
  CHECK(field_of([&] { (void)t.tier_of(30); }) == "row");
  CHECK(field_of([&] { (void)t.tier_of(-1); }) == "row");

  SUBCASE("two banks halve the rows of every tier") {
    const auto t2 = make_tiering_table(small_tiers(), 2, units::KiB(1.0));
    CHECK(t2.first_row == std::vector<long long>{0, 4, 10});  // 4, 6 (12.5/2 = 6.25), 5
    CHECK(t2.rows == 15);
  }
  SUBCASE("a tier smaller than one row of all banks holds no row and is never returned") {
    auto tiers = small_tiers();
    tiers[1].capacity = units::KiB(0.5);
    const auto t0 = make_tiering_table(tiers, 1, units::KiB(1.0));
    CHECK(t0.first_row == std::vector<long long>{0, 8, 8});
    CHECK(t0.tier_rows(1) == 0);
    CHECK(t0.tier_of(8) == 2);
    CHECK(t0.tier_of(7) == 0);
  }
}

TEST_CASE("Rows per expert round S_w / (N_bank * S_rb) up") {
  // 352 321 536 B (Mixtral-8x7B) over 256 banks of 4 KiB = 336 exactly: not bumped to 337.
  CHECK(rows_per_expert(units::B(352321536.0), 256, units::KiB(4.0)) == 336);
  // One byte more needs one more row.
  CHECK(rows_per_expert(units::B(352321537.0), 256, units::KiB(4.0)) == 337);
  // Over 1536 banks (six chips): 56.
  CHECK(rows_per_expert(units::B(352321536.0), 1536, units::KiB(4.0)) == 56);
  CHECK(rows_per_expert(units::B(1.0), 256, units::KiB(4.0)) == 1);
}

TEST_CASE("The default Mono3D chip gives the uniform mapping of Stratum 6.2.1: 8 tiers of 4096 rows") {
  const mono3d_params<> p;
  const auto tiers = memory_tiers(p, evaluate(p));
  REQUIRE(tiers.size() == 8);
  // 32 GiB over 8 tiers = 4 GiB a tier; 4 GiB / (256 banks * 4 KiB) = 4096 rows.
  const auto t = make_tiering_table(tiers, p.banks, p.bank_access_bytes);
  CHECK(t.rows == 32768);
  for (int i = 0; i < 8; ++i) {
    CHECK(t.first_row[static_cast<std::size_t>(i)] == 4096LL * i);
    CHECK(t.tier_rows(i) == 4096);
  }
  CHECK(t.tier_of(5000) == 1);
  CHECK(t.tier_of(32767) == 7);
}

TEST_CASE("The tiering table programs a start row and a tRCD code per tier into the logic die's fields") {
  const mono3d_params<> p;
  const auto r = evaluate(p);
  const auto tiers = memory_tiers(p, r);
  const auto t = make_tiering_table(tiers, p.banks, p.bank_access_bytes);
  const logic_die_params<> logic;
  const auto prog = program_tiering_table(t, tiers, logic);
  CHECK(prog.feasible);
  CHECK(prog.entries.size() == 8);
  CHECK(prog.entry_slots == 8);
  // 128 MiB bank / 4 KiB row = 32768 rows: 15 address bits; the tRCD code is 8 bits.
  CHECK(prog.row_bits == 15);
  CHECK(prog.code_bits == 8);
  for (std::size_t i = 0; i < 8; ++i) {
    CHECK(prog.entries[i].start_row == 4096LL * static_cast<long long>(i));
    CHECK(prog.entries[i].valid);
    // tRCD(i) = access latency - tCL, in 0.3125 ns command clocks, rounded up.
    const double trcd_ns = r.tiers[i].t_rcd.in(units::ns);
    CHECK(static_cast<double>(prog.entries[i].trcd_code) >= trcd_ns / 0.3125 - 1e-6);
    CHECK(static_cast<double>(prog.entries[i].trcd_code) < trcd_ns / 0.3125 + 1.0);
    if (i > 0) CHECK(prog.entries[i].trcd_code >= prog.entries[i - 1].trcd_code);
  }
  // DDR5-6400B tRCD alone is 52 tCK; the fastest tier adds a word-line delay on top.
  CHECK(prog.entries[0].trcd_code > 52);

  SUBCASE("more tiers than table entries is an infeasible result") {
    auto small = logic;
    small.tiers = 4;
    const auto q = program_tiering_table(t, tiers, small);
    CHECK_FALSE(q.feasible);
    CHECK(q.reason.find("4 tiering-table entries") != std::string::npos);
  }
  SUBCASE("a code wider than trcd_code_bits is an infeasible result") {
    auto narrow = logic;
    narrow.trcd_code_bits = 6;  // at most 63 clocks
    const auto q = program_tiering_table(t, tiers, narrow);
    CHECK_FALSE(q.feasible);
    CHECK(q.reason.find("tRCD code") != std::string::npos);
  }
  SUBCASE("rows beyond the start-row field are an infeasible result") {
    auto tiny = logic;
    tiny.bank_capacity = units::MiB(64.0);  // 16384 rows: 14 bits, the table has 32768
    const auto q = program_tiering_table(t, tiers, tiny);
    CHECK_FALSE(q.feasible);
    CHECK(q.reason.find("start-row") != std::string::npos);
  }
  SUBCASE("a tier faster than tCL (SRAM) gets code 0") {
    auto fast = tiers;
    fast[0].latency = units::ns(2.0);
    CHECK(program_tiering_table(t, fast, logic).entries[0].trcd_code == 0);
  }
}

TEST_CASE("Bad row-space input is a config_error naming the field") {
  const auto tiers = small_tiers();
  CHECK(field_of([&] { (void)make_tiering_table(tiers, 0, units::KiB(1.0)); }) == "banks");
  CHECK(field_of([&] { (void)make_tiering_table(tiers, 1, units::B(0.0)); }) == "row_buffer");
  CHECK(field_of([&] { (void)make_tiering_table(std::vector<memory_tier<>>{}, 1, units::KiB(1.0)); }) == "tiers");
  auto bad = tiers;
  bad[1].bandwidth = units::GBps(-1.0);
  CHECK(field_of([&] { (void)make_tiering_table(bad, 1, units::KiB(1.0)); }) == "tiers[1].bandwidth");
  bad = tiers;
  bad[2].capacity = units::B(strata_test::k_nan);
  CHECK(field_of([&] { (void)make_tiering_table(bad, 1, units::KiB(1.0)); }) == "tiers[2].capacity");
  bad = tiers;
  bad[0].capacity = units::B(1e21);  // 1e21 B / 1 B rows > 2^40 rows
  CHECK(field_of([&] { (void)make_tiering_table(bad, 1, units::B(1.0)); }) == "tiers[0].capacity");
  const auto t = make_tiering_table(tiers, 1, units::KiB(1.0));
  CHECK(field_of([&] { (void)program_tiering_table(t, std::vector<memory_tier<>>(tiers.begin(), tiers.end() - 1),
                                                   logic_die_params<>{}); }) == "tiers");
}

TEST_CASE("The tiering table and its programmed entries round-trip through JSON") {
  const auto t = make_tiering_table(small_tiers(), 2, units::KiB(1.0));
  const json j = t;
  CHECK(j.get<tiering_table>() == t);
  const tiering_table_timing<> timing{.t_ck = units::ns(0.5), .t_cl = units::ns(14.0)};
  CHECK(json(timing).get<tiering_table_timing<>>() == timing);
  CHECK(json(row_interval{3, 9}).get<row_interval>() == row_interval{3, 9});
}

TEST_CASE("The row space instantiates with the autodiff scalar") {
  using strata_test::fvar1;
  std::vector<memory_tier<fvar1>> tiers;
  for (const auto& t : small_tiers()) {
    tiers.push_back({t.name, t.capacity, t.bandwidth, t.latency, t.energy_per_byte, t.banks});
  }
  const data_size<fvar1> rb = units::KiB(fvar1(1.0));
  const auto t = make_tiering_table(tiers, 1, rb);
  CHECK(t.first_row == std::vector<long long>{0, 8, 20});
  CHECK(rows_per_expert(units::KiB(fvar1(3.0)), 1, rb) == 3);
  const auto prog = program_tiering_table(t, tiers, logic_die_params<fvar1>{}, tiering_table_timing<fvar1>{});
  CHECK(prog.entries.size() == 3);
}
