// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Rows `stratum.system.*` (decode against the GPUs), `stratum.placement.*`, `stratum.tiering.*`,
/// `stratum.duplex.*`, `stratum.batch_sweep.*` and `stratum.layers.*` of the paper report, from
/// the Stratum system model (`stratum/system.hpp`).
///
/// Workloads (Stratum §7): OLMoE-1B-7B on Stratum-S vs an RTX A6000; Mixtral 8×7B and
/// Qwen2.5-32B on Stratum-L vs H100 SXM5; Llama-4-Scout on Stratum-XL vs H100 SXM5s. The paper's
/// Table 2 is not available; the settings are fixed here, before any comparison:
/// - decode, batch B ∈ {1, 4, 16, 64, 256} × context S ∈ {512, 1024, 2048, 4096};
/// - a point counts only where both the Stratum system and the GPU baseline hold the weights and
///   the KV cache of the batch (vLLM would cap its concurrency there); skipped points are counted;
/// - the GPU baseline is the fewest GPUs that hold the weights at B = 1, S = 512 with vLLM's
///   memory budget, with 16-bit weights, or FP8 weights where FP8 needs fewer GPUs (vLLM's
///   `--quantization fp8` on H100): OLMoE on one A6000 (16-bit), Mixtral on one H100 (FP8),
///   Qwen2.5-32B on one H100 (16-bit), Llama-4-Scout on two H100s (FP8); the Stratum NMP computes
///   in FP16 with 16-bit weights (Stratum §7);
/// - expert usage: the paper's aggregated hot-expert hit rates reached with topic prediction
///   (Mixtral 31.6 %, OLMoE 48.5 %, Llama-4-Scout 68.9 %; `usage_from_hit_rate`), for routing and
///   placement alike;
/// - aggregation as the paper's: the decode speedup is the mean over the points of the tokens/s
///   ratio; the energy-efficiency gain is the largest tokens/J ratio over the points.
///
/// Calibration: none. The decode-speedup and energy rows are checks: an NMP invocation costs its
/// mechanism (`nmp_invocation_time`: kernel launch, mode entry and exit by mode-register writes,
/// a completion poll; Stratum §3.2 Fig. 8c) and no fixed cost is solved from them; the xPU die
/// waits at its static power (`xpu_while_nmp::idle`, `xpu_wait_power_fraction` = 0: the card's
/// measured P0 power). Each energy row is printed again beside it under the other accounting
/// (`<id>.xpu_tdp`: the die at its TDP while the NMP decodes, the reading the paper's peaks
/// imply), a prediction saying whether the paper's number is within its band under it; no
/// default follows a row.
/// Where a row misses its band the report derives the gap term by term (`speedup_gap_terms`,
/// `energy_gap_terms`).
///
/// One GPU calibration: the GPU every row divides by and the Stratum system's xPU die both carry
/// the default knob set (`baseline_gpu`, `baseline/baseline_gpu.hpp`: the card's cited knobs, the
/// engine generation of the paper's vLLM 0.8.1 baseline); the knobs fitted on the 2024 measurement
/// set (`validated_gpu`, the `validation.fit.*` rows) are `gpu_knob_set::fitted`.

#include <algorithm>  // std::min, std::max
#include <array>      // std::array
#include <bit>        // std::bit_cast (same_inputs)
#include <cstdint>    // std::uint64_t
#include <cmath>      // std::log, std::abs
#include <optional>   // std::optional (a variant row's paper value, a kept GPU point)
#include <type_traits>  // std::is_same_v, std::decay_t
#include <string>     // std::string
#include <utility>    // std::move
#include <vector>     // std::vector

#include "strata/baseline/gpu.hpp"
#include "strata/baseline/baseline_gpu.hpp"
#include "strata/core/sensitivity.hpp"
#include "strata/report/paper_row.hpp"
#include "strata/stratum/prediction_gain.hpp"
#include "strata/stratum/row_swap.hpp"
#include "strata/stratum/usage.hpp"
#include "strata/stratum/system.hpp"
#include "strata/workload/presets.hpp"

namespace strata {
inline namespace v0 {

/// One of the four Stratum workloads.
struct stratum_workload {
  std::string key;      ///< row id part: "olmoe", "mixtral", "qwen2_5_32b", "llama4_scout"
  std::string model;    ///< preset name
  std::string system;   ///< "stratum-s", "stratum-l", "stratum-xl"
  std::string gpu;      ///< "rtx_a6000" or "h100_sxm5"
  double hit_rate = 0;  ///< aggregated hot-expert hit rate (0: dense model)
};

/// The four workloads of Stratum §7 with the paper's aggregated hot-expert hit rates (Stratum §5.1, §6.3).
template <class = void>
inline std::vector<stratum_workload> stratum_workloads() {
  return {{"olmoe", "OLMoE-1B-7B-0924", "stratum-s", "rtx_a6000", 0.485},
          {"mixtral", "Mixtral-8x7B", "stratum-l", "h100_sxm5", 0.316},
          {"qwen2_5_32b", "Qwen2.5-32B", "stratum-l", "h100_sxm5", 0.0},
          {"llama4_scout", "Llama-4-Scout-17B-16E", "stratum-xl", "h100_sxm5", 0.689}};
}

/// The paper's calibration values the system rows are judged against and the calibration is solved
/// from (Stratum §6.3, Fig. 16): average decode speedup and peak energy-efficiency gain.
struct stratum_paper_gains {
  double olmoe_speedup = 8.29, olmoe_energy = 7.66;
  double mixtral_speedup = 5.39, mixtral_energy = 2.74;
};

/// The serving settings every system row uses (file comment).
struct stratum_settings {
  std::vector<int> batches{1, 4, 16, 64, 256};
  std::vector<int> contexts{512, 1024, 2048, 4096};
};

/// The GPU baseline of a model: the model as the GPUs run it (its weight bits) and their count.
struct gpu_baseline {
  model served;   ///< the model with the GPUs' weight precision
  int gpus = 0;   ///< tensor-parallel GPUs
};

/// The fewest GPUs holding `m`'s weights at B = 1, S = 512; FP8 weights where that needs fewer.
template <class = void>
inline gpu_baseline choose_gpu_baseline(const gpu_params& g, const model& m) {
  const step_shape s{.mode = phase::decode, .batch = 1, .context = 512};
  gpu_baseline b{m, min_devices(g, m, s)};
  model m8 = m;
  m8.weight_bits = 8;
  const int n8 = min_devices(g, m8, s);
  if (n8 > 0 && (b.gpus == 0 || n8 < b.gpus)) b = {m8, n8};
  return b;
}

/// Usage of a workload: the hit-rate table (uniform when dense).
template <class = void>
inline stratum_usage workload_usage(const model& m, double hit_rate) {
  stratum_usage u;
  if (m.experts > 0 && hit_rate > 0.0) u.routing = usage_from_hit_rate(m.moe_layers(), m.experts, m.top_k, hit_rate);
  return u;
}

/// One setting compared.
struct comparison_point {
  int batch = 0, context = 0;
  double stratum_tokens_per_s = 0, gpu_tokens_per_s = 0;
  double stratum_tokens_per_j = 0, gpu_tokens_per_j = 0;
  template <class = void>
  double speedup() const { return stratum_tokens_per_s / gpu_tokens_per_s; }
  template <class = void>
  double energy_gain() const { return stratum_tokens_per_j / gpu_tokens_per_j; }
};

/// A workload over the settings.
struct stratum_comparison {
  std::vector<comparison_point> points;
  int skipped = 0;                ///< settings that either side cannot hold
  gpu_baseline baseline{};
  double mean_speedup = 0;        ///< mean tokens/s ratio
  double peak_energy_gain = 0;    ///< largest tokens/J ratio
};

/// The GPU a workload is compared with: its card with the default knob set (`baseline_gpu`).
template <class = void>
inline gpu_params workload_gpu(const stratum_workload& w) { return baseline_gpu(gpu_preset(w.gpu)); }

namespace detail {
/// The bits of every real field of `p` (doubles and quantities of double, nested structs walked),
/// in field order: with `==`, which also compares the integer, enum and string fields, two structs
/// that give the same bits here are the same inputs (`==` alone takes 0.0 for -0.0).
template <class P>
void real_field_bits(P& p, std::vector<std::uint64_t>& out) {
  P::visit_fields(p, [&](const char*, auto& f) {
    using X = std::decay_t<decltype(f)>;
    if constexpr (std::is_same_v<X, double>) {
      out.push_back(std::bit_cast<std::uint64_t>(f));
    } else if constexpr (sens_is_quantity<X>::value) {
      if constexpr (std::is_same_v<typename X::value_type, double>) out.push_back(std::bit_cast<std::uint64_t>(f.si()));
    } else if constexpr (sens_has_fields<X>) {
      real_field_bits(f, out);
    }
  });
}
/// Whether `a` and `b` are the same inputs: equal (`==`) and every real field the same bits.
template <class P>
bool same_inputs(const P& a, const P& b) {
  if (!(a == b)) return false;
  P x = a, y = b;
  std::vector<std::uint64_t> bx, by;
  real_field_bits(x, bx);
  real_field_bits(y, by);
  return bx == by;
}
/// The entry of `entries` whose inputs (its member `key`) are the same inputs as `value`
/// (`same_inputs`), made the most recently used (`keep_touch`) with `hits` counted; null when no
/// entry is.
template <class E, class P>
E* find_kept(std::vector<E>& entries, P E::*key, const P& value, long long& hits) {
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (same_inputs(entries[i].*key, value)) {
      ++hits;
      return &keep_touch(entries, i);
    }
  }
  return nullptr;
}
}  // namespace detail

/// The two sides of `compare_with_gpu` kept from one call to the next, for one workload and one
/// set of settings (the gap explainer's re-evaluations, `report/explain_groups.hpp`): the Stratum
/// system's decode steps depend on the system alone, the GPU baseline's on the card alone, and a
/// re-evaluation changes one of them. Each side is kept with the exact inputs it was computed from
/// (`detail::same_inputs`: equal, every real field the same bits) and taken when a call's inputs
/// are those (`detail::find_kept`, one lookup for both sides); the GPU side's points are computed
/// when first needed (a point where the Stratum system holds the batch), as the call without it
/// computes them. The same comparison, bit for bit, either way: each value is the same function
/// of the same inputs, combined in the same order. At most `capacity` entries of each side, the
/// least recently used dropped first.
struct stratum_comparison_keep {
  /// One setting's Stratum decode step (`evaluate_decode`).
  struct stratum_point {
    bool feasible = false;
    double tokens_per_s = 0, tokens_per_j = 0;
  };
  struct stratum_side {
    stratum_system_params<> sys;
    std::vector<stratum_point> points;  ///< by context, then batch (the settings' order)
  };
  /// One setting's GPU step: whether the baseline holds it, and its rates when it does.
  struct gpu_point {
    bool fits = false;
    double tokens_per_s = 0, tokens_per_j = 0;
  };
  struct gpu_side {
    gpu_params g;
    gpu_baseline baseline;
    std::vector<std::optional<gpu_point>> points;  ///< by context, then batch; computed when needed
  };
  std::string model;         ///< the workload's preset, hit rate and settings the entries are for
  double hit_rate = 0.0;
  stratum_settings settings;
  std::vector<stratum_side> stratum;
  std::vector<gpu_side> gpu;
  std::size_t capacity = 4;  ///< entries of each side [design choice: the cited point and a few changes]
  long long stratum_hits = 0, gpu_hits = 0, misses = 0;  ///< sides taken from an entry, and computed
};

/// Stratum system `sys` against the workload's GPU baseline over the settings, the GPU being the
/// card `g` (the gap explainer, `report/explain.hpp`, moves its parameters; the rows use
/// `workload_gpu(w)`, the overload below). `kept`: expert-parallel placements kept between
/// calls (`expert_chips_keep`; the same numbers either way). `keep`: the two sides of earlier
/// calls for this workload and these settings (`stratum_comparison_keep`; the same numbers either
/// way).
template <class = void>
inline stratum_comparison compare_with_gpu(const stratum_system_params<>& sys, const stratum_workload& w,
                                           const stratum_settings& set, const gpu_params& g,
                                           expert_chips_keep* kept = nullptr,
                                           stratum_comparison_keep* keep = nullptr) {
  const auto m = preset(w.model);
  const auto u = workload_usage(m, w.hit_rate);
  stratum_comparison c;
  const std::size_t n_points = set.contexts.size() * set.batches.size();
  if (keep != nullptr && keep->capacity == 0) keep = nullptr;  // keeps nothing
  if (keep != nullptr && (keep->model != w.model || keep->hit_rate != w.hit_rate ||
                          keep->settings.batches != set.batches || keep->settings.contexts != set.contexts)) {
    keep->model = w.model;  // another workload or other settings: the entries are not theirs
    keep->hit_rate = w.hit_rate;
    keep->settings = set;
    keep->stratum.clear();
    keep->gpu.clear();
  }
  // The GPU side: the kept entry of this card, else a new one (its points computed below).
  stratum_comparison_keep::gpu_side own_gpu;
  stratum_comparison_keep::gpu_side* gs =
      keep != nullptr ? detail::find_kept(keep->gpu, &stratum_comparison_keep::gpu_side::g, g, keep->gpu_hits) : nullptr;
  if (gs == nullptr) {
    own_gpu.g = g;
    own_gpu.baseline = choose_gpu_baseline(g, m);
    own_gpu.points.assign(n_points, std::nullopt);
    if (keep != nullptr) {
      ++keep->misses;
      detail::keep_add(keep->gpu, std::move(own_gpu), keep->capacity);
      gs = &keep->gpu.back();
    } else {
      gs = &own_gpu;
    }
  }
  c.baseline = gs->baseline;
  const auto machine = make_machine(g, std::max(1, c.baseline.gpus));
  // The Stratum side: the kept entry of this system, else its steps evaluated.
  const stratum_comparison_keep::stratum_side* ss =
      keep != nullptr ? detail::find_kept(keep->stratum, &stratum_comparison_keep::stratum_side::sys, sys, keep->stratum_hits)
                      : nullptr;
  stratum_comparison_keep::stratum_side own_stratum;
  if (ss == nullptr) {
    const auto sm = prepare(sys);  // the chip once for the whole grid
    own_stratum.points.reserve(n_points);
    for (int S : set.contexts) {
      for (int B : set.batches) {
        const step_shape s{.mode = phase::decode, .batch = B, .context = S};
        const auto r = evaluate_decode(sm, place_model(sm, m, s, u.placed_by(), nullptr, kept), m, s, u.routing);
        own_stratum.points.push_back({r.feasible, r.tokens_per_s, r.tokens_per_joule});
      }
    }
    if (keep != nullptr) {
      ++keep->misses;
      own_stratum.sys = sys;
      detail::keep_add(keep->stratum, std::move(own_stratum), keep->capacity);
      ss = &keep->stratum.back();
    } else {
      ss = &own_stratum;
    }
  }
  std::size_t k = 0;
  for (int S : set.contexts) {
    for (int B : set.batches) {
      const step_shape s{.mode = phase::decode, .batch = B, .context = S};
      const auto& r = ss->points[k];
      auto& gp = gs->points[k];
      ++k;
      if (!r.feasible || c.baseline.gpus == 0) {
        ++c.skipped;
        continue;
      }
      if (!gp) {
        stratum_comparison_keep::gpu_point q;
        q.fits = check_fit(g, c.baseline.gpus, c.baseline.served, s).fits;
        if (q.fits) {
          const auto gr = evaluate(c.baseline.served, s, machine);
          q.tokens_per_s = gr.tokens_per_s;
          q.tokens_per_j = 1.0 / gr.joules_per_token;
        }
        gp = q;
      }
      if (!gp->fits) {
        ++c.skipped;
        continue;
      }
      c.points.push_back({B, S, r.tokens_per_s, gp->tokens_per_s, r.tokens_per_j, gp->tokens_per_j});
    }
  }
  double sum = 0.0;
  for (const auto& p : c.points) {
    sum += p.speedup();
    c.peak_energy_gain = std::max(c.peak_energy_gain, p.energy_gain());
  }
  if (!c.points.empty()) c.mean_speedup = sum / double(c.points.size());
  return c;
}

/// Stratum system `sys` against the workload's GPU baseline (`workload_gpu(w)`) over the settings.
template <class = void>
inline stratum_comparison compare_with_gpu(const stratum_system_params<>& sys, const stratum_workload& w,
                                           const stratum_settings& set = {}) {
  return compare_with_gpu(sys, w, set, workload_gpu(w));
}

/// The system of a workload, with the shared parameters of `base` (mode-register delay, wait
/// power and its accounting, LM head placement, compute efficiency, refresh) applied.
template <class = void>
inline stratum_system_params<> workload_system(const stratum_workload& w, const stratum_system_params<>& base = {}) {
  auto p = stratum_system(w.system);
  p.nmp_mode_register_delay = base.nmp_mode_register_delay;
  p.xpu_wait_power_fraction = base.xpu_wait_power_fraction;
  p.xpu_while_nmp_power = base.xpu_while_nmp_power;
  p.lm_head = base.lm_head;
  p.nmp.compute_efficiency = base.nmp.compute_efficiency;
  p.nmp.refresh = base.nmp.refresh;
  p.hbm.refresh = base.hbm.refresh;
  return p;
}

/// A decode-speedup row term by term: the model's mean over the settings against the paper's,
/// the NMP invocation by its mechanism, and the xPU kernel launch that would bring the model's
/// mean to the paper's (a diagnosis of the gap, used by no row).
///
/// Every xPU kernel launch — of an xPU operator (the GPU's operators, residual adds fused into
/// the norms on both sides) and of an NMP invocation — costs `xpu.op_overhead` ℓ (the card's
/// knob), so a Stratum step at one setting is t + n·(ℓ' − ℓ) with a launch of ℓ' (n: its
/// launches, `xpu_launches + nmp_invocations`); the GPU keeps its own.
struct speedup_gap {
  double model = 0, paper = 0;
  int points = 0;
  int invocations = 0;        ///< NMP invocations per step at B 1, S 2048: two per layer, one more for an NMP LM head (of the slowest stage)
  double launch_us = 0;       ///< the xPU's kernel launch (`xpu.op_overhead`, the card's knob)
  double handshake_us = 0;    ///< 2 tMRD + the completion poll's transfer
  double implied_launch_us = -1;  ///< the xPU launch at which the mean equals the paper's (−1: none ≥ 0)
  double b1_launches = 0;     ///< xPU kernel launches of a step at B 1, S 2048
  double b1_step_us = 0, b1_calls_us = 0, b1_xpu_us = 0, b1_nmp_work_us = 0, b1_gpu_us = 0;  ///< at B 1, S 2048
  double b1_gpu_launch_us = 0;    ///< the GPU's launches at B 1, S 2048 (operators × its op_overhead)
};

/// The terms of a speedup row of workload `w` on `sys` against the paper's mean `paper`.
template <class = void>
inline speedup_gap speedup_gap_terms(const stratum_system_params<>& sys, const stratum_workload& w, double paper) {
  const auto c = compare_with_gpu(sys, w);
  const auto m = preset(w.model);
  const auto u = workload_usage(m, w.hit_rate);
  const auto sm = prepare(sys);
  speedup_gap g;
  g.model = c.mean_speedup;
  g.paper = paper;
  g.points = static_cast<int>(c.points.size());
  const double launch = sys.xpu.op_overhead.si();
  g.launch_us = launch * 1e6;
  g.handshake_us = nmp_invocation_time(sys, sm.device).in(units::us) - g.launch_us;
  // Launches of each point's step (slowest stage's composition): its xPU operators' and its NMP
  // invocations' (`stratum_step_result::xpu_launches`, `nmp_invocations`).
  std::vector<double> launches;
  for (const auto& p : c.points) {
    const auto r = evaluate_decode(sm, m, step_shape{.mode = phase::decode, .batch = p.batch, .context = p.context}, u);
    launches.push_back(double(r.xpu_launches + r.nmp_invocations));
  }
  const auto mean_with = [&](double l) {
    double sum = 0.0;
    for (std::size_t i = 0; i < c.points.size(); ++i) {
      const auto& p = c.points[i];
      const double t = p.batch / p.stratum_tokens_per_s + launches[i] * (l - launch);
      sum += (p.batch / t) / p.gpu_tokens_per_s;
    }
    return c.points.empty() ? 0.0 : sum / double(c.points.size());
  };
  double lo = 0.0, hi = 1e-3;  // bisection on the mean, decreasing in the launch
  if (mean_with(lo) >= paper && mean_with(hi) <= paper) {
    for (int i = 0; i < 200; ++i) {
      const double mid = 0.5 * (lo + hi);
      (mean_with(mid) > paper ? lo : hi) = mid;
    }
    g.implied_launch_us = 0.5 * (lo + hi) * 1e6;
  }
  const step_shape s{.mode = phase::decode, .batch = 1, .context = 2048};
  const auto r = evaluate_decode(sm, m, s, u);
  g.invocations = r.nmp_invocations;
  g.b1_step_us = r.time.in(units::us);
  g.b1_launches = double(r.xpu_launches + r.nmp_invocations);
  g.b1_calls_us = g.invocations * (g.launch_us + g.handshake_us);
  g.b1_xpu_us = r.xpu_time.in(units::us);
  g.b1_nmp_work_us = r.nmp_time.in(units::us) - g.b1_calls_us;
  const auto gpu = workload_gpu(w);
  const auto gr = evaluate(c.baseline.served, s, make_machine(gpu, std::max(1, c.baseline.gpus)));
  g.b1_gpu_us = gr.time.in(units::us);
  g.b1_gpu_launch_us = double(step_operators(c.baseline.served, s).size()) * gpu.op_overhead.in(units::us);
  return g;
}

/// The text of a speedup row that misses its band (`speedup_gap_terms`).
template <class = void>
inline std::string speedup_gap_text(const speedup_gap& g) {
  using detail::fixed;
  std::string t = "the model's mean over " + std::to_string(g.points) + " settings is " + fixed(g.model, 2) + " against " +
                  fixed(g.paper, 2) + " (" + fixed(100.0 * (g.model / g.paper - 1.0), 0) + " %). At B 1, S 2048 a Stratum step is " +
                  fixed(g.b1_step_us, 0) + " us against the GPU's " + fixed(g.b1_gpu_us, 0) + " us (of which its kernel launches " +
                  fixed(g.b1_gpu_launch_us, 0) + " us): " + std::to_string(g.invocations) +
                  " NMP invocations of " + fixed(g.launch_us + g.handshake_us, 2) + " us each (kernel launch " + fixed(g.launch_us, 2) +
                  " + mode entry and exit and completion poll " + fixed(g.handshake_us * 1e3, 0) + " ns, Stratum §3.2 Fig. 8c, JESD79-5 tMRD) = " +
                  fixed(g.b1_calls_us, 0) + " us, xPU operators " + fixed(g.b1_xpu_us, 0) + " us, NMP work (streams, compute, ring, "
                  "interposer) " + fixed(g.b1_nmp_work_us, 0) + " us; the step makes " + fixed(g.b1_launches, 0) +
                  " xPU kernel launches at the card's " + fixed(g.launch_us, 2) + " us (baseline/baseline_gpu.hpp)";
  if (g.implied_launch_us >= 0.0) {
    t += "; the paper's mean holds with an xPU launch of " + fixed(g.implied_launch_us, 2) +
         " us, the GPU keeping its own: " +
         (g.implied_launch_us < g.launch_us
              ? std::string("the paper's xPU does not pay the per-operator serving-software cost the published vLLM runs "
                            "show on the GPU it is compared with")
              : std::string("the paper's Stratum step carries a fixed cost the mechanisms do not give"));
  } else {
    t += "; no xPU launch of 0 us or more reaches the paper's mean: the gap lies in the NMP work or the GPU";
  }
  return t;
}

/// An energy-efficiency row term by term at the setting of the model's peak: joules per token
/// of the Stratum system by part against the GPU's, and what the paper's peak asks of them.
struct energy_gap {
  double model = 0, paper = 0;
  int batch = 0, context = 0;      ///< the peak's setting
  double stratum_mj = 0, gpu_mj = 0;  ///< per token
  double xpu_mj = 0;               ///< xPU die: static, waiting (`xpu_wait_power_fraction`) and dynamic
  double nmp_mj = 0;               ///< NMP chips: MACs, SFE, SRAM, DRAM, bond, ring, static
  double phy_mj = 0;               ///< interposer PHY
  double xpu_tdp_mj = 0;           ///< the xPU die at its TDP for the whole step, per token
  double wait_ms_per_token = 0;    ///< the xPU's wait while the NMP decodes, per token (all stages)
  double static_w = 0, tdp_w = 0;  ///< the xPU die's static power and TDP
};

/// The terms of an energy row of workload `w` on `sys` against the paper's peak `paper`.
template <class = void>
inline energy_gap energy_gap_terms(const stratum_system_params<>& sys, const stratum_workload& w, double paper) {
  const auto c = compare_with_gpu(sys, w);
  energy_gap g;
  g.model = c.peak_energy_gain;
  g.paper = paper;
  const comparison_point* peak = nullptr;
  for (const auto& p : c.points)
    if (peak == nullptr || p.energy_gain() > peak->energy_gain()) peak = &p;
  if (peak == nullptr) return g;
  g.batch = peak->batch;
  g.context = peak->context;
  const auto m = preset(w.model);
  const auto r = evaluate_decode(sys, m, step_shape{.mode = phase::decode, .batch = g.batch, .context = g.context},
                                 workload_usage(m, w.hit_rate));
  const double per = 1e3 / g.batch;
  const auto& e = r.parts;
  g.stratum_mj = r.energy.si() * per;
  g.gpu_mj = 1e3 / peak->gpu_tokens_per_j;
  g.xpu_mj = (e.xpu_static + e.xpu_dynamic).si() * per;
  g.phy_mj = e.phy.si() * per;
  g.nmp_mj = g.stratum_mj - g.xpu_mj - g.phy_mj;
  g.xpu_tdp_mj = sys.xpu.tdp.si() * r.time.si() * sys.stages * per;
  g.wait_ms_per_token = r.nmp_time.si() * sys.stages * per;
  g.static_w = sys.xpu.static_power.si();
  g.tdp_w = sys.xpu.tdp.si();
  return g;
}

/// The text of an energy row that misses its band (`energy_gap_terms`): the parts of a Stratum
/// token, and the power of the waiting xPU die at which the model's peak equals the paper's.
template <class = void>
inline std::string energy_gap_text(const energy_gap& g) {
  using detail::fixed;
  const double stratum_needed = g.gpu_mj / g.paper;
  const double extra = stratum_needed - g.stratum_mj;  // mJ per token the paper's peak asks beyond the model's
  std::string t = "the model's peak (B " + std::to_string(g.batch) + ", S " + std::to_string(g.context) + ") is " +
                  fixed(g.model, 2) + " against " + fixed(g.paper, 2) + ": a Stratum token takes " + fixed(g.stratum_mj, 3) +
                  " mJ (xPU die " + fixed(g.xpu_mj, 3) + ", waiting at its static power " + fixed(g.static_w, 0) +
                  " W while the NMP decodes for " + fixed(g.wait_ms_per_token, 3) + " ms per token; NMP chips " +
                  fixed(g.nmp_mj, 3) + "; interposer " + fixed(g.phy_mj, 3) + ") against the GPU's " + fixed(g.gpu_mj, 3) +
                  " mJ; the paper's peak needs " + fixed(stratum_needed, 3) + " mJ per Stratum token, " +
                  fixed(std::abs(extra), 3) + " mJ " + (extra >= 0.0 ? "more" : "less") + " than the model's";
  const double wait_w = g.wait_ms_per_token > 0.0 ? g.static_w + extra / g.wait_ms_per_token : -1.0;
  if (extra >= 0.0 && wait_w <= g.tdp_w) {
    t += ", which the waiting die would draw at " + fixed(wait_w, 0) + " W (its TDP " + fixed(g.tdp_w, 0) +
         " W; measured P0 idle " + fixed(g.static_w, 0) + " W): the paper's energy reading charges the waiting xPU "
         "more than a card idling with a model loaded";
  } else if (extra >= 0.0) {
    t += ", more than the waiting die gives at its TDP (" + fixed(g.tdp_w, 0) +
         " W): the model's Stratum step is shorter than the paper's implies (the decode-speedup row)";
  } else {
    t += ": the model's Stratum token costs more than the paper's even with the die waiting at its static power";
  }
  return t;
}

namespace detail {
/// Mean over the settings of a/b for two systems on one model (points both hold), and the
/// largest tokens/J ratio.
struct system_ratio {
  double mean_throughput = 0, peak_energy = 0;
  int points = 0;
};
template <class = void>
inline system_ratio ratio_over_settings(const stratum_system_params<>& a, const stratum_system_params<>& b,
                                        const model& m, const stratum_usage& u, const stratum_settings& set,
                                        int only_context = 0) {
  system_ratio r;
  double sum = 0.0;
  const auto pa = prepare(a);
  const auto pb = prepare(b);
  for (int S : set.contexts) {
    if (only_context > 0 && S != only_context) continue;
    for (int B : set.batches) {
      const step_shape s{.mode = phase::decode, .batch = B, .context = S};
      const auto ra = evaluate_decode(pa, m, s, u);
      const auto rb = evaluate_decode(pb, m, s, u);
      if (!ra.feasible || !rb.feasible) continue;
      sum += ra.tokens_per_s / rb.tokens_per_s;
      r.peak_energy = std::max(r.peak_energy, ra.tokens_per_joule / rb.tokens_per_joule);
      ++r.points;
    }
  }
  if (r.points > 0) r.mean_throughput = sum / r.points;
  return r;
}
}  // namespace detail

/// The MoE blocks' time under uniform usage (routing and placement uniform) over their time with
/// usage table `acc` (routing and placement alike), mean over the settings `set`.
template <class = void>
inline double moe_gain_over_uniform(const stratum_system_params<>& sys, const model& m, const stratum_usage& acc,
                                    const stratum_settings& set) {
  double sum = 0.0;
  int n = 0;
  const auto sm = prepare(sys);
  for (int S : set.contexts) {
    for (int B : set.batches) {
      const step_shape s{.mode = phase::decode, .batch = B, .context = S};
      const auto ra = evaluate_decode(sm, m, s, acc);
      const auto ru = evaluate_decode(sm, m, s, stratum_usage{});
      if (!ra.feasible || !ru.feasible) continue;
      sum += ru.ffn_time.si() / ra.ffn_time.si();
      ++n;
    }
  }
  return n > 0 ? sum / n : 0.0;
}

/// Fig. 17b: accurate hot-expert prediction against uniform usage. Accurate: the experts a token
/// uses are the ones Algorithm 1 placed in the fast pack (hit rate 1), which a layout can
/// guarantee for one token (the pack holds L·A experts); uniform: the layout Algorithm 1 makes
/// from uniform usage (expected hit rate A/E). The MoE blocks' time of a decode step at B = 1,
/// S = 2048, uniform over accurate.
template <class = void>
inline double accurate_vs_uniform(const stratum_system_params<>& sys, const stratum_workload& w) {
  const auto m = preset(w.model);
  return moe_gain_over_uniform(sys, m, workload_usage(m, 1.0), stratum_settings{{1}, {2048}});
}

/// Fig. 17b per its caption: decode tokens/s of `m` on `sys` at B = 1, S = 2048 with the token's
/// experts in the fast pack (the exact table, hit rate 1) over tokens/s with the layout Algorithm 1
/// makes from uniform usage, both routed as laid out — the whole step, not the MoE blocks alone.
/// 0 when `sys` does not hold the model. `kept`: as `compare_with_gpu`'s.
template <class = void>
inline double accurate_vs_uniform_step(const stratum_system_params<>& sys, const model& m,
                                       expert_chips_keep* kept = nullptr) {
  const auto sm = prepare(sys);
  const step_shape s{.mode = phase::decode, .batch = 1, .context = 2048};
  const auto exact = workload_usage(m, 1.0).routing;
  const auto ra = evaluate_decode(sm, place_model(sm, m, s, exact, nullptr, kept), m, s, exact);
  const auto ru = evaluate_decode(sm, place_model(sm, m, s, {}, nullptr, kept), m, s, usage_table{});
  if (!ra.feasible || !ru.feasible) return 0.0;
  return ra.tokens_per_s / ru.tokens_per_s;
}

/// Fig. 17b term by term for one workload at the row's setting (B = 1, S = 2048): the model's
/// gain and Eq. (1)-(2) of `stratum/prediction_gain.hpp` with the stream rates of the two
/// layouts Algorithm 1 makes (exact: hit rate 1; uniform) and of the two-level memory.
struct fig17b_terms {
  double model = 0;          ///< the MoE blocks' time, uniform over exact, experts split over all chips
  double mapped = 0;         ///< the same with the system's own mapping (`accurate_vs_uniform(sys, w)`)
  double layout_stream = 0;  ///< Eq. (1) with the layouts' own stream rates
  double two_level = 0;      ///< Eq. (2): hits at the fastest tier's bandwidth, misses at the slowest's
  prediction_gain_params<> inputs{};  ///< Eq. (1)'s inputs, per token, per chip, all stages
  double slowest_tier_bw_TBps = 0;    ///< the chip's slowest tier (Eq. (2)'s miss rate)
  int slow_pack_tiers = 0;            ///< tiers the uniform layout's slow pack spans (most of any stage)
};

/// The terms of Fig. 17b for workload `w` on system `sys` (see `fig17b_terms`). Rates are per
/// chip: the terms are taken with every expert split over the chips (`all_chips`: every chip of
/// a stage holds 1/c of each expert in the same rows); `mapped` is the last term, the system's
/// own mapping (with `expert_parallel` a token's A experts stream on at most A chips).
template <class = void>
inline fig17b_terms accurate_vs_uniform_terms(const stratum_system_params<>& own, const stratum_workload& w) {
  auto sys = own;
  sys.mapping.experts = expert_split::all_chips;
  const auto m = preset(w.model);
  detail::require(m.experts > 0, "strata.report", "model", w.model, "a MoE model");
  const step_shape s{.mode = phase::decode, .batch = 1, .context = 2048};
  const auto exact = workload_usage(m, 1.0).routing;
  const auto uniform = uniform_usage(m.moe_layers(), m.experts, m.top_k);
  const auto d = system_device(sys);
  const int c = sys.chips;
  const double wb = m.weight_bits / 8.0;
  const double expert_b = double(count_params(m).per_expert) * wb / c;
  const double shared_b = always_read_ffn_bytes(m, true) / c;
  const double dense_b = always_read_ffn_bytes(m, false) / c;
  // Seconds per byte of rows with tier shares `sh`.
  const auto per_byte = [&](const std::vector<double>& sh) {
    double t = 0.0;
    for (std::size_t i = 0; i < sh.size() && i < d.tiers.size(); ++i) t += sh[i] / d.tiers[i].bandwidth.si();
    return t;
  };
  double always_b = 0, always_t = 0, exact_b = 0, exact_t = 0, hit_b = 0, hit_t = 0, miss_b = 0, miss_t = 0;
  int spanned = 0;
  for (int st = 0; st < sys.stages; ++st) {
    int slow_first = 1 << 30, slow_last = -1;
    const auto la = stratum_stage_layout(sys, d, m, s, exact, st);
    const auto lu = stratum_stage_layout(sys, d, m, s, uniform, st);
    detail::require(la.plan.feasible && lu.plan.feasible && la.layout.feasible && lu.layout.feasible, "strata.report",
                    "model", w.model, ("a model " + sys.name + " holds").c_str());
    const double tau_a = per_byte(la.weight_shares);
    for (int l = la.first_layer; l < la.last_layer; ++l) {
      const double b = m.is_moe_layer(l) ? shared_b : dense_b;
      always_b += b;
      always_t += b * tau_a;
    }
    for (int li = 0; li < la.moe_layers; ++li) {
      const auto& fa = exact[static_cast<std::size_t>(la.moe_first) + static_cast<std::size_t>(li)];
      const auto& fu = uniform[static_cast<std::size_t>(lu.moe_first) + static_cast<std::size_t>(li)];
      for (int e = 0; e < m.experts; ++e) {
        const double wa = fa[static_cast<std::size_t>(e)] * expert_b;
        if (wa > 0.0) {
          exact_b += wa;
          exact_t += wa * per_byte(expert_tier_shares(la.layout, la.rest, li, e).share);
        }
        const double wu = fu[static_cast<std::size_t>(e)] * expert_b;
        const auto su = expert_tier_shares(lu.layout, lu.rest, li, e);
        const double tu = wu * per_byte(su.share);
        if (lu.layout.is_fast(li, e)) {
          hit_b += wu;
          hit_t += tu;
        } else {
          miss_b += wu;
          miss_t += tu;
          slow_first = std::min(slow_first, su.fastest_tier);
          slow_last = std::max(slow_last, su.slowest_tier);
        }
      }
    }
    spanned = std::max(spanned, slow_last - slow_first + 1);
  }
  fig17b_terms r;
  auto& in = r.inputs;
  in.uniform_hit_rate = hit_b / (hit_b + miss_b);
  in.routed_bytes = units::B(exact_b);
  in.always_bytes = units::B(always_b);
  in.fast_pack_bw = units::Bps(exact_b / exact_t);
  in.hit_bw = hit_b > 0.0 ? units::Bps(hit_b / hit_t) : in.fast_pack_bw;
  in.miss_bw = units::Bps(miss_b / miss_t);
  in.always_bw = always_b > 0.0 ? units::Bps(always_b / always_t) : in.fast_pack_bw;
  r.layout_stream = prediction_gain(in);
  r.two_level = two_level_prediction_gain(in.uniform_hit_rate, in.routed_bytes, in.always_bytes,
                                          d.tiers.front().bandwidth, d.tiers.back().bandwidth);
  r.slowest_tier_bw_TBps = d.tiers.back().bandwidth.in(units::TBps);
  r.slow_pack_tiers = spanned;
  r.model = accurate_vs_uniform(sys, w);
  r.mapped = own.mapping.experts == expert_split::all_chips ? r.model : accurate_vs_uniform(own, w);
  return r;
}

/// Table 4: a topic switch (the hot set of the hit-rate table moves to the next A experts of
/// every layer) as a fraction of one batch of 16 requests with 2048-token prompts generating 256
/// tokens (prefill on the xPU, then 256 decode steps at S = 2048). Returns {time, energy}.
template <class = void>
inline std::pair<double, double> swap_overhead(const stratum_system_params<>& sys, const stratum_workload& w) {
  const auto m = preset(w.model);
  const step_shape s{.mode = phase::decode, .batch = 16, .context = 2048};
  const auto d = system_device(sys);
  const auto fa = usage_from_hit_rate(m.moe_layers(), m.experts, m.top_k, w.hit_rate, 0);
  const auto fb = usage_from_hit_rate(m.moe_layers(), m.experts, m.top_k, w.hit_rate, m.top_k);
  double t = 0.0, e = 0.0;
  for (int st = 0; st < sys.stages; ++st) {
    const auto a = stratum_stage_layout(sys, d, m, s, fa, st);
    // The switch keeps the experts on their chips (chip_assignment.hpp).
    const auto b = stratum_stage_layout(sys, d, m, s, fb, st, nullptr, &a.chips);
    const auto [ts, es] = stage_swap_cost(a, b, d.tiers, sys.chips);
    t = std::max(t, ts);                          // stages swap in parallel
    e += es;                                      // every chip of the stage swaps
  }
  const auto dec = evaluate_decode(sys, m, s, stratum_usage{fb, fb});
  const auto pre = evaluate_prefill(sys, m, step_shape{.mode = phase::prefill, .batch = 16, .context = 2048});
  const double batch_t = pre.time.si() + 256.0 * dec.time.si();
  const double batch_e = pre.energy.si() + 256.0 * dec.energy.si();
  return {t / batch_t, e / batch_e};
}

/// The 1024-layer chip's die kept at its footprint with `layers` layers: more MATs per bank fill
/// the area the shorter staircase frees (banks, channels and the NMP unchanged).
template <class = void>
inline stratum_system_params<> with_layers_same_area(stratum_system_params<> p, int layers) {
  const auto& mem = p.nmp.chip.memory;
  const double run_full = mem.bl_pitch.si() * mem.bitlines_per_mat + mem.staircase_step.si() * mem.layers;
  const double run = mem.bl_pitch.si() * mem.bitlines_per_mat + mem.staircase_step.si() * layers;
  const int mats = static_cast<int>(double(mem.mats_per_bank) * run_full / run);
  p.nmp.chip.memory.layers = layers;
  p.nmp.chip.memory.mats_per_bank = mats;
  p.nmp.chip.memory.tiers = std::min(p.nmp.chip.memory.tiers, layers);
  return p;
}

/// Fig. 18b: decode tokens/s per mm² of chip for Mixtral 8×7B at B = 16, S = 2048 on Stratum-L
/// chips of `layers` layers at the 1024-layer chip's area, with as many chips as hold the weights
/// and the KV cache (at least the six of Stratum-L's package are not required: the fewest that fit).
template <class = void>
inline double throughput_per_area(const stratum_system_params<>& base, int layers) {
  const auto m = preset("Mixtral-8x7B");
  const step_shape s{.mode = phase::decode, .batch = 16, .context = 2048};
  const auto u = workload_usage(m, 0.316);
  auto p = with_layers_same_area(base, layers);
  stratum_chip_result<> chip;
  (void)evaluate(p.nmp, &chip);
  const double area = chip.logic_params.die_area.si() * 1e6;  // mm²
  for (int c = 1; c <= 256; ++c) {
    p.chips = c;
    const auto r = evaluate_decode(p, m, s, u);
    if (r.feasible) return r.tokens_per_s / (c * area);
  }
  return 0.0;
}

/// Where a decode step's time goes (`stratum_step_result::composition`) for workload `w` at
/// batch `batch`, S = 2048: the seven parts as shares of the step, in the order of `time_parts`.
struct step_shares {
  std::array<double, 7> share{};  ///< weight streams, KV streams, NMP compute, ring, interposer, xPU operators, fixed
  double time_us = 0;
  bool feasible = true;
  static constexpr std::array<const char*, 7> names{"weight_stream", "kv_stream", "nmp_compute", "ring",
                                                     "interposer", "xpu_ops", "fixed"};
};

template <class = void>
inline step_shares composition_of(const stratum_system_params<>& sys, const stratum_workload& w, int batch) {
  const auto m = preset(w.model);
  const auto r = evaluate_decode(sys, m, step_shape{.mode = phase::decode, .batch = batch, .context = 2048},
                                 workload_usage(m, w.hit_rate));
  const auto& c = r.composition;
  step_shares s;
  s.time_us = r.time.in(units::us);
  s.feasible = r.feasible;
  const double t = r.time.si();
  s.share = {c.weight_stream.si() / t, c.kv_stream.si() / t, c.nmp_compute.si() / t, c.ring.si() / t,
             c.interposer.si() / t,    c.xpu_ops.si() / t,   c.fixed.si() / t};
  return s;
}

/// Rows of the Stratum systems (file comment). `base` carries the calibrated parameters.
// Not `inline`: strata::compiled holds its instantiation (end of file), which an `inline` one would
// not spare a STRATA_COMPILED consumer (GCC instantiates inline functions for inlining).
template <class = void>
std::vector<paper_row> stratum_result_rows(const stratum_system_params<>& base = {}) {
  using namespace detail;
  std::vector<paper_row> rows;
  const auto ws = stratum_workloads();
  const std::string settings = " over B {1,4,16,64,256} x S {512..4096}";
  std::vector<double> tiering_gain, duplex_gain, duplex_energy, duplex_energy_tdp, acc_uniform, topic_gain;
  std::vector<double> acc_stream, acc_two_level, miss_tbps, acc_all_chips;  // Fig. 17b term by term
  double slowest_tbps = 0.0;
  std::vector<double> spans;
  double swap_t = 0.0, swap_e = 0.0, swap_e_tdp = 0.0;
  // Each energy row beside its other accounting of the xPU die while the NMP decodes
  // (`xpu_while_nmp`): the default's reading and the paper's peaks' reading (the die at its TDP).
  auto tdp_base = base;
  tdp_base.xpu_while_nmp_power = base.xpu_while_nmp_power == xpu_while_nmp::tdp ? xpu_while_nmp::idle : xpu_while_nmp::tdp;
  const std::string other = tdp_base.xpu_while_nmp_power == xpu_while_nmp::tdp ? "tdp" : "idle";
  const std::string other_text = other == "tdp" ? "the xPU die at its TDP while the NMP decodes (xpu_while_nmp = tdp, the paper's peaks' reading)"
                                                : "the xPU die at its idle power while the NMP decodes (xpu_while_nmp = idle)";
  const auto variant_row = [&](const std::string& id, double v, const std::string& as, std::optional<double> paper, double tol) {
    std::string src = "as " + as + ", with " + other_text;
    if (paper) {
      src += "; the paper's " + detail::fixed(*paper, 2) + (std::abs(v - *paper) <= tol * *paper ? " is" : " is not") +
             " within ±" + detail::fixed(100.0 * tol, 0) + " % of it";
    }
    rows.push_back(predict(id + ".xpu_" + other, v, "x", src));
  };
  for (const auto& w : ws) {
    const auto sys = workload_system(w, base);
    const auto c = compare_with_gpu(sys, w);
    const auto sys_other = workload_system(w, tdp_base);
    const double energy_other = compare_with_gpu(sys_other, w).peak_energy_gain;
    const std::string id = "stratum.system." + w.key;
    const std::string vs = " (" + sys.name + " vs " + std::to_string(c.baseline.gpus) + " x " + gpu_preset(w.gpu).name +
                           ", " + std::to_string(c.baseline.served.weight_bits) + "-bit weights" + ")";
    const bool judged = w.key == "olmoe" || w.key == "mixtral";
    if (judged) {
      const stratum_paper_gains g;
      const double sp = w.key == "olmoe" ? g.olmoe_speedup : g.mixtral_speedup;
      rows.push_back(rel(id + ".decode_speedup", c.mean_speedup, "x", sp, 0.15,
                         std::string("Stratum §6.3 Fig. 16, mean").append(settings).append(vs)));
      if (!rows.back().ok().value_or(true)) rows.back().known_disagreement = speedup_gap_text(speedup_gap_terms(sys, w, sp));
      const double ee = w.key == "olmoe" ? g.olmoe_energy : g.mixtral_energy;
      rows.push_back(rel(id + ".energy_efficiency_gain", c.peak_energy_gain, "x", ee, 0.20,
                         std::string("Stratum §6.3 Fig. 16, peak").append(settings).append(vs)));
      if (!rows.back().ok().value_or(true)) rows.back().known_disagreement = energy_gap_text(energy_gap_terms(sys, w, ee));
      variant_row(id + ".energy_efficiency_gain", energy_other, id + ".energy_efficiency_gain", ee, 0.20);
    } else {
      rows.push_back(predict(id + ".decode_speedup", c.mean_speedup, "x", std::string("Stratum §6.3, mean").append(settings).append(vs)));
      rows.push_back(predict(id + ".energy_efficiency_gain", c.peak_energy_gain, "x", std::string("Stratum §6.3, peak").append(settings).append(vs)));
      variant_row(id + ".energy_efficiency_gain", energy_other, id + ".energy_efficiency_gain", std::nullopt, 0.0);
    }
    for (int b : {1, 64}) {
      const auto sh = composition_of(sys, w, b);
      const std::string at = "Stratum §6.3 (where the step's time goes: " + sys.name + ", B = " + std::to_string(b) +
                             ", S = 2048, " + detail::fixed(sh.time_us, 1) + " us per step" +
                             (sh.feasible ? std::string(")") : std::string("; the rows do not hold this batch, timed anyway)"));
      for (std::size_t i = 0; i < sh.share.size(); ++i) {
        rows.push_back(predict("stratum.composition." + w.key + ".b" + std::to_string(b) + "." + step_shares::names[i],
                               sh.share[i], "fraction", at));
      }
    }
    const auto m = preset(w.model);
    // The two expert mappings (stratum/expert_mapping.hpp): expert-parallel over the all-chip split.
    for (int b : {1, 64}) {
      const auto u = workload_usage(m, w.hit_rate);
      const step_shape s{.mode = phase::decode, .batch = b, .context = 2048};
      auto ep = sys, all = sys;
      ep.mapping.experts = expert_split::expert_parallel;
      all.mapping.experts = expert_split::all_chips;
      const double ratio = evaluate_decode(ep, m, s, u).tokens_per_s / evaluate_decode(all, m, s, u).tokens_per_s;
      rows.push_back(predict("stratum.mapping." + w.key + ".b" + std::to_string(b) + ".ep_over_all_chips", ratio, "x",
                             "Stratum §4.1 (spec lines 66-70: tensor parallel over a chip's PUs): decode tokens/s, "
                             "experts whole on one chip over every expert split over the " +
                                 std::to_string(sys.chips) + " chips, " + sys.name + ", B = " + std::to_string(b) +
                                 ", S = 2048"));
    }
    const auto u = workload_usage(m, w.hit_rate);
    auto flat = sys;
    flat.tiering = false;
    tiering_gain.push_back(ratio_over_settings(sys, flat, m, u, {}).mean_throughput);
    const auto duplex = ratio_over_settings(sys, with_hbm_nmp(sys), m, u, {});
    duplex_gain.push_back(duplex.mean_throughput);
    duplex_energy.push_back(duplex.peak_energy);
    duplex_energy_tdp.push_back(ratio_over_settings(sys_other, with_hbm_nmp(sys_other), m, u, {}).peak_energy);
    if (m.experts > 0) {
      topic_gain.push_back(moe_gain_over_uniform(sys, m, u, {}));
      const auto so = swap_overhead(sys, w);
      swap_t = std::max(swap_t, so.first);
      swap_e = std::max(swap_e, so.second);
      swap_e_tdp = std::max(swap_e_tdp, swap_overhead(sys_other, w).second);
    }
    if (w.key == "llama4_scout") {
      double lo = 1e300, hi = 0.0;
      const auto g = workload_gpu(w);
      const auto machine = make_machine(g, c.baseline.gpus);
      const auto sm = prepare(sys);
      for (int B : stratum_settings{}.batches) {
        const step_shape s{.mode = phase::decode, .batch = B, .context = 2048};
        const auto r = evaluate_decode(sm, m, s, u);
        if (!r.feasible || !check_fit(g, c.baseline.gpus, c.baseline.served, s).fits) continue;
        const double sp = r.tokens_per_s / evaluate(c.baseline.served, s, machine).tokens_per_s;
        lo = std::min(lo, sp);
        hi = std::max(hi, sp);
      }
      rows.push_back(predict("stratum.batch_sweep.speedup_min", lo, "x",
                             "Stratum §6.3 Fig. 18a (Llama-4-Scout, Stratum-XL vs its GPUs, S = 2048, B 1..256)"));
      rows.push_back(predict("stratum.batch_sweep.speedup_max", hi, "x",
                             "Stratum §6.3 Fig. 18a (Llama-4-Scout, Stratum-XL vs its GPUs, S = 2048, B 1..256)"));
    }
  }
  // Fig. 17b per its caption: Stratum-L, the whole step's throughput, the paper's MoE models that
  // Stratum-L holds (Llama-4-Scout's 16-bit weights, 218 GB, do not fit its 192 GB).
  std::vector<double> acc_blocks;
  std::string fig17b_models, fig17b_left_out;
  for (const auto& w : ws) {
    const auto m = preset(w.model);
    if (m.experts == 0) continue;
    auto wl = w;
    wl.system = "stratum-l";
    const auto sys = workload_system(wl, base);
    const double g = accurate_vs_uniform_step(sys, m);
    if (!(g > 0.0)) {
      fig17b_left_out += (fig17b_left_out.empty() ? "" : ", ") + w.model;
      continue;
    }
    fig17b_models += (fig17b_models.empty() ? "" : ", ") + w.model;
    acc_uniform.push_back(g);
    const auto f17 = accurate_vs_uniform_terms(sys, wl);
    acc_blocks.push_back(f17.mapped);
    acc_all_chips.push_back(f17.model);
    acc_stream.push_back(f17.layout_stream);
    acc_two_level.push_back(f17.two_level);
    miss_tbps.push_back(f17.inputs.miss_bw.in(units::TBps));
    slowest_tbps = f17.slowest_tier_bw_TBps;
    spans.push_back(f17.slow_pack_tiers);
  }
  const auto mn = [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); };
  const auto mx = [](const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); };
  // Why the model misses Fig. 17b (a check: no parameter is solved from it), term by term
  // (`accurate_vs_uniform_terms`, Eq. (1)-(2) of stratum/prediction_gain.hpp).
  const auto range = [&](const std::vector<double>& v, int digits) {
    return detail::fixed(mn(v), digits) + "-" + detail::fixed(mx(v), digits);
  };
  const std::string fig17b =
      "the paper's 1.32-1.51 compare with the two-level bound (Eq. (2) of stratum/prediction_gain.hpp: under uniform usage "
      "A/E of the routed bytes hit the fast pack at the fastest tier's bandwidth and every miss streams at the "
      "slowest's, " + detail::fixed(slowest_tbps, 2) + " TB/s per chip), " + range(acc_two_level, 2) +
      " over " + std::to_string(acc_two_level.size()) + " models on Stratum-L; Algorithm 1 reaches that bound only when its slow pack fits the slowest tier, and "
      "here it spans the last " + range(spans, 0) + " tiers and streams at " + range(miss_tbps, 1) + " TB/s, which bounds the gain at " +
      range(acc_stream, 2) + " (Eq. (1) with the layouts' own rates), and the block's fixed costs (first "
      "accesses, reduction tree, activation, ring) take the model with every expert split over the chips to " + range(acc_all_chips, 2) +
      "; with each expert whole on one chip (expert-parallel, Stratum §4.1), the exact table's A experts of a "
      "layer stream on at most A chips, each at one chip's bandwidth, while uniform usage spreads its expected "
      "experts over every chip and the block waits for the slowest (stratum.mapping rows): " + range(acc_blocks, 2) +
      " for the MoE blocks; the rest of the step (xPU operators and their launches, attention, NMP invocations) "
      "takes the same time in both layouts and brings the whole step's gain to " + range(acc_uniform, 2);
  const std::string fig17b_at = "Stratum §6.3 Fig. 17b (Stratum-L, B = 1, S = 2048: decode tokens/s with the token's "
                                "experts in the fast pack over the uniform layout's; " + fig17b_models +
                                (fig17b_left_out.empty() ? std::string() : "; not held by Stratum-L: " + fig17b_left_out);
  rows.push_back(rel("stratum.placement.accurate_vs_uniform_min", mn(acc_uniform), "x", 1.32, 0.05,
                     fig17b_at + "; smallest)"));
  rows.push_back(rel("stratum.placement.accurate_vs_uniform_max", mx(acc_uniform), "x", 1.51, 0.05,
                     fig17b_at + "; largest)"));
  rows[rows.size() - 2].known_disagreement = fig17b;
  rows[rows.size() - 1].known_disagreement = fig17b;
  // A prediction over the workloads as its two rows: the smallest and the largest.
  const auto predict_range = [&](const std::string& stem, const std::vector<double>& v, const std::string& what) {
    rows.push_back(predict(stem + "_min", mn(v), "x", what + ", smallest of " + std::to_string(v.size()) + ")"));
    rows.push_back(predict(stem + "_max", mx(v), "x", what + ", largest)"));
  };
  predict_range("stratum.placement.accurate_vs_uniform_moe_blocks", acc_blocks,
                "Stratum §6.3 Fig. 17b's gain on the MoE blocks' time alone (Stratum-L, B = 1, S = 2048, the system's "
                "expert mapping");
  predict_range("stratum.placement.accurate_vs_uniform_stream_limit", acc_stream,
                "Stratum §5.2 Algorithm 1, §6.1 tier bandwidths (Fig. 17b's gain for weight streams only, at the two "
                "layouts' own tier rates: Eq. (1) of stratum/prediction_gain.hpp");
  predict_range("stratum.placement.accurate_vs_uniform_two_level", acc_two_level,
                "Stratum §6.1 tier bandwidths (Fig. 17b's gain on a two-level memory: hits at the fastest tier, "
                "misses at the slowest: Eq. (2) of stratum/prediction_gain.hpp");
  predict_range("stratum.placement.topic_prediction_gain", topic_gain,
                "Stratum §5.1, §6.3 (MoE blocks, uniform usage / the aggregated hit-rate table, mean" + settings);
  rows.push_back(with("stratum.placement.swap_time_overhead", swap_t, "fraction", 0.01, row_check::at_most,
                      "Stratum Table 4 (topic switch / batch of 16 x 2048-token prompts, 256 tokens out; largest)"));
  rows.push_back(with("stratum.placement.swap_energy_overhead", swap_e, "fraction", 0.01, row_check::at_most,
                      "Stratum Table 4 (as the time row)"));
  rows.push_back(predict("stratum.placement.swap_energy_overhead.xpu_" + other, swap_e_tdp, "fraction",
                         "as stratum.placement.swap_energy_overhead, with " + other_text + "; the paper's bound 0.01 " +
                             (swap_e_tdp <= 0.01 ? "holds" : "does not hold")));
  rows.push_back(predict("stratum.tiering.gain_over_no_tiering_min", mn(tiering_gain), "x",
                         "Stratum §6.3 (tokens/s, tiering / one worst-case tRCD, mean" + settings + ", four models)"));
  rows.push_back(predict("stratum.tiering.gain_over_no_tiering_max", mx(tiering_gain), "x",
                         "Stratum §6.3 (as the min row, largest of the four)"));
  {
    const auto& w = ws[0];  // OLMoE on Stratum-S: the workload a 512-layer (16 GB) chip still holds
    auto sys = with_layers_same_area(workload_system(w, base), 512);
    auto flat = sys;
    flat.tiering = false;
    const auto m = preset(w.model);
    rows.push_back(predict("stratum.tiering.gain_at_512_layers",
                           ratio_over_settings(sys, flat, m, workload_usage(m, w.hit_rate), {}).mean_throughput, "x",
                           "Stratum §6.3 (OLMoE on a 512-layer Stratum-S chip, mean" + settings + ")"));
  }
  rows.push_back(predict("stratum.duplex.throughput_gain_max", mx(duplex_gain), "x",
                         "Stratum §6.3 (vs HBM3 NMP stacks on the same xPU, mean" + settings + ", largest of four)"));
  rows.push_back(predict("stratum.duplex.energy_efficiency_gain_max", mx(duplex_energy), "x",
                         "Stratum §6.3 (vs HBM3 NMP stacks, peak tokens/J ratio, largest of four)"));
  variant_row("stratum.duplex.energy_efficiency_gain_max", mx(duplex_energy_tdp), "stratum.duplex.energy_efficiency_gain_max",
              std::nullopt, 0.0);
  const stratum_system_params<> l = workload_system(ws[1], base);
  const double a1024 = throughput_per_area(l, 1024);
  rows.push_back(predict("stratum.layers.throughput_per_area_1024_vs_256", a1024 / throughput_per_area(l, 256), "x",
                         "Stratum §6.3 Fig. 18b (Mixtral, B = 16, S = 2048, same die area, fewest chips that hold it)"));
  rows.push_back(predict("stratum.layers.throughput_per_area_1024_vs_64", a1024 / throughput_per_area(l, 64), "x",
                         "Stratum §6.3 Fig. 18b (as the 256-layer row)"));
  return rows;
}

}  // namespace v0
}  // namespace strata

// strata::compiled (STRATA_BUILD_COMPILED, src/compiled_report.cpp) holds the family's
// instantiations; STRATA_COMPILED=1, which that target puts on its users, keeps their translation
// units from generating them. Without it this header is unchanged (header-only).
#if defined(STRATA_COMPILED) && STRATA_COMPILED
namespace strata {
inline namespace v0 {
extern template std::vector<paper_row> stratum_result_rows<void>(const stratum_system_params<>&);
}  // namespace v0
}  // namespace strata
#endif
