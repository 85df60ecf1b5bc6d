// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Scalar helpers that let one model body run with `double` and with Boost.Math's forward-mode
/// autodiff type `fvar` (README, Conventions: scalar type): extracting the plain value, and `max`/`min`/
/// `abs` that never mix `double` with `T`.

#include <type_traits>  // std::is_arithmetic_v

namespace strata {
inline namespace v0 {

/// The plain `double` value of a scalar: the number itself for arithmetic types, the value
/// (zeroth derivative) for an autodiff `fvar`, which converts explicitly.
template <class T>
constexpr double value_of(const T& x) {
  if constexpr (std::is_arithmetic_v<T>) {
    return static_cast<double>(x);
  } else if constexpr (requires { x.si(); }) {
    return value_of(x.si());  // a strata::quantity
  } else {
    return static_cast<double>(x);
  }
}

namespace detail {

/// Larger of two values of the same type; works for `fvar` (no `std::max` overload there).
template <class T>
constexpr T max_of(const T& a, const T& b) {
  return a < b ? b : a;
}

/// Smaller of two values of the same type.
template <class T>
constexpr T min_of(const T& a, const T& b) {
  return b < a ? b : a;
}

/// Absolute value for `double` and `fvar` alike.
template <class T>
constexpr T abs_of(const T& a) {
  return a < T(0) ? -a : a;
}

}  // namespace detail
}  // namespace v0
}  // namespace strata
