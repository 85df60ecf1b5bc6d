// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The masked Double DQN (`dqn.hpp`, Eq. 34) as the value function of HCRMap's slow controller
/// (§6.4): Q_θ(φ(s_w, a)) of each legal candidate action's feature vector (`action.hpp`; 23
/// features, each normalised as listed there), the argmax taken by the controller over the legal
/// candidates only (ties: no-op, then the first) — so a frozen network decides deterministically
/// and can never pick an action the mask of Eq. 28–30 and 40 rejected.
///
/// A `dqn_scorer` is a cheap copyable handle on a frozen agent (a checkpoint, `dqn_json.hpp`), and
/// is itself an `action_scorer`: `controller.decide(scorer)`, or `run_experiment(..., scorer)`.
///
/// \code
/// const auto agent = strata::parse_dqn_checkpoint(text, "dqn_checkpoint.json");  // dqn_json.hpp
/// const strata::dqn_scorer q(agent);
/// const auto a = controller.decide(q);   // the legal action of highest Q
/// \endcode

#include <cmath>    // std::isfinite
#include <cstddef>  // std::size_t
#include <memory>   // std::shared_ptr, std::make_shared
#include <span>     // std::span
#include <string>   // std::to_string
#include <utility>  // std::move

#include <Eigen/Core>

#include "strata/core/error.hpp"
#include "strata/hcrmap/action.hpp"
#include "strata/hcrmap/dqn.hpp"

namespace strata {
inline namespace v0 {

/// Q_θ of a frozen agent over the controller's features (file comment). A template on the real
/// type only so that including the header instantiates nothing (q_network.hpp, "Scalar type");
/// use `dqn_scorer`.
template <class Real = double>
class basic_dqn_scorer {
 public:
  using agent_type = basic_dqn_agent<Real>;
  /// Throws `config_error` ("features") unless the agent takes `controller_feature_count` inputs.
  explicit basic_dqn_scorer(agent_type agent) : agent_(std::make_shared<const agent_type>(std::move(agent))) {
    detail::require(agent_->features() == static_cast<int>(controller_feature_count), "strata.hcrmap.dqn_scorer", "features",
                    agent_->features(),
                    ("controller_feature_count = " + std::to_string(controller_feature_count) + " inputs").c_str());
  }

  /// Q_θ(φ); throws `config_error` ("features") unless φ has `controller_feature_count` entries.
  double operator()(std::span<const double> f) const {
    detail::require(f.size() == controller_feature_count, "strata.hcrmap.dqn_scorer", "features", f.size(),
                    ("controller_feature_count = " + std::to_string(controller_feature_count) + " entries").c_str());
    q_vector<Real> x(static_cast<Eigen::Index>(f.size()));
    for (std::size_t i = 0; i < f.size(); ++i) x(static_cast<Eigen::Index>(i)) = static_cast<Real>(f[i]);
    const auto q = static_cast<double>(agent_->online().value(x));
    detail::require(std::isfinite(q), "strata.hcrmap.dqn_scorer", "features", "a non-finite Q value",
                    "features for which the network's Q is finite");
    return q;
  }

  /// The frozen agent.
  [[nodiscard]] const agent_type& agent() const { return *agent_; }

 private:
  std::shared_ptr<const agent_type> agent_;
};

/// The `double` scorer the controller decides with.
using dqn_scorer = basic_dqn_scorer<double>;

}  // namespace v0
}  // namespace strata
