// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The Stratum system as a serving system (Stratum §5.1, §6): `simulate_stratum` prepares the
/// machine, one layout per topic label and the mix layout (Algorithm 1 on the usage tables,
/// `topic_usage.hpp`), their swap costs (`row_swap.hpp`), the memoised step costs
/// (`stratum_step_costs.hpp`) and the classifier's labels and latencies (`classifier.hpp`), then
/// serves the requests through the paper's event loop (`run_serving`, `serving/simulator.hpp`,
/// whose file comment describes the loop, the layouts and hit rates, and the results) or through
/// the engine (`scheduler.loop: "engine"`, `run_stratum_engine`, with Stratum's policy of
/// `stratum_engine.hpp`). Stratum's own part of the serving wing (`serving/`), which holds what every
/// machine shares.

#include <algorithm>   // std::max, std::min, std::stable_sort
#include <cstddef>     // std::size_t
#include <cstdint>     // std::int64_t
#include <functional>  // std::function
#include <memory>      // std::make_shared, std::shared_ptr
#include <optional>    // std::optional, the memo's prepared machine
#include <string>      // std::to_string
#include <utility>     // std::move
#include <vector>      // std::vector

#include "strata/core/error.hpp"
#include "strata/core/result_check.hpp"
#include "strata/core/rng.hpp"
#include "strata/serving/engine.hpp"
#include "strata/serving/engine_core.hpp"
#include "strata/serving/requests.hpp"
#include "strata/serving/scheduler.hpp"
#include "strata/serving/simulator.hpp"
#include "strata/stratum/row_swap.hpp"
#include "strata/stratum/serving/classifier.hpp"
#include "strata/stratum/serving/stratum_engine.hpp"
#include "strata/stratum/serving/stratum_step_costs.hpp"
#include "strata/stratum/serving/topic_usage.hpp"
#include "strata/stratum/system.hpp"
#include "strata/workload/trace.hpp"

namespace strata {
inline namespace v0 {

/// What the Stratum run is made of.
struct stratum_serving_setup {
  stratum_system_params<> system = stratum_l();
  model m;
  topic_tables usage;              ///< one table per topic (the requests' topic indices)
  std::vector<double> mix;         ///< topic weights of the mix layout (empty: uniform)
  classifier_params<> classifier{};
  scheduler_params scheduler{};
};

namespace detail {

/// The Stratum system served through the engine (`stratum_engine.hpp`): `run_serving`'s inputs
/// (`labels[r]`, `ready[r]` = arrival + classifier latency, `device_s[r]` the classifier's device
/// time, the cost callbacks `sm`), one engine core of ⌊kv_tokens / block_size⌋ blocks under
/// `sp.engine` and `sp.max_batch` (`stratum_engine_settings`), costed and scheduled by
/// `stratum_engine_costs`; requests reach it at their ready times.
template <class = void>
inline serving_result run_stratum_engine(const std::vector<request>& reqs, const std::vector<int>& labels,
                                         const std::vector<double>& ready, const std::vector<double>& device_s,
                                         const scheduler_params& sp, const serving_model& sm) {
  const std::size_t n = reqs.size();
  serving_result out;
  out.requests = static_cast<std::int64_t>(n);
  const engine_params ep = stratum_engine_settings(sp);
  const engine_limits lim{.max_num_batched_tokens = sp.engine.max_num_batched_tokens, .max_num_seqs = sp.max_batch};
  const std::int64_t blocks = sm.kv_tokens / ep.block_size;
  out.kv_tokens = blocks * ep.block_size;
  const auto order = arrival_order(reqs);
  std::vector<std::size_t> admit(n);
  for (std::size_t i = 0; i < n; ++i) admit[i] = i;
  std::stable_sort(admit.begin(), admit.end(), [&](std::size_t a, std::size_t b) { return ready[a] < ready[b]; });
  engine_request_state st(n);
  stratum_engine_costs<serving_model> costs(reqs, labels, st, sm, sp);
  engine_core<stratum_engine_costs<serving_model>> core(reqs, st, ep, lim, blocks, costs);
  for (std::size_t r = 0; r < n; ++r) {
    auto why = core.unfit(r);
    if (why.empty()) why = core.unfit_prompt(r);
    if (!why.empty()) {
      out.feasible = false;
      out.reason = std::move(why);
      return out;
    }
  }
  if (!drive_engine(
          out, core, st, reqs, order, admit, engine_pass_bound(reqs, lim), sp, [&](std::size_t r) { return ready[r]; },
          [&](std::size_t r) { costs.owe(device_s[r]); }, [&](double t) { costs.at(t); })) {
    return out;
  }
  const auto& c = costs.counts();
  out.swaps = c.swaps;
  out.swap_time_s = c.swap_time_s;
  out.classifier_time_s = c.classifier_time_s;
  out.swap_share = out.busy_time_s > 0.0 ? out.swap_time_s / out.busy_time_s : 0.0;
  out.classifier_share = out.busy_time_s > 0.0 ? out.classifier_time_s / out.busy_time_s : 0.0;
  out.hot_hit_rate = c.decode_tokens > 0.0 ? c.hit_tokens / c.decode_tokens : 0.0;
  return out;
}

/// KV tokens the rows between the packs hold (the smallest stage).
template <class = void>
inline std::int64_t stratum_kv_tokens(const stratum_machine<>& sm, const model& m, const stratum_placement& pl) {
  const double per_token_layer = kv_bytes_per_token_layer(m).in(units::B);
  const int in_flight = sm.params.stages > 1 ? 2 : 1;
  if (pl.stages.empty()) return 0;
  double best = 1e15;  // the cap of a capacity in tokens
  for (const auto& st : pl.stages) {
    const double bytes = static_cast<double>(std::max<long long>(0, st.plan.kv_region.rows())) * st.rest.row_bytes() *
                         sm.params.chips;
    const double tok = bytes / (per_token_layer * (st.last_layer - st.first_layer) * in_flight);
    best = std::min(best, tok);
  }
  return static_cast<std::int64_t>(std::max(0.0, best));
}
}  // namespace detail

/// What `simulate_stratum` derives from a setup's system, model, usage and mix before it serves a
/// request: the prepared machine, the layouts (one per topic, then the mix) and their hot masks,
/// the step costs (memoised by grid point, `stratum_step_costs`) and the layouts' swap costs. A
/// run given a memo of the same system, model, usage and mix (compared by value) takes them from
/// it and leaves there what it adds; a memo of another setup is started afresh. A sweep of request
/// rates or scheduling policies over one setup (`serving_rows`) so computes them once; every
/// result is the same with and without a memo. Not for two runs at once (one memo per thread).
struct stratum_serving_memo {
  stratum_system_params<> system = stratum_l();
  model m;
  topic_tables usage;
  std::vector<double> mix;
  std::optional<stratum_machine<>> machine;
  std::vector<stratum_placement> layouts;
  std::vector<std::vector<unsigned char>> masks;
  std::shared_ptr<stratum_step_costs> costs;
  std::vector<std::optional<step_cost>> swaps;  ///< (from, to) over T + 1 layouts; empty: not costed yet

  /// Whether the memo's contents are those of `setup` (its system, model, usage and mix).
  template <class = void>
  [[nodiscard]] bool of(const stratum_serving_setup& setup) const {
    return machine && system == setup.system && m == setup.m && usage.topics == setup.usage.topics &&
           usage.tables == setup.usage.tables && mix == setup.mix;
  }
  /// Empties the memo and keys it by `setup`.
  template <class = void>
  void reset(const stratum_serving_setup& setup) {
    *this = stratum_serving_memo{};
    system = setup.system;
    m = setup.m;
    usage = setup.usage;
    mix = setup.mix;
  }
};

namespace detail {
/// Installs a run's extra hooks (the thermal coupling) given its prepared machine; empty: none.
using serving_coupling = std::function<void(serving_model&, const stratum_machine<>&)>;

/// `simulate_stratum` with `couple` called on the run's callbacks before it starts.
template <class = void>
inline serving_result simulate_stratum_impl(const stratum_serving_setup& setup, const std::vector<request>& reqs,
                                            const routing_trace* trace, const topic_hook& hook,
                                            stratum_serving_memo* memo, const serving_coupling& couple);
}  // namespace detail

/// Runs `reqs` (topic indices into `setup.usage.topics`) on the Stratum system (file comment).
/// With a `trace`, requests made by `requests_from_trace` route by its recorded tokens; `hook`
/// replaces the modelled classifier's labels (its latency is still charged). `memo`, when given,
/// keeps what the run derives from the setup for the next run of the same setup
/// (`stratum_serving_memo`).
template <class = void>
inline serving_result simulate_stratum(const stratum_serving_setup& setup, const std::vector<request>& reqs,
                                       const routing_trace* trace = nullptr, const topic_hook& hook = {},
                                       stratum_serving_memo* memo = nullptr) {
  return detail::simulate_stratum_impl(setup, reqs, trace, hook, memo, {});
}

template <class>
inline serving_result detail::simulate_stratum_impl(const stratum_serving_setup& setup, const std::vector<request>& reqs,
                                                    const routing_trace* trace, const topic_hook& hook,
                                                    stratum_serving_memo* memo, const serving_coupling& couple) {
  constexpr const char* id = "strata.serving";
  const int T = static_cast<int>(setup.usage.topics.size());
  detail::require(T >= 1 && setup.usage.tables.size() == setup.usage.topics.size(), id, "usage.topics",
                  setup.usage.topics.size(), "at least one topic with one table each");
  detail::require(!reqs.empty(), id, "requests", 0, "at least one request");
  validate(setup.scheduler, "scheduler");
  validate(setup.classifier, T, "classifier");
  detail::validate_topic_mix(setup.usage.topics, setup.mix, "usage");
  const model& m = setup.m;
  validate(m);
  for (std::size_t r = 0; r < reqs.size(); ++r) {
    detail::require(reqs[r].topic >= 0 && reqs[r].topic < T, id, "requests[" + std::to_string(r) + "].topic",
                    reqs[r].topic, "a topic index of the usage tables");
    if (r > 0) detail::require(reqs[r].arrival_s >= reqs[r - 1].arrival_s, id, "requests", r, "requests in arrival order");
  }
  check_topic_cells(T, m.moe_layers(), m.experts, "usage.topics");
  check_serving_work(reqs, trace != nullptr ? T + 1 : 0, "requests");
  stratum_serving_memo own;
  stratum_serving_memo& mm = memo != nullptr ? *memo : own;
  if (!mm.of(setup)) {
    mm.reset(setup);
    mm.machine.emplace(prepare(setup.system));
  }
  const stratum_machine<>& sm = *mm.machine;
  const int L = m.moe_layers(), E = m.experts;
  serving_result res;
  res.system = setup.system.name;
  res.policy = setup.scheduler.policy == schedule_policy::topic ? "topic" : "fcfs";
  // Layouts: one per label, then the mix (index T).
  const step_shape small{.mode = phase::decode, .batch = 1, .context = 1};
  std::vector<stratum_placement>& layouts = mm.layouts;
  std::vector<std::vector<unsigned char>>& masks = mm.masks;
  std::vector<double> w = setup.mix.empty() ? std::vector<double>(static_cast<std::size_t>(T), 1.0) : setup.mix;
  // The mix's placement first: every topic's keeps its assignment of experts to chips (expert
  // parallel: a topic switch moves rows inside the chips, chip_assignment.hpp).
  if (layouts.empty()) {
    const stratum_placement mix_place =
        E > 0 ? place_model(sm, m, small, mix_usage(setup.usage.tables, w)) : stratum_placement{};
    for (int k = 0; k <= T; ++k) {
      if (E > 0) {
        layouts.push_back(k < T ? place_model(sm, m, small, setup.usage.tables[static_cast<std::size_t>(k)], &mix_place)
                                : mix_place);
        masks.push_back(fast_mask(layouts.back(), L, E));
      } else {
        layouts.push_back(place_model(sm, m, small));
        masks.emplace_back();
      }
    }
  }
  for (const auto& st : layouts.back().stages) {
    if (!st.plan.feasible || (E > 0 && !st.layout.feasible)) {
      res.feasible = false;
      res.reason = setup.system.name + ": " + m.name + " does not fit: " + st.plan.reason;
      res.requests = static_cast<std::int64_t>(reqs.size());
      return res;
    }
  }
  // H[t][k].
  std::vector<std::vector<double>> H(static_cast<std::size_t>(T), std::vector<double>(static_cast<std::size_t>(T) + 1, 0.0));
  double wsum = 0.0;
  for (double x : w) wsum += x;
  for (int t = 0; t < T && E > 0; ++t) {
    for (int k = 0; k <= T; ++k) {
      H[static_cast<std::size_t>(t)][static_cast<std::size_t>(k)] =
          hot_hit_rate(setup.usage.tables[static_cast<std::size_t>(t)], masks[static_cast<std::size_t>(k)]);
    }
    res.topic_hit_rates.push_back(H[static_cast<std::size_t>(t)][static_cast<std::size_t>(t)]);
    res.mix_hit_rate += w[static_cast<std::size_t>(t)] / wsum * H[static_cast<std::size_t>(t)][static_cast<std::size_t>(T)];
  }
  // Trace routing: per request, per layout, the hit of each decode token.
  std::vector<std::vector<std::vector<float>>> token_hits;
  if (trace != nullptr) {
    require_trace_of_model(*trace, m, "the serving trace");
    const auto seqs = detail::sequences_of(*trace);
    token_hits.resize(reqs.size());
    for (std::size_t r = 0; r < reqs.size(); ++r) {
      const auto s = reqs[r].trace_seq;
      detail::require(s >= 0 && static_cast<std::size_t>(s) < seqs.size(), id, "requests[" + std::to_string(r) + "].trace_seq",
                      s, "a sequence of the trace");
      const auto& sq = seqs[static_cast<std::size_t>(s)];
      detail::require(static_cast<std::size_t>(reqs[r].prompt) + static_cast<std::size_t>(reqs[r].output) <= sq.size(), id,
                      "requests[" + std::to_string(r) + "]", reqs[r].output, "prompt + output within its sequence");
      token_hits[r].assign(static_cast<std::size_t>(T) + 1, std::vector<float>(static_cast<std::size_t>(reqs[r].output)));
      for (int k = 0; k <= T; ++k) {
        for (int j = 0; j < reqs[r].output; ++j) {
          token_hits[r][static_cast<std::size_t>(k)][static_cast<std::size_t>(j)] = static_cast<float>(
              token_hot_hit(*trace, sq[static_cast<std::size_t>(reqs[r].prompt) + static_cast<std::size_t>(j)], masks[static_cast<std::size_t>(k)]));
        }
      }
    }
  }
  // Labels and classifier latency.
  const auto cdf = confusion_cdf(setup.classifier, T);
  detail::portable_rng g(setup.classifier.seed);
  std::vector<int> labels(reqs.size());
  std::vector<double> ready(reqs.size()), device(reqs.size());
  std::vector<std::optional<double>> lat_cache(static_cast<std::size_t>(setup.classifier.max_tokens) + 1);
  std::int64_t right = 0;
  double lat_sum = 0.0;
  for (std::size_t r = 0; r < reqs.size(); ++r) {
    int l = hook ? hook(reqs[r]) : draw_label(cdf, reqs[r].topic, g);
    detail::require(l >= 0 && l < T, id, "classifier hook", l, "a topic index");
    labels[r] = setup.scheduler.policy == schedule_policy::topic ? l : 0;
    right += l == reqs[r].topic ? 1 : 0;
    const int tok = std::min(reqs[r].prompt, setup.classifier.max_tokens);
    auto& memo = lat_cache[static_cast<std::size_t>(tok)];
    if (!memo) memo = classifier_latency(setup.classifier, sm.xpu, tok).si();
    const double lc = *memo;
    ready[r] = reqs[r].arrival_s + lc;
    device[r] = setup.classifier.on_device ? lc : 0.0;
    lat_sum += lc;
  }
  res.label_accuracy = static_cast<double>(right) / static_cast<double>(reqs.size());
  // Costs.
  if (!mm.costs) mm.costs = std::make_shared<stratum_step_costs>(sm, m);
  auto costs = mm.costs;
  if (mm.swaps.empty()) mm.swaps.assign(static_cast<std::size_t>(T + 1) * static_cast<std::size_t>(T + 1), std::nullopt);
  std::vector<std::optional<step_cost>>& swap_cache = mm.swaps;
  const auto d = sm.device;
  detail::serving_model model_cb;
  model_cb.labels = setup.scheduler.policy == schedule_policy::topic ? T : 1;
  model_cb.kv_tokens = setup.scheduler.kv_tokens > 0 ? setup.scheduler.kv_tokens : detail::stratum_kv_tokens(sm, m, layouts.back());
  model_cb.decode = [costs](int b, double c, double h) { return costs->decode(b, c, h); };
  model_cb.prefill = [costs](int b, double p) { return costs->prefill(b, p); };
  model_cb.swap = [&, T](int a, int b) {
    const int ia = a < 0 ? T : a, ib = b < 0 ? T : b;
    auto& memo = swap_cache[static_cast<std::size_t>(ia) * static_cast<std::size_t>(T + 1) + static_cast<std::size_t>(ib)];
    if (!memo) {
      step_cost c{0.0, 0.0};
      if (E > 0 && ia != ib) {
        const auto& la = layouts[static_cast<std::size_t>(ia)];
        const auto& lb = layouts[static_cast<std::size_t>(ib)];
        for (std::size_t st = 0; st < la.stages.size(); ++st) {
          const auto [t, e] = stage_swap_cost(la.stages[st], lb.stages[st], d.tiers, setup.system.chips);
          c.time_s = std::max(c.time_s, t);  // stages swap in parallel
          c.energy_j += e;
        }
      }
      c.dram_j = c.energy_j;  // a row swap moves rows inside the memory dies
      memo = c;
    }
    return *memo;
  };
  model_cb.uses_hits = E > 0;
  if (trace != nullptr) {
    model_cb.hit = [&, T](std::size_t r, int j, int k) {
      return static_cast<double>(token_hits[r][static_cast<std::size_t>(k < 0 ? T : k)][static_cast<std::size_t>(std::max(0, j))]);
    };
  } else {
    model_cb.hit = [&, T](std::size_t r, int, int k) {
      return H[static_cast<std::size_t>(reqs[r].topic)][static_cast<std::size_t>(k < 0 ? T : k)];
    };
  }
  if (couple) couple(model_cb, sm);
  // The paper's loop (Stratum §6, Fig. 6), or the engine the GPUs serve through (`scheduler.loop`).
  const bool engine = setup.scheduler.loop == serving_loop::engine;
  auto out = engine ? detail::run_stratum_engine(reqs, labels, ready, device, setup.scheduler, model_cb)
                    : detail::run_serving(reqs, labels, ready, device, setup.scheduler, model_cb);
  out.system = res.system;
  out.policy = engine ? "engine (" + res.policy + ")" : res.policy;
  out.topic_hit_rates = res.topic_hit_rates;
  out.mix_hit_rate = res.mix_hit_rate;
  out.label_accuracy = res.label_accuracy;
  out.classifier_latency_s = lat_sum / static_cast<double>(reqs.size());
  detail::check_result_numbers(out, "serving_result");
  return out;
}

}  // namespace v0
}  // namespace strata
