// SPDX-License-Identifier: MIT
// strata::compiled, second translation unit: the paper report's row families (issue 46, Deliver
// 1), each family's builder and `paper_rows` instantiated once. Their headers declare them `extern
// template` when STRATA_COMPILED is 1 (this file is compiled with it too, so every declaration is
// checked against its definition here, and the models under the rows, which src/compiled.cpp
// holds, are not generated again); a consumer that links strata::compiled and calls a family, or
// `paper_rows`, compiles none of the row code. A file of its own so that the library's two halves
// build side by side (`-j2`) and src/compiled.cpp stays what the models' consumers wait for.
#if !defined(STRATA_COMPILED) || !STRATA_COMPILED
#error "src/compiled_report.cpp is built with STRATA_COMPILED=1 (the strata_compiled target sets it)"
#endif

#include "strata/report/paper_rows.hpp"

namespace strata {
inline namespace v0 {

// report/stratum_device_rows.hpp, stratum_logic_rows.hpp, stratum_chip_rows.hpp (with
// thermal_rows.hpp), stratum_system_rows.hpp, hcrmap_metadata_rows.hpp: the families of
// report/paper.hpp
template std::vector<paper_row> stratum_device_rows<void>(const mono3d_params<>&, const dram_die_reference<>&);
template std::vector<paper_row> stratum_logic_rows<void>(const logic_die_params<>&, const mono3d_params<>&);
template std::vector<paper_row> stratum_chip_rows<void>(const stratum_chip_params<>&);
template std::vector<paper_row> stratum_thermal_rows<void>(const thermal::stratum_stack_params&);
template std::vector<paper_row> stratum_thermal_rows<void>(const thermal::stratum_stack_params&,
                                                           thermal::steady_factorisation_cache<>&);
template std::vector<paper_row> stratum_system_rows<void>(const mono3d_params<>&);
template std::vector<paper_row> hcrmap_metadata_rows<void>(const substrate_params&);

// report/stratum_rows.hpp, placement.hpp, serving_rows.hpp
template std::vector<paper_row> stratum_result_rows<void>(const stratum_system_params<>&);
template std::vector<paper_row> stratum_placement_rows<void>(const mono3d_params<>&, const logic_die_params<>&);
template std::vector<paper_row> stratum_placement_count_rows<void>(const expert_count_table&);
template std::vector<paper_row> serving_rows<void>(const std::string&, std::int64_t);

// report/hcrmap_rows.hpp
template std::vector<paper_row> hcrmap_policy_rows<void>(const hcrmap_suite&, const std::string&);
template std::vector<paper_row> hcrmap_policy_rows<void>(const std::optional<std::string>&, const controller_value&,
                                                         const hcrmap_suite_progress&, unsigned,
                                                         const std::vector<suite_side_task>&,
                                                         const std::shared_ptr<hcrmap_trace_cache>&);

// report/validation_rows.hpp, serving_validation_rows.hpp
template std::vector<paper_row> validation_rows<void>(const validation_report&);
template std::vector<paper_row> validation_rows<void>();
template std::vector<paper_row> serving_validation_rows<void>(const gpu_params&, const std::string&, const std::string&);
template std::vector<paper_row> serving_validation_rows<void>(const std::optional<std::string>&, const config_reader&);
template std::vector<paper_row> serving_validation_rows<void>();

// report/paper_rows.hpp
template std::vector<paper_row> paper_rows<void>(const paper_report_options&);

}  // namespace v0
}  // namespace strata
