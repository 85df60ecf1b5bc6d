#include "strata/chiplet/window.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "strata/chiplet/token_groups.hpp"
#include "strata/core/json.hpp"
#include "strata/workload/presets.hpp"
#include "strata/workload/trace_io.hpp"

using namespace strata;
using doctest::Approx;

namespace {
const routing_trace& dsv2lite_trace() {
  static const routing_trace t =
      load_trace_csv(std::string(STRATA_TEST_DATA_DIR) + "/traces/dsv2lite_esft_trace_intent.csv", {.experts = 64});
  return t;
}
}  // namespace

TEST_CASE("single-copy static DeepSeek-V2-Lite replays the real trace end to end") {
  const substrate s;
  const auto m = preset("DeepSeek-V2-Lite");
  const auto res = single_copy_static(s, m.moe_layers(), m.experts, expert_bytes(m));
  REQUIRE(res.violations().empty());
  for (const auto& shape : {std::pair{phase::prefill, 2048}, std::pair{phase::decode, 512}}) {
    const phase mode = shape.first;
    const int tokens = shape.second;  // a plain variable: CAPTURE takes it by reference
    CAPTURE(tokens);
    const auto groups = token_groups(dsv2lite_trace(), s.chiplets(), {0, tokens});
    REQUIRE(groups.size() == 26);
    for (const auto& gl : groups) {
      int n = 0;
      for (const auto& g : gl) n += g.tokens;
      CHECK(n == tokens * 6);  // top-6
    }
    const auto w = evaluate_window(s, m, res, groups, {mode, tokens, 2048});
    CHECK(w.layers.size() == 27);
    CHECK(w.layers[0].moe_layer == -1);  // layer 0 is dense
    CHECK(w.layers[0].moe.si() == 0.0);
    // Eq. 16: the window is the sum of routed and non-routed time.
    CHECK(w.e2e.si() == Approx((w.moe + w.non_routed).si()));
    double moe = 0.0;
    for (const auto& l : w.layers) {
      moe += l.moe.si();
      if (l.moe_layer >= 0) CHECK(l.stages.total().si() == Approx(l.moe.si()));
    }
    CHECK(w.moe.si() == Approx(moe));
    CHECK(w.stages.total().si() == Approx(w.moe.si()));
    CHECK(w.energy.total().si() > 0.0);
    CHECK(w.energy.compute.si() > 0.0);
    // Same inputs, same result.
    const auto again = evaluate_window(s, m, res, groups, {mode, tokens, 2048});
    CHECK(again.e2e == w.e2e);
    // The window serialises with its stage attribution.
    const json j = w;
    CHECK(j.at("stages").contains("queue"));
    CHECK(j.at("layers").size() == 27);
  }
}

TEST_CASE("routed latency is never below the pure-bandwidth bound of the expert weights") {
  const substrate s;
  const auto m = preset("DeepSeek-V2-Lite");
  const auto res = single_copy_static(s, m.moe_layers(), m.experts, expert_bytes(m));
  const auto groups = token_groups(dsv2lite_trace(), s.chiplets(), {100, 512});
  const auto w = evaluate_window(s, m, res, groups, {phase::decode, 512, 2048});
  // Every touched expert's weights must leave its banks: per layer at least (bytes touched) /
  // (aggregate bandwidth of all tiers).
  const auto& p = s.params();
  const double bw = p.sram.bandwidth.si() * 4 + p.hbm.bandwidth.si() + p.dram.bandwidth.si();
  for (std::size_t l = 0; l < groups.size(); ++l) {
    std::set<int> touched;
    for (const auto& g : groups[l]) touched.insert(g.expert);
    const double bound = touched.size() * expert_bytes(m).si() / bw;
    CHECK(w.layers[l + 1].moe.si() >= bound);
  }
}

TEST_CASE("a second replica of the hottest experts changes the routed critical path") {
  const substrate s;
  const auto m = preset("DeepSeek-V2-Lite");
  auto res = single_copy_static(s, m.moe_layers(), m.experts, expert_bytes(m), {.budget_factor = 1.3});
  const auto groups = token_groups(dsv2lite_trace(), s.chiplets(), {0, 2048});
  const auto base = evaluate_window(s, m, res, groups, {phase::prefill, 2048, 2048});
  // Copy layer 0's hottest expert into the DRAM channels of IO chiplet 3 (HBM is full) for
  // chiplet 15: groups can now split between the two replicas.
  std::vector<int> tokens(64, 0);
  for (const auto& g : groups[0]) tokens[static_cast<std::size_t>(g.expert)] += g.tokens;
  const int hot = static_cast<int>(std::max_element(tokens.begin(), tokens.end()) - tokens.begin());
  const auto dram = s.banks_of(tier_kind::dram, s.chiplets() + 3);
  REQUIRE(res.check_add(0, hot, 15, dram.front(), 2) == "");
  const int copy = res.begin_copy(0, hot, 15, dram.front(), 2);
  const auto pending = evaluate_window(s, m, res, groups, {phase::prefill, 2048, 2048});
  CHECK(pending.layers[1].moe == base.layers[1].moe);  // a pending copy is not a target
  res.land_chunks(copy, 1000);
  const auto after = evaluate_window(s, m, res, groups, {phase::prefill, 2048, 2048});
  CHECK(after.layers[1].moe != base.layers[1].moe);
  CHECK(after.layers[2].moe == base.layers[2].moe);  // other layers untouched
}

TEST_CASE("the RAPL cap throttles the next window only when the budget is exceeded") {
  CHECK(next_compute_scale(units::mJ(10.0), units::W(100.0), units::ms(1.0)) == Approx(1.0) );
  // Budget 100 W × 1 ms = 100 mJ; a 200 mJ window halves the next window's throughput.
  CHECK(next_compute_scale(units::mJ(200.0), units::W(100.0), units::ms(1.0)) == Approx(0.5));
  CHECK_THROWS_AS(next_compute_scale(units::mJ(1.0), units::W(0.0), units::ms(1.0)), config_error);
  // A throttled window is slower.
  const substrate s;
  const auto m = preset("DeepSeek-V2-Lite");
  const auto res = single_copy_static(s, m.moe_layers(), m.experts, expert_bytes(m));
  const auto groups = token_groups(dsv2lite_trace(), s.chiplets(), {0, 512});
  critical_path_params slow;
  slow.compute_scale = 0.5;
  const auto a = evaluate_window(s, m, res, groups, {phase::decode, 512, 2048});
  const auto b = evaluate_window(s, m, res, groups, {phase::decode, 512, 2048}, slow);
  CHECK(b.stages.compute > a.stages.compute);
  CHECK(b.e2e > a.e2e);
}

TEST_CASE("migration traffic in a window loads links and banks and shows as P_mig") {
  const substrate s;
  const auto m = preset("DeepSeek-V2-Lite");
  const auto res = single_copy_static(s, m.moe_layers(), m.experts, expert_bytes(m));
  const auto groups = token_groups(dsv2lite_trace(), s.chiplets(), {0, 512});
  const auto quiet = evaluate_window(s, m, res, groups, {phase::decode, 512, 2048});
  CHECK(quiet.pressure.mig == 0.0);
  CHECK(quiet.pressure.tier > 0.0);
  CHECK(quiet.pressure.tier <= 1.0);
  // Copy one expert (17.3 MB) from a DRAM channel to an HBM pseudo-channel during the window.
  const std::vector<migration> mig{{s.banks_of(tier_kind::dram)[0], s.banks_of(tier_kind::hbm)[31], expert_bytes(m), true}};
  const auto busy = evaluate_window(s, m, res, groups, {phase::decode, 512, 2048}, {}, least_loaded, mig);
  CHECK(busy.pressure.mig > 0.0);
  CHECK(busy.energy.migration.si() > 0.0);
  CHECK(busy.energy.dram.si() > quiet.energy.dram.si());
  CHECK(busy.moe >= quiet.moe);
}

TEST_CASE("power-capped serving throttles the window after one over budget, and only then") {
  const substrate s;
  const auto m = preset("DeepSeek-V2-Lite");
  const auto res = single_copy_static(s, m.moe_layers(), m.experts, expert_bytes(m));
  critical_path_params cp;
  cp.window = units::ms(10.0);
  // A decode window uses several joules; 1 kW over 10 ms (10 J) never binds, 100 W (1 J) does.
  // The real trace has 127 sequences: a batch of 512 reuses them, and says so.
  const window_spec w{phase::decode, 512, 2048, {.allow_reuse = true}};
  const auto free_run = evaluate_windows(s, m, res, dsv2lite_trace(), w, 3, units::W(1000.0), cp);
  const auto capped = evaluate_windows(s, m, res, dsv2lite_trace(), w, 3, units::W(100.0), cp);
  REQUIRE(free_run.size() == 3);
  CHECK(free_run[0].note.find("127 eligible sequences for a batch of 512") != std::string::npos);
  CHECK_THROWS_AS(evaluate_windows(s, m, res, dsv2lite_trace(), {phase::decode, 512, 2048}, 1, units::W(100.0), cp),
                  config_error);
  // 64 concurrent sequences: one token each, no note.
  const auto b64 = evaluate_windows(s, m, res, dsv2lite_trace(), {phase::decode, 64, 2048}, 1, units::W(1000.0), cp);
  CHECK(b64[0].note.empty());
  CHECK(capped[0].e2e == free_run[0].e2e);             // the first window runs at full speed
  CHECK(capped[1].stages.compute > free_run[1].stages.compute);  // the next one is throttled
  CHECK(free_run[1].e2e != free_run[0].e2e);           // consecutive windows route different tokens
}

TEST_CASE("a KV cache larger than its tier is reported infeasible, naming bytes and tiers") {
  const substrate s;
  const auto m = preset("DeepSeek-V2-Lite");
  const auto res = single_copy_static(s, m.moe_layers(), m.experts, expert_bytes(m));
  const auto groups = token_groups(dsv2lite_trace(), s.chiplets(), {0, 512});
  // 512 sequences × 2048 tokens × 27 layers × 1152 B = 32.6 GB of KV: more than the 8 GB HBM
  // tier and than what the experts leave of the 32 GB DRAM tier.
  const auto w = evaluate_window(s, m, res, groups, {phase::decode, 512, 2048});
  CHECK_FALSE(w.feasible);
  CHECK(w.reason.find("KV cache 32.6 GB fit no tier") != std::string::npos);
  CHECK(w.reason.find("hbm 8 GB: experts 7.") != std::string::npos);  // 7.75 GB chiplet-local
  CHECK(w.e2e.si() > 0.0);  // still timed
  const json j = w;
  CHECK(j.at("feasible") == false);
  // A short context fits: 512 × 128 tokens of KV (2 GB) go to DRAM, which the experts leave room in.
  const auto ok = evaluate_window(s, m, res, groups, {phase::decode, 512, 128});
  CHECK(ok.feasible);
  CHECK(ok.capacity.placement.kv == tier_kind::dram);  // single-copy static filled HBM with experts
  CHECK(ok.reason.find("fits") == 0);
  // Every tier holds at most its capacity in a feasible window.
  for (const auto& t : ok.capacity.tiers) CHECK(t.used().si() <= t.capacity.si());
}
