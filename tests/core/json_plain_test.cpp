#include "strata/core/json_plain.hpp"

#include <doctest/doctest.h>

#include "support/field_of.hpp"

#include <cmath>    // std::isfinite
#include <cstddef>  // std::size_t
#include <sstream>  // std::ostringstream
#include <string>   // std::string, std::stod

#include "strata/chiplet/token_groups.hpp"
#include "strata/chiplet/window.hpp"
#include "strata/device/mono3d.hpp"
#include "strata/workload/presets.hpp"
#include "strata/workload/trace_io.hpp"

using namespace strata;
using strata_test::field_of;

namespace {

// The SI symbol a key suffix stands for: "B_per_s" -> "B/s" (the inverse of the documented rule).
std::string symbol_of_suffix(const std::string& suffix) {
  std::string out;
  for (std::size_t i = 0; i < suffix.size();) {
    if (suffix.compare(i, 5, "_per_") == 0) {
      out.push_back('/');
      i += 5;
    } else {
      out.push_back(suffix[i++]);
    }
  }
  return out;
}

struct plain_stats {
  std::size_t converted = 0;  // quantity strings that became numbers
  std::size_t kept = 0;       // leaves copied unchanged
};

// Walks a strata JSON value `in` (quantities written "<SI value> <SI symbol>", as strata writes them)
// beside its plain form `out`, independently of the converter: every key of `in` is in `out`
// either unchanged with an equal value, or suffixed "_<unit>" with a finite number equal to the
// string's number and a suffix that spells the string's unit; `out` has no other keys.
void check_plain(const json& in, const json& out, const std::string& path, plain_stats& stats) {
  CAPTURE(path);
  if (in.is_object()) {
    REQUIRE(out.is_object());
    CHECK(out.size() == in.size());
    for (const auto& item : in.items()) {
      // Plain variables, not structured bindings: clang 14 cannot capture those in doctest macros.
      const std::string key = item.key();
      const json& value = item.value();
      if (out.contains(key)) {
        check_plain(value, out.at(key), path + "." + key, stats);
        continue;
      }
      // The one key of `out` that is `key` + "_" + a unit suffix: a new key of `out` belongs to the
      // longest key of `in` it extends ("non_routed_energy_J" to non_routed_energy, not non_routed).
      const auto extends = [](const std::string& longer, const std::string& k) {
        return longer.size() > k.size() + 1 && longer.compare(0, k.size() + 1, k + "_") == 0;
      };
      std::string found;
      for (const auto& candidate : out.items()) {
        const std::string k2 = candidate.key();
        if (in.contains(k2) || !extends(k2, key)) continue;
        bool longer_owner = false;
        for (const auto& other : in.items()) {
          const std::string k3 = other.key();
          longer_owner = longer_owner || (k3.size() > key.size() && extends(k2, k3));
        }
        if (longer_owner) continue;
        CHECK_MESSAGE(found.empty(), key << " has two suffixed keys: " << found << ", " << k2);
        found = k2;
      }
      REQUIRE_MESSAGE(!found.empty(), "key " << key << " vanished");
      const std::string symbol = symbol_of_suffix(found.substr(key.size() + 1));
      const json& plain = out.at(found);
      const auto check_leaf = [&](const json& s, const json& x) {
        REQUIRE(s.is_string());
        REQUIRE(x.is_number_float());
        const double v = x.get<double>();
        CHECK(std::isfinite(v));
        const std::string text = s.get<std::string>();
        const std::size_t space = text.find(' ');
        REQUIRE(space != std::string::npos);
        CHECK(text.substr(space + 1) == symbol);
        CHECK(std::stod(text.substr(0, space)) == v);
        ++stats.converted;
      };
      if (value.is_array()) {
        REQUIRE(plain.is_array());
        REQUIRE(plain.size() == value.size());
        for (std::size_t i = 0; i < value.size(); ++i) check_leaf(value[i], plain[i]);
      } else {
        check_leaf(value, plain);
      }
    }
  } else if (in.is_array()) {
    REQUIRE(out.is_array());
    REQUIRE(out.size() == in.size());
    for (std::size_t i = 0; i < in.size(); ++i) check_plain(in[i], out[i], path + "[" + std::to_string(i) + "]", stats);
  } else {
    CHECK(out == in);
    ++stats.kept;
  }
}

plain_stats check_plain(const json& in, const json& out) {
  plain_stats stats;
  check_plain(in, out, "", stats);
  return stats;
}

}  // namespace

TEST_CASE("a quantity string becomes its SI number and its key gains the SI unit") {
  SUBCASE("display units are converted to SI") {
    const json in = {{"latency", "13.75 ns"},        {"bandwidth", "460 GB/s"}, {"capacity", "32 GiB"},
                     {"density", "2.156 Gib/mm2"},   {"energy", "1.25 pJ/B"},   {"area", "121 mm2"},
                     {"clock", "1.5 GHz"},           {"power", "42.67 W"},      {"peak", "989 TFLOPS"}};
    const json out = plain_numbers(in);
    CHECK(out.size() == in.size());
    CHECK(out.at("latency_s").get<double>() == doctest::Approx(13.75e-9).epsilon(1e-15));
    CHECK(out.at("bandwidth_B_per_s").get<double>() == doctest::Approx(460e9).epsilon(1e-15));
    CHECK(out.at("capacity_B").get<double>() == 34359738368.0);  // 32 x 2^30
    // 2.156 Gib/mm² = 2.156 x 2^30 / 8 B per 1e-6 m².
    CHECK(out.at("density_B_per_m2").get<double>() == doctest::Approx(2.156 * 1073741824.0 / 8.0 / 1e-6).epsilon(1e-14));
    CHECK(out.at("energy_J_per_B").get<double>() == doctest::Approx(1.25e-12).epsilon(1e-15));
    CHECK(out.at("area_m2").get<double>() == doctest::Approx(121e-6).epsilon(1e-15));
    CHECK(out.at("clock_Hz").get<double>() == 1.5e9);
    CHECK(out.at("power_W").get<double>() == 42.67);
    CHECK(out.at("peak_FLOP_per_s").get<double>() == 989e12);
  }
  SUBCASE("the README example, byte for byte") {
    const json in = json::parse(R"({"latency": "13.75 ns", "bandwidth": "460 GB/s"})");
    CHECK(plain_numbers(in).dump() == R"({"bandwidth_B_per_s":460000000000.0,"latency_s":1.375e-08})");
  }
  SUBCASE("an array of one dimension becomes numbers under one suffixed key") {
    const json out = plain_numbers(json{{"layer_latency", {"1 ns", "2 us", "3e-3 s"}}});
    CHECK(out == json{{"layer_latency_s", {1e-9, 2e-6, 3e-3}}});
  }
  SUBCASE("quantities nested in objects and arrays of objects are converted where they are") {
    const json in = json::parse(R"({"tiers": [{"name": "fast", "latency": "10 ns"}, {"name": "slow", "latency": "16 ns"}]})");
    const json out = plain_numbers(in);
    CHECK(out.at("tiers").at(0).at("name") == "fast");
    CHECK(out.at("tiers").at(1).at("latency_s").get<double>() == doctest::Approx(16e-9).epsilon(1e-15));
  }
  SUBCASE("a dimension without an SI symbol of its own is spelled in base units") {
    // J·s (action): m2 kg s-1.
    CHECK(plain_unit_suffix({2, 1, -1, 0, 0, 0}) == "m2_kg_per_s");
    CHECK(plain_numbers(json{{"x", "2 J*s"}}) == json{{"x_m2_kg_per_s", 2.0}});
    CHECK(plain_unit_suffix({0, 0, -2, 0, 0, 0}) == "1_per_s2");
  }
  SUBCASE("a root quantity has no key to suffix and becomes a number") {
    CHECK(plain_numbers(json("5 ms")) == json(5e-3));
  }
}

TEST_CASE("everything that is not a quantity string is copied unchanged") {
  const json in = json::parse(R"({
    "model": "Mixtral-8x7B", "size": "7B", "machine": "H100 NVL", "note": "2 tiers of 4 banks",
    "batch": 64, "ratio": 1.6, "fits": true, "reason": "", "none": null, "time_s": 0.005588,
    "names": ["a", "b"], "ids": [1, 2, 3], "empty": [], "nested": {"deep": {"flag": false}}})");
  CHECK(plain_numbers(in) == in);
  CHECK(with_units(in, json_units::display) == in);
  const json q = {{"t", "1 s"}};
  CHECK(with_units(q, json_units::display) == q);
  CHECK(with_units(q, json_units::si) == json{{"t_s", 1.0}});
}

TEST_CASE("a value that cannot become a plain number is a config_error naming its JSON path") {
  SUBCASE("a non-finite quantity") {
    CHECK(field_of([] { (void)plain_numbers(json::parse(R"({"a": {"t": "inf s"}})")); }) == "a.t");
    CHECK(field_of([] { (void)plain_numbers(json::parse(R"({"t": "1e308 TB"})")); }) == "t");
    CHECK_THROWS_WITH_AS((void)plain_numbers(json::parse(R"({"t": "nan s"})")),
                         doctest::Contains("t is the quantity \"nan s\", which has no finite SI value"),
                         config_error);
  }
  SUBCASE("an array mixing dimensions, or quantities with other values") {
    CHECK_THROWS_WITH_AS((void)plain_numbers(json::parse(R"({"x": ["1 s", "2 m"]})")),
                         doctest::Contains("x[1] has unit m but earlier elements s"), config_error);
    CHECK(field_of([] { (void)plain_numbers(json::parse(R"({"x": ["1 s", 2]})")); }) == "x");
  }
  SUBCASE("a suffixed key the object already has") {
    CHECK_THROWS_WITH_AS((void)plain_numbers(json::parse(R"({"t": "1 s", "t_s": 2})")),
                         doctest::Contains("t would become key \"t_s\", which the object already has"),
                         config_error);
  }
}

TEST_CASE("a Mono3D device result: every quantity becomes a finite SI number, nothing else changes") {
  const auto r = evaluate(mono3d_params<>{});
  const json in = r;
  const json out = plain_numbers(in);
  const auto stats = check_plain(in, out);
  // Per tier: t_rcd, access latency, internal bandwidth, capacity (index and layer range stay
  // integers); per chip: capacity, MAT area, die area, density (the latency ratio stays a number).
  CHECK(stats.converted >= r.tiers.size() * 4 + 4);  // >=: the device model may grow fields
  CHECK(stats.kept >= r.tiers.size() * 3 + 1);
  CHECK(out.at("capacity_B").get<double>() == r.capacity.si());
  CHECK(out.at("die_area_m2").get<double>() == r.die_area.si());
  CHECK(out.at("density_B_per_m2").get<double>() == r.density.si());
  CHECK(out.at("fast_slow_latency_ratio").get<double>() == r.fast_slow_latency_ratio);
  CHECK(out.at("tiers").at(0).at("access_latency_s").get<double>() == r.tiers.front().access_latency.si());
  CHECK(out.at("tiers").at(7).at("internal_bandwidth_B_per_s").get<double>() == r.tiers.back().internal_bandwidth.si());
}

TEST_CASE("an HCRMap window result on a real trace: every quantity becomes a finite SI number") {
  const substrate pkg;
  const auto m = preset("DeepSeek-V2-Lite");
  const auto res = single_copy_static(pkg, m.moe_layers(), m.experts, expert_bytes(m));
  const auto trace = load_trace_csv(std::string(STRATA_TEST_DATA_DIR) + "/traces/dsv2lite_esft_trace_intent.csv",
                                    {.experts = m.experts});
  const auto groups = token_groups(trace, pkg.chiplets(), {.first_token = 0, .tokens = 64});
  const auto w = evaluate_window(pkg, m, res, groups, {phase::decode, 64, 2048});
  const json in = w;
  const json out = plain_numbers(in);
  const auto stats = check_plain(in, out);
  CHECK(stats.converted > 100);  // per layer: stage times, energies; and the window totals
  CHECK(out.at("e2e_s").get<double>() == w.e2e.si());
  CHECK(out.at("layers").size() == w.layers.size());
  CHECK(out.at("layers").at(1).at("moe_s").get<double>() == w.layers.at(1).moe.si());
  CHECK(out.at("pressure") == in.at("pressure"));  // plain ratios stay as they are
  // Deterministic: the same result gives byte-identical plain JSON, keys in byte order.
  CHECK(plain_numbers(in).dump() == out.dump());
  std::string previous;
  for (const auto& item : out.items()) {
    const std::string key = item.key();
    CHECK(previous < key);
    previous = key;
  }
}

TEST_CASE("converting in place gives plain_numbers' tree and errors, and the streamed text is dump_json's") {
  const auto r = evaluate(mono3d_params<>{});
  const json in = r;
  json j = in;
  convert_units(j, json_units::si);
  CHECK(j == plain_numbers(in));
  json d = in;
  convert_units(d, json_units::display);
  CHECK(d == in);
  // The same errors, naming the same paths.
  json mixed = json::parse(R"({"x": ["1 s", "2 m"]})");
  CHECK_THROWS_WITH_AS(convert_units(mixed, json_units::si), doctest::Contains("x[1] has unit m but earlier elements s"),
                       config_error);
  json clash = json::parse(R"({"t": "1 s", "t_s": 2})");
  CHECK_THROWS_WITH_AS(convert_units(clash, json_units::si),
                       doctest::Contains("t would become key \"t_s\", which the object already has"), config_error);
  json nonfinite = json::parse(R"({"a": {"t": "inf s"}})");
  CHECK(field_of([&] { convert_units(nonfinite, json_units::si); }) == "a.t");
  // Streaming writes dump_json's bytes, invalid UTF-8 replaced as there.
  json names = in;
  names["name"] = std::string("bad\xff\xfe name");
  for (const int indent : {-1, 0, 2}) {
    std::ostringstream os;
    dump_json(os, names, indent);
    CHECK(os.str() == dump_json(names, indent));
  }
}
