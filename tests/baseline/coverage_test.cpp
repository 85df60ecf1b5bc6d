#include "strata/baseline/coverage.hpp"
#include "strata/workload/hf_config.hpp"

#include <doctest/doctest.h>

#include <cctype>  // std::tolower
#include <string>  // std::string
#include <vector>  // std::vector

#include "strata/workload/presets.hpp"

using namespace strata;

namespace {

// tests/data/hf/<lower-case preset name>.config.json
std::string fixture_path(const std::string& preset_name) {
  std::string file;
  for (char c : preset_name) file += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return std::string(STRATA_TEST_DATA_DIR) + "/hf/" + file + ".config.json";
}

}  // namespace

TEST_CASE("a dense BF16 model on a validated card is supported") {
  const coverage_verdict v = gpu_coverage(preset("Llama-3.1-8B"), "h100_sxm5");
  CHECK(v.kind == coverage_kind::supported);
  CHECK(v.text() == "supported");
  CHECK(v.devices == 1);
}

TEST_CASE("MXFP4 experts are approximated on cards without FP4 and run at the FP4 rate on B200") {
  const model m = preset("gpt-oss-20b");
  const coverage_verdict h = gpu_coverage(m, "h100_sxm5");
  CHECK(h.kind == coverage_kind::approximated);
  CHECK(h.text() == "approximated: 4-bit experts dequantised to BF16 (no FP4 path on H100 SXM5)");
  // B200 has an FP4 path: only its knobs are an approximation.
  const coverage_verdict b = gpu_coverage(m, "b200");
  CHECK(b.text() == "approximated: serving knobs not checked on B200 (no measured serving run of it)");
}

TEST_CASE("a model that does not fit one node is refused naming the bytes; a bigger card approximates it") {
  const model m = preset("DeepSeek-V3");
  const coverage_verdict h = gpu_coverage(m, "h100_sxm5", preset_ignored_keys("DeepSeek-V3"));
  CHECK(h.kind == coverage_kind::refused);
  CHECK(h.devices == 0);
  CHECK(h.text().rfind("refused: does not fit 8 x H100 SXM5 (", 0) == 0);
  const coverage_verdict h200 = gpu_coverage(m, "h200_sxm", preset_ignored_keys("DeepSeek-V3"));
  CHECK(h200.kind == coverage_kind::approximated);
  CHECK(h200.devices == 8);
  CHECK(h200.reasons.back() == "multi-token-prediction layers not modelled (num_nextn_predict_layers)");
  SUBCASE("FP8 weights on a card without FP8 run at the 16-bit rate, said in the verdict") {
    const coverage_verdict a = gpu_coverage(m, "a100_sxm4_80gb", {}, {.mode = phase::decode, .batch = 1, .context = 2048}, 16);
    CHECK(a.devices == 16);
    CHECK(a.text() == "approximated: 8-bit weights computed at the 16-bit rate (no FP8 path on A100 SXM4 80GB)");
  }
}

TEST_CASE("a preset's ignored keys are the warnings its config file gives") {
  for (const std::string& name : preset_names()) {
    CAPTURE(name);
    const auto r = load_hf_config_with_warnings(fixture_path(name));
    CHECK(warning_keys(r.warnings) == preset_ignored_keys(name));
  }
}

TEST_CASE("a Stratum system names what it approximates of a windowed, MXFP4 model") {
  CHECK(stratum_coverage(preset("Mixtral-8x7B")).text() == "supported");
  CHECK(stratum_coverage(preset("gpt-oss-20b")).text() ==
        "approximated: sliding-window layers taken as full attention on a Stratum system; per-component weight "
        "formats taken at 16 bits on a Stratum system");
}
