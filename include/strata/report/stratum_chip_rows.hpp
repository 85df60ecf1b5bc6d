// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The paper report's `stratum chip` family (`strata-paper-report --only stratum-chip`): the coupled
/// chip's rows `stratum.chip.*` here, then its thermal cap's, `stratum_thermal_rows`
/// (`report/thermal_rows.hpp`, a header of its own: it solves the stack's thermal network with
/// Eigen, which these rows do not need), each callable without the other families.

#include <vector>  // std::vector

#include "strata/device/stratum_chip.hpp"
#include "strata/report/paper_row.hpp"

namespace strata {
inline namespace v0 {

/// Rows `stratum.chip.*`: the coupled chip, whose logic die takes its tiers, banks, fast-tier
/// bandwidth and area from the Mono3D die it is bonded to (device/stratum_chip.hpp).
// Not `inline`: strata::compiled holds its instantiation (end of file), which an `inline` one would
// not spare a STRATA_COMPILED consumer (GCC instantiates inline functions for inlining).
template <class = void>
std::vector<paper_row> stratum_chip_rows(const stratum_chip_params<>& p = {}) {
  using namespace detail;
  const auto c = evaluate(p);
  return {
      // The paper's area sums (121 − 23.94 − 14.80 − 0.21 = 82.05) are exact to 0.01 mm², so the
      // die is known to ±0.1 %.
      rel("stratum.chip.logic_die_area_mm2", c.logic_params.die_area.in(units::mm2), "mm2", 121,
          0.001, "Stratum §6.2.2", row_kind::fit, "stratum_chip_params.bond_edge"),
      with("stratum.chip.feasible_1024_layers", c.feasible ? 1.0 : 0.0, "bool", 1, row_check::exact,
           "Stratum §6.2.3, Table 3 (64k MACs fit the bonded die)"),
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
extern template std::vector<paper_row> stratum_chip_rows<void>(const stratum_chip_params<>&);
}  // namespace v0
}  // namespace strata
#endif
