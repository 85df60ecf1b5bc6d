#include "strata/device/rc_ladder.hpp"

#include <doctest/doctest.h>

#include <cmath>

using namespace strata;
using namespace strata::literals;
using doctest::Approx;

TEST_CASE("a lumped RC charges to 50 % at ln 2 times RC") {
  // Driver 1 kΩ into a 1 pF load through a negligible wire: v(t) = 1 − e^{−t/RC}.
  const rc_ladder lad(rc_line{1_kohm, {{units::ohm(1e-6), units::fF(1e-6), 1}}, units::fF(1000.0)});
  CHECK(lad.crossing().in(units::ns) == Approx(std::log(2.0)).epsilon(1e-6));
  CHECK(lad.elmore().in(units::ns) == Approx(1.0).epsilon(1e-6));
  CHECK(lad.far_end(1_ns) == Approx(1.0 - std::exp(-1.0)).epsilon(1e-6));
}

TEST_CASE("a distributed line with no driver load reaches 50 % at 0.38 RC") {
  // Classic result for an open-ended distributed RC line (Sakurai 1983): t50 ≈ 0.377·R·C,
  // Elmore = R·C/2. A tiny driver keeps the system regular.
  const rc_ladder lad(rc_line{units::ohm(1e-3), {{10_kohm, units::fF(100.0), 400}}, {}});
  const double rc_ns = 10e3 * 100e-15 * 1e9;
  CHECK(lad.elmore().in(units::ns) == Approx(0.5 * rc_ns).epsilon(1e-4));
  CHECK(lad.crossing().in(units::ns) == Approx(0.377 * rc_ns).epsilon(0.01));
}

TEST_CASE("the step response rises monotonically to one") {
  const rc_ladder lad(rc_line{2_kohm, {{50_kohm, units::fF(50.0), 50}, {5_kohm, units::fF(100.0), 50}}, {}});
  double last = -1.0;
  for (double t_ns : {0.0, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 50.0, 300.0}) {
    const double v = lad.far_end(units::ns(t_ns));
    CHECK(v >= last);
    last = v;
  }
  CHECK(lad.far_end(0_ns) == Approx(0.0).epsilon(1e-9));
  CHECK(last == Approx(1.0).epsilon(1e-6));
  CHECK(lad.crossing(0.1) < lad.crossing(0.5));
  CHECK(lad.crossing(0.5) < lad.crossing(0.9));
}

TEST_CASE("bad ladders raise config_error") {
  CHECK_THROWS_AS(rc_ladder(rc_line{0_kohm, {{1_kohm, 1_fF, 4}}, {}}), config_error);
  CHECK_THROWS_AS(rc_ladder(rc_line{1_kohm, {}, {}}), config_error);
  CHECK_THROWS_AS(rc_ladder(rc_line{1_kohm, {{1_kohm, 1_fF, 0}}, {}}), config_error);
  const rc_ladder ok(rc_line{1_kohm, {{1_kohm, 1_fF, 4}}, {}});
  CHECK_THROWS_AS((void)ok.crossing(1.5), config_error);
}

TEST_CASE("the eigen-expansion reproduces the Elmore path sum of a small uneven ladder") {
  // Driver 1 kΩ; one section of 3 kΩ / 300 fF in 3 π-segments; 50 fF far-end load. Node
  // capacitances: 50, 100, 100, 50 + 50 fF; resistance from the source to each node: 1, 2, 3,
  // 4 kΩ. The far end's first moment is Σ R_path(min(k, far))·C_k = 1·50 + 2·100 + 3·100 +
  // 4·100 = 950 ps (every node lies on the path to the far end).
  const rc_ladder lad(rc_line{1_kohm, {{3_kohm, units::fF(300.0), 3}}, units::fF(50.0)});
  CHECK(lad.elmore().in(units::ps) == Approx(950.0).epsilon(1e-9));
  // The response starts at zero and the coefficients sum to one (v(∞) = 1).
  CHECK(lad.far_end(0_ns) == Approx(0.0).epsilon(1e-12));
  CHECK(lad.far_end(units::ns(1e3)) == Approx(1.0).epsilon(1e-12));
}
