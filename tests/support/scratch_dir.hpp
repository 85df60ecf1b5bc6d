// Shared test helper: a directory of this test process's own under the temporary directory
// (TMPDIR, any path), made with a unique name and removed with everything in it at the end of
// the scope. Tests write only there: no fixed names in TMPDIR, safe under `ctest -jN` and on a
// second run.
#pragma once

#include <stdlib.h>  // mkdtemp (POSIX)

#include <filesystem>  // std::filesystem::temp_directory_path, remove_all
#include <fstream>     // std::ofstream, std::ifstream
#include <iterator>    // std::istreambuf_iterator
#include <stdexcept>   // std::runtime_error
#include <string>      // std::string

namespace strata_test {

class scratch_dir {
 public:
  explicit scratch_dir(const std::string& tag = "test") {
    std::string templ = (std::filesystem::temp_directory_path() / ("strata-" + tag + "-XXXXXX")).string();
    if (mkdtemp(templ.data()) == nullptr) throw std::runtime_error("scratch_dir: mkdtemp failed under " + templ);
    path_ = templ;
  }
  ~scratch_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  scratch_dir(const scratch_dir&) = delete;
  scratch_dir& operator=(const scratch_dir&) = delete;

  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  /// The path of `name` inside the directory.
  [[nodiscard]] std::string file(const std::string& name) const { return (path_ / name).string(); }
  /// Writes `text` to `name` inside the directory and returns its path.
  std::string write(const std::string& name, const std::string& text) const {
    const std::string p = file(name);
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }

 private:
  std::filesystem::path path_;
};

/// The whole content of a file ("" if it cannot be opened).
inline std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

}  // namespace strata_test
