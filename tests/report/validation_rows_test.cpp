#include "strata/report/validation_rows.hpp"

#include <doctest/doctest.h>

#include <cmath>   // std::abs
#include <set>     // std::set
#include <string>  // std::string

using namespace strata;
using doctest::Approx;

namespace {
// The published set's report, computed once per test program.
const validation_report& published_report() {
  static const validation_report r = validate_gpu_baseline(published_gpu_measurements());
  return r;
}
}  // namespace

TEST_CASE("validation rows: one fit row per knob, the held-back median, one check row per held-back row") {
  const validation_report& rep = published_report();
  const auto rows = validation_rows(rep);
  REQUIRE(rows.size() == 3 + 1 + 3 + 17);

  std::set<std::string> fitted;
  for (int i = 0; i < 3; ++i) {
    CAPTURE(rows[i].id);
    CHECK(rows[i].kind == row_kind::fit);
    CHECK_FALSE(rows[i].paper.has_value());  // a fitted knob is not judged
    CHECK_FALSE(rows[i].ok().has_value());
    fitted.insert(rows[i].fitted);
  }
  CHECK(fitted == std::set<std::string>{"gpu_params.memory_efficiency", "gpu_params.compute_efficiency",
                                        "gpu_params.op_overhead"});
  CHECK(rows[0].value == rep.fit.knobs.memory_efficiency);
  CHECK(rows[2].value == Approx(rep.fit.knobs.op_overhead.in(units::us)));

  CHECK(rows[3].id == "validation.check.median_abs_error");
  CHECK(rows[3].kind == row_kind::check);
  CHECK(rows[3].check == row_check::at_most);
  CHECK(*rows[3].paper == 0.15);
  CHECK(rows[3].value == rep.check.median_abs_error);

  // Out of sample by series: one row per key, the same goal, the value of its leave-one-out run.
  const char* keys[3] = {"source", "model", "gpu"};
  for (int k = 0; k < 3; ++k) {
    const auto& r = rows[4 + static_cast<std::size_t>(k)];
    CAPTURE(r.id);
    CHECK(r.id == std::string("validation.series.") + keys[k] + ".median_abs_error");
    CHECK(r.kind == row_kind::check);
    CHECK(*r.paper == 0.15);
    CHECK(r.value == rep.by_series[static_cast<std::size_t>(k)].held_back.median_abs_error);
  }

  int outside = 0;
  int expected_outside = 0;
  for (const auto& v : rep.rows) {
    if (v.set == measurement_set::check && std::abs(v.rel_error) > validation_row_tolerance) ++expected_outside;
  }
  for (std::size_t i = 7; i < rows.size(); ++i) {
    const auto& r = rows[i];
    CAPTURE(r.id);
    CHECK(r.id.rfind("validation.check.", 0) == 0);
    CHECK(r.kind == row_kind::check);
    CHECK(r.tolerance == 0.25);
    REQUIRE(r.paper.has_value());
    REQUIRE(r.ok().has_value());
    if (!*r.ok()) ++outside;
    // No held-back row of the report is missing and no fit row slipped in.
    bool found = false;
    for (const auto& v : rep.rows) {
      if ("validation.check." + v.id == r.id) {
        found = true;
        CHECK(v.set == measurement_set::check);
        CHECK(r.value == v.modelled);
        CHECK(*r.paper == v.measured);
      }
    }
    CHECK(found);
  }
  // The verdicts are the report's errors against the stated tolerance, whatever they are.
  CHECK(outside == expected_outside);
}

TEST_CASE("the default validation rows are those of the published set") {
  const auto a = validation_rows();
  const auto b = validation_rows(published_report());
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].id == b[i].id);
    CHECK(a[i].value == b[i].value);
  }
}
