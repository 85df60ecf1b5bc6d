#include "strata/stratum/attention_mapping.hpp"

#include <doctest/doctest.h>

#include "strata/workload/presets.hpp"
#include "support/field_of.hpp"

using namespace strata;
using doctest::Approx;
using strata_test::field_of;

namespace {
std::vector<double> all_in(std::size_t n, std::size_t i) {
  std::vector<double> s(n, 0.0);
  s[i] = 1.0;
  return s;
}
}  // namespace

TEST_CASE("heads spread over chips and PU groups with at least two units per group") {
  const auto mixtral = preset("Mixtral-8x7B");  // 32 query heads, 8 KV heads (GQA 4)
  // B = 1 on 6 chips: W = 8 units, 4 target groups → one group per chip of all 32 PUs,
  // u = ⌈8 / 6⌉ = 2 units in the busiest group.
  auto a = split_attention(mixtral, 1, 6, 32);
  CHECK(a.units == 8);
  CHECK(a.query_per_unit == 4);
  CHECK(a.groups_per_chip == 1);
  CHECK(a.group_pus == 32);
  CHECK(a.units_per_group == 2);
  // B = 64 on 6 chips: W = 512, 256 target groups → ⌈256/6⌉ = 43 per chip → the largest divisor
  // of 32 not above it, 32 groups of one PU; u = ⌈512 / 192⌉ = 3.
  a = split_attention(mixtral, 64, 6, 32);
  CHECK(a.groups_per_chip == 32);
  CHECK(a.group_pus == 1);
  CHECK(a.units_per_group == 3);
  for (int b : {1, 2, 3, 7, 16, 100, 1000}) {
    const auto s = split_attention(mixtral, b, 6, 32);
    CHECK(32 % s.groups_per_chip == 0);
    CHECK(s.group_pus * s.groups_per_chip == 32);
    CHECK(s.units_per_group * 6 * s.groups_per_chip >= s.units);
    // At least two units per group whenever there are enough units to give each group two.
    if (s.units >= 2) CHECK(s.units_per_group >= 2);
  }
  // MLA: one latent per sequence, all query heads on it.
  const auto v2 = preset("DeepSeek-V2-Lite");
  const auto m = split_attention(v2, 8, 1, 32);
  CHECK(m.units == 8);
  CHECK(m.query_per_unit == v2.heads);
}

TEST_CASE("decode attention grows with context and reads the KV cache from its tiers") {
  const auto d = evaluate(nmp_params<>{});
  const auto m = preset("Mixtral-8x7B");
  const auto w = all_in(8, 0), kv_mid = all_in(8, 4), kv_slow = all_in(8, 7);
  double prev = 0.0;
  for (int s : {512, 1024, 2048, 4096, 16384}) {
    const auto c = attention_decode_cost(d, 6, m, 16, s, w, kv_mid);
    CHECK(c.time.si() > prev);
    prev = c.time.si();
    // KV read: B · S · 4 KiB per token per layer (8 KV heads × 128 × 2 × 2 B), all chips.
    CHECK(c.bytes_on("nmp.kv").in(units::B) == Approx(16.0 * s * 4096.0));
  }
  // The slowest tier is never faster than a middle tier.
  CHECK(attention_decode_cost(d, 6, m, 16, 4096, w, kv_slow).time >= attention_decode_cost(d, 6, m, 16, 4096, w, kv_mid).time);
  // Energy by part sums to the tree's energy.
  energy_parts<> e{};
  const auto c = attention_decode_cost(d, 6, m, 16, 2048, w, kv_mid, 0, {}, &e);
  CHECK(c.energy.si() == Approx(e.total().si()));
  CHECK(e.mac.si() > 0.0);
  CHECK(e.dram_activate.si() > 0.0);
}

TEST_CASE("bad attention inputs name the field") {
  const auto d = evaluate(nmp_params<>{});
  const auto m = preset("Mixtral-8x7B");
  CHECK(field_of([&] { (void)split_attention(m, 0, 6, 32); }) == "batch");
  CHECK(field_of([&] { (void)split_attention(m, 1, 0, 32); }) == "chips");
  CHECK(field_of([&] { (void)attention_decode_cost(d, 6, m, 1, 0, all_in(8, 0), all_in(8, 0)); }) == "context");
  CHECK(field_of([&] { (void)attention_decode_cost(d, 6, m, 1, 512, all_in(7, 0), all_in(8, 0)); }) == "shares");
}
