// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Scenario files (`report/scenario.hpp`) from JSON: `read_scenario(text, source)`. Every key is
/// checked, unknown keys are errors, and every error is a `config_error` naming the JSON path
/// (`sweep.axes[1].step`, `plot.y[0]`). Sizes are bounded before anything is built: at most
/// `scenario_max_axes` axes, `scenario_max_axis_values` values per axis and `scenario_max_points`
/// points.
///
/// \code{.json}
/// {"name": "fig14_layers_tiers", "title": "Mono3D die: WL layers x tiers",
///  "study": "device",                 // device | stratum_vs_gpu | hit_rate | logic_budget | optimise
///  "system": "stratum-l", "gpu": "h100_sxm5", "model": "Mixtral-8x7B",
///  "workload": {"batch": 16, "context": 2048, "hit_rate": 0.316},
///  "sweep": {"combine": "cartesian",  // or "zip"
///            "axes": [{"name": "layers", "kind": "integer", "first": 128, "last": 1024, "step": 128},
///                     {"name": "tiers", "kind": "list", "values": [2, 4, 8, 16]}]},
///            // also {"kind": "linear" | "log", "first": a, "last": b, "count": n}
///  "outputs": ["latency_spread", "fastest_bw_TBps"],
///  "plot": {"x": "layers", "y": ["latency_spread"], "series": "tiers", "log_x": false, "log_y": false,
///           "title": "...", "x_label": "...", "y_label": "...",
///           "labels": {"latency_spread": "slowest / fastest tier"},  // legend text per y column
///           "series_label": "{} tiers"},                               // a series value's legend text
///  "optimise": {"objective": "throughput_per_area", "macs": {"first": 12800, "last": 128000, "step": 6400},
///               "pes_per_pu": [8], "tiers": [4, 8], "layers": [512, 1024], "f_min_GHz": 0.5, "f_max_GHz": 1.5}}
/// \endcode
///
/// The HCRMap studies (`hcrmap_budget`, `hcrmap_pressure`) read an `hcrmap` object instead of the
/// Stratum keys (`system`, `gpu` and `workload` are not used by them):
///
/// \code{.json}
/// "hcrmap": {"mode": "decode", "windows": 3, "max_layers": 6,
///            "trace": "traces/dsv2lite_esft_trace_intent.csv",  // optional, relative to the data directory
///            "checkpoint": "hcrmap/dqn_checkpoint.json",        // optional
///            "trace_reuse": false,  // decode windows from fewer sequences than 512: refused unless true
///            "kv": "hbm_first"}     // the KV cache: "hbm_first", "dram" or "by_pressure"
/// \endcode
///
/// Their points are whole experiments: at most `scenario_max_hcrmap_points`, and the study's expert
/// routes (points × `experiment_routes` for `hcrmap_budget`, one experiment for `hcrmap_pressure`)
/// at most `hcrmap_limits().routes`, checked here (`config_error` naming `sweep.axes` or
/// `hcrmap.windows`). A plot may be a
/// heatmap (`"style": "heatmap"`: x and series are the map's axes, each y column one map).

#include <cmath>        // std::floor, std::isfinite, std::log2
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int64_t
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::move
#include <vector>       // std::vector

#include "strata/core/error.hpp"
#include "strata/core/json.hpp"
#include "strata/report/scenario.hpp"

namespace strata {
inline namespace v0 {

/// Points one HCRMap study may address (each is an experiment of about a second).
inline constexpr std::size_t scenario_max_hcrmap_points = 256;

namespace detail {

class scenario_reader {
 public:
  explicit scenario_reader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw config_error(path, "[strata.scenario] " + source_ + ": " + (path.empty() ? "<root>" : path) + " " + what);
  }

  void keys(const json& j, const std::string& path, std::initializer_list<const char*> known) const {
    if (!j.is_object()) fail(path, "must be an object, got " + json_excerpt(j));
    for (const auto& [k, v] : j.items()) {
      bool ok = false;
      for (const char* n : known) ok = ok || k == n;
      if (!ok) {
        std::string list;
        for (const char* n : known) list += (list.empty() ? "" : ", ") + std::string(n);
        fail(join(path, k), "is an unknown key (known keys: " + list + ")");
      }
    }
  }

  static std::string join(const std::string& path, std::string_view key) {
    return path.empty() ? std::string(key) : path + "." + std::string(key);
  }

  std::string text(const json& j, const std::string& path, std::size_t max_len = 200) const {
    if (!j.is_string()) fail(path, "must be a string, got " + json_excerpt(j));
    const auto& s = j.get_ref<const std::string&>();
    if (s.size() > max_len) fail(path, "must be at most " + std::to_string(max_len) + " characters");
    return s;
  }

  double number(const json& j, const std::string& path, double lo, double hi) const {
    if (!j.is_number()) fail(path, "must be a number, got " + json_excerpt(j));
    const double v = j.get<double>();
    if (!std::isfinite(v) || v < lo || v > hi) {
      fail(path, "must be a number in [" + to_text(lo) + ", " + to_text(hi) + "], got " + json_excerpt(j));
    }
    return v;
  }

  int integer(const json& j, const std::string& path, double lo, double hi) const {
    if (!j.is_number_integer()) fail(path, "must be an integer, got " + json_excerpt(j));
    const double v = number(j, path, lo, hi);
    return static_cast<int>(v);
  }

  bool boolean(const json& j, const std::string& path) const {
    if (!j.is_boolean()) fail(path, "must be true or false, got " + json_excerpt(j));
    return j.get<bool>();
  }

  template <class E>
  E choice(const json& j, const std::string& path) const {
    std::string names;
    for (const auto& [e, n] : enum_names(E{})) names += (names.empty() ? "" : ", ") + std::string(n);
    if (j.is_string()) {
      for (const auto& [e, n] : enum_names(E{})) {
        if (j.get_ref<const std::string&>() == n) return e;
      }
    }
    fail(path, "must be one of " + names + ", got " + json_excerpt(j));
  }

  std::vector<int> int_list(const json& j, const std::string& path, double lo, double hi) const {
    if (!j.is_array()) fail(path, "must be an array of integers, got " + json_excerpt(j));
    if (j.size() > 4096) fail(path, "must have at most 4096 values, got " + std::to_string(j.size()));
    std::vector<int> out;
    out.reserve(j.size());
    for (std::size_t i = 0; i < j.size(); ++i) out.push_back(integer(j[i], path + "[" + std::to_string(i) + "]", lo, hi));
    return out;
  }

 private:
  std::string source_;
};

inline const scenario_axis_spec* find_axis_spec(const std::vector<scenario_axis_spec>& specs, const std::string& name) {
  for (const auto& s : specs) {
    if (name == s.name) return &s;
  }
  return nullptr;
}

/// Reads one axis at `path`, checks its values against `spec` and returns it with its value count.
inline scenario_axis read_axis(const scenario_reader& rd, const json& j, const std::string& path,
                               const std::vector<scenario_axis_spec>& specs, std::size_t& count) {
  if (!j.is_object()) rd.fail(path, "must be an object, got " + json_excerpt(j));
  scenario_axis a;
  if (!j.contains("name")) rd.fail(path + ".name", "is missing");
  a.name = rd.text(j["name"], path + ".name", 64);
  const scenario_axis_spec* spec = find_axis_spec(specs, a.name);
  if (spec == nullptr) {
    std::string list;
    for (const auto& s : specs) list += (list.empty() ? "" : ", ") + std::string(s.name);
    rd.fail(path + ".name", "must name an axis of the study (" + (list.empty() ? std::string("none") : list) +
                                "), got " + json_excerpt(j["name"]));
  }
  if (!j.contains("kind")) rd.fail(path + ".kind", "is missing (list, linear, log or integer)");
  const std::string kind = rd.text(j["kind"], path + ".kind", 16);
  const auto in_range = [&](double v, const std::string& at) {
    if (!(v >= spec->lo && v <= spec->hi)) {
      rd.fail(at, "must be in [" + to_text(spec->lo) + ", " + to_text(spec->hi) + "] (" + spec->meaning + "), got " +
                      to_text(v));
    }
    if (spec->integer && v != std::floor(v)) rd.fail(at, "must be an integer (" + std::string(spec->meaning) + "), got " + to_text(v));
  };
  const auto need = [&](const char* key) -> const json& {
    if (!j.contains(key)) rd.fail(path + "." + key, "is missing (axis kind " + kind + ")");
    return j[key];
  };
  const double big = 1e15;
  if (kind == "list") {
    a.type = scenario_axis::kind::list;
    rd.keys(j, path, {"name", "kind", "values"});
    const json& v = need("values");
    if (!v.is_array() || v.empty()) rd.fail(path + ".values", "must be a non-empty array of numbers, got " + json_excerpt(v));
    if (v.size() > scenario_max_axis_values) {
      rd.fail(path + ".values", "must have at most " + std::to_string(scenario_max_axis_values) + " values, got " +
                                    std::to_string(v.size()));
    }
    a.values.reserve(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
      const std::string at = path + ".values[" + std::to_string(i) + "]";
      a.values.push_back(rd.number(v[i], at, -big, big));
      in_range(a.values.back(), at);
    }
    count = a.values.size();
  } else if (kind == "linear" || kind == "log") {
    a.type = kind == "log" ? scenario_axis::kind::log : scenario_axis::kind::linear;
    rd.keys(j, path, {"name", "kind", "first", "last", "count"});
    a.first = rd.number(need("first"), path + ".first", -big, big);
    a.last = rd.number(need("last"), path + ".last", -big, big);
    in_range(a.first, path + ".first");
    in_range(a.last, path + ".last");
    a.count = static_cast<std::size_t>(rd.integer(need("count"), path + ".count", 1, double(scenario_max_axis_values)));
    if (a.count == 1 && a.first != a.last) rd.fail(path + ".count", "must be >= 2 when first != last");
    if (a.type == scenario_axis::kind::log && !(a.first > 0.0 && a.last > 0.0)) {
      rd.fail(path + (a.first > 0.0 ? ".last" : ".first"), "must be > 0 on a log axis");
    }
    if (spec->integer && a.count > 1) {
      rd.fail(path + ".kind", "must be list or integer: axis " + a.name + " takes integers (" + spec->meaning + ")");
    }
    count = a.count;
  } else if (kind == "integer") {
    a.type = scenario_axis::kind::integer;
    rd.keys(j, path, {"name", "kind", "first", "last", "step"});
    a.first = rd.integer(need("first"), path + ".first", -1e9, 1e9);
    a.last = rd.integer(need("last"), path + ".last", -1e9, 1e9);
    a.step = j.contains("step") ? rd.integer(j["step"], path + ".step", -1e9, 1e9) : 1;
    if (a.step == 0 || (a.last - a.first) / a.step < 0) rd.fail(path + ".step", "must be non-zero and point from first to last");
    const double n = std::floor((a.last - a.first) / a.step) + 1.0;
    if (n > double(scenario_max_axis_values)) {
      rd.fail(path + ".step", "gives " + to_text(n) + " values, more than the limit " +
                                  std::to_string(scenario_max_axis_values));
    }
    count = static_cast<std::size_t>(n);
    in_range(a.first, path + ".first");
    in_range(a.first + (n - 1.0) * a.step, path + ".last");
  } else {
    rd.fail(path + ".kind", "must be one of list, linear, log, integer, got " + json_excerpt(j["kind"]));
  }
  return a;
}

}  // namespace detail

/// Reads and checks a scenario from JSON text; `source` names it in errors (file comment).
inline scenario read_scenario(std::string_view text, const std::string& source = "scenario.json") {
  const json j = parse_json(text, source);
  const detail::scenario_reader rd(source);
  rd.keys(j, "", {"name", "title", "study", "system", "gpu", "model", "workload", "sweep", "outputs", "plot", "optimise", "hcrmap"});
  scenario s;
  if (!j.contains("name")) rd.fail("name", "is missing");
  s.name = rd.text(j["name"], "name", 64);
  for (char c : s.name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
    if (!ok || s.name.empty() || s.name.front() == '.') rd.fail("name", "must be a file stem of [A-Za-z0-9_.-] not starting with '.', got " + detail::json_excerpt(j["name"]));
  }
  if (s.name.empty()) rd.fail("name", "must not be empty");
  if (j.contains("title")) s.title = rd.text(j["title"], "title");
  if (!j.contains("study")) {
    std::string kinds;
    for (const auto& [e, n] : enum_names(study_kind{})) kinds += (kinds.empty() ? "" : ", ") + std::string(n);
    rd.fail("study", "is missing (" + kinds + ")");
  }
  s.study = rd.choice<study_kind>(j["study"], "study");

  // Presets: resolved here so that a bad name is reported at its key.
  const auto resolve = [&](const char* key, std::string& out, auto check) {
    if (!j.contains(key)) return;
    out = rd.text(j[key], key, 80);
    try {
      check(out);
    } catch (const config_error& e) {
      rd.fail(key, std::string("is not a known preset: ") + e.what());
    }
  };
  resolve("system", s.system, [](const std::string& n) { (void)stratum_system(n); });
  resolve("gpu", s.gpu, [](const std::string& n) { (void)gpu_preset(n); });
  resolve("model", s.model, [](const std::string& n) { (void)preset(n); });
  const model m = preset(s.model);
  const auto sys = stratum_system(s.system);
  const double min_hit = m.experts > 0 ? double(m.top_k) / double(m.experts) : 1.0;
  const auto check_hit = [&](double h, const std::string& at) {
    if (h != 0.0 && (m.experts == 0 || h < min_hit * (1.0 - 1e-12))) {
      rd.fail(at, m.experts == 0 ? "must be 0: " + s.model + " has no experts"
                                 : "must be 0 (uniform) or in [A/E, 1] = [" + detail::to_text(min_hit) + ", 1] for " +
                                       s.model + ", got " + detail::to_text(h));
    }
  };

  if (j.contains("workload")) {
    const json& w = j["workload"];
    rd.keys(w, "workload", {"batch", "context", "hit_rate"});
    if (w.contains("batch")) s.workload.batch = rd.integer(w["batch"], "workload.batch", 1, 4096);
    if (w.contains("context")) s.workload.context = rd.integer(w["context"], "workload.context", 1, 1048576);
    if (w.contains("hit_rate")) s.workload.hit_rate = rd.number(w["hit_rate"], "workload.hit_rate", 0, 1);
  }
  check_hit(s.workload.hit_rate, "workload.hit_rate");

  if (j.contains("hcrmap")) {
    if (!is_hcrmap_study(s.study)) rd.fail("hcrmap", "is only read by the HCRMap studies (hcrmap_budget, hcrmap_pressure)");
    const json& h = j["hcrmap"];
    rd.keys(h, "hcrmap", {"mode", "windows", "max_layers", "trace", "checkpoint", "trace_reuse", "kv"});
    if (h.contains("mode")) {
      const std::string mode = rd.text(h["mode"], "hcrmap.mode", 16);
      if (mode == "prefill") {
        s.hcrmap.mode = phase::prefill;
      } else if (mode != "decode") {
        rd.fail("hcrmap.mode", "must be prefill or decode, got " + detail::json_excerpt(h["mode"]));
      }
    }
    if (h.contains("windows")) s.hcrmap.windows = rd.integer(h["windows"], "hcrmap.windows", 1, 64);
    if (h.contains("max_layers")) s.hcrmap.max_layers = rd.integer(h["max_layers"], "hcrmap.max_layers", 1, 256);
    if (h.contains("trace")) s.hcrmap.trace = rd.text(h["trace"], "hcrmap.trace", 4096);
    if (h.contains("checkpoint")) s.hcrmap.checkpoint = rd.text(h["checkpoint"], "hcrmap.checkpoint", 4096);
    if (h.contains("trace_reuse")) s.hcrmap.trace_reuse = rd.boolean(h["trace_reuse"], "hcrmap.trace_reuse");
    if (h.contains("kv")) {
      const std::string kv = rd.text(h["kv"], "hcrmap.kv", 16);
      bool known = false;
      for (const auto& [k, name] : enum_names(kv_placement{})) {
        if (kv == name) {
          s.hcrmap.kv = k;
          known = true;
        }
      }
      if (!known) rd.fail("hcrmap.kv", "must be hbm_first, dram or by_pressure, got " + detail::json_excerpt(h["kv"]));
    }
  }
  if (is_hcrmap_study(s.study) && (m.experts == 0 || m.moe_layers() == 0)) {
    rd.fail("model", "must be a mixture-of-experts model for study " + std::string(study_name(s.study)) + ", got " + s.model);
  }

  const auto specs = scenario_axes(s.study);
  if (j.contains("sweep")) {
    const json& sw = j["sweep"];
    rd.keys(sw, "sweep", {"combine", "axes"});
    if (sw.contains("combine")) {
      const std::string c = rd.text(sw["combine"], "sweep.combine", 16);
      if (c == "zip") {
        s.combine = axes_combine::zip;
      } else if (c != "cartesian") {
        rd.fail("sweep.combine", "must be cartesian or zip, got " + detail::json_excerpt(sw["combine"]));
      }
    }
    if (!sw.contains("axes")) rd.fail("sweep.axes", "is missing");
    const json& ax = sw["axes"];
    if (!ax.is_array()) rd.fail("sweep.axes", "must be an array of axes, got " + detail::json_excerpt(ax));
    if (ax.size() > scenario_max_axes) {
      rd.fail("sweep.axes", "must have at most " + std::to_string(scenario_max_axes) + " axes, got " + std::to_string(ax.size()));
    }
    if (s.study == study_kind::optimise && !ax.empty()) rd.fail("sweep.axes", "must be empty: study optimise sweeps its domain (key optimise)");
    if (s.study != study_kind::optimise && ax.empty()) rd.fail("sweep.axes", "must hold at least one axis");
    double points = 1.0;
    std::size_t first_count = 0;
    for (std::size_t i = 0; i < ax.size(); ++i) {
      const std::string at = "sweep.axes[" + std::to_string(i) + "]";
      std::size_t count = 0;
      auto a = detail::read_axis(rd, ax[i], at, specs, count);
      for (const auto& b : s.axes) {
        if (b.name == a.name) rd.fail(at + ".name", "repeats axis " + a.name);
      }
      if (s.combine == axes_combine::zip) {
        if (i == 0) first_count = count;
        if (count != first_count) {
          rd.fail(at, "has " + std::to_string(count) + " values, the first zipped axis " + std::to_string(first_count));
        }
        points = double(first_count);
      } else {
        points *= double(count);
      }
      if (points > double(scenario_max_points)) {
        rd.fail("sweep.axes", "make more than " + std::to_string(scenario_max_points) + " points (limit of a scenario)");
      }
      if (s.study == study_kind::hcrmap_budget && points > double(scenario_max_hcrmap_points)) {
        rd.fail("sweep.axes", "make more than " + std::to_string(scenario_max_hcrmap_points) +
                                  " points (limit of an HCRMap study: each point is a whole experiment)");
      }
      if (a.name == "hit_rate") {
        const auto vals = detail::build_axis(a).values;  // bounded above
        for (std::size_t k = 0; k < vals.size(); ++k) {
          std::string where = at + " (value " + std::to_string(k) + ")";
          if (a.type == scenario_axis::kind::list) where = at + ".values[" + std::to_string(k) + "]";
          if (a.type != scenario_axis::kind::list && k == 0) where = at + ".first";
          if (a.type != scenario_axis::kind::list && k + 1 == vals.size() && k > 0) where = at + ".last";
          check_hit(vals[k], where);
        }
      }
      s.axes.push_back(std::move(a));
    }
  } else if (s.study != study_kind::optimise) {
    rd.fail("sweep", "is missing (study " + std::string(study_name(s.study)) + " sweeps axes)");
  }
  // HCRMap studies: the expert routes of every experiment the study runs, before any is run
  // (hcrmap_budget: one per point; hcrmap_pressure: one for the whole grid).
  if (is_hcrmap_study(s.study)) {
    experiment_params xp;
    xp.windows = s.hcrmap.windows;
    xp.max_layers = s.hcrmap.max_layers;
    const std::int64_t points =
        s.study == study_kind::hcrmap_budget ? static_cast<std::int64_t>(scenario_space(s).size()) : 1;
    const auto policies = static_cast<std::int64_t>(scenario_hcrmap_policies().size());
    const std::int64_t routes = detail::checked_mul(
        points, experiment_routes(m, s.hcrmap.mode, policies, xp), "strata.scenario", "hcrmap");
    if (routes > hcrmap_limits().routes) {
      rd.fail(s.study == study_kind::hcrmap_budget ? "sweep.axes" : "hcrmap.windows",
              "asks for " + std::to_string(routes) + " expert routes " +
                  detail::routes_terms(points, m, s.hcrmap.mode, policies, xp) +
                  " from sweep.axes, hcrmap.windows, hcrmap.max_layers, hcrmap.mode and model, more than the limit " +
                  std::to_string(hcrmap_limits().routes) + " (strata::hcrmap_limits().routes)");
    }
  }
  // Device: every point's chip as the point runs it (`device_point_system`: the point's layers and
  // tiers, the system's where no axis sets them), so tiers <= layers at every point.
  if (s.study == study_kind::device) {
    const auto space = scenario_space(s);
    const auto axis = [&](const char* n) {
      std::size_t a = 0;
      while (a < space.axes().size() && space.axes()[a].name != n) ++a;
      return a;  // == dimensions(): not swept
    };
    const std::size_t li = axis("layers"), ti = axis("tiers");
    const int sys_layers = sys.nmp.chip.memory.layers, sys_tiers = sys.nmp.chip.memory.tiers;
    std::vector<double> x;
    for (std::size_t i = 0; i < space.size(); ++i) {
      space.point(i, x);
      const int layers = li < x.size() ? static_cast<int>(x[li]) : sys_layers;
      const int tiers = ti < x.size() ? static_cast<int>(x[ti]) : sys_tiers;
      const std::string where = "point " + std::to_string(i) + " (" + (li < x.size() ? "" : "the system's ") +
                                "layers " + std::to_string(layers) + ", " + (ti < x.size() ? "" : "the system's ") +
                                "tiers " + std::to_string(tiers) + ")";
      if (tiers > layers) {
        rd.fail("sweep.axes", "at " + where + " sets more tiers (" + std::to_string(tiers) + ") than WL layers (" +
                                  std::to_string(layers) + ")");
      }
      try {
        validate(detail::device_point_system(sys, layers, tiers).nmp.chip);
      } catch (const config_error& e) {
        rd.fail("sweep.axes", "at " + where + " gives a chip that is not valid: " + e.what());
      }
    }
  }

  const auto columns = s.study == study_kind::optimise ? optimise_columns() : scenario_columns(s.study);
  if (j.contains("outputs")) {
    const json& o = j["outputs"];
    if (!o.is_array() || o.empty()) rd.fail("outputs", "must be a non-empty array of column names, got " + detail::json_excerpt(o));
    if (o.size() > columns.size()) rd.fail("outputs", "has more entries than the study has columns");
    for (std::size_t i = 0; i < o.size(); ++i) {
      const std::string at = "outputs[" + std::to_string(i) + "]";
      const std::string c = rd.text(o[i], at, 64);
      bool known = false;
      for (const auto& n : columns) known = known || n == c;
      std::string list;
      for (const auto& n : columns) list += (list.empty() ? "" : ", ") + n;
      if (!known) rd.fail(at, "must be a column of study " + std::string(study_name(s.study)) + " (" + list + "), got " + detail::json_excerpt(o[i]));
      for (const auto& n : s.outputs) {
        if (n == c) rd.fail(at, "repeats column " + c);
      }
      s.outputs.push_back(c);
    }
  }

  if (j.contains("plot")) {
    const json& p = j["plot"];
    rd.keys(p, "plot", {"x", "y", "series", "style", "log_x", "log_y", "title", "x_label", "y_label", "labels", "series_label"});
    if (s.study == study_kind::optimise) rd.fail("plot", "is not available for study optimise (two rows)");
    s.plot.enabled = true;
    const auto axis_named = [&](const std::string& n) {
      for (const auto& a : s.axes) {
        if (a.name == n) return true;
      }
      return false;
    };
    if (!p.contains("x")) rd.fail("plot.x", "is missing");
    s.plot.x = rd.text(p["x"], "plot.x", 64);
    if (!axis_named(s.plot.x)) rd.fail("plot.x", "must name a sweep axis, got " + detail::json_excerpt(p["x"]));
    if (!p.contains("y")) rd.fail("plot.y", "is missing");
    const json& y = p["y"];
    const auto& shown = s.outputs.empty() ? columns : s.outputs;
    const auto add_y = [&](const json& v, const std::string& at) {
      const std::string c = rd.text(v, at, 64);
      bool ok = false;
      for (const auto& n : shown) ok = ok || n == c;
      if (!ok) rd.fail(at, "must name an output column, got " + detail::json_excerpt(v));
      s.plot.y.push_back(c);
    };
    if (y.is_array()) {
      if (y.empty() || y.size() > 8) rd.fail("plot.y", "must hold 1 to 8 columns");
      for (std::size_t i = 0; i < y.size(); ++i) add_y(y[i], "plot.y[" + std::to_string(i) + "]");
    } else {
      add_y(y, "plot.y");
    }
    if (p.contains("series")) {
      s.plot.series = rd.text(p["series"], "plot.series", 64);
      if (!axis_named(s.plot.series) || s.plot.series == s.plot.x) {
        rd.fail("plot.series", "must name a sweep axis other than plot.x, got " + detail::json_excerpt(p["series"]));
      }
      if (s.combine == axes_combine::zip) rd.fail("plot.series", "needs cartesian axes (zipped axes move together)");
    }
    for (const auto& a : s.axes) {
      const std::size_t n = detail::build_axis(a).values.size();
      if (s.combine == axes_combine::cartesian && a.name != s.plot.x && a.name != s.plot.series && n > 1) {
        rd.fail("plot", "would draw several points per x: axis " + a.name + " has " + std::to_string(n) +
                            " values and is neither plot.x nor plot.series");
      }
    }
    if (p.contains("style")) {
      const std::string st = rd.text(p["style"], "plot.style", 16);
      if (st == "heatmap") {
        s.plot.heatmap = true;
      } else if (st != "lines") {
        rd.fail("plot.style", "must be lines or heatmap, got " + detail::json_excerpt(p["style"]));
      }
    }
    if (s.plot.heatmap && s.plot.series.empty()) rd.fail("plot.series", "is missing (a heatmap's second axis)");
    if (s.plot.heatmap && s.plot.y.size() > 4) rd.fail("plot.y", "must hold 1 to 4 columns for a heatmap (one map each)");
    if (p.contains("log_x")) s.plot.log_x = rd.boolean(p["log_x"], "plot.log_x");
    if (p.contains("log_y")) s.plot.log_y = rd.boolean(p["log_y"], "plot.log_y");
    if (p.contains("title")) s.plot.title = rd.text(p["title"], "plot.title");
    if (p.contains("x_label")) s.plot.x_label = rd.text(p["x_label"], "plot.x_label");
    if (p.contains("y_label")) s.plot.y_label = rd.text(p["y_label"], "plot.y_label");
    if (p.contains("labels")) {  // {"<plotted column>": "legend text", ...}
      const json& l = p["labels"];
      if (!l.is_object()) rd.fail("plot.labels", "must be an object (plotted column: legend text), got " + detail::json_excerpt(l));
      s.plot.labels.assign(s.plot.y.size(), std::string{});
      for (const auto& [k, v] : l.items()) {
        const std::string at = k.size() <= 64 ? "plot.labels." + k : std::string("plot.labels");  // no column is longer
        std::size_t c = 0;
        while (c < s.plot.y.size() && s.plot.y[c] != k) ++c;
        if (c == s.plot.y.size()) rd.fail(at, "must name a column of plot.y");
        s.plot.labels[c] = rd.text(v, at, 64);
        if (s.plot.labels[c].empty()) rd.fail(at, "must not be empty");
      }
    }
    if (p.contains("series_label")) {
      if (s.plot.series.empty()) rd.fail("plot.series_label", "needs plot.series (the axis whose value it shows)");
      s.plot.series_label = rd.text(p["series_label"], "plot.series_label", 64);
      const auto at = s.plot.series_label.find("{}");
      if (at == std::string::npos || s.plot.series_label.find("{}", at + 2) != std::string::npos) {
        rd.fail("plot.series_label", "must hold {} once (the series value), got " + detail::json_excerpt(p["series_label"]));
      }
    }
  }

  if (j.contains("optimise")) {
    if (s.study != study_kind::optimise) rd.fail("optimise", "is only read by study optimise");
    const json& o = j["optimise"];
    rd.keys(o, "optimise", {"objective", "macs", "pes_per_pu", "tiers", "layers", "f_min_GHz", "f_max_GHz"});
    auto& d = s.optimise;
    if (o.contains("objective")) d.objective = rd.choice<design_objective>(o["objective"], "optimise.objective");
    if (o.contains("macs")) {
      const json& mg = o["macs"];
      rd.keys(mg, "optimise.macs", {"first", "last", "step"});
      for (const char* k : {"first", "last", "step"}) {
        if (!mg.contains(k)) rd.fail(std::string("optimise.macs.") + k, "is missing");
      }
      d.macs_first = rd.integer(mg["first"], "optimise.macs.first", 1, 1e9);
      d.macs_last = rd.integer(mg["last"], "optimise.macs.last", d.macs_first, 1e9);
      d.macs_step = rd.integer(mg["step"], "optimise.macs.step", 1, 1e9);
      if ((d.macs_last - d.macs_first) / d.macs_step >= 4096) rd.fail("optimise.macs.step", "gives more than 4096 MAC counts");
      const int unit = sys.nmp.chip.memory.banks * sys.nmp.dot_engines;
      for (const char* k : {"first", "step"}) {
        const int v = std::string_view(k) == "first" ? d.macs_first : d.macs_step;
        if (v % unit != 0) rd.fail(std::string("optimise.macs.") + k, "must be a multiple of banks x dot_engines (" + std::to_string(unit) + "), got " + std::to_string(v));
      }
    }
    if (o.contains("pes_per_pu")) d.pes_per_pu = rd.int_list(o["pes_per_pu"], "optimise.pes_per_pu", 1, 1 << 20);
    if (o.contains("layers")) d.layers = rd.int_list(o["layers"], "optimise.layers", 2, 4096);
    if (o.contains("tiers")) d.tiers = rd.int_list(o["tiers"], "optimise.tiers", 1, 4096);
    if (o.contains("f_min_GHz") != o.contains("f_max_GHz")) rd.fail(o.contains("f_min_GHz") ? "optimise.f_max_GHz" : "optimise.f_min_GHz", "is missing (a clock range needs both ends)");
    if (o.contains("f_min_GHz")) {
      d.f_min_GHz = rd.number(o["f_min_GHz"], "optimise.f_min_GHz", 0.01, 100);
      d.f_max_GHz = rd.number(o["f_max_GHz"], "optimise.f_max_GHz", d.f_min_GHz, 100);
    }
    double designs = double(d.pes_per_pu.empty() ? 1 : d.pes_per_pu.size()) * double(d.tiers.empty() ? 1 : d.tiers.size()) *
                     double(d.layers.empty() ? 1 : d.layers.size());
    if (d.macs_step > 0) {
      const int mac_counts = (d.macs_last - d.macs_first) / d.macs_step + 1;  // whole steps: a count
      designs *= double(mac_counts);
    }
    if (designs > 100000) rd.fail("optimise", "spans " + detail::to_text(designs) + " integer designs, more than the limit 100000");
    // The domain's own checks (divisors of the banks, tiers <= layers), named by their key.
    try {
      design_domain dd;
      if (d.macs_step > 0) dd.macs = mac_grid(sys, d.macs_first, d.macs_last, d.macs_step);
      dd.pes_per_pu = d.pes_per_pu;
      dd.tiers = d.tiers;
      dd.layers = d.layers;
      detail::check_domain(sys, dd);
    } catch (const config_error& e) {
      std::string f = e.field();
      if (f.rfind("domain.", 0) == 0) f = "optimise." + f.substr(7);
      rd.fail(f, std::string("is not a valid design domain: ") + e.what());
    }
  } else if (s.study == study_kind::optimise) {
    rd.fail("optimise", "is missing (the domain of study optimise)");
  }
  return s;
}

}  // namespace v0
}  // namespace strata
