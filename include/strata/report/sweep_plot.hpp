// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// A plot of any sweep's CSV (issue 46, Deliver 3): the table `stream_sweep` writes through
/// `csv_writer` (`core/sweep_io.hpp`), `strata-eval sweep` or `strata-eval run` writes, or any CSV
/// with a header row, drawn as lines with points by gnuplot, as the scenario plots are
/// (`report/scenario_io.hpp`).
///
/// Reading. `read_sweep_csv(text, source)` splits the text into its header and rows: fields
/// separated by commas, a field in double quotes may hold commas, newlines and doubled quotes
/// (RFC 4180, as `csv_writer` quotes text), lines end with LF or CRLF, the last newline is optional.
/// Bounds (every failure a `config_error` of field "csv" naming `source:line`): at most
/// `sweep_csv_max_columns` (4096) columns, `sweep_csv_max_cell_bytes` (4096) bytes a cell, and
/// rows × columns at most `limits().table_cells` (4 194 304) cells; every row has the header's
/// column count; no empty line before the end; no duplicate or empty column name. The file itself
/// is opened by the caller under the opening rule (`core/files.hpp`: a regular file within
/// `limits().table_file_bytes`), so the text is bounded too.
///
/// Selecting. `select_sweep_plot(table, spec)` takes the x column, up to `sweep_plot_max_y` (16)
/// y columns and an optional column `by` whose values (compared as text) split the points into one
/// line each, in order of first appearance, at most `sweep_plot_max_lines` (64) lines in all (y
/// columns × groups). An unknown column is a `config_error` of field "x", "y" or "by" naming the
/// column and the table's columns; an x or y cell that is not a number (`nan`, `inf`, `-inf` are:
/// gaps in the line) is one of field "csv" naming `source:line` and the column.
///
/// Writing. `write_sweep_plot_data` writes `<name>.dat`: one gnuplot data block per group (two
/// blank lines apart), rows "x y1 y2 ..." in the table's order, a comment naming the source, the
/// columns and the group; `write_sweep_gnuplot_script` writes `<name>.gp`, which draws that file
/// to `<name>.png` (pngcairo) and `<name>.svg` (svg), 960 × 600 px, run in the directory of the
/// files. Every outside string enters the script through `gnuplot_string` / `gnuplot_file`
/// (`report/gnuplot_text.hpp`), so no CSV or option can make gnuplot run a command.
///
/// \code
/// const std::string text = strata::read_input_file("sweep.csv", "table", strata::limits().table_file_bytes,
///                                                  "table_file_bytes");
/// const auto table = strata::read_sweep_csv(text, "sweep.csv");
/// const strata::sweep_plot_spec spec{.x = "context", .y = {"gpu_tokens_per_s"}, .by = "batch", .name = "sweep"};
/// const auto points = strata::select_sweep_plot(table, spec);
/// std::ofstream dat("sweep.dat"), gp("sweep.gp");
/// strata::write_sweep_plot_data(dat, table, spec, points);
/// strata::write_sweep_gnuplot_script(gp, table, spec, points);   // then: gnuplot sweep.gp
/// \endcode

#include <algorithm>     // std::max
#include <array>         // std::array
#include <charconv>      // std::from_chars
#include <cmath>         // std::isfinite
#include <cstddef>       // std::size_t
#include <cstdint>       // std::int64_t
#include <ostream>       // std::ostream
#include <string>        // std::string, std::to_string
#include <string_view>   // std::string_view
#include <system_error>  // std::errc
#include <vector>        // std::vector

#include "strata/core/error.hpp"
#include "strata/core/files.hpp"
#include "strata/core/limits.hpp"
#include "strata/core/sweep_io.hpp"
#include "strata/report/gnuplot_text.hpp"

namespace strata {
inline namespace v0 {

/// Columns one sweep CSV may have (a sweep's widest flattened result, a Stratum step with its
/// per-operator list, has a few hundred).
inline constexpr std::size_t sweep_csv_max_columns = 4096;
/// Bytes of one cell (a number needs at most 24; a `reason` text a few hundred).
inline constexpr std::size_t sweep_csv_max_cell_bytes = 4096;
/// Columns plotted against x.
inline constexpr std::size_t sweep_plot_max_y = 16;
/// Lines of one plot, y columns × groups (a legend of more cannot be read).
inline constexpr std::size_t sweep_plot_max_lines = 64;

/// A sweep's CSV as read: the header's column names and each row's cells as text.
struct sweep_csv_table {
  std::string source;                          ///< the file, as messages name it
  std::vector<std::string> columns;            ///< the header row
  std::vector<std::vector<std::string>> rows;  ///< each of `columns.size()` cells
  std::vector<std::size_t> lines;              ///< the line each row starts on (1-based)
};

namespace detail {

template <class = void>
[[noreturn]] inline void sweep_csv_fail(const std::string& source, std::size_t line, const std::string& what) {
  throw config_error("csv", "[strata.sweep_plot] " + detail::message_path(source) + ":" + std::to_string(line) + ": " + what);
}

/// A column name or cell for a message: at most 80 bytes (cut on a character boundary, "..."
/// after), control characters as spaces.
template <class = void>
inline std::string sweep_csv_text(std::string_view s) {
  std::string out = s.size() > 80 ? std::string(s.substr(0, utf8_char_start(s, 80))) + "..." : std::string(s);
  return gnuplot_line_text(out);
}

}  // namespace detail

/// The header and rows of a sweep CSV `text` read from `source` (file comment: quoting, bounds).
template <class = void>
inline sweep_csv_table read_sweep_csv(std::string_view text, const std::string& source) {
  sweep_csv_table t;
  t.source = source;
  const auto max_cells = static_cast<std::size_t>(std::max<std::int64_t>(limits().table_cells, 0));
  std::size_t line = 1, cells = 0;
  std::size_t i = 0;
  bool header = true;
  while (i < text.size()) {
    const std::size_t row_line = line;
    std::vector<std::string> row;
    // One record: fields until an unquoted newline or the end of the text.
    for (;;) {
      std::string cell;
      if (i < text.size() && text[i] == '"') {
        ++i;
        for (;;) {
          if (i >= text.size()) detail::sweep_csv_fail(source, row_line, "a quoted field is not closed");
          const char c = text[i++];
          if (c == '"') {
            if (i < text.size() && text[i] == '"') {
              cell += '"';
              ++i;
              continue;
            }
            break;
          }
          if (c == '\n') ++line;
          cell += c;
          if (cell.size() > sweep_csv_max_cell_bytes) {
            detail::sweep_csv_fail(source, row_line, "a field is longer than " + std::to_string(sweep_csv_max_cell_bytes) + " bytes");
          }
        }
        if (i < text.size() && text[i] != ',' && text[i] != '\n' && text[i] != '\r') {
          detail::sweep_csv_fail(source, row_line, "text after a quoted field's closing quote");
        }
      } else {
        const std::size_t start = i;
        while (i < text.size() && text[i] != ',' && text[i] != '\n' && text[i] != '\r') {
          if (text[i] == '"') detail::sweep_csv_fail(source, row_line, "a quote inside an unquoted field");
          ++i;
        }
        if (i - start > sweep_csv_max_cell_bytes) {
          detail::sweep_csv_fail(source, row_line, "a field is longer than " + std::to_string(sweep_csv_max_cell_bytes) + " bytes");
        }
        cell.assign(text.substr(start, i - start));
      }
      if (row.size() >= sweep_csv_max_columns) {
        detail::sweep_csv_fail(source, row_line, "more than " + std::to_string(sweep_csv_max_columns) + " columns");
      }
      if (++cells > max_cells) {
        detail::sweep_csv_fail(source, row_line, "more than strata::limits().table_cells = " + std::to_string(max_cells) + " cells");
      }
      row.push_back(std::move(cell));
      if (i < text.size() && text[i] == ',') {
        ++i;
        continue;
      }
      break;
    }
    // The record's end: CRLF, LF or the end of the text.
    if (i < text.size() && text[i] == '\r') {
      ++i;
      if (i >= text.size() || text[i] != '\n') detail::sweep_csv_fail(source, row_line, "a carriage return not followed by a newline");
    }
    if (i < text.size() && text[i] == '\n') {
      ++i;
      ++line;
    }
    if (row.size() == 1 && row[0].empty()) {
      if (!header && text.substr(i).find_first_not_of("\r\n") == std::string_view::npos) break;  // blank lines at the end
      detail::sweep_csv_fail(source, row_line, header ? "the header row is empty" : "an empty line before the end of the table");
    }
    if (header) {
      for (std::size_t c = 0; c < row.size(); ++c) {
        if (row[c].empty()) detail::sweep_csv_fail(source, row_line, "column " + std::to_string(c + 1) + " of the header has no name");
        for (std::size_t d = 0; d < c; ++d) {
          if (row[d] == row[c]) detail::sweep_csv_fail(source, row_line, "column '" + detail::sweep_csv_text(row[c]) + "' appears twice in the header");
        }
      }
      t.columns = std::move(row);
      header = false;
      continue;
    }
    if (row.size() != t.columns.size()) {
      detail::sweep_csv_fail(source, row_line, std::to_string(row.size()) + " fields, the header has " + std::to_string(t.columns.size()));
    }
    t.rows.push_back(std::move(row));
    t.lines.push_back(row_line);
  }
  if (header) detail::sweep_csv_fail(source, 1, "no header row (the file is empty)");
  return t;
}

/// What `select_sweep_plot` draws (file comment): the columns, the file stem and the text.
struct sweep_plot_spec {
  std::string x{};               ///< the column on the x axis (numbers)
  std::vector<std::string> y{};  ///< the columns drawn against x (numbers; nan and inf are gaps)
  std::string by{};              ///< a column whose values split the points into lines; empty: one line
  std::string name = "sweep";    ///< the files' stem: <name>.dat, .gp, .png, .svg
  std::string title{};           ///< empty: "<y labels> against <x label>", wrapped to the plot's width
  bool log_x = false;            ///< a logarithmic x axis
  bool log_y = false;            ///< a logarithmic y axis
};

/// Checks `spec` alone: x, at least one and at most `sweep_plot_max_y` y columns, a name that is
/// a file name (not empty, no '/', not "." or ".."; a quote or a control character is refused
/// where the script names it, `gnuplot_file`). Throws `config_error` naming the field.
template <class = void>
inline void validate(const sweep_plot_spec& spec) {
  if (spec.x.empty()) throw config_error("x", "[strata.sweep_plot] x names no column");
  if (spec.y.empty()) throw config_error("y", "[strata.sweep_plot] y names no column");
  if (spec.y.size() > sweep_plot_max_y) {
    throw config_error("y", "[strata.sweep_plot] y names " + std::to_string(spec.y.size()) + " columns, at most " +
                                std::to_string(sweep_plot_max_y));
  }
  for (const auto& y : spec.y) {
    if (y.empty()) throw config_error("y", "[strata.sweep_plot] y names an empty column");
  }
  if (spec.name.empty() || spec.name == "." || spec.name == ".." || spec.name.find('/') != std::string::npos) {
    throw config_error("name", "[strata.sweep_plot] name '" + detail::sweep_csv_text(spec.name) +
                                   "' is not a file name (empty, '.', '..' or with '/')");
  }
}

/// One row of the plot: its group (index into `sweep_plot_points::groups`), x and the y values.
struct sweep_plot_row {
  std::size_t group = 0;
  double x = 0.0;
  std::vector<double> y;  ///< in `sweep_plot_spec::y` order
};

/// The points of a plot: the groups (values of the `by` column in order of first appearance; one
/// empty group without `by`) and the rows in the table's order.
struct sweep_plot_points {
  std::vector<std::string> groups;
  std::vector<sweep_plot_row> rows;
};

namespace detail {

template <class = void>
inline std::size_t sweep_column(const sweep_csv_table& t, const std::string& name, const char* field) {
  for (std::size_t c = 0; c < t.columns.size(); ++c) {
    if (t.columns[c] == name) return c;
  }
  std::string known;
  for (const auto& c : t.columns) {
    if (known.size() > 400) {
      known += ", ...";
      break;
    }
    known += (known.empty() ? "" : ", ") + sweep_csv_text(c);
  }
  throw config_error(field, "[strata.sweep_plot] " + detail::message_path(t.source) + ": no column '" + sweep_csv_text(name) +
                                "' (" + field + "; the columns: " + known + ")");
}

/// A cell as a number: the whole cell a decimal or "nan", "inf", "-inf" (std::from_chars).
template <class = void>
inline double sweep_cell_number(const sweep_csv_table& t, std::size_t row, std::size_t column) {
  const std::string& cell = t.rows[row][column];
  double v = 0.0;
  const char* first = cell.data();
  const char* last = cell.data() + cell.size();
  if (!cell.empty() && *first == '+') ++first;  // "+1" as written by some tools
  const auto r = std::from_chars(first, last, v);
  if (cell.empty() || r.ec != std::errc() || r.ptr != last) {
    sweep_csv_fail(t.source, t.lines[row], "column '" + sweep_csv_text(t.columns[column]) + "' holds '" +
                                               sweep_csv_text(cell) + "', not a number");
  }
  return v;
}

}  // namespace detail

/// The plot's points from `table` (file comment); throws `config_error` for an unknown column
/// (field "x", "y" or "by", naming it), a table without rows or a cell that is not a number
/// (field "csv", naming the line and the column) or more than `sweep_plot_max_lines` lines.
template <class = void>
inline sweep_plot_points select_sweep_plot(const sweep_csv_table& table, const sweep_plot_spec& spec) {
  validate(spec);
  const std::size_t xc = detail::sweep_column(table, spec.x, "x");
  std::vector<std::size_t> yc;
  for (const auto& y : spec.y) yc.push_back(detail::sweep_column(table, y, "y"));
  const bool grouped = !spec.by.empty();
  const std::size_t bc = grouped ? detail::sweep_column(table, spec.by, "by") : 0;
  if (table.rows.empty()) {
    throw config_error("csv", "[strata.sweep_plot] " + detail::message_path(table.source) +
                                  ": the table has a header and no rows: nothing to plot");
  }
  sweep_plot_points out;
  if (!grouped) out.groups.emplace_back();
  out.rows.reserve(table.rows.size());
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    sweep_plot_row row;
    if (grouped) {
      const std::string& g = table.rows[r][bc];
      std::size_t k = 0;
      while (k < out.groups.size() && out.groups[k] != g) ++k;
      if (k == out.groups.size()) {
        if ((k + 1) * spec.y.size() > sweep_plot_max_lines) {
          throw config_error("by", "[strata.sweep_plot] " + detail::message_path(table.source) + ": column '" +
                                       detail::sweep_csv_text(spec.by) + "' has more than " +
                                       std::to_string(k) + " values: with " + std::to_string(spec.y.size()) +
                                       " y column(s) the plot would draw more than " +
                                       std::to_string(sweep_plot_max_lines) + " lines");
        }
        out.groups.push_back(g);
      }
      row.group = k;
    }
    row.x = detail::sweep_cell_number(table, r, xc);
    row.y.reserve(yc.size());
    for (std::size_t c : yc) row.y.push_back(detail::sweep_cell_number(table, r, c));
    out.rows.push_back(std::move(row));
  }
  return out;
}

namespace detail {

/// A number for a data file: the shortest round-trip text, `nan` for a non-finite one (a gap).
template <class = void>
inline std::string_view sweep_plot_number(double v, std::array<char, 32>& buf) {
  return std::isfinite(v) ? number_text(v, buf) : std::string_view("nan");
}

/// A legend entry: "<by> = <value>" for a group, then the column's label when there are several.
template <class = void>
inline std::string sweep_plot_entry(const sweep_plot_spec& spec, const std::string& group, std::size_t c) {
  std::string entry = spec.by.empty() ? std::string() : spec.by + " = " + group;
  if (spec.y.size() > 1 || entry.empty()) entry += (entry.empty() ? "" : ": ") + plot_label(spec.y[c]);
  return entry;
}

}  // namespace detail

/// `<name>.dat`: one block per group, two blank lines apart, rows "x y1 y2 ..." (file comment).
template <class = void>
inline void write_sweep_plot_data(std::ostream& os, const sweep_csv_table& table, const sweep_plot_spec& spec,
                                  const sweep_plot_points& pts) {
  std::array<char, 32> buf{};
  os << "# " << detail::gnuplot_line_text(spec.name) << ": from " << detail::gnuplot_line_text(table.source) << ", x " << detail::gnuplot_line_text(spec.x) << ", y";
  for (const auto& y : spec.y) os << ' ' << detail::gnuplot_line_text(y);
  if (!spec.by.empty()) os << ", one block per value of " << detail::gnuplot_line_text(spec.by);
  os << '\n';
  for (std::size_t k = 0; k < pts.groups.size(); ++k) {
    if (k > 0) os << "\n\n";
    os << "# " << (spec.by.empty() ? std::string("all rows") : detail::gnuplot_line_text(spec.by) + " = " + detail::gnuplot_line_text(pts.groups[k]))
       << '\n';
    for (const auto& r : pts.rows) {
      if (r.group != k) continue;
      os << detail::sweep_plot_number(r.x, buf);
      for (double v : r.y) os << ' ' << detail::sweep_plot_number(v, buf);
      os << '\n';
    }
  }
}

/// `<name>.gp`: draws `<name>.dat` to `<name>.png` and `<name>.svg` (or the files `files` names,
/// relative to the directory gnuplot runs in), one line with points per group and y column.
template <class = void>
inline void write_sweep_gnuplot_script(std::ostream& os, const sweep_csv_table& table, const sweep_plot_spec& spec,
                                       const sweep_plot_points& pts, const plot_script_files& files = {}) {
  validate(spec);
  const std::string dat = gnuplot_file(files.data.empty() ? spec.name + ".dat" : files.data);
  const std::string png = gnuplot_file(files.png.empty() ? spec.name + ".png" : files.png);
  const std::string svg = gnuplot_file(files.svg.empty() ? spec.name + ".svg" : files.svg);
  const std::string name = detail::gnuplot_line_text(spec.name);
  os << "# " << name << ": written by strata-eval plot --csv from " << detail::gnuplot_line_text(table.source) << "; gnuplot "
     << name << ".gp (in this directory)\n";
  os << "set datafile missing 'nan'\n";
  os << "set xlabel " << gnuplot_string(detail::plot_label(spec.x)) << " noenhanced\n";
  std::string ylabel;
  for (const auto& y : spec.y) ylabel += (ylabel.empty() ? "" : ", ") + detail::plot_label(y);
  os << "set ylabel " << gnuplot_string(ylabel) << " noenhanced\n";
  if (spec.log_x) os << "set logscale x\n";
  if (spec.log_y) os << "set logscale y\n";
  os << "set grid\nset key outside right top noenhanced\n";
  std::string plot = "plot ";
  std::size_t widest = 0;
  for (std::size_t k = 0; k < pts.groups.size(); ++k) {
    for (std::size_t c = 0; c < spec.y.size(); ++c) {
      const std::string entry = detail::sweep_plot_entry(spec, pts.groups[k], c);
      widest = std::max(widest, detail::text_chars(entry));
      plot += (k + c == 0 ? "" : ", \\\n     ") + dat + " index " + std::to_string(k) + " using 1:" + std::to_string(c + 2) +
              " with linespoints title " + gnuplot_string(entry);
    }
  }
  const std::string title = spec.title.empty() ? ylabel + " against " + detail::plot_label(spec.x) : spec.title;
  // 960 px less the left margin (100 px) and the key outside right (its widest entry and 80 px),
  // as the scenario plots (write_gnuplot_script).
  const int area = 960 - 100 - (static_cast<int>(std::min<std::size_t>(widest, 60)) * plot_char_px + 80);
  os << "set title "
     << gnuplot_lines(detail::wrap_plot_text(title, static_cast<std::size_t>(std::max(area / plot_char_px, 16))))
     << " noenhanced\n";
  os << "set terminal pngcairo size 960,600 font 'Sans,12' noenhanced\n";
  os << "set output " << png << "\n" << plot << "\n";
  os << "set terminal svg size 960,600 font 'Arial,12' noenhanced\n";
  os << "set output " << svg << "\nreplot\nset output\n";
}

}  // namespace v0
}  // namespace strata
