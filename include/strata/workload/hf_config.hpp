// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Reads a `strata::model` straight from a Hugging Face `config.json` (every model description reads from JSON).
///
/// Supported `model_type`s and the keys read (any other key that is not known to be cost-neutral is
/// named in a warning by the `*_with_warnings` readers):
///
/// | model_type | keys |
/// |---|---|
/// | all but dbrx | num_hidden_layers, hidden_size, num_attention_heads, num_key_value_heads (default: = heads), head_dim (default hidden/heads), vocab_size, tie_word_embeddings (default false), hidden_act (default silu), attention_bias (must be false or absent) |
/// | mixtral | num_local_experts, num_experts_per_tok, intermediate_size (per expert) |
/// | olmoe | num_experts, num_experts_per_tok, intermediate_size (per expert); QK norm |
/// | qwen2 | intermediate_size (dense FFN); QKV bias |
/// | qwen2_moe | num_experts, num_experts_per_tok, moe_intermediate_size, intermediate_size (dense layers), shared_expert_intermediate_size (one gated shared expert), decoder_sparse_step (MoE iff (i+1) % step == 0), mlp_only_layers (only a prefix 0..k-1 is supported); QKV bias |
/// | deepseek | n_routed_experts, num_experts_per_tok, moe_intermediate_size, n_shared_experts, intermediate_size, first_k_dense_replace, moe_layer_freq |
/// | deepseek_v2, deepseek_v3 | as deepseek, plus MLA: kv_lora_rank, q_lora_rank (null: 0), qk_rope_head_dim, qk_nope_head_dim, v_head_dim |
/// | dbrx | n_layers, d_model, n_heads, vocab_size, attn_config.kv_n_heads, ffn_config.{ffn_hidden_size, moe_num_experts, moe_top_k, ffn_act_fn.name} |
/// | llama, mistral | intermediate_size (dense FFN); llama: attention_bias (q, k, v and o biases), mlp_bias (must be false); sliding_window (every layer when not null) |
/// | qwen3 | intermediate_size; QK norm (per head); attention_bias (q, k, v, o); use_sliding_window, sliding_window, max_window_layers, layer_types |
/// | qwen3_moe | as qwen2_moe without the shared expert and the implicit QKV bias; QK norm; windows as qwen3 |
/// | gpt_oss | num_local_experts, num_experts_per_tok (experts_per_token must agree), intermediate_size (per expert); attention_bias (q, k, v, o); expert and router biases and one attention sink per head (always); sliding_window, layer_types (default: even layers slide); quantization_config.quant_method mxfp4 (experts MXFP4, 4.25 bits) |
/// | glm4_moe | as deepseek (n_routed_experts, n_shared_experts, first_k_dense_replace, ...) plus attention_bias (q, k, v), use_qk_norm |
/// | kimi_k2 | as deepseek_v3 (Kimi-K2 is the DeepSeek-V3 architecture) |
/// | llama4 (text_config) or llama4_text | intermediate_size (experts and the one shared expert), intermediate_size_mlp (dense layers), num_local_experts, num_experts_per_tok, interleave_moe_layer_step (MoE iff (i+1) % step == 0), moe_layers (must match the step if given), use_qk_norm (default true) |
///
/// Conventions:
/// - Attention per layer (`model::layer_attention`): `layer_types` entries "full_attention" and
///   "sliding_attention" are modelled; any other kind (linear, sparse, chunked attention) is
///   refused with a `config_error` of field `layer_types` naming the kind, never approximated.
/// - Ignored keys: every key the reader does not read and that is not known to be cost-neutral
///   (token ids, norms' epsilon, rotary settings, training-only coefficients; `hf_cost_neutral_key`)
///   and is not off (null, false, 0, []) is returned as an `hf_warning` by the `*_with_warnings`
///   readers, e.g. DeepSeek-V3's `num_nextn_predict_layers` (multi-token prediction).
/// - `hidden_act` (DBRX: `ffn_config.ffn_act_fn.name`) `silu`/`swish` gives `ffn_kind::swiglu`,
///   `gelu*` gives `ffn_kind::gelu`; anything else is an error.
/// - DeepSeek's `n_shared_experts` shared experts each have `moe_intermediate_size` (transformers
///   fuses them into one MLP of width n·moe_intermediate_size: the same weights).
/// - MLA models have `head_dim = 0`: their head sizes are in `mla`.
/// - `weight_bits` is the checkpoint's: `torch_dtype` (or `dtype`) float32 gives 32, bfloat16 and
///   float16 give 16 (the default when absent); a `quantization_config` overrides it: `quant_method`
///   `fp8` gives 8 (DeepSeek-V3 ships FP8 e4m3 weights with one FP32 scale per 128×128 block, a
///   0.02 % overhead not counted), an integer `bits` (GPTQ, AWQ) gives that, bitsandbytes
///   `load_in_4bit`/`load_in_8bit` give 4/8. Parameter counts do not depend on it.
/// - `name`: the argument, else `_name_or_path`, else (from a file) the file name without
///   `.json` and `.config`.
/// - Not modelled (parameter counts are off by these): DeepSeek-V3's router bias
///   `e_score_correction_bias` (256 per MoE layer, 14 848 in all) and its multi-token-prediction
///   module (`num_nextn_predict_layers`; 671 B is the main model without it).
///
/// Errors: an unknown `model_type`, a missing required key, a value of the wrong type or out of
/// range throw `config_error` whose `field()` is the JSON key path (`ffn_config.moe_top_k`,
/// `text_config.num_hidden_layers`) and whose message names it, and the file when loaded from one:
/// `[strata.hf_config] dbrx.config.json: ffn_config.moe_top_k is missing (required for model_type
/// dbrx)`. A model that fails `validate` is reported under the JSON key it came from.
///
/// Limits: every integer is range-checked when it is read, before any arithmetic, against
/// `strata::limits()` (strata/core/limits.hpp: layers <= 1024, hidden <= 2^17, FFN widths <= 2^20,
/// experts <= 65536, heads and head dims <= 2^14, vocab <= 2^22, MLA ranks <= 2^17), and the
/// parameter count is computed with checked 64-bit arithmetic, e.g. `num_local_experts must be
/// an integer in [1, 65536] (strata::limits().experts), got 2147483647`. A file is parsed with
/// `parse_json`: nesting deeper than `limits().json_depth` and numbers beyond a double are errors.
///
/// Example:
/// \code
///   const strata::model m = strata::load_hf_config("Mixtral-8x7B/config.json");
///   const auto n = strata::count_params(m);  // n.total = 46 702 792 704
/// \endcode

#include <climits>      // INT_MAX
#include <cstdint>      // std::int64_t, std::uint64_t
#include <set>          // std::set, the keys the reader looked at
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::pair, std::move
#include <vector>       // std::vector

#include "strata/core/error.hpp"
#include "strata/core/files.hpp"
#include "strata/core/json.hpp"
#include "strata/workload/hf_warning.hpp"
#include "strata/core/limits.hpp"
#include "strata/workload/model.hpp"

namespace strata {
inline namespace v0 {
namespace detail {

/// One JSON object of the config and the key path that leads to it ("" or "text_config.").
struct hf_node {
  const json* j = nullptr;
  std::string prefix;
};

/// Reads typed keys from a config and throws `config_error` naming the key path and the file.
class hf_reader {
 public:
  explicit hf_reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw config_error(path, "[strata.hf_config] " + (file_.empty() ? std::string() : file_ + ": ") + what);
  }

  template <class = void>
  void set_family(std::string f) { family_ = std::move(f); }

  /// The value at `key`, or nullptr when the key is absent or null. The key counts as read (it is
  /// not named among the ignored keys, `ignored_keys`).
  template <class = void>
  const json* find(const hf_node& n, std::string_view key) const {
    read_.insert(path(n, key));
    const auto it = n.j->find(key);
    if (it == n.j->end() || it->is_null()) return nullptr;
    return &*it;
  }
  template <class = void>
  static std::string path(const hf_node& n, std::string_view key) { return n.prefix + std::string(key); }

  [[noreturn]] void missing(const hf_node& n, std::string_view key) const {
    const std::string p = path(n, key);
    fail(p, p + " is missing (required for model_type " + family_ + ")");
  }

  /// Which limit of `strata::limits()` bounds a key.
  enum class bound { layers, hidden, ffn, experts, heads, head_dim, vocab, rank, bits, window };
  template <class = void>
  static std::pair<int, const char*> limit_of(bound b) {
    const input_limits& l = limits();
    switch (b) {
      case bound::layers: return {l.layers, "strata::limits().layers"};
      case bound::hidden: return {l.hidden, "strata::limits().hidden"};
      case bound::ffn: return {l.ffn, "strata::limits().ffn"};
      case bound::experts: return {l.experts, "strata::limits().experts"};
      case bound::heads: return {l.heads, "strata::limits().heads"};
      case bound::head_dim: return {l.head_dim, "strata::limits().head_dim"};
      case bound::vocab: return {l.vocab, "strata::limits().vocab"};
      case bound::rank: return {l.rank, "strata::limits().rank"};
      case bound::bits: return {64, "bits per weight"};
      case bound::window: return {1 << 30, "2^30 tokens"};
    }
    return {0, ""};
  }

  /// An integer in [min, the limit of `b`], checked before any arithmetic on it.
  template <class = void>
  int as_int(const json& v, const std::string& p, int min, bound b) const {
    const auto [max, limit_name] = limit_of(b);
    std::int64_t x = 0;
    bool ok = v.is_number_integer();
    if (ok && v.is_number_unsigned()) {
      const auto u = v.get<std::uint64_t>();
      ok = u <= static_cast<std::uint64_t>(INT_MAX);
      x = ok ? static_cast<std::int64_t>(u) : 0;
    } else if (ok) {
      x = v.get<std::int64_t>();
    }
    if (!ok || x < min || x > max) {
      fail(p, p + " must be an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "] (" +
                  limit_name + "), got " + json_excerpt(v));
    }
    return static_cast<int>(x);
  }

  template <class = void>
  int req_int(const hf_node& n, std::string_view key, bound b, int min = 1) const {
    const json* v = find(n, key);
    if (v == nullptr) missing(n, key);
    return as_int(*v, path(n, key), min, b);
  }
  template <class = void>
  int opt_int(const hf_node& n, std::string_view key, int fallback, bound b, int min = 0) const {
    const json* v = find(n, key);
    return v == nullptr ? fallback : as_int(*v, path(n, key), min, b);
  }
  template <class = void>
  bool opt_bool(const hf_node& n, std::string_view key, bool fallback) const {
    const json* v = find(n, key);
    if (v == nullptr) return fallback;
    if (!v->is_boolean()) fail(path(n, key), path(n, key) + " must be true or false, got " + json_excerpt(*v));
    return v->get<bool>();
  }
  template <class = void>
  std::string opt_string(const hf_node& n, std::string_view key, std::string fallback) const {
    const json* v = find(n, key);
    if (v == nullptr) return fallback;
    if (!v->is_string()) fail(path(n, key), path(n, key) + " must be a string, got " + json_excerpt(*v));
    return v->get<std::string>();
  }
  template <class = void>
  hf_node req_object(const hf_node& n, std::string_view key) const {
    const json* v = find(n, key);
    if (v == nullptr) missing(n, key);
    if (!v->is_object()) fail(path(n, key), path(n, key) + " must be an object, got " + json_excerpt(*v));
    return {v, path(n, key) + "."};
  }

  /// Whether the reader looked at key path `p`.
  template <class = void>
  [[nodiscard]] bool was_read(const std::string& p) const { return read_.count(p) > 0; }

  /// Remembers which JSON key a model field came from, to name it if `validate` rejects the field.
  template <class = void>
  void from(std::string field, std::string json_path) {
    origin_.emplace_back(std::move(field), std::move(json_path));
  }
  template <class = void>
  [[nodiscard]] std::string origin(const std::string& field) const {
    for (const auto& [f, p] : origin_) {
      if (f == field) return p;
    }
    return {};
  }

 private:
  std::string file_;
  std::string family_;
  std::vector<std::pair<std::string, std::string>> origin_;
  mutable std::set<std::string> read_;
};

/// FFN kind of an activation name: silu/swish are gated (SwiGLU), gelu* is a plain GeLU FFN.
template <class = void>
inline ffn_kind hf_ffn_kind(const hf_reader& r, const std::string& act, const std::string& p) {
  if (act == "silu" || act == "swish") return ffn_kind::swiglu;
  if (act.rfind("gelu", 0) == 0) return ffn_kind::gelu;
  r.fail(p, p + " " + json_excerpt(json(act)) + " is not supported (expected silu, swish or gelu*)");
}

/// Bits per stored weight from torch_dtype/dtype and quantization_config (see the file comment).
template <class = void>
inline int hf_weight_bits(const hf_reader& r, const hf_node& root, const hf_node& text) {
  int bits = 16;
  for (const hf_node* n : {&root, &text}) {
    for (const char* key : {"torch_dtype", "dtype"}) {
      const std::string dt = r.opt_string(*n, key, "");
      const std::string p = hf_reader::path(*n, key);
      if (dt.empty()) continue;
      if (dt == "float32") {
        bits = 32;
      } else if (dt == "bfloat16" || dt == "float16") {
        bits = 16;
      } else {
        r.fail(p, p + " " + json_excerpt(json(dt)) + " is not supported (expected float32, bfloat16 or float16)");
      }
    }
  }
  const json* q = r.find(root, "quantization_config");
  if (q == nullptr) return bits;
  const hf_node qn = r.req_object(root, "quantization_config");
  const std::string method = r.opt_string(qn, "quant_method", "");
  if (method == "fp8") return 8;
  // MXFP4 (gpt-oss): transformers' quantizer converts only the MoE experts; the modules it lists
  // in modules_to_not_convert (attention, router, embeddings, LM head) stay at torch_dtype.
  if (method == "mxfp4") {
    (void)r.find(qn, "modules_to_not_convert");
    return bits;
  }
  if (r.find(qn, "bits") != nullptr) return r.req_int(qn, "bits", hf_reader::bound::bits, 1);
  if (r.opt_bool(qn, "load_in_4bit", false)) return 4;
  if (r.opt_bool(qn, "load_in_8bit", false)) return 8;
  r.fail("quantization_config.quant_method",
         "quantization_config.quant_method " + json_excerpt(json(method)) +
             " is not supported (expected fp8, mxfp4, an integer bits, or load_in_4bit/load_in_8bit)");
}

/// What `attention_bias` true means for a family: refused (not modelled), biases on q, k and v
/// (GLM-4.5), or on q, k, v and the output projection (Llama, Qwen3, gpt-oss).
enum class hf_bias { refuse, qkv, qkv_o };

/// The keys shared by the Llama-style families (all but DBRX).
template <class = void>
inline void hf_read_common(hf_reader& r, const hf_node& n, model& m, bool mla, hf_bias bias = hf_bias::refuse) {
  m.layers = r.req_int(n, "num_hidden_layers", hf_reader::bound::layers);
  r.from("layers", hf_reader::path(n, "num_hidden_layers"));
  m.hidden = r.req_int(n, "hidden_size", hf_reader::bound::hidden);
  r.from("hidden", hf_reader::path(n, "hidden_size"));
  m.heads = r.req_int(n, "num_attention_heads", hf_reader::bound::heads);
  r.from("heads", hf_reader::path(n, "num_attention_heads"));
  m.kv_heads = r.opt_int(n, "num_key_value_heads", m.heads, hf_reader::bound::heads, 1);
  r.from("kv_heads", hf_reader::path(n, "num_key_value_heads"));
  m.vocab = r.req_int(n, "vocab_size", hf_reader::bound::vocab);
  r.from("vocab", hf_reader::path(n, "vocab_size"));
  m.tie_embeddings = r.opt_bool(n, "tie_word_embeddings", false);
  m.ffn = hf_ffn_kind(r, r.opt_string(n, "hidden_act", "silu"), hf_reader::path(n, "hidden_act"));
  if (r.opt_bool(n, "attention_bias", false)) {
    const std::string p = hf_reader::path(n, "attention_bias");
    if (bias == hf_bias::refuse) {
      r.fail(p, p + " true is not supported for this model_type (the o_proj bias is not modelled)");
    }
    m.qkv_bias = true;
    m.o_bias = bias == hf_bias::qkv_o;
  }
  if (mla) return;  // head sizes are in m.mla
  if (r.find(n, "head_dim") != nullptr) {
    m.head_dim = r.req_int(n, "head_dim", hf_reader::bound::head_dim);
    r.from("head_dim", hf_reader::path(n, "head_dim"));
  } else {
    if (m.hidden % m.heads != 0) {
      r.fail(hf_reader::path(n, "head_dim"),
             hf_reader::path(n, "hidden_size") + " " + std::to_string(m.hidden) + " is not a multiple of " +
                 hf_reader::path(n, "num_attention_heads") + " " + std::to_string(m.heads) +
                 "; head_dim must be given");
    }
    m.head_dim = m.hidden / m.heads;
  }
}

/// Routed experts, top-k and expert width under the given key names.
template <class = void>
inline void hf_read_experts(hf_reader& r, const hf_node& n, model& m, const char* experts_key,
                            const char* ffn_key) {
  m.experts = r.req_int(n, experts_key, hf_reader::bound::experts);
  r.from("experts", hf_reader::path(n, experts_key));
  m.top_k = r.req_int(n, "num_experts_per_tok", hf_reader::bound::experts);
  r.from("top_k", hf_reader::path(n, "num_experts_per_tok"));
  m.expert_ffn = r.req_int(n, ffn_key, hf_reader::bound::ffn);
  r.from("expert_ffn", hf_reader::path(n, ffn_key));
}

template <class = void>
inline void hf_read_deepseek(hf_reader& r, const hf_node& n, model& m) {
  hf_read_experts(r, n, m, "n_routed_experts", "moe_intermediate_size");
  m.dense_ffn = r.req_int(n, "intermediate_size", hf_reader::bound::ffn);
  r.from("dense_ffn", hf_reader::path(n, "intermediate_size"));
  m.shared_experts = r.opt_int(n, "n_shared_experts", 0, hf_reader::bound::experts, 0);
  r.from("shared_experts", hf_reader::path(n, "n_shared_experts"));
  m.shared_expert_ffn = m.shared_experts > 0 ? m.expert_ffn : 0;
  m.first_dense_layers = r.opt_int(n, "first_k_dense_replace", 0, hf_reader::bound::layers, 0);
  r.from("first_dense_layers", hf_reader::path(n, "first_k_dense_replace"));
  m.moe_layer_step = r.opt_int(n, "moe_layer_freq", 1, hf_reader::bound::layers, 1);
  r.from("moe_layer_step", hf_reader::path(n, "moe_layer_freq"));
  m.moe_layer_offset = 0;  // transformers: layer_idx % moe_layer_freq == 0
}

template <class = void>
inline void hf_read_mla(hf_reader& r, const hf_node& n, model& m) {
  m.mla.kv_lora_rank = r.req_int(n, "kv_lora_rank", hf_reader::bound::rank);
  r.from("mla.kv_lora_rank", hf_reader::path(n, "kv_lora_rank"));
  (void)r.find(n, "q_lora_rank");
  if (n.j->find("q_lora_rank") == n.j->end()) r.missing(n, "q_lora_rank");
  m.mla.q_lora_rank = r.opt_int(n, "q_lora_rank", 0, hf_reader::bound::rank, 0);  // null: queries are not compressed
  r.from("mla.q_lora_rank", hf_reader::path(n, "q_lora_rank"));
  m.mla.qk_rope_head_dim = r.req_int(n, "qk_rope_head_dim", hf_reader::bound::head_dim);
  r.from("mla.qk_rope_head_dim", hf_reader::path(n, "qk_rope_head_dim"));
  m.mla.qk_nope_head_dim = r.req_int(n, "qk_nope_head_dim", hf_reader::bound::head_dim, 0);
  r.from("mla.qk_nope_head_dim", hf_reader::path(n, "qk_nope_head_dim"));
  m.mla.v_head_dim = r.req_int(n, "v_head_dim", hf_reader::bound::head_dim);
  r.from("mla.v_head_dim", hf_reader::path(n, "v_head_dim"));
  m.head_dim = 0;
}

template <class = void>
inline void hf_read_qwen2_moe(hf_reader& r, const hf_node& n, model& m) {
  m.qkv_bias = true;  // Qwen2 attention always has q, k, v biases (no config key)
  hf_read_experts(r, n, m, "num_experts", "moe_intermediate_size");
  m.dense_ffn = r.req_int(n, "intermediate_size", hf_reader::bound::ffn);
  r.from("dense_ffn", hf_reader::path(n, "intermediate_size"));
  const int shared = r.opt_int(n, "shared_expert_intermediate_size", 0, hf_reader::bound::ffn, 0);
  m.shared_experts = shared > 0 ? 1 : 0;
  m.shared_expert_ffn = shared;
  m.shared_expert_gate = shared > 0;  // sigmoid(shared_expert_gate(x)), d weights
  m.moe_layer_step = r.opt_int(n, "decoder_sparse_step", 1, hf_reader::bound::layers, 1);
  r.from("moe_layer_step", hf_reader::path(n, "decoder_sparse_step"));
  m.moe_layer_offset = 1;  // transformers: (layer_idx + 1) % decoder_sparse_step == 0
  // mlp_only_layers forces dense layers; only a prefix 0..k-1 maps onto first_dense_layers.
  if (const json* dense = r.find(n, "mlp_only_layers")) {
    const std::string p = hf_reader::path(n, "mlp_only_layers");
    if (!dense->is_array()) r.fail(p, p + " must be an array of layer indices, got " + json_excerpt(*dense));
    for (std::size_t i = 0; i < dense->size(); ++i) {
      const int idx = r.as_int((*dense)[i], p + "[" + std::to_string(i) + "]", 0, hf_reader::bound::layers);
      if (idx != static_cast<int>(i)) {
        r.fail(p, p + " " + json_excerpt(*dense) +
                      " is not supported: only a prefix [0, 1, ..., k-1] of dense layers can be modelled");
      }
    }
    m.first_dense_layers = static_cast<int>(dense->size());
    r.from("first_dense_layers", p);
  }
}

template <class = void>
inline void hf_read_llama4_text(hf_reader& r, const hf_node& n, model& m) {
  hf_read_common(r, n, m, false);
  hf_read_experts(r, n, m, "num_local_experts", "intermediate_size");
  m.dense_ffn = r.req_int(n, "intermediate_size_mlp", hf_reader::bound::ffn);
  r.from("dense_ffn", hf_reader::path(n, "intermediate_size_mlp"));
  // transformers hard-codes one shared expert Llama4TextMLP(config) of width intermediate_size.
  m.shared_experts = 1;
  m.shared_expert_ffn = m.expert_ffn;
  m.qk_norm = r.opt_bool(n, "use_qk_norm", true);
  m.moe_layer_step = r.opt_int(n, "interleave_moe_layer_step", 1, hf_reader::bound::layers, 1);
  r.from("moe_layer_step", hf_reader::path(n, "interleave_moe_layer_step"));
  m.moe_layer_offset = 1;  // moe_layers = range(step - 1, layers, step)
  if (const json* listed = r.find(n, "moe_layers")) {
    const std::string p = hf_reader::path(n, "moe_layers");
    if (!listed->is_array()) r.fail(p, p + " must be an array of layer indices, got " + json_excerpt(*listed));
    std::vector<int> expect;
    for (int i = m.moe_layer_step - 1; i < m.layers; i += m.moe_layer_step) expect.push_back(i);
    bool same = listed->size() == expect.size();
    for (std::size_t i = 0; same && i < expect.size(); ++i) {
      same = r.as_int((*listed)[i], p + "[" + std::to_string(i) + "]", 0, hf_reader::bound::layers) == expect[i];
    }
    if (!same) {
      r.fail(p, p + " " + json_excerpt(*listed) + " is not supported: only the pattern of " +
                    hf_reader::path(n, "interleave_moe_layer_step") + " can be modelled");
    }
  }
}

/// A model with routed experts needs a MoE layer: when the keys that place the MoE layers
/// (`first_k_dense_replace`, `mlp_only_layers`, `moe_layer_freq`, `decoder_sparse_step`,
/// `interleave_moe_layer_step`) leave none among `num_hidden_layers`, the error names the key,
/// its value and the layer count (not the zero MoE layers a later model would report).
template <class = void>
inline void hf_check_moe_layers(const hf_reader& r, const model& m) {
  if (m.experts == 0) return;
  for (int i = 0; i < m.layers; ++i) {
    if (m.is_moe_layer(i)) return;
  }
  const std::string layers = r.origin("layers") + " (" + std::to_string(m.layers) + ")";
  const std::string experts = r.origin("experts") + " " + std::to_string(m.experts);
  const std::string dense = r.origin("first_dense_layers"), step = r.origin("moe_layer_step");
  if (m.first_dense_layers >= m.layers && !dense.empty()) {
    r.fail(dense, dense + " must be below " + layers + " in a model with routed experts (" + experts +
                      "): no MoE layer would be left, got " + std::to_string(m.first_dense_layers));
  }
  const std::string key = step.empty() ? std::string("num_hidden_layers") : step;
  r.fail(key, key + " " + std::to_string(m.moe_layer_step) + " leaves no MoE layer among " + layers +
                  (dense.empty() ? std::string() : ", " + dense + " " + std::to_string(m.first_dense_layers)) +
                  " in a model with routed experts (" + experts + ")");
}

/// The mechanism a `layer_types` entry names, for a refusal: "linear_attention" → "linear
/// attention".
template <class = void>
inline std::string hf_mechanism_name(const std::string& kind) {
  std::string m = kind;
  for (char& c : m) c = c == '_' ? ' ' : c;
  return m;
}

/// Per-layer attention kinds from `sliding_window` and `layer_types`.
/// - `layer_types` (when given): one entry per layer, "full_attention" or "sliding_attention";
///   any other kind (linear, sparse, chunked attention, ...) is refused naming it and the key,
///   never approximated by full attention.
/// - `all_sliding` (Mistral, Mixtral): without `layer_types`, a non-null `sliding_window` makes
///   every layer slide.
/// - `qwen` (Qwen2/Qwen3 and their MoE): the window applies only if `use_sliding_window` is true,
///   then to the layers i ≥ `max_window_layers` (transformers' default `layer_types`).
/// - `alternate` (gpt-oss): without `layer_types`, even layers slide and odd layers are full
///   (GptOssConfig's default).
enum class hf_window_rule { all_sliding, qwen, alternate };

template <class = void>
inline void hf_read_attention_layers(hf_reader& r, const hf_node& n, model& m, hf_window_rule rule) {
  const std::string wp = hf_reader::path(n, "sliding_window");
  int window = r.opt_int(n, "sliding_window", 0, hf_reader::bound::window, 0);
  if (rule == hf_window_rule::qwen) {
    const bool use = r.opt_bool(n, "use_sliding_window", false);
    const int first = r.opt_int(n, "max_window_layers", m.layers, hf_reader::bound::layers, 0);
    if (!use) window = 0;  // transformers sets sliding_window to None: every layer is full
    if (use && window > 0 && r.find(n, "layer_types") == nullptr) {
      m.layer_attention.assign(static_cast<std::size_t>(m.layers), attention_kind::full);
      for (int i = first; i < m.layers; ++i) m.layer_attention[static_cast<std::size_t>(i)] = attention_kind::sliding;
    }
  }
  m.sliding_window = window;
  r.from("sliding_window", wp);
  if (const json* types = r.find(n, "layer_types")) {
    const std::string p = hf_reader::path(n, "layer_types");
    if (!types->is_array()) r.fail(p, p + " must be an array of attention kinds, got " + json_excerpt(*types));
    if (types->size() != static_cast<std::size_t>(m.layers)) {
      r.fail(p, p + " has " + std::to_string(types->size()) + " entries, but " +
                    hf_reader::path(n, "num_hidden_layers") + " is " + std::to_string(m.layers));
    }
    m.layer_attention.assign(static_cast<std::size_t>(m.layers), attention_kind::full);
    for (std::size_t i = 0; i < types->size(); ++i) {
      const json& t = (*types)[i];
      const std::string pi = p + "[" + std::to_string(i) + "]";
      if (!t.is_string()) r.fail(p, pi + " must be a string, got " + json_excerpt(t));
      const std::string kind = t.get<std::string>();
      if (kind == "full_attention") continue;
      if (kind == "sliding_attention") {
        m.layer_attention[i] = attention_kind::sliding;
        continue;
      }
      r.fail(p, pi + " " + json_excerpt(t) + " is not supported: " + hf_mechanism_name(kind) +
                    " layers are not modelled (refused, not approximated; modelled kinds: full_attention, "
                    "sliding_attention)");
    }
    bool any_sliding = false;
    for (const attention_kind k : m.layer_attention) any_sliding = any_sliding || k == attention_kind::sliding;
    if (any_sliding && m.sliding_window == 0) {
      r.fail(wp, p + " has sliding_attention layers but " + wp + " is missing or null");
    }
    if (!any_sliding) m.layer_attention.clear();  // every layer full: the default
    if (!any_sliding) m.sliding_window = 0;
    return;
  }
  if (rule == hf_window_rule::alternate && m.sliding_window > 0) {
    m.layer_attention.assign(static_cast<std::size_t>(m.layers), attention_kind::full);
    for (int i = 0; i < m.layers; i += 2) m.layer_attention[static_cast<std::size_t>(i)] = attention_kind::sliding;
  }
  if (rule == hf_window_rule::qwen && m.layer_attention.empty()) m.sliding_window = 0;
}

/// gpt-oss: MoE of `num_local_experts` experts with biases, sinks, alternating sliding windows,
/// MXFP4 experts (`quantization_config.quant_method` "mxfp4").
template <class = void>
inline void hf_read_gpt_oss(hf_reader& r, const hf_node& n, model& m) {
  hf_read_experts(r, n, m, "num_local_experts", "intermediate_size");
  // The original checkpoint's name for top-k; when both are given they must agree.
  if (const json* k = r.find(n, "experts_per_token")) {
    const int alt = r.as_int(*k, hf_reader::path(n, "experts_per_token"), 1, hf_reader::bound::experts);
    if (alt != m.top_k) {
      r.fail("experts_per_token", "experts_per_token " + std::to_string(alt) + " disagrees with num_experts_per_tok " +
                                      std::to_string(m.top_k));
    }
  }
  m.expert_bias = true;      // GptOssExperts: gate_up_proj_bias, down_proj_bias; GptOssTopKRouter: bias
  m.attention_sinks = true;  // GptOssAttention.sinks: one logit per head
  hf_read_attention_layers(r, n, m, hf_window_rule::alternate);
}

/// Keys known not to change a step's time or memory (training-only, numerics, positions, token
/// ids, bookkeeping): read by no family and not reported. Any other key the reader leaves unread
/// is reported by `ignored_keys`.
template <class = void>
inline bool hf_cost_neutral_key(std::string_view k) {
  static constexpr std::string_view neutral[] = {
      "_name_or_path", "architectures", "auto_map", "transformers_version", "use_cache", "bos_token_id",
      "eos_token_id", "pad_token_id", "initializer_range", "initializer_factor", "rms_norm_eps",
      "layer_norm_eps", "layer_norm_epsilon", "rope_theta", "rope_scaling", "rope_parameters", "rotary_emb_base",
      "partial_rotary_factor", "max_position_embeddings", "initial_context_length", "attention_dropout",
      "hidden_dropout", "resid_pdrop", "emb_pdrop", "embd_pdrop", "router_aux_loss_coef", "aux_loss_alpha",
      "seq_aux", "output_router_logits", "router_jitter_noise", "router_z_loss_coef", "norm_topk_prob",
      "routed_scaling_factor", "n_group", "topk_group", "topk_method", "scoring_func", "swiglu_limit",
      "pretraining_tp", "tokenizer_class", "torch_dtype", "dtype", "model_type", "max_seq_len",
      "use_mrope", "ep_size", "moe_jitter_eps", "router_dtype", "attn_logit_softcapping",
      "final_logit_softcapping", "rope_interleave", "use_return_dict", "output_attentions",
      "output_hidden_states", "boi_token_index", "eoi_token_index", "image_token_index", "attn_scale",
      "attn_temperature_tuning", "floor_scale", "no_rope_layers"};
  for (const std::string_view n : neutral) {
    if (k == n) return true;
  }
  return false;
}

/// Why an unread key may change cost, where the reader knows the mechanism.
template <class = void>
inline std::string hf_ignored_reason(std::string_view k) {
  if (k == "num_nextn_predict_layers") return "multi-token-prediction layers (weights and draft steps) are not modelled";
  if (k == "sliding_window" || k == "layer_types" || k == "use_sliding_window" || k == "max_window_layers") {
    return "attention windows are not read for this model_type (every layer is taken as full attention)";
  }
  if (k == "quantization_config") return "weight formats are not read for this model_type";
  return "the reader does not model it; it may change time or memory";
}

/// Default model name from a file path: the file name without ".json" and then ".config".
template <class = void>
inline std::string hf_name_from_path(const std::string& path) {
  const std::size_t slash = path.find_last_of("/\\");
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  for (std::string_view suffix : {std::string_view(".json"), std::string_view(".config")}) {
    const std::size_t n = suffix.size();
    if (base.size() > n && base.compare(base.size() - n, n, suffix) == 0) base.erase(base.size() - n);
  }
  return base;
}

}  // namespace detail

/// A model read from a config and the keys it ignored.
struct hf_read_result {
  model m;
  std::vector<hf_warning> warnings;
};

namespace detail {

/// Reads `cfg`; `file` names the source in messages, `fallback_name` is used when neither `name`
/// nor `_name_or_path` gives one.
template <class = void>
inline hf_read_result read_hf_config_in(const json& cfg, std::string name, const std::string& file,
                                        const std::string& fallback_name) {
  hf_reader r(file);
  if (!cfg.is_object()) r.fail("", "the config must be a JSON object, got " + std::string(cfg.type_name()));
  const hf_node root{&cfg, ""};
  const json* type = r.find(root, "model_type");
  if (type == nullptr) r.fail("model_type", "model_type is missing");
  if (!type->is_string()) r.fail("model_type", "model_type must be a string, got " + json_excerpt(*type));
  const std::string model_type = type->get<std::string>();
  r.set_family(model_type);

  model m;
  m.family = model_type;
  hf_node text = root;
  if (model_type == "mixtral") {
    hf_read_common(r, root, m, false);
    hf_read_experts(r, root, m, "num_local_experts", "intermediate_size");
    hf_read_attention_layers(r, root, m, hf_window_rule::all_sliding);
  } else if (model_type == "olmoe") {
    hf_read_common(r, root, m, false);
    hf_read_experts(r, root, m, "num_experts", "intermediate_size");
    m.qk_norm = true;
  } else if (model_type == "qwen2") {
    hf_read_common(r, root, m, false);
    m.qkv_bias = true;
    m.dense_ffn = r.req_int(root, "intermediate_size", hf_reader::bound::ffn);
    r.from("dense_ffn", "intermediate_size");
    hf_read_attention_layers(r, root, m, hf_window_rule::qwen);
  } else if (model_type == "qwen2_moe") {
    hf_read_common(r, root, m, false);
    hf_read_qwen2_moe(r, root, m);
    hf_read_attention_layers(r, root, m, hf_window_rule::qwen);
  } else if (model_type == "deepseek") {
    if (r.find(root, "kv_lora_rank") != nullptr) {
      r.fail("kv_lora_rank", "kv_lora_rank is given but model_type deepseek (DeepSeekMoE) has no MLA; "
                             "a DeepSeek-V2/V3 config has model_type deepseek_v2 or deepseek_v3");
    }
    hf_read_common(r, root, m, false);
    hf_read_deepseek(r, root, m);
  } else if (model_type == "deepseek_v2" || model_type == "deepseek_v3" || model_type == "kimi_k2") {
    // Kimi-K2 is the DeepSeek-V3 architecture under its own model_type (Moonshot's deployment
    // guide: rename it to deepseek_v3 for engines that do not know it).
    hf_read_common(r, root, m, true);
    hf_read_mla(r, root, m);
    hf_read_deepseek(r, root, m);
  } else if (model_type == "llama" || model_type == "mistral") {
    hf_read_common(r, root, m, false, model_type == "llama" ? hf_bias::qkv_o : hf_bias::refuse);
    m.dense_ffn = r.req_int(root, "intermediate_size", hf_reader::bound::ffn);
    r.from("dense_ffn", "intermediate_size");
    if (r.opt_bool(root, "mlp_bias", false)) {
      r.fail("mlp_bias", "mlp_bias true is not supported (FFN biases are not modelled)");
    }
    hf_read_attention_layers(r, root, m, hf_window_rule::all_sliding);
  } else if (model_type == "qwen3") {
    hf_read_common(r, root, m, false, hf_bias::qkv_o);
    m.qk_norm = true;  // Qwen3Attention: q_norm, k_norm over head_dim
    m.dense_ffn = r.req_int(root, "intermediate_size", hf_reader::bound::ffn);
    r.from("dense_ffn", "intermediate_size");
    hf_read_attention_layers(r, root, m, hf_window_rule::qwen);
  } else if (model_type == "qwen3_moe") {
    hf_read_common(r, root, m, false, hf_bias::qkv_o);
    hf_read_qwen2_moe(r, root, m);
    m.qkv_bias = m.o_bias;  // Qwen3-MoE has no implicit QKV bias (Qwen2-MoE does)
    m.shared_experts = 0;   // Qwen3-MoE has no shared expert
    m.shared_expert_ffn = 0;
    m.shared_expert_gate = false;
    m.qk_norm = true;
    hf_read_attention_layers(r, root, m, hf_window_rule::qwen);
  } else if (model_type == "glm4_moe") {
    hf_read_common(r, root, m, false, hf_bias::qkv);  // Glm4MoeAttention: q, k, v biases; o_proj none
    hf_read_deepseek(r, root, m);
    m.qk_norm = r.opt_bool(root, "use_qk_norm", false);
  } else if (model_type == "gpt_oss") {
    hf_read_common(r, root, m, false, hf_bias::qkv_o);
    hf_read_gpt_oss(r, root, m);
  } else if (model_type == "dbrx") {
    m.layers = r.req_int(root, "n_layers", hf_reader::bound::layers);
    r.from("layers", "n_layers");
    m.hidden = r.req_int(root, "d_model", hf_reader::bound::hidden);
    r.from("hidden", "d_model");
    m.heads = r.req_int(root, "n_heads", hf_reader::bound::heads);
    r.from("heads", "n_heads");
    m.vocab = r.req_int(root, "vocab_size", hf_reader::bound::vocab);
    r.from("vocab", "vocab_size");
    m.tie_embeddings = r.opt_bool(root, "tie_word_embeddings", false);
    const hf_node attn = r.req_object(root, "attn_config");
    m.kv_heads = r.req_int(attn, "kv_n_heads", hf_reader::bound::heads);
    r.from("kv_heads", "attn_config.kv_n_heads");
    const hf_node ffn = r.req_object(root, "ffn_config");
    m.expert_ffn = r.req_int(ffn, "ffn_hidden_size", hf_reader::bound::ffn);
    r.from("expert_ffn", "ffn_config.ffn_hidden_size");
    m.experts = r.req_int(ffn, "moe_num_experts", hf_reader::bound::experts);
    r.from("experts", "ffn_config.moe_num_experts");
    m.top_k = r.req_int(ffn, "moe_top_k", hf_reader::bound::experts);
    r.from("top_k", "ffn_config.moe_top_k");
    std::string act = "silu";  // DbrxFFNConfig default {"name": "silu"}: GLU experts w1, v1, w2
    if (r.find(ffn, "ffn_act_fn") != nullptr) {
      act = r.opt_string(r.req_object(ffn, "ffn_act_fn"), "name", "silu");
    }
    m.ffn = hf_ffn_kind(r, act, "ffn_config.ffn_act_fn.name");
    if (m.hidden % m.heads != 0) {
      r.fail("n_heads", "d_model " + std::to_string(m.hidden) + " is not a multiple of n_heads " +
                            std::to_string(m.heads));
    }
    m.head_dim = m.hidden / m.heads;
  } else if (model_type == "llama4" || model_type == "llama4_text") {
    m.family = "llama4";
    if (model_type == "llama4") {
      text = r.req_object(root, "text_config");
      const std::string inner = r.opt_string(text, "model_type", "llama4_text");
      if (inner != "llama4_text") {
        r.fail("text_config.model_type",
               "text_config.model_type must be \"llama4_text\", got " + json_excerpt(json(inner)));
      }
    }
    hf_read_llama4_text(r, text, m);
    // The wrapper keeps tie_word_embeddings at the top level; the text config may repeat it.
    const bool tie_outer = r.opt_bool(root, "tie_word_embeddings", false);
    m.tie_embeddings = r.opt_bool(text, "tie_word_embeddings", tie_outer);
  } else {
    r.fail("model_type", "model_type " + json_excerpt(*type) +
                             " is not supported (supported: mixtral, olmoe, qwen2, qwen2_moe, deepseek, "
                             "deepseek_v2, deepseek_v3, dbrx, llama4, llama4_text, llama, mistral, qwen3, "
                             "qwen3_moe, gpt_oss, glm4_moe, kimi_k2)");
  }
  m.weight_bits = hf_weight_bits(r, root, text);
  if (const json* q = r.find(root, "quantization_config");
      q != nullptr && q->is_object() && q->value("quant_method", std::string()) == "mxfp4") {
    if (model_type != "gpt_oss") {
      r.fail("quantization_config.quant_method",
             "quantization_config.quant_method \"mxfp4\" is supported for model_type gpt_oss only (the converted "
             "modules of other families are not known)");
    }
    m.expert_format = mxfp4_format();  // 4-bit E2M1 elements, one 8-bit E8M0 scale per 32: 4.25 bits
  }

  if (name.empty()) name = r.opt_string(root, "_name_or_path", "");
  m.name = name.empty() ? fallback_name : name;
  hf_check_moe_layers(r, m);
  try {
    validate(m);
  } catch (const config_error& e) {
    const std::string key = r.origin(e.field());
    if (key.empty()) r.fail(e.field(), e.what());
    r.fail(key, key + " (model field " + e.field() + "): " + e.what());
  }
  hf_read_result out{std::move(m), {}};
  // Every key of the config object (and of text_config) the reader did not look at and that is
  // not known to be cost-neutral: named, not silently dropped.
  const hf_node* const nodes[] = {&root, &text};
  for (const hf_node* node : nodes) {
    if (node != &root && node->j == root.j) break;
    for (const auto& [key, value] : node->j->items()) {
      const std::string p = hf_reader::path(*node, key);
      if (r.was_read(p) || hf_cost_neutral_key(key) || (node == &root && text.j != root.j && key == "text_config")) {
        continue;
      }
      // Off: null, false, 0 or an empty list cost nothing.
      if (value.is_null() || (value.is_boolean() && value == false) || (value.is_number() && value == 0) ||
          (value.is_array() && value.empty())) {
        continue;
      }
      std::string message = "[strata.hf_config] ";
      if (!file.empty()) message.append(file).append(": ");
      message.append(p).append(" is ignored: ").append(hf_ignored_reason(key));
      out.warnings.push_back({p, std::move(message)});
    }
  }
  return out;
}

}  // namespace detail

/// Reads a model from a parsed Hugging Face `config.json` and names every key it ignored that may
/// change time or memory (`hf_read_result::warnings`; programs print them). `name` overrides
/// `_name_or_path`. Throws `config_error` naming the JSON key path (see the file comment).
// Not `inline`: strata::compiled holds its instantiation (end of file), which an `inline` one would
// not spare a STRATA_COMPILED consumer (GCC instantiates inline functions for inlining).
template <class = void>
hf_read_result read_hf_config_with_warnings(const json& cfg, std::string name = {}) {
  return detail::read_hf_config_in(cfg, std::move(name), std::string{}, std::string{});
}

/// Reads a model from a parsed Hugging Face `config.json`; `name` overrides `_name_or_path`.
/// Throws `config_error` naming the JSON key path (see the file comment for the keys read).
template <class = void>
model read_hf_config(const json& cfg, std::string name = {}) {
  return read_hf_config_with_warnings(cfg, std::move(name)).m;
}

/// Reads a model from a Hugging Face `config.json` file and the keys it ignored; errors name the
/// file and the key path. The name is `_name_or_path` if the config has one, else the file name
/// without `.json`/`.config`.
/// The file is opened under the opening rule (`core/files.hpp`): a regular file within
/// `limits().json_file_bytes`, else a `config_error` of field `"config.json"` naming the file.
template <class = void>
hf_read_result load_hf_config_with_warnings(const std::string& path) {
  const std::string text = read_input_file(path, "config.json", limits().json_file_bytes, "json_file_bytes");
  json cfg;
  try {
    cfg = parse_json(text, path);
  } catch (const config_error& e) {  // nesting, syntax, a number beyond a double: name the key path
    std::string what = e.what();
    if (what.rfind("[strata.json] ", 0) == 0) what.erase(0, 14);
    throw config_error(e.field(), "[strata.hf_config] " + what);
  }
  return detail::read_hf_config_in(cfg, std::string{}, path, detail::hf_name_from_path(path));
}

/// `load_hf_config_with_warnings` without the warnings.
template <class = void>
model load_hf_config(const std::string& path) { return load_hf_config_with_warnings(path).m; }

}  // namespace v0
}  // namespace strata

// strata::compiled (STRATA_BUILD_COMPILED, src/compiled.cpp) holds the reader's instantiations;
// STRATA_COMPILED=1, which that target puts on its users, keeps their translation units from
// instantiating the reader and nlohmann/json's parser (issue 46: a step from a config.json). Without
// it this header is unchanged (header-only).
#if defined(STRATA_COMPILED) && STRATA_COMPILED
namespace strata {
inline namespace v0 {
extern template hf_read_result read_hf_config_with_warnings<void>(const json&, std::string);
extern template model read_hf_config<void>(const json&, std::string);
extern template hf_read_result load_hf_config_with_warnings<void>(const std::string&);
extern template model load_hf_config<void>(const std::string&);
}  // namespace v0
}  // namespace strata
#endif
