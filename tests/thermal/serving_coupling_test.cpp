// SPDX-License-Identifier: MIT
// The serving run coupled to the Stratum stack's temperature (issue 48, item 5):
// include/strata/stratum/serving/serving_thermal.hpp.
#include "strata/stratum/serving/serving_thermal.hpp"

#include <doctest/doctest.h>

#include <algorithm>  // std::max
#include <cmath>      // std::abs
#include <sstream>    // std::ostringstream
#include <string>     // std::string
#include <vector>     // std::vector

#include "strata/serving/serving_json.hpp"
#include "strata/workload/presets.hpp"
#include "support/field_of.hpp"
#include "support/serving_hand_model.hpp"

using namespace strata;
using doctest::Approx;
using strata_test::field_of;

namespace {

const std::vector<std::string> coupling_topics{"arxiv", "book", "c4", "github", "wikipedia"};

const expert_count_table& coupling_counts() {
  static const auto c =
      load_expert_counts_csv(std::string(STRATA_TEST_DATA_DIR) + "/traces/olmoe_mixtral_expert_counts_by_domain.csv");
  return c;
}

stratum_serving_setup coupling_setup() {
  stratum_serving_setup s;
  s.system = stratum_l();
  s.m = preset("Mixtral-8x7B");
  s.usage = topic_usage_from_counts(coupling_counts(), "Mixtral-8x7B-v0.1", "topk2", "pretrained", coupling_topics,
                                    s.m.moe_layers());
  return s;
}

std::vector<request> coupling_requests(double rate, std::int64_t n) {
  request_gen_params g;
  g.rate = rate;
  g.count = n;
  g.topics = coupling_topics;
  g.prompt = {.kind = length_kind::uniform, .value = 0, .min = 128, .max = 1024, .values = {}};
  g.output = {.kind = length_kind::uniform, .value = 0, .min = 32, .max = 256, .values = {}};
  return generate_requests(g);
}

serving_thermal_params coupling_on(double h = 1.11e5) {
  serving_thermal_params p;
  p.enabled = true;
  p.cold_plate_h_W_m2K = h;
  return p;
}

std::string coupling_json(const serving_result& r) { return dump_json(json(r), 2); }

/// The hottest DRAM cell (°C) of the coupling's stack at the steady state of logic and DRAM power
/// `pl`, `pd` (one chip), built apart from the monitor.
double coupling_steady_dram_C(const serving_thermal_params& p, double pl, double pd) {
  const auto sp = serving_stack_params(stratum_l(), p);
  const auto chip = evaluate(sp.chip);
  const auto lp = thermal::stratum_logic_floorplan(chip);
  const auto st = thermal::stratum_thermal_stack(sp, lp.plan);
  const auto net = thermal::build_thermal_network(st, sp.model);
  thermal::block_power bp(st.layers.size(), std::vector<double>(lp.plan.blocks.size(), 0.0));
  for (std::size_t b = 0; b < lp.plan.blocks.size(); ++b) {
    bp[thermal::stratum_stack_logic_layer][b] = pl * lp.power_W[b] / lp.p_logic_W;
    bp[thermal::stratum_stack_array_layer][b] = pd * lp.plan.blocks[b].area_m2() / chip.logic_params.die_area.si();
  }
  const auto r = thermal::steady_state(net, bp);
  double m = 0.0;
  for (int i = net.layer_first_node[thermal::stratum_stack_array_layer];
       i < net.layer_first_node[thermal::stratum_stack_array_layer + 1]; ++i)
    m = std::max(m, r.node_rise_K[static_cast<std::size_t>(i)]);
  return sp.coolant_K + m - 273.15;
}

}  // namespace

TEST_CASE("serving thermal coupling: at low load nothing changes, to the bit") {
  const auto setup = coupling_setup();
  const auto reqs = coupling_requests(1.0, 40);
  const auto off = simulate_stratum(setup, reqs);
  const auto on = simulate_stratum_thermal(setup, reqs, coupling_on());
  REQUIRE(off.feasible);
  CHECK(coupling_json(on.serving) == coupling_json(off));
  const auto& th = on.thermal;
  CHECK(th.model == "block");
  CHECK(std::abs(static_cast<double>(th.windows) - std::ceil(off.makespan_s / th.window_s)) <= 1.0);
  CHECK(th.peak_dram_C < 85.0);
  CHECK(th.peak_dram_C > th.idle_dram_C);  // the run heats the stack, below its limit
  CHECK(th.time_above_limit_s == 0.0);
  CHECK(th.throttled_time_s == 0.0);
  CHECK(th.hot_refresh_time_s == 0.0);
  CHECK(th.stretched_steps == 0);
  CHECK(th.added_time_s == 0.0);
  CHECK(th.throughput_lost == 0.0);
  // Refresh at normal temperature all along: tRFC/tREFI = 410 ns / 3.9 us.
  CHECK(th.refresh_overhead_share == Approx(410.0 / 3900.0).epsilon(1e-12));
  CHECK(th.refresh_overhead_nominal == Approx(410.0 / 3900.0).epsilon(1e-12));
  // Off: the run is simulate_stratum's and there is no thermal result.
  auto p = coupling_on();
  p.enabled = false;
  const auto plain = simulate_stratum_thermal(setup, reqs, p);
  CHECK(coupling_json(plain.serving) == coupling_json(off));
  CHECK(plain.thermal.windows == 0);
}

// Three runs of 150 requests; the sanitizer pass (suite `long` left out) still throttles in the
// cases below.
TEST_CASE("serving thermal coupling: reduced cooling at saturating load throttles and doubles refresh" *
          doctest::test_suite("long")) {
  const auto setup = coupling_setup();
  const auto reqs = coupling_requests(100.0, 150);
  const auto off = simulate_stratum(setup, reqs);
  // A cold plate of 2.5e3 W/(m^2 K) instead of the microchannel sink's 1.11e5.
  const auto on = simulate_stratum_thermal(setup, reqs, coupling_on(2.5e3));
  const auto& th = on.thermal;
  CHECK(th.peak_dram_C > 85.0);
  CHECK(th.time_above_limit_s > 0.0);
  CHECK(th.throttled_time_s > 0.0);
  CHECK(th.hot_refresh_time_s > 0.0);
  CHECK(th.stretched_steps > 0);
  CHECK(th.added_time_s > 0.0);
  CHECK(th.added_energy_J > 0.0);
  CHECK(th.refresh_overhead_share > th.refresh_overhead_nominal);
  CHECK(th.refresh_overhead_share < 820.0 / 3900.0);  // at most doubled
  CHECK(th.throughput_lost > 0.0);
  CHECK(th.throughput_lost == Approx(th.added_time_s / on.serving.busy_time_s));
  // The saturated system serves fewer tokens per second and stays busier.
  CHECK(on.serving.throughput_tps < off.throughput_tps);
  CHECK(on.serving.busy_time_s > off.busy_time_s);
  CHECK(on.serving.output_tokens == off.output_tokens);
  // Refresh alone (no throttling): some time is still lost, less than with throttling.
  auto ref_only = coupling_on(2.5e3);
  ref_only.throttle_factor = 1.0;
  const auto r = simulate_stratum_thermal(setup, reqs, ref_only);
  CHECK(r.thermal.throttled_time_s == 0.0);
  CHECK(r.thermal.hot_refresh_time_s > 0.0);
  CHECK(r.thermal.added_time_s > 0.0);
  CHECK(r.serving.throughput_tps < off.throughput_tps);
  CHECK(r.serving.throughput_tps > on.serving.throughput_tps);
}

TEST_CASE("serving thermal coupling: the transient conserves energy and bounds its series") {
  const auto setup = coupling_setup();
  const auto reqs = coupling_requests(100.0, 60);
  auto p = coupling_on(2.5e3);
  p.max_series = 8;
  const auto on = simulate_stratum_thermal(setup, reqs, p);
  const auto& th = on.thermal;
  REQUIRE(th.windows > 16);
  // Backward Euler's books: injected = stored + removed.
  CHECK(th.energy_in_J == Approx(th.energy_stored_J + th.energy_out_J).epsilon(1e-9));
  // What was injected is the windows' power over their time.
  const double span = static_cast<double>(th.windows) * th.window_s;
  CHECK(th.energy_in_J == Approx((th.mean_logic_W + th.mean_dram_W) * span).epsilon(1e-9));
  // The series: at most max_series points covering every window once.
  CHECK(th.series.size() <= 8u);
  std::int64_t w = 0;
  double d = 0.0, thr = 0.0, peak = 0.0;
  for (const auto& pt : th.series) {
    w += pt.windows;
    d += pt.duration_s;
    thr += pt.throttled_s;
    peak = std::max(peak, pt.dram_max_C);
  }
  CHECK(w == th.windows);
  CHECK(d == Approx(span).epsilon(1e-9));
  CHECK(thr == Approx(th.throttled_time_s).epsilon(1e-9));
  CHECK(peak == Approx(th.peak_dram_C).epsilon(1e-12));
}

TEST_CASE("serving thermal coupling: constant power ends on the steady state; a hot window stretches the next step") {
  const auto sys = stratum_l();
  const auto sm = prepare(sys);
  const double stat = sm.device.static_power.si(), ref = sm.device.refresh_power.si();
  const double units = sys.chips * sys.stages;
  const auto p = coupling_on();
  {
    stratum_stack_monitor mon(sys, p, stat, ref);
    // 2 s of decode at 20 W of logic and 5 W of DRAM per chip, in 10 ms steps.
    for (int i = 0; i < 200; ++i) {
      const step_cost c{0.01, 0.01 * 25.0 * units, 0.01 * 20.0 * units, 0.01 * 5.0 * units};
      const auto out = mon.step(0.01 * i, strata::detail::serving_step_kind::decode, c);
      CHECK(out.time_s == c.time_s);
    }
    const auto r = mon.finish(2.0, 2.0);
    CHECK(r.peak_dram_C == Approx(coupling_steady_dram_C(p, 20.0, 5.0)).epsilon(1e-9));
    CHECK(r.mean_logic_W == Approx(20.0).epsilon(1e-3));
  }
  {
    stratum_stack_monitor mon(sys, p, stat, ref);
    // 0.1 s at 400 W of logic per chip drives the hottest cell over 85 degC.
    (void)mon.step(0.0, strata::detail::serving_step_kind::decode, step_cost{0.1, 40.0 * units, 40.0 * units, 0.0});
    const step_cost c{0.01, 1.0, 0.6, 0.3};
    const auto out = mon.step(0.1, strata::detail::serving_step_kind::decode, c);
    // Throttled (x 1/0.5) and at doubled refresh (x a_n / a_hot): 2 (1 - 410/3900) / (1 - 820/3900).
    const double stretch = 2.0 * (1.0 - 410.0 / 3900.0) / (1.0 - 820.0 / 3900.0);
    CHECK(out.time_s == Approx(0.01 * stretch).epsilon(1e-12));
    CHECK(out.logic_j == Approx(0.6 + stat * units * (out.time_s - 0.01)).epsilon(1e-12));
    CHECK(out.dram_j == Approx(0.3 + ref * units * (2.0 * out.time_s - 0.01)).epsilon(1e-12));
    CHECK(out.energy_j - 1.0 == Approx((stat + 2.0 * ref) * units * out.time_s - (stat + ref) * units * 0.01).epsilon(1e-9));
    // A prefill (on the xPU) is not stretched.
    const step_cost pc{0.02, 3.0, 0.0, 0.0};
    CHECK(mon.step(0.1 + out.time_s, strata::detail::serving_step_kind::prefill, pc).time_s == 0.02);
    const auto r = mon.finish(0.2, 0.13);
    CHECK(r.peak_dram_C > 95.0);
    CHECK(r.stretched_steps == 1);
    CHECK(r.added_time_s == Approx(0.01 * (stretch - 1.0)).epsilon(1e-12));
  }
}

TEST_CASE("serving thermal coupling: bad parameters are config_errors naming the field") {
  const auto sys = stratum_l();
  auto p = coupling_on();
  p.window_s = 0.0;
  CHECK(field_of([&] { validate(p); }) == "thermal.window_s");
  p = coupling_on();
  p.throttle_factor = 0.0;
  CHECK(field_of([&] { validate(p); }) == "thermal.throttle_factor");
  p = coupling_on();
  p.limit_C = 100.0;
  CHECK(field_of([&] { validate(p); }) == "thermal.limit_C");
  p = coupling_on();
  p.coolant_C = 90.0;
  CHECK(field_of([&] { validate(p); }) == "thermal.limit_C");
  p = coupling_on();
  p.cold_plate_h_W_m2K = 0.0;
  CHECK(field_of([&] { validate(p); }) == "thermal.cold_plate_h_W_m2K");
  p = coupling_on();
  p.grid = 65;
  CHECK(field_of([&] { validate(p); }) == "thermal.grid");
  p = coupling_on();
  p.max_series = 1;
  CHECK(field_of([&] { validate(p); }) == "thermal.max_series");
  auto hbm = sys;
  hbm.memory = nmp_memory::hbm;
  CHECK(field_of([&] { (void)stratum_stack_monitor(hbm, coupling_on(), 1.0, 1.0); }) == "thermal.enabled");
  // A run longer than max_windows windows of its window.
  p = coupling_on();
  p.window_s = 1e-5;
  stratum_stack_monitor mon(sys, p, 1.0, 1.0);
  CHECK(field_of([&] { (void)mon.step(1e5, strata::detail::serving_step_kind::prefill, step_cost{}); }) == "thermal.window_s");
  // The scenario key.
  CHECK(field_of([] { (void)read_serving_scenario(R"({"usage": {"counts": "x.csv"}, "thermal": {"window_s": -1}})"); }) ==
        "thermal.window_s");
  CHECK(field_of([] {
          (void)read_serving_scenario(R"({"system": "none", "gpu": {"compare": true}, "thermal": {"enabled": true}})");
        }) == "thermal.enabled");
  CHECK(field_of([] { (void)read_serving_scenario(R"({"usage": {"counts": "x.csv"}, "thermal": {"windows": 1}})"); }) ==
        "thermal.windows");
}

TEST_CASE("serving thermal coupling: the scenario key, the report's JSON and summary") {
  const auto s = read_serving_scenario(R"({"model": "Mixtral-8x7B", "usage": {"counts": "traces/olmoe_mixtral_expert_counts_by_domain.csv"},
      "requests": {"rate": 100, "count": 60, "output": {"kind": "fixed", "value": 64}},
      "thermal": {"enabled": true, "cold_plate_h_W_m2K": 2500, "window_s": 0.01, "max_series": 16}})");
  CHECK(s.thermal.enabled);
  CHECK(s.thermal.window_s == 0.01);
  const auto r = run_scenario(s, STRATA_TEST_DATA_DIR);
  REQUIRE(r.has_thermal);
  CHECK(r.thermal.window_s == 0.01);
  CHECK(r.thermal.series.size() <= 16u);
  const std::string j = serving_json(r);
  CHECK(j.find("\"thermal\"") != std::string::npos);
  CHECK(j.find("\"peak_dram_C\"") != std::string::npos);
  std::ostringstream os;
  print_summary(os, r);
  CHECK(os.str().find("thermal (block") != std::string::npos);
  // Without the key the report has no thermal part and the JSON is as before.
  auto plain = s;
  plain.thermal = {};
  const auto r0 = run_scenario(plain, STRATA_TEST_DATA_DIR);
  CHECK_FALSE(r0.has_thermal);
  CHECK(serving_json(r0).find("\"thermal\"") == std::string::npos);
}

// The coupling through the engine loop (`scheduler.loop: "engine"`, stratum_engine.hpp): the same
// hook sees each part of a mixed step in sequence, at its own start.
namespace {

struct coupling_engine_call {
  double t0 = 0.0;
  strata::detail::serving_step_kind kind{};
  double time_s = 0.0;
};

}  // namespace

TEST_CASE("serving thermal coupling through the engine: throttling stretches each decode part by 1/throttle_factor") {
  // r0 decodes while r1 arrives (owing 5 ms of classifier time): one mixed step runs r1's prompt
  // and r0's last decode, its parts in sequence.
  const std::vector<request> reqs{strata_test::hand_request(0.0, 100, 3), strata_test::hand_request(0.105, 100, 2)};
  const std::vector<int> labels{0, 0};
  const std::vector<double> ready{0.0, 0.105}, device{0.0, 0.005};
  scheduler_params sp;
  sp.policy = schedule_policy::fcfs;
  sp.loop = serving_loop::engine;
  const double f = 0.5;  // every decode part throttled: t / f
  std::vector<coupling_engine_call> calls;
  auto m = strata_test::hand_serving_model(2);
  m.thermal = [&](double t0, strata::detail::serving_step_kind k, const step_cost& c) {
    calls.push_back({t0, k, c.time_s});
    step_cost out = c;
    if (k == strata::detail::serving_step_kind::decode) out.time_s = c.time_s / f;
    return out;
  };
  const auto r = strata::detail::run_stratum_engine(reqs, labels, ready, device, sp, m);
  REQUIRE(r.feasible);
  // 0 → 0.1 prefill r0; → 0.1 + 0.013/f decode (1, 100); at 0.126 r1 is ready: classifier 5 ms,
  // prefill(1, 100) 0.1, decode(1, 101) 0.01301/f; then r1's decode (1, 100) 0.013/f.
  const double a = 0.1, b = a + 0.013 / f, c = b + 0.005 + 0.1 + 0.01301 / f, d = c + 0.013 / f;
  CHECK(r.mixed_steps == 1);
  CHECK(r.first_token_s[0] == Approx(a).epsilon(1e-12));
  CHECK(r.finish_s[0] == Approx(c).epsilon(1e-12));
  CHECK(r.first_token_s[1] == Approx(c).epsilon(1e-12));
  CHECK(r.finish_s[1] == Approx(d).epsilon(1e-12));
  CHECK(r.busy_time_s == Approx(d).epsilon(1e-12));
  CHECK(r.classifier_time_s == Approx(0.005).epsilon(1e-12));
  using K = strata::detail::serving_step_kind;
  const std::vector<coupling_engine_call> want{{0.0, K::prefill, 0.1},
                                               {a, K::decode, 0.013},
                                               {b, K::classifier, 0.005},
                                               {b + 0.005, K::prefill, 0.1},
                                               {b + 0.105, K::decode, 0.01301},
                                               {c, K::decode, 0.013}};
  REQUIRE(calls.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    CAPTURE(i);
    CHECK(calls[i].kind == want[i].kind);
    CHECK(calls[i].t0 == Approx(want[i].t0).epsilon(1e-12));
    CHECK(calls[i].time_s == Approx(want[i].time_s).epsilon(1e-12));
  }
  // Without the stretch (f = 1) the run is the unhooked one, to the bit.
  auto plain = strata_test::hand_serving_model(2);
  auto ident = strata_test::hand_serving_model(2);
  ident.thermal = [](double, strata::detail::serving_step_kind, const step_cost& x) { return x; };
  const auto r0 = strata::detail::run_stratum_engine(reqs, labels, ready, device, sp, plain);
  const auto r1 = strata::detail::run_stratum_engine(reqs, labels, ready, device, sp, ident);
  CHECK(coupling_json(r1) == coupling_json(r0));
  CHECK(r0.finish_s[1] == Approx(0.1 + 0.013 + 0.005 + 0.1 + 0.01301 + 0.013).epsilon(1e-12));
}

TEST_CASE("serving thermal coupling through the engine: a row swap is charged before its group's prefill") {
  // Two topics on the topic batcher: each group of a new label swaps first.
  std::vector<request> reqs;
  for (int i = 0; i < 6; ++i) reqs.push_back(strata_test::hand_request(0.03 * i, 64, 4, i % 2));
  const std::vector<int> labels{0, 1, 0, 1, 0, 1};
  const std::vector<double> ready{0.0, 0.03, 0.06, 0.09, 0.12, 0.15}, device(6, 0.0);
  scheduler_params sp;
  sp.policy = schedule_policy::topic;
  sp.loop = serving_loop::engine;
  std::vector<coupling_engine_call> calls;
  auto m = strata_test::hand_serving_model(2);
  m.thermal = [&](double t0, strata::detail::serving_step_kind k, const step_cost& c) {
    calls.push_back({t0, k, c.time_s});
    return c;
  };
  const auto r = strata::detail::run_stratum_engine(reqs, labels, ready, device, sp, m);
  const auto r0 = strata::detail::run_stratum_engine(reqs, labels, ready, device, sp, strata_test::hand_serving_model(2));
  REQUIRE(r.feasible);
  CHECK(coupling_json(r) == coupling_json(r0));
  REQUIRE(r.swaps >= 1);
  std::int64_t swaps = 0;
  double charged = 0.0;
  for (std::size_t i = 0; i < calls.size(); ++i) {
    charged += calls[i].time_s;
    if (i > 0) CHECK(calls[i].t0 >= calls[i - 1].t0);
    if (calls[i].kind != strata::detail::serving_step_kind::swap) continue;
    ++swaps;
    CHECK(calls[i].time_s == 0.05);
    REQUIRE(i + 1 < calls.size());
    CHECK(calls[i + 1].kind == strata::detail::serving_step_kind::prefill);
    CHECK(calls[i + 1].t0 == Approx(calls[i].t0 + 0.05).epsilon(1e-12));
  }
  CHECK(swaps == r.swaps);
  CHECK(charged == Approx(r.busy_time_s).epsilon(1e-12));  // every part of every step, once
}

TEST_CASE("serving thermal coupling through the engine: the stack's monitor, cool and hot") {
  auto setup = coupling_setup();
  setup.scheduler.loop = serving_loop::engine;
  {
    const auto reqs = coupling_requests(1.0, 40);
    const auto off = simulate_stratum(setup, reqs);
    const auto on = simulate_stratum_thermal(setup, reqs, coupling_on());
    REQUIRE(off.feasible);
    CHECK(off.policy == "engine (topic)");
    CHECK(coupling_json(on.serving) == coupling_json(off));  // below every threshold: to the bit
    CHECK(on.thermal.windows > 0);
    CHECK(on.thermal.peak_dram_C > on.thermal.idle_dram_C);
    CHECK(on.thermal.stretched_steps == 0);
  }
  {
    const auto reqs = coupling_requests(100.0, 60);
    const auto off = simulate_stratum(setup, reqs);
    const auto on = simulate_stratum_thermal(setup, reqs, coupling_on(2.5e3));
    REQUIRE(on.serving.feasible);
    const auto& th = on.thermal;
    CHECK(th.peak_dram_C > 85.0);
    CHECK(th.throttled_time_s > 0.0);
    CHECK(th.stretched_steps > 0);
    CHECK(th.added_time_s > 0.0);
    CHECK(th.throughput_lost == Approx(th.added_time_s / on.serving.busy_time_s));
    CHECK(on.serving.busy_time_s > off.busy_time_s);
    CHECK(on.serving.output_tokens == off.output_tokens);
    CHECK(th.energy_in_J == Approx(th.energy_stored_J + th.energy_out_J).epsilon(1e-9));
  }
}

TEST_CASE("serving thermal coupling: the scenario's thermal.stack sets the stack's layers field by field") {
  // Defaults are stratum_stack_params' own.
  const serving_stack_layers d;
  const thermal::stratum_stack_params sp0;
  CHECK(d.tim == sp0.tim);
  CHECK(d.array == sp0.array);
  CHECK(d.logic_beol == sp0.logic_beol);
  const auto s = read_serving_scenario(R"({"model": "Mixtral-8x7B", "usage": {"counts": "traces/olmoe_mixtral_expert_counts_by_domain.csv"},
      "requests": {"rate": 100, "count": 40, "output": {"kind": "fixed", "value": 64}},
      "thermal": {"enabled": true, "window_s": 0.01,
                  "stack": {"tim": {"conductivity_W_mK": 0.4}, "array": {"tier_pitch_m": 1e-7}}}})");
  CHECK(s.thermal.stack.tim.conductivity_W_mK == 0.4);
  CHECK(s.thermal.stack.tim.thickness_m == sp0.tim.thickness_m);  // the fields not given keep their defaults
  CHECK(s.thermal.stack.array.tier_pitch_m == 1e-7);
  CHECK(s.thermal.stack.array.oxide_fraction == sp0.array.oxide_fraction);
  CHECK(s.thermal.stack.bond == sp0.bond);
  // They reach the stack the coupling builds.
  const auto sp = serving_stack_params(stratum_l(), s.thermal);
  CHECK(sp.tim.conductivity_W_mK == 0.4);
  CHECK(sp.array.tier_pitch_m == 1e-7);
  CHECK(sp.memory_substrate == sp0.memory_substrate);
  // A tenfold worse TIM and a thicker cell stack: the same power heats the DRAM more (steady state
  // by hand, and the run's peak).
  auto base = s.thermal;
  base.stack = {};
  CHECK(coupling_steady_dram_C(s.thermal, 20.0, 5.0) > coupling_steady_dram_C(base, 20.0, 5.0) + 1.0);
  auto s0 = s;
  s0.thermal.stack = {};
  const auto r = run_scenario(s, STRATA_TEST_DATA_DIR);
  const auto r0 = run_scenario(s0, STRATA_TEST_DATA_DIR);
  REQUIRE(r.has_thermal);
  REQUIRE(r0.has_thermal);
  CHECK(r.thermal.peak_dram_C > r0.thermal.peak_dram_C);
  CHECK(r.thermal.idle_dram_C > r0.thermal.idle_dram_C);
  // Unknown keys and out-of-range numbers name their field.
  const auto with_stack = [](const std::string& stack) {
    return std::string(R"({"usage": {"counts": "x.csv"}, "thermal": {"stack": )") + stack + "}}";
  };
  CHECK(field_of([&] { (void)read_serving_scenario(with_stack(R"({"tim": {"k": 4}})")); }) == "thermal.stack.tim.k");
  CHECK(field_of([&] { (void)read_serving_scenario(with_stack(R"({"heatsink": {}})")); }) == "thermal.stack.heatsink");
  CHECK(field_of([&] { (void)read_serving_scenario(with_stack(R"({"chip": {}})")); }) == "thermal.stack.chip");
  CHECK(field_of([&] { (void)read_serving_scenario(with_stack(R"({"tim": {"conductivity_W_mK": 0}})")); }) ==
        "thermal.stack.tim.conductivity_W_mK");
  CHECK(field_of([&] { (void)read_serving_scenario(with_stack(R"({"bond": {"thickness_m": 1}})")); }) ==
        "thermal.stack.bond.thickness_m");
  CHECK(field_of([&] { (void)read_serving_scenario(with_stack(R"({"array": {"oxide_fraction": 1.5}})")); }) ==
        "thermal.stack.array.oxide_fraction");
  CHECK(field_of([&] { (void)read_serving_scenario(with_stack(R"({"memory_substrate": {"heat_capacity_J_m3K": 1e12}})")); }) ==
        "thermal.stack.memory_substrate.heat_capacity_J_m3K");
  CHECK(field_of([&] { (void)read_serving_scenario(with_stack(R"({"logic_beol": {"thickness_m": "thin"}})")); }) ==
        "thermal.stack.logic_beol.thickness_m");
  auto p = coupling_on();
  p.stack.array.tier_pitch_m = 0.0;
  CHECK(field_of([&] { validate(p); }) == "thermal.stack.array.tier_pitch_m");
}
