// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Energy of a Stratum step by part, so that every joule is attributed (issue: "MACs, SRAM/psum,
/// DRAM activate / column / datapath, bond, interposer PHY, static"), and DRAM refresh. The NMP parts follow the
/// access-energy split of `device/dram_energy.hpp`; the xPU's share is its dynamic energy
/// (FLOPs and its own memory traffic) and its static power over the step.

#include "strata/core/units.hpp"

namespace strata {
inline namespace v0 {

/// Joules of a step (or of one operator) by where they are spent.
template <class T = double>
struct energy_parts {
  strata::energy<T> mac{};                 ///< NMP tensor-core MACs
  strata::energy<T> sfe{};                 ///< NMP special function engines (activation, softmax, sums)
  strata::energy<T> sram{};                ///< NMP register files, psum and shared memories
  strata::energy<T> dram_activate{};       ///< row activation and precharge (VDD)
  strata::energy<T> dram_wordline{};       ///< word-line boost (VPP)
  strata::energy<T> dram_column{};         ///< column access
  strata::energy<T> dram_datapath{};       ///< memory-die wire to the bond pads
  strata::energy<T> bond{};                ///< hybrid-bond transfer (logic die)
  strata::energy<T> ring{};                ///< NMP ring links
  strata::energy<T> phy{};                 ///< interposer PHY between the chips and the xPU
  strata::energy<T> nmp_static{};          ///< NMP chips' leakage and DRAM background × time
  strata::energy<T> refresh{};             ///< DRAM refresh: each chip's refresh power × time (`device/dram_refresh.hpp`)
  strata::energy<T> xpu_dynamic{};         ///< xPU FLOPs, its memory reads and its links
  strata::energy<T> xpu_static{};          ///< xPU static power × time

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("mac", s.mac);
    v("sfe", s.sfe);
    v("sram", s.sram);
    v("dram_activate", s.dram_activate);
    v("dram_wordline", s.dram_wordline);
    v("dram_column", s.dram_column);
    v("dram_datapath", s.dram_datapath);
    v("bond", s.bond);
    v("ring", s.ring);
    v("phy", s.phy);
    v("nmp_static", s.nmp_static);
    v("refresh", s.refresh);
    v("xpu_dynamic", s.xpu_dynamic);
    v("xpu_static", s.xpu_static);
  }

  /// Sum of every part.
  [[nodiscard]] strata::energy<T> total() const {
    return mac + sfe + sram + dram_activate + dram_wordline + dram_column + dram_datapath + bond + ring +
           phy + nmp_static + refresh + xpu_dynamic + xpu_static;
  }
  /// DRAM array parts of the accesses (activate, word line, column, datapath): the memory die's
  /// share of reads and writes (refresh, also on the memory die, is its own part).
  [[nodiscard]] strata::energy<T> dram() const {
    return dram_activate + dram_wordline + dram_column + dram_datapath;
  }

  energy_parts& operator+=(const energy_parts& o) {
    mac += o.mac;
    sfe += o.sfe;
    sram += o.sram;
    dram_activate += o.dram_activate;
    dram_wordline += o.dram_wordline;
    dram_column += o.dram_column;
    dram_datapath += o.dram_datapath;
    bond += o.bond;
    ring += o.ring;
    phy += o.phy;
    nmp_static += o.nmp_static;
    refresh += o.refresh;
    xpu_dynamic += o.xpu_dynamic;
    xpu_static += o.xpu_static;
    return *this;
  }
  /// Every part scaled by `k` (an expected count, a repeat).
  energy_parts& operator*=(const T& k) {
    mac *= k;
    sfe *= k;
    sram *= k;
    dram_activate *= k;
    dram_wordline *= k;
    dram_column *= k;
    dram_datapath *= k;
    bond *= k;
    ring *= k;
    phy *= k;
    nmp_static *= k;
    refresh *= k;
    xpu_dynamic *= k;
    xpu_static *= k;
    return *this;
  }
};

}  // namespace v0
}  // namespace strata
