// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Per-layer expert hit counts of recorded MoE routing, per (model, checkpoint, topic, selection):
/// the types `expert_count_table` holds. The reader (`read_expert_counts_csv`,
/// `load_expert_counts_csv`) and the file formats are in `workload/trace_io.hpp`, which includes
/// this header; a model that only takes counts (`usage_from_counts`, `stratum/usage.hpp`) includes
/// this one alone and does not compile the readers.
///
/// \code
/// const strata::expert_counts& c = table.at("ESFT-vanilla-lite(DeepSeek-V2-Lite)", "intent", "topk6");
/// double p = c.hit_rate(1, 0);  // count / tokens of expert 0 at layer 1
/// \endcode

#include <compare>      // operator<=> (defaulted)
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int64_t
#include <string>       // std::string, std::to_string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "strata/core/error.hpp"

namespace strata {
inline namespace v0 {

/// Identifies one series of expert counts.
struct expert_count_key {
  std::string model;       ///< e.g. "OLMoE-1B-7B-0824"
  std::string checkpoint;  ///< e.g. "pretrained", "SFT"; empty if the file has no such column
  std::string topic;       ///< task or domain, e.g. "intent", "arxiv"
  std::string selection;   ///< "top1" (argmax only) or "topk<k>" (every top-k slot)

  // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 misreads the defaulted <=>
  friend auto operator<=>(const expert_count_key&, const expert_count_key&) = default;
  friend bool operator==(const expert_count_key&, const expert_count_key&) = default;
};

/// Counts of one MoE layer: counts[e] tokens (of `tokens`) routed to expert e.
struct expert_count_layer {
  int layer = 0;                         ///< layer number as in the file (ESFT: 1..26; OLMoE: 0, 7, 15)
  std::int64_t tokens = 0;               ///< tokens seen by the layer
  std::vector<std::int64_t> counts;      ///< per expert, Σ = k·tokens
  std::vector<double> gate_weight_sum;   ///< per expert, Σ of gate weights (empty if not in the file)

  friend bool operator==(const expert_count_layer&, const expert_count_layer&) = default;
};

/// One series: a model (checkpoint) on one topic with one selection rule, over its saved layers.
struct expert_counts {
  expert_count_key key;
  int k = 0;        ///< experts counted per token (1 for top1)
  int experts = 0;  ///< routed experts per layer
  std::vector<expert_count_layer> layers;  ///< ascending layer number

  /// The layer with number `layer`; throws `config_error` if it was not saved.
  template <class = void>
  [[nodiscard]] const expert_count_layer& layer(int layer) const {
    for (const auto& l : layers) {
      if (l.layer == layer) return l;
    }
    std::string have;
    for (const auto& l : layers) have += (have.empty() ? "" : ", ") + std::to_string(l.layer);
    throw config_error("layer", "[strata.trace] " + key.model + "/" + key.topic + "/" + key.selection +
                                    " has no layer " + std::to_string(layer) + " (layers: " + have + ")");
  }
  /// Probability that a token of this topic uses `expert` at `layer`: count / tokens.
  template <class = void>
  [[nodiscard]] double hit_rate(int layer, int expert) const {
    const auto& l = this->layer(layer);
    if (expert < 0 || expert >= experts) {  // the message is built only on failure (hot path)
      detail::require(false, "strata.trace", "expert", expert, ("in [0, " + std::to_string(experts) + ")").c_str());
    }
    return static_cast<double>(l.counts[static_cast<std::size_t>(expert)]) / static_cast<double>(l.tokens);
  }

  friend bool operator==(const expert_counts&, const expert_counts&) = default;
};

/// All series of a count file, sorted by key.
struct expert_count_table {
  std::vector<expert_counts> series;

  /// The series with this key, or nullptr.
  template <class = void>
  [[nodiscard]] const expert_counts* find(const expert_count_key& key) const {
    for (const auto& s : series) {
      if (s.key == key) return &s;
    }
    return nullptr;
  }
  /// The one series of `model`, `topic` and `selection`; an empty `checkpoint` matches any
  /// checkpoint but must leave one series. Throws `config_error` if none or several match.
  template <class = void>
  [[nodiscard]] const expert_counts& at(std::string_view model, std::string_view topic, std::string_view selection,
                                        std::string_view checkpoint = {}) const {
    const expert_counts* hit = nullptr;
    int n = 0;
    for (const auto& s : series) {
      if (s.key.model == model && s.key.topic == topic && s.key.selection == selection &&
          (checkpoint.empty() || s.key.checkpoint == checkpoint)) {
        hit = &s;
        ++n;
      }
    }
    const std::string what = std::string(model) + "/" + std::string(checkpoint) + "/" + std::string(topic) + "/" +
                             std::string(selection);
    if (n == 0) throw config_error("key", "[strata.trace] no expert counts for " + what);
    if (n > 1) throw config_error("key", "[strata.trace] several checkpoints match " + what + "; give one");
    return *hit;
  }

  friend bool operator==(const expert_count_table&, const expert_count_table&) = default;
};

}  // namespace v0
}  // namespace strata
