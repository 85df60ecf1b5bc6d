// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// An HCRMap chiplet package as a machine of the engine (`serving/engine_core.hpp`): its windows as
/// the engine's steps, its residency controller acting between them (issue 45, item 1: a GPU, a
/// Stratum system and an HCRMap package serve through the same engine). `simulate_hcrmap_serving`
/// serves requests on the package through `detail::drive_engine`, the drive loop the GPUs' and the
/// Stratum system's engine runs share (`serving/simulator.hpp`).
///
/// **The package.** The model runs on the pipeline of packages `plan_packages` gives for a decode
/// window of `scheduler.max_batch` sequences at `context` tokens (`experiment.hpp`,
/// `make_experiment_setup`, the HCRMap comparison's setup: each stage sized for Table 1's 1.3×
/// resident-copy budget); every stage's policy (`policy`, HCRMap by default) holds its experts, its
/// layout built from the profile split of the routing trace (`policy_session`, its promotions
/// planned on the profile windows), exactly as the policy comparison builds it. The KV the engine
/// may hold is the plan's: `max_batch` × `context` tokens (the decode window the plan was sized
/// for fits the package, `fit_window`), in blocks of `scheduler.engine.block_size`.
///
/// **A step's cost.** The engine schedules a step of D decodes and P prefill tokens (its budget
/// `scheduler.engine.max_num_batched_tokens`, `scheduler.max_batch` sequences, KV blocks,
/// preemption by recompute, chunked prefill; `stratum_engine_settings`, no host time). On the
/// package a step is one or two windows (`window_spec`, HCRMap §4): a prefill window of P tokens
/// (one sequence of P tokens) and a decode window of D sequences at their mean context; a mixed
/// step runs the prefill window, then the decode window (their sum: an upper bound, since one
/// forward pass of both would read each layer's weights once). A window's time is the pipeline's
/// as the policy comparison computes it (`serve_windows`): the non-routed work and the stages'
/// hand-offs (`evaluate_pipeline` with no routed groups) plus, per stage, the routed time of its
/// evaluated layers Σ T^MoE (Eq. 16), scaled by MoE layers / evaluated layers; its energy likewise
/// (Eq. 17). Which experts a window routes comes from the evaluation split of the trace
/// (`split_by_sequence`): a prefill window of N tokens is the split's next N tokens (wrapping), a
/// decode window of D sequences the next decode step of a running batch of D sequences of the
/// split (`decode_token_groups`; sequences are reused when the split has fewer than D, as
/// `trace_reuse` allows), both cut into token blocks (`fast_map.block_tokens`).
///
/// **Memo.** A window's cost is memoised by (phase, tokens: a prefill's rounded up to
/// `block_tokens`, a decode's batch as it is, at most `max_batch`; and for the non-routed part the
/// decode context rounded up to `block_tokens`): a prefill of 37 tokens costs one of 48 at 16. The routed part of a (phase, tokens) key is evaluated on the trace the first time it is
/// met and reused until the residency changes: the memo of routed costs is cleared whenever the
/// controller edits the layout, publishes a copy or has copies in flight (they are charged to the
/// windows as migrations). So a run evaluates a window on the trace at most once per key per
/// layout, and serving 2 000 requests takes seconds (benchmarks/hcrmap_engine_bench.cpp).
///
/// **The controller between steps.** After every `control_s` of served time (0 by default: after
/// every step, the paper's reading — the masked Double DQN "selects one legal residency action per
/// window", HCRMap §6 — as the policy comparison acts after every window; 1 s in the example
/// scenario, where one action costs about 17 ms of CPU on DeepSeek-V2-Lite and 300 requests serve
/// in 1.5 s against 14 s after every step with the same result on that run; at most once per
/// step, with ⌊served time / Δ_w⌋ decisions capped at `controller.max_decisions`), each stage's
/// `policy_session::control` lands the copies in flight over the time served, lets the controller
/// observe the last window evaluated on the trace and decide (HCRMap: its value function; the
/// greedy one-step rule, `greedy_score`, as no checkpoint is loaded here; MoEntwine: its
/// NI-Balancer), and collects retired replicas. The scheduler's estimates see no controller.
///
/// Work: every evaluation on the trace counts its expert routes (tokens × evaluated layers ×
/// top-k; the profile and planning as (profile windows + planning rounds + 2) windows of 2048
/// tokens), and every controller action its candidates (the stage's evaluated layers × experts ×
/// `controller.max_decisions`, about the cost of as many routes), against
/// `hcrmap_limits().routes`; a run that would exceed it is a `config_error` naming `hcrmap`. Bad
/// parameters are `config_error`s naming `hcrmap.<field>`.

#include <algorithm>  // std::max, std::min
#include <cmath>      // std::ceil
#include <cstddef>    // std::size_t
#include <cstdint>    // std::int64_t
#include <map>        // std::map, the memo
#include <memory>     // std::unique_ptr, a policy session (neither copied nor moved)
#include <optional>   // std::optional, a stage residency and its last window
#include <string>     // std::string
#include <tuple>      // std::tuple, a memo key
#include <utility>    // std::move
#include <vector>     // std::vector

#include "strata/chiplet/substrate.hpp"
#include "strata/chiplet/token_groups.hpp"
#include "strata/core/error.hpp"
#include "strata/hcrmap/experiment.hpp"
#include "strata/hcrmap/experiment_params.hpp"
#include "strata/hcrmap/policies.hpp"
#include "strata/hcrmap/serving.hpp"
#include "strata/hcrmap/trace_split.hpp"
#include "strata/serving/engine_core.hpp"
#include "strata/serving/requests.hpp"
#include "strata/serving/scheduler.hpp"
#include "strata/serving/simulator.hpp"
#include "strata/workload/model.hpp"
#include "strata/workload/trace.hpp"

namespace strata {
inline namespace v0 {

/// The HCRMap package's serving knobs (file comment).
struct hcrmap_serving_params {
  /// The package (`chiplet/substrate.hpp`). [HCRMap Table 1's package, `substrate_params`' defaults]
  substrate_params package{};
  /// The residency policy of every stage. [HCRMap, the paper's policy]
  policy_kind policy = policy_kind::hcrmap;
  /// MoE layers evaluated at most, evenly spaced, the routed time scaled (`experiment_params::
  /// max_layers`). [Every MoE layer: the latency is end to end]
  int max_layers = experiment_params::all_layers;
  /// Decode context (KV tokens per sequence) the packages are planned for; with
  /// `scheduler.max_batch`, the KV the engine may hold. [2048, `experiment_params::context`]
  int context = 2048;
  /// Profile windows (prefill windows of 2048 tokens of the trace's profile split) every layout is
  /// built from, and HCRMap's planning rounds on them. [1 and 16, `experiment_params`]
  int profile_windows = 1;
  int planning_rounds = 16;
  /// Tokens (and context) a window's cost is rounded up to for the memo (file comment). [16, the
  /// engine's KV block: at most 15 tokens more than the step's]
  int block_tokens = 16;
  /// Served time between the controller's actions, s; 0: after every step, as the policy
  /// comparison acts after every window. [Design choice, for speed: 1 s. One action of HCRMap's
  /// controller (up to `controller.max_decisions` = 16 decisions, each enumerating its legal
  /// actions) takes about 17 ms on DeepSeek-V2-Lite's 26 MoE layers (measured: 300 requests, 830
  /// steps, 14 s acting after every step, 1.5 s at 1 s; the results the same to the last digit,
  /// the controller editing nothing after its planning)]
  double control_s = 0.0;

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("policy", s.policy);
    v("max_layers", s.max_layers);
    v("context", s.context);
    v("profile_windows", s.profile_windows);
    v("planning_rounds", s.planning_rounds);
    v("block_tokens", s.block_tokens);
    v("control_s", s.control_s);
  }
};

/// Checks the knobs; throws `config_error` naming `<path>.<field>`.
template <class = void>
inline void validate(const hcrmap_serving_params& p, const std::string& path = "hcrmap") {
  constexpr const char* id = "strata.serving.hcrmap";
  detail::require(p.max_layers >= 1 && p.max_layers <= experiment_params::all_layers, id, path + ".max_layers", p.max_layers,
                  "in [1, 65536]");
  detail::require(p.context >= 1 && p.context <= 1 << 20, id, path + ".context", p.context, "in [1, 2^20]");
  detail::require(p.profile_windows >= 1 && p.profile_windows <= 64, id, path + ".profile_windows", p.profile_windows,
                  "in [1, 64]");
  detail::require(p.planning_rounds >= 0 && p.planning_rounds <= 64, id, path + ".planning_rounds", p.planning_rounds,
                  "in [0, 64]");
  detail::require(p.block_tokens >= 1 && p.block_tokens <= 4096, id, path + ".block_tokens", p.block_tokens,
                  "in [1, 4096]");
  detail::require(p.control_s >= 0.0 && p.control_s <= 3600.0, id, path + ".control_s", p.control_s,
                  "in [0, 3600] s (0: after every step)");
}

/// What an HCRMap package serves: the model, its routing trace (outlives the run), the knobs and
/// the scheduler (SLOs, client overhead, `max_batch`, `engine`: budget, blocks, chunking).
struct hcrmap_serving_setup {
  model m;
  const routing_trace* trace = nullptr;
  hcrmap_serving_params params{};
  scheduler_params scheduler{};
};

/// What a run through the package charged besides its steps.
struct hcrmap_engine_counts {
  std::int64_t windows = 0;         ///< windows costed (a mixed step: two)
  std::int64_t evaluated = 0;       ///< windows evaluated on the trace (the others from the memo)
  std::int64_t controls = 0;        ///< controller actions (per stage)
  std::int64_t edits = 0;           ///< layout edits the controller made
  std::int64_t published = 0;       ///< copies it published
  std::int64_t routes = 0;          ///< expert routes evaluated and controller candidates (file comment)
};

/// The HCRMap package's step costs for `engine_core` (file comment). `trace` outlives it.
class hcrmap_step_costs {
 public:
  /// Plans the packages, builds every stage's layout from the trace's profile split. Throws
  /// `config_error` naming `hcrmap.*` (a plan that does not fit names `hcrmap.context`, or
  /// `model` for a prefill window).
  template <class = void>
  hcrmap_step_costs(const model& m, const routing_trace& trace, const hcrmap_serving_params& p, int max_batch)
      : m_(m), p_(p), s_(p.package) {
    constexpr const char* id = "strata.serving.hcrmap";
    validate(p);
    validate(m);
    require_trace_of_model(trace, m, "the HCRMap package's trace", "hcrmap.trace");
    detail::require(trace.tokens() >= 2, id, "hcrmap.trace", trace.tokens(), "at least two tokens (profile and evaluation splits)");
    xp_.max_layers = p.max_layers;
    xp_.context = p.context;
    xp_.batch = max_batch;
    xp_.profile_windows = p.profile_windows;
    xp_.planning_rounds = p.planning_rounds;
    xp_.trace_reuse = true;
    validate(xp_);
    try {
      setup_ = detail::make_experiment_setup(s_, m, phase::decode, xp_);
    } catch (const config_error& e) {
      const std::string f = e.field() == "context" ? "hcrmap.context" : e.field();
      throw config_error(f, std::string("[") + id + "] " + f + ": " + e.what());
    }
    static_res_ = stage_residencies(s_, m, setup_.plan, xp_.scale_out);
    none_.assign(static_cast<std::size_t>(m.moe_layers()), {});
    auto split = split_by_sequence(trace);
    prof_ = std::move(split.first);
    eval_ = std::move(split.second);
    if (prof_.empty()) prof_ = eval_;
    if (eval_.empty()) eval_ = prof_;
    const int C = s_.chiplets();
    std::vector<std::vector<std::vector<token_group>>> warmup;
    std::size_t off = 0;
    for (int i = 0; i < p.profile_windows; ++i) {
      warmup.push_back(groups_of(prof_, window_tokens{off % prof_.tokens(), 2048}));
      off += 2048;
    }
    // The profile and HCRMap's planning: each round evaluates a profile window.
    count_routes(static_cast<std::int64_t>(p.profile_windows + p.planning_rounds + 2) * 2048);
    sessions_.reserve(setup_.stages.size());
    for (const auto& es : setup_.stages) {
      const auto prof = detail::stage_profile(es, m.experts, C, warmup);
      sessions_.push_back(std::make_unique<detail::policy_session>(s_, m, setup_.shape, es, p.policy, xp_, prof,
                                                                   m.moe_layers(), action_scorer{}, &layouts_));
      sessions_.back()->plan(warmup);
    }
    last_.resize(sessions_.size());
    control_s_ = p.control_s;
  }
  hcrmap_step_costs(const hcrmap_step_costs&) = delete;
  hcrmap_step_costs& operator=(const hcrmap_step_costs&) = delete;

  /// The engine's step (file comment): the prefill window, then the decode window; then the
  /// controller, if `control_s` has been served since it last acted.
  step_cost mixed(const mixed_step& ms) {
    step_cost c{};
    if (ms.prefill_tokens > 0.0) {
      const auto n = static_cast<int>(std::ceil(ms.prefill_tokens));
      const step_cost w = window_cost(phase::prefill, n, n);
      c.time_s += w.time_s;
      c.energy_j += w.energy_j;
    }
    if (ms.decodes > 0) {
      const auto ctx = static_cast<int>(std::ceil(ms.decode_context / ms.decodes));
      const step_cost w = window_cost(phase::decode, ms.decodes, std::max(1, ctx));
      c.time_s += w.time_s;
      c.energy_j += w.energy_j;
    }
    since_ += c.time_s;
    if (control_s_ <= 0.0 || since_ >= control_s_) control();
    return c;
  }

  /// The cost of one window of `tokens` tokens (prefill: one sequence of them; decode: that many
  /// sequences at `context`) on the current layout, from the memo or evaluated on the trace (file
  /// comment).
  step_cost window_cost(phase mode, int tokens, int context) {
    // Prefill tokens and decode contexts round up to a block; a decode batch is at most
    // `max_batch` sequences and is kept as it is (a decode of 1 is not costed as one of 16).
    const int b = p_.block_tokens;
    const int n = mode == phase::prefill ? round_up(tokens, b) : std::max(1, tokens), ctx = round_up(context, b);
    ++c_.windows;
    // The non-routed work and the hand-offs of the window's shape.
    const auto key = std::make_tuple(mode == phase::prefill ? 0 : 1, n, mode == phase::prefill ? 0 : ctx);
    auto nr = fixed_.find(key);
    if (nr == fixed_.end()) {
      const window_spec spec{mode, n, mode == phase::prefill ? xp_.context : ctx, {}};
      const auto w = evaluate_pipeline(s_, m_, setup_.plan, static_res_, none_, spec, xp_.scale_out, xp_.critical_path);
      nr = fixed_.emplace(key, step_cost{(w.non_routed + w.inter_package).si(),
                                         (w.non_routed_energy + w.inter_package_energy).si()}).first;
    }
    // The routed part on the current layout.
    const auto rkey = std::make_pair(mode == phase::prefill ? 0 : 1, n);
    auto rt = routed_.find(rkey);
    if (rt == routed_.end()) rt = routed_.emplace(rkey, evaluate_routed(mode, n)).first;
    return step_cost{nr->second.time_s + rt->second.time_s, nr->second.energy_j + rt->second.energy_j};
  }

  [[nodiscard]] const hcrmap_engine_counts& counts() const { return c_; }
  [[nodiscard]] int packages() const { return setup_.plan.packages(); }
  /// KV tokens the engine may hold: the decode window the packages were planned for.
  [[nodiscard]] std::int64_t kv_tokens() const { return static_cast<std::int64_t>(xp_.batch) * xp_.context; }
  [[nodiscard]] const std::vector<int>& evaluated_layers() const { return setup_.evaluated_layers; }

 private:
  static int round_up(int x, int b) { return (std::max(1, x) + b - 1) / b * b; }

  std::vector<std::vector<token_group>> groups_of(const routing_trace& t, const window_tokens& w) const {
    auto g = token_groups(t, s_.chiplets(), w);
    for (auto& gl : g) gl = split_blocks(gl, xp_.fast_map.block_tokens);
    return g;
  }

  /// Counts the expert routes of a window of `tokens` tokens on the evaluated layers.
  void count_routes(std::int64_t tokens) {
    count_work(detail::checked_mul(detail::checked_mul(tokens, static_cast<std::int64_t>(setup_.evaluated_layers.size()),
                                                       "strata.serving.hcrmap", "hcrmap"),
                                   static_cast<std::int64_t>(m_.top_k), "strata.serving.hcrmap", "hcrmap"));
  }
  /// Counts `r` routes (or controller candidates, file comment) against `hcrmap_limits().routes`.
  void count_work(std::int64_t r) {
    c_.routes += r;
    if (c_.routes > hcrmap_limits().routes) {
      throw config_error("hcrmap", "[strata.serving.hcrmap] hcrmap: the run evaluates more than " +
                                       std::to_string(hcrmap_limits().routes) +
                                       " expert routes on the trace (strata::hcrmap_limits().routes); serve fewer "
                                       "requests, evaluate fewer layers (hcrmap.max_layers) or raise block_tokens");
    }
  }

  /// The routed time and energy of a window of `n` tokens on the trace's evaluation split.
  step_cost evaluate_routed(phase mode, int n) {
    count_routes(n);
    ++c_.evaluated;
    std::vector<std::vector<token_group>> win;
    if (mode == phase::prefill) {
      win = groups_of(eval_, window_tokens{prefill_at_ % eval_.tokens(), n});
      prefill_at_ = (prefill_at_ + static_cast<std::size_t>(n)) % eval_.tokens();
    } else {
      win = decode_token_groups(eval_, s_.chiplets(),
                                {.batch = n, .position = -1, .seed = 0, .step = decode_step_++, .allow_reuse = true});
      for (auto& gl : win) gl = split_blocks(gl, xp_.fast_map.block_tokens);
    }
    step_cost c{};
    for (std::size_t i = 0; i < sessions_.size(); ++i) {
      last_[i] = sessions_[i]->evaluate(win, nullptr, setup_.scale, 1);
      c.time_s += last_[i]->moe_s * setup_.scale;
      c.energy_j += last_[i]->energy.total().si() * setup_.scale;
    }
    return c;
  }

  /// The controller of every stage, over the time served since it last acted (file comment).
  void control() {
    bool changed = false;
    for (std::size_t i = 0; i < sessions_.size(); ++i) {
      if (!last_[i]) continue;  // nothing evaluated on this layout yet
      // Its work: up to max_decisions decisions over the candidates of its layers' experts.
      count_work(static_cast<std::int64_t>(setup_.stages[i].local.size()) * m_.experts * xp_.controller.max_decisions);
      edit_counts k;
      const int e = sessions_[i]->control(*last_[i], since_, &k);
      ++c_.controls;
      c_.edits += e;
      c_.published += k.published;
      changed = changed || e > 0 || k.published > 0 || !sessions_[i]->controller().pending().empty();
    }
    since_ = 0.0;
    if (changed) routed_.clear();
  }

  model m_;
  hcrmap_serving_params p_;
  substrate s_;
  experiment_params xp_{};
  detail::experiment_setup setup_;
  std::vector<std::optional<residency>> static_res_;
  std::vector<std::vector<token_group>> none_;
  routing_trace prof_, eval_;
  detail::hcrmap_layout_memo layouts_;
  std::vector<std::unique_ptr<detail::policy_session>> sessions_;
  std::vector<std::optional<detail::window_evaluation>> last_;
  std::map<std::tuple<int, int, int>, step_cost> fixed_;
  std::map<std::pair<int, int>, step_cost> routed_;
  std::size_t prefill_at_ = 0;
  int decode_step_ = 0;
  double since_ = 0.0, control_s_ = 0.0;
  hcrmap_engine_counts c_;
};

/// Serves `reqs` (in arrival order) on the HCRMap package of `setup` through the engine (file
/// comment): one engine core of ⌊kv_tokens / block_size⌋ blocks under `scheduler.engine` and
/// `scheduler.max_batch` (`stratum_engine_settings`), costed by `hcrmap_step_costs`, driven by
/// `detail::drive_engine`. Throws `config_error` naming `hcrmap.*`, `requests` or `scheduler.*`
/// on bad input; a request whose KV exceeds the package's is an infeasible result with its reason.
template <class = void>
inline serving_result simulate_hcrmap_serving(const hcrmap_serving_setup& setup, const std::vector<request>& reqs) {
  constexpr const char* id = "strata.serving.hcrmap";
  detail::require(setup.trace != nullptr, id, "hcrmap.trace", "none", "a routing trace of the model");
  detail::require(!reqs.empty(), id, "requests", 0, "at least one request");
  validate(setup.scheduler, "scheduler");
  for (std::size_t r = 1; r < reqs.size(); ++r) {
    detail::require(reqs[r].arrival_s >= reqs[r - 1].arrival_s, id, "requests", r, "requests in arrival order");
  }
  check_serving_work(reqs, 0, "requests");
  const scheduler_params& sp = setup.scheduler;
  hcrmap_step_costs costs(setup.m, *setup.trace, setup.params, sp.max_batch);
  const std::size_t n = reqs.size();
  serving_result out;
  out.system = "HCRMap package (" + std::to_string(costs.packages()) + (costs.packages() == 1 ? " package" : " packages") +
               ", " + std::to_string(setup.params.package.mesh_x * setup.params.package.mesh_y) + " chiplets each)";
  out.policy = std::string("engine (") + to_string(setup.params.policy) + ")";
  out.requests = static_cast<std::int64_t>(n);
  const engine_params ep = detail::stratum_engine_settings(sp);
  const engine_limits lim{.max_num_batched_tokens = sp.engine.max_num_batched_tokens, .max_num_seqs = sp.max_batch};
  const std::int64_t kv = sp.kv_tokens > 0 ? sp.kv_tokens : costs.kv_tokens();
  const std::int64_t blocks = kv / ep.block_size;
  out.kv_tokens = blocks * ep.block_size;
  const auto order = detail::arrival_order(reqs);
  engine_request_state st(n);
  engine_core<hcrmap_step_costs> core(reqs, st, ep, lim, blocks, costs);
  for (std::size_t r = 0; r < n; ++r) {
    auto why = core.unfit(r);
    if (why.empty()) why = core.unfit_prompt(r);
    if (!why.empty()) {
      out.feasible = false;
      out.reason = std::move(why);
      return out;
    }
  }
  if (!detail::drive_engine(
          out, core, st, reqs, order, order, detail::engine_pass_bound(reqs, lim), sp,
          [&](std::size_t r) { return reqs[r].arrival_s; }, [](std::size_t) {}, [](double) {})) {
    return out;
  }
  out.notes.push_back(std::to_string(costs.counts().evaluated) + " of " + std::to_string(costs.counts().windows) +
                      " windows evaluated on the trace, the others from the memo (block of " +
                      std::to_string(setup.params.block_tokens) + " tokens); " + std::to_string(costs.counts().edits) +
                      " controller edits, " + std::to_string(costs.counts().published) + " copies published");
  detail::check_result_numbers(out, "serving_result");
  return out;
}

}  // namespace v0
}  // namespace strata
