// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Routed token groups of a serving window from a routing trace (HCRMap §4.1, Table 2).
///
/// A window holds `tokens` consecutive trace tokens starting at `first_token` (wrapping around
/// the end of the trace): 2048 input tokens for prefill, 512 active tokens (one per running
/// sequence) for decode (HCRMap Table 2).
///
/// Source and aggregation rule (the paper leaves it to the LEGOSim adapter): the window's tokens
/// are split into |C| contiguous blocks of ⌈tokens/|C|⌉, block i homed on compute chiplet i, so
/// neighbouring tokens of a sequence share a chiplet. A token's activations are produced and its
/// expert outputs combined on its home chiplet: s_g = a_g = home. A group g collects, per MoE
/// layer, the tokens of one home chiplet routed to one expert (each token appears in k groups).

#include <algorithm>  // std::fill
#include <cstddef>  // std::size_t
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
inline int home_chiplet(int i, int tokens, int chiplets) {
  const int block = (tokens + chiplets - 1) / chiplets;
  return i / block;
}

/// Token groups per MoE layer: result[l] lists layer l's groups (expert, home, home, N_g),
/// ordered by expert then chiplet. Throws `config_error` on an empty trace or a bad window.
inline std::vector<std::vector<token_group>> token_groups(const routing_trace& trace, int chiplets,
                                                          const window_tokens& w) {
  detail::require(!trace.empty(), "strata.token_groups", "trace", trace.tokens(), "non-empty");
  detail::require(w.tokens >= 1, "strata.token_groups", "tokens", w.tokens, ">= 1");
  detail::require(chiplets >= 1, "strata.token_groups", "chiplets", chiplets, ">= 1");
  const int layers = trace.layers(), experts = trace.experts_per_layer();
  std::vector<std::vector<token_group>> out(static_cast<std::size_t>(layers));
  // counts[e · chiplets + c] for one layer at a time.
  std::vector<int> counts(static_cast<std::size_t>(experts) * chiplets);
  for (int l = 0; l < layers; ++l) {
    std::fill(counts.begin(), counts.end(), 0);
    for (int i = 0; i < w.tokens; ++i) {
      const std::size_t t = (w.first_token + static_cast<std::size_t>(i)) % trace.tokens();
      const int home = home_chiplet(i, w.tokens, chiplets);
      for (const auto e : trace.experts(t, l)) ++counts[static_cast<std::size_t>(e) * chiplets + home];
    }
    auto& groups = out[static_cast<std::size_t>(l)];
    for (int e = 0; e < experts; ++e) {
      for (int c = 0; c < chiplets; ++c) {
        const int n = counts[static_cast<std::size_t>(e) * chiplets + c];
        if (n > 0) groups.push_back({l, e, c, c, n});
      }
    }
  }
  return out;
}

}  // namespace v0
}  // namespace strata
