// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The two exception types of strata and the checks that raise them
/// (README, Conventions: bad input is a `config_error`, an infeasible point a result).

#include <cmath>      // std::isfinite
#include <cstddef>    // std::size_t
#include <sstream>    // std::ostringstream, for the messages
#include <stdexcept>  // std::invalid_argument, std::runtime_error
#include <string>     // std::string
#include <string_view>  // std::string_view
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
  template <class = void>
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

/// The field a check names, made a `std::string` only when the check fails (a passing check
/// builds no string): a name (`"batch"`, or a `std::string` that outlives the call), or a prefix
/// and a suffix (`field_path(tier.name, ".capacity")`).
class field_path {
 public:
  field_path(const char* name) noexcept : head_(name) {}          // NOLINT(google-explicit-constructor)
  field_path(const std::string& name) noexcept : head_(name) {}   // NOLINT(google-explicit-constructor)
  field_path(std::string_view head, const char* tail) noexcept : head_(head), tail_(tail) {}
  /// The field's name.
  template <class = void>
  [[nodiscard]] std::string str() const {
    std::string s(head_);
    s += tail_;
    return s;
  }

 private:
  std::string_view head_;
  const char* tail_ = "";
};

template <class V>
std::string to_text(const V& v) {
  std::ostringstream os;
  os.precision(6);
  os << v;
  return os.str();
}

/// The throw of `require`, out of its passing path.
template <class V>
[[noreturn]] void fail_require(const char* model, const field_path& path, const V& value, const char* expected) {
  const std::string field = path.str();
  throw config_error(field, std::string("[") + model + "] " + field + " must be " + expected + ", got " +
                                to_text(value));
}

/// Throws `config_error` "[<model>] <field> must be <expected>, got <value>" unless `ok`.
template <class V>
void require(bool ok, const char* model, const field_path& field, const V& value,
             const char* expected) {
  if (!ok) [[unlikely]] {
    fail_require(model, field, value, expected);
  }
}

/// Requires a finite value strictly above zero; `unit` is printed after the value.
template <class T>
void require_positive(const T& x, const char* model, const field_path& path,
                      const char* unit = "") {
  const double v = value_of(x);
  if (!(std::isfinite(v) && v > 0.0)) {
    const std::string field = path.str();
    throw config_error(field, std::string("[") + model + "] " + field +
                                  " must be a finite value > 0, got " + to_text(v) +
                                  (*unit ? " " : "") + unit);
  }
}

/// Requires a finite value at or above zero.
template <class T>
void require_nonnegative(const T& x, const char* model, const field_path& path,
                         const char* unit = "") {
  const double v = value_of(x);
  if (!(std::isfinite(v) && v >= 0.0)) {
    const std::string field = path.str();
    throw config_error(field, std::string("[") + model + "] " + field +
                                  " must be a finite value >= 0, got " + to_text(v) +
                                  (*unit ? " " : "") + unit);
  }
}

/// Requires a finite value in the closed interval [lo, hi].
template <class T>
void require_in(const T& x, double lo, double hi, const char* model, const field_path& path) {
  const double v = value_of(x);
  if (!(std::isfinite(v) && v >= lo && v <= hi)) {
    const std::string field = path.str();
    throw config_error(field, std::string("[") + model + "] " + field + " must be in [" +
                                  to_text(lo) + ", " + to_text(hi) + "], got " + to_text(v));
  }
}

}  // namespace detail
}  // namespace v0
}  // namespace strata

// strata::compiled (STRATA_BUILD_COMPILED, src/compiled.cpp) holds the instantiations below, the
// failing path of `require` for the value types the library's checks name (every model's
// validation, the sweep engine's bounds); STRATA_COMPILED=1, which that target puts on its users,
// keeps their translation units from instantiating them again. Without it this header is
// unchanged (header-only).
#if defined(STRATA_COMPILED) && STRATA_COMPILED
namespace strata {
inline namespace v0 {
extern template std::string detail::to_text<double>(const double&);
extern template void detail::fail_require<double>(const char*, const detail::field_path&, const double&, const char*);
extern template void detail::fail_require<int>(const char*, const detail::field_path&, const int&, const char*);
extern template void detail::fail_require<unsigned>(const char*, const detail::field_path&, const unsigned&, const char*);
extern template void detail::fail_require<long long>(const char*, const detail::field_path&, const long long&,
                                                     const char*);
extern template void detail::fail_require<std::size_t>(const char*, const detail::field_path&, const std::size_t&,
                                                       const char*);
extern template void detail::fail_require<std::string>(const char*, const detail::field_path&, const std::string&,
                                                       const char*);
}  // namespace v0
}  // namespace strata
#endif
