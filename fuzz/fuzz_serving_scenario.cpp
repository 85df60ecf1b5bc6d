// SPDX-License-Identifier: MIT
// Fuzz target: a serving scenario (strata/serving/serving_json.hpp). The input is read
// with read_serving_scenario and run on the bundled Mixtral/OLMoE count table (or, when it names a
// trace, on the first sequences of the DeepSeek-V2-Lite ESFT trace); every number of the results
// must be finite, non-negative (`check_result_numbers`) and the shares must lie in [0, 1]. The serving limits are lowered so that one
// input stays well inside the 10 s timeout: the loop takes at most 2·requests + Σ output passes
// (simulator.hpp), so requests and tokens bound the work; a run coupled to the stack's temperature
// (`thermal`) takes at most 2^12 windows of its transient; an HCRMap package (`hcrmap`, served on
// the same trace sequences) at most 2^22 expert routes and controller candidates
// (`hcrmap_limits().routes`, hcrmap_engine.hpp).
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.hpp"
#include "strata/core/result_check.hpp"
#include "strata/serving/serving_json.hpp"
#include "strata/workload/trace_io.hpp"

namespace {

const strata::expert_count_table& counts() {
  static const auto c =
      strata::load_expert_counts_csv(std::string(STRATA_FUZZ_DATA_DIR) + "/traces/olmoe_mixtral_expert_counts_by_domain.csv");
  return c;
}

const strata::routing_trace& trace() {
  static const auto t = [] {
    const std::string text = strata::detail::csv::read_file(std::string(STRATA_FUZZ_DATA_DIR) + "/traces/dsv2lite_esft_trace_intent.csv",
                                                            "trace", strata::detail::csv::csv_file::trace);
    std::size_t end = 0;
    for (int lines = 0; lines < 400 && end != std::string::npos; ++lines) end = text.find('\n', end + 1);
    return strata::parse_trace_csv(text.substr(0, end), {.experts = 64, .k = 0, .label = "intent"}, "esft.csv");
  }();
  return t;
}

void check_result(const strata::serving_result& r) {
  if (!r.feasible) return;
  for (double x : {r.ttft_attainment, r.slo_attainment, r.hot_hit_rate, r.mix_hit_rate, r.label_accuracy, r.swap_share,
                   r.classifier_share}) {
    if (!(x >= 0.0 && x <= 1.0 + 1e-12)) strata_fuzz::finding("a share outside [0, 1]", x);
  }
  // Every number finite and non-negative (the library's own last check, run again here so that a
  // path that forgot it is still caught): an internal_error aborts as a finding.
  strata::detail::check_result_numbers(r, "serving_result");
}

}  // namespace

STRATA_FUZZ_TARGET(fuzz_serving_scenario) {
  static const bool limited = [] {
    auto& l = strata::serving_limits();
    l.requests = 256;
    l.tokens = 4096;
    l.total_tokens = std::int64_t{1} << 17;
    l.batch = 256;
    strata::serving_thermal_limits().windows = std::int64_t{1} << 12;  // a coupled run (thermal.enabled)
    strata::hcrmap_limits().routes = std::int64_t{1} << 22;  // an HCRMap package (hcrmap.enabled)
    return true;
  }();
  (void)limited;
  (void)counts();
  (void)trace();
  strata_fuzz::run([&] {
    const auto s = strata::read_serving_scenario(strata_fuzz::as_text(data, size), "fuzz.json");
    strata::serving_inputs in{&counts(), &trace()};
    in.hcrmap_trace = &trace();
    const auto r = strata::run_scenario(s, in);
    strata_fuzz::require_finite_json(strata::json(r), "serving result");
    check_result(r.stratum);
    if (r.has_gpu) check_result(r.gpu);
    if (r.has_hcrmap) check_result(r.hcrmap);
  });
  return 0;
}
