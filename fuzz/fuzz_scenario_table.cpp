// SPDX-License-Identifier: MIT
// Fuzz target: a scenario's gathered table (report/scenario_table.hpp, `strata-eval plot`), read
// against one of two small scenarios (first byte: 0 a lines plot of stratum_vs_gpu over batch x
// context, 1 a heatmap of logic_budget over macs x f_GHz), then its plot data and script written:
// a table that reads holds every point of the scenario once, with the scenario's axis values.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string_view>

#include "fuzz_support.hpp"
#include "strata/report/scenario_json.hpp"
#include "strata/report/scenario_table.hpp"

namespace {

const strata::scenario& scenario_of(std::uint8_t which) {
  static const strata::scenario lines = strata::read_scenario(
      R"({"name": "lines", "study": "stratum_vs_gpu", "outputs": ["speedup", "energy_gain"],
          "sweep": {"axes": [{"name": "batch", "kind": "list", "values": [1, 4]},
                             {"name": "context", "kind": "list", "values": [512, 2048]}]},
          "plot": {"x": "batch", "y": ["speedup", "energy_gain"], "series": "context"}})",
      "lines.json");
  static const strata::scenario map = strata::read_scenario(
      R"({"name": "map", "study": "logic_budget", "outputs": ["p_logic_W", "feasible"],
          "sweep": {"axes": [{"name": "macs", "kind": "list", "values": [16384, 32768]},
                             {"name": "f_GHz", "kind": "list", "values": [0.5, 1, 1.5]}]},
          "plot": {"x": "macs", "y": "p_logic_W", "series": "f_GHz", "style": "heatmap"}})",
      "map.json");
  return which % 2 == 0 ? lines : map;
}

}  // namespace

STRATA_FUZZ_TARGET(fuzz_scenario_table) {
  if (size == 0) return 0;
  return strata_fuzz::run([&] {
    const strata::scenario& s = scenario_of(data[0]);
    const std::string_view text = strata_fuzz::as_text(data + 1, size - 1);
    const auto points = strata::parse_scenario_table(text, s, "t.csv");
    if (points.size() != strata::scenario_space(s).size()) strata_fuzz::finding("points", double(points.size()));
    for (const auto& p : points) {
      strata_fuzz::require_finite(p.x, "x");
      strata_fuzz::require_finite(p.series, "series");
      if (p.y.size() != s.plot.y.size()) strata_fuzz::finding("plotted columns", double(p.y.size()));
    }
    std::ostringstream dat, gp;
    strata::write_plot_data(dat, s, points);
    strata::write_gnuplot_script(gp, s, points);
  });
}
