// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Stratum's expert weight placement, Algorithm 1 (Stratum §5.2, Fig. 11), on any tiered memory
/// of the shared tier vocabulary, with the row plan of the four data classes and the per-tier
/// traffic a placement gives.
///
/// Data classes (§5.2). Hot expert weights go to the fast tiers, cold ones to the slow tiers,
/// the KV cache (it grows during generation) to the middle tiers, and non-NMP data (embeddings,
/// norms: read by the xPU through the interposer anyway) to the slowest tier.
///
/// Algorithm 1, exactly. Inputs: L layers, E experts per layer, A active experts per token, the
/// usage frequencies f_le, the expert size S_w, N_bank banks, the row buffer S_rb and Φ, the rows
/// reserved for NMP data. Then
///   Δ = ⌈S_w / (N_bank·S_rb)⌉                    rows per expert in every bank (rounded up:
///                                                 `stratum/tiering.hpp`)
///   K = L·A                                       fast experts
///   sort f descending: f_(1) ≥ … ≥ f_(L·E)        ties: lower layer first, then lower expert id
///   i ≤ K:  start_i = (i − 1)·Δ                   packed from row 0 (fastest)
///   i > K:  start_i = Φ − (L·E − i + 1)·Δ         packed against Φ (slowest end)
///   end_i = start_i + Δ − 1                       one inclusive interval per (layer, expert)
/// The tie-break makes the result deterministic (among equal f, (layer, expert) order). The fast
/// pack ends at K·Δ − 1 and the slow pack starts at Φ − (L·E − K)·Δ, so the
/// intervals never overlap and stay in [0, Φ) exactly when L·E·Δ ≤ Φ; otherwise the layout is
/// infeasible (a result, with the bytes and rows in `reason`) and holds no intervals.
/// Shared experts (always active, hot by §5.2) are not among Algorithm 1's L·E routed experts;
/// when they have the routed experts' size they can be placed by it as extra columns with f = 1,
/// counted in E and A.
///
/// Row plan. Non-NMP data takes the top rows of the slowest tier, so by default
///   Φ = rows of all tiers − ⌈non-NMP bytes / (N_bank·S_rb)⌉,
/// and the KV cache lives in the gap Algorithm 1 leaves between the fast and the slow pack,
/// [K·Δ, Φ − (L·E − K)·Δ), which must hold ⌈KV bytes / (N_bank·S_rb)⌉ rows (`plan_rows`).
///
/// Traffic. Every expert has the same size, so the bytes a token reads from an expert are
/// proportional to f_le; an expert's rows may straddle a tier boundary, and its bytes are split
/// by rows. `tier_traffic_share` is the share of expert bytes served by each tier,
/// `hot_hit_rate` the share of expert accesses that go to the K experts packed from row 0.
///
/// \code
/// const strata::mono3d_params<> chip;
/// auto tiers = strata::memory_tiers(chip, strata::evaluate(chip));
/// auto table = strata::make_tiering_table(tiers, chip.banks, chip.bank_access_bytes);
/// strata::expert_placement_params<> p;          // OLMoE-1B-7B on one Stratum chip
/// auto f = strata::usage_from_hit_rate(16, 64, 8, 0.485);   // stratum/usage.hpp
/// auto layout = strata::place_experts(p, f);   // 1024 intervals of 12 rows
/// auto share = strata::tier_traffic_share(layout, table, f);   // share[0] = 0.485
/// \endcode

#include <algorithm>  // std::sort
#include <cmath>      // std::isfinite
#include <cstddef>    // std::size_t
#include <string>     // std::string, std::to_string
#include <utility>    // std::pair
#include <vector>     // std::vector

#include "strata/core/error.hpp"
#include "strata/core/limits.hpp"
#include "strata/core/scalar.hpp"
#include "strata/core/units.hpp"
#include "strata/stratum/tiering.hpp"
#include "strata/tech/bounds.hpp"

namespace strata {
inline namespace v0 {

/// Usage frequencies f[layer][expert]: the per-token probability that the expert is chosen, so
/// Σ_e f[l][e] = A for a top-A router (`stratum/usage.hpp` builds them).
using usage_table = std::vector<std::vector<double>>;

/// Inputs of Algorithm 1 besides the usage table. Defaults: OLMoE-1B-7B (the
/// `preset("OLMoE-1B-7B-0924")` shape) on one Stratum chip (Stratum-S, §7).
template <class T = double>
struct expert_placement_params {
  /// L, MoE layers. [OLMoE-1B-7B config.json: 16 layers, all MoE]
  int layers = 16;
  /// E, routed experts per layer. [OLMoE-1B-7B config.json: 64]
  int experts = 64;
  /// A, active experts per token. [OLMoE-1B-7B config.json: top-8]
  int active = 8;
  /// S_w, bytes of one expert. [OLMoE-1B-7B: SwiGLU 3 · 2048 · 1024 FP16 weights = 12 MiB]
  strata::data_size<T> expert_bytes = units::MiB(12.0);
  /// N_bank, banks every expert is sharded over. [Stratum §6.1: 256 banks per chip]
  int banks = 256;
  /// S_rb, row buffer per bank. [`mono3d_params::bank_access_bytes`: one 4 KiB page per access]
  strata::data_size<T> row_buffer = units::KiB(4.0);
  /// Φ, rows per bank reserved for NMP data. [Stratum §6.1: a 1 Gib (128 MiB) bank of 4 KiB
  /// rows = 32 768 rows, all of the chip; `plan_rows` gives the default with non-NMP data out]
  long long phi = 32768;

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("layers", s.layers);
    v("experts", s.experts);
    v("active", s.active);
    v("expert_bytes", s.expert_bytes);
    v("banks", s.banks);
    v("row_buffer", s.row_buffer);
    v("phi", s.phi);
  }
  friend bool operator==(const expert_placement_params&, const expert_placement_params&) = default;
};

namespace detail {
/// Most experts (L·E) one layout holds: 2^20. [Design choice: 70 × DeepSeek-V3's 58 × 256 = 14 848;
/// bounds Algorithm 1's sort and the layout at ~30 MiB]
inline constexpr long long max_layout_experts = 1LL << 20;
}  // namespace detail

/// Checks the parameters; throws `config_error` naming the field: layers [1, limits().layers];
/// experts [1, limits().experts]; active [1, experts]; layers·experts ≤ 2^20;
/// expert_bytes (0, 1e15] B; banks [1, limits().banks]; row_buffer [1 B, 1 GiB];
/// phi [1, 2^40] rows.
template <class T>
void validate(const expert_placement_params<T>& p) {
  constexpr const char* m = "strata.placement";
  detail::require_count(p.layers, 1, limits().layers, m, "layers");
  detail::require_count(p.experts, 1, limits().experts, m, "experts");
  detail::require_count(p.active, 1, p.experts, m, "active");
  detail::require(static_cast<long long>(p.layers) * p.experts <= detail::max_layout_experts, m, "layers * experts",
                  static_cast<long long>(p.layers) * p.experts, "at most 2^20 experts");
  detail::require_positive(p.expert_bytes.si(), m, "expert_bytes", "B");
  detail::require_range(p.expert_bytes.si(), 0.0, 1e15, m, "expert_bytes", "B");
  detail::validate_row_space(p.banks, p.row_buffer, m);
  detail::require_count(p.phi, 1, detail::max_rows_per_bank, m, "phi");
}

/// Checks that `f` is an L × E table of probabilities; throws `config_error` naming
/// `f`, `f[l]` or `f[l][e]`.
template <class = void>
inline void validate_usage(const usage_table& f, int layers, int experts) {
  constexpr const char* m = "strata.placement";
  // Messages are built only for a failure: a decode step checks its routing table every time.
  if (f.size() != static_cast<std::size_t>(layers)) {
    detail::require(false, m, "f", f.size(), (std::to_string(layers) + " layers").c_str());
  }
  for (std::size_t l = 0; l < f.size(); ++l) {
    if (f[l].size() != static_cast<std::size_t>(experts)) {
      detail::require(false, m, "f[" + std::to_string(l) + "]", f[l].size(), (std::to_string(experts) + " experts").c_str());
    }
    for (std::size_t e = 0; e < f[l].size(); ++e) {
      const double x = f[l][e];
      if (!(std::isfinite(x) && x >= 0.0 && x <= 1.0)) {
        detail::require(false, m, "f[" + std::to_string(l) + "][" + std::to_string(e) + "]", x,
                        "a probability in [0, 1]");
      }
    }
  }
}

/// The output of Algorithm 1: one inclusive row interval per (layer, expert).
struct expert_layout {
  int layers = 0;            ///< L
  int experts = 0;           ///< E
  int active = 0;            ///< A
  long long delta = 0;       ///< Δ, rows per expert per bank
  long long phi = 0;         ///< Φ
  long long fast = 0;        ///< K = L·A
  std::vector<int> order;    ///< sorted position i − 1 → expert index l·E + e
  std::vector<int> rank;     ///< expert index → sorted position (0-based)
  std::vector<row_interval> intervals;  ///< by expert index l·E + e; empty when infeasible
  bool feasible = true;
  std::string reason;        ///< why not, when not feasible

  /// Index l·E + e of an expert.
  template <class = void>
  [[nodiscard]] int index(int layer, int expert) const {
    if (layer < 0 || layer >= layers) {
      detail::require(false, "strata.placement", "layer", layer, ("in [0, " + std::to_string(layers) + ")").c_str());
    }
    if (expert < 0 || expert >= experts) {
      detail::require(false, "strata.placement", "expert", expert,
                      ("in [0, " + std::to_string(experts) + ")").c_str());
    }
    return layer * experts + expert;
  }
  /// The rows of expert (layer, expert); throws `config_error` ("layout") if infeasible.
  template <class = void>
  [[nodiscard]] const row_interval& interval(int layer, int expert) const {
    const int i = index(layer, expert);
    if (!feasible) throw config_error("layout", "[strata.placement] infeasible layout has no intervals: " + reason);
    return intervals[static_cast<std::size_t>(i)];
  }
  /// Whether the expert is one of the K packed from row 0.
  template <class = void>
  [[nodiscard]] bool is_fast(int layer, int expert) const {
    return rank[static_cast<std::size_t>(index(layer, expert))] < fast;
  }
  /// Rows the experts take per bank, L·E·Δ.
  template <class = void>
  [[nodiscard]] long long expert_rows() const { return static_cast<long long>(layers) * experts * delta; }
  /// The free gap between the fast and the slow pack, [K·Δ, Φ − (L·E − K)·Δ − 1]: the KV region.
  template <class = void>
  [[nodiscard]] row_interval gap() const {
    return {fast * delta, phi - (static_cast<long long>(layers) * experts - fast) * delta - 1};
  }

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("layers", s.layers);
    v("experts", s.experts);
    v("active", s.active);
    v("delta", s.delta);
    v("phi", s.phi);
    v("fast", s.fast);
    v("order", s.order);
    v("rank", s.rank);
    v("intervals", s.intervals);
    v("feasible", s.feasible);
    v("reason", s.reason);
  }
  friend bool operator==(const expert_layout&, const expert_layout&) = default;
};

namespace detail {
/// Algorithm 1 on parameters and a table already checked (`place_experts`, `place_expert_group`).
template <class T>
expert_layout place_experts_checked(const expert_placement_params<T>& p, const usage_table& f) {
  expert_layout out;
  out.layers = p.layers;
  out.experts = p.experts;
  out.active = p.active;
  out.phi = p.phi;
  out.fast = static_cast<long long>(p.layers) * p.active;
  const int n = p.layers * p.experts;
  // Δ ≤ 1e15 B / 1 B: far inside 64 bits; L·E·Δ ≤ 2^22 · 1e15 is not, so compare in double.
  out.delta = rows_per_expert(p.expert_bytes, p.banks, p.row_buffer);
  // Descending f, then ascending index l·E + e: the tie-break of the file comment (the keys are
  // distinct, so the order is total and any sort gives the same result).
  std::vector<std::pair<double, int>> keys;
  keys.reserve(static_cast<std::size_t>(n));
  for (int l = 0; l < p.layers; ++l) {
    for (int e = 0; e < p.experts; ++e) {
      keys.emplace_back(f[static_cast<std::size_t>(l)][static_cast<std::size_t>(e)], l * p.experts + e);
    }
  }
  std::sort(keys.begin(), keys.end(), [](const std::pair<double, int>& a, const std::pair<double, int>& b) {
    return a.first > b.first || (a.first == b.first && a.second < b.second);
  });
  out.order.resize(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < keys.size(); ++i) out.order[i] = keys[i].second;
  out.rank.resize(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) out.rank[static_cast<std::size_t>(out.order[static_cast<std::size_t>(i)])] = i;

  const double need = static_cast<double>(n) * static_cast<double>(out.delta);
  if (need > static_cast<double>(p.phi)) {
    out.feasible = false;
    const double row_bytes = static_cast<double>(p.banks) * value_of(p.row_buffer.si());
    out.reason = "experts do not fit: L*E*S_w = " + std::to_string(n) + " x " +
                 detail::to_text(value_of(p.expert_bytes.si())) + " B = " +
                 detail::to_text(static_cast<double>(n) * value_of(p.expert_bytes.si())) + " B need L*E*delta = " +
                 detail::to_text(need) + " rows per bank (delta = " + std::to_string(out.delta) +
                 "), but phi = " + std::to_string(p.phi) + " rows (" +
                 detail::to_text(static_cast<double>(p.phi) * row_bytes) + " B over " + std::to_string(p.banks) +
                 " banks)";
    return out;
  }
  out.intervals.resize(static_cast<std::size_t>(n));
  for (long long i = 1; i <= n; ++i) {
    const long long start = i <= out.fast ? (i - 1) * out.delta : p.phi - (n - i + 1) * out.delta;
    out.intervals[static_cast<std::size_t>(out.order[static_cast<std::size_t>(i - 1)])] = {start,
                                                                                           start + out.delta - 1};
  }
  return out;
}
}  // namespace detail

/// Algorithm 1 (Stratum §5.2) on usage table `f` (L × E probabilities). Throws `config_error` on
/// bad parameters or a malformed table; experts that do not fit in Φ are an infeasible result.
template <class T>
expert_layout place_experts(const expert_placement_params<T>& p, const usage_table& f);

/// Algorithm 1 on one group of `f[0].size()` experts (one chip's experts of every layer under
/// expert-parallel mapping, `chip_assignment.hpp`) with a fast pack of `p.active`: the group may
/// exceed `limits().experts` (an input limit of one layer), never 2^20. `p.layers` and `p.experts`
/// are set from `f`. Throws `config_error` naming the field.
template <class T>
expert_layout place_expert_group(expert_placement_params<T> p, const usage_table& f) {
  constexpr const char* m = "strata.placement";
  detail::require(f.size() == 1, m, "f", f.size(), "one row (the group)");
  const long long n = static_cast<long long>(f[0].size());
  detail::require(n >= 1 && n <= detail::max_layout_experts, m, "experts", n, "in [1, 2^20] (one layout's experts)");
  detail::require(p.active >= 1 && p.active <= n, m, "active", p.active, "in [1, the group's experts]");
  auto q = p;  // the other fields checked with a one-expert shape
  q.layers = q.experts = q.active = 1;
  validate(q);
  p.layers = 1;
  p.experts = static_cast<int>(n);
  validate_usage(f, 1, p.experts);
  return detail::place_experts_checked(p, f);
}

template <class T>
expert_layout place_experts(const expert_placement_params<T>& p, const usage_table& f) {
  validate(p);
  validate_usage(f, p.layers, p.experts);
  return detail::place_experts_checked(p, f);
}


/// Where the four data classes go (see the file comment); `feasible` is the capacity verdict.
struct row_plan {
  long long rows = 0;          ///< rows per bank of all tiers
  long long phi = 0;           ///< Φ = rows − non-NMP rows: pass it to Algorithm 1
  long long delta = 0;         ///< Δ
  long long expert_rows = 0;   ///< L·E·Δ
  long long kv_rows = 0;       ///< rows the KV cache needs
  long long non_nmp_rows = 0;  ///< rows the non-NMP data needs
  row_interval fast_pack;      ///< rows of the K hot experts, [0, K·Δ − 1]
  row_interval kv_region;      ///< the gap between the packs, where the KV cache lives
  row_interval slow_pack;      ///< rows of the cold experts, [Φ − (L·E − K)·Δ, Φ − 1]
  row_interval non_nmp_region; ///< top of the slowest tier, [Φ, rows − 1]
  int kv_first_tier = -1;      ///< tier of the KV region's first row (−1 if the region is empty)
  int kv_last_tier = -1;       ///< tier of its last row
  int non_nmp_first_tier = -1; ///< tier of the non-NMP region's first row (−1 if empty)
  bool feasible = true;
  std::string reason;          ///< the data class that does not fit, with its rows

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("rows", s.rows);
    v("phi", s.phi);
    v("delta", s.delta);
    v("expert_rows", s.expert_rows);
    v("kv_rows", s.kv_rows);
    v("non_nmp_rows", s.non_nmp_rows);
    v("fast_pack", s.fast_pack);
    v("kv_region", s.kv_region);
    v("slow_pack", s.slow_pack);
    v("non_nmp_region", s.non_nmp_region);
    v("kv_first_tier", s.kv_first_tier);
    v("kv_last_tier", s.kv_last_tier);
    v("non_nmp_first_tier", s.non_nmp_first_tier);
    v("feasible", s.feasible);
    v("reason", s.reason);
  }
  friend bool operator==(const row_plan&, const row_plan&) = default;
};

/// `plan_rows` for `n` experts of which `k` form the fast pack, in any grouping (one chip's
/// experts of every layer under expert-parallel mapping); `p.layers`, `p.experts` and `p.active`
/// are not read. Throws `config_error` naming the field for 1 ≤ k ≤ n ≤ 2^20 or the rest of `p`.
template <class T>
row_plan plan_rows_of(const tiering_table& table, expert_placement_params<T> p, long long n, long long k,
                      const data_size<T>& kv_bytes, const data_size<T>& non_nmp_bytes) {
  constexpr const char* m = "strata.placement";
  p.phi = detail::max_of(table.rows, 1LL);
  p.layers = p.experts = p.active = 1;
  validate(p);
  detail::require(n >= 1 && n <= detail::max_layout_experts, m, "experts", n, "in [1, 2^20] (one layout's experts)");
  detail::require(k >= 1 && k <= n, m, "active", k, ("in [1, " + std::to_string(n) + "] (the fast pack)").c_str());
  detail::require(p.banks == table.banks, m, "banks", p.banks, ("the table's " + std::to_string(table.banks)).c_str());
  detail::require(value_of(p.row_buffer.si()) == table.row_buffer.si(), m, "row_buffer", value_of(p.row_buffer.si()),
                  ("the table's " + detail::to_text(table.row_buffer.si()) + " B").c_str());
  detail::require_range(kv_bytes.si(), 0.0, 1e18, m, "kv_bytes", "B");
  detail::require_range(non_nmp_bytes.si(), 0.0, 1e18, m, "non_nmp_bytes", "B");
  const double rb = table.row_bytes();
  row_plan r;
  r.rows = table.rows;
  r.delta = rows_per_expert(p.expert_bytes, p.banks, p.row_buffer);
  r.kv_rows = detail::ceil_rows(value_of(kv_bytes.si()) / rb);
  r.non_nmp_rows = detail::ceil_rows(value_of(non_nmp_bytes.si()) / rb);
  if (static_cast<double>(n) * static_cast<double>(r.delta) > static_cast<double>(detail::max_rows_per_bank)) {
    r.feasible = false;
    r.reason = "experts need more than 2^40 rows per bank";
    return r;
  }
  r.expert_rows = n * r.delta;
  if (r.non_nmp_rows > r.rows) {
    r.feasible = false;
    r.reason = "non-NMP data needs " + std::to_string(r.non_nmp_rows) + " rows per bank, the tiers hold " +
               std::to_string(r.rows);
    return r;
  }
  r.phi = r.rows - r.non_nmp_rows;
  r.non_nmp_region = {r.phi, r.rows - 1};
  if (r.non_nmp_rows > 0) r.non_nmp_first_tier = table.tier_of(r.phi);
  if (r.expert_rows > r.phi) {
    r.feasible = false;
    r.reason = "experts need " + std::to_string(n) + " x delta = " + std::to_string(r.expert_rows) + " rows per bank, phi = " +
               std::to_string(r.phi) + " rows (tiers minus non-NMP data)";
    return r;
  }
  r.fast_pack = {0, k * r.delta - 1};
  r.slow_pack = {r.phi - (n - k) * r.delta, r.phi - 1};
  r.kv_region = {k * r.delta, r.phi - (n - k) * r.delta - 1};
  if (r.kv_region.rows() > 0) {
    r.kv_first_tier = table.tier_of(r.kv_region.first);
    r.kv_last_tier = table.tier_of(r.kv_region.last);
  }
  if (r.kv_rows > r.kv_region.rows()) {
    r.feasible = false;
    r.reason = "KV cache needs " + std::to_string(r.kv_rows) + " rows per bank, the gap between the expert packs holds " +
               std::to_string(r.kv_region.rows());
  }
  return r;
}

/// The row plan of `table` for the experts of `p` (its `phi` is ignored: the plan computes Φ), a
/// KV cache of `kv_bytes` and `non_nmp_bytes` of xPU data. `p.banks` and `p.row_buffer` must be
/// the table's (`config_error` otherwise).
template <class T>
row_plan plan_rows(const tiering_table& table, expert_placement_params<T> p, const data_size<T>& kv_bytes,
                   const data_size<T>& non_nmp_bytes) {
  p.phi = detail::max_of(table.rows, 1LL);
  validate(p);
  return plan_rows_of(table, p, static_cast<long long>(p.layers) * p.experts, static_cast<long long>(p.layers) * p.active,
                      kv_bytes, non_nmp_bytes);
}


/// The share of one expert's rows in each tier, and the fastest and slowest tier it touches
/// (each row is read at its own tier's tRCD; the slowest bounds the expert's stream).
struct expert_tier_share {
  std::vector<double> share;  ///< per tier, Σ = 1
  int fastest_tier = 0;       ///< lowest tier index holding one of its rows
  int slowest_tier = 0;       ///< highest tier index holding one of its rows

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("share", s.share);
    v("fastest_tier", s.fastest_tier);
    v("slowest_tier", s.slowest_tier);
  }
  friend bool operator==(const expert_tier_share&, const expert_tier_share&) = default;
};

namespace detail {

/// Checks that a feasible layout lies inside the table's rows.
template <class = void>
inline void require_layout_in(const expert_layout& a, const tiering_table& t, const char* what = "layout") {
  if (!a.feasible) {
    throw config_error(what, std::string("[strata.placement] ") + what + " is infeasible: " + a.reason);
  }
  require(a.phi <= t.rows, "strata.placement", std::string(what) + ".phi", a.phi,
          ("at most the table's " + std::to_string(t.rows) + " rows").c_str());
}

/// Adds the rows of `iv` per tier, scaled by `w`, to `acc`.
template <class = void>
inline void add_tier_rows(const row_interval& iv, const tiering_table& t, double w, std::vector<double>& acc) {
  for (int i = t.tier_of(iv.first); i < t.tiers(); ++i) {
    const long long lo = detail::max_of(iv.first, t.first_row[static_cast<std::size_t>(i)]);
    const long long hi = detail::min_of(iv.last, t.end_row(i) - 1);
    if (lo > iv.last) break;
    if (hi >= lo) acc[static_cast<std::size_t>(i)] += w * static_cast<double>(hi - lo + 1);
  }
}

}  // namespace detail

/// Share of expert (layer, expert)'s rows in each tier of `table`.
template <class = void>
inline expert_tier_share expert_tier_shares(const expert_layout& a, const tiering_table& table, int layer,
                                            int expert) {
  detail::require_layout_in(a, table);
  const row_interval& iv = a.interval(layer, expert);
  expert_tier_share s;
  s.share.assign(static_cast<std::size_t>(table.tiers()), 0.0);
  detail::add_tier_rows(iv, table, 1.0 / static_cast<double>(iv.rows()), s.share);
  s.fastest_tier = table.tier_of(iv.first);
  s.slowest_tier = table.tier_of(iv.last);
  return s;
}

/// Share of expert bytes read from each tier for usage table `f` (Σ = 1; all zero if f is all
/// zero): expert (l, e) is read with weight f[l][e], its bytes split over tiers by its rows.
template <class = void>
inline std::vector<double> tier_traffic_share(const expert_layout& a, const tiering_table& table,
                                              const usage_table& f) {
  detail::require_layout_in(a, table);
  validate_usage(f, a.layers, a.experts);
  std::vector<double> s(static_cast<std::size_t>(table.tiers()), 0.0);
  double total = 0.0;
  const double per_row = 1.0 / static_cast<double>(a.delta);
  for (int l = 0; l < a.layers; ++l) {
    for (int e = 0; e < a.experts; ++e) {
      const double w = f[static_cast<std::size_t>(l)][static_cast<std::size_t>(e)];
      if (w == 0.0) continue;
      total += w;
      const std::size_t x = static_cast<std::size_t>(l) * static_cast<std::size_t>(a.experts) +
                            static_cast<std::size_t>(e);
      detail::add_tier_rows(a.intervals[x], table, w * per_row, s);
    }
  }
  if (total > 0.0) {
    for (double& x : s) x /= total;
  }
  return s;
}

/// Share of expert accesses under `f` that go to the K = L·A experts packed from row 0
/// (0 if f is all zero). Needs only the order, so it is defined for infeasible layouts too.
template <class = void>
inline double hot_hit_rate(const expert_layout& a, const usage_table& f) {
  validate_usage(f, a.layers, a.experts);
  double hot = 0.0, total = 0.0;
  for (int l = 0; l < a.layers; ++l) {
    for (int e = 0; e < a.experts; ++e) {
      const double w = f[static_cast<std::size_t>(l)][static_cast<std::size_t>(e)];
      total += w;
      const std::size_t x = static_cast<std::size_t>(l) * static_cast<std::size_t>(a.experts) +
                            static_cast<std::size_t>(e);
      if (a.rank[x] < a.fast) hot += w;
    }
  }
  return total > 0.0 ? hot / total : 0.0;
}

}  // namespace v0
}  // namespace strata
