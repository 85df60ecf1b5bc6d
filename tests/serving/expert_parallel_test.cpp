// Expert parallelism in the GPU serving baseline (workload/expert_parallel.hpp through
// serving/step_costs.hpp, simulator.hpp and the scenario's gpu.* keys).
#include "strata/stratum/serving/serving_json.hpp"

#include <doctest/doctest.h>

#include <string>  // std::string
#include <vector>  // std::vector

#include "strata/workload/presets.hpp"
#include "support/field_of.hpp"

using namespace strata;
using doctest::Approx;
using strata_test::field_of;

namespace {

std::vector<request> ep_requests(int count, double gap_s, int prompt, int output) {
  std::vector<request> r;
  for (int i = 0; i < count; ++i) r.push_back({static_cast<std::int64_t>(i), i * gap_s, prompt, output, 0, -1});
  return r;
}

}  // namespace

TEST_CASE("EP step costs: a decode grid point is the EP evaluator's step, and a mixed step of decodes is close to it") {
  const model m = preset("DeepSeek-V2-Lite");
  const parallelism par{.ep = 8, .attention = attention_parallel::dp};
  gpu_step_costs costs(h100_sxm5(), 8, m, par);
  const auto mach = make_machine(h100_sxm5(), 8);
  const step_shape s{.mode = phase::decode, .batch = 64, .context = 16};  // context 16: grid point 0
  const auto r = evaluate(m, s, mach, par);
  CHECK(costs.decode(64, 16.0).time_s == r.time.si());
  CHECK(costs.decode(64, 16.0).energy_j == r.energy.si());
  // 64 decodes of context 16 as one engine step: the same operators, attention split evenly.
  mixed_step d;
  d.tokens = 64;
  d.sampled = 64;
  d.decodes = 64;
  d.decode_context = 64.0 * 16;
  CHECK(costs.mixed(d).time_s == Approx(r.time.si()).epsilon(1e-9));
  CHECK(r.alltoall_time.si() > 0.0);
  // Tensor parallelism is unchanged by the parallelism argument.
  gpu_step_costs tp(h100_sxm5(), 8, m);
  gpu_step_costs tp1(h100_sxm5(), 8, m, parallelism{});
  CHECK(tp.decode(64, 100.0).time_s == tp1.decode(64, 100.0).time_s);
  CHECK(tp.mixed(d).time_s == tp1.mixed(d).time_s);
}

TEST_CASE("a served run with EP 2 and DP attention against TP 2, both on the engine scheduler") {
  const model m = preset("Mixtral-8x7B");
  const auto reqs = ep_requests(20, 0.25, 256, 32);
  const scheduler_params sp{};
  const auto tp = simulate_gpu(h100_sxm5(), m, sp, reqs, 2);
  const auto ep = simulate_gpu(h100_sxm5(), m, sp, reqs, 0, {}, gpu_scheduler::engine,
                               parallelism{.ep = 2, .attention = attention_parallel::dp});
  CHECK(tp.feasible);
  CHECK(ep.feasible);
  CHECK(ep.system == "2 x H100 SXM5, EP 2 (attention dp)");
  CHECK(ep.output_tokens == tp.output_tokens);
  CHECK(ep.kv_tokens > 0);
  CHECK(ep.itl.mean_s > 0.0);
  CHECK(ep.itl.mean_s != tp.itl.mean_s);
  CHECK(field_of([&] {
          (void)simulate_gpu(h100_sxm5(), m, sp, reqs, 4, {}, gpu_scheduler::engine, parallelism{.ep = 2});
        }) == "gpu.gpus");
  CHECK(field_of([&] {
          (void)simulate_gpu(h100_sxm5(), m, sp, reqs, 0, {}, gpu_scheduler::fcfs, parallelism{.ep = 3});
        }) == "gpu.ep");
}

TEST_CASE("the scenario's gpu.ep keys: read, validated naming the field") {
  const std::string head = R"({"model": "Mixtral-8x7B", "usage": {"counts": "x.csv"}, "gpu": {)";
  const auto s = read_serving_scenario(head + R"("ep": 2, "attention": "dp", "redundant_experts": 1, "ep_imbalance": "mean"}})");
  CHECK(s.gpu.parallel() ==
        parallelism{.ep = 2, .attention = attention_parallel::dp, .redundant_experts = 1, .imbalance = ep_imbalance::mean});
  CHECK(read_serving_scenario(head + "}}").gpu.parallel() == parallelism{});
  CHECK(field_of([&] { (void)read_serving_scenario(head + R"("ep": 3}})"); }) == "gpu.ep");
  CHECK(field_of([&] { (void)read_serving_scenario(head + R"("ep": 0}})"); }) == "gpu.ep");
  CHECK(field_of([&] { (void)read_serving_scenario(head + R"("ep": 2, "gpus": 4}})"); }) == "gpu.gpus");
  CHECK(field_of([&] { (void)read_serving_scenario(head + R"("attention": "dp"}})"); }) == "gpu.attention");
  CHECK(field_of([&] { (void)read_serving_scenario(head + R"("ep": 2, "redundant_experts": 5}})"); }) ==
        "gpu.redundant_experts");
  CHECK(field_of([&] { (void)read_serving_scenario(head + R"("ep": 2, "attention": "ep"}})"); }) == "gpu.attention");
}
