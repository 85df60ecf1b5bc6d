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
/// command-line argument), then in the data directory. A path spelt as in the source tree
/// (`tests/data/hf/mixtral-8x7b.config.json`, `examples/scenarios/fig14_layers_tiers.json`,
/// `examples/sweeps/…`, as README and docs/ write them) is also looked for under its installed
/// name in the data directory (`hf/mixtral-8x7b.config.json`, `scenarios/fig14_layers_tiers.json`,
/// `sweeps/…`), so those commands run from an installed prefix alone.
///
/// \code
///   const auto trace = std::filesystem::path(strata::data_dir()) / "traces/dsv2lite_esft_trace_intent.csv";
/// \endcode

#include <cstddef>       // std::size_t
#include <cstdlib>       // std::getenv
#include <filesystem>    // std::filesystem::exists, path
#include <string>        // std::string
#include <string_view>   // std::string_view
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

/// The name in the data directory of a relative path spelt as in the source tree, by the install
/// rules of CMakeLists.txt: `tests/data/X` is `X`, `examples/scenarios/X` is `scenarios/X`,
/// `examples/sweeps/X` is `sweeps/X` (a leading `./` ignored); any other path: empty.
template <class = void>
inline std::string installed_data_name(std::string_view path) {
  while (path.substr(0, 2) == "./") path.remove_prefix(2);
  constexpr std::string_view from[] = {"tests/data/", "examples/scenarios/", "examples/sweeps/"};
  constexpr std::string_view to[] = {"", "scenarios/", "sweeps/"};
  for (std::size_t i = 0; i < 3; ++i) {
    if (path.size() > from[i].size() && path.substr(0, from[i].size()) == from[i]) {
      return std::string(to[i]) + std::string(path.substr(from[i].size()));
    }
  }
  return {};
}

/// An input path named by a file in directory `named_in` (the working directory: "" or "."):
/// absolute, as given; relative, `named_in`/`path` when a file is there, else `data`/`path` when
/// one is there, else `data`/`installed_data_name(path)` when one is there (a source-tree name,
/// file comment), else `named_in`/`path` (the error of the reader then names the first place
/// looked). Empty stays empty.
template <class = void>
inline std::string resolve_input_path(const std::string& path, const std::string& named_in, const std::string& data) {
  namespace fs = std::filesystem;
  if (path.empty() || fs::path(path).is_absolute()) return path;
  const auto in = [](const std::string& dir, const std::string& p) {
    return dir.empty() || dir == "." ? p : (fs::path(dir) / p).string();
  };
  std::error_code ec;
  std::string first = in(named_in, path);
  if (fs::exists(first, ec) || data.empty()) return first;
  std::string second = in(data, path);
  if (fs::exists(second, ec)) return second;
  if (const std::string name = installed_data_name(path); !name.empty()) {
    std::string third = in(data, name);
    if (fs::exists(third, ec)) return third;
  }
  return first;
}

}  // namespace v0
}  // namespace strata
