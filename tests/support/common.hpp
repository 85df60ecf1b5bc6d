// Shared test helpers used by several suites of one domain. The suites of a domain are compiled
// together (unity build, tests/CMakeLists.txt), so a helper two files need lives here once.
#pragma once

#include <cstddef>  // std::size_t
#include <string>   // std::string
#include <vector>   // std::vector

#include "strata/chiplet/substrate.hpp"
#include "strata/core/units.hpp"

namespace strata_test {

/// The default HCRMap package (4 x 4 mesh, substrate_params defaults), built once.
inline const strata::substrate& package() {
  static const strata::substrate s;
  return s;
}

/// The package with HBM cut into 2-pseudo-channel slices under each of the 16 chiplets
/// (`hbm.stripe = 2`, the earlier layout), built once: the mechanism tests of tests/hcrmap lay
/// replicas out by hand on chiplet-local HBM of every chiplet. Table 1's default layout (two
/// stacks) is tested in tests/chiplet.
inline const strata::substrate& sliced_package() {
  static const strata::substrate s([] {
    strata::substrate_params p;
    p.hbm.stripe = 2;
    return p;
  }());
  return s;
}

/// An area in mm².
inline double mm2(const strata::area<>& a) { return a.in(strata::units::mm2); }

/// The legal mask of `n` candidates whose bit i of `bits` is set.
inline std::vector<bool> mask_of(unsigned bits, int n) {
  std::vector<bool> m(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) m[static_cast<std::size_t>(i)] = ((bits >> i) & 1u) != 0;
  return m;
}

/// tests/data/traces/, with the trailing slash.
inline std::string traces_dir() { return std::string(STRATA_TEST_DATA_DIR) + "/traces/"; }

}  // namespace strata_test
