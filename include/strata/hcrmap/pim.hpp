// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Processing-in-memory near the HBM and DRAM banks, the substrate PIMoE offloads cold experts'
/// work to (§7.1 baselines). The paper says only that PIMoE "targets NPU-PIM systems [18]" (§2,
/// PIMoE paragraph); which tiers have PIM and how fast it is are this header's parameters, per tier:
/// - HBM (`pim_params::hbm`): a PIM unit per bank span with throughput proportional to the
///   bank's external bandwidth — Samsung's HBM-PIM (Aquabolt-XL) has 128 units of 16 FP16 lanes at
///   300 MHz, 1.23 TFLOP/s per cube against 307 GB/s of external bandwidth, i.e. 4 FLOP/B, and its
///   bank-level parallelism reads the banks at 4× the external bandwidth [Kwon et al., ISSCC 2021,
///   "A 20nm 6GB Function-In-Memory DRAM, Based on HBM2 with a 1.2TFLOPS Programmable Computing
///   Unit"; Lee et al., ISCA 2021, "Hardware Architecture and Software Stack for PIM Based on
///   Commercial DRAM Technology"].
/// - DDR5 DRAM (`pim_params::dram`): none by default (flops_per_byte 0: no PIM unit, no PIM
///   speedup). No DDR5 PIM silicon with published throughput is cited: UPMEM's PIM DIMMs are DDR4,
///   SK hynix's AiM is GDDR6, and Samsung's AxDIMM prototypes (Hot Chips 33, 2021) are DDR4 with
///   the logic on the buffer chip. A user who has a source sets both numbers.
/// A PIM group's completion: gate + dispatch route to the bank's node (Eq. 7) + FCFS wait at the
/// unit + max(PIM compute, internal stream) + gather route + combine; the layer's T^MoE is the later
/// of the core groups' (critical path) and the PIM groups'.
///
/// Bank contention: a bank that serves a PIM stream and a core stream in the same layer shares its
/// time between them (HBM-PIM's all-bank mode and the host's accesses use the same banks and
/// row buffers). Both streams are taken to start together and share the bank equally while both
/// are active (processor sharing): with `a` the core streams' service time on the bank alone and
/// `p` the PIM streams' (bytes / (factor · BW)), each side finishes min(a, p) later than alone
/// (the shorter at 2·min, the longer at a + p). The core side sees it as the bank's bandwidth
/// scaled by a / (a + min(a, p)) (`pim_bank_contention`); the PIM side adds min(a, p) to its
/// stream. PIMoE's offload decision keeps its own estimate (it does not foresee the sharing).


#include <algorithm>  // std::max, std::min
#include <cstddef>    // std::size_t
#include <cstdint>    // std::uint8_t
#include <string>     // std::string
#include <utility>    // std::pair
#include <vector>     // std::vector

#include "strata/chiplet/layer_model.hpp"
#include "strata/chiplet/residency.hpp"
#include "strata/chiplet/substrate.hpp"
#include "strata/chiplet/token_groups.hpp"
#include "strata/core/error.hpp"
#include "strata/hcrmap/layer_eval.hpp"

namespace strata {
inline namespace v0 {

/// PIM units under one tier (the file comment).
struct pim_tier_params {
  /// PIM FLOP/s per B/s of a bank's external bandwidth; 0: the tier has no PIM units.
  double flops_per_byte = 0.0;
  /// Internal over external bank bandwidth of a PIM stream.
  double internal_bandwidth_factor = 1.0;

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("flops_per_byte", s.flops_per_byte);
    v("internal_bandwidth_factor", s.internal_bandwidth_factor);
  }
  friend bool operator==(const pim_tier_params&, const pim_tier_params&) = default;
};

/// PIM units near the HBM and DRAM banks (the file comment).
struct pim_params {
  /// HBM-PIM. [Kwon et al. ISSCC 2021: 1.2288 TFLOP/s over 307.2 GB/s per HBM2 cube = 4 FLOP/B;
  /// Kwon et al. ISSCC 2021 / Lee et al. ISCA 2021: internal bandwidth 4× external]
  pim_tier_params hbm{4.0, 4.0};
  /// DDR5 PIM. [None: no cited DDR5 PIM source (file comment); 0 = no PIM on DRAM]
  pim_tier_params dram{0.0, 1.0};
  /// Energy per PIM FLOP. [Assumed 0.5 pJ: twice the cores' 0.25 pJ, logic in a DRAM process]
  energy_per_op<> energy_per_flop = units::pJ_per_op(0.5);
  /// Internal access energy over the bank's access energy. [Assumed 0.5: no I/O and PHY]
  double internal_energy_factor = 0.5;
  /// Throttle: a PIM unit takes no more work once its queue exceeds this fraction of Δ_w.
  /// [Design choice: 1 — PIMoE's throttle keeps PIM from becoming the bottleneck]
  double throttle = 1.0;

  /// The PIM units of tier `t` (SRAM has none: an all-zero entry).
  template <class = void>
  [[nodiscard]] const pim_tier_params& of(tier_kind t) const {
    static const pim_tier_params none{};
    return t == tier_kind::hbm ? hbm : t == tier_kind::dram ? dram : none;
  }

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("hbm", s.hbm);
    v("dram", s.dram);
    v("energy_per_flop", s.energy_per_flop);
    v("internal_energy_factor", s.internal_energy_factor);
    v("throttle", s.throttle);
  }
};

/// Checks the knobs; throws `config_error` naming the field (`prefix` + field).
template <class = void>
inline void validate(const pim_params& p, const std::string& prefix = {}) {
  constexpr const char* id = "strata.hcrmap.experiment";
  for (const auto& [name, t] : {std::pair<const char*, const pim_tier_params*>{"hbm.", &p.hbm}, {"dram.", &p.dram}}) {
    detail::require_in(t->flops_per_byte, 0.0, 1e6, id, prefix + name + "flops_per_byte");
    detail::require_in(t->internal_bandwidth_factor, 1e-6, 1e6, id, prefix + name + "internal_bandwidth_factor");
  }
  detail::require_in(p.energy_per_flop.si(), 0.0, 1e-6, id, prefix + "energy_per_flop");
  detail::require_in(p.internal_energy_factor, 0.0, 1e3, id, prefix + "internal_energy_factor");
  detail::require_in(p.throttle, 1e-6, 1e6, id, prefix + "throttle");
}

/// Bank contention between PIM and core streams of one layer (file comment). `core_s[b]` and
/// `pim_s[b]`: each side's stream service time on bank b alone (s). Returns, per bank, the share
/// of its bandwidth the core streams get, a / (a + min(a, p)) (1 where either side is absent).
template <class = void>
inline std::vector<double> pim_bank_contention(const std::vector<double>& core_s, const std::vector<double>& pim_s) {
  detail::require(core_s.size() == pim_s.size(), "strata.hcrmap.pim", "pim_s", pim_s.size(), "one entry per bank");
  std::vector<double> share(core_s.size(), 1.0);
  for (std::size_t b = 0; b < share.size(); ++b) {
    const double a = core_s[b], p = pim_s[b];
    if (a > 0.0 && p > 0.0) share[b] = a / (a + std::min(a, p));
  }
  return share;
}

namespace detail {
/// Service time alone of the PIM streams of `groups` (on directory entries `entry`) per bank:
/// each entry streams its weights once per layer, its stripe over each bank of its span at the
/// tier's internal bandwidth (file comment).
template <class = void>
inline std::vector<double> pim_bank_stream_s(const substrate& s, const moe_layer_shape& shape, const residency& res,
                                             const std::vector<int>& entry, const pim_params& pp) {
  std::vector<double> out(s.banks().size(), 0.0);
  std::vector<char> streamed(res.entries().size(), 0);
  for (int i : entry) {
    auto& st = streamed[static_cast<std::size_t>(i)];
    if (st != 0) continue;
    st = 1;
    const auto& e = res.entries()[static_cast<std::size_t>(i)];
    const double f = pp.of(static_cast<tier_kind>(e.tier)).internal_bandwidth_factor;
    for (int k = 0; k < e.span; ++k) {
      const auto b = static_cast<std::size_t>(e.bank) + static_cast<std::size_t>(k);
      out[b] += shape.weight_bytes.si() / e.span / (s.banks()[b].bandwidth.si() * f);
    }
  }
  return out;
}

/// PIM evaluation of groups on bank-resident replicas (file comment). `core_bank_s`: the core
/// streams' service time alone per bank in the same layer (empty: none), against which a PIM
/// stream shares its banks. Returns T^MoE contribution (latest PIM completion) and adds PIM energy
/// to `energy`. Every group's entry must be in a tier with PIM units.
template <class = void>
inline double pim_layer(const substrate& s, const moe_layer_shape& shape, const residency& res,
                        const std::vector<token_group>& groups, const std::vector<int>& entry, double t_gate,
                        double t_combine, const pim_params& pp, energy_breakdown& energy,
                        const std::vector<double>& core_bank_s = {}) {
  if (groups.empty()) return 0.0;
  const auto& links = s.links();
  const std::vector<double> pim_s = core_bank_s.empty() ? std::vector<double>{} : pim_bank_stream_s(s, shape, res, entry, pp);
  std::vector<double> unit_free(s.banks().size(), 0.0);
  std::vector<char> streamed(res.entries().size(), 0);
  std::vector<int> path;
  double latest = 0.0;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const auto& e = res.entries()[static_cast<std::size_t>(entry[g])];
    const auto& tp = pp.of(static_cast<tier_kind>(e.tier));
    detail::require(tp.flops_per_byte > 0.0, "strata.hcrmap.pim", "entry", entry[g], "a replica in a tier with PIM units");
    const int node = s.bank_node(e.bank);
    double bw = 0.0, lat = s.banks()[e.bank].latency.si();
    for (int k = 0; k < e.span; ++k) bw += s.banks()[static_cast<std::size_t>(e.bank) + static_cast<std::size_t>(k)].bandwidth.si();
    const double bytes = groups[g].tokens * shape.token_bytes.si();
    path.clear();
    s.append_route(groups[g].source, node, path);
    double disp = 0.0;
    for (int u : path) {
      disp += link_time(links[static_cast<std::size_t>(u)].lambda, links[static_cast<std::size_t>(u)].bandwidth, data_size<>::from_si(bytes)).si();
      energy.d2d += units::J(bytes * links[static_cast<std::size_t>(u)].energy.si());
    }
    path.clear();
    s.append_route(node, groups[g].aggregate, path);
    double gath = 0.0;
    for (int u : path) {
      gath += link_time(links[static_cast<std::size_t>(u)].lambda, links[static_cast<std::size_t>(u)].bandwidth, data_size<>::from_si(bytes)).si();
      energy.d2d += units::J(bytes * links[static_cast<std::size_t>(u)].energy.si());
    }
    const double flops = groups[g].tokens * shape.flops_per_token.si();
    const double comp = flops / (tp.flops_per_byte * bw);
    double stream = 0.0;
    auto& st = streamed[static_cast<std::size_t>(entry[g])];
    if (st == 0) {
      st = 1;
      stream = lat + shape.weight_bytes.si() / (bw * tp.internal_bandwidth_factor);
      // Bank contention: the core streams on the span's banks delay this stream by min(a, p).
      double shared = 0.0;
      for (int k = 0; k < e.span && !core_bank_s.empty(); ++k) {
        const auto b = static_cast<std::size_t>(e.bank) + static_cast<std::size_t>(k);
        if (core_bank_s[b] > 0.0) shared = std::max(shared, std::min(core_bank_s[b], pim_s[b]));
      }
      stream += shared;
      const double eb = s.banks()[e.bank].energy.si();
      auto& slot = e.tier == static_cast<std::uint8_t>(tier_kind::hbm) ? energy.hbm : energy.dram;
      slot += units::J(shape.weight_bytes.si() * eb * pp.internal_energy_factor);
    }
    energy.compute += units::J(flops * pp.energy_per_flop.si());
    const double arrive = t_gate + disp;
    auto& free = unit_free[e.bank];
    const double start = std::max(arrive, free);
    free = start + std::max(comp, stream);
    latest = std::max(latest, free + gath + t_combine);
  }
  return latest;
}
}  // namespace detail

}  // namespace v0
}  // namespace strata
