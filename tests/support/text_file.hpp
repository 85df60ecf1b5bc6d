// Shared test helper: a repository file's text.
#pragma once

#include <doctest/doctest.h>

#include <filesystem>  // std::filesystem::path
#include <fstream>     // std::ifstream
#include <sstream>     // std::ostringstream
#include <string>      // std::string

namespace strata_test {

/// The repository root (tests/data/../..).
inline std::filesystem::path repo_root_dir() { return std::filesystem::path(STRATA_TEST_DATA_DIR) / ".." / ".."; }

/// The whole text of `p`; the test fails if it cannot be opened.
inline std::string text_of_file(const std::filesystem::path& p) {
  std::ifstream in(p);
  REQUIRE(in);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace strata_test
