// strata::operator_results: a step's operators with their time, energy and binding resource.
#include "strata/workload/roofline.hpp"

#include <doctest/doctest.h>

#include <boost/math/differentiation/autodiff.hpp>

#include <cstdint>  // std::uint32_t
#include <vector>   // std::vector

#include "strata/baseline/gpu.hpp"
#include "strata/workload/presets.hpp"
#include "support/field_of.hpp"

using namespace strata;
using doctest::Approx;

TEST_CASE("operator_results: one entry per operator, adding up to the step's time and dynamic energy") {
  const auto m = preset("Mixtral-8x7B");
  const step_shape s{.mode = phase::decode, .batch = 8, .context = 2048};
  for (const int devices : {1, 2}) {
    CAPTURE(devices);
    const auto machine = make_machine(h100_sxm5(), devices);
    const auto ops = step_operators(m, s);
    const auto res = operator_results(m, s, machine);
    REQUIRE(res.size() == ops.size());
    double time = 0.0, energy = 0.0;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      CHECK(res[i].name == op_name(ops[i]));
      CHECK(res[i].kind == ops[i].kind);
      CHECK(res[i].layer == ops[i].layer);
      CHECK(res[i].compute_bound == cost_of(ops[i], machine).compute_bound);
      CHECK(res[i].bytes.si() == ops[i].bytes().si());
      time += res[i].time.si();
      energy += res[i].energy.si();
    }
    const auto step = evaluate(m, s, machine);
    CHECK(time == Approx(step.time.si()).epsilon(1e-12));
    CHECK(energy == Approx(step.dynamic_energy.si()).epsilon(1e-12));
  }
}

TEST_CASE("operator_results: an operator followed by the all-reduce carries it; the others are their roofline cost") {
  const auto m = preset("Mixtral-8x7B");
  const step_shape s{.mode = phase::decode, .batch = 8, .context = 2048};
  const auto two = make_machine(h100_sxm5(), 2);
  const auto ops = step_operators(m, s);
  const auto res = operator_results(m, s, two);
  // The ring all-reduce of B·d 16-bit activations over 2 devices (allreduce, roofline.hpp).
  const auto ar = allreduce(two, units::bit(8.0 * m.hidden * 16));
  int reduced = 0;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const auto c = cost_of(ops[i], two);
    const bool after = ops[i].kind == op_kind::out_proj || ops[i].kind == op_kind::router;
    CAPTURE(res[i].name);
    CHECK(res[i].time.si() == Approx(c.time.si() + (after ? ar.time.si() : 0.0)).epsilon(1e-14));
    CHECK(res[i].energy.si() == Approx(c.energy.si() + (after ? ar.energy.si() : 0.0)).epsilon(1e-14));
    reduced += after ? 1 : 0;
  }
  CHECK(reduced == 2 * m.layers);  // attention's and the MoE block's, in every layer
}

TEST_CASE("operator_results with a routing histogram: a routed expert each, the layer's experts one launch") {
  const auto m = preset("Mixtral-8x7B");
  const step_shape s{.mode = phase::decode, .batch = 4, .context = 512};
  // Layer 0 routes its 8 token-slots to experts 1 and 5, every other layer to experts 0 and 2.
  expert_histogram hist(static_cast<std::size_t>(m.moe_layers()), std::vector<std::uint32_t>(8, 0));
  hist[0][1] = 4;
  hist[0][5] = 4;
  for (std::size_t l = 1; l < hist.size(); ++l) hist[l][0] = hist[l][2] = 4;
  const auto machine = make_machine(h100_sxm5(), 1);
  const auto res = operator_results(m, s, machine, hist);
  std::vector<int> layer0_experts;
  for (const auto& r : res) {
    if (r.layer == 0 && r.kind == op_kind::expert) layer0_experts.push_back(r.expert);
  }
  CHECK(layer0_experts == std::vector<int>{1, 5});
  // The second expert of a layer pays no launch of its own (one grouped kernel).
  const auto ops = step_operators(m, s, hist);
  for (std::size_t i = 1; i < ops.size(); ++i) {
    if (ops[i].kind == op_kind::expert && ops[i - 1].kind == op_kind::expert && ops[i - 1].layer == ops[i].layer) {
      CHECK(res[i].time.si() == Approx((cost_of(ops[i], machine).time - machine.op_overhead).si()).epsilon(1e-14));
    }
  }
  double time = 0.0;
  for (const auto& r : res) time += r.time.si();
  CHECK(time == Approx(evaluate(m, s, machine, hist).time.si()).epsilon(1e-12));
}

TEST_CASE("operator_results differentiates with autodiff as the step does") {
  using boost::math::differentiation::make_fvar;
  using F = boost::math::differentiation::autodiff_fvar<double, 1>;
  const auto m = preset("OLMoE-1B-7B-0924");
  const step_shape s{.mode = phase::decode, .batch = 16, .context = 1024};
  auto machine = machine_cast<F>(make_machine(h100_sxm5(), 2));
  machine.tiers[0].bandwidth = bandwidth<F>::from_si(make_fvar<double, 1>(3.35e12));
  F time = F(0.0);
  for (const auto& r : operator_results(m, s, machine)) time += r.time.si();
  const auto step = evaluate(m, s, machine);
  CHECK(time.derivative(0) == Approx(step.time.si().derivative(0)).epsilon(1e-12));
  CHECK(time.derivative(1) == Approx(step.time.si().derivative(1)).epsilon(1e-10));
  CHECK(time.derivative(1) < 0.0);  // more bandwidth, a faster step
}

TEST_CASE("operator_results refuses bad input with config_error naming the field") {
  const auto m = preset("Mixtral-8x7B");
  auto machine = make_machine(h100_sxm5(), 1);
  CHECK(strata_test::field_of([&] { (void)operator_results(m, {.mode = phase::decode, .batch = 0}, machine); }) == "batch");
  machine.memory_efficiency = 1.5;
  CHECK(strata_test::field_of([&] { (void)operator_results(m, {}, machine); }) == "memory_efficiency");
}
