// ODR test, first translation unit: the umbrella and JSON headers must link twice without clashes.
#include <strata/strata.hpp>
#include <strata/json.hpp>

int strata_odr_a() {
  const strata::json j = strata::mono3d_params<>{};
  return static_cast<int>(strata::evaluate(j.get<strata::mono3d_params<>>()).tiers.size());
}
