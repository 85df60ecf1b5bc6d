// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The paper report: every number of the Stratum and HCRMap papers that strata is checked
/// against, computed from the models. `strata-paper-report` (examples/paper_report.cpp) prints
/// these rows; the test suite (tests/report/paper_test.cpp) runs the same functions and fails on
/// any judged row out of tolerance.
///
/// A row's value always comes from evaluating a model on the stated configuration; the paper's
/// value is only used to judge it.

#include <string>    // std::string
#include <vector>    // std::vector

#include "strata/chiplet/residency.hpp"
#include "strata/chiplet/substrate.hpp"
#include "strata/device/logic_die.hpp"
#include "strata/device/dram_energy.hpp"
#include "strata/device/mono3d.hpp"
#include "strata/device/stratum_chip.hpp"
#include "strata/report/paper_row.hpp"
#include "strata/tech/ddr5.hpp"
#include "strata/workload/presets.hpp"

namespace strata {
inline namespace v0 {

/// Rows `stratum.device.*`: the default Mono3D chip (1024 layers, 8 tiers) and the same
/// geometry rules at 512 layers, with the memory die's area against the 121 mm² logic die it is
/// hybrid-bonded to (Stratum §6.2.2).
template <class = void>
inline std::vector<paper_row> stratum_device_rows(const mono3d_params<>& p = {},
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

/// Rows `stratum.chip.*`: the coupled chip, whose logic die takes its tiers, banks, fast-tier
/// bandwidth and area from the Mono3D die it is bonded to (device/stratum_chip.hpp).
template <class = void>
inline std::vector<paper_row> stratum_chip_rows(const stratum_chip_params<>& p = {}) {
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

/// Rows `stratum.logic.*`: the Table 3 processor on the default die, fed by the fastest tier of
/// the default Mono3D chip (BW_fast of Eq. 1 comes from the device model, not from the paper).
template <class = void>
inline std::vector<paper_row> stratum_logic_rows(const logic_die_params<>& lp = {},
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

/// Rows `stratum.system.*` that the workload and device layers already decide: the models'
/// sizes (Stratum §6.1, Table 2: "7 B", "47 B", "32 B", "109 B"; the paper rounds, so ±3 %; the
/// Llama-4-Scout figure includes its vision encoder, which strata does not model), Mixtral
/// 8×7B's expert share of all weights ("> 95 %", Stratum §2) and the memory of Stratum-S/L/XL
/// (1, 6 and 12 chips, Stratum §3.1 Fig. 5).
template <class = void>
inline std::vector<paper_row> stratum_system_rows(const mono3d_params<>& mp = {}) {
  using namespace detail;
  const auto billions = [](const char* name) {
    return double(count_params(preset(name)).total) / 1e9;
  };
  const auto mixtral = preset("Mixtral-8x7B");
  const auto mc = count_params(mixtral);
  const double expert_share =
      double(mc.per_expert) * mixtral.experts * mixtral.moe_layers() / double(mc.total);
  const double chip_gib = evaluate(mp).capacity.in(units::GiB);
  return {
      rel("stratum.system.olmoe.params_B", billions("OLMoE-1B-7B-0924"), "B params", 7, 0.03,
          "Stratum §6.1 Table 2"),
      rel("stratum.system.mixtral.params_B", billions("Mixtral-8x7B"), "B params", 47, 0.03,
          "Stratum §6.1 Table 2"),
      rel("stratum.system.qwen2_5_32b.params_B", billions("Qwen2.5-32B"), "B params", 32, 0.03,
          "Stratum §6.1 Table 2"),
      rel("stratum.system.llama4_scout.params_B", billions("Llama-4-Scout-17B-16E"), "B params", 109,
          0.03, "Stratum §6.1 Table 2 (incl. vision encoder)"),
      with("stratum.system.mixtral.expert_weight_share", expert_share, "fraction", 0.95,
           row_check::at_least, "Stratum §2 (> 95 % of Mixtral 8x7B's weights are experts)"),
      rel("stratum.system.S.capacity_GB", 1 * chip_gib, "GiB", 32, 0.01, "Stratum §3.1 Fig. 5",
          row_kind::input),
      rel("stratum.system.L.capacity_GB", 6 * chip_gib, "GiB", 192, 0.01, "Stratum §3.1 Fig. 5",
          row_kind::input),
      rel("stratum.system.XL.capacity_GB", 12 * chip_gib, "GiB", 384, 0.01, "Stratum §3.1 Fig. 5",
          row_kind::input),
  };
}

/// The eight HCRMap benchmark models (HCRMap Table 2).
template <class = void>
inline std::vector<std::string> hcrmap_models() {
  return {"DBRX", "DeepSeek-V2-Lite", "DeepSeek-V2", "DeepSeek-V3", "DeepSeekMoE-16B",
          "Mixtral-8x7B", "Mixtral-8x22B", "Qwen1.5-MoE-A2.7B"};
}

/// Rows `hcrmap.metadata.*` (§7.5): sizes of the directory entry, of the directory of the model
/// with the most routed experts among Table 2's at the 1.3× budget of Table 1, and of the
/// pressure counters of the default substrate.
template <class = void>
inline std::vector<paper_row> hcrmap_metadata_rows(const substrate_params& sp = {}) {
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
