// Speed of the Stratum device models (Google Benchmark). Medians go into README.md.
#include <benchmark/benchmark.h>

#include "strata/device/mono3d.hpp"

namespace {

// The whole device: 1024 layers quantised into 8 tiers (latency, bandwidth, capacity, density).
void bm_mono3d_evaluate(benchmark::State& state) {
  strata::mono3d_params<> p;
  p.layers = static_cast<int>(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(strata::evaluate(p));
}
BENCHMARK(bm_mono3d_evaluate)->Arg(64)->Arg(1024);

// Per-layer access latency of all 1024 layers (Fig. 14 profile).
void bm_mono3d_latency_profile(benchmark::State& state) {
  const strata::mono3d_params<> p;
  for (auto _ : state) benchmark::DoNotOptimize(strata::latency_profile(p));
  state.SetItemsProcessed(state.iterations() * p.layers);
}
BENCHMARK(bm_mono3d_latency_profile);

}  // namespace
