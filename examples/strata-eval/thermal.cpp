// strata-eval thermal: HotSpot's inputs through strata's compact thermal model
// (include/strata/thermal/; docs/thermal.md).
//
//   strata-eval thermal --config C (--floorplan F | --layers L) --power P [--model block|grid]
//                       [--grid N] [--grid-steady-file FILE] [--transient] [--json]
//
// Steady state (default) from the trace's mean power: one `name<TAB>kelvin` line per block, as
// HotSpot's -steady_file writes them (2D: the die's blocks; with --layers: every layer's blocks,
// named layer_<N>_<block>). --transient: the trace over time, from that steady state, one row of
// block temperatures per trace interval (HotSpot's -o trace format). --grid-steady-file FILE (grid
// model only) also writes the steady state's cells as HotSpot's -grid_steady_file does
// (thermal::write_grid_steady), through strata::output_file: a temporary file renamed over FILE
// once complete, so a failed run leaves an existing FILE as it was. With --layers the floorplans
// are the .lcf's and --floorplan may be left out (HotSpot's 3D example runs without -f). Exit status: 0 on success,
// 1 on a bad input file (config_error naming the file, line and field), 2 on a bad command line.

#include <cstdio>    // std::snprintf
#include <iostream>  // std::cout
#include <memory>    // std::make_shared
#include <optional>  // std::optional (the grid steady file)
#include <string>    // std::string
#include <vector>    // std::vector

#include "cli.hpp"
#include "strata/thermal/hotspot_io.hpp"

namespace strata_eval {

namespace {

std::string thermal_kelvin(double k) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", k);
  return buf;
}

}  // namespace

command add_thermal(CLI::App& app) {
  struct options {
    std::string config, floorplan, power, layers, model = "block", grid_steady_file;
    int grid = 0;
    bool json = false, transient = false;
  };
  auto o = std::make_shared<options>();
  CLI::App* sub = app.add_subcommand("thermal", "HotSpot-format inputs (.config, .flp, .ptrace, .lcf) through the "
                                                "compact thermal model: steady or transient block temperatures");
  sub->add_option("--config", o->config, "HotSpot .config (package, die, ambient, grid size)")->required();
  sub->add_option("--floorplan", o->floorplan, "HotSpot .flp of the die (needed without --layers, ignored with it)");
  sub->add_option("--power", o->power, "HotSpot .ptrace (block names, then watts per interval)")->required();
  sub->add_option("--layers", o->layers, "HotSpot .lcf layer file (a 3D stack; floorplans beside it)");
  sub->add_option("--model", o->model, "block or grid")->check(CLI::IsMember({"block", "grid"}));
  sub->add_option("--grid", o->grid, "grid rows and columns (default: the config's grid_rows x grid_cols)")
      ->check(CLI::Range(1, 4096));
  sub->add_option("--grid-steady-file", o->grid_steady_file,
                  "write the grid model's steady cell temperatures to FILE as HotSpot's -grid_steady_file "
                  "(every layer: 'Layer n:', then index<TAB>kelvin per cell; needs --model grid)");
  sub->add_flag("--transient", o->transient, "the trace over time (from the steady state of its mean power)");
  sub->add_flag("--json", o->json, "print the results as JSON");
  return {sub, [o]() -> int {
            // Relative input paths: the working directory, then the data directory (input_arg).
            for (std::string* p : {&o->config, &o->floorplan, &o->power, &o->layers}) *p = input_arg(*p);
            namespace th = strata::thermal;
            if (o->floorplan.empty() && o->layers.empty()) {
              std::cerr << "strata-eval thermal: --floorplan is required without --layers\n";
              return 2;
            }
            if (!o->grid_steady_file.empty() && o->model != "grid") {
              std::cerr << "strata-eval thermal: --grid-steady-file needs --model grid (HotSpot writes it only for "
                           "its grid model)\n";
              return 2;
            }
            // A bad output path fails before the solve, and never names an input of this run.
            std::optional<strata::output_file> grid_file;
            if (!o->grid_steady_file.empty()) {
              strata::refuse_input(o->grid_steady_file, "grid-steady-file", {o->config, o->floorplan, o->power, o->layers});
              grid_file.emplace(o->grid_steady_file, "grid-steady-file");
            }
            const auto cfg = th::read_hotspot_config(o->config);
            const auto m = o->layers.empty() ? th::hotspot_2d_model(cfg, th::read_flp(o->floorplan))
                                             : th::read_hotspot_layers(cfg, o->layers);
            const auto trace = th::read_ptrace(o->power);
            th::thermal_options opt;
            opt.model = o->model == "grid" ? th::thermal_model_kind::grid : th::thermal_model_kind::block;
            opt.grid_rows = o->grid > 0 ? o->grid : cfg.grid_rows;
            opt.grid_cols = o->grid > 0 ? o->grid : cfg.grid_cols;
            opt.grid_map = cfg.grid_map;
            const auto net = th::build_thermal_network(m.stack, opt);
            const auto steady = th::steady_state(net, th::map_power(m, trace.names, trace.mean()));
            if (grid_file) {
              th::write_grid_steady(grid_file->stream(), net, opt, steady.node_rise_K);
              grid_file->commit();
            }
            // Output blocks: the die's in 2D (HotSpot's steady file starts with them), every layer's with --layers.
            const std::size_t shown = m.layered ? m.names.size() : 1;
            std::vector<std::string> names;
            std::vector<std::pair<std::size_t, std::size_t>> at;
            for (std::size_t l = 0; l < shown; ++l)
              for (std::size_t b = 0; b < m.names[l].size(); ++b) {
                names.push_back(m.names[l][b]);
                at.emplace_back(l, b);
              }
            if (!o->transient) {
              if (o->json) {
                strata::json blocks = strata::json::object();
                for (std::size_t i = 0; i < names.size(); ++i) blocks[names[i]] = steady.block_K[at[i].first][at[i].second];
                strata::json j{{"model", o->model}, {"nodes", net.net.size()}, {"blocks", std::move(blocks)}};
                print_json(std::move(j), strata::json_units::si);
              } else {
                for (std::size_t i = 0; i < names.size(); ++i)
                  std::cout << names[i] << '\t' << thermal_kelvin(steady.block_K[at[i].first][at[i].second]) << '\n';
              }
              return 0;
            }
            std::vector<th::block_power> rows;
            rows.reserve(trace.rows.size());
            for (const auto& r : trace.rows) rows.push_back(th::map_power(m, trace.names, r));
            const auto tr = th::transient(net, rows, cfg.sampling_interval_s, 4, steady.node_rise_K);
            if (o->json) {
              strata::json kelvin = strata::json::array();
              for (const auto& row : tr.block_K) {
                strata::json r = strata::json::array();
                for (const auto& [l, b] : at) r.push_back(row[l][b]);
                kelvin.push_back(std::move(r));
              }
              strata::json j{{"model", o->model},
                             {"nodes", net.net.size()},
                             {"interval_s", cfg.sampling_interval_s},
                             {"names", names},
                             {"kelvin", std::move(kelvin)},
                             {"energy",
                              {{"injected_J", tr.energy.injected_J},
                               {"removed_J", tr.energy.removed_J},
                               {"stored_J", tr.energy.stored_J}}}};
              print_json(std::move(j), strata::json_units::si);
            } else {
              for (std::size_t i = 0; i < names.size(); ++i) std::cout << (i ? "\t" : "") << names[i];
              std::cout << '\n';
              for (const auto& row : tr.block_K) {
                for (std::size_t i = 0; i < at.size(); ++i)
                  std::cout << (i ? "\t" : "") << thermal_kelvin(row[at[i].first][at[i].second]);
                std::cout << '\n';
              }
            }
            return 0;
          }};
}

}  // namespace strata_eval
