// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Umbrella header: every public strata header. Prefer the individual headers in libraries that
/// care about compile time; `strata/json.hpp` adds JSON (nlohmann/json).

#include "strata/version.hpp"

#include "strata/core/cost.hpp"
#include "strata/core/error.hpp"
#include "strata/core/limits.hpp"
#include "strata/core/rng.hpp"
#include "strata/core/scalar.hpp"
#include "strata/core/sensitivity.hpp"
#include "strata/core/solve.hpp"
#include "strata/core/sweep.hpp"
#include "strata/core/sweep_io.hpp"
#include "strata/core/tier.hpp"
#include "strata/core/units.hpp"

#include "strata/tech/bounds.hpp"
#include "strata/tech/ddr5.hpp"
#include "strata/tech/logic_7nm.hpp"

#include "strata/device/dram_energy.hpp"
#include "strata/device/logic_die.hpp"
#include "strata/device/logic_die_blocks.hpp"
#include "strata/device/logic_die_params.hpp"
#include "strata/device/mono3d.hpp"
#include "strata/device/mono3d_calibration.hpp"
#include "strata/device/rc_ladder.hpp"
#include "strata/device/stratum_chip.hpp"

#include "strata/chiplet/capacity.hpp"
#include "strata/chiplet/critical_path.hpp"
#include "strata/chiplet/residency.hpp"
#include "strata/chiplet/scale_out.hpp"
#include "strata/chiplet/substrate.hpp"
#include "strata/chiplet/token_groups.hpp"
#include "strata/chiplet/window.hpp"

#include "strata/stratum/placement.hpp"
#include "strata/stratum/row_swap.hpp"
#include "strata/stratum/tiering.hpp"
#include "strata/stratum/usage.hpp"

#include "strata/workload/footprint.hpp"
#include "strata/workload/hf_config.hpp"
#include "strata/workload/model.hpp"
#include "strata/workload/operators.hpp"
#include "strata/workload/presets.hpp"
#include "strata/workload/roofline.hpp"
#include "strata/workload/trace.hpp"
#include "strata/workload/trace_gen.hpp"
#include "strata/workload/trace_io.hpp"

#include "strata/baseline/gpu.hpp"
#include "strata/baseline/gpu_measurements_data.hpp"
#include "strata/baseline/hbm_nmp.hpp"
#include "strata/baseline/measurements_io.hpp"
#include "strata/baseline/validation.hpp"
#include "strata/stratum/attention_mapping.hpp"
#include "strata/stratum/energy_parts.hpp"
#include "strata/stratum/expert_mapping.hpp"
#include "strata/stratum/nmp.hpp"
#include "strata/stratum/system.hpp"

#include "strata/hcrmap/controller.hpp"
#include "strata/hcrmap/experiment.hpp"
#include "strata/hcrmap/layer_eval.hpp"
#include "strata/hcrmap/placement.hpp"
#include "strata/hcrmap/policies.hpp"
#include "strata/hcrmap/token_mapper.hpp"

#include "strata/hcrmap/dqn.hpp"
#include "strata/hcrmap/dqn_json.hpp"
#include "strata/hcrmap/dqn_train.hpp"
#include "strata/hcrmap/q_network.hpp"
#include "strata/hcrmap/replay.hpp"

#include "strata/report/paper.hpp"
#include "strata/report/paper_rows.hpp"
#include "strata/report/stratum_rows.hpp"
#include "strata/report/validation_rows.hpp"
#include "strata/report/placement.hpp"
#include "strata/report/hcrmap_rows.hpp"

#include "strata/json.hpp"
