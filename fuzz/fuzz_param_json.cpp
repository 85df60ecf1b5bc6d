// SPDX-License-Identifier: MIT
// Fuzz target: parameter JSON with units. The input is parsed with strata::parse_json and read as
// each of gpu_params, roofline_machine, mono3d_params, expert_placement_params and
// stratum_system_params; what validates is evaluated (a Mixtral decode step on the machine and on
// the Stratum system; the Mono3D device; Algorithm 1 with a hit-rate table, whose intervals must
// not overlap and must stay in [0, phi)) and must give finite numbers.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz_support.hpp"
#include "strata/baseline/gpu.hpp"
#include "strata/core/json.hpp"
#include "strata/core/json_plain.hpp"
#include "strata/device/mono3d.hpp"
#include "strata/stratum/placement.hpp"
#include "strata/stratum/system.hpp"
#include "strata/stratum/usage.hpp"
#include "strata/workload/operators.hpp"
#include "strata/workload/presets.hpp"
#include "strata/workload/roofline.hpp"

namespace {

void check_machine(const strata::roofline_machine& m) {
  static const strata::model mixtral = strata::presets::mixtral_8x7b();
  const strata::step_shape shape{.mode = strata::phase::decode, .batch = 4, .context = 256};
  const auto ops = strata::step_operators(mixtral, shape);
  const auto r = strata::evaluate(ops, shape, mixtral.hidden, m);
  strata_fuzz::require_finite(r.time.si(), "step time");
  strata_fuzz::require_finite(r.energy.si(), "step energy");
  strata_fuzz::require_finite(r.tokens_per_s, "tokens/s");
  strata_fuzz::require_finite(r.joules_per_token, "J/token");
}

}  // namespace

STRATA_FUZZ_TARGET(fuzz_param_json) {
  strata::json j;
  if (strata_fuzz::run([&] { j = strata::parse_json(strata_fuzz::as_text(data, size), "fuzz.json"); }) != 0 ||
      j.is_discarded()) {
    return 0;
  }
  strata_fuzz::run([&] {
    const auto g = strata::from_json_at<strata::gpu_params>(j);
    strata::validate(g);
    check_machine(strata::make_machine(g, 2));
  });
  strata_fuzz::run([&] {
    const auto m = strata::from_json_at<strata::roofline_machine>(j);
    strata::validate(m);
    check_machine(m);
  });
  strata_fuzz::run([&] {
    const auto p = strata::from_json_at<strata::mono3d_params<>>(j);
    strata::validate(p);
    const auto r = strata::evaluate(p);
    strata_fuzz::require_finite_json(strata::json(r), "mono3d result");
    strata_fuzz::require_finite_json(strata::plain_numbers(strata::json(r)), "mono3d result, SI numbers");
  });
  // A Stratum system from JSON (chip, xPU, NMP and mapping knobs): a Mixtral decode step on it is
  // finite, or the parameters are refused.
  strata_fuzz::run([&] {
    const auto p = strata::from_json_at<strata::stratum_system_params<>>(j);
    static const strata::model mixtral = strata::presets::mixtral_8x7b();
    const auto r = strata::evaluate_decode(p, mixtral, {.mode = strata::phase::decode, .batch = 4, .context = 256});
    strata_fuzz::require_finite(r.time.si(), "stratum step time");
    strata_fuzz::require_finite(r.energy.si(), "stratum step energy");
    strata_fuzz::require_finite(r.tokens_per_s, "stratum tokens/s");
  });
  strata_fuzz::run([&] {
    const auto p = strata::from_json_at<strata::expert_placement_params<>>(j);
    strata::validate(p);
    const double h = 0.5 * (1.0 + static_cast<double>(p.active) / p.experts);  // in [A/E, 1]
    const auto a = strata::place_experts(p, strata::usage_from_hit_rate(p.layers, p.experts, p.active, h));
    if (!a.feasible) return;
    std::vector<strata::row_interval> iv = a.intervals;
    std::sort(iv.begin(), iv.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    for (std::size_t i = 0; i < iv.size(); ++i) {
      if (iv[i].first < 0 || iv[i].last >= a.phi || iv[i].rows() != a.delta) {
        strata_fuzz::finding("placement interval outside [0, phi)", static_cast<double>(iv[i].first));
      }
      if (i > 0 && iv[i].first <= iv[i - 1].last) {
        strata_fuzz::finding("placement intervals overlap", static_cast<double>(iv[i].first));
      }
    }
  });
  // json_plain on outside JSON: every quantity string becomes a finite number, or a config_error.
  // Only numbers are checked: other strings (names such as "infhbm") pass through unchanged.
  strata_fuzz::run([&] {
    const strata::json out = strata::plain_numbers(j);
    std::vector<const strata::json*> stack{&out};
    while (!stack.empty()) {
      const strata::json* e = stack.back();
      stack.pop_back();
      if (e->is_structured()) {
        for (const auto& c : *e) stack.push_back(&c);
      } else if (e->is_number_float()) {
        strata_fuzz::require_finite(e->get<double>(), "plain numbers");
      }
    }
  });
  return 0;
}
