// The gap explainer's classes of rows beyond the Stratum, validation and serving families
// (report/explain.hpp, report/explain_groups.hpp): a toy group whose gap is solved by hand, the
// verdict that no single change or pair closes a row, a discrete parameter scanned (the HCRMap
// migration premise's link arbitration), the Stratum stack's thermal cap, a vLLM campaign run, and
// the same explanation for every thread count.

#include <doctest/doctest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "strata/report/explain_groups.hpp"
#include "strata/report/explain_json.hpp"
#include "strata/report/explain_row.hpp"
#include "strata/report/paper_rows.hpp"
#include "strata/report/parameter_ranges.hpp"

namespace {

// A toy group: row "toy.y" = a * p (p cited 1, no range stated: [0.1, 10]), row "toy.z" = a * q
// (q cited 2) beside it.
strata::explain_group classes_toy_group(double a) {
  struct state {
    double p = 1.0, q = 2.0;
  };
  auto st = std::make_shared<state>();
  strata::explain_group g;
  g.family = "toy";
  g.row_ids = {"toy.y", "toy.z"};
  g.parameters.push_back({"toy.p", "toy.p", 1.0, [st](double v) { st->p = v; }, {"toy.y"}});
  g.parameters.push_back({"toy.q", "toy.q", 2.0, [st](double v) { st->q = v; }, {"toy.z"}});
  g.evaluate = [st, a](const std::vector<std::string>& ids) {
    std::vector<double> out;
    for (const auto& id : ids) out.push_back(id == "toy.y" ? a * st->p : a * st->q);
    return out;
  };
  return g;
}

bool classes_passes(strata::paper_row r, double v) {
  r.value = v;
  return r.ok().value_or(false);
}

const strata::paper_row& classes_row(const std::vector<strata::paper_row>& rows, const std::string& id) {
  for (const auto& r : rows) {
    if (r.id == id) return r;
  }
  throw std::logic_error("no row " + id);
}

// Row `id` of group `g` re-run with the changes (parameter name, value) applied, then undone.
double classes_rerun(strata::explain_group& g, const std::vector<std::pair<std::string, double>>& changes,
                     const std::string& id) {
  for (const auto& [name, v] : changes) {
    for (auto& p : g.parameters) {
      if (p.name == name) p.set(v);
    }
  }
  const double y = g.evaluate({id}).front();
  for (auto& p : g.parameters) p.set(p.cited);
  return y;
}

}  // namespace

TEST_CASE("explain classes: a linear toy row's gap by hand, and the verdict that says so") {
  // y = 3 p, paper 8 +- 25 %: p alone must reach the band's lower edge 6 / 3 = 2, which is
  // ln(2) / ln(100) = 0.1505 ranges of p's one-decade-each-way range (the walk's grid points 0.1
  // and 0.25 ranges, p = 1.58 and 3.16, bracket it).
  auto g = classes_toy_group(3.0);
  const std::vector<strata::paper_row> rows{strata::detail::rel("toy.y", 3.0, "x", 8.0, 0.25, "toy"),
                                            strata::detail::rel("toy.z", 6.0, "x", 6.0, 0.10, "toy")};
  std::size_t n = 0;
  const auto x = strata::explain_group_rows(g, rows, {"toy.y"}, {}, n);
  REQUIRE(x.size() == 1);
  const auto& r = x.front();
  REQUIRE(r.gap.size() == 1);
  CHECK(r.gap[0].parameter == "toy.p");
  REQUIRE(r.gap[0].needed);
  CHECK(*r.gap[0].needed == doctest::Approx(2.0).epsilon(1e-5));
  CHECK(*r.gap[0].needed >= 2.0 * (1.0 - 1e-12));  // on the passing side
  CHECK(r.gap[0].range_units == doctest::Approx(std::log(2.0) / std::log(100.0)).epsilon(1e-5));
  CHECK(r.gap[0].closes);
  REQUIRE(r.elasticities.size() == 1);
  CHECK(r.elasticities[0].elasticity == doctest::Approx(1.0).epsilon(1e-9));
  CHECK(r.closed_by_one);
  CHECK(r.verdict.rfind("closed by one change: toy.p 1 -> 2", 0) == 0);
  // The family line: p closes toy.y and breaks nothing (toy.z does not read p).
  const auto f = strata::explain_family(g, rows, x, n);
  REQUIRE(f.changes.size() == 1);
  CHECK(f.closes == std::vector<std::string>{"toy.y"});
  CHECK(f.breaks.empty());
}

TEST_CASE("explain classes: a row no single change or pair closes within ten ranges says so") {
  // y = p, paper 1e30: p would need 1e30, far beyond ten of its ranges (a factor 1e20).
  auto g = classes_toy_group(1.0);
  g.parameters[1].feeds = {"toy.y"};  // q feeds y but y does not read it: elasticity 0
  const std::vector<strata::paper_row> rows{strata::detail::rel("toy.y", 1.0, "x", 1e30, 0.10, "toy"),
                                            strata::detail::rel("toy.z", 2.0, "x", 2.0, 0.10, "toy")};
  std::size_t n = 0;
  const auto x = strata::explain_group_rows(g, rows, {"toy.y"}, {}, n);
  REQUIRE(x.size() == 1);
  const auto& r = x.front();
  CHECK_FALSE(r.closed_by_one);
  REQUIRE(r.gap.size() == 1);
  CHECK_FALSE(r.gap[0].needed);
  CHECK_FALSE(r.gap[0].closes);
  CHECK(r.zero_elasticities == 1);
  CHECK(r.pairs.empty());  // one elastic parameter: no pair
  CHECK(r.verdict.find("no single change closes it within 10 ranges") != std::string::npos);
  CHECK(r.verdict.find("nor any pair") != std::string::npos);
  const auto j = strata::row_explanation_json(r);
  CHECK(j.at("verdict") == r.verdict);
  CHECK(j.at("gap")[0].at("needed").is_null());
  // A row no parameter moves says that instead.
  auto h = classes_toy_group(1.0);
  h.parameters[0].feeds = {"toy.z"};
  h.parameters[1].feeds = {"toy.z"};
  const auto y = strata::explain_group_rows(h, rows, {"toy.y"}, {}, n);
  REQUIRE(y.size() == 1);
  CHECK(y.front().verdict.rfind("no parameter the explainer varies moves the row", 0) == 0);
}

TEST_CASE("explain classes: a steep row that jumps over its band between two grid points is solved inside it") {
  // y = p^8 (p cited 1, no range stated: [0.1, 10], one range a factor 100), paper 2 +- 5 %: the
  // band is p in [1.9^(1/8), 2.1^(1/8)] = [1.0835, 1.0972], t in [0.0174, 0.0201] ranges, between
  // the cited point (y = 1, below) and the walk's first grid point 0.05 (p = 1.259, y = 6.3, above).
  struct state {
    double p = 1.0;
  };
  auto st = std::make_shared<state>();
  strata::explain_group g;
  g.family = "toy steep";
  g.row_ids = {"toy.steep"};
  g.parameters.push_back({"toy.p", "toy.p", 1.0, [st](double v) { st->p = v; }, {}});
  g.evaluate = [st](const std::vector<std::string>& ids) { return std::vector<double>(ids.size(), std::pow(st->p, 8.0)); };
  const std::vector<strata::paper_row> rows{strata::detail::rel("toy.steep", 1.0, "x", 2.0, 0.05, "toy")};
  std::size_t n = 0;
  const auto x = strata::explain_group_rows(g, rows, {"toy.steep"}, {}, n);
  REQUIRE(x.size() == 1);
  REQUIRE(x.front().gap.size() == 1);
  const auto& e = x.front().gap.front();
  REQUIRE(e.needed);
  CHECK(e.closes);
  // The band's lower edge, the change nearest the cited value, from inside the band.
  CHECK(*e.needed == doctest::Approx(std::pow(1.9, 1.0 / 8.0)).epsilon(1e-5));
  CHECK(classes_passes(rows[0], std::pow(*e.needed, 8.0)));
  CHECK(e.range_units == doctest::Approx(std::log(std::pow(1.9, 1.0 / 8.0)) / std::log(100.0)).epsilon(1e-4));
  CHECK(x.front().closed_by_one);
}

TEST_CASE("explain classes: two switches no single one closes are tried in pairs, and the pair that closes is verified") {
  // y = 1 + a + 1.5 b + 4 c, switches a, b in {off, on} and c in {zero, one, two}, each cited at
  // its first value; paper 3.5 +- 5 %. Alone: a gives 2, b 2.5, c 5 or 9. Of the pairs only a and
  // b together give 3.5 (a with c: 6, 10; b with c: 6.5, 10.5).
  struct state {
    std::size_t a = 0, b = 0, c = 0;
  };
  auto st = std::make_shared<state>();
  strata::explain_group g;
  g.family = "toy switches";
  g.row_ids = {"toy.s"};
  const auto add = [&g](std::string name, std::vector<std::string> values, std::function<void(std::size_t)> set) {
    strata::explain_choice ch;
    ch.name = std::move(name);
    ch.values = std::move(values);
    ch.cited = 0;
    ch.set = std::move(set);
    ch.source = "toy";
    g.choices.push_back(std::move(ch));
  };
  add("toy.a", {"off", "on"}, [st](std::size_t v) { st->a = v; });
  add("toy.b", {"off", "on"}, [st](std::size_t v) { st->b = v; });
  add("toy.c", {"zero", "one", "two"}, [st](std::size_t v) { st->c = v; });
  const auto value = [st] { return 1.0 + double(st->a) + 1.5 * double(st->b) + 4.0 * double(st->c); };
  g.evaluate = [value](const std::vector<std::string>& ids) { return std::vector<double>(ids.size(), value()); };
  const std::vector<strata::paper_row> rows{strata::detail::rel("toy.s", 1.0, "x", 3.5, 0.05, "toy")};
  std::size_t n = 0;
  const auto x = strata::explain_group_rows(g, rows, {"toy.s"}, {}, n);
  REQUIRE(x.size() == 1);
  const auto& r = x.front();
  CHECK_FALSE(r.closed_by_one);
  CHECK(r.gap.size() == 3);  // each switch alone, none closing
  // Pairs (a, b): 1 combination; (a, c): 2; (b, c): 2.
  CHECK(r.switch_pairs_tried == 5);
  REQUIRE(r.pairs.size() == 1);
  const auto& p = r.pairs.front();
  CHECK(p.parameters == std::array<std::string, 2>{"toy.a", "toy.b"});
  CHECK(p.needed_choice[0] == std::optional<std::string>("on"));
  CHECK(p.needed_choice[1] == std::optional<std::string>("on"));
  CHECK(p.cited_choice[0] == std::optional<std::string>("off"));
  CHECK(p.closes);
  CHECK(p.range_units == 1.0);
  // Verified directly: a and b on give 3.5, each alone does not pass.
  st->a = 1;
  st->b = 1;
  CHECK(classes_passes(rows[0], value()));
  st->b = 0;
  CHECK_FALSE(classes_passes(rows[0], value()));
  st->a = 0;
  CHECK(r.verdict == "no single switch of its 3 discrete parameters closes it (each allowed value tried alone); the pair "
                     "toy.a off -> on and toy.b off -> on (a switch each) does");
  const auto j = strata::row_explanation_json(r);
  CHECK(j.at("pairs")[0].at("needed")[0] == "on");
  CHECK(j.at("switch_pairs_tried") == 5);
  // With a paper no pair reaches, every combination is tried and the verdict says how many.
  const std::vector<strata::paper_row> far{strata::detail::rel("toy.s", 1.0, "x", 100.0, 0.05, "toy")};
  const auto y = strata::explain_group_rows(g, far, {"toy.s"}, {}, n);
  REQUIRE(y.size() == 1);
  CHECK(y.front().pairs.empty());
  CHECK(y.front().switch_pairs_tried == 5);
  CHECK(y.front().verdict.find("nor any pair of them (5 combinations of two switches tried)") != std::string::npos);
  // Off (explain_options::switch_pairs): none tried.
  strata::explain_options o;
  o.switch_pairs = false;
  const auto z = strata::explain_group_rows(g, rows, {"toy.s"}, o, n);
  CHECK(z.front().switch_pairs_tried == 0);
  CHECK(z.front().pairs.empty());
}

TEST_CASE("explain classes: the migration premise's link arbitration, a discrete parameter, is scanned") {
  const auto rows = strata::hcrmap_premise_rows({}, {});
  const std::string id = "hcrmap.premise.migration_delays_dispatch";
  const auto& row = classes_row(rows, id);
  REQUIRE_FALSE(row.ok().value_or(true));
  const auto x = strata::explain_report(rows, {id});
  CHECK(x.unexplained.empty());
  REQUIRE(x.rows.size() == 1);
  const auto& r = x.rows.front();
  CHECK(r.elasticities.empty());
  REQUIRE(r.gap.size() == 1);
  const auto& e = r.gap.front();
  CHECK(e.parameter == "hcrmap.critical_path.arbitration");
  CHECK(e.cited_choice == std::optional<std::string>("per_class"));
  CHECK(e.needed_choice == std::optional<std::string>("shared"));
  CHECK(e.range_units == 1.0);
  CHECK(e.closes);
  CHECK(r.closed_by_one);
  CHECK(r.verdict == "closed by one change: hcrmap.critical_path.arbitration per_class -> shared (a switch)");
  // Verified by hand: the row's own builder under shared arbitration passes.
  strata::critical_path_params cp;
  cp.arbitration = strata::link_arbitration::shared;
  const auto shared = strata::hcrmap_premise_rows({}, {}, strata::substrate_params{}, cp);
  CHECK(classes_row(shared, id).value == 1.0);
  CHECK(classes_row(shared, id).ok().value_or(false));
  const auto j = strata::row_explanation_json(r);
  CHECK(j.at("gap")[0].at("cited") == "per_class");
  CHECK(j.at("gap")[0].at("needed") == "shared");
  REQUIRE(x.families.size() == 1);
  REQUIRE(x.families[0].changes.size() == 1);
  CHECK(x.families[0].changes[0].needed_choice == std::optional<std::string>("shared"));
  CHECK(x.families[0].closes == std::vector<std::string>{id});
  CHECK(strata::family_line_text(x.families[0]).find("per_class -> shared") != std::string::npos);
  // strata-eval explain's path: the row is explained without running the suite.
  const auto o = strata::explain_row(id);
  CHECK(o.status == strata::explain_status::explained);
}

TEST_CASE("explain classes: the Stratum stack's thermal cap has a verified gap list") {
  const auto rows = strata::stratum_thermal_rows();
  const std::string id = "stratum.thermal.logic_power_limit_vs_paper_W";
  const auto& row = classes_row(rows, id);
  const auto x = strata::explain_report(rows);
  CHECK(x.unexplained.empty());
  if (row.ok().value_or(true)) {
    CHECK(x.rows.empty());  // in tolerance: nothing to explain
    return;
  }
  REQUIRE(x.rows.size() == 1);
  const auto& r = x.rows.front();
  CHECK(r.family == "stratum thermal cap");
  CHECK_FALSE(r.gap.empty());
  CHECK_FALSE(r.verdict.empty());
  // A better cold plate admits more logic power, a warmer coolant less.
  bool h = false, coolant = false;
  for (const auto& e : r.elasticities) {
    if (e.parameter == "stack.cold_plate_h_W_m2K") h = e.elasticity > 0.0;
    if (e.parameter == "stack.coolant_K") coolant = e.elasticity < 0.0;
    CHECK(e.parameter.rfind("stack.chip.", 0) != 0);                         // left out
    CHECK(e.parameter.find("heat_capacity") == std::string::npos);          // left out
  }
  CHECK(h);
  CHECK(coolant);
  auto g = strata::thermal_explain_group();
  for (const auto& e : r.gap) {
    CAPTURE(e.parameter);
    if (!e.needed) continue;
    CHECK(e.closes == classes_passes(row, classes_rerun(g, {{e.parameter, *e.needed}}, id)));
  }
  // The coolant's range is ASHRAE's W17-W45 (log scale on kelvin).
  const auto c = strata::range_of("stratum_stack_params.coolant_K", 318.15);
  CHECK(c.stated);
  CHECK(c.lo == doctest::Approx(290.15));
  CHECK(c.hi == doctest::Approx(318.15));
}

TEST_CASE("explain classes: a vLLM campaign run's failing rows have verified gap lists") {
  // Whichever rows of the preset models' runs fail today (the engine's fidelity moves them): the
  // first run with a failing row is explained and every gap entry re-run by hand.
  const auto rows = strata::vllm_campaign_rows(std::nullopt);
  std::string run_prefix, id;
  for (const auto& r : rows) {
    if (r.kind == strata::row_kind::check && !r.ok().value_or(true)) {
      id = r.id;
      break;
    }
  }
  // The families cover every run of a preset model.
  const auto fams = strata::explain_families();
  std::size_t campaign = 0;
  for (const auto& f : fams) campaign += f.name.rfind("vLLM campaign, ", 0) == 0 ? 1 : 0;
  std::size_t preset_runs = 0;
  for (const auto& run : strata::vllm_campaign_runs()) preset_runs += run.hf_fixture.empty() ? 1 : 0;
  CHECK(campaign == preset_runs);
  if (id.empty()) return;  // no campaign row fails
  const auto x = strata::explain_report(rows, {id});
  CHECK(x.unexplained.empty());
  REQUIRE(x.rows.size() == 1);
  const auto& r = x.rows.front();
  CHECK(r.family.rfind("vLLM campaign, ", 0) == 0);
  CHECK_FALSE(r.elasticities.empty());
  CHECK_FALSE(r.gap.empty());
  CHECK_FALSE(r.verdict.empty());
  const std::string key = r.family.substr(std::string("vLLM campaign, ").size());
  for (const auto& run : strata::vllm_campaign_runs()) {
    if (run.key != key) continue;
    auto g = strata::campaign_explain_group(run, strata::preset(run.model));
    const auto& row = classes_row(rows, id);
    for (const auto& e : r.gap) {
      CAPTURE(e.parameter);
      if (!e.needed) continue;
      CHECK(e.closes == classes_passes(row, classes_rerun(g, {{e.parameter, *e.needed}}, id)));
    }
  }
}

TEST_CASE("explain classes: the explanation is the same on one thread and on several") {
  // The GPU validation's measurement rows and the migration premise: two families.
  const strata::fit_options fo{};
  std::vector<strata::prepared_measurement> p;
  for (const auto& m : strata::published_gpu_measurements()) p.push_back(strata::prepare_measurement(m, fo.model));
  auto rows = strata::validation_rows(strata::report_gpu_baseline(p, strata::published_gpu_fit(), fo.model));
  for (auto& r : strata::hcrmap_premise_rows({}, {})) rows.push_back(std::move(r));
  strata::explain_options one, three;
  one.threads = 1;
  three.threads = 3;
  const auto a = strata::explain_report(rows, {}, one);
  const auto b = strata::explain_report(rows, {}, three);
  REQUIRE(a.rows.size() == b.rows.size());
  CHECK(a.rows.size() >= 3);
  CHECK(a.evaluations == b.evaluations);
  for (std::size_t i = 0; i < a.rows.size(); ++i) {
    CHECK(strata::row_explanation_json(a.rows[i]).dump() == strata::row_explanation_json(b.rows[i]).dump());
  }
  REQUIRE(a.families.size() == b.families.size());
  for (std::size_t i = 0; i < a.families.size(); ++i) {
    CHECK(strata::family_line_text(a.families[i]) == strata::family_line_text(b.families[i]));
  }
}
