// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Copies in flight of the slow controller (§6.8): a pending replica, its source and
/// destination bank spans, and the transfer time of a copy over banks and links.

#include <algorithm>  // std::min
#include <cstddef>    // std::size_t
#include <vector>     // std::vector

#include "strata/chiplet/substrate.hpp"

namespace strata {
inline namespace v0 {

/// A copy in flight: the pending entry, its source and destination bank spans and, for a
/// demote, the entry it replaces.
struct pending_copy {
  int entry = -1;
  int source_bank = 0;
  int source_span = 1;
  int destination_bank = 0;
  int destination_span = 1;
  int replaces = -1;  ///< demote: the entry retired when the copy is published
};

/// Transfer time of a copy of `bytes` from bank span (b0, n0) to (b1, n1): latency of both
/// banks, plus bytes over the narrowest of the two spans' bandwidths and of the links of the
/// route between their nodes, plus the route's link latencies.
template <class = void>
inline double copy_time_s(const substrate& s, int b0, int n0, int b1, int n1, double bytes) {
  const auto& banks = s.banks();
  double bw0 = 0.0, bw1 = 0.0;
  for (int k = 0; k < n0; ++k) bw0 += banks[static_cast<std::size_t>(b0) + static_cast<std::size_t>(k)].bandwidth.si();
  for (int k = 0; k < n1; ++k) bw1 += banks[static_cast<std::size_t>(b1) + static_cast<std::size_t>(k)].bandwidth.si();
  double bw = std::min(bw0, bw1), lat = banks[static_cast<std::size_t>(b0)].latency.si() + banks[static_cast<std::size_t>(b1)].latency.si();
  std::vector<int> path;
  s.append_route(s.bank_node(b0), s.bank_node(b1), path);
  for (int u : path) {
    bw = std::min(bw, s.links()[static_cast<std::size_t>(u)].bandwidth.si());
    lat += s.links()[static_cast<std::size_t>(u)].lambda.si();
  }
  return lat + bytes / bw;
}

}  // namespace v0
}  // namespace strata
