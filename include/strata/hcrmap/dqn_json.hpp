// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Checkpoints of HCRMap's masked Double DQN as JSON (HCRMap §6.9: the controller evaluates a
/// frozen checkpoint). The only hcrmap header that includes nlohmann/json, through
/// strata/core/json.hpp.
///
/// Format (version 1):
/// \code{.json}
/// { "format": "strata.hcrmap.dqn", "version": 1, "features": 12,
///   "params": { "hidden": [64, 64], "gamma": 0.99, ... every dqn_params field ... },
///   "layers": [ { "weights": [[w00, w01, ...], ...], "bias": [b0, ...] }, ... ] }
/// \endcode
/// `layers` runs input first; layer k's `weights` has h_k rows of h_{k−1} numbers (h_0 =
/// `features`, the last layer one row), exactly the q_network.hpp layers. The checkpoint is the
/// frozen network the controller decides with: the online weights and the parameters they were
/// trained with. The target network, Adam's moments, the replay buffer and the random streams'
/// positions are training state and are not saved; an agent loaded from a checkpoint decides
/// exactly as the saved one did, and training it further restarts them.
///
/// Writing keeps every weight exact (nlohmann writes the shortest decimal that reads back to the
/// same double), except that a weight of magnitude below `limits().quantity_min` (1e-24), which
/// the JSON reader rejects as denormal-scale input, is written as 0: its share of any Q is below
/// 1e-24 × the activation.
///
/// Reading checks everything before a matrix is built, and names the JSON path of the first
/// fault in a `config_error`: unknown keys and wrong types (core/json.hpp), the format name and
/// version, `params` as `validate(dqn_params, features)` with the sizes of `dqn_size_limits`
/// (`params.hidden[1]`, `params.gamma`, ...), the number of layers, every row count and row length
/// (`layers[1].weights[3]`), every bias length, and every number finite and of magnitude 0 or in
/// [1e-24, 1e24]. The network allocated is then at most the size the input spelled out.
///
/// \code
/// const std::string text = strata::save_dqn_checkpoint(agent);          // JSON text
/// strata::dqn_agent frozen = strata::parse_dqn_checkpoint(text, "dqn.json");
/// const int choice = frozen.greedy(candidates, legal);                  // same as agent's
/// \endcode

#include <cstddef>      // std::size_t
#include <string>       // std::string, std::to_string
#include <string_view>  // std::string_view
#include <utility>      // std::move
#include <vector>       // std::vector

#include <Eigen/Core>

#include "strata/core/error.hpp"
#include "strata/core/json.hpp"
#include "strata/core/limits.hpp"
#include "strata/hcrmap/dqn.hpp"

namespace strata {
inline namespace v0 {

/// One affine layer as stored in a checkpoint: `weights` row by row, and `bias`.
struct dqn_checkpoint_layer {
  std::vector<std::vector<double>> weights;
  std::vector<double> bias;

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("weights", s.weights);
    v("bias", s.bias);
  }
  friend bool operator==(const dqn_checkpoint_layer&, const dqn_checkpoint_layer&) = default;
};

/// A frozen Double DQN: format tag and version, feature count, parameters and network weights.
struct dqn_checkpoint {
  /// Names the file's content. [Design choice: lets a reader reject any other JSON up front]
  std::string format = "strata.hcrmap.dqn";
  /// Format version. [This header's format: 1]
  int version = 1;
  /// Input features F.
  int features = 0;
  dqn_params params;
  std::vector<dqn_checkpoint_layer> layers;

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("format", s.format);
    v("version", s.version);
    v("features", s.features);
    v("params", s.params);
    v("layers", s.layers);
  }
  friend bool operator==(const dqn_checkpoint&, const dqn_checkpoint&) = default;
};

/// The format version this header writes and reads.
inline constexpr int dqn_checkpoint_version = 1;

/// The checkpoint of `agent`'s online network and parameters.
template <class Real>
dqn_checkpoint make_checkpoint(const basic_dqn_agent<Real>& agent) {
  dqn_checkpoint c;
  c.features = agent.features();
  c.params = agent.params();
  const double tiny = limits().quantity_min;
  const auto keep = [tiny](Real r) {
    const auto w = static_cast<double>(r);
    return (w < 0 ? -w : w) < tiny ? 0.0 : w;
  };
  for (const auto& l : agent.online().layers()) {
    dqn_checkpoint_layer out;
    for (Eigen::Index i = 0; i < l.weights.rows(); ++i) {
      std::vector<double> row;
      row.reserve(static_cast<std::size_t>(l.weights.cols()));
      for (Eigen::Index j = 0; j < l.weights.cols(); ++j) row.push_back(keep(l.weights(i, j)));
      out.weights.push_back(std::move(row));
    }
    for (Eigen::Index i = 0; i < l.bias.size(); ++i) out.bias.push_back(keep(l.bias(i)));
    c.layers.push_back(std::move(out));
  }
  return c;
}

/// The agent a checkpoint describes (see the file comment for every check); `path` prefixes the
/// JSON paths in error messages. (`Real` is the agent's real type, `double`: see dqn.hpp.)
template <class Real = double>
basic_dqn_agent<Real> load_checkpoint(const dqn_checkpoint& c, const std::string& path = {}) {
  constexpr const char* id = "strata.dqn_checkpoint";
  const auto at = [&path](const std::string& field) { return path.empty() ? field : path + "." + field; };
  detail::require(c.format == "strata.hcrmap.dqn", id, at("format"), detail::json_excerpt(json(c.format)),
                  "\"strata.hcrmap.dqn\"");
  detail::require(c.version == dqn_checkpoint_version, id, at("version"), c.version,
                  ("format version " + std::to_string(dqn_checkpoint_version)).c_str());
  detail::require(c.features >= 1 && c.features <= dqn_size_limits::features, id, at("features"), c.features,
                  ("in [1, " + std::to_string(dqn_size_limits::features) + "] (strata::dqn_size_limits::features)")
                      .c_str());
  detail::validate_dqn(c.params, c.features, at("params") + ".");
  const auto& hidden = c.params.hidden;
  detail::require(c.layers.size() == hidden.size() + 1, id, at("layers"), c.layers.size(),
                  ("one layer per hidden width plus the output (" + std::to_string(hidden.size() + 1) + ")").c_str());
  std::vector<basic_q_layer<Real>> layers;
  int in = c.features;
  for (std::size_t k = 0; k < c.layers.size(); ++k) {
    const int out = k == hidden.size() ? 1 : hidden[k];
    const std::string lk = at("layers[" + std::to_string(k) + "]");
    const dqn_checkpoint_layer& l = c.layers[k];
    detail::require(l.weights.size() == static_cast<std::size_t>(out), id, lk + ".weights", l.weights.size(),
                    (std::to_string(out) + " rows (the layer's outputs)").c_str());
    for (std::size_t i = 0; i < l.weights.size(); ++i) {
      detail::require(l.weights[i].size() == static_cast<std::size_t>(in), id,
                      lk + ".weights[" + std::to_string(i) + "]", l.weights[i].size(),
                      (std::to_string(in) + " numbers (the layer's inputs)").c_str());
    }
    detail::require(l.bias.size() == static_cast<std::size_t>(out), id, lk + ".bias", l.bias.size(),
                    (std::to_string(out) + " numbers (the layer's outputs)").c_str());
    basic_q_layer<Real> q{q_matrix<Real>(out, in), q_vector<Real>(out)};
    for (int i = 0; i < out; ++i) {
      for (int j = 0; j < in; ++j) {
        q.weights(i, j) = static_cast<Real>(l.weights[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)]);
      }
      q.bias(i) = static_cast<Real>(l.bias[static_cast<std::size_t>(i)]);
    }
    layers.push_back(std::move(q));
    in = out;
  }
  return basic_dqn_agent<Real>(c.params, basic_q_network<Real>(std::move(layers)));
}

/// Reads a checkpoint from parsed JSON; errors name the JSON path, starting at `path`.
template <class Real = double>
basic_dqn_agent<Real> load_checkpoint(const json& j, const std::string& path = {}) {
  return load_checkpoint<Real>(from_json_at<dqn_checkpoint>(j, path), path);
}

/// `agent`'s checkpoint as JSON text, pretty-printed with `indent` spaces (−1: on one line).
template <class Real>
std::string save_dqn_checkpoint(const basic_dqn_agent<Real>& agent, int indent = 1) {
  return dump_json(json(make_checkpoint(agent)), indent);
}

/// Parses checkpoint JSON text from outside (`parse_json`: bounded depth, errors naming `source`)
/// and loads it.
template <class Real = double>
basic_dqn_agent<Real> parse_dqn_checkpoint(std::string_view text, const std::string& source = "<string>") {
  return load_checkpoint<Real>(parse_json(text, source));
}

}  // namespace v0
}  // namespace strata
