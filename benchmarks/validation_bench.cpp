// SPDX-License-Identifier: MIT
// Speed of the GPU-baseline validation (baseline/validation.hpp): one row's modelled value (the
// fit's inner loop) and the whole fit of the published set.
#include <benchmark/benchmark.h>

#include "strata/baseline/gpu_measurements_data.hpp"
#include "strata/baseline/validation.hpp"

namespace {

// Mixtral-8x7B on 8 H100, batch 64, 1000 + 50 tokens: 1 prefill and 16 sampled decode steps.
void bm_validation_model_row(benchmark::State& st) {
  const auto rows = strata::published_gpu_measurements();
  const auto p = strata::prepare_measurement(rows.at(6));
  const strata::gpu_knobs k{};
  for (auto _ : st) benchmark::DoNotOptimize(strata::model_measurement(p, k).value);
}
BENCHMARK(bm_validation_model_row);

// Preparing the 34 rows (operators built once) and fitting the three knobs on the 17 fit rows.
void bm_validation_fit_published(benchmark::State& st) {
  const auto rows = strata::published_gpu_measurements();
  for (auto _ : st) benchmark::DoNotOptimize(strata::fit_gpu_knobs(rows).objective);
}
BENCHMARK(bm_validation_fit_published)->Unit(benchmark::kMillisecond);

}  // namespace
