#include "strata/stratum/head_mapping.hpp"

#include <doctest/doctest.h>

#include "support/field_of.hpp"
#include "support/scalars.hpp"

namespace strata {
inline namespace v0 {
template struct head_work<double>;
template head_times<double> lm_head_times(const nmp_device<double>&, int, const head_work<double>&);
}  // namespace v0
}  // namespace strata

using namespace strata;
using doctest::Approx;
using strata_test::field_of;

namespace {
head_work<> mixtral_head(const nmp_device<>& d, double tokens, std::size_t tier) {
  head_work<> w;
  w.tokens = tokens;
  w.hidden = 4096;
  w.vocab = 32000;
  w.weight_bytes = 2.0;
  w.shares.assign(d.tiers.size(), 0.0);
  w.shares[tier] = 1.0;
  return w;
}
}  // namespace

TEST_CASE("the LM head at B 1 streams its 262 MB split over the chips' banks and reads the logits back") {
  const auto d = evaluate(nmp_params<>{});
  const auto h = lm_head_times(d, 6, mixtral_head(d, 1.0, 0));
  CHECK(h.stream_bound);
  CHECK(h.weight_bytes.si() == Approx(4096.0 * 32000.0 * 2.0));
  // The GEMM streams each PE's ⌈H/q⌉ x ⌈V/(c·P)⌉ block at a bank's fastest-tier rate.
  const double pe_bytes = 512.0 * 167.0 * 2.0;
  CHECK(h.gemm.si() == Approx(pe_bytes / d.bank_bandwidth(0).si() + d.tiers[0].latency.si()));
  // Logits: 32000 x 2 B over six chips, each over its own PHY.
  CHECK(h.output.si() == Approx(32000.0 * 2.0 / 6.0 / d.phy_bandwidth.si() + d.phy_latency.si()));
  CHECK(h.energy.mac.si() == Approx(4096.0 * 32000.0 * d.e_mac.si()));
  CHECK(h.energy.dram_activate.si() > 0.0);
  CHECK(h.total().si() == Approx((h.input + h.gather + h.gemm + h.reduce + h.output).si()));
  // Slower rows stream slower; more chips split the head further.
  CHECK(lm_head_times(d, 6, mixtral_head(d, 1.0, d.tiers.size() - 1)).gemm > h.gemm);
  CHECK(lm_head_times(d, 1, mixtral_head(d, 1.0, 0)).gemm > h.gemm);
}

TEST_CASE("a large batch makes the LM head compute-bound") {
  const auto d = evaluate(nmp_params<>{});
  const auto h = lm_head_times(d, 1, mixtral_head(d, 4096.0, 0));
  CHECK_FALSE(h.stream_bound);
  CHECK(h.gemm.si() == Approx(2.0 * 4096.0 * 512.0 * 1000.0 / d.pe_peak().si()));
}

TEST_CASE("d(head time)/d(tokens) by autodiff is the reduction tree's and the PHY's per-token cost when stream-bound") {
  using strata_test::fvar1;
  using strata_test::make_fvar;
  nmp_params<fvar1> p;
  const auto d = evaluate(p);
  head_work<fvar1> w;
  w.tokens = make_fvar<double, 1>(1.0);
  w.hidden = 4096;
  w.vocab = 32000;
  w.shares.assign(d.tiers.size(), 0.0);
  w.shares[0] = 1.0;
  const auto h = lm_head_times(d, 6, w);
  const double f = value_of(d.clock.si());
  const double per_token_reduce = 167.0 / (d.reduction_lanes * f);
  const double phy = value_of(d.phy_bandwidth.si());
  const double per_token_io = 4096.0 * 2.0 / phy + 32000.0 * 2.0 / 6.0 / phy;
  const double gather = 16.0 * 4096.0 * 2.0 / 32.0 / value_of(d.ring_bandwidth().si());
  CHECK(h.total().si().derivative(1) == Approx(per_token_reduce + per_token_io + gather));
}

TEST_CASE("bad head inputs name the field") {
  const auto d = evaluate(nmp_params<>{});
  auto w = mixtral_head(d, 1.0, 0);
  w.vocab = 0;
  CHECK(field_of([&] { (void)lm_head_times(d, 6, w); }) == "vocab");
  w = mixtral_head(d, 1.0, 0);
  w.shares.pop_back();
  CHECK(field_of([&] { (void)lm_head_times(d, 6, w); }) == "shares");
  w = mixtral_head(d, 1.0, 0);
  CHECK(field_of([&] { (void)lm_head_times(d, 0, w); }) == "chips");
}
