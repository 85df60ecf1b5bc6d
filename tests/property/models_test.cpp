// Property tests over seeded random inputs (issue "Hardening", item 3): monotonicity, bounds and
// finiteness of the device and roofline models. Each case draws its inputs from a fixed seed, so a
// failure reproduces; CAPTURE prints the inputs.
#include "strata/baseline/gpu.hpp"
#include "strata/device/mono3d.hpp"
#include "strata/device/stratum_chip.hpp"
#include "strata/workload/presets.hpp"
#include "strata/workload/roofline.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <string>

using namespace strata;

namespace {
constexpr int k_cases = 60;
}

TEST_CASE("Mono3D: more layers never make the slowest tier faster nor the chip smaller") {
  std::mt19937_64 rng(20261129);
  std::uniform_int_distribution<int> layers(16, 1024), tiers(1, 16), extra(1, 256);
  for (int i = 0; i < k_cases; ++i) {
    mono3d_params<> p;
    p.layers = layers(rng);
    p.tiers = std::min(tiers(rng), p.layers);
    mono3d_params<> q = p;
    q.layers = p.layers + extra(rng);
    CAPTURE(p.layers);
    CAPTURE(q.layers);
    CAPTURE(p.tiers);
    const auto a = evaluate(p);
    const auto b = evaluate(q);
    REQUIRE(a.tiers.size() == std::size_t(p.tiers));
    CHECK(b.tiers.back().access_latency.si() >= a.tiers.back().access_latency.si());
    CHECK(b.capacity.si() > a.capacity.si());
    CHECK(b.die_area.si() >= a.die_area.si());
    for (const auto& t : a.tiers) {
      CHECK(std::isfinite(t.access_latency.si()));
      CHECK(t.access_latency.si() > 0.0);
      CHECK(t.internal_bandwidth.si() > 0.0);
      // The row-cycle limit never exceeds the latency-based bandwidth of the same tier.
      CHECK(t.row_cycle_bandwidth.si() <= t.latency_bandwidth.si() * (1 + 1e-12));
    }
    // Tiers are ordered fastest first.
    for (std::size_t k = 1; k < a.tiers.size(); ++k)
      CHECK(a.tiers[k].access_latency.si() >= a.tiers[k - 1].access_latency.si());
  }
}

TEST_CASE("Stratum chip: results are finite and a feasible chip meets both budgets") {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> layers(64, 1024), macs(1000, 120000);
  for (int i = 0; i < k_cases; ++i) {
    stratum_chip_params<> p;
    p.memory.layers = layers(rng);
    p.logic.n_mac = macs(rng);
    CAPTURE(p.memory.layers);
    CAPTURE(p.logic.n_mac);
    const auto c = evaluate(p);
    CHECK(std::isfinite(c.logic.p_logic.si()));
    CHECK(std::isfinite(c.logic.a_active.si()));
    CHECK(c.logic.p_logic.si() >= 0.0);
    if (c.feasible) {
      CHECK(c.logic.p_logic.si() <= c.logic.p_peak.si() * (1 + 1e-12));
      CHECK(c.logic.a_active.si() <= c.logic.a_processor_budget.si() * (1 + 1e-12));
    } else {
      CHECK_FALSE(c.reason.empty());
    }
  }
}

TEST_CASE("Roofline: never faster than the ideal bound, more bandwidth never slower, energy >= 0") {
  const std::vector<std::string> names = {"OLMoE-1B-7B-0924", "Mixtral-8x7B", "Qwen2.5-32B",
                                          "DeepSeek-V2-Lite", "Qwen1.5-MoE-A2.7B", "DBRX"};
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<std::size_t> pick(0, names.size() - 1);
  std::uniform_int_distribution<int> batch(1, 256), context(16, 32768), dev_log(0, 3);
  std::uniform_real_distribution<double> bw_gain(1.01, 4.0);
  for (int i = 0; i < k_cases; ++i) {
    const auto m = preset(names[pick(rng)]);
    const step_shape s{(i % 3 == 0) ? phase::prefill : phase::decode, batch(rng) % 16 + 1,
                       context(rng) % 8192 + 16};
    const int devices = 1 << dev_log(rng);
    CAPTURE(m.name);
    CAPTURE(s.batch);
    CAPTURE(s.context);
    CAPTURE(devices);
    gpu_params g = h100_sxm5();
    const auto base = evaluate(m, s, make_machine(g, devices));
    CHECK(std::isfinite(base.time.si()));
    CHECK(base.time.si() > 0.0);
    CHECK(base.energy.si() >= 0.0);
    CHECK(base.dynamic_energy.si() >= 0.0);
    CHECK(base.energy.si() >= base.dynamic_energy.si() * (1 - 1e-12) - 1e-30);
    // Ideal roofline: all FLOPs at the peak of every device, all bytes at the peak bandwidth.
    const double peak = std::max(g.peak_flops.si(), g.peak_flops_fp8.si()) * devices;
    const double bytes = (base.weight_bytes + base.kv_bytes).si();
    CHECK(base.time.si() >= base.flops.si() / peak * (1 - 1e-9));
    CHECK(base.time.si() >= bytes / (g.memory_bandwidth.si() * devices) * (1 - 1e-9));
    gpu_params fast = g;
    fast.memory_bandwidth = g.memory_bandwidth * bw_gain(rng);
    const auto quicker = evaluate(m, s, make_machine(fast, devices));
    CHECK(quicker.time.si() <= base.time.si() * (1 + 1e-12));
    // Conservation: the same step moves the same bytes and FLOPs whatever the bandwidth.
    CHECK(quicker.flops.si() == doctest::Approx(base.flops.si()));
    CHECK(quicker.weight_bytes.si() == doctest::Approx(base.weight_bytes.si()));
  }
}
