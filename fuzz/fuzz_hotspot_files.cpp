// SPDX-License-Identifier: MIT
// Fuzz target: HotSpot's input formats (include/strata/thermal/hotspot_io.hpp). The first byte
// picks the reader (.flp, .ptrace, .config, .lcf); a floorplan that parses is also solved with
// the block model under a uniform power density, whose temperatures must be finite.
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "strata/thermal/hotspot_io.hpp"

STRATA_FUZZ_TARGET(fuzz_hotspot_files) {
  if (size == 0) return 0;
  namespace th = strata::thermal;
  const auto text = strata_fuzz::as_text(data + 1, size - 1);
  // Bound the work one input can ask for: a block model's neighbour search is quadratic.
  strata::limits().thermal_blocks = 256;
  return strata_fuzz::run([&] {
    switch (data[0] & 3) {
      case 0: {
        const auto f = th::parse_flp(text, "fuzz.flp");
        auto m = th::hotspot_2d_model(th::hotspot_config{}, f);
        const auto box = th::bounding_box(f);
        const double side = 1.5 * std::max(box.width_m(), box.height_m());
        m.stack.package.spreader_side_m = std::max(side, 1e-6);
        m.stack.package.sink_side_m = 2 * m.stack.package.spreader_side_m;
        th::block_power p(2);
        for (const auto& b : f.blocks) p[0].push_back(1e4 * b.area_m2());
        p[1].assign(f.blocks.size(), 0.0);
        const auto r = th::steady_state(th::build_thermal_network(m.stack, {}), p);
        for (const auto& l : r.block_K)
          for (double t : l) strata_fuzz::require_finite(t, "block temperature");
        break;
      }
      case 1: {
        const auto t = th::parse_ptrace(text, "fuzz.ptrace");
        for (double v : t.mean()) strata_fuzz::require_finite(v, "mean power");
        break;
      }
      case 2: {
        const auto c = th::parse_hotspot_config(text, "fuzz.config");
        strata_fuzz::require_finite(c.package.ambient_K, "ambient");
        break;
      }
      default: {
        const auto l = th::parse_lcf(text, "fuzz.lcf");
        for (const auto& x : l) strata_fuzz::require_finite(x.thickness_m, "thickness");
        break;
      }
    }
  });
}
