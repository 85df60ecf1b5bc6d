#include "strata/report/paper.hpp"

#include <doctest/doctest.h>

#include <set>

using namespace strata;

// The test suite runs the same computation as examples/paper_report and fails on any calibration
// row out of tolerance (spec/numbers.md).
TEST_CASE("every calibration row of the paper report is within tolerance") {
  for (const auto& r : paper_rows()) {
    CAPTURE(r.id);
    CAPTURE(r.value);
    CHECK(std::isfinite(r.value));
    if (r.check == row_check::predict) {
      CHECK_FALSE(r.paper.has_value());
      CHECK_FALSE(r.ok().has_value());
    } else {
      REQUIRE(r.ok().has_value());
      CHECK(*r.ok());
    }
  }
}

TEST_CASE("the report has every stratum.device, stratum.logic and hcrmap.metadata id of numbers.md, once") {
  const std::set<std::string> expected = {
      "stratum.device.tiers",
      "stratum.device.fast_slow_latency_ratio_1024",
      "stratum.device.latency_vs_layer_r2_1024",
      "stratum.device.internal_bw_slowest_tier_TBps",
      "stratum.device.internal_bw_fastest_tier_TBps",
      "stratum.device.chip_capacity_GB",
      "stratum.device.density_Gb_per_mm2",
      "stratum.device.density_vs_ddr5_32Gb",
      "stratum.device.fast_slow_latency_ratio_512",
      "stratum.logic.area_budget_mm2",
      "stratum.logic.macs",
      "stratum.logic.peak_tflops",
      "stratum.logic.active_area_mm2",
      "stratum.logic.area_utilization",
      "stratum.logic.peak_power_W",
      "stratum.logic.power_cap_W",
      "stratum.logic.max_macs_within_budget",
      "stratum.logic.tiering_table_area_fraction_of_pe",
      "hcrmap.metadata.directory_bytes_per_replica",
      "hcrmap.metadata.directory_bytes_largest_model",
      "hcrmap.metadata.pressure_counter_bytes",
  };
  std::set<std::string> seen;
  for (const auto& r : paper_rows()) {
    CHECK_MESSAGE(seen.insert(r.id).second, "duplicate id " << r.id);
    CHECK_FALSE(r.source.empty());
    CHECK_FALSE(r.unit.empty());
  }
  for (const auto& id : expected) CHECK_MESSAGE(seen.count(id) == 1, "missing " << id);
}

TEST_CASE("row values come from the models: changing a parameter moves them") {
  mono3d_params<> p;
  p.staircase_step = p.staircase_step * 1.5;
  const auto rows = stratum_device_rows(p);
  const auto base = stratum_device_rows();
  REQUIRE(rows.size() == base.size());
  CHECK(rows[1].id == "stratum.device.fast_slow_latency_ratio_1024");
  CHECK(rows[1].value > base[1].value);
  CHECK_FALSE(*rows[1].ok());  // a 1.5x longer staircase breaks the calibration

  logic_die_params<> lp;
  lp.e_mac = lp.e_mac * 2.0;
  const auto logic = stratum_logic_rows(lp);
  const auto logic0 = stratum_logic_rows();
  CHECK(logic[5].id == "stratum.logic.peak_power_W");
  CHECK(logic[5].value > logic0[5].value);
}

TEST_CASE("row checks judge values as numbers.md says") {
  paper_row r{"x", 1.02, "x", 1.0, 0.03, row_check::relative, "s"};
  CHECK(*r.ok());
  r.value = 1.04;
  CHECK_FALSE(*r.ok());
  r.check = row_check::at_least;
  CHECK(*r.ok());
  r.value = 0.99;
  CHECK_FALSE(*r.ok());
  r.check = row_check::at_most;
  CHECK(*r.ok());
  r.check = row_check::exact;
  CHECK_FALSE(*r.ok());
  r.value = 1.0;
  CHECK(*r.ok());
  r.value = std::nan("");
  CHECK_FALSE(*r.ok());
}

TEST_CASE("the metadata rows are computed from the structures, for the largest Table 2 model") {
  const auto rows = hcrmap_metadata_rows();
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].value == double(sizeof(directory_entry)));
  // DeepSeek-V3 has the most routed experts (58 × 256) of Table 2's models.
  CHECK(rows[1].value == double(metadata(substrate{}, 58, 256, 1.3).directory_bytes));
  // A 16 × 16 mesh has more links and banks, so more counters.
  substrate_params big;
  big.mesh_x = 16;
  big.mesh_y = 16;
  CHECK(hcrmap_metadata_rows(big)[2].value > rows[2].value);
}
