// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Routing traces of Mixture-of-Experts models: which experts each token uses at each MoE layer,
/// and the statistics that placement and residency policies depend on (data flow:
/// "routing trace / generator -> token groups -> placement / residency policy").
///
/// Storage. A trace of N tokens, L MoE layers and top-k routing keeps one flat
/// `std::vector<std::uint16_t>` of N·L·k expert IDs, token-major: the k IDs of token t at layer l
/// are `ids[(t·L + l)·k, … + k)`, in descending gate order (the first is the top-1 expert). Each
/// token also carries a `token_info` (sequence id, position in the sequence, topic index; each
/// may be absent, `routing_trace::none`). IDs are 16-bit, so a layer has at most 65,536 experts.
///
/// Statistics (per layer l, with c_e the number of tokens whose top-k contains expert e, so that
/// Σ_e c_e = k·N, and p_e = c_e / (k·N)):
///   - hottest-expert share  h_l = max_e c_e / (k·N)                 in [1/E, 1/k]
///   - normalised entropy    H_l = −Σ_e p_e ln p_e / ln E            in [0, 1] (1 = uniform)
///   - consecutive overlap   o_l = mean over pairs |S_t ∩ S_{t+1}| / k, where S_t is token t's
///     expert set and the pairs are adjacent tokens of the same sequence (same `seq`; a trace
///     without sequence ids is one sequence)                          in [0, 1]
///   - top-m coverage        C_l(m) = Σ of the m largest c_e / (k·N), m = 1 … E: the share of
///     expert activations served if the m hottest experts of the layer are resident; C_l(1) = h_l.
///
/// \code
/// strata::routing_trace t(/*layers=*/2, /*experts=*/8, /*k=*/2);
/// t.push_back({3, 1, 0, 7}, {.seq = 0, .pos = 0});   // layer 0: {3, 1}, layer 1: {0, 7}
/// auto s = strata::statistics(t);                    // s.layers[0].hottest_share == 0.5
/// \endcode
///
/// Decode batches of B concurrent sequences: `select_decode_batch` (below).
/// Readers for the CSV formats are in `trace_io.hpp`; the synthetic generator and its fitter in
/// `trace_gen.hpp`.

#include <algorithm>         // std::max_element, std::sort, std::stable_sort, std::is_sorted, std::find
#include <bit>               // std::popcount
#include <cmath>             // std::log
#include <cstddef>           // std::size_t
#include <cstdint>           // std::uint16_t, std::int32_t, std::int64_t, std::uint64_t
#include <functional>        // std::greater
#include <initializer_list>  // std::initializer_list, for push_back in tests and examples
#include <span>              // std::span
#include <string>            // std::string, std::to_string
#include <string_view>       // std::string_view
#include <utility>           // std::move, std::pair, std::swap
#include <vector>            // std::vector

#include "strata/core/error.hpp"
#include "strata/workload/model.hpp"

namespace strata {
inline namespace v0 {

/// Per-token metadata of a routing trace; every field may be absent (`-1`).
struct token_info {
  std::int32_t seq = -1;    ///< sequence (request) id, or -1
  std::int32_t pos = -1;    ///< position of the token in its sequence, or -1
  std::int32_t topic = -1;  ///< index into `routing_trace::topic_names()`, or -1

  friend bool operator==(const token_info&, const token_info&) = default;
};

class routing_trace;

namespace detail {
// Lets the readers and the generator fill a trace without the per-token checks of push_back
// (they check as they parse, with file and line in the message).
struct trace_access;
}  // namespace detail

/// A routing trace: for each token and MoE layer, the top-k expert IDs in descending gate order.
class routing_trace {
 public:
  /// Marks an absent `token_info` field.
  static constexpr std::int32_t none = -1;

  routing_trace() = default;

  /// An empty trace of `layers` MoE layers, `experts` routed experts per layer and top-`k`
  /// routing; `topic_names` are the labels `token_info::topic` indexes.
  /// Throws `config_error` unless 1 <= layers, 1 <= experts <= 65536 and 1 <= k <= experts.
  routing_trace(int layers, int experts, int k, std::vector<std::string> topic_names = {})
      : layers_(layers), experts_(experts), k_(k), topics_(std::move(topic_names)) {
    constexpr const char* m = "strata.trace";
    detail::require(layers >= 1, m, "layers", layers, ">= 1");
    detail::require(experts >= 1 && experts <= 65536, m, "experts", experts, "in [1, 65536]");
    detail::require(k >= 1 && k <= experts, m, "k", k,
                    ("in [1, experts = " + std::to_string(experts) + "]").c_str());
  }

  /// Number of MoE layers.
  template <class = void>
  [[nodiscard]] int layers() const noexcept { return layers_; }
  /// Routed experts per layer (IDs are in [0, experts_per_layer())).
  template <class = void>
  [[nodiscard]] int experts_per_layer() const noexcept { return experts_; }
  /// Experts each token uses per layer.
  template <class = void>
  [[nodiscard]] int k() const noexcept { return k_; }
  /// Number of tokens.
  template <class = void>
  [[nodiscard]] std::size_t tokens() const noexcept { return info_.size(); }
  /// True if the trace holds no token.
  template <class = void>
  [[nodiscard]] bool empty() const noexcept { return info_.empty(); }

  /// The k expert IDs of `token` at MoE layer `layer` (0-based), top-1 first.
  /// Precondition (unchecked, like `operator[]`): token < tokens(), 0 <= layer < layers().
  template <class = void>
  [[nodiscard]] std::span<const std::uint16_t> experts(std::size_t token, int layer) const noexcept {
    const std::size_t at = (token * static_cast<std::size_t>(layers_) + static_cast<std::size_t>(layer)) *
                           static_cast<std::size_t>(k_);
    return {ids_.data() + at, static_cast<std::size_t>(k_)};
  }
  /// Metadata of `token` (unchecked precondition token < tokens()).
  template <class = void>
  [[nodiscard]] const token_info& info(std::size_t token) const noexcept { return info_[token]; }
  /// Metadata of all tokens.
  template <class = void>
  [[nodiscard]] std::span<const token_info> infos() const noexcept { return info_; }
  /// All IDs, token-major: (token · layers + layer) · k + slot.
  template <class = void>
  [[nodiscard]] std::span<const std::uint16_t> ids() const noexcept { return ids_; }
  /// Topic labels that `token_info::topic` indexes.
  template <class = void>
  [[nodiscard]] const std::vector<std::string>& topic_names() const noexcept { return topics_; }

  /// Reserves room for `n` tokens.
  template <class = void>
  void reserve(std::size_t n) {
    ids_.reserve(n * static_cast<std::size_t>(layers_) * static_cast<std::size_t>(k_));
    info_.reserve(n);
  }

  /// Appends one token: `ids` holds layers·k IDs, layer-major (layer 0's k IDs first).
  /// Throws `config_error` if the size is wrong, an ID is out of range, an ID repeats within a
  /// layer or the topic index is out of range; the trace is unchanged then.
  template <class = void>
  void push_back(std::span<const std::uint16_t> ids, const token_info& info = {}) {
    constexpr const char* m = "strata.trace";
    const std::size_t cell = static_cast<std::size_t>(k_);
    const std::size_t want = static_cast<std::size_t>(layers_) * cell;
    // Each check builds its message only when it fails: a trace reader appends millions of IDs.
    if (layers_ < 1) detail::require(false, m, "layers", layers_, ">= 1 (default-constructed trace)");
    if (ids.size() != want) {
      detail::require(false, m, "ids.size()", ids.size(), ("layers * k = " + std::to_string(want)).c_str());
    }
    for (std::size_t i = 0; i < ids.size(); ++i) {
      const auto bad = [&](const std::string& expected) {
        detail::require(false, m, "ids[" + std::to_string(i) + "]", ids[i], expected.c_str());
      };
      if (ids[i] >= experts_) bad("in [0, " + std::to_string(experts_) + ")");
      const std::size_t first = i - i % cell;
      for (std::size_t j = first; j < i; ++j) {
        if (ids[j] == ids[i]) bad("distinct within its layer");
      }
    }
    if (!(info.topic >= none && info.topic < static_cast<std::int32_t>(topics_.size()))) {
      detail::require(false, m, "topic", info.topic, ("-1 or in [0, " + std::to_string(topics_.size()) + ")").c_str());
    }
    ids_.insert(ids_.end(), ids.begin(), ids.end());
    info_.push_back(info);
  }
  /// Appends one token from a braced list of layers·k IDs.
  template <class = void>
  void push_back(std::initializer_list<std::uint16_t> ids, const token_info& info = {}) {
    push_back(std::span<const std::uint16_t>(ids.begin(), ids.size()), info);
  }

  /// Tokens whose top-k at `layer` contains each expert: E counts summing to k·tokens().
  /// Throws `config_error` if `layer` is out of range.
  template <class = void>
  [[nodiscard]] std::vector<std::int64_t> histogram(int layer) const {
    detail::require(layer >= 0 && layer < layers_, "strata.trace", "layer", layer,
                    ("in [0, " + std::to_string(layers_) + ")").c_str());
    std::vector<std::int64_t> c(static_cast<std::size_t>(experts_), 0);
    const std::size_t stride = static_cast<std::size_t>(layers_) * static_cast<std::size_t>(k_);
    const std::size_t off = static_cast<std::size_t>(layer) * static_cast<std::size_t>(k_);
    for (std::size_t base = off; base < ids_.size(); base += stride) {
      for (int j = 0; j < k_; ++j) ++c[ids_[base + static_cast<std::size_t>(j)]];
    }
    return c;
  }

  /// `histogram(l)` for every layer, in one pass: result[l][e].
  template <class = void>
  [[nodiscard]] std::vector<std::vector<std::int64_t>> histograms() const {
    std::vector<std::vector<std::int64_t>> c(static_cast<std::size_t>(layers_),
                                             std::vector<std::int64_t>(static_cast<std::size_t>(experts_), 0));
    const std::size_t cell = static_cast<std::size_t>(k_);
    std::size_t i = 0;
    for (std::size_t t = 0; t < info_.size(); ++t) {
      for (auto& row : c) {
        for (std::size_t j = 0; j < cell; ++j) ++row[ids_[i + j]];
        i += cell;
      }
    }
    return c;
  }

  friend bool operator==(const routing_trace&, const routing_trace&) = default;

 private:
  friend struct detail::trace_access;
  int layers_ = 0;
  int experts_ = 0;
  int k_ = 0;
  std::vector<std::uint16_t> ids_;
  std::vector<token_info> info_;
  std::vector<std::string> topics_;
};

namespace detail {
struct trace_access {
  template <class = void>
  static std::vector<std::uint16_t>& ids(routing_trace& t) { return t.ids_; }
  template <class = void>
  static std::vector<token_info>& infos(routing_trace& t) { return t.info_; }
  template <class = void>
  static void set_k(routing_trace& t, int k) { t.k_ = k; }
  template <class = void>
  static void set_experts(routing_trace& t, int e) { t.experts_ = e; }
};

// True if two adjacent tokens belong to the same sequence (absent ids count as one sequence).
template <class = void>
inline bool same_sequence(const token_info& a, const token_info& b) noexcept { return a.seq == b.seq; }
}  // namespace detail

/// The one check before a trace is replayed for a model (every subcommand and library entry point
/// that does so calls it): the trace routes as `m` does — the model's MoE layers, its routed
/// experts per layer and its top-k. A trace of another routing width would give results for that
/// width under the model's name (a top-1 trace replayed for a top-6 model is top-1 routing), so it
/// is refused; no entry point reinterprets one. Throws `config_error(field)`
/// "[strata.trace] <source>: top-1 routing, but DeepSeek-V2-Lite routes top-6 ..." naming the
/// trace (`source`: its file, or what it is) and both values.
template <class = void>
inline void require_trace_of_model(const routing_trace& t, const model& m, std::string_view source,
                                   const std::string& field = "trace") {
  const auto fail = [&](const std::string& what) {
    throw config_error(field, "[strata.trace] " + std::string(source) + ": " + what);
  };
  if (m.experts <= 0) fail("a routing trace, but " + m.name + " has no routed experts");
  if (t.layers() != m.moe_layers()) {
    fail(std::to_string(t.layers()) + " MoE layers, but " + m.name + " has " + std::to_string(m.moe_layers()));
  }
  if (t.experts_per_layer() != m.experts) {
    fail(std::to_string(t.experts_per_layer()) + " experts per layer, but " + m.name + " has " +
         std::to_string(m.experts));
  }
  if (t.k() != m.top_k) {
    fail("top-" + std::to_string(t.k()) + " routing, but " + m.name + " routes top-" + std::to_string(m.top_k) +
         " (a trace's routing width must be the model's top-k)");
  }
}

/// Statistics of one MoE layer of a trace (definitions in the file comment).
struct trace_layer_stats {
  double hottest_share = 0.0;     ///< max_e c_e / (k·N), in [1/E, 1/k]
  double entropy = 0.0;           ///< −Σ p_e ln p_e / ln E, in [0, 1]
  double overlap = 0.0;           ///< mean |S_t ∩ S_{t+1}| / k over same-sequence pairs
  std::vector<double> coverage;   ///< coverage[m − 1] = share of activations on the m hottest experts

  friend bool operator==(const trace_layer_stats&, const trace_layer_stats&) = default;
};

/// Statistics of a trace: per layer, and the means over layers.
struct trace_stats {
  std::vector<trace_layer_stats> layers;  ///< one entry per MoE layer
  std::size_t tokens = 0;                 ///< N
  std::size_t pairs = 0;                  ///< adjacent same-sequence token pairs
  double hottest_share = 0.0;             ///< mean over layers of hottest_share
  double entropy = 0.0;                   ///< mean over layers of entropy
  double overlap = 0.0;                   ///< mean over layers of overlap

  friend bool operator==(const trace_stats&, const trace_stats&) = default;
};

/// Hottest share, entropy and top-m coverage of one layer from its expert counts (k·N = Σ c).
/// Zero counts give zeros (no NaN).
template <class = void>
inline trace_layer_stats layer_statistics(std::span<const std::int64_t> counts) {
  trace_layer_stats s;
  double total = 0.0;
  for (auto c : counts) total += static_cast<double>(c);
  s.coverage.assign(counts.size(), 0.0);
  if (total <= 0.0 || counts.empty()) return s;
  std::vector<std::int64_t> sorted(counts.begin(), counts.end());
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  double acc = 0.0;
  for (std::size_t m = 0; m < sorted.size(); ++m) {
    acc += static_cast<double>(sorted[m]);
    s.coverage[m] = acc / total;
  }
  s.hottest_share = static_cast<double>(sorted.front()) / total;
  if (counts.size() > 1) {
    double h = 0.0;
    for (auto c : counts) {
      if (c <= 0) continue;
      const double p = static_cast<double>(c) / total;
      h -= p * std::log(p);
    }
    s.entropy = h / std::log(static_cast<double>(counts.size()));
  }
  return s;
}

/// Per-layer and mean statistics of a trace (definitions in the file comment). O(N·L·k).
template <class = void>
inline trace_stats statistics(const routing_trace& t) {
  trace_stats r;
  r.tokens = t.tokens();
  const auto hist = t.histograms();
  r.layers.reserve(hist.size());
  for (const auto& h : hist) r.layers.push_back(layer_statistics(h));

  // Consecutive-token overlap: with E <= 64 each token's set is a 64-bit mask and the overlap
  // is a popcount; otherwise a k×k comparison (k is small).
  const auto L = static_cast<std::size_t>(t.layers());
  const int k = t.k();
  std::vector<std::int64_t> shared(L, 0);
  const auto infos = t.infos();
  for (std::size_t i = 0; i + 1 < infos.size(); ++i) {
    if (!detail::same_sequence(infos[i], infos[i + 1])) continue;
    ++r.pairs;
    for (std::size_t l = 0; l < L; ++l) {
      const auto a = t.experts(i, static_cast<int>(l));
      const auto b = t.experts(i + 1, static_cast<int>(l));
      if (t.experts_per_layer() <= 64) {
        std::uint64_t ma = 0, mb = 0;
        for (int j = 0; j < k; ++j) {
          ma |= std::uint64_t{1} << a[static_cast<std::size_t>(j)];
          mb |= std::uint64_t{1} << b[static_cast<std::size_t>(j)];
        }
        shared[l] += std::popcount(ma & mb);
      } else {
        for (auto x : a) shared[l] += std::find(b.begin(), b.end(), x) != b.end() ? 1 : 0;
      }
    }
  }
  for (std::size_t l = 0; l < L; ++l) {
    if (r.pairs > 0) {
      r.layers[l].overlap = static_cast<double>(shared[l]) / (static_cast<double>(r.pairs) * k);
    }
    r.hottest_share += r.layers[l].hottest_share / static_cast<double>(L);
    r.entropy += r.layers[l].entropy / static_cast<double>(L);
    r.overlap += r.layers[l].overlap / static_cast<double>(L);
  }
  return r;
}

/// How a decode batch is drawn from a trace: B concurrent requests, one token from each of B
/// different sequences (HCRMap Table 2's "512 active tokens" are 512 running sequences, each
/// decoding its next token), not B consecutive tokens of one document.
///
/// Sequences are the trace's `seq` ids (a trace without ids is one sequence), in order of first
/// appearance; a sequence's tokens are taken in `pos` order (file order where `pos` is absent),
/// and "position p" is its (p + 1)-th token.
/// - `position >= 0`: every sequence with more than `position` tokens is eligible and gives its
///   token at `position`; the batch takes the first B eligible sequences.
/// - `position < 0`: every sequence is eligible; B of them are drawn at random without
///   replacement and each gives the token at a random position, both from `seed` (splitmix64,
///   so the batch is the same on every platform).
/// - `step` advances every chosen sequence by that many tokens (wrapping within the sequence):
///   consecutive decode windows of the same running batch.
/// With fewer eligible sequences than B the trace is refused (`config_error` naming `batch`)
/// unless `allow_reuse`: then slot j takes sequence j mod N at its u-th next token (u = j div N),
/// and the result reports it (`max_per_sequence` > 1, `repeated_tokens`, `note`).
struct decode_batch_spec {
  int batch = 512;          ///< B sequences (HCRMap Table 2: 512 active tokens)
  int position = -1;        ///< token position in each sequence; < 0: random (seeded)
  std::uint64_t seed = 0;   ///< seed of the random sequences and positions
  int step = 0;             ///< decode steps since the batch's first window
  bool allow_reuse = false; ///< fewer sequences than B: reuse them (reported) instead of refusing

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("batch", s.batch);
    v("position", s.position);
    v("seed", s.seed);
    v("step", s.step);
    v("allow_reuse", s.allow_reuse);
  }
};

/// A decode batch drawn from a trace.
struct decode_batch {
  std::vector<std::size_t> tokens;  ///< trace token index of each of the B slots
  std::size_t sequences = 0;        ///< distinct sequences the batch touches
  std::size_t eligible = 0;         ///< sequences of the trace that could serve
  int max_per_sequence = 0;         ///< most slots one sequence fills (1: B distinct sequences)
  std::size_t repeated_tokens = 0;  ///< slots whose token already fills an earlier slot
  std::string note;                 ///< empty for B distinct sequences, else what was reused

  /// True when every slot is a different sequence.
  template <class = void>
  [[nodiscard]] bool concurrent() const noexcept { return max_per_sequence <= 1; }

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("tokens", s.tokens);
    v("sequences", s.sequences);
    v("eligible", s.eligible);
    v("max_per_sequence", s.max_per_sequence);
    v("repeated_tokens", s.repeated_tokens);
    v("note", s.note);
  }
};

namespace detail {
/// splitmix64 (Steele, Lea and Flood, OOPSLA 2014): a portable, seedable 64-bit generator.
struct splitmix64 {
  std::uint64_t state;
  template <class = void>
  std::uint64_t next() noexcept {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, n) (n ≥ 1); the modulo bias is below n / 2^64.
  template <class = void>
  std::size_t below(std::size_t n) noexcept { return static_cast<std::size_t>(next() % n); }
};

/// Token indices of each sequence in position order; sequences in order of first appearance.
/// O(n log n) in the trace's tokens: the tokens are sorted by (sequence id, index), each run of
/// one id is a sequence, and the sequences are ordered by their first token.
template <class = void>
inline std::vector<std::vector<std::size_t>> sequences_of(const routing_trace& t) {
  std::vector<std::pair<std::int32_t, std::size_t>> by_id(t.tokens());  // (seq id, token), sorted
  for (std::size_t i = 0; i < by_id.size(); ++i) by_id[i] = {t.info(i).seq, i};
  std::sort(by_id.begin(), by_id.end());
  std::vector<std::pair<std::size_t, std::size_t>> runs;  // [begin, end) of each id in by_id
  for (std::size_t b = 0; b < by_id.size();) {
    std::size_t e = b + 1;
    while (e < by_id.size() && by_id[e].first == by_id[b].first) ++e;
    runs.emplace_back(b, e);
    b = e;
  }
  // First appearance order: a run's first token is its smallest index.
  std::sort(runs.begin(), runs.end(), [&](const auto& a, const auto& b) { return by_id[a.first].second < by_id[b.first].second; });
  std::vector<std::vector<std::size_t>> seqs(runs.size());
  for (std::size_t s = 0; s < runs.size(); ++s) {
    auto& seq = seqs[s];
    seq.reserve(runs[s].second - runs[s].first);
    for (std::size_t j = runs[s].first; j < runs[s].second; ++j) seq.push_back(by_id[j].second);
    const auto by_pos = [&](std::size_t a, std::size_t b) { return t.info(a).pos < t.info(b).pos; };
    if (!std::is_sorted(seq.begin(), seq.end(), by_pos)) std::stable_sort(seq.begin(), seq.end(), by_pos);
  }
  return seqs;
}
}  // namespace detail

/// Draws a decode batch from `trace` (rules in `decode_batch_spec`). Throws `config_error` for an
/// empty trace, `batch` < 1, `step` < 0, or fewer eligible sequences than `batch` without
/// `allow_reuse`.
template <class = void>
inline decode_batch select_decode_batch(const routing_trace& trace, const decode_batch_spec& spec) {
  constexpr const char* id = "strata.decode_batch";
  detail::require(!trace.empty(), id, "trace", trace.tokens(), "non-empty");
  detail::require(spec.batch >= 1, id, "batch", spec.batch, ">= 1");
  detail::require(spec.step >= 0, id, "step", spec.step, ">= 0");
  const auto seqs = detail::sequences_of(trace);
  std::vector<std::size_t> eligible;
  for (std::size_t s = 0; s < seqs.size(); ++s) {
    if (spec.position < 0 || seqs[s].size() > static_cast<std::size_t>(spec.position)) eligible.push_back(s);
  }
  decode_batch out;
  out.eligible = eligible.size();
  const auto want = static_cast<std::size_t>(spec.batch);
  if (eligible.size() < want && !spec.allow_reuse) {
    const std::string where = spec.position < 0 ? std::string("sequences")
                                                : "sequences with a token at position " + std::to_string(spec.position);
    detail::require(false, id, "batch", spec.batch,
                    ("<= the trace's " + std::to_string(eligible.size()) + " " + where +
                     " (one token per concurrent sequence; set allow_reuse to take several tokens per sequence)")
                        .c_str());
  }
  if (eligible.empty()) {
    std::size_t longest = 0;
    for (const auto& s : seqs) longest = std::max(longest, s.size());
    detail::require(false, id, "position", spec.position,
                    ("below the longest sequence's length (" + std::to_string(longest) + ")").c_str());
  }
  detail::splitmix64 rng{spec.seed};
  if (spec.position < 0) {
    // Partial Fisher–Yates: a random order of the sequences, seeded.
    for (std::size_t i = 0; i + 1 < eligible.size() && i < want; ++i) {
      std::swap(eligible[i], eligible[i + rng.below(eligible.size() - i)]);
    }
  }
  const std::size_t n = std::min(want, eligible.size());
  std::vector<std::size_t> base(n);
  for (std::size_t j = 0; j < n; ++j) {
    const auto len = seqs[eligible[j]].size();
    base[j] = spec.position < 0 ? rng.below(len) : static_cast<std::size_t>(spec.position);
  }
  out.tokens.resize(want);
  std::vector<std::size_t> seen;
  seen.reserve(want);
  for (std::size_t j = 0; j < want; ++j) {
    const std::size_t slot = j % n, use = j / n;
    const auto& seq = seqs[eligible[slot]];
    out.tokens[j] = seq[(base[slot] + static_cast<std::size_t>(spec.step) + use) % seq.size()];
    seen.push_back(out.tokens[j]);
  }
  std::sort(seen.begin(), seen.end());
  out.repeated_tokens = want - static_cast<std::size_t>(std::unique(seen.begin(), seen.end()) - seen.begin());
  out.sequences = n;
  out.max_per_sequence = static_cast<int>((want + n - 1) / n);
  if (out.max_per_sequence > 1) {
    out.note = "the trace has " + std::to_string(eligible.size()) + " eligible sequences for a batch of " +
               std::to_string(want) + ": up to " + std::to_string(out.max_per_sequence) +
               " tokens per sequence, " + std::to_string(out.repeated_tokens) + " repeated tokens";
  }
  return out;
}

}  // namespace v0
}  // namespace strata
