// Speed of the gap explainer (Google Benchmark, report/explain_groups.hpp), each family from its
// report rows computed once outside the loop (one shared setup per family):
// - the Stratum family's five out-of-tolerance rows (elasticities to 240 parameters, solves,
//   pairs, the family line);
// - the GPU validation's two measurement rows;
// - the vLLM serving rows on both knob sets (a re-evaluation of a run's rows simulates that run,
//   of the pooled rows the three, each run's result kept by card), on one thread and on two
//   (`explain_options::threads`: the two knob sets' families side by side);
// - the Stratum stack's thermal cap (each re-evaluation solves the 32 x 32 grid) and the HCRMap
//   migration premise (a discrete parameter, scanned);
// - the first vLLM campaign run of a preset model with a failing row (each re-evaluation simulates
//   the run).
// - one simulation of that campaign run, the unit a campaign or serving re-evaluation costs (the
//   serving engine's run of the measured load: its decode cohort, `engine_core::set_cohort`, steps
//   at the cost of the requests that change in them and `engine_core::run_decode_steps` runs pure
//   decode steps in one pass each, `Arg(1)`, or the reference, every step through the scheduler's
//   pass over the running requests, `Arg(0)`; the same result).
// Counters: `evaluations` (row-builder runs) and, by phase (`explain_counts`), `elasticity`,
// `walk`, `solve`, `family`, `runs_per_solve` (the root solves' runs over the solves) and
// `s_per_run` (the family's time over its runs).
// Goal: the explainer beside the report within the report's time budget (issue 47).
//   ./build/benchmarks/explain_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <chrono>
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
  const auto t0 = std::chrono::steady_clock::now();
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
  const std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t0;
  state.counters["s_per_run"] =
      evaluations > 0 ? dt.count() / static_cast<double>(evaluations * state.iterations()) : 0.0;
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

// One simulation of the first failing campaign run as `simulate_vllm_campaign_run` runs it (its
// requests, card and engine), through `detail::run_engine` with the decode runs on (1) or off (0).
void bm_campaign_run_simulation(benchmark::State& state) {
  const auto rows = bench_campaign_run_rows();
  const std::string head = "validation.serving.campaign.";
  const std::string key = rows.front().id.substr(head.size(), rows.front().id.find('.', head.size()) - head.size());
  std::optional<strata::vllm_campaign_run> run;
  for (const auto& r : strata::vllm_campaign_runs()) {
    if (r.key == key) run = r;
  }
  if (!run) {
    state.SkipWithError("no campaign run");
    return;
  }
  const auto m = strata::vllm_campaign_model(*run, std::nullopt, {});
  const auto reqs = strata::vllm_campaign_requests(*run);
  const auto card = strata::vllm_campaign_card(strata::baseline_gpu(strata::h100_sxm5()));
  const auto ep = strata::vllm_campaign_engine(*run);
  const auto served = strata::gpu_serving_baseline(card, m, run->tp);
  // The blocks of the run's memory share (`simulate_gpu`), for a result to compare with it.
  const auto ref = strata::simulate_gpu(card, m, strata::scheduler_params{}, reqs, run->tp, ep);
  const std::int64_t blocks = ref.kv_tokens / ep.block_size;
  const auto lim = strata::engine_limits_of(ep, card.memory_capacity, card.name);
  const auto simulate = [&] {
    strata::gpu_step_costs costs(card, served.second, served.first, {}, ep.sampler);
    return strata::detail::run_engine(reqs, ep, lim, blocks, costs, strata::scheduler_params{}, 1, state.range(0) != 0);
  };
  // Checked once before the timed loop (a check of the loop's last result after it read 0 with
  // GCC 12 -O3 and the installed Google Benchmark, and skipped both arms).
  if (simulate().e2e.mean_s != ref.e2e.mean_s) {
    state.SkipWithError("the run differs from simulate_gpu's");
    return;
  }
  for (auto _ : state) {
    const auto r = simulate();
    double e2e = r.e2e.mean_s;
    benchmark::DoNotOptimize(e2e);
  }
  state.counters["steps"] = static_cast<double>(ref.decode_steps + ref.mixed_steps + ref.prefill_steps);
}
BENCHMARK(bm_campaign_run_simulation)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace
