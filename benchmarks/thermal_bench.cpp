// SPDX-License-Identifier: MIT
// The compact thermal model on HotSpot's EV6 example (tests/data/thermal/hotspot): the block
// model's steady state (132 nodes), the grid model's at 32 x 32 and 64 x 64 (4 110 and 16 396
// nodes; issue 48 asks < 1 ms and < 50 ms), each as network build + factorisation + solve, and
// one backward-Euler step of the 64 x 64 grid once factorised; and the Stratum stack's derived
// logic-power cap (thermal/stratum_stack.hpp: chip evaluation, floorplan, 7-layer network, one
// factorisation, three solves) in the block model and the default 32 x 32 grid.
#include <benchmark/benchmark.h>

#include <string>  // std::string

#include "strata/thermal/hotspot_io.hpp"
#include "strata/thermal/stratum_stack.hpp"

namespace {

namespace th = strata::thermal;

struct ev6_inputs {
  th::hotspot_model model;
  th::block_power power;
};

const ev6_inputs& ev6() {
  static const ev6_inputs in = [] {
    const std::string d = std::string(STRATA_BENCH_DATA_DIR) + "/thermal/hotspot/";
    const auto cfg = th::read_hotspot_config(d + "hotspot.config");
    auto m = th::hotspot_2d_model(cfg, th::read_flp(d + "ev6.flp"));
    const auto tr = th::read_ptrace(d + "gcc.ptrace");
    auto p = th::map_power(m, tr.names, tr.mean());
    return ev6_inputs{std::move(m), std::move(p)};
  }();
  return in;
}

void BM_thermal_block_steady(benchmark::State& state) {
  const auto& in = ev6();
  for (auto _ : state) {
    const auto r = th::steady_state(th::build_thermal_network(in.model.stack, {}), in.power);
    benchmark::DoNotOptimize(r.max_node_K);
  }
}
BENCHMARK(BM_thermal_block_steady)->Unit(benchmark::kMicrosecond);

// range(1): 0 the default solve (conjugate gradients from 2 048 nodes up), 1 the factorisation.
void BM_thermal_grid_steady(benchmark::State& state) {
  const auto& in = ev6();
  th::thermal_options o;
  o.model = th::thermal_model_kind::grid;
  o.grid_rows = o.grid_cols = static_cast<int>(state.range(0));
  const auto method = state.range(1) == 0 ? th::steady_method::automatic : th::steady_method::direct;
  for (auto _ : state) {
    const auto r = th::steady_state(th::build_thermal_network(in.model.stack, o), in.power, method);
    benchmark::DoNotOptimize(r.max_node_K);
  }
}
BENCHMARK(BM_thermal_grid_steady)
    ->Args({32, 0})
    ->Args({32, 1})
    ->Args({64, 0})
    ->Args({64, 1})
    ->Unit(benchmark::kMillisecond);

void BM_thermal_grid_transient_step(benchmark::State& state) {
  const auto& in = ev6();
  th::thermal_options o;
  o.model = th::thermal_model_kind::grid;
  const auto net = th::build_thermal_network(in.model.stack, o);
  const th::transient_solver<> solver(net.net, 1e-3);
  const auto p = th::node_power(net, in.power);
  std::vector<double> theta(static_cast<std::size_t>(net.net.size()), 0.0);
  th::transient_energy e;
  for (auto _ : state) {
    solver.step(theta, p, e);
    benchmark::DoNotOptimize(theta.data());
  }
}
BENCHMARK(BM_thermal_grid_transient_step)->Unit(benchmark::kMillisecond);

void BM_stratum_stack_limit(benchmark::State& state) {
  th::stratum_stack_params s;
  if (state.range(0) == 0) {
    s.model.model = th::thermal_model_kind::block;
  } else {
    s.model.grid_rows = s.model.grid_cols = static_cast<int>(state.range(0));
  }
  for (auto _ : state) {
    const auto r = th::logic_power_limit(s);
    benchmark::DoNotOptimize(r.limit_W);
  }
  state.SetLabel(state.range(0) == 0 ? "block" : "grid");
}
BENCHMARK(BM_stratum_stack_limit)->Arg(0)->Arg(16)->Arg(32)->Unit(benchmark::kMillisecond);

}  // namespace
