// The engine's runs of pure decode steps in one pass (`engine_core::run_decode_steps`, driven by
// `drive_engine` with `decode_runs`) give the result every step through `begin_step` gives, to
// the last bit, and the latency percentiles by selection (`detail::select_percentiles`) are the
// nearest-rank percentiles of the sorted samples, and the weighted ones of one scan
// (`detail::weighted_percentiles`) `weighted_percentile` at each p.
#include "strata/serving/serving_json.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "strata/workload/presets.hpp"

using namespace strata;

namespace {

// Uniform prompt and output lengths, Poisson arrivals.
std::vector<request> decode_runs_requests(double rate, std::int64_t count, int out_max, std::uint64_t seed) {
  request_gen_params g;
  g.rate = rate;
  g.count = count;
  g.seed = seed;
  g.prompt = {.kind = length_kind::uniform, .value = 0, .min = 40, .max = 700, .values = {}};
  g.output = {.kind = length_kind::uniform, .value = 0, .min = 1, .max = out_max, .values = {}};
  return generate_requests(g);
}

// The run of `reqs` on 2 x H100 (Mixtral-8x7B) with and without the decode runs: every number of
// the result (its JSON) and every request's first and last token time, bit for bit.
void decode_runs_same(const std::vector<request>& reqs, const engine_params& ep, const engine_limits& lim,
                      std::int64_t blocks, const std::string& what) {
  CAPTURE(what);
  const auto card = baseline_gpu(h100_sxm5());
  const model m = preset("Mixtral-8x7B");
  gpu_step_costs fast_costs(card, 2, m, {}, ep.sampler), step_costs(card, 2, m, {}, ep.sampler);
  const scheduler_params sp;
  const auto fast = detail::run_engine(reqs, ep, lim, blocks, fast_costs, sp, 1, true);
  const auto each = detail::run_engine(reqs, ep, lim, blocks, step_costs, sp, 1, false);
  REQUIRE(fast.feasible == each.feasible);
  REQUIRE(fast.feasible);
  CHECK(json(fast).dump() == json(each).dump());
  REQUIRE(fast.first_token_s.size() == each.first_token_s.size());
  bool same = true;
  for (std::size_t i = 0; i < fast.first_token_s.size(); ++i) {
    same = same && fast.first_token_s[i] == each.first_token_s[i] && fast.finish_s[i] == each.finish_s[i];
  }
  CHECK(same);
  CHECK(fast.decode_steps > 0);
}

}  // namespace

TEST_CASE("engine: runs of pure decode steps in one pass give every number of the step-by-step run") {
  engine_params ep;
  ep.shared_prefix_tokens = 32;
  const engine_limits lim{2048, 128};
  const auto reqs = decode_runs_requests(4.0, 300, 300, 7);
  // Async scheduling (the default): an arrival joins a step after it reached the engine.
  decode_runs_same(reqs, ep, lim, 20000, "async scheduling, room for every request");
  // Synchronous scheduling, no tokenisation delay.
  engine_params sync = ep;
  sync.host.async_scheduling = false;
  sync.host.tokenize_s_per_token = 0.0;
  decode_runs_same(reqs, sync, lim, 20000, "synchronous scheduling");
  // The cap reached: arrivals queue behind a full running set (the runs go on while they queue).
  decode_runs_same(decode_runs_requests(40.0, 300, 300, 11), ep, {2048, 8}, 20000, "max_num_seqs 8, overloaded");
  // Few KV blocks: the runs stop before a block the free ones cannot give; preemptions happen.
  decode_runs_same(decode_runs_requests(20.0, 200, 300, 13), ep, lim, 200, "200 blocks, preemption");
  // Prefix caching off.
  engine_params nocache = ep;
  nocache.enable_prefix_caching = false;
  decode_runs_same(reqs, nocache, lim, 20000, "prefix caching off");
}

TEST_CASE("engine: a decode run ends at a request's last token and at an arrival (hand case)") {
  // Two requests at t = 0 (prompt 16, outputs 5 and 40) and one at t = 10 s: the first finishes
  // after 4 decode steps, the second runs on alone, the third arrives long after. Every step
  // counted the same either way.
  std::vector<request> reqs;
  reqs.push_back({0, 0.0, 16, 5, 0, -1});
  reqs.push_back({1, 0.0, 16, 40, 0, -1});
  reqs.push_back({2, 10.0, 16, 3, 0, -1});
  engine_params ep;
  ep.shared_prefix_tokens = 0;
  const auto card = baseline_gpu(h100_sxm5());
  const model m = preset("Mixtral-8x7B");
  gpu_step_costs c1(card, 2, m, {}, ep.sampler), c2(card, 2, m, {}, ep.sampler);
  const auto fast = detail::run_engine(reqs, ep, {2048, 128}, 100, c1, scheduler_params{}, 1, true);
  const auto each = detail::run_engine(reqs, ep, {2048, 128}, 100, c2, scheduler_params{}, 1, false);
  REQUIRE(fast.feasible);
  // Steps: one prefill of both prompts, 39 decode steps of the second (4 with the first), the
  // third's prefill and its 2 decode steps.
  CHECK(fast.prefill_steps == 2);
  CHECK(fast.decode_steps == 39 + 2);
  CHECK(fast.decode_steps == each.decode_steps);
  CHECK(json(fast).dump() == json(each).dump());
  CHECK(fast.finish_s[0] == each.finish_s[0]);
  CHECK(fast.finish_s[1] == each.finish_s[1]);
  CHECK(fast.finish_s[2] == each.finish_s[2]);
}

TEST_CASE("latency percentiles by selection: the nearest-rank percentiles of the sorted samples") {
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<int> d(0, 40);  // many ties
  for (const std::size_t n : {1u, 2u, 3u, 10u, 99u, 100u, 101u, 1000u}) {
    std::vector<double> x(n);
    for (auto& v : x) v = 0.25 * d(rng);
    std::vector<double> sorted = x;
    const double p50 = percentile(sorted, 0.50), p90 = percentile(sorted, 0.90), p99 = percentile(sorted, 0.99);
    const auto q = detail::select_percentiles(x, std::array<double, 3>{0.50, 0.90, 0.99});
    CAPTURE(n);
    CHECK(q[0] == p50);
    CHECK(q[1] == p90);
    CHECK(q[2] == p99);
    std::sort(x.begin(), x.end());
    CHECK(x == sorted);  // a reordering of the samples
  }
  std::vector<double> none;
  CHECK(detail::select_percentiles(none, std::array<double, 1>{0.5})[0] == 0.0);
  std::vector<double> three{3.0, 1.0, 2.0};  // nearest rank: ceil(0.5 * 3) = 2nd, ceil(0.99 * 3) = 3rd
  const auto q = detail::select_percentiles(three, std::array<double, 2>{0.5, 0.99});
  CHECK(q[0] == 2.0);
  CHECK(q[1] == 3.0);
}

TEST_CASE("inter-token gaps by radix sort: the order std::sort gives, a negative or NaN sample left to it") {
  std::mt19937_64 rng(9);
  std::uniform_int_distribution<int> d(0, 300), w(1, 5);
  std::vector<std::pair<double, double>> x(5000);
  for (auto& e : x) e = {1e-3 * d(rng) + 1e-9 * d(rng), double(w(rng))};
  x.push_back({0.0, 2.0});
  x.push_back({1e300, 1.0});
  auto want = x;
  std::sort(want.begin(), want.end());
  REQUIRE(detail::radix_sort_samples(x));
  CHECK(x == want);
  std::vector<std::pair<double, double>> neg{{1.0, 1.0}, {-1.0, 1.0}}, nan{{1.0, 1.0}, {std::nan(""), 1.0}};
  CHECK_FALSE(detail::radix_sort_samples(neg));
  CHECK(neg.front().first == 1.0);  // untouched
  CHECK_FALSE(detail::radix_sort_samples(nan));
  // weighted_percentile sorts either way: the weight-3 middle of {1 x1, 2 x3, 3 x1} at p = 0.5.
  std::vector<std::pair<double, double>> s{{3.0, 1.0}, {2.0, 3.0}, {1.0, 1.0}};
  CHECK(weighted_percentile(s, 0.5) == 2.0);
  CHECK(weighted_percentile(neg, 0.5) == -1.0);
}

TEST_CASE("weighted percentiles in one scan: weighted_percentile at each p, for any order of p and any weights") {
  std::mt19937_64 rng(13);
  std::uniform_int_distribution<int> d(0, 60), w(0, 4);  // ties, and weights of 0
  for (const std::size_t n : {1u, 2u, 3u, 10u, 101u, 2000u}) {
    std::vector<std::pair<double, double>> x(n);
    for (auto& e : x) e = {0.5 * d(rng), double(w(rng))};
    for (const auto& p : {std::array<double, 4>{0.5, 0.9, 0.99, 1.0}, std::array<double, 4>{0.99, 0.5, 0.5, 0.0},
                          std::array<double, 4>{0.0, 0.25, 0.9, 0.1}}) {
      auto one = x, all = x;
      const auto q = detail::weighted_percentiles(all, p);
      CAPTURE(n);
      for (std::size_t k = 0; k < p.size(); ++k) {
        CAPTURE(p[k]);
        CHECK(q[k] == weighted_percentile(one, p[k]));
      }
      CHECK(all == one);  // sorted the same way
    }
  }
  // Negative weights (std::sort's path): a running sum that falls, rescanned where a target is lower.
  std::vector<std::pair<double, double>> neg{{1.0, 2.0}, {2.0, -1.5}, {3.0, 1.0}, {4.0, 0.5}}, one = neg;
  const auto q = detail::weighted_percentiles(neg, std::array<double, 3>{0.4, 0.6, 1.0});
  CHECK(q[0] == weighted_percentile(one, 0.4));
  CHECK(q[1] == weighted_percentile(one, 0.6));
  CHECK(q[2] == weighted_percentile(one, 1.0));
  std::vector<std::pair<double, double>> none;
  CHECK(detail::weighted_percentiles(none, std::array<double, 2>{0.5, 0.9}) == std::array<double, 2>{0.0, 0.0});
}
