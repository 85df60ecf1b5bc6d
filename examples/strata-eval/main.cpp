// strata-eval: the command-line front end of strata, one subcommand per file of this directory.
//
//   strata-eval eval ...      one serving step of a model on a GPU, roofline or Stratum machine
//                             (the default: `strata-eval --model ...` is `strata-eval eval --model ...`)
//   strata-eval list          model and machine presets
//   strata-eval validate      the GPU baseline against published measurements
//   strata-eval serve         a serving scenario (JSON) on Stratum and its GPU baseline
//   strata-eval run           a design-space study (scenario JSON): its table and plot
//   strata-eval plot          the plot of a scenario's table computed elsewhere (gathered shards)
//   strata-eval sensitivity   the ranked elasticities of one output of a model
//   strata-eval hcrmap        a routing trace through HCRMap and the policies it is compared with
//   strata-eval thermal       HotSpot-format inputs through the compact thermal model (steady or transient)
//   strata-eval explain       why a paper-report check row misses the paper, parameter by parameter
//   strata-eval <cmd> --help  the options of a subcommand
//
// Exit status: 0 on success; 2 when the command line cannot be parsed (unknown or missing option,
// a value that is not a number, an unknown phase, options that exclude each other); 1 when an
// input cannot be loaded or evaluated (unknown preset, unreadable or invalid file, config_error,
// a model that fits on no GPU count). Errors go to stderr.

#include <exception>  // std::exception
#include <iostream>   // std::cout, std::cerr
#include <new>        // std::bad_alloc
#include <stdexcept>  // std::length_error
#include <string>     // std::string
#include <vector>     // std::vector

#include "cli.hpp"
#include "strata/core/error.hpp"  // strata::config_error, strata::solver_error
#include "strata/core/out_of_memory.hpp"  // strata::guard_out_of_memory
#include "strata/version.hpp"

namespace {

std::string version_text() {
  return std::to_string(STRATA_VERSION_MAJOR) + "." + std::to_string(STRATA_VERSION_MINOR) + "." +
         std::to_string(STRATA_VERSION_PATCH);
}

// The subcommand names, for the default: a command line starting with an option (other than
// --help and --version) is an `eval` command line, as before subcommands existed.
bool starts_with_option(int argc, char** argv) {
  if (argc < 2) return false;
  const std::string a = argv[1];
  return a.size() > 1 && a[0] == '-' && a != "-h" && a != "--help" && a != "--version";
}

int run(int argc, char** argv) {
  CLI::App app{"strata-eval: closed-form models of MoE serving on tiered memory (strata " +
                   version_text() + ")",
               "strata-eval"};
  app.set_version_flag("--version", version_text());
  app.require_subcommand(1, 1);
  app.footer("Run strata-eval <subcommand> --help for its options. Exit status: 0 ok, 2 bad command line, "
             "1 input or model error.");
  const std::vector<strata_eval::command> commands{strata_eval::add_eval(app), strata_eval::add_list(app),
                                                 strata_eval::add_validate(app), strata_eval::add_serve(app),
                                                 strata_eval::add_run(app), strata_eval::add_plot(app),
                                                 strata_eval::add_sensitivity(app),
                                                 strata_eval::add_hcrmap(app), strata_eval::add_thermal(app),
                                                 strata_eval::add_explain(app)};
  strata_eval::strict_numbers(app);

  std::vector<std::string> args;
  if (starts_with_option(argc, argv)) args.emplace_back("eval");
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  if (args.empty()) {
    std::cout << app.help() << "\n";
    return 0;
  }
  std::string names;
  bool known = false;
  for (const auto& c : commands) {
    names += (names.empty() ? "" : ", ") + c.app->get_name();
    known = known || c.app->get_name() == args.front();
  }
  if (!known && args.front().front() != '-') {
    std::cerr << "strata-eval: unknown subcommand '" << args.front() << "' (subcommands: " << names
              << "; run strata-eval --help)\n";
    return 2;
  }
  const std::string hint = known ? args.front() + " " : "";
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last-first
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    std::cout << app.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::CallForVersion& e) {
    std::cout << "strata-eval " << e.what() << "\n";
    return 0;
  } catch (const CLI::ParseError& e) {
    std::cerr << "strata-eval: " << e.what() << "\n"
              << "Run strata-eval " << hint << "--help for the options.\n";
    return 2;
  }
  for (const auto& c : commands) {
    if (c.app->parsed()) {
      try {
        return c.run();
      } catch (const strata_eval::usage_error& e) {
        std::cerr << "strata-eval: " << e.what << "\n"
                  << "Run strata-eval " << c.app->get_name() << " --help for the options.\n";
        return 2;
      }
    }
  }
  std::cerr << "strata-eval: no subcommand\n" << app.help();
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  // Out of memory is exit 1 with a message, also where std::bad_alloc cannot reach the handlers
  // below (a noexcept destructor that allocates: strata/core/out_of_memory.hpp).
  strata::guard_out_of_memory("strata-eval");
  int rc = 0;
  try {
    rc = run(argc, argv);
  } catch (const std::bad_alloc&) {  // also std::length_error below: a size beyond any allocation
    strata::report_out_of_memory("strata-eval");
    return 1;
  } catch (const std::length_error&) {
    strata::report_out_of_memory("strata-eval");
    return 1;
  } catch (const strata::config_error& e) {
    std::cerr << "strata-eval: " << e.what() << "\n";
    return 1;
  } catch (const strata::solver_error& e) {
    std::cerr << "strata-eval: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "strata-eval: internal error: " << e.what() << "\n";
    return 1;
  }
  // A full disk or a closed pipe shows only when the buffered output is written.
  std::cout.flush();
  if (!std::cout) {
    std::cerr << "strata-eval: cannot write the output (standard output: disk full or closed?)\n";
    return 1;
  }
  return rc;
}
