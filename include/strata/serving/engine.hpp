// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Settings of the GPU baseline's serving engine (`simulator.hpp`, `simulate_gpu`): the scheduler
/// it runs and, for the `engine` scheduler, the knobs of vLLM's V1 engine with vLLM's defaults.
///
/// The `engine` scheduler steps as vLLM V1's `Scheduler.schedule()` does
/// (github.com/vllm-project/vllm, vllm/v1/core/sched/scheduler.py): each step has a budget of
/// `max_num_batched_tokens` tokens; the running requests, in admission order, each get the tokens
/// they still lack (1 for a decode, the rest of a prompt for a chunked prefill) up to the budget
/// left; a request whose new tokens need a KV block when none is free preempts the most recently
/// admitted running request (`self.running.pop()`: its blocks freed, its computed tokens reset to
/// 0, back to the front of the waiting queue, recomputed as a prompt of its prompt and the tokens
/// it had generated), and stops the step's scheduling if it preempted itself; then, if nothing was
/// preempted, waiting requests join in arrival order while fewer than `max_num_seqs` run and budget
/// is left, each with its prompt chunked to the budget left (whole prompts only without
/// `enable_chunked_prefill`), its prefix-cache hit skipped, and stop at the first whose blocks do
/// not fit. Every scheduled token of the step runs in one forward pass (`step_costs.hpp`,
/// `gpu_step_costs::mixed`).
///
/// KV capacity: ⌊(capacity · `gpu_memory_utilization` − weights/n − workspace) · shards / (bytes
/// per token · `block_size`)⌋ blocks, the workspace being that of a `max_num_batched_tokens`-token
/// step (vLLM sizes the KV cache after profiling a forward pass of that many tokens); a positive
/// `scheduler.kv_tokens` fixes the capacity instead (⌊kv_tokens / block_size⌋ blocks).
///
/// Prefix groups (requests with `prefix_group` ≥ 0, `requests.hpp`): each group's system prompt
/// is a prefix of its own, ⌊prefix_tokens / block_size⌋ full blocks cached per rank once one of the
/// group's requests has computed them, then kept as the workload-wide prefix is (below); a request
/// hits its own group's blocks only. A later turn of a conversation (`conversation` ≥ 0) also hits
/// the blocks its previous turn wrote (the system prompt and history, full blocks of its prompt +
/// output − 1 tokens) if that turn has finished on the same rank and they are still cached. vLLM
/// keeps a finished request's blocks, hashed, in its free queue, evicting from the front
/// (least recently used) when it allocates, and frees a request's blocks in reverse order, so
/// its last blocks are evicted first (vllm/v1/core/block_pool.py, `FreeKVCacheBlockQueue`;
/// vllm/v1/core/single_type_kv_cache_manager.py, `free`). Modelled: the turn's blocks join the
/// free queue behind the f blocks free at its finish; after A further block allocations on the
/// rank, max(0, A − f) of its last blocks are gone, and the next turn hits the rest (whole
/// blocks, at most its tokens − 1). Not modelled: hits taken out of the middle of the queue moving
/// the blocks behind them forward (the rule errs towards eviction), and the block-hash cache of
/// any other shared text.
///
/// Prefix caching (`enable_prefix_caching`, with the workload's `shared_prefix_tokens`: the first
/// tokens every prompt shares, such as a system prompt): vLLM caches full blocks only, so the
/// cached prefix is ⌊shared / block_size⌋ blocks; they are cached once a request has computed them
/// and then stay (every request uses them, so they are never the least recently used free blocks),
/// stored once and counted once against the capacity; a request admitted after that skips
/// min(cached prefix, its prompt's shared full blocks, its tokens − 1 rounded down to a block) of
/// its prompt (vLLM recomputes at least the last token), and holds only its own blocks. Requests
/// admitted before the prefix is cached compute and store it themselves.
///
/// The budget and the cap, unset, are vLLM's engine-argument defaults for the card and the entry
/// point (`engine_limits_of`: 8192 tokens and 1024 sequences for `vllm serve` on a card of at
/// least 70 GiB that is not an A100, 2048 and 256 on smaller cards); a value the scenario gives wins.
///
/// DP attention (expert parallelism with attention in data parallel, `parallelism`): vLLM runs one
/// engine core per DP rank, each with its own scheduler, `max_num_seqs`, `max_num_batched_tokens`
/// and KV cache (vllm/v1/engine/core.py, `DPEngineCoreProc`), and the engine client routes each
/// request to the rank of the lowest waiting·4 + running, the first such on a tie
/// (vllm/v1/engine/core_client.py, `DPLBAsyncMPClient.get_core_engine_for_request`, v0.10.2 to
/// v0.15.x; its counts refresh every 100 ms from the coordinator and the client adds its own
/// routings between refreshes, so the counts at arrival are taken here; vLLM's main branch has
/// since moved to max(in-flight, waiting + running) plus a waiting penalty above 50 % KV use).
/// The ranks step together: the MoE all-to-alls need every rank, and an idle rank runs a dummy
/// batch (`execute_dummy_batch`). So here every rank schedules its step as above on its own
/// queues and 1/n of the KV blocks (a request stays on its rank, preempted or not), and the step
/// is costed from every rank's part (`gpu_step_costs::mixed_ranks`).
///
/// Host time (`engine_host.hpp`, `host`): each step lasts max(GPU, host) with async scheduling
/// (vLLM ≥ 0.14 by default), GPU + host without; with async scheduling a step's batch is fixed
/// when the step before it starts; a request reaches the engine after its prompt's tokenisation.
///
/// Not modelled: `long_prefill_token_threshold` and partial-prefill caps (0 and 1 by default, no
/// effect), speculative decoding, CUDA-graph padding of the batch, swap preemption (V1 recomputes
/// only); with async scheduling, the scheduler sees the step before's finished requests as
/// running (here they are freed before the next schedule).

#include <algorithm>    // std::min
#include <array>        // std::array (enum names)
#include <cctype>       // std::tolower
#include <cstdint>      // std::int64_t
#include <optional>     // std::optional, a limit left to vLLM's default
#include <string>       // std::string
#include <string_view>  // std::string_view, a device name
#include <utility>      // std::pair

#include "strata/baseline/gpu_sampler.hpp"
#include "strata/core/error.hpp"
#include "strata/core/units.hpp"
#include "strata/serving/engine_host.hpp"
#include "strata/serving/requests.hpp"
#include "strata/tech/bounds.hpp"

namespace strata {
inline namespace v0 {

/// The GPU baseline's schedulers: vLLM V1's (file comment) or the former FCFS continuous batching
/// (`stratum/serving/topic_batcher.hpp`: whole-prompt prefill steps apart from decode steps, KV reserved for a
/// request's whole length on admission, no preemption).
enum class gpu_scheduler { engine, fcfs };
constexpr auto enum_names(gpu_scheduler) {
  return std::array{std::pair{gpu_scheduler::engine, "engine"}, std::pair{gpu_scheduler::fcfs, "fcfs"}};
}

/// Who runs the engine, as vLLM's engine arguments tell it (`vllm.usage.usage_lib.UsageContext`):
/// the OpenAI-compatible server (`vllm serve`), the offline `LLM` class, or any other entry point
/// (the engine core, the batch runner: no default of their own, the scheduler's fallbacks).
enum class usage_context { openai_api_server, llm_class, other };
constexpr auto enum_names(usage_context) {
  return std::array{std::pair{usage_context::openai_api_server, "openai_api_server"},
                    std::pair{usage_context::llm_class, "llm_class"}, std::pair{usage_context::other, "other"}};
}

/// vLLM V1 engine settings (file comment); the defaults are vLLM's. The step budget and the
/// sequence cap are vLLM's engine-argument defaults when unset (`engine_limits_of`).
struct engine_params {
  /// Token budget of a step; unset: vLLM's default for the card and `usage` (`engine_limits_of`).
  std::optional<int> max_num_batched_tokens = std::nullopt;
  /// Largest number of running requests (per engine core: per DP rank under DP attention); unset:
  /// vLLM's default for the card and `usage` (`engine_limits_of`).
  std::optional<int> max_num_seqs = std::nullopt;
  /// The entry point whose defaults apply to unset limits. [Design choice: the OpenAI API
  /// server, which `vllm serve` runs (vllm/entrypoints/openai/api_server.py passes
  /// UsageContext.OPENAI_API_SERVER)]
  usage_context usage = usage_context::openai_api_server;
  /// Share of each card's memory the engine may use. [vLLM engine arguments,
  /// `--gpu-memory-utilization`, default 0.9]
  double gpu_memory_utilization = 0.9;
  /// Tokens per KV block. [vLLM CacheConfig `block_size`: 16 on CUDA by default]
  int block_size = 16;
  /// Prompts split to fit the step's budget. [vLLM V1: chunked prefill on by default]
  bool enable_chunked_prefill = true;
  /// Full blocks of a shared prefix computed once. [vLLM V1: prefix caching on by default]
  bool enable_prefix_caching = true;
  /// Tokens at the start of every prompt that are the same in every request (a system prompt;
  /// a workload property, 0: none). [Design choice: 0]
  int shared_prefix_tokens = 0;
  /// The engine's host time: per-step work, its overlap and the prompt's tokenisation
  /// (`engine_host.hpp`; `engine_host_params::none()`: the GPU's time alone).
  engine_host_params host{};
  /// The sampler's GPU time after the LM head, every step (`baseline/gpu_sampler.hpp`; vLLM's
  /// request defaults: random sampling, no top-p; `gpu_sampler_params::none()`: no sampler time).
  gpu_sampler_params sampler{};

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("max_num_batched_tokens", s.max_num_batched_tokens);
    v("max_num_seqs", s.max_num_seqs);
    v("usage_context", s.usage);
    v("gpu_memory_utilization", s.gpu_memory_utilization);
    v("block_size", s.block_size);
    v("enable_chunked_prefill", s.enable_chunked_prefill);
    v("enable_prefix_caching", s.enable_prefix_caching);
    v("shared_prefix_tokens", s.shared_prefix_tokens);
    v("host", s.host);
    v("sampler", s.sampler);
  }
  friend bool operator==(const engine_params&, const engine_params&) = default;
};

/// The step budget and sequence cap an engine core runs with (`engine_limits_of`).
struct engine_limits {
  int max_num_batched_tokens = 0;
  int max_num_seqs = 0;
  friend bool operator==(const engine_limits&, const engine_limits&) = default;
};

/// vLLM's scheduler fallbacks, for an entry point with no defaults of its own.
/// [vLLM SchedulerConfig.DEFAULT_MAX_NUM_BATCHED_TOKENS = 2048 and DEFAULT_MAX_NUM_SEQS = 128,
/// vllm/config/scheduler.py; docs.vllm.ai/en/stable/api/vllm/config/scheduler]
inline constexpr engine_limits scheduler_fallback_limits{.max_num_batched_tokens = 2048, .max_num_seqs = 128};

/// Whether vLLM gives a card its larger defaults: at least 70 GiB of device memory and a device
/// name without "a100" (larger budgets lowered A100 throughput, vLLM pull request 17885).
/// [vllm/engine/arg_utils.py, `device_memory >= 70 * GiB_bytes and "a100" not in device_name`,
/// v0.9 onwards; v0.8.x named the cards instead: "h100" or "h200" in the device name]
template <class = void>
inline bool vllm_large_card(data_size<> device_memory, std::string_view device_name) {
  std::string lower(device_name);
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return device_memory.in(units::GiB) >= 70.0 && lower.find("a100") == std::string::npos;
}

/// The limits of `p` on a card of `device_memory` named `device_name`: a value `p` sets wins;
/// an unset one is vLLM's engine-argument default (vllm/engine/arg_utils.py: `EngineArgs.
/// _set_default_args` in v0.9–v0.11, `get_batch_defaults` and
/// `_set_default_max_num_seqs_and_batched_tokens_args` in v0.12–v0.15; the same values):
///
/// | card (`vllm_large_card`) | usage | max_num_batched_tokens | max_num_seqs |
/// | --- | --- | ---: | ---: |
/// | ≥ 70 GiB, not A100 (H100, H200, MI300X) | openai_api_server | 8192 | 1024 |
/// | ≥ 70 GiB, not A100 | llm_class | 16384 | 1024 |
/// | other cards (A100, RTX A6000, L40S) | openai_api_server | 2048 | 256 |
/// | other cards | llm_class | 8192 | 256 |
/// | any | other | 2048 | 128 (`scheduler_fallback_limits`) |
///
/// then, as vLLM does when the cap is unset, the cap is at most the budget. Not applied: vLLM's
/// raise of an unset budget to `max_model_len` without chunked prefill and its cap at
/// max_num_seqs · max_model_len (a model here has no `max_model_len`; with chunked prefill, the
/// default, the cap binds only below 8 tokens per sequence).
template <class = void>
inline engine_limits engine_limits_of(const engine_params& p, data_size<> device_memory, std::string_view device_name) {
  engine_limits d = scheduler_fallback_limits;
  const bool large = vllm_large_card(device_memory, device_name);
  if (p.usage == usage_context::openai_api_server) {
    d = large ? engine_limits{8192, 1024} : engine_limits{2048, 256};
  } else if (p.usage == usage_context::llm_class) {
    d = large ? engine_limits{16384, 1024} : engine_limits{8192, 256};
  }
  engine_limits r;
  r.max_num_batched_tokens = p.max_num_batched_tokens.value_or(d.max_num_batched_tokens);
  r.max_num_seqs = p.max_num_seqs ? *p.max_num_seqs : std::min(d.max_num_seqs, r.max_num_batched_tokens);
  return r;
}

/// Checks the engine settings; throws `config_error` naming the field (prefixed by `at`).
template <class = void>
inline void validate(const engine_params& p, const std::string& at = {}) {
  constexpr const char* m = "strata.engine";
  const auto& lim = serving_limits();
  if (p.max_num_batched_tokens) {
    detail::require_count(*p.max_num_batched_tokens, 1, 1 << 20, m, detail::at_field(at, "max_num_batched_tokens"));
  }
  if (p.max_num_seqs) detail::require_count(*p.max_num_seqs, 1, lim.batch, m, detail::at_field(at, "max_num_seqs"));
  detail::require(p.gpu_memory_utilization > 0.0 && p.gpu_memory_utilization <= 1.0, m,
                  detail::at_field(at, "gpu_memory_utilization"), p.gpu_memory_utilization, "in (0, 1]");
  detail::require_count(p.block_size, 1, 1 << 12, m, detail::at_field(at, "block_size"));
  detail::require_count(p.shared_prefix_tokens, 0, lim.tokens, m, detail::at_field(at, "shared_prefix_tokens"));
  validate(p.host, detail::at_field(at, "host"));
  validate(p.sampler, detail::at_field(at, "sampler"));
}

}  // namespace v0
}  // namespace strata
