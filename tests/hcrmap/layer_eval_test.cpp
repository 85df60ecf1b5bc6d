#include "strata/hcrmap/layer_eval.hpp"

#include <doctest/doctest.h>

#include "support/common.hpp"

#include "support/field_of.hpp"

using namespace strata;
using strata_test::field_of;

namespace {
// Three replicas on the sliced package's HBM (a and b of expert 0 of layer 0, c of expert 1) and a
// small MoE layer: the directory-layer tests' setting.
struct directory_layer_fixture {
  const substrate& s = strata_test::sliced_package();  // HBM under every chiplet
  residency res{s, 1, 2, units::MiB(2.0), {.budget_factor = 2.0}};
  [[nodiscard]] int hbm(int chiplet) const { return s.banks_of(tier_kind::hbm, chiplet).front(); }
  int a = res.place(0, 0, 0, hbm(0));
  int b = res.place(0, 0, 9, hbm(9));
  int c = res.place(0, 1, 3, hbm(3));
  moe_layer_shape shape = small_shape();
  static moe_layer_shape small_shape() {
    moe_layer_shape x;
    x.weight_bytes = units::MiB(2.0);
    x.flops_per_token = units::flop(1e7);
    x.token_bytes = units::B(4096.0);
    x.gate_flops_per_token = units::flop(1e4);
    x.combine_flops_per_token = units::flop(1e4);
    return x;
  }
};
}  // namespace

TEST_CASE_FIXTURE(directory_layer_fixture, "a layer on directory entries is the critical path of its replicas, with per-entry tokens and finish") {
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

TEST_CASE_FIXTURE(directory_layer_fixture, "evaluate_directory_layer_into rewrites a kept evaluation whole: the same as a fresh one") {
  // A larger layer first, then a smaller one into the same buffers (and the reverse): every field
  // equals the fresh evaluation's, none left from the layer before.
  const std::vector<token_group> big{{0, 0, 1, 1, 7}, {0, 0, 8, 8, 5}, {0, 1, 2, 2, 4}, {0, 0, 1, 1, 2}, {0, 1, 6, 5, 3}};
  const std::vector<int> xb{a, b, c, a, c};
  const std::vector<token_group> small{{0, 1, 4, 4, 6}, {0, 0, 3, 3, 0}};
  const std::vector<int> xs{c, b};
  const auto same = [](const directory_layer_eval& x, const directory_layer_eval& y) {
    CHECK(x.entry_of_replica == y.entry_of_replica);
    CHECK(x.entry_of_group == y.entry_of_group);
    CHECK(x.entry_tokens == y.entry_tokens);
    CHECK(x.entry_finish_s == y.entry_finish_s);
    CHECK(x.result.t_moe == y.result.t_moe);
    CHECK(x.result.critical_group == y.result.critical_group);
    CHECK(x.result.t_net == y.result.t_net);
    CHECK(x.result.completion == y.result.completion);
    CHECK(x.result.link_bytes == y.result.link_bytes);
    CHECK(x.result.bank_bytes == y.result.bank_bytes);
    CHECK(x.result.replica_tokens == y.result.replica_tokens);
    CHECK(x.result.replica_cores == y.result.replica_cores);
    CHECK(x.result.memory_ready == y.result.memory_ready);
    CHECK(x.result.energy.total() == y.result.energy.total());
  };
  directory_layer_eval kept;
  evaluate_directory_layer_into(kept, s, shape, res, big, xb);
  same(kept, evaluate_directory_layer(s, shape, res, big, xb));
  evaluate_directory_layer_into(kept, s, shape, res, small, xs);
  same(kept, evaluate_directory_layer(s, shape, res, small, xs));
  CHECK(kept.entry_of_group.size() == 2);
  CHECK(kept.result.completion.size() == 2);
  evaluate_directory_layer_into(kept, s, shape, res, big, xb);
  same(kept, evaluate_directory_layer(s, shape, res, big, xb));
  // Bad input names its field as the fresh evaluation does.
  CHECK(field_of([&] { evaluate_directory_layer_into(kept, s, shape, res, big, {c, b, c, a, c}); }) == "entry_of_group[0]");
}
