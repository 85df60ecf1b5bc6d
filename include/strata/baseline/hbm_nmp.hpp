// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// An HBM-based near-memory processor in the style of Duplex (Yun et al., "Duplex: A Device for
/// Large Language Models with Mixture of Experts, Grouped Query Attention, and Continuous
/// Batching", MICRO 2024): HBM3 stacks whose base (logic) die carries processing units fed
/// through extra TSVs, beside the same xPU. It is the comparison point of `stratum.duplex.*`
/// (Stratum §3.2: Stratum keeps the logic on its own die and is not capped by TSV bandwidth).
///
/// What is kept: HBM3 capacity and external bandwidth per stack (JESD238), an internal bandwidth
/// that is a multiple of the external one (more TSVs between the DRAM dies and the base die),
/// one flat latency tier (HBM has no word-line staircase), processing units per pseudo-channel on
/// the base die. What is simplified: Duplex's central buffer and crossbar are represented by the
/// same ring and mapping as Stratum's NMP (so the comparison isolates the memory), and its
/// processor is given the same MACs and clock as Stratum's Table 3 processor.
///
/// `stratum/system.hpp` turns `hbm_nmp_params` into the `nmp_device` the mapping runs on.

#include <string>  // std::string

#include "strata/core/error.hpp"
#include "strata/core/units.hpp"
#include "strata/device/dram_energy.hpp"
#include "strata/device/dram_refresh.hpp"
#include "strata/tech/bounds.hpp"

namespace strata {
inline namespace v0 {

/// One HBM3 stack with a processing base die.
template <class T = double>
struct hbm_nmp_params {
  /// Capacity per stack. [SK hynix 12-high 24 GB HBM3 (2023); JESD238 allows up to 16-high]
  strata::data_size<T> capacity = units::GB(24.0);
  /// External bandwidth per stack, to the xPU. [JESD238 HBM3: 1024 bits × 6.4 Gb/s = 819.2 GB/s]
  strata::bandwidth<T> external_bandwidth = units::GBps(819.2);
  /// Internal (DRAM dies → base die) bandwidth over the external one. [Samsung HBM-PIM
  /// (Aquabolt-XL, ISSCC 2021): bank-level parallelism gives 4× the off-chip bandwidth to the
  /// processing units; Duplex adds TSVs for the same purpose]
  T internal_factor = T(4.0);
  /// Row access latency tRCD + tCL. [HBM row miss ≈ 28 ns (JESD235 HBM2 class; the substrate's
  /// HBM tier uses the same figure)]
  strata::duration<T> latency = units::ns(28.0);
  /// Pseudo-channels per stack, one PU each. [JESD238: 16 channels × 2 pseudo-channels]
  int pseudo_channels = 32;
  /// PEs per PU, one per bank group. [JESD238: 4 bank groups per pseudo-channel]
  int pes_per_pu = 4;
  /// Dot-product engines per PE and taps per engine: 64 000 MACs per stack as Stratum's Table 3
  /// processor (128 PEs × 10 × 50). [Design choice: a like-for-like processor]
  int dot_engines = 10;
  int taps = 50;
  /// Logic clock. [As Stratum Table 3: 1 GHz]
  strata::frequency<T> clock = units::GHz(1.0);
  /// Energy per FP16 MAC. [Jouppi et al., ISCA 2021 Table 2, 7 nm: 0.34 + 0.16 pJ]
  strata::energy<T> e_mac = units::pJ(0.5);
  /// Access energy inside the stack, array to base die, by part. [Derived: O'Connor et al.,
  /// MICRO 2017, ≈ 3.9 pJ/b for an HBM2 access including its IO; without the ≈ 1.8 pJ/b of a
  /// conventional HBM IO (A-SSCC 2022, IEEE Xplore 9980680) 2.1 pJ/b remain, split here as
  /// activation 1.0, word line 0.01, column 0.2 and TSV + die datapath 0.89 pJ/b]
  dram_access_energy<T> access{units::pJ_per_bit(1.0), units::pJ_per_bit(0.01), units::pJ_per_bit(0.2),
                               units::pJ_per_bit(0.89), units::pJ_per_bit(0.0)};
  /// Static power per stack (base-die leakage and DRAM background). [As `nmp_params`: 3.19 W]
  strata::power<T> static_power = units::W(3.19);
  /// DRAM refresh of the stack (`device/dram_refresh.hpp`). [JESD79-5 DDR5 timings for the
  /// stack's 16 Gb dies (24 GB over 12 dies): tREFI 3.9 µs, tRFC1 295 ns, tREFW 32 ms; JESD238's
  /// own HBM3 refresh table is not in our sources. Row energy as Mono3D's, 0.11 pJ/b: a refresh
  /// restores whole rows, unlike the partly used rows of `access`]
  dram_refresh_params<T> refresh{.t_rfc = units::ns(295.0)};

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("capacity", s.capacity);
    v("external_bandwidth", s.external_bandwidth);
    v("internal_factor", s.internal_factor);
    v("latency", s.latency);
    v("pseudo_channels", s.pseudo_channels);
    v("pes_per_pu", s.pes_per_pu);
    v("dot_engines", s.dot_engines);
    v("taps", s.taps);
    v("clock", s.clock);
    v("e_mac", s.e_mac);
    v("access", s.access);
    v("static_power", s.static_power);
    v("refresh", s.refresh);
  }
  friend bool operator==(const hbm_nmp_params&, const hbm_nmp_params&) = default;
};

/// Checks the stack; throws `config_error` naming the field.
template <class T>
void validate(const hbm_nmp_params<T>& p) {
  constexpr const char* m = "strata.hbm_nmp";
  detail::require_range(p.capacity.si(), 1e6, 1e15, m, "capacity", "B");
  detail::require_range(p.external_bandwidth.si(), 1e6, 1e15, m, "external_bandwidth", "B/s");
  detail::require_range(p.internal_factor, 0.01, 1000.0, m, "internal_factor", "");
  detail::require_range(p.latency.si(), 1e-10, 1e-5, m, "latency", "s");
  detail::require_count(p.pseudo_channels, 1, 1 << 16, m, "pseudo_channels");
  detail::require_count(p.pes_per_pu, 1, 1 << 16, m, "pes_per_pu");
  detail::require_count(p.dot_engines, 1, 1 << 16, m, "dot_engines");
  detail::require_count(p.taps, 1, 1 << 16, m, "taps");
  detail::require_range(p.clock.si(), 1e6, 1e11, m, "clock", "Hz");
  detail::require_range(p.e_mac.si(), 0.0, 1e-9, m, "e_mac", "J");
  validate(p.access, "access");
  detail::require_range(p.static_power.si(), 0.0, 1e4, m, "static_power", "W");
  validate(p.refresh, "refresh");
}

/// Internal bandwidth of the stack: external × internal_factor.
template <class T>
strata::bandwidth<T> internal_bandwidth(const hbm_nmp_params<T>& p) {
  return p.external_bandwidth * p.internal_factor;
}

}  // namespace v0
}  // namespace strata
