// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The serving scenario's scheduler settings, every machine's (`scheduler_params`: SLOs, the
/// running batch and prefill group bounds, KV capacity, the client overhead; the loop that serves
/// a Stratum system and its engine settings). The schedulers of the paper's event loop (Stratum §6:
/// `fcfs` and the SLO-aware topic batcher, `choose_next`) are Stratum's policy and live in
/// `stratum/serving/topic_batcher.hpp`, whose file comment describes them.

#include <array>    // std::array (enum names)
#include <cstdint>  // std::int64_t
#include <string>   // std::string
#include <utility>  // std::pair

#include "strata/core/error.hpp"
#include "strata/core/units.hpp"
#include "strata/serving/requests.hpp"
#include "strata/tech/bounds.hpp"

namespace strata {
inline namespace v0 {

/// The two schedulers of the paper's loop (`stratum/serving/topic_batcher.hpp`).
enum class schedule_policy { fcfs, topic };
constexpr auto enum_names(schedule_policy) {
  return std::array{std::pair{schedule_policy::fcfs, "fcfs"}, std::pair{schedule_policy::topic, "topic"}};
}

/// The loop that serves the Stratum system (`simulator.hpp`): `stratum`, the paper's event loop
/// (Stratum §6, Fig. 6: whole-prompt prefill steps on the xPU apart from decode steps on the NMP,
/// KV reserved for a request's whole length; the default, the paper's reading), or `engine`, the
/// engine scheduler the GPUs serve through (`serving/engine_core.hpp`: token-budget steps mixing
/// decodes with prefill chunks, KV blocks, preemption by recompute), with the classifier, the
/// topic batcher and the row swaps as Stratum's policy inside it (`stratum_engine.hpp`).
enum class serving_loop { stratum, engine };
constexpr auto enum_names(serving_loop) {
  return std::array{std::pair{serving_loop::stratum, "stratum"}, std::pair{serving_loop::engine, "engine"}};
}

/// The engine's settings when the Stratum system serves through it (`serving_loop::engine`); the
/// sequence cap is `scheduler_params::max_batch` and a step admits at most `max_prefill` prompts.
/// The Stratum system has no host time of its own here (none is modelled by the paper's loop
/// either) and its KV capacity is the placement's (or `scheduler_params::kv_tokens`).
struct stratum_engine_params {
  /// Token budget of a step. [vLLM SchedulerConfig.DEFAULT_MAX_NUM_BATCHED_TOKENS = 2048,
  /// vllm/config/scheduler.py (`scheduler_fallback_limits`): the engine's fallback for an entry
  /// point with no defaults of its own; no Stratum source gives one]
  int max_num_batched_tokens = 2048;
  /// Tokens per KV block. [vLLM CacheConfig `block_size`: 16]
  int block_size = 16;
  /// Prompts split to fit the step's budget. [vLLM V1: on by default]
  bool enable_chunked_prefill = true;
  /// Full blocks of a prefix group's system prompt or a conversation's earlier turn computed once
  /// (`engine.hpp`, prefix groups). [vLLM V1: on by default]
  bool enable_prefix_caching = true;

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("max_num_batched_tokens", s.max_num_batched_tokens);
    v("block_size", s.block_size);
    v("enable_chunked_prefill", s.enable_chunked_prefill);
    v("enable_prefix_caching", s.enable_prefix_caching);
  }
  friend bool operator==(const stratum_engine_params&, const stratum_engine_params&) = default;
};

/// Scheduler and SLO settings.
struct scheduler_params {
  schedule_policy policy = schedule_policy::topic;
  /// Time-to-first-token budget. [Design choice: 2 s; Stratum §6 names TTFT the key SLO, no value]
  duration<> ttft_slo = units::s(2.0);
  /// Time-between-tokens budget of a request's mean gap (SLO attainment needs both).
  /// [Design choice: 200 ms]
  duration<> tbt_slo = units::s(0.2);
  /// Largest running batch. [Design choice: 64 sequences]
  int max_batch = 64;
  /// Largest group of one prefill step. [Design choice: 16 prompts]
  int max_prefill = 16;
  /// KV capacity in tokens; 0: from the system (what the placement leaves for KV).
  std::int64_t kv_tokens = 0;
  /// Fixed time between a client and the engine per request (request sent, tokens streamed back:
  /// HTTP, tokenising, detokenising), added once to every TTFT and E2E. [Design choice: 0]
  duration<> client_overhead = units::s(0.0);
  /// The loop serving the Stratum system (`serving_loop`; the GPU baseline's is `gpu_scheduler`).
  /// [Stratum §6, Fig. 6: the paper's loop, the default]
  serving_loop loop = serving_loop::stratum;
  /// The engine's settings under `serving_loop::engine`.
  stratum_engine_params engine{};

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("policy", s.policy);
    v("ttft_slo", s.ttft_slo);
    v("tbt_slo", s.tbt_slo);
    v("max_batch", s.max_batch);
    v("max_prefill", s.max_prefill);
    v("kv_tokens", s.kv_tokens);
    v("client_overhead", s.client_overhead);
    v("loop", s.loop);
    v("engine", s.engine);
  }
  friend bool operator==(const scheduler_params&, const scheduler_params&) = default;
};

/// Checks the scheduler; throws `config_error` naming the field (prefixed by `at`).
template <class = void>
inline void validate(const scheduler_params& p, const std::string& at = {}) {
  constexpr const char* m = "strata.scheduler";
  detail::require_range(p.ttft_slo.si(), 1e-6, 1e6, m, detail::at_field(at, "ttft_slo"), "s");
  detail::require_range(p.tbt_slo.si(), 1e-6, 1e6, m, detail::at_field(at, "tbt_slo"), "s");
  detail::require_count(p.max_batch, 1, serving_limits().batch, m, detail::at_field(at, "max_batch"));
  detail::require_count(p.max_prefill, 1, p.max_batch, m, detail::at_field(at, "max_prefill"));
  detail::require(p.kv_tokens >= 0 && p.kv_tokens <= (std::int64_t{1} << 50), m, detail::at_field(at, "kv_tokens"),
                  p.kv_tokens, "in [0, 2^50]");
  detail::require_range(p.client_overhead.si(), 0.0, 1e6, m, detail::at_field(at, "client_overhead"), "s");
  detail::require_count(p.engine.max_num_batched_tokens, 1, 1 << 20, m, detail::at_field(at, "engine.max_num_batched_tokens"));
  detail::require_count(p.engine.block_size, 1, 1 << 12, m, detail::at_field(at, "engine.block_size"));
}

}  // namespace v0
}  // namespace strata
