#include "strata/hcrmap/task_switch.hpp"

#include <doctest/doctest.h>

#include <set>     // std::set
#include <string>  // std::string
#include <vector>  // std::vector

#include "strata/hcrmap/trace_replay.hpp"
#include "strata/hcrmap/trace_replay_json.hpp"
#include "strata/workload/presets.hpp"
#include "strata/workload/trace_io.hpp"
#include "support/field_of.hpp"

using namespace strata;
using strata_test::field_of;

namespace {
const routing_trace& esft_task(const std::string& task) {
  static const auto load = [](const std::string& t) {
    return load_trace_csv(std::string(STRATA_TEST_DATA_DIR) + "/traces/dsv2lite_esft_trace_" + t + ".csv",
                          {.experts = 64, .label = t});
  };
  static const routing_trace intent = load("intent"), law = load("law"), translation = load("translation");
  return task == "intent" ? intent : task == "law" ? law : translation;
}
// intent → law → translation, the review's task-switch workload.
const routing_trace& three_tasks() {
  static const routing_trace t =
      concatenate_traces({esft_task("intent"), esft_task("law"), esft_task("translation")}, {"intent", "law", "translation"});
  return t;
}
// The first `n` tokens of `t` (file order), with their metadata.
routing_trace first_tokens(const routing_trace& t, std::size_t n) {
  routing_trace out(t.layers(), t.experts_per_layer(), t.k(), t.topic_names());
  const auto cell = static_cast<std::size_t>(t.layers() * t.k());
  for (std::size_t i = 0; i < n && i < t.tokens(); ++i) out.push_back(t.ids().subspan(i * cell, cell), t.info(i));
  return out;
}
// The tokens of the first `n` sequences of `t` (by first appearance), in file order.
routing_trace first_sequences(const routing_trace& t, std::size_t n) {
  std::set<std::int32_t> keep;
  for (std::size_t i = 0; i < t.tokens() && (keep.size() < n || keep.count(t.info(i).seq) != 0); ++i) keep.insert(t.info(i).seq);
  routing_trace out(t.layers(), t.experts_per_layer(), t.k(), t.topic_names());
  const auto cell = static_cast<std::size_t>(t.layers() * t.k());
  for (std::size_t i = 0; i < t.tokens(); ++i) {
    if (keep.count(t.info(i).seq) != 0) out.push_back(t.ids().subspan(i * cell, cell), t.info(i));
  }
  return out;
}
}  // namespace

TEST_CASE("concatenated traces keep file order, renumber sequences apart and tag each token with its task") {
  const auto& t = three_tasks();
  const auto& a = esft_task("intent");
  const auto& b = esft_task("law");
  const auto& c = esft_task("translation");
  REQUIRE(t.tokens() == a.tokens() + b.tokens() + c.tokens());
  CHECK(t.tokens() == 24800);  // 8 222 + 8 327 + 8 251 (tests/data/traces/README.md)
  CHECK(detail::sequences_of(t).size() == 127 + 33 + 40);
  CHECK(t.topic_names() == std::vector<std::string>{"intent", "law", "translation"});
  // Token i of law is token |intent| + i, same experts, its task "law", its sequence past intent's.
  const std::size_t i = a.tokens() + 100;
  CHECK(t.info(i).topic == 1);
  CHECK(t.info(i).pos == b.info(100).pos);
  CHECK(t.info(i).seq > t.info(a.tokens() - 1).seq);
  for (int l = 0; l < t.layers(); ++l) {
    const auto x = t.experts(i, l);
    const auto y = b.experts(100, l);
    CHECK(std::vector<std::uint16_t>(x.begin(), x.end()) == std::vector<std::uint16_t>(y.begin(), y.end()));
  }
  CHECK(field_of([] { (void)concatenate_traces({}); }) == "parts");
  routing_trace narrow(26, 64, 2);  // top-2: not the same routing width
  std::vector<std::uint16_t> ids;
  for (int l = 0; l < 26; ++l) ids.insert(ids.end(), {0, 1});
  narrow.push_back(ids);
  CHECK(field_of([&] { (void)concatenate_traces({a, narrow}); }) == "parts[1]");
}

TEST_CASE("file-order windows: prefill takes consecutive tokens, decode batches sequences continuously in file order") {
  const auto& t = three_tasks();
  const substrate s;
  const int C = s.chiplets();
  SUBCASE("prefill: whole windows of 2048 consecutive tokens; the tail is stated") {
    const auto w = windows_in_file_order(t, phase::prefill, C, 2048, 1024, 16);
    CHECK(w.windows.size() == 24800 / 2048);
    CHECK(w.tokens == 12 * 2048);
    CHECK(w.note.find("224 of the trace's 24800 tokens are not served") != std::string::npos);
    // Windows 0-3 are intent (8 222 tokens), window 4 straddles into law, the last is translation.
    CHECK(w.topic.front() == 0);
    CHECK(w.topic[5] == 1);
    CHECK(w.topic.back() == 2);
    CHECK(windows_in_file_order(t, phase::prefill, C, 2048, 3, 16).windows.size() == 3);
  }
  SUBCASE("decode: B distinct sequences per step, entering in file order") {
    const int B = 32;
    const auto w = windows_in_file_order(t, phase::decode, C, B, 1024, 16);
    // Every token served once at most: the windows hold fewer tokens than the trace.
    CHECK(w.tokens == w.windows.size() * B);
    CHECK(w.tokens <= t.tokens());
    CHECK(w.topic.front() == 0);
    CHECK(w.topic.back() == 2);
    // The task of the windows never goes back: intent, then law, then translation.
    for (std::size_t i = 1; i < w.topic.size(); ++i) CHECK(w.topic[i] >= w.topic[i - 1]);
    // Each window of the first step routes B tokens on every layer: B·k routed token slots.
    int routed = 0;
    for (const auto& g : w.windows.front().front()) routed += g.tokens;
    CHECK(routed == B * t.k());
    CHECK(field_of([&] { (void)windows_in_file_order(t, phase::decode, C, 512, 1024, 16); }) == "batch");
  }
}

TEST_CASE("a task-switch window's results never depend on later windows (truncated traces give the same prefix, bit for bit)") {
  const substrate s;
  const auto m = preset("DeepSeek-V2-Lite");
  experiment_params xp;
  xp.max_layers = 4;
  const std::vector<policy_kind> pols{policy_kind::moentwine, policy_kind::hcrmap, policy_kind::hcrmap_frozen};
  SUBCASE("prefill: the trace cut after 6 windows") {
    const auto full = run_task_switch(s, m, three_tasks(), phase::prefill, pols, xp);
    const auto cut = run_task_switch(s, m, first_tokens(three_tasks(), 6 * 2048 + 100), phase::prefill, pols, xp);
    REQUIRE(full.experiment.policies.size() == 4);
    REQUIRE(cut.window_task.size() == 5);  // one warm-up window, five served
    REQUIRE(full.window_task.size() == 11);
    for (std::size_t p = 0; p < full.experiment.policies.size(); ++p) {
      const auto& a = full.experiment.policies[p].e2e_s;
      const auto& b = cut.experiment.policies[p].e2e_s;
      CAPTURE(to_string(full.experiment.policies[p].policy));
      REQUIRE(b.size() == 5);
      for (std::size_t w = 0; w < b.size(); ++w) CHECK(a[w] == b[w]);
    }
  }
  SUBCASE("decode: the trace cut after its first 40 sequences") {
    xp.batch = 16;
    const auto cut = run_task_switch(s, m, first_sequences(three_tasks(), 40), phase::decode, pols, xp);
    const std::size_t k = cut.window_task.size();
    REQUIRE(k > 100);  // 16 sequences of 47-88 tokens, 24 more entering as slots free up
    const auto full = run_task_switch(s, m, three_tasks(), phase::decode, pols, xp, static_cast<int>(k) + 40);
    REQUIRE(full.window_task.size() > k);
    for (std::size_t p = 0; p < full.experiment.policies.size(); ++p) {
      const auto& a = full.experiment.policies[p].e2e_s;
      const auto& b = cut.experiment.policies[p].e2e_s;
      CAPTURE(to_string(full.experiment.policies[p].policy));
      REQUIRE(b.size() == k);
      for (std::size_t w = 0; w < k; ++w) CHECK(a[w] == b[w]);
    }
  }
}

TEST_CASE("a stationary trace served in file order through the split protocol's windows gives the split protocol's result exactly") {
  // The split protocol's windows (profile window 0, then evaluation windows 0 … W−1, prefill) laid
  // out one after the other: file order serves exactly those windows, so every number must agree.
  const substrate s;
  const auto m = preset("DeepSeek-V2-Lite");
  const auto& t = esft_task("intent");
  const auto [prof, eval] = split_by_sequence(t);
  const int W = static_cast<int>(eval.tokens() / 2048);
  REQUIRE(W >= 1);
  routing_trace laid(t.layers(), t.experts_per_layer(), t.k(), t.topic_names());
  const auto cell = static_cast<std::size_t>(t.layers() * t.k());
  for (std::size_t i = 0; i < 2048; ++i) laid.push_back(prof.ids().subspan(i * cell, cell), prof.info(i));
  for (std::size_t i = 0; i < static_cast<std::size_t>(W) * 2048; ++i) laid.push_back(eval.ids().subspan(i * cell, cell), eval.info(i));
  experiment_params xp;
  xp.max_layers = 4;
  xp.windows = W;
  const std::vector<policy_kind> pols{policy_kind::fixed_replication, policy_kind::moentwine, policy_kind::pimoe,
                                      policy_kind::hcrmap};
  const auto split = run_experiment(s, m, t, phase::prefill, pols, xp);
  const auto file = run_task_switch(s, m, laid, phase::prefill, pols, xp);
  REQUIRE(file.experiment.policies.size() == split.policies.size());
  CHECK(file.experiment.non_routed_s == split.non_routed_s);
  for (std::size_t p = 0; p < split.policies.size(); ++p) {
    const auto& a = split.policies[p];
    const auto& b = file.experiment.policies[p];
    CAPTURE(to_string(a.policy));
    CHECK(a.e2e_s == b.e2e_s);
    CHECK(a.energy_j == b.energy_j);
    CHECK(a.edits == b.edits);
    CHECK(a.controller_edits.total() == b.controller_edits.total());
    CHECK(a.dram_stream_bytes == b.dram_stream_bytes);
  }
}

TEST_CASE("on intent → law → translation HCRMap's controller edits the layout while serving; frozen, it does not") {
  const substrate s;
  const auto m = preset("DeepSeek-V2-Lite");
  const auto r = run_task_switch(s, m, three_tasks(), phase::prefill, {policy_kind::hcrmap, policy_kind::hcrmap_frozen});
  const auto& live = r.experiment.of(policy_kind::hcrmap);
  const auto& frozen = r.experiment.of(policy_kind::hcrmap_frozen);
  // The greedy rule (no value function given): promotes as the hot set moves, copies land.
  CHECK(live.controller_edits.total() > 0);
  CHECK(live.controller_edits.promotes > 0);
  CHECK(live.controller_edits.published > 0);
  CHECK(live.edits == live.controller_edits.total());
  CHECK(frozen.controller_edits.total() == 0);
  CHECK(frozen.controller_edits.published == 0);
  // The same installed layout: the first served window is the same under both.
  REQUIRE(live.e2e_s.size() == 11);
  CHECK(live.e2e_s.front() == frozen.e2e_s.front());
  CHECK(r.window_task.front() == "intent");
  CHECK(r.window_task.back() == "translation");
  CHECK(field_of([&] { (void)run_task_switch(s, m, first_tokens(three_tasks(), 3000), phase::prefill, {}); }) == "trace");
  CHECK(field_of([&] { (void)run_task_switch(s, m, three_tasks(), phase::prefill, {}, {}, 0); }) == "max_windows");
}

TEST_CASE("the replay serves in file order on request, and names the order in its output; a bad order is refused naming it") {
  CHECK(parse_order("split") == replay_order::split);
  CHECK(parse_order("file") == replay_order::file);
  CHECK(field_of([] { (void)parse_order("random"); }) == "order");
  CHECK(parse_policies("hcrmap_frozen") == std::vector<policy_kind>{policy_kind::hcrmap_frozen});
  const substrate s;
  const auto m = preset("DeepSeek-V2-Lite");
  replay_params rp;
  rp.order = replay_order::file;
  rp.max_windows = 3;
  rp.experiment.max_layers = 2;
  const auto r = replay_trace(s, m, three_tasks(), phase::prefill, {policy_kind::hcrmap}, rp);
  CHECK(r.windows == 3);
  CHECK(r.profile_tokens == 2048);
  CHECK(r.evaluation_tokens == 3 * 2048);
  const auto j = replay_json(r);
  CHECK(j["order"] == "file");
  CHECK(j["window_task"].size() == 3);
  CHECK(j["policies"][1]["e2e_s"].size() == 3);
  CHECK(j["policies"][1]["controller_edits"]["total"] == r.policies[1].controller_edits.total());
}

TEST_CASE("decoding law in file order, the greedy controller moves replicas (promotes and demotes that move count as edits and moves); no expert is ever left without a published replica") {
  const substrate s;
  const auto m = preset("DeepSeek-V2-Lite");
  experiment_params xp;
  xp.batch = 32;
  xp.max_layers = 6;
  const auto r = run_task_switch(s, m, esft_task("law"), phase::decode, {policy_kind::hcrmap_greedy}, xp, 120);
  const auto& p = r.experiment.of(policy_kind::hcrmap_greedy);
  const auto& c = p.controller_edits;
  CAPTURE(c.promotes);
  CAPTURE(c.demotes);
  CAPTURE(c.evictions);
  CHECK(c.moves > 0);
  // A move is a promote or a demote (and counts among the edits once).
  CHECK(c.moves <= c.promotes + c.demotes);
  CHECK(p.edits == c.total());
  CHECK(c.published > 0);
  // Eq. 1–4 and 21–24 hold in every window: in particular |R_{l,e}| ≥ 1 for every expert (Eq. 2),
  // so no move ever left an expert without a published replica.
  CHECK(p.violations == 0);
  CHECK(p.replicas >= static_cast<int>(r.experiment.evaluated_layers.size()) * m.experts);
}
