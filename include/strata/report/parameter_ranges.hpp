// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Cited plausible ranges of the parameters the paper report's rows depend on, beside their cited
/// defaults: what the gap explainer (`report/explain.hpp`) measures a needed change in.
///
/// A range is keyed by the parameter's dotted path, qualified by its struct
/// (`gpu_params.op_overhead`, `stratum_system_params.xpu_wait_power_fraction`: the sensitivity
/// machinery's path, `core/sensitivity.hpp`, behind the struct's name). A nested struct reads the
/// ranges of its own type (`stratum_system_params.xpu.*` are `gpu_params.*`, `gpu_knobs.*` the
/// same knobs of `gpu_params`). Each range is either
/// - `relative`: factors [lo, hi] on the cited default (a datasheet's spread or the spread of
///   published measurements around the value the default cites), or
/// - `absolute`: SI bounds [lo, hi] (a physical range: an efficiency in (0, 1]),
///
/// with the citation it comes from. A parameter with no entry has "no range stated": one decade
/// each way of its cited default, [c/10, 10·c].
///
/// Units of range. A change from the cited c to x measures |ln(x/c)| / ln(hi/lo) ranges when
/// lo > 0 (log space: a factor of hi/lo is one range), |x − c| / (hi − lo) when lo = 0 (linear: a
/// range starting at 0, such as a fraction cited at 0). A parameter cited at 0 with no stated
/// range has no scale and is left out of the explainer.
///
/// `parameter_range_table_markdown()` prints every real parameter of the report's parameter
/// structs with its default and its range: the table of docs/paper_report.md ("Parameter
/// ranges"), which a test keeps equal to it.

#include <cmath>    // std::log, std::abs, std::isfinite
#include <string>   // std::string
#include <utility>  // std::move
#include <vector>   // std::vector

#include "strata/baseline/gpu.hpp"
#include "strata/baseline/validation.hpp"
#include "strata/chiplet/layer_model.hpp"
#include "strata/chiplet/scale_out.hpp"
#include "strata/chiplet/substrate.hpp"
#include "strata/core/error.hpp"
#include "strata/core/sensitivity.hpp"
#include "strata/report/paper_io.hpp"
#include "strata/stratum/system.hpp"
#include "strata/thermal/stratum_stack.hpp"

namespace strata {
inline namespace v0 {

/// How a range's bounds read.
enum class range_scale {
  relative,  ///< factors on the cited default
  absolute   ///< SI values
};

/// One cited range.
struct parameter_range {
  std::string key;      ///< struct-qualified dotted path: "gpu_params.op_overhead"
  range_scale scale = range_scale::relative;
  double lo = 1.0;      ///< lower bound (factor or SI)
  double hi = 1.0;      ///< upper bound (factor or SI)
  std::string source;   ///< where the range comes from
};

/// A parameter's range at its cited value: SI bounds and whether a source states it.
struct resolved_range {
  double lo = 0.0, hi = 0.0;  ///< SI bounds
  bool stated = false;        ///< false: "no range stated", one decade each way
  std::string source;         ///< the citation, or "no range stated (one decade each way)"

  /// Has a scale (a parameter cited at 0 with no stated range has none).
  template <class = void>
  [[nodiscard]] bool usable() const { return std::isfinite(lo) && std::isfinite(hi) && hi > lo && lo >= 0.0; }
  /// Log space (lo > 0) or linear (lo = 0).
  template <class = void>
  [[nodiscard]] bool logarithmic() const { return lo > 0.0; }
  /// The change from `cited` to `x` in units of this range (file comment).
  template <class = void>
  [[nodiscard]] double units(double cited, double x) const {
    return logarithmic() ? std::abs(std::log(x / cited)) / std::log(hi / lo) : std::abs(x - cited) / (hi - lo);
  }
  /// The value `t` ranges from `cited` in direction `dir` (+1 up, −1 down); negative results
  /// (linear ranges) are returned as they are, for the caller to refuse.
  template <class = void>
  [[nodiscard]] double at(double cited, double t, int dir) const {
    return logarithmic() ? cited * std::exp(dir * t * std::log(hi / lo)) : cited + dir * t * (hi - lo);
  }
};

/// The ranges the sources state (file comment). Keys are struct-qualified dotted paths.
template <class = void>
inline const std::vector<parameter_range>& parameter_ranges() {
  static const std::vector<parameter_range> table{
      {"gpu_params.memory_bandwidth", range_scale::relative, 3.0 / 3.35, 1.0,
       "baseline/gpu.hpp [facts]: the H100 SXM5's 3.35 TB/s, some pages say 3.0 TB/s (-10 %; that spread for every card)"},
      {"gpu_params.static_power", range_scale::relative, 1.0, 145.0 / 140.0,
       "gpu-burn issue 114: H100 SXM5 in P0 holding a model, 140 W and 145 W (+3.6 %; that spread for every card)"},
      {"gpu_params.compute_efficiency", range_scale::absolute, 0.1, 1.0,
       "baseline/validation.hpp knob_bounds: the physical range of an efficiency (above 0.1, far below any tuned kernel)"},
      {"gpu_params.memory_efficiency", range_scale::absolute, 0.2, 1.0,
       "baseline/validation.hpp knob_bounds: the physical range of an efficiency (above 0.2, far below any tuned kernel)"},
      {"gpu_params.op_overhead", range_scale::absolute, 0.0, 60e-6,
       "baseline/validation.hpp knob_bounds: 0 up to an eager-mode launch with its Python dispatch (tens of us)"},
      {"gpu_params.link_bandwidth", range_scale::relative, 380.0 / 450.0, 1.0,
       "NVIDIA/nccl issue 1264: 380 GB/s measured of NVLink 4's 450 GB/s per direction (-16 %; that spread for every card)"},
      {"gpu_params.usable_memory_fraction", range_scale::absolute, 0.0, 1.0,
       "vLLM engine arguments: --gpu-memory-utilization in (0, 1]"},
      {"stratum_system_params.xpu_wait_power_fraction", range_scale::absolute, 0.0, 1.0,
       "stratum/system.hpp: 0 the die at its static power, 1 at its TDP (the upper bound); Stratum §6.3 states nothing"},
      {"stratum_stack_params.coolant_K", range_scale::absolute, 290.15, 318.15,
       "ASHRAE TC 9.9 liquid-cooling classes W17 to W45: facility water supplied at up to 17 to 45 degC"},
      {"stratum_stack_params.dram_limit_C", range_scale::absolute, 85.0, 95.0,
       "JESD79-5 DDR5: normal temperature range up to 85 degC, extended up to 95 degC"},
  };
  return table;
}

/// Struct prefixes that read another struct's ranges: a nested `gpu_params` and the fitted knobs.
template <class = void>
inline const std::vector<std::pair<std::string, std::string>>& parameter_range_aliases() {
  static const std::vector<std::pair<std::string, std::string>> aliases{
      {"stratum_system_params.xpu.", "gpu_params."},
      {"stratum_system_params.hbm.xpu.", "gpu_params."},
      {"gpu_knobs.", "gpu_params."},
  };
  return aliases;
}

/// The range of parameter `key` (struct-qualified path) cited at `cited` (SI): the stated one
/// (through the aliases), else one decade each way.
template <class = void>
inline resolved_range range_of(const std::string& key, double cited) {
  std::vector<std::string> keys{key};
  for (const auto& [from, to] : parameter_range_aliases()) {
    if (key.compare(0, from.size(), from) == 0) keys.push_back(to + key.substr(from.size()));
  }
  for (const auto& k : keys) {
    for (const auto& r : parameter_ranges()) {
      if (r.key != k) continue;
      resolved_range out;
      out.stated = true;
      out.source = r.source;
      if (r.scale == range_scale::relative) {
        out.lo = r.lo * cited;
        out.hi = r.hi * cited;
      } else {
        out.lo = r.lo;
        out.hi = r.hi;
      }
      if (out.hi <= out.lo) {  // a relative range of a parameter cited at 0: no scale
        out.lo = out.hi = 0.0;
      }
      return out;
    }
  }
  resolved_range out;
  out.source = "no range stated (one decade each way)";
  out.lo = cited / 10.0;
  out.hi = cited * 10.0;
  if (!(cited > 0.0)) out.lo = out.hi = 0.0;
  return out;
}

namespace detail {
/// Table rows of one struct: every real field (`visit_fields`, as the sensitivity machinery
/// collects them), its default and its range.
template <class P>
void range_table_rows(std::string& out, const std::string& type, const P& defaults, const std::string& skip_prefix = {}) {
  P copy = defaults;
  std::vector<sens_leaf<double>> leaves;
  collect_leaves<double>(copy, std::string(), leaves);
  for (const auto& l : leaves) {
    if (!skip_prefix.empty() && l.path.compare(0, skip_prefix.size(), skip_prefix) == 0) continue;
    const std::string key = type + "." + l.path;
    const auto r = range_of(key, l.value);
    out += "| " + key + " | " + report_number(l.value) + " | ";
    out += r.usable() ? report_number(r.lo) + " .. " + report_number(r.hi) : std::string("none (cited 0)");
    out += " | " + r.source + " |\n";
  }
}
}  // namespace detail

/// The markdown table of every real parameter of the report's parameter structs (a default
/// `gpu_params`: the H100 SXM5; `gpu_knobs`; a default `stratum_system_params`: Stratum-L; the
/// Stratum stack's thermal parameters, `thermal::stratum_stack_params`, without its chip, whose
/// fields are the system's `nmp.chip`; the HCRMap substrate, critical path and package plan,
/// `substrate_params`, `critical_path_params`, `scale_out_params`) with its default and range, SI
/// units (file comment).
template <class = void>
inline std::string parameter_range_table_markdown() {
  std::string out = "| parameter | default (SI) | range (SI) | range source |\n| --- | ---: | --- | --- |\n";
  detail::range_table_rows(out, "gpu_params", gpu_params{});
  detail::range_table_rows(out, "gpu_knobs", gpu_knobs{});
  detail::range_table_rows(out, "stratum_system_params", stratum_system_params<>{});
  detail::range_table_rows(out, "stratum_stack_params", thermal::stratum_stack_params{}, "chip.");
  detail::range_table_rows(out, "substrate_params", substrate_params{});
  detail::range_table_rows(out, "critical_path_params", critical_path_params{});
  detail::range_table_rows(out, "scale_out_params", scale_out_params{});
  return out;
}

}  // namespace v0
}  // namespace strata
