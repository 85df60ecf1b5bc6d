// Sweep engine: axes, spaces, parallel deterministic runs, shards, CSV / JSON Lines writers.
#include "strata/core/sweep.hpp"
#include "strata/core/sweep_io.hpp"

#include <doctest/doctest.h>

#include <algorithm>  // std::sort
#include <cmath>      // std::log
#include <limits>     // std::numeric_limits
#include <sstream>    // std::ostringstream
#include <stdexcept>  // std::runtime_error
#include <string>     // std::string
#include <string_view>  // std::string_view
#include <vector>     // std::vector

#include "strata/core/json.hpp"  // json::parse, the UTF-8 check of JSON Lines
#include "strata/device/mono3d.hpp"

using namespace strata;
using doctest::Approx;

namespace {

// A row of the WL layers × tiers study: numbers, a quantity, a boolean and an enum.
struct chip_row {
  double spread = 0;
  strata::bandwidth<> fastest{};
  strata::data_per_area<> density{};
  bool eight_tiers = false;
  bandwidth_model model = bandwidth_model::access_latency;

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("spread", s.spread);
    v("fastest", s.fastest);
    v("density", s.density);
    v("eight_tiers", s.eight_tiers);
    v("model", s.model);
  }
};

sweep_space layers_by_tiers() {
  return product(cartesian({integer_axis("layers", 64, 1024, 64)}),
                 cartesian({list_axis("tiers", {1, 2, 4, 8, 16})}));
}

chip_row chip_model(const design_point& x) {
  mono3d_params<> p;
  p.layers = x.as_int("layers");
  p.tiers = x.as_int("tiers");
  const auto r = evaluate(p);
  return {r.fast_slow_latency_ratio, r.tiers.front().internal_bandwidth, r.density, p.tiers == 8, p.bandwidth};
}

template <class Writer>
std::string write_run(const sweep_space& s, const sweep_options& o, Writer make) {
  std::ostringstream os;
  auto w = make(os);
  stream_sweep(s, chip_model, w, o);
  return os.str();
}

std::string csv_run(const sweep_space& s, const sweep_options& o) {
  return write_run(s, o, [&](std::ostream& os) { return csv_writer(os, s, o.shard); });
}
std::string jsonl_run(const sweep_space& s, const sweep_options& o) {
  return write_run(s, o, [&](std::ostream& os) { return jsonl_writer(os); });
}

template <class F>
std::string error_field(F&& f) {
  try {
    f();
  } catch (const config_error& e) {
    return e.field();
  }
  return "(no config_error)";
}

}  // namespace

TEST_CASE("axes hold their end points exactly and space their values as asked") {
  const auto lin = linear_axis("x", 1.0, 2.0, 5);
  CHECK(lin.values == std::vector<double>{1.0, 1.25, 1.5, 1.75, 2.0});
  const auto lg = log_axis("f", 1e8, 1e10, 3);
  CHECK(lg.values.front() == 1e8);
  CHECK(lg.values[1] == Approx(1e9).epsilon(1e-14));
  CHECK(lg.values.back() == 1e10);
  CHECK(std::log(lg.values[1] / lg.values[0]) == Approx(std::log(lg.values[2] / lg.values[1])));
  CHECK(integer_axis("n", 10, 1, -3).values == std::vector<double>{10, 7, 4, 1});
  CHECK(integer_axis("n", 0, 8, 4).values == std::vector<double>{0, 4, 8});
  CHECK(linear_axis("one", 3.0, 3.0, 1).values == std::vector<double>{3.0});
}

TEST_CASE("bad axes, spaces and shards are config errors naming the field") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(error_field([] { linear_axis("x", 0.0, 1.0, 0); }) == "axes.x.count");
  CHECK(error_field([] { linear_axis("x", 0.0, 1.0, 1); }) == "axes.x.count");
  CHECK(error_field([&] { linear_axis("x", nan, 1.0, 3); }) == "axes.x.first");
  CHECK(error_field([&] { linear_axis("x", 0.0, inf, 3); }) == "axes.x.last");
  CHECK(error_field([] { linear_axis("x", -1.7e308, 1.7e308, 3); }) == "axes.x.last");
  CHECK(error_field([] { log_axis("f", 0.0, 1.0, 3); }) == "axes.f.first");
  CHECK(error_field([] { log_axis("f", 1.0, -2.0, 3); }) == "axes.f.last");
  CHECK(error_field([] { linear_axis("x", 0.0, 1.0, (std::size_t{1} << 24) + 1); }) == "axes.x.count");
  CHECK(error_field([] { integer_axis("n", 1, 10, -1); }) == "axes.n.step");
  CHECK(error_field([] { integer_axis("n", 1, 10, 0); }) == "axes.n.step");
  CHECK(error_field([] { integer_axis("n", 0, 1LL << 40); }) == "axes.n.count");
  CHECK(error_field([&] { list_axis("v", {1.0, nan}); }) == "axes.v.values[1]");
  CHECK(error_field([] { list_axis("v", {}); }) == "axes.v.count");
  CHECK(error_field([] { list_axis("", {1.0}); }) == "axes.name");
  CHECK(error_field([] { cartesian({}); }) == "axes");
  CHECK(error_field([] { cartesian({list_axis("a", {1}), list_axis("a", {2})}); }) == "axes.a");
  CHECK(error_field([] { zip({list_axis("a", {1, 2}), list_axis("b", {1, 2, 3})}); }) == "axes.b.count");
  CHECK(error_field([] { product(cartesian({list_axis("a", {1})}), cartesian({list_axis("a", {2})})); }) ==
        "axes.a");
  // 2^24 · 2^24 = 2^48 points exceed the 2^40 a space may address (checked before multiplying).
  const auto big = linear_axis("x", 0.0, 1.0, std::size_t{1} << 24);
  auto by = big;
  by.name = "y";
  CHECK(error_field([&] { cartesian({big, by}); }) == "axes");
  CHECK(error_field([] { parse_shard("0/2"); }) == "shard");
  CHECK(error_field([] { parse_shard("3/2"); }) == "shard");
  CHECK(error_field([] { parse_shard("1-2"); }) == "shard");
  CHECK(error_field([] { parse_shard("1/x"); }) == "shard");
  CHECK(error_field([] { parse_shard("/2"); }) == "shard");
  CHECK(error_field([] { validate(sweep_shard{0, 2}); }) == "shard.index");
  CHECK(error_field([] { validate(sweep_shard{3, 2}); }) == "shard.index");
  CHECK(error_field([] { validate(sweep_shard{1, 0}); }) == "shard.count");
  CHECK(parse_shard("2/4") == sweep_shard{2, 4});

  const auto s = layers_by_tiers();
  const auto run = [&](sweep_options o) { return [&s, o] { run_sweep(s, chip_model, o); }; };
  CHECK(error_field(run({.max_points = 79})) == "max_points");
  CHECK_NOTHROW(run({.max_points = 80})());
  CHECK(error_field(run({.max_points = 0})) == "max_points");
  CHECK(error_field(run({.threads = 5000})) == "threads");
  CHECK(error_field(run({.shard = {3, 2}})) == "shard.index");
  CHECK(error_field(run({.block = std::size_t{1} << 25})) == "block");
  CHECK(error_field([&] { (void)s.index_of("banks"); }) == "axis");
  // A coordinate that is not an integer, read as one.
  const auto f = cartesian({list_axis("layers", {64.5})});
  CHECK(error_field([&] { run_sweep(f, [](const design_point& x) { return x.as_int("layers"); }); }) ==
        "axes.layers");
}

TEST_CASE("points decode in nested-loop order: the first axis outermost, zipped axes together") {
  const auto s = product(cartesian({list_axis("a", {1, 2}), list_axis("b", {10, 20, 30})}),
                         zip({list_axis("c", {5, 6}), list_axis("d", {7, 8})}));
  REQUIRE(s.size() == 12);
  REQUIRE(s.dimensions() == 4);
  CHECK(s.point(0) == std::vector<double>{1, 10, 5, 7});
  CHECK(s.point(1) == std::vector<double>{1, 10, 6, 8});
  CHECK(s.point(2) == std::vector<double>{1, 20, 5, 7});
  CHECK(s.point(11) == std::vector<double>{2, 30, 6, 8});
  CHECK(s.index_of("c") == 2);
  CHECK(sweep_space{}.size() == 1);
}

TEST_CASE("a sweep gives the same results with 1, 2 and 3 threads, in input order") {
  const auto s = layers_by_tiers();
  REQUIRE(s.size() == 80);
  const auto one = run_sweep(s, chip_model, {.threads = 1});
  for (unsigned t : {2U, 3U}) {
    for (std::size_t block : {std::size_t{0}, std::size_t{7}}) {
      CAPTURE(t);
      CAPTURE(block);
      const auto many = run_sweep(s, chip_model, {.threads = t, .block = block});
      REQUIRE(many.size() == one.size());
      for (std::size_t i = 0; i < one.size(); ++i) {
        CHECK(many[i].spread == one[i].spread);
        CHECK(many[i].fastest == one[i].fastest);
        CHECK(many[i].density == one[i].density);
      }
    }
  }
  // The order is the input order: point i is the i-th result.
  for (std::size_t i = 0; i < s.size(); i += 13) CHECK(one[i].spread == chip_model(design_point(s, i)).spread);
  // One tier has no spread; more WL layers make the staircase longer and the spread wider.
  CHECK(one[0].spread == 1.0);
  CHECK(one[79].spread > one[4].spread);
  CHECK(csv_run(s, {.threads = 1}) == csv_run(s, {.threads = 2, .block = 5}));
  CHECK(jsonl_run(s, {.threads = 1}) == jsonl_run(s, {.threads = 2}));
}

TEST_CASE("shard 1/2 and 2/2 concatenated are the whole run, and strided shards sorted by index too") {
  const auto s = layers_by_tiers();
  const std::string whole = csv_run(s, {.threads = 2});
  const std::string a = csv_run(s, {.threads = 2, .shard = parse_shard("1/2")});
  const std::string b = csv_run(s, {.threads = 1, .shard = parse_shard("2/2")});
  CHECK(a + b == whole);
  CHECK(b.find("index,") == std::string::npos);  // the header comes with shard 1 only
  // Three contiguous shards of 80 points: 27 + 27 + 26 rows.
  std::string three;
  for (std::size_t i = 1; i <= 3; ++i) three += jsonl_run(s, {.shard = {i, 3}});
  CHECK(three == jsonl_run(s, {}));
  CHECK(points_of({3, 3}, 80).first == 54);
  CHECK(points_of({3, 3}, 80).count == 26);
  // Strided: index ≡ i − 1 (mod n); every point exactly once.
  std::vector<std::size_t> seen;
  for (std::size_t i = 1; i <= 3; ++i) {
    const sweep_shard sh{i, 3, shard_layout::strided};
    const auto pts = points_of(sh, 80);
    std::size_t k = 0;
    stream_sweep(s, chip_model, [&](const design_point& x, const chip_row&) {
      CHECK(x.index() == pts.at(k++));
      CHECK(x.index() % 3 == i - 1);
      seen.push_back(x.index());
    }, {.shard = sh});
  }
  std::sort(seen.begin(), seen.end());
  REQUIRE(seen.size() == 80);
  for (std::size_t i = 0; i < seen.size(); ++i) CHECK(seen[i] == i);
  // More shards than points: the extra shards are empty.
  CHECK(points_of({5, 8}, 4).count == 0);
  CHECK(points_of({4, 8}, 4).count == 1);
}

TEST_CASE("writers: CSV header, quantities in SI, booleans, enums, JSON nulls for non-finite values") {
  const auto s = cartesian({list_axis("layers", {1024}), list_axis("tiers", {8})});
  const std::string csv = csv_run(s, {});
  CHECK(csv.rfind("index,layers,tiers,spread,fastest,density,eight_tiers,model\n0,1024,8,", 0) == 0);
  CHECK(csv.find(",1,access_latency\n") != std::string::npos);
  const chip_row r = chip_model(design_point(s, 0));
  std::array<char, 32> buf{};
  CHECK(csv.find(std::string(detail::number_text(r.fastest.si(), buf))) != std::string::npos);
  const std::string js = jsonl_run(s, {});
  CHECK(js.rfind(R"({"index":0,"layers":1024,"tiers":8,"spread":)", 0) == 0);
  CHECK(js.find(R"("eight_tiers":true,"model":"access_latency"})") != std::string::npos);
  // A bare number is the column "value"; non-finite values and text that needs quoting.
  std::ostringstream c, j;
  const auto v = cartesian({list_axis("x", {0, 1})});
  csv_writer cw(c, v);
  jsonl_writer jw(j, {.index = false});
  const auto f = [](const design_point& x) { return x[0] == 0 ? std::numeric_limits<double>::infinity() : 0.5; };
  stream_sweep(v, f, [&](const design_point& x, double y) {
    cw(x, y);
    jw(x, y);
  });
  CHECK(c.str() == "index,x,value\n0,0,inf\n1,1,0.5\n");
  CHECK(j.str() == "{\"x\":0,\"value\":null}\n{\"x\":1,\"value\":0.5}\n");
  std::ostringstream t;
  detail::write_csv_text(t, "a,\"b\"");
  CHECK(t.str() == "\"a,\"\"b\"\"\"");
  std::ostringstream u;
  detail::write_json_string(u, "q\"\\\n");
  CHECK(u.str() == "\"q\\\"\\\\\\u000a\"");
}

TEST_CASE("the first failing point's exception is rethrown whatever the thread count") {
  const auto s = cartesian({integer_axis("i", 0, 99)});
  const auto f = [](const design_point& x) -> int {
    if (x.index() == 17 || x.index() == 60) throw std::runtime_error(std::to_string(x.index()));
    return static_cast<int>(x.index());
  };
  for (unsigned t : {1U, 2U, 4U}) {
    CAPTURE(t);
    std::string what;
    try {
      run_sweep(s, f, {.threads = t, .block = 100});
    } catch (const std::runtime_error& e) {
      what = e.what();
    }
    CHECK(what == "17");
  }
}

TEST_CASE("progress: reported after every block, printed only for runs longer than a second") {
  const auto s = cartesian({integer_axis("i", 0, 999)});
  std::vector<sweep_progress> seen;
  run_sweep(s, [](const design_point& x) { return x[0]; },
            {.threads = 2, .block = 100, .progress = [&](const sweep_progress& p) { seen.push_back(p); }});
  REQUIRE(seen.size() == 10);
  CHECK(seen.front().done == 100);
  CHECK(seen.back().done == 1000);
  CHECK(seen.back().total == 1000);
  std::ostringstream quiet, loud;
  progress_printer q(quiet), l(loud);
  q({10, 100, 0.2});
  q({100, 100, 0.4});
  CHECK(quiet.str().empty());
  l({10, 100, 1.5});
  l({20, 100, 1.7});  // within a second of the last line: not printed
  l({50, 100, 3.0});
  l({100, 100, 6.0});
  CHECK(loud.str() == "sweep: 10 / 100 points (10 %), 1.5 s, about 13.5 s left\n"
                      "sweep: 50 / 100 points (50 %), 3 s, about 3 s left\n"
                      "sweep: 100 points in 6 s\n");
}

namespace {
// A row with a text column, for the JSON Lines writer's UTF-8 check.
struct sweep_labelled_row {
  std::string label;
  double value = 0;

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("label", s.label);
    v("value", s.value);
  }
};
}  // namespace

TEST_CASE("JSON Lines text is valid UTF-8: well-formed characters kept, every other byte U+FFFD") {
  const auto json_text = [](std::string_view s) {
    std::ostringstream os;
    detail::write_json_string(os, s);
    return os.str();
  };
  const std::string fffd = "\xEF\xBF\xBD";
  // Two-, three- and four-byte characters (é, €, U+1F600) pass as they are.
  CHECK(json_text("a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80") == "\"a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\"");
  CHECK(json_text("r\xFF\xFE") == "\"r" + fffd + fffd + "\"");
  CHECK(json_text("\xC0\x80") == "\"" + fffd + fffd + "\"");                // an overlong NUL
  CHECK(json_text("\xED\xA0\x80") == "\"" + fffd + fffd + fffd + "\"");      // a surrogate, U+D800
  CHECK(json_text("\xF4\x90\x80\x80") == "\"" + fffd + fffd + fffd + fffd + "\"");  // past U+10FFFF
  CHECK(json_text("x\xE2\x82") == "\"x" + fffd + fffd + "\"");               // a truncated €
  CHECK(json_text("\x80z") == "\"" + fffd + "z\"");                          // a stray continuation byte

  const auto v = cartesian({list_axis("x", {0})});
  std::ostringstream j;
  jsonl_writer jw(j, {.index = false});
  stream_sweep(v, [](const design_point&) { return sweep_labelled_row{"m\xFF\xFE", 1.5}; },
               [&](const design_point& x, const sweep_labelled_row& r) { jw(x, r); });
  CHECK(j.str() == "{\"x\":0,\"label\":\"m" + fffd + fffd + "\",\"value\":1.5}\n");
  const json back = json::parse(j.str());  // the parser accepts only valid UTF-8
  CHECK(back.at("label") == "m" + fffd + fffd);
}
