// strata-eval run: a design-space study from a scenario file (report/scenario_json.hpp).
//
//   strata-eval run SCENARIO.json                       the table (CSV) on standard output
//   strata-eval run SCENARIO.json --out t.csv           ... into a file
//   strata-eval run SCENARIO.json --format jsonl        JSON Lines instead of CSV
//   strata-eval run SCENARIO.json --shard 2/4 --out s2  shard 2 of 4 (a Slurm array task); the
//                                                       shards' files concatenated are the whole table
//   strata-eval run SCENARIO.json --plot DIR            also DIR/<name>.csv, .dat, .gp and, when
//                                                       gnuplot is on PATH, DIR/<name>.png and .svg
//
// Paths in the scenario (an HCRMap study's trace and checkpoint) are taken relative to the data
// directory (examples/data_location.hpp: --data-dir, else STRATA_DATA_DIR, else the installed
// share/strata, else the source tree's tests/data for a build-tree program). The optimise study prints its optimum, binding budgets and shadow prices; --out writes its two
// rows. Exit status: 0 on success, 1 on a bad scenario (config_error naming the JSON path) or a
// plot that cannot be rendered, 2 on a bad command line.
//
// Outputs survive: the table and the plot's files are written to temporary files renamed over
// them when complete (strata::output_file), and the PNG and SVG are drawn to temporary names
// renamed when gnuplot succeeds (gnuplot.hpp), so a run or a render that fails leaves existing
// files as they were; an output that names an input of the run (the scenario, its trace or
// checkpoint) is refused before anything runs.

#include <filesystem>  // std::filesystem::create_directories
#include <iostream>    // std::cout, std::cerr
#include <memory>      // std::make_shared
#include <optional>    // std::optional, the --out file
#include <sstream>     // std::stringstream
#include <string>      // std::string
#include <vector>      // std::vector

#include "cli.hpp"
#include "data_location.hpp"
#include "gnuplot.hpp"
#include "plot.hpp"
#include "strata/core/data_dir.hpp"
#include "strata/core/files.hpp"
#include "strata/core/sweep.hpp"
#include "strata/core/sweep_io.hpp"
#include "strata/report/scenario.hpp"
#include "strata/report/scenario_io.hpp"
#include "strata/report/scenario_files.hpp"
#include "strata/report/scenario_json.hpp"
#include "strata/workload/trace_io.hpp"

namespace strata_eval {

void refuse_scenario_plot_inputs(const strata::scenario& s, const std::string& dir, std::initializer_list<std::string_view> inputs) {
  const std::string stem = dir + "/" + s.name;
  for (const char* ext : {".csv", ".dat", ".gp", ".png", ".svg"}) strata::refuse_input(stem + ext, "plot", inputs);
}

int write_scenario_plot(const strata::scenario& s, const std::string& dir, const std::string& table_csv,
                        const std::vector<strata::plot_point>& points) {
  const std::string stem = dir + "/" + s.name;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw strata::config_error("plot", "[strata.scenario] cannot create " + strata_eval::quoted(dir) + ": " + ec.message());
  std::ostringstream dat, gp;
  strata::write_plot_data(dat, s, points);
  strata::write_gnuplot_script(gp, s, points);
  strata::output_file::write(stem + ".csv", "plot", table_csv);
  strata::output_file::write(stem + ".dat", "plot", dat.str());
  strata::output_file::write(stem + ".gp", "plot", gp.str());
  if (!gnuplot_on_path()) {
    std::cerr << "strata-eval: gnuplot is not on PATH: wrote " << stem << ".csv, .dat and .gp, no PNG or SVG "
              << "(install gnuplot, e.g. apt-get install gnuplot-nox, and run gnuplot " << s.name
              << ".gp in " << dir << ")\n";
    return 0;
  }
  // The script of the .gp file, drawing to temporary names renamed on success.
  const int rc = render_gnuplot(dir, {s.name + ".png", s.name + ".svg"}, [&](const std::vector<std::string>& to) {
    std::ostringstream render;
    strata::write_gnuplot_script(render, s, points, {.data = {}, .png = to[0], .svg = to[1]});
    return render.str();
  });
  if (rc != 0) {
    std::cerr << "strata-eval: gnuplot " << stem << ".gp failed (status " << rc << "); existing "
              << s.name << ".png and .svg are left as they were\n";
    return 1;
  }
  std::cerr << "strata-eval: wrote " << stem << ".png and " << stem << ".svg\n";
  return 0;
}

command add_run(CLI::App& app) {
  struct options {
    std::string scenario, shard = "1/1", out, format = "csv", plot, data_dir;
    unsigned threads = 0;
  };
  auto o = std::make_shared<options>();
  CLI::App* sub = app.add_subcommand("run", "a design-space study from a scenario file (device, stratum_vs_gpu, "
                                            "hit_rate, logic_budget, optimise, hcrmap_budget, hcrmap_pressure): "
                                            "its table and plot");
  sub->add_option("scenario", o->scenario, "the scenario JSON file")->required();
  sub->add_option("--shard", o->shard, "run shard i of n (1-based, as a Slurm array index): i/n")->default_str("1/1");
  sub->add_option("--threads", o->threads, "threads (0: the machine's cores)")->check(CLI::Range(0U, 1024U));
  sub->add_option("--out", o->out, "write the table to this file (default: standard output)");
  sub->add_option("--format", o->format, "table format")->check(CLI::IsMember({"csv", "jsonl"}))->default_str("csv");
  sub->add_option("--data-dir", o->data_dir, "the data directory the scenario's file paths are relative to "
                                            "(default: STRATA_DATA_DIR, else the installed share/strata)");
  sub->add_option("--plot", o->plot, "write DIR/<name>.csv, .dat, .gp and render .png and .svg with gnuplot");
  return {sub, [o]() -> int {
            // A relative scenario path: the working directory, then the data directory (input_arg).
            o->scenario = input_arg(o->scenario, o->data_dir);
            strata::sweep_shard shard;
            try {
              shard = strata::parse_shard(o->shard);
            } catch (const strata::config_error& e) {
              throw usage_error{std::string("--shard: ") + e.what()};
            }
            const auto s = strata::read_scenario(
                strata::read_input_file(o->scenario, "scenario", strata::limits().json_file_bytes, "json_file_bytes"),
                o->scenario);
            const auto format = o->format == "jsonl" ? strata::scenario_format::jsonl : strata::scenario_format::csv;
            if (!o->plot.empty() && !s.plot.enabled) {
              throw strata::config_error("plot", "[strata.scenario] " + o->scenario +
                                                     ": --plot needs a plot key in the scenario (x, y, series)");
            }
            if (!o->plot.empty() && shard.count > 1) throw usage_error{"--plot plots a whole run: it excludes --shard i/n with n > 1"};
            const auto data = strata_programs::find_data(o->data_dir);
            // The run's inputs: no output may name one (checked before anything runs).
            // A relative path: beside the scenario file first, then in the data directory.
            const std::string scenario_dir = std::filesystem::path(o->scenario).parent_path().string();
            const auto input = [&](const std::string& p) {
              return strata::resolve_input_path(p, scenario_dir.empty() ? std::string(".") : scenario_dir, data.dir);
            };
            const std::string trace_in = input(s.hcrmap.trace), checkpoint_in = input(s.hcrmap.checkpoint);
            const auto refuse_inputs = [&](const std::string& out, const char* role) {
              strata::refuse_input(out, role, {o->scenario, trace_in, checkpoint_in});
            };
            if (!o->out.empty()) refuse_inputs(o->out, "out");
            if (!o->plot.empty()) refuse_scenario_plot_inputs(s, o->plot, {o->scenario, trace_in, checkpoint_in});
            if (s.study == strata::study_kind::optimise) {
              if (shard.count > 1) throw usage_error{"study optimise runs in one process: --shard must be 1/1"};
              std::optional<strata::output_file> file;  // made first: a bad --out fails before the run
              if (!o->out.empty()) file.emplace(o->out, "out");
              const auto r = strata::run_optimise_study(s, o->threads);
              strata::write_optimise_summary(std::cout, s, r);
              if (file) {
                strata::write_optimise_table(file->stream(), r, format);
                file->commit();
              }
              return 0;
            }

            const strata::scenario_model model(s, [&] {
              try {
                return strata::load_scenario_inputs(s, data.dir, scenario_dir.empty() ? std::string(".") : scenario_dir);
              } catch (const strata::config_error& e) {
                throw strata::config_error(e.field(), std::string(e.what()) + "; " + strata_programs::data_hint(data));
              }
            }());
            const auto& space = model.space();
            // The table goes to a temporary file, renamed over --out once every point is written.
            std::optional<strata::output_file> file;
            if (!o->out.empty()) file.emplace(o->out, "out");
            std::ostream& os = file ? file->stream() : std::cout;
            strata::scenario_table_writer table(os, s, space, format, shard);
            std::stringstream plot_csv;
            strata::scenario_table_writer plot_table(plot_csv, s, space, strata::scenario_format::csv);
            const bool plotting = !o->plot.empty();
            std::unique_ptr<strata::plot_collector> collect;
            if (plotting) collect = std::make_unique<strata::plot_collector>(s, space);
            strata::sweep_options opt{.threads = o->threads, .shard = shard};
            opt.progress = strata::stderr_progress("run " + s.name);
            strata::stream_sweep(
                space, model,
                [&](const strata::design_point& x, const std::vector<double>& row) {
                  table(x, row);
                  if (plotting) {
                    plot_table(x, row);
                    (*collect)(x, row);
                  }
                },
                opt);
            if (file) file->commit();
            if (!plotting) return 0;

            return write_scenario_plot(s, o->plot, plot_csv.str(), collect->points());
          }};
}

}  // namespace strata_eval
