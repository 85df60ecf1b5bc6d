// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The GPU time of vLLM V1's sampler: the work on the step's logits between the LM head and the
/// sampled token ids, which runs every step outside the CUDA graph and which the roofline's
/// operator list (`workload/operators.hpp`: final norm and LM head last) does not hold.
///
/// **Mechanism.** After the LM head the engine's sampler (vllm/v1/sample/sampler.py, `Sampler`,
/// and vllm/v1/sample/ops/topk_topp_sampler.py, `TopKTopPSampler.forward_native`,
/// `apply_top_k_top_p`, `random_sample`) runs a chain of element-wise, reduction and sort kernels
/// over the B × V logits (B sampled rows, V the vocabulary), each streaming the whole tensor
/// through HBM: a 128 256-token vocabulary makes 0.5 MB of FP32 logits per row, which no kernel
/// keeps on chip. Its time is therefore memory-bound and modelled as
///
///     t_sample(B, V) = B · V · β / (BW · η_m) + k · t_op          (B > 0; 0 without sampled rows)
///     β = β_plain + f · β_filter,   k = k_plain + f · k_filter
///
/// with f = 1 when the requests ask for top-p (or top-k with top-p) filtering, else 0; BW · η_m
/// the achievable bandwidth of one device and t_op its cost per kernel (`gpu_params`). Every
/// tensor-parallel rank samples its own copy of the gathered logits, so the time does not shrink
/// with the TP degree (a share that grows as the model's step shrinks).
///
/// Bytes per logit, counted pass by pass from the source (FP32 = 4 B, int64 index = 8 B, mask 1 B):
/// - always (random sampling, temperature > 0), β_plain = 50 B in k_plain = 6 kernels: the BF16
///   logits to FP32 (`logits.to(torch.float32)`: read 2, write 4); the temperature (`div_`: 4 + 4);
///   the softmax (`softmax(dim=-1)`: a row of V FP32 values exceeds shared memory, so PyTorch's
///   softmax reads it three times — max, sum, normalise — and writes it once: 16); the exponential
///   draws (`q.exponential_()`: write 4); `probs.div_(q)` (read 8, write 4) and `argmax` (read 4);
/// - top-p (`apply_top_k_top_p`, the PyTorch sort path), β_filter = 174 B in k_filter = 13 kernels:
///   the sort (`logits.sort(dim=-1)`: copy of the keys 4 + 4, index fill 8, and a radix sort of
///   32-bit keys with int64 values in at least four 8-bit passes, each reading and writing key and
///   value: 4 · 24 = 96; 112 in all, 6 kernels); the softmax of the sorted row (16); `cumsum`
///   (4 + 4); the mask `probs_sum <= 1 - p` (4 + 1); `masked_fill_` (5 + 4); `scatter` back to the
///   vocabulary order (a copy 4 + 4, then index 8 and source 4 read, 4 written: 24).
///   Top-k with top-p adds a mask and a fill (14 B) that are not counted; top-k alone takes
///   another path (`torch.topk`) and is not modelled.
///
/// The sort path is vLLM's default in v0.15: the FlashInfer sampler "is not enabled by default"
/// and the sort-based implementation "scales very poorly with vocab and batch sizes"
/// (vllm-project/vllm pull request 32558, January 2026, which measures it). Which filter applies
/// is the requests' (or, when a request sets none, the model's `generation_config.json`, which
/// vLLM applies by default, `--generation-config auto`): `gpu_sampler_params::top_p`.
///
/// The byte counts are a lower bound: a published timing of the sort path alone (vllm-project/
/// vllm pull request 40376: 128 rows of 131 072 logits, top-p, 2.318 ms; the card is not stated)
/// is 2.3 times what β_filter gives at the H100's 3.0 TB/s. Nothing here is fitted to a measured
/// serving run.
///
/// \code
/// const strata::gpu_params g = strata::h100_sxm5();
/// const double t = strata::sampler_time(strata::gpu_sampler_params{.top_p = true}, 24.0, 128256.0,
///                                       g.memory_bandwidth.si(), g.memory_efficiency, g.op_overhead.si());
/// \endcode

#include <string>  // std::string, field paths

#include "strata/core/error.hpp"

namespace strata {
inline namespace v0 {

/// vLLM V1's sampler as the GPU runs it (file comment). The defaults are vLLM's request defaults
/// (`SamplingParams`: temperature 1.0, top_p 1.0, top_k off: random sampling, no filter).
struct gpu_sampler_params {
  /// The requests filter by top-p (with or without top-k): the sort path. [vLLM SamplingParams
  /// default top_p = 1.0 (no filter); a model's generation_config.json may set one, e.g.
  /// Llama-3.1-8B-Instruct's top_p 0.9, and vLLM applies it to requests that set none]
  bool top_p = false;
  /// β_plain, bytes through HBM per logit of every sampled row. [Counted from vllm/v1/sample/
  /// sampler.py and ops/topk_topp_sampler.py, file comment: 6 + 8 + 16 + 4 + 12 + 4]
  double plain_bytes_per_logit = 50.0;
  /// k_plain, kernels of the plain path. [Same count: to, div_, softmax, exponential_, div_, argmax]
  int plain_kernels = 6;
  /// β_filter, bytes per logit the top-p sort path adds. [File comment: 112 + 16 + 8 + 5 + 9 + 24]
  double filter_bytes_per_logit = 174.0;
  /// k_filter, kernels the top-p sort path adds. [File comment: sort 6, softmax, cumsum, compare,
  /// masked_fill_, copy, scatter, gather of p]
  int filter_kernels = 13;

  /// No sampler time at all (the step of the roofline alone).
  static constexpr gpu_sampler_params none() {
    return {.top_p = false, .plain_bytes_per_logit = 0.0, .plain_kernels = 0, .filter_bytes_per_logit = 0.0,
            .filter_kernels = 0};
  }

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("top_p", s.top_p);
    v("plain_bytes_per_logit", s.plain_bytes_per_logit);
    v("plain_kernels", s.plain_kernels);
    v("filter_bytes_per_logit", s.filter_bytes_per_logit);
    v("filter_kernels", s.filter_kernels);
  }
  friend bool operator==(const gpu_sampler_params&, const gpu_sampler_params&) = default;
};

/// Checks the sampler's terms; throws `config_error` naming the field (prefixed by `at`).
template <class = void>
inline void validate(const gpu_sampler_params& p, const std::string& at = {}) {
  constexpr const char* m = "strata.sampler";
  const auto f = [&](const char* name) { return at.empty() ? std::string(name) : at + "." + name; };
  // A pass reads and writes at most a few 8-byte words per logit; 10 kB is far beyond any chain.
  detail::require_in(p.plain_bytes_per_logit, 0.0, 1e4, m, f("plain_bytes_per_logit"));
  detail::require_in(p.filter_bytes_per_logit, 0.0, 1e4, m, f("filter_bytes_per_logit"));
  detail::require_in(double(p.plain_kernels), 0.0, 1000.0, m, f("plain_kernels"));
  detail::require_in(double(p.filter_kernels), 0.0, 1000.0, m, f("filter_kernels"));
}

/// Bytes through HBM per logit, β = β_plain + f · β_filter (file comment).
template <class T = double>
constexpr T sampler_bytes_per_logit(const gpu_sampler_params& p) {
  return T(p.plain_bytes_per_logit) + (p.top_p ? T(p.filter_bytes_per_logit) : T(0.0));
}

/// Kernels per step, k = k_plain + f · k_filter (file comment).
constexpr int sampler_kernels(const gpu_sampler_params& p) {
  return p.plain_kernels + (p.top_p ? p.filter_kernels : 0);
}

/// t_sample(B, V), s (file comment): `rows` sampled rows of a `vocab`-token vocabulary on one device
/// of `bandwidth_Bps` B/s at efficiency `memory_efficiency`, `op_overhead_s` per kernel. Zero without
/// rows. Generic in the scalar (autodiff through the bandwidth, efficiency, rows or vocabulary).
template <class T = double>
constexpr T sampler_time(const gpu_sampler_params& p, T rows, T vocab, T bandwidth_Bps, T memory_efficiency,
                         T op_overhead_s) {
  if (!(rows > T(0.0))) return T(0.0);
  return rows * vocab * sampler_bytes_per_logit<T>(p) / (bandwidth_Bps * memory_efficiency) +
         T(double(sampler_kernels(p))) * op_overhead_s;
}

}  // namespace v0
}  // namespace strata
