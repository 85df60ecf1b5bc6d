#include "strata/chiplet/residency.hpp"

#include <doctest/doctest.h>

#include <random>

#include "support/field_of.hpp"

using namespace strata;
using doctest::Approx;

namespace {
const substrate& package() {
  static const substrate s;
  return s;
}
}  // namespace

TEST_CASE("a pending copy becomes a legal target only after every chunk lands (§6.8)") {
  residency r(package(), 1, 4, units::MiB(3.0));
  const auto hbm = package().banks_of(tier_kind::hbm);
  for (int e = 0; e < 4; ++e) r.place(0, e, e, hbm[0], 1);
  const auto v0 = r.version();
  CHECK(r.legal(0, 1).size() == 1);
  const int pending = r.begin_copy(0, 1, 5, package().banks_of(tier_kind::sram, 0)[0], 1);
  CHECK(r.entries()[static_cast<std::size_t>(pending)].chunks_total == 3);  // 3 MiB in 1 MiB chunks
  CHECK(r.legal(0, 1).size() == 1);  // not yet legal
  CHECK_FALSE(r.land_chunks(pending, 2));
  CHECK(r.legal(0, 1).size() == 1);
  CHECK(r.version() == v0);
  CHECK(r.land_chunks(pending, 1));
  CHECK(r.legal(0, 1).size() == 2);
  CHECK(r.version() == v0 + 1);
  CHECK(r.entries()[static_cast<std::size_t>(pending)].version == r.version());
}

TEST_CASE("a retired replica stays until its in-flight groups finish, and the last one cannot go") {
  residency r(package(), 1, 1, units::MiB(1.0), {.budget_factor = 2.0});
  const auto hbm = package().banks_of(tier_kind::hbm);
  const int a = r.place(0, 0, 0, hbm[0], 1);
  CHECK_THROWS_AS(r.retire(a), config_error);  // |R| >= 1 (Eq. 2)
  const int b = r.place(0, 0, 1, hbm[1], 1);
  r.add_in_flight(a, 3);
  r.retire(a);
  CHECK(r.legal(0, 0) == std::vector<int>{b});
  CHECK(r.collect() == 0);  // groups mapped to the old version finish there first
  CHECK(r.entries().size() == 2);
  r.add_in_flight(a, -3);
  CHECK(r.collect() == 1);
  CHECK(r.entries().size() == 1);
  CHECK(r.used(hbm[0]) == Approx(0.0));
  CHECK(r.used(hbm[1]) == Approx(1048576.0));
}

TEST_CASE("placement limits: bank capacity (Eq. 1), replica count (Eq. 2) and budget (Eq. 24)") {
  SUBCASE("an SRAM bank holds its capacity minus the activation and metadata reserves") {
    // 4 MB banks (64 MB / 16), reserves 0.5 MiB + 64 KiB: 3 MB fits once, not twice.
    residency r(package(), 1, 2, units::MB(3.0));
    const int b = package().banks_of(tier_kind::sram, 0)[0];
    CHECK(r.check_add(0, 0, 0, b, 1).empty());
    r.place(0, 0, 0, b, 1);
    CHECK(r.check_add(0, 1, 0, b, 1).find("Eq. 1") != std::string::npos);
    CHECK(r.check_add(0, 1, 0, b + 1, 1).empty());
  }
  SUBCASE("at most R_max replicas") {
    residency_params p;
    p.max_replicas_per_expert = 2;
    p.budget_factor = 4.0;
    residency r(package(), 1, 1, units::MiB(1.0), p);
    const auto hbm = package().banks_of(tier_kind::hbm);
    r.place(0, 0, 0, hbm[0], 1);
    r.place(0, 0, 1, hbm[1], 1);
    CHECK(r.check_add(0, 0, 2, hbm[2], 1).find("R_max") != std::string::npos);
  }
  SUBCASE("the 1.3x residency budget") {
    residency r(package(), 1, 10, units::MiB(1.0));
    const auto hbm = package().banks_of(tier_kind::hbm);
    for (int e = 0; e < 10; ++e) r.place(0, e, 0, hbm[0], 1);
    for (int e = 0; e < 3; ++e) r.place(0, e, 1, hbm[1], 1);  // 13 = 1.3 × 10
    CHECK(r.check_add(0, 3, 2, hbm[2], 1).find("B_res") != std::string::npos);
    CHECK(r.violations().empty());
  }
  SUBCASE("SRAM of another group is not a legal bank") {
    residency r(package(), 1, 1, units::MiB(1.0));
    CHECK_THROWS_AS(r.place(0, 0, 2, package().banks_of(tier_kind::sram, 0)[0], 1), config_error);
  }
}

TEST_CASE("single-copy static placement fills SRAM, then HBM, then DRAM, one replica each") {
  // DeepSeek-V2-Lite: 26 MoE layers × 64 experts of 3·2048·1408·2 B = 17.3 MB.
  const auto wt = units::B(3.0 * 2048 * 1408 * 2);
  const auto r = single_copy_static(package(), 26, 64, wt);
  CHECK(r.entries().size() == 26 * 64);
  CHECK(r.violations().empty());
  int per_tier[3] = {0, 0, 0};
  for (const auto& e : r.entries()) ++per_tier[e.tier];
  // 16 SRAM banks of 4 MB per group hold three 1.08 MB-per-bank stripes; 4 groups → 12.
  CHECK(per_tier[0] == 12);
  // HBM: 8 GB in 32 × 250 MB pseudo-channels, two stacks of 16 (chiplet-local, beside chiplets
  // 5 and 10), each replica striped over its stack's 16.
  CHECK(per_tier[1] == 2 * static_cast<int>((250e6 - 65536) / (wt.si() / 16)));
  CHECK(per_tier[0] + per_tier[1] + per_tier[2] == 26 * 64);
  for (int l = 0; l < 26; ++l) {
    for (int e = 0; e < 64; ++e) CHECK(r.legal(l, e).size() == 1);
  }
  SUBCASE("a model larger than the package is a config_error") {
    CHECK_THROWS_AS(single_copy_static(package(), 58, 256, units::MB(44.0)), config_error);
  }
}

TEST_CASE("the metadata footprint stays within §7.5's bounds") {
  // Largest evaluated directory: DeepSeek-V3, 58 MoE layers × 256 experts at 1.3 copies.
  const auto m = metadata(package(), 58, 256, 1.3);
  CHECK(m.bytes_per_replica <= 64);
  CHECK(m.directory_bytes == static_cast<std::size_t>(std::ceil(1.3 * 58 * 256)) * sizeof(directory_entry) + 58 * 256 * 4);
  CHECK(m.directory_bytes <= 2097152);
  // 16 chiplets + 56 links + 104 banks + 3 tiers + 1 migration counter, 4 B each.
  CHECK(m.pressure_counter_bytes == (16 + 56 + 104 + 3 + 1) * 4);
  CHECK(m.pressure_counter_bytes <= 4096);
}

TEST_CASE("random legal placements never overfill a bank or break the replica limits") {
  std::mt19937_64 rng(7);
  residency_params p;
  p.budget_factor = 1.5;
  residency r(package(), 4, 16, units::MB(20.0), p);
  const int nb = static_cast<int>(package().banks().size());
  int placed = 0, refused = 0;
  for (int i = 0; i < 2000; ++i) {
    const int l = static_cast<int>(rng() % 4), e = static_cast<int>(rng() % 16), c = static_cast<int>(rng() % 16);
    const int bank = static_cast<int>(rng() % static_cast<unsigned>(nb));
    const int span = 1 + static_cast<int>(rng() % 8);
    if (r.check_add(l, e, c, bank, span).empty()) {
      r.place(l, e, c, bank, span);
      ++placed;
    } else {
      ++refused;
      CHECK_THROWS_AS(r.place(l, e, c, bank, span), config_error);  // the same verdict as check_add
    }
    for (int b = 0; b < nb; ++b) CHECK(r.used(b) <= r.usable(b) * (1 + 1e-9));
  }
  CHECK(placed > 0);
  CHECK(refused > 0);
  CHECK(r.resident_bytes().si() <= r.budget().si() * (1 + 1e-12));
  for (int l = 0; l < 4; ++l) {
    for (int e = 0; e < 16; ++e) CHECK(r.of(l, e).size() <= 4u);
  }
}

TEST_CASE("bank reserves larger than the bank are refused at the parameters, naming the reserve") {
  const substrate s;  // SRAM banks: 64 MB / 16 = 4 MB
  residency_params p;
  p.sram_reserve = units::MB(4.5);
  CHECK_THROWS_WITH_AS(residency(s, 2, 4, units::MB(1.0), p), doctest::Contains("the reserve exceeds the bank"),
                       config_error);
  CHECK(strata_test::field_of([&] { residency(s, 2, 4, units::MB(1.0), p); }) == "sram_reserve");
  residency_params m;
  m.metadata_reserve = units::MB(5.0);  // above every 4 MB SRAM bank
  CHECK(strata_test::field_of([&] { residency(s, 2, 4, units::MB(1.0), m); }) == "metadata_reserve");
  residency_params big;
  big.hbm_other = units::GB(9.0);  // more than the 8 GB tier
  CHECK(strata_test::field_of([&] { residency(s, 2, 4, units::MB(1.0), big); }) == "hbm_other");
}

TEST_CASE("non-expert data of a tier leaves experts only the rest of its banks") {
  const substrate s;
  const auto hbm = s.banks_of(tier_kind::hbm);
  const double bank = s.banks()[static_cast<std::size_t>(hbm.front())].capacity.si();  // 250 MB
  residency_params p;
  p.hbm_other = units::GB(4.0);  // half of every pseudo-channel
  residency r(s, 1, 4, units::MB(100.0), p);
  CHECK(r.usable(hbm.front()) == doctest::Approx(bank / 2 - p.metadata_reserve.si()));
  CHECK(r.check_add(0, 0, 0, hbm.front(), 1) == "");  // 100 MB of a 125 MB share
  r.place(0, 0, 0, hbm.front(), 1);
  CHECK(r.check_add(0, 1, 0, hbm.front(), 1).find("over capacity (Eq. 1)") != std::string::npos);
  // A tier filled by other data: the bank's reserve, not its experts, is why nothing fits.
  residency_params full;
  full.hbm_other = units::GB(8.0);
  residency f(s, 1, 4, units::MB(100.0), full);
  CHECK(f.usable(hbm.front()) == 0.0);
  CHECK(f.check_add(0, 0, 0, hbm.front(), 1).find("has no room for experts: its reserve") != std::string::npos);
}
