#include "strata/hcrmap/experiment.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "strata/hcrmap/sweeps.hpp"
#include "strata/hcrmap/trace_replay.hpp"
#include "strata/report/paper.hpp"
#include "strata/report/scenario_json.hpp"
#include "strata/serving/serving_json.hpp"
#include "strata/workload/presets.hpp"
#include "strata/workload/trace_io.hpp"
#include "support/field_of.hpp"
#include "support/text_file.hpp"

// The work of an HCRMap experiment, sweep or study is bounded by a stated limit,
// `hcrmap_limits().routes`, checked before the work starts; the error names the field and the
// limit; the default admits every shipped scenario and the paper report's experiments (issue 24).

using namespace strata;
using strata_test::field_of;

namespace {

const std::filesystem::path repo_root = strata_test::repo_root_dir();
using strata_test::text_of_file;

// Restores the process-wide HCRMap limits at the end of the scope.
struct hcrmap_limits_restore : strata_test::scoped_restore<hcrmap_input_limits> {
  hcrmap_limits_restore() : scoped_restore(hcrmap_limits()) {}
};

const routing_trace& esft_trace() {
  static const routing_trace t =
      load_trace_csv(std::string(STRATA_TEST_DATA_DIR) + "/traces/dsv2lite_esft_trace_intent.csv", {.experts = 64});
  return t;
}

}  // namespace

TEST_CASE("expert routes: policies x windows x evaluated layers x window tokens x top-k, with a stated default") {
  CHECK(hcrmap_limits().routes == std::int64_t{1} << 30);
  const model v3 = preset("DeepSeek-V3");  // 58 MoE layers, top-8
  experiment_params xp;
  xp.windows = 64;
  CHECK(experiment_routes(v3, phase::decode, 6, xp) == std::int64_t{6} * 65 * 58 * 512 * 8);
  CHECK(experiment_routes(v3, phase::prefill, 6, xp) == std::int64_t{6} * 65 * 58 * 2048 * 8);
  xp.max_layers = 6;
  CHECK(experiment_routes(v3, phase::decode, 1, xp) == std::int64_t{65} * 6 * 512 * 8);
}

TEST_CASE("the default admits every shipped scenario and the paper report's experiments") {
  std::int64_t largest_study = 0;
  int studies = 0, serving = 0;
  for (const auto& entry : std::filesystem::directory_iterator(repo_root / "examples" / "scenarios")) {
    if (entry.path().extension() != ".json") continue;
    CAPTURE(entry.path().string());
    const std::string text = text_of_file(entry.path());
    if (entry.path().filename().string().rfind("serve_", 0) == 0) {
      // The shipped serving scenarios run within serving_limits(); their paths resolve as the CLI
      // resolves them: beside the scenario file first, then in the data directory.
      const auto r = run_scenario(read_serving_scenario(text), (repo_root / "tests" / "data").string(),
                                  entry.path().parent_path().string());
      CHECK((r.has_stratum ? r.stratum.feasible : r.gpu.feasible));
      CHECK((!r.has_hcrmap || r.hcrmap.feasible));
      ++serving;
      continue;
    }
    const scenario s = read_scenario(text, entry.path().string());
    if (!is_hcrmap_study(s.study)) continue;
    experiment_params xp;
    xp.windows = s.hcrmap.windows;
    xp.max_layers = s.hcrmap.max_layers;
    const auto points = s.study == study_kind::hcrmap_budget ? static_cast<std::int64_t>(scenario_space(s).size()) : 1;
    largest_study = std::max(largest_study, points * experiment_routes(preset(s.model), s.hcrmap.mode, 6, xp));
    ++studies;
  }
  CHECK(studies == 6);  // fig7_budget, fig7_sram_capacity, fig7_hbm_capacity, fig8_pressure, decode_shape_kv_{hbm_first,dram}
  // serve_mixtral, serve_mixtral_stages, serve_mixtral_ep, serve_dsv2lite_trace, the three measured
  // vLLM runs serve_mixtral_vllm_{general,codegen,roleplay}, serve_gpu_only_h200 (no Stratum),
  // serve_machines (three machines, one a machine file), serve_mixtral_engine (Stratum through
  // the engine), serve_mixtral_thermal (the stack's temperature) and serve_hcrmap_engine (an HCRMap
  // package through the engine)
  CHECK(serving == 12);
  CHECK(largest_study == 10616832);  // fig7_*: 6 points x 6 policies x 4 windows x 6 layers x 2048 x top-6 (docs/cli.md)
  // The paper report's suite: prefill 7 policies and decode 12, each with the greedy ablation.
  std::int64_t largest_experiment = 0;
  for (const auto& name : hcrmap_models()) {
    for (const auto& [mode, policies] : {std::pair{phase::prefill, 8}, std::pair{phase::decode, 13}}) {
      largest_experiment = std::max(largest_experiment, experiment_routes(preset(name), mode, policies, experiment_params{}));
    }
  }
  CHECK(largest_experiment == 30408704);  // DeepSeek-V3 prefill (docs/cli.md)
  CHECK(largest_experiment * 35 < hcrmap_limits().routes);
  CHECK(largest_study * 100 < hcrmap_limits().routes);
}

TEST_CASE("a 300-byte hcrmap_budget study asking for 2.4e10 expert routes is refused when read, naming the limit") {
  const std::string text = R"({"name": "a", "study": "hcrmap_budget", "model": "DeepSeek-V3",
      "hcrmap": {"mode": "decode", "windows": 64},
      "sweep": {"axes": [{"name": "budget_factor", "kind": "linear", "first": 1, "last": 4, "count": 256}]}})";
  CHECK(field_of([&] { (void)read_scenario(text); }) == "sweep.axes");
  const auto msg = strata_test::message_of([&] { (void)read_scenario(text); });
  CHECK(msg.find("23718789120 expert routes (256 points x 6 policies x 65 windows (64 + 1 profile) x 58 MoE layers x "
                 "512 tokens x top-8)") != std::string::npos);
  CHECK(msg.find("more than the limit 1073741824 (strata::hcrmap_limits().routes)") != std::string::npos);
  // Fewer windows, layers or points: admitted.
  const std::string fewer = R"({"name": "a", "study": "hcrmap_budget", "model": "DeepSeek-V3",
      "hcrmap": {"mode": "decode", "windows": 3, "max_layers": 6},
      "sweep": {"axes": [{"name": "budget_factor", "kind": "linear", "first": 1, "last": 4, "count": 256}]}})";
  CHECK(field_of([&] { (void)read_scenario(fewer); }) == "<no config_error>");
}

TEST_CASE("every entry point checks the routes before it starts: fields windows, max_windows, factors, hcrmap.windows") {
  hcrmap_limits_restore restore;
  const model lite = preset("DeepSeek-V2-Lite");  // 26 MoE layers, top-6
  const auto& trace = esft_trace();
  experiment_params xp;
  xp.trace_reuse = true;  // 127 sequences for decode windows of 512
  xp.max_layers = 2;
  xp.windows = 1;
  const std::int64_t one = experiment_routes(lite, phase::decode, 2, xp);  // static + fixed, 2 windows
  CHECK(one == 2 * 2 * 2 * 512 * 6);
  hcrmap_limits().routes = one;
  const substrate s;
  const std::vector<policy_kind> fixed{policy_kind::fixed_replication};  // static is added
  CHECK(field_of([&] { (void)run_experiment(s, lite, trace, phase::decode, fixed, xp); }) == "<no config_error>");
  xp.windows = 2;
  CHECK(field_of([&] { (void)run_experiment(s, lite, trace, phase::decode, fixed, xp); }) == "windows");
  CHECK(strata_test::message_of([&] { (void)run_experiment(s, lite, trace, phase::decode, fixed, xp); })
            .find("(strata::hcrmap_limits().routes)") != std::string::npos);
  // Sweeps: points x routes.
  xp.windows = 1;
  CHECK(field_of([&] { (void)budget_sweep({}, lite, trace, phase::decode, {1.3, 2.0}, fixed, xp); }) == "factors");
  CHECK(field_of([&] { (void)capacity_sweep({}, lite, trace, phase::decode, tier_kind::hbm, {1.0, 2.0}, fixed, xp); }) ==
        "factors");
  // The trace replay (strata-eval hcrmap): windows from the trace, at most max_windows.
  replay_params rp;
  rp.experiment = xp;
  hcrmap_limits().routes = one - 1;
  CHECK(field_of([&] { (void)replay_trace(s, lite, trace, phase::decode, fixed, rp); }) == "max_windows");
  // A scenario: the reader (fig8_pressure: one experiment for the whole grid) and the study model.
  const auto fig8 = repo_root / "examples" / "scenarios" / "fig8_pressure.json";
  hcrmap_limits() = restore.saved();
  scenario sc = read_scenario(text_of_file(fig8), fig8.string());
  experiment_params sx;
  sx.windows = sc.hcrmap.windows;
  sx.max_layers = sc.hcrmap.max_layers;
  hcrmap_limits().routes = experiment_routes(lite, sc.hcrmap.mode, 6, sx) - 1;
  CHECK(field_of([&] { (void)read_scenario(text_of_file(fig8), fig8.string()); }) == "hcrmap.windows");
  sc.hcrmap.trace.clear();  // the check comes before the trace is made or loaded
  CHECK(field_of([&] { (void)scenario_model(sc); }) == "hcrmap.windows");
}
