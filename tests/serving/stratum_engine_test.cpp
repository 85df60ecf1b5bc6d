// The Stratum system served through the engine (`scheduler.loop: "engine"`, stratum_engine.hpp):
// hand sums of the step costs, the topic batcher's swaps inside the engine, agreement with the
// paper's loop where their semantics coincide, and config_errors naming the keys.
#include "strata/stratum/serving/stratum_engine.hpp"

#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include "strata/serving/serving_json.hpp"
#include "strata/serving/simulator.hpp"
#include "strata/stratum/serving/stratum_serving.hpp"
#include "strata/workload/presets.hpp"
#include "support/field_of.hpp"
#include "support/serving_hand_model.hpp"

using namespace strata;
using doctest::Approx;
using strata_test::field_of;

namespace {

using strata_test::hand_request;
using strata_test::hand_serving_model;

scheduler_params se_engine_sched(schedule_policy p) {
  scheduler_params sp;
  sp.policy = p;
  sp.loop = serving_loop::engine;
  return sp;
}

}  // namespace

TEST_CASE("stratum engine: two requests at once, TTFT and E2E are the hand sum of the step costs") {
  const std::vector<request> reqs{hand_request(0.0, 100, 3), hand_request(0.0, 100, 3)};
  const std::vector<int> labels{0, 0};
  const std::vector<double> ready{0.0, 0.0}, device{0.0, 0.0};
  const auto r = detail::run_stratum_engine(reqs, labels, ready, device, se_engine_sched(schedule_policy::fcfs),
                                            hand_serving_model(1));
  REQUIRE(r.feasible);
  // Step 1: both prompts, prefill(2, 100) = 0.2 s. Step 2: decode of 2 at context 100 (prompt +
  // 1 − 1) = 0.010 + 0.004 + 0.001. Step 3: context 101.
  const double t1 = 0.2, t2 = t1 + 0.015, t3 = t2 + 0.01501;
  CHECK(r.ttft.mean_s == Approx(t1).epsilon(1e-12));
  CHECK(r.e2e.mean_s == Approx(t3).epsilon(1e-12));
  CHECK(r.makespan_s == Approx(t3).epsilon(1e-12));
  CHECK(r.prefill_steps == 1);
  CHECK(r.decode_steps == 2);
  CHECK(r.mixed_steps == 0);
  CHECK(r.swaps == 0);  // FCFS keeps the mix layout
  CHECK(r.energy_j == Approx(2.0 + 0.5 + 0.5));
  CHECK(r.busy_time_s == Approx(t3));
  // Every decode on the mix layout (-1): neither request's own, hit 0.3.
  CHECK(r.hot_hit_rate == Approx(0.3));
}

TEST_CASE("stratum engine: a mixed step costs prefill plus decode, one after the other") {
  // r0 decodes while r1 arrives; the engine runs r1's prompt with r0's last decode in one step.
  const std::vector<request> reqs{hand_request(0.0, 100, 3), hand_request(0.105, 100, 2)};
  const std::vector<int> labels{0, 0};
  const std::vector<double> ready{0.0, 0.105}, device{0.0, 0.0};
  const auto r = detail::run_stratum_engine(reqs, labels, ready, device, se_engine_sched(schedule_policy::fcfs),
                                            hand_serving_model(1));
  REQUIRE(r.feasible);
  // 0 → 0.1 prefill r0; → 0.113 decode (1, 100); at 0.113 r1 is ready: prefill(1, 100) + decode(1, 101)
  // = 0.1 + 0.01301 (the sum, not the max 0.1); then r1's decode (1, 100) 0.013.
  const double a = 0.1, b = a + 0.013, c = b + 0.1 + 0.01301, d = c + 0.013;
  CHECK(r.mixed_steps == 1);
  CHECK(r.first_token_s[0] == Approx(a).epsilon(1e-12));
  CHECK(r.finish_s[0] == Approx(c).epsilon(1e-12));
  CHECK(r.first_token_s[1] == Approx(c).epsilon(1e-12));
  CHECK(r.finish_s[1] == Approx(d).epsilon(1e-12));
  CHECK(r.ttft.p99_s == Approx(c - 0.105).epsilon(1e-12));
  // The paper's loop runs the prompt as a step of its own: r1's first token 0.1 s after 0.113.
  auto sp = se_engine_sched(schedule_policy::fcfs);
  sp.loop = serving_loop::stratum;
  const auto p = detail::run_serving(reqs, labels, ready, device, sp, hand_serving_model(1));
  // (its decode at 0.1 read context 101, prompt + 1: 0.01301)
  CHECK(p.first_token_s[1] == Approx(a + 0.01301 + 0.1).epsilon(1e-12));
  CHECK(p.mixed_steps == 0);
}

TEST_CASE("stratum engine: the topic batcher groups by label, swaps before a new label, the classifier delays readiness") {
  // r0 (label 0) at 0, r1 (label 1) at 0.05; classifier 10 ms, on the device.
  const std::vector<request> reqs{hand_request(0.0, 100, 3, 0), hand_request(0.05, 100, 3, 1)};
  const std::vector<int> labels{0, 1};
  const std::vector<double> ready{0.01, 0.06}, device{0.01, 0.01};
  const auto r = detail::run_stratum_engine(reqs, labels, ready, device, se_engine_sched(schedule_policy::topic),
                                            hand_serving_model(2));
  REQUIRE(r.feasible);
  // 0.01: r0 ready; owed 10 ms + swap mix → 0 (50 ms) + prefill 0.1: first token at 0.17.
  // 0.17: r1 ready (owed 10 ms); the batcher lets it wait (its deadline is far) while r0 decodes:
  //       0.01 + decode(1, 100) = 0.023; then decode(1, 101) = 0.01301: r0 done.
  // Then r1: swap 0 → 1 and its prefill, 0.15; its decodes 0.013 and 0.01301.
  const double f0 = 0.01 + 0.16, e0 = f0 + 0.023 + 0.01301, f1 = e0 + 0.15, e1 = f1 + 0.013 + 0.01301;
  CHECK(r.first_token_s[0] == Approx(f0).epsilon(1e-12));
  CHECK(r.finish_s[0] == Approx(e0).epsilon(1e-12));
  CHECK(r.first_token_s[1] == Approx(f1).epsilon(1e-12));
  CHECK(r.finish_s[1] == Approx(e1).epsilon(1e-12));
  CHECK(r.swaps == 2);
  CHECK(r.swap_time_s == Approx(0.1));
  CHECK(r.classifier_time_s == Approx(0.02));
  CHECK(r.swap_share == Approx(0.1 / r.busy_time_s));
  CHECK(r.hot_hit_rate == Approx(0.9));  // every decode on its own label's layout
  CHECK(r.mixed_steps == 0);             // the batcher kept r1 out of r0's batch
  // The energy: 2 prefills (1 J), 4 decodes (0.5 J), 2 swaps (2 J).
  CHECK(r.energy_j == Approx(2.0 + 2.0 + 4.0));
}

TEST_CASE("stratum engine: one label, all at once, a budget that holds every prompt: the paper's loop gives the same times") {
  // Where the two loops mean the same: one group of whole prompts, then decode steps of the whole
  // running batch. With a decode cost independent of the context (the loops count the context one
  // token apart) every request's first and last token agree exactly.
  std::vector<request> reqs;
  const int outs[] = {2, 5, 3, 7, 1, 4};
  for (int i = 0; i < 6; ++i) reqs.push_back(hand_request(0.0, 64 + 16 * i, outs[i]));
  const std::vector<int> labels(6, 0);
  const std::vector<double> ready(6, 0.0), device(6, 0.0);
  for (auto pol : {schedule_policy::fcfs, schedule_policy::topic}) {
    CAPTURE(static_cast<int>(pol));
    auto sp = se_engine_sched(pol);
    const auto m = hand_serving_model(1, false);
    const auto e = detail::run_stratum_engine(reqs, labels, ready, device, sp, m);
    sp.loop = serving_loop::stratum;
    const auto p = detail::run_serving(reqs, labels, ready, device, sp, m);
    REQUIRE(e.feasible);
    REQUIRE(p.feasible);
    for (std::size_t i = 0; i < reqs.size(); ++i) {
      CHECK(e.first_token_s[i] == Approx(p.first_token_s[i]).epsilon(1e-12));
      CHECK(e.finish_s[i] == Approx(p.finish_s[i]).epsilon(1e-12));
    }
    CHECK(e.swaps == p.swaps);
    CHECK(e.energy_j == Approx(p.energy_j));
    CHECK(e.hot_hit_rate == Approx(p.hot_hit_rate));
  }
  // A budget below the prompts: the engine chunks them (the paper's loop never does), and the
  // first tokens come later than one whole-prompt group's.
  auto sp = se_engine_sched(schedule_policy::fcfs);
  sp.engine.max_num_batched_tokens = 100;
  const auto e = detail::run_stratum_engine(reqs, labels, ready, device, sp, hand_serving_model(1, false));
  REQUIRE(e.feasible);
  CHECK(e.prefill_steps + e.mixed_steps > 1);
}

TEST_CASE("stratum engine: Mixtral on Stratum-L, one topic, the paper's loop and the engine agree within the context convention") {
  const auto counts =
      load_expert_counts_csv(std::string(STRATA_TEST_DATA_DIR) + "/traces/olmoe_mixtral_expert_counts_by_domain.csv");
  stratum_serving_setup s;
  s.system = stratum_l();
  s.m = preset("Mixtral-8x7B");
  s.usage = topic_usage_from_counts(counts, "Mixtral-8x7B-v0.1", "topk2", "pretrained", {"github"}, s.m.moe_layers());
  s.classifier = perfect_classifier();
  s.classifier.latency = units::ms(1.0);  // every request ready at once (the modelled one grows with the prompt)
  s.classifier.on_device = false;
  s.scheduler.engine.max_num_batched_tokens = 1 << 14;
  std::vector<request_spec> list;
  for (int i = 0; i < 12; ++i) list.push_back({0.0, 256 + 32 * i, 16 + 8 * (i % 4), "github"});
  const auto reqs = requests_from_list(list, {"github"});
  const auto p = simulate_stratum(s, reqs);
  s.scheduler.loop = serving_loop::engine;
  const auto e = simulate_stratum(s, reqs);
  REQUIRE(p.feasible);
  REQUIRE(e.feasible);
  CHECK(e.policy == "engine (topic)");
  CHECK(p.policy == "topic");
  CHECK(e.swaps == p.swaps);
  CHECK(e.hot_hit_rate == Approx(p.hot_hit_rate).epsilon(1e-9));
  CHECK(e.ttft.mean_s == Approx(p.ttft.mean_s).epsilon(1e-9));  // one prefill step, the same in both
  // Decodes: the engine reads one token less of context per step (prompt + g − 1 against prompt + g).
  CHECK(e.e2e.mean_s == Approx(p.e2e.mean_s).epsilon(2e-3));
  CHECK(e.e2e.mean_s <= p.e2e.mean_s);
}

TEST_CASE("stratum engine: five topics through the engine swap, hit their layouts and keep Little's law") {
  const auto counts =
      load_expert_counts_csv(std::string(STRATA_TEST_DATA_DIR) + "/traces/olmoe_mixtral_expert_counts_by_domain.csv");
  const std::vector<std::string> topics{"arxiv", "book", "c4", "github", "wikipedia"};
  stratum_serving_setup s;
  s.m = preset("Mixtral-8x7B");
  s.usage = topic_usage_from_counts(counts, "Mixtral-8x7B-v0.1", "topk2", "pretrained", topics, s.m.moe_layers());
  s.scheduler.loop = serving_loop::engine;
  request_gen_params g;
  g.rate = 2.0;
  g.count = 600;
  g.topics = topics;
  g.prompt = {.kind = length_kind::uniform, .value = 0, .min = 128, .max = 1024, .values = {}};
  g.output = {.kind = length_kind::uniform, .value = 0, .min = 32, .max = 256, .values = {}};
  const auto reqs = generate_requests(g);
  const auto t = simulate_stratum(s, reqs);
  s.scheduler.policy = schedule_policy::fcfs;
  const auto f = simulate_stratum(s, reqs);
  REQUIRE(t.feasible);
  REQUIRE(f.feasible);
  CHECK(t.swaps > 0);
  CHECK(f.swaps == 0);
  CHECK(t.swap_time_s > 0.0);
  CHECK(t.hot_hit_rate > f.hot_hit_rate);  // groups decode on their own label's layout
  CHECK(f.hot_hit_rate == Approx(f.mix_hit_rate).epsilon(0.05));
  CHECK(t.mean_in_system == Approx(t.arrival_rate * t.mean_sojourn_s).epsilon(0.02));
  CHECK(t.classifier_time_s > 0.0);
  CHECK(t.output_tokens == f.output_tokens);
}

TEST_CASE("stratum engine: a request the KV cannot hold and an unchunked prompt over the budget are infeasible, said why") {
  auto m = hand_serving_model(1);
  m.kv_tokens = 160;  // 10 blocks of 16
  const std::vector<request> reqs{hand_request(0.0, 150, 20)};
  const std::vector<int> labels{0};
  const std::vector<double> ready{0.0}, device{0.0};
  auto r = detail::run_stratum_engine(reqs, labels, ready, device, se_engine_sched(schedule_policy::fcfs), m);
  CHECK_FALSE(r.feasible);
  CHECK(r.reason.find("KV blocks") != std::string::npos);
  auto sp = se_engine_sched(schedule_policy::fcfs);
  sp.engine.enable_chunked_prefill = false;
  sp.engine.max_num_batched_tokens = 100;
  r = detail::run_stratum_engine(reqs, labels, ready, device, sp, hand_serving_model(1));
  CHECK_FALSE(r.feasible);
  CHECK(r.reason.find("max_num_batched_tokens") != std::string::npos);
}

TEST_CASE("stratum engine: a KV cache too small for the batch preempts by recompute and still serves every token") {
  auto m = hand_serving_model(2);
  m.kv_tokens = 64;  // 4 blocks of 16: each request alone needs ⌈(20 + 30 − 1)/16⌉ = 4
  const std::vector<request> reqs{hand_request(0.0, 20, 30, 0), hand_request(0.0, 20, 30, 1), hand_request(0.01, 20, 30, 0)};
  const std::vector<int> labels{0, 1, 0};
  const std::vector<double> ready{0.0, 0.0, 0.01}, device{0.0, 0.0, 0.0};
  for (auto pol : {schedule_policy::fcfs, schedule_policy::topic}) {
    CAPTURE(static_cast<int>(pol));
    auto sp = se_engine_sched(pol);
    auto small = hand_serving_model(pol == schedule_policy::fcfs ? 1 : 2);
    small.kv_tokens = m.kv_tokens;
    const auto r = detail::run_stratum_engine(reqs, pol == schedule_policy::fcfs ? std::vector<int>(3, 0) : labels, ready,
                                              device, sp, small);
    REQUIRE(r.feasible);
    CHECK(r.output_tokens == 90);
    for (std::size_t i = 0; i < reqs.size(); ++i) {
      CHECK(r.finish_s[i] > r.first_token_s[i]);
      CHECK(r.first_token_s[i] >= reqs[i].arrival_s);
    }
    // The same requests with room for all: never slower with less KV (here strictly, recompute
    // and smaller batches).
    auto roomy = pol == schedule_policy::fcfs ? hand_serving_model(1) : hand_serving_model(2);
    const auto big = detail::run_stratum_engine(reqs, pol == schedule_policy::fcfs ? std::vector<int>(3, 0) : labels,
                                                ready, device, sp, roomy);
    REQUIRE(big.feasible);
    CHECK(big.preemptions == 0);
    CHECK(r.makespan_s > big.makespan_s);
  }
  auto sp = se_engine_sched(schedule_policy::fcfs);
  const auto r = detail::run_stratum_engine(reqs, std::vector<int>(3, 0), ready, device, sp, [] {
    auto x = hand_serving_model(1);
    x.kv_tokens = 64;
    return x;
  }());
  REQUIRE(r.feasible);
  CHECK(r.preemptions > 0);  // FCFS admits both prompts (2 blocks each), and their decodes outgrow the 4 blocks
}

TEST_CASE("stratum engine: bad engine settings are config_errors naming the key") {
  scheduler_params sp;
  sp.engine.block_size = 0;
  CHECK(field_of([&] { validate(sp, "scheduler"); }) == "scheduler.engine.block_size");
  sp = {};
  sp.engine.max_num_batched_tokens = 0;
  CHECK(field_of([&] { validate(sp, "scheduler"); }) == "scheduler.engine.max_num_batched_tokens");
  CHECK(field_of([] { (void)read_serving_scenario(R"({"scheduler": {"loop": "vllm"}})"); }) == "scheduler.loop");
  CHECK(field_of([] { (void)read_serving_scenario(R"({"scheduler": {"engine": {"max_num_seqs": 8}}})"); }) ==
        "scheduler.engine.max_num_seqs");
  CHECK(field_of([] { (void)read_serving_scenario(R"({"scheduler": {"engine": {"block_size": -1}}})"); }) ==
        "scheduler.engine.block_size");
  const auto s = read_serving_scenario(R"({"scheduler": {"loop": "engine", "engine": {"max_num_batched_tokens": 512}}})");
  CHECK(s.scheduler.loop == serving_loop::engine);
  CHECK(s.scheduler.engine.max_num_batched_tokens == 512);
  CHECK(read_serving_scenario("{}").scheduler.loop == serving_loop::stratum);  // the paper's loop by default
}

TEST_CASE("stratum engine: the GPU's step costs have no policy hook; the Stratum source has one") {
  static_assert(!engine_policy_source<gpu_step_costs>);
  static_assert(engine_policy_source<stratum_engine_costs<detail::serving_model>>);
  static_assert(step_cost_source<stratum_engine_costs<detail::serving_model>>);
  // Its summary line shows the engine's steps and the topic terms.
  serving_report rep;
  rep.has_gpu = false;
  rep.stratum.system = "Stratum-L";
  rep.stratum.policy = "engine (topic)";
  rep.stratum.requests = 1;
  std::ostringstream os;
  print_summary(os, rep);
  CHECK(os.str().find("engine steps:") != std::string::npos);
  CHECK(os.str().find("swaps") != std::string::npos);
}
