// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The HCRMap 3.5D chiplet substrate as a directed hardware graph (HCRMap §4.2, Fig. 4, Table 1).
///
/// Nodes: `mesh_x × mesh_y` compute chiplets (id = y·mesh_x + x) and `io_attach.size()` IO/memory
/// chiplets (ids after the compute chiplets). Links: a UCIe-class D2D link in each direction
/// between mesh neighbours, and between each IO chiplet and the compute chiplet it attaches to.
/// Each link u has bandwidth B_u, energy ε_u, distance δ_u, signal speed v_u and fixed overhead
/// λ⁰_u (router traversal + link cycle + D2D PHY), so λ_u = λ⁰_u + δ_u / v_u.
/// Routes are dimension-ordered XY between compute chiplets; an IO chiplet enters and leaves the
/// mesh through its attachment chiplet.
///
/// Table 1 as resources (HCRMap Table 1, cited by its row). A tier's *units*
/// are its independent bandwidth slices, each at the tier's bandwidth / units; a *home* is the
/// set of units one expert's weights stripe over (`chiplet_tier_spec::stripe`), so a stream from
/// a home runs at Σ of its units' bandwidth (`home_rate`), and the homes are units / stripe.
/// What follows from the resources and the striping, never from a slice count:
///
/// | tier | Table 1 row | units | stripe (default) | home rate | homes, path to chiplet c |
/// |------|-------------|-------|------------------|-----------|--------------------------|
/// | SRAM | "SRAM tier": 64 MB, 16 banks, 2.0 TB/s | 16 banks per group | the group's 16 banks | 2.0 TB/s | one per `group_x × group_y` group; stacked: no link |
/// | HBM  | "HBM tier": 8 GB HBM2, 32 pseudo-channels, 460 GB/s | 32 PCs at 14.375 GB/s | 16 PCs: one HBM2 stack | 230 GB/s | 2 stacks beside chiplets 5 and 10 (`hbm_attach`); local: no link, else XY over D2D ("D2D bandwidth": 256 GB/s per direction) |
/// | DRAM | "DRAM tier": 32 GB DDR5, 8 DDR5-6400 channels, 409.6 GB/s | 8 channels at 51.2 GB/s | 0: the channels of one IO chiplet (2) | 102.4 GB/s | one per IO chiplet ("IO/memory chiplets": 4); IO link up to the attachment chiplet, then XY over D2D ("D2D bandwidth", "Routing algorithm": XY) |
///
/// - HBM: JESD235 gives an HBM2 stack 8 channels of 2 pseudo-channels, so Table 1's 32 PCs are
///   two stacks (4 GB and 230 GB/s each: 1.8 Gb/s per pin × 1024 pins); a stack's controller
///   interleaves addresses over all its pseudo-channels, so an expert stripes over one stack
///   (`hbm.stripe = 16`). Open alternatives, parameters: `hbm.stripe = 2` is the earlier layout (2 PCs = 512 MB, 28.75 GB/s under each of the 16 chiplets: the 460
///   GB/s divided by the chiplet count, a slice slower per stream than a DRAM home);
///   `hbm.stripe = 32` one package-wide interleave; `hbm_placement::behind_io` puts the homes
///   behind the IO chiplets. Where the stacks sit is a choice (Table 1 is silent): the two inner
///   diagonal chiplets, each chiplet at most 3 hops from a stack.
/// - DRAM: each IO/memory chiplet (Table 1 row "IO/memory chiplets": 4) holds the memory
///   controller of 8 / 4 = 2 DDR5 channels and interleaves over them (`dram.stripe = 0`); a DRAM stream occupies its IO
///   chiplet's link ("shared I/O", §3) and the mesh links of the XY route from the attachment.
/// - SRAM: a group's 16 banks are one home (an SRAM group is one macro; `sram.stripe` must be 0
///   or `sram.banks`).
/// - `stripe = 0` is the rule "the tier's units divided evenly over its home nodes" (chiplets for
///   chiplet-local HBM, IO chiplets for pools), unit i at node ⌊i·nodes / units⌋; a stripe wider
///   than the tier is the whole tier; with units not a multiple of the stripe, the last home holds
///   the remainder.
/// - Stream rate (`stream_rate`): a stream's weights are ready after max(bank service, route):
///   Lat + S/BW_home (Eq. 10) against Σ_u (λ_u + S/B_u) (Eq. 7), so its rate is
///   min(BW_home, (Σ_{u∈path} 1/B_u)^−1). Under the defaults the home rates are SRAM 2.0 TB/s ≥
///   HBM 230 GB/s ≥ DRAM 102.4 GB/s, the order §3 describes (checked in tests, not tuned).
///
/// Tiers and banks (φ(r) = (tier, chiplet, bank)):
/// - SRAM: the mesh is cut into chiplet groups of `group_x × group_y` (default 2 × 2 quadrants);
///   each group has a stacked near-tier of `sram.capacity` in `sram.banks` banks sharing
///   `sram.bandwidth`. Only chiplets of the group see those banks; access is vertical (no mesh
///   link).
/// - HBM, placed by `hbm_placement`:
///   `chiplet_local` (default; HCRMap §4.2 / Fig. 4: "local SRAM/HBM/DRAM regions form tiered
///   bank sets B_{t,c}"): each HBM home sits beside a compute chiplet (`hbm_attach`, or spread
///   on the mesh diagonal when empty). A replica executing on the chiplet that holds
///   its HBM streams its weights vertically, without crossing a package link (memory route
///   empty); a replica on another chiplet reaches that HBM over the mesh (XY from the holder).
///   `behind_io`: the homes behind the IO chiplets, reached over IO link → attachment chiplet → XY.
/// - DRAM: one shared pool behind the IO chiplets ("group-shared DRAM").
/// A replica is striped over the banks of its home (a span); a span of one bank is the paper's
/// single-bank placement.
///
/// Size and range limits (hostile or mistyped input must neither exhaust memory nor yield
/// inf/NaN): the mesh holds at most `max_chiplets` compute chiplets (default 4096, a 64 × 64
/// mesh) and the package at most `max_banks` banks (default 65 536); both are parameters a user
/// may raise. Storage is proportional to chiplets + links + banks, plus chiplets × HBM homes for
/// the chiplet-local HBM preference order (HBM homes ≤ min(chiplets, hbm.banks): 32 with Table
/// 1's pseudo-channels): routes are dimension-ordered, so they are generated on demand instead
/// of tabulated for all pairs (a 64 × 64 table took 4.3 GB). Construction takes time in
/// proportion to that storage (chiplets × (HBM homes + mesh_x + mesh_y) for the HBM order, a
/// counting sort by hop distance). Quantities must lie in physical ranges (`detail::substrate_ranges`), so 1e300 B/s or
/// a denormal bandwidth is a `config_error`, not an infinite or NaN time.

#include <algorithm>    // std::fill
#include <array>        // std::array
#include <cstdlib>      // std::abs
#include <cstddef>      // std::size_t, std::ptrdiff_t
#include <string>       // std::string
#include <utility>      // std::pair
#include <vector>       // std::vector

#include "strata/core/error.hpp"
#include "strata/core/units.hpp"

namespace strata {
inline namespace v0 {

/// Residency tier of an expert replica (HCRMap §4.2: T = {SRAM, HBM, DRAM}).
enum class tier_kind { sram, hbm, dram };
constexpr auto enum_names(tier_kind) {
  return std::array{std::pair{tier_kind::sram, "sram"}, std::pair{tier_kind::hbm, "hbm"},
                    std::pair{tier_kind::dram, "dram"}};
}
constexpr const char* to_string(tier_kind t) {
  return t == tier_kind::sram ? "sram" : t == tier_kind::hbm ? "hbm" : "dram";
}

/// Where the HBM tier sits (see the file comment).
enum class hbm_placement {
  chiplet_local,  ///< pseudo-channels divided over the compute chiplets (HCRMap §4.2, Fig. 4)
  behind_io       ///< one pool behind the IO chiplets
};
constexpr auto enum_names(hbm_placement) {
  return std::array{std::pair{hbm_placement::chiplet_local, "chiplet_local"},
                    std::pair{hbm_placement::behind_io, "behind_io"}};
}

/// One memory tier of the package.
struct chiplet_tier_spec {
  data_size<> capacity{};         ///< per SRAM group, or the whole HBM subsystem / DRAM pool
  int banks = 1;                  ///< banks per SRAM group, or in the pool
  strata::bandwidth<> bandwidth{};        ///< aggregate over those banks
  duration<> latency{};           ///< fixed access latency Lat_{t,c,b}
  energy_per_data<> energy{};     ///< ε_{t,c,b}
  /// Units (banks, pseudo-channels, channels) one expert's weights stripe over: one home's
  /// units. 0: the tier's units divided evenly over its home nodes (file comment).
  int stripe = 0;

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("capacity", s.capacity);
    v("banks", s.banks);
    v("bandwidth", s.bandwidth);
    v("latency", s.latency);
    v("energy", s.energy);
    v("stripe", s.stripe);
  }
  friend bool operator==(const chiplet_tier_spec&, const chiplet_tier_spec&) = default;
};

/// One class of link.
struct link_spec {
  strata::bandwidth<> bandwidth{};   ///< B_u per direction
  duration<> phy_latency{};          ///< PHY/adapter latency, part of λ⁰_u
  length<> distance{};               ///< δ_u
  velocity<> signal_speed{};         ///< v_u
  energy_per_data<> energy{};        ///< ε_u

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("bandwidth", s.bandwidth);
    v("phy_latency", s.phy_latency);
    v("distance", s.distance);
    v("signal_speed", s.signal_speed);
    v("energy", s.energy);
  }
  friend bool operator==(const link_spec&, const link_spec&) = default;
};

/// Parameters of the package (defaults: HCRMap Table 1).
struct substrate_params {
  int mesh_x = 4;                 ///< [HCRMap Table 1: 4 × 4 mesh]
  int mesh_y = 4;                 ///< [HCRMap Table 1]
  int cores_per_chiplet = 16;     ///< [HCRMap Table 1: 16 cores/chiplet, 256 total]
  frequency<> clock = units::GHz(1.0);  ///< [HCRMap Table 1: 1 GHz]
  /// MACs per core per cycle: Π_core = 2 · macs_per_cycle · f FLOP/s. [Assumed 256 (a 16 × 16
  /// array); Table 1 gives no per-core throughput]
  int core_macs_per_cycle = 256;
  /// On-chiplet buffer S_c^buf. [Assumed 2 MiB; Table 1 gives 4-flit router buffers only]
  data_size<> chiplet_buffer = units::MiB(2.0);
  int flit_bits = 128;            ///< [HCRMap Table 1: 128-bit flits]
  int router_cycles = 2;          ///< [HCRMap Table 1: router 2 cycles]
  int link_cycles = 1;            ///< [HCRMap Table 1: link 1 cycle]
  /// Chiplet-to-chiplet D2D link. [HCRMap Table 1: UCIe-class, 256 GB/s per direction; UCIe 1.1
  /// advanced package: PHY latency < 2 ns, 0.3 pJ/bit above 16 GT/s; 10 mm chiplet pitch and
  /// 0.5 c on-package signal speed assumed]
  link_spec d2d{units::GBps(256.0), units::ns(2.0), units::mm(10.0), units::m_per_s(1.5e8),
                units::pJ_per_bit(0.3)};
  /// IO chiplet ↔ attachment chiplet link: the same UCIe-class D2D link. [HCRMap Table 1]
  link_spec io_link{units::GBps(256.0), units::ns(2.0), units::mm(10.0), units::m_per_s(1.5e8),
                    units::pJ_per_bit(0.3)};
  /// Compute chiplet each IO chiplet attaches to. [Choice: the four corners]
  std::vector<int> io_attach{0, 3, 12, 15};
  int group_x = 2;                ///< SRAM chiplet group width [choice: 2 × 2 quadrants]
  int group_y = 2;                ///< SRAM chiplet group height
  /// Stacked SRAM near-tier per chiplet group. [HCRMap Table 1 row "SRAM tier": 64 MB,
  /// 16 banks, 2.0 TB/s, 1.25 pJ/B; latency assumed 2 ns (a few cycles of a stacked macro).
  /// Stripe 0: the group's banks, one home]
  chiplet_tier_spec sram{units::MB(64.0), 16, units::TBps(2.0), units::ns(2.0), units::pJ_per_B(1.25)};
  /// HBM subsystem, totals over the package. [HCRMap Table 1 row "HBM tier": 8 GB
  /// HBM2, 32 pseudo-channels, 460 GB/s, 31.8 pJ/B; latency assumed 50 ns: HBM2 row miss tRCD +
  /// tCL ≈ 28 ns (JESD235) plus controller. Stripe 16: one HBM2 stack of 8 channels × 2
  /// pseudo-channels (JESD235), interleaved by its controller (file comment)]
  chiplet_tier_spec hbm{units::GB(8.0), 32, units::GBps(460.0), units::ns(50.0), units::pJ_per_B(31.8), 16};
  /// Shared DRAM pool. [HCRMap Table 1 row "DRAM tier": 32 GB DDR5, 8 × DDR5-6400
  /// channels, 409.6 GB/s, 160 pJ/B; latency assumed 70 ns: DDR5-6400B tRCD + tCL = 32.5 ns
  /// (JESD79-5) plus controller and PHY. Stripe 0: the channels behind one IO chiplet, 2]
  chiplet_tier_spec dram{units::GB(32.0), 8, units::GBps(409.6), units::ns(70.0), units::pJ_per_B(160.0)};
  /// Where the HBM pseudo-channels sit (JSON key `hbm_placement`: "chiplet_local" or
  /// "behind_io"). [HCRMap §4.2, Fig. 4: chiplet-local]
  hbm_placement hbm_at = hbm_placement::chiplet_local;
  /// Compute chiplet beside each chiplet-local HBM home (home j beside `hbm_attach[j]`; the
  /// first `homes` entries are used). Empty (default): spread on the mesh diagonal, home j beside
  /// chiplet (⌊(j+1)·mesh_x / (H+1)⌋, ⌊(j+1)·mesh_y / (H+1)⌋) when the H homes fit on it (H ≤
  /// min(mesh_x, mesh_y)), else beside chiplet ⌊j·|C| / H⌋. [Choice, Table 1 does not place the
  /// stacks: Table 1's two stacks sit beside the inner diagonal chiplets 5 and 10]
  std::vector<int> hbm_attach{};
  /// Limit on mesh_x · mesh_y (adjustable). [Choice: 4096, a 64 × 64 mesh]
  int max_chiplets = 4096;
  /// Limit on the package's banks: SRAM banks of all groups + HBM + DRAM (adjustable).
  /// [Choice: 65 536]
  int max_banks = 65536;

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("mesh_x", s.mesh_x);
    v("mesh_y", s.mesh_y);
    v("cores_per_chiplet", s.cores_per_chiplet);
    v("clock", s.clock);
    v("core_macs_per_cycle", s.core_macs_per_cycle);
    v("chiplet_buffer", s.chiplet_buffer);
    v("flit_bits", s.flit_bits);
    v("router_cycles", s.router_cycles);
    v("link_cycles", s.link_cycles);
    v("d2d", s.d2d);
    v("io_link", s.io_link);
    v("io_attach", s.io_attach);
    v("group_x", s.group_x);
    v("group_y", s.group_y);
    v("sram", s.sram);
    v("hbm", s.hbm);
    v("dram", s.dram);
    v("hbm_placement", s.hbm_at);
    v("hbm_attach", s.hbm_attach);
    v("max_chiplets", s.max_chiplets);
    v("max_banks", s.max_banks);
  }
  friend bool operator==(const substrate_params&, const substrate_params&) = default;
};

namespace detail {
/// Physical ranges of the substrate's quantities (SI units). Wide enough for any package one
/// could build, narrow enough that every time and energy the models form stays finite.
struct substrate_ranges {
  static constexpr double bandwidth_lo = 1e3, bandwidth_hi = 1e16;  ///< 1 kB/s .. 10 PB/s
  static constexpr double latency_hi = 1.0;                          ///< s
  static constexpr double distance_hi = 1.0;                         ///< m
  static constexpr double speed_lo = 1e6, speed_hi = 3e8;            ///< m/s (≤ c)
  static constexpr double energy_hi = 1e-6;                          ///< J/B (1 µJ/B)
  static constexpr double capacity_lo = 1.0, capacity_hi = 1e15;     ///< B (1 PB)
  static constexpr double clock_lo = 1e6, clock_hi = 1e11;           ///< Hz
  static constexpr int int_hi = 1 << 20;                             ///< cores, MACs, cycles, bits
};
template <class = void>
inline void validate_link(const link_spec& l, const std::string& f) {
  using R = substrate_ranges;
  constexpr const char* id = "strata.substrate";
  require_in(l.bandwidth.si(), R::bandwidth_lo, R::bandwidth_hi, id, f + ".bandwidth");
  require_in(l.phy_latency.si(), 0.0, R::latency_hi, id, f + ".phy_latency");
  require_in(l.distance.si(), 0.0, R::distance_hi, id, f + ".distance");
  require_in(l.signal_speed.si(), R::speed_lo, R::speed_hi, id, f + ".signal_speed");
  require_in(l.energy.si(), 0.0, R::energy_hi, id, f + ".energy");
}
template <class = void>
inline void validate_tier(const chiplet_tier_spec& t, const std::string& f, int max_banks) {
  using R = substrate_ranges;
  constexpr const char* id = "strata.substrate";
  require_in(t.capacity.si(), R::capacity_lo, R::capacity_hi, id, f + ".capacity");
  require(t.banks >= 1 && t.banks <= max_banks, id, f + ".banks", t.banks,
          ("in [1, max_banks = " + std::to_string(max_banks) + "]").c_str());
  require_in(t.bandwidth.si(), R::bandwidth_lo, R::bandwidth_hi, id, f + ".bandwidth");
  require_in(t.latency.si(), 0.0, R::latency_hi, id, f + ".latency");
  require_in(t.energy.si(), 0.0, R::energy_hi, id, f + ".energy");
  require(t.stripe >= 0 && t.stripe <= max_banks, id, f + ".stripe", t.stripe,
          ("in [0, max_banks = " + std::to_string(max_banks) + "] (0: the units divided over the home nodes)").c_str());
}
/// Homes of a tier of `units` units striped `stripe` wide over `nodes` home nodes: ⌈units /
/// stripe⌉, or min(units, nodes) for stripe 0 (nodes with a unit).
template <class = void>
inline int tier_homes(int units, int stripe, int nodes) {
  return stripe == 0 ? std::min(units, nodes) : (units + std::min(stripe, units) - 1) / std::min(stripe, units);
}
}  // namespace detail

namespace detail {
template <class T = double>
void validate_substrate(const substrate_params& p);
}  // namespace detail
/// Checks the parameters; throws `config_error` naming the field, the value and the range or
/// limit it must respect.
template <class = void>
inline void validate(const substrate_params& p) { detail::validate_substrate<>(p); }
// The body is a function template (of a scalar it does not use) so that strata::compiled can hold
// its one instantiation: a consumer built with STRATA_COMPILED=1 compiles none of it.
template <class T>
void detail::validate_substrate(const substrate_params& p) {
  using R = detail::substrate_ranges;
  constexpr const char* id = "strata.substrate";
  // The limits themselves are bounded so that node and bank counts stay far from int overflow.
  detail::require(p.max_chiplets >= 1 && p.max_chiplets <= (1 << 24), id, "max_chiplets", p.max_chiplets,
                  "in [1, 2^24]");
  detail::require(p.max_banks >= 1 && p.max_banks <= (1 << 26), id, "max_banks", p.max_banks, "in [1, 2^26]");
  const std::string side = "in [1, max_chiplets = " + std::to_string(p.max_chiplets) + "]";
  detail::require(p.mesh_x >= 1 && p.mesh_x <= p.max_chiplets, id, "mesh_x", p.mesh_x, side.c_str());
  detail::require(p.mesh_y >= 1 && p.mesh_y <= p.max_chiplets, id, "mesh_y", p.mesh_y, side.c_str());
  const long long nc = static_cast<long long>(p.mesh_x) * p.mesh_y;
  detail::require(nc <= p.max_chiplets, id, "mesh_x * mesh_y", nc,
                  ("<= max_chiplets = " + std::to_string(p.max_chiplets)).c_str());
  detail::require(p.cores_per_chiplet >= 1 && p.cores_per_chiplet <= R::int_hi, id, "cores_per_chiplet",
                  p.cores_per_chiplet, "in [1, 2^20]");
  detail::require_in(p.clock.si(), R::clock_lo, R::clock_hi, id, "clock");
  detail::require(p.core_macs_per_cycle >= 1 && p.core_macs_per_cycle <= R::int_hi, id, "core_macs_per_cycle",
                  p.core_macs_per_cycle, "in [1, 2^20]");
  detail::require_in(p.chiplet_buffer.si(), R::capacity_lo, R::capacity_hi, id, "chiplet_buffer");
  detail::require(p.flit_bits >= 8 && p.flit_bits <= R::int_hi, id, "flit_bits", p.flit_bits, "in [8, 2^20]");
  detail::require(p.router_cycles >= 0 && p.router_cycles <= R::int_hi, id, "router_cycles", p.router_cycles,
                  "in [0, 2^20]");
  detail::require(p.link_cycles >= 0 && p.link_cycles <= R::int_hi, id, "link_cycles", p.link_cycles, "in [0, 2^20]");
  detail::validate_link(p.d2d, "d2d");
  detail::validate_link(p.io_link, "io_link");
  detail::require(!p.io_attach.empty() && p.io_attach.size() <= static_cast<std::size_t>(nc), id, "io_attach",
                  p.io_attach.size(), "1 to mesh_x * mesh_y entries");
  for (std::size_t i = 0; i < p.io_attach.size(); ++i) {
    if (p.io_attach[i] < 0 || p.io_attach[i] >= nc) {
      detail::require(false, id, "io_attach[" + std::to_string(i) + "]", p.io_attach[i], "a compute chiplet id");
    }
  }
  detail::require(p.group_x >= 1 && p.mesh_x % p.group_x == 0, id, "group_x", p.group_x, "a divisor of mesh_x");
  detail::require(p.group_y >= 1 && p.mesh_y % p.group_y == 0, id, "group_y", p.group_y, "a divisor of mesh_y");
  detail::validate_tier(p.sram, "sram", p.max_banks);
  detail::validate_tier(p.hbm, "hbm", p.max_banks);
  detail::validate_tier(p.dram, "dram", p.max_banks);
  detail::require(p.sram.stripe == 0 || p.sram.stripe == p.sram.banks, id, "sram.stripe", p.sram.stripe,
                  "0 or sram.banks (an SRAM group's banks are one home)");
  const int nio = static_cast<int>(p.io_attach.size());
  const auto pool_homes = [&](const chiplet_tier_spec& t, const char* field) {
    const int h = detail::tier_homes(t.banks, t.stripe, nio);
    detail::require(h <= nio, id, field, t.stripe,
                    ("such that the homes (banks / stripe = " + std::to_string(h) + ") are at most the " +
                     std::to_string(nio) + " IO chiplets they sit behind")
                        .c_str());
  };
  pool_homes(p.dram, "dram.stripe");
  if (p.hbm_at == hbm_placement::behind_io) {
    pool_homes(p.hbm, "hbm.stripe");
  } else {
    const int h = detail::tier_homes(p.hbm.banks, p.hbm.stripe, static_cast<int>(nc));
    if (p.hbm_attach.empty()) {
      detail::require(h <= nc, id, "hbm.stripe", p.hbm.stripe,
                      ("such that the HBM homes (banks / stripe = " + std::to_string(h) +
                       ") are at most the compute chiplets")
                          .c_str());
    } else {
      detail::require(p.hbm_attach.size() >= static_cast<std::size_t>(h), id, "hbm_attach", p.hbm_attach.size(),
                      ("one compute chiplet per HBM home (hbm.banks / hbm.stripe = " + std::to_string(h) +
                       "), or empty for chiplet floor(j * chiplets / homes)")
                          .c_str());
      for (std::size_t j = 0; j < static_cast<std::size_t>(h); ++j) {
        const int c = p.hbm_attach[j];
        if (c < 0 || c >= nc) detail::require(false, id, "hbm_attach[" + std::to_string(j) + "]", c, "a compute chiplet id");
        for (std::size_t k = 0; k < j; ++k) {
          if (p.hbm_attach[k] == c) detail::require(false, id, "hbm_attach[" + std::to_string(j) + "]", c, "distinct from the other HBM homes' chiplets");
        }
      }
    }
  }
  const long long groups = static_cast<long long>(p.mesh_x / p.group_x) * (p.mesh_y / p.group_y);
  const long long banks = groups * p.sram.banks + p.hbm.banks + p.dram.banks;
  detail::require(banks <= p.max_banks, id, "sram.banks", banks,
                  ("such that all banks (SRAM groups × sram.banks + hbm.banks + dram.banks) <= max_banks = " +
                   std::to_string(p.max_banks))
                      .c_str());
}

/// Rate of one stream striped over `stripe` of a tier's `units` units that share `tier`'s
/// bandwidth: BW · w / N (w = min(stripe, units)) — the home rate of the file comment's table
/// (Table 1's 460 GB/s over 32 PCs, 16 of them per stack: 230 GB/s). Generic in the scalar
/// (autodiff: ∂/∂BW = w / N).
template <class T>
bandwidth<T> stripe_rate(const bandwidth<T>& tier, int units, int stripe) {
  const int w = stripe < units ? stripe : units;
  return tier * (T(w) / T(units));
}

/// Steady rate of a weight stream from a home of rate `home` over links of bandwidths `links`:
/// the weights are ready after max(S / BW_home, Σ_u S / B_u) (Eq. 10 against Eq. 7, latencies
/// aside), so the rate is min(BW_home, (Σ_u 1 / B_u)^−1); no link: BW_home. Generic in the scalar.
template <class T>
bandwidth<T> stream_rate(const bandwidth<T>& home, const std::vector<bandwidth<T>>& links) {
  if (links.empty()) return home;
  T inv = T(0);
  for (const auto& b : links) inv += T(1) / b.si();
  const T route = T(1) / inv;
  return route < home.si() ? bandwidth<T>::from_si(route) : home;
}

/// Kind of link, for energy accounting (Eq. 17: E_NoC vs E_D2D).
enum class link_kind { mesh_d2d, io_d2d };

/// A directed link u of E_hw.
struct hw_link {
  int from = 0;
  int to = 0;
  link_kind kind = link_kind::mesh_d2d;
  strata::bandwidth<> bandwidth{};     ///< B_u
  duration<> lambda{};         ///< λ_u = λ⁰_u + δ_u / v_u
  energy_per_data<> energy{};  ///< ε_u
};

/// A memory bank (t, home, b).
struct hw_bank {
  tier_kind tier = tier_kind::dram;
  /// SRAM: chiplet group; chiplet-local HBM: compute chiplet; HBM behind IO and DRAM: IO
  /// chiplet node id
  int home = 0;
  int index = 0;                ///< bank index within its tier and home
  data_size<> capacity{};       ///< Cap_{t,c,b}
  strata::bandwidth<> bandwidth{};      ///< BW_{t,c,b}
  duration<> latency{};         ///< Lat_{t,c,b}
  energy_per_data<> energy{};   ///< ε_{t,c,b}
};

/// The package graph. Links are stored per chiplet and direction; routes are generated on
/// demand (dimension-ordered), so memory is O(chiplets + links + banks).
class substrate {
 public:
  explicit substrate(substrate_params p = {}) : p_(std::move(p)) { build_<>(); }

  template <class = void>
  [[nodiscard]] const substrate_params& params() const { return p_; }
  /// Compute chiplets |C|.
  template <class = void>
  [[nodiscard]] int chiplets() const { return p_.mesh_x * p_.mesh_y; }
  /// IO/memory chiplets.
  template <class = void>
  [[nodiscard]] int io_chiplets() const { return static_cast<int>(p_.io_attach.size()); }
  /// All nodes (compute then IO).
  template <class = void>
  [[nodiscard]] int nodes() const { return chiplets() + io_chiplets(); }
  template <class = void>
  [[nodiscard]] const std::vector<hw_link>& links() const { return links_; }
  template <class = void>
  [[nodiscard]] const std::vector<hw_bank>& banks() const { return banks_; }
  /// Link id from `a` to `b`, −1 if not adjacent (or not node ids).
  template <class = void>
  [[nodiscard]] int link_between(int a, int b) const {
    const int nc = chiplets();
    if (a < 0 || b < 0 || a >= nodes() || b >= nodes() || a == b) return -1;
    if (a >= nc) return b == attach_(a) ? io_up_[static_cast<std::size_t>(a - nc)] : -1;
    if (b >= nc) return a == attach_(b) ? io_down_[static_cast<std::size_t>(b - nc)] : -1;
    const auto base = static_cast<std::size_t>(a) * 4;
    if (b == a + 1 && b % p_.mesh_x != 0) return mesh_out_[base + east];
    if (b == a - 1 && a % p_.mesh_x != 0) return mesh_out_[base + west];
    if (b == a + p_.mesh_x) return mesh_out_[base + north];
    if (b == a - p_.mesh_x) return mesh_out_[base + south];
    return -1;
  }
  /// Appends the links of the route from node `a` to node `b` to `out` (nothing when a == b):
  /// an IO chiplet enters and leaves the mesh at its attachment; XY between compute chiplets.
  /// Allocation-free when `out` has room: the critical path reuses one buffer.
  template <class = void>
  void append_route(int a, int b, std::vector<int>& out) const {
    if (a == b) return;
    const int mx = p_.mesh_x, nc = chiplets();
    const int ea = a >= nc ? attach_(a) : a;
    const int eb = b >= nc ? attach_(b) : b;
    const int ax = ea % mx, ay = ea / mx, bx = eb % mx, by = eb / mx;
    if (a >= nc) out.push_back(io_up_[static_cast<std::size_t>(a - nc)]);
    // X first, then Y: `l` walks the link slots of the chiplets passed (4 per chiplet).
    const int* l = mesh_out_.data() + static_cast<std::size_t>(ea) * 4;
    if (ax < bx) {
      for (int x = ax; x < bx; ++x, l += 4) out.push_back(l[east]);
    } else {
      for (int x = ax; x > bx; --x, l -= 4) out.push_back(l[west]);
    }
    if (ay < by) {
      for (int y = ay; y < by; ++y, l += 4 * static_cast<std::ptrdiff_t>(mx)) out.push_back(l[north]);
    } else {
      for (int y = ay; y > by; --y, l -= 4 * static_cast<std::ptrdiff_t>(mx)) out.push_back(l[south]);
    }
    if (b >= nc) out.push_back(io_down_[static_cast<std::size_t>(b - nc)]);
  }
  /// Links of the XY route from node `a` to node `b` (empty when a == b). Throws
  /// `config_error` for an id that is not a node.
  template <class = void>
  [[nodiscard]] std::vector<int> route(int a, int b) const {
    check_node_(a, "a");
    check_node_(b, "b");
    std::vector<int> out;
    out.reserve(static_cast<std::size_t>(hops(a, b)));
    append_route(a, b, out);
    return out;
  }
  /// Node a bank's data enters the package network from: its IO chiplet (pools), its chiplet
  /// (chiplet-local HBM) or the first chiplet of its group (SRAM).
  template <class = void>
  [[nodiscard]] int bank_node(int bank) const {
    const auto& b = banks_[static_cast<std::size_t>(bank)];
    if (b.tier != tier_kind::sram) return b.home;
    const int gw = p_.mesh_x / p_.group_x;
    return (b.home / gw) * p_.group_y * p_.mesh_x + (b.home % gw) * p_.group_x;
  }
  /// Appends the links from bank `bank` to compute chiplet `c`: none for SRAM (stacked on the
  /// group) and for chiplet-local HBM under `c`; else the route from the bank's node.
  template <class = void>
  void append_memory_path(int bank, int c, std::vector<int>& out) const {
    const auto& b = banks_[static_cast<std::size_t>(bank)];
    if (b.tier == tier_kind::sram) return;
    append_route(b.home, c, out);
  }
  /// Links from bank `bank` to compute chiplet `c` (see `append_memory_path`). Throws
  /// `config_error` for a bad bank or chiplet id.
  template <class = void>
  [[nodiscard]] std::vector<int> memory_path(int bank, int c) const {
    detail::require(bank >= 0 && static_cast<std::size_t>(bank) < banks_.size(), "strata.substrate", "bank", bank,
                    "a bank id");
    detail::require(c >= 0 && c < chiplets(), "strata.substrate", "chiplet", c, "a compute chiplet id");
    std::vector<int> out;
    append_memory_path(bank, c, out);
    return out;
  }
  /// SRAM chiplet group of compute chiplet `c`.
  template <class = void>
  [[nodiscard]] int group_of(int c) const {
    const int x = c % p_.mesh_x, y = c / p_.mesh_x;
    return (y / p_.group_y) * (p_.mesh_x / p_.group_x) + x / p_.group_x;
  }
  /// Whether chiplet `c` may execute from bank `bank` (B_{t,c}: SRAM of its own group; any
  /// HBM or DRAM bank — remote chiplet-local HBM over the mesh).
  template <class = void>
  [[nodiscard]] bool visible(int bank, int c) const {
    const auto& b = banks_[static_cast<std::size_t>(bank)];
    return b.tier != tier_kind::sram || b.home == group_of(c);
  }
  /// Ids of the banks of `tier` at `home` (group for SRAM, compute chiplet for chiplet-local
  /// HBM, IO node for pools; −1: all).
  template <class = void>
  [[nodiscard]] std::vector<int> banks_of(tier_kind tier, int home = -1) const {
    std::vector<int> out;
    for (std::size_t i = 0; i < banks_.size(); ++i) {
      if (banks_[i].tier == tier && (home < 0 || banks_[i].home == home)) out.push_back(static_cast<int>(i));
    }
    return out;
  }
  /// Homes of `tier` in the order a replica executing on chiplet `c` prefers them: SRAM, its
  /// group; chiplet-local HBM, `c` itself, then the other chiplets by hop distance (ties by
  /// id); pools behind the IO chiplets, the IO chiplets starting at `rotate` (round-robin
  /// spreading, as the single-copy baseline does). Homes without banks are left out.
  template <class = void>
  [[nodiscard]] std::vector<int> homes_for(tier_kind tier, int c, int rotate = 0) const {
    std::vector<int> out;
    visit_homes(tier, c, rotate, [&](int h) {
      out.push_back(h);
      return false;
    });
    return out;
  }
  /// `homes_for`'s homes in its order, without building the list: calls `f(home)` until it
  /// returns true; returns whether one did.
  template <class F>
  bool visit_homes(tier_kind tier, int c, int rotate, F&& f) const {
    if (tier == tier_kind::sram) return f(group_of(c));
    if (tier == tier_kind::hbm && p_.hbm_at == hbm_placement::chiplet_local) {
      const std::size_t n = hbm_homes_.size(), first = static_cast<std::size_t>(c) * n;
      for (std::size_t i = first; i < first + n; ++i) {
        if (f(hbm_order_[i])) return true;
      }
      return false;
    }
    const int nio = io_chiplets();
    for (int k = 0; k < nio; ++k) {
      const int h = chiplets() + ((rotate % nio + nio) % nio + k) % nio;
      if (has_banks_(tier, h) && f(h)) return true;
    }
    return false;
  }
  /// The banks of `tier` at `home` as {first bank id, count} (count 0: none): `banks_of(tier,
  /// home)` is the span [first, first + count).
  template <class = void>
  [[nodiscard]] std::pair<int, int> home_banks(tier_kind tier, int home) const {
    if (home < 0 || home >= nodes()) return {0, 0};
    return home_banks_[static_cast<std::size_t>(home) * 3 + static_cast<std::size_t>(tier)];
  }
  /// Bandwidth of the home `home` of `tier` (Σ of its banks, Table 1's units): the rate of one
  /// stream striped over it (0 when the home has no bank of the tier).
  template <class = void>
  [[nodiscard]] strata::bandwidth<> home_rate(tier_kind tier, int home) const {
    const auto [first, n] = home_banks(tier, home);
    strata::bandwidth<> bw{};
    for (int i = 0; i < n; ++i) bw += banks_[static_cast<std::size_t>(first) + static_cast<std::size_t>(i)].bandwidth;
    return bw;
  }
  /// Steady rate of a stream from the bank span [bank, bank + span) to compute chiplet `c` over
  /// its memory path (`stream_rate`): Σ span bandwidth against the path's links. Throws
  /// `config_error` for a bad bank, span or chiplet.
  template <class = void>
  [[nodiscard]] strata::bandwidth<> stream_rate_to(int bank, int span, int c) const {
    detail::require(span >= 1 && bank >= 0 && static_cast<std::size_t>(bank) + static_cast<std::size_t>(span) <= banks_.size(),
                    "strata.substrate", "span", span, "banks within the substrate");
    strata::bandwidth<> bw{};
    for (int i = 0; i < span; ++i) bw += banks_[static_cast<std::size_t>(bank) + static_cast<std::size_t>(i)].bandwidth;
    std::vector<strata::bandwidth<>> path;
    for (int u : memory_path(bank, c)) path.push_back(links_[static_cast<std::size_t>(u)].bandwidth);
    return stream_rate(bw, path);
  }
  /// Π_core in FLOP/s (multiply-add = 2).
  template <class = void>
  [[nodiscard]] op_rate<> core_throughput() const {
    return op_rate<>::from_si(2.0 * p_.core_macs_per_cycle * p_.clock.si());
  }
  /// Hop distance (links) between two nodes.
  template <class = void>
  [[nodiscard]] int hops(int a, int b) const {
    if (a == b) return 0;
    const int nc = chiplets();
    const int ea = a >= nc ? attach_(a) : a;
    const int eb = b >= nc ? attach_(b) : b;
    return (a >= nc ? 1 : 0) + (b >= nc ? 1 : 0) + std::abs(ea % p_.mesh_x - eb % p_.mesh_x) +
           std::abs(ea / p_.mesh_x - eb / p_.mesh_x);
  }

 private:
  // The constructor's body: the links, banks and home indexes of p_ (defined below the class). A
  // function template (of a scalar it does not use) so that strata::compiled can hold its one
  // instantiation: a consumer built with STRATA_COMPILED=1 compiles none of it.
  template <class T = double>
  void build_();
  static constexpr std::size_t east = 0, west = 1, north = 2, south = 3;  // +x, −x, +y, −y

  template <class = void>
  void check_node_(int n, const char* field) const {
    detail::require(n >= 0 && n < nodes(), "strata.substrate", field, n, "a node id (compute chiplets, then IO chiplets)");
  }
  template <class = void>
  [[nodiscard]] int attach_(int io_node) const { return p_.io_attach[static_cast<std::size_t>(io_node - chiplets())]; }
  template <class = void>
  [[nodiscard]] bool has_banks_(tier_kind t, int home) const {
    return home_banks_[static_cast<std::size_t>(home) * 3 + static_cast<std::size_t>(t)].second > 0;
  }
  /// The chiplet-local HBM homes of every chiplet, nearest first, ties by id: the homes in id
  /// order, placed by a counting sort on their hop distance (stable, so ties keep id order) —
  /// O(HBM homes + mesh_x + mesh_y) per chiplet, where sorting every chiplet id per chiplet was
  /// quadratic in chiplets.
  template <class = void>
  void order_hbm_homes_() {
    const int nc = chiplets();
    for (int h = 0; h < nc; ++h) {
      if (has_banks_(tier_kind::hbm, h)) hbm_homes_.push_back(h);
    }
    const std::size_t n = hbm_homes_.size();
    hbm_order_.resize(static_cast<std::size_t>(nc) * n);
    std::vector<int> start(static_cast<std::size_t>(p_.mesh_x + p_.mesh_y), 0);  // hops ≤ mesh_x + mesh_y − 2
    std::vector<int> dist(n), hx(n), hy(n);
    for (std::size_t i = 0; i < n; ++i) {
      hx[i] = hbm_homes_[i] % p_.mesh_x;
      hy[i] = hbm_homes_[i] / p_.mesh_x;
    }
    for (int c = 0; c < nc; ++c) {
      std::fill(start.begin(), start.end(), 0);
      const int cx = c % p_.mesh_x, cy = c / p_.mesh_x;
      for (std::size_t i = 0; i < n; ++i) {
        dist[i] = std::abs(hx[i] - cx) + std::abs(hy[i] - cy);  // hops(home, c)
        ++start[static_cast<std::size_t>(dist[i]) + 1];
      }
      for (std::size_t d = 1; d < start.size(); ++d) start[d] += start[d - 1];
      int* o = hbm_order_.data() + static_cast<std::size_t>(c) * n;
      for (std::size_t i = 0; i < n; ++i) o[start[static_cast<std::size_t>(dist[i])]++] = hbm_homes_[i];
    }
  }
  /// Chiplets beside the chiplet-local HBM homes (`substrate_params::hbm_attach`): the given
  /// ones, or the diagonal spread, or empty (id order, `add_blocks_`).
  template <class = void>
  [[nodiscard]] std::vector<int> hbm_attach_(int homes) const {
    if (p_.hbm.stripe == 0) return {};
    if (!p_.hbm_attach.empty()) return {p_.hbm_attach.begin(), p_.hbm_attach.begin() + homes};
    if (homes > std::min(p_.mesh_x, p_.mesh_y)) return {};
    std::vector<int> out;
    out.reserve(static_cast<std::size_t>(homes));
    for (int j = 0; j < homes; ++j) {
      out.push_back((j + 1) * p_.mesh_y / (homes + 1) * p_.mesh_x + (j + 1) * p_.mesh_x / (homes + 1));
    }
    return out;
  }
  template <class = void>
  void add_banks_(tier_kind t, const chiplet_tier_spec& s, int n, int home) {
    auto& r = tier_range_[static_cast<std::size_t>(t)];
    if (r.first == r.second) r.first = r.second = static_cast<int>(banks_.size());
    for (int i = 0; i < n; ++i) {
      banks_.push_back({t, home, i, s.capacity / double(n), s.bandwidth / double(n), s.latency, s.energy});
    }
    r.second = static_cast<int>(banks_.size());
  }
  /// Banks of a package-wide tier over the `count` nodes starting at node `first`, so one home's
  /// banks form a span. Stripe 0: bank i on node first + ⌊i·count / banks⌋. Stripe w: bank i in
  /// home j = ⌊i / w⌋, on node `attach[j]` when given, else first + ⌊j·count / homes⌋.
  template <class = void>
  void add_blocks_(tier_kind t, const chiplet_tier_spec& s, int first, int count, const std::vector<int>& attach = {}) {
    auto& r = tier_range_[static_cast<std::size_t>(t)];
    r.first = r.second = static_cast<int>(banks_.size());
    const int w = std::min(s.stripe, s.banks);
    const int homes = detail::tier_homes(s.banks, s.stripe, count);
    int index = 0, last = -1;
    for (int i = 0; i < s.banks; ++i) {
      int node = 0;
      if (w == 0) {
        node = first + static_cast<int>(static_cast<long long>(i) * count / s.banks);
      } else {
        const int j = i / w;
        node = attach.empty() ? first + static_cast<int>(static_cast<long long>(j) * count / homes)
                              : attach[static_cast<std::size_t>(j)];
      }
      index = node == last ? index + 1 : 0;
      last = node;
      banks_.push_back({t, node, index, s.capacity / double(s.banks), s.bandwidth / double(s.banks), s.latency, s.energy});
    }
    r.second = static_cast<int>(banks_.size());
  }

  substrate_params p_;
  std::vector<hw_link> links_;
  std::vector<int> mesh_out_;  // link id per (chiplet, direction), −1 at the mesh edge
  std::vector<int> io_up_;     // IO chiplet → attachment
  std::vector<int> io_down_;   // attachment → IO chiplet
  std::array<std::pair<int, int>, 3> tier_range_{};  // [first, last) bank ids per tier
  std::vector<hw_bank> banks_;
  std::vector<std::pair<int, int>> home_banks_;  // {first bank, count} per (node, tier)
  std::vector<int> hbm_homes_;                   // chiplets with chiplet-local HBM banks, by id
  std::vector<int> hbm_order_;                   // hbm_homes_ per chiplet, nearest first: chiplet c at c · |hbm_homes_|
};

template <class T>
void substrate::build_() {
  validate(p_);
  const int nc = chiplets();
  const double cycle_s = 1.0 / p_.clock.si();
  links_.reserve(4 * static_cast<std::size_t>(nc) + 2 * static_cast<std::size_t>(io_chiplets()));
  mesh_out_.assign(static_cast<std::size_t>(nc) * 4, -1);
  io_up_.assign(static_cast<std::size_t>(io_chiplets()), -1);
  io_down_.assign(static_cast<std::size_t>(io_chiplets()), -1);
  auto add = [&](int a, int b, link_kind k, const link_spec& s) {
    hw_link l;
    l.from = a;
    l.to = b;
    l.kind = k;
    l.bandwidth = s.bandwidth;
    l.lambda = duration<>::from_si((p_.router_cycles + p_.link_cycles) * cycle_s) + s.phy_latency +
               s.distance / s.signal_speed;
    l.energy = s.energy;
    links_.push_back(l);
    return static_cast<int>(links_.size()) - 1;
  };
  for (int y = 0; y < p_.mesh_y; ++y) {
    for (int x = 0; x < p_.mesh_x; ++x) {
      const int c = y * p_.mesh_x + x;
      if (x + 1 < p_.mesh_x) {
        mesh_out_[static_cast<std::size_t>(c) * 4 + east] = add(c, c + 1, link_kind::mesh_d2d, p_.d2d);
        mesh_out_[static_cast<std::size_t>(c + 1) * 4 + west] = add(c + 1, c, link_kind::mesh_d2d, p_.d2d);
      }
      if (y + 1 < p_.mesh_y) {
        mesh_out_[static_cast<std::size_t>(c) * 4 + north] = add(c, c + p_.mesh_x, link_kind::mesh_d2d, p_.d2d);
        mesh_out_[static_cast<std::size_t>(c + p_.mesh_x) * 4 + south] =
            add(c + p_.mesh_x, c, link_kind::mesh_d2d, p_.d2d);
      }
    }
  }
  for (int i = 0; i < io_chiplets(); ++i) {
    const int at = p_.io_attach[static_cast<std::size_t>(i)];
    io_up_[static_cast<std::size_t>(i)] = add(nc + i, at, link_kind::io_d2d, p_.io_link);
    io_down_[static_cast<std::size_t>(i)] = add(at, nc + i, link_kind::io_d2d, p_.io_link);
  }
  // Banks: SRAM per group, then HBM (per chiplet or behind the IO chiplets), then DRAM.
  const int groups = (p_.mesh_x / p_.group_x) * (p_.mesh_y / p_.group_y);
  banks_.reserve(static_cast<std::size_t>(groups) * static_cast<std::size_t>(p_.sram.banks) +
                 static_cast<std::size_t>(p_.hbm.banks) + static_cast<std::size_t>(p_.dram.banks));
  for (int g = 0; g < groups; ++g) add_banks_(tier_kind::sram, p_.sram, p_.sram.banks, g);
  if (p_.hbm_at == hbm_placement::chiplet_local) {
    add_blocks_(tier_kind::hbm, p_.hbm, 0, nc, hbm_attach_(detail::tier_homes(p_.hbm.banks, p_.hbm.stripe, nc)));
  } else {
    add_blocks_(tier_kind::hbm, p_.hbm, nc, io_chiplets());
  }
  add_blocks_(tier_kind::dram, p_.dram, nc, io_chiplets());
  // One home's banks of a tier are contiguous (add_banks_, add_blocks_): index them, and the
  // chiplet-local HBM homes of every chiplet by hop distance, once.
  home_banks_.assign(static_cast<std::size_t>(nodes()) * 3, {0, 0});
  for (std::size_t i = 0; i < banks_.size(); ++i) {
    auto& hb = home_banks_[static_cast<std::size_t>(banks_[i].home) * 3 + static_cast<std::size_t>(banks_[i].tier)];
    if (hb.second == 0) hb.first = static_cast<int>(i);
    ++hb.second;
  }
  if (p_.hbm_at == hbm_placement::chiplet_local) order_hbm_homes_();
}

}  // namespace v0
}  // namespace strata

// strata::compiled (STRATA_BUILD_COMPILED, src/compiled.cpp) holds the instantiations below;
// STRATA_COMPILED=1, which that target puts on its users, keeps their translation units from
// instantiating them again. Without it this header is unchanged (header-only).
#if defined(STRATA_COMPILED) && STRATA_COMPILED
namespace strata {
inline namespace v0 {
extern template void detail::validate_substrate<double>(const substrate_params&);
extern template void substrate::build_<double>();
}  // namespace v0
}  // namespace strata
#endif
