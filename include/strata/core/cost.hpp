// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The cost algebra of the roofline evaluator (README, Conventions: costs compose).
///
/// A `cost` is time, energy and bytes moved per named resource, plus the tree of parts it was
/// built from. Leaves come from one equation (their `source` names it); inner nodes come from
/// three rules:
///
/// | rule       | time                                   | energy, bytes        |
/// |------------|----------------------------------------|----------------------|
/// | `seq`      | Σ tᵢ                                   | Σ                    |
/// | `overlap`  | max tᵢ                                 | Σ                    |
/// | `pipeline` | Σ tᵢ + (n − 1)·max tᵢ  (n items)       | n·Σ                  |
/// | `repeat`   | n·t                                    | n·                   |
///
/// `pipeline` is the fill-and-drain time of n items flowing through stages whose per-item costs
/// are the parts (a linear pipeline whose slowest stage sets the steady-state rate).
/// Every number a user sees can be traced down `parts` to a leaf and its equation; the tree
/// serialises to JSON (`strata/core/json.hpp`). The algebra is generic in the scalar `T`.
///
/// \code
/// auto load = cost<>::leaf("load W1", 1.2_us, 3_nJ, {{"hbm", 4_MiB}}, "Eq. 7");
/// auto mac  = cost<>::leaf("GEMM1", 0.8_us, 5_nJ, {}, "Eq. 13");
/// auto step = overlap("expert", {load, mac});   // time 1.2 us, energy 8 nJ
/// \endcode

#include <cstddef>           // std::size_t
#include <initializer_list>  // std::initializer_list
#include <string>            // std::string
#include <utility>           // std::move
#include <vector>            // std::vector

#include "strata/core/error.hpp"
#include "strata/core/scalar.hpp"
#include "strata/core/units.hpp"

namespace strata {
inline namespace v0 {

/// How a cost node combines its parts.
enum class cost_rule { leaf, seq, overlap, pipeline, repeat };

/// Name of a rule as written in JSON.
constexpr const char* to_string(cost_rule r) {
  switch (r) {
    case cost_rule::leaf: return "leaf";
    case cost_rule::seq: return "seq";
    case cost_rule::overlap: return "overlap";
    case cost_rule::pipeline: return "pipeline";
    case cost_rule::repeat: return "repeat";
  }
  return "leaf";
}

/// Bytes moved on one named resource (a memory tier, a link, a bus).
template <class T = double>
struct traffic {
  std::string resource;
  strata::data_size<T> bytes{};
};

/// Figures of the items one node stands for, one array per figure (e.g. a MoE block's experts:
/// id, tier, bytes, time, energy): a column under one node in place of a node per item. The name
/// carries the unit as a suffix ("time_s", "bytes_B"); element i of every column of a node is
/// item i.
struct cost_column {
  std::string name;
  std::vector<double> values;
  friend bool operator==(const cost_column&, const cost_column&) = default;
};

/// Time, energy and traffic of a piece of work, with the breakdown it came from.
template <class T = double>
struct cost {
  std::string name;                   ///< what this is ("layer 3", "GEMM1", "expert 17")
  cost_rule rule = cost_rule::leaf;   ///< how `parts` combine
  strata::duration<T> time{};         ///< wall time
  strata::energy<T> energy{};         ///< energy
  std::vector<traffic<T>> bytes;      ///< bytes per resource, summed over parts
  std::string source;                 ///< equation or citation (leaves)
  std::size_t count = 1;              ///< n of `pipeline` and `repeat`
  std::vector<cost> parts;            ///< the costs this one combines
  std::vector<cost_column> columns;   ///< per-item figures of what this node stands for (optional)

  /// A leaf: one equation's time, energy and traffic.
  // NOLINTNEXTLINE(performance-unnecessary-value-param): both strings are moved (clang-tidy 14 false positive)
  static cost leaf(std::string name, strata::duration<T> time, strata::energy<T> energy,
                   std::vector<traffic<T>> bytes = {},
                   std::string source = {}) {  // NOLINT(performance-unnecessary-value-param): moved
    cost c;
    c.name = std::move(name);
    c.time = time;
    c.energy = energy;
    c.source = std::move(source);
    for (const auto& t : bytes) {
      check_finite_(t.bytes.si(), c.name, "bytes." + t.resource);
      c.add_bytes(t.resource, t.bytes);
    }
    check_finite_(c.time.si(), c.name, "time");
    check_finite_(c.energy.si(), c.name, "energy");
    return c;
  }

  /// Bytes moved on `resource` (zero if none).
  [[nodiscard]] strata::data_size<T> bytes_on(const std::string& resource) const {
    for (const auto& t : bytes) {
      if (t.resource == resource) return t.bytes;
    }
    return {};
  }

  /// Adds `b` bytes on `resource` to this node's totals.
  void add_bytes(const std::string& resource, const strata::data_size<T>& b) {
    for (auto& t : bytes) {
      if (t.resource == resource) {
        t.bytes += b;
        return;
      }
    }
    bytes.push_back({resource, b});
  }

  /// Average power over the node's time (energy / time); zero for a zero-time node.
  [[nodiscard]] strata::power<T> average_power() const {
    if (!(value_of(time.si()) > 0.0)) return {};
    return energy / time;
  }

 private:
  static void check_finite_(const T& v, const std::string& name, const std::string& what) {
    const double d = value_of(v);
    if (!std::isfinite(d) || d < 0.0) {
      throw config_error(what, "[strata.cost] " + what + " of '" + name +
                                   "' must be finite and >= 0, got " + detail::to_text(d));
    }
  }
};

namespace detail {
template <class T>
cost<T> combine(std::string name, cost_rule rule,  // NOLINT(performance-unnecessary-value-param): moved
                std::vector<cost<T>> parts) {
  cost<T> c;
  c.name = std::move(name);
  c.rule = rule;
  for (const auto& p : parts) {
    c.energy += p.energy;
    for (const auto& t : p.bytes) c.add_bytes(t.resource, t.bytes);
  }
  c.parts = std::move(parts);
  return c;
}
}  // namespace detail

/// Parts one after another: times add.
template <class T>
cost<T> seq(std::string name, std::vector<cost<T>> parts) {
  auto c = detail::combine(std::move(name), cost_rule::seq, std::move(parts));
  for (const auto& p : c.parts) c.time += p.time;
  return c;
}

/// Parts at the same time on independent resources: the slowest sets the time.
template <class T>
cost<T> overlap(std::string name, std::vector<cost<T>> parts) {
  auto c = detail::combine(std::move(name), cost_rule::overlap, std::move(parts));
  for (const auto& p : c.parts) c.time = detail::max_of(c.time, p.time);
  return c;
}

/// `items` items through a linear pipeline whose per-item stage costs are `stages`:
/// time Σ tᵢ + (items − 1)·max tᵢ; energy and bytes `items`·Σ.
template <class T>
cost<T> pipeline(std::string name, std::vector<cost<T>> stages, std::size_t items) {
  detail::require(items >= 1, "strata.cost", "pipeline.items", items, ">= 1");
  auto c = detail::combine(std::move(name), cost_rule::pipeline, std::move(stages));
  strata::duration<T> slowest{};
  for (const auto& p : c.parts) {
    c.time += p.time;
    slowest = detail::max_of(slowest, p.time);
  }
  const T n = T(static_cast<double>(items));
  c.time += slowest * T(static_cast<double>(items - 1));
  c.energy *= n;
  for (auto& t : c.bytes) t.bytes *= n;
  c.count = items;
  return c;
}

/// Braced-list forms, so `overlap("expert", {load, mac})` deduces T from the parts.
template <class T>
cost<T> seq(std::string name, std::initializer_list<cost<T>> parts) {
  return seq(std::move(name), std::vector<cost<T>>(parts));
}
template <class T>
cost<T> overlap(std::string name, std::initializer_list<cost<T>> parts) {
  return overlap(std::move(name), std::vector<cost<T>>(parts));
}
template <class T>
cost<T> pipeline(std::string name, std::initializer_list<cost<T>> stages, std::size_t items) {
  return pipeline(std::move(name), std::vector<cost<T>>(stages), items);
}

/// `n` identical copies of `one`, one after another.
template <class T>
cost<T> repeat(std::string name, cost<T> one,  // NOLINT(performance-unnecessary-value-param): moved
               std::size_t n) {
  cost<T> c;
  c.name = std::move(name);
  c.rule = cost_rule::repeat;
  const T k = T(static_cast<double>(n));
  c.time = one.time * k;
  c.energy = one.energy * k;
  for (const auto& t : one.bytes) c.add_bytes(t.resource, t.bytes * k);
  c.count = n;
  c.parts.push_back(std::move(one));
  return c;
}

}  // namespace v0
}  // namespace strata
