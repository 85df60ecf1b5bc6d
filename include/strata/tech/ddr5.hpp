// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// DDR5 reference parameters: the core timings Mono3D DRAM builds on (Stratum §2.1: "timings
/// follow the DDR5 standard") and the planar 32 Gb die its density is compared with.

#include "strata/core/error.hpp"
#include "strata/core/units.hpp"

namespace strata {
inline namespace v0 {

/// Core DRAM timings of one speed bin.
template <class T = double>
struct ddr5_timing {
  /// Activate to read (row to column delay). [JESD79-5 DDR5-6400B: 52 tCK × 0.3125 ns]
  strata::duration<T> t_rcd = units::ns(16.25);
  /// Read to first data (CAS latency tAA). [JESD79-5 DDR5-6400B: 52 tCK × 0.3125 ns]
  strata::duration<T> t_cl = units::ns(16.25);
  /// Precharge. [JESD79-5 DDR5-6400B: 52 tCK × 0.3125 ns]
  strata::duration<T> t_rp = units::ns(16.25);
  /// Activate to precharge. [JESD79-5 DDR5: tRAS min 32 ns]
  strata::duration<T> t_ras = units::ns(32.0);

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("t_rcd", s.t_rcd);
    v("t_cl", s.t_cl);
    v("t_rp", s.t_rp);
    v("t_ras", s.t_ras);
  }
  friend bool operator==(const ddr5_timing&, const ddr5_timing&) = default;
};

/// Checks the timings; throws `config_error` naming the field.
template <class T>
void validate(const ddr5_timing<T>& t, const std::string& path = "ddr5") {
  detail::require_positive(t.t_rcd.si(), "strata.ddr5", path + ".t_rcd", "s");
  detail::require_positive(t.t_cl.si(), "strata.ddr5", path + ".t_cl", "s");
  detail::require_positive(t.t_rp.si(), "strata.ddr5", path + ".t_rp", "s");
  detail::require_positive(t.t_ras.si(), "strata.ddr5", path + ".t_ras", "s");
}

/// A planar DRAM die used as the density reference.
template <class T = double>
struct dram_die_reference {
  /// Die capacity. [Stratum §6.1: "a recent 32 Gb DDR5 die"; 32 Gib]
  strata::data_size<T> capacity = units::Gib(32.0);
  /// Die area. Calibrated so that stratum.device.density_vs_ddr5_32Gb = 5.2 (Stratum §6.1);
  /// the paper does not give the area, and public teardown figures for 12 nm-class 32 Gb DDR5
  /// dies were not found. 77.2 mm² means 0.415 Gib/mm².
  strata::area<T> die_area = units::mm2(77.2);

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("capacity", s.capacity);
    v("die_area", s.die_area);
  }
  friend bool operator==(const dram_die_reference&, const dram_die_reference&) = default;
};

/// Bits per area of the reference die.
template <class T>
strata::data_per_area<T> density(const dram_die_reference<T>& d) {
  detail::require_positive(d.capacity.si(), "strata.ddr5", "reference.capacity", "B");
  detail::require_positive(d.die_area.si(), "strata.ddr5", "reference.die_area", "m2");
  return d.capacity / d.die_area;
}

}  // namespace v0
}  // namespace strata
