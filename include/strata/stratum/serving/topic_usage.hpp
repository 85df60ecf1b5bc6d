// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Per-topic expert usage for the serving system's memory mapper (Stratum §5.1, §6): one usage
/// table f_t[layer][expert] per topic, the mapper's prediction for a batch, the layout
/// Algorithm 1 makes from it and the hot-hit rate a routing achieves on a layout.
///
/// - From real count tables (`workload/trace_io.hpp`; OLMoE and Mixtral by domain, DeepSeek-V2-Lite
///   by task): topic t's table is `usage_from_counts` of the (model, checkpoint, t, selection)
///   series, stretched to the model's MoE layers (the nearest saved layer; `stratum/usage.hpp`).
///   A topic without a series is a `config_error` naming `topics[i]`.
/// - From a routing trace with topic labels, e.g. the synthetic generator's (`trace_gen.hpp`) for
///   models without data: f_t[l][e] = tokens of topic t whose top-k at layer l holds e / tokens of
///   topic t.
/// - Mixing: the prediction for a batch whose labels have weights w is
///   f = Σ_t w_t f_t / Σ_t w_t (`mix_usage`, templated on the scalar: ∂f/∂w_t = (f_t − f)/Σw).
/// - Hot-hit rate of a routing table r on a placement: h = Σ_{l,e} r[l][e]·fast(l, e) / Σ r, with
///   fast(l, e) whether Algorithm 1 put expert e of layer l in the fast pack of its stage (the
///   same sum `evaluate_decode` reports). With r = f_t on the layout placed by f_t this is the
///   table's own hit rate: the share of its usage mass in its L·A hottest experts.

#include <cstddef>      // std::size_t
#include <map>          // std::map (series by topic)
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::move
#include <vector>       // std::vector

#include "strata/core/error.hpp"
#include "strata/core/scalar.hpp"
#include "strata/stratum/placement.hpp"
#include "strata/serving/requests.hpp"  // detail::at_field
#include "strata/stratum/system.hpp"
#include "strata/stratum/usage.hpp"
#include "strata/workload/model.hpp"
#include "strata/workload/trace.hpp"
#include "strata/workload/trace_io.hpp"

namespace strata {
inline namespace v0 {

/// One usage table per topic, same shape (MoE layers × experts).
struct topic_tables {
  std::vector<std::string> topics;
  std::vector<usage_table> tables;
};

/// Per-topic tables from a count file (file comment) for a model of `moe_layers` MoE layers.
/// `selection` names the series ("topk2", "topk8", "topk6"); `checkpoint` empty matches any
/// single checkpoint. Linear in the table's series plus T log T for T topics.
template <class = void>
inline topic_tables topic_usage_from_counts(const expert_count_table& counts, std::string_view counts_model,
                                            std::string_view selection, std::string_view checkpoint,
                                            const std::vector<std::string>& topics, int moe_layers,
                                            const std::string& at = {}) {
  constexpr const char* m = "strata.topic_usage";
  detail::require(!topics.empty(), m, detail::at_field(at, "topics"), 0, "at least one topic");
  // One pass over the series (linear in the table, then a lookup per topic): the series of
  // (model, selection) by topic, the last one of the checkpoint and how many match it.
  struct match {
    const expert_counts* hit = nullptr;
    int n = 0;
  };
  std::map<std::string_view, match> by_topic;
  std::string have;  // the topics of (model, selection), in table order, for the message
  for (const auto& s : counts.series) {
    if (s.key.model != counts_model || s.key.selection != selection) continue;
    const auto [it, fresh] = by_topic.try_emplace(s.key.topic);
    if (fresh) have += (have.empty() ? "" : ", ") + s.key.topic;
    if (checkpoint.empty() || s.key.checkpoint == checkpoint) {
      it->second.hit = &s;
      ++it->second.n;
    }
  }
  topic_tables out;
  out.topics = topics;
  out.tables.reserve(topics.size());
  for (std::size_t i = 0; i < topics.size(); ++i) {
    const auto it = by_topic.find(topics[i]);
    const int n = it == by_topic.end() ? 0 : it->second.n;
    const std::string f = detail::at_field(at, "topics") + "[" + std::to_string(i) + "]";
    if (n != 1) {
      throw config_error(f, "[" + std::string(m) + "] " + f + " '" + topics[i] + "': " +
                                (n == 0 ? "unknown topic: " + std::string(counts_model) + "/" + std::string(selection) +
                                              " has counts for " + (have.empty() ? std::string("no topic") : have)
                                        : std::string("several checkpoints match; give one")));
    }
    out.tables.push_back(usage_from_counts(*it->second.hit, moe_layers));
  }
  return out;
}

/// The same for model `m` (its MoE layers).
template <class = void>
inline topic_tables topic_usage_from_counts(const expert_count_table& counts, std::string_view counts_model,
                                            std::string_view selection, std::string_view checkpoint,
                                            const std::vector<std::string>& topics, const model& m,
                                            const std::string& at = {}) {
  return topic_usage_from_counts(counts, counts_model, selection, checkpoint, topics, m.moe_layers(), at);
}

/// Per-topic tables counted from a labelled trace (file comment); topics without tokens are a
/// `config_error` naming the topic.
template <class = void>
inline topic_tables topic_usage_from_trace(const routing_trace& t) {
  constexpr const char* m = "strata.topic_usage";
  detail::require(!t.empty(), m, "trace", 0, "a trace with tokens");
  const int topics = t.topic_names().empty() ? 1 : static_cast<int>(t.topic_names().size());
  const auto L = static_cast<std::size_t>(t.layers()), E = static_cast<std::size_t>(t.experts_per_layer());
  std::vector<usage_table> f(static_cast<std::size_t>(topics), usage_table(L, std::vector<double>(E, 0.0)));
  std::vector<double> n(static_cast<std::size_t>(topics), 0.0);
  for (std::size_t i = 0; i < t.tokens(); ++i) {
    const int tp = t.info(i).topic < 0 ? 0 : t.info(i).topic;
    auto& ft = f[static_cast<std::size_t>(tp)];
    n[static_cast<std::size_t>(tp)] += 1.0;
    for (std::size_t l = 0; l < L; ++l) {
      for (auto e : t.experts(i, static_cast<int>(l))) ft[l][e] += 1.0;
    }
  }
  topic_tables out;
  for (int k = 0; k < topics; ++k) {
    const std::string name = t.topic_names().empty() ? std::string("topic0") : t.topic_names()[static_cast<std::size_t>(k)];
    detail::require(n[static_cast<std::size_t>(k)] > 0.0, m, "topic " + name, 0, "at least one token");
    for (auto& row : f[static_cast<std::size_t>(k)]) {
      for (auto& x : row) x /= n[static_cast<std::size_t>(k)];
    }
    out.topics.push_back(name);
  }
  out.tables = std::move(f);
  return out;
}

/// f = Σ_t w_t f_t / Σ_t w_t (file comment); weights ≥ 0 with a positive sum.
template <class T>
std::vector<std::vector<T>> mix_usage(const std::vector<usage_table>& tables, const std::vector<T>& w) {
  constexpr const char* m = "strata.topic_usage";
  detail::require(!tables.empty() && w.size() == tables.size(), m, "weights", w.size(), "one per table");
  T sum = T(0);
  for (std::size_t t = 0; t < w.size(); ++t) {
    detail::require(value_of(w[t]) >= 0.0, m, "weights[" + std::to_string(t) + "]", value_of(w[t]), ">= 0");
    sum += w[t];
  }
  detail::require(value_of(sum) > 0.0, m, "weights", value_of(sum), "a positive sum");
  const auto& f0 = tables.front();
  std::vector<std::vector<T>> out(f0.size(), std::vector<T>(f0.empty() ? 0 : f0.front().size(), T(0)));
  for (std::size_t t = 0; t < tables.size(); ++t) {
    detail::require(tables[t].size() == f0.size(), m, "tables[" + std::to_string(t) + "]", tables[t].size(),
                    "the first table's layers");
    if (value_of(w[t]) == 0.0) continue;
    const T k = w[t] / sum;
    for (std::size_t l = 0; l < f0.size(); ++l) {
      detail::require(tables[t][l].size() == out[l].size(), m, "tables[" + std::to_string(t) + "]",
                      tables[t][l].size(), "the first table's experts");
      for (std::size_t e = 0; e < out[l].size(); ++e) out[l][e] += k * tables[t][l][e];
    }
  }
  return out;
}

/// Whether expert e of MoE layer l is in a fast pack, as a flat mask [l · E + e] over all MoE
/// layers of all stages of a placement (an infeasible stage layout marks nothing fast).
template <class = void>
inline std::vector<unsigned char> fast_mask(const stratum_placement& p, int moe_layers, int experts) {
  std::vector<unsigned char> mask(static_cast<std::size_t>(moe_layers) * static_cast<std::size_t>(experts), 0);
  for (const auto& st : p.stages) {
    if (!st.layout.feasible || !st.plan.feasible) continue;
    for (int li = 0; li < st.moe_layers; ++li) {
      for (int e = 0; e < experts; ++e) {
        if (st.layout.is_fast(li, e)) {
          mask[static_cast<std::size_t>(st.moe_first + li) * static_cast<std::size_t>(experts) + static_cast<std::size_t>(e)] = 1;
        }
      }
    }
  }
  return mask;
}

/// h = Σ r·fast / Σ r of routing table `r` on `mask` (file comment).
template <class T>
T hot_hit_rate(const std::vector<std::vector<T>>& r, const std::vector<unsigned char>& mask) {
  T num = T(0), den = T(0);
  std::size_t i = 0;
  for (const auto& row : r) {
    for (const auto& x : row) {
      if (i < mask.size() && mask[i] != 0) num += x;
      den += x;
      ++i;
    }
  }
  detail::require(i == mask.size(), "strata.topic_usage", "mask", mask.size(), "one entry per table cell");
  return value_of(den) > 0.0 ? num / den : T(0);
}

/// Share of a token's expert picks (all MoE layers, all k slots) that are in the fast packs.
template <class = void>
inline double token_hot_hit(const routing_trace& t, std::size_t token, const std::vector<unsigned char>& mask) {
  const int L = t.layers(), E = t.experts_per_layer();
  double hits = 0.0;
  for (int l = 0; l < L; ++l) {
    for (auto e : t.experts(token, l)) {
      hits += mask[static_cast<std::size_t>(l) * static_cast<std::size_t>(E) + e] != 0 ? 1.0 : 0.0;
    }
  }
  return hits / (static_cast<double>(L) * t.k());
}

}  // namespace v0
}  // namespace strata
