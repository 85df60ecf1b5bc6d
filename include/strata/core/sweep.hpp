// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Design-space sweeps: a model run over a grid or a list of design points, in parallel,
/// deterministic, shardable across the jobs of a cluster scheduler.
///
/// Axes. An axis is a named list of values: `list_axis` (given values), `linear_axis` (count
/// values from first to last, both included, equally spaced), `log_axis` (count values equally
/// spaced in ln, first and last > 0) and `integer_axis` (first, first + step, … up to last).
/// Integers are held as doubles, exact up to 2⁵³.
///
/// Spaces. `cartesian(axes)` is every combination (the first axis outermost, the last varying
/// fastest, as nested loops); `zip(axes)` walks equal-length axes together (point k takes value
/// k of each); `product(a, b)` is the Cartesian product of two spaces, so a zipped pair can be
/// crossed with a grid. A space never stores its points: point i is decoded from i in mixed
/// radix, so a sweep of 10⁹ points costs its axes, not its points. The product of the axis sizes
/// is computed with checked arithmetic and may not exceed `sweep_max_points`; one run (one shard)
/// may evaluate at most `sweep_options::max_points` points.
///
/// Runs. `run_sweep(space, fn, options)` evaluates `fn(const design_point&)` on every point of
/// the shard and returns the results in input order; `stream_sweep(space, fn, sink, options)`
/// hands each (point, result) to `sink` in input order as blocks complete, holding one block at a
/// time (the CSV and JSON Lines writers of `sweep_io.hpp` are sinks). A block of points is split
/// into one contiguous chunk per thread (`threads`, default the machine's cores); each result goes
/// to its point's slot, so the output is the same whatever the thread count, as long as `fn` is a
/// pure function of the point. An exception thrown by `fn` stops the run and is rethrown — the
/// one of the lowest-indexed failing point, whatever the thread count.
///
/// Shards. `--shard i/n` (`parse_shard`, 1-based like a Slurm array index) selects shard i of n:
/// `contiguous` (default) gives shard i the i-th of n consecutive runs of points, sizes differing
/// by at most one, so the outputs of shards 1…n concatenated in order are the output of the
/// whole run; `strided` gives it the points whose index is i − 1 modulo n (balanced when the cost
/// grows along an axis; rows carry their global index, so sorting by it restores the order).
///
/// Progress. `sweep_options::progress` (empty by default: the library prints nothing) is called
/// after every block with the points done, the total and the elapsed time; `sweep_io.hpp` has a
/// line printer for stderr that stays silent for runs shorter than a second.
///
/// \code
/// auto space = strata::product(strata::cartesian({strata::integer_axis("layers", 128, 1024, 128)}),
///                              strata::cartesian({strata::integer_axis("tiers", 2, 16, 2)}));
/// auto spread = strata::run_sweep(space, [](const strata::design_point& x) {
///   strata::mono3d_params<> p{.layers = x.as_int("layers"), .tiers = x.as_int("tiers")};
///   return strata::evaluate(p).fast_slow_latency_ratio;
/// });
/// \endcode

#include <algorithm>   // std::min, std::max
#include <barrier>     // std::barrier, one block hand-off between the threads
#include <chrono>      // std::chrono::steady_clock, progress and block timing
#include <cmath>       // std::isfinite, std::log, std::exp, std::floor
#include <cstddef>     // std::size_t
#include <exception>   // std::exception_ptr, std::rethrow_exception
#include <functional>  // std::function, the progress callback
#include <limits>      // std::numeric_limits
#include <string>      // std::string
#include <string_view>  // std::string_view
#include <thread>      // std::thread
#include <type_traits>  // std::invoke_result_t
#include <utility>     // std::move
#include <vector>      // std::vector

#include "strata/core/error.hpp"

namespace strata {
inline namespace v0 {

/// Values one axis may hold (they are stored).
inline constexpr std::size_t sweep_max_axis_values = std::size_t{1} << 24;
/// Points a space may address (they are decoded, not stored): 2⁴⁰ ≈ 1.1·10¹².
inline constexpr std::size_t sweep_max_points = std::size_t{1} << 40;
/// Shards a sweep may be split into.
inline constexpr std::size_t sweep_max_shards = std::size_t{1} << 20;

/// A named list of values.
struct sweep_axis {
  std::string name;
  std::vector<double> values;
};

namespace detail {

template <class = void>
inline std::string axis_field(const std::string& name, const char* what) {
  return "axes." + (name.empty() ? std::string("?") : name) + "." + what;
}

template <class = void>
inline void check_axis_name(const std::string& name) {
  if (name.empty()) {
    throw config_error("axes.name", "[strata.sweep] axes.name must be a non-empty name, got \"\"");
  }
}

template <class = void>
inline void check_axis_count(const std::string& name, std::size_t count) {
  require(count >= 1 && count <= sweep_max_axis_values, "strata.sweep", axis_field(name, "count"),
          count, "in [1, 2^24]");
}

template <class = void>
inline void check_axis_bound(const std::string& name, const char* which, double v, bool positive) {
  require(std::isfinite(v) && (!positive || v > 0.0), "strata.sweep", axis_field(name, which), v,
          positive ? "finite and > 0 (log axis)" : "finite");
}

}  // namespace detail

/// An axis of the given values (finite, 1 to 2²⁴ of them).
// Not `inline`, as none of the functions of this file that do not depend on the caller's model (the
// axes, the space's and the design point's members defined outside their class, the shard logic):
// strata::compiled holds their instantiations (end of file), which an `inline` one would not spare
// a STRATA_COMPILED consumer (GCC instantiates inline functions for inlining).
template <class = void>
sweep_axis list_axis(std::string name, std::vector<double> values) {
  detail::check_axis_name(name);
  detail::check_axis_count(name, values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    detail::require(std::isfinite(values[i]), "strata.sweep",
                    detail::axis_field(name, "values") + "[" + std::to_string(i) + "]", values[i],
                    "finite");
  }
  return {std::move(name), std::move(values)};
}

/// `count` values equally spaced from `first` to `last`, both included (count 1: first, which
/// must then equal last).
template <class = void>
sweep_axis linear_axis(std::string name, double first, double last, std::size_t count) {
  detail::check_axis_name(name);
  detail::check_axis_bound(name, "first", first, false);
  detail::check_axis_bound(name, "last", last, false);
  detail::check_axis_count(name, count);
  detail::require(count > 1 || first == last, "strata.sweep", detail::axis_field(name, "count"), count,
                  ">= 2 when first != last");
  detail::require(std::isfinite(last - first), "strata.sweep", detail::axis_field(name, "last"), last,
                  "within the double range of first (last - first finite)");
  std::vector<double> v(count);
  for (std::size_t i = 0; i < count; ++i) {
    const double t = count == 1 ? 0.0 : double(i) / double(count - 1);
    v[i] = first + (last - first) * t;
  }
  v.back() = last;  // exact end point
  return {std::move(name), std::move(v)};
}

/// `count` values equally spaced in ln from `first` to `last` (both > 0), both included.
template <class = void>
sweep_axis log_axis(std::string name, double first, double last, std::size_t count) {
  detail::check_axis_name(name);
  detail::check_axis_bound(name, "first", first, true);
  detail::check_axis_bound(name, "last", last, true);
  detail::check_axis_count(name, count);
  detail::require(count > 1 || first == last, "strata.sweep", detail::axis_field(name, "count"), count,
                  ">= 2 when first != last");
  const double a = std::log(first), b = std::log(last);
  std::vector<double> v(count);
  for (std::size_t i = 0; i < count; ++i) {
    const double t = count == 1 ? 0.0 : double(i) / double(count - 1);
    v[i] = std::exp(a + (b - a) * t);
  }
  v.front() = first;  // exact end points
  v.back() = last;
  return {std::move(name), std::move(v)};
}

/// first, first + step, … while not past `last` (step ≠ 0, towards last; |values| ≤ 2⁵³).
template <class = void>
sweep_axis integer_axis(std::string name, long long first, long long last, long long step = 1) {
  detail::check_axis_name(name);
  constexpr long long exact = 1LL << 53;
  detail::require(first >= -exact && first <= exact, "strata.sweep", detail::axis_field(name, "first"),
                  first, "in [-2^53, 2^53]");
  detail::require(last >= -exact && last <= exact, "strata.sweep", detail::axis_field(name, "last"),
                  last, "in [-2^53, 2^53]");
  detail::require(step != 0 && (last - first) / step >= 0 && step >= -exact && step <= exact,
                  "strata.sweep", detail::axis_field(name, "step"), step,
                  "non-zero, in [-2^53, 2^53], pointing from first to last");
  const auto n = static_cast<unsigned long long>((last - first) / step) + 1ULL;
  detail::check_axis_count(name, n > sweep_max_axis_values ? sweep_max_axis_values + 1 : std::size_t(n));
  std::vector<double> v(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = double(first + static_cast<long long>(i) * step);
  return {std::move(name), std::move(v)};
}

class sweep_space;
sweep_space cartesian(std::vector<sweep_axis> axes);
sweep_space zip(std::vector<sweep_axis> axes);
sweep_space product(const sweep_space& a, const sweep_space& b);

/// A set of design points, decoded on demand (file comment).
class sweep_space {
 public:
  /// The empty product: one point without coordinates.
  sweep_space() = default;

  /// Points in the space.
  template <class = void>
  [[nodiscard]] std::size_t size() const { return size_; }
  /// Axes (coordinates per point).
  template <class = void>
  [[nodiscard]] std::size_t dimensions() const { return axes_.size(); }
  /// The axes, in coordinate order.
  template <class = void>
  [[nodiscard]] const std::vector<sweep_axis>& axes() const { return axes_; }
  /// Coordinate index of axis `name`; `config_error` (field "axis") if there is none.
  template <class = void>
  [[nodiscard]] std::size_t index_of(std::string_view name) const;
  /// Coordinates of point `i` (< size()) into `out` (resized to dimensions()).
  template <class = void>
  void point(std::size_t i, std::vector<double>& out) const;
  /// Coordinates of point `i`.
  template <class = void>
  [[nodiscard]] std::vector<double> point(std::size_t i) const;

  friend sweep_space cartesian(std::vector<sweep_axis> axes);
  friend sweep_space zip(std::vector<sweep_axis> axes);
  friend sweep_space product(const sweep_space& a, const sweep_space& b);

 private:
  struct group {
    std::size_t first_axis = 0;  ///< its axes are [first_axis, first_axis + axes)
    std::size_t axes = 0;
    std::size_t length = 1;      ///< values per axis
  };
  template <class = void>
  void add_group(std::vector<sweep_axis> axes);
  template <class = void>
  void multiply(std::size_t n);
  std::vector<sweep_axis> axes_;
  std::vector<group> groups_;
  std::size_t size_ = 1;
};

template <class>
std::size_t sweep_space::index_of(std::string_view name) const {
  for (std::size_t a = 0; a < axes_.size(); ++a) {
    if (axes_[a].name == name) return a;
  }
  throw config_error("axis", "[strata.sweep] axis must name an axis of the space, got '" + std::string(name) + "'");
}

template <class>
void sweep_space::point(std::size_t i, std::vector<double>& out) const {
  detail::require(i < size_, "strata.sweep", "index", i, "below the size of the space");
  out.resize(axes_.size());
  for (std::size_t g = groups_.size(); g-- > 0;) {
    const group& gr = groups_[g];
    const std::size_t k = i % gr.length;
    i /= gr.length;
    for (std::size_t a = gr.first_axis; a < gr.first_axis + gr.axes; ++a) out[a] = axes_[a].values[k];
  }
}

template <class>
std::vector<double> sweep_space::point(std::size_t i) const {
  std::vector<double> out;
  point(i, out);
  return out;
}

template <class>
void sweep_space::add_group(std::vector<sweep_axis> axes) {
  for (const auto& a : axes) {
    for (const auto& b : axes_) {
      detail::require(a.name != b.name, "strata.sweep", "axes." + a.name, a.name,
                      "a name not used by another axis of the space");
    }
    detail::check_axis_name(a.name);
    detail::check_axis_count(a.name, a.values.size());
  }
  group g{axes_.size(), axes.size(), axes.front().values.size()};
  for (std::size_t i = 0; i < axes.size(); ++i) {
    for (std::size_t j = i + 1; j < axes.size(); ++j) {
      detail::require(axes[i].name != axes[j].name, "strata.sweep", "axes." + axes[j].name, axes[j].name,
                      "a name not used by another axis of the space");
    }
  }
  multiply(g.length);
  for (auto& a : axes) axes_.push_back(std::move(a));
  groups_.push_back(g);
}

template <class>
void sweep_space::multiply(std::size_t n) {
  detail::require(n > 0 && size_ <= sweep_max_points / n, "strata.sweep", "axes", size_,
                  "a space of at most 2^40 points (the product of the axis sizes would exceed it)");
  size_ *= n;
}

/// Every combination of the axes' values, the first axis outermost (at least one axis).
inline sweep_space cartesian(std::vector<sweep_axis> axes) {
  detail::require(!axes.empty(), "strata.sweep", "axes", axes.size(), "at least one axis");
  sweep_space s;
  for (auto& a : axes) {
    std::vector<sweep_axis> one;
    one.push_back(std::move(a));
    s.add_group(std::move(one));
  }
  return s;
}

/// The axes walked together: point k takes value k of each (equal lengths, at least one axis).
inline sweep_space zip(std::vector<sweep_axis> axes) {
  detail::require(!axes.empty(), "strata.sweep", "axes", axes.size(), "at least one axis");
  for (const auto& a : axes) {
    detail::require(a.values.size() == axes.front().values.size(), "strata.sweep",
                    detail::axis_field(a.name, "count"), a.values.size(),
                    ("the length of the first zipped axis (" + std::to_string(axes.front().values.size()) + ")").c_str());
  }
  sweep_space s;
  s.add_group(std::move(axes));
  return s;
}

/// Cartesian product of two spaces (`a`'s coordinates first and outermost).
inline sweep_space product(const sweep_space& a, const sweep_space& b) {
  sweep_space s = a;
  for (const auto& g : b.groups_) {
    s.add_group(std::vector<sweep_axis>(b.axes_.begin() + static_cast<std::ptrdiff_t>(g.first_axis),
                                        b.axes_.begin() + static_cast<std::ptrdiff_t>(g.first_axis + g.axes)));
  }
  return s;
}

/// One point as a model sees it: its global index and its coordinates.
class design_point {
 public:
  template <class = void>
  design_point(const sweep_space& s, std::size_t index);
  /// Index of the point in the whole space (not in the shard).
  template <class = void>
  [[nodiscard]] std::size_t index() const { return index_; }
  /// The space it belongs to.
  template <class = void>
  [[nodiscard]] const sweep_space& space() const { return *space_; }
  /// Coordinates in axis order.
  template <class = void>
  [[nodiscard]] const std::vector<double>& values() const { return values_; }
  /// Coordinate `axis` (an index from `sweep_space::index_of`, the fast way in a hot loop).
  [[nodiscard]] double operator[](std::size_t axis) const { return values_.at(axis); }
  /// Coordinate of the axis named `name`.
  [[nodiscard]] double operator[](std::string_view name) const { return values_[space_->index_of(name)]; }
  /// Coordinate of `name` as an int; `config_error` naming the axis unless it is an integer in
  /// the int range.
  template <class = void>
  [[nodiscard]] int as_int(std::string_view name) const;
  /// Moves to point `index` of the same space.
  template <class = void>
  void set(std::size_t index);

 private:
  const sweep_space* space_;
  std::size_t index_ = 0;
  std::vector<double> values_;
};

template <class>
design_point::design_point(const sweep_space& s, std::size_t index) : space_(&s) {
  set(index);
}

template <class>
int design_point::as_int(std::string_view name) const {
  const double v = (*this)[name];
  detail::require(v == std::floor(v) && v >= double(std::numeric_limits<int>::min()) &&
                      v <= double(std::numeric_limits<int>::max()),
                  "strata.sweep", "axes." + std::string(name), v, "an integer in the int range");
  return static_cast<int>(v);
}

template <class>
void design_point::set(std::size_t index) {
  index_ = index;
  space_->point(index, values_);
}

/// How a shard picks its points (file comment).
enum class shard_layout {
  contiguous,  ///< shard i of n: the i-th of n consecutive runs (concatenation = whole run)
  strided,     ///< shard i of n: the points with index ≡ i − 1 (mod n)
};

/// Shard `index` of `count` (1-based, as `--shard 2/4`).
struct sweep_shard {
  std::size_t index = 1;
  std::size_t count = 1;
  shard_layout layout = shard_layout::contiguous;
  friend bool operator==(const sweep_shard&, const sweep_shard&) = default;
};

/// Checks a shard: count in [1, 2²⁰], index in [1, count]; `config_error` naming
/// "shard.count" or "shard.index".
template <class = void>
void validate(const sweep_shard& s) {
  detail::require(s.count >= 1 && s.count <= sweep_max_shards, "strata.sweep", "shard.count", s.count,
                  "in [1, 2^20]");
  detail::require(s.index >= 1 && s.index <= s.count, "strata.sweep", "shard.index", s.index,
                  ("in [1, shard.count = " + std::to_string(s.count) + "]").c_str());
}

/// Parses "i/n" (decimal, 1 ≤ i ≤ n ≤ 2²⁰) into a contiguous shard; `config_error` (field
/// "shard") on anything else.
template <class = void>
sweep_shard parse_shard(std::string_view text, shard_layout layout = shard_layout::contiguous) {
  const auto bad = [&]() {
    return config_error("shard", "[strata.sweep] shard must be i/n with 1 <= i <= n <= 1048576, got '" +
                                     std::string(text) + "'");
  };
  const auto slash = text.find('/');
  if (slash == std::string_view::npos) throw bad();
  const auto number = [&](std::string_view d) {
    if (d.empty() || d.size() > 7) throw bad();
    std::size_t v = 0;
    for (char c : d) {
      if (c < '0' || c > '9') throw bad();
      v = v * 10 + static_cast<std::size_t>(c - '0');
    }
    return v;
  };
  sweep_shard s{number(text.substr(0, slash)), number(text.substr(slash + 1)), layout};
  if (s.count < 1 || s.count > sweep_max_shards || s.index < 1 || s.index > s.count) throw bad();
  return s;
}

/// The points of a shard of a space of `total` points: indices first + k·stride, k < count.
struct shard_points {
  std::size_t first = 0;
  std::size_t count = 0;
  std::size_t stride = 1;
  /// Global index of the k-th point of the shard.
  template <class = void>
  [[nodiscard]] std::size_t at(std::size_t k) const { return first + k * stride; }
};

/// The points of shard `s` of a space of `total` points (file comment).
template <class = void>
shard_points points_of(const sweep_shard& s, std::size_t total) {
  validate(s);
  const std::size_t i = s.index - 1;
  if (s.layout == shard_layout::strided) {
    return {i, total > i ? (total - i + s.count - 1) / s.count : 0, s.count};
  }
  const std::size_t q = total / s.count, r = total % s.count;
  return {i * q + std::min(i, r), q + (i < r ? 1 : 0), 1};
}

/// What a progress callback is told after each block.
struct sweep_progress {
  std::size_t done = 0;    ///< points of this run evaluated so far
  std::size_t total = 0;   ///< points of this run (this shard)
  double elapsed_s = 0.0;  ///< since the run started
};

/// How a sweep runs.
struct sweep_options {
  /// Threads; 0: `std::thread::hardware_concurrency()` (at most 1024).
  unsigned threads = 0;
  /// The shard to run (default: the whole space).
  sweep_shard shard{};
  /// Points one run (one shard) may evaluate, at most `sweep_max_points`.
  std::size_t max_points = 100'000'000;
  /// Points per block (the unit handed to the sink in order); 0: grow from 16 while a block takes
  /// under 20 ms, up to 65 536.
  std::size_t block = 0;
  /// Called after every block; empty (the default): nothing is reported.
  std::function<void(const sweep_progress&)> progress{};
};

namespace detail {

template <class = void>
unsigned sweep_threads(const sweep_options& o) {
  require(o.threads <= 1024, "strata.sweep", "threads", o.threads, "in [0, 1024] (0: the machine's cores)");
  unsigned t = o.threads;
  if (t == 0) t = std::max(1U, std::thread::hardware_concurrency());
  return std::min(t, 1024U);
}

/// The shard's points, checked against the run's bounds.
template <class = void>
shard_points sweep_plan(const sweep_space& space, const sweep_options& o) {
  require(o.max_points >= 1 && o.max_points <= sweep_max_points, "strata.sweep", "max_points", o.max_points,
          "in [1, 2^40]");
  require(o.block <= (std::size_t{1} << 24), "strata.sweep", "block", o.block, "in [0, 2^24] (0: automatic)");
  const shard_points pts = points_of(o.shard, space.size());
  require(pts.count <= o.max_points, "strata.sweep", "max_points", o.max_points,
          ("at least the points of the run (" + std::to_string(pts.count) + ")").c_str());
  return pts;
}

}  // namespace detail

/// Evaluates `fn(const design_point&)` on every point of the shard of `space` and calls
/// `sink(const design_point&, const R&)` for each in input order, one block at a time (file
/// comment). Returns the points evaluated. `fn` must be safe to call from several threads at
/// once (a pure function of the point); `sink` and `progress` are called from the calling thread.
template <class F, class Sink>
std::size_t stream_sweep(const sweep_space& space, F&& fn, Sink&& sink, const sweep_options& options = {}) {
  using result_t = std::decay_t<std::invoke_result_t<F&, const design_point&>>;
  static_assert(std::is_default_constructible_v<result_t> && std::is_move_assignable_v<result_t>,
                "a sweep's result type must be default-constructible and move-assignable");
  const shard_points pts = detail::sweep_plan(space, options);
  const unsigned nthreads = static_cast<unsigned>(
      std::min<std::size_t>(detail::sweep_threads(options), std::max<std::size_t>(1, pts.count)));
  const auto start = std::chrono::steady_clock::now();
  const auto seconds_since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };

  // The current block: shard positions [k0, k0 + n), results by position.
  std::vector<result_t> results;
  std::size_t k0 = 0, n = 0;
  std::vector<std::exception_ptr> failure(nthreads);
  const auto chunk = [&](unsigned t) {
    failure[t] = nullptr;
    const std::size_t b = n * t / nthreads, e = n * (t + 1) / nthreads;
    if (b == e) return;
    design_point x(space, pts.at(k0 + b));
    for (std::size_t k = b; k < e; ++k) {
      try {
        if (k != b) x.set(pts.at(k0 + k));
        results[k] = fn(static_cast<const design_point&>(x));
      } catch (...) {
        failure[t] = std::current_exception();
        return;
      }
    }
  };

  // Worker threads 1 … nthreads − 1 wait at the barrier for a block, compute their chunk and
  // meet again; the calling thread is worker 0 and hands the block to the sink in between.
  bool stop = false;
  std::barrier sync(static_cast<std::ptrdiff_t>(nthreads));
  std::vector<std::thread> workers;
  const auto finish = [&]() {
    if (workers.empty()) return;
    stop = true;
    sync.arrive_and_wait();
    for (auto& w : workers) w.join();
    workers.clear();
  };
  struct guard_t {
    const decltype(finish)& f;
    ~guard_t() { f(); }
  } guard{finish};
  for (unsigned t = 1; t < nthreads; ++t) {
    workers.emplace_back([&, t]() {
      for (;;) {
        sync.arrive_and_wait();
        if (stop) return;
        chunk(t);
        sync.arrive_and_wait();
      }
    });
  }

  std::size_t block = options.block != 0 ? options.block : 16;
  design_point out(space, pts.count > 0 ? pts.at(0) : 0);
  while (k0 < pts.count) {
    n = std::min(block, pts.count - k0);
    if (results.size() < n) results.resize(n);
    const auto t0 = std::chrono::steady_clock::now();
    if (nthreads > 1) sync.arrive_and_wait();
    chunk(0);
    if (nthreads > 1) sync.arrive_and_wait();
    for (unsigned t = 0; t < nthreads; ++t) {  // the lowest chunk holds the lowest failing point
      if (failure[t]) std::rethrow_exception(failure[t]);
    }
    for (std::size_t k = 0; k < n; ++k) {
      out.set(pts.at(k0 + k));
      sink(static_cast<const design_point&>(out), static_cast<const result_t&>(results[k]));
    }
    k0 += n;
    if (options.progress) options.progress(sweep_progress{k0, pts.count, seconds_since(start)});
    if (options.block == 0 && block < 65536 && seconds_since(t0) < 0.02) block *= 2;
  }
  return pts.count;
}

/// Evaluates `fn(const design_point&)` on every point of the shard of `space` in parallel and
/// returns the results in input order (the same vector whatever `options.threads`).
template <class F>
auto run_sweep(const sweep_space& space, F&& fn, const sweep_options& options = {}) {
  using result_t = std::decay_t<std::invoke_result_t<F&, const design_point&>>;
  std::vector<result_t> out;
  out.reserve(detail::sweep_plan(space, options).count);
  stream_sweep(space, fn, [&](const design_point&, const result_t& r) { out.push_back(r); }, options);
  return out;
}

}  // namespace v0
}  // namespace strata

// strata::compiled (STRATA_BUILD_COMPILED, src/compiled.cpp) holds the instantiations below, the
// part of a sweep that does not depend on the caller's model; STRATA_COMPILED=1, which that target
// puts on its users, keeps their translation units from instantiating them again (`stream_sweep`
// and `run_sweep` are instantiated with the caller's function, where it is called). Without it
// this header is unchanged (header-only).
#if defined(STRATA_COMPILED) && STRATA_COMPILED
namespace strata {
inline namespace v0 {
extern template sweep_axis list_axis<void>(std::string, std::vector<double>);
extern template sweep_axis linear_axis<void>(std::string, double, double, std::size_t);
extern template sweep_axis log_axis<void>(std::string, double, double, std::size_t);
extern template sweep_axis integer_axis<void>(std::string, long long, long long, long long);
extern template std::size_t sweep_space::index_of<void>(std::string_view) const;
extern template void sweep_space::point<void>(std::size_t, std::vector<double>&) const;
extern template std::vector<double> sweep_space::point<void>(std::size_t) const;
extern template void sweep_space::add_group<void>(std::vector<sweep_axis>);
extern template void sweep_space::multiply<void>(std::size_t);
extern template design_point::design_point(const sweep_space&, std::size_t);
extern template int design_point::as_int<void>(std::string_view) const;
extern template void design_point::set<void>(std::size_t);
extern template void validate<void>(const sweep_shard&);
extern template sweep_shard parse_shard<void>(std::string_view, shard_layout);
extern template shard_points points_of<void>(const sweep_shard&, std::size_t);
extern template unsigned detail::sweep_threads<void>(const sweep_options&);
extern template shard_points detail::sweep_plan<void>(const sweep_space&, const sweep_options&);
}  // namespace v0
}  // namespace strata
#endif
