#include "strata/tech/bounds.hpp"

#include <doctest/doctest.h>

#include <limits>
#include <string>

#include "strata/tech/ddr5.hpp"
#include "strata/tech/logic_7nm.hpp"

using namespace strata;
using namespace strata::literals;

namespace {
std::string message_of(auto&& f) {
  try {
    f();
  } catch (const config_error& e) {
    return std::string(e.field()) + "|" + e.what();
  }
  return "no error";
}
}  // namespace

TEST_CASE("require_range names the field, the range with its unit and the value") {
  const auto m = message_of([] { detail::require_range(1e300, 1e-9, 1e-5, "strata.x", "feature_size", "m"); });
  CHECK(m.find("feature_size|") == 0);
  CHECK(m.find("[strata.x] feature_size must be a finite value in [1e-09, 1e-05] m, got 1e+300") !=
        std::string::npos);
  CHECK_NOTHROW(detail::require_range(1e-5, 1e-9, 1e-5, "strata.x", "f", "m"));  // bounds included
  CHECK_NOTHROW(detail::require_range(1e-9, 1e-9, 1e-5, "strata.x", "f", "m"));
  CHECK_THROWS_AS(detail::require_range(4.9e-324, 1e-9, 1e-5, "strata.x", "f", "m"), config_error);
  CHECK_THROWS_AS(detail::require_range(std::numeric_limits<double>::quiet_NaN(), 0.0, 1.0, "strata.x", "f", ""),
                  config_error);
  CHECK_THROWS_AS(detail::require_range(std::numeric_limits<double>::infinity(), 0.0, 1e308, "strata.x", "f", ""),
                  config_error);
  const auto c = message_of([] { detail::require_count(-1, 1, 4096, "strata.x", "layers"); });
  CHECK(c.find("layers must be in [1, 4096], got -1") != std::string::npos);
  CHECK_NOTHROW(detail::require_count(4096, 1, 4096, "strata.x", "layers"));
}

TEST_CASE("DDR5 timings and the reference die reject 1e300 and denormals by name") {
  ddr5_timing<> t;
  t.t_rp = units::ns(1e300);
  CHECK(message_of([&] { validate(t, "base"); }).find("base.t_rp|") == 0);
  ddr5_timing<> u;
  u.t_ras = duration<>::from_si(4.9e-324);
  CHECK(message_of([&] { validate(u); }).find("ddr5.t_ras|") == 0);
  dram_die_reference<> d;
  d.die_area = area<>::from_si(4.9e-324);
  CHECK(message_of([&] { (void)density(d); }).find("reference.die_area|") == 0);
  d = {};
  d.capacity = data_size<>::from_si(1e300);
  CHECK(message_of([&] { (void)density(d); }).find("reference.capacity|") == 0);
  CHECK(density(dram_die_reference<>{}).in(units::Gib_per_mm2) == doctest::Approx(32.0 / 77.2));
}

TEST_CASE("7 nm figures reject fractions near zero, which would divide areas into inf") {
  logic_7nm_params<> t;
  t.placement_utilization = 4.9e-324;
  CHECK(message_of([&] { validate(t); }).find("tech.placement_utilization|") == 0);
  logic_7nm_params<> u;
  u.dff_area = area<>::from_si(1e300);
  CHECK(message_of([&] { validate(u); }).find("tech.dff_area|") == 0);
  CHECK_NOTHROW(validate(logic_7nm_params<>{}));
}
