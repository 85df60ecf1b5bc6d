// SPDX-License-Identifier: MIT
#pragma once
// Deprecated: include <strata/serving/simulator.hpp> and
// <strata/stratum/serving/stratum_serving.hpp>; this forwarding header goes in the next release.
/// \file
/// Deprecated forwarding header (issue 45: the serving code every machine shares lives in
/// `include/strata/serving/`): it includes `<strata/serving/simulator.hpp>` and
/// `<strata/stratum/serving/stratum_serving.hpp>` (the serving wing's machine-neutral part, and
/// Stratum's own part), so code that includes this path keeps compiling with the same names and
/// gives the same results. Define `STRATA_WARN_DEPRECATED_HEADERS` to have the compiler note each
/// use (a note, not a warning).

#if defined(STRATA_WARN_DEPRECATED_HEADERS)
#pragma message("strata/stratum/serving/simulator.hpp is deprecated: include <strata/serving/simulator.hpp> and <strata/stratum/serving/stratum_serving.hpp>")
#endif

#include "strata/serving/simulator.hpp"
#include "strata/stratum/serving/stratum_serving.hpp"
