#include "strata/hcrmap/layer_eval.hpp"

#include <doctest/doctest.h>

#include "support/common.hpp"

#include "support/field_of.hpp"

using namespace strata;
using strata_test::field_of;

TEST_CASE("a layer on directory entries is the critical path of its replicas, with per-entry tokens and finish") {
  const substrate& s = strata_test::sliced_package();  // HBM under every chiplet
  residency res(s, 1, 2, units::MiB(2.0), {.budget_factor = 2.0});
  const auto hbm = [&](int c) { return s.banks_of(tier_kind::hbm, c).front(); };
  const int a = res.place(0, 0, 0, hbm(0));
  const int b = res.place(0, 0, 9, hbm(9));
  const int c = res.place(0, 1, 3, hbm(3));
  moe_layer_shape shape;
  shape.weight_bytes = units::MiB(2.0);
  shape.flops_per_token = units::flop(1e7);
  shape.token_bytes = units::B(4096.0);
  shape.gate_flops_per_token = units::flop(1e4);
  shape.combine_flops_per_token = units::flop(1e4);
  const std::vector<token_group> g{{0, 0, 1, 1, 7}, {0, 0, 8, 8, 5}, {0, 1, 2, 2, 4}, {0, 0, 1, 1, 2}};
  const std::vector<int> x{a, b, c, a};
  const auto ev = evaluate_directory_layer(s, shape, res, g, x);
  // The same layer through evaluate_layer directly, replicas in first-use order.
  const std::vector<replica> reps{res.as_replica(a), res.as_replica(b), res.as_replica(c)};
  const auto direct = evaluate_layer(s, shape, g, reps, {0, 1, 2, 0});
  CHECK(ev.result.t_moe == direct.t_moe);
  CHECK(ev.entry_of_replica == std::vector<int>{a, b, c});
  CHECK(ev.entry_tokens[static_cast<std::size_t>(a)] == 9.0);
  CHECK(ev.entry_tokens[static_cast<std::size_t>(b)] == 5.0);
  CHECK(ev.entry_finish_s[static_cast<std::size_t>(a)] ==
        std::max(direct.completion[0].si(), direct.completion[3].si()));
  CHECK(std::max({ev.entry_finish_s[0], ev.entry_finish_s[1], ev.entry_finish_s[2]}) == ev.result.t_moe.si());
  // Eq. 21: a group on another expert's replica, or on a pending copy, is refused.
  CHECK(field_of([&] { (void)evaluate_directory_layer(s, shape, res, g, {c, b, c, a}); }) == "entry_of_group[0]");
  const int p = res.begin_copy(0, 1, 12, hbm(12));
  CHECK(field_of([&] { (void)evaluate_directory_layer(s, shape, res, g, {a, b, p, a}); }) == "entry_of_group[2]");
  CHECK(field_of([&] { (void)evaluate_directory_layer(s, shape, res, g, {a, b}); }) == "entry_of_group");
}
