// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Routed token groups of a serving window from a routing trace (HCRMap §4.1, Table 2).
///
/// A prefill window holds `tokens` consecutive trace tokens starting at `first_token` (wrapping
/// around the end of the trace): 2048 input tokens (HCRMap Table 2), contiguous tokens of the
/// trace's sequences. A decode window holds 512 active tokens, one per running sequence
/// (`decode_token_groups`, `select_decode_batch` in `workload/trace.hpp`).
///
/// Source and aggregation rule (the paper leaves it to the LEGOSim adapter): the window's tokens
/// are split into |C| contiguous blocks of ⌈tokens/|C|⌉, block i homed on compute chiplet i, so
/// neighbouring tokens of a sequence share a chiplet. A token's activations are produced and its
/// expert outputs combined on its home chiplet: s_g = a_g = home. A group g collects, per MoE
/// layer, the tokens of one home chiplet routed to one expert (each token appears in k groups).

#include <algorithm>  // std::fill
#include <cstddef>    // std::size_t
#include <span>       // std::span
#include <string>     // std::to_string
#include <utility>    // std::move
#include <vector>   // std::vector

#include "strata/chiplet/critical_path.hpp"
#include "strata/core/error.hpp"
#include "strata/workload/trace.hpp"

namespace strata {
inline namespace v0 {

/// Which tokens of a trace form a window.
struct window_tokens {
  std::size_t first_token = 0;  ///< index of the window's first token in the trace
  int tokens = 512;             ///< tokens in the window (prefill 2048, decode 512; Table 2)

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("first_token", s.first_token);
    v("tokens", s.tokens);
  }
};

/// Home chiplet of the i-th token of a window of `tokens` on `chiplets` chiplets.
template <class = void>
inline int home_chiplet(int i, int tokens, int chiplets) {
  const int block = (tokens + chiplets - 1) / chiplets;
  return i / block;
}

/// Token groups per MoE layer of an explicit list of trace tokens (`tokens[i]` is the i-th
/// token of the window, homed by `home_chiplet(i, …)`): result[l] lists layer l's groups
/// (expert, home, home, N_g), ordered by expert then chiplet. A decode window uses the tokens of
/// `select_decode_batch` (one per concurrent sequence). Throws `config_error` on an empty trace,
/// an empty list or a token index outside the trace.
template <class = void>
inline std::vector<std::vector<token_group>> token_groups(const routing_trace& trace, int chiplets,
                                                          std::span<const std::size_t> tokens) {
  detail::require(!trace.empty(), "strata.token_groups", "trace", trace.tokens(), "non-empty");
  detail::require(!tokens.empty(), "strata.token_groups", "tokens", tokens.size(), ">= 1");
  detail::require(chiplets >= 1, "strata.token_groups", "chiplets", chiplets, ">= 1");
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i] >= trace.tokens()) {
      detail::require(false, "strata.token_groups", "tokens[" + std::to_string(i) + "]", tokens[i],
                      "a token index of the trace");
    }
  }
  const int layers = trace.layers(), experts = trace.experts_per_layer();
  const int n = static_cast<int>(tokens.size());
  std::vector<std::vector<token_group>> out(static_cast<std::size_t>(layers));
  // counts[e · chiplets + c] for one layer at a time.
  std::vector<int> counts(static_cast<std::size_t>(experts) * chiplets);
  for (int l = 0; l < layers; ++l) {
    std::fill(counts.begin(), counts.end(), 0);
    for (int i = 0; i < n; ++i) {
      const int home = home_chiplet(i, n, chiplets);
      for (const auto e : trace.experts(tokens[static_cast<std::size_t>(i)], l)) {
        ++counts[static_cast<std::size_t>(e) * chiplets + home];
      }
    }
    auto& groups = out[static_cast<std::size_t>(l)];
    for (int e = 0; e < experts; ++e) {
      for (int c = 0; c < chiplets; ++c) {
        const int k = counts[static_cast<std::size_t>(e) * chiplets + c];
        if (k > 0) groups.push_back({l, e, c, c, k});
      }
    }
  }
  return out;
}

/// Token groups of `w.tokens` consecutive trace tokens from `w.first_token` (wrapping): the
/// prefill window. Throws `config_error` on an empty trace or a bad window.
template <class = void>
inline std::vector<std::vector<token_group>> token_groups(const routing_trace& trace, int chiplets,
                                                          const window_tokens& w) {
  detail::require(!trace.empty(), "strata.token_groups", "trace", trace.tokens(), "non-empty");
  detail::require(w.tokens >= 1, "strata.token_groups", "tokens", w.tokens, ">= 1");
  std::vector<std::size_t> list(static_cast<std::size_t>(w.tokens));
  for (std::size_t i = 0; i < list.size(); ++i) list[i] = (w.first_token + i) % trace.tokens();
  return token_groups(trace, chiplets, std::span<const std::size_t>(list));
}

/// Token groups of a decode window: one token from each of `spec.batch` concurrent sequences
/// (`select_decode_batch`); `batch`, when given, receives the selection (distinct sequences,
/// reuse note).
template <class = void>
inline std::vector<std::vector<token_group>> decode_token_groups(const routing_trace& trace, int chiplets,
                                                                 const decode_batch_spec& spec,
                                                                 decode_batch* batch = nullptr) {
  auto b = select_decode_batch(trace, spec);
  auto out = token_groups(trace, chiplets, std::span<const std::size_t>(b.tokens));
  if (batch != nullptr) *batch = std::move(b);
  return out;
}

}  // namespace v0
}  // namespace strata
