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

/// A decoder-only transformer, dense or MoE.
struct model {
  std::string name;                 ///< e.g. "Mixtral-8x7B"
  std::string family;               ///< HF model_type: mixtral, olmoe, qwen2, qwen2_moe, deepseek, deepseek_v2, deepseek_v3, dbrx, llama4 (also for a bare llama4_text config)
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
  }
  friend bool operator==(const model&, const model&) = default;

  /// True for MLA attention.
  [[nodiscard]] bool is_mla() const { return mla.kv_lora_rank > 0; }
  /// True if layer `i` is a MoE layer.
  [[nodiscard]] bool is_moe_layer(int i) const {
    return experts > 0 && i >= first_dense_layers && (i + moe_layer_offset) % moe_layer_step == 0;
  }
  /// Number of MoE layers.
  [[nodiscard]] int moe_layers() const {
    int n = 0;
    for (int i = 0; i < layers; ++i) n += is_moe_layer(i) ? 1 : 0;
    return n;
  }
};

/// Weights of one FFN of width `f` on hidden size `d`.
inline std::int64_t ffn_params(ffn_kind k, std::int64_t d, std::int64_t f) {
  return (k == ffn_kind::swiglu ? 3 : 2) * d * f;
}

/// Weights of one attention block (projections, biases, QK norms; not the layer norms). The
/// dimensions are bounded by `validate` (strata::limits()), so these products fit 64 bits.
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
  // OLMoE: RMSNorm over the full q (h·dh) and k (kv·dh) projections. Llama-4: weightless L2 norm.
  if (m.qk_norm && m.family != "llama4") p += (h + kv) * dh;
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
inline param_counts count_params_checked(const model& m) {
  constexpr const char* id = "strata.model";
  param_counts c;
  const std::int64_t d = m.hidden;
  c.embedding = checked_mul(checked_mul(m.vocab, d, id, "vocab"), m.tie_embeddings ? 1 : 2, id, "vocab");
  c.per_expert = m.experts > 0 ? checked_mul(checked_mul(m.ffn == ffn_kind::swiglu ? 3 : 2, d, id, "hidden"),
                                             m.expert_ffn, id, "expert_ffn")
                               : 0;
  const std::int64_t attn = attention_params(m);
  const std::int64_t norms = 2 * d;
  const std::int64_t shared = checked_add(
      checked_mul(m.shared_experts, checked_mul(m.ffn == ffn_kind::swiglu ? 3 * d : 2 * d, m.shared_expert_ffn, id,
                                                "shared_expert_ffn"),
                  id, "shared_experts"),
      m.shared_expert_gate ? d : 0, id, "shared_experts");
  const std::int64_t router = checked_mul(m.experts, d, id, "experts");
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

}  // namespace detail

/// Checks the description; throws `config_error` naming the field. Every dimension is bounded by
/// `strata::limits()` (strata/core/limits.hpp) and the parameter count must fit 64 bits, so no
/// size derived from a valid model overflows.
inline void validate(const model& m) {
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
  bool has_dense_layer = false;
  for (int i = 0; i < m.layers; ++i) has_dense_layer = has_dense_layer || !m.is_moe_layer(i);
  if (has_dense_layer) {
    detail::require(m.dense_ffn >= 1, id, "dense_ffn", m.dense_ffn, ">= 1 (the model has dense layers)");
  }
  detail::require(m.weight_bits >= 1 && m.weight_bits <= 64, id, "weight_bits", m.weight_bits, "in [1, 64]");
  detail::require(m.kv_bits >= 1 && m.kv_bits <= 64, id, "kv_bits", m.kv_bits, "in [1, 64]");
  (void)detail::count_params_checked(m);  // throws if a parameter count overflows 64 bits
}

/// Counts parameters in total and per token (embeddings and LM head included in both).
inline param_counts count_params(const model& m) {
  validate(m);
  return detail::count_params_checked(m);
}

/// Bytes of one routed expert's weights.
inline data_size<> expert_bytes(const model& m) {
  validate(m);
  return units::bit(static_cast<double>(m.experts > 0 ? ffn_params(m.ffn, m.hidden, m.expert_ffn) : 0) *
                    m.weight_bits);
}

namespace detail {
/// `kv_bytes_per_token_layer` of a model already validated.
inline data_size<> kv_bytes_per_token_layer_valid(const model& m) {
  const double values = m.is_mla() ? double(m.mla.kv_lora_rank + m.mla.qk_rope_head_dim)
                                   : 2.0 * m.kv_heads * m.head_dim;
  return units::bit(values * m.kv_bits);
}
}  // namespace detail

/// KV-cache bytes per token per layer: 2·kv_heads·head_dim values for MHA/GQA,
/// kv_lora_rank + qk_rope_head_dim for MLA (compressed latent + shared rope key).
inline data_size<> kv_bytes_per_token_layer(const model& m) {
  validate(m);
  return detail::kv_bytes_per_token_layer_valid(m);
}

}  // namespace v0
}  // namespace strata
