// Shared test helper: a model's synthetic routing trace (`trace_gen_for`) with a given number of
// sequences and sequence lengths, the shape the HCRMap and scale-out suites build.
#pragma once

#include "strata/workload/model.hpp"
#include "strata/workload/trace_gen.hpp"

namespace strata_test {

/// `trace_gen_for(m)` with `sequences` sequences of `min_length`..`max_length` tokens.
inline strata::trace_gen_params shaped_trace_params(const strata::model& m, int sequences, int min_length,
                                                    int max_length) {
  auto g = strata::trace_gen_for(m);
  g.sequences = sequences;
  g.min_length = min_length;
  g.max_length = max_length;
  return g;
}

/// The trace of `shaped_trace_params`.
inline strata::routing_trace shaped_trace(const strata::model& m, int sequences, int min_length, int max_length) {
  return strata::generate_trace(shaped_trace_params(m, sequences, min_length, max_length));
}

}  // namespace strata_test
