#include "strata/chiplet/token_groups.hpp"

#include <doctest/doctest.h>

#include <numeric>

using namespace strata;

TEST_CASE("token groups collect each home chiplet's tokens per expert and layer") {
  // 4 tokens, 2 layers, 4 experts, k = 2; 2 chiplets: tokens 0-1 on chiplet 0, 2-3 on 1.
  routing_trace t(2, 4, 2);
  t.push_back({0, 1, 2, 3});
  t.push_back({0, 2, 2, 3});
  t.push_back({1, 3, 0, 1});
  t.push_back({0, 3, 0, 2});
  const auto g = token_groups(t, 2, {0, 4});
  REQUIRE(g.size() == 2);
  // Layer 0: expert 0 from chiplet 0 (2 tokens) and chiplet 1 (1); expert 1: c0 1, c1 1;
  // expert 2: c0 1; expert 3: c1 2.
  const std::vector<token_group> l0{{0, 0, 0, 0, 2}, {0, 0, 1, 1, 1}, {0, 1, 0, 0, 1}, {0, 1, 1, 1, 1},
                                    {0, 2, 0, 0, 1}, {0, 3, 1, 1, 2}};
  CHECK(g[0] == l0);
  int total = 0;
  for (const auto& grp : g[1]) {
    CHECK(grp.layer == 1);
    CHECK(grp.source == grp.aggregate);
    total += grp.tokens;
  }
  CHECK(total == 4 * 2);  // every token appears in k groups
}

TEST_CASE("a window wraps around the end of the trace and spreads tokens over all chiplets") {
  routing_trace t(1, 8, 1);
  for (std::uint16_t i = 0; i < 8; ++i) t.push_back({i});
  const auto g = token_groups(t, 16, {6, 32});  // 32 tokens from token 6, wrapping 4 times
  int total = 0;
  std::vector<int> per_chiplet(16, 0);
  for (const auto& grp : g[0]) {
    total += grp.tokens;
    per_chiplet[static_cast<std::size_t>(grp.source)] += grp.tokens;
  }
  CHECK(total == 32);
  for (int n : per_chiplet) CHECK(n == 2);  // ⌈32 / 16⌉ tokens per home
  CHECK(home_chiplet(511, 512, 16) == 15);
  CHECK(home_chiplet(0, 512, 16) == 0);
  CHECK_THROWS_AS(token_groups(routing_trace(1, 8, 1), 16, {0, 32}), config_error);  // empty trace
  CHECK_THROWS_AS(token_groups(t, 16, {0, 0}), config_error);
}
