// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// One serving step as a flat row of scalars, for sweeps (issue 49: Python's `strata.sweep`): the
/// scalar values of `strata-eval eval --json --units si` for the same point, with the same
/// numbers, computed without the breakdown tree, without the per-operator rows and without
/// building a JSON document.
///
/// `eval_step_row(model, ignored_keys, machine, request)` runs the checks of `eval_step_json`
/// (`strata/report/eval_step.hpp`: the same `config_error`s naming the same options), evaluates the
/// step with `with_breakdown = false` and `with_ops = false`, and returns its cells in the order the
/// fields are visited. A cell's key is the path of the value in the SI document with '.' between
/// levels (`"time_s"`, `"bytes_B.weights"`, `"parts.memory_J"`, `"fit.required_per_device_B"`); its
/// value is the document's number, integer, boolean or string there. Lists (per-layer arrays,
/// `ops`, `expert_tier_share`), the breakdown tree, and the keys that restate the request (`model`,
/// `machine`, `phase`, `batch`, `context`) are not cells. The totals do not depend on the
/// breakdown: `evaluate` computes them from the distinct layers either way (`step_breakdown`,
/// `breakdown_detail`); the Python tests compare every cell with the CLI's document.
///
/// \code
///   const auto mach = strata::load_eval_machine("h100_sxm5");
///   const strata::eval_request req{.mode = strata::phase::decode, .batch = 8, .context = 2048};
///   const strata::eval_row row = strata::eval_step_row(strata::preset("Mixtral-8x7B"), {}, mach, req);
///   // row.cells: {"devices", 2}, ..., {"time_s", 0.0123...}, ...
/// \endcode

#include <cstddef>      // std::size_t
#include <cstdint>      // std::int64_t
#include <string>       // std::string
#include <type_traits>  // std::is_same_v, std::is_integral_v, std::is_floating_point_v, std::is_enum_v
#include <utility>      // std::move, std::pair
#include <variant>      // std::variant
#include <vector>       // std::vector

#include "strata/core/json.hpp"
#include "strata/core/json_plain.hpp"
#include "strata/report/eval_step.hpp"

namespace strata {
inline namespace v0 {

/// A cell of an `eval_row`: a number, an integer, a boolean or a string (an enum's name).
using eval_cell = std::variant<double, std::int64_t, bool, std::string>;

/// A step's scalar results: (SI document path, value), in visiting order.
struct eval_row {
  std::vector<std::pair<std::string, eval_cell>> cells;

  void add(std::string key, eval_cell v) { cells.emplace_back(std::move(key), std::move(v)); }
};

namespace detail {

/// The SI key suffix of dimension D ("s", "B_per_s", ...), as `convert_units` gives it.
template <class D>
const std::string& row_suffix() {
  static const std::string s = plain_unit_suffix(D::exponents);
  return s;
}

/// Adds the scalars of `x` under `key` as `convert_units` writes them: a quantity as its SI number
/// under key_<unit>, a struct with `visit_fields` field by field under key.<field>, an optional
/// when set; lists and cost trees are skipped.
template <class X>
void add_row_value(eval_row& row, const std::string& key, const X& x) {
  if constexpr (is_quantity<X>::value) {
    row.add(key + "_" + row_suffix<typename X::dimension>(), static_cast<double>(value_of(x.si())));
  } else if constexpr (is_optional<X>::value) {
    if (x) add_row_value(row, key, *x);
  } else if constexpr (is_vector<X>::value) {
    // a list: not a cell
  } else if constexpr (std::is_same_v<X, cost<double>>) {
    // the breakdown tree: not a cell
  } else if constexpr (has_fields<X>) {
    X::visit_fields(x, [&](const char* k, const auto& f) { add_row_value(row, key.empty() ? std::string(k) : key + "." + k, f); });
  } else if constexpr (std::is_same_v<X, bool>) {
    row.add(key, x);
  } else if constexpr (std::is_enum_v<X>) {
    for (const auto& [e, name] : enum_names(X{})) {
      if (e == x) row.add(key, std::string(name));
    }
  } else if constexpr (std::is_integral_v<X>) {
    row.add(key, static_cast<std::int64_t>(x));
  } else if constexpr (std::is_floating_point_v<X>) {
    row.add(key, static_cast<double>(x));
  } else if constexpr (std::is_same_v<X, std::string>) {
    row.add(key, x);
  }
}

}  // namespace detail

/// The cells of a GPU or roofline step: the scalars `step_eval_json` writes, in its order.
template <class = void>
inline eval_row gpu_step_row(const gpu_step_eval& g) {
  const auto& r = g.r;
  eval_row row;
  row.cells.reserve(48);
  row.add("devices", std::int64_t{g.machine.devices});
  row.add("nodes", std::int64_t{g.machine.nodes()});
  row.add("routing", std::string(g.request.trace.empty() ? "uniform" : "trace"));
  if (g.fit) detail::add_row_value(row, "fit", *g.fit);
  if (!g.preset.empty()) row.add("knobs", knobs_note(g.preset, g.knobs));
  row.add("verdict", g.verdict.text());
  row.add("feasible", r.feasible);
  row.add("capacity", r.reason);
  if (g.batch) {
    row.add("decode_batch.sequences", static_cast<std::int64_t>(g.batch->sequences));
    row.add("decode_batch.max_per_sequence", std::int64_t{g.batch->max_per_sequence});
    row.add("decode_batch.repeated_tokens", static_cast<std::int64_t>(g.batch->repeated_tokens));
    row.add("decode_batch.note", g.batch->note);
  }
  row.add("flops", r.flops.si());
  row.add("bytes_B.weights", r.weight_bytes.si());
  row.add("bytes_B.kv", r.kv_bytes.si());
  row.add("bytes_B.activations", r.activation_bytes.si());
  row.add("bytes_B.links", r.link_bytes.si());
  row.add("time_s", r.time.si());
  row.add("energy_J", r.energy.si());
  row.add("dynamic_energy_J", r.dynamic_energy.si());
  row.add("energy_parts_J.compute", r.compute_energy.si());
  row.add("energy_parts_J.memory", r.memory_energy.si());
  row.add("energy_parts_J.links", r.link_energy.si());
  row.add("energy_parts_J.static", r.static_energy.si());
  row.add("power_capped", r.power_capped);
  row.add("tokens", r.tokens);
  row.add("tokens_per_s", r.tokens_per_s);
  row.add("tokens_per_J", eval_tokens_per_J(r));
  detail::add_row_value(row, "parallelism", g.par);
  if (g.ep()) {
    const double per_layer = g.moe_layers > 0 ? r.alltoall_bytes.si() / (2.0 * g.moe_layers) : 0.0;
    row.add("alltoall.time_s", r.alltoall_time.si());
    row.add("alltoall.bytes_B", r.alltoall_bytes.si());
    row.add("alltoall.dispatch_bytes_per_layer_B", per_layer);
    row.add("alltoall.combine_bytes_per_layer_B", per_layer);
    row.add("alltoall.time_per_layer_s", g.moe_layers > 0 ? r.alltoall_time.si() / g.moe_layers : 0.0);
    row.add("busiest_device.routings", g.busiest_load);
    row.add("busiest_device.mean_routings", g.worst ? g.worst->routings / g.worst->devices : 0.0);
    row.add("busiest_device.imbalance", g.worst ? g.worst->imbalance() : 1.0);
    row.add("busiest_device.expert_copies_read", g.busiest_copies);
  }
  return row;
}

/// The cells of a Stratum step: its result's fields (prefill: tokens per joule in place of joules
/// per token, as `step_eval_json` writes it), then the verdict and (decode) the routing.
template <class = void>
inline eval_row stratum_step_row(const stratum_step_eval& s) {
  eval_row row;
  row.cells.reserve(48);
  if (s.prefill) {
    basic_step_result<double>::visit_fields(*s.prefill, [&](const char* k, const auto& f) {
      if (std::string(k) != "joules_per_token") detail::add_row_value(row, k, f);
    });
    row.add("tokens_per_J", eval_tokens_per_J(*s.prefill));
  } else if (s.decode) {
    detail::add_row_value(row, "", *s.decode);
  }
  row.add("verdict", s.verdict.text());
  if (s.decode) row.add("routing", s.routing);
  return row;
}

/// The row of one step: `eval_step_json`'s checks and evaluation without the breakdown tree and
/// the per-operator rows (`o.with_breakdown` and `o.with_ops` are ignored), its scalars as cells.
template <class = void>
inline eval_row eval_step_row(const model& mdl, const std::vector<std::string>& ignored_keys, const eval_machine& ma,
                              eval_request o, const eval_warning_sink& warn = {}) {
  detail::check_eval_strings(o);
  const bool stratum = ma.stratum.has_value(), gpu = !ma.preset.empty();
  if (auto bad = eval_option_misuse(o, ma.arg, stratum, gpu, false)) throw config_error(bad->field, bad->message);
  validate(step_shape{.mode = o.mode, .batch = o.batch, .context = o.context});
  if (auto bad = eval_machine_misuse(o, ma.arg, stratum)) throw config_error(bad->field, bad->message);
  o.with_breakdown = false;
  o.with_ops = false;
  if (ma.stratum) return stratum_step_row(evaluate_stratum_step(mdl, stratum_coverage(mdl, ignored_keys), ma, o, warn));
  return gpu_step_row(evaluate_gpu_step(mdl, ignored_keys, ma, o, warn));
}

}  // namespace v0
}  // namespace strata
