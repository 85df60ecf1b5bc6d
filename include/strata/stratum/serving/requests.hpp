// SPDX-License-Identifier: MIT
#pragma once
// Deprecated: include <strata/serving/requests.hpp>; this forwarding header goes in the next
// release.
/// \file
/// Deprecated forwarding header (issue 45: the serving code every machine shares lives in
/// `include/strata/serving/`): it includes `<strata/serving/requests.hpp>` (the serving wing), so
/// code that includes this path keeps compiling with the same names and gives the same results.
/// Define `STRATA_WARN_DEPRECATED_HEADERS` to have the compiler note each use (a note, not a
/// warning).

#if defined(STRATA_WARN_DEPRECATED_HEADERS)
#pragma message("strata/stratum/serving/requests.hpp is deprecated: include <strata/serving/requests.hpp>")
#endif

#include "strata/serving/requests.hpp"
