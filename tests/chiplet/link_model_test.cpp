#include "strata/chiplet/link_model.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include <boost/math/differentiation/autodiff.hpp>

#include "strata/chiplet/layer_model.hpp"

using namespace strata;
using doctest::Approx;

namespace {
// Two links in a row, 0 → 1 → 2, of 100 GB/s with λ = 10 ns each (hand-checkable numbers).
std::vector<hw_link> two_links() {
  hw_link a{0, 1, link_kind::mesh_d2d, units::GBps(100.0), units::ns(10.0), units::pJ_per_bit(0.3)};
  hw_link b{1, 2, link_kind::mesh_d2d, units::GBps(100.0), units::ns(10.0), units::pJ_per_bit(0.3)};
  return {a, b};
}
const int both[] = {0, 1};
const int first[] = {0};
const int second[] = {1};
}  // namespace

TEST_CASE("an unshared request arrives after Eq. 7's route time") {
  const auto links = two_links();
  link_server net(links, link_arbitration::per_class);
  // 1 MB over two links: 2·(10 ns + 10 µs).
  const auto t = net.serve(request_class::dispatch, 1e-6, 1e6, both, 2);
  CHECK(t.wait() == 0.0);
  CHECK(t.start == 1e-6);
  CHECK(t.arrive == Approx(1e-6 + 2 * (10e-9 + 10e-6)));
}

TEST_CASE("FCFS: the second request on a shared link waits the first one's transfer time") {
  const auto links = two_links();
  link_server net(links, link_arbitration::per_class);
  const auto a = net.serve(request_class::dispatch, 0.0, 2e6, both, 2);  // 20 µs per link
  const auto b = net.serve(request_class::dispatch, 0.0, 1e6, second, 1);
  CHECK(a.wait() == 0.0);
  CHECK(b.wait() == Approx(20e-6));  // D_a / B on link 1
  CHECK(b.arrive == Approx(20e-6 + 10e-9 + 10e-6));
  SUBCASE("a request released after the link drained does not wait") {
    const auto c = net.serve(request_class::dispatch, 25e-6, 1e6, first, 1);
    CHECK(c.wait() == 0.0);
  }
  SUBCASE("a request released while the link is busy waits only the rest") {
    const auto c = net.serve(request_class::dispatch, 5e-6, 1e6, first, 1);
    CHECK(c.wait() == Approx(15e-6));
  }
}

TEST_CASE("classes queue separately per class and together when shared") {
  const auto links = two_links();
  link_server per(links, link_arbitration::per_class);
  (void)per.serve(request_class::migration, 0.0, 4e6, first, 1);  // 40 µs of migration on link 0
  CHECK(per.serve(request_class::dispatch, 0.0, 1e6, first, 1).wait() == 0.0);
  CHECK(per.serve(request_class::migration, 0.0, 1e6, first, 1).wait() == Approx(40e-6));
  link_server shared(links, link_arbitration::shared);
  (void)shared.serve(request_class::migration, 0.0, 4e6, first, 1);
  CHECK(shared.serve(request_class::dispatch, 0.0, 1e6, first, 1).wait() == Approx(40e-6));
  // Another link is another queue in both modes.
  CHECK(shared.serve(request_class::gather, 0.0, 1e6, second, 1).wait() == 0.0);
}

TEST_CASE("more bandwidth never delays a request") {
  auto fast = two_links();
  for (auto& l : fast) l.bandwidth = l.bandwidth * 2.0;
  const auto slow = two_links();
  for (const auto arb : {link_arbitration::per_class, link_arbitration::shared}) {
    link_server a(slow, arb), b(fast, arb);
    double prev_a = 0.0, prev_b = 0.0;
    for (int i = 0; i < 10; ++i) {
      const double release = 1e-6 * i;
      const double bytes = 1e5 * (1 + i % 3);
      const int* path = i % 2 == 0 ? both : second;
      const std::size_t n = i % 2 == 0 ? 2 : 1;
      const auto ta = a.serve(request_class::gather, release, bytes, path, n);
      const auto tb = b.serve(request_class::gather, release, bytes, path, n);
      CHECK(tb.arrive <= ta.arrive);
      CHECK(tb.wait() <= ta.wait() + 1e-18);
      prev_a = ta.arrive;
      prev_b = tb.arrive;
    }
    CHECK(prev_b < prev_a);
  }
}

TEST_CASE("a route read once as hops is served with the same times as its link ids") {
  // Three links of different rates and latencies; the same requests, every class and both
  // arbitrations, through two servers: one given link ids, one the hops (bit for bit).
  std::vector<hw_link> links{{0, 1, link_kind::mesh_d2d, units::GBps(100.0), units::ns(10.0), units::pJ_per_bit(0.3)},
                             {1, 2, link_kind::mesh_d2d, units::GBps(64.0), units::ns(7.5), units::pJ_per_bit(0.3)},
                             {2, 3, link_kind::io_d2d, units::GBps(37.0), units::ns(3.3), units::pJ_per_bit(0.5)}};
  const int route[] = {2, 0, 1};
  std::vector<route_hop> hops;
  for (const int u : route) {
    const auto& l = links[static_cast<std::size_t>(u)];
    hops.push_back({static_cast<std::size_t>(u), l.bandwidth.si(), l.lambda.si()});
  }
  for (const auto a : {link_arbitration::per_class, link_arbitration::shared}) {
    link_server by_id(links, a), by_hop(links, a);
    for (int i = 0; i < 24; ++i) {
      const auto k = static_cast<request_class>(i % 4);
      const double release = 1e-7 * (i % 5), bytes = 1e5 * (1 + i % 7);
      const std::size_t n = 1 + static_cast<std::size_t>(i % 3);
      const std::size_t from = static_cast<std::size_t>(i) % (4 - n);
      const auto x = by_id.serve(k, release, bytes, route + from, n);
      const auto y = by_hop.serve(k, release, bytes, hops.data() + from, n);
      CHECK(x.start == y.start);
      CHECK(x.arrive == y.arrive);
      CHECK(x.arrive > x.start);
    }
  }
}

TEST_CASE("a route padded to whole blocks is served with the same times as its link ids, its D/B taken per hop, once or given") {
  // Five links, four of one rate: routes of 0 to 5 hops padded to blocks of `route_block`;
  // four servers side by side (link ids; padded hops, D/B per hop; padded hops, D/B once when
  // the route's links share a rate; padded hops, D/B given per hop) must agree bit for bit and
  // occupy the same queues.
  std::vector<hw_link> links{{0, 1, link_kind::mesh_d2d, units::GBps(256.0), units::ns(2.0), units::pJ_per_bit(0.3)},
                             {1, 2, link_kind::mesh_d2d, units::GBps(256.0), units::ns(2.5), units::pJ_per_bit(0.3)},
                             {2, 3, link_kind::mesh_d2d, units::GBps(256.0), units::ns(1.5), units::pJ_per_bit(0.3)},
                             {3, 4, link_kind::mesh_d2d, units::GBps(256.0), units::ns(2.0), units::pJ_per_bit(0.3)},
                             {4, 5, link_kind::io_d2d, units::GBps(37.0), units::ns(3.3), units::pJ_per_bit(0.5)}};
  const int route[] = {3, 0, 2, 1, 4};
  for (const auto a : {link_arbitration::per_class, link_arbitration::shared}) {
    link_server by_id(links, a), per_hop(links, a), once(links, a), given(links, a);
    for (int i = 0; i < 60; ++i) {
      CAPTURE(i);
      const auto k = static_cast<request_class>(i % 4);
      const double release = 1e-8 * (i % 9), bytes = 1e4 * (1 + i % 11) + 0.3 * (i % 2);
      const std::size_t n = static_cast<std::size_t>(i) % 6, from = n == 5 ? 0 : static_cast<std::size_t>(i / 6) % (5 - n);
      std::vector<padded_hop> hops;
      double shared_rate = n > 0 ? links[static_cast<std::size_t>(route[from])].bandwidth.si() : 0.0;
      for (std::size_t j = from; j < from + n; ++j) {
        const auto u = static_cast<std::size_t>(route[j]);
        hops.push_back({u, u, links[u].bandwidth.si(), links[u].lambda.si(), 1.0});
        if (links[u].bandwidth.si() != shared_rate) shared_rate = 0.0;
      }
      while (hops.size() % route_block != 0 || hops.empty()) {
        hops.push_back({link_server::idle_link(links), link_server::sink_link(links), HUGE_VAL, 0.0, 0.0});
      }
      const auto x = by_id.serve(k, release, bytes, route + from, n);
      const auto y = per_hop.serve_blocks(k, release, bytes, hops.data(), hops.size());
      const auto z = once.serve_blocks(k, release, bytes, hops.data(), hops.size(), shared_rate);
      std::vector<double> xfer;
      for (const auto& h : hops) xfer.push_back(bytes / h.bandwidth);
      const auto w = given.serve_blocks(k, release, hops.data(), xfer.data(), hops.size());
      CHECK(x.start == y.start);
      CHECK(x.arrive == y.arrive);
      CHECK(x.start == z.start);
      CHECK(x.arrive == z.arrive);
      CHECK(x.start == w.start);
      CHECK(x.arrive == w.arrive);
    }
  }
}

TEST_CASE("Eq. 7 per link differentiates with autodiff") {
  using boost::math::differentiation::make_fvar;
  using F = boost::math::differentiation::autodiff_fvar<double, 1>;
  const F b = make_fvar<double, 1>(256e9);
  const auto t = link_time(duration<F>(units::ns(5.0)), bandwidth<F>::from_si(b), data_size<F>(units::MB(1.0)));
  CHECK(t.si().derivative(0) == Approx(5e-9 + 1e6 / 256e9));
  CHECK(t.si().derivative(1) == Approx(-1e6 / (256e9 * 256e9)));
  CHECK(link_time(units::ns(5.0), units::GBps(256.0), units::MB(1.0)).in(units::us) == Approx(0.005 + 1e6 / 256e9 * 1e6));
}
