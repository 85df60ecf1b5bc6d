// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// One serving step of a model on a machine, as `strata-eval eval` evaluates it, for every front
/// end: the command line (`examples/strata-eval/eval.cpp` prints it as text or JSON) and the Python
/// module (`python/strata_module.cpp` returns its JSON as a dict). One implementation, so the two
/// cannot drift: the Python dict equals `strata-eval eval --json --units si` to the last digit.
///
/// - `load_eval_machine(arg, knobs)`: a GPU preset (with the serving knobs of `knobs`,
///   `baseline_gpu`), a Stratum system (its xPU likewise), or a JSON file holding a `gpu_params`
///   or a `roofline_machine` (recognised by its `"tiers"` key), read under the library's opening
///   rule (`strata/core/files.hpp`).
/// - `eval_option_misuse` / `eval_machine_misuse`: an option that does not apply to the machine,
///   the phase or the routing (the CLI's exit-2 refusals; the field names the option).
/// - `evaluate_gpu_step` / `evaluate_stratum_step`: the step and everything its outputs show;
///   `eval_step_json` the document of `strata-eval eval --json` (display units).
///
/// \code
///   const auto mach = strata::load_eval_machine("h100_sxm5");
///   strata::eval_request req{.mode = strata::phase::decode, .batch = 8, .context = 2048};
///   const strata::json j = strata::eval_step_json(strata::preset("Mixtral-8x7B"), {}, mach, req);
/// \endcode

#include <algorithm>    // std::max_element, std::min
#include <cctype>       // std::tolower
#include <cstdint>      // std::uint32_t, std::uint64_t
#include <filesystem>   // std::filesystem::exists
#include <functional>   // std::function
#include <initializer_list>  // std::initializer_list
#include <optional>     // std::optional
#include <string>       // std::string
#include <system_error>  // std::error_code
#include <utility>      // std::move
#include <vector>       // std::vector

#include "strata/baseline/baseline_gpu.hpp"
#include "strata/baseline/coverage.hpp"
#include "strata/baseline/gpu.hpp"
#include "strata/baseline/machine_json.hpp"
#include "strata/baseline/gpu_knob_set.hpp"
#include "strata/baseline/validated_gpu.hpp"
#include "strata/core/error.hpp"
#include "strata/core/files.hpp"
#include "strata/core/json.hpp"
#include "strata/core/limits.hpp"
#include "strata/stratum/system.hpp"
#include "strata/stratum/usage.hpp"
#include "strata/workload/expert_parallel.hpp"
#include "strata/workload/model.hpp"
#include "strata/workload/operators.hpp"
#include "strata/workload/roofline.hpp"
#include "strata/workload/trace.hpp"
#include "strata/workload/trace_io.hpp"

namespace strata {
inline namespace v0 {

/// The options of one step besides the model and the machine (`strata-eval eval`'s options, the
/// keyword arguments of Python's `strata.evaluate`). Strings are the CLI's option values.
struct eval_request {
  phase mode = phase::decode;   ///< decode or prefill
  int batch = 0;                ///< sequences (decode) or prompts (prefill)
  int context = 0;              ///< tokens of context (decode) or prompt length (prefill)
  std::optional<int> devices;   ///< tensor-parallel degree (GPU default: the fit check's)
  std::optional<int> max_devices;  ///< largest degree the fit check tries (unset: 8, one node)
  std::string trace;            ///< routing trace CSV; empty: uniform routing
  std::optional<int> trace_position;          ///< decode: the token at this position (unset: random)
  std::optional<std::uint64_t> trace_seed;    ///< decode: seed of the random choice (unset: 0)
  bool trace_reuse = false;     ///< decode: allow fewer sequences than the batch
  bool no_tiering = false;      ///< Stratum: one worst-case tRCD for every row
  bool hbm_nmp = false;         ///< Stratum: HBM3 NMP stacks in place of the Mono3D chips
  std::string detail;           ///< Stratum decode: "" or "layers" (default), or "experts"
  std::string expert_mapping;   ///< Stratum: "" (expert_parallel), "expert_parallel" or "all_chips"
  std::optional<double> hit_rate;  ///< Stratum: share of accesses to the hottest experts
  std::optional<int> ep;        ///< expert parallelism degree
  std::string attention = "tp";  ///< with ep: "tp" or "dp"
  int redundant_experts = 0;    ///< with ep: EPLB slots per device
  std::optional<std::string> ep_imbalance;  ///< with ep: "expected_max" (unset) or "mean"
  bool with_breakdown = true;   ///< compute the breakdown tree (the JSON output has it)
  bool with_ops = true;         ///< GPU: compute the per-operator rows (the JSON output has them; a sweep's row not)
};

/// A machine to evaluate on: a GPU card (preset or file; evaluated on n devices), a ready
/// roofline machine (file), or a Stratum system.
struct eval_machine {
  std::string arg;                       ///< as named: the preset or the file's path
  std::optional<gpu_params> gpu;         ///< a GPU card
  std::string preset;                    ///< the GPU preset's name; empty otherwise
  gpu_knob_set knobs = gpu_knob_set::cited;  ///< the knob set a preset or Stratum xPU took
  roofline_machine machine;              ///< a roofline machine file (when neither gpu nor stratum)
  std::optional<stratum_system_params<>> stratum;  ///< a Stratum system
};

/// Preset name comparison: case-insensitive, '-' and '_' equal (h100-sxm5 is h100_sxm5).
template <class = void>
inline bool same_preset_name(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  const auto fold = [](char c) { return c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (fold(a[i]) != fold(b[i])) return false;
  }
  return true;
}

/// True if `name` names a Stratum system (stratum-s, stratum-l, stratum-xl; case and '-'/'_' free).
template <class = void>
inline bool is_stratum_system_name(const std::string& name) {
  for (const auto& n : stratum_system_names()) {
    if (same_preset_name(n, name)) return true;
  }
  return false;
}

/// True if `name` names a GPU preset.
template <class = void>
inline bool is_gpu_preset_name(const std::string& name) {
  for (const auto& n : gpu_preset_names()) {
    if (same_preset_name(n, name)) return true;
  }
  return false;
}

/// The machine `arg` names: a GPU preset, a Stratum system (both with the knobs `knobs`), or a
/// JSON file (a `gpu_params`, or a `roofline_machine` when it has "tiers"), validated; errors are
/// `config_error` naming "machine" or the file's JSON path.
template <class = void>
inline eval_machine load_eval_machine(const std::string& arg, gpu_knob_set knobs = gpu_knob_set::cited) {
  eval_machine m;
  m.arg = arg;
  m.knobs = knobs;
  if (is_stratum_system_name(arg) && !is_gpu_preset_name(arg)) {
    auto sys = stratum_system(arg);
    sys.xpu = baseline_gpu(sys.xpu, knobs);
    m.stratum = std::move(sys);
    return m;
  }
  // GPU presets and machine files: the library's loader (strata/baseline/machine_json.hpp), which a
  // serving scenario's gpu.name shares; an unknown name's message lists the Stratum systems too.
  loaded_machine l = load_machine(arg, knobs, "machine", stratum_system_names());
  m.gpu = std::move(l.gpu);
  m.preset = std::move(l.preset);
  m.machine = std::move(l.machine);
  return m;
}

/// An option that does not apply: the option's field and the message.
struct eval_misuse {
  std::string field;
  std::string message;
};

/// The options that do not apply to the machine `machine_arg` (`stratum`: a Stratum system; `gpu`:
/// a GPU preset; neither: a file), the phase or the routing; checked before the model is read.
/// `gpu_knobs_given`: a knob set was asked for (it applies to a GPU preset or a Stratum xPU, not to
/// a machine file).
template <class = void>
inline std::optional<eval_misuse> eval_option_misuse(const eval_request& o, const std::string& machine_arg, bool stratum,
                                                     bool gpu, bool gpu_knobs_given) {
  const bool prefill = o.mode == phase::prefill;
  if (gpu_knobs_given && !stratum && !gpu) {
    return eval_misuse{"gpu_knobs", "--gpu-knobs applies to a GPU preset or a Stratum system's xPU, not to the machine file " +
                                        machine_arg + " (its knobs are taken as written: set compute_efficiency, "
                                        "memory_efficiency and op_overhead in the file)"};
  }
  if (stratum && o.devices) {
    return eval_misuse{"devices", "--devices applies to a GPU or roofline machine, not to a Stratum machine (" +
                                      machine_arg + "; its chips and stages are the system's)"};
  }
  if (o.max_devices && (stratum || !gpu || o.devices || o.ep)) {
    return eval_misuse{"max_devices",
                       "--max-devices bounds the fit check's choice of a GPU preset's degree; it does not apply " +
                           std::string(stratum ? "to a Stratum machine"
                                       : !gpu  ? "to a machine file (" + machine_arg + ")"
                                               : "with --devices or --ep, which set the degree")};
  }
  if ((o.trace_position || o.trace_seed || o.trace_reuse) && prefill) {
    return eval_misuse{o.trace_position ? "trace_position" : o.trace_seed ? "trace_seed" : "trace_reuse",
                       "--trace-position, --trace-seed and --trace-reuse choose a decode step's "
                                         "tokens; a prefill step takes the trace's first batch x context tokens"};
  }
  if (o.ep_imbalance && !o.trace.empty()) {
    return eval_misuse{"ep_imbalance", "--ep-imbalance applies to uniform routing; with --trace the busiest device's "
                                       "load is the trace's"};
  }
  if (stratum && prefill && (o.hit_rate || !o.trace.empty())) {
    return eval_misuse{o.hit_rate ? "hit_rate" : "trace",
                       std::string(o.hit_rate ? "--hit-rate" : "--trace") +
                           " applies to a Stratum decode step; its prefill runs on the xPU die, whose time routing "
                           "does not change"};
  }
  return std::nullopt;
}

/// The options that do not apply to the kind of machine, checked after the model and the shape:
/// --ep on a Stratum system, the Stratum options on any other machine.
template <class = void>
inline std::optional<eval_misuse> eval_machine_misuse(const eval_request& o, const std::string& machine_arg, bool stratum) {
  if (stratum && o.ep) {
    return eval_misuse{"ep", "--ep applies to a GPU or roofline machine, not to a Stratum machine (" + machine_arg +
                                 "; its experts are placed by --expert-mapping)"};
  }
  if (!stratum && (o.no_tiering || o.hbm_nmp || o.hit_rate || !o.detail.empty() || !o.expert_mapping.empty())) {
    return eval_misuse{o.no_tiering ? "no_tiering" : o.hbm_nmp ? "hbm_nmp" : o.hit_rate ? "hit_rate"
                                                   : !o.detail.empty() ? "detail" : "expert_mapping",
                       "--no-tiering, --hbm-nmp, --expert-mapping, --hit-rate and --detail apply to a Stratum machine "
                       "(stratum-s, stratum-l, stratum-xl), not to " + machine_arg};
  }
  return std::nullopt;
}

/// Where a step's warnings and notes go ("warning: ..." and "note: ..." lines, in the order they
/// arise); the CLI prints them to stderr, Python issues them as warnings.
using eval_warning_sink = std::function<void(const std::string&)>;

namespace detail {

/// The checks of the string options a front end passes through unvalidated (Python).
template <class = void>
inline void check_eval_strings(const eval_request& o) {
  const auto one_of = [](const std::string& field, const std::string& v, std::initializer_list<const char*> names) {
    std::string list;
    for (const char* n : names) {
      if (v == n) return;
      list += (list.empty() ? "" : ", ") + std::string(n);
    }
    throw config_error(field, "[strata.eval] " + field + " must be one of " + list + ", got " + quoted_path(v));
  };
  one_of("attention", o.attention, {"tp", "dp"});
  if (o.ep_imbalance) one_of("ep_imbalance", *o.ep_imbalance, {"expected_max", "mean"});
  if (!o.detail.empty()) one_of("detail", o.detail, {"layers", "experts"});
  if (!o.expert_mapping.empty()) one_of("expert_mapping", o.expert_mapping, {"expert_parallel", "all_chips"});
  if (o.devices && *o.devices < 1) throw config_error("devices", "[strata.eval] devices must be >= 1, got " + std::to_string(*o.devices));
  if (o.max_devices && *o.max_devices < 1) {
    throw config_error("max_devices", "[strata.eval] max_devices must be >= 1, got " + std::to_string(*o.max_devices));
  }
  if (o.ep && *o.ep < 1) throw config_error("ep", "[strata.eval] ep must be >= 1, got " + std::to_string(*o.ep));
  if (o.redundant_experts < 0) {
    throw config_error("redundant_experts", "[strata.eval] redundant_experts must be >= 0, got " +
                                                std::to_string(o.redundant_experts));
  }
  if (o.trace_position && *o.trace_position < 0) {
    throw config_error("trace_position", "[strata.eval] trace_position must be >= 0, got " + std::to_string(*o.trace_position));
  }
  if (o.hit_rate && !(*o.hit_rate >= 0.0 && *o.hit_rate <= 1.0)) {
    throw config_error("hit_rate", "[strata.eval] hit_rate must be in [0, 1], got " + std::to_string(*o.hit_rate));
  }
  const bool ep_given = o.ep.has_value();
  if (!ep_given && (o.attention != "tp" || o.redundant_experts != 0 || o.ep_imbalance)) {
    throw config_error(o.attention != "tp" ? "attention" : o.redundant_experts != 0 ? "redundant_experts" : "ep_imbalance",
                       "[strata.eval] attention, redundant_experts and ep_imbalance apply with ep");
  }
  if (o.trace.empty() && (o.trace_position || o.trace_seed || o.trace_reuse)) {
    throw config_error(o.trace_position ? "trace_position" : o.trace_seed ? "trace_seed" : "trace_reuse",
                       "[strata.eval] trace_position, trace_seed and trace_reuse apply with trace");
  }
  if (o.hit_rate && !o.trace.empty()) throw config_error("hit_rate", "[strata.eval] hit_rate and trace exclude each other");
}

}  // namespace detail

/// The parallelism of a request (ep and its companions; default: tensor parallelism).
template <class = void>
inline parallelism parallelism_of(const eval_request& o) {
  parallelism p;
  p.ep = o.ep.value_or(1);
  p.attention = o.attention == "dp" ? attention_parallel::dp : attention_parallel::tp;
  p.redundant_experts = o.redundant_experts;
  p.imbalance = o.ep_imbalance.value_or("expected_max") == "mean" ? ep_imbalance::mean : ep_imbalance::expected_max;
  return p;
}

/// Routing counts of a step's tokens from a trace, per MoE layer: prefill the first `tokens`
/// tokens; decode one token from each of `tokens` sequences (`batch` receives the selection).
template <class = void>
inline expert_histogram eval_trace_histogram(const std::string& path, const model& m, double tokens,
                                             const eval_request& o, decode_batch* batch) {
  if (m.experts == 0) throw config_error("trace", "--trace given but " + m.name + " has no routed experts");
  const auto t = load_trace_csv(path, {.experts = m.experts});
  if (t.empty()) throw config_error("trace", path + ": no tokens (the trace has a header but no rows)");
  require_trace_of_model(t, m, path);
  if (static_cast<double>(t.tokens()) < tokens) {
    throw config_error("trace", path + ": " + std::to_string(t.tokens()) + " tokens, but the step needs " +
                                    std::to_string(static_cast<long long>(tokens)));
  }
  std::vector<std::size_t> list;
  if (batch != nullptr) {
    try {
      *batch = select_decode_batch(t, {.batch = static_cast<int>(tokens),
                                       .position = o.trace_position.value_or(-1),
                                       .seed = o.trace_seed.value_or(0),
                                       .allow_reuse = o.trace_reuse});
    } catch (const config_error& e) {
      throw config_error("trace", path + ": " + e.what() +
                                      (e.field() == "batch" ? std::string(" (strata-eval: --trace-reuse)") : std::string()));
    }
    list = batch->tokens;
  } else {
    list.resize(static_cast<std::size_t>(tokens));
    for (std::size_t i = 0; i < list.size(); ++i) list[i] = i;
  }
  expert_histogram h(static_cast<std::size_t>(t.layers()), std::vector<std::uint32_t>(static_cast<std::size_t>(m.experts), 0));
  for (const std::size_t i : list) {
    for (int l = 0; l < t.layers(); ++l) {
      for (const auto e : t.experts(i, l)) ++h[static_cast<std::size_t>(l)][e];
    }
  }
  return h;
}

/// Energy per token as every output writes it: tokens per joule (0 for a step of no energy).
template <class = void>
inline double eval_tokens_per_J(const basic_step_result<double>& r) {
  return r.energy.si() > 0.0 ? r.tokens / r.energy.si() : 0.0;
}

/// One row of the per-operator table read off a step's breakdown under expert parallelism:
/// "layers 3-60 / routed_experts", the layers it stands for, its node (time and energy per layer).
struct eval_tree_row {
  std::string name;
  std::size_t layers = 1;
  const cost<>* node = nullptr;
};

template <class = void>
inline std::vector<eval_tree_row> eval_tree_rows(const cost<>& step) {
  std::vector<eval_tree_row> rows;
  for (const auto& part : step.parts) {
    const bool rep = part.rule == cost_rule::repeat && !part.parts.empty();
    const cost<>& one = rep ? part.parts.front() : part;
    for (const auto& leaf : one.parts) rows.push_back({part.name + " / " + leaf.name, rep ? part.count : 1, &leaf});
  }
  return rows;
}

/// A step on a GPU or roofline machine and everything its outputs show.
struct gpu_step_eval {
  std::string model_name;
  eval_request request;
  std::string preset;                     ///< the GPU preset's name; empty for a machine file
  gpu_knob_set knobs = gpu_knob_set::cited;
  std::string gpu_name;                   ///< the card's name (a GPU preset or gpu_params file)
  roofline_machine machine;               ///< the machine evaluated (devices chosen)
  step_shape shape;
  parallelism par;
  std::optional<gpu_fit> fit;
  coverage_verdict verdict;
  std::optional<decode_batch> batch;      ///< decode with a trace: the tokens chosen
  basic_step_result<double> r;
  std::optional<ep_routing> worst;        ///< the MoE layer of the largest imbalance
  double busiest_load = 0.0, busiest_copies = 0.0;
  int moe_layers = 0;
  std::vector<operator_result> ops;       ///< per operator (empty under expert parallelism)
  bool ep() const { return par.expert_parallel(); }
};

/// Evaluates a step on a GPU card or a roofline machine `ma` (not a Stratum system) as
/// `strata-eval eval` does: the degree (given, ep's, or the fit check's), the mapping and coverage
/// verdicts (a refused mapping is a `config_error` naming "devices" or "ep"), the step, its
/// expert-parallel routing and per-operator rows. Warnings go to `warn` as they arise.
template <class = void>
inline gpu_step_eval evaluate_gpu_step(const model& mdl, const std::vector<std::string>& ignored_keys,
                                       const eval_machine& ma, const eval_request& o, const eval_warning_sink& warn = {}) {
  gpu_step_eval g;
  g.model_name = mdl.name;
  g.request = o;
  g.preset = ma.preset;
  g.knobs = ma.knobs;
  g.shape = {.mode = o.mode, .batch = o.batch, .context = o.context};
  const step_shape& shape = g.shape;
  roofline_machine machine = ma.machine;
  g.par = parallelism_of(o);
  const bool ep = g.par.expert_parallel();
  if (ma.gpu) {
    g.gpu_name = ma.gpu->name;
    int n = o.devices.value_or(o.ep.value_or(0));
    if (!o.devices && !o.ep) {
      std::string why;
      n = min_devices(*ma.gpu, mdl, shape, &why, o.max_devices.value_or(8));
      if (n == 0) throw config_error("devices", "refused: " + mdl.name + " " + why + " (pass --devices to evaluate anyway)");
    }
    validate(g.par, mdl, n);
    g.fit = check_fit(*ma.gpu, n, mdl, shape, g.par);
    machine = make_machine(*ma.gpu, n);
  } else if (o.devices || o.ep) {
    machine.devices = o.devices.value_or(*o.ep);
  }

  // The coverage verdict of this point: the mapping (one rule for GPU presets, gpu_params and
  // roofline machine files: mapping_coverage), formats the machine has no path for, ignored
  // config keys, knobs not validated on the card, a forced degree that does not fit. A mapping the
  // model cannot do is refused as a model that fits nowhere is.
  g.verdict = model_coverage(mdl, machine, ignored_keys, g.par);
  if (g.verdict.kind == coverage_kind::refused) {
    const bool by_ep = g.verdict.reasons.front().rfind("expert parallelism", 0) == 0;
    const std::string from = o.devices || o.ep ? std::string(by_ep ? "--ep" : "--devices")
                             : ma.gpu           ? std::string("the fit check")
                                                : ma.arg + "'s \"devices\"";
    throw config_error(by_ep ? "ep" : "devices", g.verdict.text() + " (" + mdl.name + " on " + machine.name + ", " +
                                                     std::to_string(machine.devices) + " devices from " + from + ")");
  }
  if (g.fit && !g.fit->fits && warn) warn("warning: " + g.fit->reason);
  if (!ma.preset.empty()) add_knobs_reason(g.verdict, ma.preset);
  // A forced degree the memory does not hold (a degree the heads do not divide is the mapping's
  // reason above, not a memory one).
  if (g.fit && !g.fit->fits && g.fit->required_per_device > g.fit->usable_per_device) {
    g.verdict.reasons.push_back("does not fit " + std::to_string(g.fit->devices) + " x " + ma.gpu->name +
                                " (evaluated anyway)");
    g.verdict.kind = coverage_kind::approximated;
  }

  const double step_tokens = shape.mode == phase::decode ? double(shape.batch) : double(shape.batch) * double(shape.context);
  if (!o.trace.empty() && shape.mode == phase::decode) g.batch.emplace();
  const expert_histogram hist =
      o.trace.empty() ? expert_histogram{} : eval_trace_histogram(o.trace, mdl, step_tokens, o, g.batch ? &*g.batch : nullptr);
  // Totals (and the tree: a node per run of identical layers) from the distinct layers.
  g.r = evaluate(mdl, shape, machine, g.par, hist, o.with_breakdown || ep ? step_breakdown::tree : step_breakdown::none);
  const auto routings = ep_routings(mdl, shape, g.par, hist);
  // The busiest device's routing over the MoE layers (the largest imbalance) and its busiest device.
  const ep_routing* worst = nullptr;
  for (const auto& [layer, er] : routings) {
    if (worst == nullptr || er.imbalance() > worst->imbalance()) worst = &er;
  }
  if (worst != nullptr) {
    const auto d = static_cast<std::size_t>(std::max_element(worst->load.begin(), worst->load.end()) - worst->load.begin());
    g.busiest_load = worst->load[d];
    g.busiest_copies = worst->touched[d];
    g.worst = *worst;
  }
  g.moe_layers = mdl.moe_layers();
  if (g.batch && !g.batch->note.empty() && warn) warn("note: decode batch: " + g.batch->note);
  // Per-operator time and energy, each including its all-reduce, so that the rows add up to the
  // totals (operator_results); under expert parallelism the rows are the tree's per layer.
  if (!ep && o.with_ops) g.ops = operator_results(mdl, shape, machine, hist);
  g.machine = std::move(machine);
  return g;
}

/// The document of `strata-eval eval --json` for a GPU or roofline step (display units).
template <class = void>
inline json step_eval_json(const gpu_step_eval& g) {
  const auto& r = g.r;
  const auto& o = g.request;
  const bool ep = g.ep();
  json j;
  j["model"] = g.model_name;
  j["machine"] = g.machine.name;
  j["devices"] = g.machine.devices;
  j["nodes"] = g.machine.nodes();
  j["phase"] = g.shape.mode == phase::decode ? "decode" : "prefill";
  j["batch"] = g.shape.batch;
  j["context"] = g.shape.context;
  j["routing"] = o.trace.empty() ? "uniform" : "trace";
  if (g.fit) j["fit"] = *g.fit;
  if (!g.preset.empty()) j["knobs"] = knobs_note(g.preset, g.knobs);
  j["verdict"] = g.verdict.text();
  j["feasible"] = r.feasible;
  j["capacity"] = r.reason;
  if (g.batch) {
    j["decode_batch"] = {{"sequences", g.batch->sequences},
                         {"max_per_sequence", g.batch->max_per_sequence},
                         {"repeated_tokens", g.batch->repeated_tokens},
                         {"note", g.batch->note}};
  }
  j["flops"] = r.flops.si();
  j["bytes_B"] = {{"weights", r.weight_bytes.si()},
                  {"kv", r.kv_bytes.si()},
                  {"activations", r.activation_bytes.si()},
                  {"links", r.link_bytes.si()}};
  j["time_s"] = r.time.si();
  j["energy_J"] = r.energy.si();
  j["dynamic_energy_J"] = r.dynamic_energy.si();
  // Every joule of the step by part: FLOPs, bytes out of the memory tiers, all-reduce bytes over
  // the links (dynamic), and static power over the step (before the power cap).
  j["energy_parts_J"] = {{"compute", r.compute_energy.si()},
                         {"memory", r.memory_energy.si()},
                         {"links", r.link_energy.si()},
                         {"static", r.static_energy.si()}};
  j["power_capped"] = r.power_capped;
  j["tokens"] = r.tokens;
  j["tokens_per_s"] = r.tokens_per_s;
  j["tokens_per_J"] = eval_tokens_per_J(r);
  j["parallelism"] = g.par;
  if (ep) {
    const double per_layer = g.moe_layers > 0 ? r.alltoall_bytes.si() / (2.0 * g.moe_layers) : 0.0;
    j["alltoall"] = {{"time_s", r.alltoall_time.si()},
                     {"bytes_B", r.alltoall_bytes.si()},
                     {"dispatch_bytes_per_layer_B", per_layer},
                     {"combine_bytes_per_layer_B", per_layer},
                     {"time_per_layer_s", g.moe_layers > 0 ? r.alltoall_time.si() / g.moe_layers : 0.0}};
    j["busiest_device"] = {{"routings", g.busiest_load},
                           {"mean_routings", g.worst ? g.worst->routings / g.worst->devices : 0.0},
                           {"imbalance", g.worst ? g.worst->imbalance() : 1.0},
                           {"expert_copies_read", g.busiest_copies}};
  }
  json jops = json::array();
  for (const auto& row : ep ? eval_tree_rows(r.breakdown) : std::vector<eval_tree_row>{}) {
    jops.push_back({{"name", row.name}, {"layers", row.layers}, {"time_s", row.node->time.si()}, {"energy_J", row.node->energy.si()}});
  }
  for (const auto& op : g.ops) {
    jops.push_back({{"name", op.name},
                    {"kind", to_string(op.kind)},
                    {"layer", op.layer},
                    {"expert", op.expert},
                    {"flops", op.flops.si()},
                    {"bytes_B", op.bytes.si()},
                    {"time_s", op.time.si()},
                    {"energy_J", op.energy.si()},
                    {"bound", op.compute_bound ? "compute" : "memory"}});
  }
  j["ops"] = std::move(jops);
  j["breakdown"] = r.breakdown;
  return j;
}

/// A step on a Stratum system: decode on the chips' near-memory processors, prefill on the xPU die.
struct stratum_step_eval {
  std::string model_name;
  stratum_system_params<> sys;            ///< the system as evaluated (tiering, mapping, HBM NMP applied)
  step_shape shape;
  coverage_verdict verdict;
  std::string routing;                    ///< decode: "uniform", "hit_rate" or "trace"
  std::optional<basic_step_result<double>> prefill;
  std::optional<stratum_step_result<double>> decode;
};

/// Evaluates a step on the Stratum system of `ma` as `strata-eval eval` does.
template <class = void>
inline stratum_step_eval evaluate_stratum_step(const model& mdl, const coverage_verdict& verdict, const eval_machine& ma,
                                               const eval_request& o, const eval_warning_sink& warn = {}) {
  if (!ma.stratum) throw config_error("machine", "[strata.eval] " + ma.arg + " is not a Stratum system");
  stratum_step_eval s;
  s.model_name = mdl.name;
  s.verdict = verdict;
  s.sys = *ma.stratum;
  s.sys.tiering = !o.no_tiering;
  if (o.expert_mapping == "all_chips") s.sys.mapping.experts = expert_split::all_chips;
  if (o.hbm_nmp) s.sys = with_hbm_nmp(s.sys);
  s.shape = {.mode = o.mode, .batch = o.batch, .context = o.context};
  if (!o.detail.empty() && s.shape.mode != phase::decode) {
    throw config_error("detail", "--detail applies to a Stratum decode step's breakdown, not to prefill");
  }
  if (s.shape.mode == phase::prefill) {
    s.prefill = evaluate_prefill(s.sys, mdl, s.shape);
    return s;
  }
  stratum_usage usage;
  const int moe_layers = mdl.moe_layers();
  if ((o.hit_rate || !o.trace.empty()) && mdl.experts == 0) {
    throw config_error(o.hit_rate ? "hit_rate" : "trace", std::string(o.hit_rate ? "--hit-rate" : "--trace") +
                                                              " given but " + mdl.name + " has no routed experts");
  }
  if (o.hit_rate && mdl.experts > 0) {
    usage.routing = usage_from_hit_rate(moe_layers, mdl.experts, mdl.top_k, *o.hit_rate);
  } else if (!o.trace.empty() && mdl.experts > 0) {
    decode_batch batch;
    const auto hist = eval_trace_histogram(o.trace, mdl, double(s.shape.batch), o, &batch);
    if (!batch.note.empty() && warn) warn("note: decode batch: " + batch.note);
    // The step's routing as per-token probabilities (count / batch, at most 1).
    usage.routing.assign(hist.size(), std::vector<double>(static_cast<std::size_t>(mdl.experts), 0.0));
    for (std::size_t l = 0; l < hist.size(); ++l) {
      for (std::size_t e = 0; e < hist[l].size(); ++e) {
        usage.routing[l][e] = std::min(1.0, double(hist[l][e]) / double(s.shape.batch));
      }
    }
  }
  s.routing = o.hit_rate ? "hit_rate" : o.trace.empty() ? "uniform" : "trace";
  // The tree only when asked for: a node per run of identical layers, and the experts' figures as
  // columns with detail "experts".
  const breakdown_detail detail = !o.with_breakdown       ? breakdown_detail::none
                                  : o.detail == "experts" ? breakdown_detail::experts
                                                          : breakdown_detail::layers;
  s.decode = evaluate_decode(s.sys, mdl, s.shape, usage, detail);
  return s;
}

/// The document of `strata-eval eval --json` for a Stratum step (display units).
template <class = void>
inline json step_eval_json(const stratum_step_eval& s) {
  json j;
  if (s.prefill) {
    j = *s.prefill;
    // Energy per token as tokens per joule, as every output writes it (docs/cli.md, Output conventions).
    j.erase("joules_per_token");
    j["tokens_per_J"] = eval_tokens_per_J(*s.prefill);
  } else if (s.decode) {
    j = *s.decode;
  }
  j["model"] = s.model_name;
  j["machine"] = s.sys.name;
  j["phase"] = s.shape.mode == phase::decode ? "decode" : "prefill";
  j["batch"] = s.shape.batch;
  j["context"] = s.shape.context;
  j["verdict"] = s.verdict.text();
  if (s.decode) {
    j["routing"] = s.routing;
    j["breakdown"] = s.decode->breakdown;
  }
  return j;
}

/// The whole of `strata-eval eval --json` for a loaded model (`ignored_keys`: the config keys its
/// reader ignored, `preset_ignored_keys` for a preset) and machine: the option checks (a
/// `config_error` naming the option), the shape, then the Stratum or GPU step; display units
/// (`convert_units(j, json_units::si)` gives `--units si`).
template <class = void>
inline json eval_step_json(const model& mdl, const std::vector<std::string>& ignored_keys, const eval_machine& ma,
                           const eval_request& o, const eval_warning_sink& warn = {}) {
  detail::check_eval_strings(o);
  const bool stratum = ma.stratum.has_value(), gpu = !ma.preset.empty();
  if (auto bad = eval_option_misuse(o, ma.arg, stratum, gpu, false)) throw config_error(bad->field, bad->message);
  validate(step_shape{.mode = o.mode, .batch = o.batch, .context = o.context});
  if (auto bad = eval_machine_misuse(o, ma.arg, stratum)) throw config_error(bad->field, bad->message);
  if (ma.stratum) return step_eval_json(evaluate_stratum_step(mdl, stratum_coverage(mdl, ignored_keys), ma, o, warn));
  return step_eval_json(evaluate_gpu_step(mdl, ignored_keys, ma, o, warn));
}

}  // namespace v0
}  // namespace strata
