// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Reading a scenario's table back: the CSV that `strata-eval run` writes (`scenario_table_writer`,
/// `report/scenario_io.hpp`), whole or as the shards' files concatenated in order, turned into the
/// plot's points without evaluating anything. `strata-eval plot SCENARIO TABLE.csv --plot DIR`
/// draws a table gathered from a Slurm array job with it, through the same plot writers as
/// `strata-eval run --plot`.
///
/// What is checked, so that a table drawn is the scenario's whole table:
/// - the header is the one the scenario's run writes: `index`, the axes in order, then the
///   scenario's outputs (all of the study's columns when it lists none);
/// - every row has that many fields, each one number (`nan`, `inf` as the writer prints them);
/// - the rows are the points 0, 1, 2, … in order, each point's axis values those of the scenario's
///   point of that index (a table of another scenario, or shards concatenated out of order, is
///   refused), and there are exactly as many rows as the scenario has points (a missing shard is
///   refused).
/// Quoted fields, blank lines and JSON Lines are refused (the CSV writer writes none of them). A malformed line throws
/// `config_error` whose `field()` is `"<source>:<line>"` and whose message names the file, the line
/// and the column: `[strata.scenario] t.csv:4: column tiers (3): 8 is not the scenario's value 4
/// at point 2`.
///
/// Bounds. `load_scenario_table` opens its file under the opening rule (`core/files.hpp`): a
/// regular file within `limits().table_file_bytes`, role "table". The rows held are at most the
/// scenario's points (`scenario_max_points`, checked by its reader), each with the plotted columns
/// only.
///
/// \code
/// const auto s = strata::read_scenario(strata::read_input_file("fig18a_batch_context.json", "scenario",
///     strata::limits().json_file_bytes, "json_file_bytes"), "fig18a_batch_context.json");
/// const auto points = strata::load_scenario_table("sweep.csv", s);
/// strata::write_plot_data(std::cout, s, points);
/// \endcode

#include <array>        // std::array, number text
#include <cstddef>      // std::size_t
#include <string>       // std::string, std::to_string
#include <string_view>  // std::string_view
#include <utility>      // std::move
#include <vector>       // std::vector

#include "strata/core/error.hpp"
#include "strata/core/files.hpp"
#include "strata/core/limits.hpp"
#include "strata/report/scenario.hpp"
#include "strata/report/scenario_io.hpp"
#include "strata/workload/trace_io.hpp"  // detail::csv: line_reader, split_csv, parse_number, quote

namespace strata {
inline namespace v0 {

namespace detail {

/// Throws the table reader's error for `source`:`line`.
[[noreturn]] inline void table_fail(std::string_view source, std::size_t line, const std::string& what) {
  std::string at(source);
  at += ':';
  at += std::to_string(line);
  throw config_error(at, "[strata.scenario] " + at + ": " + what);
}

}  // namespace detail

/// The plot's points of scenario `s` read from its table held in `text` (CSV, format and checks in
/// the file comment); `source` names the input in errors. Throws `config_error` ("plot") when the
/// scenario has no plot, and ("<source>:<line>") on the first bad line or a table of the wrong
/// length.
inline std::vector<plot_point> parse_scenario_table(std::string_view text, const scenario& s,
                                                    std::string_view source = "<string>") {
  namespace csv = detail::csv;
  using detail::table_fail;
  if (!s.plot.enabled) {
    throw config_error("plot", "[strata.scenario] " + s.name + ": a table plots only with a plot key in the scenario (x, y, series)");
  }
  const sweep_space space = scenario_space(s);
  const auto columns = scenario_columns(s.study);
  const auto pick = detail::output_indices(s, columns);
  std::vector<std::string> header{"index"};
  for (const auto& a : space.axes()) header.push_back(a.name);
  for (std::size_t i : pick) header.push_back(columns[i]);
  // The fields the plot takes: x, the series axis (if any) and the plotted outputs.
  const std::size_t axes = space.dimensions();
  const std::size_t x_field = 1 + space.index_of(s.plot.x);
  const std::size_t series_field = s.plot.series.empty() ? 0 : 1 + space.index_of(s.plot.series);
  std::vector<std::size_t> y_fields;
  for (const auto& y : s.plot.y) {
    for (std::size_t k = 0; k < pick.size(); ++k) {
      if (columns[pick[k]] == y) y_fields.push_back(1 + axes + k);
    }
  }

  csv::line_reader lines(text);
  std::vector<std::string_view> cols;
  std::string_view line;
  if (!lines.next(line)) table_fail(source, 1, "empty input; expected the scenario " + s.name + "'s table (a header index,...)");
  const auto no_quotes = [&](std::string_view l) {
    if (l.find('"') != std::string_view::npos) table_fail(source, lines.line_no(), "quoted CSV fields are not supported");
  };
  if (!line.empty() && line.front() == '{') {
    table_fail(source, lines.line_no(), "a JSON Lines table; the plot reads the CSV table (strata-eval run --format csv, the default)");
  }
  no_quotes(line);
  csv::split_csv(line, cols);
  for (std::size_t c = 0; c < header.size() || c < cols.size(); ++c) {
    if (c >= cols.size() || c >= header.size() || cols[c] != header[c]) {
      std::string want = c < header.size() ? header[c] : std::string("nothing (") + std::to_string(header.size()) + " columns)";
      table_fail(source, lines.line_no(),
                 "header column " + std::to_string(c + 1) + " must be " + want + ", got " +
                     (c < cols.size() ? csv::quote(cols[c]) : std::string("nothing")) + " (the scenario " + s.name +
                     "'s table: index, its axes, its outputs)");
    }
  }

  std::vector<plot_point> points;
  std::vector<double> values(header.size()), expected;
  std::size_t next = 0;
  while (lines.next(line)) {
    const std::size_t n = lines.line_no();
    if (csv::trim(line).empty()) table_fail(source, n, "blank line (a table has none)");
    no_quotes(line);
    csv::split_csv(line, cols);
    if (cols.size() != header.size()) {
      table_fail(source, n, "expected " + std::to_string(header.size()) + " fields, got " + std::to_string(cols.size()));
    }
    std::size_t index = 0;
    if (!csv::parse_number(cols[0], index)) table_fail(source, n, "index must be an integer, got " + csv::quote(cols[0]));
    if (index != next) {
      table_fail(source, n, "index " + std::to_string(index) + " where point " + std::to_string(next) +
                                " comes next (rows must be the points 0, 1, 2, ... in order: a shard missing or out of order?)");
    }
    if (index >= space.size()) {
      table_fail(source, n, "point " + std::to_string(index) + " is past the scenario's " + std::to_string(space.size()) + " points");
    }
    for (std::size_t c = 1; c < cols.size(); ++c) {
      if (!csv::parse_number(cols[c], values[c])) {
        table_fail(source, n, "column " + header[c] + " (" + std::to_string(c + 1) + ") must be a number, got " + csv::quote(cols[c]));
      }
    }
    space.point(index, expected);
    for (std::size_t a = 0; a < axes; ++a) {
      if (!(values[1 + a] == expected[a])) {
        std::array<char, 32> buf{};
        table_fail(source, n, "column " + header[1 + a] + " (" + std::to_string(a + 2) + "): " + csv::quote(cols[1 + a]) +
                                  " is not the scenario's value " + std::string(detail::number_text(expected[a], buf)) +
                                  " at point " + std::to_string(index));
      }
    }
    plot_point p;
    p.x = values[x_field];
    p.series = series_field == 0 ? 0.0 : values[series_field];
    p.y.reserve(y_fields.size());
    for (std::size_t f : y_fields) p.y.push_back(values[f]);
    points.push_back(std::move(p));
    ++next;
  }
  if (next != space.size()) {
    table_fail(source, lines.line_no(), "the table ends after " + std::to_string(next) + " of the scenario's " +
                                            std::to_string(space.size()) + " points (a shard missing?)");
  }
  return points;
}

/// Reads scenario `s`'s table from the file `path` (role "table": a regular file within
/// `limits().table_file_bytes`) into the plot's points (`parse_scenario_table`; errors name the file).
inline std::vector<plot_point> load_scenario_table(const std::string& path, const scenario& s) {
  return parse_scenario_table(read_input_file(path, "table", limits().table_file_bytes, "table_file_bytes"), s,
                              detail::message_path(path));
}

}  // namespace v0
}  // namespace strata
