// Tests of the 7 nm logic technology figures (tech/logic_7nm.hpp).
#include "strata/tech/logic_7nm.hpp"

#include <doctest/doctest.h>

#include <boost/math/differentiation/autodiff.hpp>  // make_fvar

#include <string>  // std::string

#include "strata/core/json.hpp"

using namespace strata;
using namespace strata::literals;

TEST_CASE("Published cell figures are the defaults") {
  const logic_7nm_params<> t;
  // [Chang et al., ISSCC 2017: 0.027 µm² HD 6T cell]
  CHECK(t.sram_bitcell_area.in(units::um2) == doctest::Approx(0.027));
  // [ASAP7 asap7sc7p5t SEQ/SIMPLE RVT: DFFHQNx1 0.2916, XNOR2x2 0.16038, AND2x2 0.08748 µm²]
  CHECK(t.dff_area.in(units::um2) == doctest::Approx(0.2916));
  CHECK(t.xnor2_area.in(units::um2) == doctest::Approx(0.16038));
  CHECK(t.and2_area.in(units::um2) == doctest::Approx(0.08748));
}

TEST_CASE("Block areas follow capacity and cell counts") {
  const logic_7nm_params<> t;
  SUBCASE("SRAM: bits times the cell over the array efficiency") {
    // 1 Mib · 0.027 µm² / 0.70 = 0.040447 mm², i.e. 24.7 Mib/mm².
    CHECK(sram_area(t, 1048576.0).in(units::mm2) == doctest::Approx(1048576 * 0.027e-6 / 0.70));
    CHECK(sram_area(t, 2048.0).si() == doctest::Approx(2 * sram_area(t, 1024.0).si()));
  }
  SUBCASE("registers and comparators: cells over the placement utilisation") {
    CHECK(register_area(t, 100.0).in(units::um2) == doctest::Approx(100 * 0.2916 / 0.70));
    CHECK(comparator_area(t, 17.0).in(units::um2) ==
          doctest::Approx(17 * (0.16038 + 2 * 0.08748) / 0.70));
  }
  SUBCASE("derivatives with autodiff") {
    using ad = decltype(boost::math::differentiation::make_fvar<double, 1>(0.0));
    logic_7nm_params<ad> a;
    a.sram_array_efficiency = boost::math::differentiation::make_fvar<double, 1>(0.70);
    const auto s = sram_area(a, ad(1000.0));
    // d(bits·A/η)/dη = −bits·A/η²
    CHECK(s.si().derivative(1) == doctest::Approx(-1000 * 0.027e-12 / (0.70 * 0.70)));
  }
}

TEST_CASE("Bad technology figures raise config_error naming the field") {
  logic_7nm_params<> t;
  SUBCASE("zero bit cell") {
    t.sram_bitcell_area = 0_um2;
    CHECK_THROWS_WITH_AS(validate(t), doctest::Contains("tech.sram_bitcell_area"), config_error);
  }
  SUBCASE("efficiency above one") {
    t.placement_utilization = 1.2;
    CHECK_THROWS_WITH_AS((void)register_area(t, 1.0), doctest::Contains("placement_utilization"),
                         config_error);
  }
}

TEST_CASE("Technology figures round-trip through JSON") {
  logic_7nm_params<> t;
  t.dff_area = 0.3_um2;
  const json j = t;
  CHECK(j.get<logic_7nm_params<>>() == t);
  CHECK_THROWS_AS((void)json::parse(R"({"dff_area": "0.3 W"})").get<logic_7nm_params<>>(),
                  config_error);
}
