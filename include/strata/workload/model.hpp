// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Description of a (Mixture-of-Experts) decoder-only transformer, as read from a Hugging Face
/// `config.json` (`hf_config.hpp`) or a preset (`presets.hpp`), and the sizes derived from it:
/// parameters in total and per token, bytes per expert, KV-cache bytes per token per layer.
///
/// Conventions. A SwiGLU FFN of width f on hidden size d has 3·d·f weights (gate, up, down); a
/// GeLU FFN has 2·d·f. A MoE layer has `experts` routed experts (each an FFN of `expert_ffn`),
/// `shared_experts` always-active experts (each an FFN of `shared_expert_ffn`) and a router
/// (d·experts weights). Attention is MHA/GQA (q: d·h·dh, k, v: d·kv·dh, o: h·dh·d) or MLA
/// (DeepSeek-V2/V3, below). Norm weights are counted (two per layer, one final); biases where the
/// family has them (Qwen2 QKV bias). QK norm: OLMoE normalises the whole q and k projections with
/// RMSNorm weights of h·dh and kv·dh (`OlmoeAttention.q_norm`, `k_norm` in transformers); Llama-4's
/// QK norm is a weightless L2 norm (`Llama4TextL2Norm`), so it adds no parameters.
///
/// Attention per layer: every layer is `full` (attends to the whole context) unless the model has a
/// `sliding_window` W > 0, in which case a `sliding` layer attends to the last W tokens only: its
/// KV cache holds min(S, W) tokens of a sequence of S and its attention work is bounded by W
/// (`attended_tokens`). `layer_attention` lists each layer's kind (gpt-oss alternates sliding and
/// full); empty with W > 0 means every layer slides (Mistral-7B-v0.1). Attention sinks (gpt-oss)
/// are one learned logit per head and layer, an extra term in every softmax.
///
/// Weight formats per component: routed experts, attention projections and the embeddings (input
/// table and LM head) each have a `weight_format` — element bits plus one `scale_bits` scale per
/// `block` elements, so MXFP4 (OCP Microscaling: E2M1 elements, one E8M0 scale per 32) stores
/// 4 + 8/32 = 4.25 bits per weight. A format with `bits` 0 is the model's `weight_bits`, which
/// also holds every other weight (dense FFN, shared experts, router, norms).
///
/// MLA (DeepSeek-V2 §2.1): q = x·W_dq (d × q_lora) → norm → W_uq (q_lora × h·(nope + rope)), or
/// directly W_q (d × h·(nope + rope)) when q_lora_rank = 0; kv: W_dkv (d × (kv_lora + rope)) →
/// norm → W_ukv (kv_lora × h·(nope + v)); out W_o (h·v × d). The KV cache holds the compressed
/// latent and the shared rope key: (kv_lora_rank + qk_rope_head_dim) values per token per layer.

#include <array>    // std::array
#include <cstdint>  // std::int64_t
#include <utility>  // std::pair
#include <string>   // std::string
#include <vector>   // std::vector

#include "strata/core/error.hpp"
#include "strata/core/limits.hpp"
#include "strata/core/units.hpp"

namespace strata {
inline namespace v0 {

/// Feed-forward kind.
enum class ffn_kind {
  swiglu,  ///< gate, up, down: 3·d·f weights
  gelu     ///< up, down: 2·d·f weights
};

/// Names of the FFN kinds, for JSON.
constexpr auto enum_names(ffn_kind) {
  return std::array{std::pair{ffn_kind::swiglu, "swiglu"}, std::pair{ffn_kind::gelu, "gelu"}};
}

/// Multi-head latent attention dimensions (DeepSeek-V2/V3); all zero for MHA/GQA.
struct mla_dims {
  int kv_lora_rank = 0;      ///< rank of the compressed KV latent
  int q_lora_rank = 0;       ///< rank of the compressed query (0: uncompressed query)
  int qk_rope_head_dim = 0;  ///< rotary part of each query/key head
  int qk_nope_head_dim = 0;  ///< non-rotary part of each query/key head
  int v_head_dim = 0;        ///< value head dimension

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("kv_lora_rank", s.kv_lora_rank);
    v("q_lora_rank", s.q_lora_rank);
    v("qk_rope_head_dim", s.qk_rope_head_dim);
    v("qk_nope_head_dim", s.qk_nope_head_dim);
    v("v_head_dim", s.v_head_dim);
  }
  friend bool operator==(const mla_dims&, const mla_dims&) = default;
};

/// Attention kind of one layer.
enum class attention_kind {
  full,    ///< attends to every token of the context
  sliding  ///< attends to the last `sliding_window` tokens
};

/// Names of the attention kinds, for JSON (Hugging Face `layer_types` spells them
/// `full_attention` and `sliding_attention`).
constexpr auto enum_names(attention_kind) {
  return std::array{std::pair{attention_kind::full, "full"}, std::pair{attention_kind::sliding, "sliding"}};
}

/// How one component's weights are stored: `bits` per element plus one `scale_bits` scale per
/// `block` elements. `bits` 0: the model's `weight_bits`, no scales.
struct weight_format {
  int bits = 0;        ///< bits per element (0: the model's weight_bits)
  int scale_bits = 0;  ///< bits of one scale
  int block = 0;       ///< elements per scale (0: no scales)

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("bits", s.bits);
    v("scale_bits", s.scale_bits);
    v("block", s.block);
  }
  friend bool operator==(const weight_format&, const weight_format&) = default;
};

/// MXFP4 (OCP Microscaling Formats v1.0, §5: E2M1 elements, one E8M0 scale per block of 32).
constexpr weight_format mxfp4_format() { return {.bits = 4, .scale_bits = 8, .block = 32}; }

/// A decoder-only transformer, dense or MoE.
struct model {
  std::string name;                 ///< e.g. "Mixtral-8x7B"
  std::string family;               ///< HF model_type: mixtral, olmoe, qwen2, qwen2_moe, deepseek, deepseek_v2, deepseek_v3, dbrx, llama4 (also for a bare llama4_text config), llama, mistral, qwen3, qwen3_moe, gpt_oss, glm4_moe, kimi_k2
  int layers = 0;                   ///< decoder layers (num_hidden_layers)
  int hidden = 0;                   ///< hidden size d
  int heads = 0;                    ///< attention (query) heads
  int kv_heads = 0;                 ///< key/value heads (GQA); = heads for MHA
  int head_dim = 0;                 ///< per-head dimension (MHA/GQA)
  mla_dims mla{};                   ///< MLA dimensions; kv_lora_rank > 0 means MLA
  int vocab = 0;                    ///< vocabulary size
  bool tie_embeddings = false;      ///< LM head shares the embedding matrix
  bool qkv_bias = false;            ///< biases on Q, K, V projections (Qwen2)
  bool qk_norm = false;             ///< norm on queries and keys (OLMoE: RMSNorm; Llama-4: weightless L2)
  ffn_kind ffn = ffn_kind::swiglu;  ///< FFN kind of dense layers and experts
  int dense_ffn = 0;                ///< intermediate size of dense (non-MoE) FFN layers

  // Which layers are MoE: layer i is MoE iff experts > 0, i >= first_dense_layers and
  // (i + moe_layer_offset) % moe_layer_step == 0. DeepSeek: first_k_dense_replace, moe_layer_freq,
  // offset 0; Qwen2-MoE decoder_sparse_step and Llama-4 interleave_moe_layer_step: offset 1.
  int first_dense_layers = 0;
  int moe_layer_step = 1;
  int moe_layer_offset = 0;

  int experts = 0;                  ///< routed experts per MoE layer (0: dense model)
  int top_k = 0;                    ///< routed experts per token
  int expert_ffn = 0;               ///< intermediate size of one routed expert
  int shared_experts = 0;           ///< always-active experts per MoE layer
  int shared_expert_ffn = 0;        ///< intermediate size of one shared expert
  bool shared_expert_gate = false;  ///< sigmoid gate (d weights) on the shared expert (Qwen2-MoE)

  int weight_bits = 16;             ///< bits per weight (BF16/FP16 = 16, FP8 = 8)
  int kv_bits = 16;                 ///< bits per KV-cache value

  int sliding_window = 0;                       ///< tokens a sliding layer attends to (0: none)
  std::vector<attention_kind> layer_attention{};  ///< each layer's kind; empty: all full, or all sliding if sliding_window > 0
  bool attention_sinks = false;                 ///< one learned sink logit per head and layer (gpt-oss)
  bool o_bias = false;                          ///< bias on the attention output projection (gpt-oss, Llama attention_bias)
  bool expert_bias = false;                     ///< biases on the expert projections and the router (gpt-oss)
  weight_format expert_format{};                ///< routed experts' storage (bits 0: weight_bits)
  weight_format attention_format{};             ///< attention projections' storage
  weight_format embedding_format{};             ///< embedding table and LM head storage

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("name", s.name);
    v("family", s.family);
    v("layers", s.layers);
    v("hidden", s.hidden);
    v("heads", s.heads);
    v("kv_heads", s.kv_heads);
    v("head_dim", s.head_dim);
    v("mla", s.mla);
    v("vocab", s.vocab);
    v("tie_embeddings", s.tie_embeddings);
    v("qkv_bias", s.qkv_bias);
    v("qk_norm", s.qk_norm);
    v("ffn", s.ffn);
    v("dense_ffn", s.dense_ffn);
    v("first_dense_layers", s.first_dense_layers);
    v("moe_layer_step", s.moe_layer_step);
    v("moe_layer_offset", s.moe_layer_offset);
    v("experts", s.experts);
    v("top_k", s.top_k);
    v("expert_ffn", s.expert_ffn);
    v("shared_experts", s.shared_experts);
    v("shared_expert_ffn", s.shared_expert_ffn);
    v("shared_expert_gate", s.shared_expert_gate);
    v("weight_bits", s.weight_bits);
    v("kv_bits", s.kv_bits);
    v("sliding_window", s.sliding_window);
    v("layer_attention", s.layer_attention);
    v("attention_sinks", s.attention_sinks);
    v("o_bias", s.o_bias);
    v("expert_bias", s.expert_bias);
    v("expert_format", s.expert_format);
    v("attention_format", s.attention_format);
    v("embedding_format", s.embedding_format);
  }
  friend bool operator==(const model&, const model&) = default;

  /// True for MLA attention.
  template <class = void>
  [[nodiscard]] bool is_mla() const { return mla.kv_lora_rank > 0; }
  /// True if layer `i` is a MoE layer.
  template <class = void>
  [[nodiscard]] bool is_moe_layer(int i) const {
    return experts > 0 && i >= first_dense_layers && (i + moe_layer_offset) % moe_layer_step == 0;
  }
  /// True if layer `i` attends to a sliding window of `sliding_window` tokens.
  template <class = void>
  [[nodiscard]] bool is_sliding_layer(int i) const {
    if (sliding_window <= 0) return false;
    return layer_attention.empty() || layer_attention[static_cast<std::size_t>(i)] == attention_kind::sliding;
  }
  /// Tokens of a context of `context` that layer `i` attends to and caches: min(context, W) for a
  /// sliding layer, the whole context otherwise.
  template <class = void>
  [[nodiscard]] double attended_tokens(int i, double context) const {
    return is_sliding_layer(i) && context > sliding_window ? double(sliding_window) : context;
  }
  /// Number of MoE layers.
  template <class = void>
  [[nodiscard]] int moe_layers() const {
    int n = 0;
    for (int i = 0; i < layers; ++i) n += is_moe_layer(i) ? 1 : 0;
    return n;
  }
};

/// Weights of one FFN of width `f` on hidden size `d`.
template <class = void>
inline std::int64_t ffn_params(ffn_kind k, std::int64_t d, std::int64_t f) {
  return (k == ffn_kind::swiglu ? 3 : 2) * d * f;
}

/// Weights of one attention block (projections, biases, QK norms; not the layer norms). The
/// dimensions are bounded by `validate` (strata::limits()), so these products fit 64 bits.
template <class = void>
inline std::int64_t attention_params(const model& m) {
  const std::int64_t d = m.hidden, h = m.heads;
  if (m.is_mla()) {
    const std::int64_t nope = m.mla.qk_nope_head_dim, rope = m.mla.qk_rope_head_dim,
                       vd = m.mla.v_head_dim, kvr = m.mla.kv_lora_rank, qr = m.mla.q_lora_rank;
    const std::int64_t q = qr > 0 ? d * qr + qr + qr * h * (nope + rope) : d * h * (nope + rope);
    const std::int64_t kv = d * (kvr + rope) + kvr + kvr * h * (nope + vd);
    return q + kv + h * vd * d;
  }
  const std::int64_t dh = m.head_dim, kv = m.kv_heads;
  std::int64_t p = d * h * dh + 2 * d * kv * dh + h * dh * d;
  if (m.qkv_bias) p += h * dh + 2 * kv * dh;
  if (m.o_bias) p += d;
  if (m.attention_sinks) p += h;
  // OLMoE: RMSNorm over the full q (h·dh) and k (kv·dh) projections. Llama-4: weightless L2 norm.
  // Qwen3, GLM-4.5: RMSNorm per head (q_norm, k_norm of dh weights each, shared by the heads).
  if (m.qk_norm) {
    if (m.family == "qwen3" || m.family == "qwen3_moe" || m.family == "glm4_moe") {
      p += 2 * dh;
    } else if (m.family != "llama4") {
      p += (h + kv) * dh;
    }
  }
  return p;
}

/// Parameter counts of a model.
struct param_counts {
  std::int64_t total = 0;        ///< every weight
  std::int64_t active = 0;       ///< weights touched by one token (top-k experts + shared)
  std::int64_t embedding = 0;    ///< input embedding + LM head (once if tied)
  std::int64_t per_expert = 0;   ///< one routed expert
  std::int64_t attention = 0;    ///< all layers' attention blocks

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("total", s.total);
    v("active", s.active);
    v("embedding", s.embedding);
    v("per_expert", s.per_expert);
    v("attention", s.attention);
  }
};

namespace detail {

/// Parameter counts with checked 64-bit arithmetic: a count that does not fit is a
/// `config_error` naming the model field whose product overflowed. Dimensions must be in range.
template <class = void>
inline param_counts count_params_checked(const model& m) {
  constexpr const char* id = "strata.model";
  param_counts c;
  const std::int64_t d = m.hidden;
  c.embedding = checked_mul(checked_mul(m.vocab, d, id, "vocab"), m.tie_embeddings ? 1 : 2, id, "vocab");
  c.per_expert = m.experts > 0 ? checked_mul(checked_mul(m.ffn == ffn_kind::swiglu ? 3 : 2, d, id, "hidden"),
                                             m.expert_ffn, id, "expert_ffn")
                               : 0;
  // gpt-oss: biases on the fused gate/up (2·f, or f for GeLU) and the down projection (d).
  if (m.expert_bias && m.experts > 0) c.per_expert += (m.ffn == ffn_kind::swiglu ? 2 : 1) * std::int64_t(m.expert_ffn) + d;
  const std::int64_t attn = attention_params(m);
  const std::int64_t norms = 2 * d;
  const std::int64_t shared = checked_add(
      checked_mul(m.shared_experts, checked_mul(m.ffn == ffn_kind::swiglu ? 3 * d : 2 * d, m.shared_expert_ffn, id,
                                                "shared_expert_ffn"),
                  id, "shared_experts"),
      m.shared_expert_gate ? d : 0, id, "shared_experts");
  const std::int64_t router = checked_mul(m.experts, d + (m.expert_bias ? 1 : 0), id, "experts");
  const std::int64_t dense = checked_mul(m.ffn == ffn_kind::swiglu ? 3 * d : 2 * d, m.dense_ffn, id, "dense_ffn");
  const std::int64_t moe_common = checked_add(checked_add(attn + norms, router, id, "experts"), shared, id, "experts");
  const std::int64_t moe_total = checked_add(moe_common, checked_mul(c.per_expert, m.experts, id, "experts"), id, "experts");
  const std::int64_t moe_active = checked_add(moe_common, checked_mul(c.per_expert, m.top_k, id, "top_k"), id, "top_k");
  const std::int64_t dense_total = checked_add(attn + norms, dense, id, "dense_ffn");
  const std::int64_t n_moe = m.moe_layers();
  const std::int64_t n_dense = m.layers - n_moe;
  c.attention = checked_mul(attn, m.layers, id, "layers");
  const std::int64_t layers_total = checked_add(checked_mul(moe_total, n_moe, id, "layers"),
                                                checked_mul(dense_total, n_dense, id, "layers"), id, "layers");
  const std::int64_t layers_active = checked_add(checked_mul(moe_active, n_moe, id, "layers"),
                                                 checked_mul(dense_total, n_dense, id, "layers"), id, "layers");
  c.total = checked_add(checked_add(c.embedding, d, id, "hidden"), layers_total, id, "layers");  // + final norm
  c.active = checked_add(checked_add(c.embedding, d, id, "hidden"), layers_active, id, "layers");
  return c;
}


template <class T = double>
void validate_model(const model& m);
}  // namespace detail
/// Checks the description; throws `config_error` naming the field. Every dimension is bounded by
/// `strata::limits()` (strata/core/limits.hpp) and the parameter count must fit 64 bits, so no
/// size derived from a valid model overflows.
template <class = void>
inline void validate(const model& m) { detail::validate_model<>(m); }
// The body is a function template (of a scalar it does not use) so that strata::compiled can hold
// its one instantiation: a consumer built with STRATA_COMPILED=1 compiles none of it.
template <class T>
void detail::validate_model(const model& m) {
  constexpr const char* id = "strata.model";
  const input_limits& lim = limits();
  const auto in = [&](int x, int lo, int hi, const char* field, const char* limit) {
    if (x >= lo && x <= hi) return;  // the message is built only for a failure
    detail::require(false, id, field, x,
                    ("in [" + std::to_string(lo) + ", " + std::to_string(hi) + "] (strata::limits()." + limit + ")")
                        .c_str());
  };
  in(m.layers, 1, lim.layers, "layers", "layers");
  in(m.hidden, 1, lim.hidden, "hidden", "hidden");
  in(m.heads, 1, lim.heads, "heads", "heads");
  detail::require(m.kv_heads >= 1 && m.kv_heads <= m.heads && m.heads % m.kv_heads == 0, id,
                  "kv_heads", m.kv_heads, "a divisor of heads");
  if (m.is_mla()) {
    in(m.mla.kv_lora_rank, 1, lim.rank, "mla.kv_lora_rank", "rank");
    in(m.mla.qk_nope_head_dim, 0, lim.head_dim, "mla.qk_nope_head_dim", "head_dim");
    in(m.mla.qk_rope_head_dim, 1, lim.head_dim, "mla.qk_rope_head_dim", "head_dim");
    in(m.mla.v_head_dim, 1, lim.head_dim, "mla.v_head_dim", "head_dim");
    in(m.mla.q_lora_rank, 0, lim.rank, "mla.q_lora_rank", "rank");
  } else {
    in(m.head_dim, 1, lim.head_dim, "head_dim", "head_dim");
  }
  in(m.vocab, 1, lim.vocab, "vocab", "vocab");
  in(m.dense_ffn, 0, lim.ffn, "dense_ffn", "ffn");
  in(m.first_dense_layers, 0, lim.layers, "first_dense_layers", "layers");
  in(m.moe_layer_step, 1, lim.layers, "moe_layer_step", "layers");
  in(m.moe_layer_offset, 0, lim.layers, "moe_layer_offset", "layers");
  in(m.experts, 0, lim.experts, "experts", "experts");
  if (m.experts > 0) {
    detail::require(m.top_k >= 1 && m.top_k <= m.experts, id, "top_k", m.top_k, "in [1, experts]");
    in(m.expert_ffn, 1, lim.ffn, "expert_ffn", "ffn");
  }
  in(m.shared_experts, 0, lim.experts, "shared_experts", "experts");
  if (m.shared_experts > 0) {
    in(m.shared_expert_ffn, 1, lim.ffn, "shared_expert_ffn", "ffn");
  }
  bool has_dense_layer = false, has_moe_layer = false;
  for (int i = 0; i < m.layers; ++i) {
    const bool moe = m.is_moe_layer(i);
    has_dense_layer = has_dense_layer || !moe;
    has_moe_layer = has_moe_layer || moe;
  }
  if (has_dense_layer) {
    detail::require(m.dense_ffn >= 1, id, "dense_ffn", m.dense_ffn, ">= 1 (the model has dense layers)");
  }
  if (m.experts > 0 && !has_moe_layer) {  // routed experts but no layer to hold them
    if (m.first_dense_layers >= m.layers) {
      detail::require(false, id, "first_dense_layers", m.first_dense_layers,
                      ("below layers (" + std::to_string(m.layers) + ") in a model with routed experts").c_str());
    }
    detail::require(false, id, "moe_layer_step", m.moe_layer_step,
                    ("a step that leaves a MoE layer among the " + std::to_string(m.layers) +
                     " layers (the model has routed experts)")
                        .c_str());
  }
  detail::require(m.weight_bits >= 1 && m.weight_bits <= 64, id, "weight_bits", m.weight_bits, "in [1, 64]");
  detail::require(m.kv_bits >= 1 && m.kv_bits <= 64, id, "kv_bits", m.kv_bits, "in [1, 64]");
  detail::require(m.sliding_window >= 0, id, "sliding_window", m.sliding_window, ">= 0 (0: no sliding window)");
  if (!m.layer_attention.empty()) {
    detail::require(static_cast<int>(m.layer_attention.size()) == m.layers, id, "layer_attention",
                    m.layer_attention.size(), "one kind per layer (layers entries)");
    bool any_sliding = false;
    for (const attention_kind k : m.layer_attention) any_sliding = any_sliding || k == attention_kind::sliding;
    if (any_sliding) {
      detail::require(m.sliding_window >= 1, id, "sliding_window", m.sliding_window, ">= 1 (a layer is sliding)");
    }
  }
  for (const auto& entry : {std::pair{&m.expert_format, "expert_format"}, std::pair{&m.attention_format, "attention_format"},
                             std::pair{&m.embedding_format, "embedding_format"}}) {
    // Not a structured binding: a lambda may not capture one before C++20's P1091 in every compiler.
    const auto* f = entry.first;
    const char* field = entry.second;
    // The field's name is built only for a failure (a model is validated at every entry point).
    const auto check = [&](bool ok, const char* part, int value, const char* what) {
      if (!ok) detail::require(false, id, (std::string(field) + part).c_str(), value, what);
    };
    check(f->bits >= 0 && f->bits <= 64, ".bits", f->bits, "in [0, 64] (0: weight_bits)");
    check(f->scale_bits >= 0 && f->scale_bits <= 64, ".scale_bits", f->scale_bits, "in [0, 64]");
    check(f->block >= 0 && f->block <= (1 << 20), ".block", f->block, "in [0, 2^20]");
    check((f->scale_bits == 0) == (f->block == 0), ".block", f->block, "> 0 exactly when scale_bits > 0");
  }
  (void)detail::count_params_checked(m);  // throws if a parameter count overflows 64 bits
}

/// Counts parameters in total and per token (embeddings and LM head included in both).
template <class = void>
inline param_counts count_params(const model& m) {
  validate(m);
  return detail::count_params_checked(m);
}

/// Bytes of one routed expert's weights.
template <class = void>
inline data_size<> expert_bytes(const model& m) {
  validate(m);
  return units::bit(static_cast<double>(m.experts > 0 ? ffn_params(m.ffn, m.hidden, m.expert_ffn) : 0) *
                    m.weight_bits);
}

/// Bits stored per weight in format `f` of model `m`: bits + scale_bits / block, or the model's
/// `weight_bits` when `f.bits` is 0 (MXFP4: 4 + 8/32 = 4.25).
template <class = void>
inline double storage_bits(const model& m, const weight_format& f) {
  if (f.bits == 0) return double(m.weight_bits);
  return double(f.bits) + (f.block > 0 ? double(f.scale_bits) / double(f.block) : 0.0);
}

/// Bits the arithmetic of format `f` runs at (its element bits; the model's `weight_bits` if 0).
template <class = void>
inline int compute_bits(const model& m, const weight_format& f) { return f.bits == 0 ? m.weight_bits : f.bits; }

/// Bytes of all weights as stored, each component in its format: routed experts, attention
/// projections, embedding table and LM head, and the rest at `weight_bits`.
template <class = void>
inline data_size<> weight_storage_bytes(const model& m) {
  const param_counts c = count_params(m);
  if (m.expert_format.bits == 0 && m.attention_format.bits == 0 && m.embedding_format.bits == 0) {
    return units::bit(static_cast<double>(c.total) * m.weight_bits);  // one format: the plain product
  }
  const double experts = double(c.per_expert) * m.experts * m.moe_layers();
  const double attention = double(c.attention);
  const double embedding = double(c.embedding);
  const double rest = double(c.total) - experts - attention - embedding;
  return units::bit(experts * storage_bits(m, m.expert_format) + attention * storage_bits(m, m.attention_format) +
                    embedding * storage_bits(m, m.embedding_format) + rest * m.weight_bits);
}

namespace detail {
/// `kv_bytes_per_token_layer` of a model already validated.
template <class = void>
inline data_size<> kv_bytes_per_token_layer_valid(const model& m) {
  const double values = m.is_mla() ? double(m.mla.kv_lora_rank + m.mla.qk_rope_head_dim)
                                   : 2.0 * m.kv_heads * m.head_dim;
  return units::bit(values * m.kv_bits);
}
}  // namespace detail

/// KV-cache bytes per token per layer: 2·kv_heads·head_dim values for MHA/GQA,
/// kv_lora_rank + qk_rope_head_dim for MLA (compressed latent + shared rope key).
template <class = void>
inline data_size<> kv_bytes_per_token_layer(const model& m) {
  validate(m);
  return detail::kv_bytes_per_token_layer_valid(m);
}

/// KV-cache bytes of one sequence of `context` tokens over every layer: Σ_l min(context, W_l) ·
/// (bytes per token per layer), a sliding layer holding at most its window.
template <class = void>
inline data_size<> kv_bytes_per_sequence(const model& m, double context) {
  const data_size<> per = kv_bytes_per_token_layer(m);
  double tokens = 0.0;
  for (int l = 0; l < m.layers; ++l) tokens += m.attended_tokens(l, context);
  return per * tokens;
}

}  // namespace v0
}  // namespace strata

// strata::compiled (STRATA_BUILD_COMPILED, src/compiled.cpp) holds the instantiations below;
// STRATA_COMPILED=1, which that target puts on its users, keeps their translation units from
// instantiating them again. Without it this header is unchanged (header-only).
#if defined(STRATA_COMPILED) && STRATA_COMPILED
namespace strata {
inline namespace v0 {
extern template void detail::validate_model<double>(const model&);
}  // namespace v0
}  // namespace strata
#endif
