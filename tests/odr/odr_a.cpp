// ODR test, first translation unit: the umbrella and JSON headers must link twice without clashes.
#include <strata/strata.hpp>
#include <strata/json.hpp>

int strata_odr_a() { return strata::version; }
