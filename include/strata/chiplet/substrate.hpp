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
/// Tiers and banks (φ(r) = (tier, chiplet, bank)), choices where Table 1 leaves geometry open:
/// - SRAM: the mesh is cut into chiplet groups of `group_x × group_y` (default 2 × 2 quadrants);
///   each group has a stacked near-tier of `sram.capacity` in `sram.banks` banks sharing
///   `sram.bandwidth`. Only chiplets of the group see those banks; access is vertical (no mesh
///   link).
/// - HBM and DRAM: one shared pool each, banks (pseudo-channels / channels) split into equal
///   contiguous blocks over the IO chiplets; any chiplet reaches them over the D2D path IO chiplet → attachment
///   chiplet → XY → target.
/// A replica larger than one bank is striped over consecutive banks of its tier and home (a
/// span); a span of one bank is the paper's single-bank placement.

#include <array>        // std::array
#include <cstddef>      // std::size_t
#include <span>         // std::span
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

/// One memory tier of the package.
struct chiplet_tier_spec {
  data_size<> capacity{};         ///< per SRAM group, or the whole HBM / DRAM pool
  int banks = 1;                  ///< banks per SRAM group, or in the pool
  strata::bandwidth<> bandwidth{};        ///< aggregate over those banks
  duration<> latency{};           ///< fixed access latency Lat_{t,c,b}
  energy_per_data<> energy{};     ///< ε_{t,c,b}

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("capacity", s.capacity);
    v("banks", s.banks);
    v("bandwidth", s.bandwidth);
    v("latency", s.latency);
    v("energy", s.energy);
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
  /// Stacked SRAM near-tier per chiplet group. [HCRMap Table 1: 64 MB, 16 banks, 2.0 TB/s,
  /// 1.25 pJ/B; latency assumed 2 ns (a few cycles of a stacked macro)]
  chiplet_tier_spec sram{units::MB(64.0), 16, units::TBps(2.0), units::ns(2.0), units::pJ_per_B(1.25)};
  /// HBM pool. [HCRMap Table 1: 8 GB HBM2, 32 pseudo-channels, 460 GB/s, 31.8 pJ/B; latency
  /// assumed 50 ns: HBM2 row miss tRCD + tCL ≈ 28 ns (JESD235) plus controller]
  chiplet_tier_spec hbm{units::GB(8.0), 32, units::GBps(460.0), units::ns(50.0), units::pJ_per_B(31.8)};
  /// Shared DRAM pool. [HCRMap Table 1: 32 GB DDR5, 8 × DDR5-6400 channels, 409.6 GB/s,
  /// 160 pJ/B; latency assumed 70 ns: DDR5-6400B tRCD + tCL = 32.5 ns (JESD79-5) plus
  /// controller and PHY]
  chiplet_tier_spec dram{units::GB(32.0), 8, units::GBps(409.6), units::ns(70.0), units::pJ_per_B(160.0)};

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
  }
  friend bool operator==(const substrate_params&, const substrate_params&) = default;
};

namespace detail {
inline void validate_link(const link_spec& l, const std::string& f) {
  require_positive(l.bandwidth.si(), "strata.substrate", f + ".bandwidth", "B/s");
  require_nonnegative(l.phy_latency.si(), "strata.substrate", f + ".phy_latency", "s");
  require_nonnegative(l.distance.si(), "strata.substrate", f + ".distance", "m");
  require_positive(l.signal_speed.si(), "strata.substrate", f + ".signal_speed", "m/s");
  require_nonnegative(l.energy.si(), "strata.substrate", f + ".energy", "J/B");
}
inline void validate_tier(const chiplet_tier_spec& t, const std::string& f) {
  require_positive(t.capacity.si(), "strata.substrate", f + ".capacity", "B");
  require(t.banks >= 1, "strata.substrate", f + ".banks", t.banks, ">= 1");
  require_positive(t.bandwidth.si(), "strata.substrate", f + ".bandwidth", "B/s");
  require_nonnegative(t.latency.si(), "strata.substrate", f + ".latency", "s");
  require_nonnegative(t.energy.si(), "strata.substrate", f + ".energy", "J/B");
}
}  // namespace detail

/// Checks the parameters; throws `config_error` naming the field.
inline void validate(const substrate_params& p) {
  constexpr const char* id = "strata.substrate";
  detail::require(p.mesh_x >= 1 && p.mesh_x <= 64, id, "mesh_x", p.mesh_x, "in [1, 64]");
  detail::require(p.mesh_y >= 1 && p.mesh_y <= 64, id, "mesh_y", p.mesh_y, "in [1, 64]");
  detail::require(p.cores_per_chiplet >= 1, id, "cores_per_chiplet", p.cores_per_chiplet, ">= 1");
  detail::require_positive(p.clock.si(), id, "clock", "Hz");
  detail::require(p.core_macs_per_cycle >= 1, id, "core_macs_per_cycle", p.core_macs_per_cycle, ">= 1");
  detail::require_positive(p.chiplet_buffer.si(), id, "chiplet_buffer", "B");
  detail::require(p.flit_bits >= 8, id, "flit_bits", p.flit_bits, ">= 8");
  detail::require(p.router_cycles >= 0, id, "router_cycles", p.router_cycles, ">= 0");
  detail::require(p.link_cycles >= 0, id, "link_cycles", p.link_cycles, ">= 0");
  detail::validate_link(p.d2d, "d2d");
  detail::validate_link(p.io_link, "io_link");
  detail::require(!p.io_attach.empty(), id, "io_attach", p.io_attach.size(), "non-empty");
  for (std::size_t i = 0; i < p.io_attach.size(); ++i) {
    detail::require(p.io_attach[i] >= 0 && p.io_attach[i] < p.mesh_x * p.mesh_y, id,
                    "io_attach[" + std::to_string(i) + "]", p.io_attach[i], "a compute chiplet id");
  }
  detail::require(p.group_x >= 1 && p.mesh_x % p.group_x == 0, id, "group_x", p.group_x, "a divisor of mesh_x");
  detail::require(p.group_y >= 1 && p.mesh_y % p.group_y == 0, id, "group_y", p.group_y, "a divisor of mesh_y");
  detail::validate_tier(p.sram, "sram");
  detail::validate_tier(p.hbm, "hbm");
  detail::validate_tier(p.dram, "dram");
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
  int home = 0;                 ///< SRAM: chiplet group; HBM/DRAM: IO chiplet node id
  int index = 0;                ///< bank index within its tier and home
  data_size<> capacity{};       ///< Cap_{t,c,b}
  strata::bandwidth<> bandwidth{};      ///< BW_{t,c,b}
  duration<> latency{};         ///< Lat_{t,c,b}
  energy_per_data<> energy{};   ///< ε_{t,c,b}
};

/// The package graph with precomputed routes.
class substrate {
 public:
  explicit substrate(substrate_params p = {}) : p_(std::move(p)) {
    validate(p_);
    const int nc = chiplets();
    const int nn = nodes();
    link_of_.assign(static_cast<std::size_t>(nn) * nn, -1);
    const double cycle_s = 1.0 / p_.clock.si();
    auto add = [&](int a, int b, link_kind k, const link_spec& s) {
      hw_link l;
      l.from = a;
      l.to = b;
      l.kind = k;
      l.bandwidth = s.bandwidth;
      l.lambda = duration<>::from_si((p_.router_cycles + p_.link_cycles) * cycle_s) + s.phy_latency +
                 s.distance / s.signal_speed;
      l.energy = s.energy;
      link_of_[static_cast<std::size_t>(a) * nn + b] = static_cast<int>(links_.size());
      links_.push_back(l);
    };
    for (int y = 0; y < p_.mesh_y; ++y) {
      for (int x = 0; x < p_.mesh_x; ++x) {
        const int c = y * p_.mesh_x + x;
        if (x + 1 < p_.mesh_x) {
          add(c, c + 1, link_kind::mesh_d2d, p_.d2d);
          add(c + 1, c, link_kind::mesh_d2d, p_.d2d);
        }
        if (y + 1 < p_.mesh_y) {
          add(c, c + p_.mesh_x, link_kind::mesh_d2d, p_.d2d);
          add(c + p_.mesh_x, c, link_kind::mesh_d2d, p_.d2d);
        }
      }
    }
    for (int i = 0; i < io_chiplets(); ++i) {
      add(nc + i, p_.io_attach[static_cast<std::size_t>(i)], link_kind::io_d2d, p_.io_link);
      add(p_.io_attach[static_cast<std::size_t>(i)], nc + i, link_kind::io_d2d, p_.io_link);
    }
    // Routes between every pair of nodes, flattened.
    route_begin_.assign(static_cast<std::size_t>(nn) * nn + 1, 0);
    for (int a = 0; a < nn; ++a) {
      for (int b = 0; b < nn; ++b) {
        route_begin_[static_cast<std::size_t>(a) * nn + b] = static_cast<int>(route_links_.size());
        append_route_(a, b);
      }
    }
    route_begin_.back() = static_cast<int>(route_links_.size());
    // Banks: SRAM per group, then HBM and DRAM round-robin over IO chiplets.
    const int groups = (p_.mesh_x / p_.group_x) * (p_.mesh_y / p_.group_y);
    for (int g = 0; g < groups; ++g) add_banks_(tier_kind::sram, p_.sram, p_.sram.banks, g);
    add_pool_(tier_kind::hbm, p_.hbm);
    add_pool_(tier_kind::dram, p_.dram);
  }

  [[nodiscard]] const substrate_params& params() const { return p_; }
  /// Compute chiplets |C|.
  [[nodiscard]] int chiplets() const { return p_.mesh_x * p_.mesh_y; }
  /// IO/memory chiplets.
  [[nodiscard]] int io_chiplets() const { return static_cast<int>(p_.io_attach.size()); }
  /// All nodes (compute then IO).
  [[nodiscard]] int nodes() const { return chiplets() + io_chiplets(); }
  [[nodiscard]] const std::vector<hw_link>& links() const { return links_; }
  [[nodiscard]] const std::vector<hw_bank>& banks() const { return banks_; }
  /// Link id from `a` to `b`, −1 if not adjacent.
  [[nodiscard]] int link_between(int a, int b) const {
    return link_of_[static_cast<std::size_t>(a) * nodes() + b];
  }
  /// Links of the XY route from node `a` to node `b` (empty when a == b).
  [[nodiscard]] std::span<const int> route(int a, int b) const {
    const auto i = static_cast<std::size_t>(a) * nodes() + b;
    return {route_links_.data() + route_begin_[i], static_cast<std::size_t>(route_begin_[i + 1] - route_begin_[i])};
  }
  /// Links from bank `bank` to compute chiplet `c` (empty for SRAM: stacked on the group).
  [[nodiscard]] std::span<const int> memory_path(int bank, int c) const {
    const auto& b = banks_[static_cast<std::size_t>(bank)];
    if (b.tier == tier_kind::sram) return {};
    return route(b.home, c);
  }
  /// SRAM chiplet group of compute chiplet `c`.
  [[nodiscard]] int group_of(int c) const {
    const int x = c % p_.mesh_x, y = c / p_.mesh_x;
    return (y / p_.group_y) * (p_.mesh_x / p_.group_x) + x / p_.group_x;
  }
  /// Whether chiplet `c` may execute from bank `bank` (B_{t,c}: SRAM of its own group; any
  /// HBM or DRAM bank).
  [[nodiscard]] bool visible(int bank, int c) const {
    const auto& b = banks_[static_cast<std::size_t>(bank)];
    return b.tier != tier_kind::sram || b.home == group_of(c);
  }
  /// Ids of the banks of `tier` at `home` (group for SRAM, IO node for HBM/DRAM; −1: all).
  [[nodiscard]] std::vector<int> banks_of(tier_kind tier, int home = -1) const {
    std::vector<int> out;
    for (std::size_t i = 0; i < banks_.size(); ++i) {
      if (banks_[i].tier == tier && (home < 0 || banks_[i].home == home)) out.push_back(static_cast<int>(i));
    }
    return out;
  }
  /// Π_core in FLOP/s (multiply-add = 2).
  [[nodiscard]] op_rate<> core_throughput() const {
    return op_rate<>::from_si(2.0 * p_.core_macs_per_cycle * p_.clock.si());
  }
  /// Hop distance (links) between two nodes.
  [[nodiscard]] int hops(int a, int b) const { return static_cast<int>(route(a, b).size()); }

 private:
  void append_xy_(int a, int b) {
    int x = a % p_.mesh_x, y = a / p_.mesh_x;
    const int bx = b % p_.mesh_x, by = b / p_.mesh_x;
    int cur = a;
    while (x != bx) {
      x += bx > x ? 1 : -1;
      const int nxt = y * p_.mesh_x + x;
      route_links_.push_back(link_between(cur, nxt));
      cur = nxt;
    }
    while (y != by) {
      y += by > y ? 1 : -1;
      const int nxt = y * p_.mesh_x + x;
      route_links_.push_back(link_between(cur, nxt));
      cur = nxt;
    }
  }
  void append_route_(int a, int b) {
    if (a == b) return;
    const int nc = chiplets();
    const int ea = a >= nc ? p_.io_attach[static_cast<std::size_t>(a - nc)] : a;
    const int eb = b >= nc ? p_.io_attach[static_cast<std::size_t>(b - nc)] : b;
    if (a >= nc) route_links_.push_back(link_between(a, ea));
    append_xy_(ea, eb);
    if (b >= nc) route_links_.push_back(link_between(eb, b));
  }
  void add_banks_(tier_kind t, const chiplet_tier_spec& s, int n, int home) {
    for (int i = 0; i < n; ++i) {
      banks_.push_back({t, home, i, s.capacity / double(n), s.bandwidth / double(n), s.latency, s.energy});
    }
  }
  void add_pool_(tier_kind t, const chiplet_tier_spec& s) {
    const int nio = io_chiplets();
    std::vector<int> per(static_cast<std::size_t>(nio), 0);
    // Contiguous blocks, so the banks of one IO chiplet form a span.
    for (int i = 0; i < s.banks; ++i) {
      const int io = static_cast<int>(static_cast<long long>(i) * nio / s.banks);
      banks_.push_back({t, chiplets() + io, per[static_cast<std::size_t>(io)]++, s.capacity / double(s.banks),
                        s.bandwidth / double(s.banks), s.latency, s.energy});
    }
  }

  substrate_params p_;
  std::vector<hw_link> links_;
  std::vector<int> link_of_;
  std::vector<int> route_begin_;
  std::vector<int> route_links_;
  std::vector<hw_bank> banks_;
};

}  // namespace v0
}  // namespace strata
