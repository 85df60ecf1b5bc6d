#include "strata/stratum/nmp.hpp"

#include <doctest/doctest.h>

#include <boost/math/differentiation/autodiff.hpp>

#include "strata/core/json.hpp"
#include "support/field_of.hpp"
#include "support/scalars.hpp"

// Both scalars compile through the whole device derivation (STYLE rule 26).
namespace strata {
inline namespace v0 {
template struct nmp_params<double>;
template struct nmp_params<strata_test::fvar1>;
template nmp_device<double> evaluate(const nmp_params<double>&, stratum_chip_result<double>*);
template nmp_device<strata_test::fvar1> evaluate(const nmp_params<strata_test::fvar1>&,
                                                 stratum_chip_result<strata_test::fvar1>*);
}  // namespace v0
}  // namespace strata

using namespace strata;
using doctest::Approx;
using strata_test::field_of;

TEST_CASE("the default NMP follows from the Table 3 chip: 32 PUs of 8 PEs, 250 MACs each, 128 TFLOPS") {
  const auto d = evaluate(nmp_params<>{});
  CHECK(d.n_pu == 32);
  CHECK(d.pes_per_pu == 8);
  CHECK(d.banks() == 256);
  CHECK(d.macs_per_pe() == 250);  // 64 000 MACs / 256 banks (Stratum Table 3, §6.1)
  CHECK(d.dot_engines == 5);
  CHECK(d.taps == 50);
  CHECK(d.chip_peak().in(units::Tflops) == Approx(128.0).epsilon(1e-12));  // 2 · 64 000 · 1 GHz
  CHECK(d.tiers.size() == 8);
  CHECK(d.capacity().in(units::GiB) == Approx(32.0).epsilon(1e-9));
  // Ring link: a 32 B flit per cycle at 1 GHz; a hop is 3 cycles.
  CHECK(d.ring_bandwidth().in(units::GBps) == Approx(32.0));
  CHECK(d.hop_latency().in(units::ns) == Approx(3.0));
  // A bank's share of the fastest tier: 30 TB/s / 256 ≈ 117 GB/s; the PE's k weights per cycle
  // (50 × 2 B at 1 GHz = 100 GB/s) lie between the slowest and the fastest bank (the design choice).
  CHECK(d.bank_bandwidth(0).in(units::GBps) > 100.0);
  CHECK(d.bank_bandwidth(7).in(units::GBps) < 100.0);
  CHECK(d.feasible);
}

TEST_CASE("a different chip gives a different processor: fewer MACs, fewer engines per PE") {
  nmp_params<> p;
  p.chip.logic.n_mac = 32000;  // 125 per PE
  CHECK(field_of([&] { (void)evaluate(p); }) == "<no config_error>");  // 5 divides 125
  p.dot_engines = 3;
  CHECK(field_of([&] { (void)evaluate(p); }) == "dot_engines");
  p.chip.logic.n_mac = 32001;
  CHECK(field_of([&] { (void)evaluate(p); }) == "chip.logic.n_mac");
  p.chip.logic.n_mac = 32000;
  p.dot_engines = 5;
  const auto d = evaluate(p);
  CHECK(d.taps == 25);
  CHECK(d.chip_peak().in(units::Tflops) == Approx(64.0));
}

TEST_CASE("ring collectives follow h·(D/p/b + hop) on a bidirectional ring") {
  const auto d = evaluate(nmp_params<>{});
  // 32 PUs: h = 16 hops. 512 KiB all-gathered: 16 · (16 KiB / 32 GB/s + 3 ns).
  const auto t = ring_all_gather_time(d, units::KiB(512.0), 32);
  CHECK(t.in(units::ns) == Approx(16.0 * (16384.0 / 32.0 + 3.0)));
  CHECK(ring_reduce_scatter_time(d, units::KiB(512.0), 32) == t);
  // A scalar exchange is one flit per hop: 16 · (1 + 3) ns.
  CHECK(ring_scalar_exchange_time(d, 32).in(units::ns) == Approx(64.0));
  CHECK(ring_reach(1) == 0);
  CHECK(ring_reach(2) == 1);
  CHECK(ring_reach(5) == 2);
  CHECK(ring_all_gather_time(d, units::KiB(1.0), 1).si() == 0.0);
  CHECK(ring_scalar_exchange_time(d, 1).si() == 0.0);
  // Link bytes: each chunk both ways, h hops each way.
  CHECK(ring_link_bytes(units::KiB(4.0), 32).in(units::KiB) == Approx(128.0));
}

TEST_CASE("without tiering every tier streams at the slowest tier's timing") {
  const auto d = evaluate(nmp_params<>{});
  const auto f = without_tiering(d);
  REQUIRE(f.tiers.size() == d.tiers.size());
  for (const auto& t : f.tiers) {
    CHECK(t.bandwidth == d.tiers.back().bandwidth);
    CHECK(t.latency == d.tiers.back().latency);
  }
  CHECK(f.tiers.front().capacity == d.tiers.front().capacity);
  CHECK(f.name == "mono3d-no-tiering");
  CHECK(d.tiers.front().bandwidth > f.tiers.front().bandwidth);
}

TEST_CASE("bad NMP devices name the field") {
  auto d = evaluate(nmp_params<>{});
  auto bad = d;
  bad.clock = units::Hz(0.0);
  CHECK(field_of([&] { validate(bad); }) == "clock");
  bad = d;
  bad.compute_efficiency = 1.5;
  CHECK(field_of([&] { validate(bad); }) == "compute_efficiency");
  bad = d;
  bad.tiers.clear();
  CHECK(field_of([&] { validate(bad); }) == "tiers");
  bad = d;
  bad.ring_energy = units::pJ_per_bit(-1.0);
  CHECK(field_of([&] { validate(bad); }) == "ring_energy");
  bad = d;
  bad.hop_cycles = 0;
  CHECK(field_of([&] { validate(bad); }) == "hop_cycles");
  nmp_params<> p;
  p.dot_engines = 0;
  CHECK(field_of([&] { (void)evaluate(p); }) == "dot_engines");
}

TEST_CASE("NMP parameters round-trip through JSON") {
  const nmp_params<> p;
  const json j = p;
  CHECK(j.at("dot_engines") == 5);
  CHECK(j.get<nmp_params<>>() == p);
  const auto q = json::parse(R"({"hop_cycles": 4, "static_power": "2 W"})").get<nmp_params<>>();
  CHECK(q.hop_cycles == 4);
  CHECK(q.static_power.in(units::W) == Approx(2.0));
  CHECK(json(evaluate(q)).at("tiers").size() == 8);
}

TEST_CASE("the device is differentiable: d(chip peak)/d(compute efficiency) = 128 TFLOPS") {
  using strata_test::fvar1;
  using strata_test::make_fvar;
  nmp_params<fvar1> p;
  p.compute_efficiency = make_fvar<double, 1>(0.9);
  const auto d = evaluate(p);
  CHECK(d.chip_peak().si().derivative(1) == Approx(128e12));
  // The fastest bank's bandwidth falls with a longer staircase.
  nmp_params<fvar1> q;
  q.chip.memory.staircase_step = units::um(make_fvar<double, 1>(1.108));
  CHECK(evaluate(q).bank_bandwidth(0).si().derivative(1) < 0.0);
}
