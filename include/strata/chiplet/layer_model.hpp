// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// What one routed MoE layer on the HCRMap substrate is made of and what evaluating it yields
/// (HCRMap §4.1, §4.3–4.5): token groups g = (l, e_g, s_g, a_g, N_g), replicas placed at
/// φ(r) = (tier, chiplet, bank span), migrations m, the layer's expert work, the knobs of the
/// critical-path model, and its results — stage times K_T (Eq. 14–15), energy by component
/// (Eq. 17–18) and the pressure counters P_w (Eq. 19) — with the per-term closed forms of
/// Eq. 10 (bank service) and Eq. 13 (replica compute), generic in the scalar. The evaluation
/// itself is `critical_path.hpp`.

#include <algorithm>  // std::max
#include <array>    // std::array
#include <cstddef>  // std::size_t
#include <utility>  // std::pair
#include <vector>   // std::vector

#include "strata/chiplet/link_model.hpp"
#include "strata/core/error.hpp"
#include "strata/core/tier.hpp"
#include "strata/core/units.hpp"

namespace strata {
inline namespace v0 {

/// A routed token group g = (l, e_g, s_g, a_g, N_g) (HCRMap §4.1).
struct token_group {
  int layer = 0;      ///< MoE layer index
  int expert = 0;     ///< e_g
  int source = 0;     ///< s_g: compute chiplet holding the input activations
  int aggregate = 0;  ///< a_g: compute chiplet that combines the expert outputs
  int tokens = 0;     ///< N_g

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("layer", s.layer);
    v("expert", s.expert);
    v("source", s.source);
    v("aggregate", s.aggregate);
    v("tokens", s.tokens);
  }
  friend bool operator==(const token_group&, const token_group&) = default;
};

/// A resident replica r placed at φ(r) = (tier, chiplet, bank span).
struct replica {
  int layer = 0;    ///< ℓ(r)
  int expert = 0;   ///< e(r)
  int chiplet = 0;  ///< c_r: execution chiplet
  int bank = 0;     ///< b_r: first bank (id in `substrate::banks()`) of its span
  int span = 1;     ///< consecutive banks the weights are striped over

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("layer", s.layer);
    v("expert", s.expert);
    v("chiplet", s.chiplet);
    v("bank", s.bank);
    v("span", s.span);
  }
  friend bool operator==(const replica&, const replica&) = default;
};

/// A cross-tier movement m = (r_m, s_m, d_m, S^mig_m, y_m) (HCRMap §4.3): copy `bytes` from the
/// source bank span to the destination bank span.
struct migration {
  int source_bank = 0;
  int destination_bank = 0;
  data_size<> bytes{};
  bool executed = true;  ///< y_m
};

/// The work of one MoE layer's experts.
struct moe_layer_shape {
  data_size<> weight_bytes{};          ///< S^wt of one expert
  op_count<> flops_per_token{};        ///< Ops^token (FLOPs, multiply-add = 2)
  data_size<> token_bytes{};           ///< D^act per token (dispatch; gather returns the same)
  op_count<> gate_flops_per_token{};   ///< router: 2·d·E
  op_count<> combine_flops_per_token{};  ///< weighted sum: 2·k·d
  int top_k = 1;                       ///< k: groups a token appears in
};

/// What the expert-weight stream overlaps (Eq. 15).
enum class memory_overlap {
  compute_only,       ///< Eq. 15: max(T^comp, T^mem) after dispatch and queueing
  dispatch_and_queue  ///< stream released at T_gate, hidden under dispatch and queueing too
};
constexpr auto enum_names(memory_overlap) {
  return std::array{std::pair{memory_overlap::compute_only, "compute_only"},
                    std::pair{memory_overlap::dispatch_and_queue, "dispatch_and_queue"}};
}

/// Knobs of the critical-path model.
struct critical_path_params {
  double tile_utilization = 0.8;            ///< η_r [assumed: legal-tile utilisation]
  double alpha_mig = 0.5;                   ///< α_mig: weight of migration pressure [assumed]
  double compute_scale = 1.0;               ///< throughput factor (RAPL throttling; 1 = none)
  /// Energy per FLOP of the cores. [Assumed 0.25 pJ/FLOP: a 7 nm FP16 MAC ≈ 0.5 pJ, Jouppi et
  /// al. ISCA 2021 Table 2]
  energy_per_op<> energy_per_flop = units::pJ_per_op(0.25);
  /// On-chiplet network energy per byte per chiplet a request crosses (enters, leaves or passes
  /// through its routers). [Assumed 0.5 pJ/bit: ≈0.1 pJ/bit/mm on-chip wires over a ≈5 mm
  /// crossing; Dally, "GPU Computing to Exascale and Beyond", SC 2010]
  energy_per_data<> noc_energy = units::pJ_per_bit(0.5);
  /// Directory and control energy per executed migration E^ctrl_m. [Assumed 1 nJ]
  energy<> migration_control_energy = units::nJ(1.0);
  /// Decision window Δ_w for the pressure counters (Eq. 19).
  duration<> window = units::ms(1.0);
  /// What the weight stream overlaps. [HCRMap Eq. 15: compute only]
  memory_overlap overlap = memory_overlap::compute_only;
  /// Which requests queue together on a link (`link_model.hpp`). [HCRMap §4.4 separates the
  /// classes K_L; choice: a queue per class]
  link_arbitration arbitration = link_arbitration::per_class;

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("tile_utilization", s.tile_utilization);
    v("alpha_mig", s.alpha_mig);
    v("compute_scale", s.compute_scale);
    v("energy_per_flop", s.energy_per_flop);
    v("noc_energy", s.noc_energy);
    v("migration_control_energy", s.migration_control_energy);
    v("window", s.window);
    v("memory_overlap", s.overlap);
    v("link_arbitration", s.arbitration);
  }
};

/// Checks the knobs: ranges wide enough for any study, narrow enough to keep every result
/// finite. Throws `config_error` naming the field.
template <class = void>
inline void validate(const critical_path_params& cp) {
  constexpr const char* id = "strata.critical_path";
  detail::require_in(cp.tile_utilization, 1e-6, 1.0, id, "tile_utilization");
  detail::require_in(cp.alpha_mig, 0.0, 1.0, id, "alpha_mig");
  detail::require_in(cp.compute_scale, 1e-6, 1e6, id, "compute_scale");
  detail::require_in(cp.energy_per_flop.si(), 0.0, 1e-6, id, "energy_per_flop");
  detail::require_in(cp.noc_energy.si(), 0.0, 1e-6, id, "noc_energy");
  detail::require_in(cp.migration_control_energy.si(), 0.0, 1.0, id, "migration_control_energy");
  detail::require_in(cp.window.si(), 1e-12, 1e6, id, "window");
}

/// Checks a layer shape: finite, non-negative work in ranges that keep times finite.
template <class = void>
inline void validate(const moe_layer_shape& m) {
  constexpr const char* id = "strata.critical_path";
  detail::require_in(m.weight_bytes.si(), 0.0, 1e15, id, "shape.weight_bytes");
  detail::require_in(m.flops_per_token.si(), 0.0, 1e18, id, "shape.flops_per_token");
  detail::require_in(m.token_bytes.si(), 0.0, 1e12, id, "shape.token_bytes");
  detail::require_in(m.gate_flops_per_token.si(), 0.0, 1e18, id, "shape.gate_flops_per_token");
  detail::require_in(m.combine_flops_per_token.si(), 0.0, 1e18, id, "shape.combine_flops_per_token");
  detail::require(m.top_k >= 1, id, "shape.top_k", m.top_k, ">= 1");
}

/// Stage times K_T of one group (Eq. 14–15, Fig. 5's stacked bars).
struct stage_times {
  duration<> gate{}, dispatch{}, queue{}, memory{}, compute{}, gather{}, combine{};
  template <class = void>
  [[nodiscard]] duration<> total() const { return gate + dispatch + queue + memory + compute + gather + combine; }
  /// Stage by stage sum (a window's Σ_l over layers or pipeline stages).
  stage_times& operator+=(const stage_times& o) {
    gate += o.gate;
    dispatch += o.dispatch;
    queue += o.queue;
    memory += o.memory;
    compute += o.compute;
    gather += o.gather;
    combine += o.combine;
    return *this;
  }

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("gate", s.gate);
    v("dispatch", s.dispatch);
    v("queue", s.queue);
    v("memory", s.memory);
    v("compute", s.compute);
    v("gather", s.gather);
    v("combine", s.combine);
  }
};

/// Energy by component (Eq. 17).
struct energy_breakdown {
  energy<> compute{}, noc{}, d2d{}, sram{}, hbm{}, dram{}, migration{}, gate{};
  template <class = void>
  [[nodiscard]] energy<> total() const { return compute + noc + d2d + sram + hbm + dram + migration + gate; }
  energy_breakdown& operator+=(const energy_breakdown& o) {
    compute += o.compute;
    noc += o.noc;
    d2d += o.d2d;
    sram += o.sram;
    hbm += o.hbm;
    dram += o.dram;
    migration += o.migration;
    gate += o.gate;
    return *this;
  }

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("compute", s.compute);
    v("noc", s.noc);
    v("d2d", s.d2d);
    v("sram", s.sram);
    v("hbm", s.hbm);
    v("dram", s.dram);
    v("migration", s.migration);
    v("gate", s.gate);
  }
};

/// Pressure counters P_w = (P^load, P^link, P^bank, P^tier, P^mig) (Eq. 19, §6.2).
struct pressure_counters {
  double load = 0.0;  ///< P^load: max over chiplets of compute service time / Δ_w
  double link = 0.0;  ///< P^link: max over links of weighted load / (B_u·Δ_w)
  double bank = 0.0;  ///< P^bank: max over banks of weighted traffic / (BW·Δ_w)
  double tier = 0.0;  ///< P^tier: max over tiers of used / usable capacity (set from the residency)
  double mig = 0.0;   ///< P^mig: max over links of migration load / (B_u·Δ_w), exposed migration

  /// Counter by counter maximum (a window's pressure is the worst of its layers).
  template <class = void>
  void merge_max(const pressure_counters& o) {
    load = std::max(load, o.load);
    link = std::max(link, o.link);
    bank = std::max(bank, o.bank);
    tier = std::max(tier, o.tier);
    mig = std::max(mig, o.mig);
  }

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("load", s.load);
    v("link", s.link);
    v("bank", s.bank);
    v("tier", s.tier);
    v("mig", s.mig);
  }
};

/// Everything Eq. 5–19 give for one layer.
struct layer_result {
  duration<> t_moe{};                 ///< Eq. 14: max_g C_g
  int critical_group = -1;            ///< argmax_g C_g
  stage_times critical{};             ///< stages of the critical group (sum = t_moe)
  duration<> t_net{};                 ///< Eq. 8
  duration<> t_bank{};                ///< Eq. 11
  duration<> t_mem{};                 ///< Eq. 12
  duration<> t_comp{};                ///< Eq. 13: max_r T^comp_r
  std::vector<duration<>> completion; ///< C_g per group
  std::vector<double> link_bytes;     ///< L^phys per link and class: [u·4 + κ]
  std::vector<double> bank_bytes;     ///< Q^phys per bank and class: [b·2 + (0 fg, 1 mig)]
  std::vector<double> replica_tokens; ///< N_r per replica
  std::vector<int> replica_cores;     ///< k_r per replica (0 when inactive)
  std::vector<stage_times> group_stages;  ///< T_{g,θ} per group (sum = C_g; zero for empty groups)
  std::vector<duration<>> dispatch_wait;  ///< per group: link queueing in its dispatch stage
  std::vector<duration<>> gather_wait;    ///< per group: link queueing in its gather stage
  std::vector<duration<>> memory_ready;   ///< per replica: weights streamed in (0 when inactive)
  energy_breakdown energy{};          ///< Eq. 17–18
  pressure_counters pressure{};       ///< Eq. 19

  /// Physical load of link u over all classes (Eq. 6).
  template <class = void>
  [[nodiscard]] double link_load(int u) const {
    const auto i = static_cast<std::size_t>(u) * 4;
    return link_bytes[i] + link_bytes[i + 1] + link_bytes[i + 2] + link_bytes[i + 3];
  }
  /// Physical traffic of bank b (Eq. 9).
  template <class = void>
  [[nodiscard]] double bank_load(int b) const {
    const auto i = static_cast<std::size_t>(b) * 2;
    return bank_bytes[i] + bank_bytes[i + 1];
  }
};

/// Eq. 10: [Q > 0]·Lat + Q / BW. Generic in the scalar.
template <class T>
duration<T> bank_service_time(const data_size<T>& q, const duration<T>& latency, const bandwidth<T>& bw) {
  return stream_time(q, bw, latency);
}

/// Eq. 13: Ops_r / (k_r · Π_core · η_r). Generic in the scalar.
template <class T>
duration<T> replica_compute_time(const op_count<T>& ops, const T& cores, const op_rate<T>& core_rate, const T& eta) {
  return ops / (core_rate * (cores * eta));
}

}  // namespace v0
}  // namespace strata
