// The former serving header paths (issue 45: the serving code every machine shares moved from
// include/strata/stratum/serving/ to include/strata/serving/, Stratum's own parts stayed there):
// each former path is a forwarding header that still gives every name it gave, with the same
// results. This file includes the former paths only and is compiled on its own, outside the unity
// batches (tests/CMakeLists.txt), so a name a forwarding header no longer gives fails to compile
// here. The only file of the project that includes a former path.
#include "strata/stratum/serving/engine.hpp"
#include "strata/stratum/serving/engine_host.hpp"
#include "strata/stratum/serving/length_csv.hpp"
#include "strata/stratum/serving/requests.hpp"
#include "strata/stratum/serving/scheduler.hpp"
#include "strata/stratum/serving/serving_json.hpp"
#include "strata/stratum/serving/simulator.hpp"
#include "strata/stratum/serving/step_costs.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <deque>
#include <string>
#include <vector>

#include "strata/workload/presets.hpp"
#include "strata/workload/trace_io.hpp"

using namespace strata;
using doctest::Approx;

namespace {

std::vector<request> former_at_times(const std::vector<double>& t, int prompt, int output) {
  std::vector<request> r;
  for (std::size_t i = 0; i < t.size(); ++i) r.push_back({static_cast<std::int64_t>(i), t[i], prompt, output, 0, -1});
  return r;
}

}  // namespace

TEST_CASE("former paths: the GPU engine's preemption hand case (engine.hpp, simulator.hpp)") {
  // As `serving.engine`: 4 blocks of 16 tokens, two requests of 16 prompt and 33 output tokens at
  // t = 0, 3 blocks each at their end: the second is preempted once and recomputed; 6 blocks hold
  // both to the end; 2 blocks never hold one.
  const auto reqs = former_at_times({0.0, 0.0}, 16, 33);
  scheduler_params sp;
  sp.kv_tokens = 64;
  const auto g = validated_gpu(h100_sxm5());
  const model m = preset("Mixtral-8x7B");
  const auto r = simulate_gpu(g, m, sp, reqs, 2);
  REQUIRE(r.feasible);
  CHECK(r.policy == "engine");
  CHECK(r.preemptions == 1);
  CHECK(r.prefill_steps == 2);
  sp.kv_tokens = 96;
  CHECK(simulate_gpu(g, m, sp, reqs, 2).preemptions == 0);
  sp.kv_tokens = 32;
  CHECK_FALSE(simulate_gpu(g, m, sp, reqs, 2).feasible);
}

TEST_CASE("former paths: a lone long prompt is the sum of its chunks' costs (step_costs.hpp, engine_host.hpp)") {
  const auto g = validated_gpu(h100_sxm5());
  const model m = preset("Mixtral-8x7B");
  engine_params ep{.max_num_batched_tokens = 2048};
  ep.host = engine_host_params::none();
  const auto r = simulate_gpu(g, m, scheduler_params{}, former_at_times({0.5}, 5000, 2), 2, ep);
  REQUIRE(r.feasible);
  REQUIRE(r.first_token_s.size() == 1);
  gpu_step_costs c(g, 2, m, {}, ep.sampler);
  const auto chunk = [](int n, int prior, bool last) {
    mixed_step s;
    s.tokens = n;
    s.sampled = last ? 1 : 0;
    s.prefill_tokens = n;
    s.prefill_pairs = double(n) * prior + double(n) * (n + 1) / 2.0;
    s.prefill_prior = prior;
    return s;
  };
  // 2048 + 2048 + 904 tokens.
  CHECK(r.first_token_s[0] == ((0.5 + c.mixed(chunk(2048, 0, false)).time_s) + c.mixed(chunk(2048, 2048, false)).time_s) +
                                  c.mixed(chunk(904, 4096, true)).time_s);
}

TEST_CASE("former paths: Stratum's hand case, three lone requests (simulator.hpp, step_costs.hpp)") {
  // As `serving.serving`: far apart, each request runs alone; TTFT = classifier latency + its
  // prefill on the xPU, the run ends with the last request's prefill (one output token).
  const auto counts = load_expert_counts_csv(std::string(STRATA_TEST_DATA_DIR) +
                                             "/traces/olmoe_mixtral_expert_counts_by_domain.csv");
  const std::vector<std::string> topics{"arxiv", "book", "c4", "github", "wikipedia"};
  stratum_serving_setup s;
  s.system = stratum_l();
  s.m = preset("Mixtral-8x7B");
  s.usage = topic_usage_from_counts(counts, "Mixtral-8x7B-v0.1", "topk2", "pretrained", topics, s.m.moe_layers());
  s.scheduler.policy = schedule_policy::fcfs;
  s.classifier.latency = units::ms(5.0);
  s.classifier.on_device = false;
  const std::vector<request_spec> list{{0.0, 256, 3, "arxiv"}, {10.0, 512, 2, "book"}, {20.0, 128, 1, "c4"}};
  const auto r = simulate_stratum(s, requests_from_list(list, topics));
  REQUIRE(r.feasible);
  stratum_step_costs c(prepare(s.system), s.m);
  const double pre0 = c.prefill(1, 256).time_s, pre1 = c.prefill(1, 512).time_s, pre2 = c.prefill(1, 128).time_s;
  CHECK(r.prefill_steps == 3);
  CHECK(r.decode_steps == 3);
  CHECK(r.ttft_max_s == Approx(0.005 + std::max({pre0, pre1, pre2})));
  CHECK(r.makespan_s == Approx(20.0 + 0.005 + pre2));
  CHECK(r.output_tokens == 6);
}

TEST_CASE("former paths: FCFS takes the head while it fits; bad settings name the field (scheduler.hpp)") {
  // Three waiting requests needing 100, 300 and 50 KV tokens; 2 slots, 350 tokens of room: the
  // head (100) joins, the second (300) does not fit and stops the group (head-of-line).
  serving_queue q(1);
  for (std::size_t r = 0; r < 3; ++r) q.push(r, 0);
  const std::vector<std::int64_t> kv{100, 300, 50};
  scheduler_params p;
  p.policy = schedule_policy::fcfs;
  p.max_prefill = 2;
  const schedule_state st{.now_s = 0.0, .owed_s = 0.0, .running = 0, .kv_free = 350, .current_label = -1,
                          .next_decode_s = 0.0};
  const auto kv_of = [&](std::size_t r) { return kv[r]; };
  const auto none = [](const auto&) { return 0.0; };
  const auto c = choose_next(p, q, st, [](std::size_t) { return 1.0; }, kv_of, none, [](int, int) { return 0.0; });
  CHECK(c.prefill);
  CHECK(c.group == std::vector<std::size_t>{0});
  p.max_batch = 0;
  CHECK_THROWS_WITH_AS(validate(p), doctest::Contains("max_batch"), config_error);
}

TEST_CASE("former paths: requests, length CSV and the scenario reader (requests.hpp, length_csv.hpp, serving_json.hpp)") {
  const auto t = parse_length_csv("prompt,output\n100,20\n300,40\n");
  request_gen_params g;
  g.count = 50;
  apply_length_csv(g, t);
  for (const auto& r : generate_requests(g)) CHECK(((r.prompt == 100 && r.output == 20) || (r.prompt == 300 && r.output == 40)));
  CHECK_THROWS_WITH_AS(read_serving_scenario(R"({"system": "none", "model": "Mixtral-8x7B", "gpu": {"name": "h100_sxm5", "bogus": 1}})"),
                       doctest::Contains("bogus"), config_error);
}
