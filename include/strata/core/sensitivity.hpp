// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Sensitivities of a closed-form model: the elasticity ε = ∂ln y/∂ln p = (p/y)·∂y/∂p of a scalar
/// output y with respect to every real parameter p of a params struct, exact by Boost.Math
/// forward-mode autodiff (first order), with a central finite-difference counterpart to check it.
///
/// Which parameters. A params struct lists its fields once, in `visit_fields` (the same list JSON
/// reads and writes). The parameters here are the fields of scalar type `T` and the quantities
/// `quantity<Dim, T>` reached through it, nested structs included, named by their dotted path
/// (`chip.memory.staircase_step`). Integer fields (layers, tiers, counts), booleans, enums and
/// strings are not differentiable and are left out: sweep them (`sweep.hpp`) or optimise over them;
/// so are members that are not templates on the scalar (they hold `double`s in either instantiation).
///
/// How. `elasticities(p, y)` copies `p` (a `P<double>`) into a `P<autodiff_scalar>` field by field
/// through `visit_fields`, then for each parameter in turn seeds its derivative (∂p/∂p = 1), runs
/// `y` once and reads ∂y/∂p; one model run per parameter. `y` is a generic callable: it is called
/// with `const P<autodiff_scalar>&` and must return a `T` or a `quantity<Dim, T>` (its SI value is
/// taken). A parameter at 0 has elasticity 0 (its derivative is still reported).
///
/// Caveats. Autodiff differentiates what the model computes with `T`: a path that drops to
/// `double` (a non-template sub-model, a `value_of` in the middle) contributes nothing to the
/// derivative, and a quantised step (a ceiling on rows, a `max`) has a one-sided derivative where
/// it switches. `finite_difference_elasticities` measures the same quantity by central differences
/// of the `double` model, so a disagreement between the two names such a path. A derived field
/// that a model overwrites (or rejects when changed, like the logic-die fields a Stratum chip
/// derives from its memory die) has elasticity 0 by autodiff and no finite difference.
///
/// \code
/// strata::mono3d_params<> p;
/// auto s = strata::elasticities(p, [](const auto& q) {
///   return strata::evaluate(q).tiers.front().internal_bandwidth;   // fastest-tier bandwidth
/// });
/// for (const auto& e : s.ranked()) { /* e.parameter, e.elasticity */ }
/// \endcode

#include <algorithm>    // std::sort
#include <cmath>        // std::abs, std::isfinite
#include <cstddef>      // std::size_t
#include <functional>   // std::function, the seeding of one parameter
#include <stdexcept>    // std::logic_error
#include <string>       // std::string
#include <type_traits>  // std::is_same_v, std::decay_t
#include <utility>      // std::move
#include <vector>       // std::vector

#include <boost/math/differentiation/autodiff.hpp>  // autodiff_fvar, make_fvar

#include "strata/core/error.hpp"
#include "strata/core/scalar.hpp"
#include "strata/core/units.hpp"

namespace strata {
inline namespace v0 {

/// The scalar the sensitivities run the models with: first-order forward-mode autodiff.
using autodiff_scalar = boost::math::differentiation::autodiff_fvar<double, 1>;

/// One parameter's sensitivity.
struct elasticity {
  std::string parameter;    ///< dotted field path, e.g. "memory.staircase_step"
  double value = 0.0;       ///< the parameter's value (SI)
  double derivative = 0.0;  ///< ∂y/∂p (SI units of y per SI unit of p)
  double elasticity = 0.0;  ///< ∂ln y/∂ln p = p·∂y/∂p / y (dimensionless)

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("parameter", s.parameter);
    v("value", s.value);
    v("derivative", s.derivative);
    v("elasticity", s.elasticity);
  }
};

/// The output and every parameter's sensitivity, in field order.
struct sensitivity_result {
  double output = 0.0;          ///< y at the point
  std::vector<elasticity> rows;  ///< one per real parameter, in `visit_fields` order

  /// The rows by |elasticity|, largest first (ties by name).
  template <class = void>
  [[nodiscard]] std::vector<elasticity> ranked() const {
    std::vector<elasticity> r = rows;
    std::sort(r.begin(), r.end(), [](const elasticity& a, const elasticity& b) {
      const double x = std::abs(a.elasticity), y = std::abs(b.elasticity);
      return x != y ? x > y : a.parameter < b.parameter;
    });
    return r;
  }
  /// The row of `parameter`; `config_error` (field "parameter") if there is none.
  template <class = void>
  [[nodiscard]] const elasticity& at(const std::string& parameter) const {
    for (const auto& e : rows) {
      if (e.parameter == parameter) return e;
    }
    throw config_error("parameter", "[strata.sensitivity] parameter must name a real parameter of the struct, got '" +
                                        parameter + "'");
  }
};

/// Which parameters to differentiate.
struct sensitivity_options {
  /// Dotted paths or path prefixes ending in '.' ("memory." selects every memory parameter);
  /// empty: every real parameter.
  std::vector<std::string> only{};
};

/// Step of the central finite differences.
struct finite_difference_options {
  /// Relative step h: p ± h·|p| (h for p = 0). The default balances truncation (∝ h²) and
  /// rounding (∝ ε/h) for smooth models: both near 1e-10 relative.
  double relative_step = 1e-5;
};

namespace detail {

template <class X>
concept sens_has_fields = requires(X& x) { X::visit_fields(x, [](const char*, auto&) {}); };

template <class X>
struct sens_is_quantity : std::false_type {};
template <class D, class U>
struct sens_is_quantity<quantity<D, U>> : std::true_type {};

/// The type of field X with the scalar `From` replaced by `To` (X itself when it holds neither).
template <class X, class From, class To>
struct rebind_scalar {
  using type = X;
};
template <class From, class To>
struct rebind_scalar<From, From, To> {
  using type = To;
};
template <class D, class From, class To>
struct rebind_scalar<quantity<D, From>, From, To> {
  using type = quantity<D, To>;
};
template <class E, class From, class To>
struct rebind_scalar<std::vector<E>, From, To> {
  using type = std::vector<typename rebind_scalar<E, From, To>::type>;
};
template <template <class> class P, class From, class To>
struct rebind_scalar<P<From>, From, To> {
  using type = P<To>;
};

template <class X>
inline constexpr char sens_type_tag = 0;  // one address per type

struct sens_field_ref {
  const void* ptr;
  const void* tag;
};

template <class Dst, class Src>
void convert_scalar(Dst& dst, const Src& src);

/// Copies a struct field by field: `src`'s fields are collected in order, then `dst`'s are
/// assigned from them (the two `visit_fields` lists are the same list, of two instantiations).
template <class Dst, class Src>
void convert_struct(Dst& dst, const Src& src) {
  std::vector<sens_field_ref> fields;
  Src::visit_fields(src, [&](const char*, const auto& f) {
    fields.push_back({&f, &sens_type_tag<std::decay_t<decltype(f)>>});
  });
  std::size_t i = 0;
  Dst::visit_fields(dst, [&](const char*, auto& f) {
    using D = std::decay_t<decltype(f)>;
    using S = typename rebind_scalar<D, autodiff_scalar, double>::type;
    if (i >= fields.size() || fields[i].tag != &sens_type_tag<S>) {
      throw std::logic_error("[strata.sensitivity] visit_fields of the double and autodiff instantiations disagree");
    }
    convert_scalar(f, *static_cast<const S*>(fields[i].ptr));
    ++i;
  });
}

template <class Dst, class Src>
void convert_scalar(Dst& dst, const Src& src) {
  if constexpr (std::is_same_v<Dst, autodiff_scalar> && std::is_same_v<Src, double>) {
    dst = autodiff_scalar(src);
  } else if constexpr (sens_is_quantity<Dst>::value && !std::is_same_v<Dst, Src>) {
    dst = Dst::from_si(autodiff_scalar(src.si()));
  } else if constexpr (std::is_same_v<Dst, Src>) {
    dst = src;
  } else if constexpr (sens_has_fields<Dst>) {
    convert_struct(dst, src);
  } else {
    dst.resize(src.size());  // a vector of rebound elements
    for (std::size_t k = 0; k < src.size(); ++k) convert_scalar(dst[k], src[k]);
  }
}

/// A real parameter of a struct instantiated on `T`: its path and a way to set it.
template <class T>
struct sens_leaf {
  std::string path;
  double value = 0.0;
  std::function<void(const T&)> set;
};

template <class = void>
inline bool sens_selected(const std::string& path, const sensitivity_options& o) {
  if (o.only.empty()) return true;
  for (const auto& s : o.only) {
    if (s == path || (!s.empty() && s.back() == '.' && path.compare(0, s.size(), s) == 0)) return true;
  }
  return false;
}

/// Every real parameter of `p` (a struct on scalar `T`) in field order.
template <class T, class P>
void collect_leaves(P& p, const std::string& prefix, std::vector<sens_leaf<T>>& out) {
  P::visit_fields(p, [&](const char* key, auto& f) {
    using X = std::decay_t<decltype(f)>;
    const std::string path = prefix.empty() ? std::string(key) : prefix + "." + key;
    if constexpr (std::is_same_v<X, T>) {
      out.push_back({path, value_of(f), [&f](const T& v) { f = v; }});
    } else if constexpr (sens_is_quantity<X>::value) {
      if constexpr (std::is_same_v<typename X::value_type, T>) {
        out.push_back({path, value_of(f.si()), [&f](const T& v) { f = X::from_si(v); }});
      }
    } else if constexpr (sens_has_fields<X>) {
      collect_leaves<T>(f, path, out);
    }
  });
}

template <class R>
double sens_value(const R& y) {
  if constexpr (sens_is_quantity<R>::value) {
    return value_of(y.si());
  } else {
    return value_of(y);
  }
}

template <class R>
double sens_derivative(const R& y) {
  if constexpr (sens_is_quantity<R>::value) {
    return static_cast<double>(y.si().derivative(1));
  } else if constexpr (std::is_same_v<R, autodiff_scalar>) {
    return static_cast<double>(y.derivative(1));
  } else {
    static_assert(sizeof(R) == 0, "the output must be the autodiff scalar or a quantity of it");
    return 0.0;
  }
}

template <class = void>
inline void require_output(double y, const char* what) {
  require(std::isfinite(y) && y != 0.0, "strata.sensitivity", "output", y,
          what);
}

}  // namespace detail

/// `p` (a `P<double>`) as a `P<autodiff_scalar>`: every field copied, derivatives zero.
template <template <class> class P>
P<autodiff_scalar> to_autodiff(const P<double>& p) {
  P<autodiff_scalar> q{};
  detail::convert_struct(q, p);
  return q;
}

/// Elasticities of `y(params)` with respect to every real parameter of `p` by autodiff (file
/// comment). Throws `config_error` (field "output") when y is 0 or not finite at `p`.
template <template <class> class P, class F>
sensitivity_result elasticities(const P<double>& p, F&& y, const sensitivity_options& options = {}) {
  P<autodiff_scalar> q = to_autodiff(p);
  std::vector<detail::sens_leaf<autodiff_scalar>> leaves;
  detail::collect_leaves<autodiff_scalar>(q, std::string(), leaves);
  sensitivity_result r;
  r.output = detail::sens_value(y(static_cast<const P<autodiff_scalar>&>(q)));
  detail::require_output(r.output, "finite and non-zero (an elasticity divides by it)");
  for (auto& leaf : leaves) {
    if (!detail::sens_selected(leaf.path, options)) continue;
    leaf.set(boost::math::differentiation::make_fvar<double, 1>(leaf.value));
    const auto out = y(static_cast<const P<autodiff_scalar>&>(q));
    leaf.set(autodiff_scalar(leaf.value));
    elasticity e;
    e.parameter = leaf.path;
    e.value = leaf.value;
    e.derivative = detail::sens_derivative(out);
    e.elasticity = leaf.value == 0.0 ? 0.0 : leaf.value * e.derivative / r.output;
    r.rows.push_back(std::move(e));
  }
  return r;
}

/// How a finite-difference elasticity was obtained.
enum class difference_scheme {
  central,   ///< (y(p + δ) − y(p − δ)) / 2δ
  forward,   ///< (y(p + δ) − y(p)) / δ: p − δ rejected by the model's checks
  backward,  ///< (y(p) − y(p − δ)) / δ: p + δ rejected
  none,      ///< both rejected (a derived or pinned field): no estimate
};

/// A finite-difference elasticity and how it was obtained.
struct fd_elasticity {
  std::string parameter;
  double value = 0.0;
  double derivative = 0.0;
  double elasticity = 0.0;
  difference_scheme scheme = difference_scheme::none;
};

/// Elasticities of the `double` model `y(params)` by central differences of step
/// `options.relative_step`, one-sided where a perturbed value is rejected with `config_error`
/// (file comment); the same parameters, in the same order, as `elasticities`.
template <template <class> class P, class F>
std::vector<fd_elasticity> finite_difference_elasticities(const P<double>& p, F&& y,
                                                          const finite_difference_options& fd = {},
                                                          const sensitivity_options& options = {}) {
  detail::require(std::isfinite(fd.relative_step) && fd.relative_step > 0.0 && fd.relative_step < 0.1,
                  "strata.sensitivity", "relative_step", fd.relative_step, "in (0, 0.1)");
  P<double> q = p;
  std::vector<detail::sens_leaf<double>> all;
  detail::collect_leaves<double>(q, std::string(), all);
  // The parameters are those of the template: a non-template member (a double-only sub-model)
  // holds double quantities too, which the autodiff instantiation does not differentiate.
  P<autodiff_scalar> a = to_autodiff(p);
  std::vector<detail::sens_leaf<autodiff_scalar>> real;
  detail::collect_leaves<autodiff_scalar>(a, std::string(), real);
  std::vector<detail::sens_leaf<double>> leaves;
  std::size_t j = 0;
  for (auto& leaf : all) {
    if (j < real.size() && real[j].path == leaf.path) {
      leaves.push_back(std::move(leaf));
      ++j;
    }
  }
  const double y0 = detail::sens_value(y(static_cast<const P<double>&>(q)));
  detail::require_output(y0, "finite and non-zero (an elasticity divides by it)");
  std::vector<fd_elasticity> out;
  for (auto& leaf : leaves) {
    if (!detail::sens_selected(leaf.path, options)) continue;
    const double v = leaf.value;
    const double h = v == 0.0 ? fd.relative_step : fd.relative_step * std::abs(v);
    const auto at = [&](double x, double& yx) {
      leaf.set(x);
      bool ok = true;
      try {
        yx = detail::sens_value(y(static_cast<const P<double>&>(q)));
      } catch (const config_error&) {
        ok = false;
      }
      leaf.set(v);
      return ok;
    };
    double yp = 0.0, ym = 0.0;
    const bool up = at(v + h, yp), down = at(v - h, ym);
    fd_elasticity e;
    e.parameter = leaf.path;
    e.value = v;
    if (up && down) {
      e.derivative = (yp - ym) / (2.0 * h);
      e.scheme = difference_scheme::central;
    } else if (up) {
      e.derivative = (yp - y0) / h;
      e.scheme = difference_scheme::forward;
    } else if (down) {
      e.derivative = (y0 - ym) / h;
      e.scheme = difference_scheme::backward;
    }
    e.elasticity = v == 0.0 ? 0.0 : v * e.derivative / y0;
    out.push_back(std::move(e));
  }
  return out;
}

/// One parameter's autodiff elasticity beside its finite-difference estimate.
struct elasticity_check {
  std::string parameter;
  double autodiff = 0.0;
  double finite_difference = 0.0;
  difference_scheme scheme = difference_scheme::none;
  bool agrees = false;  ///< |autodiff − fd| ≤ rel_tol·|autodiff| + abs_tol (no estimate: autodiff 0)
};

/// Compares `elasticities` with `finite_difference_elasticities` of the same model and options
/// row by row. A disagreement names a path the autodiff scalar does not reach or a step of the
/// model at the point (file comment). One-sided estimates are O(h) accurate: their tolerance is
/// 100·rel_tol. A field with no estimate (both perturbations rejected) agrees when its autodiff
/// elasticity is 0.
template <class = void>
inline std::vector<elasticity_check> cross_check(const sensitivity_result& ad, const std::vector<fd_elasticity>& fd,
                                                 double rel_tol = 1e-5, double abs_tol = 1e-9) {
  detail::require(ad.rows.size() == fd.size(), "strata.sensitivity", "finite_difference", fd.size(),
                  "one row per autodiff row (the same model and options)");
  std::vector<elasticity_check> out;
  out.reserve(fd.size());
  for (std::size_t i = 0; i < fd.size(); ++i) {
    const auto& a = ad.rows[i];
    const auto& f = fd[i];
    detail::require(a.parameter == f.parameter, "strata.sensitivity", "finite_difference", f.parameter,
                    "the same parameters in the same order as the autodiff rows");
    elasticity_check c{a.parameter, a.elasticity, f.elasticity, f.scheme, false};
    if (f.scheme == difference_scheme::none) {
      c.agrees = a.elasticity == 0.0;
    } else {
      const double tol = f.scheme == difference_scheme::central ? rel_tol : rel_tol * 100.0;
      c.agrees = std::abs(a.elasticity - f.elasticity) <= tol * std::abs(a.elasticity) + abs_tol;
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace v0
}  // namespace strata
