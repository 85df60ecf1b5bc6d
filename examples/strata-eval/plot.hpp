// strata-eval: a scenario's plot files, shared by `run --plot` (points collected as the sweep runs)
// and `plot` (points read from a gathered table): DIR/<name>.csv, .dat, .gp and, when gnuplot is
// on PATH, .png and .svg (defined in run.cpp).
#pragma once

#include <initializer_list>  // std::initializer_list, the inputs refused
#include <string>            // std::string
#include <string_view>       // std::string_view
#include <vector>            // std::vector

#include "strata/report/scenario.hpp"
#include "strata/report/scenario_io.hpp"

namespace strata_eval {

// Refuses (config_error, role "plot") a plot file of scenario `s` in `dir` that names one of
// `inputs`; checked before anything runs.
void refuse_scenario_plot_inputs(const strata::scenario& s, const std::string& dir, std::initializer_list<std::string_view> inputs);

// Writes DIR/<name>.csv (`table_csv`), .dat and .gp from `points`, then renders .png and .svg with
// gnuplot when it is on PATH. Returns the exit status: 0, or 1 when gnuplot fails (existing
// images are left as they were).
int write_scenario_plot(const strata::scenario& s, const std::string& dir, const std::string& table_csv,
                        const std::vector<strata::plot_point>& points);

}  // namespace strata_eval
