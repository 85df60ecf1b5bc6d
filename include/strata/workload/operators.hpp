// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The operators of one serving step of a `model`: FLOPs and bytes per operator for decode
/// (batch B, context S) and prefill (B sequences × S tokens), and the data class each one reads.
///
/// Conventions (stated once, used everywhere):
/// - FLOPs count a multiply-add as 2 (HCRMap Eq. 13 counts MACs, i.e. half of this).
/// - A projection with P weights applied to T tokens does 2·P·T FLOPs and reads its P weights once
///   per step (weights are shared by the batch); activations in and out are T·(in + out) values.
/// - Tokens per step: decode T = B (one new token per sequence), prefill T = B·S.
/// - Attention core, MHA/GQA, decode: QKᵀ 2·h·dh·S and AV 2·h·dh·S FLOPs per sequence; reads
///   the S cached tokens' K and V and appends one token's. Prefill (causal): each query attends to its prefix, so
///   S(S+1)/2 query–key pairs per sequence; K and V of the S tokens are written once.
/// - MLA decode uses the absorbed form (DeepSeek-V2 §2.1.2): scores over the cached latent and
///   rope key, 2·h·(kv_lora + rope)·S, context 2·h·kv_lora·S; the absorbed up-projections are
///   part of the projection weights. MLA prefill uses the explicit form: QKᵀ over nope + rope
///   dims and AV over v_head_dim.
/// - Routed experts: B·k routings per MoE layer. Without a trace, routing is uniform and the
///   expected number of distinct experts touched is E·(1 − (1 − k/E)^T) (each token picks k of E
///   experts without replacement); their weights are read once. With a per-layer expert
///   histogram (from a trace), the touched experts and their token counts are exact, one
///   operator per touched expert.
/// - Softmax, norms and activations are counted as element-wise FLOPs (5 per score for softmax,
///   4 per element for RMSNorm, 4 per element for SiLU·mul) — small next to the matrix work.

#include <algorithm>  // std::min
#include <array>      // std::array
#include <cmath>    // std::pow
#include <utility>    // std::pair
#include <cstdint>  // std::uint32_t
#include <string>   // std::string
#include <vector>   // std::vector

#include "strata/core/error.hpp"
#include "strata/core/units.hpp"
#include "strata/workload/model.hpp"

namespace strata {
inline namespace v0 {

/// Serving phase.
enum class phase { decode, prefill };
constexpr auto enum_names(phase) {
  return std::array{std::pair{phase::decode, "decode"}, std::pair{phase::prefill, "prefill"}};
}

/// What an operator's weights are, for placement (Stratum §5.2's data classes).
enum class data_class {
  expert,      ///< a routed expert's weights, by (layer, expert)
  weights,     ///< other weights the NMP/accelerator streams every step: attention, dense FFN,
               ///< shared experts, router
  kv,          ///< the KV cache
  non_nmp      ///< data only the xPU reads: embeddings, LM head, norm scales
};
constexpr auto enum_names(data_class) {
  return std::array{std::pair{data_class::expert, "expert"}, std::pair{data_class::weights, "weights"},
                    std::pair{data_class::kv, "kv"}, std::pair{data_class::non_nmp, "non_nmp"}};
}

/// Kind of operator.
enum class op_kind {
  embedding, attn_norm, qkv_proj, attention, out_proj, ffn_norm, router, routed_experts,
  expert, shared_experts, dense_ffn, final_norm, lm_head
};
constexpr auto enum_names(op_kind) {
  return std::array{std::pair{op_kind::embedding, "embedding"},     std::pair{op_kind::attn_norm, "attn_norm"},
                    std::pair{op_kind::qkv_proj, "qkv_proj"},       std::pair{op_kind::attention, "attention"},
                    std::pair{op_kind::out_proj, "out_proj"},       std::pair{op_kind::ffn_norm, "ffn_norm"},
                    std::pair{op_kind::router, "router"},           std::pair{op_kind::routed_experts, "routed_experts"},
                    std::pair{op_kind::expert, "expert"},           std::pair{op_kind::shared_experts, "shared_experts"},
                    std::pair{op_kind::dense_ffn, "dense_ffn"},     std::pair{op_kind::final_norm, "final_norm"},
                    std::pair{op_kind::lm_head, "lm_head"}};
}
/// Name of an operator kind.
template <class = void>
inline const char* to_string(op_kind k) {
  for (const auto& [e, n] : enum_names(op_kind{})) {
    if (e == k) return n;
  }
  return "?";
}

/// One operator of a step: work and bytes. Kept free of strings so a step of a 61-layer model
/// is built without per-operator allocations; `op_name` formats a name on demand.
struct op {
  op_kind kind = op_kind::qkv_proj;
  data_class reads = data_class::weights;
  int layer = -1;             ///< decoder layer (−1 for embedding, final norm, LM head)
  int expert = -1;            ///< routed expert id for `expert` operators, else −1
  double instances = 1.0;     ///< distinct weight objects touched (expected experts for `routed_experts`)
  double tokens = 0.0;        ///< tokens processed
  op_count<> flops{};         ///< floating-point operations (multiply-add = 2)
  data_size<> weight_bytes{}; ///< weights read
  data_size<> activation_bytes{};  ///< activations read and written
  data_size<> kv_bytes{};     ///< KV cache read (decode) or written (prefill)
  int bits = 16;              ///< arithmetic precision: the weights' bits, or the activations' for
                              ///< operators without weights (attention core)
  /// Tensor-parallel devices the KV bytes divide over at most: the KV heads (a device beyond them
  /// holds a replica of a head, as vLLM replicates KV heads when TP exceeds them), 1 for MLA's
  /// latent cache (one latent vector per token, held and read whole by every rank); 0: every device.
  int kv_shards = 0;

  /// All bytes the operator moves.
  template <class = void>
  [[nodiscard]] data_size<> bytes() const { return weight_bytes + activation_bytes + kv_bytes; }

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("kind", s.kind);
    v("reads", s.reads);
    v("layer", s.layer);
    v("expert", s.expert);
    v("instances", s.instances);
    v("tokens", s.tokens);
    v("flops", s.flops);
    v("weight_bytes", s.weight_bytes);
    v("activation_bytes", s.activation_bytes);
    v("kv_bytes", s.kv_bytes);
    v("bits", s.bits);
    v("kv_shards", s.kv_shards);
  }
};

/// "L3.qkv_proj", "L3.expert17", "lm_head".
template <class = void>
inline std::string op_name(const op& o) {
  // Appended piece by piece: `"L" + std::to_string(...)` trips GCC 12's false -Wrestrict
  // (GCC bug 105329) under -Werror.
  std::string n;
  if (o.layer >= 0) {
    n += 'L';
    n += std::to_string(o.layer);
    n += '.';
  }
  n += to_string(o.kind);
  if (o.expert >= 0) n += std::to_string(o.expert);
  return n;
}

/// The shape of a step.
struct step_shape {
  phase mode = phase::decode;  ///< decode or prefill
  int batch = 1;               ///< sequences B
  int context = 2048;          ///< S: tokens already in context (decode) or prompt length (prefill)
  int activation_bits = 16;    ///< bits per activation value

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("mode", s.mode);
    v("batch", s.batch);
    v("context", s.context);
    v("activation_bits", s.activation_bits);
  }
};

/// Checks a step shape; throws `config_error` naming the field.
template <class = void>
inline void validate(const step_shape& s) {
  detail::require(s.batch >= 1, "strata.operators", "batch", s.batch, ">= 1");
  detail::require(s.context >= 1, "strata.operators", "context", s.context, ">= 1");
  detail::require(s.activation_bits >= 1 && s.activation_bits <= 64, "strata.operators",
                  "activation_bits", s.activation_bits, "in [1, 64]");
}

/// Per-layer routing counts: `counts[layer][expert]` = tokens routed to the expert in that MoE
/// layer, indexed by MoE-layer order (0 = first MoE layer). Empty: uniform routing.
using expert_histogram = std::vector<std::vector<std::uint32_t>>;

/// Expected distinct experts touched by `tokens` tokens each routed to k of E experts uniformly
/// without replacement: E·(1 − (1 − k/E)^tokens).
template <class = void>
inline double expected_distinct_experts(int experts, int k, double tokens) {
  detail::require(experts >= 1, "strata.operators", "experts", experts, ">= 1");
  detail::require(k >= 1 && k <= experts, "strata.operators", "top_k", k, "in [1, experts]");
  detail::require(tokens >= 0.0, "strata.operators", "tokens", tokens, ">= 0");
  return experts * (1.0 - std::pow(1.0 - double(k) / experts, tokens));
}

namespace detail {
struct op_builder {
  const model& m;
  const step_shape& s;
  std::vector<op>& out;
  double wbyte, abyte, kvbyte, T;
  // Per-component weight formats (model.hpp): bytes per weight and arithmetic bits of the routed
  // experts, the attention projections and the embedding table / LM head.
  double wbyte_expert = storage_bits(m, m.expert_format) / 8.0;
  double wbyte_attention = storage_bits(m, m.attention_format) / 8.0;
  double wbyte_embedding = storage_bits(m, m.embedding_format) / 8.0;
  int bits_expert = compute_bits(m, m.expert_format);
  int bits_attention = compute_bits(m, m.attention_format);
  int bits_embedding = compute_bits(m, m.embedding_format);

  template <class = void>
  void push(op_kind kind, data_class reads, int layer, double weights, double flops,
            double act_values, double kv_b = 0.0, double tokens = -1.0) {
    // Built in place: a stack `op` copied in with 16-byte moves stalls on store forwarding.
    op& o = out.emplace_back();
    o.kind = kind;
    o.reads = reads;
    o.layer = layer;
    o.tokens = tokens < 0.0 ? T : tokens;
    o.flops = op_count<>::from_si(flops);
    const bool expert = kind == op_kind::routed_experts || kind == op_kind::expert;
    const bool attention = kind == op_kind::qkv_proj || kind == op_kind::out_proj;
    const bool embedding = kind == op_kind::embedding || kind == op_kind::lm_head;
    o.weight_bytes = data_size<>::from_si(
        weights * (expert ? wbyte_expert : attention ? wbyte_attention : embedding ? wbyte_embedding : wbyte));
    o.activation_bytes = data_size<>::from_si(act_values * abyte);
    o.kv_bytes = data_size<>::from_si(kv_b);
    // Matrix work with weights runs at the weights' precision, the rest at the activations'.
    o.bits = weights <= 0.0 ? s.activation_bits
             : expert       ? bits_expert
             : attention    ? bits_attention
             : embedding    ? bits_embedding
                            : m.weight_bits;
  }
  // A projection of `p` weights mapping `in` to `out` values per token.
  template <class = void>
  void proj(op_kind kind, data_class reads, int layer, double p, double in, double outv) {
    push(kind, reads, layer, p, 2.0 * p * T, T * (in + outv));
  }
};

/// The terms of a step that are the same in every layer: computed once per step.
struct layer_terms {
  bool decode = true;
  double B = 0.0, S = 0.0, T = 0.0, d = 0.0, h = 0.0;
  double o_params = 0.0, attn_params = 0.0, q_out = 0.0, kv_out = 0.0;
  double uniform_distinct = 0.0;  ///< expected experts touched per MoE layer (uniform routing)
};

template <class = void>
inline layer_terms make_layer_terms(const model& m, const step_shape& s, bool exact_routing) {
  layer_terms k;
  k.decode = s.mode == phase::decode;
  k.B = s.batch;
  k.S = s.context;
  k.T = k.decode ? k.B : k.B * k.S;
  k.d = m.hidden;
  k.h = m.heads;
  const double d = k.d, h = k.h;
  k.o_params = m.is_mla() ? h * m.mla.v_head_dim * d : h * m.head_dim * d;
  k.attn_params = double(attention_params(m));
  k.q_out = m.is_mla() ? h * (m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim) : h * m.head_dim;
  k.kv_out = m.is_mla() ? double(m.mla.kv_lora_rank + m.mla.qk_rope_head_dim) : 2.0 * m.kv_heads * m.head_dim;
  // Uniform routing touches the same expected number of experts in every MoE layer.
  k.uniform_distinct = m.experts > 0 && !exact_routing ? expected_distinct_experts(m.experts, m.top_k, k.T) : 0.0;
  return k;
}

/// Checks that a routing histogram has one row per MoE layer.
template <class = void>
inline void check_histogram_layers(const model& m, const expert_histogram& hist) {
  if (hist.empty()) return;
  const int moe_layers = m.moe_layers();
  if (static_cast<int>(hist.size()) != moe_layers) {
    detail::require(false, "strata.operators", "histogram.layers", hist.size(),
                    ("= MoE layers (" + std::to_string(moe_layers) + ")").c_str());
  }
}

/// What makes two layers' operators differ: dense or MoE, and with a routing histogram the MoE
/// layer's own row. Layers with equal keys have the same operators but for `op::layer`; a
/// per-layer property that changes the operators must enter the key.
struct layer_key {
  bool moe = false;
  bool sliding = false;  ///< a sliding-window attention layer (`model::is_sliding_layer`)
  int moe_index = -1;    ///< with a histogram: the MoE layer's row; else −1
  friend bool operator==(const layer_key&, const layer_key&) = default;
};

template <class = void>
inline layer_key key_of_layer(const model& m, int l, int moe_index, bool exact_routing) {
  const bool moe = m.is_moe_layer(l);
  return {moe, m.is_sliding_layer(l), moe && exact_routing ? moe_index : -1};
}

/// The embedding: a gather of T rows of the table.
template <class = void>
inline void push_embedding(op_builder& b, const layer_terms& k) {
  b.push(op_kind::embedding, data_class::non_nmp, -1, std::min(k.T, double(b.m.vocab)) * k.d, 0.0, k.T * k.d);
}

/// The operators of decoder layer `l` (`moe_index`: its row in `hist` if it is a MoE layer).
template <class = void>
inline void push_layer(op_builder& b, const layer_terms& k, int l, int moe_index, const expert_histogram& hist) {
  const model& m = b.m;
  const double B = k.B, S = k.S, T = k.T, d = k.d, h = k.h;
  const double q_out = k.q_out, kv_out = k.kv_out, o_params = k.o_params;
  b.push(op_kind::attn_norm, data_class::non_nmp, l, d, 4.0 * d * T, 2.0 * T * d);
  // Attention projections: the whole attention block's weights minus the output projection.
  b.proj(op_kind::qkv_proj, data_class::weights, l, k.attn_params - o_params, d, q_out + kv_out);
  // Attention core. A sliding layer attends to at most W tokens (`attended_tokens`): decode
  // reads Sw = min(S, W) cached tokens; prefill has Σ_i min(i, W) query–key pairs. A sink adds
  // one softmax term per head and query.
  {
    double flops = 0.0, scores = 0.0;
    const double ctx_out = m.is_mla() ? h * m.mla.v_head_dim : h * m.head_dim;
    const double Sw = m.attended_tokens(l, S);
    const double sinks = m.attention_sinks ? 1.0 : 0.0;
    if (k.decode) {
      const double qk_dim = m.is_mla() ? m.mla.kv_lora_rank + m.mla.qk_rope_head_dim : m.head_dim;
      const double v_dim = m.is_mla() ? m.mla.kv_lora_rank : m.head_dim;
      scores = B * h * Sw;
      flops = 2.0 * B * h * Sw * (qk_dim + v_dim) + 5.0 * (scores + B * h * sinks);
      // Reads the Sw cached tokens and appends the new token's entry.
      b.push(op_kind::attention, data_class::kv, l, 0.0, flops, B * (q_out + ctx_out), B * (Sw + 1.0) * b.kvbyte);
      b.out.back().kv_shards = m.is_mla() ? 1 : m.kv_heads;
    } else {
      const double pairs = Sw < S ? Sw * (Sw + 1.0) / 2.0 + (S - Sw) * Sw : S * (S + 1.0) / 2.0;
      const double qk_dim = m.is_mla() ? m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim : m.head_dim;
      const double v_dim = m.is_mla() ? m.mla.v_head_dim : m.head_dim;
      scores = B * h * pairs;
      flops = 2.0 * B * h * pairs * (qk_dim + v_dim) + 5.0 * (scores + B * h * S * sinks);
      b.push(op_kind::attention, data_class::kv, l, 0.0, flops, T * (q_out + kv_out + ctx_out), B * S * b.kvbyte);
      b.out.back().kv_shards = m.is_mla() ? 1 : m.kv_heads;
    }
  }
  b.proj(op_kind::out_proj, data_class::weights, l, o_params, m.is_mla() ? h * m.mla.v_head_dim : h * m.head_dim, d);
  b.push(op_kind::ffn_norm, data_class::non_nmp, l, d, 4.0 * d * T, 2.0 * T * d);
  if (m.is_moe_layer(l)) {
    const double E = m.experts, topk = m.top_k;
    const double per_expert = double(ffn_params(m.ffn, m.hidden, m.expert_ffn));
    const double f = m.expert_ffn;
    const double act_flops_per_token = m.ffn == ffn_kind::swiglu ? 4.0 * f : 8.0 * f;
    b.proj(op_kind::router, data_class::weights, l, d * E, d, E);
    if (hist.empty()) {
      const double distinct = k.uniform_distinct;
      b.push(op_kind::routed_experts, data_class::expert, l, per_expert * distinct,
             T * topk * (2.0 * per_expert + act_flops_per_token), T * topk * 2.0 * d, 0.0, T * topk);
      b.out.back().instances = distinct;
    } else {
      const auto& counts = hist[static_cast<std::size_t>(moe_index)];
      if (static_cast<int>(counts.size()) != m.experts) {
        detail::require(false, "strata.operators", "histogram[" + std::to_string(moe_index) + "].experts",
                        counts.size(), ("= experts (" + std::to_string(m.experts) + ")").c_str());
      }
      for (int e = 0; e < m.experts; ++e) {
        const double n = counts[static_cast<std::size_t>(e)];
        if (n <= 0.0) continue;
        b.push(op_kind::expert, data_class::expert, l, per_expert, n * (2.0 * per_expert + act_flops_per_token),
               n * 2.0 * d, 0.0, n);
        b.out.back().expert = e;
      }
    }
    if (m.shared_experts > 0) {
      const double p = m.shared_experts * double(ffn_params(m.ffn, m.hidden, m.shared_expert_ffn)) +
                       (m.shared_expert_gate ? d : 0.0);
      const double fs = double(m.shared_experts) * m.shared_expert_ffn;
      b.push(op_kind::shared_experts, data_class::weights, l, p,
             2.0 * p * T + T * (m.ffn == ffn_kind::swiglu ? 4.0 : 8.0) * fs, 2.0 * T * d);
    }
  } else {
    const double p = double(ffn_params(m.ffn, m.hidden, m.dense_ffn));
    const double f = m.dense_ffn;
    b.push(op_kind::dense_ffn, data_class::weights, l, p,
           2.0 * p * T + T * (m.ffn == ffn_kind::swiglu ? 4.0 : 8.0) * f, 2.0 * T * d);
  }
}

/// The final norm and the LM head (logits for the last token of each sequence, prefill included).
template <class = void>
inline void push_head(op_builder& b, const layer_terms& k) {
  const double B = k.B, d = k.d;
  b.push(op_kind::final_norm, data_class::non_nmp, -1, d, 4.0 * d * B, 2.0 * B * d, 0.0, B);
  const double lm = double(b.m.vocab) * d;
  b.push(op_kind::lm_head, data_class::non_nmp, -1, lm, 2.0 * lm * B, B * (d + b.m.vocab), 0.0, B);
}

/// `step_operators` of a model and a shape already validated.
template <class = void>
inline std::vector<op> step_operators_valid(const model& m, const step_shape& s, const expert_histogram& hist) {
  check_histogram_layers(m, hist);
  const layer_terms k = make_layer_terms(m, s, !hist.empty());
  std::vector<op> out;
  out.reserve(static_cast<std::size_t>(m.layers) * 9 + 3 +
              (hist.empty() ? 0 : std::size_t(m.moe_layers()) * std::size_t(m.top_k) * 4));
  op_builder b{m, s, out, m.weight_bits / 8.0, s.activation_bits / 8.0,
               kv_bytes_per_token_layer_valid(m).in(units::B), k.T};
  push_embedding(b, k);
  int moe_index = 0;
  for (int l = 0; l < m.layers; ++l) {
    push_layer(b, k, l, moe_index, hist);
    if (m.is_moe_layer(l)) ++moe_index;
  }
  push_head(b, k);
  return out;
}
}  // namespace detail

/// The operators of one step, in execution order. `hist` (optional) gives exact routing per
/// MoE layer; without it routing is uniform (expected distinct experts).
template <class = void>
inline std::vector<op> step_operators(const model& m, const step_shape& s,
                                      const expert_histogram& hist = {}) {
  validate(m);
  validate(s);
  return detail::step_operators_valid(m, s, hist);
}

/// One distinct layer of a `layered_step`: its operators and the layers it stands for.
struct layer_group {
  std::size_t begin = 0;  ///< its first operator in `layered_step::ops`
  std::size_t end = 0;    ///< one past its last operator
  int layer = 0;          ///< the first layer it stands for (its operators carry this index)
  int count = 0;          ///< how many layers it stands for
};

/// Consecutive layers [first, first + count) that are all layer group `group`.
struct layer_run {
  int first = 0;
  int count = 0;
  int group = 0;
};

/// The operators of one step with each distinct layer once (`step_layers`): the embedding, each
/// layer group's operators, the final norm and the LM head, and the runs of identical layers
/// that say which group each layer is. Under uniform routing a model has two distinct layers at
/// most (dense and MoE; DeepSeek-V3's 61 layers: 3 dense, 58 MoE); with a routing histogram each
/// MoE layer is its own. `step_operators` lists the same operators for every layer.
struct layered_step {
  step_shape shape{};
  int hidden = 0;                   ///< the model's hidden size (the all-reduced activations)
  std::vector<op> ops;              ///< [0, layers_begin) embedding; groups; [layers_end, size) head
  std::vector<layer_group> groups;  ///< in order of their first layer
  std::vector<layer_run> runs;      ///< every decoder layer, in order
  std::size_t layers_begin = 0;     ///< first operator of the first group
  std::size_t layers_end = 0;       ///< one past the last group's operators
};

namespace detail {
/// `step_layers` of a model and a shape already validated.
template <class = void>
inline layered_step step_layers_valid(const model& m, const step_shape& s, const expert_histogram& hist) {
  check_histogram_layers(m, hist);
  const bool exact = !hist.empty();
  const layer_terms k = make_layer_terms(m, s, exact);
  layered_step st;
  st.shape = s;
  st.hidden = m.hidden;
  st.ops.reserve(exact ? static_cast<std::size_t>(m.layers) * 9 + 3 + std::size_t(m.moe_layers()) * std::size_t(m.top_k) * 4
                       : 2 * 9 + 3);
  op_builder b{m, s, st.ops, m.weight_bits / 8.0, s.activation_bits / 8.0,
               kv_bytes_per_token_layer_valid(m).in(units::B), k.T};
  push_embedding(b, k);
  st.layers_begin = st.ops.size();
  std::vector<layer_key> keys;
  int moe_index = 0;
  for (int l = 0; l < m.layers; ++l) {
    const layer_key key = key_of_layer(m, l, moe_index, exact);
    int g = 0;
    while (g < static_cast<int>(keys.size()) && !(keys[static_cast<std::size_t>(g)] == key)) ++g;
    if (g == static_cast<int>(keys.size())) {
      keys.push_back(key);
      layer_group grp;
      grp.begin = st.ops.size();
      grp.layer = l;
      push_layer(b, k, l, moe_index, hist);
      grp.end = st.ops.size();
      st.groups.push_back(grp);
    }
    ++st.groups[static_cast<std::size_t>(g)].count;
    if (!st.runs.empty() && st.runs.back().group == g) {
      ++st.runs.back().count;
    } else {
      st.runs.push_back({l, 1, g});
    }
    if (key.moe) ++moe_index;
  }
  st.layers_end = st.ops.size();
  push_head(b, k);
  return st;
}
}  // namespace detail

/// The operators of one step with each distinct layer once and the layers each stands for (the
/// input of the fast `evaluate` overload; the same operators as `step_operators`, not repeated).
template <class = void>
inline layered_step step_layers(const model& m, const step_shape& s, const expert_histogram& hist = {}) {
  validate(m);
  validate(s);
  return detail::step_layers_valid(m, s, hist);
}

/// Totals of an operator list.
struct op_totals {
  op_count<> flops{};
  data_size<> weight_bytes{}, activation_bytes{}, kv_bytes{};

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("flops", s.flops);
    v("weight_bytes", s.weight_bytes);
    v("activation_bytes", s.activation_bytes);
    v("kv_bytes", s.kv_bytes);
  }
};

/// Sums FLOPs and bytes by kind over `ops`.
template <class = void>
inline op_totals totals(const std::vector<op>& ops) {
  op_totals t;
  for (const auto& o : ops) {
    t.flops += o.flops;
    t.weight_bytes += o.weight_bytes;
    t.activation_bytes += o.activation_bytes;
    t.kv_bytes += o.kv_bytes;
  }
  return t;
}

}  // namespace v0
}  // namespace strata
