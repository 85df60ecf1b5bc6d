// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Stratum logic-die budget: power (Eq. 1), area (Eq. 2) and power-delivery TSV area (Eq. 3) of
/// the near-memory processor, its feasibility, and the largest MAC count that fits (Stratum §4.3,
/// §6.2.1–§6.2.3, Table 3, Fig. 15).
///
///   Eq. 1  P_logic = BW_fast·E_b + N_mac·f·E_mac + P_misc                        ≤ P_peak
///   Eq. 2  A_PD + N_mac·A_mac + A_PHY + A_peri + A_misc                           ≤ α·A_die
///   Eq. 3  A_PD = A_TSV · (P_dram,c/V_dram,c + P_dram,p/V_dram,p + P_logic/V_logic) / I_TSV
///
/// BW_fast, the internal bandwidth of the fastest Mono3D tier, is an argument: it comes from the
/// Mono3D device model (`device/mono3d.hpp`; 30.34 TB/s in Stratum §6.1).
///
/// Hierarchy. The chip has `n_pu` processing units (one per Mono3D channel), each with
/// `pes_per_pu` processing elements (one per bank); the N_mac MACs are spread evenly over the PEs.
/// The PE and PU counts follow the memory organisation, not N_mac, so when N_mac changes the
/// tensor cores grow and every other block (A_misc) stays the same size.
///
/// A_misc, broken down as in Fig. 15a:
/// - per PE: matrix register file, double-buffered psum memory, local memory controller (request
///   queue), tiering table (per tier: start row, tRCD code, valid bit, and a start-row
///   comparator), row-swap buffer (`row_swap_rows` DRAM rows);
/// - per PU: shared memory, special function engine (FP16 FMA lanes + register files), ring
///   router (input flit buffers) with its aggregator (one FP16 adder per flit element), reduction
///   tree (one FP16 adder per lane per merged PE), controller (instruction memory).
/// Storage is capacity × a 7 nm bit cell (`tech/logic_7nm.hpp`); small logic is cell counts ×
/// ASAP7 cells; arithmetic is counted in FP16 MAC/adder equivalents of A_mac.
///
/// P_misc, by the same components: each block dissipates `p_misc_per_mm2` per mm² of its area at
/// peak activity, so the power breakdown follows the area breakdown.
///
/// \code
/// strata::logic_die_params<> p;                       // Stratum Table 3 design point
/// auto r = evaluate(p, strata::units::TBps(30.34));  // Eq. 1–3 at N_mac = 64 000
/// // r.p_logic ≈ 42.67 W, r.a_active ≈ 76.63 mm², r.feasible == true
/// auto m = max_macs_within_budget(p, strata::units::TBps(30.34));  // largest N_mac that fits
/// \endcode

#include <cmath>    // std::ceil, std::floor, std::log2
#include <cstdint>  // std::int64_t
#include <string>   // std::string

#include "strata/core/error.hpp"
#include "strata/core/scalar.hpp"
#include "strata/core/units.hpp"
#include "strata/tech/bounds.hpp"
#include "strata/tech/logic_7nm.hpp"

namespace strata {
inline namespace v0 {

/// Parameters of the Stratum logic die (one per Mono3D chip).
template <class T = double>
struct logic_die_params {
  // --- Eq. 2: die and fixed blocks -------------------------------------------------------------
  /// Logic-die area A_die. [Stratum §6.2.2: 121 mm²]
  strata::area<T> die_area = 121_mm2;
  /// xPU–DRAM PHY A_PHY. [Stratum §6.2.2: HBM3 PHY 23.94 mm²]
  strata::area<T> a_phy = 23.94_mm2;
  /// Low-voltage Mono3D periphery on the logic die A_peri. [Stratum §6.2.2: 14.80 mm²]
  strata::area<T> a_peri = 14.80_mm2;
  /// Target utilisation α. [Stratum §6.2.2: the 82 mm² processor budget is the whole die less
  /// PHY, periphery and TSVs, i.e. α = 1]
  T alpha = T(1.0);

  // --- Eq. 1: power --------------------------------------------------------------------------
  /// Peak logic-die power P_peak. [Stratum §6.2.1: HotSpot, high-end liquid cooling, 45 W]
  strata::power<T> p_peak = 45_W;
  /// Logic clock f_logic. [Stratum Table 3: 1 GHz]
  strata::frequency<T> f_logic = 1_GHz;
  /// MAC units N_mac at the design point. [Stratum Table 3: 64 000]
  int n_mac = 64000;
  /// Energy per FP16 MAC E_mac. [Jouppi et al., "Ten Lessons From Three Generations Shaped
  /// Google's TPUv4i", ISCA 2021, Table 2, 7 nm: FP16 multiply 0.34 pJ + FP16 add 0.16 pJ]
  strata::energy<T> e_mac = 0.50_pJ;
  /// Energy per bit moved from the DRAM layers to the logic die through hybrid bonding E_b.
  /// [UCIe 2.0 (2024), UCIe-3D hybrid-bonded die-to-die: power-efficiency target < 0.05 pJ/b
  /// at 9 µm pitch down to 0.01 pJ/b at 1 µm; Stratum §2 bonds at ≈1 µm pitch]
  strata::energy_per_data<T> e_b = 0.01_pJpb;
  /// Miscellaneous power per mm² of miscellaneous area at peak activity (SRAM, register files,
  /// routers, special function engines, reducers, controllers). Calibrated so that
  /// stratum.logic.peak_power_W = 42.67 W (Stratum Table 3); the paper gives only the total.
  strata::power_per_area<T> p_misc_per_mm2 = 0.26066_W_per_mm2;

  // --- Eq. 2: MAC area -----------------------------------------------------------------------
  /// Area of one FP16 MAC at f_logic A_mac. Calibrated so that stratum.logic.active_area_mm2 =
  /// 76.63 mm² (Stratum Table 3) given the A_misc breakdown below; the paper synthesises its MAC
  /// with Genus on ASAP7 and gives no per-MAC area.
  strata::area<T> a_mac = 703.24_um2;

  // --- Eq. 3: power delivery -----------------------------------------------------------------
  /// DRAM core (array) supply V_dram,c. [JEDEC JESD79-5 DDR5: VDD = 1.1 V]
  strata::voltage<T> v_dram_core = 1.1_V;
  /// DRAM high-voltage periphery supply V_dram,p. [JEDEC JESD79-5 DDR5: VPP = 1.8 V]
  strata::voltage<T> v_dram_periph = 1.8_V;
  /// Logic supply V_logic. [ASAP7 7 nm libraries: nominal VDD 0.7 V]
  strata::voltage<T> v_logic = 0.7_V;
  /// DRAM-core energy per bit delivered at BW_fast, so that P_dram,c = BW_fast · e: the parts of
  /// `dram_access_energy` drawn from VDD, activate/precharge 0.1 + column 0.0173 + datapath
  /// 0.0363 pJ/b (`memory_core_energy`; `stratum_chip` takes them from the Mono3D chip).
  strata::energy_per_data<T> e_dram_core = units::pJ_per_bit(0.1536);
  /// DRAM high-voltage periphery energy per bit delivered (word-line boost from VPP), so that
  /// P_dram,p = BW_fast · e: `dram_access_energy::wordline_boost`. [Estimate: IPP is ≈1/10 of
  /// the activation current budget in DDR5 IDD tables; Stratum gives no DRAM-die power]
  strata::energy_per_data<T> e_dram_periph = 0.01_pJpb;
  /// Footprint of one power TSV with its keep-out zone A_TSV. [ITRS 2011 Interconnect, 3D
  /// stacking: global TSV diameter 4–8 µm at 8–16 µm pitch; a 5 µm TSV on a 10 µm pitch]
  strata::area<T> a_tsv = 100_um2;
  /// Maximum current per power TSV I_TSV. Calibrated so that stratum.logic.area_budget_mm2 =
  /// 82.05 mm² (Stratum §6.2.2: power TSVs 0.21 mm²) with the DRAM-core current of the access
  /// energy parts; 46 mA in a 5 µm Cu TSV is 2.3·10⁵ A/cm².
  strata::current<T> i_tsv = 45.585_mA;

  // --- hierarchy -----------------------------------------------------------------------------
  /// Processing units, one per Mono3D channel. [Stratum §3.2; 256 banks per chip (32 GB of
  /// 1 Gib banks, Stratum §6.1) as 32 channels of 8 banks; 32 is the pseudo-channel count of an
  /// HBM3 stack (JESD238: 16 channels × 2), the interface Mono3D mimics (Stratum §2)]
  int n_pu = 32;
  /// Processing elements per PU, one per bank. [Stratum §3.2; 256 banks / 32 channels]
  int pes_per_pu = 8;

  // --- per-PE blocks -------------------------------------------------------------------------
  /// Matrix register file per PE. [Design choice: a 16-token × 2048-element FP16 input tile
  /// broadcast to the dot-product engines, Stratum §3.2]
  strata::data_size<T> matrix_rf = 64_KiB;
  /// One psum buffer per PE (the memory is double-buffered: two of these). [Design choice: 16
  /// tokens × 512 FP16 partial sums, Stratum §3.2]
  strata::data_size<T> psum_buffer = 16_KiB;
  /// Local memory controller request queue: entries. [Design choice: 16 outstanding commands]
  int lmc_queue_entries = 16;
  /// Local memory controller request queue: bits per entry. [Design choice: op, row, column
  /// and tag in 64 bits]
  int lmc_entry_bits = 64;
  /// Mono3D row (page) of one bank: 32 MATs × 1024 BL = 4 KiB, the same page the device model
  /// streams per bank access (`mono3d_params::bank_access_bytes`).
  strata::data_size<T> row_size = 4_KiB;
  /// Rows held by the row-swap buffer. [Stratum §5.2: two rows are buffered and written back to
  /// each other's address]
  int row_swap_rows = 2;
  /// Bank capacity (sets the start-row width of the tiering table). [Stratum §6.1, Table 1:
  /// 1024 MATs of 1024 BL × 1024 WL = 1 Gib]
  strata::data_size<T> bank_capacity = 128_MiB;
  /// Tiering-table entries, one per tier. [Stratum §6.2.1: 8 timing tiers]
  int tiers = 8;
  /// Width of the tRCD code of a tiering-table entry. [Design choice: tRCD in command clocks,
  /// up to 255; DDR5-6400 tRCD is 52 tCK, JESD79-5]
  int trcd_code_bits = 8;

  // --- per-PU blocks -------------------------------------------------------------------------
  /// Shared memory per PU. [Design choice: token batch, gate weights and one expert-output slice
  /// per channel, Stratum §3.2]
  strata::data_size<T> shared_memory = 2_MiB;
  /// FP16 FMA lanes of the special function engine (SIMD). [Design choice, Stratum §3.2:
  /// Softmax, SiLU, GeLU built from FMA primitives]
  int sfe_lanes = 16;
  /// Vector and scalar register files of the special function engine. [Design choice]
  strata::data_size<T> sfe_register_files = 32_KiB;
  /// Ring flit (link width per direction). [Design choice: 32 B = 16 FP16 elements]
  strata::data_size<T> ring_flit = 32_B;
  /// Ring-router input ports with flit buffers (clockwise, counter-clockwise). [Stratum §3.2:
  /// bidirectional ring]
  int router_ports = 2;
  /// Flit buffers per router input port. [Design choice]
  int router_buffer_flits = 4;
  /// Lanes of the reduction tree. [Design choice: one flit of FP16 partial sums per cycle]
  int reduction_lanes = 16;
  /// Controller instruction memory per PU. [Design choice]
  strata::data_size<T> instruction_memory = 32_KiB;

  /// 7 nm cell and SRAM figures.
  logic_7nm_params<T> tech{};

  /// Field list for JSON (strata/core/json.hpp).
  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("die_area", s.die_area);
    v("a_phy", s.a_phy);
    v("a_peri", s.a_peri);
    v("alpha", s.alpha);
    v("p_peak", s.p_peak);
    v("f_logic", s.f_logic);
    v("n_mac", s.n_mac);
    v("e_mac", s.e_mac);
    v("e_b", s.e_b);
    v("p_misc_per_mm2", s.p_misc_per_mm2);
    v("a_mac", s.a_mac);
    v("v_dram_core", s.v_dram_core);
    v("v_dram_periph", s.v_dram_periph);
    v("v_logic", s.v_logic);
    v("e_dram_core", s.e_dram_core);
    v("e_dram_periph", s.e_dram_periph);
    v("a_tsv", s.a_tsv);
    v("i_tsv", s.i_tsv);
    v("n_pu", s.n_pu);
    v("pes_per_pu", s.pes_per_pu);
    v("matrix_rf", s.matrix_rf);
    v("psum_buffer", s.psum_buffer);
    v("lmc_queue_entries", s.lmc_queue_entries);
    v("lmc_entry_bits", s.lmc_entry_bits);
    v("row_size", s.row_size);
    v("row_swap_rows", s.row_swap_rows);
    v("bank_capacity", s.bank_capacity);
    v("tiers", s.tiers);
    v("trcd_code_bits", s.trcd_code_bits);
    v("shared_memory", s.shared_memory);
    v("sfe_lanes", s.sfe_lanes);
    v("sfe_register_files", s.sfe_register_files);
    v("ring_flit", s.ring_flit);
    v("router_ports", s.router_ports);
    v("router_buffer_flits", s.router_buffer_flits);
    v("reduction_lanes", s.reduction_lanes);
    v("instruction_memory", s.instruction_memory);
    v("tech", s.tech);
  }
  friend bool operator==(const logic_die_params&, const logic_die_params&) = default;
};

/// The miscellaneous blocks of Fig. 15a, chip totals of one quantity (area or power).
template <class Q>
struct logic_die_parts {
  Q matrix_rf{};         ///< PE matrix register files
  Q psum_buffer{};       ///< PE double-buffered psum memories
  Q local_mc{};          ///< PE local memory controllers (request queues)
  Q tiering_table{};     ///< PE tiering tables (registers + comparators)
  Q row_swap_buffer{};   ///< PE row-swap buffers
  Q shared_memory{};     ///< PU shared memories
  Q special_function{};  ///< PU special function engines
  Q ring_router{};       ///< PU ring routers with aggregators
  Q reduction_tree{};    ///< PU reduction trees
  Q controller{};        ///< PU controllers

  /// Sum of the PE-local blocks.
  [[nodiscard]] Q pe_local() const {
    return matrix_rf + psum_buffer + local_mc + tiering_table + row_swap_buffer;
  }
  /// Sum of the PU-level blocks.
  [[nodiscard]] Q pu_shared() const {
    return shared_memory + special_function + ring_router + reduction_tree + controller;
  }
  /// Sum of all blocks.
  [[nodiscard]] Q total() const { return pe_local() + pu_shared(); }

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("matrix_rf", s.matrix_rf);
    v("psum_buffer", s.psum_buffer);
    v("local_mc", s.local_mc);
    v("tiering_table", s.tiering_table);
    v("row_swap_buffer", s.row_swap_buffer);
    v("shared_memory", s.shared_memory);
    v("special_function", s.special_function);
    v("ring_router", s.ring_router);
    v("reduction_tree", s.reduction_tree);
    v("controller", s.controller);
  }
  friend bool operator==(const logic_die_parts&, const logic_die_parts&) = default;
};

/// Eq. 1–3 evaluated at one MAC count, with every term and the verdict.
template <class T = double>
struct logic_die_result {
  T n_mac{};                                   ///< MACs evaluated
  strata::op_rate<T> peak_throughput{};        ///< 2·N_mac·f_logic
  // Eq. 1
  strata::power<T> p_dram_access{};            ///< BW_fast·E_b
  strata::power<T> p_mac{};                    ///< N_mac·f·E_mac
  logic_die_parts<strata::power<T>> p_misc{};  ///< P_misc by block
  strata::power<T> p_logic{};                  ///< Eq. 1 left-hand side
  strata::power<T> p_peak{};                   ///< Eq. 1 cap
  strata::power<T> power_slack{};              ///< P_peak − P_logic
  // Eq. 2, Eq. 3
  strata::area<T> a_macs{};                    ///< N_mac·A_mac
  logic_die_parts<strata::area<T>> a_misc{};   ///< A_misc by block
  strata::area<T> a_active{};                  ///< N_mac·A_mac + A_misc
  strata::current<T> i_supply{};               ///< Eq. 3 supply current through TSVs
  T n_tsv{};                                   ///< power TSVs, i_supply / I_TSV
  strata::area<T> a_pd{};                      ///< Eq. 3 power-delivery TSV area
  strata::area<T> a_phy{};                     ///< xPU–DRAM PHY
  strata::area<T> a_peri{};                    ///< low-voltage periphery
  strata::area<T> a_usable{};                  ///< α·A_die, Eq. 2 right-hand side
  strata::area<T> a_processor_budget{};        ///< α·A_die − A_PHY − A_peri − A_PD
  strata::area<T> area_slack{};                ///< processor budget − active area
  T utilization{};                             ///< active area / A_die
  strata::area<T> a_pe{};                      ///< one PE: its MACs and PE-local blocks
  T tiering_fraction_of_pe{};                  ///< one tiering table / one PE
  T power_headroom_macs{};                     ///< MACs the power slack still admits
  T area_headroom_macs{};                      ///< MACs the area slack still admits
  bool feasible = false;                       ///< Eq. 1 and Eq. 2 both hold
  std::string binding;                         ///< "power" or "area": the smaller headroom
  std::string reason;                          ///< verdict in words, naming the binding one

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("n_mac", s.n_mac);
    v("peak_throughput", s.peak_throughput);
    v("p_dram_access", s.p_dram_access);
    v("p_mac", s.p_mac);
    v("p_misc", s.p_misc);
    v("p_logic", s.p_logic);
    v("p_peak", s.p_peak);
    v("power_slack", s.power_slack);
    v("a_macs", s.a_macs);
    v("a_misc", s.a_misc);
    v("a_active", s.a_active);
    v("i_supply", s.i_supply);
    v("n_tsv", s.n_tsv);
    v("a_pd", s.a_pd);
    v("a_phy", s.a_phy);
    v("a_peri", s.a_peri);
    v("a_usable", s.a_usable);
    v("a_processor_budget", s.a_processor_budget);
    v("area_slack", s.area_slack);
    v("utilization", s.utilization);
    v("a_pe", s.a_pe);
    v("tiering_fraction_of_pe", s.tiering_fraction_of_pe);
    v("power_headroom_macs", s.power_headroom_macs);
    v("area_headroom_macs", s.area_headroom_macs);
    v("feasible", s.feasible);
    v("binding", s.binding);
    v("reason", s.reason);
  }
};

/// Checks every parameter; throws `config_error` naming the field (JSON key). Every quantity
/// must lie in a physical range, orders of magnitude around the cited defaults, so that no
/// accepted input overflows or underflows Eq. 1–3 into inf or NaN: areas of the die and fixed
/// blocks up to 10⁵ mm² (die ≥ 0.01 mm²); alpha (0, 1]; p_peak [1 µW, 1 MW]; f_logic [1 kHz,
/// 1 THz]; n_mac [1, 10⁹]; e_mac [1 aJ, 1 nJ]; energies per bit [0, 100 pJ/b]; p_misc_per_mm2
/// [0, 1000 W/mm²]; a_mac [0.01 µm², 1 mm²]; supplies [0.1, 100] V; a_tsv [0.01 µm², 1 mm²];
/// i_tsv [1 µA, 10 A]; counts [0 or 1, 2^20] (n_pu, pes_per_pu ≥ 1); buffer sizes [0, 1 TiB];
/// row_size [1 B, 1 GiB] ≤ bank_capacity ≤ 1 PiB; trcd_code_bits [1, 64].
template <class T>
void validate(const logic_die_params<T>& p) {
  constexpr const char* id = "strata.logic_die";
  using detail::require;
  using detail::require_count;
  using detail::require_range;
  const double mm2 = 1e-6, um2 = 1e-12, pjpb = units::pJ_per_bit(1.0).si();
  const double tib = 1099511627776.0;
  const long long big = 1 << 20;
  require_range(p.die_area.si(), 0.01 * mm2, 1e5 * mm2, id, "die_area", "m2");
  require_range(p.a_phy.si(), 0.0, 1e5 * mm2, id, "a_phy", "m2");
  require_range(p.a_peri.si(), 0.0, 1e5 * mm2, id, "a_peri", "m2");
  const double alpha = value_of(p.alpha);
  require(alpha > 0.0 && alpha <= 1.0, id, "alpha", alpha, "in (0, 1]");
  require_range(p.p_peak.si(), 1e-6, 1e6, id, "p_peak", "W");
  require_range(p.f_logic.si(), 1e3, 1e12, id, "f_logic", "Hz");
  require_count(p.n_mac, 1, 1000000000, id, "n_mac");
  require_range(p.e_mac.si(), 1e-18, 1e-9, id, "e_mac", "J");
  require_range(p.e_b.si(), 0.0, 100 * pjpb, id, "e_b", "J/B");
  require_range(p.p_misc_per_mm2.si(), 0.0, 1e3 / mm2, id, "p_misc_per_mm2", "W/m2");
  require_range(p.a_mac.si(), 0.01 * um2, mm2, id, "a_mac", "m2");
  require_range(p.v_dram_core.si(), 0.1, 100.0, id, "v_dram_core", "V");
  require_range(p.v_dram_periph.si(), 0.1, 100.0, id, "v_dram_periph", "V");
  require_range(p.v_logic.si(), 0.1, 100.0, id, "v_logic", "V");
  require_range(p.e_dram_core.si(), 0.0, 100 * pjpb, id, "e_dram_core", "J/B");
  require_range(p.e_dram_periph.si(), 0.0, 100 * pjpb, id, "e_dram_periph", "J/B");
  require_range(p.a_tsv.si(), 0.01 * um2, mm2, id, "a_tsv", "m2");
  require_range(p.i_tsv.si(), 1e-6, 10.0, id, "i_tsv", "A");
  require_count(p.n_pu, 1, big, id, "n_pu");
  require_count(p.pes_per_pu, 1, big, id, "pes_per_pu");
  require_range(p.matrix_rf.si(), 0.0, tib, id, "matrix_rf", "B");
  require_range(p.psum_buffer.si(), 0.0, tib, id, "psum_buffer", "B");
  require_count(p.lmc_queue_entries, 0, big, id, "lmc_queue_entries");
  require_count(p.lmc_entry_bits, 0, big, id, "lmc_entry_bits");
  require_range(p.row_size.si(), 1.0, tib / 1024.0, id, "row_size", "B");
  require_count(p.row_swap_rows, 0, big, id, "row_swap_rows");
  require_range(p.bank_capacity.si(), value_of(p.row_size.si()), tib * 1024.0, id,
                "bank_capacity", "B (from row_size)");
  require_count(p.tiers, 1, 4096, id, "tiers");
  require_count(p.trcd_code_bits, 1, 64, id, "trcd_code_bits");
  require_range(p.shared_memory.si(), 0.0, tib, id, "shared_memory", "B");
  require_count(p.sfe_lanes, 0, big, id, "sfe_lanes");
  require_range(p.sfe_register_files.si(), 0.0, tib, id, "sfe_register_files", "B");
  require_range(p.ring_flit.si(), 0.0, 1e6, id, "ring_flit", "B");
  require_count(p.router_ports, 0, 64, id, "router_ports");
  require_count(p.router_buffer_flits, 0, big, id, "router_buffer_flits");
  require_count(p.reduction_lanes, 0, big, id, "reduction_lanes");
  require_range(p.instruction_memory.si(), 0.0, tib, id, "instruction_memory", "B");
  validate(p.tech, "tech");
}

/// Checks the fastest-tier bandwidth argument of Eq. 1 and Eq. 3: finite, [0, 10⁶ TB/s].
template <class T>
void validate_bw_fast(const strata::bandwidth<T>& bw_fast) {
  detail::require_range(bw_fast.si(), 0.0, 1e18, "strata.logic_die", "bw_fast", "B/s");
}

namespace detail {

template <class T>
T bits_of(const strata::data_size<T>& d) {
  return d.si() * T(8);  // SI data unit is the byte
}

/// Start-row width of the tiering table: ⌈log2(bank capacity / row size)⌉ (17 for 1 Gib / 1 KiB).
template <class T>
int row_address_bits(const logic_die_params<T>& p) {
  const double rows = value_of(p.bank_capacity.si()) / value_of(p.row_size.si());
  return static_cast<int>(std::ceil(std::log2(rows) - 1e-9));
}

/// Area of one tiering table: tiers·(start row + tRCD code + valid) registers plus one
/// start-row comparator per tier.
template <class T>
strata::area<T> tiering_table_area(const logic_die_params<T>& p) {
  const T row_bits = T(row_address_bits(p));
  const T entry_bits = row_bits + T(p.trcd_code_bits) + T(1);
  return register_area(p.tech, T(p.tiers) * entry_bits) +
         comparator_area(p.tech, T(p.tiers) * row_bits);
}

/// A_misc by block (chip totals); independent of N_mac (see the file comment).
template <class T>
logic_die_parts<strata::area<T>> misc_area(const logic_die_params<T>& p) {
  const auto& t = p.tech;
  const T n_pu = T(p.n_pu);
  const T n_pe = n_pu * T(p.pes_per_pu);
  const strata::area<T> a_add = p.a_mac * t.fp16_add_area_fraction;
  const T flit_bits = bits_of(p.ring_flit);
  logic_die_parts<strata::area<T>> a;
  a.matrix_rf = sram_area(t, bits_of(p.matrix_rf)) * n_pe;
  a.psum_buffer = sram_area(t, bits_of(p.psum_buffer) * T(2)) * n_pe;
  a.local_mc = register_area(t, T(p.lmc_queue_entries) * T(p.lmc_entry_bits)) * n_pe;
  a.tiering_table = tiering_table_area(p) * n_pe;
  a.row_swap_buffer = sram_area(t, bits_of(p.row_size) * T(p.row_swap_rows)) * n_pe;
  a.shared_memory = sram_area(t, bits_of(p.shared_memory)) * n_pu;
  a.special_function =
      (p.a_mac * T(p.sfe_lanes) + sram_area(t, bits_of(p.sfe_register_files))) * n_pu;
  a.ring_router = (register_area(t, T(p.router_ports) * T(p.router_buffer_flits) * flit_bits) +
                   a_add * (flit_bits / T(16))) *
                  n_pu;
  a.reduction_tree = a_add * (T(p.pes_per_pu - 1) * T(p.reduction_lanes)) * n_pu;
  a.controller = sram_area(t, bits_of(p.instruction_memory)) * n_pu;
  return a;
}

/// P_misc by block: each block's area times the misc power per mm².
template <class T>
logic_die_parts<strata::power<T>> misc_power(const logic_die_params<T>& p,
                                             const logic_die_parts<strata::area<T>>& a) {
  const auto pw = [&](const strata::area<T>& x) { return p.p_misc_per_mm2 * x; };
  return {pw(a.matrix_rf),        pw(a.psum_buffer),    pw(a.local_mc),
          pw(a.tiering_table),    pw(a.row_swap_buffer), pw(a.shared_memory),
          pw(a.special_function), pw(a.ring_router),    pw(a.reduction_tree),
          pw(a.controller)};
}

}  // namespace detail

/// Eq. 3, power-delivery TSV area for a logic power `p_logic`:
/// A_PD = A_TSV · (BW_fast·e_dram,c/V_dram,c + BW_fast·e_dram,p/V_dram,p + P_logic/V_logic) / I_TSV
/// [m²]. [Stratum §4.3 Eq. 3]
template <class T>
strata::area<T> power_delivery_area(const logic_die_params<T>& p,
                                    const strata::bandwidth<T>& bw_fast,
                                    const strata::power<T>& p_logic) {
  validate(p);
  validate_bw_fast(bw_fast);
  detail::require_range(p_logic.si(), 0.0, 1e9, "strata.logic_die", "p_logic", "W");
  const strata::current<T> i = (bw_fast * p.e_dram_core) / p.v_dram_core +
                               (bw_fast * p.e_dram_periph) / p.v_dram_periph + p_logic / p.v_logic;
  return p.a_tsv * (i / p.i_tsv);
}

/// Peak throughput 2·N_mac·f_logic [FLOP/s] at the design point. [Stratum Table 3: 128 TFLOPS]
template <class T>
strata::op_rate<T> peak_throughput(const logic_die_params<T>& p) {
  validate(p);
  return strata::op_count<T>(2_flop) * T(p.n_mac) * p.f_logic;
}

/// Eq. 1–3 at `n_mac` MACs (any non-negative real, for sweeps and the solver): power and area
/// breakdowns, TSV area, budgets, slacks and the verdict. Infeasible points are results
/// (`feasible == false`, `reason` names the violated constraints), not errors.
/// [Stratum §4.3 Eq. 1–3, §6.2]
template <class T>
logic_die_result<T> evaluate(const logic_die_params<T>& p, const strata::bandwidth<T>& bw_fast,
                             const T& n_mac) {
  constexpr const char* id = "strata.logic_die";
  validate(p);
  validate_bw_fast(bw_fast);
  detail::require_range(n_mac, 0.0, 1e15, id, "n_mac", "MACs");

  logic_die_result<T> r;
  r.n_mac = n_mac;
  r.peak_throughput = strata::op_count<T>(2_flop) * n_mac * p.f_logic;
  // Eq. 1
  r.a_misc = detail::misc_area(p);
  r.p_dram_access = bw_fast * p.e_b;
  r.p_mac = p.e_mac * n_mac * p.f_logic;
  r.p_misc = detail::misc_power(p, r.a_misc);
  r.p_logic = r.p_dram_access + r.p_mac + r.p_misc.total();
  r.p_peak = p.p_peak;
  r.power_slack = p.p_peak - r.p_logic;
  // Eq. 3
  r.i_supply = (bw_fast * p.e_dram_core) / p.v_dram_core +
               (bw_fast * p.e_dram_periph) / p.v_dram_periph + r.p_logic / p.v_logic;
  r.n_tsv = r.i_supply / p.i_tsv;
  r.a_pd = p.a_tsv * r.n_tsv;
  // Eq. 2
  r.a_macs = p.a_mac * n_mac;
  r.a_active = r.a_macs + r.a_misc.total();
  r.a_phy = p.a_phy;
  r.a_peri = p.a_peri;
  r.a_usable = p.die_area * p.alpha;
  r.a_processor_budget = r.a_usable - p.a_phy - p.a_peri - r.a_pd;
  r.area_slack = r.a_processor_budget - r.a_active;
  r.utilization = r.a_active / p.die_area;
  const T n_pe = T(p.n_pu) * T(p.pes_per_pu);
  r.a_pe = (r.a_macs + r.a_misc.pe_local()) / n_pe;
  r.tiering_fraction_of_pe = detail::tiering_table_area(p) / r.a_pe;

  // Verdict. Each slack divided by what one more MAC costs of it gives the MACs that could
  // still be added (negative: that must go); the smaller headroom names the binding constraint,
  // the one that stops N_mac from growing.
  const strata::power<T> dp_dn = p.e_mac * p.f_logic;
  const strata::area<T> da_dn = p.a_mac + p.a_tsv * ((dp_dn / p.v_logic) / p.i_tsv);
  r.power_headroom_macs = r.power_slack / dp_dn;
  r.area_headroom_macs = r.area_slack / da_dn;
  const bool power_ok = value_of(r.power_slack.si()) >= 0.0;
  const bool area_ok = value_of(r.area_slack.si()) >= 0.0;
  r.feasible = power_ok && area_ok;
  r.binding = r.power_headroom_macs <= r.area_headroom_macs ? "power" : "area";
  const auto txt = [](const auto& x) { return detail::to_text(value_of(x)); };
  const std::string power_text =
      "power: P_logic " + txt(r.p_logic.in(units::W)) + " W vs cap " + txt(p.p_peak.in(units::W)) +
      " W, slack " + txt(r.power_slack.in(units::W)) + " W = " + txt(r.power_headroom_macs) +
      " MACs (Eq. 1)";
  const std::string area_text =
      "area: active " + txt(r.a_active.in(units::mm2)) + " mm2 vs processor budget " +
      txt(r.a_processor_budget.in(units::mm2)) + " mm2, slack " + txt(r.area_slack.in(units::mm2)) +
      " mm2 = " + txt(r.area_headroom_macs) + " MACs (Eq. 2)";
  const bool power_first = r.binding == "power";
  const std::string& first = power_first ? power_text : area_text;
  const std::string& second = power_first ? area_text : power_text;
  if (r.feasible) {
    r.reason = "feasible; binding " + first;
  } else if (!power_ok && !area_ok) {
    r.reason = "infeasible: " + first + "; also " + second;
  } else {
    r.reason = "infeasible: " + (power_ok ? area_text : power_text);
  }
  return r;
}

/// Eq. 1–3 at the design point `p.n_mac`. [Stratum §4.3, Table 3]
template <class T>
logic_die_result<T> evaluate(const logic_die_params<T>& p, const strata::bandwidth<T>& bw_fast) {
  validate(p);
  return evaluate(p, bw_fast, T(p.n_mac));
}

/// Eq. 1 left-hand side at `n_mac` MACs [W].
template <class T>
strata::power<T> logic_power(const logic_die_params<T>& p, const strata::bandwidth<T>& bw_fast,
                             const T& n_mac) {
  return evaluate(p, bw_fast, n_mac).p_logic;
}

/// The largest integer MAC count meeting Eq. 1 and Eq. 2.
struct logic_die_max_macs {
  std::int64_t n_mac = 0;         ///< largest feasible integer N_mac (0 if none)
  double n_mac_continuous = 0.0;  ///< root of the smaller headroom (in MACs)
  std::string binding;            ///< constraint that n_mac + 1 violates: "power" or "area"

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("n_mac", s.n_mac);
    v("n_mac_continuous", s.n_mac_continuous);
    v("binding", s.binding);
  }
};

/// Largest integer N_mac with P_logic ≤ P_peak (Eq. 1) and A_active ≤ α·A_die − A_PHY −
/// A_peri − A_PD (Eq. 2, with A_PD from Eq. 3 at that N_mac). Both slacks fall linearly with
/// N_mac, and each headroom is its slack over its cost per MAC, so headroom(n) = headroom(n₀) −
/// (n − n₀): the root of the smaller headroom is n₀ + min(headrooms at n₀) in closed form (no
/// iterative solver). It is floored and checked: n_mac is feasible and n_mac + 1 is not.
/// Throws `solver_error` if the rounding check fails or the root exceeds 10¹⁵ MACs.
/// [Stratum §6.2.3]
inline logic_die_max_macs max_macs_within_budget(const logic_die_params<double>& p,
                                                 const strata::bandwidth<double>& bw_fast) {
  validate(p);
  validate_bw_fast(bw_fast);
  const auto feasible = [&](std::int64_t n) {
    return evaluate(p, bw_fast, static_cast<double>(n)).feasible;
  };
  logic_die_max_macs out;
  if (!feasible(0)) {
    out.binding = evaluate(p, bw_fast, 0.0).binding;
    return out;
  }
  const double n0 = static_cast<double>(p.n_mac);
  const auto r0 = evaluate(p, bw_fast, n0);
  out.n_mac_continuous = n0 + detail::min_of(r0.power_headroom_macs, r0.area_headroom_macs);
  if (!(out.n_mac_continuous <= 1e15)) {
    throw solver_error("[strata.logic_die] max_macs_within_budget: more than 1e15 MACs fit (" +
                       detail::to_text(out.n_mac_continuous) + ")");
  }
  auto n = static_cast<std::int64_t>(std::floor(out.n_mac_continuous));
  // The closed form is exact up to rounding; step over the few integers it may be off by.
  for (int k = 0; n > 0 && !feasible(n); ++k, --n) {
    if (k == 8) throw solver_error("[strata.logic_die] max_macs_within_budget: root not feasible");
  }
  for (int k = 0; feasible(n + 1); ++k, ++n) {
    if (k == 8) throw solver_error("[strata.logic_die] max_macs_within_budget: root too low");
  }
  out.n_mac = n;
  const auto next = evaluate(p, bw_fast, static_cast<double>(n + 1));
  out.binding = next.power_slack.si() < 0.0 ? "power" : "area";
  return out;
}

}  // namespace v0
}  // namespace strata
