#include "strata/chiplet/scale_out.hpp"

#include <doctest/doctest.h>

#include <cmath>   // std::isfinite
#include <cstdio>  // std::snprintf
#include <string>  // std::string

#include "strata/chiplet/token_groups.hpp"
#include "strata/core/json.hpp"
#include "strata/workload/presets.hpp"
#include "strata/workload/trace_gen.hpp"

#include "support/field_of.hpp"
#include "support/shaped_trace.hpp"

using namespace strata;
using doctest::Approx;

namespace {
// A synthetic routing trace with the model's layout: 520 sequences of 4–8 tokens (≥ 2048
// tokens for prefill, ≥ 512 sequences for decode).
routing_trace trace_for(const model& m) { return strata_test::shaped_trace(m, 520, 4, 8); }
// HCRMap Table 2's models (report/paper.hpp, hcrmap_models()).
const char* const table2[] = {"DBRX", "DeepSeek-V2-Lite", "DeepSeek-V2", "DeepSeek-V3",
                              "DeepSeekMoE-16B", "Mixtral-8x7B", "Mixtral-8x22B", "Qwen1.5-MoE-A2.7B"};
}  // namespace

TEST_CASE("every HCRMap Table 2 model evaluates in prefill and decode under pipeline scale-out") {
  const substrate s;  // HCRMap Table 1
  for (const char* name : table2) {
    const model m = preset(name);
    const auto trace = trace_for(m);
    for (const phase mode : {phase::prefill, phase::decode}) {
      const bool prefill = mode == phase::prefill;
      const window_spec w{mode, prefill ? 2048 : 512, 2048};
      const auto groups = prefill ? token_groups(trace, s.chiplets(), {0, 2048})
                                  : decode_token_groups(trace, s.chiplets(), {.batch = 512, .seed = 1});
      const auto plan = plan_packages(s, m, w);
      const std::string id = std::string(name) + (prefill ? " prefill" : " decode");
      CAPTURE(id);
      CAPTURE(plan.reason);
      REQUIRE(plan.feasible);
      const auto res = stage_residencies(s, m, plan);
      const auto r = evaluate_pipeline(s, m, plan, res, groups, w);
      CAPTURE(r.reason);
      CHECK(r.feasible);
      CHECK(std::isfinite(r.e2e.si()));
      CHECK(r.e2e.si() > 0.0);
      CHECK(r.layers.size() == static_cast<std::size_t>(m.layers));
      CHECK(r.packages == plan.packages());
      // Stages cover the layers once, in order; every stage package fits.
      int next = 0;
      for (const auto& st : r.pipeline) {
        CHECK(st.first_layer == next);
        next = st.end_layer;
        CHECK(st.capacity.feasible);
        for (const auto& t : st.capacity.tiers) CHECK(t.used().si() <= t.capacity.si() * (1 + 1e-12));
      }
      CHECK(next == m.layers);
      for (const auto& rs : res) {
        if (rs) CHECK(rs->violations().empty());
      }
      // Eq. 16 plus the hand-offs.
      CHECK(r.e2e.si() == Approx((r.moe + r.non_routed + r.inter_package).si()));
      char line[200];
      std::snprintf(line, sizeof line, "%-18s %-7s packages %2d  e2e %9.3f ms  slowest stage %8.3f ms", name,
                    prefill ? "prefill" : "decode", r.packages, r.e2e.si() * 1e3, max_stage(r).si() * 1e3);
      MESSAGE(line);
    }
  }
}

TEST_CASE("models larger than one package are infeasible on one, with the reason") {
  const substrate s;
  scale_out_params one;
  one.kind = scale_out_kind::none;
  const model m = preset("Mixtral-8x7B");  // 45 B expert weights in BF16 > 40 GB
  const auto plan = plan_packages(s, m, {phase::prefill, 2048, 2048}, one);
  CHECK_FALSE(plan.feasible);
  CHECK(plan.packages() == 1);
  CHECK(plan.reason.find("expert copies") != std::string::npos);
  const auto trace = trace_for(m);
  const auto r = evaluate_scaled_window(s, m, token_groups(trace, s.chiplets(), {0, 2048}),
                                        {phase::prefill, 2048, 2048}, one);
  CHECK_FALSE(r.feasible);
  CHECK(r.note == "not timed: the experts do not fit");
  CHECK(r.e2e.si() == 0.0);
  // The same model in pipeline: several packages, feasible and timed.
  const auto p = evaluate_scaled_window(s, m, token_groups(trace, s.chiplets(), {0, 2048}), {phase::prefill, 2048, 2048});
  CHECK(p.feasible);
  CHECK(p.packages >= 2);
  const json j = p;
  CHECK(j.at("pipeline").size() == static_cast<std::size_t>(p.packages));
}

TEST_CASE("a KV cache too large for one package moves the window to more stages") {
  const substrate s;
  const model m = preset("Qwen1.5-MoE-A2.7B");
  // Short context: KV is small. Long context: 32.6 GB of KV, more packages.
  const auto short_ctx = plan_packages(s, m, {phase::decode, 512, 64});
  const auto long_ctx = plan_packages(s, m, {phase::decode, 512, 2048});
  REQUIRE(short_ctx.feasible);
  REQUIRE(long_ctx.feasible);
  CHECK(long_ctx.packages() > short_ctx.packages());
}

TEST_CASE("stages hand the window's activations over the inter-package link") {
  const substrate s;
  const model m = preset("Mixtral-8x7B");
  const auto trace = trace_for(m);
  const window_spec w{phase::prefill, 2048, 2048};
  const auto groups = token_groups(trace, s.chiplets(), {0, 2048});
  const auto plan = plan_packages(s, m, w);
  REQUIRE(plan.packages() >= 2);
  const auto res = stage_residencies(s, m, plan);
  scale_out_params so;
  const auto r = evaluate_pipeline(s, m, plan, res, groups, w, so);
  // (P − 1) hand-offs of 2048 tokens × 4096 × 2 B = 16.8 MB at 121 GB/s + 250 ns + 2 ns.
  const double bytes = 2048.0 * 4096 * 2;
  const double one = 250e-9 + 0.3 / 1.5e8 + bytes / (128e9 * 242.0 / 256.0);
  CHECK(r.inter_package.si() == Approx((plan.packages() - 1) * one));
  CHECK(r.inter_package_energy.si() == Approx((plan.packages() - 1) * bytes * 8 * 5.5e-12));
  // A faster link shortens only the hand-offs.
  scale_out_params fast = so;
  fast.link.bandwidth = units::GBps(1000.0);
  const auto f = evaluate_pipeline(s, m, plan, res, groups, w, fast);
  CHECK(f.e2e < r.e2e);
  CHECK(f.moe == r.moe);
  // Bad parameters name the field.
  scale_out_params bad;
  bad.max_packages = 0;
  CHECK(strata_test::field_of([&] { (void)plan_packages(s, m, w, bad); }) == "max_packages");
  bad = {};
  bad.expert_copies = 0.5;
  CHECK(strata_test::field_of([&] { (void)plan_packages(s, m, w, bad); }) == "expert_copies");
  bad = {};
  bad.max_packages = 1;
  const auto capped = plan_packages(s, m, w, bad);
  CHECK_FALSE(capped.feasible);
  CHECK(capped.reason.find("max_packages = 1") != std::string::npos);
}
