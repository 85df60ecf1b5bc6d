// A consumer of the package: evaluates the Mono3D device model, reads a parameter from JSON and
// finds the installed data from C++ where CMake says it is.
#include <strata/core/data_dir.hpp>
#include <strata/device/mono3d.hpp>
#include <strata/json.hpp>
#include <strata/version.hpp>

#include <filesystem>
#include <system_error>

int main() {
  using namespace strata;
  const auto p = json::parse(R"({"layers": 512, "tiers": 4})").get<mono3d_params<>>();
  const auto r = evaluate(p);
  std::error_code ec;
  const bool data = std::filesystem::equivalent(strata::data_dir(), EXPECT_DATA_DIR, ec) && !ec &&
                    std::filesystem::is_regular_file(std::filesystem::path(strata::data_dir()) / "hf" / "README.md", ec);
  const bool ok = strata::version > 0 && r.tiers.size() == 4 && r.capacity.in(units::GiB) > 15.9 &&
                  r.capacity.in(units::GiB) < 16.1 && data;
  return ok ? 0 : 1;
}
