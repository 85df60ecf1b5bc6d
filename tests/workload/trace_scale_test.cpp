#include "strata/workload/trace.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "strata/hcrmap/trace_split.hpp"
#include "strata/workload/trace_io.hpp"

// Work bounded by the input's size: a trace's sequences are found in O(n log n) (issue 24). The
// ctest case has a TIMEOUT (tests/CMakeLists.txt) as the guard for the large inputs; the results
// are checked against the quadratic algorithm it replaced, written out here.

using namespace strata;

namespace {

// The former `detail::sequences_of`: a sorted (id, slot) vector with an insertion per new id.
std::vector<std::vector<std::size_t>> sequences_by_insertion(const routing_trace& t) {
  std::vector<std::vector<std::size_t>> seqs;
  std::vector<std::pair<std::int32_t, std::size_t>> index;
  for (std::size_t i = 0; i < t.tokens(); ++i) {
    const std::int32_t id = t.info(i).seq;
    auto it = std::lower_bound(index.begin(), index.end(), std::pair{id, std::size_t{0}},
                               [](const auto& a, const auto& b) { return a.first < b.first; });
    if (it == index.end() || it->first != id) {
      it = index.insert(it, {id, seqs.size()});
      seqs.emplace_back();
    }
    seqs[it->second].push_back(i);
  }
  for (auto& s : seqs) {
    std::stable_sort(s.begin(), s.end(), [&](std::size_t a, std::size_t b) { return t.info(a).pos < t.info(b).pos; });
  }
  return seqs;
}

// "seq,pos,L1" with `n` one-token sequences of descending ids n - 1 … 0.
std::string descending_one_token_csv(int n) {
  std::string text = "seq,pos,L1\n";
  text.reserve(static_cast<std::size_t>(n) * 16);
  for (int i = 0; i < n; ++i) text += std::to_string(n - 1 - i) + ",0," + std::to_string(i % 8) + "\n";
  return text;
}

}  // namespace

TEST_CASE("sequences_of gives the former algorithm's sequences on small traces of every id and position order") {
  detail::splitmix64 rng{7};
  for (int trial = 0; trial < 200; ++trial) {
    CAPTURE(trial);
    routing_trace t(1, 8, 1);
    const std::size_t n = 1 + rng.below(60);
    const std::size_t ids = 1 + rng.below(12);
    for (std::size_t i = 0; i < n; ++i) {
      // Ids from -1 (no sequence) upwards, in any order; positions repeat and run backwards.
      const auto seq = static_cast<std::int32_t>(rng.below(ids)) - 1;
      const auto pos = static_cast<std::int32_t>(rng.below(6)) - (trial % 3 == 0 ? 1 : 0);
      t.push_back({static_cast<std::uint16_t>(rng.below(8))}, {.seq = seq, .pos = pos});
    }
    CHECK(detail::sequences_of(t) == sequences_by_insertion(t));
  }
  routing_trace empty(1, 8, 1);
  CHECK(detail::sequences_of(empty).empty());
}

TEST_CASE("a 150 000-sequence trace with descending ids is read and split into sequences in O(n log n)") {
  constexpr int n = 150000;
  const routing_trace t = parse_trace_csv(descending_one_token_csv(n));
  REQUIRE(t.tokens() == static_cast<std::size_t>(n));
  const auto seqs = detail::sequences_of(t);
  REQUIRE(seqs.size() == static_cast<std::size_t>(n));
  // First appearance order: sequence s is token s (id n - 1 - s), one token each.
  bool in_order = true;
  for (std::size_t s = 0; s < seqs.size(); ++s) in_order = in_order && seqs[s] == std::vector<std::size_t>{s};
  CHECK(in_order);
  // The readers of sequences downstream: a decode batch and the HCRMap split by sequence.
  const auto batch = select_decode_batch(t, {.batch = 512, .position = 0, .seed = 1, .step = 0, .allow_reuse = false});
  CHECK(batch.sequences == 512);
  CHECK(batch.repeated_tokens == 0);
  const auto [profile, evaluation] = split_by_sequence(t);
  CHECK(profile.tokens() == static_cast<std::size_t>(n / 2));
  CHECK(evaluation.tokens() == static_cast<std::size_t>(n / 2));
  CHECK(evaluation.info(0).seq == n - 2);  // the second sequence in order of appearance
}
