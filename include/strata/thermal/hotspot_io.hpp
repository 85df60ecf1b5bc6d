// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// HotSpot's input files, read under the library's opening rule (`core/files.hpp`: a regular
/// file of at most `limits().thermal_file_bytes`), with every count bounded by `limits()`:
///
/// - **floorplan** `.flp`: one block a line, `name width height left-x bottom-y [specific-heat
///   resistivity]` (metres; J/(m³·K); m·K/W), `#` comments and blank lines ignored;
/// - **power trace** `.ptrace`: a line of block names, then one line of watts per interval;
/// - **configuration** `.config`: `-name value` lines (HotSpot's command-line options); the
///   package, the die, the interface, the ambient, the sampling interval, the grid size and the
///   grid-to-block map (`grid_map_mode`) are read, every other option is listed in `hotspot_config::ignored`;
/// - **layer file** `.lcf`: seven lines per layer, top (farthest from the sink) first: layer
///   number, lateral heat flow Y/N, power dissipation Y/N, specific heat J/(m³·K), resistivity
///   m·K/W, thickness m, floorplan file (relative to the `.lcf`'s directory).
///
/// Names are written as HotSpot writes them: a 2D run (no `.lcf`) names the die's blocks as in
/// the floorplan; a layered run names every layer's blocks `layer_<N>_<block>`, so output can be
/// compared with HotSpot's line by line. Every error is a `config_error` naming the file, the
/// line and the field.

#include <cmath>        // std::isfinite
#include <cstdint>      // std::int64_t
#include <cstdio>       // std::snprintf (write_grid_steady)
#include <cstdlib>      // std::strtod
#include <filesystem>   // the .lcf's directory
#include <map>          // name lookup
#include <optional>     // std::optional
#include <ostream>      // std::ostream (write_grid_steady)
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::move, std::make_pair
#include <vector>       // std::vector

#include "strata/core/error.hpp"
#include "strata/core/files.hpp"
#include "strata/core/limits.hpp"
#include "strata/thermal/model.hpp"

namespace strata {
inline namespace v0 {
namespace thermal {

/// A power trace: block names and one row of watts per interval.
struct power_trace {
  std::vector<std::string> names;
  std::vector<std::vector<double>> rows;
  /// Mean power of every column over the rows (W).
  template <class = void>
  [[nodiscard]] std::vector<double> mean() const {
    std::vector<double> m(names.size(), 0.0);
    for (const auto& r : rows)
      for (std::size_t i = 0; i < r.size(); ++i) m[i] += r[i];
    for (auto& v : m) v /= static_cast<double>(rows.size());
    return m;
  }
};

/// What a `.config` sets (HotSpot's option names in the comments).
struct hotspot_config {
  package_params package;
  double chip_thickness_m = 150e-6;        ///< -t_chip
  double chip_conductivity_W_mK = 100.0;   ///< -k_chip
  double chip_heat_capacity_J_m3K = 1.75e6;  ///< -p_chip
  double interface_thickness_m = 20e-6;    ///< -t_interface
  double interface_conductivity_W_mK = 4.0;  ///< -k_interface
  double interface_heat_capacity_J_m3K = 4.0e6;  ///< -p_interface
  double init_temp_K = 318.15;             ///< -init_temp
  double sampling_interval_s = 3.333e-6;   ///< -sampling_intvl [HotSpot 6 default]
  int grid_rows = 64;                      ///< -grid_rows
  int grid_cols = 64;                      ///< -grid_cols
  std::string model_type = "block";        ///< -model_type
  /// -grid_map_mode (avg|min|max|center); HotSpot 6's example configuration says avg.
  grid_map_mode grid_map = grid_map_mode::avg;
  std::vector<std::string> ignored;        ///< options read but not modelled
};

/// One `.lcf` record.
struct lcf_layer {
  int number = 0;
  bool lateral = true;
  bool power = true;
  double heat_capacity_J_m3K = 0.0;
  double resistivity_mK_W = 0.0;
  double thickness_m = 0.0;
  std::string floorplan_file;
};

namespace detail {

template <class = void>
[[noreturn]] void hotspot_fail(const std::string& file, std::size_t line, const std::string& field,
                                      const std::string& what) {
  throw config_error(field, "[strata.thermal.hotspot] " + file + (line ? ":" + std::to_string(line) : "") + ": " + what);
}

/// Splits `text` into non-comment, non-blank lines of whitespace-separated tokens, with their
/// line numbers. A `#` starts a comment anywhere on a line.
template <class = void>
std::vector<std::pair<std::size_t, std::vector<std::string>>> hotspot_lines(std::string_view text) {
  std::vector<std::pair<std::size_t, std::vector<std::string>>> out;
  std::size_t line = 0, pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    ++line;
    std::string_view l = text.substr(pos, end - pos);
    if (const auto h = l.find('#'); h != std::string_view::npos) l = l.substr(0, h);
    std::vector<std::string> toks;
    std::size_t i = 0;
    while (i < l.size()) {
      while (i < l.size() && (l[i] == ' ' || l[i] == '\t' || l[i] == '\r' || l[i] == '\v' || l[i] == '\f')) ++i;
      std::size_t j = i;
      while (j < l.size() && !(l[j] == ' ' || l[j] == '\t' || l[j] == '\r' || l[j] == '\v' || l[j] == '\f')) ++j;
      if (j > i) toks.emplace_back(l.substr(i, j - i));
      i = j;
    }
    if (!toks.empty()) out.emplace_back(line, std::move(toks));
    if (end == text.size()) break;
    pos = end + 1;
  }
  return out;
}

/// A finite number filling the whole token.
template <class = void>
double hotspot_number(const std::string& tok, const std::string& file, std::size_t line, const std::string& field) {
  char* end = nullptr;
  const double v = std::strtod(tok.c_str(), &end);
  if (tok.empty() || end != tok.c_str() + tok.size() || !std::isfinite(v))
    hotspot_fail(file, line, field, field + " must be a finite number, got '" + strata::detail::message_path(tok, 40) + "'");
  return v;
}

}  // namespace detail

/// Parses a `.flp` (file comment); `file` names it in errors. The floorplan is validated.
template <class = void>
floorplan parse_flp(std::string_view text, const std::string& file = "floorplan") {
  floorplan f;
  for (const auto& hl : detail::hotspot_lines(text)) {
    const std::size_t line = hl.first;  // named, not a structured binding: lambdas capture it
    const auto& t = hl.second;
    if (t.size() != 5 && t.size() != 7)
      detail::hotspot_fail(file, line, "block", "a block line has 5 or 7 fields (name width height left-x bottom-y "
                                                "[specific-heat resistivity]), got " + std::to_string(t.size()));
    if (f.blocks.size() >= static_cast<std::size_t>(limits().thermal_blocks))
      detail::hotspot_fail(file, line, "blocks", "more than " + std::to_string(limits().thermal_blocks) +
                                                     " blocks (strata::limits().thermal_blocks)");
    flp_block b;
    b.name = t[0];
    b.width_m = detail::hotspot_number(t[1], file, line, "width");
    b.height_m = detail::hotspot_number(t[2], file, line, "height");
    b.left_m = detail::hotspot_number(t[3], file, line, "left-x");
    b.bottom_m = detail::hotspot_number(t[4], file, line, "bottom-y");
    if (t.size() == 7) {
      b.heat_capacity_J_m3K = detail::hotspot_number(t[5], file, line, "specific-heat");
      b.resistivity_mK_W = detail::hotspot_number(t[6], file, line, "resistivity");
    }
    f.blocks.push_back(std::move(b));
  }
  validate_floorplan(f, file);
  return f;
}

/// Parses a `.ptrace`: names, then rows of as many finite watts in [0, 1e6] W.
template <class = void>
power_trace parse_ptrace(std::string_view text, const std::string& file = "power trace") {
  power_trace p;
  std::int64_t cells = 0;
  for (const auto& hl : detail::hotspot_lines(text)) {
    const std::size_t line = hl.first;  // named, not a structured binding: lambdas capture it
    const auto& t = hl.second;
    if (p.names.empty()) {
      if (t.size() > static_cast<std::size_t>(limits().thermal_blocks) * static_cast<std::size_t>(limits().thermal_layers))
        detail::hotspot_fail(file, line, "names", "too many columns");
      std::map<std::string, int> seen;
      for (const auto& n : t)
        if (!seen.emplace(n, 0).second) detail::hotspot_fail(file, line, n, "column '" + strata::detail::message_path(n, 60) + "' appears twice");
      p.names = t;
      continue;
    }
    if (t.size() != p.names.size())
      detail::hotspot_fail(file, line, "row", "a row has " + std::to_string(t.size()) + " values for " +
                                                  std::to_string(p.names.size()) + " names");
    cells += static_cast<std::int64_t>(t.size());
    if (cells > limits().thermal_trace_cells)
      detail::hotspot_fail(file, line, "rows", "more than " + std::to_string(limits().thermal_trace_cells) +
                                                   " values (strata::limits().thermal_trace_cells)");
    std::vector<double> row;
    row.reserve(t.size());
    for (std::size_t i = 0; i < t.size(); ++i) {
      const double v = detail::hotspot_number(t[i], file, line, p.names[i]);
      if (v < 0.0 || v > 1e6) detail::hotspot_fail(file, line, p.names[i], p.names[i] + " must be in [0, 1e6] W");
      row.push_back(v);
    }
    p.rows.push_back(std::move(row));
  }
  if (p.names.empty()) detail::hotspot_fail(file, 0, "names", "has no line of block names");
  if (p.rows.empty()) detail::hotspot_fail(file, 0, "rows", "has no row of power values");
  return p;
}

/// Parses a `.config` (file comment).
template <class = void>
hotspot_config parse_hotspot_config(std::string_view text, const std::string& file = "config") {
  hotspot_config c;
  for (const auto& hl : detail::hotspot_lines(text)) {
    const std::size_t line = hl.first;  // named, not a structured binding: lambdas capture it
    const auto& t = hl.second;
    if (t.size() != 2 || t[0].size() < 2 || t[0][0] != '-')
      detail::hotspot_fail(file, line, "option", "an option line is '-name value'");
    const std::string key = t[0].substr(1);
    const std::string& v = t[1];
    const auto num = [&](double lo, double hi) {
      const double x = detail::hotspot_number(v, file, line, key);
      if (x < lo || x > hi)
        detail::hotspot_fail(file, line, key, key + " must be in [" + strata::detail::to_text(lo) + ", " +
                                                   strata::detail::to_text(hi) + "], got " + strata::detail::to_text(x));
      return x;
    };
    auto& p = c.package;
    if (key == "t_chip") c.chip_thickness_m = num(1e-9, 1.0);
    else if (key == "k_chip") c.chip_conductivity_W_mK = num(1e-6, 1e5);
    else if (key == "p_chip") c.chip_heat_capacity_J_m3K = num(1.0, 1e9);
    else if (key == "t_interface") c.interface_thickness_m = num(1e-9, 1.0);
    else if (key == "k_interface") c.interface_conductivity_W_mK = num(1e-6, 1e5);
    else if (key == "p_interface") c.interface_heat_capacity_J_m3K = num(1.0, 1e9);
    else if (key == "s_spreader") p.spreader_side_m = num(1e-6, 10.0);
    else if (key == "t_spreader") p.spreader_thickness_m = num(1e-9, 1.0);
    else if (key == "k_spreader") p.spreader_conductivity_W_mK = num(1e-6, 1e5);
    else if (key == "p_spreader") p.spreader_heat_capacity_J_m3K = num(1.0, 1e9);
    else if (key == "s_sink") p.sink_side_m = num(1e-6, 10.0);
    else if (key == "t_sink") p.sink_thickness_m = num(1e-9, 1.0);
    else if (key == "k_sink") p.sink_conductivity_W_mK = num(1e-6, 1e5);
    else if (key == "p_sink") p.sink_heat_capacity_J_m3K = num(1.0, 1e9);
    else if (key == "r_convec") p.convection_resistance_K_W = num(1e-9, 1e6);
    else if (key == "c_convec") p.convection_capacity_J_K = num(0.0, 1e9);
    else if (key == "ambient") p.ambient_K = num(1.0, 1e4);
    else if (key == "init_temp") c.init_temp_K = num(1.0, 1e4);
    else if (key == "sampling_intvl") c.sampling_interval_s = num(1e-12, 1e6);
    else if (key == "grid_rows") c.grid_rows = static_cast<int>(num(1, 4096));
    else if (key == "grid_cols") c.grid_cols = static_cast<int>(num(1, 4096));
    else if (key == "model_type") {
      if (v != "block" && v != "grid") detail::hotspot_fail(file, line, key, "model_type must be block or grid");
      c.model_type = v;
    } else if (key == "grid_map_mode") {
      if (v == "avg") c.grid_map = grid_map_mode::avg;
      else if (v == "min") c.grid_map = grid_map_mode::min;
      else if (v == "max") c.grid_map = grid_map_mode::max;
      else if (v == "center") c.grid_map = grid_map_mode::center;
      else detail::hotspot_fail(file, line, key, "grid_map_mode must be avg, min, max or center");
    } else {
      if (c.ignored.size() < 1024) c.ignored.push_back(key);
    }
  }
  return c;
}

/// Parses a `.lcf` (file comment).
template <class = void>
std::vector<lcf_layer> parse_lcf(std::string_view text, const std::string& file = "layer file") {
  const auto lines = detail::hotspot_lines(text);
  if (lines.empty() || lines.size() % 7 != 0)
    detail::hotspot_fail(file, 0, "layers", "holds seven lines per layer, got " + std::to_string(lines.size()) + " lines");
  if (lines.size() / 7 > static_cast<std::size_t>(limits().thermal_layers))
    detail::hotspot_fail(file, 0, "layers", "more than " + std::to_string(limits().thermal_layers) +
                                                " layers (strata::limits().thermal_layers)");
  std::vector<lcf_layer> out;
  for (std::size_t i = 0; i < lines.size(); i += 7) {
    for (std::size_t k = 0; k < 7; ++k)
      if (lines[i + k].second.size() != 1)
        detail::hotspot_fail(file, lines[i + k].first, "layer", "a layer line holds one value");
    const auto val = [&](std::size_t k) -> const std::string& { return lines[i + k].second.front(); };
    const auto yn = [&](std::size_t k, const char* field) {
      if (val(k) == "Y" || val(k) == "y") return true;
      if (val(k) == "N" || val(k) == "n") return false;
      detail::hotspot_fail(file, lines[i + k].first, field, std::string(field) + " must be Y or N");
    };
    lcf_layer L;
    const double num = detail::hotspot_number(val(0), file, lines[i].first, "layer number");
    if (num != static_cast<double>(out.size()))
      detail::hotspot_fail(file, lines[i].first, "layer number",
                           "layers are numbered 0, 1, ... in order; expected " + std::to_string(out.size()));
    L.number = static_cast<int>(out.size());
    L.lateral = yn(1, "lateral heat flow");
    L.power = yn(2, "power dissipation");
    const auto in = [&](std::size_t k, const char* field, double lo, double hi) {
      const double x = detail::hotspot_number(val(k), file, lines[i + k].first, field);
      if (x < lo || x > hi)
        detail::hotspot_fail(file, lines[i + k].first, field, std::string(field) + " must be in [" +
                                                                   strata::detail::to_text(lo) + ", " +
                                                                   strata::detail::to_text(hi) + "]");
      return x;
    };
    L.heat_capacity_J_m3K = in(3, "specific heat", 1.0, 1e9);
    L.resistivity_mK_W = in(4, "resistivity", 1e-6, 1e6);
    L.thickness_m = in(5, "thickness", 1e-9, 1.0);
    L.floorplan_file = val(6);
    out.push_back(std::move(L));
  }
  return out;
}

/// Reads a `.flp` under the opening rule.
template <class = void>
floorplan read_flp(const std::string& path) {
  return parse_flp(read_input_file(path, "floorplan", limits().thermal_file_bytes, "thermal_file_bytes"),
                   strata::detail::message_path(path));
}
/// Reads a `.ptrace` under the opening rule.
template <class = void>
power_trace read_ptrace(const std::string& path) {
  return parse_ptrace(read_input_file(path, "power trace", limits().thermal_file_bytes, "thermal_file_bytes"),
                      strata::detail::message_path(path));
}
/// Reads a `.config` under the opening rule.
template <class = void>
hotspot_config read_hotspot_config(const std::string& path) {
  return parse_hotspot_config(read_input_file(path, "config", limits().thermal_file_bytes, "thermal_file_bytes"),
                              strata::detail::message_path(path));
}

/// A stack with its output names, as HotSpot builds it from its inputs.
struct hotspot_model {
  thermal_stack stack;
  std::vector<std::vector<std::string>> names;  ///< [layer][block], HotSpot's output names
  bool layered = false;                         ///< from an `.lcf`
};

/// HotSpot's 2D stack from a `.config` and one floorplan: the die and the interface material.
template <class = void>
hotspot_model hotspot_2d_model(const hotspot_config& c, const floorplan& f) {
  hotspot_model m;
  m.stack.package = c.package;
  m.stack.layers.push_back(thermal_layer{f, c.chip_thickness_m, c.chip_conductivity_W_mK, c.chip_heat_capacity_J_m3K, true, true});
  m.stack.layers.push_back(thermal_layer{f, c.interface_thickness_m, c.interface_conductivity_W_mK,
                                         c.interface_heat_capacity_J_m3K, false, true});
  m.names.resize(2);
  for (const auto& b : f.blocks) m.names[0].push_back(b.name);
  for (const auto& b : f.blocks) m.names[1].push_back("iface_" + b.name);
  return m;
}

/// HotSpot's layered stack: the `.lcf`'s layers (floorplans read relative to `lcf_path`'s
/// directory) over the `.config`'s package; names `layer_<N>_<block>`.
template <class = void>
hotspot_model read_hotspot_layers(const hotspot_config& c, const std::string& lcf_path) {
  const auto layers = parse_lcf(read_input_file(lcf_path, "layer file", limits().thermal_file_bytes, "thermal_file_bytes"),
                                strata::detail::message_path(lcf_path));
  const std::filesystem::path dir = std::filesystem::path(lcf_path).parent_path();
  hotspot_model m;
  m.layered = true;
  m.stack.package = c.package;
  for (const auto& L : layers) {
    const std::filesystem::path fp = std::filesystem::path(L.floorplan_file).is_absolute() ? std::filesystem::path(L.floorplan_file)
                                                                                           : dir / L.floorplan_file;
    thermal_layer t{read_flp(fp.string()), L.thickness_m, 1.0 / L.resistivity_mK_W, L.heat_capacity_J_m3K, L.power, L.lateral};
    std::vector<std::string> names;
    for (const auto& b : t.plan.blocks) names.push_back("layer_" + std::to_string(L.number) + "_" + b.name);
    m.names.push_back(std::move(names));
    m.stack.layers.push_back(std::move(t));
  }
  return m;
}

/// Block powers from trace columns `values` named `names`: a column names a block as HotSpot's
/// output does (`layer_<N>_<block>` in a layered model) or by its plain name when only one
/// power-dissipating layer has a block of that name. Every block of a power layer needs a
/// column; a column that names no such block is an error.
template <class = void>
block_power map_power(const hotspot_model& m, const std::vector<std::string>& names, const std::vector<double>& values) {
  block_power p(m.stack.layers.size());
  std::map<std::string, std::pair<std::size_t, std::size_t>> by_name;
  std::map<std::string, int> plain_count;
  for (std::size_t l = 0; l < m.stack.layers.size(); ++l) {
    p[l].assign(m.stack.layers[l].plan.blocks.size(), 0.0);
    if (!m.stack.layers[l].power) continue;
    for (std::size_t b = 0; b < m.stack.layers[l].plan.blocks.size(); ++b) {
      by_name[m.names[l][b]] = {l, b};
      ++plain_count[m.stack.layers[l].plan.blocks[b].name];
    }
  }
  if (m.layered)
    for (std::size_t l = 0; l < m.stack.layers.size(); ++l) {
      if (!m.stack.layers[l].power) continue;
      for (std::size_t b = 0; b < m.stack.layers[l].plan.blocks.size(); ++b) {
        const auto& plain = m.stack.layers[l].plan.blocks[b].name;
        if (plain_count[plain] == 1) by_name.emplace(plain, std::make_pair(l, b));
      }
    }
  std::vector<std::vector<char>> seen(p.size());
  for (std::size_t l = 0; l < p.size(); ++l) seen[l].assign(p[l].size(), 0);
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto it = by_name.find(names[i]);
    if (it == by_name.end())
      throw config_error(names[i], "[strata.thermal.hotspot] power trace column '" + strata::detail::message_path(names[i], 60) +
                                       "' names no block of a power-dissipating layer");
    auto& s = seen[it->second.first][it->second.second];
    if (s) throw config_error(names[i], "[strata.thermal.hotspot] two power trace columns name block '" +
                                             strata::detail::message_path(names[i], 60) + "'");
    s = 1;
    p[it->second.first][it->second.second] = values[i];
  }
  for (std::size_t l = 0; l < p.size(); ++l) {
    if (!m.stack.layers[l].power) continue;
    for (std::size_t b = 0; b < p[l].size(); ++b)
      if (!seen[l][b])
        throw config_error(m.names[l][b], "[strata.thermal.hotspot] the power trace has no column for block '" +
                                              m.names[l][b] + "'");
  }
  return p;
}

/// HotSpot's `-grid_steady_file` (temperature_grid.c `dump_steady_temp_grid`, uvahotspot/HotSpot
/// commit 270ee6e7): for every layer n of the grid model, the stack's layers first (0: the one
/// farthest from the sink, the die in 2D) and then, with HotSpot's package, the spreader and the
/// sink under the die, a line `Layer n:` followed by one line `index<TAB>kelvin` per cell (kelvin
/// as `%.2f`), index = i·cols + j with row i counted from the die's top edge (HotSpot's cuboid
/// order) and column j from its left edge. `rise_K` is the network's node rises (e.g.
/// `steady_result::node_rise_K`), `o` the options the network was built with (a grid). The
/// package's periphery nodes (HotSpot's extra nodes) are not cells and are not written, as in
/// HotSpot. Throws `config_error` naming `model` for a block-model network or options that do not
/// match it, `rise_K` for a vector of the wrong size.
template <class = void>
void write_grid_steady(std::ostream& os, const thermal_network& tn, const thermal_options& o,
                       const std::vector<double>& rise_K) {
  constexpr const char* id = "strata.thermal.hotspot";
  strata::detail::require(o.model == thermal_model_kind::grid, id, "model", 0,
                          "the grid model (HotSpot writes -grid_steady_file only with -model_type grid)");
  const std::int64_t cells = std::int64_t{o.grid_rows} * o.grid_cols;
  const std::size_t L = tn.layer_first_node.size();
  strata::detail::require(L > 0 && tn.package_first_node == tn.layer_first_node.back() + cells &&
                              tn.layer_first_node.front() == 0,
                          id, "model", o.grid_rows, "the options the grid network was built with");
  strata::detail::require(rise_K.size() == static_cast<std::size_t>(tn.net.size()), id, "rise_K", rise_K.size(),
                          "one rise per node of the network");
  // Layers with cells: the stack's, then the spreader and the sink when the package has them.
  std::vector<int> first(tn.layer_first_node.begin(), tn.layer_first_node.end());
  if (static_cast<std::int64_t>(tn.net.size()) >= tn.package_first_node + 2 * cells) {
    first.push_back(tn.package_first_node);
    first.push_back(static_cast<int>(tn.package_first_node + cells));
  }
  char buf[64];
  for (std::size_t n = 0; n < first.size(); ++n) {
    os << "Layer " << n << ":\n";
    for (int i = 0; i < o.grid_rows; ++i)
      for (int j = 0; j < o.grid_cols; ++j) {
        // Our row r counts from the bottom edge: HotSpot's row i is r = rows - 1 - i.
        const auto node = static_cast<std::size_t>(first[n]) +
                          static_cast<std::size_t>(o.grid_rows - 1 - i) * static_cast<std::size_t>(o.grid_cols) +
                          static_cast<std::size_t>(j);
        std::snprintf(buf, sizeof buf, "%lld\t%.2f\n", static_cast<long long>(i) * o.grid_cols + j,
                      tn.ambient_K + rise_K[node]);
        os << buf;
      }
  }
}

}  // namespace thermal
}  // namespace v0
}  // namespace strata
