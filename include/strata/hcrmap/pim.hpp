// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Processing-in-memory near the HBM and DRAM banks, the substrate PIMoE offloads cold experts'
/// work to (§7.1 baselines).
///
/// PIM (`pim_params`): a PIM unit per bank span with throughput proportional to the
/// bank's external bandwidth — Samsung's HBM-PIM has 128 units of 16 FP16 lanes at 300 MHz,
/// 1.23 TFLOP/s per cube against 307 GB/s of external bandwidth, i.e. 4 FLOP/B, and reads its
/// banks at 4× the external bandwidth [Kwon et al., ISSCC 2021, "A 20nm 6GB Function-In-Memory
/// DRAM, Based on HBM2 with a 1.2TFLOPS Programmable Computing Unit"; Lee et al., ISCA 2021]. The
/// DDR5 tier is given the same ratios (an assumption: AxDIMM-class rank-level PIM). A PIM group's
/// completion: gate + dispatch route to the bank's node (Eq. 7) + FCFS wait at the unit +
/// max(PIM compute, internal stream) + gather route + combine; the layer's T^MoE is the later of
/// the core groups' (critical path) and the PIM groups'. Interactions of PIM streams with the core
/// streams of the same banks are not modelled.


#include <algorithm>  // std::max
#include <cstddef>    // std::size_t
#include <cstdint>    // std::uint8_t
#include <string>     // std::string
#include <vector>     // std::vector

#include "strata/chiplet/layer_model.hpp"
#include "strata/chiplet/residency.hpp"
#include "strata/chiplet/substrate.hpp"
#include "strata/chiplet/token_groups.hpp"
#include "strata/core/error.hpp"
#include "strata/hcrmap/layer_eval.hpp"

namespace strata {
inline namespace v0 {

/// PIM units near the HBM and DRAM banks (the file comment).
struct pim_params {
  /// PIM FLOP/s per B/s of a bank's external bandwidth. [Kwon et al. ISSCC 2021: 1.2288 TFLOP/s
  /// over 307.2 GB/s per HBM2 cube = 4]
  double flops_per_byte = 4.0;
  /// Internal over external bank bandwidth. [Kwon et al. ISSCC 2021 / Lee et al. ISCA 2021: 4×]
  double internal_bandwidth_factor = 4.0;
  /// Energy per PIM FLOP. [Assumed 0.5 pJ: twice the cores' 0.25 pJ, logic in a DRAM process]
  energy_per_op<> energy_per_flop = units::pJ_per_op(0.5);
  /// Internal access energy over the bank's access energy. [Assumed 0.5: no I/O and PHY]
  double internal_energy_factor = 0.5;
  /// Throttle: a PIM unit takes no more work once its queue exceeds this fraction of Δ_w.
  /// [Design choice: 1 — PIMoE's throttle keeps PIM from becoming the bottleneck]
  double throttle = 1.0;

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("flops_per_byte", s.flops_per_byte);
    v("internal_bandwidth_factor", s.internal_bandwidth_factor);
    v("energy_per_flop", s.energy_per_flop);
    v("internal_energy_factor", s.internal_energy_factor);
    v("throttle", s.throttle);
  }
};

/// Checks the knobs; throws `config_error` naming the field (`prefix` + field).
inline void validate(const pim_params& p, const std::string& prefix = {}) {
  constexpr const char* id = "strata.hcrmap.experiment";
  detail::require_in(p.flops_per_byte, 1e-6, 1e6, id, prefix + "flops_per_byte");
  detail::require_in(p.internal_bandwidth_factor, 1e-6, 1e6, id, prefix + "internal_bandwidth_factor");
  detail::require_in(p.energy_per_flop.si(), 0.0, 1e-6, id, prefix + "energy_per_flop");
  detail::require_in(p.internal_energy_factor, 0.0, 1e3, id, prefix + "internal_energy_factor");
  detail::require_in(p.throttle, 1e-6, 1e6, id, prefix + "throttle");
}

namespace detail {
/// PIM evaluation of groups on bank-resident replicas (file comment). Returns T^MoE contribution
/// (latest PIM completion) and adds PIM energy to `energy`.
inline double pim_layer(const substrate& s, const moe_layer_shape& shape, const residency& res,
                        const std::vector<token_group>& groups, const std::vector<int>& entry, double t_gate,
                        double t_combine, const pim_params& pp, energy_breakdown& energy) {
  if (groups.empty()) return 0.0;
  const auto& links = s.links();
  std::vector<double> unit_free(s.banks().size(), 0.0);
  std::vector<char> streamed(res.entries().size(), 0);
  std::vector<int> path;
  double latest = 0.0;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const auto& e = res.entries()[static_cast<std::size_t>(entry[g])];
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
    const double comp = flops / (pp.flops_per_byte * bw);
    double stream = 0.0;
    auto& st = streamed[static_cast<std::size_t>(entry[g])];
    if (st == 0) {
      st = 1;
      stream = lat + shape.weight_bytes.si() / (bw * pp.internal_bandwidth_factor);
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
