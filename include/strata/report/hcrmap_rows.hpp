// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Paper-report rows of the HCRMap policy comparison (`hcrmap.*` of the project's list of paper
/// numbers, all but the metadata rows of `report/paper.hpp`), computed by `hcrmap/experiment.hpp`
/// on the eight Table 2 models in prefill and decode.
///
/// Traces: DeepSeek-V2-Lite replays the real ESFT intent trace when its CSV path is given (the
/// only real per-token trace strata ships; its 127 sequences fill a decode window of 512 only by
/// reusing sequences, which the suite allows for it alone, `experiment_params::trace_reuse`, and
/// its result states); every other model — and DeepSeek-V2-Lite without the
/// path — routes with the synthetic generator (`workload/trace_gen.hpp`, shape and reuse fitted to
/// that real trace, the model's layers, experts and k, 1024 sequences of 8–16 tokens so that the
/// evaluation split has 512 concurrent decode sequences, seed 1). The controller and every layout
/// are built on the profile split and evaluated on the other (`split_by_sequence`).
/// Latency is the mean window T_E2E normalised per model and mode to single-copy static;
/// geometric means over the eight models; a *reduction vs X* is 1 − geomean(HCRMap/X).
///
/// Value function: HCRMap's controller decides with the `controller_value` given — the frozen
/// masked Double DQN of the repository's checkpoint (trained offline on the profile splits only,
/// `controller_training.hpp`) in the paper report — and the suite then also runs
/// `hcrmap_greedy`, the greedy one-step rule, as an ablation (rows `hcrmap.ablation.greedy_scorer.*`).
/// Without one, HCRMap decides with the greedy rule (the fallback) and the rows say so.
///
/// Nothing is fitted to these rows: the policies' weights are the design-choice defaults of their
/// headers; the two matched-capacity rows are `check` rows.

#include <algorithm>  // std::stable_sort, std::min
#include <atomic>     // std::atomic, the suite's next task and its failure flag
#include <cmath>     // std::exp, std::log, std::isfinite
#include <cstddef>    // std::size_t
#include <cstdint>    // std::int64_t
#include <exception>   // std::current_exception, std::exception_ptr
#include <functional>  // std::function
#include <future>      // std::promise, std::shared_future
#include <map>       // std::map
#include <memory>    // std::shared_ptr, the shared trace cache
#include <mutex>     // std::mutex, std::lock_guard, std::once_flag, std::call_once
#include <optional>  // std::optional
#include <string>    // std::string
#include <system_error>  // std::system_error, a thread that cannot start
#include <thread>    // std::thread, the suite's workers
#include <utility>   // std::pair
#include <vector>    // std::vector

#include "strata/chiplet/substrate.hpp"
#include "strata/hcrmap/experiment.hpp"
#include "strata/report/hcrmap_premises.hpp"
#include "strata/report/hcrmap_models.hpp"
#include "strata/report/paper_row.hpp"
#include "strata/workload/presets.hpp"
#include "strata/workload/trace_gen.hpp"
#include "strata/workload/trace_io.hpp"

namespace strata {
inline namespace v0 {

/// The comparison behind the rows: one `experiment_result` per (model, mode) of Table 2, prefill
/// with the compared policies and the no-fast-mapping ablation, decode with every ablation.
struct hcrmap_suite {
  std::vector<experiment_result> prefill, decode;
};

/// Routing trace of a Table 2 model (file comment).
template <class = void>
inline routing_trace hcrmap_trace(const model& m, const std::optional<std::string>& dsv2lite_csv = std::nullopt) {
  if (m.name == "DeepSeek-V2-Lite" && dsv2lite_csv) return load_trace_csv(*dsv2lite_csv, {.experts = m.experts});
  auto g = trace_gen_for(m);  // shape and reuse fitted to the real DeepSeek-V2-Lite trace
  g.sequences = 1024;
  g.min_length = 8;
  g.max_length = 16;
  return generate_trace(g);
}

/// The suite's traces (`hcrmap_trace`) built once per process run and shared explicitly: the
/// paper report (`paper_report_options::hcrmap_traces`) and the gap explainer's HCRMap families
/// (`explain_options::hcrmap_traces`) read the same traces when the caller gives both the same
/// cache (`strata-paper-report`, `explain_row`). A trace is a pure function of the model's routing
/// shape (name, MoE layers, experts, k: `trace_gen_for`) and, for DeepSeek-V2-Lite, of the real
/// trace's path, which make its key; each is built when first asked for (by one caller: others
/// asking for the same key wait, other keys are not held up), held at a stable address for the
/// cache's life (the explainer's `experiment_windows` name a trace by its address), and never
/// changed. A build that throws is not kept: the next caller builds it again. Safe to use from
/// several threads. Without a cache every caller builds its own traces, with the same values.
class hcrmap_trace_cache {
 public:
  /// The trace of model `m` (`hcrmap_trace(m, dsv2lite_csv)`), built on the first call for its key.
  const routing_trace& get(const model& m, const std::optional<std::string>& dsv2lite_csv = std::nullopt) {
    const bool real = m.name == "DeepSeek-V2-Lite" && dsv2lite_csv;
    const std::string key = m.name + "\n" + std::to_string(m.moe_layers()) + " " + std::to_string(m.experts) + " " +
                            std::to_string(m.top_k) + "\n" + (real ? *dsv2lite_csv : std::string());
    entry* e = nullptr;
    {
      const std::lock_guard<std::mutex> hold(lock_);
      e = &entries_.try_emplace(key).first->second;  // a map's nodes never move
    }
    std::call_once(e->once, [&] {
      e->trace.emplace(hcrmap_trace(m, dsv2lite_csv));
      ++built_;
    });
    return *e->trace;
  }
  /// Traces built so far (a build that threw not counted).
  std::size_t built() const { return built_.load(); }

 private:
  struct entry {
    std::once_flag once;
    std::optional<routing_trace> trace;
  };
  std::mutex lock_;
  std::map<std::string, entry> entries_;
  std::atomic<std::size_t> built_{0};
};

/// Called after each experiment of the suite with the model's name and the mode. With several
/// threads it is called from the thread that ran the experiment, one call at a time (under the
/// suite's lock), in the order the experiments end.
using hcrmap_suite_progress = std::function<void(const std::string& model, const char* mode)>;

namespace detail {
/// Runs `task(i)` for every i in [0, n) on `threads` threads, the calling thread one of them (0:
/// the machine's hardware threads; fewer when a thread cannot start), each taking the next index
/// in increasing order. Once a task has thrown, no further task starts; when every thread has
/// stopped, the exception of the lowest failing index is rethrown (every lower index has run by
/// then, so it is the one a single thread would have met first).
template <class F>
void run_tasks(std::size_t n, unsigned threads, F&& task) {
  if (threads == 0) threads = std::max(1U, std::thread::hardware_concurrency());
  const std::size_t workers = std::min<std::size_t>(threads, n);
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::vector<std::exception_ptr> errors(n);
  const auto work = [&]() noexcept {
    while (!failed.load()) {
      const std::size_t i = next.fetch_add(1);
      if (i >= n) return;
      try {
        task(i);
      } catch (...) {
        errors[i] = std::current_exception();
        failed = true;
      }
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < workers; ++t) {
    try {
      pool.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // no more threads: the ones started (and this one) take every task
    }
  }
  work();
  for (auto& t : pool) t.join();
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}
}  // namespace detail

/// Work run beside the suite's experiments in the same pool of threads (`paper_rows`: the
/// report's other row families, so that both cores stay busy to the end). `work` is in the
/// experiments' own unit (MoE layers × experts × policies; an experiment here takes about one CPU
/// second per 45 000) and only orders the tasks, longest first; `run` is called once, from any of
/// the pool's threads, and reports its failures itself (an exception it lets out stops the pool
/// like a failing experiment).
struct suite_side_task {
  double work = 0.0;
  std::function<void()> run;
};

/// Experiment (`m`, prefill when `prefill`, else decode) of the suite with `policies` on trace
/// `trace` (`hcrmap_trace(m, dsv2lite_csv)`), as `run_hcrmap_suite` runs each of its 16: the real
/// DeepSeek-V2-Lite trace reuses sequences in decode (its 127 sequences cannot fill a window of
/// 512 per split), and the result's note names the trace. The gap explainer runs the suite's
/// experiments with fewer policies through it (`report/explain_groups.hpp`), keeping each
/// experiment's windows from one run to the next in `windows` (`run_experiment`).
template <class = void>
inline experiment_result run_hcrmap_case(const substrate& s, const model& m, const routing_trace& trace, bool prefill,
                                         const std::optional<std::string>& dsv2lite_csv,
                                         const std::vector<policy_kind>& policies, const experiment_params& xp = {},
                                         const action_scorer& value = {}, experiment_windows* windows = nullptr) {
  const bool real = m.name == "DeepSeek-V2-Lite" && dsv2lite_csv;
  const std::string note = real ? "real ESFT intent trace" : "synthetic trace (fitted generator)";
  // The real trace's 127 sequences cannot fill a decode window of 512 distinct sequences per
  // split: the suite opts in to reusing them (`trace_reuse`) in decode, which its result and
  // note state.
  experiment_params xd = xp;
  xd.trace_reuse = xp.trace_reuse || (real && !prefill);
  return run_experiment(s, m, trace, prefill ? phase::prefill : phase::decode, policies, xd, note, value, windows);
}

/// Runs the suite (about 15 s of CPU with the defaults) on `threads` threads (0: the machine's
/// hardware threads; the results are the same for every count: the experiments share only
/// read-only inputs — the substrate, each model's trace, the value function — each builds its own
/// sessions and random streams, and each result lands in its fixed place); `progress`, when set,
/// hears of each of the 16 experiments as it ends. The experiments and the tasks `beside` share
/// one queue and start longest first (an experiment's work: MoE layers × experts × policies),
/// which decides only when each ends. The traces come from `traces` when given (each built there
/// once, `hcrmap_trace_cache`), else are built here; the results are the same.
template <class = void>
inline hcrmap_suite run_hcrmap_suite(const std::optional<std::string>& dsv2lite_csv = std::nullopt,
                                     const experiment_params& xp = {}, const substrate_params& sp = {},
                                     const action_scorer& value = {}, const hcrmap_suite_progress& progress = {},
                                     unsigned threads = 0, const std::vector<suite_side_task>& beside = {},
                                     hcrmap_trace_cache* traces = nullptr) {
  const substrate s(sp);
  using P = policy_kind;
  std::vector<P> prefill{P::single_copy_static, P::fixed_replication, P::hydra, P::moentwine, P::pimoe, P::hcrmap,
                         P::hcrmap_no_fast_map};
  std::vector<P> decode{P::single_copy_static, P::fixed_replication, P::hydra, P::moentwine, P::pimoe, P::hcrmap,
                        P::hcrmap_no_fast_map, P::hcrmap_no_hbm, P::hcrmap_no_link, P::hcrmap_no_bank,
                        P::hcrmap_no_compute, P::hcrmap_no_migration};
  if (value) {  // the greedy rule as an ablation of the learned value
    prefill.push_back(P::hcrmap_greedy);
    decode.push_back(P::hcrmap_greedy);
  }
  const auto names = hcrmap_models();
  const std::size_t n = names.size();
  std::vector<model> models(n);
  hcrmap_trace_cache own;  // the traces, when the caller gives no cache
  hcrmap_trace_cache& cache = traces != nullptr ? *traces : own;
  std::vector<const routing_trace*> trace_of(n);
  detail::run_tasks(n, threads, [&](std::size_t i) {
    models[i] = preset(names[i]);
    trace_of[i] = &cache.get(models[i], dsv2lite_csv);
  });
  // Task j < n is model j in prefill, n + j model j in decode, 2n + i the side task i; started
  // longest first.
  std::vector<std::size_t> order(2 * n + beside.size());
  const auto work = [&](std::size_t j) {
    if (j >= 2 * n) return beside[j - 2 * n].work;
    const model& m = models[j % n];
    return double(std::int64_t{m.moe_layers()} * m.experts *
                  static_cast<std::int64_t>(j < n ? prefill.size() : decode.size()));
  };
  for (std::size_t j = 0; j < order.size(); ++j) order[j] = j;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return work(a) > work(b); });
  hcrmap_suite out;
  out.prefill.resize(n);
  out.decode.resize(n);
  std::mutex heard;
  detail::run_tasks(order.size(), threads, [&](std::size_t k) {
    const std::size_t j = order[k];
    if (j >= 2 * n) {
      beside[j - 2 * n].run();
      return;
    }
    const model& m = models[j % n];
    const bool pre = j < n;
    (pre ? out.prefill : out.decode)[j % n] =
        run_hcrmap_case(s, m, *trace_of[j % n], pre, dsv2lite_csv, pre ? prefill : decode, xp, value);
    if (progress) {
      const std::lock_guard<std::mutex> hold(heard);
      progress(m.name, pre ? "prefill" : "decode");
    }
  });
  return out;
}

/// The policies `hcrmap.best_on_every_model` compares HCRMap with (HCRMap §7.2 Fig. 5).
template <class = void>
inline std::vector<policy_kind> hcrmap_compared_policies() {
  using P = policy_kind;
  return {P::single_copy_static, P::fixed_replication, P::hydra, P::moentwine, P::pimoe};
}

/// Whether HCRMap's latency in result `r` is strictly below every compared policy's
/// (`hcrmap_compared_policies`): `hcrmap.best_on_every_model` is 1 when it is in every experiment.
template <class = void>
inline bool hcrmap_leads(const experiment_result& r) {
  for (policy_kind k : hcrmap_compared_policies()) {
    if (!(r.of(policy_kind::hcrmap).latency_s < r.of(k).latency_s)) return false;
  }
  return true;
}

namespace detail {
/// Geometric mean over the results of f(result).
template <class F>
double geomean(const std::vector<experiment_result>& rs, F&& f) {
  double acc = 0.0;
  for (const auto& r : rs) acc += std::log(f(r));
  return std::exp(acc / double(rs.size()));
}
}  // namespace detail

/// Rows `hcrmap.best_on_every_model`, `hcrmap.reduction_vs_*`, `hcrmap.edp_reduction_vs_*` and
/// `hcrmap.ablation.*` from a suite; `value_name` names HCRMap's value function in the sources.
// Not `inline`: strata::compiled holds its instantiation (end of file), which an `inline` one would
// not spare a STRATA_COMPILED consumer (GCC instantiates inline functions for inlining).
template <class = void>
std::vector<paper_row> hcrmap_policy_rows(const hcrmap_suite& suite, const std::string& value_name = "greedy") {
  using namespace detail;
  using P = policy_kind;
  const auto lat = [](P a, P b) { return [a, b](const experiment_result& r) { return r.of(a).latency_s / r.of(b).latency_s; }; };
  const auto edp = [](P a, P b) { return [a, b](const experiment_result& r) { return r.of(a).edp / r.of(b).edp; }; };
  bool best = true;
  for (const auto* rs : {&suite.prefill, &suite.decode}) {
    for (const auto& r : *rs) best = best && hcrmap_leads(r);
  }
  const std::string src = "HCRMap §7.2 Fig. 5; controller value: " + value_name;
  std::vector<paper_row> rows;
  rows.push_back(with("hcrmap.best_on_every_model", best ? 1.0 : 0.0, "bool", 1, row_check::exact,
                      src + " (HCRMap lowest of static, fixed, Hydra, MoEntwine, PIMoE on all 8 models, both modes)"));
  {
    // The cases HCRMap does not lead, with their critical stages, from the suite itself.
    int led = 0, cases = 0;
    std::string behind;
    for (const auto* rs : {&suite.prefill, &suite.decode}) {
      for (const auto& r : *rs) {
        ++cases;
        const auto& h = r.of(P::hcrmap);
        bool lead = true;
        for (P k : hcrmap_compared_policies()) {
          const auto& o = r.of(k);
          if (h.latency_s < o.latency_s) continue;
          lead = false;
          behind += (behind.empty() ? "" : "; ") + r.model + " " + (r.mode == phase::decode ? "decode" : "prefill") + ": " +
                    to_string(k) + " " + premise_num(100.0 * (h.latency_s / o.latency_s - 1.0)) +
                    " % faster (critical queueing + memory per window, HCRMap " + premise_num(h.stages.queue.si()) + " + " +
                    premise_num(h.stages.memory.si()) + " s, " + to_string(k) + " " + premise_num(o.stages.queue.si()) +
                    " + " + premise_num(o.stages.memory.si()) + " s)";
        }
        led += lead ? 1 : 0;
      }
    }
    rows.back().known_disagreement =
        "HCRMap leads in " + std::to_string(led) + " of " + std::to_string(cases) + " cases; behind: " + behind +
        ". DeepSeek-V2 decode: HCRMap installs no copy (HBM full of first copies, a DRAM copy only adds a stream) and "
        "its Eq. 35-36 first copies spread the stage's HBM over its layers, where static's layer-order fill "
        "concentrates it on one: with a layer's time set by its busiest DRAM home, the spread costs a stream per stage. "
        "Static's streams are the lower bound there (every expert streams; the stage's DRAM-resident experts over its "
        "four homes), so HCRMap can at best tie it. Mixtral decode: a layer's 8 experts fit the two HBM stacks, and "
        "HCRMap's first copies execute beside the stack that holds them (a local stream, no link), so the layer's "
        "experts queue on the chiplets around the stacks (5, 6, 9, 10), where MoEntwine's load-balancing assignment "
        "spreads execution over the mesh and streams over its links: MoEntwine trades memory time for queueing, HCRMap "
        "the reverse, and at 512 decode tokens the queue is the larger term. The row, which asks for the strictly "
        "lowest latency, cannot be 1 on this substrate";
  }
  const std::pair<const char*, const std::vector<experiment_result>*> modes[] = {{"prefill", &suite.prefill},
                                                                                  {"decode", &suite.decode}};
  for (const auto& [mode, rs] : modes) {
    rows.push_back(rel(std::string("hcrmap.reduction_vs_fixed_replica.") + mode, 1.0 - geomean(*rs, lat(P::hcrmap, P::fixed_replication)),
                       "fraction", std::string(mode) == "prefill" ? 0.2495 : 0.2391, 0.30,
                       "HCRMap §7.2 (matched resident-copy capacity, geomean of 8 models)"));
  }
  for (const auto& [name, k] : {std::pair{"hydra", P::hydra}, std::pair{"moentwine", P::moentwine}, std::pair{"pimoe", P::pimoe}}) {
    for (const auto& [mode, rs] : modes) {
      rows.push_back(predict(std::string("hcrmap.reduction_vs_") + name + "." + mode, 1.0 - geomean(*rs, lat(P::hcrmap, k)),
                             "fraction", src + " (geomean of 8 models)"));
    }
  }
  for (const auto& [mode, rs] : modes) {
    rows.push_back(predict(std::string("hcrmap.edp_reduction_vs_fixed_replica.") + mode,
                           1.0 - geomean(*rs, edp(P::hcrmap, P::fixed_replication)), "fraction", src + " (EDP, geomean)"));
  }
  for (const auto& [mode, rs] : modes) {
    rows.push_back(predict(std::string("hcrmap.ablation.no_fast_mapping.") + mode,
                           1.0 - geomean(*rs, lat(P::hcrmap, P::hcrmap_no_fast_map)), "fraction",
                           "HCRMap §7.3 Fig. 6 (reduction of full HCRMap vs the variant)"));
  }
  rows.push_back(predict("hcrmap.ablation.no_hbm_tier.decode", 1.0 - geomean(suite.decode, lat(P::hcrmap, P::hcrmap_no_hbm)),
                         "fraction", "HCRMap §7.3 Fig. 6 (reduction of full HCRMap vs the variant)"));
  rows.push_back(predict("hcrmap.ablation.no_hbm_tier.streaming_bytes_reduction",
                         1.0 - geomean(suite.decode,
                                       [](const experiment_result& r) {
                                         return std::max(r.of(P::hcrmap).dram_stream_bytes, 1.0) /
                                                std::max(r.of(P::hcrmap_no_hbm).dram_stream_bytes, 1.0);
                                       }),
                         "fraction", "HCRMap §7.3 (DRAM weight-streaming bytes, decode, geomean)"));
  const auto has = [](const std::vector<experiment_result>& rs, P k) {
    for (const auto& p : rs.front().policies) {
      if (p.policy == k) return true;
    }
    return false;
  };
  if (!suite.prefill.empty() && has(suite.prefill, P::hcrmap_greedy)) {
    for (const auto& [mode, rs] : modes) {
      rows.push_back(predict(std::string("hcrmap.ablation.greedy_scorer.") + mode,
                             1.0 - geomean(*rs, lat(P::hcrmap, P::hcrmap_greedy)), "fraction",
                             "HCRMap §6.4 (reduction of HCRMap with the learned value vs the greedy one-step rule, geomean)"));
    }
  }
  for (const auto& [name, k] : {std::pair{"no_link_pressure", P::hcrmap_no_link}, std::pair{"no_bank_pressure", P::hcrmap_no_bank},
                                std::pair{"no_compute_pressure", P::hcrmap_no_compute},
                                std::pair{"no_migration_pressure", P::hcrmap_no_migration}}) {
    rows.push_back(predict(std::string("hcrmap.ablation.") + name + ".decode", geomean(suite.decode, lat(k, P::hcrmap)), "x",
                           "HCRMap §7.3 Fig. 6 (latency normalised to full HCRMap, geomean)"));
  }
  // The paper's premises on this substrate, and the decode shape's policy-independent share.
  for (auto& r : hcrmap_premise_rows(suite.prefill, suite.decode)) rows.push_back(std::move(r));
  if (!suite.decode.empty()) rows.push_back(hcrmap_decode_shape_row(suite.decode));
  return rows;
}

/// The rows from a fresh suite (`run_hcrmap_suite` on `threads` threads, 0: the machine's) with
/// HCRMap deciding by `value`, computed once per process per (trace, value name) and cached. Safe to call from several threads: the
/// first caller of a key computes it (and alone hears `progress`), later callers of that key wait
/// for its result, callers of other keys are not held up; a computation that throws is not
/// cached, and its callers see the exception. The tasks `beside` run in the suite's pool (or, when
/// the rows are cached, on `threads` threads of their own) before this returns. The suite reads its
/// traces from `traces` when given (`hcrmap_trace_cache`: the explainer's HCRMap families then
/// reuse them), else builds its own; the rows are the same.
// Not `inline`: strata::compiled holds its instantiation (end of file), which an `inline` one would
// not spare a STRATA_COMPILED consumer (GCC instantiates inline functions for inlining).
template <class = void>
std::vector<paper_row> hcrmap_policy_rows(const std::optional<std::string>& dsv2lite_csv = std::nullopt,
                                                 const controller_value& value = {},
                                                 const hcrmap_suite_progress& progress = {},
                                                 unsigned threads = 0, const std::vector<suite_side_task>& beside = {},
                                                 const std::shared_ptr<hcrmap_trace_cache>& traces = {}) {
  using rows_t = std::vector<paper_row>;
  static std::mutex lock;
  static std::map<std::string, std::shared_future<rows_t>> cache;
  const std::string name = value.score ? value.name : std::string("greedy");
  const std::string key = dsv2lite_csv.value_or("") + "\n" + name;
  std::promise<rows_t> mine;
  std::shared_future<rows_t> result;
  {
    const std::lock_guard<std::mutex> hold(lock);
    auto it = cache.find(key);
    if (it != cache.end()) {
      result = it->second;
    } else {
      cache.emplace(key, mine.get_future().share());
    }
  }
  if (result.valid()) {
    // Computed (or being computed) by an earlier caller: the side tasks run on their own.
    detail::run_tasks(beside.size(), threads, [&](std::size_t i) { beside[i].run(); });
    return result.get();
  }
  rows_t rows;
  try {
    rows = hcrmap_policy_rows(run_hcrmap_suite(dsv2lite_csv, {}, {}, value.score, progress, threads, beside, traces.get()), name);
  } catch (...) {
    mine.set_exception(std::current_exception());
    const std::lock_guard<std::mutex> hold(lock);
    cache.erase(key);
    throw;
  }
  mine.set_value(rows);
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
extern template std::vector<paper_row> hcrmap_policy_rows<void>(const hcrmap_suite&, const std::string&);
extern template std::vector<paper_row> hcrmap_policy_rows<void>(const std::optional<std::string>&, const controller_value&,
                                                                const hcrmap_suite_progress&, unsigned,
                                                                const std::vector<suite_side_task>&,
                                                                const std::shared_ptr<hcrmap_trace_cache>&);
}  // namespace v0
}  // namespace strata
#endif
