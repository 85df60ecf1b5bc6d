// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Streaming writers for sweeps (`sweep.hpp`): CSV and JSON Lines sinks for `stream_sweep`, and a
/// progress line for stderr. The stream-using half of the sweep engine, kept apart so that the
/// engine and the models include no stream header.
///
/// Columns. A row is the point's global index (`table_options::index`), its coordinates (one
/// column per axis, named after it) and the result: a number (column `value`), or a struct that
/// lists its fields in `visit_fields`, flattened with dotted names (`logic.p_logic`). Vectors and
/// arrays flatten element by element with the index as the name (`expert_tier_share.0`,
/// `ops.3.time`), an optional to its value's columns or none; a CSV's rows must all have the
/// first row's columns (a vector whose length changes from point to point is refused, naming
/// the point: write JSON Lines, whose objects may differ). Numbers are
/// written in the shortest form that reads back to the same double; quantities in SI base units
/// (s, m, m², W, J, B/s, …); booleans as 1/0 (CSV) or true/false (JSON); enums by name; strings
/// quoted where CSV needs it. A non-finite number is `nan`/`inf` in CSV and `null` in JSON. JSON
/// strings are valid UTF-8: a byte that is not part of a well-formed character becomes U+FFFD.
///
/// Shards. The CSV header is written by shard 1 only (`header_policy::first_shard`, the
/// default), so `cat` of the shards' files in order (contiguous layout) is byte for byte the file
/// of the whole run; JSON Lines has no header and concatenates the same way.
///
/// \code
/// std::ofstream f("spread.csv");
/// strata::csv_writer csv(f, space, options.shard);
/// options.progress = strata::stderr_progress();   // programs show progress; the library does not
/// strata::stream_sweep(space, model, csv, options);
/// \endcode

#include <array>        // std::array, number buffers
#include <charconv>     // std::to_chars, shortest round-trip numbers
#include <chrono>       // std::chrono::steady_clock (progress throttling)
#include <cmath>        // std::isfinite, std::isnan, std::round
#include <cstddef>      // std::size_t
#include <functional>   // std::function
#include <optional>     // std::optional results
#include <iostream>     // std::cerr, the default progress stream
#include <ostream>      // std::ostream
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <type_traits>  // std::is_arithmetic_v, std::is_enum_v
#include <utility>      // std::move

#include "strata/core/sweep.hpp"

namespace strata {
inline namespace v0 {

/// When a CSV writer writes its header row.
enum class header_policy {
  first_shard,  ///< only in shard 1 (the shards' files concatenate to the whole run's)
  always,
  never,
};

/// Columns and header of a sweep table.
struct table_options {
  bool index = true;  ///< a first column `index`: the point's global index in the space
  header_policy header = header_policy::first_shard;
};

namespace detail {

template <class X>
concept sweep_has_fields = requires(X& x) { X::visit_fields(x, [](const char*, auto&) {}); };
template <class X>
concept sweep_quantity = requires(const X& x) {
  typename X::dimension;
  { x.si() };
};
template <class X>
concept sweep_named_enum = std::is_enum_v<X> && requires(X e) { enum_names(e); };
template <class X>
concept sweep_sequence = requires(const X& x) {
  x.size();
  x.begin();
  x.end();
  typename X::value_type;
} && !std::is_same_v<X, std::string>;
template <class X>
struct sweep_is_optional : std::false_type {};
template <class X>
struct sweep_is_optional<std::optional<X>> : std::true_type {};
template <class Out>
concept sweep_notes_dynamic = requires(Out& o) { o.dynamic(); };

/// Shortest round-trip text of a double (non-finite: "nan", "inf", "-inf").
// Not `inline`, as none of the functions of this file that do not depend on the result type (the
// number and string writers, the writers' constructors, the progress line): strata::compiled holds
// their instantiations (end of file), which an `inline` one would not spare a STRATA_COMPILED
// consumer (GCC instantiates inline functions for inlining).
template <class = void>
std::string_view number_text(double v, std::array<char, 32>& buf) {
  if (std::isnan(v)) return "nan";
  if (!std::isfinite(v)) return v > 0 ? "inf" : "-inf";
  const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), v);
  return {buf.data(), static_cast<std::size_t>(r.ptr - buf.data())};
}
template <class = void>
std::string_view integer_text(long long v, std::array<char, 32>& buf) {
  const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), v);
  return {buf.data(), static_cast<std::size_t>(r.ptr - buf.data())};
}

template <class E>
const char* enum_text(E e) {
  for (const auto& [v, name] : enum_names(e)) {
    if (v == e) return name;
  }
  return "?";
}

/// Calls out.number(name, double), out.integer(name, long long), out.boolean(name, bool) or
/// out.text(name, string_view) for every column of a result (file comment).
template <class X, class Out>
void flatten_result(const std::string& name, const X& x, Out& out) {
  if constexpr (std::is_same_v<X, bool>) {
    out.boolean(name, x);
  } else if constexpr (std::is_integral_v<X>) {
    out.integer(name, static_cast<long long>(x));
  } else if constexpr (std::is_arithmetic_v<X>) {
    out.number(name, static_cast<double>(x));
  } else if constexpr (std::is_same_v<X, std::string>) {
    out.text(name, x);
  } else if constexpr (sweep_named_enum<X>) {
    out.text(name, enum_text(x));
  } else if constexpr (sweep_quantity<X>) {
    out.number(name, static_cast<double>(x.si()));
  } else if constexpr (sweep_has_fields<X>) {
    X::visit_fields(x, [&](const char* key, const auto& field) {
      flatten_result(name.empty() ? std::string(key) : name + "." + key, field, out);
    });
  } else if constexpr (sweep_is_optional<X>::value) {
    // Present: its columns; absent: none (a CSV's rows then differ in columns and are refused).
    if constexpr (sweep_notes_dynamic<Out>) out.dynamic();
    if (x) flatten_result(name, *x, out);
  } else if constexpr (sweep_sequence<X>) {
    // A vector (or array) element by element: `name.0`, `name.1`, … (a nested one `name.0.1`).
    if constexpr (sweep_notes_dynamic<Out>) out.dynamic();
    std::size_t i = 0;
    for (const auto& e : x) {
      std::array<char, 32> buf{};
      const auto k = integer_text(static_cast<long long>(i++), buf);
      std::string n = name;
      if (!n.empty()) n += '.';
      n += k;
      flatten_result(n, e, out);
    }
  } else {
    static_assert(sizeof(X) == 0,
                  "sweep results are numbers, booleans, strings, named enums, quantities, vectors, "
                  "optionals or structs with visit_fields of those");
  }
}

/// Top-level result: a bare value is one column named "value".
template <class R, class Out>
void flatten_row(const R& r, Out& out) {
  if constexpr (sweep_has_fields<R>) {
    flatten_result(std::string(), r, out);
  } else {
    flatten_result(std::string("value"), r, out);
  }
}

template <class = void>
void write_csv_text(std::ostream& os, std::string_view s) {
  if (s.find_first_of(",\"\n\r") == std::string_view::npos) {
    os << s;
    return;
  }
  os << '"';
  for (char c : s) {
    if (c == '"') os << '"';
    os << c;
  }
  os << '"';
}

/// Length of the well-formed UTF-8 character at `s[i]` (1-4), or 0 if the bytes there are not one
/// (a stray continuation byte, a truncated sequence, an overlong form, a surrogate, or a code
/// point past U+10FFFF; the ranges of Unicode Table 3-7).
template <class = void>
std::size_t utf8_char_length(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0U; };
  const unsigned c = b(0);
  const auto cont = [&](std::size_t k, unsigned lo = 0x80U, unsigned hi = 0xBFU) { return b(k) >= lo && b(k) <= hi; };
  if (c < 0x80U) return 1;
  if (c >= 0xC2U && c <= 0xDFU) return cont(1) ? 2 : 0;
  if (c == 0xE0U) return cont(1, 0xA0U) && cont(2) ? 3 : 0;
  if (c == 0xEDU) return cont(1, 0x80U, 0x9FU) && cont(2) ? 3 : 0;
  if (c >= 0xE1U && c <= 0xEFU) return cont(1) && cont(2) ? 3 : 0;
  if (c == 0xF0U) return cont(1, 0x90U) && cont(2) && cont(3) ? 4 : 0;
  if (c >= 0xF1U && c <= 0xF3U) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (c == 0xF4U) return cont(1, 0x80U, 0x8FU) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

/// `s` as a JSON string: quotes, backslashes and control characters escaped, and every byte that
/// does not begin a well-formed UTF-8 character replaced by U+FFFD (as `dump_json` does), so the
/// line is valid UTF-8 whatever the name.
template <class = void>
void write_json_string(std::ostream& os, std::string_view s) {
  os << '"';
  for (std::size_t i = 0; i < s.size();) {
    const char c = s[i];
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      os << '\\' << c;
    } else if (u < 0x20) {
      constexpr const char* hex = "0123456789abcdef";
      os << "\\u00" << hex[u >> 4] << hex[u & 15];
    } else if (u >= 0x80) {
      const std::size_t n = utf8_char_length(s, i);
      if (n == 0) {
        os << "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
        ++i;
        continue;
      }
      os << s.substr(i, n);
      i += n;
      continue;
    } else {
      os << c;
    }
    ++i;
  }
  os << '"';
}

template <class = void>
bool writes_header(header_policy h, const sweep_shard& s) {
  return h == header_policy::always || (h == header_policy::first_shard && s.index == 1);
}

}  // namespace detail

/// A `stream_sweep` sink writing CSV rows (file comment); the header comes with the first row.
class csv_writer {
 public:
  template <class = void>
  csv_writer(std::ostream& os, const sweep_space& space, const sweep_shard& shard = {}, table_options options = {});

  /// Writes the row of point `x` with result `r` (and the header before the first row).
  template <class R>
  void operator()(const design_point& x, const R& r) {
    std::ostream& os = *os_;
    if (header_) {
      header_ = false;
      bool first = true;
      const auto col = [&](std::string_view name) {
        if (!first) os << ',';
        first = false;
        detail::write_csv_text(os, name);
      };
      if (options_.index) col("index");
      for (const auto& a : space_->axes()) col(a.name);
      names<decltype(col)> out{col};
      detail::flatten_row(r, out);
      os << '\n';
      columns_ = out.count;
      dynamic_ = out.seen_dynamic;
      counted_ = true;
    } else if (!counted_) {
      // A later shard (no header): the first row fixes the columns as a header would.
      counter out;
      detail::flatten_row(r, out);
      columns_ = out.count;
      dynamic_ = out.seen_dynamic;
      counted_ = true;
    } else if (dynamic_) {
      // Vectors and optionals: every row must have the first row's columns (a CSV table is
      // rectangular); checked before anything of the row is written.
      counter out;
      detail::flatten_row(r, out);
      if (out.count != columns_) {
        throw config_error("result", "[strata.sweep] point " + std::to_string(x.index()) + " has " +
                                         std::to_string(out.count) + " result columns, the first row " +
                                         std::to_string(columns_) +
                                         " (a vector or optional of the result changed length): CSV needs the "
                                         "same columns in every row; write JSON Lines (jsonl_writer) instead");
      }
    }
    std::array<char, 32> buf{};
    bool first = true;
    const auto sep = [&]() {
      if (!first) os << ',';
      first = false;
    };
    if (options_.index) {
      sep();
      os << detail::integer_text(static_cast<long long>(x.index()), buf);
    }
    for (double v : x.values()) {
      sep();
      os << detail::number_text(v, buf);
    }
    values<decltype(sep)> out{os, buf, sep};
    detail::flatten_row(r, out);
    os << '\n';
  }

 private:
  template <class Col>
  struct names {
    const Col& col;
    std::size_t count = 0;
    bool seen_dynamic = false;
    void dynamic() { seen_dynamic = true; }
    void number(const std::string& n, double) {
      col(n);
      ++count;
    }
    void integer(const std::string& n, long long) {
      col(n);
      ++count;
    }
    void boolean(const std::string& n, bool) {
      col(n);
      ++count;
    }
    void text(const std::string& n, std::string_view) {
      col(n);
      ++count;
    }
  };
  struct counter {
    std::size_t count = 0;
    bool seen_dynamic = false;
    void dynamic() { seen_dynamic = true; }
    void number(const std::string&, double) { ++count; }
    void integer(const std::string&, long long) { ++count; }
    void boolean(const std::string&, bool) { ++count; }
    void text(const std::string&, std::string_view) { ++count; }
  };
  template <class Sep>
  struct values {
    std::ostream& os;
    std::array<char, 32>& buf;
    const Sep& sep;
    void number(const std::string&, double v) {
      sep();
      os << detail::number_text(v, buf);
    }
    void integer(const std::string&, long long v) {
      sep();
      os << detail::integer_text(v, buf);
    }
    void boolean(const std::string&, bool v) {
      sep();
      os << (v ? '1' : '0');
    }
    void text(const std::string&, std::string_view v) {
      sep();
      detail::write_csv_text(os, v);
    }
  };

  std::ostream* os_;
  const sweep_space* space_;
  table_options options_;
  bool header_;
  std::size_t columns_ = 0;  ///< the first row's result columns
  bool dynamic_ = false;     ///< the result holds vectors or optionals: rows are counted
  bool counted_ = false;
};

template <class>
csv_writer::csv_writer(std::ostream& os, const sweep_space& space, const sweep_shard& shard, table_options options)
    : os_(&os), space_(&space), options_(options), header_(detail::writes_header(options.header, shard)) {
  validate(shard);
}

/// A `stream_sweep` sink writing one JSON object per line: {"index":…, <axis>:…, <result>…}.
class jsonl_writer {
 public:
  explicit jsonl_writer(std::ostream& os, table_options options = {}) : os_(&os), options_(options) {}

  template <class R>
  void operator()(const design_point& x, const R& r) {
    std::ostream& os = *os_;
    std::array<char, 32> buf{};
    bool first = true;
    const auto key = [&](std::string_view k) {
      os << (first ? "{" : ",");
      first = false;
      detail::write_json_string(os, k);
      os << ':';
    };
    if (options_.index) {
      key("index");
      os << detail::integer_text(static_cast<long long>(x.index()), buf);
    }
    const auto& axes = x.space().axes();
    for (std::size_t a = 0; a < axes.size(); ++a) {
      key(axes[a].name);
      number(os, x.values()[a], buf);
    }
    fields<decltype(key)> out{os, buf, key};
    detail::flatten_row(r, out);
    os << (first ? "{}\n" : "}\n");
  }

 private:
  template <class = void>
  static void number(std::ostream& os, double v, std::array<char, 32>& buf) {
    if (std::isfinite(v)) {
      os << detail::number_text(v, buf);
    } else {
      os << "null";
    }
  }
  template <class Key>
  struct fields {
    std::ostream& os;
    std::array<char, 32>& buf;
    const Key& key;
    void number(const std::string& n, double v) {
      key(n);
      jsonl_writer::number(os, v, buf);
    }
    void integer(const std::string& n, long long v) {
      key(n);
      os << detail::integer_text(v, buf);
    }
    void boolean(const std::string& n, bool v) {
      key(n);
      os << (v ? "true" : "false");
    }
    void text(const std::string& n, std::string_view v) {
      key(n);
      detail::write_json_string(os, v);
    }
  };

  std::ostream* os_;
  table_options options_;
};

/// A progress line for `sweep_options::progress`: silent until the run has taken `quiet_s`
/// seconds, then one line at most every `every_s` seconds ("sweep: 4096 / 65536 points (6 %),
/// 1.2 s, about 18 s left") and a last line when the run ends.
class progress_printer {
 public:
  explicit progress_printer(std::ostream& os, std::string label = "sweep", double quiet_s = 1.0,
                            double every_s = 1.0)
      : os_(&os), label_(std::move(label)), quiet_s_(quiet_s), every_s_(every_s) {}

  void operator()(const sweep_progress& p) {
    const bool last = p.done >= p.total;
    if (p.elapsed_s < quiet_s_ && !(last && printed_)) return;
    if (!last && printed_ && p.elapsed_s - last_s_ < every_s_) return;
    printed_ = true;
    last_s_ = p.elapsed_s;
    std::array<char, 32> buf{};
    std::ostream& os = *os_;
    if (last) {
      os << label_ << ": " << p.done << " points in " << detail::number_text(round1(p.elapsed_s), buf) << " s\n";
    } else {
      const double share = p.total > 0 ? double(p.done) / double(p.total) : 1.0;
      os << label_ << ": " << p.done << " / " << p.total << " points ("
         << static_cast<int>(100.0 * share) << " %), " << detail::number_text(round1(p.elapsed_s), buf) << " s";
      if (share > 0.0) {
        os << ", about " << detail::number_text(round1(p.elapsed_s * (1.0 - share) / share), buf) << " s left";
      }
      os << '\n';
    }
    os.flush();
  }

 private:
  template <class = void>
  static double round1(double s) { return std::round(s * 10.0) / 10.0; }
  std::ostream* os_;
  std::string label_;
  double quiet_s_, every_s_;
  bool printed_ = false;
  double last_s_ = 0.0;
};

/// The progress callback programs use: a `progress_printer` on stderr.
template <class = void>
std::function<void(const sweep_progress&)> stderr_progress(std::string label = "sweep") {
  return progress_printer(std::cerr, std::move(label));
}

}  // namespace v0
}  // namespace strata

// strata::compiled (STRATA_BUILD_COMPILED, src/compiled.cpp) holds the instantiations below;
// STRATA_COMPILED=1, which that target puts on its users, keeps their translation units from
// instantiating them again (the writers' `operator()` and the flattening are instantiated with the
// caller's result type, where it is called). Without it this header is unchanged (header-only).
#if defined(STRATA_COMPILED) && STRATA_COMPILED
namespace strata {
inline namespace v0 {
extern template std::string_view detail::number_text<void>(double, std::array<char, 32>&);
extern template std::string_view detail::integer_text<void>(long long, std::array<char, 32>&);
extern template void detail::write_csv_text<void>(std::ostream&, std::string_view);
extern template std::size_t detail::utf8_char_length<void>(std::string_view, std::size_t);
extern template void detail::write_json_string<void>(std::ostream&, std::string_view);
extern template bool detail::writes_header<void>(header_policy, const sweep_shard&);
extern template csv_writer::csv_writer(std::ostream&, const sweep_space&, const sweep_shard&, table_options);
extern template std::function<void(const sweep_progress&)> stderr_progress<void>(std::string);
}  // namespace v0
}  // namespace strata
#endif
