// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Seeded synthetic routing traces with topic-specific expert popularity and token-to-token
/// expert reuse, and a fitter that matches a real trace's statistics (`trace.hpp`).
///
/// Model. Let E experts, top-k routing, L MoE layers, T topics. Rank popularity follows a
/// Zipf–Mandelbrot law normalised at the top rank,
///   z(r) ∝ (1 + r / (1 + q))^(−s),   r = 0 … E−1,
/// with `skew` s and `offset` q (q = 0: plain Zipf (r + 1)^−s; q → ∞ with s/q fixed: geometric
/// decay e^(−(s/q)·r); a larger q flattens the head for the same tail). Each layer l has a global random
/// permutation π_l of the experts and each (topic t, layer l) its own π_{t,l}; the popularity
/// of expert e for a token of topic t at layer l is the mixture
///   w_{t,l}(e) = (1 − σ)·z(π_l(e)) + σ·z(π_{t,l}(e)),   σ = `topic_share`,
/// so σ = 0 gives every topic the same hot experts and σ = 1 independent ones.
///
/// Sequences and tokens. `sequences` sequences with lengths uniform in [min_length, max_length],
/// each of one topic: drawn uniformly (a mixed stream), or with `topic_blocks` the topics in T
/// contiguous blocks in file order, sequence s of topic ⌊s·T/S⌋ — a task switch every S/T
/// sequences, the drift `workload/task_drift.hpp` fits to real task switches (the topic draw is
/// made either way, so lengths do not depend on the order). For each token and layer the k experts are picked one
/// slot at a time, in gate order: with probability `reuse` (and if the token has a predecessor
/// in its sequence) the slot takes one of the previous token's experts at that layer, uniformly
/// among those not yet picked; otherwise it samples w_{t,l} without replacement (sequential
/// Plackett–Luce sampling, exact, by inverting the CDF with the picked experts' mass removed).
/// Reuse keeps the marginal popularity approximately (the previous token's set is itself a draw
/// from it) and raises the consecutive-token overlap towards 1. All layers share one shape and
/// one reuse: a real trace's spread across layers is not modelled, only its layer means.
///
/// Determinism. One `seed` makes the trace. The random numbers are the same with every standard
/// library: the three streams (permutations, sequence structure, routing) are `std::mt19937_64`
/// seeded by SplitMix64 from the seed, uniforms are formed from the top 53 bits and bounded
/// integers by rejection (no `std::*_distribution`, whose output is implementation-defined).
/// The popularity weights go through `exp`/`log1p`, so another math library may, rarely, flip a
/// pick that falls within rounding of a CDF boundary. Every routing
/// slot consumes exactly two uniforms whatever the parameters, so changing `skew`, `offset` or
/// `reuse` changes few picks (common random numbers): the fitter's targets move smoothly.
///
/// Fitting (`fit_trace_gen`). The real trace's mean hottest-expert share h*, mean normalised
/// entropy H* and mean consecutive overlap o* (`statistics`) are matched by (s, q, reuse); the
/// layout (layers, experts, k, sequence count and length range, topic count) is copied from the
/// trace and `topic_share`, `seed` are kept from `base`. One round:
///   1. shape (s, q) from expected statistics, without sampling: the inclusion probability of
///      expert e in a top-k draw from weights w is approximated by the exponential-race
///      threshold form p_e = 1 − exp(−w_e·τ) with τ solving Σ_e p_e = k (Newton, monotone);
///      averaging over topics gives each layer's expected counts / (k·N). Nested 1-D root
///      finding with TOMS 748 (`detail::solve_bracketed`): for a given q, s(q) matches h*
///      (h rises with s from 1/E at s = 0); then q matches H* along the curve h = h*
///      (a larger q with a larger s(q) trades head for tail: H falls). A target outside the
///      reachable range takes the nearest end of the bracket.
///   2. reuse from simulation: o(reuse) is measured on a generated trace of `sim_layers` layers
///      with the same seed and solved by TOMS 748 on [0, 1] (o rises from the no-reuse
///      baseline to 1).
///   3. the full trace is generated and (h, H, o) measured; if any is off by more than
///      `tolerance` (relative), the aims of steps 1–2 are moved by the residual (aim += target −
///      measured) and the round repeats, up to `rounds` times. This removes the small biases of
///      step 1 (finite-sample maximum, the threshold approximation, reuse's effect on marginals)
///      and the subsampling of step 2.
/// On the DeepSeek-V2-Lite intent trace one round suffices (h 0.0597 vs 0.0596, H 0.932 vs
/// 0.933, o 0.261 vs 0.262; tests/workload/trace_gen_test.cpp) in about 0.2 s.
///
/// \code
/// auto real = strata::load_trace_csv("dsv2lite_esft_trace_intent.csv", {.experts = 64});
/// auto fit = strata::fit_trace_gen(real);          // fit.params, fit.hottest_share, ...
/// auto synth = strata::generate_trace(fit.params); // statistics within a few % of real's
/// \endcode

#include <algorithm>  // std::min, std::max, std::fill, std::clamp
#include <cmath>      // std::exp, std::expm1, std::log, std::log1p, std::abs, std::isfinite
#include <cstddef>    // std::size_t
#include <cstdint>    // std::uint64_t, std::uint32_t, std::uint16_t
#include <string>     // std::string, std::to_string
#include <utility>    // std::swap
#include <vector>     // std::vector

#include "strata/core/error.hpp"
#include "strata/core/limits.hpp"
#include "strata/core/rng.hpp"
#include "strata/core/solve.hpp"
#include "strata/workload/model.hpp"
#include "strata/workload/trace.hpp"

namespace strata {
inline namespace v0 {

/// Parameters of the synthetic trace generator (model in the file comment). The defaults are
/// DeepSeek-V2-Lite on the ESFT `intent` data: layout from the model and the trace, shape and
/// reuse from `fit_trace_gen` on tests/data/traces/dsv2lite_esft_trace_intent.csv.
struct trace_gen_params {
  /// MoE layers. [DeepSeek-V2-Lite config.json: 27 layers, first_k_dense_replace = 1 → 26 MoE]
  int layers = 26;
  /// Routed experts per layer. [DeepSeek-V2-Lite config.json: n_routed_experts = 64]
  int experts = 64;
  /// Experts per token. [DeepSeek-V2-Lite config.json: num_experts_per_tok = 6]
  int k = 6;
  /// Topics (tasks, domains); each sequence has one. [ESFT intent trace: one task]
  int topics = 1;
  /// Sequences. [ESFT intent trace: 127 sequences]
  int sequences = 127;
  /// Shortest sequence, tokens. [ESFT intent trace: 47–88 tokens per sequence]
  int min_length = 47;
  /// Longest sequence, tokens. [ESFT intent trace: 47–88 tokens per sequence]
  int max_length = 88;
  /// Zipf–Mandelbrot exponent s. Calibrated so that the generated trace matches the ESFT intent
  /// trace's mean hottest-expert share, entropy and overlap (fit_trace_gen, seed 1).
  double skew = 1.2636;
  /// Zipf–Mandelbrot offset q (0: plain Zipf). Calibrated with `skew`.
  double offset = 3.2828;
  /// Weight σ of the topic-specific permutation in the popularity mixture. [Assumed 0.5: half
  /// of each topic's popularity is its own; not fitted from a single-topic trace]
  double topic_share = 0.5;
  /// Probability that a routing slot reuses an expert of the previous token. Calibrated with
  /// `skew` (overlap of the ESFT intent trace).
  double reuse = 0.12815;
  /// Topics in contiguous blocks in file order (task switches) instead of drawn per sequence.
  /// [Default false: the ESFT intent trace is one task; `task_drift.hpp` sets it]
  bool topic_blocks = false;
  /// Seed of all random streams.
  std::uint64_t seed = 1;

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("layers", s.layers);
    v("experts", s.experts);
    v("k", s.k);
    v("topics", s.topics);
    v("sequences", s.sequences);
    v("min_length", s.min_length);
    v("max_length", s.max_length);
    v("skew", s.skew);
    v("offset", s.offset);
    v("topic_share", s.topic_share);
    v("reuse", s.reuse);
    v("topic_blocks", s.topic_blocks);
    v("seed", s.seed);
  }
  friend bool operator==(const trace_gen_params&, const trace_gen_params&) = default;
};

/// The generator's defaults with the routing shape of model `m`: its MoE layers, routed experts
/// and experts per token; sequences, lengths and seed are left for the caller.
template <class = void>
inline trace_gen_params trace_gen_for(const model& m) {
  trace_gen_params p;
  p.layers = m.moe_layers();
  p.experts = m.experts;
  p.k = m.top_k;
  return p;
}

/// Checks every field; throws `config_error` naming the first bad one.
template <class = void>
inline void validate(const trace_gen_params& p) {
  constexpr const char* m = "strata.trace_gen";
  detail::require(p.layers >= 1, m, "layers", p.layers, ">= 1");
  detail::require(p.experts >= 1 && p.experts <= 65536, m, "experts", p.experts, "in [1, 65536]");
  detail::require(p.k >= 1 && p.k <= p.experts, m, "k", p.k,
                  ("in [1, experts = " + std::to_string(p.experts) + "]").c_str());
  detail::require(p.topics >= 1 && p.topics <= 65536, m, "topics", p.topics, "in [1, 65536]");
  detail::require(p.sequences >= 1, m, "sequences", p.sequences, ">= 1");
  detail::require(p.min_length >= 1, m, "min_length", p.min_length, ">= 1");
  detail::require(p.max_length >= p.min_length, m, "max_length", p.max_length,
                  (">= min_length = " + std::to_string(p.min_length)).c_str());
  // Allocations are bounded by strata::limits() (strata/core/limits.hpp): the ids of the trace
  // and the per-(layer, topic) rank, weight and CDF tables of `experts` entries.
  const input_limits& lim = limits();
  const double ids = static_cast<double>(p.sequences) * p.max_length * p.layers * p.k;
  detail::require(ids <= static_cast<double>(lim.trace_ids), m, "sequences * max_length * layers * k", ids,
                  ("<= " + std::to_string(lim.trace_ids) + " expert IDs (strata::limits().trace_ids)").c_str());
  const double cells = static_cast<double>(p.layers) * (static_cast<double>(p.topics) + 1.0) * (p.experts + 1.0);
  detail::require(cells <= static_cast<double>(lim.table_cells), m, "layers * (topics + 1) * experts", cells,
                  ("<= " + std::to_string(lim.table_cells) + " table cells (strata::limits().table_cells)").c_str());
  detail::require_in(p.skew, 0.0, 1e4, m, "skew");
  detail::require_in(p.offset, 0.0, 1e6, m, "offset");
  detail::require_in(p.topic_share, 0.0, 1.0, m, "topic_share");
  detail::require_in(p.reuse, 0.0, 1.0, m, "reuse");
}

namespace detail::trace_gen {

template <class = void>
inline std::uint64_t splitmix64(std::uint64_t& x) noexcept {
  std::uint64_t z = (x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Seed of random stream `stream` derived from the user's seed.
template <class = void>
inline std::uint64_t stream_seed(std::uint64_t seed, std::uint64_t stream) noexcept {
  std::uint64_t x = seed ^ (0xD1B54A32D192ED03ull * (stream + 1));
  return splitmix64(x);
}

/// A portable random stream: the same numbers with every standard library (core/rng.hpp).
using trace_rng = strata::detail::portable_rng;

/// Ranks of every expert: per layer the global rank, then per topic the topic rank, layer-major
/// ((l·(T+1) + 0) global, (l·(T+1) + 1 + t) topic t), so fewer layers give a prefix.
template <class = void>
inline std::vector<std::uint32_t> draw_ranks(const trace_gen_params& p) {
  const auto E = static_cast<std::size_t>(p.experts);
  const auto T = static_cast<std::size_t>(p.topics);
  std::vector<std::uint32_t> ranks(static_cast<std::size_t>(p.layers) * (T + 1) * E);
  trace_rng rng(stream_seed(p.seed, 0));
  std::vector<std::uint32_t> perm(E);
  for (std::size_t blk = 0; blk < ranks.size() / E; ++blk) {
    for (std::size_t i = 0; i < E; ++i) perm[i] = static_cast<std::uint32_t>(i);
    for (std::size_t i = E; i > 1; --i) std::swap(perm[i - 1], perm[rng.below(i)]);  // Fisher–Yates
    for (std::size_t r = 0; r < E; ++r) ranks[blk * E + perm[r]] = static_cast<std::uint32_t>(r);
  }
  return ranks;
}

/// Zipf–Mandelbrot weights z(r) of ranks 0..E−1, summing to 1 (log space: no overflow).
template <class = void>
inline std::vector<double> rank_weights(int experts, double skew, double offset) {
  std::vector<double> z(static_cast<std::size_t>(experts));
  double sum = 0.0;
  for (std::size_t r = 0; r < z.size(); ++r) {
    z[r] = std::exp(-skew * std::log1p(static_cast<double>(r) / (1.0 + offset)));
    sum += z[r];
  }
  for (auto& x : z) x /= sum;
  return z;
}

/// Popularity w_{t,l}(e), summing to 1 per (layer, topic); index ((l·T + t)·E + e).
template <class = void>
inline std::vector<double> popularity(const trace_gen_params& p, const std::vector<std::uint32_t>& ranks) {
  const auto E = static_cast<std::size_t>(p.experts);
  const auto T = static_cast<std::size_t>(p.topics);
  const auto z = rank_weights(p.experts, p.skew, p.offset);
  std::vector<double> w(static_cast<std::size_t>(p.layers) * T * E);
  for (std::size_t l = 0; l < static_cast<std::size_t>(p.layers); ++l) {
    const std::uint32_t* g = &ranks[(l * (T + 1)) * E];
    for (std::size_t t = 0; t < T; ++t) {
      const std::uint32_t* own = &ranks[(l * (T + 1) + 1 + t) * E];
      double* out = &w[(l * T + t) * E];
      for (std::size_t e = 0; e < E; ++e) out[e] = (1.0 - p.topic_share) * z[g[e]] + p.topic_share * z[own[e]];
    }
  }
  return w;
}

/// Approximate inclusion probabilities of a top-k draw without replacement from weights `w`
/// (Σ w = 1): p_e = 1 − exp(−w_e·τ), Σ p_e = k, τ by Newton from 0 (f concave increasing, so
/// the iterates rise monotonically to the root). With k or fewer positive weights (an extreme
/// skew whose tail underflowed) those are certain and the sampler fills up uniformly.
template <class = void>
inline void inclusion(const double* w, std::size_t E, int k, double* p) {
  const auto K = static_cast<std::size_t>(k);
  std::size_t npos = 0;
  for (std::size_t e = 0; e < E; ++e) npos += w[e] > 0.0 ? 1 : 0;
  if (npos <= K) {
    const double rest = E > npos ? static_cast<double>(K - npos) / static_cast<double>(E - npos) : 0.0;
    for (std::size_t e = 0; e < E; ++e) p[e] = w[e] > 0.0 ? 1.0 : rest;
    return;
  }
  double tau = 0.0;
  for (int it = 0; it < 200; ++it) {
    double f = -static_cast<double>(k), df = 0.0;
    for (std::size_t e = 0; e < E; ++e) {
      f += -std::expm1(-w[e] * tau);
      df += w[e] * std::exp(-w[e] * tau);
    }
    if (f >= -1e-13 * k || !(df > 0.0)) break;
    const double next = tau - f / df;
    if (!std::isfinite(next)) break;
    tau = next;
  }
  for (std::size_t e = 0; e < E; ++e) p[e] = -std::expm1(-w[e] * tau);
}

/// Expected mean (over layers) hottest share and normalised entropy of a generated trace,
/// from the inclusion probabilities averaged over equally likely topics.
struct shape_stats {
  double hottest_share = 0.0;
  double entropy = 0.0;
};
template <class = void>
inline shape_stats expected_shape(const trace_gen_params& p, const std::vector<std::uint32_t>& ranks) {
  const auto w = popularity(p, ranks);
  const auto E = static_cast<std::size_t>(p.experts);
  const auto T = static_cast<std::size_t>(p.topics);
  std::vector<double> pi(E), acc(E);
  shape_stats s;
  for (std::size_t l = 0; l < static_cast<std::size_t>(p.layers); ++l) {
    std::fill(acc.begin(), acc.end(), 0.0);
    for (std::size_t t = 0; t < T; ++t) {
      inclusion(&w[(l * T + t) * E], E, p.k, pi.data());
      for (std::size_t e = 0; e < E; ++e) acc[e] += pi[e] / static_cast<double>(T);
    }
    double sum = 0.0, mx = 0.0;
    for (auto x : acc) {
      sum += x;
      mx = std::max(mx, x);
    }
    double h = 0.0;
    for (auto x : acc) {
      if (x > 0.0) h -= (x / sum) * std::log(x / sum);
    }
    s.hottest_share += mx / sum / static_cast<double>(p.layers);
    if (E > 1) s.entropy += h / std::log(static_cast<double>(E)) / static_cast<double>(p.layers);
  }
  return s;
}

}  // namespace detail::trace_gen

/// Generates a trace (model in the file comment). Deterministic for `p.seed`. Topic names are
/// "topic0", "topic1", …; token `seq` and `pos` are set. Throws `config_error` via `validate`.
template <class = void>
inline routing_trace generate_trace(const trace_gen_params& p) {
  validate(p);
  const auto E = static_cast<std::size_t>(p.experts);
  const auto T = static_cast<std::size_t>(p.topics);
  const auto L = static_cast<std::size_t>(p.layers);
  const auto K = static_cast<std::size_t>(p.k);
  const auto ranks = detail::trace_gen::draw_ranks(p);
  const auto w = detail::trace_gen::popularity(p, ranks);

  // CDF of each (layer, topic): cdf[0] = 0, cdf[e + 1] = Σ_{i <= e} w_i; and a guide table
  // (Chen & Asau 1974): guide[b] = first e with cdf[e + 1] > b·cdf[E]/E, so the inversion starts
  // at most a step or two before its answer instead of binary-searching.
  std::vector<double> cdf(L * T * (E + 1));
  std::vector<std::uint32_t> guide(L * T * E);
  std::vector<double> scale(L * T);  // E / cdf[E]: maps a CDF value to its guide bucket
  for (std::size_t lt = 0; lt < L * T; ++lt) {
    double* c = &cdf[lt * (E + 1)];
    c[0] = 0.0;
    for (std::size_t e = 0; e < E; ++e) c[e + 1] = c[e] + w[lt * E + e];
    scale[lt] = static_cast<double>(E) / c[E];
    std::uint32_t* g = &guide[lt * E];
    std::size_t e = 0;
    for (std::size_t b = 0; b < E; ++b) {
      const double at = c[E] * static_cast<double>(b) / static_cast<double>(E);
      while (e + 1 < E && c[e + 1] <= at) ++e;
      g[b] = static_cast<std::uint32_t>(e);
    }
  }

  // Sequence structure from its own stream, so it does not depend on skew, offset or reuse.
  detail::trace_gen::trace_rng srng(detail::trace_gen::stream_seed(p.seed, 1));
  std::vector<std::uint32_t> lengths(static_cast<std::size_t>(p.sequences)), topic_of(lengths.size());
  std::size_t n = 0;
  for (std::size_t s = 0; s < lengths.size(); ++s) {
    lengths[s] = static_cast<std::uint32_t>(p.min_length) +
                 static_cast<std::uint32_t>(srng.below(static_cast<std::uint64_t>(p.max_length - p.min_length) + 1));
    const auto drawn = static_cast<std::uint32_t>(srng.below(T));
    topic_of[s] = p.topic_blocks ? static_cast<std::uint32_t>(s * T / lengths.size()) : drawn;
    n += lengths[s];
  }

  std::vector<std::string> names;
  for (std::size_t t = 0; t < T; ++t) names.push_back("topic" + std::to_string(t));
  routing_trace tr(p.layers, p.experts, p.k, std::move(names));
  auto& ids = detail::trace_access::ids(tr);
  auto& infos = detail::trace_access::infos(tr);
  ids.resize(n * L * K);
  infos.resize(n);

  detail::trace_gen::trace_rng rng(detail::trace_gen::stream_seed(p.seed, 2));
  std::vector<std::uint32_t> mark(E, 0);  // mark[e] == stamp: e already picked in this cell
  std::uint32_t stamp = 0;
  std::vector<std::uint32_t> picked(K);   // picked experts, ascending (CDF order)
  std::vector<std::uint16_t> cand(K);
  const double reuse = p.reuse;

  std::size_t tok = 0;
  for (std::size_t s = 0; s < lengths.size(); ++s) {
    const std::size_t topic = topic_of[s];
    for (std::uint32_t pos = 0; pos < lengths[s]; ++pos, ++tok) {
      infos[tok] = token_info{static_cast<std::int32_t>(s), static_cast<std::int32_t>(pos),
                              static_cast<std::int32_t>(topic)};
      for (std::size_t l = 0; l < L; ++l) {
        const double* c = &cdf[(l * T + topic) * (E + 1)];
        const std::uint32_t* g = &guide[(l * T + topic) * E];
        std::uint16_t* out = &ids[(tok * L + l) * K];
        const std::uint16_t* prev = pos > 0 ? out - L * K : nullptr;
        if (++stamp == 0) {
          std::fill(mark.begin(), mark.end(), 0u);
          stamp = 1;
        }
        std::size_t npicked = 0;
        double removed = 0.0;
        for (std::size_t j = 0; j < K; ++j) {
          const double u1 = rng.uniform(), u2 = rng.uniform();  // always two: common random numbers
          std::size_t e = E;
          if (prev != nullptr && u1 < reuse) {
            std::size_t m = 0;
            for (std::size_t i = 0; i < K; ++i) {
              if (mark[prev[i]] != stamp) cand[m++] = prev[i];
            }
            // m >= 1: j < k experts are picked and the previous token had k distinct ones.
            e = cand[std::min(m - 1, static_cast<std::size_t>(u1 / reuse * static_cast<double>(m)))];
          } else {
            // Invert the CDF of the unpicked mass: map y in [0, 1 − removed) past the picked
            // intervals (ascending), then search the full CDF from its guide entry.
            // Branch-free: once y is left of a picked interval it is left of all later ones.
            double y = u2 * (c[E] - removed);
            for (std::size_t i = 0; i < npicked; ++i) {
              const double lo = c[picked[i]];
              y += y >= lo ? c[picked[i] + 1] - lo : 0.0;
            }
            const double b = y * scale[l * T + topic];
            e = g[b < static_cast<double>(E) ? static_cast<std::size_t>(b) : E - 1];
            // The first e' >= e with c[e' + 1] > y (at most E − 1). The CDF never decreases (a
            // sum of weights >= 0, rounded), so the entries <= y after e are a prefix: counted
            // four at a time without a branch per entry, the walk ends in the first block not
            // wholly <= y; the last few entries one at a time.
            while (e + 4 < E) {
              const std::size_t n = static_cast<std::size_t>(c[e + 1] <= y) + static_cast<std::size_t>(c[e + 2] <= y) +
                                    static_cast<std::size_t>(c[e + 3] <= y) + static_cast<std::size_t>(c[e + 4] <= y);
              e += n;
              if (n < 4) break;
            }
            if (e + 4 >= E) {
              while (e + 1 < E && c[e + 1] <= y) ++e;
            }
            if (mark[e] == stamp || !(c[e + 1] > c[e])) {
              // Rounding at an interval edge, or weights that underflowed: nearest unpicked
              // expert with mass, else any unpicked one.
              std::size_t best = E;
              for (std::size_t d = 1; d < E && best == E; ++d) {
                if (e + d < E && mark[e + d] != stamp && c[e + d + 1] > c[e + d]) best = e + d;
                else if (e >= d && mark[e - d] != stamp && c[e - d + 1] > c[e - d]) best = e - d;
              }
              for (std::size_t i = 0; i < E && best == E; ++i) {
                if (mark[i] != stamp) best = i;
              }
              e = best;
            }
          }
          mark[e] = stamp;
          removed += c[e + 1] - c[e];
          std::size_t i = npicked++;
          while (i > 0 && picked[i - 1] > e) {
            picked[i] = picked[i - 1];
            --i;
          }
          picked[i] = static_cast<std::uint32_t>(e);
          out[j] = static_cast<std::uint16_t>(e);
        }
      }
    }
  }
  return tr;
}

/// Options of `fit_trace_gen` (numerics only, apart from the physics parameters).
struct trace_fit_options {
  int rounds = 4;             ///< correction rounds (each: shape, reuse, one full simulation)
  double tolerance = 0.01;    ///< stop when h, H and o are all within this relative error
  int sim_layers = 4;         ///< layers generated while solving for reuse (0: all)
  double max_skew = 1000.0;   ///< bracket of s
  double max_offset = 200.0;  ///< bracket of q
  solve_options solve{.rel_tol = 1e-4, .max_iter = 200};  ///< all 1-D solves

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("rounds", s.rounds);
    v("tolerance", s.tolerance);
    v("sim_layers", s.sim_layers);
    v("max_skew", s.max_skew);
    v("max_offset", s.max_offset);
    v("solve", s.solve);
  }
};

/// Result of `fit_trace_gen`: the parameters, the real trace's statistics (targets) and those of
/// `generate_trace(params)` (fitted), as means over layers.
struct trace_fit_result {
  trace_gen_params params;
  double target_hottest_share = 0.0;
  double target_entropy = 0.0;
  double target_overlap = 0.0;
  double hottest_share = 0.0;  ///< of generate_trace(params)
  double entropy = 0.0;        ///< of generate_trace(params)
  double overlap = 0.0;        ///< of generate_trace(params)
  int rounds = 0;              ///< rounds used
  bool converged = false;      ///< all three within `tolerance`
  std::string reason;          ///< why not, or which target was out of reach
};

namespace detail::trace_gen {
template <class = void>
inline double rel_err(double x, double target) {
  return std::abs(x - target) / std::max(std::abs(target), 1e-12);
}
}  // namespace detail::trace_gen

/// Fits `skew`, `offset` and `reuse` so that `generate_trace` matches `real`'s mean hottest
/// share, entropy and consecutive overlap (method in the file comment). Layout from `real`;
/// `topic_share` and `seed` from `base`. Throws `config_error` for an empty trace.
template <class = void>
inline trace_fit_result fit_trace_gen(const routing_trace& real, const trace_gen_params& base = {},
                                      const trace_fit_options& opt = {}) {
  constexpr const char* m = "strata.trace_fit";
  detail::require(real.tokens() >= 2, m, "tokens", real.tokens(), ">= 2");
  detail::require(opt.rounds >= 1, m, "rounds", opt.rounds, ">= 1");
  detail::require_positive(opt.tolerance, m, "tolerance");
  detail::require(opt.sim_layers >= 0, m, "sim_layers", opt.sim_layers, ">= 0");
  detail::require_positive(opt.max_skew, m, "max_skew");
  detail::require_positive(opt.max_offset, m, "max_offset");

  trace_fit_result r;
  const auto target = statistics(real);
  r.target_hottest_share = target.hottest_share;
  r.target_entropy = target.entropy;
  r.target_overlap = target.overlap;

  // Layout of the real trace: sequences are runs of equal `seq`.
  trace_gen_params p = base;
  p.layers = real.layers();
  p.experts = real.experts_per_layer();
  p.k = real.k();
  if (!real.topic_names().empty()) p.topics = static_cast<int>(real.topic_names().size());
  {
    int seqs = 0, lo = 0, hi = 0, run = 0;
    const auto infos = real.infos();
    for (std::size_t i = 0; i <= infos.size(); ++i) {
      if (i == infos.size() || (i > 0 && !detail::same_sequence(infos[i - 1], infos[i]))) {
        lo = seqs == 0 ? run : std::min(lo, run);
        hi = std::max(hi, run);
        ++seqs;
        run = 0;
      }
      ++run;
    }
    p.sequences = seqs;
    p.min_length = lo;
    p.max_length = hi;
  }
  validate(p);

  const auto ranks = detail::trace_gen::draw_ranks(p);
  const double E = p.experts;
  const double h_lo = 1.0 / E, h_hi = 1.0 / p.k;
  double aim_h = target.hottest_share, aim_H = target.entropy, aim_o = target.overlap;

  auto skew_for = [&](double q, double h) {  // s with expected hottest share h at offset q
    trace_gen_params t = p;
    t.offset = q;
    auto f = [&](double s) {
      t.skew = s;
      return detail::trace_gen::expected_shape(t, ranks).hottest_share - h;
    };
    if (f(0.0) >= 0.0) return 0.0;
    if (f(opt.max_skew) <= 0.0) return opt.max_skew;
    return detail::solve_bracketed(f, 0.0, opt.max_skew, opt.solve, "trace_fit skew");
  };
  auto entropy_gap = [&](double q, double h, double H) {
    trace_gen_params t = p;
    t.offset = q;
    t.skew = skew_for(q, h);
    return detail::trace_gen::expected_shape(t, ranks).entropy - H;
  };
  auto overlap_of = [&](const trace_gen_params& q) {
    trace_gen_params t = q;
    if (opt.sim_layers > 0) t.layers = std::min(t.layers, opt.sim_layers);
    return statistics(generate_trace(t)).overlap;
  };

  for (r.rounds = 1; r.rounds <= opt.rounds; ++r.rounds) {
    r.reason.clear();
    // 1. Shape: q along the curve h = aim_h, where the entropy falls as q grows.
    const double g0 = entropy_gap(0.0, aim_h, aim_H), g1 = entropy_gap(opt.max_offset, aim_h, aim_H);
    double q = 0.0;
    if (g0 <= 0.0 || g1 >= 0.0) {
      q = std::abs(g0) <= std::abs(g1) ? 0.0 : opt.max_offset;
      r.reason = "entropy target out of reach of the offset bracket; ";
    } else {
      q = detail::solve_bracketed([&](double x) { return entropy_gap(x, aim_h, aim_H); }, 0.0, opt.max_offset,
                                  opt.solve, "trace_fit offset");
    }
    p.offset = q;
    p.skew = skew_for(q, aim_h);
    // 2. Reuse by simulation.
    auto fo = [&](double u) {
      trace_gen_params t = p;
      t.reuse = u;
      return overlap_of(t) - aim_o;
    };
    const double o0 = fo(0.0);
    if (o0 >= 0.0) {
      p.reuse = 0.0;
      if (o0 > 0.0) r.reason += "overlap target below the no-reuse baseline; ";
    } else if (fo(1.0) <= 0.0) {
      p.reuse = 1.0;
    } else {
      p.reuse = detail::solve_bracketed(fo, 0.0, 1.0, opt.solve, "trace_fit reuse");
    }
    // 3. Measure the full trace; correct the aims by the residuals.
    const auto got = statistics(generate_trace(p));
    r.hottest_share = got.hottest_share;
    r.entropy = got.entropy;
    r.overlap = got.overlap;
    r.converged = detail::trace_gen::rel_err(got.hottest_share, target.hottest_share) <= opt.tolerance &&
                  detail::trace_gen::rel_err(got.entropy, target.entropy) <= opt.tolerance &&
                  detail::trace_gen::rel_err(got.overlap, target.overlap) <= opt.tolerance;
    if (r.converged) break;
    aim_h = std::clamp(aim_h + target.hottest_share - got.hottest_share, h_lo, h_hi);
    aim_H = std::clamp(aim_H + target.entropy - got.entropy, 0.0, 1.0);
    aim_o = std::clamp(aim_o + target.overlap - got.overlap, 0.0, 1.0);
  }
  if (r.rounds > opt.rounds) r.rounds = opt.rounds;
  if (!r.converged) r.reason += "not within tolerance after " + std::to_string(opt.rounds) + " rounds";
  r.params = p;
  return r;
}

}  // namespace v0
}  // namespace strata
