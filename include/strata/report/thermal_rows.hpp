// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Rows `stratum.thermal.*` of the paper report: the logic-die power cap that the Stratum stack's
/// thermal model derives (`thermal/stratum_stack.hpp`), beside the 45 W that Stratum §6.2.2 takes
/// from HotSpot with high-end liquid cooling, and what Eq. 1–3 size under the derived cap. They
/// are reported with the `stratum chip` family (`paper_rows.hpp`).

#include <string>  // std::string
#include <vector>  // std::vector

#include "strata/device/stratum_chip.hpp"
#include "strata/report/paper_row.hpp"
#include "strata/thermal/stratum_stack.hpp"

namespace strata {
inline namespace v0 {

/// The paper's logic-die power cap and the tolerance issue 48 gives the derived one against it.
inline constexpr double stratum_paper_power_cap_W = 45.0;      // [Stratum §6.2.2]
inline constexpr double stratum_power_cap_tolerance = 0.25;     // [issue 48 item 4: ±25 %]

/// Rows `stratum.thermal.*` for the stack `s` (default: the Table 3 chip on the cited stack):
/// - `stratum.thermal.logic_power_limit_W` (prediction): the logic power at which the hottest DRAM
///   cell reaches the limit;
/// - `stratum.thermal.logic_power_limit_vs_paper_W` (check): the same against the paper's 45 W,
///   ±25 %; when it misses, its known disagreement gives the terms (rise per watt, DRAM's own
///   rise, the cold plate's h and share of the path);
/// - `stratum.thermal.rise_per_logic_W_K`, `stratum.thermal.dram_self_rise_K`,
///   `stratum.thermal.logic_junction_at_limit_C` (predictions): the terms;
/// - `stratum.thermal.max_macs_under_derived_cap` (prediction): Eq. 1–3's largest N_mac with the
///   derived cap in place of 45 W (`with_derived_power_cap`, `max_macs_within_budget`).
///
/// `cache` keeps the stack's factorisation from one call to the next (`thermal::logic_power_limit`;
/// the gap explainer's re-evaluations of the stack): the same rows, bit for bit, as without it.
// Not `inline`: strata::compiled holds its instantiation (end of file), which an `inline` one would
// not spare a STRATA_COMPILED consumer (GCC instantiates inline functions for inlining).
template <class = void>
std::vector<paper_row> stratum_thermal_rows(const thermal::stratum_stack_params& s,
                                            thermal::steady_factorisation_cache<>& cache) {
  using namespace detail;
  const auto r = thermal::logic_power_limit(s, cache);
  std::vector<paper_row> rows;
  const std::string src = "Stratum §6.2.2 (HotSpot, high-end liquid cooling); stack of thermal/stratum_stack.hpp";
  rows.push_back(predict("stratum.thermal.logic_power_limit_W", r.limit_W, "W", src));
  rows.push_back(rel("stratum.thermal.logic_power_limit_vs_paper_W", r.limit_W, "W", stratum_paper_power_cap_W,
                     stratum_power_cap_tolerance, src));
  if (!rows.back().ok().value_or(true)) {
    // Share of the binding column's rise (coolant to the cell at the limit) dropped between the TIM's
    // node and the coolant: the TIM and the cold plate.
    const double column = r.limit_K - r.coolant_K;
    const double plate = r.layers.empty() ? 0.0 : r.layers.back().hotspot_K - r.coolant_K;
    rows.back().known_disagreement =
        "the stack's hottest DRAM cell (over " + r.binding_block + ") rises " + fixed(r.rise_per_W_K, 3) +
        " K per logic watt and " + fixed(r.dram_self_rise_K, 1) + " K from the DRAM's own " +
        fixed(r.dram.total_W(), 1) + " W (refresh + access at BW_fast), so the " + fixed(column, 0) +
        " K from the " + fixed(r.coolant_K - 273.15, 0) + " degC coolant to the limit admit " +
        fixed(r.limit_W, 1) + " W; " + fixed(column > 0.0 ? 100.0 * plate / column : 0.0, 0) +
        " % of that rise is across the TIM and the cold plate (h = " + fixed(s.cold_plate_h_W_m2K / 1e3, 0) +
        " kW/(m2 K), Tuckerman & Pease's microchannel sink). The paper's HotSpot stack, h and coolant are not "
        "published; the cap is most sensitive to h (docs/thermal.md gives the h that yields 45 W)";
  }
  rows.push_back(predict("stratum.thermal.rise_per_logic_W_K", r.rise_per_W_K, "K/W",
                         "hottest DRAM cell per watt of logic power (Eq. 1's proportions)"));
  rows.push_back(predict("stratum.thermal.dram_self_rise_K", r.dram_self_rise_K, "K",
                         "hottest DRAM cell from refresh + access at BW_fast"));
  rows.push_back(predict("stratum.thermal.logic_junction_at_limit_C", r.logic_max_K - 273.15, "degC",
                         "hottest logic-die node at the derived cap"));
  double macs = 0.0;
  if (r.feasible) {
    auto p = s.chip;
    p.logic.p_peak = units::W(r.limit_W);
    macs = static_cast<double>(max_macs_within_budget(p).n_mac);
  }
  rows.push_back(predict("stratum.thermal.max_macs_under_derived_cap", macs, "MACs",
                         "Stratum §4.3 Eq. 1-3 with the derived cap in place of 45 W"));
  return rows;
}

/// `stratum_thermal_rows(s, cache)` with a cache of its own (one factorisation).
template <class = void>
std::vector<paper_row> stratum_thermal_rows(const thermal::stratum_stack_params& s = {}) {
  thermal::steady_factorisation_cache<> cache;
  return stratum_thermal_rows(s, cache);
}

}  // namespace v0
}  // namespace strata

// strata::compiled (STRATA_BUILD_COMPILED, src/compiled_report.cpp) holds the family's
// instantiations; STRATA_COMPILED=1, which that target puts on its users, keeps their translation
// units from generating them. Without it this header is unchanged (header-only).
#if defined(STRATA_COMPILED) && STRATA_COMPILED
namespace strata {
inline namespace v0 {
extern template std::vector<paper_row> stratum_thermal_rows<void>(const thermal::stratum_stack_params&);
extern template std::vector<paper_row> stratum_thermal_rows<void>(const thermal::stratum_stack_params&,
                                                                  thermal::steady_factorisation_cache<>&);
}  // namespace v0
}  // namespace strata
#endif
