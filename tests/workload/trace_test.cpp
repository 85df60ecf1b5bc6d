#include "strata/workload/trace.hpp"

#include <doctest/doctest.h>

#include <cmath>   // std::log
#include <set>     // std::set
#include <string>  // std::string
#include <vector>  // std::vector

#include "strata/workload/presets.hpp"
#include "support/field_of.hpp"

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

namespace {
// `seqs` sequences of `len` tokens each, interleaved as a server would log them (token i of every
// sequence, then token i + 1): one layer, expert = sequence id mod 8 at position 0, k = 1.
routing_trace interleaved(int seqs, int len) {
  routing_trace t(1, 64, 1);
  for (int p = 0; p < len; ++p) {
    for (int s = 0; s < seqs; ++s) {
      t.push_back({static_cast<std::uint16_t>((s + p) % 64)}, {.seq = s, .pos = p});
    }
  }
  return t;
}
std::set<std::int32_t> seqs_of(const routing_trace& t, const decode_batch& b) {
  std::set<std::int32_t> s;
  for (auto i : b.tokens) s.insert(t.info(i).seq);
  return s;
}
}  // namespace

TEST_CASE("a decode batch takes one token from each of B different sequences") {
  const auto t = interleaved(40, 10);
  // At a given position: the first B sequences, each at that position.
  const auto at3 = select_decode_batch(t, {.batch = 16, .position = 3});
  REQUIRE(at3.tokens.size() == 16);
  CHECK(seqs_of(t, at3).size() == 16);
  CHECK(at3.concurrent());
  CHECK(at3.note.empty());
  for (std::size_t j = 0; j < 16; ++j) {
    CHECK(t.info(at3.tokens[j]).seq == static_cast<std::int32_t>(j));
    CHECK(t.info(at3.tokens[j]).pos == 3);
  }
  // Not the first B consecutive rows of the file (those are 16 sequences at position 0 here, but
  // of one document in a trace logged sequence by sequence: see below).
  // The next decode step of the same batch: every sequence one token further.
  const auto next = select_decode_batch(t, {.batch = 16, .position = 3, .step = 1});
  for (std::size_t j = 0; j < 16; ++j) CHECK(t.info(next.tokens[j]).pos == 4);
  // Random positions and sequences: B distinct sequences, the same for the same seed.
  const auto r1 = select_decode_batch(t, {.batch = 32, .seed = 7});
  const auto r2 = select_decode_batch(t, {.batch = 32, .seed = 7});
  const auto r3 = select_decode_batch(t, {.batch = 32, .seed = 8});
  CHECK(seqs_of(t, r1).size() == 32);
  CHECK(r1.tokens == r2.tokens);
  CHECK(r1.tokens != r3.tokens);
  CHECK(r1.eligible == 40);
}

TEST_CASE("a trace logged sequence by sequence still gives B distinct sequences") {
  routing_trace t(1, 8, 1);
  for (int s = 0; s < 5; ++s) {
    for (int p = 0; p < 20; ++p) t.push_back({static_cast<std::uint16_t>(p % 8)}, {.seq = s, .pos = p});
  }
  const auto b = select_decode_batch(t, {.batch = 5, .position = 0});
  CHECK(seqs_of(t, b).size() == 5);  // the first 5 rows would all be sequence 0
  // Sequences shorter than the position are not eligible.
  routing_trace u(1, 8, 1);
  u.push_back({0}, {.seq = 0, .pos = 0});
  u.push_back({1}, {.seq = 1, .pos = 0});
  u.push_back({2}, {.seq = 1, .pos = 1});
  CHECK(select_decode_batch(u, {.batch = 1, .position = 1}).tokens == std::vector<std::size_t>{2});
  CHECK(strata_test::field_of([&] { (void)select_decode_batch(u, {.batch = 2, .position = 1}); }) == "batch");
  CHECK(strata_test::field_of([&] { (void)select_decode_batch(u, {.batch = 1, .position = 5, .allow_reuse = true}); }) ==
        "position");
}

TEST_CASE("a trace with fewer sequences than the batch is refused, or its reuse is reported") {
  const auto t = interleaved(3, 4);
  CHECK_THROWS_WITH_AS((void)select_decode_batch(t, {.batch = 8}), doctest::Contains("batch must be <= the trace's 3"),
                       config_error);
  const auto b = select_decode_batch(t, {.batch = 8, .position = 0, .allow_reuse = true});
  CHECK(b.sequences == 3);
  CHECK(b.max_per_sequence == 3);
  CHECK_FALSE(b.concurrent());
  CHECK(b.repeated_tokens == 0);  // 3 tokens of 4 from each sequence: no token twice
  CHECK(b.note.find("3 eligible sequences") != std::string::npos);
  // 16 slots from 3 sequences of 4 tokens: 12 distinct tokens, 4 repeats.
  const auto r = select_decode_batch(t, {.batch = 16, .position = 0, .allow_reuse = true});
  CHECK(r.repeated_tokens == 4);
  CHECK_THROWS_AS((void)select_decode_batch(routing_trace(1, 8, 1), {}), config_error);
  CHECK(strata_test::field_of([&] { (void)select_decode_batch(t, {.batch = 0}); }) == "batch");
  CHECK(strata_test::field_of([&] { (void)select_decode_batch(t, {.batch = 1, .step = -1}); }) == "step");
}

TEST_CASE("a trace replays for a model only with the model's MoE layers, experts and top-k") {
  // One token per trace, every layer routed to experts 0 .. k-1.
  const auto trace_of = [](int layers, int experts, int k) {
    routing_trace t(layers, experts, k);
    std::vector<std::uint16_t> ids;
    for (int l = 0; l < layers; ++l) {
      for (int j = 0; j < k; ++j) ids.push_back(static_cast<std::uint16_t>(j));
    }
    t.push_back(ids, {.seq = 0, .pos = 0});
    return t;
  };
  for (const char* name : {"Mixtral-8x7B", "DeepSeek-V2-Lite", "OLMoE-1B-7B-0924", "DeepSeek-V3"}) {
    const auto m = preset(name);
    CAPTURE(name);
    CHECK_NOTHROW(require_trace_of_model(trace_of(m.moe_layers(), m.experts, m.top_k), m, "t.csv"));
    // Every other width is refused, naming the trace and both widths: top-1, one less, one more.
    for (const int k : {1, m.top_k - 1, m.top_k + 1}) {
      if (k < 1 || k == m.top_k || k > m.experts) continue;
      CAPTURE(k);
      const auto t = trace_of(m.moe_layers(), m.experts, k);
      CHECK(strata_test::field_of([&] { require_trace_of_model(t, m, "t.csv"); }) == "trace");
      CHECK_THROWS_WITH_AS(require_trace_of_model(t, m, "t.csv"),
                           doctest::Contains(("t.csv: top-" + std::to_string(k) + " routing, but " + m.name + " routes top-" +
                                              std::to_string(m.top_k)).c_str()),
                           config_error);
    }
    // Layers and experts as before, and the field the caller names.
    const auto fewer = trace_of(m.moe_layers() - 1, m.experts, m.top_k);
    CHECK_THROWS_WITH_AS(require_trace_of_model(fewer, m, "t.csv", "trace.path"),
                         doctest::Contains((std::to_string(m.moe_layers() - 1) + " MoE layers, but").c_str()), config_error);
    CHECK(strata_test::field_of([&] { require_trace_of_model(fewer, m, "t.csv", "trace.path"); }) == "trace.path");
    const auto wider = trace_of(m.moe_layers(), m.experts + 1, m.top_k);
    CHECK_THROWS_WITH_AS(require_trace_of_model(wider, m, "t.csv"),
                         doctest::Contains((std::to_string(m.experts + 1) + " experts per layer, but").c_str()), config_error);
  }
  // A dense model has no routing to replay.
  CHECK_THROWS_WITH_AS(require_trace_of_model(trace_of(2, 8, 2), preset("Qwen2.5-32B"), "t.csv"),
                       doctest::Contains("has no routed experts"), config_error);
}
