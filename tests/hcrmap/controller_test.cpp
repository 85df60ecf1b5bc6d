#include "strata/hcrmap/reward.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "strata/core/json.hpp"
#include "strata/hcrmap/dqn_json.hpp"
#include "strata/hcrmap/dqn_scorer.hpp"
#include "support/field_of.hpp"
#include "support/common.hpp"

using namespace strata;
using doctest::Approx;
using strata_test::field_of;

namespace {
using strata_test::sliced_package;
moe_layer_shape shape() {
  moe_layer_shape m;
  m.weight_bytes = units::MiB(4.0);
  m.flops_per_token = units::flop(6.0 * 2048 * 1408);
  m.token_bytes = units::B(4096.0);
  m.gate_flops_per_token = units::flop(2.0 * 2048 * 8);
  m.combine_flops_per_token = units::flop(2.0 * 2048);
  m.top_k = 1;
  return m;
}
// 1 layer, 8 experts, one copy each in HBM, expert 0 hot: 8 sources × 96 tokens, others 4.
struct scene {
  residency res{sliced_package(), 1, 8, units::MiB(4.0), {.budget_factor = 2.0}};
  std::vector<token_group> groups;
  scene() {
    for (int e = 0; e < 8; ++e) res.place(0, e, e, sliced_package().banks_of(tier_kind::hbm, e).front(), 2);
    for (int c = 0; c < 8; ++c) groups.push_back({0, 0, c, c, 96});
    for (int e = 1; e < 8; ++e) groups.push_back({0, e, e, e, 4});
    groups = split_blocks(groups, 16);
  }
  directory_layer_eval eval() const {
    fast_token_mapper m(sliced_package(), shape(), res);
    return evaluate_directory_layer(sliced_package(), shape(), res, groups, m.map(groups));
  }
};
bool published_target(const residency& r, int entry) {
  return r.entries()[static_cast<std::size_t>(entry)].state == replica_state::published;
}
}  // namespace

TEST_CASE("Eq. 33 by hand: relative latency gain minus exposed migration and churn") {
  // (10 − 8)/10 − 1·1/10 − 0.01·1 = 0.09.
  CHECK(counterfactual_reward(units::ms(10.0), units::ms(8.0), units::ms(1.0), 1.0) == Approx(0.09));
  CHECK(counterfactual_reward(units::ms(10.0), units::ms(10.0), units::ms(0.0), 0.0) == Approx(0.0));
  CHECK(field_of([] { (void)counterfactual_reward(units::ms(0.0), units::ms(1.0), units::ms(0.0), 0.0); }) == "t_cf");
  CHECK(field_of([] { (void)counterfactual_reward(units::ms(1.0), units::ms(1.0), units::ms(-1.0), 0.0); }) ==
        "exposed_migration");
}

TEST_CASE("the hot expert is promoted, the copy is pending until it lands, and the mask stays legal") {
  scene sc;
  residency_controller ctl(sliced_package(), shape(), sc.res);
  const auto ev = sc.eval();
  ctl.observe({0}, {sc.groups}, {ev}, 1e-3);
  const auto acts = ctl.legal_actions();
  REQUIRE(acts.front().action.kind == residency_action_kind::no_op);
  int promotes = 0;
  for (const auto& a : acts) {
    CHECK(a.features.size() == feature_count());
    double onehot = 0.0;
    for (std::size_t i = feature::action_no_op; i <= feature::action_evict; ++i) onehot += a.features[i];
    CHECK(onehot == 1.0);
    if (a.action.kind == residency_action_kind::promote) {
      ++promotes;
      // Eq. 28–30: the target is a placement the residency accepts.
      CHECK(sc.res.check_add(a.action.layer, a.action.expert, a.action.target.chiplet, a.action.target.bank,
                             a.action.target.span)
                .empty());
      CHECK(a.features[feature::benefit] >= 0.0);
    }
    // No replica is old enough to be evicted or demoted (A_min = 2).
    CHECK(a.action.kind != residency_action_kind::evict);
    CHECK(a.action.kind != residency_action_kind::demote);
  }
  REQUIRE(promotes > 0);
  const auto a = ctl.decide();
  REQUIRE(a.kind == residency_action_kind::promote);
  CHECK(a.expert == 0);  // the hot expert
  REQUIRE(ctl.pending().size() == 1);
  const int copy = ctl.pending().front().entry;
  CHECK_FALSE(published_target(sc.res, copy));
  CHECK(sc.res.legal(0, 0).size() == 1);  // not a legal target yet (§6.8)
  // The pending region holds one expert object: no second copy while one is in flight.
  for (const auto& b : ctl.legal_actions()) CHECK(b.action.kind != residency_action_kind::promote);
  CHECK(ctl.migrations(1).size() == 1);
  // 4 MiB over the narrowest of the banks and links of the path: lands well within 1 s.
  CHECK(ctl.advance(1.0) == 1);
  CHECK(published_target(sc.res, copy));
  CHECK(sc.res.legal(0, 0).size() == 2);
  CHECK(sc.res.violations().empty());
  ctl.collect();
}

TEST_CASE("installing a layout before serving: the same candidates, with no Eq. 40 exposure") {
  scene sc;
  residency_controller serving(sliced_package(), shape(), sc.res);
  residency_controller installing(sliced_package(), shape(), sc.res);
  installing.set_installing(true);
  const auto ev = sc.eval();
  serving.observe({0}, {sc.groups}, {ev}, 1e-3);
  installing.observe({0}, {sc.groups}, {ev}, 1e-3);
  const auto a = serving.legal_actions();
  const auto b = installing.legal_actions();
  // No copy of this scene is infeasible under Eq. 40, so the candidate sets agree one for one.
  REQUIRE(a.size() == b.size());
  int promotes = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].action.kind == b[i].action.kind);
    CHECK(a[i].action.expert == b[i].action.expert);
    if (b[i].action.kind != residency_action_kind::promote) continue;
    ++promotes;
    CHECK(b[i].features[feature::exposure] == 0.0);
    CHECK(a[i].features[feature::exposure] > 0.0);  // a 4 MiB copy while the window runs is exposed
    CHECK(b[i].features[feature::benefit] == Approx(a[i].features[feature::benefit]));
  }
  CHECK(promotes > 0);
  installing.set_installing(false);
  const auto c = installing.legal_actions();
  for (std::size_t i = 0; i < c.size(); ++i) {
    if (c[i].action.kind == residency_action_kind::promote) CHECK(c[i].features[feature::exposure] > 0.0);
  }
}

TEST_CASE("a stale extra replica may be evicted only after A_min windows, and the last replica never") {
  scene sc;
  residency_controller ctl(sliced_package(), shape(), sc.res, {.min_age = 2});
  // An extra copy of expert 3 (cold): it is stale (no tokens go to a replica nobody maps to).
  const int extra = sc.res.place(0, 3, 12, sliced_package().banks_of(tier_kind::hbm, 12).front(), 2);
  const auto run = [&] {
    const auto ev = sc.eval();
    ctl.observe({0}, {sc.groups}, {ev}, 1e-3);
    return ctl.legal_actions();
  };
  auto count = [&](const std::vector<scored_action>& acts, residency_action_kind k) {
    int n = 0;
    for (const auto& a : acts) {
      if (a.action.kind != k) continue;
      ++n;
      CHECK(sc.res.legal(a.action.layer, a.action.expert).size() >= 2);  // never the last replica
      CHECK(sc.res.entries()[static_cast<std::size_t>(a.action.entry)].age >= 2);
    }
    return n;
  };
  CHECK(count(run(), residency_action_kind::evict) == 0);  // age 0
  ctl.collect();  // ages every replica by one window
  CHECK(count(run(), residency_action_kind::evict) == 0);  // age 1
  ctl.collect();
  const auto acts = run();
  REQUIRE(count(acts, residency_action_kind::evict) >= 1);
  for (const auto& a : acts) {
    if (a.action.kind == residency_action_kind::evict) CHECK(a.action.entry == extra);
  }
  // U_max = 0: nothing but no-op is legal.
  residency_controller frozen(sliced_package(), shape(), sc.res, {.u_max = 0});
  const auto ev = sc.eval();
  frozen.observe({0}, {sc.groups}, {ev}, 1e-3);
  CHECK(frozen.legal_actions().size() == 1);
}

TEST_CASE("the scorer is pluggable: a scorer that prefers no-op keeps the directory unchanged") {
  scene sc;
  residency_controller ctl(sliced_package(), shape(), sc.res);
  const auto ev = sc.eval();
  ctl.observe({0}, {sc.groups}, {ev}, 1e-3);
  const auto before = sc.res.entries().size();
  const auto a = ctl.decide([](std::span<const double> f) { return f[feature::action_no_op]; });
  CHECK(a.kind == residency_action_kind::no_op);
  CHECK(sc.res.entries().size() == before);
  // The greedy scorer reads benefit − exposure.
  std::array<double, controller_feature_count> f{};
  f[feature::benefit] = 0.3;
  f[feature::exposure] = 0.1;
  CHECK(greedy_score(f) == Approx(0.2));
  CHECK(field_of([] { (void)greedy_score(std::vector<double>(3, 0.0)); }) == "features");
}

TEST_CASE("the same-window reward (Eq. 31-33) of no-op is zero and of a promote is finite") {
  scene sc;
  residency_controller ctl(sliced_package(), shape(), sc.res);
  const auto ev = sc.eval();
  ctl.observe({0}, {sc.groups}, {ev}, 1e-3);
  CHECK(same_window_reward(sliced_package(), shape(), sc.res, {0}, {sc.groups}, {}) == Approx(0.0));
  for (const auto& a : ctl.legal_actions()) {
    if (a.action.kind != residency_action_kind::promote) continue;
    const double r = same_window_reward(sliced_package(), shape(), sc.res, {0}, {sc.groups}, a.action);
    CHECK(std::isfinite(r));
    CHECK(r < 1.0);
    break;
  }
  CHECK(sc.res.entries().size() == 8);  // evaluated on a copy
}

TEST_CASE("controller_params: bad knobs name their field; JSON round trip") {
  CHECK(field_of([] { validate(controller_params{.ewma_alpha = 1.5}); }) == "ewma_alpha");
  CHECK(field_of([] { validate(controller_params{.min_age = -1}); }) == "min_age");
  CHECK(field_of([] { validate(controller_params{.eta_mig = 2.0}); }) == "eta_mig");
  const controller_params p{.ewma_alpha = 0.25, .u_max = 1, .min_age = 3};
  const json j = p;
  const auto back = j.get<controller_params>();
  CHECK(back.ewma_alpha == 0.25);
  CHECK(back.min_age == 3);
}

namespace {
// A scene with stale extra copies too, so that evict and demote are candidates once they are old.
struct busy_scene : scene {
  busy_scene() {
    res.place(0, 3, 12, sliced_package().banks_of(tier_kind::hbm, 12).front(), 2);
    res.place(0, 5, 10, sliced_package().banks_of(tier_kind::hbm, 10).front(), 2);
    res.place(0, 6, 9, sliced_package().banks_of(tier_kind::hbm, 9).front(), 2);
  }
};
bool same(const residency_action& a, const residency_action& b) {
  return a.kind == b.kind && a.layer == b.layer && a.expert == b.expert && a.entry == b.entry &&
         a.target.chiplet == b.target.chiplet && a.target.bank == b.target.bank && a.target.span == b.target.span &&
         a.target.tier == b.target.tier;
}
dqn_agent checkpoint_agent() {
  std::ifstream in(std::string(STRATA_TEST_DATA_DIR) + "/hcrmap/dqn_checkpoint.json");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_dqn_checkpoint(text.str(), "dqn_checkpoint.json");
}
}  // namespace

TEST_CASE("the DQN-scored controller never takes an illegal action, evicts no last replica, edits at most U_max per decision, respects A_min") {
  // Untrained networks of several seeds decide arbitrarily among the candidates (a stronger test of
  // the mask than a trained one); the repository's checkpoint decides too.
  std::vector<dqn_scorer> scorers{dqn_scorer(checkpoint_agent())};
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    dqn_params p;
    p.hidden = {16};
    p.seed = seed;
    scorers.emplace_back(dqn_agent(static_cast<int>(controller_feature_count), p));
  }
  std::map<residency_action_kind, int> taken;
  for (const auto& q : scorers) {
    busy_scene sc;
    const controller_params cp{.u_max = 1, .min_age = 2};
    residency_controller ctl(sliced_package(), shape(), sc.res, cp);
    for (int w = 0; w < 6; ++w) {
      const auto ev = sc.eval();
      ctl.observe({0}, {sc.groups}, {ev}, 1e-3);
      for (int d = 0; d < 4; ++d) {
        const auto acts = ctl.legal_actions();
        const auto entries = sc.res.entries();
        const auto a = ctl.decide(q);
        ++taken[a.kind];
        // The choice is one of the legal candidates offered (Eq. 28-30, 40).
        bool offered = false;
        for (const auto& c : acts) offered = offered || same(c.action, a);
        CHECK(offered);
        const bool move = a.kind == residency_action_kind::demote || (a.kind == residency_action_kind::promote && a.entry >= 0);
        if (a.kind == residency_action_kind::evict || move) {
          int published = 0;
          for (const auto& e : entries) {
            published += e.layer == a.layer && e.expert == a.expert && e.state == replica_state::published ? 1 : 0;
          }
          // Never the last replica for an evict; a move may take the last, which stays published.
          CHECK(published >= (move ? 1 : 2));
          if (move) CHECK(sc.res.published(a.entry));
          CHECK(entries[static_cast<std::size_t>(a.entry)].age >= static_cast<std::uint32_t>(cp.min_age));
        }
        // U_max = 1: at most one new entry and at most one replica retired by one decision.
        CHECK(sc.res.entries().size() <= entries.size() + 1);
        int retired = 0;
        for (std::size_t i = 0; i < entries.size(); ++i) {
          retired += entries[i].state != replica_state::retiring && sc.res.entries()[i].state == replica_state::retiring ? 1 : 0;
        }
        CHECK(retired <= 1);
        CHECK(static_cast<int>(ctl.pending().size()) <= cp.pending_copies);
        for (int e = 0; e < 8; ++e) CHECK(!sc.res.legal(0, e).empty());
        CHECK(sc.res.violations().empty());
      }
      ctl.advance(1.0);
      ctl.collect();
    }
  }
  // Not vacuous: the arbitrary networks promoted and evicted.
  CHECK(taken[residency_action_kind::promote] > 0);
  CHECK(taken[residency_action_kind::evict] + taken[residency_action_kind::demote] > 0);
}

TEST_CASE("a saved and reloaded checkpoint reproduces the agent's values and decisions") {
  dqn_params p;
  p.hidden = {16, 8};
  p.seed = 7;
  const dqn_agent agent(static_cast<int>(controller_feature_count), p);
  const dqn_scorer before(agent), after(parse_dqn_checkpoint(save_dqn_checkpoint(agent), "saved"));
  busy_scene a, b;
  residency_controller ca(sliced_package(), shape(), a.res), cb(sliced_package(), shape(), b.res);
  for (int w = 0; w < 4; ++w) {
    const auto ea = a.eval(), eb = b.eval();
    ca.observe({0}, {a.groups}, {ea}, 1e-3);
    cb.observe({0}, {b.groups}, {eb}, 1e-3);
    for (const auto& c : ca.legal_actions()) CHECK(before(c.features) == after(c.features));  // bit-identical
    CHECK(same(ca.decide(before), cb.decide(after)));
    ca.advance(1.0), cb.advance(1.0);
    ca.collect(), cb.collect();
  }
  CHECK(a.res.entries().size() == b.res.entries().size());
  // The repository's checkpoint is a controller value function.
  CHECK(checkpoint_agent().features() == static_cast<int>(controller_feature_count));
  CHECK(field_of([] { (void)dqn_scorer(dqn_agent(5)); }) == "features");
  CHECK(field_of([&] { (void)before(std::vector<double>(3, 0.0)); }) == "features");
}

namespace {
/// Published replicas of (layer, expert): the legal targets of the token mapper.
int published_of(const residency& r, int layer, int expert) { return static_cast<int>(r.legal(layer, expert).size()); }
}  // namespace

TEST_CASE("a cold last replica may be demoted (a move) but never evicted; one replica stays published throughout") {
  scene sc;
  residency_controller ctl(sliced_package(), shape(), sc.res, {.min_age = 2});
  const auto observe = [&] {
    const auto ev = sc.eval();
    ctl.observe({0}, {sc.groups}, {ev}, 1e-3);
    return ev;
  };
  (void)observe();
  ctl.collect();
  (void)observe();
  ctl.collect();  // every replica is 2 windows old now
  const auto ev = observe();
  const auto acts = ctl.legal_actions();
  const residency_action* demote = nullptr;
  for (const auto& a : acts) {
    // Every expert has one replica: the mask offers no evict (Eq. 28, §6.3) ...
    CHECK(a.action.kind != residency_action_kind::evict);
    // ... but a demote of a cold expert's only replica, HBM -> DRAM (§6.3: demote moves).
    if (a.action.kind == residency_action_kind::demote && demote == nullptr) demote = &a.action;
  }
  REQUIRE(demote != nullptr);
  CHECK(demote->expert != 0);  // cold: not the hot expert
  CHECK(demote->target.tier == tier_kind::dram);
  CHECK(published_of(sc.res, 0, demote->expert) == 1);
  // The last replica can be retired by no one directly (the residency's own guard).
  CHECK(field_of([&] { sc.res.retire(demote->entry); }) == "entry");

  const int e = demote->expert, source = demote->entry;
  const auto& sb = sc.res.entries()[static_cast<std::size_t>(source)];
  const int source_bank = sb.bank;
  const double source_used = sc.res.used(source_bank);
  ctl.apply(*demote);
  // In flight: the copy is pending, the source still the one published replica, its room held.
  REQUIRE(ctl.pending().size() == 1);
  const int copy = ctl.pending().front().entry;
  CHECK(ctl.pending().front().replaces == source);
  CHECK_FALSE(sc.res.published(copy));
  CHECK(published_of(sc.res, 0, e) == 1);
  CHECK(sc.res.published(source));
  CHECK(sc.res.used(source_bank) == source_used);
  // The copy's traffic is charged as a migration while in flight (§6.8).
  const auto mig = ctl.migrations(1);
  REQUIRE(mig.size() == 1);
  CHECK(mig.front().bytes.si() == Approx(sc.res.expert_bytes().si()));
  fast_token_mapper m(sliced_package(), shape(), sc.res);
  const auto charged = evaluate_directory_layer(sliced_package(), shape(), sc.res, sc.groups, m.map(sc.groups), {}, mig);
  double quiet = 0.0, loud = 0.0;
  for (double b : ev.result.bank_bytes) quiet += b;
  for (double b : charged.result.bank_bytes) loud += b;
  CHECK(loud > quiet + 0.5 * sc.res.expert_bytes().si());
  // A window too short for the whole copy lands some chunks: still pending, source still published.
  CHECK(ctl.advance(1e-9) == 0);
  CHECK_FALSE(sc.res.published(copy));
  CHECK(published_of(sc.res, 0, e) == 1);
  // Landed: the copy is published and the source retires — still exactly one published replica.
  sc.res.add_in_flight(source, 1);  // a group of the old version still running on the source
  CHECK(ctl.advance(1.0) == 1);
  CHECK(sc.res.published(copy));
  CHECK(published_of(sc.res, 0, e) == 1);
  CHECK(sc.res.legal(0, e).front() == copy);
  CHECK(sc.res.entries()[static_cast<std::size_t>(source)].state == replica_state::retiring);
  // The source's room is freed only once its in-flight groups have finished (§6.8).
  const auto entries_before = sc.res.entries().size();
  ctl.collect();
  CHECK(sc.res.entries().size() == entries_before);
  CHECK(sc.res.used(source_bank) == source_used);
  sc.res.add_in_flight(source, -1);
  ctl.collect();
  CHECK(sc.res.entries().size() == entries_before - 1);
  CHECK(sc.res.used(source_bank) < source_used);
  CHECK(published_of(sc.res, 0, e) == 1);
  CHECK(sc.res.violations().empty());
}

TEST_CASE("a hot expert's only replica may be promoted by a move when no extra copy is allowed") {
  // Expert 0 has its only replica in DRAM, the others in SRAM, and few tokens each: the layer waits
  // for expert 0's DRAM stream, which a move to a nearer tier shortens (one copy would too, but the
  // extra-copy cap is 0, so a promote can only move).
  residency res{sliced_package(), 1, 8, units::MiB(4.0), {.budget_factor = 2.0}};
  const auto dram = res.nearest_room(0, 0, 0, tier_kind::dram, 0);
  REQUIRE(dram.has_value());
  const int far = res.place(0, 0, 0, dram->bank, dram->span);
  for (int e = 1; e < 8; ++e) {
    const auto near = res.nearest_room(0, e, e, tier_kind::sram, e);
    REQUIRE(near.has_value());
    res.place(0, e, e, near->bank, near->span);
  }
  std::vector<token_group> groups;
  for (int c = 0; c < 8; ++c) groups.push_back({0, 0, c, c, 2});
  for (int e = 1; e < 8; ++e) groups.push_back({0, e, e, e, 4});
  groups = split_blocks(groups, 16);
  residency_controller ctl(sliced_package(), shape(), res, {.min_age = 0, .copy_cap = 0});
  fast_token_mapper m(sliced_package(), shape(), res);
  const auto ev = evaluate_directory_layer(sliced_package(), shape(), res, groups, m.map(groups));
  ctl.observe({0}, {groups}, {ev}, 1e-3);
  const auto acts = ctl.legal_actions();
  const scored_action* move = nullptr;
  for (const auto& a : acts) {
    if (a.action.kind != residency_action_kind::promote) continue;
    CHECK(a.action.entry == far);  // no new copy: the cap is reached
    if (move == nullptr || a.features[feature::benefit] > move->features[feature::benefit]) move = &a;
  }
  REQUIRE(move != nullptr);
  CHECK(move->features[feature::benefit] > 0.0);
  CHECK(move->action.target.tier != tier_kind::dram);  // nearer than DRAM
  // A scorer of benefit alone takes it (the greedy rule also weighs the copy's exposure).
  const auto a = ctl.decide([](std::span<const double> f) { return f[feature::benefit]; });
  REQUIRE(a.kind == residency_action_kind::promote);
  CHECK(a.entry == far);
  CHECK(res.legal(0, 0).size() == 1);
  CHECK(ctl.advance(1.0) == 1);
  ctl.collect();
  REQUIRE(res.legal(0, 0).size() == 1);
  CHECK(res.tier(res.legal(0, 0).front()) != tier_kind::dram);
  CHECK(res.of(0, 0).size() == 1);  // the DRAM replica is gone: the count did not grow
  CHECK(res.violations().empty());
}
