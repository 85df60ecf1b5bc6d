// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The bank-sharded row space of a tiered memory and its tiering table (Stratum §3.2 PE, §5.2,
/// §6.2.1), written against the shared tier vocabulary (`core/tier.hpp`) so the same table
/// serves Mono3D latency tiers and HCRMap's SRAM/HBM/DRAM package tiers.
///
/// Row space. A tiered memory is a list of `memory_tier`s ordered fastest first. Stratum shards
/// every expert evenly over all N_bank banks (the tensor-parallel partition of §4.1), so the
/// memory is addressed by a row index r shared by all banks: row r is one row buffer S_rb in each
/// of the N_bank banks, N_bank·S_rb bytes in all. An expert of S_w bytes occupies
///   Δ = ⌈S_w / (N_bank·S_rb)⌉ rows of every bank.
/// The paper writes S_w/(N_bank·S_rb); rows are integers, and a partial row still holds a shard,
/// so strata rounds up (`rows_per_expert`).
///
/// Tiering table. Tier i holds rows_i = ⌊capacity_i / (N_bank·S_rb)⌋ rows per bank, contiguous,
/// fastest first: tier 0 is rows [0, rows_0), tier 1 the next rows_1, and so on; a tier smaller
/// than one row of all banks holds no row. For the default Mono3D chip (8 tiers of 4 GiB, 256
/// banks, 4 KiB rows) this is the uniform mapping of Stratum §6.2.1: 4096 rows per tier.
/// Row → tier is the quantisation the local memory controller applies (§5.2).
///
/// The table as hardware. Each PE's local memory controller holds one entry per tier: a start
/// row and a tRCD code (plus a valid bit and a start-row comparator, whose area
/// `device/logic_die_blocks.hpp` sizes). `program_tiering_table` fills the entries from the row
/// space with the field widths of `logic_die_params` (start row: `detail::row_address_bits`,
/// code: `trcd_code_bits`) and reports, as a result, a table that does not fit those widths.
/// A `memory_tier`'s latency is the access latency tRCD + tCL (`device/mono3d.hpp`), so the
/// code is ⌈(latency − tCL) / tCK⌉ command clocks (0 for a tier faster than tCL, e.g. SRAM).
///
/// \code
/// auto chip = strata::evaluate(strata::mono3d_params<>{});
/// auto tiers = strata::memory_tiers(strata::mono3d_params<>{}, chip);
/// auto table = strata::make_tiering_table(tiers, 256, strata::units::KiB(4.0));
/// table.tier_of(5000);   // 1: rows [4096, 8192) are tier 1
/// \endcode

#include <algorithm>  // std::upper_bound
#include <cmath>      // std::floor, std::ceil
#include <cstddef>    // std::size_t
#include <string>     // std::string, std::to_string
#include <vector>     // std::vector

#include "strata/core/error.hpp"
#include "strata/core/limits.hpp"
#include "strata/core/scalar.hpp"
#include "strata/core/tier.hpp"
#include "strata/core/units.hpp"
#include "strata/device/logic_die_blocks.hpp"
#include "strata/device/logic_die_params.hpp"
#include "strata/tech/bounds.hpp"

namespace strata {
inline namespace v0 {

/// An inclusive row interval [first, last] of the row space; empty when last < first.
struct row_interval {
  long long first = 0;  ///< first row
  long long last = -1;  ///< last row (inclusive)

  /// Rows in the interval (0 when empty).
  template <class = void>
  [[nodiscard]] long long rows() const { return last < first ? 0 : last - first + 1; }
  /// Whether `row` lies in the interval.
  template <class = void>
  [[nodiscard]] bool contains(long long row) const { return row >= first && row <= last; }

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("first", s.first);
    v("last", s.last);
  }
  friend bool operator==(const row_interval&, const row_interval&) = default;
};

/// Row → tier map of a bank-sharded row space (see the file comment).
struct tiering_table {
  std::vector<long long> first_row;  ///< first row of each tier (fastest first); first_row[0] = 0
  long long rows = 0;                ///< rows per bank over all tiers
  int banks = 1;                     ///< N_bank, banks every row spans
  data_size<> row_buffer{};          ///< S_rb, bytes of one row in one bank

  /// Number of tiers.
  template <class = void>
  [[nodiscard]] int tiers() const { return static_cast<int>(first_row.size()); }
  /// One past the last row of tier `i`.
  template <class = void>
  [[nodiscard]] long long end_row(int i) const {
    return i + 1 < tiers() ? first_row[static_cast<std::size_t>(i) + 1] : rows;
  }
  /// Rows of tier `i` per bank.
  template <class = void>
  [[nodiscard]] long long tier_rows(int i) const { return end_row(i) - first_row[static_cast<std::size_t>(i)]; }
  /// Rows of tier `i` as an inclusive interval (empty if the tier holds no row).
  template <class = void>
  [[nodiscard]] row_interval tier_interval(int i) const {
    return {first_row[static_cast<std::size_t>(i)], end_row(i) - 1};
  }
  /// Bytes of one row over all banks, N_bank·S_rb.
  template <class = void>
  [[nodiscard]] double row_bytes() const { return static_cast<double>(banks) * row_buffer.si(); }
  /// The tier that holds `row`; throws `config_error` ("row") outside [0, rows).
  template <class = void>
  [[nodiscard]] int tier_of(long long row) const {
    if (row < 0 || row >= rows) {
      detail::require(false, "strata.tiering", "row", row, ("in [0, " + std::to_string(rows) + ")").c_str());
    }
    // The last tier whose first row is <= row: empty tiers share their first row with the next
    // tier, and upper_bound skips past them.
    const auto it = std::upper_bound(first_row.begin(), first_row.end(), row);
    return static_cast<int>(it - first_row.begin()) - 1;
  }

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("first_row", s.first_row);
    v("rows", s.rows);
    v("banks", s.banks);
    v("row_buffer", s.row_buffer);
  }
  friend bool operator==(const tiering_table&, const tiering_table&) = default;
};

namespace detail {

/// Largest row count of one bank's row space strata accepts: 2^40 rows (design choice: 4 PiB
/// banks of 4 KiB rows, far above any device; keeps row arithmetic inside 64 bits).
inline constexpr long long max_rows_per_bank = 1LL << 40;

/// Checks N_bank and S_rb of a row space; `m` is the model id.
template <class T>
void validate_row_space(int banks, const data_size<T>& row_buffer, const char* m) {
  require_count(banks, 1, limits().banks, m, "banks");
  require_range(row_buffer.si(), 1.0, 1073741824.0, m, "row_buffer", "B");
}

/// ⌈x⌉ of a non-negative ratio, forgiving a relative rounding error of 1e-12 so that an exact
/// quotient of integers (352 321 536 B / 1 MiB = 336) is not bumped to the next integer.
template <class = void>
inline long long ceil_rows(double x) {
  return static_cast<long long>(std::ceil(x * (1.0 - 1e-12)));
}

}  // namespace detail

/// The tiering table of `tiers` (fastest first) sharded over `banks` banks of `row_buffer`-byte
/// rows: tier i holds ⌊capacity_i / (banks·row_buffer)⌋ rows. Throws `config_error` naming the
/// field on a bad tier (`tiers[i].<field>`), bank count or row buffer.
template <class T>
tiering_table make_tiering_table(const std::vector<memory_tier<T>>& tiers, int banks,
                                 const data_size<T>& row_buffer) {
  constexpr const char* m = "strata.tiering";
  detail::require(!tiers.empty() && tiers.size() <= 4096, m, "tiers", tiers.size(), "1 to 4096 tiers");
  detail::validate_row_space(banks, row_buffer, m);
  const double row_bytes = static_cast<double>(banks) * value_of(row_buffer.si());
  tiering_table t;
  t.banks = banks;
  t.row_buffer = units::B(value_of(row_buffer.si()));
  t.first_row.reserve(tiers.size());
  for (std::size_t i = 0; i < tiers.size(); ++i) {
    const std::string f = "tiers[" + std::to_string(i) + "]";
    try {
      validate(tiers[i]);
    } catch (const config_error& e) {
      // validate(memory_tier) names "<tier name>.<field>"; re-name it by position.
      const std::string pre = (tiers[i].name.empty() ? std::string("tier") : tiers[i].name) + ".";
      const std::string& got = e.field();
      const std::string leaf = got.compare(0, pre.size(), pre) == 0 ? got.substr(pre.size()) : got;
      std::string field = f;
      field.append(".").append(leaf);
      std::string what = e.what();
      what.append(" (").append(f).append(")");
      throw config_error(field, what);
    }
    const double r = std::floor(value_of(tiers[i].capacity.si()) / row_bytes);
    const double total = static_cast<double>(t.rows) + r;
    detail::require(total <= static_cast<double>(detail::max_rows_per_bank), m, f + ".capacity", total,
                    "at most 2^40 rows per bank over all tiers");
    t.first_row.push_back(t.rows);
    t.rows += static_cast<long long>(r);
  }
  return t;
}

/// Rows Δ = ⌈S_w / (N_bank·S_rb)⌉ an expert of `expert_bytes` occupies in every bank (Stratum §5.2,
/// Algorithm 1, rounded up: see the file comment). Unchecked: the caller validates.
template <class T>
long long rows_per_expert(const data_size<T>& expert_bytes, int banks, const data_size<T>& row_buffer) {
  return detail::ceil_rows(value_of(expert_bytes.si()) /
                           (static_cast<double>(banks) * value_of(row_buffer.si())));
}

/// Timing the tRCD codes of the table are written in.
template <class T = double>
struct tiering_table_timing {
  /// Command clock the code counts. [JESD79-5 DDR5-6400: tCK = 0.3125 ns; the code width of
  /// `logic_die_params::trcd_code_bits` is in command clocks]
  strata::duration<T> t_ck = units::ns(0.3125);
  /// Column latency contained in a tier's access latency. [JESD79-5 DDR5-6400B: tCL = 16.25 ns,
  /// the `ddr5_timing` default that `device/mono3d.hpp` adds to tRCD(i)]
  strata::duration<T> t_cl = units::ns(16.25);

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("t_ck", s.t_ck);
    v("t_cl", s.t_cl);
  }
  friend bool operator==(const tiering_table_timing&, const tiering_table_timing&) = default;
};

/// One tiering-table entry as the local memory controller holds it.
struct tiering_table_entry {
  long long start_row = 0;  ///< first row of the tier
  long long trcd_code = 0;  ///< tRCD in command clocks, ⌈(latency − tCL)/tCK⌉
  bool valid = false;       ///< the tier holds at least one row

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("start_row", s.start_row);
    v("trcd_code", s.trcd_code);
    v("valid", s.valid);
  }
  friend bool operator==(const tiering_table_entry&, const tiering_table_entry&) = default;
};

/// The programmed table of one PE, with its verdict against the hardware's field widths.
struct tiering_table_program {
  std::vector<tiering_table_entry> entries;  ///< one per tier, fastest first
  int entry_slots = 0;  ///< entries the hardware holds (`logic_die_params::tiers`)
  int row_bits = 0;     ///< start-row width (`detail::row_address_bits`)
  int code_bits = 0;    ///< tRCD-code width (`logic_die_params::trcd_code_bits`)
  bool feasible = true;
  std::string reason;   ///< why not, when not feasible

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("entries", s.entries);
    v("entry_slots", s.entry_slots);
    v("row_bits", s.row_bits);
    v("code_bits", s.code_bits);
    v("feasible", s.feasible);
    v("reason", s.reason);
  }
};

/// Programs the tiering table of `table` over `tiers` into the hardware that `logic` sizes.
/// Infeasible (a result, with the reason) when there are more tiers than entries, a row does not
/// fit the start-row field or a code does not fit the tRCD field.
template <class T>
tiering_table_program program_tiering_table(const tiering_table& table, const std::vector<memory_tier<T>>& tiers,
                                            const logic_die_params<T>& logic,
                                            const tiering_table_timing<T>& timing = {}) {
  constexpr const char* m = "strata.tiering";
  validate(logic);
  detail::require(static_cast<int>(tiers.size()) == table.tiers(), m, "tiers", tiers.size(),
                  ("one per table tier (" + std::to_string(table.tiers()) + ")").c_str());
  detail::require_range(timing.t_ck.si(), 1e-12, 1e-6, m, "t_ck", "s");
  detail::require_range(timing.t_cl.si(), 0.0, 1e-6, m, "t_cl", "s");
  tiering_table_program p;
  p.entry_slots = logic.tiers;
  p.row_bits = detail::row_address_bits(logic);
  p.code_bits = logic.trcd_code_bits;
  const long long max_code = p.code_bits >= 62 ? (1LL << 62) : (1LL << p.code_bits) - 1;
  const double row_limit = std::ldexp(1.0, p.row_bits);
  for (int i = 0; i < table.tiers(); ++i) {
    const double trcd = detail::max_of(value_of(tiers[static_cast<std::size_t>(i)].latency.si()) -
                                           value_of(timing.t_cl.si()),
                                       0.0);
    tiering_table_entry e;
    e.start_row = table.first_row[static_cast<std::size_t>(i)];
    e.valid = table.tier_rows(i) > 0;
    e.trcd_code = detail::ceil_rows(trcd / value_of(timing.t_ck.si()));
    p.entries.push_back(e);
    if (p.feasible && e.trcd_code > max_code) {
      p.feasible = false;
      p.reason = "tier " + std::to_string(i) + " needs tRCD code " + std::to_string(e.trcd_code) +
                 " > " + std::to_string(max_code) + " (trcd_code_bits = " + std::to_string(p.code_bits) + ")";
    }
  }
  if (table.tiers() > p.entry_slots) {
    p.feasible = false;
    p.reason = std::to_string(table.tiers()) + " tiers exceed the " + std::to_string(p.entry_slots) +
               " tiering-table entries (logic_die_params::tiers)";
  } else if (static_cast<double>(table.rows) > row_limit) {
    p.feasible = false;
    p.reason = std::to_string(table.rows) + " rows per bank exceed the " + std::to_string(p.row_bits) +
               "-bit start-row field (bank_capacity / row_size)";
  }
  return p;
}

}  // namespace v0
}  // namespace strata
