// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Drift of expert hotness across task switches, measured on real traces and fitted into the
/// synthetic generator (`trace_gen.hpp`), so that a model without a real multi-task trace can be
/// served a task-switch workload (HCRMap §1: "hotness drifts with serving mode, batch
/// composition, and request domain"; `hcrmap/task_switch.hpp`).
///
/// Statistic (`topic_switch_overlap`). For each pair of consecutive topics (t, t + 1) of a trace
/// (topic index order, which is file order for `concatenate_traces`) and each MoE layer l, the
/// share of experts the two topics' top-n sets have in common, |H_n(t, l) ∩ H_n(t + 1, l)| / n,
/// where H_n(t, l) is the n experts routed most often by topic t's tokens at layer l (ties: the
/// lower id) and n = max(1, round(E·`top_fraction`)); the mean over pairs and layers. With
/// `top_fraction` 1/8, DeepSeek-V2-Lite's 64 experts give n = 8, the top-8 sets of
/// tests/data/traces/README.md (per layer 12–19 % shared between ESFT tasks). Two topics whose hot
/// sets are unrelated share n/E of them in expectation (1/8 here).
///
/// Fit (`fit_task_drift`). The generator's topic popularity is the mixture
/// w_{t,l} = (1 − σ)·z(π_l) + σ·z(π_{t,l}) (`trace_gen.hpp`): σ = `topic_share` is the share of a
/// topic's popularity that is its own, so the switch overlap falls as σ rises. The fit alternates
/// two steps, up to `rounds` times, starting from `base`'s σ:
///   1. shape and reuse: `fit_trace_gen` on the whole multi-topic trace with σ fixed (it matches
///      the trace's mean hottest share, entropy and consecutive-token overlap, its topics mixed);
///   2. σ: bisection on [0, 1] of the switch overlap of a generated trace (`topic_blocks`, the
///      layout of the real trace, the first `sim_layers` layers) against the real one.
/// It stops when the full generated trace's switch overlap is within `overlap_tolerance`
/// (absolute) of the real one and step 1 converged.
///
/// Use (`task_switch_gen_for`): the fit on DeepSeek-V2-Lite's ESFT intent → law → translation
/// traces (`esft_task_drift`, constants re-derived by tests/workload/task_drift_test.cpp) with the
/// routing shape of another model: its MoE layers, experts and top-k. The shape constants (s, q,
/// σ, reuse) are scale-free, so they carry over as the intent fit's do (`trace_gen_for`); that a
/// model's tasks drift as DeepSeek-V2-Lite's do is the assumption, stated wherever it is used.
///
/// \code
/// auto real = strata::concatenate_traces({intent, law, translation}, {"intent", "law", "translation"});
/// double o = strata::topic_switch_overlap(real);        // 0.132: the real switches
/// auto fit = strata::fit_task_drift(real);              // fit.params.topic_share, fit.switch_overlap
/// auto synth = strata::generate_trace(strata::task_switch_gen_for(strata::preset("Mixtral-8x7B"), 3, 1536, 8, 24));
/// \endcode

#include <algorithm>  // std::min, std::max, std::sort
#include <cmath>      // std::lround, std::abs
#include <cstddef>    // std::size_t
#include <cstdint>    // std::int32_t, std::int64_t, std::uint32_t, std::uint64_t
#include <limits>     // std::numeric_limits
#include <numeric>    // std::iota
#include <string>     // std::string, std::to_string
#include <vector>     // std::vector

#include "strata/core/error.hpp"
#include "strata/core/limits.hpp"
#include "strata/workload/model.hpp"
#include "strata/workload/trace.hpp"
#include "strata/workload/trace_gen.hpp"

namespace strata {
inline namespace v0 {

/// `parts` served one after the other as one trace (file comment): the same layers, experts and
/// routing width required (`config_error` naming `parts[i]`); part i's sequence ids are shifted
/// past every id of the parts before it (a token without one takes a fresh id per part), and
/// each token's topic is its part, named `labels[i]` (empty: "part i").
template <class = void>
inline routing_trace concatenate_traces(const std::vector<routing_trace>& parts, const std::vector<std::string>& labels = {}) {
  constexpr const char* id = "strata.trace";
  detail::require(!parts.empty(), id, "parts", parts.size(), "at least one trace");
  std::vector<std::string> names;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    names.push_back(i < labels.size() && !labels[i].empty() ? labels[i] : "part " + std::to_string(i));
  }
  const auto& first = parts.front();
  routing_trace out(first.layers(), first.experts_per_layer(), first.k(), names);
  std::int64_t offset = 0;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const auto& p = parts[i];
    const std::string field = "parts[" + std::to_string(i) + "]";
    if (p.layers() != first.layers() || p.experts_per_layer() != first.experts_per_layer() || p.k() != first.k()) {
      throw config_error(field, "[" + std::string(id) + "] " + field + ": " + std::to_string(p.layers()) + " layers, " +
                                    std::to_string(p.experts_per_layer()) + " experts, top-" + std::to_string(p.k()) +
                                    ", but parts[0] has " + std::to_string(first.layers()) + ", " +
                                    std::to_string(first.experts_per_layer()) + ", top-" + std::to_string(first.k()));
    }
    detail::require(!p.empty(), id, field, p.tokens(), "at least one token");
    std::int64_t top = -1;
    for (std::size_t t = 0; t < p.tokens(); ++t) top = std::max<std::int64_t>(top, p.info(t).seq);
    const std::int64_t fresh = top + 1;  // the id of this part's tokens without a sequence
    detail::require(offset + fresh < std::numeric_limits<std::int32_t>::max(), id, field, offset + fresh, "sequence ids below 2^31 - 1 in all");
    const auto cell = static_cast<std::size_t>(p.layers()) * static_cast<std::size_t>(p.k());
    for (std::size_t t = 0; t < p.tokens(); ++t) {
      token_info info = p.info(t);
      info.seq = static_cast<std::int32_t>(offset + (info.seq < 0 ? fresh : info.seq));
      info.topic = static_cast<std::int32_t>(i);
      out.push_back(p.ids().subspan(t * cell, cell), info);
    }
    offset += fresh + 1;
  }
  return out;
}

/// Mean switch overlap of `t`'s consecutive topics (file comment). Tokens without a topic are
/// skipped; topics without tokens are passed over. Throws `config_error` naming `topics` when
/// fewer than two topics have tokens, `top_fraction` outside (0, 1], and
/// `topics * layers * experts` past `strata::limits().table_cells`.
template <class = void>
inline double topic_switch_overlap(const routing_trace& t, double top_fraction = 0.125) {
  constexpr const char* id = "strata.task_drift";
  detail::require(top_fraction > 0.0 && top_fraction <= 1.0, id, "top_fraction", top_fraction, "in (0, 1]");
  const std::size_t T = t.topic_names().size(), L = static_cast<std::size_t>(t.layers());
  const std::size_t E = static_cast<std::size_t>(t.experts_per_layer()), K = static_cast<std::size_t>(t.k());
  const double cells = static_cast<double>(T) * static_cast<double>(L) * static_cast<double>(E);
  detail::require(cells <= static_cast<double>(limits().table_cells), id, "topics * layers * experts", cells,
                  ("<= " + std::to_string(limits().table_cells) + " table cells (strata::limits().table_cells)").c_str());
  std::vector<std::uint32_t> count(T * L * E, 0);
  std::vector<std::size_t> tokens(T, 0);
  const auto ids = t.ids();
  for (std::size_t i = 0; i < t.tokens(); ++i) {
    const int topic = t.info(i).topic;
    if (topic < 0 || static_cast<std::size_t>(topic) >= T) continue;
    const auto tp = static_cast<std::size_t>(topic);
    ++tokens[tp];
    for (std::size_t l = 0; l < L; ++l) {
      for (std::size_t j = 0; j < K; ++j) ++count[(tp * L + l) * E + ids[(i * L + l) * K + j]];
    }
  }
  std::vector<std::size_t> present;
  for (std::size_t tp = 0; tp < T; ++tp) {
    if (tokens[tp] > 0) present.push_back(tp);
  }
  detail::require(present.size() >= 2, id, "topics", present.size(), "at least two topics with tokens");
  const auto n = static_cast<std::size_t>(std::clamp<long>(std::lround(static_cast<double>(E) * top_fraction), 1L, static_cast<long>(E)));
  std::vector<std::uint32_t> order(E);
  std::vector<char> in_prev(E), in_cur(E);
  const auto top = [&](std::size_t tp, std::size_t l, std::vector<char>& mark) {
    const std::uint32_t* c = &count[(tp * L + l) * E];
    std::iota(order.begin(), order.end(), 0U);
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n), order.end(),
                      [&](std::uint32_t a, std::uint32_t b) { return c[a] != c[b] ? c[a] > c[b] : a < b; });
    std::fill(mark.begin(), mark.end(), 0);
    for (std::size_t r = 0; r < n; ++r) mark[order[r]] = 1;
  };
  double sum = 0.0;
  for (std::size_t p = 0; p + 1 < present.size(); ++p) {
    for (std::size_t l = 0; l < L; ++l) {
      top(present[p], l, in_prev);
      top(present[p + 1], l, in_cur);
      std::size_t shared = 0;
      for (std::size_t e = 0; e < E; ++e) shared += (in_prev[e] != 0 && in_cur[e] != 0) ? 1 : 0;
      sum += static_cast<double>(shared) / static_cast<double>(n);
    }
  }
  return sum / static_cast<double>((present.size() - 1) * L);
}

/// Options of `fit_task_drift`.
struct task_drift_options {
  int rounds = 4;                    ///< alternations of the two steps (file comment)
  double overlap_tolerance = 0.01;   ///< absolute, on the switch overlap
  double top_fraction = 0.125;       ///< of `topic_switch_overlap`
  int sim_layers = 8;                ///< layers generated while bisecting σ (0: all)
  int bisections = 14;               ///< halvings of [0, 1] for σ
  trace_fit_options shape{};         ///< step 1

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("rounds", s.rounds);
    v("overlap_tolerance", s.overlap_tolerance);
    v("top_fraction", s.top_fraction);
    v("sim_layers", s.sim_layers);
    v("bisections", s.bisections);
    v("shape", s.shape);
  }
};

/// Result of `fit_task_drift`.
struct task_drift_fit {
  trace_gen_params params;             ///< `topic_blocks` set; layout, shape, reuse and σ fitted
  trace_fit_result shape;              ///< the last step 1 (its targets: the real trace's h, H, o)
  double target_switch_overlap = 0.0;  ///< of the real trace
  double switch_overlap = 0.0;         ///< of generate_trace(params)
  int rounds = 0;                      ///< alternations used
  bool converged = false;              ///< step 1 converged and the overlap within tolerance
  std::string reason;                  ///< why not
};

/// Fits the generator's drift to a multi-topic trace (file comment). Throws `config_error` as
/// `topic_switch_overlap` and `fit_trace_gen` do, and naming the option that is out of range.
template <class = void>
inline task_drift_fit fit_task_drift(const routing_trace& real, trace_gen_params base = {}, const task_drift_options& opt = {}) {
  constexpr const char* id = "strata.task_drift";
  detail::require(opt.rounds >= 1 && opt.rounds <= 64, id, "rounds", opt.rounds, "in [1, 64]");
  detail::require_in(opt.overlap_tolerance, 0.0, 1.0, id, "overlap_tolerance");
  detail::require(opt.sim_layers >= 0, id, "sim_layers", opt.sim_layers, ">= 0");
  detail::require(opt.bisections >= 1 && opt.bisections <= 52, id, "bisections", opt.bisections, "in [1, 52]");
  task_drift_fit r;
  r.target_switch_overlap = topic_switch_overlap(real, opt.top_fraction);
  base.topic_blocks = true;
  const auto overlap_at = [&](trace_gen_params q, double sigma, int layers) {
    q.topic_share = sigma;
    if (layers > 0) q.layers = std::min(q.layers, layers);
    return topic_switch_overlap(generate_trace(q), opt.top_fraction);
  };
  trace_gen_params p = base;
  for (r.rounds = 1; r.rounds <= opt.rounds; ++r.rounds) {
    r.shape = fit_trace_gen(real, p, opt.shape);
    p = r.shape.params;
    // σ: the overlap falls from about 1 at σ = 0 (one hot set) to about n/E at σ = 1.
    double lo = 0.0, hi = 1.0;
    if (overlap_at(p, hi, opt.sim_layers) >= r.target_switch_overlap) {
      lo = hi;
    } else if (overlap_at(p, lo, opt.sim_layers) <= r.target_switch_overlap) {
      hi = lo;
    } else {
      for (int i = 0; i < opt.bisections; ++i) {
        const double mid = 0.5 * (lo + hi);
        (overlap_at(p, mid, opt.sim_layers) > r.target_switch_overlap ? lo : hi) = mid;
      }
    }
    p.topic_share = 0.5 * (lo + hi);
    r.switch_overlap = overlap_at(p, p.topic_share, 0);
    r.converged = r.shape.converged && std::abs(r.switch_overlap - r.target_switch_overlap) <= opt.overlap_tolerance;
    if (r.converged) break;
  }
  if (r.rounds > opt.rounds) r.rounds = opt.rounds;
  if (!r.converged) {
    r.reason = (r.shape.converged ? std::string() : "shape: " + r.shape.reason + "; ") + "switch overlap " +
               std::to_string(r.switch_overlap) + " against " + std::to_string(r.target_switch_overlap) + " after " +
               std::to_string(r.rounds) + " rounds";
  }
  r.params = p;
  return r;
}

/// The drift of DeepSeek-V2-Lite's ESFT intent → law → translation traces
/// (tests/data/traces, 200 sequences of 47–580 tokens, 24 800 tokens): `fit_task_drift` on the
/// three concatenated in that order, seed 1, default options — switch overlap 0.132 real, 0.127
/// generated (two unrelated top-8 sets of 64 share 0.125: the tasks' hot sets are nearly
/// independent); hottest share 0.0456, entropy 0.964, consecutive overlap 0.274, all within 1 %.
/// Layout of the real traces.
template <class = void>
inline trace_gen_params esft_task_drift() {
  trace_gen_params p;
  p.topics = 3;
  p.topic_blocks = true;
  p.sequences = 200;
  p.min_length = 47;
  p.max_length = 580;
  // [fit_task_drift on tests/data/traces/dsv2lite_esft_trace_{intent,law,translation}.csv;
  //  re-derived by tests/workload/task_drift_test.cpp]
  p.skew = 1.70697;
  p.offset = 10.1886;
  p.topic_share = 0.738129;
  p.reuse = 0.160859;
  return p;
}

/// The ESFT drift (`esft_task_drift`) with the routing shape of `m` (its MoE layers, routed
/// experts and top-k), `tasks` topics in blocks over `sequences` sequences of
/// [`min_length`, `max_length`] tokens, and `seed`. Throws `config_error` as `validate` does.
template <class = void>
inline trace_gen_params task_switch_gen_for(const model& m, int tasks, int sequences, int min_length, int max_length,
                                            std::uint64_t seed = 1) {
  trace_gen_params p = esft_task_drift();
  p.layers = m.moe_layers();
  p.experts = m.experts;
  p.k = m.top_k;
  p.topics = tasks;
  p.sequences = sequences;
  p.min_length = min_length;
  p.max_length = max_length;
  p.seed = seed;
  validate(p);
  return p;
}

}  // namespace v0
}  // namespace strata
