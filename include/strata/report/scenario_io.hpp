// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Writers of scenario studies (`report/scenario.hpp`): the table (CSV or JSON Lines, a
/// `stream_sweep` sink), the plot's data and gnuplot script, and the optimise study's summary.
///
/// Table. Columns: `index` (the point's global index), one per axis, then the selected outputs
/// (all the study's columns when the scenario lists none). Numbers in the shortest form that reads
/// back to the same double; `nan` (CSV) or `null` (JSON) where a point has no value. The CSV
/// header comes with shard 1 only, so the shards' files concatenated in order are the whole run's.
///
/// Plot. `write_plot_data` writes one gnuplot data block per value of the series axis (x, then
/// one column per plotted output); `write_gnuplot_script` writes a script that draws it as lines
/// with points, to `<name>.png` and `<name>.svg` beside it (gnuplot run in that directory). A
/// heatmap (`scenario_plot::heatmap`) is one block of scanlines instead, rows "x series y1 y2 ...",
/// one blank line between series values, drawn as one map per plotted column side by side.
///
/// Script text. Every string from the scenario (titles, axis labels, column and axis names, file
/// names) enters the script through `gnuplot_string` or `gnuplot_file` only, so no scenario can make
/// gnuplot run a command: a single-quoted gnuplot string is text (no backquote command
/// substitution, no `@` macro, no backslash escape), a quote inside is drawn as ’ (gnuplot 5.4's
/// reader takes one doubled quote `''` but not two in a row, and a string it ends early leaves the
/// rest of the line to be read as commands), control characters become spaces (a newline would
/// end the command), and a file name is given as `./name` (gnuplot runs `plot '<cmd'` and
/// `set output '|cmd'` as commands). Enhanced-text markup (`^`, `_`, `{`, `@`, `&`, `~`) is drawn
/// as it is: the terminals and every text command are `noenhanced`. A title wrapped to the plot's
/// width is its lines as such strings joined by the script's own `."\n".` (`gnuplot_lines`).

#include <algorithm>    // std::min, std::max
#include <array>        // std::array
#include <cmath>        // std::isfinite, std::abs
#include <cstddef>      // std::size_t
#include <cstdio>       // std::snprintf
#include <ostream>      // std::ostream
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::move
#include <vector>       // std::vector

#include "strata/core/error.hpp"
#include "strata/core/sweep_io.hpp"
#include "strata/report/gnuplot_text.hpp"
#include "strata/report/scenario.hpp"

namespace strata {
inline namespace v0 {

/// The table's format.
enum class scenario_format { csv, jsonl };

namespace detail {

/// Indices into the study's columns of the scenario's outputs (all of them when none is listed).
inline std::vector<std::size_t> output_indices(const scenario& s, const std::vector<std::string>& columns) {
  std::vector<std::size_t> out;
  if (s.outputs.empty()) {
    for (std::size_t i = 0; i < columns.size(); ++i) out.push_back(i);
    return out;
  }
  for (const auto& o : s.outputs) {
    for (std::size_t i = 0; i < columns.size(); ++i) {
      if (columns[i] == o) out.push_back(i);
    }
  }
  return out;
}

inline void write_table_number(std::ostream& os, double v, scenario_format f) {
  std::array<char, 32> buf{};
  if (f == scenario_format::jsonl && !std::isfinite(v)) {
    os << "null";
  } else {
    os << number_text(v, buf);
  }
}

}  // namespace detail


/// The legend text of plotted column `c` (`scenario_plot::labels`, or the column's name read as text).
inline std::string plot_column_label(const scenario_plot& p, std::size_t c) {
  return c < p.labels.size() && !p.labels[c].empty() ? p.labels[c] : detail::plot_label(p.y.at(c));
}

/// The legend text of series value `v` (`scenario_plot::series_label` with `{}` replaced by the
/// value, or "<axis> = <value> <unit>", `f_GHz`: "f = 0.5 GHz").
inline std::string plot_series_label(const scenario_plot& p, double v) {
  std::array<char, 32> buf{};
  const std::string value(detail::number_text(v, buf));
  if (const auto at = p.series_label.find("{}"); at != std::string::npos) {
    return p.series_label.substr(0, at) + value + p.series_label.substr(at + 2);
  }
  const auto n = detail::read_plot_name(p.series);
  return n.text + " = " + value + (n.unit.empty() ? "" : " " + n.unit);
}


/// A `stream_sweep` sink writing a scenario's table (file comment).
class scenario_table_writer {
 public:
  scenario_table_writer(std::ostream& os, const scenario& s, const sweep_space& space, scenario_format format,
                        const sweep_shard& shard = {})
      : os_(&os), space_(&space), format_(format), columns_(scenario_columns(s.study)),
        pick_(detail::output_indices(s, columns_)), header_(format == scenario_format::csv && shard.index == 1) {
    validate(shard);
  }

  void operator()(const design_point& x, const std::vector<double>& row) {
    std::ostream& os = *os_;
    const auto& axes = space_->axes();
    if (header_) {
      header_ = false;
      os << "index";
      for (const auto& a : axes) os << ',' << a.name;
      for (std::size_t i : pick_) os << ',' << columns_[i];
      os << '\n';
    }
    std::array<char, 32> buf{};
    if (format_ == scenario_format::csv) {
      os << detail::integer_text(static_cast<long long>(x.index()), buf);
      for (double v : x.values()) {
        os << ',';
        detail::write_table_number(os, v, format_);
      }
      for (std::size_t i : pick_) {
        os << ',';
        detail::write_table_number(os, row.at(i), format_);
      }
    } else {
      os << "{\"index\":" << detail::integer_text(static_cast<long long>(x.index()), buf);
      for (std::size_t a = 0; a < axes.size(); ++a) {
        os << ',';
        detail::write_json_string(os, axes[a].name);
        os << ':';
        detail::write_table_number(os, x.values()[a], format_);
      }
      for (std::size_t i : pick_) {
        os << ',';
        detail::write_json_string(os, columns_[i]);
        os << ':';
        detail::write_table_number(os, row.at(i), format_);
      }
      os << '}';
    }
    os << '\n';
  }

 private:
  std::ostream* os_;
  const sweep_space* space_;
  scenario_format format_;
  std::vector<std::string> columns_;
  std::vector<std::size_t> pick_;
  bool header_;
};

/// What a plot needs of one evaluated point.
struct plot_point {
  double x = 0.0, series = 0.0;
  std::vector<double> y;  ///< the plotted columns, in `scenario_plot::y` order
};

/// Collects the plot's points as the sweep runs (a `stream_sweep` sink, beside the table).
class plot_collector {
 public:
  plot_collector(const scenario& s, const sweep_space& space) : columns_(scenario_columns(s.study)) {
    x_ = space.index_of(s.plot.x);
    series_ = s.plot.series.empty() ? space.dimensions() : space.index_of(s.plot.series);
    for (const auto& y : s.plot.y) {
      for (std::size_t i = 0; i < columns_.size(); ++i) {
        if (columns_[i] == y) y_.push_back(i);
      }
    }
  }
  void operator()(const design_point& x, const std::vector<double>& row) {
    plot_point p;
    p.x = x[x_];
    p.series = series_ < x.values().size() ? x[series_] : 0.0;
    for (std::size_t i : y_) p.y.push_back(row.at(i));
    points_.push_back(std::move(p));
  }
  [[nodiscard]] const std::vector<plot_point>& points() const { return points_; }

 private:
  std::vector<std::string> columns_;
  std::size_t x_ = 0, series_ = 0;
  std::vector<std::size_t> y_;
  std::vector<plot_point> points_;
};

/// The series values in order of first appearance.
inline std::vector<double> plot_series(const std::vector<plot_point>& pts) {
  std::vector<double> out;
  for (const auto& p : pts) {
    bool seen = false;
    for (double v : out) seen = seen || v == p.series;
    if (!seen) out.push_back(p.series);
  }
  return out;
}

/// The gnuplot data: one block per series value (two blank lines apart), rows "x y1 y2 ...".
inline void write_plot_data(std::ostream& os, const scenario& s, const std::vector<plot_point>& pts) {
  std::array<char, 32> buf{};
  const auto series = plot_series(pts);
  if (s.plot.heatmap) {
    os << "# " << s.plot.x << ' ' << s.plot.series;
    for (const auto& y : s.plot.y) os << ' ' << y;
    os << '\n';
    for (std::size_t k = 0; k < series.size(); ++k) {
      if (k > 0) os << '\n';
      for (const auto& p : pts) {
        if (p.series != series[k]) continue;
        os << detail::number_text(p.x, buf) << ' ' << detail::number_text(p.series, buf);
        for (double v : p.y) os << ' ' << detail::number_text(v, buf);
        os << '\n';
      }
    }
    return;
  }
  for (std::size_t k = 0; k < series.size(); ++k) {
    if (k > 0) os << "\n\n";
    os << "# " << (s.plot.series.empty() ? std::string("all points") : s.plot.series + " = " + std::string(detail::number_text(series[k], buf)))
       << ": " << s.plot.x;
    for (const auto& y : s.plot.y) os << ' ' << y;
    os << '\n';
    for (const auto& p : pts) {
      if (p.series != series[k]) continue;
      os << detail::number_text(p.x, buf);
      for (double v : p.y) os << ' ' << detail::number_text(v, buf);
      os << '\n';
    }
  }
}

/// The gnuplot script drawing `<name>.dat` into `<name>.png` and `<name>.svg` (file comment), or
/// the files `files` names. Text a reader sees: titles wrapped to the plot's width
/// (`plot_char_px`), axis labels and a legend entry per series read from the scenario's labels or
/// the names (`plot_column_label`, `plot_series_label`), never a bare column name unless it is
/// one word; a heatmap's maps share one colour scale (`set cbrange` over every map's values).
inline void write_gnuplot_script(std::ostream& os, const scenario& s, const std::vector<plot_point>& pts,
                                 const plot_script_files& files = {}) {
  const auto& p = s.plot;
  const std::string dat = gnuplot_file(files.data.empty() ? s.name + ".dat" : files.data);
  const std::string png = gnuplot_file(files.png.empty() ? s.name + ".png" : files.png);
  const std::string svg = gnuplot_file(files.svg.empty() ? s.name + ".svg" : files.svg);
  os << "# " << detail::gnuplot_line_text(s.name) << ": written by strata-eval run; gnuplot "
     << detail::gnuplot_line_text(s.name) << ".gp (in this directory)\n";
  os << "set datafile missing 'nan'\n";
  const std::string title = p.title.empty() ? (s.title.empty() ? s.name : s.title) : p.title;
  // Text wrapped to `px` pixels, in lines of px / plot_char_px characters.
  const auto wrapped = [](const std::string& text, int px) {
    return gnuplot_lines(detail::wrap_plot_text(text, static_cast<std::size_t>(std::max(px / plot_char_px, 16))));
  };
  const auto specs = scenario_axes(s.study);
  const auto axis_label = [&](const std::string& name) {  // what the study says the axis is
    for (const auto& a : specs) {
      if (a.name == name) return std::string(a.meaning);
    }
    return detail::plot_label(name);
  };
  os << "set xlabel " << gnuplot_string(p.x_label.empty() ? axis_label(p.x) : p.x_label) << " noenhanced\n";
  std::string ylabel = p.y_label;
  if (ylabel.empty()) {
    for (std::size_t c = 0; c < p.y.size(); ++c) ylabel += (ylabel.empty() ? "" : ", ") + plot_column_label(p, c);
  }
  if (p.heatmap) {
    // n maps side by side, 360 px each and 120 px of margins: the title spans the canvas, a map's
    // title its panel less the colour box and tics (120 px).
    const int width = static_cast<int>(std::min<std::size_t>(p.y.size(), 4)) * 360 + 120;
    const int panel = width / static_cast<int>(std::max<std::size_t>(p.y.size(), 1)) - 120;
    os << "set ylabel " << gnuplot_string(p.y_label.empty() ? axis_label(p.series) : p.y_label) << " noenhanced\n";
    os << "set size ratio -1\nset palette rgbformulae 33,13,10\nunset key\n";
    for (const auto& a : specs) {  // a map over integer axes: one tic per cell
      if (a.integer && a.name == p.x) os << "set xtics 1\n";
      if (a.integer && a.name == p.series) os << "set ytics 1\n";
    }
    // One colour scale for every map: the range of all their finite values, set on each panel.
    double lo = 0.0, hi = 0.0;
    bool any = false;
    for (const auto& pt : pts) {
      for (double v : pt.y) {
        if (!std::isfinite(v)) continue;
        lo = any ? std::min(lo, v) : v;
        hi = any ? std::max(hi, v) : v;
        any = true;
      }
    }
    std::string cbrange;
    if (any) {
      if (lo == hi) {  // one value: a range around it
        const double d = lo == 0.0 ? 1.0 : std::abs(lo) * 0.05;
        lo -= d;
        hi += d;
      }
      std::array<char, 32> buf{};
      cbrange = "set cbrange [" + std::string(detail::number_text(lo, buf)) + ":";
      cbrange += std::string(detail::number_text(hi, buf)) + "]\n";
    }
    const auto maps = [&] {
      std::string body = "set multiplot layout 1," + std::to_string(p.y.size()) + " title " + wrapped(title, width - 40) + " noenhanced\n";
      for (std::size_t c = 0; c < p.y.size(); ++c) {
        body += "set title " + wrapped(plot_column_label(p, c), panel) + " noenhanced\n" + cbrange;
        body += "plot " + dat + " using 1:2:" + std::to_string(c + 3) + " with image\n";
      }
      return body + "unset multiplot\n";
    };
    const std::string size = std::to_string(width) + ",480";
    os << "set terminal pngcairo size " << size << " font 'Sans,12' noenhanced\n";
    os << "set output " << png << "\n" << maps();
    os << "set terminal svg size " << size << " font 'Arial,12' noenhanced\n";
    os << "set output " << svg << "\n" << maps() << "set output\n";
    return;
  }
  os << "set ylabel " << gnuplot_string(ylabel) << " noenhanced\n";
  if (p.log_x) os << "set logscale x\n";
  if (p.log_y) os << "set logscale y\n";
  os << "set grid\nset key outside right top noenhanced\n";
  const auto series = plot_series(pts);
  std::string plot = "plot ";
  std::size_t widest = 0;  // the longest legend entry, in characters
  bool first = true;
  for (std::size_t k = 0; k < series.size(); ++k) {
    for (std::size_t c = 0; c < p.y.size(); ++c) {
      std::string entry;
      if (!p.series.empty()) entry = plot_series_label(p, series[k]);
      if (p.y.size() > 1 || entry.empty()) entry += (entry.empty() ? "" : ": ") + plot_column_label(p, c);
      widest = std::max(widest, detail::text_chars(entry));
      plot += (first ? "" : ", \\\n     ") + dat + " index " + std::to_string(k) + " using 1:" +
              std::to_string(c + 2) + " with linespoints title " + gnuplot_string(entry);
      first = false;
    }
  }
  // 960 px: the title is centred on the plot area, the canvas less the left margin (100 px) and
  // the key outside right (its widest entry, the sample line and gaps: 80 px).
  const int area = 960 - 100 - (static_cast<int>(widest) * plot_char_px + 80);
  os << "set title " << wrapped(title, area) << " noenhanced\n";
  os << "set terminal pngcairo size 960,600 font 'Sans,12' noenhanced\n";
  os << "set output " << png << "\n" << plot << "\n";
  os << "set terminal svg size 960,600 font 'Arial,12' noenhanced\n";
  os << "set output " << svg << "\nreplot\nset output\n";
}

/// The optimise study's two rows as a table (CSV with header, or JSON Lines).
inline void write_optimise_table(std::ostream& os, const optimise_study& r, scenario_format f) {
  const auto cols = optimise_columns();
  const char* names[] = {"optimum", "baseline"};
  if (f == scenario_format::csv) {
    os << "design";
    for (const auto& c : cols) os << ',' << c;
    os << '\n';
  }
  for (std::size_t k = 0; k < r.rows.size(); ++k) {
    if (f == scenario_format::csv) {
      os << names[k];
      for (double v : r.rows[k]) {
        os << ',';
        detail::write_table_number(os, v, f);
      }
    } else {
      os << R"({"design":")" << names[k] << '"';
      for (std::size_t c = 0; c < cols.size(); ++c) {
        os << ",\"" << cols[c] << "\":";
        detail::write_table_number(os, r.rows[k][c], f);
      }
      os << '}';
    }
    os << '\n';
  }
}

/// The optimise study in words: the optimum, the system's design, binding budgets, shadow prices.
inline void write_optimise_summary(std::ostream& os, const scenario& s, const optimise_study& r) {
  // Human text: 4 significant digits (docs/cli.md, Output conventions); the table has every digit.
  const auto g = [](double v) {
    std::array<char, 32> buf{};
    std::snprintf(buf.data(), buf.size(), "%.4g", v);
    return std::string(buf.data());
  };
  const auto& o = r.optimum;
  const char* unit = s.optimise.objective == design_objective::decode_throughput   ? "tokens/s"
                     : s.optimise.objective == design_objective::throughput_per_area ? "tokens/s/mm2"
                                                                                     : "tokens/J";
  std::string objective = "?";
  for (const auto& [e, n] : enum_names(s.optimise.objective)) {
    if (e == s.optimise.objective) objective = n;
  }
  os << s.name << ": maximise " << objective << " (" << unit << ") of " << s.system << " on " << s.model
     << ", decode B = " << s.workload.batch << ", S = " << s.workload.context << ", within Eq. 1-3\n";
  const auto line = [&](const char* what, const design_evaluation& e) {
    const auto& c = e.choice;
    os << "  " << what << ": N_mac " << c.macs << ", PEs/PU " << c.pes_per_pu << ", tiers " << c.tiers << ", layers "
       << c.layers << ", f " << g(c.f_hz * 1e-9) << " GHz -> "
       << (e.feasible ? g(e.objective) + " " + unit : "infeasible (" + e.reason + ")") << "; P_logic "
       << g(e.p_logic_W) << " W (slack " << g(e.power_slack_W) << " W), area slack " << g(e.area_slack_mm2)
       << " mm2\n";
  };
  if (!o.best.feasible) {
    os << "  no design of the domain is feasible: " << o.best.reason << "\n";
  } else {
    line("optimum ", o.best);
  }
  line("baseline", o.baseline);
  if (o.best.feasible) {
    os << "  baseline / optimum: " << g(o.baseline_ratio) << "\n";
    os << "  binding: power (Eq. 1) " << (o.power_binding ? "yes" : "no") << ", area (Eq. 2-3) "
       << (o.area_binding ? "yes" : "no") << "\n";
    os << "  shadow prices: " << g(o.power_price) << " " << unit << " per W of P_peak, " << g(o.area_price) << " "
       << unit << " per mm2 of processor area\n";
  }
  os << "  decode steps evaluated: " << o.evaluations << "\n";
}

}  // namespace v0
}  // namespace strata
