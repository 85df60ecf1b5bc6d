// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// A floorplan: named rectangular blocks of one die layer (HotSpot's `.flp`: width, height,
/// left-x, bottom-y in metres; optionally a block's own volumetric heat capacity in J/(m³·K)
/// and thermal resistivity in m·K/W, which make a layer of mixed materials, e.g. a bond layer
/// with TSVs). The thermal models (`thermal/model.hpp`) need the blocks not to overlap;
/// `validate_floorplan` checks that, and the sizes and count against `strata::limits()`.

#include <algorithm>  // std::min, std::max
#include <cmath>      // std::isfinite
#include <optional>   // std::optional
#include <string>     // std::string
#include <unordered_set>  // unique names
#include <vector>     // std::vector

#include "strata/core/error.hpp"
#include "strata/core/limits.hpp"

namespace strata {
inline namespace v0 {
namespace thermal {

/// One block (SI units).
struct flp_block {
  std::string name;
  double width_m = 0.0;
  double height_m = 0.0;
  double left_m = 0.0;
  double bottom_m = 0.0;
  std::optional<double> heat_capacity_J_m3K;    ///< the block's own, else the layer's
  std::optional<double> resistivity_mK_W;       ///< the block's own, else the layer's
  [[nodiscard]] double right_m() const { return left_m + width_m; }
  [[nodiscard]] double top_m() const { return bottom_m + height_m; }
  [[nodiscard]] double area_m2() const { return width_m * height_m; }
};

/// The blocks of one layer.
struct floorplan {
  std::vector<flp_block> blocks;
};

/// Bounding box of a floorplan (m).
struct flp_box {
  double left_m = 0.0, bottom_m = 0.0, right_m = 0.0, top_m = 0.0;
  [[nodiscard]] double width_m() const { return right_m - left_m; }
  [[nodiscard]] double height_m() const { return top_m - bottom_m; }
};

template <class = void>
flp_box bounding_box(const floorplan& f) {
  flp_box b{f.blocks.front().left_m, f.blocks.front().bottom_m, f.blocks.front().right_m(), f.blocks.front().top_m()};
  for (const auto& x : f.blocks) {
    b.left_m = std::min(b.left_m, x.left_m);
    b.bottom_m = std::min(b.bottom_m, x.bottom_m);
    b.right_m = std::max(b.right_m, x.right_m());
    b.top_m = std::max(b.top_m, x.top_m());
  }
  return b;
}

/// Area of the intersection of two axis-aligned rectangles (m²; 0 if disjoint).
template <class = void>
inline double overlap_area(double l1, double b1, double r1, double t1, double l2, double b2, double r2, double t2) {
  const double w = std::min(r1, r2) - std::max(l1, l2);
  const double h = std::min(t1, t2) - std::max(b1, b2);
  return (w > 0.0 && h > 0.0) ? w * h : 0.0;
}

/// Throws `config_error` naming `role` (e.g. "floorplan 'ev6.flp'") and the block unless the
/// floorplan has 1 to `limits().thermal_blocks` blocks with unique non-empty names, finite sizes
/// in [0.1 µm, 1 m], coordinates in [−1 m, 1 m], optional materials finite and positive, and no two
/// blocks overlapping by more than 1e-6 of the smaller one's area (HotSpot's floorplans are
/// written to 6 digits).
template <class = void>
void validate_floorplan(const floorplan& f, const std::string& role) {
  const auto fail = [&](const std::string& field, const std::string& what) {
    throw config_error(field, "[strata.thermal.floorplan] " + role + ": " + what);
  };
  if (f.blocks.empty()) fail("blocks", "has no blocks");
  if (f.blocks.size() > static_cast<std::size_t>(limits().thermal_blocks))
    fail("blocks", std::to_string(f.blocks.size()) + " blocks exceed the limit " +
                       std::to_string(limits().thermal_blocks) + " (strata::limits().thermal_blocks)");
  std::unordered_set<std::string> names;
  for (const auto& b : f.blocks) {
    if (b.name.empty()) fail("name", "a block has an empty name");
    if (!names.insert(b.name).second) fail(b.name, "block '" + b.name + "' appears twice");
    const auto in = [](double v, double lo, double hi) { return std::isfinite(v) && v >= lo && v <= hi; };
    if (!in(b.width_m, 1e-7, 1.0) || !in(b.height_m, 1e-7, 1.0))
      fail(b.name, "block '" + b.name + "' must have width and height in [0.1 um, 1 m], got " +
                       strata::detail::to_text(b.width_m) + " x " + strata::detail::to_text(b.height_m));
    if (!in(b.left_m, -1.0, 1.0) || !in(b.bottom_m, -1.0, 1.0))
      fail(b.name, "block '" + b.name + "' must lie within 1 m of the origin");
    if (b.heat_capacity_J_m3K && !in(*b.heat_capacity_J_m3K, 1.0, 1e9))
      fail(b.name, "block '" + b.name + "' specific heat must be in [1, 1e9] J/(m^3 K)");
    if (b.resistivity_mK_W && !in(*b.resistivity_mK_W, 1e-6, 1e6))
      fail(b.name, "block '" + b.name + "' resistivity must be in [1e-6, 1e6] m K/W");
  }
  // Overlaps: sort by left edge and sweep, so touching blocks (the usual case) cost little.
  std::vector<std::size_t> order(f.blocks.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return f.blocks[a].left_m < f.blocks[b].left_m; });
  for (std::size_t ii = 0; ii < order.size(); ++ii) {
    const auto& a = f.blocks[order[ii]];
    for (std::size_t jj = ii + 1; jj < order.size(); ++jj) {
      const auto& b = f.blocks[order[jj]];
      if (b.left_m >= a.right_m()) break;
      const double o = overlap_area(a.left_m, a.bottom_m, a.right_m(), a.top_m(), b.left_m, b.bottom_m, b.right_m(),
                                    b.top_m());
      if (o > 1e-6 * std::min(a.area_m2(), b.area_m2()))
        fail(b.name, "blocks '" + a.name + "' and '" + b.name + "' overlap");
    }
  }
}

}  // namespace thermal
}  // namespace v0
}  // namespace strata
