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
//
// Every row carries its kind: input (echoes a parameter), fit (a named parameter was solved from
// it), check (compared with the paper, nothing solved from it) or prediction (no paper value).
// Exit status: 0 when every judged row is within tolerance, 1 otherwise, 2 on bad usage.

#include <charconv>  // std::from_chars, --threads
#include <chrono>    // std::chrono::steady_clock, the progress times
#include <cstdio>    // std::printf
#include <filesystem>  // std::filesystem::exists, the data probes
#include <optional>  // std::optional
#include <span>      // std::span
#include <iostream>  // std::cout, std::cerr
#include <new>       // std::bad_alloc
#include <string>    // std::string
#include <string_view>  // std::string_view

#include "data_location.hpp"
#include "strata/core/files.hpp"
#include "strata/core/json.hpp"
#include "strata/core/out_of_memory.hpp"
#include "strata/hcrmap/dqn_json.hpp"
#include "strata/hcrmap/dqn_scorer.hpp"
#include "strata/report/paper_rows.hpp"

namespace {

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

const char* rule(strata::row_check c) {
  switch (c) {
    case strata::row_check::relative: return "±";
    case strata::row_check::exact: return "exact";
    case strata::row_check::at_least: return "min";
    case strata::row_check::at_most: return "max";
    case strata::row_check::predict: return "predict";
  }
  return "";
}

/// One row as a JSON object (the `--json` schema of spec/numbers.md, plus kind, fitted and
/// known_disagreement).
strata::json row_json(const strata::paper_row& r) {
  strata::json j;
  j["id"] = r.id;
  j["value"] = r.value;
  j["unit"] = r.unit;
  j["paper"] = r.paper ? strata::json(*r.paper) : strata::json(nullptr);
  if (r.check == strata::row_check::relative) {
    j["tolerance"] = r.tolerance;
  } else if (r.check == strata::row_check::predict) {
    j["tolerance"] = nullptr;
  } else {
    j["tolerance"] = rule(r.check);
  }
  j["source"] = r.source;
  j["kind"] = strata::to_string(r.kind);
  j["fitted"] = r.fitted.empty() ? strata::json(nullptr) : strata::json(r.fitted);
  const auto ok = r.ok();
  j["ok"] = ok ? strata::json(*ok) : strata::json(nullptr);
  j["known_disagreement"] = r.known_disagreement.empty() ? strata::json(nullptr) : strata::json(r.known_disagreement);
  return j;
}

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
  unsigned threads = 0;
  std::string data_dir;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--json") {
      as_json = true;
    } else if (a == "--quiet") {
      progress = false;
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
    } else if (a == "--help" || a == "-h") {
      std::cout << "usage: strata-paper-report [--json] [--quiet] [--threads N] [--data-dir DIR]\n"
                   "Prints every paper number strata is checked against, from the models: value, unit,\n"
                   "paper value, tolerance, source, kind (input, fit, check, prediction) and\n"
                   "pass/fail. Exit 1 if a judged row fails. Progress (each family of rows and each\n"
                   "HCRMap experiment, with the time so far) goes to stderr; --quiet turns it off.\n"
                   "--threads N runs the HCRMap experiments, and beside them the other costly\n"
                   "families, on N threads (default 0: the machine's hardware threads); the output\n"
                   "is the same for every N.\n"
                   "--data-dir DIR reads the traces, count table and controller checkpoint from DIR\n"
                   "(default: STRATA_DATA_DIR, else the installed share/strata, else the source tree).\n";
      return 0;
    } else {
      std::cerr << "strata-paper-report: unknown argument '" << a << "' (try --help)\n";
      return 2;
    }
  }

  // The real DeepSeek-V2-Lite trace for the HCRMap policy rows, the per-domain count table of the
  // serving rows and the frozen checkpoint of HCRMap's controller value function, from the data
  // directory (examples/data_location.hpp); a file it lacks is a warning on stderr and the rows
  // fall back (the fitted synthetic trace; no serving rows; the greedy one-step rule).
  std::optional<std::string> trace, counts, checkpoint;
  const auto data = strata_programs::find_data(data_dir);
  {
    const std::string& dir = data.dir;
    const std::string path = dir + "/traces/dsv2lite_esft_trace_intent.csv";
    // A probe that opens nothing (a FIFO would block an open); the readers open what it finds
    // under the opening rule (strata/core/files.hpp) and refuse a directory, device or FIFO.
    const auto exists = [](const std::string& p) {
      std::error_code ec;
      return std::filesystem::exists(p, ec);
    };
    if (!dir.empty() && exists(path)) trace = path;
    const std::string cpath = dir + "/traces/olmoe_mixtral_expert_counts_by_domain.csv";
    if (!dir.empty() && exists(cpath)) counts = cpath;
    const std::string ck = dir + "/hcrmap/dqn_checkpoint.json";
    if (!dir.empty() && exists(ck)) checkpoint = ck;
  }
  const std::string where = strata_programs::data_hint(data);
  if (!trace) {
    std::cerr << "strata-paper-report: warning: no DeepSeek-V2-Lite trace (traces/dsv2lite_esft_trace_intent.csv) in the " << where
              << "; the HCRMap rows use the fitted synthetic trace\n";
  }
  if (!counts) {
    std::cerr << "strata-paper-report: warning: no per-domain count table (traces/olmoe_mixtral_expert_counts_by_domain.csv) in the "
              << where << "; no serving rows\n";
  }
  if (!checkpoint) {
    std::cerr << "strata-paper-report: warning: no controller checkpoint (hcrmap/dqn_checkpoint.json) in the " << where
              << "; HCRMap decides with the greedy one-step rule\n";
  }
  std::vector<strata::paper_row> rows;
  try {
    strata::controller_value value;
    if (checkpoint) {
      const std::string text = strata::read_input_file(*checkpoint, "checkpoint", strata::limits().checkpoint_file_bytes,
                                                       "checkpoint_file_bytes");
      value.name = "masked Double DQN checkpoint";
      value.score = strata::dqn_scorer(strata::parse_dqn_checkpoint(text, *checkpoint));
    }
    const auto t0 = std::chrono::steady_clock::now();
    strata::paper_progress report;
    if (progress) {
      report = [t0](std::string_view family, std::size_t n) {
        const std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t0;
        std::cerr << "strata-paper-report: " << family << ": " << n << " rows (" << fmt(dt.count()) << " s)\n";
      };
    }
    // JSON: the array is written as the families arrive, in the layout of json::dump(2) of the
    // whole array; a failure leaves it unterminated (and the exit status 1), never a short array
    // that parses.
    strata::paper_row_sink sink;
    std::size_t printed = 0;
    if (as_json) {
      std::cout << "[";
      sink = [&printed](std::span<const strata::paper_row> part) {
        for (const auto& r : part) {
          std::cout << (printed++ == 0 ? "\n" : ",\n") << indented(strata::dump_json(row_json(r), 2), "  ");
        }
        std::cout.flush();
      };
    }
    rows = strata::paper_rows(trace, counts, value, report, sink, threads);
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
  bool all_ok = true;
  for (const auto& r : rows) all_ok = all_ok && (r.ok().value_or(true) || !r.known_disagreement.empty());

  if (as_json) return all_ok ? 0 : 1;

  std::cout << "| id | kind | value | unit | paper | tolerance | source | ok |\n"
               "| --- | --- | ---: | --- | ---: | --- | --- | --- |\n";
  int pass = 0, fail = 0, pred = 0, known = 0;
  int by_kind[4] = {0, 0, 0, 0};
  int checks_ok = 0;
  for (const auto& r : rows) {
    const auto ok = r.ok();
    std::string tol = r.check == strata::row_check::relative ? "±" + fmt(100 * r.tolerance) + " %"
                                                             : rule(r.check);
    std::string kind = strata::to_string(r.kind);
    if (r.kind == strata::row_kind::fit) kind += " (" + r.fitted + ")";
    std::cout << "| " << r.id << " | " << kind << " | " << fmt(r.value) << " | " << r.unit << " | "
              << (r.paper ? fmt(*r.paper) : "—") << " | " << tol << " | " << r.source << " | "
              << (ok ? (*ok ? "pass" : (r.known_disagreement.empty() ? "**FAIL**" : "**FAIL** (known, below)"))
                     : "prediction")
              << " |\n";
    (ok ? (*ok ? pass : fail) : pred) += 1;
    if (ok && !*ok && !r.known_disagreement.empty()) ++known;
    by_kind[static_cast<int>(r.kind)] += 1;
    if (r.kind == strata::row_kind::check && ok && *ok) ++checks_ok;
  }
  std::cout << "\n" << rows.size() << " rows: " << by_kind[2] << " checks (" << checks_ok
            << " within tolerance), " << by_kind[1] << " fits, " << by_kind[0] << " inputs, "
            << by_kind[3] << " predictions; " << pass << " of " << (pass + fail)
            << " judged rows within tolerance"
            << (fail ? " — " + std::to_string(fail) + " FAIL" + (known ? " (" + std::to_string(known) + " known)" : "") : "")
            << ".\n";
  if (known > 0) {
    std::cout << "\nKnown disagreements (the model misses these rows; the mechanism):\n";
    for (const auto& r : rows) {
      if (!r.known_disagreement.empty() && r.ok() && !*r.ok()) std::cout << "- " << r.id << ": " << r.known_disagreement << "\n";
    }
  }
  return all_ok ? 0 : 1;
}
