// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The compact thermal model of a die stack in its package, in HotSpot's two formulations
/// (Skadron et al., ACM TACO 1(1) 2004; Huang et al., IEEE TVLSI 14(5) 2006; the layered 3D
/// extension of HotSpot 6, Zhang, Stan & Skadron, UVA CS-2015-04):
///
/// - **block** (`thermal_model_kind::block`): one node per floorplan block per layer;
/// - **grid** (`thermal_model_kind::grid`): rows × columns nodes per layer over the die.
///
/// **Geometry.** A stack is a list of layers, the first farthest from the heat sink, the last
/// against it (HotSpot's `.lcf` order); each layer has a thickness t, a conductivity k, a
/// volumetric heat capacity c, a floorplan (blocks may carry their own k and c: a mixed layer
/// such as a TSV or bond layer), and says whether it dissipates power and conducts laterally.
/// Every node sits at the mid-plane of its layer and owns a rectangle (a block, or a grid
/// cell). Two nodes of one layer whose rectangles share an edge of length L, their centres d₁
/// and d₂ from it, are joined by
///   g = 1 / (d₁/(k₁ t L) + d₂/(k₂ t L))                        (lateral, half-cell slabs)
/// and two nodes of adjacent layers whose rectangles overlap by area A by
///   g = 1 / (t₁/(2 k₁ A) + t₂/(2 k₂ A))                         (vertical, half-layer slabs)
/// (`slab_resistance`); a node's capacity is c · t · area. In the grid model a cell takes the
/// area-weighted k and c of the blocks over it (the layer's own where no block says otherwise).
///
/// **Package** (`cooling_kind::hotspot_package`, HotSpot's default): under the last layer a
/// copper spreader (side s_sp, centred under the die) and a heat sink (side s_hs), each with one
/// node under every rectangle of the last layer plus its overhang: four trapezoids of the
/// spreader around the die, four of the sink under them and four beyond the spreader's edge
/// (the 12 extra nodes of HotSpot's block model). The overhangs' lateral resistances are HotSpot
/// 6's (`populate_package_R`, temperature.c): slabs half a trapezoid deep, as wide as the trapezoid
/// a quarter (or three quarters) of the way across; a die edge's tiles share the edge-to-trapezoid
/// resistance in proportion to their own half-tile conductances (`populate_R_model_block`), and
/// each sink node reaches the ambient through its thickness and its share by area of the lumped
/// convection resistance r_convec (its capacity takes the same share of c_convec).
/// **Cold plate** (`cooling_kind::cold_plate`): no spreader or sink; the last layer's far face
/// is cooled with coefficient h (R = 1/(h·A) per node), the liquid-cooled plate of a
/// high-end accelerator.
///
/// Defaults are HotSpot 6.0's `hotspot.config` (uvahotspot/HotSpot: its first example's
/// configuration and the 3D example's `.lcf`): silicon k = 100 W/(m·K) (resistivity 0.01 m·K/W),
/// c = 1.75 MJ/(m³·K), t = 150 µm; interface k = 4, c = 4 MJ/(m³·K), t = 20 µm; spreader
/// 30 mm × 1 mm and sink 60 mm × 6.9 mm, both k = 400, c = 3.55 MJ/(m³·K); r_convec 0.1 K/W,
/// c_convec 140.4 J/K; ambient 318.15 K.
///
/// **Against HotSpot's code**, which we did not copy: with `node_depth` 0 the conductances are
/// HotSpot 6's block and grid equations term by term (docs/thermal.md traces them); its transient
/// scales capacities by a fitting factor we do not apply. On HotSpot's EV6 example the 64 × 64 grid
/// with HotSpot's `center` map reproduces HotSpot's own output to its printed rounding.

#include <algorithm>  // std::min, std::max
#include <array>      // std::array
#include <cmath>      // std::floor, std::abs
#include <cstdint>    // std::int64_t
#include <string>     // std::string
#include <utility>    // std::move
#include <vector>     // std::vector

#include "strata/core/error.hpp"
#include "strata/core/limits.hpp"
#include "strata/thermal/conduction.hpp"
#include "strata/thermal/floorplan.hpp"
#include "strata/thermal/rc_network.hpp"

namespace strata {
inline namespace v0 {
namespace thermal {

/// One layer of a stack (SI units).
struct thermal_layer {
  floorplan plan;
  double thickness_m = 150e-6;           ///< [HotSpot 6 hotspot.config t_chip]
  double conductivity_W_mK = 100.0;      ///< [HotSpot 6 .lcf silicon resistivity 0.01 m·K/W]
  double heat_capacity_J_m3K = 1.75e6;   ///< [HotSpot 6 .lcf silicon]
  bool power = true;                     ///< dissipates the power trace's blocks
  bool lateral = true;                   ///< conducts heat sideways (HotSpot's .lcf "Y/N")
};

enum class cooling_kind { hotspot_package, cold_plate };

/// The package under the stack and the ambient (SI units).
struct package_params {
  cooling_kind cooling = cooling_kind::hotspot_package;
  double spreader_side_m = 0.03;               ///< [HotSpot 6 s_spreader]
  double spreader_thickness_m = 0.001;         ///< [HotSpot 6 t_spreader]
  double spreader_conductivity_W_mK = 400.0;   ///< [HotSpot 6 k_spreader, copper]
  double spreader_heat_capacity_J_m3K = 3.55e6;  ///< [HotSpot 6 p_spreader]
  double sink_side_m = 0.06;                   ///< [HotSpot 6 s_sink]
  double sink_thickness_m = 0.0069;            ///< [HotSpot 6 t_sink]
  double sink_conductivity_W_mK = 400.0;       ///< [HotSpot 6 k_sink]
  double sink_heat_capacity_J_m3K = 3.55e6;    ///< [HotSpot 6 p_sink]
  double convection_resistance_K_W = 0.1;      ///< [HotSpot 6 r_convec]
  double convection_capacity_J_K = 140.4;      ///< [HotSpot 6 c_convec]
  /// Cold plate (cooling_kind::cold_plate) heat-transfer coefficient on the last layer's far
  /// face. No default: the caller states it (docs/thermal.md cites the liquid-cooling values).
  double cold_plate_h_W_m2K = 0.0;
  double ambient_K = 318.15;                   ///< [HotSpot 6 ambient]
};

/// A die stack in its package. `layers.front()` is farthest from the sink.
struct thermal_stack {
  std::vector<thermal_layer> layers;
  package_params package;
};

/// The HotSpot 2D stack of one floorplan: the die (silicon, power) over the thermal interface
/// material (HotSpot 6 t_interface = 20 µm, k_interface = 4 W/(m·K), p_interface = 4 MJ/(m³·K)).
template <class = void>
thermal_stack hotspot_2d_stack(const floorplan& plan, const package_params& pkg = {}) {
  thermal_stack s;
  s.package = pkg;
  s.layers.push_back(thermal_layer{plan, 150e-6, 100.0, 1.75e6, true, true});
  s.layers.push_back(thermal_layer{plan, 20e-6, 4.0, 4.0e6, false, true});
  return s;
}

enum class thermal_model_kind { block, grid };

/// How the grid model reads a block's temperature from its cells (HotSpot's `-grid_map_mode`;
/// the rules of HotSpot 6's `xlate_temp_g2b` and `set_bgmap`, temperature_grid.c, commit a7a3286e).
/// A block's cells are those its rectangle touches: rows and columns from HotSpot's
/// `tolerant_floor`/`tolerant_ceil` of its edges in cell units (within 1e-6 of a whole number counts
/// as whole, util.c).
enum class grid_map_mode {
  area,    ///< strata's: the mean of the cells weighted by the block's area in each (the default)
  avg,     ///< HotSpot's avg: the plain mean of every cell the block touches
  min,     ///< HotSpot's min over those cells
  max,     ///< HotSpot's max over those cells
  center,  ///< HotSpot's center: the mean of the one, two or four cells at the middle of that range
};

/// How the stack is discretised.
struct thermal_options {
  thermal_model_kind model = thermal_model_kind::block;
  int grid_rows = 64;   ///< [HotSpot 6 grid_rows]
  int grid_cols = 64;   ///< [HotSpot 6 grid_cols]
  /// Where a node sits in its layer, as a fraction of the thickness from the face farther from
  /// the sink: 0 is HotSpot's lumping (a layer's whole vertical resistance lies between its node
  /// and the next layer's; the node's temperature is that of the layer's top face), 0.5 the
  /// finite-volume mid-plane. Either is exact for 1D conduction at its own depth.
  double node_depth = 0.0;
  /// Grid model: how a block's temperature is read from its cells (ignored by the block model).
  grid_map_mode grid_map = grid_map_mode::area;
};

/// A built network: the RC network and how blocks map onto its nodes.
struct thermal_network {
  rc_network net;
  /// One (node, share) per rectangle a block covers: its power goes to the nodes in these
  /// shares, and its temperature is the same-weighted mean (HotSpot's grid_map_mode avg).
  struct cover {
    int node = 0;
    double share = 0.0;
  };
  /// [layer][block] → covers.
  std::vector<std::vector<std::vector<cover>>> blocks;
  /// The cells a block's temperature is read from when `map` is one of HotSpot's modes
  /// ([layer][block]; empty with `grid_map_mode::area`, which reads `blocks`).
  std::vector<std::vector<std::vector<cover>>> probes;
  grid_map_mode map = grid_map_mode::area;
  /// First node of each layer, and the first package node (== net.size() for a cold plate).
  std::vector<int> layer_first_node;
  int package_first_node = 0;
  double ambient_K = 318.15;
};

namespace detail {

struct tile {
  double l, b, r, t;
  double k, c;
  [[nodiscard]] double area() const { return (r - l) * (t - b); }
};

inline constexpr const char* thermal_model_id = "strata.thermal";

/// Shared-edge length of two rectangles (0 unless they touch along an edge, within `tol`) and
/// the centres' distances to that edge.
template <class = void>
bool shared_edge(const tile& a, const tile& b, double tol, double& len, double& da, double& db) {
  const double ox = std::min(a.r, b.r) - std::max(a.l, b.l);
  const double oy = std::min(a.t, b.t) - std::max(a.b, b.b);
  if (oy > tol && (std::abs(a.r - b.l) <= tol || std::abs(b.r - a.l) <= tol)) {
    len = oy;
    da = (a.r - a.l) / 2;
    db = (b.r - b.l) / 2;
    return true;
  }
  if (ox > tol && (std::abs(a.t - b.b) <= tol || std::abs(b.t - a.b) <= tol)) {
    len = ox;
    da = (a.t - a.b) / 2;
    db = (b.t - b.b) / 2;
    return true;
  }
  return false;
}

template <class = void>
void validate_stack(const thermal_stack& s, const thermal_options& o) {
  using strata::detail::require;
  using strata::detail::require_positive;
  require(!s.layers.empty(), thermal_model_id, "layers", 0, "at least one layer");
  require(s.layers.size() <= static_cast<std::size_t>(limits().thermal_layers), thermal_model_id, "layers",
          s.layers.size(), "at most strata::limits().thermal_layers");
  for (std::size_t l = 0; l < s.layers.size(); ++l) {
    const auto& L = s.layers[l];
    validate_floorplan(L.plan, "layer " + std::to_string(l));
    require_positive(L.thickness_m, thermal_model_id, "layer.thickness", "m");
    require_positive(L.conductivity_W_mK, thermal_model_id, "layer.conductivity", "W/(m K)");
    require_positive(L.heat_capacity_J_m3K, thermal_model_id, "layer.heat_capacity", "J/(m^3 K)");
    require(L.thickness_m <= 1.0, thermal_model_id, "layer.thickness", L.thickness_m, "at most 1 m");
  }
  const auto& p = s.package;
  require_positive(p.ambient_K, thermal_model_id, "ambient", "K");
  if (p.cooling == cooling_kind::cold_plate) {
    require_positive(p.cold_plate_h_W_m2K, thermal_model_id, "cold_plate_h", "W/(m^2 K)");
  } else {
    require_positive(p.spreader_side_m, thermal_model_id, "s_spreader", "m");
    require_positive(p.spreader_thickness_m, thermal_model_id, "t_spreader", "m");
    require_positive(p.spreader_conductivity_W_mK, thermal_model_id, "k_spreader", "W/(m K)");
    require_positive(p.spreader_heat_capacity_J_m3K, thermal_model_id, "p_spreader", "J/(m^3 K)");
    require_positive(p.sink_side_m, thermal_model_id, "s_sink", "m");
    require_positive(p.sink_thickness_m, thermal_model_id, "t_sink", "m");
    require_positive(p.sink_conductivity_W_mK, thermal_model_id, "k_sink", "W/(m K)");
    require_positive(p.sink_heat_capacity_J_m3K, thermal_model_id, "p_sink", "J/(m^3 K)");
    require_positive(p.convection_resistance_K_W, thermal_model_id, "r_convec", "K/W");
    strata::detail::require_nonnegative(p.convection_capacity_J_K, thermal_model_id, "c_convec", "J/K");
    require(p.sink_side_m > p.spreader_side_m, thermal_model_id, "s_sink", p.sink_side_m, "larger than s_spreader");
    require(p.sink_side_m <= 10.0, thermal_model_id, "s_sink", p.sink_side_m, "at most 10 m");
  }
  require(o.node_depth >= 0.0 && o.node_depth <= 1.0, thermal_model_id, "node_depth", o.node_depth, "in [0, 1]");
  if (o.model == thermal_model_kind::grid) {
    require(o.grid_rows >= 1 && o.grid_rows <= 4096, thermal_model_id, "grid_rows", o.grid_rows, "in [1, 4096]");
    require(o.grid_cols >= 1 && o.grid_cols <= 4096, thermal_model_id, "grid_cols", o.grid_cols, "in [1, 4096]");
  }
}

/// HotSpot 6's `tolerant_floor` / `tolerant_ceil` (util.c): a value within 1e-6 of a whole number
/// is that number.
template <class = void>
int tolerant_floor(double v) {
  const double nearest = std::floor(v + 0.5);
  return static_cast<int>(std::abs(v - nearest) < 1e-6 ? nearest : std::floor(v));
}
template <class = void>
int tolerant_ceil(double v) {
  const double nearest = std::floor(v + 0.5);
  return static_cast<int>(std::abs(v - nearest) < 1e-6 ? nearest : std::ceil(v));
}

/// The cells a block is read from under HotSpot's map modes (`grid_map_mode`): HotSpot's row index
/// i counts from the top (i = R − 1 − r), so i1 = R − ⌈top/dy⌉, i2 = R − ⌊bottom/dy⌋, j1 = ⌊left/dx⌋,
/// j2 = ⌈right/dx⌉ (set_bgmap); `center` takes the cells (ci1|ci2, cj1|cj2) with ci1 = (i1 + i2)/2,
/// ci2 = ci1 − 1 when the range is even (xlate_temp_g2b), each a quarter.
template <class = void>
std::vector<thermal_network::cover> hotspot_probe(const flp_block& b, const flp_box& box, int R, int C, grid_map_mode m,
                                                  int first_node) {
  const double dx = box.width_m() / C, dy = box.height_m() / R;
  const auto clampi = [](int v, int lo, int hi) { return std::max(lo, std::min(hi, v)); };
  const int i1 = clampi(R - tolerant_ceil((b.top_m() - box.bottom_m) / dy), 0, R - 1);
  const int i2 = clampi(R - tolerant_floor((b.bottom_m - box.bottom_m) / dy), i1 + 1, R);
  const int j1 = clampi(tolerant_floor((b.left_m - box.left_m) / dx), 0, C - 1);
  const int j2 = clampi(tolerant_ceil((b.right_m() - box.left_m) / dx), j1 + 1, C);
  const auto node = [&](int i, int j) { return first_node + (R - 1 - i) * C + j; };
  std::vector<thermal_network::cover> out;
  if (m == grid_map_mode::center) {
    const int ci1 = (i1 + i2) / 2, cj1 = (j1 + j2) / 2;
    const int ci2 = ci1 - ((i2 - i1) % 2 == 0 ? 1 : 0), cj2 = cj1 - ((j2 - j1) % 2 == 0 ? 1 : 0);
    for (const auto& [i, j] : {std::pair{ci1, cj1}, std::pair{ci2, cj1}, std::pair{ci1, cj2}, std::pair{ci2, cj2}})
      out.push_back({node(i, j), 0.25});
    return out;
  }
  const double share = 1.0 / (static_cast<double>(i2 - i1) * static_cast<double>(j2 - j1));
  for (int i = i1; i < i2; ++i)
    for (int j = j1; j < j2; ++j) out.push_back({node(i, j), share});
  return out;
}

/// Rectangles (and their materials) of layer `L` in the chosen model over `box`, and the covers of
/// its blocks.
template <class = void>
std::vector<tile> layer_tiles(const thermal_layer& L, const thermal_options& o, const flp_box& box,
                              std::vector<std::vector<thermal_network::cover>>& covers, int first_node) {
  std::vector<tile> tiles;
  const auto& bl = L.plan.blocks;
  covers.assign(bl.size(), {});
  const auto k_of = [&](const flp_block& b) { return b.resistivity_mK_W ? 1.0 / *b.resistivity_mK_W : L.conductivity_W_mK; };
  const auto c_of = [&](const flp_block& b) { return b.heat_capacity_J_m3K ? *b.heat_capacity_J_m3K : L.heat_capacity_J_m3K; };
  if (o.model == thermal_model_kind::block) {
    for (std::size_t i = 0; i < bl.size(); ++i) {
      const auto& b = bl[i];
      tiles.push_back({b.left_m, b.bottom_m, b.right_m(), b.top_m(), k_of(b), c_of(b)});
      covers[i].push_back({first_node + static_cast<int>(i), 1.0});
    }
    return tiles;
  }
  const int R = o.grid_rows, C = o.grid_cols;
  const double dx = box.width_m() / C, dy = box.height_m() / R;
  tiles.resize(static_cast<std::size_t>(R) * static_cast<std::size_t>(C));
  std::vector<double> covered(tiles.size(), 0.0), k_sum(tiles.size(), 0.0), c_sum(tiles.size(), 0.0);
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) {
      auto& t = tiles[static_cast<std::size_t>(r) * static_cast<std::size_t>(C) + static_cast<std::size_t>(c)];
      t.l = box.left_m + c * dx;
      t.r = box.left_m + (c + 1) * dx;
      t.b = box.bottom_m + r * dy;
      t.t = box.bottom_m + (r + 1) * dy;
    }
  const auto clampi = [](double v, int hi) { return std::max(0, std::min(hi, static_cast<int>(std::floor(v)))); };
  for (std::size_t i = 0; i < bl.size(); ++i) {
    const auto& b = bl[i];
    const int c0 = clampi((b.left_m - box.left_m) / dx, C - 1), c1 = clampi((b.right_m() - box.left_m) / dx, C - 1);
    const int r0 = clampi((b.bottom_m - box.bottom_m) / dy, R - 1), r1 = clampi((b.top_m() - box.bottom_m) / dy, R - 1);
    for (int r = r0; r <= r1; ++r)
      for (int c = c0; c <= c1; ++c) {
        const auto idx = static_cast<std::size_t>(r) * static_cast<std::size_t>(C) + static_cast<std::size_t>(c);
        const auto& t = tiles[idx];
        const double a = overlap_area(b.left_m, b.bottom_m, b.right_m(), b.top_m(), t.l, t.b, t.r, t.t);
        if (a <= 0.0) continue;
        covers[i].push_back({first_node + static_cast<int>(idx), a / b.area_m2()});
        covered[idx] += a;
        k_sum[idx] += a * k_of(b);
        c_sum[idx] += a * c_of(b);
      }
  }
  for (std::size_t idx = 0; idx < tiles.size(); ++idx) {
    auto& t = tiles[idx];
    const double rest = std::max(0.0, t.area() - covered[idx]);
    t.k = (k_sum[idx] + rest * L.conductivity_W_mK) / (covered[idx] + rest);
    t.c = (c_sum[idx] + rest * L.heat_capacity_J_m3K) / (covered[idx] + rest);
  }
  return tiles;
}

/// Lateral links of one layer's tiles.
template <class = void>
void connect_lateral(rc_network& n, const std::vector<tile>& tiles, int first, double t_m, const thermal_options& o) {
  const auto g_of = [&](const tile& a, const tile& b, double len, double da, double db) {
    return 1.0 / (da / (a.k * t_m * len) + db / (b.k * t_m * len));
  };
  if (o.model == thermal_model_kind::grid) {
    const int R = o.grid_rows, C = o.grid_cols;
    for (int r = 0; r < R; ++r)
      for (int c = 0; c < C; ++c) {
        const int i = r * C + c;
        const auto& a = tiles[static_cast<std::size_t>(i)];
        if (c + 1 < C) {
          const auto& b = tiles[static_cast<std::size_t>(i) + 1];
          n.connect(first + i, first + i + 1, g_of(a, b, a.t - a.b, (a.r - a.l) / 2, (b.r - b.l) / 2));
        }
        if (r + 1 < R) {
          const auto& b = tiles[static_cast<std::size_t>(i) + static_cast<std::size_t>(C)];
          n.connect(first + i, first + i + C, g_of(a, b, a.r - a.l, (a.t - a.b) / 2, (b.t - b.b) / 2));
        }
      }
    return;
  }
  for (std::size_t i = 0; i < tiles.size(); ++i)
    for (std::size_t j = i + 1; j < tiles.size(); ++j) {
      const auto& a = tiles[i];
      const auto& b = tiles[j];
      // Floorplans are written to a micrometre (6 digits in metres): edges within 2 µm touch.
      const double tol = std::min(2e-6, 0.01 * std::min({a.r - a.l, a.t - a.b, b.r - b.l, b.t - b.b}));
      double len = 0, da = 0, db = 0;
      if (shared_edge(a, b, tol, len, da, db))
        n.connect(first + static_cast<int>(i), first + static_cast<int>(j), g_of(a, b, len, da, db));
    }
}

/// Vertical links between two layers' tiles (same grid: cell to cell; blocks: by overlap).
template <class = void>
void connect_vertical(rc_network& n, const std::vector<tile>& up, int first_up, double t_up,
                      const std::vector<tile>& down, int first_down, double t_down, const thermal_options& o) {
  const auto g_of = [&](const tile& a, const tile& b, double A) {
    return 1.0 / ((1 - o.node_depth) * t_up / (a.k * A) + o.node_depth * t_down / (b.k * A));
  };
  if (o.model == thermal_model_kind::grid) {
    for (std::size_t i = 0; i < up.size(); ++i)
      n.connect(first_up + static_cast<int>(i), first_down + static_cast<int>(i), g_of(up[i], down[i], up[i].area()));
    return;
  }
  for (std::size_t i = 0; i < up.size(); ++i)
    for (std::size_t j = 0; j < down.size(); ++j) {
      const double A = overlap_area(up[i].l, up[i].b, up[i].r, up[i].t, down[j].l, down[j].b, down[j].r, down[j].t);
      if (A > 0.0) n.connect(first_up + static_cast<int>(i), first_down + static_cast<int>(j), g_of(up[i], down[j], A));
    }
}

/// HotSpot's package under the last layer: spreader and sink under every tile, their
/// overhangs as trapezoids, convection from the sink (file comment).
template <class = void>
void add_package(rc_network& n, const std::vector<tile>& last, int first_last, double t_last, const flp_box& box,
                 const package_params& p, double phi) {
  const double W = box.width_m(), H = box.height_m();
  strata::detail::require(p.spreader_side_m > std::max(W, H), thermal_model_id, "s_spreader", p.spreader_side_m,
                          "larger than the die");
  const double tsp = p.spreader_thickness_m, ksp = p.spreader_conductivity_W_mK;
  const double ths = p.sink_thickness_m, khs = p.sink_conductivity_W_mK;
  const double s1 = p.spreader_side_m, s2 = p.sink_side_m;
  const double sink_area = s2 * s2;
  const double u = 1 - phi;  // share of a layer's thickness below its node
  const auto sink_to_air = [&](double A) { return 1.0 / (u * ths / (khs * A) + p.convection_resistance_K_W * sink_area / A); };
  const auto sink_cap = [&](double A) { return p.sink_heat_capacity_J_m3K * ths * A + p.convection_capacity_J_K * A / sink_area; };
  // Spreader and sink under every tile.
  const int first_sp = n.size();
  for (const auto& t : last) n.add_node(p.spreader_heat_capacity_J_m3K * tsp * t.area(), 0.0);
  const int first_hs = n.size();
  for (const auto& t : last) n.add_node(sink_cap(t.area()), sink_to_air(t.area()));
  for (std::size_t i = 0; i < last.size(); ++i) {
    const double A = last[i].area();
    const int ii = static_cast<int>(i);
    n.connect(first_last + ii, first_sp + ii, 1.0 / (u * t_last / (last[i].k * A) + phi * tsp / (ksp * A)));
    n.connect(first_sp + ii, first_hs + ii, 1.0 / (u * tsp / (ksp * A) + phi * ths / (khs * A)));
  }
  // Periphery: north, south, east, west trapezoids (inner edge = die edge). Their lateral
  // resistances are HotSpot 6's (`populate_package_R`, temperature.c, commit a7a3286e): a slab of
  // length d/2 (d: the overhang's depth) and of the trapezoid's width a quarter of the way from its
  // inner edge, (s_sp + 3·L)/4 (die edge to the trapezoid's middle, r_sp1 and r_hs1), or three
  // quarters, (3·s_sp + L)/4 (its middle to the spreader's edge, r_hs2); the sink's rim from the
  // spreader's edge to its middle, (s_sink − s_sp)/4 long and (s_sink + 3·s_sp)/4 wide (r_hs).
  struct side {
    double inner, d_sp, d_hs;  // die edge length, spreader overhang depth, sink rim depth
  };
  const side sides[4] = {{W, (s1 - H) / 2, (s2 - s1) / 2}, {W, (s1 - H) / 2, (s2 - s1) / 2},
                         {H, (s1 - W) / 2, (s2 - s1) / 2}, {H, (s1 - W) / 2, (s2 - s1) / 2}};
  const auto quarter_slab = [](double len, double width, double t, double k) { return len / (k * t * width); };
  int sp_per[4], hs_in[4], hs_out[4];
  double r_sp1[4], r_hs1[4];
  for (int s = 0; s < 4; ++s) {
    const auto& S = sides[s];
    const double a_in = (S.inner + s1) / 2 * S.d_sp;             // spreader trapezoid area
    const double a_out = (s1 + s2) / 2 * S.d_hs;                 // sink rim trapezoid area
    sp_per[s] = n.add_node(p.spreader_heat_capacity_J_m3K * tsp * a_in, 0.0);
    hs_in[s] = n.add_node(sink_cap(a_in), sink_to_air(a_in));
    hs_out[s] = n.add_node(sink_cap(a_out), sink_to_air(a_out));
    n.connect(sp_per[s], hs_in[s], 1.0 / (u * tsp / (ksp * a_in) + phi * ths / (khs * a_in)));
    r_sp1[s] = quarter_slab(S.d_sp / 2, (s1 + 3 * S.inner) / 4, tsp, ksp);
    r_hs1[s] = quarter_slab(S.d_sp / 2, (s1 + 3 * S.inner) / 4, ths, khs);
    const double r_hs2 = quarter_slab(S.d_sp / 2, (3 * s1 + S.inner) / 4, ths, khs);
    const double r_hs = quarter_slab(S.d_hs / 2, (s2 + 3 * s1) / 4, ths, khs);
    n.connect(hs_in[s], hs_out[s], 1.0 / (r_hs2 + r_hs));
  }
  // Die-edge tiles to their trapezoid, in spreader and sink. Tile i reaches the die edge through
  // its half-width, g_i = k·t·L_i/(w_i/2) (L_i: its length on the edge), and the trapezoid's
  // resistance r1 is shared among the edge's tiles in proportion to g_i: R_i = (1 + r1·Σg)/g_i,
  // which puts r1 in series with the edge's tiles in parallel (HotSpot 6 `populate_R_model_block`;
  // for the grid's equal cells it is ry/2 + n·r1, `single_iteration_steady_grid`).
  const double tol = 2e-6;
  std::vector<std::array<double, 4>> seg(last.size()), half(last.size());
  double g_sum_sp[4] = {0, 0, 0, 0}, g_sum_hs[4] = {0, 0, 0, 0};
  for (std::size_t i = 0; i < last.size(); ++i) {
    const auto& t = last[i];
    seg[i] = {std::abs(t.t - box.top_m) <= tol ? t.r - t.l : 0.0, std::abs(t.b - box.bottom_m) <= tol ? t.r - t.l : 0.0,
              std::abs(t.r - box.right_m) <= tol ? t.t - t.b : 0.0, std::abs(t.l - box.left_m) <= tol ? t.t - t.b : 0.0};
    half[i] = {(t.t - t.b) / 2, (t.t - t.b) / 2, (t.r - t.l) / 2, (t.r - t.l) / 2};
    for (int s = 0; s < 4; ++s)
      if (seg[i][static_cast<std::size_t>(s)] > 0.0) {
        g_sum_sp[s] += ksp * tsp * seg[i][static_cast<std::size_t>(s)] / half[i][static_cast<std::size_t>(s)];
        g_sum_hs[s] += khs * ths * seg[i][static_cast<std::size_t>(s)] / half[i][static_cast<std::size_t>(s)];
      }
  }
  for (std::size_t i = 0; i < last.size(); ++i) {
    const int ii = static_cast<int>(i);
    for (int s = 0; s < 4; ++s) {
      const double L = seg[i][static_cast<std::size_t>(s)];
      if (L <= 0.0) continue;
      const double g_sp = ksp * tsp * L / half[i][static_cast<std::size_t>(s)];
      const double g_hs = khs * ths * L / half[i][static_cast<std::size_t>(s)];
      n.connect(first_sp + ii, sp_per[s], g_sp / (1.0 + r_sp1[s] * g_sum_sp[s]));
      n.connect(first_hs + ii, hs_in[s], g_hs / (1.0 + r_hs1[s] * g_sum_hs[s]));
    }
  }
}

}  // namespace detail

/// Builds the RC network of `s` in the model `o` (file comment). Throws `config_error` naming
/// the field on bad input; the node count is checked against `limits().thermal_nodes` before
/// anything is allocated.
template <class = void>
thermal_network build_thermal_network(const thermal_stack& s, const thermal_options& o = {}) {
  detail::validate_stack(s, o);
  flp_box box = bounding_box(s.layers.front().plan);
  for (const auto& L : s.layers) {
    const auto b = bounding_box(L.plan);
    box.left_m = std::min(box.left_m, b.left_m);
    box.bottom_m = std::min(box.bottom_m, b.bottom_m);
    box.right_m = std::max(box.right_m, b.right_m);
    box.top_m = std::max(box.top_m, b.top_m);
  }
  std::int64_t per_layer_max = 0;
  std::int64_t nodes = 12;
  for (const auto& L : s.layers) {
    const std::int64_t k = o.model == thermal_model_kind::grid ? std::int64_t{o.grid_rows} * o.grid_cols
                                                               : static_cast<std::int64_t>(L.plan.blocks.size());
    nodes += k;
    per_layer_max = std::max(per_layer_max, k);
  }
  nodes += 2 * per_layer_max;
  strata::detail::require(nodes <= limits().thermal_nodes, detail::thermal_model_id, "nodes", nodes,
                          "at most strata::limits().thermal_nodes (grid rows x columns x layers + package)");
  thermal_network tn;
  tn.ambient_K = s.package.ambient_K;
  auto& n = tn.net;
  // Reserved once (a grid node has at most two lateral and one downward link of its own, plus a
  // die-edge cell's two to the overhangs; the block model's links are not known before the
  // overlaps are found and grow as needed).
  n.capacity_J_K.reserve(static_cast<std::size_t>(nodes));
  n.ambient_W_K.reserve(static_cast<std::size_t>(nodes));
  if (o.model == thermal_model_kind::grid) n.links.reserve(static_cast<std::size_t>(4 * nodes));
  std::vector<std::vector<detail::tile>> tiles(s.layers.size());
  tn.blocks.resize(s.layers.size());
  for (std::size_t l = 0; l < s.layers.size(); ++l) {
    const auto& L = s.layers[l];
    const int first = n.size();
    tn.layer_first_node.push_back(first);
    tiles[l] = detail::layer_tiles(L, o, box, tn.blocks[l], first);
    if (o.model == thermal_model_kind::grid && o.grid_map != grid_map_mode::area) {
      tn.probes.resize(s.layers.size());
      for (const auto& b : L.plan.blocks)
        tn.probes[l].push_back(detail::hotspot_probe(b, box, o.grid_rows, o.grid_cols, o.grid_map, first));
      tn.map = o.grid_map;
    }
    for (const auto& t : tiles[l]) n.add_node(t.c * L.thickness_m * t.area(), 0.0);
    if (L.lateral) detail::connect_lateral(n, tiles[l], first, L.thickness_m, o);
    if (l > 0)
      detail::connect_vertical(n, tiles[l - 1], tn.layer_first_node[l - 1], s.layers[l - 1].thickness_m, tiles[l],
                               first, L.thickness_m, o);
  }
  const auto& last = tiles.back();
  const int first_last = tn.layer_first_node.back();
  const double t_last = s.layers.back().thickness_m;
  tn.package_first_node = n.size();
  if (s.package.cooling == cooling_kind::cold_plate) {
    for (std::size_t i = 0; i < last.size(); ++i) {
      const double A = last[i].area();
      n.ambient_W_K[static_cast<std::size_t>(first_last) + i] =
          1.0 / ((1 - o.node_depth) * t_last / (last[i].k * A) + 1.0 / (s.package.cold_plate_h_W_m2K * A));
    }
  } else {
    const int first_sp = n.size();
    detail::add_package(n, last, first_last, t_last, box, s.package, o.node_depth);
    const int first_hs = first_sp + static_cast<int>(last.size());
    // Lateral spreading in the spreader and sink under the die (same rectangles as the last layer).
    auto sp = last;
    for (auto& t : sp) t.k = s.package.spreader_conductivity_W_mK;
    detail::connect_lateral(n, sp, first_sp, s.package.spreader_thickness_m, o);
    auto hs = last;
    for (auto& t : hs) t.k = s.package.sink_conductivity_W_mK;
    detail::connect_lateral(n, hs, first_hs, s.package.sink_thickness_m, o);
  }
  return tn;
}

/// Power of every block: [layer][block] in watts (layers that do not dissipate hold zeros).
using block_power = std::vector<std::vector<double>>;

/// Node powers from block powers (each block's power spread over its covers).
template <class = void>
std::vector<double> node_power(const thermal_network& tn, const block_power& p) {
  strata::detail::require(p.size() == tn.blocks.size(), detail::thermal_model_id, "power", p.size(),
                          "one list per layer");
  std::vector<double> out(static_cast<std::size_t>(tn.net.size()), 0.0);
  for (std::size_t l = 0; l < p.size(); ++l) {
    strata::detail::require(p[l].size() == tn.blocks[l].size(), detail::thermal_model_id, "power", p[l].size(),
                            "one value per block of the layer");
    for (std::size_t b = 0; b < p[l].size(); ++b) {
      strata::detail::require(std::isfinite(p[l][b]) && p[l][b] >= 0.0 && p[l][b] <= 1e6, detail::thermal_model_id,
                              "power", p[l][b], "a finite power in [0, 1e6] W");
      for (const auto& c : tn.blocks[l][b]) out[static_cast<std::size_t>(c.node)] += p[l][b] * c.share;
    }
  }
  return out;
}

/// Block temperatures (K), [layer][block]: each block's cover-weighted mean node temperature.
template <class = void>
block_power block_temperatures(const thermal_network& tn, const std::vector<double>& rise_K) {
  block_power t(tn.blocks.size());
  for (std::size_t l = 0; l < tn.blocks.size(); ++l) {
    t[l].resize(tn.blocks[l].size());
    const bool probed = tn.map != grid_map_mode::area && l < tn.probes.size();
    for (std::size_t b = 0; b < tn.blocks[l].size(); ++b) {
      const auto& cells = probed ? tn.probes[l][b] : tn.blocks[l][b];
      if (probed && (tn.map == grid_map_mode::min || tn.map == grid_map_mode::max)) {
        double m = rise_K[static_cast<std::size_t>(cells.front().node)];
        for (const auto& c : cells) {
          const double v = rise_K[static_cast<std::size_t>(c.node)];
          m = tn.map == grid_map_mode::min ? std::min(m, v) : std::max(m, v);
        }
        t[l][b] = tn.ambient_K + m;
        continue;
      }
      double s = 0.0, w = 0.0;
      for (const auto& c : cells) {
        s += c.share * rise_K[static_cast<std::size_t>(c.node)];
        w += c.share;
      }
      t[l][b] = tn.ambient_K + (w > 0.0 ? s / w : 0.0);
    }
  }
  return t;
}

/// Steady state of a stack: node rises (K above ambient) and block temperatures (K).
struct steady_result {
  std::vector<double> node_rise_K;
  block_power block_K;          ///< [layer][block]
  double max_node_K = 0.0;      ///< hottest node (grid: hottest cell)
};

/// Steady state under block powers `p` (W); `method` chooses the solve (`steady_method`:
/// conjugate gradients from 2 048 nodes up by default, within 1e-9 of the factorisation).
template <class = void>
steady_result steady_state(const thermal_network& tn, const block_power& p,
                           steady_method method = steady_method::automatic) {
  const steady_solver<> solver(tn.net, method);
  steady_result r;
  r.node_rise_K = solver.rise(node_power(tn, p));
  r.block_K = block_temperatures(tn, r.node_rise_K);
  double m = r.node_rise_K.front();
  for (double v : r.node_rise_K) m = std::max(m, v);
  r.max_node_K = tn.ambient_K + m;
  return r;
}

/// A transient run: block temperatures (K) at the end of every interval, and the energy books.
struct transient_result {
  std::vector<block_power> block_K;  ///< [interval][layer][block]
  std::vector<double> node_rise_K;   ///< at the end of the run
  transient_energy energy;
};

/// Runs the power trace `trace` ([interval][layer][block], W), each interval `interval_s` long
/// and cut into `steps_per_interval` backward-Euler steps, from the node rises `initial_rise_K`
/// (empty: the whole stack at ambient).
template <class = void>
transient_result transient(const thermal_network& tn, const std::vector<block_power>& trace, double interval_s,
                           int steps_per_interval = 4, std::vector<double> initial_rise_K = {}) {
  strata::detail::require(steps_per_interval >= 1 && steps_per_interval <= 10000, detail::thermal_model_id,
                          "steps_per_interval", steps_per_interval, "in [1, 10000]");
  strata::detail::require_positive(interval_s, detail::thermal_model_id, "sampling_intvl", "s");
  const transient_solver<> solver(tn.net, interval_s / steps_per_interval);
  transient_result r;
  if (initial_rise_K.empty()) initial_rise_K.assign(static_cast<std::size_t>(tn.net.size()), 0.0);
  strata::detail::require(initial_rise_K.size() == static_cast<std::size_t>(tn.net.size()), detail::thermal_model_id,
                          "initial", initial_rise_K.size(), "one value per node");
  r.node_rise_K = std::move(initial_rise_K);
  r.block_K.reserve(trace.size());
  for (const auto& row : trace) {
    const auto p = node_power(tn, row);
    for (int k = 0; k < steps_per_interval; ++k) solver.step(r.node_rise_K, p, r.energy);
    r.block_K.push_back(block_temperatures(tn, r.node_rise_K));
  }
  return r;
}

}  // namespace thermal
}  // namespace v0
}  // namespace strata
