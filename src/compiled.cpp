// SPDX-License-Identifier: MIT
// strata::compiled (CMake option STRATA_BUILD_COMPILED): the `double` instantiations of the heavy
// model templates, compiled once. The headers declare them `extern template` when STRATA_COMPILED
// is 1 (this file is compiled with it too, so every declaration is checked against its definition
// here); a translation unit that links strata::compiled gets the definition from its target and
// instantiates none of them. Header-only use (no STRATA_COMPILED) is unchanged.
#if !defined(STRATA_COMPILED) || !STRATA_COMPILED
#error "src/compiled.cpp is built with STRATA_COMPILED=1 (the strata_compiled target sets it)"
#endif

#include "strata/baseline/gpu.hpp"
#include "strata/baseline/validated_gpu.hpp"
#include "strata/chiplet/residency.hpp"
#include "strata/chiplet/substrate.hpp"
#include "strata/chiplet/window.hpp"
#include "strata/device/logic_die.hpp"
#include "strata/device/mono3d.hpp"
#include "strata/device/stratum_chip.hpp"
#include "strata/stratum/system.hpp"
#include "strata/stratum/usage.hpp"
#include "strata/workload/hf_config.hpp"
#include "strata/workload/model.hpp"
#include "strata/workload/presets.hpp"
#include "strata/workload/roofline.hpp"

namespace strata {
inline namespace v0 {

// baseline/gpu.hpp (issue 46: the step program of docs/using.md, on the fewest GPUs that hold a model)
template void validate<void>(const gpu_params&);
template roofline_machine make_machine<void>(const gpu_params&, int);
template gpu_fit check_fit<void>(const gpu_params&, int, const model&, const step_shape&);
template gpu_fit check_fit<void>(const gpu_params&, int, const model&, const step_shape&, const parallelism&);
template int min_devices<void>(const gpu_params&, const model&, const step_shape&, std::string*, int);

// baseline/validated_gpu.hpp
template const fit_result& detail::published_gpu_fit<double>();
template gpu_params detail::with_published_knobs<double>(gpu_params);

// chiplet/substrate.hpp, chiplet/residency.hpp
template void detail::validate_substrate<double>(const substrate_params&);
template void substrate::build_<double>();
template void detail::validate_residency<double>(const residency_params&, const substrate&);
template residency detail::make_single_copy_static<double>(const substrate&, int, int, data_size<>, residency_params);

// chiplet/window.hpp
template window_result evaluate_window<double>(const substrate&, const model&, const residency&,
                                               const std::vector<std::vector<token_group>>&, const window_spec&,
                                               const critical_path_params&, const token_mapper&,
                                               const std::vector<migration>&);

// workload/hf_config.hpp (issue 46: a step from a config.json), workload/presets.hpp
template hf_read_result read_hf_config_with_warnings<void>(const json&, std::string);
template model read_hf_config<void>(const json&, std::string);
template hf_read_result load_hf_config_with_warnings<void>(const std::string&);
template model load_hf_config<void>(const std::string&);
template model preset<void>(std::string_view);

// workload/model.hpp
template void detail::validate_model<double>(const model&);

// workload/roofline.hpp
template void validate(const basic_roofline_machine<double>&);
template basic_step_result<double> evaluate(const std::vector<op>&, const step_shape&, int,
                                            const basic_roofline_machine<double>&, step_breakdown);
template capacity_check check_capacity(const basic_roofline_machine<double>&, const footprint&);
template basic_step_result<double> evaluate(const layered_step&, const basic_roofline_machine<double>&, step_breakdown);
template basic_step_result<double> evaluate(const model&, const step_shape&, const basic_roofline_machine<double>&,
                                            const expert_histogram&, step_breakdown);

// device/mono3d.hpp
template void validate(const mono3d_params<double>&);
template mono3d_result<double> evaluate(const mono3d_params<double>&);
template std::vector<memory_tier<double>> memory_tiers(const mono3d_params<double>&, const mono3d_result<double>&);
template std::vector<strata::duration<double>> latency_profile(const mono3d_params<double>&);

// device/logic_die.hpp
template logic_die_result<double> evaluate_numbers(const logic_die_params<double>&, const strata::bandwidth<double>&,
                                                  const double&);
template logic_die_result<double> evaluate(const logic_die_params<double>&, const strata::bandwidth<double>&,
                                          const double&);
template logic_die_result<double> evaluate(const logic_die_params<double>&, const strata::bandwidth<double>&);

// device/stratum_chip.hpp
template void validate(const stratum_chip_params<double>&);
template stratum_chip_result<double> evaluate(const stratum_chip_params<double>&);

// stratum/usage.hpp
template usage_table detail::make_usage_from_hit_rate<double>(int, int, int, double, int);

// stratum/system.hpp
template void validate(const stratum_system_params<double>&);
template nmp_device<double> system_device(const stratum_system_params<double>&);
template stratum_machine<double> prepare(const stratum_system_params<double>&);
template stratum_placement place_model(const stratum_machine<double>&, const model&, const step_shape&,
                                       const usage_table&, const stratum_placement*);
template stratum_step_result<double> evaluate_decode(const stratum_machine<double>&, const stratum_placement&,
                                                     const model&, const step_shape&, const usage_table&,
                                                     decode_breakdown);
template stratum_step_result<double> evaluate_decode(const stratum_machine<double>&, const model&, const step_shape&,
                                                     const stratum_usage&, decode_breakdown);
template stratum_step_result<double> evaluate_decode(const stratum_system_params<double>&, const model&,
                                                     const step_shape&, const stratum_usage&, decode_breakdown);
template basic_step_result<double> evaluate_prefill(const stratum_system_params<double>&, const model&,
                                                    const step_shape&);

}  // namespace v0
}  // namespace strata
