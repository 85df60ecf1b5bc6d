// SPDX-License-Identifier: MIT
// Fuzz target: a machine file (strata/baseline/machine_json.hpp), the reader of `strata-eval eval
// --machine FILE` and of a serving scenario's `gpu.name` / `machines[i].name`. The input is read by
// parse_machine_json; a roofline_machine runs a Mixtral decode step, a gpu_params card serves a
// small OLMoE load through the scenario path of a machine file (run_scenario with the loaded
// machine), whose numbers must be finite and non-negative. The load is 8 requests of 128 + 16
// tokens, so one input's work is bounded whatever the card (a card the model does not fit is an
// infeasible result).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz_support.hpp"
#include "strata/baseline/machine_json.hpp"
#include "strata/core/result_check.hpp"
#include "strata/serving/serving_json.hpp"
#include "strata/workload/operators.hpp"
#include "strata/workload/presets.hpp"
#include "strata/workload/roofline.hpp"

STRATA_FUZZ_TARGET(fuzz_machine_json) {
  strata_fuzz::run([&] {
    const strata::loaded_machine m = strata::parse_machine_json(strata_fuzz::as_text(data, size), "fuzz.json");
    if (!m.gpu) {
      static const strata::model mixtral = strata::presets::mixtral_8x7b();
      const strata::step_shape shape{.mode = strata::phase::decode, .batch = 4, .context = 256};
      const auto r = strata::evaluate(strata::step_operators(mixtral, shape), shape, mixtral.hidden, m.machine);
      strata_fuzz::require_finite(r.time.si(), "step time");
      strata_fuzz::require_finite(r.energy.si(), "step energy");
      return;
    }
    strata::serving_scenario s;
    s.system = "none";
    s.model = "OLMoE-1B-7B-0924";
    s.requests.count = 8;
    s.requests.rate = 4.0;
    s.requests.prompt.kind = strata::length_kind::fixed;
    s.requests.prompt.value = 128;
    s.requests.output.kind = strata::length_kind::fixed;
    s.requests.output.value = 16;
    s.gpu.name = "fuzz.json";
    s.gpu.gpus = 1;
    const std::vector<strata::loaded_machine> machines{m};
    strata::serving_inputs in;
    in.machines = &machines;
    const auto r = strata::run_scenario(s, in);
    strata_fuzz::require_finite_json(strata::json(r), "serving result");
    if (r.gpu.feasible) strata::detail::check_result_numbers(r.gpu, "serving_result");
  });
  return 0;
}
