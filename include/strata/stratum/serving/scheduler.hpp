// SPDX-License-Identifier: MIT
#pragma once
// Deprecated: include <strata/serving/scheduler.hpp> and
// <strata/stratum/serving/topic_batcher.hpp>; this forwarding header goes in the next release.
/// \file
/// Deprecated forwarding header (issue 45: the serving code every machine shares lives in
/// `include/strata/serving/`): it includes `<strata/serving/scheduler.hpp>` and
/// `<strata/stratum/serving/topic_batcher.hpp>` (the serving wing's machine-neutral part, and
/// Stratum's own part), so code that includes this path keeps compiling with the same names and
/// gives the same results. Define `STRATA_WARN_DEPRECATED_HEADERS` to have the compiler note each
/// use (a note, not a warning).

#if defined(STRATA_WARN_DEPRECATED_HEADERS)
#pragma message("strata/stratum/serving/scheduler.hpp is deprecated: include <strata/serving/scheduler.hpp> and <strata/stratum/serving/topic_batcher.hpp>")
#endif

#include "strata/serving/scheduler.hpp"
#include "strata/stratum/serving/topic_batcher.hpp"
