// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Validation of the GPU baseline against published measurements, with the fitted and the
/// held-back rows kept apart.
///
/// Every Stratum speedup is a ratio over `baseline/gpu.hpp`, so the baseline's own error is the
/// floor of every claim. This header models each row of a measurement set
/// (`baseline/measurements_io.hpp`, `tests/data/measurements/`) through the same roofline the
/// baseline uses, fits at most three knobs shared by every GPU and model on the rows marked `fit`,
/// and reports the error on the rows marked `check`, which no fitted number has seen.
///
/// **The modelled value of a row.** The row's model (`preset`, weights at the row's precision) on
/// `make_machine(with_knobs(gpu_preset(gpu), knobs), devices)`:
///   t_prefill = evaluate(prefill, B, S_in)                               (the first token)
///   t_decode  = Σ_{i=1}^{O−1} evaluate(decode, B, S_in + i)              (every later token)
///   e2e_latency = t_prefill + t_decode;  output_tokens_per_s = O / (t_prefill + t_decode)
///   tpot = t_decode / (O − 1);           ttft = t_prefill
/// with B the batch, S_in the input length and O the output length. The decode sum is evaluated
/// on `decode_samples` equal strata of the O − 1 steps, each at its middle context and weighted by
/// its size (exact when O − 1 ≤ decode_samples). Each operator's time is linear in the context
/// between roofline kinks (KV bytes and attention FLOPs grow linearly), so the midpoint rule is
/// exact except across a kink; `validation_test` bounds the difference to the full sum.
/// The scheduler is vLLM's static case of `benchmark_latency.py`: all B prompts prefilled in one
/// step, then B sequences decoded together (continuous batching does not change a single batch).
///
/// **The knobs** (`gpu_knobs`): `memory_efficiency` η_m, `compute_efficiency` η_c and
/// `op_overhead` t_o of `gpu_params`, one value each for every GPU and model — what the serving
/// software achieves, not what the card is. `with_knobs` sets them and re-derives
/// `energy_per_flop` by the TDP rule of `gpu.hpp`, so energy stays consistent with η_c.
///
/// **The fit** (`fit_gpu_knobs`): least squares on the relative error in log space over the rows
/// whose set is `fit`,
///   min_θ Σ_{i ∈ fit} (ln(modelled_i(θ) / measured_i))²,   θ = (η_m, η_c, t_o) in `knob_bounds`,
/// by cyclic coordinate descent: each sweep minimises over one knob at a time with the others held,
/// by Brent's method on the knob's bounded interval (`boost::math::tools::brent_find_minima`), and
/// keeps a knob's new value only if the objective falls. Sweeps stop when one lowers the objective
/// by less than `tolerance` (relative) or after `max_sweeps`. Deterministic: no random start, a
/// fixed order, and check rows never enter the objective.
///
/// **The report** (`validate_gpu_baseline`): per row the measured and modelled value, the relative
/// error e = modelled / measured − 1 with the fitted knobs and with each preset's shipped knobs,
/// whether the model is optimistic (predicts a faster GPU than measured: lower time or higher
/// throughput), the memory fit of `check_fit`, and the regime: `prefill` when the modelled
/// prefill is more than half of the modelled time (or the metric is TTFT), else decode with small
/// batch (B ≤ `small_batch`) or large batch. Summaries: median and worst |e| over the check rows
/// (and the fit rows, and the check rows with the shipped knobs), and per regime over the check
/// rows, with the fitted and with the shipped knobs, the median signed speed error — the measured
/// over the modelled time, minus 1 — whose sign says optimistic (> 0) or pessimistic.
///
/// **Out of sample by series** (`validate_by_series`). Alternating rows of one series share their
/// source's engine version, setup and unknowns, so the held-back half of a series says little
/// about a series the fit has not seen. Leave one series out: for each source (a PR or a
/// benchmark page), each model and each GPU, the knobs are fitted on every row of the other
/// series and the held-out series is modelled with them; the summary is over every row, each
/// with the knobs of its own fold. `validate_gpu_baseline` reports both splits.
///
/// \code
/// const auto rows = strata::read_measurements_csv("tests/data/measurements/gpu_measurements.csv");
/// const strata::validation_report r = strata::validate_gpu_baseline(rows);
/// double held_back_median = r.check.median_abs_error;   // what the fit has not seen
/// \endcode

#include <algorithm>  // std::sort, std::min, std::max, std::find
#include <array>      // std::array
#include <bit>        // std::bit_cast
#include <cmath>      // std::log, std::abs, std::isfinite
#include <cstddef>    // std::size_t
#include <cstdint>    // std::uintmax_t, std::uint32_t, std::uint64_t
#include <string>     // std::string
#include <unordered_map>  // std::unordered_map
#include <utility>    // std::move, std::pair
#include <vector>     // std::vector

#include <boost/math/tools/minima.hpp>  // brent_find_minima

#include "strata/baseline/gpu.hpp"
#include "strata/baseline/measurements_io.hpp"
#include "strata/core/error.hpp"
#include "strata/core/units.hpp"
#include "strata/workload/operators.hpp"
#include "strata/workload/presets.hpp"
#include "strata/workload/roofline.hpp"

namespace strata {
inline namespace v0 {

/// The three serving-software knobs of `gpu_params` the validation fits (file comment).
struct gpu_knobs {
  /// Achievable fraction of the memory bandwidth. [default: the H100 preset's, `gpu_params`]
  double memory_efficiency = gpu_params{}.memory_efficiency;
  /// Achievable fraction of the dense tensor peak. [default: the H100 preset's]
  double compute_efficiency = gpu_params{}.compute_efficiency;
  /// Fixed cost per operator. [default: the H100 preset's]
  duration<> op_overhead = gpu_params{}.op_overhead;

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("memory_efficiency", s.memory_efficiency);
    v("compute_efficiency", s.compute_efficiency);
    v("op_overhead", s.op_overhead);
  }
  friend bool operator==(const gpu_knobs&, const gpu_knobs&) = default;
};

/// The knobs a card carries.
template <class = void>
inline gpu_knobs knobs_of(const gpu_params& g) { return {g.memory_efficiency, g.compute_efficiency, g.op_overhead}; }

/// `g` with the knobs `k`, and `energy_per_flop` re-derived from the new η_c by the TDP rule
/// (e_flop = (TDP − P_static) / (η_c · peak), `baseline/gpu.hpp`).
template <class = void>
inline gpu_params with_knobs(gpu_params g, const gpu_knobs& k) {
  g.memory_efficiency = k.memory_efficiency;
  g.compute_efficiency = k.compute_efficiency;
  g.op_overhead = k.op_overhead;
  g.energy_per_flop = detail::energy_per_flop_at_tdp(g.tdp, g.static_power, k.compute_efficiency, g.peak_flops);
  return g;
}

/// Which part of serving a row exercises (file comment).
enum class serving_regime { decode_small_batch, decode_large_batch, prefill };
constexpr auto enum_names(serving_regime) {
  return std::array{std::pair{serving_regime::decode_small_batch, "decode_small_batch"},
                    std::pair{serving_regime::decode_large_batch, "decode_large_batch"},
                    std::pair{serving_regime::prefill, "prefill"}};
}
template <class = void>
inline const char* to_string(serving_regime r) {
  for (const auto& [e, n] : enum_names(serving_regime{})) {
    if (e == r) return n;
  }
  return "?";
}

/// How a row is modelled.
struct validation_options {
  /// Decode steps evaluated per row (strata midpoints; exact up to this many). Design choice:
  /// 8 keeps a 2048-token row at 9 step evaluations, within 0.1 % of the full sum
  /// (`validation_test`); the fit's objective moves in the sixth digit between 8 and 16.
  int decode_samples = 8;
  /// Largest batch counted as "decode small batch". Design choice: at B ≤ 8 the decode step of
  /// every model of the set streams its weights far longer than its KV cache or its FLOPs.
  int small_batch = 8;

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("decode_samples", s.decode_samples);
    v("small_batch", s.small_batch);
  }
  friend bool operator==(const validation_options&, const validation_options&) = default;
};

template <class = void>
inline void validate(const validation_options& o) {
  detail::require(o.decode_samples >= 1 && o.decode_samples <= 4096, "strata.validation", "decode_samples",
                  o.decode_samples, "in [1, 4096]");
  detail::require(o.small_batch >= 1, "strata.validation", "small_batch", o.small_batch, ">= 1");
}

/// One step of a prepared row: its shape, its operators and how many real steps it stands for.
struct prepared_step {
  step_shape shape{};
  std::vector<op> ops;
  double weight = 1.0;
};

/// A row with its operators built once (they do not depend on the knobs), so a fit only re-runs
/// the roofline.
struct prepared_measurement {
  measurement row;
  model mdl;
  gpu_params gpu;
  std::vector<prepared_step> prefill;  ///< empty for `tpot`
  std::vector<prepared_step> decode;   ///< empty for `ttft`
  double decode_steps = 0.0;           ///< O − 1
  gpu_fit fit;                         ///< memory fit at the last decode step's context
};

/// Builds the steps of a row (file comment). Throws `config_error` for a `tpot` row with one
/// output token, or bad options.
template <class = void>
inline prepared_measurement prepare_measurement(const measurement& m, const validation_options& o = {}) {
  validate(o);
  prepared_measurement p;
  p.row = m;
  p.mdl = preset(m.model);
  p.mdl.weight_bits = m.weight_bits();
  p.gpu = gpu_preset(m.gpu);
  if (m.metric == measured_metric::tpot) {
    detail::require(m.output_len >= 2, "strata.validation", m.id + ".output_len", m.output_len, ">= 2 for tpot");
  }
  const auto [lo, hi] = measured_value_range(m.metric);
  detail::require(std::isfinite(m.value) && m.value >= lo && m.value <= hi, "strata.validation", m.id + ".value",
                  m.value,
                  ("in [" + detail::to_text(lo) + ", " + detail::to_text(hi) + "] " + unit_of(m.metric) +
                   " (measured_value_range)").c_str());
  if (m.metric != measured_metric::tpot) {
    const step_shape s{.mode = phase::prefill, .batch = m.batch, .context = m.input_len};
    p.prefill.push_back({s, step_operators(p.mdl, s), 1.0});
  }
  const int n = m.output_len - 1;
  p.decode_steps = n;
  if (m.metric != measured_metric::ttft && n > 0) {
    const int k = std::min(n, o.decode_samples);
    for (int g = 0; g < k; ++g) {
      // Steps lo..hi (1-based) of stratum g; its middle step stands for all of them.
      const int lo = 1 + static_cast<int>(static_cast<long long>(g) * n / k);
      const int hi = static_cast<int>(static_cast<long long>(g + 1) * n / k);
      const int mid = (lo + hi) / 2;
      const step_shape s{.mode = phase::decode, .batch = m.batch, .context = m.input_len + mid};
      p.decode.push_back({s, step_operators(p.mdl, s), double(hi - lo + 1)});
    }
  }
  const step_shape last{.mode = phase::decode, .batch = m.batch, .context = m.input_len + std::max(n, 0) + 1};
  p.fit = check_fit(p.gpu, m.devices, p.mdl, last);
  return p;
}

/// The model's value of a prepared row under `k`.
struct modelled_measurement {
  double value = 0.0;          ///< in `unit_of(row.metric)`
  duration<> prefill_time{};   ///< modelled t_prefill
  duration<> decode_time{};    ///< modelled t_decode (all O − 1 steps)
  serving_regime regime = serving_regime::decode_small_batch;
};

namespace detail {
/// `model_measurement`'s value and regime from its prefill and decode times.
template <class = void>
inline void finish_measurement(modelled_measurement& r, const prepared_measurement& p, const validation_options& o) {
  const double total = (r.prefill_time + r.decode_time).si();
  switch (p.row.metric) {
    case measured_metric::e2e_latency: r.value = total; break;
    case measured_metric::output_tokens_per_s: r.value = p.row.output_len / total; break;
    case measured_metric::tpot: r.value = r.decode_time.si() / p.decode_steps; break;
    case measured_metric::ttft: r.value = r.prefill_time.si(); break;
  }
  if (p.row.metric == measured_metric::ttft || r.prefill_time.si() > 0.5 * total) {
    r.regime = serving_regime::prefill;
  } else {
    r.regime = p.row.batch <= o.small_batch ? serving_regime::decode_small_batch : serving_regime::decode_large_batch;
  }
}
}  // namespace detail

/// Evaluates a prepared row with knobs `k` (file comment).
template <class = void>
inline modelled_measurement model_measurement(const prepared_measurement& p, const gpu_knobs& k,
                                              const validation_options& o = {}) {
  const roofline_machine mach = make_machine(with_knobs(p.gpu, k), p.row.devices);
  modelled_measurement r;
  for (const auto& s : p.prefill) r.prefill_time += evaluate(s.ops, s.shape, p.mdl.hidden, mach).time * s.weight;
  for (const auto& s : p.decode) r.decode_time += evaluate(s.ops, s.shape, p.mdl.hidden, mach).time * s.weight;
  detail::finish_measurement(r, p, o);
  return r;
}

namespace detail {
/// `model_measurement` of one prepared row as the fit calls it, over and over with knobs that
/// differ in one knob at a time (coordinate descent): the same arithmetic as `evaluate`'s step time
/// (`add_op`: per operator max(compute, memory) + overhead, less the overhead of a grouped expert,
/// then the all-reduce after it; in operator order), and no energy. An operator's compute time
/// (`op_compute_time`) reads only its FLOPs and bits, its memory time (`op_memory_time`) only its
/// bytes, tier and KV shards: the row's operators that agree on these (the same operator of every
/// layer, the weights of every decode step) are one distinct operator, whose compute time is kept
/// while η_c does not change and memory time while η_m does not. Each step is then a list of
/// addends (a distinct operator's time, grouped or not, or the step's all-reduce) summed in the
/// step's operator order, so every addition is the one `add_op` makes. Bit-identical to
/// `model_measurement(p, k, o).value` (`validation_test`).
class fit_row {
 public:
  explicit fit_row(const prepared_measurement& p) : p_(&p) {
    std::unordered_map<op_key, std::uint32_t, op_key_hash> index;
    std::vector<std::vector<std::uint32_t>> distinct_of;  // per step, per operator
    const auto add = [&](const std::vector<prepared_step>& steps, bool prefill) {
      for (const auto& s : steps) {
        std::vector<std::uint32_t> ids(s.ops.size());
        for (std::size_t i = 0; i < s.ops.size(); ++i) {
          const op& o = s.ops[i];
          const op_key key{std::bit_cast<std::uint64_t>(o.flops.si()),
                           std::bit_cast<std::uint64_t>(o.weight_bytes.si()),
                           std::bit_cast<std::uint64_t>(o.kv_bytes.si()),
                           std::bit_cast<std::uint64_t>(o.activation_bytes.si()),
                           o.bits,
                           o.kv_shards,
                           static_cast<int>(o.reads)};
          const auto [it, fresh] = index.try_emplace(key, static_cast<std::uint32_t>(distinct_.size()));
          if (fresh) distinct_.push_back(&o);
          ids[i] = it->second;
        }
        distinct_of.push_back(std::move(ids));
        steps_.push_back({&s, 0, 0, prefill});
      }
    };
    add(p.prefill, true);
    add(p.decode, false);
    distinct_of_ = std::move(distinct_of);
    compute_.resize(distinct_.size());
    memory_.resize(distinct_.size());
    addend_.resize(2 * distinct_.size() + steps_.size());
    sum_.resize(steps_.size());
  }

  /// `model_measurement(p, k, o).value`.
  double value(const gpu_knobs& k, const validation_options& o) {
    const roofline_machine mach = make_machine(with_knobs(p_->gpu, k), p_->row.devices);
    if (!has_) build_addends(mach);
    const bool new_compute = !(has_ && mach.compute_efficiency == compute_efficiency_);
    const bool new_memory = !(has_ && mach.memory_efficiency == memory_efficiency_);
    const std::size_t n = distinct_.size();
    if (new_compute) {
      for (std::size_t j = 0; j < n; ++j) compute_[j] = op_compute_time(*distinct_[j], mach);
    }
    if (new_memory) {
      for (std::size_t j = 0; j < n; ++j) memory_[j] = op_memory_time(*distinct_[j], mach);
    }
    for (std::size_t j = 0; j < n; ++j) {
      const duration<> c = max_of(compute_[j], memory_[j]) + mach.op_overhead;
      addend_[j] = c;
      addend_[n + j] = c - mach.op_overhead;
    }
    for (std::size_t si = 0; si < steps_.size(); ++si) {
      addend_[2 * n + si] = step_allreduce(steps_[si].s->shape, p_->mdl.hidden, mach).time;
    }
    // Each step's sum is one chain of additions in its operator order; steps of as many addends
    // (the decode steps) run side by side, four chains at a time, each still in its own order.
    const duration<>* a = addend_.data();
    const std::uint32_t* seq = seq_.data();
    const std::size_t n_steps = steps_.size();
    for (std::size_t si = 0; si < n_steps;) {
      const std::size_t len = steps_[si].last - steps_[si].first;
      std::size_t w = 1;
      while (w < 4 && si + w < n_steps && steps_[si + w].last - steps_[si + w].first == len) ++w;
      if (w == 4) {
        const std::uint32_t* q0 = seq + steps_[si].first;
        const std::uint32_t* q1 = seq + steps_[si + 1].first;
        const std::uint32_t* q2 = seq + steps_[si + 2].first;
        const std::uint32_t* q3 = seq + steps_[si + 3].first;
        duration<> t0{}, t1{}, t2{}, t3{};
        for (std::size_t q = 0; q < len; ++q) {
          t0 += a[q0[q]];
          t1 += a[q1[q]];
          t2 += a[q2[q]];
          t3 += a[q3[q]];
        }
        sum_[si] = t0;
        sum_[si + 1] = t1;
        sum_[si + 2] = t2;
        sum_[si + 3] = t3;
      } else if (w >= 2) {
        w = 2;
        const std::uint32_t* q0 = seq + steps_[si].first;
        const std::uint32_t* q1 = seq + steps_[si + 1].first;
        duration<> t0{}, t1{};
        for (std::size_t q = 0; q < len; ++q) {
          t0 += a[q0[q]];
          t1 += a[q1[q]];
        }
        sum_[si] = t0;
        sum_[si + 1] = t1;
      } else {
        const std::uint32_t* q0 = seq + steps_[si].first;
        duration<> t0{};
        for (std::size_t q = 0; q < len; ++q) t0 += a[q0[q]];
        sum_[si] = t0;
      }
      si += w;
    }
    modelled_measurement r;
    for (std::size_t si = 0; si < n_steps; ++si) {
      const step& st = steps_[si];
      (st.prefill ? r.prefill_time : r.decode_time) += sum_[si] * st.s->weight;
    }
    has_ = true;
    compute_efficiency_ = mach.compute_efficiency;
    memory_efficiency_ = mach.memory_efficiency;
    finish_measurement(r, *p_, o);
    return r.value;
  }

 private:
  /// What `op_compute_time` and `op_memory_time` read of an operator (doubles by their bits).
  struct op_key {
    std::uint64_t flops, weight_bytes, kv_bytes, activation_bytes;
    int bits, kv_shards, reads;
    friend bool operator==(const op_key&, const op_key&) = default;
  };
  struct op_key_hash {
    std::size_t operator()(const op_key& k) const noexcept {
      std::uint64_t h = 1469598103934665603ull;
      for (const std::uint64_t x : {k.flops, k.weight_bytes, k.kv_bytes, k.activation_bytes,
                                    std::uint64_t(std::uint32_t(k.bits)), std::uint64_t(std::uint32_t(k.kv_shards)),
                                    std::uint64_t(std::uint32_t(k.reads))}) {
        h = (h ^ x) * 1099511628211ull;
        h ^= h >> 29;
      }
      return static_cast<std::size_t>(h);
    }
  };
  struct step {
    const prepared_step* s = nullptr;
    std::size_t first = 0, last = 0;  ///< its addends in `seq_`
    bool prefill = false;
  };

  /// The addend list of every step (`reduces_after` reads the row's device count, not the knobs).
  void build_addends(const roofline_machine& mach) {
    const std::size_t n = distinct_.size();
    for (std::size_t si = 0; si < steps_.size(); ++si) {
      step& st = steps_[si];
      const auto& ops = st.s->ops;
      const auto& ids = distinct_of_[si];
      st.first = seq_.size();
      for (std::size_t i = 0; i < ops.size(); ++i) {
        const bool grouped = grouped_with_previous(ops[i], i > 0 ? &ops[i - 1] : nullptr);
        seq_.push_back(static_cast<std::uint32_t>(grouped ? n + ids[i] : ids[i]));
        if (reduces_after(ops[i], mach)) seq_.push_back(static_cast<std::uint32_t>(2 * n + si));
      }
      st.last = seq_.size();
    }
    distinct_of_.clear();
    distinct_of_.shrink_to_fit();
  }

  const prepared_measurement* p_;
  std::vector<const op*> distinct_;                   ///< one operator per distinct key
  std::vector<std::vector<std::uint32_t>> distinct_of_;  ///< per step, per operator (until the first value)
  std::vector<duration<>> compute_, memory_;          ///< per distinct operator, at the cached η_c and η_m
  std::vector<duration<>> addend_;                    ///< time of each distinct operator, then grouped, then each step's all-reduce
  std::vector<std::uint32_t> seq_;                    ///< the steps' addends in operator order
  std::vector<duration<>> sum_;                       ///< each step's time
  std::vector<step> steps_;
  bool has_ = false;
  double compute_efficiency_ = 0.0, memory_efficiency_ = 0.0;
};
}  // namespace detail


/// Bounds of the fitted knobs. Design choice: the physical range of an efficiency (η ≤ 1; η_m
/// above 0.2 and η_c above 0.1, far below any tuned kernel) and of a per-operator cost up to an
/// eager-mode launch with its Python dispatch (tens of µs). A knob that ends on a bound is listed
/// in `fit_result::at_bound`: the fit then compensates for a term the model lacks.
struct knob_bounds {
  double memory_efficiency_min = 0.2;
  double memory_efficiency_max = 1.0;
  double compute_efficiency_min = 0.1;
  double compute_efficiency_max = 1.0;
  duration<> op_overhead_min = units::us(0.0);
  duration<> op_overhead_max = units::us(60.0);

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("memory_efficiency_min", s.memory_efficiency_min);
    v("memory_efficiency_max", s.memory_efficiency_max);
    v("compute_efficiency_min", s.compute_efficiency_min);
    v("compute_efficiency_max", s.compute_efficiency_max);
    v("op_overhead_min", s.op_overhead_min);
    v("op_overhead_max", s.op_overhead_max);
  }
  friend bool operator==(const knob_bounds&, const knob_bounds&) = default;
};

/// Numerics of the fit, kept apart from the knobs it fits.
struct fit_options {
  gpu_knobs start{};          ///< starting point (the H100 preset's knobs)
  knob_bounds bounds{};
  int max_sweeps = 40;        ///< coordinate-descent sweeps at most
  int bits = 16;              ///< Brent precision in bits of each 1-D minimum (2^-16: knobs to 5 digits)
  int max_iter = 100;         ///< Brent iterations per 1-D minimum
  double tolerance = 1e-7;    ///< stop when a sweep lowers the objective by less (relative)
  validation_options model{};

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("start", s.start);
    v("bounds", s.bounds);
    v("max_sweeps", s.max_sweeps);
    v("bits", s.bits);
    v("max_iter", s.max_iter);
    v("tolerance", s.tolerance);
    v("model", s.model);
  }
  friend bool operator==(const fit_options&, const fit_options&) = default;
};

template <class = void>
inline void validate(const fit_options& o) {
  constexpr const char* id = "strata.validation";
  const auto& b = o.bounds;
  detail::require(0.0 < b.memory_efficiency_min && b.memory_efficiency_min < b.memory_efficiency_max &&
                      b.memory_efficiency_max <= 1.0,
                  id, "bounds.memory_efficiency_max", b.memory_efficiency_max, "in (memory_efficiency_min, 1]");
  detail::require(0.0 < b.compute_efficiency_min && b.compute_efficiency_min < b.compute_efficiency_max &&
                      b.compute_efficiency_max <= 1.0,
                  id, "bounds.compute_efficiency_max", b.compute_efficiency_max, "in (compute_efficiency_min, 1]");
  detail::require(0.0 <= b.op_overhead_min.si() && b.op_overhead_min < b.op_overhead_max, id, "bounds.op_overhead_max",
                  b.op_overhead_max.si(), "> op_overhead_min >= 0 (s)");
  detail::require(o.max_sweeps >= 1 && o.max_sweeps <= 1000, id, "max_sweeps", o.max_sweeps, "in [1, 1000]");
  detail::require(o.bits >= 4 && o.bits <= 52, id, "bits", o.bits, "in [4, 52]");
  detail::require(o.max_iter >= 1 && o.max_iter <= 10000, id, "max_iter", o.max_iter, "in [1, 10000]");
  detail::require(std::isfinite(o.tolerance) && o.tolerance >= 0.0, id, "tolerance", o.tolerance, "finite and >= 0");
  validate(o.model);
}

/// What the fit found.
struct fit_result {
  gpu_knobs knobs{};
  double objective = 0.0;      ///< Σ ln² (modelled / measured) over the fit rows
  double rms_log_error = 0.0;  ///< √(objective / rows)
  int fit_rows = 0;
  int sweeps = 0;
  int evaluations = 0;         ///< objective evaluations
  bool converged = false;      ///< stopped on `tolerance`, not on `max_sweeps`
  std::vector<std::string> at_bound;  ///< knobs that ended on a bound (none is healthy)

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("knobs", s.knobs);
    v("objective", s.objective);
    v("rms_log_error", s.rms_log_error);
    v("fit_rows", s.fit_rows);
    v("sweeps", s.sweeps);
    v("evaluations", s.evaluations);
    v("converged", s.converged);
    v("at_bound", s.at_bound);
  }
};

namespace detail {
/// The least-squares fit of the file comment on the rows `fit` (not empty; options validated).
template <class = void>
inline fit_result fit_knobs_on(const std::vector<const prepared_measurement*>& fit, const fit_options& o) {
  fit_result r;
  r.fit_rows = static_cast<int>(fit.size());
  std::vector<fit_row> rows;
  rows.reserve(fit.size());
  for (const auto* p : fit) rows.emplace_back(*p);
  auto objective = [&](const gpu_knobs& k) {
    ++r.evaluations;
    double s = 0.0;
    for (std::size_t j = 0; j < fit.size(); ++j) {
      const double e = std::log(rows[j].value(k, o.model) / fit[j]->row.value);
      s += e * e;
    }
    return s;
  };
  const auto& b = o.bounds;
  gpu_knobs k = o.start;
  k.memory_efficiency = std::clamp(k.memory_efficiency, b.memory_efficiency_min, b.memory_efficiency_max);
  k.compute_efficiency = std::clamp(k.compute_efficiency, b.compute_efficiency_min, b.compute_efficiency_max);
  k.op_overhead = units::s(std::clamp(k.op_overhead.si(), b.op_overhead_min.si(), b.op_overhead_max.si()));
  double best = objective(k);
  // Knob i of k as a double (the overhead in µs, so all three are of order one for Brent).
  auto get = [](const gpu_knobs& x, int i) {
    return i == 0 ? x.memory_efficiency : i == 1 ? x.compute_efficiency : x.op_overhead.in(units::us);
  };
  auto set = [](gpu_knobs& x, int i, double v) {
    if (i == 0) x.memory_efficiency = v;
    else if (i == 1) x.compute_efficiency = v;
    else x.op_overhead = units::us(v);
  };
  const double lo[3] = {b.memory_efficiency_min, b.compute_efficiency_min, b.op_overhead_min.in(units::us)};
  const double hi[3] = {b.memory_efficiency_max, b.compute_efficiency_max, b.op_overhead_max.in(units::us)};
  for (r.sweeps = 1; r.sweeps <= o.max_sweeps; ++r.sweeps) {
    const double before = best;
    for (int i = 0; i < 3; ++i) {
      gpu_knobs trial = k;
      auto f = [&](double v) {
        set(trial, i, v);
        return objective(trial);
      };
      std::uintmax_t iters = static_cast<std::uintmax_t>(o.max_iter);
      const auto [x, fx] = boost::math::tools::brent_find_minima(f, lo[i], hi[i], o.bits, iters);
      if (fx < best) {
        best = fx;
        set(k, i, x);
      }
    }
    if (before - best <= o.tolerance * std::max(before, 1e-300)) {
      r.converged = true;
      break;
    }
  }
  if (r.sweeps > o.max_sweeps) r.sweeps = o.max_sweeps;
  r.knobs = k;
  r.objective = best;
  r.rms_log_error = std::sqrt(best / double(fit.size()));
  const char* names[3] = {"memory_efficiency", "compute_efficiency", "op_overhead"};
  for (int i = 0; i < 3; ++i) {
    const double v = get(k, i);
    const double span = hi[i] - lo[i];
    if (v - lo[i] <= 1e-3 * span || hi[i] - v <= 1e-3 * span) r.at_bound.emplace_back(names[i]);
  }
  return r;
}
}  // namespace detail

/// Least-squares fit of the knobs on the rows whose set is `fit` (file comment). Throws
/// `config_error` for bad options or no fit rows.
template <class = void>
inline fit_result fit_gpu_knobs(const std::vector<prepared_measurement>& rows, const fit_options& o = {}) {
  validate(o);
  std::vector<const prepared_measurement*> fit;
  for (const auto& p : rows) {
    if (p.row.set == measurement_set::fit) fit.push_back(&p);
  }
  detail::require(!fit.empty(), "strata.validation", "rows", rows.size(), "to hold at least one row of set fit");
  return detail::fit_knobs_on(fit, o);
}

/// Prepares every row and fits (file comment).
template <class = void>
inline fit_result fit_gpu_knobs(const std::vector<measurement>& rows, const fit_options& o = {}) {
  std::vector<prepared_measurement> p;
  p.reserve(rows.size());
  for (const auto& m : rows) p.push_back(prepare_measurement(m, o.model));
  return fit_gpu_knobs(p, o);
}

/// One row of the validation report.
struct validation_row {
  std::string id, model, gpu, source;
  int devices = 1, batch = 1, input_len = 1, output_len = 1;
  measured_metric metric = measured_metric::e2e_latency;
  measurement_set set = measurement_set::check;
  double measured = 0.0;           ///< the published figure, `unit`
  double modelled = 0.0;           ///< with the fitted knobs
  double modelled_default = 0.0;   ///< with the row's GPU preset's shipped knobs
  double rel_error = 0.0;          ///< modelled / measured − 1
  double rel_error_default = 0.0;  ///< modelled_default / measured − 1
  double speed_error = 0.0;        ///< measured time / modelled time − 1 (> 0: optimistic)
  double speed_error_default = 0.0;  ///< the same with the shipped knobs
  bool optimistic = false;         ///< the model predicts a faster GPU than measured
  serving_regime regime = serving_regime::decode_small_batch;
  duration<> prefill_time{}, decode_time{};  ///< modelled, fitted knobs
  bool fits = true;                ///< `check_fit` at the row's largest context
  std::string fit_reason;
  std::string unit;

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("id", s.id);
    v("model", s.model);
    v("gpu", s.gpu);
    v("devices", s.devices);
    v("batch", s.batch);
    v("input_len", s.input_len);
    v("output_len", s.output_len);
    v("metric", s.metric);
    v("unit", s.unit);
    v("set", s.set);
    v("measured", s.measured);
    v("modelled", s.modelled);
    v("modelled_default", s.modelled_default);
    v("rel_error", s.rel_error);
    v("rel_error_default", s.rel_error_default);
    v("speed_error", s.speed_error);
    v("speed_error_default", s.speed_error_default);
    v("optimistic", s.optimistic);
    v("regime", s.regime);
    v("prefill_time", s.prefill_time);
    v("decode_time", s.decode_time);
    v("fits", s.fits);
    v("fit_reason", s.fit_reason);
    v("source", s.source);
  }
};

/// Median and worst |relative error| over a set of rows.
struct error_summary {
  int rows = 0;
  double median_abs_error = 0.0;
  double worst_abs_error = 0.0;
  std::string worst_id;

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("rows", s.rows);
    v("median_abs_error", s.median_abs_error);
    v("worst_abs_error", s.worst_abs_error);
    v("worst_id", s.worst_id);
  }
};

/// The held-back rows of one regime.
struct regime_summary {
  serving_regime regime = serving_regime::decode_small_batch;
  int rows = 0;
  double median_speed_error = 0.0;  ///< > 0: the model is optimistic in this regime
  double median_abs_error = 0.0;
  std::string verdict;              ///< "optimistic", "pessimistic" or "no rows"

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("regime", s.regime);
    v("rows", s.rows);
    v("median_speed_error", s.median_speed_error);
    v("median_abs_error", s.median_abs_error);
    v("verdict", s.verdict);
  }
};

/// What a held-back series is (file comment, "Out of sample by series"): every row of one source,
/// one model or one GPU.
enum class series_key { source, model, gpu };
constexpr auto enum_names(series_key) {
  return std::array{std::pair{series_key::source, "source"}, std::pair{series_key::model, "model"},
                    std::pair{series_key::gpu, "gpu"}};
}
template <class = void>
inline const char* to_string(series_key k) {
  for (const auto& [e, n] : enum_names(series_key{})) {
    if (e == k) return n;
  }
  return "?";
}

/// The series of row `m` under `k`.
template <class = void>
inline const std::string& series_of(const measurement& m, series_key k) {
  return k == series_key::source ? m.source : k == series_key::model ? m.model : m.gpu;
}

/// One fold: a series held back, the knobs fitted on every row of the other series.
struct series_fold {
  std::string series;        ///< the held-back source, model or GPU
  int train_rows = 0;        ///< rows of the other series (both sets)
  gpu_knobs knobs{};         ///< fitted on them
  error_summary held_back;   ///< |relative error| over the series' rows (both sets)

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("series", s.series);
    v("train_rows", s.train_rows);
    v("knobs", s.knobs);
    v("held_back", s.held_back);
  }
};

/// Leave-one-series-out validation under one key.
struct series_validation {
  series_key key = series_key::source;
  std::vector<series_fold> folds;  ///< in the order the series first appear
  error_summary held_back;         ///< every row, each with the knobs of the fold that held it back

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("key", s.key);
    v("folds", s.folds);
    v("held_back", s.held_back);
  }
};

/// The validation report (file comment).
struct validation_report {
  fit_result fit;
  std::vector<validation_row> rows;
  error_summary check;          ///< held-back rows, fitted knobs: the validation figure
  error_summary fit_set;        ///< fit rows, fitted knobs (in-sample, for comparison only)
  error_summary check_default;  ///< held-back rows, each preset's shipped knobs
  std::vector<regime_summary> regimes;  ///< over the held-back rows, fitted knobs
  std::vector<regime_summary> regimes_default;  ///< over the held-back rows, shipped knobs
  /// Out of sample by series: one leave-one-series-out validation per key with at least two
  /// series (`validate_by_series`; filled by `validate_gpu_baseline`).
  std::vector<series_validation> by_series;

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("fit", s.fit);
    v("check", s.check);
    v("fit_set", s.fit_set);
    v("check_default", s.check_default);
    v("regimes", s.regimes);
    v("regimes_default", s.regimes_default);
    v("by_series", s.by_series);
    v("rows", s.rows);
  }
};

namespace detail {
template <class = void>
inline double median_of(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
template <class Pick>
error_summary summarise(const std::vector<validation_row>& rows, measurement_set set, Pick pick) {
  error_summary s;
  std::vector<double> abs_e;
  for (const auto& r : rows) {
    if (r.set != set) continue;
    const double a = std::abs(pick(r));
    abs_e.push_back(a);
    if (s.rows == 0 || a > s.worst_abs_error) {
      s.worst_abs_error = a;
      s.worst_id = r.id;
    }
    ++s.rows;
  }
  s.median_abs_error = median_of(abs_e);
  return s;
}
}  // namespace detail

namespace detail {
/// A row's modelled values and errors must be finite: a report never prints `null` or "+inf %".
/// Throws `config_error("<id>.<field>")` naming the row, the field and both values.
template <class = void>
inline void require_finite_errors(const validation_row& v) {
  const std::pair<const char*, double> fields[] = {
      {"modelled", v.modelled},       {"modelled_default", v.modelled_default},
      {"rel_error", v.rel_error},     {"rel_error_default", v.rel_error_default},
      {"speed_error", v.speed_error}, {"speed_error_default", v.speed_error_default}};
  for (const auto& [name, x] : fields) {
    if (!std::isfinite(x)) {
      throw config_error(v.id + "." + name, "[strata.validation] row " + v.id + ": " + name + " is not finite (" +
                                                to_text(x) + "; measured " + to_text(v.measured) + " " + v.unit +
                                                ", modelled " + to_text(v.modelled) + " " + v.unit + ")");
    }
  }
}
}  // namespace detail

/// Models every row with the given knobs and with each preset's own (no fit).
/// Throws `config_error` naming the row and the field if a modelled value or an error is not
/// finite (`detail::require_finite_errors`).
template <class = void>
inline validation_report report_gpu_baseline(const std::vector<prepared_measurement>& rows, const fit_result& fit,
                                             const validation_options& o = {}) {
  validation_report rep;
  rep.fit = fit;
  for (const auto& p : rows) {
    const auto mf = model_measurement(p, fit.knobs, o);
    const auto md = model_measurement(p, knobs_of(p.gpu), o);
    validation_row v;
    v.id = p.row.id;
    v.model = p.row.model;
    v.gpu = p.row.gpu;
    v.source = p.row.source;
    v.devices = p.row.devices;
    v.batch = p.row.batch;
    v.input_len = p.row.input_len;
    v.output_len = p.row.output_len;
    v.metric = p.row.metric;
    v.unit = unit_of(p.row.metric);
    v.set = p.row.set;
    v.measured = p.row.value;
    v.modelled = mf.value;
    v.modelled_default = md.value;
    v.rel_error = mf.value / p.row.value - 1.0;
    v.rel_error_default = md.value / p.row.value - 1.0;
    v.speed_error = higher_is_better(p.row.metric) ? mf.value / p.row.value - 1.0 : p.row.value / mf.value - 1.0;
    v.speed_error_default =
        higher_is_better(p.row.metric) ? md.value / p.row.value - 1.0 : p.row.value / md.value - 1.0;
    detail::require_finite_errors(v);
    v.optimistic = v.speed_error > 0.0;
    v.regime = mf.regime;
    v.prefill_time = mf.prefill_time;
    v.decode_time = mf.decode_time;
    v.fits = p.fit.fits;
    v.fit_reason = p.fit.reason;
    rep.rows.push_back(std::move(v));
  }
  rep.check = detail::summarise(rep.rows, measurement_set::check, [](const validation_row& r) { return r.rel_error; });
  rep.fit_set = detail::summarise(rep.rows, measurement_set::fit, [](const validation_row& r) { return r.rel_error; });
  rep.check_default =
      detail::summarise(rep.rows, measurement_set::check, [](const validation_row& r) { return r.rel_error_default; });
  // Rows keep the regime of the fitted model in both summaries, so the two compare like with like.
  for (const bool shipped : {false, true}) {
    for (const auto& [reg, name] : enum_names(serving_regime{})) {
      regime_summary s;
      s.regime = reg;
      std::vector<double> speed, abs_e;
      for (const auto& r : rep.rows) {
        if (r.set != measurement_set::check || r.regime != reg) continue;
        speed.push_back(shipped ? r.speed_error_default : r.speed_error);
        abs_e.push_back(std::abs(shipped ? r.rel_error_default : r.rel_error));
      }
      s.rows = static_cast<int>(speed.size());
      s.median_speed_error = detail::median_of(speed);
      s.median_abs_error = detail::median_of(abs_e);
      s.verdict = s.rows == 0 ? "no rows" : s.median_speed_error > 0.0 ? "optimistic" : "pessimistic";
      (shipped ? rep.regimes_default : rep.regimes).push_back(std::move(s));
    }
  }
  return rep;
}

namespace detail {
/// The knobs of the folds fitted so far on one prepared set with one set of options, by their
/// training rows (pointers into the set, in its order): leaving out one source and leaving out
/// one model can leave out the same rows (a model measured by one source only), and the fit on
/// the same rows is the same fit.
struct fold_fits {
  std::vector<std::pair<std::vector<const prepared_measurement*>, gpu_knobs>> fits;
};
}  // namespace detail

/// Leave-one-series-out validation (file comment): for each series under `key`, the knobs are
/// fitted on every row of the other series (the fit/check marking plays no part) and the
/// series' rows are modelled with them. Throws `config_error` naming `rows` when fewer than two
/// series exist (no fold would have rows to fit on), or for bad options. `memo`, when given,
/// holds the folds fitted before on the same `rows` and options (`validate_gpu_baseline`: one
/// per set over the three keys), and receives this call's.
template <class = void>
inline series_validation validate_by_series(const std::vector<prepared_measurement>& rows, series_key key,
                                            const fit_options& o = {}, detail::fold_fits* memo = nullptr) {
  validate(o);
  series_validation r;
  r.key = key;
  std::vector<std::string> names;
  for (const auto& p : rows) {
    const auto& n = series_of(p.row, key);
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  }
  detail::require(names.size() >= 2, "strata.validation", "rows", names.size(),
                  (std::string("to span at least two series by ") + to_string(key)).c_str());
  std::vector<double> all_e;
  std::vector<std::string> all_id;
  for (const auto& n : names) {
    std::vector<const prepared_measurement*> train;
    for (const auto& p : rows) {
      if (series_of(p.row, key) != n) train.push_back(&p);
    }
    series_fold f;
    f.series = n;
    f.train_rows = static_cast<int>(train.size());
    const gpu_knobs* known = nullptr;
    if (memo != nullptr) {
      for (const auto& [rows_of, knobs] : memo->fits) {
        if (rows_of == train) known = &knobs;
      }
    }
    f.knobs = known != nullptr ? *known : detail::fit_knobs_on(train, o).knobs;
    if (memo != nullptr && known == nullptr) memo->fits.emplace_back(train, f.knobs);
    std::vector<double> e;
    for (const auto& p : rows) {
      if (series_of(p.row, key) != n) continue;
      const double a = std::abs(model_measurement(p, f.knobs, o.model).value / p.row.value - 1.0);
      e.push_back(a);
      if (f.held_back.rows == 0 || a > f.held_back.worst_abs_error) {
        f.held_back.worst_abs_error = a;
        f.held_back.worst_id = p.row.id;
      }
      ++f.held_back.rows;
      if (r.held_back.rows == 0 || a > r.held_back.worst_abs_error) {
        r.held_back.worst_abs_error = a;
        r.held_back.worst_id = p.row.id;
      }
      ++r.held_back.rows;
      all_e.push_back(a);
    }
    f.held_back.median_abs_error = detail::median_of(e);
    r.folds.push_back(std::move(f));
  }
  r.held_back.median_abs_error = detail::median_of(all_e);
  return r;
}

/// Fits the knobs on the `fit` rows and reports every row (file comment). `fit`, when given, is
/// that fit already made (`fit_gpu_knobs(rows, o)`, e.g. `published_gpu_fit()` for the published
/// set with the default options), which is then not made again.
template <class = void>
inline validation_report validate_gpu_baseline(const std::vector<measurement>& rows, const fit_options& o = {},
                                               const fit_result* fit = nullptr) {
  std::vector<prepared_measurement> p;
  p.reserve(rows.size());
  for (const auto& m : rows) p.push_back(prepare_measurement(m, o.model));
  auto rep = report_gpu_baseline(p, fit != nullptr ? *fit : fit_gpu_knobs(p, o), o.model);
  detail::fold_fits folds;
  for (const auto& [key, name] : enum_names(series_key{})) {
    std::vector<std::string> seen;
    for (const auto& m : rows) {
      if (std::find(seen.begin(), seen.end(), series_of(m, key)) == seen.end()) seen.push_back(series_of(m, key));
    }
    if (seen.size() >= 2) rep.by_series.push_back(validate_by_series(p, key, o, &folds));
  }
  return rep;
}

}  // namespace v0
}  // namespace strata
