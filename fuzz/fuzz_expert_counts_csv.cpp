// SPDX-License-Identifier: MIT
// Fuzz target: an expert count table (ESFT or OLMoE layout). Every hit rate must be in [0, 1].
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "strata/workload/trace_io.hpp"

STRATA_FUZZ_TARGET(fuzz_expert_counts_csv) {
  return strata_fuzz::run([&] {
    const auto table = strata::parse_expert_counts_csv(strata_fuzz::as_text(data, size), "counts.csv");
    for (const auto& s : table.series) {
      for (const auto& l : s.layers) {
        if (l.counts.size() != static_cast<std::size_t>(s.experts)) strata_fuzz::finding("row size", double(l.counts.size()));
        for (int e = 0; e < s.experts; ++e) {
          const double p = s.hit_rate(l.layer, e);
          if (!(p >= 0.0 && p <= 1.0)) strata_fuzz::finding("hit rate out of [0, 1]", p);
        }
      }
    }
  });
}
