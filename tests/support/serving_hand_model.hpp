// Shared test helper: a serving model with hand costs and hand-built requests, for cases whose
// times are hand sums of the step costs (tests/serving/stratum_engine_test.cpp,
// tests/thermal/serving_coupling_test.cpp).
#pragma once

#include <cstddef>  // std::size_t

#include "strata/serving/requests.hpp"
#include "strata/serving/simulator.hpp"

namespace strata_test {

/// Hand costs: prefill(b, p) = 1 ms per prompt token and 1 J per sequence; decode(b, S, h) =
/// 10 ms + 2 ms per sequence + 10 µs per context token (`context_costs`; h ignored) and 0.5 J; a
/// swap between two layouts 50 ms and 2 J; request r hits layout r mod 2 at 0.9, the other at 0.3.
inline strata::detail::serving_model hand_serving_model(int labels, bool context_costs = true) {
  using strata::step_cost;
  strata::detail::serving_model m;
  m.labels = labels;
  m.kv_tokens = 1 << 20;
  m.prefill = [](int b, double p) { return step_cost{1e-3 * b * p, 1.0 * b}; };
  m.decode = [context_costs](int b, double c, double) {
    return step_cost{0.010 + 0.002 * b + (context_costs ? 1e-5 * c : 0.0), 0.5};
  };
  m.swap = [](int a, int b) { return a == b ? step_cost{} : step_cost{0.05, 2.0}; };
  m.hit = [](std::size_t r, int, int k) { return static_cast<int>(r % 2) == k ? 0.9 : 0.3; };
  return m;
}

/// A request arriving at `at` seconds with `prompt` and `output` tokens and a topic label.
inline strata::request hand_request(double at, int prompt, int output, int topic = 0) {
  strata::request q;
  q.arrival_s = at;
  q.prompt = prompt;
  q.output = output;
  q.topic = topic;
  return q;
}

}  // namespace strata_test
