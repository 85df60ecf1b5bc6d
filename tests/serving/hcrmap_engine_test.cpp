// SPDX-License-Identifier: MIT
// An HCRMap chiplet package served through the engine (serving/hcrmap_engine.hpp): TTFT and E2E
// as the sums of the window costs the package's source returns, the controller between steps,
// invariants over more requests, the scenario key and config_errors naming the keys.
#include "strata/serving/hcrmap_engine.hpp"

#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include "strata/serving/serving_json.hpp"
#include "strata/workload/presets.hpp"
#include "strata/workload/trace_io.hpp"
#include "support/field_of.hpp"

using namespace strata;
using doctest::Approx;
using strata_test::field_of;

namespace {

const routing_trace& he_trace() {
  static const auto t = load_trace_csv(std::string(STRATA_TEST_DATA_DIR) + "/traces/dsv2lite_esft_trace_intent.csv");
  return t;
}

// Two evaluated MoE layers and a short planning: fast, and every path of the run taken.
hcrmap_serving_setup he_setup(policy_kind k) {
  hcrmap_serving_setup s;
  s.m = preset("DeepSeek-V2-Lite");
  s.trace = &he_trace();
  s.params.policy = k;
  s.params.max_layers = 2;
  s.params.planning_rounds = 2;
  s.params.control_s = 1.0;  // once a served second (the example's setting); every step below
  s.scheduler.max_batch = 16;
  return s;
}

request he_req(double at, int prompt, int output) {
  request q;
  q.arrival_s = at;
  q.prompt = prompt;
  q.output = output;
  return q;
}

std::vector<request> he_load(std::int64_t n, double rate) {
  request_gen_params g;
  g.rate = rate;
  g.count = n;
  g.topics = {"intent"};
  g.prompt = {.kind = length_kind::uniform, .value = 0, .min = 16, .max = 600, .values = {}};
  g.output = {.kind = length_kind::uniform, .value = 0, .min = 2, .max = 40, .values = {}};
  return generate_requests(g);
}

}  // namespace

TEST_CASE("hcrmap engine: two requests apart, TTFT and E2E are the sums of the window costs") {
  const auto setup = he_setup(policy_kind::single_copy_static);  // no controller edits: costs fixed by key
  // r0 alone from 0 (prompt 40, 3 tokens); r1 long after it (prompt 20, 2 tokens).
  const std::vector<request> reqs{he_req(0.0, 40, 3), he_req(10.0, 20, 2)};
  const auto r = simulate_hcrmap_serving(setup, reqs);
  REQUIRE(r.feasible);
  CHECK(r.policy == "engine (static)");
  // The same windows from a source of the same setup, asked in the run's order: prefill of 40,
  // decode of 1 at context 40 then 41 (r0), prefill of 20, decode of 1 at context 20 (r1).
  hcrmap_step_costs src(setup.m, he_trace(), setup.params, setup.scheduler.max_batch);
  const double p40 = src.window_cost(phase::prefill, 40, 40).time_s;
  const double d40 = src.window_cost(phase::decode, 1, 40).time_s;
  const double d41 = src.window_cost(phase::decode, 1, 41).time_s;
  const auto p20 = src.window_cost(phase::prefill, 20, 20);
  const auto d20 = src.window_cost(phase::decode, 1, 20);
  CHECK(p40 > 0.0);
  CHECK(d40 > 0.0);
  CHECK(p40 > d40);  // 40 tokens' experts against one token's
  CHECK(r.first_token_s[0] == Approx(p40).epsilon(1e-12));
  CHECK(r.finish_s[0] == Approx(p40 + d40 + d41).epsilon(1e-12));
  CHECK(r.first_token_s[1] - 10.0 == Approx(p20.time_s).epsilon(1e-9));
  CHECK(r.finish_s[1] - 10.0 == Approx(p20.time_s + d20.time_s).epsilon(1e-9));
  CHECK(r.makespan_s == Approx(10.0 + p20.time_s + d20.time_s).epsilon(1e-12));
  CHECK(r.busy_time_s == Approx(p40 + d40 + d41 + p20.time_s + d20.time_s).epsilon(1e-12));
  CHECK(r.prefill_steps == 2);
  CHECK(r.decode_steps == 3);
  CHECK(r.mixed_steps == 0);
  CHECK(r.energy_j > 0.0);
  // Context 40 and 41 round up to the same block of 16: one memo entry, one cost.
  CHECK(d40 == d41);
  // The memo: r1's prefill of 20 tokens is a window of 32 (17 too), evaluated once on the trace.
  CHECK(src.window_cost(phase::prefill, 17, 17).time_s == p20.time_s);
  CHECK(src.counts().evaluated == 3);  // prefill 48, decode 1, prefill 32
}

TEST_CASE("hcrmap engine: the controller acts between steps, and more requests never finish sooner") {
  const auto setup = he_setup(policy_kind::hcrmap);
  const auto all = he_load(40, 50.0);
  const std::vector<request> half(all.begin(), all.begin() + 20);
  const auto a = simulate_hcrmap_serving(setup, half);
  const auto b = simulate_hcrmap_serving(setup, all);
  REQUIRE(a.feasible);
  REQUIRE(b.feasible);
  CHECK(a.policy == "engine (hcrmap)");
  CHECK(b.makespan_s >= a.makespan_s);
  CHECK(b.busy_time_s >= a.busy_time_s);
  std::int64_t out_tokens = 0;
  for (const auto& q : all) out_tokens += q.output;
  CHECK(b.output_tokens == out_tokens);
  CHECK(b.busy_time_s <= b.makespan_s * (1.0 + 1e-12));
  for (std::size_t i = 0; i < all.size(); ++i) {
    CHECK(b.first_token_s[i] > all[i].arrival_s);
    CHECK(b.finish_s[i] >= b.first_token_s[i]);
  }
  CHECK(b.energy_j > a.energy_j);
  REQUIRE(b.notes.size() == 1u);
  CHECK(b.notes[0].find("windows evaluated on the trace") != std::string::npos);
  // The source's counts: the controller acted, and the memo saved evaluations.
  auto every_step = setup.params;
  every_step.control_s = 0.0;  // the controller after every step
  hcrmap_step_costs src(setup.m, he_trace(), every_step, setup.scheduler.max_batch);
  for (int i = 0; i < 30; ++i) {
    mixed_step ms;
    ms.decodes = 8;
    ms.decode_context = 8.0 * (100 + i);
    (void)src.mixed(ms);
  }
  CHECK(src.counts().controls >= 30);  // every step, each stage
  CHECK(src.counts().windows == 30);
  CHECK(src.counts().evaluated >= 1);
  CHECK(src.counts().evaluated <= 30);  // at most one a step (the memo: test above)
  CHECK(src.kv_tokens() == 16 * 2048);
}

TEST_CASE("hcrmap engine: bad input is a config_error naming the key") {
  auto s = he_setup(policy_kind::hcrmap);
  const std::vector<request> one{he_req(0.0, 16, 2)};
  s.params.max_layers = 0;
  CHECK(field_of([&] { (void)simulate_hcrmap_serving(s, one); }) == "hcrmap.max_layers");
  s = he_setup(policy_kind::hcrmap);
  s.params.block_tokens = 0;
  CHECK(field_of([&] { (void)simulate_hcrmap_serving(s, one); }) == "hcrmap.block_tokens");
  s = he_setup(policy_kind::hcrmap);
  s.params.control_s = -1.0;
  CHECK(field_of([&] { (void)simulate_hcrmap_serving(s, one); }) == "hcrmap.control_s");
  s = he_setup(policy_kind::hcrmap);
  s.trace = nullptr;
  CHECK(field_of([&] { (void)simulate_hcrmap_serving(s, one); }) == "hcrmap.trace");
  s = he_setup(policy_kind::hcrmap);
  s.m = preset("Mixtral-8x7B");  // not the trace's model
  CHECK(field_of([&] { (void)simulate_hcrmap_serving(s, one); }) == "hcrmap.trace");
  s = he_setup(policy_kind::hcrmap);
  CHECK(field_of([&] { (void)simulate_hcrmap_serving(s, {}); }) == "requests");
  // A decode window the packages cannot hold.
  s = he_setup(policy_kind::hcrmap);
  s.params.context = 1 << 20;
  s.scheduler.max_batch = 1024;
  CHECK(field_of([&] { (void)simulate_hcrmap_serving(s, one); }) == "hcrmap.context");
  // The work bound.
  s = he_setup(policy_kind::hcrmap);
  const auto saved = hcrmap_limits().routes;
  hcrmap_limits().routes = 1000;
  CHECK(field_of([&] { (void)simulate_hcrmap_serving(s, one); }) == "hcrmap");
  hcrmap_limits().routes = saved;
  // A request longer than the package's KV: an infeasible run with its reason.
  s = he_setup(policy_kind::single_copy_static);
  s.scheduler.kv_tokens = 64;
  const auto r = simulate_hcrmap_serving(s, {he_req(0.0, 100, 2)});
  CHECK_FALSE(r.feasible);
  CHECK(r.reason.find("KV blocks") != std::string::npos);
}

TEST_CASE("hcrmap engine: the scenario key, the report's JSON and summary") {
  const auto s = read_serving_scenario(R"({"system": "none", "model": "DeepSeek-V2-Lite", "gpu": {"compare": false},
      "requests": {"rate": 20, "count": 12, "topics": ["intent"], "prompt": {"kind": "fixed", "value": 64},
                   "output": {"kind": "fixed", "value": 8}},
      "scheduler": {"max_batch": 16},
      "hcrmap": {"enabled": true, "max_layers": 2, "planning_rounds": 1}})");
  CHECK(s.hcrmap.enabled);
  CHECK(s.hcrmap.params.max_layers == 2);
  CHECK(s.hcrmap.trace == "traces/dsv2lite_esft_trace_intent.csv");
  const auto r = run_scenario(s, STRATA_TEST_DATA_DIR);
  REQUIRE(r.has_hcrmap);
  CHECK_FALSE(r.has_stratum);
  CHECK_FALSE(r.has_gpu);
  REQUIRE(r.hcrmap.feasible);
  CHECK(r.hcrmap.requests == 12);
  CHECK(r.hcrmap.output_tokens == 96);
  const std::string j = serving_json(r);
  CHECK(j.find("\"hcrmap\"") != std::string::npos);
  std::ostringstream os;
  print_summary(os, r);
  CHECK(os.str().find("HCRMap package (") != std::string::npos);
  CHECK(os.str().find("engine steps:") != std::string::npos);
  // The run the scenario makes is the library's.
  hcrmap_serving_setup hs{preset("DeepSeek-V2-Lite"), nullptr, s.hcrmap.params, s.scheduler};
  const auto t = load_trace_csv(std::string(STRATA_TEST_DATA_DIR) + "/traces/dsv2lite_esft_trace_intent.csv");
  hs.trace = &t;
  const auto direct = simulate_hcrmap_serving(hs, scenario_requests(s));
  CHECK(dump_json(json(direct), 2) == dump_json(json(r.hcrmap), 2));
  // Without the key: no hcrmap part, JSON as before.
  CHECK(serving_json(run_scenario(read_serving_scenario(R"({"system": "none", "model": "Llama-3.1-8B",
      "requests": {"count": 4, "topics": ["intent"]}})"), STRATA_TEST_DATA_DIR)).find("\"hcrmap\"") == std::string::npos);
  // Errors name the key.
  CHECK(field_of([] { (void)read_serving_scenario(R"({"hcrmap": {"polcy": "hcrmap"}})"); }) == "hcrmap.polcy");
  CHECK(field_of([] { (void)read_serving_scenario(R"({"hcrmap": {"policy": "lru"}})"); }) == "hcrmap.policy");
  CHECK(field_of([] { (void)read_serving_scenario(R"({"hcrmap": {"block_tokens": 0}})"); }) == "hcrmap.block_tokens");
  CHECK(field_of([] { (void)read_serving_scenario(R"({"hcrmap": {"enabled": true, "trace": ""}})"); }) == "hcrmap.trace");
  CHECK(field_of([] {
          (void)run_scenario(read_serving_scenario(R"({"system": "none", "model": "DeepSeek-V2-Lite",
              "gpu": {"compare": false}, "hcrmap": {"enabled": true, "trace": "traces/none.csv"}})"),
                             STRATA_TEST_DATA_DIR);
        }) == "hcrmap.trace");
}
