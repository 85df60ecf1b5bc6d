// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Closed-form thermal resistances: the pieces a compact (HotSpot-style) thermal network is built
/// from, and the analytic answers its checks are held to. All quantities are SI doubles (or any
/// scalar `T`, e.g. Boost.Math autodiff): metres, W/(m·K), W/(m²·K), kelvin per watt.
///
/// **Slab (Fourier's law, 1D).** A slab of thickness t, conductivity k and area A conducts heat
/// normal to its faces through
///   R = t / (k · A)                                                       (`slab_resistance`)
/// and a stack of slabs is their series sum (`layered_slab_resistance`). A face cooled by a
/// fluid with heat-transfer coefficient h adds R = 1 / (h · A) (`convection_resistance`).
///
/// **Trapezoid (lateral spreading into a package rim).** Heat flowing from an edge of length a
/// to a parallel edge of length b across a trapezoid of height d (a plate of thickness t, the
/// width growing linearly) meets
///   R = d · ln(b / a) / (k · t · (b − a))        (→ d / (k·t·a) as b → a)  (`trapezoid_resistance`)
/// the integral of dx / (k · t · w(x)) with w linear from a to b. The package model joins a
/// die's edge to the overhang of its spreader and sink with it.
///
/// **Spreading (constriction) resistance.** A uniformly heated source of radius a on a plate of
/// radius b, thickness t and conductivity k, cooled on its far face by h, has a mean source
/// temperature rise above the fluid of P · (R_1D + R_sp), with R_1D = t/(k·π·b²) + 1/(h·π·b²)
/// and, by the closed form of Lee, Song, Au and Moran (ASME HTD-Vol. 303, 1995, "Constriction/
/// spreading resistance model for electronics packaging", Eq. 3–6; the accuracy they state
/// against the exact series is within a few percent over ε = a/b ∈ [0.1, 1], τ = t/b ≥ 0.1):
///   ε = a/b, τ = t/b, Bi = h·b/k, λ = π + 1/(√π·ε)
///   Φ = (tanh(λτ) + λ/Bi) / (1 + (λ/Bi)·tanh(λτ))
///   ψ_avg = ½ (1 − ε)^{3/2} Φ,   ψ_max = (1 − ε) Φ / √π
///   R_sp = ψ / (k · a · √π)                                 (`spreading_resistance`)
/// A square source of side s and plate of side L take the equal-area radii a = s/√π, b = L/√π
/// (Lee et al. §4; Yovanovich et al., J. Thermophysics 1999, show the equal-area circle carries
/// square sources to within a few percent).
///
/// \code
/// double r = strata::thermal::slab_resistance(150e-6, 100.0, 1e-4);   // 0.015 K/W
/// auto s = strata::thermal::spreading_resistance<double>({.source_radius_m = 2e-3,
///     .plate_radius_m = 1e-2, .thickness_m = 1e-3, .conductivity_W_mK = 400.0, .h_W_m2K = 2e4});
/// \endcode

#include <cmath>  // std::log, std::sqrt, std::tanh, std::pow

#include "strata/core/error.hpp"

namespace strata {
inline namespace v0 {
namespace thermal {

/// t / (k · A): a slab of thickness `t_m`, conductivity `k_W_mK`, area `area_m2` (K/W).
template <class T>
T slab_resistance(const T& t_m, const T& k_W_mK, const T& area_m2) {
  strata::detail::require_positive(t_m, "strata.thermal", "thickness", "m");
  strata::detail::require_positive(k_W_mK, "strata.thermal", "conductivity", "W/(m K)");
  strata::detail::require_positive(area_m2, "strata.thermal", "area", "m^2");
  return t_m / (k_W_mK * area_m2);
}

/// 1 / (h · A): convection from a face of area `area_m2` with coefficient `h_W_m2K` (K/W).
template <class T>
T convection_resistance(const T& h_W_m2K, const T& area_m2) {
  strata::detail::require_positive(h_W_m2K, "strata.thermal", "h", "W/(m^2 K)");
  strata::detail::require_positive(area_m2, "strata.thermal", "area", "m^2");
  return T(1) / (h_W_m2K * area_m2);
}

/// One slab of a layered stack.
template <class T = double>
struct slab {
  T thickness_m = T(0);
  T conductivity_W_mK = T(0);
};

/// Σ t_i / (k_i · A) + 1/(h · A): a stack of slabs over `area_m2` and a convective face
/// (`h_W_m2K` = 0 leaves the face out), the exact 1D answer (K/W).
template <class T, class Slabs>
T layered_slab_resistance(const Slabs& slabs, const T& area_m2, const T& h_W_m2K) {
  T r = T(0);
  for (const auto& s : slabs) r += slab_resistance<T>(s.thickness_m, s.conductivity_W_mK, area_m2);
  if (h_W_m2K != T(0)) r += convection_resistance<T>(h_W_m2K, area_m2);
  return r;
}

/// d · ln(b/a) / (k · t · (b − a)): lateral conduction across a trapezoid of height `d_m` from an
/// edge of length `a_m` to one of length `b_m`, in a plate of thickness `t_m` (K/W).
template <class T>
T trapezoid_resistance(const T& d_m, const T& a_m, const T& b_m, const T& t_m, const T& k_W_mK) {
  using std::abs;
  using std::log;
  strata::detail::require_positive(d_m, "strata.thermal", "trapezoid.height", "m");
  strata::detail::require_positive(a_m, "strata.thermal", "trapezoid.inner", "m");
  strata::detail::require_positive(b_m, "strata.thermal", "trapezoid.outer", "m");
  strata::detail::require_positive(t_m, "strata.thermal", "thickness", "m");
  strata::detail::require_positive(k_W_mK, "strata.thermal", "conductivity", "W/(m K)");
  const T ratio = (b_m - a_m) / a_m;
  // ln(1+x)/x → 1 − x/2 + x²/3 near x = 0 (a rectangle), where the quotient loses digits.
  const T shape = abs(ratio) < T(1e-6) ? T(1) - ratio / T(2) + ratio * ratio / T(3) : log(b_m / a_m) / ratio;
  return d_m * shape / (k_W_mK * t_m * a_m);
}

/// A uniformly heated circular source on a circular plate cooled on its far face.
template <class T = double>
struct spreading_params {
  T source_radius_m = T(0);
  T plate_radius_m = T(0);
  T thickness_m = T(0);
  T conductivity_W_mK = T(0);
  T h_W_m2K = T(0);
};

/// Lee, Song, Au & Moran (1995) closed form (see the file comment).
template <class T = double>
struct spreading_result {
  T one_d_K_W = T(0);       ///< t/(k π b²) + 1/(h π b²)
  T spreading_avg_K_W = T(0);  ///< ψ_avg / (k a √π): source-average temperature
  T spreading_max_K_W = T(0);  ///< ψ_max / (k a √π): source-centre temperature
  /// R_1D + R_sp,avg: the mean source temperature rise per watt.
  [[nodiscard]] T total_avg_K_W() const { return one_d_K_W + spreading_avg_K_W; }
  /// R_1D + R_sp,max: the peak (centre) temperature rise per watt.
  [[nodiscard]] T total_max_K_W() const { return one_d_K_W + spreading_max_K_W; }
};

/// Spreading resistance of a uniform source on a plate (Lee et al. 1995; file comment).
template <class T = double>
spreading_result<T> spreading_resistance(const spreading_params<T>& p) {
  using std::pow;
  using std::sqrt;
  using std::tanh;
  strata::detail::require_positive(p.source_radius_m, "strata.thermal.spreading", "source_radius", "m");
  strata::detail::require_positive(p.plate_radius_m, "strata.thermal.spreading", "plate_radius", "m");
  strata::detail::require_positive(p.thickness_m, "strata.thermal.spreading", "thickness", "m");
  strata::detail::require_positive(p.conductivity_W_mK, "strata.thermal.spreading", "conductivity", "W/(m K)");
  strata::detail::require_positive(p.h_W_m2K, "strata.thermal.spreading", "h", "W/(m^2 K)");
  strata::detail::require(value_of(p.source_radius_m) <= value_of(p.plate_radius_m), "strata.thermal.spreading",
                  "source_radius", value_of(p.source_radius_m), "at most plate_radius");
  const T pi = T(3.14159265358979323846);
  const T sqrt_pi = sqrt(pi);
  const T eps = p.source_radius_m / p.plate_radius_m;
  const T tau = p.thickness_m / p.plate_radius_m;
  const T bi = p.h_W_m2K * p.plate_radius_m / p.conductivity_W_mK;
  const T lambda = pi + T(1) / (sqrt_pi * eps);
  const T th = tanh(lambda * tau);
  const T phi = (th + lambda / bi) / (T(1) + (lambda / bi) * th);
  const T psi_avg = pow(T(1) - eps, T(1.5)) * phi / T(2);
  const T psi_max = (T(1) - eps) * phi / sqrt_pi;
  const T plate_area = pi * p.plate_radius_m * p.plate_radius_m;
  spreading_result<T> r;
  r.one_d_K_W = p.thickness_m / (p.conductivity_W_mK * plate_area) + T(1) / (p.h_W_m2K * plate_area);
  r.spreading_avg_K_W = psi_avg / (p.conductivity_W_mK * p.source_radius_m * sqrt_pi);
  r.spreading_max_K_W = psi_max / (p.conductivity_W_mK * p.source_radius_m * sqrt_pi);
  return r;
}

}  // namespace thermal
}  // namespace v0
}  // namespace strata
