// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// A serving window end to end (HCRMap Eq. 16–19): every MoE layer's routed critical path
/// (`critical_path.hpp`) plus the non-routed transformer work of every layer (attention, norms,
/// shared experts, dense FFN, embedding and LM head) on the whole package, with stage
/// attribution (Fig. 5's gate, dispatch, queue, memory, compute, gather, combine), energy by
/// component and the RAPL-style power cap.
///
///   T_E2E(w) = Σ_l (T^non-routed_l + T^MoE_l) + T^embedding + T^LM-head           (Eq. 16)
///
/// Non-routed work runs on all compute chiplets as one roofline machine (`package_machine`):
/// peak = |C|·N_core·Π_core·η; each data class is read from the tier the capacity check placed it
/// in (`capacity.hpp`: by default weights and KV in HBM, embeddings and LM head in DRAM,
/// activations in the SRAM near-tier, spilling outward when a tier is full). Layers run one
/// after another.
///
/// Capacity (§4.3 Eq. 1): every window is checked — expert replicas (the residency), non-routed
/// weights, the KV cache of the window, the embedding and LM head and the activation workspace
/// against the tier that holds them. A point that does not fit is a result (`feasible == false`,
/// `reason` naming what does not fit where, bytes needed against available), still timed.
/// Models or windows larger than one package run on several (`scale_out.hpp`).
///
/// Power cap (RAPL, §4.5): the window energy budget is P_cap·Δ_w; when a window's energy E(w)
/// exceeds it, the next window runs with compute throughput scaled by P_cap·Δ_w / E(w)
/// (`next_compute_scale`), the DVFS response that brings power back under the cap.

#include <algorithm>   // std::max
#include <cstddef>     // std::size_t
#include <functional>  // std::function
#include <string>      // std::string
#include <utility>     // std::move
#include <vector>      // std::vector

#include "strata/chiplet/capacity.hpp"
#include "strata/chiplet/critical_path.hpp"
#include "strata/chiplet/residency.hpp"
#include "strata/chiplet/substrate.hpp"
#include "strata/chiplet/token_groups.hpp"
#include "strata/core/error.hpp"
#include "strata/workload/model.hpp"
#include "strata/workload/operators.hpp"
#include "strata/workload/roofline.hpp"

namespace strata {
inline namespace v0 {

/// The package as a roofline machine for the non-routed work: one tier per substrate tier
/// (capacity and bandwidth summed over its banks; latency and energy of its banks), each data
/// class read from the tier `placement` gives it.
template <class = void>
inline roofline_machine package_machine(const substrate& s, const critical_path_params& cp = {},
                                        const package_placement& placement = {}) {
  const auto& p = s.params();
  roofline_machine m;
  m.name = "hcrmap-package";
  m.peak_flops = s.core_throughput() * (double(s.chiplets()) * p.cores_per_chiplet * cp.compute_scale);
  m.compute_efficiency = cp.tile_utilization;
  m.memory_efficiency = 1.0;
  for (tier_kind t : {tier_kind::sram, tier_kind::hbm, tier_kind::dram}) {
    memory_tier<> mt{to_string(t), {}, {}, {}, {}, 0};
    for (const auto& b : s.banks()) {
      if (b.tier != t) continue;
      mt.capacity += b.capacity;
      mt.bandwidth += b.bandwidth;
      mt.latency = b.latency;
      mt.energy_per_byte = b.energy;
      ++mt.banks;
    }
    m.tiers.push_back(mt);
  }
  const auto idx = [](tier_kind t) { return static_cast<int>(t); };
  m.placement = tier_map{.expert = 1, .weights = idx(placement.weights), .kv = idx(placement.kv),
                         .non_nmp = idx(placement.non_nmp), .activations = idx(placement.activations)};
  m.energy_per_flop = cp.energy_per_flop;
  m.static_power = units::W(0.0);
  m.max_power = units::W(1e9);  // the window's power cap is applied by `next_compute_scale`
  return m;
}

/// The MoE-layer work of a model.
template <class = void>
inline moe_layer_shape moe_shape(const model& m, int activation_bits = 16) {
  validate(m);
  detail::require(m.experts > 0, "strata.window", "experts", m.experts, "> 0 (a MoE model)");
  const double d = m.hidden, f = m.expert_ffn;
  moe_layer_shape s;
  s.weight_bytes = expert_bytes(m);
  s.flops_per_token = units::flop(2.0 * double(ffn_params(m.ffn, m.hidden, m.expert_ffn)) +
                                  (m.ffn == ffn_kind::swiglu ? 4.0 : 8.0) * f);
  s.token_bytes = units::bit(d * activation_bits);
  s.gate_flops_per_token = units::flop(2.0 * d * m.experts);
  s.combine_flops_per_token = units::flop(2.0 * d * m.top_k);
  s.top_k = m.top_k;
  return s;
}

/// Per-layer summary of a window.
struct window_layer {
  int layer = 0;                 ///< decoder layer
  int moe_layer = -1;            ///< MoE layer index, −1 for a dense layer
  duration<> non_routed{};       ///< attention, norms, shared experts / dense FFN
  duration<> moe{};              ///< T^MoE_l (Eq. 14)
  stage_times stages{};          ///< critical group's stages (sum = moe)
  energy_breakdown energy{};     ///< routed energy (Eq. 17)
  strata::energy<> non_routed_energy{};
  pressure_counters pressure{};

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("layer", s.layer);
    v("moe_layer", s.moe_layer);
    v("non_routed", s.non_routed);
    v("moe", s.moe);
    v("stages", s.stages);
    v("energy", s.energy);
    v("non_routed_energy", s.non_routed_energy);
    v("pressure", s.pressure);
  }
};

/// One package of a pipeline (`scale_out.hpp`): its layers and its share of the window.
struct pipeline_stage {
  int first_layer = 0;           ///< first decoder layer
  int end_layer = 0;             ///< one past the last decoder layer
  int first_moe_layer = 0;       ///< first MoE layer index held
  int moe_layers = 0;            ///< MoE layers held
  duration<> e2e{};              ///< the stage's share of T_E2E (without the link after it)
  package_fit capacity{};        ///< the stage package's capacity verdict

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("first_layer", s.first_layer);
    v("end_layer", s.end_layer);
    v("first_moe_layer", s.first_moe_layer);
    v("moe_layers", s.moe_layers);
    v("e2e", s.e2e);
    v("capacity", s.capacity);
  }
};

/// A window end to end.
struct window_result {
  bool feasible = true;              ///< everything fits the tier that holds it (every package)
  std::string reason;                ///< the capacity verdict, naming what does not fit where
  std::string note;                  ///< how the window's tokens were drawn, when not as specified
  int packages = 1;                  ///< packages the window runs on (pipeline stages)
  duration<> e2e{};                  ///< T_E2E (Eq. 16), plus the inter-package transfers
  duration<> moe{};                  ///< Σ_l T^MoE_l (the objective of Eq. 20)
  duration<> non_routed{};           ///< Σ of the non-routed work, embedding and LM head
  stage_times stages{};              ///< Σ_l of the critical groups' stages
  energy_breakdown energy{};         ///< routed energy by component, summed over layers
  strata::energy<> non_routed_energy{};
  pressure_counters pressure{};      ///< max over layers
  duration<> inter_package{};        ///< activations handed between pipeline stages
  strata::energy<> inter_package_energy{};
  package_fit capacity{};            ///< one package: its capacity verdict (pipelines: per stage)
  std::vector<pipeline_stage> pipeline;  ///< empty on one package
  std::vector<window_layer> layers;

  /// All energy of the window.
  template <class = void>
  [[nodiscard]] strata::energy<> total_energy() const {
    return energy.total() + non_routed_energy + inter_package_energy;
  }

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("feasible", s.feasible);
    v("reason", s.reason);
    v("note", s.note);
    v("packages", s.packages);
    v("e2e", s.e2e);
    v("moe", s.moe);
    v("non_routed", s.non_routed);
    v("stages", s.stages);
    v("energy", s.energy);
    v("non_routed_energy", s.non_routed_energy);
    v("pressure", s.pressure);
    v("inter_package", s.inter_package);
    v("inter_package_energy", s.inter_package_energy);
    v("capacity", s.capacity);
    v("pipeline", s.pipeline);
    v("layers", s.layers);
  }
};

/// Chooses a legal replica (an entry index of `legal`) for a group; `load[i]` holds the tokens
/// already assigned in this layer to `legal[i]`'s entry.
using token_mapper = std::function<std::size_t(const token_group&, const std::vector<int>& legal,
                                               const std::vector<double>& load)>;

/// Default mapper: the legal replica with the fewest tokens so far, lowest index on ties.
inline std::size_t least_loaded(const token_group&, const std::vector<int>& legal, const std::vector<double>& load) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < legal.size(); ++i) {
    if (load[i] < load[best]) best = i;
  }
  return best;
}

/// What a window serves.
struct window_spec {
  phase mode = phase::decode;  ///< decode: `tokens` sequences, one new token each; prefill: one
                               ///< sequence of `tokens` tokens
  int tokens = 512;            ///< window tokens (Table 2: prefill 2048, decode 512)
  int context = 2048;          ///< decode: tokens already in each sequence's KV cache
  /// How `evaluate_windows` draws decode windows from a trace (`batch` is `tokens`, `step` the
  /// window index): one token from each of `tokens` different sequences.
  decode_batch_spec decode{};
};

/// The step a window is, for the operators and the footprint: decode `tokens` sequences of
/// `context`; prefill one sequence of `tokens`.
template <class = void>
inline step_shape window_step(const window_spec& w) {
  return {w.mode, w.mode == phase::decode ? w.tokens : 1, w.mode == phase::decode ? w.context : w.tokens, 16};
}

namespace detail {
/// One package's share of a window: decoder layers `r` (MoE layers [first_moe, first_moe + n) of
/// the model, held by `res` as its layers 0 … n−1; `res` may be null when n = 0), non-routed work
/// read from the tiers of `placement`.
template <class = void>
inline window_result evaluate_range(const substrate& s, const model& m, const residency* res,
                                    const std::vector<std::vector<token_group>>& groups, const window_spec& w,
                                    const critical_path_params& cp, const token_mapper& mapper,
                                    const std::vector<migration>& migrations, const layer_range& r, int first_moe,
                                    const package_placement& placement) {
  const int end = r.end_layer < 0 ? m.layers : r.end_layer;
  int moe_here = 0;
  for (int l = r.first_layer; l < end; ++l) moe_here += m.is_moe_layer(l) ? 1 : 0;
  if (moe_here > 0) {
    detail::require(res != nullptr && res->layers() == moe_here && res->experts() == m.experts, "strata.window",
                    "residency", res != nullptr ? res->layers() : 0, "the MoE layers and experts the package holds");
  }
  const auto shape = moe_shape(m);
  const auto ops = step_operators(m, window_step(w));
  const auto machine = package_machine(s, cp, placement);
  validate(machine);
  window_result out;
  out.layers.resize(static_cast<std::size_t>(end - r.first_layer));
  for (int l = r.first_layer; l < end; ++l) out.layers[static_cast<std::size_t>(l - r.first_layer)].layer = l;
  for (const auto& o : ops) {
    if (o.kind == op_kind::routed_experts || o.kind == op_kind::expert || o.kind == op_kind::router) continue;
    if (o.layer >= 0 && (o.layer < r.first_layer || o.layer >= end)) continue;
    if (o.layer < 0 && !(o.kind == op_kind::embedding ? r.embedding : r.head)) continue;
    const auto c = cost_of(o, machine);
    if (o.layer >= 0) {
      auto& wl = out.layers[static_cast<std::size_t>(o.layer - r.first_layer)];
      wl.non_routed += c.time;
      wl.non_routed_energy += c.energy;
    }
    out.non_routed += c.time;
    out.non_routed_energy += c.energy;
  }
  std::vector<migration> per_layer = migrations;
  for (auto& mg : per_layer) mg.bytes = mg.bytes / double(moe_here > 0 ? moe_here : 1);
  int moe_index = first_moe;
  std::vector<replica> reps;
  std::vector<int> entry_of_rep, assign;
  std::vector<token_group> local;
  for (int l = r.first_layer; l < end; ++l) {
    if (!m.is_moe_layer(l)) continue;
    const int here = moe_index - first_moe;  // the residency's layer index
    const auto& gl = groups[static_cast<std::size_t>(moe_index)];
    reps.clear();
    entry_of_rep.clear();
    local.assign(gl.begin(), gl.end());
    assign.assign(gl.size(), -1);
    // Local replica list of this layer: every published entry of its experts.
    std::vector<int> local_of_entry(res->entries().size(), -1);
    std::vector<double> tokens_on(0);
    for (std::size_t g = 0; g < gl.size(); ++g) {
      const auto& grp = gl[g];
      detail::require(grp.layer == moe_index, "strata.window", "groups[" + std::to_string(moe_index) + "].layer",
                      grp.layer, "the MoE layer index of its list");
      local[g].layer = here;
      const auto legal = res->legal(here, grp.expert);
      detail::require(!legal.empty(), "strata.window", "residency", grp.expert, "a legal replica for every routed expert");
      std::vector<double> load(legal.size());
      for (std::size_t i = 0; i < legal.size(); ++i) {
        const int li = local_of_entry[static_cast<std::size_t>(legal[i])];
        load[i] = li >= 0 ? tokens_on[static_cast<std::size_t>(li)] : 0.0;
      }
      const std::size_t pick = mapper(local[g], legal, load);
      detail::require(pick < legal.size(), "strata.window", "mapper", pick, "an index into the legal replicas");
      const int entry = legal[pick];
      int& li = local_of_entry[static_cast<std::size_t>(entry)];
      if (li < 0) {
        li = static_cast<int>(reps.size());
        reps.push_back(res->as_replica(entry));
        entry_of_rep.push_back(entry);
        tokens_on.push_back(0.0);
      }
      tokens_on[static_cast<std::size_t>(li)] += grp.tokens;
      assign[g] = li;
    }
    const auto lr = evaluate_layer(s, shape, local, reps, assign, cp, per_layer);
    auto& wl = out.layers[static_cast<std::size_t>(l - r.first_layer)];
    wl.moe_layer = moe_index;
    wl.moe = lr.t_moe;
    wl.stages = lr.critical;
    wl.energy = lr.energy;
    wl.pressure = lr.pressure;
    out.moe += lr.t_moe;
    out.stages += lr.critical;
    out.energy += lr.energy;
    out.pressure.merge_max(lr.pressure);  // tier is set from the residency below
    ++moe_index;
  }
  out.pressure.tier = res != nullptr ? res->tier_pressure() : 0.0;
  for (auto& wl : out.layers) wl.pressure.tier = out.pressure.tier;
  out.e2e = out.non_routed + out.moe;
  return out;
}
}  // namespace detail

/// Evaluates one window on one package: `groups[l]` are MoE layer l's token groups
/// (`token_groups.hpp`), mapped onto the published replicas of `res` by `mapper`.
/// `migrations` are the chunked copies under way during the window; their bytes are spread
/// evenly over the MoE layers and charged to links and banks (class mig) alongside the
/// foreground traffic. The window's capacity is checked around the residency's experts
/// (`fit_window`): `feasible`, `reason` and `capacity` say whether the KV cache, weights,
/// embedding/LM head and activations fit the package and where they were placed.
/// (A template of an unused `T` only so that strata::compiled can hold its one instantiation.)
template <class T = double>
window_result evaluate_window(const substrate& s, const model& m, const residency& res,
                                     const std::vector<std::vector<token_group>>& groups, const window_spec& w,
                                     const critical_path_params& cp = {}, const token_mapper& mapper = least_loaded,
                                     const std::vector<migration>& migrations = {}) {
  validate(m);
  const int moe_layers = m.moe_layers();
  detail::require(static_cast<int>(groups.size()) == moe_layers, "strata.window", "groups", groups.size(),
                  ("one list per MoE layer (" + std::to_string(moe_layers) + ")").c_str());
  detail::require(res.layers() == moe_layers && res.experts() == m.experts, "strata.window", "residency",
                  res.layers(), "the model's MoE layers and experts");
  detail::require(w.tokens >= 1, "strata.window", "tokens", w.tokens, ">= 1");
  detail::require(w.context >= 1, "strata.window", "context", w.context, ">= 1");
  auto fit = fit_window(s, res, resident_footprint(m, window_step(w)));
  auto out = detail::evaluate_range(s, m, &res, groups, w, cp, mapper, migrations, {}, 0, fit.placement);
  out.feasible = fit.feasible;
  out.reason = fit.reason;
  out.capacity = std::move(fit);
  return out;
}

/// Power-capped serving: `windows` consecutive windows, each evaluated with the compute throughput the previous
/// window's energy left it under a cap of `cap` over decision windows of `cp.window` (RAPL: a
/// window whose energy exceeds P_cap·Δ_w throttles the next one, §4.5).
/// Prefill window i holds `w.tokens` trace tokens from token i·tokens; decode window i is step i
/// of one running batch of `w.tokens` sequences (`w.decode`, one token per sequence; a reused
/// sequence is reported in the window's `note`).
template <class = void>
inline std::vector<window_result> evaluate_windows(const substrate& s, const model& m, const residency& res,
                                                   const routing_trace& trace, const window_spec& w, int windows,
                                                   power<> cap, critical_path_params cp = {},
                                                   const token_mapper& mapper = least_loaded);

/// Throughput factor for the next window under a RAPL power cap: 1 when the window's energy is
/// within P_cap·Δ_w, else P_cap·Δ_w / E(w).
template <class = void>
inline double next_compute_scale(strata::energy<> window_energy, power<> cap, duration<> window) {
  detail::require_positive(cap.si(), "strata.window", "power_cap", "W");
  detail::require_positive(window.si(), "strata.window", "window", "s");
  detail::require_nonnegative(window_energy.si(), "strata.window", "window_energy", "J");
  const double budget = cap.si() * window.si();
  return window_energy.si() <= budget ? 1.0 : budget / window_energy.si();
}

namespace detail {
/// The token groups of window `i` of a run (`evaluate_windows`): decode draws batch `i` of
/// `w.tokens` sequences (`batch` gets its note), prefill takes the trace's `i`-th `w.tokens` tokens.
template <class = void>
inline auto window_groups(const routing_trace& trace, const substrate& s, const window_spec& w, int i,
                          decode_batch& batch) {
  auto spec = w.decode;
  spec.batch = w.tokens;
  spec.step = i;
  return w.mode == phase::decode
             ? decode_token_groups(trace, s.chiplets(), spec, &batch)
             : token_groups(trace, s.chiplets(), {static_cast<std::size_t>(i) * static_cast<std::size_t>(w.tokens), w.tokens});
}
}  // namespace detail

template <class>
inline std::vector<window_result> evaluate_windows(const substrate& s, const model& m, const residency& res,
                                                   const routing_trace& trace, const window_spec& w, int windows,
                                                   power<> cap, critical_path_params cp, const token_mapper& mapper) {
  detail::require(windows >= 1, "strata.window", "windows", windows, ">= 1");
  std::vector<window_result> out;
  out.reserve(static_cast<std::size_t>(windows));
  const double nominal = cp.compute_scale;
  for (int i = 0; i < windows; ++i) {
    decode_batch batch;
    const auto groups = detail::window_groups(trace, s, w, i, batch);
    out.push_back(evaluate_window(s, m, res, groups, w, cp, mapper));
    out.back().note = batch.note;
    cp.compute_scale = nominal * next_compute_scale(out.back().total_energy(), cap, cp.window);
  }
  return out;
}

}  // namespace v0
}  // namespace strata

// strata::compiled (STRATA_BUILD_COMPILED, src/compiled.cpp) holds the instantiation below;
// STRATA_COMPILED=1, which that target puts on its users, keeps their translation units from
// instantiating it again. Without it this header is unchanged (header-only).
#if defined(STRATA_COMPILED) && STRATA_COMPILED
namespace strata {
inline namespace v0 {
extern template window_result evaluate_window<double>(const substrate&, const model&, const residency&,
                                                      const std::vector<std::vector<token_group>>&, const window_spec&,
                                                      const critical_path_params&, const token_mapper&,
                                                      const std::vector<migration>&);
}  // namespace v0
}  // namespace strata
#endif
