#include "strata/serving/serving_json.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "strata/serving/simulator.hpp"
#include "strata/stratum/serving/stratum_serving.hpp"
#include "strata/workload/presets.hpp"
#include "support/field_of.hpp"

// The work a serving input asks for is bounded by stated limits (`serving_limits()`: decode
// steps, retained samples, topic-layout cells), checked before the run starts; each error names
// the field and the limit (issue 24).

using namespace strata;
using strata_test::field_of;

namespace {

const std::string work_data_dir = std::string(STRATA_TEST_DATA_DIR) + "/traces";

// Restores the process-wide serving limits at the end of the scope.
struct serving_limits_restore : strata_test::scoped_restore<serving_input_limits> {
  serving_limits_restore() : scoped_restore(serving_limits()) {}
};

std::vector<request> fixed_requests(int n, int prompt, int output) {
  std::vector<request> r;
  for (int i = 0; i < n; ++i) r.push_back({i, 0.1 * i, prompt, output, 0, -1});
  return r;
}

}  // namespace

TEST_CASE("a 189-byte scenario asking for 4.3e9 decode steps is refused before it runs, naming the limit") {
  // Within requests, tokens and total_tokens: 32 767 requests of 1 + 131 071 tokens at batch 1.
  const std::string text = R"({"model": "Mixtral-8x7B", "requests": {"rate": 1000, "count": 32767,
      "prompt": {"kind": "fixed", "value": 1}, "output": {"kind": "fixed", "value": 131071}},
      "usage": {"counts": "olmoe_mixtral_expert_counts_by_domain.csv"},
      "scheduler": {"max_batch": 1, "max_prefill": 1}})";
  const auto s = read_serving_scenario(text);
  const auto msg = strata_test::message_of([&] { (void)run_scenario(s, work_data_dir); });
  CHECK(msg.find("requests.count: 4294770690 decode steps") != std::string::npos);
  CHECK(msg.find("exceed the limit 67108864 (strata::serving_limits().decode_steps)") != std::string::npos);
  CHECK(field_of([&] { (void)run_scenario(s, work_data_dir); }) == "requests.count");
}

TEST_CASE("decode steps and retained samples: each limit named with the field, for every kind of requests") {
  serving_limits_restore restore;
  auto& lim = serving_limits();
  // Generated requests (requests.count), a list (request_list) and the simulators' own check.
  lim.decode_steps = 2000;
  const std::string gen = R"({"requests": {"count": 40, "output": {"kind": "fixed", "value": 51}},
      "usage": {"counts": "olmoe_mixtral_expert_counts_by_domain.csv"}})";
  CHECK(field_of([&] { (void)run_scenario(read_serving_scenario(gen), work_data_dir); }) == "<no config_error>");
  lim.decode_steps = 1999;  // 40 x 50 = 2000
  CHECK(field_of([&] { (void)run_scenario(read_serving_scenario(gen), work_data_dir); }) == "requests.count");
  CHECK(strata_test::message_of([&] { (void)run_scenario(read_serving_scenario(gen), work_data_dir); }).find("decode_steps") !=
        std::string::npos);
  const std::string list = R"({"request_list": [{"arrival_s": 0.1, "prompt": 8, "output": 1500, "topic": "arxiv"},
      {"arrival_s": 0.2, "prompt": 8, "output": 600, "topic": "book"}],
      "usage": {"counts": "olmoe_mixtral_expert_counts_by_domain.csv"}})";
  CHECK(field_of([&] { (void)run_scenario(read_serving_scenario(list), work_data_dir); }) == "request_list");
  const auto reqs = fixed_requests(3, 10, 1000);  // 2997 decode steps
  CHECK(field_of([&] { check_serving_work(reqs); }) == "requests");
  CHECK(field_of([&] { (void)simulate_gpu(h100_sxm5(), preset("Mixtral-8x7B"), scheduler_params{}, reqs); }) == "requests");
  stratum_serving_setup setup;
  setup.m = preset("Mixtral-8x7B");
  setup.usage.topics = {"t"};
  setup.usage.tables = {uniform_usage(setup.m.moe_layers(), setup.m.experts, setup.m.top_k)};
  CHECK(field_of([&] { (void)simulate_stratum(setup, reqs); }) == "requests");
  // Samples: TBT gaps and TTFTs, Σ (output − 1) + 2 · requests; with trace routing also the
  // per-token hit rates on every layout.
  lim.decode_steps = 1 << 20;
  lim.samples = 2997 + 6;
  CHECK(field_of([&] { check_serving_work(reqs); }) == "<no config_error>");
  lim.samples = 2997 + 5;
  const auto msg = strata_test::message_of([&] { check_serving_work(reqs, 0, "request_list"); });
  CHECK(msg.find("request_list: 3003 retained samples") != std::string::npos);
  CHECK(msg.find("(strata::serving_limits().samples)") != std::string::npos);
  lim.samples = 2997 + 6 + 2 * 3000;
  CHECK(field_of([&] { check_serving_work(reqs, 2, "trace.path"); }) == "<no config_error>");
  CHECK(field_of([&] { check_serving_work(reqs, 3, "trace.path"); }) == "trace.path");
  // A trace scenario: the ESFT trace's 127 requests keep their hit rates on two layouts.
  const std::string trace = R"({"model": "DeepSeek-V2-Lite", "requests": {"rate": 4},
      "trace": {"path": "dsv2lite_esft_trace_intent.csv", "experts": 64, "label": "intent"}, "gpu": {"compare": false}})";
  lim.samples = 1 << 20;
  CHECK(field_of([&] { (void)run_scenario(read_serving_scenario(trace), work_data_dir); }) == "<no config_error>");
  lim.samples = 4000;
  CHECK(field_of([&] { (void)run_scenario(read_serving_scenario(trace), work_data_dir); }) == "trace.path");
}

TEST_CASE("topic-layout cells: T (T + 1) L E bounded when read and when simulated, naming the topics") {
  serving_limits_restore restore;
  auto& lim = serving_limits();
  const model m = preset("Mixtral-8x7B");  // 32 x 8 = 256 cells
  lim.topic_cells = 5 * 6 * 256;
  const std::string five = R"({"requests": {"topics": ["arxiv", "book", "c4", "github", "wikipedia"]}})";
  CHECK(field_of([&] { (void)read_serving_scenario(five); }) == "<no config_error>");
  lim.topic_cells = 5 * 6 * 256 - 1;
  CHECK(field_of([&] { (void)read_serving_scenario(five); }) == "requests.topics");
  CHECK(strata_test::message_of([&] { (void)read_serving_scenario(five); }).find("7680 topic-layout cells (5 topics x 6 layouts x 256") !=
        std::string::npos);
  // A trace run has one label.
  lim.topic_cells = 2 * 26 * 64 - 1;
  CHECK(field_of([&] { (void)read_serving_scenario(R"({"model": "DeepSeek-V2-Lite", "trace": {"path": "x.csv"}})"); }) ==
        "trace.label");
  stratum_serving_setup setup;
  setup.m = m;
  for (int t = 0; t < 5; ++t) {
    setup.usage.topics.push_back("t" + std::to_string(t));
    setup.usage.tables.push_back(uniform_usage(m.moe_layers(), m.experts, m.top_k));
  }
  CHECK(field_of([&] { (void)simulate_stratum(setup, fixed_requests(2, 8, 4)); }) == "usage.topics");
  lim.topic_cells = 5 * 6 * 256;
  CHECK(simulate_stratum(setup, fixed_requests(2, 8, 4)).feasible);
}
