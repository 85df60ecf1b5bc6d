// Speed of design-space exploration (Google Benchmark): design points per second of the device
// and logic-die models and of full Stratum decode steps, through the sweep engine on one thread;
// the elasticities and the budget optimiser. Medians go into docs/speed.md:
//   ./build/benchmarks/explore_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cstddef>  // std::size_t

#include "strata/core/sensitivity.hpp"
#include "strata/core/sweep.hpp"
#include "strata/device/logic_die.hpp"
#include "strata/device/mono3d.hpp"
#include "strata/stratum/design_optimiser.hpp"
#include "strata/stratum/system.hpp"
#include "strata/workload/presets.hpp"

namespace {

// WL layers × tiers × MACs: 16 × 4 × 16 = 1024 points of the Mono3D die and Eq. 1-3 at its
// fastest tier, numbers only.
strata::sweep_space device_space() {
  return strata::cartesian({strata::integer_axis("layers", 64, 1024, 64), strata::list_axis("tiers", {2, 4, 8, 16}),
                            strata::integer_axis("macs", 8000, 128000, 8000)});
}

struct device_row {
  double bw_fast = 0, spread = 0, density = 0, p_logic = 0, area_slack = 0;
  bool feasible = false;
};

device_row device_point(const strata::design_point& x) {
  strata::mono3d_params<> mp;
  mp.layers = static_cast<int>(x[0]);
  mp.tiers = static_cast<int>(x[1]);
  const auto m = strata::evaluate(mp);
  const strata::logic_die_params<> lp;
  const auto bw = m.tiers.front().internal_bandwidth;
  const auto l = strata::evaluate_numbers(lp, bw, x[2]);
  return {bw.si(), m.fast_slow_latency_ratio, m.density.si(), l.p_logic.si(), l.area_slack.si(), l.feasible};
}

// One device design point (Mono3D die of L layers in T tiers, then Eq. 1-3 at N_mac) through the
// sweep engine on one thread (target over 1 M points/s).
void bm_explore_device_points(benchmark::State& state) {
  const auto space = device_space();
  const strata::sweep_options o{.threads = 1};
  for (auto _ : state) benchmark::DoNotOptimize(strata::run_sweep(space, device_point, o));
  state.SetItemsProcessed(state.iterations() * static_cast<long long>(space.size()));
}
BENCHMARK(bm_explore_device_points);

// The same points with the logic-die verdict in words (`evaluate` instead of `evaluate_numbers`).
void bm_explore_device_points_with_reason(benchmark::State& state) {
  const auto space = device_space();
  const strata::sweep_options o{.threads = 1};
  const auto f = [](const strata::design_point& x) {
    strata::mono3d_params<> mp;
    mp.layers = static_cast<int>(x[0]);
    mp.tiers = static_cast<int>(x[1]);
    const auto m = strata::evaluate(mp);
    return strata::evaluate(strata::logic_die_params<>{}, m.tiers.front().internal_bandwidth, x[2]).feasible;
  };
  for (auto _ : state) benchmark::DoNotOptimize(strata::run_sweep(space, f, o));
  state.SetItemsProcessed(state.iterations() * static_cast<long long>(space.size()));
}
BENCHMARK(bm_explore_device_points_with_reason);

const strata::step_shape mixtral_shape{.mode = strata::phase::decode, .batch = 16, .context = 2048};

// Full Stratum-L decode steps of Mixtral 8x7B over batch × context (1, 2, …, 256 × 512 … 4096;
// 36 points), prepared system, one placement sized for the largest shape, one thread (target
// over 50 k points/s).
void bm_explore_stratum_decode_points(benchmark::State& state) {
  const auto m = strata::preset("Mixtral-8x7B");
  const auto sys = strata::prepare(strata::stratum_l());
  const auto f = strata::usage_from_hit_rate(m.moe_layers(), m.experts, m.top_k, 0.316);
  const auto rows = strata::place_model(sys, m, {.mode = strata::phase::decode, .batch = 256, .context = 4096}, f);
  const auto space = strata::cartesian({strata::list_axis("batch", {1, 2, 4, 8, 16, 32, 64, 128, 256}),
                                        strata::list_axis("context", {512, 1024, 2048, 4096})});
  const strata::sweep_options o{.threads = 1};
  const auto point = [&](const strata::design_point& x) {
    const strata::step_shape s{.mode = strata::phase::decode, .batch = static_cast<int>(x[0]),
                               .context = static_cast<int>(x[1])};
    return strata::evaluate_decode(sys, rows, m, s, f).tokens_per_s;
  };
  for (auto _ : state) benchmark::DoNotOptimize(strata::run_sweep(space, point, o));
  state.SetItemsProcessed(state.iterations() * static_cast<long long>(space.size()));
}
BENCHMARK(bm_explore_stratum_decode_points);

// The same design question with the system rebuilt for every point (the chip, the logic die,
// the rows): what a sweep over hardware parameters pays.
void bm_explore_stratum_decode_points_from_params(benchmark::State& state) {
  const auto m = strata::preset("Mixtral-8x7B");
  const strata::stratum_usage u{strata::usage_from_hit_rate(m.moe_layers(), m.experts, m.top_k, 0.316), {}};
  const auto space = strata::cartesian({strata::list_axis("tiers", {4, 8, 16}), strata::list_axis("macs", {32000, 64000})});
  const strata::sweep_options o{.threads = 1};
  const auto point = [&](const strata::design_point& x) {
    auto p = strata::stratum_l();
    p.nmp.chip.memory.tiers = static_cast<int>(x[0]);
    p.nmp.chip.logic.n_mac = static_cast<int>(x[1]);
    return strata::evaluate_decode(p, m, mixtral_shape, u).tokens_per_s;
  };
  for (auto _ : state) benchmark::DoNotOptimize(strata::run_sweep(space, point, o));
  state.SetItemsProcessed(state.iterations() * static_cast<long long>(space.size()));
}
BENCHMARK(bm_explore_stratum_decode_points_from_params);

// Elasticities of the fastest-tier bandwidth to every real Mono3D parameter (one autodiff run
// per parameter).
void bm_explore_mono3d_elasticities(benchmark::State& state) {
  const strata::mono3d_params<> p;
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        strata::elasticities(p, [](const auto& q) { return strata::evaluate(q).tiers.front().internal_bandwidth; }));
  }
}
BENCHMARK(bm_explore_mono3d_elasticities);

// Elasticities of the Stratum-L decode throughput (Mixtral, B = 16, S = 2048) to every real
// system parameter.
void bm_explore_stratum_elasticities(benchmark::State& state) {
  const auto m = strata::preset("Mixtral-8x7B");
  const strata::stratum_system_params<> p = strata::stratum_l();
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        strata::elasticities(p, [&](const auto& q) { return strata::evaluate_decode(q, m, mixtral_shape).tokens_per_s; }));
  }
}
BENCHMARK(bm_explore_stratum_elasticities)->Unit(benchmark::kMillisecond);

// The budget optimiser on Stratum-L (Mixtral): 100 MAC counts × 4 tier counts × 3 PU sizes at
// 1 GHz, plus the two re-solves for the shadow prices, one thread.
void bm_explore_optimise_design(benchmark::State& state) {
  const auto m = strata::preset("Mixtral-8x7B");
  const auto sys = strata::stratum_l();
  const strata::design_domain d{.macs = strata::mac_grid(sys, 1280, 128000, 1280), .pes_per_pu = {4, 8, 16},
                                .tiers = {2, 4, 8, 16}};
  for (auto _ : state) {
    benchmark::DoNotOptimize(strata::optimise_design(sys, m, mixtral_shape, {}, d,
                                                     strata::design_objective::decode_throughput, {.threads = 1}));
  }
}
BENCHMARK(bm_explore_optimise_design)->Unit(benchmark::kMillisecond);

}  // namespace
