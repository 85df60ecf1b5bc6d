#include "strata/hcrmap/placement.hpp"

#include <doctest/doctest.h>

#include <algorithm>  // std::sort
#include <array>      // std::array
#include <cstdint>    // std::uint32_t
#include <vector>     // std::vector

#include "strata/core/json.hpp"
#include "support/field_of.hpp"
#include "support/common.hpp"

using namespace strata;
using doctest::Approx;
using strata_test::field_of;

namespace {
using strata_test::sliced_package;
}  // namespace

TEST_CASE("Eq. 36's terms by hand on the 4 x 4 mesh") {
  const auto& s = sliced_package();
  placement_inputs in;
  in.source_tokens.assign(16, 0.0);
  in.source_tokens[0] = 30.0;  // 30 tokens from chiplet 0, 10 from chiplet 15
  in.source_tokens[15] = 10.0;
  in.chiplet_queue.assign(16, 0.0);
  in.chiplet_queue[5] = 0.4;
  in.bank_pressure.assign(s.banks().size(), 0.0);
  in.tier_scarcity = {0.5, 0.25, 0.0};
  in.replica_chiplets = {0};
  in.stream_bytes = 1e6;
  in.window_s = 1e-3;
  const int hbm5 = s.banks_of(tier_kind::hbm, 5).front();
  const place_candidate c{tier_kind::hbm, 5, hbm5, 2};
  const auto t = placement_cost_terms(s, in, c);
  // Chiplet 5 = (1, 1): 2 hops from chiplet 0, 4 from chiplet 15; diameter 6.
  CHECK(t.source == Approx((30.0 * 2 + 10.0 * 4) / 40.0 / 6.0));
  CHECK(t.queue == Approx(0.4));
  // 1 MB striped over 2 pseudo-channels of 14.375 GB/s over 1 ms.
  CHECK(t.bank == Approx(0.5e6 / 14.375e9 / 1e-3));
  CHECK(t.capacity == Approx(0.25));
  CHECK(t.diversity == Approx(2.0 / 6.0));
  const placement_params p{.alpha_src = 1.0, .beta_queue = 2.0, .chi_bank = 3.0, .psi_cap = 4.0, .eta_div = 5.0};
  CHECK(placement_cost(s, in, c, p) ==
        Approx(t.source + 2 * t.queue + 3 * t.bank + 4 * t.capacity - 5 * t.diversity));
  // Eq. 35 over two candidates: chiplet 0's own HBM is nearer the sources but holds the
  // existing replica's chiplet (no diversity) — with the default weights chiplet 1 wins.
  const int hbm0 = s.banks_of(tier_kind::hbm, 0).front(), hbm1 = s.banks_of(tier_kind::hbm, 1).front();
  const std::vector<place_candidate> omega{{tier_kind::hbm, 0, hbm0, 2}, {tier_kind::hbm, 1, hbm1, 2}};
  const auto best = best_placement(s, in, omega);
  REQUIRE(best.has_value());
  const double c0 = placement_cost(s, in, omega[0]), c1 = placement_cost(s, in, omega[1]);
  CHECK(*best == (c0 <= c1 ? omega[0] : omega[1]));
  CHECK_FALSE(best_placement(s, in, {}).has_value());
}

TEST_CASE("the candidate set Omega holds only placements the residency accepts (Eq. 28-30)") {
  const auto& s = sliced_package();
  residency r(s, 1, 2, units::MB(100.0));  // too large for an SRAM group's 64 MB
  const auto omega = feasible_candidates(s, r, 0, 0);
  CHECK_FALSE(omega.empty());
  for (const auto& c : omega) {
    CHECK(c.tier != tier_kind::sram);
    CHECK(r.check_add(0, 0, c.chiplet, c.bank, c.span).empty());
  }
  // One candidate per chiplet for HBM, one per chiplet and DRAM home (4 IO chiplets) for DRAM.
  CHECK(omega.size() <= 16 * (1 + 4));
  // A chiplet that holds a replica of the expert is not offered again.
  r.place(0, 0, omega.front().chiplet, omega.front().bank, omega.front().span);
  for (const auto& c : feasible_candidates(s, r, 0, 0)) CHECK(c.chiplet != omega.front().chiplet);
  // Restricting the tiers.
  for (const auto& c : feasible_candidates(s, r, 0, 1, {false, false, true})) CHECK(c.tier == tier_kind::dram);
}

TEST_CASE("Omega offers every DRAM home with room to every chiplet, and Eq. 35 picks the least pressured") {
  const auto& s = sliced_package();
  const int nio = s.io_chiplets();
  REQUIRE(nio == 4);
  // 1 GB experts: too large for an SRAM group (64 MB) and a chiplet's HBM (512 MB).
  residency r(s, 1, 40, units::GB(1.0));
  const auto homes_of_chiplet = [&](const std::vector<place_candidate>& om, int c) {
    std::vector<int> h;
    for (const auto& k : om) {
      if (k.chiplet == c && k.tier == tier_kind::dram) h.push_back(s.banks()[static_cast<std::size_t>(k.bank)].home);
    }
    return h;
  };
  auto omega = feasible_candidates(s, r, 0, 0, {false, false, true});
  CHECK(omega.size() == static_cast<std::size_t>(16 * nio));
  for (int c = 0; c < 16; ++c) {
    auto h = homes_of_chiplet(omega, c);
    // Every IO chiplet, starting at c's own turn (the single-copy baseline's first choice).
    REQUIRE(h.size() == static_cast<std::size_t>(nio));
    CHECK(h.front() == s.chiplets() + c % nio);
    std::sort(h.begin(), h.end());
    for (int i = 0; i < nio; ++i) CHECK(h[static_cast<std::size_t>(i)] == s.chiplets() + i);
    CHECK(omega[static_cast<std::size_t>(c * nio)] == *r.nearest_room(0, 0, c, tier_kind::dram, c));
  }
  // Fill IO chiplet 1's DRAM: it leaves Omega for every chiplet; the other three stay.
  const auto [first1, span1] = s.home_banks(tier_kind::dram, s.chiplets() + 1);
  int e = 1;
  while (r.can_add(0, e, 0, first1, span1)) r.place(0, e++, 0, first1, span1);
  CHECK(e > 2);
  omega = feasible_candidates(s, r, 0, 0, {false, false, true});
  CHECK(omega.size() == static_cast<std::size_t>(16 * (nio - 1)));
  for (const auto& k : omega) CHECK(s.banks()[static_cast<std::size_t>(k.bank)].home != s.chiplets() + 1);
  for (const auto& k : omega) CHECK(r.check_add(0, 0, k.chiplet, k.bank, k.span).empty());
  // Eq. 35 among chiplet 4's DRAM homes: IO chiplets 0 (its first turn) and 2 pressured, 3 less
  // than 0 and 2: the argmin is IO chiplet 3, which the first home with room alone never offered.
  placement_inputs in;
  in.source_tokens.assign(16, 0.0);
  in.source_tokens[4] = 10.0;
  in.chiplet_queue.assign(16, 0.0);
  in.bank_pressure.assign(s.banks().size(), 0.0);
  for (int b : s.banks_of(tier_kind::dram, s.chiplets() + 0)) in.bank_pressure[static_cast<std::size_t>(b)] = 0.9;
  for (int b : s.banks_of(tier_kind::dram, s.chiplets() + 2)) in.bank_pressure[static_cast<std::size_t>(b)] = 0.8;
  for (int b : s.banks_of(tier_kind::dram, s.chiplets() + 3)) in.bank_pressure[static_cast<std::size_t>(b)] = 0.3;
  in.stream_bytes = 1e9;
  in.window_s = 1e-3;
  std::vector<place_candidate> of4;
  for (const auto& k : omega) {
    if (k.chiplet == 4) of4.push_back(k);
  }
  REQUIRE(of4.size() == 3);
  CHECK(s.banks()[static_cast<std::size_t>(of4.front().bank)].home == s.chiplets() + 0);
  const auto best = best_placement(s, in, of4);
  REQUIRE(best.has_value());
  CHECK(s.banks()[static_cast<std::size_t>(best->bank)].home == s.chiplets() + 3);
}

TEST_CASE("placement_rooms gives feasible_candidates' Omega, and filled source and bank terms Eq. 36's, bit for bit, as a residency fills") {
  // Both HBM layouts (chiplet-local slices; stacks behind the IO chiplets, a pooled tier): 40 MB
  // experts, one per SRAM group, HBM mostly held by other data, placed at random (a fixed LCG)
  // until the budget runs out, some experts up to R^max; after each placement Ω is compared for
  // every expert, tier subset and moving replica.
  for (const substrate* sp : {&sliced_package(), &strata_test::package()}) {
    const auto& s = *sp;
    residency_params rp;
    rp.max_replicas_per_expert = 3;
    rp.budget_factor = 1.5;                           // the budget runs out before the last steps
    rp.hbm_other = tier_capacity(s, tier_kind::hbm) * 0.9;  // HBM fills too
    residency r(s, 2, 12, units::MB(40.0), rp);
    std::uint32_t x = 12345u;
    const auto next = [&x](std::uint32_t n) {
      x = x * 1664525u + 1013904223u;
      return static_cast<int>((x >> 8) % n);
    };
    int compared = 0, full = 0;
    placement_rooms rooms;
    std::vector<place_candidate> got;
    int empty = 0;
    for (int step = 0; step < 60; ++step) {
      rooms.build(s, r);
      for (int l = 0; l < 2; ++l) {
        for (int e = 0; e < 12; ++e) {
          std::vector<int> movers{-1};
          for (int i : r.of(l, e)) movers.push_back(i);
          for (unsigned m = 1; m < 8; ++m) {
            const std::array<bool, 3> tiers{(m & 1u) != 0, (m & 2u) != 0, (m & 4u) != 0};
            for (int moving : movers) {
              rooms.candidates(r, l, e, tiers, moving, got);
              CHECK(got == feasible_candidates(s, r, l, e, tiers, moving));
              ++compared;
            }
          }
          full += static_cast<int>(r.of(l, e).size()) >= 3 ? 1 : 0;
          for (int c = 0; c < s.chiplets(); ++c) {
            for (int b : {0, static_cast<int>(s.banks().size()) - 1}) {
              CHECK(r.can_add(l, e, c, b, 1) == (static_cast<int>(r.of(l, e).size()) < 3 && r.has_room(c, b, 1)));
            }
          }
        }
      }
      // Place a replica where Ω allows one, at random.
      const int l = next(2), e = next(12);
      const auto omega = feasible_candidates(s, r, l, e);
      if (omega.empty()) {
        ++empty;
        continue;
      }
      const auto& c = omega[static_cast<std::size_t>(next(static_cast<std::uint32_t>(omega.size())))];
      r.place(l, e, c.chiplet, c.bank, c.span);
      // Eq. 36 with the source terms filled: the same costs to the last bit.
      placement_inputs in;
      in.source_tokens.assign(static_cast<std::size_t>(s.chiplets()), 0.0);
      for (auto& t : in.source_tokens) t = double(next(50)) * 1.37;
      in.chiplet_queue.assign(static_cast<std::size_t>(s.chiplets()), 0.1);
      in.bank_pressure.assign(s.banks().size(), 0.2);
      in.replica_chiplets = {c.chiplet};
      in.stream_bytes = 4e7;
      auto filled = in;
      fill_source_terms(s, filled, next(2) == 0 ? std::vector<int>{} : chiplet_hops(s));
      fill_bank_terms(s, filled, omega);
      for (const auto& k : omega) {
        CHECK(placement_cost(s, filled, k) == placement_cost(s, in, k));
        CHECK(placement_cost_terms(s, filled, k).source == placement_cost_terms(s, in, k).source);
        CHECK(placement_cost_terms(s, filled, k).bank == placement_cost_terms(s, in, k).bank);
        CHECK(filled.bank_term_span[static_cast<std::size_t>(k.bank)] == k.span);
      }
    }
    CHECK(compared > 1000);
    CHECK(full > 0);   // some experts reached R^max: Ω empty for them
    CHECK(empty > 0);  // and the budget ran out
  }
}

TEST_CASE("placement_params: negative weights name their field; JSON round trip") {
  CHECK(field_of([] { validate(placement_params{.alpha_src = -1.0}); }) == "alpha_src");
  CHECK(field_of([] { validate(placement_params{.eta_div = -0.1}); }) == "eta_div");
  const placement_params p{.alpha_src = 0.5, .beta_queue = 2.0, .chi_bank = 1.5, .psi_cap = 0.0, .eta_div = 1.0};
  const json j = p;
  CHECK(j.get<placement_params>() == p);
}
