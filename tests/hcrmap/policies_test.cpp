#include "strata/hcrmap/policies.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <vector>
#include "support/common.hpp"

using namespace strata;

namespace {
using strata_test::sliced_package;
// Two layers of 16 experts of 24 MB; demand falls with the expert id, all from chiplet e % 16.
expert_profile profile() {
  expert_profile p(2, 16, 16);
  std::vector<token_group> g;
  for (int l = 0; l < 2; ++l) {
    for (int e = 0; e < 16; ++e) g.push_back({l, e, (3 * e) % 16, (3 * e) % 16, 160 - 10 * e});
  }
  p.add(g);
  return p;
}
int copies(const residency& r, int l, int e) { return static_cast<int>(r.legal(l, e).size()); }
}  // namespace

TEST_CASE("the profile ranks experts by demand") {
  const auto p = profile();
  CHECK(p.at(1, 0) == 160.0);
  const auto order = p.by_demand();
  REQUIRE(order.size() == 32);
  CHECK(order.front() == std::pair{0, 0});
  CHECK(order[1] == std::pair{1, 0});
  CHECK(order.back() == std::pair{1, 15});
}

TEST_CASE("every layout keeps Eq. 22-24 and one legal replica per expert") {
  const auto& s = sliced_package();
  const auto p = profile();
  const auto wt = units::MB(24.0);
  const residency_params rp{};
  const std::vector<int> evaluated{0};
  const std::vector<residency> layouts{
      fixed_replication_layout(s, 2, 16, wt, rp, p, evaluated), hydra_layout(s, 2, 16, wt, rp, p),
      moentwine_layout(s, 2, 16, wt, rp, p, evaluated), pimoe_layout(s, 2, 16, wt, rp, p),
      hcrmap_layout(s, 2, 16, wt, rp, p, 6.0 * 2048 * 1408, 16 * 409.6e9, 1e-3)};
  for (const auto& r : layouts) {
    CHECK(r.violations().empty());
    for (int l = 0; l < 2; ++l) {
      for (int e = 0; e < 16; ++e) CHECK(copies(r, l, e) >= 1);
    }
  }
  // Fixed replication and MoEntwine add copies only on the evaluated layer, within
  // (budget_factor − 1) × its experts = 0.3 × 16 = 4 copies, hottest first.
  for (const auto* r : {&layouts[0], &layouts[2]}) {
    int extra0 = 0, extra1 = 0;
    for (int e = 0; e < 16; ++e) {
      extra0 += copies(*r, 0, e) - 1;
      extra1 += copies(*r, 1, e) - 1;
    }
    CHECK(extra0 == 4);
    CHECK(extra1 == 0);
    CHECK(copies(*r, 0, 0) == 2);
    CHECK(copies(*r, 0, 15) == 1);
  }
  // Hydra and PIMoE keep one copy; Hydra puts each expert on its dominant source chiplet.
  for (int e = 0; e < 16; ++e) {
    CHECK(copies(layouts[1], 0, e) == 1);
    CHECK(layouts[1].entries()[static_cast<std::size_t>(layouts[1].of(0, e).front())].chiplet == (3 * e) % 16);
    CHECK(copies(layouts[3], 0, e) == 1);
  }
  // PIMoE and HCRMap give the hottest experts the near tier (the SRAM of a chiplet group).
  CHECK(layouts[3].tier(layouts[3].of(0, 0).front()) == tier_kind::sram);
  CHECK(layouts[4].tier(layouts[4].of(0, 0).front()) == tier_kind::sram);
}

TEST_CASE("fixed replication's copies go to the chiplets holding the fewest replicas of their layer") {
  const auto& s = sliced_package();
  // 8 experts per layer on a 16-chiplet mesh: static uses chiplets 0-7 for layer 0 and 8-15 for
  // layer 1, so a layer's copies have 8 idle chiplets to go to; 1.5 x budget = 4 copies.
  expert_profile p(2, 8, 16);
  std::vector<token_group> g;
  for (int l = 0; l < 2; ++l) {
    for (int e = 0; e < 8; ++e) g.push_back({l, e, e, e, 100 - 10 * e});
  }
  p.add(g);
  residency_params rp{};
  rp.budget_factor = 1.5;
  const auto r = fixed_replication_layout(s, 2, 8, units::MB(24.0), rp, p, {0, 1});
  CHECK(r.violations().empty());
  for (int l = 0; l < 2; ++l) {
    std::vector<int> per(16, 0);
    int extra = 0;
    for (int e = 0; e < 8; ++e) {
      std::vector<int> where;
      for (int x : r.legal(l, e)) where.push_back(r.entries()[static_cast<std::size_t>(x)].chiplet);
      extra += static_cast<int>(where.size()) - 1;
      for (int c : where) ++per[static_cast<std::size_t>(c)];
      std::sort(where.begin(), where.end());
      CHECK(std::adjacent_find(where.begin(), where.end()) == where.end());  // never two copies on one chiplet
      CHECK(copies(r, l, e) == (e < 4 ? 2 : 1));                             // the four hottest
    }
    CHECK(extra == 4);
    // No chiplet holds two replicas of the layer while another holds none.
    CHECK(*std::max_element(per.begin(), per.end()) == 1);
  }
}

TEST_CASE("HCRMap's first copies spread a layer's streams over banks (Eq. 35-36)") {
  const auto& s = sliced_package();
  // 64 equally demanded experts of one layer, too many for the SRAM: no two of them share an
  // HBM home while homes are free (their streams would queue on one bank span).
  expert_profile p(1, 64, 16);
  std::vector<token_group> g;
  for (int e = 0; e < 64; ++e) g.push_back({0, e, e % 16, e % 16, 10});
  p.add(g);
  const auto r = hcrmap_layout(s, 1, 64, units::MB(60.0), {}, p, 1e7, 16 * 409.6e9, 1e-3);
  CHECK(r.violations().empty());
  std::vector<int> per_home(s.banks().size(), 0);
  for (const auto& e : r.entries()) ++per_home[e.bank];
  int max_hbm = 0;
  for (std::size_t b = 0; b < s.banks().size(); ++b) {
    if (s.banks()[b].tier == tier_kind::hbm) max_hbm = std::max(max_hbm, per_home[b]);
  }
  CHECK(max_hbm <= 2);
  CHECK(to_string(policy_kind::hcrmap_no_hbm) == std::string("hcrmap_no_hbm"));
  CHECK(is_hcrmap(policy_kind::hcrmap_no_link));
  CHECK_FALSE(is_hcrmap(policy_kind::pimoe));
}
