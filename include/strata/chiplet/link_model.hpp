// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The causal link model of the HCRMap critical path (HCRMap §4.4, Eq. 5–8): how long a request
/// h = (s_h, d_h, D_h, P_h) takes to cross the package links when other requests share them.
///
/// Each directed link u (one direction of a D2D link) serves its requests first-come
/// first-served: in order of release time (when the data is ready at the source), ties broken
/// by class (migration — in flight when the layer starts — then dispatch, memory, gather) and
/// then by a stable index (migration, group or replica number). A request waits only for the traffic
/// AHEAD of it in that order on the links it crosses, never for traffic released after it:
///
///   start_h  = max(release_h, max_{u∈P_h} free_q(u))                  (FCFS, causal)
///   free_q(u) ← start_h + D_h / B_u       for every u ∈ P_h
///   arrive_h = start_h + Σ_{u∈P_h} (λ_u + D_h / B_u)  = start_h + T^route_h   (Eq. 7)
///
/// so the wait of h is start_h − release_h: with two requests released together on one link the
/// second waits exactly D_first / B_u, the first one's transfer time. A request holds every
/// link of its path for its own transfer time from its start (cut-through: the flits of one
/// message stream through the path; the per-hop λ offsets are not subtracted).
///
/// Queues q(u) (`link_arbitration`):
/// - `per_class` (default): one queue per (link, direction, class κ ∈ {disp, gath, mem, mig}):
///   the classes travel on separate virtual channels, each at the link rate, so a dispatch
///   never waits behind a weight stream or a migration. Sharing of the physical link between
///   classes is then carried by Eq. 8's layer-level T^net (max_u L^phys_u / B_u) and P^link.
/// - `shared`: one queue per (link, direction) for all classes: a request also waits for other
///   classes' traffic ahead of it (a migration in flight delays a dispatch behind it), and no
///   link ever carries more than B_u.
/// Properties: for a fixed service order every arrival is a max-plus expression of releases
/// and D/B terms, so more link bandwidth never delays a request; the caller charges exactly
/// D_h to every link of P_h (Eq. 5), so bytes on links equal bytes sent.

#include <algorithm>  // std::max, std::fill
#include <array>      // std::array
#include <cstddef>    // std::size_t
#include <limits>     // std::numeric_limits, the never-busy pseudo-link
#include <utility>    // std::pair
#include <vector>     // std::vector

#include "strata/chiplet/substrate.hpp"
#include "strata/core/units.hpp"

namespace strata {
inline namespace v0 {

/// Request classes K_L (§4.4).
enum class request_class { dispatch = 0, gather = 1, memory = 2, migration = 3 };

/// Which requests queue together on a link (see the file comment).
enum class link_arbitration {
  per_class,  ///< FCFS per (link, direction, class): virtual channel per class
  shared      ///< FCFS per (link, direction) over all classes
};
constexpr auto enum_names(link_arbitration) {
  return std::array{std::pair{link_arbitration::per_class, "per_class"}, std::pair{link_arbitration::shared, "shared"}};
}

/// Eq. 7 for one link: λ_u + D / B_u. Generic in the scalar (autodiff sensitivities).
template <class T>
duration<T> link_time(const duration<T>& lambda, const bandwidth<T>& b, const data_size<T>& bytes) {
  return lambda + bytes / b;
}

/// When a request started to move and when it arrived (both in s).
struct link_transit {
  double release = 0.0;  ///< data ready at the source
  double start = 0.0;    ///< release + wait
  double arrive = 0.0;   ///< start + T^route (Eq. 7)
  template <class = void>
  [[nodiscard]] double wait() const { return start - release; }
};

/// A link of a route with what `link_server` reads of it (its index, B_u and λ_u in SI),
/// taken once per route instead of once per request and hop.
struct route_hop {
  std::size_t link = 0;
  double bandwidth = 0.0;
  double lambda = 0.0;
};

/// A hop of a route stored in whole blocks of `route_block` hops for `link_server::serve_blocks`:
/// the queue it waits for (`read`) and the one it occupies (`write`) are both its link; a
/// padding hop after the route's last reads a queue that is never busy and writes one that is
/// never read (`link_server::idle_link`, `sink_link`), with no latency and an infinite
/// bandwidth, so it adds +0 to the arrival and changes no queue that matters. `real` is 1 for a
/// hop of the route and 0 for padding (the factor of a transfer time taken once per route).
struct padded_hop {
  std::size_t read = 0;
  std::size_t write = 0;
  double bandwidth = 0.0;
  double lambda = 0.0;
  double real = 1.0;
};
/// Hops per block of a padded route: most routes of a small mesh fit in one, so serving one
/// takes a loop whose trip count the branch predictor guesses.
inline constexpr std::size_t route_block = 4;

/// The FCFS queues of every link. Requests must be served in the order of the file comment
/// (release, class, index): the caller's event loop guarantees it.
class link_server {
 public:
  link_server() = default;
  template <class = void>
  link_server(const std::vector<hw_link>& links, link_arbitration a) { reset(links, a); }

  /// Every queue empty, over `links` (the buffer kept).
  template <class = void>
  void reset(const std::vector<hw_link>& links, link_arbitration a) {
    links_ = &links;
    per_class_ = a == link_arbitration::per_class;
    const std::size_t width = per_class_ ? 4 : 1;
    // Two pseudo-links after the real ones: one never busy (padding hops wait for it) and one
    // never read (padding hops occupy it).
    free_.assign((links.size() + 2) * width, 0.0);
    std::fill(free_.end() - static_cast<std::ptrdiff_t>(2 * width), free_.end() - static_cast<std::ptrdiff_t>(width),
              -std::numeric_limits<double>::infinity());
  }

  /// The pseudo-link a padding hop waits for (never busy) and the one it occupies (never read),
  /// after the real ones.
  template <class = void>
  [[nodiscard]] static std::size_t idle_link(const std::vector<hw_link>& links) { return links.size(); }
  template <class = void>
  [[nodiscard]] static std::size_t sink_link(const std::vector<hw_link>& links) { return links.size() + 1; }

  /// Serves a request of class `k` released at `release` carrying `bytes` over the links
  /// `path[0, n)`.
  template <class = void>
  link_transit serve(request_class k, double release, double bytes, const int* path, std::size_t n) {
    return serve_over(k, release, bytes, n, [&](std::size_t i) {
      const auto u = static_cast<std::size_t>(path[i]);
      const auto& l = (*links_)[u];
      return route_hop{u, l.bandwidth.si(), l.lambda.si()};
    });
  }

  /// `serve` over a route whose hops were read once (the same times).
  template <class = void>
  link_transit serve(request_class k, double release, double bytes, const route_hop* path, std::size_t n) {
    return serve_over(k, release, bytes, n, [&](std::size_t i) -> const route_hop& { return path[i]; });
  }

  /// `serve` over a route padded to `n` hops, a multiple of `route_block` (the same times for
  /// every release ≥ +0: a padding hop waits for nothing and adds λ + D/B = +0 to the arrival).
  /// `bandwidth`, when positive, is the bandwidth of every link of the route: D/B is then taken
  /// once (the same quotient) and scaled by each hop's `real` (exact: by 1 or by 0).
  template <class = void>
  link_transit serve_blocks(request_class k, double release, double bytes, const padded_hop* path, std::size_t n,
                            double bandwidth = 0.0) {
    if (bandwidth > 0.0) {
      const double once = bytes / bandwidth;
      return serve_padded(k, release, path, n, [&](std::size_t j) { return once * path[j].real; });
    }
    return serve_padded(k, release, path, n, [&](std::size_t j) { return bytes / path[j].bandwidth; });
  }

  /// `serve_blocks` with each hop's transfer time D/B given, `xfer[j]` = bytes / path[j].bandwidth
  /// (the same quotients: +0 for a padding hop), for a request whose bytes repeat.
  template <class = void>
  link_transit serve_blocks(request_class k, double release, const padded_hop* path, const double* xfer, std::size_t n) {
    return serve_padded(k, release, path, n, [&](std::size_t j) { return xfer[j]; });
  }

 private:
  // `serve_blocks` with hop j's transfer time D/B from `xfer_of(j)`: the route's start is the
  // latest free time over its hops (read four at a time; the maximum is exact, so its grouping
  // does not matter), then each hop in order is busy until start + D/B and adds λ + D/B.
  template <class Xfer>
  link_transit serve_padded(request_class k, double release, const padded_hop* path, std::size_t n, Xfer&& xfer_of) {
    const std::size_t width = per_class_ ? 4 : 1, offset = per_class_ ? static_cast<std::size_t>(k) : 0;
    const double* f = free_.data() + offset;
    double start = release;
    for (std::size_t i = 0; i < n; i += route_block) {
      const double a = std::max(f[path[i].read * width], f[path[i + 1].read * width]);
      const double b = std::max(f[path[i + 2].read * width], f[path[i + 3].read * width]);
      start = std::max(start, std::max(a, b));
    }
    double t = start;
    double* w = free_.data() + offset;
    for (std::size_t i = 0; i < n; i += route_block) {
      for (std::size_t j = i; j < i + route_block; ++j) {
        const double x = xfer_of(j);
        w[path[j].write * width] = start + x;
        t += path[j].lambda + x;
      }
    }
    return {release, start, t};
  }

  // The FCFS step of the file comment over the hops hop(0), …, hop(n − 1).
  template <class Hop>
  link_transit serve_over(request_class k, double release, double bytes, std::size_t n, Hop hop) {
    const std::size_t width = per_class_ ? 4 : 1, offset = per_class_ ? static_cast<std::size_t>(k) : 0;
    double start = release;
    for (std::size_t i = 0; i < n; ++i) start = std::max(start, free_[hop(i).link * width + offset]);
    double t = start;
    for (std::size_t i = 0; i < n; ++i) {
      const route_hop& h = hop(i);
      const double xfer = bytes / h.bandwidth;
      free_[h.link * width + offset] = start + xfer;
      t += h.lambda + xfer;
    }
    return {release, start, t};
  }

  const std::vector<hw_link>* links_ = nullptr;
  bool per_class_ = true;
  std::vector<double> free_;
};

}  // namespace v0
}  // namespace strata
