#include "strata/workload/roofline.hpp"

#include <doctest/doctest.h>

#include <boost/math/differentiation/autodiff.hpp>

#include "support/field_of.hpp"

#include <algorithm>  // std::max
#include <string>     // std::string

#include "strata/baseline/gpu.hpp"
#include "strata/core/json.hpp"
#include "strata/workload/presets.hpp"

using namespace strata;
using namespace strata::literals;
using doctest::Approx;

namespace {

// A toy machine with round numbers: 100 TFLOP/s, one 1 TB/s tier at 10 pJ/B, 1 pJ/FLOP,
// 50 W static, 400 W cap, 1 µs per operator, 100 GB/s links with 1 µs per hop at 2 pJ/B.
roofline_machine toy(int devices = 1) {
  roofline_machine m;
  m.name = "toy";
  m.devices = devices;
  m.peak_flops = units::Tflops(100.0);
  m.tiers = {memory_tier<>{.name = "mem", .capacity = 80_GiB, .bandwidth = 1_TBps, .latency = 0_ns,
                           .energy_per_byte = 10_pJ_per_B, .banks = 1}};
  m.energy_per_flop = 1_pJ_per_op;
  m.static_power = 50_W;
  m.max_power = 400_W;
  m.op_overhead = 1_us;
  m.link_bandwidth = 100_GBps;
  m.link_latency = 1_us;
  m.link_energy = 2_pJ_per_B;
  return m;
}

op make_op(op_kind kind, double flops, double weight_b, double act_b = 0.0, double kv_b = 0.0) {
  op o;
  o.kind = kind;
  o.layer = 0;
  o.flops = op_count<>::from_si(flops);
  o.weight_bytes = data_size<>::from_si(weight_b);
  o.activation_bytes = data_size<>::from_si(act_b);
  o.kv_bytes = data_size<>::from_si(kv_b);
  return o;
}

using strata_test::field_of;

}  // namespace

TEST_CASE("a compute-bound operator takes FLOPs over the peak plus the launch overhead") {
  // 1 TFLOP and 1 MB on the toy machine: compute 1e12 / 1e14 = 10 ms; memory 1e6 / 1e12 = 1 µs.
  const op o = make_op(op_kind::dense_ffn, 1e12, 1e6);
  const auto c = cost_of(o, toy());
  CHECK(c.compute_bound);
  CHECK(c.compute_time.in(units::ms) == Approx(10.0));
  CHECK(c.memory_time.in(units::us) == Approx(1.0));
  CHECK(c.time.in(units::us) == Approx(10000.0 + 1.0));
  // Energy 1e12 · 1 pJ + 1e6 · 10 pJ = 1 J + 10 µJ.
  CHECK(c.energy.in(units::J) == Approx(1.0 + 1e-5));

  SUBCASE("two devices halve both times, efficiencies stretch them") {
    auto m = toy(2);
    CHECK(cost_of(o, m).compute_time.in(units::ms) == Approx(5.0));
    m.compute_efficiency = 0.5;
    CHECK(cost_of(o, m).compute_time.in(units::ms) == Approx(10.0));
    CHECK(cost_of(o, m).energy.in(units::J) == Approx(1.0 + 1e-5));  // energy does not depend on speed
  }
}

TEST_CASE("a memory-bound operator takes bytes over the bandwidth plus latency and overhead") {
  // 1 GFLOP and 10 GB of weights: compute 10 µs; memory 1e10 / 1e12 = 10 ms.
  const op o = make_op(op_kind::qkv_proj, 1e9, 1e10);
  auto m = toy();
  auto c = cost_of(o, m);
  CHECK_FALSE(c.compute_bound);
  CHECK(c.memory_time.in(units::ms) == Approx(10.0));
  CHECK(c.time.in(units::us) == Approx(10000.0 + 1.0));
  // Energy 1e9 · 1 pJ + 1e10 · 10 pJ = 1 mJ + 100 mJ.
  CHECK(c.energy.in(units::mJ) == Approx(101.0));

  SUBCASE("the tier latency is paid once per operator") {
    m.tiers[0].latency = 500_ns;
    CHECK(cost_of(o, m).time.in(units::us) == Approx(10000.0 + 0.5 + 1.0));
  }
  SUBCASE("activations on the same tier share its bandwidth") {
    const op with_act = make_op(op_kind::qkv_proj, 1e9, 1e10, 1e9);
    CHECK(cost_of(with_act, m).memory_time.in(units::ms) == Approx(11.0));
  }
  SUBCASE("activations on another tier overlap with the weights") {
    m.tiers.push_back(memory_tier<>{.name = "sram", .capacity = 64_MiB, .bandwidth = 10_TBps,
                                    .latency = 0_ns, .energy_per_byte = 1_pJ_per_B, .banks = 1});
    m.placement.activations = 1;
    const op with_act = make_op(op_kind::qkv_proj, 1e9, 1e10, 1e9);
    const auto ca = cost_of(with_act, m);
    CHECK(ca.memory_time.in(units::ms) == Approx(10.0));  // max(10 ms, 0.1 ms)
    CHECK(ca.energy.in(units::mJ) == Approx(101.0 + 1.0));  // + 1e9 · 1 pJ
  }
}

TEST_CASE("the experts of one layer from a routing histogram pay one launch overhead, like routed_experts") {
  // Three memory-bound experts of 1 GB each in layer 0 and one in layer 1: 1 ms each on the toy
  // machine; overheads: one for layer 0's group and one for layer 1.
  std::vector<op> ops;
  for (const int layer : {0, 0, 0, 1}) {
    op e = make_op(op_kind::expert, 1e6, 1e9);
    e.layer = layer;
    ops.push_back(e);
  }
  const auto r = evaluate(ops, {}, 64, toy());
  CHECK(r.time.in(units::us) == Approx(4 * 1000.0 + 2 * 1.0));
  // The tree's leaves say the same: layer 0's first expert carries the overhead, the others not.
  const auto tree = evaluate(ops, {}, 64, toy(), step_breakdown::tree);
  REQUIRE(tree.breakdown.parts.size() == 3);  // layer 0, layer 1, static power
  CHECK(tree.breakdown.parts[0].parts[0].time.in(units::us) == Approx(1001.0));
  CHECK(tree.breakdown.parts[0].parts[1].time.in(units::us) == Approx(1000.0));
  CHECK(tree.breakdown.parts[0].time.in(units::us) == Approx(3001.0));
  CHECK(tree.breakdown.parts[1].time.in(units::us) == Approx(1001.0));
}

TEST_CASE("the ring all-reduce costs 2(n-1)/n of the bytes over the link plus 2(n-1) hops") {
  const auto m = toy(4);
  // 1 MB over 4 devices: 2·3/4 · 1e6 / 1e11 = 15 µs, + 6 · 1 µs = 21 µs; 6 MB cross links.
  const auto a = allreduce(m, 1_MB);
  CHECK(a.time.in(units::us) == Approx(21.0));
  CHECK(a.link_bytes.in(units::MB) == Approx(6.0));
  CHECK(a.energy.in(units::uJ) == Approx(6e6 * 2e-12 * 1e6));
  CHECK(allreduce(toy(1), 1_MB).time.si() == 0.0);  // one device: nothing to reduce

  SUBCASE("evaluate adds one all-reduce of T·d activations after an output projection") {
    // Decode B = 2, d = 1000, 16-bit: 2 · 1000 · 2 B = 4000 B; 2·3/4 · 4000 / 1e11 = 0.06 µs + 6 µs.
    const step_shape s{.mode = phase::decode, .batch = 2, .context = 8};
    const std::vector<op> ops{make_op(op_kind::out_proj, 1e6, 1e6)};
    const auto r = evaluate(ops, s, 1000, m);
    const auto c = cost_of(ops[0], m);
    CHECK(r.time.in(units::us) == Approx(c.time.in(units::us) + 6.06));
    CHECK(r.link_bytes.in(units::B) == Approx(6 * 4000.0));
    // A norm does not reduce.
    const auto rn = evaluate({make_op(op_kind::attn_norm, 1e6, 1e6)}, s, 1000, m);
    CHECK(rn.link_bytes.si() == 0.0);
  }
}

TEST_CASE("step energy adds static power over the step and is capped at the power limit") {
  // One memory-bound op: 10 ms + 1 µs, dynamic 101 mJ; static 50 W × 10.001 ms = 500.05 mJ.
  const step_shape s{.mode = phase::decode, .batch = 4, .context = 8};
  const std::vector<op> ops{make_op(op_kind::qkv_proj, 1e9, 1e10)};
  auto m = toy();
  const auto r = evaluate(ops, s, 64, m);
  CHECK(r.time.in(units::us) == Approx(10001.0));
  CHECK(r.dynamic_energy.in(units::mJ) == Approx(101.0));
  CHECK(r.energy.in(units::mJ) == Approx(101.0 + 500.05));
  CHECK_FALSE(r.power_capped);
  CHECK(r.tokens == Approx(4.0));
  CHECK(r.tokens_per_s == Approx(4.0 / 10001e-6));
  CHECK(r.joules_per_token == Approx(r.energy.in(units::J) / 4.0));

  SUBCASE("a 55 W limit caps the energy at 55 W × time") {
    m.max_power = 55_W;
    const auto rc = evaluate(ops, s, 64, m);
    CHECK(rc.power_capped);
    CHECK(rc.energy.in(units::mJ) == Approx(55.0 * 10.001));
    CHECK(rc.dynamic_energy.in(units::mJ) == Approx(101.0));
  }
  SUBCASE("static power scales with the devices") {
    const auto r2 = evaluate(ops, s, 64, toy(2));
    // Half the time (5 ms + 1 µs, no reduce for a QKV projection), same dynamic energy, 2 cards idle.
    CHECK(r2.time.in(units::us) == Approx(5001.0));
    CHECK(r2.energy.in(units::mJ) == Approx(101.0 + 2 * 50.0 * 5.001));
  }
  SUBCASE("prefill produces batch × context tokens") {
    const auto rp = evaluate(ops, {.mode = phase::prefill, .batch = 4, .context = 8}, 64, m);
    CHECK(rp.tokens == Approx(32.0));
  }
}

TEST_CASE("the breakdown tree carries the same totals as the fast path, and serialises") {
  const model mx = preset("Mixtral-8x7B");
  const step_shape s{.mode = phase::decode, .batch = 16, .context = 2048};
  const auto ops = step_operators(mx, s);
  const auto machine = make_machine(h100_sxm5(), 2);
  const auto fast = evaluate(ops, s, mx.hidden, machine);
  const auto tree = evaluate(ops, s, mx.hidden, machine, step_breakdown::tree);
  CHECK(fast.breakdown.parts.empty());
  CHECK(tree.time.si() == Approx(fast.time.si()).epsilon(1e-12));
  CHECK(tree.energy.si() == Approx(fast.energy.si()).epsilon(1e-12));
  CHECK(tree.breakdown.time.si() == Approx(fast.time.si()).epsilon(1e-12));
  CHECK(tree.breakdown.energy.si() == Approx(fast.energy.si()).epsilon(1e-12));
  // io (embedding) + 32 layers + io (final norm, LM head) + static power.
  REQUIRE(tree.breakdown.parts.size() == 1 + 32 + 1 + 1);
  double t = 0.0, e_dyn = 0.0, leaves = 0.0;
  for (const auto& p : tree.breakdown.parts) {
    t += p.time.si();
    if (p.name != "static power") e_dyn += p.energy.si();
    leaves += static_cast<double>(p.parts.size());
  }
  CHECK(t == Approx(fast.time.si()).epsilon(1e-12));
  CHECK(e_dyn == Approx(fast.dynamic_energy.si()).epsilon(1e-12));
  CHECK(leaves == Approx(static_cast<double>(ops.size())));
  CHECK(tree.breakdown.parts.back().energy.si() ==
        Approx((machine.static_power * fast.time * 2.0).si()).epsilon(1e-12));

  const json j = tree.breakdown;
  for (const char* key : {"name", "rule", "time_s", "energy_J", "bytes_B", "parts"}) {
    CAPTURE(key);
    CHECK(j.contains(key));
  }
  CHECK(j["name"] == "step");
  CHECK(j["rule"] == "seq");
  CHECK(j["time_s"].get<double>() == Approx(fast.time.si()));
  CHECK(j["bytes_B"].contains("hbm"));
  const json& layer0 = j["parts"][1];
  CHECK(layer0["name"] == "layer 0");
  CHECK(layer0["parts"][0]["name"] == "L0.attn_norm");
  CHECK(layer0["parts"][0].contains("source"));
  // The output projection carries its all-reduce.
  CHECK(layer0["parts"][3]["name"] == "L0.out_proj");
  CHECK(layer0["parts"][3]["parts"][1]["name"] == "allreduce");
  CHECK(layer0["parts"][3]["parts"][1]["bytes_B"].contains("link"));
}

TEST_CASE("GPU time is never below the physical bound for every preset, batch, context and phase") {
  // The bound: max(bytes / (n · peak bandwidth), FLOPs / (n · peak compute)) with every
  // efficiency at 1; the model only adds overheads, latencies and all-reduces on top.
  const gpu_params g = h100_sxm5();
  int cases = 0;
  for (const auto& name : preset_names()) {
    const model m = preset(name);
    for (const phase ph : {phase::decode, phase::prefill}) {
      for (const int batch : {1, 8, 64, 256}) {
        for (const int context : {512, 2048, 8192}) {
          const step_shape s{.mode = ph, .batch = batch, .context = context};
          const int fit = min_devices(g, m, s);
          const int n = fit > 0 ? fit : 8;
          const auto machine = make_machine(g, n);
          const auto ops = step_operators(m, s);
          const auto r = evaluate(ops, s, m.hidden, machine);
          const double bytes = (r.weight_bytes + r.kv_bytes + r.activation_bytes).si();
          // The compute bound uses the fastest path the card has (FP8 for 8-bit models).
          const double peak = std::max(g.peak_flops.si(), g.peak_flops_fp8.si());
          const double bound = std::max(bytes / (n * g.memory_bandwidth.si()), r.flops.si() / (n * peak));
          CAPTURE(name);
          CAPTURE(batch);
          CAPTURE(context);
          CAPTURE(n);
          CHECK(r.time.si() >= bound);
          CHECK(r.time.si() < 1e4);  // finite and sane
          CHECK(r.energy.si() > 0.0);
          CHECK(r.energy.si() <= (g.tdp * r.time * double(n)).si() * (1 + 1e-12));
          ++cases;
        }
      }
    }
  }
  CHECK(cases == 17 * 2 * 4 * 3);
}

TEST_CASE("evaluate rejects bad machines and shapes with config_error naming the field") {
  const std::vector<op> ops{make_op(op_kind::qkv_proj, 1e9, 1e9)};
  const step_shape s{};
  auto m = toy();
  m.peak_flops = units::Tflops(0.0);
  CHECK(field_of([&] { (void)evaluate(ops, s, 64, m); }) == "peak_flops");
  m = toy();
  m.memory_efficiency = 1.5;
  CHECK(field_of([&] { (void)evaluate(ops, s, 64, m); }) == "memory_efficiency");
  m = toy();
  m.placement.kv = 3;
  CHECK(field_of([&] { (void)evaluate(ops, s, 64, m); }) == "placement.kv");
  m = toy(2);
  m.link_bandwidth = 0_GBps;
  CHECK(field_of([&] { (void)evaluate(ops, s, 64, m); }) == "link_bandwidth");
  CHECK(field_of([&] { (void)evaluate(ops, s, 0, toy()); }) == "hidden");
  CHECK(field_of([&] { (void)evaluate(ops, {.mode = phase::decode, .batch = 0}, 64, toy()); }) == "batch");
}

TEST_CASE("the roofline's compute and memory terms differentiate with autodiff") {
  using boost::math::differentiation::make_fvar;
  using F = boost::math::differentiation::autodiff_fvar<double, 1>;
  // 25.5 GB over 2 devices of 3.35 TB/s at η = 0.9: d(t)/d(BW) = −B / (n·η·BW²).
  const F bw = make_fvar<double, 1>(3.35e12);
  const auto t = roofline_memory_time(data_size<F>(units::GB(25.5)), bandwidth<F>::from_si(bw), duration<F>(units::us(1.0)),
                                      F(0.9), F(2.0));
  CHECK(t.si().derivative(0) == Approx(1e-6 + 25.5e9 / (2 * 0.9 * 3.35e12)));
  CHECK(t.si().derivative(1) == Approx(-25.5e9 / (2 * 0.9 * 3.35e12 * 3.35e12)));
  // 26.6 GFLOP at 989.4 TFLOP/s, η = 0.8, one device: d(t)/d(η) = −F / (P·η²).
  const F eta = make_fvar<double, 1>(0.8);
  const auto c = roofline_compute_time(op_count<F>(units::flop(26.6e9)), op_rate<F>(units::Tflops(989.4)), eta, F(1.0));
  CHECK(c.si().derivative(1) == Approx(-26.6e9 / (989.4e12 * 0.64)));
  CHECK(roofline_memory_time(data_size<>{}, units::TBps(1.0), units::us(1.0), 1.0, 1.0).si() == 0.0);
}

TEST_CASE("a whole step on an autodiff machine: the double step's numbers, and its derivatives by hand") {
  using boost::math::differentiation::make_fvar;
  using F = boost::math::differentiation::autodiff_fvar<double, 1>;
  // Two devices; a memory-bound operator (1 GFLOP, 8 GB of weights) and a compute-bound one
  // (1 PFLOP, 1 MB): d t_step / d BW = −8e9 / (2·BW²) from the first, nothing from the second,
  // plus the all-reduce of the out_proj (32 KiB of activations) over the links.
  const std::vector<op> ops{make_op(op_kind::out_proj, 1e9, 8e9), make_op(op_kind::dense_ffn, 1e15, 1e6)};
  const step_shape s{.mode = phase::decode, .batch = 2, .context = 512};
  const auto plain = evaluate(ops, s, 4096, toy(2));
  auto m = machine_cast<F>(toy(2));
  m.tiers[0].bandwidth = bandwidth<F>::from_si(make_fvar<double, 1>(1e12));
  const auto r = evaluate(ops, s, 4096, m);
  CHECK(r.time.si().derivative(0) == Approx(plain.time.si()).epsilon(1e-14));
  CHECK(r.energy.si().derivative(0) == Approx(plain.energy.si()).epsilon(1e-14));
  CHECK(r.tokens_per_s.derivative(0) == Approx(plain.tokens_per_s).epsilon(1e-14));
  CHECK(r.time.si().derivative(1) == Approx(-8e9 / (2.0 * 1e12 * 1e12)));
  // Tokens per second: d(B/t)/d BW = −B/t² · dt/d BW.
  const double t = plain.time.si();
  CHECK(r.tokens_per_s.derivative(1) == Approx(-2.0 / (t * t) * (-8e9 / (2.0 * 1e12 * 1e12))));
  // The link bandwidth moves the step through the two all-reduces only: 2(n−1)/n·bytes/BW² each.
  auto q = machine_cast<F>(toy(2));
  q.link_bandwidth = bandwidth<F>::from_si(make_fvar<double, 1>(100e9));
  const double reduce_b = 2.0 * 4096 * 16 / 8.0;  // B·d activations at 16 bits
  CHECK(evaluate(ops, s, 4096, q).time.si().derivative(1) == Approx(-2.0 * (reduce_b * 1.0 / (100e9 * 100e9))));
  CHECK(field_of([&] {
          auto bad = machine_cast<F>(toy(2));
          bad.memory_efficiency = F(0.0);
          (void)evaluate(ops, s, 4096, bad);
        }) == "memory_efficiency");
}

TEST_CASE("8-bit operators use the machine's 8-bit peak when it has one") {
  // DeepSeek-V3 ships FP8 weights: its projections run at the H100's FP8 peak (twice FP16);
  // the RTX A6000 has no FP8 path and runs them at its FP16 peak.
  model m = preset("DeepSeek-V3");
  REQUIRE(m.weight_bits == 8);
  const step_shape s{.mode = phase::prefill, .batch = 1, .context = 4096};
  const auto ops = step_operators(m, s);
  const op* proj = nullptr;
  const op* attn = nullptr;
  for (const auto& o : ops) {
    if (o.kind == op_kind::qkv_proj && o.layer == 5) proj = &o;
    if (o.kind == op_kind::attention && o.layer == 5) attn = &o;
  }
  REQUIRE(proj != nullptr);
  REQUIRE(attn != nullptr);
  CHECK(proj->bits == 8);
  CHECK(attn->bits == 16);  // attention core runs at the activations' precision
  const auto h100 = make_machine(h100_sxm5(), 8);
  const auto c = cost_of(*proj, h100);
  CHECK(c.compute_time.si() == Approx(proj->flops.si() / (8 * 1978.9e12 * h100.compute_efficiency)));
  const auto ca = cost_of(*attn, h100);
  CHECK(ca.compute_time.si() == Approx(attn->flops.si() / (8 * 989.4e12 * h100.compute_efficiency)));
  const auto a6000 = make_machine(rtx_a6000(), 8);
  CHECK(cost_of(*proj, a6000).compute_time.si() == Approx(proj->flops.si() / (8 * 154.8e12 * a6000.compute_efficiency)));
}

TEST_CASE("across nodes the all-reduce is hierarchical: NVLink-class inside, the node link across") {
  auto m = toy(8);
  m.devices_per_node = 4;  // 2 nodes of 4
  m.node_link_bandwidth = 10_GBps;
  m.node_link_latency = 5_us;
  m.node_link_energy = 20_pJ_per_B;
  // 1 MB: inside a node 2·3/4 · 1e6 / 1e11 = 15 µs + 6 · 1 µs; across: 2·1/2 · (1e6 / 4) / 1e10
  // = 25 µs + 2 · 5 µs. Bytes: 2·3·2 = 12 MB on device links, 2·1 = 2 MB across nodes.
  const auto a = allreduce(m, 1_MB);
  CHECK(a.time.in(units::us) == Approx(21.0 + 35.0));
  CHECK(a.node_time.in(units::us) == Approx(35.0));
  CHECK(a.node_link_bytes.in(units::MB) == Approx(2.0));
  CHECK(a.link_bytes.in(units::MB) == Approx(14.0));
  CHECK(a.energy.si() == Approx(12e6 * 2e-12 + 2e6 * 20e-12));
  // One node (devices ≤ devices_per_node, or devices_per_node = 0): no node-link term.
  auto one = toy(4);
  one.devices_per_node = 4;
  one.node_link_bandwidth = 10_GBps;
  CHECK(allreduce(one, 1_MB).node_link_bytes.si() == 0.0);
  CHECK(allreduce(one, 1_MB).time.in(units::us) == Approx(21.0));
  // Validation: whole nodes and a node link.
  auto bad = m;
  bad.devices = 6;
  CHECK(field_of([&] { validate(bad); }) == "devices");
  bad = m;
  bad.node_link_bandwidth = 0_GBps;
  CHECK(field_of([&] { validate(bad); }) == "node_link_bandwidth");
  bad = m;
  bad.devices_per_node = -1;
  CHECK(field_of([&] { validate(bad); }) == "devices_per_node");
}

TEST_CASE("the resident footprint of a model adds up to its parameters, KV cache and workspace") {
  const model m = preset("Mixtral-8x7B");
  const step_shape s{.mode = phase::decode, .batch = 64, .context = 2048};
  const auto f = resident_footprint(m, s);
  const double weights = double(count_params(m).total) * m.weight_bits / 8.0;
  CHECK((f.experts + f.weights + f.non_nmp).si() == Approx(weights));
  CHECK(f.experts.si() == Approx(expert_bytes(m).si() * 8 * 32));
  CHECK(f.kv.si() == Approx(kv_bytes_per_token_layer(m).si() * 64 * 2048 * 32));
  CHECK(f.activations.si() == Approx(activation_workspace(m, s).si()));
  // Layer ranges partition the model: two halves hold every layer once; the embedding in the
  // first, the LM head in the last.
  const auto a = resident_footprint(m, s, {0, 16, true, false});
  const auto b = resident_footprint(m, s, {16, 32, false, true});
  CHECK((a.experts + b.experts).si() == Approx(f.experts.si()));
  CHECK((a.weights + b.weights).si() == Approx(f.weights.si()));
  CHECK((a.kv + b.kv).si() == Approx(f.kv.si()));
  CHECK((a.non_nmp + b.non_nmp).si() == Approx(f.non_nmp.si()));
  CHECK(resident_footprint(m, s, {}, 1.3).experts.si() == Approx(1.3 * f.experts.si()));
  CHECK(field_of([&] { (void)resident_footprint(m, s, {16, 8}); }) == "end_layer");
  CHECK(field_of([&] { (void)resident_footprint(m, s, {40, -1}); }) == "first_layer");
  CHECK(field_of([&] { (void)resident_footprint(m, s, {}, 0.5); }) == "expert_copies");
}

TEST_CASE("a KV cache larger than its tier makes the step infeasible, named with its bytes") {
  // Two tiers: 1 GB "fast" for the KV cache, 200 GB "big" for everything else.
  auto m = toy(1);
  m.tiers = {memory_tier<>{.name = "big", .capacity = 200_GB, .bandwidth = 1_TBps, .energy_per_byte = 10_pJ_per_B},
             memory_tier<>{.name = "fast", .capacity = 1_GB, .bandwidth = 2_TBps, .energy_per_byte = 5_pJ_per_B}};
  m.placement.kv = 1;
  const model mx = preset("Mixtral-8x7B");
  // KV: 64 · 2048 tokens · 32 layers · 4 KiB = 17.2 GB > 1 GB.
  const step_shape s{.mode = phase::decode, .batch = 64, .context = 2048};
  const auto r = evaluate(mx, s, m);
  CHECK_FALSE(r.feasible);
  CHECK(r.reason.find("tier fast must hold KV cache 17.2 GB = 17.2 GB but has 1 GB") != std::string::npos);
  CHECK(r.time.si() > 0.0);  // still timed
  // A short context fits: 64 · 64 · 32 · 4 KiB = 0.54 GB.
  const auto ok = evaluate(mx, {.mode = phase::decode, .batch = 64, .context = 64}, m);
  CHECK(ok.feasible);
  CHECK(ok.reason.find("fits on toy") == 0);
  // Two devices double every tier.
  auto two = m;
  two.devices = 2;
  const auto c = check_capacity(two, resident_footprint(mx, {.mode = phase::decode, .batch = 64, .context = 100}));
  CHECK(c.tiers[1].capacity.si() == Approx(2e9));
  CHECK(c.feasible);
  const json j = r;
  CHECK(j.at("feasible") == false);
}

TEST_CASE("the ring all-reduce time differentiates with autodiff in bandwidth and ranks") {
  using boost::math::differentiation::make_fvar;
  using F = boost::math::differentiation::autodiff_fvar<double, 1>;
  // 1 MB over 2 nodes' ring at 50 GB/s, 5 µs per step: t = 1e6 / 5e10 + 1e-5 = 30 µs;
  // d(t)/d(BW) = −bytes·2(N−1)/N / BW².
  const F bw = make_fvar<double, 1>(50e9);
  const auto t = ring_allreduce_time(data_size<F>(units::MB(1.0)), F(2.0), bandwidth<F>::from_si(bw),
                                     duration<F>(units::us(5.0)));
  CHECK(t.si().derivative(0) == Approx(30e-6));
  CHECK(t.si().derivative(1) == Approx(-1e6 / (50e9 * 50e9)));
  // In the rank count: d/dn [2(n−1)/n · B/BW + 2(n−1)λ] = 2B/(n²·BW) + 2λ; at n = 4: 2.5 µs + 10 µs.
  const F n = make_fvar<double, 1>(4.0);
  const auto u = ring_allreduce_time(data_size<F>(units::MB(1.0)), n, bandwidth<F>(units::GBps(50.0)),
                                     duration<F>(units::us(5.0)));
  CHECK(u.si().derivative(1) == Approx(2e6 / (16 * 50e9) + 10e-6));
  // One rank: nothing to reduce.
  CHECK(ring_allreduce_time(units::MB(1.0), 1.0, units::GBps(50.0), units::us(5.0)).si() == 0.0);
}

TEST_CASE("a step's dynamic energy splits into FLOPs, memory and links, and static is reported apart") {
  const model m = preset("Mixtral-8x7B");
  const step_shape s{.mode = phase::decode, .batch = 16, .context = 2048};
  const auto machine = make_machine(h100_sxm5(), 2);
  const auto r = evaluate(m, s, machine);
  CHECK(r.compute_energy.si() > 0.0);
  CHECK(r.memory_energy.si() > 0.0);
  CHECK(r.link_energy.si() > 0.0);  // two devices all-reduce
  CHECK((r.compute_energy + r.memory_energy + r.link_energy).si() == Approx(r.dynamic_energy.si()));
  CHECK(r.compute_energy.si() == Approx(r.flops.si() * machine.energy_per_flop.si()));
  CHECK(r.static_energy.si() == Approx(machine.static_power.si() * r.time.si() * 2));
  if (!r.power_capped) CHECK(r.energy.si() == Approx((r.dynamic_energy + r.static_energy).si()));
}

TEST_CASE("asking for the breakdown tree never changes a number: every preset, GPU, phase, batch and context") {
  // The totals are summed from the same terms with or without the tree: equal to the last bit.
  for (const auto& name : preset_names()) {
    const auto mdl = preset(name);
    for (const auto& g : {h100_sxm5(), a100_sxm4_80gb(), rtx_a6000()}) {
      for (int devices : {1, 8}) {
        const auto m = make_machine(g, devices);
        for (phase ph : {phase::decode, phase::prefill}) {
          for (int b : {1, 16, 256}) {
            for (int ctx : {512, 4096}) {
              CAPTURE(name);
              CAPTURE(g.name);
              CAPTURE(devices);
              CAPTURE(b);
              CAPTURE(ctx);
              const step_shape s{.mode = ph, .batch = b, .context = ctx};
              const auto fast = evaluate(mdl, s, m);
              const auto tree = evaluate(mdl, s, m, {}, step_breakdown::tree);
              CHECK(fast.time.si() == tree.time.si());
              CHECK(fast.energy.si() == tree.energy.si());
              CHECK(fast.tokens_per_s == tree.tokens_per_s);
              CHECK(fast.feasible == tree.feasible);
              CHECK(tree.breakdown.time.si() == tree.time.si());
            }
          }
        }
      }
    }
  }
}

TEST_CASE("the resident footprint stores MXFP4 experts at 4.25 bits and holds only the window of sliding layers") {
  const model m = preset("gpt-oss-20b");
  const step_shape s{.mode = phase::decode, .batch = 4, .context = 65536};
  const footprint f = resident_footprint(m, s);
  const double experts = 3.0 * 2880.0 * 2880.0 * 32.0 * 24.0;  // gate, up, down of 32 experts in 24 layers
  CHECK(f.experts.in(units::B) == doctest::Approx(experts * 4.25 / 8.0));
  // KV: 12 full layers hold 65536 tokens, 12 sliding layers 128, per sequence; 2048 B per token-layer.
  CHECK(f.kv.in(units::B) == 4.0 * (12.0 * 65536.0 + 12.0 * 128.0) * 2048.0);
  // The GPU fit check counts the same bytes.
  const gpu_fit fit = check_fit(h100_sxm5(), 1, m, s);
  CHECK(fit.kv_bytes.in(units::B) == f.kv.in(units::B));
  CHECK(fit.weight_bytes.in(units::B) == doctest::Approx(weight_storage_bytes(m).in(units::B)));
}

TEST_CASE("vLLM's custom all-reduce: the measured H100 latencies, between them linear, where vLLM takes it") {
  using strata_test::field_of;
  // At the table's sizes, its values (sglang pull request 2904, vLLM's kernel on H100).
  CHECK(vllm_custom_allreduce_time(units::KiB(64.0), 2).in(units::us) == Approx(8.7));
  CHECK(vllm_custom_allreduce_time(units::KiB(512.0), 4).in(units::us) == Approx(20.6));
  CHECK(vllm_custom_allreduce_time(units::MiB(1.0), 8).in(units::us) == Approx(30.4));
  // By hand between 64 KiB and 512 KiB at 4 ranks: 288 KiB is half-way, (9.2 + 20.6)/2 = 14.9 µs.
  CHECK(vllm_custom_allreduce_time(units::KiB(288.0), 4).in(units::us) == Approx(14.9));
  // Six ranks (not measured): half-way between 4 and 8: (20.6 + 24.1)/2 at 512 KiB.
  CHECK(vllm_custom_allreduce_time(units::KiB(512.0), 6).in(units::us) == Approx(22.35));
  // Below the smallest size: its value; above 2 MiB the last segment's slope, (45.0 − 30.4) µs per MiB at 8.
  CHECK(vllm_custom_allreduce_time(units::B(16.0), 2).in(units::us) == Approx(9.5));
  CHECK(vllm_custom_allreduce_time(units::MiB(4.0), 8).in(units::us) == Approx(45.0 + 2.0 * 14.6));
  // Where vLLM uses NCCL instead (3 ranks, 8 MiB or more): negative, the caller's ring.
  CHECK(vllm_custom_allreduce_time(units::KiB(64.0), 3).si() < 0.0);
  CHECK(vllm_custom_allreduce_time(units::MiB(8.0), 2).si() < 0.0);
  // Invariant: from 64 KiB on, more bytes never take less time, at every rank count.
  for (const int n : {2, 4, 6, 8}) {
    double last = 0.0;
    for (double kib = 64.0; kib < 8192.0; kib *= 1.5) {
      const double t = vllm_custom_allreduce_time(units::KiB(kib), n).si();
      CHECK(t >= last);
      last = t;
    }
  }

  SUBCASE("a machine set to it charges it in place of the ring, inside one node only") {
    auto m = toy(4);
    m.allreduce = allreduce_algorithm::vllm_custom;
    CHECK(allreduce(m, units::KiB(512.0)).time.in(units::us) == Approx(20.6));
    // The link bytes (and energy) stay the ring's.
    CHECK(allreduce(m, 1_MB).link_bytes.in(units::MB) == Approx(6.0));
    // Beyond its 8 MiB buffer: the ring (2·3/4 · 1e7 / 1e11 = 150 µs + 6 µs).
    CHECK(allreduce(m, 10_MB).time.in(units::us) == Approx(156.0));
    // Across nodes vLLM does not take it: the hierarchical ring, as without it.
    auto two_nodes = toy(8);
    two_nodes.devices_per_node = 4;
    two_nodes.node_link_bandwidth = units::GBps(50.0);
    auto custom = two_nodes;
    custom.allreduce = allreduce_algorithm::vllm_custom;
    CHECK(allreduce(custom, 1_MB).time.si() == Approx(allreduce(two_nodes, 1_MB).time.si()));
    // A GPU card carries it into its machine; the default stays the ring.
    gpu_params g = h100_sxm5();
    CHECK(make_machine(g, 2).allreduce == allreduce_algorithm::ring);
    g.allreduce = allreduce_algorithm::vllm_custom;
    CHECK(make_machine(g, 2).allreduce == allreduce_algorithm::vllm_custom);
  }

  SUBCASE("in JSON it is a name; another name is a config_error naming the field") {
    gpu_params g = h100_sxm5();
    g.allreduce = allreduce_algorithm::vllm_custom;
    json j = g;
    CHECK(j["allreduce"] == "vllm_custom");
    CHECK(j.get<gpu_params>() == g);
    j["allreduce"] = "tree";
    CHECK(field_of([&] { (void)j.get<gpu_params>(); }) == "allreduce");
  }

  SUBCASE("with autodiff: the derivative in the bytes is the segment's slope") {
    using boost::math::differentiation::make_fvar;
    using F = boost::math::differentiation::autodiff_fvar<double, 1>;
    const F b = make_fvar<double, 1>(288.0 * 1024.0);
    const auto t = vllm_custom_allreduce_time(data_size<F>::from_si(b), 4);
    CHECK(t.si().derivative(0) == Approx(14.9e-6));
    CHECK(t.si().derivative(1) == Approx((20.6 - 9.2) * 1e-6 / (448.0 * 1024.0)));
  }
}
