// SPDX-License-Identifier: MIT
// Fuzz target: a cross-layer top-1 transition table. Row probabilities must be finite and sum to
// 0 or 1.
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "strata/workload/trace_io.hpp"

STRATA_FUZZ_TARGET(fuzz_top1_transitions_csv) {
  return strata_fuzz::run([&] {
    const auto table = strata::parse_top1_transitions_csv(strata_fuzz::as_text(data, size), "top1.csv");
    for (const auto& t : table.series) {
      for (int from = 0; from < t.experts; ++from) {
        // probability() sums its row on every call: O(E) each, so the check uses the row total.
        const auto row = t.row_total(from);
        if (row < 0) strata_fuzz::finding("negative row total", double(row));
        double sum = 0.0;
        for (int to = 0; to < t.experts && row > 0; ++to) sum += double(t.count(from, to)) / double(row);
        if (row > 0) strata_fuzz::require_finite(t.probability(from, 0), "probability");
        strata_fuzz::require_finite(sum, "row probability");
        if (sum != 0.0 && std::abs(sum - 1.0) > 1e-9) strata_fuzz::finding("row probabilities do not sum to 1", sum);
      }
    }
  });
}
