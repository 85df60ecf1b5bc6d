#include "strata/stratum/chip_assignment.hpp"

#include <doctest/doctest.h>

#include <algorithm>  // std::max, std::max_element, std::find
#include <cstdlib>    // std::abs
#include <utility>    // std::swap
#include <string>     // std::string
#include <vector>     // std::vector

#include <boost/math/differentiation/autodiff.hpp>

#include "strata/core/json.hpp"
#include "strata/stratum/system.hpp"
#include "strata/stratum/usage.hpp"
#include "strata/workload/presets.hpp"
#include "support/field_of.hpp"
#include "support/scalars.hpp"

namespace strata {
inline namespace v0 {
template strata::duration<double> moe_block_time(const nmp_device<double>&, int, const std::vector<expert_work<double>>&,
                                                 const mapping_options<double>&, energy_parts<double>*, bool,
                                                 time_parts<double>*);
template strata::duration<strata_test::fvar1> moe_block_time(const nmp_device<strata_test::fvar1>&, int,
                                                             const std::vector<expert_work<strata_test::fvar1>>&,
                                                             const mapping_options<strata_test::fvar1>&,
                                                             energy_parts<strata_test::fvar1>*, bool,
                                                             time_parts<strata_test::fvar1>*);
template cost<strata_test::fvar1> moe_block_cost(const nmp_device<strata_test::fvar1>&, int,
                                                 const std::vector<expert_work<strata_test::fvar1>>&,
                                                 const mapping_options<strata_test::fvar1>&,
                                                 energy_parts<strata_test::fvar1>*, const std::string&);
}  // namespace v0
}  // namespace strata

using namespace strata;
using doctest::Approx;
using strata_test::field_of;

namespace {
step_shape ep_decode(int b, int s) { return {.mode = phase::decode, .batch = b, .context = s}; }

stratum_system_params<> with_split(stratum_system_params<> p, expert_split x) {
  p.mapping.experts = x;
  return p;
}

expert_work<> ep_work(int e, int chip, double tokens, double weight, std::size_t tiers) {
  expert_work<> w;
  w.tokens = tokens;
  w.hidden = 4096;
  w.inter = 14336;
  w.weight = weight;
  w.expert = e;
  w.layer = 0;
  w.chip = chip;
  w.shares.assign(tiers, 0.0);
  w.shares.front() = 1.0;
  return w;
}
}  // namespace

TEST_CASE("two chips, four experts of usage 0.4, 0.3, 0.2, 0.1: LPT puts {0, 3} and {1, 2} together, the layer the slower chip") {
  // At B = 1 an expert runs with p = f and one token; with T* = 4 tokens its work is p. LPT:
  // 0.4 -> chip 0, 0.3 -> chip 1, 0.2 -> chip 1 (0.3 < 0.4), 0.1 -> chip 0 (0.4 < 0.5).
  const usage_table f{{0.4, 0.3, 0.2, 0.1}};
  const auto a = assign_experts(f, 2, 1, 4.0, 1);
  CHECK(a.chip == std::vector<int>{0, 1, 1, 0});
  CHECK(a.load[0] == Approx(0.5));
  CHECK(a.load[1] == Approx(0.5));
  CHECK(a.members(0) == std::vector<int>{0, 3});
  // Algorithm 1's hot set (L·A = 1) is expert 0, on chip 0; chip 1 has no fast pack.
  CHECK(a.fast == std::vector<long long>{1, 0});
  CHECK(assign_experts(usage_table{{0.4, 0.3, 0.2, 0.1}, {0.1, 0.2, 0.3, 0.4}}, 2, 1, 4.0, 2).fast ==
        std::vector<long long>{2, 2});

  // The layer with every expert running (p = 1): each chip runs its experts alone (whole, over
  // its own P PUs); the block is the slower chip's pipeline.
  const auto d = system_device(stratum_l());
  const std::size_t n = d.tiers.size();
  std::vector<expert_work<>> work;
  for (int e = 0; e < 4; ++e) work.push_back(ep_work(e, a.chip[static_cast<std::size_t>(e)], 1.0, 1.0, n));
  const auto alone = [&](int j) {
    std::vector<expert_work<>> mine;
    for (auto w : work) {
      if (w.chip != j) continue;
      w.chip = -1;
      mine.push_back(w);
    }
    return moe_layer_time(d, 1, mine);
  };
  const mapping_options<> ep{};
  const auto t = moe_block_time(d, 2, work, ep);
  CHECK(t.si() == std::max(alone(0).si(), alone(1).si()));
  CHECK(t.si() == Approx(moe_block_cost(d, 2, work, ep).time.si()).epsilon(1e-12));
  // With all_chips the same work is one pipeline of every expert split over the two chips.
  mapping_options<> all;
  all.experts = expert_split::all_chips;
  CHECK(moe_block_time(d, 2, work, all).si() == moe_layer_time(d, 2, work).si());
  // Expected routing: two equal experts, one per chip, each running with p = 1/2. Each chip's
  // expected pipeline is P = τ/2, but the block waits whenever either runs:
  // E[max] = τ · P(K_0 + K_1 ≥ 1) = 3τ/4 = 1.5 P.
  const std::vector<expert_work<>> halves{ep_work(0, 0, 1.0, 0.5, n), ep_work(1, 1, 1.0, 0.5, n)};
  const auto p0 = moe_layer_time(d, 2, halves, ep, static_cast<energy_parts<>*>(nullptr), true, static_cast<time_parts<>*>(nullptr), 0);
  CHECK(moe_block_time(d, 2, halves, ep).si() == Approx(1.5 * p0.si()).epsilon(1e-12));
  CHECK(moe_block_cost(d, 2, halves, ep).time.si() == Approx(1.5 * p0.si()).epsilon(1e-12));
  // Energy: each expert once, whole (the same weight bytes as split over the chips).
  energy_parts<> e_ep{}, e_all{};
  (void)moe_block_time(d, 2, work, ep, &e_ep);
  (void)moe_block_time(d, 2, work, all, &e_all);
  CHECK(e_ep.dram_column.si() == Approx(e_all.dram_column.si()).epsilon(1e-12));
  CHECK(e_ep.mac.si() == Approx(e_all.mac.si()).epsilon(1e-12));
}

TEST_CASE("LPT assignment: every expert on exactly one chip, each layer's busiest chip within mean + largest load") {
  for (const std::string name : {"Mixtral-8x7B", "OLMoE-1B-7B-0924", "DeepSeek-V3", "Llama-4-Scout-17B-16E"}) {
    const auto m = preset(name);
    for (double h : {0.3, 0.6, 0.9}) {
      const auto f = usage_from_hit_rate(m.moe_layers(), m.experts, m.top_k, h);
      for (int c : {1, 2, 3, 6, 12}) {
        for (int b : {1, 64}) {
          CAPTURE(name);
          CAPTURE(h);
          CAPTURE(c);
          CAPTURE(b);
          const auto a = assign_experts(f, c, b, 5.0, m.top_k);
          REQUIRE(a.chip.size() == static_cast<std::size_t>(m.moe_layers()) * static_cast<std::size_t>(m.experts));
          long long members = 0;
          for (int j = 0; j < c; ++j) members += static_cast<long long>(a.members(j).size());
          CHECK(members == static_cast<long long>(a.chip.size()));  // each exactly once
          CHECK(*std::min_element(a.chip.begin(), a.chip.end()) >= 0);
          CHECK(*std::max_element(a.chip.begin(), a.chip.end()) < c);
          for (int l = 0; l < m.moe_layers(); ++l) {
            double sum = 0.0, largest = 0.0, busiest = 0.0, check = 0.0;
            for (int e = 0; e < m.experts; ++e) {
              const double w = expected_expert_work(f[static_cast<std::size_t>(l)][static_cast<std::size_t>(e)], b, 5.0);
              sum += w;
              largest = std::max(largest, w);
            }
            for (int j = 0; j < c; ++j) {
              const double lj = a.load[static_cast<std::size_t>(l) * static_cast<std::size_t>(c) + static_cast<std::size_t>(j)];
              busiest = std::max(busiest, lj);
              check += lj;
            }
            CHECK(check == Approx(sum).epsilon(1e-12));
            CHECK(busiest <= sum / c + largest + 1e-12);
          }
          // The fast packs together are Algorithm 1's L·A hot experts.
          long long k = 0;
          for (auto x : a.fast) k += x;
          CHECK(k == static_cast<long long>(m.moe_layers()) * m.top_k);
        }
      }
    }
  }
}

TEST_CASE("equal experts: the extra experts of a layer rotate over the chips from layer to layer") {
  // Mixtral: 8 equal experts on 6 chips, 32 layers: every chip holds 32·8/6 = 42 or 43 experts.
  const auto m = preset("Mixtral-8x7B");
  const auto a = assign_experts(uniform_usage(m.moe_layers(), m.experts, m.top_k), 6, 1, 5.0, m.top_k);
  for (int j = 0; j < 6; ++j) {
    const auto n = a.members(j).size();
    CHECK(n >= 42);
    CHECK(n <= 43);
  }
}

TEST_CASE("with one chip the two mappings give the same step to the last bit") {
  for (const auto& name : preset_names()) {
    const auto m = preset(name);
    for (int b : {1, 64}) {
      CAPTURE(name);
      CAPTURE(b);
      const stratum_usage u = m.experts > 0 ? stratum_usage{usage_from_hit_rate(m.moe_layers(), m.experts, m.top_k, 0.6), {}}
                                            : stratum_usage{};
      const auto ep = evaluate_decode(with_split(stratum_s(), expert_split::expert_parallel), m, ep_decode(b, 1024), u);
      const auto all = evaluate_decode(with_split(stratum_s(), expert_split::all_chips), m, ep_decode(b, 1024), u);
      CHECK(ep.feasible == all.feasible);
      CHECK(ep.time.si() == all.time.si());
      CHECK(ep.energy.si() == all.energy.si());
      CHECK(ep.hot_hit_rate == all.hot_hit_rate);
      CHECK(ep.plan == all.plan);
      const json je = ep.composition, ja = all.composition;
      CHECK(je == ja);
    }
  }
}

TEST_CASE("the mappings stream the same weight bytes: rows held and DRAM read energy are conserved") {
  for (const std::string name : {"Mixtral-8x7B", "OLMoE-1B-7B-0924", "DeepSeek-V2-Lite", "Llama-4-Scout-17B-16E"}) {
    const auto m = preset(name);
    const auto sys = name == "Llama-4-Scout-17B-16E" ? stratum_xl() : stratum_l();
    const auto u = stratum_usage{usage_from_hit_rate(m.moe_layers(), m.experts, m.top_k, 0.5), {}};
    for (int b : {1, 64}) {
      CAPTURE(name);
      CAPTURE(b);
      const auto ep = evaluate_decode(with_split(sys, expert_split::expert_parallel), m, ep_decode(b, 1024), u);
      const auto all = evaluate_decode(with_split(sys, expert_split::all_chips), m, ep_decode(b, 1024), u);
      CHECK(ep.bandwidth_bound.si() == all.bandwidth_bound.si());  // NMP bytes / (c · bandwidth)
      CHECK(ep.parts.dram_column.si() == Approx(all.parts.dram_column.si()).epsilon(1e-9));
      CHECK(ep.parts.mac.si() == Approx(all.parts.mac.si()).epsilon(1e-9));
    }
    // The chips hold every expert's bytes once: Σ_j N_j whole experts = L·E experts.
    const auto sm = prepare(sys);
    const auto pl = place_model(sm, m, ep_decode(1, 1024), u.routing);
    long long held = 0, expected = 0;
    for (const auto& st : pl.stages) {
      REQUIRE(st.chip_layouts.size() == static_cast<std::size_t>(sys.chips));
      for (const auto& cl : st.chip_layouts) held += static_cast<long long>(cl.layers) * cl.experts;
      expected += static_cast<long long>(st.moe_layers) * m.experts;
      // Each expert's interval in the gathered layout is its chip's.
      for (int li = 0; li < st.moe_layers; ++li) {
        for (int e = 0; e < m.experts; ++e) {
          const auto i = static_cast<std::size_t>(li) * static_cast<std::size_t>(m.experts) + static_cast<std::size_t>(e);
          const int j = st.chips.chip[i];
          const auto mem = st.chips.members(j);
          const auto slot = static_cast<std::size_t>(std::find(mem.begin(), mem.end(), static_cast<int>(i)) - mem.begin());
          CHECK(st.layout.intervals[i] == st.chip_layouts[static_cast<std::size_t>(j)].intervals[slot]);
        }
      }
    }
    CHECK(held == expected);
  }
}

TEST_CASE("expert parallel: the breakdown tree never changes a number, for both mappings") {
  for (const std::string name : {"Mixtral-8x7B", "OLMoE-1B-7B-0924", "DeepSeek-V2-Lite", "Qwen2.5-32B"}) {
    const auto m = preset(name);
    for (auto split : {expert_split::expert_parallel, expert_split::all_chips}) {
      for (const auto& sys : stratum_system_names()) {
        for (int b : {1, 16, 256}) {
          CAPTURE(name);
          CAPTURE(sys);
          CAPTURE(b);
          const auto p = with_split(stratum_system(sys), split);
          const stratum_usage u = m.experts > 0 ? stratum_usage{usage_from_hit_rate(m.moe_layers(), m.experts, m.top_k, 0.5), {}}
                                                : stratum_usage{};
          const auto fast = evaluate_decode(p, m, ep_decode(b, 512), u, false);
          const auto tree = evaluate_decode(p, m, ep_decode(b, 512), u, true);
          CHECK(fast.time.si() == tree.time.si());
          CHECK(fast.energy.si() == tree.energy.si());
          CHECK(tree.breakdown.time.si() == Approx(tree.time.si()).epsilon(1e-9));
          // (A two-stage system's NVLink hand-off energy is in the step, not in the tree's leaf.)
          if (p.stages == 1) CHECK(tree.breakdown.energy.si() == Approx(tree.energy.si()).epsilon(1e-9));
        }
      }
    }
  }
}

TEST_CASE("expert parallel with the autodiff scalar: the step's value is the double one") {
  using strata_test::fvar1;
  using strata_test::make_fvar;
  stratum_system_params<fvar1> p;
  p.nmp_mode_register_delay = units::ns(make_fvar<double, 1>(14.0));
  const auto m = preset("Mixtral-8x7B");
  const auto r = evaluate_decode(p, m, ep_decode(8, 1024));
  const auto rd = evaluate_decode(stratum_l(), m, ep_decode(8, 1024));
  CHECK(static_cast<double>(r.time.si()) == Approx(rd.time.si()).epsilon(1e-12));
  CHECK(r.time.si().derivative(1) * 1e9 == Approx(2.0 * (2.0 * m.layers + 1.0)));  // + the NMP LM head
}

TEST_CASE("a topic switch keeps the experts on their chips; bad mapping input names its field") {
  const auto m = preset("Mixtral-8x7B");
  const auto sys = stratum_l();
  const auto d = system_device(sys);
  const auto s = ep_decode(16, 2048);
  const auto fa = usage_from_hit_rate(m.moe_layers(), m.experts, m.top_k, 0.8, 0);
  const auto fb = usage_from_hit_rate(m.moe_layers(), m.experts, m.top_k, 0.8, m.top_k);
  const auto a = stratum_stage_layout(sys, d, m, s, fa, 0);
  const auto b = stratum_stage_layout(sys, d, m, s, fb, 0, nullptr, &a.chips);
  CHECK(b.chips == a.chips);
  const auto [t, e] = stage_swap_cost(a, b, d.tiers, sys.chips);
  CHECK(t > 0.0);
  CHECK(e > 0.0);
  // A placement that moved experts between chips is refused: that switch would cross the xPU.
  auto moved = b;
  std::swap(moved.chips.chip[0], moved.chips.chip[2]);
  CHECK(field_of([&] { (void)stage_swap_cost(a, moved, d.tiers, sys.chips); }) == "chips_from");

  // The mapping is a field of the system's JSON, read by name, a bad name refused naming it.
  json j = stratum_l();
  CHECK(j.at("mapping").at("experts") == "expert_parallel");
  j["mapping"]["experts"] = "all_chips";
  CHECK(j.get<stratum_system_params<>>().mapping.experts == expert_split::all_chips);
  j["mapping"]["experts"] = "per_chip";
  const auto field = field_of([&] { (void)j.get<stratum_system_params<>>(); });
  CHECK(field.find("experts") != std::string::npos);
  // An out-of-range value set in code is refused by validate.
  auto p = stratum_l();
  p.mapping.experts = static_cast<expert_split>(7);
  CHECK(field_of([&] { validate(p); }) == "experts");
  CHECK(field_of([&] { (void)assign_experts(usage_table{{0.5, 0.5}}, 0, 1, 4.0, 1); }) == "chips");
}

TEST_CASE("kept expert-parallel layouts: the same placement and step to the last bit; a changed input recomputes") {
  const auto m = preset("Mixtral-8x7B");
  const auto sm = prepare(stratum_l());
  const auto hot = usage_from_hit_rate(m.moe_layers(), m.experts, m.top_k, 0.316);
  const auto cold = usage_from_hit_rate(m.moe_layers(), m.experts, m.top_k, 0.6);
  expert_chips_keep kept;
  const auto same = [&](const usage_table& u, int b, int s) {
    CAPTURE(b);
    CAPTURE(s);
    const auto fresh = place_model(sm, m, ep_decode(b, s), u);
    const auto again = place_model(sm, m, ep_decode(b, s), u, nullptr, &kept);
    REQUIRE(fresh.stages.size() == again.stages.size());
    for (std::size_t i = 0; i < fresh.stages.size(); ++i) {
      const auto& x = fresh.stages[i];
      const auto& y = again.stages[i];
      CHECK(x.chips == y.chips);
      CHECK(x.chip_layouts == y.chip_layouts);
      CHECK(x.layout == y.layout);
      CHECK(x.plan == y.plan);
      CHECK(x.chip_plans == y.chip_plans);
    }
    const auto rx = evaluate_decode(sm, fresh, m, ep_decode(b, s), u);
    const auto ry = evaluate_decode(sm, again, m, ep_decode(b, s), u);
    CHECK(rx.time.si() == ry.time.si());
    CHECK(rx.energy.si() == ry.energy.si());
  };
  same(hot, 16, 512);  // computed and kept: one assignment, one set of chip layouts
  CHECK(kept.misses == 2);
  CHECK(kept.hits == 0);
  same(hot, 16, 2048);  // another context: Algorithm 1's inputs unchanged, both taken
  CHECK(kept.misses == 2);
  CHECK(kept.hits == 2);
  same(hot, 64, 512);  // another batch: another assignment
  CHECK(kept.misses >= 3);
  const auto before = kept.misses;
  same(cold, 16, 512);  // another usage table: both recomputed
  CHECK(kept.misses == before + 2);
  CHECK(kept.assignments.size() == 3);
  // Another chip (its knee moves with its peak): the assignment is recomputed.
  auto sm2 = sm;
  sm2.device.clock = decltype(sm2.device.clock)::from_si(sm.device.clock.si() * 2.0);
  const auto m0 = kept.misses;
  const auto a = place_model(sm2, m, ep_decode(16, 512), hot, nullptr, &kept);
  const auto b = place_model(sm2, m, ep_decode(16, 512), hot);
  CHECK(kept.misses > m0);
  CHECK(a.stages.front().chips == b.stages.front().chips);
  CHECK(a.stages.front().layout == b.stages.front().layout);
  // At most `capacity` entries, the least recently used dropped.
  expert_chips_keep one;
  one.capacity = 1;
  (void)place_model(sm, m, ep_decode(1, 512), hot, nullptr, &one);
  (void)place_model(sm, m, ep_decode(4, 512), hot, nullptr, &one);
  CHECK(one.assignments.size() == 1);
  CHECK(one.assignments.front().batch == 4);
  (void)place_model(sm, m, ep_decode(1, 512), hot, nullptr, &one);
  CHECK(one.assignments.front().batch == 1);
}
