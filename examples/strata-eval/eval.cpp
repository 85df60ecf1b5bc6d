// strata-eval eval: one serving step of a model on a machine, through the roofline evaluator.
//
//   strata-eval [eval] --model <preset|config.json> --machine <preset|machine.json>
//               --phase decode|prefill --batch B --context S
//               [--devices N] [--max-devices N] [--trace trace.csv [--trace-position P]
//               [--trace-seed N] [--trace-reuse]]
//               [--ep N [--attention tp|dp] [--redundant-experts R] [--ep-imbalance expected_max|mean]]
//               [--json [--units display|si]]
//   strata-eval [eval] --model <preset|config.json> --machine stratum-s|stratum-l|stratum-xl
//               --phase decode|prefill --batch B --context S [--no-tiering] [--hbm-nmp]
//               [--expert-mapping expert_parallel|all_chips]
//               [--hit-rate H | --trace trace.csv ...] [--json [--units display|si]]
//   strata-eval list          (also: strata-eval --list)
//   strata-eval list --support   (the coverage verdict of every model on every GPU preset)
//
// Prints the step totals (FLOPs; bytes of weights, KV cache and activations; time; energy;
// tokens/s; tokens/J) and a per-operator table, or the same as JSON with --json (keys in the
// option help).
//
// --model    a preset name (see list; case-insensitive) or a Hugging Face config.json.
// --machine  a GPU preset (h100_sxm5, rtx_a6000, a100_sxm4_80gb, h200_sxm, b200, mi300x, mi325x), or a JSON file holding either a
//            gpu_params object (strata/baseline/gpu.hpp: the card; --devices or the fit check picks
//            the tensor-parallel degree) or a roofline_machine object (strata/workload/roofline.hpp;
//            recognised by its "tiers" key; its "devices" is used unless --devices is given).
// --devices  tensor-parallel degree. For a GPU, the default is the smallest power of two up to
//            --max-devices (default 8, one node) on which weights + KV cache + workspace fit
//            vLLM's 90 % of memory. Beyond gpus_per_node (8) the GPUs span nodes and the
//            all-reduces cross the inter-node link (400 Gb/s InfiniBand NDR per GPU).
// --ep       expert parallelism (strata/workload/expert_parallel.hpp): the routed experts of each
//            MoE layer spread whole over N devices (N is the device count; --devices defaults to
//            it), the busiest device's experts bounding the layer; --attention tp (default: every
//            other operator in tensor parallelism, the MoE block ending in an all-reduce) or dp
//            (each device its own sequences with all the weights; all-to-all dispatch and combine
//            per MoE layer on the NVLink/inter-node links); --redundant-experts R slots per device
//            for EPLB replicas of the hottest experts; --ep-imbalance the busiest device's load
//            under uniform routing (expected_max, the default, or mean).
// --trace    a per-token routing trace (seq,pos,L1..LN CSV; strata/workload/trace_io.hpp): the
//            step routes exactly as the trace instead of uniformly. Prefill: the trace's first
//            batch × context tokens (contiguous tokens of its sequences). Decode: one token from
//            each of `batch` different sequences (strata::select_decode_batch) at position
//            --trace-position, or at a random position per sequence from --trace-seed (default);
//            a trace with fewer sequences than the batch is refused unless --trace-reuse, which
//            takes several tokens per sequence and reports it.
// Stratum machines (strata/stratum/system.hpp): decode runs on the chips' near-memory
// processors, prefill on the xPU die. --no-tiering programs the slowest tier's tRCD for every
// row; --hbm-nmp replaces the Mono3D chips by HBM3 stacks with a processing base die;
// --expert-mapping chooses how routed experts spread over the chips (strata/stratum/
// expert_mapping.hpp: expert_parallel, the default, or all_chips). Expert
// usage: uniform by default, --hit-rate H builds the table whose A hottest experts per layer take
// a share H of the accesses (placed and routed by it), --trace routes and places by the trace's
// token counts of the step.
// The capacity verdict (every weight, the KV cache and the workspace against the machine's
// tiers) is printed; an infeasible point is still evaluated. So is the coverage verdict
// (strata/baseline/coverage.hpp): supported, or approximated with each approximation named; the
// config keys the reader ignored are printed as warnings on stderr. A mapping the model cannot do
// (tensor parallelism wider than its heads, expert parallelism wider than its experts) is refused,
// exit 1, by the same rule for GPU presets and machine files. An option that does not apply to the
// machine, the phase or the routing of the command line is refused (exit 2), never ignored.

#include <algorithm>   // std::min
#include <cstdint>     // std::uint32_t, histogram counts
#include <iostream>    // std::cout, std::cerr
#include <memory>      // std::shared_ptr
#include <optional>    // std::optional
#include <stdexcept>   // std::logic_error
#include <string>      // std::string
#include <utility>     // std::move
#include <vector>      // std::vector

#include "cli.hpp"
#include "strata/baseline/gpu.hpp"
#include "strata/baseline/baseline_gpu.hpp"
#include "strata/baseline/machine_json.hpp"
#include "strata/baseline/validated_gpu.hpp"
#include "strata/stratum/system.hpp"
#include "strata/workload/operator_table.hpp"
#include "strata/workload/expert_parallel.hpp"
#include "strata/workload/operators.hpp"
#include "strata/workload/roofline.hpp"
#include "strata/workload/trace_io.hpp"

namespace strata_eval {
namespace {

struct options {
  std::string model, machine, phase, trace;
  int batch = 0, context = 0;
  std::optional<int> devices;
  int max_devices = 8;
  int trace_position = -1;
  std::uint64_t trace_seed = 0;
  bool trace_reuse = false;
  bool json = false, list = false;
  std::string units = "display";
  bool no_tiering = false, hbm_nmp = false;
  std::string detail;  // --detail: empty (layers) or "experts"
  std::string expert_mapping;
  std::optional<double> hit_rate;
  std::optional<int> ep;
  std::string attention = "tp", ep_imbalance = "expected_max";
  int redundant_experts = 0;
  std::string gpu_knobs = "cited";  // --gpu-knobs: the knob set of a GPU preset or Stratum xPU
  // Options given on the command line whose defaults would not show it (an option that does not
  // apply to the run is refused, never ignored: check_applicable).
  bool given_gpu_knobs = false, given_max_devices = false, given_ep_imbalance = false, given_trace_choice = false;
};

// The knob set of --gpu-knobs (checked against the two names by the option).
strata::gpu_knob_set knob_set_of(const options& o) {
  return o.gpu_knobs == "fitted" ? strata::gpu_knob_set::fitted : strata::gpu_knob_set::cited;
}

// The parallelism of the options (--ep and its companions; default: tensor parallelism).
strata::parallelism parallelism_of(const options& o) {
  strata::parallelism p;
  p.ep = o.ep.value_or(1);
  p.attention = o.attention == "dp" ? strata::attention_parallel::dp : strata::attention_parallel::tp;
  p.redundant_experts = o.redundant_experts;
  p.imbalance = o.ep_imbalance == "mean" ? strata::ep_imbalance::mean : strata::ep_imbalance::expected_max;
  return p;
}

// One row of the per-operator table read off a step's breakdown: "layers 3-60 / routed_experts",
// the layers it stands for, its time and energy per layer.
struct tree_row {
  std::string name;
  std::size_t layers = 1;
  const strata::cost<>* node = nullptr;
};

std::vector<tree_row> tree_rows(const strata::cost<>& step) {
  std::vector<tree_row> rows;
  for (const auto& part : step.parts) {
    const bool rep = part.rule == strata::cost_rule::repeat && !part.parts.empty();
    const strata::cost<>& one = rep ? part.parts.front() : part;
    for (const auto& leaf : one.parts) rows.push_back({part.name + " / " + leaf.name, rep ? part.count : 1, &leaf});
  }
  return rows;
}

// The coverage verdict of every preset on every GPU preset (strata::gpu_coverage): a matrix of
// s/a/r, then each verdict with its reasons.
int run_support() {
  const strata::step_shape shape{.mode = strata::phase::decode, .batch = 1, .context = 2048};
  const int max_devices = 8;
  const auto models = strata::preset_names();
  const auto gpus = strata::gpu_preset_names();
  std::vector<std::vector<strata::coverage_verdict>> v(models.size());
  for (std::size_t i = 0; i < models.size(); ++i) {
    const strata::model m = strata::preset(models[i]);
    for (const auto& g : gpus) {
      v[i].push_back(strata::gpu_coverage(m, g, strata::preset_ignored_keys(models[i]), shape, max_devices));
    }
  }
  std::cout << "coverage: decode, batch 1, context 2048, on up to " << max_devices
            << " GPUs of one node (strata::gpu_coverage); s supported, a approximated, r refused\n";
  const auto row = [&](std::string first, const std::vector<std::string>& cells) {
    std::string line = pad(std::move(first), 24);
    for (std::size_t j = 0; j < cells.size(); ++j) line += pad(cells[j], gpus[j].size() + 1);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    std::cout << line << "\n";
  };
  row("model", gpus);
  for (std::size_t i = 0; i < models.size(); ++i) {
    std::vector<std::string> cells;
    for (const auto& verdict : v[i]) {
      cells.emplace_back(verdict.kind == strata::coverage_kind::supported      ? "s"
                         : verdict.kind == strata::coverage_kind::approximated ? "a"
                                                                               : "r");
    }
    row(models[i], cells);
  }
  std::cout << "\nverdicts:\n";
  for (std::size_t i = 0; i < models.size(); ++i) {
    for (std::size_t j = 0; j < gpus.size(); ++j) {
      std::cout << "  " << models[i] << " on " << gpus[j] << ": " << v[i][j].text();
      if (v[i][j].devices > 0) std::cout << " [" << v[i][j].devices << (v[i][j].devices > 1 ? " devices]" : " device]");
      std::cout << "\n";
    }
  }
  return 0;
}

int run_list() {
  std::cout << "models:\n";
  for (const auto& n : strata::preset_names()) std::cout << "  " << n << "\n";
  std::cout << "machines:\n";
  for (const auto& n : strata::gpu_preset_names()) {
    std::cout << "  " << n << "  (" << strata::gpu_preset(n).name << ")\n";
  }
  for (const auto& n : strata::stratum_system_names()) {
    std::cout << "  " << n << "  (" << strata::stratum_system(n).name << ")\n";
  }
  return 0;
}

// The machine argument: a GPU card (evaluated on n devices) or a ready roofline machine, by the
// library's loader (strata/baseline/machine_json.hpp), which a serving scenario's gpu.name shares;
// the message for an unknown name lists the Stratum systems too (--machine takes them).
strata::loaded_machine load_machine(const std::string& arg, strata::gpu_knob_set knobs) {
  return strata::load_machine(arg, knobs, "machine", strata::stratum_system_names());
}

// Routing counts of a step's tokens from a trace, per MoE layer: prefill the first `tokens`
// tokens; decode one token from each of `tokens` sequences (`batch` receives the selection).
strata::expert_histogram trace_histogram(const std::string& path, const strata::model& m, double tokens,
                                         const options& o, strata::decode_batch* batch) {
  if (m.experts == 0) throw strata::config_error("trace", "--trace given but " + m.name + " has no routed experts");
  const auto t = strata::load_trace_csv(path, {.experts = m.experts});
  if (t.empty()) throw strata::config_error("trace", path + ": no tokens (the trace has a header but no rows)");
  strata::require_trace_of_model(t, m, path);
  if (static_cast<double>(t.tokens()) < tokens) {
    throw strata::config_error("trace", path + ": " + std::to_string(t.tokens()) + " tokens, but the step needs " +
                                            std::to_string(static_cast<long long>(tokens)));
  }
  std::vector<std::size_t> list;
  if (batch != nullptr) {
    try {
      *batch = strata::select_decode_batch(t, {.batch = static_cast<int>(tokens),
                                               .position = o.trace_position,
                                               .seed = o.trace_seed,
                                               .allow_reuse = o.trace_reuse});
    } catch (const strata::config_error& e) {
      throw strata::config_error("trace", path + ": " + e.what() +
                                              (e.field() == "batch" ? std::string(" (strata-eval: --trace-reuse)") : std::string()));
    }
    list = batch->tokens;
  } else {
    list.resize(static_cast<std::size_t>(tokens));
    for (std::size_t i = 0; i < list.size(); ++i) list[i] = i;
  }
  strata::expert_histogram h(static_cast<std::size_t>(t.layers()),
                             std::vector<std::uint32_t>(static_cast<std::size_t>(m.experts), 0));
  for (const std::size_t i : list) {
    for (int l = 0; l < t.layers(); ++l) {
      for (const auto e : t.experts(i, l)) ++h[static_cast<std::size_t>(l)][e];
    }
  }
  return h;
}


// Energy per token as every output writes it: tokens per joule (0 for a step of no energy).
double tokens_per_J(const strata::basic_step_result<double>& r) { return r.energy.si() > 0.0 ? r.tokens / r.energy.si() : 0.0; }

bool is_stratum(const std::string& machine) {
  for (const auto& n : strata::stratum_system_names()) {
    std::string a;
    for (char c : machine) a += c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (a == n) return true;
  }
  return false;
}

// Decode on the NMP or prefill on the xPU of a Stratum system.
int run_stratum(const options& o, const strata::model& model, const strata::step_shape& shape,
                const strata::coverage_verdict& verdict) {
  auto sys = strata::stratum_system(o.machine);
  sys.xpu = strata::baseline_gpu(sys.xpu, knob_set_of(o));
  sys.tiering = !o.no_tiering;
  if (o.expert_mapping == "all_chips") sys.mapping.experts = strata::expert_split::all_chips;
  if (o.hbm_nmp) sys = strata::with_hbm_nmp(sys);
  const char* phase = shape.mode == strata::phase::decode ? "decode" : "prefill";
  // The inputs beside a result in --json output.
  const auto add_inputs = [&](strata::json& j) {
    j["model"] = model.name;
    j["machine"] = sys.name;
    j["phase"] = phase;
    j["batch"] = shape.batch;
    j["context"] = shape.context;
    j["verdict"] = verdict.text();
  };
  if (!o.detail.empty() && shape.mode != strata::phase::decode) {
    throw strata::config_error("detail", "--detail applies to a Stratum decode step's breakdown, not to prefill");
  }
  if (shape.mode == strata::phase::prefill) {
    const auto r = strata::evaluate_prefill(sys, model, shape);
    if (o.json) {
      strata::json j = r;
      // Energy per token as tokens per joule, as every output writes it (docs/cli.md, Output conventions).
      j.erase("joules_per_token");
      j["tokens_per_J"] = tokens_per_J(r);
      add_inputs(j);
      print_json(std::move(j), units_of(o.units));
      return 0;
    }
    std::cout << "strata-eval: " << model.name << " on " << sys.name << " (prefill on the xPU die), batch "
              << shape.batch << ", context " << shape.context << "\n"
              << "verdict: " << verdict.text() << "\n"
              << "capacity: " << (r.feasible ? "fits" : r.reason) << "\n"
              << "  time                 " << time_text(r.time.si()) << "\n"
              << "  energy               " << num(r.energy.si()) << " J\n"
              << "  tokens/s             " << num(r.tokens_per_s) << "\n";
    return 0;
  }
  strata::stratum_usage usage;
  const int moe_layers = model.moe_layers();
  if ((o.hit_rate || !o.trace.empty()) && model.experts == 0) {
    throw strata::config_error(o.hit_rate ? "hit_rate" : "trace", std::string(o.hit_rate ? "--hit-rate" : "--trace") +
                                                                      " given but " + model.name +
                                                                      " has no routed experts");
  }
  if (o.hit_rate && model.experts > 0) {
    usage.routing = strata::usage_from_hit_rate(moe_layers, model.experts, model.top_k, *o.hit_rate);
  } else if (!o.trace.empty() && model.experts > 0) {
    std::optional<strata::decode_batch> batch;
    batch.emplace();
    const auto hist = trace_histogram(o.trace, model, double(shape.batch), o, &*batch);
    if (!batch->note.empty()) std::cerr << "strata-eval: note: decode batch: " << batch->note << "\n";
    // The step's routing as per-token probabilities (count / batch, at most 1).
    usage.routing.assign(hist.size(), std::vector<double>(static_cast<std::size_t>(model.experts), 0.0));
    for (std::size_t l = 0; l < hist.size(); ++l) {
      for (std::size_t e = 0; e < hist[l].size(); ++e) {
        usage.routing[l][e] = std::min(1.0, double(hist[l][e]) / double(shape.batch));
      }
    }
  }
  // The tree only for JSON (text prints none of it): a node per run of identical layers, and the
  // experts' figures as columns with --detail experts.
  const strata::breakdown_detail detail = !o.json                ? strata::breakdown_detail::none
                                          : o.detail == "experts" ? strata::breakdown_detail::experts
                                                                  : strata::breakdown_detail::layers;
  const auto r = strata::evaluate_decode(sys, model, shape, usage, detail);
  if (o.json) {
    strata::json j = r;
    add_inputs(j);
    j["routing"] = o.hit_rate ? "hit_rate" : o.trace.empty() ? "uniform" : "trace";
    j["breakdown"] = r.breakdown;
    print_json(std::move(j), units_of(o.units));
    return 0;
  }
  const auto& e = r.parts;
  std::cout << "strata-eval: " << model.name << " on " << sys.name << " (" << sys.chips * sys.stages
            << (sys.memory == strata::nmp_memory::hbm ? " HBM3 NMP stacks" : " Mono3D chips")
            << (sys.tiering ? "" : ", no tiering") << "), decode, batch " << shape.batch << ", context "
            << shape.context << ", routing "
            << (o.hit_rate ? "hit rate " + num(*o.hit_rate) : o.trace.empty() ? std::string("uniform") : o.trace)
            << "\n";
  std::cout << "verdict: " << verdict.text() << "\n";
  std::cout << "capacity: " << (r.feasible ? "fits" : r.reason) << "\n";
  std::cout << "\ntotals\n"
            << "  time                 " << time_text(r.time.si()) << " (NMP " << time_text(r.nmp_time.si())
            << ", xPU " << time_text(r.xpu_time.si()) << ")\n"
            << "  internal-BW bound    " << time_text(r.bandwidth_bound.si()) << "\n"
            << "  tokens/s             " << num(r.tokens_per_s) << "\n"
            << "  tokens/J             " << num(r.tokens_per_joule) << "\n"
            << "  hot-expert hit rate  " << num(r.hot_hit_rate) << "\n";
  std::cout << "\nenergy by part (J)\n"
            << "  MACs " << num(e.mac.si()) << ", SFE " << num(e.sfe.si()) << ", SRAM " << num(e.sram.si())
            << "\n  DRAM activate " << num(e.dram_activate.si()) << ", word line " << num(e.dram_wordline.si())
            << ", column " << num(e.dram_column.si()) << ", datapath " << num(e.dram_datapath.si())
            << "\n  bond " << num(e.bond.si()) << ", ring " << num(e.ring.si()) << ", interposer PHY "
            << num(e.phy.si()) << "\n  NMP static " << num(e.nmp_static.si()) << ", xPU dynamic "
            << num(e.xpu_dynamic.si()) << ", xPU static " << num(e.xpu_static.si()) << "\n";
  return 0;
}

bool is_gpu_preset(const std::string& machine) {
  for (const auto& n : strata::gpu_preset_names()) {
    if (same_name(n, machine)) return true;
  }
  return false;
}

// An option that does not apply to the machine, the phase or the routing of the command line is a
// bad command line (exit 2), never silently ignored.
void check_applicable(const options& o) {
  const bool stratum = is_stratum(o.machine), gpu = is_gpu_preset(o.machine);
  const bool prefill = o.phase == "prefill";
  if (o.given_gpu_knobs && !stratum && !gpu) {
    throw usage_error{"--gpu-knobs applies to a GPU preset or a Stratum system's xPU, not to the machine file " +
                      o.machine + " (its knobs are taken as written: set compute_efficiency, memory_efficiency and "
                      "op_overhead in the file)"};
  }
  if (stratum && o.devices) {
    throw usage_error{"--devices applies to a GPU or roofline machine, not to a Stratum machine (" + o.machine +
                      "; its chips and stages are the system's)"};
  }
  if (o.given_max_devices && (stratum || !gpu || o.devices || o.ep)) {
    throw usage_error{"--max-devices bounds the fit check's choice of a GPU preset's degree; it does not apply " +
                      std::string(stratum ? "to a Stratum machine"
                                  : !gpu  ? "to a machine file (" + o.machine + ")"
                                          : "with --devices or --ep, which set the degree")};
  }
  if (o.given_trace_choice && prefill) {
    throw usage_error{"--trace-position, --trace-seed and --trace-reuse choose a decode step's tokens; a prefill "
                      "step takes the trace's first batch x context tokens"};
  }
  if (o.given_ep_imbalance && !o.trace.empty()) {
    throw usage_error{"--ep-imbalance applies to uniform routing; with --trace the busiest device's load is the "
                      "trace's"};
  }
  if (stratum && prefill && (o.hit_rate || !o.trace.empty())) {
    throw usage_error{std::string(o.hit_rate ? "--hit-rate" : "--trace") +
                      " applies to a Stratum decode step; its prefill runs on the xPU die, whose time routing does not "
                      "change"};
  }
}

int run_eval(const options& o) {
  if (o.list) return run_list();
  check_applicable(o);
  const loaded_model loaded = load_model_with_keys(o.model);
  const strata::model& model = loaded.m;
  const strata::step_shape shape{.mode = o.phase == "decode" ? strata::phase::decode : strata::phase::prefill,
                                 .batch = o.batch,
                                 .context = o.context};
  // --batch and --context out of range are a bad command line (exit 2), as every range error.
  try {
    strata::validate(shape);
  } catch (const strata::config_error& e) {
    throw usage_error{"--" + e.field() + ": " + e.what()};
  }
  if (is_stratum(o.machine) && o.ep) {
    throw usage_error{"--ep applies to a GPU or roofline machine, not to a Stratum machine (" + o.machine +
                      "; its experts are placed by --expert-mapping)"};
  }
  if (is_stratum(o.machine)) return run_stratum(o, model, shape, strata::stratum_coverage(model, loaded.ignored_keys));
  if (o.no_tiering || o.hbm_nmp || o.hit_rate || !o.detail.empty() || !o.expert_mapping.empty()) {
    throw usage_error{"--no-tiering, --hbm-nmp, --expert-mapping, --hit-rate and --detail apply to a Stratum machine "
                      "(stratum-s, stratum-l, stratum-xl), not to " + o.machine};
  }
  const strata::loaded_machine ma = load_machine(o.machine, knob_set_of(o));

  strata::roofline_machine machine = ma.machine;
  std::optional<strata::gpu_fit> fit;
  const strata::parallelism par = parallelism_of(o);
  const bool ep = par.expert_parallel();
  if (ma.gpu) {
    int n = o.devices.value_or(o.ep.value_or(0));
    if (!o.devices && !o.ep) {
      std::string why;
      n = strata::min_devices(*ma.gpu, model, shape, &why, o.max_devices);
      if (n == 0) {
        throw strata::config_error("devices", "refused: " + model.name + " " + why + " (pass --devices to evaluate anyway)");
      }
    }
    strata::validate(par, model, n);
    fit = strata::check_fit(*ma.gpu, n, model, shape, par);
    machine = strata::make_machine(*ma.gpu, n);
  } else if (o.devices || o.ep) {
    machine.devices = o.devices.value_or(*o.ep);
  }

  // The coverage verdict of this point: the mapping (one rule for GPU presets, gpu_params and
  // roofline machine files: strata::mapping_coverage), formats the machine has no path for, ignored
  // config keys, knobs not validated on the card, a forced degree that does not fit. A mapping the
  // model cannot do is refused as a model that fits nowhere is: no result, exit 1.
  strata::coverage_verdict verdict = strata::model_coverage(model, machine, loaded.ignored_keys, par);
  if (verdict.kind == strata::coverage_kind::refused) {
    const bool by_ep = verdict.reasons.front().rfind("expert parallelism", 0) == 0;
    const std::string from = o.devices || o.ep ? std::string(by_ep ? "--ep" : "--devices")
                             : ma.gpu           ? std::string("the fit check")
                                                : o.machine + "'s \"devices\"";
    throw strata::config_error(by_ep ? "ep" : "devices", verdict.text() + " (" + model.name + " on " + machine.name +
                                                             ", " + std::to_string(machine.devices) + " devices from " +
                                                             from + ")");
  }
  if (fit && !fit->fits) std::cerr << "strata-eval: warning: " << fit->reason << "\n";
  if (!ma.preset.empty()) strata::add_knobs_reason(verdict, ma.preset);
  // A forced degree the memory does not hold (a degree the heads do not divide is the mapping's
  // reason above, not a memory one).
  if (fit && !fit->fits && fit->required_per_device > fit->usable_per_device) {
    verdict.reasons.push_back("does not fit " + std::to_string(fit->devices) + " x " + ma.gpu->name +
                              " (evaluated anyway)");
    verdict.kind = strata::coverage_kind::approximated;
  }

  const double step_tokens = shape.mode == strata::phase::decode ? double(shape.batch)
                                                                 : double(shape.batch) * double(shape.context);
  std::optional<strata::decode_batch> batch;
  if (!o.trace.empty() && shape.mode == strata::phase::decode) batch.emplace();
  const strata::expert_histogram hist =
      o.trace.empty() ? strata::expert_histogram{}
                      : trace_histogram(o.trace, model, step_tokens, o, batch ? &*batch : nullptr);
  // Totals (and, for JSON, the tree: a node per run of identical layers) from the distinct layers.
  const auto r = strata::evaluate(model, shape, machine, par, hist,
                                 o.json || ep ? strata::step_breakdown::tree : strata::step_breakdown::none);
  const auto routings = strata::ep_routings(model, shape, par, hist);
  // The busiest device's routing over the MoE layers (the largest imbalance) and one MoE layer's
  // all-to-alls (each carries the same bytes under uniform routing).
  const strata::ep_routing* worst = nullptr;
  for (const auto& [layer, er] : routings) {
    if (worst == nullptr || er.imbalance() > worst->imbalance()) worst = &er;
  }
  // Its busiest device: routings and expert copies read.
  double busiest_load = 0.0, busiest_copies = 0.0;
  if (worst != nullptr) {
    const auto d = static_cast<std::size_t>(std::max_element(worst->load.begin(), worst->load.end()) - worst->load.begin());
    busiest_load = worst->load[d];
    busiest_copies = worst->touched[d];
  }
  const int moe_layers = model.moe_layers();
  if (batch && !batch->note.empty()) std::cerr << "strata-eval: note: decode batch: " << batch->note << "\n";

  // Per-operator time and energy, each including its all-reduce, so that the rows add up to the
  // totals (strata::operator_results); under expert parallelism the rows are the tree's per layer.
  const auto ops = ep ? std::vector<strata::operator_result>{} : strata::operator_results(model, shape, machine, hist);
  const char* attention = par.attention == strata::attention_parallel::dp ? "dp" : "tp";

  const char* phase = shape.mode == strata::phase::decode ? "decode" : "prefill";
  if (o.json) {
    strata::json j;
    j["model"] = model.name;
    j["machine"] = machine.name;
    j["devices"] = machine.devices;
    j["nodes"] = machine.nodes();
    j["phase"] = phase;
    j["batch"] = shape.batch;
    j["context"] = shape.context;
    j["routing"] = o.trace.empty() ? "uniform" : "trace";
    if (fit) j["fit"] = *fit;
    if (!ma.preset.empty()) j["knobs"] = strata::knobs_note(ma.preset, knob_set_of(o));
    j["verdict"] = verdict.text();
    j["feasible"] = r.feasible;
    j["capacity"] = r.reason;
    if (batch) {
      j["decode_batch"] = {{"sequences", batch->sequences},
                           {"max_per_sequence", batch->max_per_sequence},
                           {"repeated_tokens", batch->repeated_tokens},
                           {"note", batch->note}};
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
    j["tokens_per_J"] = tokens_per_J(r);
    j["parallelism"] = par;
    if (ep) {
      const double per_layer = moe_layers > 0 ? r.alltoall_bytes.si() / (2.0 * moe_layers) : 0.0;
      j["alltoall"] = {{"time_s", r.alltoall_time.si()},
                       {"bytes_B", r.alltoall_bytes.si()},
                       {"dispatch_bytes_per_layer_B", per_layer},
                       {"combine_bytes_per_layer_B", per_layer},
                       {"time_per_layer_s", moe_layers > 0 ? r.alltoall_time.si() / moe_layers : 0.0}};
      j["busiest_device"] = {{"routings", busiest_load},
                             {"mean_routings", worst ? worst->routings / worst->devices : 0.0},
                             {"imbalance", worst ? worst->imbalance() : 1.0},
                             {"expert_copies_read", busiest_copies}};
    }
    strata::json jops = strata::json::array();
    for (const auto& row : ep ? tree_rows(r.breakdown) : std::vector<tree_row>{}) {
      jops.push_back({{"name", row.name}, {"layers", row.layers}, {"time_s", row.node->time.si()}, {"energy_J", row.node->energy.si()}});
    }
    for (const auto& op : ops) {
      jops.push_back({{"name", op.name},
                      {"kind", strata::to_string(op.kind)},
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
    print_json(std::move(j), units_of(o.units));
    return 0;
  }

  std::cout << "strata-eval: " << model.name << " on " << machine.name << " (" << machine.devices
            << (ep ? " devices, EP " + std::to_string(par.ep) + ", attention " + attention + ")"
                : machine.devices > 1 ? std::string(" devices in tensor parallel)") : std::string(" device)"))
            << ", " << phase << ", batch "
            << shape.batch
            << ", context " << shape.context << ", routing " << (o.trace.empty() ? "uniform" : o.trace) << "\n";
  if (fit) std::cout << "memory: " << fit->reason << "\n";
  if (!ma.preset.empty()) std::cout << "knobs: " << strata::knobs_note(ma.preset, knob_set_of(o)) << "\n";
  std::cout << "verdict: " << verdict.text() << "\n";
  std::cout << "capacity: " << r.reason << "\n";
  if (machine.nodes() > 1) {
    std::cout << "nodes: " << machine.nodes() << " of " << machine.devices_per_node
              << " devices; all-reduces cross the inter-node link\n";
  }
  if (batch) {
    std::cout << "decode batch: " << batch->sequences << " sequences"
              << (batch->note.empty() ? ", one token each" : " (" + batch->note + ")") << "\n";
  }
  std::cout << "\ntotals\n"
            << "  FLOPs                " << num(r.flops.si(), "%.4e") << "\n"
            << "  bytes, weights       " << bytes_text(r.weight_bytes.si()) << "\n"
            << "  bytes, KV cache      " << bytes_text(r.kv_bytes.si()) << "\n"
            << "  bytes, activations   " << bytes_text(r.activation_bytes.si()) << "\n"
            << "  bytes, links         " << bytes_text(r.link_bytes.si()) << "\n"
            << "  time                 " << time_text(r.time.si()) << "\n"
            << "  energy               " << num(r.energy.si()) << " J (dynamic " << num(r.dynamic_energy.si())
            << " J" << (r.power_capped ? ", capped at the power limit" : "") << ")\n"
            << "  tokens/s             " << num(r.tokens_per_s) << "\n"
            << "  tokens/J             " << num(tokens_per_J(r)) << "\n";
  if (ep) {
    std::cout << "\nexpert parallelism: EP " << par.ep << ", attention " << attention << ", " << par.redundant_experts
              << " redundant expert slots per device, imbalance " << (o.trace.empty() ? o.ep_imbalance : std::string("measured (trace)"))
              << "\n";
    if (worst != nullptr) {
      std::cout << "  busiest device        " << num(busiest_load) << " routings per MoE layer, mean "
                << num(worst->routings / worst->devices) << " (" << num(worst->imbalance(), "%.4f") << " x), "
                << num(busiest_copies) << " expert copies read\n";
    }
    const double per_layer = moe_layers > 0 ? r.alltoall_bytes.si() / (2.0 * moe_layers) : 0.0;
    std::cout << "  all-to-all per layer  dispatch " << bytes_text(per_layer) << " + combine " << bytes_text(per_layer)
              << " through the busiest device, " << time_text(moe_layers > 0 ? r.alltoall_time.si() / moe_layers : 0.0) << "\n"
              << "  all-to-all per step   " << bytes_text(r.alltoall_bytes.si()) << ", " << time_text(r.alltoall_time.si())
              << " (" << moe_layers << " MoE layers)\n";
  }
  std::cout << "\nenergy by part (J)\n"
            << "  compute " << num(r.compute_energy.si()) << ", memory " << num(r.memory_energy.si()) << ", links "
            << num(r.link_energy.si()) << ", static " << num(r.static_energy.si()) << "\n";
  if (ep) {
    std::cout << "\nper operator, per layer (time and energy include the operator's all-reduce or all-to-all)\n";
    std::cout << pad("op", 40) << pad("layers", 8, true) << pad("time (us)", 12, true) << pad("energy (mJ)", 13, true) << "\n";
    for (const auto& row : tree_rows(r.breakdown)) {
      std::cout << pad(row.name, 40) << pad(std::to_string(row.layers), 8, true)
                << pad(num(row.node->time.si() * 1e6, "%.3f"), 12, true)
                << pad(num(row.node->energy.si() * 1e3, "%.4f"), 13, true) << "\n";
    }
    return 0;
  }
  std::cout << "\nper operator (time and energy include the operator's all-reduce)\n";
  strata::write_operator_table(std::cout, ops);
  return 0;
}


}  // namespace

command add_eval(CLI::App& app) {
  auto o = std::make_shared<options>();
  CLI::App* sub = app.add_subcommand("eval", "one serving step of a model on a machine (the default subcommand)");
  sub->footer(
      "Evaluates one serving step (decode: B sequences with S tokens of context; prefill: B prompts of S\n"
      "tokens) on a machine and prints totals and a per-operator table.\n"
      "Exit status: 0 ok, 2 bad command line, 1 model/machine/trace error.");
  sub->add_flag("--list", o->list, "list model and machine presets (as strata-eval list; other options ignored)");
  // Required unless --list (CLI11's ->required() cannot say "unless"): checked before the run.
  std::vector<CLI::Option*> required{
      sub->add_option("--model", o->model, "model preset (see list) or a Hugging Face config.json"),
      sub->add_option("--machine", o->machine,
                      "GPU preset (h100_sxm5, rtx_a6000, a100_sxm4_80gb, h200_sxm, b200, mi300x, mi325x), stratum-s|stratum-l|stratum-xl, or a "
                      "JSON file: a gpu_params object, or a roofline_machine object (has \"tiers\")"),
      sub->add_option("--phase", o->phase, "decode or prefill")->check(CLI::IsMember({"decode", "prefill"})),
      sub->add_option("--batch", o->batch, "sequences (decode) or prompts (prefill) in the step"),
      sub->add_option("--context", o->context, "tokens of context (decode) or prompt length (prefill)")};
  sub->add_option("--devices", o->devices,
                  "tensor-parallel degree (GPU default: smallest power of two up to --max-devices that fits "
                  "memory; beyond 8 GPUs per node the all-reduces cross nodes)")
      ->check(CLI::PositiveNumber);
  auto* max_devices = sub->add_option("--max-devices", o->max_devices, "largest degree the GPU default tries (default 8: one node)")
      ->check(CLI::PositiveNumber);
  auto* gpu_knobs = sub->add_option("--gpu-knobs", o->gpu_knobs,
                  "serving knobs of a GPU preset or a Stratum system's xPU: cited (default, the card's own, fitted to nothing) "
                  "or fitted (on the 2024 measurement set, strata-eval validate)")
      ->check(CLI::IsMember({"cited", "fitted"}));
  auto* trace = sub->add_option("--trace", o->trace,
                                "routing trace CSV (seq,pos,L1..LN). Prefill: its first batch x context tokens. "
                                "Decode: one token from each of batch different sequences");
  auto* trace_position = sub->add_option("--trace-position", o->trace_position,
                  "decode: the token at this position of each sequence (default: random)")
      ->check(CLI::NonNegativeNumber)
      ->needs(trace);
  auto* trace_seed = sub->add_option("--trace-seed", o->trace_seed, "decode: seed of the random sequences and positions (default 0)")
      ->needs(trace);
  auto* trace_reuse = sub->add_flag("--trace-reuse", o->trace_reuse,
                "decode: allow fewer sequences than the batch (reported), else refused")
      ->needs(trace);
  auto* json = sub->add_flag("--json", o->json,
                             "print JSON: flops, bytes_B.{weights,kv,activations,links}, time_s, energy_J, "
                             "dynamic_energy_J, energy_parts_J.{compute,memory,links,static}, tokens, tokens_per_s, tokens_per_J, "
                             "power_capped, ops[] "
                             "{name, kind, layer, expert, flops, bytes_B, time_s, energy_J, bound} (with --ep: "
                             "{name, layers, time_s, energy_J} per layer, from the breakdown), breakdown (cost "
                             "tree), parallelism, with --ep alltoall.{time_s, bytes_B, dispatch_bytes_per_layer_B, "
                             "combine_bytes_per_layer_B, time_per_layer_s} and busiest_device.{routings, mean_routings, "
                             "imbalance, expert_copies_read}, and model, machine, devices, phase, batch, context, fit");
  add_units_option(*sub, o->units, json);
  sub->add_option("--detail", o->detail,
                  "with --json, Stratum decode: the breakdown's detail: layers (default: a node per run of identical "
                  "layers and per operator kind) or experts (also each MoE block's experts as columns: expert, tier, "
                  "chip, bytes_B, time_s, energy_J)")
      ->check(CLI::IsMember({"layers", "experts"}))
      ->needs(json);
  sub->add_flag("--no-tiering", o->no_tiering, "Stratum: one worst-case tRCD for every row (same hardware otherwise)");
  sub->add_flag("--hbm-nmp", o->hbm_nmp, "Stratum: HBM3 stacks with a processing base die in place of the Mono3D chips");
  sub->add_option("--expert-mapping", o->expert_mapping,
                  "Stratum: routed experts whole on one chip each (expert_parallel, the default; Stratum §4.1) or "
                  "split over every chip (all_chips)")
      ->check(CLI::IsMember({"expert_parallel", "all_chips"}));
  sub->add_option("--hit-rate", o->hit_rate,
                  "Stratum: share H of expert accesses to the A hottest experts of each layer (placed in the fast "
                  "tiers); default uniform usage")
      ->check(CLI::Range(0.0, 1.0))
      ->excludes(trace);
  auto* ep = sub->add_option("--ep", o->ep,
                             "expert parallelism: the routed experts spread whole over this many devices (the device "
                             "count; --devices defaults to it); 1: tensor parallelism")
                ->check(CLI::PositiveNumber);
  sub->add_option("--attention", o->attention,
                  "with --ep: attention and the other non-expert operators in tp (default; the MoE block ends in an "
                  "all-reduce) or dp (each device its own sequences; all-to-all dispatch and combine per MoE layer)")
      ->check(CLI::IsMember({"tp", "dp"}))
      ->needs(ep);
  sub->add_option("--redundant-experts", o->redundant_experts,
                  "with --ep: redundant expert slots per device, filled by replicas of the hottest experts (EPLB); "
                  "default 0")
      ->check(CLI::NonNegativeNumber)
      ->needs(ep);
  auto* ep_imbalance = sub->add_option("--ep-imbalance", o->ep_imbalance,
                  "with --ep, uniform routing: the busiest device's routings: expected_max (default; Blom's expected "
                  "maximum of the device loads) or mean (perfect balance)")
      ->check(CLI::IsMember({"expected_max", "mean"}))
      ->needs(ep);
  return {sub, [o, required, max_devices, gpu_knobs, trace_position, trace_seed, trace_reuse, ep_imbalance]() -> int {
            o->given_max_devices = max_devices->count() > 0;
            o->given_gpu_knobs = gpu_knobs->count() > 0;
            o->given_trace_choice = trace_position->count() + trace_seed->count() + trace_reuse->count() > 0;
            o->given_ep_imbalance = ep_imbalance->count() > 0;
            if (!o->list) {
              for (const auto* opt : required) {
                if (opt->count() == 0) throw usage_error{opt->get_name() + " is required"};
              }
            }
            return run_eval(*o);
          }};
}

command add_list(CLI::App& app) {
  CLI::App* sub = app.add_subcommand("list", "list model and machine presets");
  auto support = std::make_shared<bool>(false);
  sub->add_flag("--support", *support,
                "the coverage verdict of every model preset on every GPU preset: supported, approximated: <what> "
                "or refused: <why> (decode, batch 1, context 2048, up to 8 GPUs)");
  return {sub, [support] { return *support ? run_support() : run_list(); }};
}

}  // namespace strata_eval
