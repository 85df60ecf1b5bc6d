// SPDX-License-Identifier: MIT
// Fuzz target: a Hugging Face config.json. A model that reads must give finite sizes and a finite
// decode step on two H100s.
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "strata/baseline/gpu.hpp"
#include "strata/workload/hf_config.hpp"
#include "strata/workload/operators.hpp"
#include "strata/workload/roofline.hpp"

STRATA_FUZZ_TARGET(fuzz_hf_config) {
  return strata_fuzz::run([&] {
    const strata::json j = strata::parse_json(strata_fuzz::as_text(data, size), "config.json");
    const strata::model m = strata::read_hf_config(j);
    const auto n = strata::count_params(m);
    if (n.total < n.active || n.active <= 0) strata_fuzz::finding("parameter counts", double(n.total));
    strata_fuzz::require_finite(strata::kv_bytes_per_token_layer(m).si(), "kv bytes");
    strata_fuzz::require_finite(strata::expert_bytes(m).si(), "expert bytes");
    const strata::step_shape shape{.mode = strata::phase::decode, .batch = 8, .context = 1024};
    const auto ops = strata::step_operators(m, shape);
    const auto r = strata::evaluate(ops, shape, m.hidden, strata::make_machine(strata::h100_sxm5(), 2));
    strata_fuzz::require_finite(r.time.si(), "step time");
    strata_fuzz::require_finite(r.energy.si(), "step energy");
    strata_fuzz::require_finite(r.weight_bytes.si(), "weight bytes");
    if (!(r.time.si() > 0.0)) strata_fuzz::finding("step time not positive", r.time.si());
  });
}
