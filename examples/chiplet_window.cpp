// chiplet_window: one HCRMap serving window of DeepSeek-V2-Lite on the Table 1 package under
// single-copy static placement, with the Fig. 5 stage attribution and energy by component.
//
//   chiplet_window [trace.csv] [--json]
//
// Without a trace file it routes with the synthetic generator fitted to the real
// DeepSeek-V2-Lite trace (trace_gen_params defaults).

#include <cstdio>    // std::printf
#include <iostream>  // std::cout, std::cerr
#include <string>    // std::string

#include "strata/chiplet/token_groups.hpp"
#include "strata/chiplet/window.hpp"
#include "strata/core/json.hpp"
#include "strata/workload/presets.hpp"
#include "strata/workload/trace_gen.hpp"
#include "strata/workload/trace_io.hpp"

int main(int argc, char** argv) {
  std::string trace_path;
  bool as_json = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--json") {
      as_json = true;
    } else if (a == "--help" || a == "-h") {
      std::cout << "usage: chiplet_window [trace.csv] [--json]\n";
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      std::cerr << "chiplet_window: unknown option '" << a << "'\n";
      return 2;
    } else {
      trace_path = a;
    }
  }
  try {
    const strata::substrate pkg;  // HCRMap Table 1
    const auto m = strata::preset("DeepSeek-V2-Lite");
    const auto res = strata::single_copy_static(pkg, m.moe_layers(), m.experts, strata::expert_bytes(m));
    const auto trace = trace_path.empty() ? strata::generate_trace(strata::trace_gen_params{})
                                          : strata::load_trace_csv(trace_path, {.experts = m.experts});
    strata::json out = strata::json::object();
    for (const auto& [mode, tokens] : {std::pair{strata::phase::prefill, 2048}, std::pair{strata::phase::decode, 512}}) {
      const auto groups = strata::token_groups(trace, pkg.chiplets(), {.first_token = 0, .tokens = tokens});
      const auto w = strata::evaluate_window(pkg, m, res, groups, {mode, tokens, 2048});
      const char* name = mode == strata::phase::prefill ? "prefill" : "decode";
      if (as_json) {
        out[name] = w;
        continue;
      }
      using strata::units::ms;
      std::printf("%s, %d tokens: end to end %.3f ms (routed MoE %.3f ms, non-routed %.3f ms)\n", name, tokens,
                  w.e2e.in(ms), w.moe.in(ms), w.non_routed.in(ms));
      std::printf("  stages (ms): gate %.3f  dispatch %.3f  queue %.3f  memory %.3f  compute %.3f  gather %.3f  combine %.3f\n",
                  w.stages.gate.in(ms), w.stages.dispatch.in(ms), w.stages.queue.in(ms), w.stages.memory.in(ms),
                  w.stages.compute.in(ms), w.stages.gather.in(ms), w.stages.combine.in(ms));
      using strata::units::mJ;
      std::printf("  energy (mJ): compute %.2f  NoC %.2f  D2D %.2f  SRAM %.2f  HBM %.2f  DRAM %.2f  gate %.3f  non-routed %.2f\n",
                  w.energy.compute.in(mJ), w.energy.noc.in(mJ), w.energy.d2d.in(mJ), w.energy.sram.in(mJ),
                  w.energy.hbm.in(mJ), w.energy.dram.in(mJ), w.energy.gate.in(mJ), w.non_routed_energy.in(mJ));
      std::printf("  pressure: load %.3f  link %.3f  bank %.3f  tier %.3f\n", w.pressure.load, w.pressure.link,
                  w.pressure.bank, w.pressure.tier);
    }
    if (as_json) std::cout << out.dump(2) << "\n";
  } catch (const std::exception& e) {
    std::cerr << "chiplet_window: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
