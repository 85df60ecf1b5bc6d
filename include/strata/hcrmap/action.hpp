// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The residency actions of HCRMap's slow controller (§6.3, Eq. 27) and the feature vector
/// φ(s_w, a) of a (state, candidate action) pair that a value function scores (§6.4).
///
/// Actions: no-op, promote(e, t, c) (a new copy of expert e in tier t near chiplet c, or a move
/// of one of its replicas there), retain, demote (move a replica to the next farther tier) and
/// evict (retire a replica) — HCRMap §6.3, after Eq. 27: "promote moves or creates a replica of
/// expert e in a nearer tier t and chiplet c; retain keeps an existing replica; demote moves a
/// replica to a tier with more capacity or lower pressure; and evict removes an extra replica". A
/// move copies into a pending entry and retires its source once the copy is published (§6.8: "a
/// new directory version is published only after all chunks complete"), so it is legal for an
/// expert's last replica; only evict is barred for it (§6.3, after Eq. 30). The controller
/// (`controller.hpp`) offers only legal ones (Eq. 28–30, 40); no-op is always legal.
///
/// The encoding is the same for a create and a move (a promote's age is 0 and its replica share
/// 1 either way; the move's source shows in its benefit), so a value function trained before
/// moves existed scores them with the features it knows (23 inputs, as the checkpoints hold).
///
/// Feature vector (`controller_feature_count` = 23 doubles, indices `feature::…`), each entry
/// normalised so that typical values lie in [0, 1] (a few may exceed 1 for a very hot expert):
///   0 demand_ewma     d̄ / (mean demand of the layer's experts): 1 = an average expert
///   1 fluctuation     σ / max(d̄, 1): the EWMA deviation relative to the smoothed demand
///   2 source_entropy  H^src = −Σ_c p_c log p_c / log|C| of the expert's token sources (0 … 1)
///   3 replicas        |R_{l,e}| / R^max (Eq. 28)
///   4 age             age of the acted replica / (4·A_min), at most 1 (0 for promote and no-op)
///   5 tier_free       target (promote, demote) or current tier's remaining usable fraction
///   6 budget_free     1 − resident bytes / B_res (Eq. 29)
///   7–11 P_load, P_link, P_bank, P_tier, P_mig of the window (Eq. 19; each a utilisation, 0 … 1+)
///   12–16 action one-hot: no-op, promote, retain, demote, evict
///   17–19 tier one-hot (sram, hbm, dram) of the target or acted replica
///   20 benefit        the controller's closed-form one-step benefit (`critical_estimate.hpp`)
///                     / Σ_l T^MoE_l of the observed layers
///   21 exposure       the migration exposure of Eq. 40 / Σ_l T^MoE_l
///   22 replica_share  tokens on the acted replica / tokens of its expert (1 for promote)
/// No-op's vector has only its pressure, budget and one-hot entries set.

#include <array>    // std::array
#include <cstddef>  // std::size_t
#include <utility>  // std::pair

#include "strata/hcrmap/placement.hpp"

namespace strata {
inline namespace v0 {

/// Residency actions (Eq. 27).
enum class residency_action_kind { no_op = 0, promote = 1, retain = 2, demote = 3, evict = 4 };
constexpr auto enum_names(residency_action_kind) {
  return std::array{std::pair{residency_action_kind::no_op, "no_op"}, std::pair{residency_action_kind::promote, "promote"},
                    std::pair{residency_action_kind::retain, "retain"}, std::pair{residency_action_kind::demote, "demote"},
                    std::pair{residency_action_kind::evict, "evict"}};
}

/// One residency edit: promote creates a copy of (layer, expert) at `target` (`entry` −1) or
/// moves replica `entry` there; demote moves replica `entry` to `target` — a move copies to
/// `target` and retires `entry` when the copy is published; evict retires `entry`; retain keeps
/// it.
struct residency_action {
  residency_action_kind kind = residency_action_kind::no_op;
  int layer = -1;
  int expert = -1;
  int entry = -1;  ///< acted replica (retain, demote, evict; a promote that moves)
  place_candidate target{};  ///< promote, demote
};

/// Indices of the feature vector (file comment).
namespace feature {
inline constexpr std::size_t demand_ewma = 0, fluctuation = 1, source_entropy = 2, replicas = 3, age = 4, tier_free = 5,
                             budget_free = 6, p_load = 7, p_link = 8, p_bank = 9, p_tier = 10, p_mig = 11,
                             action_no_op = 12, action_promote = 13, action_retain = 14, action_demote = 15,
                             action_evict = 16, tier_sram = 17, tier_hbm = 18, tier_dram = 19, benefit = 20,
                             exposure = 21, replica_share = 22;
}  // namespace feature
/// Length of the feature vector.
inline constexpr std::size_t controller_feature_count = 23;
/// Number of features (for a value function sizing its input layer).
constexpr std::size_t feature_count() { return controller_feature_count; }

/// A legal action with its features.
struct scored_action {
  residency_action action;
  std::array<double, controller_feature_count> features{};
};

}  // namespace v0
}  // namespace strata
