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
// Paths in the scenario (an HCRMap study's trace and checkpoint) are taken relative to --data-dir
// (default: the working directory). The optimise study prints its optimum, binding budgets and shadow prices; --out writes its two
// rows. Exit status: 0 on success, 1 on a bad scenario (config_error naming the JSON path) or a
// plot that cannot be rendered, 2 on a bad command line.

#include <sys/wait.h>  // waitpid
#include <unistd.h>    // fork, chdir, execvp, access

#include <cstdlib>     // std::getenv
#include <filesystem>  // std::filesystem::create_directories
#include <fstream>     // std::ofstream
#include <iostream>    // std::cout, std::cerr
#include <memory>      // std::make_shared
#include <sstream>     // std::stringstream
#include <string>      // std::string
#include <vector>      // std::vector

#include "cli.hpp"
#include "strata/core/sweep.hpp"
#include "strata/core/sweep_io.hpp"
#include "strata/report/scenario.hpp"
#include "strata/report/scenario_io.hpp"
#include "strata/report/scenario_files.hpp"
#include "strata/report/scenario_json.hpp"
#include "strata/workload/trace_io.hpp"

namespace strata_eval {
namespace {

// gnuplot on PATH (an executable file named gnuplot in one of its directories).
bool gnuplot_on_path() {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return false;
  std::stringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) dir = ".";
    if (access((dir + "/gnuplot").c_str(), X_OK) == 0) return true;
  }
  return false;
}

// Runs `gnuplot <script>` in `dir` (no shell); its exit status, or -1 if it could not start.
int run_gnuplot(const std::string& dir, const std::string& script) {
  std::cout.flush();
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    std::string prog = "gnuplot", arg = script;
    char* argv[] = {prog.data(), arg.data(), nullptr};
    if (chdir(dir.c_str()) == 0) execvp("gnuplot", argv);
    _exit(127);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
  f.close();
  if (!f) throw strata::config_error("plot", "[strata.scenario] cannot write " + path);
}

std::ofstream open_out(const std::string& path) {
  std::ofstream f(path, std::ios::binary);
  if (!f) throw strata::config_error("out", "[strata.scenario] cannot open " + strata_eval::quoted(path) + " for writing");
  return f;
}

}  // namespace

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
  sub->add_option("--data-dir", o->data_dir, "directory the scenario's file paths are relative to");
  sub->add_option("--plot", o->plot, "write DIR/<name>.csv, .dat, .gp and render .png and .svg with gnuplot");
  return {sub, [o]() -> int {
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
            if (s.study == strata::study_kind::optimise) {
              if (shard.count > 1) throw usage_error{"study optimise runs in one process: --shard must be 1/1"};
              const auto r = strata::run_optimise_study(s, o->threads);
              strata::write_optimise_summary(std::cout, s, r);
              if (!o->out.empty()) {
                auto f = open_out(o->out);
                strata::write_optimise_table(f, r, format);
                f.close();
                if (!f) throw strata::config_error("out", "[strata.scenario] cannot write " + strata_eval::quoted(o->out));
              }
              return 0;
            }

            const strata::scenario_model model(s, strata::load_scenario_inputs(s, o->data_dir));
            const auto& space = model.space();
            std::ofstream file;
            if (!o->out.empty()) file = open_out(o->out);
            std::ostream& os = o->out.empty() ? std::cout : file;
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
            if (!o->out.empty()) {
              file.close();
              if (!file) throw strata::config_error("out", "[strata.scenario] cannot write " + strata_eval::quoted(o->out));
            }
            if (!plotting) return 0;

            std::error_code ec;
            std::filesystem::create_directories(o->plot, ec);
            if (ec) throw strata::config_error("plot", "[strata.scenario] cannot create " + strata_eval::quoted(o->plot) + ": " + ec.message());
            const std::string stem = o->plot + "/" + s.name;
            std::ostringstream dat, gp;
            strata::write_plot_data(dat, s, collect->points());
            strata::write_gnuplot_script(gp, s, collect->points());
            write_file(stem + ".csv", plot_csv.str());
            write_file(stem + ".dat", dat.str());
            write_file(stem + ".gp", gp.str());
            if (!gnuplot_on_path()) {
              std::cerr << "strata-eval: gnuplot is not on PATH: wrote " << stem << ".csv, .dat and .gp, no PNG or SVG "
                        << "(install gnuplot, e.g. apt-get install gnuplot-nox, and run gnuplot " << s.name
                        << ".gp in " << o->plot << ")\n";
              return 0;
            }
            const int rc = run_gnuplot(o->plot, s.name + ".gp");
            if (rc != 0) {
              std::cerr << "strata-eval: gnuplot " << stem << ".gp failed (status " << rc << ")\n";
              return 1;
            }
            std::cerr << "strata-eval: wrote " << stem << ".png and " << stem << ".svg\n";
            return 0;
          }};
}

}  // namespace strata_eval
