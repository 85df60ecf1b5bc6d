// SPDX-License-Identifier: MIT
// Fuzz target: scenario files of `strata-eval run` (report/scenario_json.hpp). The input is read
// with strata::read_scenario; what validates is built (its sweep space, its prepared model) and
// its first and last design points are evaluated: every column must be a finite number or NaN
// (a point with no value, e.g. a step that does not fit), never an infinity. The optimise study
// is read and checked, not run (a scan of up to 10^5 designs exceeds the per-input timeout), and so
// are the HCRMap studies (a point is a whole policy comparison, about a second; the files they
// name are not loaded here: their readers have fuzz targets of their own).
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "strata/core/sweep.hpp"
#include "strata/report/scenario.hpp"
#include "strata/report/scenario_json.hpp"

STRATA_FUZZ_TARGET(fuzz_scenario_json) {
  strata_fuzz::run([&] {
    const auto s = strata::read_scenario(strata_fuzz::as_text(data, size), "fuzz.json");
    if (s.study == strata::study_kind::optimise || strata::is_hcrmap_study(s.study)) return;
    const strata::scenario_model m(s);
    const auto& space = m.space();
    if (space.size() > strata::scenario_max_points) strata_fuzz::finding("points beyond the scenario limit", double(space.size()));
    for (std::size_t i : {std::size_t{0}, space.size() - 1}) {
      const strata::design_point x(space, i);
      const auto row = m(x);
      if (row.size() != strata::scenario_columns(s.study).size()) strata_fuzz::finding("row width", double(row.size()));
      for (double v : row) {
        if (std::isinf(v)) strata_fuzz::finding("infinite column", v);
      }
    }
  });
  return 0;
}
