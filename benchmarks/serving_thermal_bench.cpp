// Speed of the serving run coupled to the Stratum stack's temperature (issue 48, item 5;
// include/strata/stratum/serving/serving_thermal.hpp), against the same run uncoupled. Median into
// docs/thermal.md:
//   ./build/benchmarks/serving_thermal_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

#include "strata/stratum/serving/serving_thermal.hpp"
#include "strata/stratum/serving/topic_usage.hpp"
#include "strata/workload/presets.hpp"
#include "strata/workload/trace_io.hpp"

namespace {

struct thermal_bench_case {
  strata::stratum_serving_setup setup;
  std::vector<strata::request> reqs;
};

// `count` requests (Poisson at `rate` req/s, prompts 128–1024, outputs 32–256 tokens, five topics) of
// Mixtral 8x7B on Stratum-L with FCFS and the per-domain usage tables.
thermal_bench_case thermal_bench_setup(double rate, std::int64_t count) {
  const auto counts = strata::load_expert_counts_csv(std::string(STRATA_BENCH_DATA_DIR) +
                                                     "/traces/olmoe_mixtral_expert_counts_by_domain.csv");
  const std::vector<std::string> topics{"arxiv", "book", "c4", "github", "wikipedia"};
  thermal_bench_case c;
  c.setup.m = strata::preset("Mixtral-8x7B");
  c.setup.usage =
      strata::topic_usage_from_counts(counts, "Mixtral-8x7B-v0.1", "topk2", "pretrained", topics, c.setup.m.moe_layers());
  strata::request_gen_params g;
  g.rate = rate;
  g.count = count;
  g.topics = topics;
  g.prompt = {.kind = strata::length_kind::uniform, .value = 0, .min = 128, .max = 1024, .values = {}};
  g.output = {.kind = strata::length_kind::uniform, .value = 0, .min = 32, .max = 256, .values = {}};
  c.reqs = strata::generate_requests(g);
  return c;
}

// Arg 0: uncoupled (simulate_stratum); 1: coupled at the default cooling (never throttles);
// 2: coupled under a 2.5e3 W/(m^2 K) cold plate (throttles). Arg 1: requests (2 000, or 100 000:
// 5 000 s of serving, a million windows). Rate 20 req/s (saturating). The step costs are memoised
// across iterations (one memo), so the timed region is the event loop and, when coupled, the
// stack's transient: one block-model network of 462 nodes, one exact window (window_integrator,
// its slow modes only) per 5 ms window, after the network's eigendecomposition once per run.
void bm_serving_thermal(benchmark::State& state) {
  const auto c = thermal_bench_setup(20.0, state.range(1));
  strata::serving_thermal_params p;
  p.enabled = state.range(0) > 0;
  if (state.range(0) == 2) p.cold_plate_h_W_m2K = 2.5e3;
  strata::stratum_serving_memo memo;
  (void)strata::simulate_stratum(c.setup, c.reqs, nullptr, {}, &memo);
  double windows = 0.0;
  for (auto _ : state) {
    const auto r = strata::simulate_stratum_thermal(c.setup, c.reqs, p, nullptr, {}, &memo);
    windows = static_cast<double>(r.thermal.windows);
    benchmark::DoNotOptimize(r);
  }
  state.counters["windows"] = windows;
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(c.reqs.size()));
}
BENCHMARK(bm_serving_thermal)
    ->Args({0, 2000})
    ->Args({1, 2000})
    ->Args({2, 2000})
    ->Args({0, 100000})
    ->Args({1, 100000})
    ->Args({2, 100000})
    ->Unit(benchmark::kMillisecond);

}  // namespace
