#include "strata/hcrmap/experiment.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <set>

#include "strata/core/json.hpp"
#include "strata/workload/presets.hpp"
#include "strata/workload/trace_io.hpp"
#include "support/field_of.hpp"

using namespace strata;
using strata_test::field_of;

namespace {
const routing_trace& dsv2lite_trace() {
  static const routing_trace t =
      load_trace_csv(std::string(STRATA_TEST_DATA_DIR) + "/traces/dsv2lite_esft_trace_intent.csv", {.experts = 64});
  return t;
}
}  // namespace

TEST_CASE("the trace splits by sequence into disjoint profile and evaluation halves") {
  const auto& t = dsv2lite_trace();
  const auto [a, b] = split_by_sequence(t);
  CHECK(a.tokens() + b.tokens() == t.tokens());
  std::set<int> sa, sb;
  for (const auto& i : a.infos()) sa.insert(i.seq);
  for (const auto& i : b.infos()) sb.insert(i.seq);
  for (int s : sa) CHECK(sb.count(s) == 0);
  CHECK(sa.size() == 64);  // 127 sequences: 64 at even positions, 63 at odd
  CHECK(sb.size() == 63);
}

TEST_CASE("every policy serves the real DeepSeek-V2-Lite trace legally, window after window") {
  const substrate s;
  const auto m = preset("DeepSeek-V2-Lite");
  experiment_params xp;
  xp.max_layers = 2;
  xp.windows = 2;
  for (phase mode : {phase::decode, phase::prefill}) {
    const auto r = run_experiment(s, m, dsv2lite_trace(), mode,
                                  {policy_kind::fixed_replication, policy_kind::hydra, policy_kind::moentwine,
                                   policy_kind::pimoe, policy_kind::hcrmap, policy_kind::hcrmap_no_fast_map,
                                   policy_kind::hcrmap_no_hbm, policy_kind::hcrmap_no_migration},
                                  xp);
    CHECK(r.policies.size() == 9);  // static added first
    CHECK(r.policies.front().policy == policy_kind::single_copy_static);
    CHECK(r.normalised(policy_kind::single_copy_static) == 1.0);
    CHECK(r.evaluated_layers == std::vector<int>{6, 19});
    CHECK(r.packages == 2);
    CHECK(r.non_routed_s > 0.0);
    for (const auto& p : r.policies) {
      CAPTURE(to_string(p.policy));
      CHECK(p.violations == 0);  // Eq. 1–4 and 21–24 in every window
      REQUIRE(p.e2e_s.size() == 2);
      for (double t : p.e2e_s) CHECK((std::isfinite(t) && t > r.non_routed_s));
      CHECK(p.energy_j > 0.0);
      CHECK(p.edp == doctest::Approx(p.energy_j * p.latency_s));
      // Every evaluated expert keeps at least one replica; the cap allows 0.3 × 64 extra per layer.
      CHECK(p.replicas >= 2 * 64);
      CHECK(p.replicas <= 2 * 64 + 2 * 19 + 1);
    }
    // Stage attribution sums to the routed time.
    const auto& h = r.of(policy_kind::hcrmap);
    CHECK(h.stages.total().si() == doctest::Approx(h.moe_s).epsilon(1e-6));
    // The result serialises.
    const json j = r;
    CHECK(j.at("policies").size() == 9);
    CHECK(field_of([&] { (void)r.of(policy_kind::hcrmap_no_link); }) == "policy");
  }
}

TEST_CASE("experiment_params: bad knobs name their field") {
  CHECK(field_of([] { validate(experiment_params{.windows = 0}); }) == "windows");
  CHECK(field_of([] { validate(experiment_params{.max_layers = 0}); }) == "max_layers");
  experiment_params p;
  p.pim.flops_per_byte = 0.0;
  CHECK(field_of([&] { validate(p); }) == "pim.flops_per_byte");
  const substrate s;
  const auto m = preset("Mixtral-8x7B");
  CHECK(field_of([&] { (void)run_experiment(s, m, dsv2lite_trace(), phase::decode, {}); }) == "trace");
}

TEST_CASE("experiment_params round-trip through JSON, nested knobs included") {
  experiment_params p;
  p.windows = 5;
  p.fast_map.block_tokens = 8;
  p.controller.min_age = 4;
  p.pim.throttle = 0.5;
  const json j = p;
  const auto back = j.get<experiment_params>();
  CHECK(back.windows == 5);
  CHECK(back.fast_map == p.fast_map);
  CHECK(back.controller.min_age == 4);
  CHECK(back.pim.throttle == 0.5);
  CHECK_THROWS_AS((void)json::parse(R"({"windowz": 3})").get<experiment_params>(), config_error);
}
