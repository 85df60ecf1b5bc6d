// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// One routed MoE layer evaluated on the published replicas of a residency, keeping what the
/// HCRMap control loops need from it (HCRMap §6.2, §6.4, Algorithm 1): which directory entry each
/// token group went to (x_{g,r}, Eq. 21), the critical-path result of Eq. 5–19 (`critical_path.hpp`
/// computes it; nothing is recomputed here) and, per entry, the tokens it served and the time its
/// last group completed.
///
/// `chiplet/window.hpp` evaluates whole windows with a per-group mapper callback and keeps only
/// per-layer summaries; the slow controller needs the per-replica finish times (its closed-form
/// benefit, §6.4) and the fast mapper decides a whole layer at once (Algorithm 2), so the policies
/// drive the layers through this header instead.
///
/// Migrations under way during the window are charged to every evaluated layer with their bytes
/// spread evenly over the layers, as `evaluate_window` does (class mig on links and banks).

#include <algorithm>  // std::max
#include <cstddef>    // std::size_t
#include <string>     // std::to_string
#include <vector>     // std::vector

#include "strata/chiplet/critical_path.hpp"
#include "strata/chiplet/residency.hpp"
#include "strata/core/error.hpp"

namespace strata {
inline namespace v0 {

/// A MoE layer evaluated on a residency's directory.
struct directory_layer_eval {
  layer_result result;                 ///< Eq. 5–19 for the layer (`evaluate_layer`)
  std::vector<int> entry_of_replica;   ///< directory entry of each replica of `result`
  std::vector<int> entry_of_group;     ///< directory entry of each group (x_{g,r})
  std::vector<double> entry_tokens;    ///< tokens served per directory entry (all entries)
  std::vector<double> entry_finish_s;  ///< latest completion C_g of its groups per entry (s; 0 idle)
};

/// Evaluates `groups` (layer field = the residency's layer index) with group g on directory entry
/// `entry_of_group[g]`, which must be a published replica of the group's expert (Eq. 21), into
/// `out`: every field is rewritten, its vectors keeping their capacity (`evaluate_layer_into`
/// with the calling thread's workspace), so a caller that evaluates layer after layer into the
/// same `out` allocates nothing once the buffers have grown; the same numbers as
/// `evaluate_directory_layer`. `migrations` are charged as given (the caller spreads a window's
/// migrations over its layers); `bank_share` as `evaluate_layer`'s.
template <class = void>
inline void evaluate_directory_layer_into(directory_layer_eval& out, const substrate& s, const moe_layer_shape& shape,
                                          const residency& res, const std::vector<token_group>& groups,
                                          const std::vector<int>& entry_of_group, const critical_path_params& cp = {},
                                          const std::vector<migration>& migrations = {},
                                          const std::vector<double>& bank_share = {}) {
  constexpr const char* id = "strata.hcrmap.layer_eval";
  detail::require(entry_of_group.size() == groups.size(), id, "entry_of_group", entry_of_group.size(),
                  "one directory entry per group");
  // Scratch of the calling thread: the local replica of each entry, the replicas, the assignment.
  struct scratch {
    std::vector<int> local;
    std::vector<replica> reps;
    std::vector<int> assign;
    layer_workspace ws;
  };
  thread_local scratch sc;
  const auto& entries = res.entries();
  out.entry_of_group.assign(entry_of_group.begin(), entry_of_group.end());
  out.entry_of_replica.clear();
  out.entry_tokens.assign(entries.size(), 0.0);
  out.entry_finish_s.assign(entries.size(), 0.0);
  auto& local = sc.local;
  auto& reps = sc.reps;
  auto& assign = sc.assign;
  local.assign(entries.size(), -1);
  reps.clear();
  assign.assign(groups.size(), -1);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const int e = entry_of_group[g];
    if (e < 0 || static_cast<std::size_t>(e) >= entries.size()) {
      detail::require(false, id, "entry_of_group[" + std::to_string(g) + "]", e, "a directory entry");
    }
    const auto& de = entries[static_cast<std::size_t>(e)];
    if (de.state != replica_state::published || de.layer != groups[g].layer || de.expert != groups[g].expert) {
      detail::require(false, id, "entry_of_group[" + std::to_string(g) + "]", e,
                      "a published replica of the group's layer and expert (Eq. 21)");
    }
    int& li = local[static_cast<std::size_t>(e)];
    if (li < 0) {
      li = static_cast<int>(reps.size());
      reps.push_back(res.as_replica(e));
      out.entry_of_replica.push_back(e);
    }
    assign[g] = li;
    out.entry_tokens[static_cast<std::size_t>(e)] += groups[g].tokens;
  }
  evaluate_layer_into(out.result, sc.ws, s, shape, groups, reps, assign, cp, migrations, bank_share);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    auto& f = out.entry_finish_s[static_cast<std::size_t>(entry_of_group[g])];
    f = std::max(f, out.result.completion[g].si());
  }
}

/// Evaluates `groups` (layer field = the residency's layer index) with group g on directory entry
/// `entry_of_group[g]`, which must be a published replica of the group's expert (Eq. 21).
/// `migrations` are charged as given (the caller spreads a window's migrations over its layers);
/// `bank_share` as `evaluate_layer`'s.
template <class = void>
inline directory_layer_eval evaluate_directory_layer(const substrate& s, const moe_layer_shape& shape,
                                                     const residency& res, const std::vector<token_group>& groups,
                                                     const std::vector<int>& entry_of_group,
                                                     const critical_path_params& cp = {},
                                                     const std::vector<migration>& migrations = {},
                                                     const std::vector<double>& bank_share = {}) {
  directory_layer_eval out;
  evaluate_directory_layer_into(out, s, shape, res, groups, entry_of_group, cp, migrations, bank_share);
  return out;
}

}  // namespace v0
}  // namespace strata
