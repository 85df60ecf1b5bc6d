// Signatures kept for a release, deprecated and naming their replacement (CHANGELOG, "Breaks"):
// code written against the former one still compiles and computes the same numbers.
#include <doctest/doctest.h>

#include "strata/baseline/gpu.hpp"
#include "strata/workload/expert_parallel.hpp"
#include "strata/workload/presets.hpp"
#include "strata/workload/roofline.hpp"

using namespace strata;

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif

TEST_CASE("evaluate(..., bool with_breakdown) still compiles and forwards to step_breakdown") {
  const auto m = preset("Mixtral-8x7B");
  const step_shape s{.mode = phase::decode, .batch = 8, .context = 2048};
  const auto machine = make_machine(h100_sxm5(), 2);
  const auto now = evaluate(m, s, machine, {}, step_breakdown::tree);
  const auto old = evaluate(m, s, machine, expert_histogram{}, true);
  CHECK(old.time.si() == now.time.si());
  CHECK(old.energy.si() == now.energy.si());
  CHECK(old.breakdown.parts.size() == now.breakdown.parts.size());
  CHECK(!now.breakdown.parts.empty());
  const auto plain = evaluate(step_operators(m, s), s, m.hidden, machine, false);
  CHECK(plain.breakdown.parts.empty());
  CHECK(plain.time.si() == evaluate(step_operators(m, s), s, m.hidden, machine).time.si());
  const auto layered = evaluate(step_layers(m, s), machine, true);
  CHECK(layered.time.si() == evaluate(step_layers(m, s), machine, step_breakdown::tree).time.si());
  const auto ep_now = evaluate(m, s, machine, parallelism{.ep = 2}, {}, step_breakdown::none);
  const auto ep_old = evaluate(m, s, machine, parallelism{.ep = 2}, expert_histogram{}, false);
  CHECK(ep_old.time.si() == ep_now.time.si());
}

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
