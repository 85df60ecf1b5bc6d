// Speed of the HCRMap chiplet model (Google Benchmark). Medians go into docs/speed.md.
#include <benchmark/benchmark.h>

#include "strata/chiplet/token_groups.hpp"
#include "support/critical_path_reference.hpp"
#include "strata/chiplet/window.hpp"
#include "strata/workload/presets.hpp"
#include "strata/workload/trace_gen.hpp"

namespace {

// A synthetic DeepSeek-V3 decode trace: 58 MoE layers, 256 experts, top-8, 512 tokens.
const strata::routing_trace& dsv3_trace() {
  static const strata::routing_trace t = [] {
    strata::trace_gen_params p;
    p.layers = 58;
    p.experts = 256;
    p.k = 8;
    p.sequences = 512;
    p.min_length = 1;
    p.max_length = 1;
    return strata::generate_trace(p);
  }();
  return t;
}

// A fixed placement: expert e of every layer on chiplet e mod 16, striped over the DRAM channels
// of IO chiplet e mod 4. DeepSeek-V3 (58 × 256 experts of 44 MB) exceeds the package's memory, so
// the placement is built as replicas directly, without the capacity checks of `residency`.
// Arg 0: `evaluate_layer` (the thread's workspace); arg 1: the same-run reference, the former
// evaluation without a workspace (tests/support/critical_path_reference.hpp, same results).
void bm_dsv3_decode_layers(benchmark::State& state) {
  const strata::substrate s;
  const auto m = strata::preset("DeepSeek-V3");
  const auto shape = strata::moe_shape(m);
  const auto groups = strata::token_groups(dsv3_trace(), s.chiplets(), {0, 512});
  std::vector<std::vector<strata::replica>> reps(groups.size());
  std::vector<std::vector<int>> assign(groups.size());
  for (std::size_t l = 0; l < groups.size(); ++l) {
    for (int e = 0; e < m.experts; ++e) {
      const auto dram = s.banks_of(strata::tier_kind::dram, s.chiplets() + e % s.io_chiplets());
      reps[l].push_back({static_cast<int>(l), e, e % s.chiplets(), dram.front(), static_cast<int>(dram.size())});
    }
    for (const auto& g : groups[l]) assign[l].push_back(g.expert);
  }
  for (auto _ : state) {
    strata::duration<> total{};
    for (std::size_t l = 0; l < groups.size(); ++l) {
      total += (state.range(0) == 0 ? strata::evaluate_layer(s, shape, groups[l], reps[l], assign[l])
                                    : strata::reference::evaluate_layer_reference(s, shape, groups[l], reps[l], assign[l]))
                   .t_moe;
    }
    benchmark::DoNotOptimize(total);
  }
  state.counters["groups_per_layer"] = static_cast<double>(groups[0].size());
}
BENCHMARK(bm_dsv3_decode_layers)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// The same layers with the weights in chiplet-local HBM (HCRMap §4.2), each expert striped over
// the two pseudo-channels under its chiplet, and with the Eq. 15 overlap vs the earlier one.
void bm_dsv3_decode_layers_local_hbm(benchmark::State& state) {
  const strata::substrate s;
  const auto m = strata::preset("DeepSeek-V3");
  const auto shape = strata::moe_shape(m);
  const auto groups = strata::token_groups(dsv3_trace(), s.chiplets(), {0, 512});
  std::vector<std::vector<strata::replica>> reps(groups.size());
  std::vector<std::vector<int>> assign(groups.size());
  for (std::size_t l = 0; l < groups.size(); ++l) {
    for (int e = 0; e < m.experts; ++e) {
      const auto hbm = s.banks_of(strata::tier_kind::hbm, e % s.chiplets());
      reps[l].push_back({static_cast<int>(l), e, e % s.chiplets(), hbm.front(), static_cast<int>(hbm.size())});
    }
    for (const auto& g : groups[l]) assign[l].push_back(g.expert);
  }
  strata::critical_path_params cp;
  cp.arbitration = state.range(0) == 0 ? strata::link_arbitration::per_class : strata::link_arbitration::shared;
  strata::duration<> total{};
  for (auto _ : state) {
    total = {};
    for (std::size_t l = 0; l < groups.size(); ++l) {
      total += strata::evaluate_layer(s, shape, groups[l], reps[l], assign[l], cp).t_moe;
    }
    benchmark::DoNotOptimize(total);
  }
  state.counters["moe_ms"] = total.in(strata::units::ms);
}
BENCHMARK(bm_dsv3_decode_layers_local_hbm)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// Building an n × n substrate, up to the largest the default limits admit (64 × 64 chiplets):
// routes are generated on demand and the HBM homes ordered by a counting sort, so the time is
// proportional to links, banks and chiplets × HBM homes (32 here) — linear in chiplets. The
// counter `s_per_chiplet` stays flat across the sizes when it is.
void bm_substrate(benchmark::State& state) {
  strata::substrate_params p;
  p.mesh_x = static_cast<int>(state.range(0));
  p.mesh_y = p.mesh_x;
  for (auto _ : state) benchmark::DoNotOptimize(strata::substrate(p).links().size());
  state.counters["s_per_chiplet"] =
      benchmark::Counter(double(p.mesh_x) * p.mesh_y, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(bm_substrate)->Arg(4)->Arg(8)->Arg(16)->Arg(32)->Arg(64)->Unit(benchmark::kMillisecond);

// Token groups of the same window from the trace.
void bm_dsv3_token_groups(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(strata::token_groups(dsv3_trace(), 16, {0, 512}));
}
BENCHMARK(bm_dsv3_token_groups)->Unit(benchmark::kMillisecond);

}  // namespace
