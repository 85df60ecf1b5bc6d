// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Requests of a serving run (Stratum §6: "requests arrive (Poisson process in the evaluation)"):
/// arrival times, prompt and output lengths and a true topic per request, seeded and reproducible.
///
/// Arrivals. Inter-arrival gaps are independent draws with mean 1/λ (λ = `rate`, requests/s):
/// - `poisson`: exponential gaps, x = −ln(1 − u)/λ (the inverse CDF of one uniform u);
/// - `gamma`: Gamma(k, θ) gaps with shape k = 1/cv² and scale θ = 1/(k·λ), so the mean is 1/λ and
///   the coefficient of variation `cv` (cv > 1: bursts; cv = 1 is Poisson). Sampled by
///   Marsaglia–Tsang (ACM TOMS 26(3), 2000) for k ≥ 1 and the boost Gamma(k) = Gamma(k + 1)·u^(1/k)
///   for k < 1, on `detail::portable_rng` (no `std::*_distribution`: the same numbers from every
///   standard library).
/// - `constant`: every gap exactly 1/λ (a benchmark client sending at a fixed rate).
/// The first request arrives after one gap. A timestamped list replays instead
/// (`requests_from_list`).
///
/// Staged load (`stages`, as serving benchmarks state it: rate × duration, one stage after the
/// other): stage i covers [a_i, a_i + duration_i) with a_i the sum of the durations before it;
/// `constant` sends at a_i + k/λ_i (k = 0, 1, … while before the stage's end, ⌈λ_i·duration_i⌉
/// requests), `poisson` and `gamma` draw gaps from a_i at λ_i and keep the arrivals before the
/// end. `count` and `rate` are then not used; lengths and topics are drawn as without stages.
///
/// Lengths. `fixed` (value), `uniform` integers in [min, max], `list` (each request draws one
/// of `values` uniformly), `normal` or `lognormal`:
/// - `normal` (mean μ = `mean`, standard deviation `sd`): x = μ + sd·z with z a standard normal
///   (Box–Muller on `detail::portable_rng`, `core/rng.hpp`), then rounded to the nearest integer
///   (halves away from zero, `std::lround`) and clamped to [min, max] (min ≥ 1): the truncation
///   moves the mass outside [min, max] onto its ends, so the sample mean is μ only when the
///   bounds are far (a few sd) from it.
/// - `lognormal`, given as its mean m = `mean` and coefficient of variation cv = `cv` (the
///   parameters benchmark tools state): σ² = ln(1 + cv²), μ = ln m − σ²/2, x = exp(μ + σ·z),
///   so E[x] = m and sd(x)/E[x] = cv; then rounded and clamped as `normal`.
/// Neither uses `std::*_distribution`: the same numbers from every standard library.
/// A length list from a CSV file (`read_length_csv`): one column (`prompt` or `output`) or both;
/// with both, `paired` draws one row for both lengths (the row's prompt goes with its output).
///
/// Prefix groups (`prefix_groups`, as inference-perf's `shared_prefix` data generator builds them:
/// kubernetes-sigs/inference-perf, inference_perf/datagen/shared_prefix_datagen.py): G groups ×
/// U users, each group one system prompt of `system_prompt` tokens; each user draws its question
/// length from `prompt` and its output length from `output` once. Request i goes to user
/// u = i mod (G·U) of group g = ⌊u/U⌋ (`prefix_group` g, `prefix_tokens` the system prompt). Single
/// turn: prompt = system prompt + question. Multi-turn (`multi_turn`, inference-perf's
/// `enable_multi_turn_chat`): request i is round k = ⌊i/(G·U)⌋ of user u's conversation, and its
/// prompt resends the conversation: system prompt + k·(question + output) (the earlier rounds'
/// prompts and outputs, `history_tokens`) + question; `conversation` is u. Arrivals stay open loop
/// (each round arrives by the arrival process with its history): inference-perf instead holds a
/// round until the session's previous one has completed (its `UserSessionCompletionAPIData`
/// waits on the session), so under a load where a round arrives before the previous one ends, the
/// tool would delay it and here it is sent (its history then cannot be a prefix-cache hit yet). Topics: a mix of named topics with weights (6 topics by default: the
/// six domains of the OLMoE routing data, standing in for the classifier's 6 coarse topics of
/// Stratum §5.1), each request's topic drawn from it.
///
/// Trace requests (`requests_from_trace`): every sequence of a routing trace is one request; its
/// first ⌈prompt_fraction · n⌉ tokens (at least 1, at most n − 1) are the prompt and the rest are
/// generated, each decode token routing exactly as recorded; the topic is the trace's label.
///
/// Streams: arrivals, lengths and topics each draw from their own stream (SplitMix64 of the seed),
/// so changing the rate leaves the lengths and topics of the requests unchanged.
///
/// Bounds: `serving_limits()` caps what an input may ask for (requests, tokens per request, total
/// tokens), checked before anything is allocated, and the work and memory of a run (decode steps,
/// retained samples, topic-layout cells: `check_serving_work`, `check_topic_cells`), checked
/// before it starts.

#include <algorithm>  // std::min, std::max, std::sort, std::stable_sort, std::upper_bound, std::clamp
#include <array>      // std::array (enum names)
#include <cmath>      // std::log, std::log1p, std::exp, std::sqrt, std::pow, std::ceil, std::lround, std::isfinite
#include <cstddef>    // std::size_t
#include <cstdint>    // std::int64_t, std::uint64_t
#include <map>        // std::map (topics by name)
#include <string>     // std::string, std::to_string
#include <string_view>  // std::string_view
#include <tuple>      // std::tie
#include <utility>    // std::pair (enum names)
#include <vector>     // std::vector

#include "strata/core/error.hpp"
#include "strata/core/limits.hpp"
#include "strata/core/rng.hpp"
#include "strata/tech/bounds.hpp"
#include "strata/workload/trace.hpp"

namespace strata {
inline namespace v0 {

/// What a serving input may ask for (inclusive bounds; process-wide, adjustable before reading).
struct serving_input_limits {
  /// Requests of one run. [Design choice: 2^21, about 2 M; the benchmark runs 100 000]
  std::int64_t requests = std::int64_t{1} << 21;
  /// Prompt or output tokens of one request. [Design choice: 2^17 = 131 072 tokens]
  int tokens = 1 << 17;
  /// Σ (prompt + output) tokens of a run: bounds the decode steps and the prefill work simulated.
  /// [Design choice: 2^32, a few minutes of simulation at worst]
  std::int64_t total_tokens = std::int64_t{1} << 32;
  /// Largest arrival rate, requests/s. [Design choice: 10^6]
  double rate = 1e6;
  /// Latest arrival time, s: a staged load's stages in all, a list's arrivals, a generated load's
  /// last request. Simulated time is a double in seconds, so below 2^22 s (48.5 days) it resolves
  /// better than 1 ns (its spacing there is 2^-30 s) and every arrival gap and step of 1 ns or more
  /// advances the clock; past the horizon a 1 µs gap would be lost from 2^33 s on.
  /// [Design choice: 2^22 s = 4 194 304 s]
  double horizon_s = 4194304.0;
  /// Largest batch a scheduler may form. [Design choice: 4096 sequences]
  int batch = 4096;
  /// Decode steps a run may take at most, counted before it starts as Σ over the requests of
  /// (output − 1): one token of one request per step at batch 1, the most a run can take (each
  /// step evaluates the step costs). [Design choice: 2^26, about 67 M: under a minute per system
  /// at batch 1; the 100 000-request benchmark asks for 14 M]
  std::int64_t decode_steps = std::int64_t{1} << 26;
  /// Per-token samples a run may retain, counted before it starts: the TBT gaps, at most
  /// Σ (output − 1) + requests (16 bytes each), the TTFTs (one per request) and, with trace
  /// routing, each decode token's hit rate on every layout, (labels + 1) · Σ output (4 bytes
  /// each). [Design choice: 2^26, at most 1 GiB]
  std::int64_t samples = std::int64_t{1} << 26;
  /// Topic-layout cells of a Stratum run, T · (T + 1) · max(1, L · E) for T topics of a model of
  /// L MoE layers and E experts: each topic's usage table against each of the T + 1 layouts (the
  /// T² classifier and swap tables, the T + 1 layouts and T usage tables are smaller). [Design
  /// choice: 2^28, about a second; Mixtral-8x7B (L · E = 256) takes up to 1 023 topics,
  /// DeepSeek-V3 (14 848) up to 133; the paper's classifier has 6]
  std::int64_t topic_cells = std::int64_t{1} << 28;
};

/// The process-wide serving limits (see `serving_input_limits`).
template <class = void>
inline serving_input_limits& serving_limits() {
  static serving_input_limits l;
  return l;
}

/// One request.
struct request {
  std::int64_t id = 0;
  double arrival_s = 0.0;  ///< arrival time, s
  int prompt = 1;          ///< prompt tokens (prefill)
  int output = 1;          ///< tokens generated (the first by the prefill)
  int topic = 0;           ///< true topic (index into the run's topic names)
  std::int64_t trace_seq = -1;  ///< trace requests: index of its sequence in `detail::sequences_of(trace)`
  /// Its system prompt's group (file comment, prefix groups); -1: none (the engine's workload-wide
  /// `shared_prefix_tokens` applies). A replica router with
  /// prefix affinity keeps a group on one engine (`serving/cluster.hpp`).
  std::int32_t prefix_group = -1;
  int prefix_tokens = 0;  ///< leading prompt tokens equal to its group's system prompt
  std::int64_t conversation = -1;  ///< multi-turn: its conversation (user); -1: none
  int history_tokens = 0;  ///< tokens after the system prompt resent from the conversation's earlier turns
};

/// Arrival processes.
enum class arrival_process { poisson, gamma, constant };
constexpr auto enum_names(arrival_process) {
  return std::array{std::pair{arrival_process::poisson, "poisson"}, std::pair{arrival_process::gamma, "gamma"},
                    std::pair{arrival_process::constant, "constant"}};
}

/// One stage of a staged load: `rate` requests/s for `duration_s` seconds (file comment).
struct load_stage {
  double rate = 1.0;
  double duration_s = 60.0;

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("rate", s.rate);
    v("duration_s", s.duration_s);
  }
  friend bool operator==(const load_stage&, const load_stage&) = default;
};

/// Length distributions.
enum class length_kind { fixed, uniform, list, normal, lognormal };
constexpr auto enum_names(length_kind) {
  return std::array{std::pair{length_kind::fixed, "fixed"}, std::pair{length_kind::uniform, "uniform"},
                    std::pair{length_kind::list, "list"}, std::pair{length_kind::normal, "normal"},
                    std::pair{length_kind::lognormal, "lognormal"}};
}

/// A distribution of token counts.
struct length_params {
  length_kind kind = length_kind::fixed;
  int value = 512;           ///< `fixed`
  int min = 1, max = 1024;   ///< `uniform`, inclusive; `normal`, `lognormal`: the clamp
  std::vector<int> values;   ///< `list`
  double mean = 512.0;       ///< `normal`, `lognormal`: the mean, tokens
  double sd = 0.0;           ///< `normal`: the standard deviation, tokens
  double cv = 0.0;           ///< `lognormal`: the coefficient of variation sd/mean

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("kind", s.kind);
    v("value", s.value);
    v("min", s.min);
    v("max", s.max);
    v("values", s.values);
    v("mean", s.mean);
    v("sd", s.sd);
    v("cv", s.cv);
  }
  friend bool operator==(const length_params&, const length_params&) = default;
};

/// The six default topic names (file comment). [OLMoE routing data, domains with counts:
/// arxiv, book, c4, github, tulu, wikipedia; Stratum §5.1: 6 coarse topics]
template <class = void>
inline std::vector<std::string> default_topics() { return {"arxiv", "book", "c4", "github", "tulu", "wikipedia"}; }

/// Prefix groups of a generated workload (file comment): `groups` system prompts of
/// `system_prompt` tokens, `users` users each, single or multi-turn; `groups` 0: none.
struct prefix_group_params {
  int groups = 0;         ///< G, system prompts. [Design choice: 0, none]
  int users = 1;          ///< U, users per group
  int system_prompt = 0;  ///< tokens of each system prompt
  bool multi_turn = false;  ///< rounds resend the conversation (inference-perf `enable_multi_turn_chat`)

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("groups", s.groups);
    v("users", s.users);
    v("system_prompt", s.system_prompt);
    v("multi_turn", s.multi_turn);
  }
  friend bool operator==(const prefix_group_params&, const prefix_group_params&) = default;
};

/// The request generator.
struct request_gen_params {
  arrival_process arrivals = arrival_process::poisson;  ///< [Stratum §6: Poisson in the evaluation]
  double rate = 2.0;   ///< λ, requests/s. [Design choice: inside the paper's < 4 req/s regime]
  double cv = 2.0;     ///< coefficient of variation of `gamma` gaps. [Design choice: bursty]
  std::int64_t count = 1000;  ///< requests
  /// Prompt tokens. [Design choice: 512]
  length_params prompt{};
  /// Output tokens. [Design choice: 128]
  length_params output{.kind = length_kind::fixed, .value = 128, .min = 1, .max = 1024, .values = {}};
  std::vector<std::string> topics = default_topics();
  std::vector<double> weights;  ///< one per topic, ≥ 0 with a positive sum; empty: uniform
  std::uint64_t seed = 1;
  /// Staged load (file comment); non-empty: replaces `rate` and `count`.
  std::vector<load_stage> stages;
  /// Two `list` laws of one length each draw one index for both (a CSV's rows, `read_length_csv`).
  bool paired = false;
  /// Prefix groups (file comment); `groups` 0: none.
  prefix_group_params prefix_groups{};

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("stages", s.stages);
    v("paired", s.paired);
    v("prefix_groups", s.prefix_groups);
    v("arrivals", s.arrivals);
    v("rate", s.rate);
    v("cv", s.cv);
    v("count", s.count);
    v("prompt", s.prompt);
    v("output", s.output);
    v("topics", s.topics);
    v("weights", s.weights);
    v("seed", s.seed);
  }
  friend bool operator==(const request_gen_params&, const request_gen_params&) = default;
};

namespace detail {

template <class = void>
inline std::string at_field(const std::string& at, const char* f) { return at.empty() ? std::string(f) : at + "." + f; }

/// Throws `config_error` naming `field` when an arrival at `t` s is past
/// `serving_limits().horizon_s` (a load whose count over its rate spans more than the horizon).
template <class = void>
inline void require_horizon(double t, const std::string& field) {
  const double h = serving_limits().horizon_s;
  if (!(t <= h)) {
    throw config_error(field, "[strata.serving] " + field + ": an arrival at " + to_text(t) +
                                  " s is past the horizon of " + to_text(h) +
                                  " s (strata::serving_limits().horizon_s: simulated time resolves 1 ns up to it); "
                                  "fewer requests or a higher rate");
  }
}

/// Throws `config_error` naming `requests.stages` when a staged load draws more requests than
/// `serving_limits().requests`.
template <class = void>
inline void require_serving_count(std::int64_t n) {
  const auto lim = serving_limits().requests;
  if (n > lim) {
    throw config_error("requests.stages", "[strata.serving] requests.stages: " + std::to_string(n) +
                                              " requests exceed the limit " + std::to_string(lim) +
                                              " (strata::serving_limits().requests)");
  }
}

template <class = void>
inline void validate_length(const length_params& p, const std::string& at) {
  constexpr const char* m = "strata.serving";
  const int hi = serving_limits().tokens;
  switch (p.kind) {
    case length_kind::fixed: require_count(p.value, 1, hi, m, at_field(at, "value")); break;
    case length_kind::uniform:
      require_count(p.min, 1, hi, m, at_field(at, "min"));
      require_count(p.max, p.min, hi, m, at_field(at, "max"));
      break;
    case length_kind::list:
      require(!p.values.empty(), m, at_field(at, "values"), 0, "at least one length");
      require(p.values.size() <= 1u << 20, m, at_field(at, "values"), p.values.size(), "at most 2^20 lengths");
      for (std::size_t i = 0; i < p.values.size(); ++i) {
        require_count(p.values[i], 1, hi, m, at_field(at, "values") + "[" + std::to_string(i) + "]");
      }
      break;
    case length_kind::normal:
    case length_kind::lognormal:
      require_count(p.min, 1, hi, m, at_field(at, "min"));
      require_count(p.max, p.min, hi, m, at_field(at, "max"));
      require_in(p.mean, 1.0, static_cast<double>(hi), m, at_field(at, "mean"));
      if (p.kind == length_kind::normal) {
        require_in(p.sd, 0.0, static_cast<double>(hi), m, at_field(at, "sd"));
      } else {
        require_in(p.cv, 0.0, 100.0, m, at_field(at, "cv"));
      }
      break;
  }
}

template <class = void>
inline int largest_length(const length_params& p) {
  switch (p.kind) {
    case length_kind::fixed: return p.value;
    case length_kind::uniform: return p.max;
    case length_kind::list: return *std::max_element(p.values.begin(), p.values.end());
    case length_kind::normal:
    case length_kind::lognormal: return p.max;
  }
  return p.value;
}

/// x rounded to the nearest integer (halves away from zero) and clamped to [lo, hi] (file
/// comment); a non-finite x (never drawn from checked parameters) takes lo.
template <class = void>
inline int round_clamp_length(double x, int lo, int hi) {
  if (!std::isfinite(x)) return lo;
  const double c = std::clamp(x, static_cast<double>(lo) - 1.0, static_cast<double>(hi) + 1.0);
  return std::clamp(static_cast<int>(std::lround(c)), lo, hi);
}

/// The lognormal's (μ, σ) from its mean and cv (file comment): σ² = ln(1 + cv²), μ = ln m − σ²/2.
template <class = void>
inline std::pair<double, double> lognormal_mu_sigma(double mean, double cv) {
  const double s2 = std::log1p(cv * cv);
  return {std::log(mean) - 0.5 * s2, std::sqrt(s2)};
}

template <class = void>
inline int draw_length(const length_params& p, portable_rng& g) {
  switch (p.kind) {
    case length_kind::fixed: return p.value;
    case length_kind::uniform:
      return p.min + static_cast<int>(g.below(static_cast<std::uint64_t>(p.max - p.min) + 1));
    case length_kind::list: return p.values[g.below(p.values.size())];
    case length_kind::normal: return round_clamp_length(p.mean + p.sd * g.normal(), p.min, p.max);
    case length_kind::lognormal: {
      const auto [mu, sigma] = lognormal_mu_sigma(p.mean, p.cv);
      return round_clamp_length(std::exp(mu + sigma * g.normal()), p.min, p.max);
    }
  }
  return p.value;
}

/// One request's (prompt, output) lengths: the prompt's law, then the output's (a `paired` list:
/// one row for both).
template <class P>
inline std::pair<int, int> draw_lengths(const P& p, portable_rng& g) {
  if (p.paired) {
    const std::size_t k = g.below(p.prompt.values.size());
    return {p.prompt.values[k], p.output.values[k]};
  }
  const int a = draw_length(p.prompt, g);
  const int b = draw_length(p.output, g);
  return {a, b};
}

/// Checks topic names (non-empty, distinct, at most 4096) and weights; `at` prefixes the fields.
template <class = void>
inline void validate_topic_mix(const std::vector<std::string>& topics, const std::vector<double>& weights,
                               const std::string& at) {
  constexpr const char* m = "strata.serving";
  require_count(static_cast<long long>(topics.size()), 1, 4096, m, at_field(at, "topics"));
  for (std::size_t i = 0; i < topics.size(); ++i) {
    if (topics[i].empty() || topics[i].size() > 256) {
      require(false, m, at_field(at, "topics") + "[" + std::to_string(i) + "]", topics[i].size(),
              "a name of 1 to 256 characters");
    }
  }
  // Repeats by sorting (T log T): the first name given before is reported, as a scan would.
  std::vector<std::size_t> order(topics.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return topics[a] != topics[b] ? topics[a] < topics[b] : a < b;
  });
  std::size_t repeat = topics.size();
  for (std::size_t j = 1; j < order.size(); ++j) {
    if (topics[order[j]] == topics[order[j - 1]]) repeat = std::min(repeat, order[j]);
  }
  if (repeat < topics.size()) {
    require(false, m, at_field(at, "topics") + "[" + std::to_string(repeat) + "]", topics[repeat],
            "a name not given before");
  }
  if (weights.empty()) return;
  require(weights.size() == topics.size(), m, at_field(at, "weights"), weights.size(),
          ("one per topic (" + std::to_string(topics.size()) + ")").c_str());
  double sum = 0.0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    require_in(weights[i], 0.0, 1e12, m, at_field(at, "weights") + "[" + std::to_string(i) + "]");
    sum += weights[i];
  }
  require(sum > 0.0, m, at_field(at, "weights"), sum, "a positive sum");
}

/// Gamma(k, 1) by Marsaglia–Tsang (k ≥ 1) and Gamma(k + 1)·u^(1/k) (k < 1).
template <class = void>
inline double draw_gamma(double k, portable_rng& g) {
  if (k < 1.0) {
    const double u = g.uniform();
    return draw_gamma(k + 1.0, g) * std::pow(1.0 - u, 1.0 / k);  // 1 − u in (0, 1]
  }
  const double d = k - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x = 0.0, v = 0.0;
    do {
      x = g.normal();
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = 1.0 - g.uniform();  // (0, 1]
    if (u < 1.0 - 0.0331 * x * x * x * x) return d * v;
    if (std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v))) return d * v;
  }
}

/// Arrival times of `n` requests.
template <class = void>
inline std::vector<double> draw_arrivals(const request_gen_params& p, std::int64_t n, portable_rng& g) {
  std::vector<double> t(static_cast<std::size_t>(n));
  double now = 0.0;
  const double k = 1.0 / (p.cv * p.cv);
  for (auto& x : t) {
    const double gap = p.arrivals == arrival_process::constant ? 1.0 / p.rate
                       : p.arrivals == arrival_process::poisson ? -std::log(1.0 - g.uniform()) / p.rate
                                                                : draw_gamma(k, g) / (k * p.rate);
    now += gap;
    x = now;
  }
  return t;
}

/// Start of stage `i` (the sum of the durations before it).
template <class = void>
inline double stage_start(const std::vector<load_stage>& st, std::size_t i) {
  double t = 0.0;
  for (std::size_t j = 0; j < i && j < st.size(); ++j) t += st[j].duration_s;
  return t;
}

/// Appends an arrival, bounding the count while drawing (`require_serving_count`): a draw can
/// never grow past the limit, whatever the stages.
template <class = void>
inline void push_arrival(std::vector<double>& t, double x) {
  if (static_cast<std::int64_t>(t.size()) >= serving_limits().requests) {
    require_serving_count(static_cast<std::int64_t>(t.size()) + 1);
  }
  t.push_back(x);
}

/// Arrivals of a staged load (file comment): in each stage [a, b) at rate λ, `constant` at
/// a + k/λ and the other processes from a by their gaps, each kept while before b.
template <class = void>
inline std::vector<double> draw_staged_arrivals(const request_gen_params& p, portable_rng& g) {
  std::vector<double> t;
  const double k = 1.0 / (p.cv * p.cv);
  double a = 0.0;
  for (const auto& st : p.stages) {
    const double b = a + st.duration_s;
    if (p.arrivals == arrival_process::constant) {
      for (std::int64_t i = 0;; ++i) {
        const double x = a + static_cast<double>(i) / st.rate;
        if (x >= b) break;
        push_arrival(t, x);
      }
    } else {
      double now = a;
      for (;;) {
        now += p.arrivals == arrival_process::poisson ? -std::log(1.0 - g.uniform()) / st.rate
                                                      : draw_gamma(k, g) / (k * st.rate);
        if (now >= b) break;
        push_arrival(t, now);
      }
    }
    a = b;
  }
  return t;
}

template <class = void>
inline std::vector<double> topic_cdf(const std::vector<std::string>& topics, const std::vector<double>& weights) {
  std::vector<double> cdf(topics.size());
  double s = 0.0;
  for (std::size_t i = 0; i < topics.size(); ++i) {
    s += weights.empty() ? 1.0 : weights[i];
    cdf[i] = s;
  }
  for (auto& c : cdf) c /= s;
  cdf.back() = 1.0;
  return cdf;
}

template <class = void>
inline int draw_from_cdf(const std::vector<double>& cdf, portable_rng& g) {
  const double u = g.uniform();
  const auto it = std::upper_bound(cdf.begin(), cdf.end(), u);
  return static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(it - cdf.begin()), cdf.size() - 1));
}

}  // namespace detail

/// Checks the generator; throws `config_error` naming the field (prefixed by `at`, e.g. "requests").
template <class = void>
inline void validate(const request_gen_params& p, const std::string& at = {}) {
  constexpr const char* m = "strata.serving";
  const auto& lim = serving_limits();
  detail::require(p.count >= 1 && p.count <= lim.requests, m, detail::at_field(at, "count"), p.count,
                  ("in [1, " + std::to_string(lim.requests) + "] (strata::serving_limits().requests)").c_str());
  // A staged load: its expected count (Σ rate · duration) stands for `count` in the bounds below.
  double staged = 0.0;
  detail::require(p.stages.size() <= 4096, m, detail::at_field(at, "stages"), p.stages.size(), "at most 4096 stages");
  for (std::size_t i = 0; i < p.stages.size(); ++i) {
    const std::string f = detail::at_field(at, "stages") + "[" + std::to_string(i) + "]";
    const auto& st = p.stages[i];
    if (!(std::isfinite(st.rate) && st.rate > 0.0 && st.rate <= lim.rate)) {
      detail::require(false, m, f + ".rate", st.rate, ("a rate in (0, " + detail::to_text(lim.rate) + "] requests/s").c_str());
    }
    detail::require_in(st.duration_s, 1e-6, 1e9, m, f + ".duration_s");
    staged += std::ceil(st.rate * st.duration_s);
  }
  detail::require(staged <= static_cast<double>(lim.requests), m, detail::at_field(at, "stages"), staged,
                  ("at most " + std::to_string(lim.requests) + " requests expected (strata::serving_limits().requests)").c_str());
  const double span = detail::stage_start(p.stages, p.stages.size());
  detail::require(span <= lim.horizon_s, m, detail::at_field(at, "stages"), span,
                  ("stages of at most " + detail::to_text(lim.horizon_s) +
                   " s in all (strata::serving_limits().horizon_s: simulated time resolves 1 ns up to it)").c_str());
  if (!(std::isfinite(p.rate) && p.rate > 0.0 && p.rate <= lim.rate)) {
    detail::require(false, m, detail::at_field(at, "rate"), p.rate,
                    ("a rate in (0, " + detail::to_text(lim.rate) + "] requests/s").c_str());
  }
  detail::require_in(p.cv, 0.05, 20.0, m, detail::at_field(at, "cv"));
  detail::validate_length(p.prompt, detail::at_field(at, "prompt"));
  detail::validate_length(p.output, detail::at_field(at, "output"));
  if (p.paired) {
    detail::require(p.prompt.kind == length_kind::list && p.output.kind == length_kind::list &&
                        p.prompt.values.size() == p.output.values.size(),
                    m, detail::at_field(at, "paired"), "true",
                    "two list laws of one length each (a CSV's prompt,output rows)");
  }
  const auto& pg = p.prefix_groups;
  const std::string pf = detail::at_field(at, "prefix_groups");
  detail::require_count(pg.groups, 0, 1 << 20, m, pf + ".groups");
  detail::require_count(pg.users, 1, 1 << 20, m, pf + ".users");
  detail::require_count(pg.system_prompt, 0, lim.tokens, m, pf + ".system_prompt");
  const double n_req = p.stages.empty() ? static_cast<double>(p.count) : staged;
  // Per request at most: its system prompt, its history (multi-turn: rounds − 1 earlier rounds of
  // question + output) and its own question and output.
  double per_request = static_cast<double>(detail::largest_length(p.prompt)) + detail::largest_length(p.output);
  if (pg.groups > 0) {
    const double users = static_cast<double>(pg.groups) * pg.users;
    detail::require(users <= static_cast<double>(lim.requests), m, pf + ".groups", users,
                    "at most strata::serving_limits().requests users (groups x users)");
    const double rounds = pg.multi_turn ? std::ceil(n_req / users) : 1.0;
    const double prompt_max = pg.system_prompt + rounds * per_request - detail::largest_length(p.output);
    detail::require(prompt_max <= static_cast<double>(lim.tokens), m, pf, prompt_max,
                    ("prompts of at most " + std::to_string(lim.tokens) +
                     " tokens (system prompt + history + question; strata::serving_limits().tokens)").c_str());
    per_request += pg.system_prompt + (rounds - 1.0) * per_request;
  }
  const double tokens = n_req * per_request;
  detail::require(tokens <= static_cast<double>(lim.total_tokens), m, detail::at_field(at, "count"), tokens,
                  ("count * (largest prompt + output) <= " + std::to_string(lim.total_tokens) +
                   " tokens (strata::serving_limits().total_tokens)").c_str());
  detail::validate_topic_mix(p.topics, p.weights, at);
}

/// `p.count` requests (file comment), ids 0 … n − 1 in arrival order. A `config_error` names the
/// field prefixed by `at` (a scenario passes "requests").
template <class = void>
inline std::vector<request> generate_requests(const request_gen_params& p, const std::string& at = {}) {
  validate(p, at);
  std::uint64_t s = p.seed;
  detail::portable_rng ga(detail::splitmix64_mix(s)), gl(detail::splitmix64_mix(s)), gt(detail::splitmix64_mix(s));
  const auto times = p.stages.empty() ? detail::draw_arrivals(p, p.count, ga) : detail::draw_staged_arrivals(p, ga);
  detail::require(!times.empty(), "strata.serving", detail::at_field(at, "stages"), 0, "stages that hold at least one arrival");
  detail::require_horizon(times.back(), detail::at_field(at, p.stages.empty() ? "rate" : "stages"));
  const auto cdf = detail::topic_cdf(p.topics, p.weights);
  std::vector<request> out(times.size());
  const auto& pg = p.prefix_groups;
  if (pg.groups > 0) {
    // Each user's question and output lengths, drawn once (file comment).
    const std::size_t users = static_cast<std::size_t>(pg.groups) * static_cast<std::size_t>(pg.users);
    std::vector<std::pair<int, int>> qo(users);
    for (auto& x : qo) x = detail::draw_lengths(p, gl);
    for (std::size_t i = 0; i < out.size(); ++i) {
      auto& r = out[i];
      const std::size_t u = i % users;
      const std::int64_t round = pg.multi_turn ? static_cast<std::int64_t>(i / users) : 0;
      const auto [q, o] = qo[u];
      const std::int64_t history = round * (static_cast<std::int64_t>(q) + o);
      const std::int64_t prompt = pg.system_prompt + history + q;
      detail::require(prompt <= serving_limits().tokens, "strata.serving", detail::at_field(at, "prefix_groups"), prompt,
                      "prompts of at most strata::serving_limits().tokens tokens");
      r.id = static_cast<std::int64_t>(i);
      r.arrival_s = times[i];
      r.prompt = static_cast<int>(prompt);
      r.output = o;
      r.topic = detail::draw_from_cdf(cdf, gt);
      r.prefix_group = static_cast<std::int32_t>(u / static_cast<std::size_t>(pg.users));
      r.prefix_tokens = pg.system_prompt;
      r.conversation = pg.multi_turn ? static_cast<std::int64_t>(u) : -1;
      r.history_tokens = static_cast<int>(history);
    }
    return out;
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    auto& r = out[i];
    r.id = static_cast<std::int64_t>(i);
    r.arrival_s = times[i];
    std::tie(r.prompt, r.output) = detail::draw_lengths(p, gl);
    r.topic = detail::draw_from_cdf(cdf, gt);
  }
  return out;
}

/// One timestamped request of a replayed list (JSON: `{"arrival_s": 0.5, "prompt": 512,
/// "output": 128, "topic": "arxiv"}`).
struct request_spec {
  double arrival_s = 0.0;
  int prompt = 512;
  int output = 128;
  std::string topic;

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("arrival_s", s.arrival_s);
    v("prompt", s.prompt);
    v("output", s.output);
    v("topic", s.topic);
  }
  friend bool operator==(const request_spec&, const request_spec&) = default;
};

/// Requests from a timestamped list, topics by name from `topics`; sorted by arrival (stable).
/// Throws `config_error` naming `<at>[i].<field>` (an unknown topic, a negative time, a length out
/// of range, too many requests or tokens).
template <class = void>
inline std::vector<request> requests_from_list(const std::vector<request_spec>& list,
                                               const std::vector<std::string>& topics, const std::string& at = "requests") {
  constexpr const char* m = "strata.serving";
  const auto& lim = serving_limits();
  detail::require(!list.empty() && static_cast<std::int64_t>(list.size()) <= lim.requests, m, at, list.size(),
                  ("1 to " + std::to_string(lim.requests) + " requests (strata::serving_limits().requests)").c_str());
  // Topic index by name (the last of equal names, as a scan would find): a lookup per request.
  std::map<std::string_view, int> by_name;
  for (std::size_t k = 0; k < topics.size(); ++k) by_name[topics[k]] = static_cast<int>(k);
  std::vector<request> out;
  out.reserve(list.size());
  double tokens = 0.0;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const auto& s = list[i];
    const std::string f = at + "[" + std::to_string(i) + "]";
    detail::require_in(s.arrival_s, 0.0, lim.horizon_s, m, f + ".arrival_s");
    detail::require_count(s.prompt, 1, lim.tokens, m, f + ".prompt");
    detail::require_count(s.output, 1, lim.tokens, m, f + ".output");
    tokens += static_cast<double>(s.prompt) + s.output;
    const auto hit = by_name.find(s.topic);
    const int t = hit == by_name.end() ? -1 : hit->second;
    if (t < 0) {
      std::string names;
      for (const auto& n : topics) names += (names.empty() ? "" : ", ") + n;
      detail::require(false, m, f + ".topic", s.topic, ("one of the topics (" + names + ")").c_str());
    }
    out.push_back({.id = static_cast<std::int64_t>(i), .arrival_s = s.arrival_s, .prompt = s.prompt, .output = s.output, .topic = t});
  }
  detail::require(tokens <= static_cast<double>(lim.total_tokens), m, at, tokens,
                  "at most strata::serving_limits().total_tokens tokens in all");
  std::stable_sort(out.begin(), out.end(), [](const request& a, const request& b) { return a.arrival_s < b.arrival_s; });
  for (std::size_t i = 0; i < out.size(); ++i) out[i].id = static_cast<std::int64_t>(i);
  return out;
}

namespace detail {
/// Throws `config_error` "<field>: <n> <what> exceed the limit <limit>
/// (strata::serving_limits().<name>)" unless n <= limit.
template <class = void>
inline void require_serving_limit(std::int64_t n, std::int64_t limit, const char* name, const std::string& field,
                                  const std::string& what) {
  if (n > limit) {
    throw config_error(field, "[strata.serving] " + field + ": " + std::to_string(n) + " " + what + " exceed the limit " +
                                  std::to_string(limit) + " (strata::serving_limits()." + name + ")");
  }
}
}  // namespace detail

/// Checks the work and memory a run of `reqs` asks for, before it starts (`serving_input_limits`):
/// the decode steps at most, Σ (output − 1), against `decode_steps`, and the samples retained,
/// Σ (output − 1) + 2 · requests + hit_layouts · Σ output, against `samples` (`hit_layouts`: the
/// layouts a trace-routed run keeps each decode token's hit rate for, 0 otherwise). Throws
/// `config_error` naming `field` and the limit.
template <class = void>
inline void check_serving_work(const std::vector<request>& reqs, std::int64_t hit_layouts = 0,
                               const std::string& field = "requests") {
  std::int64_t steps = 0, outputs = 0;
  for (const auto& r : reqs) {
    steps += std::max(0, r.output - 1);
    outputs += std::max(0, r.output);
  }
  const auto& lim = serving_limits();
  detail::require_serving_limit(steps, lim.decode_steps, "decode_steps", field,
                                "decode steps at most (the requests' output tokens after the first, " +
                                    std::to_string(reqs.size()) + " requests)");
  const std::int64_t n = static_cast<std::int64_t>(reqs.size());
  const std::int64_t hits = detail::checked_mul(std::max<std::int64_t>(hit_layouts, 0), outputs, "strata.serving", field);
  detail::require_serving_limit(detail::checked_add(steps + 2 * n, hits, "strata.serving", field), lim.samples, "samples",
                                field,
                                "retained samples (TBT gaps and TTFTs" +
                                    (hits > 0 ? " and " + std::to_string(hits) + " per-token hit rates on " +
                                                    std::to_string(hit_layouts) + " layouts"
                                              : std::string()) +
                                    ")");
}

/// Checks the topic-layout cells of a Stratum run, T · (T + 1) · max(1, L · E) for `topics`
/// topics of a model of `moe_layers` MoE layers and `experts` experts, against
/// `serving_limits().topic_cells`, before anything is placed; throws `config_error` naming `field`.
template <class = void>
inline void check_topic_cells(std::int64_t topics, int moe_layers, int experts, const std::string& field = "topics") {
  const std::int64_t cells = std::max<std::int64_t>(1, static_cast<std::int64_t>(moe_layers) * experts);
  const std::int64_t t = std::max<std::int64_t>(topics, 0);
  const std::int64_t n = detail::checked_mul(detail::checked_mul(t, t + 1, "strata.serving", field), cells,
                                             "strata.serving", field);
  detail::require_serving_limit(n, serving_limits().topic_cells, "topic_cells", field,
                                "topic-layout cells (" + std::to_string(t) + " topics x " + std::to_string(t + 1) +
                                    " layouts x " + std::to_string(cells) + " MoE layer-expert cells)");
}

/// Requests from the sequences of a routing trace (file comment): sequence order, arrivals from
/// `arrivals` (its rate, process and seed; its count, lengths and topics are not used). A token
/// without a topic label takes topic 0. Sequences shorter than 2 tokens are skipped.
template <class = void>
inline std::vector<request> requests_from_trace(const routing_trace& t, const request_gen_params& arrivals,
                                                double prompt_fraction = 0.5) {
  constexpr const char* m = "strata.serving";
  detail::require_in(prompt_fraction, 0.0, 1.0, m, "prompt_fraction");
  request_gen_params a = arrivals;
  a.count = 1;
  validate(a);
  const auto seqs = detail::sequences_of(t);
  detail::require(!seqs.empty(), m, "trace", 0, "a trace with at least one sequence");
  std::uint64_t s = a.seed;
  detail::portable_rng ga(detail::splitmix64_mix(s));
  const auto times = detail::draw_arrivals(a, static_cast<std::int64_t>(seqs.size()), ga);
  detail::require_horizon(times.back(), "arrivals.rate");
  std::vector<request> out;
  for (std::size_t i = 0; i < seqs.size(); ++i) {
    const auto& sq = seqs[i];
    const int n = static_cast<int>(std::min<std::size_t>(sq.size(), static_cast<std::size_t>(serving_limits().tokens)));
    if (n < 2) continue;
    const int p = std::clamp(static_cast<int>(std::ceil(prompt_fraction * n)), 1, n - 1);
    const int topic = std::max(0, static_cast<int>(t.info(sq.front()).topic));
    out.push_back({.id = static_cast<std::int64_t>(out.size()), .arrival_s = times[i], .prompt = p, .output = n - p, .topic = topic,
                   .trace_seq = static_cast<std::int64_t>(i)});
  }
  detail::require(!out.empty(), m, "trace", 0, "a sequence of at least 2 tokens");
  return out;
}

}  // namespace v0
}  // namespace strata
