#include "strata/workload/trace.hpp"

#include <doctest/doctest.h>

#include <cmath>   // std::log
#include <string>  // std::string
#include <vector>  // std::vector

using namespace strata;
using doctest::Approx;

namespace {
// Layer 0 (hand-checked below): seq 0 = {0,1} {1,2} {1,0}, seq 1 = {3,2}.
// Layer 1: the same tokens routed to {3,2} {3,2} {0,1} {0,1}.
routing_trace tiny() {
  routing_trace t(/*layers=*/2, /*experts=*/4, /*k=*/2, {"math", "code"});
  t.push_back({0, 1, 3, 2}, {.seq = 0, .pos = 0, .topic = 0});
  t.push_back({1, 2, 3, 2}, {.seq = 0, .pos = 1, .topic = 0});
  t.push_back({1, 0, 0, 1}, {.seq = 0, .pos = 2, .topic = 0});
  t.push_back({3, 2, 0, 1}, {.seq = 1, .pos = 0, .topic = 1});
  return t;
}
}  // namespace

TEST_CASE("a trace stores k expert ids per token and layer in gate order") {
  const auto t = tiny();
  CHECK(t.tokens() == 4);
  CHECK(t.layers() == 2);
  CHECK(t.experts_per_layer() == 4);
  CHECK(t.k() == 2);
  CHECK(t.ids().size() == 4 * 2 * 2);
  const auto e = t.experts(2, 0);
  REQUIRE(e.size() == 2);
  CHECK(e[0] == 1);  // top-1 first
  CHECK(e[1] == 0);
  CHECK(t.experts(3, 1)[0] == 0);
  CHECK(t.info(3) == token_info{.seq = 1, .pos = 0, .topic = 1});
  CHECK(t.topic_names()[static_cast<std::size_t>(t.info(3).topic)] == "code");
}

TEST_CASE("histograms count the tokens that use each expert per layer") {
  const auto t = tiny();
  CHECK(t.histogram(0) == std::vector<std::int64_t>{2, 3, 2, 1});
  CHECK(t.histogram(1) == std::vector<std::int64_t>{2, 2, 2, 2});
  const auto all = t.histograms();
  REQUIRE(all.size() == 2);
  CHECK(all[0] == t.histogram(0));
  CHECK(all[1] == t.histogram(1));
  CHECK_THROWS_AS((void)t.histogram(2), config_error);
}

TEST_CASE("statistics of a tiny trace match the hand-computed values") {
  const auto s = statistics(tiny());
  REQUIRE(s.layers.size() == 2);
  CHECK(s.tokens == 4);
  CHECK(s.pairs == 2);  // (t0, t1) and (t1, t2); t3 starts a new sequence

  SUBCASE("layer 0: skewed") {
    const auto& l = s.layers[0];
    // counts {2, 3, 2, 1}, k·N = 8.
    CHECK(l.hottest_share == Approx(3.0 / 8.0));
    const double h = -(2 * 0.25 * std::log(0.25) + 0.375 * std::log(0.375) + 0.125 * std::log(0.125));
    CHECK(l.entropy == Approx(h / std::log(4.0)));
    // {0,1}∩{1,2} = {1}, {1,2}∩{1,0} = {1}: one shared of k = 2 each time.
    CHECK(l.overlap == Approx(0.5));
    CHECK(l.coverage == std::vector<double>{3.0 / 8, 5.0 / 8, 7.0 / 8, 1.0});
  }
  SUBCASE("layer 1: uniform counts, full reuse inside sequence 0 only where the sets repeat") {
    const auto& l = s.layers[1];
    CHECK(l.hottest_share == Approx(0.25));
    CHECK(l.entropy == Approx(1.0));
    // {3,2}∩{3,2} = 2, {3,2}∩{0,1} = 0 → (1 + 0) / 2.
    CHECK(l.overlap == Approx(0.5));
    CHECK(l.coverage.back() == Approx(1.0));
  }
  CHECK(s.hottest_share == Approx((3.0 / 8 + 0.25) / 2));
  CHECK(s.overlap == Approx(0.5));
}

TEST_CASE("a trace without sequence ids is one sequence for the overlap") {
  routing_trace t(1, 4, 2);
  t.push_back({0, 1});
  t.push_back({0, 1});
  t.push_back({2, 3});
  const auto s = statistics(t);
  CHECK(s.pairs == 2);
  CHECK(s.layers[0].overlap == Approx(0.5));  // (2 + 0) / (2 · 2)
}

TEST_CASE("statistics use the k×k comparison when a layer has more than 64 experts") {
  routing_trace t(1, 100, 3);
  t.push_back({99, 70, 1}, {.seq = 0});
  t.push_back({70, 99, 2}, {.seq = 0});
  const auto s = statistics(t);
  CHECK(s.layers[0].overlap == Approx(2.0 / 3.0));
  CHECK(s.layers[0].hottest_share == Approx(2.0 / 6.0));
}

TEST_CASE("an empty trace has zero statistics, not NaN") {
  const auto s = statistics(routing_trace(3, 8, 2));
  REQUIRE(s.layers.size() == 3);
  CHECK(s.hottest_share == 0.0);
  CHECK(s.entropy == 0.0);
  CHECK(s.overlap == 0.0);
  CHECK(s.pairs == 0);
}

TEST_CASE("push_back rejects bad tokens and leaves the trace unchanged") {
  routing_trace t(2, 4, 2, {"only"});
  SUBCASE("wrong number of ids") { CHECK_THROWS_AS(t.push_back({0, 1, 2}), config_error); }
  SUBCASE("id out of range") { CHECK_THROWS_AS(t.push_back({0, 1, 2, 4}), config_error); }
  SUBCASE("id repeated within a layer") { CHECK_THROWS_AS(t.push_back({1, 1, 2, 3}), config_error); }
  SUBCASE("topic out of range") { CHECK_THROWS_AS(t.push_back({0, 1, 2, 3}, {.topic = 1}), config_error); }
  CHECK(t.tokens() == 0);
  // The same id in two different layers is fine.
  t.push_back({1, 2, 1, 2});
  CHECK(t.tokens() == 1);
}

TEST_CASE("a trace rejects an impossible shape naming the field") {
  try {
    routing_trace t(2, 4, 5);
    FAIL("expected config_error");
  } catch (const config_error& e) {
    CHECK(e.field() == "k");
    CHECK(std::string(e.what()).find("got 5") != std::string::npos);
  }
  CHECK_THROWS_AS(routing_trace(0, 4, 1), config_error);
  CHECK_THROWS_AS(routing_trace(1, 70000, 1), config_error);
}
