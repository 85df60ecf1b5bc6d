#include "strata/hcrmap/pim.hpp"

#include <doctest/doctest.h>

#include <vector>  // std::vector

#include "strata/core/json.hpp"
#include "support/common.hpp"
#include "support/field_of.hpp"

using namespace strata;
using doctest::Approx;
using strata_test::field_of;

namespace {
moe_layer_shape pim_test_shape() {
  moe_layer_shape shape;
  shape.weight_bytes = units::MiB(2.0);
  shape.flops_per_token = units::flop(1e3);  // compute far below the stream: the stream decides
  shape.token_bytes = units::B(4096.0);
  shape.gate_flops_per_token = units::flop(1e4);
  shape.combine_flops_per_token = units::flop(1e4);
  return shape;
}
}  // namespace

TEST_CASE("PIM per tier: HBM-PIM's cited ratios on HBM, none on DDR5 DRAM by default") {
  const pim_params p;
  CHECK(p.hbm.flops_per_byte == 4.0);             // Kwon et al. ISSCC 2021: 1.2288 TFLOP/s / 307.2 GB/s
  CHECK(p.hbm.internal_bandwidth_factor == 4.0);  // Kwon et al. / Lee et al. ISCA 2021
  CHECK(p.dram.flops_per_byte == 0.0);            // no cited DDR5 PIM: no PIM unit
  CHECK(p.of(tier_kind::sram).flops_per_byte == 0.0);
  CHECK(&p.of(tier_kind::dram) == &p.dram);
  pim_params bad;
  bad.hbm.flops_per_byte = -1.0;
  CHECK(field_of([&] { validate(bad, "pim."); }) == "pim.hbm.flops_per_byte");
  bad = {};
  bad.dram.internal_bandwidth_factor = 0.0;
  CHECK(field_of([&] { validate(bad, "pim."); }) == "pim.dram.internal_bandwidth_factor");
  pim_params q;
  q.dram = {2.0, 1.5};
  const json j = q;
  CHECK(j.at("dram").at("flops_per_byte") == 2.0);
  const auto back = j.get<pim_params>();
  CHECK(back.dram == q.dram);
  CHECK(back.hbm == q.hbm);
}

TEST_CASE("a bank serving a PIM stream and a core stream shares its bandwidth (processor sharing)") {
  // Core a = 2, PIM p = 1: both finish min(a, p) = 1 later; the core side sees 2 / 3 of the bank.
  const auto share = pim_bank_contention({2.0, 1.0, 0.0, 3.0}, {1.0, 3.0, 5.0, 0.0});
  CHECK(share[0] == Approx(2.0 / 3.0));
  CHECK(share[1] == Approx(0.5));
  CHECK(share[2] == 1.0);  // no core stream
  CHECK(share[3] == 1.0);  // no PIM stream
  CHECK(field_of([] { (void)pim_bank_contention({1.0}, {1.0, 2.0}); }) == "pim_s");

  // The core side: a replica's weights on a bank at half its bandwidth stream in one stripe time later.
  const auto& s = strata_test::sliced_package();
  residency res(s, 1, 2, units::MiB(2.0), {.budget_factor = 2.0});
  const auto hbm0 = s.banks_of(tier_kind::hbm, 0);
  REQUIRE(hbm0.size() == 2);
  const int a = res.place(0, 0, 0, hbm0.front(), 2);
  const auto shape = pim_test_shape();
  const std::vector<token_group> g{{0, 0, 0, 0, 4}};
  const auto full = evaluate_directory_layer(s, shape, res, g, {a});
  std::vector<double> half(s.banks().size(), 1.0);
  for (int b : hbm0) half[static_cast<std::size_t>(b)] = 0.5;
  const auto shared = evaluate_directory_layer(s, shape, res, g, {a}, {}, {}, half);
  const double stripe_s = units::MiB(1.0).si() / s.banks()[static_cast<std::size_t>(hbm0.front())].bandwidth.si();
  CHECK(shared.result.memory_ready[0].si() - full.result.memory_ready[0].si() == Approx(stripe_s).epsilon(1e-9));
  half[static_cast<std::size_t>(hbm0.front())] = 0.0;
  CHECK(field_of([&] { (void)evaluate_directory_layer(s, shape, res, g, {a}, {}, {}, half); }) == "bank_share");

  // The PIM side: its stream finishes min(a, p) later, p = stripe / (4 x BW).
  energy_breakdown en;
  const double alone = detail::pim_layer(s, shape, res, g, {a}, 0.0, 0.0, pim_params{}, en);
  const double p_s = stripe_s / 4.0;
  std::vector<double> core(s.banks().size(), 0.0);
  for (int b : hbm0) core[static_cast<std::size_t>(b)] = 1e-3;  // a long core stream: min = p
  CHECK(detail::pim_layer(s, shape, res, g, {a}, 0.0, 0.0, pim_params{}, en, core) - alone == Approx(p_s).epsilon(1e-9));
  for (int b : hbm0) core[static_cast<std::size_t>(b)] = 1e-6;  // a short one: min = a
  CHECK(detail::pim_layer(s, shape, res, g, {a}, 0.0, 0.0, pim_params{}, en, core) - alone == Approx(1e-6).epsilon(1e-9));
  CHECK(detail::pim_bank_stream_s(s, shape, res, {a, a}, pim_params{})[static_cast<std::size_t>(hbm0.back())] == Approx(p_s));
}

TEST_CASE("a DRAM replica has no PIM unit unless the DRAM tier is given one") {
  const auto& s = strata_test::sliced_package();
  residency res(s, 1, 2, units::MiB(2.0), {.budget_factor = 2.0});
  const auto [first, span] = s.home_banks(tier_kind::dram, s.chiplets());
  const int d = res.place(0, 1, 0, first, span);
  const auto shape = pim_test_shape();
  const std::vector<token_group> g{{0, 1, 0, 0, 4}};
  energy_breakdown en;
  CHECK(field_of([&] { (void)detail::pim_layer(s, shape, res, g, {d}, 0.0, 0.0, pim_params{}, en); }) == "entry");
  pim_params p;
  p.dram = {2.0, 1.0};  // a user-given DDR5 PIM: streams at the external bandwidth
  const double t = detail::pim_layer(s, shape, res, g, {d}, 0.0, 0.0, p, en);
  double bw = 0.0;
  for (int k = 0; k < span; ++k) bw += s.banks()[static_cast<std::size_t>(first + k)].bandwidth.si();
  CHECK(t > units::MiB(2.0).si() / bw);
}
