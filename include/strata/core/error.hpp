// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The two exception types of strata and the checks that raise them
/// (README, Conventions: bad input is a `config_error`, an infeasible point a result).

#include <cmath>      // std::isfinite
#include <sstream>    // std::ostringstream, for the messages
#include <stdexcept>  // std::invalid_argument, std::runtime_error
#include <string>     // std::string
#include <utility>    // std::move

#include "strata/core/scalar.hpp"

namespace strata {
inline namespace v0 {

/// Invalid input: a parameter out of range, a NaN, a JSON field of the wrong type or unit.
/// The message names the model id, the field (or JSON path), the value and what was expected,
/// e.g. `[strata.mono3d] layers must be in [2, 4096], got -1`.
class config_error : public std::invalid_argument {
 public:
  config_error(std::string field, const std::string& message)
      : std::invalid_argument(message), field_(std::move(field)) {}
  /// The field or JSON path that was rejected.
  [[nodiscard]] const std::string& field() const noexcept { return field_; }

 private:
  std::string field_;
};

/// A numerical solver (root finding, bracketing) that did not converge.
class solver_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace detail {

template <class V>
std::string to_text(const V& v) {
  std::ostringstream os;
  os.precision(6);
  os << v;
  return os.str();
}

/// Throws `config_error` "[<model>] <field> must be <expected>, got <value>" unless `ok`.
template <class V>
void require(bool ok, const char* model, const std::string& field, const V& value,
             const char* expected) {
  if (!ok) {
    throw config_error(field, std::string("[") + model + "] " + field + " must be " + expected +
                                  ", got " + to_text(value));
  }
}

/// Requires a finite value strictly above zero; `unit` is printed after the value.
template <class T>
void require_positive(const T& x, const char* model, const std::string& field,
                      const char* unit = "") {
  const double v = value_of(x);
  if (!(std::isfinite(v) && v > 0.0)) {
    throw config_error(field, std::string("[") + model + "] " + field +
                                  " must be a finite value > 0, got " + to_text(v) +
                                  (*unit ? " " : "") + unit);
  }
}

/// Requires a finite value at or above zero.
template <class T>
void require_nonnegative(const T& x, const char* model, const std::string& field,
                         const char* unit = "") {
  const double v = value_of(x);
  if (!(std::isfinite(v) && v >= 0.0)) {
    throw config_error(field, std::string("[") + model + "] " + field +
                                  " must be a finite value >= 0, got " + to_text(v) +
                                  (*unit ? " " : "") + unit);
  }
}

/// Requires a finite value in the closed interval [lo, hi].
template <class T>
void require_in(const T& x, double lo, double hi, const char* model, const std::string& field) {
  const double v = value_of(x);
  if (!(std::isfinite(v) && v >= lo && v <= hi)) {
    throw config_error(field, std::string("[") + model + "] " + field + " must be in [" +
                                  to_text(lo) + ", " + to_text(hi) + "], got " + to_text(v));
  }
}

}  // namespace detail
}  // namespace v0
}  // namespace strata
