// Tests of the stream-bound gain of an exact hot-expert prediction over uniform usage
// (Stratum §5.2 Algorithm 1, §6.1 tier bandwidths, §6.3 Fig. 17b).
#include "strata/stratum/prediction_gain.hpp"

#include <doctest/doctest.h>

#include <cmath>   // std::sqrt
#include <string>  // std::string

#include "strata/core/json.hpp"
#include "support/field_of.hpp"
#include "support/scalars.hpp"

using namespace strata;
using doctest::Approx;
using strata_test::field_of;

TEST_CASE("the two-level gain by hand: A/E of the routed bytes at the fastest tier, the rest at the slowest") {
  // OLMoE's shape, A/E = 8/64, on the §6.1 tier bandwidths: 0.125 + 0.875 · 30.34/19.01.
  const double r = 30.34 / 19.01;
  CHECK(two_level_prediction_gain(0.125, units::MB(12.6), units::B(0.0), units::TBps(30.34), units::TBps(19.01)) ==
        Approx(0.125 + 0.875 * r).epsilon(1e-12));
  // A shared expert as large as the routed bytes, read in both layouts at the fastest tier:
  // (1 + h + (1 − h)·r) / 2 with h = 1/16 (Llama-4-Scout's shape).
  CHECK(two_level_prediction_gain(1.0 / 16, units::GB(1.0), units::GB(1.0), units::TBps(30.34), units::TBps(19.01)) ==
        Approx((1.0 + 1.0 / 16 + 15.0 / 16 * r) / 2.0).epsilon(1e-12));
  // Eq. (1) by hand with every rate different: S_r = 4 GB, S_a = 1 GB, h = 1/4,
  // R_a = 20, R_f = 25, R_h = 24, R_m = 16 TB/s (times in ms):
  // uniform 1/20 + 4·(0.25/24 + 0.75/16) = 0.05 + 0.041667 + 0.1875 = 0.279167; exact 0.05 + 4/25 = 0.21.
  const prediction_gain_params<> p{.uniform_hit_rate = 0.25,
                                   .routed_bytes = units::GB(4.0),
                                   .always_bytes = units::GB(1.0),
                                   .fast_pack_bw = units::TBps(25.0),
                                   .hit_bw = units::TBps(24.0),
                                   .miss_bw = units::TBps(16.0),
                                   .always_bw = units::TBps(20.0)};
  CHECK(prediction_gain(p) == Approx((0.05 + 4.0 * (0.25 / 24 + 0.75 / 16)) / 0.21).epsilon(1e-12));
}

TEST_CASE("the gain is 1 without a tier spread or without misses, and grows as misses slow down") {
  prediction_gain_params<> p{.uniform_hit_rate = 0.25,
                             .routed_bytes = units::GB(4.0),
                             .always_bytes = units::GB(1.0),
                             .fast_pack_bw = units::TBps(30.0),
                             .hit_bw = units::TBps(30.0),
                             .miss_bw = units::TBps(30.0),
                             .always_bw = units::TBps(30.0)};
  CHECK(prediction_gain(p) == Approx(1.0));
  p.miss_bw = units::TBps(10.0);
  p.uniform_hit_rate = 1.0;  // every routed byte hits the fast pack
  CHECK(prediction_gain(p) == Approx(1.0));
  p.uniform_hit_rate = 0.25;
  double prev = 1.0;
  for (double bw : {28.0, 24.0, 20.0, 16.0, 12.0}) {
    p.miss_bw = units::TBps(bw);
    const double g = prediction_gain(p);
    CHECK(g > prev);
    prev = g;
  }
  // More always-read bytes dilute the gain; a higher uniform hit rate lowers it.
  const double base = prediction_gain(p);
  p.always_bytes = units::GB(8.0);
  CHECK(prediction_gain(p) < base);
  p.always_bytes = units::GB(1.0);
  p.uniform_hit_rate = 0.5;
  CHECK(prediction_gain(p) < base);
}

TEST_CASE("no layout with rates between the slowest and the fastest tier beats the two-level bound") {
  const double fast = 30.34, slow = 19.01;
  const auto rates = {slow, 21.0, 24.5, 27.0, fast};
  for (double h : {0.0, 1.0 / 16, 0.125, 0.25, 0.5}) {
    for (double sa : {0.0, 0.5, 2.0}) {
      const double bound = two_level_prediction_gain(h, units::GB(1.0), units::GB(sa), units::TBps(fast), units::TBps(slow));
      for (double rf : rates) {
        for (double rm : rates) {
          for (double ra : rates) {
            CAPTURE(h);
            CAPTURE(sa);
            // The fast pack is the same rows in both layouts: R_h = R_f.
            const prediction_gain_params<> p{.uniform_hit_rate = h,
                                             .routed_bytes = units::GB(1.0),
                                             .always_bytes = units::GB(sa),
                                             .fast_pack_bw = units::TBps(rf),
                                             .hit_bw = units::TBps(rf),
                                             .miss_bw = units::TBps(rm),
                                             .always_bw = units::TBps(ra)};
            CHECK(prediction_gain(p) <= bound * (1.0 + 1e-12));
          }
        }
      }
    }
  }
}

TEST_CASE("bad gain inputs name the field") {
  const prediction_gain_params<> ok{};
  CHECK(prediction_gain(ok) > 1.0);
  const auto bad = [](auto edit) {
    prediction_gain_params<> p{};
    edit(p);
    return field_of([&] { (void)prediction_gain(p); });
  };
  CHECK(bad([](auto& p) { p.uniform_hit_rate = 1.5; }) == "uniform_hit_rate");
  CHECK(bad([](auto& p) { p.uniform_hit_rate = strata_test::k_nan; }) == "uniform_hit_rate");
  CHECK(bad([](auto& p) { p.routed_bytes = units::B(0.0); }) == "routed_bytes");
  CHECK(bad([](auto& p) { p.always_bytes = units::B(-1.0); }) == "always_bytes");
  CHECK(bad([](auto& p) { p.fast_pack_bw = units::TBps(0.0); }) == "fast_pack_bw");
  CHECK(bad([](auto& p) { p.hit_bw = units::TBps(strata_test::k_inf); }) == "hit_bw");
  CHECK(bad([](auto& p) { p.miss_bw = units::TBps(-3.0); }) == "miss_bw");
  CHECK(bad([](auto& p) { p.always_bw = units::TBps(0.0); }) == "always_bw");
}

TEST_CASE("the gain's inputs round-trip through JSON") {
  const prediction_gain_params<> p{.uniform_hit_rate = 0.25, .routed_bytes = units::GB(4.0), .always_bytes = units::GB(1.0),
                                   .miss_bw = units::TBps(16.0)};
  const auto back = json(p).get<prediction_gain_params<>>();
  CHECK(back == p);
}

TEST_CASE("d gain / d miss rate with the autodiff scalar matches the closed form") {
  using strata_test::fvar1;
  using strata_test::make_fvar;
  // g = (S_a/R_a + S_r·(h/R_h + (1 − h)/R_m)) / (S_a/R_a + S_r/R_f), so
  // dg/dR_m = −S_r·(1 − h) / R_m² / (S_a/R_a + S_r/R_f). Units: GB and TB/s (ms).
  const fvar1 rm = make_fvar<double, 1>(16.0);
  const prediction_gain_params<fvar1> p{.uniform_hit_rate = fvar1(0.25),
                                        .routed_bytes = units::GB(fvar1(4.0)),
                                        .always_bytes = units::GB(fvar1(1.0)),
                                        .fast_pack_bw = units::TBps(fvar1(25.0)),
                                        .hit_bw = units::TBps(fvar1(24.0)),
                                        .miss_bw = units::TBps(rm),
                                        .always_bw = units::TBps(fvar1(20.0))};
  const fvar1 g = prediction_gain(p);
  const double denom = 1.0 / 20 + 4.0 / 25;
  CHECK(g.derivative(0) == Approx((0.05 + 4.0 * (0.25 / 24 + 0.75 / 16)) / denom).epsilon(1e-12));
  CHECK(g.derivative(1) == Approx(-4.0 * 0.75 / (16.0 * 16.0) / denom).epsilon(1e-12));
}
