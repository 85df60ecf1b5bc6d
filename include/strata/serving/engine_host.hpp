// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The serving engine's host (CPU) time: the per-step work of vLLM V1's engine core and the
/// request's path to the engine, each from its mechanism and a cited source; nothing here is
/// fitted to a measured serving run.
///
/// **Per-step host time.** Every step the engine core schedules (`Scheduler.schedule()`), the
/// worker prepares the step's inputs, and after the forward pass the engine core updates each
/// scheduled request from the sampled tokens (`Scheduler.update_from_output`) and hands the
/// outputs to the front end (vllm/v1/engine/core.py, `EngineCore.step`). Its time is modelled as
/// a constant plus a term per scheduled sequence:
///
///     h(b) = step_s + per_sequence_s · b      (b: the step's scheduled requests)
///
/// - `step_s` = 114 µs: vLLM V1's FCFS scheduler, 1000 requests scheduled in 504 `schedule()`
///   calls taking 57.698 ms (vllm-project/vllm pull request 19057, "Realistic Scheduling
///   Performance Benchmark", FCFS row; 264.8 ms for 2504 calls with 5000 requests, 106 µs).
/// - `per_sequence_s` = 12.7 µs: the all-decode scheduler cost per running request at the cap
///   (openfabric-systems/simllm pull request 204, vLLM step-loop cost attribution; the study
///   marks its absolute attribution uncertified, repeat-run drift 29.5 %, so this is the weakest
///   of the terms).
///
/// **Overlap.** vLLM schedules one step ahead since v0.14.0 (`--async-scheduling` on by default,
/// vLLM v0.14.0 release notes, pull request 27614; v0.15.1, the validation runs' version, keeps
/// it): the engine core schedules step k + 1 and the worker prepares it while step k runs on the
/// GPU, so a step lasts max(GPU time, h) (`engine_step_time`). Without it (`async_scheduling`
/// false, vLLM before v0.14 or `--no-async-scheduling`) the GPU waits: GPU time + h. The price of
/// scheduling ahead: step k + 1's batch is fixed when step k starts, so a request that arrives
/// during step k joins step k + 2 at the earliest (one step later than a synchronous engine);
/// `run_engine` admits, for the step starting at t, the requests that reached the engine by the
/// start of the step before (by t itself after an idle engine, which schedules at once).
///
/// **First-token path.** The API server tokenises the prompt before the request reaches the
/// engine core (vllm/v1/engine/processor.py, `Processor.process_inputs`, in the front-end
/// process): the request reaches the engine `tokenize_s_per_token · prompt` after it was sent.
/// 2.2 µs per token: a Hugging Face fast tokenizer, 100 000 tokens in 220 ms on one CPU core
/// (andyluo7, "CPU-GPU co-design for agentic inference on MI300X", 2026, vLLM 0.19; the
/// measurement of the tokenizer alone). The rest of the path, HTTP parsing, the IPC to the engine
/// core and the output processor's detokenisation and streaming of the first chunk, has no
/// published per-request measurement for the validated version that could be cited here; it is
/// the scenario's `scheduler.client_overhead` (default 0), added to TTFT and E2E as before.
///
/// `engine_host_params::none()` turns every term off: the engine then steps exactly as before
/// this model (GPU time only, arrivals admitted at the step they reach), bit for bit.

#include <cstdint>    // std::int64_t
#include <string>     // std::string

#include "strata/core/error.hpp"
#include "strata/tech/bounds.hpp"

namespace strata {
inline namespace v0 {

/// The engine's host time (file comment); the defaults are vLLM v0.15.1's behaviour with the cited
/// terms.
struct engine_host_params {
  /// Schedule one step ahead, overlapping the host time with the GPU. [vLLM v0.14.0 release notes:
  /// async scheduling on by default (pull request 27614); v0.15.1 keeps it]
  bool async_scheduling = true;
  /// Host time of every step, s. [vLLM pull request 19057: 57.698 ms / 504 schedule() calls]
  double step_s = 114e-6;
  /// Host time per scheduled request of a step, s. [openfabric-systems/simllm pull request 204:
  /// 12.7 µs per running request at the cap, attribution uncertified]
  double per_sequence_s = 12.7e-6;
  /// Tokenisation before the engine, s per prompt token. [andyluo7 2026: 100 000 tokens in 220 ms]
  double tokenize_s_per_token = 2.2e-6;

  /// Every term off (file comment): the engine of GPU time alone.
  static constexpr engine_host_params none() {
    return {.async_scheduling = false, .step_s = 0.0, .per_sequence_s = 0.0, .tokenize_s_per_token = 0.0};
  }

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("async_scheduling", s.async_scheduling);
    v("step_s", s.step_s);
    v("per_sequence_s", s.per_sequence_s);
    v("tokenize_s_per_token", s.tokenize_s_per_token);
  }
  friend bool operator==(const engine_host_params&, const engine_host_params&) = default;
};

/// Checks the host terms; throws `config_error` naming the field (prefixed by `at`).
template <class = void>
inline void validate(const engine_host_params& p, const std::string& at = {}) {
  constexpr const char* m = "strata.engine";
  const auto f = [&](const char* name) { return at.empty() ? std::string(name) : at + "." + name; };
  detail::require_in(p.step_s, 0.0, 1.0, m, f("step_s"));
  detail::require_in(p.per_sequence_s, 0.0, 1e-2, m, f("per_sequence_s"));
  detail::require_in(p.tokenize_s_per_token, 0.0, 1e-3, m, f("tokenize_s_per_token"));
}

/// h(b), the host time of a step of `sequences` scheduled requests, s (file comment).
template <class T = double>
constexpr T host_step_time(const engine_host_params& p, T sequences) {
  return T(p.step_s) + T(p.per_sequence_s) * sequences;
}

/// A step's time from its GPU time and host time, s: max(gpu, host) with async scheduling, else
/// their sum (file comment).
template <class T = double>
constexpr T engine_step_time(const engine_host_params& p, T gpu_s, T host_s) {
  if (p.async_scheduling) return gpu_s < host_s ? host_s : gpu_s;
  return gpu_s + host_s;
}

/// The time from a request's send to its arrival at the engine core, s: its prompt's
/// tokenisation (file comment).
template <class T = double>
constexpr T engine_arrival_delay(const engine_host_params& p, T prompt_tokens) {
  return T(p.tokenize_s_per_token) * prompt_tokens;
}

}  // namespace v0
}  // namespace strata
