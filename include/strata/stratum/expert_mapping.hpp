// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Expert FFN mapping on the Stratum NMP (Stratum §4.1, Fig. 8, Fig. 9).
///
/// One expert: X (T×H) · W1, W2 (H×M) → Z1, Z2 (T×M); X2 = act(Z1) ⊙ Z2; Z3 = X2 · W3 (M×H).
/// T is never split (that would replicate weights). Over the c chips and P PUs of each chip the
/// expert is tensor parallel: W1 and W2 are split by columns, W3 by rows, so a PU holds
/// m = ⌈M / (c·P)⌉ columns (rows of W3) and computes its slices of Z1, Z2, X2 with no
/// communication. Inside a PU the longer weight dimension, H, is split over its q PEs: W1,2
/// slices horizontally (each PE a ⌈H/q⌉ × m block; the reduction tree adds the q partial Z1, Z2),
/// W3 slices vertically (each PE an m × ⌈H/q⌉ block of whole output columns).
///
/// Stage times of one expert (every PE and PU works in lockstep; a bank streams its shard):
///   stream(b)   = Σ_i stream_time(s_i·b, BW_i / banks, latency_i)     (s_i: share of the
///                 expert's rows in tier i, from the placement)
///   GeMM1, 2    = max(stream(⌈H/q⌉·m·w), T·⌈H/q⌉·m / (n·k·f·η))       per PE
///   reduce      = ⌈log2 q⌉ / f + T·m / (lanes·f)                        per PU, per GeMM
///   activation  = T·m·ops_act / (SFE lanes · f);  Hadamard = T·m / (SFE lanes · f)
///   GeMM3       = max(stream(m·⌈H/q⌉·w), T·m·⌈H/q⌉ / (n·k·f·η))       per PE
///   reduce-scatter of the partial Z3 (T·H·a bytes per PU) on each chip's ring (nmp.hpp)
///   weighted sum = T·⌈H/P⌉ / (SFE lanes · f), as each expert's slice arrives
/// (w, a: bytes per weight and per activation). A non-gated FFN (GeLU) has GeMM1, activation and
/// GeMM3 only.
///
/// Pipeline (Fig. 9), experts one after another, all PUs on one expert at a time:
///   core_e   = max(GeMM2, reduce(Z1) + activation) + reduce(Z2) + Hadamard + GeMM3
///   t_layer  = GeMM1_1 + Σ_e core_e + Σ_{e<n} max(RS_e + WS_e, GeMM1_{e+1}) + RS_n + WS_n
/// GeMM2 overlaps the activation of Z1; the reduce-scatter (and the weighted sum on arrival) of
/// one expert overlaps the next expert's GeMM1. The input (the layer's token batch) is written
/// sliced across channels and rebuilt by a ring all-gather once per layer (`moe_input_cost`).
///
/// Energy per expert (all chips): MACs × E_mac; weights read × each access-energy part; SRAM
/// bytes (inputs read once per GeMM into the engines, psum read-modify-write once per k taps,
/// Z1, Z2, X2 and the Z3 slice written and read) × E_sram; ring link bytes × E_ring; SFE
/// operations × E_mac (one FMA each).
///
/// Expected routing: an expert touched with probability p and T tokens when touched costs p ×
/// its stage times and energies (`expert_work::weight`), so a usage table gives the expected
/// layer without enumerating batches.
///
/// Work mapping over the chips (`mapping_options::experts`). Citations give the paper's
/// section and the line of the project's English account of it (the Stratum spec).
/// - `expert_parallel` (the default): an expert's rows on one chip, split over that chip's P PUs
///   (m = ⌈M / P⌉). §4.1 lines 66–70: "all PUs work on one expert at a time (tensor
///   parallelism)", each PU holds H×M/P, and "a reduce-scatter on the ring sums the partials";
///   the ring is a chip's (§3 lines 43–44: the PUs of a chip are joined by a ring), and the chips
///   meet only through the xPU (§3 lines 45–47: the xPU writes inputs and reads results through
///   the DRAM interface of each chip). So the tensor-parallel group of §4.1 is the P PUs of one
///   chip. Each chip runs its experts one after another in the Fig. 9 pipeline on its own ring
///   (§4.1 lines 74–76) and the chips run at the same time: the block takes the slowest chip's
///   pipeline (`moe_block_time`). Which experts a chip holds is the placement's
///   (`stratum/chip_assignment.hpp`). Shared experts and dense FFNs run with every token and stay
///   split over all chips (their rows in the always-read region of every chip), as the attention
///   projections (§4.2 line 81: heads spread over the chips); each chip's pipeline runs its 1/c of
///   them before its own experts. Each chip's SFE forms the weighted sum of its own experts'
///   outputs as they arrive (§4.1 line 73 step 9, line 76) and the xPU reads each chip's partial
///   T×H and adds the c partials (`moe_input_cost`: the same bytes as `all_chips`).
/// - `all_chips`: every expert split over the c chips and P PUs of each (m = ⌈M / (c·P)⌉), all
///   chips in lockstep on one expert at a time, the xPU adding the chips' partials. The mapping
///   strata used before; kept to compare (the report's stratum.mapping rows).

#include <algorithm>  // std::sort
#include <array>    // std::array (enum names)
#include <cmath>    // std::ceil, std::log2
#include <cstddef>  // std::size_t
#include <string>   // std::string
#include <type_traits>  // std::is_arithmetic_v
#include <utility>  // std::pair (enum names)
#include <vector>   // std::vector

#include "strata/core/cost.hpp"
#include "strata/core/error.hpp"
#include "strata/core/scalar.hpp"
#include "strata/core/tier.hpp"
#include "strata/core/units.hpp"
#include "strata/stratum/energy_parts.hpp"
#include "strata/stratum/nmp.hpp"

namespace strata {
inline namespace v0 {

/// How the experts of a MoE layer are spread over the chips of a stage (file comment).
enum class expert_split { expert_parallel, all_chips };
constexpr auto enum_names(expert_split) {
  return std::array{std::pair{expert_split::expert_parallel, "expert_parallel"},
                    std::pair{expert_split::all_chips, "all_chips"}};
}

/// Knobs of the mapping that are neither hardware nor workload.
template <class T = double>
struct mapping_options {
  /// Experts over the chips. [Stratum §4.1 (spec lines 66–70): tensor parallelism over the PUs
  /// of a chip, which share the chip's ring (§3 lines 43–44): `expert_parallel`. `all_chips`
  /// splits every expert over every chip (file comment)]
  expert_split experts = expert_split::expert_parallel;
  /// SFE operations per activation element. [Design choice: SiLU x·σ(x) from primitives — exp by
  /// range reduction and a degree-4 polynomial (5 FMAs), a reciprocal by two Newton steps
  /// (2 FMAs after a seed) and the product — 8 FMA-lane operations]
  int activation_ops = 8;
  /// SFE operations per attention score (max, subtract, exp, sum: Softmax from primitives).
  /// [Design choice: exp as above (5) plus max, subtract and accumulate: 8]
  int softmax_ops = 8;

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("experts", s.experts);
    v("activation_ops", s.activation_ops);
    v("softmax_ops", s.softmax_ops);
  }
  friend bool operator==(const mapping_options&, const mapping_options&) = default;
};

template <class T>
void validate(const mapping_options<T>& o) {
  if (o.experts != expert_split::expert_parallel && o.experts != expert_split::all_chips) {
    detail::require(false, "strata.mapping", "experts", static_cast<int>(o.experts), "expert_parallel or all_chips");
  }
  detail::require_count(o.activation_ops, 1, 1024, "strata.mapping", "activation_ops");
  detail::require_count(o.softmax_ops, 1, 1024, "strata.mapping", "softmax_ops");
}

/// Where a step's time goes (`stratum_step_result::time_parts`): its critical path split by
/// mechanism. An overlap counts for the stage that bounds it (a GEMM for its weight stream or its
/// tensor cores, whichever is slower; a pipelined pair for the slower stage, shared pro rata
/// among that stage's parts), so the parts sum to the time.
template <class T = double>
struct time_parts {
  strata::duration<T> weight_stream{};  ///< weight reads from the tiers (stream-bound GEMMs)
  strata::duration<T> kv_stream{};      ///< KV-cache reads (stream-bound attention cores)
  strata::duration<T> nmp_compute{};    ///< tensor cores (compute-bound), reduction trees, SFE
  strata::duration<T> ring{};           ///< ring collectives: all-gathers, reduce-scatters, scalar exchanges
  strata::duration<T> interposer{};     ///< NMP inputs written and outputs read by the xPU; NVLink hand-off
  strata::duration<T> xpu_ops{};        ///< xPU operators beyond their launch (compute, reads over the interposer)
  strata::duration<T> fixed{};          ///< launches of xPU operators, NMP invocations (launch, mode switches, poll)

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("weight_stream", s.weight_stream);
    v("kv_stream", s.kv_stream);
    v("nmp_compute", s.nmp_compute);
    v("ring", s.ring);
    v("interposer", s.interposer);
    v("xpu_ops", s.xpu_ops);
    v("fixed", s.fixed);
  }
  [[nodiscard]] strata::duration<T> total() const {
    return weight_stream + kv_stream + nmp_compute + ring + interposer + xpu_ops + fixed;
  }
  time_parts& operator+=(const time_parts& o) {
    weight_stream += o.weight_stream;
    kv_stream += o.kv_stream;
    nmp_compute += o.nmp_compute;
    ring += o.ring;
    interposer += o.interposer;
    xpu_ops += o.xpu_ops;
    fixed += o.fixed;
    return *this;
  }
  time_parts& operator*=(const T& k) {
    weight_stream *= k;
    kv_stream *= k;
    nmp_compute *= k;
    ring *= k;
    interposer *= k;
    xpu_ops *= k;
    fixed *= k;
    return *this;
  }
};

/// One FFN (a routed expert, a shared expert or a dense FFN) as the NMP runs it.
template <class T = double>
struct expert_work {
  T tokens = T(1);             ///< T: tokens routed to it (when it runs)
  int hidden = 0;              ///< H
  int inter = 0;               ///< M
  bool gated = true;           ///< SwiGLU (W1, W2, W3) or GeLU (W1, W3)
  int weight_bits = 16;        ///< bits per weight
  int act_bits = 16;           ///< bits per activation
  T weight = T(1);             ///< expected count: probability it runs (1 for exact routing)
  std::vector<double> shares;  ///< share of its rows in each tier (sums to 1)
  int layer = -1;              ///< for names
  int expert = -1;             ///< for names (−1: shared or dense FFN)
  /// `expert_parallel`: the chip holding its rows; −1: split over all chips of the block.
  int chip = -1;
};

/// Stage times of one expert (per PE/PU, all chips in lockstep) and its energy by part: the
/// numbers only, no names or trees (the step's hot path).
template <class T = double>
struct expert_times {
  strata::duration<T> gemm1{}, gemm2{}, reduce1{}, reduce2{}, activation{}, hadamard{}, gemm3{},
      reduce_scatter{}, weighted_sum{};
  energy_parts<T> energy{};
  strata::data_size<T> weight_bytes{};   ///< all chips
  strata::op_count<T> flops{};           ///< all chips, 2 per MAC
  bool gated = true;
  bool stream_bound = true;              ///< the GEMMs wait on the weight stream (not the tensor cores)

  /// The expert's own time without overlap with its neighbours:
  /// max(GeMM2, reduce(Z1) + activation) + reduce(Z2) + Hadamard + GeMM3 (gated) or
  /// reduce(Z1) + activation + GeMM3.
  [[nodiscard]] strata::duration<T> core() const {
    if (gated) return detail::max_of(gemm2, reduce1 + activation) + reduce2 + hadamard + gemm3;
    return reduce1 + activation + gemm3;
  }
  /// Reduce-scatter and weighted sum: what overlaps the next expert's GeMM1.
  [[nodiscard]] strata::duration<T> tail() const { return reduce_scatter + weighted_sum; }
};

/// Stage costs of one expert, named, for the breakdown tree (`expert_ffn_stages`).
template <class T = double>
struct expert_stages {
  cost<T> gemm1, gemm2, reduce1, reduce2, activation, hadamard, gemm3, reduce_scatter, weighted_sum;
  expert_times<T> times{};
};

namespace detail {
/// `prefix` followed by the number `i` (built by appending: GCC 12's -Wrestrict misfires on
/// `"literal" + std::to_string(i)`).
template <class = void>
inline std::string numbered(const char* prefix, long long i, const char* suffix = "") {
  std::string n = prefix;
  n += std::to_string(i);
  n += suffix;
  return n;
}

/// ⌈a / b⌉ for positive ints.
template <class = void>
inline long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

/// Streaming `bytes` of one bank's shard laid over the tiers with `shares`.
template <class T>
strata::duration<T> shard_stream_time(const nmp_device<T>& d, const strata::data_size<T>& bytes,
                                      const std::vector<double>& shares) {
  strata::duration<T> t{};
  for (std::size_t i = 0; i < shares.size() && i < d.tiers.size(); ++i) {
    if (shares[i] <= 0.0) continue;
    t += stream_time(bytes * T(shares[i]), d.bank_bandwidth(i), d.tiers[i].latency);
  }
  return t;
}

/// DRAM energy parts of reading `bytes` from the arrays to the logic die.
template <class T>
void add_dram_read(energy_parts<T>& e, const dram_access_energy<T>& a, const strata::data_size<T>& bytes) {
  e.dram_activate += bytes * a.activate_precharge;
  e.dram_wordline += bytes * a.wordline_boost;
  e.dram_column += bytes * a.column;
  e.dram_datapath += bytes * a.datapath;
  e.bond += bytes * a.bond;
}

/// Time of `elements` element-wise operations of `ops` each on one PU's SFE.
template <class T>
strata::duration<T> sfe_time(const nmp_device<T>& d, const T& elements, int ops) {
  return strata::duration<T>::from_si(elements * T(double(ops)) / (T(double(d.sfe_lanes)) * d.clock.si()));
}

/// Time of one PU's reduction tree adding its q PEs' partials of `elements` values.
template <class T>
strata::duration<T> reduce_tree_time(const nmp_device<T>& d, const T& elements) {
  if (d.pes_per_pu <= 1) return {};
  int depth = 0;  // ⌈log2 q⌉ levels of adders
  while ((1 << depth) < d.pes_per_pu) ++depth;
  return strata::duration<T>::from_si((T(double(depth)) + elements / T(double(d.reduction_lanes))) / d.clock.si());
}

/// Time of one PE's GEMM slice: the weight stream against the tensor core.
template <class T>
strata::duration<T> pe_gemm_time(const nmp_device<T>& d, const T& macs, const strata::data_size<T>& bytes,
                                 const std::vector<double>& shares) {
  const auto compute = strata::duration<T>::from_si(T(2) * macs / d.pe_peak().si());
  return max_of(shard_stream_time(d, bytes, shares), compute);
}
}  // namespace detail

/// Checks an expert's shape against the device: sizes ≥ 1 and bounded, tokens ≥ 0 and finite,
/// weight in [0, 1], one share per tier summing to 1.
template <class T>
void validate(const expert_work<T>& w, const nmp_device<T>& d) {
  constexpr const char* m = "strata.expert_mapping";
  detail::require_count(w.hidden, 1, 1 << 24, m, "hidden");
  detail::require_count(w.inter, 1, 1 << 24, m, "inter");
  detail::require_count(w.weight_bits, 1, 64, m, "weight_bits");
  detail::require_count(w.act_bits, 1, 64, m, "act_bits");
  detail::require_range(w.tokens, 0.0, 1e9, m, "tokens", "tokens");
  detail::require_range(w.weight, 0.0, 1.0, m, "weight", "");
  if (w.shares.size() != d.tiers.size()) {
    detail::require(false, m, "shares", w.shares.size(),
                    ("one share per tier (" + std::to_string(d.tiers.size()) + ")").c_str());
  }
  double sum = 0.0;
  for (double s : w.shares) {
    detail::require(std::isfinite(s) && s >= 0.0, m, "shares", s, "finite and >= 0");
    sum += s;
  }
  detail::require(std::abs(sum - 1.0) <= 1e-6, m, "shares", sum, "summing to 1");
}

namespace detail {
template <class T>
expert_times<T> expert_ffn_times_unchecked(const nmp_device<T>& d, int chips, const expert_work<T>& w,
                                           const mapping_options<T>& o);
}  // namespace detail

/// The stage times and energy of one expert on `chips` chips of device `d` (file comment), for
/// one run (`w.weight` is applied by the layer functions).
template <class T>
expert_times<T> expert_ffn_times(const nmp_device<T>& d, int chips, const expert_work<T>& w,
                                 const mapping_options<T>& o = {}) {
  validate(w, d);
  detail::require_count(chips, 1, 1 << 16, "strata.expert_mapping", "chips");
  return detail::expert_ffn_times_unchecked(d, chips, w, o);
}

namespace detail {
/// `expert_ffn_times` without the checks: for work lists the library built itself (the step's
/// hot path validates the model and the placement once, not every expert).
template <class T>
expert_times<T> expert_ffn_times_unchecked(const nmp_device<T>& d, int chips, const expert_work<T>& w,
                                           const mapping_options<T>& o) {
  using detail::ceil_div;
  const long long P = d.n_pu, q = d.pes_per_pu;
  const long long m = ceil_div(w.inter, static_cast<long long>(chips) * P);  // columns per PU
  const long long hq = ceil_div(w.hidden, q);                                // rows per PE
  const T tok = w.tokens;
  const T wb = T(w.weight_bits / 8.0), ab = T(w.act_bits / 8.0);
  const T pe_weights = T(double(hq * m));
  const strata::data_size<T> pe_bytes = units::B(pe_weights * wb);
  expert_times<T> s;
  s.gated = w.gated;
  s.gemm1 = detail::pe_gemm_time(d, tok * pe_weights, pe_bytes, w.shares);
  s.stream_bound = !(detail::shard_stream_time(d, pe_bytes, w.shares) <
                     strata::duration<T>::from_si(T(2) * tok * pe_weights / d.pe_peak().si()));
  if (w.gated) s.gemm2 = s.gemm1;
  s.gemm3 = s.gemm1;
  const T zm = tok * T(double(m));
  s.reduce1 = detail::reduce_tree_time(d, zm);
  if (w.gated) s.reduce2 = s.reduce1;
  s.activation = detail::sfe_time(d, zm, o.activation_ops);
  if (w.gated) s.hadamard = detail::sfe_time(d, zm, 1);
  const strata::data_size<T> partial = units::B(tok * T(double(w.hidden)) * ab);
  s.reduce_scatter = ring_reduce_scatter_time(d, partial, d.n_pu);
  s.weighted_sum = detail::sfe_time(d, tok * T(double(ceil_div(w.hidden, P))), 1);

  // Energy over all chips, from exact (not rounded) sizes.
  const T mats = T(w.gated ? 3.0 : 2.0);
  const T weights = mats * T(double(w.hidden)) * T(double(w.inter));
  const T macs = tok * weights;
  s.weight_bytes = units::B(weights * wb);
  s.flops = strata::op_count<T>::from_si(T(2) * macs);
  auto& e = s.energy;
  e.mac = d.e_mac * macs;
  detail::add_dram_read(e, d.access, s.weight_bytes);
  const T pus = T(double(chips * P));
  const T sram_bytes =
      // inputs into the engines once per GeMM on W1 (and W2), per PU
      pus * tok * T(double(w.hidden)) * ab * (mats - T(1)) +
      // psum read-modify-write once per k taps
      T(2) * T(2) * macs / T(double(d.taps)) +
      // Z1, Z2 written; X2 written and read by the q PEs; Z3 partial written
      pus * zm * ab * (T(w.gated ? 3.0 : 2.0) + T(double(q))) + pus * tok * T(double(w.hidden)) * ab;
  e.sram = d.sram_energy * units::B(sram_bytes);
  e.ring = d.ring_energy * ring_link_bytes(partial, d.n_pu) * T(double(chips));
  const T sfe_ops = pus * zm * T(double(o.activation_ops + (w.gated ? 1 : 0))) +
                    tok * T(double(w.hidden)) * T(double(chips));
  e.sfe = d.e_mac * sfe_ops;
  return s;
}
}  // namespace detail

/// The same expert's stages as named cost leaves, each citing its formula.
template <class T>
expert_stages<T> expert_ffn_stages(const nmp_device<T>& d, int chips, const expert_work<T>& w,
                                   const mapping_options<T>& o = {}) {
  expert_stages<T> s;
  s.times = expert_ffn_times(d, chips, w, o);
  const auto& t = s.times;
  std::string n = detail::numbered("L", w.layer);
  n += w.expert >= 0 ? detail::numbered(".E", w.expert) : std::string(".ffn");
  s.gemm1 = cost<T>::leaf(n + " GeMM1", t.gemm1, {}, {}, "max(stream, T·H/q·m / (n·k·f·η)), Stratum §4.1");
  s.gemm2 = cost<T>::leaf(n + " GeMM2", t.gemm2, {}, {}, "as GeMM1 on W2");
  s.gemm3 = cost<T>::leaf(n + " GeMM3", t.gemm3, {}, {}, "max(stream, T·m·H/q / (n·k·f·η))");
  s.reduce1 = cost<T>::leaf(n + " reduce Z1", t.reduce1, {}, {}, "reduction tree: log2 q + T·m / lanes cycles");
  s.reduce2 = cost<T>::leaf(n + " reduce Z2", t.reduce2, {}, {}, "reduction tree");
  s.activation = cost<T>::leaf(n + " activation", t.activation, {}, {}, "SFE: T·m·ops / lanes / f");
  s.hadamard = cost<T>::leaf(n + " Hadamard", t.hadamard, {}, {}, "SFE: T·m / lanes / f");
  s.reduce_scatter = cost<T>::leaf(n + " reduce-scatter", t.reduce_scatter, {}, {}, "ring: h·(D/p / b + hop)");
  s.weighted_sum = cost<T>::leaf(n + " weighted sum", t.weighted_sum, {}, {}, "SFE on arrival");
  return s;
}

/// The Fig. 9 pipeline time of one block over `work` (file comment), without a tree: the
/// step's hot path. Adds the block's energy by part to `energy_out` when given. `checked =
/// false` skips the per-expert checks (work the library built and checked itself).
///
/// `on_chip` ≥ 0 times the pipeline of that one chip under `expert_parallel`: the items with
/// `chip == on_chip` run whole on it (split over its P PUs), the items with `chip < 0` (shared
/// experts, dense FFNs) are split over all `chips` chips and the chip runs its 1/chips of them
/// (its share of their energy); other chips' items are skipped.
template <class T>
strata::duration<T> moe_layer_time(const nmp_device<T>& d, int chips, const std::vector<expert_work<T>>& work,
                                   const mapping_options<T>& o = {}, energy_parts<T>* energy_out = nullptr,
                                   bool checked = true, time_parts<T>* time_out = nullptr, int on_chip = -1) {
  strata::duration<T> t{}, tail{};
  time_parts<T> tail_parts{};
  bool first = true;
  // Neighbouring experts of a usage table often have the same tokens, shape and tier shares (the
  // hot ones, the cold ones of one tier): their stage times are computed once.
  expert_times<T> s{};
  const expert_work<T>* last = nullptr;
  for (const auto& w : work) {
    if (!(value_of(w.weight) > 0.0) || !(value_of(w.tokens) > 0.0)) continue;
    if (on_chip >= 0 && w.chip >= 0 && w.chip != on_chip) continue;  // another chip's expert
    // Chips its rows are split over: all of them, or (expert-parallel) its own chip only.
    const int split = on_chip >= 0 && w.chip >= 0 ? 1 : chips;
    // (Plain scalars only: equal values of an autodiff scalar may carry different derivatives.)
    const bool same = std::is_arithmetic_v<T> && last != nullptr && value_of(last->tokens) == value_of(w.tokens) &&
                      last->hidden == w.hidden &&
                      last->inter == w.inter && last->gated == w.gated && last->weight_bits == w.weight_bits &&
                      last->act_bits == w.act_bits && last->shares == w.shares &&
                      (on_chip < 0 || (last->chip >= 0) == (w.chip >= 0));
    if (!same) s = checked ? expert_ffn_times(d, split, w, o) : detail::expert_ffn_times_unchecked(d, split, w, o);
    last = &w;
    const T k = w.weight;
    // The previous expert's tail (already scaled by its own weight) overlaps this expert's GeMM1
    // scaled by this one's: max(tail_prev, k·GeMM1), as moe_layer_cost's overlap node.
    t += (first ? s.gemm1 * k : detail::max_of(tail, s.gemm1 * k)) + s.core() * k;
    if (time_out != nullptr) {
      // The overlap counts for its slower side; the core for its critical stages.
      const auto gemm = [&](time_parts<T>& tp, const strata::duration<T>& g) {
        (s.stream_bound ? tp.weight_stream : tp.nmp_compute) += g;
      };
      if (first || !(tail > s.gemm1 * k)) {
        gemm(*time_out, s.gemm1 * k);
      } else {
        *time_out += tail_parts;
      }
      time_parts<T> c{};
      if (s.gated) {
        if (s.gemm2 < s.reduce1 + s.activation) {
          c.nmp_compute += s.reduce1 + s.activation;
        } else {
          gemm(c, s.gemm2);
        }
        c.nmp_compute += s.reduce2 + s.hadamard;
      } else {
        c.nmp_compute += s.reduce1 + s.activation;
      }
      gemm(c, s.gemm3);
      c *= k;
      *time_out += c;
      tail_parts = time_parts<T>{};
      tail_parts.ring = s.reduce_scatter * k;
      tail_parts.nmp_compute = s.weighted_sum * k;
    }
    tail = s.tail() * k;
    first = false;
    if (energy_out != nullptr) {
      auto e = s.energy;
      e *= k;
      if (on_chip >= 0 && w.chip < 0) e *= T(1) / T(double(chips));  // this chip's share
      *energy_out += e;
    }
  }
  if (time_out != nullptr && !first) *time_out += tail_parts;
  return t + tail;
}

/// Whether `work` runs expert-parallel under `o`: the mapping asks for it and an item names its
/// chip (a dense layer, or a block of shared experts only, has none and runs as `all_chips`).
template <class T>
bool runs_expert_parallel(const std::vector<expert_work<T>>& work, const mapping_options<T>& o) {
  if (o.experts != expert_split::expert_parallel) return false;
  for (const auto& w : work) {
    if (w.chip >= 0 && value_of(w.weight) > 0.0) return true;
  }
  return false;
}

/// The figures of each expert of one block, as the columns of its node in a breakdown tree:
/// `expert` (id; -1 for shared experts and dense FFNs), `chip` (the chip that runs it under
/// `expert_parallel`; -1 when split over all chips), `tier` (index of the tier holding the largest
/// share of its rows, 0 the fastest), `bytes_B` (weights read), `time_s` (its span in its
/// pipeline: its GeMM1 beyond the previous expert's tail, its core, and for the last one its own
/// tail) and `energy_J`, each times its weight (expected routing). Experts that do not run
/// (weight or tokens 0) are left out. Bytes and energy sum to the block's; time sums to the
/// block's under `all_chips` (one pipeline), while under `expert_parallel` each chip's experts sum
/// to that chip's pipeline (split items counted on each) and the block takes the expected slowest
/// chip (`moe_block_time`). A view beside the computation: `moe_block_time` gives the block's
/// numbers.
template <class T>
std::vector<cost_column> moe_layer_columns(const nmp_device<T>& d, int chips, const std::vector<expert_work<T>>& work,
                                           const mapping_options<T>& o = {}) {
  std::vector<cost_column> cols{{"expert", {}}, {"chip", {}},   {"tier", {}},
                                {"bytes_B", {}}, {"time_s", {}}, {"energy_J", {}}};
  const bool ep = chips > 1 && runs_expert_parallel(work, o);
  // One pipeline per chip under expert_parallel (split items on each), else one for the block.
  const int pipelines = ep ? chips : 1;
  for (int j = 0; j < pipelines; ++j) {
    strata::duration<T> tail{};
    bool first = true;
    std::ptrdiff_t last_row = -1;  // the row of the pipeline's last item, if it has one
    for (const auto& w : work) {
      if (!(value_of(w.weight) > 0.0) || !(value_of(w.tokens) > 0.0)) continue;
      const bool own = ep && w.chip >= 0;
      if (own && w.chip != j) continue;
      const auto s = detail::expert_ffn_times_unchecked(d, own ? 1 : chips, w, o);
      const T k = w.weight;
      const auto t = (first ? s.gemm1 * k : detail::max_of(tail, s.gemm1 * k)) + s.core() * k;
      tail = s.tail() * k;
      first = false;
      if (ep && !own && j > 0) {  // a split item's row once (on chip 0's pass); its time on every chip
        last_row = -1;
        continue;
      }
      std::size_t tier = 0;
      for (std::size_t i = 1; i < w.shares.size(); ++i) {
        if (w.shares[i] > w.shares[tier]) tier = i;
      }
      auto e = s.energy;
      e *= k;
      cols[0].values.push_back(double(w.expert));
      cols[1].values.push_back(own ? double(w.chip) : -1.0);
      cols[2].values.push_back(double(tier));
      cols[3].values.push_back(value_of((s.weight_bytes * k).si()));
      cols[4].values.push_back(value_of(t.si()));
      cols[5].values.push_back(value_of(e.total().si()));
      last_row = static_cast<std::ptrdiff_t>(cols[4].values.size()) - 1;
    }
    if (last_row >= 0) cols[4].values[static_cast<std::size_t>(last_row)] += value_of(tail.si());
  }
  return cols;
}

namespace detail {
/// Expected-routing terms of an expert-parallel block: the chips' expected pipelines P_j, the
/// split items' own pipeline s (the same on every chip) and the expected slowest chip
/// E[max_j (s + K_j·τ_j)] (file comment of `moe_block_time`).
template <class T>
struct expert_parallel_terms {
  std::vector<strata::duration<T>> chip;  ///< P_j
  std::vector<time_parts<T>> parts;       ///< P_j by mechanism
  strata::duration<T> split{};            ///< s
  strata::duration<T> expected_max{};     ///< the block's time
  std::size_t slowest = 0;                ///< argmax_j P_j
};

template <class T>
expert_parallel_terms<T> expert_parallel_block(const nmp_device<T>& d, int chips, const std::vector<expert_work<T>>& work,
                                               const mapping_options<T>& o, energy_parts<T>* energy_out, bool checked,
                                               bool with_parts) {
  expert_parallel_terms<T> r;
  const auto C = static_cast<std::size_t>(chips);
  r.chip.resize(C);
  r.parts.resize(C);
  for (std::size_t j = 0; j < C; ++j) {
    r.chip[j] = moe_layer_time(d, chips, work, o, energy_out, checked, with_parts ? &r.parts[j] : nullptr, static_cast<int>(j));
    if (r.chip[j] > r.chip[r.slowest]) r.slowest = j;
  }
  // The split items alone: a chip index no routed item has.
  r.split = moe_layer_time(d, chips, work, o, static_cast<energy_parts<T>*>(nullptr), checked,
                           static_cast<time_parts<T>*>(nullptr), chips);
  // Per chip: the distribution of K_j, its routed experts that run (independent, each with its
  // probability p: a Poisson binomial), and τ_j = (P_j − s) / E[K_j].
  std::vector<std::vector<T>> pmf(C, std::vector<T>(1, T(1)));
  std::vector<T> mean(C, T(0));
  for (const auto& w : work) {
    if (w.chip < 0 || w.chip >= chips || !(value_of(w.weight) > 0.0) || !(value_of(w.tokens) > 0.0)) continue;
    auto& q = pmf[static_cast<std::size_t>(w.chip)];
    const T p = w.weight;
    q.push_back(T(0));
    for (std::size_t k = q.size() - 1; k > 0; --k) q[k] = q[k] * (T(1) - p) + q[k - 1] * p;
    q[0] = q[0] * (T(1) - p);
    mean[static_cast<std::size_t>(w.chip)] += p;
  }
  // E[max_j K_j·τ_j] = ∫ (1 − Π_j F_j(x)) dx over the steps of the chips' CDFs.
  struct step {
    strata::duration<T> x;
    std::size_t chip;
    std::size_t k;
  };
  std::vector<step> steps;
  std::vector<T> cdf(C, T(1));
  for (std::size_t j = 0; j < C; ++j) {
    if (pmf[j].size() <= 1 || !(value_of(mean[j]) > 0.0)) continue;
    const auto tau = (r.chip[j] - r.split) / mean[j];
    cdf[j] = pmf[j][0];
    for (std::size_t k = 1; k < pmf[j].size(); ++k) steps.push_back({tau * T(double(k)), j, k});
  }
  std::sort(steps.begin(), steps.end(), [](const step& a, const step& b) {
    return value_of(a.x.si()) < value_of(b.x.si()) || (value_of(a.x.si()) == value_of(b.x.si()) && a.chip < b.chip);
  });
  strata::duration<T> at{}, sum{};
  std::vector<T> acc(C, T(0));  // running CDF per chip
  for (std::size_t j = 0; j < C; ++j) acc[j] = cdf[j];
  for (const auto& st : steps) {
    T all = T(1);
    for (const auto& f : acc) all *= f;
    sum += (st.x - at) * (T(1) - all);
    at = st.x;
    acc[st.chip] += pmf[st.chip][st.k];
  }
  r.expected_max = r.split + sum;
  // Never below the slowest chip's expected pipeline (Jensen; guards rounding).
  if (r.expected_max < r.chip[r.slowest]) r.expected_max = r.chip[r.slowest];
  return r;
}
}  // namespace detail

/// The block's time under `o.experts` (file comment): `all_chips`, the one pipeline of
/// `moe_layer_time`; `expert_parallel`, the chips run at the same time, each its own experts on
/// its own ring, and the block ends with the slowest. With expected routing the slowest is an
/// expectation over which experts run: chip j runs the split items (time s, every step) and K_j
/// of its routed experts, K_j a Poisson binomial of their probabilities p (independent), each
/// taking τ_j = (P_j − s) / E[K_j] of its expected pipeline P_j, so
///   t = s + E[max_j K_j·τ_j] = s + Σ_steps Δx · (1 − Π_j P(K_j·τ_j ≤ x))
/// (≥ max_j P_j; = max_j P_j when every p is 1). The composition is the slowest chip's P_j
/// scaled to t; the energy every chip's.
template <class T>
strata::duration<T> moe_block_time(const nmp_device<T>& d, int chips, const std::vector<expert_work<T>>& work,
                                   const mapping_options<T>& o = {}, energy_parts<T>* energy_out = nullptr,
                                   bool checked = true, time_parts<T>* time_out = nullptr) {
  // One chip: both mappings are the one pipeline (the same computation, to the last bit).
  if (chips == 1 || !runs_expert_parallel(work, o)) return moe_layer_time(d, chips, work, o, energy_out, checked, time_out);
  const auto r = detail::expert_parallel_block(d, chips, work, o, energy_out, checked, time_out != nullptr);
  if (time_out != nullptr) {
    auto tp = r.parts[r.slowest];
    if (r.chip[r.slowest].si() > 0.0) tp *= r.expected_max / r.chip[r.slowest];
    *time_out += tp;
  }
  return r.expected_max;
}

/// The Fig. 9 pipeline of one MoE (or dense FFN) block over `work`, in execution order: experts
/// one after another, GeMM2 over the activation, each reduce-scatter (and weighted sum) over the
/// next GeMM1. Experts with weight p < 1 contribute p × their stages (expected routing).
/// `energy_out` (optional) receives the block's energy by part.
/// `on_chip` as in `moe_layer_time`.
template <class T>
cost<T> moe_layer_cost(const nmp_device<T>& d, int chips, const std::vector<expert_work<T>>& work,
                       const mapping_options<T>& o = {}, energy_parts<T>* energy_out = nullptr,
                       std::string name = "experts", int on_chip = -1) {
  validate(o);
  std::vector<cost<T>> parts;
  parts.reserve(work.size() * 2 + 2);
  energy_parts<T> total{};
  cost<T> tail;  // reduce-scatter + weighted sum of the previous expert
  bool have_tail = false;
  const auto scaled = [](cost<T> c, const T& k) {
    c.time *= k;
    c.energy *= k;
    for (auto& t : c.bytes) t.bytes *= k;
    return c;
  };
  for (const auto& w : work) {
    if (!(value_of(w.weight) > 0.0) || !(value_of(w.tokens) > 0.0)) continue;
    if (on_chip >= 0 && w.chip >= 0 && w.chip != on_chip) continue;
    auto s = expert_ffn_stages(d, on_chip >= 0 && w.chip >= 0 ? 1 : chips, w, o);
    const T k = w.weight;
    auto e = s.times.energy;
    e *= k;
    if (on_chip >= 0 && w.chip < 0) e *= T(1) / T(double(chips));
    total += e;
    // The expert's energy and weight bytes ride on its GeMM1 leaf, so the tree sums to the block.
    cost<T> g1 = scaled(s.gemm1, k);
    g1.energy = e.total();
    g1.add_bytes("nmp.weights", s.times.weight_bytes * k);
    if (have_tail) {
      parts.push_back(overlap<T>("overlap: reduce-scatter over next GeMM1", std::vector<cost<T>>{tail, g1}));
    } else {
      parts.push_back(g1);
    }
    if (w.gated) {
      parts.push_back(scaled(overlap<T>("GeMM2 over activation",
                                        std::vector<cost<T>>{s.gemm2, seq<T>("reduce Z1 + activation",
                                                                            std::vector<cost<T>>{s.reduce1, s.activation})}),
                             k));
      parts.push_back(scaled(s.reduce2, k));
      parts.push_back(scaled(s.hadamard, k));
    } else {
      parts.push_back(scaled(s.reduce1, k));
      parts.push_back(scaled(s.activation, k));
    }
    parts.push_back(scaled(s.gemm3, k));
    tail = scaled(seq<T>("reduce-scatter + weighted sum", std::vector<cost<T>>{s.reduce_scatter, s.weighted_sum}), k);
    have_tail = true;
  }
  if (have_tail) parts.push_back(tail);
  if (energy_out != nullptr) *energy_out += total;
  return seq(std::move(name), std::move(parts));
}

/// The block's tree under `o.experts`, the same time as `moe_block_time`: `all_chips`, one
/// pipeline; `expert_parallel`, the chips' pipelines side by side (`overlap`: the slowest sets
/// the time, every chip's energy counts).
template <class T>
cost<T> moe_block_cost(const nmp_device<T>& d, int chips, const std::vector<expert_work<T>>& work,
                       const mapping_options<T>& o = {}, energy_parts<T>* energy_out = nullptr,
                       const std::string& name = "experts") {
  if (chips == 1 || !runs_expert_parallel(work, o)) return moe_layer_cost(d, chips, work, o, energy_out, name);
  std::vector<cost<T>> per_chip;
  per_chip.reserve(static_cast<std::size_t>(chips));
  for (int j = 0; j < chips; ++j) {
    per_chip.push_back(moe_layer_cost(d, chips, work, o, energy_out, detail::numbered("chip ", j), j));
  }
  const auto r = detail::expert_parallel_block(d, chips, work, o, static_cast<energy_parts<T>*>(nullptr), true, false);
  auto side = overlap(name + " (expert-parallel: chips side by side, expected pipelines)", std::move(per_chip));
  // (The trees' P_j and the pipelines' agree to rounding: a difference below zero is none.)
  const auto extra = r.expected_max - side.time;
  auto wait = cost<T>::leaf("wait for the slowest chip", extra.si() > 0.0 ? extra : strata::duration<T>{}, {}, {},
                            "s + E[max_j K_j tau_j] - max_j P_j: which experts run decides the slowest chip");
  return seq<T>(name + " (expert-parallel)", std::vector<cost<T>>{std::move(side), std::move(wait)});
}

/// The input of a block on the NMP: the xPU writes the layer's token batch (`tokens` × H
/// activations, plus expert ids and gate weights, `extra_bytes`) over each chip's PHY, sliced
/// across its channels, and a ring all-gather rebuilds it in every PU (Fig. 9); the outputs come
/// back the same way: each chip's partial `tokens` × H read by the xPU. Under either mapping a
/// chip's partial is `tokens` × H: `all_chips`, its column share of every expert's output;
/// `expert_parallel`, the weighted sum of its own experts' outputs (zero rows for tokens none of
/// them took: the xPU reads the chip's whole output space). Every chip gets the whole batch with
/// the expert ids, and its PUs keep the tokens of their experts (§4.1 line 71, step 1). Energy: PHY bytes ×
/// E_phy, ring bytes × E_ring, and the reserved rows written and read back (DRAM parts).
template <class T>
cost<T> moe_input_cost(const nmp_device<T>& d, int chips, const T& tokens, int hidden, int act_bits,
                       const strata::data_size<T>& extra_bytes, energy_parts<T>* energy_out = nullptr,
                       bool with_tree = true, time_parts<T>* time_out = nullptr) {
  const strata::data_size<T> x = units::B(tokens * T(double(hidden)) * T(act_bits / 8.0)) + extra_bytes;
  const auto in_t = stream_time(x, d.phy_bandwidth, d.phy_latency);
  const auto gather_t = ring_all_gather_time(d, x, d.n_pu);
  const auto out_t = stream_time(x - extra_bytes, d.phy_bandwidth, d.phy_latency);
  energy_parts<T> e{};
  const T c = T(double(chips));
  e.phy = d.phy_energy * (x + x - extra_bytes) * c;
  e.ring = d.ring_energy * ring_link_bytes(x, d.n_pu) * c;
  detail::add_dram_read(e, d.access, (x + x - extra_bytes) * c);  // reserved rows: written, read
  if (energy_out != nullptr) *energy_out += e;
  if (time_out != nullptr) {
    time_out->interposer += in_t + out_t;
    time_out->ring += gather_t;
  }
  if (!with_tree) {
    return cost<T>::leaf("NMP input/output", in_t + gather_t + out_t, e.total(), {{"interposer", (x + x - extra_bytes) * c}},
                         "PHY latency + bytes / PHY bandwidth; ring all-gather");
  }
  auto w = cost<T>::leaf("write inputs (xPU → chips)", in_t, e.phy * T(0.5) + e.dram() * T(0.5),
                         {{"interposer", x * c}}, "PHY latency + bytes / PHY bandwidth");
  auto g = cost<T>::leaf("all-gather inputs", gather_t, e.ring + e.bond * T(0.5), {}, "ring: h·(D/p / b + hop)");
  auto r = cost<T>::leaf("read outputs (chips → xPU)", out_t, e.phy * T(0.5) + e.dram() * T(0.5) + e.bond * T(0.5),
                         {{"interposer", (x - extra_bytes) * c}}, "PHY latency + bytes / PHY bandwidth");
  return seq<T>("NMP input/output", std::vector<cost<T>>{w, g, r});
}

}  // namespace v0
}  // namespace strata
