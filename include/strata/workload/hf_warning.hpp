// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// A config key the Hugging Face reader (`hf_config.hpp`) left unread although it may change a
/// step's time or memory; apart from the reader so that code that reports warnings
/// (`baseline/coverage.hpp`) does not pull in nlohmann/json.

#include <string>  // std::string

namespace strata {
inline namespace v0 {

/// A config key the reader left unread although it may change a step's time or memory.
struct hf_warning {
  std::string key;      ///< JSON key path, e.g. "num_nextn_predict_layers"
  std::string message;  ///< "[strata.hf_config] <file>: <key> is ignored: <why>"
};

}  // namespace v0
}  // namespace strata
