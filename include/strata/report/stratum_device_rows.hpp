// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The paper report's `stratum device` family (rows `stratum.device.*`, `strata-paper-report --only
/// stratum-device`), callable without the other families (`report/paper_rows.hpp` has them all).

#include <vector>  // std::vector

#include "strata/device/dram_energy.hpp"
#include "strata/device/mono3d.hpp"
#include "strata/report/paper_row.hpp"
#include "strata/tech/ddr5.hpp"

namespace strata {
inline namespace v0 {

/// Rows `stratum.device.*`: the default Mono3D chip (1024 layers, 8 tiers) and the same
/// geometry rules at 512 layers, with the memory die's area against the 121 mm² logic die it is
/// hybrid-bonded to (Stratum §6.2.2).
// Not `inline`: strata::compiled holds its instantiation (end of file), which an `inline` one would
// not spare a STRATA_COMPILED consumer (GCC instantiates inline functions for inlining).
template <class = void>
std::vector<paper_row> stratum_device_rows(const mono3d_params<>& p = {},
                                                  const dram_die_reference<>& ddr5 = {}) {
  using namespace detail;
  const auto r = evaluate(p);
  mono3d_params<> p512 = p;
  p512.layers = 512;
  return {
      with("stratum.device.tiers", double(r.tiers.size()), "tiers", 8, row_check::exact,
           "Stratum §6.2.1", row_kind::input),
      rel("stratum.device.fast_slow_latency_ratio_1024", r.fast_slow_latency_ratio, "x", 1.6, 0.03,
          "Stratum §6.2 Fig. 14", row_kind::fit, "mono3d_params.staircase_step"),
      with("stratum.device.latency_vs_layer_r2_1024", latency_vs_layer_r2(p), "R2", 0.98,
           row_check::at_least, "Stratum §6.2 Fig. 14"),
      rel("stratum.device.internal_bw_slowest_tier_TBps",
          r.tiers.back().internal_bandwidth.in(units::TBps), "TB/s", 19.01, 0.02, "Stratum §6.1"),
      rel("stratum.device.internal_bw_fastest_tier_TBps",
          r.tiers.front().internal_bandwidth.in(units::TBps), "TB/s", 30.34, 0.02, "Stratum §6.1"),
      // 256 banks of 1 Gib are the paper's 32 GB chip: the capacity follows from that input.
      rel("stratum.device.chip_capacity_GB", r.capacity.in(units::GiB), "GiB", 32, 0.01,
          "Stratum §6.1, Table 1", row_kind::input),
      rel("stratum.device.density_Gb_per_mm2", r.density.in(units::Gib_per_mm2), "Gib/mm2", 2.156,
          0.02, "Stratum §6.1", row_kind::fit, "mono3d_params.cell_depth"),
      rel("stratum.device.density_vs_ddr5_32Gb", r.density / density(ddr5), "x", 5.2, 0.03,
          "Stratum §6.1", row_kind::fit, "dram_die_reference.die_area"),
      // The memory die carries the chip's capacity at the fitted density; it must match the logic
      // die it is bonded to (a number the density fit did not use).
      rel("stratum.device.memory_die_area_mm2", r.die_area.in(units::mm2), "mm2", 121, 0.03,
          "Stratum §6.1 density vs §6.2.2 die area"),
      predict("stratum.device.fast_slow_latency_ratio_512", evaluate(p512).fast_slow_latency_ratio,
              "x", "Stratum §6.2.1 (512-layer device, same geometry rules)"),
      // The distributed staircase term 0.38·R_s·C_s over the deepest layer's t_WL: the convexity
      // of latency vs layer that the two bandwidth rows admit (mono3d.hpp derives it).
      predict("stratum.device.staircase_quadratic_share_1024", r.staircase_quadratic_share,
              "fraction", "Stratum §6.2 Fig. 14 (deepest layer)"),
      predict("stratum.device.internal_bw_fastest_tier_row_cycle_TBps",
              r.tiers.front().row_cycle_bandwidth.in(units::TBps), "TB/s",
              "Stratum §6.1 with DDR5 tRAS + tRP (row-cycle limit)"),
      predict("stratum.device.access_energy_pJ_per_bit",
              access_energy(p.energy).in(units::pJ_per_bit), "pJ/b",
              "activate/precharge + column + datapath + bond (dram_energy.hpp)"),
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
extern template std::vector<paper_row> stratum_device_rows<void>(const mono3d_params<>&, const dram_die_reference<>&);
}  // namespace v0
}  // namespace strata
#endif
