// SPDX-License-Identifier: MIT
// Fuzz target: any sweep's CSV (report/sweep_plot.hpp, `strata-eval plot --csv`): read under its
// bounds, then a plot selected from its columns (first byte: x the column 0 or 1, y the next one
// or two, by none or the column after them) and the plot data and script written. A table that
// reads has the header's column count in every row, and a plot that selects has finite-or-gap
// values only and at most sweep_plot_max_lines lines.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>

#include "fuzz_support.hpp"
#include "strata/report/sweep_plot.hpp"

STRATA_FUZZ_TARGET(fuzz_sweep_csv) {
  if (size == 0) return 0;
  return strata_fuzz::run([&] {
    const std::uint8_t opt = data[0];
    const std::string_view text = strata_fuzz::as_text(data + 1, size - 1);
    const auto t = strata::read_sweep_csv(text, "sweep.csv");
    if (t.columns.empty() || t.columns.size() > strata::sweep_csv_max_columns) {
      strata_fuzz::finding("columns", double(t.columns.size()));
    }
    if (t.lines.size() != t.rows.size()) strata_fuzz::finding("lines", double(t.lines.size()));
    for (const auto& r : t.rows) {
      if (r.size() != t.columns.size()) strata_fuzz::finding("row width", double(r.size()));
      for (const auto& c : r) {
        if (c.size() > strata::sweep_csv_max_cell_bytes) strata_fuzz::finding("cell bytes", double(c.size()));
      }
    }
    const std::size_t n = t.columns.size();
    const std::size_t x = opt & 1U;
    const std::size_t ys = 1 + ((opt >> 1) & 1U);
    if (n < x + 1 + ys) return;
    strata::sweep_plot_spec spec;
    spec.x = t.columns[x];
    for (std::size_t k = 0; k < ys; ++k) spec.y.push_back(t.columns[x + 1 + k]);
    if ((opt & 4U) != 0 && n > x + 1 + ys) spec.by = t.columns[x + 1 + ys];
    spec.log_y = (opt & 8U) != 0;
    const auto p = strata::select_sweep_plot(t, spec);
    if (p.groups.empty() || p.groups.size() * spec.y.size() > strata::sweep_plot_max_lines) {
      strata_fuzz::finding("lines", double(p.groups.size()));
    }
    if (p.rows.size() != t.rows.size()) strata_fuzz::finding("rows", double(p.rows.size()));
    std::ostringstream dat, gp;
    strata::write_sweep_plot_data(dat, t, spec, p);
    strata::write_sweep_gnuplot_script(gp, t, spec, p);
    // The script names no file but the plot's own: every output line is `set output './sweep.*'`.
    const std::string s = gp.str();
    for (std::size_t at = s.find("set output '"); at != std::string::npos; at = s.find("set output '", at + 1)) {
      if (s.compare(at, 20, "set output './sweep.") != 0) strata_fuzz::finding("output file", double(at));
    }
  });
}
