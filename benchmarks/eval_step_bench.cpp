// strata/report/eval_step.hpp: one step as `strata-eval eval --json` and Python's strata.evaluate
// compute it, with its JSON document (the C++ part of a Python call; python/bench/overhead.py
// measures the rest).
#include <benchmark/benchmark.h>

#include "strata/json.hpp"
#include "strata/report/eval_row.hpp"
#include "strata/report/eval_step.hpp"
#include "strata/workload/presets.hpp"

namespace {

strata::eval_request decode_request() {
  strata::eval_request r;
  r.mode = strata::phase::decode;
  r.batch = 8;
  r.context = 2048;
  return r;
}

// The whole document in SI units (the Python dict's source), GPU preset on the fit check's degree.
void BM_eval_step_json_gpu(benchmark::State& state) {
  const strata::model m = strata::preset("Mixtral-8x7B");
  const auto mach = strata::load_eval_machine("h100_sxm5");
  const auto req = decode_request();
  for (auto _ : state) {
    strata::json j = strata::eval_step_json(m, {}, mach, req);
    strata::convert_units(j, strata::json_units::si);
    benchmark::DoNotOptimize(j);
  }
}
BENCHMARK(BM_eval_step_json_gpu)->Unit(benchmark::kMicrosecond);

// The step alone, without the breakdown tree and JSON (what the text output needs).
void BM_evaluate_gpu_step(benchmark::State& state) {
  const strata::model m = strata::preset("Mixtral-8x7B");
  const auto mach = strata::load_eval_machine("h100_sxm5");
  auto req = decode_request();
  req.with_breakdown = false;
  for (auto _ : state) benchmark::DoNotOptimize(strata::evaluate_gpu_step(m, {}, mach, req));
}
BENCHMARK(BM_evaluate_gpu_step)->Unit(benchmark::kMicrosecond);

void BM_eval_step_json_stratum(benchmark::State& state) {
  const strata::model m = strata::preset("Mixtral-8x7B");
  const auto mach = strata::load_eval_machine("stratum-s");
  const auto req = decode_request();
  for (auto _ : state) {
    strata::json j = strata::eval_step_json(m, {}, mach, req);
    strata::convert_units(j, strata::json_units::si);
    benchmark::DoNotOptimize(j);
  }
}
BENCHMARK(BM_eval_step_json_stratum)->Unit(benchmark::kMicrosecond);

// A sweep's point (Python's strata.sweep): the step's scalars as a flat row, without the
// breakdown tree, the operator rows or JSON (strata/report/eval_row.hpp).
void BM_eval_step_row_gpu(benchmark::State& state) {
  const strata::model m = strata::preset("Mixtral-8x7B");
  const auto mach = strata::load_eval_machine("h100_sxm5");
  const auto req = decode_request();
  for (auto _ : state) benchmark::DoNotOptimize(strata::eval_step_row(m, {}, mach, req));
}
BENCHMARK(BM_eval_step_row_gpu)->Unit(benchmark::kMicrosecond);

void BM_eval_step_row_stratum(benchmark::State& state) {
  const strata::model m = strata::preset("Mixtral-8x7B");
  const auto mach = strata::load_eval_machine("stratum-s");
  const auto req = decode_request();
  for (auto _ : state) benchmark::DoNotOptimize(strata::eval_step_row(m, {}, mach, req));
}
BENCHMARK(BM_eval_step_row_stratum)->Unit(benchmark::kMicrosecond);

}  // namespace
