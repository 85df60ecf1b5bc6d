// Machine files (baseline/machine_json.hpp): a preset or a file, one loader for eval and serve.
#include "strata/baseline/machine_json.hpp"

#include <doctest/doctest.h>

#include <string>

#include "support/field_of.hpp"
#include "support/opening_rule.hpp"
#include "support/scratch_dir.hpp"

using namespace strata;
using strata_test::field_of;
using strata_test::message_of;

namespace {
// A machine file that is exactly the preset card, written by the library's own JSON writer.
std::string machine_json_test_card_text(const gpu_params& g) { return dump_json(json(g), 2); }
}  // namespace

TEST_CASE("a preset name gives the preset's card with its knobs; names fold case and '-'") {
  const auto a = load_machine("h100_sxm5");
  REQUIRE(a.gpu);
  CHECK(*a.gpu == h100_sxm5());
  CHECK(a.preset == "h100_sxm5");
  CHECK_FALSE(a.from_file());
  const auto b = load_machine("H100-SXM5");
  CHECK(b.preset == "h100_sxm5");
  CHECK(*b.gpu == *a.gpu);
  // The fitted knob set: the same card with the published fit's knobs (baseline_gpu).
  const auto f = load_machine("h100_sxm5", gpu_knob_set::fitted);
  CHECK(*f.gpu == baseline_gpu(h100_sxm5(), gpu_knob_set::fitted));
  CHECK(f.gpu->compute_efficiency != a.gpu->compute_efficiency);
  CHECK(gpu_preset_named("MI300X") == "mi300x");
  CHECK(gpu_preset_named("h300").empty());
  CHECK(gpu_preset_named("").empty());
}

TEST_CASE("a gpu_params file equal to a preset reads back as that card, every field") {
  const strata_test::scratch_dir d("machine_json");
  for (const auto& n : gpu_preset_names()) {
    CAPTURE(n);
    const std::string path = d.write(n + ".json", machine_json_test_card_text(gpu_preset(n)));
    const auto m = load_machine(path);
    REQUIRE(m.gpu);
    CHECK(*m.gpu == gpu_preset(n));
    CHECK(m.from_file());
    CHECK(load_machine_file(path).gpu == m.gpu);
  }
  // Keys left out keep gpu_params' defaults (the H100 SXM5's): a file of one key is that card renamed.
  const auto one = parse_machine_json(R"({"name": "My card"})", "one.json");
  REQUIRE(one.gpu);
  gpu_params want = h100_sxm5();
  want.name = "My card";
  CHECK(*one.gpu == want);
}

TEST_CASE("a roofline_machine file is recognised by its tiers and read as the machine") {
  const roofline_machine rm = make_machine(h100_sxm5(), 4);
  const auto m = parse_machine_json(dump_json(json(rm), 2), "rm.json");
  CHECK_FALSE(m.gpu);
  CHECK(m.machine == rm);
  CHECK(m.machine.devices == 4);
}

TEST_CASE("bad machine files are config_errors naming the file and the JSON path") {
  SUBCASE("an unknown key") {
    const auto msg = message_of([] { (void)parse_machine_json(R"({"name": "x", "bandwith": "3 TB/s"})", "u.json"); });
    CHECK(msg.find("u.json: ") == 0);
    CHECK(msg.find("unknown key bandwith") != std::string::npos);
    CHECK(field_of([] { (void)parse_machine_json(R"({"name": "x", "bandwith": "3 TB/s"})", "u.json"); }) == "bandwith");
  }
  SUBCASE("a bare number, a wrong unit, a value the card refuses") {
    CHECK(field_of([] { (void)parse_machine_json(R"({"memory_bandwidth": 3.35e12})", "b.json"); }) == "memory_bandwidth");
    CHECK(field_of([] { (void)parse_machine_json(R"({"memory_bandwidth": "3 GB"})", "b.json"); }) == "memory_bandwidth");
    CHECK(field_of([] { (void)parse_machine_json(R"({"compute_efficiency": 1.5})", "b.json"); }) == "compute_efficiency");
    CHECK(message_of([] { (void)parse_machine_json(R"({"name": ""})", "b.json"); }).find("b.json: ") == 0);
  }
  SUBCASE("not JSON, too deep, not an object") {
    CHECK(message_of([] { (void)parse_machine_json("{\"name\": }", "s.json"); }).find("s.json") != std::string::npos);
    const std::string deep = std::string(100, '[') + std::string(100, ']');
    CHECK(message_of([&] { (void)parse_machine_json(deep, "deep.json"); }).find("json_depth") != std::string::npos);
    CHECK(field_of([] { (void)parse_machine_json("[1, 2]", "a.json"); }) != "<no config_error>");
  }
  SUBCASE("a name that is no preset and no file lists the presets and the caller's other names") {
    const auto msg = message_of([] { (void)load_machine("b300", default_gpu_knobs, "machine", {"stratum-l"}); });
    CHECK(msg.find("unknown machine preset 'b300' and no such file (presets: h100_sxm5, ") == 0);
    CHECK(msg.find("mi325x, stratum-l, '-' = '_')") != std::string::npos);
    CHECK(field_of([] { (void)load_machine("b300", default_gpu_knobs, "gpu.name"); }) == "gpu.name");
  }
  SUBCASE("knobs other than the cited set with a file: its knobs are its own") {
    const strata_test::scratch_dir d("machine_json_knobs");
    const std::string path = d.write("c.json", machine_json_test_card_text(h100_sxm5()));
    CHECK(field_of([&] { (void)load_machine(path, gpu_knob_set::fitted); }) == "knobs");
  }
}

TEST_CASE("load_machine_file opens its file under the opening rule (core/files.hpp)") {
  strata_test::check_opening_rule([](const std::string& p) { (void)load_machine_file(p); }, "machine", "machine",
                                  &input_limits::json_file_bytes, "json_file_bytes",
                                  machine_json_test_card_text(h100_sxm5()));
  // The role the caller gives names the refusal (a serving scenario passes its key).
  CHECK(field_of([] { (void)load_machine_file("/dev/zero", "machines[1].name"); }) == "machines[1].name");
}
