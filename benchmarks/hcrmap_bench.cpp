// HCRMap control speed: the fast token mapper over one DeepSeek-V3 decode window (58 MoE layers,
// 512 tokens, top-8, on single-copy static replicas plus copies of each layer's hottest experts)
// and one slow-controller decision on an observed layer.
#include <benchmark/benchmark.h>

#include "strata/chiplet/token_groups.hpp"
#include "strata/chiplet/window.hpp"
#include "strata/hcrmap/controller.hpp"
#include "strata/workload/presets.hpp"
#include "strata/workload/trace_gen.hpp"

namespace {
struct dsv3 {
  strata::substrate s;
  strata::model m = strata::preset("DeepSeek-V3");
  strata::moe_layer_shape shape = strata::moe_shape(m);
  std::vector<std::vector<strata::token_group>> groups;
  dsv3() {
    strata::trace_gen_params g;
    g.layers = m.moe_layers();
    g.experts = m.experts;
    g.k = m.top_k;
    g.sequences = 512;
    g.min_length = 2;
    g.max_length = 4;
    const auto t = strata::generate_trace(g);
    groups = strata::decode_token_groups(t, s.chiplets(), {.batch = 512});
    for (auto& l : groups) l = strata::split_blocks(l, 16);
  }
};
const dsv3& data() {
  static const dsv3 d;
  return d;
}
// A residency holding `layers` MoE layers (the directory one package of the pipeline holds is
// two layers; the mapper's cost does not depend on where the layers live).
strata::residency directory(int layers) {
  const auto& d = data();
  auto r = strata::single_copy_static(d.s, layers, d.m.experts, strata::units::MB(1.0), {.budget_factor = 1.3});
  for (int l = 0; l < layers; ++l) {
    for (int e = 0; e < 64; ++e) {
      const int c = (l * d.m.experts + e + 8) % d.s.chiplets();
      const auto banks = d.s.banks_of(strata::tier_kind::dram, d.s.homes_for(strata::tier_kind::dram, c, c).front());
      if (r.can_add(l, e, c, banks.front(), static_cast<int>(banks.size()))) r.place(l, e, c, banks.front(), static_cast<int>(banks.size()));
    }
  }
  return r;
}
}  // namespace

// Algorithm 2 over every MoE layer of one decode window (≈ 1 800 groups per layer).
static void bm_fast_token_map_dsv3_decode(benchmark::State& st) {
  const auto& d = data();
  const int L = static_cast<int>(d.groups.size());
  const auto res = directory(L);
  std::vector<std::vector<strata::token_group>> local = d.groups;
  for (int l = 0; l < L; ++l) {
    for (auto& g : local[static_cast<std::size_t>(l)]) g.layer = l;
  }
  strata::fast_token_mapper mapper(d.s, d.shape, res);
  for (auto _ : st) {
    std::size_t n = 0;
    for (const auto& g : local) n += mapper.map(g).size();
    benchmark::DoNotOptimize(n);
  }
}
BENCHMARK(bm_fast_token_map_dsv3_decode)->Unit(benchmark::kMillisecond);

// One controller decision (candidates, mask, features, greedy score) on two observed layers.
static void bm_controller_decision(benchmark::State& st) {
  const auto& d = data();
  auto res = directory(2);
  std::vector<std::vector<strata::token_group>> g{d.groups[0], d.groups[1]};
  for (auto& x : g[1]) x.layer = 1;
  std::vector<strata::directory_layer_eval> evals;
  for (int l = 0; l < 2; ++l) {
    strata::fast_token_mapper m(d.s, d.shape, res);
    evals.push_back(strata::evaluate_directory_layer(d.s, d.shape, res, g[static_cast<std::size_t>(l)], m.map(g[static_cast<std::size_t>(l)])));
  }
  strata::residency_controller ctl(d.s, d.shape, res);
  ctl.observe({0, 1}, g, evals, 1e-3);
  for (auto _ : st) {
    const auto acts = ctl.legal_actions();
    double best = 0.0;
    for (const auto& a : acts) best = std::max(best, strata::greedy_score(a.features));
    benchmark::DoNotOptimize(best);
  }
}
BENCHMARK(bm_controller_decision)->Unit(benchmark::kMicrosecond);
