// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Monolithic 3D (Mono3D) DRAM device model (Stratum §2.1, §6.1, §6.2.1, Fig. 2, 12, 14, Table 1).
///
/// Geometry. Horizontal 1T1C cells are stacked in `layers` word-line (WL) layers; bit lines run
/// vertically through all layers. A MAT is `bitlines_per_mat` BL × one WL per layer, a bank is
/// `mats_per_bank` MATs, a chip `banks` banks. Each WL runs `bitlines_per_mat · bl_pitch` across
/// its MAT and reaches its contact through a staircase: the landing pad of layer i (0 = top) sits
/// (i + 1) steps of `staircase_step` beyond the array edge, so deeper layers have longer, more
/// resistive and more capacitive WLs.
///
/// Word-line delay (closed form). With r, c the WL resistance and capacitance per length in the
/// array, r_s, c_s those of the staircase strip (see below), C_cell the load of one cell, R_d the
/// driver, x_i = (i + 1)·s the staircase length of layer i and L_a the array length:
///   R_s = r_s·x_i, C_s = c_s·x_i, R_a = r·L_a, C_a = c·L_a + N_BL·C_cell
///   τ_Elmore(i) = R_d·(C_s + C_a) + R_s·(C_s/2 + C_a) + R_a·C_a/2                       (Elmore)
///   t_WL(i)     = 0.69·R_d·(C_s + C_a) + 0.38·R_s·C_s + 0.69·R_s·C_a + 0.38·R_a·C_a   (50 %)
/// The 50 % form weights lumped charging by ln 2 and distributed-line charging by 0.38
/// (Sakurai, IEEE T-ED 1983; Bakoglu, "Circuits, Interconnections and Packaging for VLSI", 1990).
/// Tests check τ_Elmore against the first moment of the exact RC-ladder response and t_WL against
/// its 50 % crossing (`rc_ladder.hpp`).
///
/// The staircase, re-examined. In n = i + 1, t_WL(n) = a + b·n + q·n² with
///   a = 0.69·R_d·C_a + 0.38·R_a·C_a                (driver and array: constant)
///   b = 0.69·(R_d·c_s + r_s·C_a)·s                  (staircase resistance charging the array)
///   q = 0.38·r_s·c_s·s²                              (the staircase strip charging itself)
/// so the quadratic share of the deepest layer, `staircase_quadratic_share`, is set by the
/// strip's own capacitance c_s·x_N against the array load C_a. The options for the strip:
/// - Landing-pad width / a wider routing strip of width w: r_s = r·F/w, and because the strip
///   lies between the next layers' strips above and below it (each deeper layer reaches further
///   out), its capacitance is plate-like, c_s ≈ c·w/F. r_s·c_s — the quadratic term — is
///   unchanged while the linear term falls by F/w, so at the calibrated 1.6× the quadratic share
///   rises: 41 % at w = F, 60 % at 2F (R² 0.975, below the 0.98 row), 71 % at 4F.
/// - A metal strap over the staircase or a driver per staircase segment would remove the layer
///   dependence or make it linear, but the staircase layers hold no transistors and a strap
///   shunts exactly the RC that Fig. 14 shows; neither is what the paper extracted.
/// - The paper's own figures bound the share from below. The bandwidth rows fix the fastest and
///   slowest tiers' access latencies (256 banks × 4 KiB / 30.34 and / 19.01 TB/s = 34.56 and
///   55.16 ns); with DDR5-6400B tRCD + tCL = 32.5 ns and a ≈ 0.69 ns the word line must add
///   ≈1.4 ns over layers 1–128 and ≈20.6 ns over layers 129–1024: the slope doubles. A linear
///   staircase (c_s → 0) with the same 1.6× tier spread puts both bandwidths ≈5 % low (28.9 and
///   18.1 TB/s), outside their ±2 % rows; a share of roughly 31–55 % meets the bandwidth rows
///   and R² ≥ 0.98 together.
/// The model therefore keeps the narrowest strip, the WL itself continuing F wide through the
/// staircase (`staircase_width` = F, the least convex physical choice), with the step fitted to
/// the 1.6× row; "almost linear" holds in the R² sense (0.988). `staircase_width` is a parameter
/// for design questions (a wider landing strip).
///
/// Timing. Activation of a row in layer i takes tRCD(i) = tRCD_DDR5 + t_WL(i): the WL staircase
/// delay comes on top of DDR5 core timings (Stratum §2.1). Access latency is tRCD(i) + tCL.
///
/// Tiers. The layers are cut into `tiers` groups of (as near as possible) equal rows, fastest
/// first (Stratum §6.2.1, uniform mapping). The tiering table programs one tRCD per tier, which
/// must cover the slowest (deepest) layer of the tier, so a tier's latency is its last layer's.
/// The paper's 1.6× (Fig. 14) is read as the spread between tiers (slowest tier ÷ fastest tier),
/// which the internal-bandwidth range 30.34 / 19.01 = 1.596 confirms; the per-layer spread is
/// wider: with the defaults, layer 1023 ÷ layer 0 = 55.97 / 33.19 ns = 1.69×.
///
/// Bandwidth. Every bank streams `bank_access_bytes` to the logic die through hybrid bonding per
/// access, so a tier's internal bandwidth is banks · bank_access_bytes / access latency: inversely
/// proportional to the tier's access time (Stratum §6.1: 19.01–30.34 TB/s). This is the paper's
/// derivation and the default. The row-cycle limit is an option (`bandwidth_model::row_cycle`):
/// a bank opens a new row at most once per tRC(i) = tRAS(i) + tRP(i), where the word line's
/// rise lengthens the activation (tRAS(i) = tRAS + t_WL(i)) and its fall the precharge
/// (tRP(i) = tRP + t_WL(i)), so banks · bank_access_bytes / max(tRC(i), access latency).
/// Both values are in every tier of the result.
///
/// Energy. A bit read to the logic die costs the parts of `dram_energy.hpp` (activate/precharge,
/// word-line boost, column, datapath, bond); `memory_tiers` exposes their sum.

#include <array>    // std::array (enum names)
#include <cmath>    // std::floor
#include <cstddef>  // std::size_t
#include <utility>  // std::pair
#include <string>   // std::string, std::to_string
#include <vector>   // std::vector

#include "strata/core/error.hpp"
#include "strata/core/scalar.hpp"
#include "strata/core/tier.hpp"
#include "strata/core/units.hpp"
#include "strata/device/dram_energy.hpp"
#include "strata/tech/bounds.hpp"
#include "strata/tech/ddr5.hpp"

namespace strata {
inline namespace v0 {

/// How a tier's internal bandwidth is derived from its timings.
enum class bandwidth_model {
  access_latency,  ///< banks · bytes / (tRCD(i) + tCL): Stratum §6.1's derivation (default)
  row_cycle,       ///< banks · bytes / max(tRC(i), tRCD(i) + tCL): a new row per row cycle
};
constexpr auto enum_names(bandwidth_model) {
  return std::array{std::pair{bandwidth_model::access_latency, "access_latency"},
                    std::pair{bandwidth_model::row_cycle, "row_cycle"}};
}

/// Parameters of one Mono3D DRAM chip.
template <class T = double>
struct mono3d_params {
  /// WL layers. [Stratum §2.1: up to 1024 layers assumed]
  int layers = 1024;
  /// Latency tiers. [Stratum §6.2.1: 8 timing tiers with equal rows]
  int tiers = 8;
  /// Bit lines per MAT. [Stratum §6.1, Table 1: MAT = 1024 BL × 1024 WL]
  int bitlines_per_mat = 1024;
  /// MATs per bank. [Stratum §6.1, Table 1: bank = 1024 MATs]
  int mats_per_bank = 1024;
  /// Banks per chip. [Stratum §6.1: 32 GB per chip = 256 banks of 1024 MATs × 1 Mib at 1024 layers]
  int banks = 256;

  /// Feature size F. [Stratum §2.1: 35 nm]
  strata::length<T> feature_size = units::nm(35.0);
  /// Bit-line pitch along the WL, 2F. [Folded/open-BL DRAM arrays: BL pitch 2F (6F² cell)]
  strata::length<T> bl_pitch = units::nm(70.0);
  /// Horizontal extent of a cell across the WL (the lateral 1T1C capacitor and access device).
  /// Calibrated so that stratum.device.density_Gb_per_mm2 = 2.156 (Stratum §6.1).
  strata::length<T> cell_depth = units::um(0.3379);
  /// Staircase step length per layer. Calibrated so that
  /// stratum.device.fast_slow_latency_ratio_1024 = 1.6 (Stratum §6.2.1, Fig. 14); the paper
  /// extracts the staircase RC with Coventor SEMulator3D and gives no geometry. Reproduce with
  /// `solve_staircase_step(mono3d_params<>{}, 1.6)` (`mono3d_calibration.hpp`).
  strata::length<T> staircase_step = units::um(1.108);
  /// Width of a word line's strip through the staircase. [The WL continuing at its array width
  /// F = 35 nm; see the file comment for why a wider landing strip is more convex, not less]
  strata::length<T> staircase_width = units::nm(35.0);
  /// Fraction of the memory die that is MAT array (incl. staircases); the rest is high-voltage
  /// periphery kept on the memory die (WL drivers, level shifters). [Assumed: 0.9; the
  /// low-voltage periphery sits on the logic die, Stratum §4.3]
  T array_efficiency = T(0.9);

  /// WL resistance per length (array; the staircase strip scales it by F / staircase_width):
  /// tungsten line F × F, thin-film ρ ≈ 12 µΩ·cm (about twice bulk,
  /// from size effects; Gall, J. Appl. Phys. 119, 085101, 2016) → 98 Ω/µm.
  strata::resistance_per_length<T> wl_resistance = units::ohm_per_um(98.0);
  /// WL capacitance per length to neighbours (array; the staircase strip scales it by
  /// staircase_width / F, plate coupling). [Minimum-pitch interconnect ≈ 0.2 fF/µm, ITRS 2013
  /// Interconnect tables]
  strata::capacitance_per_length<T> wl_capacitance = units::fF_per_um(0.2);
  /// Gate and junction load of one cell on its WL (access device of a 35 nm lateral 1T1C cell).
  /// [Assumed 0.15 fF, of the order of a 2D DRAM cell's WL load per cell]
  strata::capacitance<T> cell_load = units::fF(0.15);
  /// WL driver output resistance. [Assumed 2 kΩ: a high-voltage (VPP) WL driver]
  strata::resistance<T> driver_resistance = units::kohm(2.0);

  /// DDR5 core timings the WL delay adds to. [Stratum §2.1; JESD79-5 DDR5-6400B]
  ddr5_timing<T> base{};
  /// Bytes each bank delivers to the logic die per access: one 4 KiB page, 32 MATs × 1024 BL.
  /// [Assumed; not calibrated — the internal-bandwidth rows of Stratum §6.1 are checks]
  strata::data_size<T> bank_access_bytes = units::B(4096.0);
  /// How tier bandwidth is derived. [Stratum §6.1: from the access latency (default)]
  bandwidth_model bandwidth = bandwidth_model::access_latency;
  /// Energy per bit read from the arrays to the logic die, by part (`dram_energy.hpp`).
  dram_access_energy<T> energy{};

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("layers", s.layers);
    v("tiers", s.tiers);
    v("bitlines_per_mat", s.bitlines_per_mat);
    v("mats_per_bank", s.mats_per_bank);
    v("banks", s.banks);
    v("feature_size", s.feature_size);
    v("bl_pitch", s.bl_pitch);
    v("cell_depth", s.cell_depth);
    v("staircase_step", s.staircase_step);
    v("staircase_width", s.staircase_width);
    v("array_efficiency", s.array_efficiency);
    v("wl_resistance", s.wl_resistance);
    v("wl_capacitance", s.wl_capacitance);
    v("cell_load", s.cell_load);
    v("driver_resistance", s.driver_resistance);
    v("base", s.base);
    v("bank_access_bytes", s.bank_access_bytes);
    v("bandwidth", s.bandwidth);
    v("energy", s.energy);
  }
  friend bool operator==(const mono3d_params&, const mono3d_params&) = default;
};

/// Checks every field; throws `config_error` naming the first bad one. Every quantity must lie
/// in a physical range, orders of magnitude around the cited defaults, so that no accepted
/// input overflows or underflows the model into inf or NaN:
/// layers [2, 4096]; tiers [1, layers]; bitlines_per_mat [1, 65536]; mats_per_bank and banks
/// [1, 2^20]; feature_size, bl_pitch [1 nm, 10 µm]; cell_depth [1 nm, 1 mm]; staircase_step
/// [0, 1 mm]; staircase_width [feature_size, 100 µm]; array_efficiency [0.001, 1];
/// wl_resistance [1e-3, 1e7] Ω/µm; wl_capacitance [1e-4, 100] fF/µm; cell_load [0, 1000] fF;
/// driver_resistance [1 Ω, 1 GΩ]; bank_access_bytes [1 B, 1 GiB]; timings and energies as in
/// `ddr5.hpp` and `dram_energy.hpp`.
template <class T>
void validate(const mono3d_params<T>& p) {
  constexpr const char* m = "strata.mono3d";
  using detail::require_count;
  using detail::require_range;
  require_count(p.layers, 2, 4096, m, "layers");
  require_count(p.tiers, 1, p.layers, m, "tiers");
  require_count(p.bitlines_per_mat, 1, 65536, m, "bitlines_per_mat");
  require_count(p.mats_per_bank, 1, 1 << 20, m, "mats_per_bank");
  require_count(p.banks, 1, 1 << 20, m, "banks");
  require_range(p.feature_size.si(), 1e-9, 1e-5, m, "feature_size", "m");
  require_range(p.bl_pitch.si(), 1e-9, 1e-5, m, "bl_pitch", "m");
  require_range(p.cell_depth.si(), 1e-9, 1e-3, m, "cell_depth", "m");
  require_range(p.staircase_step.si(), 0.0, 1e-3, m, "staircase_step", "m");
  require_range(p.staircase_width.si(), value_of(p.feature_size.si()), 1e-4, m,
                "staircase_width", "m (from feature_size)");
  require_range(p.array_efficiency, 1e-3, 1.0, m, "array_efficiency", "");
  require_range(p.wl_resistance.si(), 1e3, 1e13, m, "wl_resistance", "ohm/m");
  require_range(p.wl_capacitance.si(), 1e-13, 1e-7, m, "wl_capacitance", "F/m");
  require_range(p.cell_load.si(), 0.0, 1e-12, m, "cell_load", "F");
  require_range(p.driver_resistance.si(), 1.0, 1e9, m, "driver_resistance", "ohm");
  validate(p.base, "base");
  require_range(p.bank_access_bytes.si(), 1.0, 1073741824.0, m, "bank_access_bytes", "B");
  validate(p.energy, "energy");
}

/// Closed-form delay of one layer's word line.
template <class T = double>
struct wl_delay {
  strata::duration<T> elmore{};  ///< first moment τ_Elmore
  strata::duration<T> t50{};     ///< 50 % delay estimate t_WL
  strata::length<T> staircase{}; ///< staircase length x_i
  strata::duration<T> quadratic{};  ///< 0.38·R_s·C_s, the staircase strip charging itself

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("elmore", s.elmore);
    v("t50", s.t50);
    v("staircase", s.staircase);
    v("quadratic", s.quadratic);
  }
};

/// Word-line delay of `layer` (0 = top, fastest). Unchecked inner form for hot loops: call
/// `validate(p)` first.
template <class T>
wl_delay<T> word_line_delay_unchecked(const mono3d_params<T>& p, int layer) {
  const strata::length<T> x = p.staircase_step * T(static_cast<double>(layer + 1));
  const strata::length<T> la = p.bl_pitch * T(static_cast<double>(p.bitlines_per_mat));
  const T widen = p.staircase_width / p.feature_size;  // strip width in F
  const strata::resistance<T> rs = p.wl_resistance * x / widen, ra = p.wl_resistance * la;
  const strata::capacitance<T> cs = p.wl_capacitance * x * widen;
  const strata::capacitance<T> ca =
      p.wl_capacitance * la + p.cell_load * T(static_cast<double>(p.bitlines_per_mat));
  const strata::resistance<T>& rd = p.driver_resistance;
  wl_delay<T> d;
  d.staircase = x;
  d.elmore = rd * (cs + ca) + rs * (cs * T(0.5) + ca) + ra * ca * T(0.5);
  d.quadratic = T(0.38) * (rs * cs);
  d.t50 = T(0.69) * (rd * (cs + ca) + rs * ca) + d.quadratic + T(0.38) * (ra * ca);
  return d;
}

/// Word-line delay of `layer`; validates its input.
template <class T>
wl_delay<T> word_line_delay(const mono3d_params<T>& p, int layer) {
  validate(p);
  detail::require(layer >= 0 && layer < p.layers, "strata.mono3d", "layer", layer,
                  "in [0, layers)");
  return word_line_delay_unchecked(p, layer);
}

/// Activation time tRCD(i) = tRCD_DDR5 + t_WL(i) and access latency tRCD(i) + tCL of a layer.
template <class T>
strata::duration<T> layer_trcd(const mono3d_params<T>& p, int layer) {
  return p.base.t_rcd + word_line_delay(p, layer).t50;
}

/// Access latency (tRCD(i) + tCL) of `layer`.
template <class T>
strata::duration<T> layer_access_latency(const mono3d_params<T>& p, int layer) {
  return layer_trcd(p, layer) + p.base.t_cl;
}

/// First layer of tier `k` under uniform mapping: ⌊k·layers/tiers⌋ (tier `tiers` = one past the end).
constexpr int tier_first_layer(int layers, int tiers, int k) {
  return static_cast<int>((static_cast<long long>(k) * layers) / tiers);
}

/// One latency tier of a Mono3D chip.
template <class T = double>
struct mono3d_tier {
  int index = 0;                       ///< 0 = fastest
  int first_layer = 0;                 ///< first WL layer in the tier
  int last_layer = 0;                  ///< last (slowest) WL layer in the tier
  strata::duration<T> t_rcd{};         ///< tRCD programmed in the tiering table (last layer's)
  strata::duration<T> access_latency{};  ///< t_rcd + tCL
  strata::duration<T> t_rc{};          ///< row cycle tRAS + tRP + 2·t_WL (last layer's)
  strata::bandwidth<T> latency_bandwidth{};    ///< banks · bank_access_bytes / access_latency
  strata::bandwidth<T> row_cycle_bandwidth{};  ///< banks · bank_access_bytes / max(t_rc, latency)
  strata::bandwidth<T> internal_bandwidth{};   ///< the one `mono3d_params::bandwidth` selects
  strata::data_size<T> capacity{};     ///< bytes in the tier on one chip

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("index", s.index);
    v("first_layer", s.first_layer);
    v("last_layer", s.last_layer);
    v("t_rcd", s.t_rcd);
    v("access_latency", s.access_latency);
    v("t_rc", s.t_rc);
    v("latency_bandwidth", s.latency_bandwidth);
    v("row_cycle_bandwidth", s.row_cycle_bandwidth);
    v("internal_bandwidth", s.internal_bandwidth);
    v("capacity", s.capacity);
  }
};

/// Everything the device model derives for one chip.
template <class T = double>
struct mono3d_result {
  std::vector<mono3d_tier<T>> tiers;        ///< fastest first
  strata::data_size<T> capacity{};          ///< chip capacity
  strata::area<T> mat_area{};               ///< one MAT incl. its staircase
  strata::area<T> die_area{};               ///< memory die: MATs / array efficiency
  strata::data_per_area<T> density{};       ///< capacity / die area
  T fast_slow_latency_ratio{};              ///< slowest tier latency / fastest tier latency
  T staircase_quadratic_share{};            ///< 0.38·R_s·C_s / t_WL of the deepest layer

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("tiers", s.tiers);
    v("capacity", s.capacity);
    v("mat_area", s.mat_area);
    v("die_area", s.die_area);
    v("density", s.density);
    v("fast_slow_latency_ratio", s.fast_slow_latency_ratio);
    v("staircase_quadratic_share", s.staircase_quadratic_share);
  }
};

/// Bits in one MAT: bitlines_per_mat × layers.
template <class T>
strata::data_size<T> mat_capacity(const mono3d_params<T>& p) {
  return units::bit(T(static_cast<double>(p.bitlines_per_mat) * p.layers));
}

/// Evaluates the chip: tiers (latency, bandwidth, capacity), capacity, area and density.
template <class T>
mono3d_result<T> evaluate(const mono3d_params<T>& p) {
  validate(p);
  mono3d_result<T> r;
  const T bits_per_layer = T(static_cast<double>(p.bitlines_per_mat) * p.mats_per_bank * p.banks);
  const strata::data_size<T> page = p.bank_access_bytes * T(static_cast<double>(p.banks));
  r.tiers.reserve(static_cast<std::size_t>(p.tiers));
  for (int k = 0; k < p.tiers; ++k) {
    mono3d_tier<T> t;
    t.index = k;
    t.first_layer = tier_first_layer(p.layers, p.tiers, k);
    t.last_layer = tier_first_layer(p.layers, p.tiers, k + 1) - 1;
    const strata::duration<T> wl = word_line_delay_unchecked(p, t.last_layer).t50;
    t.t_rcd = p.base.t_rcd + wl;
    t.access_latency = t.t_rcd + p.base.t_cl;
    t.t_rc = p.base.t_ras + p.base.t_rp + wl * T(2);
    t.latency_bandwidth = page / t.access_latency;
    t.row_cycle_bandwidth = page / detail::max_of(t.t_rc, t.access_latency);
    t.internal_bandwidth = p.bandwidth == bandwidth_model::row_cycle ? t.row_cycle_bandwidth
                                                                     : t.latency_bandwidth;
    t.capacity = units::bit(bits_per_layer * T(static_cast<double>(t.last_layer - t.first_layer + 1)));
    r.capacity += t.capacity;
    r.tiers.push_back(t);
  }
  const strata::length<T> wl_run =
      p.bl_pitch * T(static_cast<double>(p.bitlines_per_mat)) +
      p.staircase_step * T(static_cast<double>(p.layers));
  r.mat_area = wl_run * p.cell_depth;
  r.die_area = r.mat_area * T(static_cast<double>(p.mats_per_bank) * p.banks) / p.array_efficiency;
  r.density = r.capacity / r.die_area;
  r.fast_slow_latency_ratio = r.tiers.back().access_latency / r.tiers.front().access_latency;
  const auto deepest = word_line_delay_unchecked(p, p.layers - 1);
  r.staircase_quadratic_share = deepest.quadratic / deepest.t50;
  return r;
}

/// The tiers as the shared `memory_tier` vocabulary ("mono3d.tier0" … fastest first), for the
/// roofline evaluator and for placement policies of either paper.
template <class T>
std::vector<memory_tier<T>> memory_tiers(const mono3d_params<T>& p, const mono3d_result<T>& r) {
  std::vector<memory_tier<T>> out;
  out.reserve(r.tiers.size());
  for (const auto& t : r.tiers) {
    out.push_back({"mono3d.tier" + std::to_string(t.index), t.capacity, t.internal_bandwidth,
                   t.access_latency, access_energy(p.energy), p.banks});
  }
  return out;
}

/// Access latency of every layer (index = layer), for profiles and fits.
template <class T>
std::vector<strata::duration<T>> latency_profile(const mono3d_params<T>& p) {
  validate(p);
  std::vector<strata::duration<T>> out;
  out.reserve(static_cast<std::size_t>(p.layers));
  for (int i = 0; i < p.layers; ++i) {
    out.push_back(p.base.t_rcd + word_line_delay_unchecked(p, i).t50 + p.base.t_cl);
  }
  return out;
}

/// Coefficient of determination R² of the least-squares line through (layer, latency):
/// how close the staircase makes latency to linear in the layer (Stratum Fig. 14).
template <class T>
T latency_vs_layer_r2(const mono3d_params<T>& p) {
  const auto prof = latency_profile(p);
  const T n = T(static_cast<double>(prof.size()));
  T sx{}, sy{}, sxx{}, sxy{}, syy{};
  for (std::size_t i = 0; i < prof.size(); ++i) {
    const T x = T(static_cast<double>(i));
    const T y = prof[i].in(units::ns);
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
    syy += y * y;
  }
  const T cxx = sxx - sx * sx / n, cxy = sxy - sx * sy / n, cyy = syy - sy * sy / n;
  if (!(value_of(cyy) > 0.0)) return T(1.0);  // flat profile: a line fits exactly
  return cxy * cxy / (cxx * cyy);
}

/// Share of the deepest layer's word-line delay that is the staircase strip charging itself,
/// 0.38·R_s·C_s / t_WL(layers − 1): the quadratic (distributed-staircase) part of the profile
/// (0.41 with the defaults; see the file comment).
template <class T>
T staircase_quadratic_share(const mono3d_params<T>& p) {
  validate(p);
  const auto d = word_line_delay_unchecked(p, p.layers - 1);
  return d.quadratic / d.t50;
}

}  // namespace v0
}  // namespace strata

// strata::compiled (STRATA_BUILD_COMPILED, src/compiled.cpp) holds the `double` instantiations
// below; STRATA_COMPILED=1, which that target puts on its users, keeps their translation units
// from instantiating them again. Without it this header is unchanged (header-only).
#if defined(STRATA_COMPILED) && STRATA_COMPILED
namespace strata {
inline namespace v0 {
extern template void validate(const mono3d_params<double>&);
extern template mono3d_result<double> evaluate(const mono3d_params<double>&);
extern template std::vector<memory_tier<double>> memory_tiers(const mono3d_params<double>&, const mono3d_result<double>&);
extern template std::vector<strata::duration<double>> latency_profile(const mono3d_params<double>&);
}  // namespace v0
}  // namespace strata
#endif
