#include "strata/baseline/gpu.hpp"

#include <doctest/doctest.h>

#include "support/field_of.hpp"

#include <cmath>   // std::isfinite
#include <string>  // std::string

#include "strata/core/json.hpp"
#include "strata/workload/presets.hpp"

using namespace strata;
using namespace strata::literals;
using doctest::Approx;

namespace {

using strata_test::field_of;

}  // namespace

// The numbers of data/model_and_hardware_facts.json, "hardware" (NVIDIA datasheet figures as quoted
// by the pages listed there).
TEST_CASE("the H100 SXM5 preset carries the datasheet numbers of the facts file") {
  const gpu_params g = h100_sxm5();
  CHECK(g == gpu_params{});
  CHECK(g.name == "H100 SXM5");
  CHECK(g.peak_flops.in(units::Tflops) == Approx(989.4));       // fp16_bf16_tensor_dense_tflops
  CHECK(g.memory_capacity.in(units::GiB) == Approx(80.0));      // hbm3_capacity_gb (binary, DRAM)
  CHECK(g.memory_bandwidth.in(units::TBps) == Approx(3.35));    // memory_bandwidth_tb_s
  CHECK(g.tdp.in(units::W) == Approx(700.0));                   // tdp_w
  CHECK(g.link_bandwidth.in(units::GBps) == Approx(900.0 / 2));  // nvlink 900 GB/s bidirectional
  CHECK(g.memory_tier_name == "hbm");
  // O'Connor et al. MICRO 2017: HBM2 3.9 pJ/bit = 31.2 pJ/B.
  CHECK(g.memory_energy.in(units::pJ_per_B) == Approx(31.2));
  // vLLM gpu_memory_utilization default.
  CHECK(g.usable_memory_fraction == Approx(0.9));
  CHECK_NOTHROW(validate(g));
}

TEST_CASE("the RTX A6000 preset carries the datasheet numbers of the facts file") {
  const gpu_params g = rtx_a6000();
  CHECK(g.name == "RTX A6000");
  CHECK(g.peak_flops.in(units::Tflops) == Approx(154.8));        // fp16_tensor_dense_tflops
  CHECK(g.memory_capacity.in(units::GiB) == Approx(48.0));       // gddr6_capacity_gb
  CHECK(g.memory_bandwidth.in(units::GBps) == Approx(768.0));    // memory_bandwidth_gb_s
  CHECK(g.tdp.in(units::W) == Approx(300.0));                    // tdp_w
  CHECK(g.link_bandwidth.in(units::GBps) == Approx(112.5 / 2));  // NVLink bridge 112.5 GB/s bidirectional
  CHECK(g.memory_tier_name == "gddr6");
  CHECK(g.memory_energy.in(units::pJ_per_bit) == Approx(7.5));  // Micron GDDR6
  CHECK_NOTHROW(validate(g));
}

TEST_CASE("the A100 SXM4 80GB preset carries its cited datasheet numbers") {
  const gpu_params g = a100_sxm4_80gb();
  CHECK(g.name == "A100 SXM4 80GB");
  CHECK(g.peak_flops.in(units::Tflops) == Approx(312.0));        // BF16 dense
  CHECK(g.peak_flops_fp8.si() == 0.0);                            // no FP8 tensor cores
  CHECK(g.memory_capacity.in(units::GiB) == Approx(80.0));
  CHECK(g.memory_bandwidth.in(units::GBps) == Approx(2039.0));
  CHECK(g.tdp.in(units::W) == Approx(400.0));
  CHECK(g.link_bandwidth.in(units::GBps) == Approx(300.0));      // 600 GB/s NVLink, both directions
  CHECK(g.memory_tier_name == "hbm");
  CHECK_NOTHROW(validate(g));
}

TEST_CASE("energy per FLOP is derived so that a GEMM at the achievable rate draws the power limit") {
  for (const auto& g : {h100_sxm5(), rtx_a6000(), a100_sxm4_80gb()}) {
    CAPTURE(g.name);
    const double watts = g.static_power.in(units::W) +
                         g.compute_efficiency * g.peak_flops.in(units::flops) * g.energy_per_flop.si();
    CHECK(watts == Approx(g.tdp.in(units::W)));
  }
  // H100: (700 − 140) W / (794.5/989 · 989.4 TFLOP/s) = 0.7046 pJ/FLOP.
  CHECK(h100_sxm5().energy_per_flop.in(units::pJ_per_op) == Approx(560.0 / (794.5 / 989.0 * 989.4)));
  // A6000: (300 − 110) W / (252.9/312 · 154.8 TFLOP/s) = 1.514 pJ/FLOP.
  CHECK(rtx_a6000().energy_per_flop.in(units::pJ_per_op) == Approx(190.0 / (252.9 / 312.0 * 154.8)));
  // A100: (400 − 72) W / (252.9/312 · 312 TFLOP/s) = 1.297 pJ/FLOP.
  CHECK(a100_sxm4_80gb().energy_per_flop.in(units::pJ_per_op) == Approx(328.0 / 252.9));
}

TEST_CASE("GPU presets are found by name, case- and dash-insensitively") {
  CHECK(gpu_preset("h100_sxm5") == h100_sxm5());
  CHECK(gpu_preset("H100-SXM5") == h100_sxm5());
  CHECK(gpu_preset("rtx_a6000") == rtx_a6000());
  CHECK(gpu_preset("A100-SXM4-80GB") == a100_sxm4_80gb());
  CHECK(gpu_preset("H200-SXM") == h200_sxm());
  CHECK(gpu_preset("B200") == b200());
  CHECK(gpu_preset("MI300X") == mi300x());
  CHECK(gpu_preset("mi325x") == mi325x());
  CHECK(gpu_preset_names() == std::vector<std::string>{"h100_sxm5", "rtx_a6000", "a100_sxm4_80gb", "h200_sxm",
                                                       "b200", "mi300x", "mi325x"});
  for (const auto& n : gpu_preset_names()) CHECK_NOTHROW(validate(gpu_preset(n)));
  CHECK(field_of([] { (void)gpu_preset("B300"); }) == "name");
  CHECK_THROWS_WITH_AS((void)gpu_preset("B300"),
                       "[strata.gpu] unknown GPU \"B300\" (known: h100_sxm5, rtx_a6000, a100_sxm4_80gb, h200_sxm, "
                       "b200, mi300x, mi325x)",
                       config_error);
}

TEST_CASE("the H200, B200, MI300X and MI325X presets carry their datasheets' figures (dense rates)") {
  SUBCASE("H200 SXM: the H100 die with 141 GB of HBM3e at 4.8 TB/s") {
    const gpu_params g = h200_sxm();
    CHECK(g.peak_flops.in(units::Tflops) == Approx(989.4));
    CHECK(g.peak_flops_fp8.in(units::Tflops) == Approx(1978.9));
    CHECK(g.peak_flops_fp4.si() == 0.0);
    CHECK(g.memory_capacity.in(units::GB) == Approx(141.0));
    CHECK(g.memory_bandwidth.in(units::TBps) == Approx(4.8));
    CHECK(g.tdp.in(units::W) == Approx(700.0));
    CHECK(g.link_bandwidth.in(units::GBps) == Approx(450.0));
  }
  SUBCASE("B200 (HGX): half of the sparse 4.5 / 9 / 18 PFLOPS, 180 GB at 7.7 TB/s, 1000 W, NVLink 5") {
    const gpu_params g = b200();
    CHECK(g.peak_flops.in(units::Tflops) == Approx(2250.0));
    CHECK(g.peak_flops_fp8.in(units::Tflops) == Approx(4500.0));
    CHECK(g.peak_flops_fp4.in(units::Tflops) == Approx(9000.0));
    CHECK(g.memory_capacity.in(units::GB) == Approx(180.0));
    CHECK(g.memory_bandwidth.in(units::TBps) == Approx(7.7));
    CHECK(g.tdp.in(units::W) == Approx(1000.0));
    CHECK(g.link_bandwidth.in(units::GBps) == Approx(900.0));
  }
  SUBCASE("MI300X: 1307.4 / 2614.9 TFLOP/s, 192 GB at 5.3 TB/s, 750 W, no FP4") {
    const gpu_params g = mi300x();
    CHECK(g.peak_flops.in(units::Tflops) == Approx(1307.4));
    CHECK(g.peak_flops_fp8.in(units::Tflops) == Approx(2614.9));
    CHECK(g.peak_flops_fp4.si() == 0.0);
    CHECK(g.memory_capacity.in(units::GB) == Approx(192.0));
    CHECK(g.memory_bandwidth.in(units::TBps) == Approx(5.3));
    CHECK(g.tdp.in(units::W) == Approx(750.0));
    CHECK(g.link_bandwidth.in(units::GBps) == Approx(448.0));
  }
  SUBCASE("MI325X: MI300X compute with 256 GB at 6 TB/s and 1000 W") {
    const gpu_params g = mi325x();
    CHECK(g.peak_flops == mi300x().peak_flops);
    CHECK(g.peak_flops_fp8 == mi300x().peak_flops_fp8);
    CHECK(g.memory_capacity.in(units::GB) == Approx(256.0));
    CHECK(g.memory_bandwidth.in(units::TBps) == Approx(6.0));
    CHECK(g.tdp.in(units::W) == Approx(1000.0));
  }
  SUBCASE("energy per FLOP follows the TDP rule with each card's own figures") {
    for (const gpu_params& g : {h200_sxm(), b200(), mi300x(), mi325x()}) {
      CHECK(g.energy_per_flop.si() ==
            Approx(((g.tdp - g.static_power) / (g.peak_flops * g.compute_efficiency)).si()));
    }
  }
}

TEST_CASE("a 4-bit operator runs at the FP4 peak where the card has one, else dequantised at BF16") {
  op o;
  o.flops = units::Tflop(1.0);
  o.bits = 4;
  const roofline_machine b = make_machine(b200(), 1);
  const roofline_machine h = make_machine(h100_sxm5(), 1);
  CHECK(b.peak_flops_4bit.in(units::Tflops) == Approx(9000.0));
  CHECK(peak_of(b, 4) == b.peak_flops_4bit);
  CHECK(peak_of(h, 4) == h.peak_flops);  // H100: FP8 but no FP4 tensor cores
  CHECK(peak_of(h, 8) == h.peak_flops_8bit);
  CHECK(peak_of(h, 16) == h.peak_flops);
  CHECK(cost_of(o, b).compute_time.si() == Approx(1e12 / (9000e12 * b.compute_efficiency)));
  CHECK(cost_of(o, h).compute_time.si() == Approx(1e12 / (989.4e12 * h.compute_efficiency)));
}

TEST_CASE("make_machine gives devices of the card with one memory tier holding every data class") {
  const gpu_params g = h100_sxm5();
  const roofline_machine m = make_machine(g, 4);
  CHECK(m.name == "H100 SXM5 x4");
  CHECK(m.devices == 4);
  CHECK(m.peak_flops == g.peak_flops);
  CHECK(m.compute_efficiency == g.compute_efficiency);
  CHECK(m.memory_efficiency == g.memory_efficiency);
  REQUIRE(m.tiers.size() == 1);
  CHECK(m.tiers[0].name == "hbm");
  CHECK(m.tiers[0].capacity == g.memory_capacity);
  CHECK(m.tiers[0].bandwidth == g.memory_bandwidth);
  CHECK(m.tiers[0].energy_per_byte == g.memory_energy);
  CHECK(m.tiers[0].latency.si() == 0.0);
  CHECK(m.placement == tier_map{});
  CHECK(m.energy_per_flop == g.energy_per_flop);
  CHECK(m.static_power == g.static_power);
  CHECK(m.max_power == g.tdp);
  CHECK(m.op_overhead == g.op_overhead);
  CHECK(m.link_bandwidth == g.link_bandwidth);
  CHECK(m.link_latency == g.link_latency);
  CHECK(m.link_energy == g.link_energy);
  CHECK_NOTHROW(validate(m));
  CHECK(make_machine(g, 1).name == "H100 SXM5");
  CHECK(make_machine(rtx_a6000(), 2).tiers[0].name == "gddr6");
  CHECK(field_of([&] { (void)make_machine(g, 0); }) == "devices");
}

TEST_CASE("Mixtral-8x7B in BF16 (93.4 GB) does not fit one 80 GB H100 but fits two") {
  const model m = preset("Mixtral-8x7B");
  const step_shape s{.mode = phase::decode, .batch = 1, .context = 2048};
  const gpu_params g = h100_sxm5();
  const gpu_fit one = check_fit(g, 1, m, s);
  // 46 702 792 704 parameters · 2 B.
  CHECK(one.weight_bytes.in(units::B) == Approx(46702792704.0 * 2));
  CHECK(one.weight_bytes.in(units::GB) == Approx(93.4).epsilon(1e-3));
  // KV: 1 · 2048 tokens · 32 layers · 4096 B.
  CHECK(one.kv_bytes.in(units::B) == Approx(2048.0 * 32 * 4096));
  // Usable: 80 GiB · 0.9 = 77.3 GB.
  CHECK(one.usable_per_device.in(units::GiB) == Approx(72.0));
  CHECK_FALSE(one.fits);
  CHECK(one.reason.find("does not fit on 1 x H100 SXM5") != std::string::npos);

  const gpu_fit two = check_fit(g, 2, m, s);
  CHECK(two.fits);
  CHECK(two.reason.find("fits on 2 x H100 SXM5") == 0);
  // Weights and KV split over the 2 ranks (8 KV heads ≥ 2); workspace is per device.
  CHECK(two.required_per_device.in(units::B) ==
        Approx(46702792704.0 + 2048.0 * 32 * 4096 / 2 + two.activation_bytes.in(units::B)));
  // Workspace, decode B = 1: T·2 B·(4·4096 + 2·(2·14336)) / 2 + 1·32000·4 B / 2.
  CHECK(two.activation_bytes.in(units::B) == Approx((2.0 * (4 * 4096 + 2 * 2 * 14336) + 4.0 * 32000) / 2));
  CHECK(min_devices(g, m, s) == 2);
}

TEST_CASE("OLMoE-1B-7B fits one RTX A6000") {
  const model m = preset("OLMoE-1B-7B-0924");
  const step_shape s{.mode = phase::decode, .batch = 32, .context = 2048};
  const gpu_fit f = check_fit(rtx_a6000(), 1, m, s);
  CHECK(f.fits);
  CHECK(f.weight_bytes.in(units::GB) == Approx(13.84).epsilon(1e-3));  // 6.92 B parameters · 2 B
  std::string why;
  CHECK(min_devices(rtx_a6000(), m, s, &why) == 1);
  CHECK(why == f.reason);
}

TEST_CASE("the fit check follows vLLM's tensor-parallel rules and reports infeasibility as a result") {
  const gpu_params g = h100_sxm5();
  SUBCASE("heads must divide by the tensor-parallel degree") {
    const gpu_fit f = check_fit(g, 3, preset("Mixtral-8x7B"), {});
    CHECK_FALSE(f.fits);
    CHECK(f.reason.find("32 attention heads divisible by the tensor-parallel degree 3") != std::string::npos);
  }
  SUBCASE("MLA's latent KV cache is replicated on every rank") {
    const model m = preset("DeepSeek-V2-Lite");
    const step_shape s{.mode = phase::decode, .batch = 64, .context = 4096};
    const gpu_fit f = check_fit(g, 2, m, s);
    CHECK(f.required_per_device.si() ==
          Approx((f.weight_bytes / 2.0 + f.kv_bytes + f.activation_bytes).si()));
  }
  SUBCASE("KV heads split over at most kv_heads ranks") {
    model m = preset("Mixtral-8x7B");
    m.kv_heads = 2;  // fewer KV heads than ranks: replicated in pairs
    const gpu_fit f = check_fit(g, 8, m, {});
    CHECK(f.required_per_device.si() ==
          Approx((f.weight_bytes / 8.0 + f.kv_bytes / 2.0 + f.activation_bytes).si()));
  }
  SUBCASE("a model too large for 8 cards gives 0 devices and the reason") {
    const model m = preset("DeepSeek-V3");  // 671 B parameters in FP8 = 671 GB > 8 · 72 GiB
    std::string why;
    CHECK(min_devices(g, m, {.mode = phase::decode, .batch = 64, .context = 4096}, &why, 8) == 0);
    CHECK(why.find("does not fit on 8 x H100 SXM5") == 0);
    CHECK(why.find("weights 671.03 GB") != std::string::npos);
  }
  SUBCASE("a longer context needs more memory, never less") {
    const model m = preset("Qwen2.5-32B");
    double prev = 0.0;
    for (const int ctx : {512, 2048, 8192, 32768}) {
      const step_shape s{.mode = phase::decode, .batch = 8, .context = ctx};
      const double need = check_fit(g, 2, m, s).required_per_device.si();
      CHECK(need > prev);
      prev = need;
    }
  }
}

TEST_CASE("gpu_params round-trip through JSON with units, and partial JSON keeps the defaults") {
  for (const auto& g : {h100_sxm5(), rtx_a6000(), a100_sxm4_80gb()}) {
    const json j = g;
    CHECK(j.get<gpu_params>() == g);
  }
  const json j = h100_sxm5();
  CHECK(json(units::TBps(3.35)).get<std::string>().ends_with(" B/s"));
  CHECK(j["memory_bandwidth"] == json(units::TBps(3.35)));
  const auto nvl = json::parse(R"({"name": "H100 NVL", "memory_capacity": "94 GiB", "memory_bandwidth": "3.9 TB/s"})")
                       .get<gpu_params>();
  CHECK(nvl.name == "H100 NVL");
  CHECK(nvl.memory_capacity.in(units::GiB) == Approx(94.0));
  CHECK(nvl.memory_bandwidth.in(units::TBps) == Approx(3.9));
  CHECK(nvl.tdp == h100_sxm5().tdp);

  const json fit = check_fit(h100_sxm5(), 2, preset("Mixtral-8x7B"), {});
  CHECK(fit["fits"] == true);
  CHECK(fit.contains("reason"));
  CHECK(fit.contains("required_per_device"));
}

TEST_CASE("bad GPU parameters raise config_error naming the field") {
  const auto bad = [](auto change) {
    gpu_params g = h100_sxm5();
    change(g);
    return field_of([&] { validate(g); });
  };
  CHECK(bad([](gpu_params& g) { g.peak_flops = units::Tflops(0.0); }) == "peak_flops");
  CHECK(bad([](gpu_params& g) { g.memory_capacity = 0_GiB; }) == "memory_capacity");
  CHECK(bad([](gpu_params& g) { g.memory_bandwidth = units::TBps(-1.0); }) == "memory_bandwidth");
  CHECK(bad([](gpu_params& g) { g.memory_tier_name.clear(); }) == "memory_tier_name");
  CHECK(bad([](gpu_params& g) { g.static_power = 800_W; }) == "static_power");
  CHECK(bad([](gpu_params& g) { g.compute_efficiency = 1.5; }) == "compute_efficiency");
  CHECK(bad([](gpu_params& g) { g.memory_efficiency = 0.0; }) == "memory_efficiency");
  CHECK(bad([](gpu_params& g) { g.op_overhead = units::us(-1.0); }) == "op_overhead");
  CHECK(bad([](gpu_params& g) { g.link_bandwidth = 0_GBps; }) == "link_bandwidth");
  CHECK(bad([](gpu_params& g) { g.usable_memory_fraction = 0.0; }) == "usable_memory_fraction");
  CHECK(bad([](gpu_params& g) { g.name.clear(); }) == "name");
  CHECK_THROWS_WITH_AS(validate(gpu_params{.compute_efficiency = 2.0}),
                       "[strata.gpu] compute_efficiency must be in [1e-06, 1], got 2", config_error);

  CHECK(field_of([] { (void)json::parse(R"({"tdp": "700 GB"})").get<gpu_params>(); }) == "tdp");
  CHECK(field_of([] { (void)json::parse(R"({"tdp": 700})").get<gpu_params>(); }) == "tdp");
  CHECK(field_of([] { (void)json::parse(R"({"tpd": "700 W"})").get<gpu_params>(); }) == "tpd");
  CHECK(field_of([] { (void)check_fit(h100_sxm5(), 0, preset("Mixtral-8x7B"), {}); }) == "devices");
  CHECK(field_of([] { (void)check_fit(h100_sxm5(), 1, preset("Mixtral-8x7B"), {.batch = 0}); }) == "batch");
}

TEST_CASE("tensor parallelism beyond one node pays the inter-node link, within a node it does not") {
  const gpu_params g = h100_sxm5();
  const model m = preset("DeepSeek-V3");
  const step_shape s{.mode = phase::decode, .batch = 64, .context = 4096};
  CHECK(min_devices(g, m, s) == 16);  // 671 GB of FP8 weights: two 8-GPU nodes
  const auto r8 = evaluate(m, s, make_machine(g, 8));
  const auto r16 = evaluate(m, s, make_machine(g, 16));
  CHECK(make_machine(g, 8).nodes() == 1);
  CHECK(make_machine(g, 16).nodes() == 2);
  CHECK(r8.node_link_bytes.si() == 0.0);
  CHECK(r16.node_link_bytes.si() > 0.0);
  CHECK_FALSE(r8.feasible);  // 671 GB do not fit 8 × 80 GiB
  CHECK(r16.feasible);
  // Hand check of one all-reduce on 16 H100s: T·d = 64 · 7168 · 2 B = 917.5 kB; inside a node
  // 2·7/8 · B / 450 GB/s + 14 · 3 µs; across 2 nodes 2·1/2 · (B / 8) / 50 GB/s + 2 · 5 µs.
  const double b = 64.0 * 7168 * 2;
  const auto a = allreduce(make_machine(g, 16), units::B(b));
  CHECK(a.time.si() == Approx(1.75 * b / 450e9 + 42e-6 + (b / 8) / 50e9 + 10e-6));
  CHECK(a.node_link_bytes.si() == Approx(2.0 * b));
  // A slower node link slows 16 GPUs and leaves 8 untouched.
  gpu_params slow = g;
  slow.node_link_bandwidth = units::GBps(12.5);  // 100 Gb/s
  slow.node_link_latency = units::us(20.0);
  CHECK(evaluate(m, s, make_machine(slow, 16)).time > r16.time);
  CHECK(evaluate(m, s, make_machine(slow, 8)).time == r8.time);
  // The single-NVLink-domain assumption (gpus_per_node = 0) uses no node link.
  gpu_params flat = g;
  flat.gpus_per_node = 0;
  CHECK(evaluate(m, s, make_machine(flat, 16)).node_link_bytes.si() == 0.0);
  CHECK(evaluate(m, s, make_machine(flat, 8)).time == r8.time);
  // 12 GPUs are not whole nodes.
  CHECK(field_of([&] { (void)make_machine(g, 12); }) == "devices");
  gpu_params bad = g;
  bad.node_link_bandwidth = units::GBps(0.0);
  CHECK(field_of([&] { validate(bad); }) == "node_link_bandwidth");
  bad = g;
  bad.gpus_per_node = -1;
  CHECK(field_of([&] { validate(bad); }) == "gpus_per_node");
}

TEST_CASE("DeepSeek-V3 at batch 1024 and 128k context: sizes stay finite, positive and plausible") {
  const gpu_params g = h100_sxm5();
  const model m = preset("DeepSeek-V3");
  for (const phase ph : {phase::decode, phase::prefill}) {
    const step_shape s{.mode = ph, .batch = 1024, .context = 131072};
    CAPTURE(static_cast<int>(ph));
    const auto fit = check_fit(g, 64, m, s);
    // KV: 1024 · 131072 tokens · 61 layers · 576 values · 2 B = 9.43 TB (MLA: replicated per rank).
    CHECK(fit.kv_bytes.si() == Approx(1024.0 * 131072 * 61 * 576 * 2));
    CHECK(fit.weight_bytes.si() == Approx(671.0e9).epsilon(0.01));
    CHECK_FALSE(fit.fits);
    CHECK(std::isfinite(fit.required_per_device.si()));
    const auto r = evaluate(m, s, make_machine(g, 64));
    CHECK_FALSE(r.feasible);
    CHECK(r.reason.find("does not fit") == 0);
    CHECK(std::isfinite(r.time.si()));
    CHECK(r.time.si() > 0.0);
    CHECK(std::isfinite(r.energy.si()));
    CHECK(r.kv_bytes.si() > 0.0);
    const double tokens = ph == phase::decode ? 1024.0 : 1024.0 * 131072;
    // FLOPs: at least 2 · 37 B active parameters per token, at most 2 · 671 B plus attention
    // over the whole context (prefill: 128k² / 2 query–key pairs per sequence, ~1e21).
    CHECK(r.flops.si() >= 2.0 * 37e9 * tokens * 0.9);
    CHECK(r.flops.si() < (ph == phase::decode ? 1e17 : 1e22));
    CHECK(r.tokens == Approx(tokens));
    if (ph == phase::decode) {
      // Decode reads the whole latent cache, 9.43 TB, on each of the 64 ranks (MLA under TP:
      // kv_read_factor).
      CHECK(r.kv_bytes.si() == Approx(64.0 * 1024.0 * 131073 * 61 * 576 * 2).epsilon(1e-6));
    }
  }
}
