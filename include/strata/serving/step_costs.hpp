// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Step costs of the serving simulation, memoised: the serving loop asks for a decode step of B
/// sequences at mean context S and hot-hit rate h, and for a prefill of b prompts of mean length
/// P, hundreds of thousands of times; the system model takes ~20 µs a step. The costs are
/// evaluated on a grid and interpolated (the approximation, measured in the tests):
///
/// - B exactly (every batch size is its own row);
/// - context on the grid c_j = 16·2^(j/2) (j = 0 … 28, up to 262 144 tokens), linear between the
///   two neighbours (attention and KV traffic are affine in S at fixed B; the grid is 41 % apart);
/// - h on the grid {0, A/E, A/E + (1 − A/E)·k/4, k = 1 … 4}, linear between neighbours. A grid
///   point h ≥ A/E is the hit-rate table of `usage_from_hit_rate(h)` placed by itself (its hot
///   experts in the fast pack); h < A/E routes by the table of hot share q = 1 − h(E − A)/A
///   placed by the table whose hot set is the next A experts (their share is then exactly h;
///   needs E ≥ 2A, else h is clamped to A/E). A real topic table enters only through its h: how
///   its cold mass spreads over the slow tiers is the hit-rate table's, which is the
///   approximation.
/// - Stratum: decode by `evaluate_decode` on a placement made for (B, the grid context above S),
///   prefill by the roofline on the xPU die over the interposer (as `evaluate_prefill`).
///   GPU: both by the roofline on `make_machine(gpu, n)`, under the baseline's parallelism
///   (`expert_parallel.hpp`; tensor parallelism by default).
///
/// Each grid point is evaluated once, on first use.
///
/// The Stratum system's costs (`stratum_step_costs`) are Stratum's own and live in
/// `stratum/serving/stratum_step_costs.hpp`; this header holds what every machine's engine step
/// uses (`step_cost`, `mixed_step`, the context grid) and the GPUs' costs (`gpu_step_costs`).

#include <algorithm>      // std::min, std::max
#include <array>          // std::array
#include <cmath>          // std::pow, std::floor, std::log2
#include <cstdint>        // std::uint64_t
#include <optional>       // std::optional (a memo slot not evaluated yet)
#include <unordered_map>  // std::unordered_map
#include <utility>        // std::pair
#include <vector>         // std::vector

#include "strata/baseline/gpu.hpp"
#include "strata/baseline/gpu_sampler.hpp"
#include "strata/workload/expert_parallel.hpp"
#include "strata/workload/model.hpp"
#include "strata/workload/operators.hpp"
#include "strata/workload/roofline.hpp"

namespace strata {
inline namespace v0 {

/// Time and energy of one step. `logic_j` and `dram_j` are the parts of `energy_j` spent on the
/// Stratum chips' logic dies and memory dies (all chips of the system together), the power the
/// thermal coupling feeds the die stack (`serving_thermal.hpp`): a Stratum decode step's
/// `energy_parts` split as logic = MACs, SFE, SRAM, bond, ring, PHY and NMP static (the chips'
/// leakage and DRAM background, which `nmp_params::static_power` does not split), memory = the
/// DRAM access parts and refresh; a row swap's energy is the memory dies'. 0 where a step runs
/// off the chips (a prefill on the xPU) or the machine has no such dies (the GPU).
struct step_cost {
  double time_s = 0.0;
  double energy_j = 0.0;
  double logic_j = 0.0;
  double dram_j = 0.0;
};

namespace detail {

inline constexpr int ctx_grid_points = 29;
/// c_j (file comment), tabulated once: the lookups of every step read it.
template <class = void>
inline double ctx_grid(int j) {
  static const auto grid = [] {
    std::array<double, ctx_grid_points> g{};
    for (int i = 0; i < ctx_grid_points; ++i) g[static_cast<std::size_t>(i)] = 16.0 * std::pow(2.0, 0.5 * i);
    return g;
  }();
  return grid[static_cast<std::size_t>(j)];
}

/// Index j and weight w so that S ≈ (1 − w)·c_j + w·c_{j+1}, clamped to the grid.
template <class = void>
inline std::pair<int, double> ctx_bracket(double s) {
  if (s <= ctx_grid(0)) return {0, 0.0};
  int j = static_cast<int>(std::floor(2.0 * std::log2(s / 16.0)));
  j = std::clamp(j, 0, ctx_grid_points - 2);
  while (j > 0 && ctx_grid(j) > s) --j;
  while (j < ctx_grid_points - 2 && ctx_grid(j + 1) < s) ++j;
  const double a = ctx_grid(j), b = ctx_grid(j + 1);
  return {j, std::clamp((s - a) / (b - a), 0.0, 1.0)};
}

template <class = void>
inline step_cost lerp(const step_cost& a, const step_cost& b, double w) {
  return {a.time_s + w * (b.time_s - a.time_s), a.energy_j + w * (b.energy_j - a.energy_j),
          a.logic_j + w * (b.logic_j - a.logic_j), a.dram_j + w * (b.dram_j - a.dram_j)};
}

/// `cost_of(o, m)` (`workload/roofline.hpp`) of operators `o` that differ from the one it was
/// prepared with only in their FLOPs, activation bytes and KV bytes (an engine step's attention,
/// `gpu_step_costs::mixed`, costed every step): what depends on the machine and the operator's
/// kind alone (the compute peak of its precision times devices and efficiency, its tiers'
/// bandwidths times devices and efficiency, the KV read factor) is evaluated once, and the rest is
/// `cost_of`'s arithmetic in its order, so the same time and energy, bit for bit (test).
struct prepared_op_cost {
  op_rate<> peak{};                ///< peak_of(m, bits) · (devices · compute efficiency)
  bandwidth<> main_bw{}, act_bw{};  ///< the tiers' bandwidths · (devices · memory efficiency)
  duration<> main_latency{}, act_latency{}, overhead{};
  energy_per_op<> energy_per_flop{};
  energy_per_data<> main_energy{}, act_energy{};
  data_size<> weight_bytes{};
  double kv_factor = 1.0;  ///< `kv_read_factor`
  bool same_tier = true;   ///< activations on the tier of the weights and KV

  prepared_op_cost() = default;
  template <class = void>
  prepared_op_cost(const op& o, const roofline_machine& m) {
    const double n = double(m.devices);
    const auto& main_tier = m.tiers[static_cast<std::size_t>(tier_of(m, o.reads))];
    const auto& act_tier = m.tiers[static_cast<std::size_t>(m.placement.activations)];
    peak = peak_of(m, o.bits) * (n * m.compute_efficiency);
    main_bw = main_tier.bandwidth * (n * m.memory_efficiency);
    act_bw = act_tier.bandwidth * (n * m.memory_efficiency);
    main_latency = main_tier.latency;
    act_latency = act_tier.latency;
    overhead = m.op_overhead;
    energy_per_flop = m.energy_per_flop;
    main_energy = main_tier.energy_per_byte;
    act_energy = act_tier.energy_per_byte;
    weight_bytes = o.weight_bytes;
    kv_factor = kv_read_factor(o, m);
    same_tier = &act_tier == &main_tier;
  }
  /// `cost_of(o, m)`'s time and energy (`o`: the prepared operator with other counts).
  template <class = void>
  [[nodiscard]] op_cost cost(const op& o) const {
    op_cost c;
    c.compute_time = o.flops / peak;  // roofline_compute_time
    const data_size<> main_bytes = weight_bytes + o.kv_bytes * kv_factor;
    // op_memory_time
    duration<> t = stream_time(main_bytes, main_bw, main_latency);
    if (o.activation_bytes.si() > 0.0) {
      const duration<> t_act = o.activation_bytes / act_bw;
      if (same_tier || main_bytes.si() == 0.0) {
        t += t_act + (main_bytes.si() == 0.0 ? act_latency : duration<>{});
      } else {
        t = detail::max_of(t, act_latency + t_act);
      }
    }
    c.memory_time = t;
    c.compute_bound = c.compute_time > c.memory_time;
    c.time = detail::max_of(c.compute_time, c.memory_time) + overhead;
    c.energy = o.flops * energy_per_flop + main_bytes * main_energy + o.activation_bytes * act_energy;
    return c;
  }
};

}  // namespace detail

/// One step of the engine scheduler (`simulator.hpp`): decodes and prefill chunks in one pass.
/// A decode reads its S cached tokens; a chunk of c prompt tokens after p already computed ones
/// attends to p + its causal part, c·p + c(c + 1)/2 query–key pairs, and reads the p tokens' KV.
struct mixed_step {
  int tokens = 0;               ///< T: every token of the step (decodes + chunk tokens)
  int sampled = 0;              ///< sequences that produce a token this step (LM-head rows)
  int decodes = 0;              ///< D
  double decode_context = 0.0;  ///< Σ S over the decodes
  double prefill_tokens = 0.0;  ///< P = Σ c over the chunks
  double prefill_pairs = 0.0;   ///< Σ (c·p + c(c + 1)/2)
  double prefill_prior = 0.0;   ///< Σ p
};

/// Memoised decode and prefill costs of a model on `devices` GPUs in tensor parallel (file comment).
///
/// `mixed` costs an engine step as one pass (vLLM V1 runs a step's decodes and prefill chunks as
/// one batch of T tokens, attention by one varlen kernel): every operator but attention and the
/// LM head is the roofline's at T tokens (weights read once, routed experts touched by T tokens,
/// one all-reduce of T tokens per block), memoised by T; final norm and LM head at the sampled
/// rows, memoised by their count; attention is one operator per layer whose FLOPs and bytes are
/// the decode and prefill attention operators' (`step_operators`) summed over the step's
/// sequences (affine in S for a decode, in query–key pairs and tokens for a chunk; the
/// coefficients are read off `step_operators` at S = 1 and 2), costed by the roofline. With expert
/// parallelism (`par`, EP > 1) the parts at T and B tokens are those of the EP evaluator
/// (`evaluate(model, shape, machine, parallelism)`: the busiest device's experts, the all-to-alls
/// with DP attention; the T tokens of a step as T one-token sequences spread over the devices)
/// and the attention operator is split evenly over the devices (TP: its heads; attention reads no
/// weights, so an even DP split would cost the same); under DP attention the engine schedules
/// each rank apart and `mixed_ranks` costs the step from the ranks' own parts. Energy adds
/// static power × time × devices, capped at max power, as `evaluate` does. With no chunks and D
/// decodes of context S it is `evaluate` of the decode step (B = D, S) exactly, and a lone chunk
/// of c tokens (p = 0) is the prefill step (B = 1, S = c) exactly (tests).
class gpu_step_costs {
 public:
  template <class = void>
  gpu_step_costs(const gpu_params& g, int devices, const model& m, const parallelism& par = {},
                 const gpu_sampler_params& sampler = gpu_sampler_params::none())
      : machine_(make_machine(g, devices)), device_(machine_), m_(m), par_(par), sampler_(sampler) {
    validate(m_);
    validate(sampler_, "sampler");
    validate(par_, m_, devices, "gpu.");
    device_.devices = 1;  // one rank's GPU (DP attention, `mixed_ranks`)
    device_.devices_per_node = 0;
  }
  /// An engine step (class comment). Its attention is costed by `attn_cost_` (the roofline's
  /// `cost_of` with the machine's part of it evaluated once) and its head and sampler parts come
  /// from one memo slot of the sampled rows: the same doubles as `cost_of` and `sampler_part` per step.
  template <class = void>
  step_cost mixed(const mixed_step& s) {
    if (!attn_ready_) attention_coefficients();
    const part lin = s.tokens > 0 ? linear_part(s.tokens) : part{};
    const rows_part& rows = rows_part_of(s.sampled);
    double t = lin.time + rows.head.time + rows.smp.time, e = lin.energy + rows.head.energy + rows.smp.energy;
    if (s.decodes + s.prefill_tokens > 0.0) {
      const auto c = attn_cost_.cost(attention_op(s));
      t += c.time.si() * m_.layers;
      e += c.energy.si() * m_.layers;
    }
    return with_static(t, e);
  }
  /// An engine step under DP attention (EP > 1, attention dp), one `mixed_step` per rank: every
  /// rank's scheduler filled its own part and the ranks run the step together (the MoE
  /// all-to-alls need every rank; vLLM runs a dummy batch on an idle one). The parts shared through
  /// the all-to-alls are the EP evaluator's at the ranks' T tokens together, as in `mixed`;
  /// attention is each rank's own operator of its decodes and chunks on one device, the slowest
  /// rank bounding the step (energy: every rank's); the LM head runs on each rank for its own
  /// sampled rows with all the head's weights, timed at the busiest rank's rows (the EP evaluator
  /// at that count on every rank) and its energy that of all the rows. With every rank holding the
  /// same part (n times one rank's step) it is `mixed` of the whole step, which splits attention
  /// and the head rows evenly (test).
  template <class = void>
  step_cost mixed_ranks(const std::vector<mixed_step>& ranks) {
    if (!attn_ready_) attention_coefficients();
    int T = 0, B = 0, busiest = 0;
    for (const auto& s : ranks) {
      T += s.tokens;
      B += s.sampled;
      busiest = std::max(busiest, s.sampled);
    }
    const part lin = T > 0 ? linear_part(T) : part{};
    const part head_time = busiest > 0 ? head_part(busiest * machine_.devices) : part{};
    const part head_energy = B > 0 ? head_part(B) : part{};
    double t_attn = 0.0, e_attn = 0.0;
    for (const auto& s : ranks) {
      if (s.decodes + s.prefill_tokens <= 0.0) continue;
      const auto c = cost_of(attention_op(s), device_);
      t_attn = std::max(t_attn, c.time.si());
      e_attn += c.energy.si();
    }
    // Each rank samples its own rows: the busiest bounds the step, every row costs energy.
    const part smp = sampler_part(busiest, B, 1);
    double t = lin.time + head_time.time + smp.time, e = lin.energy + head_energy.energy + smp.energy;
    t += t_attn * m_.layers;
    e += e_attn * m_.layers;
    return with_static(t, e);
  }
  template <class = void>
  step_cost decode(int batch, double context) {
    const auto [j, w] = detail::ctx_bracket(context);
    return detail::lerp(point(phase::decode, batch, j), point(phase::decode, batch, j + 1), w);
  }
  template <class = void>
  step_cost prefill(int batch, double prompt) {
    const auto [j, w] = detail::ctx_bracket(prompt);
    return detail::lerp(point(phase::prefill, batch, j), point(phase::prefill, batch, j + 1), w);
  }
  template <class = void>
  [[nodiscard]] const roofline_machine& machine() const { return machine_; }
  template <class = void>
  [[nodiscard]] const parallelism& parallel() const { return par_; }

 private:
  /// Time and dynamic energy of a part of a step (zero: a part with no tokens).
  struct part {
    double time = 0.0;
    double energy = 0.0;
  };
  /// The head and sampler parts of a step of `rows` sampled rows (`mixed`): zero for none.
  struct rows_part {
    part head, smp;
  };
  /// `rows_part` of `rows` rows, memoised by the count (the sampler's part is a pure function of it).
  template <class = void>
  const rows_part& rows_part_of(int rows) {
    auto& p = memo_at(rows_, rows);
    if (!p) p = rows_part{rows > 0 ? head_part(rows) : part{}, sampler_part(rows, rows, machine_.devices)};
    return *p;
  }
  /// The memo slot of `i` tokens (empty: not evaluated yet).
  template <class P>
  static std::optional<P>& memo_at(std::vector<std::optional<P>>& v, int i) {
    if (static_cast<std::size_t>(i) >= v.size()) v.resize(static_cast<std::size_t>(i) + 1);
    return v[static_cast<std::size_t>(i)];
  }
  /// The sampler (`baseline/gpu_sampler.hpp`) after the LM head: its time at `rows` sampled rows on
  /// one device (every TP rank samples the gathered logits itself), its energy the HBM bytes of
  /// `energy_rows` rows on each of `copies` devices.
  template <class = void>
  part sampler_part(int rows, int energy_rows, int copies) const {
    if (rows <= 0) return {};
    const auto& hbm = machine_.tiers.front();
    const double vocab = m_.vocab;
    const double t = sampler_time(sampler_, double(rows), vocab, hbm.bandwidth.si(), machine_.memory_efficiency,
                                  machine_.op_overhead.si());
    const double bytes = double(energy_rows) * vocab * sampler_bytes_per_logit(sampler_) * copies;
    return {t, bytes * hbm.energy_per_byte.si()};
  }
  /// Every operator but attention, final norm and LM head at T tokens, with the all-reduces.
  template <class = void>
  part linear_part(int T) {
    auto& p = memo_at(linear_, T);
    if (!p) p = sum_ops(T, false);
    return *p;
  }
  /// Final norm and LM head at B sampled rows.
  template <class = void>
  part head_part(int B) {
    auto& p = memo_at(head_, B);
    if (!p) p = sum_ops(B, true);
    return *p;
  }
  template <class = void>
  part sum_ops(int T, bool head) {
    const step_shape sh{.mode = phase::decode, .batch = T, .context = 1};
    if (par_.expert_parallel()) return sum_ops_ep(sh, head);
    const auto ops = step_operators(m_, sh);
    const auto ar = allreduce(machine_, units::bit(double(T) * m_.hidden * sh.activation_bits));
    part p{0.0, 0.0};
    for (const auto& o : ops) {
      const bool is_head = o.kind == op_kind::final_norm || o.kind == op_kind::lm_head;
      if (o.kind == op_kind::attention || is_head != head) continue;
      const auto c = cost_of(o, machine_);
      p.time += c.time.si();
      p.energy += c.energy.si();
      if (machine_.devices > 1 && (o.kind == op_kind::out_proj || o.kind == op_kind::dense_ffn ||
                                   o.kind == op_kind::shared_experts || o.kind == op_kind::router)) {
        p.time += ar.time.si();
        p.energy += ar.energy.si();
      }
    }
    return p;
  }
  /// `sum_ops` under expert parallelism: the EP evaluator's step tree, its attention (or, for the
  /// head, everything but the final norm and LM head) left out.
  template <class = void>
  part sum_ops_ep(const step_shape& sh, bool head) {
    const auto r = evaluate(m_, sh, machine_, par_, {}, step_breakdown::tree);
    part p{0.0, 0.0};
    for (const auto& top : r.breakdown.parts) {
      const bool rep = top.rule == cost_rule::repeat && !top.parts.empty();
      const cost<>& one = rep ? top.parts.front() : top;
      const double k = rep ? double(top.count) : 1.0;
      for (const auto& node : one.parts) {
        const bool is_head = node.name == "final_norm" || node.name == "lm_head";
        if (node.name == "attention" || is_head != head) continue;
        p.time += node.time.si() * k;
        p.energy += node.energy.si() * k;
      }
    }
    return p;
  }
  /// The step's attention operator: its decodes' and chunks' counts (class comment).
  template <class = void>
  op attention_op(const mixed_step& s) const {
    op a = attn_;
    // Under DP attention each device reads its own sequences' KV, whatever the model's KV heads.
    if (par_.expert_parallel() && par_.attention == attention_parallel::dp) a.kv_shards = 0;
    const double D = s.decodes;
    a.flops = units::flop(D * dec_f0_ + dec_f1_ * s.decode_context + pre_phi_ * s.prefill_pairs);
    a.activation_bytes = units::B(D * dec_act_ + pre_act_ * s.prefill_tokens);
    a.kv_bytes = units::B(kvb_ * (s.decode_context + D + s.prefill_prior) + pre_kv_ * s.prefill_tokens);
    a.tokens = D + s.prefill_tokens;
    return a;
  }
  /// A step's time and dynamic energy with the static power of every device added, capped at their
  /// max power, as `evaluate` does.
  template <class = void>
  step_cost with_static(double t, double e) const {
    const double n = machine_.devices;
    const double cap = machine_.max_power.si() * t * n;
    return {t, std::min(e + machine_.static_power.si() * t * n, cap)};
  }
  /// The attention operator's counts per sequence (class comment).
  template <class = void>
  void attention_coefficients() {
    const auto attn = [&](phase ph, int S) {
      for (const auto& o : step_operators(m_, {.mode = ph, .batch = 1, .context = S})) {
        if (o.kind == op_kind::attention) return o;
      }
      return op{};
    };
    const op d1 = attn(phase::decode, 1), d2 = attn(phase::decode, 2), p1 = attn(phase::prefill, 1);
    attn_ = d1;
    dec_f1_ = d2.flops.si() - d1.flops.si();
    dec_f0_ = d1.flops.si() - dec_f1_;
    dec_act_ = d1.activation_bytes.si();
    kvb_ = d1.kv_bytes.si() / 2.0;  // (S + 1) tokens at S = 1
    pre_phi_ = p1.flops.si();       // one query–key pair at S = 1
    pre_act_ = p1.activation_bytes.si();
    pre_kv_ = p1.kv_bytes.si();
    op a = attn_;
    if (par_.expert_parallel() && par_.attention == attention_parallel::dp) a.kv_shards = 0;  // as `attention_op`
    attn_cost_ = detail::prepared_op_cost(a, machine_);
    attn_ready_ = true;
  }

  template <class = void>
  step_cost point(phase ph, int batch, int j) {
    const std::uint64_t key = (static_cast<std::uint64_t>(batch) << 16) | (static_cast<std::uint64_t>(j) << 1) |
                              (ph == phase::prefill ? 1u : 0u);
    const auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
    const step_shape s{.mode = ph, .batch = batch, .context = static_cast<int>(std::ceil(detail::ctx_grid(j)))};
    const auto r = par_.expert_parallel() ? evaluate(m_, s, machine_, par_) : evaluate(step_operators(m_, s), s, m_.hidden, machine_);
    const step_cost c{r.time.si(), r.energy.si()};
    cache_.emplace(key, c);
    return c;
  }
  roofline_machine machine_;
  roofline_machine device_;  ///< one device of `machine_`
  model m_;
  parallelism par_;
  gpu_sampler_params sampler_;
  std::unordered_map<std::uint64_t, step_cost> cache_;
  std::vector<std::optional<part>> linear_, head_;
  std::vector<std::optional<rows_part>> rows_;
  op attn_{};
  detail::prepared_op_cost attn_cost_{};
  bool attn_ready_ = false;
  double dec_f0_ = 0.0, dec_f1_ = 0.0, dec_act_ = 0.0, kvb_ = 0.0, pre_phi_ = 0.0, pre_act_ = 0.0, pre_kv_ = 0.0;
};

}  // namespace v0
}  // namespace strata
