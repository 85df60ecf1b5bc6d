// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The HCRMap policy comparison (§7.1–7.3, Fig. 5–7): a model served in prefill (2048 tokens) or
/// decode (`batch` tokens, one from each of `batch` = 512 distinct concurrent sequences of the
/// split, or refused unless `trace_reuse`; `experiment_params`) for several windows in
/// sequence, under every policy of `policies.hpp` on the same substrate, the same routing trace,
/// the same windows and the same resident-copy budget, end to end (Eq. 16) with energy (Eq. 17).
///
/// Protocol (what `run_experiment` does, and the fairness it keeps):
/// - Trace split by sequence (`split_by_sequence`): sequences at even positions form the
///   *profile* split, odd positions the *evaluation* split. Every policy's initial layout, and
///   every choice HCRMap's controller makes before serving, comes from profile windows; all
///   reported windows come from the evaluation split, which no policy or knob has seen. No weight
///   of any policy is fitted (defaults are design choices, named in each header).
/// - Packages: the model runs on the pipeline `plan_packages` gives (`chiplet/scale_out.hpp`:
///   each stage sized for Table 1's 1.3× resident-copy budget); each stage's residency budget is
///   Table 1's 1.3× of its experts, the same for every policy.
/// - Layers: every MoE layer by default (end to end); with a smaller `max_layers`, that many
///   evenly spaced layers, the routed time of the window their sum scaled by (MoE layers /
///   evaluated layers). Replicating policies place extra copies only on evaluated layers, at most
///   (budget_factor − 1) × their experts, so every policy spends the same share of the budget
///   where it is measured (a sample is biased, `experiment_params::max_layers` says how). The
///   non-routed work (attention, norms, shared experts, embedding, LM head) and the pipeline
///   hand-offs are the same for every policy (their data placement is planned before the experts)
///   and are computed once by `evaluate_pipeline` with no routed groups.
/// - Groups are cut into token blocks (`split_blocks`) for every policy alike; each policy routes
///   them its own way.
/// - Windows: `windows` evaluation windows in sequence (prefill window i holds the evaluation
///   split's tokens [2048·i, 2048·(i + 1)); decode window i is step i of one running batch).
///   Copies scheduled after a window are in flight during the next one (charged to links and
///   banks as migrations, their bytes spread over the model's MoE layers) and are published
///   only when their chunks have landed (§6.8).
/// - Normalisation: a policy's latency is its mean window T_E2E over the same model and mode's
///   single-copy static mean (§7.1); energy and EDP (energy × latency) likewise.
///
/// Work: an experiment replays policies × (profile + evaluation windows) × evaluated layers ×
/// window tokens × top-k expert routes (`experiment_routes`), checked against
/// `hcrmap_limits().routes` before anything is built (`config_error` naming `windows`).
///
/// Knobs: `experiment_params.hpp`; results: `experiment_result.hpp`; the split:
/// `trace_split.hpp`; PIM for PIMoE: `pim.hpp`.

#include <algorithm>  // std::max, std::min, std::clamp, std::find
#include <array>      // std::array
#include <cmath>      // std::floor
#include <cstddef>    // std::size_t
#include <cstdint>    // std::int64_t
#include <optional>   // std::optional
#include <string>     // std::string
#include <utility>    // std::move
#include <vector>     // std::vector

#include "strata/chiplet/scale_out.hpp"
#include "strata/chiplet/token_groups.hpp"
#include "strata/chiplet/window.hpp"
#include "strata/core/error.hpp"
#include "strata/hcrmap/controller.hpp"
#include "strata/hcrmap/scorer.hpp"
#include "strata/hcrmap/serving.hpp"
#include "strata/hcrmap/experiment_params.hpp"
#include "strata/hcrmap/experiment_result.hpp"
#include "strata/hcrmap/layer_eval.hpp"
#include "strata/hcrmap/pim.hpp"
#include "strata/hcrmap/placement.hpp"
#include "strata/hcrmap/policies.hpp"
#include "strata/hcrmap/token_mapper.hpp"
#include "strata/hcrmap/trace_split.hpp"
#include "strata/workload/trace.hpp"

namespace strata {
inline namespace v0 {

namespace detail {
/// What every policy of one model and mode shares: the window, the package plan, the evaluated
/// layers and the stages that hold them (file comment).
struct experiment_setup {
  window_spec spec{};
  package_plan plan;
  moe_layer_shape shape{};
  std::vector<int> evaluated_layers;  ///< MoE layer indices evaluated
  double scale = 1.0;                 ///< MoE layers / evaluated layers
  std::vector<experiment_stage> stages;
};

/// The setup of `m` in `mode` (throws `config_error` if the window fits no package plan).
template <class = void>
inline experiment_setup make_experiment_setup(const substrate& s, const model& m, phase mode, const experiment_params& xp) {
  constexpr const char* id = "strata.hcrmap.experiment";
  experiment_setup out;
  const int tokens = tokens_per_window(mode, xp);
  out.spec = window_spec{mode, tokens, xp.context};
  out.plan = plan_packages(s, m, out.spec, xp.scale_out);
  if (!out.plan.feasible) {  // named by the input that sized the window: decode's context, else the model
    const bool decode = mode == phase::decode;
    throw config_error(decode ? "context" : "model",
                       std::string("[") + id + "] " + m.name + " in a " +
                           (decode ? "decode window of " + std::to_string(tokens) + " sequences at context " +
                                         std::to_string(xp.context)
                                   : "prefill window of " + std::to_string(tokens) + " tokens") +
                           " fits no package plan: " + out.plan.reason);
  }
  out.shape = moe_shape(m);
  const int L = m.moe_layers();
  const int n_eval = std::min(xp.max_layers, L);
  for (int i = 0; i < n_eval; ++i) {
    const int l = static_cast<int>(std::floor((i + 0.5) * double(L) / n_eval));
    if (out.evaluated_layers.empty() || out.evaluated_layers.back() != l) out.evaluated_layers.push_back(l);
  }
  out.scale = double(L) / double(out.evaluated_layers.size());
  for (std::size_t i = 0; i < out.plan.stages.size(); ++i) {
    const auto& st = out.plan.stages[i];
    experiment_stage es;
    es.index = static_cast<int>(i);
    es.first_moe = st.first_moe_layer;
    es.moe_layers = st.moe_layers;
    es.rp = st.capacity.expert_params(xp.scale_out.residency);
    for (int l : out.evaluated_layers) {
      if (l >= st.first_moe_layer && l < st.first_moe_layer + st.moe_layers) es.local.push_back(l - st.first_moe_layer);
    }
    if (!es.local.empty()) out.stages.push_back(std::move(es));
  }
  return out;
}

/// The profile of stage `es` from the profile windows (stage-local layers).
template <class = void>
inline expert_profile stage_profile(const experiment_stage& es, int experts, int chiplets,
                                    const std::vector<std::vector<std::vector<token_group>>>& prof_windows) {
  expert_profile prof(es.moe_layers, experts, chiplets);
  for (const auto& pw : prof_windows) {
    for (int j = 0; j < es.moe_layers; ++j) prof.add(detail::local_groups(pw, es.first_moe + j, j));
  }
  return prof;
}

/// Serves `served` windows in sequence under every policy of `policies` on `setup` (the loop of
/// `run_experiment`, and of the task-switch workload, `task_switch.hpp`): per policy and stage,
/// the layout is built from the `warmup` windows (HCRMap's promotions planned on them), then
/// window k is evaluated and only then observed by the controller, which decides before window
/// k + 1: no policy sees a served window before serving it. Fills `out`'s non-routed time and
/// policies (per window T_E2E, means, stages, streaming bytes, edits by kind).
template <class = void>
inline void serve_windows(const substrate& s, const model& m, const experiment_setup& setup, const experiment_params& xp,
                          const std::vector<policy_kind>& policies,
                          const std::vector<std::vector<std::vector<token_group>>>& warmup,
                          const std::vector<std::vector<std::vector<token_group>>>& served, const action_scorer& value,
                          experiment_result& out) {
  const int L = m.moe_layers(), C = s.chiplets();
  const double scale = setup.scale;
  const int W = static_cast<int>(served.size());
  // Non-routed work and hand-offs: the same for every policy.
  const auto static_res = stage_residencies(s, m, setup.plan, xp.scale_out);
  const std::vector<std::vector<token_group>> none(static_cast<std::size_t>(L));
  const auto nr = evaluate_pipeline(s, m, setup.plan, static_res, none, setup.spec, xp.scale_out, xp.critical_path);
  out.non_routed_s = (nr.non_routed + nr.inter_package).si();
  const double e_nr = (nr.non_routed_energy + nr.inter_package_energy).si();
  out.policies.reserve(policies.size());
  // Every policy's layout is built from the same profiles; HCRMap's variants that keep its
  // placement knobs and tiers share their first copies.
  std::vector<expert_profile> profiles;
  profiles.reserve(setup.stages.size());
  for (const auto& es : setup.stages) profiles.push_back(detail::stage_profile(es, m.experts, C, warmup));
  hcrmap_layout_memo layouts;
  hcrmap_plan_memo plans;
  for (policy_kind k : policies) {
    policy_result pr;
    pr.policy = k;
    pr.chiplet_busy_s.assign(static_cast<std::size_t>(C), 0.0);
    stage_times st_sum{};
    std::vector<double> window_moe(static_cast<std::size_t>(W), 0.0), window_energy(static_cast<std::size_t>(W), 0.0);
    for (std::size_t si = 0; si < setup.stages.size(); ++si) {
      const auto& es = setup.stages[si];
      // The policy's layout from the warm-up (profile) windows; HCRMap's promotions planned on them.
      detail::policy_session session(s, m, setup.shape, es, k, xp, profiles[si], L, value, &layouts);
      session.plan(warmup, &plans);
      // Serving windows.
      window_evaluation own;
      for (int w = 0; w < W; ++w) {
        // The first window after planning: HCRMap's variants that took the same plan evaluate it
        // once (`policy_session::first_served`; `plans` gains no entry while `ev` is read).
        // Later windows are evaluated into `own`, its buffers reused from window to window.
        if (w > 0) session.evaluate_into(own, served[static_cast<std::size_t>(w)], &pr, scale, W);
        const window_evaluation& ev = w == 0 ? session.first_served(served[0], &pr, scale, W, &plans, own) : own;
        pr.violations += session.violations(ev);
        window_moe[static_cast<std::size_t>(w)] += ev.moe_s * scale;
        window_energy[static_cast<std::size_t>(w)] += ev.energy.total().si() * scale;
        st_sum += detail::scaled(ev.stages, scale);
        pr.edits += session.control(ev, out.non_routed_s + ev.moe_s * scale, &pr.controller_edits);
      }
      pr.replicas += session.replicas();
    }
    pr.e2e_s.resize(static_cast<std::size_t>(W));
    double moe_sum = 0.0, energy_sum = 0.0;
    for (int w = 0; w < W; ++w) {
      pr.e2e_s[static_cast<std::size_t>(w)] = out.non_routed_s + window_moe[static_cast<std::size_t>(w)];
      pr.latency_s += pr.e2e_s[static_cast<std::size_t>(w)] / W;
      moe_sum += window_moe[static_cast<std::size_t>(w)] / W;
      energy_sum += (e_nr + window_energy[static_cast<std::size_t>(w)]) / W;
    }
    pr.moe_s = moe_sum;
    pr.energy_j = energy_sum;
    pr.edp = pr.energy_j * pr.latency_s;
    pr.stages = detail::scaled(st_sum, 1.0 / W);
    out.policies.push_back(std::move(pr));
  }
}
}  // namespace detail

namespace detail {
/// A 64-bit fingerprint of a trace's content (its shape, every token's expert ids and its
/// sequence, position and topic): FNV-1a over 64-bit words, each multiplied and folded
/// (splitmix64's finaliser), one pass over the trace (well under a millisecond for a report trace,
/// against the half second of an experiment).
template <class = void>
inline std::uint64_t trace_fingerprint(const routing_trace& t) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  const auto mix = [&h](std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    x ^= x >> 31;
    h = (h ^ x) * 0x100000001b3ULL;
  };
  mix(static_cast<std::uint64_t>(t.layers()));
  mix(static_cast<std::uint64_t>(t.experts_per_layer()));
  mix(static_cast<std::uint64_t>(t.k()));
  mix(static_cast<std::uint64_t>(t.tokens()));
  const auto ids = t.ids();
  std::size_t i = 0;
  for (; i + 4 <= ids.size(); i += 4) {
    mix(static_cast<std::uint64_t>(ids[i]) | static_cast<std::uint64_t>(ids[i + 1]) << 16 |
        static_cast<std::uint64_t>(ids[i + 2]) << 32 | static_cast<std::uint64_t>(ids[i + 3]) << 48);
  }
  for (; i < ids.size(); ++i) mix(ids[i]);
  for (const auto& f : t.infos()) {
    mix(static_cast<std::uint64_t>(static_cast<std::uint32_t>(f.seq)) << 32 | static_cast<std::uint32_t>(f.pos));
    mix(static_cast<std::uint64_t>(static_cast<std::uint32_t>(f.topic)));
  }
  return h;
}
}  // namespace detail

/// An experiment's windows (`run_experiment`): the profile and evaluation windows' token groups
/// of a trace, the note they add to the trace's and whether a decode window reused sequences,
/// with what they were built from. A function of the trace, the mode, the compute chiplets and
/// the knobs `experiment_windows::of` names: a caller that reruns an experiment on the same trace
/// with other substrate or critical-path parameters (the gap explainer) keeps one per (trace,
/// mode) and `run_experiment` builds the windows only when one of those changed.
struct experiment_windows {
  const routing_trace* trace = nullptr;  ///< the trace they were built from (compared, never read)
  /// The trace's content when they were built (`detail::trace_fingerprint`): another trace at the
  /// same address (one destroyed, another built in its place) is told apart by it.
  std::uint64_t fingerprint = 0;
  phase mode = phase::prefill;
  int chiplets = 0, tokens = 0, block_tokens = 0, windows = 0, profile_windows = 0;
  bool trace_reuse = false;
  std::string trace_note;
  std::vector<std::vector<std::vector<token_group>>> profile, evaluation;
  std::string note;               ///< `trace_note` with the windows' notes (reuse, wrap-around)
  bool sequences_reused = false;  ///< `experiment_result::sequences_reused`

  /// Whether these are the windows of `trace` in `mode` on `chiplets` compute chiplets under `xp`
  /// with `trace_note`.
  template <class = void>
  [[nodiscard]] bool of(const routing_trace& t, phase md, int c, const experiment_params& xp, const std::string& tn) const {
    return trace == &t && fingerprint == detail::trace_fingerprint(t) && mode == md && chiplets == c &&
           tokens == tokens_per_window(md, xp) &&
           block_tokens == xp.fast_map.block_tokens && windows == xp.windows && profile_windows == xp.profile_windows &&
           trace_reuse == xp.trace_reuse && trace_note == tn;
  }
};

namespace detail {
/// The windows of `trace` in `mode` on `chiplets` compute chiplets (`run_experiment`): profile
/// windows from the profile split, evaluation windows from the other.
template <class = void>
inline experiment_windows make_experiment_windows(const routing_trace& trace, phase mode, int chiplets,
                                                  const experiment_params& xp, const std::string& trace_note) {
  experiment_windows w;
  w.trace = &trace;
  w.fingerprint = trace_fingerprint(trace);
  w.mode = mode;
  w.chiplets = chiplets;
  w.tokens = tokens_per_window(mode, xp);
  w.block_tokens = xp.fast_map.block_tokens;
  w.windows = xp.windows;
  w.profile_windows = xp.profile_windows;
  w.trace_reuse = xp.trace_reuse;
  w.trace_note = trace_note;
  const auto [prof_trace, eval_trace] = split_by_sequence(trace);
  w.note = trace_note;
  for (int i = 0; i < xp.profile_windows; ++i) {
    w.profile.push_back(detail::window_groups(prof_trace, mode, chiplets, w.tokens, i, xp.fast_map.block_tokens,
                                              xp.trace_reuse, w.note, &w.sequences_reused));
  }
  for (int i = 0; i < xp.windows; ++i) {
    w.evaluation.push_back(detail::window_groups(eval_trace, mode, chiplets, w.tokens, i, xp.fast_map.block_tokens,
                                                 xp.trace_reuse, w.note, &w.sequences_reused));
  }
  if (mode == phase::prefill && static_cast<std::size_t>(xp.windows) * w.tokens > eval_trace.tokens()) {
    w.note += (w.note.empty() ? "" : "; ") + std::string("prefill windows wrap around the evaluation split's ") +
              std::to_string(eval_trace.tokens()) + " tokens";
  }
  return w;
}
}  // namespace detail

/// Runs `policies` (single-copy static is added first if missing) on model `m` in `mode` with
/// the routing trace `trace` (file comment). `trace_note` is copied into the result's note.
/// `value` is the value function HCRMap's controller decides with (its planning promotions and
/// its serving decisions; the ablations that remove a pressure, the fast mapper or the HBM tier
/// keep it): an empty function is the greedy one-step rule (`greedy_score`), the fallback;
/// `policy_kind::hcrmap_greedy` always uses the greedy rule. `windows`, when given, holds the
/// windows of an earlier run (`experiment_windows`): taken when they are this run's, else built
/// and left there (the same result either way).
template <class = void>
inline experiment_result run_experiment(const substrate& s, const model& m, const routing_trace& trace, phase mode,
                                        std::vector<policy_kind> policies, const experiment_params& xp = {},
                                        const std::string& trace_note = {}, const action_scorer& value = {},
                                        experiment_windows* windows = nullptr) {
  constexpr const char* id = "strata.hcrmap.experiment";
  validate(m);
  validate(xp);
  require_trace_of_model(trace, m, "the experiment's trace");
  if (std::find(policies.begin(), policies.end(), policy_kind::single_copy_static) == policies.end()) {
    policies.insert(policies.begin(), policy_kind::single_copy_static);
  }
  detail::require_routes(1, m, mode, static_cast<std::int64_t>(policies.size()), xp, id, "windows");
  const auto setup = detail::make_experiment_setup(s, m, mode, xp);
  const int tokens = setup.spec.tokens;
  const int L = m.moe_layers(), C = s.chiplets();
  experiment_result out;
  out.model = m.name;
  out.mode = mode;
  out.packages = setup.plan.packages();
  out.moe_layers = L;
  out.evaluated_layers = setup.evaluated_layers;
  out.window_tokens = tokens;
  out.context = xp.context;
  const double scale = setup.scale;
  // Windows: profile windows from the profile split, evaluation windows from the other.
  std::optional<experiment_windows> own;
  if (windows == nullptr) {
    own.emplace(detail::make_experiment_windows(trace, mode, C, xp, trace_note));
  } else if (!windows->of(trace, mode, C, xp, trace_note)) {
    *windows = detail::make_experiment_windows(trace, mode, C, xp, trace_note);
  }
  const experiment_windows& w = windows == nullptr ? *own : *windows;
  out.sequences_reused = w.sequences_reused;
  std::string note = w.note;
  note += (note.empty() ? "" : "; ") + std::to_string(out.evaluated_layers.size()) + " of " + std::to_string(L) +
          " MoE layers evaluated (routed time scaled by " + detail::to_text(scale) + ")";
  out.note = note;

  detail::serve_windows(s, m, setup, xp, policies, w.profile, w.evaluation, value, out);
  return out;
}

}  // namespace v0
}  // namespace strata
