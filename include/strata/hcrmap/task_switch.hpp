// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The task-switch workload (HCRMap §1: "hotness drifts with serving mode, batch composition, and
/// request domain"; §6.2): routing traces of one model served one after the other in file order,
/// e.g. DeepSeek-V2-Lite's ESFT `intent` → `law` → `translation` (tests/data/traces: per MoE layer
/// the 8 most-routed experts of two tasks share 12–19 % of their members), so the hot experts
/// change when the task changes. The split protocol of `experiment.hpp` serves a stationary
/// trace, on which a controller has nothing to follow; here it must follow the switches.
///
/// Protocol (`run_task_switch`; `strata-eval hcrmap --order file`):
/// - Order: the trace's windows in file order. Several traces are concatenated in the order given
///   (`concatenate_traces`, `workload/task_drift.hpp`: each part's sequences renumbered after the previous part's, each token
///   tagged with its part as topic).
/// - Prefill window i holds tokens [2048·i, 2048·(i + 1)) of the trace in file order; the tail
///   of fewer than 2048 tokens is not served (stated in the note).
/// - Decode is continuous batching: B = `experiment.batch` slots each decode one sequence, one
///   token per step, sequences entering in file order as slots free up; window i is step i, B
///   tokens of B distinct sequences (slot j's token homed as the j-th token of the window). It
///   ends at the first step with an idle slot and no sequence left to enter it (the tail is not
///   served, stated in the note); a trace with fewer than B sequences is refused (`config_error`
///   naming `batch`). `trace_reuse` does not apply.
/// - Warm-up: the first `experiment.profile_windows` windows (default 1: the first window only,
///   of the first task) build every policy's layout and HCRMap's planned promotions, as the
///   profile split does in `experiment.hpp`, and are not served. Every later window is served, at
///   most `max_windows`, and window k is observed by a controller only after it is served
///   (`detail::serve_windows`): no policy sees a window before serving it, so a policy's results
///   for windows 1 … k are the same whether or not windows after k exist (tested bit for bit).
/// - Everything else is the comparison's: substrate, package plan, evaluated layers,
///   resident-copy budget, non-routed time, the value function HCRMap decides with.
///
/// Enough windows that copies amortise (§6.6: a copy begun after window k is in flight during
/// k + 1 and serves only once published; A_min = 2 windows before a replica may leave; the
/// hysteresis and U_max = 1 bound the rate): the three ESFT traces give 12 prefill windows
/// (11 served) and, with B = 32, about 770 decode steps.
///
/// Results: per policy, T_E2E per served window (`policy_result::e2e_s`), the mean, and the
/// edits applied while serving by kind (`policy_result::controller_edits`); per window, the task
/// that holds most of its tokens. `hcrmap_frozen` (HCRMap with its installed layout kept) is the
/// reference for what the controller adds.

#include <algorithm>  // std::max, std::min, std::find, std::max_element
#include <cstddef>    // std::size_t, std::ptrdiff_t
#include <cstdint>    // std::int32_t, std::int64_t
#include <limits>     // std::numeric_limits
#include <span>       // std::span
#include <string>     // std::string, std::to_string
#include <utility>    // std::move
#include <vector>     // std::vector

#include "strata/chiplet/substrate.hpp"
#include "strata/chiplet/token_groups.hpp"
#include "strata/core/error.hpp"
#include "strata/hcrmap/experiment.hpp"
#include "strata/hcrmap/experiment_params.hpp"
#include "strata/hcrmap/experiment_result.hpp"
#include "strata/hcrmap/policies.hpp"
#include "strata/hcrmap/scorer.hpp"
#include "strata/workload/task_drift.hpp"  // concatenate_traces
#include "strata/workload/trace.hpp"

namespace strata {
inline namespace v0 {

/// The windows of a trace in file order (file comment).
struct file_order_windows {
  /// Per window, per MoE layer, the token groups (cut into blocks).
  std::vector<std::vector<std::vector<token_group>>> windows;
  std::vector<std::int32_t> topic;  ///< per window, the topic holding most of its tokens (-1: none)
  std::size_t tokens = 0;           ///< trace tokens the windows hold
  std::string note;                 ///< what is not served, if anything
};

/// The first `max_windows` windows of `t` in file order, of `tokens` tokens each, in `mode` on
/// `chiplets` chiplets, cut into blocks of `block_tokens` (file comment). Throws `config_error`
/// naming `batch` for a decode trace with fewer than `tokens` sequences.
template <class = void>
inline file_order_windows windows_in_file_order(const routing_trace& t, phase mode, int chiplets, int tokens, int max_windows,
                                                int block_tokens) {
  constexpr const char* id = "strata.hcrmap.task_switch";
  detail::require(!t.empty(), id, "trace", t.tokens(), "at least one token");
  detail::require(tokens >= 1, id, "batch", tokens, ">= 1");
  file_order_windows out;
  const auto add = [&](const std::vector<std::size_t>& list) {
    auto g = token_groups(t, chiplets, std::span<const std::size_t>(list));
    for (auto& gl : g) gl = split_blocks(gl, block_tokens);
    out.windows.push_back(std::move(g));
    std::vector<std::size_t> count(t.topic_names().size() + 1, 0);
    for (std::size_t i : list) {
      const int topic = t.info(i).topic;  // -1: no topic, counted in slot 0
      ++count[topic < 0 ? 0 : static_cast<std::size_t>(topic) + 1];
    }
    const auto top = std::max_element(count.begin() + 1, count.end());
    out.topic.push_back(top == count.end() || *top == 0 ? -1 : static_cast<std::int32_t>(top - count.begin() - 1));
    out.tokens += list.size();
  };
  const auto n = static_cast<std::size_t>(tokens);
  if (mode == phase::prefill) {
    const std::size_t full = t.tokens() / n;
    for (std::size_t w = 0; w < full && static_cast<int>(w) < max_windows; ++w) {
      std::vector<std::size_t> list(n);
      for (std::size_t i = 0; i < n; ++i) list[i] = w * n + i;
      add(list);
    }
  } else {
    const auto seqs = detail::sequences_of(t);
    if (seqs.size() < n) {
      throw config_error("batch", "[" + std::string(id) + "] batch: a decode window of " + std::to_string(tokens) +
                                      " takes one token from each of " + std::to_string(tokens) +
                                      " distinct sequences decoded side by side, and the trace has " +
                                      std::to_string(seqs.size()) + " sequences: lower the batch (strata-eval hcrmap --batch)");
    }
    // Continuous batching: slot j decodes seqs[cur[j]] from position pos[j].
    std::vector<std::size_t> cur(n), pos(n, 0);
    for (std::size_t j = 0; j < n; ++j) cur[j] = j;
    std::size_t next = n;
    while (static_cast<int>(out.windows.size()) < max_windows) {
      std::vector<std::size_t> list(n);
      for (std::size_t j = 0; j < n; ++j) list[j] = seqs[cur[j]][pos[j]];
      add(list);
      bool idle = false;
      for (std::size_t j = 0; j < n; ++j) {
        if (++pos[j] < seqs[cur[j]].size()) continue;
        if (next < seqs.size()) {
          cur[j] = next++;
          pos[j] = 0;
        } else {
          idle = true;
        }
      }
      if (idle) break;
    }
  }
  if (out.tokens < t.tokens()) {
    out.note = std::to_string(t.tokens() - out.tokens) + " of the trace's " + std::to_string(t.tokens()) +
               " tokens are not served (" +
               (mode == phase::prefill ? std::string("past the last whole prefill window or max_windows")
                                       : std::string("a slot of the batch idles with no sequence left, or max_windows")) +
               ")";
  }
  return out;
}

/// The task-switch workload served (file comment).
struct task_switch_result {
  experiment_result experiment;     ///< per policy: T_E2E per served window, means, edits by kind
  std::vector<std::string> window_task;  ///< per served window, the task holding most of its tokens ("" if none)
  int warmup_windows = 0;           ///< windows the layouts were built from (not served)
  std::size_t warmup_tokens = 0;    ///< their tokens
  std::size_t served_tokens = 0;    ///< tokens of the served windows
};

/// Serves `trace` on `m` in `mode` in file order through `policies` (single-copy static is added
/// first if missing): the first `xp.profile_windows` windows warm up, then up to `max_windows`
/// windows are served (`xp.windows` is ignored: it becomes the number served). Throws
/// `config_error` naming `trace` when the trace gives no window to serve after the warm-up,
/// `batch` as `windows_in_file_order` does, and `max_windows` outside [1, 1024] or past
/// `hcrmap_limits().routes`.
template <class = void>
inline task_switch_result run_task_switch(const substrate& s, const model& m, const routing_trace& trace, phase mode,
                                          std::vector<policy_kind> policies, experiment_params xp = {}, int max_windows = 1024,
                                          const action_scorer& value = {}) {
  constexpr const char* id = "strata.hcrmap.task_switch";
  detail::require(max_windows >= 1 && max_windows <= 1024, id, "max_windows", max_windows, "in [1, 1024]");
  validate(m);
  validate(xp);
  require_trace_of_model(trace, m, "the task-switch trace");
  if (std::find(policies.begin(), policies.end(), policy_kind::single_copy_static) == policies.end()) {
    policies.insert(policies.begin(), policy_kind::single_copy_static);
  }
  const int tokens = tokens_per_window(mode, xp);
  const int C = s.chiplets();
  auto all = windows_in_file_order(trace, mode, C, tokens, xp.profile_windows + max_windows, xp.fast_map.block_tokens);
  if (all.windows.size() <= static_cast<std::size_t>(xp.profile_windows)) {
    detail::require(false, id, "trace", trace.tokens(),
                    ("tokens for " + std::to_string(xp.profile_windows) + " warm-up window(s) of " + std::to_string(tokens) +
                     " tokens and at least one served window")
                        .c_str());
  }
  task_switch_result out;
  out.warmup_windows = xp.profile_windows;
  const auto P = static_cast<std::ptrdiff_t>(xp.profile_windows);
  const std::vector<std::vector<std::vector<token_group>>> warmup(all.windows.begin(), all.windows.begin() + P);
  const std::vector<std::vector<std::vector<token_group>>> served(all.windows.begin() + P, all.windows.end());
  xp.windows = static_cast<int>(served.size());
  detail::require_routes(1, m, mode, static_cast<std::int64_t>(policies.size()), xp, id, "max_windows");
  out.warmup_tokens = warmup.size() * static_cast<std::size_t>(tokens);  // every window holds `tokens`
  out.served_tokens = served.size() * static_cast<std::size_t>(tokens);
  for (std::size_t w = warmup.size(); w < all.windows.size(); ++w) {
    const auto topic = all.topic[w];
    out.window_task.push_back(topic < 0 ? std::string() : trace.topic_names()[static_cast<std::size_t>(topic)]);
  }
  const auto setup = detail::make_experiment_setup(s, m, mode, xp);
  auto& r = out.experiment;
  r.model = m.name;
  r.mode = mode;
  r.packages = setup.plan.packages();
  r.moe_layers = m.moe_layers();
  r.evaluated_layers = setup.evaluated_layers;
  r.window_tokens = tokens;
  r.context = xp.context;
  std::string note = "windows in file order: " + std::to_string(xp.profile_windows) + " warm-up window(s) build the layouts, " +
                     std::to_string(served.size()) + " served";
  if (!all.note.empty()) note += "; " + all.note;
  note += "; " + std::to_string(setup.evaluated_layers.size()) + " of " + std::to_string(m.moe_layers()) +
          " MoE layers evaluated (routed time scaled by " + detail::to_text(setup.scale) + ")";
  r.note = note;
  detail::serve_windows(s, m, setup, xp, policies, warmup, served, value, r);
  return out;
}

}  // namespace v0
}  // namespace strata
