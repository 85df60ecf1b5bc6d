#include "strata/report/paper_io.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "strata/report/paper_json.hpp"
#include "strata/report/paper_row.hpp"

using namespace strata;

namespace {
// Hand-made rows, one of each verdict: pass, fail, a known disagreement, a prediction, a bound.
std::vector<paper_row> hand_made_rows() {
  std::vector<paper_row> rows;
  rows.push_back(relative_row("mine.pass", 31.9, "GiB", 32, 0.01, "datasheet Table 4"));
  rows.push_back(relative_row("mine.fail", 30, "GiB", 32, 0.01, "datasheet Table 4", row_kind::fit, "my_params.cells"));
  auto known = bound_row("mine.known", 50, "W", 45, row_check::at_most, "package limit");
  known.known_disagreement = "the model has no power gating";
  rows.push_back(known);
  rows.push_back(prediction_row("mine.prediction", 1.25, "x", "no reference"));
  rows.push_back(bound_row("mine.bound", 8, "tiers", 8, row_check::exact, "Table 1", row_kind::input));
  return rows;
}
}  // namespace

TEST_CASE("relative_row passes within its relative tolerance of the paper and fails outside it") {
  CHECK(*relative_row("a", 32.31, "GiB", 32, 0.01, "s").ok());
  CHECK_FALSE(*relative_row("a", 32.33, "GiB", 32, 0.01, "s").ok());
  CHECK(*relative_row("a", -1.0, "x", -1.0, 0.0, "s").ok());
  const auto r = relative_row("a", 1.0, "x", 2.0, 0.5, "src", row_kind::fit, "p.f");
  CHECK(r.check == row_check::relative);
  CHECK(r.tolerance == 0.5);
  CHECK(r.kind == row_kind::fit);
  CHECK(r.fitted == "p.f");
  CHECK(r.source == "src");
  CHECK(r.known_disagreement.empty());
  SUBCASE("a NaN value fails") { CHECK_FALSE(*relative_row("a", std::nan(""), "x", 1, 0.5, "s").ok()); }
  SUBCASE("a negative or infinite tolerance is an error naming tolerance") {
    CHECK_THROWS_WITH_AS(relative_row("a", 1, "x", 1, -0.1, "s"),
                         "[strata.report] tolerance of row a must be a finite relative tolerance >= 0", config_error);
    try {
      (void)relative_row("a", 1, "x", 1, std::numeric_limits<double>::infinity(), "s");
      FAIL("no error");
    } catch (const config_error& e) {
      CHECK(e.field() == "tolerance");
    }
  }
  SUBCASE("a paper value that is not finite is an error naming paper") {
    try {
      (void)relative_row("a", 1, "x", std::nan(""), 0.1, "s");
      FAIL("no error");
    } catch (const config_error& e) {
      CHECK(e.field() == "paper");
    }
  }
}

TEST_CASE("bound_row judges exactly, at least or at most, and refuses the other rules") {
  CHECK(*bound_row("a", 8, "tiers", 8, row_check::exact, "s").ok());
  CHECK_FALSE(*bound_row("a", 8.0001, "tiers", 8, row_check::exact, "s").ok());
  CHECK(*bound_row("a", 0.99, "R2", 0.98, row_check::at_least, "s").ok());
  CHECK_FALSE(*bound_row("a", 0.97, "R2", 0.98, row_check::at_least, "s").ok());
  CHECK(*bound_row("a", 60, "B", 64, row_check::at_most, "s").ok());
  CHECK_FALSE(*bound_row("a", 65, "B", 64, row_check::at_most, "s").ok());
  CHECK(bound_row("a", 1, "x", 1, row_check::at_most, "s").tolerance == 0.0);
  CHECK_THROWS_WITH_AS(bound_row("a", 1, "x", 1, row_check::relative, "s"),
                       "[strata.report] check of row a must be exact, at_least or at_most, got relative", config_error);
  try {
    (void)bound_row("a", 1, "x", 1, row_check::predict, "s");
    FAIL("no error");
  } catch (const config_error& e) {
    CHECK(e.field() == "check");
  }
}

TEST_CASE("prediction_row has no paper value and no verdict") {
  const auto r = prediction_row("a", 1.5, "x", "s");
  CHECK_FALSE(r.paper.has_value());
  CHECK_FALSE(r.ok().has_value());
  CHECK(r.kind == row_kind::prediction);
  CHECK(r.check == row_check::predict);
  CHECK(r.value == 1.5);
}

TEST_CASE("the summary counts rows by kind and verdict, known disagreements apart") {
  const auto rows = hand_made_rows();
  const auto c = count_report_rows(rows);
  CHECK(c.rows == 5);
  CHECK(c.checks == 2);     // pass, known
  CHECK(c.checks_ok == 1);  // pass
  CHECK(c.fits == 1);
  CHECK(c.inputs == 1);
  CHECK(c.predictions == 1);
  CHECK(c.pass == 2);  // pass, bound
  CHECK(c.fail == 2);  // fail, known
  CHECK(c.known == 1);
  CHECK(c.unjudged == 1);
  CHECK(report_summary(rows) ==
        "5 rows: 2 checks (1 within tolerance), 1 fits, 1 inputs, 1 predictions; 2 of 4 judged rows within "
        "tolerance — 2 FAIL (1 known).");
  const std::vector<paper_row> passing(rows.begin(), rows.begin() + 1);
  CHECK(report_summary(passing) ==
        "1 rows: 1 checks (1 within tolerance), 0 fits, 0 inputs, 0 predictions; 1 of 1 judged rows within tolerance.");
  CHECK(report_summary({}) ==
        "0 rows: 0 checks (0 within tolerance), 0 fits, 0 inputs, 0 predictions; 0 of 0 judged rows within tolerance.");
}

TEST_CASE("the report passes unless a judged row fails without a known disagreement") {
  auto rows = hand_made_rows();
  CHECK_FALSE(report_passes(rows));  // mine.fail
  rows.erase(rows.begin() + 1);
  CHECK(report_passes(rows));  // the known disagreement and the prediction do not fail it
  rows[1].known_disagreement.clear();
  CHECK_FALSE(report_passes(rows));
  CHECK(report_passes({}));
}

TEST_CASE("the markdown printer prints each row, the summary and the known disagreements") {
  const auto rows = hand_made_rows();
  CHECK(report_row_markdown(rows[0]) == "| mine.pass | check | 31.9 | GiB | 32 | ±1 % | datasheet Table 4 | pass |");
  CHECK(report_row_markdown(rows[1]) ==
        "| mine.fail | fit (my_params.cells) | 30 | GiB | 32 | ±1 % | datasheet Table 4 | **FAIL** |");
  CHECK(report_row_markdown(rows[2]) == "| mine.known | check | 50 | W | 45 | max | package limit | **FAIL** (known, below) |");
  CHECK(report_row_markdown(rows[3]) == "| mine.prediction | prediction | 1.25 | x | — | predict | no reference | prediction |");
  CHECK(report_row_markdown(rows[4]) == "| mine.bound | input | 8 | tiers | 8 | exact | Table 1 | pass |");
  CHECK(report_tolerance_text(relative_row("a", 1, "x", 1, 0.025, "s")) == "±2.5 %");
  CHECK(report_tolerance_text(bound_row("a", 1, "x", 1, row_check::at_least, "s")) == "min");
  std::ostringstream os;
  write_report_markdown(os, rows);
  std::string expected =
      "| id | kind | value | unit | paper | tolerance | source | ok |\n"
      "| --- | --- | ---: | --- | ---: | --- | --- | --- |\n";
  for (const auto& r : rows) expected += report_row_markdown(r) + "\n";
  expected += "\n" + report_summary(rows) + "\n";
  expected += "\nKnown disagreements (the model misses these rows; the mechanism):\n";
  expected += "- mine.known: the model has no power gating\n";
  CHECK(os.str() == expected);
  SUBCASE("without a known disagreement there is no list") {
    std::ostringstream plain;
    write_report_markdown(plain, std::vector<paper_row>(rows.begin(), rows.begin() + 2));
    CHECK(plain.str().find("Known disagreements") == std::string::npos);
    CHECK(plain.str().size() > 0);
    CHECK(plain.str().back() == '\n');
  }
}

TEST_CASE("a row's JSON carries its rule, a tolerance only for relative rows, and nulls for what it lacks") {
  const auto rows = hand_made_rows();
  const auto pass = report_row_json(rows[0]);
  CHECK(pass["rule"] == "relative");
  CHECK(pass["tolerance"] == 0.01);
  CHECK(pass["paper"] == 32.0);
  CHECK(pass["ok"] == true);
  CHECK(pass["fitted"].is_null());
  CHECK(pass["known_disagreement"].is_null());
  CHECK(pass["kind"] == "check");
  const auto fail = report_row_json(rows[1]);
  CHECK(fail["ok"] == false);
  CHECK(fail["fitted"] == "my_params.cells");
  const auto known = report_row_json(rows[2]);
  CHECK(known["rule"] == "max");
  CHECK(known["tolerance"].is_null());
  CHECK(known["known_disagreement"] == "the model has no power gating");
  const auto pred = report_row_json(rows[3]);
  CHECK(pred["rule"] == "predict");
  CHECK(pred["tolerance"].is_null());
  CHECK(pred["paper"].is_null());
  CHECK(pred["ok"].is_null());
  CHECK(report_row_json(rows[4])["rule"] == "exact");
  CHECK(report_row_json(bound_row("a", 1, "x", 1, row_check::at_least, "s"))["rule"] == "min");
  CHECK(pass.size() == 11);  // id value unit paper tolerance rule source kind fitted ok known_disagreement
  const auto all = report_json(rows);
  REQUIRE(all.is_array());
  CHECK(all.size() == rows.size());
  CHECK(all[3] == pred);
}
