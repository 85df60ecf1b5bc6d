// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The Stratum system as a machine of the engine (`serving/engine_core.hpp`): its step costs and
/// its scheduling policy, for `scheduler.loop: "engine"` (`serving/scheduler.hpp`, `serving_loop`;
/// `stratum_serving.hpp`, `simulate_stratum`). The paper's own loop (`detail::run_serving`,
/// Stratum §6, Fig. 6) stays the default.
///
/// **A step's cost.** The engine schedules a step of decodes and prefill chunks (its token budget,
/// KV blocks, preemption by recompute, chunked prefill). On Stratum prefill and decode do not
/// overlap: the xPU takes part in every decode step (its norms and router; `simulator.hpp`, file
/// comment, "The loop"), so a step holding both runs them one after the other and costs their
/// sum, never their max:
///
///     step = classifier time owed + swap (if the step admits a group of a new label)
///            + prefill(b, P / b) on the xPU + decode(D, S̄, h̄) on the NMP
///
/// with `stratum_step_costs.hpp`'s `stratum_step_costs` (through the run's callbacks): b the step's prefill
/// chunks and P their tokens (b prompts of the chunks' mean length, as the paper's loop charges a
/// group of b prompts of its mean length; a chunk after p computed tokens is charged as a prompt
/// of its own tokens, so its attention to the p tokens before it is not charged, an underestimate
/// that only chunked or recomputed prompts see), D the step's decodes, S̄ their mean context (the
/// tokens whose KV they read, the GPU engine's convention: a decode of a request with g tokens
/// generated reads prompt + g − 1 cached tokens; the paper's loop passes prompt + g) and h̄ their
/// mean hot-hit rate on the current layout (`simulator.hpp`, "Layouts and hit rates").
///
/// **The policy.** The classifier's latency delays a request's readiness (the driver admits it at
/// arrival + latency) and the device time it owes is charged before the next step, as the paper's
/// loop does. Before the engine admits waiting requests, `choose_next` (`topic_batcher.hpp`, the topic
/// batcher or FCFS) picks the group, at most `max_prefill` prompts and `max_batch` − running
/// slots, with the same deadlines, prefill and swap estimates as the paper's loop (KV is the
/// engine's: the group is not cut by KV, the engine's blocks stop it); the group moves to the head
/// of the engine's waiting queue and the engine admits at most that many (its budget and blocks
/// still bound them); "decode" admits none. If the step admits a request of the group and its
/// label differs from the current layout's, the rows swap before the step (the swap cost of
/// `row_swap.hpp` between the two layouts) and the layout changes. A request the engine preempted
/// (back at the head of its queue) rejoins before any group, as vLLM's scheduler takes it back
/// first.
///
/// Differences from the paper's loop: chunked prefill and preemption by recompute (the loop
/// admits whole prompts and reserves a request's whole length), mixed steps (the loop runs a
/// prefill step, then a decode step: a running request's token waits for both either way, but a
/// new request's first token waits for the decodes of its step), the decode context convention
/// above, and `mean_batch` as the engine counts it (sequences per step).

#include <algorithm>  // std::max, std::min
#include <cstddef>    // std::size_t
#include <cstdint>    // std::int64_t
#include <deque>      // std::deque, the engine's waiting queue
#include <limits>     // std::numeric_limits
#include <utility>    // std::pair
#include <vector>     // std::vector

#include "strata/serving/engine_core.hpp"
#include "strata/serving/requests.hpp"
#include "strata/serving/scheduler.hpp"
#include "strata/serving/step_costs.hpp"
#include "strata/stratum/serving/topic_batcher.hpp"

namespace strata {
inline namespace v0 {

namespace detail {
/// What a part of a Stratum serving step is, for the thermal hook (`serving_thermal.hpp`), in the
/// paper's loop (`run_serving`) and through the engine alike: the classifier's device time, a row
/// swap, a prefill on the xPU, a decode step on the NMP.
enum class serving_step_kind { classifier, swap, prefill, decode };
}  // namespace detail

/// What a Stratum run through the engine charged besides prefill and decode (file comment).
struct stratum_engine_counts {
  std::int64_t swaps = 0;
  double swap_time_s = 0.0;
  double classifier_time_s = 0.0;
  double hit_tokens = 0.0;      ///< Σ h over decode tokens
  double decode_tokens = 0.0;   ///< decode tokens (the hit rate's weight)
};

/// The Stratum system's step costs and policy for `engine_core` (file comment). `Model` holds the
/// run's costs: `decode(batch, mean context, h)`, `prefill(batch, mean prompt)`, `swap(from, to)`
/// (-1: the mix layout), `hit(request, decode token, layout)`, `uses_hits` and `labels` (the
/// topic batcher's labels; 1 for FCFS). `reqs`, `labels` (each request's label), `st` and `model`
/// outlive it.
template <class Model>
class stratum_engine_costs {
 public:
  stratum_engine_costs(const std::vector<request>& reqs, const std::vector<int>& labels, const engine_request_state& st,
                       const Model& model, const scheduler_params& sp)
      : reqs_(&reqs), labels_(&labels), st_(&st), m_(&model), sp_(sp), q_(model.labels), seen_(reqs.size(), 0),
        in_queue_(reqs.size(), 0) {}

  /// Classifier device time `s` owed by a request that became ready: charged before the next step.
  void owe(double s) { owed_ += s; }
  /// The start of the step the engine schedules next (the driver's clock, `drive_engine`): where
  /// the thermal hook sees its parts begin.
  void at(double t) { now_ = t; }

  /// The engine's admission hook (`engine_policy_source`, file comment): the group `choose_next`
  /// picks moved to the head of `waiting`, and its size; a preempted request at the head first.
  std::size_t admission(std::deque<std::size_t>& waiting, const std::vector<std::size_t>& running, double t) {
    pending_label_ = -1;
    // Preempted requests (seen, no longer queued) sit at the head: they go first, as a group of their own.
    std::size_t lead = 0;
    while (lead < waiting.size() && seen_[waiting[lead]] != 0 && in_queue_[waiting[lead]] == 0) ++lead;
    if (lead > 0) return lead;
    // Arrivals since the last step, at the tail: into the batcher's queue in their order.
    std::size_t fresh = 0;
    while (fresh < waiting.size() && seen_[waiting[waiting.size() - 1 - fresh]] == 0) ++fresh;
    for (std::size_t i = waiting.size() - fresh; i < waiting.size(); ++i) {
      const std::size_t r = waiting[i];
      seen_[r] = 1;
      in_queue_[r] = 1;
      q_.push(r, (*labels_)[r]);
    }
    if (q_.empty()) return 0;
    const auto& reqs = *reqs_;
    const auto& s = *st_;
    // The next decode step's time, as the paper's loop estimates it (the topic batcher's; FCFS reads none).
    double next_decode = 0.0;
    if (!running.empty() && sp_.policy == schedule_policy::topic) {
      double ctx = 0.0, h = 0.0;
      for (std::size_t r : running) {
        ctx += static_cast<double>(s.computed[r]);
        if (m_->uses_hits) h += m_->hit(r, std::max(0, s.gen[r] - 1), layout_);
      }
      const double b = static_cast<double>(running.size());
      next_decode = decode(static_cast<int>(running.size()), ctx / b, h / b).time_s;
    }
    const schedule_state state{t, owed_, static_cast<int>(running.size()), std::numeric_limits<std::int64_t>::max() / 4,
                               layout_, next_decode};
    const double slo = sp_.ttft_slo.si();
    const auto choice = choose_next(
        sp_, q_, state, [&](std::size_t r) { return reqs[r].arrival_s + slo; }, [](std::size_t) { return std::int64_t{0}; },
        [&](const std::vector<std::size_t>& g) { return prefill_of(g).time_s; },
        [&](int a, int b) { return a == b ? 0.0 : m_->swap(a, b).time_s; }, &memo_);
    if (!choice.prefill || choice.group.empty()) return 0;
    pending_label_ = choice.label;
    // The group to the head of the queue, the rest in their order behind it.
    for (std::size_t r : choice.group) in_queue_[r] = 2;  // marks the group
    std::size_t found = 0, scan = 0;
    rest_.clear();
    while (found < choice.group.size() && scan < waiting.size()) {
      const std::size_t r = waiting[scan++];
      if (in_queue_[r] == 2) {
        ++found;
      } else {
        rest_.push_back(r);
      }
    }
    std::size_t i = 0;
    for (std::size_t r : choice.group) {
      waiting[i++] = r;
      in_queue_[r] = 1;
    }
    for (std::size_t r : rest_) waiting[i++] = r;
    return choice.group.size();
  }

  /// The engine's look at a scheduled step (`engine_policy_source`): the requests it admitted
  /// leave the batcher's queue; the swap, if the group's label is new; the step's decodes' hit
  /// rates and its prefill chunks.
  void scheduled(const std::vector<std::pair<std::size_t, std::int64_t>>& sched) {
    const auto& reqs = *reqs_;
    const auto& s = *st_;
    std::size_t admitted = 0;
    for (const auto& [r, nn] : sched) {
      if (in_queue_[r] == 0) continue;
      q_.take(r);
      in_queue_[r] = 0;
      ++admitted;
    }
    if (admitted > 0 && pending_label_ >= 0 && pending_label_ != layout_) {
      swap_ = m_->swap(layout_, pending_label_);
      swapped_ = true;
      ++c_.swaps;
      layout_ = pending_label_;
    }
    pending_label_ = -1;
    hit_sum_ = 0.0;
    chunks_ = 0;
    for (const auto& [r, nn] : sched) {
      const std::int64_t num_tokens = static_cast<std::int64_t>(reqs[r].prompt) + s.gen[r];
      if (s.gen[r] >= 1 && nn == 1 && s.computed[r] == num_tokens - 1) {
        if (m_->uses_hits) hit_sum_ += m_->hit(r, s.gen[r] - 1, layout_);
      } else {
        ++chunks_;
      }
    }
  }

  /// The step the engine scheduled (file comment): classifier time owed, the swap, prefill, then
  /// decode, one after the other. With the model's thermal hook (`Model::thermal`, when it has one
  /// and it is set; `serving_thermal.hpp`), each part is charged through it at its start (the
  /// step's start `at`, plus the parts before it), as the paper's loop charges its steps: the
  /// classifier's time, a swap, the prefill, then the decode, which the hook may stretch.
  step_cost mixed(const mixed_step& ms) {
    const bool hooked = has_thermal();
    step_cost c{owed_, 0.0};
    if (hooked && owed_ > 0.0) (void)charge(now_, detail::serving_step_kind::classifier, step_cost{owed_, 0.0});
    c_.classifier_time_s += owed_;
    owed_ = 0.0;
    if (swapped_) {
      const step_cost sw = hooked ? charge(now_ + c.time_s, detail::serving_step_kind::swap, swap_) : swap_;
      c.time_s += sw.time_s;
      c.energy_j += sw.energy_j;
      c_.swap_time_s += sw.time_s;
    }
    swap_ = {};
    swapped_ = false;
    if (ms.prefill_tokens > 0.0) {
      const int b = std::max(1, chunks_);
      step_cost p = m_->prefill(b, ms.prefill_tokens / b);
      if (hooked) p = charge(now_ + c.time_s, detail::serving_step_kind::prefill, p);
      c.time_s += p.time_s;
      c.energy_j += p.energy_j;
    }
    if (ms.decodes > 0) {
      const double d = ms.decodes;
      const double h = m_->uses_hits ? hit_sum_ / d : 0.0;
      step_cost dc = decode(ms.decodes, ms.decode_context / d, h);
      if (hooked) dc = charge(now_ + c.time_s, detail::serving_step_kind::decode, dc);
      c.time_s += dc.time_s;
      c.energy_j += dc.energy_j;
      c_.hit_tokens += h * d;
      c_.decode_tokens += d;
    }
    return c;
  }

  [[nodiscard]] const stratum_engine_counts& counts() const { return c_; }
  /// The label of the current layout (-1: the mix layout).
  [[nodiscard]] int layout() const { return layout_; }

 private:
  /// The decode cost, the last one kept: a step's estimate (`admission`) and its charge (`mixed`)
  /// ask for the same batch, context and hit rate when every running request decodes.
  step_cost decode(int b, double ctx, double h) {
    if (b != last_b_ || ctx != last_ctx_ || h != last_h_) {
      last_decode_ = m_->decode(b, ctx, h);
      last_b_ = b;
      last_ctx_ = ctx;
      last_h_ = h;
    }
    return last_decode_;
  }
  /// Whether the model has a thermal hook and it is set.
  [[nodiscard]] bool has_thermal() const {
    if constexpr (requires(const Model& m) { static_cast<bool>(m.thermal); }) {
      return static_cast<bool>(m_->thermal);
    } else {
      return false;
    }
  }
  /// A part of a step of kind `k` starting at `t0` through the thermal hook (`has_thermal()`).
  step_cost charge(double t0, detail::serving_step_kind k, const step_cost& c) const {
    if constexpr (requires(const Model& m, double t, detail::serving_step_kind kk, const step_cost& x) { m.thermal(t, kk, x); }) {
      return m_->thermal(t0, k, c);
    } else {
      return c;
    }
  }
  /// A prefill of `g`'s prompts: b prompts of their mean length (as the paper's loop charges it).
  step_cost prefill_of(const std::vector<std::size_t>& g) const {
    double p = 0.0;
    for (std::size_t r : g) p += (*reqs_)[r].prompt;
    return m_->prefill(static_cast<int>(g.size()), p / static_cast<double>(g.size()));
  }

  const std::vector<request>* reqs_;
  const std::vector<int>* labels_;
  const engine_request_state* st_;
  const Model* m_;
  scheduler_params sp_;
  serving_queue q_;
  topic_batcher_memo memo_;
  std::vector<unsigned char> seen_;      ///< reached the engine's waiting queue once
  std::vector<unsigned char> in_queue_;  ///< in the batcher's queue (1), in the group being moved (2)
  std::vector<std::size_t> rest_;
  int layout_ = -1, pending_label_ = -1, chunks_ = 0;
  bool swapped_ = false;  ///< the step admitted a group of a new label: `swap_` before it
  double owed_ = 0.0, hit_sum_ = 0.0, now_ = 0.0;
  step_cost swap_{}, last_decode_{};
  int last_b_ = -1;
  double last_ctx_ = -1.0, last_h_ = -1.0;
  stratum_engine_counts c_;
};

}  // namespace v0
}  // namespace strata
