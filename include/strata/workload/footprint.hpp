// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// What must be resident to serve a step, by data class (the data classes of the tier vocabulary:
/// routed experts, other weights, KV cache, embedding/LM head, activations), for a whole model
/// or a range of its layers (a pipeline stage), and the per-tier usage and verdict that capacity
/// checks report (`roofline.hpp`'s `check_capacity`, `chiplet/capacity.hpp`'s package fit).
///
///   experts      = Σ_{MoE layers} E · S^wt · copies
///   weights      = Σ_layers attention + (router + shared experts | dense FFN)
///   KV cache     = batch · context · layers · KV bytes per token-layer
///   embedding/LM head and norm scales: vocab · d for the embedding (first stage), vocab · d for the
///   LM head (last stage; once when tied and both are held), 2·d per layer, d final norm
///   activations  = T · a · (4·d + 2·F) + B · vocab · 4 B (`activation_workspace`)

#include <algorithm>  // std::max
#include <cstdio>     // std::snprintf
#include <string>     // std::string
#include <utility>    // std::pair
#include <vector>     // std::vector

#include "strata/core/error.hpp"
#include "strata/core/units.hpp"
#include "strata/workload/model.hpp"
#include "strata/workload/operators.hpp"

namespace strata {
inline namespace v0 {

/// Bytes that must be resident for a step, by data class (whole model or a layer range; every
/// device together).
struct footprint {
  data_size<> experts{};      ///< every routed expert's weights (× `expert_copies`)
  data_size<> weights{};      ///< attention, router, shared experts, dense FFN
  data_size<> kv{};           ///< KV cache of batch × context tokens
  data_size<> non_nmp{};      ///< embedding, LM head, norm scales
  data_size<> activations{};  ///< activation workspace of the step
  template <class = void>
  [[nodiscard]] data_size<> total() const { return experts + weights + kv + non_nmp + activations; }

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("experts", s.experts);
    v("weights", s.weights);
    v("kv", s.kv);
    v("non_nmp", s.non_nmp);
    v("activations", s.activations);
  }
};

/// Which part of a model a footprint covers: decoder layers [first_layer, end_layer) (end −1:
/// the last layer), with or without the embedding table and the LM head (a pipeline stage holds
/// the embedding only if it is the first, the LM head only if it is the last).
struct layer_range {
  int first_layer = 0;
  int end_layer = -1;
  bool embedding = true;
  bool head = true;
};

namespace detail {
/// `activation_workspace` of a model and a shape already validated.
template <class = void>
inline data_size<> activation_workspace_valid(const model& m, const step_shape& s, bool head) {
  const double T = s.mode == phase::decode ? double(s.batch) : double(s.batch) * double(s.context);
  const double moe_width = double(m.top_k) * m.expert_ffn + double(m.shared_experts) * m.shared_expert_ffn;
  const bool has_dense = m.moe_layers() < m.layers;
  const double F = m.experts == 0 ? double(m.dense_ffn) : has_dense ? std::max(double(m.dense_ffn), moe_width) : moe_width;
  const data_size<> per_token = units::bit((4.0 * m.hidden + 2.0 * F) * s.activation_bits);
  return per_token * T + units::B(head ? 4.0 * s.batch * double(m.vocab) : 0.0);
}
}  // namespace detail

/// The activation workspace of a step (every device together):
///   A = T · a · (4·d + 2·F) + B · vocab · 4 B
/// with T the step's tokens, a the bytes per activation, F the widest FFN intermediate a token
/// passes through (dense FFN, or top-k routed plus shared experts): the residual stream, the
/// normed input, the query and the attention output (4·d) and the gate and up outputs (2·F) of
/// one layer live at once, plus FP32 logits of the sampled tokens (only with the LM head).
template <class = void>
inline data_size<> activation_workspace(const model& m, const step_shape& s, bool head = true) {
  validate(m);
  validate(s);
  return detail::activation_workspace_valid(m, s, head);
}

namespace detail {
/// `resident_footprint` of a model and a shape already validated.
template <class = void>
inline footprint resident_footprint_valid(const model& m, const step_shape& s, const layer_range& r,
                                          double expert_copies) {
  const int end = r.end_layer < 0 ? m.layers : r.end_layer;
  detail::require(r.first_layer >= 0 && r.first_layer < m.layers, "strata.roofline", "first_layer", r.first_layer,
                  "a layer of the model");
  detail::require(end > r.first_layer && end <= m.layers, "strata.roofline", "end_layer", end,
                  "in (first_layer, layers]");
  detail::require(expert_copies >= 1.0, "strata.roofline", "expert_copies", expert_copies, ">= 1");
  const double wbyte = m.weight_bits / 8.0;
  const double d = m.hidden;
  const double attn = double(attention_params(m));
  const double router = double(m.experts) * d;
  const double shared = double(m.shared_experts) * double(ffn_params(m.ffn, m.hidden, m.shared_expert_ffn)) +
                        (m.shared_expert_gate ? d : 0.0);
  const double dense = double(ffn_params(m.ffn, m.hidden, m.dense_ffn));
  const double expert = double(m.experts > 0 ? ffn_params(m.ffn, m.hidden, m.expert_ffn) : 0);
  double experts = 0.0, weights = 0.0, norms = 0.0;
  for (int l = r.first_layer; l < end; ++l) {
    weights += attn + (m.is_moe_layer(l) ? router + shared : dense);
    experts += m.is_moe_layer(l) ? expert * m.experts : 0.0;
    norms += 2.0 * d;
  }
  const double table = double(m.vocab) * d;
  double non_nmp = norms + (r.head ? d : 0.0);  // final norm with the head
  if (r.embedding) non_nmp += table;
  // A tied LM head is the embedding table: a stage holding both holds it once.
  if (r.head && !(m.tie_embeddings && r.embedding)) non_nmp += table;
  footprint f;
  // Per-component formats (model.hpp): experts, attention and the embedding table / LM head may be
  // stored narrower than `weight_bits` (gpt-oss: MXFP4 experts, 4.25 bits).
  const double ebyte = storage_bits(m, m.expert_format) / 8.0;
  const double abyte = storage_bits(m, m.attention_format) / 8.0;
  const double tbyte = storage_bits(m, m.embedding_format) / 8.0;
  const double n_layers = double(end - r.first_layer);
  const double tables = non_nmp - norms - (r.head ? d : 0.0);
  f.experts = units::B(experts * ebyte * expert_copies);
  f.weights = abyte == wbyte ? units::B(weights * wbyte)
                             : units::B((weights - attn * n_layers) * wbyte + attn * n_layers * abyte);
  f.non_nmp = tbyte == wbyte ? units::B(non_nmp * wbyte) : units::B((non_nmp - tables) * wbyte + tables * tbyte);
  // A sliding layer holds at most its window of each sequence.
  double kv_tokens = 0.0;
  for (int l = r.first_layer; l < end; ++l) kv_tokens += m.attended_tokens(l, double(s.context));
  f.kv = kv_bytes_per_token_layer_valid(m) * (double(s.batch) * kv_tokens);
  f.activations = activation_workspace_valid(m, s, r.head);
  return f;
}
}  // namespace detail

/// Resident bytes of layers `r` of `m` for step `s`; experts counted `expert_copies` times (a
/// replication budget, e.g. HCRMap's 1.3×). KV holds batch × context tokens of every layer in
/// the range. Throws `config_error` for a bad range or copies < 1.
template <class = void>
inline footprint resident_footprint(const model& m, const step_shape& s, const layer_range& r = {},
                                    double expert_copies = 1.0) {
  validate(m);
  validate(s);
  return detail::resident_footprint_valid(m, s, r, expert_copies);
}

/// Bytes placed in one tier and its capacity.
struct tier_usage {
  std::string tier;           ///< tier name
  data_size<> capacity{};     ///< all devices together
  footprint placed{};         ///< what is placed in it, by data class
  template <class = void>
  [[nodiscard]] data_size<> used() const { return placed.total(); }
  template <class = void>
  [[nodiscard]] bool fits() const { return used().si() <= capacity.si() * (1.0 + 1e-12); }

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("tier", s.tier);
    v("capacity", s.capacity);
    v("placed", s.placed);
  }
};

/// A capacity verdict: every tier with what it holds; infeasible with the first tier that
/// overflows named in `reason`.
struct capacity_check {
  bool feasible = true;
  std::string reason;
  std::vector<tier_usage> tiers;

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("feasible", s.feasible);
    v("reason", s.reason);
    v("tiers", s.tiers);
  }
};

namespace detail {
template <class = void>
inline std::string gb(data_size<> b) {
  char buf[40];
  const double g = b.si() / 1e9;
  std::snprintf(buf, sizeof buf, g < 1000.0 ? "%.3g GB" : "%.0f GB", g);
  return buf;
}
/// "weights 3.1 GB + KV 32.6 GB" over the non-zero classes of a footprint.
template <class = void>
inline std::string footprint_text(const footprint& f) {
  std::string t;
  const std::pair<const char*, data_size<>> parts[] = {{"experts", f.experts}, {"weights", f.weights}, {"KV cache", f.kv},
                                                       {"embedding/head", f.non_nmp}, {"activations", f.activations}};
  for (const auto& [name, b] : parts) {
    if (b.si() <= 0.0) continue;
    t += (t.empty() ? "" : " + ") + std::string(name) + " " + gb(b);
  }
  return t.empty() ? std::string("nothing") : t;
}
/// The verdict over a list of tier usages.
template <class = void>
inline void conclude(capacity_check& c, const std::string& where) {
  c.feasible = true;
  std::string fits;
  for (const auto& t : c.tiers) {
    if (!t.fits() && c.feasible) {
      c.feasible = false;
      c.reason = "does not fit" + where + ": tier " + t.tier + " must hold " + footprint_text(t.placed) + " = " +
                 gb(t.used()) + " but has " + gb(t.capacity);
    }
    fits += (fits.empty() ? "" : "; ") + t.tier + " " + gb(t.used()) + " of " + gb(t.capacity);
  }
  if (c.feasible) c.reason = "fits" + where + ": " + fits;
}
}  // namespace detail

}  // namespace v0
}  // namespace strata
