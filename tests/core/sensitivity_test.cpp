// Sensitivities by autodiff against central finite differences, and the budget optimiser.
#include "strata/core/sensitivity.hpp"
#include "strata/core/sensitivity_io.hpp"

#include <doctest/doctest.h>

#include <algorithm>  // std::find
#include <cmath>   // std::abs
#include <sstream>  // std::ostringstream
#include <string>  // std::string
#include <vector>  // std::vector

#include "strata/core/rng.hpp"
#include "strata/core/sweep_io.hpp"
#include "strata/core/units.hpp"
#include "strata/device/logic_die.hpp"
#include "strata/device/mono3d.hpp"
#include "strata/stratum/design_optimiser.hpp"
#include "strata/stratum/system.hpp"
#include "strata/workload/presets.hpp"

using namespace strata;
using doctest::Approx;

namespace {

// y = a·b²·(L / 1 m)⁰ with an integer and a nested struct: elasticities 1, 2, 0 by hand.
template <class T = double>
struct inner_params {
  T c = T(5.0);
  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("c", s.c);
  }
};
template <class T = double>
struct toy_params {
  T a = T(3.0);
  T b = T(2.0);
  int n = 4;
  strata::length<T> l = units::um(2.0);
  inner_params<T> inner{};
  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("a", s.a);
    v("b", s.b);
    v("n", s.n);
    v("l", s.l);
    v("inner", s.inner);
  }
};

// Every parameter's autodiff elasticity against its central difference: |autodiff − fd| ≤ 1e-5
// relative, plus 1e-9 absolute for elasticities that are zero up to rounding (a parameter the
// output barely sees: its difference quotient is noise of order ε / h ≈ 1e-11). Returns the
// parameters compared by central differences.
// `steps`: parameters at which the model is not smooth at the point (a quantised step switches
// there). They are checked to be steps instead: autodiff sees the smooth part only and the
// difference quotient of the jump grows as 1/h (×100 from h = 1e-5 to 1e-7).
template <template <class> class P, class F>
int check_against_fd(const P<double>& p, F&& y, const sensitivity_result& ad, const std::vector<std::string>& steps = {},
                     const std::vector<std::string>& skip = {}) {
  const auto fd = finite_difference_elasticities(p, y);
  const auto fine = finite_difference_elasticities(p, y, {.relative_step = 1e-7});
  int central = 0;
  const auto rows = cross_check(ad, fd);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& c = rows[i];
    CAPTURE(c.parameter);
    CAPTURE(c.autodiff);
    CAPTURE(c.finite_difference);
    const auto in = [&](const std::vector<std::string>& list) {
      return std::find(list.begin(), list.end(), c.parameter) != list.end();
    };
    if (in(skip)) continue;
    if (in(steps)) {
      CHECK(std::abs(fine[i].elasticity) > 30.0 * std::abs(fd[i].elasticity));
      CHECK(!c.agrees);
      continue;
    }
    CHECK(c.agrees);
    if (c.scheme == difference_scheme::central) ++central;
  }
  return central;
}

}  // namespace

TEST_CASE("elasticities of a·b² are 1 and 2, of an unused parameter 0, integers left out") {
  const toy_params<> p;
  const auto y = [](const auto& q) { return q.a * q.b * q.b; };
  const auto s = elasticities(p, y);
  CHECK(s.output == 12.0);
  REQUIRE(s.rows.size() == 4);  // a, b, l, inner.c (n is an integer)
  CHECK(s.at("a").elasticity == Approx(1.0).epsilon(1e-15));
  CHECK(s.at("b").elasticity == Approx(2.0).epsilon(1e-15));
  CHECK(s.at("b").derivative == Approx(12.0));  // ∂(a b²)/∂b = 2ab
  CHECK(s.at("l").elasticity == 0.0);
  CHECK(s.at("inner.c").elasticity == 0.0);
  CHECK(s.ranked().front().parameter == "b");
  const auto fd = finite_difference_elasticities(p, y);
  CHECK(fd[1].elasticity == Approx(2.0).epsilon(1e-9));
  const auto checks = cross_check(s, fd);
  std::ostringstream table;
  write_elasticity_table(table, s, {.output = "a b^2"}, &checks);
  CHECK(table.str() == "elasticities d ln(a b^2) / d ln(p) at a b^2 = 12\n\n"
                       "| rank | parameter | value (SI) | elasticity | finite difference |\n"
                       "| ---: | --- | ---: | ---: | ---: |\n"
                       "| 1 | b | 2 | 2 | 2 |\n"
                       "| 2 | a | 3 | 1 | 1 |\n");
  // A quantity output, a nested parameter and a selection.
  const auto z = elasticities(p, [](const auto& q) { return q.l * (q.inner.c * q.inner.c * q.inner.c); },
                              {.only = {"inner.", "l"}});
  REQUIRE(z.rows.size() == 2);
  CHECK(z.at("l").elasticity == Approx(1.0));
  CHECK(z.at("inner.c").elasticity == Approx(3.0));
  CHECK_THROWS_AS((void)z.at("a"), config_error);
  CHECK_THROWS_WITH_AS(elasticities(p, [](const auto& q) { return q.a - q.a; }),
                       doctest::Contains("output"), config_error);
  CHECK_THROWS_WITH_AS(finite_difference_elasticities(p, y, {.relative_step = 0.0}),
                       doctest::Contains("relative_step"), config_error);
}

TEST_CASE("the autodiff copy of a params struct holds every field's value") {
  const stratum_system_params<> p = stratum_s();
  const auto q = to_autodiff(p);
  CHECK(q.name == "Stratum-S");
  CHECK(q.chips == 1);
  CHECK(q.xpu.name == p.xpu.name);
  CHECK(value_of(q.nmp.chip.memory.staircase_step.si()) == p.nmp.chip.memory.staircase_step.si());
  CHECK(value_of(q.nmp.chip.logic.tech.sram_bitcell_area.si()) == p.nmp.chip.logic.tech.sram_bitcell_area.si());
  CHECK(value_of(q.nmp_mode_register_delay.si()) == p.nmp_mode_register_delay.si());
  CHECK(q.nmp.chip.memory.layers == p.nmp.chip.memory.layers);
}

TEST_CASE("Mono3D fastest-tier bandwidth and latency spread: autodiff elasticities match finite differences") {
  const mono3d_params<> p;
  SUBCASE("fastest-tier bandwidth") {
    const auto y = [](const auto& q) { return evaluate(q).tiers.front().internal_bandwidth; };
    const auto ad = elasticities(p, y);
    CHECK(check_against_fd(p, y, ad) >= 15);
    // Bandwidth = banks · page / (tRCD + t_WL + tCL): the page is proportional, and the DDR5 core
    // timings weigh by their share of the fastest tier's access latency.
    CHECK(ad.at("bank_access_bytes").elasticity == Approx(1.0));
    const auto r = evaluate(p);
    const double lat = r.tiers.front().access_latency.si();
    CHECK(ad.at("base.t_rcd").elasticity == Approx(-p.base.t_rcd.si() / lat));
    CHECK(ad.at("base.t_cl").elasticity == Approx(-p.base.t_cl.si() / lat));
    MESSAGE("fastest-tier bandwidth, top elasticities: " << ad.ranked()[0].parameter << " "
                                                         << ad.ranked()[0].elasticity << ", "
                                                         << ad.ranked()[1].parameter << " "
                                                         << ad.ranked()[1].elasticity << ", "
                                                         << ad.ranked()[2].parameter << " "
                                                         << ad.ranked()[2].elasticity);
  }
  SUBCASE("latency spread between the slowest and the fastest tier") {
    const auto y = [](const auto& q) { return evaluate(q).fast_slow_latency_ratio; };
    const auto ad = elasticities(p, y);
    CHECK(check_against_fd(p, y, ad) >= 15);
    CHECK(ad.at("staircase_step").elasticity > 0.0);  // a longer staircase widens the spread
    CHECK(ad.at("bank_access_bytes").elasticity == 0.0);
    MESSAGE("latency spread, top elasticity: " << ad.ranked()[0].parameter << " " << ad.ranked()[0].elasticity);
  }
}

TEST_CASE("logic-die power and active area (Eq. 1-3): autodiff elasticities match finite differences") {
  const logic_die_params<> p;
  const double bw = units::TBps(30.34).si();
  // The tiering table's start-row width is ⌈log2(bank_capacity / row_size)⌉ bits, and the
  // default ratio is exactly 2^15: both fields sit on a step of the table's area (Fig. 15a).
  const std::vector<std::string> steps{"row_size", "bank_capacity"};
  SUBCASE("P_logic") {
    const auto y = [&](const auto& q) {
      using T = typename std::decay_t<decltype(q.alpha)>;
      return evaluate(q, strata::bandwidth<T>::from_si(T(bw))).p_logic;
    };
    const auto ad = elasticities(p, y);
    CHECK(check_against_fd(p, y, ad, steps) >= 25);
    // Eq. 1 is linear: the MAC term's share of P_logic is the elasticity of e_mac and f_logic.
    const auto r = evaluate(p, units::TBps(30.34));
    CHECK(ad.at("e_mac").elasticity == Approx(r.p_mac.si() / r.p_logic.si()));
    CHECK(ad.at("f_logic").elasticity == Approx(r.p_mac.si() / r.p_logic.si()));
    CHECK(ad.at("p_peak").elasticity == 0.0);
  }
  SUBCASE("area slack") {
    const auto y = [&](const auto& q) {
      using T = typename std::decay_t<decltype(q.alpha)>;
      return evaluate(q, strata::bandwidth<T>::from_si(T(bw))).area_slack;
    };
    const auto ad = elasticities(p, y);
    CHECK(check_against_fd(p, y, ad, steps) >= 25);
    CHECK(ad.at("die_area").elasticity > 0.0);
    CHECK(ad.at("a_mac").elasticity < 0.0);
  }
}

TEST_CASE("Stratum-L decode speedup over the H100: autodiff elasticities match finite differences") {
  // Mixtral 8x7B, B = 16, S = 2048, uniform routing; the GPU baseline is a constant, so the
  // speedup's elasticities are those of Stratum's tokens/s.
  const auto m = preset("Mixtral-8x7B");
  const step_shape s{.mode = phase::decode, .batch = 16, .context = 2048};
  const auto gpu = evaluate(m, s, make_machine(h100_sxm5(), 2)).tokens_per_s;
  const auto y = [&](const auto& q) { return evaluate_decode(q, m, s).tokens_per_s / gpu; };
  const stratum_system_params<> p = stratum_l();
  const auto ad = elasticities(p, y);
  // Every parameter of the system (Mono3D die, PHY, NMP, logic die) reaches the xPU operators too
  // (the embedding, norms, router and LM head read over the interposer: the xPU roofline machine
  // carries the scalar). One known step: the row plan quantises the always-read weights to whole
  // rows, so the page a bank streams (bank_access_bytes) sits on a step; it is checked as one.
  const std::vector<std::string> steps{"nmp.chip.memory.bank_access_bytes"};
  const auto rows = cross_check(ad, finite_difference_elasticities(p, y));
  int disagree = 0;
  for (const auto& c : rows) disagree += !c.agrees;
  CHECK(disagree == 1);
  const int central = check_against_fd(p, y, ad, steps);
  MESSAGE(rows.size() << " parameters, " << disagree << " differing from the finite difference (the step), " << central
                      << " compared by central differences");
  CHECK(central >= 60);
  const auto top = ad.ranked();
  MESSAGE("Stratum-L speedup " << ad.output << ", top elasticities: " << top[0].parameter << " " << top[0].elasticity
                               << ", " << top[1].parameter << " " << top[1].elasticity << ", " << top[2].parameter
                               << " " << top[2].elasticity << ", " << top[3].parameter << " " << top[3].elasticity);
  // The step time falls with the mode switches' share; the HBM stack is not used by a Mono3D system.
  CHECK(ad.at("nmp_mode_register_delay").elasticity < 0.0);
  CHECK(ad.at("hbm.external_bandwidth").elasticity == 0.0);
}

// --- budget optimiser (stratum/design_optimiser.hpp) -------------------------------------------

TEST_CASE("the budget optimiser's design meets both budgets and no sampled feasible neighbour beats it") {
  const auto m = preset("Mixtral-8x7B");
  const step_shape s{.mode = phase::decode, .batch = 16, .context = 2048};
  const auto sys = stratum_l();
  const design_domain d{.macs = {32000, 51200, 64000, 70400, 96000},
                        .pes_per_pu = {4, 8},
                        .tiers = {4, 8, 16},
                        .f_min_hz = 0.5e9,
                        .f_max_hz = 1.5e9};
  for (auto obj : {design_objective::decode_throughput, design_objective::tokens_per_joule}) {
    const std::string name = detail::enum_text(obj);
    CAPTURE(name);
    const auto o = optimise_design(sys, m, s, {}, d, obj, {.threads = 2});
    REQUIRE(o.best.feasible);
    const auto& x = o.best.choice;
    // Both budgets hold at the optimum, re-checked on the chip alone.
    const auto chip = evaluate(detail::with_choice(sys, x).nmp.chip);
    CHECK(chip.feasible);
    CHECK(chip.logic.power_slack.si() >= 0.0);
    CHECK(chip.logic.area_slack.si() >= 0.0);
    CHECK(chip.logic.p_logic.in(units::W) <= 45.0);
    // Neighbours: one step of every integer parameter, the clock nudged; and random designs.
    std::vector<design_choice> near;
    const auto step = [&](const std::vector<int>& v, int at, auto set) {
      for (std::size_t i = 0; i < v.size(); ++i) {
        if (v[i] != at) continue;
        for (int k : {-1, 1}) {
          if (i + k < v.size()) {
            design_choice y = x;
            set(y, v[i + k]);
            near.push_back(y);
          }
        }
      }
    };
    step(d.macs, x.macs, [](design_choice& y, int v) { y.macs = v; });
    step(d.pes_per_pu, x.pes_per_pu, [](design_choice& y, int v) { y.pes_per_pu = v; });
    step(d.tiers, x.tiers, [](design_choice& y, int v) { y.tiers = v; });
    for (double r : {0.999, 0.99, 1.001, 1.01}) {
      design_choice y = x;
      y.f_hz = std::min(d.f_max_hz, std::max(d.f_min_hz, x.f_hz * r));
      near.push_back(y);
    }
    detail::portable_rng rng(12);
    for (int i = 0; i < 24; ++i) {
      design_choice y = x;
      y.macs = d.macs[static_cast<std::size_t>(rng.uniform() * double(d.macs.size()))];
      y.pes_per_pu = d.pes_per_pu[static_cast<std::size_t>(rng.uniform() * double(d.pes_per_pu.size()))];
      y.tiers = d.tiers[static_cast<std::size_t>(rng.uniform() * double(d.tiers.size()))];
      y.f_hz = d.f_min_hz + rng.uniform() * (d.f_max_hz - d.f_min_hz);
      near.push_back(y);
    }
    int feasible = 0;
    for (const auto& y : near) {
      const auto e = evaluate_design(sys, m, s, {}, y, obj);
      if (!e.feasible) continue;
      ++feasible;
      CAPTURE(y.macs);
      CAPTURE(y.f_hz);
      CHECK(e.objective <= o.best.objective * (1.0 + 1e-9));
    }
    CHECK(feasible >= 8);
    // The Table 3 design (64 000 MACs, 8 PEs per PU, 8 tiers, 1 GHz) lies in the domain.
    REQUIRE(o.baseline.feasible);
    CHECK(o.baseline_ratio <= 1.0 + 1e-12);
    CHECK(o.baseline_ratio > 0.0);
    // More budget never lowers the optimum (up to rounding), and some budget binds at it.
    CHECK(o.power_price >= -1e-12 * o.best.objective);
    CHECK(o.area_price >= -1e-12 * o.best.objective);
    CHECK((o.power_binding || o.area_binding));
    MESSAGE(name << ": optimum " << o.best.objective << " at " << x.macs << " MACs, " << x.pes_per_pu
                                   << " PEs/PU, " << x.tiers << " tiers, " << x.f_hz / 1e9 << " GHz; P_logic "
                                   << o.best.p_logic_W << " W, area slack " << o.best.area_slack_mm2
                                   << " mm2; binding power " << o.power_binding << " area " << o.area_binding
                                   << "; prices " << o.power_price << " per W, " << o.area_price
                                   << " per mm2; Table 3 design at " << o.baseline_ratio << " of the optimum; "
                                   << o.evaluations << " decode steps");
  }
}

TEST_CASE("bad optimiser domains are config errors naming the value") {
  const auto m = preset("Mixtral-8x7B");
  const step_shape s{.mode = phase::decode, .batch = 16, .context = 2048};
  const auto sys = stratum_l();
  const auto obj = design_objective::decode_throughput;
  CHECK_THROWS_WITH_AS(optimise_design(sys, m, s, {}, {.macs = {64000, 64001}}, obj), doctest::Contains("domain.macs[1]"),
                       config_error);
  CHECK_THROWS_WITH_AS(optimise_design(sys, m, s, {}, {.pes_per_pu = {3}}, obj), doctest::Contains("domain.pes_per_pu[0]"),
                       config_error);
  CHECK_THROWS_WITH_AS(optimise_design(sys, m, s, {}, {.tiers = {8, 600}, .layers = {512}}, obj),
                       doctest::Contains("domain.tiers[1]"), config_error);
  CHECK_THROWS_WITH_AS(optimise_design(sys, m, s, {}, {.f_min_hz = 2e9, .f_max_hz = 1e9}, obj),
                       doctest::Contains("domain.f_max_hz"), config_error);
  CHECK_THROWS_WITH_AS(mac_grid(sys, 1000, 64000, 1280), doctest::Contains("macs.lo"), config_error);
  CHECK_THROWS_WITH_AS(optimise_design(sys, m, s, {}, {.macs = mac_grid(sys, 1280, 128000, 1280)}, obj,
                                       {.max_designs = 50}),
                       doctest::Contains("max_designs"), config_error);
}
