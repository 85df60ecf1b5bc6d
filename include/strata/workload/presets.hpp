// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Seventeen published models (thirteen MoE, four dense) as `strata::model` presets, written out as
/// data from each model's Hugging Face `config.json` (the same files, or copies of them, are the
/// fixtures in `tests/data/hf/`; the tests check that each preset equals what `read_hf_config`
/// reads from its fixture, and that its parameter count matches the published figure).
///
/// The presets are `inline` functions rather than `constexpr` constants because `model` holds
/// `std::string`s; `validate` runs on every preset in `tests/workload/presets_test.cpp` instead of a
/// `static_assert`, since `validate` formats its message at run time.
///
/// Example:
/// \code
///   const strata::model m = strata::preset("deepseek_v3");    // case-insensitive, - = _
///   const strata::model same = strata::presets::deepseek_v3();
/// \endcode

#include <array>        // std::array
#include <cctype>       // std::tolower
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::pair
#include <vector>       // std::vector

#include "strata/core/error.hpp"
#include "strata/workload/model.hpp"

namespace strata {
inline namespace v0 {
namespace presets {

/// OLMoE-1B-7B (September 2024): 16 layers, 64 experts of 1024, top-8, QK norm.
/// Source: allenai/OLMoE-1B-7B-0924 config.json,
/// https://huggingface.co/allenai/OLMoE-1B-7B-0924/blob/c1b31da0c8e885c688902634d444982ca419aa33/config.json
/// [Muennighoff'24, arXiv:2409.02060: 6.9 B total, 1.3 B active].
inline model olmoe_1b_7b_0924() {
  return {.name = "OLMoE-1B-7B-0924", .family = "olmoe", .layers = 16, .hidden = 2048, .heads = 16,
          .kv_heads = 16, .head_dim = 128, .mla = {}, .vocab = 50304, .tie_embeddings = false,
          .qkv_bias = false, .qk_norm = true, .ffn = ffn_kind::swiglu, .dense_ffn = 0,
          .first_dense_layers = 0, .moe_layer_step = 1, .moe_layer_offset = 0, .experts = 64,
          .top_k = 8, .expert_ffn = 1024, .shared_experts = 0, .shared_expert_ffn = 0,
          .shared_expert_gate = false, .weight_bits = 16, .kv_bits = 16};
}

/// Mixtral-8x7B: 32 layers, GQA 32/8, 8 experts of 14336, top-2.
/// Source: mistralai/Mixtral-8x7B-Instruct-v0.1 config.json (same architecture as v0.1 base),
/// https://huggingface.co/mistralai/Mixtral-8x7B-Instruct-v0.1/blob/eba92302a2861cdc0098cc54bc9f17cb2c47eb61/config.json
/// [Mistral AI, "Mixtral of experts", Dec 2023: 46.7 B total, 12.9 B active].
inline model mixtral_8x7b() {
  return {.name = "Mixtral-8x7B", .family = "mixtral", .layers = 32, .hidden = 4096, .heads = 32,
          .kv_heads = 8, .head_dim = 128, .mla = {}, .vocab = 32000, .tie_embeddings = false,
          .qkv_bias = false, .qk_norm = false, .ffn = ffn_kind::swiglu, .dense_ffn = 0,
          .first_dense_layers = 0, .moe_layer_step = 1, .moe_layer_offset = 0, .experts = 8,
          .top_k = 2, .expert_ffn = 14336, .shared_experts = 0, .shared_expert_ffn = 0,
          .shared_expert_gate = false, .weight_bits = 16, .kv_bits = 16};
}

/// Mixtral-8x22B: 56 layers, GQA 48/8, 8 experts of 16384, top-2.
/// Source: mistral-community/Mixtral-8x22B-v0.1 config.json (Hugging Face staff upload of the
/// release), https://huggingface.co/mistral-community/Mixtral-8x22B-v0.1/blob/refs%2Fpr%2F19/config.json
/// (commit 42a1ba7) [Mistral AI, "Cheaper, Better, Faster, Stronger", Apr 2024: 141 B total, 39 B active].
inline model mixtral_8x22b() {
  return {.name = "Mixtral-8x22B", .family = "mixtral", .layers = 56, .hidden = 6144, .heads = 48,
          .kv_heads = 8, .head_dim = 128, .mla = {}, .vocab = 32000, .tie_embeddings = false,
          .qkv_bias = false, .qk_norm = false, .ffn = ffn_kind::swiglu, .dense_ffn = 0,
          .first_dense_layers = 0, .moe_layer_step = 1, .moe_layer_offset = 0, .experts = 8,
          .top_k = 2, .expert_ffn = 16384, .shared_experts = 0, .shared_expert_ffn = 0,
          .shared_expert_gate = false, .weight_bits = 16, .kv_bits = 16};
}

/// Qwen2.5-32B (dense): 64 layers, GQA 40/8, FFN 27648, QKV bias.
/// Source: Qwen/Qwen2.5-32B config.json, https://huggingface.co/Qwen/Qwen2.5-32B/blob/main/config.json
/// [Qwen2.5 technical report, arXiv:2412.15115; 32.76 B weights].
inline model qwen2_5_32b() {
  return {.name = "Qwen2.5-32B", .family = "qwen2", .layers = 64, .hidden = 5120, .heads = 40,
          .kv_heads = 8, .head_dim = 128, .mla = {}, .vocab = 152064, .tie_embeddings = false,
          .qkv_bias = true, .qk_norm = false, .ffn = ffn_kind::swiglu, .dense_ffn = 27648,
          .first_dense_layers = 0, .moe_layer_step = 1, .moe_layer_offset = 0, .experts = 0,
          .top_k = 0, .expert_ffn = 0, .shared_experts = 0, .shared_expert_ffn = 0,
          .shared_expert_gate = false, .weight_bits = 16, .kv_bits = 16};
}

/// Llama-4-Scout-17B-16E (text model): 48 layers, all MoE, 16 experts of 8192, top-1, one shared
/// expert of 8192, GQA 40/8, weightless L2 QK norm.
/// Source: meta-llama/Llama-4-Scout-17B-16E config.json (text_config),
/// https://huggingface.co/meta-llama/Llama-4-Scout-17B-16E, and the transformers Llama4TextConfig
/// defaults documented for that checkpoint (huggingface/transformers
/// src/transformers/models/llama4/configuration_llama4.py @ 008e574)
/// [Meta, "The Llama 4 herd", Apr 2025: 109 B total with the vision encoder, 17 B active].
inline model llama4_scout_17b_16e() {
  return {.name = "Llama-4-Scout-17B-16E", .family = "llama4", .layers = 48, .hidden = 5120,
          .heads = 40, .kv_heads = 8, .head_dim = 128, .mla = {}, .vocab = 202048,
          .tie_embeddings = false, .qkv_bias = false, .qk_norm = true, .ffn = ffn_kind::swiglu,
          .dense_ffn = 16384, .first_dense_layers = 0, .moe_layer_step = 1, .moe_layer_offset = 1,
          .experts = 16, .top_k = 1, .expert_ffn = 8192, .shared_experts = 1,
          .shared_expert_ffn = 8192, .shared_expert_gate = false, .weight_bits = 16, .kv_bits = 16};
}

/// DBRX: 40 layers, GQA 48/8, 16 GLU experts of 10752, top-4.
/// Source: databricks/dbrx-instruct config.json (same architecture as dbrx-base), as copied in
/// https://huggingface.co/SinclairSchneider/dbrx-instruct-quantization-fixed/blame/731fe6172878c438b7062514e8fbf7f9751801a7/config.json
/// [Databricks, "Introducing DBRX", Mar 2024: 132 B total, 36 B active].
inline model dbrx() {
  return {.name = "DBRX", .family = "dbrx", .layers = 40, .hidden = 6144, .heads = 48,
          .kv_heads = 8, .head_dim = 128, .mla = {}, .vocab = 100352, .tie_embeddings = false,
          .qkv_bias = false, .qk_norm = false, .ffn = ffn_kind::swiglu, .dense_ffn = 0,
          .first_dense_layers = 0, .moe_layer_step = 1, .moe_layer_offset = 0, .experts = 16,
          .top_k = 4, .expert_ffn = 10752, .shared_experts = 0, .shared_expert_ffn = 0,
          .shared_expert_gate = false, .weight_bits = 16, .kv_bits = 16};
}

/// DeepSeek-V2-Lite: 27 layers (layer 0 dense), MLA (kv_lora 512, no query compression), 64
/// routed experts of 1408, top-6, 2 shared experts.
/// Source: deepseek-ai/DeepSeek-V2-Lite config.json, https://huggingface.co/deepseek-ai/DeepSeek-V2-Lite,
/// cross-checked with deepseek-ai/DeepSeek-V3 inference/configs/config_16B.json @ 9b4e978
/// [DeepSeek-AI, arXiv:2405.04434 App. B: 15.7 B total, 2.4 B active].
inline model deepseek_v2_lite() {
  return {.name = "DeepSeek-V2-Lite", .family = "deepseek_v2", .layers = 27, .hidden = 2048,
          .heads = 16, .kv_heads = 16, .head_dim = 0,
          .mla = {.kv_lora_rank = 512, .q_lora_rank = 0, .qk_rope_head_dim = 64,
                  .qk_nope_head_dim = 128, .v_head_dim = 128},
          .vocab = 102400, .tie_embeddings = false, .qkv_bias = false, .qk_norm = false,
          .ffn = ffn_kind::swiglu, .dense_ffn = 10944, .first_dense_layers = 1, .moe_layer_step = 1,
          .moe_layer_offset = 0, .experts = 64, .top_k = 6, .expert_ffn = 1408, .shared_experts = 2,
          .shared_expert_ffn = 1408, .shared_expert_gate = false, .weight_bits = 16, .kv_bits = 16};
}

/// DeepSeek-V2: 60 layers (layer 0 dense), MLA (kv_lora 512, q_lora 1536), 160 routed experts of
/// 1536, top-6, 2 shared experts.
/// Source: deepseek-ai/DeepSeek-V2 config.json, https://huggingface.co/deepseek-ai/DeepSeek-V2
/// (commit 4c2b2d1, renamed to deepseek_v2 as in DeepSeek-V2-Chat commit 2c190bb), cross-checked with
/// deepseek-ai/DeepSeek-V3 inference/configs/config_236B.json @ 9b4e978
/// [DeepSeek-AI, arXiv:2405.04434: 236 B total, 21 B active].
inline model deepseek_v2() {
  return {.name = "DeepSeek-V2", .family = "deepseek_v2", .layers = 60, .hidden = 5120,
          .heads = 128, .kv_heads = 128, .head_dim = 0,
          .mla = {.kv_lora_rank = 512, .q_lora_rank = 1536, .qk_rope_head_dim = 64,
                  .qk_nope_head_dim = 128, .v_head_dim = 128},
          .vocab = 102400, .tie_embeddings = false, .qkv_bias = false, .qk_norm = false,
          .ffn = ffn_kind::swiglu, .dense_ffn = 12288, .first_dense_layers = 1, .moe_layer_step = 1,
          .moe_layer_offset = 0, .experts = 160, .top_k = 6, .expert_ffn = 1536, .shared_experts = 2,
          .shared_expert_ffn = 1536, .shared_expert_gate = false, .weight_bits = 16, .kv_bits = 16};
}

/// DeepSeek-V3: 61 layers (layers 0-2 dense), MLA (kv_lora 512, q_lora 1536), 256 routed experts
/// of 2048, top-8, 1 shared expert; FP8 (e4m3, 128×128 blocks) weights as released.
/// Source: deepseek-ai/DeepSeek-V3 config.json, https://huggingface.co/deepseek-ai/DeepSeek-V3,
/// cross-checked with https://github.com/deepseek-ai/DeepSeek-V3 inference/configs/config_671B.json @ 9b4e978
/// [DeepSeek-AI, arXiv:2412.19437: 671 B total, 37 B active; the multi-token-prediction module is
/// not part of this preset].
inline model deepseek_v3() {
  return {.name = "DeepSeek-V3", .family = "deepseek_v3", .layers = 61, .hidden = 7168,
          .heads = 128, .kv_heads = 128, .head_dim = 0,
          .mla = {.kv_lora_rank = 512, .q_lora_rank = 1536, .qk_rope_head_dim = 64,
                  .qk_nope_head_dim = 128, .v_head_dim = 128},
          .vocab = 129280, .tie_embeddings = false, .qkv_bias = false, .qk_norm = false,
          .ffn = ffn_kind::swiglu, .dense_ffn = 18432, .first_dense_layers = 3, .moe_layer_step = 1,
          .moe_layer_offset = 0, .experts = 256, .top_k = 8, .expert_ffn = 2048, .shared_experts = 1,
          .shared_expert_ffn = 2048, .shared_expert_gate = false, .weight_bits = 8, .kv_bits = 16};
}

/// DeepSeekMoE-16B: 28 layers (layer 0 dense), MHA 16 heads, 64 routed experts of 1408, top-6,
/// 2 shared experts.
/// Source: deepseek-ai/deepseek-moe-16b-base config.json,
/// https://huggingface.co/deepseek-ai/deepseek-moe-16b-base/blob/main/config.json (architecture
/// identical to deepseek-moe-16b-chat @ 57706ce) [Dai'24, arXiv:2401.06066: 16.4 B total].
inline model deepseek_moe_16b() {
  return {.name = "DeepSeekMoE-16B", .family = "deepseek", .layers = 28, .hidden = 2048,
          .heads = 16, .kv_heads = 16, .head_dim = 128, .mla = {}, .vocab = 102400,
          .tie_embeddings = false, .qkv_bias = false, .qk_norm = false, .ffn = ffn_kind::swiglu,
          .dense_ffn = 10944, .first_dense_layers = 1, .moe_layer_step = 1, .moe_layer_offset = 0,
          .experts = 64, .top_k = 6, .expert_ffn = 1408, .shared_experts = 2,
          .shared_expert_ffn = 1408, .shared_expert_gate = false, .weight_bits = 16, .kv_bits = 16};
}

/// Qwen1.5-MoE-A2.7B: 24 layers, all MoE, 60 experts of 1408, top-4, one sigmoid-gated shared
/// expert of 5632 (= 4 × 1408), QKV bias.
/// Source: Qwen/Qwen1.5-MoE-A2.7B config.json, https://huggingface.co/Qwen/Qwen1.5-MoE-A2.7B/blob/main/config.json
/// [Qwen team, "Qwen1.5-MoE", Mar 2024: 14.3 B total, 2.7 B active].
inline model qwen1_5_moe_a2_7b() {
  return {.name = "Qwen1.5-MoE-A2.7B", .family = "qwen2_moe", .layers = 24, .hidden = 2048,
          .heads = 16, .kv_heads = 16, .head_dim = 128, .mla = {}, .vocab = 151936,
          .tie_embeddings = false, .qkv_bias = true, .qk_norm = false, .ffn = ffn_kind::swiglu,
          .dense_ffn = 5632, .first_dense_layers = 0, .moe_layer_step = 1, .moe_layer_offset = 1,
          .experts = 60, .top_k = 4, .expert_ffn = 1408, .shared_experts = 1,
          .shared_expert_ffn = 5632, .shared_expert_gate = true, .weight_bits = 16, .kv_bits = 16};
}

/// Llama-3.1-8B (Meta, July 2024): dense, 32 layers, GQA 32/8, FFN 14336, vocabulary 128256.
/// Source: meta-llama/Llama-3.1-8B config.json (verbatim copy in GitHub citsjtu2020/LLM-Prof
/// sglang/Model_Config.md) [Llama 3.1 model card: 8B parameters].
inline model llama3_1_8b() {
  return {.name = "Llama-3.1-8B", .family = "llama", .layers = 32, .hidden = 4096, .heads = 32, .kv_heads = 8,
          .head_dim = 128, .mla = {}, .vocab = 128256, .tie_embeddings = false, .qkv_bias = false,
          .qk_norm = false, .ffn = ffn_kind::swiglu, .dense_ffn = 14336, .first_dense_layers = 0,
          .moe_layer_step = 1, .moe_layer_offset = 0, .experts = 0, .top_k = 0, .expert_ffn = 0,
          .shared_experts = 0, .shared_expert_ffn = 0, .shared_expert_gate = false, .weight_bits = 16,
          .kv_bits = 16};
}

/// Mistral-Nemo-Base-2407 (Mistral AI and NVIDIA, July 2024): dense, 40 layers, GQA 32/8 of 128,
/// FFN 14336, vocabulary 131072 (Tekken), no sliding window.
/// Source: mistralai/Mistral-Nemo-Base-2407 config.json (transformers dump in GitHub
/// kevinstephano/thunder_model_blocks) [Mistral AI, "Mistral NeMo", July 2024: 12B parameters].
inline model mistral_nemo_base_2407() {
  return {.name = "Mistral-Nemo-Base-2407", .family = "mistral", .layers = 40, .hidden = 5120, .heads = 32,
          .kv_heads = 8, .head_dim = 128, .mla = {}, .vocab = 131072, .tie_embeddings = false, .qkv_bias = false,
          .qk_norm = false, .ffn = ffn_kind::swiglu, .dense_ffn = 14336, .first_dense_layers = 0,
          .moe_layer_step = 1, .moe_layer_offset = 0, .experts = 0, .top_k = 0, .expert_ffn = 0,
          .shared_experts = 0, .shared_expert_ffn = 0, .shared_expert_gate = false, .weight_bits = 16,
          .kv_bits = 16};
}

/// Qwen3-8B (Qwen, April 2025): dense, 36 layers, GQA 32/8 of 128, per-head QK norm, FFN 12288.
/// Source: Qwen/Qwen3-8B config.json (verbatim copy in GitHub citsjtu2020/LLM-Prof
/// sglang/Model_Config.md) [Qwen3-8B model card: 8.2B parameters, 6.95B non-embedding].
inline model qwen3_8b() {
  return {.name = "Qwen3-8B", .family = "qwen3", .layers = 36, .hidden = 4096, .heads = 32, .kv_heads = 8,
          .head_dim = 128, .mla = {}, .vocab = 151936, .tie_embeddings = false, .qkv_bias = false,
          .qk_norm = true, .ffn = ffn_kind::swiglu, .dense_ffn = 12288, .first_dense_layers = 0,
          .moe_layer_step = 1, .moe_layer_offset = 0, .experts = 0, .top_k = 0, .expert_ffn = 0,
          .shared_experts = 0, .shared_expert_ffn = 0, .shared_expert_gate = false, .weight_bits = 16,
          .kv_bits = 16};
}

/// Qwen3-30B-A3B (Qwen, April 2025): 48 MoE layers of 128 experts of 768, top-8, no shared
/// expert, GQA 32/4 of 128, per-head QK norm.
/// Source: Qwen/Qwen3-30B-A3B config.json (verbatim copy in GitHub citsjtu2020/LLM-Prof
/// sglang/Model_Config.md) [Qwen3-30B-A3B model card: 30.5B total, 3.3B activated].
inline model qwen3_30b_a3b() {
  return {.name = "Qwen3-30B-A3B", .family = "qwen3_moe", .layers = 48, .hidden = 2048, .heads = 32,
          .kv_heads = 4, .head_dim = 128, .mla = {}, .vocab = 151936, .tie_embeddings = false, .qkv_bias = false,
          .qk_norm = true, .ffn = ffn_kind::swiglu, .dense_ffn = 6144, .first_dense_layers = 0,
          .moe_layer_step = 1, .moe_layer_offset = 1, .experts = 128, .top_k = 8, .expert_ffn = 768,
          .shared_experts = 0, .shared_expert_ffn = 0, .shared_expert_gate = false, .weight_bits = 16,
          .kv_bits = 16};
}

/// gpt-oss-20b (OpenAI, August 2025): 24 MoE layers of 32 experts of 2880, top-4, with biases;
/// GQA 64/8 of 64 with q, k, v, o biases and one attention sink per head; layers alternate a
/// 128-token sliding window and full attention; experts in MXFP4 (4.25 bits), the rest BF16.
/// Source: openai/gpt-oss-20b config.json (see tests/data/hf/README.md) [gpt-oss model card,
/// arXiv:2508.10925, Table 1: 20.91B total, 3.61B active].
inline model gpt_oss_20b() {
  std::vector<attention_kind> kinds;
  kinds.reserve(24);
  for (int i = 0; i < 24; ++i) kinds.push_back(i % 2 == 0 ? attention_kind::sliding : attention_kind::full);
  return {.name = "gpt-oss-20b", .family = "gpt_oss", .layers = 24, .hidden = 2880, .heads = 64, .kv_heads = 8,
          .head_dim = 64, .mla = {}, .vocab = 201088, .tie_embeddings = false, .qkv_bias = true, .qk_norm = false,
          .ffn = ffn_kind::swiglu, .dense_ffn = 0, .first_dense_layers = 0, .moe_layer_step = 1,
          .moe_layer_offset = 0, .experts = 32, .top_k = 4, .expert_ffn = 2880, .shared_experts = 0,
          .shared_expert_ffn = 0, .shared_expert_gate = false, .weight_bits = 16, .kv_bits = 16,
          .sliding_window = 128, .layer_attention = kinds, .attention_sinks = true, .o_bias = true,
          .expert_bias = true, .expert_format = mxfp4_format(), .attention_format = {}, .embedding_format = {}};
}

/// GLM-4.5-Air (Zhipu AI / Z.ai, July 2025): 46 layers, the first dense (FFN 10944), then MoE of
/// 128 experts of 1408, top-8, one shared expert; 96 query heads of 128 over 8 KV heads, q, k, v
/// biases. Its one multi-token-prediction layer (num_nextn_predict_layers) is not modelled.
/// Source: zai-org/GLM-4.5-Air config.json (see tests/data/hf/README.md) [GLM-4.5-Air model card:
/// 106B total, 12B active].
inline model glm4_5_air() {
  return {.name = "GLM-4.5-Air", .family = "glm4_moe", .layers = 46, .hidden = 4096, .heads = 96, .kv_heads = 8,
          .head_dim = 128, .mla = {}, .vocab = 151552, .tie_embeddings = false, .qkv_bias = true,
          .qk_norm = false, .ffn = ffn_kind::swiglu, .dense_ffn = 10944, .first_dense_layers = 1,
          .moe_layer_step = 1, .moe_layer_offset = 0, .experts = 128, .top_k = 8, .expert_ffn = 1408,
          .shared_experts = 1, .shared_expert_ffn = 1408, .shared_expert_gate = false, .weight_bits = 16,
          .kv_bits = 16};
}

}  // namespace presets

namespace detail {

using preset_fn = model (*)();

/// Canonical names and makers, in the order `preset_names` lists them.
template <class = void>
inline const std::array<std::pair<std::string_view, preset_fn>, 17>& preset_table() {
  static const std::array<std::pair<std::string_view, preset_fn>, 17> table{{
      {"OLMoE-1B-7B-0924", &presets::olmoe_1b_7b_0924},
      {"Mixtral-8x7B", &presets::mixtral_8x7b},
      {"Mixtral-8x22B", &presets::mixtral_8x22b},
      {"Qwen2.5-32B", &presets::qwen2_5_32b},
      {"Llama-4-Scout-17B-16E", &presets::llama4_scout_17b_16e},
      {"DBRX", &presets::dbrx},
      {"DeepSeek-V2-Lite", &presets::deepseek_v2_lite},
      {"DeepSeek-V2", &presets::deepseek_v2},
      {"DeepSeek-V3", &presets::deepseek_v3},
      {"DeepSeekMoE-16B", &presets::deepseek_moe_16b},
      {"Qwen1.5-MoE-A2.7B", &presets::qwen1_5_moe_a2_7b},
      {"Llama-3.1-8B", &presets::llama3_1_8b},
      {"Mistral-Nemo-Base-2407", &presets::mistral_nemo_base_2407},
      {"Qwen3-8B", &presets::qwen3_8b},
      {"Qwen3-30B-A3B", &presets::qwen3_30b_a3b},
      {"gpt-oss-20b", &presets::gpt_oss_20b},
      {"GLM-4.5-Air", &presets::glm4_5_air},
  }};
  return table;
}

/// A character of a preset name as compared: lower case, with '_' the same as '-'.
template <class = void>
inline int name_char(char c) {
  return c == '_' ? '-' : std::tolower(static_cast<unsigned char>(c));
}

/// Preset names are equal ignoring case and the difference between '-' and '_'.
template <class = void>
inline bool iequal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (name_char(a[i]) != name_char(b[i])) return false;
  }
  return true;
}

}  // namespace detail

/// The canonical preset names, e.g. "Mixtral-8x7B", "DeepSeek-V3".
template <class = void>
inline std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const auto& [name, make] : detail::preset_table()) names.emplace_back(name);
  return names;
}

/// The preset called `name` (case-insensitive, '-' and '_' equal: "deepseek_v3" is DeepSeek-V3);
/// throws `config_error` listing the known names.
// Not `inline`: strata::compiled holds its instantiation (end of file), which an `inline` one would
// not spare a STRATA_COMPILED consumer (GCC instantiates inline functions for inlining).
template <class = void>
model preset(std::string_view name) {
  for (const auto& [known, make] : detail::preset_table()) {
    if (detail::iequal(known, name)) return make();
  }
  std::string list;
  for (const auto& [known, make] : detail::preset_table()) {
    list += (list.empty() ? "" : ", ") + std::string(known);
  }
  throw config_error("name", "[strata.preset] unknown model \"" + std::string(name.substr(0, 80)) +
                                 (name.size() > 80 ? "...\"" : "\"") + " (known: " + list + ")");
}

}  // namespace v0
}  // namespace strata

// strata::compiled (STRATA_BUILD_COMPILED, src/compiled.cpp) holds `preset`'s instantiation, and with
// it the preset table's builders; STRATA_COMPILED=1, which that target puts on its users, keeps
// their translation units from generating them. Without it this header is unchanged (header-only).
#if defined(STRATA_COMPILED) && STRATA_COMPILED
namespace strata {
inline namespace v0 {
extern template model preset<void>(std::string_view);
}  // namespace v0
}  // namespace strata
#endif
