// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The paper report as text: the markdown table `strata-paper-report` prints, its summary line,
/// the list of known disagreements, and the rule that decides its exit status. They take any
/// rows (`std::span<const paper_row>`): the library's (`paper_rows`), a family of them, or a
/// project's own rows built with `relative_row`, `bound_row` and `prediction_row`
/// (`report/paper_row.hpp`). The JSON form of a row is in `report/paper_json.hpp`.
///
/// \code
///   std::vector<strata::paper_row> rows = strata::stratum_device_rows();
///   rows.push_back(strata::relative_row("mine.capacity_GiB", 31.9, "GiB", 32, 0.01, "datasheet"));
///   strata::write_report_markdown(std::cout, rows);   // table, summary, known disagreements
///   return strata::report_passes(rows) ? 0 : 1;
/// \endcode
///
/// Numbers print with `%.6g`; a relative tolerance as "±3 %", the other rules as "exact", "min",
/// "max" and "predict".

#include <cstddef>   // std::size_t
#include <cstdio>    // std::snprintf, the %.6g numbers
#include <ostream>   // std::ostream
#include <span>      // std::span
#include <string>    // std::string, std::to_string

#include "strata/report/paper_row.hpp"

namespace strata {
inline namespace v0 {

namespace detail {
/// `v` as the report prints it (`%.6g`).
template <class = void>
inline std::string report_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}
}  // namespace detail

/// The rows counted as the summary line counts them.
struct report_counts {
  std::size_t rows = 0;         ///< every row
  std::size_t inputs = 0;       ///< rows of kind input
  std::size_t fits = 0;         ///< rows of kind fit
  std::size_t checks = 0;       ///< rows of kind check
  std::size_t checks_ok = 0;    ///< check rows within tolerance
  std::size_t predictions = 0;  ///< rows of kind prediction
  std::size_t pass = 0;         ///< judged rows within tolerance
  std::size_t fail = 0;         ///< judged rows out of tolerance (known disagreements included)
  std::size_t known = 0;        ///< failing rows with a known disagreement
  std::size_t unjudged = 0;     ///< rows without a verdict (predictions, rows without a paper value)
};

/// Counts `rows` by kind and verdict.
template <class = void>
inline report_counts count_report_rows(std::span<const paper_row> rows) {
  report_counts c;
  for (const auto& r : rows) {
    const auto ok = r.ok();
    ++c.rows;
    if (!ok) {
      ++c.unjudged;
    } else if (*ok) {
      ++c.pass;
    } else {
      ++c.fail;
      if (!r.known_disagreement.empty()) ++c.known;
    }
    switch (r.kind) {
      case row_kind::input: ++c.inputs; break;
      case row_kind::fit: ++c.fits; break;
      case row_kind::check:
        ++c.checks;
        if (ok && *ok) ++c.checks_ok;
        break;
      case row_kind::prediction: ++c.predictions; break;
    }
  }
  return c;
}

/// True when every judged row is within tolerance or names why the model is known to miss it
/// (`known_disagreement`): the report's exit status is 0 then, 1 otherwise. Predictions never fail.
template <class = void>
inline bool report_passes(std::span<const paper_row> rows) {
  for (const auto& r : rows) {
    if (!r.ok().value_or(true) && r.known_disagreement.empty()) return false;
  }
  return true;
}

/// The tolerance column of a row: "±3 %" for a relative tolerance of 0.03, else "exact", "min",
/// "max" or "predict".
template <class = void>
inline std::string report_tolerance_text(const paper_row& r) {
  if (r.check == row_check::relative) return "±" + detail::report_number(100 * r.tolerance) + " %";
  return to_string(r.check);
}

/// One row of the markdown table, without the newline:
/// `| id | kind | value | unit | paper | tolerance | source | ok |`, where kind is "fit
/// (struct.field)" for a fit row, paper "—" without a paper value, and ok one of "pass",
/// "**FAIL**", "**FAIL** (known, below)" and "prediction".
template <class = void>
inline std::string report_row_markdown(const paper_row& r) {
  const auto ok = r.ok();
  std::string kind = to_string(r.kind);
  if (r.kind == row_kind::fit) kind += " (" + r.fitted + ")";
  std::string s = "| " + r.id + " | " + kind + " | " + detail::report_number(r.value) + " | " + r.unit + " | " +
                  (r.paper ? detail::report_number(*r.paper) : std::string("—")) + " | " + report_tolerance_text(r) +
                  " | " + r.source + " | ";
  s += ok ? (*ok ? "pass" : (r.known_disagreement.empty() ? "**FAIL**" : "**FAIL** (known, below)")) : "prediction";
  s += " |";
  return s;
}

/// The markdown table: its header and one line per row.
template <class = void>
inline void write_report_table(std::ostream& os, std::span<const paper_row> rows) {
  os << "| id | kind | value | unit | paper | tolerance | source | ok |\n"
        "| --- | --- | ---: | --- | ---: | --- | --- | --- |\n";
  for (const auto& r : rows) os << report_row_markdown(r) << '\n';
}

/// The summary line, without the newline: "146 rows: 60 checks (57 within tolerance), 30 fits,
/// 20 inputs, 36 predictions; 107 of 110 judged rows within tolerance — 3 FAIL (3 known)."
template <class = void>
inline std::string report_summary(std::span<const paper_row> rows) {
  const auto c = count_report_rows(rows);
  std::string s = std::to_string(c.rows) + " rows: " + std::to_string(c.checks) + " checks (" +
                  std::to_string(c.checks_ok) + " within tolerance), " + std::to_string(c.fits) + " fits, " +
                  std::to_string(c.inputs) + " inputs, " + std::to_string(c.predictions) + " predictions; " +
                  std::to_string(c.pass) + " of " + std::to_string(c.pass + c.fail) + " judged rows within tolerance";
  if (c.fail > 0) {
    s += " — " + std::to_string(c.fail) + " FAIL";
    if (c.known > 0) s += " (" + std::to_string(c.known) + " known)";
  }
  return s + ".";
}

/// The failing rows that name a known disagreement, one "- id: mechanism" line each under a
/// heading; nothing when there are none.
template <class = void>
inline void write_known_disagreements(std::ostream& os, std::span<const paper_row> rows) {
  if (count_report_rows(rows).known == 0) return;
  os << "Known disagreements (the model misses these rows; the mechanism):\n";
  for (const auto& r : rows) {
    if (!r.known_disagreement.empty() && r.ok() && !*r.ok()) os << "- " << r.id << ": " << r.known_disagreement << "\n";
  }
}

/// The whole report as `strata-paper-report` prints it: the table, a blank line, the summary line
/// and, when a row fails with a known disagreement, a blank line and their list.
template <class = void>
inline void write_report_markdown(std::ostream& os, std::span<const paper_row> rows) {
  write_report_table(os, rows);
  os << "\n" << report_summary(rows) << "\n";
  if (count_report_rows(rows).known > 0) {
    os << "\n";
    write_known_disagreements(os, rows);
  }
}

}  // namespace v0
}  // namespace strata
