// Where strata's programs find their data: the routing traces and count tables, the DQN checkpoint
// of HCRMap's controller, the GPU measurements, the Hugging Face configs and the example scenarios
// (`tests/data/` and `examples/scenarios/` in the source tree, installed as `share/strata/`).
//
// The data directory is, first that applies:
//   1. `--data-dir DIR` on the command line;
//   2. `STRATA_DATA_DIR` in the environment (non-empty);
//   3. `share/strata` installed beside the program (`<prefix>/bin/../share/strata`, found from the
//      program's own path, so an installed prefix can be moved);
//   4. the source tree's `tests/data`, for a program run from the build tree it was built in.
// None of them: no data directory (paths are taken as given; what needs data says so).
// An installed program never reads the source tree.
#pragma once

#include <cstdlib>     // std::getenv
#include <filesystem>  // std::filesystem
#include <string>      // std::string
#include <system_error>  // std::error_code

namespace strata_programs {

struct data_location {
  std::string dir;   ///< the data directory; empty when none was found
  std::string from;  ///< how: "--data-dir", "STRATA_DATA_DIR", "installed", "build tree", or "none"
};

/// The directory of the running program (Linux: /proc/self/exe), or empty.
inline std::filesystem::path program_dir() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path{} : exe.parent_path();
}

/// The data directory by the rule above; `given` is the value of `--data-dir` (empty: not given).
inline data_location find_data(const std::string& given) {
  if (!given.empty()) return {given, "--data-dir"};
  if (const char* env = std::getenv("STRATA_DATA_DIR"); env != nullptr && *env != '\0') return {env, "STRATA_DATA_DIR"};
  const auto here = program_dir();
  std::error_code ec;
#ifdef STRATA_INSTALLED_DATA_RELATIVE
  if (!here.empty()) {
    const auto installed = (here / STRATA_INSTALLED_DATA_RELATIVE).lexically_normal();
    if (std::filesystem::is_directory(installed, ec)) return {installed.string(), "installed"};
  }
#endif
#if defined(STRATA_SOURCE_DATA_DIR) && defined(STRATA_BUILD_DIR)
  if (!here.empty()) {
    const auto build = std::filesystem::weakly_canonical(STRATA_BUILD_DIR, ec);
    const auto rel = here.lexically_relative(build);
    if (!ec && !rel.empty() && *rel.begin() != "..") return {STRATA_SOURCE_DATA_DIR, "build tree"};
  }
#endif
  return {"", "none"};
}

/// For a message about a file the data directory should hold: where it was looked for and how to
/// choose another directory.
inline std::string data_hint(const data_location& d) {
  const std::string how = "--data-dir DIR or STRATA_DATA_DIR chooses the data directory";
  if (d.dir.empty()) return "no data directory found (" + how + "; an installed program uses <prefix>/share/strata)";
  return "data directory '" + d.dir + "' (from " + d.from + "; " + how + ")";
}

}  // namespace strata_programs
