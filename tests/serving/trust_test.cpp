// Trust (issue 44): no "not computed" marker becomes a result, simulated time advances at every
// magnitude the inputs allow, integer searches cannot overflow, settings that do not apply are said.
#include "strata/serving/serving_json.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <climits>
#include <string>
#include <vector>

#include "strata/core/result_check.hpp"
#include "strata/workload/presets.hpp"
#include "support/field_of.hpp"

using namespace strata;
using doctest::Approx;
using strata_test::field_of;

namespace {

const std::string trust_data_dir = STRATA_TEST_DATA_DIR;

std::vector<request> trust_requests(int n, double gap_s, int prompt, int output) {
  std::vector<request> r;
  for (int i = 0; i < n; ++i) r.push_back({i, gap_s * (i + 1), prompt, output, i % 5, -1});
  return r;
}

// Every serving number that cannot be negative is not, and every one is finite (the library's own
// check, run here on purpose so that a test fails even if a path forgot to call it).
void trust_check_numbers(const serving_result& r) {
  CHECK_NOTHROW(detail::check_result_numbers(r, "serving_result"));
  for (std::size_t i = 0; i < r.first_token_s.size(); ++i) {
    CHECK(std::isfinite(r.first_token_s[i]));
    CHECK(r.finish_s[i] >= r.first_token_s[i]);
  }
}

stratum_serving_setup trust_mixtral_setup(schedule_policy p) {
  static const auto counts = load_expert_counts_csv(trust_data_dir + "/traces/olmoe_mixtral_expert_counts_by_domain.csv");
  stratum_serving_setup s;
  s.system = stratum_l();
  s.m = preset("Mixtral-8x7B");
  s.usage = topic_usage_from_counts(counts, "Mixtral-8x7B-v0.1", "topk2", "pretrained",
                                    {"arxiv", "book", "c4", "github", "wikipedia"}, s.m.moe_layers());
  s.scheduler.policy = p;
  return s;
}

}  // namespace

TEST_CASE("prompts longer than the token budget: positive TTFTs of at least one budget-sized prefill step") {
  // Mixtral-8x7B on 2 x H100, 4096-token prompts against the default 2048-token budget: each prompt
  // needs two chunk steps that sample nothing (the first) and one token (the second).
  const auto g = validated_gpu(h100_sxm5());
  const model m = preset("Mixtral-8x7B");
  gpu_step_costs c(g, 2, m);
  mixed_step first_chunk;
  first_chunk.tokens = 2048;
  first_chunk.prefill_tokens = 2048;
  first_chunk.prefill_pairs = 2048.0 * 2049.0 / 2.0;
  const auto chunk_cost = c.mixed(first_chunk);
  CHECK(chunk_cost.time_s > 0.0);  // a step that samples no token still takes time
  CHECK(chunk_cost.energy_j > 0.0);
  mixed_step empty;  // nothing scheduled: nothing charged
  CHECK(c.mixed(empty).time_s == 0.0);
  CHECK(c.mixed(empty).energy_j == 0.0);

  request_gen_params p;
  p.rate = 2.0;
  p.count = 40;
  p.prompt = {.kind = length_kind::fixed, .value = 4096, .min = 1, .max = 1, .values = {}};
  p.output = {.kind = length_kind::fixed, .value = 64, .min = 1, .max = 1, .values = {}};
  const auto reqs = generate_requests(p);
  for (const auto sched : {gpu_scheduler::engine, gpu_scheduler::fcfs}) {
    CAPTURE(static_cast<int>(sched));
    // The 2048-token budget of `first_chunk`, stated (vLLM's default on an H100 is 8192).
    const auto r = simulate_gpu(g, m, scheduler_params{}, reqs, 2, engine_params{.max_num_batched_tokens = 2048}, sched);
    REQUIRE(r.feasible);
    trust_check_numbers(r);
    CHECK(r.ttft.mean_s >= chunk_cost.time_s);
    CHECK(r.ttft_p50_s >= chunk_cost.time_s);
    CHECK(r.busy_time_s > 0.0);
    CHECK(r.energy_j > 0.0);
    // Every TTFT holds the whole prompt's prefill: at least two budget-sized chunks on the engine.
    for (std::size_t i = 0; i < reqs.size(); ++i) {
      const double ttft = r.first_token_s[i] - reqs[i].arrival_s;
      CHECK(ttft >= (sched == gpu_scheduler::engine ? 2.0 : 1.0) * chunk_cost.time_s);
    }
  }
}

TEST_CASE("every serving path, prompts around the budget and one-token outputs: every number finite and in range") {
  const auto g = validated_gpu(h100_sxm5());
  const model m = preset("Mixtral-8x7B");
  stratum_serving_memo memo;
  for (const int prompt : {1, 15, 2047, 2048, 2049, 4096, 9000}) {
    for (const int output : {1, 2, 17}) {
      CAPTURE(prompt);
      CAPTURE(output);
      const auto reqs = trust_requests(6, 0.05, prompt, output);
      for (const auto sched : {gpu_scheduler::engine, gpu_scheduler::fcfs}) {
        const auto r = simulate_gpu(g, m, scheduler_params{}, reqs, 2, engine_params{}, sched);
        REQUIRE(r.feasible);
        trust_check_numbers(r);
        CHECK(r.ttft.p50_s > 0.0);
        CHECK(r.e2e.mean_s >= r.ttft.mean_s);
      }
      for (const auto pol : {schedule_policy::fcfs, schedule_policy::topic}) {
        const auto r = simulate_stratum(trust_mixtral_setup(pol), reqs, nullptr, {}, &memo);
        REQUIRE(r.feasible);
        trust_check_numbers(r);
        CHECK(r.ttft.p50_s > 0.0);
      }
    }
  }
}

TEST_CASE("the result check names the first number out of range") {
  serving_result r;
  r.ttft.mean_s = -30.0;
  CHECK_THROWS_WITH_AS(detail::check_result_numbers(r, "serving_result"),
                       doctest::Contains("serving_result.ttft.mean_s = -30"), internal_error);
  r.ttft.mean_s = 1.0;
  r.stages.push_back({});
  r.stages[0].e2e.p99_s = std::numeric_limits<double>::infinity();
  CHECK_THROWS_WITH_AS(detail::check_result_numbers(r, "serving_result"),
                       doctest::Contains("serving_result.stages[0].e2e.p99_s = inf"), internal_error);
  r.stages[0].e2e.p99_s = 0.0;
  r.preemptions = -1;
  CHECK_THROWS_WITH_AS(detail::check_result_numbers(r, "serving_result"), doctest::Contains("preemptions = -1"),
                       internal_error);
  CHECK_NOTHROW(detail::check_result_numbers(r, "serving_result", [](std::string_view k) { return k == "preemptions"; }));
}

TEST_CASE("a staged load past the horizon is refused at once, naming the stages; draws stop at the request limit") {
  // 1e9 s of an idle stage, then 1e6 requests/s: the arrivals of the fast stage would sit near
  // 1e12 s, where a 1 µs gap no longer changes a double. Refused before anything is drawn.
  request_gen_params p;
  p.arrivals = arrival_process::poisson;
  p.stages = {{.rate = 1e-9, .duration_s = 1e9}, {.rate = 1e6, .duration_s = 1e-3}};
  const auto t0 = std::chrono::steady_clock::now();
  CHECK(field_of([&] { (void)generate_requests(p, "requests"); }) == "requests.stages");
  CHECK_THROWS_WITH_AS((void)generate_requests(p), doctest::Contains("horizon_s"), config_error);
  p.stages.assign(4096, {.rate = 1e-9, .duration_s = 1e9});
  p.stages.push_back({.rate = 1e6, .duration_s = 1.0});
  CHECK(field_of([&] { (void)generate_requests(p, "requests"); }) == "requests.stages");
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(1));
  // Within the horizon: an idle stage of 4e6 s then a fast one; the fast arrivals keep their gaps.
  p.stages = {{.rate = 1e-9, .duration_s = 4e6}, {.rate = 1e5, .duration_s = 0.01}};
  const auto reqs = generate_requests(p);
  REQUIRE(reqs.size() > 900);
  REQUIRE(reqs.size() < 1100);
  std::size_t distinct = 1;
  for (std::size_t i = 1; i < reqs.size(); ++i) distinct += reqs[i].arrival_s > reqs[i - 1].arrival_s ? 1 : 0;
  CHECK(distinct == reqs.size());
  // The drawing loop bounds its own output: stages past the validated count stop at the limit.
  request_gen_params big;
  big.arrivals = arrival_process::constant;
  big.stages = {{.rate = 1e6, .duration_s = 3.0}};  // 3 M arrivals, past the 2^21 limit
  detail::portable_rng rng(1);
  CHECK_THROWS_AS((void)detail::draw_staged_arrivals(big, rng), config_error);
  // A generated load whose count over its rate spans past the horizon names the rate.
  request_gen_params slow;
  slow.rate = 1e-3;
  slow.count = 10000;
  slow.arrivals = arrival_process::constant;
  CHECK(field_of([&] { (void)generate_requests(slow, "requests"); }) == "requests.rate");
  // A list's arrival past the horizon names the entry.
  const std::vector<request_spec> list{{.arrival_s = 5e6, .prompt = 4, .output = 4, .topic = "a"}};
  CHECK(field_of([&] { (void)requests_from_list(list, {"a"}); }) == "requests[0].arrival_s");
}

TEST_CASE("the device-count search doubles without overflow up to INT_MAX") {
  const auto g = validated_gpu(h100_sxm5());
  const model m = preset("Mixtral-8x7B");
  // KV of 4096 sequences of 131 072 tokens never fits, whatever the count: the search ends at
  // 2^30 devices, the last power of two below INT_MAX, and gives that degree's reason.
  const step_shape huge{.mode = phase::decode, .batch = 4096, .context = 131072};
  std::string why;
  CHECK(min_devices(g, m, huge, &why, INT_MAX) == 0);
  CHECK(why.find("1073741824") != std::string::npos);
  const step_shape small{.mode = phase::decode, .batch = 1, .context = 2048};
  CHECK(min_devices(g, m, small, nullptr, INT_MAX) == 2);
  CHECK(min_devices(g, m, small, nullptr, 1) == 0);
  CHECK(min_devices(g, m, small, nullptr, 3) == 2);
}

TEST_CASE("engine settings that cannot apply are said: a prefix past the prompt is capped, an unschedulable prompt names the budget") {
  const auto g = validated_gpu(h100_sxm5());
  const model q = preset("Qwen2.5-32B");
  const auto reqs = trust_requests(4, 10.0, 1000, 2);
  engine_params e;
  e.block_size = 16;
  e.shared_prefix_tokens = 4000;  // longer than every prompt: capped at 1000 (62 whole blocks)
  const auto r = simulate_gpu(g, q, scheduler_params{}, reqs, 1, e);
  REQUIRE(r.feasible);
  REQUIRE(r.notes.size() == 1);
  CHECK(r.notes[0].find("capped at its 1000 tokens") != std::string::npos);
  CHECK(r.prefix_cached_tokens == 3 * 992);
  e.shared_prefix_tokens = 1000;  // the same prefix, stated in range: the same run, no note
  const auto same = simulate_gpu(g, q, scheduler_params{}, reqs, 1, e);
  CHECK(same.notes.empty());
  CHECK(same.prefix_cached_tokens == r.prefix_cached_tokens);
  CHECK(same.ttft.mean_s == r.ttft.mean_s);

  engine_params whole;
  whole.max_num_batched_tokens = 2048;
  whole.enable_chunked_prefill = false;
  const auto w = simulate_gpu(g, q, scheduler_params{}, trust_requests(2, 1.0, 3000, 2), 1, whole);
  CHECK_FALSE(w.feasible);
  CHECK(w.reason.find("max_num_batched_tokens (2048)") != std::string::npos);
  CHECK(w.reason.find("enable_chunked_prefill") != std::string::npos);
}
