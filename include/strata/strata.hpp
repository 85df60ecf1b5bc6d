// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Umbrella header: every public strata header but the scenario front end (`report/scenario*.hpp`,
/// the study files of `strata-eval run`, included on their own: its study model instantiates the
/// Stratum and HCRMap evaluations and would add about half again to this header's compile time).
/// Prefer the individual headers in libraries that care about compile time; `strata/json.hpp`
/// adds JSON (nlohmann/json).
///
/// Functions defined in the headers outside class templates (free functions, member functions
/// of non-template classes, constructors with arguments) are `template <class = void>`: a
/// translation unit instantiates the templates a function's body uses only when it calls the
/// function, so including this header costs parsing, not every model's instantiation
/// (docs/speed.md, "Functions are instantiated where they are called").

#include "strata/version.hpp"

#include "strata/core/cost.hpp"
#include "strata/core/error.hpp"
#include "strata/core/limits.hpp"
#include "strata/core/rng.hpp"
#include "strata/core/scalar.hpp"
#include "strata/core/sensitivity.hpp"
#include "strata/core/sensitivity_io.hpp"
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
#include "strata/stratum/prediction_gain.hpp"
#include "strata/stratum/row_swap.hpp"
#include "strata/stratum/tiering.hpp"
#include "strata/stratum/usage.hpp"

#include "strata/workload/expert_counts.hpp"
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
#include "strata/baseline/baseline_gpu.hpp"
#include "strata/baseline/gpu_knob_set.hpp"
#include "strata/baseline/validated_gpu.hpp"
#include "strata/baseline/validated_gpu_fwd.hpp"
#include "strata/baseline/coverage.hpp"
#include "strata/stratum/attention_mapping.hpp"
#include "strata/stratum/design_optimiser.hpp"
#include "strata/stratum/energy_parts.hpp"
#include "strata/stratum/expert_mapping.hpp"
#include "strata/stratum/nmp.hpp"
#include "strata/stratum/system.hpp"
#include "strata/stratum/serving/classifier.hpp"
#include "strata/stratum/serving/requests.hpp"
#include "strata/stratum/serving/scheduler.hpp"
#include "strata/stratum/serving/simulator.hpp"
#include "strata/stratum/serving/step_costs.hpp"
#include "strata/stratum/serving/topic_usage.hpp"

#include "strata/hcrmap/action.hpp"
#include "strata/hcrmap/controller.hpp"
#include "strata/hcrmap/controller_params.hpp"
#include "strata/hcrmap/critical_estimate.hpp"
#include "strata/hcrmap/experiment.hpp"
#include "strata/hcrmap/experiment_params.hpp"
#include "strata/hcrmap/experiment_result.hpp"
#include "strata/hcrmap/layer_eval.hpp"
#include "strata/hcrmap/migration_copy.hpp"
#include "strata/hcrmap/pim.hpp"
#include "strata/hcrmap/placement.hpp"
#include "strata/hcrmap/policies.hpp"
#include "strata/hcrmap/reward.hpp"
#include "strata/hcrmap/scorer.hpp"
#include "strata/hcrmap/serving.hpp"
#include "strata/hcrmap/sweeps.hpp"
#include "strata/hcrmap/token_mapper.hpp"
#include "strata/hcrmap/trace_replay.hpp"
#include "strata/hcrmap/trace_replay_json.hpp"
#include "strata/hcrmap/trace_split.hpp"

#include "strata/hcrmap/controller_training.hpp"
#include "strata/hcrmap/dqn.hpp"
#include "strata/hcrmap/dqn_json.hpp"
#include "strata/hcrmap/dqn_scorer.hpp"
#include "strata/stratum/serving/serving_json.hpp"
#include "strata/hcrmap/dqn_train.hpp"
#include "strata/hcrmap/q_network.hpp"
#include "strata/hcrmap/replay.hpp"

#include "strata/report/paper.hpp"
#include "strata/report/paper_io.hpp"
#include "strata/report/paper_json.hpp"
#include "strata/report/paper_row.hpp"
#include "strata/report/paper_rows.hpp"
#include "strata/report/stratum_rows.hpp"
#include "strata/report/validation_rows.hpp"
#include "strata/report/placement.hpp"
#include "strata/report/hcrmap_rows.hpp"
#include "strata/report/serving_rows.hpp"
#include "strata/report/serving_validation_rows.hpp"

#include "strata/json.hpp"
