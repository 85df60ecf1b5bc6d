// SPDX-License-Identifier: MIT
// Fuzz target: the scenario runner end to end (`strata-eval run`: report/scenario_json.hpp,
// scenario_files.hpp, scenario.hpp), with a small work budget. The input is read with
// strata::read_scenario, the files it names are loaded relative to the repository root (the bundled ESFT
// trace, the DQN checkpoint; anything else is refused by the opening rule), and every design
// point of the study is evaluated through stream_sweep, as `run` does. The budget: at most 16
// points (4 for a device study, whose point searches up to 256 chip counts), HCRMap studies
// within hcrmap_limits().routes lowered to 2^20 expert routes (about 0.2 s); the optimise study is
// read and checked, not run (its scan is fuzz_scenario_json's concern). Every column must be a
// finite number or NaN (a point without a value), and every row as wide as the study's columns.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "strata/core/sweep.hpp"
#include "strata/hcrmap/experiment_params.hpp"
#include "strata/report/scenario.hpp"
#include "strata/report/scenario_files.hpp"
#include "strata/report/scenario_json.hpp"

STRATA_FUZZ_TARGET(fuzz_scenario_run) {
  static const bool limited = [] {
    strata::hcrmap_limits().routes = std::int64_t{1} << 20;
    return true;
  }();
  (void)limited;
  strata_fuzz::run([&] {
    const auto s = strata::read_scenario(strata_fuzz::as_text(data, size), "fuzz.json");
    if (s.study == strata::study_kind::optimise) return;
    const std::size_t budget = s.study == strata::study_kind::device ? 4 : 16;
    if (strata::scenario_space(s).size() > budget) return;
    const strata::scenario_model m(s, strata::load_scenario_inputs(s, std::string(STRATA_FUZZ_DATA_DIR)));
    const std::size_t width = strata::scenario_columns(s.study).size();
    std::size_t rows = 0;
    strata::stream_sweep(
        m.space(), m,
        [&](const strata::design_point&, const std::vector<double>& row) {
          ++rows;
          if (row.size() != width) strata_fuzz::finding("row width", double(row.size()));
          for (double v : row) {
            if (std::isinf(v)) strata_fuzz::finding("infinite column", v);
          }
        },
        strata::sweep_options{.threads = 1});
    if (rows != m.space().size()) strata_fuzz::finding("rows written", double(rows));
  });
  return 0;
}
