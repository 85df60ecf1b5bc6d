#include "strata/workload/hf_config.hpp"

#include <doctest/doctest.h>

#include "support/field_of.hpp"
#include "support/opening_rule.hpp"
#include "support/scratch_dir.hpp"

#include <cctype>      // std::tolower
#include <cmath>       // std::abs
#include <cstdint>     // std::int64_t
#include <filesystem>  // std::filesystem::path
#include <fstream>     // std::ifstream: fixtures
#include <string>      // std::string

#include "strata/workload/presets.hpp"  // each preset must equal what its fixture reads

using namespace strata;

namespace {

const std::string k_hf_dir = std::string(STRATA_TEST_DATA_DIR) + "/hf/";

// tests/data/hf/<lower-case preset name>.config.json
std::string fixture_path(const std::string& preset_name) {
  std::string file;
  for (char c : preset_name) file += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return k_hf_dir + file + ".config.json";
}

json fixture_json(const std::string& preset_name) {
  std::ifstream in(fixture_path(preset_name));
  REQUIRE(in.good());
  return json::parse(in);
}

using strata_test::field_of;

using strata_test::message_of;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// Relative deviation of a derived count from a published figure.
double deviation(std::int64_t derived, double stated) { return static_cast<double>(derived) / stated - 1.0; }

// A config written to a file of this name in a directory of its own (tests/support/scratch_dir.hpp:
// no fixed name in TMPDIR), removed again at the end of the scope.
struct temp_config {
  strata_test::scratch_dir dir{"hf_config"};
  std::filesystem::path path;
  temp_config(const std::string& name, const std::string& text) : path(dir.write(name, text)) {}
  temp_config(const temp_config&) = delete;
  temp_config& operator=(const temp_config&) = delete;
};

// Weights of Llama-4's vision encoder, adapter and projector (transformers modeling_llama4.py:
// Llama4VisionModel, Llama4VisionPixelShuffleMLP, Llama4MultiModalProjector), from vision_config.
// Per encoder layer: q, k, v, o with biases 4(v² + v); fc1, fc2 with biases 2vi + i + v; two
// LayerNorms with biases 4v. Besides: class embedding v, positional embedding ((image/patch)² + 1)·v,
// patch embedding 3·patch²·v, pre/post LayerNorms 4v, adapter fc1 i·p_in and fc2 p_out·p_out,
// projector p_out·d_text (no biases).
std::int64_t llama4_vision_params(const json& cfg) {
  const json& v = cfg.at("vision_config");
  const std::int64_t h = v.at("hidden_size"), i = v.at("intermediate_size"), layers = v.at("num_hidden_layers");
  const std::int64_t patch = v.at("patch_size"), grid = v.at("image_size").get<std::int64_t>() / patch;
  const std::int64_t p_in = v.at("projector_input_dim"), p_out = v.at("projector_output_dim");
  const std::int64_t d_text = cfg.at("text_config").at("hidden_size");
  const std::int64_t per_layer = 4 * (h * h + h) + 2 * h * i + i + h + 4 * h;
  const std::int64_t channels = v.at("num_channels");
  return layers * per_layer + h + (grid * grid + 1) * h + channels * patch * patch * h + 4 * h + i * p_in +
         p_out * p_out + p_out * d_text;
}

}  // namespace

TEST_CASE("every fixture loads and equals its preset") {
  for (const std::string& name : preset_names()) {
    CAPTURE(name);
    model read = load_hf_config(fixture_path(name));
    const model p = preset(name);
    read.name = p.name;
    INFO("read:   " << json(read).dump());
    INFO("preset: " << json(p).dump());
    CHECK(read == p);
  }
}

TEST_CASE("a loaded config is named after _name_or_path, else after its file") {
  CHECK(load_hf_config(fixture_path("Mixtral-8x7B")).name == "mixtral-8x7b");
  json cfg = fixture_json("Mixtral-8x7B");
  cfg["_name_or_path"] = "mistralai/Mixtral-8x7B-v0.1";
  CHECK(read_hf_config(cfg).name == "mistralai/Mixtral-8x7B-v0.1");
  CHECK(read_hf_config(cfg, "mine").name == "mine");
  const temp_config t("strata_named.config.json", cfg.dump());
  CHECK(load_hf_config(t.path.string()).name == "mistralai/Mixtral-8x7B-v0.1");
}

TEST_CASE("parameter counts are within 2 % of the published totals and active counts") {
  // Each published figure is compared like with like; the comment says what it includes.
  SUBCASE("Mixtral-8x7B: 46.7 B / 12.9 B (Mistral AI), embeddings included") {
    const auto c = count_params(load_hf_config(fixture_path("Mixtral-8x7B")));
    CHECK(std::abs(deviation(c.total, 46.7e9)) < 0.02);
    CHECK(std::abs(deviation(c.active, 12.9e9)) < 0.02);
  }
  SUBCASE("Mixtral-8x22B: 141 B / 39 B (Mistral AI), embeddings included") {
    const auto c = count_params(load_hf_config(fixture_path("Mixtral-8x22B")));
    CHECK(std::abs(deviation(c.total, 141e9)) < 0.02);
    CHECK(std::abs(deviation(c.active, 39e9)) < 0.02);
  }
  SUBCASE("OLMoE-1B-7B: 6.9 B / 1.3 B (arXiv:2409.02060), embeddings included") {
    const auto c = count_params(load_hf_config(fixture_path("OLMoE-1B-7B-0924")));
    CHECK(std::abs(deviation(c.total, 6.9e9)) < 0.02);
    CHECK(std::abs(deviation(c.active, 1.3e9)) < 0.02);
  }
  SUBCASE("Qwen1.5-MoE-A2.7B: 14.3 B / 2.7 B (Qwen), embeddings included") {
    const auto c = count_params(load_hf_config(fixture_path("Qwen1.5-MoE-A2.7B")));
    CHECK(std::abs(deviation(c.total, 14.3e9)) < 0.02);
    CHECK(std::abs(deviation(c.active, 2.7e9)) < 0.02);
  }
  SUBCASE("Qwen2.5-32B: 32.8 B (the 32.764 B weight count) and the card's 32.5 B / 31.0 B non-embedding") {
    const auto c = count_params(load_hf_config(fixture_path("Qwen2.5-32B")));
    CHECK(std::abs(deviation(c.total, 32.8e9)) < 0.02);
    CHECK(std::abs(deviation(c.total, 32.5e9)) < 0.02);
    CHECK(std::abs(deviation(c.total - c.embedding, 31.0e9)) < 0.02);
    CHECK(c.active == c.total);
  }
  SUBCASE("DBRX: 132 B / 36 B (Databricks), embeddings included") {
    const auto c = count_params(load_hf_config(fixture_path("DBRX")));
    CHECK(std::abs(deviation(c.total, 132e9)) < 0.02);
    CHECK(std::abs(deviation(c.active, 36e9)) < 0.02);
  }
  SUBCASE("Llama-4-Scout: 109 B with the vision encoder / 17 B active") {
    // The model reads only the text model (107.77 B). Meta's 109 B counts the whole checkpoint, so
    // the vision encoder, adapter and projector (0.872 B, counted from vision_config) are added for
    // the total. A text token does not touch the vision weights: the active count is text only.
    const json cfg = fixture_json("Llama-4-Scout-17B-16E");
    const auto c = count_params(read_hf_config(cfg));
    const std::int64_t vision = llama4_vision_params(cfg);
    CHECK(vision == 871932416);
    CHECK(std::abs(deviation(c.total + vision, 109e9)) < 0.02);
    CHECK(std::abs(deviation(c.active, 17e9)) < 0.02);
  }
  SUBCASE("DeepSeekMoE-16B: 16.4 B total (DeepSeek-MoE README), embeddings included") {
    const auto c = count_params(load_hf_config(fixture_path("DeepSeekMoE-16B")));
    CHECK(std::abs(deviation(c.total, 16.4e9)) < 0.02);
  }
  // DeepSeek states activated parameters without the input embedding (a lookup, not a matmul) but
  // with the output head: README_WEIGHTS gives DeepSeek-V3 "36.6 B activated (including 0.9 B for
  // the output head)", and our count without the 0.93 B input embedding is 36.63 B; with it,
  // 37.55 B. The DeepSeek active figures are therefore compared without the input embedding.
  SUBCASE("DeepSeek-V3: 671 B (main model, without the MTP module) / 37 B and 36.6 B active") {
    const model m = load_hf_config(fixture_path("DeepSeek-V3"));
    const auto c = count_params(m);
    const std::int64_t input_embedding = std::int64_t{m.vocab} * m.hidden;
    CHECK(std::abs(deviation(c.total, 671e9)) < 0.02);
    CHECK(std::abs(deviation(c.active - input_embedding, 37e9)) < 0.02);
    CHECK(std::abs(deviation(c.active - input_embedding, 36.6e9)) < 0.02);
  }
  SUBCASE("DeepSeek-V2: 236 B / 21 B (arXiv:2405.04434)") {
    const model m = load_hf_config(fixture_path("DeepSeek-V2"));
    const auto c = count_params(m);
    CHECK(std::abs(deviation(c.total, 236e9)) < 0.02);
    CHECK(std::abs(deviation(c.active - std::int64_t{m.vocab} * m.hidden, 21e9)) < 0.02);
  }
  SUBCASE("DeepSeek-V2-Lite: 15.7 B / 2.4 B (arXiv:2405.04434 App. B)") {
    // Active: 2.661 B with both embedding matrices (+11 % against 2.4 B), 2.451 B without the input
    // embedding (DeepSeek's convention, above), 2.241 B without both (-6.6 %). "2.4 B" is given to
    // two figures, so it stands for [2.35, 2.45) B, ±2.1 %; 2.451 B lies 1.4 M above that interval,
    // less than the 3.4 M router weights. The tolerance here is therefore 2.5 %, not 2 %.
    const model m = load_hf_config(fixture_path("DeepSeek-V2-Lite"));
    const auto c = count_params(m);
    const std::int64_t input_embedding = std::int64_t{m.vocab} * m.hidden;
    CHECK(std::abs(deviation(c.total, 15.7e9)) < 0.02);
    CHECK(std::abs(deviation(c.active - input_embedding, 2.4e9)) < 0.025);
    CHECK(std::abs(deviation(c.active, 2.4e9)) > 0.10);  // with the embedding it would not match
  }
}

TEST_CASE("family specifics are read from their keys") {
  SUBCASE("Qwen2 has QKV bias and a dense FFN of intermediate_size") {
    const model m = load_hf_config(fixture_path("Qwen2.5-32B"));
    CHECK(m.qkv_bias);
    CHECK(m.experts == 0);
    CHECK(m.dense_ffn == 27648);
  }
  SUBCASE("Qwen2-MoE decoder_sparse_step becomes moe_layer_step with offset 1") {
    json cfg = fixture_json("Qwen1.5-MoE-A2.7B");
    cfg["decoder_sparse_step"] = 2;
    const model m = read_hf_config(cfg);
    CHECK(m.moe_layer_step == 2);
    CHECK(m.moe_layer_offset == 1);
    CHECK(m.moe_layers() == 12);
    CHECK(m.shared_experts == 1);
    CHECK(m.shared_expert_ffn == 5632);
    CHECK(m.shared_expert_gate);
  }
  SUBCASE("Qwen2-MoE mlp_only_layers: a prefix becomes dense layers, anything else is refused") {
    json cfg = fixture_json("Qwen1.5-MoE-A2.7B");
    cfg["mlp_only_layers"] = json::array();
    CHECK(read_hf_config(cfg).first_dense_layers == 0);
    cfg["mlp_only_layers"] = {0, 1};
    CHECK(read_hf_config(cfg).first_dense_layers == 2);
    CHECK(read_hf_config(cfg).moe_layers() == 22);
    cfg["mlp_only_layers"] = {1, 5};
    CHECK(field_of([&] { read_hf_config(cfg); }) == "mlp_only_layers");
    CHECK(contains(message_of([&] { read_hf_config(cfg); }), "is not supported"));
  }
  SUBCASE("DeepSeek moe_layer_freq becomes moe_layer_step with offset 0") {
    json cfg = fixture_json("DeepSeekMoE-16B");
    cfg["moe_layer_freq"] = 2;
    const model m = read_hf_config(cfg);
    CHECK(m.moe_layer_step == 2);
    CHECK(m.moe_layer_offset == 0);
    CHECK(m.is_moe_layer(2));
    CHECK_FALSE(m.is_moe_layer(3));
  }
  SUBCASE("DeepSeek-V2-Lite's null q_lora_rank means an uncompressed query; a missing one is an error") {
    json cfg = fixture_json("DeepSeek-V2-Lite");
    CHECK(read_hf_config(cfg).mla.q_lora_rank == 0);
    cfg.erase("q_lora_rank");
    CHECK(field_of([&] { read_hf_config(cfg); }) == "q_lora_rank");
  }
  SUBCASE("a deepseek (DeepSeekMoE) config with MLA keys is refused rather than misread") {
    json cfg = fixture_json("DeepSeekMoE-16B");
    cfg["kv_lora_rank"] = 512;
    CHECK(field_of([&] { read_hf_config(cfg); }) == "kv_lora_rank");
  }
  SUBCASE("DeepSeek-V3's FP8 quantization_config gives 8-bit weights; torch_dtype alone 16") {
    json cfg = fixture_json("DeepSeek-V3");
    CHECK(read_hf_config(cfg).weight_bits == 8);
    cfg.erase("quantization_config");
    CHECK(read_hf_config(cfg).weight_bits == 16);
    cfg["torch_dtype"] = "float32";
    CHECK(read_hf_config(cfg).weight_bits == 32);
    cfg["quantization_config"] = {{"quant_method", "gptq"}, {"bits", 4}};
    CHECK(read_hf_config(cfg).weight_bits == 4);
    cfg["quantization_config"] = {{"quant_method", "mystery"}};
    CHECK(field_of([&] { read_hf_config(cfg); }) == "quantization_config.quant_method");
  }
  SUBCASE("Llama-4 reads text_config; a bare llama4_text config gives the same model") {
    const json cfg = fixture_json("Llama-4-Scout-17B-16E");
    const model wrapped = read_hf_config(cfg, "scout");
    json text = cfg.at("text_config");
    const model bare = read_hf_config(text, "scout");
    CHECK(bare == wrapped);
    CHECK(wrapped.family == "llama4");
    CHECK(wrapped.qk_norm);
    CHECK(wrapped.dense_ffn == 16384);
    text["tie_word_embeddings"] = true;
    CHECK(read_hf_config(text).tie_embeddings);
  }
  SUBCASE("Llama-4 interleave_moe_layer_step and a matching moe_layers list") {
    json cfg = fixture_json("Llama-4-Scout-17B-16E");
    cfg["text_config"]["interleave_moe_layer_step"] = 2;
    json listed = json::array();
    for (int i = 1; i < 48; i += 2) listed.push_back(i);
    cfg["text_config"]["moe_layers"] = listed;
    const model m = read_hf_config(cfg);
    CHECK(m.moe_layer_step == 2);
    CHECK(m.moe_layers() == 24);
    CHECK_FALSE(m.is_moe_layer(0));
    cfg["text_config"]["moe_layers"] = {0, 1};
    CHECK(field_of([&] { read_hf_config(cfg); }) == "text_config.moe_layers");
  }
  SUBCASE("head_dim is taken from the config when given, else hidden / heads") {
    json cfg = fixture_json("Mixtral-8x7B");
    CHECK(read_hf_config(cfg).head_dim == 128);
    cfg["head_dim"] = 64;
    CHECK(read_hf_config(cfg).head_dim == 64);
    cfg.erase("head_dim");
    cfg["hidden_size"] = 4100;
    CHECK(field_of([&] { read_hf_config(cfg); }) == "head_dim");
  }
  SUBCASE("tie_word_embeddings defaults to false and num_key_value_heads to the head count") {
    json cfg = fixture_json("Mixtral-8x7B");
    cfg.erase("tie_word_embeddings");
    cfg.erase("num_key_value_heads");
    const model m = read_hf_config(cfg);
    CHECK_FALSE(m.tie_embeddings);
    CHECK(m.kv_heads == 32);
    cfg["tie_word_embeddings"] = true;
    CHECK(read_hf_config(cfg).tie_embeddings);
  }
  SUBCASE("hidden_act gelu* gives a GeLU FFN, silu SwiGLU, anything else an error") {
    json cfg = fixture_json("Mixtral-8x7B");
    CHECK(read_hf_config(cfg).ffn == ffn_kind::swiglu);
    cfg["hidden_act"] = "gelu_pytorch_tanh";
    CHECK(read_hf_config(cfg).ffn == ffn_kind::gelu);
    cfg["hidden_act"] = "relu";
    CHECK(field_of([&] { read_hf_config(cfg); }) == "hidden_act");
  }
  SUBCASE("DBRX reads its nested attn_config and ffn_config") {
    json cfg = fixture_json("DBRX");
    const model m = read_hf_config(cfg);
    CHECK(m.kv_heads == 8);
    CHECK(m.experts == 16);
    CHECK(m.top_k == 4);
    CHECK(m.expert_ffn == 10752);
    cfg["ffn_config"]["ffn_act_fn"] = {{"name", "gelu"}};
    CHECK(read_hf_config(cfg).ffn == ffn_kind::gelu);
  }
}

TEST_CASE("bad configs throw config_error naming the JSON key") {
  SUBCASE("an unknown model_type") {
    json cfg = fixture_json("Mixtral-8x7B");
    cfg["model_type"] = "gpt2";
    CHECK(field_of([&] { read_hf_config(cfg); }) == "model_type");
    CHECK(contains(message_of([&] { read_hf_config(cfg); }), "model_type \"gpt2\" is not supported"));
    cfg.erase("model_type");
    CHECK(field_of([&] { read_hf_config(cfg); }) == "model_type");
  }
  SUBCASE("a missing nested field") {
    json cfg = fixture_json("DBRX");
    cfg["ffn_config"].erase("moe_top_k");
    CHECK_THROWS_WITH_AS(read_hf_config(cfg),
                         "[strata.hf_config] ffn_config.moe_top_k is missing (required for model_type dbrx)",
                         config_error);
    CHECK(field_of([&] { read_hf_config(cfg); }) == "ffn_config.moe_top_k");
    cfg.erase("ffn_config");
    CHECK(field_of([&] { read_hf_config(cfg); }) == "ffn_config");
  }
  SUBCASE("a missing field of Llama-4's text_config") {
    json cfg = fixture_json("Llama-4-Scout-17B-16E");
    cfg["text_config"].erase("num_hidden_layers");
    CHECK(field_of([&] { read_hf_config(cfg); }) == "text_config.num_hidden_layers");
  }
  SUBCASE("a field of the wrong type") {
    json cfg = fixture_json("Mixtral-8x7B");
    cfg["num_hidden_layers"] = "32";
    CHECK_THROWS_WITH_AS(read_hf_config(cfg),
                         "[strata.hf_config] num_hidden_layers must be an integer in [1, 1024] "
                         "(strata::limits().layers), got \"32\"",
                         config_error);
    cfg["num_hidden_layers"] = 32.5;
    CHECK(field_of([&] { read_hf_config(cfg); }) == "num_hidden_layers");
    cfg["num_hidden_layers"] = 32;
    cfg["tie_word_embeddings"] = "no";
    CHECK(field_of([&] { read_hf_config(cfg); }) == "tie_word_embeddings");
    cfg = fixture_json("DBRX");
    cfg["attn_config"] = 8;
    CHECK(field_of([&] { read_hf_config(cfg); }) == "attn_config");
  }
  SUBCASE("a value out of range") {
    json cfg = fixture_json("Mixtral-8x7B");
    cfg["num_local_experts"] = 0;
    CHECK(field_of([&] { read_hf_config(cfg); }) == "num_local_experts");
    cfg["num_local_experts"] = 8;
    cfg["vocab_size"] = 4294967296LL;
    CHECK(field_of([&] { read_hf_config(cfg); }) == "vocab_size");
  }
  SUBCASE("a model that fails validate is reported under the JSON key it came from") {
    json cfg = fixture_json("Mixtral-8x7B");
    cfg["num_key_value_heads"] = 7;
    CHECK(field_of([&] { read_hf_config(cfg); }) == "num_key_value_heads");
    CHECK(contains(message_of([&] { read_hf_config(cfg); }), "kv_heads must be a divisor of heads, got 7"));
    cfg = fixture_json("DBRX");
    cfg["ffn_config"]["moe_top_k"] = 17;
    CHECK(field_of([&] { read_hf_config(cfg); }) == "ffn_config.moe_top_k");
  }
  SUBCASE("a root that is not an object") {
    CHECK(field_of([] { read_hf_config(json::array()); }).empty());
  }
}

TEST_CASE("errors from a file name the file") {
  SUBCASE("a bad key in a file") {
    json cfg = fixture_json("DBRX");
    cfg["ffn_config"].erase("moe_top_k");
    const temp_config t("strata_bad_dbrx.config.json", cfg.dump(2));
    const std::string what = message_of([&] { load_hf_config(t.path.string()); });
    CHECK(what == "[strata.hf_config] " + t.path.string() +
                      ": ffn_config.moe_top_k is missing (required for model_type dbrx)");
    CHECK(field_of([&] { load_hf_config(t.path.string()); }) == "ffn_config.moe_top_k");
  }
  SUBCASE("a file that does not exist") {
    const std::string path = k_hf_dir + "no-such-model.config.json";
    CHECK(message_of([&] { load_hf_config(path); }) ==
          "[strata.file] config.json " + detail::quoted_path(path) + " cannot be opened: No such file or directory");
    CHECK(field_of([&] { load_hf_config(path); }) == "config.json");
  }
  SUBCASE("a file that is not JSON") {
    const temp_config t("strata_not_json.config.json", "{\"model_type\": ");
    const std::string what = message_of([&] { load_hf_config(t.path.string()); });
    // The JSON path where parsing stopped is named too.
    CHECK(contains(what, "[strata.hf_config] " + t.path.string() + ": model_type: is not valid JSON"));
  }
}

// ---------------------------------------------------------------------------------------------
// Hardening: every integer is range-checked before arithmetic (strata/core/limits.hpp).

TEST_CASE("every dimension near INT_MAX is rejected naming its key and the limit") {
  struct row {
    const char* preset;
    const char* key;
    const char* limit;
  };
  for (const row& r : {row{"Mixtral-8x7B", "num_local_experts", "experts"},
                       row{"Mixtral-8x7B", "num_hidden_layers", "layers"},
                       row{"Mixtral-8x7B", "hidden_size", "hidden"},
                       row{"Mixtral-8x7B", "intermediate_size", "ffn"},
                       row{"Mixtral-8x7B", "num_attention_heads", "heads"},
                       row{"Mixtral-8x7B", "num_key_value_heads", "heads"},
                       row{"Mixtral-8x7B", "vocab_size", "vocab"},
                       row{"Mixtral-8x7B", "num_experts_per_tok", "experts"},
                       row{"DeepSeek-V3", "kv_lora_rank", "rank"},
                       row{"DeepSeek-V3", "q_lora_rank", "rank"},
                       row{"DeepSeek-V3", "qk_rope_head_dim", "head_dim"},
                       row{"DeepSeek-V3", "qk_nope_head_dim", "head_dim"},
                       row{"DeepSeek-V3", "v_head_dim", "head_dim"},
                       row{"DeepSeek-V3", "moe_intermediate_size", "ffn"},
                       row{"DeepSeek-V3", "n_shared_experts", "experts"},
                       row{"DeepSeek-V3", "first_k_dense_replace", "layers"},
                       row{"DeepSeek-V3", "moe_layer_freq", "layers"},
                       row{"Qwen1.5-MoE-A2.7B", "decoder_sparse_step", "layers"},
                       row{"Qwen1.5-MoE-A2.7B", "shared_expert_intermediate_size", "ffn"}}) {
    CAPTURE(r.key);
    json cfg = fixture_json(r.preset);
    cfg[r.key] = 2147483647;
    const std::string what = message_of([&] { read_hf_config(cfg); });
    CHECK(contains(what, std::string(r.key) + " must be an integer in ["));
    CHECK(contains(what, std::string("(strata::limits().") + r.limit + "), got 2147483647"));
    CHECK(field_of([&] { read_hf_config(cfg); }) == r.key);
  }
  json cfg = fixture_json("Mixtral-8x7B");
  cfg["num_local_experts"] = 2147483647;
  CHECK(message_of([&] { read_hf_config(cfg); }) ==
        "[strata.hf_config] num_local_experts must be an integer in [1, 65536] (strata::limits().experts), got "
        "2147483647");
  json dbrx = fixture_json("DBRX");
  dbrx["ffn_config"]["moe_num_experts"] = 4294967296LL;
  CHECK(field_of([&] { read_hf_config(dbrx); }) == "ffn_config.moe_num_experts");
  json llama = fixture_json("Llama-4-Scout-17B-16E");
  llama["text_config"]["num_hidden_layers"] = 1000000;
  CHECK(field_of([&] { read_hf_config(llama); }) == "text_config.num_hidden_layers");
}

TEST_CASE("dimensions within the limits whose parameter count overflows 64 bits are rejected") {
  json cfg = fixture_json("Mixtral-8x7B");
  // 3 · 2^17 · 2^20 weights per expert · 65536 experts · 1024 layers = 3 · 2^63.
  cfg["hidden_size"] = 131072;
  cfg["num_attention_heads"] = 128;
  cfg["num_key_value_heads"] = 128;
  cfg["head_dim"] = 1024;
  cfg["intermediate_size"] = 1048576;
  cfg["num_local_experts"] = 65536;
  cfg["num_hidden_layers"] = 1024;
  const std::string what = message_of([&] { read_hf_config(cfg); });
  CHECK(contains(what, "overflows a 64-bit integer"));
  CHECK(contains(what, "[strata.hf_config] num_hidden_layers (model field layers): "));
  cfg["num_hidden_layers"] = 32;  // 3 · 2^53 · 32 < 2^63: fits, and counts exactly
  const model m = read_hf_config(cfg);
  CHECK(count_params(m).per_expert == 3 * (std::int64_t{1} << 37));
}

TEST_CASE("hostile config files: deep nesting, numbers beyond a double, huge layer lists") {
  SUBCASE("a config nested 100 000 deep") {
    const temp_config t("strata_deep.config.json", "{\"model_type\": " + std::string(100000, '[') +
                                                       std::string(100000, ']') + "}");
    const std::string what = message_of([&] { load_hf_config(t.path.string()); });
    CHECK(contains(what, "[strata.hf_config] " + t.path.string() + ": model_type"));
    CHECK(contains(what, "JSON nested deeper than 64 levels (the limit strata::limits().json_depth)"));
  }
  SUBCASE("a number too large for a double names the file and the key") {
    const temp_config t("strata_huge.config.json", "{\"model_type\": \"mixtral\", \"hidden_size\": 1e999}");
    const std::string what = message_of([&] { load_hf_config(t.path.string()); });
    CHECK(contains(what, "[strata.hf_config] " + t.path.string() + ": hidden_size: number out of range"));
    CHECK(field_of([&] { load_hf_config(t.path.string()); }) == "hidden_size");
  }
  SUBCASE("a value quoted in a message is short") {
    json cfg = fixture_json("Mixtral-8x7B");
    json big = json::array();
    for (int i = 0; i < 100000; ++i) big.push_back(i);
    cfg["num_hidden_layers"] = big;
    CHECK(message_of([&] { read_hf_config(cfg); }) ==
          "[strata.hf_config] num_hidden_layers must be an integer in [1, 1024] (strata::limits().layers), got an "
          "array of 100000 elements");
  }
}

TEST_CASE("load_hf_config opens its file under the opening rule (core/files.hpp)") {
  strata_test::check_opening_rule([](const std::string& p) { (void)load_hf_config(p); }, "config.json", "config.json",
                                  &input_limits::json_file_bytes, "json_file_bytes", fixture_json("Mixtral-8x7B").dump(2));
}

TEST_CASE("a config file name of invalid UTF-8 (bytes FF FE) gives a model whose JSON is valid UTF-8") {
  json cfg = fixture_json("Mixtral-8x7B");
  cfg.erase("_name_or_path");
  const strata_test::scratch_dir d("hf_config");
  const model m = load_hf_config(d.write("bad\xFF\xFE.config.json", cfg.dump(2)));
  CHECK(m.name == "bad\xFF\xFE");
  CHECK_THROWS_AS((void)json(m.name).dump(), json::type_error);  // nlohmann's own dump: type_error.316
  for (const json& j : {json(m), json{{"model", m.name}}}) {
    const std::string out = dump_json(j, 2);
    CHECK(out.find("bad\xEF\xBF\xBD") != std::string::npos);  // U+FFFD in place of the bytes
    json back;
    CHECK_NOTHROW(back = json::parse(out));  // the parser accepts only valid UTF-8
    CHECK(back.is_object());
  }
}

TEST_CASE("the new families' parameter counts match their model cards") {
  // Each card figure is compared like with like; a figure given to two significant figures is
  // checked within its rounding (half a unit of its last digit) where that is wider than 1 %.
  SUBCASE("Llama-3.1-8B: 8 B (Llama 3.1 model card), embeddings included") {
    const auto c = count_params(load_hf_config(fixture_path("Llama-3.1-8B")));
    CHECK(c.total == 8'030'261'248);
    CHECK(std::abs(deviation(c.total, 8.0e9)) < 0.01);
    CHECK(c.active == c.total);
  }
  SUBCASE("Qwen3-8B: 8.2 B total, 6.95 B non-embedding (Qwen3-8B model card)") {
    const auto c = count_params(load_hf_config(fixture_path("Qwen3-8B")));
    CHECK(std::abs(deviation(c.total, 8.2e9)) < 0.01);
    CHECK(std::abs(deviation(c.total - c.embedding, 6.95e9)) < 0.01);
  }
  SUBCASE("Qwen3-30B-A3B: 30.5 B total, 29.9 B non-embedding, 3.3 B activated (model card)") {
    const auto c = count_params(load_hf_config(fixture_path("Qwen3-30B-A3B")));
    CHECK(std::abs(deviation(c.total, 30.5e9)) < 0.01);
    CHECK(std::abs(deviation(c.total - c.embedding, 29.9e9)) < 0.01);
    // 3.353 B with both embeddings: +1.6 % of the card's two-figure 3.3 B, within 2 %.
    CHECK(std::abs(deviation(c.active, 3.3e9)) < 0.02);
  }
  SUBCASE("gpt-oss-20b: 20.91 B total, 3.61 B active without the input embedding (arXiv:2508.10925 Table 1)") {
    const model m = load_hf_config(fixture_path("gpt-oss-20b"));
    const auto c = count_params(m);
    CHECK(std::abs(deviation(c.total, 20.91e9)) < 0.01);
    const std::int64_t input_embedding = std::int64_t(m.vocab) * m.hidden;
    CHECK(std::abs(deviation(c.active - input_embedding, 3.61e9)) < 0.01);
  }
  SUBCASE("GLM-4.5-Air: 106 B total, 12 B active (model card), without the MTP layer") {
    const auto c = count_params(load_hf_config(fixture_path("GLM-4.5-Air")));
    CHECK(std::abs(deviation(c.total, 106e9)) < 0.01);
    // Without either embedding: 12.18 B, within the rounding of the card's 12 B (±0.5 B).
    CHECK(std::abs(double(c.active - c.embedding) - 12e9) < 0.5e9);
  }
  SUBCASE("Mistral-Nemo-Base-2407: 12 B (Mistral AI), within the rounding of its two figures") {
    // 12.248 B: +2.1 % of the stated 12 B, which has two significant figures (±0.5 B).
    const auto c = count_params(load_hf_config(fixture_path("Mistral-Nemo-Base-2407")));
    CHECK(std::abs(double(c.total) - 12e9) < 0.5e9);
  }
}

TEST_CASE("gpt-oss-20b at 128k context holds a window of 128 tokens on its sliding layers: KV bytes by hand") {
  const model m = load_hf_config(fixture_path("gpt-oss-20b"));
  // Hand count from the config: 24 layers alternate sliding_attention (even) and full_attention
  // (odd); sliding_window 128; 8 KV heads of head_dim 64; K and V in BF16 (2 B).
  //   per token per layer: 2 (K, V) · 8 · 64 · 2 B = 2048 B
  //   full layers:    12 · 131072 tokens · 2048 B = 3 221 225 472 B
  //   sliding layers: 12 ·    128 tokens · 2048 B =     3 145 728 B
  //   one sequence:                                 3 224 371 200 B
  CHECK(kv_bytes_per_token_layer(m).in(units::B) == 2048.0);
  CHECK(m.sliding_window == 128);
  CHECK(m.is_sliding_layer(0));
  CHECK_FALSE(m.is_sliding_layer(1));
  CHECK(kv_bytes_per_sequence(m, 131072.0).in(units::B) == 3'224'371'200.0);
  // Without the windows every layer would hold the whole context: 24 · 131072 · 2048 B.
  model full = m;
  full.layer_attention.clear();
  full.sliding_window = 0;
  CHECK(kv_bytes_per_sequence(full, 131072.0).in(units::B) == 6'442'450'944.0);
}

TEST_CASE("gpt-oss-20b stores its experts in MXFP4 (4.25 bits) and everything else in BF16") {
  const model m = load_hf_config(fixture_path("gpt-oss-20b"));
  CHECK(m.expert_format == mxfp4_format());
  CHECK(storage_bits(m, m.expert_format) == 4.25);
  CHECK(storage_bits(m, m.attention_format) == 16.0);
  CHECK(m.attention_sinks);
  CHECK(m.qkv_bias);
  CHECK(m.o_bias);
  const auto c = count_params(m);
  const double experts = double(c.per_expert) * m.experts * m.moe_layers();
  const double rest = double(c.total) - experts;
  CHECK(weight_storage_bytes(m).in(units::B) == doctest::Approx(experts * 4.25 / 8.0 + rest * 2.0));
  // About 13.75 GB: the released checkpoint's ~13 GB of safetensors.
  CHECK(weight_storage_bytes(m).in(units::GB) == doctest::Approx(13.75).epsilon(0.01));
}

TEST_CASE("a layer_types entry for an unmodelled mechanism is refused, naming the mechanism and the key") {
  json cfg = fixture_json("gpt-oss-20b");
  cfg["layer_types"][3] = "linear_attention";
  CHECK(field_of([&] { (void)read_hf_config(cfg); }) == "layer_types");
  const std::string what = message_of([&] { (void)read_hf_config(cfg); });
  CHECK(contains(what, "layer_types[3] \"linear_attention\" is not supported: linear attention layers are not modelled"));
  cfg["layer_types"][3] = "sparse_attention";
  CHECK(contains(message_of([&] { (void)read_hf_config(cfg); }), "sparse attention layers are not modelled"));
  SUBCASE("a layer_types list of the wrong length is an error naming it") {
    cfg["layer_types"] = json::array({"full_attention"});
    CHECK(field_of([&] { (void)read_hf_config(cfg); }) == "layer_types");
  }
  SUBCASE("sliding layers without a window are an error naming sliding_window") {
    cfg["layer_types"][3] = "sliding_attention";
    cfg["sliding_window"] = nullptr;
    CHECK(field_of([&] { (void)read_hf_config(cfg); }) == "sliding_window");
  }
}

TEST_CASE("a config key the reader ignores that may change cost comes back as a warning naming it") {
  const auto glm = load_hf_config_with_warnings(fixture_path("GLM-4.5-Air"));
  REQUIRE(glm.warnings.size() == 1);
  CHECK(glm.warnings[0].key == "num_nextn_predict_layers");
  CHECK(contains(glm.warnings[0].message, "num_nextn_predict_layers is ignored: multi-token-prediction layers"));
  CHECK(contains(glm.warnings[0].message, "glm-4.5-air.config.json"));
  json cfg = fixture_json("Llama-3.1-8B");
  CHECK(read_hf_config_with_warnings(cfg).warnings.empty());  // every key read or cost-neutral
  cfg["num_mtp_modules"] = 2;
  const auto r = read_hf_config_with_warnings(cfg);
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0].key == "num_mtp_modules");
  CHECK(contains(r.warnings[0].message, "num_mtp_modules is ignored: the reader does not model it"));
  cfg["num_mtp_modules"] = 0;  // off: no cost, no warning
  CHECK(read_hf_config_with_warnings(cfg).warnings.empty());
  CHECK(read_hf_config(cfg) == read_hf_config_with_warnings(cfg).m);
}

TEST_CASE("windows: Mistral's sliding_window slides every layer, Qwen's only with use_sliding_window") {
  json mistral = fixture_json("Mistral-Nemo-Base-2407");
  CHECK(read_hf_config(mistral).sliding_window == 0);
  mistral["sliding_window"] = 4096;
  const model slid = read_hf_config(mistral);
  CHECK(slid.sliding_window == 4096);
  CHECK(slid.layer_attention.empty());
  for (int l = 0; l < slid.layers; ++l) CHECK(slid.is_sliding_layer(l));
  json qwen = fixture_json("Qwen3-8B");
  qwen["sliding_window"] = 4096;
  CHECK(read_hf_config(qwen).sliding_window == 0);  // use_sliding_window false
  qwen["use_sliding_window"] = true;
  qwen["max_window_layers"] = 30;
  const model q = read_hf_config(qwen);
  CHECK_FALSE(q.is_sliding_layer(29));
  CHECK(q.is_sliding_layer(30));
  CHECK(q.is_sliding_layer(35));
}

TEST_CASE("kimi_k2 is read as the DeepSeek-V3 layout") {
  json cfg = fixture_json("DeepSeek-V3");
  cfg["model_type"] = "kimi_k2";
  model k = read_hf_config(cfg);
  CHECK(k.family == "kimi_k2");
  k.family = "deepseek_v3";
  k.name = "DeepSeek-V3";
  CHECK(k == preset("DeepSeek-V3"));
}

TEST_CASE("attention_bias means q, k, v biases for GLM-4.5 and q, k, v, o biases for Llama") {
  const model glm = load_hf_config(fixture_path("GLM-4.5-Air"));
  CHECK(glm.qkv_bias);
  CHECK_FALSE(glm.o_bias);
  json llama = fixture_json("Llama-3.1-8B");
  llama["attention_bias"] = true;
  const model lb = read_hf_config(llama);
  CHECK(lb.qkv_bias);
  CHECK(lb.o_bias);
  CHECK(count_params(lb).total - count_params(preset("Llama-3.1-8B")).total == 32 * (4096 + 2 * 1024 + 4096));
  llama["mlp_bias"] = true;
  CHECK(field_of([&] { (void)read_hf_config(llama); }) == "mlp_bias");
}

TEST_CASE("keys that leave a model with routed experts no MoE layer are refused naming the key, not a later field") {
  SUBCASE("glm4_moe first_k_dense_replace beyond num_hidden_layers") {
    json cfg = fixture_json("GLM-4.5-Air");
    const int layers = cfg.at("num_hidden_layers").get<int>();
    cfg["first_k_dense_replace"] = layers + 1;
    CHECK(field_of([&] { read_hf_config(cfg); }) == "first_k_dense_replace");
    const std::string what = message_of([&] { read_hf_config(cfg); });
    CHECK(contains(what, "first_k_dense_replace must be below num_hidden_layers (" + std::to_string(layers) +
                             ") in a model with routed experts (n_routed_experts 128): no MoE layer would be left, got " +
                             std::to_string(layers + 1)));
    cfg["first_k_dense_replace"] = layers;  // every layer dense: also none left
    CHECK(field_of([&] { read_hf_config(cfg); }) == "first_k_dense_replace");
    cfg["first_k_dense_replace"] = layers - 1;  // the last layer is MoE
    CHECK(read_hf_config(cfg).moe_layers() == 1);
  }
  SUBCASE("a MoE step past the layers") {
    json ds = fixture_json("DeepSeekMoE-16B");
    ds["moe_layer_freq"] = 1000;  // layer i is MoE iff i >= 1 and i % 1000 == 0
    CHECK(field_of([&] { read_hf_config(ds); }) == "moe_layer_freq");
    CHECK(contains(message_of([&] { read_hf_config(ds); }), "moe_layer_freq 1000 leaves no MoE layer among num_hidden_layers (28), first_k_dense_replace 1"));
    json qw = fixture_json("Qwen1.5-MoE-A2.7B");
    qw["decoder_sparse_step"] = 100;
    CHECK(field_of([&] { read_hf_config(qw); }) == "decoder_sparse_step");
    json l4 = fixture_json("Llama-4-Scout-17B-16E");
    l4["text_config"]["interleave_moe_layer_step"] = 100;
    l4["text_config"].erase("moe_layers");
    CHECK(field_of([&] { read_hf_config(l4); }) == "text_config.interleave_moe_layer_step");
  }
  SUBCASE("mlp_only_layers listing every layer") {
    json cfg = fixture_json("Qwen1.5-MoE-A2.7B");
    json all = json::array();
    for (int i = 0; i < cfg.at("num_hidden_layers").get<int>(); ++i) all.push_back(i);
    cfg["mlp_only_layers"] = all;
    CHECK(field_of([&] { read_hf_config(cfg); }) == "mlp_only_layers");
  }
  SUBCASE("a model description has the same rule, naming its own field") {
    model m = preset("Mixtral-8x7B");
    m.first_dense_layers = m.layers;
    m.dense_ffn = 14336;
    CHECK_THROWS_WITH_AS(validate(m), "[strata.model] first_dense_layers must be below layers (32) in a model with routed experts, got 32", config_error);
    m.first_dense_layers = 0;
    m.moe_layer_step = 64;
    m.moe_layer_offset = 1;
    CHECK_THROWS_WITH_AS(validate(m), doctest::Contains("moe_layer_step must be a step that leaves a MoE layer"), config_error);
  }
}
