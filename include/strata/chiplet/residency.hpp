// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Residency state of HCRMap (§4.3, §6.8): expert replicas with their placement φ(r), the
/// versioned expert-to-replica directory, chunked pending copies, the constraints of Eq. 1–4 and
/// 21–24 as validators, and the metadata footprint of §7.5 computed from the data structures.
///
/// Versioned directory (§6.8). A promotion or demotion never overwrites the old replica: the
/// copy lands chunk by chunk in a pending entry; only when every chunk has landed is the entry
/// published with a new directory version and becomes a legal target of the token mapper. An
/// entry being retired stays until the groups already mapped to it have finished (in-flight
/// count zero), then it is removed.

#include <algorithm>  // std::min, std::max, std::find
#include <array>      // std::array
#include <cmath>      // std::ceil
#include <cstddef>    // std::size_t
#include <cstdint>    // std::uint16_t, std::uint32_t, std::uint8_t
#include <optional>   // std::optional
#include <string>     // std::string
#include <utility>    // std::pair
#include <vector>     // std::vector

#include "strata/chiplet/critical_path.hpp"
#include "strata/chiplet/substrate.hpp"
#include "strata/core/error.hpp"
#include "strata/workload/model.hpp"

namespace strata {
inline namespace v0 {

/// State of a directory entry.
enum class replica_state : std::uint8_t {
  pending,    ///< copy in progress, not a legal target
  published,  ///< legal target of the token mapper
  retiring    ///< no new groups; removed when in-flight groups finish
};

/// One directory entry D(l, e) ∋ (r, φ(r), ν_r) as stored on chip: 32 bytes, within the 64 B per
/// replica of §7.5.
struct directory_entry {
  std::uint16_t layer = 0;         ///< ℓ(r)
  std::uint16_t expert = 0;        ///< e(r)
  std::uint16_t chiplet = 0;       ///< c_r
  std::uint16_t bank = 0;          ///< first bank of the span
  std::uint16_t span = 1;          ///< banks striped over
  std::uint8_t tier = 0;           ///< tier_kind
  replica_state state = replica_state::published;
  std::uint32_t version = 0;       ///< ν_r: directory version that published it
  std::uint32_t chunks_done = 0;   ///< landed chunks of a pending copy
  std::uint32_t chunks_total = 0;  ///< chunks of the copy
  std::uint32_t in_flight = 0;     ///< groups mapped to it and not finished
  std::uint32_t age = 0;           ///< windows since publication (Age_w, §6.6)
  float demand = 0.0f;             ///< smoothed demand d̄ routed to it (EWMA, §6.2)
};
static_assert(sizeof(directory_entry) <= 64, "HCRMap §7.5: at most 64 B per replica entry");

/// A location φ = (t, c, bank span) for a replica: what `residency::nearest_room` finds, and a
/// candidate of Ω in HCRMap's placement (`hcrmap/placement.hpp`).
struct place_candidate {
  tier_kind tier = tier_kind::dram;
  int chiplet = 0;  ///< execution chiplet c
  int bank = 0;     ///< first bank of the span
  int span = 1;     ///< banks striped over
  friend bool operator==(const place_candidate&, const place_candidate&) = default;
};

/// Where the KV cache of a window goes (`chiplet/capacity.hpp`'s placement rule): a residency
/// choice, since KV bytes in HBM are bytes warm experts cannot hold there.
enum class kv_placement {
  hbm_first,   ///< HBM, else DRAM (the default: KV is read every decode step)
  dram,        ///< DRAM, else HBM (HBM left to the experts)
  by_pressure  ///< the tier left with the lower capacity pressure (used / capacity) after placing it
};
constexpr auto enum_names(kv_placement) {
  return std::array{std::pair{kv_placement::hbm_first, "hbm_first"}, std::pair{kv_placement::dram, "dram"},
                    std::pair{kv_placement::by_pressure, "by_pressure"}};
}

/// Parameters of the residency state.
struct residency_params {
  int max_replicas_per_expert = 4;   ///< R^max_{l,e} (Eq. 2, 23) [assumed]
  double budget_factor = 1.3;        ///< B_res = factor · Σ S^wt (HCRMap Table 1: 1.3× resident copies)
  data_size<> chunk = units::MiB(1.0);  ///< migration chunk [assumed]
  /// Activation/token-buffer reservation A per SRAM bank (Eq. 1). [Assumed 0.5 MiB]
  data_size<> sram_reserve = units::MiB(0.5);
  /// Metadata reservation M per bank (directory, version state, replication buffers).
  /// [Assumed 64 KiB]
  data_size<> metadata_reserve = units::KiB(64.0);
  /// Bytes of each tier held by data other than experts — KV cache, non-routed weights,
  /// activations (`chiplet/capacity.hpp` plans them) — spread over the tier's banks in
  /// proportion to their capacity; `usable` subtracts each bank's share. Zero: experts may use
  /// the whole tier.
  data_size<> sram_other{};
  data_size<> hbm_other{};   ///< as `sram_other`, for the HBM tier
  data_size<> dram_other{};  ///< as `sram_other`, for the DRAM tier
  /// Tier of the KV cache (`capacity.hpp`). [Default hbm_first, the earlier rule; HCRMap does not
  /// place the KV cache]
  kv_placement kv = kv_placement::hbm_first;

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("max_replicas_per_expert", s.max_replicas_per_expert);
    v("budget_factor", s.budget_factor);
    v("chunk", s.chunk);
    v("sram_reserve", s.sram_reserve);
    v("metadata_reserve", s.metadata_reserve);
    v("sram_other", s.sram_other);
    v("hbm_other", s.hbm_other);
    v("dram_other", s.dram_other);
    v("kv", s.kv);
  }
};

/// Total capacity of the banks of one tier of a substrate.
template <class = void>
inline data_size<> tier_capacity(const substrate& s, tier_kind t) {
  double c = 0.0;
  for (const auto& b : s.banks()) c += b.tier == t ? b.capacity.si() : 0.0;
  return data_size<>::from_si(c);
}

namespace detail {
template <class T = double>
void validate_residency(const residency_params& p, const substrate& s);
}  // namespace detail
/// Checks residency parameters against a substrate; throws `config_error` naming the field.
/// The per-bank reserves of Eq. 1 must leave room in the smallest bank they apply to:
/// A + M < Cap of every SRAM bank and M < Cap of every HBM and DRAM bank; the non-expert data of
/// a tier may fill it but not exceed it.
template <class = void>
inline void validate(const residency_params& p, const substrate& s) { detail::validate_residency<>(p, s); }
// The body is a function template (of a scalar it does not use) so that strata::compiled can hold
// its one instantiation: a consumer built with STRATA_COMPILED=1 compiles none of it.
template <class T>
void detail::validate_residency(const residency_params& p, const substrate& s) {
  constexpr const char* id = "strata.residency";
  detail::require(p.max_replicas_per_expert >= 1, id, "max_replicas_per_expert", p.max_replicas_per_expert, ">= 1");
  detail::require(p.budget_factor >= 1.0, id, "budget_factor", p.budget_factor, ">= 1");
  detail::require_positive(p.chunk.si(), id, "chunk", "B");
  detail::require_nonnegative(p.sram_reserve.si(), id, "sram_reserve", "B");
  detail::require_nonnegative(p.metadata_reserve.si(), id, "metadata_reserve", "B");
  detail::require(static_cast<int>(p.kv) >= 0 && static_cast<int>(p.kv) <= 2, id, "kv", static_cast<int>(p.kv),
                  "hbm_first, dram or by_pressure");
  double sram_min = 0.0, other_min = 0.0;
  for (const auto& b : s.banks()) {
    double& m = b.tier == tier_kind::sram ? sram_min : other_min;
    m = m == 0.0 ? b.capacity.si() : std::min(m, b.capacity.si());
  }
  const double all_min = sram_min == 0.0 ? other_min : other_min == 0.0 ? sram_min : std::min(sram_min, other_min);
  if (p.metadata_reserve.si() >= all_min) {
    throw config_error("metadata_reserve", "[strata.residency] metadata_reserve (M = " +
                                               detail::to_text(p.metadata_reserve.si()) +
                                               " B) must be below the smallest bank capacity (" + detail::to_text(all_min) +
                                               " B, Eq. 1): the reserve exceeds the bank");
  }
  const double a_m = p.sram_reserve.si() + p.metadata_reserve.si();
  if (sram_min > 0.0 && a_m >= sram_min) {
    throw config_error("sram_reserve", "[strata.residency] sram_reserve + metadata_reserve (A + M = " +
                                           detail::to_text(a_m) + " B) must be below the SRAM bank capacity (" +
                                           detail::to_text(sram_min) + " B, Eq. 1): the reserve exceeds the bank");
  }
  const std::pair<const char*, std::pair<data_size<>, tier_kind>> others[] = {
      {"sram_other", {p.sram_other, tier_kind::sram}},
      {"hbm_other", {p.hbm_other, tier_kind::hbm}},
      {"dram_other", {p.dram_other, tier_kind::dram}}};
  for (const auto& [field, v] : others) {
    detail::require_nonnegative(v.first.si(), id, field, "B");
    const double cap = tier_capacity(s, v.second).si();
    detail::require(v.first.si() <= cap * (1 + 1e-12), id, field, v.first.si(),
                    ("<= the tier's capacity (" + detail::to_text(cap) + " B)").c_str());
  }
}

/// The replicas of a model on a substrate with a versioned directory.
class residency {
 public:
  template <class = void>
  residency(const substrate& s, int layers, int experts, data_size<> expert_bytes, residency_params p = {})
      : s_(&s), layers_(layers), experts_(experts), wt_(expert_bytes), p_(p) {
    constexpr const char* id = "strata.residency";
    detail::require(layers >= 1, id, "layers", layers, ">= 1");
    detail::require(experts >= 1, id, "experts", experts, ">= 1");
    detail::require_positive(expert_bytes.si(), id, "expert_bytes", "B");
    validate(p, s);
    for (tier_kind t : {tier_kind::sram, tier_kind::hbm, tier_kind::dram}) {
      const double cap = tier_capacity(s, t).si();
      other_share_[static_cast<std::size_t>(t)] = cap > 0.0 ? other_(t) / cap : 0.0;
    }
    by_expert_.assign(static_cast<std::size_t>(layers) * experts, {});
    bank_used_.assign(s.banks().size(), 0.0);
  }

  template <class = void>
  [[nodiscard]] const residency_params& params() const { return p_; }
  template <class = void>
  [[nodiscard]] int layers() const { return layers_; }
  template <class = void>
  [[nodiscard]] int experts() const { return experts_; }
  template <class = void>
  [[nodiscard]] data_size<> expert_bytes() const { return wt_; }
  /// Current directory version.
  template <class = void>
  [[nodiscard]] std::uint32_t version() const { return version_; }
  /// All entries (including pending and retiring ones).
  template <class = void>
  [[nodiscard]] const std::vector<directory_entry>& entries() const { return entries_; }
  /// B_res = budget_factor · layers · experts · S^wt (Eq. 2, 24).
  template <class = void>
  [[nodiscard]] data_size<> budget() const { return wt_ * (p_.budget_factor * layers_ * experts_); }
  /// Resident bytes of all entries (left side of Eq. 24); pending and retiring copies occupy
  /// space too.
  template <class = void>
  [[nodiscard]] data_size<> resident_bytes() const { return wt_ * static_cast<double>(entries_.size()); }
  /// Bytes of a bank reserved for what is not an expert: A (SRAM only) + M (Eq. 1) plus the
  /// bank's share of its tier's non-expert data (`residency_params::*_other`).
  template <class = void>
  [[nodiscard]] double reserved(int bank) const {
    const auto& b = s_->banks()[static_cast<std::size_t>(bank)];
    return (b.tier == tier_kind::sram ? p_.sram_reserve.si() : 0.0) + p_.metadata_reserve.si() +
           b.capacity.si() * other_share_[static_cast<std::size_t>(b.tier)];
  }
  /// Usable capacity of a bank for experts: Cap − A − M − other data (Eq. 1), at least 0.
  template <class = void>
  [[nodiscard]] double usable(int bank) const {
    const auto& b = s_->banks()[static_cast<std::size_t>(bank)];
    return std::max(0.0, b.capacity.si() - reserved(bank));
  }
  /// Bytes placed on a bank.
  template <class = void>
  [[nodiscard]] double used(int bank) const { return bank_used_[static_cast<std::size_t>(bank)]; }

  /// Whether a replica of (layer, expert) may be added at φ = (chiplet, bank span): visibility,
  /// bank capacity (Eq. 1), replica count (Eq. 2) and budget (Eq. 24). Returns the reason it
  /// may not, or an empty string.
  template <class = void>
  [[nodiscard]] std::string check_add(int layer, int expert, int chiplet, int bank, int span) const {
    if (can_add(layer, expert, chiplet, bank, span)) return {};  // the reasons below are built only on failure
    if (layer < 0 || layer >= layers_ || expert < 0 || expert >= experts_) return "no such expert";
    replica r{layer, expert, chiplet, bank, span};
    try {
      validate(r, *s_);
    } catch (const config_error& e) {
      return e.what();
    }
    if (static_cast<int>(of(layer, expert).size()) >= p_.max_replicas_per_expert) return "replica count at R_max (Eq. 2)";
    if ((resident_bytes() + wt_).si() > budget().si() * (1 + 1e-12)) return "residency budget B_res exceeded (Eq. 24)";
    for (int i = 0; i < span; ++i) {
      const auto& b = s_->banks()[static_cast<std::size_t>(bank) + static_cast<std::size_t>(i)];
      if (reserved(bank + i) >= b.capacity.si()) {
        return "bank " + std::to_string(bank + i) + " has no room for experts: its reserve (" +
               detail::to_text(reserved(bank + i)) + " B: activations/token buffers, metadata and non-expert data) " +
               "fills its capacity (" + detail::to_text(b.capacity.si()) + " B, Eq. 1)";
      }
      if (used(bank + i) + wt_.si() / span > usable(bank + i) * (1 + 1e-12)) {
        return "bank " + std::to_string(bank + i) + " over capacity (Eq. 1): " + detail::to_text(used(bank + i)) +
               " B used + " + detail::to_text(wt_.si() / span) + " B > " + detail::to_text(usable(bank + i)) +
               " B usable";
      }
    }
    return {};
  }

  /// `check_add(...).empty()` without building the reason: the same checks (visibility, span
  /// within one tier and home, Eq. 1, Eq. 2, Eq. 24), allocation-free, for placement searches
  /// that probe many candidates.
  template <class = void>
  [[nodiscard]] bool can_add(int layer, int expert, int chiplet, int bank, int span) const {
    if (layer < 0 || layer >= layers_ || expert < 0 || expert >= experts_) return false;
    if (static_cast<int>(of(layer, expert).size()) >= p_.max_replicas_per_expert) return false;
    return has_room(chiplet, bank, span);
  }
  /// Whether the budget admits one more expert copy (Eq. 24), the part of `has_room` that does not
  /// depend on the location.
  template <class = void>
  [[nodiscard]] bool budget_room() const { return !((resident_bytes() + wt_).si() > budget().si() * (1 + 1e-12)); }
  /// The part of `can_add` that does not depend on the expert: visibility, span within one tier
  /// and home, Eq. 1 and Eq. 24. `can_add` holds exactly when the expert exists, is below R^max
  /// (Eq. 2) and this holds, so a placement search over many experts of one state can probe
  /// each location once.
  template <class = void>
  [[nodiscard]] bool has_room(int chiplet, int bank, int span) const {
    const int nb = static_cast<int>(s_->banks().size());
    if (chiplet < 0 || chiplet >= s_->chiplets() || span < 1 || bank < 0 || bank + span > nb) return false;
    const auto& b0 = s_->banks()[static_cast<std::size_t>(bank)];
    if (!s_->visible(bank, chiplet)) return false;
    if (!budget_room()) return false;
    for (int i = 0; i < span; ++i) {
      const auto& b = s_->banks()[static_cast<std::size_t>(bank) + static_cast<std::size_t>(i)];
      if (b.tier != b0.tier || b.home != b0.home) return false;
      if (reserved(bank + i) >= b.capacity.si()) return false;
      if (used(bank + i) + wt_.si() / span > usable(bank + i) * (1 + 1e-12)) return false;
    }
    return true;
  }

  /// The nearest home of `tier` with room for a new replica of (layer, expert) executing on
  /// `chiplet`: the first home in `substrate::visit_homes` order (SRAM: the chiplet's group;
  /// chiplet-local HBM: the chiplet, then the others by hop distance, ties by id; pools: the IO
  /// chiplets from `rotate` on) whose whole span of the tier's banks `can_add` accepts, as
  /// φ = (tier, chiplet, that span); none when no home has room. Allocation-free, and a failed
  /// probe builds no reason: the placement searches call it for every chiplet and tier.
  ///
  ///   if (const auto p = r.nearest_room(l, e, c, tier_kind::hbm, c)) r.place(l, e, c, p->bank, p->span);
  template <class = void>
  [[nodiscard]] std::optional<place_candidate> nearest_room(int layer, int expert, int chiplet, tier_kind tier,
                                                            int rotate) const {
    std::optional<place_candidate> out;
    (void)s_->visit_homes(tier, chiplet, rotate, [&](int h) {
      const auto [first, span] = s_->home_banks(tier, h);
      if (span == 0 || !can_add(layer, expert, chiplet, first, span)) return false;
      out = place_candidate{tier, chiplet, first, span};
      return true;
    });
    return out;
  }

  /// Places a published replica directly (initial layout). Throws `config_error` with the reason
  /// if the placement is illegal.
  template <class = void>
  int place(int layer, int expert, int chiplet, int bank, int span = 1) {
    return add_(layer, expert, chiplet, bank, span, replica_state::published);
  }

  /// Starts a copy of (layer, expert) to φ: a pending entry of ⌈S^wt / chunk⌉ chunks. Returns the
  /// entry index. Throws `config_error` if illegal.
  template <class = void>
  int begin_copy(int layer, int expert, int chiplet, int bank, int span = 1) {
    return add_(layer, expert, chiplet, bank, span, replica_state::pending);
  }

  /// Lands `chunks` more chunks of pending entry `i`; publishes it (new version) when complete.
  /// Returns true when published.
  template <class = void>
  bool land_chunks(int i, std::uint32_t chunks) {
    auto& e = entry_(i);
    detail::require(e.state == replica_state::pending, "strata.residency", "entry", i, "a pending copy");
    e.chunks_done = std::min(e.chunks_total, e.chunks_done + chunks);
    if (e.chunks_done < e.chunks_total) return false;
    e.state = replica_state::published;
    e.version = ++version_;
    e.age = 0;
    return true;
  }

  /// Marks entry `i` retiring (eviction or the old copy of a move). The last published replica of
  /// an expert cannot be retired (Eq. 2: |R| ≥ 1). Removed by `collect` once idle.
  template <class = void>
  void retire(int i) {
    auto& e = entry_(i);
    detail::require(e.state == replica_state::published, "strata.residency", "entry", i, "a published replica");
    int published = 0;
    for (int j : of(e.layer, e.expert)) published += entries_[static_cast<std::size_t>(j)].state == replica_state::published ? 1 : 0;
    detail::require(published >= 2, "strata.residency", "entry", i, "not the last legal replica of its expert (Eq. 2)");
    e.state = replica_state::retiring;
    ++version_;
  }

  /// Groups mapped to entry `i` start (+n) or finish (−n).
  template <class = void>
  void add_in_flight(int i, int n) {
    auto& e = entry_(i);
    const long long v = static_cast<long long>(e.in_flight) + n;
    detail::require(v >= 0, "strata.residency", "in_flight", v, ">= 0");
    e.in_flight = static_cast<std::uint32_t>(v);
  }

  /// Removes retiring entries with nothing in flight; returns how many were removed.
  template <class = void>
  int collect() {
    int removed = 0;
    for (std::size_t i = entries_.size(); i-- > 0;) {
      const auto& e = entries_[i];
      if (e.state != replica_state::retiring || e.in_flight != 0) continue;
      for (int k = 0; k < e.span; ++k) bank_used_[static_cast<std::size_t>(e.bank) + static_cast<std::size_t>(k)] -= wt_.si() / e.span;
      entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(i));
      ++removed;
    }
    if (removed > 0) reindex_();
    return removed;
  }

  /// Ages every published entry by one window.
  template <class = void>
  void tick() {
    for (auto& e : entries_) {
      if (e.state == replica_state::published) ++e.age;
    }
  }

  /// Entry indices of (layer, expert), any state.
  template <class = void>
  [[nodiscard]] const std::vector<int>& of(int layer, int expert) const {
    return by_expert_[static_cast<std::size_t>(layer) * experts_ + expert];
  }
  /// True if entry `i` is published: a legal target of FastTokenMap.
  template <class = void>
  [[nodiscard]] bool published(int i) const { return entries_[static_cast<std::size_t>(i)].state == replica_state::published; }
  /// Published entries of (layer, expert): the legal targets of FastTokenMap (hot paths iterate
  /// `of` and test `published` instead, without the vector).
  template <class = void>
  [[nodiscard]] std::vector<int> legal(int layer, int expert) const {
    std::vector<int> out;
    for (int i : of(layer, expert)) {
      if (published(i)) out.push_back(i);
    }
    return out;
  }
  /// Entry `i` as a `replica` for the critical-path model.
  template <class = void>
  [[nodiscard]] replica as_replica(int i) const {
    const auto& e = entries_[static_cast<std::size_t>(i)];
    return {e.layer, e.expert, e.chiplet, e.bank, e.span};
  }
  /// Tier of entry `i`.
  template <class = void>
  [[nodiscard]] tier_kind tier(int i) const { return static_cast<tier_kind>(entries_[static_cast<std::size_t>(i)].tier); }

  /// P^tier (§6.2): the scarcest tier's used / usable capacity, over all banks of the tier.
  template <class = void>
  [[nodiscard]] double tier_pressure() const {
    double worst = 0.0;
    for (tier_kind t : {tier_kind::sram, tier_kind::hbm, tier_kind::dram}) {
      double used_b = 0.0, cap = 0.0;
      for (int b : s_->banks_of(t)) {
        used_b += used(b);
        cap += usable(b);
      }
      if (cap > 0.0) worst = std::max(worst, used_b / cap);
    }
    return worst;
  }

  /// Checks Eq. 1–2 and 22–24 over the whole state; returns the violations (empty if legal).
  template <class = void>
  [[nodiscard]] std::vector<std::string> violations() const {
    std::vector<std::string> v;
    for (int l = 0; l < layers_; ++l) {
      for (int e = 0; e < experts_; ++e) {
        std::size_t n = 0;  // published entries: legal(l, e).size(), without the vector
        for (int i : of(l, e)) n += published(i) ? 1 : 0;
        if (n < 1) v.push_back("expert (" + std::to_string(l) + ", " + std::to_string(e) + ") has no legal replica (Eq. 23)");
        if (of(l, e).size() > static_cast<std::size_t>(p_.max_replicas_per_expert)) {
          v.push_back("expert (" + std::to_string(l) + ", " + std::to_string(e) + ") exceeds R_max (Eq. 23)");
        }
      }
    }
    for (std::size_t b = 0; b < bank_used_.size(); ++b) {
      if (bank_used_[b] > usable(static_cast<int>(b)) * (1 + 1e-9)) v.push_back("bank " + std::to_string(b) + " over capacity (Eq. 22)");
    }
    if (resident_bytes().si() > budget().si() * (1 + 1e-12)) v.emplace_back("residency budget exceeded (Eq. 24)");
    return v;
  }

 private:
  template <class = void>
  directory_entry& entry_(int i) {
    detail::require(i >= 0 && static_cast<std::size_t>(i) < entries_.size(), "strata.residency", "entry", i, "an entry index");
    return entries_[static_cast<std::size_t>(i)];
  }
  template <class = void>
  int add_(int layer, int expert, int chiplet, int bank, int span, replica_state st) {
    const std::string why = check_add(layer, expert, chiplet, bank, span);
    if (!why.empty()) throw config_error("placement", "[strata.residency] cannot place (" + std::to_string(layer) + ", " +
                                                          std::to_string(expert) + ") on chiplet " + std::to_string(chiplet) +
                                                          " bank " + std::to_string(bank) + ": " + why);
    directory_entry e;
    e.layer = static_cast<std::uint16_t>(layer);
    e.expert = static_cast<std::uint16_t>(expert);
    e.chiplet = static_cast<std::uint16_t>(chiplet);
    e.bank = static_cast<std::uint16_t>(bank);
    e.span = static_cast<std::uint16_t>(span);
    e.tier = static_cast<std::uint8_t>(s_->banks()[static_cast<std::size_t>(bank)].tier);
    e.state = st;
    e.chunks_total = static_cast<std::uint32_t>(std::ceil(wt_.si() / p_.chunk.si()));
    e.chunks_done = st == replica_state::published ? e.chunks_total : 0;
    if (st == replica_state::published) e.version = ++version_;
    for (int k = 0; k < span; ++k) bank_used_[static_cast<std::size_t>(bank) + static_cast<std::size_t>(k)] += wt_.si() / span;
    const int idx = static_cast<int>(entries_.size());
    entries_.push_back(e);
    by_expert_[static_cast<std::size_t>(layer) * experts_ + expert].push_back(idx);
    return idx;
  }
  template <class = void>
  void reindex_() {
    for (auto& v : by_expert_) v.clear();
    for (std::size_t i = 0; i < entries_.size(); ++i) {
      by_expert_[static_cast<std::size_t>(entries_[i].layer) * experts_ + entries_[i].expert].push_back(static_cast<int>(i));
    }
  }

  const substrate* s_;
  int layers_, experts_;
  data_size<> wt_;
  template <class = void>
  [[nodiscard]] double other_(tier_kind t) const {
    return t == tier_kind::sram ? p_.sram_other.si() : t == tier_kind::hbm ? p_.hbm_other.si() : p_.dram_other.si();
  }

  residency_params p_;
  std::array<double, 3> other_share_{};  // non-expert data per byte of capacity, by tier
  std::uint32_t version_ = 0;
  std::vector<directory_entry> entries_;
  std::vector<std::vector<int>> by_expert_;
  std::vector<double> bank_used_;
};

namespace detail {
/// Distinct homes of the banks of tier `t`, in bank order (SRAM: chiplet groups; HBM/DRAM: IO
/// chiplets, or compute chiplets when the substrate puts the tier under them).
template <class = void>
inline std::vector<int> homes_of(const substrate& s, tier_kind t) {
  std::vector<int> homes;
  for (const auto& b : s.banks()) {
    if (b.tier == t && std::find(homes.begin(), homes.end(), b.home) == homes.end()) homes.push_back(b.home);
  }
  return homes;
}

template <class T = double>
residency make_single_copy_static(const substrate& s, int layers, int experts, data_size<> expert_bytes,
                                  residency_params p);
}  // namespace detail
/// Single-copy static placement, the paper's normaliser (§7.1): one replica per expert, experts
/// dealt round-robin over the compute chiplets in (layer, expert) order, each placed in the
/// nearest tier with room — the chiplet's SRAM group, then HBM, then DRAM — and striped over all
/// banks of one home of the tier for bandwidth: the chiplet's own home when the tier has one under
/// it (chiplet-local memory), else the homes in turn (IO chiplets, chosen round-robin).
/// Popularity-agnostic by design. Throws `config_error` if the model does not fit.
template <class = void>
inline residency single_copy_static(const substrate& s, int layers, int experts, data_size<> expert_bytes,
                                    residency_params p = {}) {
  return detail::make_single_copy_static<>(s, layers, experts, expert_bytes, p);
}
/// The same for model `m`: its MoE layers, its routed experts and their bytes (`expert_bytes`).
template <class = void>
inline residency single_copy_static(const substrate& s, const model& m, residency_params p = {}) {
  return single_copy_static(s, m.moe_layers(), m.experts, expert_bytes(m), p);
}
// The body is a function template (of a scalar it does not use) so that strata::compiled can hold
// its one instantiation: a consumer built with STRATA_COMPILED=1 compiles none of it.
template <class T>
residency detail::make_single_copy_static(const substrate& s, int layers, int experts, data_size<> expert_bytes,
                                     residency_params p) {
  residency r(s, layers, experts, expert_bytes, p);
  int next = 0;
  for (int l = 0; l < layers; ++l) {
    for (int e = 0; e < experts; ++e) {
      const int c = (l * experts + e) % s.chiplets();
      bool placed = false;
      for (tier_kind t : {tier_kind::sram, tier_kind::hbm, tier_kind::dram}) {
        if (const auto p = r.nearest_room(l, e, c, t, next)) {
          r.place(l, e, c, p->bank, p->span);
          placed = true;
          break;
        }
      }
      ++next;
      if (!placed) {
        throw config_error("placement", "[strata.residency] expert (" + std::to_string(l) + ", " + std::to_string(e) +
                                            ") fits in no tier: the model exceeds the package's memory");
      }
    }
  }
  return r;
}

/// Metadata footprint of §7.5 from the data structures' sizes.
struct metadata_footprint {
  std::size_t bytes_per_replica = sizeof(directory_entry);  ///< one directory entry
  std::size_t directory_bytes = 0;  ///< entries at the full budget + per-expert index
  std::size_t pressure_counter_bytes = 0;  ///< P_load per chiplet, P_link per link, P_bank per bank, P_tier, P_mig

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("bytes_per_replica", s.bytes_per_replica);
    v("directory_bytes", s.directory_bytes);
    v("pressure_counter_bytes", s.pressure_counter_bytes);
  }
};

/// Footprint for a model of `layers` × `experts` routed experts with `budget_factor` replicas
/// per expert on average (Table 1: 1.3): entries for every replica the budget admits plus, per
/// expert, a 4-byte offset and count into the entry table; counters as 32-bit floats.
template <class = void>
inline metadata_footprint metadata(const substrate& s, int layers, int experts, double budget_factor) {
  detail::require(layers >= 1 && experts >= 1, "strata.residency", "experts", experts, ">= 1");
  metadata_footprint m;
  const auto experts_total = static_cast<std::size_t>(layers) * static_cast<std::size_t>(experts);
  const auto replicas = static_cast<std::size_t>(std::ceil(budget_factor * static_cast<double>(experts_total)));
  m.directory_bytes = replicas * sizeof(directory_entry) + experts_total * 2 * sizeof(std::uint16_t);
  m.pressure_counter_bytes =
      (static_cast<std::size_t>(s.chiplets()) + s.links().size() + s.banks().size() + 3 + 1) * sizeof(float);
  return m;
}

}  // namespace v0
}  // namespace strata

// strata::compiled (STRATA_BUILD_COMPILED, src/compiled.cpp) holds the instantiations below;
// STRATA_COMPILED=1, which that target puts on its users, keeps their translation units from
// instantiating them again. Without it this header is unchanged (header-only).
#if defined(STRATA_COMPILED) && STRATA_COMPILED
namespace strata {
inline namespace v0 {
extern template void detail::validate_residency<double>(const residency_params&, const substrate&);
extern template residency detail::make_single_copy_static<double>(const substrate&, int, int, data_size<>,
                                                                  residency_params);
}  // namespace v0
}  // namespace strata
#endif
