// strata-paper-report: prints every number of the Stratum and HCRMap papers that strata is
// checked against, computed from strata's models.
//
//   strata-paper-report          markdown table
//   strata-paper-report --json   the same rows as a JSON array, each family's rows printed (and
//                                flushed) as soon as they are computed
//   --quiet                      no progress on stderr (by default each family of rows, and each
//                                HCRMap experiment, is reported there as it is done, with the time)
//   --threads N                  threads for the HCRMap experiments and, in the same queue, the
//                                other costly families (default 0: the machine's hardware
//                                threads); the output is the same for every N
//   --data-dir DIR               the data directory (examples/data_location.hpp)
//   --only FAMILY[,FAMILY...]    compute and print only these families (repeatable; a family's
//                                spelling such as stratum-device, or a group: stratum, hcrmap, gpu)
//   --explain                    after the table, the gap explainer's family lines
//                                (strata/report/explain_groups.hpp): per family of check rows out of
//                                tolerance, the smallest set of parameter changes closing the most of
//                                them, verified together, and the rows it breaks (markdown only)
//   --explain-all                --explain with the families over the report's time budget too
//                                (the HCRMap Hydra premise, about half a minute of CPU:
//                                explain_options::hcrmap_hydra_premise)
//
// Every row carries its kind: input (echoes a parameter), fit (a named parameter was solved from
// it), check (compared with the paper, nothing solved from it) or prediction (no paper value).
// Exit status: 0 when every judged row printed is within tolerance or a known disagreement, 1
// otherwise (or when a family fails), 2 on bad usage.

#include <charconv>  // std::from_chars, --threads
#include <chrono>    // std::chrono::steady_clock, the progress times
#include <memory>    // std::make_shared, the HCRMap trace cache
#include <optional>  // std::optional
#include <span>      // std::span
#include <iostream>  // std::cout, std::cerr
#include <new>       // std::bad_alloc
#include <string>    // std::string
#include <string_view>  // std::string_view
#include <vector>    // std::vector, the --only families

#include "data_location.hpp"
#include "strata/core/json.hpp"
#include "strata/core/out_of_memory.hpp"
#include "strata/report/explain_groups.hpp"
#include "strata/report/explain_row.hpp"
#include "strata/report/paper_io.hpp"
#include "strata/report/paper_json.hpp"
#include "strata/report/paper_rows.hpp"
#include "strata/workload/hf_config.hpp"

namespace {

/// `v` as the progress line prints it (`%.6g`).
std::string fmt(double v) { return strata::detail::report_number(v); }

/// `text` with `pad` before every line.
std::string indented(const std::string& text, const char* pad) {
  std::string out = pad;
  for (char c : text) {
    out += c;
    if (c == '\n') out += pad;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  strata::guard_out_of_memory("strata-paper-report");  // out of memory: exit 1 with a message, never an abort
  bool as_json = false;
  bool progress = true;
  bool explain = false, explain_all = false;
  unsigned threads = 0;
  std::string data_dir;
  std::vector<std::string> only;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--json") {
      as_json = true;
    } else if (a == "--quiet") {
      progress = false;
    } else if (a == "--explain") {
      explain = true;
    } else if (a == "--explain-all") {
      explain = explain_all = true;
    } else if (a == "--threads") {
      const std::string v = i + 1 < argc ? argv[++i] : "";
      const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), threads);
      if (v.empty() || ec != std::errc() || end != v.data() + v.size() || threads > 1024) {
        std::cerr << "strata-paper-report: --threads takes a count in [0, 1024] (0: the machine's hardware threads), got '"
                  << v << "'\n";
        return 2;
      }
    } else if (a == "--data-dir") {
      data_dir = i + 1 < argc ? argv[++i] : "";
      if (data_dir.empty()) {
        std::cerr << "strata-paper-report: --data-dir takes a directory\n";
        return 2;
      }
    } else if (a == "--only") {
      const std::string v = i + 1 < argc ? argv[++i] : "";
      std::size_t start = 0;
      do {
        const std::size_t comma = v.find(',', start);
        only.push_back(v.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        start = comma == std::string::npos ? std::string::npos : comma + 1;
      } while (start != std::string::npos);
      for (const auto& f : only) {
        try {
          strata::check_paper_families(std::span<const std::string>(&f, 1));
        } catch (const strata::config_error&) {
          std::cerr << "strata-paper-report: --only: unknown family '" << f
                    << "' (valid: " << strata::paper_family_spellings() << ")\n";
          return 2;
        }
      }
    } else if (a == "--help" || a == "-h") {
      std::cout << "usage: strata-paper-report [--json] [--quiet] [--threads N] [--data-dir DIR] [--only FAMILY[,...]] [--explain | --explain-all]\n"
                   "Prints every paper number strata is checked against, from the models: value, unit,\n"
                   "paper value, tolerance, source, kind (input, fit, check, prediction) and\n"
                   "pass/fail. Exit 0 when every judged row printed is within tolerance or a known\n"
                   "disagreement (listed under the table), 1 if another judged row fails or a family\n"
                   "cannot be computed, 2 on bad usage. Progress (each family of rows and each\n"
                   "HCRMap experiment, with the time so far) goes to stderr; --quiet turns it off.\n"
                   "--threads N runs the HCRMap experiments, and beside them the other costly\n"
                   "families, on N threads (default 0: the machine's hardware threads); the output\n"
                   "is the same for every N.\n"
                   "--data-dir DIR reads the traces, count table and controller checkpoint from DIR\n"
                   "(default: STRATA_DATA_DIR, else the installed share/strata, else the source tree).\n"
                   "--only FAMILY[,FAMILY...] computes and prints only these families (repeatable):\n"
                   "stratum-device, stratum-logic, stratum-chip, stratum-systems, stratum-results,\n"
                   "stratum-placement, stratum-serving, hcrmap-metadata, hcrmap-policies,\n"
                   "gpu-validation, or a group: stratum, hcrmap, gpu (--only stratum skips the 16\n"
                   "HCRMap experiments).\n"
                   "--explain adds, after the table, the gap explainer's family lines: per family of\n"
                   "check rows out of tolerance, the smallest set of parameter changes that closes the\n"
                   "most of them, verified together, and the rows it breaks (strata-eval explain ROW\n"
                   "prints one row's elasticities and gap table). Markdown only; the rows are unchanged.\n"
                   "--explain-all adds the families over the report's time budget (the HCRMap Hydra\n"
                   "premise: about half a minute of CPU); without it their rows are listed as not re-evaluated.\n";
      return 0;
    } else {
      std::cerr << "strata-paper-report: unknown argument '" << a << "' (try --help)\n";
      return 2;
    }
  }

  // The real DeepSeek-V2-Lite trace for the HCRMap policy rows, the per-domain count table of the
  // serving rows, the frozen checkpoint of HCRMap's controller value function and the campaign
  // runs' config.json fixtures, from the data directory (examples/data_location.hpp) as every front
  // end finds them (strata::find_paper_report_inputs); a file it lacks is a warning on stderr and
  // the rows fall back (the fitted synthetic trace; no serving rows; the greedy one-step rule).
  const auto data = strata_programs::find_data(data_dir);
  const strata::paper_report_inputs inputs = strata::find_paper_report_inputs(data.dir);
  const auto& trace = inputs.dsv2lite_trace;
  const auto& counts = inputs.domain_counts;
  const auto& checkpoint = inputs.checkpoint;
  const std::string where = strata_programs::data_hint(data);
  // Only what the selected families read is warned of.
  const bool policies = strata::paper_family_selected(only, "hcrmap-policies");
  if (!trace && policies) {
    std::cerr << "strata-paper-report: warning: no DeepSeek-V2-Lite trace (traces/dsv2lite_esft_trace_intent.csv) in the " << where
              << "; the HCRMap rows use the fitted synthetic trace\n";
  }
  if (!counts && strata::paper_family_selected(only, "stratum-serving")) {
    std::cerr << "strata-paper-report: warning: no per-domain count table (traces/olmoe_mixtral_expert_counts_by_domain.csv) in the "
              << where << "; no serving rows\n";
  }
  if (!checkpoint && policies) {
    std::cerr << "strata-paper-report: warning: no controller checkpoint (hcrmap/dqn_checkpoint.json) in the " << where
              << "; HCRMap decides with the greedy one-step rule\n";
  }
  std::vector<strata::paper_row> rows;
  strata::controller_value value;  // also the explainer's (--explain): it reruns the HCRMap experiments
  // The HCRMap suite's traces, built once for the report's rows and the explainer's families.
  const auto traces = std::make_shared<strata::hcrmap_trace_cache>();
  try {
    value = strata::load_report_controller_value(checkpoint);
    const auto t0 = std::chrono::steady_clock::now();
    strata::paper_report_options options = strata::paper_report_options_with(inputs, value);
    options.hcrmap_traces = traces;
    options.threads = threads;
    options.only = only;
    if (progress) {
      const auto seconds = [t0] {
        const std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t0;
        return fmt(dt.count());
      };
      options.progress = [seconds](std::string_view family, std::size_t n) {
        std::cerr << "strata-paper-report: " << family << ": " << n << " rows (" << seconds() << " s)\n";
      };
      options.experiment_progress = [seconds](std::string_view model, std::string_view mode) {
        std::cerr << "strata-paper-report: hcrmap policies: experiment " << model << " " << mode << " done ("
                  << seconds() << " s)\n";
      };
    }
    // JSON: the array is written as the families arrive, in the layout of json::dump(2) of the
    // whole array; a failure leaves it unterminated (and the exit status 1), never a short array
    // that parses.
    std::size_t printed = 0;
    if (as_json) {
      std::cout << "[";
      options.sink = [&printed](std::span<const strata::paper_row> part) {
        for (const auto& r : part) {
          std::cout << (printed++ == 0 ? "\n" : ",\n") << indented(strata::dump_json(strata::report_row_json(r), 2), "  ");
        }
        std::cout.flush();
      };
    }
    rows = strata::paper_rows(options);
    if (as_json) std::cout << (printed == 0 ? "]\n" : "\n]\n");
  } catch (const std::bad_alloc&) {
    std::cout.flush();
    strata::report_out_of_memory("strata-paper-report");
    return 1;
  } catch (const std::exception& e) {
    std::cout.flush();
    std::cerr << "strata-paper-report: " << e.what() << "\n";
    return 1;
  }

  // Exit 1 for a judged row out of tolerance, unless the row names why the model is known to miss
  // it (`known_disagreement`): those are printed as failures with their reason.
  const bool all_ok = strata::report_passes(rows);
  if (!as_json) strata::write_report_markdown(std::cout, rows);
  if (explain && as_json) {
    std::cerr << "strata-paper-report: --explain prints markdown only; ignored with --json\n";
  } else if (explain) {
    try {
      strata::explain_options eo;
      eo.threads = threads;  // the families on the report's threads
      eo.hf_dir = inputs.hf_dir;
      eo.read_config = [](const std::string& path) { return strata::load_hf_config(path); };
      eo.dsv2lite_trace = trace;  // the HCRMap rows' inputs, as the rows were computed
      eo.hcrmap_value = value;
      eo.hcrmap_traces = traces;
      eo.hcrmap_hydra_premise = explain_all;
      const auto x = strata::explain_report(rows, {}, eo);
      std::cout << "\nGap families (strata-eval explain ROW for a row's elasticities and gap table):\n\n";
      for (const auto& f : x.families) std::cout << "- " << strata::family_line_text(f) << "\n";
      for (const auto& u : x.unexplained) std::cout << "- " << u.id << ": not re-evaluated: " << u.reason << "\n";
    } catch (const std::exception& e) {
      std::cerr << "strata-paper-report: --explain: " << e.what() << "\n";
      return 1;
    }
  }
  return all_ok ? 0 : 1;
}
