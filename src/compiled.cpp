// SPDX-License-Identifier: MIT
// strata::compiled (CMake option STRATA_BUILD_COMPILED): the `double` instantiations of the heavy
// model templates, compiled once. The headers declare them `extern template` when STRATA_COMPILED
// is 1 (this file is compiled with it too, so every declaration is checked against its definition
// here); a translation unit that links strata::compiled gets the definition from its target and
// instantiates none of them. Header-only use (no STRATA_COMPILED) is unchanged.
#if !defined(STRATA_COMPILED) || !STRATA_COMPILED
#error "src/compiled.cpp is built with STRATA_COMPILED=1 (the strata_compiled target sets it)"
#endif

#include "strata/baseline/coverage.hpp"
#include "strata/baseline/gpu.hpp"
#include "strata/baseline/validated_gpu.hpp"
#include "strata/chiplet/residency.hpp"
#include "strata/chiplet/substrate.hpp"
#include "strata/chiplet/window.hpp"
#include "strata/core/error.hpp"
#include "strata/core/sweep.hpp"
#include "strata/core/sweep_io.hpp"
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
template gpu_params gpu_preset<void>(std::string_view);

// baseline/coverage.hpp (the coverage check of `strata-eval eval`: a verdict per model and machine)
template std::string coverage_verdict::text<void>() const;
template std::vector<std::string> preset_ignored_keys<void>(std::string_view);
template std::string detail::coverage_key_reason<void>(const std::string&);
template mapping_check mapping_coverage<void>(const model&, int, const parallelism&);
template coverage_verdict model_coverage<void>(const model&, const roofline_machine&, const std::vector<std::string>&,
                                               const parallelism&);
template void add_knobs_reason<void>(coverage_verdict&, std::string_view);
template std::vector<std::string> warning_keys<void>(const std::vector<hf_warning>&);
template coverage_verdict gpu_coverage<void>(const model&, std::string_view, const std::vector<std::string>&,
                                             const step_shape&, int);
template coverage_verdict stratum_coverage<void>(const model&, const std::vector<std::string>&);

// baseline/validated_gpu.hpp
template const fit_result& detail::published_gpu_fit<double>();
template gpu_params detail::with_published_knobs<double>(gpu_params);
template int published_rows_on<void>(std::string_view);
template std::string knobs_note<void>(std::string_view);
template std::string knobs_note<void>(std::string_view, gpu_knob_set);

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

// core/error.hpp (the failing path of `require`, for the value types the checks name)
template std::string detail::to_text<double>(const double&);
template void detail::fail_require<double>(const char*, const detail::field_path&, const double&, const char*);
template void detail::fail_require<int>(const char*, const detail::field_path&, const int&, const char*);
template void detail::fail_require<unsigned>(const char*, const detail::field_path&, const unsigned&, const char*);
template void detail::fail_require<long long>(const char*, const detail::field_path&, const long long&, const char*);
template void detail::fail_require<std::size_t>(const char*, const detail::field_path&, const std::size_t&,
                                                const char*);
template void detail::fail_require<std::string>(const char*, const detail::field_path&, const std::string&,
                                                const char*);

// core/sweep.hpp, core/sweep_io.hpp (a sweep to CSV: the axes, the space, the shard logic and the
// writers' parts that do not depend on the caller's model or result type)
template sweep_axis list_axis<void>(std::string, std::vector<double>);
template sweep_axis linear_axis<void>(std::string, double, double, std::size_t);
template sweep_axis log_axis<void>(std::string, double, double, std::size_t);
template sweep_axis integer_axis<void>(std::string, long long, long long, long long);
template std::size_t sweep_space::index_of<void>(std::string_view) const;
template void sweep_space::point<void>(std::size_t, std::vector<double>&) const;
template std::vector<double> sweep_space::point<void>(std::size_t) const;
template void sweep_space::add_group<void>(std::vector<sweep_axis>);
template void sweep_space::multiply<void>(std::size_t);
template design_point::design_point(const sweep_space&, std::size_t);
template int design_point::as_int<void>(std::string_view) const;
template void design_point::set<void>(std::size_t);
template void validate<void>(const sweep_shard&);
template sweep_shard parse_shard<void>(std::string_view, shard_layout);
template shard_points points_of<void>(const sweep_shard&, std::size_t);
template unsigned detail::sweep_threads<void>(const sweep_options&);
template shard_points detail::sweep_plan<void>(const sweep_space&, const sweep_options&);
template std::string_view detail::number_text<void>(double, std::array<char, 32>&);
template std::string_view detail::integer_text<void>(long long, std::array<char, 32>&);
template void detail::write_csv_text<void>(std::ostream&, std::string_view);
template std::size_t detail::utf8_char_length<void>(std::string_view, std::size_t);
template void detail::write_json_string<void>(std::ostream&, std::string_view);
template bool detail::writes_header<void>(header_policy, const sweep_shard&);
template csv_writer::csv_writer(std::ostream&, const sweep_space&, const sweep_shard&, table_options);
template std::function<void(const sweep_progress&)> stderr_progress<void>(std::string);

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
                                       const usage_table&, const stratum_placement*, expert_chips_keep*);
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
