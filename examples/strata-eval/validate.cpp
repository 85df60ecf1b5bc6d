// strata-eval validate: the GPU baseline against published measurements (baseline/validation.hpp).
//
//   strata-eval validate                  markdown report of the compiled-in set (tests/data/measurements)
//   strata-eval validate --json           the same report as JSON (--units si: op_overhead_s, ...)
//   strata-eval validate --csv FILE       another measurement file (same format)
//   strata-eval validate --plot DIR       also write DIR/validation.dat and DIR/validation.gp and, when
//                                         gnuplot is on the PATH, render DIR/validation.png (log-log,
//                                         modelled against measured, y = x); without gnuplot the
//                                         script is left for the user and the program says so on stderr
//
// Exit status: 0 on success, 1 on a bad input file or an unwritable plot, 2 on a bad command line.
//
// The plot's files are written to temporary files renamed over them when complete, the PNG drawn
// to a temporary name renamed when gnuplot succeeds (gnuplot.hpp: no shell; the directory never
// enters the script, gnuplot runs in it); a plot file that names the --csv input is refused.

#include <iostream>  // std::cout, std::cerr
#include <memory>    // std::shared_ptr
#include <sstream>   // std::ostringstream
#include <string>    // std::string
#include <vector>    // std::vector

#include "cli.hpp"
#include "gnuplot.hpp"
#include "strata/baseline/gpu_measurements_data.hpp"
#include "strata/baseline/validation.hpp"
#include "strata/core/files.hpp"
#include "strata/report/scenario_io.hpp"

namespace strata_eval {
namespace {

std::string pct(double v) { return num(100.0 * v, "%+.1f %%"); }

void print_markdown(const strata::validation_report& r) {
  using namespace strata;
  const auto& k = r.fit.knobs;
  std::cout << "# GPU baseline validation\n\n"
            << "Fitted on " << r.fit.fit_rows << " rows (set `fit`), least squares on log error, Brent coordinate descent ("
            << r.fit.sweeps << " sweeps, " << r.fit.evaluations << " evaluations, "
            << (r.fit.converged ? "converged" : "not converged") << "):\n\n"
            << "| knob | fitted | H100 preset |\n|---|---|---|\n"
            << "| memory_efficiency | " << num(k.memory_efficiency) << " | " << num(h100_sxm5().memory_efficiency) << " |\n"
            << "| compute_efficiency | " << num(k.compute_efficiency) << " | " << num(h100_sxm5().compute_efficiency)
            << " |\n"
            << "| op_overhead (µs) | " << num(k.op_overhead.in(units::us)) << " | "
            << num(h100_sxm5().op_overhead.in(units::us)) << " |\n\n";
  if (!r.fit.at_bound.empty()) {
    std::cout << "Knobs on a bound:";
    for (const auto& b : r.fit.at_bound) std::cout << ' ' << b;
    std::cout << " (the fit compensates for a term the model lacks).\n\n";
  }
  std::cout << "| id | set | model | GPU × n | B | in | out | metric | measured | modelled | error | shipped knobs | regime |\n"
            << "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& v : r.rows) {
    std::cout << "| " << v.id << " | " << to_string(v.set) << " | " << v.model << " | " << v.gpu << " × " << v.devices
              << " | " << v.batch << " | " << v.input_len << " | " << v.output_len << " | " << to_string(v.metric) << " | "
              << num(v.measured) << ' ' << v.unit << " | " << num(v.modelled) << ' ' << v.unit << " | "
              << pct(v.rel_error) << " | " << pct(v.rel_error_default) << " | " << to_string(v.regime) << " |\n";
  }
  std::cout << "\n| summary | rows | median abs error | worst abs error | worst row |\n|---|---|---|---|---|\n";
  auto line = [](const char* name, const error_summary& s) {
    std::cout << "| " << name << " | " << s.rows << " | " << num(100.0 * s.median_abs_error, "%.1f %%") << " | "
              << num(100.0 * s.worst_abs_error, "%.1f %%") << " | " << s.worst_id << " |\n";
  };
  line("held back, fitted knobs", r.check);
  line("fit rows, fitted knobs (in sample)", r.fit_set);
  line("held back, shipped preset knobs", r.check_default);
  if (!r.by_series.empty()) {
    std::cout << "\nOut of sample by series (each series modelled with knobs fitted on the other series only):\n\n"
                 "| held out | series | train rows | rows | median abs error | worst abs error | worst row |\n"
                 "|---|---|---|---|---|---|---|\n";
    for (const auto& sv : r.by_series) {
      for (const auto& f : sv.folds) {
        std::cout << "| " << to_string(sv.key) << " | " << f.series << " | " << f.train_rows << " | " << f.held_back.rows
                  << " | " << num(100.0 * f.held_back.median_abs_error, "%.1f %%") << " | "
                  << num(100.0 * f.held_back.worst_abs_error, "%.1f %%") << " | " << f.held_back.worst_id << " |\n";
      }
      std::cout << "| " << to_string(sv.key) << " | **all folds** | | " << sv.held_back.rows << " | "
                << num(100.0 * sv.held_back.median_abs_error, "%.1f %%") << " | "
                << num(100.0 * sv.held_back.worst_abs_error, "%.1f %%") << " | " << sv.held_back.worst_id << " |\n";
    }
  }
  std::cout << "\n| regime (held back) | knobs | rows | median speed error | median abs error | verdict |\n"
               "|---|---|---|---|---|---|\n";
  for (const auto* set : {&r.regimes, &r.regimes_default}) {
    for (const auto& g : *set) {
      std::cout << "| " << to_string(g.regime) << " | " << (set == &r.regimes ? "fitted" : "shipped") << " | "
                << g.rows << " | " << pct(g.median_speed_error) << " | " << num(100.0 * g.median_abs_error, "%.1f %%")
                << " | " << g.verdict << " |\n";
    }
  }
  std::cout << "\nerror = modelled / measured − 1; speed error = measured time / modelled time − 1 (> 0: the model "
               "is optimistic).\n";
}

// The gnuplot script drawing validation.dat into `png` (names in the directory gnuplot runs in).
std::string plot_script(const std::string& png) {
  using strata::gnuplot_file;
  std::ostringstream gp;
  gp << "set terminal pngcairo size 900,700 noenhanced\nset output " << gnuplot_file(png) << "\n"
     << "set logscale xy\nset xlabel 'measured (s)'\nset ylabel 'modelled (s)'\nset key top left\n"
     << "set title 'GPU baseline against published measurements'\n"
     << "plot x title 'y = x' lw 2 lc rgb 'gray', \\\n"
     << "  " << gnuplot_file("validation.dat") << " using 1:($3==0?$2:1/0) title 'fit rows' pt 7 ps 1.3, \\\n"
     << "  " << gnuplot_file("validation.dat") << " using 1:($3==1?$2:1/0) title 'held-back rows' pt 9 ps 1.5\n";
  return gp.str();
}

// The plot's files in `dir`; none may be the measurement file `csv` (checked before the run).
void refuse_plot_inputs(const std::string& dir, const std::string& csv) {
  for (const char* name : {"validation.dat", "validation.gp", "validation.png"}) {
    strata::refuse_input(dir + "/" + name, "plot", {csv});
  }
}

// Writes the data and the gnuplot script (each to a temporary file renamed over it); renders the
// PNG when gnuplot is on PATH.
void write_plot(const strata::validation_report& r, const std::string& dir) {
  const std::string dat = dir + "/validation.dat", gp = dir + "/validation.gp";
  std::ostringstream d;
  d << "# measured modelled set(0 fit, 1 check) id (times in s; throughputs converted to s per output token)\n";
  for (const auto& v : r.rows) {
    // One axis for every metric: time, so throughput rows enter as 1 / (tokens/s). The id is
    // data (column 4, never read by the script), kept on its line.
    const bool tput = strata::higher_is_better(v.metric);
    d << (tput ? 1.0 / v.measured : v.measured) << ' ' << (tput ? 1.0 / v.modelled : v.modelled) << ' '
      << (v.set == strata::measurement_set::fit ? 0 : 1) << ' ' << strata::detail::gnuplot_line_text(v.id) << '\n';
  }
  strata::output_file::write(dat, "plot", d.str());
  strata::output_file::write(gp, "plot", plot_script("validation.png"));
  if (!gnuplot_on_path()) {
    std::cerr << "strata-eval validate: gnuplot not found; wrote " << gp << " for later (run gnuplot validation.gp in "
              << dir << ")\n";
    return;
  }
  const int rc = render_gnuplot(dir, {"validation.png"}, [](const std::vector<std::string>& to) { return plot_script(to[0]); });
  if (rc != 0) {
    std::cerr << "strata-eval validate: gnuplot failed on " << gp << " (status " << rc
              << "); an existing validation.png is left as it was\n";
  }
}

}  // namespace

command add_validate(CLI::App& app) {
  struct options {
    bool json = false;
    std::string csv, plot, units = "display";
  };
  auto o = std::make_shared<options>();
  CLI::App* sub = app.add_subcommand("validate", "the GPU baseline against published measurements (fit and held-back rows)");
  auto* json = sub->add_flag("--json", o->json, "print the report as JSON (fit, rows, check, fit_set, regimes, ...)");
  add_units_option(*sub, o->units, json);
  sub->add_option("--csv", o->csv, "another measurement file (the format of tests/data/measurements)");
  sub->add_option("--plot", o->plot,
                  "also write DIR/validation.dat and DIR/validation.gp, and DIR/validation.png when gnuplot is "
                  "on the PATH")
      ->check(CLI::ExistingDirectory);
  return {sub, [o]() -> int {
            if (!o->plot.empty()) refuse_plot_inputs(o->plot, o->csv);
            const auto rows =
                o->csv.empty() ? strata::published_gpu_measurements() : strata::read_measurements_csv(o->csv);
            const auto report = strata::validate_gpu_baseline(rows);
            if (o->json) {
              print_json(strata::json(report), units_of(o->units));
            } else {
              print_markdown(report);
            }
            if (!o->plot.empty()) write_plot(report, o->plot);
            return 0;
          }};
}

}  // namespace strata_eval
