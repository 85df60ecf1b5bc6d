// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The last check before a result leaves the library: every number of a result struct is finite,
/// and non-negative unless its field may be (a signed offset, an index with −1 for none).
///
/// A result is walked through its `visit_fields` (the same list of fields its JSON uses), so a
/// field added to the struct is checked without a line here. Nested results, vectors of numbers
/// and vectors of results are walked too; strings and booleans are skipped. A failure is a defect
/// of the library, not of the input (the input was validated where it entered): it throws
/// `strata::internal_error` naming the path, e.g. `serving_result.ttft.mean_s = -30`, so that a
/// sentinel or an unchecked difference can never become a number a user reads.
///
/// \code
/// strata::detail::check_result_numbers(result, "serving_result");  // throws on a negative TTFT
/// \endcode

#include <cmath>        // std::isfinite
#include <concepts>     // std::integral, std::floating_point
#include <cstddef>      // std::size_t
#include <optional>     // std::optional
#include <stdexcept>    // std::logic_error
#include <string>       // std::string, std::to_string
#include <string_view>  // std::string_view
#include <type_traits>  // std::remove_cvref_t
#include <vector>       // std::vector

#include "strata/core/error.hpp"

namespace strata {
inline namespace v0 {

/// A defect of the library caught before it reached a result (a number that cannot be right:
/// negative where its meaning cannot be, or not finite). Never thrown for bad input, which is a
/// `config_error`.
class internal_error : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

namespace detail {

template <class T>
concept has_visit_fields = requires(const T& t) { T::visit_fields(t, [](const char*, const auto&) {}); };

/// The first number of `x` (at `path`) that is not finite, or negative where `may_be_negative`
/// (given the field's own name) says it cannot be; nothing if every number is in range.
template <class T, class Pred>
std::optional<std::string> invalid_number(const T& x, const std::string& path, const Pred& may_be_negative,
                                          std::string_view key = {}) {
  using U = std::remove_cvref_t<T>;
  if constexpr (std::is_same_v<U, bool> || std::is_same_v<U, std::string>) {
    return std::nullopt;
  } else if constexpr (std::floating_point<U>) {
    if (!std::isfinite(x) || (x < 0 && !may_be_negative(key))) return path + " = " + to_text(x);
    return std::nullopt;
  } else if constexpr (std::integral<U>) {
    if (x < 0 && !may_be_negative(key)) return path + " = " + std::to_string(x);
    return std::nullopt;
  } else if constexpr (requires { { x.si() } -> std::floating_point; }) {
    return invalid_number(x.si(), path, may_be_negative, key);  // a quantity: its SI value
  } else if constexpr (has_visit_fields<U>) {
    std::optional<std::string> bad;
    U::visit_fields(x, [&](const char* name, const auto& field) {
      if (!bad) bad = invalid_number(field, path + "." + name, may_be_negative, name);
    });
    return bad;
  } else if constexpr (requires { x.size(); x.begin(); typename U::value_type; }) {
    std::size_t i = 0;
    for (const auto& e : x) {
      if (auto bad = invalid_number(e, path + "[" + std::to_string(i) + "]", may_be_negative, key)) return bad;
      ++i;
    }
    return std::nullopt;
  } else {
    return std::nullopt;  // an enum or another type that carries no number of its own
  }
}

/// Throws `internal_error` naming the first number of `result` out of range (file comment);
/// `may_be_negative(field name)` lists the fields that may be negative (none by default).
template <class T, class Pred>
void check_result_numbers(const T& result, const std::string& what, const Pred& may_be_negative) {
  if (auto bad = invalid_number(result, what, may_be_negative)) {
    throw internal_error("[strata.internal] " + *bad + ": a number no result may hold (negative or not finite) "
                         "would have left the library; please report this input");
  }
}

template <class T>
void check_result_numbers(const T& result, const std::string& what) {
  check_result_numbers(result, what, [](std::string_view) { return false; });
}

}  // namespace detail
}  // namespace v0
}  // namespace strata
