// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Models and windows larger than one HCRMap package: pipeline stages over identical packages.
///
/// Five of HCRMap's eight Table 2 models (Mixtral-8x7B, Mixtral-8x22B, DBRX, DeepSeek-V2,
/// DeepSeek-V3) exceed the Table 1 package's 40 GB (64 MB × 4 SRAM, 8 GB HBM, 32 GB DRAM) even
/// as single copies, and a decode window of 512 sequences × 2048 tokens of KV cache exceeds it
/// for every model but the smallest. The assumption strata makes, chosen by
/// `scale_out_params::kind`:
///
/// - `pipeline` (default): the decoder layers are split into contiguous pipeline stages, one per
///   identical package (Table 1 each); a stage holds its layers' experts, weights and KV cache,
///   the first stage also the embedding, the last the LM head. Stages are as few as fit
///   (`plan_packages`: greedy contiguous packing, then an even split into as many stages when
///   that fits too), each sized so that `expert_copies` (HCRMap Table 1: 1.3× resident-copy
///   budget) of its experts fit beside its non-expert data (`capacity.hpp`), so every residency
///   policy has the paper's replication room on every stage. Each stage's package places its
///   non-expert data first (KV and weights in HBM, spilling to DRAM) and its experts in what is
///   left (SRAM, then HBM, then DRAM: the paper's "SRAM hot, HBM warm, DRAM fallback").
///   A window's latency is the sum of its stages plus one hand-off of the window's activations
///   (T·d values) over the inter-package link between consecutive stages:
///     T_E2E = Σ_stages T_stage + (P − 1)·(λ_link + T·d·a / B_link)
///   (one window in flight; with P windows in flight a pipeline's throughput would be set by its
///   slowest stage, `max_stage`).
/// - `none`: one package; a model or window that does not fit is infeasible, with the reason.
///
/// Inter-package link (`scale_out_params::link`, default): a CXL 3 / PCIe 6.0 × 16 link between
/// packages on one board — 64 GT/s × 16 lanes = 128 GB/s per direction raw, × 242/256 FLIT
/// efficiency = 121 GB/s [PCI-SIG, PCIe 6.0 specification (2022): 64 GT/s PAM4, 256-byte FLIT
/// with 242 bytes of TLP payload]; 250 ns port-to-port latency [assumed: the CXL memory studies
/// measure ≈ 140–250 ns over local DRAM for a load through a CXL port, Sun et al., "Demystifying
/// CXL Memory with Genuine CXL-Ready Systems and Devices", MICRO 2023]; 0.3 m of board trace at
/// 0.5 c; 5.5 pJ/bit, an off-package SerDes link [NVIDIA NVLink-C2C announcement (2022): SerDes
/// ≈ 5.5 pJ/bit].

#include <algorithm>  // std::max
#include <array>      // std::array
#include <cmath>      // std::ceil
#include <optional>   // std::optional
#include <string>     // std::string
#include <utility>    // std::move, std::pair
#include <vector>     // std::vector

#include "strata/chiplet/capacity.hpp"
#include "strata/chiplet/residency.hpp"
#include "strata/chiplet/substrate.hpp"
#include "strata/chiplet/window.hpp"
#include "strata/core/error.hpp"
#include "strata/workload/model.hpp"

namespace strata {
inline namespace v0 {

/// How a model larger than one package is served.
enum class scale_out_kind {
  none,     ///< one package; what does not fit is infeasible
  pipeline  ///< contiguous layer stages on identical packages
};
constexpr auto enum_names(scale_out_kind) {
  return std::array{std::pair{scale_out_kind::none, "none"}, std::pair{scale_out_kind::pipeline, "pipeline"}};
}

/// Parameters of the scale-out assumption (file comment).
struct scale_out_params {
  scale_out_kind kind = scale_out_kind::pipeline;
  int max_packages = 64;  ///< refuse (infeasible) beyond this many stages
  /// Link between consecutive stages' packages (defaults and sources in the file comment).
  link_spec link{units::GBps(128.0 * 242.0 / 256.0), units::ns(250.0), units::mm(300.0), units::m_per_s(1.5e8),
                 units::pJ_per_bit(5.5)};
  /// Expert copies each stage must have room for. [HCRMap Table 1: 1.3× resident-copy budget]
  double expert_copies = 1.3;
  /// Reserves and budget of every stage's residency (budget_factor: Table 1's 1.3×).
  residency_params residency{};
  int activation_bits = 16;  ///< bits per activation value handed between stages

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("kind", s.kind);
    v("max_packages", s.max_packages);
    v("link", s.link);
    v("expert_copies", s.expert_copies);
    v("residency", s.residency);
    v("activation_bits", s.activation_bits);
  }
};

/// Checks the parameters; throws `config_error` naming the field.
template <class = void>
inline void validate(const scale_out_params& p) {
  constexpr const char* id = "strata.scale_out";
  detail::require(p.max_packages >= 1, id, "max_packages", p.max_packages, ">= 1");
  detail::require_positive(p.link.bandwidth.si(), id, "link.bandwidth", "B/s");
  detail::require_nonnegative(p.link.phy_latency.si(), id, "link.phy_latency", "s");
  detail::require_nonnegative(p.link.distance.si(), id, "link.distance", "m");
  detail::require_positive(p.link.signal_speed.si(), id, "link.signal_speed", "m/s");
  detail::require_nonnegative(p.link.energy.si(), id, "link.energy", "J/B");
  detail::require(p.expert_copies >= 1.0, id, "expert_copies", p.expert_copies, ">= 1");
  detail::require(p.activation_bits >= 1 && p.activation_bits <= 64, id, "activation_bits", p.activation_bits,
                  "in [1, 64]");
}

/// Packages a window needs and the layers of each.
struct package_plan {
  bool feasible = false;
  std::string reason;
  std::vector<pipeline_stage> stages;  ///< layers and capacity of each package (e2e unset)
  template <class = void>
  [[nodiscard]] int packages() const { return static_cast<int>(stages.size()); }

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("feasible", s.feasible);
    v("reason", s.reason);
    v("stages", s.stages);
  }
};

namespace detail {
template <class = void>
inline std::string layers_text(int a, int b) {
  return " (layers " + std::to_string(a) + "-" + std::to_string(b - 1) + ")";
}

/// Whether decoder layers [a, b) fit one package with room for `expert_copies` of their experts.
template <class = void>
inline pipeline_stage stage_fit(const substrate& s, const model& m, const step_shape& step, int a, int b,
                                const scale_out_params& so) {
  pipeline_stage st;
  st.first_layer = a;
  st.end_layer = b;
  for (int l = 0; l < b; ++l) {
    if (!m.is_moe_layer(l)) continue;
    if (l < a) ++st.first_moe_layer;
    else ++st.moe_layers;
  }
  const std::string where = layers_text(a, b);
  const auto need = resident_footprint(m, step, {a, b, a == 0, b == m.layers});
  st.capacity = place_package(s, need, {0.0, 0.0, 0.0}, so.residency, where);
  if (!st.capacity.feasible || st.moe_layers == 0) return st;
  const data_size<> wt = expert_bytes(m);
  const auto want = static_cast<long long>(std::ceil(so.expert_copies * st.moe_layers * m.experts - 1e-9));
  const long long room = expert_room(s, wt, st.capacity.expert_params(so.residency));
  if (room < want) {
    st.capacity.feasible = false;
    st.capacity.reason = "does not fit" + where + ": " + std::to_string(want) + " expert copies (" +
                         detail::to_text(so.expert_copies) + " x " + std::to_string(st.moe_layers * m.experts) +
                         " experts of " + gb(wt) + ") but the package has room for " + std::to_string(room) +
                         " beside its non-expert data (" + footprint_text(need) + ")";
  } else {
    st.capacity.reason += "; room for " + std::to_string(room) + " expert copies, " + std::to_string(want) + " needed";
  }
  return st;
}
}  // namespace detail

/// The packages window `w` of model `m` needs on packages like `s` under `so` (file comment).
/// Infeasible (with the reason) when one layer alone does not fit a package, when more than
/// `max_packages` would be needed, or, for `none`, when the model does not fit one package.
template <class = void>
inline package_plan plan_packages(const substrate& s, const model& m, const window_spec& w,
                                  const scale_out_params& so = {}) {
  validate(m);
  validate(so);
  validate(so.residency, s);
  const step_shape step = window_step(w);
  validate(step);
  package_plan plan;
  const int L = m.layers;
  if (so.kind == scale_out_kind::none) {
    plan.stages.push_back(detail::stage_fit(s, m, step, 0, L, so));
    plan.feasible = plan.stages.back().capacity.feasible;
    plan.reason = plan.stages.back().capacity.reason;
    return plan;
  }
  // Greedy contiguous packing: the fewest stages.
  std::vector<std::pair<int, int>> ranges;
  for (int a = 0; a < L;) {
    auto one = detail::stage_fit(s, m, step, a, a + 1, so);
    if (!one.capacity.feasible) {
      plan.stages.push_back(std::move(one));
      plan.reason = "layer " + std::to_string(a) + " alone does not fit one package: " + plan.stages.back().capacity.reason;
      return plan;
    }
    int b = a + 1;
    while (b < L && detail::stage_fit(s, m, step, a, b + 1, so).capacity.feasible) ++b;
    ranges.emplace_back(a, b);
    a = b;
    if (static_cast<int>(ranges.size()) > so.max_packages && a < L) {
      plan.reason = "needs more than max_packages = " + std::to_string(so.max_packages) + " packages";
      return plan;
    }
  }
  const int P = static_cast<int>(ranges.size());
  if (P > so.max_packages) {
    plan.reason = "needs " + std::to_string(P) + " packages, more than max_packages = " + std::to_string(so.max_packages);
    return plan;
  }
  // An even split into as many stages, if it fits too (balanced stages).
  std::vector<pipeline_stage> even;
  for (int i = 0, a = 0; i < P; ++i) {
    const int b = a + L / P + (i < L % P ? 1 : 0);
    even.push_back(detail::stage_fit(s, m, step, a, b, so));
    if (!even.back().capacity.feasible) break;
    a = b;
  }
  if (static_cast<int>(even.size()) == P && even.back().capacity.feasible) {
    plan.stages = std::move(even);
  } else {
    for (const auto& [a, b] : ranges) plan.stages.push_back(detail::stage_fit(s, m, step, a, b, so));
  }
  plan.feasible = true;
  plan.reason = std::to_string(P) + (P == 1 ? " package" : " packages in pipeline") + ":";
  for (const auto& st : plan.stages) plan.reason += detail::layers_text(st.first_layer, st.end_layer);
  return plan;
}

/// Single-copy static residencies (the paper's normaliser, §7.1) of every stage of `plan`, each
/// around its stage's non-expert data; empty for a stage without MoE layers. Throws
/// `config_error` if a stage's experts do not fit (an infeasible plan).
template <class = void>
inline std::vector<std::optional<residency>> stage_residencies(const substrate& s, const model& m,
                                                               const package_plan& plan,
                                                               const scale_out_params& so = {}) {
  std::vector<std::optional<residency>> out;
  for (const auto& st : plan.stages) {
    if (st.moe_layers == 0) {
      out.emplace_back();
      continue;
    }
    out.emplace_back(single_copy_static(s, st.moe_layers, m.experts, expert_bytes(m),
                                        st.capacity.expert_params(so.residency)));
  }
  return out;
}

/// Evaluates window `w` on the packages of `plan`, stage i's experts held by `stage_res[i]`
/// (its MoE layers numbered from 0). `groups` are the window's token groups of every MoE layer
/// of the model. Each stage's capacity is checked around its residency (`fit_window`).
template <class = void>
inline window_result evaluate_pipeline(const substrate& s, const model& m, const package_plan& plan,
                                       const std::vector<std::optional<residency>>& stage_res,
                                       const std::vector<std::vector<token_group>>& groups, const window_spec& w,
                                       const scale_out_params& so = {}, const critical_path_params& cp = {},
                                       const token_mapper& mapper = least_loaded) {
  validate(m);
  validate(so);
  constexpr const char* id = "strata.scale_out";
  detail::require(!plan.stages.empty(), id, "plan.stages", plan.stages.size(), "non-empty");
  detail::require(stage_res.size() == plan.stages.size(), id, "stage_res", stage_res.size(), "one per stage");
  detail::require(static_cast<int>(groups.size()) == m.moe_layers(), id, "groups", groups.size(),
                  ("one list per MoE layer (" + std::to_string(m.moe_layers()) + ")").c_str());
  detail::require(w.tokens >= 1, id, "tokens", w.tokens, ">= 1");
  const step_shape step = window_step(w);
  window_result out;
  out.packages = plan.packages();
  out.feasible = plan.feasible;
  out.reason = plan.reason;
  const double handoff = double(w.tokens) * m.hidden * so.activation_bits / 8.0;
  const duration<> lambda = so.link.phy_latency + so.link.distance / so.link.signal_speed;
  for (std::size_t i = 0; i < plan.stages.size(); ++i) {
    auto st = plan.stages[i];
    const layer_range r{st.first_layer, st.end_layer, st.first_layer == 0, st.end_layer == m.layers};
    const auto need = resident_footprint(m, step, r);
    const residency* res = stage_res[i] ? &*stage_res[i] : nullptr;
    const std::string where = detail::layers_text(st.first_layer, st.end_layer);
    st.capacity = res != nullptr ? fit_window(s, *res, need, where)
                                 : place_package(s, need, {0.0, 0.0, 0.0}, so.residency, where);
    if (!st.capacity.feasible && out.feasible) {
      out.feasible = false;
      out.reason = st.capacity.reason;
    }
    const auto part = detail::evaluate_range(s, m, res, groups, w, cp, mapper, {}, r, st.first_moe_layer,
                                             st.capacity.placement);
    st.e2e = part.e2e;
    out.moe += part.moe;
    out.non_routed += part.non_routed;
    out.stages += part.stages;
    out.energy += part.energy;
    out.non_routed_energy += part.non_routed_energy;
    out.pressure.merge_max(part.pressure);
    out.layers.insert(out.layers.end(), part.layers.begin(), part.layers.end());
    if (i + 1 < plan.stages.size()) {
      out.inter_package += link_time(lambda, so.link.bandwidth, units::B(handoff));  // Eq. 7 for one link
      out.inter_package_energy += units::B(handoff) * so.link.energy;
    }
    if (i == 0 || !st.capacity.feasible) out.capacity = st.capacity;
    out.pipeline.push_back(std::move(st));
  }
  out.e2e = out.moe + out.non_routed + out.inter_package;
  return out;
}

/// Plans the packages of window `w` (`plan_packages`), places single-copy static residencies on
/// them (`stage_residencies`) and evaluates the window (`evaluate_pipeline`). A plan whose
/// experts do not fit is returned unevaluated: `feasible == false`, the reason, zero times.
template <class = void>
inline window_result evaluate_scaled_window(const substrate& s, const model& m,
                                            const std::vector<std::vector<token_group>>& groups, const window_spec& w,
                                            const scale_out_params& so = {}, const critical_path_params& cp = {},
                                            const token_mapper& mapper = least_loaded) {
  const auto plan = plan_packages(s, m, w, so);
  std::vector<std::optional<residency>> res;
  if (plan.packages() > 0) {
    try {
      res = stage_residencies(s, m, plan, so);
    } catch (const config_error& e) {
      if (plan.feasible) throw;
      res.clear();
    }
  }
  if (res.empty()) {
    window_result out;
    out.feasible = false;
    out.reason = plan.reason;
    out.packages = plan.packages();
    out.note = "not timed: the experts do not fit";
    return out;
  }
  return evaluate_pipeline(s, m, plan, res, groups, w, so, cp, mapper);
}

/// The slowest stage of a pipelined window (its steady-state throughput with one window per stage
/// in flight is 1 / max_stage); the whole window on one package.
template <class = void>
inline duration<> max_stage(const window_result& r) {
  if (r.pipeline.empty()) return r.e2e;
  duration<> t{};
  for (const auto& st : r.pipeline) t = std::max(t, st.e2e);
  return t;
}

}  // namespace v0
}  // namespace strata
