// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Cited plausible ranges of the parameters the paper report's rows depend on, beside their cited
/// defaults: what the gap explainer (`report/explain.hpp`) measures a needed change in.
///
/// A range is keyed by the parameter's dotted path, qualified by its struct
/// (`gpu_params.op_overhead`, `stratum_system_params.xpu_wait_power_fraction`: the sensitivity
/// machinery's path, `core/sensitivity.hpp`, behind the struct's name). A nested struct reads the
/// ranges of its own type (`stratum_system_params.xpu.*` are `gpu_params.*`, `gpu_knobs.*` the
/// same knobs of `gpu_params`; the three nested DRAM refresh structs, the Mono3D chip's, the HBM
/// stack's and the thermal stack's, are `dram_refresh_params.*`: JESD79-5's refresh timings are
/// one spec, not three). Each range is either
/// - `relative`: factors [lo, hi] on the cited default (a datasheet's spread or the spread of
///   published measurements around the value the default cites), or
/// - `absolute`: SI bounds [lo, hi] (a physical range: an efficiency in (0, 1]),
///
/// with the citation it comes from. A parameter with no entry has "no range stated": one decade
/// each way of its cited default, [c/10, 10·c].
///
/// Units of range. A change from the cited c to x measures |ln(x/c)| / ln(hi/lo) ranges when
/// lo > 0 (log space: a factor of hi/lo is one range), |x − c| / (hi − lo) when lo = 0 (linear: a
/// range starting at 0, such as a fraction cited at 0). A parameter cited at 0 with no stated
/// range has no scale and is left out of the explainer.
///
/// `parameter_range_table_markdown()` prints every real parameter of the report's parameter
/// structs with its default and its range: the table of docs/paper_report.md ("Parameter
/// ranges"), which a test keeps equal to it.

#include <cmath>    // std::log, std::abs, std::isfinite
#include <string>   // std::string
#include <utility>  // std::move
#include <vector>   // std::vector

#include "strata/baseline/gpu.hpp"
#include "strata/baseline/validation.hpp"
#include "strata/chiplet/layer_model.hpp"
#include "strata/chiplet/scale_out.hpp"
#include "strata/chiplet/substrate.hpp"
#include "strata/core/error.hpp"
#include "strata/core/sensitivity.hpp"
#include "strata/report/paper_io.hpp"
#include "strata/stratum/system.hpp"
#include "strata/thermal/stratum_stack.hpp"

namespace strata {
inline namespace v0 {

/// How a range's bounds read.
enum class range_scale {
  relative,  ///< factors on the cited default
  absolute   ///< SI values
};

/// One cited range.
struct parameter_range {
  std::string key;      ///< struct-qualified dotted path: "gpu_params.op_overhead"
  range_scale scale = range_scale::relative;
  double lo = 1.0;      ///< lower bound (factor or SI)
  double hi = 1.0;      ///< upper bound (factor or SI)
  std::string source;   ///< where the range comes from
};

/// A parameter's range at its cited value: SI bounds and whether a source states it.
struct resolved_range {
  double lo = 0.0, hi = 0.0;  ///< SI bounds
  bool stated = false;        ///< false: "no range stated", one decade each way
  std::string source;         ///< the citation, or "no range stated (one decade each way)"

  /// Has a scale (a parameter cited at 0 with no stated range has none).
  template <class = void>
  [[nodiscard]] bool usable() const { return std::isfinite(lo) && std::isfinite(hi) && hi > lo && lo >= 0.0; }
  /// Log space (lo > 0) or linear (lo = 0).
  template <class = void>
  [[nodiscard]] bool logarithmic() const { return lo > 0.0; }
  /// The change from `cited` to `x` in units of this range (file comment).
  template <class = void>
  [[nodiscard]] double units(double cited, double x) const {
    return logarithmic() ? std::abs(std::log(x / cited)) / std::log(hi / lo) : std::abs(x - cited) / (hi - lo);
  }
  /// The value `t` ranges from `cited` in direction `dir` (+1 up, −1 down); negative results
  /// (linear ranges) are returned as they are, for the caller to refuse.
  template <class = void>
  [[nodiscard]] double at(double cited, double t, int dir) const {
    return logarithmic() ? cited * std::exp(dir * t * std::log(hi / lo)) : cited + dir * t * (hi - lo);
  }
};

/// The ranges the sources state (file comment). Keys are struct-qualified dotted paths.
template <class = void>
inline const std::vector<parameter_range>& parameter_ranges() {
  // A fraction, efficiency, utilisation or share bounded by its definition has that physical
  // range, [0, 1] (the struct's field comment or the equation it enters; linear, as it starts at
  // 0). Cited ranges follow: datasheets, JEDEC and UCIe specifications, the spread of published
  // values. Calibrated constants (a field fitted to a paper number), the paper's own inputs and
  // assumed values with no published spread have no entry: "no range stated".
  static const std::vector<parameter_range> table{
      // --- the GPU (`baseline/gpu.hpp`; every card reads these: a relative range is the H100's
      // spread applied to each card's cited value) ---
      {"gpu_params.peak_flops", range_scale::relative, 1.0, 1.98 / 1.83,
       "NVIDIA H100 whitepaper (2022): the dense tensor peak, 528 tensor cores x 1024 FLOP per clock, is at 1.83 GHz; "
       "the card's boost clock is 1.98 GHz (+8.2 %; that spread for every card; a lower sustained rate is compute_efficiency's)"},
      {"gpu_params.peak_flops_fp8", range_scale::relative, 1.0, 1.98 / 1.83,
       "NVIDIA H100 whitepaper (2022): the FP8 tensor peak at 1.83 GHz, boost 1.98 GHz (+8.2 %; that spread for every card)"},
      {"gpu_params.memory_capacity", range_scale::relative, 81559.0 / 81920.0, 1.0,
       "gpu-burn issue 114: nvidia-smi shows 81 559 MiB of the H100's 80 GiB (-0.44 %; that spread for every card)"},
      {"gpu_params.memory_bandwidth", range_scale::relative, 3.0 / 3.35, 1.0,
       "baseline/gpu.hpp [facts]: the H100 SXM5's 3.35 TB/s, some pages say 3.0 TB/s (-10 %; that spread for every card)"},
      {"gpu_params.tdp", range_scale::relative, 350.0 / 700.0, 1.0,
       "NVIDIA H100 PCIe product brief PB-11133-001_v02 (2022): 350 W, against the SXM5's 'up to 700 W (configurable)' "
       "(-50 %; that spread for every card)"},
      {"gpu_params.static_power", range_scale::relative, 1.0, 145.0 / 140.0,
       "gpu-burn issue 114: H100 SXM5 in P0 holding a model, 140 W and 145 W (+3.6 %; that spread for every card)"},
      {"gpu_params.compute_efficiency", range_scale::absolute, 0.1, 1.0,
       "baseline/validation.hpp knob_bounds: the physical range of an efficiency (above 0.1, far below any tuned kernel)"},
      {"gpu_params.memory_efficiency", range_scale::absolute, 0.2, 1.0,
       "baseline/validation.hpp knob_bounds: the physical range of an efficiency (above 0.2, far below any tuned kernel)"},
      {"gpu_params.energy_per_flop", range_scale::relative, (350.0 - 140.0) / (700.0 - 140.0), 1.0,
       "derived as its default, (TDP - P_static) / (eta_c * peak) (baseline/gpu.hpp), over the tdp range: "
       "(350 - 140) / (700 - 140) of the cited (that spread for every card)"},
      {"gpu_params.op_overhead", range_scale::absolute, 0.0, 60e-6,
       "baseline/validation.hpp knob_bounds: 0 up to an eager-mode launch with its Python dispatch (tens of us)"},
      {"gpu_params.link_bandwidth", range_scale::relative, 380.0 / 450.0, 1.0,
       "NVIDIA/nccl issue 1264: 380 GB/s measured of NVLink 4's 450 GB/s per direction (-16 %; that spread for every card)"},
      {"gpu_params.node_link_bandwidth", range_scale::relative, 200.0 / 400.0, 800.0 / 400.0,
       "InfiniBand per GPU: NVIDIA DGX A100 user guide, one ConnectX-6 HDR 200 Gb/s port per GPU, to ConnectX-8 "
       "SuperNIC's 800 Gb/s; DGX H100's ConnectX-7 NDR 400 Gb/s the cited (x0.5 .. x2; that spread for every card)"},
      {"gpu_params.usable_memory_fraction", range_scale::absolute, 0.0, 1.0,
       "vLLM engine arguments: --gpu-memory-utilization in (0, 1]"},
      // --- the Stratum system (`stratum/system.hpp`, `stratum/nmp.hpp`, `baseline/hbm_nmp.hpp`) ---
      {"stratum_system_params.xpu_wait_power_fraction", range_scale::absolute, 0.0, 1.0,
       "stratum/system.hpp: 0 the die at its static power, 1 at its TDP (the upper bound); Stratum §6.3 states nothing"},
      {"stratum_system_params.nmp.compute_efficiency", range_scale::absolute, 0.0, 1.0,
       "stratum/nmp.hpp: an achieved fraction of the tensor-core peak, (0, 1] by definition"},
      {"stratum_system_params.nmp.phy_bandwidth", range_scale::relative, 3.35e12 / 5.0 / 128.0 / 6.4e9, 1.0,
       "HBM3 pin rates: the H100 SXM5's 3.35 TB/s over 5 stacks of 1024 pins is 5.23 Gb/s (baseline/gpu.hpp [facts]), "
       "JESD238's top rate 6.4 Gb/s the cited"},
      {"stratum_system_params.nmp.phy_energy", range_scale::absolute, 0.95 * 8e-12, 1.8 * 8e-12,
       "A-SSCC 2022 (IEEE Xplore 9980680): a charge-recycling HBM IO at 0.95 pJ/b, 47 % below a conventional one (1.8 pJ/b)"},
      {"stratum_system_params.hbm.external_bandwidth", range_scale::relative, 3.35e12 / 5.0 / 128.0 / 6.4e9, 1.0,
       "HBM3 pin rates: the H100 SXM5's 3.35 TB/s over 5 stacks of 1024 pins is 5.23 Gb/s (baseline/gpu.hpp [facts]), "
       "JESD238's top rate 6.4 Gb/s the cited"},
      {"stratum_system_params.hbm.capacity", range_scale::relative, 16.0 / 24.0, 1.0,
       "HBM3 stacks: the H100 SXM5's 16 GB (80 GB in 5 stacks) to SK hynix's 12-high 24 GB (the cited)"},
      // --- the Mono3D chip and its logic die (`device/*.hpp`, `tech/logic_7nm.hpp`) ---
      {"stratum_system_params.nmp.chip.memory.array_efficiency", range_scale::absolute, 0.0, 1.0,
       "device/mono3d.hpp: the fraction of the memory die that is MAT array, (0, 1] by definition"},
      {"stratum_system_params.nmp.chip.memory.base.t_rcd", range_scale::absolute, 13.75e-9, 17.5e-9,
       "JESD79-5 DDR5 speed bins: tRCD from 13.75 ns (DDR5-3200A, 22 tCK) to 17.5 ns (the C bins, e.g. DDR5-6400C 56 tCK)"},
      {"stratum_system_params.nmp.chip.memory.base.t_cl", range_scale::absolute, 13.75e-9, 17.5e-9,
       "JESD79-5 DDR5 speed bins: tAA from 13.75 ns (DDR5-3200A, 22 tCK) to 17.5 ns (the C bins, e.g. DDR5-6400C 56 tCK)"},
      {"stratum_system_params.nmp.chip.memory.base.t_rp", range_scale::absolute, 13.75e-9, 17.5e-9,
       "JESD79-5 DDR5 speed bins: tRP from 13.75 ns (DDR5-3200A, 22 tCK) to 17.5 ns (the C bins, e.g. DDR5-6400C 56 tCK)"},
      {"stratum_system_params.nmp.chip.memory.bank_access_bytes", range_scale::absolute, 1024.0, 4096.0,
       "DRAM page sizes: JESD79-5 DDR5 1 KB (x4, x8) to the Mono3D bank's own 4 KiB row, 32 MATs x 1024 BL "
       "(device/logic_die_params.hpp row_size)"},
      {"stratum_system_params.nmp.chip.memory.energy.bond", range_scale::absolute, 0.01 * 8e-12, 0.05 * 8e-12,
       "UCIe 2.0 (2024), UCIe-3D hybrid bonding: power-efficiency target 0.01 pJ/b at 1 um pitch to < 0.05 pJ/b at 9 um"},
      {"stratum_system_params.nmp.chip.logic.alpha", range_scale::absolute, 0.0, 1.0,
       "device/logic_die.hpp: a target utilisation of the die, A_usable = alpha * A_die, (0, 1] by definition"},
      {"stratum_system_params.nmp.chip.logic.e_b", range_scale::absolute, 0.01 * 8e-12, 0.05 * 8e-12,
       "UCIe 2.0 (2024), UCIe-3D hybrid bonding: power-efficiency target 0.01 pJ/b at 1 um pitch to < 0.05 pJ/b at 9 um"},
      {"stratum_system_params.nmp.chip.logic.v_dram_core", range_scale::absolute, 1.1 - 0.033, 1.1 + 0.066,
       "SK hynix DDR5 SDRAM SO-DIMM datasheet (16Gb M-die, Rev. 1.0, 2021): VDD = 1.1 V -33 mV / +66 mV"},
      {"stratum_system_params.nmp.chip.logic.v_dram_periph", range_scale::relative, 1.0 - 0.125 / 2.5, 1.0 + 0.25 / 2.5,
       "SK hynix DDR5 SDRAM SO-DIMM datasheet (16Gb M-die, Rev. 1.0, 2021): VPP tolerance -125 mV / +250 mV on its "
       "2.5 V, -5 % / +10 %, on JESD79-5's 1.8 V"},
      {"stratum_system_params.nmp.chip.logic.tech.sram_array_efficiency", range_scale::absolute, 0.0, 1.0,
       "tech/logic_7nm.hpp: bit cells over macro area, (0, 1] by definition"},
      {"stratum_system_params.nmp.chip.logic.tech.placement_utilization", range_scale::absolute, 0.0, 1.0,
       "tech/logic_7nm.hpp: cell area over placed block area, (0, 1] by definition"},
      {"stratum_system_params.nmp.chip.logic.tech.fp16_add_area_fraction", range_scale::absolute, 0.0, 1.0,
       "tech/logic_7nm.hpp: the adder's share of an FP16 MAC (multiplier + adder), (0, 1) by definition"},
      // --- DRAM refresh (`device/dram_refresh.hpp`: the Mono3D chip's, the HBM stack's and the thermal
      // stack's, `dram_refresh_params.*` through the aliases) ---
      {"dram_refresh_params.t_refi", range_scale::absolute, 1.95e-6, 3.9e-6,
       "JESD79-5 DDR5: tREFI 3.9 us at normal temperature (<= 85 degC), 1.95 us above"},
      {"dram_refresh_params.t_refw", range_scale::absolute, 16e-3, 32e-3,
       "JESD79-5 DDR5: tREFW 32 ms at normal temperature (<= 85 degC), 16 ms above"},
      // --- the Stratum chip's thermal stack (`thermal/stratum_stack.hpp`) ---
      {"stratum_stack_params.logic_beol.conductivity_W_mK", range_scale::relative, 3.0 / 5.5, 3.0 / 0.5,
       "IBM, 'Measurement of back end of line thermal resistance for 3D chip stacks' (2013): 0.5-5.5 K mm2/W for a "
       "four-level group, 3.0 the cited (k = t / R)"},
      {"stratum_stack_params.memory_beol.conductivity_W_mK", range_scale::relative, 3.0 / 5.5, 3.0 / 0.5,
       "IBM, 'Measurement of back end of line thermal resistance for 3D chip stacks' (2013): 0.5-5.5 K mm2/W for a "
       "four-level group, 3.0 the cited (k = t / R)"},
      {"stratum_stack_params.array.tier_pitch_m", range_scale::absolute, 40e-9, 60e-9,
       "Coventor, '3D NAND flash memory density' (SEMulator3D study): 20-30 nm of oxide plus a word-line ply of about "
       "the same, 40-60 nm a tier"},
      {"stratum_stack_params.array.oxide_fraction", range_scale::absolute, 0.0, 1.0,
       "thermal/stratum_stack.hpp: the share of a tier that is oxide, [0, 1] by definition"},
      {"stratum_stack_params.coolant_K", range_scale::absolute, 290.15, 318.15,
       "ASHRAE TC 9.9 liquid-cooling classes W17 to W45: facility water supplied at up to 17 to 45 degC"},
      {"stratum_stack_params.dram_limit_C", range_scale::absolute, 85.0, 95.0,
       "JESD79-5 DDR5: normal temperature range up to 85 degC, extended up to 95 degC"},
      {"stratum_stack_params.dram_load", range_scale::absolute, 0.0, 1.0,
       "thermal/stratum_stack.hpp: DRAM traffic as a share of BW_fast, [0, 1] by definition"},
      // --- the HCRMap substrate (`chiplet/substrate.hpp`; HCRMap Table 1's values the cited) ---
      {"substrate_params.d2d.bandwidth", range_scale::relative, 4.0 / 32.0, 1.0,
       "UCIe 1.0/1.1 advanced package: a 64-lane module at 4 to 32 GT/s, 32 to 256 GB/s per direction (Table 1's "
       "256 GB/s the top rate)"},
      {"substrate_params.d2d.phy_latency", range_scale::absolute, 0.0, 2e-9,
       "UCIe 1.1: PHY + adapter latency target < 2 ns (an upper bound; no lower one stated)"},
      {"substrate_params.d2d.energy", range_scale::absolute, 0.25 * 8e-12, 0.3 * 8e-12,
       "UCIe 1.0/1.1 advanced package power-efficiency targets (Das Sharma, Hot Interconnects 2025): 0.25 pJ/b up to "
       "16 GT/s, 0.3 pJ/b above"},
      {"substrate_params.io_link.bandwidth", range_scale::relative, 4.0 / 32.0, 1.0,
       "UCIe 1.0/1.1 advanced package: a 64-lane module at 4 to 32 GT/s, 32 to 256 GB/s per direction (Table 1's "
       "256 GB/s the top rate)"},
      {"substrate_params.io_link.phy_latency", range_scale::absolute, 0.0, 2e-9,
       "UCIe 1.1: PHY + adapter latency target < 2 ns (an upper bound; no lower one stated)"},
      {"substrate_params.io_link.energy", range_scale::absolute, 0.25 * 8e-12, 0.3 * 8e-12,
       "UCIe 1.0/1.1 advanced package power-efficiency targets (Das Sharma, Hot Interconnects 2025): 0.25 pJ/b up to "
       "16 GT/s, 0.3 pJ/b above"},
      {"substrate_params.sram.energy", range_scale::absolute, 10e-12 / 8.0, 100e-12 / 8.0,
       "Horowitz, 'Computing's energy problem', ISSCC 2014 (45 nm): a 64-bit read 10 pJ from an 8 KB SRAM to 100 pJ "
       "from a 1 MB one, 1.25 to 12.5 pJ/B"},
      {"substrate_params.hbm.bandwidth", range_scale::relative, 1.4 / 1.8, 2.4 / 1.8,
       "HBM2 pin rates: 1.4 Gb/s (Tesla P100, 720 GB/s over 4096 pins) to 2.4 Gb/s (JESD235B, 307 GB/s a stack); "
       "Table 1's 460 GB/s over two stacks is 1.8 Gb/s"},
      {"substrate_params.hbm.capacity", range_scale::relative, 2.0 / 8.0, 48.0 / 8.0,
       "JESD235B HBM2: 2-high to 12-high stacks, 1 to 24 GB a stack; Table 1's 8 GB over its two stacks (32 "
       "pseudo-channels) is 4 GB a stack, the range 2 to 48 GB"},
      {"substrate_params.dram.bandwidth", range_scale::relative, 3200.0 / 6400.0, 8800.0 / 6400.0,
       "JEDEC DDR5 speed bins: DDR5-3200 (JESD79-5, 2020) to DDR5-8800 (JESD79-5C, 2024), 25.6 to 70.4 GB/s a "
       "channel; Table 1's 8 DDR5-6400 channels at 409.6 GB/s, the range 204.8 to 563.2 GB/s"},
      // --- the HCRMap critical path and package plan (`chiplet/layer_model.hpp`, `chiplet/scale_out.hpp`) ---
      {"critical_path_params.tile_utilization", range_scale::absolute, 0.0, 1.0,
       "chiplet/layer_model.hpp: the legal-tile utilisation eta_r, (0, 1] by definition"},
      {"critical_path_params.alpha_mig", range_scale::absolute, 0.0, 1.0,
       "chiplet/layer_model.hpp: the weight of migration pressure alpha_mig, [0, 1] (the model's own bound)"},
      {"critical_path_params.compute_scale", range_scale::absolute, 0.0, 1.0,
       "chiplet/window.hpp next_compute_scale: a RAPL throttling factor, 1 unthrottled, (0, 1] by definition"},
      {"scale_out_params.link.phy_latency", range_scale::absolute, 140e-9, 250e-9,
       "Sun et al., 'Demystifying CXL Memory with Genuine CXL-Ready Systems and Devices', MICRO 2023: 140-250 ns over "
       "local DRAM for a load through a CXL port"},
  };
  return table;
}

/// Struct prefixes that read another struct's ranges: a nested `gpu_params`, the fitted knobs and
/// the nested `dram_refresh_params`.
template <class = void>
inline const std::vector<std::pair<std::string, std::string>>& parameter_range_aliases() {
  static const std::vector<std::pair<std::string, std::string>> aliases{
      {"stratum_system_params.xpu.", "gpu_params."},
      {"stratum_system_params.hbm.xpu.", "gpu_params."},
      {"gpu_knobs.", "gpu_params."},
      {"stratum_system_params.nmp.refresh.", "dram_refresh_params."},
      {"stratum_system_params.hbm.refresh.", "dram_refresh_params."},
      {"stratum_stack_params.refresh.", "dram_refresh_params."},
  };
  return aliases;
}

/// The range of parameter `key` (struct-qualified path) cited at `cited` (SI): the stated one
/// (through the aliases), else one decade each way.
template <class = void>
inline resolved_range range_of(const std::string& key, double cited) {
  std::vector<std::string> keys{key};
  for (const auto& [from, to] : parameter_range_aliases()) {
    if (key.compare(0, from.size(), from) == 0) keys.push_back(to + key.substr(from.size()));
  }
  for (const auto& k : keys) {
    for (const auto& r : parameter_ranges()) {
      if (r.key != k) continue;
      resolved_range out;
      out.stated = true;
      out.source = r.source;
      if (r.scale == range_scale::relative) {
        out.lo = r.lo * cited;
        out.hi = r.hi * cited;
      } else {
        out.lo = r.lo;
        out.hi = r.hi;
      }
      if (out.hi <= out.lo) {  // a relative range of a parameter cited at 0: no scale
        out.lo = out.hi = 0.0;
      }
      return out;
    }
  }
  resolved_range out;
  out.source = "no range stated (one decade each way)";
  out.lo = cited / 10.0;
  out.hi = cited * 10.0;
  if (!(cited > 0.0)) out.lo = out.hi = 0.0;
  return out;
}

namespace detail {
/// Table rows of one struct: every real field (`visit_fields`, as the sensitivity machinery
/// collects them), its default and its range.
template <class P>
void range_table_rows(std::string& out, const std::string& type, const P& defaults, const std::string& skip_prefix = {}) {
  P copy = defaults;
  std::vector<sens_leaf<double>> leaves;
  collect_leaves<double>(copy, std::string(), leaves);
  for (const auto& l : leaves) {
    if (!skip_prefix.empty() && l.path.compare(0, skip_prefix.size(), skip_prefix) == 0) continue;
    const std::string key = type + "." + l.path;
    const auto r = range_of(key, l.value);
    out += "| " + key + " | " + report_number(l.value) + " | ";
    out += r.usable() ? report_number(r.lo) + " .. " + report_number(r.hi) : std::string("none (cited 0)");
    out += " | " + r.source + " |\n";
  }
}
}  // namespace detail

/// The markdown table of every real parameter of the report's parameter structs (a default
/// `gpu_params`: the H100 SXM5; `gpu_knobs`; a default `stratum_system_params`: Stratum-L; the
/// Stratum stack's thermal parameters, `thermal::stratum_stack_params`, without its chip, whose
/// fields are the system's `nmp.chip`; the HCRMap substrate, critical path and package plan,
/// `substrate_params`, `critical_path_params`, `scale_out_params`) with its default and range, SI
/// units (file comment).
template <class = void>
inline std::string parameter_range_table_markdown() {
  std::string out = "| parameter | default (SI) | range (SI) | range source |\n| --- | ---: | --- | --- |\n";
  detail::range_table_rows(out, "gpu_params", gpu_params{});
  detail::range_table_rows(out, "gpu_knobs", gpu_knobs{});
  detail::range_table_rows(out, "stratum_system_params", stratum_system_params<>{});
  detail::range_table_rows(out, "stratum_stack_params", thermal::stratum_stack_params{}, "chip.");
  detail::range_table_rows(out, "substrate_params", substrate_params{});
  detail::range_table_rows(out, "critical_path_params", critical_path_params{});
  detail::range_table_rows(out, "scale_out_params", scale_out_params{});
  return out;
}

}  // namespace v0
}  // namespace strata
