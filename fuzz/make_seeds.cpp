// SPDX-License-Identifier: MIT
// Writes the JSON seeds of fuzz_param_json (the presets and defaults as JSON) into argv[1] and,
// given argv[2], the seeds of fuzz_dqn_checkpoint (small Double DQN checkpoints) into argv[2] and,
// given argv[3], the seeds of fuzz_sweep_csv (sweeps' CSV written by csv_writer) into argv[3].
#include <cstdint>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "strata/baseline/gpu.hpp"
#include "strata/core/json.hpp"
#include "strata/core/sweep.hpp"
#include "strata/core/sweep_io.hpp"
#include "strata/device/mono3d.hpp"
#include "strata/stratum/system.hpp"
#include "strata/stratum/placement.hpp"
#include "strata/hcrmap/dqn_json.hpp"

namespace {

// One point of fuzz_sweep_csv's seed sweep: numbers, a boolean and a text that CSV quotes.
struct seed_point {
  double tokens_per_s = 0.0;
  bool feasible = true;
  std::string reason;
  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("tokens_per_s", s.tokens_per_s);
    v("feasible", s.feasible);
    v("reason", s.reason);
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 4) {
    std::cerr << "usage: make_seeds <param json dir> [<dqn checkpoint dir> [<sweep csv dir>]]\n";
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
  if (argc >= 3) {
    // Checkpoints small enough for the fuzzer's -max_len: a linear Q, one and two hidden layers.
    const std::string dqn_dir = argv[2];
    const auto save = [&](const std::string& name, int features, std::vector<int> hidden) {
      strata::dqn_params p;
      p.hidden = std::move(hidden);
      std::ofstream(dqn_dir + "/" + name) << strata::save_dqn_checkpoint(strata::dqn_agent(features, p), -1) << "\n";
    };
    save("linear_f6.json", 6, {});
    save("mlp_f4_h8.json", 4, {8});
    save("mlp_f5_h12_h6.json", 5, {12, 6});
  }
  if (argc == 4) {
    // fuzz_sweep_csv: the first byte selects the plot (fuzz_sweep_csv.cpp); then a sweep's CSV as
    // csv_writer writes it, numbers and a quoted text column (a struct result with visit_fields).
    auto space = strata::cartesian({strata::list_axis("batch", {1, 8}), strata::integer_axis("context", 512, 2048, 512)});
    std::ostringstream csv;
    strata::csv_writer writer(csv, space, {});
    strata::sweep_options options{.threads = 1};
    strata::stream_sweep(space, [](const strata::design_point& x) {
      const double b = x.as_int("batch"), s = x.as_int("context");
      return seed_point{b * 1e6 / (s + 1e4 * b), b * s < 16384, b * s < 16384 ? "" : "KV \"cache\", too large"};
    }, writer, options);
    const std::string sweep_dir = argv[3];
    for (std::uint8_t opt : {std::uint8_t{1}, std::uint8_t{7}, std::uint8_t{12}}) {
      std::ofstream(sweep_dir + "/sweep_" + std::to_string(opt) + ".csv", std::ios::binary) << static_cast<char>(opt) << csv.str();
    }
  }
  return 0;
}
