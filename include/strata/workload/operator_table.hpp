// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// A step's per-operator list (`operator_results`, `workload/roofline.hpp`) as the text table
/// `strata-eval eval` prints: one line per operator with its name, kind, GFLOP, MB moved, time in
/// µs, energy in mJ (both including the operator's all-reduce) and what bounds it. The same list
/// goes through the library's JSON, JSON Lines and CSV writers as data: `operator_result` lists
/// its fields in `visit_fields` (`core/json.hpp`, `core/sweep_io.hpp`).
///
/// \code
///   const auto ops = strata::operator_results(m, shape, machine);
///   strata::write_operator_table(std::cout, ops);
/// \endcode

#include <cstdio>   // std::snprintf
#include <ostream>  // std::ostream
#include <span>     // std::span
#include <string>   // std::string

#include "strata/workload/roofline.hpp"

namespace strata {
inline namespace v0 {

namespace detail {
/// `s` right-aligned in `width` columns.
template <class = void>
inline std::string table_right(const std::string& s, std::size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}
/// `v` printed with `fmt`, right-aligned in `width` columns.
template <class = void>
inline std::string table_cell(double v, const char* fmt, std::size_t width) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return table_right(buf, width);
}
/// `s` left-aligned in `width` columns.
template <class = void>
inline std::string table_text(std::string s, std::size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}
}  // namespace detail

/// Writes `ops` as a text table (a header line, then one line per operator, in the list's order):
/// `op`, `kind`, `GFLOP`, `MB`, `time (us)`, `energy (mJ)`, `bound` (`compute` or `memory`).
template <class = void>
inline void write_operator_table(std::ostream& out, std::span<const operator_result> ops) {
  out << detail::table_text("op", 22) << detail::table_text("kind", 16) << detail::table_right("GFLOP", 12)
      << detail::table_right("MB", 12) << detail::table_right("time (us)", 12) << detail::table_right("energy (mJ)", 13)
      << "  bound\n";
  for (const auto& op : ops) {
    out << detail::table_text(op.name, 22) << detail::table_text(to_string(op.kind), 16)
        << detail::table_cell(op.flops.si() / 1e9, "%.4f", 12) << detail::table_cell(op.bytes.si() / 1e6, "%.3f", 12)
        << detail::table_cell(op.time.si() * 1e6, "%.3f", 12) << detail::table_cell(op.energy.si() * 1e3, "%.4f", 13)
        << "  " << (op.compute_bound ? "compute" : "memory") << "\n";
  }
}

}  // namespace v0
}  // namespace strata
