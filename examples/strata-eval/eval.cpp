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

#include <cstdint>     // std::uint64_t
#include <iostream>    // std::cout, std::cerr
#include <memory>      // std::shared_ptr
#include <optional>    // std::optional
#include <string>      // std::string
#include <utility>     // std::move
#include <vector>      // std::vector

#include "cli.hpp"
#include "strata/baseline/gpu.hpp"
#include "strata/baseline/coverage.hpp"
#include "strata/report/eval_step.hpp"
#include "strata/stratum/system.hpp"
#include "strata/workload/operator_table.hpp"
#include "strata/workload/roofline.hpp"

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
  bool given_gpu_knobs = false, given_max_devices = false, given_ep_imbalance = false;
  bool given_trace_position = false, given_trace_seed = false;
};

// The knob set of --gpu-knobs (checked against the two names by the option).
strata::gpu_knob_set knob_set_of(const options& o) {
  return o.gpu_knobs == "fitted" ? strata::gpu_knob_set::fitted : strata::gpu_knob_set::cited;
}

// The request of the options (strata/report/eval_step.hpp: the library evaluates it for every
// front end; this file prints it).
strata::eval_request request_of(const options& o) {
  strata::eval_request r;
  r.mode = o.phase == "decode" ? strata::phase::decode : strata::phase::prefill;
  r.batch = o.batch;
  r.context = o.context;
  r.devices = o.devices;
  if (o.given_max_devices) r.max_devices = o.max_devices;
  r.trace = o.trace;
  if (o.given_trace_position) r.trace_position = o.trace_position;
  if (o.given_trace_seed) r.trace_seed = o.trace_seed;
  r.trace_reuse = o.trace_reuse;
  r.no_tiering = o.no_tiering;
  r.hbm_nmp = o.hbm_nmp;
  r.detail = o.detail;
  r.expert_mapping = o.expert_mapping;
  r.hit_rate = o.hit_rate;
  r.ep = o.ep;
  r.attention = o.attention;
  r.redundant_experts = o.redundant_experts;
  if (o.given_ep_imbalance) r.ep_imbalance = o.ep_imbalance;
  r.with_breakdown = o.json;  // the tree only for JSON (text prints none of it)
  return r;
}

// The library's warnings and notes, on stderr as they arise.
void print_warning(const std::string& line) { std::cerr << "strata-eval: " << line << "\n"; }

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

// Decode on the NMP or prefill on the xPU of a Stratum system.
int run_stratum(const options& o, const strata::model& model, const strata::coverage_verdict& verdict) {
  const auto ma = strata::load_eval_machine(o.machine, knob_set_of(o));
  const auto s = strata::evaluate_stratum_step(model, verdict, ma, request_of(o), print_warning);
  if (o.json) {
    print_json(strata::step_eval_json(s), units_of(o.units));
    return 0;
  }
  const auto& sys = s.sys;
  const auto& shape = s.shape;
  if (s.prefill) {
    const auto& r = *s.prefill;
    std::cout << "strata-eval: " << model.name << " on " << sys.name << " (prefill on the xPU die), batch "
              << shape.batch << ", context " << shape.context << "\n"
              << "verdict: " << verdict.text() << "\n"
              << "capacity: " << (r.feasible ? "fits" : r.reason) << "\n"
              << "  time                 " << time_text(r.time.si()) << "\n"
              << "  energy               " << num(r.energy.si()) << " J\n"
              << "  tokens/s             " << num(r.tokens_per_s) << "\n";
    return 0;
  }
  const auto& r = *s.decode;
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

int run_eval(const options& o) {
  if (o.list) return run_list();
  const strata::eval_request req = request_of(o);
  const bool stratum = strata::is_stratum_system_name(o.machine);
  // An option that does not apply to the machine, the phase or the routing of the command line is
  // a bad command line (exit 2), never silently ignored.
  if (auto bad = strata::eval_option_misuse(req, o.machine, stratum, strata::is_gpu_preset_name(o.machine), o.given_gpu_knobs)) {
    throw usage_error{bad->message};
  }
  const loaded_model loaded = load_model_with_keys(o.model);
  const strata::model& model = loaded.m;
  const strata::step_shape shape{.mode = req.mode, .batch = o.batch, .context = o.context};
  // --batch and --context out of range are a bad command line (exit 2), as every range error.
  try {
    strata::validate(shape);
  } catch (const strata::config_error& e) {
    throw usage_error{"--" + e.field() + ": " + e.what()};
  }
  if (auto bad = strata::eval_machine_misuse(req, o.machine, stratum)) throw usage_error{bad->message};
  if (stratum) return run_stratum(o, model, strata::stratum_coverage(model, loaded.ignored_keys));
  const strata::eval_machine ma = strata::load_eval_machine(o.machine, knob_set_of(o));
  const strata::gpu_step_eval g = strata::evaluate_gpu_step(model, loaded.ignored_keys, ma, req, print_warning);
  if (o.json) {
    print_json(strata::step_eval_json(g), units_of(o.units));
    return 0;
  }
  const auto& r = g.r;
  const auto& machine = g.machine;
  const auto& fit = g.fit;
  const auto& verdict = g.verdict;
  const auto& batch = g.batch;
  const auto& par = g.par;
  const bool ep = g.ep();
  const auto* worst = g.worst ? &*g.worst : nullptr;
  const double busiest_load = g.busiest_load, busiest_copies = g.busiest_copies;
  const int moe_layers = g.moe_layers;
  const char* attention = par.attention == strata::attention_parallel::dp ? "dp" : "tp";
  const char* phase = shape.mode == strata::phase::decode ? "decode" : "prefill";
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
            << "  tokens/J             " << num(strata::eval_tokens_per_J(r)) << "\n";
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
    for (const auto& row : strata::eval_tree_rows(r.breakdown)) {
      std::cout << pad(row.name, 40) << pad(std::to_string(row.layers), 8, true)
                << pad(num(row.node->time.si() * 1e6, "%.3f"), 12, true)
                << pad(num(row.node->energy.si() * 1e3, "%.4f"), 13, true) << "\n";
    }
    return 0;
  }
  std::cout << "\nper operator (time and energy include the operator's all-reduce)\n";
  strata::write_operator_table(std::cout, g.ops);
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
  sub->add_flag("--trace-reuse", o->trace_reuse,
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
  return {sub, [o, required, max_devices, gpu_knobs, trace_position, trace_seed, ep_imbalance]() -> int {
            o->given_max_devices = max_devices->count() > 0;
            o->given_gpu_knobs = gpu_knobs->count() > 0;
            o->given_trace_position = trace_position->count() > 0;
            o->given_trace_seed = trace_seed->count() > 0;
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
