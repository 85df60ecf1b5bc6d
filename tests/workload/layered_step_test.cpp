#include "strata/workload/roofline.hpp"

#include <doctest/doctest.h>

#include <boost/math/differentiation/autodiff.hpp>

#include "support/field_of.hpp"

#include <cstddef>  // std::size_t
#include <cstdint>  // std::uint32_t
#include <string>   // std::string
#include <vector>   // std::vector

#include "strata/baseline/gpu.hpp"
#include "strata/core/json.hpp"
#include "strata/workload/presets.hpp"

using namespace strata;
using doctest::Approx;

namespace {

// Every total of the distinct-layer evaluation against `evaluate` on the full operator list (each
// layer evaluated one by one): equal but for the order of the sums.
void layered_check_same_totals(const step_result& a, const step_result& b) {
  constexpr double eps = 1e-12;
  CHECK(a.time.si() == Approx(b.time.si()).epsilon(eps));
  CHECK(a.energy.si() == Approx(b.energy.si()).epsilon(eps));
  CHECK(a.dynamic_energy.si() == Approx(b.dynamic_energy.si()).epsilon(eps));
  CHECK(a.compute_energy.si() == Approx(b.compute_energy.si()).epsilon(eps));
  CHECK(a.memory_energy.si() == Approx(b.memory_energy.si()).epsilon(eps));
  CHECK(a.link_energy.si() == Approx(b.link_energy.si()).epsilon(eps));
  CHECK(a.static_energy.si() == Approx(b.static_energy.si()).epsilon(eps));
  CHECK(a.flops.si() == Approx(b.flops.si()).epsilon(eps));
  CHECK(a.weight_bytes.si() == Approx(b.weight_bytes.si()).epsilon(eps));
  CHECK(a.kv_bytes.si() == Approx(b.kv_bytes.si()).epsilon(eps));
  CHECK(a.activation_bytes.si() == Approx(b.activation_bytes.si()).epsilon(eps));
  CHECK(a.link_bytes.si() == Approx(b.link_bytes.si()).epsilon(eps));
  CHECK(a.node_link_bytes.si() == Approx(b.node_link_bytes.si()).epsilon(eps));
  CHECK(a.tokens == b.tokens);
  CHECK(a.tokens_per_s == Approx(b.tokens_per_s).epsilon(eps));
  CHECK(a.power_capped == b.power_capped);
  // Not vacuous: the step moves bytes and takes time.
  CHECK(a.time.si() > 0.0);
  CHECK(a.weight_bytes.si() > 0.0);
}

// Each layer group's operators are those `step_operators` lists for the group's first layer, and
// the runs cover every layer once, in order, with the group each layer is.
void layered_check_groups(const model& m, const step_shape& s, const expert_histogram& hist = {}) {
  const auto all = step_operators(m, s, hist);
  const auto st = step_layers(m, s, hist);
  // Where each layer's operators start in the full list.
  std::vector<std::size_t> layer_begin(static_cast<std::size_t>(m.layers) + 1, all.size());
  for (std::size_t i = all.size(); i-- > 0;) {
    if (all[i].layer >= 0) layer_begin[static_cast<std::size_t>(all[i].layer)] = i;
  }
  int next = 0, layers = 0;
  for (const auto& run : st.runs) {
    CHECK(run.first == next);
    CHECK(run.count >= 1);
    next += run.count;
    REQUIRE(run.group >= 0);
    REQUIRE(run.group < static_cast<int>(st.groups.size()));
    const auto& g = st.groups[static_cast<std::size_t>(run.group)];
    for (int l = run.first; l < run.first + run.count; ++l) {
      // The full list's layer l is the group's operators, but for the layer index.
      std::size_t i = layer_begin[static_cast<std::size_t>(l)];
      for (std::size_t k = g.begin; k < g.end; ++k, ++i) {
        REQUIRE(i < all.size());
        const op& a = all[i];
        const op& b = st.ops[k];
        CHECK(a.layer == l);
        CHECK(b.layer == g.layer);
        CHECK(a.kind == b.kind);
        CHECK(a.expert == b.expert);
        CHECK(a.flops.si() == b.flops.si());
        CHECK(a.weight_bytes.si() == b.weight_bytes.si());
        CHECK(a.activation_bytes.si() == b.activation_bytes.si());
        CHECK(a.kv_bytes.si() == b.kv_bytes.si());
        CHECK(a.tokens == b.tokens);
        CHECK(a.instances == b.instances);
        CHECK(a.bits == b.bits);
      }
      CHECK((i == all.size() || all[i].layer != l));  // no operator of layer l left over
      ++layers;
    }
  }
  CHECK(next == m.layers);
  CHECK(layers == m.layers);
  int counted = 0;
  for (const auto& g : st.groups) counted += g.count;
  CHECK(counted == m.layers);
  // Embedding first, final norm and LM head last, as in the full list.
  REQUIRE(st.layers_begin == 1);
  CHECK(st.ops.front().kind == op_kind::embedding);
  REQUIRE(st.ops.size() - st.layers_end == 2);
  CHECK(st.ops[st.layers_end].kind == op_kind::final_norm);
  CHECK(st.ops.back().kind == op_kind::lm_head);
  CHECK(st.ops.back().flops.si() == all.back().flops.si());
}

// Σ over the tree's leaves, each times the repeat counts above it.
struct layered_leaf_sums {
  double time = 0.0, energy = 0.0;
  std::size_t leaves = 0;  // leaves counted with their repeats
};
void layered_sum_leaves(const cost<>& c, double times, layered_leaf_sums& s) {
  if (c.parts.empty()) {
    s.time += times * c.time.si();
    s.energy += times * c.energy.si();
    s.leaves += static_cast<std::size_t>(times);
    return;
  }
  const double k = c.rule == cost_rule::repeat ? static_cast<double>(c.count) : 1.0;
  for (const auto& p : c.parts) layered_sum_leaves(p, times * k, s);
}

}  // namespace

TEST_CASE("each distinct layer once times its layers gives the totals of every layer one by one") {
  struct case_ {
    const char* model;
    int devices;
  };
  // DeepSeek-V3: 3 dense layers then 58 MoE (MLA, FP8); Mixtral: 32 MoE; Qwen2.5-32B: dense;
  // DeepSeek-V2-Lite: 1 dense then 26 MoE; Llama-4-Scout: MoE with a dense-width shared expert.
  for (const case_ c : {case_{"DeepSeek-V3", 8}, case_{"DeepSeek-V3", 16}, case_{"Mixtral-8x7B", 2},
                        case_{"Qwen2.5-32B", 1}, case_{"Qwen2.5-32B", 4}, case_{"DeepSeek-V2-Lite", 1},
                        case_{"Llama-4-Scout-17B-16E", 8}}) {
    const model m = preset(c.model);
    const auto machine = make_machine(h100_sxm5(), c.devices);
    for (const phase ph : {phase::decode, phase::prefill}) {
      for (const int batch : {1, 8, 64}) {
        CAPTURE(c.model);
        CAPTURE(c.devices);
        CAPTURE(batch);
        const step_shape s{.mode = ph, .batch = batch, .context = ph == phase::decode ? 4096 : 512};
        const auto one_by_one = evaluate(step_operators(m, s), s, m.hidden, machine);
        const auto distinct = evaluate(step_layers(m, s), machine);
        layered_check_same_totals(distinct, one_by_one);
        // The model overload takes the distinct path and adds the capacity verdict.
        const auto whole = evaluate(m, s, machine);
        CHECK(whole.time.si() == distinct.time.si());
        CHECK(whole.energy.si() == distinct.energy.si());
        CHECK(whole.reason == check_capacity(machine, resident_footprint(m, s)).reason);
      }
    }
    layered_check_groups(m, {.mode = phase::decode, .batch = 16, .context = 1024});
  }
}

TEST_CASE("the distinct layers of the presets: DeepSeek-V3 is 3 dense and 58 MoE layers, Mixtral one MoE layer") {
  const step_shape s{.mode = phase::decode, .batch = 64, .context = 4096};
  const auto ds = step_layers(preset("DeepSeek-V3"), s);
  REQUIRE(ds.groups.size() == 2);
  CHECK(ds.groups[0].count == 3);
  CHECK(ds.groups[0].layer == 0);
  CHECK(ds.groups[1].count == 58);
  CHECK(ds.groups[1].layer == 3);
  REQUIRE(ds.runs.size() == 2);
  CHECK(ds.runs[0].first == 0);
  CHECK(ds.runs[0].count == 3);
  CHECK(ds.runs[1].first == 3);
  CHECK(ds.runs[1].count == 58);
  CHECK(ds.runs[1].group == 1);
  // 1 embedding + 6 dense-layer operators + 8 MoE-layer operators + final norm + LM head.
  CHECK(ds.ops.size() == 1 + 6 + 8 + 2);
  CHECK(step_operators(preset("DeepSeek-V3"), s).size() == 485);

  const auto mx = step_layers(preset("Mixtral-8x7B"), s);
  REQUIRE(mx.groups.size() == 1);
  CHECK(mx.groups[0].count == 32);
  CHECK(mx.runs.size() == 1);

  const auto qw = step_layers(preset("Qwen2.5-32B"), s);
  REQUIRE(qw.groups.size() == 1);
  CHECK(qw.groups[0].count == 64);
  CHECK(qw.ops[qw.groups[0].end - 1].kind == op_kind::dense_ffn);
}

TEST_CASE("interleaved MoE layers (every second layer) alternate between two groups, run by run") {
  model m = preset("Mixtral-8x7B");
  m.moe_layer_step = 2;  // layers 0, 2, 4, … MoE; 1, 3, 5, … dense
  m.dense_ffn = 14336;
  const step_shape s{.mode = phase::decode, .batch = 8, .context = 2048};
  const auto st = step_layers(m, s);
  REQUIRE(st.groups.size() == 2);
  CHECK(st.groups[0].count == 16);
  CHECK(st.groups[1].count == 16);
  REQUIRE(st.runs.size() == 32);
  for (std::size_t i = 0; i < st.runs.size(); ++i) {
    CHECK(st.runs[i].count == 1);
    CHECK(st.runs[i].group == static_cast<int>(i % 2));
  }
  const auto machine = make_machine(h100_sxm5(), 2);
  layered_check_same_totals(evaluate(st, machine), evaluate(step_operators(m, s), s, m.hidden, machine));
  layered_check_groups(m, s);
  // The tree: a node per layer (runs of one), named by its layer, each a copy of its group's node.
  const auto tree = evaluate(st, machine, step_breakdown::tree);
  REQUIRE(tree.breakdown.parts.size() == 1 + 32 + 1 + 1);
  CHECK(tree.breakdown.parts[1].name == "layer 0");
  CHECK(tree.breakdown.parts[32].name == "layer 31");
  CHECK(tree.breakdown.parts[1].rule == cost_rule::seq);
  CHECK(tree.breakdown.parts[1].time.si() == tree.breakdown.parts[3].time.si());
  CHECK(tree.breakdown.parts[1].time.si() != tree.breakdown.parts[2].time.si());
  layered_leaf_sums ls;
  layered_sum_leaves(tree.breakdown, 1.0, ls);
  CHECK(ls.time == Approx(tree.time.si()).epsilon(1e-12));
}

TEST_CASE("exact routing: every MoE layer is its own group, with the totals of the full list") {
  const model m = preset("DeepSeek-V2-Lite");  // 1 dense layer, 26 MoE layers of 64 experts, top-6
  const step_shape s{.mode = phase::decode, .batch = 4, .context = 1024};
  expert_histogram hist(static_cast<std::size_t>(m.moe_layers()), std::vector<std::uint32_t>(64, 0));
  for (std::size_t l = 0; l < hist.size(); ++l) {
    for (std::size_t t = 0; t < 4 * 6; ++t) ++hist[l][(l * 7 + t * 5) % 64];
  }
  const auto st = step_layers(m, s, hist);
  REQUIRE(st.groups.size() == 1 + 26);
  CHECK(st.groups[0].count == 1);
  CHECK(st.groups[1].count == 1);
  CHECK(st.runs.size() == 27);
  const auto machine = make_machine(h100_sxm5(), 2);
  layered_check_same_totals(evaluate(st, machine), evaluate(step_operators(m, s, hist), s, m.hidden, machine));
  layered_check_same_totals(evaluate(m, s, machine, hist), evaluate(step_operators(m, s, hist), s, m.hidden, machine));
  layered_check_groups(m, s, hist);
  // The grouped experts of a layer pay one launch overhead here too: the full list's rule.
  const auto tree = evaluate(st, machine, step_breakdown::tree);
  CHECK(tree.breakdown.parts[2].name == "layer 1");
  CHECK(tree.breakdown.parts[2].parts[6].name.rfind("expert", 0) == 0);
}

TEST_CASE("the tree of the distinct layers: a repeat node per run of identical layers, leaves summing to the total") {
  const model m = preset("DeepSeek-V3");
  const step_shape s{.mode = phase::decode, .batch = 64, .context = 4096};
  const auto machine = make_machine(h100_sxm5(), 8);
  const auto fast = evaluate(m, s, machine);
  const auto r = evaluate(m, s, machine, {}, step_breakdown::tree);
  CHECK(fast.breakdown.parts.empty());
  CHECK(r.time.si() == fast.time.si());
  CHECK(r.energy.si() == fast.energy.si());
  const auto& t = r.breakdown;
  CHECK(t.name == "step");
  // io (embedding), layers 0-2, layers 3-60, io (final norm, LM head), static power.
  REQUIRE(t.parts.size() == 5);
  CHECK(t.parts[0].name == "io");
  CHECK(t.parts[1].name == "layers 0-2");
  CHECK(t.parts[1].rule == cost_rule::repeat);
  CHECK(t.parts[1].count == 3);
  REQUIRE(t.parts[1].parts.size() == 1);
  CHECK(t.parts[1].parts[0].name == "layer");
  CHECK(t.parts[1].time.si() == Approx(3.0 * t.parts[1].parts[0].time.si()).epsilon(1e-15));
  CHECK(t.parts[2].name == "layers 3-60");
  CHECK(t.parts[2].count == 58);
  CHECK(t.parts[3].name == "io");
  CHECK(t.parts[4].name == "static power");
  // A MoE layer's operators, named by kind: the router carries the MoE block's all-reduce.
  const auto& moe = t.parts[2].parts[0];
  REQUIRE(moe.parts.size() == 8);
  CHECK(moe.parts[0].name == "attn_norm");
  CHECK(moe.parts[5].name == "router");
  CHECK(moe.parts[5].parts.at(1).name == "allreduce");
  CHECK(moe.parts[6].name == "routed_experts");
  CHECK(t.parts[1].parts[0].parts[5].name == "dense_ffn");
  // The leaves, each times its repeats, add up to the step: time, and energy without the static part.
  layered_leaf_sums ls;
  layered_sum_leaves(t, 1.0, ls);
  CHECK(ls.time == Approx(r.time.si()).epsilon(1e-12));
  CHECK(ls.energy == Approx(r.dynamic_energy.si() + r.static_energy.si()).epsilon(1e-12));
  // Leaves: 1 embedding; 3 dense layers of 6 operators (+ 2 all-reduces); 58 MoE layers of 8 (+ 3
  // all-reduces: out_proj, router, shared experts); 2 head operators; static power.
  CHECK(ls.leaves == 1 + 3 * (6 + 2) + 58 * (8 + 3) + 2 + 1);
  // The JSON names the rule and the count.
  const json j = t;
  CHECK(j["parts"][2]["rule"] == "repeat");
  CHECK(j["parts"][2]["count"] == 58);
  CHECK(j["parts"][2]["time_s"].get<double>() == Approx(58.0 * t.parts[2].parts[0].time.si()));
}

TEST_CASE("the distinct-layer evaluation on an autodiff machine: the double step's numbers and derivatives") {
  using boost::math::differentiation::make_fvar;
  using F = boost::math::differentiation::autodiff_fvar<double, 1>;
  const model m = preset("DeepSeek-V3");
  const step_shape s{.mode = phase::decode, .batch = 64, .context = 4096};
  const auto plain = make_machine(h100_sxm5(), 8);
  const auto st = step_layers(m, s);
  auto mf = machine_cast<F>(plain);
  const double bw = value_of(plain.tiers[0].bandwidth.si());
  mf.tiers[0].bandwidth = bandwidth<F>::from_si(make_fvar<double, 1>(bw));
  const auto r = evaluate(st, mf, step_breakdown::tree);
  const auto d = evaluate(st, plain);
  CHECK(r.time.si().derivative(0) == d.time.si());
  CHECK(r.energy.si().derivative(0) == d.energy.si());
  // The same derivative through the full operator list: each layer one by one.
  const auto full = evaluate(step_operators(m, s), s, m.hidden, mf);
  CHECK(r.time.si().derivative(1) == Approx(full.time.si().derivative(1)).epsilon(1e-12));
  CHECK(r.time.si().derivative(1) < 0.0);  // more bandwidth, less time
  CHECK(r.breakdown.time.si().derivative(1) == r.time.si().derivative(1));
}

TEST_CASE("step_layers and its evaluate reject bad input with the same fields and messages as the full list") {
  const model mx = preset("Mixtral-8x7B");
  const step_shape s{.mode = phase::decode, .batch = 8, .context = 2048};
  CHECK(strata_test::message_of([&] { (void)step_layers(mx, s, expert_histogram(3, std::vector<std::uint32_t>(8, 1))); }) ==
        "[strata.operators] histogram.layers must be = MoE layers (32), got 3");
  CHECK(strata_test::message_of([&] { (void)step_operators(mx, s, expert_histogram(3, std::vector<std::uint32_t>(8, 1))); }) ==
        "[strata.operators] histogram.layers must be = MoE layers (32), got 3");
  expert_histogram short_row(32, std::vector<std::uint32_t>(8, 2));
  short_row[5].resize(7);
  CHECK(strata_test::message_of([&] { (void)step_layers(mx, s, short_row); }) ==
        "[strata.operators] histogram[5].experts must be = experts (8), got 7");
  CHECK(strata_test::field_of([&] { (void)step_layers(mx, {.mode = phase::decode, .batch = 0, .context = 2048}); }) == "batch");
  model bad = mx;
  bad.kv_heads = 3;
  CHECK(strata_test::field_of([&] { (void)step_layers(bad, s); }) == "kv_heads");
  auto machine = make_machine(h100_sxm5(), 2);
  auto st = step_layers(mx, s);
  machine.compute_efficiency = 0.0;
  CHECK(strata_test::field_of([&] { (void)evaluate(st, machine); }) == "compute_efficiency");
  CHECK(strata_test::field_of([&] { (void)evaluate(mx, s, machine); }) == "compute_efficiency");
  machine = make_machine(h100_sxm5(), 2);
  st.hidden = 0;
  CHECK(strata_test::field_of([&] { (void)evaluate(st, machine); }) == "hidden");
  CHECK(strata_test::field_of([&] { (void)evaluate(bad, s, machine); }) == "kv_heads");
}
