// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// "Does my model run here, and how well does the library describe it?" — a coverage verdict per
/// (model, machine), the same one `strata-eval list --support` tabulates and `strata-eval eval`
/// prints with every result:
///
/// - `refused: <why>` — the library gives no result: the model does not fit the machine's memory
///   on up to `max_devices` cards (vLLM's start-up test, `check_fit`) at the reference step; or
///   the mapping is one the model cannot do (`mapping_coverage`): tensor parallelism wider than
///   the attention heads (some device would hold no head), expert parallelism wider than the
///   routed experts or not dividing them, expert parallelism of a model without routed experts.
///   (A config naming a mechanism the library does not model — linear or sparse attention layers
///   — is refused earlier, by the reader, with a `config_error`.)
/// - `approximated: <what>; <what>` — a result, with each approximation named:
///   - a mapping the roofline takes more evenly than an engine can (`mapping_coverage`): attention
///     heads or KV heads not divisible by the tensor-parallel degree (split as fractions of a
///     head). More devices than KV heads (each holds a replica of a head) and MLA under tensor
///     parallelism (the latent cache whole on every rank) are modelled as engines hold them
///     (`kv_read_factor` in `workload/roofline.hpp`, `check_fit`), so they are not approximations;
///   - no measured serving run of the card checks its serving knobs (η_m, η_c, t_o): RTX A6000,
///     H200, B200, MI300X and MI325X have no row in the measurement set (`knobs_note`); the last
///     four carry the H100's cited knobs;
///   - a weight format the card has no tensor-core path for: 4-bit weights on a card without FP4
///     are dequantised and computed at the 16-bit rate, 8-bit weights on a card without FP8 at the
///     16-bit rate (`peak_of` in `workload/roofline.hpp`);
///   - every config key the reader ignored that may change time or memory (`hf_warning`), e.g.
///     DeepSeek-V3's multi-token-prediction layer (`num_nextn_predict_layers`).
/// - `supported` — none of the above.
///
/// One rule for every machine: `model_coverage` applies the mapping check to a roofline machine
/// however it was made (a GPU preset through `gpu_coverage`, a `gpu_params` or `roofline_machine`
/// file, a config or a preset), so a machine file of 64 devices running Mixtral-8x7B (32 heads)
/// is refused as the GPU path would be.
///
/// Presets carry the ignored keys of the config they were written from (`preset_ignored_keys`;
/// `tests/workload/hf_config_test.cpp` checks them against the fixtures), so a preset and its
/// config get the same verdict.
///
/// \code
/// const strata::coverage_verdict v = strata::gpu_coverage(strata::preset("gpt-oss-20b"), "h100_sxm5");
/// // v.text(): "approximated: 4-bit experts dequantised to BF16 (no FP4 path on H100 SXM5)"
/// \endcode

#include <array>        // std::array
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::pair, std::move
#include <vector>       // std::vector

#include "strata/baseline/gpu.hpp"
#include "strata/baseline/baseline_gpu.hpp"
#include "strata/baseline/validated_gpu.hpp"
#include "strata/workload/hf_warning.hpp"
#include "strata/workload/expert_parallel.hpp"
#include "strata/workload/model.hpp"
#include "strata/workload/operators.hpp"
#include "strata/workload/roofline.hpp"

namespace strata {
inline namespace v0 {

/// The three verdicts.
enum class coverage_kind { supported, approximated, refused };
constexpr auto enum_names(coverage_kind) {
  return std::array{std::pair{coverage_kind::supported, "supported"},
                    std::pair{coverage_kind::approximated, "approximated"},
                    std::pair{coverage_kind::refused, "refused"}};
}

/// A verdict and its reasons (approximations, or why it is refused).
struct coverage_verdict {
  coverage_kind kind = coverage_kind::supported;
  std::vector<std::string> reasons;
  int devices = 0;  ///< tensor-parallel degree the check used (0: none fits)

  /// "supported", "approximated: a; b" or "refused: why".
  template <class = void>
  [[nodiscard]] std::string text() const;
};

// Defined outside the class, so not `inline` (a member defined in its class is): strata::compiled
// holds its instantiation (end of file), which an `inline` one would not spare a STRATA_COMPILED
// consumer (GCC instantiates inline functions for inlining). The same for every function below.
template <class>
std::string coverage_verdict::text() const {
  std::string t = kind == coverage_kind::supported ? "supported" : kind == coverage_kind::approximated ? "approximated" : "refused";
  for (std::size_t i = 0; i < reasons.size(); ++i) t += (i == 0 ? ": " : "; ") + reasons[i];
  return t;
}

/// The keys each preset's source config has that the reader ignores although they may change
/// cost (the warnings `load_hf_config_with_warnings` gives for its fixture).
template <class = void>
std::vector<std::string> preset_ignored_keys(std::string_view preset_name) {
  if (preset_name == "DeepSeek-V3" || preset_name == "GLM-4.5-Air") return {"num_nextn_predict_layers"};
  if (preset_name == "Llama-4-Scout-17B-16E") return {"vision_config", "text_config.attention_chunk_size"};
  return {};
}

namespace detail {
template <class = void>
std::string coverage_key_reason(const std::string& key) {
  if (key == "num_nextn_predict_layers" || key == "text_config.num_nextn_predict_layers") {
    return "multi-token-prediction layers not modelled (num_nextn_predict_layers)";
  }
  if (key == "vision_config") return "vision encoder not modelled (vision_config)";
  if (key == "text_config.attention_chunk_size" || key == "attention_chunk_size") {
    return "chunked attention taken as full attention (" + key + ")";
  }
  return "config key " + key + " ignored";
}
}  // namespace detail

/// What the mapping of `m` on `devices` devices under parallelism `p` cannot do (`refusals`) and
/// what the roofline takes more evenly than a serving engine does (`approximations`), each a
/// sentence (file comment). Tensor parallelism applies to attention unless `p` puts attention in
/// data parallelism (EP with `attention_parallel::dp`).
struct mapping_check {
  std::vector<std::string> refusals;
  std::vector<std::string> approximations;
};

/// The mapping check of `m` on `devices` devices under `p` (file comment; `devices` >= 1).
template <class = void>
mapping_check mapping_coverage(const model& m, int devices, const parallelism& p = {}) {
  validate(m);
  detail::require(devices >= 1, "strata.coverage", "devices", devices, ">= 1");
  mapping_check c;
  const std::string n = std::to_string(devices);
  if (p.ep > 1) {
    const std::string ep = std::to_string(p.ep);
    if (m.experts == 0) {
      c.refusals.push_back("expert parallelism " + ep + " for a model without routed experts");
    } else if (p.ep > m.experts) {
      c.refusals.push_back("expert parallelism " + ep + " wider than the " + std::to_string(m.experts) +
                           " routed experts (no expert for " + std::to_string(p.ep - m.experts) + " of the devices)");
    } else if (m.experts % p.ep != 0) {
      c.refusals.push_back("expert parallelism " + ep + " does not divide the " + std::to_string(m.experts) +
                           " routed experts");
    }
  }
  const bool tp_attention = devices > 1 && !(p.ep > 1 && p.attention == attention_parallel::dp);
  if (!tp_attention) return c;
  const std::string heads = std::to_string(m.heads);
  if (devices > m.heads) {
    c.refusals.push_back("tensor parallelism " + n + " wider than the " + heads + " attention heads (no head for " +
                         std::to_string(devices - m.heads) + " of the devices)");
    return c;
  }
  if (m.heads % devices != 0) {
    c.approximations.push_back(heads + " attention heads not divisible by tensor parallelism " + n +
                               " (split evenly as fractions of a head; vLLM refuses this degree)");
  }
  // KV beyond the KV heads (a replica per device) and MLA's latent cache (whole on every rank) are
  // modelled as engines hold them (`kv_read_factor`, `check_fit`): no approximation.
  if (!m.is_mla() && devices < m.kv_heads && m.kv_heads % devices != 0) {
    c.approximations.push_back(std::to_string(m.kv_heads) + " KV heads not divisible by tensor parallelism " + n +
                               " (split evenly as fractions of a head)");
  }
  return c;
}

/// The verdict of model `m` on `machine` (a validated roofline machine, its `devices` in tensor
/// parallelism) under parallelism `p`: refused when the mapping is one the model cannot do
/// (`mapping_coverage`), else the mapping's approximations, weight formats the machine has no
/// path for, and `ignored_keys` of the model's config. The same rule for a GPU preset
/// (`gpu_coverage`), a machine file, a config and a preset.
template <class = void>
coverage_verdict model_coverage(const model& m, const roofline_machine& machine,
                                const std::vector<std::string>& ignored_keys = {}, const parallelism& p = {}) {
  validate(m);
  coverage_verdict v;
  v.devices = machine.devices;
  mapping_check mapping = mapping_coverage(m, machine.devices, p);
  if (!mapping.refusals.empty()) {
    v.kind = coverage_kind::refused;
    v.reasons = std::move(mapping.refusals);
    return v;
  }
  v.reasons = std::move(mapping.approximations);
  const std::string card = machine.devices > 1 ? machine.name.substr(0, machine.name.rfind(" x")) : machine.name;
  // Each component with a format of its own, then every other weight at weight_bits.
  const std::pair<const char*, int> parts[] = {{"experts", m.experts > 0 ? m.expert_format.bits : 0},
                                               {"attention", m.attention_format.bits},
                                               {"embeddings", m.embedding_format.bits},
                                               {"weights", m.weight_bits}};
  for (const auto& [part, bits] : parts) {
    if (bits == 0) continue;
    if (bits <= 4 && value_of(machine.peak_flops_4bit) <= 0.0) {
      v.reasons.push_back(std::to_string(bits) + "-bit " + part + " dequantised to BF16 (no FP4 path on " + card + ")");
    } else if (bits > 4 && bits <= 8 && value_of(machine.peak_flops_8bit) <= 0.0) {
      v.reasons.push_back(std::to_string(bits) + "-bit " + part + " computed at the 16-bit rate (no FP8 path on " + card +
                          ")");
    }
  }
  for (const auto& k : ignored_keys) v.reasons.push_back(detail::coverage_key_reason(k));
  v.kind = v.reasons.empty() ? coverage_kind::supported : coverage_kind::approximated;
  return v;
}

/// Adds the knobs' approximation for GPU preset `gpu` when the published set has no row of it.
template <class = void>
void add_knobs_reason(coverage_verdict& v, std::string_view gpu) {
  if (v.kind == coverage_kind::refused || published_rows_on(gpu) > 0) return;
  v.reasons.insert(v.reasons.begin(), "serving knobs not checked on " + gpu_preset(gpu).name +
                                          " (no measured serving run of it)");
  v.kind = coverage_kind::approximated;
}

/// The keys of reader warnings, for `model_coverage`.
template <class = void>
std::vector<std::string> warning_keys(const std::vector<hf_warning>& warnings) {
  std::vector<std::string> keys;
  keys.reserve(warnings.size());
  for (const auto& w : warnings) keys.push_back(w.key);
  return keys;
}

/// The verdict of model `m` on GPU preset `gpu` (with the default knob set, `baseline_gpu`; the knobs do not enter the memory fit)
/// for step `shape` on up to `max_devices` cards (default: one node of 8). `ignored_keys`: the
/// config's ignored keys (`warning_keys`, or `preset_ignored_keys` for a preset).
template <class = void>
coverage_verdict gpu_coverage(const model& m, std::string_view gpu, const std::vector<std::string>& ignored_keys = {},
                              const step_shape& shape = {.mode = phase::decode, .batch = 1, .context = 2048},
                              int max_devices = 8) {
  const gpu_params card = baseline_gpu(gpu_preset(gpu));
  coverage_verdict v;
  const int n = min_devices(card, m, shape, nullptr, max_devices);
  if (n == 0) {
    v.kind = coverage_kind::refused;
    v.reasons.push_back("does not fit " + std::to_string(max_devices) + " x " + card.name + " (" +
                        detail::gb_text(check_fit(card, max_devices, m, shape).required_per_device) + " per device of " +
                        detail::gb_text(card.memory_capacity * card.usable_memory_fraction) + " usable)");
    return v;
  }
  v = model_coverage(m, make_machine(card, n), ignored_keys);
  add_knobs_reason(v, gpu);
  return v;
}

/// On a Stratum system (`stratum/system.hpp`), which takes every layer as full attention and every
/// weight at `weight_bits`: those approximations for `m`, and its `ignored_keys`.
template <class = void>
coverage_verdict stratum_coverage(const model& m, const std::vector<std::string>& ignored_keys = {}) {
  validate(m);
  coverage_verdict v;
  bool sliding = false;
  for (int l = 0; l < m.layers; ++l) sliding = sliding || m.is_sliding_layer(l);
  if (sliding) v.reasons.emplace_back("sliding-window layers taken as full attention on a Stratum system");
  if (m.expert_format.bits != 0 || m.attention_format.bits != 0 || m.embedding_format.bits != 0) {
    v.reasons.push_back("per-component weight formats taken at " + std::to_string(m.weight_bits) +
                        " bits on a Stratum system");
  }
  for (const auto& k : ignored_keys) v.reasons.push_back(detail::coverage_key_reason(k));
  v.kind = v.reasons.empty() ? coverage_kind::supported : coverage_kind::approximated;
  return v;
}

}  // namespace v0
}  // namespace strata

// strata::compiled (STRATA_BUILD_COMPILED, src/compiled.cpp) holds the instantiations below;
// STRATA_COMPILED=1, which that target puts on its users, keeps their translation units from
// instantiating them again (the coverage check of `strata-eval eval`: with them, the GPU presets,
// the published measurement set's reader and the mapping check). Without it this header is
// unchanged (header-only).
#if defined(STRATA_COMPILED) && STRATA_COMPILED
namespace strata {
inline namespace v0 {
extern template std::string coverage_verdict::text<void>() const;
extern template std::vector<std::string> preset_ignored_keys<void>(std::string_view);
extern template std::string detail::coverage_key_reason<void>(const std::string&);
extern template mapping_check mapping_coverage<void>(const model&, int, const parallelism&);
extern template coverage_verdict model_coverage<void>(const model&, const roofline_machine&,
                                                      const std::vector<std::string>&, const parallelism&);
extern template void add_knobs_reason<void>(coverage_verdict&, std::string_view);
extern template std::vector<std::string> warning_keys<void>(const std::vector<hf_warning>&);
extern template coverage_verdict gpu_coverage<void>(const model&, std::string_view, const std::vector<std::string>&,
                                                    const step_shape&, int);
extern template coverage_verdict stratum_coverage<void>(const model&, const std::vector<std::string>&);
}  // namespace v0
}  // namespace strata
#endif
