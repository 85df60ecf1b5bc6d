// strata-eval hcrmap: a routing trace replayed through the HCRMap comparison's policies on the
// chiplet package (strata/hcrmap/trace_replay.hpp).
//
//   strata-eval hcrmap --model <preset|config.json> (--trace <trace.csv>... | --drift-tasks <n>) --mode prefill|decode
//                      [--policy all|static|fixed|hydra|moentwine|pimoe|hcrmap|<ablation>] [--json [--units display|si]]
//                      [--checkpoint <dqn.json>] [--layers <n>] [--max-windows <n>]
//                      [--batch <B>] [--context <tokens>] [--trace-reuse] [--order split|file]
//
// The trace is any CSV in the seq,pos,L1..LN format (strata/workload/trace_io.hpp) with the
// model's MoE layers and experts; several --trace files are served one after the other (their
// sequences renumbered, each labelled by the last '_'-separated word of its file name, e.g.
// "law"). With --order split (the default), even-position sequences build the layouts,
// odd-position ones are served (the comparison's split). With --order file, windows are served in
// file order (strata/hcrmap/task_switch.hpp): the first window builds the layouts and every later
// one is served (all of them unless --max-windows), a decode window being one step of --batch
// sequences decoded side by side (continuous batching); per policy the output gives the edits
// applied while serving by kind and T_E2E per window (JSON). A decode window takes one token from each of --batch
// (512) distinct sequences of a split, each with --context (2048) KV tokens; a split with fewer
// sequences is refused unless --trace-reuse, which reuses sequences and says so in the output. HCRMap decides with the masked Double DQN checkpoint
// (--checkpoint; default hcrmap/dqn_checkpoint.json under $STRATA_DATA_DIR or the source tree's
// tests/data), else with the greedy one-step rule; the output names which.
// --drift-tasks n serves, instead of a trace file, a synthetic task-switch trace of the drift fitted to
// DeepSeek-V2-Lite's ESFT task switches (strata/workload/task_drift.hpp) with the model's routing
// shape: n tasks in blocks of --drift-sequences / n sequences (default 512 per task) of 8-16 tokens,
// seed --drift-seed (1), in file order unless --order says otherwise.
// Exit status: 0 on success, 1 on an input that cannot be loaded or replayed, 2 on a bad command line.

#include <iostream>  // std::cout, std::cerr
#include <memory>    // std::make_shared
#include <string>    // std::string
#include <vector>    // std::vector

#include "cli.hpp"
#include "data_location.hpp"
#include "strata/hcrmap/hcrmap_run.hpp"
#include "strata/hcrmap/trace_replay.hpp"
#include "strata/hcrmap/trace_replay_json.hpp"

namespace strata_eval {

command add_hcrmap(CLI::App& app) {
  struct options {
    std::string model, mode, policy = "all", checkpoint, order = "split", data_dir, units = "display";
    std::vector<std::string> traces;
    bool json = false, trace_reuse = false;
    int layers = strata::experiment_params::all_layers, max_windows = 32, batch = 512, context = 2048;
    int drift_tasks = 0, drift_sequences = 0;
    long long drift_seed = 1;
  };
  auto o = std::make_shared<options>();
  CLI::App* sub = app.add_subcommand("hcrmap", "a routing trace replayed through HCRMap and the policies it is compared "
                                               "with (latency, energy, EDP, stages, streaming bytes)");
  sub->add_option("--model", o->model, "model preset or Hugging Face config.json")->required();
  auto* trace = sub->add_option("--trace", o->traces, "routing trace CSV (seq,pos,L1..LN); several are served one after the other");
  auto* drift = sub->add_option("--drift-tasks", o->drift_tasks,
                                "instead of --trace: a synthetic task-switch trace of the fitted ESFT drift with this many tasks")
                    ->check(CLI::Range(2, 64))
                    ->excludes(trace);
  sub->add_option("--drift-sequences", o->drift_sequences, "--drift-tasks: sequences in all (default 512 per task)")
      ->check(CLI::Range(1, 1 << 20))
      ->needs(drift);
  sub->add_option("--drift-seed", o->drift_seed, "--drift-tasks: the generator's seed (default 1)")
      ->check(CLI::Range(0LL, (1LL << 62)))
      ->needs(drift);
  sub->add_option("--mode", o->mode, "prefill (windows of 2048 tokens) or decode (steps of --batch sequences)")
      ->required()
      ->check(CLI::IsMember({"prefill", "decode"}));
  std::vector<std::string> names{"all"};
  for (const auto& [k, n] : strata::enum_names(strata::policy_kind{})) names.emplace_back(n);
  sub->add_option("--policy", o->policy, "one policy, or all six compared ones")->check(CLI::IsMember(names))->default_str("all");
  auto* json = sub->add_flag("--json", o->json, "print the results as JSON");
  add_units_option(*sub, o->units, json);
  sub->add_option("--checkpoint", o->checkpoint, "HCRMap's value function: a masked Double DQN checkpoint (JSON; default: "
                                                "hcrmap/dqn_checkpoint.json in the data directory)");
  sub->add_option("--data-dir", o->data_dir, "the data directory of the default checkpoint and of relative --trace paths not "
                                            "in the working directory (default: STRATA_DATA_DIR, else the installed share/strata)");
  sub->add_option("--layers", o->layers, "MoE layers evaluated (default: all; fewer are evenly spaced and the routed time is scaled)")
      ->check(CLI::Range(1, strata::experiment_params::all_layers))
      ->default_str("all");
  sub->add_option("--max-windows", o->max_windows, "windows served at most")->check(CLI::Range(1, 1024))->default_str("32");
  sub->add_option("--batch", o->batch, "decode: concurrent sequences per window, one token each (default: Table 2's 512, at most the distinct sequences a window of the trace holds)")
      ->check(CLI::Range(1, 1 << 16))
      ->default_str("512");
  sub->add_option("--context", o->context, "decode: KV context per sequence (tokens)")
      ->check(CLI::Range(1, 1 << 24))
      ->default_str("2048");
  sub->add_option("--order", o->order,
                  "split: even sequences build the layouts, odd ones are served; file: windows in file order, the first "
                  "builds the layouts (task switches)")
      ->check(CLI::IsMember({"split", "file"}))
      ->default_str("split");
  sub->add_flag("--trace-reuse", o->trace_reuse,
                "decode: allow a window from fewer distinct sequences than --batch (stated in the output), else refused");
  return {sub, [o, sub, trace, drift]() -> int {
            if (trace->count() == 0 && drift->count() == 0) throw usage_error{"--trace or --drift-tasks is required"};
            // The value function's options are refused (exit 2) when no policy asked for decides with it.
            // HCRMap and its ablations decide with the value function, but the greedy-rule ablation
            // and the frozen layout do not.
            const bool uses_value = strata::hcrmap_uses_value(o->policy);
            if (!uses_value && sub->count("--checkpoint") > 0) {
              throw usage_error{"--checkpoint applies to a policy that decides with HCRMap's value function (hcrmap and its "
                                "ablations but hcrmap_greedy and hcrmap_frozen), not to --policy " + o->policy};
            }
            // --data-dir locates the default checkpoint and relative trace files: with neither it does nothing.
            if (sub->count("--data-dir") > 0 && trace->count() == 0 && (!uses_value || sub->count("--checkpoint") > 0)) {
              throw usage_error{std::string("--data-dir locates relative --trace files and the default checkpoint; ") +
                                (uses_value ? "with --checkpoint and --drift-tasks" : "with --drift-tasks and --policy " + o->policy) +
                                " it has nothing to locate"};
            }
            // Decode's options are refused in prefill (exit 2), not ignored.
            if (o->mode == "prefill") {
              for (const char* opt : {"--batch", "--context", "--trace-reuse"}) {
                if (sub->count(opt) > 0) {
                  throw usage_error{std::string(opt) + " applies to --mode decode; a prefill window is 2048 tokens of the "
                                                       "trace's sequences"};
                }
              }
            }
            const auto m = load_model(o->model);
            // The run itself is the library's (strata/hcrmap/hcrmap_run.hpp), which Python's strata.hcrmap shares.
            const auto data = strata_programs::find_data(o->data_dir);
            strata::hcrmap_request req;
            req.mode = o->mode;
            req.policy = o->policy;
            req.traces = o->traces;
            if (drift->count() > 0) {
              req.drift_tasks = o->drift_tasks;
              if (o->drift_sequences > 0) req.drift_sequences = o->drift_sequences;
              req.drift_seed = o->drift_seed;
            }
            req.checkpoint = o->checkpoint;
            if (sub->count("--order") > 0) req.order = o->order;
            req.layers = o->layers;
            if (sub->count("--max-windows") > 0) req.max_windows = o->max_windows;
            if (sub->count("--batch") > 0) req.batch = o->batch;
            if (sub->count("--context") > 0) req.context = o->context;
            req.trace_reuse = o->trace_reuse;
            req.data_dir = data.dir;
            req.data_hint = strata_programs::data_hint(data);
            const auto r = strata::run_hcrmap(m, req, [](const std::string& w) { std::cerr << "strata-eval hcrmap: " << w << "\n"; });
            if (o->json) {
              print_json(strata::replay_json(r), units_of(o->units));
            } else {
              strata::print_replay(std::cout, r);
            }
            return 0;
          }};
}

}  // namespace strata_eval
