// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Attention mapping on the Stratum NMP for decode (Stratum §4.2, Fig. 10).
///
/// Work units. A unit is one KV head of one sequence: W = B · kv_heads for MHA/GQA (each unit
/// serves heads / kv_heads query heads), W = B for MLA (one latent per sequence, all query heads
/// attend to it; absorbed form, as `workload/operators.hpp`).
///
/// Head parallelism. Units are spread over the c chips and, inside a chip, over PU groups of g
/// ring neighbours, with at least two units per group so that one unit's linear work overlaps
/// another's Softmax: groups per chip G_c = the largest divisor of P not above ⌈⌊W/2⌋ / c⌉, g =
/// P / G_c, u = ⌈W / (c·G_c)⌉ units in the busiest group. Inside a group K and V are split along
/// the sequence, new tokens placed round-robin over its PUs, so each PU streams S/g tokens of each
/// of its group's units from the KV tiers (the middle tiers, Stratum §5.2).
///
/// Per unit (one group, g PUs):
///   linear  = max(stream(u_kv · S / g over the KV tiers, one PU = q banks),
///                 2·S·(d_qk + d_v)·h_u / (g · q · PE peak))                  QKᵀ and Attn×V
///   softmax = S·h_u·ops / (g · SFE lanes · f) + 2 scalar exchanges on the g-ring  (local max and
///             sum, then the two rounds of §4.2) + reduce-scatter of the partial context
///   group   = pipeline of (linear, softmax) over its u units
/// (u_kv: KV bytes per token of one unit; h_u: query heads per unit; d_qk, d_v: dims of QKᵀ and
/// AV.) The QKV projection is split by heads over chips and PUs (W_qkv by columns, as the heads),
/// each PE taking ⌈H/q⌉ rows, so each group computes its own heads' q, k, v and appends k, v to
/// its own channels; the query is rebuilt in the group by a sub-ring all-gather. The output
/// projection is split by rows (heads) and its partial T×H reduce-scattered on each chip's ring,
/// like an expert's GeMM3 (`expert_mapping.hpp`).

#include <algorithm>  // std::min, std::max
#include <cstddef>    // std::size_t
#include <string>     // std::string
#include <vector>     // std::vector

#include "strata/core/cost.hpp"
#include "strata/core/error.hpp"
#include "strata/core/units.hpp"
#include "strata/stratum/energy_parts.hpp"
#include "strata/stratum/expert_mapping.hpp"
#include "strata/stratum/nmp.hpp"
#include "strata/workload/model.hpp"

namespace strata {
inline namespace v0 {

/// How a decode step's attention is spread over the NMP.
struct attention_split {
  long long units = 0;      ///< W: KV heads × sequences
  int query_per_unit = 1;   ///< query heads per unit
  int groups_per_chip = 1;  ///< G_c
  int group_pus = 1;        ///< g
  long long units_per_group = 0;  ///< u: in the busiest group

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("units", s.units);
    v("query_per_unit", s.query_per_unit);
    v("groups_per_chip", s.groups_per_chip);
    v("group_pus", s.group_pus);
    v("units_per_group", s.units_per_group);
  }
  friend bool operator==(const attention_split&, const attention_split&) = default;
};

/// The head-parallel split of `batch` sequences of model `m` over `chips` chips of `n_pu` PUs.
template <class = void>
inline attention_split split_attention(const model& m, int batch, int chips, int n_pu) {
  detail::require_count(batch, 1, 1 << 24, "strata.attention_mapping", "batch");
  detail::require_count(chips, 1, 1 << 16, "strata.attention_mapping", "chips");
  attention_split a;
  const bool mla = m.is_mla();
  const int kv = mla ? 1 : std::max(1, m.kv_heads);
  a.units = static_cast<long long>(batch) * kv;
  a.query_per_unit = std::max(1, m.heads / kv);
  const long long target = std::max<long long>(1, a.units / 2);  // ≥ 2 units per group
  const long long per_chip = std::max<long long>(1, (target + chips - 1) / chips);
  int gc = 1;
  for (int d = 1; d <= n_pu; ++d) {
    if (n_pu % d == 0 && d <= per_chip) gc = d;
  }
  a.groups_per_chip = gc;
  a.group_pus = n_pu / gc;
  const long long groups = static_cast<long long>(chips) * gc;
  a.units_per_group = (a.units + groups - 1) / groups;
  return a;
}

/// Decode attention of one layer on the NMP: the QKV projection, the attention core of the
/// busiest group and the output projection, with the energy by part over all chips.
/// `weight_shares` and `kv_shares` place the projection weights and the KV cache in the tiers.
template <class T>
cost<T> attention_decode_cost(const nmp_device<T>& d, int chips, const model& m, int batch, int context,
                              const std::vector<double>& weight_shares, const std::vector<double>& kv_shares,
                              int layer = 0, const mapping_options<T>& o = {},
                              energy_parts<T>* energy_out = nullptr, attention_split* split_out = nullptr,
                              bool with_tree = true, time_parts<T>* time_out = nullptr) {
  validate(o);
  detail::require_count(context, 1, 1 << 24, "strata.attention_mapping", "context");
  const auto a = split_attention(m, batch, chips, d.n_pu);
  if (split_out != nullptr) *split_out = a;
  const bool mla = m.is_mla();
  const int H = m.hidden;
  const double ab = 16 / 8.0, kvb = m.kv_bits / 8.0;
  const int q_out = mla ? m.heads * (m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim) : m.heads * m.head_dim;
  const int kv_out = mla ? m.mla.kv_lora_rank + m.mla.qk_rope_head_dim : 2 * m.kv_heads * m.head_dim;
  const int o_rows = mla ? m.heads * m.mla.v_head_dim : m.heads * m.head_dim;
  const double d_qk = mla ? m.mla.kv_lora_rank + m.mla.qk_rope_head_dim : m.head_dim;
  const double d_v = mla ? m.mla.kv_lora_rank : m.head_dim;
  const double unit_kv_bytes = (mla ? m.mla.kv_lora_rank + m.mla.qk_rope_head_dim : 2.0 * m.head_dim) * kvb;
  const std::string n = with_tree ? detail::numbered("L", layer) : std::string();

  // Projections as FFN-like GEMVs: QKV split by columns (heads), O by rows (heads).
  expert_work<T> qkv;
  qkv.tokens = T(double(batch));
  qkv.hidden = H;
  qkv.inter = q_out + kv_out;
  qkv.weight_bits = m.weight_bits;
  qkv.shares = weight_shares;
  qkv.layer = layer;
  validate(qkv, d);
  const long long P = d.n_pu, q = d.pes_per_pu;
  const long long cols = detail::ceil_div(qkv.inter, static_cast<long long>(chips) * P);
  const long long hq = detail::ceil_div(H, q);
  const T wb = T(m.weight_bits / 8.0);
  const T B = T(double(batch));
  energy_parts<T> e{};

  // Stage times (the tree, when asked for, names them).
  const auto proj_t = [&](long long per_pe_weights) {
    const T w = T(double(per_pe_weights));
    return detail::pe_gemm_time(d, B * w, units::B(w * wb), weight_shares);
  };
  const auto t_qkv = proj_t(hq * cols);
  const auto t_qkv_red = detail::reduce_tree_time(d, B * T(double(cols)));
  const long long o_per_pu = detail::ceil_div(o_rows, static_cast<long long>(chips) * P);
  const auto t_o = proj_t(o_per_pu * hq);
  const strata::data_size<T> o_partial = units::B(B * T(double(H)) * T(ab));
  const auto t_o_rs = ring_reduce_scatter_time(d, o_partial, d.n_pu);

  // Attention core of the busiest group: a two-stage pipeline (linear work, Softmax) over its units.
  const int g = a.group_pus;
  const T S = T(double(context));
  const T hu = T(double(a.query_per_unit));
  const strata::data_size<T> unit_kv = units::B(S * T(unit_kv_bytes));
  const auto stream = detail::shard_stream_time(d, unit_kv / T(double(g * q)), kv_shares);
  const auto compute = strata::duration<T>::from_si(T(2) * S * T(d_qk + d_v) * hu /
                                                    (T(double(g * q)) * d.pe_peak().si()));
  const auto t_linear = detail::max_of(stream, compute);
  const auto q_gather = ring_all_gather_time(d, units::B(hu * T(d_qk) * T(ab)), g);
  const auto t_sfe = detail::sfe_time(d, S * hu / T(double(g)), o.softmax_ops);
  const auto t_exchange = ring_scalar_exchange_time(d, g) * T(2) +
                          ring_reduce_scatter_time(d, units::B(hu * T(d_v) * T(ab)), g) + q_gather;
  const auto t_softmax = t_sfe + t_exchange;
  const std::size_t units_in_group = static_cast<std::size_t>(std::max<long long>(1, a.units_per_group));
  if (time_out != nullptr) {
    // The critical path by mechanism (`time_parts`): each projection for its stream or its tensor
    // cores; the core's first unit both stages, the other u − 1 units the slower stage.
    auto& tp = *time_out;
    const auto proj_part = [&](long long per_pe_weights, const strata::duration<T>& t) {
      const T w = T(double(per_pe_weights));
      const bool streams = !(detail::shard_stream_time(d, units::B(w * wb), weight_shares) <
                             strata::duration<T>::from_si(T(2) * B * w / d.pe_peak().si()));
      (streams ? tp.weight_stream : tp.nmp_compute) += t;
    };
    proj_part(hq * cols, t_qkv);
    proj_part(o_per_pu * hq, t_o);
    tp.nmp_compute += t_qkv_red;
    tp.ring += t_o_rs;
    const T rest = T(double(units_in_group - 1));
    auto& linear_part = stream < compute ? tp.nmp_compute : tp.kv_stream;
    linear_part += t_linear;
    tp.nmp_compute += t_sfe;
    tp.ring += t_exchange;
    if (t_softmax > t_linear) {
      tp.nmp_compute += t_sfe * rest;
      tp.ring += t_exchange * rest;
    } else {
      linear_part += t_linear * rest;
    }
  }

  // Energy over all chips.
  const T proj_weights = T(double(H)) * T(double(qkv.inter + o_rows));
  const T proj_macs = B * proj_weights;
  const strata::data_size<T> kv_read = units::B(T(double(a.units)) * S * T(unit_kv_bytes));
  const T core_macs = T(double(a.units)) * S * T(d_qk + d_v) * hu;
  e.mac = d.e_mac * (proj_macs + core_macs);
  detail::add_dram_read(e, d.access, units::B(proj_weights * wb) + kv_read);
  // New K, V written to the channels (a write costs as a read of the same bytes).
  detail::add_dram_read(e, d.access, units::B(B * T(double(kv_out)) * T(kvb)));
  const T scores = T(double(a.units)) * S * hu;
  e.sfe = d.e_mac * (scores * T(double(o.softmax_ops)));
  const T pus = T(double(chips * P));
  e.sram = d.sram_energy * units::B(scores * T(ab) * T(2) + T(4) * proj_macs / T(double(d.taps)) +
                                    pus * B * T(double(H)) * T(ab) * T(2));
  e.ring = d.ring_energy * (ring_link_bytes(o_partial, d.n_pu) * T(double(chips)) +
                            units::B(T(double(a.units)) * hu * T(d_v + d_qk) * T(ab) * T(double(g))));
  if (energy_out != nullptr) *energy_out += e;

  cost<T> total;
  if (with_tree) {
    auto core = pipeline<T>(n + " attention core (" + std::to_string(a.units_per_group) + " units per group)",
                            std::vector<cost<T>>{cost<T>::leaf(n + " QK^T, Attn x V", t_linear, {}, {},
                                                               "max(KV stream, 2·S·(d_qk + d_v)·h_u / (g·q·PE peak)), "
                                                               "Stratum §4.2"),
                                                 cost<T>::leaf(n + " softmax + exchange", t_softmax, {}, {},
                                                               "SFE + 2 scalar exchanges + context reduce-scatter + "
                                                               "query all-gather")},
                            units_in_group);
    core.energy = {};
    core.bytes.clear();
    total = seq<T>(n + " attention",
                   std::vector<cost<T>>{
                       cost<T>::leaf(n + " QKV projection", t_qkv, {}, {}, "max(stream, T·H/q·cols / (n·k·f·η))"),
                       cost<T>::leaf(n + " reduce QKV", t_qkv_red, {}, {}, "reduction tree"), std::move(core),
                       cost<T>::leaf(n + " O projection", t_o, {}, {}, "max(stream, T·rows·H/q / (n·k·f·η))"),
                       cost<T>::leaf(n + " O reduce-scatter", t_o_rs, {}, {}, "ring: h·(D/p / b + hop)")});
  } else {
    // The same time without the tree: Σ stages + (u − 1)·max of the core's two stages.
    const auto t_core = t_linear + t_softmax + detail::max_of(t_linear, t_softmax) * T(double(units_in_group - 1));
    total = cost<T>::leaf("attention", t_qkv + t_qkv_red + t_core + t_o + t_o_rs, {}, {}, "Stratum §4.2");
  }
  total.energy = e.total();
  total.add_bytes("nmp.weights", units::B(proj_weights * wb));
  total.add_bytes("nmp.kv", kv_read);
  return total;
}

}  // namespace v0
}  // namespace strata
