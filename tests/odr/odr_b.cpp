// ODR test, second translation unit: includes the same headers, uses the same inline functions
// and templates, and calls into the first.
#include <strata/strata.hpp>
#include <strata/json.hpp>

int strata_odr_a();

int main() {
  const auto r = strata::evaluate(strata::mono3d_params<>{});
  return strata_odr_a() == static_cast<int>(r.tiers.size()) && strata::version > 0 ? 0 : 1;
}
