// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The paper report's `stratum logic die` family (rows `stratum.logic.*`, `strata-paper-report
/// --only stratum-logic`), callable without the other families.

#include <vector>  // std::vector

#include "strata/device/logic_die.hpp"
#include "strata/device/mono3d.hpp"
#include "strata/report/paper_row.hpp"

namespace strata {
inline namespace v0 {

/// Rows `stratum.logic.*`: the Table 3 processor on the default die, fed by the fastest tier of
/// the default Mono3D chip (BW_fast of Eq. 1 comes from the device model, not from the paper).
// Not `inline`: strata::compiled holds its instantiation (end of file), which an `inline` one would
// not spare a STRATA_COMPILED consumer (GCC instantiates inline functions for inlining).
template <class = void>
std::vector<paper_row> stratum_logic_rows(const logic_die_params<>& lp = {},
                                                 const mono3d_params<>& mp = {}) {
  using namespace detail;
  const auto bw_fast = evaluate(mp).tiers.front().internal_bandwidth;
  const auto r = evaluate(lp, bw_fast);
  const auto best = max_macs_within_budget(lp, bw_fast);
  const double n_pe = double(lp.n_pu) * lp.pes_per_pu;
  const double p_total = r.p_logic.in(units::W);
  return {
      // A_die − A_PHY − A_peri are inputs and A_PD is the TSV fit below: the budget echoes them
      // (±0.5 % of 82.05 mm² is wider than A_PD itself, so this row cannot test Eq. 3).
      rel("stratum.logic.area_budget_mm2", r.a_processor_budget.in(units::mm2), "mm2", 82.05, 0.005,
          "Stratum §4.3 Eq. 2-3, §6.2.2", row_kind::input),
      rel("stratum.logic.power_tsv_area_mm2", r.a_pd.in(units::mm2), "mm2", 0.21, 0.03,
          "Stratum §4.3 Eq. 3, §6.2.2", row_kind::fit, "logic_die_params.i_tsv"),
      with("stratum.logic.macs", r.n_mac, "MACs", 64000, row_check::exact, "Stratum Table 3",
           row_kind::input),
      rel("stratum.logic.peak_tflops", r.peak_throughput.in(units::Tflops), "TFLOPS", 128, 0.01,
          "Stratum Table 3"),
      rel("stratum.logic.active_area_mm2", r.a_active.in(units::mm2), "mm2", 76.63, 0.02,
          "Stratum §6.2.3, Table 3", row_kind::fit, "logic_die_params.a_mac"),
      // 0.63 = 76.63 / 121: the same number as the active-area row over the input die area.
      rel("stratum.logic.area_utilization", r.utilization, "fraction", 0.63, 0.02,
          "Stratum §6.2.3", row_kind::fit, "logic_die_params.a_mac"),
      // Tightened from ±2 %: MACs and DRAM access (cited inputs) carry ~80 % of the power, so a
      // ±10 % error of the fitted misc density moves the total by only ~2 %.
      rel("stratum.logic.peak_power_W", r.p_logic.in(units::W), "W", 42.67, 0.01,
          "Stratum §4.3 Eq. 1, Table 3", row_kind::fit, "logic_die_params.p_misc_per_mm2"),
      with("stratum.logic.power_cap_W", r.p_peak.in(units::W), "W", 45, row_check::exact,
           "Stratum §6.2.1 (HotSpot)", row_kind::input),
      with("stratum.logic.max_macs_within_budget", double(best.n_mac), "MACs", 64000,
           row_check::at_least, "Stratum §4.3 Eq. 1-2"),
      rel("stratum.logic.tiering_table_area_fraction_of_pe", r.tiering_fraction_of_pe, "fraction",
          0.001, 0.5, "Stratum §6.2.3 Fig. 15a"),
      with("stratum.logic.pe_area_share", n_pe * r.a_pe.in(units::mm2) / r.a_active.in(units::mm2),
           "fraction", 0.5, row_check::at_least, "Stratum §6.2.3 Fig. 15a (PEs take most of the area)"),
      predict("stratum.logic.power_share_dram_access", r.p_dram_access.in(units::W) / p_total,
              "fraction", "Stratum §6.2.3 Fig. 15b (at peak)"),
      predict("stratum.logic.power_share_mac", r.p_mac.in(units::W) / p_total, "fraction",
              "Stratum §6.2.3 Fig. 15b (at peak)"),
      predict("stratum.logic.power_share_misc",
              (r.p_logic - r.p_mac - r.p_dram_access).in(units::W) / p_total, "fraction",
              "Stratum §6.2.3 Fig. 15b (at peak)"),
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
extern template std::vector<paper_row> stratum_logic_rows<void>(const logic_die_params<>&, const mono3d_params<>&);
}  // namespace v0
}  // namespace strata
#endif
