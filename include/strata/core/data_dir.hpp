// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Where strata's data is: the routing traces and count tables (with their sources and licenses),
/// the HCRMap controller's checkpoint, the GPU measurements, the Hugging Face configs and the
/// example scenarios — `tests/data/` and `examples/scenarios/` in the source tree, installed as
/// `<prefix>/share/strata/`.
///
/// `data_dir()` is, first that applies:
///   1. `STRATA_DATA_DIR` in the environment (non-empty);
///   2. the directory the build system gave the translation unit: linking `strata::strata`
///      defines `STRATA_DEFAULT_DATA_DIR` as `<prefix>/share/strata` for an installed package and
///      the source tree's `tests/data` for a build tree or `add_subdirectory` (the CMake package
///      also sets the variable `STRATA_DATA_DIR`);
///   3. none: an empty string.
/// The programs (`strata-eval`, `strata-paper-report`) follow the same order after their
/// `--data-dir` option and find an installed prefix from their own path, so a moved prefix works.
///
/// Relative paths follow one rule everywhere (`resolve_input_path`): first beside whatever named
/// them (the directory of the scenario file that holds the path; the working directory for a
/// command-line argument), then in the data directory.
///
/// \code
///   const auto trace = std::filesystem::path(strata::data_dir()) / "traces/dsv2lite_esft_trace_intent.csv";
/// \endcode

#include <cstdlib>       // std::getenv
#include <filesystem>    // std::filesystem::exists, path
#include <string>        // std::string
#include <system_error>  // std::error_code

namespace strata {
inline namespace v0 {

/// The data directory by the rule of the file comment; empty when none is known.
template <class = void>
inline std::string data_dir() {
  if (const char* env = std::getenv("STRATA_DATA_DIR"); env != nullptr && *env != '\0') return env;
#ifdef STRATA_DEFAULT_DATA_DIR
  return STRATA_DEFAULT_DATA_DIR;
#else
  return {};
#endif
}

/// An input path named by a file in directory `named_in` (the working directory: "" or "."):
/// absolute, as given; relative, `named_in`/`path` when a file is there, else `data`/`path` when
/// one is there, else `named_in`/`path` (the error of the reader then names the first place
/// looked). Empty stays empty.
template <class = void>
inline std::string resolve_input_path(const std::string& path, const std::string& named_in, const std::string& data) {
  namespace fs = std::filesystem;
  if (path.empty() || fs::path(path).is_absolute()) return path;
  const auto in = [&](const std::string& dir) {
    return dir.empty() || dir == "." ? path : (fs::path(dir) / path).string();
  };
  std::error_code ec;
  std::string first = in(named_in);
  if (fs::exists(first, ec) || data.empty()) return first;
  std::string second = in(data);
  if (fs::exists(second, ec)) return second;
  return first;
}

}  // namespace v0
}  // namespace strata
