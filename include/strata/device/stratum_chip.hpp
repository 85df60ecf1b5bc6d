// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// One Stratum chip: a Mono3D memory die hybrid-bonded face to face onto its logic die (Stratum
/// §2, §3.2, §4.3, §6.1–§6.2), evaluated as one design point.
///
/// `evaluate(mono3d_params)` and `evaluate(logic_die_params, bw_fast)` stay for separate use,
/// but on their own they let a user sweep layers with a logic die that does not follow: the
/// logic die kept its 121 mm², 8 tiers, 1 Gib banks and a hand-typed fastest-tier bandwidth
/// while the memory die shrank. Here every logic-die quantity the memory die decides is
/// derived from it, once:
///   tiers          = memory tiers (one tiering-table entry per tier)
///   n_pu           = banks / pes_per_pu (one PE per bank, `pes_per_pu` banks per channel)
///   bank_capacity  = bitlines_per_mat · mats_per_bank · layers bits
///   row_size       = bank_access_bytes (the page a bank streams per access)
///   bw_fast        = the fastest tier's internal bandwidth (Eq. 1, Eq. 3)
///   e_b            = the bond part of the access energy (Eq. 1, on the logic die)
///   e_dram_core    = activate/precharge + column + datapath parts (Eq. 3, VDD)
///   e_dram_periph  = word-line boost part (Eq. 3, VPP)
///   die_area       = (√A_mem + 2·m)², the memory die's footprint with a bonded edge m
/// The two dies are bonded face to face, so they share a footprint; the edge m (seal ring and
/// hybrid-bond keep-out on each side) is calibrated so that the default 1024-layer memory die
/// (118.7 mm²) gives the paper's 121 mm² logic die (Stratum §6.2.2).
///
/// The derived fields of `logic` are outputs: each must be left at its default or equal the
/// derived value, otherwise `config_error` names it (no input is repeated, none silently
/// ignored). A smaller memory die gives a smaller logic die, and when the fixed PHY and
/// periphery no longer leave room for the processor the result says so (`feasible == false`,
/// `reason`), like the logic die's own verdict.
///
/// \code
/// strata::stratum_chip_params<> p;        // 1024 layers, Table 3 processor
/// auto c = strata::evaluate(p);            // c.logic.p_logic ≈ 42.6 W, c.feasible
/// p.memory.layers = 256;                   // 35 mm² memory die → 36 mm² logic die
/// auto small = strata::evaluate(p);        // infeasible: PHY + periphery exceed the die
/// \endcode

#include <algorithm>  // std::min
#include <cmath>   // std::sqrt
#include <cstdint>  // std::int64_t
#include <limits>   // std::numeric_limits
#include <string>  // std::string

#include "strata/core/error.hpp"
#include "strata/core/scalar.hpp"
#include "strata/core/units.hpp"
#include "strata/device/dram_energy.hpp"
#include "strata/device/logic_die.hpp"
#include "strata/device/mono3d.hpp"
#include "strata/tech/bounds.hpp"

namespace strata {
inline namespace v0 {

/// Parameters of one Stratum chip: the memory die, the logic die's own design, the bond edge.
template <class T = double>
struct stratum_chip_params {
  /// The Mono3D memory die.
  mono3d_params<T> memory{};
  /// The logic die's own design (MACs, power cap, PHY, periphery, buffers, technology). Its
  /// fields tiers, n_pu, bank_capacity, row_size, e_b, e_dram_core, e_dram_periph and die_area
  /// are derived from `memory` (see the file comment) and must be left at their defaults.
  logic_die_params<T> logic{};
  /// Edge added on each side of the memory die's footprint by the seal ring and hybrid-bond
  /// keep-out. Calibrated so that stratum.chip.logic_die_area_mm2 = 121 mm² (Stratum §6.2.2)
  /// for the default 1024-layer memory die (118.72 mm²); 52 µm is of the order of a seal ring plus scribe
  /// clearance.
  strata::length<T> bond_edge = units::um(52.02);

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("memory", s.memory);
    v("logic", s.logic);
    v("bond_edge", s.bond_edge);
  }
  friend bool operator==(const stratum_chip_params&, const stratum_chip_params&) = default;
};

/// One chip evaluated: the memory die, the logic die it implies, and the verdict.
template <class T = double>
struct stratum_chip_result {
  mono3d_result<T> memory{};          ///< tiers, capacity, die area of the memory die
  logic_die_params<T> logic_params{};  ///< the logic die actually evaluated (derived fields set)
  strata::bandwidth<T> bw_fast{};      ///< fastest tier's internal bandwidth (Eq. 1, Eq. 3)
  logic_die_result<T> logic{};         ///< Eq. 1–3 at logic.n_mac
  bool feasible = false;               ///< the logic die meets Eq. 1 and Eq. 2
  std::string reason;                  ///< the logic die's verdict in words

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("memory", s.memory);
    v("logic_params", s.logic_params);
    v("bw_fast", s.bw_fast);
    v("logic", s.logic);
    v("feasible", s.feasible);
    v("reason", s.reason);
  }
};

/// Checks the memory die, the logic die's own fields, the bond edge [0, 1 mm], that the banks
/// split evenly into channels of `logic.pes_per_pu`, and that no derived field was set.
template <class T>
void validate(const stratum_chip_params<T>& p) {
  constexpr const char* m = "strata.stratum_chip";
  validate(p.memory);
  validate(p.logic);
  detail::require_range(p.bond_edge.si(), 0.0, 1e-3, m, "bond_edge", "m");
  detail::require(p.memory.banks % p.logic.pes_per_pu == 0, m, "logic.pes_per_pu",
                  p.logic.pes_per_pu,
                  ("a divisor of memory.banks (" + std::to_string(p.memory.banks) + ")").c_str());
  const logic_die_params<T> d{};
  const auto untouched = [&](bool same, const char* field) {
    detail::require(same, m, std::string("logic.") + field, "a set value",
                    "left at its default: stratum_chip derives it from the memory die");
  };
  untouched(p.logic.tiers == d.tiers, "tiers");
  untouched(p.logic.n_pu == d.n_pu, "n_pu");
  untouched(p.logic.bank_capacity == d.bank_capacity, "bank_capacity");
  untouched(p.logic.row_size == d.row_size, "row_size");
  untouched(p.logic.e_b == d.e_b, "e_b");
  untouched(p.logic.e_dram_core == d.e_dram_core, "e_dram_core");
  untouched(p.logic.e_dram_periph == d.e_dram_periph, "e_dram_periph");
  untouched(p.logic.die_area == d.die_area, "die_area");
}

/// The logic die a memory die implies: `logic` with every derived field set from `memory`
/// (`r` is `evaluate(memory)`). [Stratum §3.2: one PU per channel, one PE per bank]
template <class T>
logic_die_params<T> derived_logic_die(const stratum_chip_params<T>& p, const mono3d_result<T>& r) {
  using std::sqrt;
  logic_die_params<T> l = p.logic;
  const auto& mp = p.memory;
  l.tiers = mp.tiers;
  l.n_pu = mp.banks / p.logic.pes_per_pu;
  l.bank_capacity = units::bit(T(static_cast<double>(mp.bitlines_per_mat) * mp.mats_per_bank) *
                               T(static_cast<double>(mp.layers)));
  l.row_size = mp.bank_access_bytes;
  l.e_b = logic_die_energy(mp.energy);
  l.e_dram_core = memory_core_energy(mp.energy);
  l.e_dram_periph = memory_periphery_energy(mp.energy);
  const T side = sqrt(r.die_area.si()) + p.bond_edge.si() * T(2);
  l.die_area = strata::area<T>::from_si(side * side);
  return l;
}

/// Evaluates the chip: the memory die, the logic die it implies, Eq. 1–3 at `logic.n_mac` fed
/// by the fastest tier. Infeasible design points are results, not errors.
template <class T>
stratum_chip_result<T> evaluate(const stratum_chip_params<T>& p) {
  validate(p);
  stratum_chip_result<T> c;
  c.memory = evaluate(p.memory);
  c.logic_params = derived_logic_die(p, c.memory);
  c.bw_fast = c.memory.tiers.front().internal_bandwidth;
  c.logic = evaluate(c.logic_params, c.bw_fast);
  c.feasible = c.logic.feasible;
  const auto mm2 = [](const strata::area<T>& a) { return detail::to_text(value_of(a.in(units::mm2))); };
  c.reason = c.logic.reason + "; logic die " + mm2(c.logic_params.die_area) + " mm2 from a " +
             mm2(c.memory.die_area) + " mm2 memory die of " + std::to_string(p.memory.layers) +
             " layers";
  return c;
}

/// Largest integer N_mac the derived logic die admits (Eq. 1 and Eq. 2 with Eq. 3), for sizing
/// the processor of a chip with fewer layers. Throws `solver_error` as the logic-die version.
template <class = void>
inline logic_die_max_macs max_macs_within_budget(const stratum_chip_params<double>& p) {
  validate(p);
  const auto mem = evaluate(p.memory);
  return max_macs_within_budget(derived_logic_die(p, mem), mem.tiers.front().internal_bandwidth);
}

/// `p` with its NMP sized to its logic die's budget: `logic.n_mac` set to the largest MAC count
/// the die derived from `p.memory` admits (Eq. 1–3, `max_macs_within_budget`). A memory die of
/// fewer layers is smaller (a shorter staircase, `mono3d.hpp`), and so is the logic die bonded to
/// it, so a sweep over `memory.layers` that keeps Table 3's 64 000 MACs finds every smaller die
/// infeasible; this resizes the processor as the paper sizes it (§6.2.2: the MACs that fit the
/// power and area). Throws `config_error` naming `logic.n_mac` when not one MAC fits (the die's
/// fixed blocks alone exceed the budget), with the binding constraint.
template <class = void>
inline stratum_chip_params<double> with_macs_sized_to_budget(stratum_chip_params<double> p) {
  const auto m = max_macs_within_budget(p);
  if (m.n_mac < 1) {
    throw config_error("logic.n_mac", "[strata.stratum_chip] logic.n_mac: the logic die of a " +
                                          std::to_string(p.memory.layers) + "-layer memory die admits no MAC (" +
                                          m.binding + " binds before the first one)");
  }
  p.logic.n_mac = static_cast<int>(std::min<std::int64_t>(m.n_mac, std::numeric_limits<int>::max()));
  return p;
}

}  // namespace v0
}  // namespace strata

// strata::compiled (STRATA_BUILD_COMPILED, src/compiled.cpp) holds the `double` instantiations
// below; STRATA_COMPILED=1, which that target puts on its users, keeps their translation units
// from instantiating them again. Without it this header is unchanged (header-only).
#if defined(STRATA_COMPILED) && STRATA_COMPILED
namespace strata {
inline namespace v0 {
extern template void validate(const stratum_chip_params<double>&);
extern template stratum_chip_result<double> evaluate(const stratum_chip_params<double>&);
}  // namespace v0
}  // namespace strata
#endif
