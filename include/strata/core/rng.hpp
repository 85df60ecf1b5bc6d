// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// A portable random stream: the same numbers from every standard library, for everything in
/// strata that must be reproducible from a seed (the synthetic trace generator, the Double DQN's
/// initial weights, exploration and replay sampling).
///
/// `std::mt19937_64` is specified bit for bit by the C++ standard; the `std::*_distribution`
/// adaptors are not (their algorithms are implementation-defined), so none is used:
/// - uniform in [0, 1): the top 53 bits of one draw times 2^-53 (every double it yields is exact);
/// - an integer in [0, n): one draw, rejected while it falls in the 2^64 mod n lowest values (so
///   every residue has the same number of preimages), then reduced mod n: unbiased;
/// - a standard normal: Box–Muller (Box and Muller, Ann. Math. Stat. 29, 1958) on two uniforms,
///   z = sqrt(−2 ln(1 − u1)) · cos(2π u2); the sine branch is dropped, so each normal consumes
///   exactly two draws. `log`, `cos` and `sqrt` are those of the platform's math library: the
///   normals are bit-identical on one platform, and agree to rounding across platforms.

#include <cmath>    // std::sqrt, std::log, std::cos
#include <cstdint>  // std::uint64_t
#include <random>   // std::mt19937_64

namespace strata {
inline namespace v0 {
namespace detail {

/// Mixes a 64-bit state (SplitMix64; Steele, Lea and Flood, OOPSLA 2014): turns nearby seeds into
/// unrelated ones before they seed a generator.
template <class = void>
inline std::uint64_t splitmix64_mix(std::uint64_t& x) noexcept {
  std::uint64_t z = (x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// A portable random stream over `std::mt19937_64` (see the file comment).
class portable_rng {
 public:
  explicit portable_rng(std::uint64_t seed) : g_(seed) {}
  /// Uniform in [0, 1) from the top 53 bits.
  template <class = void>
  double uniform() noexcept { return static_cast<double>(g_() >> 11) * 0x1.0p-53; }
  /// Uniform integer in [0, n), unbiased (rejection); n must be > 0.
  template <class = void>
  std::uint64_t below(std::uint64_t n) noexcept {
    const std::uint64_t lim = (0 - n) % n;  // 2^64 mod n
    for (;;) {
      const std::uint64_t x = g_();
      if (x >= lim) return x % n;
    }
  }
  /// Standard normal N(0, 1) by Box–Muller from exactly two uniforms.
  template <class = void>
  double normal() noexcept {
    const double u1 = uniform();
    const double u2 = uniform();
    constexpr double two_pi = 6.283185307179586476925286766559;
    return std::sqrt(-2.0 * std::log(1.0 - u1)) * std::cos(two_pi * u2);  // 1 − u1 in (0, 1]
  }
  /// The underlying generator's state compares equal (same seed and same number of draws).
  friend bool operator==(const portable_rng&, const portable_rng&) = default;

 private:
  std::mt19937_64 g_;
};

}  // namespace detail
}  // namespace v0
}  // namespace strata
