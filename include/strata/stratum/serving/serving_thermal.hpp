// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Temperature that acts on a serving run (issue 48, item 5): the Stratum chips' power over time
/// drives the transient model of their die stack (`thermal/stratum_stack.hpp`), and the stack's
/// temperature acts back on the run through DRAM refresh and throttling. An option of the Stratum
/// simulation (`simulate_stratum_thermal`; the scenario key `thermal`), off by default: without
/// it every result is that of `simulate_stratum`, and with it a run whose DRAM stays within its
/// limit gives the same result to the last bit (the coupling only changes a step once a window
/// ended above a threshold).
///
/// **The power trace.** Every step of the run reports its start, its time and the energy it spends
/// on the chips' logic and memory dies (`step_cost::logic_j`, `dram_j`: a decode step's energy
/// parts; a row swap's energy on the memory dies): in the paper's loop (`run_serving`) each step,
/// in the engine loop (`scheduler.loop: "engine"`, `stratum_engine.hpp`) each part of a mixed step
/// in sequence at its own start (classifier time, swap, prefill, decode); time outside decode steps (the
/// xPU's prefill, the classifier, idle gaps between requests) adds the chips' background, their
/// static power `nmp_params::static_power` on the logic die and their refresh power on the memory
/// die. The system's energy is shared evenly by its chips × stages (one stack stands for every
/// chip: the chips of a stage share a step's work). Energy is gathered into fixed windows of
/// Δ = `window_s`; a step that spans windows gives each its share by time.
///
/// **The transient.** The stack's RC network (the block model of `stratum_stack.hpp`'s layers by
/// default, or an n × n grid) starts at the steady state of the background power and is advanced
/// one window at a time under the window's mean logic power in Eq. 1's proportions over the logic
/// floorplan and its mean DRAM power spread over the cell stack by area: exactly, in the network's
/// modes (`thermal::window_integrator`: the window's power is constant, so each mode's response is
/// a closed form; only the modes a window does not relax are stepped) for networks of up to 1 024
/// nodes (the block model, grids up to 12 × 12), by backward Euler (`transient_solver`, two steps
/// per window) above. Its energy books (injected = stored + removed) are reported.
///
/// **What temperature does** (at the end of window w, the hottest DRAM cell at T_w):
/// - *Refresh* (JESD79-5 §4.13, `refresh_at_temperature`): above 85 °C tREFI halves, so in window
///   w + 1 the banks are available a(T_w) = 1 − tRFC/(tREFI/2) of the time instead of
///   a_n = 1 − tRFC/tREFI and the refresh power doubles. A decode step, bound by the banks' time on
///   Stratum, takes t·a_n/a(T_w) (the whole step stretched: an upper bound for a step with compute
///   time of its own), and the memory dies' refresh energy follows.
/// - *Throttling* (HCRMap §4.5's budget rule, `chiplet/window.hpp` `next_compute_scale`: a window
///   over its budget runs the next one at reduced throughput, the DVFS / clock-throttling response;
///   here the budget is the DRAM limit, the chips' thermal monitor's trip): when T_w exceeds
///   `limit_C`, every decode step starting in window w + 1 runs at `throttle_factor` of its
///   throughput, its time t/f, its dynamic energy unchanged and the chips' static and refresh
///   power charged over the longer time. The xPU's prefill and the classifier are not on the stack
///   and are not throttled; the scheduler's estimates of a step (`choose_next`) stay unthrottled.
///
/// Reported (`serving_thermal_result`): the peak temperatures of the hottest DRAM cell and of the
/// logic die, the time whose windows ended above the limit, the time in throttled and in hot-refresh
/// windows, the refresh overhead share (bank time lost to refresh, time-weighted over the run),
/// the decode time and energy added, the throughput lost (that time over the run's busy time:
/// the share of tokens/s a saturated system loses), and a bounded series of windows.

#include <algorithm>   // std::max, std::min, std::clamp
#include <cmath>       // std::abs
#include <cstdint>     // std::int64_t
#include <functional>  // std::function
#include <optional>    // std::optional (the solver, built in the constructor)
#include <string>      // std::string
#include <utility>     // std::move
#include <vector>      // std::vector

#include "strata/core/error.hpp"
#include "strata/device/dram_refresh.hpp"
#include "strata/serving/simulator.hpp"
#include "strata/stratum/serving/stratum_serving.hpp"
#include "strata/thermal/model.hpp"
#include "strata/thermal/rc_network.hpp"
#include "strata/thermal/stratum_stack.hpp"

namespace strata {
inline namespace v0 {

/// Bounds of the thermal coupling's work (`serving_thermal_limits`).
struct serving_thermal_input_limits {
  /// Windows one run may take (its makespan / Δ): more is a `config_error` naming
  /// `thermal.window_s`, raised before the windows are stepped. Each window costs one step of the
  /// window integrator (about 3 µs in the block model) or, above 1 024 nodes, two backward-Euler
  /// solves. [Design choice: 2^21, 10 485 s of serving at the 5 ms default]
  std::int64_t windows = std::int64_t{1} << 21;
};

/// The process-wide bounds of the coupling (a fuzz target lowers them).
template <class = void>
inline serving_thermal_input_limits& serving_thermal_limits() {
  static serving_thermal_input_limits l;
  return l;
}

/// The default Stratum stack (`thermal::stratum_stack_params`, every value cited there).
template <class = void>
inline const thermal::stratum_stack_params& serving_stack_defaults() {
  static const thermal::stratum_stack_params d{};
  return d;
}

/// The layers of the Stratum stack a serving scenario sets (the key `thermal.stack`): the
/// materials of `thermal::stratum_stack_params`, field by field, their defaults and sources there.
/// The stack's chip and refresh are the system's, its cooling, limit and discretisation the
/// coupling's own keys (`cold_plate_h_W_m2K`, `coolant_C`, `limit_C`, `grid`).
struct serving_stack_layers {
  thermal::stack_material<double> logic_substrate = serving_stack_defaults().logic_substrate;
  thermal::stack_material<double> logic_beol = serving_stack_defaults().logic_beol;
  thermal::stack_material<double> bond = serving_stack_defaults().bond;
  thermal::stack_material<double> memory_beol = serving_stack_defaults().memory_beol;
  thermal::mono3d_stack_materials<double> array = serving_stack_defaults().array;
  thermal::stack_material<double> memory_substrate = serving_stack_defaults().memory_substrate;
  thermal::stack_material<double> tim = serving_stack_defaults().tim;

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("logic_substrate", s.logic_substrate);
    v("logic_beol", s.logic_beol);
    v("bond", s.bond);
    v("memory_beol", s.memory_beol);
    v("array", s.array);
    v("memory_substrate", s.memory_substrate);
    v("tim", s.tim);
  }
  friend bool operator==(const serving_stack_layers&, const serving_stack_layers&) = default;
};

/// Checks the layers (the bounds of `thermal::validate(stratum_stack_params)` and of the cell
/// stack's conductivity); throws `config_error` naming `<path>.<layer>.<field>`.
template <class = void>
inline void validate(const serving_stack_layers& s, const std::string& path = "thermal.stack") {
  constexpr const char* id = "strata.serving.thermal";
  const auto material = [&](const thermal::stack_material<double>& m, const std::string& name) {
    const std::string at = path + "." + name + ".";
    detail::require_in(m.thickness_m, 1e-9, 1e-3, id, at + "thickness_m");
    detail::require_in(m.conductivity_W_mK, 1e-3, 1e4, id, at + "conductivity_W_mK");
    detail::require_in(m.heat_capacity_J_m3K, 1.0, 1e9, id, at + "heat_capacity_J_m3K");
  };
  material(s.logic_substrate, "logic_substrate");
  material(s.logic_beol, "logic_beol");
  material(s.bond, "bond");
  material(s.memory_beol, "memory_beol");
  material(s.memory_substrate, "memory_substrate");
  material(s.tim, "tim");
  const std::string at = path + ".array.";
  detail::require_in(s.array.tier_pitch_m, 1e-9, 1e-5, id, at + "tier_pitch_m");
  detail::require_in(s.array.oxide_fraction, 0.0, 1.0, id, at + "oxide_fraction");
  detail::require_in(s.array.oxide_conductivity_W_mK, 1e-3, 1e4, id, at + "oxide_conductivity_W_mK");
  detail::require_in(s.array.cell_conductivity_W_mK, 1e-3, 1e4, id, at + "cell_conductivity_W_mK");
  detail::require_in(s.array.bitline_temperature_K, 1.0, 2000.0, id, at + "bitline_temperature_K");
  detail::require_in(s.array.heat_capacity_J_m3K, 1.0, 1e9, id, at + "heat_capacity_J_m3K");
}

/// The thermal coupling of a Stratum serving run (file comment); the scenario key `thermal`.
struct serving_thermal_params {
  /// Couple the run to the stack's temperature. [false: every result as without the model]
  bool enabled = false;
  /// Window Δ over which power is averaged and after which temperature acts. [5 ms: about half the
  /// stack's slowest time constant, ΣC·R ≈ 0.065 J/K × 0.13 K/W ≈ 8 ms for the default stack
  /// (docs/thermal.md); HCRMap's decision window is the same kind of control period (§4.5)]
  double window_s = 5e-3;
  /// Throughput of a throttled window, as a share of the nominal. [0.5: the clock duty cycle of
  /// Intel's Thermal Monitor 1 (Intel 64 and IA-32 Architectures SDM, Vol. 3B, §14.7.2: the
  /// processor's clocks are stopped and started at a factory-set duty cycle; 50 % on the Pentium 4
  /// and Pentium M); a design choice, the scenario can set any share in (0, 1]]
  double throttle_factor = 0.5;
  /// The hottest DRAM cell's limit (°C): a window ending above it throttles the next. [JESD79-5:
  /// 85 °C, the end of DDR5's normal temperature range]
  double limit_C = 85.0;
  /// Cold plate heat-transfer coefficient (W/(m²·K)). [`stratum_stack_params`: Tuckerman & Pease,
  /// IEEE EDL 2(5), 1981, 1.11·10⁵]
  double cold_plate_h_W_m2K = 1.11e5;
  /// Coolant inlet temperature (°C). [`stratum_stack_params`: HotSpot 6's ambient, 45 °C]
  double coolant_C = 45.0;
  /// Discretisation: 0 for the block model (one node per floorplan block and layer, 462 nodes),
  /// n for an n × n grid per layer. [0: a run takes one transient step per window]
  int grid = 0;
  /// Points of the reported series at most (windows are merged in pairs to stay within it). [512]
  int max_series = 512;
  /// The stack's layers (`serving_stack_layers`). [`thermal::stratum_stack_params`' defaults]
  serving_stack_layers stack{};

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("enabled", s.enabled);
    v("window_s", s.window_s);
    v("throttle_factor", s.throttle_factor);
    v("limit_C", s.limit_C);
    v("cold_plate_h_W_m2K", s.cold_plate_h_W_m2K);
    v("coolant_C", s.coolant_C);
    v("grid", s.grid);
    v("max_series", s.max_series);
    v("stack", s.stack);
  }
  friend bool operator==(const serving_thermal_params&, const serving_thermal_params&) = default;
};

/// Checks the coupling's own fields; throws `config_error` naming `<path>.<field>`: window in
/// [10 µs, 10 s], throttle factor in (0, 1], limit in [−40, 95] °C (JESD79-5 specifies no operation
/// above) and above the coolant, h in [1, 10⁸] W/(m²·K), coolant in [−70, 200] °C, grid in
/// [0, 64], series in [2, 100 000], the stack's layers (`validate(serving_stack_layers)`).
template <class = void>
inline void validate(const serving_thermal_params& p, const std::string& path = "thermal") {
  constexpr const char* id = "strata.serving.thermal";
  detail::require_in(p.window_s, 1e-5, 10.0, id, path + ".window_s");
  detail::require(p.throttle_factor > 0.0 && p.throttle_factor <= 1.0, id, path + ".throttle_factor", p.throttle_factor,
                  "in (0, 1]");
  detail::require_in(p.limit_C, -40.0, 95.0, id, path + ".limit_C");
  detail::require_in(p.cold_plate_h_W_m2K, 1.0, 1e8, id, path + ".cold_plate_h_W_m2K");
  detail::require_in(p.coolant_C, -70.0, 200.0, id, path + ".coolant_C");
  detail::require(p.limit_C > p.coolant_C, id, path + ".limit_C", p.limit_C, "above coolant_C");
  detail::require(p.grid >= 0 && p.grid <= 64, id, path + ".grid", p.grid, "in [0, 64] (0: the block model)");
  detail::require(p.max_series >= 2 && p.max_series <= 100000, id, path + ".max_series", p.max_series,
                  "in [2, 100000]");
  validate(p.stack, path + ".stack");
}

/// One point of the series: `windows` consecutive windows merged.
struct serving_thermal_point {
  double start_s = 0.0;
  double duration_s = 0.0;
  double logic_W = 0.0;      ///< mean logic-die power of one chip
  double dram_W = 0.0;       ///< mean memory-die power of one chip
  double dram_max_C = 0.0;   ///< hottest DRAM cell, the highest at the end of its windows
  double logic_max_C = 0.0;  ///< hottest logic node, likewise
  double throttled_s = 0.0;  ///< its time in throttled windows
  std::int64_t windows = 0;

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("start_s", s.start_s);
    v("duration_s", s.duration_s);
    v("logic_W", s.logic_W);
    v("dram_W", s.dram_W);
    v("dram_max_C", s.dram_max_C);
    v("logic_max_C", s.logic_max_C);
    v("throttled_s", s.throttled_s);
    v("windows", s.windows);
  }
};

/// What the stack's temperature did to a run (file comment). Powers are one chip's.
struct serving_thermal_result {
  std::string model;             ///< "block" or "grid NxN"
  int nodes = 0;                 ///< of the stack's network
  double window_s = 0.0;
  std::int64_t windows = 0;
  double limit_C = 0.0;
  double peak_dram_C = 0.0;      ///< hottest DRAM cell at the end of any window
  double peak_logic_C = 0.0;     ///< hottest logic node at the end of any window
  double idle_dram_C = 0.0;      ///< hottest DRAM cell at the background's steady state (the start)
  double time_above_limit_s = 0.0;  ///< windows whose hottest DRAM cell ended above the limit
  double throttled_time_s = 0.0;    ///< windows run throttled (after one above the limit)
  double hot_refresh_time_s = 0.0;  ///< windows run at doubled refresh (after one above 85 °C)
  std::int64_t stretched_steps = 0; ///< decode steps stretched by throttling or refresh
  double refresh_overhead_share = 0.0;    ///< bank time lost to refresh, tRFC/tREFI time-weighted
  double refresh_overhead_nominal = 0.0;  ///< tRFC/tREFI at normal temperature
  double added_time_s = 0.0;     ///< decode time added by throttling and hot refresh
  double added_energy_J = 0.0;   ///< energy added by them (in the run's `energy_J`)
  double throughput_lost = 0.0;  ///< added time / the run's busy time
  double mean_logic_W = 0.0;     ///< over the windows
  double mean_dram_W = 0.0;
  double peak_logic_W = 0.0;     ///< the highest window mean
  double energy_in_J = 0.0;      ///< transient books of one chip's stack: injected
  double energy_stored_J = 0.0;  ///< Σ C (θ_end − θ_start)
  double energy_out_J = 0.0;     ///< to the coolant
  std::vector<serving_thermal_point> series;

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("model", s.model);
    v("nodes", s.nodes);
    v("window_s", s.window_s);
    v("windows", s.windows);
    v("limit_C", s.limit_C);
    v("peak_dram_C", s.peak_dram_C);
    v("peak_logic_C", s.peak_logic_C);
    v("idle_dram_C", s.idle_dram_C);
    v("time_above_limit_s", s.time_above_limit_s);
    v("throttled_time_s", s.throttled_time_s);
    v("hot_refresh_time_s", s.hot_refresh_time_s);
    v("stretched_steps", s.stretched_steps);
    v("refresh_overhead_share", s.refresh_overhead_share);
    v("refresh_overhead_nominal", s.refresh_overhead_nominal);
    v("added_time_s", s.added_time_s);
    v("added_energy_J", s.added_energy_J);
    v("throughput_lost", s.throughput_lost);
    v("mean_logic_W", s.mean_logic_W);
    v("mean_dram_W", s.mean_dram_W);
    v("peak_logic_W", s.peak_logic_W);
    v("energy_in_J", s.energy_in_J);
    v("energy_stored_J", s.energy_stored_J);
    v("energy_out_J", s.energy_out_J);
    v("series", s.series);
  }
};

/// The stack's parameters for a serving system: its chip and refresh, the coupling's cooling,
/// limit and discretisation, its layers' materials (`thermal.stack`).
template <class = void>
inline thermal::stratum_stack_params serving_stack_params(const stratum_system_params<>& sys,
                                                          const serving_thermal_params& p) {
  thermal::stratum_stack_params s;
  s.chip = sys.nmp.chip;
  s.refresh = sys.nmp.refresh;
  s.logic_substrate = p.stack.logic_substrate;
  s.logic_beol = p.stack.logic_beol;
  s.bond = p.stack.bond;
  s.memory_beol = p.stack.memory_beol;
  s.array = p.stack.array;
  s.memory_substrate = p.stack.memory_substrate;
  s.tim = p.stack.tim;
  s.cold_plate_h_W_m2K = p.cold_plate_h_W_m2K;
  s.coolant_K = p.coolant_C + 273.15;
  s.dram_limit_C = p.limit_C;
  s.model = p.grid > 0 ? thermal::thermal_options{thermal::thermal_model_kind::grid, p.grid, p.grid, 0.0}
                       : thermal::thermal_options{thermal::thermal_model_kind::block, 1, 1, 0.0};
  return s;
}

/// The coupling's state over one run (file comment): windows, the stack's transient, the
/// throttling and refresh it decides. `step` is `run_serving`'s hook.
class stratum_stack_monitor {
 public:
  /// A monitor of `sys` (its chips, stages, refresh and the chips' static and refresh power
  /// `static_W`, `refresh_W` per chip). Throws `config_error` naming `thermal.*` on bad input.
  template <class = void>
  stratum_stack_monitor(const stratum_system_params<>& sys, const serving_thermal_params& p, double static_W,
                        double refresh_W)
      : p_(p), static_W_(static_W), refresh_W_(refresh_W) {
    validate(p, "thermal");
    detail::require(sys.memory == nmp_memory::mono3d, "strata.serving.thermal", "thermal.enabled", 1,
                    "a Stratum system of Mono3D chips (the stack model is the Mono3D chip's)");
    units_ = static_cast<double>(sys.chips) * static_cast<double>(sys.stages);
    const auto sp = serving_stack_params(sys, p);
    try {
      thermal::validate(sp);
    } catch (const config_error& e) {
      throw config_error("thermal.enabled", std::string("[strata.serving.thermal] thermal.enabled: the system's stack: ") +
                                                e.what());
    }
    refresh_ = sp.refresh;
    const auto chip = evaluate(sp.chip);
    const auto lp = thermal::stratum_logic_floorplan(chip);
    const auto st = thermal::stratum_thermal_stack(sp, lp.plan);
    net_ = thermal::build_thermal_network(st, sp.model);
    const std::size_t n_layers = st.layers.size(), n_blocks = lp.plan.blocks.size();
    detail::require(lp.p_logic_W > 0.0, "strata.serving.thermal", "thermal.enabled", lp.p_logic_W,
                    "a logic die that dissipates (Eq. 1's P_logic > 0)");
    thermal::block_power ls(n_layers, std::vector<double>(n_blocks, 0.0)), ds = ls;
    const double area = chip.logic_params.die_area.si();
    for (std::size_t b = 0; b < n_blocks; ++b) {
      ls[thermal::stratum_stack_logic_layer][b] = lp.power_W[b] / lp.p_logic_W;
      ds[thermal::stratum_stack_array_layer][b] = lp.plan.blocks[b].area_m2() / area;
    }
    unit_logic_ = thermal::node_power(net_, ls);
    unit_dram_ = thermal::node_power(net_, ds);
    array_first_ = net_.layer_first_node[thermal::stratum_stack_array_layer];
    array_end_ = net_.layer_first_node[thermal::stratum_stack_array_layer + 1];
    logic_first_ = net_.layer_first_node[thermal::stratum_stack_logic_layer];
    logic_end_ = net_.layer_first_node[thermal::stratum_stack_logic_layer + 1];
    coolant_K_ = sp.coolant_K;
    // Start at the steady state of the background (the chips idle before the first request).
    const thermal::steady_solver<> steady(net_.net);
    theta_ = steady.rise(power_of(static_W_, refresh_W_));
    if (net_.net.size() <= thermal::window_integrator_max_nodes) {
      // The exact window integrator (rc_network.hpp): outputs the DRAM cells, then the logic nodes.
      std::vector<int> outs;
      for (int i = array_first_; i < array_end_; ++i) outs.push_back(i);
      for (int i = logic_first_; i < logic_end_; ++i) outs.push_back(i);
      modal_.emplace(net_.net, p.window_s, std::vector<std::vector<double>>{unit_logic_, unit_dram_}, outs);
      modal_->start_steady({static_W_, refresh_W_});
    } else {
      solver_.emplace(net_.net, p.window_s / steps_per_window);
    }
    a_nominal_ = refresh_availability(refresh_);
    a_now_ = a_nominal_;
    r_.model = p.grid > 0 ? "grid " + std::to_string(p.grid) + "x" + std::to_string(p.grid) : "block";
    r_.nodes = net_.net.size();
    r_.window_s = p.window_s;
    r_.limit_C = p.limit_C;
    r_.idle_dram_C = max_C(array_first_, array_end_);
    r_.peak_dram_C = r_.idle_dram_C;
    r_.peak_logic_C = max_C(logic_first_, logic_end_);
    r_.refresh_overhead_nominal = 1.0 - a_nominal_;
    cap_ = p.max_series - p.max_series % 2;
  }

  /// `run_serving`'s hook: a step of kind `k` starting at `t0` (s) with cost `c`; returns the cost
  /// it takes (file comment) and feeds its power to the stack.
  template <class = void>
  step_cost step(double t0, detail::serving_step_kind k, const step_cost& c) {
    advance(t0);
    const double m = refresh_multiplier();
    if (k == detail::serving_step_kind::decode) {
      if (!throttled_ && !hot_) {  // below every threshold: the step as costed, to the bit
        add(c.time_s, c.logic_j / units_, c.dram_j / units_);
        return c;
      }
      const double stretch = (throttled_ ? 1.0 / p_.throttle_factor : 1.0) * (hot_ ? a_nominal_ / a_now_ : 1.0);
      step_cost out = c;
      out.time_s = c.time_s * stretch;
      const double dt = out.time_s - c.time_s;
      out.logic_j = c.logic_j + static_W_ * units_ * dt;
      out.dram_j = c.dram_j + refresh_W_ * units_ * (m * out.time_s - c.time_s);
      out.energy_j = c.energy_j + (out.logic_j - c.logic_j) + (out.dram_j - c.dram_j);
      r_.added_time_s += dt;
      r_.added_energy_J += out.energy_j - c.energy_j;
      ++r_.stretched_steps;
      add(out.time_s, out.logic_j / units_, out.dram_j / units_);
      return out;
    }
    // Off the NMP (prefill, classifier) or a row swap: the chips' background, and the swap's energy.
    add(c.time_s, static_W_ * c.time_s + c.logic_j / units_, refresh_W_ * m * c.time_s + c.dram_j / units_);
    return c;
  }

  /// Closes the run at its makespan `t_end` (the last window filled with the background) and
  /// returns the result; `busy_s` is the run's busy time (for `throughput_lost`).
  template <class = void>
  serving_thermal_result finish(double t_end, double busy_s) {
    advance(t_end);
    if (now_ > w_start_ + 1e-9 * p_.window_s || r_.windows == 0) {
      add_power(w_start_ + p_.window_s, static_W_, refresh_W_ * refresh_multiplier());
    }
    if (pending_.windows > 0) push(pending_);
    pending_ = {};
    auto r = r_;
    const double total = static_cast<double>(r.windows) * p_.window_s;
    r.refresh_overhead_share = total > 0.0 ? lost_bank_s_ / total : 0.0;
    r.mean_logic_W = total > 0.0 ? e_logic_total_ / total : 0.0;
    r.mean_dram_W = total > 0.0 ? e_dram_total_ / total : 0.0;
    r.throughput_lost = busy_s > 0.0 ? r.added_time_s / busy_s : 0.0;
    r.energy_in_J = books_.injected_J;
    r.energy_stored_J = books_.stored_J;
    r.energy_out_J = books_.removed_J;
    return r;
  }

  static constexpr int steps_per_window = 2;
  /// A window that moves no node by more than this (K) leaves the stack settled: the next windows
  /// of the same power are not stepped (file comment of `close_window`).
  static constexpr double settle_K = 1e-9;

 private:
  [[nodiscard]] double refresh_multiplier() const { return hot_ ? 2.0 : 1.0; }
  std::vector<double> power_of(double logic_W, double dram_W) const {
    std::vector<double> out(unit_logic_.size());
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = logic_W * unit_logic_[i] + dram_W * unit_dram_[i];
    return out;
  }
  [[nodiscard]] double max_C(int first, int end) const {
    double m = theta_[static_cast<std::size_t>(first)];
    for (int i = first; i < end; ++i) m = std::max(m, theta_[static_cast<std::size_t>(i)]);
    return coolant_K_ + m - 273.15;
  }
  /// Adds `dt` of the current position's time with energies `logic_J`, `dram_J` (one chip).
  void add(double dt, double logic_J, double dram_J) {
    if (dt <= 0.0) {
      e_logic_ += logic_J;
      e_dram_ += dram_J;
      return;
    }
    add_power(now_ + dt, logic_J / dt, dram_J / dt);
  }
  /// Throws `config_error` naming `thermal.window_s` when reaching `until` would close more
  /// windows than `serving_thermal_limits()` allows: checked before any of them is stepped.
  void check_windows(double until) const {
    const double ahead = (until - w_start_) / p_.window_s;
    const std::int64_t max_windows = serving_thermal_limits().windows;
    if (!(ahead < static_cast<double>(max_windows - r_.windows))) {
      throw config_error("thermal.window_s", "[strata.serving.thermal] thermal.window_s: the run spans more than " +
                                                 std::to_string(max_windows) + " windows of " +
                                                 detail::to_text(p_.window_s) + " s; take a longer window");
    }
  }
  /// Fills [now, t) with the chips' background, window by window: each window at the refresh rate
  /// the one before it left.
  void advance(double t) {
    check_windows(t);
    while (t > now_) {
      const double end = std::min(t, w_start_ + p_.window_s);
      add_power(end, static_W_, refresh_W_ * refresh_multiplier());
      if (end >= t) break;
    }
  }
  /// Constant power from now to `until`, closing every window that ends on the way.
  void add_power(double until, double logic_W, double dram_W) {
    check_windows(until);
    while (until >= w_start_ + p_.window_s) {
      const double end = w_start_ + p_.window_s;
      e_logic_ += logic_W * (end - now_);
      e_dram_ += dram_W * (end - now_);
      now_ = end;
      close_window();
      // The state changed: the rest of a step keeps its own powers (its cost is set at its start).
    }
    e_logic_ += logic_W * (until - now_);
    e_dram_ += dram_W * (until - now_);
    now_ = until;
  }
  void close_window() {
    const double dt = p_.window_s;
    const double pl = e_logic_ / dt, pd = e_dram_ / dt;
    const auto same = [](double a, double b) { return std::abs(a - b) <= 1e-12 * (std::abs(a) + std::abs(b)); };
    double t_dram = 0.0, t_logic = 0.0;
    if (modal_) {
      weights_[0] = pl;
      weights_[1] = pd;
      modal_->advance(weights_, books_);
      const auto& y = modal_->outputs();
      const auto n_array = static_cast<std::size_t>(array_end_ - array_first_);
      double md = y.front(), ml = y[n_array];
      for (std::size_t i = 0; i < n_array; ++i) md = std::max(md, y[i]);
      for (std::size_t i = n_array; i < y.size(); ++i) ml = std::max(ml, y[i]);
      t_dram = coolant_K_ + md - 273.15;
      t_logic = coolant_K_ + ml - 273.15;
    } else if (settled_ && same(pl, settled_logic_W_) && same(pd, settled_dram_W_)) {
      // The stack sits at the steady state of this very power (the last window changed no node
      // by more than `settle_K`): another window changes nothing but the books.
      books_.injected_J += dt * (pl + pd);
      books_.removed_J += dt * settled_removed_W_;
    } else {
      const auto pw = power_of(pl, pd);
      const auto before = theta_;
      for (int k = 0; k < steps_per_window; ++k) solver_->step(theta_, pw, books_);
      double change = 0.0;
      for (std::size_t i = 0; i < theta_.size(); ++i) change = std::max(change, std::abs(theta_[i] - before[i]));
      settled_ = change < settle_K;
      if (settled_) {
        settled_logic_W_ = pl;
        settled_dram_W_ = pd;
        settled_removed_W_ = 0.0;
        for (std::size_t i = 0; i < theta_.size(); ++i) settled_removed_W_ += net_.net.ambient_W_K[i] * theta_[i];
      }
    }
    if (!modal_) {
      t_dram = max_C(array_first_, array_end_);
      t_logic = max_C(logic_first_, logic_end_);
    }
    // What this window ran under.
    if (throttled_) r_.throttled_time_s += dt;
    if (hot_) r_.hot_refresh_time_s += dt;
    lost_bank_s_ += (1.0 - a_now_) * dt;
    // What it leaves to the next.
    r_.peak_dram_C = std::max(r_.peak_dram_C, t_dram);
    r_.peak_logic_C = std::max(r_.peak_logic_C, t_logic);
    r_.peak_logic_W = std::max(r_.peak_logic_W, pl);
    if (t_dram > p_.limit_C) r_.time_above_limit_s += dt;
    // JESD79-5 specifies the device in [-40, 95] degC: the refresh of a colder or hotter cell is
    // taken at the range's end (the peak reports the temperature itself).
    const auto ref = refresh_at_temperature(refresh_, std::clamp(t_dram, -40.0, 95.0));
    a_now_ = refresh_availability(ref);
    hot_ = refresh_.enabled && ref.t_refi.si() < refresh_.t_refi.si();
    const bool was_throttled = throttled_;
    throttled_ = t_dram > p_.limit_C && p_.throttle_factor < 1.0;
    e_logic_total_ += e_logic_;
    e_dram_total_ += e_dram_;
    serving_thermal_point pt{w_start_, dt, pl, pd, t_dram, t_logic, was_throttled ? dt : 0.0, 1};
    merge(pending_, pt);
    if (pending_.windows >= stride_) {
      push(pending_);
      pending_ = {};
    }
    ++r_.windows;
    w_start_ = static_cast<double>(r_.windows) * dt;  // not a running sum: no drift over many windows
    e_logic_ = 0.0;
    e_dram_ = 0.0;
  }
  static void merge(serving_thermal_point& a, const serving_thermal_point& b) {
    if (a.windows == 0) {
      a = b;
      return;
    }
    const double d = a.duration_s + b.duration_s;
    a.logic_W = (a.logic_W * a.duration_s + b.logic_W * b.duration_s) / d;
    a.dram_W = (a.dram_W * a.duration_s + b.dram_W * b.duration_s) / d;
    a.duration_s = d;
    a.dram_max_C = std::max(a.dram_max_C, b.dram_max_C);
    a.logic_max_C = std::max(a.logic_max_C, b.logic_max_C);
    a.throttled_s += b.throttled_s;
    a.windows += b.windows;
  }
  /// Appends a point; a full series is merged in pairs and the stride doubled.
  void push(const serving_thermal_point& pt) {
    auto& s = r_.series;
    s.push_back(pt);
    if (static_cast<int>(s.size()) >= cap_) {
      std::vector<serving_thermal_point> half;
      half.reserve(s.size() / 2 + 1);
      for (std::size_t i = 0; i < s.size(); i += 2) {
        serving_thermal_point x = s[i];
        if (i + 1 < s.size()) merge(x, s[i + 1]);
        half.push_back(x);
      }
      s = std::move(half);
      stride_ *= 2;
    }
  }

  serving_thermal_params p_;
  double static_W_ = 0.0, refresh_W_ = 0.0, units_ = 1.0;
  dram_refresh_params<double> refresh_{};
  thermal::thermal_network net_;
  std::vector<double> unit_logic_, unit_dram_, theta_;
  std::optional<thermal::transient_solver<>> solver_;  // backward Euler, networks over 1024 nodes
  std::optional<thermal::window_integrator<>> modal_;  // the exact window integrator, up to 1024 nodes
  std::vector<double> weights_ = std::vector<double>(2, 0.0);  // a window's logic and DRAM power
  thermal::transient_energy books_;
  int array_first_ = 0, array_end_ = 0, logic_first_ = 0, logic_end_ = 0;
  double coolant_K_ = 0.0;
  double a_nominal_ = 1.0, a_now_ = 1.0;
  bool throttled_ = false, hot_ = false;
  bool settled_ = false;
  double settled_logic_W_ = 0.0, settled_dram_W_ = 0.0, settled_removed_W_ = 0.0;
  double now_ = 0.0, w_start_ = 0.0, e_logic_ = 0.0, e_dram_ = 0.0;
  double e_logic_total_ = 0.0, e_dram_total_ = 0.0, lost_bank_s_ = 0.0;
  serving_thermal_result r_;
  serving_thermal_point pending_;
  std::int64_t stride_ = 1;
  int cap_ = 512;
};

/// A Stratum serving run coupled to its stack's temperature, and what the temperature did.
struct stratum_thermal_run {
  serving_result serving;
  serving_thermal_result thermal;
};

/// `simulate_stratum` with the thermal coupling `p` (file comment). With `p.enabled` false it is
/// `simulate_stratum` and `thermal` is empty. Throws `config_error` naming `thermal.*` on bad
/// coupling parameters or a system of HBM stacks. Either serving loop (`scheduler.loop`) is coupled.
template <class = void>
inline stratum_thermal_run simulate_stratum_thermal(const stratum_serving_setup& setup, const std::vector<request>& reqs,
                                                    const serving_thermal_params& p,
                                                    const routing_trace* trace = nullptr, const topic_hook& hook = {},
                                                    stratum_serving_memo* memo = nullptr) {
  stratum_thermal_run out;
  if (!p.enabled) {
    out.serving = simulate_stratum(setup, reqs, trace, hook, memo);
    return out;
  }
  validate(p, "thermal");
  // The coupling charges each part of every step as it runs: the paper's loop (Stratum §6) and the
  // engine loop (`scheduler.loop: "engine"`, `stratum_engine.hpp`: a mixed step's parts in sequence).
  std::optional<stratum_stack_monitor> mon;
  const auto couple = [&](detail::serving_model& cb, const stratum_machine<>& sm) {
    mon.emplace(setup.system, p, sm.device.static_power.si(), sm.device.refresh_power.si());
    cb.thermal = [&mon](double t0, detail::serving_step_kind k, const step_cost& c) { return mon->step(t0, k, c); };
  };
  out.serving = detail::simulate_stratum_impl(setup, reqs, trace, hook, memo, couple);
  if (mon && out.serving.feasible) out.thermal = mon->finish(out.serving.makespan_s, out.serving.busy_time_s);
  return out;
}

}  // namespace v0
}  // namespace strata
