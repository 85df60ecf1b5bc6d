// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Parameters of the Stratum logic die (Stratum §4.3 Eq. 1–3, §6.2, Table 3) with their cited
/// defaults and physical ranges. The model is `logic_die.hpp`; the block breakdown of A_misc and
/// P_misc is `logic_die_blocks.hpp`.

#include <string>  // std::string

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
  strata::energy_per_data<T> e_b = 0.01_pJ_per_bit;
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
  strata::energy_per_data<T> e_dram_periph = 0.01_pJ_per_bit;
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

}  // namespace v0
}  // namespace strata
