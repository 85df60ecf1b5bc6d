// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// DDR5 reference parameters: the core timings Mono3D DRAM builds on (Stratum §2.1: "timings
/// follow the DDR5 standard") and the planar 32 Gb die its density is compared with.

#include "strata/core/error.hpp"
#include "strata/core/units.hpp"
#include "strata/tech/bounds.hpp"

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

/// Checks the timings; throws `config_error` naming the field. Each must lie in [1 ps, 1 µs]
/// (DRAM core timings are tens of ns).
template <class T>
void validate(const ddr5_timing<T>& t, const std::string& path = "ddr5") {
  constexpr const char* m = "strata.ddr5";
  detail::require_range(t.t_rcd.si(), 1e-12, 1e-6, m, path + ".t_rcd", "s");
  detail::require_range(t.t_cl.si(), 1e-12, 1e-6, m, path + ".t_cl", "s");
  detail::require_range(t.t_rp.si(), 1e-12, 1e-6, m, path + ".t_rp", "s");
  detail::require_range(t.t_ras.si(), 1e-12, 1e-6, m, path + ".t_ras", "s");
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
  // [1 B, 1 PiB] and [0.01, 10⁵] mm²: finite densities for any accepted die.
  detail::require_range(d.capacity.si(), 1.0, 1125899906842624.0, "strata.ddr5",
                        "reference.capacity", "B");
  detail::require_range(d.die_area.si(), 1e-8, 0.1, "strata.ddr5", "reference.die_area", "m2");
  return d.capacity / d.die_area;
}

}  // namespace v0
}  // namespace strata
