// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The roofline evaluator: a step's operators against a machine's compute peak, memory tiers and
/// links give a `cost` per operator, per layer and per step (costs compose: `strata/core/cost.hpp`).
///
/// Per operator, on each of `devices` tensor-parallel devices (FLOPs, weights and KV split evenly;
/// activations split too, since each device computes its slice):
///   t_compute = FLOPs / (devices · peak · η_c)
///   t_memory  = Σ_tiers (latency + bytes_tier / (devices · BW_tier · η_m))
///   t_op      = max(t_compute, t_memory) + t_overhead                       (roofline + launch)
///   E_op      = FLOPs · e_flop + Σ bytes_tier · e_tier
/// Consecutive `expert` operators of one layer (exact routing) share one t_overhead: they are one
/// grouped kernel, like the single `routed_experts` operator of uniform routing.
/// After each attention output projection and each FFN/MoE block, a tensor-parallel step
/// all-reduces T·d activations over the ring: 2(n−1)/n · bytes / BW_link + 2(n−1) · λ_link,
/// moving 2(n−1) · bytes over links in total.
/// Multi-node tensor parallelism (`devices_per_node` g > 0 and n > g, N = n / g nodes): the
/// all-reduce is hierarchical, the usual two-level decomposition — reduce-scatter inside each node
/// over the device links, all-reduce of each device's 1/g shard across the N nodes over its own
/// inter-node link (one NIC per device, all in parallel), all-gather inside each node:
///   t = 2(g−1)/g · bytes / BW_link + 2(g−1)·λ_link + 2(N−1)/N · (bytes/g) / BW_node + 2(N−1)·λ_node
/// moving 2(g−1)·N·bytes over device links and 2(N−1)·bytes over inter-node links.
/// Expert parallelism (`expert_parallel.hpp`): the routed experts of a layer run whole on the
/// busiest device (`detail::ep_context`), other operators in TP as above or in DP (each device its
/// own sequences with all the weights, no all-reduce); with DP attention each MoE layer adds an
/// all-to-all dispatch and combine (`alltoall`): per device
///   t = max(t_intra, t_inter),  t_intra = b·(g−1)/(n−1) / BW_link + (g−1)·λ_link,
///   t_inter = b·(n−g)/(n−1) / BW_node + (n−g)·λ_node  (multi-node only)
/// for b bytes through the busiest device, its peers spread evenly over the devices (g − 1 in
/// its node, n − g beyond), one message (λ) per peer as the ring charges one per step.
///
/// Capacity (`check_capacity`, and the model overload of `evaluate`): the bytes that must be
/// resident for the step (`resident_footprint` in `footprint.hpp`: every weight of every expert,
/// the KV cache of the batch, the activation workspace) are placed by data class (`tier_map`) and split evenly over
/// the devices; every tier must hold what is placed in it. An infeasible step is a result
/// (`feasible == false`, `reason` naming the tier, its bytes and its capacity), still timed.
/// Step energy adds static power × time × devices and is capped at max power × time × devices
/// (the card cannot draw more than its limit; a roofline cannot model the clock drop itself).
/// Tokens per second: decode B / t_step; prefill B·S / t_step.

#include <array>    // std::array, the custom all-reduce's measured table
#include <cstddef>  // std::size_t
#include <string>   // std::string
#include <utility>  // std::move
#include <vector>   // std::vector

#include "strata/core/cost.hpp"
#include "strata/core/error.hpp"
#include "strata/core/scalar.hpp"
#include "strata/core/tier.hpp"
#include "strata/core/units.hpp"
#include "strata/workload/footprint.hpp"
#include "strata/workload/operators.hpp"

namespace strata {
inline namespace v0 {

/// Which tier (index into `roofline_machine::tiers`) holds each data class.
struct tier_map {
  int expert = 0;
  int weights = 0;
  int kv = 0;
  int non_nmp = 0;
  int activations = 0;

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("expert", s.expert);
    v("weights", s.weights);
    v("kv", s.kv);
    v("non_nmp", s.non_nmp);
    v("activations", s.activations);
  }
  friend bool operator==(const tier_map&, const tier_map&) = default;
};

/// A machine as the roofline sees it: all per device, `devices` of them in tensor parallel.
/// Generic in the scalar `T` (its rates, bandwidths, latencies, energies and efficiencies), so that
/// a model that builds a machine from its own parameters (the Stratum xPU over the interposer)
/// keeps their derivatives; `roofline_machine` is the `double` machine.
/// The all-reduce a tensor-parallel step runs inside a node (`allreduce`): `ring`, NCCL's ring of
/// 2(n − 1) steps over the links (`ring_allreduce_time`); `vllm_custom`, vLLM's custom all-reduce
/// at its published H100 latencies (`vllm_custom_allreduce_time`).
enum class allreduce_algorithm { ring, vllm_custom };
constexpr auto enum_names(allreduce_algorithm) {
  return std::array{std::pair{allreduce_algorithm::ring, "ring"}, std::pair{allreduce_algorithm::vllm_custom, "vllm_custom"}};
}

template <class T = double>
struct basic_roofline_machine {
  std::string name;
  int devices = 1;                         ///< tensor-parallel devices
  op_rate<T> peak_flops{};                 ///< dense FP16/BF16 peak per device
  op_rate<T> peak_flops_8bit{};            ///< dense 8-bit (FP8) peak per device; 0: no 8-bit
                                           ///< path, 8-bit operators run at `peak_flops`
  op_rate<T> peak_flops_4bit{};            ///< dense 4-bit (FP4/MXFP4) peak per device; 0: no
                                           ///< 4-bit path, 4-bit weights are dequantised and run
                                           ///< at `peak_flops`
  T compute_efficiency = T(1.0);           ///< achievable fraction of peak (kernels)
  T memory_efficiency = T(1.0);            ///< achievable fraction of bandwidth
  std::vector<memory_tier<T>> tiers;       ///< memory per device
  tier_map placement{};                    ///< tier of each data class
  energy_per_op<T> energy_per_flop{};      ///< dynamic energy per FLOP
  power<T> static_power{};                 ///< idle/static power per device
  power<T> max_power{};                    ///< power limit per device (TDP)
  duration<T> op_overhead{};               ///< fixed cost per operator (launch, synchronisation)
  bandwidth<T> link_bandwidth{};           ///< per device, one direction (tensor-parallel link)
  duration<T> link_latency{};              ///< per hop
  energy_per_data<T> link_energy{};        ///< per byte crossing a link
  int devices_per_node = 0;                ///< devices joined by the device links; 0: all of them
  bandwidth<T> node_link_bandwidth{};      ///< inter-node link per device, one direction
  duration<T> node_link_latency{};         ///< per inter-node ring step
  energy_per_data<T> node_link_energy{};   ///< per byte crossing an inter-node link
  allreduce_algorithm allreduce = allreduce_algorithm::ring;  ///< the all-reduce inside a node

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("name", s.name);
    v("devices", s.devices);
    v("peak_flops", s.peak_flops);
    v("peak_flops_8bit", s.peak_flops_8bit);
    v("peak_flops_4bit", s.peak_flops_4bit);
    v("compute_efficiency", s.compute_efficiency);
    v("memory_efficiency", s.memory_efficiency);
    v("tiers", s.tiers);
    v("placement", s.placement);
    v("energy_per_flop", s.energy_per_flop);
    v("static_power", s.static_power);
    v("max_power", s.max_power);
    v("op_overhead", s.op_overhead);
    v("link_bandwidth", s.link_bandwidth);
    v("link_latency", s.link_latency);
    v("link_energy", s.link_energy);
    v("devices_per_node", s.devices_per_node);
    v("node_link_bandwidth", s.node_link_bandwidth);
    v("node_link_latency", s.node_link_latency);
    v("node_link_energy", s.node_link_energy);
    v("allreduce", s.allreduce);
  }
  friend bool operator==(const basic_roofline_machine&, const basic_roofline_machine&) = default;

  /// Nodes the devices span: ⌈devices / devices_per_node⌉, 1 when devices_per_node is 0.
  [[nodiscard]] int nodes() const {
    return devices_per_node > 0 ? (devices + devices_per_node - 1) / devices_per_node : 1;
  }
};

/// The `double` machine (GPU baselines, JSON machines, the CLI).
using roofline_machine = basic_roofline_machine<double>;

/// `m` with scalar `T`: every quantity and efficiency converted (derivatives zero), the rest copied.
template <class T>
basic_roofline_machine<T> machine_cast(const roofline_machine& m) {
  basic_roofline_machine<T> r;
  r.name = m.name;
  r.devices = m.devices;
  r.peak_flops = quantity_cast<T>(m.peak_flops);
  r.peak_flops_8bit = quantity_cast<T>(m.peak_flops_8bit);
  r.peak_flops_4bit = quantity_cast<T>(m.peak_flops_4bit);
  r.compute_efficiency = T(m.compute_efficiency);
  r.memory_efficiency = T(m.memory_efficiency);
  for (const auto& t : m.tiers) {
    r.tiers.push_back(memory_tier<T>{t.name, quantity_cast<T>(t.capacity), quantity_cast<T>(t.bandwidth),
                                     quantity_cast<T>(t.latency), quantity_cast<T>(t.energy_per_byte), t.banks});
  }
  r.placement = m.placement;
  r.energy_per_flop = quantity_cast<T>(m.energy_per_flop);
  r.static_power = quantity_cast<T>(m.static_power);
  r.max_power = quantity_cast<T>(m.max_power);
  r.op_overhead = quantity_cast<T>(m.op_overhead);
  r.link_bandwidth = quantity_cast<T>(m.link_bandwidth);
  r.link_latency = quantity_cast<T>(m.link_latency);
  r.link_energy = quantity_cast<T>(m.link_energy);
  r.devices_per_node = m.devices_per_node;
  r.node_link_bandwidth = quantity_cast<T>(m.node_link_bandwidth);
  r.node_link_latency = quantity_cast<T>(m.node_link_latency);
  r.node_link_energy = quantity_cast<T>(m.node_link_energy);
  r.allreduce = m.allreduce;
  return r;
}

/// Checks a machine; throws `config_error` naming the field.
template <class T>
void validate(const basic_roofline_machine<T>& m) {
  constexpr const char* id = "strata.roofline";
  detail::require(m.devices >= 1, id, "devices", m.devices, ">= 1");
  detail::require_positive(value_of(m.peak_flops), id, "peak_flops", "FLOP/s");
  detail::require_nonnegative(value_of(m.peak_flops_8bit), id, "peak_flops_8bit", "FLOP/s");
  detail::require_nonnegative(value_of(m.peak_flops_4bit), id, "peak_flops_4bit", "FLOP/s");
  detail::require_in(value_of(m.compute_efficiency), 1e-6, 1.0, id, "compute_efficiency");
  detail::require_in(value_of(m.memory_efficiency), 1e-6, 1.0, id, "memory_efficiency");
  detail::require(!m.tiers.empty(), id, "tiers", m.tiers.size(), "non-empty");
  for (std::size_t i = 0; i < m.tiers.size(); ++i) {
    if (m.tiers[i].name.empty()) {
      auto t = m.tiers[i];
      t.name = "tiers[" + std::to_string(i) + "]";
      validate(t);
    } else {
      validate(m.tiers[i]);
    }
  }
  const int n = static_cast<int>(m.tiers.size());
  for (const auto& [f, v] : {std::pair{"placement.expert", m.placement.expert}, std::pair{"placement.weights", m.placement.weights},
                             std::pair{"placement.kv", m.placement.kv}, std::pair{"placement.non_nmp", m.placement.non_nmp},
                             std::pair{"placement.activations", m.placement.activations}}) {
    detail::require(v >= 0 && v < n, id, f, v, "a tier index");
  }
  detail::require_nonnegative(value_of(m.energy_per_flop), id, "energy_per_flop", "J/FLOP");
  detail::require_nonnegative(value_of(m.static_power), id, "static_power", "W");
  detail::require_positive(value_of(m.max_power), id, "max_power", "W");
  detail::require_nonnegative(value_of(m.op_overhead), id, "op_overhead", "s");
  if (m.devices > 1) detail::require_positive(value_of(m.link_bandwidth), id, "link_bandwidth", "B/s");
  detail::require_nonnegative(value_of(m.link_latency), id, "link_latency", "s");
  detail::require_nonnegative(value_of(m.link_energy), id, "link_energy", "J/B");
  detail::require(m.devices_per_node >= 0, id, "devices_per_node", m.devices_per_node, ">= 0 (0: one node)");
  if (m.nodes() > 1) {
    if (m.devices % m.devices_per_node != 0) {  // the message is built only for a failure
      detail::require(false, id, "devices", m.devices,
                      ("a multiple of devices_per_node (" + std::to_string(m.devices_per_node) + ")").c_str());
    }
    detail::require_positive(value_of(m.node_link_bandwidth), id, "node_link_bandwidth", "B/s");
  }
  detail::require_nonnegative(value_of(m.node_link_latency), id, "node_link_latency", "s");
  detail::require_nonnegative(value_of(m.node_link_energy), id, "node_link_energy", "J/B");
}

/// Time and energy of one operator on the machine, with the binding resource.
template <class T = double>
struct basic_op_cost {
  duration<T> time{};
  duration<T> compute_time{};
  duration<T> memory_time{};
  strata::energy<T> energy{};
  bool compute_bound = false;
};
using op_cost = basic_op_cost<double>;

/// The tier an operator's weights and KV come from.
template <class T>
int tier_of(const basic_roofline_machine<T>& m, data_class c) {
  switch (c) {
    case data_class::expert: return m.placement.expert;
    case data_class::weights: return m.placement.weights;
    case data_class::kv: return m.placement.kv;
    case data_class::non_nmp: return m.placement.non_nmp;
  }
  return 0;
}

/// Compute side of the roofline: FLOPs / (devices · peak · η_c). Generic in the scalar, so
/// sensitivities come from autodiff.
template <class T>
duration<T> roofline_compute_time(const op_count<T>& flops, const op_rate<T>& peak, const T& efficiency,
                                  const T& devices) {
  return flops / (peak * (devices * efficiency));
}

/// Memory side of the roofline for one tier: latency + bytes / (devices · BW · η_m), zero for no
/// bytes. Generic in the scalar.
template <class T>
duration<T> roofline_memory_time(const data_size<T>& bytes, const bandwidth<T>& bw, const duration<T>& latency,
                                 const T& efficiency, const T& devices) {
  return stream_time(bytes, bw * (devices * efficiency), latency);
}

/// The compute peak an operator of `bits`-bit weights runs at: 4-bit (FP4, MXFP4) at
/// `peak_flops_4bit` and 5- to 8-bit at `peak_flops_8bit` where the machine has that path (> 0);
/// otherwise the weights are dequantised and the matrix work runs at the 16-bit `peak_flops`
/// (e.g. MXFP4 experts on an H100, which has FP8 but no FP4 tensor cores).
template <class T>
const op_rate<T>& peak_of(const basic_roofline_machine<T>& m, int bits) {
  if (bits <= 4) return value_of(m.peak_flops_4bit) > 0.0 ? m.peak_flops_4bit : m.peak_flops;
  if (bits <= 8 && value_of(m.peak_flops_8bit) > 0.0) return m.peak_flops_8bit;
  return m.peak_flops;
}

/// How many times the KV bytes of `o` are read in all on `m`'s tensor-parallel devices: n / s when
/// the n devices exceed the s devices the KV divides over (`op::kv_shards`: the KV heads, or 1 for
/// MLA's latent cache), else 1. Each device reads kv / min(n, s), so a replicated KV costs every
/// device its whole share in time (kv / (s · BW)) and n times that share in energy.
template <class T>
double kv_read_factor(const op& o, const basic_roofline_machine<T>& m) {
  return o.kv_shards > 0 && m.devices > o.kv_shards ? double(m.devices) / double(o.kv_shards) : 1.0;
}

/// Compute side of operator `o`'s roofline cost on `m` (`cost_of`'s `compute_time`): it depends on
/// the machine's compute efficiency, not its memory efficiency or overhead.
template <class T>
duration<T> op_compute_time(const op& o, const basic_roofline_machine<T>& m) {
  // Compute peak per precision (`peak_of`): the operator's format where the machine has a path
  // for it, else the dequantised 16-bit path.
  return roofline_compute_time(quantity_cast<T>(o.flops), peak_of(m, o.bits), m.compute_efficiency, T(m.devices));
}

/// Memory side of operator `o`'s roofline cost on `m` (`cost_of`'s `memory_time`): its weights and
/// KV from their tier, its activations from theirs; it depends on the machine's memory efficiency,
/// not its compute efficiency or overhead.
template <class T>
duration<T> op_memory_time(const op& o, const basic_roofline_machine<T>& m) {
  const T n = T(m.devices);
  const auto& main_tier = m.tiers[static_cast<std::size_t>(tier_of(m, o.reads))];
  const auto& act_tier = m.tiers[static_cast<std::size_t>(m.placement.activations)];
  const data_size<> main_bytes_d = o.weight_bytes + o.kv_bytes * kv_read_factor(o, m);
  const data_size<T> main_bytes = quantity_cast<T>(main_bytes_d);
  const data_size<T> act_bytes = quantity_cast<T>(o.activation_bytes);
  duration<T> t = roofline_memory_time(main_bytes, main_tier.bandwidth, main_tier.latency, m.memory_efficiency, n);
  if (o.activation_bytes.si() > 0.0) {
    const duration<T> t_act = act_bytes / (act_tier.bandwidth * (n * m.memory_efficiency));
    // Activations from the same tier share its bandwidth; from another tier they overlap.
    if (&act_tier == &main_tier || main_bytes_d.si() == 0.0) {
      t += t_act + (main_bytes_d.si() == 0.0 ? act_tier.latency : duration<T>{});
    } else {
      t = detail::max_of(t, act_tier.latency + t_act);
    }
  }
  return t;
}

/// Roofline cost of one operator (unchecked: validate the machine first). The operator's counts
/// are plain numbers; the machine's scalar is the result's. KV bytes count as read by every
/// device that holds them (`kv_read_factor`).
template <class T>
basic_op_cost<T> cost_of(const op& o, const basic_roofline_machine<T>& m) {
  basic_op_cost<T> c;
  const op_count<T> flops = quantity_cast<T>(o.flops);
  c.compute_time = op_compute_time(o, m);
  const auto& main_tier = m.tiers[static_cast<std::size_t>(tier_of(m, o.reads))];
  const auto& act_tier = m.tiers[static_cast<std::size_t>(m.placement.activations)];
  const data_size<T> main_bytes = quantity_cast<T>(o.weight_bytes + o.kv_bytes * kv_read_factor(o, m));
  const data_size<T> act_bytes = quantity_cast<T>(o.activation_bytes);
  c.memory_time = op_memory_time(o, m);
  c.compute_bound = c.compute_time > c.memory_time;
  c.time = detail::max_of(c.compute_time, c.memory_time) + m.op_overhead;
  c.energy = flops * m.energy_per_flop + main_bytes * main_tier.energy_per_byte + act_bytes * act_tier.energy_per_byte;
  return c;
}

/// All-reduce of `bytes` over `devices`: time and total link bytes.
template <class T = double>
struct basic_allreduce_cost {
  duration<T> time{};
  data_size<> link_bytes{};       ///< over all links, device and inter-node
  data_size<> node_link_bytes{};  ///< of which over inter-node links
  duration<T> node_time{};        ///< of `time`, the inter-node stage
  strata::energy<T> energy{};
};
using allreduce_cost = basic_allreduce_cost<double>;

/// Ring all-reduce time of `bytes` over `n` ranks: 2(n−1)/n · bytes / BW + 2(n−1)·λ (zero for one
/// rank). Generic in the scalar: the intra-node and the inter-node stage are both this.
template <class T>
duration<T> ring_allreduce_time(const data_size<T>& bytes, const T& n, const bandwidth<T>& bw, const duration<T>& latency) {
  if (!(value_of(n) > 1.0)) return {};
  return bytes * (2.0 * (n - 1.0) / n) / bw + latency * (2.0 * (n - 1.0));
}

/// vLLM's custom all-reduce (vllm/distributed/device_communicators/custom_all_reduce.py and
/// csrc/custom_all_reduce.cuh, v0.4 to v0.15.x): a single kernel that reads every peer's buffer over
/// NVLink, one-shot (`cross_device_reduce_1stage`: at 2 ranks, and at 4 below 512 KiB or 8 below
/// 256 KiB) or two-shot (reduce-scatter then all-gather, `cross_device_reduce_2stage`), with no ring
/// steps. vLLM uses it for tensor parallelism of 2, 4, 6 or 8 GPUs of one fully NVLinked node for
/// messages under its 8 MiB buffer (`CustomAllreduce` max_size), else NCCL.
///
/// Its time is the published measurement of vLLM's kernel on H100 SXM (sgl-project/sglang pull
/// request 2904, "unit test performance in H100", table "vllm"; message sizes are bf16 elements:
/// 512 to 1 048 576, 1 KiB to 2 MiB), per rank count, linear between the measured sizes, the
/// smallest size's below them and the last segment's slope (the bandwidth regime) above:
///
///     bytes   1 KiB  8 KiB  64 KiB  512 KiB  1 MiB  2 MiB
///     n = 2    9.5    8.8    8.7    12.9     17.7   26.6  µs
///     n = 4    9.1    8.5    9.2    20.6     26.9   40.2
///     n = 8   10.1    9.3   11.8    24.1     30.4   45.0
///
/// Simplified: the measurement ran without CUDA graphs (the kernel's launch and the copy into the
/// registered buffer included, which vLLM's graph replay saves), so it is an upper bound on a
/// decode step's call; 6 ranks is linear between 4 and 8 (not measured); vLLM v0.11+'s symmetric-
/// memory all-reduce, which takes some sizes on Hopper, is not modelled. Returns a negative time
/// where vLLM would not use the kernel (other rank counts, 8 MiB or more): the caller's ring then.
template <class T>
duration<T> vllm_custom_allreduce_time(const data_size<T>& bytes, int n) {
  constexpr double kib = 1024.0;
  static constexpr std::array<double, 6> size{1 * kib, 8 * kib, 64 * kib, 512 * kib, 1024 * kib, 2048 * kib};
  static constexpr std::array<std::array<double, 6>, 3> us{{{9.5, 8.8, 8.7, 12.9, 17.7, 26.6},
                                                             {9.1, 8.5, 9.2, 20.6, 26.9, 40.2},
                                                             {10.1, 9.3, 11.8, 24.1, 30.4, 45.0}}};
  if (!(n == 2 || n == 4 || n == 6 || n == 8) || !(value_of(bytes.si()) < 8.0 * 1024.0 * kib)) return duration<T>::from_si(T(-1.0));
  const auto at = [&](std::size_t row) -> T {
    const T b = bytes.si();
    if (!(value_of(b) > size[0])) return T(us[row][0]);
    std::size_t i = 1;
    while (i + 1 < size.size() && value_of(b) > size[i]) ++i;
    const double slope = (us[row][i] - us[row][i - 1]) / (size[i] - size[i - 1]);
    return T(us[row][i - 1]) + (b - T(size[i - 1])) * T(slope);
  };
  T t_us;
  if (n == 2) {
    t_us = at(0);
  } else if (n == 4) {
    t_us = at(1);
  } else if (n == 8) {
    t_us = at(2);
  } else {
    t_us = (at(1) + at(2)) * T(0.5);
  }
  return duration<T>::from_si(t_us * T(1e-6));
}

/// Ring all-reduce within a node (or vLLM's custom all-reduce, `m.allreduce`, where vLLM uses it);
/// hierarchical across nodes (file comment): the inter-node stage is a ring over the N nodes of each
/// device's 1/g shard.
template <class T>
basic_allreduce_cost<T> allreduce(const basic_roofline_machine<T>& m, data_size<> bytes) {
  basic_allreduce_cost<T> a;
  if (m.devices <= 1 || bytes.si() <= 0.0) return a;
  const int nodes = m.nodes();
  const double g = nodes > 1 ? double(m.devices_per_node) : double(m.devices);
  const data_size<T> b = quantity_cast<T>(bytes);
  a.time = ring_allreduce_time(b, T(g), m.link_bandwidth, m.link_latency);
  if (m.allreduce == allreduce_algorithm::vllm_custom && nodes == 1) {
    // Its link bytes (and energy) are the ring's: a one-shot reads more, a two-shot the same.
    const duration<T> custom = vllm_custom_allreduce_time(b, m.devices);
    if (value_of(custom.si()) >= 0.0) a.time = custom;
  }
  a.link_bytes = bytes * (2.0 * (g - 1.0) * nodes);
  if (nodes > 1) {
    const double N = nodes;
    a.node_time = ring_allreduce_time(b / T(g), T(N), m.node_link_bandwidth, m.node_link_latency);
    a.node_link_bytes = bytes * (2.0 * (N - 1.0));
    a.time += a.node_time;
  }
  a.energy = quantity_cast<T>(a.link_bytes) * m.link_energy + quantity_cast<T>(a.node_link_bytes) * m.node_link_energy;
  a.link_bytes += a.node_link_bytes;
  return a;
}

/// All-to-all of an expert-parallel MoE layer (dispatch or combine): time and bytes.
template <class T = double>
struct basic_alltoall_cost {
  duration<T> time{};
  data_size<> bytes{};            ///< through the busiest device, each direction
  data_size<> link_bytes{};       ///< over all links, device and inter-node, every device
  data_size<> node_link_bytes{};  ///< of which over inter-node links
  duration<T> node_time{};        ///< the inter-node path's time (multi-node)
  strata::energy<T> energy{};
};
using alltoall_cost = basic_alltoall_cost<double>;

/// All-to-all over the machine's devices (file comment): `device_bytes` through the busiest
/// device, `total_bytes` sent by all of them; the device links within a node
/// (`link_bandwidth`, `link_latency`), the inter-node links across nodes (`node_link_*`), the
/// slower path bounding the time. Zero for one device.
template <class T>
basic_alltoall_cost<T> alltoall(const basic_roofline_machine<T>& m, data_size<> device_bytes, data_size<> total_bytes) {
  basic_alltoall_cost<T> a;
  if (m.devices <= 1 || device_bytes.si() <= 0.0) return a;
  const double n = m.devices;
  const int nodes = m.nodes();
  const double g = nodes > 1 ? double(m.devices_per_node) : n;
  const double intra = (g - 1.0) / (n - 1.0), inter = (n - g) / (n - 1.0);
  a.bytes = device_bytes;
  if (g > 1.0) a.time = quantity_cast<T>(device_bytes * intra) / m.link_bandwidth + m.link_latency * T(g - 1.0);
  a.link_bytes = total_bytes * intra;
  if (nodes > 1) {
    a.node_time = quantity_cast<T>(device_bytes * inter) / m.node_link_bandwidth + m.node_link_latency * T(n - g);
    a.time = detail::max_of(a.time, a.node_time);
    a.node_link_bytes = total_bytes * inter;
  }
  a.energy = quantity_cast<T>(a.link_bytes) * m.link_energy + quantity_cast<T>(a.node_link_bytes) * m.node_link_energy;
  a.link_bytes += a.node_link_bytes;
  return a;
}

/// Totals of a step on a machine (scalar `T` for the times and energies; the counts are plain).
template <class T = double>
struct basic_step_result {
  duration<T> time{};
  strata::energy<T> energy{};                ///< incl. static, capped at max power
  strata::energy<T> dynamic_energy{};        ///< FLOPs, memory and links only
  strata::energy<T> compute_energy{};        ///< of `dynamic_energy`: FLOPs × energy per FLOP
  strata::energy<T> memory_energy{};         ///< of `dynamic_energy`: bytes × each tier's energy per byte
  strata::energy<T> link_energy{};           ///< of `dynamic_energy`: all-reduce bytes over the links
  strata::energy<T> static_energy{};         ///< static power × time × devices (before the power cap)
  op_count<> flops{};
  data_size<> weight_bytes{}, kv_bytes{}, activation_bytes{}, link_bytes{};
  data_size<> node_link_bytes{};     ///< of `link_bytes`, over inter-node links
  double tokens = 0.0;               ///< tokens produced (decode) or processed (prefill)
  T tokens_per_s = T(0.0);
  T joules_per_token = T(0.0);
  bool power_capped = false;         ///< the energy hit the max-power cap
  bool feasible = true;              ///< the resident bytes fit the tiers (model overload, `evaluate_prefill`)
  std::string reason;                ///< capacity verdict with the numbers (model overload, `evaluate_prefill`)
  duration<T> alltoall_time{};       ///< of `time`, the expert-parallel all-to-alls (dispatch + combine)
  data_size<> alltoall_bytes{};      ///< all-to-all bytes through the busiest device (of `link_bytes`: every device's)
  cost<T> breakdown;                 ///< step → layers → operators (empty unless requested)

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("time", s.time);
    v("energy", s.energy);
    v("dynamic_energy", s.dynamic_energy);
    v("compute_energy", s.compute_energy);
    v("memory_energy", s.memory_energy);
    v("link_energy", s.link_energy);
    v("static_energy", s.static_energy);
    v("flops", s.flops);
    v("weight_bytes", s.weight_bytes);
    v("kv_bytes", s.kv_bytes);
    v("activation_bytes", s.activation_bytes);
    v("link_bytes", s.link_bytes);
    v("tokens", s.tokens);
    v("tokens_per_s", s.tokens_per_s);
    v("joules_per_token", s.joules_per_token);
    v("power_capped", s.power_capped);
    v("node_link_bytes", s.node_link_bytes);
    v("feasible", s.feasible);
    v("reason", s.reason);
    v("alltoall_time", s.alltoall_time);
    v("alltoall_bytes", s.alltoall_bytes);
  }
};
using step_result = basic_step_result<double>;

namespace detail {
/// A step's figures summed over operators (`evaluate`'s accumulator).
template <class T>
struct step_sums {
  duration<T> time{};
  strata::energy<T> dynamic_energy{}, compute_energy{}, memory_energy{}, link_energy{};
  op_count<> flops{};
  data_size<> weight_bytes{}, kv_bytes{}, activation_bytes{}, link_bytes{}, node_link_bytes{};
  duration<T> alltoall_time{};
  data_size<> alltoall_bytes{};

  /// Adds `n` times `o` (a layer group's sums times its layers).
  void add(const step_sums& o, double n) {
    const T k = T(n);
    time += o.time * k;
    alltoall_time += o.alltoall_time * k;
    alltoall_bytes += o.alltoall_bytes * n;
    dynamic_energy += o.dynamic_energy * k;
    compute_energy += o.compute_energy * k;
    memory_energy += o.memory_energy * k;
    link_energy += o.link_energy * k;
    flops += o.flops * n;
    weight_bytes += o.weight_bytes * n;
    kv_bytes += o.kv_bytes * n;
    activation_bytes += o.activation_bytes * n;
    link_bytes += o.link_bytes * n;
    node_link_bytes += o.node_link_bytes * n;
  }
};

/// One MoE layer under expert parallelism: the slowest device's experts and the all-to-alls.
template <class T>
struct ep_layer_cost {
  bool set = false;
  op device{};                                  ///< the slowest device's routed experts
  basic_alltoall_cost<T> dispatch{}, combine{};  ///< zero unless DP attention
};

/// Expert parallelism as `add_op` applies it (`expert_parallel.hpp` builds it): the step's
/// operators are the whole step's (one `routed_experts` per MoE layer); their time is taken on one
/// device, their energy and bytes over all.
template <class T>
struct ep_context {
  basic_roofline_machine<T> device;     ///< one device of the machine (`devices` = 1)
  bool dp = false;                      ///< attention (every non-expert operator) in DP
  double dp_share = 1.0;                ///< DP: the busiest device's share of the step's tokens
  std::vector<ep_layer_cost<T>> layers;  ///< by decoder layer
};

/// The busiest DP device's part of a non-expert operator: its share of the tokens with all the
/// weights (an embedding gathers its own tokens' rows only).
template <class = void>
inline op dp_device_op(const op& o, double share) {
  op d = o;
  d.flops = o.flops * share;
  d.activation_bytes = o.activation_bytes * share;
  d.kv_bytes = o.kv_bytes * share;
  d.tokens = o.tokens * share;
  if (o.kind == op_kind::embedding) d.weight_bytes = o.weight_bytes * share;
  return d;
}

/// Whether operator `o` is a routed expert after another of its layer: the per-expert operators of
/// one MoE layer (from a routing histogram) run as one grouped kernel, as the single
/// `routed_experts` operator of uniform routing does, with one launch overhead.
template <class = void>
inline bool grouped_with_previous(const op& o, const op* prev) {
  return o.kind == op_kind::expert && prev != nullptr && prev->kind == op_kind::expert && prev->layer == o.layer;
}

/// Operator `o`'s cost in a step on `m` without expert parallelism (`prev`: the operator before).
template <class T>
basic_op_cost<T> step_op_cost(const op& o, const op* prev, const basic_roofline_machine<T>& m) {
  auto c = cost_of(o, m);
  if (grouped_with_previous(o, prev)) c.time -= m.op_overhead;
  return c;
}

/// Whether the step's all-reduce follows operator `o` on `m` (tensor parallelism): the MoE block's
/// at its router (one per MoE layer), attention's at out_proj, a dense FFN's and the shared
/// experts' after them.
template <class T>
bool reduces_after(const op& o, const basic_roofline_machine<T>& m) {
  return m.devices > 1 && (o.kind == op_kind::out_proj || o.kind == op_kind::dense_ffn ||
                           o.kind == op_kind::shared_experts || o.kind == op_kind::router);
}

/// Adds operator `o` to `sum` (`prev`: the operator before it, or null); with `parts`, appends its
/// leaf (with its all-reduce) named `name`. With `ep`, expert parallelism (`ep_context`).
template <class T>
void add_op(const op& o, const op* prev, const basic_roofline_machine<T>& m, const basic_allreduce_cost<T>& ar,
            step_sums<T>& r, std::vector<cost<T>>* parts, bool name_with_layer, const ep_context<T>* ep = nullptr) {
  const bool expert_op = o.kind == op_kind::routed_experts || o.kind == op_kind::expert;
  const ep_layer_cost<T>* epl =
      ep != nullptr && expert_op ? &ep->layers[static_cast<std::size_t>(o.layer)] : nullptr;
  // Replicated weights (DP) are read by every device.
  const double weight_reads = ep != nullptr && ep->dp && !expert_op && o.kind != op_kind::embedding ? double(m.devices) : 1.0;
  basic_op_cost<T> c;
  if (epl != nullptr) {
    c = cost_of(epl->device, ep->device);
    c.energy = cost_of(o, ep->device).energy;
    if (grouped_with_previous(o, prev)) c.time -= m.op_overhead;
  } else if (ep != nullptr && ep->dp) {
    c = cost_of(dp_device_op(o, ep->dp_share), ep->device);
    op all = o;
    all.weight_bytes = o.weight_bytes * weight_reads;
    c.energy = cost_of(all, ep->device).energy;
    if (grouped_with_previous(o, prev)) c.time -= m.op_overhead;
  } else {
    c = step_op_cost(o, prev, m);
  }
  r.time += c.time;
  r.dynamic_energy += c.energy;
  const strata::energy<T> flop_e = quantity_cast<T>(o.flops) * m.energy_per_flop;
  r.compute_energy += flop_e;
  r.memory_energy += c.energy - flop_e;
  r.flops += o.flops;
  r.weight_bytes += o.weight_bytes * weight_reads;
  // KV read by every TP device that holds it (`kv_read_factor`); under DP attention each device reads its own.
  const double kv_reads = ep != nullptr && ep->dp ? 1.0 : kv_read_factor(o, m);
  r.kv_bytes += o.kv_bytes * kv_reads;
  r.activation_bytes += o.activation_bytes;
  const bool a2a = epl != nullptr && ep->dp && m.devices > 1;
  if (a2a) {
    for (const auto* x : {&epl->dispatch, &epl->combine}) {
      r.time += x->time;
      r.dynamic_energy += x->energy;
      r.link_energy += x->energy;
      r.link_bytes += x->link_bytes;
      r.node_link_bytes += x->node_link_bytes;
      r.alltoall_time += x->time;
      r.alltoall_bytes += x->bytes;
    }
  }
  // Under DP attention the MoE block ends in the all-to-all combine, attention in no collective.
  const bool reduces = !(ep != nullptr && ep->dp) && reduces_after(o, m);
  if (reduces) {
    r.time += ar.time;
    r.dynamic_energy += ar.energy;
    r.link_energy += ar.energy;
    r.link_bytes += ar.link_bytes;
    r.node_link_bytes += ar.node_link_bytes;
  }
  if (parts != nullptr) {
    const auto& tier = m.tiers[static_cast<std::size_t>(tier_of(m, o.reads))];
    std::vector<traffic<T>> tr;
    const data_size<> main_read = o.weight_bytes + o.kv_bytes * kv_reads;
    if (main_read.si() > 0.0) tr.push_back({tier.name, quantity_cast<T>(main_read)});
    if (o.activation_bytes.si() > 0.0) {
      tr.push_back({m.tiers[static_cast<std::size_t>(m.placement.activations)].name, quantity_cast<T>(o.activation_bytes)});
    }
    std::string name;
    if (name_with_layer) {
      name = op_name(o);
    } else {
      name = to_string(o.kind);
      if (o.expert >= 0) name += std::to_string(o.expert);
    }
    auto leaf = cost<T>::leaf(name, c.time, c.energy, std::move(tr),
                              epl != nullptr ? "EP: the busiest device's experts, roofline on one device"
                              : c.compute_bound ? "roofline: FLOPs / (n·peak·eta_c) + overhead"
                                                : "roofline: bytes / (n·BW·eta_m) + latency + overhead");
    if (a2a) {
      const auto node = [](const char* what, const basic_alltoall_cost<T>& x) {
        return cost<T>::leaf(what, x.time, x.energy, {{"link", quantity_cast<T>(x.bytes)}},
                             "all-to-all: max(b·(g-1)/(n-1)/BW_link + (g-1)·latency, b·(n-g)/(n-1)/BW_node + (n-g)·latency_node)");
      };
      parts->push_back(seq(std::move(name), std::vector<cost<T>>{node("alltoall dispatch", epl->dispatch), std::move(leaf),
                                                                  node("alltoall combine", epl->combine)}));
    } else if (reduces) {
      auto red = cost<T>::leaf("allreduce", ar.time, ar.energy, {{"link", quantity_cast<T>(ar.link_bytes)}},
                               "ring all-reduce: 2(n-1)/n·bytes/BW + 2(n-1)·latency");
      parts->push_back(seq(std::move(name), std::vector<cost<T>>{std::move(leaf), std::move(red)}));
    } else {
      parts->push_back(std::move(leaf));
    }
  }
}

/// The all-reduce after each attention and FFN/MoE block of a step: T·d activations.
template <class T>
basic_allreduce_cost<T> step_allreduce(const step_shape& shape, int hidden, const basic_roofline_machine<T>& m) {
  const double tokens = shape.mode == phase::decode ? double(shape.batch) : double(shape.batch) * shape.context;
  return allreduce(m, units::bit(tokens * hidden * shape.activation_bits));
}

/// The result from the step's sums: static energy, the power cap, tokens; the tree's root.
template <class T>
basic_step_result<T> finish_step(const step_sums<T>& s, const step_shape& shape, const basic_roofline_machine<T>& m,
                                 std::vector<cost<T>>* top_parts) {
  basic_step_result<T> r;
  r.time = s.time;
  r.dynamic_energy = s.dynamic_energy;
  r.compute_energy = s.compute_energy;
  r.memory_energy = s.memory_energy;
  r.link_energy = s.link_energy;
  r.flops = s.flops;
  r.weight_bytes = s.weight_bytes;
  r.kv_bytes = s.kv_bytes;
  r.activation_bytes = s.activation_bytes;
  r.link_bytes = s.link_bytes;
  r.node_link_bytes = s.node_link_bytes;
  r.alltoall_time = s.alltoall_time;
  r.alltoall_bytes = s.alltoall_bytes;
  const T n = T(m.devices);
  const strata::energy<T> static_e = m.static_power * r.time * n;
  r.static_energy = static_e;
  const strata::energy<T> cap = m.max_power * r.time * n;
  r.energy = r.dynamic_energy + static_e;
  if (r.energy > cap) {
    r.energy = cap;
    r.power_capped = true;
  }
  const double tokens = shape.mode == phase::decode ? double(shape.batch) : double(shape.batch) * shape.context;
  r.tokens = tokens;
  r.tokens_per_s = value_of(r.time) > 0.0 ? T(r.tokens) / r.time.si() : T(0.0);
  r.joules_per_token = r.energy.si() / T(r.tokens);
  if (top_parts != nullptr) {
    top_parts->push_back(cost<T>::leaf("static power", duration<T>{}, static_e, {}, "static power × time × devices"));
    r.breakdown = seq("step", std::move(*top_parts));
    r.breakdown.energy = r.energy;  // after the max-power cap
    r.breakdown.time = r.time;
  }
  return r;
}

/// `evaluate` of a layered step on a machine, both already validated (`ep`: expert parallelism).
template <class T>
basic_step_result<T> evaluate_valid(const layered_step& st, const basic_roofline_machine<T>& m, bool with_breakdown,
                                    const ep_context<T>* ep = nullptr) {
  const auto ar = step_allreduce(st.shape, st.hidden, m);
  step_sums<T> total;
  std::vector<cost<T>> top_parts, parts;
  std::vector<cost<T>>* tree = with_breakdown ? &parts : nullptr;
  const op* ops = st.ops.data();
  const auto run_ops = [&](std::size_t first, std::size_t last, step_sums<T>& sum) {
    for (std::size_t i = first; i < last; ++i) add_op(ops[i], i > first ? &ops[i - 1] : nullptr, m, ar, sum, tree, false, ep);
  };
  const auto close = [&](std::string name) {
    if (with_breakdown && !parts.empty()) {
      top_parts.push_back(seq(std::move(name), std::move(parts)));
      parts.clear();
    }
  };
  run_ops(0, st.layers_begin, total);
  close("io");
  // Each distinct layer once, times the layers it stands for.
  std::vector<cost<T>> group_nodes;
  std::vector<int> uses;
  if (with_breakdown) {
    group_nodes.reserve(st.groups.size());
    uses.assign(st.groups.size(), 0);
    for (const auto& run : st.runs) ++uses[static_cast<std::size_t>(run.group)];
  }
  for (const auto& g : st.groups) {
    step_sums<T> sum;
    run_ops(g.begin, g.end, sum);
    total.add(sum, double(g.count));
    if (with_breakdown) {
      group_nodes.push_back(seq(std::string("layer"), std::move(parts)));
      parts.clear();
    }
  }
  if (with_breakdown) {
    // The layers in order: a node per run of identical layers ("layer 7", or "layers 3-60"
    // repeating one layer's node 58 times).
    for (const auto& run : st.runs) {
      const auto gi = static_cast<std::size_t>(run.group);
      cost<T> one = --uses[gi] == 0 ? std::move(group_nodes[gi]) : group_nodes[gi];
      // Appended piece by piece (GCC 12's false -Wrestrict on `"…" + std::to_string(…)`, as in op_name).
      std::string name = run.count == 1 ? "layer " : "layers ";
      name += std::to_string(run.first);
      if (run.count == 1) {
        one.name = std::move(name);
        top_parts.push_back(std::move(one));
      } else {
        name += '-';
        name += std::to_string(run.first + run.count - 1);
        top_parts.push_back(repeat(std::move(name), std::move(one), static_cast<std::size_t>(run.count)));
      }
    }
  }
  run_ops(st.layers_end, st.ops.size(), total);
  close("io");
  return finish_step(total, st.shape, m, with_breakdown ? &top_parts : nullptr);
}
}  // namespace detail

/// Whether `evaluate` builds the result's `breakdown` tree: `none` (the totals only, no allocation
/// beyond the result) or `tree` (the same totals, and the tree they are summed from).
enum class step_breakdown { none, tree };

/// Evaluates a step's operators on a machine. With `step_breakdown::tree`, `breakdown` holds the
/// tree step → (embedding, layer 0 … L−1, head) → operators, each leaf naming its equation; without
/// it no allocation happens beyond the result.
template <class T>
basic_step_result<T> evaluate(const std::vector<op>& ops, const step_shape& shape, int hidden,
                              const basic_roofline_machine<T>& m, step_breakdown breakdown = step_breakdown::none) {
  const bool with_breakdown = breakdown == step_breakdown::tree;
  validate(m);
  validate(shape);
  detail::require(hidden >= 1, "strata.roofline", "hidden", hidden, ">= 1");
  const auto ar = detail::step_allreduce(shape, hidden, m);
  detail::step_sums<T> sums;
  std::vector<cost<T>> layer_parts, top_parts;
  int current_layer = -2;
  auto close_layer = [&]() {
    if (with_breakdown && current_layer >= -1 && !layer_parts.empty()) {
      top_parts.push_back(seq(current_layer >= 0 ? "layer " + std::to_string(current_layer) : std::string("io"),
                              std::move(layer_parts)));
      layer_parts.clear();
    }
  };
  const op* prev = nullptr;
  for (const auto& o : ops) {
    if (with_breakdown && o.layer != current_layer) {
      close_layer();
      current_layer = o.layer;
    }
    detail::add_op(o, prev, m, ar, sums, with_breakdown ? &layer_parts : nullptr, true);
    prev = &o;
  }
  close_layer();
  return detail::finish_step(sums, shape, m, with_breakdown ? &top_parts : nullptr);
}

/// Former signature (a positional bool for the tree). Deprecated: use `step_breakdown::tree` or
/// `step_breakdown::none` (removed after the next release).
template <class T>
[[deprecated("use evaluate(ops, shape, hidden, machine, strata::step_breakdown::tree or ::none)")]]
basic_step_result<T> evaluate(const std::vector<op>& ops, const step_shape& shape, int hidden,
                              const basic_roofline_machine<T>& m, bool with_breakdown) {
  return evaluate(ops, shape, hidden, m, with_breakdown ? step_breakdown::tree : step_breakdown::none);
}

/// One operator of a step with its result on a machine: what `strata-eval eval` prints per
/// operator. `time` and `energy` include the all-reduce that follows the operator (if any), so the
/// operators' times add up to the step's `time` and their energies to its `dynamic_energy`.
template <class T = double>
struct basic_operator_result {
  std::string name;  ///< `op_name`: `L3.qkv_proj`, `L3.expert17`, `embedding`
  op_kind kind{};
  int layer = -1;    ///< -1 outside the layers
  int expert = -1;   ///< the routed expert of an `expert` operator, else -1
  op_count<> flops{};
  data_size<> bytes{};        ///< weights + KV + activations read and written
  duration<T> time{};
  strata::energy<T> energy{};  ///< dynamic: FLOPs, memory, its all-reduce's links
  bool compute_bound = false;  ///< the operator's FLOPs, not its bytes, bound its time

  /// The fields as data (`core/json.hpp`, `core/sweep_io.hpp`): `flops`, `bytes`, `time`,
  /// `energy` as quantities; `kind` by name.
  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("name", s.name);
    v("kind", s.kind);
    v("layer", s.layer);
    v("expert", s.expert);
    v("flops", s.flops);
    v("bytes", s.bytes);
    v("time", s.time);
    v("energy", s.energy);
    v("compute_bound", s.compute_bound);
  }
};
using operator_result = basic_operator_result<double>;

/// Every operator of model `mdl`'s step `s` on `m` (`step_operators`, exact routing with `hist`),
/// in execution order, each with its time, energy and binding resource (`basic_operator_result`).
/// The list grows with the operators: one entry per operator, a routed expert of a histogram each.
template <class T>
std::vector<basic_operator_result<T>> operator_results(const model& mdl, const step_shape& s,
                                                       const basic_roofline_machine<T>& m,
                                                       const expert_histogram& hist = {}) {
  validate(mdl);
  validate(s);
  validate(m);
  const auto ops = step_operators(mdl, s, hist);
  const auto ar = detail::step_allreduce(s, mdl.hidden, m);
  std::vector<basic_operator_result<T>> out;
  out.reserve(ops.size());
  const op* prev = nullptr;
  for (const auto& o : ops) {
    const auto c = detail::step_op_cost(o, prev, m);
    basic_operator_result<T> r{op_name(o), o.kind, o.layer, o.expert, o.flops, o.bytes(), c.time, c.energy, c.compute_bound};
    if (detail::reduces_after(o, m)) {
      r.time += ar.time;
      r.energy += ar.energy;
    }
    out.push_back(std::move(r));
    prev = &o;
  }
  return out;
}

/// Evaluates a step given by its distinct layers (`step_layers`): each distinct layer once, its
/// time, energy and bytes times the layers it stands for. The totals are those of `evaluate` on
/// `step_operators`' list but for the order of the floating-point sums (a few ulps). With
/// `step_breakdown::tree`, the tree step → (io, a node per run of identical layers: "layer 7" or a
/// `repeat` "layers 3-60" of one "layer", io) → operators, built from the distinct layers.
template <class T>
basic_step_result<T> evaluate(const layered_step& st, const basic_roofline_machine<T>& m,
                              step_breakdown breakdown = step_breakdown::none) {
  validate(m);
  validate(st.shape);
  detail::require(st.hidden >= 1, "strata.roofline", "hidden", st.hidden, ">= 1");
  return detail::evaluate_valid(st, m, breakdown == step_breakdown::tree);
}

/// Former signature (a positional bool for the tree). Deprecated: use `step_breakdown`.
template <class T>
[[deprecated("use evaluate(layered_step, machine, strata::step_breakdown::tree or ::none)")]]
basic_step_result<T> evaluate(const layered_step& st, const basic_roofline_machine<T>& m, bool with_breakdown) {
  return evaluate(st, m, with_breakdown ? step_breakdown::tree : step_breakdown::none);
}

namespace detail {
/// `check_capacity` on a machine already validated.
template <class T>
capacity_check check_capacity_valid(const basic_roofline_machine<T>& m, const footprint& f) {
  capacity_check c;
  for (const auto& t : m.tiers) c.tiers.push_back({t.name, units::B(value_of(t.capacity) * double(m.devices)), {}});
  auto at = [&](int i) -> footprint& { return c.tiers[static_cast<std::size_t>(i)].placed; };
  at(m.placement.expert).experts += f.experts;
  at(m.placement.weights).weights += f.weights;
  at(m.placement.kv).kv += f.kv;
  at(m.placement.non_nmp).non_nmp += f.non_nmp;
  at(m.placement.activations).activations += f.activations;
  detail::conclude(c, " on " + (m.name.empty() ? std::string("the machine") : m.name) +
                          (m.devices > 1 ? " (" + std::to_string(m.devices) + " devices)" : std::string()));
  return c;
}
}  // namespace detail

/// Places a footprint on a machine's tiers by `m.placement` and checks every tier: capacity is
/// `devices` × the tier's capacity, the bytes split evenly over the devices (KV replication of
/// MLA or of more ranks than KV heads is not modelled here: `baseline/gpu.hpp`'s fit check does).
template <class T>
capacity_check check_capacity(const basic_roofline_machine<T>& m, const footprint& f) {
  validate(m);
  return detail::check_capacity_valid(m, f);
}

/// Evaluates model `mdl` running step `s` on `m`: its distinct layers (`step_layers`, exact
/// routing with `hist`) through `evaluate`, and the capacity of the whole model's resident bytes
/// (`resident_footprint`, `check_capacity`) into `feasible` and `reason`.
template <class T>
basic_step_result<T> evaluate(const model& mdl, const step_shape& s, const basic_roofline_machine<T>& m,
                              const expert_histogram& hist = {}, step_breakdown breakdown = step_breakdown::none) {
  // Checked once here; the parts below take checked values.
  validate(mdl);
  validate(s);
  validate(m);
  auto r = detail::evaluate_valid(detail::step_layers_valid(mdl, s, hist), m, breakdown == step_breakdown::tree);
  const auto c = detail::check_capacity_valid(m, detail::resident_footprint_valid(mdl, s, {}, 1.0));
  r.feasible = c.feasible;
  r.reason = c.reason;
  return r;
}

/// Former signature (a positional bool for the tree). Deprecated: use `step_breakdown`.
template <class T>
[[deprecated("use evaluate(model, shape, machine, hist, strata::step_breakdown::tree or ::none)")]]
basic_step_result<T> evaluate(const model& mdl, const step_shape& s, const basic_roofline_machine<T>& m,
                              const expert_histogram& hist, bool with_breakdown) {
  return evaluate(mdl, s, m, hist, with_breakdown ? step_breakdown::tree : step_breakdown::none);
}

}  // namespace v0
}  // namespace strata

// strata::compiled (STRATA_BUILD_COMPILED, src/compiled.cpp) holds the `double` instantiations
// below; STRATA_COMPILED=1, which that target puts on its users, keeps their translation units
// from instantiating them again. Without it this header is unchanged (header-only).
#if defined(STRATA_COMPILED) && STRATA_COMPILED
namespace strata {
inline namespace v0 {
extern template void validate(const basic_roofline_machine<double>&);
extern template basic_step_result<double> evaluate(const std::vector<op>&, const step_shape&, int,
                                                   const basic_roofline_machine<double>&, step_breakdown);
extern template capacity_check check_capacity(const basic_roofline_machine<double>&, const footprint&);
extern template basic_step_result<double> evaluate(const layered_step&, const basic_roofline_machine<double>&, step_breakdown);
extern template basic_step_result<double> evaluate(const model&, const step_shape&, const basic_roofline_machine<double>&,
                                                   const expert_histogram&, step_breakdown);
}  // namespace v0
}  // namespace strata
#endif
