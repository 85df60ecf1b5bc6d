// SPDX-License-Identifier: MIT
#include "strata/report/thermal_rows.hpp"

#include <doctest/doctest.h>

#include <cmath>   // std::isfinite
#include <string>  // std::string

using namespace strata;

namespace {

const paper_row& thermal_rows_find(const std::vector<paper_row>& rows, const std::string& id) {
  for (const auto& r : rows) {
    if (r.id == id) return r;
  }
  FAIL("no row " << id);
  return rows.front();
}

}  // namespace

TEST_CASE("stratum.thermal rows: the derived cap as a prediction and against the paper's 45 W") {
  const thermal::stratum_stack_params s;
  const auto rows = stratum_thermal_rows(s);
  const auto lim = thermal::logic_power_limit(s);
  REQUIRE(rows.size() == 6);
  const auto& pred = thermal_rows_find(rows, "stratum.thermal.logic_power_limit_W");
  CHECK(pred.kind == row_kind::prediction);
  CHECK_FALSE(pred.paper.has_value());
  CHECK(pred.value == lim.limit_W);
  CHECK(pred.unit == "W");
  const auto& chk = thermal_rows_find(rows, "stratum.thermal.logic_power_limit_vs_paper_W");
  CHECK(chk.kind == row_kind::check);
  CHECK(chk.check == row_check::relative);
  REQUIRE(chk.paper.has_value());
  CHECK(*chk.paper == 45.0);
  CHECK(chk.tolerance == 0.25);
  CHECK(chk.value == lim.limit_W);
  // A failing check names its mechanism; a passing one has none.
  CHECK(chk.ok().value_or(true) == chk.known_disagreement.empty());
  // The cited stack (microchannel h = 1.11e5 W/(m2 K)) admits about twice the paper's cap.
  CHECK(lim.limit_W == doctest::Approx(99.0).epsilon(0.02));
  CHECK_FALSE(*chk.ok());
  CHECK(chk.known_disagreement.find("W; ") != std::string::npos);
  CHECK(thermal_rows_find(rows, "stratum.thermal.rise_per_logic_W_K").value == lim.rise_per_W_K);
  CHECK(thermal_rows_find(rows, "stratum.thermal.dram_self_rise_K").value == lim.dram_self_rise_K);
  CHECK(thermal_rows_find(rows, "stratum.thermal.logic_junction_at_limit_C").value ==
        doctest::Approx(lim.logic_max_K - 273.15));
  auto capped = s.chip;
  capped.logic.p_peak = units::W(lim.limit_W);
  CHECK(thermal_rows_find(rows, "stratum.thermal.max_macs_under_derived_cap").value ==
        static_cast<double>(max_macs_within_budget(capped).n_mac));
  for (const auto& r : rows) {
    CHECK(r.id.rfind("stratum.thermal.", 0) == 0);
    CHECK(std::isfinite(r.value));
  }
}

TEST_CASE("stratum.thermal rows: a stack that meets 45 W within 25 % passes with no disagreement") {
  thermal::stratum_stack_params s;
  s.model.model = thermal::thermal_model_kind::block;
  s.cold_plate_h_W_m2K = 3.5e4;  // a conventional cold plate (docs/thermal.md sensitivity table)
  const auto rows = stratum_thermal_rows(s);
  const auto& chk = thermal_rows_find(rows, "stratum.thermal.logic_power_limit_vs_paper_W");
  CAPTURE(chk.value);
  CHECK(chk.ok().value_or(false));
  CHECK(chk.known_disagreement.empty());
}
