// Speed of the gap explainer (Google Benchmark, report/explain_groups.hpp): the Stratum family's
// five out-of-tolerance rows (elasticities to 240 parameters, solves, pairs, the family line) and
// the GPU validation's two measurement rows, each from its report rows computed once outside the
// loop. The serving rows are not timed here (each re-evaluation simulates three vLLM runs, about
// 0.2 s: docs/paper_report.md states their time). Goal: the explainer beside the report within the
// report's time budget (issue 47).
//   ./build/benchmarks/explain_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <vector>

#include "strata/report/explain_groups.hpp"
#include "strata/report/paper_rows.hpp"

namespace {

void bm_explain_stratum_results(benchmark::State& state) {
  strata::paper_report_options po;
  po.only = {"stratum-results"};
  po.threads = 1;
  const auto rows = strata::paper_rows(po);
  std::size_t evaluations = 0;
  for (auto _ : state) {
    const auto x = strata::explain_report(rows);
    evaluations = x.evaluations;
    benchmark::DoNotOptimize(x);
  }
  state.counters["evaluations"] = static_cast<double>(evaluations);
}
BENCHMARK(bm_explain_stratum_results)->Iterations(1)->Unit(benchmark::kSecond);

void bm_explain_gpu_validation(benchmark::State& state) {
  const strata::fit_options fo{};
  std::vector<strata::prepared_measurement> p;
  for (const auto& m : strata::published_gpu_measurements()) p.push_back(strata::prepare_measurement(m, fo.model));
  const auto rows = strata::validation_rows(strata::report_gpu_baseline(p, strata::published_gpu_fit(), fo.model));
  std::size_t evaluations = 0;
  for (auto _ : state) {
    const auto x = strata::explain_report(rows);
    evaluations = x.evaluations;
    benchmark::DoNotOptimize(x);
  }
  state.counters["evaluations"] = static_cast<double>(evaluations);
}
BENCHMARK(bm_explain_gpu_validation)->Unit(benchmark::kMillisecond);

}  // namespace
