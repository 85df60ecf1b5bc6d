// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The Stratum systems (Stratum §3.1, Fig. 5, §7): an xPU die beside Mono3D chips on a silicon
/// interposer, prefill on the xPU, decode on the chips' near-memory processors.
///
/// | system     | xPU              | chips | stages                          |
/// |------------|------------------|-------|---------------------------------|
/// | Stratum-S  | RTX A6000 die    | 1     | 1                               |
/// | Stratum-L  | H100 die         | 6     | 1                               |
/// | Stratum-XL | 2 × (H100 die)   | 6 + 6 | 2, joined by NVLink             |
///
/// Data placement (Stratum §5.2) on every chip's rows, bank-sharded and fastest first:
///   [NMP weights every step reads: attention, shared experts, dense FFNs]
///   [Algorithm 1's fast pack: the L·A hottest experts] [KV cache: the middle tiers]
///   [Algorithm 1's slow pack: the cold experts] [non-NMP data: the top of the slowest tier]
/// Projections, heads, shared experts and dense FFNs are split over the c chips of a stage (1/c of
/// each on every chip). Routed experts follow `mapping.experts` (`expert_mapping.hpp`): by default
/// each is whole on one chip (expert parallel, Stratum §4.1; which chip: `chip_assignment.hpp`)
/// and Algorithm 1 places each chip's own experts; with `all_chips` every expert is split over the
/// c chips and all chips hold the same row layout. The always-read weights come first because
/// every step reads them (usage 1); Algorithm 1 (`placement.hpp`) runs on the rows after them.
///
/// A decode step, per layer (the xPU and the NMP alternate; Fig. 8c):
///   xPU: RMSNorm (the residual add before it fused in), then write the hidden states to the
///        chips and enter NMP mode
///   NMP: QKV projection, attention, output projection (`attention_mapping.hpp`); the xPU reads
///        the chips' partials back and adds them
///   xPU: RMSNorm (with the residual add fused in) and the router (a GEMV and top-k), then write
///        tokens, expert ids and gates
///   NMP: the experts one after another in the Fig. 9 pipeline (`expert_mapping.hpp`), shared
///        experts and dense FFNs the same way with every token; expert parallel, each chip its
///        own experts on its own ring and the block the slowest chip; the xPU reads the
///        partials back and adds them
/// plus the embedding gather and the final norm on the xPU (non-NMP data, read over the
/// interposer from the slowest tier) and the LM head on the NMP (`head_mapping.hpp`; one more
/// invocation, its rows with the always-read weights). The operators are the GPU's
/// (`step_operators`), each placed by `stratum_op_place`: what the GPU fuses the xPU fuses too —
/// each residual add into the following RMSNorm, as vLLM's fused add-RMSNorm kernel does — so a
/// speedup compares the same work and neither side pays a residual-add launch.
/// Where these run, against the Stratum spec (section, line): the embedding table and the norm
/// scales are non-NMP data "used by the xPU" (§5.2 lines 122–124; the paper's words:
/// "miscellaneous parameters such as positional embeddings and layer-norm offsets and scales"),
/// kept; the LM head's vocab × hidden matrix is not among them, so it runs on the NMP
/// (`lm_head_placement::nmp`; `xpu`, ours, keeps the former reading of it as the output
/// embedding of the non-NMP class); the QKV projection runs on the NMP beside attention: §4.2 line 88
/// has the xPU write the new K/V to the channels and the query sliced across them, which strata
/// reads as the NMP's projection output written into the PUs' own channels (the W_qkv rows live
/// on the chips; computing it on the xPU would read them over the interposer each step), kept.
/// DRAM refresh (`device/dram_refresh.hpp`) takes tRFC of every tREFI of bank time from every
/// stream and adds each chip's refresh power. Each xPU operator costs its roofline time on the xPU die
/// (`workload/roofline.hpp`: its kernel overhead, its compute, its reads over the interposer);
/// each NMP invocation costs an xPU kernel launch, mode entry and exit through mode-register writes
/// and a completion poll (`nmp_invocation_time`; Stratum §3.2 Fig. 8c steps 1 and 10). Stratum-XL runs its halves as
/// two pipeline stages over the layers with two batches in flight, so a step takes the slower
/// stage plus the NVLink hand-off, and each stage holds the KV of both batches.
///
/// Routing is a usage table f[moe layer][expert] (per-token selection probabilities): an expert
/// runs with probability p = 1 − (1 − f)^B and then has B·f / p tokens (`expert_work::weight`).
/// The layout is placed from `stratum_usage::placement` (the memory mapper's prediction) and the
/// tokens route by `stratum_usage::routing`; the two are the same table when the prediction is
/// exact.
///
/// Variants: `tiering = false` programs one tRCD (the slowest tier's) for every row, the same
/// hardware otherwise; `memory = hbm` replaces each Mono3D chip by an HBM3 stack with a
/// processing base die (`baseline/hbm_nmp.hpp`) on the same xPU.
///
/// Energy: every joule of a step is in `energy_parts` (NMP MACs, SFE, SRAM, DRAM parts, bond,
/// ring, interposer PHY, NMP static, DRAM refresh, xPU dynamic, xPU static). The xPU die while
/// the NMP decodes is charged by `xpu_while_nmp` (`idle` default; `tdp` the paper's reading).

#include <algorithm>  // std::min, std::max
#include <array>      // std::array (enum names)
#include <cctype>     // std::tolower
#include <cmath>      // std::pow
#include <cstddef>    // std::size_t
#include <string>     // std::string
#include <string_view>  // std::string_view
#include <utility>    // std::pair
#include <vector>     // std::vector

#include "strata/baseline/gpu.hpp"
#include "strata/baseline/gpu_knob_set.hpp"
#include "strata/baseline/hbm_nmp.hpp"
#include "strata/core/cost.hpp"
#include "strata/core/error.hpp"
#include "strata/core/units.hpp"
#include "strata/stratum/attention_mapping.hpp"
#include "strata/stratum/chip_assignment.hpp"
#include "strata/stratum/energy_parts.hpp"
#include "strata/stratum/expert_mapping.hpp"
#include "strata/stratum/head_mapping.hpp"
#include "strata/stratum/nmp.hpp"
#include "strata/stratum/placement.hpp"
#include "strata/stratum/row_swap.hpp"
#include "strata/stratum/tiering.hpp"
#include "strata/stratum/usage.hpp"
#include "strata/workload/model.hpp"
#include "strata/workload/operators.hpp"
#include "strata/workload/roofline.hpp"

namespace strata {
inline namespace v0 {

// The presets' xPU dies are the cards with their cited knobs, which is `baseline_gpu`'s default
// (baseline/baseline_gpu.hpp); a different default knob set must change the presets with it.
static_assert(default_gpu_knobs == gpu_knob_set::cited, "stratum_system_params::xpu assumes the cited knob set");

/// The memory (and processor) beside the xPU.
enum class nmp_memory { mono3d, hbm };
constexpr auto enum_names(nmp_memory) {
  return std::array{std::pair{nmp_memory::mono3d, "mono3d"}, std::pair{nmp_memory::hbm, "hbm"}};
}

/// Where the LM head (the vocab × hidden output matrix) runs in decode.
/// - `nmp` (the paper's reading, the default): Stratum §5.2 names the data the xPU uses beside the
///   NMP as "miscellaneous parameters such as positional embeddings and layer-norm offsets and
///   scales"; the head's matrix is not among them, so it is NMP data read every step (the
///   always-read rows) and the head runs on the NMP, tensor parallel like the experts
///   (`head_mapping.hpp`).
/// - `xpu` (ours, not the paper's: strata's former reading): the head as the output embedding of
///   the non-NMP class, read over the interposer from the slowest tier by the xPU.
enum class lm_head_placement { nmp, xpu };
constexpr auto enum_names(lm_head_placement) {
  return std::array{std::pair{lm_head_placement::nmp, "nmp"}, std::pair{lm_head_placement::xpu, "xpu"}};
}

/// How the xPU die is charged while the NMP decodes (Stratum §6.3 states nothing of it).
/// - `idle` (the default): the die waits at max(static power, `xpu_wait_power_fraction` · TDP);
///   at the default fraction 0 that is the P0 power of a card holding a model and running nothing.
/// - `tdp`: the die at its TDP while it waits, the reading the paper's energy peaks imply (a die
///   drawing about twice the GPU's power); a named variant to show which reading a paper number
///   needs, not a default.
enum class xpu_while_nmp { idle, tdp };
constexpr auto enum_names(xpu_while_nmp) {
  return std::array{std::pair{xpu_while_nmp::idle, "idle"}, std::pair{xpu_while_nmp::tdp, "tdp"}};
}

/// A Stratum system. Defaults: Stratum-L (Stratum §3.1 Fig. 5).
template <class T = double>
struct stratum_system_params {
  std::string name = "Stratum-L";
  /// The xPU die: its compute, static power, kernel overhead and NVLink. [Stratum §3.1: an H100
  /// die for Stratum-L/XL, an RTX A6000 die for Stratum-S; its serving-software knobs (operator
  /// overhead, achievable efficiencies) the default knob set, as for the GPU it is compared with
  /// (`baseline_gpu`, baseline/baseline_gpu.hpp: the cited knobs, i.e. the card as it is, so the
  /// default needs neither the measurement set nor the fit)]
  gpu_params xpu = h100_sxm5();
  /// Mono3D chips (the default) or HBM3 stacks with a processing base die.
  nmp_memory memory = nmp_memory::mono3d;
  /// One Mono3D chip and its NMP.
  nmp_params<T> nmp{};
  /// One HBM-NMP stack (used when `memory` is `hbm`).
  hbm_nmp_params<T> hbm{};
  /// Chips per stage. [Stratum §3.1 Fig. 5: 1 (S), 6 (L)]
  int chips = 6;
  /// Pipeline stages joined by NVLink. [Stratum §3.1: Stratum-XL is two Stratum-L]
  int stages = 1;
  /// Per-tier tRCD from the tiering table (true) or the slowest tier's everywhere (false).
  bool tiering = true;
  mapping_options<T> mapping{};
  /// Mode-register delay of one switch between memory mode and NMP mode. An NMP invocation
  /// (Stratum §3.2, Fig. 8c) enters NMP mode in step 1 and leaves it in step 10 through the
  /// standard DRAM interface: a mode-register write (MRW), after which the chip accepts the next
  /// non-MRW command (the input writes; the output reads) only after tMRD. [JESD79-5 DDR5 (the
  /// interface whose timings Mono3D follows, Stratum §2.1): tMRD = max(14 ns, 16 nCK); at
  /// DDR5-6400, 16 nCK = 5 ns, so 14 ns. Commands through the standard interface are also how
  /// Samsung's HBM-PIM enters its PIM modes (Lee et al., ISCA 2021)]
  ///
  /// An invocation costs the xPU's kernel launch (`xpu.op_overhead`: the kernel that writes the
  /// inputs), mode entry and exit (2 · tMRD), and the completion poll: the xPU reads a status word
  /// in the dedicated address space back to back, one xPU ↔ chip transfer (`nmp.phy_latency`) per
  /// read; the NMP finishes uniformly within a poll, the next read samples it on average half a
  /// round trip later and returns half a round trip after that, one round trip in expectation.
  /// Writing the inputs and reading the outputs are in `moe_input_cost`.
  strata::duration<T> nmp_mode_register_delay = units::ns(14.0);
  /// Power of the xPU die while the NMP decodes, as a fraction of the xPU's TDP; the die never
  /// draws less than its static power (`xpu.static_power`), so the power while waiting is
  /// max(static_power, fraction · TDP). [Default 0: the die waits at its static power, the P0
  /// power of a card holding a model and running nothing (`gpu_params::static_power`: H100 SXM5
  /// 140 W measured with nvidia-smi, gpu-burn issue 114; RTX A6000 110 W). While the NMP decodes
  /// the xPU runs only the completion poll, one small kernel reading a status word over the
  /// interposer (`nmp_invocation_time`), whose dynamic power is not counted. Stratum §6.3 reads GPU
  /// energy with nvidia-smi and states nothing of the xPU's power while its chips decode; 1 (the
  /// die at its TDP) is the upper bound, and was what a former least-squares fit of the
  /// energy-efficiency rows reached]
  T xpu_wait_power_fraction = T(0.0);
  /// The xPU die's power accounting while the NMP decodes (`xpu_while_nmp`). [Default `idle`:
  /// the die at max(static power, `xpu_wait_power_fraction` · TDP); `tdp`: the die at its TDP, as
  /// the paper's energy peaks imply]
  xpu_while_nmp xpu_while_nmp_power = xpu_while_nmp::idle;
  /// Where the LM head runs in decode (`lm_head_placement`). [Default `nmp`: Stratum §5.2's
  /// non-NMP data are "miscellaneous parameters such as positional embeddings and layer-norm
  /// offsets and scales"; `xpu` is ours, strata's former reading]
  lm_head_placement lm_head = lm_head_placement::nmp;

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("name", s.name);
    v("xpu", s.xpu);
    v("memory", s.memory);
    v("nmp", s.nmp);
    v("hbm", s.hbm);
    v("chips", s.chips);
    v("stages", s.stages);
    v("tiering", s.tiering);
    v("mapping", s.mapping);
    v("nmp_mode_register_delay", s.nmp_mode_register_delay);
    v("xpu_wait_power_fraction", s.xpu_wait_power_fraction);
    v("xpu_while_nmp_power", s.xpu_while_nmp_power);
    v("lm_head", s.lm_head);
  }
  friend bool operator==(const stratum_system_params&, const stratum_system_params&) = default;
};

/// Stratum-S: an RTX A6000 die and one Mono3D chip (32 GB).
template <class = void>
inline stratum_system_params<> stratum_s() {
  stratum_system_params<> p;
  p.name = "Stratum-S";
  p.xpu = rtx_a6000();
  p.chips = 1;
  return p;
}
/// Stratum-L: an H100 die and six Mono3D chips (192 GB).
template <class = void>
inline stratum_system_params<> stratum_l() { return {}; }
/// Stratum-XL: two Stratum-L over NVLink (384 GB), as two pipeline stages.
template <class = void>
inline stratum_system_params<> stratum_xl() {
  stratum_system_params<> p;
  p.name = "Stratum-XL";
  p.stages = 2;
  return p;
}
/// The same system with HBM3 NMP stacks (Duplex-like) in place of the Mono3D chips.
template <class T>
stratum_system_params<T> with_hbm_nmp(stratum_system_params<T> p) {
  p.memory = nmp_memory::hbm;
  p.name += " (HBM-NMP)";
  return p;
}
/// Names of the system presets: "stratum-s", "stratum-l", "stratum-xl".
template <class = void>
inline std::vector<std::string> stratum_system_names() { return {"stratum-s", "stratum-l", "stratum-xl"}; }
/// A system preset by name ("stratum-s", "Stratum_L", ... : case, '-' and '_' ignored).
template <class = void>
inline stratum_system_params<> stratum_system(std::string_view name) {
  std::string k;
  for (char c : name) {
    if (c == '-' || c == '_') continue;
    k += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (k == "stratums") return stratum_s();
  if (k == "stratuml") return stratum_l();
  if (k == "stratumxl") return stratum_xl();
  throw config_error("machine", "[strata.stratum] unknown system '" + std::string(name) +
                                    "': expected stratum-s, stratum-l or stratum-xl");
}

/// Checks the system; throws `config_error` naming the field.
template <class T>
void validate(const stratum_system_params<T>& p) {
  constexpr const char* m = "strata.stratum";
  validate(p.xpu);
  validate(p.mapping);
  if (p.memory == nmp_memory::hbm) validate(p.hbm);
  detail::require_count(p.chips, 1, 1024, m, "chips");
  detail::require_count(p.stages, 1, 64, m, "stages");
  detail::require_range(p.nmp_mode_register_delay.si(), 0.0, 1e-5, m, "nmp_mode_register_delay", "s");
  detail::require_range(p.xpu_wait_power_fraction, 0.0, 1.0, m, "xpu_wait_power_fraction", "");
  if (p.xpu_while_nmp_power != xpu_while_nmp::idle && p.xpu_while_nmp_power != xpu_while_nmp::tdp) {
    detail::require(false, m, "xpu_while_nmp_power", static_cast<int>(p.xpu_while_nmp_power), "idle or tdp");
  }
  if (p.lm_head != lm_head_placement::nmp && p.lm_head != lm_head_placement::xpu) {
    detail::require(false, m, "lm_head", static_cast<int>(p.lm_head), "nmp or xpu");
  }
  validate(p.nmp.refresh, "nmp.refresh");
}

/// The NMP device of one chip (or stack) of the system, with tiering and DRAM refresh applied
/// (`with_refresh`: every tier's bandwidth × 1 − tRFC/tREFI, the chip's refresh power).
template <class T>
nmp_device<T> system_device(const stratum_system_params<T>& p) {
  validate(p);
  nmp_device<T> d;
  if (p.memory == nmp_memory::hbm) {
    const auto& h = p.hbm;
    d.name = "hbm3-nmp";
    const int banks = h.pseudo_channels * h.pes_per_pu;
    d.tiers.push_back({"hbm3", h.capacity, internal_bandwidth(h), h.latency, access_energy(h.access), banks});
    d.access = h.access;
    d.n_pu = h.pseudo_channels;
    d.pes_per_pu = h.pes_per_pu;
    d.dot_engines = h.dot_engines;
    d.taps = h.taps;
    d.clock = h.clock;
    d.compute_efficiency = p.nmp.compute_efficiency;
    d.e_mac = h.e_mac;
    const logic_die_params<T> l{};
    d.sfe_lanes = l.sfe_lanes;
    d.reduction_lanes = l.reduction_lanes;
    d.ring_flit = l.ring_flit;
    d.hop_cycles = p.nmp.hop_cycles;
    d.ring_energy = p.nmp.ring_energy;
    d.sram_energy = p.nmp.sram_energy;
    d.static_power = h.static_power;
    d.phy_bandwidth = h.external_bandwidth;
    d.phy_energy = p.nmp.phy_energy;
    d.phy_latency = p.nmp.phy_latency;
    validate(d);
  } else {
    d = evaluate(p.nmp);
  }
  // Refresh holds the banks tRFC of every tREFI whatever the tRCD: applied after the tiering.
  return with_refresh(p.tiering ? d : without_tiering(d), p.memory == nmp_memory::hbm ? p.hbm.refresh : p.nmp.refresh);
}

/// Time of one NMP invocation (Stratum §3.2 Fig. 8c steps 1 and 10; `nmp_mode_register_delay`):
/// the xPU's kernel launch + 2 · tMRD (mode entry, mode exit) + one xPU ↔ chip transfer latency
/// (the completion poll's expected wait). The chips of a stage switch in parallel, each through
/// its own interface.
template <class T>
strata::duration<T> nmp_invocation_time(const stratum_system_params<T>& p, const nmp_device<T>& d) {
  return strata::duration<T>::from_si(T(p.xpu.op_overhead.si())) + p.nmp_mode_register_delay * T(2) + d.phy_latency;
}

/// Where an operator of a decode step runs on a Stratum system.
enum class op_place { xpu, nmp };
constexpr auto enum_names(op_place) {
  return std::array{std::pair{op_place::xpu, "xpu"}, std::pair{op_place::nmp, "nmp"}};
}

/// Where operator kind `k` runs in a decode step of system `p` (Stratum §5.2, Fig. 6, Fig. 8c):
/// the norms, the router and the embedding gather on the xPU (their data are the non-NMP class:
/// norm scales, the embedding table; the router's top-k decides what the NMP is sent); the LM
/// head where `p.lm_head` says; attention, its projections, the experts, shared experts and
/// dense FFNs on the NMP. The operators are those of `step_operators`, the GPU's list, with
/// the same fusions: each residual add is fused into the following RMSNorm (vLLM's fused
/// add-RMSNorm kernel), on the GPU and on the xPU alike, so neither side has a residual-add launch.
template <class T>
op_place stratum_op_place(const stratum_system_params<T>& p, op_kind k) {
  switch (k) {
    case op_kind::embedding:
    case op_kind::attn_norm:
    case op_kind::ffn_norm:
    case op_kind::router:
    case op_kind::final_norm: return op_place::xpu;
    case op_kind::lm_head: return p.lm_head == lm_head_placement::xpu ? op_place::xpu : op_place::nmp;
    default: return op_place::nmp;
  }
}

/// The operators of decoder layer `layer` of `m` at `s` as a Stratum system runs them: the GPU's
/// operators of that layer (`step_operators`), each with where it runs (`stratum_op_place`).
/// One list for both sides: the count is the GPU's.
template <class T>
std::vector<std::pair<op_kind, op_place>> stratum_layer_operators(const stratum_system_params<T>& p, const model& m,
                                                                  const step_shape& s, int layer) {
  detail::require(layer >= 0 && layer < m.layers, "strata.stratum", "layer", layer, "a decoder layer of the model");
  std::vector<std::pair<op_kind, op_place>> out;
  for (const auto& o : step_operators(m, s)) {
    if (o.layer == layer) out.emplace_back(o.kind, stratum_op_place(p, o.kind));
  }
  return out;
}

/// What the memory mapper predicts (placement) and how tokens actually route (routing), per MoE
/// layer and expert; empty tables mean uniform routing (f = k/E).
struct stratum_usage {
  usage_table routing;
  usage_table placement;  ///< empty: the same as `routing`
  /// The table the experts are placed by: `placement`, or `routing` when it is empty.
  [[nodiscard]] const usage_table& placed_by() const { return placement.empty() ? routing : placement; }
};

/// How much of a decode step's breakdown tree `evaluate_decode` builds; the numbers are the same
/// at every level (the tree is a view beside the computation):
/// - `none`: no tree (`breakdown` left empty);
/// - `layers`: step → stage → a node per run of identical consecutive layers (its repeat count;
///   a layer whose figures differ from its neighbour's starts a new run) → the layer's operator
///   kinds (xPU norms/router/residual adds, NMP calls, NMP input/output, attention and its
///   stages, the experts or FFN block as one node);
/// - `experts`: `layers`, and under each MoE block's node its experts' figures as columns
///   (`moe_layer_columns`: expert, tier, bytes_B, time_s, energy_J), one array each.
/// Tree size: layers × about 20 nodes, and 5 numbers per expert slot with `experts`.
enum class breakdown_detail { none, layers, experts };
constexpr auto enum_names(breakdown_detail) {
  return std::array{std::pair{breakdown_detail::none, "none"}, std::pair{breakdown_detail::layers, "layers"},
                    std::pair{breakdown_detail::experts, "experts"}};
}

/// `evaluate_decode`'s request for a tree: a `breakdown_detail`, or `false` / `true` for `none` /
/// `layers`.
struct decode_breakdown {
  breakdown_detail detail = breakdown_detail::none;
  constexpr decode_breakdown() = default;
  constexpr decode_breakdown(bool with_tree) : detail(with_tree ? breakdown_detail::layers : breakdown_detail::none) {}
  constexpr decode_breakdown(breakdown_detail d) : detail(d) {}
  [[nodiscard]] constexpr bool any() const { return detail != breakdown_detail::none; }
};

/// What part of a Stratum decode step an entry of `stratum_step_result::ops` is.
enum class stratum_op_kind {
  xpu_layer,   ///< the layer's operators on the xPU die: norms (residual adds fused), router
  nmp_calls,   ///< the layer's two NMP invocations (launch, mode entry and exit, completion poll)
  nmp_io,      ///< activations to and from the chips around an NMP block (input, all-gather, output)
  attention,   ///< QKV projection, attention, O projection on the NMP (`attention_mapping.hpp`)
  experts,     ///< a MoE layer's expert block on the NMP (`expert_mapping.hpp`)
  ffn,         ///< a dense layer's FFN block on the NMP
  xpu_ends,    ///< embedding and final norm on the xPU (and the LM head when it is the xPU's)
  lm_head,     ///< the LM head on the NMP (`head_mapping.hpp`)
  handoff,     ///< the NVLink hand-off between pipeline stages
  static_power ///< NMP static, DRAM refresh and xPU static energy over the step (no time)
};
constexpr auto enum_names(stratum_op_kind) {
  return std::array{std::pair{stratum_op_kind::xpu_layer, "xpu_layer"}, std::pair{stratum_op_kind::nmp_calls, "nmp_calls"},
                    std::pair{stratum_op_kind::nmp_io, "nmp_io"},       std::pair{stratum_op_kind::attention, "attention"},
                    std::pair{stratum_op_kind::experts, "experts"},     std::pair{stratum_op_kind::ffn, "ffn"},
                    std::pair{stratum_op_kind::xpu_ends, "xpu_ends"},   std::pair{stratum_op_kind::lm_head, "lm_head"},
                    std::pair{stratum_op_kind::handoff, "handoff"},     std::pair{stratum_op_kind::static_power, "static_power"}};
}

/// One entry of a Stratum decode step's flat operator list (`stratum_step_result::ops`), as the
/// GPU's `operator_result` lists a step: its name (`L3.attention`, `L3.experts`, `lm_head`), kind,
/// layer (-1 outside the layers), pipeline stage, time on its stage's critical path and energy.
template <class T = double>
struct stratum_op {
  std::string name;
  stratum_op_kind kind{};
  int layer = -1;
  int stage = 0;
  strata::duration<T> time{};
  strata::energy<T> energy{};

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("name", s.name);
    v("kind", s.kind);
    v("layer", s.layer);
    v("stage", s.stage);
    v("time", s.time);
    v("energy", s.energy);
  }
};

/// One decode step on a Stratum system.
template <class T = double>
struct stratum_step_result {
  strata::duration<T> time{};          ///< one step (the slower stage plus the NVLink hand-off)
  strata::energy<T> energy{};          ///< every part, all stages
  energy_parts<T> parts{};             ///< `energy` by part
  strata::duration<T> nmp_time{};      ///< of the slowest stage: NMP invocations
  strata::duration<T> xpu_time{};      ///< of the slowest stage: xPU operators
  strata::duration<T> ffn_time{};      ///< of the slowest stage: the MoE / FFN blocks' pipelines
  strata::duration<T> bandwidth_bound{};  ///< NMP bytes / (chips · fastest-tier bandwidth), slowest stage
  int nmp_invocations = 0;             ///< of the slowest stage: two per layer, one more for an NMP LM head
  int xpu_launches = 0;                ///< of the slowest stage: kernel launches of xPU operators
  /// `time` by mechanism (`time_parts`): the slowest stage's critical path plus the NVLink
  /// hand-off (interposer), summing to `time`; the same with or without the breakdown.
  time_parts<T> composition{};
  T tokens_per_s{};                    ///< B / time
  T tokens_per_joule{};                ///< B / energy
  double hot_hit_rate = 0.0;           ///< expert accesses to the fast pack (routing over layout)
  std::vector<double> expert_tier_share;  ///< share of expert bytes read from each tier
  attention_split split{};
  row_plan plan{};                     ///< the rows of the first stage's chips
  bool feasible = true;                ///< weights, KV and non-NMP data fit the rows
  std::string reason;
  cost<T> breakdown;                   ///< step → stage → layers → blocks (`breakdown_detail`)
  /// With a breakdown (`breakdown_detail` other than `none`): every layer's parts, the step's ends,
  /// the hand-off and the static energy as a flat list in execution order, one entry per layer and
  /// part (about 6 per layer). Within a stage the entries' times add up to the stage's time; the
  /// step's `time` is the slowest stage's plus the hand-off (with one stage: the entries' sum).
  /// The entries' energies add up to `energy`. Empty without a breakdown.
  std::vector<stratum_op<T>> ops;

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("time", s.time);
    v("energy", s.energy);
    v("parts", s.parts);
    v("nmp_time", s.nmp_time);
    v("xpu_time", s.xpu_time);
    v("ffn_time", s.ffn_time);
    v("bandwidth_bound", s.bandwidth_bound);
    v("nmp_invocations", s.nmp_invocations);
    v("xpu_launches", s.xpu_launches);
    v("composition", s.composition);
    v("tokens_per_s", s.tokens_per_s);
    v("tokens_per_J", s.tokens_per_joule);
    v("hot_hit_rate", s.hot_hit_rate);
    v("expert_tier_share", s.expert_tier_share);
    v("split", s.split);
    v("plan", s.plan);
    v("feasible", s.feasible);
    v("reason", s.reason);
    v("ops", s.ops);
  }
};

namespace detail {

/// The xPU of a Stratum system as a roofline machine: its die, with the chips' memory seen
/// through the interposer (bandwidth chips · PHY, latency PHY + slowest tier, energy access +
/// PHY per byte). The die's own parameters are plain numbers (`gpu_params`); the interposer tier
/// carries the scalar of the chips' parameters, so their sensitivities reach the xPU operators.
template <class T>
basic_roofline_machine<T> stratum_xpu_machine(const stratum_system_params<T>& p, const nmp_device<T>& d) {
  auto m = machine_cast<T>(make_machine(p.xpu, 1));
  m.name = p.name + " xPU";
  const auto& slow = d.tiers.back();
  const T c = T(p.chips);
  m.tiers[0] = memory_tier<T>{"interposer", d.capacity() * c, d.phy_bandwidth * c, d.phy_latency + slow.latency,
                              access_energy(d.access) + d.phy_energy, 1};
  m.memory_efficiency = T(1.0);
  return m;
}

/// A tiering table without its first `n` rows (the rows the always-read weights take), so that
/// Algorithm 1 and the row plan work on the rest with the same tier indices.
template <class = void>
inline tiering_table drop_leading_rows(tiering_table t, long long n) {
  for (auto& f : t.first_row) f = std::max(0LL, f - n);
  t.rows = std::max(0LL, t.rows - n);
  return t;
}

/// Share of rows [first, first + rows) of `t` in each tier (all in the last tier if rows is 0).
template <class = void>
inline std::vector<double> interval_shares(const tiering_table& t, long long first, long long rows) {
  std::vector<double> s(static_cast<std::size_t>(t.tiers()), 0.0);
  if (rows <= 0 || t.rows <= 0) {
    s.back() = 1.0;
    return s;
  }
  first = std::min(first, t.rows - 1);
  const long long last = std::min(first + rows - 1, t.rows - 1);
  add_tier_rows(row_interval{first, last}, t, 1.0 / double(last - first + 1), s);
  return s;
}

/// Cost of an xPU operator: roofline time; energy by part (FLOPs on the xPU; bytes through the
/// PHY and out of the arrays).
template <class T>
strata::duration<T> xpu_op(const op& o, const basic_roofline_machine<T>& m, const nmp_device<T>& d, energy_parts<T>& e,
                           time_parts<T>& tp, double times = 1.0) {
  const auto c = cost_of(o, m);
  const T k = T(times);
  tp.fixed += m.op_overhead * k;  // the launch; the rest is the operator's compute or reads
  tp.xpu_ops += (c.time - m.op_overhead) * k;
  e.xpu_dynamic += quantity_cast<T>(o.flops) * m.energy_per_flop * k;
  const strata::data_size<T> b = units::B(T((o.weight_bytes + o.kv_bytes + o.activation_bytes).si()) * k);
  e.phy += b * d.phy_energy;
  add_dram_read(e, d.access, b);
  return c.time * k;
}

/// KV-cache bytes of one layer in a stage at step `s`: B sequences of S + 1 tokens in decode (the
/// new token's entries included), B prompts of S tokens in prefill (what the prefill writes), for
/// each batch in flight (two on a two-stage pipeline, one otherwise).
template <class T>
double kv_bytes_per_layer(const stratum_system_params<T>& p, const model& m, const step_shape& s) {
  const int in_flight = p.stages > 1 ? 2 : 1;
  const double tokens = s.mode == phase::decode ? s.context + 1.0 : double(s.context);
  return double(s.batch) * in_flight * tokens * kv_bytes_per_token_layer(m).in(units::B);
}

/// True when two breakdown nodes carry the same figures (time, energy, bytes, count, columns) all
/// the way down; names are not compared.
template <class T>
bool same_figures(const cost<T>& a, const cost<T>& b) {
  if (value_of(a.time.si()) != value_of(b.time.si()) || value_of(a.energy.si()) != value_of(b.energy.si()) ||
      a.rule != b.rule || a.count != b.count || a.bytes.size() != b.bytes.size() || a.parts.size() != b.parts.size() ||
      a.columns != b.columns) {
    return false;
  }
  for (std::size_t i = 0; i < a.bytes.size(); ++i) {
    if (a.bytes[i].resource != b.bytes[i].resource || value_of(a.bytes[i].bytes.si()) != value_of(b.bytes[i].bytes.si())) {
      return false;
    }
  }
  for (std::size_t i = 0; i < a.parts.size(); ++i) {
    if (!same_figures(a.parts[i], b.parts[i])) return false;
  }
  return true;
}

/// `node` and its parts with the name prefix `from` (a layer's "L0") replaced by `to` ("L13"): a
/// stage times one layer's attention and copies it into every layer of the tree.
template <class T>
void relabel(cost<T>& node, const std::string& from, const std::string& to) {
  if (node.name.compare(0, from.size(), from) == 0 &&
      (node.name.size() == from.size() || node.name[from.size()] == ' ' || node.name[from.size()] == '.')) {
    node.name.replace(0, from.size(), to);
  }
  for (auto& part : node.parts) relabel(part, from, to);
}

/// A stage's layer nodes as runs of identical consecutive layers (`breakdown_detail::layers`):
/// "layer 7", or "layers 3-60" repeating one layer's node 58 times.
template <class T>
struct layer_runs {
  std::vector<cost<T>> nodes;  ///< the finished runs
  cost<T> one;                 ///< the current run's layer
  int first = 0, count = 0;

  void add(int layer, cost<T> node) {
    if (count > 0 && same_figures(one, node)) {
      ++count;
      return;
    }
    flush();
    one = std::move(node);
    first = layer;
    count = 1;
  }
  void flush() {
    if (count == 0) return;
    if (count == 1) {
      one.name = numbered("layer ", first);
      nodes.push_back(std::move(one));
    } else {
      one.name = "layer";
      nodes.push_back(repeat<T>("layers " + std::to_string(first) + "-" + std::to_string(first + count - 1), std::move(one),
                                static_cast<std::size_t>(count)));
    }
    count = 0;
  }
};

/// Bytes of weights a block's work list reads (each entry × its weight).
template <class T>
strata::data_size<T> block_weight_bytes(const std::vector<expert_work<T>>& work) {
  strata::data_size<T> b{};
  for (const auto& w : work) {
    if (!(value_of(w.weight) > 0.0) || !(value_of(w.tokens) > 0.0)) continue;
    b += units::B(T((w.gated ? 3.0 : 2.0) * double(w.hidden) * double(w.inter) * (w.weight_bits / 8.0)) * w.weight);
  }
  return b;
}

}  // namespace detail

/// Bytes of the FFN weights every token of a layer reads, whatever the routing: a MoE layer's
/// shared experts with their gate (0 without), or a dense layer's FFN.
template <class = void>
inline double always_read_ffn_bytes(const model& m, bool moe_layer) {
  const double wb = m.weight_bits / 8.0;
  if (!moe_layer) return double(ffn_params(m.ffn, m.hidden, m.dense_ffn)) * wb;
  if (m.shared_experts <= 0) return 0.0;
  return (double(m.shared_experts) * double(ffn_params(m.ffn, m.hidden, m.shared_expert_ffn)) +
          (m.shared_expert_gate ? m.hidden : 0.0)) * wb;
}

/// The rows of one stage's chips (file comment): the always-read weights first, then Algorithm 1
/// and the row plan on the rest, with the tier shares of the weights and of the KV cache.
struct stratum_stage_rows {
  int first_layer = 0, last_layer = 0;  ///< decoder layers [first, last) of the stage
  int moe_first = 0;                    ///< index of its first MoE layer among all MoE layers
  int moe_layers = 0;                   ///< its MoE layers
  long long weight_rows = 0;            ///< rows per bank of the always-read weights
  tiering_table table;                  ///< the chip's rows
  tiering_table rest;                   ///< the rows after the always-read weights
  expert_placement_params<> experts{};  ///< Algorithm 1's inputs (Φ from the plan)
  row_plan plan;                        ///< the rows of the four data classes (in `rest`)
  expert_layout layout;                 ///< Algorithm 1's intervals (in `rest`)
  std::vector<double> weight_shares;    ///< tier shares of the always-read weights
  std::vector<double> kv_shares;        ///< tier shares of the KV cache
  /// Expert parallel (`mapping.experts`): each routed expert's chip, and Algorithm 1 on each
  /// chip (`layout` gathers them, `plan` is the fullest chip's). Empty with `all_chips`.
  expert_chips chips;
  std::vector<expert_layout> chip_layouts;
  std::vector<row_plan> chip_plans;
};

/// The rows of stage `stage` of system `p` (device `d`) for model `m` at `s`, with the experts
/// placed by usage table `place` (all MoE layers; empty only for a dense model).
/// `chips_from` (expert parallel): keep that placement's assignment of experts to chips (a topic
/// switch re-places experts inside each chip only; `chip_assignment.hpp`).
/// `kept` (expert parallel): earlier assignments and chip layouts (`expert_chips_keep`).
template <class T>
stratum_stage_rows stratum_stage_layout(const stratum_system_params<T>& p, const nmp_device<T>& d, const model& m,
                                        const step_shape& s, const usage_table& place, int stage,
                                        const tiering_table* prepared = nullptr,
                                        const expert_chips* chips_from = nullptr,
                                        expert_chips_keep* kept = nullptr) {
  stratum_stage_rows out;
  const int c = p.chips, L = m.layers;
  const bool moe = m.experts > 0;
  const double wb = m.weight_bits / 8.0;
  const auto pc = count_params(m);
  const double per_expert_b = double(pc.per_expert) * wb;
  const double attn_b = double(attention_params(m)) / L * wb;  // per layer
  const double shared_b = always_read_ffn_bytes(m, true);
  const double dense_b = always_read_ffn_bytes(m, false);
  const double kv_layer_b = detail::kv_bytes_per_layer(p, m, s);
  // The LM head's matrix (vocab × hidden; the embedding table itself when tied): NMP data read
  // every step on the last stage when the head runs on the NMP (`lm_head_placement`), else
  // non-NMP data with the embedding table and the norm scales.
  const double head_b = p.lm_head == lm_head_placement::nmp ? double(m.vocab) * m.hidden * wb : 0.0;
  const double non_nmp_b = ((double(pc.embedding) + 2.0 * m.hidden * L + m.hidden) * wb - head_b) / p.stages;
  out.table = prepared != nullptr ? *prepared : make_tiering_table(d.tiers, d.banks(), p.nmp.chip.memory.bank_access_bytes);
  const auto& table = out.table;
  const double rb = table.row_bytes();
  const int stage_layers = (L + p.stages - 1) / p.stages;
  const int l0 = stage * stage_layers, l1 = std::min(L, l0 + stage_layers);
  out.first_layer = l0;
  out.last_layer = l1;
  int moe0 = 0, moe_n = 0;
  double always_b = 0.0;
  for (int l = 0; l < L; ++l) {
    const bool is_moe = m.is_moe_layer(l);
    if (l < l0 && is_moe) ++moe0;
    if (l >= l0 && l < l1) {
      always_b += attn_b + (is_moe ? shared_b : dense_b);
      moe_n += is_moe ? 1 : 0;
    }
  }
  if (l1 == L) always_b += head_b;  // the last stage runs the head
  out.moe_first = moe0;
  out.moe_layers = moe_n;
  const long long w_rows = detail::ceil_rows(always_b / c / rb);
  out.weight_rows = w_rows;
  out.rest = detail::drop_leading_rows(table, w_rows);
  const auto& rest = out.rest;
  out.weight_shares = detail::interval_shares(table, 0, w_rows);
  auto& plan = out.plan;
  const double kv_chip_b = kv_layer_b * (l1 - l0) / c;
  if (moe && moe_n > 0) {
    auto& ep = out.experts;
    ep.layers = moe_n;
    ep.experts = m.experts;
    ep.active = m.top_k;
    ep.expert_bytes = units::B(per_expert_b / c);
    ep.banks = d.banks();
    ep.row_buffer = units::B(value_of(p.nmp.chip.memory.bank_access_bytes.si()));
    const usage_table stage_place(place.begin() + moe0, place.begin() + moe0 + moe_n);
    if (p.mapping.experts == expert_split::expert_parallel) {
      // Whole experts on their chips (chip_assignment.hpp); the plan is the fullest chip's: the
      // first that does not fit, else the one whose KV gap is smallest.
      ep.expert_bytes = units::B(per_expert_b);
      if (chips_from != nullptr && !chips_from->empty()) {
        out.chips = *chips_from;
      } else {
        const double knee = value_of(d.chip_peak().si()) * wb / (2.0 * value_of(d.tiers.front().bandwidth.si()));
        out.chips = assign_experts(stage_place, c, s.batch, knee, m.top_k, kept);
      }
      out.chip_plans = chip_plans(out.chips, rest, ep, units::B(kv_chip_b), units::B(non_nmp_b / c));
      std::size_t bind = 0;
      for (std::size_t j = 1; j < out.chip_plans.size(); ++j) {
        const auto& a = out.chip_plans[j];
        const auto& b = out.chip_plans[bind];
        if (!b.feasible) break;
        if (!a.feasible || a.kv_region.rows() < b.kv_region.rows()) bind = j;
      }
      plan = out.chip_plans[bind];
      ep.phi = std::max(plan.phi, 1LL);
      bool all_fit = true;
      for (const auto& cp : out.chip_plans) all_fit = all_fit && cp.feasible;
      if (all_fit) {
        auto [per_chip, combined] = chip_layouts(out.chips, stage_place, ep, m.top_k, kept);
        out.chip_layouts = std::move(per_chip);
        out.layout = std::move(combined);
      }
    } else {
      plan = plan_rows(rest, ep, units::B(kv_chip_b), units::B(non_nmp_b / c));
      ep.phi = std::max(plan.phi, 1LL);
      if (plan.feasible) out.layout = place_experts(ep, stage_place);
    }
    out.kv_shares = detail::interval_shares(table, w_rows + plan.kv_region.first, std::max(1LL, plan.kv_rows));
  } else {
    plan.rows = rest.rows;
    plan.kv_rows = detail::ceil_rows(kv_chip_b / rb);
    plan.non_nmp_rows = detail::ceil_rows(non_nmp_b / c / rb);
    plan.phi = plan.rows - plan.non_nmp_rows;
    plan.kv_region = {0, plan.phi - 1};
    plan.feasible = plan.kv_rows + plan.non_nmp_rows <= plan.rows;
    if (!plan.feasible) {
      plan.reason = "KV cache needs " + std::to_string(plan.kv_rows) + " rows per bank and non-NMP data " +
                    std::to_string(plan.non_nmp_rows) + ", " + std::to_string(plan.rows) + " rows remain";
    }
    out.kv_shares = detail::interval_shares(table, w_rows, std::max(1LL, plan.kv_rows));
  }
  if (w_rows > table.rows) {
    plan.feasible = false;
    plan.reason = "always-read weights need " + std::to_string(w_rows) + " rows per bank, the chip has " +
                  std::to_string(table.rows);
  }
  return out;
}

/// A system prepared for evaluation: its device, its xPU as a roofline machine and its rows,
/// computed once (a sweep over batches or contexts reuses it).
template <class T = double>
struct stratum_machine {
  stratum_system_params<T> params{};
  nmp_device<T> device{};
  basic_roofline_machine<T> xpu{};
  tiering_table table{};  ///< the chip's rows (`make_tiering_table` of the device's tiers)
};

/// Prepares system `p` (checks it and evaluates its chip once).
template <class T>
stratum_machine<T> prepare(const stratum_system_params<T>& p) {
  stratum_machine<T> sm;
  sm.params = p;
  sm.device = system_device(p);
  sm.xpu = detail::stratum_xpu_machine(p, sm.device);
  sm.table = make_tiering_table(sm.device.tiers, sm.device.banks(), p.nmp.chip.memory.bank_access_bytes);
  return sm;
}

template <class T>
stratum_step_result<T> evaluate_decode(const stratum_machine<T>& sm, const model& m, const step_shape& s,
                                       const stratum_usage& u = {}, decode_breakdown with_breakdown = {});

/// Evaluates one decode step of `m` at `s` on system `p` (prepares it first; see the
/// `stratum_machine` overload to prepare once for many steps).
template <class T>
stratum_step_result<T> evaluate_decode(const stratum_system_params<T>& p, const model& m, const step_shape& s,
                                       const stratum_usage& u = {}, decode_breakdown with_breakdown = {}) {
  return evaluate_decode(prepare(p), m, s, u, with_breakdown);
}

/// Evaluates one decode step of `m` at `s` (decode, B sequences, context S) on system `p`.
/// Infeasible placements are results (`feasible`, `reason`), still timed.
/// The rows of a model on a prepared system, one entry per stage: what the memory mapper sets up
/// before a batch (Stratum §5.2, §6) and the decode steps of the batch reuse.
struct stratum_placement {
  std::vector<stratum_stage_rows> stages;
  usage_table placed_by;  ///< the usage table Algorithm 1 placed the experts by
};

/// Places `m` on `sm` for steps up to shape `s` (its KV cache sized for `s`), the experts by
/// usage table `place` (empty: uniform).
/// `chips_from` (expert parallel): keep its assignment of experts to chips, stage by stage.
/// `kept` (expert parallel): the assignments and chip layouts of earlier placements, taken when
/// their inputs are this placement's and kept otherwise (`expert_chips_keep`; the same placement
/// either way).
template <class T>
stratum_placement place_model(const stratum_machine<T>& sm, const model& m, const step_shape& s,
                              const usage_table& place = {}, const stratum_placement* chips_from = nullptr,
                              expert_chips_keep* kept = nullptr) {
  validate(m);
  validate(s);
  const int moe_layers = m.moe_layers();
  stratum_placement out;
  if (m.experts > 0) {
    if (!place.empty()) validate_usage(place, moe_layers, m.experts);
    out.placed_by = place.empty() ? uniform_usage(moe_layers, m.experts, m.top_k) : place;
  }
  const int stage_layers = (m.layers + sm.params.stages - 1) / sm.params.stages;
  for (int st = 0; st < sm.params.stages && st * stage_layers < m.layers; ++st) {
    const auto i = static_cast<std::size_t>(st);
    const expert_chips* keep = chips_from != nullptr && i < chips_from->stages.size() ? &chips_from->stages[i].chips : nullptr;
    out.stages.push_back(stratum_stage_layout(sm.params, sm.device, m, s, out.placed_by, st, &sm.table, keep, kept));
  }
  return out;
}

/// A topic switch from placement `a` to `b` of one stage (Stratum §5.2 lines 141–143,
/// `row_swap.hpp`): {time, energy} of every chip of the stage swapping at the same time. With
/// `all_chips` every chip does the same swaps on its shard; expert parallel, each chip swaps its
/// own experts (`b` must keep `a`'s assignment: `place_model`'s `chips_from`), the time the
/// slowest chip's.
template <class T>
std::pair<double, double> stage_swap_cost(const stratum_stage_rows& a, const stratum_stage_rows& b,
                                          const std::vector<memory_tier<T>>& tiers, int chips) {
  if (a.chip_layouts.empty() || b.chip_layouts.empty()) {
    const auto sw = row_swap_cost(a.layout, b.layout, a.rest, tiers);
    return {value_of(sw.time.si()), value_of(sw.energy.si()) * chips};
  }
  detail::require(a.chips.chip == b.chips.chip, "strata.stratum", "chips_from", 0,
                  "the same assignment of experts to chips in both placements (a topic switch stays in the chips)");
  double t = 0.0, e = 0.0;
  for (std::size_t j = 0; j < a.chip_layouts.size(); ++j) {
    if (a.chip_layouts[j].experts == 0) continue;
    const auto sw = row_swap_cost(a.chip_layouts[j], b.chip_layouts[j], a.rest, tiers);
    t = std::max(t, value_of(sw.time.si()));
    e += value_of(sw.energy.si());
  }
  return {t, e};
}

template <class T>
stratum_step_result<T> evaluate_decode(const stratum_machine<T>& sm, const stratum_placement& placement,
                                       const model& m, const step_shape& s, const usage_table& routing = {},
                                       decode_breakdown with_breakdown = {});

template <class T>
stratum_step_result<T> evaluate_decode(const stratum_machine<T>& sm, const model& m, const step_shape& s,
                                       const stratum_usage& u, decode_breakdown with_breakdown) {
  return evaluate_decode(sm, place_model(sm, m, s, u.placed_by()), m, s, u.routing, with_breakdown);
}

/// Evaluates one decode step of `m` at `s` on a prepared system with a placement made for it
/// (`place_model`), tokens routing by `routing` (empty: uniform).
template <class T>
stratum_step_result<T> evaluate_decode(const stratum_machine<T>& sm, const stratum_placement& placement,
                                       const model& m, const step_shape& s, const usage_table& routing,
                                       decode_breakdown breakdown) {
  constexpr const char* id = "strata.stratum";
  const bool with_breakdown = breakdown.any();
  const auto& p = sm.params;
  validate(m);
  validate(s);
  detail::require(s.mode == phase::decode, id, "mode", "prefill", "decode (prefill runs on the xPU)");
  const auto& d = sm.device;
  const auto& xm = sm.xpu;
  const int c = p.chips, L = m.layers, B = s.batch;
  const int moe_layers = m.moe_layers();
  const bool moe = m.experts > 0;
  if (!routing.empty()) validate_usage(routing, moe_layers, m.experts);
  const usage_table uniform = moe && routing.empty() ? uniform_usage(moe_layers, m.experts, m.top_k) : usage_table{};
  const usage_table& route = routing.empty() ? uniform : routing;
  const int stage_layers = (L + p.stages - 1) / p.stages;
  detail::require(static_cast<int>(placement.stages.size()) == (L + stage_layers - 1) / stage_layers, id,
                  "placement.stages", placement.stages.size(), "one per stage of the system (place_model)");

  stratum_step_result<T> r;
  if (with_breakdown) r.ops.reserve(6 * static_cast<std::size_t>(L) + 4 + static_cast<std::size_t>(p.stages));
  if (!d.feasible) {
    r.feasible = false;
    r.reason = p.name + ": the chip's logic die is infeasible: " + d.reason;
  }
  const double wb = m.weight_bits / 8.0;
  const double per_expert_b = double(count_params(m).per_expert) * wb;
  const double kv_layer_b = detail::kv_bytes_per_layer(p, m, s);

  // xPU operators of one layer (the same in every layer) and of the step's ends, from a one-layer
  // copy of the model whose layer is a MoE layer when the model has experts.
  model one = m;
  one.layers = 1;
  one.first_dense_layers = 0;
  one.moe_layer_step = 1;
  one.moe_layer_offset = 0;
  // Per-layer attention kinds do not survive the one-layer copy: a Stratum step takes every layer
  // as full attention (its KV bytes per layer are the whole context's), an upper bound for a
  // model with sliding layers.
  one.layer_attention.clear();
  one.sliding_window = 0;
  const auto ops = step_operators(one, s);
  // The GPU's operators, each where `stratum_op_place` runs it: the xPU's of a layer (its norms,
  // each with the residual add before it fused in, as the GPU's; the router apart, MoE layers
  // only) and of the step's ends (embedding, final norm, and the LM head when it is the xPU's).
  std::vector<const op*> per_layer_xpu, ends_xpu;
  const op* router = nullptr;
  const bool head_on_nmp = stratum_op_place(p, op_kind::lm_head) == op_place::nmp;
  for (const auto& o : ops) {
    if (stratum_op_place(p, o.kind) != op_place::xpu) continue;
    if (o.kind == op_kind::router) {
      if (router == nullptr) router = &o;
    } else if (o.layer < 0) {
      ends_xpu.push_back(&o);
    } else if (o.layer == 0) {
      per_layer_xpu.push_back(&o);
    }
  }
  // One NMP invocation: an xPU kernel launch, mode entry and exit, the completion poll.
  const strata::duration<T> nmp_call = nmp_invocation_time(p, d);

  r.time = {};
  energy_parts<T> total{};
  std::vector<cost<T>> stage_costs;
  strata::duration<T> slowest{};
  double hit_num = 0.0, hit_den = 0.0;
  std::vector<double> tier_traffic(d.tiers.size(), 0.0);
  std::vector<expert_work<T>> work;
  for (int st = 0; st < p.stages; ++st) {
    const int l0 = st * stage_layers, l1 = std::min(L, l0 + stage_layers);
    if (l0 >= l1) break;
    // The stage's rows as placed (read only); its plan copied, which this step's KV check below
    // may mark infeasible (a copy of the whole stage, its tables and layouts, cost more than the
    // rest of a step of a small model).
    const auto& lay = placement.stages[static_cast<std::size_t>(st)];
    const int moe0 = lay.moe_first, moe_n = lay.moe_layers;
    const auto& rest = lay.rest;
    const auto& w_shares = lay.weight_shares;
    const auto& kv_shares = lay.kv_shares;
    row_plan plan = lay.plan;
    const auto& layout = lay.layout;
    // The placement reserved KV rows for its own shape: this step's KV must fit them.
    const long long kv_rows_now = detail::ceil_rows(kv_layer_b * (l1 - l0) / c / lay.table.row_bytes());
    if (plan.feasible && kv_rows_now > std::max(plan.kv_rows, plan.kv_region.rows())) {
      plan.feasible = false;
      plan.reason = "KV cache needs " + std::to_string(kv_rows_now) + " rows per bank, the placement reserved " +
                    std::to_string(std::max(plan.kv_rows, plan.kv_region.rows()));
    }
    if (st == 0) r.plan = plan;
    if (!plan.feasible && r.feasible) {
      r.feasible = false;
      r.reason = p.name + " stage " + std::to_string(st) + ": " + plan.reason;
    }
    // Infeasible rows: time every expert from where it would stream slowest, so the step is
    // still a (pessimistic) number.
    const bool placed = moe && moe_n > 0 && layout.feasible && plan.feasible;

    energy_parts<T> stage_e{}, attn_e{};  // attention of one layer: the same in every layer of a stage
    time_parts<T> stage_tp{}, attn_tp{}, io_tp{};  // the stage's time by mechanism; per layer: attention, NMP I/O
    attention_split split;
    detail::layer_runs<T> runs;
    const auto attn_one =
        attention_decode_cost(d, c, m, B, s.context, w_shares, kv_shares, l0, p.mapping, &attn_e, &split, with_breakdown, &attn_tp);
    if (st == 0) r.split = split;
    const T ids_b = T(double(B) * m.top_k * 6.0);  // 4-byte expert id + 2-byte gate per routing
    energy_parts<T> io_e{};
    const auto io_attn =
        moe_input_cost(d, c, T(double(B)), m.hidden, s.activation_bits, strata::data_size<T>{}, &io_e, with_breakdown, &io_tp);
    const auto io_ffn =
        moe_input_cost(d, c, T(double(B)), m.hidden, s.activation_bits, units::B(ids_b), &io_e, with_breakdown, &io_tp);
    strata::duration<T> t_nmp{}, t_xpu{}, t_ffn_all{};
    strata::data_size<T> nmp_bytes{};
    int invocations = 0, launches = 0;
    int moe_index = moe0;
    for (int l = l0; l < l1; ++l) {
      energy_parts<T> le{}, xe{};  // the layer's NMP energy; its xPU operators' energy
      strata::duration<T> tx{};
      for (const op* o : per_layer_xpu) tx += detail::xpu_op(*o, xm, d, xe, stage_tp);
      launches += static_cast<int>(per_layer_xpu.size());
      invocations += 2;
      stage_tp.fixed += nmp_call * T(2);
      stage_tp += attn_tp;
      stage_tp += io_tp;
      stage_e += attn_e;
      stage_e += io_e;
      strata::duration<T> tn = nmp_call * T(2) + io_attn.time + io_ffn.time + attn_one.time;
      nmp_bytes += attn_one.bytes_on("nmp.weights") + attn_one.bytes_on("nmp.kv");
      // The FFN block's work list.
      // The FFN block's work list, reusing `work`'s storage from layer to layer.
      std::size_t nw = 0;
      const auto next = [&]() -> expert_work<T>& {
        if (nw == work.size()) work.emplace_back();
        expert_work<T>& w = work[nw++];
        w.tokens = T(double(B));
        w.hidden = m.hidden;
        w.gated = m.ffn == ffn_kind::swiglu;
        w.weight_bits = m.weight_bits;
        w.act_bits = s.activation_bits;
        w.weight = T(1);
        w.layer = l;
        w.expert = -1;
        w.chip = -1;
        return w;
      };
      const auto add_always = [&](int inter, int count) {
        expert_work<T>& w = next();
        w.inter = inter * count;
        w.shares.assign(w_shares.begin(), w_shares.end());
      };
      const bool is_moe = m.is_moe_layer(l);
      if (is_moe) {
        tx += detail::xpu_op(*router, xm, d, xe, stage_tp);
        ++launches;
        if (m.shared_experts > 0) add_always(m.shared_expert_ffn, m.shared_experts);
        const int li = moe_index - moe0;
        const auto& fr = route[static_cast<std::size_t>(moe_index)];
        double last_f = -1.0, last_pr = 0.0;
        for (int e = 0; e < m.experts; ++e) {
          const double f = fr[static_cast<std::size_t>(e)];
          if (f <= 0.0) continue;
          // P(at least one of B tokens picks it); usage tables repeat their values, so the last
          // one is kept.
          if (f != last_f) {
            last_f = f;
            last_pr = 1.0 - std::pow(1.0 - std::min(f, 1.0), double(B));
          }
          const double pr = last_pr;
          expert_work<T>& w = next();
          w.tokens = T(double(B) * f / pr);
          w.inter = m.expert_ffn;
          w.weight = T(pr);
          w.expert = e;
          if (!lay.chips.empty()) w.chip = lay.chips.chip[static_cast<std::size_t>(li) * static_cast<std::size_t>(m.experts) + static_cast<std::size_t>(e)];
          w.shares.assign(d.tiers.size(), 0.0);
          if (placed) {
            const auto& iv = layout.intervals[static_cast<std::size_t>(li) * static_cast<std::size_t>(m.experts) + static_cast<std::size_t>(e)];
            detail::add_tier_rows(iv, rest, 1.0 / static_cast<double>(iv.rows()), w.shares);
            hit_num += f * (layout.is_fast(li, e) ? 1.0 : 0.0);
          } else {
            w.shares.back() = 1.0;
          }
          for (std::size_t i = 0; i < w.shares.size(); ++i) tier_traffic[i] += pr * w.shares[i];
          hit_den += f;
          nmp_bytes += units::B(T(per_expert_b * pr));
        }
        ++moe_index;
      } else {
        add_always(m.dense_ffn, 1);
      }
      for (std::size_t i = nw; i < work.size(); ++i) work[i].weight = T(0);  // unused this layer
      for (const auto& w : work) {
        if (w.expert < 0) nmp_bytes += units::B(T(double(w.inter) * m.hidden * (w.gated ? 3.0 : 2.0) * wb));
      }
      // The block's time, energy and composition from one function, with or without the tree.
      const strata::duration<T> t_ffn = moe_block_time(d, c, work, p.mapping, &le, false, &stage_tp);
      if (with_breakdown) {
        // The block as one node, its time and energy those above; its experts as columns when asked.
        auto blk = cost<T>::leaf(is_moe ? "experts" : "FFN", t_ffn, le.total(), {},
                                 "Fig. 9 pipeline per chip (expert_parallel: the expected slowest chip; all_chips: one pipeline), stratum/expert_mapping.hpp");
        blk.add_bytes("nmp.weights", detail::block_weight_bytes(work));
        if (is_moe && breakdown.detail == breakdown_detail::experts) blk.columns = moe_layer_columns(d, c, work, p.mapping);
        auto attn_l = attn_one;
        if (l != l0) detail::relabel(attn_l, detail::numbered("L", l0), detail::numbered("L", l));
        const auto op_at = [&](const char* part, stratum_op_kind kind, strata::duration<T> t, strata::energy<T> e) {
          std::string name = detail::numbered("L", l, ".");
          name += part;
          r.ops.push_back({std::move(name), kind, l, st, t, e});
        };
        op_at("xpu", stratum_op_kind::xpu_layer, tx, xe.total());
        op_at("nmp_calls", stratum_op_kind::nmp_calls, nmp_call * T(2), {});
        op_at("nmp_io_attention", stratum_op_kind::nmp_io, io_attn.time, io_attn.energy);
        op_at("attention", stratum_op_kind::attention, attn_one.time, attn_one.energy);
        op_at("nmp_io_ffn", stratum_op_kind::nmp_io, io_ffn.time, io_ffn.energy);
        op_at(is_moe ? "experts" : "ffn", is_moe ? stratum_op_kind::experts : stratum_op_kind::ffn, t_ffn, le.total());
        auto lc = seq<T>(detail::numbered("layer ", l),
                         std::vector<cost<T>>{cost<T>::leaf("xPU: norms (residual adds fused), router", tx, xe.total(), {},
                                        "roofline on the xPU die (workload/roofline.hpp)"),
                          cost<T>::leaf("NMP calls", nmp_call * T(2), {}, {}, "xPU kernel launch + 2 tMRD (mode entry, exit) + one status read (completion poll) per invocation"), io_attn,
                          std::move(attn_l), io_ffn, std::move(blk)});
        runs.add(l, std::move(lc));
      }
      tn += t_ffn;
      t_ffn_all += t_ffn;
      stage_e += le;
      stage_e += xe;
      t_nmp += tn;
      t_xpu += tx;
    }
    // The ends of the step on the xPU: embedding, final norm, and the LM head when it is the
    // xPU's (on the last stage).
    strata::duration<T> t_ends{};
    energy_parts<T> ends_e{};
    if (st == 0 || st == p.stages - 1) {
      for (const op* o : ends_xpu) {
        const bool here = (o->kind == op_kind::embedding) ? st == 0 : st == p.stages - 1;
        if (here) {
          t_ends += detail::xpu_op(*o, xm, d, ends_e, stage_tp);
          ++launches;
        }
      }
    }
    t_xpu += t_ends;
    stage_e += ends_e;
    // The LM head on the NMP (last stage): one more invocation, its rows with the always-read
    // weights (`head_mapping.hpp`).
    cost<T> head_node;
    if (head_on_nmp && st == p.stages - 1) {
      head_work<T> hw;
      hw.tokens = T(double(B));
      hw.hidden = m.hidden;
      hw.vocab = m.vocab;
      hw.weight_bytes = storage_bits(m, m.embedding_format) / 8.0;
      hw.act_bits = s.activation_bits;
      hw.shares = w_shares;
      const auto ht = lm_head_times(d, c, hw);
      const auto t_head = nmp_call + ht.total();
      ++invocations;
      stage_tp.fixed += nmp_call;
      stage_tp.interposer += ht.input + ht.output;
      stage_tp.ring += ht.gather;
      (ht.stream_bound ? stage_tp.weight_stream : stage_tp.nmp_compute) += ht.gemm;
      stage_tp.nmp_compute += ht.reduce;
      stage_e += ht.energy;
      nmp_bytes += ht.weight_bytes;
      t_nmp += t_head;
      if (with_breakdown) {
        head_node = cost<T>::leaf("NMP: LM head", t_head, ht.energy.total(), {{"nmp.weights", ht.weight_bytes}},
                                  "one NMP invocation + input, all-gather, GEMM (weight stream or tensor core), "
                                  "reduction tree, logits read (stratum/head_mapping.hpp)");
      }
    }
    const strata::duration<T> t_stage = t_nmp + t_xpu;
    const auto bound = nmp_bytes / (d.tiers.front().bandwidth * T(double(c)));
    if (t_stage > slowest) {
      slowest = t_stage;
      r.nmp_invocations = invocations;
      r.xpu_launches = launches;
      r.nmp_time = t_nmp;
      r.xpu_time = t_xpu;
      r.ffn_time = t_ffn_all;
      r.composition = stage_tp;
    }
    r.bandwidth_bound = detail::max_of(r.bandwidth_bound, bound);
    total += stage_e;
    if (with_breakdown) {
      runs.flush();
      if (st == 0 || st == p.stages - 1) {
        r.ops.push_back({head_on_nmp ? "embedding_final_norm" : "embedding_final_norm_lm_head", stratum_op_kind::xpu_ends,
                         -1, st, t_ends, ends_e.total()});
      }
      if (head_on_nmp && st == p.stages - 1) r.ops.push_back({"lm_head", stratum_op_kind::lm_head, -1, st, head_node.time, head_node.energy});
      runs.nodes.push_back(cost<T>::leaf(head_on_nmp ? "xPU: embedding, final norm" : "xPU: embedding, final norm, LM head",
                                         t_ends, ends_e.total(), {}, "roofline on the xPU die over the interposer"));
      if (head_on_nmp && st == p.stages - 1) runs.nodes.push_back(std::move(head_node));
      stage_costs.push_back(seq(detail::numbered("stage ", st), std::move(runs.nodes)));
    }
  }
  // Hand-off between stages over NVLink: the hidden states of the batch, once per stage boundary.
  strata::duration<T> handoff{};
  strata::energy<T> handoff_e{};
  if (p.stages > 1) {
    const double bytes = double(B) * m.hidden * s.activation_bits / 8.0;
    handoff = strata::duration<T>::from_si(T(p.xpu.link_latency.si() + bytes / p.xpu.link_bandwidth.si()));
    handoff_e = strata::energy<T>::from_si(T(bytes * (p.stages - 1) * p.xpu.link_energy.si()));
    total.xpu_dynamic += handoff_e;
  }
  r.time = slowest + handoff;
  r.composition.interposer += handoff;
  const T units_total = T(double(c * p.stages));
  total.nmp_static += d.static_power * r.time * units_total;
  total.refresh += d.refresh_power * r.time * units_total;
  // The xPU die: at least its static power; while the NMP runs, its waiting power
  // (`xpu_while_nmp`: idle, max(static, fraction · TDP); tdp, its TDP).
  const T p_static = T(p.xpu.static_power.si());
  const T p_wait = p.xpu_while_nmp_power == xpu_while_nmp::tdp
                       ? T(p.xpu.tdp.si())
                       : detail::max_of(p_static, p.xpu_wait_power_fraction * T(p.xpu.tdp.si()));
  total.xpu_static += strata::energy<T>::from_si((p_static * (r.time.si() - r.nmp_time.si()) + p_wait * r.nmp_time.si()) *
                                                 T(double(p.stages)));
  r.parts = total;
  r.energy = total.total();
  r.tokens_per_s = T(double(B)) / r.time.si();
  r.tokens_per_joule = T(double(B)) / r.energy.si();
  r.hot_hit_rate = hit_den > 0.0 ? hit_num / hit_den : 0.0;
  double tt = 0.0;
  for (double x : tier_traffic) tt += x;
  r.expert_tier_share = tier_traffic;
  if (tt > 0.0) {
    for (double& x : r.expert_tier_share) x /= tt;
  }
  if (with_breakdown) {
    if (p.stages > 1) r.ops.push_back({"nvlink_handoff", stratum_op_kind::handoff, -1, p.stages - 1, handoff, handoff_e});
    r.ops.push_back({"static_power", stratum_op_kind::static_power, -1, 0, {}, total.nmp_static + total.refresh + total.xpu_static});
    stage_costs.push_back(cost<T>::leaf("NVLink hand-off", handoff, handoff_e, {}, "latency + bytes / NVLink; bytes × NVLink energy"));
    r.breakdown = (p.stages > 1 ? overlap<T>("stages (pipelined)", std::vector<cost<T>>(stage_costs.begin(), stage_costs.end() - 1))
                                : std::move(stage_costs.front()));
    r.breakdown = seq<T>("decode step on " + p.name,
                         std::vector<cost<T>>{std::move(r.breakdown), stage_costs.back(),
                          cost<T>::leaf("static power", {}, total.nmp_static + total.refresh + total.xpu_static, {},
                                        "(NMP static + DRAM refresh) × chips + xPU static, × step time")});
  }
  return r;
}

/// Prefill of `m` at `s` (prefill, B prompts of S tokens) on the xPU die of `p`, reading its
/// weights over the interposer (Stratum §3.1: the compute mapper gives prefill to the xPU).
/// Capacity as in decode: the prefill writes the KV cache of its B·S tokens into the chips' rows
/// beside the weights and the non-NMP data (`place_model` at `s`, experts placed uniformly); a
/// stage whose rows do not hold them makes the result infeasible (`feasible`, `reason` naming the
/// stage and the rows), still timed.
template <class T>
basic_step_result<T> evaluate_prefill(const stratum_system_params<T>& p, const model& m, const step_shape& s) {
  detail::require(s.mode == phase::prefill, "strata.stratum", "mode", "decode", "prefill");
  const auto sm = prepare(p);
  auto r = evaluate(step_operators(m, s), s, m.hidden, sm.xpu);
  const auto placement = place_model(sm, m, s);
  for (std::size_t st = 0; st < placement.stages.size(); ++st) {
    const auto& plan = placement.stages[st].plan;
    if (!plan.feasible) {
      r.feasible = false;
      r.reason = p.name + " stage " + std::to_string(st) + ": " + plan.reason;
      break;
    }
  }
  return r;
}

}  // namespace v0
}  // namespace strata

// strata::compiled (STRATA_BUILD_COMPILED, src/compiled.cpp) holds the `double` instantiations
// below; STRATA_COMPILED=1, which that target puts on its users, keeps their translation units
// from instantiating them again. Without it this header is unchanged (header-only).
#if defined(STRATA_COMPILED) && STRATA_COMPILED
namespace strata {
inline namespace v0 {
extern template void validate(const stratum_system_params<double>&);
extern template nmp_device<double> system_device(const stratum_system_params<double>&);
extern template stratum_machine<double> prepare(const stratum_system_params<double>&);
extern template stratum_placement place_model(const stratum_machine<double>&, const model&, const step_shape&,
                                              const usage_table&, const stratum_placement*, expert_chips_keep*);
extern template stratum_step_result<double> evaluate_decode(const stratum_machine<double>&, const stratum_placement&,
                                                            const model&, const step_shape&, const usage_table&,
                                                            decode_breakdown);
extern template stratum_step_result<double> evaluate_decode(const stratum_machine<double>&, const model&,
                                                            const step_shape&, const stratum_usage&, decode_breakdown);
extern template stratum_step_result<double> evaluate_decode(const stratum_system_params<double>&, const model&,
                                                            const step_shape&, const stratum_usage&, decode_breakdown);
extern template basic_step_result<double> evaluate_prefill(const stratum_system_params<double>&, const model&,
                                                           const step_shape&);
}  // namespace v0
}  // namespace strata
#endif
