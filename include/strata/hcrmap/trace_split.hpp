// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The split of a routing trace by sequence that keeps the data a policy is built or trained on
/// apart from the data it is evaluated on (§7.1): sequences at even positions form the profile
/// (training) split, odd positions the evaluation split.

#include <algorithm>  // std::max
#include <array>    // std::array, the splits' token counts
#include <cstddef>  // std::size_t
#include <cstdint>  // std::uint16_t
#include <utility>  // std::pair, std::move

#include "strata/core/error.hpp"
#include "strata/workload/trace.hpp"

namespace strata {
inline namespace v0 {

/// Profile (even positions) and evaluation (odd positions) splits of a trace by sequence, in the
/// order sequences first appear; a trace of one sequence splits its tokens in halves instead.
template <class = void>
inline std::pair<routing_trace, routing_trace> split_by_sequence(const routing_trace& t) {
  detail::require(!t.empty(), "strata.hcrmap.experiment", "trace", t.tokens(), "non-empty");
  const auto seqs = detail::sequences_of(t);
  routing_trace a(t.layers(), t.experts_per_layer(), t.k(), t.topic_names()), b = a;
  // A token of `t` holds what `routing_trace::push_back` checks (every trace does): its IDs and
  // information are appended as they are, not checked again.
  const auto cell = static_cast<std::size_t>(t.layers()) * static_cast<std::size_t>(t.k());
  const auto copy = [&](routing_trace& to, std::size_t i) {
    const auto* from = t.ids().data() + i * cell;
    auto& ids = detail::trace_access::ids(to);
    ids.insert(ids.end(), from, from + cell);
    detail::trace_access::infos(to).push_back(t.info(i));
  };
  // Each split's room taken once (its tokens counted first), so appending never reallocates.
  const auto reserve = [&](routing_trace& to, std::size_t tokens) {
    detail::trace_access::ids(to).reserve(tokens * cell);
    detail::trace_access::infos(to).reserve(tokens);
  };
  if (seqs.size() < 2) {
    reserve(a, std::max<std::size_t>(1, t.tokens() / 2));
    reserve(b, std::max<std::size_t>(1, t.tokens() - t.tokens() / 2));
    for (std::size_t i = 0; i < t.tokens(); ++i) copy(i < t.tokens() / 2 ? a : b, i);
    if (b.empty()) copy(b, 0);
    if (a.empty()) copy(a, 0);
    return {std::move(a), std::move(b)};
  }
  std::array<std::size_t, 2> tokens{};
  for (std::size_t s = 0; s < seqs.size(); ++s) tokens[s % 2] += seqs[s].size();
  reserve(a, tokens[0]);
  reserve(b, tokens[1]);
  for (std::size_t s = 0; s < seqs.size(); ++s) {
    for (std::size_t i : seqs[s]) copy(s % 2 == 0 ? a : b, i);
  }
  return {std::move(a), std::move(b)};
}

}  // namespace v0
}  // namespace strata
