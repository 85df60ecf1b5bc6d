// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Expert usage tables for placement (Stratum §5.1, §5.2, §6): f[layer][expert] is the
/// per-token probability that a top-A router chooses the expert, so Σ_e f[l][e] = A.
///
/// - From profiled counts (`workload/trace_io.hpp`, `expert_counts`): a count table holds, per
///   saved layer, counts[e] = tokens routed to expert e (over all top-k slots for a "topk<k>"
///   series, the argmax only for "top1") out of `tokens` tokens, so f = count / tokens and
///   Σ_e f = k. `usage_from_counts` gives one topic; the weighted form aggregates a topic mix,
///   f = Σ_t w_t f_t / Σ_t w_t (the memory mapper's hit prediction for a batch, §6). The count
///   files save a few layers (OLMoE and Mixtral: layers 0, 7, 15); with `model_layers` > 0 each
///   model layer l takes the saved layer whose number is nearest to l (the lower on a tie).
/// - From a hit rate h (the paper's aggregated hit rates with topic prediction, Stratum §6.3):
///   `usage_from_hit_rate(L, E, A, h)` gives, in every layer, the A experts
///   (offset + j) mod E, j < A, the probability f = h each (each takes h/A of the layer's
///   accesses) and the other E − A experts f = A·(1 − h)/(E − A) each. Then Σ_e f = A, the hot
///   set is exactly what Algorithm 1 packs from row 0 (h ≥ A/E makes it the hottest; ties are
///   broken by the expert order), and `hot_hit_rate` of that layout is h.
/// - `uniform_usage(L, E, A)`: f = A/E everywhere (no prediction).

#include <cmath>    // std::isfinite
#include <cstddef>  // std::size_t
#include <cstdlib>  // std::llabs
#include <string>   // std::string, std::to_string
#include <vector>   // std::vector

#include "strata/core/error.hpp"
#include "strata/core/limits.hpp"
#include "strata/stratum/placement.hpp"
#include "strata/tech/bounds.hpp"
#include "strata/workload/expert_counts.hpp"
#include "strata/workload/model.hpp"

namespace strata {
inline namespace v0 {

namespace detail {

template <class = void>
inline void require_usage_shape(int layers, int experts, int active) {
  constexpr const char* m = "strata.usage";
  require_count(layers, 1, limits().layers, m, "layers");
  require_count(experts, 1, limits().experts, m, "experts");
  require_count(active, 1, experts, m, "active");
  require(static_cast<long long>(layers) * experts <= limits().table_cells, m, "layers * experts",
          static_cast<long long>(layers) * experts, "at most limits().table_cells");
}

}  // namespace detail

/// f = A/E for every expert of every layer.
template <class = void>
inline usage_table uniform_usage(int layers, int experts, int active) {
  detail::require_usage_shape(layers, experts, active);
  usage_table f(static_cast<std::size_t>(layers),
                std::vector<double>(static_cast<std::size_t>(experts),
                                    static_cast<double>(active) / static_cast<double>(experts)));
  return f;
}

namespace detail {
template <class T = double>
usage_table make_usage_from_hit_rate(int layers, int experts, int active, double h, int hot_offset);
}  // namespace detail
/// The table with hot share `h` (see the file comment): in each layer experts (hot_offset + j) mod E,
/// j < A, get f = h, the rest A·(1 − h)/(E − A). Requires h in [A/E, 1] (`config_error` "h"
/// otherwise; with A = E only h = 1).
template <class = void>
inline usage_table usage_from_hit_rate(int layers, int experts, int active, double h, int hot_offset = 0) {
  return detail::make_usage_from_hit_rate<>(layers, experts, active, h, hot_offset);
}
/// The same for model `m`: its MoE layers, routed experts and `top_k` active experts per token.
template <class = void>
inline usage_table usage_from_hit_rate(const model& m, double h, int hot_offset = 0) {
  return usage_from_hit_rate(m.moe_layers(), m.experts, m.top_k, h, hot_offset);
}
// The body is a function template (of a scalar it does not use) so that strata::compiled can hold
// its one instantiation: a consumer built with STRATA_COMPILED=1 compiles none of it.
template <class T>
usage_table detail::make_usage_from_hit_rate(int layers, int experts, int active, double h, int hot_offset) {
  detail::require_usage_shape(layers, experts, active);
  const double lo = static_cast<double>(active) / static_cast<double>(experts);
  if (!(std::isfinite(h) && h >= lo * (1.0 - 1e-12) && h <= 1.0)) {
    detail::require(false, "strata.usage", "h", h, ("in [A/E, 1] = [" + detail::to_text(lo) + ", 1]").c_str());
  }
  detail::require(hot_offset >= 0, "strata.usage", "hot_offset", hot_offset, ">= 0");
  const double cold = experts > active ? static_cast<double>(active) * (1.0 - h) / (experts - active) : 0.0;
  usage_table f(static_cast<std::size_t>(layers), std::vector<double>(static_cast<std::size_t>(experts), cold));
  for (auto& row : f) {
    for (int j = 0; j < active; ++j) row[static_cast<std::size_t>((hot_offset % experts + j) % experts)] = h;
  }
  return f;
}

namespace detail {

/// Index into c.layers of the saved layer nearest to model layer l (lower number on a tie).
template <class = void>
inline std::size_t nearest_saved_layer(const expert_counts& c, int l) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < c.layers.size(); ++i) {
    if (std::llabs(static_cast<long long>(c.layers[i].layer) - l) <
        std::llabs(static_cast<long long>(c.layers[best].layer) - l)) {
      best = i;
    }
  }
  return best;
}

template <class = void>
inline void require_series(const expert_counts& c, const std::string& f) {
  constexpr const char* m = "strata.usage";
  require(!c.layers.empty(), m, f + ".layers", 0, "at least one saved layer");
  require_count(c.experts, 1, limits().experts, m, f + ".experts");
  for (std::size_t i = 0; i < c.layers.size(); ++i) {
    const auto& l = c.layers[i];
    const std::string fl = f + ".layers[" + std::to_string(i) + "]";
    require(l.tokens > 0, m, fl + ".tokens", l.tokens, "> 0");
    require(l.counts.size() == static_cast<std::size_t>(c.experts), m, fl + ".counts", l.counts.size(),
            (std::to_string(c.experts) + " experts").c_str());
    for (const auto n : l.counts) require(n >= 0 && n <= l.tokens, m, fl + ".counts", n, "in [0, tokens]");
  }
}

}  // namespace detail

/// f[l][e] = count / tokens of one series. With `model_layers` = 0 the table has the series'
/// saved layers (ascending layer number); with `model_layers` = L > 0 it has L layers, each the
/// nearest saved layer (see the file comment).
template <class = void>
inline usage_table usage_from_counts(const expert_counts& c, int model_layers = 0) {
  detail::require_series(c, "counts");
  detail::require_count(model_layers, 0, limits().layers, "strata.usage", "model_layers");
  const int n = model_layers > 0 ? model_layers : static_cast<int>(c.layers.size());
  detail::require(static_cast<long long>(n) * c.experts <= limits().table_cells, "strata.usage",
                  "model_layers * experts", static_cast<long long>(n) * c.experts, "at most limits().table_cells");
  usage_table f(static_cast<std::size_t>(n));
  for (int l = 0; l < n; ++l) {
    const auto& src = c.layers[model_layers > 0 ? detail::nearest_saved_layer(c, l) : static_cast<std::size_t>(l)];
    auto& row = f[static_cast<std::size_t>(l)];
    row.resize(static_cast<std::size_t>(c.experts));
    for (std::size_t e = 0; e < row.size(); ++e) {
      row[e] = static_cast<double>(src.counts[e]) / static_cast<double>(src.tokens);
    }
  }
  return f;
}

/// The topic mix f = Σ_t w_t f_t / Σ_t w_t of several series (same experts, k and saved layers;
/// `config_error` naming `series[t]` or `weights` otherwise). Weights are ≥ 0 with a positive sum.
template <class = void>
inline usage_table usage_from_counts(const std::vector<const expert_counts*>& series,
                                     const std::vector<double>& weights, int model_layers = 0) {
  constexpr const char* m = "strata.usage";
  detail::require(!series.empty(), m, "series", 0, "at least one series");
  detail::require(weights.size() == series.size(), m, "weights", weights.size(),
                  ("one per series (" + std::to_string(series.size()) + ")").c_str());
  double wsum = 0.0;
  for (std::size_t t = 0; t < weights.size(); ++t) {
    const double w = weights[t];
    if (!(std::isfinite(w) && w >= 0.0)) {
      detail::require(false, m, "weights[" + std::to_string(t) + "]", w, "a finite value >= 0");
    }
    wsum += w;
  }
  detail::require(wsum > 0.0, m, "weights", wsum, "a positive sum");
  const expert_counts* first = series.front();
  detail::require(first != nullptr, m, "series[0]", "null", "a series");
  usage_table out;
  for (std::size_t t = 0; t < series.size(); ++t) {
    const std::string f = "series[" + std::to_string(t) + "]";
    const expert_counts* s = series[t];
    detail::require(s != nullptr, m, f, "null", "a series");
    detail::require(s->experts == first->experts, m, f + ".experts", s->experts,
                    ("the first series' " + std::to_string(first->experts)).c_str());
    detail::require(s->k == first->k, m, f + ".k", s->k, ("the first series' " + std::to_string(first->k)).c_str());
    detail::require(s->layers.size() == first->layers.size(), m, f + ".layers", s->layers.size(),
                    ("the first series' " + std::to_string(first->layers.size()) + " layers").c_str());
    for (std::size_t i = 0; i < s->layers.size(); ++i) {
      detail::require(s->layers[i].layer == first->layers[i].layer, m, f + ".layers[" + std::to_string(i) + "].layer",
                      s->layers[i].layer, ("the first series' layer " + std::to_string(first->layers[i].layer)).c_str());
    }
    const usage_table ft = usage_from_counts(*s, model_layers);
    if (out.empty()) out.assign(ft.size(), std::vector<double>(ft.front().size(), 0.0));
    const double w = weights[t] / wsum;
    for (std::size_t l = 0; l < ft.size(); ++l) {
      for (std::size_t e = 0; e < ft[l].size(); ++e) out[l][e] += w * ft[l][e];
    }
  }
  return out;
}

}  // namespace v0
}  // namespace strata

// strata::compiled (STRATA_BUILD_COMPILED, src/compiled.cpp) holds the instantiation below;
// STRATA_COMPILED=1, which that target puts on its users, keeps their translation units from
// instantiating it again. Without it this header is unchanged (header-only).
#if defined(STRATA_COMPILED) && STRATA_COMPILED
namespace strata {
inline namespace v0 {
extern template usage_table detail::make_usage_from_hit_rate<double>(int, int, int, double, int);
}  // namespace v0
}  // namespace strata
#endif
