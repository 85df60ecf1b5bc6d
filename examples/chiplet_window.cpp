// strata-chiplet-window: one HCRMap serving window of a MoE model on Table 1 packages under single-copy
// static placement, with the capacity verdict, the Fig. 5 stage attribution and energy by component.
//
//   strata-chiplet-window [trace.csv] [--model NAME] [--trace-reuse] [--json [--units display|si]]
//
// The model (default DeepSeek-V2-Lite) runs on as many identical packages as its weights, KV
// cache and activations need (pipeline stages, strata/chiplet/scale_out.hpp); the single-package
// verdict is printed beside it. Prefill windows hold 2048 contiguous trace tokens; decode windows
// one token from each of 512 different sequences (strata::select_decode_batch, seed 0): a trace
// with fewer sequences is refused, as in every subcommand that forms decode windows, unless
// --trace-reuse allows taking several tokens of a sequence, which the output then states.
// Without a trace file it routes with the
// synthetic generator (trace_gen_params defaults fitted to the real DeepSeek-V2-Lite trace, with
// the model's layout and 600 sequences).

#include <cstdio>    // std::printf
#include <iostream>  // std::cout, std::cerr
#include <new>       // std::bad_alloc
#include <string>    // std::string

#include "strata/chiplet/scale_out.hpp"
#include "strata/chiplet/token_groups.hpp"
#include "strata/chiplet/window.hpp"
#include "strata/core/json.hpp"
#include "strata/core/json_plain.hpp"
#include "strata/core/out_of_memory.hpp"
#include "strata/workload/presets.hpp"
#include "strata/workload/trace_gen.hpp"
#include "strata/workload/trace_io.hpp"

int main(int argc, char** argv) {
  strata::guard_out_of_memory("strata-chiplet-window");  // out of memory: exit 1 with a message, never an abort
  std::string trace_path, model_name = "DeepSeek-V2-Lite", units;
  bool as_json = false, trace_reuse = false;
  // A bad command line (an unknown option, a missing or bad value) is exit status 2, as in every
  // strata program (docs/cli.md, Exit status).
  const auto usage_error = [](const std::string& what) {
    std::cerr << "strata-chiplet-window: " << what << " (try --help)\n";
    return 2;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--json") {
      as_json = true;
    } else if (a == "--trace-reuse") {
      trace_reuse = true;
    } else if (a == "--model" || a == "--units") {
      if (i + 1 >= argc) return usage_error(a + " needs a value");
      (a == "--model" ? model_name : units) = argv[++i];
      if (a == "--units" && units != "display" && units != "si") {
        return usage_error("--units: '" + units + "' not in {display,si}");
      }
    } else if (a == "--help" || a == "-h") {
      std::cout << "usage: strata-chiplet-window [trace.csv] [--model NAME] [--trace-reuse] [--json [--units display|si]]\n"
                   "  --units  with --json: display (quantities as strings with units, the default) or si (plain\n"
                   "           numbers in SI units, each such key suffixed by its unit, e.g. e2e_s)\n"
                   "Exit status: 0 ok, 2 bad command line, 1 model or trace error.\n";
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      return usage_error("unknown option '" + a + "'");
    } else {
      trace_path = a;
    }
  }
  if (!units.empty() && !as_json) return usage_error("--units requires --json");
  try {
    const strata::substrate pkg;  // HCRMap Table 1
    const auto m = strata::preset(model_name);
    auto gen = strata::trace_gen_for(m);
    gen.sequences = 600;
    const auto trace = trace_path.empty() ? strata::generate_trace(gen)
                                          : strata::load_trace_csv(trace_path, {.experts = m.experts});
    strata::require_trace_of_model(trace, m, trace_path.empty() ? "the generated trace" : trace_path);
    strata::json out = strata::json::object();
    for (const auto& [mode, tokens] : {std::pair{strata::phase::prefill, 2048}, std::pair{strata::phase::decode, 512}}) {
      const strata::window_spec spec{mode, tokens, 2048};
      strata::decode_batch batch;
      const auto decode_groups = [&] {
        try {
          return strata::decode_token_groups(trace, pkg.chiplets(), {.batch = tokens, .allow_reuse = trace_reuse}, &batch);
        } catch (const strata::config_error& e) {
          if (trace_reuse) throw;
          throw strata::config_error(e.field(), std::string(e.what()) +
                                                    "; strata-chiplet-window: --trace-reuse takes several tokens of a "
                                                    "sequence, which the output states");
        }
      };
      const auto groups = mode == strata::phase::prefill
                              ? strata::token_groups(trace, pkg.chiplets(), {.first_token = 0, .tokens = tokens})
                              : decode_groups();
      strata::scale_out_params one;
      one.kind = strata::scale_out_kind::none;
      const auto single = strata::plan_packages(pkg, m, spec, one);
      auto w = strata::evaluate_scaled_window(pkg, m, groups, spec);
      w.note = batch.note;
      const char* name = mode == strata::phase::prefill ? "prefill" : "decode";
      if (as_json) {
        out[name] = w;
        out[name]["single_package"] = single.reason;
        continue;
      }
      using strata::units::ms;
      // Human text to 4 significant digits (docs/cli.md, Output conventions); --json has every digit.
      std::printf("%s %s, %d tokens on %d package%s: end to end %.4g ms (routed MoE %.4g ms, non-routed %.4g ms, "
                  "hand-offs %.4g ms)\n",
                  m.name.c_str(), name, tokens, w.packages, w.packages > 1 ? "s" : "", w.e2e.in(ms), w.moe.in(ms),
                  w.non_routed.in(ms), w.inter_package.in(ms));
      std::printf("  one package: %s\n  capacity: %s\n", single.reason.c_str(), w.reason.c_str());
      if (!w.note.empty()) std::printf("  note: %s\n", w.note.c_str());
      std::printf("  stages (ms): gate %.4g  dispatch %.4g  queue %.4g  memory %.4g  compute %.4g  gather %.4g  combine %.4g\n",
                  w.stages.gate.in(ms), w.stages.dispatch.in(ms), w.stages.queue.in(ms), w.stages.memory.in(ms),
                  w.stages.compute.in(ms), w.stages.gather.in(ms), w.stages.combine.in(ms));
      using strata::units::mJ;
      std::printf("  energy (mJ): compute %.4g  NoC %.4g  D2D %.4g  SRAM %.4g  HBM %.4g  DRAM %.4g  gate %.4g  non-routed %.4g"
                  "  hand-offs %.4g\n",
                  w.energy.compute.in(mJ), w.energy.noc.in(mJ), w.energy.d2d.in(mJ), w.energy.sram.in(mJ),
                  w.energy.hbm.in(mJ), w.energy.dram.in(mJ), w.energy.gate.in(mJ), w.non_routed_energy.in(mJ),
                  w.inter_package_energy.in(mJ));
      std::printf("  pressure: load %.4g  link %.4g  bank %.4g  tier %.4g\n", w.pressure.load, w.pressure.link,
                  w.pressure.bank, w.pressure.tier);
    }
    if (as_json) {
      strata::convert_units(out, units == "si" ? strata::json_units::si : strata::json_units::display);
      std::cout << strata::dump_json(out, 2) << "\n";
    }
  } catch (const std::bad_alloc&) {
    strata::report_out_of_memory("strata-chiplet-window");
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "strata-chiplet-window: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
