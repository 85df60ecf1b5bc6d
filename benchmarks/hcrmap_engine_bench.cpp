// Speed of an HCRMap chiplet package serving requests through the engine
// (include/strata/serving/hcrmap_engine.hpp). Median into docs/speed.md:
//   ./build/benchmarks/hcrmap_engine_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "strata/serving/hcrmap_engine.hpp"
#include "strata/workload/presets.hpp"
#include "strata/workload/trace_io.hpp"

namespace {

// 2 000 requests (Poisson, 20 req/s, prompts 64–1024, outputs 16–256 tokens) of DeepSeek-V2-Lite
// on HCRMap's package, every MoE layer evaluated, the routing from the ESFT intent trace; Arg 0
// single-copy static, Arg 1 HCRMap with its controller between steps. The packages' plan, the
// layouts and HCRMap's planning are built inside the timed region (target: seconds, issue 45).
void bm_hcrmap_engine_2k(benchmark::State& state) {
  const auto trace =
      strata::load_trace_csv(std::string(STRATA_BENCH_DATA_DIR) + "/traces/dsv2lite_esft_trace_intent.csv");
  strata::hcrmap_serving_setup s;
  s.m = strata::preset("DeepSeek-V2-Lite");
  s.trace = &trace;
  s.params.policy = state.range(0) == 0 ? strata::policy_kind::single_copy_static : strata::policy_kind::hcrmap;
  s.params.control_s = 1.0;  // the example scenario's setting (the default, 0, acts after every step)
  strata::request_gen_params g;
  g.rate = 20.0;
  g.count = 2000;
  g.topics = {"intent"};
  g.prompt = {.kind = strata::length_kind::uniform, .value = 0, .min = 64, .max = 1024, .values = {}};
  g.output = {.kind = strata::length_kind::uniform, .value = 0, .min = 16, .max = 256, .values = {}};
  const auto reqs = strata::generate_requests(g);
  for (auto _ : state) benchmark::DoNotOptimize(strata::simulate_hcrmap_serving(s, reqs));
  state.SetItemsProcessed(state.iterations() * g.count);
}
BENCHMARK(bm_hcrmap_engine_2k)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
