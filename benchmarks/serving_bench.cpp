// Speed of the serving simulation (Google Benchmark). Median into README.md:
//   ./build/benchmarks/serving_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "strata/stratum/serving/simulator.hpp"
#include "strata/workload/presets.hpp"
#include "strata/workload/trace_io.hpp"

namespace {

// 100 000 requests (Poisson, 12 req/s, prompts 128–1024, outputs 32–256 tokens, five topics) of
// Mixtral 8x7B on Stratum-L with the topic batcher and the real per-domain usage tables; the step
// cost tables are built inside the timed region (target < 2 s).
void bm_serving_100k_mixtral_topic(benchmark::State& state) {
  const auto counts = strata::load_expert_counts_csv(std::string(STRATA_BENCH_DATA_DIR) +
                                                     "/traces/olmoe_mixtral_expert_counts_by_domain.csv");
  const std::vector<std::string> topics{"arxiv", "book", "c4", "github", "wikipedia"};
  strata::stratum_serving_setup s;
  s.m = strata::preset("Mixtral-8x7B");
  s.usage = strata::topic_usage_from_counts(counts, "Mixtral-8x7B-v0.1", "topk2", "pretrained", topics, s.m.moe_layers());
  s.scheduler.policy = state.range(0) == 0 ? strata::schedule_policy::fcfs : strata::schedule_policy::topic;
  strata::request_gen_params g;
  g.rate = 12.0;
  g.count = 100000;
  g.topics = topics;
  g.prompt = {.kind = strata::length_kind::uniform, .value = 0, .min = 128, .max = 1024, .values = {}};
  g.output = {.kind = strata::length_kind::uniform, .value = 0, .min = 32, .max = 256, .values = {}};
  const auto reqs = strata::generate_requests(g);
  for (auto _ : state) benchmark::DoNotOptimize(strata::simulate_stratum(s, reqs));
  state.SetItemsProcessed(state.iterations() * g.count);
}
BENCHMARK(bm_serving_100k_mixtral_topic)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace
