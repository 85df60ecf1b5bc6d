#include "strata/stratum/expert_mapping.hpp"

#include <doctest/doctest.h>

#include <boost/math/differentiation/autodiff.hpp>

#include "support/field_of.hpp"
#include "support/scalars.hpp"

namespace strata {
inline namespace v0 {
template expert_times<double> expert_ffn_times(const nmp_device<double>&, int, const expert_work<double>&,
                                               const mapping_options<double>&);
template expert_times<strata_test::fvar1> expert_ffn_times(const nmp_device<strata_test::fvar1>&, int,
                                                           const expert_work<strata_test::fvar1>&,
                                                           const mapping_options<strata_test::fvar1>&);
}  // namespace v0
}  // namespace strata

using namespace strata;
using doctest::Approx;
using strata_test::field_of;

namespace {
/// A toy NMP with round numbers, P = 4 PUs as in Stratum Fig. 8b: 2 PEs per PU (8 banks), one
/// tier of 8 GB/s (1 B/ns per bank) and 10 ns latency, one 4-tap engine per PE at 1 GHz
/// (8 GFLOP/s), 2 SFE lanes, 2 reduction lanes, an 8 B ring flit (8 B/ns) and 1-cycle hops.
template <class T = double>
nmp_device<T> toy() {
  nmp_device<T> d;
  d.name = "toy";
  d.tiers.push_back({"t0", units::GiB(T(1.0)), units::GBps(T(8.0)), units::ns(T(10.0)), units::pJ_per_B(T(1.0)), 8});
  d.access = {units::pJ_per_bit(T(0.1)), units::pJ_per_bit(T(0.0)), units::pJ_per_bit(T(0.0)),
              units::pJ_per_bit(T(0.0)), units::pJ_per_bit(T(0.0))};
  d.n_pu = 4;
  d.pes_per_pu = 2;
  d.dot_engines = 1;
  d.taps = 4;
  d.clock = units::GHz(T(1.0));
  d.e_mac = units::pJ(T(1.0));
  d.sfe_lanes = 2;
  d.reduction_lanes = 2;
  d.ring_flit = units::B(T(8.0));
  d.hop_cycles = 1;
  d.ring_energy = units::pJ_per_B(T(0.0));
  d.sram_energy = units::pJ_per_B(T(0.0));
  d.static_power = units::W(T(0.0));
  d.phy_bandwidth = units::GBps(T(1.0));
  d.phy_energy = units::pJ_per_B(T(0.0));
  d.phy_latency = units::ns(T(0.0));
  return d;
}

template <class T = double>
expert_work<T> one_expert(double tokens = 2.0) {
  expert_work<T> w;
  w.tokens = T(tokens);
  w.hidden = 8;
  w.inter = 16;
  w.shares = {1.0};
  return w;
}
}  // namespace

// The hand-worked single-expert example (Stratum Fig. 8b: one expert, T = 2 tokens, P = 4 PUs).
// H = 8, M = 16, SwiGLU, 16-bit weights and activations, one chip.
//   columns per PU  m = ⌈16 / 4⌉ = 4;  rows per PE ⌈H/q⌉ = ⌈8 / 2⌉ = 4
//   GeMM1 per PE: 4 × 4 = 16 weights = 32 B; stream = 10 ns + 32 B / (1 B/ns) = 42 ns;
//                 compute = 2 · (T · 16 = 32 MACs) / 8 GFLOP/s = 8 ns → 42 ns (memory-bound);
//                 GeMM2 and GeMM3 the same: 42 ns each
//   reduce (Z1, Z2): ⌈log2 2⌉ = 1 level + T·m / lanes = 8 / 2 = 4 cycles → 5 ns each
//   activation: T·m · 8 ops / 2 lanes = 32 ns;  Hadamard: 8 · 1 / 2 = 4 ns
//   reduce-scatter of the T × H partial (32 B) on the 4-PU ring: h = 2,
//                 2 · (32 B / 4 / (8 B/ns) + 1 ns) = 4 ns
//   weighted sum: T · ⌈H/P⌉ = 4 elements / 2 lanes = 2 ns
//   core = max(GeMM2 42, reduce 5 + activation 32) + reduce 5 + Hadamard 4 + GeMM3 42 = 93 ns
//   one expert:  GeMM1 42 + core 93 + reduce-scatter 4 + weighted sum 2 = 141 ns
//   two experts: 42 + 93 + max(6, 42) + 93 + 6 = 276 ns (the first tail hides under GeMM1)
TEST_CASE("hand-worked single expert on P = 4 PUs (Fig. 8b): stage times and the Fig. 9 pipeline") {
  const auto d = toy();
  validate(d);
  const auto s = expert_ffn_times(d, 1, one_expert());
  CHECK(s.gemm1.in(units::ns) == Approx(42.0));
  CHECK(s.gemm2.in(units::ns) == Approx(42.0));
  CHECK(s.gemm3.in(units::ns) == Approx(42.0));
  CHECK(s.reduce1.in(units::ns) == Approx(5.0));
  CHECK(s.reduce2.in(units::ns) == Approx(5.0));
  CHECK(s.activation.in(units::ns) == Approx(32.0));
  CHECK(s.hadamard.in(units::ns) == Approx(4.0));
  CHECK(s.reduce_scatter.in(units::ns) == Approx(4.0));
  CHECK(s.weighted_sum.in(units::ns) == Approx(2.0));
  CHECK(s.core().in(units::ns) == Approx(93.0));
  const std::vector<expert_work<>> one{one_expert()};
  CHECK(moe_layer_time(d, 1, one).in(units::ns) == Approx(141.0));
  const std::vector<expert_work<>> two{one_expert(), one_expert()};
  CHECK(moe_layer_time(d, 1, two).in(units::ns) == Approx(276.0));
  // The named tree has the same time, and its energy is the experts' energy by part.
  energy_parts<> e{};
  const auto c = moe_layer_cost(d, 1, two, {}, &e);
  CHECK(c.time.in(units::ns) == Approx(276.0));
  CHECK(c.energy.si() == Approx(e.total().si()));
  // MACs: 2 experts × T · 3·H·M = 2 × 768 at 1 pJ.
  CHECK(e.mac.in(units::pJ) == Approx(1536.0));
  // Weights read: 2 × 3·8·16·2 B = 1536 B at 0.1 pJ/b.
  CHECK(e.dram_activate.in(units::pJ) == Approx(1536.0 * 8 * 0.1));
  CHECK(c.bytes_on("nmp.weights").in(units::B) == Approx(1536.0));
}

TEST_CASE("compute-bound experts: many tokens make the tensor core, not the bank, set GeMM time") {
  const auto d = toy();
  // T = 64: 64 · 16 MACs · 2 / 8 GFLOP/s = 256 ns > the 42 ns stream.
  const auto s = expert_ffn_times(d, 1, one_expert(64.0));
  CHECK(s.gemm1.in(units::ns) == Approx(256.0));
  // More tokens never take less time; a GeLU FFN (two matrices) is never slower than SwiGLU.
  double prev = 0.0;
  for (double t : {1.0, 2.0, 4.0, 16.0, 64.0, 256.0}) {
    const double now = moe_layer_time(d, 1, std::vector<expert_work<>>{one_expert(t)}).si();
    CHECK(now >= prev);
    auto g = one_expert(t);
    g.gated = false;
    CHECK(moe_layer_time(d, 1, std::vector<expert_work<>>{g}).si() <= now);
    prev = now;
  }
}

TEST_CASE("an expert that runs with probability p costs p times one run") {
  const auto d = toy();
  auto w = one_expert();
  w.weight = 0.25;
  energy_parts<> e1{}, e4{};
  const auto t1 = moe_layer_time(d, 1, std::vector<expert_work<>>{w}, {}, &e1);
  w.weight = 1.0;
  const auto t4 = moe_layer_time(d, 1, std::vector<expert_work<>>{w}, {}, &e4);
  CHECK(t1.si() == Approx(0.25 * t4.si()));
  CHECK(e1.total().si() == Approx(0.25 * e4.total().si()));
  // Zero probability or zero tokens: nothing runs.
  w.weight = 0.0;
  CHECK(moe_layer_time(d, 1, std::vector<expert_work<>>{w}).si() == 0.0);
}

TEST_CASE("streaming from a slower tier takes longer; shares split the stream over tiers") {
  auto d = toy();
  d.tiers.push_back({"t1", units::GiB(1.0), units::GBps(4.0), units::ns(20.0), units::pJ_per_B(1.0), 8});
  auto w = one_expert();
  w.shares = {1.0, 0.0};
  const double fast = expert_ffn_times(d, 1, w).gemm1.in(units::ns);
  w.shares = {0.0, 1.0};
  const double slow = expert_ffn_times(d, 1, w).gemm1.in(units::ns);
  w.shares = {0.5, 0.5};
  const double half = expert_ffn_times(d, 1, w).gemm1.in(units::ns);
  CHECK(fast == Approx(42.0));
  CHECK(slow == Approx(20.0 + 32.0 / 0.5));  // 0.5 B/ns per bank
  CHECK(half == Approx(10.0 + 16.0 + 20.0 + 32.0));
  CHECK(fast < half);
  CHECK(half < slow);
}

TEST_CASE("the NMP input and output cross the PHY and the ring once per block") {
  const auto d = toy();
  energy_parts<> e{};
  // 2 tokens × 8 hidden × 2 B = 32 B in and out over a 1 GB/s PHY (1 B/ns): 32 ns each; the
  // all-gather is the 4 ns of the reduce-scatter above.
  const auto c = moe_input_cost(d, 1, 2.0, 8, 16, data_size<>{}, &e);
  CHECK(c.time.in(units::ns) == Approx(32.0 + 4.0 + 32.0));
  CHECK(c.energy.si() == Approx(e.total().si()));
  CHECK(c.bytes_on("interposer").in(units::B) == Approx(64.0));
}

TEST_CASE("bad expert work names the field") {
  const auto d = toy();
  auto w = one_expert();
  w.shares = {0.5};
  CHECK(field_of([&] { (void)expert_ffn_times(d, 1, w); }) == "shares");
  w = one_expert();
  w.shares = {1.0, 0.0};
  CHECK(field_of([&] { (void)expert_ffn_times(d, 1, w); }) == "shares");
  w = one_expert();
  w.hidden = 0;
  CHECK(field_of([&] { (void)expert_ffn_times(d, 1, w); }) == "hidden");
  w = one_expert();
  w.weight = 2.0;
  CHECK(field_of([&] { (void)expert_ffn_times(d, 1, w); }) == "weight");
  w = one_expert(-1.0);
  CHECK(field_of([&] { (void)expert_ffn_times(d, 1, w); }) == "tokens");
  CHECK(field_of([&] { (void)expert_ffn_times(d, 0, one_expert()); }) == "chips");
  mapping_options<> o;
  o.activation_ops = 0;
  CHECK(field_of([&] { (void)moe_layer_cost(d, 1, std::vector<expert_work<>>{one_expert()}, o); }) == "activation_ops");
}

TEST_CASE("stage times are differentiable: d(GeMM1)/d(tier bandwidth) = -bytes / BW^2") {
  using strata_test::fvar1;
  using strata_test::make_fvar;
  auto d = toy<fvar1>();
  d.tiers[0].bandwidth = units::GBps(make_fvar<double, 1>(8.0));
  const auto s = expert_ffn_times(d, 1, one_expert<fvar1>());
  // GeMM1 = 10 ns + 32 B · 8 banks / (x GB/s): d/dx = −256 B / (x² · 1e9 B/s) = −4 ns at x = 8.
  CHECK(s.gemm1.si().derivative(1) * 1e9 == Approx(-256.0 / (8.0 * 8.0)));
}

TEST_CASE("a rarely run expert after a certain one: the first's whole tail overlaps the second's scaled GeMM1") {
  // Toy stages (above): GeMM1 42 ns, core 93 ns, tail 4 + 2 ns. Expert a runs always, expert b
  // with p = 0.01: 42 + 93 + max(6, 0.01 · 42) + 0.01 · 93 + 0.01 · 6 = 141.99 ns. (Scaling the
  // overlap by b's weight, max(6, 42) · 0.01 = 0.42, would drop a's tail: 136.41 ns.)
  const auto d = toy();
  auto a = one_expert(), b = one_expert();
  b.weight = 0.01;
  const std::vector<expert_work<>> work{a, b};
  CHECK(moe_layer_time(d, 1, work).in(units::ns) == Approx(141.99));
  CHECK(moe_layer_cost(d, 1, work).time.in(units::ns) == Approx(141.99));
  // Any weights and token counts: the fast path and the named tree agree.
  for (double pa : {1.0, 0.6, 0.05}) {
    for (double pb : {1.0, 0.3, 0.001}) {
      for (double tb : {1.0, 7.0, 300.0}) {
        auto x = one_expert(), y = one_expert(tb);
        x.weight = pa;
        y.weight = pb;
        const std::vector<expert_work<>> w2{x, y, x};
        CAPTURE(pa);
        CAPTURE(pb);
        CAPTURE(tb);
        CHECK(moe_layer_time(d, 1, w2).si() == Approx(moe_layer_cost(d, 1, w2).time.si()).epsilon(1e-12));
      }
    }
  }
}
