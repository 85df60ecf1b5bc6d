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

TEST_CASE("a decode window's groups come from B different sequences, one token each") {
  // 64 sequences of 8 tokens logged one after another; expert = sequence id at every position.
  routing_trace t(2, 64, 1);
  for (int s = 0; s < 64; ++s) {
    for (int p = 0; p < 8; ++p) {
      t.push_back({static_cast<std::uint16_t>(s), static_cast<std::uint16_t>((s + p) % 64)}, {.seq = s, .pos = p});
    }
  }
  decode_batch b;
  const auto g = decode_token_groups(t, 16, {.batch = 32, .seed = 3}, &b);
  CHECK(b.sequences == 32);
  // Layer 0's expert is the sequence id: 32 distinct experts, one token each (the first 32 rows
  // of the file would be 4 sequences, 4 experts).
  CHECK(g[0].size() == 32);
  for (const auto& grp : g[0]) CHECK(grp.tokens == 1);
  CHECK_THROWS_AS(decode_token_groups(t, 16, {.batch = 65}), config_error);
  // An explicit list: token 9 (sequence 1, position 1) on chiplet 0 of 1.
  const std::vector<std::size_t> one{9};
  const auto h = token_groups(t, 1, std::span<const std::size_t>(one));
  CHECK(h[1] == std::vector<token_group>{{1, 2, 0, 0, 1}});
  const std::vector<std::size_t> bad{999};
  CHECK_THROWS_AS(token_groups(t, 1, std::span<const std::size_t>(bad)), config_error);
}
