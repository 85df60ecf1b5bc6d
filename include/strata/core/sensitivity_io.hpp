// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The ranked elasticity table of `sensitivity.hpp` as text: what a `sensitivity` command prints.
/// The stream-using half of the sensitivities, kept apart so that the models include no stream.
///
///   | rank | parameter | value (SI) | elasticity |   (and "finite difference" with a cross-check)
///
/// \code
/// auto s = strata::elasticities(p, y);
/// strata::write_elasticity_table(std::cout, s, {.output = "fastest-tier bandwidth", .top = 10});
/// \endcode

#include <array>    // std::array, number buffers
#include <charconv>  // std::to_chars
#include <cstddef>  // std::size_t
#include <ostream>  // std::ostream
#include <string>   // std::string
#include <vector>   // std::vector

#include "strata/core/sensitivity.hpp"

namespace strata {
inline namespace v0 {

/// What the table shows.
struct elasticity_table_options {
  std::string output = "y";  ///< the output's name, in the heading line
  std::size_t top = 0;       ///< rows to print, largest |elasticity| first (0: all)
  bool zeros = false;        ///< also the parameters whose elasticity is exactly 0
};

namespace detail {
/// A number of the table: 4 significant digits, as all human text (docs/cli.md, Output conventions).
template <class = void>
inline std::string g4(double v) {
  std::array<char, 32> b{};
  const auto r = std::to_chars(b.data(), b.data() + b.size(), v, std::chars_format::general, 4);
  return {b.data(), r.ptr};
}
}  // namespace detail

/// Writes the ranked table of `s` (markdown). With `checks` (from `cross_check` of the same
/// rows) a column gives the finite-difference estimate and marks the rows that disagree.
template <class = void>
inline void write_elasticity_table(std::ostream& os, const sensitivity_result& s,
                                   const elasticity_table_options& o = {},
                                   const std::vector<elasticity_check>* checks = nullptr) {
  os << "elasticities d ln(" << o.output << ") / d ln(p) at " << o.output << " = " << detail::g4(s.output) << "\n\n";
  os << "| rank | parameter | value (SI) | elasticity |" << (checks != nullptr ? " finite difference |" : "") << '\n';
  os << "| ---: | --- | ---: | ---: |" << (checks != nullptr ? " ---: |" : "") << '\n';
  std::size_t n = 0;
  for (const auto& e : s.ranked()) {
    if (!o.zeros && e.elasticity == 0.0) continue;
    if (o.top != 0 && n == o.top) break;
    ++n;
    os << "| " << n << " | " << e.parameter << " | " << detail::g4(e.value) << " | " << detail::g4(e.elasticity) << " |";
    if (checks != nullptr) {
      for (const auto& c : *checks) {
        if (c.parameter != e.parameter) continue;
        os << ' ' << (c.scheme == difference_scheme::none ? std::string("-") : detail::g4(c.finite_difference))
           << (c.agrees ? "" : " (differs)") << " |";
      }
    }
    os << '\n';
  }
}

}  // namespace v0
}  // namespace strata
