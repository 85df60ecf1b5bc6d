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

/// The message of the `strata::config_error` that `f()` throws, or "" if it throws none.
template <class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const strata::config_error& e) {
    return e.what();
  }
  return {};
}

/// Saves a process-wide setting (`strata::limits()`, `serving_limits()`, ...) and restores it at
/// the end of the scope, so a test that lowers a limit leaves the others as they were.
template <class T>
class scoped_restore {
 public:
  explicit scoped_restore(T& ref) : ref_(ref), saved_(ref) {}
  ~scoped_restore() { ref_ = saved_; }
  scoped_restore(const scoped_restore&) = delete;
  scoped_restore& operator=(const scoped_restore&) = delete;
  /// The value saved at the start of the scope.
  [[nodiscard]] const T& saved() const { return saved_; }

 private:
  T& ref_;
  T saved_;
};

}  // namespace strata_test
