#include "strata/stratum/system.hpp"

#include <doctest/doctest.h>

#include <algorithm>  // std::count, std::max_element

#include <boost/math/differentiation/autodiff.hpp>

#include "strata/core/json.hpp"
#include "strata/workload/presets.hpp"
#include "support/field_of.hpp"
#include "support/scalars.hpp"

namespace strata {
inline namespace v0 {
template struct stratum_system_params<double>;
template stratum_step_result<double> evaluate_decode(const stratum_system_params<double>&, const model&,
                                                     const step_shape&, const stratum_usage&, decode_breakdown);
template stratum_step_result<strata_test::fvar1> evaluate_decode(const stratum_system_params<strata_test::fvar1>&,
                                                                 const model&, const step_shape&, const stratum_usage&,
                                                                 decode_breakdown);
}  // namespace v0
}  // namespace strata

using namespace strata;
using doctest::Approx;
using strata_test::field_of;

namespace {
step_shape decode(int b, int s) { return {.mode = phase::decode, .batch = b, .context = s}; }
bool system_tree_has(const cost<>& c, const std::string& name) {
  if (c.name == name) return true;
  for (const auto& k : c.parts)
    if (system_tree_has(k, name)) return true;
  return false;
}
stratum_usage hot(const model& m, double h) {
  return {usage_from_hit_rate(m.moe_layers(), m.experts, m.top_k, h), {}};
}
}  // namespace

TEST_CASE("the three systems: S = A6000 die + 1 chip, L = H100 die + 6, XL = 2 x L") {
  const auto s = stratum_system("stratum-s"), l = stratum_system("Stratum_L"), xl = stratum_system("STRATUM-XL");
  CHECK(s.chips == 1);
  CHECK(s.xpu.name == "RTX A6000");
  CHECK(l.chips == 6);
  CHECK(l.stages == 1);
  CHECK(xl.chips == 6);
  CHECK(xl.stages == 2);
  CHECK(field_of([] { (void)stratum_system("stratum-m"); }) == "machine");
  CHECK(stratum_system_names().size() == 3);
}

TEST_CASE("decode is never faster than the internal-bandwidth roofline and its joules add up") {
  const auto m = preset("Mixtral-8x7B");
  const auto sm = prepare(stratum_l());
  for (int b : {1, 16, 64}) {
    for (int s : {512, 4096}) {
      const auto r = evaluate_decode(sm, m, decode(b, s), hot(m, 0.316));
      CAPTURE(b);
      CAPTURE(s);
      REQUIRE(r.feasible);
      CHECK(r.time >= r.bandwidth_bound);
      CHECK(r.time.si() == Approx((r.nmp_time + r.xpu_time).si()));
      CHECK(r.energy.si() == Approx(r.parts.total().si()));
      CHECK(r.parts.mac.si() > 0.0);
      CHECK(r.parts.dram_activate.si() > 0.0);
      CHECK(r.parts.bond.si() > 0.0);
      CHECK(r.parts.phy.si() > 0.0);
      CHECK(r.parts.nmp_static.si() > 0.0);
      CHECK(r.parts.xpu_static.si() > 0.0);
      CHECK(r.tokens_per_s == Approx(b / r.time.si()));
      CHECK(r.hot_hit_rate == Approx(0.316));
      double share = 0.0;
      for (double x : r.expert_tier_share) share += x;
      CHECK(share == Approx(1.0));
    }
  }
}

TEST_CASE("tiering is never slower than one worst-case tRCD, on every system and batch") {
  for (const auto& [name, model_name] : std::vector<std::pair<std::string, std::string>>{
           {"stratum-s", "OLMoE-1B-7B-0924"}, {"stratum-l", "Mixtral-8x7B"}, {"stratum-l", "Qwen2.5-32B"}}) {
    const auto m = preset(model_name);
    auto on = stratum_system(name);
    auto off = on;
    off.tiering = false;
    const auto u = m.experts > 0 ? hot(m, 0.4) : stratum_usage{};
    for (int b : {1, 4, 16, 64}) {
      CAPTURE(model_name);
      CAPTURE(b);
      const auto a = evaluate_decode(on, m, decode(b, 1024), u);
      const auto z = evaluate_decode(off, m, decode(b, 1024), u);
      CHECK(a.time <= z.time);
    }
  }
}

TEST_CASE("hot experts in fast tiers: a skewed table placed by itself beats the uniform layout") {
  const auto m = preset("OLMoE-1B-7B-0924");
  const auto sys = stratum_s();
  const auto f = usage_from_hit_rate(m.moe_layers(), m.experts, m.top_k, 0.9);
  const auto acc = evaluate_decode(sys, m, decode(1, 1024), stratum_usage{f, f});
  const auto miss = evaluate_decode(sys, m, decode(1, 1024), stratum_usage{f, uniform_usage(m.moe_layers(), m.experts, m.top_k)});
  CHECK(acc.hot_hit_rate == Approx(0.9));
  CHECK(miss.hot_hit_rate < 0.5);
  CHECK(acc.ffn_time < miss.ffn_time);
  CHECK(acc.expert_tier_share.front() > miss.expert_tier_share.front());
}

TEST_CASE("what does not fit is an infeasible result naming the data class") {
  const auto m = preset("Mixtral-8x7B");
  // Mixtral's 94 GB cannot sit on Stratum-S's one 32 GB chip.
  const auto r = evaluate_decode(stratum_s(), m, decode(1, 512));
  CHECK_FALSE(r.feasible);
  CHECK(r.reason.find("experts") != std::string::npos);
  CHECK(r.time.si() > 0.0);
  // The KV cache of 256 × 32k tokens does not fit Stratum-L either.
  const auto k = evaluate_decode(stratum_l(), m, decode(256, 32768), hot(m, 0.316));
  CHECK_FALSE(k.feasible);
  CHECK(k.reason.find("KV") != std::string::npos);
  // A placement made for a small batch cannot serve a much larger one.
  const auto sm = prepare(stratum_l());
  const auto pl = place_model(sm, m, decode(1, 512));
  CHECK(evaluate_decode(sm, pl, m, decode(1, 512)).feasible);
  CHECK_FALSE(evaluate_decode(sm, pl, m, decode(256, 4096)).feasible);
}

TEST_CASE("Stratum-XL runs two pipeline stages; the HBM-NMP variant holds less and streams slower") {
  const auto m = preset("Llama-4-Scout-17B-16E");
  const auto u = hot(m, 0.689);
  const auto xl = evaluate_decode(stratum_xl(), m, decode(16, 2048), u);
  REQUIRE(xl.feasible);
  // Each stage holds half the layers, so a step is about half a single pass plus the hand-off.
  auto one = stratum_xl();
  one.stages = 1;
  one.chips = 12;
  const auto flat = evaluate_decode(one, m, decode(16, 2048), u);
  CHECK(xl.time < flat.time);
  const auto mix = preset("Mixtral-8x7B");
  const auto hbm = evaluate_decode(with_hbm_nmp(stratum_l()), mix, decode(16, 1024), hot(mix, 0.316));
  const auto mono = evaluate_decode(stratum_l(), mix, decode(16, 1024), hot(mix, 0.316));
  REQUIRE(hbm.feasible);
  CHECK(hbm.time > mono.time);
  CHECK(hbm.bandwidth_bound > mono.bandwidth_bound);
}

TEST_CASE("the breakdown tree carries the step's time and energy") {
  const auto m = preset("Mixtral-8x7B");
  const auto r = evaluate_decode(stratum_l(), m, decode(4, 1024), hot(m, 0.316), true);
  CHECK(r.breakdown.time.si() == Approx(r.time.si()).epsilon(1e-9));
  CHECK(r.breakdown.energy.si() == Approx(r.energy.si()).epsilon(1e-9));
  const json j = r.breakdown;
  CHECK(j.dump().find("QKV projection") != std::string::npos);
  CHECK(j.dump().find("\"experts\"") != std::string::npos);
  CHECK(j.dump().find("columns") == std::string::npos);  // experts only when asked
  const json rj = r;
  CHECK(rj.at("parts").contains("dram_column"));
  // Without the tree, the same numbers.
  const auto q = evaluate_decode(stratum_l(), m, decode(4, 1024), hot(m, 0.316));
  CHECK(q.time.si() == Approx(r.time.si()));
  CHECK(q.energy.si() == Approx(r.energy.si()));
}

namespace {
// Every node of a tree, depth first.
template <class F>
void each_node(const cost<>& c, F&& f) {
  f(c);
  for (const auto& p : c.parts) each_node(p, f);
}
const cost_column* column(const cost<>& c, const std::string& name) {
  for (const auto& col : c.columns) {
    if (col.name == name) return &col;
  }
  return nullptr;
}
}  // namespace

TEST_CASE("asking for the tree changes no number: totals with and without it, the LM head on either die") {
  for (const auto place : {lm_head_placement::nmp, lm_head_placement::xpu}) {
    for (const char* name : {"Mixtral-8x7B", "OLMoE-1B-7B-0924", "DeepSeek-V2-Lite"}) {
      CAPTURE(name);
      CAPTURE(static_cast<int>(place));
      const auto m = preset(name);
      auto sys = stratum_l();
      sys.lm_head = place;
      const auto bare = evaluate_decode(sys, m, decode(8, 2048), hot(m, 0.316), false);
      const auto tree = evaluate_decode(sys, m, decode(8, 2048), hot(m, 0.316), true);
      const auto cols = evaluate_decode(sys, m, decode(8, 2048), hot(m, 0.316), breakdown_detail::experts);
      for (const auto* r : {&tree, &cols}) {
        CHECK(r->time.si() == bare.time.si());
        CHECK(r->energy.si() == bare.energy.si());
        CHECK(r->nmp_invocations == bare.nmp_invocations);
        CHECK(r->xpu_launches == bare.xpu_launches);
        CHECK(r->composition.total().si() == bare.composition.total().si());
      }
      CHECK(tree.breakdown.time.si() == Approx(bare.time.si()).epsilon(1e-9));
    }
  }
}

TEST_CASE("the breakdown in proportion: a node per run of identical layers, experts as columns when asked") {
  const auto m = preset("DeepSeek-V3");
  const auto p = stratum_l();
  // Uniform routing places every MoE layer alike: the 3 dense layers and the 58 MoE layers are
  // two runs, each one layer's node with its repeat count.
  const auto r = evaluate_decode(p, m, decode(64, 4096), {}, breakdown_detail::layers);
  const auto& stage = r.breakdown.parts.at(0);
  REQUIRE(stage.parts.size() == 4);  // two runs, the step's ends on the xPU and the LM head on the NMP
  CHECK(stage.parts[3].name == "NMP: LM head");
  CHECK(stage.parts[0].name == "layers 0-2");
  CHECK(stage.parts[0].rule == cost_rule::repeat);
  CHECK(stage.parts[0].count == 3);
  CHECK(stage.parts[1].name == "layers 3-60");
  CHECK(stage.parts[1].count == 58);
  std::size_t nodes = 0;
  each_node(r.breakdown, [&](const cost<>& c) {
    ++nodes;
    CHECK(c.columns.empty());
  });
  CHECK(nodes < 100);  // was a node per expert slot and stage: over 100 000
  // With the experts: one column of each figure under each MoE block, one element per expert
  // that runs; bytes and energy sum to the block's; time sums to the block's on one pipeline
  // (all_chips), while under expert_parallel each chip's experts (and the split shared expert)
  // sum to that chip's pipeline, at most the block's expected slowest chip.
  for (const auto split : {expert_split::all_chips, expert_split::expert_parallel}) {
    CAPTURE(int(split));
    auto ps = p;
    ps.mapping.experts = split;
    const auto rs = evaluate_decode(ps, m, decode(64, 4096), {}, breakdown_detail::layers);
    const auto x = evaluate_decode(ps, m, decode(64, 4096), {}, breakdown_detail::experts);
    CHECK(x.time.si() == rs.time.si());
    CHECK(x.energy.si() == rs.energy.si());
    int blocks = 0;
    each_node(x.breakdown, [&](const cost<>& c) {
      if (c.columns.empty()) return;
      ++blocks;
      CHECK(c.name == "experts");
      const auto* id = column(c, "expert");
      const auto* chip = column(c, "chip");
      const auto* tier = column(c, "tier");
      const auto* t = column(c, "time_s");
      const auto* e = column(c, "energy_J");
      const auto* b = column(c, "bytes_B");
      REQUIRE(id != nullptr);
      REQUIRE(chip != nullptr);
      REQUIRE(tier != nullptr);
      REQUIRE(t != nullptr);
      REQUIRE(e != nullptr);
      REQUIRE(b != nullptr);
      CHECK(id->values.size() == std::size_t(m.experts + 1));  // the shared expert (-1) and 256 routed
      CHECK(std::count(id->values.begin(), id->values.end(), -1.0) == 1);
      std::vector<double> per_chip(static_cast<std::size_t>(p.chips), 0.0);
      double st = 0.0, se = 0.0, sb = 0.0, shared = 0.0;
      for (std::size_t i = 0; i < t->values.size(); ++i) {
        st += t->values[i];
        se += e->values[i];
        sb += b->values[i];
        if (chip->values[i] < 0.0) {
          shared += t->values[i];
        } else {
          REQUIRE(chip->values[i] < double(p.chips));
          per_chip[static_cast<std::size_t>(chip->values[i])] += t->values[i];
        }
        CHECK(tier->values[i] >= 0.0);
        CHECK(tier->values[i] < double(system_device(p).tiers.size()));
      }
      CHECK(se == Approx(c.energy.si()).epsilon(1e-9));
      CHECK(sb == Approx(c.bytes_on("nmp.weights").si()).epsilon(1e-9));
      if (split == expert_split::all_chips) {
        CHECK(st == Approx(c.time.si()).epsilon(1e-9));
      } else {
        for (double pc : per_chip) CHECK(pc + shared <= c.time.si() * (1.0 + 1e-9));
        CHECK(*std::max_element(per_chip.begin(), per_chip.end()) > 0.0);
      }
    });
    if (split == expert_split::all_chips) CHECK(blocks == 1);  // the 58 MoE layers are one run
    CHECK(blocks >= 1);
  }
  // Routing that differs from layer to layer (hit rates 0.3, 0.4, 0.5, 0.3, ...): more runs.
  usage_table skew;
  for (int l = 0; l < m.moe_layers(); ++l) {
    skew.push_back(usage_from_hit_rate(1, m.experts, m.top_k, 0.3 + 0.1 * (l % 3)).front());
  }
  const auto d = evaluate_decode(p, m, decode(64, 4096), {skew, {}}, breakdown_detail::layers);
  CHECK(d.breakdown.parts.at(0).parts.size() > 4);
  CHECK(d.breakdown.time.si() == Approx(d.time.si()).epsilon(1e-9));
}

TEST_CASE("asking for the breakdown tree never changes a number: every preset, system, batch and context") {
  // One computation, three views (README, Conventions): the tree, at either detail, is built
  // beside the fast path, so the totals are the same to the last bit and the tree's to rounding,
  // for uniform and for skewed routing.
  for (const auto& name : preset_names()) {
    const auto m = preset(name);
    for (const auto& sys : stratum_system_names()) {
      const auto p = stratum_system(sys);
      for (int b : {1, 16, 256}) {
        for (int ctx : {512, 4096}) {
          CAPTURE(name);
          CAPTURE(sys);
          CAPTURE(b);
          CAPTURE(ctx);
          const stratum_usage u = m.experts > 0 ? hot(m, 0.5) : stratum_usage{};
          const auto fast = evaluate_decode(p, m, decode(b, ctx), u, false);
          CHECK(fast.breakdown.parts.empty());
          for (const auto level : {breakdown_detail::layers, breakdown_detail::experts}) {
            CAPTURE(int(level));
            const auto tree = evaluate_decode(p, m, decode(b, ctx), u, level);
            CHECK(fast.feasible == tree.feasible);
            // One function computes the numbers either way: equal to the last bit.
            CHECK(fast.time.si() == tree.time.si());
            CHECK(fast.energy.si() == tree.energy.si());
            CHECK(fast.ffn_time.si() == tree.ffn_time.si());
            CHECK(fast.nmp_time.si() == tree.nmp_time.si());
            CHECK(fast.hot_hit_rate == tree.hot_hit_rate);
            CHECK(tree.breakdown.time.si() == Approx(tree.time.si()).epsilon(1e-9));
            CHECK(tree.breakdown.energy.si() == Approx(tree.energy.si()).epsilon(1e-9));
            // The composition is the same either way and sums to the step's time.
            const json jf = fast.composition, jt = tree.composition;
            CHECK(jf == jt);
            CHECK(fast.composition.total().si() == Approx(fast.time.si()).epsilon(1e-9));
          }
        }
      }
    }
  }
}

TEST_CASE("where the time goes: each mechanism's share follows its own term") {
  const auto m = preset("Mixtral-8x7B");
  const auto u = hot(m, 0.316);
  const auto p = stratum_l();
  const auto r1 = evaluate_decode(p, m, decode(1, 2048), u);
  const auto r64 = evaluate_decode(p, m, decode(64, 2048), u);
  for (const auto* r : {&r1, &r64}) {
    const auto& c = r->composition;
    for (const auto& part : {c.weight_stream, c.kv_stream, c.nmp_compute, c.ring, c.interposer, c.xpu_ops, c.fixed}) {
      CHECK(part.si() >= 0.0);
    }
    CHECK(c.total().si() == Approx(r->time.si()).epsilon(1e-9));
    // Fixed costs: 2 NMP invocations per layer and one for the LM head, one launch per xPU
    // operator (two norms per layer with the residual adds fused in, the router, embedding and
    // final norm); no residual-add launch.
    const auto d = system_device(p);
    const double launch = p.xpu.op_overhead.si();
    const double expect = m.layers * (2 * nmp_invocation_time(p, d).si() + 3 * launch) + nmp_invocation_time(p, d).si() + 2 * launch;
    CHECK(c.fixed.si() == Approx(expect).epsilon(1e-9));
  }
  // More sequences: the KV stream's share grows, the fixed costs' share shrinks.
  CHECK(r64.composition.kv_stream / r64.time > r1.composition.kv_stream / r1.time);
  CHECK(r64.composition.fixed / r64.time < r1.composition.fixed / r1.time);
  // A faster interposer PHY shortens the interposer part only.
  auto q = p;
  q.nmp.phy_bandwidth = q.nmp.phy_bandwidth * 2.0;
  const auto rq = evaluate_decode(q, m, decode(1, 2048), u);
  CHECK(rq.composition.interposer < r1.composition.interposer);
  CHECK(rq.composition.weight_stream.si() == Approx(r1.composition.weight_stream.si()).epsilon(1e-12));
}

TEST_CASE("d(step time)/d(tMRD) is twice the number of NMP invocations (mode entry and exit, two invocations per layer)") {
  using strata_test::fvar1;
  using strata_test::make_fvar;
  stratum_system_params<fvar1> p;
  p.nmp_mode_register_delay = units::ns(make_fvar<double, 1>(14.0));
  const auto m = preset("Mixtral-8x7B");
  const auto r = evaluate_decode(p, m, decode(8, 1024));
  // Two invocations per layer and one for the LM head on the NMP (Stratum §5.2).
  CHECK(r.nmp_invocations == 2 * m.layers + 1);
  CHECK(r.time.si().derivative(1) * 1e9 == Approx(2.0 * (2.0 * m.layers + 1.0)));
  p.lm_head = lm_head_placement::xpu;
  CHECK(evaluate_decode(p, m, decode(8, 1024)).time.si().derivative(1) * 1e9 == Approx(2.0 * 2.0 * m.layers));
}

TEST_CASE("one operator list for both sides: the GPU's and Stratum's counts per layer are equal, residual adds fused on both") {
  for (const char* name : {"Mixtral-8x7B", "OLMoE-1B-7B-0924", "DeepSeek-V2-Lite"}) {
    CAPTURE(name);
    const auto m = preset(name);
    const auto sys = stratum_l();
    const auto s = decode(4, 2048);
    const auto gpu_ops = step_operators(m, s);
    for (int l : {0, m.layers - 1}) {
      CAPTURE(l);
      const auto gpu_count = std::count_if(gpu_ops.begin(), gpu_ops.end(), [&](const op& o) { return o.layer == l; });
      const auto mine = stratum_layer_operators(sys, m, s, l);
      CHECK(static_cast<long>(mine.size()) == static_cast<long>(gpu_count));
      // The xPU runs the norms and (MoE layers) the router: no residual-add operator on either side.
      const auto on_xpu = std::count_if(mine.begin(), mine.end(), [](const auto& k) { return k.second == op_place::xpu; });
      CHECK(on_xpu == (m.is_moe_layer(l) ? 3 : 2));
    }
    // The step's fixed time is its xPU launches and NMP invocations and nothing else: every
    // launch is one of the listed xPU operators (a residual-add launch would show here).
    const auto sm = prepare(sys);
    const auto r = evaluate_decode(sm, m, s);
    long xpu_ops = 0;
    for (const auto& o : gpu_ops) xpu_ops += stratum_op_place(sys, o.kind) == op_place::xpu ? 1 : 0;
    CHECK(r.xpu_launches == xpu_ops);
    CHECK(r.nmp_invocations == 2 * m.layers + 1);
    const double fixed = r.xpu_launches * sys.xpu.op_overhead.si() + r.nmp_invocations * nmp_invocation_time(sys, sm.device).si();
    CHECK(r.composition.fixed.si() == Approx(fixed).epsilon(1e-12));
  }
}

TEST_CASE("the LM head runs on the NMP from the always-read rows; the xPU reading is an option") {
  const auto m = preset("OLMoE-1B-7B-0924");
  auto nmp = stratum_s();
  auto xpu = nmp;
  xpu.lm_head = lm_head_placement::xpu;
  CHECK(nmp.lm_head == lm_head_placement::nmp);  // the paper's reading is the default
  const auto rn = evaluate_decode(nmp, m, decode(1, 2048), {}, true);
  const auto rx = evaluate_decode(xpu, m, decode(1, 2048), {}, true);
  // Stratum-S's one interposer link made the head's 206 MB read the step's largest xPU cost.
  CHECK(rn.time < rx.time);
  CHECK(rn.composition.xpu_ops.si() < 0.1 * rx.composition.xpu_ops.si());
  CHECK(rn.xpu_launches == rx.xpu_launches - 1);
  CHECK(rn.nmp_invocations == rx.nmp_invocations + 1);
  CHECK(system_tree_has(rn.breakdown, "NMP: LM head"));
  CHECK_FALSE(system_tree_has(rx.breakdown, "NMP: LM head"));
  // Its rows move from the non-NMP data to the always-read weights.
  const auto pn = place_model(prepare(nmp), m, decode(1, 2048));
  const auto px = place_model(prepare(xpu), m, decode(1, 2048));
  CHECK(pn.stages[0].weight_rows > px.stages[0].weight_rows);
  CHECK(pn.stages[0].plan.non_nmp_rows < px.stages[0].plan.non_nmp_rows);
  // Stratum-XL: the head on the last stage only.
  const auto l4 = preset("Llama-4-Scout-17B-16E");
  const auto pl = place_model(prepare(stratum_xl()), l4, decode(1, 2048));
  auto xl_x = stratum_xl();
  xl_x.lm_head = lm_head_placement::xpu;
  const auto plx = place_model(prepare(xl_x), l4, decode(1, 2048));
  CHECK(pl.stages[0].weight_rows == plx.stages[0].weight_rows);
  CHECK(pl.stages[1].weight_rows > plx.stages[1].weight_rows);
}

TEST_CASE("refresh is in every Stratum and HBM-NMP step: its energy part and tRFC/tREFI of bank time") {
  const auto m = preset("Mixtral-8x7B");
  for (bool hbm : {false, true}) {
    CAPTURE(hbm);
    auto on = hbm ? with_hbm_nmp(stratum_l()) : stratum_l();
    auto off = on;
    (hbm ? off.hbm.refresh : off.nmp.refresh).enabled = false;
    const auto d_on = system_device(on), d_off = system_device(off);
    const auto& ref = hbm ? on.hbm.refresh : on.nmp.refresh;
    CHECK(d_on.tiers.front().bandwidth.si() ==
          Approx(d_off.tiers.front().bandwidth.si() * (1.0 - ref.t_rfc.si() / ref.t_refi.si())));
    CHECK(d_on.refresh_power.si() == Approx(d_on.capacity().si() * 8.0 * 0.11e-12 / 0.032));
    CHECK(d_off.refresh_power.si() == 0.0);
    const auto r_on = evaluate_decode(on, m, decode(16, 2048)), r_off = evaluate_decode(off, m, decode(16, 2048));
    CHECK(r_on.parts.refresh.si() == Approx(d_on.refresh_power.si() * on.chips * r_on.time.si()));
    CHECK(r_off.parts.refresh.si() == 0.0);
    CHECK(r_on.composition.weight_stream > r_off.composition.weight_stream);
    CHECK(r_on.energy > r_off.energy);
  }
  // A 32 GiB Mono3D chip refreshes at about 0.94 W.
  CHECK(system_device(stratum_l()).refresh_power.si() == Approx(0.945).epsilon(0.01));
}

TEST_CASE("the xPU's power while the NMP decodes: idle by default, its TDP as the paper's peaks imply") {
  const auto m = preset("Mixtral-8x7B");
  auto idle = stratum_l();
  auto tdp = idle;
  tdp.xpu_while_nmp_power = xpu_while_nmp::tdp;
  CHECK(idle.xpu_while_nmp_power == xpu_while_nmp::idle);
  const auto ri = evaluate_decode(idle, m, decode(16, 4096)), rt = evaluate_decode(tdp, m, decode(16, 4096));
  CHECK(rt.time.si() == ri.time.si());  // a power reading, not a time
  const double extra = (idle.xpu.tdp - idle.xpu.static_power).si() * ri.nmp_time.si();
  CHECK((rt.parts.xpu_static - ri.parts.xpu_static).si() == Approx(extra));
  CHECK(rt.tokens_per_joule < 0.6 * ri.tokens_per_joule);
  const json j = tdp;
  CHECK(j.at("xpu_while_nmp_power") == "tdp");
  CHECK(j.at("lm_head") == "nmp");
  CHECK(j.get<stratum_system_params<>>() == tdp);
  json bad = j;
  bad["nmp"]["refresh"]["t_rfc"] = "5 us";
  CHECK_THROWS_AS((void)system_device(bad.get<stratum_system_params<>>()), config_error);
  CHECK(field_of([&] { (void)system_device(bad.get<stratum_system_params<>>()); }) == "nmp.refresh.t_rfc");
}

TEST_CASE("bad system inputs name the field") {
  auto p = stratum_l();
  p.chips = 0;
  CHECK(field_of([&] { (void)evaluate_decode(p, preset("Mixtral-8x7B"), decode(1, 512)); }) == "chips");
  p = stratum_l();
  p.xpu_wait_power_fraction = 2.0;
  CHECK(field_of([&] { validate(p); }) == "xpu_wait_power_fraction");
  const auto m = preset("Mixtral-8x7B");
  CHECK(field_of([&] { (void)evaluate_decode(stratum_l(), m, step_shape{.mode = phase::prefill, .batch = 1, .context = 8}); }) ==
        "mode");
  stratum_usage bad{usage_table(3, std::vector<double>(8, 0.25)), {}};
  CHECK(field_of([&] { (void)evaluate_decode(stratum_l(), m, decode(1, 512), bad); }) == "f");
  // Prefill runs on the xPU over the interposer.
  const auto pre = evaluate_prefill(stratum_l(), m, step_shape{.mode = phase::prefill, .batch = 1, .context = 2048});
  CHECK(pre.tokens_per_s > 0.0);
}

TEST_CASE("prefill checks the KV cache it writes against the rows, as decode does") {
  const auto prefill = [](int b, int s) { return step_shape{.mode = phase::prefill, .batch = b, .context = s}; };
  // Mixtral at B 256, S 32 768: 1.1 TB of KV on Stratum-L is infeasible, with the stage and the rows.
  const auto m = preset("Mixtral-8x7B");
  const auto big = evaluate_prefill(stratum_l(), m, prefill(256, 32768));
  CHECK_FALSE(big.feasible);
  CHECK(big.reason.find("Stratum-L stage 0: KV cache needs") != std::string::npos);
  CHECK(big.time.si() > 0.0);  // still timed
  const auto small = evaluate_prefill(stratum_l(), m, prefill(1, 2048));
  CHECK(small.feasible);
  CHECK(small.reason.empty());
  // The prefill of S tokens holds exactly what the decode step after it at context S - 1 holds
  // (S tokens of KV), on every system, model and shape: the two verdicts agree.
  for (const char* sys_name : {"stratum-s", "stratum-l", "stratum-xl"}) {
    const auto sys = stratum_system(sys_name);
    for (const char* model_name : {"Mixtral-8x7B", "OLMoE-1B-7B-0924", "DeepSeek-V2-Lite", "Llama-4-Scout-17B-16E"}) {
      const auto mm = preset(model_name);
      for (const auto& [b, s] : {std::pair{1, 2048}, std::pair{16, 4096}, std::pair{64, 32768}, std::pair{256, 131072}}) {
        CAPTURE(sys_name);
        CAPTURE(model_name);
        CAPTURE(b);
        CAPTURE(s);
        const auto pre = evaluate_prefill(sys, mm, prefill(b, s));
        const auto dec = evaluate_decode(sys, mm, decode(b, s - 1));
        CHECK(pre.feasible == dec.feasible);
        if (!pre.feasible) CHECK_FALSE(pre.reason.empty());
      }
    }
  }
  // What decides it is the KV cache: the same weights fit at a short prompt and not at a long one.
  const auto ol = preset("OLMoE-1B-7B-0924");
  CHECK(evaluate_prefill(stratum_s(), ol, prefill(1, 1024)).feasible);
  const auto ol_long = evaluate_prefill(stratum_s(), ol, prefill(256, 131072));
  CHECK_FALSE(ol_long.feasible);
  CHECK(ol_long.reason.find("KV") != std::string::npos);
}

TEST_CASE("system parameters round-trip through JSON") {
  const auto p = stratum_xl();
  const json j = p;
  CHECK(j.at("stages") == 2);
  CHECK(j.at("memory") == "mono3d");
  CHECK(j.get<stratum_system_params<>>() == p);
}

TEST_CASE("a Stratum decode step's flat operator list: every layer's parts, summing to the step's time and energy") {
  // Mixtral on Stratum-L (one stage): the entries' times add up to the step's time and their
  // energies to its energy; six entries per layer, then the ends, the NMP LM head and the static
  // energy. No breakdown: no list, the same numbers.
  const auto m = preset("Mixtral-8x7B");
  const auto r = evaluate_decode(stratum_l(), m, decode(4, 2048), {}, breakdown_detail::layers);
  const auto plain = evaluate_decode(stratum_l(), m, decode(4, 2048));
  CHECK(plain.ops.empty());
  CHECK(plain.time.si() == r.time.si());
  CHECK(plain.energy.si() == r.energy.si());
  REQUIRE(r.ops.size() == std::size_t(6 * m.layers + 3));
  double t = 0.0, e = 0.0;
  int attention = 0;
  for (const auto& o : r.ops) {
    t += o.time.si();
    e += o.energy.si();
    CHECK(o.stage == 0);
    if (o.kind == stratum_op_kind::attention) {
      CHECK(o.name == "L" + std::to_string(attention) + ".attention");
      CHECK(o.layer == attention);
      ++attention;
    }
  }
  CHECK(attention == m.layers);
  CHECK(t == Approx(r.time.si()).epsilon(1e-12));
  CHECK(e == Approx(r.energy.si()).epsilon(1e-12));
  CHECK(r.ops.back().kind == stratum_op_kind::static_power);
  CHECK(r.ops.back().time.si() == 0.0);
  CHECK(r.ops[r.ops.size() - 2].name == "lm_head");
  // Every layer's node names its own layer: a run starting at layer 8 is labelled L8, not L0.
  const auto& stage = r.breakdown.parts.at(0);
  for (const auto& run : stage.parts) {
    if (run.name.rfind("layer", 0) != 0) continue;
    const auto& layer = run.rule == cost_rule::repeat ? run.parts.at(0) : run;
    const int first = std::stoi(run.name.substr(run.name.find_first_of("0123456789")));
    const std::string want = "L" + std::to_string(first) + " attention";
    bool found = false;
    for (const auto& part : layer.parts) found = found || part.name == want;
    CHECK_MESSAGE(found, run.name);
  }
  // JSON: the list under "ops", each entry with its kind by name.
  const json j = r;
  REQUIRE(j.at("ops").size() == r.ops.size());
  CHECK(j.at("ops").at(3).at("name") == "L0.attention");
  CHECK(j.at("ops").at(3).at("kind") == "attention");
}

TEST_CASE("a pipelined Stratum step's operator list: each stage's entries sum to the stage, the step is the slowest plus the hand-off") {
  const auto m = preset("Mixtral-8x7B");
  const auto p = stratum_system("stratum-xl");
  REQUIRE(p.stages == 2);
  const auto r = evaluate_decode(p, m, decode(8, 2048), {}, breakdown_detail::layers);
  std::vector<double> stage_t(2, 0.0);
  double handoff = 0.0, e = 0.0;
  for (const auto& o : r.ops) {
    e += o.energy.si();
    if (o.kind == stratum_op_kind::handoff) {
      handoff = o.time.si();
    } else {
      stage_t.at(static_cast<std::size_t>(o.stage)) += o.time.si();
    }
  }
  CHECK(handoff > 0.0);
  CHECK(stage_t[0] > 0.0);
  CHECK(stage_t[1] > 0.0);
  CHECK(std::max(stage_t[0], stage_t[1]) + handoff == Approx(r.time.si()).epsilon(1e-12));
  CHECK(e == Approx(r.energy.si()).epsilon(1e-12));
}
