// Property tests of study errors (issue 44, items 5 and 7): every error of a failing point of a
// study names the scenario, its study, the point's axis values and the field that failed, through
// `scenario_model` and through `stream_sweep` (which rethrows the lowest failing point's error
// whatever the thread count). The failing points are built the way a hostile scenario would give
// them, past the reader's checks.
#include "strata/report/scenario.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace strata;

namespace {

// A device study over WL layers and tiers whose points with more tiers than layers fail.
scenario hostile_device_study() {
  scenario s;
  s.name = "hostile_device";
  s.study = study_kind::device;
  s.axes = {scenario_axis{.name = "layers", .type = scenario_axis::kind::list, .values = {64, 128}},
            scenario_axis{.name = "tiers", .type = scenario_axis::kind::list, .values = {4, 100, 200}}};
  return s;
}

// Whether the error `e` of point `x` of `s` names the study, every axis value and a field.
void check_names_point(const scenario& s, const design_point& x, const config_error& e) {
  const std::string what = e.what();
  CAPTURE(what);
  CHECK(what.find(std::string("study ") + study_name(s.study)) != std::string::npos);
  CHECK(what.find(s.name) != std::string::npos);
  CHECK(what.find("point " + std::to_string(x.index() + 1) + " of ") != std::string::npos);
  for (std::size_t a = 0; a < x.space().axes().size(); ++a) {
    const std::string axis = x.space().axes()[a].name + "=" + detail::axis_value_text(x.values()[a]);
    CHECK(what.find(axis) != std::string::npos);
    CHECK(e.field().find(axis) != std::string::npos);
  }
  CHECK(e.field().rfind(std::string(study_name(s.study)) + "[", 0) == 0);
  const auto dot = e.field().find("].");
  REQUIRE(dot != std::string::npos);
  // The original field follows the point, and the message names it too.
  CHECK(what.find("field " + e.field().substr(dot + 2) + ": ") != std::string::npos);
}

}  // namespace

TEST_CASE("every failing point of a study names the study, its axis values and the field") {
  const scenario s = hostile_device_study();
  const scenario_model model(s);
  int failures = 0;
  for (std::size_t i = 0; i < model.space().size(); ++i) {
    const design_point x(model.space(), i);
    CAPTURE(i);
    try {
      (void)model(x);
    } catch (const config_error& e) {
      ++failures;
      check_names_point(s, x, e);
    }
  }
  // More tiers than layers fails: (64, 100), (64, 200), (128, 200).
  CHECK(failures == 3);
}

TEST_CASE("a sweep of a study rethrows the lowest failing point's error, named, whatever the threads") {
  const scenario s = hostile_device_study();
  const scenario_model model(s);
  for (unsigned threads : {1U, 2U}) {
    CAPTURE(threads);
    try {
      stream_sweep(model.space(), model, [](const design_point&, const std::vector<double>&) {}, {.threads = threads});
      FAIL("the sweep did not throw");
    } catch (const config_error& e) {
      const design_point lowest(model.space(), 1);  // layers 64, tiers 100
      check_names_point(s, lowest, e);
      CHECK(e.field() == "device[layers=64,tiers=100].tiers");
    }
  }
}

TEST_CASE("an HCRMap study whose decode window fits no package names the context of the point, not the layer count") {
  scenario s;
  s.name = "hostile_context";
  s.study = study_kind::hcrmap_budget;
  s.model = "DeepSeek-V2-Lite";
  s.hcrmap.windows = 1;
  s.hcrmap.max_layers = 1;
  s.axes = {scenario_axis{.name = "context", .type = scenario_axis::kind::list, .values = {1048576}}};
  const scenario_model model(s);
  const design_point x(model.space(), 0);
  try {
    (void)model(x);
    FAIL("the point did not throw");
  } catch (const config_error& e) {
    check_names_point(s, x, e);
    CHECK(e.field() == "hcrmap_budget[context=1048576].context");
    const std::string what = e.what();
    CHECK(what.find("decode window of 512 sequences at context 1048576 fits no package plan") != std::string::npos);
    CHECK(what.find("got 27") == std::string::npos);
  }
}
