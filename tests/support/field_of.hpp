// Shared test helper: which field a config_error names.
#pragma once

#include <string>  // std::string

#include "strata/core/error.hpp"

namespace strata_test {

/// The field named by the `strata::config_error` that `f()` throws, or "<no config_error>" if it
/// throws none (other exceptions propagate and fail the test).
template <class F>
std::string field_of(F&& f) {
  try {
    f();
  } catch (const strata::config_error& e) {
    return e.field();
  }
  return "<no config_error>";
}

}  // namespace strata_test
