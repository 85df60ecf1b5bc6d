#include "strata/workload/presets.hpp"

#include <doctest/doctest.h>

#include "support/field_of.hpp"

#include <cstddef>  // std::size_t
#include <cstdint>  // std::int64_t
#include <string>   // std::string
#include <vector>   // std::vector

#include "strata/core/json.hpp"  // JSON round trip of every preset

using namespace strata;

namespace {

using strata_test::field_of;

}  // namespace

TEST_CASE("preset_names lists the seventeen models and each name finds its preset") {
  const std::vector<std::string> names = preset_names();
  CHECK(names == std::vector<std::string>{"OLMoE-1B-7B-0924", "Mixtral-8x7B", "Mixtral-8x22B", "Qwen2.5-32B",
                                          "Llama-4-Scout-17B-16E", "DBRX", "DeepSeek-V2-Lite", "DeepSeek-V2",
                                          "DeepSeek-V3", "DeepSeekMoE-16B", "Qwen1.5-MoE-A2.7B", "Llama-3.1-8B",
                                          "Mistral-Nemo-Base-2407", "Qwen3-8B", "Qwen3-30B-A3B", "gpt-oss-20b",
                                          "GLM-4.5-Air"});
  for (const std::string& name : names) {
    CAPTURE(name);
    const model m = preset(name);
    CHECK(m.name == name);
    CHECK_NOTHROW(validate(m));
  }
}

TEST_CASE("preset names are matched without regard to case") {
  CHECK(preset("mixtral-8x7b") == presets::mixtral_8x7b());
  CHECK(preset("DEEPSEEK-V3") == presets::deepseek_v3());
  CHECK(preset("deepseek-v2-lite") == presets::deepseek_v2_lite());
  CHECK(preset("deepseek-v2-lite") != presets::deepseek_v2());
}

TEST_CASE("an unknown preset name throws config_error listing the known names") {
  CHECK_THROWS_WITH_AS(preset("GPT-4"),
                       "[strata.preset] unknown model \"GPT-4\" (known: OLMoE-1B-7B-0924, Mixtral-8x7B, "
                       "Mixtral-8x22B, Qwen2.5-32B, Llama-4-Scout-17B-16E, DBRX, DeepSeek-V2-Lite, DeepSeek-V2, "
                       "DeepSeek-V3, DeepSeekMoE-16B, Qwen1.5-MoE-A2.7B, Llama-3.1-8B, Mistral-Nemo-Base-2407, "
                       "Qwen3-8B, Qwen3-30B-A3B, gpt-oss-20b, GLM-4.5-Air)",
                       config_error);
  CHECK(field_of([] { preset("Mixtral"); }) == "name");  // a prefix is not a match
  CHECK(field_of([] { preset(""); }) == "name");
}

TEST_CASE("preset parameter counts equal the independent recount in the model facts file") {
  // shared/data/model_and_hardware_facts.json, params_*_derived: a Python recount from the same
  // config values. DeepSeek-V3 differs by exactly 58 MoE layers x 256 router biases
  // (e_score_correction_bias), which the model does not represent.
  struct row {
    const char* name;
    std::int64_t total, active;
  };
  const row rows[] = {
      {"OLMoE-1B-7B-0924", 6919161856, 1282017280},
      {"Mixtral-8x7B", 46702792704, 12879925248},
      {"Mixtral-8x22B", 140620634112, 39152031744},
      {"Qwen2.5-32B", 32763876352, 32763876352},
      {"Llama-4-Scout-17B-16E", 107769861120, 17172894720},
      {"DBRX", 131596523520, 36469708800},
      {"DeepSeek-V2-Lite", 15706484224, 2661150208},
      {"DeepSeek-V2", 235741434880, 21375800320},
      {"DeepSeek-V3", 671026419200 - 58 * 256, 37552297472 - 58 * 256},
      {"DeepSeekMoE-16B", 16375728128, 2828650496},
      {"Qwen1.5-MoE-A2.7B", 14315784192, 2689173504},
  };
  for (const row& r : rows) {
    CAPTURE(r.name);
    const param_counts c = count_params(preset(r.name));
    CHECK(c.total == r.total);
    CHECK(c.active == r.active);
  }
}

TEST_CASE("presets carry the architecture facts of their configs") {
  SUBCASE("MLA models cache (kv_lora_rank + qk_rope_head_dim) values per token per layer") {
    for (const char* name : {"DeepSeek-V2-Lite", "DeepSeek-V2", "DeepSeek-V3"}) {
      CAPTURE(name);
      CHECK(preset(name).is_mla());
      CHECK(kv_bytes_per_token_layer(preset(name)).in(units::B) == (512 + 64) * 2.0);
    }
  }
  SUBCASE("GQA models cache 2·kv_heads·head_dim values") {
    CHECK(kv_bytes_per_token_layer(presets::llama4_scout_17b_16e()).in(units::B) == 2 * 8 * 128 * 2.0);
    CHECK(kv_bytes_per_token_layer(presets::dbrx()).in(units::B) == 2 * 8 * 128 * 2.0);
    CHECK(kv_bytes_per_token_layer(presets::olmoe_1b_7b_0924()).in(units::B) == 2 * 16 * 128 * 2.0);
  }
  SUBCASE("dense prefixes: DeepSeek-V3 three layers, V2, V2-Lite and DeepSeekMoE one") {
    CHECK(presets::deepseek_v3().moe_layers() == 58);
    CHECK(presets::deepseek_v2().moe_layers() == 59);
    CHECK(presets::deepseek_v2_lite().moe_layers() == 26);
    CHECK(presets::deepseek_moe_16b().moe_layers() == 27);
    CHECK(presets::mixtral_8x22b().moe_layers() == 56);
  }
  SUBCASE("DeepSeek-V3 is released with 8-bit weights, the others with 16-bit") {
    CHECK(presets::deepseek_v3().weight_bits == 8);
    CHECK(presets::deepseek_v2().weight_bits == 16);
  }
}

TEST_CASE("the presets are pairwise distinct and round-trip through JSON") {
  const std::vector<std::string> names = preset_names();
  for (std::size_t i = 0; i < names.size(); ++i) {
    CAPTURE(names[i]);
    const model a = preset(names[i]);
    CHECK(json(a).get<model>() == a);
    model unnamed_a = a;
    unnamed_a.name.clear();
    for (std::size_t j = i + 1; j < names.size(); ++j) {
      model unnamed_b = preset(names[j]);
      unnamed_b.name.clear();
      CHECK(unnamed_a != unnamed_b);
    }
  }
}

TEST_CASE("preset names treat '-' and '_' as the same character") {
  CHECK(preset("deepseek_v3") == presets::deepseek_v3());
  CHECK(preset("MIXTRAL_8X7B") == presets::mixtral_8x7b());
  CHECK(preset("llama_4_scout_17b_16e") == presets::llama4_scout_17b_16e());
  CHECK(field_of([] { preset("deepseek v3"); }) == "name");
  // A long name is quoted shortened.
  const std::string long_name(1000, 'x');
  try {
    preset(long_name);
    FAIL("no config_error");
  } catch (const config_error& e) {
    CHECK(std::string(e.what()).size() < 500);
  }
}
