// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// A paper-report row as JSON: the `--json` schema of `strata-paper-report` (the project's list of
/// paper numbers), with the row's kind, fitted parameter, known disagreement and rule:
///
/// \code{.json}
///   {"id": "stratum.device.fast_slow_latency_ratio_1024", "value": 1.5999, "unit": "x",
///    "paper": 1.6, "tolerance": 0.03, "rule": "relative", "source": "Stratum §6.2 Fig. 14",
///    "kind": "fit", "fitted": "mono3d_params.staircase_step", "ok": true, "known_disagreement": null}
/// \endcode
///
/// `rule` is "relative", "exact", "min", "max" or "predict" (`to_string(row_check)`);
/// `tolerance` is the relative tolerance (0.03 = ±3 %) of a relative row and null for every other
/// rule; `paper`, `fitted`, `ok` and `known_disagreement` are null when the row has none.

#include <span>    // std::span

#include "strata/core/json.hpp"
#include "strata/report/paper_row.hpp"

namespace strata {
inline namespace v0 {

/// One row as a JSON object (file comment).
template <class = void>
inline json report_row_json(const paper_row& r) {
  json j;
  j["id"] = r.id;
  j["value"] = r.value;
  j["unit"] = r.unit;
  j["paper"] = r.paper ? json(*r.paper) : json(nullptr);
  j["tolerance"] = r.check == row_check::relative ? json(r.tolerance) : json(nullptr);
  j["rule"] = to_string(r.check);
  j["source"] = r.source;
  j["kind"] = to_string(r.kind);
  j["fitted"] = r.fitted.empty() ? json(nullptr) : json(r.fitted);
  const auto ok = r.ok();
  j["ok"] = ok ? json(*ok) : json(nullptr);
  j["known_disagreement"] = r.known_disagreement.empty() ? json(nullptr) : json(r.known_disagreement);
  return j;
}

/// Rows as a JSON array of `report_row_json` objects, in order.
template <class = void>
inline json report_json(std::span<const paper_row> rows) {
  json a = json::array();
  for (const auto& r : rows) a.push_back(report_row_json(r));
  return a;
}

}  // namespace v0
}  // namespace strata
