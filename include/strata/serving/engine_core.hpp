// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The engine scheduler as a steppable object (the serving wing, `include/strata/serving/`):
/// `engine_core<Costs>` is one vLLM V1 engine (`engine.hpp`: token-budget steps mixing decodes
/// with prefill chunks, KV blocks, preemption by recompute, prefix caching of the shared prefix),
/// made of `ranks` engine cores stepping together (1, or the DP-attention ranks, each with its own
/// scheduler, limits and 1/ranks of the KV blocks; arrivals to the rank of vLLM's DP load balancer,
/// `route_to_rank`). A driver owns time: it `admit`s requests, calls `begin_step` (schedule and
/// cost one step: its duration) and, when the step's time has passed, `end_step` (its tokens:
/// first tokens, inter-token gaps, finished or handed-off requests). `run_engine` (one engine,
/// `simulator.hpp`) and `run_engine_cluster` (replicas behind a router, prefill/decode
/// disaggregation, `serving/cluster.hpp`) are such drivers.
///
/// The step-cost source is a concept: `mixed(const mixed_step&)` costs a step of one scheduler
/// (`step_cost_source`), and, for several ranks, `mixed_ranks(const std::vector<mixed_step>&)`
/// costs a step from every rank's part (`ranked_step_cost_source`); `gpu_step_costs`
/// (`step_costs.hpp`) is both, and any machine that supplies the two serves through the same core.
///
/// A machine's own scheduling policy (`engine_policy_source`, detected with `requires`, so a
/// source without it, the GPUs', steps exactly as before): before a rank admits waiting requests,
/// `admission(waiting, running, t)` may reorder its waiting queue and returns how many at its head
/// may join the step (0: none; the budget, blocks and cap still bound them); once the step is
/// scheduled, `scheduled(sched)` sees its (request, tokens) pairs before `mixed` costs it (the
/// Stratum system's topic batcher and row swaps, `stratum/serving/stratum_engine.hpp`). One rank only.
///
/// Roles. A `colocated` engine runs a request from prefill to its last token. A `prefill` engine
/// (disaggregated serving) runs it to its first token and hands it off (its blocks freed). A
/// `decode` engine admits handed-off requests whose prompt KV arrived from a prefill engine: their
/// prompt counts as computed (vLLM's KV connector reports it as external computed tokens,
/// `get_num_new_matched_tokens`, and the scheduler allocates their blocks on admission;
/// vllm/v1/core/sched/scheduler.py, v0.10–v0.15), so their first step on the decode engine is a
/// decode of one token; a preempted one recomputes prompt and generated tokens there.

#include <algorithm>  // std::min, std::max
#include <bit>        // std::countr_zero (a power-of-two block size)
#include <concepts>   // std::convertible_to
#include <cstddef>    // std::size_t, std::ptrdiff_t
#include <cstdint>    // std::int64_t
#include <deque>      // std::deque
#include <functional>  // std::greater (the cohort's heaps)
#include <limits>     // std::numeric_limits
#include <queue>      // std::priority_queue (the cohort's calendar)
#include <string>     // std::string
#include <tuple>      // std::tuple (a calendar entry)
#include <unordered_map>  // std::unordered_map, a conversation's last turn
#include <utility>    // std::pair
#include <vector>     // std::vector

#include "strata/core/error.hpp"
#include "strata/serving/engine.hpp"
#include "strata/serving/requests.hpp"
#include "strata/serving/step_costs.hpp"

namespace strata {
inline namespace v0 {

/// A machine that costs one engine step from its `mixed_step` (file comment).
template <class C>
concept step_cost_source = requires(C& c, const mixed_step& s) {
  { c.mixed(s) } -> std::convertible_to<step_cost>;
};

/// A machine that also costs a step of several DP ranks from each rank's part (file comment).
template <class C>
concept ranked_step_cost_source = step_cost_source<C> && requires(C& c, const std::vector<mixed_step>& v) {
  { c.mixed_ranks(v) } -> std::convertible_to<step_cost>;
};

/// A machine that also schedules: its admission order and a look at each scheduled step (file comment).
template <class C>
concept engine_policy_source =
    step_cost_source<C> && requires(C& c, std::deque<std::size_t>& waiting, const std::vector<std::size_t>& running,
                                    double t, const std::vector<std::pair<std::size_t, std::int64_t>>& sched) {
      { c.admission(waiting, running, t) } -> std::convertible_to<std::size_t>;
      c.scheduled(sched);
    };

/// What an engine does with its requests (file comment).
enum class engine_role { colocated, prefill, decode };

/// Per-request scheduler state of a run, shared by the engines of the run (a request is on one
/// engine at a time; a disaggregated one moves from a prefill engine to a decode engine with its
/// tokens generated and times).
struct engine_request_state {
  std::vector<std::int64_t> computed, held, shared, external;
  std::vector<int> gen;
  std::vector<double> first, last, finish;
  std::vector<char> finished;

  explicit engine_request_state(std::size_t n)
      : computed(n, 0), held(n, 0), shared(n, 0), external(n, 0), gen(n, 0),
        // Not yet: NaN, which no result can hold (`check_result_numbers`); every request sets both.
        first(n, std::numeric_limits<double>::quiet_NaN()), last(n, 0.0),
        finish(n, std::numeric_limits<double>::quiet_NaN()), finished(n, 0) {}
};

/// An engine's counts over its steps.
struct engine_counters {
  std::int64_t decode_steps = 0, prefill_steps = 0, mixed_steps = 0;
  std::int64_t preemptions = 0, prefix_cached_tokens = 0;
  double energy_j = 0.0, busy_time_s = 0.0, batch_sum = 0.0;
  /// Scheduler passes the preemptions added to the run's progress bound (`run_engine`).
  std::int64_t extra_passes = 0;
};

namespace detail {

/// One engine core's scheduler state: its queues, its free KV blocks, which prefixes its cache
/// holds, and the step it scheduled.
struct engine_rank {
  std::deque<std::size_t> waiting;
  std::vector<std::size_t> running;
  std::vector<std::pair<std::size_t, std::int64_t>> sched;  ///< (request, tokens) of the step
  std::int64_t free_blocks = 0;
  /// Whether each prefix is cached on the rank: index 0 the workload-wide shared prefix, g + 1
  /// the system prompt of prefix group g (`engine.hpp`, prefix groups).
  std::vector<char> prefix_cached;
  std::int64_t allocated = 0;  ///< blocks taken from the free queue so far (its LRU clock)
  bool preempted = false;      ///< the step preempted a request
};

/// A finished turn of a conversation (`engine.hpp`: prefix groups): its rank, the full blocks it
/// wrote, the free blocks ahead of them in the free queue and the rank's allocation clock when it
/// finished.
struct engine_turn_cache {
  std::size_t rank = 0;
  std::int64_t blocks = 0, ahead = 0, clock = 0;
};

/// The DP rank vLLM's load balancer gives an arriving request: the lowest waiting·4 + running,
/// the first such rank on a tie (vllm/v1/engine/core_client.py, `DPLBAsyncMPClient.
/// get_core_engine_for_request`, v0.10.2 to v0.15.x; `engine.hpp`).
template <class = void>
inline std::size_t route_to_rank(const std::vector<engine_rank>& ranks) {
  std::size_t best = 0;
  std::size_t best_score = std::numeric_limits<std::size_t>::max();
  for (std::size_t k = 0; k < ranks.size(); ++k) {
    const std::size_t score = 4 * ranks[k].waiting.size() + ranks[k].running.size();
    if (score < best_score) {
      best_score = score;
      best = k;
    }
  }
  return best;
}

/// The shared prefix every prompt of `reqs` starts with: `ep.shared_prefix_tokens` capped at the
/// shortest prompt (`engine.hpp`).
template <class = void>
inline std::int64_t engine_shared_prefix(const std::vector<request>& reqs, const engine_params& ep) {
  int shortest = std::numeric_limits<int>::max();
  for (const auto& rq : reqs) shortest = std::min(shortest, rq.prompt);
  return std::min<std::int64_t>(ep.shared_prefix_tokens, shortest);
}

}  // namespace detail

/// What `engine_core::begin_step` did.
enum class engine_step_status {
  idle,       ///< nothing to run
  preempted,  ///< a rank preempted and nothing was scheduled: schedule again (same time)
  stuck,      ///< a rank's queue head can never be scheduled (`engine_step::reason`)
  ran,        ///< a step was scheduled and costed
};

/// A step `begin_step` scheduled.
struct engine_step {
  engine_step_status status = engine_step_status::idle;
  step_cost cost{};  ///< the machine's part (GPU time and energy)
  /// The step's duration: the GPU's and the host's (`engine_host.hpp`: max of the two with async
  /// scheduling, else their sum; the slowest rank's host time).
  double time_s = 0.0;
  std::string reason;  ///< stuck: why
};

/// One engine (file comment): `ranks` schedulers of `blocks` KV blocks each under the budget and
/// cap `lim`, costed by `costs`, in role `role`; `reqs` and `st` are the run's and outlive it.
template <step_cost_source Costs>
class engine_core {
 public:
  engine_core(const std::vector<request>& reqs, engine_request_state& st, const engine_params& ep,
              const engine_limits& lim, std::int64_t blocks, Costs& costs, int ranks = 1,
              engine_role role = engine_role::colocated)
      : reqs_(&reqs), st_(&st), ep_(ep), lim_(lim), blocks_(blocks), costs_(&costs), role_(role),
        rk_(static_cast<std::size_t>(std::max(1, ranks))), rank_steps_(rk_.size()) {
    if constexpr (!ranked_step_cost_source<Costs>) {
      detail::require(ranks == 1, "strata.engine", "ranks", ranks, "1: the step costs cost no DP ranks (mixed_ranks)");
    }
    detail::require(ranks >= 1, "strata.engine", "ranks", ranks, "at least 1");
    if constexpr (engine_policy_source<Costs>) {
      detail::require(ranks == 1, "strata.engine", "ranks", ranks, "1: a machine's own admission policy schedules one rank");
    }
    bs_ = ep.block_size;
    if (bs_ > 0 && (bs_ & (bs_ - 1)) == 0) bs_shift_ = std::countr_zero(static_cast<std::uint64_t>(bs_));
    shared_prefix_ = detail::engine_shared_prefix(reqs, ep);
    prefix_blocks_ = ep.enable_prefix_caching ? shared_prefix_ / bs_ : 0;
    // Each request's cached prefix (engine.hpp): its group's system prompt, else the shared prefix.
    std::size_t keys = 1;
    for (const auto& rq : reqs) {
      if (rq.prefix_group >= 0) keys = std::max(keys, static_cast<std::size_t>(rq.prefix_group) + 2);
      conversations_ = conversations_ || rq.conversation >= 0;
    }
    for (auto& e : rk_) {
      e.free_blocks = blocks;
      e.prefix_cached.assign(keys, 0);
    }
    seq_.assign(reqs.size(), 0);
    in_co_.assign(reqs.size(), 0);
    co_e0_.assign(reqs.size(), 0);
    co_bucket_.assign(static_cast<std::size_t>(std::max<std::int64_t>(1, bs_)), 0);
  }

  /// Whether the steps that are the cohort of steady decoders plus a few other requests run at
  /// the cost of what changes in them (`docs/serving.md`, the decode cohort under "Replicas and
  /// disaggregation"): the same steps, the same doubles; false (the default): every step through
  /// the scheduler's pass over the running requests. Set before the first step.
  void set_cohort(bool on) { co_enabled_ = on; }

  /// Why request `r` can never run on this engine (its KV beside the cached prefix exceeds one
  /// rank's blocks; a prompt over the budget without chunked prefill), else empty.
  [[nodiscard]] std::string unfit(std::size_t r) const {
    const auto& q = (*reqs_)[r];
    const std::int64_t out_tokens = role_ == engine_role::prefill ? 1 : q.output;
    // Its whole length (the last token's KV is never written) beside the cached prefix it does not use.
    const std::int64_t len = static_cast<std::int64_t>(q.prompt) + out_tokens - 1;
    const std::int64_t pb = pblocks(r);
    const std::int64_t used = std::min<std::int64_t>(pb, std::min<std::int64_t>(q.prompt, prefix_len(r)) / bs_);
    const std::int64_t need = blocks_of(len) + pb - used;
    if (need > blocks_) {
      return "request " + std::to_string(r) + " needs " + std::to_string(need) + " KV blocks of " + std::to_string(bs_) +
             " tokens, the GPUs hold " + std::to_string(blocks_) + (rk_.size() > 1 ? " per DP rank" : "");
    }
    return {};
  }
  /// Why request `r`'s prompt can never be scheduled whole (chunked prefill off), else empty.
  [[nodiscard]] std::string unfit_prompt(std::size_t r) const {
    const auto& q = (*reqs_)[r];
    if (ep_.enable_chunked_prefill || role_ == engine_role::decode || q.prompt <= lim_.max_num_batched_tokens) return {};
    return "request " + std::to_string(r) + " has a prompt of " + std::to_string(q.prompt) +
           " tokens, more than max_num_batched_tokens (" + std::to_string(lim_.max_num_batched_tokens) +
           ") with enable_chunked_prefill off: it can never be scheduled (raise the budget or chunk)";
  }

  /// Takes request `r`, which reached the engine at time `at` (routed to a rank at the next
  /// `begin_step` that may take it, as vLLM's engine client does between steps: with async
  /// scheduling, a step takes what had arrived when the step before it started; an idle engine
  /// schedules at once; `engine_host.hpp`). On a decode engine, a request with a generated token
  /// arrives with its prompt's KV (file comment). Requests are admitted in the order they arrive.
  void admit(std::size_t r, double at = -std::numeric_limits<double>::infinity()) {
    inbox_.emplace_back(r, at);
    ++outstanding_;
  }

  /// Requests admitted and not finished or handed off.
  [[nodiscard]] std::int64_t outstanding() const { return outstanding_; }
  /// Requests waiting (not yet routed to a rank, or in a rank's waiting queue).
  [[nodiscard]] std::size_t waiting() const {
    std::size_t w = inbox_.size();
    for (const auto& e : rk_) w += e.waiting.size();
    return w;
  }
  /// Requests running on the ranks.
  [[nodiscard]] std::size_t running() const {
    std::size_t w = 0;
    for (const auto& e : rk_) w += e.running.size();
    return w - dead_;
  }
  /// Free KV blocks over the ranks.
  [[nodiscard]] std::int64_t free_blocks() const {
    std::int64_t b = 0;
    for (const auto& e : rk_) b += e.free_blocks;
    return b;
  }
  [[nodiscard]] int ranks() const { return static_cast<int>(rk_.size()); }
  [[nodiscard]] std::int64_t blocks_per_rank() const { return blocks_; }
  [[nodiscard]] engine_role role() const { return role_; }
  [[nodiscard]] const engine_counters& counters() const { return c_; }
  /// Inter-token gaps (value, count) of the steps so far, one entry per distinct gap of a step.
  [[nodiscard]] const std::vector<std::pair<double, double>>& gaps() const { return gaps_; }
  [[nodiscard]] std::vector<std::pair<double, double>>& gaps() { return gaps_; }

  /// Routes the admitted requests to their ranks and schedules one step on every rank starting at
  /// time `t` (file comment); on `ran`, its cost and duration (the caller ends it with `end_step`
  /// at its end).
  engine_step begin_step(double t = 0.0) {
    // The cohort's steps follow each other: a step not at the last one's end, or with no request
    // running, writes the cohort back and schedules as always.
    if (co_on_ && (t != co_t_ || co_size_ + static_cast<std::int64_t>(co_active_.size()) == 0)) end_cohort();
    bool idle = true;
    for (const auto& e : rk_) idle = idle && e.waiting.empty() && e.running.empty();
    // Arrivals, each to its rank (`route_to_rank`; one rank: all to it): with async scheduling
    // those that reached the engine when the step before this one started (an idle engine
    // schedules at once).
    const double cutoff = ep_.host.async_scheduling && !idle ? sched_t_ : t;
    std::size_t taken = 0;
    while (taken < inbox_.size() && inbox_[taken].second <= cutoff) {
      rk_[detail::route_to_rank(rk_)].waiting.push_back(inbox_[taken].first);
      ++taken;
    }
    inbox_.erase(inbox_.begin(), inbox_.begin() + static_cast<std::ptrdiff_t>(taken));
    engine_step out;
    idle = true;
    for (const auto& e : rk_) idle = idle && e.waiting.empty() && e.running.empty();
    if (idle) return out;
    if (co_on_) {
      if (cohort_step(t, out)) {
        co_backoff_ = 0;
        return out;
      }
      // The budget or the free blocks bind: the scheduler's pass, and a while before the next try.
      end_cohort();
      co_backoff_ = std::min(64, std::max(1, 2 * co_backoff_));
      co_wait_ = co_backoff_;
    }
    bool any = false;
    now_ = t;
    for (std::size_t k = 0; k < rk_.size(); ++k) {
      schedule(k);
      any = any || !rk_[k].sched.empty();
    }
    for (std::size_t k = 0; k < rk_.size(); ++k) {
      const auto& e = rk_[k];
      if (!e.sched.empty() || e.preempted || e.waiting.empty()) continue;
      // Nothing runs on the rank and its queue's head does not fit: it never will.
      const std::size_t r = e.waiting.front();
      out.status = engine_step_status::stuck;
      out.reason = "the engine scheduler could not schedule request " + std::to_string(r) + " (prompt " +
                   std::to_string((*reqs_)[r].prompt) + " tokens) in a step" +
                   (rk_.size() > 1 ? " of DP rank " + std::to_string(k) : std::string()) + ": max_num_batched_tokens " +
                   std::to_string(lim_.max_num_batched_tokens) + ", max_num_seqs " + std::to_string(lim_.max_num_seqs) +
                   ", " + std::to_string(e.free_blocks) + " of " + std::to_string(blocks_) + " KV blocks of " +
                   std::to_string(bs_) + " tokens free" + (ep_.enable_chunked_prefill ? "" : ", enable_chunked_prefill off");
      return out;
    }
    if (!any) {  // a rank preempted: the next pass admits the head of its queue
      out.status = engine_step_status::preempted;
      return out;
    }
    if constexpr (engine_policy_source<Costs>) costs_->scheduled(rk_.front().sched);
    // One pass over every scheduled token of every rank.
    const auto& reqs = *reqs_;
    auto& s_ = *st_;
    mixed_step ms;
    std::size_t step_batch = 0;
    for (std::size_t k = 0; k < rk_.size(); ++k) {
      mixed_step& s = rank_steps_[k];
      s = mixed_step{};
      // The decodes' context summed in integers: a sum of integers below 2^53, so the same double
      // as adding each to `decode_context` (which, a chain of dependent additions, bound the loop).
      std::int64_t decode_context = 0;
      for (const auto& [r, nn] : rk_[k].sched) {
        const std::int64_t num_tokens = static_cast<std::int64_t>(reqs[r].prompt) + s_.gen[r];
        s.tokens += static_cast<int>(nn);
        if (s_.computed[r] + nn == num_tokens) ++s.sampled;
        if (s_.gen[r] >= 1 && nn == 1 && s_.computed[r] == num_tokens - 1) {
          ++s.decodes;
          decode_context += s_.computed[r];
        } else {
          const double c = static_cast<double>(nn), p = static_cast<double>(s_.computed[r]);
          s.prefill_tokens += c;
          s.prefill_pairs += c * p + c * (c + 1.0) / 2.0;
          s.prefill_prior += p;
        }
      }
      s.decode_context = static_cast<double>(decode_context);
      step_batch += rk_[k].sched.size();
      if (k == 0) {
        ms = s;
      } else {
        ms.tokens += s.tokens;
        ms.sampled += s.sampled;
        ms.decodes += s.decodes;
        ms.decode_context += s.decode_context;
        ms.prefill_tokens += s.prefill_tokens;
        ms.prefill_pairs += s.prefill_pairs;
        ms.prefill_prior += s.prefill_prior;
      }
    }
    step_cost cost{};
    if constexpr (ranked_step_cost_source<Costs>) {
      cost = rk_.size() == 1 ? costs_->mixed(ms) : costs_->mixed_ranks(rank_steps_);
    } else {
      cost = costs_->mixed(ms);
    }
    if (ms.decodes > 0 && ms.prefill_tokens > 0.0) {
      ++c_.mixed_steps;
    } else if (ms.decodes > 0) {
      ++c_.decode_steps;
    } else {
      ++c_.prefill_steps;
    }
    c_.batch_sum += static_cast<double>(step_batch);
    c_.energy_j += cost.energy_j;
    c_.busy_time_s += cost.time_s;
    // The host's part (engine_host.hpp): each engine core's own, the slowest one binding.
    double host_s = 0.0;
    for (const auto& e : rk_) host_s = std::max(host_s, host_step_time(ep_.host, static_cast<double>(e.sched.size())));
    out.status = engine_step_status::ran;
    out.cost = cost;
    out.time_s = engine_step_time(ep_.host, cost.time_s, host_s);
    sched_t_ = t;
    return out;
  }

  /// Ends the step `begin_step` scheduled at time `t` (its end): every scheduled token computed,
  /// a token sampled for each request whose tokens are all computed (its first: `first`; else an
  /// inter-token gap), and a request that reached its last token (`done`) or, on a prefill engine,
  /// its first (`handed`) leaves with its blocks freed. `done` and `handed` are appended to.
  void end_step(double t, std::vector<std::size_t>& done, std::vector<std::size_t>& handed) {
    if (co_step_) {
      co_step_ = false;
      end_cohort_step(t, done);
      return;
    }
    const auto& reqs = *reqs_;
    auto& s = *st_;
    step_gaps_.clear();
    // The entry of `step_gaps_` the last gap went to and the gaps to it not yet added: its count
    // kept in a register while the gaps repeat (they mostly do: the requests decoding since the
    // step before); counts of ones, integers, so the same doubles as adding 1 per gap.
    std::size_t cur = std::numeric_limits<std::size_t>::max();
    std::int64_t cur_n = 0;
    for (std::size_t k = 0; k < rk_.size(); ++k) {
      auto& e = rk_[k];
      bool finished_any = false;
      for (const auto& [r, nn] : e.sched) {
        if (!computed_step(e, r, nn)) continue;
        ++s.gen[r];
        if (s.gen[r] == 1) {
          s.first[r] = t;
        } else {
          const double g = t - s.last[r];
          if (cur < step_gaps_.size() && step_gaps_[cur].first == g) {
            ++cur_n;
          } else {
            if (cur < step_gaps_.size()) step_gaps_[cur].second += static_cast<double>(cur_n);
            cur = 0;
            while (cur < step_gaps_.size() && !(step_gaps_[cur].first == g)) ++cur;
            if (cur == step_gaps_.size()) step_gaps_.emplace_back(g, 0.0);
            cur_n = 1;
          }
        }
        s.last[r] = t;
        const bool last_token = s.gen[r] >= reqs[r].output;
        if (last_token || role_ == engine_role::prefill) {
          if (last_token && conversations_ && reqs[r].conversation >= 0) {
            // Its blocks join the free queue behind the free ones, still hashed (engine.hpp).
            const std::int64_t written = static_cast<std::int64_t>(reqs[r].prompt) + reqs[r].output - 1;
            turns_[reqs[r].conversation] = {k, written / bs_, e.free_blocks, e.allocated};
          }
          e.free_blocks += s.held[r];
          s.held[r] = 0;
          s.finished[r] = 1;  // leaves this engine (erased from its running list below)
          --outstanding_;
          finished_any = true;
          if (last_token) {
            s.finish[r] = t;
            done.push_back(r);
          } else {
            handed.push_back(r);
          }
        }
      }
      if (finished_any) {
        std::erase_if(e.running, [&](std::size_t r) { return s.finished[r] != 0; });
        // A handed-off request runs on: it is unfinished for the engine it moves to.
        for (const auto& [r, nn] : e.sched) {
          if (s.finished[r] != 0 && s.gen[r] < reqs[r].output) {
            s.finished[r] = 0;
            s.computed[r] = 0;
            s.shared[r] = 0;
            s.external[r] = reqs[r].prompt;
          }
        }
      }
    }
    if (cur < step_gaps_.size()) step_gaps_[cur].second += static_cast<double>(cur_n);
    for (const auto& x : step_gaps_) gaps_.push_back(x);
    if (co_wait_ > 0) {
      --co_wait_;
    } else {
      begin_cohort(t);
    }
  }

  /// Runs, from time `t` (the start of a step; the driver has admitted what arrived by then), the
  /// pure decode steps that follow each other with the same running requests, each step exactly as
  /// `begin_step` and `end_step` run it, the same doubles in the same order; returns how many (0:
  /// the step at `t` is not such a step: run it with `begin_step`). Such a step: one rank, a
  /// colocated engine with no scheduling policy of its machine and no conversations; every running
  /// request decoding one token, its last token sampled at `t`, none reaching its last token; no
  /// request joins (none routed to the queue, or the cap `max_num_seqs` reached); the KV blocks the
  /// steps take within the free ones (no preemption). Between two such steps only the decode
  /// context grows (by the running count; a sum of integers, exact in a double), so the step's
  /// scheduling is done once for all of them: per step only its cost, its host time, its gap and
  /// the counters (O(1) instead of O(running)). `next(t, full)` is asked before each step after the first,
  /// at its start t: false stops (the driver's pass bound; an arrival, unless `full`, the cap
  /// reached, when the driver admits it as before `begin_step`); `stepped(t_end)` is told each
  /// step's end (the driver's Little's-law area). `t` ends at the last step's end.
  template <class Next, class Stepped>
  std::int64_t run_decode_steps(double& t, Next&& next, Stepped&& stepped) {
    if constexpr (engine_policy_source<Costs>) {
      return 0;
    } else {
      if (co_on_ || rk_.size() != 1 || role_ != engine_role::colocated || conversations_) return 0;
      auto& e = rk_.front();
      const auto& reqs = *reqs_;
      auto& s = *st_;
      const auto D = static_cast<std::int64_t>(e.running.size());
      if (D == 0 || D > lim_.max_num_batched_tokens) return 0;
      const bool full = D >= lim_.max_num_seqs;  // no request can join
      // The step at `t`: what `begin_step` would route to the queue must not join.
      if (!full && (!e.waiting.empty() || routable(t))) return 0;
      // The request admitted last is the one most likely still in its prompt: asked first.
      const auto decoding = [&](std::size_t r) {
        return s.gen[r] >= 1 && s.computed[r] == static_cast<std::int64_t>(reqs[r].prompt) + s.gen[r] - 1 && s.last[r] == t;
      };
      if (!decoding(e.running.back())) return 0;
      // Steps before a request's last token or a block the free ones cannot give.
      std::int64_t k_max = std::numeric_limits<std::int64_t>::max(), context = 0;
      for (const std::size_t r : e.running) {
        if (!decoding(r)) return 0;
        // A prefix its end would cache (`end_step`): not such a step.
        if (e.prefix_cached[key_of(r)] == 0 && s.shared[r] == 0) {
          const std::int64_t pb = pblocks(r);
          if (pb > 0 && reqs[r].prompt >= pb * bs_) return 0;
        }
        k_max = std::min<std::int64_t>(k_max, reqs[r].output - s.gen[r] - 1);
        context += s.computed[r];
      }
      if (k_max <= 0) return 0;
      const auto new_blocks = [&](std::int64_t k) {
        std::int64_t b = 0;
        for (const std::size_t r : e.running) b += std::max<std::int64_t>(0, blocks_of(s.computed[r] + k) - s.shared[r] - s.held[r]);
        return b;
      };
      if (new_blocks(k_max) > e.free_blocks) {
        // Up to the first block any of them takes.
        for (const std::size_t r : e.running) {
          k_max = std::min<std::int64_t>(k_max, std::max<std::int64_t>(0, (s.shared[r] + s.held[r]) * bs_ - s.computed[r]));
        }
        if (k_max <= 0) return 0;
      }
      mixed_step ms;
      ms.tokens = static_cast<int>(D);
      ms.sampled = static_cast<int>(D);
      ms.decodes = static_cast<int>(D);
      const double host_s = std::max(0.0, host_step_time(ep_.host, static_cast<double>(D)));
      std::int64_t k = 0;
      for (; k < k_max; ++k) {
        if (k > 0) {
          if (!next(t, full)) break;
          if (!full && routable(t)) break;
        }
        if (full) {
          // Arrivals join the queue behind the full running set (`begin_step`'s routing).
          const double cutoff = ep_.host.async_scheduling ? sched_t_ : t;
          std::size_t taken = 0;
          while (taken < inbox_.size() && inbox_[taken].second <= cutoff) e.waiting.push_back(inbox_[taken++].first);
          inbox_.erase(inbox_.begin(), inbox_.begin() + static_cast<std::ptrdiff_t>(taken));
        }
        ms.decode_context = static_cast<double>(context + k * D);
        const step_cost cost = costs_->mixed(ms);
        ++c_.decode_steps;
        c_.batch_sum += static_cast<double>(D);
        c_.energy_j += cost.energy_j;
        c_.busy_time_s += cost.time_s;
        sched_t_ = t;
        const double t_end = t + engine_step_time(ep_.host, cost.time_s, host_s);
        stepped(t_end);
        gaps_.emplace_back(t_end - t, static_cast<double>(D));
        t = t_end;
      }
      if (k == 0) return 0;
      // The requests after k steps: k tokens each, the blocks those took, the last at `t`.
      std::int64_t taken = 0;
      e.sched.clear();
      for (const std::size_t r : e.running) {
        const std::int64_t need = std::max<std::int64_t>(0, blocks_of(s.computed[r] + k) - s.shared[r] - s.held[r]);
        s.held[r] += need;
        taken += need;
        s.computed[r] += k;
        s.gen[r] += static_cast<int>(k);
        s.last[r] = t;
        e.sched.emplace_back(r, 1);
      }
      e.free_blocks -= taken;
      e.allocated += taken;
      e.preempted = false;
      rank_steps_.front() = ms;
      step_gaps_.assign(1, gaps_.back());
      return k;
    }
  }

 private:
  /// Request `r`'s `nn` tokens of the step that ends now computed on rank `e` (`end_step`, the
  /// cohort's step): a prefix its first full blocks now hold is cached on the rank, stored once
  /// (engine.hpp); true when all its tokens are computed (a token is sampled).
  bool computed_step(detail::engine_rank& e, std::size_t r, std::int64_t nn) {
    const auto& q = (*reqs_)[r];
    auto& s = *st_;
    const std::int64_t num_tokens = static_cast<std::int64_t>(q.prompt) + s.gen[r];
    s.computed[r] += nn;
    const std::int64_t pb = pblocks(r);
    char& cached = e.prefix_cached[key_of(r)];
    if (cached == 0 && pb > 0 && q.prompt >= pb * bs_ && s.computed[r] >= pb * bs_ && s.shared[r] == 0) {
      cached = 1;
      s.held[r] -= pb;
      s.shared[r] = pb;
    }
    return s.computed[r] >= num_tokens;
  }

  /// Whether `begin_step` at time `t` would route an admitted request to the queue.
  [[nodiscard]] bool routable(double t) const {
    const double cutoff = ep_.host.async_scheduling ? sched_t_ : t;
    return !inbox_.empty() && inbox_.front().second <= cutoff;
  }
  [[nodiscard]] std::int64_t blocks_of(std::int64_t tokens) const {
    const std::int64_t n = tokens + bs_ - 1;
    // A block size that is a power of two (vLLM's 16): a shift, the same quotient for n >= 0 (the
    // division was most of a decode's scheduling).
    return bs_shift_ >= 0 && n >= 0 ? n >> bs_shift_ : n / bs_;
  }
  /// Request `r`'s prefix-cache key: its group's system prompt (g + 1), else the shared prefix (0).
  [[nodiscard]] std::size_t key_of(std::size_t r) const {
    const auto g = (*reqs_)[r].prefix_group;
    return g >= 0 ? static_cast<std::size_t>(g) + 1 : 0;
  }
  /// Tokens of request `r`'s cacheable prefix.
  [[nodiscard]] std::int64_t prefix_len(std::size_t r) const {
    const auto& q = (*reqs_)[r];
    return q.prefix_group >= 0 ? std::min(q.prefix_tokens, q.prompt) : shared_prefix_;
  }
  /// Full blocks of request `r`'s prefix the cache stores (none with prefix caching off).
  [[nodiscard]] std::int64_t pblocks(std::size_t r) const {
    return (*reqs_)[r].prefix_group >= 0 ? (ep_.enable_prefix_caching ? prefix_len(r) / bs_ : 0) : prefix_blocks_;
  }

  // One rank's step (engine.hpp): its running requests first, in admission order, then its
  // waiting ones unless it preempted.
  void schedule(std::size_t k) {
    detail::engine_rank& e = rk_[k];
    const auto& reqs = *reqs_;
    auto& s = *st_;
    auto& waiting = e.waiting;
    auto& running = e.running;
    auto& sched = e.sched;
    auto& free_blocks = e.free_blocks;
    const std::int64_t budget_max = lim_.max_num_batched_tokens;
    sched.clear();
    std::int64_t budget = budget_max;
    bool preempted = false;
    for (std::size_t i = 0; i < running.size() && budget > 0;) {
      const std::size_t r = running[i];
      const std::int64_t num_tokens = static_cast<std::int64_t>(reqs[r].prompt) + s.gen[r];
      const std::int64_t nn = std::min(num_tokens - s.computed[r], budget);
      bool ok = false;
      for (;;) {
        const std::int64_t need = std::max<std::int64_t>(0, blocks_of(s.computed[r] + nn) - s.shared[r] - s.held[r]);
        if (need <= free_blocks) {
          free_blocks -= need;
          e.allocated += need;
          s.held[r] += need;
          ok = true;
          break;
        }
        const std::size_t v = running.back();
        running.pop_back();
        free_blocks += s.held[v];
        s.held[v] = 0;
        s.shared[v] = 0;
        s.computed[v] = 0;
        s.external[v] = 0;  // recomputed here, prompt and generated tokens
        waiting.push_front(v);
        ++c_.preemptions;
        preempted = true;
        c_.extra_passes +=
            2 * (reqs[v].output + (static_cast<std::int64_t>(reqs[v].prompt) + s.gen[v] + budget_max - 1) / budget_max);
        if (v == r) break;
      }
      if (!ok) break;
      sched.emplace_back(r, nn);
      budget -= nn;
      ++i;
    }
    // A machine's own policy picks which waiting requests may join, and how many (file comment).
    std::size_t admit_left = std::numeric_limits<std::size_t>::max();
    if constexpr (engine_policy_source<Costs>) {
      if (!preempted) admit_left = costs_->admission(waiting, running, now_);
    }
    if (!preempted) admit_waiting(k, budget, admit_left);
    e.preempted = preempted;
  }

  // Rank k's waiting requests join the step, in queue order, while the budget, the free blocks,
  // the cap `max_num_seqs` and `admit_left` allow (engine.hpp).
  void admit_waiting(std::size_t k, std::int64_t budget, std::size_t admit_left) {
    detail::engine_rank& e = rk_[k];
    const auto& reqs = *reqs_;
    auto& s = *st_;
    auto& waiting = e.waiting;
    auto& running = e.running;
    auto& sched = e.sched;
    auto& free_blocks = e.free_blocks;
    while (admit_left > 0 && !waiting.empty() && budget > 0 &&
           static_cast<int>(running.size() - dead_) < lim_.max_num_seqs) {
      --admit_left;
      const std::size_t r = waiting.front();
      const std::int64_t num_tokens = static_cast<std::int64_t>(reqs[r].prompt) + s.gen[r];
      std::int64_t hit = 0, su = 0;
      if (s.external[r] > 0) {
        hit = std::min(s.external[r], num_tokens - 1);  // its prompt's KV, arrived (file comment)
      } else {
        const std::int64_t pb = pblocks(r);
        if (e.prefix_cached[key_of(r)] != 0) {
          hit = std::min({pb * bs_, (num_tokens - 1) / bs_ * bs_, std::min<std::int64_t>(reqs[r].prompt, prefix_len(r)) / bs_ * bs_});
        }
        if (conversations_ && reqs[r].conversation >= 0 && ep_.enable_prefix_caching) {
          // Its conversation's previous turn, if finished here and not yet evicted (engine.hpp);
          // that turn cached the group's prefix on this rank, so its first pb blocks are shared.
          const auto it = turns_.find(reqs[r].conversation);
          if (it != turns_.end() && it->second.rank == k) {
            const auto& tc = it->second;
            const std::int64_t evicted = std::max<std::int64_t>(0, e.allocated - tc.clock - tc.ahead);
            const std::int64_t kept = std::max<std::int64_t>(0, tc.blocks - evicted);
            hit = std::max(hit, std::min(kept * bs_, (num_tokens - 1) / bs_ * bs_));
          }
        }
        su = std::min(hit, pb * bs_) / bs_;
      }
      std::int64_t nn = num_tokens - hit;
      if (!ep_.enable_chunked_prefill && nn > budget) break;
      nn = std::min(nn, budget);
      const std::int64_t need = blocks_of(hit + nn) - su;
      if (need > free_blocks) break;
      waiting.pop_front();
      running.push_back(r);
      seq_[r] = seq_next_++;
      free_blocks -= need;
      e.allocated += need;
      s.held[r] = need;
      s.shared[r] = su;
      s.computed[r] = hit;
      if (s.external[r] == 0) c_.prefix_cached_tokens += hit;
      s.external[r] = 0;
      sched.emplace_back(r, nn);
      budget -= nn;
    }
  }

  // The decode cohort (docs/serving.md, under "Replicas and disaggregation"). A running request
  // that decodes one token a step (its last token sampled at the step's start, its blocks those of
  // its computed tokens, its end caching no prefix) is a member: its computed tokens, generated
  // tokens and last token time are those it joined with plus the cohort steps since (`co_epoch_` −
  // its join epoch), written back when it finishes or the cohort ends. The other running requests
  // (in a prompt chunk, admitted, recomputing) are visited per step as the scheduler visits them.
  // A step runs this way only when it is provably the scheduler's step: one rank, colocated, no
  // machine policy, no conversations, every running request's tokens within the budget and every
  // block they take within the free ones (no cut, no preemption), the step at the last one's end.

  [[nodiscard]] static std::int64_t mod(std::int64_t x, std::int64_t m) { return ((x % m) + m) % m; }

  // Whether running request r, its step ended at t, decodes its next token in the next step as a
  // member could (above).
  [[nodiscard]] bool steady(const detail::engine_rank& e, std::size_t r, double t) const {
    const auto& q = (*reqs_)[r];
    const auto& s = *st_;
    if (s.finished[r] != 0 || s.gen[r] < 1 || s.gen[r] >= q.output || !(s.last[r] == t)) return false;
    if (s.computed[r] != static_cast<std::int64_t>(q.prompt) + s.gen[r] - 1) return false;
    if (s.held[r] + s.shared[r] != blocks_of(s.computed[r])) return false;
    if (e.prefix_cached[key_of(r)] == 0 && s.shared[r] == 0) {
      const std::int64_t pb = pblocks(r);
      if (pb > 0 && q.prompt >= pb * bs_) return false;  // its end would cache its prefix
    }
    return true;
  }

  void co_join(std::size_t r, std::int64_t epoch) {
    const auto& s = *st_;
    in_co_[r] = 1;
    co_e0_[r] = epoch;
    ++co_size_;
    co_ctx_ += s.computed[r] - epoch;
    ++co_bucket_[static_cast<std::size_t>(mod(s.computed[r] - epoch, bs_))];
    co_cal_.emplace(epoch + (*reqs_)[r].output - s.gen[r], seq_[r], r);
    co_first_.emplace(seq_[r], r);
  }

  // Member r leaves at epoch `epoch`, its last token at `last`: its state written back.
  void co_leave(std::size_t r, std::int64_t epoch, double last) {
    auto& s = *st_;
    --co_size_;
    co_ctx_ -= s.computed[r] - co_e0_[r];
    --co_bucket_[static_cast<std::size_t>(mod(s.computed[r] - co_e0_[r], bs_))];
    in_co_[r] = 0;
    const std::int64_t k = epoch - co_e0_[r];
    s.computed[r] += k;
    s.gen[r] += static_cast<int>(k);
    if (k > 0) s.last[r] = last;
    s.held[r] = blocks_of(s.computed[r]) - s.shared[r];
  }

  // Request r sampled its last token at t in a cohort step: its blocks freed, it leaves the engine
  // (a tombstone in the running list until the cohort compacts it), in the step's finished list.
  void co_finish(detail::engine_rank& e, std::size_t r, double t) {
    auto& s = *st_;
    e.free_blocks += s.held[r];
    s.held[r] = 0;
    s.finished[r] = 1;
    --outstanding_;
    s.finish[r] = t;
    co_fin_.emplace_back(seq_[r], r);
    ++dead_;
  }

  // After a step of the scheduler's pass ended at t: its steady decoders form the cohort.
  void begin_cohort(double t) {
    if constexpr (engine_policy_source<Costs>) {
      (void)t;
    } else {
      if (!co_enabled_ || rk_.size() != 1 || role_ != engine_role::colocated || conversations_) return;
      const auto& e = rk_.front();
      co_epoch_ = 0;
      co_active_.clear();
      for (const std::size_t r : e.running) {
        if (steady(e, r, t)) {
          co_join(r, 0);
        } else {
          co_active_.push_back(r);
        }
      }
      if (co_size_ == 0) {
        end_cohort();
        return;
      }
      co_on_ = true;
      co_t_ = t;
    }
  }

  // Every member written back, the finished ones taken out of the running list: the state the
  // scheduler's pass would have.
  void end_cohort() {
    auto& e = rk_.front();
    if (co_size_ > 0) {
      for (const std::size_t r : e.running) {
        if (in_co_[r] != 0) co_leave(r, co_epoch_, co_t_);
      }
    }
    if (dead_ > 0) {
      std::erase_if(e.running, [&](std::size_t r) { return st_->finished[r] != 0; });
      dead_ = 0;
    }
    co_active_.clear();
    co_cal_ = {};
    co_first_ = {};
    co_epoch_ = 0;
    co_on_ = false;
  }

  // Schedules and costs the step at t as the cohort plus the other running requests, if that is
  // the scheduler's step (above); false: nothing changed.
  bool cohort_step(double t, engine_step& out) {
    auto& e = rk_.front();
    const auto& reqs = *reqs_;
    auto& s = *st_;
    const std::int64_t budget_max = lim_.max_num_batched_tokens;
    // A member takes a block when its computed tokens fill its blocks (held + shared = their blocks).
    std::int64_t demand = co_size_, need = co_bucket_[static_cast<std::size_t>(mod(-co_epoch_, bs_))];
    for (const std::size_t r : co_active_) {
      const std::int64_t nn = static_cast<std::int64_t>(reqs[r].prompt) + s.gen[r] - s.computed[r];
      demand += nn;
      need += std::max<std::int64_t>(0, blocks_of(s.computed[r] + nn) - s.shared[r] - s.held[r]);
    }
    if (demand > budget_max || need > e.free_blocks) return false;
    e.sched.clear();
    for (const std::size_t r : co_active_) {
      const std::int64_t nn = static_cast<std::int64_t>(reqs[r].prompt) + s.gen[r] - s.computed[r];
      s.held[r] += std::max<std::int64_t>(0, blocks_of(s.computed[r] + nn) - s.shared[r] - s.held[r]);
      e.sched.emplace_back(r, nn);
    }
    e.free_blocks -= need;
    e.allocated += need;
    now_ = t;
    admit_waiting(0, budget_max - demand, std::numeric_limits<std::size_t>::max());
    e.preempted = false;
    mixed_step& ms = rank_steps_.front();
    ms = mixed_step{};
    ms.tokens = static_cast<int>(co_size_);
    ms.sampled = static_cast<int>(co_size_);
    ms.decodes = static_cast<int>(co_size_);
    std::int64_t decode_context = co_ctx_ + co_size_ * co_epoch_;
    for (const auto& [r, nn] : e.sched) {
      const std::int64_t num_tokens = static_cast<std::int64_t>(reqs[r].prompt) + s.gen[r];
      ms.tokens += static_cast<int>(nn);
      if (s.computed[r] + nn == num_tokens) ++ms.sampled;
      if (s.gen[r] >= 1 && nn == 1 && s.computed[r] == num_tokens - 1) {
        ++ms.decodes;
        decode_context += s.computed[r];
      } else {
        const double c = static_cast<double>(nn), p = static_cast<double>(s.computed[r]);
        ms.prefill_tokens += c;
        ms.prefill_pairs += c * p + c * (c + 1.0) / 2.0;
        ms.prefill_prior += p;
      }
    }
    ms.decode_context = static_cast<double>(decode_context);
    const step_cost cost = costs_->mixed(ms);
    if (ms.decodes > 0 && ms.prefill_tokens > 0.0) {
      ++c_.mixed_steps;
    } else if (ms.decodes > 0) {
      ++c_.decode_steps;
    } else {
      ++c_.prefill_steps;
    }
    const std::size_t step_batch = static_cast<std::size_t>(co_size_) + e.sched.size();
    c_.batch_sum += static_cast<double>(step_batch);
    c_.energy_j += cost.energy_j;
    c_.busy_time_s += cost.time_s;
    const double host_s = std::max(0.0, host_step_time(ep_.host, static_cast<double>(step_batch)));
    out.status = engine_step_status::ran;
    out.cost = cost;
    out.time_s = engine_step_time(ep_.host, cost.time_s, host_s);
    sched_t_ = t;
    co_step_ = true;
    return true;
  }

  // Ends the cohort step at t as `end_step` ends the scheduler's: the members' tokens (one gap
  // each, t − the step's start), the finishing members from the calendar, the other requests as
  // `end_step` visits them; the gaps and the finished requests in running order.
  void end_cohort_step(double t, std::vector<std::size_t>& done) {
    auto& e = rk_.front();
    const auto& reqs = *reqs_;
    auto& s = *st_;
    const std::int64_t epoch = co_epoch_ + 1;
    // The first member in running order: where the members' gap first occurs.
    while (!co_first_.empty() && in_co_[co_first_.top().second] == 0) co_first_.pop();
    const std::int64_t first_seq = co_first_.empty() ? std::numeric_limits<std::int64_t>::max() : co_first_.top().first;
    const double gc = t - co_t_;
    const auto members = co_size_;
    co_gap_ev_.clear();
    co_fin_.clear();
    for (const auto& [r, nn] : e.sched) {
      if (!computed_step(e, r, nn)) continue;
      ++s.gen[r];
      if (s.gen[r] == 1) {
        s.first[r] = t;
      } else {
        co_gap_ev_.emplace_back(seq_[r], t - s.last[r]);
      }
      s.last[r] = t;
      if (s.gen[r] >= reqs[r].output) co_finish(e, r, t);
    }
    // The members whose last token this step sampled.
    const std::size_t active_fin = co_fin_.size();
    while (!co_cal_.empty() && std::get<0>(co_cal_.top()) == epoch) {
      const std::size_t r = std::get<2>(co_cal_.top());
      co_cal_.pop();
      co_leave(r, epoch, t);
      co_finish(e, r, t);
    }
    if (co_fin_.size() > active_fin) {
      std::inplace_merge(co_fin_.begin(), co_fin_.begin() + static_cast<std::ptrdiff_t>(active_fin), co_fin_.end());
    }
    for (const auto& f : co_fin_) done.push_back(f.second);
    // The step's gaps: one entry per distinct value, in the order each first occurs in running
    // order, with its count (`end_step`).
    step_gaps_.clear();
    const auto add_gap = [&](double g, double n) {
      for (auto& x : step_gaps_) {
        if (x.first == g) {
          x.second += n;
          return;
        }
      }
      step_gaps_.emplace_back(g, n);
    };
    bool members_added = members == 0;
    for (const auto& [sq, g] : co_gap_ev_) {
      if (!members_added && first_seq < sq) {
        add_gap(gc, static_cast<double>(members));
        members_added = true;
      }
      add_gap(g, 1.0);
    }
    if (!members_added) add_gap(gc, static_cast<double>(members));
    for (const auto& x : step_gaps_) gaps_.push_back(x);
    // The others that now decode steadily join; the rest stay in running order.
    co_tmp_.clear();
    for (const auto& [r, nn] : e.sched) {
      if (s.finished[r] != 0) continue;
      if (steady(e, r, t)) {
        co_join(r, epoch);
      } else {
        co_tmp_.push_back(r);
      }
    }
    co_active_.swap(co_tmp_);
    co_epoch_ = epoch;
    co_t_ = t;
    if (dead_ > 64 && dead_ > e.running.size() / 2) {
      std::erase_if(e.running, [&](std::size_t r) { return s.finished[r] != 0; });
      dead_ = 0;
    }
  }

  const std::vector<request>* reqs_;
  engine_request_state* st_;
  engine_params ep_;
  engine_limits lim_;
  std::int64_t blocks_;
  Costs* costs_;
  engine_role role_;
  std::vector<detail::engine_rank> rk_;
  std::vector<mixed_step> rank_steps_;
  std::vector<std::pair<std::size_t, double>> inbox_;  ///< (request, when it reached the engine)
  std::unordered_map<std::int64_t, detail::engine_turn_cache> turns_;  ///< conversation → its last finished turn
  bool conversations_ = false;  ///< some request belongs to a conversation
  double sched_t_ = 0.0;        ///< when the last step started (async scheduling's cutoff)
  double now_ = 0.0;            ///< when the step being scheduled starts (a policy's clock)
  std::vector<std::pair<double, double>> gaps_, step_gaps_;
  engine_counters c_;
  std::int64_t bs_ = 16, shared_prefix_ = 0, prefix_blocks_ = 0;
  int bs_shift_ = -1;  ///< log2 of `bs_` when it is a power of two, else -1 (`blocks_of`)
  std::int64_t outstanding_ = 0;
  // The decode cohort (see `steady`): on, formed, its step the one scheduled.
  bool co_enabled_ = false, co_on_ = false, co_step_ = false;
  std::int64_t co_epoch_ = 0;  ///< cohort steps since it formed
  double co_t_ = 0.0;          ///< the last step's end: every member's last token
  std::int64_t co_size_ = 0;   ///< members
  std::int64_t co_ctx_ = 0;    ///< Σ over members of (computed tokens at joining − join epoch)
  /// Members by (computed tokens at joining − join epoch) mod the block size: those taking a block.
  std::vector<std::int64_t> co_bucket_;
  std::vector<std::int64_t> seq_;    ///< per request: its place in running order (when it joined it)
  std::vector<std::int64_t> co_e0_;  ///< per request: its join epoch
  std::vector<char> in_co_;          ///< per request: a member
  std::vector<std::size_t> co_active_, co_tmp_;  ///< the other running requests, in running order
  /// (epoch of its last token, running place, request) of every member, the earliest first.
  std::priority_queue<std::tuple<std::int64_t, std::int64_t, std::size_t>,
                      std::vector<std::tuple<std::int64_t, std::int64_t, std::size_t>>, std::greater<>>
      co_cal_;
  /// (running place, request) of the members (and of some that left: skipped), the first first.
  std::priority_queue<std::pair<std::int64_t, std::size_t>, std::vector<std::pair<std::int64_t, std::size_t>>,
                      std::greater<>>
      co_first_;
  std::vector<std::pair<std::int64_t, double>> co_gap_ev_;     ///< (running place, gap) of the others
  std::vector<std::pair<std::int64_t, std::size_t>> co_fin_;  ///< (running place, request) finishing
  std::size_t dead_ = 0;  ///< finished requests still in the running list (taken out lazily)
  std::int64_t seq_next_ = 0;
  int co_backoff_ = 0, co_wait_ = 0;  ///< scheduler steps before the cohort forms again
};

}  // namespace v0
}  // namespace strata
