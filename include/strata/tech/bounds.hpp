// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Range checks for physical parameters. A model that accepts any positive double lets 1e300 or
/// a denormal such as 4.9e-324 through, and products or quotients of such values overflow to
/// inf or collapse to 0 and divide into NaN. The device and technology models therefore bound
/// every quantity by a documented physical range, generous by orders of magnitude around the
/// cited defaults, and name the field, the value and the range when it is violated.

#include <cmath>   // std::isfinite
#include <string>  // std::string, std::to_string

#include "strata/core/error.hpp"
#include "strata/core/scalar.hpp"

namespace strata {
inline namespace v0 {
namespace detail {

/// Requires a finite SI value `x` in [lo, hi]; the message names `field`, the value and the
/// range in `unit` (SI), e.g. "[strata.mono3d] feature_size must be a finite value in [1e-09,
/// 1e-05] m, got 1e+300".
template <class T>
void require_range(const T& x, double lo, double hi, const char* model, const std::string& field,
                   const char* unit) {
  const double v = value_of(x);
  if (!(std::isfinite(v) && v >= lo && v <= hi)) {
    throw config_error(field, std::string("[") + model + "] " + field +
                                  " must be a finite value in [" + to_text(lo) + ", " +
                                  to_text(hi) + "] " + unit + ", got " + to_text(v));
  }
}

/// `require_range` with a field name that is a literal: the name becomes a `std::string` only
/// when the check fails (validation runs on every model call of a sweep).
template <class T>
void require_range(const T& x, double lo, double hi, const char* model, const char* field, const char* unit) {
  const double v = value_of(x);
  if (!(std::isfinite(v) && v >= lo && v <= hi)) require_range(x, lo, hi, model, std::string(field), unit);
}

/// Requires an integer in [lo, hi].
template <class = void>
inline void require_count(long long n, long long lo, long long hi, const char* model,
                          const std::string& field) {
  if (n < lo || n > hi) {
    throw config_error(field, std::string("[") + model + "] " + field + " must be in [" +
                                  std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
                                  std::to_string(n));
  }
}

/// `require_count` with a literal field name, made a `std::string` only on failure.
template <class = void>
inline void require_count(long long n, long long lo, long long hi, const char* model, const char* field) {
  if (n < lo || n > hi) require_count(n, lo, hi, model, std::string(field));
}

}  // namespace detail
}  // namespace v0
}  // namespace strata
