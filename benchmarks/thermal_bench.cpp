// SPDX-License-Identifier: MIT
// The compact thermal model on HotSpot's EV6 example (tests/data/thermal/hotspot): the block
// model's steady state (132 nodes), the grid model's at 32 x 32 and 64 x 64 (4 110 and 16 396
// nodes; issue 48 asks < 1 ms and < 50 ms), each as network build + solve (multigrid CG, the
// factorisation, Jacobi CG), the 64 x 64 case's parts (build, assembly, multigrid hierarchy), and
// one backward-Euler step of the 64 x 64 grid once factorised; and the Stratum stack's derived
// logic-power cap (thermal/stratum_stack.hpp: chip evaluation, floorplan, 7-layer network, one
// factorisation, three solves) in the block model and the default 32 x 32 grid; HCRMap's package
// under the model (thermal/chiplet_package.hpp) over four decode windows.
#include <benchmark/benchmark.h>

#include <ctime>    // clock_gettime
#include <string>   // std::string
#include <utility>  // std::move

#include "strata/thermal/chiplet_package.hpp"
#include "strata/thermal/hotspot_io.hpp"
#include "strata/thermal/stratum_stack.hpp"
#include "strata/workload/presets.hpp"
#include "strata/workload/trace_io.hpp"

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

// range(1): 0 the default solve (multigrid-preconditioned conjugate gradients from 2 048 nodes
// up), 1 the factorisation, 2 Jacobi-preconditioned conjugate gradients (the previous default).
// Counter "iterations": of the iterative solves.
void BM_thermal_grid_steady(benchmark::State& state) {
  const auto& in = ev6();
  th::thermal_options o;
  o.model = th::thermal_model_kind::grid;
  o.grid_rows = o.grid_cols = static_cast<int>(state.range(0));
  const th::steady_method methods[] = {th::steady_method::automatic, th::steady_method::direct,
                                       th::steady_method::iterative};
  const auto method = methods[state.range(1)];
  for (auto _ : state) {
    const auto r = th::steady_state(th::build_thermal_network(in.model.stack, o), in.power, method);
    benchmark::DoNotOptimize(r.max_node_K);
  }
  const auto net = th::build_thermal_network(in.model.stack, o);
  const th::steady_solver<> s(net.net, method);
  benchmark::DoNotOptimize(s.rise(th::node_power(net, in.power)));
  state.counters["iterations"] = s.iterations();
  state.SetLabel(method == th::steady_method::direct ? "LDLT" : s.multigrid() ? "multigrid CG" : "Jacobi CG");
}
BENCHMARK(BM_thermal_grid_steady)
    ->Args({32, 0})
    ->Args({32, 1})
    ->Args({32, 2})
    ->Args({64, 0})
    ->Args({64, 1})
    ->Args({64, 2})
    ->Unit(benchmark::kMillisecond);

// The same solves interleaved in one loop (the shared build machine's load changes between
// separate benchmarks more than the solves differ): each iteration runs the network build and
// steady state once per method, each timed by the process's CPU clock; counters: the mean CPU ms
// of each and the ratio Jacobi / multigrid.
void BM_thermal_grid_steady_interleaved(benchmark::State& state) {
  const auto& in = ev6();
  th::thermal_options o;
  o.model = th::thermal_model_kind::grid;
  o.grid_rows = o.grid_cols = static_cast<int>(state.range(0));
  const auto cpu_ms = [] {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) * 1e-6;
  };
  double mg = 0.0, jacobi = 0.0;
  for (auto _ : state) {
    double t0 = cpu_ms();
    benchmark::DoNotOptimize(
        th::steady_state(th::build_thermal_network(in.model.stack, o), in.power, th::steady_method::multigrid)
            .max_node_K);
    const double t1 = cpu_ms();
    benchmark::DoNotOptimize(
        th::steady_state(th::build_thermal_network(in.model.stack, o), in.power, th::steady_method::iterative)
            .max_node_K);
    const double t2 = cpu_ms();
    mg += t1 - t0;
    jacobi += t2 - t1;
  }
  const auto n = static_cast<double>(state.iterations());
  state.counters["multigrid_ms"] = mg / n;
  state.counters["jacobi_ms"] = jacobi / n;
  state.counters["jacobi_over_multigrid"] = jacobi / mg;
}
BENCHMARK(BM_thermal_grid_steady_interleaved)->Arg(32)->Arg(64)->Unit(benchmark::kMillisecond);

// Where the 64 x 64 time goes: range(0) 0 the network's build (tiles, links, package) alone, 1 the
// build and the sparse matrix's assembly, 2 both and the multigrid hierarchy (no solve).
void BM_thermal_grid_parts(benchmark::State& state) {
  const auto& in = ev6();
  th::thermal_options o;
  o.model = th::thermal_model_kind::grid;
  o.grid_rows = o.grid_cols = 64;
  for (auto _ : state) {
    const auto net = th::build_thermal_network(in.model.stack, o);
    if (state.range(0) == 0) {
      benchmark::DoNotOptimize(net.net.links.data());
      continue;
    }
    auto g = th::detail::conductance_matrix<Eigen::RowMajor>(net.net, 0.0);
    if (state.range(0) == 1) {
      benchmark::DoNotOptimize(g.valuePtr());
      continue;
    }
    const th::multigrid_cg<> mg(std::move(g));
    benchmark::DoNotOptimize(&mg);
  }
  state.SetLabel(state.range(0) == 0 ? "build" : state.range(0) == 1 ? "build+assemble" : "build+assemble+hierarchy");
}
BENCHMARK(BM_thermal_grid_parts)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

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

// HCRMap's package under the thermal model (thermal/chiplet_package.hpp): 4 DeepSeek-V2-Lite
// decode windows (64 sequences) on the real trace, range(0) 0 uncoupled (`evaluate_windows`), 1
// with the package's temperature at the default cooling (never throttles), 2 at h = 100 W/(m^2 K)
// (throttles: each throttled window is evaluated twice).
void BM_chiplet_package_windows(benchmark::State& state) {
  namespace sv = strata;
  static const sv::routing_trace trace = sv::load_trace_csv(
      std::string(STRATA_BENCH_DATA_DIR) + "/traces/dsv2lite_esft_trace_intent.csv", {.experts = 64});
  const sv::substrate s;
  const auto m = sv::preset("DeepSeek-V2-Lite");
  const auto res = sv::single_copy_static(s, m.moe_layers(), m.experts, sv::expert_bytes(m));
  sv::critical_path_params cp;
  cp.window = sv::units::ms(10.0);
  const sv::window_spec w{sv::phase::decode, 64, 2048, {}};
  th::chiplet_thermal_params tp;
  tp.enabled = state.range(0) > 0;
  if (state.range(0) == 2) tp.cold_plate_h_W_m2K = 100.0;
  for (auto _ : state) {
    const auto r = th::evaluate_windows_thermal(s, m, res, trace, w, 4, sv::units::W(1000.0), cp, sv::least_loaded, tp);
    benchmark::DoNotOptimize(r.thermal.peak_C);
  }
  state.SetLabel(state.range(0) == 0 ? "off" : state.range(0) == 1 ? "on, cool" : "on, throttling");
}
BENCHMARK(BM_chiplet_package_windows)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

}  // namespace
