// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The gap explainer's registry (`report/explain.hpp`): for each family of the paper report's
/// out-of-tolerance check rows, the parameter structs the rows are built from and an evaluator
/// that re-runs the rows' own builders on modified copies of them; `explain_report` explains the
/// failing check rows of a report.
///
/// Families:
/// - `stratum results`: `stratum.system.{olmoe,mixtral}.{decode_speedup,energy_efficiency_gain}`
///   (`compare_with_gpu`) and `stratum.placement.accurate_vs_uniform_{min,max}`
///   (`accurate_vs_uniform_step`); parameters: the OLMoE workload's Stratum-S system
///   (`stratum-s.*`), the Stratum-L system of Mixtral and of the placement rows (`stratum-l.*`)
///   and the GPU baselines they are divided by (`rtx_a6000.*`, `h100_sxm5.*`, the card the
///   Stratum system's xPU copies being a parameter of its own).
/// - `gpu validation`: `validation.check.<measurement>` (`model_measurement` with the published
///   fit's knobs); parameters: the fitted knobs (`gpu_knobs.*`) and each measured card's
///   datasheet fields (`<card>.*`; the knobs and `energy_per_flop` the fit overwrites are not).
/// - `vLLM serving, cited knobs` and `vLLM serving, fitted knobs`:
///   `validation.serving.mixtral_tp2_h100.*` (`serving_validation_rows`); parameters: the H100
///   card's time fields (its energy and power fields move no time). Each vLLM run's rows are a part
///   (`explain_group::parts`): a row of one run re-runs that run, the pooled TTFT and time per
///   output token all three (the part of every row, the smallest that holds them); each run's
///   result is kept by card, so the pooled rows at a point one run's row ran simulate the others.
///
/// - `vLLM campaign, <run>`: `validation.serving.campaign.<run>.*` (`vllm_campaign_run_rows`), one
///   family per campaign run (one simulation gives the run's rows); parameters: the H100 card's
///   time fields, as the serving runs', those the run does not read registered so
///   (`explain_mark_unread_card_fields`: no run differences them). The runs of `config.json` fixtures need
///   `explain_options::hf_dir` and `read_config`, as the report does.
/// - `stratum thermal cap`: `stratum.thermal.logic_power_limit_vs_paper_W` (`stratum_thermal_rows`);
///   parameters: the stack's own real fields (`thermal::stratum_stack_params`: its layers'
///   thicknesses and conductivities, the cold plate's h, the coolant, the DRAM limit and load, the
///   refresh timings); the chip's fields and the heat capacities are left out (said why).
/// - `hcrmap migration premise`: `hcrmap.premise.migration_delays_dispatch`
///   (`hcrmap_premise_rows`, which computes it without the suite); no real parameter (the row is a
///   boolean): the link arbitration, a discrete parameter, is scanned (`explain_choice`).
/// - `hcrmap best on every model`: `hcrmap.best_on_every_model` (`hcrmap_leads` over the suite's
///   16 experiments, run with the compared policies and HCRMap alone, `run_hcrmap_case`; a run
///   stops at the first experiment HCRMap does not lead); no real parameter (a boolean): the link
///   arbitration, the weight stream's overlap, the KV cache's tier, the HBM tier's placement and
///   the value function are scanned. Under a second of CPU.
/// - `hcrmap hydra premise`: `hcrmap.premise.hydra_{d2d,latency}_ratio` (`hcrmap_hydra_ratios`
///   over the 16 experiments run with single-copy static and Hydra alone, about 0.5 s of CPU a
///   run); parameters: the real fields of the substrate, the critical path and the package plan
///   (`hcrmap.substrate.*`, `hcrmap.critical_path.*`, `hcrmap.scale_out.*`), their energies left
///   out, a time feeding the latency row only (a copy's chiplet, hence a token's D2D hops, reads no
///   time). About half a minute of CPU in all: `explain_report` runs it only with
///   `explain_options::hcrmap_hydra_premise` (`explain_row` always), else lists its rows with the
///   reason.
///
/// The two HCRMap families need the report's inputs of those rows (`explain_options::dsv2lite_trace`
/// and `hcrmap_value`) to reproduce them; other HCRMap rows computed from the suite have no family.

#include <algorithm>  // std::min_element, std::max_element, std::find
#include <deque>      // std::deque (results kept by reference)
#include <functional>  // std::function
#include <map>        // std::map
#include <memory>     // std::make_shared
#include <array>      // std::array, an experiment's windows by mode
#include <optional>   // std::optional
#include <string>     // std::string
#include <utility>    // std::move
#include <vector>     // std::vector

#include "strata/baseline/baseline_gpu.hpp"
#include "strata/baseline/gpu_measurements_data.hpp"
#include "strata/baseline/validation.hpp"
#include "strata/report/explain.hpp"
#include "strata/report/hcrmap_premises.hpp"
#include "strata/report/hcrmap_rows.hpp"
#include "strata/report/thermal_rows.hpp"
#include "strata/report/vllm_campaign_runs.hpp"
#include "strata/report/serving_validation_rows.hpp"
#include "strata/report/stratum_rows.hpp"
#include "strata/report/validation_rows.hpp"

namespace strata {
inline namespace v0 {

namespace detail {

/// Whether path `p` is named by `skip`: an entry equal to it, an entry ending in '.' that starts
/// it (a nested struct), or an entry "*.x" that ends it (field x of every nested struct).
template <class = void>
inline bool explain_skipped(const std::vector<std::string>& skip, const std::string& p) {
  for (const auto& k : skip) {
    if (k == p) return true;
    if (!k.empty() && k.back() == '.' && p.compare(0, k.size(), k) == 0) return true;
    if (k.size() > 2 && k.compare(0, 2, "*.") == 0 && p.size() > k.size() - 1 &&
        p.compare(p.size() - (k.size() - 1), k.size() - 1, k.substr(1)) == 0) {
      return true;
    }
  }
  return false;
}

/// Adds every real field of `obj` (which the group's state owns) as parameters `root.<path>`,
/// ranges read as `type.<path>`; fields named in `skip` are left out (`explain_skipped`).
template <class P>
void explain_add_struct(explain_group& g, P& obj, const std::string& root, const std::string& type,
                        const std::vector<std::string>& feeds, const std::vector<std::string>& skip = {}) {
  std::vector<sens_leaf<double>> leaves;
  collect_leaves<double>(obj, std::string(), leaves);
  for (auto& l : leaves) {
    if (explain_skipped(skip, l.path)) continue;
    auto set = l.set;
    g.parameters.push_back({root + "." + l.path, type + "." + l.path, l.value, [set](double v) { set(v); }, feeds});
  }
}

template <class = void>
inline const paper_row* explain_find(const std::vector<paper_row>& rows, const std::string& id) {
  for (const auto& r : rows) {
    if (r.id == id) return &r;
  }
  return nullptr;
}

}  // namespace detail

/// The `stratum results` group (file comment).
template <class = void>
inline explain_group stratum_explain_group() {
  struct state {
    stratum_system_params<> s, l;
    gpu_params a6000, h100;
    std::vector<stratum_workload> ws = stratum_workloads();
    // The expert-parallel placements of earlier runs (`expert_chips_keep`): most parameters
    // leave Algorithm 1's inputs alone, so a run re-places nothing it placed before.
    expert_chips_keep kept;
    // Each workload's Stratum and GPU sides of earlier runs (`stratum_comparison_keep`): a run
    // changes the system or the card, and the other side is the one an earlier run computed.
    stratum_comparison_keep keep_s, keep_l;
  };
  auto st = std::make_shared<state>();
  const auto& ws = st->ws;
  st->s = workload_system(ws[0]);
  st->l = workload_system(ws[1]);
  st->a6000 = workload_gpu(ws[0]);
  st->h100 = workload_gpu(ws[1]);
  explain_group g;
  g.family = "stratum results";
  const std::string sys = "stratum.system.";
  const std::vector<std::string> olmoe{sys + "olmoe.decode_speedup", sys + "olmoe.energy_efficiency_gain"};
  const std::vector<std::string> mixtral{sys + "mixtral.decode_speedup", sys + "mixtral.energy_efficiency_gain"};
  const std::vector<std::string> placement{"stratum.placement.accurate_vs_uniform_min",
                                           "stratum.placement.accurate_vs_uniform_max"};
  g.row_ids = olmoe;
  g.row_ids.insert(g.row_ids.end(), mixtral.begin(), mixtral.end());
  g.row_ids.insert(g.row_ids.end(), placement.begin(), placement.end());
  auto l_feeds = mixtral;
  l_feeds.insert(l_feeds.end(), placement.begin(), placement.end());
  detail::explain_add_struct(g, st->s, "stratum-s", "stratum_system_params", olmoe);
  detail::explain_add_struct(g, st->l, "stratum-l", "stratum_system_params", l_feeds);
  detail::explain_add_struct(g, st->a6000, "rtx_a6000", "gpu_params", olmoe);
  detail::explain_add_struct(g, st->h100, "h100_sxm5", "gpu_params", mixtral);
  g.left_out = "integer, boolean and enum fields (chips, stages, layers, tiers, counts; tiering, the memory kind, the "
               "LM head's placement, the xPU's power accounting while the NMP decodes) are no change in units of a "
               "range: sweep them";
  g.evaluate = [st](const std::vector<std::string>& ids) {
    std::optional<stratum_comparison> co, cm;
    std::optional<std::pair<double, double>> place;
    std::vector<double> out;
    for (const auto& id : ids) {
      const bool o = id.rfind("stratum.system.olmoe.", 0) == 0, m = id.rfind("stratum.system.mixtral.", 0) == 0;
      if (o || m) {
        auto& c = o ? co : cm;
        if (!c) {
          c = o ? compare_with_gpu(st->s, st->ws[0], {}, st->a6000, &st->kept, &st->keep_s)
                : compare_with_gpu(st->l, st->ws[1], {}, st->h100, &st->kept, &st->keep_l);
        }
        out.push_back(id.ends_with(".decode_speedup") ? c->mean_speedup : c->peak_energy_gain);
      } else if (id.rfind("stratum.placement.accurate_vs_uniform_", 0) == 0) {
        if (!place) {
          std::vector<double> gains;
          for (const auto& w : st->ws) {
            const auto mdl = preset(w.model);
            if (mdl.experts == 0) continue;
            const double gain = accurate_vs_uniform_step(st->l, mdl, &st->kept);  // every MoE model on Stratum-L
            if (gain > 0.0) gains.push_back(gain);
          }
          if (gains.empty()) throw config_error("placement", "[strata.explain] Stratum-L holds no MoE model");
          place = std::pair{*std::min_element(gains.begin(), gains.end()), *std::max_element(gains.begin(), gains.end())};
        }
        out.push_back(id.ends_with("_min") ? place->first : place->second);
      } else {
        throw config_error("id", "[strata.explain] not a row of stratum results: " + id);
      }
    }
    return out;
  };
  return g;
}

/// The `gpu validation` group (file comment).
template <class = void>
inline explain_group validation_explain_group() {
  struct state {
    gpu_knobs knobs = published_gpu_fit().knobs;
    std::map<std::string, gpu_params> cards;
    std::map<std::string, prepared_measurement> rows;  // by report id
  };
  auto st = std::make_shared<state>();
  const fit_options fo{};
  for (const auto& m : published_gpu_measurements()) {
    if (m.set != measurement_set::check) continue;
    auto p = prepare_measurement(m, fo.model);
    st->cards.emplace(m.gpu, p.gpu);
    st->rows.emplace("validation.check." + m.id, std::move(p));
  }
  explain_group g;
  g.family = "gpu validation";
  for (const auto& [id, p] : st->rows) g.row_ids.push_back(id);
  detail::explain_add_struct(g, st->knobs, "gpu_knobs", "gpu_knobs", {});
  for (auto& [name, card] : st->cards) {
    std::vector<std::string> feeds;
    for (const auto& [id, p] : st->rows) {
      if (p.row.gpu == name) feeds.push_back(id);
    }
    detail::explain_add_struct(g, card, name, "gpu_params", feeds,
                               {"memory_efficiency", "compute_efficiency", "op_overhead", "energy_per_flop"});
  }
  g.left_out = "each card's memory_efficiency, compute_efficiency, op_overhead and energy_per_flop: the fitted knobs "
               "(gpu_knobs.*) replace them; integer fields (gpus_per_node)";
  g.evaluate = [st, model = fo.model](const std::vector<std::string>& ids) {
    std::vector<double> out;
    for (const auto& id : ids) {
      const auto it = st->rows.find(id);
      if (it == st->rows.end()) throw config_error("id", "[strata.explain] not a row of gpu validation: " + id);
      it->second.gpu = st->cards.at(it->second.row.gpu);
      out.push_back(model_measurement(it->second, st->knobs, model).value);
    }
    return out;
  };
  return g;
}

/// Marks the card fields that vLLM runs `runs` (each its tensor-parallel GPUs and its model) on
/// `card` under vLLM's engine scheduler do not read as not read (`explain_parameter::read`): the FP8
/// and FP4 peaks where no run's weights are in that format, the GPU link where every run is on one
/// GPU, the node link where every run is within one node, and the usable memory fraction (the
/// engine's `gpu_memory_utilization` replaces it in `simulate_gpu`). A test re-runs each with a
/// changed value and finds the rows unchanged, bit for bit.
template <class = void>
inline void explain_mark_unread_card_fields(explain_group& g, const std::string& root, const gpu_params& card,
                                            const std::vector<std::pair<int, model>>& runs) {
  const auto unread = [&](const std::string& field) {
    std::string name = root;
    name += '.';
    name += field;
    for (auto& p : g.parameters) {
      if (p.name == name) p.read = false;
    }
  };
  bool fp8 = false, fp4 = false, link = false, node = false;
  for (const auto& [tp, m] : runs) {
    fp8 = fp8 || m.weight_bits == 8;
    fp4 = fp4 || m.weight_bits == 4;
    link = link || tp > 1;
    node = node || (card.gpus_per_node > 0 && tp > card.gpus_per_node);
  }
  if (!fp8) unread("peak_flops_fp8");
  if (!fp4) unread("peak_flops_fp4");
  if (!link) {
    unread("link_bandwidth");
    unread("link_latency");
  }
  if (!node) {
    unread("node_link_bandwidth");
    unread("node_link_latency");
  }
  unread("usable_memory_fraction");
}

/// A `vLLM serving` group: the runs on `card` as `serving_validation_rows(card, id0, knobs)` (file
/// comment).
template <class = void>
inline explain_group serving_explain_group(const gpu_params& card, const std::string& id0, const std::string& knobs,
                                           const std::string& family) {
  // A vLLM run's result on a card (its means and stages; the per-request times dropped).
  struct simulated {
    std::string run;
    gpu_params card;
    serving_result result;
  };
  struct state {
    gpu_params card;
    std::vector<paper_row> last;  // the rows at the last state run, and that state
    std::optional<gpu_params> last_card;
    // Every run simulated so far, by run and card: a point asked for the pooled rows after the
    // rows of one run (its own part, `explain_group::parts`) simulates only the other runs.
    std::deque<simulated> done;
    // Each run's requests (`vllm_run_requests`, by run key), drawn at its first simulation: they
    // read the run's workload, not the card the explainer changes.
    std::vector<std::pair<std::string, std::vector<request>>> requests;
  };
  auto st = std::make_shared<state>();
  st->card = card;
  explain_group g;
  g.family = family;
  for (const auto& r : serving_validation_rows(card, id0, knobs)) {
    if (r.check != row_check::predict) g.row_ids.push_back(r.id);
  }
  // Each vLLM run's rows are one part (one simulation); the rows pooled over the runs need them all.
  const auto runs = mixtral_tp2_h100_vllm_runs();
  const auto run_of = [id0, runs](const std::string& id) -> std::optional<std::string> {
    for (const auto& run : runs) {
      if (id.rfind(id0 + run.key + ".", 0) == 0) return run.key;
    }
    return std::nullopt;
  };
  for (const auto& run : runs) {
    std::vector<std::string> part;
    for (const auto& id : g.row_ids) {
      if (run_of(id) == run.key) part.push_back(id);
    }
    g.parts.push_back(std::move(part));
  }
  g.parts.push_back(g.row_ids);
  detail::explain_add_struct(g, st->card, "h100_sxm5", "gpu_params", {},
                             {"memory_energy", "tdp", "static_power", "energy_per_flop", "link_energy", "node_link_energy"});
  std::vector<std::pair<int, model>> served;
  for (const auto& run : mixtral_tp2_h100_vllm_runs()) served.emplace_back(run.gpus, preset(run.model));
  explain_mark_unread_card_fields(g, "h100_sxm5", card, served);
  g.left_out = "the card's energy and power fields (the rows are times), integer fields (gpus_per_node)";
  g.costly = true;  // a run of one vLLM run gives its rows; the pooled rows need the three
  g.evaluate = [st, id0, knobs, run_of](const std::vector<std::string>& ids) {
    bool held = st->last_card && *st->last_card == st->card;
    for (const auto& id : ids) held = held && detail::explain_find(st->last, id) != nullptr;
    if (!held) {
      // The runs the rows come from; a pooled row (no run of its own) needs every run.
      std::vector<std::string> keys;
      bool every = false;
      for (const auto& id : ids) {
        const auto k = run_of(id);
        if (!k) every = true;
        if (k && std::find(keys.begin(), keys.end(), *k) == keys.end()) keys.push_back(*k);
      }
      const auto simulate = [&st](const vllm_serving_run& run) -> const serving_result& {
        for (const auto& d : st->done) {
          if (d.run == run.key && d.card == st->card) return d.result;
        }
        const std::vector<request>* reqs = nullptr;
        for (const auto& [key, rq] : st->requests) {
          if (key == run.key) reqs = &rq;
        }
        if (reqs == nullptr) reqs = &st->requests.emplace_back(run.key, vllm_run_requests(run)).second;
        auto r = simulate_vllm_run(run, st->card, *reqs);
        r.first_token_s = {};
        r.finish_s = {};
        st->done.push_back({run.key, st->card, std::move(r)});
        return st->done.back().result;
      };
      st->last = serving_validation_rows_with(st->card, id0, knobs, every ? std::vector<std::string>{} : keys, simulate);
      st->last_card = st->card;
    }
    std::vector<double> out;
    for (const auto& id : ids) {
      const auto* r = detail::explain_find(st->last, id);
      if (r == nullptr) throw config_error("id", "[strata.explain] not a row of the serving runs: " + id);
      out.push_back(r->value);
    }
    return out;
  };
  return g;
}

/// The card fields a serving run's time does not read (its energy and power fields).
template <class = void>
inline const std::vector<std::string>& explain_serving_card_skip() {
  static const std::vector<std::string> skip{"memory_energy", "tdp", "static_power", "energy_per_flop", "link_energy",
                                             "node_link_energy"};
  return skip;
}

/// A `vLLM campaign, <run>` group: the rows of campaign run `run` (model `m`) as
/// `vllm_campaign_run_rows` builds them on a changed H100 card (file comment).
template <class = void>
inline explain_group campaign_explain_group(const vllm_campaign_run& run, const model& m) {
  struct state {
    gpu_params card = baseline_gpu(h100_sxm5());
    std::vector<paper_row> last;
    std::optional<gpu_params> last_card;
    // The run's requests, drawn once: they read its workload, not the card the explainer changes.
    std::vector<request> requests;
  };
  auto st = std::make_shared<state>();
  st->requests = vllm_campaign_requests(run);
  explain_group g;
  g.family = "vLLM campaign, " + run.key;
  for (const auto& r : vllm_campaign_run_rows(run, m, st->card, st->requests)) {
    if (r.check != row_check::predict) g.row_ids.push_back(r.id);
  }
  detail::explain_add_struct(g, st->card, "h100_sxm5", "gpu_params", {}, explain_serving_card_skip());
  explain_mark_unread_card_fields(g, "h100_sxm5", st->card, {{run.tp, m}});
  g.left_out = "the card's energy and power fields (the rows are times and rates), integer fields (gpus_per_node); "
               "the run's settings (the measured run's, not beliefs)";
  g.costly = true;  // one simulation of the run gives every row
  g.evaluate = [st, run, m](const std::vector<std::string>& ids) {
    if (!st->last_card || !(*st->last_card == st->card)) {
      st->last = vllm_campaign_run_rows(run, m, st->card, st->requests);
      st->last_card = st->card;
    }
    std::vector<double> out;
    for (const auto& id : ids) {
      const auto* r = detail::explain_find(st->last, id);
      if (r == nullptr) throw config_error("id", "[strata.explain] not a row of campaign run " + run.key + ": " + id);
      out.push_back(r->value);
    }
    return out;
  };
  return g;
}

/// The `stratum thermal cap` group (file comment): `stratum.thermal.logic_power_limit_vs_paper_W`
/// on a changed `thermal::stratum_stack_params`.
template <class = void>
inline explain_group thermal_explain_group() {
  auto st = std::make_shared<thermal::stratum_stack_params>();
  explain_group g;
  g.family = "stratum thermal cap";
  const std::string id = "stratum.thermal.logic_power_limit_vs_paper_W";
  g.row_ids = {id};
  detail::explain_add_struct(g, *st, "stack", "stratum_stack_params", {}, {"chip.", "*.heat_capacity_J_m3K"});
  g.left_out = "the chip's fields (stack.chip.*, the Eq. 1-3 sizing and the memory die: each re-evaluation solves the "
               "32 x 32 grid, and their elasticities are the sizing's, docs/thermal.md), the layers' heat capacities "
               "(the cap is a steady state: they move nothing), the discretisation (integers and an enum)";
  g.costly = true;  // one factorisation of the stack (about 0.05 s) per re-evaluation
  // The re-evaluations share one grid: the factorisation's ordering is computed once, and a change
  // that moves no conductance (coolant, limit, DRAM power, refresh) re-uses the factors
  // (`thermal::steady_factorisation_cache`; the same rows, bit for bit).
  auto cache = std::make_shared<thermal::steady_factorisation_cache<>>();
  g.evaluate = [st, id, cache](const std::vector<std::string>& ids) {
    const auto rows = stratum_thermal_rows(*st, *cache);
    const auto* r = detail::explain_find(rows, id);
    std::vector<double> out;
    for (const auto& i : ids) {
      if (i != id || r == nullptr) throw config_error("id", "[strata.explain] not a row of the thermal cap: " + i);
      out.push_back(r->value);
    }
    return out;
  };
  return g;
}

/// The `hcrmap migration premise` group (file comment): `hcrmap.premise.migration_delays_dispatch`
/// as `hcrmap_premise_rows` computes it (without the suite) under a scanned link arbitration.
template <class = void>
inline explain_group migration_explain_group() {
  auto cp = std::make_shared<critical_path_params>();
  explain_group g;
  g.family = "hcrmap migration premise";
  const std::string id = "hcrmap.premise.migration_delays_dispatch";
  g.row_ids = {id};
  explain_choice ch;
  ch.name = "hcrmap.critical_path.arbitration";
  for (const auto& [e, name] : enum_names(link_arbitration{})) ch.values.emplace_back(name);
  ch.cited = static_cast<std::size_t>(cp->arbitration);
  ch.set = [cp](std::size_t i) { cp->arbitration = enum_names(link_arbitration{}).at(i).first; };
  ch.source = "chiplet/link_model.hpp link_arbitration: per_class (the report's default) or shared";
  g.choices.push_back(std::move(ch));
  g.left_out = "the substrate's real fields: the row is a boolean (an exact rule), no real change has an elasticity; "
               "the link arbitration is scanned";
  g.evaluate = [cp, id](const std::vector<std::string>& ids) {
    const auto rows = hcrmap_premise_rows({}, {}, substrate_params{}, *cp);
    const auto* r = detail::explain_find(rows, id);
    std::vector<double> out;
    for (const auto& i : ids) {
      if (i != id || r == nullptr) throw config_error("id", "[strata.explain] not a row of the migration premise: " + i);
      out.push_back(r->value);
    }
    return out;
  };
  return g;
}

/// What the families that rerun the HCRMap experiments reproduce: the report's inputs of the
/// `hcrmap.*` rows and, for a test, a smaller suite (the report: every Table 2 model, the default
/// knobs).
struct hcrmap_explain_setup {
  std::optional<std::string> dsv2lite_trace;  ///< the real DeepSeek-V2-Lite trace (`paper_report_options::dsv2lite_trace`)
  controller_value value;                      ///< HCRMap's value function (`paper_report_options::hcrmap_value`)
  std::vector<std::string> models = hcrmap_models();  ///< the suite's models, in its order
  experiment_params xp{};                      ///< the suite's knobs (the report's: the defaults)
  /// The suite's traces shared with the report (`explain_options::hcrmap_traces`); empty: the
  /// family builds its own
  std::shared_ptr<hcrmap_trace_cache> traces;
  /// Threads over which one evaluation of the `hcrmap hydra premise` family spreads its 16
  /// experiments (8 models, prefill and decode, each with both policies; `detail::run_tasks`; 0:
  /// the machine's hardware threads; `explain_options::threads` in `explain_families`). Each
  /// experiment keeps its own windows and lands in its fixed place: the same rows for every count.
  unsigned threads = 1;
};

namespace detail {
/// The suite's models of `setup` with their traces (`hcrmap_trace`, from `setup.traces` when it
/// is given, else from a cache of the family's own), each built when first asked for, and each
/// experiment's windows (prefill, decode) kept from one evaluation to the next: the parameters the
/// families change (the substrate's and the critical path's real fields, the package plan's) leave
/// the chiplet count and the windows' knobs alone, so the windows are built once (`run_experiment`
/// rebuilds them if not).
struct hcrmap_explain_cases {
  std::optional<std::string> csv;
  // The traces, each at a stable address for the cache's life (the windows name a trace by it).
  std::shared_ptr<hcrmap_trace_cache> traces;
  std::vector<model> models;
  std::vector<std::array<experiment_windows, 2>> windows;  // by model: prefill, decode

  explicit hcrmap_explain_cases(const hcrmap_explain_setup& setup)
      : csv(setup.dsv2lite_trace), traces(setup.traces ? setup.traces : std::make_shared<hcrmap_trace_cache>()) {
    for (const auto& name : setup.models) models.push_back(preset(name));
    windows.resize(models.size());
  }
  const routing_trace& trace(std::size_t i) { return traces->get(models[i], csv); }
  /// The work of experiment (model i, prefill when `prefill`) per policy, for ordering runs: MoE
  /// layers x experts (the suite's measure), prefill's 2048 tokens 4x decode's 512.
  [[nodiscard]] double work(std::size_t i, bool prefill) const {
    return double(models[i].moe_layers()) * double(models[i].experts) * (prefill ? 4.0 : 1.0);
  }
  /// Experiment (model i, prefill when `prefill`) with `policies` (`run_hcrmap_case`), its
  /// windows kept.
  experiment_result run(const substrate& s, std::size_t i, bool prefill, const std::vector<policy_kind>& policies,
                        const experiment_params& xp, const action_scorer& value = {}) {
    return run_hcrmap_case(s, models[i], trace(i), prefill, csv, policies, xp, value, &windows[i][prefill ? 0 : 1]);
  }
};
}  // namespace detail

/// The `hcrmap hydra premise` group (file comment): `hcrmap.premise.hydra_d2d_ratio` and
/// `hydra_latency_ratio` as `hcrmap_hydra_ratios` computes them, on the suite's experiments run
/// with single-copy static and Hydra alone (`run_hcrmap_case`; the two rows read no other policy,
/// and a policy's result does not depend on which others run beside it: a test compares them with
/// the whole suite's). Parameters: the real fields of the substrate (`hcrmap.substrate.*`), of
/// the critical path (`hcrmap.critical_path.*`) and of the package plan (`hcrmap.scale_out.*`),
/// their energies left out. Only fields that size the package plan and the tiers (capacities,
/// reserves, the copy budget) feed the D2D row: a token's D2D bytes are its activation bytes times
/// the XY hops from its source to the chiplet of the expert's one copy, and that chiplet is set by
/// the layout (static: round-robin over a stage's (layer, expert); Hydra: the profile's dominant
/// source), which reads the stages of `plan_packages` (capacities only) and never a time.
template <class = void>
inline explain_group hydra_explain_group(const hcrmap_explain_setup& setup = {}) {
  struct state {
    substrate_params sp;
    experiment_params xp;
    detail::hcrmap_explain_cases cases;
    explicit state(const hcrmap_explain_setup& s) : xp(s.xp), cases(s) {}
  };
  auto st = std::make_shared<state>(setup);
  explain_group g;
  g.family = "hcrmap hydra premise";
  const std::string d2d = "hcrmap.premise.hydra_d2d_ratio", lat = "hcrmap.premise.hydra_latency_ratio";
  g.row_ids = {d2d, lat};
  const std::vector<std::string> time_only{lat};
  // The energies move neither row; the times move the latency only (file comment).
  detail::explain_add_struct(g, st->sp, "hcrmap.substrate", "substrate_params", {}, {"*.energy"});
  for (auto& p : g.parameters) {
    const bool sizes = p.name.ends_with(".capacity");
    if (!sizes) p.feeds = time_only;
    if (p.name == "hcrmap.substrate.chiplet_buffer") p.read = false;  // no model reads it (validated only)
  }
  const std::size_t substrate_fields = g.parameters.size();
  detail::explain_add_struct(g, st->xp.critical_path, "hcrmap.critical_path", "critical_path_params", time_only,
                             {"energy_per_flop", "noc_energy", "migration_control_energy"});
  detail::explain_add_struct(g, st->xp.scale_out, "hcrmap.scale_out", "scale_out_params", {}, {"*.energy"});
  for (std::size_t i = substrate_fields; i < g.parameters.size(); ++i) {
    if (g.parameters[i].name.rfind("hcrmap.scale_out.link.", 0) == 0) g.parameters[i].feeds = time_only;
  }
  g.left_out = "the energy fields (the rows are a byte count and a time); integer, boolean and enum fields (the mesh, "
               "the cores, the flits, the attachments, the HBM placement, the arbitration, the KV placement); the "
               "fast mapper's, the controller's and PIM's knobs (read by HCRMap and PIMoE, not by static or Hydra). "
               "Only the fields that size the package plan and the tiers feed the D2D row (a copy's chiplet is set by "
               "the layout, which reads no time); the substrate's chiplet_buffer is read by no model";
  g.costly = true;  // one run: the suite's 16 experiments with two policies (about 0.5 s of CPU, windows kept)
  // The experiments of an evaluation, longest first (`hcrmap_explain_cases::work`): on several
  // threads the longest start first, which decides only when each ends.
  std::vector<std::size_t> order(2 * st->cases.models.size());
  for (std::size_t j = 0; j < order.size(); ++j) order[j] = j;
  std::stable_sort(order.begin(), order.end(), [st](std::size_t a, std::size_t b) {
    const std::size_t n = st->cases.models.size();
    return st->cases.work(a % n, a < n) > st->cases.work(b % n, b < n);
  });
  g.evaluate = [st, d2d, lat, order, threads = setup.threads](const std::vector<std::string>& ids) {
    const substrate s(st->sp);
    const std::vector<policy_kind> pol{policy_kind::single_copy_static, policy_kind::hydra};
    // Experiment j < n is model j in prefill, n + j model j in decode, each in its fixed place.
    const std::size_t n = st->cases.models.size();
    std::vector<experiment_result> prefill(n), decode(n);
    detail::run_tasks(order.size(), threads, [&](std::size_t k) {
      const std::size_t j = order[k];
      (j < n ? prefill : decode)[j % n] = st->cases.run(s, j % n, j < n, pol, st->xp);
    });
    const auto h = hcrmap_hydra_ratios(prefill, decode);
    std::vector<double> out;
    for (const auto& id : ids) {
      if (id != d2d && id != lat) throw config_error("id", "[strata.explain] not a row of the hydra premise: " + id);
      out.push_back(id == d2d ? h.d2d : h.latency);
    }
    return out;
  };
  return g;
}

/// The `hcrmap best on every model` group (file comment): `hcrmap.best_on_every_model` as
/// `hcrmap_policy_rows` computes it (`hcrmap_leads` in every experiment of the suite), its
/// experiments run with the compared policies and HCRMap alone (`run_hcrmap_case`). The row is a
/// boolean: no real change has an elasticity, so its discrete parameters are scanned
/// (`explain_choice`): the link arbitration, the weight stream's overlap, the KV cache's tier, the
/// HBM tier's placement and (when the report's HCRMap decides with a learned value) the value
/// function. A run stops at the first experiment HCRMap does not lead, where the row is 0 whatever
/// the others give; the experiments run cheapest first (the suite's work measure), the ones a
/// run found HCRMap not leading moved to the front. The value is the same in any order, and a row
/// of 1 has run every experiment.
template <class = void>
inline explain_group best_explain_group(const hcrmap_explain_setup& setup = {}) {
  struct state {
    substrate_params sp;
    experiment_params xp;
    controller_value value;
    bool learned = true;  ///< HCRMap decides with `value` (false: the greedy rule)
    detail::hcrmap_explain_cases cases;
    std::vector<std::pair<std::size_t, bool>> order;  ///< (model, prefill), the next run's order
    explicit state(const hcrmap_explain_setup& s) : xp(s.xp), value(s.value), cases(s) {}
  };
  auto st = std::make_shared<state>(setup);
  std::vector<policy_kind> pol = hcrmap_compared_policies();
  pol.push_back(policy_kind::hcrmap);
  for (const bool pre : {true, false}) {
    for (std::size_t i = 0; i < st->cases.models.size(); ++i) st->order.emplace_back(i, pre);
  }
  // Cheapest first (`hcrmap_explain_cases::work`): prefill after decode of the same model.
  std::stable_sort(st->order.begin(), st->order.end(), [st](const auto& a, const auto& b) {
    return st->cases.work(a.first, a.second) < st->cases.work(b.first, b.second);
  });
  explain_group g;
  g.family = "hcrmap best on every model";
  const std::string id = "hcrmap.best_on_every_model";
  g.row_ids = {id};
  const auto add = [&g](std::string name, auto cited, auto names, auto set, std::string source) {
    explain_choice ch;
    ch.name = std::move(name);
    for (const auto& [e, n] : names) {
      if (e == cited) ch.cited = ch.values.size();
      ch.values.emplace_back(n);
    }
    ch.set = [names, set](std::size_t i) { set(names.at(i).first); };
    ch.source = std::move(source);
    g.choices.push_back(std::move(ch));
  };
  add("hcrmap.critical_path.arbitration", st->xp.critical_path.arbitration, enum_names(link_arbitration{}),
      [st](link_arbitration a) { st->xp.critical_path.arbitration = a; },
      "chiplet/link_model.hpp link_arbitration: per_class (HCRMap §4.4 separates the classes K_L) or shared");
  add("hcrmap.critical_path.memory_overlap", st->xp.critical_path.overlap, enum_names(memory_overlap{}),
      [st](memory_overlap m) { st->xp.critical_path.overlap = m; },
      "chiplet/layer_model.hpp memory_overlap: compute_only (HCRMap Eq. 15) or dispatch_and_queue");
  add("hcrmap.scale_out.residency.kv", st->xp.scale_out.residency.kv, enum_names(kv_placement{}),
      [st](kv_placement k) { st->xp.scale_out.residency.kv = k; },
      "chiplet/residency.hpp kv_placement: hbm_first (the default: KV is read every decode step), dram or by_pressure");
  add("hcrmap.substrate.hbm_placement", st->sp.hbm_at, enum_names(hbm_placement{}),
      [st](hbm_placement h) { st->sp.hbm_at = h; },
      "chiplet/substrate.hpp hbm_placement: chiplet_local (HCRMap §4.2, Fig. 4) or behind_io");
  if (setup.value.score) {
    explain_choice ch;
    ch.name = "hcrmap.controller.value";
    ch.values = {setup.value.name, "greedy"};
    ch.cited = 0;
    ch.set = [st](std::size_t i) { st->learned = i == 0; };
    ch.source = "report/hcrmap_rows.hpp: the report's value function, or the greedy one-step rule (HCRMap §6.4, "
                "the ablation hcrmap.ablation.greedy_scorer.*)";
    g.choices.push_back(std::move(ch));
  }
  g.left_out = "the real fields of the substrate and the knobs: the row is a boolean (an exact rule), no real change "
               "has an elasticity, and a scan of one would rerun the suite per point; the discrete parameters are "
               "scanned; the package plan's scale-out kind (none: the larger models fit no single package)";
  g.costly = true;  // a run is up to the suite's 16 experiments with six policies
  g.evaluate = [st, id, pol](const std::vector<std::string>& ids) {
    const substrate s(st->sp);
    const action_scorer value = st->learned ? st->value.score : action_scorer{};
    double best = 1.0;
    for (std::size_t k = 0; k < st->order.size(); ++k) {
      const auto [i, pre] = st->order[k];
      if (hcrmap_leads(st->cases.run(s, i, pre, pol, st->xp, value))) {
        continue;
      }
      best = 0.0;  // not led here: the row is 0 whatever the other experiments give
      std::rotate(st->order.begin(), st->order.begin() + static_cast<std::ptrdiff_t>(k),
                  st->order.begin() + static_cast<std::ptrdiff_t>(k) + 1);
      break;
    }
    std::vector<double> out;
    for (const auto& i : ids) {
      if (i != id) throw config_error("id", "[strata.explain] not a row of the best-on-every-model family: " + i);
      out.push_back(best);
    }
    return out;
  };
  return g;
}

/// The families of the report's rows the explainer re-evaluates: the id prefix that selects a
/// family and how to build its group.
struct explain_family_entry {
  std::string name;
  std::function<bool(const std::string& id)> owns;
  std::function<explain_group()> make;
};

/// The families (`explain_family_entry`); `o.hf_dir` and `o.read_config` rebuild the campaign runs
/// of `config.json` fixtures (without them those runs have no family, as the report then has no
/// rows of them).
template <class = void>
inline std::vector<explain_family_entry> explain_families(const explain_options& o) {
  const std::string sv = "validation.serving.mixtral_tp2_h100.";
  std::vector<explain_family_entry> out{
      {"stratum results",
       [](const std::string& id) {
         return id.rfind("stratum.system.olmoe.", 0) == 0 || id.rfind("stratum.system.mixtral.", 0) == 0 ||
                id.rfind("stratum.placement.accurate_vs_uniform_m", 0) == 0;
       },
       [] { return stratum_explain_group(); }},
      {"gpu validation",
       [](const std::string& id) { return id.rfind("validation.check.", 0) == 0 && id != "validation.check.median_abs_error"; },
       [] { return validation_explain_group(); }},
      {"vLLM serving, cited knobs",
       [sv](const std::string& id) { return id.rfind(sv, 0) == 0 && id.rfind(sv + "fitted_knobs.", 0) != 0; },
       [sv] { return serving_explain_group(baseline_gpu(h100_sxm5()), sv, "cited knobs", "vLLM serving, cited knobs"); }},
      {"vLLM serving, fitted knobs",
       [sv](const std::string& id) { return id.rfind(sv + "fitted_knobs.", 0) == 0; },
       [sv] {
         return serving_explain_group(validated_gpu(h100_sxm5()), sv + "fitted_knobs.",
                                      "knobs fitted on tests/data/measurements", "vLLM serving, fitted knobs");
       }},
      {"stratum thermal cap", [](const std::string& id) { return id == "stratum.thermal.logic_power_limit_vs_paper_W"; },
       [] { return thermal_explain_group(); }},
      {"hcrmap migration premise", [](const std::string& id) { return id == "hcrmap.premise.migration_delays_dispatch"; },
       [] { return migration_explain_group(); }},
  };
  hcrmap_explain_setup hs;
  hs.dsv2lite_trace = o.dsv2lite_trace;
  hs.value = o.hcrmap_value;
  hs.traces = o.hcrmap_traces;
  hs.threads = o.threads;
  out.push_back({"hcrmap best on every model", [](const std::string& id) { return id == "hcrmap.best_on_every_model"; },
                 [hs] { return best_explain_group(hs); }});
  if (o.hcrmap_hydra_premise) {
    out.push_back({"hcrmap hydra premise",
                   [](const std::string& id) {
                     return id == "hcrmap.premise.hydra_d2d_ratio" || id == "hcrmap.premise.hydra_latency_ratio";
                   },
                   [hs] { return hydra_explain_group(hs); }});
  }
  for (const auto& run : vllm_campaign_runs()) {
    if (!run.hf_fixture.empty() && (!o.hf_dir || !o.read_config)) continue;
    const std::string prefix = "validation.serving.campaign." + run.key + ".";
    out.push_back({"vLLM campaign, " + run.key, [prefix](const std::string& id) { return id.rfind(prefix, 0) == 0; },
                   [run, hf = o.hf_dir, read = o.read_config] {
                     return campaign_explain_group(run, vllm_campaign_model(run, hf, read));
                   }});
  }
  return out;
}

/// The families with the default options (the campaign runs of preset models only).
template <class = void>
inline std::vector<explain_family_entry> explain_families() {
  return explain_families(explain_options{});
}

/// Why a failing check row has no evaluator.
template <class = void>
inline std::string explain_unexplained_reason(const std::string& id) {
  if (id == "hcrmap.premise.hydra_d2d_ratio" || id == "hcrmap.premise.hydra_latency_ratio") {
    return "computed from the 16 HCRMap experiments: its family reruns them with static and Hydra at every point "
           "(a run for each parameter's difference and each point of its walks, about 0.5 s of CPU each: about half a minute, "
           "far over the report's time budget, docs/paper_report.md), so it runs only when asked: "
           "strata-eval explain " + id + ", strata-paper-report --explain-all (explain_options::hcrmap_hydra_premise)";
  }
  if (id.rfind("hcrmap.", 0) == 0) {
    return "computed from the 16 HCRMap experiments: each re-evaluation runs them all (most of the report's time, "
           "about 20 s of CPU), and the elasticities alone would take one run per real parameter of the substrate: "
           "beyond the explainer's time budget, so no gap is verified; the row's derivation is the hand-written one";
  }
  if (id.rfind("validation.serving.campaign.", 0) == 0) {
    return "a campaign run of a config.json fixture: the explainer was given no hf_dir and config reader "
           "(explain_options::hf_dir, read_config)";
  }
  return "no evaluator registered for this row's family (explain_families)";
}

/// Explains every failing check row of `report` (all rows of the families given, as
/// `paper_rows` returns them); `only`, when not empty, restricts to those row ids.
template <class = void>
inline explanation explain_report(const std::vector<paper_row>& report, const std::vector<std::string>& only = {},
                                  const explain_options& o = {}) {
  explanation out;
  std::vector<std::string> failing;
  for (const auto& r : report) {
    if (r.kind != row_kind::check || r.ok().value_or(true)) continue;
    if (!only.empty() && std::find(only.begin(), only.end(), r.id) == only.end()) continue;
    failing.push_back(r.id);
  }
  std::vector<bool> taken(failing.size(), false);
  // The families with failing rows, each explained on one thread with its own group (its own
  // state), then gathered in family order: the same explanation for every thread count.
  struct task {
    const explain_family_entry* fam;
    std::vector<std::string> ids;
    std::vector<row_explanation> rows;
    std::optional<family_line> line;
    std::size_t evaluations = 0;
    explain_counts counts{};
  };
  const auto families = explain_families(o);
  std::vector<task> tasks;
  for (const auto& fam : families) {
    task t{&fam, {}, {}, std::nullopt, 0, {}};
    for (std::size_t i = 0; i < failing.size(); ++i) {
      if (fam.owns(failing[i])) {
        t.ids.push_back(failing[i]);
        taken[i] = true;
      }
    }
    if (!t.ids.empty()) tasks.push_back(std::move(t));
  }
  detail::run_tasks(tasks.size(), o.threads, [&](std::size_t k) {
    auto& t = tasks[k];
    auto g = t.fam->make();
    // The group's rows the report does not hold cannot be judged: leave them out of the family line.
    std::vector<std::string> held;
    for (const auto& id : g.row_ids) {
      if (detail::explain_find(report, id) != nullptr) held.push_back(id);
    }
    g.row_ids = held;
    // One runner for the rows and the family line: the line's single changes are points the rows ran.
    detail::explain_runner run{&g, &t.evaluations};
    t.rows = explain_group_rows(g, report, t.ids, o, run);
    if (o.families) t.line = explain_family(g, report, t.rows, run);
    t.counts = run.counts;
  });
  for (auto& t : tasks) {
    out.evaluations += t.evaluations;
    out.counts += t.counts;
    if (t.line) out.families.push_back(std::move(*t.line));
    for (auto& r : t.rows) out.rows.push_back(std::move(r));
  }
  for (std::size_t i = 0; i < failing.size(); ++i) {
    if (!taken[i]) out.unexplained.push_back({failing[i], explain_unexplained_reason(failing[i])});
  }
  return out;
}

}  // namespace v0
}  // namespace strata
