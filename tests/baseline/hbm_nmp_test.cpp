#include "strata/baseline/hbm_nmp.hpp"

#include <doctest/doctest.h>

#include "strata/core/json.hpp"
#include "support/field_of.hpp"

using namespace strata;
using doctest::Approx;
using strata_test::field_of;

TEST_CASE("an HBM3 NMP stack: 24 GB, 819.2 GB/s out, 4x inside, 64 000 MACs") {
  const hbm_nmp_params<> p;
  validate(p);
  CHECK(p.capacity.in(units::GB) == Approx(24.0));
  CHECK(internal_bandwidth(p).in(units::TBps) == Approx(3.2768));
  CHECK(p.pseudo_channels * p.pes_per_pu * p.dot_engines * p.taps == 64000);
  // Inside-stack access energy: 2.1 pJ/b (file comment), far above Mono3D's 0.17 pJ/b.
  CHECK(access_energy(p.access).in(units::pJ_per_bit) == Approx(2.1));
}

TEST_CASE("bad HBM NMP parameters name the field, and the set round-trips through JSON") {
  hbm_nmp_params<> p;
  p.internal_factor = 0.0;
  CHECK(field_of([&] { validate(p); }) == "internal_factor");
  p = {};
  p.pseudo_channels = 0;
  CHECK(field_of([&] { validate(p); }) == "pseudo_channels");
  p = {};
  p.access.column = units::pJ_per_bit(-1.0);
  CHECK(field_of([&] { validate(p); }) == "access.column");
  const hbm_nmp_params<> q;
  const json j = q;
  CHECK(j.get<hbm_nmp_params<>>() == q);
}
