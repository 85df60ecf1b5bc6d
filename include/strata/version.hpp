// strata — closed-form models for serving Mixture-of-Experts LLMs on tiered memory.
// SPDX-License-Identifier: MIT
#pragma once

/// The library version, defined once here and parsed by the top-level CMakeLists.txt.
#define STRATA_VERSION_MAJOR 0
#define STRATA_VERSION_MINOR 1
#define STRATA_VERSION_PATCH 0

namespace strata {
inline namespace v0 {
/// Version as a single integer: major * 10000 + minor * 100 + patch.
inline constexpr int version = STRATA_VERSION_MAJOR * 10000 + STRATA_VERSION_MINOR * 100 + STRATA_VERSION_PATCH;
}  // namespace v0
}  // namespace strata
