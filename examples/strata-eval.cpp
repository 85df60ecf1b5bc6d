// strata-eval: one serving step of a model on a machine, through the roofline evaluator.
//
//   strata-eval --model <preset|config.json> --machine <preset|machine.json>
//               --phase decode|prefill --batch B --context S
//               [--devices N] [--max-devices N] [--trace trace.csv [--trace-position P]
//               [--trace-seed N] [--trace-reuse]] [--json [--units display|si]]
//   strata-eval --model <preset|config.json> --machine stratum-s|stratum-l|stratum-xl
//               --phase decode|prefill --batch B --context S [--no-tiering] [--hbm-nmp]
//               [--hit-rate H | --trace trace.csv ...] [--json [--units display|si]]
//   strata-eval --list
//
// Prints the step totals (FLOPs; bytes of weights, KV cache and activations; time; energy;
// tokens/s; J/token) and a per-operator table, or the same as JSON with --json (keys in the
// usage text below).
//
// --model    a preset name (see --list; case-insensitive) or a Hugging Face config.json.
// --machine  a GPU preset (h100_sxm5, rtx_a6000), or a JSON file holding either a gpu_params
//            object (strata/baseline/gpu.hpp: the card; --devices or the fit check picks the
//            tensor-parallel degree) or a roofline_machine object (strata/workload/roofline.hpp;
//            recognised by its "tiers" key; its "devices" is used unless --devices is given).
// --devices  tensor-parallel degree. For a GPU, the default is the smallest power of two up to
//            --max-devices (default 8, one node) on which weights + KV cache + workspace fit
//            vLLM's 90 % of memory. Beyond gpus_per_node (8) the GPUs span nodes and the
//            all-reduces cross the inter-node link (400 Gb/s InfiniBand NDR per GPU).
// --trace    a per-token routing trace (seq,pos,L1..LN CSV; strata/workload/trace_io.hpp): the
//            step routes exactly as the trace instead of uniformly. Prefill: the trace's first
//            batch × context tokens (contiguous tokens of its sequences). Decode: one token from
//            each of `batch` different sequences (strata::select_decode_batch) at position
//            --trace-position, or at a random position per sequence from --trace-seed (default);
//            a trace with fewer sequences than the batch is refused unless --trace-reuse, which
//            takes several tokens per sequence and reports it.
// Stratum machines (strata/stratum/system.hpp): decode runs on the chips' near-memory
// processors, prefill on the xPU die. --no-tiering programs the slowest tier's tRCD for every
// row; --hbm-nmp replaces the Mono3D chips by HBM3 stacks with a processing base die. Expert
// usage: uniform by default, --hit-rate H builds the table whose A hottest experts per layer take
// a share H of the accesses (placed and routed by it), --trace routes and places by the trace's
// token counts of the step.
// The capacity verdict (every weight, the KV cache and the workspace against the machine's
// tiers) is printed; an infeasible point is still evaluated.
//
// Exit status: 0 on success; 2 when the command line cannot be parsed (unknown or missing
// option, a value that is not a number, an unknown phase); 1 when a model, machine or trace
// cannot be loaded or evaluated (unknown preset, unreadable or invalid file, config_error, a
// model that fits on no GPU count). Errors go to stderr.

#include <cctype>      // std::tolower
#include <algorithm>   // std::min
#include <charconv>    // std::from_chars, integer options
#include <cstdint>     // std::uint32_t, histogram counts
#include <cstdio>      // std::snprintf
#include <cstdlib>     // std::strtod, --hit-rate
#include <exception>   // std::exception
#include <filesystem>  // std::filesystem::is_regular_file, model and machine paths
#include <fstream>     // std::ifstream, machine.json
#include <iostream>    // std::cout, std::cerr
#include <new>         // std::bad_alloc
#include <optional>    // std::optional
#include <sstream>     // std::ostringstream, reading machine.json
#include <stdexcept>   // std::logic_error
#include <string>      // std::string
#include <vector>      // std::vector

#include "strata/baseline/gpu.hpp"
#include "strata/core/json.hpp"
#include "strata/core/json_plain.hpp"
#include "strata/stratum/system.hpp"
#include "strata/workload/hf_config.hpp"
#include "strata/workload/operators.hpp"
#include "strata/workload/presets.hpp"
#include "strata/workload/roofline.hpp"
#include "strata/workload/trace_io.hpp"

namespace {

constexpr const char* usage_text =
    "usage: strata-eval --model <preset|config.json> --machine <preset|machine.json>\n"
    "                   --phase decode|prefill --batch B --context S\n"
    "                   [--devices N] [--max-devices N] [--trace trace.csv\n"
    "                   [--trace-position P] [--trace-seed N] [--trace-reuse]]\n"
    "                   [--json [--units display|si]]\n"
    "       strata-eval --model <preset|config.json> --machine stratum-s|stratum-l|stratum-xl\n"
    "                   --phase decode|prefill --batch B --context S [--no-tiering] [--hbm-nmp]\n"
    "                   [--hit-rate H | --trace trace.csv ...] [--json [--units display|si]]\n"
    "       strata-eval --list\n"
    "\n"
    "Evaluates one serving step (decode: B sequences with S tokens of context; prefill: B\n"
    "prompts of S tokens) on a machine and prints totals and a per-operator table.\n"
    "\n"
    "  --model    model preset (see --list) or a Hugging Face config.json\n"
    "  --machine  GPU preset (h100_sxm5, rtx_a6000) or a JSON file: a gpu_params object, or a\n"
    "             roofline_machine object (has \"tiers\")\n"
    "  --devices  tensor-parallel degree (GPU default: smallest power of two up to --max-devices\n"
    "             that fits memory; beyond 8 GPUs per node the all-reduces cross nodes)\n"
    "  --max-devices  largest degree the GPU default tries (default 8: one node)\n"
    "  --trace    routing trace CSV (seq,pos,L1..LN). Prefill: its first batch x context tokens.\n"
    "             Decode: one token from each of batch different sequences\n"
    "  --trace-position  decode: the token at this position of each sequence (default: random)\n"
    "  --trace-seed      decode: seed of the random sequences and positions (default 0)\n"
    "  --trace-reuse     decode: allow fewer sequences than the batch (reported), else refused\n"
    "  --json     print JSON: flops, bytes.{weights,kv,activations,links}, time_s, energy_J,\n"
    "             dynamic_energy_J, tokens, tokens_per_s, joules_per_token, power_capped, ops[]\n"
    "             {name, kind, layer, expert, flops, bytes, time_s, energy_J, bound},\n"
    "             breakdown (cost tree), and model, machine, devices, phase, batch, context, fit\n"
    "  --units    with --json: display (default: quantities as strings with units) or si (plain\n"
    "             numbers in SI units, each such key suffixed by its unit, e.g. weight_bytes_B)\n"
    "  --no-tiering  Stratum: one worst-case tRCD for every row (same hardware otherwise)\n"
    "  --hbm-nmp  Stratum: HBM3 stacks with a processing base die in place of the Mono3D chips\n"
    "  --hit-rate Stratum: share H of expert accesses to the A hottest experts of each layer\n"
    "             (placed in the fast tiers); default uniform usage\n"
    "  --list     list model and machine presets\n"
    "\n"
    "Exit status: 0 ok, 2 bad command line, 1 model/machine/trace error.\n";

// A command-line problem: reported with exit status 2.
struct usage_error {
  std::string what;
};

struct options {
  std::string model, machine, phase, trace;
  int batch = 0, context = 0;
  std::optional<int> devices;
  int max_devices = 8;
  int trace_position = -1;
  std::uint64_t trace_seed = 0;
  bool trace_reuse = false;
  bool json = false, list = false;
  std::optional<strata::json_units> units;
  bool no_tiering = false, hbm_nmp = false;
  std::optional<double> hit_rate;
};

int parse_int(const std::string& flag, const std::string& v) {
  int x = 0;
  const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (v.empty() || ec != std::errc{} || p != v.data() + v.size()) {
    throw usage_error{flag + " expects an integer, got '" + v + "'"};
  }
  return x;
}

options parse(int argc, char** argv) {
  options o;
  bool have_batch = false, have_context = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw usage_error{a + " needs a value"};
      return argv[++i];
    };
    if (a == "--model") {
      o.model = value();
    } else if (a == "--machine") {
      o.machine = value();
    } else if (a == "--phase") {
      o.phase = value();
      if (o.phase != "decode" && o.phase != "prefill") {
        throw usage_error{"--phase must be decode or prefill, got '" + o.phase + "'"};
      }
    } else if (a == "--batch") {
      o.batch = parse_int(a, value());
      have_batch = true;
    } else if (a == "--context") {
      o.context = parse_int(a, value());
      have_context = true;
    } else if (a == "--devices") {
      o.devices = parse_int(a, value());
    } else if (a == "--max-devices") {
      o.max_devices = parse_int(a, value());
    } else if (a == "--trace") {
      o.trace = value();
    } else if (a == "--trace-position") {
      o.trace_position = parse_int(a, value());
      if (o.trace_position < 0) throw usage_error{"--trace-position must be >= 0"};
    } else if (a == "--trace-seed") {
      const int seed = parse_int(a, value());
      if (seed < 0) throw usage_error{"--trace-seed must be >= 0"};
      o.trace_seed = static_cast<std::uint64_t>(seed);
    } else if (a == "--trace-reuse") {
      o.trace_reuse = true;
    } else if (a == "--no-tiering") {
      o.no_tiering = true;
    } else if (a == "--hbm-nmp") {
      o.hbm_nmp = true;
    } else if (a == "--hit-rate") {
      const std::string v = value();
      char* end = nullptr;
      const double h = std::strtod(v.c_str(), &end);
      if (v.empty() || end != v.c_str() + v.size() || !(h >= 0.0 && h <= 1.0)) {
        throw usage_error{"--hit-rate expects a number in [0, 1], got '" + v + "'"};
      }
      o.hit_rate = h;
    } else if (a == "--json") {
      o.json = true;
    } else if (a == "--units") {
      const std::string u = value();
      if (u != "display" && u != "si") throw usage_error{"--units must be display or si, got '" + u + "'"};
      o.units = u == "si" ? strata::json_units::si : strata::json_units::display;
    } else if (a == "--list") {
      o.list = true;
    } else {
      throw usage_error{"unknown argument '" + a + "'"};
    }
  }
  if (o.list) return o;
  if (o.units && !o.json) throw usage_error{"--units applies to --json output; add --json"};
  if (o.hit_rate && !o.trace.empty()) throw usage_error{"--hit-rate and --trace both set the expert usage; give one"};
  if (o.model.empty()) throw usage_error{"--model is required"};
  if (o.machine.empty()) throw usage_error{"--machine is required"};
  if (o.phase.empty()) throw usage_error{"--phase is required"};
  if (!have_batch) throw usage_error{"--batch is required"};
  if (!have_context) throw usage_error{"--context is required"};
  return o;
}

// Preset name comparison: case-insensitive, '-' and '_' equal (h100-sxm5 is h100_sxm5).
bool same_name(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  const auto fold = [](char c) { return c == '_' ? '-' : std::tolower(static_cast<unsigned char>(c)); };
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (fold(a[i]) != fold(b[i])) return false;
  }
  return true;
}

// A command-line value quoted for a message: at most 80 bytes.
std::string quoted(const std::string& s) {
  return "'" + (s.size() > 80 ? s.substr(0, 80) + "..." : s) + "'";
}

bool is_file(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

strata::model load_model(const std::string& arg) {
  for (const auto& n : strata::preset_names()) {
    if (same_name(n, arg)) return strata::preset(n);
  }
  if (is_file(arg)) return strata::load_hf_config(arg);
  std::string list;
  for (const auto& n : strata::preset_names()) list += (list.empty() ? "" : ", ") + n;
  throw strata::config_error("model", "unknown model preset " + quoted(arg) + " and no such file (presets: " + list + ")");
}

// The machine argument: a GPU card (evaluated on n devices) or a ready roofline machine.
struct machine_arg {
  std::optional<strata::gpu_params> gpu;
  strata::roofline_machine machine;
};

machine_arg load_machine(const std::string& arg) {
  machine_arg m;
  for (const auto& n : strata::gpu_preset_names()) {
    if (same_name(n, arg)) {
      m.gpu = strata::gpu_preset(n);
      return m;
    }
  }
  if (!is_file(arg)) {
    throw strata::config_error("machine", "unknown machine preset " + quoted(arg) +
                                              " and no such file (presets: h100_sxm5, rtx_a6000; '-' = '_')");
  }
  std::ifstream in(arg, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) throw strata::config_error("machine", arg + ": cannot read the file");
  // Depth-limited; invalid JSON and numbers beyond a double name the file and the JSON path.
  const strata::json j = strata::parse_json(text.str(), arg);
  try {
    if (j.is_object() && j.contains("tiers")) {
      m.machine = strata::from_json_at<strata::roofline_machine>(j);
      strata::validate(m.machine);
    } else {
      m.gpu = strata::from_json_at<strata::gpu_params>(j);
      strata::validate(*m.gpu);
    }
  } catch (const strata::config_error& e) {
    throw strata::config_error(e.field(), arg + ": " + e.what());
  }
  return m;
}

// Routing counts of a step's tokens from a trace, per MoE layer: prefill the first `tokens`
// tokens; decode one token from each of `tokens` sequences (`batch` receives the selection).
strata::expert_histogram trace_histogram(const std::string& path, const strata::model& m, double tokens,
                                         const options& o, strata::decode_batch* batch) {
  if (m.experts == 0) throw strata::config_error("trace", "--trace given but " + m.name + " has no routed experts");
  const auto t = strata::load_trace_csv(path, {.experts = m.experts});
  if (t.empty()) throw strata::config_error("trace", path + ": no tokens (the trace has a header but no rows)");
  if (t.layers() != m.moe_layers()) {
    throw strata::config_error("trace", path + ": " + std::to_string(t.layers()) + " MoE layers, but " + m.name +
                                            " has " + std::to_string(m.moe_layers()));
  }
  if (t.k() != m.top_k) {
    throw strata::config_error("trace", path + ": top-" + std::to_string(t.k()) + " routing, but " + m.name +
                                            " routes top-" + std::to_string(m.top_k));
  }
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
      throw strata::config_error("trace", path + ": " + e.what());
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

std::string num(double v, const char* fmt = "%.4g") {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

// "25.50 GB", "268.6 MB": decimal prefixes.
std::string bytes_text(double b) {
  const char* u[] = {"B", "kB", "MB", "GB", "TB"};
  int i = 0;
  while (b >= 1000.0 && i < 4) {
    b /= 1000.0;
    ++i;
  }
  return num(b, "%.4g") + " " + u[i];
}

std::string time_text(double s) {
  if (s >= 1.0) return num(s, "%.4g") + " s";
  if (s >= 1e-3) return num(s * 1e3, "%.4g") + " ms";
  return num(s * 1e6, "%.4g") + " us";
}

std::string pad(std::string s, std::size_t w, bool right = false) {
  if (s.size() >= w) return s;
  return right ? std::string(w - s.size(), ' ') + s : s + std::string(w - s.size(), ' ');
}

bool is_stratum(const std::string& machine) {
  for (const auto& n : strata::stratum_system_names()) {
    std::string a;
    for (char c : machine) a += c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (a == n) return true;
  }
  return false;
}

// Decode on the NMP or prefill on the xPU of a Stratum system.
int run_stratum(const options& o, const strata::model& model, const strata::step_shape& shape) {
  auto sys = strata::stratum_system(o.machine);
  sys.tiering = !o.no_tiering;
  if (o.hbm_nmp) sys = strata::with_hbm_nmp(sys);
  const char* phase = shape.mode == strata::phase::decode ? "decode" : "prefill";
  if (shape.mode == strata::phase::prefill) {
    const auto r = strata::evaluate_prefill(sys, model, shape);
    if (o.json) {
      strata::json j = r;
      j["model"] = model.name;
      j["machine"] = sys.name;
      j["phase"] = phase;
      j["batch"] = shape.batch;
      j["context"] = shape.context;
      std::cout << strata::with_units(j, o.units.value_or(strata::json_units::display))
                       .dump(2, ' ', false, strata::json::error_handler_t::replace)
                << "\n";
      return 0;
    }
    std::cout << "strata-eval: " << model.name << " on " << sys.name << " (prefill on the xPU die), batch "
              << shape.batch << ", context " << shape.context << "\n"
              << "  time                 " << time_text(r.time.si()) << "\n"
              << "  energy               " << num(r.energy.si()) << " J\n"
              << "  tokens/s             " << num(r.tokens_per_s) << "\n";
    return 0;
  }
  strata::stratum_usage usage;
  const int moe_layers = model.moe_layers();
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
  const auto r = strata::evaluate_decode(sys, model, shape, usage, /*with_breakdown=*/true);
  if (o.json) {
    strata::json j = r;
    j["model"] = model.name;
    j["machine"] = sys.name;
    j["phase"] = phase;
    j["batch"] = shape.batch;
    j["context"] = shape.context;
    j["routing"] = o.hit_rate ? "hit_rate" : o.trace.empty() ? "uniform" : "trace";
    j["breakdown"] = r.breakdown;
    std::cout << strata::with_units(j, o.units.value_or(strata::json_units::display))
                     .dump(2, ' ', false, strata::json::error_handler_t::replace)
              << "\n";
    return 0;
  }
  const auto& e = r.parts;
  std::cout << "strata-eval: " << model.name << " on " << sys.name << " (" << sys.chips * sys.stages
            << (sys.memory == strata::nmp_memory::hbm ? " HBM3 NMP stacks" : " Mono3D chips")
            << (sys.tiering ? "" : ", no tiering") << "), decode, batch " << shape.batch << ", context "
            << shape.context << ", routing "
            << (o.hit_rate ? "hit rate " + num(*o.hit_rate) : o.trace.empty() ? std::string("uniform") : o.trace)
            << "\n";
  std::cout << "capacity: " << (r.feasible ? "fits" : r.reason) << "\n";
  std::cout << "\ntotals\n"
            << "  time                 " << time_text(r.time.si()) << " (NMP " << time_text(r.nmp_time.si())
            << ", xPU " << time_text(r.xpu_time.si()) << ")\n"
            << "  internal-BW bound    " << time_text(r.bandwidth_bound.si()) << "\n"
            << "  tokens/s             " << num(r.tokens_per_s) << "\n"
            << "  J/token              " << num(r.energy.si() / shape.batch) << "\n"
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

int run(const options& o) {
  if (o.list) {
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
  const strata::model model = load_model(o.model);
  const strata::step_shape shape{.mode = o.phase == "decode" ? strata::phase::decode : strata::phase::prefill,
                                 .batch = o.batch,
                                 .context = o.context};
  strata::validate(shape);
  if (is_stratum(o.machine)) return run_stratum(o, model, shape);
  if (o.no_tiering || o.hbm_nmp || o.hit_rate) {
    throw strata::config_error("machine", "--no-tiering, --hbm-nmp and --hit-rate apply to a Stratum machine "
                                          "(stratum-s, stratum-l, stratum-xl), not to " + o.machine);
  }
  const machine_arg ma = load_machine(o.machine);

  strata::roofline_machine machine = ma.machine;
  std::optional<strata::gpu_fit> fit;
  if (ma.gpu) {
    int n = o.devices.value_or(0);
    if (!o.devices) {
      std::string why;
      n = strata::min_devices(*ma.gpu, model, shape, &why, o.max_devices);
      if (n == 0) {
        throw strata::config_error("devices", model.name + " " + why + " (pass --devices to evaluate anyway)");
      }
    }
    fit = strata::check_fit(*ma.gpu, n, model, shape);
    machine = strata::make_machine(*ma.gpu, n);
    if (!fit->fits) std::cerr << "strata-eval: warning: " << fit->reason << "\n";
  } else if (o.devices) {
    machine.devices = *o.devices;
  }

  const double step_tokens = shape.mode == strata::phase::decode ? double(shape.batch)
                                                                 : double(shape.batch) * double(shape.context);
  std::optional<strata::decode_batch> batch;
  if (!o.trace.empty() && shape.mode == strata::phase::decode) batch.emplace();
  const strata::expert_histogram hist =
      o.trace.empty() ? strata::expert_histogram{}
                      : trace_histogram(o.trace, model, step_tokens, o, batch ? &*batch : nullptr);
  const auto ops = strata::step_operators(model, shape, hist);
  const auto r = strata::evaluate(model, shape, machine, hist, /*with_breakdown=*/true);
  if (batch && !batch->note.empty()) std::cerr << "strata-eval: note: decode batch: " << batch->note << "\n";

  // Per-operator time and energy from the tree (step → io/layers → operators, each including its
  // all-reduce), so that the rows add up to the totals.
  std::vector<const strata::cost<>*> per_op;
  for (const auto& part : r.breakdown.parts) {
    for (const auto& leaf : part.parts) per_op.push_back(&leaf);
  }
  if (per_op.size() != ops.size()) throw std::logic_error("breakdown does not list one node per operator");

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
    j["feasible"] = r.feasible;
    j["capacity"] = r.reason;
    if (batch) {
      j["decode_batch"] = {{"sequences", batch->sequences},
                           {"max_per_sequence", batch->max_per_sequence},
                           {"repeated_tokens", batch->repeated_tokens},
                           {"note", batch->note}};
    }
    j["flops"] = r.flops.si();
    j["bytes"] = {{"weights", r.weight_bytes.si()},
                  {"kv", r.kv_bytes.si()},
                  {"activations", r.activation_bytes.si()},
                  {"links", r.link_bytes.si()}};
    j["time_s"] = r.time.si();
    j["energy_J"] = r.energy.si();
    j["dynamic_energy_J"] = r.dynamic_energy.si();
    j["power_capped"] = r.power_capped;
    j["tokens"] = r.tokens;
    j["tokens_per_s"] = r.tokens_per_s;
    j["joules_per_token"] = r.joules_per_token;
    strata::json jops = strata::json::array();
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const auto& op = ops[i];
      jops.push_back({{"name", strata::op_name(op)},
                      {"kind", strata::to_string(op.kind)},
                      {"layer", op.layer},
                      {"expert", op.expert},
                      {"flops", op.flops.si()},
                      {"bytes", op.bytes().si()},
                      {"time_s", per_op[i]->time.si()},
                      {"energy_J", per_op[i]->energy.si()},
                      {"bound", strata::cost_of(op, machine).compute_bound ? "compute" : "memory"}});
    }
    j["ops"] = std::move(jops);
    j["breakdown"] = r.breakdown;
    // Names come from files and the command line: invalid UTF-8 is replaced (U+FFFD), not fatal.
    std::cout << strata::with_units(j, o.units.value_or(strata::json_units::display))
                     .dump(2, ' ', false, strata::json::error_handler_t::replace)
              << "\n";
    return 0;
  }

  std::cout << "strata-eval: " << model.name << " on " << machine.name << " (" << machine.devices
            << (machine.devices > 1 ? " devices in tensor parallel)" : " device)") << ", " << phase << ", batch "
            << shape.batch
            << ", context " << shape.context << ", routing " << (o.trace.empty() ? "uniform" : o.trace) << "\n";
  if (fit) std::cout << "memory: " << fit->reason << "\n";
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
            << "  J/token              " << num(r.joules_per_token) << "\n";
  std::cout << "\nper operator (time and energy include the operator's all-reduce)\n";
  std::cout << pad("op", 22) << pad("kind", 16) << pad("GFLOP", 12, true) << pad("MB", 12, true)
            << pad("time (us)", 12, true) << pad("energy (mJ)", 13, true) << "  bound\n";
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const auto& op = ops[i];
    std::cout << pad(strata::op_name(op), 22) << pad(strata::to_string(op.kind), 16)
              << pad(num(op.flops.si() / 1e9, "%.4f"), 12, true) << pad(num(op.bytes().si() / 1e6, "%.3f"), 12, true)
              << pad(num(per_op[i]->time.si() * 1e6, "%.3f"), 12, true)
              << pad(num(per_op[i]->energy.si() * 1e3, "%.4f"), 13, true) << "  "
              << (strata::cost_of(op, machine).compute_bound ? "compute" : "memory") << "\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 1) {
    std::cout << usage_text;
    return 0;
  }
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::cout << usage_text;
      return 0;
    }
  }
  options o;
  try {
    o = parse(argc, argv);
  } catch (const usage_error& e) {
    std::cerr << "strata-eval: " << e.what << "\n" << usage_text;
    return 2;
  }
  int rc = 0;
  try {
    rc = run(o);
  } catch (const std::bad_alloc&) {  // also std::length_error below: a size beyond any allocation
    std::cerr << "strata-eval: out of memory (an input asks for more than this machine has; see the limits in "
                 "strata/core/limits.hpp)\n";
    return 1;
  } catch (const std::length_error&) {
    std::cerr << "strata-eval: out of memory (an input asks for more than can be allocated; see the limits in "
                 "strata/core/limits.hpp)\n";
    return 1;
  } catch (const strata::config_error& e) {
    std::cerr << "strata-eval: " << e.what() << "\n";
    return 1;
  } catch (const strata::solver_error& e) {
    std::cerr << "strata-eval: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "strata-eval: internal error: " << e.what() << "\n";
    return 1;
  }
  // A full disk or a closed pipe shows only when the buffered output is written.
  std::cout.flush();
  if (!std::cout) {
    std::cerr << "strata-eval: cannot write the output (standard output: disk full or closed?)\n";
    return 1;
  }
  return rc;
}
