// ODR test, first translation unit: the umbrella and JSON headers must link twice without clashes.
// Its check: parameters survive a JSON round trip here, and this unit's evaluation agrees with the
// other unit's (compared in odr_b.cpp's main, whose exit status is the test's verdict).
#include <strata/strata.hpp>
#include <strata/json.hpp>

int strata_odr_a() {
  const strata::mono3d_params<> p{};
  const strata::json j = p;
  const auto back = j.get<strata::mono3d_params<>>();
  if (!(back == p)) return -1;  // a failed round trip cannot match the tier count in odr_b.cpp
  return static_cast<int>(strata::evaluate(back).tiers.size());
}
