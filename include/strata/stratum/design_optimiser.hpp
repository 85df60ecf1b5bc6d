// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Budget optimiser of a Stratum chip design (Stratum §4.3 Eq. 1–3, §6.2.3): the design that
/// maximises an objective of a full decode step — decode throughput, throughput per mm² of
/// silicon, or tokens per joule — over chosen design parameters, subject to the logic die's power
/// (Eq. 1) and area (Eq. 2, with the power-delivery TSVs of Eq. 3) budgets and to the model's
/// weights and KV cache fitting the rows.
///
/// Design parameters. The integers — MAC count N_mac, PEs per PU (the PU count is banks / PEs per
/// PU), latency tiers, WL layers — are each a bounded list (`design_domain`); a list left empty
/// keeps the system's value. The logic clock f_logic is real, in [f_min, f_max], or fixed.
///
/// Method, and why. The integer lattice is scanned exhaustively (in parallel, with the sweep
/// engine of `core/sweep.hpp`): its domain is small (a few thousand designs at most, each a few
/// tens of µs), and the objective is not unimodal over it — tiers and layers move the row plan,
/// whose quantisation makes the objective step, so a coordinate search could stop at a local
/// optimum. For each integer design the clock is continuous: both budgets fall linearly with f
/// (Eq. 1's N_mac·f·E_mac, Eq. 3's TSVs for that power), so the feasible clocks are
/// [f_min, f*], f* the root of the smaller normalised slack (TOMS 748, `core/solve.hpp`), and the
/// objective is maximised on that interval by Brent's method (`boost/math/tools/minima.hpp`),
/// compared with the end point f*, where a monotone objective peaks.
///
/// Constraints and shadow prices. At the optimum each budget reports its slack and its headroom
/// in MACs; a budget is binding when its headroom is below one lattice step of N_mac (the next
/// MAC count would break it) or, with a free clock, when it sets f*. Its shadow price is the
/// objective's change per unit of budget, by re-solving the whole problem with the budget nudged
/// (`optimiser_options::budget_step_W`, `budget_step_mm2`): P_peak + δ, and the processor area
/// budget α·A_die − A_PHY − A_peri − A_PD + δ (the PHY area A_PHY − δ, the die itself being the
/// memory die's footprint). With a fixed clock and a step smaller than one lattice step the
/// price of a binding budget can be 0: the next MAC count still does not fit.
///
/// Caveat. E_mac and A_mac do not depend on f_logic in the logic-die model (Stratum gives them at
/// 1 GHz only), so with a free clock the optimiser trades MACs for clock at equal N_mac·f; bound
/// the clock to the range where those figures hold.
///
/// \code
/// const auto m = strata::preset("Mixtral-8x7B");
/// const strata::step_shape s{.mode = strata::phase::decode, .batch = 16, .context = 2048};
/// strata::design_domain d{.macs = strata::mac_grid(strata::stratum_l(), 12800, 128000, 6400),
///                         .tiers = {4, 8, 16}};
/// auto o = strata::optimise_design(strata::stratum_l(), m, s, {}, d, strata::design_objective::decode_throughput);
/// // o.best.choice.macs, o.best.objective, o.power_binding, o.power_price, o.baseline_ratio
/// \endcode

#include <algorithm>  // std::max, std::min
#include <array>      // std::array (enum names)
#include <cmath>      // std::isfinite
#include <cstddef>    // std::size_t
#include <cstdint>    // std::uintmax_t
#include <limits>     // std::numeric_limits
#include <string>     // std::string
#include <utility>    // std::pair
#include <vector>     // std::vector

#include <boost/math/tools/minima.hpp>  // brent_find_minima

#include "strata/core/error.hpp"
#include "strata/core/solve.hpp"
#include "strata/core/sweep.hpp"
#include "strata/core/units.hpp"
#include "strata/device/stratum_chip.hpp"
#include "strata/stratum/system.hpp"
#include "strata/workload/model.hpp"
#include "strata/workload/operators.hpp"

namespace strata {
inline namespace v0 {

/// What the optimiser maximises, from one decode step.
enum class design_objective {
  decode_throughput,    ///< tokens/s
  throughput_per_area,  ///< tokens/s per mm² of the chips' dies (chips · stages · A_die)
  tokens_per_joule,     ///< tokens/J
};
constexpr auto enum_names(design_objective) {
  return std::array{std::pair{design_objective::decode_throughput, "decode_throughput"},
                    std::pair{design_objective::throughput_per_area, "throughput_per_area"},
                    std::pair{design_objective::tokens_per_joule, "tokens_per_joule"}};
}

/// The design parameters and their bounded values (file comment). Empty lists keep the system's
/// value; f_min_hz = f_max_hz = 0 keeps its clock.
struct design_domain {
  std::vector<int> macs{};        ///< N_mac: multiples of banks · dot_engines (`mac_grid`)
  std::vector<int> pes_per_pu{};  ///< PEs per PU: divisors of the banks
  std::vector<int> tiers{};       ///< latency tiers (≤ every layers value)
  std::vector<int> layers{};      ///< WL layers
  double f_min_hz = 0.0;          ///< clock range [f_min, f_max], or 0, 0: fixed
  double f_max_hz = 0.0;
};

/// One design: the values of the design parameters.
struct design_choice {
  int macs = 0;
  int pes_per_pu = 0;
  int tiers = 0;
  int layers = 0;
  double f_hz = 0.0;

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("macs", s.macs);
    v("pes_per_pu", s.pes_per_pu);
    v("tiers", s.tiers);
    v("layers", s.layers);
    v("f_hz", s.f_hz);
  }
  friend bool operator==(const design_choice&, const design_choice&) = default;
};

/// One design evaluated: the objective and both budgets.
struct design_evaluation {
  design_choice choice{};
  bool feasible = false;          ///< both budgets hold and the model fits the rows
  std::string reason;             ///< why not, or the logic die's verdict
  double objective = 0.0;         ///< in the objective's unit (0 when infeasible)
  double p_logic_W = 0.0;         ///< Eq. 1 left-hand side
  double power_slack_W = 0.0;     ///< P_peak − P_logic
  double area_slack_mm2 = 0.0;    ///< processor area budget − active area (Eq. 2, 3)
  double power_headroom_macs = 0.0;  ///< MACs the power slack still admits
  double area_headroom_macs = 0.0;   ///< MACs the area slack still admits
  double die_area_mm2 = 0.0;      ///< one chip's logic (= memory footprint) die

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("choice", s.choice);
    v("feasible", s.feasible);
    v("reason", s.reason);
    v("objective", s.objective);
    v("p_logic_W", s.p_logic_W);
    v("power_slack_W", s.power_slack_W);
    v("area_slack_mm2", s.area_slack_mm2);
    v("power_headroom_macs", s.power_headroom_macs);
    v("area_headroom_macs", s.area_headroom_macs);
    v("die_area_mm2", s.die_area_mm2);
  }
};

/// The optimum, its binding budgets and their shadow prices, and the system's own design.
struct design_optimum {
  design_evaluation best{};       ///< the optimum (feasible == false: no design is feasible)
  design_evaluation baseline{};   ///< the system's own design (Stratum Table 3 by default)
  double baseline_ratio = 0.0;    ///< baseline objective / optimum objective
  bool power_binding = false;     ///< Eq. 1 stops the design from growing
  bool area_binding = false;      ///< Eq. 2 stops it
  double power_price = 0.0;       ///< objective per W of P_peak
  double area_price = 0.0;        ///< objective per mm² of processor area budget
  std::size_t evaluations = 0;    ///< decode steps evaluated (all three solves)

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("best", s.best);
    v("baseline", s.baseline);
    v("baseline_ratio", s.baseline_ratio);
    v("power_binding", s.power_binding);
    v("area_binding", s.area_binding);
    v("power_price", s.power_price);
    v("area_price", s.area_price);
    v("evaluations", s.evaluations);
  }
};

/// Numerics of the optimiser.
struct optimiser_options {
  double budget_step_W = 0.5;      ///< δ of P_peak for the power shadow price
  double budget_step_mm2 = 0.5;    ///< δ of the area budget for the area shadow price
  int brent_bits = 24;             ///< Brent's precision in bits of f (relative ≈ 6e-8)
  std::uintmax_t max_iter = 100;   ///< Brent's and TOMS 748's iterations
  unsigned threads = 0;            ///< scan threads (0: the machine's cores)
  std::size_t max_designs = 100000;  ///< integer designs one solve may scan
};

/// N_mac values lo, lo + step, … ≤ hi, each a multiple of banks · dot_engines of `sys` (the
/// MACs must split evenly into PEs and engines); `config_error` naming "macs" otherwise.
template <class = void>
inline std::vector<int> mac_grid(const stratum_system_params<>& sys, int lo, int hi, int step) {
  const int unit = sys.nmp.chip.memory.banks * sys.nmp.dot_engines;
  detail::require(lo >= unit && lo % unit == 0, "strata.design", "macs.lo", lo,
                  ("a positive multiple of banks x dot_engines (" + std::to_string(unit) + ")").c_str());
  detail::require(step >= unit && step % unit == 0, "strata.design", "macs.step", step,
                  ("a positive multiple of banks x dot_engines (" + std::to_string(unit) + ")").c_str());
  detail::require(hi >= lo && hi <= 1000000000 && (hi - lo) / step < 100000, "strata.design", "macs.hi", hi,
                  "in [lo, 1e9], at most 100000 values");
  std::vector<int> v;
  for (int n = lo; n <= hi; n += step) v.push_back(n);
  return v;
}

namespace detail {

template <class = void>
inline design_choice choice_of(const stratum_system_params<>& sys) {
  const auto& c = sys.nmp.chip;
  return {c.logic.n_mac, c.logic.pes_per_pu, c.memory.tiers, c.memory.layers, c.logic.f_logic.si()};
}

template <class = void>
inline stratum_system_params<> with_choice(stratum_system_params<> sys, const design_choice& x) {
  auto& c = sys.nmp.chip;
  c.logic.n_mac = x.macs;
  c.logic.pes_per_pu = x.pes_per_pu;
  c.memory.tiers = x.tiers;
  c.memory.layers = x.layers;
  c.logic.f_logic = units::Hz(x.f_hz);
  return sys;
}

/// The budgets of one design (the chip alone).
template <class = void>
inline void fill_budgets(const stratum_chip_result<>& c, design_evaluation& e) {
  e.p_logic_W = c.logic.p_logic.in(units::W);
  e.power_slack_W = c.logic.power_slack.in(units::W);
  e.area_slack_mm2 = c.logic.area_slack.in(units::mm2);
  e.power_headroom_macs = c.logic.power_headroom_macs;
  e.area_headroom_macs = c.logic.area_headroom_macs;
  e.die_area_mm2 = c.logic_params.die_area.in(units::mm2);
}

/// min(power slack / P_peak, area slack / A_die): ≥ 0 exactly when both budgets hold.
template <class = void>
inline double budget_margin(const stratum_system_params<>& sys) {
  const auto c = evaluate(sys.nmp.chip);
  return std::min(c.logic.power_slack.si() / c.logic.p_peak.si(),
                  c.logic.area_slack.si() / c.logic_params.die_area.si());
}

template <class = void>
inline void check_domain(const stratum_system_params<>& sys, const design_domain& d) {
  constexpr const char* id = "strata.design";
  const int banks = sys.nmp.chip.memory.banks, unit = banks * sys.nmp.dot_engines;
  const auto each = [&](const std::vector<int>& v, const char* name, auto ok, const std::string& what) {
    require(v.size() <= 4096, id, std::string("domain.") + name, v.size(), "at most 4096 values");
    for (std::size_t i = 0; i < v.size(); ++i) {
      require(ok(v[i]), id, std::string("domain.") + name + "[" + std::to_string(i) + "]", v[i], what.c_str());
    }
  };
  each(d.macs, "macs", [&](int n) { return n >= unit && n <= 1000000000 && n % unit == 0; },
       "a multiple of banks x dot_engines (" + std::to_string(unit) + ") in [" + std::to_string(unit) + ", 1e9]");
  each(d.pes_per_pu, "pes_per_pu", [&](int n) { return n >= 1 && n <= banks && banks % n == 0; },
       "a divisor of the banks (" + std::to_string(banks) + ")");
  each(d.layers, "layers", [](int n) { return n >= 2 && n <= 4096; }, "in [2, 4096]");
  int min_layers = d.layers.empty() ? sys.nmp.chip.memory.layers : d.layers.front();
  for (int l : d.layers) min_layers = std::min(min_layers, l);
  each(d.tiers, "tiers", [&](int n) { return n >= 1 && n <= min_layers; },
       "in [1, the fewest layers of the domain (" + std::to_string(min_layers) + ")]");
  const bool fixed = d.f_min_hz == 0.0 && d.f_max_hz == 0.0;
  require(fixed || (std::isfinite(d.f_min_hz) && d.f_min_hz >= 1e6 && d.f_min_hz <= 1e11), id, "domain.f_min_hz",
          d.f_min_hz, "in [1e6, 1e11] Hz (or f_min = f_max = 0: the system's clock)");
  require(fixed || (std::isfinite(d.f_max_hz) && d.f_max_hz >= d.f_min_hz && d.f_max_hz <= 1e11), id,
          "domain.f_max_hz", d.f_max_hz, "in [f_min_hz, 1e11] Hz");
}

}  // namespace detail

/// Evaluates design `x` of system `sys` on decode step `s` of `m` (routing `u`): both budgets
/// and, when they hold and the model fits, the objective. Infeasible designs are results.
template <class = void>
inline design_evaluation evaluate_design(const stratum_system_params<>& sys, const model& m, const step_shape& s,
                                         const stratum_usage& u, const design_choice& x, design_objective obj) {
  design_evaluation e;
  e.choice = x;
  const auto p = detail::with_choice(sys, x);
  const auto chip = evaluate(p.nmp.chip);
  detail::fill_budgets(chip, e);
  if (!chip.feasible) {
    e.reason = chip.reason;
    return e;
  }
  const auto r = evaluate_decode(p, m, s, u);
  e.feasible = r.feasible;
  e.reason = r.feasible ? chip.reason : r.reason;
  if (!r.feasible) return e;
  switch (obj) {
    case design_objective::decode_throughput: e.objective = r.tokens_per_s; break;
    case design_objective::throughput_per_area:
      e.objective = r.tokens_per_s / (double(p.chips * p.stages) * e.die_area_mm2);
      break;
    case design_objective::tokens_per_joule: e.objective = r.tokens_per_joule; break;
  }
  return e;
}

namespace detail {

/// The best clock of one integer design (file comment): the feasible interval [f_min, f*] by
/// TOMS 748 on the budget margin, Brent on it, and the end point f*.
template <class = void>
inline design_evaluation best_clock(const stratum_system_params<>& sys, const model& m, const step_shape& s,
                                    const stratum_usage& u, design_choice x, const design_domain& d,
                                    design_objective obj, const optimiser_options& o, std::size_t& evals) {
  const bool fixed = d.f_min_hz == 0.0 && d.f_max_hz == 0.0;
  if (fixed || d.f_min_hz == d.f_max_hz) {
    if (!fixed) x.f_hz = d.f_min_hz;
    ++evals;
    return evaluate_design(sys, m, s, u, x, obj);
  }
  const auto margin = [&](double f) {
    design_choice y = x;
    y.f_hz = f;
    return budget_margin(with_choice(sys, y));
  };
  double f_hi = d.f_max_hz;
  if (margin(d.f_min_hz) < 0.0) {  // infeasible at every clock: report it at f_min
    x.f_hz = d.f_min_hz;
    ++evals;
    return evaluate_design(sys, m, s, u, x, obj);
  }
  if (margin(f_hi) < 0.0) {
    f_hi = solve_bracketed(margin, d.f_min_hz, d.f_max_hz, solve_options{1e-12, o.max_iter}, "design clock f*");
    // The bracket's midpoint may sit a rounding error past the root: step back inside.
    for (int k = 0; k < 64 && margin(f_hi) < 0.0; ++k) f_hi = std::max(d.f_min_hz, f_hi * (1.0 - 1e-12 * (k + 1)));
  }
  const auto eval_at = [&](double f) {
    design_choice y = x;
    y.f_hz = f;
    ++evals;
    return evaluate_design(sys, m, s, u, y, obj);
  };
  design_evaluation best = eval_at(f_hi);
  if (f_hi > d.f_min_hz) {
    std::uintmax_t it = o.max_iter;
    const auto r = boost::math::tools::brent_find_minima(
        [&](double f) {
          const auto e = eval_at(f);
          return e.feasible ? -e.objective : std::numeric_limits<double>::max();
        },
        d.f_min_hz, f_hi, o.brent_bits, it);
    if (-r.second > best.objective) best = eval_at(r.first);
  }
  return best;
}

struct design_scan {
  design_evaluation best{};
  std::size_t evaluations = 0;
};

/// The exhaustive scan of the integer lattice (in parallel; the first best in scan order wins).
template <class = void>
inline design_scan scan_designs(const stratum_system_params<>& sys, const model& m, const step_shape& s,
                                const stratum_usage& u, const design_domain& d, design_objective obj,
                                const optimiser_options& o) {
  const design_choice base = choice_of(sys);
  const auto axis = [](const char* name, const std::vector<int>& v, int fallback) {
    std::vector<double> x;
    if (v.empty()) x.push_back(fallback);
    for (int n : v) x.push_back(n);
    return list_axis(name, x);
  };
  const auto space = cartesian({axis("layers", d.layers, base.layers), axis("tiers", d.tiers, base.tiers),
                                axis("pes_per_pu", d.pes_per_pu, base.pes_per_pu), axis("macs", d.macs, base.macs)});
  require(space.size() <= o.max_designs, "strata.design", "max_designs", o.max_designs,
          ("at least the integer designs of the domain (" + std::to_string(space.size()) + ")").c_str());
  struct cell {
    design_evaluation e;
    std::size_t evals = 0;
  };
  const auto cells = run_sweep(space, [&](const design_point& p) {
    design_choice x = base;
    x.layers = p.as_int("layers");
    x.tiers = p.as_int("tiers");
    x.pes_per_pu = p.as_int("pes_per_pu");
    x.macs = p.as_int("macs");
    cell c;
    c.e = best_clock(sys, m, s, u, x, d, obj, o, c.evals);
    return c;
  }, {.threads = o.threads});
  design_scan out;
  out.best.reason = "no design of the domain is feasible";
  for (const auto& c : cells) {
    out.evaluations += c.evals;
    if (c.e.feasible && (!out.best.feasible || c.e.objective > out.best.objective)) out.best = c.e;
  }
  return out;
}

}  // namespace detail

/// Maximises `obj` over `domain` for system `sys` on decode step `s` of `m` with routing `u`,
/// subject to Eq. 1–3 and the rows (file comment). Throws `config_error` naming a bad domain
/// value ("domain.macs[2]") or option.
template <class = void>
inline design_optimum optimise_design(const stratum_system_params<>& sys, const model& m, const step_shape& s,
                                      const stratum_usage& u, const design_domain& domain, design_objective obj,
                                      const optimiser_options& o = {}) {
  validate(sys);
  detail::check_domain(sys, domain);
  detail::require(std::isfinite(o.budget_step_W) && o.budget_step_W > 0.0 && o.budget_step_W < 1e3, "strata.design",
                  "budget_step_W", o.budget_step_W, "in (0, 1000) W");
  const double a_phy_mm2 = sys.nmp.chip.logic.a_phy.in(units::mm2);
  detail::require(std::isfinite(o.budget_step_mm2) && o.budget_step_mm2 > 0.0 && o.budget_step_mm2 <= a_phy_mm2,
                  "strata.design", "budget_step_mm2", o.budget_step_mm2, "in (0, A_PHY] mm2 (it is taken off A_PHY)");
  detail::require(o.brent_bits >= 4 && o.brent_bits <= 52, "strata.design", "brent_bits", o.brent_bits, "in [4, 52]");
  design_optimum out;
  auto scan = detail::scan_designs(sys, m, s, u, domain, obj, o);
  out.best = scan.best;
  out.evaluations = scan.evaluations;
  out.baseline = evaluate_design(sys, m, s, u, detail::choice_of(sys), obj);
  ++out.evaluations;
  if (!out.best.feasible) return out;
  out.baseline_ratio = out.baseline.feasible ? out.baseline.objective / out.best.objective : 0.0;
  const double step = double(sys.nmp.chip.memory.banks * sys.nmp.dot_engines);
  const bool free_clock = domain.f_max_hz > domain.f_min_hz;
  const bool at_clock_edge = free_clock && out.best.choice.f_hz < domain.f_max_hz * (1.0 - 1e-9);
  out.power_binding = out.best.power_headroom_macs < step ||
                      (at_clock_edge && out.best.power_headroom_macs <= out.best.area_headroom_macs);
  out.area_binding = out.best.area_headroom_macs < step ||
                     (at_clock_edge && out.best.area_headroom_macs < out.best.power_headroom_macs);
  // Shadow prices: the whole problem re-solved with each budget nudged.
  auto more_power = sys;
  more_power.nmp.chip.logic.p_peak = more_power.nmp.chip.logic.p_peak + units::W(o.budget_step_W);
  const auto p_scan = detail::scan_designs(more_power, m, s, u, domain, obj, o);
  auto more_area = sys;
  more_area.nmp.chip.logic.a_phy = more_area.nmp.chip.logic.a_phy - units::mm2(o.budget_step_mm2);
  const auto a_scan = detail::scan_designs(more_area, m, s, u, domain, obj, o);
  out.evaluations += p_scan.evaluations + a_scan.evaluations;
  out.power_price = (p_scan.best.objective - out.best.objective) / o.budget_step_W;
  out.area_price = (a_scan.best.objective - out.best.objective) / o.budget_step_mm2;
  return out;
}

}  // namespace v0
}  // namespace strata
