// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The gap explainer: for a judged row of the paper report that misses its band, what would one
/// have to believe to get the paper's number? Per row: the elasticity of the row to every real
/// parameter it depends on, the value each parameter alone would need for the row to come into
/// tolerance (solved on the re-evaluated row, not linearised), that change in units of the
/// parameter's cited range (`report/parameter_ranges.hpp`), and whether the row, re-evaluated
/// with that change alone, then passes (`closes`). Rows that no single parameter closes within
/// ten ranges get pairs. Per family of rows (rows one evaluator computes), the smallest set of
/// changes that closes the most rows, verified together, with the family's other judged rows it
/// breaks.
///
/// How a row is re-evaluated. An `explain_group` holds copies of the parameter structs its rows
/// are built from and an evaluator that re-runs the rows' own builders on them
/// (`compare_with_gpu`, `accurate_vs_uniform_step`, `serving_validation_rows`,
/// `model_measurement`: no second implementation of a row); `explain_groups()` builds one per
/// family of the report's out-of-tolerance rows (`report/explain_groups.hpp`). The parameters are
/// the real fields of those structs reached through `visit_fields` (the sensitivity machinery's
/// dotted paths, `core/sensitivity.hpp`); integer, boolean and enum fields are left out (a step of
/// a count or a switch of a mode is no "change in units of a range": sweep them).
///
/// How. Elasticities ∂ln y/∂ln p by central differences of the re-evaluated row
/// (`explain_options::relative_step`; one-sided where the model refuses a side). The builders run
/// in `double` (the GPU model, the serving simulator, the GPU comparison are not templates on the
/// scalar), so the autodiff of `elasticities` does not reach them; the differences are the
/// machinery's `finite_difference_elasticities` scheme. Then, for the `top_k` parameters by
/// |elasticity|, a walk from the cited value in the direction the elasticity says closes the gap
/// (then the other) over a grid of {1/20, 1/10, 1/4, 1/2, 1, 2, 4, 7, 10} ranges, and at the first
/// grid point where the row passes, a root solve of the row's margin to its band between that
/// point and the one before: TOMS 748 (`detail::solve_bracketed`) to a relative bracket of
/// `rel_tol`; in a costly group (a simulation a run) the Illinois method
/// (`detail::explain_edge_solve`), which stops at the first passing point within
/// `edge_tol_costly` of the band's edge (or at the bracket of `rel_tol_costly`), about half the
/// runs. A value the model refuses (`config_error`) or that gives a non-finite row ends the walk.
/// The solved value is re-evaluated alone: `closes`.
///
/// What runs (`explain_counts` counts it by phase). Every point (a set of parameter changes) is
/// run once per group: the rows' elasticities, walks and solves and the family line share one
/// memo (`detail::explain_runner`), a change to a parameter's cited value is no change, and a row
/// no change of a point feeds (`explain_parameter::feeds`, or a parameter the evaluator does not
/// read, `explain_parameter::read`) is its cited value, not re-run. A costly group runs, for a
/// row, the part of its rows one run gives (`explain_group::parts`: one vLLM run's rows; every row
/// when no part is stated), not every row. None of this moves a number: the same points, the same
/// builders.
///
/// Limits (stated, not hidden): a row that passes through its band between two grid points of a
/// walk is missed; the walk goes at most ten ranges each way; a parameter cited at 0 with no stated
/// range has no scale and is left out.

#include <algorithm>   // std::sort, std::find
#include <array>       // std::array
#include <bit>         // std::bit_cast
#include <cstdint>     // std::uint64_t
#include <cmath>       // std::abs, std::isfinite
#include <cstddef>     // std::size_t
#include <functional>  // std::function
#include <limits>      // std::numeric_limits
#include <map>         // std::map
#include <memory>      // std::shared_ptr
#include <optional>    // std::optional
#include <stdexcept>   // std::logic_error
#include <string>      // std::string
#include <utility>     // std::move, std::pair, std::forward
#include <vector>      // std::vector

#include "strata/core/error.hpp"
#include "strata/core/sensitivity.hpp"
#include "strata/core/solve.hpp"
#include "strata/hcrmap/scorer.hpp"
#include "strata/report/paper_io.hpp"
#include "strata/report/paper_row.hpp"
#include "strata/report/parameter_ranges.hpp"
#include "strata/workload/model.hpp"

namespace strata {
inline namespace v0 {

class hcrmap_trace_cache;  // report/hcrmap_rows.hpp

/// One real parameter of a group: its name, its range key and how to set it in the group's state.
struct explain_parameter {
  std::string name;        ///< "stratum-s.xpu.op_overhead": the group's name for the struct, then the field path
  std::string range_key;   ///< "stratum_system_params.xpu.op_overhead" (`range_of`)
  double cited = 0.0;      ///< the default (SI)
  std::function<void(double)> set;  ///< writes the value into the group's state
  std::vector<std::string> feeds;   ///< the row ids it can move (empty: every row of the group)
  /// False: the group's evaluator does not read it at all (registered so, e.g. the link of a run on
  /// one GPU): its elasticity is 0 without a run, and a point changing it is the point without it.
  bool read = true;
};

/// One discrete parameter of a group (an enum or a switch): its allowed values, which the
/// explainer scans (a change of a mode has no elasticity and no range: each allowed value is tried
/// alone and the row re-evaluated; a switch counts one range, `gap_entry::range_units`).
struct explain_choice {
  std::string name;                  ///< "hcrmap.critical_path.arbitration"
  std::vector<std::string> values;   ///< the allowed values by name ("per_class", "shared")
  std::size_t cited = 0;             ///< index of the default in `values`
  std::function<void(std::size_t)> set;  ///< writes value `values[i]` into the group's state
  std::vector<std::string> feeds;    ///< the row ids it can move (empty: every row of the group)
  std::string source;                ///< where the default and the values come from
};

/// Rows computed by one evaluator from parameter structs (file comment).
struct explain_group {
  std::string family;                       ///< "stratum results: decode speedup and energy", ...
  std::vector<explain_parameter> parameters;
  std::vector<explain_choice> choices;      ///< discrete parameters, scanned (`explain_choice`)
  std::vector<std::string> row_ids;         ///< every judged row the evaluator computes (failing and passing)
  /// The values of rows `ids` at the current state (the rows' own builders re-run).
  std::function<std::vector<double>(const std::vector<std::string>& ids)> evaluate;
  std::string left_out;                     ///< which fields are not parameters, and why
  /// One run of the evaluator computes every row of the group at about the cost of one (a
  /// simulation): the explainer then asks for all rows at each point, solves fewer parameters
  /// (`explain_options::top_k_costly`), differentiates one-sided and solves to `rel_tol_costly`.
  bool costly = false;
  /// Of a costly group: the rows one run of the evaluator gives together (the rows of one
  /// simulated vLLM run; the rows pooled over every run are a part of all rows). A point asked for
  /// some rows runs, for each, the smallest part that holds it, each part whole (a row of one vLLM
  /// run its run, not the part of all rows that also holds it); empty: one part, every row.
  std::vector<std::vector<std::string>> parts;
};

/// A row the explainer does not explain, and why.
struct unexplained_row {
  std::string id;
  std::string reason;
};

/// One parameter's elasticity to a row.
struct explain_elasticity {
  std::string parameter;
  double value = 0.0;       ///< cited (SI)
  double elasticity = 0.0;  ///< ∂ln y/∂ln p
  difference_scheme scheme = difference_scheme::none;
};

/// One parameter's change that brings a row into tolerance (file comment).
struct gap_entry {
  std::string parameter;
  double cited = 0.0;
  std::optional<double> needed;  ///< none: no value within ten ranges either way
  std::optional<double> relative_change;  ///< needed / cited − 1 (none when cited is 0 or nothing is needed)
  double range_units = std::numeric_limits<double>::infinity();  ///< the change in units of the range
  bool closes = false;           ///< the row re-evaluated with `needed` alone passes
  std::string range;             ///< the range's source
  /// A discrete parameter (`explain_choice`): the cited and the needed value by name (`cited` and
  /// `needed` are then their indices in the allowed values, `range_units` 1 for a switch).
  std::optional<std::string> cited_choice, needed_choice;
};

/// Two parameters moved together, each by `range_units` ranges in the direction it closes the gap;
/// or two discrete parameters switched together (`cited_choice`, `needed_choice` set: `cited` and
/// `needed` are then their values' indices, and a switch counts one range, `range_units` 1).
struct gap_pair {
  std::array<std::string, 2> parameters;
  std::array<double, 2> cited{}, needed{};
  double range_units = std::numeric_limits<double>::infinity();
  bool closes = false;
  std::array<std::optional<std::string>, 2> cited_choice, needed_choice;  ///< discrete: the values by name
};

/// A row's explanation.
struct row_explanation {
  std::string id;
  std::string family;
  double value = 0.0;
  std::optional<double> paper;
  std::string rule;
  double tolerance = 0.0;
  std::string derivation;                      ///< the row's known disagreement (hand-written)
  std::vector<explain_elasticity> elasticities;  ///< non-zero ones, largest |ε| first
  std::size_t zero_elasticities = 0;           ///< parameters that do not move the row
  std::vector<gap_entry> gap;                  ///< by range units (not closing last)
  bool closed_by_one = false;                  ///< some single change closes the row
  std::vector<gap_pair> pairs;                 ///< when no single change does: pairs that close it
  /// When no single change and no pair of real parameters closes it: the combinations of two
  /// discrete parameters' values tried (`explain_options::switch_pairs`; the closing ones are in `pairs`).
  std::size_t switch_pairs_tried = 0;
  std::string left_out;
  /// What the explainer found, in one sentence: the cheapest single change that closes the row; or
  /// that no single change within ten ranges does, and the cheapest closing pair; or that no pair of
  /// the most elastic parameters does either; or that no parameter moves the row.
  std::string verdict;
};

/// One change of a family line.
struct family_change {
  std::string parameter;
  double cited = 0.0, needed = 0.0, range_units = 0.0;
  std::optional<std::string> cited_choice, needed_choice;  ///< a discrete parameter's values by name
};

/// A family line: the smallest set of changes closing the most failing rows of a group, verified
/// together, with the group's passing rows it breaks.
struct family_line {
  std::string family;
  std::vector<family_change> changes;
  std::vector<std::string> closes, still_failing, breaks;
  std::size_t failing = 0;  ///< failing rows of the group
};

/// Row-builder runs of an explanation by what asked for them (`explanation::counts`): the
/// elasticities' differences, the walks over the range grid, the root solves between two grid
/// points (with the run that checks the solved point passes), the scans of discrete parameters,
/// the pairs' walks and solves, and the family lines' verifications. `solves` counts the root
/// solves (one per bracketed walk), so `solve / solves` is the runs per solve.
struct explain_counts {
  std::size_t elasticity = 0, walk = 0, solve = 0, scan = 0, pairs = 0, family = 0;
  std::size_t solves = 0;  ///< root solves run (single parameters and pairs)
  /// Every run (the sum of the phases): `explanation::evaluations`.
  [[nodiscard]] std::size_t total() const { return elasticity + walk + solve + scan + pairs + family; }
  explain_counts& operator+=(const explain_counts& o) {
    elasticity += o.elasticity;
    walk += o.walk;
    solve += o.solve;
    scan += o.scan;
    pairs += o.pairs;
    family += o.family;
    solves += o.solves;
    return *this;
  }
};

/// Everything the explainer says about a set of rows.
struct explanation {
  std::vector<row_explanation> rows;
  std::vector<family_line> families;
  std::vector<unexplained_row> unexplained;
  std::size_t evaluations = 0;  ///< row-builder runs
  explain_counts counts;        ///< the runs by phase (`explain_counts`; `counts.total()` is `evaluations`)
};

/// Numerics of the explainer.
struct explain_options {
  double relative_step = 1e-4;  ///< of the central differences
  std::size_t top_k = 8;        ///< parameters solved per row, by |elasticity|
  std::size_t pair_k = 5;       ///< parameters paired when no single one closes a row
  double max_ranges = 10.0;     ///< how far a walk goes
  double rel_tol = 1e-6;        ///< of the root solve (relative width of the final bracket)
  std::size_t top_k_costly = 3; ///< `top_k` of a costly group (`explain_group::costly`)
  std::size_t pair_k_costly = 3;  ///< `pair_k` of a costly group
  /// When no single change and no pair of real parameters closes a row: try every combination of
  /// two of its discrete parameters' values (each switch one range, as alone), the first that
  /// closes kept per pair of parameters (`row_explanation::switch_pairs_tried`).
  bool switch_pairs = true;
  double rel_tol_costly = 1e-4;   ///< `rel_tol` of a costly group
  /// Of a costly group's root solve (Illinois, `detail::explain_edge_solve`): it stops at the first
  /// point that passes with a margin to its band's edge of at most this (the margin in units of
  /// the paper's value: a row of value v and band edge e stops within 10^-4·|paper| of e inside
  /// the band), or at the bracket of `rel_tol_costly`, whichever comes first.
  double edge_tol_costly = 1e-4;
  /// `edge_tol_costly` as the walk reads it: 0 (a cheap group) solves with TOMS 748 to `rel_tol`,
  /// > 0 with the Illinois method to this margin (`explain_group_rows` sets it for a costly group).
  double edge_tol = 0.0;
  bool families = true;         ///< compute family lines
  /// Threads over which `explain_report` spreads its families (0: the machine's hardware
  /// threads). Each family runs on one thread with its own state; the explanation is the same for
  /// every count.
  unsigned threads = 1;
  /// The `config.json` fixtures' directory and reader (`load_hf_config`) of the campaign runs that
  /// need one (`explain_families`), as `paper_report_options::hf_dir` and `read_config`.
  std::optional<std::string> hf_dir;
  std::function<model(const std::string& path)> read_config;
  /// The inputs of the report's HCRMap rows (`paper_report_options::dsv2lite_trace` and
  /// `hcrmap_value`: the real DeepSeek-V2-Lite trace and the controller's value function), which
  /// the families that rerun the HCRMap experiments need to reproduce those rows
  /// (`explain_families`).
  std::optional<std::string> dsv2lite_trace;
  controller_value hcrmap_value;
  /// The HCRMap suite's traces (`hcrmap_trace_cache`, report/hcrmap_rows.hpp), shared with the
  /// report that computed the rows (`paper_report_options::hcrmap_traces`): the families that
  /// rerun the HCRMap experiments read their traces from it, building only those it does not hold
  /// yet. Empty (the default): each family builds its own. The explanation is the same either way.
  std::shared_ptr<hcrmap_trace_cache> hcrmap_traces;
  /// Whether `explain_report` re-evaluates the `hcrmap hydra premise` family
  /// (`report/explain_groups.hpp`: `hcrmap.premise.hydra_*`, each point the suite's 16
  /// experiments with two policies, about 0.5 s of CPU with their windows kept; a run for each
  /// parameter's difference and each point of its walks: about half a minute of CPU, far over the
  /// report's time budget; docs/paper_report.md). False (the default, as `strata-paper-report
  /// --explain` runs without `--explain-all`): its rows are listed as not re-evaluated, with the
  /// reason; `strata-eval explain ROW` (`explain_row`) always runs it. The `hcrmap best on every
  /// model` family (under a second) always runs.
  bool hcrmap_hydra_premise = false;
};

namespace detail {

/// Margin of a row to its band, normalised: ≥ 0 passes (the rule of `paper_row::ok`).
template <class = void>
inline double explain_margin(const paper_row& r, double v) {
  if (!std::isfinite(v) || !r.paper) return -std::numeric_limits<double>::infinity();
  const double p = *r.paper, s = p != 0.0 ? std::abs(p) : 1.0;
  switch (r.check) {
    case row_check::relative: return (r.tolerance * std::abs(p) - std::abs(v - p)) / s;
    case row_check::at_least: return (v - p) / s;
    case row_check::at_most: return (p - v) / s;
    case row_check::exact: return v == p ? 1.0 : -1.0;
    case row_check::predict: break;
  }
  return 1.0;
}

template <class = void>
inline bool explain_passes(const paper_row& r, double v) {
  paper_row c = r;
  c.value = v;
  return c.ok().value_or(true);
}

/// A group's evaluator with parameter changes applied and undone, counting runs; a point already
/// run is answered from memory (the walks of the rows of a group share their grid points).
struct explain_runner {
  /// What the runs are asked for (`explain_counts`).
  enum class phase { elasticity, walk, solve, scan, pairs, family };
  explain_group* group;
  std::size_t* evaluations;
  std::map<std::string, std::optional<double>> memo{};  // by point and row id
  explain_counts counts{};
  phase now = phase::elasticity;

  void count() {
    switch (now) {
      case phase::elasticity: ++counts.elasticity; break;
      case phase::walk: ++counts.walk; break;
      case phase::solve: ++counts.solve; break;
      case phase::scan: ++counts.scan; break;
      case phase::pairs: ++counts.pairs; break;
      case phase::family: ++counts.family; break;
    }
  }
  /// Whether change (i, v) sets parameter i to its cited value (the group's state already holds
  /// it: the change is no change, and the point is the one without it).
  [[nodiscard]] bool at_cited(std::size_t i, double v) const {
    const std::size_t n = group->parameters.size();
    const double c = i < n ? group->parameters[i].cited : static_cast<double>(group->choices[i - n].cited);
    return std::bit_cast<std::uint64_t>(v) == std::bit_cast<std::uint64_t>(c);
  }

  /// Parameter `i` set to `v`: a real parameter below `parameters.size()`, above it the choice
  /// `i - parameters.size()` set to the allowed value of index `v`.
  void apply(std::size_t i, double v) {
    const std::size_t n = group->parameters.size();
    if (i < n) {
      group->parameters[i].set(v);
    } else {
      group->choices[i - n].set(static_cast<std::size_t>(v));
    }
  }
  void undo(std::size_t i) {
    const std::size_t n = group->parameters.size();
    if (i < n) {
      group->parameters[i].set(group->parameters[i].cited);
    } else {
      group->choices[i - n].set(group->choices[i - n].cited);
    }
  }
  /// Whether parameter i (a choice above `parameters.size()`) can move row `id`.
  [[nodiscard]] bool feeds(std::size_t i, const std::string& id) const {
    const std::size_t n = group->parameters.size();
    if (i < n && !group->parameters[i].read) return false;
    const auto& f = i < n ? group->parameters[i].feeds : group->choices[i - n].feeds;
    return f.empty() || std::find(f.begin(), f.end(), id) != f.end();
  }
  /// The point's memo key: its changes that are a change (`at_cited`), so a walk's or a solve's
  /// end at zero ranges is the cited point the elasticities ran.
  std::string point_key(const std::vector<std::pair<std::size_t, double>>& changes) const {
    std::string k;
    for (const auto& [i, v] : changes) {
      if (at_cited(i, v)) continue;
      k += std::to_string(i) + "=" + std::to_string(std::bit_cast<std::uint64_t>(v)) + ";";
    }
    return k;
  }
  /// The rows a costly group's run gives with rows `ids`: every row of the smallest part
  /// (`explain_group::parts`) that holds each of them (parts may nest: a vLLM run's rows inside
  /// the part of every row the pooled rows need), in the group's order; every row when a part is
  /// not stated.
  std::vector<std::string> costly_rows(const std::vector<std::string>& ids) const {
    const auto& parts = group->parts;
    if (parts.empty()) return group->row_ids;
    std::vector<bool> take(parts.size(), false);
    for (const auto& id : ids) {
      std::optional<std::size_t> smallest;
      for (std::size_t k = 0; k < parts.size(); ++k) {
        if (std::find(parts[k].begin(), parts[k].end(), id) == parts[k].end()) continue;
        if (!smallest || parts[k].size() < parts[*smallest].size()) smallest = k;
      }
      if (!smallest) return group->row_ids;
      take[*smallest] = true;
    }
    std::vector<std::string> out;
    for (const auto& id : group->row_ids) {
      bool in = false;
      for (std::size_t k = 0; k < parts.size() && !in; ++k) {
        in = take[k] && std::find(parts[k].begin(), parts[k].end(), id) != parts[k].end();
      }
      if (in) out.push_back(id);
    }
    return out;
  }
  /// Row values with `changes` (parameter index, value) applied; nullopt when the model refuses
  /// them (`config_error`) or a value is not finite.
  std::optional<std::vector<double>> at(const std::vector<std::pair<std::size_t, double>>& changes,
                                        const std::vector<std::string>& ids) {
    const std::string key = point_key(changes);
    std::vector<std::string> missing;
    for (const auto& id : ids) {
      if (memo.find(key + id) != memo.end()) continue;
      // A row no change feeds (`explain_parameter::feeds`) is its value at the cited point.
      bool fed = false;
      for (const auto& [i, v] : changes) fed = fed || (!at_cited(i, v) && feeds(i, id));
      const auto base = fed ? memo.end() : memo.find(id);
      if (base != memo.end()) {
        memo[key + id] = base->second;
      } else {
        missing.push_back(id);
      }
    }
    if (!missing.empty()) {
      if (group->costly) missing = costly_rows(missing);
      for (const auto& [i, v] : changes) apply(i, v);
      std::optional<std::vector<double>> got;
      try {
        ++*evaluations;
        count();
        got = group->evaluate(missing);
      } catch (const config_error&) {
        got.reset();
      } catch (const solver_error&) {
        got.reset();
      }
      for (const auto& [i, v] : changes) undo(i);
      for (std::size_t k = 0; k < missing.size(); ++k) {
        memo[key + missing[k]] = got && std::isfinite((*got)[k]) ? std::optional<double>((*got)[k]) : std::nullopt;
      }
    }
    std::vector<double> out;
    for (const auto& id : ids) {
      const auto& v = memo.at(key + id);
      if (!v) return std::nullopt;
      out.push_back(*v);
    }
    return out;
  }
  std::optional<double> one(const std::vector<std::pair<std::size_t, double>>& changes, const std::string& id) {
    const auto v = at(changes, {id});
    if (!v) return std::nullopt;
    return v->front();
  }
};

/// The grid of a walk, in ranges.
template <class = void>
inline std::vector<double> explain_grid(double max_ranges) {
  std::vector<double> g;
  for (double t : {0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 7.0, 10.0}) {
    if (t < max_ranges) g.push_back(t);
  }
  g.push_back(max_ranges);
  return g;
}

/// The Illinois method (Dowell and Jarratt, "A modified regula falsi method for computing the
/// root of an equation", BIT 11 (1971) 168-174) on the margin `g(s)` over the bracket [a, b]
/// (g(a) = fa < 0 fails, g(b) = fb >= 0 passes): regula falsi, the retained end's value halved
/// when the same end is kept twice (superlinear, order about 1.44, where plain regula falsi stalls
/// on a curved margin). It returns the passing end, which it ran, once that end's margin is at
/// most `edge_tol` (the row within `edge_tol` of its band's edge), or the bracket is narrower than
/// `rel_tol`·(1 + |b|) (the walk's t, shifted by one as for TOMS 748), or after `max_iter` runs:
/// always a point that passes. A run the
/// model refuses (`g` gives a negative margin) counts as failing. Only the passing end is wanted,
/// so unlike a bracket-width stop (TOMS 748) the failing end need not come close.
template <class G>
double explain_edge_solve(G&& g, double a, double fa, double b, double fb, double rel_tol, double edge_tol,
                          std::size_t max_iter) {
  double wa = fa, wb = fb;  // the working values (halved by the Illinois rule), fa and fb the true ones
  int kept = 0;             // +1: the passing end b was replaced last, -1: the failing end a
  bool bisect = false;      // the step before moved the passing end without halving its margin
  for (std::size_t it = 0; it < max_iter; ++it) {
    if (fb <= edge_tol || std::abs(b - a) <= rel_tol * (1.0 + std::abs(b))) break;
    double x = b - wb * (b - a) / (wb - wa);
    // A secant point on or outside the bracket (a value that is not finite), or after a step that
    // brought the passing end little closer to the edge (a margin flat on the passing side, a
    // cliff to the failing one, where regula falsi creeps): bisect, the Illinois state restarted.
    if (bisect || !(x > std::min(a, b) && x < std::max(a, b))) {
      x = 0.5 * (a + b);
      wa = fa;
      wb = fb;
      kept = 0;
    }
    const double fx = g(x);
    bisect = fx >= 0.0 && fx > 0.5 * fb;
    if (fx >= 0.0) {
      b = x;
      fb = wb = fx;
      if (kept == +1) wa *= 0.5;
      kept = +1;
    } else {
      a = x;
      fa = wa = fx;
      if (kept == -1) wb *= 0.5;
      kept = -1;
    }
  }
  return b;
}

/// Walks `t` over the grid from 0 (where the row fails) in one direction; `value(t)` is the row's
/// value at t (nullopt: refused). Returns the t where the row first passes, solved between grid
/// points, and verified by one more run; nullopt when no t ≤ max passes.
///
/// A row with a two-sided band (`row_check::relative`) may jump over it between two grid points
/// (below the band at one, above at the next: a steep row, a narrow band). Then the walk bisects
/// that interval on the row's side of the paper's value until a point passes (the row continuous
/// there: at most 40 runs; a row that jumps the band at a discontinuity has no such point, and the
/// walk goes on) and solves between the last failing point and it, as between two grid points.
///
/// `solving(b)` is told whether the runs that follow are the root solve's (true) or the grid's
/// (false), which `explain_counts` counts apart.
template <class F, class S>
std::optional<double> explain_walk(const paper_row& row, F&& value, const explain_options& o, S&& solving) {
  // The root between `prev` (fails) and `t` (passes).
  const auto solve_between = [&](double prev, double t) -> double {
    // The bracket [prev, t] in t shifted by one (t + 1 > 0: the solver's tolerance is relative).
    const auto g = [&](double s) {
      const auto y = value(s - 1.0);
      return y ? explain_margin(row, *y) : -1.0;
    };
    double s = t + 1.0;
    solving(true);
    if (prev < t && o.edge_tol > 0.0) {
      // In t itself (its ends are the walk's grid points, or the cited point at t = 0: run
      // already), the bracket's width relative to 1 + t as the shifted bracket below.
      // A point passes by the row's own rule (`explain_passes`), its margin then at least 0.
      const auto margin = [&](double x) {
        const auto y = value(x);
        if (!y) return -1.0;
        const double m = explain_margin(row, *y);
        return explain_passes(row, *y) ? std::max(m, 0.0) : std::min(m, -std::numeric_limits<double>::min());
      };
      return explain_edge_solve(margin, prev, margin(prev), t, margin(t), o.rel_tol, o.edge_tol, 100);
    }
    if (prev < t) {
      solve_options so;
      so.rel_tol = o.rel_tol;
      so.max_iter = 100;
      try {
        const double mid = solve_bracketed(g, prev + 1.0, t + 1.0, so, "gap explainer");
        // The midpoint of the final bracket may sit just outside the band: take the nearest point
        // toward the passing end that passes.
        for (double step : {0.0, 2.0 * o.rel_tol, 8.0 * o.rel_tol, 64.0 * o.rel_tol}) {
          const double c = std::min(mid + step * mid, t + 1.0);
          const auto y = value(c - 1.0);
          if (y && explain_passes(row, *y)) {
            s = c;
            break;
          }
        }
      } catch (const solver_error&) {
        s = t + 1.0;
      }
    }
    return s - 1.0;
  };
  // Which side of the paper's value a failing value of a two-sided band is on (0: no side).
  const bool two_sided = row.check == row_check::relative && row.paper.has_value();
  const auto side = [&](double v) { return !two_sided || !std::isfinite(v) ? 0 : (v < *row.paper ? -1 : +1); };
  double prev = 0.0;
  int prev_side = side(row.value);
  for (double t : explain_grid(o.max_ranges)) {
    solving(false);
    const auto v = value(t);
    if (!v) return std::nullopt;
    if (explain_margin(row, *v) >= 0.0) return solve_between(prev, t);
    const int now_side = side(*v);
    if (prev_side != 0 && now_side != 0 && now_side != prev_side) {
      // Over the band between prev and t: bisect on the row's side for a point that passes.
      solving(true);
      double lo = prev, hi = t;
      for (int it = 0; it < 40; ++it) {
        const double mid = 0.5 * (lo + hi);
        const auto y = value(mid);
        if (!y) break;
        if (explain_margin(row, *y) >= 0.0) return solve_between(lo, mid);
        const int ms = side(*y);
        if (ms == 0) break;
        (ms == prev_side ? lo : hi) = mid;
      }
    }
    prev = t;
    prev_side = now_side;
  }
  return std::nullopt;
}

/// `explain_walk` without telling the grid's runs from the solve's.
template <class F>
std::optional<double> explain_walk(const paper_row& row, F&& value, const explain_options& o) {
  return explain_walk(row, std::forward<F>(value), o, [](bool) {});
}

/// A change as text: "p 4e-06 -> 8.1e-06 (0.07 ranges)" or, discrete, "p per_class -> shared".
template <class = void>
inline std::string explain_change_text(const std::string& p, double cited, double needed, double units,
                                       const std::optional<std::string>& cited_choice,
                                       const std::optional<std::string>& needed_choice) {
  if (cited_choice && needed_choice) return p + " " + *cited_choice + " -> " + *needed_choice + " (a switch)";
  return p + " " + report_number(cited) + " -> " + report_number(needed) + " (" + fixed(units, 2) + " ranges)";
}

/// A pair's two changes: "a 1 -> 2 and b 3 -> 4 (0.50 ranges each)", or of two switches
/// "a x -> y and b u -> v (a switch each)".
template <class = void>
inline std::string explain_pair_text(const gap_pair& p) {
  const bool discrete = p.cited_choice[0] && p.needed_choice[0] && p.cited_choice[1] && p.needed_choice[1];
  if (discrete) {
    return p.parameters[0] + " " + *p.cited_choice[0] + " -> " + *p.needed_choice[0] + " and " + p.parameters[1] + " " +
           *p.cited_choice[1] + " -> " + *p.needed_choice[1] + " (a switch each)";
  }
  return p.parameters[0] + " " + report_number(p.cited[0]) + " -> " + report_number(p.needed[0]) + " and " +
         p.parameters[1] + " " + report_number(p.cited[1]) + " -> " + report_number(p.needed[1]) + " (" +
         fixed(p.range_units, 2) + " ranges each)";
}

/// The verdict of a row's explanation (`row_explanation::verdict`).
template <class = void>
inline std::string explain_verdict(const row_explanation& x, const explain_options& o) {
  if (x.closed_by_one) {
    const auto& e = x.gap.front();
    return "closed by one change: " +
           explain_change_text(e.parameter, e.cited, *e.needed, e.range_units, e.cited_choice, e.needed_choice);
  }
  const std::string within = "within " + fixed(o.max_ranges, 0) + " ranges";
  if (x.elasticities.empty() && x.gap.empty()) {
    return "no parameter the explainer varies moves the row (every elasticity is 0 and no discrete parameter is "
           "registered for it): no single change or pair closes it " + within;
  }
  const std::string tried = std::to_string(x.switch_pairs_tried) + " combination" +
                            (x.switch_pairs_tried == 1 ? "" : "s") + " of two switches tried";
  if (x.elasticities.empty()) {  // only discrete parameters (scanned), then their pairs
    const std::string head = "no single switch of its " + std::to_string(x.gap.size()) +
                             " discrete parameters closes it (each allowed value tried alone)";
    for (const auto& p : x.pairs) {
      if (p.closes) return head + "; the pair " + explain_pair_text(p) + " does";
    }
    return head + (x.switch_pairs_tried > 0 ? ", nor any pair of them (" + tried + ")" : std::string());
  }
  for (const auto& p : x.pairs) {
    if (!p.closes) continue;
    return "no single change closes it " + within + "; the pair " + explain_pair_text(p) + " does";
  }
  return "no single change closes it " + within + " (of the " + std::to_string(x.gap.size()) +
         " solved), nor any pair of its most elastic parameters" +
         (x.switch_pairs_tried > 0 ? " or of its switches (" + tried + ")" : std::string());
}

}  // namespace detail

/// `explain_group_rows` on the runner `run` (its memo of points already run, its counts), which
/// `explain_family` then shares: the family line's verifications of single changes are the points
/// the rows' `closes` ran.
template <class = void>
inline std::vector<row_explanation> explain_group_rows(explain_group& g, const std::vector<paper_row>& report,
                                                       const std::vector<std::string>& ids, const explain_options& options,
                                                       detail::explain_runner& run) {
  const auto find = [&](const std::string& id) -> const paper_row& {
    for (const auto& r : report) {
      if (r.id == id) return r;
    }
    throw config_error("id", "[strata.explain] no report row " + id);
  };
  explain_options o = options;
  if (g.costly) {
    o.top_k = std::min(o.top_k, o.top_k_costly);
    o.pair_k = std::min(o.pair_k, o.pair_k_costly);
    o.rel_tol = std::max(o.rel_tol, o.rel_tol_costly);
    o.edge_tol = o.edge_tol_costly;
  }
  using phase = detail::explain_runner::phase;
  run.now = phase::elasticity;
  const auto base = run.at({}, ids);
  if (!base) throw std::logic_error("[strata.explain] the evaluator of " + g.family + " fails at the defaults");
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const double want = find(ids[i]).value;
    if (std::abs((*base)[i] - want) > 1e-9 * std::max(1.0, std::abs(want))) {
      throw std::logic_error("[strata.explain] the evaluator of " + ids[i] + " gives " + detail::report_number((*base)[i]) +
                             ", the report " + detail::report_number(want));
    }
  }
  // Elasticities of every failing row at once: two runs per parameter.
  const std::size_t n = g.parameters.size();
  std::vector<std::vector<explain_elasticity>> el(ids.size());
  std::vector<std::vector<std::size_t>> usable(ids.size());
  for (std::size_t p = 0; p < n; ++p) {
    const auto& par = g.parameters[p];
    const auto range = range_of(par.range_key, par.cited);
    std::vector<std::string> fed;
    std::vector<std::size_t> at;
    for (std::size_t i = 0; i < ids.size(); ++i) {
      if (par.feeds.empty() || std::find(par.feeds.begin(), par.feeds.end(), ids[i]) != par.feeds.end()) {
        fed.push_back(ids[i]);
        at.push_back(i);
      }
    }
    if (fed.empty() || !range.usable()) continue;
    const double c = par.cited;
    if (!par.read) {
      // Not read by the evaluator: both differences would re-run the cited rows, ε = 0 exactly.
      for (const std::size_t i : at) {
        el[i].push_back({par.name, c, 0.0, g.costly ? difference_scheme::forward : difference_scheme::central});
        usable[i].push_back(p);
      }
      continue;
    }
    const double h = c != 0.0 ? o.relative_step * std::abs(c) : o.relative_step * (range.hi - range.lo);
    const auto up = run.at({{p, c + h}}, fed);
    const auto down = g.costly ? std::nullopt : run.at({{p, c - h}}, fed);  // a costly group: forward differences
    for (std::size_t k = 0; k < fed.size(); ++k) {
      const std::size_t i = at[k];
      const double y0 = (*base)[i];
      explain_elasticity e{par.name, c, 0.0, difference_scheme::none};
      double d = 0.0;
      if (up && down) {
        d = ((*up)[k] - (*down)[k]) / (2.0 * h);
        e.scheme = difference_scheme::central;
      } else if (up) {
        d = ((*up)[k] - y0) / h;
        e.scheme = difference_scheme::forward;
      } else if (down) {
        d = (y0 - (*down)[k]) / h;
        e.scheme = difference_scheme::backward;
      }
      // A parameter cited at 0 (a linear range) has no elasticity: its slope over the range stands in.
      e.elasticity = y0 != 0.0 ? (c != 0.0 ? c : (range.hi - range.lo)) * d / y0 : 0.0;
      el[i].push_back(e);
      usable[i].push_back(p);
    }
  }
  std::vector<row_explanation> out;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const paper_row& row = find(ids[i]);
    row_explanation x;
    x.id = row.id;
    x.family = g.family;
    x.value = row.value;
    x.paper = row.paper;
    x.rule = to_string(row.check);
    x.tolerance = row.tolerance;
    x.derivation = row.known_disagreement;
    x.left_out = g.left_out;
    // Parameters by |elasticity|.
    std::vector<std::size_t> order(el[i].size());
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      const double x1 = std::abs(el[i][a].elasticity), x2 = std::abs(el[i][b].elasticity);
      return x1 != x2 ? x1 > x2 : el[i][a].parameter < el[i][b].parameter;
    });
    for (std::size_t k : order) {
      if (el[i][k].elasticity != 0.0) {
        x.elasticities.push_back(el[i][k]);
      } else {
        ++x.zero_elasticities;
      }
    }
    // Which way closes: the row must rise (below its band) or fall.
    const double want_sign = row.check == row_check::at_least ? 1.0
                             : row.check == row_check::at_most ? -1.0
                             : (row.paper.value_or(row.value) >= row.value ? 1.0 : -1.0);
    std::vector<std::pair<std::size_t, int>> solved;  // parameter index, direction that closed
    for (std::size_t r = 0; r < order.size() && r < o.top_k; ++r) {
      const auto& e = el[i][order[r]];
      if (e.elasticity == 0.0) break;
      const std::size_t p = usable[i][order[r]];
      const auto& par = g.parameters[p];
      const auto range = range_of(par.range_key, par.cited);
      gap_entry ge;
      ge.parameter = par.name;
      ge.cited = par.cited;
      ge.range = range.source;
      const int first = (e.elasticity > 0.0) == (want_sign > 0.0) ? +1 : -1;
      for (int dir : {first, -first}) {
        const auto value = [&](double t) -> std::optional<double> {
          const double xv = range.at(par.cited, t, dir);
          if (!(xv >= 0.0) || !std::isfinite(xv)) return std::nullopt;
          return run.one({{p, xv}}, row.id);
        };
        const auto t = detail::explain_walk(row, value, o, [&](bool solving) {
          if (solving) ++run.counts.solves;
          run.now = solving ? phase::solve : phase::walk;
        });
        if (!t) continue;
        const double xv = range.at(par.cited, *t, dir);
        ge.needed = xv;
        ge.range_units = range.units(par.cited, xv);
        if (par.cited != 0.0) ge.relative_change = xv / par.cited - 1.0;
        const auto y = run.one({{p, xv}}, row.id);
        ge.closes = y && detail::explain_passes(row, *y);
        if (ge.closes) solved.emplace_back(p, dir);
        break;
      }
      x.gap.push_back(std::move(ge));
    }
    // Discrete parameters: each allowed value alone, the first that passes (in the order given).
    run.now = phase::scan;
    for (std::size_t c = 0; c < g.choices.size(); ++c) {
      const auto& ch = g.choices[c];
      if (!ch.feeds.empty() && std::find(ch.feeds.begin(), ch.feeds.end(), row.id) == ch.feeds.end()) continue;
      gap_entry ge;
      ge.parameter = ch.name;
      ge.cited = static_cast<double>(ch.cited);
      ge.cited_choice = ch.values.at(ch.cited);
      ge.range = ch.source;
      for (std::size_t v = 0; v < ch.values.size(); ++v) {
        if (v == ch.cited) continue;
        const auto y = run.one({{n + c, static_cast<double>(v)}}, row.id);
        if (!y || !detail::explain_passes(row, *y)) continue;
        ge.needed = static_cast<double>(v);
        ge.needed_choice = ch.values[v];
        ge.range_units = 1.0;
        ge.closes = true;
        break;
      }
      x.gap.push_back(std::move(ge));
    }
    std::stable_sort(x.gap.begin(), x.gap.end(), [](const gap_entry& a, const gap_entry& b) {
      if (a.closes != b.closes) return a.closes;
      return a.range_units < b.range_units;
    });
    x.closed_by_one = !x.gap.empty() && x.gap.front().closes;
    if (!x.closed_by_one) {
      // Pairs of the most elastic parameters, each moved t ranges the way its elasticity closes.
      std::vector<std::pair<std::size_t, int>> cand;
      for (std::size_t r = 0; r < order.size() && cand.size() < o.pair_k; ++r) {
        const auto& e = el[i][order[r]];
        if (e.elasticity == 0.0) break;
        cand.emplace_back(usable[i][order[r]], (e.elasticity > 0.0) == (want_sign > 0.0) ? +1 : -1);
      }
      for (std::size_t a = 0; a < cand.size(); ++a) {
        for (std::size_t b = a + 1; b < cand.size(); ++b) {
          const auto& pa = g.parameters[cand[a].first];
          const auto& pb = g.parameters[cand[b].first];
          const auto ra = range_of(pa.range_key, pa.cited), rb = range_of(pb.range_key, pb.cited);
          const auto at = [&](double t) {
            return std::array<double, 2>{ra.at(pa.cited, t, cand[a].second), rb.at(pb.cited, t, cand[b].second)};
          };
          const auto value = [&](double t) -> std::optional<double> {
            const auto xv = at(t);
            if (!(xv[0] >= 0.0) || !(xv[1] >= 0.0)) return std::nullopt;
            return run.one({{cand[a].first, xv[0]}, {cand[b].first, xv[1]}}, row.id);
          };
          run.now = phase::pairs;
          const auto t = detail::explain_walk(row, value, o, [&](bool solving) {
            if (solving) ++run.counts.solves;
          });
          if (!t) continue;
          gap_pair gp;
          gp.parameters = {pa.name, pb.name};
          gp.cited = {pa.cited, pb.cited};
          gp.needed = at(*t);
          gp.range_units = *t;
          const auto y = value(*t);
          gp.closes = y && detail::explain_passes(row, *y);
          x.pairs.push_back(std::move(gp));
        }
      }
      std::stable_sort(x.pairs.begin(), x.pairs.end(),
                       [](const gap_pair& a, const gap_pair& b) { return a.range_units < b.range_units; });
      // Then pairs of discrete parameters: each combination of two of their values other than the
      // cited ones, the first that passes kept per pair of parameters (in the order registered).
      const bool closed_by_pair = std::any_of(x.pairs.begin(), x.pairs.end(), [](const gap_pair& p) { return p.closes; });
      if (o.switch_pairs && !closed_by_pair) {
        run.now = phase::pairs;
        const auto feeds = [&](const explain_choice& ch) {
          return ch.feeds.empty() || std::find(ch.feeds.begin(), ch.feeds.end(), row.id) != ch.feeds.end();
        };
        for (std::size_t a = 0; a < g.choices.size(); ++a) {
          if (!feeds(g.choices[a])) continue;
          for (std::size_t b = a + 1; b < g.choices.size(); ++b) {
            if (!feeds(g.choices[b])) continue;
            const auto& ca = g.choices[a];
            const auto& cb = g.choices[b];
            bool found = false;
            for (std::size_t va = 0; va < ca.values.size() && !found; ++va) {
              if (va == ca.cited) continue;
              for (std::size_t vb = 0; vb < cb.values.size() && !found; ++vb) {
                if (vb == cb.cited) continue;
                ++x.switch_pairs_tried;
                const auto y = run.one({{n + a, static_cast<double>(va)}, {n + b, static_cast<double>(vb)}}, row.id);
                if (!y || !detail::explain_passes(row, *y)) continue;
                gap_pair gp;
                gp.parameters = {ca.name, cb.name};
                gp.cited = {static_cast<double>(ca.cited), static_cast<double>(cb.cited)};
                gp.needed = {static_cast<double>(va), static_cast<double>(vb)};
                gp.cited_choice = {ca.values[ca.cited], cb.values[cb.cited]};
                gp.needed_choice = {ca.values[va], cb.values[vb]};
                gp.range_units = 1.0;
                gp.closes = true;
                x.pairs.push_back(std::move(gp));
                found = true;
              }
            }
          }
        }
      }
    }
    x.verdict = detail::explain_verdict(x, o);
    out.push_back(std::move(x));
  }
  return out;
}

/// Explains the failing rows `ids` of group `g` whose report rows are `report` (file comment).
/// Throws `std::logic_error` when the group's evaluator does not reproduce a report row's value
/// (the evaluator must re-run the row's builder).
template <class = void>
inline std::vector<row_explanation> explain_group_rows(explain_group& g, const std::vector<paper_row>& report,
                                                       const std::vector<std::string>& ids, const explain_options& options,
                                                       std::size_t& evaluations) {
  detail::explain_runner run{&g, &evaluations};
  return explain_group_rows(g, report, ids, options, run);
}

/// `explain_family` on the runner `run` that explained the rows (`explain_group_rows`): a set
/// the rows' solves already ran is not run again.
template <class = void>
inline family_line explain_family(explain_group& g, const std::vector<paper_row>& report,
                                  const std::vector<row_explanation>& rows, detail::explain_runner& run) {
  run.now = detail::explain_runner::phase::family;
  family_line f;
  f.family = g.family;
  const auto find = [&](const std::string& id) -> const paper_row& {
    for (const auto& r : report) {
      if (r.id == id) return r;
    }
    throw config_error("id", "[strata.explain] no report row " + id);
  };
  const auto index = [&](const std::string& name) {
    for (std::size_t p = 0; p < g.parameters.size(); ++p) {
      if (g.parameters[p].name == name) return p;
    }
    for (std::size_t c = 0; c < g.choices.size(); ++c) {
      if (g.choices[c].name == name) return g.parameters.size() + c;
    }
    throw std::logic_error("[strata.explain] no parameter " + name);
  };
  struct candidate {
    std::size_t p;
    double needed, units;
  };
  std::vector<candidate> cands;
  for (const auto& r : rows) {
    for (const auto& e : r.gap) {
      if (e.closes && e.needed) cands.push_back({index(e.parameter), *e.needed, e.range_units});
    }
  }
  std::vector<std::string> failing, passing;
  for (const auto& id : g.row_ids) {
    const auto& r = find(id);
    (r.ok().value_or(true) ? passing : failing).push_back(id);
  }
  struct verdict {
    std::vector<std::string> closes, still, breaks;
    bool valid = false;
  };
  const auto judge = [&](const std::vector<std::pair<std::size_t, double>>& changes) {
    verdict v;
    const auto y = run.at(changes, g.row_ids);
    if (!y) return v;
    v.valid = true;
    for (std::size_t k = 0; k < g.row_ids.size(); ++k) {
      const auto& r = find(g.row_ids[k]);
      const bool ok = detail::explain_passes(r, (*y)[k]);
      const bool was = r.ok().value_or(true);
      if (!was) (ok ? v.closes : v.still).push_back(r.id);
      if (was && !ok) v.breaks.push_back(r.id);
    }
    return v;
  };
  const auto better = [](const verdict& a, double ua, const verdict& b, double ub) {
    if (a.closes.size() != b.closes.size()) return a.closes.size() > b.closes.size();
    if (a.breaks.size() != b.breaks.size()) return a.breaks.size() < b.breaks.size();
    return ua < ub;
  };
  std::vector<std::pair<std::size_t, double>> set;
  std::vector<double> units;
  verdict best = judge({});
  double best_units = 0.0;
  for (;;) {
    std::optional<std::size_t> pick;
    verdict pv;
    double pu = 0.0;
    for (std::size_t c = 0; c < cands.size(); ++c) {
      bool used = false;
      for (const auto& s : set) used = used || s.first == cands[c].p;
      if (used) continue;
      auto trial = set;
      trial.push_back({cands[c].p, cands[c].needed});
      const auto v = judge(trial);
      if (!v.valid || v.closes.size() <= best.closes.size()) continue;
      if (!pick || better(v, best_units + cands[c].units, pv, pu)) {
        pick = c;
        pv = v;
        pu = best_units + cands[c].units;
      }
    }
    if (!pick) break;
    set.push_back({cands[*pick].p, cands[*pick].needed});
    units.push_back(cands[*pick].units);
    best = pv;
    best_units = pu;
  }
  for (std::size_t k = 0; k < set.size(); ++k) {
    const std::size_t p = set[k].first;
    if (p < g.parameters.size()) {
      const auto& par = g.parameters[p];
      f.changes.push_back({par.name, par.cited, set[k].second, units[k], std::nullopt, std::nullopt});
    } else {
      const auto& ch = g.choices[p - g.parameters.size()];
      f.changes.push_back({ch.name, static_cast<double>(ch.cited), set[k].second, units[k], ch.values.at(ch.cited),
                           ch.values.at(static_cast<std::size_t>(set[k].second))});
    }
  }
  f.failing = failing.size();
  f.closes = best.closes;
  f.still_failing = best.still;
  f.breaks = best.breaks;
  return f;
}

/// The family line of group `g` from the explanations `rows` of its failing rows (file comment):
/// every closing single change is a candidate; the one closing the most failing rows (then
/// breaking the fewest passing rows, then the smallest in ranges) starts the set, and a change
/// joins while it closes more rows together. Every set is verified by re-running the group.
template <class = void>
inline family_line explain_family(explain_group& g, const std::vector<paper_row>& report,
                                  const std::vector<row_explanation>& rows, std::size_t& evaluations) {
  detail::explain_runner run{&g, &evaluations};
  return explain_family(g, report, rows, run);
}

/// The family line as one line of text.
template <class = void>
inline std::string family_line_text(const family_line& f) {
  std::string s = f.family + ": ";
  if (f.changes.empty()) return s + "no single change closes any of its " + std::to_string(f.failing) + " failing rows";
  for (std::size_t k = 0; k < f.changes.size(); ++k) {
    const auto& c = f.changes[k];
    s += (k == 0 ? "" : " and ") +
         detail::explain_change_text(c.parameter, c.cited, c.needed, c.range_units, c.cited_choice, c.needed_choice);
  }
  const auto list = [](const std::vector<std::string>& v) {
    std::string t;
    for (const auto& x : v) t += (t.empty() ? "" : ", ") + x;
    return t.empty() ? std::string("none") : t;
  };
  s += ", verified together, closes " + std::to_string(f.closes.size()) + " of " + std::to_string(f.failing) +
       " failing rows (" + list(f.closes) + "); still failing: " + list(f.still_failing) + "; breaks: " + list(f.breaks);
  return s;
}

}  // namespace v0
}  // namespace strata
