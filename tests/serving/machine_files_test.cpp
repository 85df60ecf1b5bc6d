// Serving on machine files and on several machines in one scenario (serving/serving_json.hpp,
// baseline/machine_json.hpp): `gpu.name` a gpu_params file, `machines` a labelled list of gpu blocks.
#include "strata/serving/serving_json.hpp"

#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include "support/field_of.hpp"
#include "support/scratch_dir.hpp"

using namespace strata;
using strata_test::field_of;
using strata_test::message_of;

namespace {

// A small GPU-only load: quick, and every number of the result depends on the card.
const char* const machine_files_test_load =
    R"("system": "none", "model": "Mixtral-8x7B",
       "requests": {"count": 40, "rate": 6, "seed": 3, "prompt": {"kind": "uniform", "min": 200, "max": 900},
                    "output": {"kind": "uniform", "min": 20, "max": 80}})";

serving_scenario machine_files_test_scenario(const std::string& machine_keys) {
  return read_serving_scenario("{" + std::string(machine_files_test_load) + ", " + machine_keys + "}");
}

// Two results of the same run: the JSON of each, every digit.
void machine_files_test_same(const serving_result& a, const serving_result& b) {
  CHECK(a.feasible);
  CHECK(a.requests == b.requests);
  CHECK(a.makespan_s == b.makespan_s);
  CHECK(a.ttft.mean_s == b.ttft.mean_s);
  CHECK(a.e2e.p99_s == b.e2e.p99_s);
  CHECK(a.energy_j == b.energy_j);
  CHECK(serving_json(serving_report{.stratum = {}, .gpu = a, .has_gpu = true, .has_stratum = false, .machines = {}, .thermal = {}, .has_thermal = false, .hcrmap = {}, .has_hcrmap = false}) ==
        serving_json(serving_report{.stratum = {}, .gpu = b, .has_gpu = true, .has_stratum = false, .machines = {}, .thermal = {}, .has_thermal = false, .hcrmap = {}, .has_hcrmap = false}));
}

}  // namespace

TEST_CASE("a machine file equal to its preset serves exactly as the preset") {
  const std::string data = STRATA_TEST_DATA_DIR;
  const strata_test::scratch_dir d("machine_files");
  d.write("h200.json", dump_json(json(h200_sxm()), 2));
  const auto preset = run_scenario(machine_files_test_scenario(R"("gpu": {"name": "h200_sxm", "gpus": 1})"), data);
  // Beside the scenario file (its folder given as the scenario's), by a relative name.
  const auto file = run_scenario(machine_files_test_scenario(R"("gpu": {"name": "h200.json", "gpus": 1})"), data,
                                 d.path().string());
  REQUIRE(preset.has_gpu);
  REQUIRE(file.has_gpu);
  machine_files_test_same(file.gpu, preset.gpu);
  CHECK(file.gpu.system == preset.gpu.system);
  CHECK(serving_json(file) == serving_json(preset));
  // A file whose card differs serves differently: half the memory bandwidth, slower decode.
  gpu_params slow = h200_sxm();
  slow.name = "H200 half bandwidth";
  slow.memory_bandwidth = slow.memory_bandwidth * 0.5;
  d.write("slow.json", dump_json(json(slow), 2));
  const auto s = run_scenario(machine_files_test_scenario(R"("gpu": {"name": "slow.json", "gpus": 1})"), data,
                              d.path().string());
  CHECK(s.gpu.system.find("H200 half bandwidth") != std::string::npos);
  CHECK(s.gpu.tpot.mean_s > preset.gpu.tpot.mean_s * 1.3);
}

TEST_CASE("two machines in one scenario each give the results of their run alone") {
  const std::string data = STRATA_TEST_DATA_DIR;
  const strata_test::scratch_dir d("machine_files_two");
  d.write("a100.json", dump_json(json(a100_sxm4_80gb()), 2));
  const auto both = run_scenario(
      machine_files_test_scenario(R"("machines": [{"name": "h100_sxm5", "gpus": 2},
                                                  {"label": "file A100", "name": "a100.json", "gpus": 2, "knobs": "cited"}])"),
      data, d.path().string());
  const auto h100 = run_scenario(machine_files_test_scenario(R"("gpu": {"name": "h100_sxm5", "gpus": 2})"), data);
  const auto a100 = run_scenario(machine_files_test_scenario(R"("gpu": {"name": "a100_sxm4_80gb", "gpus": 2})"), data);
  CHECK_FALSE(both.has_gpu);
  CHECK_FALSE(both.has_stratum);
  REQUIRE(both.machines.size() == 2);
  CHECK(both.machines[0].label == "h100_sxm5");  // no label: its name
  CHECK(both.machines[1].label == "file A100");
  machine_files_test_same(both.machines[0].result, h100.gpu);
  machine_files_test_same(both.machines[1].result, a100.gpu);
  CHECK(both.machines[0].result.makespan_s != both.machines[1].result.makespan_s);
  // The JSON holds each under its label; a one-gpu scenario's JSON has no machines key.
  const json j = json::parse(serving_json(both));
  REQUIRE(j.contains("machines"));
  CHECK(j["machines"][1]["label"] == "file A100");
  CHECK(j["machines"][1]["result"]["makespan_s"].get<double>() == a100.gpu.makespan_s);
  CHECK_FALSE(json::parse(serving_json(h100)).contains("machines"));
  // The summary: one line group per machine, led by its label.
  std::ostringstream text;
  print_summary(text, both);
  CHECK(text.str().find("[h100_sxm5] 2 x H100 SXM5") != std::string::npos);
  CHECK(text.str().find("[file A100] 2 x A100") != std::string::npos);
  // With a Stratum system the machines follow its result, each its own run.
  const auto with_stratum = run_scenario(read_serving_scenario(R"({"requests": {"count": 30, "rate": 4},
      "machines": [{"name": "h100_sxm5", "label": "H"}, {"name": "b200", "label": "B", "ep": 1}]})"), data);
  CHECK(with_stratum.has_stratum);
  CHECK(with_stratum.stratum.feasible);
  REQUIRE(with_stratum.machines.size() == 2);
  const auto alone = run_scenario(read_serving_scenario(R"({"requests": {"count": 30, "rate": 4},
      "gpu": {"name": "b200"}})"), data);
  machine_files_test_same(with_stratum.machines[1].result, alone.gpu);
  CHECK(with_stratum.stratum.makespan_s == alone.stratum.makespan_s);
}

TEST_CASE("bad machine keys and files are config_errors naming their path") {
  const std::string data = STRATA_TEST_DATA_DIR;
  const auto read = [](const std::string& keys) { return machine_files_test_scenario(keys); };
  SUBCASE("read-time checks: names, labels, compare, both forms, the list's size") {
    CHECK(field_of([&] { (void)read(R"("machines": [{"name": "h100_sxm5"}, {"name": "h300"}])"); }) == "machines[1].name");
    CHECK(field_of([&] { (void)read(R"("gpu": {"name": "h300"})"); }) == "gpu.name");
    CHECK(field_of([&] { (void)read(R"("machines": [{"name": "b200"}, {"name": "b200"}])"); }) == "machines[1].label");
    CHECK(field_of([&] { (void)read(R"("machines": [{"name": "b200", "label": "x"}, {"name": "h200_sxm", "label": "x"}])"); }) ==
          "machines[1].label");
    CHECK(field_of([&] { (void)read(R"("machines": [{"name": "b200", "compare": false}])"); }) == "machines[0].compare");
    CHECK(field_of([&] { (void)read(R"("gpu": {"name": "b200"}, "machines": [{"name": "b200"}])"); }) == "gpu");
    CHECK(field_of([&] { (void)read(R"("machines": [{"name": "b200", "nme": 1}])"); }) == "machines[0].nme");
    CHECK(field_of([&] { (void)read(R"("machines": [{"name": "b200", "gpus": 65}])"); }) == "machines[0].gpus");
    CHECK(field_of([&] { (void)read(R"("machines": [{"name": "h100_sxm5"}, {"name": "b200", "ep": 2, "gpus": 4}])"); }) ==
          "machines[1].gpus");
    CHECK(field_of([&] { (void)read(R"("machines": [{"name": "b200", "replicas": {"count": 2}, "scheduler": "fcfs"}])"); }) ==
          "machines[0].scheduler");
    CHECK(field_of([&] { (void)read(R"("machines": [{"name": "card.json", "knobs": "fitted"}])"); }) == "machines[0].knobs");
    std::string many;
    for (int i = 0; i <= max_serving_machines; ++i) many += std::string(i ? ", " : "") + R"({"name": "b200", "label": ")" + std::to_string(i) + "\"}";
    CHECK(field_of([&] { (void)read(R"("machines": [)" + many + "]"); }) == "machines");
    // An empty list is the one-gpu form (the default machine).
    CHECK(detail::machine_blocks(read(R"("machines": [])")).size() == 1);
  }
  SUBCASE("run-time checks: a file that is missing, bad, or a roofline machine") {
    const strata_test::scratch_dir d("machine_files_bad");
    d.write("bad.json", R"({"name": "x", "bandwith": "3 TB/s"})");
    d.write("rm.json", dump_json(json(make_machine(h100_sxm5(), 2)), 2));
    const std::string here = d.path().string();
    const auto run = [&](const std::string& keys) { (void)run_scenario(read(keys), data, here); };
    CHECK(field_of([&] { run(R"("machines": [{"name": "b200"}, {"name": "absent.json"}])"); }) == "machines[1].name");
    const auto msg = message_of([&] { run(R"("machines": [{"name": "b200"}, {"name": "bad.json"}])"); });
    CHECK(msg.find("[strata.serving] machines[1].name 'bad.json': ") == 0);
    CHECK(msg.find("unknown key bandwith") != std::string::npos);
    CHECK(field_of([&] { run(R"("gpu": {"name": "rm.json"})"); }) == "gpu.name");
    CHECK(message_of([&] { run(R"("gpu": {"name": "rm.json"})"); }).find("roofline_machine file") != std::string::npos);
    CHECK(field_of([&] { run(R"("gpu": {"name": "/dev"})"); }) == "gpu.name");  // not .json: no preset
    // Inputs without the loaded machines: a file block cannot run, a preset block can.
    const auto s = read(R"("machines": [{"name": "b200"}, {"name": "bad.json"}])");
    CHECK(field_of([&] { (void)run_scenario(s, serving_inputs{}); }) == "machines[1].name");
    CHECK(run_scenario(read(R"("machines": [{"name": "b200"}])"), serving_inputs{}).machines.size() == 1);
  }
}

TEST_CASE("a machine the caller loads is checked before it serves, naming the block") {
  const auto s = machine_files_test_scenario(R"("machines": [{"name": "b200"}, {"name": "mine.json", "label": "mine"}])");
  gpu_params bad = h100_sxm5();
  bad.memory_efficiency = 1.5;
  loaded_machine card;
  card.gpu = bad;
  const std::vector<loaded_machine> machines{load_machine("b200"), card};
  serving_inputs in;
  in.machines = &machines;
  CHECK(field_of([&] { (void)run_scenario(s, in); }) == "machines[1].name");
  // One loaded machine per block, or the inputs are refused.
  const std::vector<loaded_machine> one{load_machine("b200")};
  in.machines = &one;
  CHECK(field_of([&] { (void)run_scenario(s, in); }) == "machines");
  // A good card given this way serves as its preset does.
  const std::vector<loaded_machine> good{load_machine("b200"), load_machine("h100_sxm5")};
  in.machines = &good;
  const auto r = run_scenario(s, in);
  REQUIRE(r.machines.size() == 2);
  CHECK(r.machines[1].label == "mine");
  machine_files_test_same(r.machines[1].result,
                          run_scenario(machine_files_test_scenario(R"("gpu": {"name": "h100_sxm5"})"), serving_inputs{}).gpu);
}
