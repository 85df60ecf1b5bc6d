// Fit rows: every device and logic-die parameter that was solved from a paper row is perturbed by
// ±10 % and the row is shown to fail, so a fit cannot pass as a check. The row ids and tolerances
// are those of spec/numbers.md; where ±10 % cannot move a row out of its tolerance the test says
// so and names the tighter row that does fail.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "strata/device/logic_die.hpp"
#include "strata/device/mono3d.hpp"
#include "strata/tech/ddr5.hpp"

using namespace strata;
using namespace strata::literals;

namespace {
// |value / paper − 1| > tol: the row fails.
bool misses(double value, double paper, double tol) { return std::abs(value / paper - 1.0) > tol; }

bandwidth<> fast_bw(const mono3d_params<>& p) { return evaluate(p).tiers.front().internal_bandwidth; }
}  // namespace

TEST_CASE("the defaults pass every fit row they were solved from") {
  const mono3d_params<> p;
  const auto r = evaluate(p);
  CHECK_FALSE(misses(r.fast_slow_latency_ratio, 1.6, 0.03));
  CHECK_FALSE(misses(r.density.in(units::Gib_per_mm2), 2.156, 0.02));
  CHECK_FALSE(misses(r.density / density(dram_die_reference<>{}), 5.2, 0.03));
  const auto l = evaluate(logic_die_params<>{}, fast_bw(p));
  CHECK_FALSE(misses(l.a_active.in(units::mm2), 76.63, 0.02));
  CHECK_FALSE(misses(l.p_logic.in(units::W), 42.67, 0.01));
  CHECK_FALSE(misses(l.a_pd.in(units::mm2), 0.21, 0.05));
}

TEST_CASE("staircase_step is fitted from stratum.device.fast_slow_latency_ratio_1024") {
  for (double f : {0.9, 1.1}) {
    CAPTURE(f);
    mono3d_params<> p;
    p.staircase_step = p.staircase_step * f;
    CHECK(misses(evaluate(p).fast_slow_latency_ratio, 1.6, 0.03));
  }
}

TEST_CASE("cell_depth is fitted from stratum.device.density_Gb_per_mm2") {
  for (double f : {0.9, 1.1}) {
    CAPTURE(f);
    mono3d_params<> p;
    p.cell_depth = p.cell_depth * f;
    CHECK(misses(evaluate(p).density.in(units::Gib_per_mm2), 2.156, 0.02));
  }
}

TEST_CASE("the DDR5 reference die area is fitted from stratum.device.density_vs_ddr5_32Gb") {
  const auto d = evaluate(mono3d_params<>{}).density;
  for (double f : {0.9, 1.1}) {
    CAPTURE(f);
    dram_die_reference<> ref;
    ref.die_area = ref.die_area * f;
    CHECK(misses(d / density(ref), 5.2, 0.03));
  }
}

TEST_CASE("a_mac is fitted from stratum.logic.active_area_mm2") {
  const auto bw = fast_bw(mono3d_params<>{});
  for (double f : {0.9, 1.1}) {
    CAPTURE(f);
    logic_die_params<> p;
    p.a_mac = p.a_mac * f;
    CHECK(misses(evaluate(p, bw).a_active.in(units::mm2), 76.63, 0.02));
  }
}

TEST_CASE("p_misc_per_mm2 is fitted from stratum.logic.peak_power_W: fails at 1 %, not at 2 %") {
  // P_misc is 8.2 W of 42.6 W, so ±10 % moves P_logic by ≈1.9 % (41.81 / 43.46 W): +10 % stays
  // inside the paper row's ±2 %. The model's value (42.64 W) is 0.08 % from 42.67 W; a ±1 % row
  // is met and is the one a ±10 % change of the fit fails on both sides.
  const auto bw = fast_bw(mono3d_params<>{});
  for (double f : {0.9, 1.1}) {
    CAPTURE(f);
    logic_die_params<> p;
    p.p_misc_per_mm2 = p.p_misc_per_mm2 * f;
    const double w = evaluate(p, bw).p_logic.in(units::W);
    CHECK(misses(w, 42.67, 0.01));
    if (f > 1.0) CHECK_FALSE(misses(w, 42.67, 0.02));  // why the 2 % row cannot reveal the fit
  }
}

TEST_CASE("i_tsv is fitted from the 0.21 mm2 of power TSVs, not from the 82.05 mm2 budget") {
  // A_PD = 0.21 mm² is 0.26 % of the 82.05 mm² budget, so ±10 % on I_TSV moves the budget by
  // ≈0.03 %: the ±0.5 % budget row cannot fail. The TSV area itself (Stratum §6.2.2, 0.21 mm²)
  // moves by −9 % / +11 % and fails a ±5 % row.
  const auto bw = fast_bw(mono3d_params<>{});
  for (double f : {0.9, 1.1}) {
    CAPTURE(f);
    logic_die_params<> p;
    p.i_tsv = p.i_tsv * f;
    const auto r = evaluate(p, bw);
    CHECK(misses(r.a_pd.in(units::mm2), 0.21, 0.05));
    CHECK_FALSE(misses(r.a_processor_budget.in(units::mm2), 82.05, 0.005));
  }
}
