// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The Stratum chip as a thermal stack, and the logic-die power at which its hottest DRAM cell
/// reaches the DRAM's limit temperature: the derivation of the ~45 W cap that Stratum §6.2.2 takes
/// "from HotSpot thermal simulation with high-end liquid cooling" (issue 48, item 4).
///
/// **Orientation.** The logic die carries the power-delivery TSVs of Eq. 3, so it sits on the
/// package side; the Mono3D memory die is hybrid-bonded face to face on top of it and its
/// substrate faces the thermal interface and the cold plate. Every watt of the logic die
/// therefore crosses the DRAM cell stack on its way to the coolant. In HotSpot's order (first
/// layer farthest from the sink):
///
/// | layer | material | power |
/// | --- | --- | --- |
/// | logic substrate | thinned Si (TSV die), adiabatic backside: lateral spreading only | — |
/// | logic device + BEOL | transistors at its far face, SiCOH/Cu wiring below them | Eq. 1 by block |
/// | hybrid bond | Cu pads in SiO₂ (a mixed layer, parallel conduction) | — |
/// | memory BEOL | the memory die's wiring from its arrays to the bond pads | — |
/// | Mono3D cell stack | `layers` word-line tiers, oxide / cell laminate crossed by vertical bit lines | refresh + access |
/// | memory substrate | Si | — |
/// | TIM | thermal interface material | — |
/// | cold plate | a heat-transfer coefficient h on the TIM's far face, to the coolant | — |
///
/// With HotSpot's lumping (`thermal_options::node_depth` = 0) a layer's node sits at its face
/// farther from the sink: the logic node is the transistor plane and the cell-stack node is its
/// top word-line tier, the DRAM cells nearest the logic die, which are the hottest.
///
/// **Floorplan** (`stratum_logic_floorplan`). The logic die of `stratum_chip.hpp` (its side
/// √A_die, Eq. 2's blocks from `logic_die.hpp` / `logic_die_blocks.hpp`): the xPU PHY as a strip
/// along the south edge (A_PHY / side high), the low-voltage periphery and the power TSVs as a strip
/// along the north edge, and between them one tile per PU in a cols × rows grid, each split
/// into its PE array (the PU's MACs and PE-local blocks: register files, psum buffers, local
/// memory controllers, tiering tables, row-swap buffers; south part) and its PU-shared blocks
/// (shared memory, special-function engine, ring router, reduction tree, controller; north part)
/// in proportion to their areas, so that the die's white space is shared between them. Powers
/// are Eq. 1's at the chip's N_mac: a PE array dissipates its MACs, its PE-local P_misc and the
/// bond transfer of its banks (the banks sit over their PEs, Stratum §3.2); the shared part its
/// PU-level P_misc; PHY and periphery carry no Eq. 1 power. Every layer uses the same
/// floorplan, so the block and grid models align across layers.
///
/// **DRAM power.** Refresh at the limit temperature (`refresh_at_temperature`: doubled above
/// 85 °C) plus access at `dram_load` × BW_fast, the memory-die parts of the access energy
/// (activate/precharge, word-line boost, column, datapath; the bond part is on the logic die),
/// spread uniformly over the cell stack.
///
/// **The limit** (`logic_power_limit`). For fixed conductances the steady model is linear:
/// θ = G⁻¹ (P·s + d) with s the logic power shape (1 W in Eq. 1's proportions) and d the DRAM
/// power, so the rise of node i is P·a_i + b_i with a = G⁻¹ s and b = G⁻¹ d (two solves of one
/// factorisation). The hottest DRAM cell is at the limit when, for the first cell to get there,
///   P* = min_i (T_lim − T_coolant − b_i) / a_i      over the cell-stack nodes with a_i > 0,
/// which is exact (a maximum of lines in P). A third solve at P* checks that the hottest cell is
/// at T_lim (`verified_max_dram_K`).
///
/// **Materials.** Closed forms, templated on the scalar (autodiff-tested):
/// - a layer of two materials side by side conducts vertically in parallel,
///   k = f·k_a + (1 − f)·k_b (`parallel_conductivity`); a laminate across its plies in series,
///   k = 1 / (f/k_a + (1 − f)/k_b) (`series_conductivity`);
/// - a metal's conductivity from its electrical resistivity (Wiedemann–Franz), k = L·T/ρ with
///   the Sommerfeld value L = 2.44·10⁻⁸ W·Ω/K² (`wiedemann_franz_conductivity`);
/// - the Mono3D cell stack (`mono3d_stack_conductivity`): its tiers are an oxide / cell laminate
///   (series), crossed by one vertical tungsten bit line of F × F per cell footprint bl_pitch ×
///   cell_depth (parallel), whose resistivity is the device model's word-line tungsten
///   (wl_resistance · F², 12 µΩ·cm at the defaults).
///
/// \code
/// strata::thermal::stratum_stack_params s;              // 1024 layers, Table 3 processor
/// auto r = strata::thermal::logic_power_limit(s);        // r.limit_W: the derived cap
/// auto p = strata::thermal::with_derived_power_cap(s);   // the chip with logic.p_peak = r.limit_W
/// auto sized = strata::with_macs_sized_to_budget(p);     // Eq. 1-3 under the derived cap
/// \endcode

#include <algorithm>  // std::max
#include <cmath>      // std::sqrt, std::isfinite
#include <limits>     // std::numeric_limits
#include <string>     // std::string
#include <vector>     // std::vector

#include "strata/core/error.hpp"
#include "strata/core/scalar.hpp"
#include "strata/core/units.hpp"
#include "strata/device/dram_energy.hpp"
#include "strata/device/dram_refresh.hpp"
#include "strata/device/stratum_chip.hpp"
#include "strata/thermal/conduction.hpp"
#include "strata/thermal/floorplan.hpp"
#include "strata/thermal/model.hpp"
#include "strata/thermal/rc_network.hpp"

namespace strata {
inline namespace v0 {
namespace thermal {

// --- closed forms -------------------------------------------------------------------------------

/// f·k_a + (1 − f)·k_b: two materials side by side, heat flowing along them (a bond layer's Cu
/// pads in oxide, a cell stack crossed by vertical bit lines). `fraction_a` in [0, 1].
template <class T>
T parallel_conductivity(const T& fraction_a, const T& k_a, const T& k_b) {
  strata::detail::require_in(fraction_a, 0.0, 1.0, "strata.thermal.material", "fraction");
  strata::detail::require_positive(k_a, "strata.thermal.material", "conductivity_a", "W/(m K)");
  strata::detail::require_positive(k_b, "strata.thermal.material", "conductivity_b", "W/(m K)");
  return fraction_a * k_a + (T(1) - fraction_a) * k_b;
}

/// 1 / (f/k_a + (1 − f)/k_b): a laminate crossed normal to its plies (oxide and cell tiers).
template <class T>
T series_conductivity(const T& fraction_a, const T& k_a, const T& k_b) {
  strata::detail::require_in(fraction_a, 0.0, 1.0, "strata.thermal.material", "fraction");
  strata::detail::require_positive(k_a, "strata.thermal.material", "conductivity_a", "W/(m K)");
  strata::detail::require_positive(k_b, "strata.thermal.material", "conductivity_b", "W/(m K)");
  return T(1) / (fraction_a / k_a + (T(1) - fraction_a) / k_b);
}

/// Wiedemann–Franz: k = L·T/ρ, with L the Lorenz number (W·Ω/K²), T (K), ρ (Ω·m).
template <class T>
T wiedemann_franz_conductivity(const T& resistivity_ohm_m, const T& temperature_K, const T& lorenz = T(2.44e-8)) {
  strata::detail::require_positive(resistivity_ohm_m, "strata.thermal.material", "resistivity", "ohm m");
  strata::detail::require_positive(temperature_K, "strata.thermal.material", "temperature", "K");
  strata::detail::require_positive(lorenz, "strata.thermal.material", "lorenz", "W ohm/K^2");
  return lorenz * temperature_K / resistivity_ohm_m;
}

/// One layer of the stack: thickness, conductivity and volumetric heat capacity (SI).
template <class T = double>
struct stack_material {
  T thickness_m = T(0);
  T conductivity_W_mK = T(0);
  T heat_capacity_J_m3K = T(0);
  friend bool operator==(const stack_material&, const stack_material&) = default;
  /// The fields by name (the sensitivity machinery's and the gap explainer's parameters).
  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("thickness_m", s.thickness_m);
    v("conductivity_W_mK", s.conductivity_W_mK);
    v("heat_capacity_J_m3K", s.heat_capacity_J_m3K);
  }
};

/// The Mono3D cell stack's materials per word-line tier (the device model sets the tier count,
/// the feature size, the bit-line pitch, the cell depth and the tungsten's resistivity).
template <class T = double>
struct mono3d_stack_materials {
  /// Thickness of one word-line tier. [Stratum gives none; a 3D NAND tier of the same
  /// replacement-gate process family, 20–30 nm of oxide plus a word-line ply of about the same
  /// (Coventor, "Innovative solutions to increase 3D NAND flash memory density", SEMulator3D
  /// study): 50 nm]
  T tier_pitch_m = T(50e-9);
  /// Share of a tier that is isolation oxide (the rest is the cell ply). [Same source: half]
  T oxide_fraction = T(0.5);
  /// Oxide conductivity. [Incropera & DeWitt, Fundamentals of Heat and Mass Transfer, 6th ed.,
  /// Table A.3, fused silica at 300 K: 1.38 W/(m·K)]
  T oxide_conductivity_W_mK = T(1.38);
  /// Cell ply conductivity: a ~25 nm silicon film, whose phonons are cut by its faces. [Liu &
  /// Asheghi, Appl. Phys. Lett. 84(19), 2004: about 22 W/(m·K) for a 20 nm single-crystal Si
  /// layer at room temperature]
  T cell_conductivity_W_mK = T(22.0);
  /// Temperature at which the bit line's conductivity is taken (Wiedemann–Franz). [300 K, the
  /// reference temperature of the other materials]
  T bitline_temperature_K = T(300.0);
  /// Volumetric heat capacity of the stack. [Incropera Table A.3, fused silica ρ·c_p = 2220 ×
  /// 745 = 1.65 MJ/(m³·K), and HotSpot 6's silicon 1.75 MJ/(m³·K): their mean]
  T heat_capacity_J_m3K = T(1.70e6);
  friend bool operator==(const mono3d_stack_materials&, const mono3d_stack_materials&) = default;
  /// The fields by name (the sensitivity machinery's and the gap explainer's parameters).
  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("tier_pitch_m", s.tier_pitch_m);
    v("oxide_fraction", s.oxide_fraction);
    v("oxide_conductivity_W_mK", s.oxide_conductivity_W_mK);
    v("cell_conductivity_W_mK", s.cell_conductivity_W_mK);
    v("bitline_temperature_K", s.bitline_temperature_K);
    v("heat_capacity_J_m3K", s.heat_capacity_J_m3K);
  }
};

/// The vertical conductivity of the Mono3D cell stack (file comment): the oxide / cell laminate
/// in series, in parallel with a tungsten bit line of F × F per bl_pitch × cell_depth whose
/// resistivity is the device model's word line's, wl_resistance · F².
template <class T>
T mono3d_stack_conductivity(const mono3d_stack_materials<T>& m, const mono3d_params<T>& dev) {
  constexpr const char* id = "strata.thermal.stratum_stack";
  strata::detail::require_range(m.tier_pitch_m, 1e-9, 1e-5, id, "array.tier_pitch", "m");
  strata::detail::require_range(m.oxide_conductivity_W_mK, 1e-3, 1e4, id, "array.oxide_conductivity", "W/(m K)");
  strata::detail::require_range(m.cell_conductivity_W_mK, 1e-3, 1e4, id, "array.cell_conductivity", "W/(m K)");
  strata::detail::require_range(m.bitline_temperature_K, 1.0, 2000.0, id, "array.bitline_temperature", "K");
  strata::detail::require_range(m.oxide_fraction, 0.0, 1.0, id, "array.oxide_fraction", "");
  const T f = dev.feature_size.si();
  const T footprint = dev.bl_pitch.si() * dev.cell_depth.si();
  const T bl_fraction = f * f / footprint;
  strata::detail::require(value_of(bl_fraction) <= 1.0, id, "memory.feature_size", value_of(f),
                          "a bit line of F x F that fits in its cell (F^2 <= bl_pitch x cell_depth)");
  const T rho = dev.wl_resistance.si() * f * f;
  const T k_bl = wiedemann_franz_conductivity(rho, m.bitline_temperature_K);
  const T k_laminate = series_conductivity(m.oxide_fraction, m.oxide_conductivity_W_mK, m.cell_conductivity_W_mK);
  return parallel_conductivity(bl_fraction, k_bl, k_laminate);
}

// --- the stack ----------------------------------------------------------------------------------

/// The Stratum chip's thermal stack (file comment), every default cited.
struct stratum_stack_params {
  /// The chip: memory die (tiers, bandwidth, capacity, the cell stack's geometry), logic die
  /// (area, Eq. 1–3 blocks and their power at `chip.logic.n_mac`).
  stratum_chip_params<double> chip{};
  /// Logic-die substrate, thinned for its TSVs. [A 5 µm power TSV (logic_die_params::a_tsv) at
  /// the 10:1 aspect ratio of ITRS 2011 Interconnect's global TSVs: 50 µm; silicon k and c as
  /// HotSpot 6's die]
  stack_material<double> logic_substrate{50e-6, 100.0, 1.75e6};
  /// Logic die's transistor plane and BEOL. [IBM, "Measurement of back end of line thermal
  /// resistance for 3D chip stacks", IEEE conference paper, 2013: 0.5–5.5 K·mm²/W for four line
  /// and three via levels in SiCOH, 3.0 at the middle; ASAP7's nine metal levels (Clark et al.,
  /// Microelectronics J. 53, 2016) are 2.25 such groups: 6.75 K·mm²/W. Thickness 3 µm (estimate:
  /// only t/k matters for the vertical path), so k = 3 µm / 6.75 K·mm²/W = 0.444 W/(m·K); c of
  /// oxide and copper ≈ 2 MJ/(m³·K)]
  stack_material<double> logic_beol{3e-6, 0.4444, 2.0e6};
  /// Hybrid bond: Cu pads in SiO₂, 1 µm thick. [Stratum §2: ≈1 µm pitch; pads half the pitch
  /// across (π/4 · 0.5² = 19.6 % Cu, estimate); Incropera Tables A.1/A.3 at 300 K: Cu k = 398,
  /// ρc_p = 3.44 MJ/(m³·K), fused silica k = 1.38, 1.65 MJ/(m³·K); parallel mix
  /// 0.196·398 + 0.804·1.38 = 79.1 W/(m·K)]
  stack_material<double> bond{1e-6, 79.1, 2.0e6};
  /// Memory die's wiring between its arrays and the bond pads. [One such group of the IBM measurement (a DRAM
  /// process has three to four metal levels): 3.0 K·mm²/W; 1.5 µm thick (estimate), k = 0.5]
  stack_material<double> memory_beol{1.5e-6, 0.5, 2.0e6};
  /// The cell stack's materials (its thickness is chip.memory.layers × tier pitch).
  mono3d_stack_materials<double> array{};
  /// Memory-die substrate. [HotSpot 6 t_chip 150 µm, silicon k and c]
  stack_material<double> memory_substrate{150e-6, 100.0, 1.75e6};
  /// Thermal interface material. [HotSpot 6 hotspot.config: t_interface 20 µm, k_interface
  /// 4 W/(m·K), p_interface 4 MJ/(m³·K)]
  stack_material<double> tim{20e-6, 4.0, 4.0e6};
  /// Cold plate heat-transfer coefficient on the TIM's far face (per die area, to the coolant).
  /// [Tuckerman & Pease, "High-performance heat sinking for VLSI", IEEE EDL 2(5), 1981: a
  /// water-cooled microchannel sink removed 790 W/cm² at 71 K above the inlet, 0.09 K·cm²/W:
  /// h = 1.11·10⁵ W/(m²·K)]
  double cold_plate_h_W_m2K = 1.11e5;
  /// Coolant (inlet) temperature. [HotSpot 6 ambient 318.15 K = 45 °C, which is also ASHRAE
  /// TC 9.9's W45 facility-water class]
  double coolant_K = 318.15;
  /// The DRAM cells' limit. [JESD79-5 DDR5: normal temperature range up to 85 °C]
  double dram_limit_C = 85.0;
  /// DRAM traffic while the logic die runs at its cap, as a share of BW_fast. [1: the cap is
  /// Eq. 1's peak, which streams the fastest tier at full bandwidth]
  double dram_load = 1.0;
  /// DRAM refresh (taken at dram_limit_C, `refresh_at_temperature`).
  dram_refresh_params<double> refresh{};
  /// Discretisation. [Grid 32 × 32 (0.34 mm cells on the 121 mm² die), HotSpot's node lumping]
  thermal_options model{thermal_model_kind::grid, 32, 32, 0.0};
  /// The fields by name (the gap explainer's parameters, `report/explain_groups.hpp`); the
  /// discretisation is visited as a whole (its kind and grid are no real parameters).
  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("chip", s.chip);
    v("logic_substrate", s.logic_substrate);
    v("logic_beol", s.logic_beol);
    v("bond", s.bond);
    v("memory_beol", s.memory_beol);
    v("array", s.array);
    v("memory_substrate", s.memory_substrate);
    v("tim", s.tim);
    v("cold_plate_h_W_m2K", s.cold_plate_h_W_m2K);
    v("coolant_K", s.coolant_K);
    v("dram_limit_C", s.dram_limit_C);
    v("dram_load", s.dram_load);
    v("refresh", s.refresh);
    v("model", s.model);
  }
};

/// The layer names of the stack, in order (first farthest from the cold plate).
template <class = void>
inline std::vector<std::string> stratum_stack_layer_names() {
  return {"logic_substrate", "logic_beol", "bond", "memory_beol", "array", "memory_substrate", "tim"};
}

/// Index of the logic (power) layer and of the DRAM cell stack in `stratum_stack_layer_names`.
inline constexpr int stratum_stack_logic_layer = 1;
inline constexpr int stratum_stack_array_layer = 4;

/// Checks the stack's own fields (the chip is checked by its `validate`); throws `config_error`
/// naming the field: thicknesses (0, 1 mm], conductivities [1e-3, 1e4] W/(m·K), heat capacities
/// [1, 1e9] J/(m³·K), h [1, 1e8] W/(m²·K), coolant [200, 500] K, limit above the coolant and at
/// most 95 °C (JESD79-5 specifies no operation above), dram_load [0, 1].
template <class = void>
inline void validate(const stratum_stack_params& s) {
  constexpr const char* id = "strata.thermal.stratum_stack";
  using strata::detail::require_range;
  validate(s.chip);
  const auto material = [&](const stack_material<double>& m, const std::string& name) {
    require_range(m.thickness_m, 1e-9, 1e-3, id, name + ".thickness", "m");
    require_range(m.conductivity_W_mK, 1e-3, 1e4, id, name + ".conductivity", "W/(m K)");
    require_range(m.heat_capacity_J_m3K, 1.0, 1e9, id, name + ".heat_capacity", "J/(m^3 K)");
  };
  material(s.logic_substrate, "logic_substrate");
  material(s.logic_beol, "logic_beol");
  material(s.bond, "bond");
  material(s.memory_beol, "memory_beol");
  material(s.memory_substrate, "memory_substrate");
  material(s.tim, "tim");
  require_range(s.array.heat_capacity_J_m3K, 1.0, 1e9, id, "array.heat_capacity", "J/(m^3 K)");
  require_range(s.cold_plate_h_W_m2K, 1.0, 1e8, id, "cold_plate_h", "W/(m^2 K)");
  require_range(s.coolant_K, 200.0, 500.0, id, "coolant", "K");
  require_range(s.dram_limit_C, -40.0, 95.0, id, "dram_limit", "degC (JESD79-5 specifies no operation above 95)");
  strata::detail::require(s.dram_limit_C + 273.15 > s.coolant_K, id, "dram_limit", s.dram_limit_C,
                          "above the coolant temperature");
  require_range(s.dram_load, 0.0, 1.0, id, "dram_load", "");
  validate(s.refresh);
}

/// The logic die's floorplan and Eq. 1's power per block.
struct stratum_logic_plan {
  floorplan plan;
  std::vector<double> power_W;  ///< Eq. 1's power of each block at the chip's N_mac (sums to P_logic)
  double p_logic_W = 0.0;       ///< Eq. 1's P_logic at the chip's N_mac
  int pu_cols = 0;
  int pu_rows = 0;
};

/// Lays out the logic die of an evaluated chip (file comment). PU tiles form cols × rows with
/// cols the divisor of n_pu nearest the processor region's aspect √(n_pu · W / H).
template <class = void>
inline stratum_logic_plan stratum_logic_floorplan(const stratum_chip_result<double>& c) {
  constexpr const char* id = "strata.thermal.stratum_stack";
  const auto& lp = c.logic_params;
  const auto& r = c.logic;
  const double side = std::sqrt(lp.die_area.si());
  const double h_phy = lp.a_phy.si() / side;
  const double h_top = (lp.a_peri.si() + r.a_pd.si()) / side;
  const double h_proc = side - h_phy - h_top;
  strata::detail::require(h_proc > 1e-3 * side, id, "chip.logic.a_phy", value_of(lp.a_phy.in(units::mm2)),
                          "small enough that PHY, periphery and TSVs leave room for the processor (mm2)");
  const int n_pu = lp.n_pu;
  strata::detail::require(n_pu >= 1 && n_pu <= 1024, id, "chip.logic.n_pu", n_pu,
                          "in [1, 1024] for the thermal floorplan (two blocks per PU)");
  const double ideal = std::sqrt(n_pu * side / h_proc);
  int cols = 1;
  for (int d = 1; d <= n_pu; ++d) {
    if (n_pu % d == 0 && std::abs(d - ideal) < std::abs(cols - ideal)) cols = d;
  }
  const int rows = n_pu / cols;
  const double a_pe = value_of(r.a_macs.si() + r.a_misc.pe_local().si());
  const double a_shared = value_of(r.a_misc.pu_shared().si());
  const double pe_share = a_pe / (a_pe + a_shared);
  const double tw = side / cols, th = h_proc / rows;
  stratum_logic_plan out;
  out.pu_cols = cols;
  out.pu_rows = rows;
  out.p_logic_W = value_of(r.p_logic.si());
  const double p_pe = value_of((r.p_mac + r.p_dram_access + r.p_misc.pe_local()).si()) / n_pu;
  const double p_shared = value_of(r.p_misc.pu_shared().si()) / n_pu;
  out.plan.blocks.push_back({"phy", side, h_phy, 0.0, 0.0, {}, {}});
  out.power_W.push_back(0.0);
  for (int i = 0; i < n_pu; ++i) {
    const int cx = i % cols, cy = i / cols;
    const double x = cx * tw, y = h_phy + cy * th;
    out.plan.blocks.push_back({"pu" + std::to_string(i) + "_pe", tw, th * pe_share, x, y, {}, {}});
    out.power_W.push_back(p_pe);
    out.plan.blocks.push_back({"pu" + std::to_string(i) + "_shared", tw, th * (1 - pe_share), x, y + th * pe_share, {}, {}});
    out.power_W.push_back(p_shared);
  }
  out.plan.blocks.push_back({"periphery", side, h_top, 0.0, h_phy + h_proc, {}, {}});
  out.power_W.push_back(0.0);
  return out;
}

/// DRAM power while the logic die runs at its cap (file comment).
struct stratum_dram_power {
  double refresh_W = 0.0;
  double access_W = 0.0;
  [[nodiscard]] double total_W() const { return refresh_W + access_W; }
};

template <class = void>
inline stratum_dram_power stratum_stack_dram_power(const stratum_stack_params& s, const stratum_chip_result<double>& c) {
  stratum_dram_power d;
  const auto ref = refresh_at_temperature(s.refresh, s.dram_limit_C);
  d.refresh_W = refresh_power(ref, c.memory.capacity).si();
  const auto e = memory_core_energy(s.chip.memory.energy) + memory_periphery_energy(s.chip.memory.energy);
  d.access_W = s.dram_load * (c.bw_fast * e).si();
  return d;
}

/// The stack's layers over the logic floorplan (names as `stratum_stack_layer_names`).
template <class = void>
inline thermal_stack stratum_thermal_stack(const stratum_stack_params& s, const floorplan& plan) {
  const double k_array = mono3d_stack_conductivity(s.array, s.chip.memory);
  const double t_array = s.chip.memory.layers * s.array.tier_pitch_m;
  const auto layer = [&](const stack_material<double>& m, bool power) {
    return thermal_layer{plan, m.thickness_m, m.conductivity_W_mK, m.heat_capacity_J_m3K, power, true};
  };
  thermal_stack st;
  st.layers.push_back(layer(s.logic_substrate, false));
  st.layers.push_back(layer(s.logic_beol, true));
  st.layers.push_back(layer(s.bond, false));
  st.layers.push_back(layer(s.memory_beol, false));
  st.layers.push_back(layer({t_array, k_array, s.array.heat_capacity_J_m3K}, true));
  st.layers.push_back(layer(s.memory_substrate, false));
  st.layers.push_back(layer(s.tim, false));
  st.package.cooling = cooling_kind::cold_plate;
  st.package.cold_plate_h_W_m2K = s.cold_plate_h_W_m2K;
  st.package.ambient_K = s.coolant_K;
  return st;
}

/// One layer of the stack in the result: its material, its 1D resistance over the die and the
/// temperature of its node in the column of the binding DRAM cell at the limit.
struct stratum_stack_layer {
  std::string name;
  double thickness_m = 0.0;
  double conductivity_W_mK = 0.0;
  double unit_resistance_Kmm2_W = 0.0;  ///< t/k per mm² of area
  double die_resistance_K_W = 0.0;      ///< t/(k·A_die)
  double hotspot_K = 0.0;               ///< node temperature above the binding cell, at the limit
};

/// The derived cap and where the heat goes.
struct logic_power_limit_result {
  double limit_W = 0.0;            ///< logic-die power (Eq. 1's proportions) at which the hottest DRAM cell reaches the limit
  double limit_K = 0.0;            ///< the DRAM limit (K)
  double coolant_K = 0.0;
  double rise_per_W_K = 0.0;       ///< a_i: rise of the binding cell per watt of logic power
  double dram_self_rise_K = 0.0;   ///< b_i: rise of the binding cell from the DRAM's own power
  stratum_dram_power dram;         ///< DRAM power in the cell stack
  double p_logic_design_W = 0.0;   ///< Eq. 1 at the chip's N_mac (the shape's scale)
  double verified_max_dram_K = 0.0;  ///< hottest DRAM cell of a second solve at limit_W
  double logic_max_K = 0.0;        ///< hottest logic node at limit_W
  std::string binding_block;       ///< block over which the binding cell sits (grid: the block covering most of it)
  int binding_node = -1;           ///< its node index in the cell-stack layer
  double array_conductivity_W_mK = 0.0;  ///< `mono3d_stack_conductivity`
  double die_area_m2 = 0.0;
  double cold_plate_resistance_K_W = 0.0;   ///< 1/(h·A_die)
  std::vector<stratum_stack_layer> layers;  ///< in stack order
  int nodes = 0;
  bool feasible = false;           ///< the DRAM's own power leaves room for logic power
  std::string reason;
};

/// The logic-die power at which the hottest DRAM cell reaches `s.dram_limit_C` (file comment).
/// Throws `config_error` naming the field on bad input. A stack whose DRAM alone exceeds the limit
/// is a result (`feasible` false, `limit_W` 0, `reason`), not an error.
///
/// `cache` keeps the factorisation of the network from one call to the next
/// (`steady_factorisation_cache`): stacks that differ in their conductances only re-use its
/// ordering, and stacks that differ in no conductance (the coolant, the limit, the DRAM's power)
/// its factors. The result is the same, bit for bit, as without it.
template <class = void>
inline logic_power_limit_result logic_power_limit(const stratum_stack_params& s, steady_factorisation_cache<>& cache) {
  validate(s);
  const auto chip = evaluate(s.chip);
  const auto lp = stratum_logic_floorplan(chip);
  const auto st = stratum_thermal_stack(s, lp.plan);
  const auto net = build_thermal_network(st, s.model);
  const steady_solver<> solver(net.net, cache);
  const std::size_t n_layers = st.layers.size();
  const std::size_t n_blocks = lp.plan.blocks.size();
  logic_power_limit_result r;
  r.dram = stratum_stack_dram_power(s, chip);
  r.p_logic_design_W = lp.p_logic_W;
  strata::detail::require(lp.p_logic_W > 0.0, "strata.thermal.stratum_stack", "chip.logic.n_mac", s.chip.logic.n_mac,
                          "a logic die that dissipates (Eq. 1's P_logic > 0)");
  block_power shape(n_layers, std::vector<double>(n_blocks, 0.0));
  block_power dram(n_layers, std::vector<double>(n_blocks, 0.0));
  const double die_area = lp.plan.blocks.empty() ? 0.0 : chip.logic_params.die_area.si();
  for (std::size_t b = 0; b < n_blocks; ++b) {
    shape[stratum_stack_logic_layer][b] = lp.power_W[b] / lp.p_logic_W;
    dram[stratum_stack_array_layer][b] = r.dram.total_W() * lp.plan.blocks[b].area_m2() / die_area;
  }
  const auto a = solver.rise(node_power(net, shape));
  const auto d = solver.rise(node_power(net, dram));
  r.limit_K = s.dram_limit_C + 273.15;
  r.coolant_K = s.coolant_K;
  const double budget = r.limit_K - s.coolant_K;
  const int first = net.layer_first_node[stratum_stack_array_layer];
  const int count = net.layer_first_node[stratum_stack_array_layer + 1] - first;
  double best = std::numeric_limits<double>::infinity();
  for (int i = first; i < first + count; ++i) {
    const auto k = static_cast<std::size_t>(i);
    if (d[k] >= budget) {  // the DRAM alone reaches the limit here
      best = 0.0;
      r.binding_node = i - first;
      break;
    }
    if (a[k] <= 0.0) continue;
    const double p = (budget - d[k]) / a[k];
    if (p < best) {
      best = p;
      r.binding_node = i - first;
    }
  }
  strata::detail::require(std::isfinite(best), "strata.thermal.stratum_stack", "model", 0,
                          "a network in which logic power reaches the DRAM cells");
  const auto kb = static_cast<std::size_t>(first) + static_cast<std::size_t>(r.binding_node);
  r.limit_W = best;
  r.rise_per_W_K = a[kb];
  r.dram_self_rise_K = d[kb];
  r.feasible = best > 0.0;
  // Second solve at the limit: the hottest DRAM cell must be at the limit.
  block_power at(n_layers, std::vector<double>(n_blocks, 0.0));
  for (std::size_t b = 0; b < n_blocks; ++b) {
    at[stratum_stack_logic_layer][b] = shape[stratum_stack_logic_layer][b] * r.limit_W;
    at[stratum_stack_array_layer][b] = dram[stratum_stack_array_layer][b];
  }
  const auto theta = solver.rise(node_power(net, at));
  double dram_max = 0.0, logic_max = 0.0;
  const int lfirst = net.layer_first_node[stratum_stack_logic_layer];
  for (int i = 0; i < count; ++i) {
    dram_max = std::max(dram_max, theta[static_cast<std::size_t>(first) + static_cast<std::size_t>(i)]);
    logic_max = std::max(logic_max, theta[static_cast<std::size_t>(lfirst) + static_cast<std::size_t>(i)]);
  }
  r.verified_max_dram_K = s.coolant_K + dram_max;
  r.logic_max_K = s.coolant_K + logic_max;
  // The block over the binding cell: the one with the largest share of that node.
  double share = 0.0;
  for (std::size_t b = 0; b < n_blocks; ++b) {
    for (const auto& c : net.blocks[stratum_stack_array_layer][b]) {
      if (c.node == first + r.binding_node && c.share * lp.plan.blocks[b].area_m2() > share) {
        share = c.share * lp.plan.blocks[b].area_m2();
        r.binding_block = lp.plan.blocks[b].name;
      }
    }
  }
  r.array_conductivity_W_mK = st.layers[stratum_stack_array_layer].conductivity_W_mK;
  r.die_area_m2 = die_area;
  r.cold_plate_resistance_K_W = convection_resistance(s.cold_plate_h_W_m2K, die_area);
  const auto names = stratum_stack_layer_names();
  for (std::size_t l = 0; l < n_layers; ++l) {
    const auto& L = st.layers[l];
    stratum_stack_layer x;
    x.name = names[l];
    x.thickness_m = L.thickness_m;
    x.conductivity_W_mK = L.conductivity_W_mK;
    x.unit_resistance_Kmm2_W = L.thickness_m / L.conductivity_W_mK * 1e6;
    x.die_resistance_K_W = slab_resistance(L.thickness_m, L.conductivity_W_mK, die_area);
    x.hotspot_K = s.coolant_K + theta[static_cast<std::size_t>(net.layer_first_node[l]) + static_cast<std::size_t>(r.binding_node)];
    r.layers.push_back(x);
  }
  r.nodes = net.net.size();
  const auto txt = [](double v) { return strata::detail::to_text(v); };
  r.reason = r.feasible ? "the DRAM cell over " + r.binding_block + " reaches " + txt(s.dram_limit_C) + " degC at " +
                              txt(r.limit_W) + " W of logic power (" + txt(r.rise_per_W_K) + " K/W, DRAM's own " +
                              txt(r.dram_self_rise_K) + " K)"
                        : "the DRAM's own " + txt(r.dram.total_W()) + " W bring its cell over " + r.binding_block +
                              " to the limit " + txt(s.dram_limit_C) + " degC without any logic power";
  return r;
}

/// `logic_power_limit(s, cache)` with a cache of its own (one factorisation).
template <class = void>
inline logic_power_limit_result logic_power_limit(const stratum_stack_params& s) {
  steady_factorisation_cache<> cache;
  return logic_power_limit(s, cache);
}

/// The chip of `s` with Eq. 1's cap `logic.p_peak` replaced by the derived limit (the option of
/// issue 48 item 4; the 45 W input stays the default of `logic_die_params`). Feed it to
/// `evaluate` or `with_macs_sized_to_budget` to size the processor under the derived cap. The
/// limit is derived at the chip's own N_mac (Eq. 1's proportions at that point); resizing the
/// processor changes the proportions a little, which this single pass does not iterate on.
/// Throws `config_error` naming `logic.p_peak` when the DRAM alone reaches the limit.
template <class = void>
inline stratum_chip_params<double> with_derived_power_cap(const stratum_stack_params& s) {
  const auto r = logic_power_limit(s);
  if (!r.feasible) throw config_error("logic.p_peak", "[strata.thermal.stratum_stack] logic.p_peak: " + r.reason);
  auto p = s.chip;
  p.logic.p_peak = units::W(r.limit_W);
  return p;
}

}  // namespace thermal
}  // namespace v0
}  // namespace strata
