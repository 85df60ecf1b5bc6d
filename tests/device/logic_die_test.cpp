// Tests of the Stratum logic-die budget model (Stratum §4.3 Eq. 1–3, §6.2, Table 3, Fig. 15).
#include "strata/device/logic_die.hpp"

#include <doctest/doctest.h>

#include <boost/math/differentiation/autodiff.hpp>  // make_fvar, fvar

#include <cmath>   // std::isnan, std::nan
#include <limits>  // std::numeric_limits
#include <string>  // std::string

#include "strata/core/json.hpp"
#include "strata/device/mono3d.hpp"
#include "support/common.hpp"

using namespace strata;
using namespace strata::literals;

namespace {

// Internal bandwidth of the fastest Mono3D tier, the input of Eq. 1 and Eq. 3. [Stratum §6.1:
// 30.34 TB/s; in the library it comes from device/mono3d.hpp]
const bandwidth<> bw_fast = 30.34_TBps;

using strata_test::mm2;
double watts(const power<>& p) { return p.in(units::W); }

// Expects a config_error whose field() is `field` and whose message names it.
template <class F>
void check_config_error(F&& f, const std::string& field) {
  CHECK_THROWS_AS(f(), config_error);
  bool thrown = false;
  try {
    f();
  } catch (const config_error& e) {
    thrown = true;
    CHECK(e.field() == field);
    CHECK(std::string(e.what()).find(field) != std::string::npos);
  }
  CHECK_MESSAGE(thrown, "expected config_error for " << field);
}

}  // namespace

TEST_CASE("The Stratum design point reproduces every stratum.logic row of numbers.md") {
  const logic_die_params<> p;
  const auto r = evaluate(p, bw_fast);

  // stratum.logic.power_cap_W = 45, exact [Stratum §6.2.1, HotSpot]
  CHECK(watts(r.p_peak) == 45.0);
  // stratum.logic.area_budget_mm2 = 82.05 ± 0.5 % [Stratum §6.2.2: 121 − 23.94 − 14.80 − 0.21]
  CHECK(mm2(r.a_processor_budget) == doctest::Approx(82.05).epsilon(0.005));
  // stratum.logic.macs = 64000, exact [Stratum Table 3]
  CHECK(r.n_mac == 64000.0);
  // stratum.logic.peak_tflops = 128 ± 1 % [Stratum Table 3]
  CHECK(peak_throughput(p).in(units::Tflops) == doctest::Approx(128.0).epsilon(0.01));
  CHECK(r.peak_throughput.in(units::Tflops) == doctest::Approx(128.0).epsilon(0.01));
  // stratum.logic.active_area_mm2 = 76.63 ± 2 % [Stratum Table 3]
  CHECK(mm2(r.a_active) == doctest::Approx(76.63).epsilon(0.02));
  // stratum.logic.area_utilization = 0.63 ± 2 % [Stratum Table 3: 63 % of the die]
  CHECK(r.utilization == doctest::Approx(0.63).epsilon(0.02));
  // stratum.logic.peak_power_W = 42.67 ± 2 % [Stratum Table 3]
  CHECK(watts(r.p_logic) == doctest::Approx(42.67).epsilon(0.02));
  // stratum.logic.max_macs_within_budget ≥ 64000 [Stratum §6.2.3: the design point fits]
  CHECK(max_macs_within_budget(p, bw_fast).n_mac >= 64000);
  // stratum.logic.tiering_table_area_fraction_of_pe = 0.001 ± 50 % [Stratum §6.2.3, Fig. 15a]
  CHECK(r.tiering_fraction_of_pe == doctest::Approx(0.001).epsilon(0.5));

  // Both within budget (Stratum §6.2.3), and the PEs take most of the area (Fig. 15a).
  CHECK(r.feasible);
  CHECK(mm2(r.a_pd) == doctest::Approx(0.21).epsilon(1e-3));
  CHECK(value_of(r.a_pe * 256.0) > 0.5 * value_of(r.a_active));
}

TEST_CASE("Each term comes from its equation, so changing a parameter moves it") {
  const logic_die_params<> p;
  const auto base = evaluate(p, bw_fast);

  SUBCASE("doubling E_mac raises peak power by exactly the MAC term N·f·E_mac") {
    auto q = p;
    q.e_mac = p.e_mac * 2.0;
    const auto r = evaluate(q, bw_fast);
    CHECK(watts(r.p_logic - base.p_logic) == doctest::Approx(64000 * 1e9 * 0.5e-12));
    CHECK(watts(r.p_mac) == doctest::Approx(2 * watts(base.p_mac)));
  }
  SUBCASE("a smaller die shrinks the processor budget by α times the area removed") {
    auto q = p;
    q.die_area = 110_mm2;
    CHECK(mm2(base.a_processor_budget - evaluate(q, bw_fast).a_processor_budget) ==
          doctest::Approx(11.0));
    q.alpha = 0.9;
    CHECK(mm2(evaluate(q, bw_fast).a_usable) == doctest::Approx(99.0));
  }
  SUBCASE("more internal bandwidth costs BW·E_b of power and more TSVs") {
    const auto r = evaluate(p, bandwidth<>(40_TBps));
    CHECK(watts(r.p_dram_access) == doctest::Approx(40e12 * 8 * 0.01e-12));
    CHECK(watts(r.p_dram_access - base.p_dram_access) ==
          doctest::Approx(watts(r.p_logic - base.p_logic)));
    CHECK(r.a_pd > base.a_pd);
  }
  SUBCASE("a stronger TSV needs proportionally less power-delivery area") {
    auto q = p;
    q.i_tsv = p.i_tsv * 2.0;
    CHECK(mm2(evaluate(q, bw_fast).a_pd) == doctest::Approx(mm2(base.a_pd) / 2));
  }
  SUBCASE("a bigger PU shared memory adds SRAM area and its misc power") {
    auto q = p;
    q.shared_memory = 4_MiB;
    const auto r = evaluate(q, bw_fast);
    CHECK(mm2(r.a_misc.shared_memory) == doctest::Approx(2 * mm2(base.a_misc.shared_memory)));
    CHECK(watts(r.p_misc.shared_memory) == doctest::Approx(2 * watts(base.p_misc.shared_memory)));
    CHECK(r.a_active > base.a_active);
  }
  SUBCASE("a deeper bank widens the tiering table's start rows") {
    auto q = p;
    q.bank_capacity = 256_MiB;  // 2^18 rows of 1 KiB: one more start-row bit per entry
    CHECK(evaluate(q, bw_fast).a_misc.tiering_table > base.a_misc.tiering_table);
  }
}

TEST_CASE("A tiny die with round numbers matches Eq. 1-3 worked by hand") {
  logic_die_params<> p;
  p.die_area = 10_mm2;
  p.a_phy = 1_mm2;
  p.a_peri = 1_mm2;
  p.alpha = 1.0;
  p.p_peak = 1_W;
  p.f_logic = 1_GHz;
  p.n_mac = 100;
  p.e_mac = 1_pJ;
  p.e_b = 0.1_pJ_per_bit;
  p.p_misc_per_mm2 = 1000_W_per_mm2;
  p.a_mac = 100_um2;
  p.v_dram_core = 1_V;
  p.v_dram_periph = 2_V;
  p.v_logic = 0.5_V;
  p.e_dram_core = 0.1_pJ_per_bit;
  p.e_dram_periph = 0.0_pJ_per_bit;
  p.a_tsv = 1000_um2;
  p.i_tsv = 1_A;
  p.n_pu = 1;
  p.pes_per_pu = 1;
  p.matrix_rf = 0_B;
  p.psum_buffer = 0_B;
  p.lmc_queue_entries = 0;
  p.row_size = 2_B;
  p.row_swap_rows = 2;
  p.bank_capacity = 16_B;
  p.tiers = 2;
  p.trcd_code_bits = 4;
  p.shared_memory = 0_B;
  p.sfe_lanes = 0;
  p.sfe_register_files = 0_B;
  p.ring_flit = 0_B;
  p.reduction_lanes = 0;
  p.instruction_memory = 0_B;
  p.tech.sram_bitcell_area = 1_um2;
  p.tech.sram_array_efficiency = 0.5;
  p.tech.dff_area = 1_um2;
  p.tech.xnor2_area = 1_um2;
  p.tech.and2_area = 0.5_um2;
  p.tech.placement_utilization = 1.0;

  // By hand, BW_fast = 1 TB/s = 8e12 b/s:
  //   P_dram = 8e12 b/s · 0.1 pJ/b = 0.8 W; P_mac = 100 · 1e9 /s · 1 pJ = 0.1 W.
  //   Row-swap buffer: 2 rows · 16 b · (1 µm² / 0.5) = 64 µm².
  //   Tiering table: 16 B / 2 B = 8 rows → 3 start-row bits; 2 entries · (3 + 4 + 1) bits ·
  //   1 µm² = 16 µm² of registers + 2 · 3 bits · (1 + 2·0.5) µm² = 12 µm² of comparators = 28 µm².
  //   A_misc = 92 µm²; P_misc = 1000 W/mm² · 92e-6 mm² = 0.092 W.
  //   Eq. 1: P_logic = 0.8 + 0.1 + 0.092 = 0.992 W ≤ 1 W, slack 0.008 W = 8 MACs of 1 mW.
  //   Eq. 3: I = 0.8 W / 1 V + 0 + 0.992 W / 0.5 V = 2.784 A → 2.784 TSVs → A_PD = 2784 µm².
  //   Eq. 2: budget = 10 − 1 − 1 − 0.002784 = 7.997216 mm²; active = 100·100 + 92 = 10092 µm².
  const auto r = evaluate(p, bandwidth<>(1_TBps));
  CHECK(watts(r.p_dram_access) == doctest::Approx(0.8));
  CHECK(watts(r.p_mac) == doctest::Approx(0.1));
  CHECK(r.a_misc.row_swap_buffer.in(units::um2) == doctest::Approx(64.0));
  CHECK(r.a_misc.tiering_table.in(units::um2) == doctest::Approx(28.0));
  CHECK(r.a_misc.total().in(units::um2) == doctest::Approx(92.0));
  CHECK(watts(r.p_misc.total()) == doctest::Approx(0.092));
  CHECK(watts(r.p_logic) == doctest::Approx(0.992));
  CHECK(watts(r.power_slack) == doctest::Approx(0.008));
  CHECK(r.power_headroom_macs == doctest::Approx(8.0));
  CHECK(r.i_supply.in(units::A) == doctest::Approx(2.784));
  CHECK(r.n_tsv == doctest::Approx(2.784));
  CHECK(r.a_pd.in(units::um2) == doctest::Approx(2784.0));
  CHECK(mm2(r.a_processor_budget) == doctest::Approx(7.997216));
  CHECK(r.a_active.in(units::um2) == doctest::Approx(10092.0));
  CHECK(r.peak_throughput.in(units::flops) == doctest::Approx(2e11));
  CHECK(r.a_pe.in(units::um2) == doctest::Approx(10092.0));
  CHECK(r.tiering_fraction_of_pe == doctest::Approx(28.0 / 10092.0));
  CHECK(r.feasible);
  CHECK(r.binding == "power");
  // The largest N: 8 more MACs fit the power cap (each costs 1 mW), area has room for far more.
  const auto m = max_macs_within_budget(p, bandwidth<>(1_TBps));
  CHECK(m.n_mac == 108);
  CHECK(m.binding == "power");
}

TEST_CASE("Power and area grow with N_mac and the breakdowns add up to the totals") {
  const logic_die_params<> p;
  auto prev = evaluate(p, bw_fast, 0.0);
  for (double n = 8000; n <= 128000; n += 8000) {
    const auto r = evaluate(p, bw_fast, n);
    CHECK(r.p_logic > prev.p_logic);
    CHECK(r.a_active > prev.a_active);
    CHECK(r.a_pd > prev.a_pd);
    CHECK(r.power_slack < prev.power_slack);
    CHECK(r.area_slack < prev.area_slack);
    CHECK(watts(r.p_logic) ==
          doctest::Approx(watts(r.p_dram_access + r.p_mac + r.p_misc.pe_local() +
                                r.p_misc.pu_shared())));
    CHECK(mm2(r.a_active) == doctest::Approx(mm2(r.a_macs + r.a_misc.total())));
    CHECK(mm2(r.a_misc.total()) ==
          doctest::Approx(mm2(r.a_misc.matrix_rf + r.a_misc.psum_buffer + r.a_misc.local_mc +
                              r.a_misc.tiering_table + r.a_misc.row_swap_buffer +
                              r.a_misc.shared_memory + r.a_misc.special_function +
                              r.a_misc.ring_router + r.a_misc.reduction_tree +
                              r.a_misc.controller)));
    CHECK(mm2(r.a_processor_budget) ==
          doctest::Approx(mm2(r.a_usable - r.a_phy - r.a_peri - r.a_pd)));
    prev = r;
  }
}

TEST_CASE("The MAC solver returns a feasible N whose successor is infeasible") {
  logic_die_params<> p;
  std::string binding = "power";
  SUBCASE("Stratum defaults: the power cap binds") {}
  SUBCASE("a small die: area binds") {
    p.die_area = 90_mm2;
    binding = "area";
  }
  SUBCASE("a generous cap and a tight die: area binds") {
    p.p_peak = 100_W;
    binding = "area";
  }
  SUBCASE("the closed-form root is where the smaller headroom reaches zero") {
    const auto m = max_macs_within_budget(p, bw_fast);
    const auto r = evaluate(p, bw_fast, m.n_mac_continuous);
    CHECK(std::abs(detail::min_of(r.power_headroom_macs, r.area_headroom_macs)) < 1e-6);
  }
  const auto m = max_macs_within_budget(p, bw_fast);
  REQUIRE(m.n_mac > 0);
  const auto at = evaluate(p, bw_fast, static_cast<double>(m.n_mac));
  const auto next = evaluate(p, bw_fast, static_cast<double>(m.n_mac + 1));
  CHECK(at.feasible);
  CHECK_FALSE(next.feasible);
  CHECK(m.binding == binding);
  CHECK(next.reason.find("infeasible: " + binding) == 0);
  CHECK(m.n_mac_continuous == doctest::Approx(static_cast<double>(m.n_mac)).epsilon(1e-4));
}

TEST_CASE("A die where nothing fits is an infeasible result with zero MACs, not an error") {
  logic_die_params<> p;
  p.p_peak = 1_W;  // the DRAM-access term alone is 2.4 W
  const auto r = evaluate(p, bw_fast);
  CHECK_FALSE(r.feasible);
  CHECK(r.reason.find("infeasible: power") == 0);
  const auto m = max_macs_within_budget(p, bw_fast);
  CHECK(m.n_mac == 0);
  CHECK(m.binding == "power");

  p = {};
  p.a_phy = 110_mm2;  // PHY + periphery exceed the die
  const auto r2 = evaluate(p, bw_fast);
  CHECK_FALSE(r2.feasible);
  CHECK(r2.reason.find("area") != std::string::npos);
  CHECK(max_macs_within_budget(p, bw_fast).n_mac == 0);
}

TEST_CASE("Autodiff sensitivities equal the analytic value and a central difference") {
  using ad = decltype(boost::math::differentiation::make_fvar<double, 1>(0.0));
  const logic_die_params<> p;
  const double n = p.n_mac;

  SUBCASE("d(peak power)/d(E_mac) = N_mac·f_logic") {
    logic_die_params<ad> q;
    q.e_mac = energy<ad>::from_si(boost::math::differentiation::make_fvar<double, 1>(p.e_mac.si()));
    const auto r = evaluate(q, bandwidth<ad>(bw_fast), ad(n));
    const double d_ad = r.p_logic.si().derivative(1);
    const double analytic = n * p.f_logic.si();
    const double h = 1e-6 * p.e_mac.si();
    auto lo = p, hi = p;
    lo.e_mac = energy<>::from_si(p.e_mac.si() - h);
    hi.e_mac = energy<>::from_si(p.e_mac.si() + h);
    const double fd = (evaluate(hi, bw_fast).p_logic.si() - evaluate(lo, bw_fast).p_logic.si()) /
                      (2 * h);
    CHECK(d_ad == doctest::Approx(analytic).epsilon(1e-6));
    CHECK(d_ad == doctest::Approx(fd).epsilon(1e-6));
    CHECK(value_of(r.p_logic.si()) == doctest::Approx(evaluate(p, bw_fast).p_logic.si()));
  }
  SUBCASE("d(area slack)/d(A_mac) counts the MACs, the MAC-equivalent misc logic and its TSVs") {
    logic_die_params<ad> q;
    q.a_mac = area<ad>::from_si(boost::math::differentiation::make_fvar<double, 1>(p.a_mac.si()));
    const auto r = evaluate(q, bandwidth<ad>(bw_fast), ad(n));
    const double d_ad = r.area_slack.si().derivative(1);
    // A_misc holds k MAC-equivalents: per PU the SFE lanes plus FP16 adders (a fraction of a
    // MAC) in the aggregator (one per flit element) and the reduction tree.
    const double k =
        p.n_pu * (p.sfe_lanes + p.tech.fp16_add_area_fraction *
                                    (32.0 * 8 / 16 + (p.pes_per_pu - 1) * p.reduction_lanes));
    // Misc power grows with misc area, and its current needs TSVs (Eq. 3).
    const double dpmisc = p.p_misc_per_mm2.si() * k;
    const double analytic =
        -(n + k) - p.a_tsv.si() * dpmisc / (p.v_logic.si() * p.i_tsv.si());
    const double h = 1e-6 * p.a_mac.si();
    auto lo = p, hi = p;
    lo.a_mac = area<>::from_si(p.a_mac.si() - h);
    hi.a_mac = area<>::from_si(p.a_mac.si() + h);
    const double fd =
        (evaluate(hi, bw_fast).area_slack.si() - evaluate(lo, bw_fast).area_slack.si()) / (2 * h);
    CHECK(d_ad == doctest::Approx(analytic).epsilon(1e-6));
    CHECK(d_ad == doctest::Approx(fd).epsilon(1e-6));
  }
}

TEST_CASE("Bad parameters raise config_error naming the field") {
  const logic_die_params<> good;
  SUBCASE("negative die area") {
    auto p = good;
    p.die_area = area<>::from_si(-1e-6);
    check_config_error([&] { evaluate(p, bw_fast); }, "die_area");
  }
  SUBCASE("NaN E_mac") {
    auto p = good;
    p.e_mac = energy<>::from_si(std::numeric_limits<double>::quiet_NaN());
    check_config_error([&] { evaluate(p, bw_fast); }, "e_mac");
    check_config_error([&] { (void)peak_throughput(p); }, "e_mac");
    check_config_error([&] { (void)max_macs_within_budget(p, bw_fast); }, "e_mac");
  }
  SUBCASE("zero frequency") {
    auto p = good;
    p.f_logic = 0_GHz;
    check_config_error([&] { (void)peak_throughput(p); }, "f_logic");
  }
  SUBCASE("alpha outside (0, 1]") {
    auto p = good;
    p.alpha = 0.0;
    check_config_error([&] { validate(p); }, "alpha");
    p.alpha = 1.5;
    check_config_error([&] { evaluate(p, bw_fast); }, "alpha");
  }
  SUBCASE("zero I_TSV") {
    auto p = good;
    p.i_tsv = 0_A;
    check_config_error([&] { (void)power_delivery_area(p, bw_fast, power<>(40_W)); }, "i_tsv");
  }
  SUBCASE("a bad technology figure is named by its path") {
    auto p = good;
    p.tech.sram_array_efficiency = 0.0;
    check_config_error([&] { evaluate(p, bw_fast); }, "tech.sram_array_efficiency");
  }
  SUBCASE("bad inputs of the functions") {
    check_config_error([&] { evaluate(good, bandwidth<>::from_si(-1.0)); }, "bw_fast");
    check_config_error([&] { evaluate(good, bw_fast, -1.0); }, "n_mac");
    check_config_error(
        [&] { evaluate(good, bw_fast, std::numeric_limits<double>::quiet_NaN()); }, "n_mac");
  }
}

TEST_CASE("Parameters round-trip through JSON and a wrong unit is rejected by field") {
  logic_die_params<> p;
  p.shared_memory = 1_MiB;
  p.tech.dff_area = 0.3_um2;
  const json j = p;
  CHECK(j.at("p_peak") == "45 W");
  CHECK(j.get<logic_die_params<>>() == p);

  const auto partial = json::parse(R"({"die_area": "100 mm2", "tech": {"dff_area": "0.5 um2"}})")
                           .get<logic_die_params<>>();
  CHECK(mm2(partial.die_area) == doctest::Approx(100.0));
  CHECK(partial.tech.dff_area.in(units::um2) == doctest::Approx(0.5));
  CHECK(partial.a_phy == logic_die_params<>{}.a_phy);

  check_config_error([] { (void)json::parse(R"({"p_peak": "45 mm2"})").get<logic_die_params<>>(); },
                     "p_peak");
  check_config_error([] { (void)json::parse(R"({"p_peek": "45 W"})").get<logic_die_params<>>(); },
                     "p_peek");

  // The result serialises with its breakdown.
  const json out = evaluate(logic_die_params<>{}, bw_fast);
  CHECK(out.at("feasible") == true);
  CHECK(out.at("a_misc").contains("tiering_table"));
  CHECK(out.at("p_misc").contains("shared_memory"));
  const json m = max_macs_within_budget(logic_die_params<>{}, bw_fast);
  CHECK(m.at("binding") == "power");
}

TEST_CASE("the row-swap buffer holds rows of the Mono3D page the device model streams") {
  // One story for the row: the logic die buffers the same 4 KiB page (32 MATs × 1024 BL) that
  // each bank delivers per access in the device model.
  CHECK(logic_die_params<>{}.row_size == mono3d_params<>{}.bank_access_bytes);
}

TEST_CASE("the logic die has one PE per Mono3D bank, and banks of the device model's size") {
  const logic_die_params<> lp;
  const mono3d_params<> mp;
  CHECK(lp.n_pu * lp.pes_per_pu == mp.banks);
  // A bank is 1024 MATs × 1024 BL × 1024 layers = 1 Gib.
  CHECK(lp.bank_capacity.si() == doctest::Approx((mat_capacity(mp) * double(mp.mats_per_bank)).si()));
}
