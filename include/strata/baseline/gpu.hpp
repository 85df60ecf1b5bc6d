// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The GPU baseline of the Stratum comparison (Stratum §7, Table 2): an H100 SXM5 or RTX A6000
/// running vLLM, seen through the roofline evaluator (`workload/roofline.hpp`), plus the memory
/// fit check that decides how many tensor-parallel GPUs a model needs.
///
/// A `gpu_params` is one card: peaks from the datasheet, energies from the memory and link
/// literature, and a handful of factors that stand in for the serving software. `make_machine`
/// turns it into a `roofline_machine` of `devices` cards in tensor parallel with one memory tier
/// (named by `memory_tier_name`, "hbm" or "gddr6") holding every data class.
///
/// What stands in for vLLM (0.8.1 in the paper; Stratum §7):
/// - its **kernels**: `compute_efficiency` (achievable fraction of the dense tensor peak: cuBLAS /
///   CUTLASS GEMMs, the fused-MoE kernel) and `memory_efficiency` (achievable fraction of the
///   memory bandwidth: decode GEMVs, paged attention) — both *calibration knobs*, defaulting to
///   measured best-case figures and to be calibrated against the `stratum.system.*` rows;
/// - its **launches**: `op_overhead` per operator (kernel launch and inter-kernel gaps; vLLM
///   replays decode from CUDA graphs, which shortens but does not remove them) — calibration knob;
/// - its **collectives**: the ring all-reduce of the evaluator over `link_bandwidth` and
///   `link_latency` (NCCL; `link_latency` is calibrated to a measured 2-GPU all-reduce);
/// - its **scheduler**: a step is one batched forward pass of `batch` sequences (decode) or of
///   `batch` prompts (prefill); continuous batching, chunked prefill and preemption are not
///   modelled. Its memory budget is `usable_memory_fraction` of each card
///   (`gpu_memory_utilization`), which the fit check uses;
/// - the card between kernels: `static_power` is the P0 power of a card holding a model but
///   computing nothing (what a serving card idles at), not the P8 deep-idle power — calibration
///   knob. Energy is capped at `tdp` × time (the evaluator's max-power cap).
///
/// Energy per FLOP is derived, not measured: a GEMM running at the achievable rate draws the power
/// limit, so e_flop = (TDP − P_static) / (η_c · peak). Memory energy counts the DRAM devices only
/// (not the on-chip path to the SMs), so decode power is a lower bound until calibrated.
///
/// Fit check (vLLM's start-up test): weights of every expert, the KV cache of the batch and an
/// activation workspace must fit in `devices` × `memory_capacity` × `usable_memory_fraction`.
/// Tensor parallelism splits weights evenly; the KV cache splits over at most `kv_heads` ranks
/// (vLLM replicates KV heads when the TP degree exceeds them) and not at all for MLA (its latent
/// cache has one head, replicated on every rank); vLLM also requires `heads` divisible by the TP
/// degree. Infeasible is a result (`gpu_fit::fits`, `reason`), not an error.
///
/// Links: the devices of one node (`gpus_per_node`, 8 on an HGX H100 baseboard) are all on NVLink
/// at `link_bandwidth` (true of HGX H100 through NVSwitch; the A6000 NVLink bridge joins pairs
/// only, so A6000 × 4 or × 8 is optimistic). Tensor parallelism beyond one node is multi-node:
/// each GPU has its own inter-node NIC (`node_link_*`, 400 Gb/s InfiniBand NDR by default, as in
/// DGX H100) and the all-reduces become hierarchical (`workload/roofline.hpp`: NVLink inside the
/// node, the NIC across nodes). The choice is tensor parallelism across nodes, not pipeline
/// parallelism; `gpus_per_node` = 0 restores the single-NVLink-domain assumption.
///
/// Expert parallelism (`workload/expert_parallel.hpp`, `parallelism`): the routed experts spread
/// whole over the GPUs with attention in TP or DP, the busiest GPU's experts bounding each MoE
/// layer and, with DP attention, an all-to-all dispatch and combine per MoE layer on the same
/// links (NVLink within the node, the NIC across nodes); its memory fit is the `check_fit`
/// overload taking the parallelism.
///
/// Newer cards (`h200_sxm`, `b200`, `mi300x`, `mi325x`): memory, bandwidth, dense peaks per format
/// (BF16, FP8, and FP4 where the card has it: B200), interconnect and power limit from each vendor's
/// datasheet, cited per field; launch path, latencies, energies and serving knobs as the H100 until
/// measured, and a result on these cards says so (`knobs_note`, `baseline/coverage.hpp`).
///
/// `gpu_params` is not a template on the scalar (the library's usual `*_params<T>`): it only feeds
/// `roofline_machine`, which is `double`. The presets are functions, not `constexpr` constants,
/// because of the `std::string` name; the tests validate them instead of a `static_assert`.
///
/// \code
/// const strata::model m = strata::preset("Mixtral-8x7B");
/// const strata::step_shape s{.mode = strata::phase::decode, .batch = 64, .context = 2048};
/// const int n = strata::min_devices(strata::h100_sxm5(), m, s);      // 2
/// const auto machine = strata::make_machine(strata::h100_sxm5(), n);
/// const auto r = strata::evaluate(strata::step_operators(m, s), s, m.hidden, machine);
/// double tok_s = r.tokens_per_s;
/// \endcode

#include <algorithm>    // std::min, std::max
#include <cctype>       // std::tolower
#include <cstdio>       // std::snprintf, byte counts in fit reasons
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "strata/core/error.hpp"
#include "strata/core/tier.hpp"
#include "strata/core/units.hpp"
#include "strata/workload/expert_parallel.hpp"
#include "strata/workload/model.hpp"
#include "strata/workload/operators.hpp"
#include "strata/workload/roofline.hpp"

namespace strata {
inline namespace v0 {

namespace detail {
/// e_flop = (TDP − P_static) / (η_c · peak): the energy per FLOP of a GEMM that runs at the
/// achievable rate η_c·peak and draws the power limit.
constexpr energy_per_op<> energy_per_flop_at_tdp(power<> tdp, power<> static_power, double compute_efficiency,
                                                 op_rate<> peak) {
  return (tdp - static_power) / (peak * compute_efficiency);
}
}  // namespace detail

/// One GPU card. The defaults are the H100 SXM5 (80 GB HBM3), as `h100_sxm5()` returns.
///
/// Sources named in brackets: [facts] is `data/model_and_hardware_facts.json` of the project,
/// "hardware" → "NVIDIA H100 SXM5" / "NVIDIA RTX A6000", which quotes the NVIDIA datasheet figures
/// from the pages it lists (glennklockwood.com/garden/processors/h100, codesota.com/hardware/h100,
/// servethehome.com RTX A6000 launch table, llmperf.net quoting Microway).
struct gpu_params {
  /// Card name, used for the machine name.
  std::string name = "H100 SXM5";
  /// Dense FP16/BF16 tensor-core peak. [facts: 989.4 TFLOP/s dense (1978.9 with 2:4 sparsity)]
  op_rate<> peak_flops = units::Tflops(989.4);
  /// Dense FP8 tensor-core peak. [facts: 3 958 TFLOP/s FP8 with 2:4 sparsity (awesomeagents.ai
  /// H100 page) → 1 979 dense; 0 means no FP8 path]
  op_rate<> peak_flops_fp8 = units::Tflops(1978.9);
  /// Dense FP4 tensor-core peak; 0 means no FP4 path (Hopper, Ampere, CDNA 3): 4-bit weights
  /// are dequantised and their matrix work runs at `peak_flops`.
  op_rate<> peak_flops_fp4 = units::Tflops(0.0);
  /// Memory capacity. [facts: 80 GB HBM3 in 5 active stacks of 16 GB; DRAM sizes are binary, and
  /// nvidia-smi shows 81 559 MiB for "H100 80GB HBM3" (github.com/wilicc/gpu-burn/issues/114)]
  data_size<> memory_capacity = units::GiB(80.0);
  /// Memory bandwidth. [facts: 3.35 TB/s (codesota, awesomeagents; some pages say 3.0 TB/s)]
  bandwidth<> memory_bandwidth = units::TBps(3.35);
  /// Name of the memory tier in the machine ("hbm" or "gddr6").
  std::string memory_tier_name = "hbm";
  /// DRAM access energy. [O'Connor et al., "Fine-Grained DRAM: Energy-Efficient DRAM for Extreme
  /// Bandwidth Systems", MICRO-50 2017: HBM2 ≈ 3.9 pJ/bit including the I/O; no published HBM3
  /// device figure was found, so the HBM2 one is used]
  energy_per_data<> memory_energy = units::pJ_per_bit(3.9);
  /// Board power limit. [facts: "up to 700 W (configurable)"]
  power<> tdp = units::W(700.0);
  /// Power of a card in P0 holding a model and computing nothing. Calibration knob.
  /// [github.com/wilicc/gpu-burn/issues/114: "NVIDIA H100 80GB HBM3" in P0, 0 % utilisation,
  /// 72.8 GB allocated: 140 W and 145 W]
  power<> static_power = units::W(140.0);
  /// Achievable fraction of `peak_flops` (stands in for vLLM's GEMM kernels). Calibration knob.
  /// [github.com/stas00/ml-engineering compute/accelerator/README.md, "Maximum Achievable Matmul
  /// FLOPS": H100 SXM BF16 794.5 of 989 TFLOP/s = 80.3 %]
  double compute_efficiency = 794.5 / 989.0;
  /// Achievable fraction of `memory_bandwidth` (stands in for vLLM's decode kernels).
  /// Calibration knob. [github.com/deepseek-ai/FlashMLA README: the dense MLA decoding kernel
  /// "achieves up to 3000 GB/s in memory-bound configuration" on H800 SXM5, whose HBM3 runs at
  /// the same 3.35 TB/s: 89.6 %, a best case for a tuned decode kernel]
  double memory_efficiency = 3000.0 / 3350.0;
  /// Dynamic energy per FLOP of tensor math. Derived: (TDP − P_static) / (η_c · peak) =
  /// 560 W / 794.5 TFLOP/s = 0.705 pJ/FLOP (a GEMM at the achievable rate draws the power limit).
  energy_per_op<> energy_per_flop = detail::energy_per_flop_at_tdp(units::W(700.0), units::W(140.0),
                                                                   794.5 / 989.0, units::Tflops(989.4));
  /// Fixed cost per operator: kernel launches and the gaps between kernels. Calibration knob.
  /// [susun-blog.com/blog/pegainfer-3-cuda-graph: CPU launch path ≈ 4–6 µs per kernel measured;
  /// NVIDIA, "Getting Started with CUDA Graphs" (developer.nvidia.com/blog/cuda-graphs): graphs
  /// cut but do not remove the per-kernel cost; 4 µs per operator]
  duration<> op_overhead = units::us(4.0);
  /// Tensor-parallel link bandwidth per device, one direction. [facts: NVLink 4, 900 GB/s total
  /// bidirectional per GPU → 450 GB/s per direction; NVIDIA/nccl issue #1264 measures 380 GB/s
  /// unidirectional peer to peer]
  bandwidth<> link_bandwidth = units::GBps(450.0);
  /// Latency per ring step of an all-reduce. Calibrated so that the ring formula's 2(n − 1)·λ
  /// gives the ≈ 6 µs small-message all-reduce measured on 2 × H100 (NVIDIA/nccl issue #1259);
  /// NCCL's tree/NVLS algorithms make 8-GPU all-reduces cheaper than this, so TP 8 is pessimistic.
  duration<> link_latency = units::us(3.0);
  /// Energy per byte crossing a link. [NVIDIA NVLink-C2C announcement (2022), as summarised at
  /// besthub.dev ("Why Nvidia's NVLink C2C is redefining GPU-CPU interconnects"): off-package
  /// SerDes links ≈ 5.5 pJ/bit versus 1.3 pJ/bit for C2C; GPU-to-GPU NVLink is SerDes]
  energy_per_data<> link_energy = units::pJ_per_bit(5.5);
  /// Fraction of each card's memory the server may use (vLLM `gpu_memory_utilization`).
  /// [vLLM engine arguments, docs.vllm.ai: `--gpu-memory-utilization`, default 0.9]
  double usable_memory_fraction = 0.9;
  /// GPUs per node on one NVLink domain. [NVIDIA DGX H100 / HGX H100: 8 H100 SXM5 on 4
  /// NVSwitches]; 0: every device on one NVLink domain.
  int gpus_per_node = 8;
  /// Inter-node bandwidth per GPU, one direction. [NVIDIA DGX H100: one ConnectX-7 400 Gb/s
  /// InfiniBand NDR port per GPU → 50 GB/s]
  bandwidth<> node_link_bandwidth = units::GBps(50.0);
  /// Latency per inter-node ring step. [Assumed 5 µs: the NVLink step's 3 µs (NCCL software
  /// and synchronisation) plus NIC, switch and cable ≈ 2 µs for an RDMA message (ConnectX-7 and a
  /// Quantum-2 switch hop are each sub-µs)]
  duration<> node_link_latency = units::us(5.0);
  /// Energy per byte over the inter-node link. [Assumed 20 pJ/bit: SerDes at both ends
  /// (≈ 5.5 pJ/bit each, as `link_energy`) plus NIC and switch logic; optics not counted]
  energy_per_data<> node_link_energy = units::pJ_per_bit(20.0);
  /// The all-reduce inside a node: `ring` (NCCL's ring over `link_bandwidth` and `link_latency`)
  /// or `vllm_custom` (vLLM's custom all-reduce at its measured H100 latencies, where vLLM uses it:
  /// 2, 4, 6 or 8 GPUs of one node, messages under 8 MiB; `vllm_custom_allreduce_time`,
  /// `workload/roofline.hpp`). [ring: the default the Stratum comparison was built on; vLLM
  /// custom_all_reduce.py for when vLLM takes the custom kernel instead of NCCL]
  allreduce_algorithm allreduce = allreduce_algorithm::ring;

  /// Field list for JSON (strata/core/json.hpp).
  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("name", s.name);
    v("peak_flops", s.peak_flops);
    v("peak_flops_fp8", s.peak_flops_fp8);
    v("peak_flops_fp4", s.peak_flops_fp4);
    v("memory_capacity", s.memory_capacity);
    v("memory_bandwidth", s.memory_bandwidth);
    v("memory_tier_name", s.memory_tier_name);
    v("memory_energy", s.memory_energy);
    v("tdp", s.tdp);
    v("static_power", s.static_power);
    v("compute_efficiency", s.compute_efficiency);
    v("memory_efficiency", s.memory_efficiency);
    v("energy_per_flop", s.energy_per_flop);
    v("op_overhead", s.op_overhead);
    v("link_bandwidth", s.link_bandwidth);
    v("link_latency", s.link_latency);
    v("link_energy", s.link_energy);
    v("usable_memory_fraction", s.usable_memory_fraction);
    v("gpus_per_node", s.gpus_per_node);
    v("node_link_bandwidth", s.node_link_bandwidth);
    v("node_link_latency", s.node_link_latency);
    v("node_link_energy", s.node_link_energy);
    v("allreduce", s.allreduce);
  }
  friend bool operator==(const gpu_params&, const gpu_params&) = default;
};

/// NVIDIA H100 SXM5 80 GB (HBM3): the defaults of `gpu_params`. Baseline of Stratum-L and -XL.
inline gpu_params h100_sxm5() { return gpu_params{}; }

/// NVIDIA RTX A6000 48 GB (GDDR6). Baseline of Stratum-S.
template <class = void>
inline gpu_params rtx_a6000() {
  constexpr double eta_c = 252.9 / 312.0;
  return {
      .name = "RTX A6000",
      // [facts: FP16/BF16 tensor 154.8 TFLOP/s dense, 309.7 with sparsity (llmperf.net quoting
      // Microway)]
      .peak_flops = units::Tflops(154.8),
      // Ampere has no FP8 tensor cores: 8-bit operators run at the FP16 peak.
      .peak_flops_fp8 = units::Tflops(0.0),
      // [facts: 48 GB GDDR6 with ECC; nvidia-smi shows 49 140 MiB, i.e. binary]
      .memory_capacity = units::GiB(48.0),
      // [facts: 384-bit at 16 Gb/s = 768 GB/s]
      .memory_bandwidth = units::GBps(768.0),
      .memory_tier_name = "gddr6",
      // [Micron, "Ultra-Bandwidth Solutions" memory comparison (micron.com/products/
      // ultra-bandwidth-solutions): GDDR6 average device power 7.5 pJ/bit]
      .memory_energy = units::pJ_per_bit(7.5),
      // [facts: max power 300 W]
      .tdp = units::W(300.0),
      // Calibration knob. [github.com/NVIDIA/open-gpu-kernel-modules/issues/874: an A40 — the
      // data-centre GA102 board with the same 48 GB GDDR6 and 300 W — idles at ≈ 30 W and draws
      // ≈ 110 W in P0 with data loaded and no compute]
      .static_power = units::W(110.0),
      // Calibration knob. No A6000 matmul measurement was found; the Ampere A100 PCIe's
      // [stas00/ml-engineering MAMF table: 252.9 of 312 TFLOP/s = 81.1 %] is used.
      .compute_efficiency = eta_c,
      // Calibration knob. No A6000 decode-kernel measurement was found; the H100 figure
      // (FlashMLA, 3000 of 3350 GB/s) is used.
      .memory_efficiency = 3000.0 / 3350.0,
      // Derived: (300 W − 110 W) / (0.811 · 154.8 TFLOP/s) = 1.51 pJ/FLOP.
      .energy_per_flop = detail::energy_per_flop_at_tdp(units::W(300.0), units::W(110.0), eta_c,
                                                        units::Tflops(154.8)),
      // Calibration knob, as for the H100.
      .op_overhead = units::us(4.0),
      // [facts: 2-way NVLink bridge, 112.5 GB/s bidirectional → 56.25 GB/s per direction]
      .link_bandwidth = units::GBps(112.5 / 2.0),
      // As the H100 (no A6000 all-reduce measurement found).
      .link_latency = units::us(3.0),
      // As the H100: NVLink 3 is SerDes too.
      .link_energy = units::pJ_per_bit(5.5),
      // [vLLM default, as above]
      .usable_memory_fraction = 0.9,
      // A workstation card: at most 8 per chassis; across chassis the same 400 Gb/s NIC per
      // GPU as the H100 is assumed.
      .gpus_per_node = 8,
      .node_link_bandwidth = units::GBps(50.0),
      .node_link_latency = units::us(5.0),
      .node_link_energy = units::pJ_per_bit(20.0),
  };
}

/// NVIDIA A100 SXM4 80 GB (HBM2e), on an HGX A100 8-GPU baseboard. Not a Stratum baseline: added
/// for the published measurements of `tests/data/measurements` (most MoE serving figures before
/// 2024's H100 ramp were taken on it).
inline gpu_params a100_sxm4_80gb() {
  constexpr double eta_c = 252.9 / 312.0;
  return {
      .name = "A100 SXM4 80GB",
      // [glennklockwood.com/garden/processors/A100, quoting the NVIDIA A100 datasheet: BF16 matrix
      // 312 TFLOP/s dense, 624 with sparsity]
      .peak_flops = units::Tflops(312.0),
      // Ampere has no FP8 tensor cores: 8-bit operators run at the BF16 peak.
      .peak_flops_fp8 = units::Tflops(0.0),
      // [same page: 80 GB HBM2e in 5 stacks; DRAM sizes are binary, and nvidia-smi shows 81 920 MiB
      // for "A100-SXM4-80GB" (github.com/vllm-project/vllm/issues/2069)]
      .memory_capacity = units::GiB(80.0),
      // [thundercompute.com/blog/nvidia-a100-specs-full-guide, spec table: A100 SXM 80GB 2 039 GB/s;
      // glennklockwood.com A100 page: 2.039 TB/s]
      .memory_bandwidth = units::GBps(2039.0),
      .memory_tier_name = "hbm",
      // As the H100: HBM2 ≈ 3.9 pJ/bit [O'Connor et al., MICRO-50 2017]; HBM2e is the same interface.
      .memory_energy = units::pJ_per_bit(3.9),
      // [thundercompute.com spec table and glennklockwood.com: 400 W maximum for SXM4]
      .tdp = units::W(400.0),
      // Calibration knob. [github.com/vllm-project/vllm/issues/2069, nvidia-smi: A100-SXM4-80GB in
      // P0 at 0 % utilisation with 2 MiB used: 72 W — no model loaded, so a lower bound]
      .static_power = units::W(72.0),
      // Calibration knob. [github.com/stas00/ml-engineering MAMF table: A100 252.9 of 312 TFLOP/s
      // = 81.1 %, as the A6000 preset cites]
      .compute_efficiency = eta_c,
      // Calibration knob. No A100 decode-kernel measurement was found; the H100 figure (FlashMLA,
      // 3000 of 3350 GB/s) is used.
      .memory_efficiency = 3000.0 / 3350.0,
      // Derived: (400 W − 72 W) / (0.811 · 312 TFLOP/s) = 1.30 pJ/FLOP.
      .energy_per_flop = detail::energy_per_flop_at_tdp(units::W(400.0), units::W(72.0), eta_c, units::Tflops(312.0)),
      // Calibration knob, as for the H100.
      .op_overhead = units::us(4.0),
      // [glennklockwood.com A100 page: NVLink 300 + 300 GB/s per GPU → 300 GB/s per direction;
      // jingchaozhang.github.io A100 white-paper notes: second-generation NVSwitch, 600 GB/s]
      .link_bandwidth = units::GBps(300.0),
      // As the H100 (no A100 all-reduce measurement found).
      .link_latency = units::us(3.0),
      // As the H100: NVLink 3 is SerDes too.
      .link_energy = units::pJ_per_bit(5.5),
      // [vLLM default, as above]
      .usable_memory_fraction = 0.9,
      // [jingchaozhang.github.io A100 white-paper notes: NVSwitch joins up to 8 GPUs per node]
      .gpus_per_node = 8,
      // Assumed as the H100 preset (one 400 Gb/s NIC per GPU); DGX A100's own NICs are not cited
      // here, and no measurement row spans nodes.
      .node_link_bandwidth = units::GBps(50.0),
      .node_link_latency = units::us(5.0),
      .node_link_energy = units::pJ_per_bit(20.0),
  };
}

/// NVIDIA H200 SXM 141 GB (HBM3e), on an HGX H200 8-GPU baseboard: the H100's GH100 die with more
/// and faster memory. Datasheet figures from "NVIDIA H200 Tensor Core GPU" datasheet, Technical
/// Specifications table, column "H200 SXM" (read as reproduced at aiminingco.com/gpu/h200/specs and
/// lzwjava.github.io/nvidia-h200-gpu-specs-en); the rest as the H100 preset, the die being the same.
template <class = void>
inline gpu_params h200_sxm() {
  gpu_params g = h100_sxm5();  // same die, links, launch path and static draw
  g.name = "H200 SXM";
  // [datasheet, row "BF16 Tensor Core": 1,979 TFLOPS with sparsity → 989.4 dense, as the H100]
  g.peak_flops = units::Tflops(989.4);
  // [datasheet, row "FP8 Tensor Core": 3,958 TFLOPS with sparsity → 1,979 dense]
  g.peak_flops_fp8 = units::Tflops(1978.9);
  // [datasheet, row "GPU Memory": 141 GB HBM3e; decimal GB as the datasheet states]
  g.memory_capacity = units::GB(141.0);
  // [datasheet, row "GPU Memory Bandwidth": 4.8 TB/s]
  g.memory_bandwidth = units::TBps(4.8);
  // [datasheet, row "Max Thermal Design Power (TDP)": up to 700 W (configurable)]
  g.tdp = units::W(700.0);
  // [datasheet, row "Interconnect": NVIDIA NVLink 900 GB/s → 450 GB/s per direction, as the H100]
  g.link_bandwidth = units::GBps(450.0);
  // Derived with the H100's knobs: (700 W − 140 W) / (η_c · 989.4 TFLOP/s).
  g.energy_per_flop = detail::energy_per_flop_at_tdp(g.tdp, g.static_power, g.compute_efficiency, g.peak_flops);
  return g;
}

/// NVIDIA B200 180 GB (HBM3e), on an HGX B200 8-GPU baseboard. Datasheet figures from "NVIDIA
/// Blackwell" datasheet (DGX/HGX B200), Technical Specifications table, "Individual Blackwell GPU
/// Specifications", column "HGX B200" (read as reproduced at zdszero.github.io Hardware notes; the
/// per-GPU figures at 1,000 W also at glennklockwood.com/garden/processors/B200). The datasheet's
/// tensor rates are with 2:4 sparsity (its footnote); dense is half.
template <class = void>
inline gpu_params b200() {
  gpu_params g = h100_sxm5();  // launch path, link latency and energies as the H100 until measured
  g.name = "B200";
  // [datasheet, row "FP16/BF16 Tensor Core": 4.5 PFLOPS with sparsity → 2,250 TFLOP/s dense]
  g.peak_flops = units::Tflops(2250.0);
  // [datasheet, row "FP8/FP6 Tensor Core": 9 PFLOPS with sparsity → 4,500 TFLOP/s dense]
  g.peak_flops_fp8 = units::Tflops(4500.0);
  // [datasheet, row "FP4 Tensor Core": 18 PFLOPS with sparsity → 9,000 TFLOP/s dense]
  g.peak_flops_fp4 = units::Tflops(9000.0);
  // [datasheet, row "GPU Memory | Bandwidth": 180 GB HBM3E | 7.7 TB/s]
  g.memory_capacity = units::GB(180.0);
  g.memory_bandwidth = units::TBps(7.7);
  // [datasheet, row "Max Thermal Design Power (TDP)": configurable up to 1,000 W]
  g.tdp = units::W(1000.0);
  // Assumed: the H100's P0 draw as a fraction of its TDP (140 / 700 W = 20 %); no B200 measurement.
  g.static_power = units::W(200.0);
  // [datasheet, row "Interconnect": 5th generation NVLink 1.8 TB/s → 900 GB/s per direction]
  g.link_bandwidth = units::GBps(900.0);
  g.energy_per_flop = detail::energy_per_flop_at_tdp(g.tdp, g.static_power, g.compute_efficiency, g.peak_flops);
  return g;
}

/// AMD Instinct MI300X 192 GB (HBM3), on an 8-GPU OAM platform (fully connected Infinity Fabric).
/// Datasheet figures from "AMD Instinct MI300X Accelerator" data sheet, specifications table (read
/// as reproduced at awesomeagents.ai/hardware/amd-mi300x and yobitel.com/knowledge-base/amd-mi300x;
/// the dense rates are AMD's "peak" figures, sparsity doubles them).
template <class = void>
inline gpu_params mi300x() {
  gpu_params g = h100_sxm5();  // launch path, link latency and energies as the H100 until measured
  g.name = "MI300X";
  // [data sheet, "Peak Half Precision (FP16) / Bfloat16 (BF16) Performance": 1,307.4 TFLOPS]
  g.peak_flops = units::Tflops(1307.4);
  // [data sheet, "Peak Eight-bit Precision (FP8) Performance": 2,614.9 TFLOPS]
  g.peak_flops_fp8 = units::Tflops(2614.9);
  // CDNA 3 has no FP4 matrix path.
  g.peak_flops_fp4 = units::Tflops(0.0);
  // [data sheet, "Memory Capacity": 192 GB HBM3; "Peak Theoretical Memory Bandwidth": 5.3 TB/s]
  g.memory_capacity = units::GB(192.0);
  g.memory_bandwidth = units::TBps(5.3);
  // [data sheet, "Typical Board Power": 750 W peak]
  g.tdp = units::W(750.0);
  // Assumed: the H100's P0 draw as a fraction of its TDP (20 %); no MI300X measurement.
  g.static_power = units::W(150.0);
  // [data sheet, "AMD Infinity Fabric Links": 7 × 128 GB/s = 896 GB/s peak aggregate, both
  // directions → 448 GB/s per direction, the H100's convention; RCCL uses every link of the mesh]
  g.link_bandwidth = units::GBps(448.0);
  g.energy_per_flop = detail::energy_per_flop_at_tdp(g.tdp, g.static_power, g.compute_efficiency, g.peak_flops);
  return g;
}

/// AMD Instinct MI325X 256 GB (HBM3E): the MI300X's CDNA 3 compute with HBM3E. Datasheet figures from
/// "AMD Instinct MI325X Accelerator" data sheet (read as reproduced at awesomeagents.ai/hardware/
/// amd-mi325x and wiaix.com/amd-instincttm-mi325x-accelerators).
template <class = void>
inline gpu_params mi325x() {
  gpu_params g = mi300x();
  g.name = "MI325X";
  // [data sheet: FP16/BF16 1,307.4 TFLOPS; FP8 2,614.9 TFLOPS, as the MI300X]
  g.peak_flops = units::Tflops(1307.4);
  g.peak_flops_fp8 = units::Tflops(2614.9);
  // [data sheet: 256 GB HBM3E; 6 TB/s peak memory bandwidth]
  g.memory_capacity = units::GB(256.0);
  g.memory_bandwidth = units::TBps(6.0);
  // [data sheet, "Typical Board Power": 1,000 W peak]
  g.tdp = units::W(1000.0);
  // Assumed: 20 % of TDP, as the MI300X preset.
  g.static_power = units::W(200.0);
  // [data sheet: seven Infinity Fabric links per GPU, as the MI300X: 448 GB/s per direction]
  g.link_bandwidth = units::GBps(448.0);
  g.energy_per_flop = detail::energy_per_flop_at_tdp(g.tdp, g.static_power, g.compute_efficiency, g.peak_flops);
  return g;
}

/// Names of the GPU presets: "h100_sxm5", "rtx_a6000", "a100_sxm4_80gb", "h200_sxm", "b200",
/// "mi300x", "mi325x".
template <class = void>
inline std::vector<std::string> gpu_preset_names() {
  return {"h100_sxm5", "rtx_a6000", "a100_sxm4_80gb", "h200_sxm", "b200", "mi300x", "mi325x"};
}

/// The GPU preset called `name` (case-insensitive; "-" and "_" are the same); throws
/// `config_error` listing the known names.
// Not `inline`: strata::compiled holds its instantiation (end of file), as `validate` below.
template <class = void>
gpu_params gpu_preset(std::string_view name) {
  auto canon = [](std::string_view s) {
    std::string c;
    for (const char ch : s) c += ch == '-' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return c;
  };
  const std::string want = canon(name);
  if (want == "h100_sxm5") return h100_sxm5();
  if (want == "rtx_a6000") return rtx_a6000();
  if (want == "a100_sxm4_80gb") return a100_sxm4_80gb();
  if (want == "h200_sxm") return h200_sxm();
  if (want == "b200") return b200();
  if (want == "mi300x") return mi300x();
  if (want == "mi325x") return mi325x();
  throw config_error("name", "[strata.gpu] unknown GPU \"" + std::string(name) +
                                 "\" (known: h100_sxm5, rtx_a6000, a100_sxm4_80gb, h200_sxm, b200, mi300x, mi325x)");
}

/// Checks a card; throws `config_error` naming the field.
// Not `inline`: strata::compiled holds its instantiation (end of file; also `make_machine`, `check_fit`, `min_devices`), which an `inline` one would
// not spare a STRATA_COMPILED consumer (GCC instantiates inline functions for inlining).
template <class = void>
void validate(const gpu_params& g) {
  constexpr const char* id = "strata.gpu";
  detail::require(!g.name.empty(), id, "name", "\"\"", "non-empty");
  detail::require_positive(g.peak_flops.si(), id, "peak_flops", "FLOP/s");
  detail::require_nonnegative(g.peak_flops_fp8.si(), id, "peak_flops_fp8", "FLOP/s");
  detail::require_nonnegative(g.peak_flops_fp4.si(), id, "peak_flops_fp4", "FLOP/s");
  detail::require_positive(g.memory_capacity.si(), id, "memory_capacity", "B");
  detail::require_positive(g.memory_bandwidth.si(), id, "memory_bandwidth", "B/s");
  detail::require(!g.memory_tier_name.empty(), id, "memory_tier_name", "\"\"", "non-empty");
  detail::require_nonnegative(g.memory_energy.si(), id, "memory_energy", "J/B");
  detail::require_positive(g.tdp.si(), id, "tdp", "W");
  detail::require_nonnegative(g.static_power.si(), id, "static_power", "W");
  detail::require(g.static_power.si() <= g.tdp.si(), id, "static_power", g.static_power.si(),
                  "<= tdp (W)");
  detail::require_in(g.compute_efficiency, 1e-6, 1.0, id, "compute_efficiency");
  detail::require_in(g.memory_efficiency, 1e-6, 1.0, id, "memory_efficiency");
  detail::require_nonnegative(g.energy_per_flop.si(), id, "energy_per_flop", "J/FLOP");
  detail::require_nonnegative(g.op_overhead.si(), id, "op_overhead", "s");
  detail::require_positive(g.link_bandwidth.si(), id, "link_bandwidth", "B/s");
  detail::require_nonnegative(g.link_latency.si(), id, "link_latency", "s");
  detail::require_nonnegative(g.link_energy.si(), id, "link_energy", "J/B");
  detail::require(g.usable_memory_fraction > 0.0 && g.usable_memory_fraction <= 1.0, id,
                  "usable_memory_fraction", g.usable_memory_fraction, "in (0, 1]");
  detail::require(g.gpus_per_node >= 0, id, "gpus_per_node", g.gpus_per_node, ">= 0 (0: one NVLink domain)");
  detail::require_positive(g.node_link_bandwidth.si(), id, "node_link_bandwidth", "B/s");
  detail::require_nonnegative(g.node_link_latency.si(), id, "node_link_latency", "s");
  detail::require_nonnegative(g.node_link_energy.si(), id, "node_link_energy", "J/B");
}

/// `devices` cards of `g` in tensor parallel as the roofline sees them: one memory tier named
/// `g.memory_tier_name` holds every data class (weights, experts, KV, activations); its access
/// latency is zero because the kernels' deep memory pipelines hide it (fixed per-kernel costs are
/// in `op_overhead`). Throws `config_error` for a bad card or `devices` < 1.
template <class = void>
roofline_machine make_machine(const gpu_params& g, int devices) {
  validate(g);
  detail::require(devices >= 1, "strata.gpu", "devices", devices, ">= 1");
  roofline_machine m;
  m.name = devices == 1 ? g.name : g.name + " x" + std::to_string(devices);
  m.devices = devices;
  m.peak_flops = g.peak_flops;
  m.peak_flops_8bit = g.peak_flops_fp8;
  m.peak_flops_4bit = g.peak_flops_fp4;
  m.compute_efficiency = g.compute_efficiency;
  m.memory_efficiency = g.memory_efficiency;
  m.tiers = {memory_tier<>{.name = g.memory_tier_name,
                           .capacity = g.memory_capacity,
                           .bandwidth = g.memory_bandwidth,
                           .latency = duration<>{},
                           .energy_per_byte = g.memory_energy,
                           .banks = 1}};
  m.placement = tier_map{};  // every class in tier 0
  m.energy_per_flop = g.energy_per_flop;
  m.static_power = g.static_power;
  m.max_power = g.tdp;
  m.op_overhead = g.op_overhead;
  m.link_bandwidth = g.link_bandwidth;
  m.link_latency = g.link_latency;
  m.link_energy = g.link_energy;
  // Devices in whole nodes; a partial last node (e.g. 12 of 8 per node) is not a TP layout.
  m.devices_per_node = g.gpus_per_node > 0 && devices > g.gpus_per_node ? g.gpus_per_node : 0;
  m.node_link_bandwidth = g.node_link_bandwidth;
  m.node_link_latency = g.node_link_latency;
  m.node_link_energy = g.node_link_energy;
  m.allreduce = g.allreduce;
  if (m.devices_per_node > 0) {
    detail::require(devices % m.devices_per_node == 0, "strata.gpu", "devices", devices,
                    ("a multiple of gpus_per_node (" + std::to_string(m.devices_per_node) + ") beyond one node").c_str());
  }
  return m;
}

/// Whether a model and a step fit `devices` cards, and the bytes that decide it.
struct gpu_fit {
  bool fits = false;                  ///< everything fits in the usable memory of every device
  int devices = 0;                    ///< tensor-parallel degree checked
  data_size<> weight_bytes{};         ///< all weights, every expert (whole model)
  data_size<> kv_bytes{};             ///< KV cache of batch × context tokens (whole model)
  data_size<> activation_bytes{};     ///< activation workspace per device
  data_size<> required_per_device{};  ///< weights/n + KV/shards + workspace
  data_size<> usable_per_device{};    ///< capacity × usable_memory_fraction
  std::string reason;                 ///< why it fits or not, with the numbers

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("fits", s.fits);
    v("devices", s.devices);
    v("weight_bytes", s.weight_bytes);
    v("kv_bytes", s.kv_bytes);
    v("activation_bytes", s.activation_bytes);
    v("required_per_device", s.required_per_device);
    v("usable_per_device", s.usable_per_device);
    v("reason", s.reason);
  }
};

namespace detail {
template <class = void>
inline std::string gb_text(data_size<> b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GB", b.in(units::GB));
  return buf;
}
}  // namespace detail

/// Memory fit of model `m` running step `s` on `devices` cards of `g` (vLLM tensor parallelism):
///   weights  W = total parameters · weight_bits / 8                      (every expert)
///   KV       K = batch · context · layers · KV bytes per token-layer
///   workspace A = T · a · (4·d + 2·F) / n + batch · vocab · 4 B / n      (per device)
/// with T the tokens of the step (batch for decode, batch · context for prefill), a the bytes per
/// activation, F the widest FFN intermediate a token passes through (dense FFN, or top-k routed
/// experts plus the shared ones) and FP32 logits for the sampled tokens: the residual stream, the
/// normed input, the query and the attention output (4·d) and the gate and up outputs (2·F) of one
/// layer live at once. Fits iff W/n + K/n_kv + A ≤ capacity · usable fraction, with n_kv = 1 for
/// MLA and min(n, kv_heads) otherwise, and heads divisible by n. Throws `config_error` for bad
/// inputs; an infeasible point is `fits == false` with a `reason`.
template <class = void>
gpu_fit check_fit(const gpu_params& g, int devices, const model& m, const step_shape& s) {
  validate(g);
  validate(m);
  validate(s);
  detail::require(devices >= 1, "strata.gpu", "devices", devices, ">= 1");
  const double n = devices;
  gpu_fit f;
  f.devices = devices;
  f.weight_bytes = weight_storage_bytes(m);  // each component in its format (MXFP4 experts: 4.25 bits)
  f.kv_bytes = kv_bytes_per_sequence(m, double(s.context)) * double(s.batch);  // sliding layers: their window
  f.activation_bytes = activation_workspace(m, s) / n;
  const double kv_shards = m.is_mla() ? 1.0 : std::min(n, double(m.kv_heads));
  f.required_per_device = f.weight_bytes / n + f.kv_bytes / kv_shards + f.activation_bytes;
  f.usable_per_device = g.memory_capacity * g.usable_memory_fraction;
  if (m.heads % devices != 0) {
    f.fits = false;
    f.reason = "vLLM needs the " + std::to_string(m.heads) +
               " attention heads divisible by the tensor-parallel degree " + std::to_string(devices);
    return f;
  }
  std::string kv_split;
  if (devices > 1) {
    kv_split = kv_shards == 1.0 ? " (replicated on every device)"
                                : " (split over " + std::to_string(static_cast<int>(kv_shards)) + " devices)";
  }
  f.fits = f.required_per_device <= f.usable_per_device;
  f.reason = (f.fits ? "fits on " : "does not fit on ") + std::to_string(devices) + " x " + g.name + ": needs " +
             detail::gb_text(f.required_per_device) + " per device of " + detail::gb_text(f.usable_per_device) +
             " usable (" + detail::gb_text(g.memory_capacity) + " x " + detail::to_text(g.usable_memory_fraction) +
             "); weights " + detail::gb_text(f.weight_bytes) + ", KV " + detail::gb_text(f.kv_bytes) + kv_split +
             ", workspace " + detail::gb_text(f.activation_bytes) + " per device";
  return f;
}

/// Memory fit of `m` running `s` on `devices` cards of `g` under parallelism `p`
/// (`expert_parallel.hpp`); `p.ep` 1 is `check_fit(g, devices, m, s)`. With EP each device holds
/// E/n + r whole experts of every MoE layer, (E/n + r)/E of the routed-expert bytes, and the other
/// weights split over the devices (TP attention) or whole (DP attention); the KV cache as
/// `check_fit` (TP attention) or that of its own ⌈B/n⌉ sequences, unsplit (DP attention); the
/// workspace as `check_fit`. TP attention needs the heads divisible by n, DP attention does not.
template <class = void>
gpu_fit check_fit(const gpu_params& g, int devices, const model& m, const step_shape& s, const parallelism& p) {
  if (!p.expert_parallel()) return check_fit(g, devices, m, s);
  validate(g);
  validate(m);
  validate(s);
  validate(p, m, devices);
  const double n = devices;
  const bool dp = p.attention == attention_parallel::dp;
  gpu_fit f;
  f.devices = devices;
  f.weight_bytes = weight_storage_bytes(m);
  f.kv_bytes = kv_bytes_per_sequence(m, double(s.context)) * double(s.batch);
  f.activation_bytes = activation_workspace(m, s) / n;
  const data_size<> experts = units::bit(double(count_params(m).per_expert) * m.experts * m.moe_layers() *
                                         storage_bits(m, m.expert_format));
  const data_size<> rest = f.weight_bytes - experts;
  const double per_device_experts = double(m.experts) / n + p.redundant_experts;
  const double kv_shards = m.is_mla() ? 1.0 : std::min(n, double(m.kv_heads));
  const int own_sequences = (s.batch + devices - 1) / devices;  // ⌈B/n⌉, an integer count
  const data_size<> kv = dp ? f.kv_bytes * (double(own_sequences) / s.batch) : f.kv_bytes / kv_shards;
  f.required_per_device = experts * (per_device_experts / m.experts) + (dp ? rest : rest / n) + kv + f.activation_bytes;
  f.usable_per_device = g.memory_capacity * g.usable_memory_fraction;
  if (!dp && m.heads % devices != 0) {
    f.fits = false;
    f.reason = "vLLM needs the " + std::to_string(m.heads) +
               " attention heads divisible by the tensor-parallel degree " + std::to_string(devices);
    return f;
  }
  f.fits = f.required_per_device <= f.usable_per_device;
  f.reason = (f.fits ? "fits on " : "does not fit on ") + std::to_string(devices) + " x " + g.name + " (EP " +
             std::to_string(devices) + ", attention " + (dp ? "dp" : "tp") + "): needs " +
             detail::gb_text(f.required_per_device) + " per device of " + detail::gb_text(f.usable_per_device) +
             " usable; experts " + detail::gb_text(experts) + " (" + detail::to_text(per_device_experts) +
             " per layer per device), other weights " + detail::gb_text(rest) + (dp ? " (on every device)" : "") +
             ", KV " + detail::gb_text(f.kv_bytes) + (dp ? " (each device its sequences)" : "") + ", workspace " +
             detail::gb_text(f.activation_bytes) + " per device";
  return f;
}

/// The smallest power-of-two tensor-parallel degree (1, 2, 4, … up to `max_devices`) on which
/// `m` running `s` fits `g`; degrees beyond `gpus_per_node` are multi-node. 0 if none does, with
/// the reason for the largest degree in `*reason` (when given).
template <class = void>
int min_devices(const gpu_params& g, const model& m, const step_shape& s,
                       std::string* reason = nullptr, int max_devices = 64) {
  detail::require(max_devices >= 1, "strata.gpu", "max_devices", max_devices, ">= 1");
  gpu_fit last;
  // Doubling stops before it could pass INT_MAX: n ≤ max_devices / 2 before each doubling.
  for (int n = 1;; n *= 2) {
    last = check_fit(g, n, m, s);
    if (last.fits) {
      if (reason) *reason = last.reason;
      return n;
    }
    if (n > max_devices / 2) break;
  }
  if (reason) *reason = last.reason;
  return 0;
}

}  // namespace v0
}  // namespace strata

// strata::compiled (STRATA_BUILD_COMPILED, src/compiled.cpp) holds the instantiations below;
// STRATA_COMPILED=1, which that target puts on its users, keeps their translation units from
// instantiating them again (issue 46: a step on the fewest GPUs that hold a model). Without it this
// header is unchanged (header-only).
#if defined(STRATA_COMPILED) && STRATA_COMPILED
namespace strata {
inline namespace v0 {
extern template void validate<void>(const gpu_params&);
extern template gpu_params gpu_preset<void>(std::string_view);
extern template roofline_machine make_machine<void>(const gpu_params&, int);
extern template gpu_fit check_fit<void>(const gpu_params&, int, const model&, const step_shape&);
extern template gpu_fit check_fit<void>(const gpu_params&, int, const model&, const step_shape&, const parallelism&);
extern template int min_devices<void>(const gpu_params&, const model&, const step_shape&, std::string*, int);
}  // namespace v0
}  // namespace strata
#endif
