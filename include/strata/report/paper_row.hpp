// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// One row of the paper report and the three ways to build one: a value judged within a relative
/// tolerance of a reference (`relative_row`), a value judged exactly or as a bound
/// (`bound_row`), and a prediction with no reference (`prediction_row`). The library's own rows
/// (`report/paper.hpp`, `report/paper_rows.hpp`) are built with them, and so can a project's
/// own checks, which `report/paper_io.hpp` (markdown) and `report/paper_json.hpp` (JSON) print
/// like the library's:
///
/// \code
///   const auto die = strata::evaluate(strata::mono3d_params<>{});
///   std::vector<strata::paper_row> rows = strata::stratum_device_rows();
///   rows.push_back(strata::relative_row("mine.device.capacity_GiB", die.capacity.in(strata::units::GiB),
///                                       "GiB", 32, 0.01, "vendor datasheet, Table 4"));
///   strata::write_report_markdown(std::cout, rows);
/// \endcode
///
/// This header is light (no model): a printer or a program that only judges rows includes it.

#include <array>         // std::array
#include <charconv>      // std::to_chars
#include <cmath>         // std::abs, std::isfinite
#include <optional>      // std::optional
#include <string>        // std::string
#include <system_error>  // std::errc
#include <utility>       // std::move

#include "strata/core/error.hpp"

namespace strata {
inline namespace v0 {

/// How a row is judged against the paper.
enum class row_check {
  relative,  ///< |value − paper| ≤ tolerance · |paper|
  exact,     ///< value == paper
  at_least,  ///< value ≥ paper ("min" in the project's list of paper numbers)
  at_most,   ///< value ≤ paper ("max")
  predict    ///< no paper value: an honest prediction
};

/// Name of a rule as the JSON report's `rule` key spells it: "relative", "exact", "min", "max",
/// "predict" (the spellings of the `tol` column of the project's list of paper numbers).
template <class = void>
inline const char* to_string(row_check c) {
  switch (c) {
    case row_check::relative: return "relative";
    case row_check::exact: return "exact";
    case row_check::at_least: return "min";
    case row_check::at_most: return "max";
    case row_check::predict: return "predict";
  }
  return "?";
}

/// What a row is worth as evidence: users who check equations against the papers must see
/// which rows validate a model and which only calibrate it.
enum class row_kind {
  input,       ///< echoes a parameter (or arithmetic of parameters only)
  fit,         ///< a named parameter was solved from this row (or from a row equivalent to it)
  check,       ///< no parameter was solved from it: the model's value is compared with the paper's
  prediction   ///< no paper value here: the model's honest prediction
};

/// Name of a row kind as printed by the report ("input", "fit", "check", "prediction").
template <class = void>
inline const char* to_string(row_kind k) {
  switch (k) {
    case row_kind::input: return "input";
    case row_kind::fit: return "fit";
    case row_kind::check: return "check";
    case row_kind::prediction: return "prediction";
  }
  return "?";
}

/// One row of the paper report.
struct paper_row {
  std::string id;                ///< stable id (`stratum.device.*`, `hcrmap.metadata.*`, ...)
  double value = 0.0;            ///< the model's value
  std::string unit;              ///< unit of `value` (and of `paper`)
  std::optional<double> paper;   ///< the paper's value (none for predictions)
  double tolerance = 0.0;        ///< relative tolerance (relative rows)
  row_check check = row_check::relative;
  std::string source;            ///< paper, section, figure/table/equation
  row_kind kind = row_kind::check;  ///< what the row is worth
  std::string fitted;            ///< fit rows: the parameter solved from this row (`struct.field`)
  /// A judged row the model is known to miss, and why (the mechanism). Such a row still fails
  /// (`ok()` is false) and the report prints it as a failure with this reason; the test suite
  /// requires it to fail, so a model change that fixes it shows.
  std::string known_disagreement;

  /// Within tolerance? Empty for predictions.
  template <class = void>
  [[nodiscard]] std::optional<bool> ok() const {
    if (check == row_check::predict || !paper) return std::nullopt;
    if (!std::isfinite(value)) return false;
    switch (check) {
      case row_check::relative: return std::abs(value - *paper) <= tolerance * std::abs(*paper);
      case row_check::exact: return value == *paper;
      case row_check::at_least: return value >= *paper;
      case row_check::at_most: return value <= *paper;
      case row_check::predict: break;
    }
    return std::nullopt;
  }
};

/// A row judged within a relative tolerance: it passes when |value − paper| ≤ tolerance · |paper|
/// (`tolerance` 0.03 is ±3 %). `kind` says what the row is worth (a `row_kind::fit` row names the
/// parameter solved from it in `fitted`, as `struct.field`). Throws `config_error` naming
/// `tolerance` when it is negative or not finite, or `paper` when it is not finite.
///
/// \code
///   strata::relative_row("mine.capacity_GiB", 31.9, "GiB", 32, 0.01, "datasheet Table 4")
/// \endcode
template <class = void>
inline paper_row relative_row(std::string id, double value, std::string unit, double paper, double tolerance,
                              std::string source, row_kind kind = row_kind::check, std::string fitted = {}) {
  if (!std::isfinite(paper)) {
    throw config_error("paper", "[strata.report] paper of row " + id + " must be finite");
  }
  if (!std::isfinite(tolerance) || tolerance < 0) {
    throw config_error("tolerance", "[strata.report] tolerance of row " + id + " must be a finite relative tolerance >= 0");
  }
  return {std::move(id), value,  std::move(unit), paper, tolerance, row_check::relative,
          std::move(source), kind, std::move(fitted), {}};
}

/// A row judged exactly (`row_check::exact`: value == paper) or as a bound
/// (`row_check::at_least`: value ≥ paper, the report's "min"; `row_check::at_most`: value ≤
/// paper, "max"). Throws `config_error` naming `check` for `relative` (use `relative_row`) or
/// `predict` (use `prediction_row`), or `paper` when it is not finite.
///
/// \code
///   strata::bound_row("mine.power_W", 41.0, "W", 45, strata::row_check::at_most, "package limit")
/// \endcode
template <class = void>
inline paper_row bound_row(std::string id, double value, std::string unit, double paper, row_check check,
                           std::string source, row_kind kind = row_kind::check, std::string fitted = {}) {
  if (check == row_check::relative || check == row_check::predict) {
    throw config_error("check", "[strata.report] check of row " + id + " must be exact, at_least or at_most, got " +
                                    to_string(check));
  }
  if (!std::isfinite(paper)) {
    throw config_error("paper", "[strata.report] paper of row " + id + " must be finite");
  }
  return {std::move(id), value, std::move(unit), paper, 0.0, check, std::move(source), kind, std::move(fitted), {}};
}

/// A prediction: the model's value with no reference to judge it (`paper` empty, `ok()` empty,
/// kind `row_kind::prediction`). It never fails the report.
template <class = void>
inline paper_row prediction_row(std::string id, double value, std::string unit, std::string source) {
  return {std::move(id), value,   std::move(unit), std::nullopt, 0.0, row_check::predict,
          std::move(source), row_kind::prediction, {}, {}};
}

namespace detail {
// The library's own short spellings of the builders above (the row families use them on every line).
template <class = void>
inline paper_row rel(std::string id, double v, std::string unit, double paper, double tol, std::string src,
                     row_kind kind = row_kind::check, std::string fitted = {}) {
  return relative_row(std::move(id), v, std::move(unit), paper, tol, std::move(src), kind, std::move(fitted));
}
template <class = void>
inline paper_row with(std::string id, double v, std::string unit, double paper, row_check c, std::string src,
                      row_kind kind = row_kind::check, std::string fitted = {}) {
  return bound_row(std::move(id), v, std::move(unit), paper, c, std::move(src), kind, std::move(fitted));
}
template <class = void>
inline paper_row predict(std::string id, double v, std::string unit, std::string src) {
  return prediction_row(std::move(id), v, std::move(unit), std::move(src));
}
/// `v` with `digits` decimals ("1.28"), for a known disagreement's text that quotes the model.
template <class = void>
inline std::string fixed(double v, int digits) {
  std::array<char, 64> buf{};
  const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), v, std::chars_format::fixed, digits);
  return r.ec == std::errc{} ? std::string(buf.data(), r.ptr) : std::string("?");
}
}  // namespace detail

}  // namespace v0
}  // namespace strata
