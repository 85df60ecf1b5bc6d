// SPDX-License-Identifier: MIT
// Shared helpers of the libFuzzer targets (fuzz/README.md): every input must become a result or
// a strata::config_error; anything else (a crash, another exception, a non-finite number in a
// result, an allocation above -malloc_limit_mb) is a finding.
#pragma once

#include <cmath>        // std::isfinite
#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint8_t
#include <cstdio>       // std::fprintf
#include <cstdlib>      // std::abort
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "strata/core/json.hpp"

/// A target's entry point: libFuzzer's `LLVMFuzzerTestOneInput` when the target is a program of its
/// own; in the fused build (fuzz/CMakeLists.txt, STRATA_FUZZ_FUSED) a function `<name>_one_input`
/// that the program `strata_fuzzers` calls for the target its name (`argv[0]`) selects.
#if defined(STRATA_FUZZ_FUSED)
#define STRATA_FUZZ_TARGET(name) int name##_one_input(const std::uint8_t* data, std::size_t size)
#else
#define STRATA_FUZZ_TARGET(name) extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
#endif

namespace strata_fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// Aborts (a finding) with `what`.
[[noreturn]] inline void finding(const char* what, double v = 0.0) {
  std::fprintf(stderr, "strata fuzz finding: %s (%g)\n", what, v);
  std::abort();
}

inline void require_finite(double v, const char* what) {
  if (!std::isfinite(v)) finding(what, v);
}

/// Walks a JSON value without recursion and aborts if a number, or a quantity string such as
/// "inf s", is not finite.
inline void require_finite_json(const strata::json& root, const char* what) {
  std::vector<const strata::json*> stack{&root};
  while (!stack.empty()) {
    const strata::json* j = stack.back();
    stack.pop_back();
    if (j->is_structured()) {
      for (const auto& e : *j) stack.push_back(&e);
    } else if (j->is_number_float()) {
      require_finite(j->get<double>(), what);
    } else if (j->is_string()) {
      const auto& s = j->get_ref<const std::string&>();
      if (s.rfind("inf", 0) == 0 || s.rfind("-inf", 0) == 0 || s.rfind("nan", 0) == 0 ||
          s.rfind("-nan", 0) == 0) {
        finding(what, 0.0);
      }
    }
  }
}

/// Runs `f`; a config_error is an accepted outcome, any other exception a finding.
template <class F>
int run(F&& f) {
  try {
    f();
  } catch (const strata::config_error&) {
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "strata fuzz finding: exception other than config_error: %s\n", e.what());
    std::abort();
  }
  return 0;
}

}  // namespace strata_fuzz
