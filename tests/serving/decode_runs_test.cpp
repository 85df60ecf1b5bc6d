// The engine's runs of pure decode steps in one pass (`engine_core::run_decode_steps`, driven by
// `drive_engine` with `decode_runs`) and its decode cohort (`engine_core::set_cohort`, on with
// them) give the result every step through the scheduler's pass gives, to the last bit; the
// latency percentiles by selection (`detail::select_percentiles`) are the nearest-rank
// percentiles of the sorted samples, and the weighted ones of one scan
// (`detail::weighted_percentiles`) `weighted_percentile` at each p; the step's attention costed by
// `detail::prepared_op_cost` is `cost_of`'s, and the thread's reused gap buffer
// (`detail::engine_gap_buffer`) changes no run's numbers.
#include "strata/serving/serving_json.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "strata/report/vllm_campaign_runs.hpp"
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

// Every field the two runs' results hold (its JSON, every request's times and gaps' order-free
// numbers, the counts), bit for bit.
void same_results(const serving_result& fast, const serving_result& each) {
  REQUIRE(fast.feasible == each.feasible);
  CHECK(fast.reason == each.reason);
  CHECK(json(fast).dump() == json(each).dump());
  CHECK(fast.first_token_s == each.first_token_s);
  CHECK(fast.finish_s == each.finish_s);
  CHECK(fast.decode_steps == each.decode_steps);
  CHECK(fast.mixed_steps == each.mixed_steps);
  CHECK(fast.prefill_steps == each.prefill_steps);
}

// Random arrivals and lengths, some requests in prefix groups.
std::vector<request> cohort_requests(double rate, std::int64_t count, int prompt_max, int out_max, int groups,
                                     std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::exponential_distribution<double> gap(rate);
  std::uniform_int_distribution<int> prompt(8, prompt_max), output(1, out_max), group(-1, groups - 1);
  std::vector<request> reqs;
  double t = 0.0;
  for (std::int64_t i = 0; i < count; ++i) {
    t += gap(rng);
    request q;
    q.id = i;
    q.arrival_s = t;
    q.prompt = prompt(rng);
    q.output = output(rng);
    if (groups > 0) {
      q.prefix_group = group(rng);
      if (q.prefix_group >= 0) q.prefix_tokens = 20 + 17 * q.prefix_group;
    }
    reqs.push_back(q);
  }
  return reqs;
}

// The run of `reqs` with the cohort and decode runs and with every step through the scheduler's pass.
void cohort_same(const std::vector<request>& reqs, const engine_params& ep, const engine_limits& lim,
                 std::int64_t blocks, const std::string& what) {
  CAPTURE(what);
  const auto card = baseline_gpu(h100_sxm5());
  const model m = preset("Llama-3.1-8B");
  gpu_step_costs c1(card, 1, m, {}, ep.sampler), c2(card, 1, m, {}, ep.sampler);
  const scheduler_params sp;
  const auto fast = detail::run_engine(reqs, ep, lim, blocks, c1, sp, 1, true);
  const auto each = detail::run_engine(reqs, ep, lim, blocks, c2, sp, 1, false);
  same_results(fast, each);
}

// An engine driven step by step with the cohort on and off: the same steps, the same state after
// each (counters, gaps, every request's tokens and blocks).
void cohort_steps_same(const std::vector<request>& reqs, const engine_params& ep, const engine_limits& lim,
                       std::int64_t blocks) {
  const auto card = baseline_gpu(h100_sxm5());
  const model m = preset("Llama-3.1-8B");
  gpu_step_costs c1(card, 1, m, {}, ep.sampler), c2(card, 1, m, {}, ep.sampler);
  engine_request_state s1(reqs.size()), s2(reqs.size());
  engine_core<gpu_step_costs> a(reqs, s1, ep, lim, blocks, c1), b(reqs, s2, ep, lim, blocks, c2);
  a.set_cohort(true);
  std::size_t next = 0;
  double t = 0.0;
  std::vector<std::size_t> d1, d2, h1, h2;
  int steps = 0;
  while (steps < 100000) {
    while (next < reqs.size() && reqs[next].arrival_s <= t) {
      a.admit(next, reqs[next].arrival_s);
      b.admit(next, reqs[next].arrival_s);
      ++next;
    }
    const auto x = a.begin_step(t), y = b.begin_step(t);
    REQUIRE(x.status == y.status);
    CHECK(a.running() == b.running());
    CHECK(a.waiting() == b.waiting());
    CHECK(a.free_blocks() == b.free_blocks());
    if (x.status == engine_step_status::idle) {
      if (next >= reqs.size()) break;
      t = std::max(t, reqs[next].arrival_s);
      continue;
    }
    REQUIRE(x.status != engine_step_status::stuck);
    if (x.status == engine_step_status::preempted) continue;
    REQUIRE(x.time_s == y.time_s);
    t += x.time_s;
    a.end_step(t, d1, h1);
    b.end_step(t, d2, h2);
    REQUIRE(d1 == d2);
    ++steps;
  }
  CHECK(a.gaps() == b.gaps());
  CHECK(a.counters().energy_j == b.counters().energy_j);
  CHECK(a.counters().busy_time_s == b.counters().busy_time_s);
  CHECK(a.counters().batch_sum == b.counters().batch_sum);
  CHECK(a.counters().preemptions == b.counters().preemptions);
  CHECK(a.counters().prefix_cached_tokens == b.counters().prefix_cached_tokens);
  CHECK(a.counters().extra_passes == b.counters().extra_passes);
  CHECK(s1.computed == s2.computed);
  CHECK(s1.gen == s2.gen);
  CHECK(s1.held == s2.held);
  CHECK(s1.shared == s2.shared);
  CHECK(s1.last == s2.last);
  CHECK(s1.finish == s2.finish);
  CHECK(d1.size() == reqs.size());
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

TEST_CASE("engine: the decode cohort's steps give every number of the scheduler's pass") {
  for (const std::uint64_t seed : {1u, 2u, 3u, 4u}) {
    CAPTURE(seed);
    engine_params ep;
    ep.shared_prefix_tokens = 24;
    const engine_limits lim{2048, 128};
    const auto reqs = cohort_requests(12.0, 400, 900, 400, 0, seed);
    cohort_same(reqs, ep, lim, 20000, "random arrivals and lengths, a shared prefix");
    engine_params nocache = ep;
    nocache.enable_prefix_caching = false;
    cohort_same(reqs, nocache, lim, 20000, "prefix caching off");
    cohort_same(cohort_requests(12.0, 400, 900, 400, 4, seed + 10), ep, lim, 20000, "prefix groups");
    engine_params whole = ep;
    whole.enable_chunked_prefill = false;
    cohort_same(reqs, whole, {1024, 128}, 20000, "chunked prefill off");
    cohort_same(reqs, ep, {96, 128}, 20000, "a budget of 96 tokens (it binds)");
    cohort_same(reqs, ep, lim, 260, "260 blocks (preemption)");
    cohort_same(reqs, ep, {2048, 12}, 20000, "max_num_seqs 12");
    engine_params sync = ep;
    sync.host.async_scheduling = false;
    sync.host.tokenize_s_per_token = 0.0;
    cohort_same(reqs, sync, lim, 20000, "synchronous scheduling");
    cohort_same(cohort_requests(6.0, 200, 6000, 300, 2, seed + 20), ep, {8192, 128}, 8000, "long prompts");
    engine_params odd = ep;
    odd.block_size = 12;
    cohort_same(reqs, odd, lim, 400, "a block size of 12, preemption");
    // Short outputs beside long chunked prompts: requests finishing at their first token in the
    // steps members finish in, ahead of them in running order.
    const auto shorts = cohort_requests(30.0, 400, 3000, 4, 0, seed + 40);
    cohort_same(shorts, ep, {512, 128}, 20000, "short outputs, long chunked prompts");
    cohort_steps_same(shorts, ep, {512, 128}, 20000);
    cohort_steps_same(reqs, ep, lim, 300);
    cohort_steps_same(reqs, sync, {128, 64}, 20000);
    cohort_steps_same(cohort_requests(12.0, 400, 900, 400, 4, seed + 30), ep, lim, 20000);
  }
}

TEST_CASE("engine: every campaign run with the decode cohort gives the scheduler's pass's numbers") {
  int runs = 0;
  for (const auto& run : vllm_campaign_runs()) {
    if (!run.hf_fixture.empty()) continue;
    CAPTURE(run.key);
    const auto m = vllm_campaign_model(run, std::nullopt, {});
    const auto reqs = vllm_campaign_requests(run);
    const auto card = vllm_campaign_card(baseline_gpu(h100_sxm5()));
    const auto ep = vllm_campaign_engine(run);
    const auto served = gpu_serving_baseline(card, m, run.tp);
    const auto ref = simulate_gpu(card, m, scheduler_params{}, reqs, run.tp, ep);
    const std::int64_t blocks = ref.kv_tokens / ep.block_size;
    const auto lim = engine_limits_of(ep, card.memory_capacity, card.name);
    gpu_step_costs c1(card, served.second, served.first, {}, ep.sampler);
    gpu_step_costs c2(card, served.second, served.first, {}, ep.sampler);
    const auto fast = detail::run_engine(reqs, ep, lim, blocks, c1, scheduler_params{}, 1, true);
    const auto each = detail::run_engine(reqs, ep, lim, blocks, c2, scheduler_params{}, 1, false);
    same_results(fast, each);
    CHECK(fast.e2e.mean_s == ref.e2e.mean_s);
    ++runs;
  }
  CHECK(runs > 10);
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
  // Every digit of both numbers at work: values over many binary orders (subnormals, 0 and the
  // largest), fractional weights, ties of value with different weights.
  std::uniform_real_distribution<double> u(-1080.0, 1020.0);
  std::vector<std::pair<double, double>> y(20000);
  for (std::size_t i = 0; i < y.size(); ++i) {
    const double v = i % 7 == 0 ? y[i / 2].first : std::exp2(u(rng)) * (1.0 + 1e-3 * d(rng));
    y[i] = {v, i % 3 == 0 ? 0.37 * w(rng) : double(w(rng))};
  }
  y.push_back({0.0, 0.0});
  y.push_back({std::numeric_limits<double>::max(), 1e300});
  y.push_back({std::numeric_limits<double>::denorm_min(), 3.0});
  auto want_y = y;
  std::sort(want_y.begin(), want_y.end());
  REQUIRE(detail::radix_sort_samples(y));
  CHECK(y == want_y);
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

TEST_CASE("weighted percentiles by buckets and selection: weighted_percentiles' values for any samples, p order and size") {
  std::mt19937_64 rng(29);
  for (const std::size_t n : {1u, 2u, 3u, 17u, 101u, 2000u, 70000u}) {
    for (const int spread : {1, 3, 60, 1 << 20}) {  // all equal, few values, ties, nearly distinct
      std::uniform_int_distribution<int> d(0, spread - 1), w(0, 4);
      std::vector<std::pair<double, double>> x(n);
      for (auto& e : x) e = {0.25 * d(rng) + 1e-3, double(w(rng))};
      for (const auto& p : {std::array<double, 4>{0.5, 0.9, 0.99, 1.0}, std::array<double, 4>{0.99, 0.5, 0.5, 0.0},
                            std::array<double, 4>{0.0, 0.25, 0.9, 0.1}, std::array<double, 4>{1.5, -1.0, 0.3, 0.7}}) {
        auto sorted = x, selected = x;
        const auto want = detail::weighted_percentiles(sorted, p);
        const auto got = detail::select_weighted_percentiles(selected, p);
        CAPTURE(n);
        CAPTURE(spread);
        for (std::size_t k = 0; k < p.size(); ++k) {
          CAPTURE(p[k]);
          CHECK(got[k] == want[k]);
        }
        CHECK(selected == x);  // left as it was
      }
    }
  }
  // Sorted, reversed and all-zero-weight inputs; and samples the selection hands to the sort
  // (negative or fractional weights, a NaN value): the same values.
  std::vector<std::pair<double, double>> up(5000), zero(50, {2.0, 0.0});
  for (std::size_t i = 0; i < up.size(); ++i) up[i] = {double(i), 1.0 + double(i % 3)};
  auto down = up;
  std::reverse(down.begin(), down.end());
  const std::array<double, 3> p{0.5, 0.9, 0.99};
  // Skewed: gaps of 10-60 ms, zeros, one outlier of 10^6 s and an infinite one (the buckets by bits).
  std::vector<std::pair<double, double>> skew(30000);
  std::mt19937_64 r2(5);
  std::uniform_real_distribution<double> ms(0.010, 0.060);
  for (std::size_t i = 0; i < skew.size(); ++i) skew[i] = {i % 97 == 0 ? 0.0 : ms(r2), double(1 + r2() % 64)};
  skew[10] = {1e6, 3.0};
  auto skew_inf = skew;
  skew_inf[20] = {std::numeric_limits<double>::infinity(), 40000.0};
  for (auto v : {up, down, zero, skew, skew_inf}) {
    auto s = v;
    CHECK(detail::select_weighted_percentiles(v, p) == detail::weighted_percentiles(s, p));
  }
  CHECK(detail::select_weighted_percentiles(zero, p) == std::array<double, 3>{2.0, 2.0, 2.0});
  std::vector<std::pair<double, double>> frac{{1.0, 0.5}, {2.0, 0.25}, {3.0, 0.25}}, neg{{1.0, 2.0}, {2.0, -1.5}, {3.0, 1.0}};
  for (auto v : {frac, neg}) {
    auto s = v;
    CHECK(detail::select_weighted_percentiles(v, p) == detail::weighted_percentiles(s, p));
  }
  CHECK(detail::select_weighted_percentiles(frac, std::array<double, 1>{0.5}) == std::array<double, 1>{1.0});
  std::vector<std::pair<double, double>> none;
  CHECK(detail::select_weighted_percentiles(none, p) == std::array<double, 3>{0.0, 0.0, 0.0});
}

TEST_CASE("order_free_sum: exact on representable sums, the same double in any order") {
  const auto sum_of = [](const std::vector<double>& v) {
    return detail::order_free_sum([&v](auto&& add) {
      for (double t : v) add(t);
    });
  };
  // Cancellation a running sum loses: 2^53 + 1 + 1 is 2^53 + 2 exactly (left to right: 2^53).
  CHECK(sum_of({0x1p53, 1.0, 1.0}) == 0x1p53 + 2.0);
  CHECK(sum_of({1e16, 1.0, -1e16}) == 1.0);
  CHECK(sum_of({}) == 0.0);
  CHECK(sum_of({0.0, -0.0}) == 0.0);
  CHECK(sum_of({-3.5, 1.25}) == -2.25);
  CHECK(std::isinf(sum_of({1.0, std::numeric_limits<double>::infinity()})));
  // Terms k·2^-30 with integer k < 2^40: their sum is representable, so it must come out exact.
  std::mt19937_64 rng(31);
  std::uniform_int_distribution<std::int64_t> k(0, (std::int64_t{1} << 40) - 1);
  std::vector<double> t(1000);
  std::int64_t exact = 0;
  for (auto& x : t) {
    const auto kk = k(rng) * (k(rng) % 2 == 0 ? 1 : -1);
    exact += kk;
    x = std::ldexp(double(kk), -30);
  }
  CHECK(sum_of(t) == std::ldexp(double(exact), -30));
  // Gap-like terms over six decades: every order gives the same bits, within an ulp of the
  // compensated sum.
  std::uniform_real_distribution<double> u(-6.0, 0.0);
  std::vector<double> g(20000);
  for (auto& x : g) x = std::pow(10.0, u(rng)) * double(1 + rng() % 64);
  const double s0 = sum_of(g);
  long double ref = 0.0L;
  for (double x : g) ref += x;
  CHECK(std::abs(s0 - double(ref)) <= 2.0 * std::abs(s0) * std::numeric_limits<double>::epsilon());
  for (int rep = 0; rep < 5; ++rep) {
    std::shuffle(g.begin(), g.end(), rng);
    CHECK(sum_of(g) == s0);
  }
  // The inter-token gaps' weighted mean: the same for the gaps in any order.
  std::vector<std::pair<double, double>> gaps(5000);
  for (auto& e : gaps) e = {std::pow(10.0, u(rng)), double(1 + rng() % 32)};
  const double m0 = detail::weighted_mean(gaps);
  std::shuffle(gaps.begin(), gaps.end(), rng);
  CHECK(detail::weighted_mean(gaps) == m0);
  CHECK(detail::weighted_mean(std::vector<std::pair<double, double>>{{2.0, 1.0}, {4.0, 3.0}}) == 3.5);
  CHECK(detail::weighted_mean(std::vector<std::pair<double, double>>{{2.0, 0.0}}) == 0.0);
}

TEST_CASE("prepared_op_cost: cost_of's time and energy, bit for bit, for the prepared operator at any counts") {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (const char* name : {"Mixtral-8x7B", "Llama-3.1-8B", "Qwen2.5-32B", "DeepSeek-V2-Lite"}) {
    const model m = preset(name);
    op attn{};
    for (const auto& o : step_operators(m, {.mode = phase::decode, .batch = 1, .context = 1})) {
      if (o.kind == op_kind::attention) attn = o;
    }
    REQUIRE(attn.kind == op_kind::attention);
    for (const int devices : {1, 2, 8, 16}) {
      auto card = baseline_gpu(h100_sxm5());
      card.op_overhead = units::s(3e-6 * u(rng));
      const roofline_machine mach = make_machine(card, devices);
      for (const int shards : {0, 1, attn.kv_shards}) {
        op a = attn;
        a.kv_shards = shards;
        const detail::prepared_op_cost prep(a, mach);
        for (int k = 0; k < 200; ++k) {
          CAPTURE(name);
          CAPTURE(devices);
          CAPTURE(k);
          // Counts over many scales, some zero (no KV, no activations, no FLOPs).
          const double s = std::pow(10.0, 12.0 * u(rng));
          a.flops = units::flop(k % 7 == 0 ? 0.0 : s * u(rng));
          a.activation_bytes = units::B(k % 5 == 0 ? 0.0 : s * u(rng) * 1e-3);
          a.kv_bytes = units::B(k % 3 == 0 ? 0.0 : s * u(rng));
          a.tokens = u(rng) * 100.0;
          const auto want = cost_of(a, mach);
          const auto got = prep.cost(a);
          CHECK(got.time.si() == want.time.si());
          CHECK(got.energy.si() == want.energy.si());
          CHECK(got.compute_time.si() == want.compute_time.si());
          CHECK(got.memory_time.si() == want.memory_time.si());
          CHECK(got.compute_bound == want.compute_bound);
        }
      }
    }
  }
}

TEST_CASE("latency percentiles by their bits: the sorted order's values over wide ranges; other samples selected as before") {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::uniform_int_distribution<int> d(0, 9);
  for (const std::size_t n : {64u, 65u, 100u, 1000u, 16800u}) {
    for (int shape = 0; shape < 4; ++shape) {
      std::vector<double> x(n);
      for (auto& v : x) {
        switch (shape) {
          case 0: v = std::pow(10.0, 12.0 * u(rng) - 6.0); break;  // many binades
          case 1: v = 0.03 + 1e-12 * d(rng); break;                  // clustered, many ties
          case 2: v = d(rng) == 0 ? 5.0 + u(rng) : 0.025 + 1e-3 * u(rng); break;  // a few outliers
          default: v = d(rng) < 5 ? 0.0 : u(rng); break;             // zeros
        }
      }
      std::vector<double> sorted = x;
      const std::array<double, 3> p{0.50, 0.90, 0.99};
      const auto q = detail::select_percentiles(x, p);
      CAPTURE(n);
      CAPTURE(shape);
      for (std::size_t i = 0; i < p.size(); ++i) CHECK(q[i] == percentile(sorted, p[i]));
      // One rank twice, and ranks in one bucket: selected again in what the selection left.
      const auto twice = detail::select_percentiles(x, std::array<double, 4>{0.5, 0.5, 0.51, 1.0});
      CHECK(twice[0] == percentile(sorted, 0.5));
      CHECK(twice[1] == percentile(sorted, 0.5));
      CHECK(twice[2] == percentile(sorted, 0.51));
      CHECK(twice[3] == sorted.back());
    }
  }
  // A negative, −0, NaN or infinite sample: the selection on the samples themselves, as before.
  for (const double odd : {-1.0, -0.0, std::numeric_limits<double>::infinity()}) {
    std::vector<double> x(100);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<double>((i * 37) % 100);
    x[3] = odd;
    std::vector<double> sorted = x;
    const auto q = detail::select_percentiles(x, std::array<double, 2>{0.01, 0.99});
    CHECK(q[0] == percentile(sorted, 0.01));
    CHECK(q[1] == percentile(sorted, 0.99));
  }
  std::array<double, 1> out{};
  std::vector<double> with_nan(80, 1.0);
  with_nan[5] = std::numeric_limits<double>::quiet_NaN();
  CHECK_FALSE(detail::select_ranks_by_bits(with_nan, std::array<std::size_t, 1>{3}, out));
  std::vector<double> with_minus_zero(80, 1.0);
  with_minus_zero[0] = -0.0;
  CHECK_FALSE(detail::select_ranks_by_bits(with_minus_zero, std::array<std::size_t, 1>{3}, out));
}

TEST_CASE("bits buckets: values in bit order, equal values in one bucket, at most n buckets") {
  // bits(1.0) = 0x3FF0'0000'0000'0000, bits(3.0) = 0x4008'0000'0000'0000: span = 3·2^51; with
  // n = 5 the shift is 51 (span >> 50 = 6 ≥ 5, span >> 51 = 3 < 5), so 4 buckets.
  const detail::bits_buckets b(1.0, 3.0, 5);
  CHECK(b.count() == 4);
  CHECK(b(1.0) == 0);
  CHECK(b(1.25) == 0);  // bits − bits(1.0) = 2^50
  CHECK(b(1.5) == 1);   // 2^51
  CHECK(b(2.0) == 2);   // 2^52
  CHECK(b(2.5) == 2);   // 5·2^50
  CHECK(b(3.0) == 3);   // 3·2^51
  // One value: one bucket.
  const detail::bits_buckets one(7.0, 7.0, 1);
  CHECK(one.count() == 1);
  CHECK(one(7.0) == 0);
  // 0 to +∞ (bits 0x7FF0'0000'0000'0000 = 2047·2^52) in n = 3: shift 62 (2047 >> 9 = 3 ≥ 3,
  // 2047 >> 10 = 1 < 3), 2 buckets split at 2.0 (bits 2^62).
  const detail::bits_buckets wide(0.0, std::numeric_limits<double>::infinity(), 3);
  CHECK(wide.count() == 2);
  CHECK(wide(0.0) == 0);
  CHECK(wide(std::nextafter(2.0, 0.0)) == 0);
  CHECK(wide(2.0) == 1);
  CHECK(wide(std::numeric_limits<double>::infinity()) == 1);
  // Random values: the buckets follow the sorted order, equal values share one, at most n.
  std::mt19937_64 rng(5);
  std::lognormal_distribution<double> d(0.0, 2.0);
  for (const std::size_t n : {1, 2, 7, 64, 1000}) {
    std::vector<double> x(n);
    for (auto& v : x) v = std::round(d(rng) * 8.0) / 8.0;  // repeats among them
    std::sort(x.begin(), x.end());
    const detail::bits_buckets r(x.front(), x.back(), n);
    CAPTURE(n);
    CHECK(r.count() <= n);
    CHECK(r(x.front()) == 0);
    CHECK(r(x.back()) == r.count() - 1);
    for (std::size_t i = 1; i < n; ++i) {
      CHECK(r(x[i - 1]) <= r(x[i]));
      if (x[i - 1] == x[i]) CHECK(r(x[i - 1]) == r(x[i]));
    }
  }
}

TEST_CASE("engine: the thread's gap buffer is reused; a run gives its numbers after any other run and on a new thread") {
  const auto runs = vllm_campaign_runs();
  const auto card = baseline_gpu(h100_sxm5());
  const vllm_campaign_run* small = nullptr;
  for (const auto& r : runs) {
    if (r.key == "19-llama-3-1-8b-tp1-roleplay") small = &r;
  }
  REQUIRE(small != nullptr);
  const model m = preset(small->model);
  const auto reqs = vllm_campaign_requests(*small);
  const auto first = simulate_vllm_campaign_run(*small, m, card, reqs);
  // The buffer holds the run's gaps (an entry per step at least), kept for the next run.
  const auto steps = static_cast<std::size_t>(first.decode_steps + first.mixed_steps + first.prefill_steps);
  CHECK(detail::engine_gap_buffer().capacity() >= steps);
  const auto* held = detail::engine_gap_buffer().data();
  // Another run (other requests, another card) in between, then the first again: the same numbers,
  // the same buffer (no allocation: the run fit in it).
  request_gen_params g;
  g.rate = 3.0;
  g.count = 300;
  g.seed = 5;
  auto slow = card;
  slow.memory_efficiency *= 0.5;
  (void)simulate_gpu(vllm_campaign_card(slow), m, scheduler_params{}, generate_requests(g), 1, vllm_campaign_engine(*small));
  const auto again = simulate_vllm_campaign_run(*small, m, card, reqs);
  same_results(again, first);
  CHECK(detail::engine_gap_buffer().data() == held);
  // The drawn requests' overload is the run's.
  same_results(simulate_vllm_campaign_run(*small, m, card), first);
  // A new thread starts with an empty buffer: the same numbers.
  serving_result other;
  std::thread t([&] { other = simulate_vllm_campaign_run(*small, m, card, reqs); });
  t.join();
  same_results(other, first);
}
