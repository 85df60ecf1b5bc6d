// strata-eval plot: the plot of a scenario's table computed elsewhere (a Slurm array job's shards
// gathered by scripts/slurm_sweep.sh collect), without evaluating a point; or of any sweep's CSV.
//
//   strata-eval plot SCENARIO.json TABLE.csv --plot DIR   DIR/<name>.csv, .dat, .gp and, when
//                                                         gnuplot is on PATH, .png and .svg
//   strata-eval plot --csv FILE --x COL --y COL[,COL...] [--by COL] [--name NAME] [--title TEXT]
//                    [--log-x] [--log-y] --plot DIR      DIR/<name>.dat, .gp and, when gnuplot is
//                                                         on PATH, .png and .svg
//
// With --csv the table is any sweep's CSV (stream_sweep's csv_writer, strata-eval run's table):
// read under the opening rule (role `csv`, strata::limits().table_file_bytes) and bounded by
// strata/report/sweep_plot.hpp (columns, cell length, cells); an unknown column is an error naming
// it and the table's columns, a cell of x or y that is not a number one naming file:line. Standard
// output: one line saying what is plotted, then "wrote <file>" per file written.
//
// The files are those `strata-eval run SCENARIO.json --plot DIR` writes, byte for byte, for the
// table that run writes. The table is read under the opening rule (a regular file within
// strata::limits().table_file_bytes) and checked against the scenario
// (strata/report/scenario_table.hpp): its header, a number in every field, the points 0, 1, 2,
// ... in order with the scenario's axis values, and all of them; a bad line is an error naming
// file:line. Exit status: 0 on success, 1 on a bad scenario or table or a plot that cannot be
// rendered, 2 on a bad command line. A plot file that names an input is refused before anything
// is written; the files are written to temporary files renamed when complete.

#include <filesystem>  // std::filesystem::create_directories
#include <iostream>    // std::cout, std::cerr
#include <memory>      // std::make_shared
#include <sstream>     // std::ostringstream
#include <string>      // std::string
#include <vector>      // std::vector

#include "cli.hpp"
#include "gnuplot.hpp"
#include "plot.hpp"
#include "strata/core/files.hpp"
#include "strata/report/sweep_plot.hpp"
#include "strata/report/scenario_json.hpp"
#include "strata/report/scenario_table.hpp"

namespace strata_eval {

namespace {

// Name of `path`'s file without a last ".csv": the default plot name of a sweep's CSV.
std::string csv_stem(const std::string& path) {
  std::string name = std::filesystem::path(path).filename().string();
  if (name.size() > 4 && name.compare(name.size() - 4, 4, ".csv") == 0) name.erase(name.size() - 4);
  return name;
}

// DIR/<name>.dat and .gp of a sweep's CSV, then .png and .svg rendered by gnuplot when it is on
// PATH (temporary names renamed on success, as the scenario plots). Returns the exit status.
int write_csv_plot(const strata::sweep_csv_table& table, const strata::sweep_plot_spec& spec, const std::string& dir,
                   const std::string& csv_path) {
  const std::string stem = dir + "/" + spec.name;
  for (const char* ext : {".dat", ".gp", ".png", ".svg"}) strata::refuse_input(stem + ext, "plot", {csv_path});
  const auto points = strata::select_sweep_plot(table, spec);
  std::ostringstream dat, gp;
  strata::write_sweep_plot_data(dat, table, spec, points);
  strata::write_sweep_gnuplot_script(gp, table, spec, points);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw strata::config_error("plot", "[strata.sweep_plot] cannot create " + quoted(dir) + ": " + ec.message());
  strata::output_file::write(stem + ".dat", "plot", dat.str());
  strata::output_file::write(stem + ".gp", "plot", gp.str());
  // Standard output: what was plotted and each file written (file comment).
  std::cout << "strata-eval plot: " << points.rows.size() << " rows of " << csv_path << ", x " << spec.x << ", y ";
  for (std::size_t c = 0; c < spec.y.size(); ++c) std::cout << (c ? "," : "") << spec.y[c];
  if (!spec.by.empty()) std::cout << ", one line per value of " << spec.by << " (" << points.groups.size() << ")";
  std::cout << ": " << points.groups.size() * spec.y.size() << " line(s)\n";
  std::cout << "wrote " << stem << ".dat\nwrote " << stem << ".gp\n";
  if (!gnuplot_on_path()) {
    std::cerr << "strata-eval: gnuplot is not on PATH: wrote " << stem << ".dat and .gp, no PNG or SVG "
              << "(install gnuplot, e.g. apt-get install gnuplot-nox, and run gnuplot " << spec.name << ".gp in "
              << dir << ")\n";
    return 0;
  }
  const int rc = render_gnuplot(dir, {spec.name + ".png", spec.name + ".svg"}, [&](const std::vector<std::string>& to) {
    std::ostringstream render;
    strata::write_sweep_gnuplot_script(render, table, spec, points, {.data = {}, .png = to[0], .svg = to[1]});
    return render.str();
  });
  if (rc != 0) {
    std::cerr << "strata-eval: gnuplot " << stem << ".gp failed (status " << rc << "); existing " << spec.name
              << ".png and .svg are left as they were\n";
    return 1;
  }
  std::cout << "wrote " << stem << ".png\nwrote " << stem << ".svg\n";
  return 0;
}

}  // namespace

command add_plot(CLI::App& app) {
  struct options {
    std::string scenario, table, plot, csv, x, by, name, title;
    std::vector<std::string> y;
    bool log_x = false, log_y = false;
  };
  auto o = std::make_shared<options>();
  CLI::App* sub = app.add_subcommand("plot", "the plot of a scenario's table computed elsewhere (shards gathered "
                                             "from a Slurm array job), without recomputing it, "
                                             "or of any sweep's CSV (--csv)");
  sub->add_option("scenario", o->scenario, "the scenario JSON file the table was run from");
  sub->add_option("table", o->table, "the table (CSV) strata-eval run wrote, or its shards concatenated in order");
  sub->add_option("--plot", o->plot, "write DIR/<name>.csv, .dat, .gp and render .png and .svg with gnuplot "
                                     "(with --csv: DIR/<name>.dat, .gp, .png, .svg)")->required();
  sub->add_option("--csv", o->csv, "plot this sweep's CSV (a header row, then one row a point) instead of a scenario's table");
  sub->add_option("--x", o->x, "with --csv: the column on the x axis");
  sub->add_option("--y", o->y, "with --csv: the columns drawn against x (comma-separated, at most 16)")->delimiter(',');
  sub->add_option("--by", o->by, "with --csv: one line per value of this column");
  sub->add_option("--name", o->name, "with --csv: the files' name (default: the CSV's file name without .csv)");
  sub->add_option("--title", o->title, "with --csv: the plot's title (default: the y columns against x)");
  sub->add_flag("--log-x", o->log_x, "with --csv: a logarithmic x axis");
  sub->add_flag("--log-y", o->log_y, "with --csv: a logarithmic y axis");
  return {sub, [o]() -> int {
            // Relative input paths: the working directory, then the data directory (input_arg).
            for (std::string* p : {&o->csv, &o->scenario, &o->table}) *p = input_arg(*p);
            const bool csv_only = !o->x.empty() || !o->y.empty() || !o->by.empty() || !o->name.empty() ||
                                  !o->title.empty() || o->log_x || o->log_y;
            if (!o->csv.empty()) {
              if (!o->scenario.empty()) throw usage_error{"--csv plots a sweep's CSV: it takes no SCENARIO.json or TABLE.csv"};
              if (o->x.empty() || o->y.empty()) throw usage_error{"--csv needs --x COL and --y COL[,COL...]"};
              strata::sweep_plot_spec spec;
              spec.x = o->x;
              spec.y = o->y;
              spec.by = o->by;
              spec.name = o->name.empty() ? csv_stem(o->csv) : o->name;
              spec.title = o->title;
              spec.log_x = o->log_x;
              spec.log_y = o->log_y;
              strata::validate(spec);
              const std::string text =
                  strata::read_input_file(o->csv, "csv", strata::limits().table_file_bytes, "table_file_bytes");
              const auto table = strata::read_sweep_csv(text, o->csv);
              return write_csv_plot(table, spec, o->plot, o->csv);
            }
            if (csv_only) throw usage_error{"--x, --y, --by, --name, --title, --log-x and --log-y go with --csv"};
            if (o->scenario.empty() || o->table.empty()) {
              throw usage_error{"plot needs SCENARIO.json and TABLE.csv, or --csv FILE --x COL --y COL"};
            }
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
