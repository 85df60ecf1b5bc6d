// strata/hcrmap/hcrmap_run.hpp: strata-eval hcrmap's run as a library function (Python's
// strata.hcrmap): the replay of the trace it names, its warnings, its refusals.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "strata/chiplet/substrate.hpp"
#include "strata/hcrmap/hcrmap_run.hpp"
#include "strata/hcrmap/trace_replay.hpp"
#include "strata/hcrmap/trace_replay_json.hpp"
#include "strata/json.hpp"
#include "strata/workload/presets.hpp"
#include "strata/workload/trace_io.hpp"

namespace {

const std::string hcrmap_run_trace = STRATA_TEST_DATA_DIR "/traces/dsv2lite_esft_trace_intent.csv";

strata::hcrmap_request hcrmap_run_small(const std::string& mode) {
  strata::hcrmap_request r;
  r.mode = mode;
  r.policy = "static";
  r.traces = {hcrmap_run_trace};
  r.layers = 1;
  r.max_windows = 1;
  return r;
}

std::string hcrmap_run_field(const strata::hcrmap_request& r) {
  try {
    (void)strata::run_hcrmap(strata::preset("DeepSeek-V2-Lite"), r);
  } catch (const strata::config_error& e) {
    return e.field();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("hcrmap_run: the replay of the trace it names, as replay_trace computes it") {
  const strata::model m = strata::preset("DeepSeek-V2-Lite");
  const auto req = hcrmap_run_small("prefill");
  const auto r = strata::run_hcrmap(m, req);
  strata::replay_params rp;
  rp.max_windows = 1;
  rp.experiment.max_layers = 1;
  const auto trace = strata::load_trace_csv(hcrmap_run_trace, {.experts = m.experts, .label = "intent"});
  const auto direct = strata::replay_trace(strata::substrate{}, m, trace, strata::phase::prefill, strata::parse_policies("static"), rp);
  CHECK(strata::dump_json(strata::replay_json(r), -1) == strata::dump_json(strata::replay_json(direct), -1));
  REQUIRE(r.policies.size() == 1);
  CHECK(r.windows == 1);
}

TEST_CASE("hcrmap_run: warnings for the greedy rule and the capped decode batch") {
  const strata::model m = strata::preset("DeepSeek-V2-Lite");
  std::vector<std::string> said;
  const auto sink = [&](const std::string& w) { said.push_back(w); };
  auto req = hcrmap_run_small("decode");
  req.data_hint = "no data directory found (test)";
  (void)strata::run_hcrmap(m, req, sink);  // static: no value function, no checkpoint warning
  REQUIRE(said.size() == 1);
  CHECK(said[0].rfind("note: --batch 512 (HCRMap Table 2) is more than the ", 0) == 0);
  said.clear();
  req.policy = "hcrmap";
  req.batch = 16;
  (void)strata::run_hcrmap(m, req, sink);
  REQUIRE(said.size() == 1);
  CHECK(said[0] == "warning: no controller checkpoint (hcrmap/dqn_checkpoint.json) in the no data directory found (test); "
                   "HCRMap decides with the greedy one-step rule (--checkpoint FILE names one)");
  CHECK(strata::hcrmap_uses_value("hcrmap"));
  CHECK(strata::hcrmap_uses_value("all"));
  CHECK_FALSE(strata::hcrmap_uses_value("hcrmap_greedy"));
  CHECK_FALSE(strata::hcrmap_uses_value("static"));
}

TEST_CASE("hcrmap_run: refusals name the option") {
  auto r = hcrmap_run_small("both");
  CHECK(hcrmap_run_field(r) == "mode");
  r = hcrmap_run_small("prefill");
  r.batch = 16;
  CHECK(hcrmap_run_field(r) == "batch");
  r = hcrmap_run_small("prefill");
  r.checkpoint = "x.json";
  CHECK(hcrmap_run_field(r) == "checkpoint");
  r = hcrmap_run_small("prefill");
  r.layers = 0;
  CHECK(hcrmap_run_field(r) == "layers");
  r = hcrmap_run_small("prefill");
  r.traces.clear();
  CHECK(hcrmap_run_field(r) == "trace");
  r.drift_tasks = 1;
  CHECK(hcrmap_run_field(r) == "drift_tasks");
  r = hcrmap_run_small("prefill");
  r.drift_tasks = 3;
  CHECK(hcrmap_run_field(r) == "drift_tasks");
  r = hcrmap_run_small("prefill");
  r.drift_seed = 2;
  CHECK(hcrmap_run_field(r) == "drift_seed");
  r = hcrmap_run_small("prefill");
  r.order = "random";
  CHECK(hcrmap_run_field(r) == "order");
  r = hcrmap_run_small("prefill");
  r.policy = "best";
  CHECK(hcrmap_run_field(r) == "policy");
}
