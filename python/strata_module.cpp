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
#include <pybind11/stl.h>

#include <chrono>     // std::chrono::steady_clock (the overhead benchmark)
#include <cmath>      // std::isfinite
#include <cstdint>    // std::int64_t, std::uint64_t
#include <fstream>    // std::ofstream
#include <optional>   // std::optional
#include <string>     // std::string
#include <unordered_map>  // the key cache of json_to_pyobject
#include <utility>    // std::move
#include <vector>     // std::vector

#include "strata/core/data_dir.hpp"
#include "strata/core/error.hpp"
#include "strata/core/files.hpp"
#include "strata/core/json.hpp"
#include "strata/core/json_plain.hpp"
#include "strata/core/limits.hpp"
#include "strata/report/eval_step.hpp"
#include "strata/report/paper_json.hpp"
#include "strata/report/paper_rows.hpp"
#include "strata/stratum/serving/serving_json.hpp"
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

template <class T>
std::optional<T> opt(const py::dict& kw, const char* key) {
  if (!kw.contains(key) || kw[key].is_none()) return std::nullopt;
  try {
    return kw[key].cast<T>();
  } catch (const py::cast_error&) {
    throw strata::config_error(key, std::string("[strata.python] ") + key + " has the wrong type (" +
                                        py::str(py::type::of(kw[key]).attr("__name__")).cast<std::string>() + ")");
  }
}

// The keyword arguments of strata.evaluate (besides model and machine) as the CLI's request.
strata::eval_request request_of(const py::dict& kw) {
  static const char* known[] = {"phase", "batch", "context", "devices", "max_devices", "trace", "trace_position",
                                "trace_seed", "trace_reuse", "no_tiering", "hbm_nmp", "detail", "expert_mapping",
                                "hit_rate", "ep", "attention", "redundant_experts", "ep_imbalance"};
  for (const auto& [k, v] : kw) {
    const std::string key = py::str(k).cast<std::string>();
    bool ok = false;
    std::string list;
    for (const char* n : known) {
      ok = ok || key == n;
      list += (list.empty() ? "" : ", ") + std::string(n);
    }
    if (!ok) throw strata::config_error(key, "[strata.python] unknown argument " + key + " (known: model, machine, " + list + ")");
  }
  strata::eval_request r;
  const std::string phase = opt<std::string>(kw, "phase").value_or("");
  if (phase != "decode" && phase != "prefill") {
    throw strata::config_error("phase", "[strata.python] phase must be decode or prefill, got " + strata::detail::quoted_path(phase));
  }
  r.mode = phase == "decode" ? strata::phase::decode : strata::phase::prefill;
  const auto batch = opt<int>(kw, "batch");
  const auto context = opt<int>(kw, "context");
  if (!batch) throw strata::config_error("batch", "[strata.python] batch is required");
  if (!context) throw strata::config_error("context", "[strata.python] context is required");
  r.batch = *batch;
  r.context = *context;
  r.devices = opt<int>(kw, "devices");
  r.max_devices = opt<int>(kw, "max_devices");
  r.trace = opt<std::string>(kw, "trace").value_or("");
  r.trace_position = opt<int>(kw, "trace_position");
  r.trace_seed = opt<std::uint64_t>(kw, "trace_seed");
  r.trace_reuse = opt<bool>(kw, "trace_reuse").value_or(false);
  r.no_tiering = opt<bool>(kw, "no_tiering").value_or(false);
  r.hbm_nmp = opt<bool>(kw, "hbm_nmp").value_or(false);
  r.detail = opt<std::string>(kw, "detail").value_or("");
  r.expert_mapping = opt<std::string>(kw, "expert_mapping").value_or("");
  r.hit_rate = opt<double>(kw, "hit_rate");
  r.ep = opt<int>(kw, "ep");
  r.attention = opt<std::string>(kw, "attention").value_or("tp");
  r.redundant_experts = opt<int>(kw, "redundant_experts").value_or(0);
  r.ep_imbalance = opt<std::string>(kw, "ep_imbalance");
  r.with_breakdown = true;
  return r;
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
// from the data directory as the program finds them (the trace, count table, configs and the DQN
// checkpoint are left to their fallbacks when absent).
py::object paper_rows(const std::vector<std::string>& only, unsigned threads, const std::string& data_dir) {
  strata::paper_report_options o;
  const std::string dir = data_dir.empty() ? strata::data_dir() : data_dir;
  const auto present = [](const std::string& p) {
    std::error_code ec;
    return std::filesystem::exists(p, ec);
  };
  if (!dir.empty() && present(dir + "/traces/dsv2lite_esft_trace_intent.csv")) o.dsv2lite_trace = dir + "/traces/dsv2lite_esft_trace_intent.csv";
  if (!dir.empty() && present(dir + "/traces/olmoe_mixtral_expert_counts_by_domain.csv")) {
    o.domain_counts = dir + "/traces/olmoe_mixtral_expert_counts_by_domain.csv";
  }
  if (!dir.empty() && present(dir + "/hf/qwen3-14b.config.json")) o.hf_dir = dir + "/hf";
  o.read_config = [](const std::string& path) { return strata::load_hf_config(path); };
  o.threads = threads;
  o.only = only;
  std::vector<strata::paper_row> rows;
  {
    py::gil_scoped_release release;
    rows = strata::paper_rows(o);
  }
  return json_to_py(strata::report_json(rows));
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
  mod.def("serve", &serve);
  mod.def("paper_rows", &paper_rows);
}
