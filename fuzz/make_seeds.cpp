// SPDX-License-Identifier: MIT
// Writes the JSON seeds of fuzz_param_json (the presets and defaults as JSON) into argv[1].
#include <fstream>
#include <iostream>
#include <string>

#include "strata/baseline/gpu.hpp"
#include "strata/core/json.hpp"
#include "strata/device/mono3d.hpp"
#include "strata/stratum/system.hpp"
#include "strata/stratum/placement.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: make_seeds <dir>\n";
    return 2;
  }
  const std::string dir = argv[1];
  const auto write = [&](const std::string& name, const strata::json& j) {
    std::ofstream(dir + "/" + name) << j.dump(1) << "\n";
  };
  write("h100_sxm5.json", strata::json(strata::h100_sxm5()));
  write("rtx_a6000.json", strata::json(strata::rtx_a6000()));
  write("machine_h100x2.json", strata::json(strata::make_machine(strata::h100_sxm5(), 2)));
  write("mono3d.json", strata::json(strata::mono3d_params<>{}));
  write("stratum_s.json", strata::json(strata::stratum_s()));
  write("stratum_xl_hbm.json", strata::json(strata::with_hbm_nmp(strata::stratum_xl())));
  write("placement_olmoe.json", strata::json(strata::expert_placement_params<>{}));
  write("h100_nvl.json", strata::json::parse(
                             R"({"name": "H100 NVL", "memory_capacity": "94 GiB", "memory_bandwidth": "3.9 TB/s"})"));
  return 0;
}
