// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// What an exact hot-expert prediction can gain over uniform usage when a MoE block is bound by
/// its weight streams (Stratum §5.2 Algorithm 1, §6.3 Fig. 17b).
///
/// Per token, the block reads two kinds of weights:
/// - the FFNs every token runs (shared experts, dense FFNs): S_a bytes, laid out the same way
///   whatever the prediction, streamed at rate R_a;
/// - its A routed experts: S_r bytes.
/// With an exact prediction the routed experts are Algorithm 1's fast pack (rate R_f). With
/// uniform usage Algorithm 1's fast pack holds K = L·A of the L·E experts, so a share
/// h = K / (L·E) = A/E of the routed bytes hits it (rate R_h) and the rest streams from the slow
/// pack (rate R_m). A rate is the stream rate of the rows the bytes occupy:
/// R = S / Σ_i (S·s_i / BW_i) over the tiers i with share s_i of the rows. Stream-bound,
///   gain = (S_a/R_a + S_r·(h/R_h + (1 − h)/R_m)) / (S_a/R_a + S_r/R_f)                  (1)
/// What else the block does — GEMM compute where it binds, the reduction tree, activation,
/// Hadamard product, ring collectives — takes the same time in both layouts and only moves the
/// gain towards 1; a stream's first-access latency grows with its tier's access time as its
/// bandwidth falls (Stratum §6.1), so it does not raise the gain above (1).
///
/// Two-level bound. Every rate of a chip lies between its slowest and its fastest tier, and (1)
/// is largest when R_a, R_f and R_h are the fastest tier's bandwidth and R_m the slowest's
/// ((1) falls as S_a/R_a or S_r/R_f grows, and R_h is the fast pack's rate in both layouts):
///   gain ≤ (S_a + S_r·(h + (1 − h)·BW_fast/BW_slow)) / (S_a + S_r)                      (2)
/// (2) is the gain of a two-level memory (a hit at the fastest tier's timing, a miss at the
/// slowest's). Algorithm 1 reaches it only when the whole slow pack fits the slowest tier; a
/// slow pack that spans several tiers streams faster than the slowest, and (1) with the layout's
/// own rates is lower.
///
/// ```cpp
/// strata::prediction_gain_params<> p{.uniform_hit_rate = 8.0 / 64.0,
///                                    .routed_bytes = strata::units::MB(12.6),
///                                    .fast_pack_bw = strata::units::TBps(30.34),
///                                    .hit_bw = strata::units::TBps(30.34),
///                                    .miss_bw = strata::units::TBps(19.01),
///                                    .always_bw = strata::units::TBps(30.34)};
/// double g = strata::prediction_gain(p);  // 0.125 + 0.875 · 30.34 / 19.01 = 1.52
/// ```

#include "strata/core/error.hpp"
#include "strata/core/scalar.hpp"
#include "strata/core/units.hpp"
#include "strata/tech/bounds.hpp"

namespace strata {
inline namespace v0 {

/// Inputs of Eq. (1) of the file comment, per token (any consistent count of layers).
template <class T = double>
struct prediction_gain_params {
  /// h: share of the routed bytes in the fast pack under uniform usage. [Stratum §5.2
  /// Algorithm 1: K = L·A fast experts of L·E, so A/E]
  T uniform_hit_rate = T(0.125);
  /// S_r: bytes of the routed experts a token reads. [Workload: A experts per MoE layer]
  strata::data_size<T> routed_bytes = units::B(T(1.0));
  /// S_a: bytes every token reads in both layouts (shared experts, dense FFNs; 0 if none).
  strata::data_size<T> always_bytes{};
  /// R_f: stream rate of the fast pack with an exact prediction. [Stratum §6.1: at most the
  /// fastest tier's 30.34 TB/s per chip]
  strata::bandwidth<T> fast_pack_bw = units::TBps(T(30.34));
  /// R_h: stream rate of the fast pack under uniform usage (the same rows as R_f's).
  strata::bandwidth<T> hit_bw = units::TBps(T(30.34));
  /// R_m: stream rate of the slow pack under uniform usage. [Stratum §6.1: at least the
  /// slowest tier's 19.01 TB/s per chip]
  strata::bandwidth<T> miss_bw = units::TBps(T(19.01));
  /// R_a: stream rate of the always-read weights.
  strata::bandwidth<T> always_bw = units::TBps(T(30.34));

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("uniform_hit_rate", s.uniform_hit_rate);
    v("routed_bytes", s.routed_bytes);
    v("always_bytes", s.always_bytes);
    v("fast_pack_bw", s.fast_pack_bw);
    v("hit_bw", s.hit_bw);
    v("miss_bw", s.miss_bw);
    v("always_bw", s.always_bw);
  }
  friend bool operator==(const prediction_gain_params&, const prediction_gain_params&) = default;
};

/// Checks the inputs: h in [0, 1], bytes finite (S_r > 0, S_a ≥ 0), rates finite and > 0;
/// throws `config_error` naming the field.
template <class T>
void validate(const prediction_gain_params<T>& p) {
  constexpr const char* m = "strata.prediction_gain";
  detail::require_range(p.uniform_hit_rate, 0.0, 1.0, m, "uniform_hit_rate", "");
  detail::require_positive(p.routed_bytes.si(), m, "routed_bytes", "B");
  detail::require_nonnegative(p.always_bytes.si(), m, "always_bytes", "B");
  detail::require_positive(p.fast_pack_bw.si(), m, "fast_pack_bw", "B/s");
  detail::require_positive(p.hit_bw.si(), m, "hit_bw", "B/s");
  detail::require_positive(p.miss_bw.si(), m, "miss_bw", "B/s");
  detail::require_positive(p.always_bw.si(), m, "always_bw", "B/s");
}

/// Eq. (1): the stream-bound block's time under uniform usage over its time with an exact
/// prediction (the file comment). Throws `config_error` on bad input.
template <class T>
T prediction_gain(const prediction_gain_params<T>& p) {
  validate(p);
  const T h = p.uniform_hit_rate;
  const auto always = p.always_bytes / p.always_bw;
  const auto uniform = always + p.routed_bytes * h / p.hit_bw + p.routed_bytes * (T(1) - h) / p.miss_bw;
  const auto exact = always + p.routed_bytes / p.fast_pack_bw;
  return uniform / exact;
}

/// Eq. (2): the two-level bound, Eq. (1) with the always-read weights and the fast pack at the
/// fastest tier's bandwidth and the slow pack at the slowest's.
template <class T>
T two_level_prediction_gain(const T& uniform_hit_rate, const strata::data_size<T>& routed_bytes,
                            const strata::data_size<T>& always_bytes, const strata::bandwidth<T>& fastest,
                            const strata::bandwidth<T>& slowest) {
  return prediction_gain(prediction_gain_params<T>{.uniform_hit_rate = uniform_hit_rate,
                                                   .routed_bytes = routed_bytes,
                                                   .always_bytes = always_bytes,
                                                   .fast_pack_bw = fastest,
                                                   .hit_bw = fastest,
                                                   .miss_bw = slowest,
                                                   .always_bw = fastest});
}

}  // namespace v0
}  // namespace strata
