// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// DRAM refresh: what keeping the cells' charge costs a memory that is never idle (Stratum's
/// Mono3D chips and the HBM-NMP stacks beside them), in bank time and in power.
///
/// A DRAM row leaks and must be re-activated within the refresh window tREFW. The controller
/// issues a refresh command every tREFI; an all-bank refresh holds every bank for tRFC, during
/// which no bank of the device serves a read. Over a stream the banks are therefore available
///   a = 1 − tRFC / tREFI                                                 (bank-time share)
/// of the time, so a stream's bandwidth is a · BW (`refresh_availability`). Each refresh
/// activates and precharges rows: over tREFW every row of the device is restored once, so the
/// refresh power of a device of C bits is
///   P_ref = C · E_row / tREFW                                            (`refresh_power`)
/// with E_row the activation and precharge energy per bit of a fully restored row (the
/// word-line boost included).
///
/// Defaults are JESD79-5 DDR5's at normal temperature (≤ 85 °C): tREFI = 3.9 µs, tREFW = 32 ms
/// (8192 refresh commands per window), tRFC1 by die density (`ddr5_t_rfc1`: 195 ns for 8 Gb,
/// 295 ns for 16 Gb, 410 ns for 24 Gb and 32 Gb). Stratum §2.1 has Mono3D's timings follow the
/// DDR5 standard. A Mono3D chip holds 256 Gib, far above any DDR5 die; its refresh takes the
/// largest DDR5 tRFC1 (410 ns), a lower bound on the time a denser die needs.
///
/// At the defaults a 32 GiB chip refreshes 2.75·10¹¹ bits every 32 ms at 0.11 pJ/b: 0.94 W, and
/// its banks are available 1 − 410/3900 = 89.5 % of the time.
///
/// \code
/// strata::dram_refresh_params<> r;                                // DDR5, 32 Gb class
/// double a = strata::refresh_availability(r);                     // 0.895
/// auto p = strata::refresh_power(r, strata::units::GiB(32.0));    // 0.94 W
/// \endcode

#include <cmath>   // std::isfinite
#include <string>  // std::string

#include "strata/core/error.hpp"
#include "strata/core/units.hpp"
#include "strata/tech/bounds.hpp"

namespace strata {
inline namespace v0 {

/// JESD79-5 DDR5 tRFC1 (all-bank refresh, normal refresh mode) of a die of `gbit` Gb: 195 ns
/// (8 Gb), 295 ns (16 Gb), 410 ns (24 Gb and 32 Gb). Throws `config_error` naming `density` for
/// any other density.
template <class = void>
inline duration<> ddr5_t_rfc1(int gbit) {
  switch (gbit) {
    case 8: return units::ns(195.0);
    case 16: return units::ns(295.0);
    case 24:
    case 32: return units::ns(410.0);
    default: break;
  }
  detail::require(false, "strata.refresh", "density", gbit, "a JESD79-5 DDR5 die density: 8, 16, 24 or 32 Gb");
  return {};
}

/// Refresh of one DRAM device (a Mono3D chip or an HBM stack).
template <class T = double>
struct dram_refresh_params {
  /// Average interval between refresh commands. [JESD79-5 DDR5: tREFI = 3.9 µs at normal
  /// temperature (≤ 85 °C; 1.95 µs above)]
  strata::duration<T> t_refi = units::us(3.9);
  /// Time an all-bank refresh holds the banks. [JESD79-5 DDR5 tRFC1: 410 ns for 24 Gb and 32 Gb
  /// dies (`ddr5_t_rfc1`); a 256 Gib Mono3D chip takes the densest DDR5 die's value]
  strata::duration<T> t_rfc = units::ns(410.0);
  /// Refresh window: every row is restored once within it. [JESD79-5 DDR5: tREFW = 32 ms at
  /// normal temperature (8192 × tREFI)]
  strata::duration<T> t_refw = units::ms(32.0);
  /// Activation and precharge energy per bit of a restored row, word-line boost included.
  /// [As `dram_access_energy`: (IDD0 − IDD3N)·VDD·tRC ≈ 0.8 nJ per 8 Kib row of a DDR4/DDR5 x8
  /// die (Micron TN-40-07 method), 0.1 pJ/b, plus the VPP boost ≈ 1/10 of it (JESD79-5 IPP0 vs
  /// IDD0): 0.11 pJ/b]
  strata::energy_per_data<T> row_energy = units::pJ_per_bit(0.11);
  /// Refresh modelled (true) or left out (false: the banks always available, no refresh power;
  /// the reading strata used before).
  bool enabled = true;

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("t_refi", s.t_refi);
    v("t_rfc", s.t_rfc);
    v("t_refw", s.t_refw);
    v("row_energy", s.row_energy);
    v("enabled", s.enabled);
  }
  friend bool operator==(const dram_refresh_params&, const dram_refresh_params&) = default;
};

/// Checks refresh parameters; throws `config_error` naming the field: tREFI in (0, 1 ms],
/// tRFC in [0, tREFI), tREFW in [tREFI, 10 s], row energy in [0, 1 nJ/B].
template <class T>
void validate(const dram_refresh_params<T>& p, const std::string& path = "refresh") {
  constexpr const char* m = "strata.refresh";
  detail::require_range(p.t_refi.si(), 1e-9, 1e-3, m, path + ".t_refi", "s");
  detail::require_range(p.t_rfc.si(), 0.0, 1e-3, m, path + ".t_rfc", "s");
  if (!(value_of(p.t_rfc.si()) < value_of(p.t_refi.si()))) {
    detail::require(false, m, path + ".t_rfc", value_of(p.t_rfc.si()), "< t_refi (s)");
  }
  detail::require_range(p.t_refw.si(), value_of(p.t_refi.si()), 10.0, m, path + ".t_refw", "s");
  detail::require_range(p.row_energy.si(), 0.0, 1e-9, m, path + ".row_energy", "J/B");
}

/// Share of time the banks serve reads: 1 − tRFC / tREFI (1 without refresh).
template <class T>
T refresh_availability(const dram_refresh_params<T>& p) {
  if (!p.enabled) return T(1);
  return T(1) - p.t_rfc.si() / p.t_refi.si();
}

/// Refresh power of a device holding `capacity`: C · E_row / tREFW (0 without refresh).
template <class T>
strata::power<T> refresh_power(const dram_refresh_params<T>& p, const strata::data_size<T>& capacity) {
  if (!p.enabled) return {};
  return strata::power<T>::from_si(capacity.si() * p.row_energy.si() / p.t_refw.si());
}

/// The refresh a device at case temperature `temperature_C` (°C) needs (JESD79-5 DDR5, §4.13
/// and the tREFI/tREFW tables): at or below 85 °C the parameters as given (the normal range);
/// above 85 °C up to 95 °C, the extended range, twice the refresh rate: tREFI and tREFW halved
/// (3.9 µs → 1.95 µs, 32 ms → 16 ms), so the banks are available 1 − tRFC/(tREFI/2) of the time
/// (89.5 % → 79.0 % at the defaults) and refresh power doubles. Above 95 °C the standard does not
/// specify the device: `config_error` naming `temperature`.
template <class T>
dram_refresh_params<T> refresh_at_temperature(dram_refresh_params<T> p, const T& temperature_C) {
  const double t = value_of(temperature_C);
  detail::require(std::isfinite(t) && t >= -40.0 && t <= 95.0, "strata.refresh", "temperature", t,
                  "a case temperature in [-40, 95] degC (JESD79-5: no operation is specified above 95 degC)");
  if (t > 85.0) {
    p.t_refi = p.t_refi * T(0.5);
    p.t_refw = p.t_refw * T(0.5);
  }
  return p;
}

}  // namespace v0
}  // namespace strata
