#include "strata/hcrmap/token_mapper.hpp"
#include "strata/hcrmap/layer_eval.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>

#include "strata/core/json.hpp"
#include "support/field_of.hpp"
#include "support/common.hpp"

using namespace strata;
using strata_test::field_of;

namespace {
using strata_test::sliced_package;
// One layer, two experts of 1 MiB on chiplet-local HBM; the work of a 1024 × 1024 SwiGLU expert.
moe_layer_shape mapper_shape() {
  moe_layer_shape m;
  m.weight_bytes = units::MiB(1.0);
  m.flops_per_token = units::flop(6.0 * 1024 * 1024);
  m.token_bytes = units::B(2048.0);
  m.gate_flops_per_token = units::flop(2.0 * 1024 * 2);
  m.combine_flops_per_token = units::flop(2.0 * 1024);
  m.top_k = 1;
  return m;
}
int hbm_of(int chiplet) { return sliced_package().banks_of(tier_kind::hbm, chiplet).front(); }
}  // namespace

TEST_CASE("split_blocks cuts groups into blocks of at most block_tokens and conserves tokens") {
  const std::vector<token_group> g{{0, 1, 2, 2, 37}, {0, 3, 5, 5, 16}, {0, 4, 1, 1, 0}};
  const auto b = split_blocks(g, 16);
  // 37 = 16 + 16 + 5; 16 stays whole; an empty group stays one (empty) block.
  REQUIRE(b.size() == 5);
  CHECK(b[0].tokens == 16);
  CHECK(b[2].tokens == 5);
  CHECK(b[3].tokens == 16);
  CHECK(b[4].tokens == 0);
  for (const auto& x : b) CHECK(x.tokens <= 16);
  const auto sum = [](const std::vector<token_group>& v) {
    return std::accumulate(v.begin(), v.end(), 0, [](int a, const token_group& x) { return a + x.tokens; });
  };
  CHECK(sum(b) == sum(g));
  CHECK(b[1].expert == 1);
  CHECK(b[1].source == 2);
  CHECK(field_of([&] { (void)split_blocks(g, 0); }) == "block_tokens");
}

TEST_CASE("the fast mapper spreads a hot expert's blocks over its replicas as the counters fill (Algorithm 2)") {
  residency res(sliced_package(), 1, 1, units::MiB(1.0), {.budget_factor = 2.0});
  const int a = res.place(0, 0, 0, hbm_of(0));
  const int b = res.place(0, 0, 15, hbm_of(15));
  // Eight 16-token blocks from chiplet 5 (hops: 5 to chiplet 0 is 2, to chiplet 15 is 4).
  std::vector<token_group> g(8, token_group{0, 0, 5, 5, 16});
  fast_token_mapper m(sliced_package(), mapper_shape(), res);
  const auto x = m.map(g);
  REQUIRE(x.size() == g.size());
  CHECK(x[0] == a);  // both idle: the nearer replica (shorter dispatch and gather routes)
  int on_b = 0;
  for (int e : x) on_b += e == b ? 1 : 0;
  CHECK(on_b > 0);  // the counters make the far replica cheaper once the near one is loaded
  CHECK(on_b < 8);
  // Routing correctness (Eq. 21): every group on a published replica of its expert.
  for (int e : x) CHECK((e == a || e == b));
}

TEST_CASE("Eq. 39's terms: queue grows with the mapped work, stream is paid only by an idle replica") {
  residency res(sliced_package(), 1, 1, units::MiB(1.0), {.budget_factor = 2.0});
  const int a = res.place(0, 0, 0, hbm_of(0));
  fast_token_mapper m(sliced_package(), mapper_shape(), res);
  const token_group g{0, 0, 0, 0, 16};
  const auto t0 = m.terms(g, a);
  // Local group on a chiplet-local HBM replica: no link on the path, Eq. 7 gives 0.
  CHECK(t0.path == doctest::Approx(0.0));
  // 16 tokens × 6 Mi FLOP on one chiplet (16 cores × 512 GFLOP/s × 0.8): 1.5 µs of Δ_w = 1 ms;
  // a lone replica gets all 16 cores, so chiplet and replica levels agree.
  const double rate = 16 * 2.0 * 256 * 1e9 * 0.8;
  CHECK(t0.queue == doctest::Approx(16 * 6.0 * 1024 * 1024 / rate / 1e-3));
  // Weights: 50 ns + 1 MiB from one pseudo-channel (460 GB/s / 32 = 14.375 GB/s) behind no other
  // traffic (bank wait 0), exposed beyond the queue (Eq. 15 overlap).
  const double ready = (50e-9 + 1048576.0 / 14.375e9) / 1e-3;
  CHECK(t0.bank == 0.0);
  CHECK(t0.stream == doctest::Approx(ready - t0.queue));
  m.commit(g, a);
  const auto t1 = m.terms(g, a);
  CHECK(t1.queue == doctest::Approx(2 * t0.queue));
  // Open: its ready time is fixed; more queued work hides more of it.
  CHECK(t1.stream == doctest::Approx(ready - t1.queue));
  // A second replica on the same bank waits behind the first one's stream.
  residency two(sliced_package(), 1, 2, units::MiB(1.0), {.budget_factor = 2.0});
  const int x = two.place(0, 0, 0, hbm_of(0));
  const int y = two.place(0, 1, 0, hbm_of(0));
  fast_token_mapper m2(sliced_package(), mapper_shape(), two);
  m2.commit({0, 0, 0, 0, 16}, x);
  const auto ty = m2.terms({0, 1, 0, 0, 16}, y);
  CHECK(ty.bank == doctest::Approx(1048576.0 / 14.375e9 / 1e-3 - ty.queue));
}

TEST_CASE("replica_core_share is the evaluation's Eq. 4 split (one core each, the rest by work)") {
  // n experts with one replica each on chiplet 0, expert e routed 10·(e + 1) tokens: the cores
  // the critical path gives each replica against replica_core_share's count.
  for (int n : {4, 15, 16, 20}) {
    CAPTURE(n);
    residency res(sliced_package(), 1, n, units::MiB(1.0), {.budget_factor = 1.0});
    std::vector<token_group> g;
    std::vector<int> entry;
    double total = 0.0;
    for (int e = 0; e < n; ++e) {
      entry.push_back(res.place(0, e, 0, hbm_of(0)));
      g.push_back({0, e, 0, 0, 10 * (e + 1)});
      total += 10 * (e + 1);
    }
    const auto ev = evaluate_directory_layer(sliced_package(), mapper_shape(), res, g, entry);
    for (std::size_t r = 0; r < ev.entry_of_replica.size(); ++r) {
      const int k = ev.result.replica_cores[r];
      const int est = replica_core_share(16, n, ev.result.replica_tokens[r], total);
      CHECK(k >= est);      // the floor of the proportional share ...
      CHECK(k <= est + 1);  // ... and at most one core of the largest remainders
      if (n >= 16) CHECK(k == 1);
    }
  }
}

TEST_CASE("groups without a choice are committed first, so a choosing group sees their load") {
  // Expert 0 has replicas on chiplets 0 and 1; expert 1 has one, on chiplet 0, and 320 tokens.
  // Expert 0's groups come first in the list, from chiplet 0: chiplet 0's load from expert 1 is
  // known before they are mapped, so they all go to chiplet 1, one hop away.
  residency res(sliced_package(), 1, 2, units::MiB(1.0), {.budget_factor = 2.0});
  res.place(0, 0, 0, hbm_of(0));
  const int far = res.place(0, 0, 1, hbm_of(1));
  const int hot = res.place(0, 1, 0, hbm_of(0));
  std::vector<token_group> g(4, token_group{0, 0, 0, 0, 16});
  for (int i = 0; i < 20; ++i) g.push_back({0, 1, 0, 0, 16});
  fast_token_mapper m(sliced_package(), mapper_shape(), res);
  const auto x = m.map(g);
  for (int i = 0; i < 4; ++i) CHECK(x[static_cast<std::size_t>(i)] == far);
  for (int i = 4; i < 24; ++i) CHECK(x[static_cast<std::size_t>(i)] == hot);
}

TEST_CASE("on a chiplet with as many active replicas as cores, a hot replica runs on one core: the mapper sends it elsewhere") {
  // Chiplet 0 serves 16 cold experts (one token each); hot expert 16 has replicas on chiplets 0
  // and 1 and 256 tokens from chiplet 0. On chiplet 0 its replica would be one of 17 active
  // replicas, on one core (Eq. 4, list scheduling); on chiplet 1 it has all 16 cores.
  residency res(sliced_package(), 1, 17, units::MiB(1.0), {.budget_factor = 2.0});
  std::vector<token_group> g;
  for (int e = 0; e < 16; ++e) {
    res.place(0, e, 0, hbm_of(0));
    g.push_back({0, e, 0, 0, 1});
  }
  const int near = res.place(0, 16, 0, hbm_of(0));
  const int away = res.place(0, 16, 1, hbm_of(1));
  for (int i = 0; i < 16; ++i) g.push_back({0, 16, 0, 0, 16});
  // The queue and path terms alone (the bank term would also see the 16 streams queued on
  // chiplet 0's HBM and send the tokens away for that reason).
  fast_token_mapper m(sliced_package(), mapper_shape(), res, {.w_queue = 1.0, .w_path = 1.0, .w_bank = 0.0, .w_stream = 0.0});
  const auto x = m.map(g);
  int on_away = 0, on_near = 0;
  for (std::size_t i = 16; i < g.size(); ++i) (x[i] == away ? on_away : on_near) += g[i].tokens;
  CHECK(on_away > 3 * on_near);
  // And the evaluation agrees: the mapper's layer is faster than nearest-replica and
  // fewest-tokens routing of the same groups.
  const auto t = [&](const std::vector<int>& e) { return evaluate_directory_layer(sliced_package(), mapper_shape(), res, g, e).result.t_moe.si(); };
  CHECK(t(x) < t(nearest_replica(sliced_package(), res, g)));
  CHECK(t(x) < t(least_tokens_replica(res, g)));
  CHECK(near != away);
}

TEST_CASE("simple routings: nearest replica and fewest tokens") {
  residency res(sliced_package(), 1, 1, units::MiB(1.0), {.budget_factor = 2.0});
  const int a = res.place(0, 0, 0, hbm_of(0));
  const int b = res.place(0, 0, 15, hbm_of(15));
  const std::vector<token_group> g{{0, 0, 14, 14, 5}, {0, 0, 1, 1, 5}, {0, 0, 1, 1, 3}};
  CHECK(nearest_replica(sliced_package(), res, g) == std::vector<int>{b, a, a});
  CHECK(least_tokens_replica(res, g) == std::vector<int>{a, b, a});
}

TEST_CASE("fast_map_params: bad weights name their field and the parameters round-trip through JSON") {
  CHECK(field_of([] { validate(fast_map_params{.w_queue = -1.0}); }) == "w_queue");
  CHECK(field_of([] { validate(fast_map_params{.w_queue = 0, .w_path = 0, .w_bank = 0, .w_stream = 0}); }) == "w_queue");
  CHECK(field_of([] { validate(fast_map_params{.block_tokens = 0}); }) == "block_tokens");
  const fast_map_params p{.w_queue = 2.0, .w_path = 0.5, .w_bank = 0.25, .w_stream = 3.0, .block_tokens = 8};
  const json j = p;
  CHECK(j.get<fast_map_params>() == p);
}

TEST_CASE("a fast mapper kept from layer to layer maps as a new one, after the directory has grown too") {
  residency res(sliced_package(), 1, 2, units::MiB(1.0), {.budget_factor = 3.0});
  const int a = res.place(0, 0, 0, hbm_of(0));
  (void)res.place(0, 0, 15, hbm_of(15));
  (void)res.place(0, 1, 6, hbm_of(6));
  std::vector<token_group> g;
  for (int i = 0; i < 24; ++i) g.push_back(token_group{0, i % 3 == 0 ? 1 : 0, (5 * i) % 16, (3 * i + 1) % 16, 16});
  fast_token_mapper kept(sliced_package(), mapper_shape(), res);
  std::vector<int> x;
  kept.map_into(g, x);
  CHECK(x == fast_token_mapper(sliced_package(), mapper_shape(), res).map(g));
  // Another layer's groups (fewer), then the same after a new replica: the counters are sized to
  // the directory of the moment, the pair routes kept are the substrate's.
  const std::vector<token_group> few(g.begin(), g.begin() + 5);
  kept.map_into(few, x);
  CHECK(x.size() == 5);
  CHECK(x == fast_token_mapper(sliced_package(), mapper_shape(), res).map(few));
  const int c = res.place(0, 0, 10, hbm_of(10));
  kept.map_into(g, x);
  CHECK(x == fast_token_mapper(sliced_package(), mapper_shape(), res).map(g));
  CHECK(std::find(x.begin(), x.end(), c) != x.end());  // the new replica takes load
  CHECK(std::find(x.begin(), x.end(), a) != x.end());
}
