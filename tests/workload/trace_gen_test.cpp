#include "strata/workload/trace_gen.hpp"

#include <doctest/doctest.h>

#include <algorithm>  // std::equal, std::max_element
#include <string>     // std::string
#include <vector>     // std::vector

#include "strata/core/json.hpp"
#include "strata/workload/presets.hpp"
#include "strata/workload/trace_io.hpp"
#include "support/common.hpp"

using namespace strata;
using doctest::Approx;

namespace {
using strata_test::traces_dir;

// A small generator configuration (fast under sanitizers).
trace_gen_params small() {
  trace_gen_params p;
  p.layers = 4;
  p.sequences = 40;
  return p;
}
}  // namespace

TEST_CASE("the generator is deterministic for a seed") {
  const auto p = small();
  const auto a = generate_trace(p);
  CHECK(a == generate_trace(p));
  auto q = p;
  q.seed = 2;
  CHECK(!(a.ids().size() == generate_trace(q).ids().size() &&
          std::equal(a.ids().begin(), a.ids().end(), generate_trace(q).ids().begin())));
}

TEST_CASE("generated tokens use k distinct experts in range with sequence and topic labels") {
  auto p = small();
  p.topics = 3;
  p.experts = 16;
  p.k = 4;
  p.reuse = 0.6;
  const auto t = generate_trace(p);
  CHECK(t.layers() == 4);
  CHECK(t.experts_per_layer() == 16);
  CHECK(t.k() == 4);
  CHECK(t.topic_names() == std::vector<std::string>{"topic0", "topic1", "topic2"});
  std::vector<int> seen_topic(3, 0);
  bool ok = true;
  for (std::size_t i = 0; i < t.tokens(); ++i) {
    const auto& info = t.info(i);
    ok = ok && info.seq >= 0 && info.seq < p.sequences && info.topic >= 0 && info.topic < 3;
    if (i > 0 && info.seq == t.info(i - 1).seq) ok = ok && info.pos == t.info(i - 1).pos + 1;
    seen_topic[static_cast<std::size_t>(info.topic)] = 1;
    for (int l = 0; l < t.layers(); ++l) {
      const auto e = t.experts(i, l);
      std::uint32_t mask = 0;
      for (auto x : e) {
        ok = ok && x < 16 && !(mask & (1u << x));
        mask |= 1u << x;
      }
    }
  }
  CHECK(ok);
  CHECK(seen_topic == std::vector<int>{1, 1, 1});
  CHECK(t.tokens() >= 40u * 47u);
  CHECK(t.tokens() <= 40u * 88u);
}

TEST_CASE("k equal to the number of experts routes every token to all of them") {
  auto p = small();
  p.experts = 5;
  p.k = 5;
  p.reuse = 0.5;
  const auto s = statistics(generate_trace(p));
  CHECK(s.hottest_share == Approx(0.2));
  CHECK(s.entropy == Approx(1.0));
  CHECK(s.overlap == Approx(1.0));
}

TEST_CASE("a larger skew raises the hottest-expert share monotonically") {
  auto p = small();
  p.reuse = 0.0;
  double last = 0.0;
  for (double skew : {0.0, 0.5, 1.0, 2.0, 4.0, 8.0}) {
    CAPTURE(skew);
    p.skew = skew;
    const auto s = statistics(generate_trace(p));
    CHECK(s.hottest_share > last);
    last = s.hottest_share;
  }
  // Skew 0 is uniform; the share is 1/64 up to sampling noise.
  p.skew = 0.0;
  CHECK(statistics(generate_trace(p)).hottest_share == Approx(1.0 / 64).epsilon(0.25));
}

TEST_CASE("more reuse raises the consecutive-token overlap monotonically") {
  auto p = small();
  double last = -1.0;
  for (double reuse : {0.0, 0.2, 0.4, 0.6, 0.8, 1.0}) {
    CAPTURE(reuse);
    p.reuse = reuse;
    const auto s = statistics(generate_trace(p));
    CHECK(s.overlap > last);
    last = s.overlap;
  }
  CHECK(last == Approx(1.0));  // reuse = 1 repeats the previous token's set
}

TEST_CASE("reuse leaves the expert popularity nearly unchanged") {
  auto p = small();
  p.sequences = 80;
  p.reuse = 0.0;
  const auto a = statistics(generate_trace(p));
  p.reuse = 0.5;
  const auto b = statistics(generate_trace(p));
  CHECK(b.hottest_share == Approx(a.hottest_share).epsilon(0.1));
  CHECK(b.entropy == Approx(a.entropy).epsilon(0.02));
}

TEST_CASE("topic-specific popularity separates the hot experts of different topics") {
  auto p = small();
  p.topics = 2;
  p.sequences = 200;
  p.skew = 1.5;
  p.offset = 0.0;
  p.reuse = 0.0;
  auto hot_of_topic = [](const routing_trace& t, int topic) {
    std::vector<std::int64_t> c(static_cast<std::size_t>(t.experts_per_layer()), 0);
    for (std::size_t i = 0; i < t.tokens(); ++i) {
      if (t.info(i).topic != topic) continue;
      for (auto e : t.experts(i, 0)) ++c[e];
    }
    return std::max_element(c.begin(), c.end()) - c.begin();
  };
  SUBCASE("topic_share = 0: every topic has the same hottest expert") {
    p.topic_share = 0.0;
    const auto t = generate_trace(p);
    CHECK(hot_of_topic(t, 0) == hot_of_topic(t, 1));
  }
  SUBCASE("topic_share = 1: the topics' popularity is independent") {
    p.topic_share = 1.0;
    // Per topic the share is as concentrated as the global law; pooled, it is flatter.
    const auto t = generate_trace(p);
    auto q = p;
    q.topics = 1;
    CHECK(statistics(t).entropy > statistics(generate_trace(q)).entropy);
  }
}

TEST_CASE("bad generator parameters are config_errors naming the field") {
  auto expect_field = [](trace_gen_params p, const char* field) {
    try {
      validate(p);
      FAIL("expected config_error for " << field);
    } catch (const config_error& e) {
      CHECK(e.field() == field);
    }
  };
  trace_gen_params p;
  p.k = 65;
  expect_field(p, "k");
  p = {};
  p.skew = -1.0;
  expect_field(p, "skew");
  p = {};
  p.reuse = 1.5;
  expect_field(p, "reuse");
  p = {};
  p.max_length = 10;
  expect_field(p, "max_length");
  p = {};
  p.topic_share = -0.1;
  expect_field(p, "topic_share");
  p = {};
  p.experts = 0;
  expect_field(p, "experts");
  CHECK_NOTHROW(validate(trace_gen_params{}));
}

TEST_CASE("generator parameters round-trip through JSON") {
  trace_gen_params p;
  p.topics = 4;
  p.skew = 1.25;
  p.seed = 123456789012345ull;
  const json j = p;
  CHECK(j.at("seed").get<std::uint64_t>() == 123456789012345ull);
  CHECK(j.get<trace_gen_params>() == p);
  CHECK_THROWS_AS((void)from_json_at<trace_gen_params>(json{{"skw", 1.0}}), config_error);
}

namespace {
// The generator fitted to the real DeepSeek-V2-Lite intent trace, computed once for the cases below.
const trace_fit_result& intent_fit() {
  static const trace_fit_result fit = fit_trace_gen(
      load_trace_csv(traces_dir() + "dsv2lite_esft_trace_intent.csv", {.experts = 64, .label = "intent"}));
  return fit;
}
}  // namespace

TEST_CASE("the fitted generator matches the real DeepSeek-V2-Lite trace within 5 percent") {
  const auto& fit = intent_fit();
  MESSAGE("hottest-expert share real " << fit.target_hottest_share << " fitted " << fit.hottest_share);
  MESSAGE("normalised entropy    real " << fit.target_entropy << " fitted " << fit.entropy);
  MESSAGE("consecutive overlap   real " << fit.target_overlap << " fitted " << fit.overlap);
  MESSAGE("skew " << fit.params.skew << " offset " << fit.params.offset << " reuse " << fit.params.reuse
                  << " rounds " << fit.rounds << " " << fit.reason);
  // 5 %: the fitter stops within 1 % (trace_fit_options::tolerance); the margin is for other
  // compilers' rounding in the analytic step, which may end in a different round.
  CHECK(fit.converged);
  CHECK(fit.hottest_share == Approx(fit.target_hottest_share).epsilon(0.05));
  CHECK(fit.entropy == Approx(fit.target_entropy).epsilon(0.05));
  CHECK(fit.overlap == Approx(fit.target_overlap).epsilon(0.05));
  // The result's statistics are those of the trace its parameters generate.
  const auto s = statistics(generate_trace(fit.params));
  CHECK(s.hottest_share == fit.hottest_share);
  CHECK(s.overlap == fit.overlap);
  // Layout copied from the real trace.
  CHECK(fit.params.layers == 26);
  CHECK(fit.params.experts == 64);
  CHECK(fit.params.k == 6);
  CHECK(fit.params.topics == 1);
  CHECK(fit.params.sequences == 127);
  CHECK(fit.params.min_length == 47);
  CHECK(fit.params.max_length == 88);
}

TEST_CASE("the generator defaults are the fit to the real trace") {
  const auto& fit = intent_fit();
  const trace_gen_params d;
  CHECK(d.skew == Approx(fit.params.skew).epsilon(1e-3));
  CHECK(d.offset == Approx(fit.params.offset).epsilon(1e-3));
  CHECK(d.reuse == Approx(fit.params.reuse).epsilon(1e-3));
}

TEST_CASE("the fitted generator stays within 10 percent of the real trace with another seed") {
  const auto& fit = intent_fit();
  auto q = fit.params;
  q.seed = 7;
  const auto t = statistics(generate_trace(q));
  MESSAGE("seed 7: hottest " << t.hottest_share << " entropy " << t.entropy << " overlap " << t.overlap);
  CHECK(t.hottest_share == Approx(fit.target_hottest_share).epsilon(0.10));
  CHECK(t.entropy == Approx(fit.target_entropy).epsilon(0.10));
  CHECK(t.overlap == Approx(fit.target_overlap).epsilon(0.10));
}

TEST_CASE("the fitter recovers the parameters of a synthetic trace") {
  auto p = small();
  p.layers = 6;
  p.sequences = 60;
  p.skew = 1.2;
  p.offset = 3.0;
  p.reuse = 0.3;
  p.topic_share = 0.0;
  const auto t = generate_trace(p);
  trace_gen_params base;
  base.topic_share = 0.0;
  base.seed = 99;  // fit with other random numbers than those that made the trace
  const auto fit = fit_trace_gen(t, base);
  MESSAGE("recovered skew " << fit.params.skew << " offset " << fit.params.offset << " reuse "
                            << fit.params.reuse);
  CHECK(fit.hottest_share == Approx(fit.target_hottest_share).epsilon(0.05));
  CHECK(fit.entropy == Approx(fit.target_entropy).epsilon(0.05));
  CHECK(fit.overlap == Approx(fit.target_overlap).epsilon(0.05));
  CHECK(fit.params.reuse == Approx(0.3).epsilon(0.15));
}

TEST_CASE("trace_gen allocations are bounded by strata::limits()") {
  trace_gen_params p;
  p.topics = 65536;
  p.experts = 65536;
  p.k = 1;
  CHECK_THROWS_WITH_AS(validate(p),
                       "[strata.trace_gen] layers * (topics + 1) * experts must be <= 4194304 table cells "
                       "(strata::limits().table_cells), got 1.11673e+11",
                       config_error);
  p = trace_gen_params{};
  p.sequences = 1 << 20;
  p.max_length = 1 << 10;
  CHECK_THROWS_AS(validate(p), config_error);
}

TEST_CASE("trace_gen_for takes a model's routing shape and keeps every other default") {
  const auto m = preset("DeepSeek-V3");
  const auto p = trace_gen_for(m);
  CHECK(p.layers == 58);  // 61 layers, the first 3 dense
  CHECK(p.experts == 256);
  CHECK(p.k == 8);
  trace_gen_params d;
  d.layers = p.layers;
  d.experts = p.experts;
  d.k = p.k;
  CHECK(p == d);
  const auto t = generate_trace([&] { auto q = p; q.sequences = 2; q.min_length = q.max_length = 3; return q; }());
  CHECK(t.layers() == m.moe_layers());
  CHECK(t.experts_per_layer() == m.experts);
  CHECK(t.k() == m.top_k);
}
