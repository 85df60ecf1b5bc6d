// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The topic classifier of the serving system (Stratum §5.1, §6): the host labels each request
/// with one of the topics before it is queued. strata models the classifier by its accuracy (or a
/// full confusion matrix) and its latency; it does not train one. A real classifier plugs in as
/// any callable request → topic (`topic_hook`).
///
/// Labels. With a confusion matrix C (row t: P(label = ℓ | true topic t), rows summing to 1) a
/// request of true topic t gets label ℓ with probability C[t][ℓ]; with an accuracy a alone,
/// C[t][t] = a and C[t][ℓ] = (1 − a)/(T − 1) for ℓ ≠ t. A misclassified request is batched and
/// placed by the wrong topic's usage table (the memory mapper sees only labels) while its tokens
/// route by its true topic.
///
/// What the mapper should expect of a label (closed form, templated on the scalar for autodiff):
/// Bayes' rule with the topic mix π gives P(true = t | label = ℓ) = π_t C[t][ℓ] / Σ_s π_s C[s][ℓ]
/// (`label_posterior`).
///
/// Latency. The paper's classifier is DistilBERT (67 M parameters, 6 topics) at < 10 ms per
/// inference. strata times it as a forward pass of DistilBERT (6 layers, d = 768, 12 heads,
/// FFN 3072, GELU, vocabulary 30 522; Sanh et al. 2019) over min(prompt, 512) tokens on the xPU's
/// roofline (`classifier_latency`), unless `latency` is given. With `on_device` the pass runs on
/// the serving xPU, so its time is charged to the device's timeline before the next step (its
/// share of step time is a result); otherwise it only delays the request.
///
/// \code
/// auto c = strata::mmlu_classifier();               // 94.5 %
/// auto C = strata::confusion_matrix(c, 6);          // 6 x 6, rows sum to 1
/// \endcode

#include <cmath>       // std::isfinite, std::abs
#include <cstddef>     // std::size_t
#include <functional>  // std::function
#include <string>      // std::string, std::to_string
#include <vector>      // std::vector

#include "strata/core/error.hpp"
#include "strata/core/rng.hpp"
#include "strata/core/units.hpp"
#include "strata/serving/requests.hpp"
#include "strata/tech/bounds.hpp"
#include "strata/workload/model.hpp"
#include "strata/workload/operators.hpp"
#include "strata/workload/roofline.hpp"

namespace strata {
inline namespace v0 {

/// A request → topic callable: a real classifier in place of the modelled one.
using topic_hook = std::function<int(const request&)>;

/// The classifier model (file comment). Defaults: the paper's MMLU figures.
template <class T = double>
struct classifier_params {
  /// P(label = true topic). [Stratum §5.1: 94.5 % on the MMLU test set]
  T accuracy = T(0.945);
  /// Full confusion matrix, row t = P(label | true t); empty: `accuracy` with uniform errors.
  std::vector<std::vector<double>> confusion;
  /// Latency per request; 0: DistilBERT on the xPU by the roofline (`classifier_latency`).
  /// [Stratum §5.1: < 10 ms per inference]
  strata::duration<T> latency{};
  /// Tokens the classifier reads: min(prompt, max_tokens). [DistilBERT: 512 positions]
  int max_tokens = 512;
  /// The classifier runs on the serving xPU (its time is charged to the device). [Stratum §6:
  /// the host runs the classifier; charging the device is the conservative reading]
  bool on_device = true;
  /// Seed of the label draws.
  std::uint64_t seed = 7;

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("accuracy", s.accuracy);
    v("confusion", s.confusion);
    v("latency", s.latency);
    v("max_tokens", s.max_tokens);
    v("on_device", s.on_device);
    v("seed", s.seed);
  }
  friend bool operator==(const classifier_params&, const classifier_params&) = default;
};

/// 94.5 % accuracy. [Stratum §5.1: MMLU test set]
template <class = void>
inline classifier_params<> mmlu_classifier() { return {}; }
/// 85.0 % accuracy. [Stratum §5.1: Chatbot Arena conversations]
template <class = void>
inline classifier_params<> chatbot_arena_classifier() {
  classifier_params<> c;
  c.accuracy = 0.85;
  return c;
}
/// Every label right.
template <class = void>
inline classifier_params<> perfect_classifier() {
  classifier_params<> c;
  c.accuracy = 1.0;
  return c;
}

/// Checks the classifier for `topics` topics; throws `config_error` naming the field (prefixed by `at`).
template <class T>
void validate(const classifier_params<T>& p, int topics, const std::string& at = {}) {
  constexpr const char* m = "strata.classifier";
  detail::require_in(p.accuracy, 0.0, 1.0, m, detail::at_field(at, "accuracy"));
  detail::require_range(p.latency.si(), 0.0, 10.0, m, detail::at_field(at, "latency"), "s");
  detail::require_count(p.max_tokens, 1, 1 << 16, m, detail::at_field(at, "max_tokens"));
  if (p.confusion.empty()) return;
  const std::string f = detail::at_field(at, "confusion");
  detail::require(p.confusion.size() == static_cast<std::size_t>(topics), m, f, p.confusion.size(),
                  ("one row per topic (" + std::to_string(topics) + ")").c_str());
  for (std::size_t t = 0; t < p.confusion.size(); ++t) {
    const std::string fr = f + "[" + std::to_string(t) + "]";
    detail::require(p.confusion[t].size() == static_cast<std::size_t>(topics), m, fr, p.confusion[t].size(),
                    ("one entry per topic (" + std::to_string(topics) + ")").c_str());
    double s = 0.0;
    for (std::size_t l = 0; l < p.confusion[t].size(); ++l) {
      detail::require_in(p.confusion[t][l], 0.0, 1.0, m, fr + "[" + std::to_string(l) + "]");
      s += p.confusion[t][l];
    }
    detail::require(std::abs(s - 1.0) <= 1e-6, m, fr, s, "a row summing to 1");
  }
}

/// P(label = ℓ | true = t), T × T (file comment).
template <class T>
std::vector<std::vector<T>> confusion_matrix(const classifier_params<T>& p, int topics) {
  validate(p, topics);
  std::vector<std::vector<T>> c(static_cast<std::size_t>(topics), std::vector<T>(static_cast<std::size_t>(topics)));
  for (int t = 0; t < topics; ++t) {
    for (int l = 0; l < topics; ++l) {
      const auto ts = static_cast<std::size_t>(t), ls = static_cast<std::size_t>(l);
      if (!p.confusion.empty()) c[ts][ls] = T(p.confusion[ts][ls]);
      else if (topics == 1) c[ts][ls] = T(1);
      else c[ts][ls] = t == l ? p.accuracy : (T(1) - p.accuracy) / T(double(topics - 1));
    }
  }
  return c;
}

/// P(true = t | label = ℓ) = π_t C[t][ℓ] / Σ_s π_s C[s][ℓ], indexed [ℓ][t]; a label no topic
/// produces gets the prior. `prior` is the topic mix (≥ 0, positive sum).
template <class T>
std::vector<std::vector<T>> label_posterior(const std::vector<std::vector<T>>& confusion, const std::vector<T>& prior) {
  constexpr const char* m = "strata.classifier";
  const std::size_t n = confusion.size();
  detail::require(n >= 1 && prior.size() == n, m, "prior", prior.size(), "one weight per row of the confusion matrix");
  T psum = T(0);
  for (const auto& w : prior) psum += w;
  detail::require(value_of(psum) > 0.0, m, "prior", value_of(psum), "a positive sum");
  std::vector<std::vector<T>> post(n, std::vector<T>(n));
  for (std::size_t l = 0; l < n; ++l) {
    T z = T(0);
    for (std::size_t t = 0; t < n; ++t) z += prior[t] * confusion[t][l];
    for (std::size_t t = 0; t < n; ++t) post[l][t] = value_of(z) > 0.0 ? prior[t] * confusion[t][l] / z : prior[t] / psum;
  }
  return post;
}

/// Draws the label of a request of true topic `topic` from row `topic` of `cdf` (cumulative rows
/// of the confusion matrix).
template <class = void>
inline int draw_label(const std::vector<std::vector<double>>& cdf, int topic, detail::portable_rng& g) {
  return detail::draw_from_cdf(cdf[static_cast<std::size_t>(topic)], g);
}

/// Cumulative rows of the confusion matrix (for `draw_label`).
template <class = void>
inline std::vector<std::vector<double>> confusion_cdf(const classifier_params<>& p, int topics) {
  auto c = confusion_matrix(p, topics);
  for (auto& row : c) {
    double s = 0.0;
    for (auto& x : row) {
      s += x;
      x = s;
    }
    for (auto& x : row) x /= s;
    row.back() = 1.0;
  }
  return c;
}

/// DistilBERT-base as a dense model description (Sanh et al., "DistilBERT", 2019; the
/// distilbert-base-uncased config.json: 6 layers, dim 768, 12 heads, hidden_dim 3072, GELU,
/// vocab 30 522). Its ≈ 66 M parameters are the paper's 67 M (Stratum §5.1).
template <class = void>
inline model distilbert() {
  model m;
  m.name = "DistilBERT";
  m.family = "distilbert";
  m.layers = 6;
  m.hidden = 768;
  m.heads = 12;
  m.kv_heads = 12;
  m.head_dim = 64;
  m.vocab = 30522;
  m.tie_embeddings = true;
  m.qkv_bias = true;
  m.ffn = ffn_kind::gelu;
  m.dense_ffn = 3072;
  return m;
}

/// Latency of one classification of a `prompt`-token request on `xpu`: `p.latency` if given,
/// else a DistilBERT forward pass over min(prompt, max_tokens) tokens on the roofline.
template <class T>
strata::duration<T> classifier_latency(const classifier_params<T>& p, const roofline_machine& xpu, int prompt) {
  if (p.latency.si() > 0.0) return p.latency;
  detail::require_count(prompt, 1, serving_limits().tokens, "strata.classifier", "prompt");
  const int n = prompt < p.max_tokens ? prompt : p.max_tokens;
  static const model bert = distilbert();
  const step_shape s{.mode = phase::prefill, .batch = 1, .context = n};
  const auto r = evaluate(step_operators(bert, s), s, bert.hidden, xpu);
  return strata::duration<T>::from_si(T(r.time.si()));
}

}  // namespace v0
}  // namespace strata
