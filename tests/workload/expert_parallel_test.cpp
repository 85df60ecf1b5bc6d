#include "strata/workload/expert_parallel.hpp"

#include <doctest/doctest.h>

#include <boost/math/differentiation/autodiff.hpp>

#include "support/field_of.hpp"

#include <cmath>    // std::sqrt, std::pow
#include <cstdint>  // std::uint32_t
#include <vector>   // std::vector

#include "strata/baseline/gpu.hpp"
#include "strata/workload/presets.hpp"

using namespace strata;
using namespace strata::literals;
using doctest::Approx;
using strata_test::field_of;

namespace {

// One MoE layer, d = 8, 4 experts of 6 (top-2), no shared expert: the hand-counted case.
model ep_tiny() {
  return {.name = "ep-tiny", .family = "test", .layers = 1, .hidden = 8, .heads = 2, .kv_heads = 2,
          .head_dim = 4, .vocab = 10, .dense_ffn = 16, .first_dense_layers = 0, .experts = 4, .top_k = 2,
          .expert_ffn = 6};
}

// Two devices of round numbers: 100 TFLOP/s, 1 TB/s, 100 GB/s links with 1 µs per message.
roofline_machine ep_toy(int devices) {
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

const step_shape four_tokens{.mode = phase::decode, .batch = 4, .context = 16};

}  // namespace

TEST_CASE("all-to-all bytes of 4 tokens, 4 experts, top-2 on 2 devices, counted by hand") {
  const model m = ep_tiny();
  parallelism p{.ep = 2, .attention = attention_parallel::dp, .imbalance = ep_imbalance::mean};
  SUBCASE("uniform routing") {
    // Each device holds 2 sequences: 2 tokens × 2 routings = 4 rows, half to the other device's
    // experts: 2 rows sent; it receives 4 rows (T·k/n), half from the other device: 2 rows. A row
    // is d = 8 values of 2 bytes: 32 B through each device per all-to-all, 64 B sent in all.
    const auto er = ep_routings(m, four_tokens, p);
    REQUIRE(er.size() == 1);
    CHECK(er[0].second.load == std::vector<double>{4.0, 4.0});
    CHECK(er[0].second.dispatch_rows == 2.0);
    CHECK(er[0].second.total_rows == 4.0);
    const auto r = evaluate(m, four_tokens, ep_toy(2), p);
    CHECK(r.alltoall_bytes.in(units::B) == Approx(2 * 32.0));  // dispatch + combine
    // 32 B at 100 GB/s plus one message of 1 µs, twice.
    CHECK(r.alltoall_time.si() == Approx(2 * (32.0 / 100e9 + 1e-6)));
    // link_bytes: 64 B sent by the two devices, dispatch and combine; no all-reduce under DP.
    CHECK(r.link_bytes.in(units::B) == Approx(128.0));
  }
  SUBCASE("a routing histogram [3, 2, 2, 1]") {
    // Device 0 holds experts 0, 1 (5 routings), device 1 experts 2, 3 (3). Device 0 sends
    // 2·2·(1 − 5/8) = 1.5 rows and receives 5·(1 − 2/4) = 2.5; device 1 sends 2.5, receives 1.5.
    const expert_histogram h{{3, 2, 2, 1}};
    const auto er = ep_routings(m, four_tokens, p, h);
    CHECK(er[0].second.load == std::vector<double>{5.0, 3.0});
    CHECK(er[0].second.imbalance() == Approx(1.25));
    CHECK(er[0].second.dispatch_rows == Approx(2.5));
    CHECK(er[0].second.total_rows == Approx(4.0));
    const auto r = evaluate(m, four_tokens, ep_toy(2), p, h);
    CHECK(r.alltoall_bytes.in(units::B) == Approx(2 * 2.5 * 16.0));
    CHECK(r.link_bytes.in(units::B) == Approx(2 * 4.0 * 16.0));
  }
  SUBCASE("one redundant slot per device (EPLB)") {
    // Two replicas: expert 0 (3 per copy → 1.5), then expert 1 (2 → 1, before expert 2 by index).
    // Packed heaviest first: e2 (2) → d0, e0 (1.5) → d1, e0 → d0, e1 (1) → d1, e1 → d0 (d1 has
    // one), e3 (1) → d1 (d0 full): loads 2 + 1.5 + 1 = 4.5 and 1.5 + 1 + 1 = 3.5.
    p.redundant_experts = 1;
    const auto er = ep_routings(m, four_tokens, p, {{3, 2, 2, 1}});
    CHECK(er[0].second.copies == std::vector<int>{2, 2, 1, 1});
    CHECK(er[0].second.load == std::vector<double>{4.5, 3.5});
    CHECK(er[0].second.imbalance() == Approx(1.125));
  }
}

TEST_CASE("EP 1 is tensor parallelism exactly, with no all-to-all") {
  const model m = preset("Mixtral-8x7B");
  const step_shape s{.mode = phase::decode, .batch = 16, .context = 1024};
  const auto mach = make_machine(h100_sxm5(), 2);
  const auto tp = evaluate(m, s, mach);
  const auto ep1 = evaluate(m, s, mach, parallelism{});
  CHECK(ep1.time.si() == tp.time.si());
  CHECK(ep1.energy.si() == tp.energy.si());
  CHECK(ep1.link_bytes.si() == tp.link_bytes.si());
  CHECK(ep1.alltoall_bytes.si() == 0.0);
  CHECK(ep1.alltoall_time.si() == 0.0);
  CHECK(ep_routings(m, s, parallelism{}).empty());
  // And the memory fit.
  CHECK(check_fit(h100_sxm5(), 2, m, s, parallelism{}).required_per_device == check_fit(h100_sxm5(), 2, m, s).required_per_device);
}

TEST_CASE("DeepSeek-V3 decode on 8 x H100: TP 8 and EP 8 both run, EP 8 with DP attention reports its all-to-all") {
  const model m = preset("DeepSeek-V3");
  const step_shape s{.mode = phase::decode, .batch = 256, .context = 4096};
  const auto mach = make_machine(h100_sxm5(), 8);
  const auto tp = evaluate(m, s, mach, parallelism{});
  const auto ep_tp = evaluate(m, s, mach, parallelism{.ep = 8});
  const auto ep_dp = evaluate(m, s, mach, parallelism{.ep = 8, .attention = attention_parallel::dp});
  for (const auto* r : {&tp, &ep_tp, &ep_dp}) {
    CHECK(r->time.si() > 0.0);
    CHECK(r->tokens_per_s > 0.0);
  }
  CHECK(tp.alltoall_bytes.si() == 0.0);
  CHECK(ep_tp.alltoall_bytes.si() == 0.0);  // TP attention: every token on every device
  // DP attention: 32 tokens per device send 32·8·7/8 = 224 rows; the busiest device receives
  // L·7/8 with L = 256 + z_8·σ, σ² = 256·8·248·(7/8)/(8·255) (the hypergeometric variance).
  const double z8 = expected_max_standard_normal(8);
  CHECK(z8 == Approx(1.4236).epsilon(0.01));  // the exact expected maximum of 8 normals
  const double L = 256.0 + z8 * std::sqrt(256.0 * 8.0 * 248.0 * (7.0 / 8.0) / (8.0 * 255.0));
  const double rows = std::max(224.0, L * 7.0 / 8.0);
  const double per_layer = rows * 7168 * 2.0;  // BF16 activations
  CHECK(ep_dp.alltoall_bytes.in(units::B) == Approx(2.0 * 58 * per_layer));
  // Per all-to-all on NVLink: bytes / 450 GB/s + 7 messages of 3 µs.
  CHECK(ep_dp.alltoall_time.si() == Approx(2.0 * 58 * (per_layer / 450e9 + 7 * 3e-6)));
  // The time includes the all-to-alls; the imbalance makes EP slower than TP in the experts.
  CHECK(ep_dp.alltoall_time.si() < ep_dp.time.si());
  CHECK(ep_tp.time.si() > tp.time.si());
}

TEST_CASE("more EP devices: fewer expert bytes and routings per device; replicas lower the busiest trace device") {
  const model m = preset("DeepSeek-V3");
  const step_shape s{.mode = phase::decode, .batch = 64, .context = 2048};
  double last_touched = 1e300, last_load = 1e300;
  for (const int n : {2, 4, 8, 16, 32}) {
    const auto er = ep_routings(m, s, parallelism{.ep = n, .attention = attention_parallel::dp});
    CHECK(er[0].second.touched.front() < last_touched);
    CHECK(er[0].second.load.front() < last_load);
    CHECK(er[0].second.load.front() >= 64.0 * 8 / n);  // never below the mean
    last_touched = er[0].second.touched.front();
    last_load = er[0].second.load.front();
  }
  // One token (decode, batch 1): 8 routings, one per device on average; the busiest device
  // takes 1 + z_8·σ of them and reads S(1 − (1 − 1/S)^L) of its S = 32 experts; all devices
  // together read 8·32·(1 − 31/32) = 8 copies at the mean load, the 8 experts the token picks.
  const auto one = ep_routings(m, {.mode = phase::decode, .batch = 1, .context = 2048}, parallelism{.ep = 8});
  const double sd = std::sqrt(8.0 * 248.0 * (7.0 / 8.0) / (8.0 * 255.0));
  const double L1 = 1.0 + expected_max_standard_normal(8) * sd;
  CHECK(one[0].second.load.front() == Approx(L1));
  CHECK(one[0].second.touched.front() == Approx(32.0 * (1.0 - std::pow(31.0 / 32.0, L1))));
  CHECK(one[0].second.copies_read == Approx(8.0));
  // A skewed histogram: expert 0 takes a quarter of the routings.
  expert_histogram h(static_cast<std::size_t>(m.moe_layers()), std::vector<std::uint32_t>(256, 1));
  for (auto& row : h) row[0] = 64 * 8 - 255;
  double prev = 1e300;
  for (const int r : {0, 1, 2, 4}) {
    const auto er = ep_routings(m, s, parallelism{.ep = 8, .redundant_experts = r}, h);
    CHECK(er.size() == std::size_t(m.moe_layers()));
    CHECK(er[0].second.imbalance() < prev);
    prev = er[0].second.imbalance();
  }
}

TEST_CASE("bad parallelism is refused naming the field") {
  const model m = preset("DeepSeek-V3");
  const step_shape s{.mode = phase::decode, .batch = 8, .context = 128};
  const auto mach = make_machine(h100_sxm5(), 8);
  CHECK(field_of([&] { (void)evaluate(m, s, mach, parallelism{.ep = 4}); }) == "ep");
  CHECK(field_of([&] { (void)evaluate(m, s, make_machine(h100_sxm5(), 6), parallelism{.ep = 6}); }) == "ep");
  CHECK(field_of([&] { (void)evaluate(preset("Llama-3.1-8B"), s, mach, parallelism{.ep = 8}); }) == "ep");
  CHECK(field_of([&] { (void)evaluate(m, s, mach, parallelism{.ep = 8, .redundant_experts = -1}); }) ==
        "redundant_experts");
  CHECK(field_of([&] { (void)evaluate(m, s, mach, parallelism{.ep = 8, .redundant_experts = 33}); }) ==
        "redundant_experts");
  CHECK(field_of([&] { (void)evaluate(m, s, mach, parallelism{.attention = attention_parallel::dp}); }) == "attention");
  CHECK(field_of([&] { (void)evaluate(m, s, mach, parallelism{.redundant_experts = 1}); }) == "redundant_experts");
  CHECK(field_of([&] { validate(parallelism{.ep = 3}, m, 8, "gpu."); }) == "gpu.ep");
  CHECK(field_of([&] { (void)ep_routings(ep_tiny(), four_tokens, parallelism{.ep = 2}, {{1, 2, 3}}); }) ==
        "histogram[0].experts");
  CHECK(field_of([&] { (void)evaluate(ep_tiny(), four_tokens, ep_toy(2), parallelism{.ep = 2}, {{1, 2, 3}}); }) ==
        "histogram[0].experts");
  CHECK(field_of([&] { (void)ep_routings(ep_tiny(), four_tokens, parallelism{.ep = 2}, {{1, 2, 3, 4}, {1, 1, 1, 1}}); }) ==
        "histogram.layers");
  CHECK(field_of([&] { (void)check_fit(h100_sxm5(), 8, m, s, parallelism{.ep = 2}); }) == "ep");
}

TEST_CASE("EP memory fit: experts split whole, DP attention replicates the other weights") {
  const model m = preset("DeepSeek-V3");
  const step_shape s{.mode = phase::decode, .batch = 64, .context = 2048};
  const auto tp = check_fit(h100_sxm5(), 8, m, s);
  const auto ep_tp = check_fit(h100_sxm5(), 8, m, s, parallelism{.ep = 8});
  const auto ep_dp = check_fit(h100_sxm5(), 8, m, s, parallelism{.ep = 8, .attention = attention_parallel::dp});
  // EP with TP attention holds the same bytes per device as TP (each expert whole, 1/8 of them).
  CHECK(ep_tp.required_per_device.si() == Approx(tp.required_per_device.si()));
  // DP attention: 7/8 of the non-expert weights more, 7/8 of the (replicated MLA) KV less.
  const double experts = double(count_params(m).per_expert) * 256 * 58;  // FP8: one byte each
  const double rest = weight_storage_bytes(m).si() - experts;
  CHECK(ep_dp.required_per_device.si() - tp.required_per_device.si() ==
        Approx(rest * 7.0 / 8.0 - tp.kv_bytes.si() * 7.0 / 8.0));
  const auto red = check_fit(h100_sxm5(), 8, m, s, parallelism{.ep = 8, .redundant_experts = 1});
  CHECK(red.required_per_device.si() - ep_tp.required_per_device.si() == Approx(experts / 256));
  CHECK(!ep_dp.fits);
  CHECK(ep_dp.reason.find("EP 8, attention dp") != std::string::npos);
}

TEST_CASE("the all-to-all time differentiates in the link bandwidth") {
  using boost::math::differentiation::make_fvar;
  using F = boost::math::differentiation::autodiff_fvar<double, 1>;
  const model m = ep_tiny();
  const parallelism p{.ep = 2, .attention = attention_parallel::dp, .imbalance = ep_imbalance::mean};
  const auto plain = evaluate(m, four_tokens, ep_toy(2), p);
  auto mf = machine_cast<F>(ep_toy(2));
  mf.link_bandwidth = bandwidth<F>::from_si(make_fvar<double, 1>(100e9));
  const auto r = evaluate(m, four_tokens, mf, p);
  CHECK(r.alltoall_time.si().derivative(0) == Approx(plain.alltoall_time.si()));
  // t = b / BW + λ per all-to-all: d t / d BW = −b / BW², b = 32 B, twice.
  CHECK(r.alltoall_time.si().derivative(1) == Approx(-2.0 * 32.0 / (100e9 * 100e9)));
  CHECK(r.time.si().derivative(1) == Approx(-2.0 * 32.0 / (100e9 * 100e9)));
}

TEST_CASE("multi-node EP: the inter-node path bounds the all-to-all") {
  const model m = preset("DeepSeek-V3");
  const step_shape s{.mode = phase::decode, .batch = 256, .context = 1024};
  const auto one = evaluate(m, s, make_machine(h100_sxm5(), 8), parallelism{.ep = 8, .attention = attention_parallel::dp});
  const auto two = evaluate(m, s, make_machine(h100_sxm5(), 16), parallelism{.ep = 16, .attention = attention_parallel::dp});
  CHECK(two.node_link_bytes.si() > 0.0);
  CHECK(one.node_link_bytes.si() == 0.0);
  // 16 devices: 8 of 15 peers beyond the node, over 50 GB/s: slower than one node's NVLink.
  CHECK(two.alltoall_time.si() > one.alltoall_time.si());
  const auto er = ep_routings(m, s, parallelism{.ep = 16, .attention = attention_parallel::dp});
  const double b = er[0].second.dispatch_rows * 7168 * 2.0;
  CHECK(two.alltoall_time.si() == Approx(2.0 * 58 * (b * 8.0 / 15.0 / 50e9 + 8 * 5e-6)));
}

TEST_CASE("asking for the breakdown under expert parallelism never changes a number") {
  const auto m = preset("DeepSeek-V2-Lite");
  const auto machine = make_machine(h100_sxm5(), 2);
  for (const auto attention : {attention_parallel::tp, attention_parallel::dp}) {
    for (const int redundant : {0, 1}) {
      for (const auto mode : {phase::decode, phase::prefill}) {
        CAPTURE(redundant);
        parallelism p;
        p.ep = 2;
        p.attention = attention;
        p.redundant_experts = redundant;
        const step_shape s{.mode = mode, .batch = 8, .context = 512};
        const auto plain = evaluate(m, s, machine, p, {}, step_breakdown::none);
        const auto tree = evaluate(m, s, machine, p, {}, step_breakdown::tree);
        CHECK(plain.breakdown.parts.empty());
        CHECK_FALSE(tree.breakdown.parts.empty());
        CHECK(tree.time.si() == plain.time.si());
        CHECK(tree.energy.si() == plain.energy.si());
        CHECK(tree.link_bytes.si() == plain.link_bytes.si());
        CHECK(tree.alltoall_time.si() == plain.alltoall_time.si());
        CHECK(tree.alltoall_bytes.si() == plain.alltoall_bytes.si());
        CHECK(tree.weight_bytes.si() == plain.weight_bytes.si());
      }
    }
  }
}
