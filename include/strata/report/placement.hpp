// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Paper-report rows of Stratum's placement (Stratum §5.2 Algorithm 1, §6.2.1 tiering, Table 4
/// row swaps): `stratum.tiering.*` and `stratum.placement.*`, computed by the placement models on
/// the three Stratum systems with the paper's aggregated hit rates with topic prediction
/// (Stratum §6.3), and, from the real per-domain count tables, the hit rates an accurate, a
/// mixed, a wrong and no usage prediction reach.
///
/// Systems: OLMoE-1B-7B on Stratum-S (1 chip), Mixtral-8x7B on Stratum-L (6 chips),
/// Llama-4-Scout on Stratum-XL (12 chips, one row space over all 3072 banks) (Stratum §7). The
/// usage table is `usage_from_hit_rate` with the paper's hit rate; the topic switch goes to the
/// same table with the hot set moved by A experts in every layer (another topic with the same hit
/// rate), and its row swaps use the tier energy (swap buffer in the PE). Table 4's fractions need
/// a batch's decode time and energy: these rows give the numerators.

#include <algorithm>  // std::max_element, std::min_element
#include <cstddef>    // std::size_t
#include <string>     // std::string
#include <vector>     // std::vector

#include "strata/device/logic_die_params.hpp"
#include "strata/device/mono3d.hpp"
#include "strata/report/paper_row.hpp"
#include "strata/stratum/placement.hpp"
#include "strata/stratum/row_swap.hpp"
#include "strata/stratum/tiering.hpp"
#include "strata/stratum/usage.hpp"
#include "strata/workload/model.hpp"
#include "strata/workload/presets.hpp"
#include "strata/workload/trace_io.hpp"

namespace strata {
inline namespace v0 {

namespace detail {

/// One Stratum workload for the placement rows.
struct placement_case {
  const char* id;      ///< id segment ("olmoe", "mixtral", "llama4_scout")
  const char* preset;  ///< workload preset
  int chips;           ///< Mono3D chips of the system
  double hit_rate;     ///< aggregated hot-expert hit rate with topic prediction
};

/// [Stratum §7 systems; hit rates: Stratum §6.3, aggregated with topic prediction]
template <class = void>
inline std::vector<placement_case> placement_cases() {
  return {{"olmoe", "OLMoE-1B-7B-0924", 1, 0.485},
          {"mixtral", "Mixtral-8x7B", 6, 0.316},
          {"llama4_scout", "Llama-4-Scout-17B-16E", 12, 0.689}};
}

/// `chips` chips of `mp` as one tiered memory: capacity, bandwidth and banks scale.
template <class = void>
inline std::vector<memory_tier<>> system_tiers(const mono3d_params<>& mp, int chips) {
  auto tiers = memory_tiers(mp, evaluate(mp));
  for (auto& t : tiers) {
    t.capacity = t.capacity * static_cast<double>(chips);
    t.bandwidth = t.bandwidth * static_cast<double>(chips);
    t.banks *= chips;
  }
  return tiers;
}

}  // namespace detail

/// Rows `stratum.tiering.*` (the default chip's tiering table) and `stratum.placement.<model>.*`
/// (Algorithm 1 with the paper's hit rates on the Stratum systems, and a topic switch).
// Not `inline`: strata::compiled holds its instantiation (end of file), which an `inline` one would
// not spare a STRATA_COMPILED consumer (GCC instantiates inline functions for inlining).
template <class = void>
std::vector<paper_row> stratum_placement_rows(const mono3d_params<>& mp = {},
                                                     const logic_die_params<>& lp = {}) {
  using namespace detail;
  std::vector<paper_row> rows;
  const auto chip = system_tiers(mp, 1);
  const auto table = make_tiering_table(chip, mp.banks, mp.bank_access_bytes);
  std::vector<long long> per_tier;
  per_tier.reserve(static_cast<std::size_t>(table.tiers()));
  for (int i = 0; i < table.tiers(); ++i) per_tier.push_back(table.tier_rows(i));
  const double spread = static_cast<double>(*std::max_element(per_tier.begin(), per_tier.end())) /
                        static_cast<double>(*std::min_element(per_tier.begin(), per_tier.end()));
  rows.push_back(with("stratum.tiering.rows_max_over_min", spread, "x", 1.0, row_check::exact,
                      "Stratum §6.2.1 (uniform mapping: every tier the same rows)"));
  rows.push_back(predict("stratum.tiering.rows_per_tier", static_cast<double>(per_tier.front()), "rows per bank",
                         "Stratum §5.2, §6.2.1 (tiering table of the default chip)"));
  const auto prog = program_tiering_table(table, chip, lp);
  rows.push_back(with("stratum.tiering.table_fits_logic_die", prog.feasible ? 1.0 : 0.0, "1 = yes", 1.0,
                      row_check::exact, "Stratum §3.2 PE tiering table, sized as in Fig. 15a"));
  rows.push_back(predict("stratum.tiering.fastest_trcd_code", static_cast<double>(prog.entries.front().trcd_code),
                         "tCK", "Stratum §3.2 adaptive tRCD (DDR5-6400 clocks)"));
  rows.push_back(predict("stratum.tiering.slowest_trcd_code", static_cast<double>(prog.entries.back().trcd_code),
                         "tCK", "Stratum §3.2 adaptive tRCD (DDR5-6400 clocks)"));

  for (const auto& c : placement_cases()) {
    const model m = preset(c.preset);
    const auto tiers = system_tiers(mp, c.chips);
    const int banks = mp.banks * c.chips;
    const auto t = make_tiering_table(tiers, banks, mp.bank_access_bytes);
    const expert_placement_params<> p{.layers = m.moe_layers(), .experts = m.experts, .active = m.top_k,
                                      .expert_bytes = expert_bytes(m), .banks = banks,
                                      .row_buffer = mp.bank_access_bytes, .phi = t.rows};
    const auto f = usage_from_hit_rate(p.layers, p.experts, p.active, c.hit_rate);
    const auto g = usage_from_hit_rate(p.layers, p.experts, p.active, c.hit_rate, p.active);
    const auto a = place_experts(p, f);
    const std::string pre = std::string("stratum.placement.") + c.id + ".";
    rows.push_back(rel(pre + "hit_rate", hot_hit_rate(a, f), "fraction", c.hit_rate, 1e-9,
                       "Stratum §6.3 (aggregated hit rate with topic prediction) through Algorithm 1",
                       row_kind::input));
    rows.push_back(predict(pre + "expert_rows_fraction", static_cast<double>(a.expert_rows()) / static_cast<double>(t.rows),
                           "fraction", "Stratum §5.2 Algorithm 1 (L*E*delta / rows)"));
    if (!a.feasible) continue;
    rows.push_back(predict(pre + "fast_tier_traffic_share", tier_traffic_share(a, t, f).front(), "fraction",
                           "Stratum §5.2 (expert bytes served by tier 0)"));
    const auto sw = row_swap_cost(a, place_experts(p, g), t, tiers);
    rows.push_back(predict(pre + "swap_rows_per_bank", static_cast<double>(sw.rows_moved), "rows",
                           "Stratum §5.2 topic switch (hot set moved by A experts per layer)"));
    rows.push_back(predict(pre + "swap_time_us", sw.time.in(units::us), "us",
                           "Stratum §5.2, Table 4 numerator (row swaps inside the banks)"));
    rows.push_back(predict(pre + "swap_energy_mJ", sw.energy.in(units::mJ), "mJ",
                           "Stratum §5.2, Table 4 numerator (tier energy, swap buffer in the PE)"));
  }
  return rows;
}

/// Rows `stratum.placement.counts.<model>.*` from a count table holding OLMoE-1B-7B-0824 (topk8)
/// and Mixtral-8x7B-v0.1 (topk2) on the five pretraining domains (the test data file
/// `tests/data/traces/olmoe_mixtral_expert_counts_by_domain.csv`): the hot-expert hit rate of
/// each domain, averaged over the domains, when Algorithm 1 places with that domain's table
/// (own), the equal mix of all five (mix), another domain's table (other, mean over the four) and
/// the uniform table.
// Not `inline`: strata::compiled holds its instantiation (end of file), which an `inline` one would
// not spare a STRATA_COMPILED consumer (GCC instantiates inline functions for inlining).
template <class = void>
std::vector<paper_row> stratum_placement_count_rows(const expert_count_table& counts) {
  using namespace detail;
  struct series_case {
    const char* id;
    const char* model;
    const char* selection;
  };
  const std::vector<std::string> domains{"arxiv", "book", "c4", "github", "wikipedia"};
  std::vector<paper_row> rows;
  for (const auto& c : {series_case{"olmoe", "OLMoE-1B-7B-0824", "topk8"},
                        series_case{"mixtral", "Mixtral-8x7B-v0.1", "topk2"}}) {
    std::vector<const expert_counts*> series;
    series.reserve(domains.size());
    for (const auto& d : domains) series.push_back(&counts.at(c.model, d, c.selection, "pretrained"));
    const int layers = static_cast<int>(series.front()->layers.size());
    const int experts = series.front()->experts;
    const int active = series.front()->k;
    // Only the order matters for the hit rate: one row per expert.
    const expert_placement_params<> p{.layers = layers, .experts = experts, .active = active,
                                      .expert_bytes = units::B(1.0), .banks = 1, .row_buffer = units::B(1.0),
                                      .phi = static_cast<long long>(layers) * experts};
    std::vector<usage_table> f;
    std::vector<expert_layout> own;
    f.reserve(series.size());
    own.reserve(series.size());
    for (const auto* s : series) {
      f.push_back(usage_from_counts(*s));
      own.push_back(place_experts(p, f.back()));
    }
    const auto mix = place_experts(p, usage_from_counts(series, std::vector<double>(series.size(), 1.0)));
    const auto uni = place_experts(p, uniform_usage(layers, experts, active));
    double own_sum = 0, mix_sum = 0, other_sum = 0, uni_sum = 0;
    for (std::size_t d = 0; d < f.size(); ++d) {
      own_sum += hot_hit_rate(own[d], f[d]);
      mix_sum += hot_hit_rate(mix, f[d]);
      uni_sum += hot_hit_rate(uni, f[d]);
      for (std::size_t o = 0; o < f.size(); ++o) {
        if (o != d) other_sum += hot_hit_rate(own[o], f[d]) / static_cast<double>(f.size() - 1);
      }
    }
    const double n = static_cast<double>(f.size());
    const std::string pre = std::string("stratum.placement.counts.") + c.id + ".";
    const std::string src = "Stratum §5.1-5.2 Algorithm 1 on per-domain expert counts (5 domains, saved layers)";
    rows.push_back(predict(pre + "own_domain_hit_rate", own_sum / n, "fraction", src));
    rows.push_back(predict(pre + "topic_mix_hit_rate", mix_sum / n, "fraction", src));
    rows.push_back(predict(pre + "other_domain_hit_rate", other_sum / n, "fraction", src));
    rows.push_back(predict(pre + "uniform_layout_hit_rate", uni_sum / n, "fraction", src));
  }
  return rows;
}

}  // namespace v0
}  // namespace strata

// strata::compiled (STRATA_BUILD_COMPILED, src/compiled_report.cpp) holds the family's
// instantiations; STRATA_COMPILED=1, which that target puts on its users, keeps their translation
// units from generating them. Without it this header is unchanged (header-only).
#if defined(STRATA_COMPILED) && STRATA_COMPILED
namespace strata {
inline namespace v0 {
extern template std::vector<paper_row> stratum_placement_rows<void>(const mono3d_params<>&, const logic_die_params<>&);
extern template std::vector<paper_row> stratum_placement_count_rows<void>(const expert_count_table&);
}  // namespace v0
}  // namespace strata
#endif
