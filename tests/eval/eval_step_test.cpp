// strata/report/eval_step.hpp: one step as strata-eval eval and Python's strata.evaluate compute it.
#include <doctest/doctest.h>

#include <cstddef>
#include <string>
#include <vector>

#include "strata/baseline/baseline_gpu.hpp"
#include "strata/json.hpp"
#include "strata/report/eval_step.hpp"
#include "strata/workload/presets.hpp"

namespace {

strata::eval_request eval_step_decode(int batch, int context) {
  strata::eval_request r;
  r.mode = strata::phase::decode;
  r.batch = batch;
  r.context = context;
  return r;
}

std::string eval_step_field_of(const auto& f) {
  try {
    f();
  } catch (const strata::config_error& e) {
    return e.field();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("eval_step: machines load by preset name (case and '-'/'_' free), Stratum systems, refuse unknown names") {
  const auto g = strata::load_eval_machine("H100-SXM5");
  CHECK(g.preset == "h100_sxm5");
  REQUIRE(g.gpu);
  CHECK_FALSE(g.stratum);
  // The knobs are the cited set's (baseline_gpu), as the CLI evaluates a preset.
  CHECK(g.gpu->op_overhead.si() == strata::baseline_gpu(strata::gpu_preset("h100_sxm5")).op_overhead.si());
  const auto s = strata::load_eval_machine("stratum_l");
  REQUIRE(s.stratum);
  CHECK(s.preset.empty());
  CHECK(eval_step_field_of([] { (void)strata::load_eval_machine("no-such-machine"); }) == "machine");
}

TEST_CASE("eval_step: a GPU decode step is the roofline evaluator's on the fit check's degree; rows add up") {
  const strata::model m = strata::preset("Mixtral-8x7B");
  const auto mach = strata::load_eval_machine("h100_sxm5");
  const strata::eval_request req = eval_step_decode(8, 2048);
  const auto g = strata::evaluate_gpu_step(m, {}, mach, req);
  const strata::step_shape shape{.mode = strata::phase::decode, .batch = 8, .context = 2048};
  const int n = strata::min_devices(*mach.gpu, m, shape);
  CHECK(g.machine.devices == n);
  const auto direct = strata::evaluate(m, shape, strata::make_machine(*mach.gpu, n));
  CHECK(g.r.time.si() == doctest::Approx(direct.time.si()).epsilon(1e-12));
  double sum = 0.0;
  for (const auto& op : g.ops) sum += op.time.si();
  CHECK(sum == doctest::Approx(g.r.time.si()).epsilon(1e-9));
  const strata::json j = strata::eval_step_json(m, {}, mach, req);
  CHECK(j.at("time_s").get<double>() == g.r.time.si());
  CHECK(j.at("devices").get<int>() == n);
  CHECK(j.at("ops").size() == g.ops.size());
  CHECK(j.at("tokens_per_J").get<double>() == doctest::Approx(8.0 / g.r.energy.si()));
}

TEST_CASE("eval_step: more sequences per decode step, more tokens per second (memory-bound weights shared)") {
  const strata::model m = strata::preset("Mixtral-8x7B");
  const auto mach = strata::load_eval_machine("stratum-s");
  strata::eval_request req = eval_step_decode(1, 2048);
  const auto a = strata::eval_step_json(m, {}, mach, req);
  req.batch = 16;
  const auto b = strata::eval_step_json(m, {}, mach, req);
  CHECK(b.at("tokens_per_s").get<double>() > a.at("tokens_per_s").get<double>());
  CHECK(a.at("routing") == "uniform");
}

TEST_CASE("eval_step: options that do not apply are refused naming the option") {
  const strata::model m = strata::preset("Mixtral-8x7B");
  const auto gpu = strata::load_eval_machine("h100_sxm5");
  const auto stratum = strata::load_eval_machine("stratum-s");
  strata::eval_request r = eval_step_decode(8, 2048);
  r.devices = 2;
  CHECK(eval_step_field_of([&] { (void)strata::eval_step_json(m, {}, stratum, r); }) == "devices");
  r = eval_step_decode(8, 2048);
  r.ep = 3;  // not a divisor of 8 experts
  CHECK(eval_step_field_of([&] { (void)strata::eval_step_json(m, {}, gpu, r); }) == "ep");
  CHECK(eval_step_field_of([&] { (void)strata::eval_step_json(m, {}, stratum, r); }) == "ep");
  r = eval_step_decode(8, 2048);
  r.hit_rate = 0.5;
  CHECK(eval_step_field_of([&] { (void)strata::eval_step_json(m, {}, gpu, r); }) == "hit_rate");
  r = eval_step_decode(8, 2048);
  r.attention = "dp";  // without ep
  CHECK(eval_step_field_of([&] { (void)strata::eval_step_json(m, {}, gpu, r); }) == "attention");
  r = eval_step_decode(0, 2048);
  CHECK(eval_step_field_of([&] { (void)strata::eval_step_json(m, {}, gpu, r); }) == "batch");
  r = eval_step_decode(8, 2048);
  r.mode = strata::phase::prefill;
  r.detail = "experts";
  CHECK(eval_step_field_of([&] { (void)strata::eval_step_json(m, {}, stratum, r); }) == "detail");
  // The CLI's early checks: a machine file takes no knob set; max_devices only for a preset's fit.
  const auto bad = strata::eval_option_misuse(eval_step_decode(8, 2048), "machine.json", false, false, true);
  REQUIRE(bad);
  CHECK(bad->field == "gpu_knobs");
  strata::eval_request md = eval_step_decode(8, 2048);
  md.max_devices = 4;
  CHECK_FALSE(strata::eval_option_misuse(md, "h100_sxm5", false, true, false));
  md.devices = 2;
  CHECK(strata::eval_option_misuse(md, "h100_sxm5", false, true, false)->field == "max_devices");
}

TEST_CASE("eval_step: a Stratum prefill writes tokens per joule, not joules per token") {
  const strata::model m = strata::preset("Mixtral-8x7B");
  strata::eval_request r = eval_step_decode(2, 512);
  r.mode = strata::phase::prefill;
  const auto j = strata::eval_step_json(m, {}, strata::load_eval_machine("stratum-s"), r);
  CHECK_FALSE(j.contains("joules_per_token"));
  CHECK(j.at("phase") == "prefill");
  CHECK(j.at("tokens_per_J").get<double>() > 0.0);
}

TEST_CASE("eval_step: a Stratum decode step's --json lists every operator (name, kind, layer, time, energy) summing to the step") {
  // Issue 46, "Done when": `eval --json` on a Stratum machine has ops[] whose times add up to the
  // step's time and whose energies add up to its energy. Mixtral-8x7B on Stratum-L (one stage):
  // six entries per layer, then the embedding and final norm, the LM head and the static energy.
  const strata::model m = strata::preset("Mixtral-8x7B");
  const auto mach = strata::load_eval_machine("stratum-l");
  strata::json j = strata::eval_step_json(m, {}, mach, eval_step_decode(16, 2048));
  strata::convert_units(j, strata::json_units::si);  // what `--units si` prints: time_s, energy_J
  const auto& ops = j.at("ops");
  REQUIRE(ops.size() == static_cast<std::size_t>(6 * m.layers + 3));
  double t = 0.0, e = 0.0;
  int attention = 0;
  for (const auto& o : ops) {
    CAPTURE(o.dump());
    REQUIRE(o.at("name").is_string());
    REQUIRE(o.at("kind").is_string());
    REQUIRE(o.at("layer").is_number_integer());
    t += o.at("time_s").get<double>();
    e += o.at("energy_J").get<double>();
    if (o.at("kind") == "attention") {
      // Every layer's attention is its own, named after it (not "L0 attention" for every run).
      CHECK(o.at("layer").get<int>() == attention);
      CHECK(o.at("name") == "L" + std::to_string(attention) + ".attention");
      ++attention;
    }
  }
  CHECK(attention == m.layers);
  CHECK(ops.back().at("kind") == "static_power");
  CHECK(t == doctest::Approx(j.at("time_s").get<double>()).epsilon(1e-12));
  CHECK(e == doctest::Approx(j.at("energy_J").get<double>()).epsilon(1e-12));
  CHECK(t > 0.0);
  // The text output computes no tree and no list; the totals are the same numbers.
  strata::eval_request text = eval_step_decode(16, 2048);
  text.with_breakdown = false;
  strata::json plain = strata::eval_step_json(m, {}, mach, text);
  strata::convert_units(plain, strata::json_units::si);
  CHECK((!plain.contains("ops") || plain.at("ops").empty()));
  CHECK(plain.at("time_s").get<double>() == j.at("time_s").get<double>());
  CHECK(plain.at("energy_J").get<double>() == j.at("energy_J").get<double>());
}
