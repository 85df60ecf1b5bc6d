// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Step costs of a Stratum system in the serving simulation, memoised (Stratum's own; the grid and
/// the shared types are `serving/step_costs.hpp`'s, whose file comment states the approximation):
/// decode by `evaluate_decode` on a placement made for (B, the grid context above S) at the grid
/// point of the hot-hit rate h (the hit-rate table of `usage_from_hit_rate(h)`), prefill by the
/// roofline on the xPU die over the interposer (as `evaluate_prefill`). Each grid point is
/// evaluated once, on first use.

#include <algorithm>  // std::clamp, std::max
#include <cmath>      // std::ceil
#include <cstddef>    // std::size_t
#include <optional>   // std::optional (a memo slot not evaluated yet)
#include <vector>     // std::vector

#include "strata/serving/step_costs.hpp"
#include "strata/stratum/system.hpp"
#include "strata/stratum/usage.hpp"
#include "strata/workload/model.hpp"
#include "strata/workload/operators.hpp"
#include "strata/workload/roofline.hpp"

namespace strata {
inline namespace v0 {

/// Memoised decode and prefill costs of a model on a Stratum system (file comment).
class stratum_step_costs {
 public:
  template <class = void>
  stratum_step_costs(const stratum_machine<>& sm, const model& m) : sm_(sm), m_(m) {
    validate(m_);
    const bool moe = m_.experts > 0;
    lo_ = moe ? static_cast<double>(m_.top_k) / m_.experts : 1.0;
    h_.push_back(0.0);
    if (!moe || m_.experts < 2 * m_.top_k) h_.clear();
    h_.push_back(lo_);
    for (int k = 1; k <= 4 && moe && lo_ < 1.0; ++k) h_.push_back(lo_ + (1.0 - lo_) * k / 4.0);
  }

  /// A decode step of `batch` sequences at mean context `context` with hot-hit rate `h`.
  template <class = void>
  step_cost decode(int batch, double context, double h) {
    const auto [j, w] = detail::ctx_bracket(context);
    h = std::clamp(h, h_.front(), h_.back());
    std::size_t i = 0;
    while (i + 2 < h_.size() && h_[i + 1] < h) ++i;
    const double wh = h_.size() > 1 ? std::clamp((h - h_[i]) / (h_[i + 1] - h_[i]), 0.0, 1.0) : 0.0;
    const std::size_t i1 = h_.size() > 1 ? i + 1 : i;
    const auto at = [&](int jj, std::size_t ii) { return point(batch, jj, ii); };
    const step_cost a = detail::lerp(at(j, i), at(j, i1), wh);
    const step_cost b = detail::lerp(at(j + 1, i), at(j + 1, i1), wh);
    return detail::lerp(a, b, w);
  }

  /// A prefill step of `batch` prompts of mean length `prompt` on the xPU.
  template <class = void>
  step_cost prefill(int batch, double prompt) {
    const auto [j, w] = detail::ctx_bracket(prompt);
    return detail::lerp(prefill_point(batch, j), prefill_point(batch, j + 1), w);
  }

  /// The h grid (file comment).
  template <class = void>
  [[nodiscard]] const std::vector<double>& h_grid() const { return h_; }
  /// Grid points evaluated so far.
  template <class = void>
  [[nodiscard]] std::size_t evaluations() const { return evaluations_; }

 private:
  /// The memo of batch size `batch` (one slot per grid point; empty: not evaluated yet).
  template <class = void>
  static std::optional<step_cost>& slot(std::vector<std::vector<std::optional<step_cost>>>& memo, int batch,
                                        std::size_t i, std::size_t n) {
    const auto b = static_cast<std::size_t>(batch);
    if (b >= memo.size()) memo.resize(b + 1);
    auto& row = memo[b];
    if (row.empty()) row.assign(n, std::nullopt);
    return row[i];
  }
  template <class = void>
  step_cost point(int batch, int j, std::size_t hi) {
    auto& memo = slot(memo_, batch, static_cast<std::size_t>(j) * h_.size() + hi,
                      static_cast<std::size_t>(detail::ctx_grid_points) * h_.size());
    if (memo) return *memo;
    const int ctx = static_cast<int>(std::ceil(detail::ctx_grid(j)));
    const step_shape s{.mode = phase::decode, .batch = batch, .context = ctx};
    usage_table route, place;
    if (m_.experts > 0) {
      const int L = m_.moe_layers(), E = m_.experts, A = m_.top_k;
      const double h = h_[hi];
      if (h >= lo_) {
        route = usage_from_hit_rate(L, E, A, std::max(h, lo_));
        place = route;
      } else {
        const double q = 1.0 - h * (E - A) / A;
        route = usage_from_hit_rate(L, E, A, q, 0);
        place = usage_from_hit_rate(L, E, A, q, A);
      }
    }
    const auto pl = place_model(sm_, m_, s, place);
    const auto r = evaluate_decode(sm_, pl, m_, s, route);
    const auto& e = r.parts;
    const double logic = (e.mac + e.sfe + e.sram + e.bond + e.ring + e.phy + e.nmp_static).si();
    const double dram = (e.dram() + e.refresh).si();
    const step_cost c{r.time.si(), r.energy.si(), logic, dram};
    ++evaluations_;
    memo = c;
    return c;
  }
  template <class = void>
  step_cost prefill_point(int batch, int j) {
    auto& memo = slot(prefill_memo_, batch, static_cast<std::size_t>(j), detail::ctx_grid_points);
    if (memo) return *memo;
    const step_shape s{.mode = phase::prefill, .batch = batch, .context = static_cast<int>(std::ceil(detail::ctx_grid(j)))};
    const auto r = evaluate(step_operators(m_, s), s, m_.hidden, sm_.xpu);
    const step_cost c{r.time.si(), r.energy.si()};
    ++evaluations_;
    memo = c;
    return c;
  }

  stratum_machine<> sm_;
  model m_;
  double lo_ = 1.0;
  std::vector<double> h_;
  std::vector<std::vector<std::optional<step_cost>>> memo_, prefill_memo_;  ///< by batch size, then grid point
  std::size_t evaluations_ = 0;
};

}  // namespace v0
}  // namespace strata
