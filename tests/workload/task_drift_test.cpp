#include "strata/workload/task_drift.hpp"

#include <doctest/doctest.h>

#include <string>  // std::string
#include <vector>  // std::vector

#include "strata/workload/presets.hpp"
#include "strata/workload/trace_io.hpp"
#include "support/common.hpp"

using namespace strata;
using doctest::Approx;

namespace {
routing_trace esft_three_tasks() {
  std::vector<routing_trace> parts;
  const std::vector<std::string> names{"intent", "law", "translation"};
  for (const auto& n : names) {
    parts.push_back(load_trace_csv(strata_test::traces_dir() + "dsv2lite_esft_trace_" + n + ".csv", {.experts = 64, .label = n}));
  }
  return concatenate_traces(parts, names);
}
const task_drift_fit& esft_fit() {
  static const task_drift_fit fit = fit_task_drift(esft_three_tasks());
  return fit;
}
}  // namespace

TEST_CASE("the drift fit matches the real ESFT task switches") {
  const auto& fit = esft_fit();
  const auto& p = fit.params;
  MESSAGE("switch overlap real " << fit.target_switch_overlap << " fitted " << fit.switch_overlap << " rounds " << fit.rounds
                                 << " " << fit.reason);
  MESSAGE("skew " << p.skew << " offset " << p.offset << " topic_share " << p.topic_share << " reuse " << p.reuse);
  MESSAGE("h " << fit.shape.target_hottest_share << "/" << fit.shape.hottest_share << " H " << fit.shape.target_entropy << "/"
               << fit.shape.entropy << " o " << fit.shape.target_overlap << "/" << fit.shape.overlap);
  MESSAGE("layout sequences " << p.sequences << " lengths " << p.min_length << "-" << p.max_length);
  CHECK(fit.converged);
}

TEST_CASE("the ESFT drift constants are the fit") {
  const auto& fit = esft_fit();
  CHECK(fit.converged);
  CHECK(fit.switch_overlap == Approx(fit.target_switch_overlap).epsilon(0.1));
  CHECK(fit.target_switch_overlap == Approx(0.1322).epsilon(1e-3));  // the real switches' statistic
  const auto d = esft_task_drift();
  CHECK(d.skew == Approx(fit.params.skew).epsilon(1e-3));
  CHECK(d.offset == Approx(fit.params.offset).epsilon(1e-3));
  CHECK(d.topic_share == Approx(fit.params.topic_share).epsilon(1e-3));
  CHECK(d.reuse == Approx(fit.params.reuse).epsilon(1e-3));
  CHECK(d.topics == fit.params.topics);
  CHECK(d.sequences == fit.params.sequences);
  CHECK(d.min_length == fit.params.min_length);
  CHECK(d.max_length == fit.params.max_length);
  CHECK(d.topic_blocks);
}

TEST_CASE("the switch overlap counts shared top-n experts (hand case)") {
  // One layer of 4 experts, top-1; top_fraction 0.5: n = 2.
  routing_trace t(1, 4, 1, {"a", "b", "c"});
  const auto add = [&](std::uint16_t e, int seq, int topic) {
    const std::vector<std::uint16_t> id{e};
    t.push_back(id, token_info{seq, 0, topic});
  };
  add(0, 0, 0), add(0, 1, 0), add(1, 2, 0);  // a: {0, 1}
  add(1, 3, 1), add(2, 4, 1), add(2, 5, 1);  // b: {2, 1}, one shared with a
  add(2, 6, 2), add(1, 7, 2);                // c: a tie, the lower ids {1, 2}: both shared with b
  CHECK(topic_switch_overlap(t, 0.5) == Approx((0.5 + 1.0) / 2.0));
  // n = 1: a {0}, b {2}, c {1} (tie, the lower id): nothing shared.
  CHECK(topic_switch_overlap(t, 0.25) == 0.0);
  CHECK(topic_switch_overlap(t, 1.0) == 1.0);
}

TEST_CASE("topic blocks switch tasks in file order and keep the lengths") {
  auto p = esft_task_drift();
  p.layers = 4;
  const auto blocks = generate_trace(p);
  auto q = p;
  q.topic_blocks = false;
  const auto mixed = generate_trace(q);
  REQUIRE(blocks.tokens() == mixed.tokens());
  int last = 0, switches = 0;
  std::size_t same_layout = 0, in_block = 0, backwards = 0;
  for (std::size_t i = 0; i < blocks.tokens(); ++i) {
    const auto& info = blocks.info(i);
    same_layout += info.seq == mixed.info(i).seq && info.pos == mixed.info(i).pos ? 1 : 0;
    in_block += info.topic == info.seq * 3 / 200 ? 1 : 0;
    backwards += info.topic < last ? 1 : 0;  // never back to an earlier task
    switches += info.topic != last ? 1 : 0;
    last = info.topic;
  }
  CHECK(same_layout == blocks.tokens());
  CHECK(in_block == blocks.tokens());
  CHECK(backwards == 0);
  CHECK(switches == 2);
  // With σ = 0 every task has the same hot set; with σ = 1 about n/E of it is shared.
  p.topic_share = 0.0;
  CHECK(topic_switch_overlap(generate_trace(p)) > 0.8);
  p.topic_share = 1.0;
  CHECK(topic_switch_overlap(generate_trace(p)) < 0.25);
}

TEST_CASE("task_switch_gen_for takes a model's routing shape and the ESFT drift") {
  const auto m = preset("Mixtral-8x7B");
  const auto p = task_switch_gen_for(m, 4, 64, 8, 16, 7);
  CHECK(p.layers == 32);
  CHECK(p.experts == 8);
  CHECK(p.k == 2);
  CHECK(p.topics == 4);
  CHECK(p.topic_blocks);
  CHECK(p.topic_share == esft_task_drift().topic_share);
  CHECK(p.seed == 7u);
  const auto t = generate_trace(p);
  CHECK(t.topic_names().size() == 4);
  CHECK(t.info(t.tokens() - 1).topic == 3);
  CHECK_THROWS_AS((void)task_switch_gen_for(m, 0, 64, 8, 16), config_error);
}

TEST_CASE("bad drift inputs are config_errors naming the field") {
  const auto field_of = [](auto f) {
    try {
      f();
    } catch (const config_error& e) {
      return e.field();
    }
    return std::string("no error");
  };
  routing_trace one(1, 4, 1, {"a"});
  const std::vector<std::uint16_t> id{0};
  one.push_back(id, token_info{0, 0, 0});
  CHECK(field_of([&] { (void)topic_switch_overlap(one); }) == "topics");
  CHECK(field_of([&] { (void)topic_switch_overlap(one, 0.0); }) == "top_fraction");
  CHECK(field_of([&] { (void)fit_task_drift(one, {}, {.rounds = 0}); }) == "rounds");
  CHECK(field_of([&] { (void)fit_task_drift(one, {}, {.bisections = 0}); }) == "bisections");
  CHECK(field_of([] { (void)concatenate_traces({}); }) == "parts");
}
