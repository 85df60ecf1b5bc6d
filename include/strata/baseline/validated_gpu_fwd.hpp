// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// `validated_gpu` alone: a card's preset (`baseline/gpu.hpp`) with the serving knobs fitted on the
/// published measurement set, declared without the fit. `baseline/validated_gpu.hpp` defines the
/// fit (the measurement reader and the least-squares search of `baseline/validation.hpp`) and
/// everything else about it; this header is what a model that only applies the fit includes when
/// the fit is compiled elsewhere: `stratum/system.hpp` under `STRATA_COMPILED=1` (strata::compiled,
/// `src/compiled.cpp`, holds the one instantiation), so a consumer that links strata::compiled
/// parses neither the reader nor the fit. Header-only, include `baseline/validated_gpu.hpp`.
///
/// \code
/// const strata::gpu_params g = strata::validated_gpu(strata::h100_sxm5());
/// \endcode

#include <utility>  // std::move

#include "strata/baseline/gpu.hpp"

namespace strata {
inline namespace v0 {

namespace detail {
// `card` with the published fit's knobs, defined in baseline/validated_gpu.hpp. A function template
// (of a scalar it does not use) so that strata::compiled can hold its one instantiation.
template <class T = double>
gpu_params with_published_knobs(gpu_params card);
}  // namespace detail

/// `card` with the published fit's knobs (`with_knobs`: energy per FLOP re-derived from η_c;
/// `published_gpu_fit`, `baseline/validated_gpu.hpp`).
template <class = void>
inline gpu_params validated_gpu(gpu_params card) { return detail::with_published_knobs<>(std::move(card)); }

}  // namespace v0
}  // namespace strata

// strata::compiled holds the instantiation (file comment); without STRATA_COMPILED this header
// declares the template only and `baseline/validated_gpu.hpp` defines it.
#if defined(STRATA_COMPILED) && STRATA_COMPILED
namespace strata {
inline namespace v0 {
extern template gpu_params detail::with_published_knobs<double>(gpu_params);
}  // namespace v0
}  // namespace strata
#endif
