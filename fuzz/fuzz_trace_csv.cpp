// SPDX-License-Identifier: MIT
// Fuzz target: a per-token routing trace (seq,pos,L1..LN). The first byte picks the options
// (experts 0 = infer or 64; k 0 = infer or 6); every id read must be in range.
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "strata/workload/trace_io.hpp"

STRATA_FUZZ_TARGET(fuzz_trace_csv) {
  if (size == 0) return 0;
  strata::trace_csv_options opt;
  opt.experts = (data[0] & 1) != 0 ? 64 : 0;
  opt.k = (data[0] & 2) != 0 ? 6 : 0;
  opt.label = (data[0] & 4) != 0 ? "topic" : "";
  return strata_fuzz::run([&] {
    const auto t = strata::parse_trace_csv(strata_fuzz::as_text(data + 1, size - 1), opt, "trace.csv");
    if (t.ids().size() != t.tokens() * static_cast<std::size_t>(t.layers()) * static_cast<std::size_t>(t.k())) {
      strata_fuzz::finding("trace size", double(t.ids().size()));
    }
    for (const auto id : t.ids()) {
      if (id >= t.experts_per_layer()) strata_fuzz::finding("expert id out of range", id);
    }
  });
}
