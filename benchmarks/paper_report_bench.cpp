// Speed of the whole paper report's row computation (Google Benchmark), what
// `strata-paper-report` computes before it prints: every family of `paper_rows` with the real
// DeepSeek-V2-Lite trace, the per-domain count table and the frozen DQN checkpoint, on one thread
// and on the machine's hardware threads (goal < 10 s wall on two cores, issue 27). Wall time
// (UseRealTime: the work runs on several threads). Medians into README.md's Speed table, with
// their ratio to `bm_reference_fma_chain` of the same run:
//   ./build/benchmarks/paper_report_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <string>

#include "strata/core/files.hpp"
#include "strata/core/limits.hpp"
#include "strata/hcrmap/dqn_json.hpp"
#include "strata/hcrmap/dqn_scorer.hpp"
#include "strata/report/paper_rows.hpp"

namespace {

// The report's rows; the argument is --threads (0: the machine's hardware threads). The HCRMap
// rows are cached per process by (trace, value name): each iteration names its value apart, so
// every iteration runs the 16 experiments (the name enters only the rows' source text).
void bm_paper_report_rows(benchmark::State& state) {
  const std::string data = STRATA_BENCH_DATA_DIR;
  const std::string ck = data + "/hcrmap/dqn_checkpoint.json";
  const auto text = strata::read_input_file(ck, "checkpoint", strata::limits().checkpoint_file_bytes, "checkpoint_file_bytes");
  strata::controller_value value;
  value.score = strata::dqn_scorer(strata::parse_dqn_checkpoint(text, ck));
  const std::string trace = data + "/traces/dsv2lite_esft_trace_intent.csv";
  const std::string counts = data + "/traces/olmoe_mixtral_expert_counts_by_domain.csv";
  static int run = 0;
  strata::paper_report_options options;
  options.dsv2lite_trace = trace;
  options.domain_counts = counts;
  options.threads = static_cast<unsigned>(state.range(0));
  for (auto _ : state) {
    value.name = "masked Double DQN checkpoint (benchmark run " + std::to_string(++run) + ")";
    options.hcrmap_value = value;
    benchmark::DoNotOptimize(strata::paper_rows(options));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(bm_paper_report_rows)->Arg(0)->Arg(1)->Iterations(1)->UseRealTime()->Unit(benchmark::kSecond);

// The same-run reference: 4096 dependent multiply-adds on doubles (the core's speed, no memory),
// as in workload_bench.cpp, so a slower or busier machine scales both.
void bm_reference_fma_chain(benchmark::State& state) {
  double x = 1.0;
  for (auto _ : state) {
    double y = x;
    for (int i = 0; i < 4096; ++i) {
      y = y * 0.999999 + 1e-6;
      benchmark::DoNotOptimize(y);
    }
    x = y;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(bm_reference_fma_chain);

}  // namespace
