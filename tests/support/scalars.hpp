// Shared test helpers: the autodiff scalar and non-finite constants used across core tests.
#pragma once

#include <limits>  // std::numeric_limits

#include <boost/math/differentiation/autodiff.hpp>

namespace strata_test {

/// First-order forward-mode autodiff scalar.
using fvar1 = boost::math::differentiation::autodiff_fvar<double, 1>;
using boost::math::differentiation::make_fvar;

inline constexpr double k_nan = std::numeric_limits<double>::quiet_NaN();
inline constexpr double k_inf = std::numeric_limits<double>::infinity();

}  // namespace strata_test
