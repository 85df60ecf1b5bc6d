// Serving on any machine (serving/serving_json.hpp): a GPU alone (system "none"), any GPU
// preset, a model from a config.json resolved beside the scenario file, then the data directory.
#include "strata/serving/serving_json.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "strata/workload/presets.hpp"
#include "support/field_of.hpp"
#include "support/scratch_dir.hpp"

using namespace strata;
using doctest::Approx;
using strata_test::field_of;

TEST_CASE("a GPU-only serve of a config.json on H200 runs no Stratum system and equals simulate_gpu") {
  const std::string data = STRATA_TEST_DATA_DIR;
  const auto s = read_serving_scenario(R"({"system": "none", "model": "hf/llama-3.1-8b.config.json",
      "requests": {"count": 200, "rate": 8, "prompt": {"kind": "fixed", "value": 1000},
                   "output": {"kind": "fixed", "value": 100}},
      "gpu": {"name": "h200_sxm", "gpus": 1}})");
  const auto r = run_scenario(s, data);
  CHECK_FALSE(r.has_stratum);
  REQUIRE(r.has_gpu);
  REQUIRE(r.gpu.feasible);
  CHECK(r.gpu.system.find("H200") != std::string::npos);
  CHECK(r.stratum.requests == 0);  // not run
  // The same run through the library: the config's model, the card's cited knobs.
  const model m = load_hf_config(data + "/hf/llama-3.1-8b.config.json");
  const auto direct = simulate_gpu(baseline_gpu(h200_sxm()), m, s.scheduler, scenario_requests(s), 1, s.gpu.engine);
  CHECK(r.gpu.ttft.mean_s == direct.ttft.mean_s);
  CHECK(r.gpu.e2e.mean_s == direct.e2e.mean_s);
  CHECK(r.gpu.makespan_s == direct.makespan_s);
  std::ostringstream text;
  print_summary(text, r);
  CHECK(text.str().find("H200") != std::string::npos);
  CHECK(text.str().find("Stratum") == std::string::npos);
}

TEST_CASE("scenario paths resolve beside the scenario file first, then in the data directory") {
  const std::string data = STRATA_TEST_DATA_DIR;
  const strata_test::scratch_dir dir("any_machine");
  // A config beside the scenario, under a name the data directory does not have.
  std::filesystem::copy_file(data + "/hf/qwen3-8b.config.json", dir.path() / "mine.json");
  const auto s = read_serving_scenario(R"({"system": "none", "model": "mine.json",
      "requests": {"count": 20, "rate": 2}, "gpu": {"name": "b200", "gpus": 1}})");
  const auto r = run_scenario(s, data, dir.path().string());
  REQUIRE(r.gpu.feasible);
  CHECK(r.gpu.system.find("B200") != std::string::npos);
  // Not beside it, not in the data directory: refused naming the scenario key.
  CHECK(field_of([&] { (void)run_scenario(s, data, data); }) == "model");
}

TEST_CASE("bad machine keys are named: an unknown GPU, no machine at all, a model that is neither preset nor .json") {
  CHECK(field_of([] { (void)read_serving_scenario(R"({"gpu": {"name": "h300"}})"); }) == "gpu.name");
  CHECK(field_of([] { (void)read_serving_scenario(R"({"system": "none", "gpu": {"compare": false}})"); }) ==
        "gpu.compare");
  CHECK(field_of([] { (void)read_serving_scenario(R"({"model": "Llama-9"})"); }) == "model");
  CHECK(field_of([] { (void)read_serving_scenario(R"({"system": "stratum-m"})"); }) != "<no config_error>");
  // Every GPU preset is a valid gpu.name.
  for (const auto& g : gpu_preset_names()) {
    CAPTURE(g);
    CHECK_NOTHROW((void)read_serving_scenario(R"({"gpu": {"name": ")" + g + R"("}})"));
  }
}
