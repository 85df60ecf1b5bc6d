#include "strata/hcrmap/experiment.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "strata/core/json.hpp"
#include "strata/hcrmap/controller_training.hpp"
#include "strata/hcrmap/dqn_json.hpp"
#include "strata/hcrmap/dqn_scorer.hpp"
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

TEST_CASE("seeded offline training of the controller's value function is reproducible, on the profile split only") {
  const substrate s;
  const auto m = preset("DeepSeek-V2-Lite");
  controller_training_params p;
  p.experiment.max_layers = 2;
  p.windows = 3;
  p.episodes = 6;
  p.dqn.hidden = {16};
  p.dqn.learning_starts = 4;
  p.dqn.train_period = 1;
  p.dqn.batch_size = 8;
  p.dqn.epsilon_decay_steps = 8;
  const auto run = [&](std::uint64_t seed, dqn_train_result* log = nullptr) {
    auto q = p;
    q.dqn.seed = seed;
    return save_dqn_checkpoint(train_controller(s, {{m, dsv2lite_trace(), phase::decode}}, q, log), -1);
  };
  dqn_train_result log;
  const auto a = run(11, &log);
  CHECK(log.episodes == 6);
  CHECK(log.updates > 0);  // the network was trained
  for (double r : log.returns) CHECK(std::isfinite(r));
  CHECK(run(11) == a);  // the same seed: the same checkpoint, byte for byte
  CHECK(run(12) != a);
  // The environment reads the profile split only: a trace whose odd-position sequences differ
  // trains to the same checkpoint.
  const auto [prof, eval] = split_by_sequence(dsv2lite_trace());
  routing_trace other(prof.layers(), prof.experts_per_layer(), prof.k(), prof.topic_names());
  const auto seqs = detail::sequences_of(dsv2lite_trace());
  for (std::size_t q = 0; q < seqs.size(); ++q) {
    // Odd-position sequences replaced by copies of sequence 0 (same positions, other routing).
    const auto& src = q % 2 == 0 ? seqs[q] : seqs[0];
    for (std::size_t j = 0; j < seqs[q].size(); ++j) {
      const std::size_t from = src[std::min(j, src.size() - 1)];
      auto info = dsv2lite_trace().info(seqs[q][j]);
      other.push_back(std::span<const std::uint16_t>(dsv2lite_trace().ids().data() +
                                                         from * static_cast<std::size_t>(prof.layers() * prof.k()),
                                                     static_cast<std::size_t>(prof.layers() * prof.k())),
                      info);
    }
  }
  auto q = p;
  q.dqn.seed = 11;
  CHECK(save_dqn_checkpoint(train_controller(s, {{m, other, phase::decode}}, q), -1) == a);
  CHECK(field_of([&] { (void)train_controller(s, {}, p); }) == "scenes");
}

TEST_CASE("HCRMap with the DQN value serves legally; the greedy ablation is the fallback's numbers") {
  const substrate s;
  const auto m = preset("DeepSeek-V2-Lite");
  experiment_params xp;
  xp.max_layers = 2;
  xp.windows = 2;
  std::ifstream in(std::string(STRATA_TEST_DATA_DIR) + "/hcrmap/dqn_checkpoint.json");
  std::ostringstream text;
  text << in.rdbuf();
  const dqn_scorer q(parse_dqn_checkpoint(text.str(), "dqn_checkpoint.json"));
  const auto with = run_experiment(s, m, dsv2lite_trace(), phase::decode, {policy_kind::hcrmap, policy_kind::hcrmap_greedy}, xp, {}, q);
  const auto greedy = run_experiment(s, m, dsv2lite_trace(), phase::decode, {policy_kind::hcrmap}, xp);
  for (const auto& p : with.policies) CHECK(p.violations == 0);
  // hcrmap_greedy decides with the greedy rule whatever the value given: HCRMap's fallback numbers.
  CHECK(with.of(policy_kind::hcrmap_greedy).latency_s == greedy.of(policy_kind::hcrmap).latency_s);
  CHECK(with.of(policy_kind::hcrmap_greedy).e2e_s == greedy.of(policy_kind::hcrmap).e2e_s);
}
