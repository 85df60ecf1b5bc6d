#include "strata/device/mono3d.hpp"

#include <doctest/doctest.h>

#include <boost/math/differentiation/autodiff.hpp>

#include "strata/core/json.hpp"
#include "strata/device/logic_die.hpp"
#include "strata/device/mono3d_calibration.hpp"
#include "strata/device/rc_ladder.hpp"

using namespace strata;
using namespace strata::literals;
using doctest::Approx;

namespace {
// The exact discretised ladder of one layer's word line, built from the same parameters.
rc_line ladder_of(const mono3d_params<>& p, int layer) {
  const auto x = p.staircase_step * double(layer + 1);
  const auto la = p.bl_pitch * double(p.bitlines_per_mat);
  return rc_line{p.driver_resistance,
                 {{p.wl_resistance * x, p.wl_capacitance * x, 200},
                  {p.wl_resistance * la, p.wl_capacitance * la + p.cell_load * double(p.bitlines_per_mat), 200}},
                 {}};
}
}  // namespace

TEST_CASE("the default 1024-layer chip reproduces the Stratum device rows") {
  const mono3d_params<> p;
  const auto r = evaluate(p);
  // stratum.device.tiers: 8 tiers (Stratum §6.2.1), exact.
  CHECK(r.tiers.size() == 8);
  // stratum.device.fast_slow_latency_ratio_1024: 1.6 ± 3 % (Stratum §6.2 Fig. 14).
  CHECK(r.fast_slow_latency_ratio == Approx(1.6).epsilon(0.03));
  // stratum.device.latency_vs_layer_r2_1024: ≥ 0.98 (Fig. 14, "almost linearly").
  CHECK(latency_vs_layer_r2(p) >= 0.98);
  // stratum.device.internal_bw_slowest/fastest_tier_TBps: 19.01 / 30.34 ± 2 % (Stratum §6.1).
  CHECK(r.tiers.back().internal_bandwidth.in(units::TBps) == Approx(19.01).epsilon(0.02));
  CHECK(r.tiers.front().internal_bandwidth.in(units::TBps) == Approx(30.34).epsilon(0.02));
  // stratum.device.chip_capacity_GB: 32 ± 1 % (binary, DRAM convention).
  CHECK(r.capacity.in(units::GiB) == Approx(32.0).epsilon(0.01));
  // stratum.device.density_Gb_per_mm2: 2.156 ± 2 %.
  CHECK(r.density.in(units::Gib_per_mm2) == Approx(2.156).epsilon(0.02));
  // stratum.device.density_vs_ddr5_32Gb: 5.2 ± 3 %.
  CHECK(r.density / density(dram_die_reference<>{}) == Approx(5.2).epsilon(0.03));
  // The memory die is hybrid-bonded onto the 121 mm² logic die (Stratum §6.2.2): it must fit.
  CHECK(r.die_area.in(units::mm2) <= 121.0);
}

TEST_CASE("the calibrated staircase step is what the solver finds for a 1.6x tier spread") {
  const mono3d_params<> p;
  const auto s = solve_staircase_step(p, 1.6);
  CHECK(s.in(units::um) == Approx(p.staircase_step.in(units::um)).epsilon(1e-3));
  mono3d_params<> q = p;
  q.staircase_step = s;
  CHECK(evaluate(q).fast_slow_latency_ratio == Approx(1.6).epsilon(1e-9));
}

TEST_CASE("the closed-form word-line delay agrees with the exact RC ladder") {
  const mono3d_params<> p;
  for (int layer : {0, 127, 511, 1023}) {
    CAPTURE(layer);
    const auto d = word_line_delay(p, layer);
    const rc_ladder lad(ladder_of(p, layer));
    SUBCASE("Elmore delay equals the ladder's first moment") {
      // The π-discretisation preserves the first moment exactly up to rounding.
      CHECK(d.elmore.si() == Approx(lad.elmore().si()).epsilon(1e-6));
    }
    SUBCASE("the 50 % estimate is within 3 % of the exact 50 % crossing") {
      // Sakurai/Bakoglu weights (0.69 lumped, 0.38 distributed) are accurate to a few percent.
      CHECK(d.t50.si() == Approx(lad.crossing().si()).epsilon(0.03));
    }
    SUBCASE("Elmore bounds the 50 % delay from above") {
      // Gupta et al., IEEE TCAD 1997: the Elmore delay is an upper bound on the 50 % delay of
      // an RC tree driven by a step.
      CHECK(lad.crossing().si() <= d.elmore.si());
    }
  }
}

TEST_CASE("a hand-worked three-element word line gives the Elmore sum") {
  // 1 kΩ driver, staircase 10 µm and array 5 µm at 100 Ω/µm and 0.2 fF/µm, 10 cells of 1 fF.
  mono3d_params<> p;
  p.layers = 10;
  p.tiers = 1;
  p.bitlines_per_mat = 10;
  p.bl_pitch = 0.5_um;
  p.staircase_step = 1_um;
  p.wl_resistance = 100.0_ohm_per_um;
  p.wl_capacitance = 0.2_fF_per_um;
  p.cell_load = 1_fF;
  p.driver_resistance = 1_kohm;
  // Layer 9: x = 10 µm → Rs = 1 kΩ, Cs = 2 fF; La = 5 µm → Ra = 500 Ω, Ca = 1 + 10 = 11 fF.
  // τ = 1k·13f + 1k·(1f + 11f) + 500·11f/2 = 13 + 12 + 2.75 = 27.75 ps.
  // t50 = 0.69·(1k·13f + 1k·11f) + 0.38·(1k·2f + 500·11f) = 16.56 + 2.85 = 19.41 ps.
  const auto d = word_line_delay(p, 9);
  CHECK(d.elmore.in(units::ps) == Approx(27.75).epsilon(1e-9));
  CHECK(d.t50.in(units::ps) == Approx(19.41).epsilon(1e-9));
  CHECK(d.staircase.in(units::um) == Approx(10.0).epsilon(1e-12));
}

TEST_CASE("latency grows with the layer and tiers are ordered fastest first") {
  const mono3d_params<> p;
  const auto prof = latency_profile(p);
  REQUIRE(prof.size() == 1024);
  for (std::size_t i = 1; i < prof.size(); ++i) CHECK(prof[i - 1] < prof[i]);
  const auto r = evaluate(p);
  for (std::size_t k = 1; k < r.tiers.size(); ++k) {
    CHECK(r.tiers[k - 1].access_latency < r.tiers[k].access_latency);
    CHECK(r.tiers[k - 1].internal_bandwidth > r.tiers[k].internal_bandwidth);
  }
  // Access latency = DDR5 tRCD + WL delay + tCL (Stratum §2.1).
  const auto& t0 = r.tiers.front();
  CHECK(t0.access_latency.in(units::ns) ==
        Approx((p.base.t_rcd + word_line_delay(p, t0.last_layer).t50 + p.base.t_cl).in(units::ns)));
}

TEST_CASE("any layer count from 32 to 1024 and any tier count partitions the layers") {
  for (int layers : {32, 33, 64, 100, 256, 512, 777, 1024}) {
    for (int tiers : {1, 2, 3, 7, 8, 16, 32}) {
      if (tiers > layers) continue;
      CAPTURE(layers);
      CAPTURE(tiers);
      mono3d_params<> p;
      p.layers = layers;
      p.tiers = tiers;
      const auto r = evaluate(p);
      REQUIRE(r.tiers.size() == static_cast<std::size_t>(tiers));
      int next = 0, min_rows = layers, max_rows = 0;
      data_size<> sum{};
      for (const auto& t : r.tiers) {
        CHECK(t.first_layer == next);
        next = t.last_layer + 1;
        const int rows = t.last_layer - t.first_layer + 1;
        min_rows = std::min(min_rows, rows);
        max_rows = std::max(max_rows, rows);
        sum += t.capacity;
      }
      CHECK(next == layers);
      CHECK(max_rows - min_rows <= 1);  // equal rows per tier, as near as the count allows
      CHECK(sum.si() == Approx(r.capacity.si()));  // capacity is conserved over tiers
      CHECK(r.fast_slow_latency_ratio >= 1.0);
    }
  }
}

TEST_CASE("more layers give more capacity per area and a wider latency spread") {
  double last_density = 0.0, last_ratio = 0.0;
  for (int layers : {64, 128, 256, 512, 1024}) {
    mono3d_params<> p;
    p.layers = layers;
    const auto r = evaluate(p);
    CHECK(r.density.si() > last_density);
    CHECK(r.fast_slow_latency_ratio > last_ratio);
    last_density = r.density.si();
    last_ratio = r.fast_slow_latency_ratio;
  }
}

TEST_CASE("the 512-layer prediction is a spread between 1 and the 1024-layer spread") {
  mono3d_params<> p;
  p.layers = 512;
  const double r512 = evaluate(p).fast_slow_latency_ratio;
  CHECK(r512 > 1.0);
  CHECK(r512 < evaluate(mono3d_params<>{}).fast_slow_latency_ratio);
}

TEST_CASE("memory_tiers exposes the chip in the shared tier vocabulary") {
  const mono3d_params<> p;
  const auto r = evaluate(p);
  const auto ts = memory_tiers(p, r);
  REQUIRE(ts.size() == 8);
  CHECK(ts[0].name == "mono3d.tier0");
  CHECK(ts[7].latency == r.tiers[7].access_latency);
  CHECK(ts[3].bandwidth == r.tiers[3].internal_bandwidth);
  for (const auto& t : ts) CHECK_NOTHROW(validate(t));
}

TEST_CASE("tier latency derivatives from autodiff match finite differences") {
  using boost::math::differentiation::make_fvar;
  using F = boost::math::differentiation::autodiff_v1::detail::fvar<double, 1>;
  const mono3d_params<> p0;
  const double s0 = p0.staircase_step.in(units::um);
  SUBCASE("d(slowest tier latency)/d(staircase step)") {
    mono3d_params<F> p;
    p.staircase_step = units::um(make_fvar<double, 1>(s0));
    const auto r = evaluate(p);
    const double ad = r.tiers.back().access_latency.in(units::ns).derivative(1);
    const double h = 1e-4;
    auto at = [&](double s) {
      mono3d_params<> q;
      q.staircase_step = units::um(s);
      return evaluate(q).tiers.back().access_latency.in(units::ns);
    };
    CHECK(ad == Approx((at(s0 + h) - at(s0 - h)) / (2 * h)).epsilon(1e-6));
    CHECK(ad > 0.0);
  }
  SUBCASE("d(fastest tier bandwidth)/d(WL resistance) is negative") {
    mono3d_params<F> p;
    p.wl_resistance = units::ohm_per_um(make_fvar<double, 1>(98.0));
    const double ad = evaluate(p).tiers.front().internal_bandwidth.in(units::TBps).derivative(1);
    const double h = 1e-3;
    auto at = [&](double rr) {
      mono3d_params<> q;
      q.wl_resistance = units::ohm_per_um(rr);
      return evaluate(q).tiers.front().internal_bandwidth.in(units::TBps);
    };
    CHECK(ad == Approx((at(98.0 + h) - at(98.0 - h)) / (2 * h)).epsilon(1e-6));
    CHECK(ad < 0.0);
  }
}

TEST_CASE("changing a parameter changes the device numbers") {
  const auto base = evaluate(mono3d_params<>{});
  mono3d_params<> p;
  p.cell_depth = p.cell_depth * 2.0;
  CHECK(evaluate(p).density.si() == Approx(base.density.si() / 2.0));
  mono3d_params<> q;
  q.staircase_step = 0_um;
  CHECK(evaluate(q).fast_slow_latency_ratio < 1.01);  // no staircase, almost no spread
}

TEST_CASE("bad device parameters raise config_error naming the field") {
  auto throws_on = [](mono3d_params<> p, const char* field) {
    CAPTURE(field);
    try {
      (void)evaluate(p);
      FAIL("no config_error");
    } catch (const config_error& e) {
      CHECK(e.field() == field);
      CHECK(std::string(e.what()).find(field) != std::string::npos);
    }
  };
  mono3d_params<> p;
  SUBCASE("negative layer count") {
    p.layers = -1;
    throws_on(p, "layers");
  }
  SUBCASE("zero tiers") {
    p.tiers = 0;
    throws_on(p, "tiers");
  }
  SUBCASE("more tiers than layers") {
    p.layers = 32;
    p.tiers = 33;
    throws_on(p, "tiers");
  }
  SUBCASE("NaN wire resistance") {
    p.wl_resistance = units::ohm_per_um(std::nan(""));
    throws_on(p, "wl_resistance");
  }
  SUBCASE("array efficiency above one") {
    p.array_efficiency = 1.5;
    throws_on(p, "array_efficiency");
  }
  SUBCASE("zero base tRCD") {
    p.base.t_rcd = 0_ns;
    throws_on(p, "base.t_rcd");
  }
  SUBCASE("a layer outside the stack") {
    CHECK_THROWS_AS((void)word_line_delay(mono3d_params<>{}, 1024), config_error);
  }
}

TEST_CASE("device parameters round-trip through JSON and reject wrong types and units") {
  const mono3d_params<> p;
  const json j = p;
  CHECK(j.at("staircase_step").get<std::string>().find(" m") != std::string::npos);
  CHECK(j.get<mono3d_params<>>() == p);
  SUBCASE("a human-written file with units") {
    const auto q = json::parse(R"({"layers": 512, "staircase_step": "1.2 um", "wl_resistance": "80 ohm/um",
                                   "base": {"t_rcd": "14.375 ns"}})")
                       .get<mono3d_params<>>();
    CHECK(q.layers == 512);
    CHECK(q.staircase_step.in(units::um) == Approx(1.2));
    CHECK(q.base.t_rcd.in(units::ns) == Approx(14.375));
    CHECK(q.tiers == 8);  // missing keys keep their cited defaults
  }
  SUBCASE("a wrong unit names the field") {
    try {
      (void)json::parse(R"({"staircase_step": "1.2 ns"})").get<mono3d_params<>>();
      FAIL("no config_error");
    } catch (const config_error& e) {
      CHECK(e.field() == "staircase_step");
    }
  }
  SUBCASE("a wrong type names the nested field") {
    try {
      (void)json::parse(R"({"base": {"t_cl": 16}})").get<mono3d_params<>>();
      FAIL("no config_error");
    } catch (const config_error& e) {
      CHECK(e.field() == "base.t_cl");
    }
  }
  SUBCASE("a string layer count is rejected") {
    CHECK_THROWS_AS((void)json::parse(R"({"layers": "1024"})").get<mono3d_params<>>(), config_error);
  }
}

TEST_CASE("the Mono3D access energy is the sum the logic-die budget splits") {
  // DRAM core + high-voltage periphery + hybrid bond (logic_die_params e_dram_core, e_dram_periph,
  // e_b): one story for the energy of a byte read from the arrays.
  const logic_die_params<> lp;
  const mono3d_params<> p;
  CHECK(access_energy(p.energy).in(units::pJ_per_bit) ==
        Approx((lp.e_dram_core + lp.e_dram_periph + lp.e_b).in(units::pJ_per_bit)));
  CHECK(memory_core_energy(p.energy).si() == Approx(lp.e_dram_core.si()).epsilon(1e-12));
  CHECK(memory_periphery_energy(p.energy).si() == Approx(lp.e_dram_periph.si()).epsilon(1e-12));
  CHECK(logic_die_energy(p.energy).si() == Approx(lp.e_b.si()).epsilon(1e-12));
}

TEST_CASE("the per-layer latency spread is wider than the per-tier spread") {
  // The tier spread compares the last layers of tiers 7 and 0 (1023 vs 127); the layer spread
  // compares layers 1023 and 0.
  const mono3d_params<> p;
  const auto prof = latency_profile(p);
  const double layer_spread = prof.back() / prof.front();
  CHECK(layer_spread > evaluate(p).fast_slow_latency_ratio);
  CHECK(layer_spread == Approx(1.686).epsilon(0.002));
}

TEST_CASE("the staircase strip charging itself is 41 % of the deepest layer's delay") {
  const mono3d_params<> p;
  const auto d = word_line_delay(p, p.layers - 1);
  // 0.38·R_s·C_s with R_s = 98 Ω/µm · 1134.6 µm, C_s = 0.2 fF/µm · 1134.6 µm.
  const double x_um = p.staircase_step.in(units::um) * 1024.0;
  const double q_ns = 0.38 * (98.0 * x_um) * (0.2e-15 * x_um) * 1e9;
  CHECK(d.quadratic.in(units::ns) == Approx(q_ns).epsilon(1e-9));
  CHECK(staircase_quadratic_share(p) == Approx(q_ns / d.t50.in(units::ns)).epsilon(1e-12));
  CHECK(staircase_quadratic_share(p) == Approx(0.4086).epsilon(0.002));
  CHECK(evaluate(p).staircase_quadratic_share == staircase_quadratic_share(p));
  // Fewer layers: a shorter staircase, a smaller quadratic share.
  mono3d_params<> q;
  q.layers = 512;
  CHECK(staircase_quadratic_share(q) < staircase_quadratic_share(p));
}

TEST_CASE("a wider staircase strip is more convex at the same tier spread, not less") {
  // r_s·c_s is width-independent while the linear term falls: re-fitting the step to 1.6×
  // raises the quadratic share and lowers R² below the 0.98 row (file comment).
  mono3d_params<> p;
  p.staircase_width = p.feature_size * 2.0;
  p.staircase_step = solve_staircase_step(p, 1.6);
  CHECK(evaluate(p).fast_slow_latency_ratio == Approx(1.6).epsilon(1e-6));
  CHECK(staircase_quadratic_share(p) == Approx(0.598).epsilon(0.01));
  CHECK(staircase_quadratic_share(p) > staircase_quadratic_share(mono3d_params<>{}));
  CHECK(latency_vs_layer_r2(p) < 0.98);
  // Same width, same delay: R_s and C_s scale by F/w and w/F.
  mono3d_params<> a, b;
  b.staircase_width = a.feature_size * 3.0;
  b.wl_resistance = a.wl_resistance;
  const auto da = word_line_delay(a, 500), db = word_line_delay(b, 500);
  CHECK(db.quadratic.si() == Approx(da.quadratic.si()).epsilon(1e-12));
  CHECK(db.t50 < da.t50);  // the linear R_s·C_a term falls by 3×
}

TEST_CASE("the row-cycle bandwidth is an option beside the paper's latency-based one") {
  const mono3d_params<> p;
  const auto r = evaluate(p);
  const double page = 256.0 * 4096.0;
  for (const auto& t : r.tiers) {
    CAPTURE(t.index);
    const double wl = (t.t_rcd - p.base.t_rcd).si();
    // tRC(i) = tRAS + tRP + 2·t_WL(i): the WL's rise in the activation, its fall in the precharge.
    CHECK(t.t_rc.si() == Approx(32e-9 + 16.25e-9 + 2.0 * wl).epsilon(1e-12));
    CHECK(t.latency_bandwidth.si() == Approx(page / t.access_latency.si()).epsilon(1e-12));
    CHECK(t.row_cycle_bandwidth.si() == Approx(page / t.t_rc.si()).epsilon(1e-12));
    CHECK(t.row_cycle_bandwidth < t.latency_bandwidth);
    CHECK(t.internal_bandwidth == t.latency_bandwidth);  // default: Stratum §6.1's derivation
  }
  // Fastest tier: 1 MiB per (48.25 + 2·2.48) ns ≈ 19.7 TB/s instead of 30.0 TB/s.
  CHECK(r.tiers.front().row_cycle_bandwidth.in(units::TBps) == Approx(19.71).epsilon(0.002));
  mono3d_params<> q;
  q.bandwidth = bandwidth_model::row_cycle;
  const auto rq = evaluate(q);
  CHECK(rq.tiers.front().internal_bandwidth == r.tiers.front().row_cycle_bandwidth);
  CHECK(memory_tiers(q, rq)[7].bandwidth == r.tiers[7].row_cycle_bandwidth);
  // Both values are in the JSON of every tier, and the option reads by name.
  const json j = r;
  CHECK(j.at("tiers").at(0).contains("latency_bandwidth"));
  CHECK(j.at("tiers").at(0).contains("row_cycle_bandwidth"));
  CHECK(json(q).at("bandwidth") == "row_cycle");
  CHECK(json::parse(R"({"bandwidth": "row_cycle"})").get<mono3d_params<>>().bandwidth ==
        bandwidth_model::row_cycle);
  CHECK_THROWS_AS((void)json::parse(R"({"bandwidth": "fastest"})").get<mono3d_params<>>(),
                  config_error);
  // A timing that makes tRC shorter than the access latency cannot raise the bandwidth above it.
  mono3d_params<> s;
  s.base.t_ras = 1_ns;
  s.base.t_rp = 1_ns;
  const auto rs = evaluate(s);
  CHECK(rs.tiers.front().row_cycle_bandwidth == rs.tiers.front().latency_bandwidth);
}

TEST_CASE("the access energy is the sum of its cited parts") {
  const dram_access_energy<> e;
  CHECK(access_energy(e).in(units::pJ_per_bit) == Approx(0.1 + 0.01 + 0.0173 + 0.0363 + 0.01));
  // Column: C_LIO·VDD² = 0.2 fF/µm × 71.68 µm × 1.1² V² (the MAT of the default chip).
  const mono3d_params<> p;
  const double lio_fF = 0.2 * p.bl_pitch.in(units::um) * p.bitlines_per_mat;
  CHECK(e.column.in(units::pJ_per_bit) == Approx(lio_fF * 1e-3 * 1.1 * 1.1).epsilon(0.002));
  // Datapath: 0.2 fF/µm × 300 µm × 1.1² V² × 1/2.
  CHECK(e.datapath.in(units::pJ_per_bit) == Approx(0.2 * 300 * 1e-3 * 1.21 * 0.5).epsilon(0.002));
  // Memory-die parts + logic-die part = the whole path; the tiers carry the whole path.
  CHECK((memory_core_energy(e) + memory_periphery_energy(e) + logic_die_energy(e)).si() ==
        Approx(access_energy(e).si()));
  CHECK(memory_tiers(p, evaluate(p))[0].energy_per_byte == access_energy(p.energy));
  dram_access_energy<> bad;
  bad.datapath = units::pJ_per_bit(-1.0);
  try {
    validate(bad);
    FAIL("no config_error");
  } catch (const config_error& e2) {
    CHECK(e2.field() == "energy.datapath");
  }
}

TEST_CASE("autodiff through the staircase share and the row-cycle bandwidth") {
  using F = boost::math::differentiation::autodiff_v1::detail::fvar<double, 1>;
  using boost::math::differentiation::make_fvar;
  const double w0 = 50.0;
  mono3d_params<F> p;
  p.staircase_width = units::nm(make_fvar<double, 1>(w0));
  p.bandwidth = bandwidth_model::row_cycle;
  const auto r = evaluate(p);
  const double ds = staircase_quadratic_share(p).derivative(1);
  const double db = r.tiers.back().internal_bandwidth.in(units::TBps).derivative(1);
  const double h = 1e-3;
  const auto at = [&](double w) {
    mono3d_params<> q;
    q.staircase_width = units::nm(w);
    q.bandwidth = bandwidth_model::row_cycle;
    return std::pair{staircase_quadratic_share(q), evaluate(q).tiers.back().internal_bandwidth.in(units::TBps)};
  };
  const auto hi = at(w0 + h), lo = at(w0 - h);
  CHECK(ds == Approx((hi.first - lo.first) / (2 * h)).epsilon(1e-5));
  CHECK(db == Approx((hi.second - lo.second) / (2 * h)).epsilon(1e-5));
  CHECK(ds > 0.0);  // a wider strip: larger quadratic share
  CHECK(db > 0.0);  // and a faster slowest tier at the same step (lower R_s·C_a)
}

TEST_CASE("a wider staircase strip agrees with the exact RC ladder as well") {
  mono3d_params<> p;
  p.staircase_width = p.feature_size * 3.0;
  const int layer = 1023;
  const auto d = word_line_delay(p, layer);
  const auto x = p.staircase_step * double(layer + 1);
  const auto la = p.bl_pitch * double(p.bitlines_per_mat);
  // The strip: R_s = r·x·F/w, C_s = c·x·w/F.
  const rc_ladder lad(rc_line{p.driver_resistance,
                              {{p.wl_resistance * x / 3.0, p.wl_capacitance * x * 3.0, 200},
                               {p.wl_resistance * la,
                                p.wl_capacitance * la + p.cell_load * double(p.bitlines_per_mat), 200}},
                              {}});
  CHECK(d.elmore.si() == Approx(lad.elmore().si()).epsilon(1e-6));
  CHECK(d.t50.si() == Approx(lad.crossing().si()).epsilon(0.03));
}
