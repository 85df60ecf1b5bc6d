// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Expert parallelism (EP) for the roofline evaluator: the routed experts of every MoE layer
/// spread whole over the n devices of the machine, attention (and every other operator) in
/// tensor parallelism (TP) or data parallelism (DP) over the same devices.
///
/// `parallelism{}` (EP 1) is tensor parallelism of everything, the evaluator of
/// `roofline.hpp` unchanged.
///
/// **Placement.** E experts over n devices, E/n each (E divisible by n), expert e on device
/// ⌊e / (E/n)⌋ (vLLM's and SGLang's static layout). With `redundant_experts` r > 0 every device
/// has r more slots, n·r replicas in all, filled EPLB-style (github.com/deepseek-ai/EPLB,
/// `eplb.py`: `replicate_experts` then `balanced_packing`): each replica goes to the expert of
/// the largest load per copy λ_e / c_e, then the copies, heaviest first, each to the least loaded
/// device that has a free slot and no copy of that expert yet. A replicated expert's tokens split
/// evenly over its c_e copies. λ_e is the step's measured routings to e (a routing histogram) or
/// T·k/E (uniform routing: the replicas then balance nothing in expectation, only the variance).
///
/// **Load imbalance.** Device d receives L_d = Σ_{copies on d} N_e / c_e routings (N_e: tokens
/// routed to e). The busiest device's experts bound the layer: with a histogram, the measured
/// L_d (every device's operator costed, the slowest taken); with uniform routing each token picks
/// k of E experts without replacement, so with shares s_e of e's tokens on d
///   E[L_d] = T·k/E · Σ s_e,   Var L_d = T·k(E−k)/E² · (Σ s_e² − ((Σ s_e)² − Σ s_e²)/(E−1))
/// (for s_e = 1 on E/n experts: the hypergeometric T·k·(1/n)(1 − 1/n)(E − k)/(E − 1)), and
/// `imbalance` chooses the busiest device's load:
/// - `expected_max` (default): max_d E[L_d] + z_n · max_d σ_d, z_n = Φ⁻¹((n − 0.375)/(n + 0.25))
///   the expected maximum of n standard normals by Blom's approximation (G. Blom, "Statistical
///   Estimates and Transformed Beta-Variables", Wiley 1958; z_8 = 1.43 against the exact 1.42),
///   the device loads taken as independent normals; capped at T·min(k, slots);
/// - `mean`: E[L_d], perfect balance (the lower bound).
/// Expert copies a device reads: with uniform routing S·(1 − (1 − 1/S)^L_d) for its S slots and
/// its L_d routings (each routing to one of its copies at random: the busiest device reads more
/// of them; at the mean load it is the S·(1 − (1 − k/E)^T) of `expected_distinct_experts` but
/// for the without-replacement draw within a token); with a histogram Σ min(1, N_e / c_e).
///
/// **Attention.** TP: as the evaluator today, every non-expert operator split over the n devices
/// with its all-reduce; after the attention all-reduce every device holds every token, so each
/// device runs its own experts on the tokens routed to them and the MoE block ends in the same
/// all-reduce (vLLM's EP without data parallelism): no all-to-all. DP: device d holds b_d of the B
/// sequences (⌈B/n⌉ on the first B mod n devices, ⌊B/n⌋ on the rest) and runs every non-expert
/// operator for them alone with all the weights (replicated: each device reads them all); no
/// all-reduce. The busiest device (⌈B/n⌉ sequences) bounds the time; energy and bytes count every
/// device (weights read n times).
///
/// **All-to-all (DP attention, n > 1).** Per MoE layer a dispatch sends each routing of a token to
/// an expert on another device (one row of `hidden` activations per (token, expert) pair, as
/// DeepSeek's DeepEP low-latency kernels for decoding do, github.com/deepseek-ai/DeepEP README) and a
/// combine returns each expert output the same way back. With the routings' destinations
/// independent of their source, device d (t_d tokens) sends t_d·k·(1 − L_d/ΣL) rows and receives
/// L_d·(1 − t_d/T); each all-to-all moves max_d(max(sent_d, received_d)) · hidden · activation
/// bytes through the busiest device, the same in both directions, Σ_d sent_d rows in all. Its
/// time is `alltoall` (`roofline.hpp`): on the device links within a node and the inter-node
/// links across nodes, the slower path bounding it, with a latency per message (per peer).

#include <algorithm>  // std::max, std::min, std::stable_sort, std::find, std::max_element
#include <array>      // std::array (enum names)
#include <cmath>      // std::pow, std::sqrt, std::ceil
#include <cstdint>    // std::uint32_t
#include <string>     // std::string
#include <utility>    // std::pair
#include <vector>     // std::vector

#include <boost/math/special_functions/erf.hpp>  // erf_inv: Blom's normal quantile

#include "strata/core/error.hpp"
#include "strata/core/units.hpp"
#include "strata/workload/model.hpp"
#include "strata/workload/footprint.hpp"
#include "strata/workload/operators.hpp"
#include "strata/workload/roofline.hpp"

namespace strata {
inline namespace v0 {

/// How attention (and every non-expert operator) runs over the devices of an EP machine.
enum class attention_parallel { tp, dp };
constexpr auto enum_names(attention_parallel) {
  return std::array{std::pair{attention_parallel::tp, "tp"}, std::pair{attention_parallel::dp, "dp"}};
}

/// The busiest device's routings under uniform routing (file comment).
enum class ep_imbalance { expected_max, mean };
constexpr auto enum_names(ep_imbalance) {
  return std::array{std::pair{ep_imbalance::expected_max, "expected_max"}, std::pair{ep_imbalance::mean, "mean"}};
}

/// The parallelism of a step (file comment). The default is tensor parallelism of everything.
struct parallelism {
  /// EP degree: 1 (experts split in TP like every weight) or the machine's device count.
  int ep = 1;
  /// Attention in TP or DP over the EP devices. [Design choice: tp, today's layout]
  attention_parallel attention = attention_parallel::tp;
  /// Redundant expert slots per device (EPLB). [Design choice: 0; DeepSeek-V3's prefill deployment
  /// uses 32 redundant experts over 32 GPUs, one per GPU: arXiv:2412.19437 §3.4.1]
  int redundant_experts = 0;
  /// The busiest device's load under uniform routing. [Design choice: expected_max, Blom 1958]
  ep_imbalance imbalance = ep_imbalance::expected_max;

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("ep", s.ep);
    v("attention", s.attention);
    v("redundant_experts", s.redundant_experts);
    v("imbalance", s.imbalance);
  }
  friend bool operator==(const parallelism&, const parallelism&) = default;

  /// Expert parallelism in effect (EP > 1).
  template <class = void>
  [[nodiscard]] bool expert_parallel() const { return ep > 1; }
};

/// Checks `p` for model `m` on `devices` devices; throws `config_error` naming the field
/// (prefixed by `at`, e.g. "gpu.").
template <class = void>
inline void validate(const parallelism& p, const model& m, int devices, const std::string& at = {}) {
  constexpr const char* id = "strata.ep";
  const auto f = [&](const char* name) { return at + name; };
  if (p.ep != 1 && p.ep != devices) {
    detail::require(false, id, f("ep"), p.ep, ("1 or the device count (" + std::to_string(devices) + ")").c_str());
  }
  detail::require(p.redundant_experts >= 0, id, f("redundant_experts"), p.redundant_experts, ">= 0");
  if (!p.expert_parallel()) {
    detail::require(p.redundant_experts == 0, id, f("redundant_experts"), p.redundant_experts, "0 without EP (ep > 1)");
    detail::require(p.attention == attention_parallel::tp, id, f("attention"), "dp", "tp without EP (ep > 1)");
    return;
  }
  detail::require(m.experts > 0, id, f("ep"), p.ep, "1 for a model without routed experts");
  if (m.experts % p.ep != 0) {
    detail::require(false, id, f("ep"), p.ep, ("a divisor of the experts (" + std::to_string(m.experts) + ")").c_str());
  }
  const int per = m.experts / p.ep;
  if (p.redundant_experts > per) {
    detail::require(false, id, f("redundant_experts"), p.redundant_experts,
                    ("<= experts per device (" + std::to_string(per) + ")").c_str());
  }
}

/// z_n = Φ⁻¹((n − 0.375)/(n + 0.25)): Blom's expected maximum of n standard normals (0 for n = 1).
template <class = void>
inline double expected_max_standard_normal(int n) {
  if (n <= 1) return 0.0;
  const double p = (n - 0.375) / (n + 0.25);
  return std::sqrt(2.0) * boost::math::erf_inv(2.0 * p - 1.0);
}

/// Where one MoE layer's routings land on the EP devices (file comment).
struct ep_routing {
  int devices = 1;
  std::vector<int> copies;            ///< c_e: copies of each expert
  std::vector<double> load;           ///< L_d: routings each device receives (busiest's per `imbalance` if uniform)
  std::vector<double> touched;        ///< expert copies each device reads (at its load in `load`)
  double copies_read = 0.0;           ///< expert copies read over all devices (uniform: at the mean loads)
  std::vector<double> tokens;         ///< t_d: tokens each device holds (DP attention)
  double routings = 0.0;              ///< T·k
  double dispatch_rows = 0.0;         ///< rows through the busiest device per all-to-all (DP attention)
  double total_rows = 0.0;            ///< Σ_d sent_d per all-to-all (DP attention)
  /// The busiest device's load over the mean: max_d L_d / (T·k/n).
  template <class = void>
  [[nodiscard]] double imbalance() const {
    const double mx = load.empty() ? 0.0 : *std::max_element(load.begin(), load.end());
    return routings > 0.0 ? mx / (routings / devices) : 1.0;
  }
};

namespace detail {
/// Copies of each expert and the experts on each device (file comment: static layout, or EPLB
/// replication and balanced packing with r redundant slots per device).
template <class = void>
inline std::vector<std::vector<int>> ep_place(const std::vector<double>& lambda, int n, int r, std::vector<int>& copies) {
  const int E = static_cast<int>(lambda.size());
  const int per = E / n;
  copies.assign(static_cast<std::size_t>(E), 1);
  std::vector<std::vector<int>> on(static_cast<std::size_t>(n));
  if (r == 0) {
    for (int e = 0; e < E; ++e) on[static_cast<std::size_t>(e / per)].push_back(e);
    return on;
  }
  for (int i = 0; i < n * r; ++i) {  // replicate_experts: the largest load per copy, lowest index on ties
    int best = 0;
    for (int e = 1; e < E; ++e) {
      if (lambda[std::size_t(e)] / copies[std::size_t(e)] > lambda[std::size_t(best)] / copies[std::size_t(best)]) best = e;
    }
    ++copies[std::size_t(best)];
  }
  std::vector<std::pair<double, int>> items;  // (load per copy, expert)
  items.reserve(static_cast<std::size_t>(n) * static_cast<std::size_t>(per + r));
  for (int e = 0; e < E; ++e) {
    for (int c = 0; c < copies[std::size_t(e)]; ++c) items.emplace_back(lambda[std::size_t(e)] / copies[std::size_t(e)], e);
  }
  std::stable_sort(items.begin(), items.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<double> weight(static_cast<std::size_t>(n), 0.0);
  for (const auto& [w, e] : items) {
    int pick = -1;
    for (int d = 0; d < n; ++d) {
      const auto& slots = on[std::size_t(d)];
      if (static_cast<int>(slots.size()) >= per + r) continue;
      if (std::find(slots.begin(), slots.end(), e) != slots.end()) continue;
      if (pick < 0 || weight[std::size_t(d)] < weight[std::size_t(pick)]) pick = d;
    }
    if (pick < 0) {  // every device with a free slot holds a copy already: the least loaded free one
      for (int d = 0; d < n; ++d) {
        if (static_cast<int>(on[std::size_t(d)].size()) < per + r &&
            (pick < 0 || weight[std::size_t(d)] < weight[std::size_t(pick)])) {
          pick = d;
        }
      }
    }
    on[std::size_t(pick)].push_back(e);
    weight[std::size_t(pick)] += w;
  }
  return on;
}
}  // namespace detail

/// The routings of one MoE layer over the EP devices of `p` (checked: `validate`): `tokens` T
/// tokens of `batch` sequences (DP attention spreads the sequences), `counts` the layer's routing
/// histogram row (null: uniform routing).
template <class = void>
inline ep_routing route_experts(const model& m, const parallelism& p, int batch, double tokens,
                                const std::vector<std::uint32_t>* counts) {
  const int n = p.ep, E = m.experts, k = m.top_k, r = p.redundant_experts;
  ep_routing out;
  out.devices = n;
  const double T = tokens;
  out.routings = T * k;
  std::vector<double> lambda(static_cast<std::size_t>(E), T * k / E);
  if (counts != nullptr) {
    out.routings = 0.0;
    for (int e = 0; e < E; ++e) {
      lambda[std::size_t(e)] = (*counts)[std::size_t(e)];
      out.routings += lambda[std::size_t(e)];
    }
  }
  const auto on = detail::ep_place(lambda, n, r, out.copies);
  const double z = p.imbalance == ep_imbalance::expected_max ? expected_max_standard_normal(n) : 0.0;
  double max_sd = 0.0;
  for (int d = 0; d < n; ++d) {
    double mean = 0.0, touched = 0.0, s1 = 0.0, s2 = 0.0;
    for (const int e : on[std::size_t(d)]) {
      const double c = out.copies[std::size_t(e)];
      const double s = 1.0 / c;
      mean += lambda[std::size_t(e)] * s;
      if (counts != nullptr) touched += std::min(1.0, lambda[std::size_t(e)] / c);
      s1 += s;
      s2 += s * s;
    }
    out.load.push_back(mean);
    out.touched.push_back(touched);
    if (counts == nullptr && E > 1) {
      const double var = T * k * double(E - k) / (double(E) * E) * (s2 - (s1 * s1 - s2) / (E - 1));
      max_sd = std::max(max_sd, std::sqrt(std::max(var, 0.0)));
    }
  }
  for (int d = 0; d < n; ++d) {
    const double S = double(on[std::size_t(d)].size());
    if (counts == nullptr) out.touched[std::size_t(d)] = S * (1.0 - std::pow(1.0 - 1.0 / S, out.load[std::size_t(d)]));
    out.copies_read += out.touched[std::size_t(d)];
  }
  if (counts == nullptr && z > 0.0) {
    // Uniform routing: the busiest device's expected load stands for every device's.
    const double mx = *std::max_element(out.load.begin(), out.load.end());
    const double cap = T * std::min<double>(k, double(on[0].size()));
    const double busiest = std::min(mx + z * max_sd, cap);
    for (int d = 0; d < n; ++d) {
      const double S = double(on[std::size_t(d)].size());
      out.load[std::size_t(d)] = busiest;
      out.touched[std::size_t(d)] = S * (1.0 - std::pow(1.0 - 1.0 / S, busiest));
    }
  }
  // Sequences over the devices (DP attention): ⌈B/n⌉ on the first B mod n devices.
  const double per_seq = batch > 0 ? T / batch : 0.0;
  for (int d = 0; d < n; ++d) {
    const int sequences = batch / n + (d < batch % n ? 1 : 0);  // an integer count
    out.tokens.push_back(double(sequences) * per_seq);
  }
  if (n > 1 && p.attention == attention_parallel::dp) {
    double total_load = 0.0;
    for (int d = 0; d < n; ++d) total_load += out.load[std::size_t(d)];
    for (int d = 0; d < n; ++d) {
      const double L = out.load[std::size_t(d)], t = out.tokens[std::size_t(d)];
      const double sent = total_load > 0.0 ? t * k * (1.0 - L / total_load) : 0.0;
      const double received = T > 0.0 ? L * (1.0 - t / T) : 0.0;
      out.dispatch_rows = std::max({out.dispatch_rows, sent, received});
      out.total_rows += sent;
    }
  }
  return out;
}

namespace detail {
/// The MoE layer index (row of a routing histogram) of decoder layer `l`.
template <class = void>
inline int moe_index_of(const model& m, int l) {
  int i = 0;
  for (int j = 0; j < l; ++j) i += m.is_moe_layer(j) ? 1 : 0;
  return i;
}

/// `st` with each MoE layer's expert operators as one `routed_experts` operator of the whole step
/// (its copies touched over every device), and the EP context: the slowest device's experts and
/// the all-to-alls per MoE layer.
template <class T>
ep_context<T> ep_plan(layered_step& st, const model& mdl, const basic_roofline_machine<T>& m, const parallelism& p,
                      const expert_histogram& hist) {
  ep_context<T> ctx;
  ctx.device = m;
  ctx.device.devices = 1;
  ctx.device.devices_per_node = 0;
  ctx.dp = p.attention == attention_parallel::dp;
  const int n = p.ep, B = st.shape.batch;
  const int own_sequences = (B + n - 1) / n;  // ⌈B/n⌉, an integer count
  ctx.dp_share = ctx.dp ? double(own_sequences) / B : 1.0;
  ctx.layers.resize(static_cast<std::size_t>(mdl.layers));
  const double tokens = st.shape.mode == phase::decode ? double(B) : double(B) * st.shape.context;
  const double row_bytes = double(mdl.hidden) * st.shape.activation_bits / 8.0;
  std::vector<op> ops;
  ops.reserve(st.ops.size());
  ops.insert(ops.end(), st.ops.begin(), st.ops.begin() + static_cast<std::ptrdiff_t>(st.layers_begin));
  for (auto& g : st.groups) {
    const std::size_t begin = ops.size();
    for (std::size_t i = g.begin; i < g.end; ++i) {
      const op& o = st.ops[i];
      if (o.kind != op_kind::routed_experts && o.kind != op_kind::expert) {
        ops.push_back(o);
        continue;
      }
      // The layer's expert operators (one under uniform routing, one per touched expert with a
      // histogram) summed into one.
      op all = o;
      all.kind = op_kind::routed_experts;
      all.expert = -1;
      while (i + 1 < g.end && st.ops[i + 1].kind == op_kind::expert) {
        const op& x = st.ops[++i];
        all.flops += x.flops;
        all.weight_bytes += x.weight_bytes;
        all.activation_bytes += x.activation_bytes;
        all.tokens += x.tokens;
        all.instances += x.instances;
      }
      const std::vector<std::uint32_t>* counts =
          hist.empty() ? nullptr : &hist[static_cast<std::size_t>(moe_index_of(mdl, o.layer))];
      const ep_routing er = route_experts(mdl, p, B, tokens, counts);
      // Per routing and per expert copy, read off the whole layer's operator.
      const double per_flops = all.tokens > 0.0 ? all.flops.si() / all.tokens : 0.0;
      const double per_act = all.tokens > 0.0 ? all.activation_bytes.si() / all.tokens : 0.0;
      const double per_copy = all.instances > 0.0 ? all.weight_bytes.si() / all.instances : 0.0;
      all.instances = er.copies_read;
      all.weight_bytes = units::B(per_copy * er.copies_read);
      auto& lc = ctx.layers[static_cast<std::size_t>(o.layer)];
      lc.set = true;
      T slowest{};
      for (int d = 0; d < n; ++d) {
        op dev = all;
        dev.tokens = er.load[std::size_t(d)];
        dev.flops = op_count<>::from_si(per_flops * dev.tokens);
        dev.activation_bytes = units::B(per_act * dev.tokens);
        dev.instances = er.touched[std::size_t(d)];
        dev.weight_bytes = units::B(per_copy * dev.instances);
        const T t = cost_of(dev, ctx.device).time.si();
        if (d == 0 || value_of(t) > value_of(slowest)) {
          slowest = t;
          lc.device = dev;
        }
      }
      if (ctx.dp && n > 1) {
        lc.dispatch = alltoall(m, units::B(er.dispatch_rows * row_bytes), units::B(er.total_rows * row_bytes));
        lc.combine = lc.dispatch;
      }
      ops.push_back(all);
    }
    g.begin = begin;
    g.end = ops.size();
  }
  const std::size_t head = ops.size();
  ops.insert(ops.end(), st.ops.begin() + static_cast<std::ptrdiff_t>(st.layers_end), st.ops.end());
  st.layers_end = head;
  st.ops = std::move(ops);
  return ctx;
}
}  // namespace detail

/// Each distinct MoE layer's routing over the EP devices, with its first decoder layer: one under
/// uniform routing, one per MoE layer with a histogram (as `evaluate` routes them). Empty without EP.
template <class = void>
inline std::vector<std::pair<int, ep_routing>> ep_routings(const model& mdl, const step_shape& s, const parallelism& p,
                                                           const expert_histogram& hist = {}) {
  validate(mdl);
  validate(s);
  validate(p, mdl, p.ep);
  detail::check_histogram_layers(mdl, hist);
  std::vector<std::pair<int, ep_routing>> out;
  if (!p.expert_parallel()) return out;
  const double tokens = s.mode == phase::decode ? double(s.batch) : double(s.batch) * s.context;
  for (int l = 0, i = 0; l < mdl.layers; ++l) {
    if (!mdl.is_moe_layer(l)) continue;
    if (!hist.empty() && static_cast<int>(hist[std::size_t(i)].size()) != mdl.experts) {
      detail::require(false, "strata.operators", "histogram[" + std::to_string(i) + "].experts", hist[std::size_t(i)].size(),
                      ("= experts (" + std::to_string(mdl.experts) + ")").c_str());
    }
    out.emplace_back(l, route_experts(mdl, p, s.batch, tokens, hist.empty() ? nullptr : &hist[std::size_t(i)]));
    if (hist.empty()) break;
    ++i;
  }
  return out;
}

/// Evaluates model `mdl` running step `s` on the `m.devices` devices of `m` under parallelism `p`
/// (file comment): `p.ep` 1 is `evaluate(mdl, s, m, hist, breakdown)` exactly. With EP the
/// routed experts of each MoE layer are one `routed_experts` operator of the whole step (FLOPs and
/// bytes over every device) timed on its slowest device; DP attention adds an `alltoall dispatch`
/// and an `alltoall combine` node to it (`alltoall_time`, `alltoall_bytes` in the result, their
/// bytes in `link_bytes`). Capacity: every expert copy (E + n·r) and, with DP attention, the
/// non-expert weights on every device, split over the devices with the KV cache.
template <class T>
basic_step_result<T> evaluate(const model& mdl, const step_shape& s, const basic_roofline_machine<T>& m,
                              const parallelism& p, const expert_histogram& hist = {},
                              step_breakdown breakdown = step_breakdown::none) {
  validate(mdl);
  validate(s);
  validate(m);
  validate(p, mdl, m.devices);
  if (!p.expert_parallel()) return evaluate(mdl, s, m, hist, breakdown);
  auto st = detail::step_layers_valid(mdl, s, hist);
  const auto ctx = detail::ep_plan(st, mdl, m, p, hist);
  auto r = detail::evaluate_valid(st, m, breakdown == step_breakdown::tree, &ctx);
  const double copies = double(mdl.experts + p.ep * p.redundant_experts) / mdl.experts;
  footprint f = detail::resident_footprint_valid(mdl, s, {}, copies);
  if (ctx.dp) {
    f.weights = f.weights * double(m.devices);
    f.non_nmp = f.non_nmp * double(m.devices);
  }
  const auto c = detail::check_capacity_valid(m, f);
  r.feasible = c.feasible;
  r.reason = c.reason;
  return r;
}

/// Former signature (a positional bool for the tree). Deprecated: use `step_breakdown`.
template <class T>
[[deprecated("use evaluate(model, shape, machine, parallelism, hist, strata::step_breakdown::tree or ::none)")]]
basic_step_result<T> evaluate(const model& mdl, const step_shape& s, const basic_roofline_machine<T>& m,
                              const parallelism& p, const expert_histogram& hist, bool with_breakdown) {
  return evaluate(mdl, s, m, p, hist, with_breakdown ? step_breakdown::tree : step_breakdown::none);
}

}  // namespace v0
}  // namespace strata
