#include "strata/tech/ddr5.hpp"

#include <doctest/doctest.h>

#include "strata/core/json.hpp"

using namespace strata;
using namespace strata::literals;
using doctest::Approx;

TEST_CASE("DDR5-6400B core timings are 52 clocks of 0.3125 ns") {
  const ddr5_timing<> t;
  // JESD79-5 speed bin DDR5-6400B: CL-tRCD-tRP = 52-52-52 at tCK = 1 / 3.2 GHz.
  CHECK(t.t_rcd.in(units::ns) == Approx(52 * 0.3125));
  CHECK(t.t_cl.in(units::ns) == Approx(52 * 0.3125));
  CHECK(t.t_rp.in(units::ns) == Approx(52 * 0.3125));
  CHECK_NOTHROW(validate(t));
}

TEST_CASE("the reference 32 Gb die density is capacity over area") {
  const dram_die_reference<> d;
  // 32 Gib / 77.2 mm² = 0.4145 Gib/mm².
  CHECK(density(d).in(units::Gib_per_mm2) == Approx(32.0 / 77.2));
  dram_die_reference<> bigger = d;
  bigger.die_area = bigger.die_area * 2.0;
  CHECK(density(bigger).in(units::Gib_per_mm2) == Approx(16.0 / 77.2));
}

TEST_CASE("bad DDR5 parameters raise config_error naming the field") {
  ddr5_timing<> t;
  t.t_cl = units::ns(-1.0);
  try {
    validate(t, "base");
    FAIL("no config_error");
  } catch (const config_error& e) {
    CHECK(e.field() == "base.t_cl");
  }
  dram_die_reference<> d;
  d.die_area = 0_mm2;
  CHECK_THROWS_AS((void)density(d), config_error);
}

TEST_CASE("DDR5 parameters round-trip through JSON") {
  const ddr5_timing<> t;
  const json j = t;
  CHECK(j.get<ddr5_timing<>>() == t);
  const auto u = json::parse(R"({"t_rcd": "14.375 ns"})").get<ddr5_timing<>>();
  CHECK(u.t_rcd.in(units::ns) == Approx(14.375));
  CHECK_THROWS_AS((void)json::parse(R"({"t_rcd": "14.375 GB"})").get<ddr5_timing<>>(), config_error);
}
