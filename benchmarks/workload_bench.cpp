// Speed of the workload models (Google Benchmark): one full DeepSeek-V3 decode step, B = 64,
// S = 4096 (61 layers, 485 operators; 2 distinct layers), on 8 × H100 SXM5, and Mixtral-8x7B with
// its tree. Medians go into docs/speed.md, with their ratio to `bm_reference_fma_chain` of the same run:
//   ./build/benchmarks/workload_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cstdint>  // std::uint64_t

#include "strata/baseline/gpu.hpp"
#include "strata/workload/operators.hpp"
#include "strata/workload/presets.hpp"
#include "strata/workload/roofline.hpp"
#include "strata/workload/trace.hpp"
#include "strata/workload/trace_gen.hpp"

namespace {

const strata::step_shape shape{.mode = strata::phase::decode, .batch = 64, .context = 4096};

// Build the operators and evaluate them, totals only (the sweep path; target < 10 µs).
void bm_deepseek_v3_decode_step(benchmark::State& state) {
  const strata::model m = strata::preset("DeepSeek-V3");
  const auto machine = strata::make_machine(strata::h100_sxm5(), 8);
  for (auto _ : state) {
    const auto ops = strata::step_operators(m, shape);
    benchmark::DoNotOptimize(strata::evaluate(ops, shape, m.hidden, machine));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(bm_deepseek_v3_decode_step);

// The same with the breakdown tree (step -> layers -> operators, named leaves).
void bm_deepseek_v3_decode_step_breakdown(benchmark::State& state) {
  const strata::model m = strata::preset("DeepSeek-V3");
  const auto machine = strata::make_machine(strata::h100_sxm5(), 8);
  for (auto _ : state) {
    const auto ops = strata::step_operators(m, shape);
    benchmark::DoNotOptimize(strata::evaluate(ops, shape, m.hidden, machine, strata::step_breakdown::tree));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(bm_deepseek_v3_decode_step_breakdown);

// Each distinct layer once, times its layers (`step_layers` + `evaluate`), totals only: the
// full-model step (target < 2 µs). The same totals as above but for the order of the sums.
void bm_deepseek_v3_decode_step_layers(benchmark::State& state) {
  const strata::model m = strata::preset("DeepSeek-V3");
  const auto machine = strata::make_machine(strata::h100_sxm5(), 8);
  for (auto _ : state) benchmark::DoNotOptimize(strata::evaluate(strata::step_layers(m, shape), machine));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(bm_deepseek_v3_decode_step_layers);

// The model overload on 8 H100s: distinct layers, their tree (a repeat node per run of identical
// layers) and the capacity check.
void bm_deepseek_v3_decode_step_layers_breakdown(benchmark::State& state) {
  const strata::model m = strata::preset("DeepSeek-V3");
  const auto machine = strata::make_machine(strata::h100_sxm5(), 8);
  for (auto _ : state) benchmark::DoNotOptimize(strata::evaluate(m, shape, machine, {}, strata::step_breakdown::tree));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(bm_deepseek_v3_decode_step_layers_breakdown);

// Mixtral-8x7B decode, B = 8, S = 2048, one H100 (the GenZ comparison's step), with the tree and
// the capacity check: the model overload as `strata-eval eval --json` calls it (target <= 10 µs).
void bm_mixtral_8x7b_decode_step_breakdown(benchmark::State& state) {
  const strata::model m = strata::preset("Mixtral-8x7B");
  const strata::step_shape s{.mode = strata::phase::decode, .batch = 8, .context = 2048};
  const auto machine = strata::make_machine(strata::h100_sxm5(), 1);
  for (auto _ : state) benchmark::DoNotOptimize(strata::evaluate(m, s, machine, {}, strata::step_breakdown::tree));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(bm_mixtral_8x7b_decode_step_breakdown);

// The same-run reference: 4096 dependent multiply-adds on doubles (the core's speed, no memory).
// docs/speed.md quotes the steps above as multiples of it too, so a slower or busier machine scales both.
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

// The operator list alone.
void bm_deepseek_v3_decode_operators(benchmark::State& state) {
  const strata::model m = strata::preset("DeepSeek-V3");
  for (auto _ : state) benchmark::DoNotOptimize(strata::step_operators(m, shape));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(bm_deepseek_v3_decode_operators);

// The evaluation alone, on a prebuilt operator list.
void bm_deepseek_v3_decode_evaluate(benchmark::State& state) {
  const strata::model m = strata::preset("DeepSeek-V3");
  const auto machine = strata::make_machine(strata::h100_sxm5(), 8);
  const auto ops = strata::step_operators(m, shape);
  for (auto _ : state) benchmark::DoNotOptimize(strata::evaluate(ops, shape, m.hidden, machine));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(bm_deepseek_v3_decode_evaluate);

// The model overload: operators, evaluation and the capacity check, on 16 H100s in two nodes
// (hierarchical all-reduces over the inter-node link).
void bm_deepseek_v3_decode_step_checked_two_nodes(benchmark::State& state) {
  const strata::model m = strata::preset("DeepSeek-V3");
  const auto machine = strata::make_machine(strata::h100_sxm5(), 16);
  for (auto _ : state) benchmark::DoNotOptimize(strata::evaluate(m, shape, machine));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(bm_deepseek_v3_decode_step_checked_two_nodes);

// A decode batch of 512 concurrent sequences from a 600-sequence synthetic trace (random
// positions, seeded): the sequence index is rebuilt every call.
void bm_decode_batch_512(benchmark::State& state) {
  strata::trace_gen_params p;
  p.sequences = 600;
  const auto trace = strata::generate_trace(p);
  std::uint64_t seed = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(strata::select_decode_batch(trace, {.batch = 512, .seed = seed++}));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(bm_decode_batch_512);

}  // namespace
