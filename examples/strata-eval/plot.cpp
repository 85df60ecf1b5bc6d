// strata-eval plot: the plot of a scenario's table computed elsewhere (a Slurm array job's shards
// gathered by scripts/slurm_sweep.sh collect), without evaluating a point.
//
//   strata-eval plot SCENARIO.json TABLE.csv --plot DIR   DIR/<name>.csv, .dat, .gp and, when
//                                                         gnuplot is on PATH, .png and .svg
//
// The files are those `strata-eval run SCENARIO.json --plot DIR` writes, byte for byte, for the
// table that run writes. The table is read under the opening rule (a regular file within
// strata::limits().table_file_bytes) and checked against the scenario
// (strata/report/scenario_table.hpp): its header, a number in every field, the points 0, 1, 2,
// ... in order with the scenario's axis values, and all of them; a bad line is an error naming
// file:line. Exit status: 0 on success, 1 on a bad scenario or table or a plot that cannot be
// rendered, 2 on a bad command line. A plot file that names an input is refused before anything
// is written; the files are written to temporary files renamed when complete.

#include <memory>  // std::make_shared
#include <string>  // std::string

#include "cli.hpp"
#include "plot.hpp"
#include "strata/core/files.hpp"
#include "strata/report/scenario_json.hpp"
#include "strata/report/scenario_table.hpp"

namespace strata_eval {

command add_plot(CLI::App& app) {
  struct options {
    std::string scenario, table, plot;
  };
  auto o = std::make_shared<options>();
  CLI::App* sub = app.add_subcommand("plot", "the plot of a scenario's table computed elsewhere (shards gathered "
                                             "from a Slurm array job), without recomputing it");
  sub->add_option("scenario", o->scenario, "the scenario JSON file the table was run from")->required();
  sub->add_option("table", o->table, "the table (CSV) strata-eval run wrote, or its shards concatenated in order")->required();
  sub->add_option("--plot", o->plot, "write DIR/<name>.csv, .dat, .gp and render .png and .svg with gnuplot")->required();
  return {sub, [o]() -> int {
            const auto s = strata::read_scenario(
                strata::read_input_file(o->scenario, "scenario", strata::limits().json_file_bytes, "json_file_bytes"),
                o->scenario);
            if (!s.plot.enabled) {
              throw strata::config_error("plot", "[strata.scenario] " + o->scenario +
                                                     ": plot needs a plot key in the scenario (x, y, series)");
            }
            refuse_scenario_plot_inputs(s, o->plot, {o->scenario, o->table});
            const std::string text =
                strata::read_input_file(o->table, "table", strata::limits().table_file_bytes, "table_file_bytes");
            const auto points = strata::parse_scenario_table(text, s, strata::detail::message_path(o->table));
            return write_scenario_plot(s, o->plot, text, points);
          }};
}

}  // namespace strata_eval
