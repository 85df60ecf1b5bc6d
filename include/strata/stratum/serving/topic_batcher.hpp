// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Schedulers of the paper's serving loop (Stratum §6; their settings, `scheduler_params`, are
/// `serving/scheduler.hpp`'s): which waiting requests start next, at
/// iteration level (continuous batching: a prefill step admits a group into the running decode
/// batch, then decode steps continue with it; a request leaves when its last token is out).
///
/// Both schedulers bound the running batch (`max_batch` sequences), the group one prefill step
/// takes (`max_prefill`) and the KV cache: a request reserves KV for its whole length, prompt +
/// output, when it is admitted (no preemption), and the reservations of the running batch stay
/// within the system's KV capacity.
///
/// - `fcfs`: the waiting requests in arrival (ready) order; the head and those behind it join while
///   they fit (head-of-line: the first that does not fit stops the group). No topic labels are
///   used: the layout is placed once by the workload's topic mix and never swapped.
/// - `topic` (SLO-aware topic batcher): groups are of one label. With the current layout's label
///   c and the waiting request u of the earliest TTFT deadline (arrival + `ttft_slo`):
///   1. urgent: if, after the next action the batcher would otherwise take (a decode step, or a
///      prefill of label c), serving the waiting labels one after another in deadline order (EDF,
///      a swap and a prefill each) would make some head miss its deadline, u's label is served now
///      (swapping if it is not c);
///   2. else requests of label c join the running batch (no swap);
///   3. else, with nothing running, the label with the most waiting requests starts a new batch
///      (experts swapped to its layout first);
///   4. else decode continues: other labels wait for the batch to drain or for their deadline.
///   A u that misses its deadline even if served at once (overload) is served at once.
///   Estimates use the same step costs the simulation charges (classifier time owed, swap,
///   prefill), so "u can make its deadline" is exact for the chosen group; a request whose
///   deadline cannot be met even when served at once is counted `late` by the scheduler.

#include <algorithm>  // std::sort, std::min
#include <cstddef>  // std::size_t
#include <cstdint>  // std::int64_t, std::uint64_t
#include <deque>    // std::deque
#include <limits>   // std::numeric_limits
#include <utility>  // std::pair
#include <vector>   // std::vector

#include "strata/serving/scheduler.hpp"

namespace strata {
inline namespace v0 {

/// The waiting requests: one FIFO per label and one over all (ready order), with lazy removal.
class serving_queue {
 public:
  explicit serving_queue(int labels = 1)
      : by_label_(static_cast<std::size_t>(labels)), version_(static_cast<std::size_t>(labels), 0) {}
  template <class = void>
  void push(std::size_t req, int label) {
    if (req >= taken_.size()) {
      taken_.resize(req + 1, 0);
      label_of_.resize(req + 1, 0);
    }
    taken_[req] = 0;
    label_of_[req] = label;
    by_label_[static_cast<std::size_t>(label)].push_back(req);
    ++version_[static_cast<std::size_t>(label)];
    all_.push_back(req);
    ++size_;
  }
  template <class = void>
  void take(std::size_t req) {
    taken_[req] = 1;
    ++version_[static_cast<std::size_t>(label_of_[req])];
    --size_;
  }
  /// Changes so far to the waiting requests of `label` (a push or a take each).
  template <class = void>
  [[nodiscard]] std::uint64_t version(int l) const { return version_[static_cast<std::size_t>(l)]; }
  template <class = void>
  [[nodiscard]] std::size_t size() const { return size_; }
  template <class = void>
  [[nodiscard]] bool empty() const { return size_ == 0; }
  /// Waiting requests of `label`, oldest first (removed entries dropped).
  template <class = void>
  std::deque<std::size_t>& label(int l) { return clean(by_label_[static_cast<std::size_t>(l)]); }
  template <class = void>
  std::deque<std::size_t>& all() { return clean(all_); }
  template <class = void>
  [[nodiscard]] int labels() const { return static_cast<int>(by_label_.size()); }
  /// Waiting count of `label` (the FIFO after cleaning the front; entries behind may be taken
  /// only by `fcfs`, which does not ask).
  template <class = void>
  std::size_t count(int l) { return label(l).size(); }

 private:
  template <class = void>
  std::deque<std::size_t>& clean(std::deque<std::size_t>& q) {
    while (!q.empty() && taken_[q.front()] != 0) q.pop_front();
    return q;
  }
  std::vector<std::deque<std::size_t>> by_label_;
  std::deque<std::size_t> all_;
  std::vector<unsigned char> taken_;
  std::vector<int> label_of_;
  std::vector<std::uint64_t> version_;
  std::size_t size_ = 0;
};

/// What the scheduler chose.
struct schedule_choice {
  bool prefill = false;           ///< a prefill group (else: a decode step)
  int label = -1;                 ///< the group's label (topic policy); -1 for fcfs
  std::vector<std::size_t> group; ///< requests to admit
};

namespace detail {

/// The first requests of `q` that fit `slots` and `kv_room` (stop at the first that does not).
/// `kv_lo`, `kv_hi` (if given): the range of `kv_room` over which the group stays the same.
template <class KvOf>
void take_group(const std::deque<std::size_t>& q, int slots, std::int64_t kv_room, KvOf kv_of, std::vector<std::size_t>& out,
                std::int64_t* kv_lo = nullptr, std::int64_t* kv_hi = nullptr) {
  out.clear();
  std::int64_t used = 0, hi = std::numeric_limits<std::int64_t>::max();
  for (std::size_t r : q) {
    if (static_cast<int>(out.size()) >= slots) break;
    const std::int64_t k = kv_of(r);
    if (k > kv_room) {
      hi = used + k - 1;
      break;
    }
    kv_room -= k;
    used += k;
    out.push_back(r);
  }
  if (kv_lo != nullptr) *kv_lo = used;
  if (kv_hi != nullptr) *kv_hi = hi;
}

/// A label's next group and its prefill time, valid while the label's waiting requests, the
/// slots and the KV room (within [kv_lo, kv_hi]) stay the same.
struct label_group {
  std::uint64_t version = std::numeric_limits<std::uint64_t>::max();
  int slots = -1;
  std::int64_t kv_lo = 0, kv_hi = -1;
  std::vector<std::size_t> group;
  double prefill_s = 0.0;
};

}  // namespace detail

/// What the topic batcher keeps between decisions: each label's next group and its prefill time,
/// recomputed only when that label's queue, the free slots or the KV room change it (between
/// arrivals and admissions the deadline check then costs a swap lookup per waiting label).
struct topic_batcher_memo {
  std::vector<detail::label_group> by_label;
  std::vector<std::pair<double, int>> heads;
};

/// The scheduler's state at a decision (the system is free at `now_s`).
struct schedule_state {
  double now_s = 0.0;
  double owed_s = 0.0;              ///< classifier time charged before the next step
  int running = 0;                  ///< sequences decoding
  std::int64_t kv_free = 0;         ///< KV tokens not reserved
  int current_label = -1;           ///< label of the current layout (-1: the mix layout)
  double next_decode_s = 0.0;       ///< duration of the next decode step (0 if nothing runs)
};

/// Chooses the next step (file comment). `deadline(r)` is r's TTFT deadline, `kv_of(r)` its KV
/// reservation, `prefill_s(group)` a prefill step's duration, `swap_s(from, to)` a layout swap's.
/// `memo` (optional) carries the groups from one decision to the next; the choice is the same
/// with or without it.
template <class Deadline, class KvOf, class Prefill, class Swap>
schedule_choice choose_next(const scheduler_params& p, serving_queue& q, const schedule_state& s, Deadline deadline,
                            KvOf kv_of, Prefill prefill_s, Swap swap_s, topic_batcher_memo* memo = nullptr) {
  schedule_choice c;
  const int slots = std::min(p.max_prefill, p.max_batch - s.running);
  if (q.empty() || slots <= 0) return c;  // decode
  if (p.policy == schedule_policy::fcfs) {
    detail::take_group(q.all(), slots, s.kv_free, kv_of, c.group);
    c.prefill = !c.group.empty();
    return c;
  }
  topic_batcher_memo local;
  topic_batcher_memo& mm = memo != nullptr ? *memo : local;
  if (mm.by_label.size() != static_cast<std::size_t>(q.labels())) {
    mm.by_label.assign(static_cast<std::size_t>(q.labels()), detail::label_group{});
  }
  const auto group_of = [&](int l) -> const detail::label_group& {
    auto& e = mm.by_label[static_cast<std::size_t>(l)];
    if (e.version != q.version(l) || e.slots != slots || s.kv_free < e.kv_lo || s.kv_free > e.kv_hi) {
      detail::take_group(q.label(l), slots, s.kv_free, kv_of, e.group, &e.kv_lo, &e.kv_hi);
      e.prefill_s = e.group.empty() ? 0.0 : prefill_s(e.group);
      e.version = q.version(l);
      e.slots = slots;
    }
    return e;
  };
  // Topic batcher. Labels with waiting requests in order of their heads' deadlines (EDF).
  auto& heads = mm.heads;
  heads.clear();
  for (int l = 0; l < q.labels(); ++l) {
    auto& ql = q.label(l);
    if (!ql.empty()) heads.emplace_back(deadline(ql.front()), l);
  }
  std::sort(heads.begin(), heads.end());
  if (heads.empty()) return c;  // unreachable: a non-empty queue has a label with a head
  const int u = heads.front().second;
  const double du = heads.front().first;
  const double t0 = s.now_s + s.owed_s;
  const auto serve = [&](int l, const std::vector<std::size_t>& g) {
    c.prefill = !g.empty();
    c.label = l;
    c.group = g;
    return c;
  };
  const auto& eu = group_of(u);
  // u late whatever is done (overload): serve it now, its whole group.
  if (eu.group.empty()) return c;
  const double swap_u = swap_s(s.current_label, u);
  // Trim u's group until u's first token makes its deadline (a smaller prefill), if it can.
  const std::vector<std::size_t>* gu = &eu.group;
  std::vector<std::size_t> trimmed;
  if (t0 + swap_u + eu.prefill_s > du) {
    trimmed = eu.group;
    double pu = eu.prefill_s;
    while (trimmed.size() > 1 && t0 + swap_u + pu > du) {
      trimmed.pop_back();
      pu = prefill_s(trimmed);
    }
    gu = &trimmed;
    if (t0 + swap_u + pu > du) return serve(u, *gu);
  }
  if (u == s.current_label) return serve(u, *gu);
  const int cl = s.current_label;
  const detail::label_group* ec = cl >= 0 ? &group_of(cl) : nullptr;
  const bool gc_empty = ec == nullptr || ec->group.empty();
  // EDF chain: after `first` (a duration, ending on layout `from`), every waiting label in
  // deadline order takes a swap and a prefill; deferring is safe only if each head still makes
  // its deadline.
  const auto chain_ok = [&](double first, int from, int skip) {
    double time = t0 + first;
    for (const auto& [d, l] : heads) {
      if (l == skip) continue;
      const auto& e = group_of(l);
      if (e.group.empty()) continue;
      time += swap_s(from, l) + e.prefill_s;
      from = l;
      if (time + first > d) return false;  // margin: one more such action (arrivals, classifier time)
    }
    return true;
  };
  if (s.running == 0 && gc_empty) {
    // A new batch: the label with the most waiting requests, if the others can still wait for it.
    int best = u;
    std::size_t most = 0;
    for (const auto& h : heads) {
      if (q.count(h.second) > most) {
        most = q.count(h.second);
        best = h.second;
      }
    }
    if (best != u) {
      const auto& eb = group_of(best);
      if (!eb.group.empty() && chain_ok(swap_s(cl, best) + eb.prefill_s, best, best)) return serve(best, eb.group);
    }
    return serve(u, *gu);
  }
  const double other = !gc_empty ? ec->prefill_s : s.next_decode_s;
  if (!chain_ok(other, cl, -1)) return serve(u, *gu);  // urgent
  if (!gc_empty) return serve(cl, ec->group);
  return c;  // decode
}

}  // namespace v0
}  // namespace strata
