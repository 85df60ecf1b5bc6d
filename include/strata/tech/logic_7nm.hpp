// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// 7 nm logic technology: the cell and SRAM figures the Stratum logic-die area model builds its
/// buffers and tables from (`device/logic_die.hpp`). Areas of storage come from capacity × a
/// published bit-cell area, areas of small logic from cell counts × ASAP7 standard-cell areas, so
/// every block of the area breakdown traces back to a cell.
///
/// \code
/// strata::logic_7nm_params<> t;
/// auto a = sram_area(t, 64.0 * 1024 * 8);   // 64 KiB of SRAM: 0.0253 mm²
/// \endcode

#include <cmath>   // std::isfinite
#include <string>  // std::string, field paths

#include "strata/core/error.hpp"
#include "strata/core/scalar.hpp"
#include "strata/core/units.hpp"
#include "strata/tech/bounds.hpp"

namespace strata {
inline namespace v0 {


/// Cell-level figures of a 7 nm FinFET logic process.
template <class T = double>
struct logic_7nm_params {
  /// High-density 6T SRAM bit cell. [Chang et al., "A 7nm 256Mb SRAM in high-k metal-gate
  /// FinFET technology with write-assist circuitry for low-VMIN applications", ISSCC 2017:
  /// 0.027 µm² HD cell (TSMC N7)]
  strata::area<T> sram_bitcell_area = 0.027_um2;
  /// Bit cells / macro area of an SRAM macro (decoders, sense amplifiers, write assist).
  /// [WikiChip Fuse, "IEDM 2022: Did We Just Witness The Death Of SRAM?": a 0.021 µm² HD cell
  /// gives 31.8 Mib/mm² with assist overhead, i.e. 31.8 / 45.4 Mib/mm² of bare cells = 0.70]
  T sram_array_efficiency = T(0.70);
  /// D flip-flop (a register bit). [ASAP7 7.5-track library asap7sc7p5t_SEQ_RVT (220123):
  /// DFFHQNx1_ASAP7_75t_R, area 0.2916 µm²]
  strata::area<T> dff_area = 0.2916_um2;
  /// Two-input XNOR (bit equality of a comparator). [ASAP7 asap7sc7p5t_SIMPLE_RVT (211120):
  /// XNOR2x2_ASAP7_75t_R, area 0.16038 µm²]
  strata::area<T> xnor2_area = 0.16038_um2;
  /// Two-input AND (greater-than propagate and generate of a comparator). [ASAP7
  /// asap7sc7p5t_SIMPLE_RVT (211120): AND2x2_ASAP7_75t_R, area 0.08748 µm²]
  strata::area<T> and2_area = 0.08748_um2;
  /// Cell area / placed block area of standard-cell logic. [ASAP7 reference block of
  /// Centre-for-Hardware-Security/asap7_reference_design: Innovus placement density ≈ 70 %]
  T placement_utilization = T(0.70);
  /// Area of an FP16 adder relative to an FP16 MAC (multiplier + adder). [Horowitz, "Computing's
  /// energy problem", ISSCC 2014, 45 nm: FP16 add 1360 µm², FP16 multiply 1640 µm², so
  /// 1360 / 3000; the ratio, not the absolute area, is carried to 7 nm]
  T fp16_add_area_fraction = T(1360.0 / 3000.0);

  /// Field list for JSON (strata/core/json.hpp).
  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("sram_bitcell_area", s.sram_bitcell_area);
    v("sram_array_efficiency", s.sram_array_efficiency);
    v("dff_area", s.dff_area);
    v("xnor2_area", s.xnor2_area);
    v("and2_area", s.and2_area);
    v("placement_utilization", s.placement_utilization);
    v("fp16_add_area_fraction", s.fp16_add_area_fraction);
  }
  friend bool operator==(const logic_7nm_params&, const logic_7nm_params&) = default;
};

/// Checks the figures; throws `config_error` naming `<path>.<field>`. Cell areas must lie in
/// [10⁻⁴, 100] µm² and the fractions in [0.01, 1] (a fraction near zero would divide areas
/// into inf).
template <class T>
void validate(const logic_7nm_params<T>& t, const std::string& path = "tech") {
  constexpr const char* id = "strata.logic_7nm";
  const double lo = 1e-16, hi = 1e-10;  // 1e-4 µm², 100 µm²
  // The field path is built only when a check fails: the area helpers below validate on every
  // call, many times per logic-die evaluation.
  const auto check = [&](const auto& x, double l, double h, const char* field, const char* unit) {
    const double v = value_of(x);
    if (!(std::isfinite(v) && v >= l && v <= h)) detail::require_range(x, l, h, id, path + "." + field, unit);
  };
  check(t.sram_bitcell_area.si(), lo, hi, "sram_bitcell_area", "m2");
  check(t.dff_area.si(), lo, hi, "dff_area", "m2");
  check(t.xnor2_area.si(), lo, hi, "xnor2_area", "m2");
  check(t.and2_area.si(), lo, hi, "and2_area", "m2");
  check(t.sram_array_efficiency, 0.01, 1.0, "sram_array_efficiency", "");
  check(t.placement_utilization, 0.01, 1.0, "placement_utilization", "");
  check(t.fp16_add_area_fraction, 0.01, 1.0, "fp16_add_area_fraction", "");
}

namespace detail {

// The cell-area formulas without the check, for models that validated `t` once already (the
// logic die calls them a dozen times per evaluation).
template <class T>
strata::area<T> sram_area_of(const logic_7nm_params<T>& t, const T& bits) {
  return t.sram_bitcell_area * (bits / t.sram_array_efficiency);
}
template <class T>
strata::area<T> register_area_of(const logic_7nm_params<T>& t, const T& bits) {
  return t.dff_area * (bits / t.placement_utilization);
}
template <class T>
strata::area<T> comparator_area_of(const logic_7nm_params<T>& t, const T& bits) {
  return (t.xnor2_area + t.and2_area * T(2)) * (bits / t.placement_utilization);
}

}  // namespace detail

/// SRAM macro area for `bits` bits: bits · A_cell / η_array  [m²].
template <class T>
strata::area<T> sram_area(const logic_7nm_params<T>& t, const T& bits) {
  validate(t);
  return detail::sram_area_of(t, bits);
}

/// Placed area of `bits` flip-flops: bits · A_DFF / u_place  [m²].
template <class T>
strata::area<T> register_area(const logic_7nm_params<T>& t, const T& bits) {
  validate(t);
  return detail::register_area_of(t, bits);
}

/// Placed area of a `bits`-wide magnitude comparator (ripple form: per bit one XNOR for
/// equality and two ANDs for generate/propagate): bits · (A_XNOR2 + 2·A_AND2) / u_place  [m²].
template <class T>
strata::area<T> comparator_area(const logic_7nm_params<T>& t, const T& bits) {
  validate(t);
  return detail::comparator_area_of(t, bits);
}

}  // namespace v0
}  // namespace strata
