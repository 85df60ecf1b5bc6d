// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Energy of one bit read from the Mono3D arrays to the logic die, by part (Stratum §4.3 Eq. 1
/// and Eq. 3 need the parts separately: the memory die's core and high-voltage supplies feed
/// Eq. 3's TSV current, the bond transfer is Eq. 1's E_b on the logic die).
///
/// A read streams whole 4 KiB pages (one per bank access), so each part is an energy per bit
/// delivered with the page fully used:
///   E_access = E_act/pre + E_wl,boost + E_column + E_datapath + E_bond
/// - activate/precharge: bit-line sensing and restore of the activated row and the precharge
///   that follows, drawn from the core supply VDD;
/// - word-line boost: the word line driven to VPP, drawn from the high-voltage supply;
/// - column: the column select and the local IO pair of a MAT swinging once per bit;
/// - datapath: the memory-die wire from the MAT to its hybrid-bond pads;
/// - bond: the hybrid-bond transfer itself (driver and receiver at ≈1 µm pitch).
/// The first four dissipate on the memory die (Eq. 3's P_dram,c and P_dram,p), the bond on the
/// logic die (Eq. 1's BW_fast·E_b).
///
/// \code
/// strata::dram_access_energy<> e;
/// auto total = access_energy(e);   // 0.173 pJ/b
/// \endcode

#include <string>  // std::string

#include "strata/core/units.hpp"
#include "strata/tech/bounds.hpp"

namespace strata {
inline namespace v0 {

/// Energy per bit delivered to the logic die, by part.
template <class T = double>
struct dram_access_energy {
  /// Row activation and precharge (sense, restore, equalise) from VDD, per bit of a fully used
  /// row. [Estimate by the Micron TN-40-07 method, (IDD0 − IDD3N)·VDD·tRC per activation: ≈0.8
  /// nJ per 8 Kib row of a DDR4/DDR5 x8 die, i.e. ≈0.1 pJ/b; Stratum gives no DRAM-die power]
  strata::energy_per_data<T> activate_precharge = units::pJ_per_bit(0.1);
  /// Word-line boost from VPP, per bit. [Estimate: IPP is ≈1/10 of the activation current in
  /// DDR5 IDD tables (JESD79-5 IPP0 vs IDD0), so ≈0.01 pJ/b]
  strata::energy_per_data<T> wordline_boost = units::pJ_per_bit(0.01);
  /// Column access: one line of a MAT's precharged local IO pair swings fully per bit,
  /// E = C_LIO·VDD² with C_LIO = 0.2 fF/µm (ITRS 2013 minimum-pitch wire) × 71.7 µm (the MAT
  /// length, 1024 BL at 70 nm) and VDD = 1.1 V (JESD79-5): 0.017 pJ/b. [Derived]
  strata::energy_per_data<T> column = units::pJ_per_bit(0.0173);
  /// Datapath from the MAT to the bank's bond pads: C·VDD²·α with 0.2 fF/µm over 0.3 mm (half
  /// the edge of a ≈0.42 mm² bank of the 121 mm² die), VDD = 1.1 V and data activity α = 1/2:
  /// 0.036 pJ/b. [Derived; the bank sits directly over its PE, Stratum §3.2]
  strata::energy_per_data<T> datapath = units::pJ_per_bit(0.0363);
  /// Hybrid-bond transfer E_b. [UCIe 2.0 (2024), UCIe-3D: power-efficiency target < 0.05 pJ/b
  /// at 9 µm pitch, falling with pitch to ≈0.01 pJ/b at 1 µm; Stratum §2 bonds at ≈1 µm. A
  /// 0.05 pJ/b bond would put 12 W of Eq. 1 on bonding alone and leave no room for P_misc
  /// under Table 3's 42.67 W]
  strata::energy_per_data<T> bond = units::pJ_per_bit(0.01);

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("activate_precharge", s.activate_precharge);
    v("wordline_boost", s.wordline_boost);
    v("column", s.column);
    v("datapath", s.datapath);
    v("bond", s.bond);
  }
  friend bool operator==(const dram_access_energy&, const dram_access_energy&) = default;
};

/// Checks every part: finite, in [0, 100 pJ/b] (two orders above any DRAM access, HBM3 external
/// access included). Throws `config_error` naming `<path>.<part>`.
template <class T>
void validate(const dram_access_energy<T>& e, const std::string& path = "energy") {
  constexpr const char* m = "strata.dram_energy";
  const double hi = units::pJ_per_bit(100.0).si();
  detail::require_range(e.activate_precharge.si(), 0.0, hi, m, path + ".activate_precharge", "J/B");
  detail::require_range(e.wordline_boost.si(), 0.0, hi, m, path + ".wordline_boost", "J/B");
  detail::require_range(e.column.si(), 0.0, hi, m, path + ".column", "J/B");
  detail::require_range(e.datapath.si(), 0.0, hi, m, path + ".datapath", "J/B");
  detail::require_range(e.bond.si(), 0.0, hi, m, path + ".bond", "J/B");
}

/// Whole read path, array to logic die [J/B].
template <class T>
strata::energy_per_data<T> access_energy(const dram_access_energy<T>& e) {
  return e.activate_precharge + e.wordline_boost + e.column + e.datapath + e.bond;
}

/// Parts drawn from the memory die's core supply VDD (Eq. 3's P_dram,c per bit).
template <class T>
strata::energy_per_data<T> memory_core_energy(const dram_access_energy<T>& e) {
  return e.activate_precharge + e.column + e.datapath;
}

/// Parts drawn from the memory die's high-voltage supply VPP (Eq. 3's P_dram,p per bit).
template <class T>
strata::energy_per_data<T> memory_periphery_energy(const dram_access_energy<T>& e) {
  return e.wordline_boost;
}

/// Part dissipated on the logic die (Eq. 1's E_b).
template <class T>
strata::energy_per_data<T> logic_die_energy(const dram_access_energy<T>& e) {
  return e.bond;
}

}  // namespace v0
}  // namespace strata
