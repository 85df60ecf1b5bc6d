// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The HCRMap policy comparison (§7.1–7.3, Fig. 5–7): a model served in prefill (2048 tokens) or
/// decode (512 tokens, one from each of 512 concurrent sequences) for several windows in
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
/// - Layers: at most `max_layers` MoE layers are evaluated, evenly spaced over the model; the
///   routed time of the window is their sum scaled by (MoE layers / evaluated layers). Replicating
///   policies place extra copies only on evaluated layers, at most (budget_factor − 1) × their
///   experts, so every policy spends the same share of the budget where it is measured. The
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
/// Knobs: `experiment_params.hpp`; results: `experiment_result.hpp`; the split:
/// `trace_split.hpp`; PIM for PIMoE: `pim.hpp`.

#include <algorithm>  // std::max, std::min, std::clamp, std::find
#include <array>      // std::array
#include <cmath>      // std::floor
#include <cstddef>    // std::size_t
#include <optional>   // std::optional
#include <string>     // std::string
#include <utility>    // std::move
#include <vector>     // std::vector

#include "strata/chiplet/scale_out.hpp"
#include "strata/chiplet/token_groups.hpp"
#include "strata/chiplet/window.hpp"
#include "strata/core/error.hpp"
#include "strata/hcrmap/controller.hpp"
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
/// A stage of the pipeline that holds evaluated layers.
struct experiment_stage {
  int index = 0;                 ///< stage in the plan
  int first_moe = 0, moe_layers = 0;
  residency_params rp{};
  std::vector<int> local;        ///< evaluated layers, stage-local indices
};

/// Stage times × f.
inline stage_times scaled(stage_times t, double f) {
  t.gate = t.gate * f;
  t.dispatch = t.dispatch * f;
  t.queue = t.queue * f;
  t.memory = t.memory * f;
  t.compute = t.compute * f;
  t.gather = t.gather * f;
  t.combine = t.combine * f;
  return t;
}

/// Groups of MoE layer `moe` (model index) as stage-local layer `local`.
inline std::vector<token_group> local_groups(const std::vector<std::vector<token_group>>& g, int moe, int local) {
  auto out = g[static_cast<std::size_t>(moe)];
  for (auto& x : out) x.layer = local;
  return out;
}
}  // namespace detail

/// Runs `policies` (single-copy static is added first if missing) on model `m` in `mode` with
/// the routing trace `trace` (file comment). `trace_note` is copied into the result's note.
inline experiment_result run_experiment(const substrate& s, const model& m, const routing_trace& trace, phase mode,
                                        std::vector<policy_kind> policies, const experiment_params& xp = {},
                                        const std::string& trace_note = {}) {
  constexpr const char* id = "strata.hcrmap.experiment";
  validate(m);
  validate(xp);
  detail::require(trace.layers() == m.moe_layers() && trace.experts_per_layer() == m.experts, id, "trace",
                  trace.layers(), "the model's MoE layers and experts");
  if (std::find(policies.begin(), policies.end(), policy_kind::single_copy_static) == policies.end()) {
    policies.insert(policies.begin(), policy_kind::single_copy_static);
  }
  const int tokens = mode == phase::prefill ? 2048 : 512;
  const window_spec spec{mode, tokens, xp.context};
  const auto plan = plan_packages(s, m, spec, xp.scale_out);
  detail::require(plan.feasible, id, "model", m.layers, ("a window that fits packages: " + plan.reason).c_str());
  const auto shape = moe_shape(m);
  const int L = m.moe_layers(), C = s.chiplets();
  experiment_result out;
  out.model = m.name;
  out.mode = mode;
  out.packages = plan.packages();
  out.moe_layers = L;
  const int n_eval = std::min(xp.max_layers, L);
  for (int i = 0; i < n_eval; ++i) {
    const int l = static_cast<int>(std::floor((i + 0.5) * double(L) / n_eval));
    if (out.evaluated_layers.empty() || out.evaluated_layers.back() != l) out.evaluated_layers.push_back(l);
  }
  const double scale = double(L) / double(out.evaluated_layers.size());
  std::vector<detail::experiment_stage> stages;
  for (std::size_t i = 0; i < plan.stages.size(); ++i) {
    const auto& st = plan.stages[i];
    detail::experiment_stage es;
    es.index = static_cast<int>(i);
    es.first_moe = st.first_moe_layer;
    es.moe_layers = st.moe_layers;
    es.rp = st.capacity.expert_params(xp.scale_out.residency);
    for (int l : out.evaluated_layers) {
      if (l >= st.first_moe_layer && l < st.first_moe_layer + st.moe_layers) es.local.push_back(l - st.first_moe_layer);
    }
    if (!es.local.empty()) stages.push_back(std::move(es));
  }
  // Windows: profile windows from the profile split, evaluation windows from the other.
  const auto [prof_trace, eval_trace] = split_by_sequence(trace);
  std::string note = trace_note;
  auto window_groups = [&](const routing_trace& t, int i) {
    decode_batch batch;
    auto g = mode == phase::prefill
                 ? token_groups(t, C, window_tokens{static_cast<std::size_t>(i) * static_cast<std::size_t>(tokens), tokens})
                 : decode_token_groups(t, C, {.batch = tokens, .position = -1, .seed = 0, .step = i, .allow_reuse = true}, &batch);
    if (!batch.note.empty() && note.find("decode") == std::string::npos) note += (note.empty() ? "" : "; ") + ("decode: " + batch.note);
    for (auto& gl : g) gl = split_blocks(gl, xp.fast_map.block_tokens);
    return g;
  };
  std::vector<std::vector<std::vector<token_group>>> prof_windows, eval_windows;
  for (int i = 0; i < xp.profile_windows; ++i) prof_windows.push_back(window_groups(prof_trace, i));
  for (int i = 0; i < xp.windows; ++i) eval_windows.push_back(window_groups(eval_trace, i));
  if (mode == phase::prefill && static_cast<std::size_t>(xp.windows) * tokens > eval_trace.tokens()) {
    note += (note.empty() ? "" : "; ") + std::string("prefill windows wrap around the evaluation split's ") +
            std::to_string(eval_trace.tokens()) + " tokens";
  }
  note += (note.empty() ? "" : "; ") + std::to_string(out.evaluated_layers.size()) + " of " + std::to_string(L) +
          " MoE layers evaluated (routed time scaled by " + detail::to_text(scale) + ")";
  out.note = note;

  // Non-routed work and hand-offs: the same for every policy.
  {
    const auto static_res = stage_residencies(s, m, plan, xp.scale_out);
    const std::vector<std::vector<token_group>> none(static_cast<std::size_t>(L));
    const auto w = evaluate_pipeline(s, m, plan, static_res, none, spec, xp.scale_out, xp.critical_path);
    out.non_routed_s = (w.non_routed + w.inter_package).si();
    const double e_nr = (w.non_routed_energy + w.inter_package_energy).si();
    out.policies.reserve(policies.size());
    for (policy_kind k : policies) {
      policy_result pr;
      pr.policy = k;
      pr.chiplet_busy_s.assign(static_cast<std::size_t>(C), 0.0);
      double energy_sum = 0.0;
      std::vector<stage_times> stage_sum;
      stage_times st_sum{};
      double moe_sum = 0.0;
      std::vector<double> window_moe(static_cast<std::size_t>(xp.windows), 0.0), window_energy(static_cast<std::size_t>(xp.windows), 0.0);
      for (const auto& es : stages) {
        // The policy's layout from the profile windows.
        expert_profile prof(es.moe_layers, m.experts, C);
        for (const auto& pw : prof_windows) {
          for (int j = 0; j < es.moe_layers; ++j) prof.add(detail::local_groups(pw, es.first_moe + j, j));
        }
        fast_map_params fm = xp.fast_map;
        controller_params ctl = xp.controller;
        std::array<bool, 3> tiers{true, true, true};
        placement_params& pp = ctl.placement;
        if (k == policy_kind::hcrmap_no_link) fm.w_path = 0.0, pp.alpha_src = 0.0;
        if (k == policy_kind::hcrmap_no_bank) fm.w_bank = 0.0, pp.chi_bank = 0.0;
        if (k == policy_kind::hcrmap_no_compute) fm.w_queue = 0.0, pp.beta_queue = 0.0;
        if (k == policy_kind::hcrmap_no_migration) ctl.eta_mig = 1.0, ctl.mu_mig = 0.0;
        if (k == policy_kind::hcrmap_no_hbm) tiers = {true, false, true};
        const auto wt = expert_bytes(m);
        const double chiplet_flops = s.core_throughput().si() * xp.critical_path.tile_utilization * s.params().cores_per_chiplet;
        std::optional<residency> res;
        switch (k) {
          case policy_kind::single_copy_static: res.emplace(single_copy_static(s, es.moe_layers, m.experts, wt, es.rp)); break;
          case policy_kind::fixed_replication:
            res.emplace(fixed_replication_layout(s, es.moe_layers, m.experts, wt, es.rp, prof, es.local));
            break;
          case policy_kind::hydra: res.emplace(hydra_layout(s, es.moe_layers, m.experts, wt, es.rp, prof)); break;
          case policy_kind::moentwine: res.emplace(moentwine_layout(s, es.moe_layers, m.experts, wt, es.rp, prof, es.local)); break;
          case policy_kind::pimoe: res.emplace(pimoe_layout(s, es.moe_layers, m.experts, wt, es.rp, prof)); break;
          default:
            res.emplace(hcrmap_layout(s, es.moe_layers, m.experts, wt, es.rp, prof, shape.flops_per_token.si(), chiplet_flops,
                                      xp.critical_path.window.si(), pp, tiers));
            break;
        }
        ctl.copy_cap = detail::copy_cap(*res, es.local) + static_cast<long long>(res->entries().size()) -
                       static_cast<long long>(es.moe_layers) * m.experts;
        residency_controller controller(s, shape, *res, ctl, xp.critical_path);
        const bool fast = is_hcrmap(k) && k != policy_kind::hcrmap_no_fast_map;
        // PIM offload decisions of PIMoE: cold = profile demand below the layer's mean.
        auto route = [&](const std::vector<token_group>& g) {
          if (fast) {
            fast_token_mapper mapper(s, shape, *res, fm, xp.critical_path);
            return mapper.map(g);
          }
          if (k == policy_kind::moentwine) return least_tokens_replica(*res, g);
          return nearest_replica(s, *res, g);
        };
        auto evaluate = [&](const std::vector<std::vector<token_group>>& win, std::vector<std::vector<token_group>>& lg,
                            std::vector<directory_layer_eval>& evals, energy_breakdown& energy, stage_times& stages_out,
                            double& moe_out, bool account) {
          lg.clear();
          evals.clear();
          const auto mig = controller.migrations(L);
          for (int local : es.local) {
            lg.push_back(detail::local_groups(win, es.first_moe + local, local));
            auto entries = route(lg.back());
            if (k == policy_kind::pimoe) {
              // Throttle-aware offload (file comment): cold bank-resident experts' groups to PIM
              // when the PIM estimate beats the core estimate and the unit is below its throttle.
              std::vector<token_group> core, pim;
              std::vector<int> core_e, pim_e;
              std::vector<double> unit(s.banks().size(), 0.0), chip(static_cast<std::size_t>(C), 0.0);
              double mean = 0.0;
              for (int e = 0; e < m.experts; ++e) mean += prof.at(local, e) / m.experts;
              for (std::size_t g = 0; g < lg.back().size(); ++g) {
                const auto& grp = lg.back()[g];
                const auto& de = res->entries()[static_cast<std::size_t>(entries[g])];
                const double flops = grp.tokens * shape.flops_per_token.si();
                bool off = false;
                if (res->tier(entries[g]) != tier_kind::sram && prof.at(local, grp.expert) < mean) {
                  double bw = 0.0;
                  for (int j = 0; j < de.span; ++j) bw += s.banks()[static_cast<std::size_t>(de.bank) + static_cast<std::size_t>(j)].bandwidth.si();
                  const double t_pim = unit[de.bank] + flops / (xp.pim.flops_per_byte * bw);
                  const double t_core = chip[de.chiplet] + flops / chiplet_flops + wt.si() / bw;
                  off = t_pim < t_core && unit[de.bank] < xp.pim.throttle * xp.critical_path.window.si();
                  if (off) unit[de.bank] = t_pim;
                }
                if (!off) chip[de.chiplet] += flops / chiplet_flops;
                (off ? pim : core).push_back(grp);
                (off ? pim_e : core_e).push_back(entries[g]);
              }
              auto ev = evaluate_directory_layer(s, shape, *res, core, core_e, xp.critical_path, mig);
              const double t_pim = detail::pim_layer(s, shape, *res, pim, pim_e, ev.result.critical.gate.si(),
                                                     ev.result.critical.combine.si(), xp.pim, ev.result.energy);
              if (t_pim > ev.result.t_moe.si()) {
                // The PIM groups are critical: their excess over the cores' path is memory-side service.
                ev.result.critical.memory += duration<>::from_si(t_pim - ev.result.t_moe.si());
                ev.result.t_moe = duration<>::from_si(t_pim);
              }
              evals.push_back(std::move(ev));
              lg.back() = std::move(core);
            } else {
              evals.push_back(evaluate_directory_layer(s, shape, *res, lg.back(), entries, xp.critical_path, mig));
            }
            const auto& r = evals.back().result;
            moe_out += r.t_moe.si();
            energy += r.energy;
            stages_out += r.critical;
            if (account) {
              for (std::size_t i = 0; i < evals.back().entry_of_replica.size(); ++i) {
                const auto& de = res->entries()[static_cast<std::size_t>(evals.back().entry_of_replica[i])];
                pr.chiplet_busy_s[de.chiplet] += r.replica_tokens[i] * shape.flops_per_token.si() / chiplet_flops;
              }
              for (std::size_t b = 0; b < s.banks().size(); ++b) {
                if (s.banks()[b].tier == tier_kind::dram) pr.dram_stream_bytes += r.bank_bytes[b * 2] * scale / xp.windows;
                if (s.banks()[b].tier == tier_kind::hbm) pr.hbm_stream_bytes += r.bank_bytes[b * 2] * scale / xp.windows;
              }
            }
          }
        };
        std::vector<std::vector<token_group>> lg;
        std::vector<directory_layer_eval> evals;
        // HCRMap: promotions before serving, on the profile window (installed, like every layout).
        if (is_hcrmap(k)) {
          auto install = ctl;
          install.hysteresis = 0.0;  // no migration while serving: any gain is worth installing
          controller.set_params(install);
          for (int round = 0; round < xp.planning_rounds; ++round) {
            energy_breakdown e{};
            stage_times stt{};
            double moe = 0.0;
            evaluate(prof_windows.front(), lg, evals, e, stt, moe, false);
            controller.observe(es.local, lg, evals, std::max(moe, 1e-12));
            int made = 0;
            const int per_round = static_cast<int>(ctl.copy_cap / std::max(1, xp.planning_rounds)) + 1;
            for (int i = 0; i < per_round; ++i) {
              const auto acts = controller.legal_actions();
              std::size_t best = 0;
              double best_v = 0.0;
              for (std::size_t a = 1; a < acts.size(); ++a) {
                if (acts[a].action.kind != residency_action_kind::promote) continue;
                const double v = greedy_score(acts[a].features);
                if (v > best_v) {
                  best_v = v;
                  best = a;
                }
              }
              if (best == 0) break;
              controller.apply(acts[best].action, true);
              ++made;
            }
            controller.collect();
            if (made == 0) break;
          }
          controller.set_params(ctl);
        }
        // Serving windows.
        for (int w = 0; w < xp.windows; ++w) {
          energy_breakdown e{};
          stage_times stt{};
          double moe = 0.0;
          evaluate(eval_windows[static_cast<std::size_t>(w)], lg, evals, e, stt, moe, true);
          pr.violations += res->violations().size();
          for (std::size_t i = 0; i < evals.size(); ++i) {
            std::vector<replica> reps;
            for (int en : evals[i].entry_of_replica) reps.push_back(res->as_replica(en));
            std::vector<int> assign;
            for (int en : evals[i].entry_of_group) {
              assign.push_back(static_cast<int>(std::find(evals[i].entry_of_replica.begin(), evals[i].entry_of_replica.end(), en) -
                                                evals[i].entry_of_replica.begin()));
            }
            pr.violations += constraint_violations(s, lg[i], reps, assign, evals[i].result).size();
          }
          window_moe[static_cast<std::size_t>(w)] += moe * scale;
          window_energy[static_cast<std::size_t>(w)] += e.total().si() * scale;
          st_sum += detail::scaled(stt, scale);
          const double window_s = out.non_routed_s + moe * scale;
          controller.advance(window_s);
          if (is_hcrmap(k) || k == policy_kind::moentwine) {
            controller.observe(es.local, lg, evals, std::max(moe, 1e-12));
            if (is_hcrmap(k)) {
              const int decisions = std::clamp(static_cast<int>(window_s / xp.critical_path.window.si()), 1, ctl.max_decisions);
              for (int d = 0; d < decisions; ++d) {
                const auto a = controller.decide();
                pr.edits += a.kind != residency_action_kind::no_op && a.kind != residency_action_kind::retain ? 1 : 0;
              }
            } else if (controller.pending().empty()) {
              // NI-Balancer: one expert from the most to the least loaded chiplet over cold links.
              std::vector<double> busy(static_cast<std::size_t>(C), 0.0);
              const directory_layer_eval* worst = nullptr;
              for (const auto& ev : evals) {
                if (worst == nullptr || ev.result.t_moe > worst->result.t_moe) worst = &ev;
              }
              for (std::size_t i = 0; worst != nullptr && i < worst->entry_of_replica.size(); ++i) {
                busy[res->entries()[static_cast<std::size_t>(worst->entry_of_replica[i])].chiplet] += worst->result.replica_tokens[i];
              }
              const auto hi = static_cast<int>(std::max_element(busy.begin(), busy.end()) - busy.begin());
              const auto lo = static_cast<int>(std::min_element(busy.begin(), busy.end()) - busy.begin());
              int pick = -1;
              double pick_tok = 0.0;
              for (std::size_t i = 0; worst != nullptr && i < worst->entry_of_replica.size(); ++i) {
                const int en = worst->entry_of_replica[i];
                const auto& de = res->entries()[static_cast<std::size_t>(en)];
                if (de.chiplet != hi || static_cast<int>(de.age) < ctl.min_age) continue;
                if (worst->result.replica_tokens[i] > pick_tok) {
                  pick_tok = worst->result.replica_tokens[i];
                  pick = en;
                }
              }
              if (pick >= 0 && hi != lo) {
                const auto& de = res->entries()[static_cast<std::size_t>(pick)];
                const auto t = res->tier(pick);
                const auto homes = t == tier_kind::sram ? std::vector<int>{s.group_of(lo)} : s.homes_for(t, lo, lo);
                for (int h : homes) {
                  const auto banks = s.banks_of(t, h);
                  if (banks.empty() || !res->can_add(de.layer, de.expert, lo, banks.front(), static_cast<int>(banks.size()))) continue;
                  std::vector<int> path;
                  s.append_route(s.bank_node(de.bank), s.bank_node(banks.front()), path);
                  const auto per_layer = data_size<>::from_si(wt.si() / L);
                  if (!path.empty() && !migration_allowed(s, worst->result, path, per_layer, worst->result.t_moe, 0.5)) break;
                  residency_action a;
                  a.kind = residency_action_kind::demote;  // a move: copy, then retire the old replica
                  a.layer = de.layer;
                  a.expert = de.expert;
                  a.entry = pick;
                  a.target = {t, lo, banks.front(), static_cast<int>(banks.size())};
                  controller.apply(a);
                  ++pr.edits;
                  break;
                }
              }
            }
          }
          controller.collect();
        }
        for (int l : es.local) {
          for (int e = 0; e < m.experts; ++e) pr.replicas += static_cast<int>(res->legal(l, e).size());
        }
      }
      pr.e2e_s.resize(static_cast<std::size_t>(xp.windows));
      for (int w = 0; w < xp.windows; ++w) {
        pr.e2e_s[static_cast<std::size_t>(w)] = out.non_routed_s + window_moe[static_cast<std::size_t>(w)];
        pr.latency_s += pr.e2e_s[static_cast<std::size_t>(w)] / xp.windows;
        moe_sum += window_moe[static_cast<std::size_t>(w)] / xp.windows;
        energy_sum += (e_nr + window_energy[static_cast<std::size_t>(w)]) / xp.windows;
      }
      pr.moe_s = moe_sum;
      pr.energy_j = energy_sum;
      pr.edp = pr.energy_j * pr.latency_s;
      pr.stages = detail::scaled(st_sum, 1.0 / xp.windows);
      out.policies.push_back(std::move(pr));
    }
  }
  return out;
}

}  // namespace v0
}  // namespace strata
