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

TEST_CASE("a machine of more devices than the model's heads is refused, whichever way the machine was made") {
  const model m = preset("Mixtral-8x7B");  // 32 heads, 8 KV heads, 8 experts
  // A roofline machine file of 64 devices is the same machine as 64 GPUs of a preset.
  const coverage_verdict v = model_coverage(m, make_machine(h100_sxm5(), 64));
  CHECK(v.kind == coverage_kind::refused);
  CHECK(v.devices == 64);
  CHECK(v.text() == "refused: tensor parallelism 64 wider than the 32 attention heads (no head for 32 of the devices)");
  roofline_machine file = make_machine(h100_sxm5(), 1);
  file.devices = 2147483647;
  CHECK(model_coverage(m, file).text() ==
        "refused: tensor parallelism 2147483647 wider than the 32 attention heads (no head for 2147483615 of the devices)");
  SUBCASE("with attention in data parallelism under EP the heads do not bound the degree; the experts do") {
    const model big = preset("DeepSeek-V3");  // 128 heads, 256 experts, MLA
    parallelism p{.ep = 256, .attention = attention_parallel::dp};
    CHECK(model_coverage(big, make_machine(h100_sxm5(), 256), {}, p).kind != coverage_kind::refused);
    p.attention = attention_parallel::tp;
    CHECK(model_coverage(big, make_machine(h100_sxm5(), 256), {}, p).text() ==
          "refused: tensor parallelism 256 wider than the 128 attention heads (no head for 128 of the devices)");
  }
}

TEST_CASE("tensor parallelism beyond the KV heads is modelled (each device reads its replica), not approximated") {
  const model m = preset("Mixtral-8x7B");
  CHECK(model_coverage(m, make_machine(h100_sxm5(), 8)).text() == "supported");
  const coverage_verdict v = model_coverage(m, make_machine(h100_sxm5(), 16));
  CHECK(v.text() == "supported");  // kv_read_factor: workload/kv_shards_test.cpp
  SUBCASE("heads not divisible by the degree are named, and so are the KV heads") {
    const coverage_verdict three = model_coverage(m, make_machine(h100_sxm5(), 3));
    CHECK(three.kind == coverage_kind::approximated);
    REQUIRE(three.reasons.size() == 2);
    CHECK(three.reasons[0] ==
          "32 attention heads not divisible by tensor parallelism 3 (split evenly as fractions of a head; vLLM refuses "
          "this degree)");
    CHECK(three.reasons[1] == "8 KV heads not divisible by tensor parallelism 3 (split evenly as fractions of a head)");
  }
}

TEST_CASE("MLA under tensor parallelism is modelled as engines hold it (the latent cache whole on every rank)") {
  const model m = preset("DeepSeek-V2-Lite");
  CHECK(model_coverage(m, make_machine(h100_sxm5(), 1)).text() == "supported");
  CHECK(model_coverage(m, make_machine(h100_sxm5(), 2)).text() == "supported");
}

TEST_CASE("expert parallelism beyond, or not dividing, the routed experts is refused; so is EP of a dense model") {
  const model m = preset("Mixtral-8x7B");
  CHECK(model_coverage(m, make_machine(h100_sxm5(), 8), {}, parallelism{.ep = 8}).text() == "supported");
  CHECK(model_coverage(m, make_machine(h100_sxm5(), 16), {}, parallelism{.ep = 16, .attention = attention_parallel::dp})
            .text() == "refused: expert parallelism 16 wider than the 8 routed experts (no expert for 8 of the devices)");
  CHECK(model_coverage(m, make_machine(h100_sxm5(), 3), {}, parallelism{.ep = 3, .attention = attention_parallel::dp})
            .text() == "refused: expert parallelism 3 does not divide the 8 routed experts");
  CHECK(model_coverage(preset("Llama-3.1-8B"), make_machine(h100_sxm5(), 2), {}, parallelism{.ep = 2}).text() ==
        "refused: expert parallelism 2 for a model without routed experts");
}

TEST_CASE("the GPU preset path and a machine file give one verdict for the same devices") {
  // gpu_coverage goes through model_coverage: the same rule, plus the knobs' note on unmeasured cards.
  for (const char* name : {"Mixtral-8x7B", "DeepSeek-V2", "Qwen3-30B-A3B", "gpt-oss-20b"}) {
    CAPTURE(name);
    const model m = preset(name);
    const coverage_verdict g = gpu_coverage(m, "h100_sxm5", preset_ignored_keys(name));
    if (g.devices == 0) continue;
    const coverage_verdict f = model_coverage(m, make_machine(baseline_gpu(h100_sxm5()), g.devices), preset_ignored_keys(name));
    CHECK(g.text() == f.text());
  }
}
