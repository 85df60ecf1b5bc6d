// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The Stratum near-memory processor as the operator mapping sees it (Stratum §3.2, Fig. 7).
///
/// Hierarchy. A chip's logic die holds P processing units (PU) on a bidirectional ring; each PU
/// owns one Mono3D channel of `pes_per_pu` banks and holds one processing element (PE) per bank.
/// A PE is a tensor core of n k-tap dot-product engines (n·k MACs per cycle), a matrix register
/// file, a double-buffered psum memory, a local memory controller with the tiering table (row →
/// tier → tRCD) and a row-swap buffer. A PU adds a shared memory, a special function engine
/// (SIMD FMA lanes: Softmax, SiLU, GeLU from primitives), a ring router whose aggregator adds
/// passing data in place, and a reduction tree over its PEs' partial sums.
///
/// Everything here is derived from the coupled chip (`device/stratum_chip.hpp`), so a change of
/// layers, tiers, banks or MACs flows through:
///   P = banks / pes_per_pu,  MACs per PE = N_mac / banks,  k = MACs per PE / n
///   PE peak = 2 · n · k · f · η                                       [FLOP/s]
///   bank bandwidth in tier i = BW_i / banks                           (Stratum §6.1)
///   ring link = flit · f per direction,  hop = hop_cycles / f
/// so the default chip (256 banks, 64 000 MACs, 1 GHz) has 32 PUs of 8 PEs, 250 MACs per PE
/// (n = 5 engines of k = 50 taps) and 128 TFLOPS (Stratum Table 3).
///
/// Ring collectives on a bidirectional ring of p nodes, link bandwidth b per direction, hop
/// latency λ, h = ⌈(p − 1)/2⌉ (the farthest node either way):
///   all-gather of D bytes (each node holds D/p):  t = h · (D/p / b + λ)
///   reduce-scatter of D bytes of partials:        t = h · (D/p / b + λ)  (aggregator adds in
///                                                  place at line rate)
///   scalar all-reduce (one flit):                 t = h · (flit / b + λ)
/// Each node's chunk travels both ways round the ring, h hops each way, one chunk per link per
/// step; the link bytes are p · 2h · D/p ≈ (p − 1)·D, each charged `ring_energy` per byte and hop.
///
/// `nmp_device` is the processor as data (tiers, counts, rates and energies), so the mapping of
/// `expert_mapping.hpp` and `attention_mapping.hpp` runs unchanged on a Mono3D chip, on the same
/// chip without tiering (`without_tiering`: every row at the slowest tier's timing), and on an
/// HBM-based NMP (`baseline/hbm_nmp.hpp`).
///
/// \code
/// strata::nmp_params<> p;                  // Table 3 chip, 1024 layers
/// auto d = strata::evaluate(p);            // 32 PUs, 8 PEs each, 8 tiers
/// auto t = strata::ring_reduce_scatter_time(d, strata::units::KiB(512.0), d.n_pu);
/// \endcode

#include <cstddef>  // std::size_t
#include <string>   // std::string
#include <vector>   // std::vector

#include "strata/core/error.hpp"
#include "strata/core/scalar.hpp"
#include "strata/core/tier.hpp"
#include "strata/core/units.hpp"
#include "strata/device/dram_energy.hpp"
#include "strata/device/dram_refresh.hpp"
#include "strata/device/stratum_chip.hpp"
#include "strata/tech/bounds.hpp"

namespace strata {
inline namespace v0 {

/// The near-memory processor of one memory chip (or stack), as the mapping uses it.
template <class T = double>
struct nmp_device {
  std::string name;                       ///< "mono3d", "mono3d-no-tiering", "hbm3-nmp"
  std::vector<memory_tier<T>> tiers;      ///< per chip, fastest first; bandwidth over all banks
  dram_access_energy<T> access{};         ///< per-bit parts of an access (array → logic die)
  int n_pu = 32;                          ///< PUs (channels) per chip
  int pes_per_pu = 8;                     ///< PEs (banks) per PU
  int dot_engines = 5;                    ///< n: dot-product engines per PE
  int taps = 50;                          ///< k: taps per engine
  strata::frequency<T> clock{};           ///< logic clock
  T compute_efficiency = T(1);            ///< achieved fraction of the tensor-core peak
  strata::energy<T> e_mac{};              ///< energy per FP16 MAC
  int sfe_lanes = 16;                     ///< FMA lanes of a PU's special function engine
  int reduction_lanes = 16;               ///< lanes of a PU's reduction tree
  strata::data_size<T> ring_flit{};       ///< ring flit = link width per direction per cycle
  int hop_cycles = 3;                     ///< router + link cycles per ring hop
  strata::energy_per_data<T> ring_energy{};  ///< per byte per hop
  strata::energy_per_data<T> sram_energy{};  ///< per byte of register-file / psum / shared memory
  strata::power<T> static_power{};        ///< leakage and DRAM background, per chip
  strata::power<T> refresh_power{};       ///< DRAM refresh, per chip (`with_refresh`; 0 before it)
  strata::bandwidth<T> phy_bandwidth{};   ///< chip ↔ xPU over the interposer, per chip
  strata::energy_per_data<T> phy_energy{};  ///< per byte over the interposer PHY
  strata::duration<T> phy_latency{};      ///< one xPU ↔ chip transfer's fixed latency
  bool feasible = true;                   ///< the chip's own budgets hold (logic-die Eq. 1–2)
  std::string reason;                     ///< the chip's verdict

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("name", s.name);
    v("tiers", s.tiers);
    v("access", s.access);
    v("n_pu", s.n_pu);
    v("pes_per_pu", s.pes_per_pu);
    v("dot_engines", s.dot_engines);
    v("taps", s.taps);
    v("clock", s.clock);
    v("compute_efficiency", s.compute_efficiency);
    v("e_mac", s.e_mac);
    v("sfe_lanes", s.sfe_lanes);
    v("reduction_lanes", s.reduction_lanes);
    v("ring_flit", s.ring_flit);
    v("hop_cycles", s.hop_cycles);
    v("ring_energy", s.ring_energy);
    v("sram_energy", s.sram_energy);
    v("static_power", s.static_power);
    v("refresh_power", s.refresh_power);
    v("phy_bandwidth", s.phy_bandwidth);
    v("phy_energy", s.phy_energy);
    v("phy_latency", s.phy_latency);
    v("feasible", s.feasible);
    v("reason", s.reason);
  }

  /// Banks (= PEs) per chip.
  [[nodiscard]] int banks() const { return n_pu * pes_per_pu; }
  /// MACs per cycle of one PE (n · k).
  [[nodiscard]] int macs_per_pe() const { return dot_engines * taps; }
  /// Bytes the chip holds (sum over tiers).
  [[nodiscard]] strata::data_size<T> capacity() const {
    strata::data_size<T> c{};
    for (const auto& t : tiers) c += t.capacity;
    return c;
  }
  /// Peak FLOP/s of one PE at the achieved efficiency: 2 · n · k · f · η.
  [[nodiscard]] strata::op_rate<T> pe_peak() const {
    return strata::op_rate<T>::from_si(T(2.0 * macs_per_pe()) * clock.si() * compute_efficiency);
  }
  /// Peak FLOP/s of the chip at the achieved efficiency.
  [[nodiscard]] strata::op_rate<T> chip_peak() const { return pe_peak() * T(double(banks())); }
  /// Ring link bandwidth per direction: flit · f.
  [[nodiscard]] strata::bandwidth<T> ring_bandwidth() const {
    return strata::bandwidth<T>::from_si(ring_flit.si() * clock.si());
  }
  /// One ring hop: hop_cycles / f.
  [[nodiscard]] strata::duration<T> hop_latency() const {
    return strata::duration<T>::from_si(T(double(hop_cycles)) / clock.si());
  }
  /// Bandwidth of one bank in tier i: BW_i / banks.
  [[nodiscard]] strata::bandwidth<T> bank_bandwidth(std::size_t tier) const {
    return tiers[tier].bandwidth / T(double(banks()));
  }
};

/// Checks a device: tiers valid and non-empty, counts ≥ 1 and bounded, rates and energies
/// finite and non-negative (positive where they divide). Throws `config_error` naming the field.
template <class T>
void validate(const nmp_device<T>& d) {
  constexpr const char* m = "strata.nmp";
  detail::require(!d.tiers.empty() && d.tiers.size() <= 4096, m, "tiers", d.tiers.size(),
                  "1 to 4096 tiers");
  for (const auto& t : d.tiers) validate(t);
  validate(d.access, "access");
  detail::require_count(d.n_pu, 1, 1 << 16, m, "n_pu");
  detail::require_count(d.pes_per_pu, 1, 1 << 16, m, "pes_per_pu");
  detail::require_count(d.dot_engines, 1, 1 << 16, m, "dot_engines");
  detail::require_count(d.taps, 1, 1 << 16, m, "taps");
  detail::require_range(d.clock.si(), 1e6, 1e11, m, "clock", "Hz");
  detail::require_range(d.compute_efficiency, 1e-3, 1.0, m, "compute_efficiency", "");
  detail::require_range(d.e_mac.si(), 0.0, 1e-9, m, "e_mac", "J");
  detail::require_count(d.sfe_lanes, 1, 1 << 16, m, "sfe_lanes");
  detail::require_count(d.reduction_lanes, 1, 1 << 16, m, "reduction_lanes");
  detail::require_range(d.ring_flit.si(), 1.0, 1e6, m, "ring_flit", "B");
  detail::require_count(d.hop_cycles, 1, 1 << 16, m, "hop_cycles");
  const double e_hi = 1e-9;  // 1 nJ/B: far above any on-package transfer
  detail::require_range(d.ring_energy.si(), 0.0, e_hi, m, "ring_energy", "J/B");
  detail::require_range(d.sram_energy.si(), 0.0, e_hi, m, "sram_energy", "J/B");
  detail::require_range(d.static_power.si(), 0.0, 1e4, m, "static_power", "W");
  detail::require_range(d.refresh_power.si(), 0.0, 1e4, m, "refresh_power", "W");
  detail::require_range(d.phy_bandwidth.si(), 1e6, 1e16, m, "phy_bandwidth", "B/s");
  detail::require_range(d.phy_energy.si(), 0.0, e_hi, m, "phy_energy", "J/B");
  detail::require_range(d.phy_latency.si(), 0.0, 1e-3, m, "phy_latency", "s");
}

/// Parameters of the Stratum NMP beyond the chip itself: the PE's engine split, the ring hop,
/// and the energies and powers the logic-die budget (Eq. 1) gives only as peak totals.
template <class T = double>
struct nmp_params {
  /// The coupled Mono3D + logic-die chip (1024 layers, Table 3 processor).
  stratum_chip_params<T> chip{};
  /// Dot-product engines per PE, n. [Design choice: 250 MACs per PE (64 000 / 256 banks) as
  /// n = 5 engines of k = 50 taps; k weights per cycle at 1 GHz are 100 GB/s, between a bank's
  /// 74 GB/s (slowest tier) and 119 GB/s (fastest tier), so a PE can consume its bank's stream
  /// with n tokens in flight (Stratum §3.2)]
  int dot_engines = 5;
  /// Cycles per ring hop: router pipeline + link. [Design choice after HCRMap Table 1's NoC:
  /// 2-cycle routers and 1-cycle links]
  int hop_cycles = 3;
  /// Achieved fraction of the tensor-core peak on the mapped GEMMs (tile edges, psum spills,
  /// pipeline bubbles). Calibrated so that stratum.system.olmoe.decode_speedup and
  /// stratum.system.mixtral.decode_speedup hold together (report/stratum_system_rows.hpp).
  T compute_efficiency = T(1.0);
  /// Energy per byte of PE/PU SRAM (matrix register file, psum memory, shared memory). [Derived:
  /// Horowitz, "Computing's energy problem", ISSCC 2014, 45 nm: 10 pJ per 64-bit read of an
  /// 8 KB SRAM (0.156 pJ/b), scaled to 7 nm by the FP16-MAC energy ratio 0.50 / 1.5 pJ
  /// (Jouppi et al., ISCA 2021 Table 2 at 7 nm vs Horowitz at 45 nm): 0.052 pJ/b]
  strata::energy_per_data<T> sram_energy = units::pJ_per_bit(0.052);
  /// Energy per byte per ring hop. [Derived: a 1 mm hop (32 PUs round the ≈ 33 mm perimeter
  /// path of an 11 mm die) of minimum-pitch wire, 0.2 fF/µm (ITRS 2013 Interconnect), at
  /// V_logic = 0.7 V with data activity 1/2: 0.2 fF/µm · 1000 µm · 0.49 V² · 0.5 = 0.049 pJ/b]
  strata::energy_per_data<T> ring_energy = units::pJ_per_bit(0.049);
  /// Static power per chip: logic leakage and DRAM background. [Assumed: leakage 5 % of the
  /// 42.67 W peak of Table 3 (7 nm FinFET at nominal VDD) = 2.13 W, plus DRAM standby of 32 GB as
  /// sixteen 16 Gb DDR5-class dies at IDD2N ≈ 60 mA × 1.1 V (JESD79-5 class figures) = 1.06 W]
  strata::power<T> static_power = units::W(3.19);
  /// Chip ↔ xPU bandwidth over the interposer: an HBM3-like PHY. [Stratum §2: external bandwidth
  /// stays HBM-like; JESD238 HBM3: 1024 bits × 6.4 Gb/s = 819.2 GB/s per stack]
  strata::bandwidth<T> phy_bandwidth = units::GBps(819.2);
  /// Energy per byte over the interposer PHY. [Charge-recycling HBM IOs, A-SSCC 2022 (IEEE
  /// Xplore 9980680): 0.95 pJ/b at 5.12 Gb/s/pin with a 47 % reduction, so ≈ 1.8 pJ/b for a
  /// conventional HBM IO]
  strata::energy_per_data<T> phy_energy = units::pJ_per_bit(1.8);
  /// Fixed latency of one xPU ↔ chip transfer (a DRAM write or read burst through the standard
  /// interface, Stratum §3.2). [DDR5-class write latency + burst ≈ 20 ns (JESD79-5 CWL) plus
  /// controller and PHY ≈ 30 ns: 50 ns]
  strata::duration<T> phy_latency = units::ns(50.0);
  /// DRAM refresh of the chip's arrays (`device/dram_refresh.hpp`): JESD79-5 DDR5 tREFI 3.9 µs,
  /// tRFC1 410 ns (the densest DDR5 die's), tREFW 32 ms. [Stratum §2.1: Mono3D timings follow
  /// DDR5]. Applied by `with_refresh` (the systems' step, `stratum/system.hpp`).
  dram_refresh_params<T> refresh{};

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("chip", s.chip);
    v("dot_engines", s.dot_engines);
    v("hop_cycles", s.hop_cycles);
    v("compute_efficiency", s.compute_efficiency);
    v("sram_energy", s.sram_energy);
    v("ring_energy", s.ring_energy);
    v("static_power", s.static_power);
    v("phy_bandwidth", s.phy_bandwidth);
    v("phy_energy", s.phy_energy);
    v("phy_latency", s.phy_latency);
    v("refresh", s.refresh);
  }
  friend bool operator==(const nmp_params&, const nmp_params&) = default;
};

/// The Stratum NMP of one chip: the chip evaluated (tiers, logic die) and the device the mapping
/// runs on. Throws `config_error` naming the field when the MACs do not split evenly into PEs
/// and engines (`chip.logic.n_mac` a multiple of banks · dot_engines).
template <class T>
nmp_device<T> evaluate(const nmp_params<T>& p, stratum_chip_result<T>* chip_out = nullptr) {
  constexpr const char* m = "strata.nmp";
  detail::require_count(p.dot_engines, 1, 1 << 16, m, "dot_engines");
  detail::require_count(p.hop_cycles, 1, 1 << 16, m, "hop_cycles");
  const auto c = evaluate(p.chip);
  const auto& l = c.logic_params;
  const int banks = l.n_pu * l.pes_per_pu;
  detail::require(l.n_mac % banks == 0, m, "chip.logic.n_mac", l.n_mac,
                  ("a multiple of the banks (" + std::to_string(banks) + ")").c_str());
  const int per_pe = l.n_mac / banks;
  detail::require(per_pe % p.dot_engines == 0, m, "dot_engines", p.dot_engines,
                  ("a divisor of the MACs per PE (" + std::to_string(per_pe) + ")").c_str());
  nmp_device<T> d;
  d.name = "mono3d";
  d.tiers = memory_tiers(p.chip.memory, c.memory);
  d.access = p.chip.memory.energy;
  d.n_pu = l.n_pu;
  d.pes_per_pu = l.pes_per_pu;
  d.dot_engines = p.dot_engines;
  d.taps = per_pe / p.dot_engines;
  d.clock = l.f_logic;
  d.compute_efficiency = p.compute_efficiency;
  d.e_mac = l.e_mac;
  d.sfe_lanes = l.sfe_lanes;
  d.reduction_lanes = l.reduction_lanes;
  d.ring_flit = l.ring_flit;
  d.hop_cycles = p.hop_cycles;
  d.ring_energy = p.ring_energy;
  d.sram_energy = p.sram_energy;
  d.static_power = p.static_power;
  d.phy_bandwidth = p.phy_bandwidth;
  d.phy_energy = p.phy_energy;
  d.phy_latency = p.phy_latency;
  d.feasible = c.feasible;
  d.reason = c.reason;
  validate(d);
  if (chip_out != nullptr) *chip_out = c;
  return d;
}

/// The same device without tiering: the tiering table holds one tRCD, which must cover the
/// slowest row, so every tier streams at the slowest tier's latency and bandwidth (Stratum §6.3's
/// no-tiering design: same hardware otherwise).
template <class T>
nmp_device<T> without_tiering(nmp_device<T> d) {
  validate(d);
  const memory_tier<T> slow = d.tiers.back();
  for (auto& t : d.tiers) {
    t.bandwidth = slow.bandwidth;
    t.latency = slow.latency;
  }
  d.name += "-no-tiering";
  return d;
}

/// The device with DRAM refresh (`device/dram_refresh.hpp`): every tier's bandwidth × the banks'
/// availability 1 − tRFC/tREFI (an all-bank refresh holds every bank for tRFC each tREFI, so a
/// stream gets that share of bank time), and the refresh power of the chip's capacity,
/// C · E_row / tREFW. `refresh.enabled = false` returns the device unchanged.
template <class T>
nmp_device<T> with_refresh(nmp_device<T> d, const dram_refresh_params<T>& refresh) {
  validate(refresh);
  if (!refresh.enabled) return d;
  const T a = refresh_availability(refresh);
  for (auto& t : d.tiers) t.bandwidth = t.bandwidth * a;
  d.refresh_power = refresh_power(refresh, d.capacity());
  return d;
}

/// h = ⌈(p − 1)/2⌉: hops to the farthest node of a bidirectional ring of p nodes.
template <class = void>
inline int ring_reach(int p) { return p <= 1 ? 0 : p / 2; }

/// Ring all-gather of `bytes` in total over `p` nodes (each holds bytes/p): h · (bytes/p / b + λ).
template <class T>
strata::duration<T> ring_all_gather_time(const nmp_device<T>& d, const strata::data_size<T>& bytes, int p) {
  const int h = ring_reach(p);
  if (h == 0 || !(value_of(bytes.si()) > 0.0)) return {};
  return (bytes / T(double(p)) / d.ring_bandwidth() + d.hop_latency()) * T(double(h));
}

/// Ring reduce-scatter of `bytes` of partials per node over `p` nodes, the aggregators adding
/// in place: h · (bytes/p / b + λ).
template <class T>
strata::duration<T> ring_reduce_scatter_time(const nmp_device<T>& d, const strata::data_size<T>& bytes, int p) {
  return ring_all_gather_time(d, bytes, p);
}

/// All-reduce of one flit of scalars (local max or sum) over a sub-ring of `p` nodes:
/// h · (flit / b + λ).
template <class T>
strata::duration<T> ring_scalar_exchange_time(const nmp_device<T>& d, int p) {
  const int h = ring_reach(p);
  if (h == 0) return {};
  return (d.ring_flit / d.ring_bandwidth() + d.hop_latency()) * T(double(h));
}

/// Bytes crossing ring links in an all-gather or reduce-scatter of `bytes` over `p` nodes:
/// p · 2h · bytes/p (each chunk both ways, h hops each way), the hop count the energy charges.
template <class T>
strata::data_size<T> ring_link_bytes(const strata::data_size<T>& bytes, int p) {
  const int h = ring_reach(p);
  return bytes * T(2.0 * h);
}

}  // namespace v0
}  // namespace strata
