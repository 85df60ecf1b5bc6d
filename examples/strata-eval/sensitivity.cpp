// strata-eval sensitivity: which parameter moves an output most. The elasticities
// d ln(y) / d ln(p) of one output to every real parameter of its params struct, by autodiff
// (core/sensitivity.hpp), ranked; --check adds the central finite difference beside each.
//
//   strata-eval sensitivity --of fastest_tier_bandwidth                 Mono3D die of the system's chip
//   strata-eval sensitivity --of logic_power --top 5                    Eq. 1 of its logic die
//   strata-eval sensitivity --of decode_speedup --model Mixtral-8x7B --machine stratum-l
//                           --batch 16 --context 2048 --hit-rate 0.316 --check   (one line)
//
// Outputs (--of): fastest_tier_bandwidth, latency_spread (mono3d_params of the chip);
// logic_power (Eq. 1 P_logic), logic_area (Eq. 2 active area) (logic_die_params the chip derives,
// at its fastest tier's bandwidth); decode_tokens_per_s, decode_speedup (stratum_system_params,
// one decode step; the speedup is over the GPU baseline of --gpu, a constant).
// Exit status: 0 on success, 1 on a model error (a step that does not fit), 2 on a bad command line.

#include <iostream>  // std::cout
#include <memory>    // std::make_shared
#include <string>    // std::string
#include <vector>    // std::vector

#include "cli.hpp"
#include "strata/baseline/gpu.hpp"
#include "strata/baseline/baseline_gpu.hpp"
#include "strata/core/sensitivity.hpp"
#include "strata/core/sensitivity_io.hpp"
#include "strata/device/logic_die.hpp"
#include "strata/device/mono3d.hpp"
#include "strata/device/stratum_chip.hpp"
#include "strata/report/stratum_rows.hpp"
#include "strata/stratum/system.hpp"

namespace strata_eval {
namespace {

struct sens_options {
  std::string of, machine = "stratum-l", model = "Mixtral-8x7B", gpu = "h100_sxm5";
  int batch = 16, context = 2048;
  double hit_rate = 0.0;
  bool check = false, json = false, zeros = false;
  std::size_t top = 0;
};

struct sens_run {
  strata::sensitivity_result ad;
  std::vector<strata::elasticity_check> checks;
  std::string label;
};

template <template <class> class P, class F>
sens_run differentiate(const P<double>& p, F&& y, bool check, std::string label) {
  sens_run r{strata::elasticities(p, y), {}, std::move(label)};
  if (check) r.checks = strata::cross_check(r.ad, strata::finite_difference_elasticities(p, y));
  return r;
}

sens_run compute(const sens_options& o) {
  const auto sys = strata::stratum_system(o.machine);
  if (o.of == "fastest_tier_bandwidth" || o.of == "latency_spread") {
    const auto& mem = sys.nmp.chip.memory;
    if (o.of == "fastest_tier_bandwidth") {
      return differentiate(mem, [](const auto& q) { return strata::evaluate(q).tiers.front().internal_bandwidth; },
                           o.check, "fastest-tier bandwidth (B/s) of the " + sys.name + " Mono3D die");
    }
    return differentiate(mem, [](const auto& q) { return strata::evaluate(q).fast_slow_latency_ratio; }, o.check,
                         "slowest/fastest tier latency of the " + sys.name + " Mono3D die");
  }
  if (o.of == "logic_power" || o.of == "logic_area") {
    const auto chip = strata::evaluate(sys.nmp.chip);
    const double bw = chip.bw_fast.si();
    const bool power = o.of == "logic_power";
    return differentiate(
        chip.logic_params,
        [bw, power](const auto& q) {
          using T = std::decay_t<decltype(q.alpha)>;
          const auto r = strata::evaluate_numbers(q, strata::bandwidth<T>::from_si(T(bw)), T(q.n_mac));
          return power ? r.p_logic.si() : r.a_active.si();
        },
        o.check, std::string(power ? "P_logic (W, Eq. 1)" : "active area (m2, Eq. 2)") + " of the " + sys.name + " logic die");
  }
  // A decode step of the system.
  const auto m = load_model(o.model);
  const strata::step_shape s{.mode = strata::phase::decode, .batch = o.batch, .context = o.context};
  const auto u = strata::workload_usage(m, o.hit_rate);
  const auto r0 = strata::evaluate_decode(sys, m, s, u);
  if (!r0.feasible) {
    throw strata::config_error("model", "[strata.sensitivity] " + m.name + " does not fit " + sys.name + " at B = " +
                                            std::to_string(o.batch) + ", S = " + std::to_string(o.context) + ": " + r0.reason);
  }
  double gpu = 1.0;
  std::string label = "decode tokens/s of " + m.name + " on " + sys.name;
  if (o.of == "decode_speedup") {
    const auto g = strata::baseline_gpu(strata::gpu_preset(o.gpu));
    const auto b = strata::choose_gpu_baseline(g, m);
    if (b.gpus == 0 || !strata::check_fit(g, b.gpus, b.served, s).fits) {
      throw strata::config_error("gpu", "[strata.sensitivity] " + m.name + " does not fit " + g.name + " GPUs at B = " +
                                            std::to_string(o.batch) + ", S = " + std::to_string(o.context));
    }
    gpu = strata::evaluate(b.served, s, strata::make_machine(g, b.gpus)).tokens_per_s;
    label = "decode speedup of " + m.name + " on " + sys.name + " over " + std::to_string(b.gpus) + " x " + g.name;
  }
  return differentiate(sys, [&](const auto& q) { return strata::evaluate_decode(q, m, s, u).tokens_per_s / gpu; },
                       o.check, label);
}

}  // namespace

command add_sensitivity(CLI::App& app) {
  auto o = std::make_shared<sens_options>();
  CLI::App* sub = app.add_subcommand("sensitivity", "ranked elasticities d ln(y)/d ln(p) of one model output to "
                                                    "every real parameter (autodiff; --check: finite differences)");
  sub->add_option("--of", o->of, "the output: fastest_tier_bandwidth, latency_spread, logic_power, logic_area, "
                                 "decode_tokens_per_s, decode_speedup")
      ->required()
      ->check(CLI::IsMember({"fastest_tier_bandwidth", "latency_spread", "logic_power", "logic_area",
                             "decode_tokens_per_s", "decode_speedup"}));
  sub->add_option("--machine", o->machine, "Stratum system: stratum-s, stratum-l, stratum-xl")
      ->check(CLI::IsMember({"stratum-s", "stratum-l", "stratum-xl"}, CLI::ignore_case))
      ->default_str("stratum-l");
  // The decode outputs' options; with another output they are refused (exit 2), not ignored.
  const std::vector<const CLI::Option*> decode_only{
      sub->add_option("--model", o->model, "model preset or config.json (decode outputs)")->default_str("Mixtral-8x7B"),
      sub->add_option("--batch", o->batch, "decode batch (decode outputs)")->check(CLI::Range(1, 4096))->default_str("16"),
      sub->add_option("--context", o->context, "context length (decode outputs)")
          ->check(CLI::Range(1, 1048576))
          ->default_str("2048"),
      sub->add_option("--hit-rate", o->hit_rate, "hot-expert hit rate (0: uniform routing; decode outputs)")
          ->check(CLI::Range(0.0, 1.0))};
  const CLI::Option* gpu = sub->add_option("--gpu", o->gpu, "GPU of the speedup's baseline (decode_speedup)")->default_str("h100_sxm5");
  sub->add_flag("--check", o->check, "add the central finite-difference elasticity beside each");
  sub->add_flag("--json", o->json, "print the rows as JSON");
  sub->add_option("--top", o->top, "rows to print (0: all)");
  sub->add_flag("--zeros", o->zeros, "also the parameters of elasticity exactly 0");
  return {sub, [o, decode_only, gpu]() -> int {
            const bool decode = o->of == "decode_tokens_per_s" || o->of == "decode_speedup";
            for (const auto* opt : decode_only) {
              if (!decode && opt->count() > 0) {
                throw usage_error{opt->get_name() + " applies to the decode outputs (decode_tokens_per_s, "
                                  "decode_speedup), not to --of " + o->of};
              }
            }
            if (o->of != "decode_speedup" && gpu->count() > 0) {
              throw usage_error{"--gpu names the baseline of --of decode_speedup; it does not apply to --of " + o->of};
            }
            const auto r = compute(*o);
            if (!o->json) {
              strata::write_elasticity_table(std::cout, r.ad, {.output = o->of, .top = o->top, .zeros = o->zeros},
                                             o->check ? &r.checks : nullptr);
              std::cout << "\n" << r.label << "\n";
              return 0;
            }
            strata::json rows = strata::json::array();
            for (const auto& e : r.ad.ranked()) {
              if (!o->zeros && e.elasticity == 0.0) continue;
              if (o->top != 0 && rows.size() == o->top) break;
              strata::json row{{"parameter", e.parameter}, {"value", e.value}, {"derivative", e.derivative},
                               {"elasticity", e.elasticity}};
              for (const auto& c : r.checks) {
                if (c.parameter != e.parameter) continue;
                row["finite_difference"] =
                    c.scheme == strata::difference_scheme::none ? strata::json(nullptr) : strata::json(c.finite_difference);
                row["agrees"] = c.agrees;
              }
              rows.push_back(std::move(row));
            }
            const strata::json out{{"output", o->of}, {"of", r.label}, {"value", r.ad.output}, {"rows", rows}};
            std::cout << strata::dump_json(out, 2) << "\n";
            return 0;
          }};
}

}  // namespace strata_eval
