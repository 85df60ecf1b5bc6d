// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The reward a learned value function of the slow controller is trained on (§6.4, Eq. 31–33):
/// the relative latency gain of an action against the same window's counterfactual, minus the
/// exposed migration and the churn.

#include <algorithm>  // std::max
#include <vector>     // std::vector

#include "strata/chiplet/critical_path.hpp"
#include "strata/core/error.hpp"
#include "strata/hcrmap/action.hpp"
#include "strata/hcrmap/controller.hpp"
#include "strata/hcrmap/controller_params.hpp"
#include "strata/hcrmap/layer_eval.hpp"
#include "strata/hcrmap/token_mapper.hpp"

namespace strata {
inline namespace v0 {

/// Eq. 33: (T^cf − T^act)/T^cf − μ1·T̂^mig/T^cf − μ2·C^churn. Throws `config_error` unless
/// T^cf > 0, T^act ≥ 0, T̂^mig ≥ 0, churn ≥ 0.
template <class = void>
inline double counterfactual_reward(duration<> t_cf, duration<> t_act, duration<> exposed_migration, double churn,
                                    const controller_params& p = {}) {
  constexpr const char* id = "strata.hcrmap.controller";
  detail::require_positive(t_cf.si(), id, "t_cf", "s");
  detail::require_nonnegative(t_act.si(), id, "t_act", "s");
  detail::require_nonnegative(exposed_migration.si(), id, "exposed_migration", "s");
  detail::require_nonnegative(churn, id, "churn", "edits");
  return (t_cf - t_act).si() / t_cf.si() - p.mu_mig * exposed_migration.si() / t_cf.si() - p.mu_churn * churn;
}

/// The same-window counterfactual reward of an action (Eq. 31–33), from critical-path
/// evaluations of the same routed groups: T^cf on the previous directory with the fast mapper
/// (Eq. 31); T^act on the directory after ScheduleAction and PublishCompleted (Eq. 32) — a copy
/// is published only if its transfer (`copy_time_s`) completes within T^cf, and its migration
/// traffic is charged to the layers; T̂^mig is T^act minus the same layout evaluated without the
/// migration traffic (the foreground-exposed part). `groups[i]` are the groups of residency layer
/// `layers[i]`; their sum over layers is the T^MoE of Eq. 31–32. Churn is 1 for promote, demote
/// and evict, 0 otherwise. For training a value function offline; the evaluation never runs it.
template <class = void>
inline double same_window_reward(const substrate& s, const moe_layer_shape& shape, const residency& res,
                                 const std::vector<int>& layers, const std::vector<std::vector<token_group>>& groups,
                                 const residency_action& action, const fast_map_params& fm = {},
                                 const critical_path_params& cp = {}, const controller_params& p = {}) {
  detail::require(layers.size() == groups.size() && !layers.empty(), "strata.hcrmap.controller", "groups", groups.size(),
                  "one non-empty group list per layer");
  const auto moe = [&](const residency& r, const std::vector<migration>& mig) {
    double t = 0.0;
    for (std::size_t i = 0; i < layers.size(); ++i) {
      fast_token_mapper m(s, shape, r, fm, cp);
      t += evaluate_directory_layer(s, shape, r, groups[i], m.map(groups[i]), cp, mig).result.t_moe.si();
    }
    return t;
  };
  const double t_cf = moe(res, {});
  residency act = res;
  residency_controller ctl(s, shape, act, p, cp);
  ctl.apply(action);
  const auto mig = ctl.migrations(static_cast<int>(layers.size()));
  (void)ctl.advance(t_cf);
  const double t_act = moe(act, mig);
  const double t_quiet = moe(act, {});
  using K = residency_action_kind;
  const double churn = action.kind == K::promote || action.kind == K::demote || action.kind == K::evict ? 1.0 : 0.0;
  return counterfactual_reward(duration<>::from_si(t_cf), duration<>::from_si(t_act),
                               duration<>::from_si(std::max(0.0, t_act - t_quiet)), churn, p);
}

}  // namespace v0
}  // namespace strata
