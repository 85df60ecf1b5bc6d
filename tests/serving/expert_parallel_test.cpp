// Expert parallelism in the GPU serving baseline (workload/expert_parallel.hpp through
// serving/step_costs.hpp, simulator.hpp and the scenario's gpu.* keys).
#include "strata/serving/serving_json.hpp"

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

TEST_CASE("DP attention step: ranks holding equal parts cost the whole step's mixed cost, an uneven split more") {
  const model m = preset("DeepSeek-V2-Lite");
  const parallelism par{.ep = 8, .attention = attention_parallel::dp};
  gpu_step_costs costs(h100_sxm5(), 8, m, par);
  // One rank's part: 6 decodes at context 700 and a 100-token chunk after 300 computed tokens.
  mixed_step one;
  one.decodes = 6;
  one.decode_context = 6.0 * 700;
  one.prefill_tokens = 100.0;
  one.prefill_pairs = 100.0 * 300 + 100.0 * 101 / 2.0;
  one.prefill_prior = 300.0;
  one.tokens = 106;
  one.sampled = 6;
  mixed_step whole;
  whole.decodes = 8 * one.decodes;
  whole.decode_context = 8 * one.decode_context;
  whole.prefill_tokens = 8 * one.prefill_tokens;
  whole.prefill_pairs = 8 * one.prefill_pairs;
  whole.prefill_prior = 8 * one.prefill_prior;
  whole.tokens = 8 * one.tokens;
  whole.sampled = 8 * one.sampled;
  const std::vector<mixed_step> even(8, one);
  const auto a = costs.mixed_ranks(even);
  const auto b = costs.mixed(whole);
  CHECK(a.time_s == Approx(b.time_s).epsilon(1e-12));
  CHECK(a.energy_j == Approx(b.energy_j).epsilon(1e-12));
  // The same tokens with every chunk on rank 0: its attention bounds the step, and its sampled
  // rows the LM head.
  std::vector<mixed_step> uneven(8, one);
  for (int k = 1; k < 8; ++k) {
    uneven[0].prefill_tokens += one.prefill_tokens;
    uneven[0].prefill_pairs += one.prefill_pairs;
    uneven[0].prefill_prior += one.prefill_prior;
    uneven[0].tokens += 100;
    auto& r = uneven[static_cast<std::size_t>(k)];
    r.prefill_tokens = 0.0;
    r.prefill_pairs = 0.0;
    r.prefill_prior = 0.0;
    r.tokens -= 100;
  }
  const auto c = costs.mixed_ranks(uneven);
  CHECK(c.time_s > b.time_s * 1.001);
  // An idle rank adds nothing but its dummy step's share of the shared parts.
  std::vector<mixed_step> idle(8, one);
  idle[7] = mixed_step{};
  CHECK(costs.mixed_ranks(idle).time_s <= a.time_s);
}

TEST_CASE("DP load balancer: an arrival goes to the rank of the lowest waiting x 4 + running, the first on a tie") {
  std::vector<detail::engine_rank> ranks(3);
  CHECK(detail::route_to_rank(ranks) == 0);
  ranks[0].waiting = {1};          // 4
  ranks[1].running = {2, 3, 4};    // 3
  ranks[2].running = {5, 6, 7, 8};  // 4
  CHECK(detail::route_to_rank(ranks) == 1);
  ranks[1].running.push_back(9);  // 4: every rank ties
  CHECK(detail::route_to_rank(ranks) == 0);
}

TEST_CASE("EP 8 with DP attention schedules per rank: an overloaded run's batch exceeds one rank's max_num_seqs") {
  const model m = preset("Mixtral-8x7B");
  const auto reqs = ep_requests(3000, 1.0 / 2000.0, 256, 96);  // 2000 req/s: far past what 8 GPUs serve
  const engine_params ep{.max_num_batched_tokens = 2048, .max_num_seqs = 128};  // the measured runs' cap
  const parallelism par{.ep = 8, .attention = attention_parallel::dp};
  const auto r = simulate_gpu(h100_sxm5(), m, scheduler_params{}, reqs, 0, ep, gpu_scheduler::engine, par);
  REQUIRE(r.feasible);
  CHECK(r.ranks == 8);
  MESSAGE("mean batch over 8 ranks " << r.mean_batch << " (max_num_seqs " << *ep.max_num_seqs << " per rank), "
                                     << r.throughput_rps << " req/s");
  CHECK(r.mean_batch > *ep.max_num_seqs);
  CHECK(r.mean_batch > 4.0 * *ep.max_num_seqs);  // overloaded: the ranks run near their caps
  CHECK(r.mean_batch <= 8.0 * *ep.max_num_seqs);
  CHECK(r.kv_tokens % 8 == 0);
  // Tensor-parallel attention on the same GPUs keeps one scheduler: its batch stays under the cap.
  const auto tp = simulate_gpu(h100_sxm5(), m, scheduler_params{}, reqs, 0, ep, gpu_scheduler::engine,
                               parallelism{.ep = 8, .attention = attention_parallel::tp});
  REQUIRE(tp.feasible);
  CHECK(tp.ranks == 1);
  CHECK(tp.mean_batch <= *ep.max_num_seqs);
}
