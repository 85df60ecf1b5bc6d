// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The gap explainer's results as JSON (`strata-eval explain --json`, docs/cli.md):
///
/// \code{.json}
///   {"id": "...", "family": "stratum results", "value": 12.69, "paper": 8.29, "rule": "relative",
///    "tolerance": 0.15, "derivation": "...", "elasticities": [{"parameter": "...", "value": 4e-06,
///    "elasticity": -0.35, "scheme": "central"}], "zero_elasticities": 180,
///    "gap": [{"parameter": "stratum-s.xpu.op_overhead", "cited": 4e-06, "needed": 8.1e-06,
///             "relative_change": 1.03, "range_units": 0.069, "closes": true, "range": "..."}],
///    "closed_by_one": true, "pairs": [], "switch_pairs_tried": 0, "left_out": "..."}
/// \endcode
///
/// `needed`, `relative_change` and `range_units` are null when no value within ten ranges brings
/// the row into tolerance; `paper` is null for a row without one. A discrete parameter's entry
/// (`explain_choice`) has `cited` and `needed` as the values' names (strings) and `range_units` 1
/// (a switch); so does a pair of two discrete parameters (`pairs`, range_units 1), tried when no
/// single change and no pair of real parameters closes the row (`switch_pairs_tried` counts the
/// combinations run). `verdict` says in one sentence what the explainer found (`row_explanation::verdict`).

#include <cmath>  // std::isfinite

#include "strata/core/json.hpp"
#include "strata/report/explain.hpp"

namespace strata {
inline namespace v0 {

namespace detail {
template <class = void>
inline json explain_number(double v) {
  return std::isfinite(v) ? json(v) : json(nullptr);
}
template <class = void>
inline const char* explain_scheme(difference_scheme s) {
  switch (s) {
    case difference_scheme::central: return "central";
    case difference_scheme::forward: return "forward";
    case difference_scheme::backward: return "backward";
    case difference_scheme::none: return "none";
  }
  return "none";
}
}  // namespace detail

/// One gap entry (file comment).
template <class = void>
inline json gap_entry_json(const gap_entry& e) {
  const bool discrete = e.cited_choice.has_value();
  const json needed = discrete ? (e.needed_choice ? json(*e.needed_choice) : json(nullptr))
                               : (e.needed ? json(*e.needed) : json(nullptr));
  return json{{"parameter", e.parameter},
              {"cited", discrete ? json(*e.cited_choice) : json(e.cited)},
              {"needed", needed},
              {"relative_change", e.relative_change ? json(*e.relative_change) : json(nullptr)},
              {"range_units", detail::explain_number(e.range_units)},
              {"closes", e.closes},
              {"range", e.range}};
}

/// A row's explanation (file comment).
template <class = void>
inline json row_explanation_json(const row_explanation& x) {
  json el = json::array(), gap = json::array(), pairs = json::array();
  for (const auto& e : x.elasticities) {
    el.push_back(json{{"parameter", e.parameter}, {"value", e.value}, {"elasticity", e.elasticity},
                      {"scheme", detail::explain_scheme(e.scheme)}});
  }
  for (const auto& e : x.gap) gap.push_back(gap_entry_json(e));
  for (const auto& p : x.pairs) {
    // A pair of discrete parameters gives its values by name (as a family line's switch does).
    const auto side = [](const std::array<double, 2>& v, const std::array<std::optional<std::string>, 2>& names) {
      json a = json::array();
      for (std::size_t k = 0; k < 2; ++k) a.push_back(names[k] ? json(*names[k]) : json(v[k]));
      return a;
    };
    pairs.push_back(json{{"parameters", json::array({p.parameters[0], p.parameters[1]})},
                         {"cited", side(p.cited, p.cited_choice)},
                         {"needed", side(p.needed, p.needed_choice)},
                         {"range_units", detail::explain_number(p.range_units)},
                         {"closes", p.closes}});
  }
  return json{{"id", x.id},
              {"family", x.family},
              {"value", x.value},
              {"paper", x.paper ? json(*x.paper) : json(nullptr)},
              {"rule", x.rule},
              {"tolerance", x.tolerance},
              {"derivation", x.derivation},
              {"elasticities", el},
              {"zero_elasticities", x.zero_elasticities},
              {"gap", gap},
              {"closed_by_one", x.closed_by_one},
              {"pairs", pairs},
              {"switch_pairs_tried", x.switch_pairs_tried},
              {"left_out", x.left_out},
              {"verdict", x.verdict}};
}

/// A family line: `{"family", "changes": [{"parameter", "cited", "needed", "range_units"}],
/// "closes", "still_failing", "breaks", "failing"}`.
template <class = void>
inline json family_line_json(const family_line& f) {
  json ch = json::array();
  for (const auto& c : f.changes) {
    const bool discrete = c.cited_choice && c.needed_choice;
    ch.push_back(json{{"parameter", c.parameter},
                      {"cited", discrete ? json(*c.cited_choice) : json(c.cited)},
                      {"needed", discrete ? json(*c.needed_choice) : json(c.needed)},
                      {"range_units", c.range_units}});
  }
  return json{{"family", f.family},       {"changes", ch},      {"closes", f.closes},
              {"still_failing", f.still_failing}, {"breaks", f.breaks}, {"failing", f.failing}};
}

}  // namespace v0
}  // namespace strata
