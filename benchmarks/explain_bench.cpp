// Speed of the gap explainer (Google Benchmark, report/explain_groups.hpp), each family from its
// report rows computed once outside the loop (one shared setup per family):
// - the Stratum family's five out-of-tolerance rows (elasticities to 240 parameters, solves,
//   pairs, the family line);
// - the GPU validation's two measurement rows;
// - the vLLM serving rows on both knob sets (each re-evaluation simulates three vLLM runs), on one
//   thread and on two (`explain_options::threads`: the two knob sets' families side by side);
// - the Stratum stack's thermal cap (each re-evaluation solves the 32 x 32 grid) and the HCRMap
//   migration premise (a discrete parameter, scanned);
// - the first vLLM campaign run of a preset model with a failing row (each re-evaluation simulates
//   the run).
// Counters: `evaluations` (row-builder runs) and, by phase (`explain_counts`), `elasticity`,
// `walk`, `solve`, `family`, and `runs_per_solve` (the root solves' runs over the solves).
// Goal: the explainer beside the report within the report's time budget (issue 47).
//   ./build/benchmarks/explain_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <optional>
#include <string>
#include <vector>

#include "strata/report/explain_groups.hpp"
#include "strata/report/paper_rows.hpp"

namespace {

std::vector<strata::paper_row> bench_stratum_rows() {
  strata::paper_report_options po;
  po.only = {"stratum-results"};
  po.threads = 1;
  return strata::paper_rows(po);
}

std::vector<strata::paper_row> bench_validation_rows() {
  const strata::fit_options fo{};
  std::vector<strata::prepared_measurement> p;
  for (const auto& m : strata::published_gpu_measurements()) p.push_back(strata::prepare_measurement(m, fo.model));
  return strata::validation_rows(strata::report_gpu_baseline(p, strata::published_gpu_fit(), fo.model));
}

std::vector<strata::paper_row> bench_serving_rows() {
  const std::string id0 = "validation.serving.mixtral_tp2_h100.";
  auto rows = strata::serving_validation_rows(strata::baseline_gpu(strata::h100_sxm5()), id0, "cited knobs");
  for (auto& r : strata::serving_validation_rows(strata::validated_gpu(strata::h100_sxm5()), id0 + "fitted_knobs.",
                                                 "knobs fitted on tests/data/measurements")) {
    rows.push_back(std::move(r));
  }
  return rows;
}

// The explainer of every failing row of `rows` (the shared loop of every benchmark here).
void bench_explain(benchmark::State& state, const std::vector<strata::paper_row>& rows, unsigned threads = 1) {
  strata::explain_options o;
  o.threads = threads;
  std::size_t evaluations = 0;
  strata::explain_counts counts;
  for (auto _ : state) {
    const auto x = strata::explain_report(rows, {}, o);
    evaluations = x.evaluations;
    counts = x.counts;
    benchmark::DoNotOptimize(x);
  }
  state.counters["evaluations"] = static_cast<double>(evaluations);
  state.counters["elasticity"] = static_cast<double>(counts.elasticity);
  state.counters["walk"] = static_cast<double>(counts.walk);
  state.counters["solve"] = static_cast<double>(counts.solve);
  state.counters["family"] = static_cast<double>(counts.family);
  state.counters["runs_per_solve"] =
      counts.solves > 0 ? static_cast<double>(counts.solve) / static_cast<double>(counts.solves) : 0.0;
}

// The rows of the first vLLM campaign run of a preset model with a failing check row (all rows of
// the preset runs when none fails: nothing to explain, the loop measures the scan).
std::vector<strata::paper_row> bench_campaign_run_rows() {
  const auto rows = strata::vllm_campaign_rows(std::nullopt);
  std::string prefix;
  for (const auto& r : rows) {
    if (r.kind == strata::row_kind::check && !r.ok().value_or(true)) {
      const std::string head = "validation.serving.campaign.";
      prefix = r.id.substr(0, r.id.find('.', head.size()) + 1);
      break;
    }
  }
  if (prefix.empty()) return rows;
  std::vector<strata::paper_row> out;
  for (const auto& r : rows) {
    if (r.id.rfind(prefix, 0) == 0) out.push_back(r);
  }
  return out;
}

void bm_explain_stratum_results(benchmark::State& state) { bench_explain(state, bench_stratum_rows()); }
BENCHMARK(bm_explain_stratum_results)->Iterations(1)->Unit(benchmark::kSecond);

void bm_explain_gpu_validation(benchmark::State& state) { bench_explain(state, bench_validation_rows()); }
BENCHMARK(bm_explain_gpu_validation)->Unit(benchmark::kMillisecond);

void bm_explain_serving(benchmark::State& state) {
  bench_explain(state, bench_serving_rows(), static_cast<unsigned>(state.range(0)));
}
BENCHMARK(bm_explain_serving)->Arg(1)->Arg(2)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

void bm_explain_thermal_and_migration(benchmark::State& state) {
  auto rows = strata::stratum_thermal_rows();
  for (auto& r : strata::hcrmap_premise_rows({}, {})) rows.push_back(std::move(r));
  bench_explain(state, rows);
}
BENCHMARK(bm_explain_thermal_and_migration)->Iterations(1)->Unit(benchmark::kSecond);

void bm_explain_campaign_run(benchmark::State& state) { bench_explain(state, bench_campaign_run_rows()); }
BENCHMARK(bm_explain_campaign_run)->Iterations(1)->Unit(benchmark::kSecond);

}  // namespace
