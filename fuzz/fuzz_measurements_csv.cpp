// SPDX-License-Identifier: MIT
// Fuzz target: a GPU measurement file (baseline/measurements_io.hpp), then the modelled value of
// its first row with the shipped knobs (baseline/validation.hpp): every figure must be finite and
// positive, the row's bounds keep the roofline work to 17 step evaluations.
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "strata/baseline/validation.hpp"

STRATA_FUZZ_TARGET(fuzz_measurements_csv) {
  return strata_fuzz::run([&] {
    const auto rows = strata::parse_measurements_csv(strata_fuzz::as_text(data, size), "m.csv");
    if (rows.empty()) strata_fuzz::finding("no rows without an error");
    for (const auto& m : rows) {
      if (!(m.value > 0.0) || !std::isfinite(m.value)) strata_fuzz::finding("measured value", m.value);
    }
    const auto p = strata::prepare_measurement(rows.front());
    const auto r = strata::model_measurement(p, strata::knobs_of(p.gpu));
    strata_fuzz::require_finite(r.value, "modelled value");
    if (!(r.value > 0.0)) strata_fuzz::finding("modelled value not positive", r.value);
  });
}
