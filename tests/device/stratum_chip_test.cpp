#include "strata/device/stratum_chip.hpp"

#include <doctest/doctest.h>

#include <boost/math/differentiation/autodiff.hpp>

#include <cmath>
#include <string>

#include "strata/core/json.hpp"
#include "support/scalars.hpp"
#include "support/common.hpp"
#include "support/field_of.hpp"

// Explicit instantiations for both scalars (STYLE rule 26): every template body of the chip,
// the access energy and the new Mono3D outputs compiles with double and autodiff.
namespace strata {
inline namespace v0 {
template struct stratum_chip_params<double>;
template struct stratum_chip_params<strata_test::fvar1>;
template stratum_chip_result<double> evaluate(const stratum_chip_params<double>&);
template stratum_chip_result<strata_test::fvar1> evaluate(const stratum_chip_params<strata_test::fvar1>&);
template struct dram_access_energy<double>;
template struct dram_access_energy<strata_test::fvar1>;
template energy_per_data<strata_test::fvar1> access_energy(const dram_access_energy<strata_test::fvar1>&);
template double staircase_quadratic_share(const mono3d_params<double>&);
template strata_test::fvar1 staircase_quadratic_share(const mono3d_params<strata_test::fvar1>&);
}  // namespace v0
}  // namespace strata

using namespace strata;
using namespace strata::literals;
using doctest::Approx;

namespace {
using strata_test::mm2;

// Expects a config_error whose field() is `field` and whose message names it.
template <class F>
void expect_field(F&& f, const std::string& field) {
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

TEST_CASE("at the default design point the chip equals the two separate evaluations") {
  const stratum_chip_params<> p;
  const auto c = evaluate(p);
  const auto mem = evaluate(p.memory);
  // The memory die is the separate Mono3D evaluation.
  CHECK(c.memory.capacity == mem.capacity);
  CHECK(c.memory.die_area == mem.die_area);
  CHECK(c.bw_fast == mem.tiers.front().internal_bandwidth);
  // The derived logic die is the default one: 8 tiers, 32 PUs of 8 PEs, 1 Gib banks, 4 KiB rows,
  // the default energies and (by the bond-edge calibration) the paper's 121 mm² die.
  const logic_die_params<> d;
  CHECK(c.logic_params.tiers == d.tiers);
  CHECK(c.logic_params.n_pu == d.n_pu);
  CHECK(c.logic_params.bank_capacity.si() == Approx(d.bank_capacity.si()).epsilon(1e-12));
  CHECK(c.logic_params.row_size.si() == Approx(d.row_size.si()).epsilon(1e-12));
  CHECK(c.logic_params.e_b.si() == Approx(d.e_b.si()).epsilon(1e-12));
  CHECK(c.logic_params.e_dram_core.si() == Approx(d.e_dram_core.si()).epsilon(1e-9));
  CHECK(c.logic_params.e_dram_periph.si() == Approx(d.e_dram_periph.si()).epsilon(1e-12));
  // stratum.chip.logic_die_area_mm2 = 121 (Stratum §6.2.2), the bond-edge fit.
  CHECK(mm2(c.logic_params.die_area) == Approx(121.0).epsilon(1e-4));
  // Eq. 1–3 then agree with evaluate(logic_die_params{}, bw_fast).
  const auto sep = evaluate(d, mem.tiers.front().internal_bandwidth);
  CHECK(c.logic.p_logic.si() == Approx(sep.p_logic.si()).epsilon(1e-9));
  CHECK(c.logic.a_processor_budget.si() == Approx(sep.a_processor_budget.si()).epsilon(1e-4));
  CHECK(c.logic.a_active.si() == Approx(sep.a_active.si()).epsilon(1e-12));
  CHECK(c.feasible == sep.feasible);
  CHECK(c.feasible);
  // The Table 3 rows hold on the coupled chip too.
  CHECK(c.logic.p_logic.in(units::W) == Approx(42.67).epsilon(0.02));
  CHECK(mm2(c.logic.a_processor_budget) == Approx(82.05).epsilon(0.005));
  CHECK(max_macs_within_budget(p).n_mac >= 64000);
}

TEST_CASE("the bond edge is the fit of the 121 mm2 logic die: +-10 % misses it") {
  // stratum.chip.logic_die_area_mm2: the die area follows (sqrt(A_mem) + 2 m)^2, so m ± 10 %
  // moves it by ≈ ±0.2 %: a 0.1 % tolerance on this fit row fails either way.
  for (double f : {0.9, 1.1}) {
    stratum_chip_params<> p;
    p.bond_edge = p.bond_edge * f;
    const double a = mm2(evaluate(p).logic_params.die_area);
    CAPTURE(f);
    CHECK(std::abs(a / 121.0 - 1.0) > 0.001);
  }
}

TEST_CASE("fewer layers give a smaller memory die, a smaller logic die and a reasoned verdict") {
  double last_mem = 1e9, last_logic = 1e9;
  for (int layers : {1024, 768, 512, 256, 64}) {
    stratum_chip_params<> p;
    p.memory.layers = layers;
    const auto c = evaluate(p);
    CAPTURE(layers);
    CHECK(mm2(c.memory.die_area) < last_mem);
    CHECK(mm2(c.logic_params.die_area) < last_logic);
    CHECK(mm2(c.logic_params.die_area) > mm2(c.memory.die_area));  // the bond edge
    last_mem = mm2(c.memory.die_area);
    last_logic = mm2(c.logic_params.die_area);
    // Bank capacity follows the layers: 1024 BL × 1024 MATs × layers bits.
    CHECK(c.logic_params.bank_capacity.in(units::bit) == Approx(1024.0 * 1024.0 * layers));
    CHECK(c.reason.find(std::to_string(layers) + " layers") != std::string::npos);
  }
  // 256 layers: the memory die is ≈35 mm², so the logic die cannot hold the 23.94 mm² PHY and
  // 14.80 mm² periphery plus the 64 000-MAC processor: infeasible, with the area named.
  stratum_chip_params<> p;
  p.memory.layers = 256;
  const auto c = evaluate(p);
  CHECK(mm2(c.memory.die_area) == Approx(35.0).epsilon(0.02));
  CHECK_FALSE(c.feasible);
  CHECK(c.reason.find("infeasible") != std::string::npos);
  CHECK(c.reason.find("area") != std::string::npos);
  CHECK(max_macs_within_budget(p).n_mac == 0);  // not even the fixed blocks fit
  // 896 layers: the fixed blocks fit and a smaller processor does.
  p.memory.layers = 896;
  const auto m = max_macs_within_budget(p);
  CHECK(m.n_mac > 0);
  CHECK(m.n_mac < 64000);
  CHECK(m.binding == "area");
}

TEST_CASE("a different tier count or bank organisation reaches the logic die") {
  stratum_chip_params<> p;
  p.memory.tiers = 4;
  p.memory.banks = 128;
  const auto c = evaluate(p);
  CHECK(c.logic_params.tiers == 4);
  CHECK(c.logic_params.n_pu == 16);  // 128 banks / 8 PEs per PU
  // Half the banks: half the fastest-tier bandwidth of a 4-tier chip with all banks.
  stratum_chip_params<> q;
  q.memory.tiers = 4;
  CHECK(c.bw_fast.si() == Approx(evaluate(q).bw_fast.si() / 2.0));
}

TEST_CASE("derived logic-die fields are not inputs: setting one is a config_error naming it") {
  stratum_chip_params<> p;
  SUBCASE("die area") {
    p.logic.die_area = 150_mm2;
    expect_field([&] { (void)evaluate(p); }, "logic.die_area");
  }
  SUBCASE("tiers") {
    p.logic.tiers = 4;
    expect_field([&] { (void)evaluate(p); }, "logic.tiers");
  }
  SUBCASE("bank capacity") {
    p.logic.bank_capacity = 64_MiB;
    expect_field([&] { (void)evaluate(p); }, "logic.bank_capacity");
  }
  SUBCASE("hybrid-bond energy") {
    p.logic.e_b = 0.05_pJ_per_bit;
    expect_field([&] { (void)evaluate(p); }, "logic.e_b");
  }
  SUBCASE("banks that do not split into channels") {
    p.memory.banks = 100;
    expect_field([&] { (void)evaluate(p); }, "logic.pes_per_pu");
  }
  SUBCASE("a bond edge of 1e300 m") {
    p.bond_edge = units::m(1e300);
    expect_field([&] { (void)evaluate(p); }, "bond_edge");
  }
  SUBCASE("a nested memory field keeps its own name") {
    p.memory.layers = 1;
    expect_field([&] { (void)evaluate(p); }, "layers");
  }
}

TEST_CASE("chip parameters and results round-trip through JSON") {
  const stratum_chip_params<> p;
  const json j = p;
  CHECK(j.at("memory").at("layers") == 1024);
  CHECK(j.at("bond_edge").get<std::string>().find(" m") != std::string::npos);
  CHECK(j.get<stratum_chip_params<>>() == p);
  const auto q = json::parse(R"({"memory": {"layers": 512}, "logic": {"n_mac": 32000}})")
                     .get<stratum_chip_params<>>();
  CHECK(q.memory.layers == 512);
  CHECK(q.logic.n_mac == 32000);
  const json r = evaluate(q);
  CHECK(r.at("memory").at("tiers").size() == 8);
  CHECK(r.contains("bw_fast"));
  CHECK(r.at("logic_params").contains("die_area"));
  CHECK(r.at("feasible").is_boolean());
  CHECK(r.at("reason").get<std::string>().find("512 layers") != std::string::npos);
}

TEST_CASE("chip derivatives from autodiff match finite differences") {
  using strata_test::fvar1;
  using strata_test::make_fvar;
  // d(logic power)/d(staircase step): a longer staircase slows the fastest tier, lowers BW_fast
  // and with it Eq. 1's BW·E_b term; d(logic die area)/d(staircase step) > 0.
  const double s0 = stratum_chip_params<>{}.memory.staircase_step.in(units::um);
  stratum_chip_params<fvar1> p;
  p.memory.staircase_step = units::um(make_fvar<double, 1>(s0));
  const auto c = evaluate(p);
  const double dp = c.logic.p_logic.in(units::W).derivative(1);
  const double da = c.logic_params.die_area.in(units::mm2).derivative(1);
  const double h = 1e-4;
  const auto at = [&](double s) {
    stratum_chip_params<> q;
    q.memory.staircase_step = units::um(s);
    return evaluate(q);
  };
  const auto hi = at(s0 + h), lo = at(s0 - h);
  CHECK(dp == Approx((hi.logic.p_logic.in(units::W) - lo.logic.p_logic.in(units::W)) / (2 * h))
                  .epsilon(1e-5));
  CHECK(da == Approx((mm2(hi.logic_params.die_area) - mm2(lo.logic_params.die_area)) / (2 * h))
                  .epsilon(1e-5));
  CHECK(dp < 0.0);
  CHECK(da > 0.0);
  CHECK(c.feasible);
}

TEST_CASE("with_macs_sized_to_budget: a chip of fewer layers gets the processor its smaller logic die admits") {
  // 896 layers: Table 3's 64 000 MACs do not fit the smaller die; sized, the chip is feasible, at
  // the largest count (one more MAC breaks the binding constraint).
  stratum_chip_params<> p;
  p.memory.layers = 896;
  CHECK_FALSE(evaluate(p).feasible);
  const auto sized = with_macs_sized_to_budget(p);
  CHECK(sized.memory.layers == 896);
  CHECK(sized.logic.n_mac > 0);
  CHECK(sized.logic.n_mac < 64000);
  CHECK(evaluate(sized).feasible);
  auto one_more = sized;
  ++one_more.logic.n_mac;
  CHECK_FALSE(evaluate(one_more).feasible);
  // The paper's chip is left with at least its 64 000 (its budget has room).
  CHECK(with_macs_sized_to_budget(stratum_chip_params<>{}).logic.n_mac >= 64000);
  // 256 layers: not even the fixed blocks fit, and the error names the field.
  p.memory.layers = 256;
  CHECK(strata_test::field_of([&] { (void)with_macs_sized_to_budget(p); }) == "logic.n_mac");
}
