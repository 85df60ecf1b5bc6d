// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The paper report's `stratum systems` family (rows `stratum.system.*`, `strata-paper-report
/// --only stratum-systems`), callable without the other families.

#include <vector>  // std::vector

#include "strata/device/mono3d.hpp"
#include "strata/report/paper_row.hpp"
#include "strata/workload/model.hpp"
#include "strata/workload/presets.hpp"

namespace strata {
inline namespace v0 {

/// Rows `stratum.system.*` that the workload and device layers already decide: the models'
/// sizes (Stratum §6.1, Table 2: "7 B", "47 B", "32 B", "109 B"; the paper rounds, so ±3 %; the
/// Llama-4-Scout figure includes its vision encoder, which strata does not model), Mixtral
/// 8×7B's expert share of all weights ("> 95 %", Stratum §2) and the memory of Stratum-S/L/XL
/// (1, 6 and 12 chips, Stratum §3.1 Fig. 5).
// Not `inline`: strata::compiled holds its instantiation (end of file), which an `inline` one would
// not spare a STRATA_COMPILED consumer (GCC instantiates inline functions for inlining).
template <class = void>
std::vector<paper_row> stratum_system_rows(const mono3d_params<>& mp = {}) {
  using namespace detail;
  const auto billions = [](const char* name) {
    return double(count_params(preset(name)).total) / 1e9;
  };
  const auto mixtral = preset("Mixtral-8x7B");
  const auto mc = count_params(mixtral);
  const double expert_share =
      double(mc.per_expert) * mixtral.experts * mixtral.moe_layers() / double(mc.total);
  const double chip_gib = evaluate(mp).capacity.in(units::GiB);
  return {
      rel("stratum.system.olmoe.params_B", billions("OLMoE-1B-7B-0924"), "B params", 7, 0.03,
          "Stratum §6.1 Table 2"),
      rel("stratum.system.mixtral.params_B", billions("Mixtral-8x7B"), "B params", 47, 0.03,
          "Stratum §6.1 Table 2"),
      rel("stratum.system.qwen2_5_32b.params_B", billions("Qwen2.5-32B"), "B params", 32, 0.03,
          "Stratum §6.1 Table 2"),
      rel("stratum.system.llama4_scout.params_B", billions("Llama-4-Scout-17B-16E"), "B params", 109,
          0.03, "Stratum §6.1 Table 2 (incl. vision encoder)"),
      with("stratum.system.mixtral.expert_weight_share", expert_share, "fraction", 0.95,
           row_check::at_least, "Stratum §2 (> 95 % of Mixtral 8x7B's weights are experts)"),
      rel("stratum.system.S.capacity_GB", 1 * chip_gib, "GiB", 32, 0.01, "Stratum §3.1 Fig. 5",
          row_kind::input),
      rel("stratum.system.L.capacity_GB", 6 * chip_gib, "GiB", 192, 0.01, "Stratum §3.1 Fig. 5",
          row_kind::input),
      rel("stratum.system.XL.capacity_GB", 12 * chip_gib, "GiB", 384, 0.01, "Stratum §3.1 Fig. 5",
          row_kind::input),
  };
}

}  // namespace v0
}  // namespace strata

// strata::compiled (STRATA_BUILD_COMPILED, src/compiled_report.cpp) holds the family's
// instantiation; STRATA_COMPILED=1, which that target puts on its users, keeps their translation
// units from generating it. Without it this header is unchanged (header-only).
#if defined(STRATA_COMPILED) && STRATA_COMPILED
namespace strata {
inline namespace v0 {
extern template std::vector<paper_row> stratum_system_rows<void>(const mono3d_params<>&);
}  // namespace v0
}  // namespace strata
#endif
