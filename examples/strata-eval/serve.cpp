// strata-eval serve: a serving scenario on a Stratum system and its GPU baseline
// (serving/serving_json.hpp).
//
//   strata-eval serve SCENARIO.json          a few summary lines per system
//   strata-eval serve SCENARIO.json --json   the full results as JSON (--units display|si: the same
//                                            here, every number already SI with its unit in its key)
//
// A machine is a GPU preset or a machine file (gpu.name, or each of a `machines` list, printed under
// its label; strata/baseline/machine_json.hpp, the loader of eval --machine).
// Relative paths in the scenario (a config.json model, the usage count file, a trace, a machine file) are taken
// beside the scenario file when a file is there, else in the data directory
// (examples/data_location.hpp: --data-dir, else STRATA_DATA_DIR, else the installed share/strata,
// else the source tree's tests/data for a build-tree program). Exit status: 0 on success, 1 on a bad scenario (config_error naming the
// JSON path), 2 on a bad command line.

#include <filesystem>  // std::filesystem::path (the scenario's folder)
#include <iostream>  // std::cout
#include <memory>    // std::make_shared
#include <string>    // std::string

#include "cli.hpp"
#include "data_location.hpp"
#include "strata/serving/serving_json.hpp"
#include "strata/workload/trace_io.hpp"

namespace strata_eval {

command add_serve(CLI::App& app) {
  struct options {
    std::string scenario, data_dir, units = "display";
    bool json = false;
  };
  auto o = std::make_shared<options>();
  CLI::App* sub = app.add_subcommand("serve", "a serving scenario (arrivals, topics, classifier, scheduler, SLO) "
                                              "on Stratum and its GPU baseline, or on a GPU alone (system \"none\")");
  sub->add_option("scenario", o->scenario, "the scenario JSON file")->required();
  auto* json = sub->add_flag("--json", o->json, "print the results as JSON");
  add_units_option(*sub, o->units, json);
  sub->add_option("--data-dir", o->data_dir, "the data directory the scenario's file paths are relative to "
                                            "(default: STRATA_DATA_DIR, else the installed share/strata)");
  return {sub, [o]() -> int {
            // A relative scenario path: the working directory, then the data directory (input_arg).
            o->scenario = input_arg(o->scenario, o->data_dir);
            const auto s = strata::read_serving_scenario(
                strata::read_input_file(o->scenario, "scenario", strata::limits().json_file_bytes, "json_file_bytes"),
                o->scenario);
            const auto data = strata_programs::find_data(o->data_dir);
            const auto r = [&] {
              try {
                const std::string here = std::filesystem::path(o->scenario).parent_path().string();
                return strata::run_scenario(s, data.dir, here.empty() ? std::string(".") : here);
              } catch (const strata::config_error& e) {
                const std::string& f = e.field();
                const bool machine_file = f == "gpu.name" || (f.rfind("machines[", 0) == 0 && f.size() > 5 &&
                                                              f.compare(f.size() - 5, 5, ".name") == 0);
                if (f != "trace.path" && f != "usage.counts" && !machine_file) throw;
                throw strata::config_error(e.field(), std::string(e.what()) + "; " + strata_programs::data_hint(data));
              }
            }();
            if (o->json) {
              print_json(strata::json(r), units_of(o->units));
            } else {
              strata::print_summary(std::cout, r);
            }
            return 0;
          }};
}

}  // namespace strata_eval
