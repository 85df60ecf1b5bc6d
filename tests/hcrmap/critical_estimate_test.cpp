#include "strata/hcrmap/critical_estimate.hpp"

#include <doctest/doctest.h>

#include "support/common.hpp"

#include <algorithm>
#include <vector>

#include "strata/chiplet/window.hpp"
#include "strata/workload/presets.hpp"

using namespace strata;

namespace {
// The near-critical excess as the file comment defines it, written out: τ = (1 − band)·(the
// bound now), Σ of the given terms above τ over the number of the layer's own terms above τ.
double excess_by_definition(const detail::layer_obs& o, const std::vector<double>& busy, const std::vector<double>& ready,
                            const std::vector<double>& comp) {
  double bound = 0.0;
  for (double b : o.busy) bound = std::max(bound, b);
  for (double c : o.comp) bound = std::max(bound, c);
  for (double r : o.ready) bound = std::max(bound, r - o.t_gate);
  const double tau = (1.0 - detail::critical_estimate::critical_band) * bound;
  int k = 0;
  for (double b : o.busy) k += b > tau ? 1 : 0;
  for (double c : o.comp) k += c > tau ? 1 : 0;
  for (double r : o.ready) k += r - o.t_gate > tau ? 1 : 0;
  double x = 0.0;
  for (double b : busy) x += std::max(0.0, b - tau);
  for (double c : comp) x += std::max(0.0, c - tau);
  for (double r : ready) x += std::max(0.0, r - o.t_gate - tau);
  return x / std::max(1, k);
}
bool same_terms(const detail::layer_obs& a, const detail::layer_obs& b) {
  return a.busy == b.busy && a.tokens == b.tokens && a.comp == b.comp && a.cores == b.cores && a.ready == b.ready &&
         a.rep_ready == b.rep_ready && a.streams == b.streams && a.bank_bytes == b.bank_bytes && a.active == b.active &&
         a.t_moe == b.t_moe;
}
}  // namespace

TEST_CASE("bound_after: the bound's excess after each promotion and eviction, as the definition gives it, whatever came before") {
  // One layer of 8 experts on the Table 1 package: expert e on chiplet 2e in its chiplet-local
  // HBM, experts 0 and 1 with a second copy; observed terms spread so that some are
  // near-critical and some not. Every candidate is priced twice (the estimate reuses its
  // buffers) and once applied on a copy, whose terms then give the definition's value.
  const substrate& s = strata_test::sliced_package();  // HBM under every chiplet
  const auto shape = moe_shape(preset("Mixtral-8x7B"));
  residency res(s, 1, 8, units::MB(1.0));
  for (int e = 0; e < 8; ++e) {
    const auto [bank, span] = s.home_banks(tier_kind::hbm, 2 * e);
    res.place(0, e, 2 * e, bank, span);
  }
  for (int e : {0, 1}) {
    const auto [bank, span] = s.home_banks(tier_kind::hbm, 2 * e + 1);
    res.place(0, e, 2 * e + 1, bank, span);
  }
  const detail::critical_estimate est(s, res, shape, critical_path_params{});
  const std::size_t n = res.entries().size();  // 10
  detail::layer_obs o;
  o.layer = 0;
  o.t_gate = 2e-6;
  o.busy.assign(static_cast<std::size_t>(s.chiplets()), 0.0);
  o.active.assign(static_cast<std::size_t>(s.chiplets()), 0);
  o.tokens.assign(n, 0.0);
  o.comp.assign(n, 0.0);
  o.cores.assign(n, 0.0);
  o.rep_ready.assign(n, 0.0);
  o.ready.assign(8, 0.0);
  o.bank_bytes.assign(s.banks().size(), 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    const auto& de = res.entries()[i];
    const double tok = 1.0 + double((i * 7) % 10);
    o.tokens[i] = tok;
    o.cores[i] = 1.0 + double(i % 3);
    o.comp[i] = tok * shape.flops_per_token.si() / (o.cores[i] * est.core_rate());
    o.busy[static_cast<std::size_t>(de.chiplet)] += tok * shape.flops_per_token.si() / est.chiplet_rate();
    ++o.active[static_cast<std::size_t>(de.chiplet)];
    if (i % 4 != 3) {  // most entries streamed their weights
      o.rep_ready[i] = o.t_gate + 1e-6 * double(1 + (i * 3) % 5);
      o.streams.push_back(static_cast<int>(i));
      o.ready[static_cast<std::size_t>(de.expert)] = std::max(o.ready[static_cast<std::size_t>(de.expert)], o.rep_ready[i]);
    }
  }
  o.t_moe = o.t_gate + detail::critical_estimate::bound(o);
  const auto before = o;
  int priced = 0, raised = 0;
  struct priced_candidate {
    int e, evict;
    place_candidate target;
    double mem, x;
  };
  std::vector<priced_candidate> seen;
  for (int e = 0; e < 8; ++e) {
    std::vector<int> evicts{-1};
    if (res.legal(0, e).size() >= 2) evicts.push_back(res.legal(0, e).back());
    for (int c : {2 * e, (2 * e + 5) % 16, 15}) {
      const auto [bank, span] = s.home_banks(tier_kind::hbm, c);
      const place_candidate target{tier_kind::hbm, c, bank, span};
      for (double mem : {0.0, 1e-6, 8e-6}) {
        for (int evict : evicts) {
          CAPTURE(e);
          CAPTURE(c);
          CAPTURE(mem);
          CAPTURE(evict);
          auto probe = o;
          const double x = est.bound_after(probe, e, target, mem, evict, false);
          CHECK(same_terms(probe, before));  // pricing leaves the layer as it was
          CHECK(est.bound_after(probe, e, target, mem, evict, false) == x);
          auto applied = o;
          CHECK(est.bound_after(applied, e, target, mem, evict, true) == x);
          // The applied terms are the ones priced: the definition from them, to the last bit.
          const double up = detail::critical_estimate::bound(applied) - detail::critical_estimate::bound(o);
          const double want = up > 0.0 ? std::max(excess_by_definition(o, applied.busy, applied.ready, applied.comp),
                                                  excess_by_definition(o, o.busy, o.ready, o.comp) + up)
                                       : excess_by_definition(o, applied.busy, applied.ready, applied.comp);
          CHECK(x == want);
          CHECK(est.excess(o) == excess_by_definition(o, o.busy, o.ready, o.comp));
          ++priced;
          raised += up > 0.0 ? 1 : 0;
          seen.push_back({e, evict, target, mem, x});
        }
      }
    }
  }
  CHECK(priced == 8 * 3 * 3 + 2 * 3 * 3);
  // One estimate pricing candidate after candidate of one layer keeps its buffers mirroring the
  // layer and puts back only the terms a candidate wrote: the same bits, in every order, and
  // alternating with another layer (which reloads the buffers).
  const detail::critical_estimate again(s, res, shape, critical_path_params{});
  auto kept = before, other = before;
  for (int pass = 0; pass < 3; ++pass) {
    for (std::size_t i = 0; i < seen.size(); ++i) {
      const auto& c = seen[pass == 1 ? seen.size() - 1 - i : i];
      CHECK(again.bound_after(kept, c.e, c.target, c.mem, c.evict, false) == c.x);
      if (pass == 2) CHECK(again.bound_after(other, c.e, c.target, c.mem, c.evict, false) == c.x);
    }
  }
  CHECK(same_terms(kept, before));
  CHECK(again.excess(kept) == excess_by_definition(o, o.busy, o.ready, o.comp));
  CHECK(raised > 0);           // some candidates push a term past the bound
  CHECK(raised < priced);      // and some do not
}
