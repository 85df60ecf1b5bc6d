// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Design-space studies as data: a `scenario` names a study kind, the system, GPU, model and
/// workload it runs on, the sweep axes, the output columns and an optional plot; `scenario_model`
/// evaluates one design point of it (a pure function of the point, for `stream_sweep`), and
/// `run_optimise_study` runs the budget optimiser. The JSON reader is `report/scenario_json.hpp`,
/// the table and plot writers `report/scenario_io.hpp`.
///
/// Study kinds, their axes and their columns (every column a plain number in the unit its name
/// ends with; 1/0 for yes/no columns; `nan` where a point has no value, e.g. a speedup where one
/// side cannot hold the batch):
///
/// - `device` (Stratum §6.2 Fig. 14, §6.4 Fig. 18b). Axes `layers` (WL layers), `tiers`. The
///   Mono3D die of the system's chip with that many layers kept at the 1024-layer chip's
///   footprint (more MATs per bank fill what a shorter staircase frees, as Fig. 18b's
///   comparison). Columns: latency_spread (slowest / fastest tier access latency),
///   fastest_latency_ns, slowest_latency_ns, fastest_bw_TBps, slowest_bw_TBps, mean_bw_TBps
///   (internal bandwidth per tier), density_Gib_per_mm2, capacity_GiB, die_area_mm2,
///   chips (the fewest that hold the model's weights and KV cache at the workload, ≤ 256),
///   tokens_per_s (decode on that many chips), tokens_per_s_per_mm2 (over the chips' dies, Fig. 18b).
/// - `stratum_vs_gpu` (§6.3 Fig. 16, §6.4 Fig. 18a). Axes `batch`, `context`, `hit_rate`. A
///   decode step on the Stratum system and on the GPU baseline (the fewest GPUs holding the
///   weights at B = 1, S = 512, FP8 weights where that needs fewer). Columns: stratum_tokens_per_s,
///   gpu_tokens_per_s, speedup, stratum_tokens_per_J, gpu_tokens_per_J, energy_gain, stratum_fits,
///   gpu_fits, gpus.
/// - `hit_rate` (§6.4 Fig. 17). Axes `hit_rate` (0: uniform routing and placement; else in
///   [A/E, 1]), `batch`, `context`. Columns: moe_layer_latency_us (the MoE blocks' time of the
///   slowest stage over the MoE layers of the first stage: exact on a one-stage system, the
///   largest stage's count otherwise), moe_time_us, step_time_us, tokens_per_s,
///   tokens_per_J, hot_hit_rate, fits.
/// - `logic_budget` (§4.3 Eq. 1–3). Axes `macs` (N_mac, real), `f_GHz` (logic clock). The logic
///   die the system's chip derives from its memory die. Columns: p_logic_W, power_slack_W,
///   active_area_mm2, processor_budget_mm2, area_slack_mm2, pd_tsv_area_mm2, peak_TFLOPS,
///   power_ok, area_ok, feasible.
/// - `optimise` (§4.3, §6.2.3). No axes: `optimise_design` over the scenario's domain; the
///   optimum and the system's own design as two rows (columns in `optimise_columns()`).
/// - `hcrmap_budget` (HCRMap §7.4 Fig. 7). Axes `budget_factor` (B_res = factor · Σ S^wt, Eq. 29,
///   in [1, 4]; Table 1: 1.3), `sram_scale`, `hbm_scale` (the tiers' capacities over Table 1's, in
///   [1/16, 16]). At each point the HCRMap comparison (`run_residency_point`: the six compared
///   policies on the chiplet package, the scenario's `hcrmap` mode, windows and layers, the
///   model's trace split by sequence). Columns: <policy>_normalised for static, fixed, hydra,
///   moentwine, pimoe and hcrmap (mean window T_E2E over single-copy static's at the same point),
///   static_latency_us, hcrmap_latency_us, hcrmap_edp_ratio (HCRMap's EDP over static's),
///   packages, fixed_replicas, hcrmap_replicas (published replicas of the evaluated layers at the end),
///   static_routed_us, hcrmap_routed_us (routed MoE time only, beside the end-to-end latency),
///   non_routed_us (the policy-independent rest: attention and KV reads, norms, shared experts,
///   embedding, LM head, hand-offs). Axis `context` (decode context per sequence) and the
///   `hcrmap.kv` placement of the KV cache set the decode shape (examples/scenarios/decode_shape_kv_hbm_first.json, decode_shape_kv_dram.json).
/// - `hcrmap_pressure` (HCRMap §7.4 Fig. 8). Axes `x`, `y` (a chiplet of Table 1's mesh, id =
///   y · mesh_x + x). The comparison runs once at Table 1's budget and capacities; each point is
///   one chiplet's compute pressure (`compute_pressure_grid`: busy_c / mean busy, 1 = balanced).
///   Columns: <policy>_pressure for the six policies, static_busy_us, hcrmap_busy_us (compute
///   service per window, summed over the evaluated layers and the stages).
///
/// The HCRMap studies' trace is the scenario's `hcrmap.trace` (loaded by the caller into
/// `scenario_inputs`), else the model's fitted synthetic trace (`hcrmap_trace`); HCRMap decides
/// with `scenario_inputs::value` (a DQN checkpoint's, when the scenario names one), else with the
/// greedy rule. A point of these studies is a whole experiment: seconds, not microseconds.
///
/// Axes a study does not sweep take the workload's value (batch, context, hit_rate) or the
/// system's (layers, tiers, N_mac, clock). Bounds: at most `scenario_max_axes` axes of at most
/// `scenario_max_axis_values` values, at most `scenario_max_points` points, checked by the reader
/// before any axis is built; an HCRMap study's expert routes at most `hcrmap_limits().routes`,
/// checked by the reader and again by `scenario_model` before its first experiment.

#include <algorithm>    // std::min, std::max
#include <array>        // std::array (enum names)
#include <cmath>        // std::isfinite, std::floor, std::fabs, std::nan
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int64_t
#include <cstdio>       // std::snprintf, axis values in errors
#include <limits>       // std::numeric_limits
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::pair
#include <vector>       // std::vector

#include "strata/baseline/gpu.hpp"
#include "strata/baseline/baseline_gpu.hpp"
#include "strata/core/error.hpp"
#include "strata/core/sweep.hpp"
#include "strata/core/units.hpp"
#include "strata/chiplet/substrate.hpp"
#include "strata/device/stratum_chip.hpp"
#include "strata/hcrmap/experiment.hpp"
#include "strata/hcrmap/policies.hpp"
#include "strata/hcrmap/scorer.hpp"
#include "strata/hcrmap/sweeps.hpp"
#include "strata/report/hcrmap_rows.hpp"
#include "strata/report/stratum_rows.hpp"
#include "strata/stratum/design_optimiser.hpp"
#include "strata/stratum/system.hpp"
#include "strata/stratum/usage.hpp"
#include "strata/workload/model.hpp"
#include "strata/workload/presets.hpp"

namespace strata {
inline namespace v0 {

/// Axes one scenario may sweep.
inline constexpr std::size_t scenario_max_axes = 6;
/// Values one axis of a scenario may hold.
inline constexpr std::size_t scenario_max_axis_values = 10000;
/// Points one scenario may address.
inline constexpr std::size_t scenario_max_points = 1000000;

/// The study a scenario runs (file comment).
enum class study_kind { device, stratum_vs_gpu, hit_rate, logic_budget, optimise, hcrmap_budget, hcrmap_pressure };
constexpr auto enum_names(study_kind) {
  return std::array{std::pair{study_kind::device, "device"}, std::pair{study_kind::stratum_vs_gpu, "stratum_vs_gpu"},
                    std::pair{study_kind::hit_rate, "hit_rate"}, std::pair{study_kind::logic_budget, "logic_budget"},
                    std::pair{study_kind::optimise, "optimise"}, std::pair{study_kind::hcrmap_budget, "hcrmap_budget"},
                    std::pair{study_kind::hcrmap_pressure, "hcrmap_pressure"}};
}

/// True for the HCRMap studies (file comment).
constexpr bool is_hcrmap_study(study_kind k) { return k == study_kind::hcrmap_budget || k == study_kind::hcrmap_pressure; }

/// The policies of the HCRMap studies, in column order (HCRMap §7.1).
inline std::vector<policy_kind> scenario_hcrmap_policies() {
  return {policy_kind::single_copy_static, policy_kind::fixed_replication, policy_kind::hydra,
          policy_kind::moentwine,          policy_kind::pimoe,             policy_kind::hcrmap};
}

/// The name of a study kind as a scenario writes it.
inline const char* study_name(study_kind k) {
  for (const auto& [e, n] : enum_names(k)) {
    if (e == k) return n;
  }
  return "?";
}

/// How the axes combine: every combination, or walked together.
enum class axes_combine { cartesian, zip };

/// One axis a study accepts: its name, whether its values must be integers, and its range.
struct scenario_axis_spec {
  const char* name;
  bool integer;
  double lo, hi;
  const char* meaning;
};

/// The axes study `k` accepts.
inline std::vector<scenario_axis_spec> scenario_axes(study_kind k) {
  switch (k) {
    case study_kind::device:
      return {{"layers", true, 2, 4096, "WL layers of the Mono3D die"}, {"tiers", true, 1, 4096, "latency tiers (<= layers)"}};
    case study_kind::stratum_vs_gpu:
      return {{"batch", true, 1, 4096, "decode batch B"}, {"context", true, 1, 1048576, "context length S"},
              {"hit_rate", false, 0, 1, "hot-expert hit rate (0: uniform)"}};
    case study_kind::hit_rate:
      return {{"hit_rate", false, 0, 1, "hot-expert hit rate (0: uniform)"}, {"batch", true, 1, 4096, "decode batch B"},
              {"context", true, 1, 1048576, "context length S"}};
    case study_kind::logic_budget:
      return {{"macs", false, 0, 1e9, "MAC units N_mac"}, {"f_GHz", false, 0.01, 100, "logic clock f_logic in GHz"}};
    case study_kind::optimise: return {};
    case study_kind::hcrmap_budget:
      return {{"budget_factor", false, 1, 4, "resident-copy budget over the experts (Table 1: 1.3)"},
              {"sram_scale", false, 1.0 / 16.0, 16, "SRAM capacity over Table 1's"},
              {"hbm_scale", false, 1.0 / 16.0, 16, "HBM capacity over Table 1's"},
              {"context", true, 1, 1048576, "decode context per sequence (KV tokens; default 2048)"}};
    case study_kind::hcrmap_pressure: {
      const substrate_params t;
      return {{"x", true, 0, double(t.mesh_x - 1), "chiplet column of the mesh"},
              {"y", true, 0, double(t.mesh_y - 1), "chiplet row of the mesh"}};
    }
  }
  return {};
}

/// The columns study `k` writes, in order (file comment).
inline std::vector<std::string> scenario_columns(study_kind k) {
  switch (k) {
    case study_kind::device:
      return {"latency_spread", "fastest_latency_ns", "slowest_latency_ns", "fastest_bw_TBps", "slowest_bw_TBps",
              "mean_bw_TBps", "density_Gib_per_mm2", "capacity_GiB", "die_area_mm2", "chips", "tokens_per_s",
              "tokens_per_s_per_mm2"};
    case study_kind::stratum_vs_gpu:
      return {"stratum_tokens_per_s", "gpu_tokens_per_s", "speedup", "stratum_tokens_per_J", "gpu_tokens_per_J",
              "energy_gain", "stratum_fits", "gpu_fits", "gpus"};
    case study_kind::hit_rate:
      return {"moe_layer_latency_us", "moe_time_us", "step_time_us", "tokens_per_s", "tokens_per_J", "hot_hit_rate", "fits"};
    case study_kind::logic_budget:
      return {"p_logic_W", "power_slack_W", "active_area_mm2", "processor_budget_mm2", "area_slack_mm2",
              "pd_tsv_area_mm2", "peak_TFLOPS", "power_ok", "area_ok", "feasible"};
    case study_kind::optimise: return {};
    case study_kind::hcrmap_budget: {
      std::vector<std::string> c;
      for (policy_kind k : scenario_hcrmap_policies()) c.push_back(std::string(to_string(k)) + "_normalised");
      for (const char* n : {"static_latency_us", "hcrmap_latency_us", "hcrmap_edp_ratio", "packages", "fixed_replicas",
                            "hcrmap_replicas", "static_routed_us", "hcrmap_routed_us", "non_routed_us"}) {
        c.emplace_back(n);
      }
      return c;
    }
    case study_kind::hcrmap_pressure: {
      std::vector<std::string> c;
      for (policy_kind k : scenario_hcrmap_policies()) c.push_back(std::string(to_string(k)) + "_pressure");
      c.emplace_back("static_busy_us");
      c.emplace_back("hcrmap_busy_us");
      return c;
    }
  }
  return {};
}

/// The columns of the optimise study's two rows (the optimum and the system's own design).
inline std::vector<std::string> optimise_columns() {
  return {"macs",          "pes_per_pu",     "tiers",         "layers",      "f_GHz",         "feasible",
          "objective",     "p_logic_W",      "power_slack_W", "area_slack_mm2", "power_binding", "area_binding",
          "power_price",   "area_price",     "baseline_ratio"};
}

/// One axis as written in a scenario.
struct scenario_axis {
  enum class kind { list, linear, log, integer };
  std::string name;
  kind type = kind::list;
  std::vector<double> values{};  ///< list
  double first = 0.0, last = 0.0;
  std::size_t count = 0;         ///< linear, log
  double step = 1.0;             ///< integer
};

/// The workload a study evaluates on, where an axis does not set it.
struct scenario_workload {
  int batch = 16;
  int context = 2048;
  double hit_rate = 0.0;  ///< 0: uniform routing and placement
};

/// A plot of some columns against one axis, one line per value of another axis.
struct scenario_plot {
  bool enabled = false;
  std::string x;                 ///< an axis
  std::vector<std::string> y;    ///< output columns
  std::string series;            ///< an axis, or empty
  bool log_x = false, log_y = false;
  bool heatmap = false;          ///< one map per y column over (x, series), instead of lines
  std::string title, x_label, y_label;
  /// Legend text (a heatmap: panel title) per `y` column, in `y` order; "" (or none): read from
  /// the column's name, its unit in parentheses (`moe_layer_latency_us`: "moe layer latency (us)").
  std::vector<std::string> labels;
  /// A series value's legend text, `{}` standing for the value ("batch {}", "{} tiers"); "":
  /// "<axis> = <value>", the axis name read as a column's (`f_GHz`: "f = 0.5 GHz").
  std::string series_label;
};

/// The optimise study's domain and objective.
struct scenario_optimise {
  design_objective objective = design_objective::decode_throughput;
  int macs_first = 0, macs_last = 0, macs_step = 0;  ///< 0, 0, 0: the system's N_mac
  std::vector<int> pes_per_pu{}, tiers{}, layers{};
  double f_min_GHz = 0.0, f_max_GHz = 0.0;          ///< 0, 0: the system's clock
};

/// The HCRMap studies' serving (file comment; `experiment_params` for the rest).
struct scenario_hcrmap {
  phase mode = phase::decode;  ///< prefill: windows of 2048 tokens; decode: steps of 512 sequences
  int windows = 3;             ///< evaluation windows in sequence
  int max_layers = experiment_params::all_layers;  ///< MoE layers evaluated at most, evenly spaced (default: all)
  std::string trace;           ///< routing trace CSV of the model (empty: the fitted synthetic trace)
  std::string checkpoint;      ///< masked Double DQN checkpoint for HCRMap's value (empty: greedy rule)
  /// Decode windows may reuse sequences of a trace with fewer than 512 per split
  /// (`experiment_params::trace_reuse`); false: such a trace is refused.
  bool trace_reuse = false;
  /// Tier of the KV cache (`residency_params::kv`; JSON "hbm_first", "dram", "by_pressure").
  kv_placement kv = kv_placement::hbm_first;
};

/// What a scenario names by path, loaded by the caller (the library reads no file here).
struct scenario_inputs {
  std::optional<routing_trace> trace;  ///< `hcrmap.trace`, loaded
  controller_value value{};            ///< `hcrmap.checkpoint` as a scorer (empty: greedy rule)
};

/// A complete study (file comment).
struct scenario {
  std::string name;   ///< file stem of the plot ([A-Za-z0-9_.-], 1 to 64 characters)
  std::string title;
  study_kind study = study_kind::device;
  std::string system = "stratum-l";
  std::string gpu = "h100_sxm5";
  std::string model = "Mixtral-8x7B";
  scenario_workload workload{};
  axes_combine combine = axes_combine::cartesian;
  std::vector<scenario_axis> axes{};
  std::vector<std::string> outputs{};  ///< empty: every column of the study
  scenario_plot plot{};
  scenario_optimise optimise{};
  scenario_hcrmap hcrmap{};
};

namespace detail {

/// Values of an axis, as the sweep engine builds it.
inline sweep_axis build_axis(const scenario_axis& a) {
  switch (a.type) {
    case scenario_axis::kind::list: return list_axis(a.name, a.values);
    case scenario_axis::kind::linear: return linear_axis(a.name, a.first, a.last, a.count);
    case scenario_axis::kind::log: return log_axis(a.name, a.first, a.last, a.count);
    case scenario_axis::kind::integer:
      return integer_axis(a.name, static_cast<long long>(a.first), static_cast<long long>(a.last),
                          static_cast<long long>(a.step));
  }
  return list_axis(a.name, a.values);
}

inline double nan_value() { return std::numeric_limits<double>::quiet_NaN(); }

/// The system a `device` study evaluates at a point of `layers` WL layers and `tiers` tiers
/// (`with_layers_same_area`, then the point's tiers): what the study's reader checks at every
/// point (`validate` of the chip) is what the point runs.
inline stratum_system_params<> device_point_system(stratum_system_params<> p, int layers, int tiers) {
  p = with_layers_same_area(p, layers);
  p.nmp.chip.memory.tiers = tiers;
  return p;
}

/// The fewest chips (1 … 256) of `p` that hold `m` at `s`, and the decode step on them (0 chips
/// and an empty result when none does). The scan starts at a count no smaller than the answer
/// and stops before it starts when no count can help, so a point costs a few step evaluations,
/// not 256: a chip whose logic die is infeasible is infeasible at every count, and fewer than
/// ⌊routed-expert bytes / (stages × one chip's capacity)⌋ chips cannot hold the routed experts
/// (every expert's rows are on the NMP chips, §5), whatever else the placement needs.
inline std::pair<int, stratum_step_result<>> fewest_chips(stratum_system_params<> p, const model& m,
                                                          const step_shape& s, const stratum_usage& u) {
  const auto d = system_device(p);
  if (!d.feasible) return {0, stratum_step_result<>{}};
  double chip_bytes = 0.0;
  for (const auto& t : d.tiers) chip_bytes += t.capacity.si();
  const double expert_bytes = double(m.moe_layers()) * double(m.experts) * double(count_params(m).per_expert) *
                              (m.weight_bits / 8.0);
  int first = 1;
  if (chip_bytes > 0.0) {
    const double lower = std::floor(expert_bytes / (chip_bytes * double(p.stages)));
    first = static_cast<int>(std::clamp(lower, 1.0, 256.0));
  }
  for (int c = first; c <= 256; ++c) {
    p.chips = c;
    auto r = evaluate_decode(p, m, s, u);
    if (r.feasible) return {c, std::move(r)};
  }
  return {0, stratum_step_result<>{}};
}

}  // namespace detail

namespace detail {

/// An axis value as a scenario writes it: an integer exactly, else up to 10 significant digits.
template <class = void>
inline std::string axis_value_text(double v) {
  char buf[32];
  if (v == std::floor(v) && std::fabs(v) < 9007199254740992.0) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.10g", v);
  }
  return buf;
}

/// "<axis>=<value>,..." of point `x`.
template <class = void>
inline std::string point_axes_text(const design_point& x, const char* separator) {
  std::string t;
  const auto& axes = x.space().axes();
  for (std::size_t a = 0; a < axes.size(); ++a) {
    if (a > 0) t += separator;
    t += axes[a].name + "=" + axis_value_text(x.values()[a]);
  }
  return t;
}

/// Where a point of scenario `s` is: "[strata.scenario] <name>: study <study>, point <i> of <n> (<axis>=<value>, ...)".
template <class = void>
inline std::string scenario_point_where(const scenario& s, const design_point& x) {
  return "[strata.scenario] " + s.name + ": study " + study_name(s.study) + ", point " + std::to_string(x.index() + 1) +
         " of " + std::to_string(x.space().size()) + " (" + point_axes_text(x, ", ") + ")";
}

/// `e`, thrown at point `x` of scenario `s`, as a `config_error` naming the scenario, the study,
/// the point's axis values and `e`'s field; its field is `<study>[<axis>=<value>,...].<field>`.
template <class = void>
inline config_error scenario_point_error(const scenario& s, const design_point& x, const config_error& e) {
  return {std::string(study_name(s.study)) + "[" + point_axes_text(x, ",") + "]." + e.field(),
          scenario_point_where(s, x) + ": field " + e.field() + ": " + e.what()};
}

}  // namespace detail

/// The sweep space of a scenario (its axes built; the empty product for `optimise`).
inline sweep_space scenario_space(const scenario& s) {
  if (s.axes.empty()) return sweep_space{};
  std::vector<sweep_axis> axes;
  axes.reserve(s.axes.size());
  for (const auto& a : s.axes) axes.push_back(detail::build_axis(a));
  return s.combine == axes_combine::zip ? zip(std::move(axes)) : cartesian(std::move(axes));
}

/// One scenario prepared for evaluation: presets resolved, the system prepared once. Calling it
/// on a design point of `scenario_space(s)` gives every column of the study
/// (`scenario_columns(s.study)`); it is const and safe to call from several threads. `in` holds
/// the files the scenario names (`hcrmap.trace`, `hcrmap.checkpoint`); throws `config_error`
/// ("hcrmap.trace") if the scenario names a trace that `in` lacks. The `hcrmap_pressure` study
/// runs its comparison here, once.
class scenario_model {
 public:
  explicit scenario_model(const scenario& s, scenario_inputs in = {})
      : sc_(s), space_(scenario_space(s)), sys_(stratum_system(s.system)), model_(preset(s.model)), in_(std::move(in)) {
    const auto find = [&](const char* n) -> int {
      for (std::size_t a = 0; a < space_.axes().size(); ++a) {
        if (space_.axes()[a].name == n) return static_cast<int>(a);
      }
      return -1;
    };
    ax_layers_ = find("layers");
    ax_tiers_ = find("tiers");
    ax_batch_ = find("batch");
    ax_context_ = find("context");
    ax_hit_ = find("hit_rate");
    ax_macs_ = find("macs");
    ax_f_ = find("f_GHz");
    ax_budget_ = find("budget_factor");
    ax_sram_ = find("sram_scale");
    ax_hbm_ = find("hbm_scale");
    ax_x_ = find("x");
    ax_y_ = find("y");
    usage_ = usage_of(s.workload.hit_rate);
    if (s.study == study_kind::stratum_vs_gpu || s.study == study_kind::hit_rate) prepared_ = prepare(sys_);
    if (s.study == study_kind::stratum_vs_gpu) {
      gpu_ = baseline_gpu(gpu_preset(s.gpu));
      baseline_ = choose_gpu_baseline(gpu_, model_);
      gpu_machine_ = make_machine(gpu_, std::max(1, baseline_.gpus));
    }
    if (s.study == study_kind::logic_budget) {
      const auto& chip = sys_.nmp.chip;
      const auto mem = evaluate(chip.memory);
      logic_ = derived_logic_die(chip, mem);
      bw_fast_ = mem.tiers.front().internal_bandwidth;
    }
    if (is_hcrmap_study(s.study)) {
      try {  // hcrmap_pressure runs its comparison here, once: an error names the study
        prepare_hcrmap();
      } catch (const config_error& e) {
        throw config_error(e.field(), "[strata.scenario] " + s.name + ": study " + study_name(s.study) + ": field " +
                                          e.field() + ": " + e.what());
      }
    }
  }

  [[nodiscard]] const sweep_space& space() const { return space_; }
  [[nodiscard]] const scenario& spec() const { return sc_; }

  /// Every column of the study at point `x`. A `config_error` or `solver_error` of the point is
  /// rethrown naming the scenario, its study, the point's index and axis values and the field
  /// that failed (`detail::scenario_point_error`): `config_error::field()` is
  /// `<study>[<axis>=<value>,...].<field>`.
  std::vector<double> operator()(const design_point& x) const {
    try {
      return evaluate_point(x);
    } catch (const config_error& e) {
      throw detail::scenario_point_error(sc_, x, e);
    } catch (const solver_error& e) {
      throw solver_error(detail::scenario_point_where(sc_, x) + ": " + e.what());
    }
  }

 private:
  [[nodiscard]] std::vector<double> evaluate_point(const design_point& x) const {
    switch (sc_.study) {
      case study_kind::device: return device(x);
      case study_kind::stratum_vs_gpu: return versus_gpu(x);
      case study_kind::hit_rate: return hit_rate(x);
      case study_kind::logic_budget: return logic_budget(x);
      case study_kind::hcrmap_budget: return hcrmap_budget(x);
      case study_kind::hcrmap_pressure: return hcrmap_pressure(x);
      case study_kind::optimise: break;
    }
    throw config_error("study", "[strata.scenario] study 'optimise' has no sweep points (run_optimise_study)");
  }

  [[nodiscard]] double at(const design_point& x, int axis, double fallback) const {
    return axis >= 0 ? x[static_cast<std::size_t>(axis)] : fallback;
  }
  [[nodiscard]] stratum_usage usage_of(double h) const { return workload_usage(model_, h); }
  [[nodiscard]] step_shape shape(const design_point& x) const {
    return {.mode = phase::decode, .batch = static_cast<int>(at(x, ax_batch_, sc_.workload.batch)),
            .context = static_cast<int>(at(x, ax_context_, sc_.workload.context))};
  }

  [[nodiscard]] std::vector<double> device(const design_point& x) const {
    const auto p = detail::device_point_system(sys_, static_cast<int>(at(x, ax_layers_, sys_.nmp.chip.memory.layers)),
                                               static_cast<int>(at(x, ax_tiers_, sys_.nmp.chip.memory.tiers)));
    const auto chip = evaluate(p.nmp.chip);
    const auto& mem = chip.memory;
    double sum_bw = 0.0;
    for (const auto& t : mem.tiers) sum_bw += t.internal_bandwidth.in(units::TBps);
    const double die_mm2 = chip.logic_params.die_area.in(units::mm2);
    const double h = at(x, ax_hit_, sc_.workload.hit_rate);
    const auto [chips, r] = detail::fewest_chips(p, model_, shape(x), usage_of(h));
    const double tps = chips > 0 ? r.tokens_per_s : detail::nan_value();
    return {mem.fast_slow_latency_ratio,
            mem.tiers.front().access_latency.in(units::ns),
            mem.tiers.back().access_latency.in(units::ns),
            mem.tiers.front().internal_bandwidth.in(units::TBps),
            mem.tiers.back().internal_bandwidth.in(units::TBps),
            sum_bw / double(mem.tiers.size()),
            mem.density.si() * 8.0 / double(1ULL << 30) * 1e-6,
            mem.capacity.si() / double(1ULL << 30),
            die_mm2,
            double(chips),
            tps,
            chips > 0 ? tps / (double(chips * p.stages) * die_mm2) : detail::nan_value()};
  }

  [[nodiscard]] std::vector<double> versus_gpu(const design_point& x) const {
    const auto s = shape(x);
    const auto u = ax_hit_ >= 0 ? usage_of(x[static_cast<std::size_t>(ax_hit_)]) : usage_;
    const auto r = evaluate_decode(prepared_, model_, s, u);
    const bool gpu_fits = baseline_.gpus > 0 && check_fit(gpu_, baseline_.gpus, baseline_.served, s).fits;
    const double nan = detail::nan_value();
    double g_tps = nan, g_tpj = nan;
    if (gpu_fits) {
      const auto g = evaluate(baseline_.served, s, gpu_machine_);
      g_tps = g.tokens_per_s;
      g_tpj = 1.0 / g.joules_per_token;
    }
    const double s_tps = r.feasible ? r.tokens_per_s : nan, s_tpj = r.feasible ? r.tokens_per_joule : nan;
    return {s_tps, g_tps, s_tps / g_tps, s_tpj, g_tpj, s_tpj / g_tpj, r.feasible ? 1.0 : 0.0, gpu_fits ? 1.0 : 0.0,
            double(baseline_.gpus)};
  }

  [[nodiscard]] std::vector<double> hit_rate(const design_point& x) const {
    const double h = at(x, ax_hit_, sc_.workload.hit_rate);
    const auto r = evaluate_decode(prepared_, model_, shape(x), usage_of(h));
    const int stage_layers = (model_.layers + sys_.stages - 1) / sys_.stages;
    int moe_in_stage = 0;  // MoE layers of the first (largest) stage
    for (int l = 0; l < stage_layers; ++l) moe_in_stage += model_.is_moe_layer(l) ? 1 : 0;
    const double moe_us = r.ffn_time.in(units::us);
    const double nan = detail::nan_value();
    const bool ok = r.feasible;
    return {ok && moe_in_stage > 0 ? moe_us / moe_in_stage : nan,
            ok ? moe_us : nan,
            ok ? r.time.in(units::us) : nan,
            ok ? r.tokens_per_s : nan,
            ok ? r.tokens_per_joule : nan,
            r.hot_hit_rate,
            ok ? 1.0 : 0.0};
  }

  [[nodiscard]] std::vector<double> logic_budget(const design_point& x) const {
    auto p = logic_;
    p.f_logic = units::GHz(at(x, ax_f_, p.f_logic.in(units::GHz)));
    const double n = at(x, ax_macs_, double(p.n_mac));
    const auto r = evaluate_numbers(p, bw_fast_, n);
    const bool power_ok = r.power_slack.si() >= 0.0, area_ok = r.area_slack.si() >= 0.0;
    return {r.p_logic.in(units::W),
            r.power_slack.in(units::W),
            r.a_active.in(units::mm2),
            r.a_processor_budget.in(units::mm2),
            r.area_slack.in(units::mm2),
            r.a_pd.in(units::mm2),
            r.peak_throughput.si() * 1e-12,
            power_ok ? 1.0 : 0.0,
            area_ok ? 1.0 : 0.0,
            power_ok && area_ok ? 1.0 : 0.0};
  }

  void prepare_hcrmap() {
    const auto& h = sc_.hcrmap;
    xp_.windows = h.windows;
    xp_.max_layers = h.max_layers;
    xp_.trace_reuse = h.trace_reuse;
    xp_.scale_out.residency.kv = h.kv;
    // The study's expert routes, before its trace or first experiment (the reader checks them too).
    const bool budget = sc_.study == study_kind::hcrmap_budget;
    detail::require_routes(budget ? static_cast<std::int64_t>(space_.size()) : 1, model_, h.mode,
                           static_cast<std::int64_t>(scenario_hcrmap_policies().size()), xp_, "strata.scenario",
                           budget ? "sweep.axes" : "hcrmap.windows");
    if (!h.trace.empty() && !in_.trace) {
      throw config_error("hcrmap.trace", "[strata.scenario] hcrmap.trace " + h.trace + " is named but not loaded (scenario_inputs::trace)");
    }
    trace_note_ = in_.trace ? "trace " + h.trace : "synthetic trace (fitted generator)";
    if (in_.trace) {
      trace_ = std::move(*in_.trace);  // held once: the model keeps `trace_`, not the input's copy
      in_.trace.reset();
    } else {
      trace_ = hcrmap_trace(model_);
    }
    require_trace_of_model(trace_, model_, h.trace.empty() ? "the synthetic trace of " + model_.name : "hcrmap.trace " + h.trace, "hcrmap.trace");
    if (sc_.study == study_kind::hcrmap_pressure) {
      const substrate_params sp;
      const auto r = run_residency_point(sp, model_, trace_, h.mode, residency_point{}, scenario_hcrmap_policies(), xp_,
                                         in_.value.score, trace_note_);
      const auto pol = scenario_hcrmap_policies();
      grids_.reserve(pol.size());
      for (policy_kind k : pol) grids_.push_back(compute_pressure_grid(r, k, sp));
    }
  }

  [[nodiscard]] std::vector<double> hcrmap_budget(const design_point& x) const {
    residency_point p;
    p.budget_factor = at(x, ax_budget_, p.budget_factor);
    p.sram_scale = at(x, ax_sram_, p.sram_scale);
    p.hbm_scale = at(x, ax_hbm_, p.hbm_scale);
    const auto pol = scenario_hcrmap_policies();
    experiment_params xp = xp_;
    xp.context = static_cast<int>(at(x, ax_context_, xp.context));
    const auto r = run_residency_point({}, model_, trace_, sc_.hcrmap.mode, p, pol, xp, in_.value.score, trace_note_);
    std::vector<double> out;
    out.reserve(pol.size() + 9);
    for (policy_kind k : pol) out.push_back(r.normalised(k));
    const auto& st = r.of(policy_kind::single_copy_static);
    const auto& hc = r.of(policy_kind::hcrmap);
    out.push_back(st.latency_s * 1e6);
    out.push_back(hc.latency_s * 1e6);
    out.push_back(st.edp > 0.0 ? hc.edp / st.edp : detail::nan_value());
    out.push_back(double(r.packages));
    out.push_back(double(r.of(policy_kind::fixed_replication).replicas));
    out.push_back(double(hc.replicas));
    out.push_back(st.moe_s * 1e6);
    out.push_back(hc.moe_s * 1e6);
    out.push_back(r.non_routed_s * 1e6);
    return out;
  }

  [[nodiscard]] std::vector<double> hcrmap_pressure(const design_point& x) const {
    const auto& g = grids_.front();
    const auto cx = static_cast<std::size_t>(at(x, ax_x_, 0.0));
    const auto cy = static_cast<std::size_t>(at(x, ax_y_, 0.0));
    const std::size_t c = cy * static_cast<std::size_t>(g.mesh_x) + cx;
    std::vector<double> out;
    out.reserve(grids_.size() + 2);
    for (const auto& k : grids_) out.push_back(k.pressure.at(c));
    out.push_back(grids_.front().busy_s.at(c) * 1e6);
    out.push_back(grids_.back().busy_s.at(c) * 1e6);
    return out;
  }

  scenario sc_;
  sweep_space space_;
  stratum_system_params<> sys_;
  model model_;
  scenario_inputs in_{};
  routing_trace trace_{};
  std::string trace_note_;
  experiment_params xp_{};
  std::vector<pressure_grid> grids_;  ///< hcrmap_pressure: one per policy of `scenario_hcrmap_policies()`
  stratum_usage usage_{};
  stratum_machine<> prepared_{};
  gpu_params gpu_{};
  gpu_baseline baseline_{};
  roofline_machine gpu_machine_{};
  logic_die_params<> logic_{};
  strata::bandwidth<double> bw_fast_{};
  int ax_layers_ = -1, ax_tiers_ = -1, ax_batch_ = -1, ax_context_ = -1, ax_hit_ = -1, ax_macs_ = -1, ax_f_ = -1;
  int ax_budget_ = -1, ax_sram_ = -1, ax_hbm_ = -1, ax_x_ = -1, ax_y_ = -1;
};

/// The optimise study: the optimum and the system's own design, and the whole result.
struct optimise_study {
  design_optimum optimum{};
  std::vector<std::vector<double>> rows;  ///< {optimum, baseline}, columns `optimise_columns()`
};

/// Runs the optimise study of `s` (Eq. 1–3 budgets, `optimise_design`) on `threads` threads.
inline optimise_study run_optimise_study(const scenario& s, unsigned threads = 0) {
  const auto sys = stratum_system(s.system);
  const auto m = preset(s.model);
  const auto& o = s.optimise;
  design_domain d;
  if (o.macs_step > 0) d.macs = mac_grid(sys, o.macs_first, o.macs_last, o.macs_step);
  d.pes_per_pu = o.pes_per_pu;
  d.tiers = o.tiers;
  d.layers = o.layers;
  d.f_min_hz = o.f_min_GHz * 1e9;
  d.f_max_hz = o.f_max_GHz * 1e9;
  const step_shape shape{.mode = phase::decode, .batch = s.workload.batch, .context = s.workload.context};
  optimise_study out;
  out.optimum = optimise_design(sys, m, shape, workload_usage(m, s.workload.hit_rate), d, o.objective,
                                {.threads = threads});
  const auto row = [&](const design_evaluation& e, bool best) {
    const auto& c = e.choice;
    const auto& r = out.optimum;
    const double nan = detail::nan_value();
    return std::vector<double>{double(c.macs), double(c.pes_per_pu), double(c.tiers), double(c.layers), c.f_hz * 1e-9,
                               e.feasible ? 1.0 : 0.0, e.feasible ? e.objective : nan, e.p_logic_W, e.power_slack_W,
                               e.area_slack_mm2, best ? (r.power_binding ? 1.0 : 0.0) : nan,
                               best ? (r.area_binding ? 1.0 : 0.0) : nan, best ? r.power_price : nan,
                               best ? r.area_price : nan, best ? 1.0 : r.baseline_ratio};
  };
  out.rows = {row(out.optimum.best, true), row(out.optimum.baseline, false)};
  return out;
}

}  // namespace v0
}  // namespace strata
