// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// One vocabulary for memory tiers: a Mono3D latency tier, an HBM stack,
/// an SRAM near-tier and a DDR5 pool are all a `memory_tier`, so Stratum's placement can run on
/// HCRMap's tiers and the reverse.

#include <cmath>    // std::isfinite
#include <string>   // std::string
#include <utility>  // std::move

#include "strata/core/cost.hpp"
#include "strata/core/error.hpp"
#include "strata/core/limits.hpp"
#include "strata/core/units.hpp"

namespace strata {
inline namespace v0 {

/// A level of memory as the roofline sees it.
template <class T = double>
struct memory_tier {
  std::string name;                         ///< e.g. "mono3d.tier0", "hbm", "sram"
  strata::data_size<T> capacity{};          ///< usable bytes
  strata::bandwidth<T> bandwidth{};         ///< sustained bytes per second
  strata::duration<T> latency{};            ///< fixed access latency
  strata::energy_per_data<T> energy_per_byte{};  ///< access energy
  int banks = 1;                            ///< independently serving banks

  /// Field list for JSON (strata/core/json.hpp).
  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("name", s.name);
    v("capacity", s.capacity);
    v("bandwidth", s.bandwidth);
    v("latency", s.latency);
    v("energy_per_byte", s.energy_per_byte);
    v("banks", s.banks);
  }

  friend bool operator==(const memory_tier&, const memory_tier&) = default;
};

/// Checks a tier; throws `config_error` naming the field.
template <class T>
void validate(const memory_tier<T>& t) {
  const input_limits& lim = limits();
  const auto ok = [&lim](double x, bool positive) {
    return std::isfinite(x) && (positive ? x > 0.0 : x >= 0.0) &&
           (x == 0.0 || (x >= lim.quantity_min && x <= lim.quantity_max));
  };
  // The checks below build their messages; run them only when a field is out of range (a tier is
  // checked on every placement, so the passing path must not allocate).
  if (ok(value_of(t.capacity.si()), true) && ok(value_of(t.bandwidth.si()), true) && ok(value_of(t.latency.si()), false) &&
      ok(value_of(t.energy_per_byte.si()), false) && t.banks >= 1 && t.banks <= lim.banks) {
    return;
  }
  const std::string p = t.name.empty() ? std::string("tier") : t.name;
  detail::require_positive(t.capacity.si(), "strata.tier", p + ".capacity", "B");
  detail::require_positive(t.bandwidth.si(), "strata.tier", p + ".bandwidth", "B/s");
  detail::require_nonnegative(t.latency.si(), "strata.tier", p + ".latency", "s");
  detail::require_nonnegative(t.energy_per_byte.si(), "strata.tier", p + ".energy_per_byte",
                              "J/B");
  // Magnitudes in [1e-24, 1e24] (strata/core/limits.hpp): no 1e300 or denormal reaches a model.
  detail::require_magnitude(t.capacity.si(), "strata.tier", p + ".capacity", "B");
  detail::require_magnitude(t.bandwidth.si(), "strata.tier", p + ".bandwidth", "B/s");
  detail::require_magnitude(t.latency.si(), "strata.tier", p + ".latency", "s");
  detail::require_magnitude(t.energy_per_byte.si(), "strata.tier", p + ".energy_per_byte", "J/B");
  detail::require(t.banks >= 1 && t.banks <= limits().banks, "strata.tier", p + ".banks", t.banks,
                  ("in [1, " + std::to_string(limits().banks) + "] (strata::limits().banks)").c_str());
}

/// Time to stream `bytes` at `bw` after a fixed `latency`: latency + bytes / bw, and zero when
/// nothing moves. The one streaming formula of strata: a tier transfer, a roofline memory term
/// and a chiplet bank's service time (HCRMap Eq. 10) are all this.
template <class T>
strata::duration<T> stream_time(const strata::data_size<T>& bytes, const strata::bandwidth<T>& bw,
                                const strata::duration<T>& latency) {
  if (!(value_of(bytes.si()) > 0.0)) return {};
  return latency + bytes / bw;
}

/// Time to stream `bytes` from the tier: latency + bytes / bandwidth (zero for zero bytes).
template <class T>
strata::duration<T> transfer_time(const memory_tier<T>& t, const strata::data_size<T>& bytes) {
  return stream_time(bytes, t.bandwidth, t.latency);
}

/// A leaf cost for streaming `bytes` from the tier.
template <class T>
cost<T> read_cost(const memory_tier<T>& t, const strata::data_size<T>& bytes,
                  std::string name = {}) {
  return cost<T>::leaf(name.empty() ? "read " + t.name : std::move(name), transfer_time(t, bytes),
                       bytes * t.energy_per_byte, {{t.name, bytes}},
                       "latency + bytes / bandwidth");
}

}  // namespace v0
}  // namespace strata
