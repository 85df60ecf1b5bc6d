// Offline training of HCRMap's controller value function (the masked Double DQN, HCRMap §6.4,
// Eq. 34) on the policy comparison's simulator, on the profile split of each trace only (the
// sequences at even positions; every reported number is measured on the odd ones).
//
//   strata-train-hcrmap-dqn                      usage, then a seconds-long smoke run (no file)
//   strata-train-hcrmap-dqn --out <file.json>    the full run: the eight Table 2 models in prefill
//                                                and decode, written as a checkpoint; each model and
//                                                mode twice: the profile split of its trace, and a
//                                                synthetic task-switch trace of the drift fitted to
//                                                the ESFT task switches (workload/task_drift.hpp)
//                                                served in file order, so the agent meets drift on
//                                                mixes that are never the real intent → law →
//                                                translation mix a task-switch result is measured on
//   [--data-dir <dir>]  where traces/dsv2lite_esft_trace_intent.csv is (default: $STRATA_DATA_DIR,
//                       else the source tree's tests/data)
//   [--episodes <n>] [--seed <s>]                 override the run's length and seed
//
// The repository's checkpoint, tests/data/hcrmap/dqn_checkpoint.json, is regenerated with
//   build/examples/strata-train-hcrmap-dqn --out tests/data/hcrmap/dqn_checkpoint.json
// and the same seed gives the same file. The checkpoint is written to a temporary file beside
// --out and renamed over it at the end (strata::output_file), so a run that fails leaves an
// existing checkpoint as it was; an --out that names the trace read is refused before training.
#include <charconv>   // std::from_chars
#include <chrono>     // std::chrono
#include <exception>  // std::exception
#include <filesystem>  // std::filesystem::exists, the trace probe
#include <iostream>   // std::cout, std::cerr
#include <limits>     // std::numeric_limits
#include <new>        // std::bad_alloc
#include <optional>   // std::optional
#include <sstream>    // std::ostringstream
#include <string>     // std::string
#include <system_error>  // std::errc
#include <vector>     // std::vector

#include "data_location.hpp"
#include "strata/core/files.hpp"
#include "strata/core/out_of_memory.hpp"
#include "strata/hcrmap/controller_training.hpp"
#include "strata/hcrmap/dqn_json.hpp"
#include "strata/report/hcrmap_rows.hpp"
#include "strata/workload/presets.hpp"
#include "strata/workload/task_drift.hpp"

namespace {
constexpr const char* usage =
    "usage: strata-train-hcrmap-dqn [--out <checkpoint.json>] [--data-dir <dir>] [--episodes <n>] [--seed <s>]\n"
    "Trains HCRMap's controller value function (masked Double DQN, Eq. 34) offline on the profile split\n"
    "(even sequences) of the Table 2 models' traces and on synthetic task-switch traces of the fitted\n"
    "drift served in file order, prefill and decode, with the same-window\n"
    "counterfactual reward (Eq. 31-33), and writes the frozen checkpoint to --out. Without --out it runs\n"
    "a short smoke training (one model, decode) and writes nothing.\n"
    "Exit status: 0 ok, 2 bad command line, 1 data or model error.\n";

// A non-negative decimal integer as strata-eval reads one (strata-eval/cli.hpp): digits without a
// leading zero; no sign, spaces or base prefix ("010", "0x10", "+5", "-0", " 5" are refused).
bool parse_int(const std::string& s, long long& v) {
  if (s.empty() || (s.front() == '0' && s.size() > 1)) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc{} && end == s.data() + s.size() && s.front() != '-';
}
}  // namespace

int main(int argc, char** argv) {
  strata::guard_out_of_memory("strata-train-hcrmap-dqn");  // out of memory: exit 1 with a message, never an abort
  std::optional<std::string> out, data_dir;
  std::optional<long long> episodes, seed;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&](const char* name) -> std::optional<std::string> {
      if (i + 1 >= argc) {
        std::cerr << "strata-train-hcrmap-dqn: " << name << " needs a value\n";
        return std::nullopt;
      }
      return std::string(argv[++i]);
    };
    if (a == "--help" || a == "-h") {
      std::cout << usage;
      return 0;
    }
    if (a == "--out" || a == "--data-dir" || a == "--episodes" || a == "--seed") {
      const auto v = value(a.c_str());
      if (!v) return 2;
      if (a == "--out") out = *v;
      if (a == "--data-dir") data_dir = *v;
      if (a == "--episodes" || a == "--seed") {
        long long n = 0;
        if (!parse_int(*v, n) || n < 0) {
          std::cerr << "strata-train-hcrmap-dqn: " << a << " expects a non-negative integer, got '" << *v << "'\n";
          return 2;
        }
        // A value out of range is a bad command line too (exit 2, docs/cli.md, Exit status).
        if (a == "--episodes" && n > std::numeric_limits<int>::max()) {
          std::cerr << "strata-train-hcrmap-dqn: --episodes must be in [0, " << std::numeric_limits<int>::max()
                    << "], got " << *v << "\n";
          return 2;
        }
        (a == "--episodes" ? episodes : seed) = n;
      }
      continue;
    }
    std::cerr << "strata-train-hcrmap-dqn: unknown argument '" << a << "' (try --help)\n";
    return 2;
  }
  try {
    const strata::substrate s;
    strata::controller_training_params p;
    std::vector<strata::training_scene> scenes;
    // The checkpoint's temporary file, made before anything is read or trained (a bad --out fails
    // first) and renamed over --out only after training succeeds.
    std::optional<strata::output_file> file;
    if (!out) {
      // Smoke run: a few episodes on one small model, so the program is checked end to end.
      std::cout << usage << "\nsmoke run (no --out): DeepSeek-V2-Lite decode, 4 episodes of 2 windows\n";
      const auto m = strata::preset("DeepSeek-V2-Lite");
      scenes.push_back({m, strata::hcrmap_trace(m), strata::phase::decode});
      p.episodes = 4;
      p.windows = 2;
      p.experiment.max_layers = 2;
      p.dqn.learning_starts = 4;
    } else {
      const auto data = strata_programs::find_data(data_dir.value_or(""));
      const std::string& dir = data.dir;
      std::optional<std::string> trace;
      const std::string path = dir + "/traces/dsv2lite_esft_trace_intent.csv";
      std::error_code ec;  // a probe that opens nothing; the trace reader refuses what is not a regular file
      if (!dir.empty() && std::filesystem::exists(path, ec)) trace = path;
      if (!trace) {
        std::cerr << "strata-train-hcrmap-dqn: warning: no DeepSeek-V2-Lite trace (traces/dsv2lite_esft_trace_intent.csv) in the "
                  << strata_programs::data_hint(data) << "; using the fitted synthetic trace\n";
      }
      strata::refuse_input(*out, "out", {path});
      file.emplace(*out, "out");
      for (const auto& name : strata::hcrmap_models()) {
        const auto m = strata::preset(name);
        const auto t = strata::hcrmap_trace(m, trace);
        scenes.push_back({m, t, strata::phase::prefill});
        // The real trace's 127 sequences fill a decode window of 512 only by reusing them (stated).
        scenes.push_back({m, t, strata::phase::decode, m.name == "DeepSeek-V2-Lite" && trace.has_value()});
      }
      // Task-switch scenes: the ESFT drift with each model's routing shape (its own seed), never a
      // real trace. Prefill: 6 tasks over 3 072 sequences of 8-16 tokens, a switch about every
      // third window of 2048 tokens; decode: 8 tasks over 4 096 sequences, with 512 slots a
      // switch about every eighth step. Both hold the warm-up and p.windows training windows.
      for (const auto& name : strata::hcrmap_models()) {
        const auto m = strata::preset(name);
        scenes.push_back({m, strata::generate_trace(strata::task_switch_gen_for(m, 6, 3072, 8, 16, 2)), strata::phase::prefill,
                          false, true});
        scenes.push_back({m, strata::generate_trace(strata::task_switch_gen_for(m, 8, 4096, 8, 16, 3)), strata::phase::decode,
                          false, true});
      }
    }
    if (episodes) p.episodes = static_cast<int>(*episodes);
    if (seed) p.dqn.seed = static_cast<std::uint64_t>(*seed);
    const auto t0 = std::chrono::steady_clock::now();
    strata::dqn_train_result log;
    const auto agent = strata::train_controller(s, scenes, p, &log);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    double last = 0.0;
    const std::size_t tail = std::min<std::size_t>(log.returns.size(), 16);
    for (std::size_t i = log.returns.size() - tail; i < log.returns.size(); ++i) last += log.returns[i] / double(tail);
    std::ostringstream line;  // 4 significant digits (docs/cli.md, Output conventions)
    line.precision(4);
    line << "episodes " << log.episodes << ", decisions " << log.steps << ", updates " << log.updates
         << ", last loss " << log.last_loss << ", mean return of the last " << tail << " episodes " << last << ", "
         << secs << " s\n";
    std::cout << line.str();
    if (file) {
      file->stream() << strata::save_dqn_checkpoint(agent) << "\n";
      file->commit();
      std::cout << "checkpoint written to " << *out << "\n";
    }
  } catch (const std::bad_alloc&) {
    strata::report_out_of_memory("strata-train-hcrmap-dqn");
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "strata-train-hcrmap-dqn: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
