#include "strata/core/limits.hpp"

#include <doctest/doctest.h>

#include <cstdint>  // std::int64_t
#include <limits>   // std::numeric_limits
#include <string>   // std::string

#include "support/field_of.hpp"

using namespace strata;
using strata_test::field_of;

namespace {
constexpr std::int64_t i64_max = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t i64_min = std::numeric_limits<std::int64_t>::min();
}  // namespace

TEST_CASE("checked_mul multiplies exactly or throws naming the field") {
  CHECK(detail::checked_mul(3, 4, "m", "f") == 12);
  CHECK(detail::checked_mul(-3, 4, "m", "f") == -12);
  CHECK(detail::checked_mul(0, i64_max, "m", "f") == 0);
  CHECK(detail::checked_mul(std::int64_t{1} << 31, std::int64_t{1} << 31, "m", "f") == std::int64_t{1} << 62);
  CHECK(detail::checked_mul(i64_max, 1, "m", "f") == i64_max);
  CHECK(detail::checked_mul(i64_min, 1, "m", "f") == i64_min);
  // 2^32 · 2^31 = 2^63 is one past the largest int64.
  CHECK_THROWS_WITH_AS(detail::checked_mul(std::int64_t{1} << 32, std::int64_t{1} << 31, "strata.model", "experts"),
                       "[strata.model] experts: 4294967296 * 2147483648 overflows a 64-bit integer "
                       "(expected a size below 2^63)",
                       config_error);
  CHECK(field_of([] { detail::checked_mul(i64_max, 2, "m", "layers"); }) == "layers");
  CHECK(field_of([] { detail::checked_mul(i64_min, -1, "m", "x"); }) == "x");
  CHECK(field_of([] { detail::checked_mul(-i64_max, 2, "m", "x"); }) == "x");
}

TEST_CASE("checked_add adds exactly or throws naming the field") {
  CHECK(detail::checked_add(i64_max - 1, 1, "m", "f") == i64_max);
  CHECK(detail::checked_add(i64_min + 1, -1, "m", "f") == i64_min);
  CHECK(field_of([] { detail::checked_add(i64_max, 1, "m", "total"); }) == "total");
  CHECK(field_of([] { detail::checked_add(i64_min, -1, "m", "total"); }) == "total");
}

TEST_CASE("require_within_limit names the field and the limit") {
  CHECK_NOTHROW(detail::require_within_limit(10, 10, "table_cells", "strata.trace", "t.csv:3", "cells"));
  CHECK_THROWS_WITH_AS(detail::require_within_limit(11, 10, "table_cells", "strata.trace", "t.csv:3", "cells"),
                       "[strata.trace] t.csv:3: cells 11 exceeds the limit 10 (strata::limits().table_cells)",
                       config_error);
}

TEST_CASE("require_magnitude accepts 0 and [1e-24, 1e24], rejects extremes and non-finite values") {
  CHECK_NOTHROW(detail::require_magnitude(0.0, "m", "x"));
  CHECK_NOTHROW(detail::require_magnitude(1e-24, "m", "x"));
  CHECK_NOTHROW(detail::require_magnitude(-1e24, "m", "x"));
  CHECK_NOTHROW(detail::require_magnitude(3.35e12, "m", "x"));
  for (const double bad : {1e300, 4.9e-324, 1e-25, -1e25, std::numeric_limits<double>::infinity(),
                           std::numeric_limits<double>::quiet_NaN()}) {
    CAPTURE(bad);
    CHECK(field_of([&] { detail::require_magnitude(bad, "strata.tier", "hbm.bandwidth", "B/s"); }) ==
          "hbm.bandwidth");
  }
  CHECK_THROWS_WITH_AS(detail::require_magnitude(1e300, "strata.tier", "hbm.bandwidth", "B/s"),
                       "[strata.tier] hbm.bandwidth must be 0 or of magnitude in [1e-24, 1e+24] "
                       "(strata::limits().quantity_min/max), got 1e+300 B/s",
                       config_error);
}

TEST_CASE("limits are process-wide and adjustable") {
  const input_limits saved = limits();
  CHECK(limits().json_depth == 64);
  CHECK(limits().layers == 1024);
  CHECK(limits().experts == 65536);
  limits().quantity_max = 1e30;
  CHECK_NOTHROW(detail::require_magnitude(1e27, "m", "x"));
  limits() = saved;
  CHECK(field_of([] { detail::require_magnitude(1e27, "m", "x"); }) == "x");
}
