// strata/report/explain_row.hpp: strata-eval explain's row lookup as a library function (Python's
// strata.explain).
#include <doctest/doctest.h>

#include <string>

#include "strata/json.hpp"
#include "strata/report/explain_row.hpp"

TEST_CASE("explain_row: the family of a row, the rows it does not re-evaluate, unknown rows") {
  CHECK(strata::explain_family_of("stratum.system.olmoe.decode_speedup") == "stratum-results");
  CHECK(strata::explain_family_of("stratum.placement.accurate_vs_uniform_min") == "stratum-results");
  CHECK(strata::explain_family_of("validation.check.x") == "gpu-validation");
  CHECK(strata::explain_family_of("hcrmap.premise.x").empty());
  CHECK(strata::explain_family_of("stratum.thermal.logic_power_limit_vs_paper_W") == "stratum-chip");
  CHECK(strata::explain_family_of("hcrmap.best_on_every_model") == "hcrmap-policies");
  CHECK(strata::explain_family_of("hcrmap.premise.hydra_d2d_ratio") == "hcrmap-policies");
  CHECK(strata::explain_family_of("hcrmap.premise.hydra_latency_ratio") == "hcrmap-policies");
  const auto h = strata::explain_row("hcrmap.premise.copies_cut_queueing");
  CHECK(h.status == strata::explain_status::not_reevaluated);
  CHECK(h.reason == strata::explain_unexplained_reason("hcrmap.premise.copies_cut_queueing"));
  const strata::json j = strata::explain_row_json(h);
  CHECK(j.at("explained") == false);
  CHECK(j.at("id") == "hcrmap.premise.copies_cut_queueing");
  std::string field;
  try {
    (void)strata::explain_row("stratum.composition.olmoe.b1.weight_stream");
  } catch (const strata::config_error& e) {
    field = e.field();
  }
  CHECK(field == "row");
}

TEST_CASE("explain_row: a failing check is explained, one within tolerance is not") {
  const auto ok = strata::explain_row("stratum.system.mixtral.decode_speedup");
  CHECK(ok.status == strata::explain_status::nothing_to_explain);
  CHECK(ok.reason == "within tolerance");
  const auto x = strata::explain_row("stratum.system.olmoe.decode_speedup");
  REQUIRE(x.status == strata::explain_status::explained);
  REQUIRE(x.row);
  CHECK(x.row->id == "stratum.system.olmoe.decode_speedup");
  CHECK_FALSE(x.row->elasticities.empty());
  const strata::json j = strata::explain_row_json(x);
  CHECK(j.at("id") == "stratum.system.olmoe.decode_speedup");
  CHECK(j.contains("family_line"));
  std::string field;
  try {
    (void)strata::explain_row("validation.no.such.row");
  } catch (const strata::config_error& e) {
    field = e.field();
  }
  CHECK(field == "row");
}
