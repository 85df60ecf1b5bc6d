#include "strata/report/paper_rows.hpp"

#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

using namespace strata;

TEST_CASE("paper_rows with only computes the named families, in report order, and hears only them") {
  paper_report_options o;
  o.only = {"hcrmap-metadata", "stratum-device"};  // the order given does not matter
  std::vector<std::pair<std::string, std::size_t>> heard;
  std::size_t experiments = 0, sunk = 0;
  o.progress = [&heard](std::string_view family, std::size_t n) { heard.emplace_back(family, n); };
  o.experiment_progress = [&experiments](std::string_view, std::string_view) { ++experiments; };
  o.sink = [&sunk](std::span<const paper_row> part) { sunk += part.size(); };
  const auto rows = paper_rows(o);
  const auto device = stratum_device_rows();
  const auto metadata = hcrmap_metadata_rows();
  REQUIRE(rows.size() == device.size() + metadata.size());
  CHECK(rows.front().id == device.front().id);
  CHECK(rows[device.size()].id == metadata.front().id);
  CHECK(rows.back().id == metadata.back().id);
  for (std::size_t i = 0; i < device.size(); ++i) CHECK(rows[i].value == device[i].value);
  REQUIRE(heard.size() == 2);
  CHECK(heard[0] == std::pair<std::string, std::size_t>("stratum device", device.size()));
  CHECK(heard[1] == std::pair<std::string, std::size_t>("hcrmap metadata", metadata.size()));
  CHECK(experiments == 0);
  CHECK(sunk == rows.size());
}

TEST_CASE("paper_rows with only skips the serving family without a count table") {
  paper_report_options o;
  o.only = {"stratum-serving", "stratum-chip"};
  std::vector<std::string> heard;
  o.progress = [&heard](std::string_view family, std::size_t) { heard.emplace_back(family); };
  const auto rows = paper_rows(o);
  CHECK(rows.size() == stratum_chip_rows().size() + stratum_thermal_rows().size());
  CHECK(heard == std::vector<std::string>{"stratum chip"});
}

TEST_CASE("a group selects the families that start with its name") {
  const std::vector<std::string> stratum{"stratum"};
  const std::vector<std::string> gpu_and_policies{"gpu", "hcrmap-policies"};
  std::vector<std::string_view> picked, picked2;
  for (const auto& f : paper_families()) {
    if (paper_family_selected(stratum, f.cli)) picked.push_back(f.cli);
    if (paper_family_selected(gpu_and_policies, f.cli)) picked2.push_back(f.cli);
    CHECK(paper_family_selected({}, f.cli));  // no `only`: every family
  }
  CHECK(picked == std::vector<std::string_view>{"stratum-device", "stratum-logic", "stratum-chip", "stratum-systems",
                                                "stratum-results", "stratum-placement", "stratum-serving"});
  CHECK(picked2 == std::vector<std::string_view>{"hcrmap-policies", "gpu-validation"});
  // A prefix that stops inside a word selects nothing.
  const std::vector<std::string> partial{"strat"};
  CHECK_FALSE(paper_family_selected(partial, "stratum-device"));
}

TEST_CASE("an unknown family is an error naming only, the family and the valid spellings") {
  paper_report_options o;
  o.only = {"stratum-device", "stratum-dev"};
  bool heard = false;
  o.progress = [&heard](std::string_view, std::size_t) { heard = true; };
  try {
    (void)paper_rows(o);
    FAIL("no error");
  } catch (const config_error& e) {
    CHECK(e.field() == "only");
    const std::string what = e.what();
    CHECK(what.find("unknown family 'stratum-dev'") != std::string::npos);
    CHECK(what.find("valid: stratum, hcrmap, gpu, stratum-device, stratum-logic,") != std::string::npos);
    CHECK(what.find("gpu-validation)") != std::string::npos);
  }
  CHECK_FALSE(heard);  // nothing computed
  const std::vector<std::string> good{"stratum", "hcrmap-metadata", "gpu"};
  CHECK_NOTHROW(check_paper_families(good));
}
