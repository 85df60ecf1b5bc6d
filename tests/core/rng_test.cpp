#include "strata/core/rng.hpp"

#include <doctest/doctest.h>

#include <cmath>    // std::sqrt
#include <cstdint>  // std::uint64_t
#include <vector>   // std::vector

using strata::detail::portable_rng;

TEST_CASE("the stream is std::mt19937_64 as the standard specifies it") {
  // [rand.predef]: the 10 000th output of a default-constructed mt19937_64 (seed 5489) is
  // 9981545732273789042; uniform() keeps its top 53 bits.
  portable_rng r(5489);
  double u = 0.0;
  for (int i = 0; i < 10000; ++i) u = r.uniform();
  CHECK(u == static_cast<double>(9981545732273789042ull >> 11) * 0x1.0p-53);
}

TEST_CASE("uniforms lie in [0, 1) and bounded integers are unbiased") {
  portable_rng r(7);
  double lo = 1.0, hi = 0.0;
  std::vector<int> counts(6, 0);
  constexpr int n = 60000;
  for (int i = 0; i < n; ++i) {
    const double u = r.uniform();
    lo = u < lo ? u : lo;
    hi = u > hi ? u : hi;
    ++counts[static_cast<std::size_t>(r.below(6))];
  }
  CHECK(lo >= 0.0);
  CHECK(hi < 1.0);
  // Each face 10 000 expected, binomial sd = sqrt(60000 · 1/6 · 5/6) = 91: within 5 sd.
  for (const int c : counts) CHECK(std::abs(c - 10000) < 5 * 91);
  CHECK(r.below(1) == 0);
}

TEST_CASE("normals have mean 0 and variance 1, and one seed gives one sequence") {
  portable_rng a(42), b(42), c(43);
  constexpr int n = 40000;
  double s = 0.0, s2 = 0.0;
  bool same = true, differs = false;
  for (int i = 0; i < n; ++i) {
    const double x = a.normal();
    const double y = b.normal();
    same = same && x == y;
    differs = differs || x != c.normal();
    s += x;
    s2 += x * x;
  }
  const double mean = s / n;
  const double var = s2 / n - mean * mean;
  CHECK(same);
  CHECK(differs);
  CHECK(a == b);
  CHECK(std::abs(mean) < 5.0 / std::sqrt(n));        // sd of the mean: 1/sqrt(n) = 0.005
  CHECK(std::abs(var - 1.0) < 5.0 * std::sqrt(2.0 / n));  // sd of the variance: sqrt(2/n) = 0.007
}
