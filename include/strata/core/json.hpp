// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// JSON glue (quantities with units, unknown keys rejected). The only core header that includes
/// nlohmann/json.hpp.
///
/// - A quantity is written with its unit, `"460 GB/s"`, `"1.25 pJ/B"`, `"35 nm"`, `"2.156 Gib/mm2"`;
///   reading accepts any unit of the right dimension (SI prefixes, binary prefixes `Ki Mi Gi Ti`,
///   exponents `mm2` or `mm^2`, `/` and `*`) and rejects bare numbers and wrong dimensions.
/// - A parameter struct that lists its fields once, in a static `visit_fields(self, visitor)`,
///   gets `to_json`/`from_json` here. Reading keeps defaults for missing keys, rejects unknown
///   keys, checks every type, and reports errors as `config_error` naming the JSON path.
/// - A `std::optional` field reads `null` (or a missing key) as unset and writes unset as `null`.
/// - An enum with an ADL-visible `enum_names(E)` (pairs of value and name) reads and writes as
///   its name; any other string is a `config_error` listing the names.
/// - `cost` serialises as its breakdown tree.
/// - Text from outside is parsed with `parse_json(text, source)`: nesting is bounded by
///   `strata::limits().json_depth`, and invalid JSON or a number too large for a double is a
///   `config_error` naming the source and the JSON path. Quantities and plain floating-point
///   fields must be 0 or of SI magnitude within `limits().quantity_min/max` (1e-24 to 1e24), so
///   no 1e300 or denormal input reaches a model. Error messages quote a bad value through
///   `json_excerpt`: at most ~80 bytes, never recursive, invalid UTF-8 replaced.
/// - Text out goes through `dump_json(j, indent)`: invalid UTF-8 in strings and keys is replaced
///   by U+FFFD, so every JSON strata writes is valid UTF-8 whatever names it was given;
///   `dump_json(stream, j, indent)` writes the same text to a stream without building it.

#include <array>        // std::array, unit exponents
#include <charconv>     // std::from_chars
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int64_t, std::uint64_t
#include <limits>       // std::numeric_limits
#include <optional>     // std::optional fields: null or absent is unset
#include <ostream>      // std::ostream, dump_json's streaming form
#include <cmath>        // std::pow, std::isfinite
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <system_error> // std::errc
#include <type_traits>  // std::is_integral_v, std::is_floating_point_v
#include <unordered_set> // std::unordered_set, an object's keys while parsing
#include <utility>      // std::in_range
#include <vector>       // std::vector

#include <nlohmann/json.hpp>

#include "strata/core/cost.hpp"
#include "strata/core/error.hpp"
#include "strata/core/limits.hpp"
#include "strata/core/tier.hpp"
#include "strata/core/units.hpp"

namespace strata {
inline namespace v0 {

using json = nlohmann::json;

/// JSON text of `j` for output, the one way strata writes JSON: `indent` spaces per level (-1: one
/// line, as `json::dump`), and invalid UTF-8 in any string or key replaced by U+FFFD, so a name
/// read from outside (a file name, a measurement id, a scenario name, a trace label) gives valid
/// UTF-8 out instead of nlohmann's `type_error.316`.
template <class = void>
inline std::string dump_json(const json& j, int indent = 2) {
  return j.dump(indent, ' ', false, json::error_handler_t::replace);
}

/// The same text as `dump_json(j, indent)`, written to `out` as it is produced: no string of the
/// whole document (a large output costs its tree, not its tree and its text).
template <class = void>
inline void dump_json(std::ostream& out, const json& j, int indent = 2) {
  nlohmann::detail::serializer<json> s(nlohmann::detail::output_adapter<char>(out), ' ',
                                       json::error_handler_t::replace);
  s.dump(j, indent >= 0, false, static_cast<unsigned int>(indent >= 0 ? indent : 0));
}

namespace detail {

/// A unit parsed at run time: SI factor and dimension exponents.
struct parsed_unit {
  double factor = 1.0;
  std::array<int, 6> exponents{};
};

template <class = void>
inline bool parse_unit_token(std::string_view tok, parsed_unit& out) {
  // Optional exponent: "mm2", "mm^2", "s-1", "s^-1".
  int expo = 1;
  {
    std::size_t end = tok.size();
    std::size_t k = end;
    while (k > 0 && tok[k - 1] >= '0' && tok[k - 1] <= '9') --k;
    if (k < end && k > 0) {
      std::size_t start = k;
      if (tok[start - 1] == '-') --start;
      if (start > 0 && tok[start - 1] == '^') --start;
      int e = 0;
      std::string_view digits = tok.substr(k);
      const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), e);
      if (r.ec != std::errc{} || e > 9) return false;  // mm2, s-1: a small exponent, never m99999
      if (k != start && tok[k - 1] == '-') e = -e;
      expo = e;
      tok = tok.substr(0, start);
    }
  }
  struct sym {
    std::string_view s;
    double f;
    std::array<int, 6> d;
  };
  // Longest symbols first, so "Bps" wins over "s" and "FLOPS" over "FLOP".
  static constexpr sym syms[] = {
      {"FLOPS", 1.0, {0, 0, -1, 0, 0, 1}}, {"FLOP", 1.0, {0, 0, 0, 0, 0, 1}},
      {"ohm", 1.0, {2, 1, -3, -2, 0, 0}},  {"Bps", 1.0, {0, 0, -1, 0, 1, 0}},
      {"bps", 0.125, {0, 0, -1, 0, 1, 0}}, {"\xCE\xA9", 1.0, {2, 1, -3, -2, 0, 0}},
      {"Hz", 1.0, {0, 0, -1, 0, 0, 0}},    {"op", 1.0, {0, 0, 0, 0, 0, 1}},
      {"s", 1.0, {0, 0, 1, 0, 0, 0}},      {"m", 1.0, {1, 0, 0, 0, 0, 0}},
      {"B", 1.0, {0, 0, 0, 0, 1, 0}},      {"b", 0.125, {0, 0, 0, 0, 1, 0}},
      {"J", 1.0, {2, 1, -2, 0, 0, 0}},     {"W", 1.0, {2, 1, -3, 0, 0, 0}},
      {"A", 1.0, {0, 0, 0, 1, 0, 0}},      {"V", 1.0, {2, 1, -3, -1, 0, 0}},
      {"F", 1.0, {-2, -1, 4, 2, 0, 0}},
  };
  struct pre {
    std::string_view p;
    double f;
  };
  static constexpr pre pres[] = {
      {"", 1.0},    {"a", 1e-18}, {"f", 1e-15}, {"p", 1e-12}, {"n", 1e-9},
      {"u", 1e-6},  {"\xC2\xB5", 1e-6},         {"m", 1e-3},  {"k", 1e3},
      {"K", 1e3},   {"M", 1e6},   {"G", 1e9},   {"T", 1e12},  {"P", 1e15},
      {"Ki", 1024.0}, {"Mi", 1048576.0}, {"Gi", 1073741824.0}, {"Ti", 1099511627776.0},
  };
  for (const auto& s : syms) {
    if (tok.size() < s.s.size() || tok.substr(tok.size() - s.s.size()) != s.s) continue;
    const std::string_view prefix = tok.substr(0, tok.size() - s.s.size());
    for (const auto& p : pres) {
      if (p.p != prefix) continue;
      out.factor *= std::pow(p.f * s.f, expo);
      for (int i = 0; i < 6; ++i) out.exponents[i] += s.d[i] * expo;
      return true;
    }
  }
  return false;
}

/// Parses a unit expression such as "GB/s", "pJ/B", "Gib/mm2", "fF/um"; false if unknown.
template <class = void>
inline bool parse_unit(std::string_view text, parsed_unit& out) {
  out = parsed_unit{};
  if (text.empty()) return true;  // dimensionless
  int sign = 1;
  std::size_t i = 0;
  for (;;) {  // i <= text.size() throughout: i = j + 1 with j < text.size()
    std::size_t j = text.find_first_of("/*", i);
    if (j == std::string_view::npos) j = text.size();
    std::string_view tok = text.substr(i, j - i);
    if (tok.empty()) return false;
    parsed_unit t;
    if (!parse_unit_token(tok, t)) return false;
    out.factor *= sign > 0 ? t.factor : 1.0 / t.factor;
    for (int k = 0; k < 6; ++k) out.exponents[k] += sign * t.exponents[k];
    if (j == text.size()) break;
    sign = text.at(j) == '/' ? -1 : 1;
    i = j + 1;
  }
  return true;
}

template <class = void>
inline std::string where(const std::string& path) { return path.empty() ? "<root>" : path; }

/// A JSON value quoted for an error message, without recursion and at most ~80 bytes: a scalar or
/// a small flat array/object as JSON text (invalid UTF-8 replaced by U+FFFD), any other container
/// as "an array of N elements" / "an object with N keys". Safe on values of any depth and size.
template <class = void>
inline std::string json_excerpt(const json& j) {
  constexpr std::size_t max_chars = 80;
  constexpr std::size_t max_flat = 16;
  bool flat = !j.is_structured() || j.size() <= max_flat;
  if (flat && j.is_structured()) {
    for (const auto& e : j) flat = flat && !e.is_structured();
  }
  if (!flat) {
    return j.is_array() ? "an array of " + std::to_string(j.size()) + " elements"
                        : "an object with " + std::to_string(j.size()) + " keys";
  }
  std::string s;
  if (j.is_string() && j.get_ref<const std::string&>().size() > max_chars) {
    s = dump_json(json(j.get_ref<const std::string&>().substr(0, max_chars)), -1);
    s.insert(s.size() - 1, "...");
    return s;
  }
  s = dump_json(j, -1);
  if (s.size() > max_chars) {
    s.resize(max_chars);
    s += "...";
  }
  return s;
}

/// Builds the JSON path of the value being parsed from nlohmann's parser events, so that a
/// number too large for a double (which nlohmann reports without its key) can be named.
class json_path_tracker {
 public:
  template <class = void>
  void object_start() { frames_.push_back({false, {}, 0, {}}); }
  template <class = void>
  void array_start() { frames_.push_back({true, {}, 0, {}}); }
  /// Enters key `k` of the current object; false if the object already has that key.
  template <class = void>
  bool key(const std::string& k) {
    if (frames_.empty()) return true;
    frames_.back().key = k;
    return frames_.back().keys.insert(k).second;
  }
  template <class = void>
  void end() {
    if (!frames_.empty()) frames_.pop_back();
    element_done();
  }
  template <class = void>
  void element_done() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
  }
  template <class = void>
  [[nodiscard]] std::string path() const {
    std::string p;
    for (const auto& f : frames_) {
      if (f.array) {
        p += '[';  // appended piecewise: GCC 12 warns falsely (-Wrestrict) on "[" + std::string&&
        p += std::to_string(f.index);
        p += ']';
      } else {
        if (!p.empty()) p += '.';
        p += f.key;
      }
    }
    return p;
  }

 private:
  struct frame {
    bool array;
    std::string key;
    std::size_t index;
    std::unordered_set<std::string> keys;  // an object's keys so far
  };
  std::vector<frame> frames_;
};

}  // namespace detail

/// Parses JSON text read from outside: nesting deeper than `strata::limits().json_depth` (64) is
/// a `config_error` naming the limit (nlohmann's parser itself is not recursive, but deep values
/// are expensive to quote, print and destroy); a key given twice in one object (RFC 8259 §4
/// leaves its meaning to the reader; nlohmann keeps the last silently), invalid JSON and a number
/// too large for a double are `config_error`s naming `source` and the JSON path, e.g. `[strata.json] machine.json:
/// tiers[0].banks: number out of range: ...`. `field()` is the JSON path.
template <class = void>
inline json parse_json(std::string_view text, const std::string& source = "<string>") {
  const int max_depth = limits().json_depth;
  detail::json_path_tracker at;
  const auto prefix = [&](const std::string& path) {
    return "[strata.json] " + source + ": " + (path.empty() ? std::string() : path + ": ");
  };
  json::parser_callback_t cb = [&](int depth, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        if (depth + 1 > max_depth) {
          const std::string path = at.path();
          throw config_error(path.empty() ? source : path,
                             prefix(path) + "JSON nested deeper than " + std::to_string(max_depth) +
                                 " levels (the limit strata::limits().json_depth)");
        }
        if (event == json::parse_event_t::object_start) at.object_start();
        else at.array_start();
        break;
      case json::parse_event_t::key:
        if (!at.key(parsed.is_string() ? parsed.get<std::string>() : std::string())) {
          const std::string path = at.path();
          throw config_error(path, prefix(path) + "key given twice in one object (which one is meant is ambiguous)");
        }
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        at.end();
        break;
      case json::parse_event_t::value:
        at.element_done();
        break;
    }
    return true;
  };
  try {
    return json::parse(text, cb);
  } catch (const json::parse_error& e) {
    const std::string path = at.path();
    throw config_error(path.empty() ? source : path, prefix(path) + "is not valid JSON: " + e.what());
  } catch (const json::out_of_range& e) {  // a number beyond the range of a double (406)
    const std::string path = at.path();
    throw config_error(path.empty() ? source : path,
                       prefix(path) + "number out of range (expected a finite double): " + e.what());
  } catch (const json::exception& e) {
    const std::string path = at.path();
    throw config_error(path.empty() ? source : path, prefix(path) + "cannot parse: " + e.what());
  }
}

namespace detail {

/// Parses "<number> <unit>" into an SI value of dimension `Dim`; throws naming `path`.
template <class Dim>
double parse_quantity(const json& j, const std::string& path, const char* expected_unit) {
  if (!j.is_string()) {
    throw config_error(path, "[strata.json] " + where(path) +
                                 " must be a string with a unit such as \"1 " + expected_unit +
                                 "\", got " + json_excerpt(j));
  }
  const std::string s = j.get<std::string>();
  std::string_view v(s);
  while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
  double x = 0.0;
  const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec != std::errc{} || !std::isfinite(x)) {
    throw config_error(path, "[strata.json] " + where(path) + " must start with a finite number, got " +
                                 json_excerpt(j));
  }
  std::string_view u(ptr, static_cast<std::size_t>(v.data() + v.size() - ptr));
  while (!u.empty() && u.front() == ' ') u.remove_prefix(1);
  while (!u.empty() && u.back() == ' ') u.remove_suffix(1);
  parsed_unit pu;
  if (!parse_unit(u, pu)) {
    throw config_error(path, "[strata.json] " + where(path) + " has an unknown unit " +
                                 json_excerpt(json(std::string(u))) + " (expected a unit like " + expected_unit + ")");
  }
  if (pu.exponents != Dim::exponents) {
    throw config_error(path, "[strata.json] " + where(path) + " has unit " + json_excerpt(json(std::string(u))) +
                                 " of the wrong dimension (expected a unit like " +
                                 expected_unit + ")");
  }
  const double si = x * pu.factor;
  const double mag = si < 0 ? -si : si;
  const input_limits& lim = limits();
  if (!std::isfinite(si) || (mag == 0.0 && x != 0.0) || (mag != 0.0 && (mag < lim.quantity_min || mag > lim.quantity_max))) {
    throw config_error(path, "[strata.json] " + where(path) + " is out of range, got \"" + json_excerpt(s).substr(1) +
                                 " (expected 0 or an SI magnitude in [" + to_text(lim.quantity_min) + ", " +
                                 to_text(lim.quantity_max) + "] " + expected_unit +
                                 ", strata::limits().quantity_min/max)");
  }
  return si;
}

template <class P>
concept has_fields = requires(P& p) { P::visit_fields(p, [](const char*, auto&) {}); };

template <class X>
struct is_quantity : std::false_type {};
template <class D, class T>
struct is_quantity<quantity<D, T>> : std::true_type {};
template <class X>
struct is_vector : std::false_type {};
template <class X, class A>
struct is_vector<std::vector<X, A>> : std::true_type {};
template <class X>
struct is_optional : std::false_type {};
template <class X>
struct is_optional<std::optional<X>> : std::true_type {};

/// The SI symbol a quantity of dimension D is written with.
template <class D>
constexpr const char* si_symbol() {
  if constexpr (std::is_same_v<D, dims::time>) return "s";
  else if constexpr (std::is_same_v<D, dims::length>) return "m";
  else if constexpr (std::is_same_v<D, dims::area>) return "m2";
  else if constexpr (std::is_same_v<D, dims::frequency>) return "Hz";
  else if constexpr (std::is_same_v<D, dims::data>) return "B";
  else if constexpr (std::is_same_v<D, dims::ops>) return "FLOP";
  else if constexpr (std::is_same_v<D, dims::bandwidth>) return "B/s";
  else if constexpr (std::is_same_v<D, dims::op_rate>) return "FLOP/s";
  else if constexpr (std::is_same_v<D, dims::energy>) return "J";
  else if constexpr (std::is_same_v<D, dims::power>) return "W";
  else if constexpr (std::is_same_v<D, dims::current>) return "A";
  else if constexpr (std::is_same_v<D, dims::voltage>) return "V";
  else if constexpr (std::is_same_v<D, dims::resistance>) return "ohm";
  else if constexpr (std::is_same_v<D, dims::capacitance>) return "F";
  else if constexpr (std::is_same_v<D, dims::energy_per_data>) return "J/B";
  else if constexpr (std::is_same_v<D, dims::energy_per_op>) return "J/FLOP";
  else if constexpr (std::is_same_v<D, dims::data_per_area>) return "B/m2";
  else if constexpr (std::is_same_v<D, dims::resistance_per_length>) return "ohm/m";
  else if constexpr (std::is_same_v<D, dims::capacitance_per_length>) return "F/m";
  else if constexpr (std::is_same_v<D, dims::current_per_area>) return "A/m2";
  else if constexpr (std::is_same_v<D, dims::power_per_area>) return "W/m2";
  else if constexpr (std::is_same_v<D, dims::velocity>) return "m/s";
  else static_assert(sizeof(D) == 0, "add the SI symbol of this dimension");
}

template <class X>
json write_value(const X& x);

template <class X>
void read_value(const json& j, X& out, const std::string& path);

/// Reads an object field by field through `visit_fields`; unknown keys are errors.
template <class P>
void read_object(const json& j, P& p, const std::string& path) {
  if (!j.is_object()) {
    throw config_error(path, "[strata.json] " + where(path) + " must be an object, got " + json_excerpt(j));
  }
  std::vector<std::string> known;
  P::visit_fields(p, [&](const char* key, auto& field) {
    known.emplace_back(key);
    const auto it = j.find(key);
    if (it != j.end()) read_value(*it, field, path.empty() ? std::string(key) : path + "." + key);
  });
  for (const auto& [k, v] : j.items()) {
    bool ok = false;
    for (const auto& n : known) ok = ok || n == k;
    if (!ok) {
      std::string list;
      for (const auto& n : known) {
        if (!list.empty()) list += ", ";
        list += n;
      }
      std::string at = path;
      if (!at.empty()) at += '.';
      at += k;
      std::string what = "[strata.json] unknown key ";
      what += at;
      what += " (known keys: ";
      what += list;
      what += ')';
      throw config_error(at, what);
    }
  }
}

template <class X>
void read_value(const json& j, X& out, const std::string& path) {
  if constexpr (is_optional<X>::value) {
    // null (or a missing key) leaves the field unset; any other value is read as its type.
    if (j.is_null()) {
      out.reset();
      return;
    }
    typename X::value_type v{};
    read_value(j, v, path);
    out = std::move(v);
  } else if constexpr (is_quantity<X>::value) {
    using D = typename X::dimension;
    out = X::from_si(typename X::value_type(parse_quantity<D>(j, path, si_symbol<D>())));
  } else if constexpr (std::is_same_v<X, bool>) {
    if (!j.is_boolean()) {
      throw config_error(path, "[strata.json] " + where(path) + " must be true or false, got " + json_excerpt(j));
    }
    out = j.get<bool>();
  } else if constexpr (std::is_integral_v<X>) {
    if (!j.is_number_integer()) {
      throw config_error(path, "[strata.json] " + where(path) + " must be an integer, got " + json_excerpt(j));
    }
    const bool fits = j.is_number_unsigned() ? std::in_range<X>(j.get<std::uint64_t>())
                                             : std::in_range<X>(j.get<std::int64_t>());
    if (!fits) {
      throw config_error(path, "[strata.json] " + where(path) + " must be an integer in [" +
                                   std::to_string(std::numeric_limits<X>::min()) + ", " +
                                   std::to_string(std::numeric_limits<X>::max()) + "], got " +
                                   json_excerpt(j));
    }
    out = j.get<X>();
  } else if constexpr (std::is_floating_point_v<X>) {
    if (!j.is_number()) {
      throw config_error(path, "[strata.json] " + where(path) + " must be a number, got " + json_excerpt(j));
    }
    const double v = j.get<double>();
    const double mag = v < 0 ? -v : v;
    const input_limits& lim = limits();
    if (!std::isfinite(v) || (mag != 0.0 && (mag < lim.quantity_min || mag > lim.quantity_max))) {
      throw config_error(path, "[strata.json] " + where(path) + " must be 0 or a number of magnitude in [" +
                                   to_text(lim.quantity_min) + ", " + to_text(lim.quantity_max) +
                                   "] (strata::limits().quantity_min/max), got " + json_excerpt(j));
    }
    out = j.get<X>();
  } else if constexpr (std::is_same_v<X, std::string>) {
    if (!j.is_string()) {
      throw config_error(path, "[strata.json] " + where(path) + " must be a string, got " + json_excerpt(j));
    }
    out = j.get<std::string>();
  } else if constexpr (is_vector<X>::value) {
    if (!j.is_array()) {
      throw config_error(path, "[strata.json] " + where(path) + " must be an array, got " + json_excerpt(j));
    }
    out.clear();
    for (std::size_t i = 0; i < j.size(); ++i) {
      typename X::value_type v{};
      read_value(j[i], v, path + "[" + std::to_string(i) + "]");
      out.push_back(std::move(v));
    }
  } else if constexpr (has_fields<X>) {
    read_object(j, out, path);
  } else if constexpr (std::is_enum_v<X>) {
    std::string names;
    if (j.is_string()) {
      for (const auto& [e, name] : enum_names(X{})) {
        if (j.get<std::string>() == name) {
          out = e;
          return;
        }
      }
    }
    for (const auto& [e, name] : enum_names(X{})) names += (names.empty() ? "\"" : ", \"") + std::string(name) + "\"";
    throw config_error(path, "[strata.json] " + where(path) + " must be one of " + names + ", got " + json_excerpt(j));
  } else {
    out = j.get<X>();  // a type with its own nlohmann from_json
  }
}

/// Formats a quantity as "<value> <SI symbol>" with full precision.
template <class D>
std::string format_si(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr) + " " + si_symbol<D>();
}

template <class X>
json write_value(const X& x) {
  if constexpr (is_optional<X>::value) {
    return x ? write_value(*x) : json(nullptr);  // NOLINT(modernize-return-braced-init-list)
  } else if constexpr (is_quantity<X>::value) {
    return format_si<typename X::dimension>(value_of(x.si()));
  } else if constexpr (is_vector<X>::value) {
    json a = json::array();
    for (const auto& v : x) a.push_back(write_value(v));
    return a;
  } else if constexpr (std::is_enum_v<X>) {
    for (const auto& [e, name] : enum_names(X{})) {
      if (e == x) return json(name);  // NOLINT(modernize-return-braced-init-list): json{name} is an array
    }
    return json(nullptr);  // NOLINT(modernize-return-braced-init-list): json{nullptr} is an array
  } else if constexpr (has_fields<X>) {
    json o = json::object();
    X::visit_fields(x, [&](const char* key, const auto& field) { o[key] = write_value(field); });
    return o;
  } else {
    return json(x);
  }
}

}  // namespace detail

/// Reads a parameter struct from JSON, starting at `path` for error messages.
template <class P>
P from_json_at(const json& j, const std::string& path = {}) {
  P p{};
  detail::read_value(j, p, path);
  return p;
}

/// nlohmann hook: every struct with `visit_fields` reads and writes through it.
template <class P>
  requires detail::has_fields<P>
void to_json(json& j, const P& p) {
  j = detail::write_value(p);
}
template <class P>
  requires detail::has_fields<P>
void from_json(const json& j, P& p) {
  detail::read_value(j, p, std::string{});
}

/// Writes a cost and its breakdown tree: name, rule, time_s, energy_J, bytes_B{resource: B},
/// source, count, columns{name: [values]}, parts[].
template <class T>
void to_json(json& j, const cost<T>& c) {
  j = json::object();
  j["name"] = c.name;
  j["rule"] = to_string(c.rule);
  j["time_s"] = value_of(c.time.si());
  j["energy_J"] = value_of(c.energy.si());
  json b = json::object();
  for (const auto& t : c.bytes) b[t.resource] = value_of(t.bytes.si());
  j["bytes_B"] = std::move(b);
  if (!c.source.empty()) j["source"] = c.source;
  if (c.rule == cost_rule::pipeline || c.rule == cost_rule::repeat) j["count"] = c.count;
  if (!c.columns.empty()) {
    json cols = json::object();
    for (const auto& col : c.columns) cols[col.name] = col.values;
    j["columns"] = std::move(cols);
  }
  if (!c.parts.empty()) {
    json parts = json::array();
    for (const auto& p : c.parts) {
      json pj;
      to_json(pj, p);
      parts.push_back(std::move(pj));
    }
    j["parts"] = std::move(parts);
  }
}

}  // namespace v0
}  // namespace strata

/// Quantities outside a parameter struct (e.g. `json j = 460_GBps;`) read and write with units.
template <class D, class T>
struct nlohmann::adl_serializer<strata::quantity<D, T>> {
  static void to_json(json& j, const strata::quantity<D, T>& q) {
    j = strata::detail::format_si<D>(strata::value_of(q.si()));
  }
  static void from_json(const json& j, strata::quantity<D, T>& q) {
    q = strata::quantity<D, T>::from_si(T(strata::detail::parse_quantity<D>(j, std::string{}, strata::detail::si_symbol<D>())));
  }
};
