// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Rows `stratum.serving.*`: the serving model's inputs and what the serving simulation predicts
/// (Stratum §5.1, §6).
///
/// Inputs: the aggregated hot-expert hit rates the system rows place by (`stratum_workloads()`),
/// the classifier accuracies (`mmlu_classifier()`, `chatbot_arena_classifier()`); one check: the
/// classifier latency the roofline gives for DistilBERT over 512 tokens on Stratum-L's xPU against
/// the paper's < 10 ms.
///
/// Predictions, on the real per-domain count tables (Mixtral 8x7B on Stratum-L, five domains;
/// OLMoE on Stratum-S, six domains), the MMLU classifier and the default scheduler (TTFT SLO 2 s,
/// batch ≤ 64, prefill groups ≤ 16), Poisson arrivals, prompts 128–1024 and outputs 32–256 tokens
/// uniform, seed 1:
/// - the achieved hot-hit rate of the topic batcher and of FCFS at 4 requests/s (the paper's
///   aggregated rate is what the topic predictor reaches; FCFS keeps the topic-mix layout);
/// - the largest request rate each scheduler sustains with ≥ 90 % of requests inside the TTFT SLO:
///   bisection on log(rate) over [0.25, 256] requests/s, eight halvings (the bracket ends within
///   ~2 % in rate), the same requests at every rate (only the arrival gaps scale). This is the
///   comparison "throughput at equal SLO attainment". Runs of `requests` requests (default 600,
///   to keep the rows near a second of Release time; a longer run lowers the sustained rate
///   slightly, since an overload builds a longer queue).
///
/// What the rows show: the topic batcher's hit rate is above FCFS's on both workloads, but at equal
/// SLO attainment it sustains a lower rate than FCFS: the hit-rate gain moves only the expert-read
/// part of a decode step, while same-label groups make smaller prefills and label changes cost row
/// swaps.

#include <cmath>     // std::sqrt
#include <string>    // std::string
#include <utility>   // std::move
#include <vector>    // std::vector

#include "strata/report/paper_row.hpp"
#include "strata/report/stratum_rows.hpp"
#include "strata/serving/simulator.hpp"
#include "strata/stratum/serving/stratum_serving.hpp"
#include "strata/workload/presets.hpp"
#include "strata/workload/trace_io.hpp"

namespace strata {
inline namespace v0 {

/// One serving workload of the prediction rows (file comment).
struct serving_row_workload {
  std::string key;           ///< row id part
  std::string model;         ///< preset
  std::string system;        ///< Stratum system
  std::string counts_model;  ///< series of the count file
  std::string selection;
  std::vector<std::string> topics;
};

/// Mixtral on Stratum-L and OLMoE on Stratum-S, the models with real per-domain count tables.
template <class = void>
inline std::vector<serving_row_workload> serving_row_workloads() {
  return {{"mixtral", "Mixtral-8x7B", "stratum-l", "Mixtral-8x7B-v0.1", "topk2", {"arxiv", "book", "c4", "github", "wikipedia"}},
          {"olmoe", "OLMoE-1B-7B-0924", "stratum-s", "OLMoE-1B-7B-0824", "topk8", default_topics()}};
}

namespace detail {

template <class = void>
inline request_gen_params serving_row_requests(const serving_row_workload& w, double rate, std::int64_t n) {
  request_gen_params g;
  g.rate = rate;
  g.count = n;
  g.topics = w.topics;
  g.prompt = {.kind = length_kind::uniform, .value = 0, .min = 128, .max = 1024, .values = {}};
  g.output = {.kind = length_kind::uniform, .value = 0, .min = 32, .max = 256, .values = {}};
  return g;
}

/// The largest rate in [lo, hi] with TTFT attainment ≥ `target` (bisection on log rate, `steps`
/// halvings; `lo` if even it misses).
template <class Run>
double sustained_rate(Run run, double target, double lo = 0.25, double hi = 256.0, int steps = 8) {
  if (run(lo) < target) return lo;
  if (run(hi) >= target) return hi;
  for (int i = 0; i < steps; ++i) {
    const double mid = std::sqrt(lo * hi);
    (run(mid) >= target ? lo : hi) = mid;
  }
  return lo;
}

}  // namespace detail

/// The serving rows (file comment); `counts_csv` is the OLMoE/Mixtral per-domain count file
/// (tests/data/traces/olmoe_mixtral_expert_counts_by_domain.csv).
// Not `inline`: strata::compiled holds its instantiation (end of file), which an `inline` one would
// not spare a STRATA_COMPILED consumer (GCC instantiates inline functions for inlining).
template <class = void>
std::vector<paper_row> serving_rows(const std::string& counts_csv, std::int64_t requests = 600) {
  using namespace detail;
  std::vector<paper_row> rows;
  // Inputs.
  for (const auto& w : stratum_workloads()) {
    if (w.hit_rate <= 0.0) continue;
    const double paper = w.key == "mixtral" ? 0.316 : w.key == "olmoe" ? 0.485 : 0.689;
    rows.push_back(with("stratum.serving." + w.key + ".aggregated_hit_rate", w.hit_rate, "fraction", paper,
                        row_check::exact, "Stratum §5.1, §6.3 (aggregated hot-expert hit rate with topic prediction)",
                        row_kind::input));
  }
  rows.push_back(with("stratum.serving.classifier.accuracy_mmlu", mmlu_classifier().accuracy, "fraction", 0.945,
                      row_check::exact, "Stratum §5.1 (MMLU test set)", row_kind::input));
  rows.push_back(with("stratum.serving.classifier.accuracy_chatbot_arena", chatbot_arena_classifier().accuracy, "fraction",
                      0.85, row_check::exact, "Stratum §5.1 (Chatbot Arena)", row_kind::input));
  const auto sl = prepare(stratum_l());
  rows.push_back(with("stratum.serving.classifier.latency_ms", classifier_latency(mmlu_classifier(), sl.xpu, 512).in(units::ms),
                      "ms", 10.0, row_check::at_most,
                      "Stratum §5.1 (< 10 ms per inference; DistilBERT over 512 tokens on Stratum-L's xPU, roofline)"));
  // Predictions.
  const auto counts = load_expert_counts_csv(counts_csv);
  for (const auto& w : serving_row_workloads()) {
    stratum_serving_setup s;
    s.system = stratum_system(w.system);
    s.m = preset(w.model);
    s.usage = topic_usage_from_counts(counts, w.counts_model, w.selection, "pretrained", w.topics, s.m.moe_layers());
    const std::string src = "Stratum §5.1, §6 (" + w.model + " on " + s.system.name + ", " + std::to_string(w.topics.size()) +
                            " domains, " + std::to_string(requests) + " requests)";
    stratum_serving_memo memo;  // layouts and step costs, the same for every rate and policy below
    const auto at = [&](schedule_policy p, double rate) {
      auto sp = s;
      sp.scheduler.policy = p;
      return simulate_stratum(sp, generate_requests(serving_row_requests(w, rate, requests)), nullptr, {}, &memo);
    };
    // The hit rates at a light load (a tenth of the system's capacity: requests seldom overlap,
    // so a batch is mostly one topic) and at half of it (running batches mix topics). Capacity:
    // FCFS's throughput when every request arrives at once (256 req/s), so the device never waits
    // for work. (The sustained rates below are of a finite run of `requests`, whose queue a rate
    // above capacity does not fill in time.)
    const double capacity = at(schedule_policy::fcfs, 256.0).throughput_rps;
    for (const double share : {0.1, 0.5}) {
      const double rate = share * capacity;
      const std::string load = " at " + detail::fixed(rate, 2) + " req/s (" + (share < 0.2 ? "a tenth" : "half") +
                               " of the " + detail::fixed(capacity, 2) + " req/s FCFS serves with every request waiting)";
      const std::string suffix = share < 0.2 ? "" : "_half_capacity";
      const auto topic = at(schedule_policy::topic, rate), fcfs = at(schedule_policy::fcfs, rate);
      const std::string stem = "stratum.serving." + w.key;
      rows.push_back(predict(std::string(stem).append(".hit_rate_topic").append(suffix), topic.hot_hit_rate, "fraction",
                             std::string(src).append(", topic batcher").append(load)));
      rows.push_back(predict(std::string(stem).append(".hit_rate_fcfs").append(suffix), fcfs.hot_hit_rate, "fraction",
                             std::string(src).append(", FCFS on the topic-mix layout").append(load)));
    }
    std::vector<paper_row> rate_rows;
    for (auto p : {schedule_policy::topic, schedule_policy::fcfs}) {
      const double rate = sustained_rate([&](double r) { return at(p, r).ttft_attainment; }, 0.9);
      const std::string name = p == schedule_policy::topic ? "topic" : "fcfs";
      rate_rows.push_back(predict("stratum.serving." + w.key + ".rate_at_90pct_ttft_" + name, rate, "req/s",
                                  std::string(src).append(", largest rate with >= 90 % TTFT-SLO attainment, ").append(name)));
    }
    for (auto& r : rate_rows) rows.push_back(std::move(r));
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
extern template std::vector<paper_row> serving_rows<void>(const std::string&, std::int64_t);
}  // namespace v0
}  // namespace strata
#endif
