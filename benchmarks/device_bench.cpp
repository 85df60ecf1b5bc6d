// Speed of the Stratum device models (Google Benchmark). Medians go into docs/speed.md.
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

#include "strata/device/logic_die.hpp"

namespace {

// Eq. 1-3 at the Table 3 design point: power, area, TSV area, breakdowns and the verdict.
void bm_logic_die_check(benchmark::State& state) {
  const strata::logic_die_params<> p;
  const auto bw = strata::evaluate(strata::mono3d_params<>{}).tiers.front().internal_bandwidth;
  for (auto _ : state) benchmark::DoNotOptimize(strata::evaluate(p, bw));
}
BENCHMARK(bm_logic_die_check);

// Largest N_mac meeting Eq. 1 and Eq. 2 (bracket + TOMS 748 + integer check).
void bm_logic_die_solver(benchmark::State& state) {
  const strata::logic_die_params<> p;
  const auto bw = strata::evaluate(strata::mono3d_params<>{}).tiers.front().internal_bandwidth;
  for (auto _ : state) benchmark::DoNotOptimize(strata::max_macs_within_budget(p, bw));
}
BENCHMARK(bm_logic_die_solver);

// The whole device question of issue 2: 1024-layer chip, 8 tiers, then the budget check.
void bm_device_end_to_end(benchmark::State& state) {
  const strata::mono3d_params<> mp;
  const strata::logic_die_params<> lp;
  for (auto _ : state) {
    const auto chip = strata::evaluate(mp);
    benchmark::DoNotOptimize(strata::evaluate(lp, chip.tiers.front().internal_bandwidth));
  }
}
BENCHMARK(bm_device_end_to_end);

}  // namespace

#include "strata/device/rc_ladder.hpp"
#include "strata/device/stratum_chip.hpp"

namespace {

// One coupled chip (memory die → derived logic die → Eq. 1-3) at a layer count: the sweep point.
void bm_stratum_chip(benchmark::State& state) {
  strata::stratum_chip_params<> p;
  p.memory.layers = static_cast<int>(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(strata::evaluate(p));
}
BENCHMARK(bm_stratum_chip)->Arg(256)->Arg(1024);

// The exact RC-ladder reference of one word line (401 nodes): eigen-expansion and 50 % crossing.
void bm_rc_ladder(benchmark::State& state) {
  using namespace strata;
  const mono3d_params<> p;
  const auto x = p.staircase_step * 1024.0;
  const auto la = p.bl_pitch * double(p.bitlines_per_mat);
  const rc_line line{p.driver_resistance,
                     {{p.wl_resistance * x, p.wl_capacitance * x, 200},
                      {p.wl_resistance * la, p.wl_capacitance * la + p.cell_load * 1024.0, 200}},
                     {}};
  for (auto _ : state) {
    const rc_ladder lad(line);
    benchmark::DoNotOptimize(lad.crossing());
  }
}
BENCHMARK(bm_rc_ladder);

}  // namespace
