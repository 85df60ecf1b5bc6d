// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Discrete-event serving simulation (Stratum §6, Fig. 6): requests arrive, the classifier labels
/// them, the scheduler (`stratum/serving/topic_batcher.hpp`) forms prefill groups that join a
/// continuously decoding batch, the memory mapper swaps experts before a group with a new topic label, prefill runs on
/// the xPU and decode on the NMP; and the same requests on a GPU baseline with vLLM V1's engine
/// scheduler (`engine.hpp`, `run_engine`: token-budget steps mixing decodes with prefill chunks,
/// KV blocks, preemption by recompute, prefix caching) or the former FCFS continuous batching.
///
/// The loop. The system runs one step at a time (prefill and decode do not overlap: the xPU takes
/// part in every decode step, its norms and router). At each step boundary every request whose
/// label is ready (arrival + classifier latency) enters the queue; the classifier time the device
/// owes (`on_device`) is charged before the next step. A prefill step produces each admitted
/// request's first token (TTFT = its end − arrival); a decode step gives every running request one
/// token (its TBT sample is the time since its previous token, prefills of others included). A
/// request leaves with its last token. Step costs are `step_costs.hpp`'s, at the running batch's
/// size, mean context and hot-hit rate.
///
/// Layouts and hit rates. Each topic label has a layout: Algorithm 1 on its usage table
/// (`topic_usage.hpp`); the mix layout is Algorithm 1 on the workload's topic mix. FCFS keeps the
/// mix layout; the topic batcher swaps to a group's label's layout when it differs from the
/// current one, charged with the row-swap cost between the two layouts (`row_swap.hpp`; stages
/// swap in parallel, every chip of a stage swaps). A running request routes by its true topic: on
/// layout k its hot-hit rate is H[t][k] = hot_hit_rate(f_t, fast set of k) (table routing), or the
/// share of its current recorded token's expert picks in k's fast set (trace routing). A step's h
/// is the mean over the running batch; the achieved hit rate is the token-weighted mean over steps.
///
/// Reported: throughput (requests/s and output tokens/s over the makespan), TTFT and TBT
/// percentiles (nearest rank), SLO attainment (TTFT ≤ ttft_slo and mean TBT ≤ tbt_slo), achieved
/// hot-hit rate, swaps and their time share, the classifier's time share, Little's-law terms
/// (time-averaged requests in the system, arrival rate, mean sojourn), energy.
///
/// Latency metrics (each request r of arrival a_r, first token at f_r, last at e_r, o_r output
/// tokens; c the client overhead, `scheduler.client_overhead`, default 0):
/// - TTFT = f_r − a_r + c; E2E = e_r − a_r + c (the client sees both through its overhead);
/// - inter-token latency (ITL): every gap between two consecutive tokens of a request, pooled over
///   all requests (a preempted request's gap includes its wait and recompute);
/// - TPOT = (E2E − TTFT)/(o_r − 1) per request with o_r > 1 (the mean of its gaps);
/// - each as the mean and the nearest-rank p50/p90/p99 (`latency_stats`); TTFT, TPOT and E2E over
///   requests, ITL over gaps (so its mean weights long requests more than TPOT's).
/// `tbt_*` are the ITL percentiles (kept for the former readers). A staged load's results
/// (`add_stage_results`) give each stage its requests' TTFT/TPOT/E2E, their mean ITL and the
/// served rate in its window.
///
/// Where it lives (docs/serving.md, "Where the code lives"): this header holds what every machine
/// shares (the results, the paper's loop `run_serving`, the engine's drivers) and the GPU's run
/// (`simulate_gpu`); the Stratum system's run (`simulate_stratum`, its setup and memo,
/// `run_stratum_engine`) is `stratum/serving/stratum_serving.hpp`.
///
/// Simplifications (Stratum and the GPU's `fcfs`): no preemption or chunked prefill; KV is
/// reserved for a request's whole length on admission; Stratum-XL's two pipeline stages are charged as one decode step of the batch
/// (`evaluate_decode`'s step time), not as two half batches in flight; a prefill's cost is that of
/// b prompts of the group's mean length.

#include <algorithm>  // std::sort, std::nth_element, std::min, std::max
#include <array>      // std::array (the percentiles selected together)
#include <bit>        // std::bit_cast (the radix sort of the inter-token gaps, bits_buckets)
#include <cmath>      // std::ceil, std::isfinite, std::signbit
#include <cstddef>    // std::size_t
#include <cstdint>    // std::int64_t
#include <deque>      // std::deque
#include <functional> // std::function
#include <limits>     // std::numeric_limits (NaN: a time not reached yet)
#include <memory>     // std::make_shared
#include <queue>      // std::priority_queue, KV on the way (run_engine_cluster)
#include <string>     // std::string
#include <tuple>      // std::tuple, a KV transfer
#include <utility>    // std::pair
#include <vector>     // std::vector

#include "strata/baseline/gpu.hpp"
#include "strata/core/error.hpp"
#include "strata/core/result_check.hpp"
#include "strata/serving/cluster.hpp"
#include "strata/serving/engine.hpp"
#include "strata/serving/engine_core.hpp"
#include "strata/serving/requests.hpp"
#include "strata/serving/scheduler.hpp"
#include "strata/serving/step_costs.hpp"
#include "strata/stratum/serving/stratum_engine.hpp"  // serving_step_kind (the paper loop's thermal hook)
#include "strata/stratum/serving/topic_batcher.hpp"
#include "strata/workload/trace.hpp"

namespace strata {
inline namespace v0 {

/// Mean and nearest-rank percentiles of one latency over a run's samples (file comment), s.
struct latency_stats {
  double mean_s = 0.0, p50_s = 0.0, p90_s = 0.0, p99_s = 0.0;

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("mean_s", s.mean_s);
    v("p50_s", s.p50_s);
    v("p90_s", s.p90_s);
    v("p99_s", s.p99_s);
  }
};

/// One stage of a staged load (`requests.hpp`): its window [start, end) (the last stage's runs to
/// the end of the run, so every request counts once), the requests that arrived in it and their
/// latencies (file comment), and the served rate: requests finished inside the window / its length.
struct stage_result {
  int stage = 0;
  double start_s = 0.0, end_s = 0.0;
  double offered_rps = 0.0;  ///< the stage's rate
  std::int64_t requests = 0;  ///< arrived in the stage
  std::int64_t completed = 0;  ///< finished inside the window (any stage's requests)
  double served_rps = 0.0;
  latency_stats ttft, tpot, e2e;
  double itl_mean_s = 0.0;  ///< Σ (E2E − TTFT) / Σ (output − 1): the mean of every gap of its requests

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("stage", s.stage);
    v("start_s", s.start_s);
    v("end_s", s.end_s);
    v("offered_requests_per_s", s.offered_rps);
    v("requests", s.requests);
    v("completed", s.completed);
    v("served_requests_per_s", s.served_rps);
    v("ttft", s.ttft);
    v("tpot", s.tpot);
    v("e2e", s.e2e);
    v("itl_mean_s", s.itl_mean_s);
  }
};

/// Results of one serving run (file comment). Times in s, energy in J.
struct serving_result {
  std::string system;
  std::string policy;
  bool feasible = true;
  std::string reason;
  std::int64_t requests = 0;
  std::int64_t output_tokens = 0;
  double makespan_s = 0.0;
  double throughput_rps = 0.0;
  double throughput_tps = 0.0;
  double ttft_p50_s = 0.0, ttft_p90_s = 0.0, ttft_p99_s = 0.0, ttft_max_s = 0.0;
  double tbt_p50_s = 0.0, tbt_p90_s = 0.0, tbt_p99_s = 0.0;
  double ttft_attainment = 0.0;  ///< share of requests with TTFT ≤ ttft_slo
  double slo_attainment = 0.0;   ///< share with TTFT ≤ ttft_slo and mean TBT ≤ tbt_slo
  double hot_hit_rate = 0.0;     ///< achieved, token-weighted over decode steps
  std::vector<double> topic_hit_rates;  ///< H[t][t]: each topic's table on its own layout
  double mix_hit_rate = 0.0;     ///< Σ π_t H[t][mix]: the mix layout's expected hit rate
  double label_accuracy = 0.0;   ///< share of requests labelled with their true topic
  std::int64_t swaps = 0;
  double swap_time_s = 0.0;
  double swap_share = 0.0;       ///< swap time / busy time
  double classifier_time_s = 0.0;
  double classifier_share = 0.0; ///< classifier device time / busy time
  double classifier_latency_s = 0.0;  ///< mean per request
  std::int64_t decode_steps = 0, prefill_steps = 0;
  /// Mean running batch of the decode steps (engine: sequences per step, summed over the DP ranks).
  double mean_batch = 0.0;
  double busy_time_s = 0.0;
  double energy_j = 0.0;
  double tokens_per_joule = 0.0;
  double arrival_rate = 0.0;     ///< λ = requests / last arrival
  double mean_in_system = 0.0;   ///< L: time average over the makespan
  double mean_sojourn_s = 0.0;   ///< W
  std::int64_t kv_tokens = 0;    ///< KV capacity the scheduler used
  latency_stats ttft, itl, tpot, e2e;  ///< file comment: client overhead in TTFT and E2E
  double client_overhead_s = 0.0;
  std::int64_t mixed_steps = 0;  ///< engine steps holding decodes and prefill chunks
  std::int64_t preemptions = 0;  ///< engine: requests preempted (recomputed)
  std::int64_t prefix_cached_tokens = 0;  ///< engine: prompt tokens served from the prefix cache
  /// Engine: its schedulers, one per engine core (the EP degree under DP attention, else 1); each
  /// has its own max_num_seqs, max_num_batched_tokens and `kv_tokens / ranks` of KV.
  int ranks = 1;
  /// Engine: the engines of the deployment (`serving/cluster.hpp`): replicas, or prefill + decode
  /// engines; 1 for one engine.
  int engines = 1;
  std::string router;  ///< the replicas' router (`replica_router`); empty for one engine
  /// Engine: requests each engine took (replicas, or the prefill engines then the decode engines).
  std::vector<std::int64_t> engine_requests;
  int prefill_engines = 0, decode_engines = 0;  ///< disaggregation: P and D (0: colocated)
  std::int64_t kv_transfers = 0;  ///< disaggregation: KV hand-offs from a prefill to a decode engine
  double kv_transfer_bytes = 0.0;  ///< their KV bytes, B
  /// Their time from the first token to the KV at the decode engine (the link's queue, the
  /// transfer, its latency): mean and largest, s.
  double kv_transfer_mean_s = 0.0, kv_transfer_max_s = 0.0;
  std::vector<stage_result> stages;  ///< staged load: one per stage (`add_stage_results`)
  /// What the run changed in its settings, or applied in a way the settings do not say, each a
  /// sentence (e.g. a shared prefix longer than the shortest prompt, capped at it).
  std::vector<std::string> notes;
  /// Per request (the run's request order), the engine's time of the first token and of the
  /// last (no client overhead); not written to JSON.
  std::vector<double> first_token_s, finish_s;

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("system", s.system);
    v("policy", s.policy);
    v("feasible", s.feasible);
    v("reason", s.reason);
    v("requests", s.requests);
    v("output_tokens", s.output_tokens);
    v("makespan_s", s.makespan_s);
    v("requests_per_s", s.throughput_rps);
    v("tokens_per_s", s.throughput_tps);
    v("ttft_p50_s", s.ttft_p50_s);
    v("ttft_p90_s", s.ttft_p90_s);
    v("ttft_p99_s", s.ttft_p99_s);
    v("ttft_max_s", s.ttft_max_s);
    v("tbt_p50_s", s.tbt_p50_s);
    v("tbt_p90_s", s.tbt_p90_s);
    v("tbt_p99_s", s.tbt_p99_s);
    v("ttft_attainment", s.ttft_attainment);
    v("slo_attainment", s.slo_attainment);
    v("hot_hit_rate", s.hot_hit_rate);
    v("topic_hit_rates", s.topic_hit_rates);
    v("mix_hit_rate", s.mix_hit_rate);
    v("label_accuracy", s.label_accuracy);
    v("swaps", s.swaps);
    v("swap_time_s", s.swap_time_s);
    v("swap_share", s.swap_share);
    v("classifier_time_s", s.classifier_time_s);
    v("classifier_share", s.classifier_share);
    v("classifier_latency_s", s.classifier_latency_s);
    v("decode_steps", s.decode_steps);
    v("prefill_steps", s.prefill_steps);
    v("mean_batch", s.mean_batch);
    v("busy_time_s", s.busy_time_s);
    v("energy_J", s.energy_j);
    v("tokens_per_J", s.tokens_per_joule);
    v("arrival_requests_per_s", s.arrival_rate);
    v("mean_in_system", s.mean_in_system);
    v("mean_sojourn_s", s.mean_sojourn_s);
    v("kv_tokens", s.kv_tokens);
    v("ttft", s.ttft);
    v("itl", s.itl);
    v("tpot", s.tpot);
    v("e2e", s.e2e);
    v("client_overhead_s", s.client_overhead_s);
    v("mixed_steps", s.mixed_steps);
    v("preemptions", s.preemptions);
    v("prefix_cached_tokens", s.prefix_cached_tokens);
    v("ranks", s.ranks);
    v("engines", s.engines);
    v("router", s.router);
    v("engine_requests", s.engine_requests);
    v("prefill_engines", s.prefill_engines);
    v("decode_engines", s.decode_engines);
    v("kv_transfers", s.kv_transfers);
    v("kv_transfer_bytes_B", s.kv_transfer_bytes);
    v("kv_transfer_mean_s", s.kv_transfer_mean_s);
    v("kv_transfer_max_s", s.kv_transfer_max_s);
    v("stages", s.stages);
    v("notes", s.notes);
  }
};

/// Nearest-rank percentile (p in [0, 1]) of `x` (sorted in place); 0 for no values.
template <class = void>
inline double percentile(std::vector<double>& x, double p) {
  if (x.empty()) return 0.0;
  if (!std::is_sorted(x.begin(), x.end())) std::sort(x.begin(), x.end());
  const auto n = static_cast<double>(x.size());
  const auto k = static_cast<std::size_t>(std::max(1.0, std::ceil(p * n)));
  return x[std::min(k, x.size()) - 1];
}

namespace detail {
/// Sorts `x` as `std::sort` does (by value, then weight) when every number is finite and not
/// negative, by an LSD radix sort of the numbers' bits (which order such doubles as their values
/// do; O(n) where a sort is O(n log n): a run's inter-token gaps are one entry per step); returns
/// false, `x` untouched, otherwise.
template <class = void>
inline bool radix_sort_samples(std::vector<std::pair<double, double>>& x) {
  for (const auto& e : x) {
    if (!std::isfinite(e.first) || !std::isfinite(e.second) || std::signbit(e.first) || std::signbit(e.second)) return false;
  }
  const std::size_t n = x.size();
  if (n < 2) return true;
  // Digits of 11 bits (2 048 counters a pass, which stay in the L1 cache; six cover 64 bits):
  // the weight's six, then the value's (the last pass the most significant). Every pass's counts
  // come from one read of the samples; a pass whose digit is the same for all moves nothing and
  // is skipped (the weights, small integers, have zeros in their low digits). A stable LSD sort
  // orders as `std::sort` on (value, weight) whatever the digit width.
  constexpr int bits = 11, digits = 6, passes = 2 * digits;
  constexpr std::size_t radix = std::size_t{1} << bits;
  std::vector<std::size_t> count(passes * radix, 0);
  const auto digit = [](const std::pair<double, double>& e, int pass) {
    const std::uint64_t u = std::bit_cast<std::uint64_t>(pass >= digits ? e.first : e.second);
    return static_cast<std::size_t>((u >> (bits * (pass % digits))) & (radix - 1));
  };
  for (const auto& e : x) {
    const std::uint64_t w = std::bit_cast<std::uint64_t>(e.second), v = std::bit_cast<std::uint64_t>(e.first);
    for (int d = 0; d < digits; ++d) {
      ++count[static_cast<std::size_t>(d) * radix + ((w >> (bits * d)) & (radix - 1))];
      ++count[static_cast<std::size_t>(digits + d) * radix + ((v >> (bits * d)) & (radix - 1))];
    }
  }
  std::vector<std::pair<double, double>> tmp(n);
  auto* from = &x;
  auto* to = &tmp;
  for (int pass = 0; pass < passes; ++pass) {
    std::size_t* c = count.data() + static_cast<std::size_t>(pass) * radix;
    if (c[digit(from->front(), pass)] == n) continue;  // one digit for all: the pass moves nothing
    std::size_t sum = 0;
    for (std::size_t k = 0; k < radix; ++k) {
      const std::size_t m = c[k];
      c[k] = sum;
      sum += m;
    }
    for (const auto& e : *from) (*to)[c[digit(e, pass)]++] = e;
    std::swap(from, to);
  }
  if (from != &x) x.swap(tmp);
  return true;
}
}  // namespace detail

namespace detail {
/// Nearest-rank percentiles of weighted samples (value, weight) at each of `p` (`x` sorted in
/// place once, its weights summed once, one scan); 0 for no samples. A target p·total at least the one before starts the scan where
/// that one stopped (every sample before it missed the smaller target, so misses this one);
/// another restarts it.
template <std::size_t N>
inline std::array<double, N> weighted_percentiles(std::vector<std::pair<double, double>>& x, const std::array<double, N>& p) {
  std::array<double, N> out{};
  if (x.empty()) return out;
  if (!std::is_sorted(x.begin(), x.end()) && !radix_sort_samples(x)) std::sort(x.begin(), x.end());
  double total = 0.0;
  for (const auto& e : x) total += e.second;
  std::size_t i = 0;
  double acc = 0.0, before = -std::numeric_limits<double>::infinity();
  for (std::size_t k = 0; k < N; ++k) {
    const double target = p[k] * total;
    if (!(target >= before)) {
      i = 0;
      acc = 0.0;
    }
    before = target;
    out[k] = x.back().first;
    // `acc` holds the sum through x[i - 1]; x[i - 1] was the previous answer (its sum rechecked).
    if (i > 0 && acc >= target && acc > 0.0) {
      out[k] = x[i - 1].first;
      continue;
    }
    for (; i < x.size();) {
      acc += x[i].second;
      ++i;
      if (acc >= target && acc > 0.0) {
        out[k] = x[i - 1].first;
        break;
      }
    }
  }
  return out;
}
}  // namespace detail

namespace detail {
/// Σ t_i over the terms `visit` passes to its callback (it is called twice and must pass the same
/// terms both times), the same double in any order of the terms: each finite term is its 53-bit
/// integer mantissa times a power of two, added exactly into a 128-bit fixed-point sum whose unit
/// is 2^-40 of the largest term's last mantissa bit, then rounded once. Bits of a term below that
/// unit (a term under 2^-92 of the largest) are dropped, toward −∞, term by term, so the result
/// depends on the multiset of terms alone; it is within n·2^-40 units in the last place of the
/// largest term of the exact sum (for the 10^5 inter-token gaps of a long run, a 10^-7 of an
/// ulp). A non-finite term, or 2^34 terms and more, makes it the terms' sum in their order.
template <class Visit>
inline double order_free_sum(Visit&& visit) {
  // A finite double t ≠ 0 is m·2^e with m < 2^53 (its bits: the exponent field E, e = E − 1075,
  // and the fraction with its hidden bit; a subnormal: E = 0, e = −1074, no hidden bit).
  const auto split = [](double t, std::uint64_t& m, int& e) {
    const std::uint64_t u = std::bit_cast<std::uint64_t>(t);
    const int field = static_cast<int>((u >> 52) & 0x7FF);
    m = (u & ((std::uint64_t{1} << 52) - 1)) | (field != 0 ? std::uint64_t{1} << 52 : 0);
    e = (field != 0 ? field : 1) - 1075;
  };
  std::size_t n = 0;
  bool finite = true;
  int emax = std::numeric_limits<int>::min();
  visit([&](double t) {
    ++n;
    if (!std::isfinite(t)) finite = false;
    if (t == 0.0 || !finite) return;
    std::uint64_t m = 0;
    int e = 0;
    split(t, m, e);
    emax = std::max(emax, e);
  });
  if (!finite || n >= (std::size_t{1} << 34)) {
    double sum = 0.0;
    visit([&](double t) { sum += t; });
    return sum;
  }
  if (emax == std::numeric_limits<int>::min()) return 0.0;  // every term 0
  __extension__ using i128 = __int128;
  __extension__ using u128 = unsigned __int128;
  // Unit 2^(emax − 40): a term is below 2^93 units, 2^34 of them below 2^127.
  const int unit = emax - 40;
  i128 acc = 0;
  visit([&](double t) {
    if (t == 0.0) return;
    std::uint64_t m = 0;
    int e = 0;
    split(t, m, e);
    const int shift = e - unit;  // at most 40
    u128 mag = 0;
    if (shift >= 0) {
      mag = static_cast<u128>(m) << shift;
    } else if (shift > -64) {
      // Toward −∞ for a negative term too: its magnitude rounded up.
      const std::uint64_t lost = m & ((std::uint64_t{1} << -shift) - 1);
      mag = static_cast<u128>(m >> -shift) + (std::signbit(t) && lost != 0 ? 1 : 0);
    } else {
      mag = std::signbit(t) ? 1 : 0;
    }
    acc += std::signbit(t) ? -static_cast<i128>(mag) : static_cast<i128>(mag);
  });
  // |acc| < 2^127: its conversion is rounded once (to nearest); the scaling is exact unless the
  // sum is subnormal.
  return std::ldexp(static_cast<double>(acc), unit);
}

/// The weighted mean Σ v·w / Σ w of samples (value, weight): Σ v·w `order_free_sum`'s, Σ w
/// likewise (a plain sum when every weight is an integer and the sum stays below 2^53, exact in
/// any order): the same double in any order of the samples; 0 for no weight.
template <class = void>
inline double weighted_mean(const std::vector<std::pair<double, double>>& x) {
  double den = 0.0;
  bool exact = true;
  for (const auto& g : x) {
    den += g.second;
    exact = exact && g.second == std::floor(g.second) && std::abs(g.second) < 0x1p53;
  }
  if (!(exact && std::abs(den) < 0x1p53)) {
    den = order_free_sum([&x](auto&& add) {
      for (const auto& g : x) add(g.second);
    });
  }
  if (!(den > 0.0)) return 0.0;
  const double num = order_free_sum([&x](auto&& add) {
    for (const auto& g : x) add(g.first * g.second);
  });
  return num / den;
}

/// The least value v of `x` with `below` + W(≤ v) ≥ `rank` (W: the weight of `x`'s samples of
/// value ≤ v; `rank` ≤ `below` + W(x), integer weights), by a weighted quickselect on a three-way
/// partition (median of three); `x` is reordered. Past 2·log₂ n + 16 partitions the range left is
/// sorted and scanned.
template <class = void>
inline double weighted_select(std::vector<std::pair<double, double>>& x, double below, double rank) {
  std::size_t a = 0, b = x.size();  // the answer is in x[a, b); x[0, a) below it, weight `w`
  double w = below;
  std::size_t budget = 16;
  for (std::size_t m = x.size(); m > 1; m >>= 1) budget += 2;
  for (;;) {
    if (b - a <= 16 || budget-- == 0) {  // sort the rest and scan
      std::sort(x.begin() + static_cast<std::ptrdiff_t>(a), x.begin() + static_cast<std::ptrdiff_t>(b));
      std::size_t i = a;
      while (i + 1 < b && !(w + x[i].second >= rank)) w += x[i++].second;
      return x[i].first;
    }
    // Pivot: the median of the first, middle and last values.
    double u = x[a].first, v = x[a + (b - a) / 2].first, t = x[b - 1].first;
    if (u > v) std::swap(u, v);
    if (v > t) v = std::max(u, t);
    const double pivot = v;
    // Three-way partition (Dijkstra): x[a, lt) < pivot, x[lt, i) == pivot, x[gt, b) > pivot.
    std::size_t lt = a, i = a, gt = b;
    double wl = 0.0, we = 0.0;
    while (i < gt) {
      if (x[i].first < pivot) {
        wl += x[i].second;
        std::swap(x[lt++], x[i++]);
      } else if (x[i].first > pivot) {
        std::swap(x[i], x[--gt]);
      } else {
        we += x[i++].second;
      }
    }
    if (rank <= w + wl) {
      b = lt;
    } else if (rank <= w + wl + we) {
      return pivot;
    } else {
      w += wl + we;
      a = gt;
    }
  }
}

/// Buckets of doubles that are not NaN, not negative and not −0 (+∞ included), by their bits, for
/// selecting ranks without sorting (`select_weighted_percentiles`, `select_ranks_by_bits`). Such
/// doubles' bits, read as unsigned integers, order them as their values do, and two equal ones
/// have the same bits. Built from the least value `lo`, the greatest `hi` and n ≥ 1: ulo = bits(lo),
/// span = bits(hi) − ulo, s the least shift with (span >> s) < n; a value v in [lo, hi] falls in
/// bucket (bits(v) − ulo) >> s, one of `count()` = (span >> s) + 1 ≤ n. So a bucket's values all
/// lie below the next bucket's, and equal values share a bucket: with the samples counted (or
/// their weights summed) per bucket, a prefix scan of the counts names the bucket that holds
/// each rank, and the samples of that bucket alone are then selected, with the count of the
/// buckets before it. Counting is O(n) with no data-dependent branch, where a selection's
/// partitions branch on every comparison.
struct bits_buckets {
  bits_buckets(double lo, double hi, std::size_t n) : ulo_(std::bit_cast<std::uint64_t>(lo)) {
    const std::uint64_t span = std::bit_cast<std::uint64_t>(hi) - ulo_;
    while ((span >> shift_) >= n) ++shift_;  // span ≤ bits(+∞) < 2^63: ends by s = 63
    count_ = static_cast<std::size_t>(span >> shift_) + 1;
  }
  /// The number of buckets, (span >> s) + 1.
  [[nodiscard]] std::size_t count() const noexcept { return count_; }
  /// The bucket of `v` (lo ≤ v ≤ hi), (bits(v) − ulo) >> s.
  [[nodiscard]] std::size_t operator()(double v) const noexcept {
    return static_cast<std::size_t>((std::bit_cast<std::uint64_t>(v) - ulo_) >> shift_);
  }

 private:
  std::uint64_t ulo_;
  int shift_ = 0;
  std::size_t count_ = 0;
};

/// `weighted_percentiles(x, p)` without sorting: the same values, `x` left as it is (O(n) where a
/// sort is O(n log n)). With integer weights ≥ 0 summing below 2^53, no NaN and no negative value,
/// the percentile at p is the least value v with W(≤ v) ≥ max(⌈p·W⌉, 1) (W(≤ v): the weight of the
/// samples of value ≤ v, exact in any order), the greatest value when there is none, as the sorted
/// scan finds it. The samples' weights are summed per `bits_buckets` bucket (at most x.size()); the
/// prefix scan names each p's bucket, whose samples alone are then selected (`weighted_select`,
/// with the weight of the buckets before it). Other samples: `weighted_percentiles` on a copy.
template <std::size_t N>
inline std::array<double, N> select_weighted_percentiles(const std::vector<std::pair<double, double>>& x,
                                                         const std::array<double, N>& p) {
  std::array<double, N> out{};
  if (x.empty()) return out;
  double total = 0.0, lo = x.front().first, hi = lo;
  for (const auto& e : x) {
    if (!(e.first >= 0.0) || std::signbit(e.first) || !(e.second >= 0.0) || e.second != std::floor(e.second) ||
        !(e.second < 0x1p53)) {
      auto copy = x;
      return weighted_percentiles(copy, p);
    }
    total += e.second;
    lo = std::min(lo, e.first);
    hi = std::max(hi, e.first);
  }
  if (!(total < 0x1p53)) {
    auto copy = x;
    return weighted_percentiles(copy, p);
  }
  const bits_buckets bucket(lo, hi, x.size());
  std::vector<double> weight(bucket.count(), 0.0);
  for (const auto& e : x) weight[bucket(e.first)] += e.second;
  // Each p's rank and bucket, and the weight of the buckets before it (the p's in increasing order).
  std::array<std::size_t, N> order{}, at{};
  std::array<double, N> rank{}, before{};
  for (std::size_t k = 0; k < N; ++k) order[k] = k;
  std::sort(order.begin(), order.end(), [&p](std::size_t a, std::size_t b) { return p[a] < p[b]; });
  std::size_t bk = 0;
  double acc = 0.0;  // the weight of the buckets before bk
  for (const std::size_t k : order) {
    rank[k] = std::max(std::ceil(p[k] * total), 1.0);
    if (!(rank[k] <= total)) {
      out[k] = hi;  // the sorted scan's fall-back: its last value
      at[k] = weight.size();
      continue;
    }
    while (!(acc + weight[bk] >= rank[k])) acc += weight[bk++];
    at[k] = bk;
    before[k] = acc;
  }
  // The samples of the buckets named, each bucket's selected once per p in it.
  std::vector<std::pair<double, double>> in;
  for (std::size_t k = 0; k < N; ++k) {
    if (at[k] == weight.size()) continue;
    bool done = false;
    for (std::size_t j = 0; j < k; ++j) {
      if (at[j] == at[k]) done = true;
    }
    if (done) continue;
    in.clear();
    for (const auto& e : x) {
      if (bucket(e.first) == at[k]) in.push_back(e);
    }
    for (std::size_t j = k; j < N; ++j) {
      if (at[j] == at[k]) out[j] = weighted_select(in, before[j], rank[j]);
    }
  }
  return out;
}
}  // namespace detail

/// Nearest-rank percentile of weighted samples (value, weight), sorted in place
/// (`detail::weighted_percentiles` at one p).
template <class = void>
inline double weighted_percentile(std::vector<std::pair<double, double>>& x, double p) {
  return detail::weighted_percentiles(x, std::array<double, 1>{p})[0];
}

namespace detail {
/// The elements of ranks `at` (0-based, ascending) of the sorted order of `x` when every value is
/// finite, not negative and not −0 (then two equal values have the same bits), into `out`; false,
/// `out` untouched, otherwise. The values are counted per `bits_buckets` bucket (at most
/// x.size(), counts below 2^32); the prefix scan names each rank's bucket, whose values alone are
/// then selected (`std::nth_element` on a copy of the bucket). `x` is left as it is.
template <std::size_t N>
inline bool select_ranks_by_bits(const std::vector<double>& x, const std::array<std::size_t, N>& at,
                                 std::array<double, N>& out) {
  double lo = x.front(), hi = lo;
  bool ok = true;
  for (const double v : x) {
    ok = ok && v >= 0.0 && v <= std::numeric_limits<double>::max() && !std::signbit(v);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (!ok) return false;
  const bits_buckets bucket(lo, hi, x.size());
  std::vector<std::uint32_t> count(bucket.count(), 0);
  for (const double v : x) ++count[bucket(v)];
  // Each rank's bucket and the values before it (the ranks ascending: one scan).
  std::array<std::size_t, N> b{}, before{};
  std::size_t bk = 0, acc = 0;  // acc: the values in the buckets before bk
  for (std::size_t i = 0; i < N; ++i) {
    while (acc + count[bk] <= at[i]) acc += count[bk++];
    b[i] = bk;
    before[i] = acc;
  }
  std::vector<double> in;
  for (std::size_t i = 0; i < N; ++i) {
    if (i > 0 && b[i] == b[i - 1]) {
      // The same bucket as the rank before: select again in what that selection left above it.
      const auto from = in.begin() + static_cast<std::ptrdiff_t>(at[i - 1] - before[i - 1]);
      const auto it = in.begin() + static_cast<std::ptrdiff_t>(at[i] - before[i]);
      std::nth_element(from, it, in.end());
      out[i] = *it;
      continue;
    }
    in.clear();
    for (const double v : x) {
      if (bucket(v) == b[i]) in.push_back(v);
    }
    const auto it = in.begin() + static_cast<std::ptrdiff_t>(at[i] - before[i]);
    std::nth_element(in.begin(), it, in.end());
    out[i] = *it;
  }
  return true;
}

/// The nearest-rank percentiles `p` (ascending, in [0, 1]) of `x`, as `percentile` gives them, by
/// selection: `x` is reordered, not sorted (each a partition of what the one before left above
/// it, O(n) where a sort is O(n log n); the same element of the sorted order, so the same value).
/// From 64 values on, values that are finite, not negative and not −0 (a run's latencies) are
/// selected by their bits instead (`select_ranks_by_bits`, `x` left as it is; the same values).
template <std::size_t N>
inline std::array<double, N> select_percentiles(std::vector<double>& x, const std::array<double, N>& p) {
  std::array<double, N> out{};
  if (x.empty()) return out;
  const auto n = static_cast<double>(x.size());
  if (x.size() >= 64 && x.size() < std::numeric_limits<std::uint32_t>::max()) {
    std::array<std::size_t, N> at{};
    bool ascending = true;
    for (std::size_t i = 0; i < N; ++i) {
      const auto k = static_cast<std::size_t>(std::max(1.0, std::ceil(p[i] * n)));
      at[i] = std::min(k, x.size()) - 1;
      ascending = ascending && (i == 0 || at[i] >= at[i - 1]);
    }
    if (ascending && select_ranks_by_bits(x, at, out)) return out;
  }
  auto from = x.begin();
  for (std::size_t i = 0; i < N; ++i) {
    const auto k = static_cast<std::size_t>(std::max(1.0, std::ceil(p[i] * n)));
    const auto at = x.begin() + static_cast<std::ptrdiff_t>(std::min(k, x.size()) - 1);
    if (at >= from) {
      std::nth_element(from, at, x.end());
      from = at;
    }
    out[i] = *at;
  }
  return out;
}

/// Mean and percentiles of `x` (reordered: `select_percentiles`).
template <class = void>
inline latency_stats latency_of(std::vector<double>& x) {
  latency_stats l;
  if (x.empty()) return l;
  double sum = 0.0;
  for (double v : x) sum += v;
  l.mean_s = sum / static_cast<double>(x.size());
  const auto q = select_percentiles(x, std::array<double, 3>{0.50, 0.90, 0.99});
  l.p50_s = q[0];
  l.p90_s = q[1];
  l.p99_s = q[2];
  return l;
}

/// TTFT, TPOT and E2E of the requests `idx` (file comment; `overhead` added to TTFT and E2E).
template <class = void>
inline void request_latencies(const std::vector<request>& reqs, const std::vector<std::size_t>& idx,
                              const std::vector<double>& first, const std::vector<double>& finish, double overhead,
                              latency_stats& ttft, latency_stats& tpot, latency_stats& e2e, double& itl_mean) {
  std::vector<double> a, b, c;
  a.reserve(idx.size());
  c.reserve(idx.size());
  double span = 0.0, gaps = 0.0;
  for (std::size_t r : idx) {
    a.push_back(first[r] - reqs[r].arrival_s + overhead);
    c.push_back(finish[r] - reqs[r].arrival_s + overhead);
    if (reqs[r].output > 1) {
      b.push_back((finish[r] - first[r]) / (reqs[r].output - 1));
      span += finish[r] - first[r];
      gaps += reqs[r].output - 1;
    }
  }
  ttft = latency_of(a);
  tpot = latency_of(b);
  e2e = latency_of(c);
  itl_mean = gaps > 0.0 ? span / gaps : 0.0;
}

/// The latency statistics of a finished run (file comment) from its per-request times, its
/// inter-token gaps (value, count) and their percentiles `itl` (p50, p90, p99).
template <class = void>
inline void fill_latencies(serving_result& out, const std::vector<request>& reqs, std::vector<double> first,
                           std::vector<double> finish, const std::vector<std::pair<double, double>>& gaps,
                           const std::array<double, 3>& itl, double overhead) {
  std::vector<std::size_t> all(reqs.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  double itl_mean = 0.0;
  request_latencies(reqs, all, first, finish, overhead, out.ttft, out.tpot, out.e2e, itl_mean);
  out.itl.mean_s = weighted_mean(gaps);  // the same in any order of the gaps
  out.itl.p50_s = itl[0];
  out.itl.p90_s = itl[1];
  out.itl.p99_s = itl[2];
  out.client_overhead_s = overhead;
  out.first_token_s = std::move(first);
  out.finish_s = std::move(finish);
}

/// The per-request results every serving loop reports (`run_serving`, and the engine's drivers
/// through `engine_results`), from the requests' first-token and finish times `first`, `finish`
/// (engine time, no client overhead), the run's inter-token gaps (value, count),
/// its Little's-law area ∫ N dt, its end `t` and its last arrival: makespan, throughput, TTFT and
/// ITL percentiles, SLO attainment, tokens per joule (of `out.energy_j`, set before), λ, L, W and
/// the latency statistics (`fill_latencies`). The loop's own counters (steps, batch, hit rate,
/// swaps) are its caller's.
template <class = void>
inline void request_results(serving_result& out, const std::vector<request>& reqs, double last_arrival,
                            std::vector<double> first, std::vector<double> finish,
                            std::vector<std::pair<double, double>>& gaps, double area, double t,
                            const scheduler_params& sp) {
  const std::size_t n = reqs.size();
  out.makespan_s = t;
  const double overhead = sp.client_overhead.si();
  double sojourn = 0.0, ttft_max = 0.0;
  std::int64_t ok_ttft = 0, ok_slo = 0;
  for (std::size_t r = 0; r < n; ++r) {
    const double ttft = first[r] - reqs[r].arrival_s + overhead;
    ttft_max = r == 0 ? ttft : std::max(ttft_max, ttft);
    sojourn += finish[r] - reqs[r].arrival_s;
    out.output_tokens += reqs[r].output;
    const bool a = ttft <= sp.ttft_slo.si();
    const double tbt = reqs[r].output > 1 ? (finish[r] - first[r]) / (reqs[r].output - 1) : 0.0;
    ok_ttft += a ? 1 : 0;
    ok_slo += (a && tbt <= sp.tbt_slo.si()) ? 1 : 0;
  }
  const double nn = static_cast<double>(n);
  out.throughput_rps = t > 0.0 ? nn / t : 0.0;
  out.throughput_tps = t > 0.0 ? static_cast<double>(out.output_tokens) / t : 0.0;
  out.ttft_max_s = ttft_max;
  const auto tbt = select_weighted_percentiles(gaps, std::array<double, 3>{0.50, 0.90, 0.99});
  out.tbt_p50_s = tbt[0];
  out.tbt_p90_s = tbt[1];
  out.tbt_p99_s = tbt[2];
  out.ttft_attainment = static_cast<double>(ok_ttft) / nn;
  out.slo_attainment = static_cast<double>(ok_slo) / nn;
  out.tokens_per_joule = out.energy_j > 0.0 ? static_cast<double>(out.output_tokens) / out.energy_j : 0.0;
  out.arrival_rate = last_arrival > 0.0 ? nn / last_arrival : 0.0;
  out.mean_in_system = t > 0.0 ? area / t : 0.0;
  out.mean_sojourn_s = sojourn / nn;
  fill_latencies(out, reqs, std::move(first), std::move(finish), gaps, tbt, overhead);
  // TTFT's percentiles are `fill_latencies`' of the same times (first − arrival + overhead, as
  // above): the same elements of the same values.
  out.ttft_p50_s = out.ttft.p50_s;
  out.ttft_p90_s = out.ttft.p90_s;
  out.ttft_p99_s = out.ttft.p99_s;
}
}  // namespace detail

/// Per-stage results of a run of `reqs` (the requests it ran, in its order) under the staged
/// load `stages` (`stage_result`); `overhead` is the client overhead. Nothing for an infeasible
/// run or no stages.
template <class = void>
inline void add_stage_results(serving_result& r, const std::vector<request>& reqs, const std::vector<load_stage>& stages,
                              double overhead = 0.0) {
  r.stages.clear();
  if (!r.feasible || stages.empty() || r.finish_s.size() != reqs.size()) return;
  double a = 0.0;
  for (std::size_t i = 0; i < stages.size(); ++i) {
    stage_result s;
    s.stage = static_cast<int>(i);
    s.start_s = a;
    s.end_s = a + stages[i].duration_s;
    if (i + 1 == stages.size()) s.end_s = std::max(s.end_s, r.makespan_s);
    s.offered_rps = stages[i].rate;
    std::vector<std::size_t> idx;
    for (std::size_t q = 0; q < reqs.size(); ++q) {
      const double at = reqs[q].arrival_s;
      if (at >= s.start_s && (at < a + stages[i].duration_s || i + 1 == stages.size())) idx.push_back(q);
      if (r.finish_s[q] >= s.start_s && r.finish_s[q] < s.end_s) ++s.completed;
      if (i + 1 == stages.size() && r.finish_s[q] == s.end_s) ++s.completed;
    }
    s.requests = static_cast<std::int64_t>(idx.size());
    s.served_rps = s.end_s > s.start_s ? static_cast<double>(s.completed) / (s.end_s - s.start_s) : 0.0;
    detail::request_latencies(reqs, idx, r.first_token_s, r.finish_s, overhead, s.ttft, s.tpot, s.e2e, s.itl_mean_s);
    r.stages.push_back(s);
    a += stages[i].duration_s;
  }
}

namespace detail {

/// The cost callbacks of one run.
struct serving_model {
  int labels = 1;
  std::int64_t kv_tokens = 0;
  // decode(batch, mean context, h), prefill(batch, mean prompt), swap(from, to); -1 is the mix layout
  std::function<step_cost(int, double, double)> decode;
  std::function<step_cost(int, double)> prefill;
  std::function<step_cost(int, int)> swap;
  /// Hit rate of running request r at its decode token j (0-based) on layout k (-1: mix).
  std::function<double(std::size_t, int, int)> hit;
  bool uses_hits = true;
  /// The thermal coupling (`serving_thermal.hpp`; empty: none, the run as without it): called
  /// with each step's start time, kind and cost as the step is charged, returns the cost it takes.
  std::function<step_cost(double, serving_step_kind, const step_cost&)> thermal;
};

/// The event loop (file comment). `labels[r]` and `ready[r]` (arrival + classifier latency),
/// `device_s[r]` the classifier's device time for r.
template <class = void>
inline serving_result run_serving(const std::vector<request>& reqs, const std::vector<int>& labels,
                                  const std::vector<double>& ready, const std::vector<double>& device_s,
                                  const scheduler_params& sp, const serving_model& sm) {
  const std::size_t n = reqs.size();
  serving_result out;
  out.requests = static_cast<std::int64_t>(n);
  out.kv_tokens = sm.kv_tokens;
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return ready[a] < ready[b]; });
  const auto kv_of = [&](std::size_t r) { return static_cast<std::int64_t>(reqs[r].prompt) + reqs[r].output; };
  for (std::size_t r = 0; r < n; ++r) {
    if (kv_of(r) > sm.kv_tokens) {
      out.feasible = false;
      out.reason = "request " + std::to_string(r) + " needs " + std::to_string(kv_of(r)) +
                   " KV tokens, the system holds " + std::to_string(sm.kv_tokens);
      return out;
    }
  }
  const double slo = sp.ttft_slo.si();
  // Not yet: NaN, which no result can hold (`check_result_numbers`); every request sets both.
  const double not_yet = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> first(n, not_yet), last(n, 0.0), finish(n, not_yet);
  std::vector<int> gen(n, 0);
  std::vector<std::size_t> running;
  serving_queue q(sm.labels);
  topic_batcher_memo memo;
  double t = 0.0, owed = 0.0, sum_ctx = 0.0;
  std::int64_t kv_used = 0;
  int layout = -1;
  std::size_t next_ready = 0, done = 0;
  // Little's law: ∫ N(t) dt with N = arrived − departed, arrivals at their exact times.
  std::size_t next_arrival = 0;
  double area = 0.0, last_t = 0.0;
  std::int64_t in_system = 0;
  const auto advance = [&](double t_new) {
    while (next_arrival < n && reqs[next_arrival].arrival_s <= t_new) {
      const double a = std::max(reqs[next_arrival].arrival_s, last_t);
      area += static_cast<double>(in_system) * (a - last_t);
      last_t = a;
      ++in_system;
      ++next_arrival;
    }
    area += static_cast<double>(in_system) * (t_new - last_t);
    last_t = t_new;
  };
  std::vector<std::pair<double, double>> gaps;
  std::vector<std::pair<double, double>> step_gaps;
  double hit_num = 0.0, hit_den = 0.0, batch_sum = 0.0;
  const auto depart = [&](std::size_t r) {
    finish[r] = t;
    kv_used -= kv_of(r);
    --in_system;
    ++done;
  };
  const auto step_hit = [&]() {
    if (!sm.uses_hits || running.empty()) return 0.0;
    double s = 0.0;
    for (std::size_t r : running) s += sm.hit(r, gen[r] - 1, layout);
    return s / static_cast<double>(running.size());
  };
  // Every pass of the loop admits a group, decodes a token of each running request or jumps to
  // the next ready time, so a run takes at most 2n + Σ output passes; more is a scheduler fault,
  // reported as an infeasible run rather than a loop without end.
  std::int64_t passes = 0, max_passes = 2 * static_cast<std::int64_t>(n) + 16;
  for (const auto& rq : reqs) max_passes += rq.output;
  while (done < n) {
    if (++passes > max_passes) {
      out.feasible = false;
      out.reason = "the scheduler made no progress after " + std::to_string(max_passes) + " steps";
      return out;
    }
    while (next_ready < n && ready[order[next_ready]] <= t) {
      const std::size_t r = order[next_ready++];
      q.push(r, labels[r]);
      owed += device_s[r];
    }
    if (q.empty() && running.empty()) {
      const double tn = ready[order[next_ready]];
      advance(tn);
      t = tn;
      continue;
    }
    const double h = step_hit();
    const double next_decode =
        running.empty() ? 0.0 : sm.decode(static_cast<int>(running.size()), sum_ctx / static_cast<double>(running.size()), h).time_s;
    const auto prefill_of = [&](const std::vector<std::size_t>& g) {
      double p = 0.0;
      for (std::size_t r : g) p += reqs[r].prompt;
      return sm.prefill(static_cast<int>(g.size()), p / static_cast<double>(g.size()));
    };
    const schedule_state st{t, owed, static_cast<int>(running.size()), sm.kv_tokens - kv_used, layout, next_decode};
    auto choice = choose_next(
        sp, q, st, [&](std::size_t r) { return reqs[r].arrival_s + slo; }, kv_of,
        [&](const std::vector<std::size_t>& g) { return prefill_of(g).time_s; },
        [&](int a, int b) { return a == b ? 0.0 : sm.swap(a, b).time_s; }, &memo);
    if (!choice.prefill && running.empty()) {
      // Nothing fits (cannot happen: every request fits an empty system); wait for the next ready.
      if (next_ready >= n) break;
      const double tn = std::max(t, ready[order[next_ready]]);
      advance(tn);
      t = tn;
      continue;
    }
    // The thermal hook sees each part of the step at its start (and may stretch a decode).
    const auto charge = [&](double at, serving_step_kind k, const step_cost& c) {
      return sm.thermal ? sm.thermal(at, k, c) : c;
    };
    if (sm.thermal && owed > 0.0) charge(t, serving_step_kind::classifier, step_cost{owed, 0.0});
    double dt = owed;
    out.classifier_time_s += owed;
    owed = 0.0;
    if (choice.prefill) {
      if (choice.label >= 0 && choice.label != layout) {
        const auto sw = charge(t + dt, serving_step_kind::swap, sm.swap(layout, choice.label));
        dt += sw.time_s;
        out.swap_time_s += sw.time_s;
        out.energy_j += sw.energy_j;
        ++out.swaps;
        layout = choice.label;
      }
      const auto pc = charge(t + dt, serving_step_kind::prefill, prefill_of(choice.group));
      dt += pc.time_s;
      out.energy_j += pc.energy_j;
      ++out.prefill_steps;
      const double t_end = t + dt;
      advance(t_end);
      t = t_end;
      for (std::size_t r : choice.group) {
        q.take(r);
        kv_used += kv_of(r);
        first[r] = t;
        last[r] = t;
        gen[r] = 1;
        if (reqs[r].output == 1) {
          depart(r);
        } else {
          running.push_back(r);
          sum_ctx += reqs[r].prompt + 1;
        }
      }
    } else {
      const auto dc = charge(t + dt, serving_step_kind::decode,
                             sm.decode(static_cast<int>(running.size()), sum_ctx / static_cast<double>(running.size()), h));
      dt += dc.time_s;
      out.energy_j += dc.energy_j;
      ++out.decode_steps;
      hit_num += h * static_cast<double>(running.size());
      hit_den += static_cast<double>(running.size());
      batch_sum += static_cast<double>(running.size());
      const double t_end = t + dt;
      advance(t_end);
      t = t_end;
      step_gaps.clear();
      for (std::size_t i = 0; i < running.size();) {
        const std::size_t r = running[i];
        const double g = t - last[r];
        bool merged = false;
        for (auto& e : step_gaps) {
          if (e.first == g) {
            e.second += 1.0;
            merged = true;
            break;
          }
        }
        if (!merged) step_gaps.emplace_back(g, 1.0);
        last[r] = t;
        ++gen[r];
        sum_ctx += 1.0;
        if (gen[r] >= reqs[r].output) {
          sum_ctx -= static_cast<double>(reqs[r].prompt) + gen[r];
          depart(r);
          running[i] = running.back();
          running.pop_back();
        } else {
          ++i;
        }
      }
      gaps.insert(gaps.end(), step_gaps.begin(), step_gaps.end());
    }
    out.busy_time_s += dt;
  }
  // Results.
  out.hot_hit_rate = hit_den > 0.0 ? hit_num / hit_den : 0.0;
  out.swap_share = out.busy_time_s > 0.0 ? out.swap_time_s / out.busy_time_s : 0.0;
  out.classifier_share = out.busy_time_s > 0.0 ? out.classifier_time_s / out.busy_time_s : 0.0;
  out.mean_batch = out.decode_steps > 0 ? batch_sum / static_cast<double>(out.decode_steps) : 0.0;
  request_results(out, reqs, reqs.back().arrival_s, std::move(first), std::move(finish), gaps, area, t, sp);
  return out;
}

/// Fills the results of an engine run (`run_engine`, `run_engine_cluster`) from its requests'
/// times, its inter-token gaps, its Little's-law area, its end `t` and its engines' counters.
template <class = void>
inline void engine_results(serving_result& out, const std::vector<request>& reqs, double last_arrival,
                           engine_request_state& st, std::vector<std::pair<double, double>>& gaps, double area,
                           double t, const engine_counters& c, const scheduler_params& sp) {
  out.decode_steps = c.decode_steps;
  out.prefill_steps = c.prefill_steps;
  out.mixed_steps = c.mixed_steps;
  out.preemptions = c.preemptions;
  out.prefix_cached_tokens = c.prefix_cached_tokens;
  out.energy_j = c.energy_j;
  out.busy_time_s = c.busy_time_s;
  const auto steps = out.decode_steps + out.prefill_steps + out.mixed_steps;
  out.mean_batch = steps > 0 ? c.batch_sum / static_cast<double>(steps) : 0.0;
  request_results(out, reqs, last_arrival, std::move(st.first), std::move(st.finish), gaps, area, t, sp);
}

/// The run's note on a shared prefix longer than the shortest prompt (`engine.hpp`), if any.
template <class = void>
inline void engine_prefix_note(serving_result& out, const std::vector<request>& reqs, const engine_params& ep) {
  const std::int64_t shared_prefix = engine_shared_prefix(reqs, ep);
  if (ep.enable_prefix_caching && shared_prefix < ep.shared_prefix_tokens) {
    out.notes.push_back("shared_prefix_tokens " + std::to_string(ep.shared_prefix_tokens) +
                        " is longer than the shortest prompt; capped at its " + std::to_string(shared_prefix) + " tokens");
  }
}

/// The scheduler passes a run of `reqs` may take (`run_engine`): a step schedules a token at
/// least (or preempts, after which the next step admits the head of the queue into an emptier
/// system), so the passes are bounded by the tokens to compute, counted again for each preemption
/// (`engine_counters::extra_passes`).
template <class = void>
inline std::int64_t engine_pass_bound(const std::vector<request>& reqs, const engine_limits& lim) {
  const std::int64_t budget_max = lim.max_num_batched_tokens;
  std::int64_t max_passes = 16 + 2 * static_cast<std::int64_t>(reqs.size());
  for (const auto& rq : reqs) max_passes += 2 * (rq.output + (static_cast<std::int64_t>(rq.prompt) + budget_max - 1) / budget_max);
  return max_passes;
}

/// Little's law's ∫ N(t) dt with N = arrived − departed, arrivals (in `order`) at their exact times.
struct little_area {
  std::size_t next_arrival = 0;
  double area = 0.0, last_t = 0.0;
  std::int64_t in_system = 0;

  void advance(const std::vector<request>& reqs, const std::vector<std::size_t>& order, double t_new) {
    const std::size_t n = reqs.size();
    while (next_arrival < n && reqs[order[next_arrival]].arrival_s <= t_new) {
      const double a = std::max(reqs[order[next_arrival]].arrival_s, last_t);
      area += static_cast<double>(in_system) * (a - last_t);
      last_t = a;
      ++in_system;
      ++next_arrival;
    }
    area += static_cast<double>(in_system) * (t_new - last_t);
    last_t = t_new;
  }
};

/// The requests' indices in arrival order (stable).
template <class = void>
inline std::vector<std::size_t> arrival_order(const std::vector<request>& reqs) {
  std::vector<std::size_t> order(reqs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  const auto earlier = [&](std::size_t a, std::size_t b) { return reqs[a].arrival_s < reqs[b].arrival_s; };
  // Requests already in arrival order (a generated workload's): the stable sort would keep them.
  if (!std::is_sorted(order.begin(), order.end(), earlier)) std::stable_sort(order.begin(), order.end(), earlier);
  return order;
}

/// When request `q` reaches the engine: its arrival plus its prompt's tokenisation
/// (`engine_host.hpp`, `engine_arrival_delay`).
template <class = void>
inline double engine_ready_time(const request& q, const engine_params& ep) {
  return ep.host.tokenize_s_per_token > 0.0 ? q.arrival_s + engine_arrival_delay(ep.host, static_cast<double>(q.prompt))
                                            : q.arrival_s;
}

/// The requests in the order they reach the engine (`engine_ready_time`), ties in arrival order.
template <class = void>
inline std::vector<std::size_t> engine_admission_order(const std::vector<request>& reqs, const engine_params& ep,
                                                       const std::vector<std::size_t>& order) {
  std::vector<std::size_t> admit = order;
  if (ep.host.tokenize_s_per_token > 0.0) {
    const auto sooner = [&](std::size_t a, std::size_t b) {
      return engine_ready_time(reqs[a], ep) < engine_ready_time(reqs[b], ep);
    };
    // Already in that order (prompts of one length): the stable sort would keep it.
    if (!std::is_sorted(admit.begin(), admit.end(), sooner)) std::stable_sort(admit.begin(), admit.end(), sooner);
  }
  return admit;
}

/// The drive loop of one engine, written once for every machine that serves through it (the GPUs'
/// `run_engine`, the Stratum system's `run_stratum_engine`, an HCRMap package's
/// `simulate_hcrmap_serving`): time advances step by step; before each step every request whose
/// `ready_at(r)` has come (in the order `admit`) joins the engine and `on_admit(r)` is called; the
/// engine schedules and costs a step at `t` (`before_step(t)` first, for a machine whose costs
/// depend on the time: the thermal coupling), and the step ends `time_s` later; an idle engine
/// jumps to the next arrival. `order` is the arrival order (Little's law). More than `max_passes`
/// passes (plus those the preemptions add) is a scheduler fault, reported as an infeasible run.
/// Fills `out`'s results (`engine_results`, one engine) and returns true, or sets `out.feasible`
/// false with the reason and returns false. `decode_runs`: a run of pure decode steps goes through
/// `engine_core::run_decode_steps` (the same steps, the same numbers; only where `before_step`
/// does nothing and `on_admit` nothing the steps need).
template <class Core, class ReadyAt, class OnAdmit, class BeforeStep>
inline bool drive_engine(serving_result& out, Core& core, engine_request_state& st, const std::vector<request>& reqs,
                         const std::vector<std::size_t>& order, const std::vector<std::size_t>& admit,
                         std::int64_t max_passes, const scheduler_params& sp, ReadyAt&& ready_at, OnAdmit&& on_admit,
                         BeforeStep&& before_step, bool decode_runs = false) {
  const std::size_t n = reqs.size();
  const auto fail = [&](std::string why) {
    out.feasible = false;
    out.reason = std::move(why);
    return false;
  };
  // The decode cohort with the decode runs (`engine_core::set_cohort`; the same steps, the same numbers).
  if constexpr (requires { core.set_cohort(true); }) core.set_cohort(decode_runs);
  double t = 0.0;
  std::size_t next = 0, done = 0;
  little_area little;
  std::vector<std::size_t> finished, handed;
  std::int64_t passes = 0;
  while (done < n) {
    if (++passes > max_passes + core.counters().extra_passes) {
      return fail("the engine scheduler made no progress after " +
                  std::to_string(max_passes + core.counters().extra_passes) + " steps");
    }
    while (next < n && ready_at(admit[next]) <= t) {
      core.admit(admit[next], ready_at(admit[next]));
      on_admit(admit[next]);
      ++next;
    }
    if (decode_runs) {
      // The step at t and those after it, while they are pure decode steps of the same requests.
      const auto ran = core.run_decode_steps(
          t,
          [&](double ts, bool full) {
            if (passes + 1 > max_passes + core.counters().extra_passes) return false;
            if (!full && next < n && ready_at(admit[next]) <= ts) return false;
            ++passes;
            while (next < n && ready_at(admit[next]) <= ts) {
              core.admit(admit[next], ready_at(admit[next]));
              on_admit(admit[next]);
              ++next;
            }
            return true;
          },
          [&](double t_end) { little.advance(reqs, order, t_end); });
      if (ran > 0) continue;
    }
    before_step(t);
    const engine_step step = core.begin_step(t);
    if (step.status == engine_step_status::idle) {
      // Nothing to run: the engine schedules the next arrival at once.
      if (next >= n) return fail("the engine stopped with " + std::to_string(n - done) + " requests unfinished");
      const double tn = std::max(t, ready_at(admit[next]));
      little.advance(reqs, order, tn);
      t = tn;
      continue;
    }
    if (step.status == engine_step_status::stuck) return fail(step.reason);
    if (step.status == engine_step_status::preempted) continue;
    const double t_end = t + step.time_s;
    little.advance(reqs, order, t_end);
    t = t_end;
    finished.clear();
    core.end_step(t, finished, handed);
    little.in_system -= static_cast<std::int64_t>(finished.size());
    done += finished.size();
  }
  out.engine_requests = {static_cast<std::int64_t>(n)};
  engine_results(out, reqs, reqs[order.back()].arrival_s, st, core.gaps(), little.area, t, core.counters(), sp);
  return true;
}

/// The thread's buffer of inter-token gaps (`run_engine`): taken by a run (swapped out, so a run
/// within a run finds it empty), given back with the larger capacity. It holds at most the entries
/// of the longest run the thread made (16 bytes a step).
template <class = void>
inline std::vector<std::pair<double, double>>& engine_gap_buffer() {
  thread_local std::vector<std::pair<double, double>> buffer;
  return buffer;
}

/// The engine scheduler's loop (`engine.hpp`): one engine (`engine_core`) of `ranks` engine
/// cores (1, or the DP attention ranks) of `blocks` KV blocks each under the budget and cap `lim`,
/// stepping together, each step costed by `costs` (one rank: `mixed`; several: `mixed_ranks`).
/// `decode_runs` (`drive_engine`): runs of pure decode steps in one pass each, the same result
/// (false: every step through `begin_step`, as the tests compare).
template <step_cost_source Costs>
inline serving_result run_engine(const std::vector<request>& reqs, const engine_params& ep, const engine_limits& lim,
                                 std::int64_t blocks, Costs& costs, const scheduler_params& sp, int ranks = 1,
                                 bool decode_runs = true) {
  const std::size_t n = reqs.size();
  serving_result out;
  out.requests = static_cast<std::int64_t>(n);
  out.ranks = ranks;
  out.kv_tokens = blocks * ep.block_size * ranks;
  // Every prompt starts with the shared prefix, so it is at most the shortest prompt: a longer one
  // is capped there, and the run says so (a prefix no prompt holds would turn caching off).
  engine_prefix_note(out, reqs, ep);
  const auto order = arrival_order(reqs);
  engine_request_state st(n);
  engine_core<Costs> core(reqs, st, ep, lim, blocks, costs, ranks);
  for (std::size_t r = 0; r < n; ++r) {
    if (auto why = core.unfit(r); !why.empty()) {
      out.feasible = false;
      out.reason = std::move(why);
      return out;
    }
  }
  for (std::size_t r = 0; r < n; ++r) {
    // Without chunking a prompt runs whole in one step: one longer than the budget never runs.
    if (auto why = core.unfit_prompt(r); !why.empty()) {
      out.feasible = false;
      out.reason = std::move(why);
      return out;
    }
  }
  // A request reaches the engine after its prompt's tokenisation (engine_host.hpp): `admit`
  // holds the requests in that order.
  const auto admit = engine_admission_order(reqs, ep, order);
  // The run's inter-token gaps (an entry per step, read only by the results) grow in the thread's
  // buffer of its last run, kept with its capacity: no reallocation chain, no fresh pages per run.
  auto& spare = engine_gap_buffer();
  core.gaps().swap(spare);
  core.gaps().clear();
  drive_engine(
      out, core, st, reqs, order, admit, engine_pass_bound(reqs, lim), sp,
      [&](std::size_t r) { return engine_ready_time(reqs[r], ep); }, [](std::size_t) {}, [](double) {}, decode_runs);
  if (core.gaps().capacity() > spare.capacity()) core.gaps().swap(spare);
  return out;
}

/// Replicas behind a router or prefill/decode disaggregation (`serving/cluster.hpp`): engines of
/// `ranks` cores and `blocks` blocks per core each, as `run_engine`'s, in an event loop over the
/// engines in time order: the next event is the earliest arrival, step end or KV arrival; at one
/// time, step ends first (each engine's in index order), then KV arrivals, then arrivals (each
/// routed at its arrival time), then every idle engine with work starts a step. `kv_per_token`
/// is the KV bytes of one token over the model's layers, `kv_shards` the GPUs of an engine that
/// send distinct KV in parallel. A cluster of one engine gives `run_engine`'s result.
template <step_cost_source Costs>
inline serving_result run_engine_cluster(const std::vector<request>& reqs, const engine_params& ep,
                                         const engine_limits& lim, std::int64_t blocks, Costs& costs,
                                         const scheduler_params& sp, int ranks, const serving_cluster& cl,
                                         double kv_per_token, int kv_shards) {
  validate(cl);
  const std::size_t n = reqs.size();
  const auto& dg = cl.disaggregation;
  const bool disagg = dg.enabled();
  const std::size_t entry = disagg ? static_cast<std::size_t>(dg.prefill) : static_cast<std::size_t>(cl.replicas.count);
  const std::size_t engines = entry + (disagg ? static_cast<std::size_t>(dg.decode) : 0);
  serving_result out;
  out.requests = static_cast<std::int64_t>(n);
  out.ranks = ranks;
  out.engines = static_cast<int>(engines);
  out.router = router_name(cl.replicas.router);
  out.prefill_engines = disagg ? dg.prefill : 0;
  out.decode_engines = disagg ? dg.decode : 0;
  out.kv_tokens = blocks * ep.block_size * ranks * static_cast<std::int64_t>(engines);
  engine_prefix_note(out, reqs, ep);
  const auto order = arrival_order(reqs);
  const auto admit = engine_admission_order(reqs, ep, order);
  engine_request_state st(n);
  std::vector<engine_core<Costs>> eng;
  eng.reserve(engines);
  for (std::size_t k = 0; k < engines; ++k) {
    const engine_role role = !disagg ? engine_role::colocated : k < entry ? engine_role::prefill : engine_role::decode;
    eng.emplace_back(reqs, st, ep, lim, blocks, costs, ranks, role);
  }
  for (std::size_t r = 0; r < n; ++r) {
    auto why = eng.front().unfit(r);
    if (why.empty() && disagg && reqs[r].output > 1) why = eng.back().unfit(r);
    if (why.empty()) why = eng.front().unfit_prompt(r);
    if (!why.empty()) {
      out.feasible = false;
      out.reason = std::move(why);
      return out;
    }
  }
  const double bw = kv_link_bandwidth(dg.link) * std::max(1, kv_shards), lat = kv_link_latency(dg.link);
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> busy_end(engines, inf), link_free(entry, 0.0);
  std::vector<std::int64_t> routed(engines, 0), in_transit(engines, 0);
  // KV on the way to a decode engine: (arrival time, sequence, request, engine), earliest first.
  using transfer = std::tuple<double, std::int64_t, std::size_t, std::size_t>;
  std::priority_queue<transfer, std::vector<transfer>, std::greater<>> moving;
  std::int64_t moved_seq = 0;
  std::vector<double> kv_times;
  double t = 0.0;
  std::size_t next = 0, done = 0, rr_entry = 0, rr_decode = 0;
  little_area little;
  std::vector<std::size_t> finished, handed;
  std::int64_t passes = 0;
  const std::int64_t max_passes = (disagg ? 2 : 1) * engine_pass_bound(reqs, lim);
  const auto extra = [&] {
    std::int64_t x = 0;
    for (const auto& e : eng) x += e.counters().extra_passes;
    return x;
  };
  const auto fail = [&](std::string why) {
    out.feasible = false;
    out.reason = std::move(why);
    return out;
  };
  const auto pick = [&](std::size_t lo, std::size_t hi, const request& q, std::size_t& rr, bool affinity) {
    std::vector<std::int64_t> o(hi - lo);
    for (std::size_t k = lo; k < hi; ++k) o[k - lo] = eng[k].outstanding() + in_transit[k];
    const replica_router rt = !affinity && cl.replicas.router == replica_router::prefix_affinity
                                  ? replica_router::least_outstanding
                                  : cl.replicas.router;
    return lo + route_request(rt, q, o, rr);
  };
  while (done < n) {
    // Step ends at t.
    for (std::size_t k = 0; k < engines; ++k) {
      if (busy_end[k] > t) continue;
      busy_end[k] = inf;
      finished.clear();
      handed.clear();
      eng[k].end_step(t, finished, handed);
      little.in_system -= static_cast<std::int64_t>(finished.size());
      done += finished.size();
      for (std::size_t r : handed) {
        const std::size_t d = pick(entry, engines, reqs[r], rr_decode, false);
        const double bytes = kv_per_token * reqs[r].prompt;
        const double start = std::max(t, link_free[k]);
        link_free[k] = start + bytes / bw;
        const double arrive = link_free[k] + lat;
        out.kv_transfer_bytes += bytes;
        kv_times.push_back(arrive - t);
        ++in_transit[d];
        moving.emplace(arrive, moved_seq++, r, d);
      }
    }
    if (done >= n) break;
    // KV arrivals, then request arrivals.
    while (!moving.empty() && std::get<0>(moving.top()) <= t) {
      const auto [at, seq, r, d] = moving.top();
      moving.pop();
      --in_transit[d];
      ++routed[d];
      eng[d].admit(r, at);
    }
    // Arrivals, each routed when it reaches the engines (after its tokenisation, engine_host.hpp).
    while (next < n && engine_ready_time(reqs[admit[next]], ep) <= t) {
      const std::size_t r = admit[next++];
      const std::size_t k = pick(0, entry, reqs[r], rr_entry, true);
      ++routed[k];
      eng[k].admit(r, engine_ready_time(reqs[r], ep));
    }
    // Idle engines with work start a step.
    for (std::size_t k = 0; k < engines; ++k) {
      if (busy_end[k] != inf) continue;
      for (;;) {
        if (++passes > max_passes + extra()) {
          return fail("the engine scheduler made no progress after " + std::to_string(max_passes + extra()) + " steps");
        }
        const engine_step step = eng[k].begin_step(t);
        if (step.status == engine_step_status::idle) {
          --passes;
          break;
        }
        if (step.status == engine_step_status::stuck) {
          return fail(step.reason + (engines > 1 ? " (engine " + std::to_string(k) + ")" : std::string()));
        }
        if (step.status == engine_step_status::preempted) continue;
        busy_end[k] = t + step.time_s;
        break;
      }
    }
    double tn = next < n ? engine_ready_time(reqs[admit[next]], ep) : inf;
    for (double e : busy_end) tn = std::min(tn, e);
    if (!moving.empty()) tn = std::min(tn, std::get<0>(moving.top()));
    if (tn == inf) return fail("the engines stopped with " + std::to_string(n - done) + " requests unfinished");
    little.advance(reqs, order, tn);
    t = tn;
  }
  engine_counters c;
  std::vector<std::pair<double, double>> gaps;
  for (auto& e : eng) {
    const auto& x = e.counters();
    c.decode_steps += x.decode_steps;
    c.prefill_steps += x.prefill_steps;
    c.mixed_steps += x.mixed_steps;
    c.preemptions += x.preemptions;
    c.prefix_cached_tokens += x.prefix_cached_tokens;
    c.energy_j += x.energy_j;
    c.busy_time_s += x.busy_time_s;
    c.batch_sum += x.batch_sum;
    gaps.insert(gaps.end(), e.gaps().begin(), e.gaps().end());
  }
  out.engine_requests = routed;
  out.kv_transfers = static_cast<std::int64_t>(kv_times.size());
  if (!kv_times.empty()) {
    double s = 0.0;
    for (double x : kv_times) s += x;
    out.kv_transfer_mean_s = s / static_cast<double>(kv_times.size());
    out.kv_transfer_max_s = *std::max_element(kv_times.begin(), kv_times.end());
  }
  engine_results(out, reqs, reqs[order.back()].arrival_s, st, gaps, little.area, t, c, sp);
  return out;
}

/// The engine settings of the Stratum system under `serving_loop::engine` (`scheduler.hpp`):
/// `sp.engine`'s budget, blocks, chunking and prefix caching, `sp.max_batch` sequences, no host
/// time (`stratum_engine.hpp`).
template <class = void>
inline engine_params stratum_engine_settings(const scheduler_params& sp) {
  engine_params ep;
  ep.max_num_batched_tokens = sp.engine.max_num_batched_tokens;
  ep.max_num_seqs = sp.max_batch;
  ep.block_size = sp.engine.block_size;
  ep.enable_chunked_prefill = sp.engine.enable_chunked_prefill;
  ep.enable_prefix_caching = sp.engine.enable_prefix_caching;
  ep.host = engine_host_params::none();
  return ep;
}

}  // namespace detail

/// The GPU baseline's count and precision for `m`: the fewest GPUs holding the weights at B = 1,
/// S = 512 in 16-bit, or in FP8 where FP8 needs fewer (vLLM `--quantization fp8`); `gpus` > 0
/// fixes the count (16-bit).
template <class = void>
inline std::pair<model, int> gpu_serving_baseline(const gpu_params& g, const model& m, int gpus = 0) {
  if (gpus > 0) return {m, gpus};
  const step_shape s{.mode = phase::decode, .batch = 1, .context = 512};
  std::pair<model, int> b{m, min_devices(g, m, s)};
  model m8 = m;
  m8.weight_bits = 8;
  const int n8 = min_devices(g, m8, s);
  if (n8 > 0 && (b.second == 0 || n8 < b.second)) b = {m8, n8};
  return b;
}

/// ", EP 8 (attention dp)" for expert parallelism, else nothing (a GPU result's system name).
template <class = void>
inline std::string ep_label(const parallelism& par) {
  if (!par.expert_parallel()) return {};
  return ", EP " + std::to_string(par.ep) + " (attention " + (par.attention == attention_parallel::dp ? "dp" : "tp") + ")";
}

/// The same requests on `gpus` GPUs (0: `gpu_serving_baseline`), no classifier and no expert
/// placement, scheduled by `sched`: vLLM V1's engine scheduler with the settings `ep`
/// (`engine.hpp`; KV in blocks from `ep.gpu_memory_utilization`) or FCFS continuous batching
/// (`sp.policy` is ignored; KV capacity from the memory the weights and workspace leave at
/// `g.usable_memory_fraction`, `check_fit`). `sp` gives the SLOs, the client overhead and, if
/// positive, the KV capacity. `par` (`expert_parallel.hpp`) is the GPUs' parallelism: with EP > 1
/// the GPU count is its degree (`gpus` 0 or the same), the memory fit is `check_fit`'s under it and
/// with DP attention each GPU holds the KV cache of its own sequences (n times the room of one)
/// and, on the engine scheduler, is an engine core of its own (`run_engine` with n ranks,
/// `engine.hpp`). The engine's budget and cap are `ep`'s, else vLLM's defaults for `g`
/// (`engine_limits_of`).
template <class = void>
inline serving_result simulate_gpu(const gpu_params& g, const model& m, const scheduler_params& sp,
                                   const std::vector<request>& reqs, int gpus = 0, const engine_params& ep = {},
                                   gpu_scheduler sched = gpu_scheduler::engine, const parallelism& par = {},
                                   const serving_cluster& cluster = {}) {
  validate(g);
  validate(sp, "scheduler");
  validate(ep, "gpu.engine");
  validate(cluster, "gpu.");
  if (cluster.clustered() && sched != gpu_scheduler::engine) {
    detail::require(false, "strata.serving", "gpu.scheduler", "fcfs", "engine with replicas or disaggregation");
  }
  detail::require(!reqs.empty(), "strata.serving", "requests", 0, "at least one request");
  check_serving_work(reqs, 0, "requests");
  if (par.expert_parallel() && gpus != 0 && gpus != par.ep) {
    detail::require(false, "strata.serving", "gpu.gpus", gpus, ("0 or the EP degree (" + std::to_string(par.ep) + ")").c_str());
  }
  // Named, not a structured binding: the lambdas below capture them (Clang 14 cannot capture a binding).
  const auto baseline = gpu_serving_baseline(g, m, par.expert_parallel() ? par.ep : gpus);
  const model& served = baseline.first;
  const int n = baseline.second;
  validate(par, served, n, "gpu.");
  // KV bytes the n GPUs hold beside the weights and workspace of `fit` (of a step of `batch`
  // sequences): the room of each times its KV shards (DP attention: every GPU its own sequences).
  const bool dp = par.expert_parallel() && par.attention == attention_parallel::dp;
  const auto kv_room = [&](const gpu_fit& fit, int batch) {
    const double shards = served.is_mla() ? 1.0 : std::min(double(n), double(served.kv_heads));
    if (!dp) return (fit.usable_per_device - fit.required_per_device).si() * shards + fit.kv_bytes.si();
    const int own_sequences = (batch + n - 1) / n;  // ⌈B/n⌉, an integer count
    const double own = fit.kv_bytes.si() * double(own_sequences) / batch;
    return ((fit.usable_per_device - fit.required_per_device).si() + own) * n;
  };
  serving_result bad;
  bad.system = g.name;
  bad.policy = sched == gpu_scheduler::engine ? "engine" : "fcfs";
  bad.requests = static_cast<std::int64_t>(reqs.size());
  if (n <= 0) {
    bad.feasible = false;
    bad.reason = m.name + " does not fit on up to 64 x " + g.name;
    return bad;
  }
  if (sched == gpu_scheduler::engine) {
    // The budget and cap: the scenario's, else vLLM's defaults for this card (`engine_limits_of`).
    const engine_limits lim = engine_limits_of(ep, g.memory_capacity, g.name);
    gpu_params ge = g;
    ge.usable_memory_fraction = ep.gpu_memory_utilization;
    // The workspace of a step of max_num_batched_tokens tokens (vLLM profiles one before sizing KV).
    const auto fit = check_fit(ge, n, served, {.mode = phase::prefill, .batch = 1, .context = lim.max_num_batched_tokens}, par);
    const double room = kv_room(fit, 1);
    const double per_block = kv_bytes_per_token_layer(served).in(units::B) * served.layers * ep.block_size;
    const std::int64_t blocks = sp.kv_tokens > 0 ? sp.kv_tokens / ep.block_size
                                                 : static_cast<std::int64_t>(std::max(0.0, std::min(room / per_block, 1e15)));
    gpu_step_costs costs(g, n, served, par, ep.sampler);  // the engine's sampler (gpu_sampler.hpp)
    // DP attention: one engine core per rank, each with its own scheduler and 1/n of the blocks
    // (every GPU holds the KV of its own sequences), stepping together (`run_engine`).
    const int ranks = dp ? n : 1;
    const std::string name = std::to_string(n) + " x " + g.name + (served.weight_bits == 8 ? " (FP8)" : "") + ep_label(par);
    if (cluster.clustered()) {
      // Each engine n GPUs as above; the KV of a token over the layers, sent by the GPUs holding
      // distinct shards of it (`serving/cluster.hpp`).
      const double per_token = kv_bytes_per_token_layer(served).in(units::B) * served.layers;
      const int shards = dp || served.is_mla() ? 1 : std::min(n, served.kv_heads);
      auto out = detail::run_engine_cluster(reqs, ep, lim, blocks / ranks, costs, sp, ranks, cluster, per_token, shards);
      const auto& d = cluster.disaggregation;
      out.system = d.enabled() ? std::to_string(d.prefill) + " prefill + " + std::to_string(d.decode) + " decode engines of " +
                                     name + ", KV over " + (d.link.kind == kv_link_kind::nvlink ? "NVLink" : "the network")
                               : std::to_string(cluster.replicas.count) + " replicas of " + name + " (" + out.router + ")";
      out.policy = "engine";
      detail::check_result_numbers(out, "serving_result");
      return out;
    }
    auto out = detail::run_engine(reqs, ep, lim, blocks / ranks, costs, sp, ranks);
    out.system = name;
    out.policy = "engine";
    detail::check_result_numbers(out, "serving_result");
    return out;
  }
  scheduler_params p = sp;
  p.policy = schedule_policy::fcfs;
  const auto fit = check_fit(g, n, served, {.mode = phase::decode, .batch = p.max_batch, .context = 1}, par);
  const double room = kv_room(fit, p.max_batch);
  const double per_token = kv_bytes_per_token_layer(served).in(units::B) * served.layers;
  auto costs = std::make_shared<gpu_step_costs>(g, n, served, par);
  detail::serving_model cb;
  cb.labels = 1;
  cb.kv_tokens = p.kv_tokens > 0 ? p.kv_tokens : static_cast<std::int64_t>(std::max(0.0, std::min(room / per_token, 1e15)));
  cb.decode = [costs](int b, double c, double) { return costs->decode(b, c); };
  cb.prefill = [costs](int b, double pr) { return costs->prefill(b, pr); };
  cb.swap = [](int, int) { return step_cost{}; };
  cb.hit = [](std::size_t, int, int) { return 0.0; };
  cb.uses_hits = false;
  std::vector<int> labels(reqs.size(), 0);
  std::vector<double> ready(reqs.size()), device(reqs.size(), 0.0);
  for (std::size_t r = 0; r < reqs.size(); ++r) ready[r] = reqs[r].arrival_s;
  auto out = detail::run_serving(reqs, labels, ready, device, p, cb);
  out.system = std::to_string(n) + " x " + g.name + (served.weight_bits == 8 ? " (FP8)" : "") + ep_label(par);
  out.policy = "fcfs";
  detail::check_result_numbers(out, "serving_result");
  return out;
}

}  // namespace v0
}  // namespace strata
