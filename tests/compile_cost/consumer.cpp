// SPDX-License-Identifier: MIT
// A representative consumer of strata (issue 27, Deliver 1): its own model and machine on the
// roofline, a Mono3D die, one HCRMap window and one Stratum decode step, through the public headers
// a user includes. The CTest case compile_cost.consumer times compiling this file at -O2 (without
// and with STRATA_COMPILED=1, the definition `strata::compiled` puts on its users) and links it
// against `strata::compiled` (test_compiled_consumer), whose run checks the numbers below.
#include <cstdio>   // std::printf
#include <vector>   // std::vector

#include <strata/chiplet/residency.hpp>
#include <strata/chiplet/window.hpp>
#include <strata/device/mono3d.hpp>
#include <strata/stratum/system.hpp>
#include <strata/workload/model.hpp>
#include <strata/workload/roofline.hpp>

using namespace strata::literals;

namespace {

// The user's own MoE model: 8 layers, 16 experts, top-2.
strata::model my_model() {
  strata::model m;
  m.name = "my-moe";
  m.family = "mixtral";
  m.layers = 8;
  m.hidden = 2048;
  m.heads = 16;
  m.kv_heads = 4;
  m.head_dim = 128;
  m.vocab = 32000;
  m.experts = 16;
  m.top_k = 2;
  m.expert_ffn = 4096;
  return m;
}

// The user's own accelerator: one HBM tier.
strata::roofline_machine my_machine() {
  strata::roofline_machine mc;
  mc.name = "my-accelerator";
  mc.peak_flops = 400_Tflops;
  mc.compute_efficiency = 0.7;
  mc.memory_efficiency = 0.8;
  mc.tiers.push_back({"hbm", 64_GB, 2_TBps, 500_ns, strata::units::pJ_per_bit(4.0)});
  mc.energy_per_flop = strata::units::pJ_per_op(0.5);
  mc.static_power = strata::units::W(80.0);
  mc.max_power = strata::units::W(500.0);
  mc.op_overhead = 3_us;
  return mc;
}

}  // namespace

int main() {
  const auto m = my_model();
  const strata::step_shape decode{.mode = strata::phase::decode, .batch = 16, .context = 2048};

  // 1. The roofline on the user's machine.
  const auto roof = strata::evaluate(m, decode, my_machine());

  // 2. A Mono3D die.
  const strata::mono3d_params<> die{.layers = 512, .tiers = 8};
  const auto chip = strata::evaluate(die);

  // 3. One HCRMap window on the Table 1 package, every token of a 64-token decode window to
  //    expert (token mod 16) and the next one.
  const strata::substrate pkg;
  const auto res = strata::single_copy_static(pkg, m.moe_layers(), m.experts, strata::expert_bytes(m));
  std::vector<std::vector<strata::token_group>> groups(static_cast<std::size_t>(m.moe_layers()));
  for (int l = 0; l < m.moe_layers(); ++l) {
    for (int e = 0; e < m.experts; ++e) groups[static_cast<std::size_t>(l)].push_back({l, e, e % pkg.chiplets(), e % pkg.chiplets(), 8});
  }
  const auto w = strata::evaluate_window(pkg, m, res, groups, {strata::phase::decode, 64, 2048});

  // 4. One Stratum-L decode step, the layout placed by Algorithm 1.
  const auto sys = strata::prepare(strata::stratum_l());
  const auto f = strata::usage_from_hit_rate(m.moe_layers(), m.experts, m.top_k, 0.5);
  const auto rows = strata::place_model(sys, m, decode, f);
  const auto step = strata::evaluate_decode(sys, rows, m, decode, f);

  std::printf("roofline %.17g tokens/s\nmono3d %zu tiers, %.17g ns\nwindow %.17g s\nstratum %.17g tokens/s\n",
              roof.tokens_per_s, chip.tiers.size(), chip.tiers[0].access_latency.in(strata::units::ns), w.e2e.si(),
              step.tokens_per_s);
  const bool ok = roof.tokens_per_s > 0.0 && chip.tiers.size() == 8 && w.e2e.si() > 0.0 && step.tokens_per_s > 0.0;
  return ok ? 0 : 1;
}
