#include "strata/hcrmap/experiment.hpp"

#include <doctest/doctest.h>

#include <set>     // std::set
#include <string>  // std::string

#include "strata/workload/presets.hpp"
#include "strata/workload/trace_gen.hpp"
#include "support/common.hpp"
#include "support/field_of.hpp"
#include "support/shaped_trace.hpp"

using namespace strata;
using strata_test::field_of;
using strata_test::message_of;

namespace {
/// A DeepSeek-V2-Lite trace of 40 sequences of 4-6 tokens: 20 per split.
const routing_trace& forty_sequences() {
  static const routing_trace t = strata_test::shaped_trace(preset("DeepSeek-V2-Lite"), 40, 4, 6);
  return t;
}
}  // namespace

TEST_CASE("a decode window of batch B is B distinct sequences, or refused naming --trace-reuse") {
  const auto& s = strata_test::package();
  const auto split = split_by_sequence(forty_sequences()).second;
  REQUIRE(detail::sequences_of(split).size() == 20);
  std::string note;
  bool reused = false;
  // B = 20: one token of every sequence, 20 x top-6 routes per layer.
  const auto g = detail::window_groups(split, phase::decode, s.chiplets(), 20, 0, 1 << 20, false, note, &reused);
  int routes = 0;
  for (const auto& grp : g.front()) routes += grp.tokens;
  CHECK(routes == 20 * 6);
  CHECK_FALSE(reused);
  CHECK(note.empty());
  // B = 21 from 20 sequences: refused, the message names the opt-in.
  const auto refuse = [&] { (void)detail::window_groups(split, phase::decode, s.chiplets(), 21, 0, 1 << 20, false, note, &reused); };
  CHECK(field_of(refuse) == "batch");
  const auto msg = message_of(refuse);
  CHECK(msg.find("--trace-reuse") != std::string::npos);
  CHECK(msg.find("trace_reuse") != std::string::npos);
  CHECK(msg.find("20 sequences") != std::string::npos);
  // With the opt-in: 21 slots, one sequence twice, stated.
  const auto r = detail::window_groups(split, phase::decode, s.chiplets(), 21, 0, 1 << 20, true, note, &reused);
  routes = 0;
  for (const auto& grp : r.front()) routes += grp.tokens;
  CHECK(routes == 21 * 6);
  CHECK(reused);
  CHECK(note.find("trace_reuse") != std::string::npos);
  // Prefill windows are consecutive tokens: the rule does not apply.
  CHECK_NOTHROW((void)detail::window_groups(split, phase::prefill, s.chiplets(), 2048, 0, 1 << 20, false, note));
}

TEST_CASE("run_experiment: the decode batch and context are parameters; fewer sequences than B is refused unless trace_reuse") {
  const auto& s = strata_test::package();
  const auto m = preset("DeepSeek-V2-Lite");
  experiment_params xp;
  xp.windows = 1;
  xp.max_layers = 1;
  const std::vector<policy_kind> only{policy_kind::single_copy_static};
  // Table 2's B = 512 from a trace of 40 sequences: refused.
  CHECK(field_of([&] { (void)run_experiment(s, m, forty_sequences(), phase::decode, only, xp); }) == "batch");
  CHECK(message_of([&] { (void)run_experiment(s, m, forty_sequences(), phase::decode, only, xp); }).find("--trace-reuse") !=
        std::string::npos);
  // B = 16 <= 20 sequences per split: served, stated.
  xp.batch = 16;
  xp.context = 1024;
  const auto a = run_experiment(s, m, forty_sequences(), phase::decode, only, xp);
  CHECK(a.window_tokens == 16);
  CHECK(a.context == 1024);
  CHECK_FALSE(a.sequences_reused);
  CHECK(a.note.find("trace_reuse") == std::string::npos);
  // B = 512 with the opt-in: served from 20 sequences, stated in the result.
  xp.batch = 512;
  xp.trace_reuse = true;
  const auto b = run_experiment(s, m, forty_sequences(), phase::decode, only, xp);
  CHECK(b.window_tokens == 512);
  CHECK(b.sequences_reused);
  CHECK(b.note.find("trace_reuse") != std::string::npos);
  // Bad batches name their field.
  CHECK(field_of([] { validate(experiment_params{.batch = 0}); }) == "batch");
}
