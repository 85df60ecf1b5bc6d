// SPDX-License-Identifier: MIT
// _strata: the C++ half of the Python package `strata` (python/strata/__init__.py is the other).
//
// One translation unit over the same headers the CLI uses: `strata.evaluate` is
// strata::eval_step_json (strata/report/eval_step.hpp, the code of `strata-eval eval --json`),
// `strata.serve` is read_serving_scenario + run_scenario (`strata-eval serve --json`), and
// `strata.paper_rows` is paper_rows + report_row_json (`strata-paper-report --json`). Results cross
// into Python through the library's JSON writers (nlohmann::json -> dict/list/str/float/int/bool/
// None, quantities converted to SI numbers with unit-suffixed keys, `--units si`); model and
// machine objects read and write their fields through `visit_fields` (a quantity is a plain SI
// float). A strata::config_error becomes strata.ConfigError with its `field`.

#include <pybind11/pybind11.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>  // std::copy, std::min
#include <chrono>     // std::chrono::steady_clock (the overhead benchmark)
#include <cmath>      // std::isfinite, std::floor, std::fabs
#include <cstdint>    // std::int64_t, std::uint64_t
#include <filesystem>  // std::filesystem::path (a scenario file's folder)
#include <fstream>    // std::ofstream
#include <limits>     // std::numeric_limits
#include <optional>   // std::optional
#include <sstream>    // std::ostringstream (the optimise study's summary)
#include <string>     // std::string
#include <unordered_map>  // the key cache of json_to_pyobject
#include <utility>    // std::move, std::pair
#include <variant>    // std::get, std::holds_alternative
#include <vector>     // std::vector

#include "strata/core/data_dir.hpp"
#include "strata/core/error.hpp"
#include "strata/core/files.hpp"
#include "strata/core/json.hpp"
#include "strata/core/json_plain.hpp"
#include "strata/core/limits.hpp"
#include "strata/hcrmap/hcrmap_run.hpp"
#include "strata/hcrmap/trace_replay_json.hpp"
#include "strata/report/eval_row.hpp"
#include "strata/report/eval_step.hpp"
#include "strata/report/explain_row.hpp"
#include "strata/report/paper_json.hpp"
#include "strata/report/paper_rows.hpp"
#include "strata/report/scenario.hpp"
#include "strata/report/scenario_files.hpp"
#include "strata/report/scenario_io.hpp"
#include "strata/report/scenario_json.hpp"
#include "strata/core/sweep.hpp"
#include "strata/serving/serving_json.hpp"
#include "strata/version.hpp"
#include "strata/workload/hf_config.hpp"
#include "strata/workload/presets.hpp"

namespace py = pybind11;

namespace {

// ---- JSON <-> Python ---------------------------------------------------------------------------

// Written with the CPython API directly (a new reference per node, no wrapper objects): the
// conversion is most of a call's overhead over the C++ evaluation (python/bench/overhead.py).
// Object keys repeat across a result (name, time_s, energy_J, ...): each is made once, kept for
// the module's lifetime (at most 4096 distinct keys; the GIL guards the table).
PyObject* key_object(const std::string& k) {
  static std::unordered_map<std::string, PyObject*> keys;
  if (const auto it = keys.find(k); it != keys.end()) {
    Py_INCREF(it->second);
    return it->second;
  }
  PyObject* key = PyUnicode_DecodeUTF8(k.data(), static_cast<Py_ssize_t>(k.size()), "replace");
  if (key != nullptr && keys.size() < 4096) {
    Py_INCREF(key);
    keys.emplace(k, key);
  }
  return key;
}

PyObject* json_to_pyobject(const strata::json& j) {
  switch (j.type()) {
    case strata::json::value_t::boolean: return PyBool_FromLong(j.get<bool>() ? 1 : 0);
    case strata::json::value_t::number_integer: return PyLong_FromLongLong(j.get<std::int64_t>());
    case strata::json::value_t::number_unsigned: return PyLong_FromUnsignedLongLong(j.get<std::uint64_t>());
    case strata::json::value_t::number_float: return PyFloat_FromDouble(j.get<double>());
    case strata::json::value_t::string: {
      const auto& s = j.get_ref<const std::string&>();
      // Names come from files: invalid UTF-8 is replaced (U+FFFD), as the CLI writes it.
      return PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace");
    }
    case strata::json::value_t::array: {
      PyObject* l = PyList_New(static_cast<Py_ssize_t>(j.size()));
      if (l == nullptr) return nullptr;
      Py_ssize_t i = 0;
      for (const auto& e : j) {
        PyObject* v = json_to_pyobject(e);
        if (v == nullptr) {
          Py_DECREF(l);
          return nullptr;
        }
        PyList_SET_ITEM(l, i++, v);  // steals v
      }
      return l;
    }
    case strata::json::value_t::object: {
      PyObject* d = PyDict_New();
      if (d == nullptr) return nullptr;
      for (const auto& [k, e] : j.items()) {
        PyObject* v = json_to_pyobject(e);
        PyObject* key = v == nullptr ? nullptr : key_object(k);
        const int rc = key == nullptr ? -1 : PyDict_SetItem(d, key, v);
        Py_XDECREF(key);
        Py_XDECREF(v);
        if (rc != 0) {
          Py_DECREF(d);
          return nullptr;
        }
      }
      return d;
    }
    default: Py_RETURN_NONE;  // null (and binary, never written by strata)
  }
}

py::object json_to_py(const strata::json& j) {
  PyObject* o = json_to_pyobject(j);
  if (o == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(o);
}

// A Python value as JSON (dict with str keys, list/tuple, str, bool, int, float, None); anything
// else is a config_error naming `path`.
strata::json py_to_json(py::handle h, const std::string& path) {
  if (h.is_none()) return nullptr;
  if (py::isinstance<py::bool_>(h)) return h.cast<bool>();
  if (py::isinstance<py::int_>(h)) {
    try {
      return h.cast<std::int64_t>();
    } catch (const py::cast_error&) {
      throw strata::config_error(path, "[strata.python] " + strata::detail::where(path) + " is an integer beyond 64 bits");
    }
  }
  if (py::isinstance<py::float_>(h)) return h.cast<double>();
  if (py::isinstance<py::str>(h)) return h.cast<std::string>();
  if (py::isinstance<py::dict>(h)) {
    strata::json o = strata::json::object();
    for (const auto& [k, v] : h.cast<py::dict>()) {
      if (!py::isinstance<py::str>(k)) {
        throw strata::config_error(path, "[strata.python] " + strata::detail::where(path) + " has a key that is not a string");
      }
      const std::string key = k.cast<std::string>();
      o[key] = py_to_json(v, path.empty() ? key : path + "." + key);
    }
    return o;
  }
  if (py::isinstance<py::list>(h) || py::isinstance<py::tuple>(h)) {
    strata::json a = strata::json::array();
    std::size_t i = 0;
    for (const auto& v : h) a.push_back(py_to_json(v, path + "[" + std::to_string(i++) + "]"));
    return a;
  }
  throw strata::config_error(path, "[strata.python] " + strata::detail::where(path) + " has a value of Python type " +
                                       py::str(py::type::of(h).attr("__name__")).cast<std::string>() +
                                       " (expected dict, list, str, int, float, bool or None)");
}

// The library's JSON in SI units (`--units si`) as Python objects.
py::object si_to_py(strata::json&& j) {
  strata::convert_units(j, strata::json_units::si);
  return json_to_py(j);
}

// ---- Fields through visit_fields: quantities as SI floats ------------------------------------

template <class X>
py::object value_to_py(const X& x) {
  namespace d = strata::detail;
  if constexpr (d::is_quantity<X>::value) {
    return py::float_(static_cast<double>(x.si()));
  } else if constexpr (d::is_optional<X>::value) {
    return x ? value_to_py(*x) : py::none();
  } else if constexpr (d::has_fields<X>) {
    py::dict out;
    X::visit_fields(x, [&](const char* key, const auto& f) { out[py::str(key)] = value_to_py(f); });
    return out;
  } else if constexpr (d::is_vector<X>::value) {
    py::list out;
    for (const auto& e : x) out.append(value_to_py(e));
    return out;
  } else {
    return json_to_py(d::write_value(x));  // bool, numbers, strings, enums (their names)
  }
}

template <class X>
void value_from_py(py::handle h, X& out, const std::string& path) {
  namespace d = strata::detail;
  if constexpr (d::is_quantity<X>::value) {
    if (py::isinstance<py::bool_>(h) || !(py::isinstance<py::float_>(h) || py::isinstance<py::int_>(h))) {
      throw strata::config_error(path, "[strata.python] " + path + " is a quantity: a number in SI units (" +
                                           std::string(strata::detail::si_symbol<typename X::dimension>()) + ")");
    }
    const double v = h.cast<double>();
    if (!std::isfinite(v)) throw strata::config_error(path, "[strata.python] " + path + " must be finite, got " + strata::detail::to_text(v));
    out = X::from_si(typename X::value_type(v));
  } else if constexpr (d::is_optional<X>::value) {
    if (h.is_none()) {
      out.reset();
    } else {
      typename X::value_type v = out ? *out : typename X::value_type{};
      value_from_py(h, v, path);
      out = std::move(v);
    }
  } else if constexpr (d::has_fields<X>) {
    if (!py::isinstance<py::dict>(h)) throw strata::config_error(path, "[strata.python] " + path + " must be a dict");
    X next = out;
    for (const auto& item : h.cast<py::dict>()) {
      const std::string key = py::str(item.first).cast<std::string>();
      const py::handle v = item.second;  // not a structured binding: a lambda captures it (Clang 14)
      bool found = false;
      X::visit_fields(next, [&](const char* name, auto& f) {
        if (!found && key == name) {
          value_from_py(v, f, path + "." + key);
          found = true;
        }
      });
      if (!found) throw strata::config_error(path + "." + key, "[strata.python] unknown key " + path + "." + key);
    }
    out = std::move(next);
  } else if constexpr (d::is_vector<X>::value) {
    if (!(py::isinstance<py::list>(h) || py::isinstance<py::tuple>(h))) {
      throw strata::config_error(path, "[strata.python] " + path + " must be a list");
    }
    X next;
    std::size_t i = 0;
    for (const auto& e : h) {
      typename X::value_type v{};
      value_from_py(e, v, path + "[" + std::to_string(i++) + "]");
      next.push_back(std::move(v));
    }
    out = std::move(next);
  } else {
    d::read_value(py_to_json(h, path), out, path);  // the JSON reader's checks (type, range, enum names)
  }
}

template <class P>
py::list field_names() {
  py::list names;
  P p{};
  P::visit_fields(p, [&](const char* key, auto&) { names.append(py::str(key)); });
  return names;
}

template <class P>
py::object get_field(const P& p, const std::string& name) {
  py::object out;
  P::visit_fields(p, [&](const char* key, const auto& f) {
    if (name == key) out = value_to_py(f);
  });
  if (!out) throw py::attribute_error("no field '" + name + "'");
  return out;
}

// Sets one field (on a copy: a failed set leaves the object as it was).
template <class P>
void set_field(P& p, const std::string& name, py::handle v) {
  P next = p;
  bool found = false;
  P::visit_fields(next, [&](const char* key, auto& f) {
    if (!found && name == key) {
      value_from_py(v, f, name);
      found = true;
    }
  });
  if (!found) throw strata::config_error(name, "[strata.python] unknown field " + name);
  p = std::move(next);
}

// ---- Models and machines ---------------------------------------------------------------------

struct py_model {
  strata::model m;
  std::vector<std::string> ignored_keys;  // config keys the reader ignored (the coverage verdict)
  std::vector<std::string> warnings;      // the reader's warnings (Python issues them)
};

// A preset name (case-insensitive, '-' = '_') or a Hugging Face config.json, as strata-eval reads --model.
py_model load_model(const std::string& arg) {
  for (const auto& n : strata::preset_names()) {
    if (strata::same_preset_name(n, arg)) return {strata::preset(n), strata::preset_ignored_keys(n), {}};
  }
  std::error_code ec;
  if (std::filesystem::exists(arg, ec)) {
    strata::hf_read_result r = strata::load_hf_config_with_warnings(arg);
    py_model out{std::move(r.m), strata::warning_keys(r.warnings), {}};
    for (const auto& w : r.warnings) out.warnings.push_back(w.message);
    return out;
  }
  std::string list;
  for (const auto& n : strata::preset_names()) list += (list.empty() ? "" : ", ") + n;
  throw strata::config_error("model", "unknown model preset " + strata::detail::quoted_path(arg) +
                                          " and no such file (presets: " + list + ")");
}

enum class machine_kind { gpu, roofline, stratum };

machine_kind kind_of(const strata::eval_machine& m) {
  return m.stratum ? machine_kind::stratum : m.gpu ? machine_kind::gpu : machine_kind::roofline;
}

// Visits the machine's parameter struct (gpu_params, roofline_machine or stratum_system_params).
template <class F>
decltype(auto) with_params(strata::eval_machine& m, F&& f) {
  if (m.stratum) return f(*m.stratum);
  if (m.gpu) return f(*m.gpu);
  return f(m.machine);
}
template <class F>
decltype(auto) with_params(const strata::eval_machine& m, F&& f) {
  if (m.stratum) return f(*m.stratum);
  if (m.gpu) return f(*m.gpu);
  return f(m.machine);
}

strata::gpu_knob_set knobs_of(const std::string& s) {
  if (s == "cited") return strata::gpu_knob_set::cited;
  if (s == "fitted") return strata::gpu_knob_set::fitted;
  throw strata::config_error("knobs", "[strata.python] knobs must be cited or fitted, got " + strata::detail::quoted_path(s));
}

// ---- evaluate ---------------------------------------------------------------------------------

// The eval options Python passes (besides model and machine), as the CLI's options with '_' for '-'.
constexpr const char* eval_option_names[] = {"phase", "batch", "context", "devices", "max_devices", "trace",
                                             "trace_position", "trace_seed", "trace_reuse", "no_tiering", "hbm_nmp",
                                             "detail", "expert_mapping", "hit_rate", "ep", "attention",
                                             "redundant_experts", "ep_imbalance"};

template <class T>
T cast_arg(py::handle v, const std::string& key) {
  try {
    return v.cast<T>();
  } catch (const py::cast_error&) {
    throw strata::config_error(key, "[strata.python] " + key + " has the wrong type (" +
                                        py::str(py::type::of(v).attr("__name__")).cast<std::string>() + ")");
  }
}

// The CLI's request built from keyword arguments one at a time (a sweep sets its axes on a copy of
// the fixed arguments' builder); `done` checks that phase, batch and context were given.
struct request_builder {
  strata::eval_request r;
  bool phase = false, batch = false, context = false;

  request_builder() { r.with_breakdown = true; }

  // Sets option `key` to `v` (None: the option's default, as if not given).
  void set(const std::string& key, py::handle v) {
    const bool none = v.is_none();
    if (key == "phase") {
      const std::string p = none ? std::string() : cast_arg<std::string>(v, key);
      if (p != "decode" && p != "prefill") {
        throw strata::config_error("phase", "[strata.python] phase must be decode or prefill, got " + strata::detail::quoted_path(p));
      }
      r.mode = p == "decode" ? strata::phase::decode : strata::phase::prefill;
      phase = true;
    } else if (key == "batch") {
      batch = !none;
      r.batch = none ? 0 : cast_arg<int>(v, key);
    } else if (key == "context") {
      context = !none;
      r.context = none ? 0 : cast_arg<int>(v, key);
    } else if (key == "devices") {
      r.devices = none ? std::nullopt : std::optional<int>(cast_arg<int>(v, key));
    } else if (key == "max_devices") {
      r.max_devices = none ? std::nullopt : std::optional<int>(cast_arg<int>(v, key));
    } else if (key == "trace") {
      r.trace = none ? std::string() : cast_arg<std::string>(v, key);
    } else if (key == "trace_position") {
      r.trace_position = none ? std::nullopt : std::optional<int>(cast_arg<int>(v, key));
    } else if (key == "trace_seed") {
      r.trace_seed = none ? std::nullopt : std::optional<std::uint64_t>(cast_arg<std::uint64_t>(v, key));
    } else if (key == "trace_reuse") {
      r.trace_reuse = !none && cast_arg<bool>(v, key);
    } else if (key == "no_tiering") {
      r.no_tiering = !none && cast_arg<bool>(v, key);
    } else if (key == "hbm_nmp") {
      r.hbm_nmp = !none && cast_arg<bool>(v, key);
    } else if (key == "detail") {
      r.detail = none ? std::string() : cast_arg<std::string>(v, key);
    } else if (key == "expert_mapping") {
      r.expert_mapping = none ? std::string() : cast_arg<std::string>(v, key);
    } else if (key == "hit_rate") {
      r.hit_rate = none ? std::nullopt : std::optional<double>(cast_arg<double>(v, key));
    } else if (key == "ep") {
      r.ep = none ? std::nullopt : std::optional<int>(cast_arg<int>(v, key));
    } else if (key == "attention") {
      r.attention = none ? std::string("tp") : cast_arg<std::string>(v, key);
    } else if (key == "redundant_experts") {
      r.redundant_experts = none ? 0 : cast_arg<int>(v, key);
    } else if (key == "ep_imbalance") {
      r.ep_imbalance = none ? std::nullopt : std::optional<std::string>(cast_arg<std::string>(v, key));
    } else {
      std::string list;
      for (const char* n : eval_option_names) list += (list.empty() ? "" : ", ") + std::string(n);
      throw strata::config_error(key, "[strata.python] unknown argument " + key + " (known: model, machine, " + list + ")");
    }
  }

  const strata::eval_request& done() const {
    if (!phase) throw strata::config_error("phase", "[strata.python] phase must be decode or prefill, got " + strata::detail::quoted_path(std::string()));
    if (!batch) throw strata::config_error("batch", "[strata.python] batch is required");
    if (!context) throw strata::config_error("context", "[strata.python] context is required");
    return r;
  }
};

// The keyword arguments of strata.evaluate (besides model and machine) as the CLI's request.
strata::eval_request request_of(const py::dict& kw) {
  request_builder b;
  // Unknown keys first (the message lists the known ones), then the values in the CLI's order.
  for (const auto& [k, v] : kw) {
    const std::string key = py::str(k).cast<std::string>();
    bool known = false;
    for (const char* n : eval_option_names) known = known || key == n;
    if (!known) b.set(key, v);
  }
  for (const char* n : eval_option_names) {
    if (kw.contains(n)) b.set(n, kw[n]);
  }
  return b.done();
}

// (result as SI dict, warnings)
py::tuple evaluate(const py_model& m, const strata::eval_machine& mach, const py::dict& kw) {
  const strata::eval_request req = request_of(kw);
  std::vector<std::string> warnings;
  strata::json j = strata::eval_step_json(m.m, m.ignored_keys, mach, req,
                                          [&](const std::string& w) { warnings.push_back(w); });
  return py::make_tuple(si_to_py(std::move(j)), warnings);
}

// Seconds per call of the C++ evaluation alone (eval_step_json and the SI conversion, no Python
// objects), over `n` calls: the baseline the Python call's overhead is measured against.
double bench_cpp(const py_model& m, const strata::eval_machine& mach, const py::dict& kw, int n) {
  const strata::eval_request req = request_of(kw);
  const auto t0 = std::chrono::steady_clock::now();
  double sink = 0.0;
  for (int i = 0; i < n; ++i) {
    strata::json j = strata::eval_step_json(m.m, m.ignored_keys, mach, req, [](const std::string&) {});
    strata::convert_units(j, strata::json_units::si);
    sink += j.size();
  }
  const std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t0;
  if (sink < 0) return 0.0;  // keeps the loop
  return dt.count() / n;
}

// Seconds per call of the C++ evaluation and of the conversion of its result into Python objects,
// over `n` calls each: the parts of a call the benchmark separates from its fixed overhead.
py::tuple bench_parts(const py_model& m, const strata::eval_machine& mach, const py::dict& kw, int n) {
  const double eval = bench_cpp(m, mach, kw, n);
  const strata::eval_request req = request_of(kw);
  strata::json j = strata::eval_step_json(m.m, m.ignored_keys, mach, req, [](const std::string&) {});
  strata::convert_units(j, strata::json_units::si);
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) py::object o = json_to_py(j);
  const std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t0;
  return py::make_tuple(eval, dt.count() / n);
}

// ---- sweep ------------------------------------------------------------------------------------------

// A column of a sweep's frame, filled row by row: numbers (float64, NaN where a row has none),
// integers (int64 when every row has one), booleans (bool when every row has one), else objects.
struct sweep_column {
  std::vector<const strata::eval_cell*> cells;  // one per point (nullptr: the row has no such key)
};

// Python objects of one column: a NumPy array for numbers, integers and booleans present in every
// row (integers with a gap become float64 with NaN, as pandas would make them), else a list.
py::object column_to_py(const sweep_column& c) {
  const std::size_t n = c.cells.size();
  bool all_present = true, all_int = true, all_num = true, all_bool = true;
  for (const auto* v : c.cells) {
    if (v == nullptr) {
      all_present = false;
      continue;
    }
    const bool is_int = std::holds_alternative<std::int64_t>(*v), is_dbl = std::holds_alternative<double>(*v);
    all_int = all_int && is_int;
    all_num = all_num && (is_int || is_dbl);
    all_bool = all_bool && std::holds_alternative<bool>(*v);
  }
  if (all_int && all_present) {
    py::array_t<std::int64_t> a(static_cast<py::ssize_t>(n));
    auto* p = a.mutable_data();
    for (std::size_t i = 0; i < n; ++i) p[i] = std::get<std::int64_t>(*c.cells[i]);
    return a;
  }
  if (all_num) {
    py::array_t<double> a(static_cast<py::ssize_t>(n));
    auto* p = a.mutable_data();
    for (std::size_t i = 0; i < n; ++i) {
      const auto* v = c.cells[i];
      p[i] = v == nullptr                            ? std::numeric_limits<double>::quiet_NaN()
             : std::holds_alternative<double>(*v)    ? std::get<double>(*v)
                                                     : static_cast<double>(std::get<std::int64_t>(*v));
    }
    return a;
  }
  if (all_bool && all_present) {
    py::array_t<bool> a(static_cast<py::ssize_t>(n));
    auto* p = a.mutable_data();
    for (std::size_t i = 0; i < n; ++i) p[i] = std::get<bool>(*c.cells[i]);
    return a;
  }
  // Strings (a verdict repeats across the rows: each distinct one is made once) and mixed columns.
  std::unordered_map<std::string, py::object> made;
  py::list out(static_cast<py::ssize_t>(n));
  for (std::size_t i = 0; i < n; ++i) {
    const auto* v = c.cells[i];
    py::object o;
    if (v == nullptr) {
      o = py::none();
    } else if (const auto* str = std::get_if<std::string>(v)) {
      auto it = made.find(*str);
      if (it == made.end()) it = made.emplace(*str, py::reinterpret_steal<py::object>(
                                                         PyUnicode_DecodeUTF8(str->data(), static_cast<Py_ssize_t>(str->size()), "replace"))).first;
      if (!it->second) throw py::error_already_set();
      o = it->second;
    } else if (const auto* b = std::get_if<bool>(v)) {
      o = py::bool_(*b);
    } else if (const auto* i = std::get_if<std::int64_t>(v)) {
      o = py::int_(*i);
    } else {
      o = py::float_(std::get<double>(*v));
    }
    out[static_cast<py::size_t>(i)] = std::move(o);
  }
  return out;
}

// The cartesian product of `axes` (names and value lists; the last axis varies fastest) with the
// arguments `fixed`, each point evaluated as strata.evaluate would (`model` and `machine` are
// _Model / _Machine handles, on an axis or fixed) but as a flat row (strata/report/eval_row.hpp):
// no breakdown tree, no operator rows, no JSON. Returns (columns: a dict of key -> array or list
// in the order the keys first appear, distinct warnings, errors: a list of (point, field,
// message)). A point refused raises ConfigError naming the field, unless `keep_errors`: then its
// row has no cells and its error is listed.
py::tuple sweep(const std::vector<std::string>& names, const std::vector<py::list>& values, const py::dict& fixed,
                bool keep_errors) {
  if (names.size() != values.size()) throw strata::config_error("axes", "[strata.python] axes: names and values differ in number");
  const py_model* fixed_model = nullptr;
  const strata::eval_machine* fixed_machine = nullptr;
  request_builder base;
  bool phase_given = false;
  for (const auto& [k, v] : fixed) {
    const std::string key = py::str(k).cast<std::string>();
    if (key == "model") {
      if (!v.is_none()) fixed_model = &v.cast<const py_model&>();
    } else if (key == "machine") {
      if (!v.is_none()) fixed_machine = &v.cast<const strata::eval_machine&>();
    } else {
      base.set(key, v);
      phase_given = phase_given || key == "phase";
    }
  }
  std::size_t points = 1;
  int model_axis = -1, machine_axis = -1;
  for (std::size_t a = 0; a < names.size(); ++a) {
    if (values[a].empty()) throw strata::config_error(names[a], "[strata.python] axis " + names[a] + " has no values");
    points *= values[a].size();
    if (points > 10'000'000) throw strata::config_error("axes", "[strata.python] more than 10 000 000 points");
    if (names[a] == "model") model_axis = static_cast<int>(a);
    if (names[a] == "machine") machine_axis = static_cast<int>(a);
  }
  if (model_axis < 0 && fixed_model == nullptr) throw strata::config_error("model", "[strata.python] model is required");
  if (machine_axis < 0 && fixed_machine == nullptr) throw strata::config_error("machine", "[strata.python] machine is required");

  // The points' requests, models and machines (with the GIL: the axis values are Python objects).
  struct point {
    strata::eval_request req;
    const py_model* m;
    const strata::eval_machine* mach;
  };
  struct failure {
    std::size_t point;
    std::string field, message;
  };
  std::vector<failure> failures;
  // A point whose arguments are refused (an axis value of the wrong type or out of the choices)
  // is a failure like a refused evaluation: its m stays null and it is not evaluated.
  std::vector<point> todo(points, point{{}, nullptr, nullptr});
  std::vector<std::size_t> idx(names.size(), 0);
  for (std::size_t p = 0; p < points && (keep_errors || failures.empty()); ++p) {
    try {
      request_builder b = base;
      const py_model* m = fixed_model;
      const strata::eval_machine* mach = fixed_machine;
      for (std::size_t a = 0; a < names.size(); ++a) {
        const py::object v = values[a][idx[a]];
        if (static_cast<int>(a) == model_axis) {
          m = &v.cast<const py_model&>();
        } else if (static_cast<int>(a) == machine_axis) {
          mach = &v.cast<const strata::eval_machine&>();
        } else {
          b.set(names[a], v);
        }
      }
      todo[p] = {b.done(), m, mach};
    } catch (const strata::config_error& e) {
      failures.push_back({p, e.field(), e.what()});
    }
    for (std::size_t a = names.size(); a-- > 0;) {  // the next index, the last axis fastest
      if (++idx[a] < values[a].size()) break;
      idx[a] = 0;
    }
  }

  // The rows, without the GIL.
  std::vector<strata::eval_row> rows(points);
  std::vector<std::string> warnings;
  std::unordered_map<std::string, bool> seen_warning;
  if (keep_errors || failures.empty()) {
    py::gil_scoped_release release;
    const strata::eval_warning_sink warn = [&](const std::string& w) {
      if (seen_warning.emplace(w, true).second) warnings.push_back(w);
    };
    std::size_t refused = 0;  // the failures so far are in point order
    for (std::size_t p = 0; p < points; ++p) {
      if (todo[p].m == nullptr) {
        ++refused;
        continue;
      }
      try {
        rows[p] = strata::eval_step_row(todo[p].m->m, todo[p].m->ignored_keys, *todo[p].mach, todo[p].req, warn);
      } catch (const strata::config_error& e) {
        failures.insert(failures.begin() + static_cast<std::ptrdiff_t>(refused++), {p, e.field(), e.what()});
        if (!keep_errors) break;
      }
    }
  }
  if (!keep_errors && !failures.empty()) {
    const failure& f = failures.front();
    // The point's axis values, so that the message says which point was refused.
    std::string where;
    std::size_t rest = f.point;
    std::vector<std::size_t> at(names.size());
    for (std::size_t a = names.size(); a-- > 0;) {
      at[a] = rest % values[a].size();
      rest /= values[a].size();
    }
    for (std::size_t a = 0; a < names.size(); ++a) {
      where += (a == 0 ? "" : ", ") + names[a] + "=" + py::repr(values[a][at[a]]).cast<std::string>();
    }
    throw strata::config_error(f.field, f.message + " (sweep point " + std::to_string(f.point) + ": " + where + ")");
  }

  // Columns in the order their keys first appear.
  std::unordered_map<std::string, std::size_t> index;
  std::vector<std::string> keys;
  std::vector<sweep_column> cols;
  for (std::size_t p = 0; p < points; ++p) {
    for (const auto& [k, v] : rows[p].cells) {
      auto it = index.find(k);
      if (it == index.end()) {
        it = index.emplace(k, cols.size()).first;
        keys.push_back(k);
        cols.push_back({std::vector<const strata::eval_cell*>(points, nullptr)});
      }
      cols[it->second].cells[p] = &v;
    }
  }
  py::dict out;
  for (std::size_t c = 0; c < cols.size(); ++c) out[py::str(keys[c])] = column_to_py(cols[c]);
  py::list errors;
  for (const auto& f : failures) errors.append(py::make_tuple(f.point, f.field, f.message));
  return py::make_tuple(out, warnings, errors);
}

// Seconds per point of the C++ side of a sweep (eval_step_row alone, no Python objects), over `n`
// repeats of one point: the baseline of python/bench/sweep.py.
double bench_row(const py_model& m, const strata::eval_machine& mach, const py::dict& kw, int n) {
  const strata::eval_request req = request_of(kw);
  const auto t0 = std::chrono::steady_clock::now();
  std::size_t sink = 0;
  for (int i = 0; i < n; ++i) sink += strata::eval_step_row(m.m, m.ignored_keys, mach, req, [](const std::string&) {}).cells.size();
  const std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t0;
  if (sink == 0) return 0.0;
  return dt.count() / n;
}

// ---- run: a scenario file's study (strata-eval run) ----------------------------------------------

// The table `strata-eval run SCENARIO` writes (report/scenario_io.hpp: `index`, the axes, the
// outputs; the optimise study: `design` and optimise_columns()), column by column.
struct scenario_table {
  std::string name, study, summary;  // summary: the optimise study's text (the CLI's standard output)
  std::vector<std::string> designs;  // the optimise study's `design` column
  std::vector<std::string> names;    // the numeric columns, in order
  std::vector<std::vector<double>> cols;
  std::vector<bool> integer;  // `index` and the study's integer axes
};

// The scenario's text and the folder its relative paths are taken in first: a path (read under the
// opening rule within limits().json_file_bytes; its own folder) or the scenario as a dict (`base_dir`,
// default the working directory).
std::pair<std::string, std::string> scenario_text(const py::object& scenario, const std::string& base_dir,
                                                  std::string& source) {
  std::string text, dir;
  if (py::isinstance<py::str>(scenario)) {
    source = scenario.cast<std::string>();
    text = strata::read_input_file(source, "scenario", strata::limits().json_file_bytes, "json_file_bytes");
    dir = std::filesystem::path(source).parent_path().string();
  } else {
    text = strata::dump_json(py_to_json(scenario, ""), -1);
    if (text.size() > static_cast<std::size_t>(strata::limits().json_file_bytes)) {
      throw strata::config_error("scenario", "[strata.python] the scenario is larger than limits().json_file_bytes");
    }
    source = "scenario";
    dir = base_dir;
  }
  return {std::move(text), dir.empty() ? std::string(".") : dir};
}

// The CLI's code on a scenario's text (read_scenario; the optimise study, or scenario_model +
// stream_sweep on `threads` threads, 0: the machine's cores); no Python object, callable without
// the GIL. `data_hint` ends a message about a file the scenario names.
scenario_table compute_scenario_table(const std::string& text, const std::string& source, const std::string& dir,
                                      const std::string& data_dir, const std::string& data_hint, unsigned threads) {
  const strata::scenario s = strata::read_scenario(text, source);
  scenario_table t;
  t.name = s.name;
  t.study = strata::study_name(s.study);
  if (s.study == strata::study_kind::optimise) {
    const auto r = strata::run_optimise_study(s, threads);
    std::ostringstream os;
    strata::write_optimise_summary(os, s, r);
    t.summary = os.str();
    t.designs = {"optimum", "baseline"};
    t.names = strata::optimise_columns();
    t.cols.assign(t.names.size(), {});
    t.integer.assign(t.names.size(), false);
    for (const auto& row : r.rows) {
      for (std::size_t c = 0; c < t.names.size(); ++c) t.cols[c].push_back(row.at(c));
    }
    return t;
  }
  strata::scenario_inputs in;
  try {
    in = strata::load_scenario_inputs(s, data_dir, dir);
  } catch (const strata::config_error& e) {
    throw strata::config_error(e.field(), std::string(e.what()) + "; " + data_hint);
  }
  const strata::scenario_model model(s, std::move(in));
  const auto& space = model.space();
  const auto columns = strata::scenario_columns(s.study);
  const auto pick = strata::detail::output_indices(s, columns);
  const auto specs = strata::scenario_axes(s.study);
  t.names.push_back("index");
  t.integer.push_back(true);
  for (const auto& a : space.axes()) {
    t.names.push_back(a.name);
    bool is_int = false;
    for (const auto& spec : specs) is_int = is_int || (a.name == spec.name && spec.integer);
    t.integer.push_back(is_int);
  }
  for (std::size_t i : pick) {
    t.names.push_back(columns[i]);
    t.integer.push_back(false);
  }
  t.cols.assign(t.names.size(), {});
  for (auto& c : t.cols) c.reserve(space.size());
  const std::size_t n_axes = space.axes().size();
  strata::stream_sweep(
      space, model,
      [&](const strata::design_point& x, const std::vector<double>& row) {
        t.cols[0].push_back(static_cast<double>(x.index()));
        for (std::size_t a = 0; a < n_axes; ++a) t.cols[1 + a].push_back(x.values()[a]);
        for (std::size_t k = 0; k < pick.size(); ++k) t.cols[1 + n_axes + k].push_back(row.at(pick[k]));
      },
      strata::sweep_options{.threads = threads});
  return t;
}

// strata.run: (column names in order, dict of name -> NumPy array (int64 for `index` and the
// study's integer axes, whose values are integers; float64 else, NaN where the CLI writes nan /
// null) or list of str (`design`), the optimise study's summary, the scenario's name, its study).
// The scenario's relative paths: beside a scenario file, or in `base_dir` for a dict; then in
// `data_dir`. The points are evaluated without the GIL.
py::tuple run_scenario(const py::object& scenario, const std::string& base_dir, const std::string& data_dir,
                       const std::string& data_hint, unsigned threads) {
  std::string source;
  const auto [text, dir] = scenario_text(scenario, base_dir, source);
  scenario_table t;
  {
    py::gil_scoped_release release;
    t = compute_scenario_table(text, source, dir, data_dir, data_hint, threads);
  }
  py::dict out;
  py::list order;
  if (!t.designs.empty()) {
    order.append("design");
    out["design"] = t.designs;
  }
  for (std::size_t c = 0; c < t.names.size(); ++c) {
    order.append(t.names[c]);
    const auto& col = t.cols[c];
    bool whole = t.integer[c];  // the reader checks an integer axis's values; kept float if one is not
    for (std::size_t i = 0; whole && i < col.size(); ++i) whole = col[i] == std::floor(col[i]) && std::fabs(col[i]) < 9.0e15;
    if (whole) {
      py::array_t<std::int64_t> a(static_cast<py::ssize_t>(col.size()));
      auto* p = a.mutable_data();
      for (std::size_t i = 0; i < col.size(); ++i) p[i] = static_cast<std::int64_t>(col[i]);
      out[py::str(t.names[c])] = a;
    } else {
      py::array_t<double> a(static_cast<py::ssize_t>(col.size()));
      std::copy(col.begin(), col.end(), a.mutable_data());
      out[py::str(t.names[c])] = a;
    }
  }
  return py::make_tuple(order, out, t.summary, t.name, t.study);
}

// Seconds per run of the C++ side of strata.run (the scenario file read, its files loaded, every
// point evaluated, the columns: scenario_text + compute_scenario_table; no Python object), best of
// `n`: the baseline of python/bench/run.py.
double bench_run(const py::object& scenario, const std::string& data_dir, unsigned threads, int n) {
  double best = std::numeric_limits<double>::infinity();
  for (int i = 0; i < n; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    std::string source;
    const auto [text, dir] = scenario_text(scenario, "", source);
    std::size_t rows = 0;
    {
      py::gil_scoped_release release;
      rows = compute_scenario_table(text, source, dir, data_dir, "", threads).cols.size();
    }
    const std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t0;
    if (rows > 0) best = std::min(best, dt.count());
  }
  return best;
}

// ---- serve and paper rows -------------------------------------------------------------------------

py::object serve(const py::object& scenario, const std::string& base_dir, const std::string& data_dir) {
  const strata::json j = py_to_json(scenario, "");
  const std::string text = strata::dump_json(j, -1);
  if (text.size() > static_cast<std::size_t>(strata::limits().json_file_bytes)) {
    throw strata::config_error("scenario", "[strata.python] the scenario is larger than limits().json_file_bytes");
  }
  const auto s = strata::read_serving_scenario(text, "scenario");
  const auto r = strata::run_scenario(s, data_dir.empty() ? strata::data_dir() : data_dir, base_dir.empty() ? "." : base_dir);
  return si_to_py(strata::json(r));
}

// The rows of the paper report (strata-paper-report --json), the selected families only; inputs
// from the data directory as the program finds them (strata::find_paper_report_inputs: the trace,
// count table, configs and the DQN checkpoint, each left to its fallback when absent).
py::object paper_rows(const std::vector<std::string>& only, unsigned threads, const std::string& data_dir) {
  const auto in = strata::find_paper_report_inputs(data_dir.empty() ? strata::data_dir() : data_dir);
  strata::paper_report_options o = strata::paper_report_options_with(in, strata::load_report_controller_value(in.checkpoint));
  o.threads = threads;
  o.only = only;
  std::vector<strata::paper_row> rows;
  {
    py::gil_scoped_release release;
    rows = strata::paper_rows(o);
  }
  return json_to_py(strata::report_json(rows));
}

// ---- explain and hcrmap -----------------------------------------------------------------------------

// strata-eval explain <row> --json (strata/report/explain_row.hpp), on the data directory's inputs
// as the program finds them (strata::find_paper_report_inputs).
py::object explain(const std::string& row, unsigned threads, const std::string& data_dir) {
  strata::json j;
  {
    py::gil_scoped_release release;
    const auto in = strata::find_paper_report_inputs(data_dir.empty() ? strata::data_dir() : data_dir);
    j = strata::explain_row_json(strata::explain_row(row, threads, in));
  }
  return json_to_py(j);
}

// strata-eval hcrmap ... --json --units si (strata/hcrmap/hcrmap_run.hpp): (result, warnings).
py::tuple hcrmap(const py_model& m, const py::dict& kw) {
  strata::hcrmap_request r;
  for (const auto& [k, v] : kw) {
    const std::string key = py::str(k).cast<std::string>();
    if (v.is_none()) continue;
    if (key == "mode") r.mode = cast_arg<std::string>(v, key);
    else if (key == "policy") r.policy = cast_arg<std::string>(v, key);
    else if (key == "trace") r.traces = cast_arg<std::vector<std::string>>(v, key);
    else if (key == "drift_tasks") r.drift_tasks = cast_arg<int>(v, key);
    else if (key == "drift_sequences") r.drift_sequences = cast_arg<int>(v, key);
    else if (key == "drift_seed") r.drift_seed = cast_arg<long long>(v, key);
    else if (key == "checkpoint") r.checkpoint = cast_arg<std::string>(v, key);
    else if (key == "order") r.order = cast_arg<std::string>(v, key);
    else if (key == "layers") r.layers = cast_arg<int>(v, key);
    else if (key == "max_windows") r.max_windows = cast_arg<int>(v, key);
    else if (key == "batch") r.batch = cast_arg<int>(v, key);
    else if (key == "context") r.context = cast_arg<int>(v, key);
    else if (key == "trace_reuse") r.trace_reuse = cast_arg<bool>(v, key);
    else if (key == "data_dir") r.data_dir = cast_arg<std::string>(v, key);
    else if (key == "data_hint") r.data_hint = cast_arg<std::string>(v, key);
    else throw strata::config_error(key, "[strata.python] unknown argument " + key + " of hcrmap");
  }
  if (r.drift_tasks == 0 && kw.contains("drift_tasks") && !kw["drift_tasks"].is_none()) {
    strata::detail::hcrmap_range("drift_tasks", 0, 2, 64);  // 0 is not "no drift" when given
  }
  std::vector<std::string> warnings;
  strata::json j;
  {
    py::gil_scoped_release release;
    const auto res = strata::run_hcrmap(m.m, r, [&](const std::string& w) { warnings.push_back(w); });
    j = strata::replay_json(res);
  }
  return py::make_tuple(si_to_py(std::move(j)), warnings);
}

}  // namespace

PYBIND11_MODULE(_strata, mod) {
  mod.doc() = "strata's C++ core (use the package strata)";
  mod.attr("__version__") = std::to_string(STRATA_VERSION_MAJOR) + "." + std::to_string(STRATA_VERSION_MINOR) + "." +
                            std::to_string(STRATA_VERSION_PATCH);

  // strata.ConfigError is defined in Python (strata/__init__.py) and handed over here, so that it
  // carries `field`; until then a config_error is a ValueError.
  static py::object config_error_class = py::reinterpret_borrow<py::object>(PyExc_ValueError);
  mod.def("_set_config_error", [](py::object cls) { config_error_class = std::move(cls); });
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const strata::config_error& e) {
      py::object inst = config_error_class(e.what(), e.field());
      PyErr_SetObject(config_error_class.ptr(), inst.ptr());
    } catch (const strata::solver_error& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  });

  mod.def("preset_names", [] { return strata::preset_names(); });
  mod.def("machine_names", [] {
    auto n = strata::gpu_preset_names();
    for (const auto& s : strata::stratum_system_names()) n.push_back(s);
    return n;
  });
  mod.def("data_dir", [] { return strata::data_dir(); });

  py::class_<py_model>(mod, "_Model")
      .def_static("load", &load_model)
      .def_static("from_dict", [](const py::dict& d) {
        py_model m;
        value_from_py(d, m.m, "model");
        return m;
      })
      .def_static("field_names", [] { return field_names<strata::model>(); })
      .def("get", [](const py_model& m, const std::string& k) { return get_field(m.m, k); })
      .def("set", [](py_model& m, const std::string& k, py::handle v) { set_field(m.m, k, v); })
      .def("to_dict", [](const py_model& m) { return value_to_py(m.m); })
      .def("to_json", [](const py_model& m) { return strata::dump_json(strata::json(m.m), 2); })
      .def("validate", [](const py_model& m) { strata::validate(m.m); })
      .def_readonly("ignored_keys", &py_model::ignored_keys)
      .def_readonly("warnings", &py_model::warnings)
      .def("copy", [](const py_model& m) { return m; });

  py::class_<strata::eval_machine>(mod, "_Machine")
      .def_static("load", [](const std::string& arg, const std::string& knobs, bool knobs_given) {
        const bool file = !strata::is_gpu_preset_name(arg) && !strata::is_stratum_system_name(arg);
        if (file && knobs_given) {
          throw strata::config_error("knobs", "[strata.python] knobs apply to a GPU preset or a Stratum system's xPU, not "
                                              "to the machine file " + arg + " (its knobs are taken as written)");
        }
        return strata::load_eval_machine(arg, knobs_of(knobs));
      })
      .def_property_readonly("kind", [](const strata::eval_machine& m) {
        const machine_kind k = kind_of(m);
        return std::string(k == machine_kind::stratum ? "stratum" : k == machine_kind::gpu ? "gpu" : "roofline");
      })
      .def_property_readonly("preset", [](const strata::eval_machine& m) { return m.preset; })
      .def_property_readonly("arg", [](const strata::eval_machine& m) { return m.arg; })
      .def("field_names", [](const strata::eval_machine& m) {
        return with_params(m, [](const auto& p) { return field_names<std::decay_t<decltype(p)>>(); });
      })
      .def("get", [](const strata::eval_machine& m, const std::string& k) {
        return with_params(m, [&](const auto& p) { return get_field(p, k); });
      })
      .def("set", [](strata::eval_machine& m, const std::string& k, py::handle v) {
        with_params(m, [&](auto& p) { set_field(p, k, v); });
        // A changed card is no longer the preset (its knobs note and validation row do not apply).
        if (!m.preset.empty()) {
          m.arg = m.preset + " (modified)";
          m.preset.clear();
        }
      })
      .def("to_dict", [](const strata::eval_machine& m) { return with_params(m, [](const auto& p) { return value_to_py(p); }); })
      .def("to_json", [](const strata::eval_machine& m) {
        return with_params(m, [](const auto& p) { return strata::dump_json(strata::json(p), 2); });
      })
      .def("validate", [](const strata::eval_machine& m) { with_params(m, [](const auto& p) { strata::validate(p); }); })
      .def("copy", [](const strata::eval_machine& m) { return m; });

  mod.def("evaluate", &evaluate);
  mod.def("bench_cpp", &bench_cpp);
  mod.def("bench_parts", &bench_parts);
  mod.def("sweep", &sweep);
  mod.def("explain", &explain);
  mod.def("hcrmap", &hcrmap);
  mod.def("bench_row", &bench_row);
  mod.def("serve", &serve);
  mod.def("run", &run_scenario);
  mod.def("bench_run", &bench_run);
  mod.def("paper_rows", &paper_rows);
}
