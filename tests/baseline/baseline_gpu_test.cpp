// The GPU every comparison divides by (strata/baseline/baseline_gpu.hpp): the card's cited knobs by
// default, the knobs fitted on the 2024 measurement set on request, the same set on the Stratum xPU.
#include "strata/baseline/baseline_gpu.hpp"

#include <doctest/doctest.h>

#include <string>  // std::string

#include "strata/baseline/validated_gpu.hpp"
#include "strata/baseline/validation.hpp"
#include "strata/stratum/system.hpp"
#include "strata/workload/presets.hpp"
#include "strata/workload/roofline.hpp"

using namespace strata;

TEST_CASE("baseline_gpu: cited leaves the card as it is, fitted applies the published fit") {
  CHECK(default_gpu_knobs == gpu_knob_set::cited);
  for (const auto* name : {"h100_sxm5", "a100_sxm4_80gb", "rtx_a6000", "b200"}) {
    CAPTURE(name);
    const gpu_params card = gpu_preset(name);
    const gpu_params cited = baseline_gpu(card);
    CHECK(knobs_of(cited) == knobs_of(card));
    CHECK(cited.energy_per_flop.si() == card.energy_per_flop.si());
    const gpu_params fitted = baseline_gpu(card, gpu_knob_set::fitted);
    CHECK(knobs_of(fitted) == knobs_of(validated_gpu(card)));
    CHECK(knobs_of(fitted) == published_gpu_fit().knobs);
  }
}

TEST_CASE("baseline_gpu: the fitted knobs make a Mixtral decode step slower on the GPU and on Stratum-L") {
  const model m = preset("Mixtral-8x7B");
  const step_shape s{.mode = phase::decode, .batch = 8, .context = 2048};
  const auto cited = evaluate(m, s, make_machine(baseline_gpu(h100_sxm5()), 2));
  const auto fitted = evaluate(m, s, make_machine(baseline_gpu(h100_sxm5(), gpu_knob_set::fitted), 2));
  // The fit's 30.8 us per operator against the card's 4 us, over a step of a few hundred operators.
  CHECK(fitted.time.si() > cited.time.si() * 1.2);

  auto sys = stratum_l();
  CHECK(knobs_of(sys.xpu) == knobs_of(h100_sxm5()));
  const auto fast = evaluate_decode(sys, m, s);
  sys.xpu = baseline_gpu(sys.xpu, gpu_knob_set::fitted);
  const auto slow = evaluate_decode(sys, m, s);
  REQUIRE(fast.feasible);
  REQUIRE(slow.feasible);
  CHECK(slow.time.si() > fast.time.si());
}

TEST_CASE("knobs_note: names the knob set and whether measured runs check it on this card") {
  CHECK(knobs_note("h100_sxm5", gpu_knob_set::cited).find("checked against three measured vLLM") != std::string::npos);
  CHECK(knobs_note("H100-SXM5", gpu_knob_set::cited).find("checked against three measured vLLM") != std::string::npos);
  CHECK(knobs_note("b200", gpu_knob_set::cited).find("no measured serving run of b200") != std::string::npos);
  CHECK(knobs_note("b200", gpu_knob_set::fitted) == knobs_note("b200"));
}
