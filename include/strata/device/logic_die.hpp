// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Stratum logic-die budget: power (Eq. 1), area (Eq. 2) and power-delivery TSV area (Eq. 3) of
/// the near-memory processor, its feasibility, and the largest MAC count that fits (Stratum §4.3,
/// §6.2.1–§6.2.3, Table 3, Fig. 15).
///
///   Eq. 1  P_logic = BW_fast·E_b + N_mac·f·E_mac + P_misc                        ≤ P_peak
///   Eq. 2  A_PD + N_mac·A_mac + A_PHY + A_peri + A_misc                           ≤ α·A_die
///   Eq. 3  A_PD = A_TSV · (P_dram,c/V_dram,c + P_dram,p/V_dram,p + P_logic/V_logic) / I_TSV
///
/// BW_fast, the internal bandwidth of the fastest Mono3D tier, is an argument: it comes from the
/// Mono3D device model (`device/mono3d.hpp`; 30.34 TB/s in Stratum §6.1).
///
/// Hierarchy. The chip has `n_pu` processing units (one per Mono3D channel), each with
/// `pes_per_pu` processing elements (one per bank); the N_mac MACs are spread evenly over the PEs.
/// The PE and PU counts follow the memory organisation, not N_mac, so when N_mac changes the
/// tensor cores grow and every other block (A_misc) stays the same size.
///
/// A_misc and P_misc are broken down by block as in Fig. 15a (`logic_die_blocks.hpp`); the
/// parameters and their ranges are in `logic_die_params.hpp`.
///
/// \code
/// strata::logic_die_params<> p;                       // Stratum Table 3 design point
/// auto r = evaluate(p, strata::units::TBps(30.34));  // Eq. 1–3 at N_mac = 64 000
/// // r.p_logic ≈ 42.67 W, r.a_active ≈ 76.63 mm², r.feasible == true
/// auto m = max_macs_within_budget(p, strata::units::TBps(30.34));  // largest N_mac that fits
/// \endcode

#include <cmath>    // std::floor
#include <cstdint>  // std::int64_t
#include <string>   // std::string

#include "strata/core/error.hpp"
#include "strata/core/scalar.hpp"
#include "strata/core/units.hpp"
#include "strata/device/logic_die_blocks.hpp"
#include "strata/device/logic_die_params.hpp"
#include "strata/tech/bounds.hpp"

namespace strata {
inline namespace v0 {

/// Eq. 1–3 evaluated at one MAC count, with every term and the verdict.
template <class T = double>
struct logic_die_result {
  T n_mac{};                                   ///< MACs evaluated
  strata::op_rate<T> peak_throughput{};        ///< 2·N_mac·f_logic
  // Eq. 1
  strata::power<T> p_dram_access{};            ///< BW_fast·E_b
  strata::power<T> p_mac{};                    ///< N_mac·f·E_mac
  logic_die_parts<strata::power<T>> p_misc{};  ///< P_misc by block
  strata::power<T> p_logic{};                  ///< Eq. 1 left-hand side
  strata::power<T> p_peak{};                   ///< Eq. 1 cap
  strata::power<T> power_slack{};              ///< P_peak − P_logic
  // Eq. 2, Eq. 3
  strata::area<T> a_macs{};                    ///< N_mac·A_mac
  logic_die_parts<strata::area<T>> a_misc{};   ///< A_misc by block
  strata::area<T> a_active{};                  ///< N_mac·A_mac + A_misc
  strata::current<T> i_supply{};               ///< Eq. 3 supply current through TSVs
  T n_tsv{};                                   ///< power TSVs, i_supply / I_TSV
  strata::area<T> a_pd{};                      ///< Eq. 3 power-delivery TSV area
  strata::area<T> a_phy{};                     ///< xPU–DRAM PHY
  strata::area<T> a_peri{};                    ///< low-voltage periphery
  strata::area<T> a_usable{};                  ///< α·A_die, Eq. 2 right-hand side
  strata::area<T> a_processor_budget{};        ///< α·A_die − A_PHY − A_peri − A_PD
  strata::area<T> area_slack{};                ///< processor budget − active area
  T utilization{};                             ///< active area / A_die
  strata::area<T> a_pe{};                      ///< one PE: its MACs and PE-local blocks
  T tiering_fraction_of_pe{};                  ///< one tiering table / one PE
  T power_headroom_macs{};                     ///< MACs the power slack still admits
  T area_headroom_macs{};                      ///< MACs the area slack still admits
  bool feasible = false;                       ///< Eq. 1 and Eq. 2 both hold
  std::string binding;                         ///< "power" or "area": the smaller headroom
  std::string reason;                          ///< verdict in words, naming the binding one

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("n_mac", s.n_mac);
    v("peak_throughput", s.peak_throughput);
    v("p_dram_access", s.p_dram_access);
    v("p_mac", s.p_mac);
    v("p_misc", s.p_misc);
    v("p_logic", s.p_logic);
    v("p_peak", s.p_peak);
    v("power_slack", s.power_slack);
    v("a_macs", s.a_macs);
    v("a_misc", s.a_misc);
    v("a_active", s.a_active);
    v("i_supply", s.i_supply);
    v("n_tsv", s.n_tsv);
    v("a_pd", s.a_pd);
    v("a_phy", s.a_phy);
    v("a_peri", s.a_peri);
    v("a_usable", s.a_usable);
    v("a_processor_budget", s.a_processor_budget);
    v("area_slack", s.area_slack);
    v("utilization", s.utilization);
    v("a_pe", s.a_pe);
    v("tiering_fraction_of_pe", s.tiering_fraction_of_pe);
    v("power_headroom_macs", s.power_headroom_macs);
    v("area_headroom_macs", s.area_headroom_macs);
    v("feasible", s.feasible);
    v("binding", s.binding);
    v("reason", s.reason);
  }
};


/// Eq. 3, power-delivery TSV area for a logic power `p_logic`:
/// A_PD = A_TSV · (BW_fast·e_dram,c/V_dram,c + BW_fast·e_dram,p/V_dram,p + P_logic/V_logic) / I_TSV
/// [m²]. [Stratum §4.3 Eq. 3]
template <class T>
strata::area<T> power_delivery_area(const logic_die_params<T>& p,
                                    const strata::bandwidth<T>& bw_fast,
                                    const strata::power<T>& p_logic) {
  validate(p);
  validate_bw_fast(bw_fast);
  detail::require_range(p_logic.si(), 0.0, 1e9, "strata.logic_die", "p_logic", "W");
  const strata::current<T> i = (bw_fast * p.e_dram_core) / p.v_dram_core +
                               (bw_fast * p.e_dram_periph) / p.v_dram_periph + p_logic / p.v_logic;
  return p.a_tsv * (i / p.i_tsv);
}

/// Peak throughput 2·N_mac·f_logic [FLOP/s] at the design point. [Stratum Table 3: 128 TFLOPS]
template <class T>
strata::op_rate<T> peak_throughput(const logic_die_params<T>& p) {
  validate(p);
  return strata::op_count<T>(2_flop) * T(p.n_mac) * p.f_logic;
}

/// Eq. 1–3 at `n_mac` MACs as `evaluate` computes them, every number and `feasible` and
/// `binding`, but without the verdict in words (`reason` is left empty): the form for sweeps,
/// where formatting the text costs more than the arithmetic.
template <class T>
logic_die_result<T> evaluate_numbers(const logic_die_params<T>& p, const strata::bandwidth<T>& bw_fast,
                                     const T& n_mac) {
  constexpr const char* id = "strata.logic_die";
  validate(p);
  validate_bw_fast(bw_fast);
  detail::require_range(n_mac, 0.0, 1e15, id, "n_mac", "MACs");

  logic_die_result<T> r;
  r.n_mac = n_mac;
  r.peak_throughput = strata::op_count<T>(2_flop) * n_mac * p.f_logic;
  // Eq. 1
  r.a_misc = detail::misc_area(p);
  r.p_dram_access = bw_fast * p.e_b;
  r.p_mac = p.e_mac * n_mac * p.f_logic;
  r.p_misc = detail::misc_power(p, r.a_misc);
  r.p_logic = r.p_dram_access + r.p_mac + r.p_misc.total();
  r.p_peak = p.p_peak;
  r.power_slack = p.p_peak - r.p_logic;
  // Eq. 3
  r.i_supply = (bw_fast * p.e_dram_core) / p.v_dram_core +
               (bw_fast * p.e_dram_periph) / p.v_dram_periph + r.p_logic / p.v_logic;
  r.n_tsv = r.i_supply / p.i_tsv;
  r.a_pd = p.a_tsv * r.n_tsv;
  // Eq. 2
  r.a_macs = p.a_mac * n_mac;
  r.a_active = r.a_macs + r.a_misc.total();
  r.a_phy = p.a_phy;
  r.a_peri = p.a_peri;
  r.a_usable = p.die_area * p.alpha;
  r.a_processor_budget = r.a_usable - p.a_phy - p.a_peri - r.a_pd;
  r.area_slack = r.a_processor_budget - r.a_active;
  r.utilization = r.a_active / p.die_area;
  const T n_pe = T(p.n_pu) * T(p.pes_per_pu);
  r.a_pe = (r.a_macs + r.a_misc.pe_local()) / n_pe;
  r.tiering_fraction_of_pe = detail::tiering_table_area(p) / r.a_pe;

  // Verdict. Each slack divided by what one more MAC costs of it gives the MACs that could
  // still be added (negative: that must go); the smaller headroom names the binding constraint,
  // the one that stops N_mac from growing.
  const strata::power<T> dp_dn = p.e_mac * p.f_logic;
  const strata::area<T> da_dn = p.a_mac + p.a_tsv * ((dp_dn / p.v_logic) / p.i_tsv);
  r.power_headroom_macs = r.power_slack / dp_dn;
  r.area_headroom_macs = r.area_slack / da_dn;
  const bool power_ok = value_of(r.power_slack.si()) >= 0.0;
  const bool area_ok = value_of(r.area_slack.si()) >= 0.0;
  r.feasible = power_ok && area_ok;
  r.binding = r.power_headroom_macs <= r.area_headroom_macs ? "power" : "area";
  return r;
}

/// Eq. 1–3 at `n_mac` MACs (any non-negative real, for sweeps and the solver): power and area
/// breakdowns, TSV area, budgets, slacks and the verdict. Infeasible points are results
/// (`feasible == false`, `reason` names the violated constraints), not errors.
/// [Stratum §4.3 Eq. 1–3, §6.2]
template <class T>
logic_die_result<T> evaluate(const logic_die_params<T>& p, const strata::bandwidth<T>& bw_fast,
                             const T& n_mac) {
  logic_die_result<T> r = evaluate_numbers(p, bw_fast, n_mac);
  const bool power_ok = value_of(r.power_slack.si()) >= 0.0;
  const bool area_ok = value_of(r.area_slack.si()) >= 0.0;
  const auto txt = [](const auto& x) { return detail::to_text(value_of(x)); };
  const std::string power_text =
      "power: P_logic " + txt(r.p_logic.in(units::W)) + " W vs cap " + txt(p.p_peak.in(units::W)) +
      " W, slack " + txt(r.power_slack.in(units::W)) + " W = " + txt(r.power_headroom_macs) +
      " MACs (Eq. 1)";
  const std::string area_text =
      "area: active " + txt(r.a_active.in(units::mm2)) + " mm2 vs processor budget " +
      txt(r.a_processor_budget.in(units::mm2)) + " mm2, slack " + txt(r.area_slack.in(units::mm2)) +
      " mm2 = " + txt(r.area_headroom_macs) + " MACs (Eq. 2)";
  const bool power_first = r.binding == "power";
  const std::string& first = power_first ? power_text : area_text;
  const std::string& second = power_first ? area_text : power_text;
  if (r.feasible) {
    r.reason = "feasible; binding " + first;
  } else if (!power_ok && !area_ok) {
    r.reason = "infeasible: " + first + "; also " + second;
  } else {
    r.reason = "infeasible: " + (power_ok ? area_text : power_text);
  }
  return r;
}

/// Eq. 1–3 at the design point `p.n_mac`. [Stratum §4.3, Table 3]
template <class T>
logic_die_result<T> evaluate(const logic_die_params<T>& p, const strata::bandwidth<T>& bw_fast) {
  validate(p);
  return evaluate(p, bw_fast, T(p.n_mac));
}

/// Eq. 1 left-hand side at `n_mac` MACs [W].
template <class T>
strata::power<T> logic_power(const logic_die_params<T>& p, const strata::bandwidth<T>& bw_fast,
                             const T& n_mac) {
  return evaluate(p, bw_fast, n_mac).p_logic;
}

/// The largest integer MAC count meeting Eq. 1 and Eq. 2.
struct logic_die_max_macs {
  std::int64_t n_mac = 0;         ///< largest feasible integer N_mac (0 if none)
  double n_mac_continuous = 0.0;  ///< root of the smaller headroom (in MACs)
  std::string binding;            ///< constraint that n_mac + 1 violates: "power" or "area"

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("n_mac", s.n_mac);
    v("n_mac_continuous", s.n_mac_continuous);
    v("binding", s.binding);
  }
};

/// Largest integer N_mac with P_logic ≤ P_peak (Eq. 1) and A_active ≤ α·A_die − A_PHY −
/// A_peri − A_PD (Eq. 2, with A_PD from Eq. 3 at that N_mac). Both slacks fall linearly with
/// N_mac, and each headroom is its slack over its cost per MAC, so headroom(n) = headroom(n₀) −
/// (n − n₀): the root of the smaller headroom is n₀ + min(headrooms at n₀) in closed form (no
/// iterative solver). It is floored and checked: n_mac is feasible and n_mac + 1 is not.
/// Throws `solver_error` if the rounding check fails or the root exceeds 10¹⁵ MACs.
/// [Stratum §6.2.3]
template <class = void>
inline logic_die_max_macs max_macs_within_budget(const logic_die_params<double>& p,
                                                 const strata::bandwidth<double>& bw_fast) {
  validate(p);
  validate_bw_fast(bw_fast);
  const auto feasible = [&](std::int64_t n) {
    return evaluate(p, bw_fast, static_cast<double>(n)).feasible;
  };
  logic_die_max_macs out;
  if (!feasible(0)) {
    out.binding = evaluate(p, bw_fast, 0.0).binding;
    return out;
  }
  const double n0 = static_cast<double>(p.n_mac);
  const auto r0 = evaluate(p, bw_fast, n0);
  out.n_mac_continuous = n0 + detail::min_of(r0.power_headroom_macs, r0.area_headroom_macs);
  if (!(out.n_mac_continuous <= 1e15)) {
    throw solver_error("[strata.logic_die] max_macs_within_budget: more than 1e15 MACs fit (" +
                       detail::to_text(out.n_mac_continuous) + ")");
  }
  auto n = static_cast<std::int64_t>(std::floor(out.n_mac_continuous));
  // The closed form is exact up to rounding; step over the few integers it may be off by.
  for (int k = 0; n > 0 && !feasible(n); ++k, --n) {
    if (k == 8) throw solver_error("[strata.logic_die] max_macs_within_budget: root not feasible");
  }
  for (int k = 0; feasible(n + 1); ++k, ++n) {
    if (k == 8) throw solver_error("[strata.logic_die] max_macs_within_budget: root too low");
  }
  out.n_mac = n;
  const auto next = evaluate(p, bw_fast, static_cast<double>(n + 1));
  out.binding = next.power_slack.si() < 0.0 ? "power" : "area";
  return out;
}

}  // namespace v0
}  // namespace strata

// strata::compiled (STRATA_BUILD_COMPILED, src/compiled.cpp) holds the `double` instantiations
// below; STRATA_COMPILED=1, which that target puts on its users, keeps their translation units
// from instantiating them again. Without it this header is unchanged (header-only).
#if defined(STRATA_COMPILED) && STRATA_COMPILED
namespace strata {
inline namespace v0 {
extern template logic_die_result<double> evaluate_numbers(const logic_die_params<double>&, const strata::bandwidth<double>&,
                                                         const double&);
extern template logic_die_result<double> evaluate(const logic_die_params<double>&, const strata::bandwidth<double>&,
                                                 const double&);
extern template logic_die_result<double> evaluate(const logic_die_params<double>&, const strata::bandwidth<double>&);
}  // namespace v0
}  // namespace strata
#endif
