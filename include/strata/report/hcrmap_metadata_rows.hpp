// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The paper report's `hcrmap metadata` family (rows `hcrmap.metadata.*`, `strata-paper-report
/// --only hcrmap-metadata`), callable without the other families.

#include <vector>  // std::vector

#include "strata/chiplet/residency.hpp"
#include "strata/chiplet/substrate.hpp"
#include "strata/report/hcrmap_models.hpp"
#include "strata/report/paper_row.hpp"
#include "strata/workload/presets.hpp"

namespace strata {
inline namespace v0 {

/// Rows `hcrmap.metadata.*` (§7.5): sizes of the directory entry, of the directory of the model
/// with the most routed experts among Table 2's at the 1.3× budget of Table 1, and of the
/// pressure counters of the default substrate.
// Not `inline`: strata::compiled holds its instantiation (end of file), which an `inline` one would
// not spare a STRATA_COMPILED consumer (GCC instantiates inline functions for inlining).
template <class = void>
std::vector<paper_row> hcrmap_metadata_rows(const substrate_params& sp = {}) {
  using namespace detail;
  const substrate s(sp);
  int layers = 0, experts = 0;
  for (const auto& name : hcrmap_models()) {
    const auto m = preset(name);
    if (static_cast<long long>(m.moe_layers()) * m.experts > static_cast<long long>(layers) * experts) {
      layers = m.moe_layers();
      experts = m.experts;
    }
  }
  const auto md = metadata(s, layers, experts, residency_params{}.budget_factor);
  return {
      with("hcrmap.metadata.directory_bytes_per_replica", double(md.bytes_per_replica), "B", 64,
           row_check::at_most, "HCRMap §7.5"),
      with("hcrmap.metadata.directory_bytes_largest_model", double(md.directory_bytes), "B", 2097152,
           row_check::at_most, "HCRMap §7.5 (largest Table 2 directory)"),
      with("hcrmap.metadata.pressure_counter_bytes", double(md.pressure_counter_bytes), "B", 4096,
           row_check::at_most, "HCRMap §7.5, Eq. 19"),
  };
}

}  // namespace v0
}  // namespace strata

// strata::compiled (STRATA_BUILD_COMPILED, src/compiled_report.cpp) holds the family's
// instantiation; STRATA_COMPILED=1, which that target puts on its users, keeps their translation
// units from generating it. Without it this header is unchanged (header-only).
#if defined(STRATA_COMPILED) && STRATA_COMPILED
namespace strata {
inline namespace v0 {
extern template std::vector<paper_row> hcrmap_metadata_rows<void>(const substrate_params&);
}  // namespace v0
}  // namespace strata
#endif
