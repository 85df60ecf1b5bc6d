#include "strata/device/dram_refresh.hpp"

#include <doctest/doctest.h>

#include "strata/core/json.hpp"
#include "support/field_of.hpp"
#include "support/scalars.hpp"

namespace strata {
inline namespace v0 {
template struct dram_refresh_params<double>;
template double refresh_availability(const dram_refresh_params<double>&);
template strata::power<double> refresh_power(const dram_refresh_params<double>&, const strata::data_size<double>&);
}  // namespace v0
}  // namespace strata

using namespace strata;
using doctest::Approx;
using strata_test::field_of;

TEST_CASE("JESD79-5 DDR5 refresh: tRFC1 by die density, tREFI 3.9 us, tREFW 32 ms") {
  CHECK(ddr5_t_rfc1(8).in(units::ns) == Approx(195.0));
  CHECK(ddr5_t_rfc1(16).in(units::ns) == Approx(295.0));
  CHECK(ddr5_t_rfc1(24).in(units::ns) == Approx(410.0));
  CHECK(ddr5_t_rfc1(32).in(units::ns) == Approx(410.0));
  CHECK(field_of([] { (void)ddr5_t_rfc1(12); }) == "density");
  const dram_refresh_params<> r;
  CHECK(r.t_refi.in(units::us) == Approx(3.9));
  CHECK(r.t_rfc.si() == ddr5_t_rfc1(32).si());
  // 8192 refresh commands per window.
  CHECK(r.t_refw.si() / r.t_refi.si() == Approx(8192.0).epsilon(0.002));
}

TEST_CASE("refresh takes tRFC of every tREFI of bank time and restores every bit once per window") {
  dram_refresh_params<> r;
  CHECK(refresh_availability(r) == Approx(1.0 - 410.0 / 3900.0));
  // A 32 GiB Mono3D chip: 2.75e11 bits x 0.11 pJ/b / 32 ms = 0.94 W.
  CHECK(refresh_power(r, units::GiB(32.0)).si() == Approx(0.945).epsilon(0.01));
  // Twice the capacity, twice the power; a hot die (tREFI halved) loses twice the bank time.
  CHECK(refresh_power(r, units::GiB(64.0)).si() == Approx(2.0 * refresh_power(r, units::GiB(32.0)).si()));
  auto hot = r;
  hot.t_refi = units::us(1.95);
  CHECK(1.0 - refresh_availability(hot) == Approx(2.0 * (1.0 - refresh_availability(r))));
  r.enabled = false;
  CHECK(refresh_availability(r) == 1.0);
  CHECK(refresh_power(r, units::GiB(32.0)).si() == 0.0);
}

TEST_CASE("refresh sensitivities by autodiff: dP/dE_row = C / tREFW, da/dtRFC = -1 / tREFI") {
  using strata_test::fvar1;
  using strata_test::make_fvar;
  dram_refresh_params<fvar1> r;
  r.row_energy = strata::energy_per_data<fvar1>::from_si(make_fvar<double, 1>(0.11e-12 * 8.0));
  const auto c = strata::data_size<fvar1>::from_si(fvar1(32.0 * 1073741824.0));
  CHECK(refresh_power(r, c).si().derivative(1) == Approx(32.0 * 1073741824.0 / 0.032));
  dram_refresh_params<fvar1> t;
  t.t_rfc = strata::duration<fvar1>::from_si(make_fvar<double, 1>(410e-9));
  CHECK(refresh_availability(t).derivative(1) == Approx(-1.0 / 3.9e-6));
}

TEST_CASE("bad refresh parameters name the field; JSON round-trips with units") {
  dram_refresh_params<> r;
  r.t_rfc = units::us(4.0);
  CHECK(field_of([&] { validate(r); }) == "refresh.t_rfc");
  r = {};
  r.t_refi = units::ns(-1.0);
  CHECK(field_of([&] { validate(r, "nmp.refresh"); }) == "nmp.refresh.t_refi");
  r = {};
  r.t_refw = units::us(1.0);
  CHECK(field_of([&] { validate(r); }) == "refresh.t_refw");
  const dram_refresh_params<> d{.t_rfc = units::ns(295.0)};
  const json j = d;
  CHECK(j.at("t_rfc").is_string());  // a quantity with its unit
  CHECK(j.get<dram_refresh_params<>>() == d);
}

TEST_CASE("JESD79-5 above 85 degC: tREFI and tREFW halve, availability falls, refresh power doubles") {
  const dram_refresh_params<> r;
  const auto normal = refresh_at_temperature(r, 85.0);
  CHECK(normal == r);
  const auto hot = refresh_at_temperature(r, 90.0);
  CHECK(hot.t_refi.in(units::us) == Approx(1.95));
  CHECK(hot.t_refw.in(units::ms) == Approx(16.0));
  CHECK(refresh_availability(r) == Approx(1.0 - 410.0 / 3900.0));
  CHECK(refresh_availability(hot) == Approx(1.0 - 410.0 / 1950.0));  // 79.0 %
  const auto c = units::GiB(32.0);
  CHECK(refresh_power(hot, c).si() == Approx(2.0 * refresh_power(r, c).si()));
  CHECK_THROWS_WITH_AS(refresh_at_temperature(r, 96.0), doctest::Contains("temperature"), config_error);
  CHECK(field_of([&] { (void)refresh_at_temperature(r, std::nan("")); }) == "temperature");
}
