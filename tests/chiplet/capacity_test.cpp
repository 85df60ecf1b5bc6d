#include "strata/chiplet/capacity.hpp"

#include <doctest/doctest.h>

#include <string>

#include "strata/core/json.hpp"

using namespace strata;

namespace {
// 1 GB of non-routed weights, 1 GB of KV cache, 0.5 GB of embedding and LM head, 1 MB of
// activations.
footprint need() {
  footprint f;
  f.weights = units::GB(1.0);
  f.kv = units::GB(1.0);
  f.non_nmp = units::GB(0.5);
  f.activations = units::MB(1.0);
  return f;
}
}  // namespace

TEST_CASE("the KV cache goes where residency_params::kv says: HBM first, DRAM, or the less pressured tier") {
  const substrate s;  // Table 1: HBM 8 GB, DRAM 32 GB
  residency_params rp;
  SUBCASE("hbm_first (default): HBM") {
    CHECK(rp.kv == kv_placement::hbm_first);
    const auto f = place_package(s, need(), {0.0, 0.0, 0.0}, rp);
    CHECK(f.feasible);
    CHECK(f.placement.kv == tier_kind::hbm);
    CHECK(f.placement.weights == tier_kind::hbm);  // the other classes keep their rule
  }
  SUBCASE("dram: DRAM, HBM left to the experts") {
    rp.kv = kv_placement::dram;
    const auto f = place_package(s, need(), {0.0, 0.0, 0.0}, rp);
    CHECK(f.placement.kv == tier_kind::dram);
    CHECK(f.other(tier_kind::dram).in(units::GB) == doctest::Approx(1.5));  // KV + embedding/LM head
    SUBCASE("falls back to HBM when DRAM is full of experts") {
      const auto g = place_package(s, need(), {0.0, 0.0, 31.9e9}, rp);
      CHECK(g.placement.kv == tier_kind::hbm);
    }
  }
  SUBCASE("by_pressure: the tier left with the lower used / capacity") {
    rp.kv = kv_placement::by_pressure;
    // Empty package: HBM would be (1 + 1) GB / 8 GB = 25 % used, DRAM 1 GB / 32 GB = 3 %: DRAM.
    CHECK(place_package(s, need(), {0.0, 0.0, 0.0}, rp).placement.kv == tier_kind::dram);
    // 28 GB of experts in DRAM: DRAM (28 + 1) / 32 = 91 %, HBM 25 %: HBM.
    CHECK(place_package(s, need(), {0.0, 0.0, 28e9}, rp).placement.kv == tier_kind::hbm);
  }
}

TEST_CASE("a bad KV placement is a config_error naming kv") {
  const substrate s;
  residency_params rp;
  rp.kv = static_cast<kv_placement>(7);
  try {
    validate(rp, s);
    FAIL("no config_error");
  } catch (const config_error& e) {
    CHECK(e.field() == "kv");
  }
  try {
    (void)json::parse(R"({"kv": "on_die"})").get<residency_params>();
    FAIL("no config_error");
  } catch (const config_error& e) {
    CHECK(std::string(e.field()).find("kv") != std::string::npos);
  }
  const auto q = json::parse(R"({"kv": "by_pressure"})").get<residency_params>();
  CHECK(q.kv == kv_placement::by_pressure);
}
