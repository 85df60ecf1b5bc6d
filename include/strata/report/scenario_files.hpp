// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The files a scenario (`report/scenario.hpp`) names, loaded: an HCRMap study's routing trace
/// (`workload/trace_io.hpp`) and its masked Double DQN checkpoint (`hcrmap/dqn_json.hpp`, which
/// brings in Eigen: kept out of the scenario reader for that reason).

#include <string>  // std::string

#include "strata/core/data_dir.hpp"
#include "strata/core/error.hpp"
#include "strata/core/files.hpp"
#include "strata/core/limits.hpp"
#include "strata/hcrmap/dqn_json.hpp"
#include "strata/hcrmap/dqn_scorer.hpp"
#include "strata/report/scenario.hpp"
#include "strata/workload/presets.hpp"
#include "strata/workload/trace_io.hpp"

namespace strata {
inline namespace v0 {

/// Loads the files scenario `s` names (`hcrmap.trace`, with the model's experts, and
/// `hcrmap.checkpoint` as HCRMap's value function); a relative path is looked for beside the
/// scenario file (`scenario_dir`, when given) first, then in the data directory `base_dir` (empty:
/// the working directory), as `resolve_input_path` says; throws `config_error` naming `hcrmap.trace` or `hcrmap.checkpoint` with
/// the reader's reason. Both are opened under the opening rule (`core/files.hpp`): regular files
/// within `limits().trace_file_bytes` and `limits().checkpoint_file_bytes`.
inline scenario_inputs load_scenario_inputs(const scenario& s, const std::string& base_dir = {},
                                            const std::string& scenario_dir = {}) {
  // A relative path: beside the scenario file when a file is there, else in the data directory
  // (`resolve_input_path`); without a scenario directory, in the data directory.
  const auto resolve = [&](const std::string& p) {
    return scenario_dir.empty() ? detail::csv::relative_to(base_dir, p) : resolve_input_path(p, scenario_dir, base_dir);
  };
  scenario_inputs in;
  const auto wrap = [&](const char* field, const std::string& path, auto load) {
    try {
      load();
    } catch (const config_error& e) {
      throw config_error(field, std::string("[strata.scenario] ") + field + " " + path + ": " + e.what());
    }
  };
  if (!s.hcrmap.trace.empty()) {
    const int experts = preset(s.model).experts;
    wrap("hcrmap.trace", s.hcrmap.trace,
         [&] { in.trace = load_trace_csv(resolve(s.hcrmap.trace), {.experts = experts}); });
  }
  if (!s.hcrmap.checkpoint.empty()) {
    wrap("hcrmap.checkpoint", s.hcrmap.checkpoint, [&] {
      const std::string text = read_input_file(resolve(s.hcrmap.checkpoint), "checkpoint",
                                               limits().checkpoint_file_bytes, "checkpoint_file_bytes");
      in.value.name = "masked Double DQN " + s.hcrmap.checkpoint;
      in.value.score = dqn_scorer(parse_dqn_checkpoint(text, s.hcrmap.checkpoint));
    });
  }
  return in;
}

}  // namespace v0
}  // namespace strata
