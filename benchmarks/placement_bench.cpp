// Speed of Stratum's placement (Algorithm 1, Stratum §5.2), its tiering table and the row-swap
// cost of a topic switch (Google Benchmark).
#include <benchmark/benchmark.h>

#include <vector>  // std::vector

#include "strata/device/mono3d.hpp"
#include "strata/stratum/placement.hpp"
#include "strata/stratum/row_swap.hpp"
#include "strata/stratum/tiering.hpp"
#include "strata/stratum/usage.hpp"
#include "strata/workload/model.hpp"
#include "strata/workload/presets.hpp"

namespace {

// `chips` default Mono3D chips as one tiered memory (capacity, bandwidth and banks scale).
std::vector<strata::memory_tier<>> chip_tiers(int chips) {
  const strata::mono3d_params<> p;
  auto tiers = strata::memory_tiers(p, strata::evaluate(p));
  for (auto& t : tiers) {
    t.capacity = t.capacity * static_cast<double>(chips);
    t.bandwidth = t.bandwidth * static_cast<double>(chips);
    t.banks *= chips;
  }
  return tiers;
}

struct setup {
  std::vector<strata::memory_tier<>> tiers;
  strata::expert_placement_params<> params;
  strata::usage_table f, g;
};

// Mixtral-8x7B (32 x 8, top-2) on Stratum-L's 6 chips; DeepSeek-V3 (58 MoE layers x 256, top-8)
// on 48 chips (1.5 TB: 14 848 experts of 84 MiB need 2 rows of 12 288 banks each).
setup make_setup(bool deepseek) {
  const strata::model m = strata::preset(deepseek ? "DeepSeek-V3" : "Mixtral-8x7B");
  const int chips = deepseek ? 48 : 6;
  setup s;
  s.tiers = chip_tiers(chips);
  s.params = {.layers = m.moe_layers(), .experts = m.experts, .active = m.top_k,
              .expert_bytes = strata::expert_bytes(m), .banks = 256 * chips,
              .row_buffer = strata::units::KiB(4.0), .phi = 32768};
  s.f = strata::usage_from_hit_rate(m.moe_layers(), m.experts, m.top_k, 0.5);
  s.g = strata::usage_from_hit_rate(m.moe_layers(), m.experts, m.top_k, 0.5, m.top_k);  // another topic
  return s;
}

// Tiering table + Algorithm 1 + per-tier traffic share: what the memory mapper does per batch.
void bm_place_and_tier(benchmark::State& state) {
  const setup s = make_setup(state.range(0) != 0);
  for (auto _ : state) {
    const auto table = strata::make_tiering_table(s.tiers, s.params.banks, s.params.row_buffer);
    const auto layout = strata::place_experts(s.params, s.f);
    benchmark::DoNotOptimize(strata::tier_traffic_share(layout, table, s.f));
  }
  state.SetItemsProcessed(state.iterations() * s.params.layers * s.params.experts);
  state.SetLabel(state.range(0) != 0 ? "DeepSeek-V3 58x256" : "Mixtral-8x7B 32x8");
}
BENCHMARK(bm_place_and_tier)->Arg(0)->Arg(1);

// Algorithm 1 alone.
void bm_algorithm1(benchmark::State& state) {
  const setup s = make_setup(state.range(0) != 0);
  for (auto _ : state) benchmark::DoNotOptimize(strata::place_experts(s.params, s.f));
  state.SetItemsProcessed(state.iterations() * s.params.layers * s.params.experts);
  state.SetLabel(state.range(0) != 0 ? "DeepSeek-V3 58x256" : "Mixtral-8x7B 32x8");
}
BENCHMARK(bm_algorithm1)->Arg(0)->Arg(1);

// Row-swap cost of a topic switch (every moved row walked once).
void bm_row_swap_cost(benchmark::State& state) {
  const setup s = make_setup(state.range(0) != 0);
  const auto table = strata::make_tiering_table(s.tiers, s.params.banks, s.params.row_buffer);
  const auto a = strata::place_experts(s.params, s.f);
  const auto b = strata::place_experts(s.params, s.g);
  for (auto _ : state) benchmark::DoNotOptimize(strata::row_swap_cost(a, b, table, s.tiers));
  state.SetLabel(state.range(0) != 0 ? "DeepSeek-V3 58x256" : "Mixtral-8x7B 32x8");
}
BENCHMARK(bm_row_swap_cost)->Arg(0)->Arg(1);

}  // namespace
