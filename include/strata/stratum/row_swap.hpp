// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Cost of a topic switch: moving from one Algorithm 1 layout to another with near-memory row
/// swaps (Stratum §3.2 PE row-swap buffer, §5.2 "topic switch", Table 4).
///
/// What moves. Between layout A and layout B every expert whose interval changed moves its Δ rows
/// (row j of its A interval to row j of its B interval) in every bank. The moves form a partial
/// permutation of the row space: following "the row my content goes to, and whose content is
/// there now" from any moved row gives either a cycle (every row of it is both read and
/// overwritten) or a chain that ends in a row no A expert holds (a free row) and starts in a row
/// no B expert takes. Two Algorithm 1 layouts of one shape occupy the same rows (the two packs),
/// so between them every component is a cycle; chains come from layouts edited by hand. Algorithm
/// 1 gives each expert the slot of its rank, so a topic switch also moves experts whose rank
/// changed within a tier; `rows_changing_tier` counts the moves that cross a tier boundary, the
/// part no slot assignment with the same hot set could avoid.
///
/// How it moves. Each PE's local memory controller owns a two-row swap buffer: it reads two rows
/// of its bank into the buffer and writes each back to the other's address, so data stays with
/// the bank and its PE and never crosses the interposer to the xPU; every bank does the same
/// sequence at the same time (experts are sharded evenly over all banks, §4.1).
/// - A cycle of c rows takes c − 1 swaps, all through one pivot row (each swap puts one row in
///   place, the last two). strata pivots on the cycle's row in the fastest tier.
/// - A chain of c rows takes c single moves, the last row first into the free row (a read and a
///   write each, no partner).
/// (Rotating a cycle through the buffer would take c reads and c writes; the swap schedule, 2(c − 1)
/// of each, is the one the paper describes and is charged here.)
///
/// Cost model, per row operation (a read or a write of one row in every bank) in tier i:
///   t_op(i) = latency_i + S_rb / (bandwidth_i / banks_i) · max(1, N_bank / banks_i)
///   E_op(i) = N_bank · S_rb · e_in_bank(i)
/// with `memory_tier` latency, bandwidth and banks (per-bank bandwidth = bandwidth / banks; when
/// the row space has more banks than the tier, shards share a bank and serialise). Writes take
/// the read timing (a `memory_tier` has one timing). Operations of one bank are sequential and
/// banks run in parallel, so the switch takes Σ t_op over the per-bank sequence. e_in_bank
/// defaults to the tier's energy per byte: the whole path from the array to the logic die
/// (`device/dram_energy.hpp`: activate/precharge, word-line boost, column, datapath, bond). That
/// is the path when the swap buffer sits in the PE on the logic die, where
/// `device/logic_die_blocks.hpp` sizes it (Stratum §3.2 puts it in the PE's local memory
/// controller). For a buffer at the bank on the memory die the datapath and bond parts do not
/// apply and the default is an upper bound: pass the in-bank parts per tier
/// (`memory_core_energy + memory_periphery_energy − datapath` of `dram_access_energy`) instead.
/// A swap of rows p and q costs 2 reads and 2 writes: one read and one write at p's tier and at
/// q's.
///
/// Table 4's fractions are this time and energy divided by a batch's decode time and energy (the
/// caller's system model).

#include <algorithm>  // std::sort, std::upper_bound
#include <cstddef>    // std::size_t
#include <string>     // std::string, std::to_string
#include <utility>    // std::pair, std::move
#include <vector>     // std::vector

#include "strata/core/cost.hpp"
#include "strata/core/error.hpp"
#include "strata/core/scalar.hpp"
#include "strata/core/tier.hpp"
#include "strata/core/units.hpp"
#include "strata/stratum/placement.hpp"
#include "strata/stratum/tiering.hpp"

namespace strata {
inline namespace v0 {

/// Options of the row-swap cost.
template <class T = double>
struct row_swap_params {
  /// Energy per byte of a row read or write of a swap, per tier; empty: each tier's
  /// `energy_per_byte`, the array-to-logic-die path of a swap buffer in the PE (an upper bound
  /// for a buffer on the memory die, see the file comment). [Stratum §3.2: the row-swap buffer is
  /// part of the PE; the tier energy is what every tier of either paper carries]
  std::vector<strata::energy_per_data<T>> in_bank_energy;
  /// Largest number of moved rows per bank the cost walks. [Design choice: 2^24 rows, 16 MiB of
  /// marks; a Mono3D bank holds 32 768 rows]
  long long max_moved_rows = 1LL << 24;

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("in_bank_energy", s.in_bank_energy);
    v("max_moved_rows", s.max_moved_rows);
  }
  friend bool operator==(const row_swap_params&, const row_swap_params&) = default;
};

/// What a topic switch moves and what it costs. Counts are per bank (every bank does the same).
template <class T = double>
struct row_swap_result {
  long long experts_moved = 0;  ///< experts whose interval changed
  long long rows_moved = 0;     ///< rows whose content changes
  /// Moved rows whose destination is in another tier than their source: the moves a topic
  /// switch cannot avoid (Algorithm 1 also moves rows inside a tier when ranks shift).
  long long rows_changing_tier = 0;
  long long swaps = 0;          ///< two-row swaps (cycles)
  long long moves = 0;          ///< single moves to a free row (chains)
  long long cycles = 0;         ///< cycles of the permutation
  long long chains = 0;         ///< chains ending in a free row
  long long row_reads = 0;      ///< 2·swaps + moves
  long long row_writes = 0;     ///< 2·swaps + moves
  std::vector<long long> ops_per_tier;  ///< reads + writes in each tier
  strata::data_size<T> bytes{};  ///< read + written, all banks
  strata::duration<T> time{};    ///< the per-bank sequence, banks in parallel
  strata::energy<T> energy{};    ///< all banks

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("experts_moved", s.experts_moved);
    v("rows_moved", s.rows_moved);
    v("rows_changing_tier", s.rows_changing_tier);
    v("swaps", s.swaps);
    v("moves", s.moves);
    v("cycles", s.cycles);
    v("chains", s.chains);
    v("row_reads", s.row_reads);
    v("row_writes", s.row_writes);
    v("ops_per_tier", s.ops_per_tier);
    v("bytes", s.bytes);
    v("time", s.time);
    v("energy", s.energy);
  }
  friend bool operator==(const row_swap_result&, const row_swap_result&) = default;
};

/// Rows, swaps, time and energy of going from layout `a` to layout `b` on `tiers` (the tiers
/// `table` was made from). Throws `config_error` if a layout is infeasible, the layouts differ in
/// shape (L, E, Δ, Φ), or the tiers or energies do not match the table.
template <class T>
row_swap_result<T> row_swap_cost(const expert_layout& a, const expert_layout& b, const tiering_table& table,
                                 const std::vector<memory_tier<T>>& tiers, const row_swap_params<T>& p = {}) {
  constexpr const char* m = "strata.row_swap";
  detail::require_layout_in(a, table, "layout_a");
  detail::require_layout_in(b, table, "layout_b");
  detail::require(b.layers == a.layers && b.experts == a.experts && b.delta == a.delta && b.phi == a.phi, m,
                  "layout_b", "(L, E, delta, phi)", "the shape of layout_a");
  detail::require(static_cast<int>(tiers.size()) == table.tiers(), m, "tiers", tiers.size(),
                  ("one per table tier (" + std::to_string(table.tiers()) + ")").c_str());
  for (std::size_t i = 0; i < tiers.size(); ++i) validate(tiers[i]);
  detail::require(p.in_bank_energy.empty() || p.in_bank_energy.size() == tiers.size(), m, "in_bank_energy",
                  p.in_bank_energy.size(), "empty or one per tier");
  for (std::size_t i = 0; i < p.in_bank_energy.size(); ++i) {
    detail::require_nonnegative(p.in_bank_energy[i].si(), m, "in_bank_energy[" + std::to_string(i) + "]", "J/B");
    detail::require_magnitude(p.in_bank_energy[i].si(), m, "in_bank_energy[" + std::to_string(i) + "]", "J/B");
  }
  detail::require(p.max_moved_rows >= 0, m, "max_moved_rows", p.max_moved_rows, ">= 0");

  row_swap_result<T> r;
  r.ops_per_tier.assign(tiers.size(), 0);
  const int n = a.layers * a.experts;
  std::vector<int> changed;  // expert indices whose interval changed
  for (int x = 0; x < n; ++x) {
    if (!(a.intervals[static_cast<std::size_t>(x)] == b.intervals[static_cast<std::size_t>(x)])) changed.push_back(x);
  }
  r.experts_moved = static_cast<long long>(changed.size());
  const long long d = a.delta;
  const double moved = static_cast<double>(changed.size()) * static_cast<double>(d);
  if (moved > static_cast<double>(p.max_moved_rows)) {
    detail::require(false, m, "max_moved_rows", p.max_moved_rows,
                    ("at least the " + detail::to_text(moved) + " rows this switch moves").c_str());
  }
  const long long nodes = static_cast<long long>(changed.size()) * d;
  r.rows_moved = nodes;
  // Node c·Δ + j: row j of changed expert c. Its A row, its B row (its destination).
  const auto expert_of = [&](long long v) { return static_cast<std::size_t>(changed[static_cast<std::size_t>(v / d)]); };
  const auto src = [&](long long v) { return a.intervals[expert_of(v)].first + v % d; };
  const auto dst = [&](long long v) { return b.intervals[expert_of(v)].first + v % d; };
  // Changed experts' A intervals sorted by first row: who holds a row in A (among the movers).
  std::vector<std::pair<long long, long long>> by_first;  // (first row in A, changed position)
  by_first.reserve(changed.size());
  for (std::size_t c = 0; c < changed.size(); ++c) {
    by_first.emplace_back(a.intervals[static_cast<std::size_t>(changed[c])].first, static_cast<long long>(c));
  }
  std::sort(by_first.begin(), by_first.end());
  // The node whose A row is `row`, or −1 (a free row in A: an unchanged expert cannot hold the
  // destination of a mover, since B's intervals do not overlap).
  const auto holder = [&](long long row) -> long long {
    auto it = std::upper_bound(by_first.begin(), by_first.end(), std::pair<long long, long long>{row, nodes});
    if (it == by_first.begin()) return -1;
    --it;
    if (row > it->first + d - 1) return -1;
    return it->second * d + (row - it->first);
  };
  std::vector<long long> next(static_cast<std::size_t>(nodes));
  std::vector<unsigned char> has_pred(static_cast<std::size_t>(nodes), 0), seen(static_cast<std::size_t>(nodes), 0);
  for (long long v = 0; v < nodes; ++v) {
    const long long w = holder(dst(v));
    next[static_cast<std::size_t>(v)] = w;
    if (table.tier_of(src(v)) != table.tier_of(dst(v))) ++r.rows_changing_tier;
    if (w >= 0) has_pred[static_cast<std::size_t>(w)] = 1;
  }
  std::vector<strata::duration<T>> t_op;
  std::vector<strata::energy<T>> e_op;
  const T row_bytes_all = T(static_cast<double>(table.banks)) * T(table.row_buffer.si());
  for (std::size_t i = 0; i < tiers.size(); ++i) {
    const auto& t = tiers[i];
    const double share = detail::max_of(1.0, static_cast<double>(table.banks) / static_cast<double>(t.banks));
    const strata::bandwidth<T> per_bank = t.bandwidth / T(static_cast<double>(t.banks));
    t_op.push_back(t.latency + units::B(T(table.row_buffer.si())) / per_bank * T(share));
    const strata::energy_per_data<T> e = p.in_bank_energy.empty() ? t.energy_per_byte : p.in_bank_energy[i];
    e_op.push_back(units::B(row_bytes_all) * e);
  }
  const auto op = [&](long long row, long long count) {
    const auto i = static_cast<std::size_t>(table.tier_of(row));
    r.ops_per_tier[i] += count;
    r.time += t_op[i] * T(static_cast<double>(count));
    r.energy += e_op[i] * T(static_cast<double>(count));
  };
  // Chains: start at a node no mover lands on; each node is one read (its row) and one write (its
  // destination).
  for (long long v = 0; v < nodes; ++v) {
    if (has_pred[static_cast<std::size_t>(v)]) continue;
    ++r.chains;
    for (long long u = v; u >= 0; u = next[static_cast<std::size_t>(u)]) {
      seen[static_cast<std::size_t>(u)] = 1;
      ++r.moves;
      op(src(u), 1);
      op(dst(u), 1);
    }
  }
  // Cycles: what is left. c − 1 swaps through the fastest row of the cycle: the pivot takes one
  // read and one write per swap, every other row one of each.
  for (long long v = 0; v < nodes; ++v) {
    if (seen[static_cast<std::size_t>(v)]) continue;
    ++r.cycles;
    long long c = 0, pivot = src(v);
    for (long long u = v; !seen[static_cast<std::size_t>(u)]; u = next[static_cast<std::size_t>(u)]) {
      seen[static_cast<std::size_t>(u)] = 1;
      ++c;
      if (table.tier_of(src(u)) < table.tier_of(pivot)) pivot = src(u);
    }
    r.swaps += c - 1;
    op(pivot, 2 * (c - 1));
    for (long long u = next[static_cast<std::size_t>(v)], k = 0; k < c; u = next[static_cast<std::size_t>(u)], ++k) {
      if (src(u) != pivot) op(src(u), 2);
    }
  }
  r.row_reads = 2 * r.swaps + r.moves;
  r.row_writes = r.row_reads;
  r.bytes = units::B(row_bytes_all * T(static_cast<double>(r.row_reads + r.row_writes)));
  return r;
}

/// The switch as a leaf of the cost algebra (`core/cost.hpp`): its time and energy, and the
/// bytes read + written in each tier (named as the tiers are), for a system model's breakdown.
template <class T>
cost<T> row_swap_leaf(const row_swap_result<T>& r, const std::vector<memory_tier<T>>& tiers,
                      const tiering_table& table, std::string name = "topic switch: row swaps") {
  detail::require(r.ops_per_tier.size() == tiers.size(), "strata.row_swap", "tiers", tiers.size(),
                  ("one per tier of the result (" + std::to_string(r.ops_per_tier.size()) + ")").c_str());
  std::vector<traffic<T>> bytes;
  for (std::size_t i = 0; i < tiers.size(); ++i) {
    if (r.ops_per_tier[i] == 0) continue;
    bytes.push_back({tiers[i].name, units::B(T(table.row_bytes() * static_cast<double>(r.ops_per_tier[i])))});
  }
  return cost<T>::leaf(std::move(name), r.time, r.energy, std::move(bytes),
                       "Stratum §5.2 near-memory row swaps: per row op latency + S_rb / (bandwidth / banks)");
}

}  // namespace v0
}  // namespace strata
