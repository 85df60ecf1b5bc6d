// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The miscellaneous blocks of the Stratum logic die (A_misc of Eq. 2, P_misc of Eq. 1), broken
/// down as in Fig. 15a:
/// - per PE: matrix register file, double-buffered psum memory, local memory controller (request
///   queue), tiering table (per tier: start row, tRCD code, valid bit, and a start-row
///   comparator), row-swap buffer (`row_swap_rows` DRAM rows);
/// - per PU: shared memory, special function engine (FP16 FMA lanes + register files), ring
///   router (input flit buffers) with its aggregator (one FP16 adder per flit element), reduction
///   tree (one FP16 adder per lane per merged PE), controller (instruction memory).
/// Storage is capacity × a 7 nm bit cell (`tech/logic_7nm.hpp`); small logic is cell counts ×
/// ASAP7 cells; arithmetic is counted in FP16 MAC/adder equivalents of A_mac.
///
/// P_misc, by the same components: each block dissipates `p_misc_per_mm2` per mm² of its area at
/// peak activity, so the power breakdown follows the area breakdown.

#include <cmath>  // std::ceil, std::log2

#include "strata/core/scalar.hpp"
#include "strata/core/units.hpp"
#include "strata/device/logic_die_params.hpp"
#include "strata/tech/logic_7nm.hpp"

namespace strata {
inline namespace v0 {

/// The miscellaneous blocks of Fig. 15a, chip totals of one quantity (area or power).
template <class Q>
struct logic_die_parts {
  Q matrix_rf{};         ///< PE matrix register files
  Q psum_buffer{};       ///< PE double-buffered psum memories
  Q local_mc{};          ///< PE local memory controllers (request queues)
  Q tiering_table{};     ///< PE tiering tables (registers + comparators)
  Q row_swap_buffer{};   ///< PE row-swap buffers
  Q shared_memory{};     ///< PU shared memories
  Q special_function{};  ///< PU special function engines
  Q ring_router{};       ///< PU ring routers with aggregators
  Q reduction_tree{};    ///< PU reduction trees
  Q controller{};        ///< PU controllers

  /// Sum of the PE-local blocks.
  [[nodiscard]] Q pe_local() const {
    return matrix_rf + psum_buffer + local_mc + tiering_table + row_swap_buffer;
  }
  /// Sum of the PU-level blocks.
  [[nodiscard]] Q pu_shared() const {
    return shared_memory + special_function + ring_router + reduction_tree + controller;
  }
  /// Sum of all blocks.
  [[nodiscard]] Q total() const { return pe_local() + pu_shared(); }

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("matrix_rf", s.matrix_rf);
    v("psum_buffer", s.psum_buffer);
    v("local_mc", s.local_mc);
    v("tiering_table", s.tiering_table);
    v("row_swap_buffer", s.row_swap_buffer);
    v("shared_memory", s.shared_memory);
    v("special_function", s.special_function);
    v("ring_router", s.ring_router);
    v("reduction_tree", s.reduction_tree);
    v("controller", s.controller);
  }
  friend bool operator==(const logic_die_parts&, const logic_die_parts&) = default;
};

namespace detail {

template <class T>
T bits_of(const strata::data_size<T>& d) {
  return d.si() * T(8);  // SI data unit is the byte
}

/// Start-row width of the tiering table: ⌈log2(bank capacity / row size)⌉ (17 for 1 Gib / 1 KiB).
template <class T>
int row_address_bits(const logic_die_params<T>& p) {
  const double rows = value_of(p.bank_capacity.si()) / value_of(p.row_size.si());
  return static_cast<int>(std::ceil(std::log2(rows) - 1e-9));
}

/// Area of one tiering table: tiers·(start row + tRCD code + valid) registers plus one
/// start-row comparator per tier. `p` is validated by the caller.
template <class T>
strata::area<T> tiering_table_area(const logic_die_params<T>& p) {
  const T row_bits = T(row_address_bits(p));
  const T entry_bits = row_bits + T(p.trcd_code_bits) + T(1);
  return register_area_of(p.tech, T(p.tiers) * entry_bits) +
         comparator_area_of(p.tech, T(p.tiers) * row_bits);
}

/// A_misc by block (chip totals); independent of N_mac (see the file comment). `p` is
/// validated by the caller.
template <class T>
logic_die_parts<strata::area<T>> misc_area(const logic_die_params<T>& p) {
  const auto& t = p.tech;
  const T n_pu = T(p.n_pu);
  const T n_pe = n_pu * T(p.pes_per_pu);
  const strata::area<T> a_add = p.a_mac * t.fp16_add_area_fraction;
  const T flit_bits = bits_of(p.ring_flit);
  logic_die_parts<strata::area<T>> a;
  a.matrix_rf = sram_area_of(t, bits_of(p.matrix_rf)) * n_pe;
  a.psum_buffer = sram_area_of(t, bits_of(p.psum_buffer) * T(2)) * n_pe;
  a.local_mc = register_area_of(t, T(p.lmc_queue_entries) * T(p.lmc_entry_bits)) * n_pe;
  a.tiering_table = tiering_table_area(p) * n_pe;
  a.row_swap_buffer = sram_area_of(t, bits_of(p.row_size) * T(p.row_swap_rows)) * n_pe;
  a.shared_memory = sram_area_of(t, bits_of(p.shared_memory)) * n_pu;
  a.special_function =
      (p.a_mac * T(p.sfe_lanes) + sram_area_of(t, bits_of(p.sfe_register_files))) * n_pu;
  a.ring_router = (register_area_of(t, T(p.router_ports) * T(p.router_buffer_flits) * flit_bits) +
                   a_add * (flit_bits / T(16))) *
                  n_pu;
  a.reduction_tree = a_add * (T(p.pes_per_pu - 1) * T(p.reduction_lanes)) * n_pu;
  a.controller = sram_area_of(t, bits_of(p.instruction_memory)) * n_pu;
  return a;
}

/// P_misc by block: each block's area times the misc power per mm².
template <class T>
logic_die_parts<strata::power<T>> misc_power(const logic_die_params<T>& p,
                                             const logic_die_parts<strata::area<T>>& a) {
  const auto pw = [&](const strata::area<T>& x) { return p.p_misc_per_mm2 * x; };
  return {pw(a.matrix_rf),        pw(a.psum_buffer),    pw(a.local_mc),
          pw(a.tiering_table),    pw(a.row_swap_buffer), pw(a.shared_memory),
          pw(a.special_function), pw(a.ring_router),    pw(a.reduction_tree),
          pw(a.controller)};
}

}  // namespace detail

}  // namespace v0
}  // namespace strata
