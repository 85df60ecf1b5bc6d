// ODR test, second translation unit: includes the same headers and calls into the first.
#include <strata/strata.hpp>
#include <strata/json.hpp>

int strata_odr_a();

int main() { return strata_odr_a() == strata::version ? 0 : 1; }
