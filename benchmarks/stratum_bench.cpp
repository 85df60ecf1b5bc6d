// Speed of the Stratum system model (Google Benchmark). Medians go into docs/speed.md:
//   ./build/benchmarks/stratum_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include "strata/stratum/system.hpp"
#include "strata/workload/presets.hpp"

namespace {

const strata::step_shape shape{.mode = strata::phase::decode, .batch = 16, .context = 2048};

// One Stratum-L decode step of Mixtral 8x7B (32 layers, 8 experts, the 31.6 % hit-rate table),
// on a prepared system with the batch's placement: the step a serving loop or a sweep repeats
// (target < 20 µs).
void bm_stratum_l_mixtral_decode_step(benchmark::State& state) {
  const auto m = strata::preset("Mixtral-8x7B");
  const auto sys = strata::prepare(strata::stratum_l());
  const auto f = strata::usage_from_hit_rate(m.moe_layers(), m.experts, m.top_k, 0.316);
  const auto rows = strata::place_model(sys, m, shape, f);
  for (auto _ : state) benchmark::DoNotOptimize(strata::evaluate_decode(sys, rows, m, shape, f));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(bm_stratum_l_mixtral_decode_step);

// The same with Algorithm 1 and the row plan in the loop (a new placement every step).
void bm_stratum_l_mixtral_place_and_decode(benchmark::State& state) {
  const auto m = strata::preset("Mixtral-8x7B");
  const auto sys = strata::prepare(strata::stratum_l());
  const strata::stratum_usage u{strata::usage_from_hit_rate(m.moe_layers(), m.experts, m.top_k, 0.316), {}};
  for (auto _ : state) benchmark::DoNotOptimize(strata::evaluate_decode(sys, m, shape, u));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(bm_stratum_l_mixtral_place_and_decode);

// From the parameters: the chip, the logic die and the rows evaluated too.
void bm_stratum_l_mixtral_from_params(benchmark::State& state) {
  const auto m = strata::preset("Mixtral-8x7B");
  const auto p = strata::stratum_l();
  const strata::stratum_usage u{strata::usage_from_hit_rate(m.moe_layers(), m.experts, m.top_k, 0.316), {}};
  for (auto _ : state) benchmark::DoNotOptimize(strata::evaluate_decode(p, m, shape, u));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(bm_stratum_l_mixtral_from_params);

// With the breakdown tree: a node per run of identical layers and per operator kind (arg 0), and
// also each MoE block's experts as columns (arg 1).
void bm_stratum_l_mixtral_breakdown(benchmark::State& state) {
  const auto m = strata::preset("Mixtral-8x7B");
  const auto sys = strata::prepare(strata::stratum_l());
  const auto f = strata::usage_from_hit_rate(m.moe_layers(), m.experts, m.top_k, 0.316);
  const auto rows = strata::place_model(sys, m, shape, f);
  const auto detail = state.range(0) == 0 ? strata::breakdown_detail::layers : strata::breakdown_detail::experts;
  for (auto _ : state) benchmark::DoNotOptimize(strata::evaluate_decode(sys, rows, m, shape, f, detail));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(bm_stratum_l_mixtral_breakdown)->Arg(0)->Arg(1);

}  // namespace
