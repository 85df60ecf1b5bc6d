#include "strata/core/tier.hpp"

#include <doctest/doctest.h>

#include "support/field_of.hpp"
#include "support/scalars.hpp"

#include <boost/math/differentiation/autodiff.hpp>  // make_fvar, autodiff_fvar
#include <limits>                                   // std::numeric_limits, NaN and infinity
#include <string>                                   // std::string

using namespace strata;
using namespace strata::literals;
using doctest::Approx;

namespace {

using strata_test::fvar1;
using strata_test::make_fvar;

// Round numbers chosen so transfer times come out by hand (not a published part).
memory_tier<> test_hbm() {
  return {.name = "hbm",
          .capacity = 80_GiB,
          .bandwidth = 400_GBps,
          .latency = 50_ns,
          .energy_per_byte = 1.25_pJ_per_B,
          .banks = 16};
}

using strata_test::field_of;

}  // namespace

TEST_CASE("a well-formed tier validates") {
  CHECK_NOTHROW(validate(test_hbm()));
  SUBCASE("zero latency and zero access energy are allowed") {
    auto t = test_hbm();
    t.latency = 0_s;
    t.energy_per_byte = units::pJ_per_B(0.0);
    CHECK_NOTHROW(validate(t));
  }
  SUBCASE("one bank is allowed") {
    auto t = test_hbm();
    t.banks = 1;
    CHECK_NOTHROW(validate(t));
  }
}

TEST_CASE("validate rejects an out-of-range field naming the tier and the field") {
  auto t = test_hbm();
  SUBCASE("zero bandwidth") {
    t.bandwidth = 0_GBps;
    CHECK_THROWS_WITH_AS(validate(t), "[strata.tier] hbm.bandwidth must be a finite value > 0, got 0 B/s",
                         config_error);
    CHECK(field_of([&] { validate(t); }) == "hbm.bandwidth");
  }
  SUBCASE("infinite bandwidth") {
    t.bandwidth = units::Bps(std::numeric_limits<double>::infinity());
    CHECK(field_of([&] { validate(t); }) == "hbm.bandwidth");
  }
  SUBCASE("negative latency") {
    t.latency = -1_ns;
    CHECK_THROWS_WITH_AS(validate(t), "[strata.tier] hbm.latency must be a finite value >= 0, got -1e-09 s",
                         config_error);
    CHECK(field_of([&] { validate(t); }) == "hbm.latency");
  }
  SUBCASE("zero banks") {
    t.banks = 0;
    CHECK_THROWS_WITH_AS(validate(t), "[strata.tier] hbm.banks must be in [1, 65536] (strata::limits().banks), got 0", config_error);
    CHECK(field_of([&] { validate(t); }) == "hbm.banks");
  }
  SUBCASE("zero capacity") {
    t.capacity = 0_B;
    CHECK_THROWS_WITH_AS(validate(t), "[strata.tier] hbm.capacity must be a finite value > 0, got 0 B",
                         config_error);
  }
  SUBCASE("NaN access energy") {
    t.energy_per_byte = units::pJ_per_B(std::numeric_limits<double>::quiet_NaN());
    CHECK_THROWS_WITH_AS(validate(t), doctest::Contains("hbm.energy_per_byte must be a finite value >= 0"),
                         config_error);
    CHECK(field_of([&] { validate(t); }) == "hbm.energy_per_byte");
  }
  SUBCASE("an unnamed tier is called 'tier'") {
    t.name.clear();
    t.bandwidth = 0_GBps;
    CHECK(field_of([&] { validate(t); }) == "tier.bandwidth");
  }
}

TEST_CASE("transfer time is latency plus bytes over bandwidth") {
  const auto t = test_hbm();
  // 1 MB / 400 GB/s = 2500 ns, plus 50 ns.
  CHECK(transfer_time(t, 1_MB).in(units::ns) == Approx(2550.0).epsilon(1e-12));
  // 67 108 864 B / 400e9 B/s = 167 772.16 ns, plus 50 ns.
  CHECK(transfer_time(t, 64_MiB).in(units::ns) == Approx(167822.16).epsilon(1e-12));
  // One byte costs the latency and a 2.5 ps sliver.
  CHECK(transfer_time(t, 1_B).in(units::ns) == Approx(50.0025).epsilon(1e-12));
  SUBCASE("zero bytes take no time, not the latency") {
    CHECK(transfer_time(t, 0_B) == 0_s);
  }
  SUBCASE("more bytes take longer") {
    CHECK(transfer_time(t, 2_MB) > transfer_time(t, 1_MB));
  }
}

TEST_CASE("read cost is a leaf with energy bytes x energy per byte and traffic on the tier's name") {
  const auto t = test_hbm();
  const auto c = read_cost(t, 1_MB);
  CHECK(c.name == "read hbm");
  CHECK(c.rule == cost_rule::leaf);
  CHECK(c.time.in(units::ns) == Approx(2550.0).epsilon(1e-12));
  CHECK(c.energy.in(units::uJ) == Approx(1.25).epsilon(1e-12));  // 1e6 B x 1.25 pJ/B
  REQUIRE(c.bytes.size() == 1);
  CHECK(c.bytes[0].resource == "hbm");
  CHECK(c.bytes_on("hbm").in(units::MB) == Approx(1.0).epsilon(1e-12));
  CHECK(c.source == "latency + bytes / bandwidth");
  SUBCASE("a given name replaces the default") {
    CHECK(read_cost(t, 1_MB, "W1 from hbm").name == "W1 from hbm");
  }
  SUBCASE("energy given per bit is eight times that per byte") {
    auto u = t;
    u.energy_per_byte = 3.9_pJ_per_bit;  // 31.2 pJ/B
    CHECK(read_cost(u, 1_MB).energy.in(units::uJ) == Approx(31.2).epsilon(1e-12));
  }
  SUBCASE("zero bytes cost nothing") {
    const auto z = read_cost(t, 0_B);
    CHECK(z.time == 0_s);
    CHECK(z.energy == 0_J);
    CHECK(z.bytes_on("hbm") == 0_B);
  }
}

TEST_CASE("tiers compare equal field by field") {
  CHECK(test_hbm() == test_hbm());
  auto t = test_hbm();
  t.banks = 8;
  CHECK_FALSE(t == test_hbm());
  t = test_hbm();
  t.name = "hbm3";
  CHECK(t != test_hbm());
}

TEST_CASE("transfer time differentiates through an autodiff tier") {
  SUBCASE("with respect to latency: 1") {
    const auto l = make_fvar<double, 1>(50.0);
    const memory_tier<fvar1> t{.name = "hbm", .capacity = 80_GiB, .bandwidth = 400_GBps,
                               .latency = units::ns(l), .energy_per_byte = 1.25_pJ_per_B, .banks = 16};
    const auto d = transfer_time(t, data_size<fvar1>(1_MB)).in(units::ns);
    CHECK(d.derivative(0) == Approx(2550.0).epsilon(1e-12));
    CHECK(d.derivative(1) == Approx(1.0).epsilon(1e-12));
  }
  SUBCASE("with respect to bandwidth in GB/s: -1e6 / y^2 ns") {
    const auto y = make_fvar<double, 1>(400.0);
    const memory_tier<fvar1> t{.name = "hbm", .capacity = 80_GiB, .bandwidth = units::GBps(y),
                               .latency = 50_ns, .energy_per_byte = 1.25_pJ_per_B, .banks = 16};
    const auto d = transfer_time(t, data_size<fvar1>(1_MB)).in(units::ns);
    CHECK(d.derivative(1) == Approx(-6.25).epsilon(1e-12));  // -1e6 / 400^2
  }
}

TEST_CASE("validate bounds tier quantities to SI magnitudes in [1e-24, 1e24] (no 1e300, no denormal)") {
  memory_tier<> t{.name = "hbm", .capacity = 80_GiB, .bandwidth = 3350_GBps, .latency = 100_ns,
                  .energy_per_byte = units::pJ_per_B(31.2), .banks = 16};
  CHECK_NOTHROW(validate(t));
  auto bad = t;
  bad.capacity = data_size<>::from_si(1e300);
  CHECK_THROWS_WITH_AS(validate(bad),
                       "[strata.tier] hbm.capacity must be 0 or of magnitude in [1e-24, 1e+24] "
                       "(strata::limits().quantity_min/max), got 1e+300 B",
                       config_error);
  bad = t;
  bad.latency = duration<>::from_si(4.9e-324);
  CHECK(strata_test::field_of([&] { validate(bad); }) == "hbm.latency");
  bad = t;
  bad.energy_per_byte = energy_per_data<>::from_si(1e30);
  CHECK(strata_test::field_of([&] { validate(bad); }) == "hbm.energy_per_byte");
  bad = t;
  bad.banks = 1 << 20;
  CHECK(strata_test::field_of([&] { validate(bad); }) == "hbm.banks");
}
