// A consumer of the package: evaluates the Mono3D device model and reads a parameter from JSON.
#include <strata/device/mono3d.hpp>
#include <strata/json.hpp>
#include <strata/version.hpp>

int main() {
  using namespace strata;
  const auto p = json::parse(R"({"layers": 512, "tiers": 4})").get<mono3d_params<>>();
  const auto r = evaluate(p);
  const bool ok = strata::version > 0 && r.tiers.size() == 4 && r.capacity.in(units::GiB) > 15.9 &&
                  r.capacity.in(units::GiB) < 16.1;
  return ok ? 0 : 1;
}
