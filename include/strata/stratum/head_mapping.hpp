// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The LM head on the Stratum NMP (Stratum §5.2, §4.1): logits = X (T×H) · W (H×V).
///
/// Where it runs. §5.2 names the data the xPU uses beside the NMP as "miscellaneous parameters
/// such as positional embeddings and layer-norm offsets and scales"; a vocab × hidden matrix is
/// not among them, so the head's weights are NMP data read every step, placed with the other
/// always-read weights in the fastest rows (`stratum/system.hpp`), and the head runs on the NMP,
/// tensor parallel like an expert's first GEMM (§4.1: weights split by columns, never the tokens).
///
/// Mapping. W is split by columns over the c chips and the P PUs of each: a PU holds
/// v = ⌈V / (c·P)⌉ columns; inside a PU the longer dimension H is split over its q PEs (each a
/// ⌈H/q⌉ × v block, as W1 of an expert), and the PU's reduction tree adds the q partial logits.
/// Each PU owns whole logit columns, so no ring collective follows; the xPU reads each chip's
/// T·V/c logits back. Stage times (one PE, one PU; all in lockstep):
///   input   = PHY latency + T·H·a / PHY bandwidth, then a ring all-gather of it (`nmp.hpp`)
///   GEMM    = max(stream(⌈H/q⌉·v·w over the head's tiers), T·⌈H/q⌉·v / (n·k·f·η))
///   reduce  = ⌈log2 q⌉ / f + T·v / (lanes · f)
///   output  = PHY latency + T·V/c·a / PHY bandwidth
/// (w, a: bytes per weight and per activation). Energy over all chips: T·H·V MACs × E_mac; the
/// weights' bytes × each access-energy part; SRAM: each PE's inputs and the psums once, the
/// logits written and read; PHY, ring and the reserved rows for the input and the logits.

#include <cmath>    // std::abs
#include <cstddef>  // std::size_t
#include <vector>   // std::vector

#include "strata/core/error.hpp"
#include "strata/core/scalar.hpp"
#include "strata/core/tier.hpp"
#include "strata/core/units.hpp"
#include "strata/stratum/energy_parts.hpp"
#include "strata/stratum/expert_mapping.hpp"
#include "strata/stratum/nmp.hpp"
#include "strata/tech/bounds.hpp"

namespace strata {
inline namespace v0 {

/// The LM head of one decode step as the NMP runs it.
template <class T = double>
struct head_work {
  T tokens = T(1);             ///< T: one per sequence in decode
  int hidden = 0;              ///< H
  int vocab = 0;               ///< V
  double weight_bytes = 2.0;   ///< bytes per weight (the embedding format's storage)
  int act_bits = 16;           ///< bits per activation
  std::vector<double> shares;  ///< share of the head's rows in each tier (sums to 1)
};

/// Stage times and energy of the LM head on the NMP (file comment).
template <class T = double>
struct head_times {
  strata::duration<T> input{};   ///< hidden states written over the PHY
  strata::duration<T> gather{};  ///< ring all-gather of the input
  strata::duration<T> gemm{};    ///< the PE's GEMM: weight stream or tensor core
  strata::duration<T> reduce{};  ///< the PU's reduction tree
  strata::duration<T> output{};  ///< logits read over the PHY
  bool stream_bound = true;      ///< the GEMM waits on the weight stream
  energy_parts<T> energy{};
  strata::data_size<T> weight_bytes{};  ///< all chips

  /// The head's time: its stages one after another.
  [[nodiscard]] strata::duration<T> total() const { return input + gather + gemm + reduce + output; }
};

/// The LM head of `w` on `chips` chips of device `d` (file comment). Throws `config_error` naming
/// the field for a shape out of range or shares that are not one per tier summing to 1.
template <class T>
head_times<T> lm_head_times(const nmp_device<T>& d, int chips, const head_work<T>& w) {
  constexpr const char* m = "strata.head_mapping";
  detail::require_count(chips, 1, 1 << 16, m, "chips");
  detail::require_count(w.hidden, 1, 1 << 24, m, "hidden");
  detail::require_count(w.vocab, 1, 1 << 26, m, "vocab");
  detail::require_count(w.act_bits, 1, 64, m, "act_bits");
  detail::require_range(w.weight_bytes, 0.0625, 8.0, m, "weight_bytes", "B");
  detail::require_range(w.tokens, 0.0, 1e9, m, "tokens", "tokens");
  detail::require(w.shares.size() == d.tiers.size(), m, "shares", w.shares.size(), "one share per tier");
  double sum = 0.0;
  for (double s : w.shares) sum += s;
  detail::require(std::abs(sum - 1.0) <= 1e-6, m, "shares", sum, "summing to 1");

  head_times<T> r;
  const double a = w.act_bits / 8.0;
  const int pus = chips * d.n_pu, q = d.pes_per_pu;
  const double v = double(detail::ceil_div(w.vocab, pus));
  const double hq = double(detail::ceil_div(w.hidden, q));
  const strata::data_size<T> x = units::B(w.tokens * T(double(w.hidden) * a));
  const strata::data_size<T> logits = units::B(w.tokens * T(double(w.vocab) * a / chips));  // per chip
  r.input = stream_time(x, d.phy_bandwidth, d.phy_latency);
  r.gather = ring_all_gather_time(d, x, d.n_pu);
  const T macs = w.tokens * T(hq * v);
  const strata::data_size<T> pe_bytes = units::B(T(hq * v * w.weight_bytes));
  const auto stream = detail::shard_stream_time(d, pe_bytes, w.shares);
  const auto compute = strata::duration<T>::from_si(T(2) * macs / d.pe_peak().si());
  r.stream_bound = !(value_of(compute.si()) > value_of(stream.si()));
  r.gemm = detail::max_of(stream, compute);
  r.reduce = detail::reduce_tree_time(d, w.tokens * T(v));
  r.output = stream_time(logits, d.phy_bandwidth, d.phy_latency);

  const T c = T(double(chips));
  const double hv = double(w.hidden) * double(w.vocab);
  r.weight_bytes = units::B(T(hv * w.weight_bytes));
  auto& e = r.energy;
  e.mac = d.e_mac * (w.tokens * T(hv));
  detail::add_dram_read(e, d.access, r.weight_bytes);
  // Each PE reads its ⌈H/q⌉ inputs per token; psums and the logits are written and read once.
  const strata::data_size<T> sram = units::B(w.tokens * T(double(pus) * q * hq * a + 4.0 * double(w.vocab) * a));
  e.sram = d.sram_energy * sram;
  e.phy = d.phy_energy * (x * c + logits * c);
  e.ring = d.ring_energy * ring_link_bytes(x, d.n_pu) * c;
  detail::add_dram_read(e, d.access, (x + logits) * c);  // reserved rows: input and logits
  return r;
}

}  // namespace v0
}  // namespace strata
