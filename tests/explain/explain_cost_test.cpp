// What the gap explainer runs (report/explain.hpp, issue 47's time budget): the runs by phase
// (`explain_counts`), the family line verifying single changes on the points the rows already ran
// (one runner), a point whose change sets a parameter to its cited value being the cited point, a
// costly group's parts (a point asked for some rows runs only the smallest part holding each), the vLLM
// serving rows of one run (`serving_validation_rows(card, id0, knobs, runs)`), the card fields a vLLM
// run does not read (`explain_parameter::read`), and the whole explanation byte-identical on one
// thread and on two.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "strata/report/explain_groups.hpp"
#include "strata/report/explain_json.hpp"
#include "strata/report/paper_rows.hpp"

namespace {

// A toy costly group of two parts: rows "cost.a1", "cost.a2" (part a, value pa · a) and "cost.b"
// (part b, value pb); `asked` records every evaluator call's rows.
struct cost_toy_state {
  double pa = 1.0, pb = 1.0;
  std::vector<std::vector<std::string>> asked;
};

strata::explain_group cost_toy_group(const std::shared_ptr<cost_toy_state>& st, bool with_parts) {
  strata::explain_group g;
  g.family = "cost toy";
  g.row_ids = {"cost.a1", "cost.a2", "cost.b"};
  g.parameters.push_back({"cost.pa", "cost.pa", 1.0, [st](double v) { st->pa = v; }, {"cost.a1", "cost.a2"}});
  g.parameters.push_back({"cost.pb", "cost.pb", 1.0, [st](double v) { st->pb = v; }, {"cost.b"}});
  g.costly = true;
  if (with_parts) g.parts = {{"cost.a1", "cost.a2"}, {"cost.b"}};
  g.evaluate = [st](const std::vector<std::string>& ids) {
    st->asked.push_back(ids);
    std::vector<double> out;
    for (const auto& id : ids) out.push_back(id == "cost.a1" ? st->pa : id == "cost.a2" ? 2.0 * st->pa : st->pb);
    return out;
  };
  return g;
}

// Report rows of the toy: a1 and b out of tolerance (paper 2 and 3, ±30 %: bands [1.4, 2.6] and
// [2.1, 3.9]), a2 within (paper 2 ±30 %).
std::vector<strata::paper_row> cost_toy_rows() {
  return {strata::detail::rel("cost.a1", 1.0, "x", 2.0, 0.3, "toy"), strata::detail::rel("cost.a2", 2.0, "x", 2.0, 0.3, "toy"),
          strata::detail::rel("cost.b", 1.0, "x", 3.0, 0.3, "toy")};
}

}  // namespace

TEST_CASE("explain cost: a costly group's point runs only the parts that hold the rows asked") {
  auto st = std::make_shared<cost_toy_state>();
  auto g = cost_toy_group(st, true);
  std::size_t n = 0;
  strata::detail::explain_runner run{&g, &n};
  const auto b = run.one({{1, 2.0}}, "cost.b");
  REQUIRE(b);
  CHECK(*b == doctest::Approx(2.0));
  REQUIRE(st->asked.size() == 1);
  CHECK(st->asked.back() == std::vector<std::string>{"cost.b"});
  // A row of part a at a new point runs part a whole (both its rows), not part b.
  CHECK(run.one({{0, 3.0}}, "cost.a2").value_or(0.0) == doctest::Approx(6.0));
  CHECK(st->asked.back() == std::vector<std::string>{"cost.a1", "cost.a2"});
  // Its other row is then answered from memory.
  CHECK(run.one({{0, 3.0}}, "cost.a1").value_or(0.0) == doctest::Approx(3.0));
  CHECK(st->asked.size() == 2);
  CHECK(n == 2);
  // A row in no part runs every row; without parts every point runs every row.
  g.parts = {{"cost.b"}};
  CHECK(run.one({{0, 4.0}}, "cost.a1").value_or(0.0) == doctest::Approx(4.0));
  CHECK(st->asked.back() == g.row_ids);
  auto st2 = std::make_shared<cost_toy_state>();
  auto h = cost_toy_group(st2, false);
  strata::detail::explain_runner all{&h, &n};
  CHECK(all.one({{1, 2.0}}, "cost.b").value_or(0.0) == doctest::Approx(2.0));
  CHECK(st2->asked.back() == h.row_ids);
}

TEST_CASE("explain cost: nested parts run the smallest part that holds each row asked") {
  // As the vLLM serving group's: each run's rows a part, and a part of every row (the pooled rows
  // need every run), which also holds the runs' rows.
  auto st = std::make_shared<cost_toy_state>();
  auto g = cost_toy_group(st, true);
  g.parts.push_back(g.row_ids);
  std::size_t n = 0;
  strata::detail::explain_runner run{&g, &n};
  CHECK(run.one({{0, 3.0}}, "cost.a1").value_or(0.0) == doctest::Approx(3.0));
  CHECK(st->asked.back() == std::vector<std::string>{"cost.a1", "cost.a2"});  // its part, not every row
  CHECK(run.one({{1, 2.0}}, "cost.b").value_or(0.0) == doctest::Approx(2.0));
  CHECK(st->asked.back() == std::vector<std::string>{"cost.b"});
  // A row only the whole part holds runs every row.
  g.parts = {{"cost.a1", "cost.a2"}, g.row_ids};
  CHECK(run.one({{1, 2.5}}, "cost.b").value_or(0.0) == doctest::Approx(2.5));
  CHECK(st->asked.back() == g.row_ids);
  CHECK(n == 3);
}

TEST_CASE("explain cost: the vLLM serving group's rows at a point are the full call's, whatever was run there before") {
  // A row of one run at a changed card (that run simulated alone), then every row at the same card
  // (the pooled rows: the run kept, the other two simulated): bit for bit the rows of
  // `serving_validation_rows` on that card.
  const auto card = strata::validated_gpu(strata::h100_sxm5());
  const std::string id0 = "validation.serving.mixtral_tp2_h100.fitted_knobs.";
  const std::string knobs = "knobs fitted on tests/data/measurements";
  auto g = strata::serving_explain_group(card, id0, knobs, "vLLM serving, fitted knobs");
  std::size_t bw = g.parameters.size();
  for (std::size_t p = 0; p < g.parameters.size(); ++p) {
    if (g.parameters[p].name == "h100_sxm5.memory_bandwidth") bw = p;
  }
  REQUIRE(bw < g.parameters.size());
  auto changed = card;
  changed.memory_bandwidth = strata::units::TBps(3.6);
  const auto want = strata::serving_validation_rows(changed, id0, knobs);
  std::size_t n = 0;
  strata::detail::explain_runner run{&g, &n};
  const std::string general = id0 + "general.e2e_mean_s";
  const auto one = run.one({{bw, changed.memory_bandwidth.si()}}, general);
  REQUIRE(one);
  CHECK(*one == strata::detail::explain_find(want, general)->value);
  const auto all = run.at({{bw, changed.memory_bandwidth.si()}}, g.row_ids);
  REQUIRE(all);
  REQUIRE(all->size() == g.row_ids.size());
  for (std::size_t k = 0; k < g.row_ids.size(); ++k) {
    CAPTURE(g.row_ids[k]);
    const auto* w = strata::detail::explain_find(want, g.row_ids[k]);
    REQUIRE(w != nullptr);
    CHECK((*all)[k] == w->value);
  }
  CHECK(n == 2);
}

TEST_CASE("explain cost: a change to the cited value is the cited point, run once") {
  auto st = std::make_shared<cost_toy_state>();
  auto g = cost_toy_group(st, true);
  std::size_t n = 0;
  strata::detail::explain_runner run{&g, &n};
  REQUIRE(run.one({}, "cost.b"));
  CHECK(run.one({{1, 1.0}}, "cost.b").value_or(0.0) == doctest::Approx(1.0));  // pb's cited value
  CHECK(run.one({{0, 1.0}, {1, 1.0}}, "cost.b").value_or(0.0) == doctest::Approx(1.0));
  CHECK(n == 1);
  CHECK(run.one({{1, 1.5}}, "cost.b").value_or(0.0) == doctest::Approx(1.5));
  CHECK(n == 2);
}

TEST_CASE("explain cost: the runs by phase add up, and the family line reruns no single change") {
  auto st = std::make_shared<cost_toy_state>();
  auto g = cost_toy_group(st, true);
  const auto rows = cost_toy_rows();
  std::size_t n = 0;
  strata::detail::explain_runner run{&g, &n};
  const auto x = strata::explain_group_rows(g, rows, {"cost.a1", "cost.b"}, {}, run);
  REQUIRE(x.size() == 2);
  for (const auto& r : x) {
    CAPTURE(r.id);
    CHECK(r.closed_by_one);
  }
  // a1 = pa reaches its band's lower edge at pa = 1.4 (and a2 = 2 pa = 2.8 leaves its band);
  // b = pb at pb = 2.1 (the walks' first passing grid points, 100^0.1 = 1.58 and 100^0.25 = 3.16
  // of the one-decade-each-way ranges, bracket them).
  // A costly group's solve (Illinois) stops at a passing value: within 10^-4 of the paper's value
  // of the band's edge (`edge_tol_costly`: a1 = pa up to 1.4002, b = pb up to 2.1003), or at the
  // bracket of 10^-4 (1 + t) ranges (t ~ 0.1 of a 100x range: pa within 1.4 * 100^1.1e-4, 0.05 %).
  REQUIRE(x[0].gap.front().needed);
  REQUIRE(x[1].gap.front().needed);
  CHECK(*x[0].gap.front().needed == doctest::Approx(1.4).epsilon(1e-3));
  CHECK(*x[1].gap.front().needed == doctest::Approx(2.1).epsilon(1e-3));
  CHECK(*x[0].gap.front().needed >= 1.4);
  CHECK(*x[0].gap.front().needed <= 1.4 * (1.0 + 6e-4));
  CHECK(*x[1].gap.front().needed >= 2.1);
  CHECK(*x[1].gap.front().needed <= 2.1 * (1.0 + 6e-4));
  const std::size_t before = n;
  CHECK(run.counts.total() == n);
  CHECK(run.counts.elasticity == 3);  // the base point and one forward difference per parameter
  CHECK(run.counts.solves == 2);
  CHECK(run.counts.walk > 0);
  CHECK(run.counts.solve > 0);
  CHECK(run.counts.family == 0);
  const auto f = strata::explain_family(g, rows, x, run);
  // The single changes are points the rows' solves ran (the rows a change does not feed are their
  // cited values); only the set of both is new.
  CHECK(run.counts.family == n - before);
  CHECK(n - before == 1);
  CHECK(f.closes.size() == 2);
  CHECK(f.breaks == std::vector<std::string>{"cost.a2"});
  CHECK(run.counts.total() == n);
  // The same explanation without the shared runner (the old entry points), at more runs.
  auto st2 = std::make_shared<cost_toy_state>();
  auto h = cost_toy_group(st2, true);
  std::size_t m = 0;
  const auto y = strata::explain_group_rows(h, rows, {"cost.a1", "cost.b"}, {}, m);
  const auto f2 = strata::explain_family(h, rows, y, m);
  REQUIRE(y.size() == x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    CHECK(strata::row_explanation_json(x[i]).dump() == strata::row_explanation_json(y[i]).dump());
  }
  CHECK(strata::family_line_text(f) == strata::family_line_text(f2));
  CHECK(m > n);
}

TEST_CASE("explain cost: the vLLM serving rows of one run are the full call's rows of that run") {
  const auto card = strata::validated_gpu(strata::h100_sxm5());
  const std::string id0 = "validation.serving.mixtral_tp2_h100.fitted_knobs.";
  const std::string knobs = "knobs fitted on tests/data/measurements";
  const auto all = strata::serving_validation_rows(card, id0, knobs);
  const auto one = strata::serving_validation_rows(card, id0, knobs, {"codegen"});
  REQUIRE_FALSE(one.empty());
  CHECK(one.size() < all.size());
  for (const auto& r : one) {
    CAPTURE(r.id);
    CHECK(r.id.rfind(id0 + "codegen.", 0) == 0);  // no pooled row without every run
    const auto* full = strata::detail::explain_find(all, r.id);
    REQUIRE(full != nullptr);
    CHECK(r.value == full->value);  // the same simulation, bit for bit
  }
  std::size_t codegen = 0;
  for (const auto& r : all) codegen += r.id.rfind(id0 + "codegen.", 0) == 0 ? 1 : 0;
  CHECK(one.size() == codegen);
  try {
    (void)strata::serving_validation_rows(card, id0, knobs, {"chat"});
    FAIL("no config_error");
  } catch (const strata::config_error& e) {
    CHECK(e.field() == "runs");
  }
}

TEST_CASE("explain cost: the whole explanation is byte-identical on one thread and on two") {
  // The GPU validation's rows, the migration premise and the toy (a costly group of parts) as
  // three families; the serving rows' families are the same code path (tested above by part).
  const strata::fit_options fo{};
  std::vector<strata::prepared_measurement> p;
  for (const auto& m : strata::published_gpu_measurements()) p.push_back(strata::prepare_measurement(m, fo.model));
  auto rows = strata::validation_rows(strata::report_gpu_baseline(p, strata::published_gpu_fit(), fo.model));
  for (auto& r : strata::hcrmap_premise_rows({}, {})) rows.push_back(std::move(r));
  strata::explain_options one, two;
  one.threads = 1;
  two.threads = 2;
  const auto a = strata::explain_report(rows, {}, one);
  const auto b = strata::explain_report(rows, {}, two);
  const auto dump = [](const strata::explanation& x) {
    std::string s;
    for (const auto& r : x.rows) s += strata::row_explanation_json(r).dump() + "\n";
    for (const auto& f : x.families) s += strata::family_line_json(f).dump() + "\n";
    for (const auto& u : x.unexplained) s += u.id + ": " + u.reason + "\n";
    return s;
  };
  CHECK(a.rows.size() >= 3);
  CHECK(dump(a) == dump(b));
  CHECK(a.evaluations == b.evaluations);
  CHECK(a.counts.total() == a.evaluations);
  CHECK(b.counts.total() == b.evaluations);
  CHECK(a.counts.solves == b.counts.solves);
}

TEST_CASE("explain cost: the card fields registered as not read leave the vLLM runs' rows unchanged") {
  // The serving runs on the fitted knobs (three Mixtral runs on 2 GPUs) and a campaign run on one
  // GPU: each field marked not read, changed, re-runs to the same rows bit for bit; the fields
  // marked are the ones the registration names.
  const auto check_group = [](strata::explain_group g, const std::vector<std::string>& want_unread) {
    const auto base = g.evaluate(g.row_ids);
    std::vector<std::string> unread;
    for (auto& p : g.parameters) {
      if (p.read) continue;
      unread.push_back(p.name);
      CAPTURE(p.name);
      p.set(p.cited != 0.0 ? (p.name.ends_with("usable_memory_fraction") ? 0.5 : 1.5) * p.cited : 1e15);
      const auto moved = g.evaluate(g.row_ids);
      p.set(p.cited);
      REQUIRE(moved.size() == base.size());
      for (std::size_t k = 0; k < base.size(); ++k) CHECK(moved[k] == base[k]);
    }
    std::sort(unread.begin(), unread.end());
    CHECK(unread == want_unread);
  };
  const std::string sv = "validation.serving.mixtral_tp2_h100.fitted_knobs.";
  check_group(strata::serving_explain_group(strata::validated_gpu(strata::h100_sxm5()), sv,
                                            "knobs fitted on tests/data/measurements", "vLLM serving, fitted knobs"),
              {"h100_sxm5.node_link_bandwidth", "h100_sxm5.node_link_latency", "h100_sxm5.peak_flops_fp4",
               "h100_sxm5.peak_flops_fp8", "h100_sxm5.usable_memory_fraction"});
  for (const auto& run : strata::vllm_campaign_runs()) {
    if (run.key != "16-llama-3-1-8b-tp1-general") continue;
    check_group(strata::campaign_explain_group(run, strata::preset(run.model)),
                {"h100_sxm5.link_bandwidth", "h100_sxm5.link_latency", "h100_sxm5.node_link_bandwidth",
                 "h100_sxm5.node_link_latency", "h100_sxm5.peak_flops_fp4", "h100_sxm5.peak_flops_fp8",
                 "h100_sxm5.usable_memory_fraction"});
  }
}

TEST_CASE("explain cost: the Illinois solve returns a passing point at the band's edge in few runs") {
  using strata::detail::explain_edge_solve;
  SUBCASE("a smooth margin: stops once the passing end is within the edge tolerance") {
    // margin(x) = x^3 - 0.3 on [0, 1]: edge at x = 0.3^(1/3) = 0.66943...
    int runs = 0;
    const auto g = [&](double x) {
      ++runs;
      return x * x * x - 0.3;
    };
    const double x = explain_edge_solve(g, 0.0, -0.3, 1.0, 0.7, 1e-4, 1e-4, 100);
    CHECK(g(x) >= 0.0);
    CHECK(g(x) <= 1e-4);
    CHECK(x == doctest::Approx(std::cbrt(0.3)).epsilon(1e-4));
    CHECK(runs - 1 <= 8);  // bisection to the same margin (slope 1.3) would take 14
  }
  SUBCASE("a cliff: no point near the edge, stops at the bracket's tolerance on the passing side") {
    int runs = 0;
    const auto g = [&](double x) {
      ++runs;
      return x >= 0.4 ? 0.25 : -10.0;
    };
    const double x = explain_edge_solve(g, 0.0, -10.0, 1.0, 0.25, 1e-4, 1e-4, 100);
    CHECK(x >= 0.4);
    CHECK(x - 0.4 <= 1e-4 * 1.4);
    CHECK(runs <= 40);
  }
  SUBCASE("the passing end already within the tolerance: no run") {
    int runs = 0;
    const auto g = [&](double) {
      ++runs;
      return 0.0;
    };
    CHECK(explain_edge_solve(g, 0.0, -1.0, 1.0, 5e-5, 1e-4, 1e-4, 100) == 1.0);
    CHECK(runs == 0);
  }
}
