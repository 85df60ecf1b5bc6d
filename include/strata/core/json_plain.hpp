// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Plain numbers for analysis (issue 7, Deliver 8). strata writes every quantity as a string with
/// its unit — `"access_latency": "1.375e-08 s"`, `"bandwidth": "460 GB/s"` — so a file cannot be
/// read with the wrong unit. Tools such as pandas or gnuplot want numbers instead. `plain_numbers`
/// turns a strata JSON value into the same tree in which
///
/// - every quantity string `"<number> <unit>"` (any unit strata reads, `strata/core/json.hpp`)
///   becomes its value in SI base units (s, m, kg, A, plus B and FLOP), a JSON number;
/// - its key gains the SI unit as a suffix, `_` + the symbol with `/` spelled `_per_`:
///   `"access_latency_s": 1.375e-08`, `"bandwidth_B_per_s": 4.6e+11`, `"area_m2"`, `"density_B_per_m2"`,
///   `"energy_J"`, `"energy_per_bit_J_per_B"`, `"clock_Hz"` (`plain_unit_suffix` lists them);
/// - an array whose elements are all quantities of one dimension becomes an array of numbers and
///   its key gains the suffix once (`"layer_latency_s": [...]`);
/// - everything else (numbers, booleans, null, names, reasons, and cost trees, which already carry
///   `time_s`, `energy_J`) is copied unchanged.
///
/// Key order: a strata JSON object keeps its keys in the order of `strata::json` (nlohmann::json:
/// sorted by byte value), so the output lists keys in byte order of the *new* names — the same rule
/// as every other strata JSON, and deterministic. A quantity string is recognised only in the
/// exact form strata writes: optional spaces, a number, at least one space, a unit (`"7B"` or
/// `"8x7B"` stay strings). A value that cannot be made plain without losing information is a
/// `config_error` naming the JSON path: a non-finite quantity (`"inf s"`), an array mixing
/// dimensions or quantities with other values, or a suffixed key that already exists.

#include <array>        // std::array
#include <charconv>     // std::from_chars
#include <cmath>        // std::isfinite
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::pair

#include "strata/core/error.hpp"
#include "strata/core/json.hpp"
#include "strata/core/units.hpp"

namespace strata {
inline namespace v0 {

/// How `--json` output writes quantities: `display` keeps strings with units (the default);
/// `si` writes plain SI numbers with unit-suffixed keys (`plain_numbers`).
enum class json_units { display, si };

constexpr auto enum_names(json_units) {
  return std::array{std::pair{json_units::display, "display"}, std::pair{json_units::si, "si"}};
}

namespace detail {
/// The key `key` of object `j` takes in the plain object `out` (its unit appended when `unit` is
/// set); throws `config_error` naming `at` when `out` or `j` already has that key.
template <class Json>
std::string plain_key(const Json& j, const Json& out, const std::string& key, const std::string& at,
                      const std::optional<std::string>& unit) {
  std::string name = key;
  if (unit) {
    name += '_';
    name += *unit;
  }
  if (out.contains(name) || (unit && j.contains(name))) {
    std::string msg = "[strata.json_plain] ";
    msg += at;
    msg += " would become key \"";
    msg += name;
    msg += "\", which the object already has";
    throw config_error(at, msg);
  }
  return name;
}
}  // namespace detail

namespace detail {

/// The key suffix of a dimension: "s", "B_per_s", "m2", ...
template <class = void>
inline std::string plain_suffix_of(const std::string& symbol) {
  std::string out;
  for (const char c : symbol) {
    if (c == '/') {
      out += "_per_";
    } else {
      out += c;
    }
  }
  return out;
}

template <class D>
void add_known_suffix(std::string& out, const std::array<int, 6>& exponents, bool& found) {
  if (!found && D::exponents == exponents) {
    out = plain_suffix_of(si_symbol<D>());
    found = true;
  }
}

/// A suffix for a dimension without a named SI symbol, built from the base units:
/// numerator factors, then `_per_` and the denominator (`kg_m2_per_s3`).
template <class = void>
inline std::string generic_plain_suffix(const std::array<int, 6>& e) {
  static constexpr std::array<const char*, 6> base = {"m", "kg", "s", "A", "B", "FLOP"};
  std::string num;
  std::string den;
  for (std::size_t i = 0; i < e.size(); ++i) {
    if (e[i] == 0) continue;
    const int p = e[i] > 0 ? e[i] : -e[i];
    std::string& side = e[i] > 0 ? num : den;
    if (!side.empty()) side += '_';
    side += base[i];
    if (p != 1) side += std::to_string(p);
  }
  if (num.empty()) num = "1";
  return den.empty() ? num : num + "_per_" + den;
}

}  // namespace detail

/// The key suffix for a dimension given by its exponents (m, kg, s, A, B, FLOP): the SI symbol strata
/// writes with `/` spelled `_per_` — `s`, `m`, `m2`, `Hz`, `B`, `FLOP`, `B_per_s`, `FLOP_per_s`, `J`, `W`,
/// `A`, `V`, `ohm`, `F`, `J_per_B`, `J_per_FLOP`, `B_per_m2`, `ohm_per_m`, `F_per_m`, `A_per_m2`,
/// `W_per_m2`, `m_per_s` — or, for any other dimension, its base units (`kg_m2_per_s3`).
template <class = void>
inline std::string plain_unit_suffix(const std::array<int, 6>& exponents) {
  std::string out;
  bool found = false;
  namespace d = dims;
  detail::add_known_suffix<d::time>(out, exponents, found);
  detail::add_known_suffix<d::length>(out, exponents, found);
  detail::add_known_suffix<d::area>(out, exponents, found);
  detail::add_known_suffix<d::frequency>(out, exponents, found);
  detail::add_known_suffix<d::data>(out, exponents, found);
  detail::add_known_suffix<d::ops>(out, exponents, found);
  detail::add_known_suffix<d::bandwidth>(out, exponents, found);
  detail::add_known_suffix<d::op_rate>(out, exponents, found);
  detail::add_known_suffix<d::energy>(out, exponents, found);
  detail::add_known_suffix<d::power>(out, exponents, found);
  detail::add_known_suffix<d::current>(out, exponents, found);
  detail::add_known_suffix<d::voltage>(out, exponents, found);
  detail::add_known_suffix<d::resistance>(out, exponents, found);
  detail::add_known_suffix<d::capacitance>(out, exponents, found);
  detail::add_known_suffix<d::energy_per_data>(out, exponents, found);
  detail::add_known_suffix<d::energy_per_op>(out, exponents, found);
  detail::add_known_suffix<d::data_per_area>(out, exponents, found);
  detail::add_known_suffix<d::resistance_per_length>(out, exponents, found);
  detail::add_known_suffix<d::capacitance_per_length>(out, exponents, found);
  detail::add_known_suffix<d::current_per_area>(out, exponents, found);
  detail::add_known_suffix<d::power_per_area>(out, exponents, found);
  detail::add_known_suffix<d::velocity>(out, exponents, found);
  return found ? out : detail::generic_plain_suffix(exponents);
}

namespace detail {

/// A recognised quantity string: its SI value and the dimension's exponents.
struct plain_quantity {
  double si = 0.0;
  std::array<int, 6> exponents{};
};

/// Recognises `"<number> <unit>"` exactly as strata writes quantities; nullopt for any other string.
/// A quantity whose number or SI value is not finite is an error (it cannot become a JSON number).
template <class = void>
inline std::optional<plain_quantity> read_plain_quantity(const std::string& s, const std::string& path) {
  std::string_view v(s);
  while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
  if (v.empty()) return std::nullopt;
  const char first = v.front();
  const bool numeric_start = (first >= '0' && first <= '9') || first == '-' || first == '+' || first == '.' ||
                             first == 'i' || first == 'n' || first == 'I' || first == 'N';
  if (!numeric_start) return std::nullopt;
  if (first == '+') v.remove_prefix(1);  // from_chars does not take a leading '+'
  double x = 0.0;
  const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec != std::errc{} && ec != std::errc::result_out_of_range) return std::nullopt;
  std::string_view unit(ptr, static_cast<std::size_t>(v.data() + v.size() - ptr));
  if (unit.empty() || unit.front() != ' ') return std::nullopt;  // "7B", "8x7B": not strata's form
  while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  while (!unit.empty() && unit.back() == ' ') unit.remove_suffix(1);
  if (unit.empty() || unit.find(' ') != std::string_view::npos) return std::nullopt;
  parsed_unit pu;
  if (!parse_unit(unit, pu)) return std::nullopt;
  const double si = x * pu.factor;
  if (ec == std::errc::result_out_of_range || !std::isfinite(x) || !std::isfinite(si)) {
    throw config_error(path, "[strata.json_plain] " + where(path) + " is the quantity \"" + s +
                                 "\", which has no finite SI value");
  }
  return plain_quantity{si, pu.exponents};
}

/// Converts `j` into `out`; returns the key suffix when `j` is a quantity or an array of quantities
/// of one dimension. A template, so that only a translation unit that converts pays for the
/// nlohmann::json code it instantiates.
template <class Json>
std::optional<std::string> make_plain(const Json& j, Json& out, const std::string& path) {
  if (j.is_string()) {
    const auto q = read_plain_quantity(j.template get<std::string>(), path);
    if (!q) {
      out = j;
      return std::nullopt;
    }
    out = q->si;
    return plain_unit_suffix(q->exponents);
  }
  if (j.is_array()) {
    out = Json::array();
    std::optional<std::string> suffix;
    std::size_t with_unit = 0;
    for (std::size_t i = 0; i < j.size(); ++i) {
      Json e;
      const std::string at = path + "[" + std::to_string(i) + "]";
      const auto s = make_plain(j[i], e, at);
      if (s) {
        if (suffix && *suffix != *s) {
          throw config_error(at, "[strata.json_plain] " + at + " has unit " + *s + " but earlier elements " +
                                     *suffix + ": an array of mixed dimensions cannot carry one unit suffix");
        }
        suffix = s;
        ++with_unit;
      }
      out.push_back(std::move(e));
    }
    if (with_unit != 0 && with_unit != j.size()) {
      throw config_error(where(path), "[strata.json_plain] " + where(path) +
                                          " mixes quantities with other values: an array needs one unit or none");
    }
    return suffix;
  }
  if (j.is_object()) {
    out = Json::object();
    for (const auto& [key, value] : j.items()) {
      Json v;
      std::string at = path;
      if (!at.empty()) at += '.';
      at += key;
      const auto s = make_plain(value, v, at);
      const std::string name = plain_key(j, out, key, at, s);
      out[name] = std::move(v);
    }
    return std::nullopt;
  }
  out = j;
  return std::nullopt;
}

}  // namespace detail

/// The same JSON tree with every quantity string replaced by its SI number and its key suffixed by
/// the SI unit (see the file comment): `{"access_latency": "13.75 ns"}` → `{"access_latency_s": 1.375e-08}`.
/// Throws `config_error` naming the JSON path for a non-finite quantity, an array mixing dimensions
/// or quantities with other values, and a suffixed key that collides with an existing one.
template <class Json = json>
Json plain_numbers(const Json& j) {
  Json out;
  detail::make_plain(j, out, std::string{});
  return out;
}

/// `plain_numbers(j)` for `json_units::si`, `j` unchanged for `json_units::display`.
template <class Json = json>
Json with_units(const Json& j, json_units units) {
  return units == json_units::si ? plain_numbers(j) : j;
}

namespace detail {
/// `make_plain` in place: each value is converted where it is and moved into its (renamed) key,
/// so the tree is never copied; the same output and the same errors.
template <class Json>
std::optional<std::string> make_plain_in_place(Json& j, const std::string& path) {
  if (j.is_string()) {
    const auto q = read_plain_quantity(j.template get_ref<const std::string&>(), path);
    if (!q) return std::nullopt;
    j = q->si;
    return plain_unit_suffix(q->exponents);
  }
  if (j.is_array()) {
    std::optional<std::string> suffix;
    std::size_t with_unit = 0;
    for (std::size_t i = 0; i < j.size(); ++i) {
      const std::string at = path + "[" + std::to_string(i) + "]";
      const auto s = make_plain_in_place(j[i], at);
      if (s) {
        if (suffix && *suffix != *s) {
          throw config_error(at, "[strata.json_plain] " + at + " has unit " + *s + " but earlier elements " +
                                     *suffix + ": an array of mixed dimensions cannot carry one unit suffix");
        }
        suffix = s;
        ++with_unit;
      }
    }
    if (with_unit != 0 && with_unit != j.size()) {
      throw config_error(where(path), "[strata.json_plain] " + where(path) +
                                          " mixes quantities with other values: an array needs one unit or none");
    }
    return suffix;
  }
  if (j.is_object()) {
    Json out = Json::object();
    for (auto& [key, value] : j.items()) {
      std::string at = path;
      if (!at.empty()) at += '.';
      at += key;
      const auto s = make_plain_in_place(value, at);
      const std::string name = plain_key(j, out, key, at, s);
      out[name] = std::move(value);
    }
    j = std::move(out);
  }
  return std::nullopt;
}
}  // namespace detail

/// `j` converted in place to `units` (`with_units` without a copy of the tree): unchanged for
/// `json_units::display`; for `json_units::si`, each quantity becomes its SI number and its key
/// gains the unit suffix as it is visited. The same output and errors as `plain_numbers`.
template <class Json = json>
void convert_units(Json& j, json_units units) {
  if (units == json_units::si) detail::make_plain_in_place(j, std::string{});
}

}  // namespace v0
}  // namespace strata
