// strata-eval explain: what would one have to believe to get the paper's number? For a check
// row of the paper report out of tolerance: its hand-written derivation, its elasticities to
// every real parameter it depends on, and the change each parameter alone would need to bring it
// into tolerance, solved on the re-evaluated row, in units of the parameter's cited range, and
// verified (report/explain.hpp); pairs where no single change closes it; the family line.
//
//   strata-eval explain stratum.system.olmoe.decode_speedup
//   strata-eval explain validation.check.vllm3240-mixtral8x7b-a100-tp2-b64 --json
//   strata-eval explain --ranges          the cited ranges (markdown table)
//
// Exit status: 0 on success (also for a row within tolerance or one the explainer does not
// re-evaluate: it says so), 1 for a row the report does not have, 2 on a bad command line.

#include <iostream>  // std::cout
#include <memory>    // std::make_shared
#include <string>    // std::string
#include <vector>    // std::vector

#include "cli.hpp"
#include "data_location.hpp"
#include "strata/report/explain_groups.hpp"
#include "strata/report/explain_json.hpp"
#include "strata/report/explain_row.hpp"
#include "strata/report/paper_io.hpp"
#include "strata/report/paper_rows.hpp"

namespace strata_eval {
namespace {

struct explain_cli {
  std::string row;
  bool json = false, ranges = false;
  std::size_t top = 10;
  unsigned threads = 0;
};

// The report's number format (not cli.hpp's `num`, which a unity unit of every subcommand also sees).
std::string report_num(double v) { return strata::detail::report_number(v); }

void print_text(const strata::row_explanation& x, const std::vector<strata::family_line>& families, std::size_t top) {
  std::cout << x.id << " (" << x.family << "): model " << report_num(x.value) << ", paper "
            << (x.paper ? report_num(*x.paper) : std::string("-")) << " (" << x.rule
            << (x.rule == "relative" ? ", ±" + report_num(100.0 * x.tolerance) + " %" : std::string()) << ")\n";
  if (!x.derivation.empty()) std::cout << "derivation: " << x.derivation << "\n";
  std::cout << "\nelasticities d ln(row) / d ln(p): " << x.elasticities.size() << " non-zero, " << x.zero_elasticities
            << " zero" << (top != 0 && x.elasticities.size() > top ? "; the " + std::to_string(top) + " largest" : "")
            << "\n| parameter | cited | elasticity |\n| --- | ---: | ---: |\n";
  for (std::size_t i = 0; i < x.elasticities.size() && (top == 0 || i < top); ++i) {
    const auto& e = x.elasticities[i];
    std::cout << "| " << e.parameter << " | " << report_num(e.value) << " | " << report_num(e.elasticity) << " |\n";
  }
  std::cout << "\ngap: each parameter alone, solved on the re-evaluated row, by range units\n"
               "| parameter | cited | needed | relative change | range units | closes | range |\n"
               "| --- | ---: | ---: | ---: | ---: | --- | --- |\n";
  for (const auto& g : x.gap) {
    if (g.cited_choice) {  // a discrete parameter, scanned
      std::cout << "| " << g.parameter << " | " << *g.cited_choice << " | "
                << (g.needed_choice ? *g.needed_choice : std::string("none")) << " | - | "
                << (g.needed_choice ? std::string("a switch") : std::string("-")) << " | " << (g.closes ? "yes" : "no")
                << " | " << g.range << " |\n";
      continue;
    }
    std::cout << "| " << g.parameter << " | " << report_num(g.cited) << " | " << (g.needed ? report_num(*g.needed) : std::string("none"))
              << " | " << (g.relative_change ? report_num(*g.relative_change) : std::string("-")) << " | "
              << (g.needed ? report_num(g.range_units) : std::string("> 10")) << " | " << (g.closes ? "yes" : "no") << " | "
              << g.range << " |\n";
  }
  if (!x.closed_by_one) {
    if (x.elasticities.empty() && !x.gap.empty()) {
      std::cout << "\nno single switch closes the row; pairs of switches (" << x.switch_pairs_tried
                << " combinations tried):\n";
    } else {
      std::cout << "\nno single parameter closes the row within ten ranges; pairs (each moved the same ranges"
                << (x.switch_pairs_tried > 0 ? ", then of switches: " + std::to_string(x.switch_pairs_tried) + " tried" : std::string())
                << "):\n";
    }
    std::size_t shown = 0;
    for (const auto& p : x.pairs) {
      if (!p.closes) continue;
      ++shown;
      std::cout << "- " << strata::detail::explain_pair_text(p) << "\n";
    }
    if (shown == 0) std::cout << "- none closes it\n";
  }
  if (!x.verdict.empty()) std::cout << "\nverdict: " << x.verdict << "\n";
  if (!x.left_out.empty()) std::cout << "\nleft out: " << x.left_out << "\n";
  for (const auto& f : families) {
    if (f.family == x.family) {
      std::cout << "\nfamily line from this row's changes (strata-paper-report --explain: from every failing row's):\n"
                << strata::family_line_text(f) << "\n";
    }
  }
}

}  // namespace

command add_explain(CLI::App& app) {
  auto o = std::make_shared<explain_cli>();
  CLI::App* sub = app.add_subcommand("explain", "a paper-report check row out of tolerance: its derivation, "
                                                "elasticities and the change of each parameter that closes it");
  sub->add_option("row", o->row, "the row id (strata-paper-report's id column)");
  sub->add_flag("--json", o->json, "print the explanation as JSON");
  sub->add_flag("--ranges", o->ranges, "print the cited parameter ranges (markdown table) instead");
  sub->add_option("--top", o->top, "elasticities to print (0: all; text only)")->default_str("10");
  sub->add_option("--threads", o->threads,
                  "threads for the report's rows and the row's family (0: the machine's cores; the same explanation "
                  "for every count)")
      ->check(CLI::Range(0U, 1024U));
  return {sub, [o]() -> int {
            if (o->ranges) {
              if (!o->row.empty()) throw usage_error{"--ranges takes no row"};
              std::cout << strata::parameter_range_table_markdown();
              return 0;
            }
            if (o->row.empty()) throw usage_error{"explain needs a row id (or --ranges)"};
            // The library's explainer (strata/report/explain_row.hpp), which Python's strata.explain shares,
            // on the data directory's inputs as the report finds them (examples/data_location.hpp,
            // strata::find_paper_report_inputs): the campaign runs' config.json fixtures, the real
            // DeepSeek-V2-Lite trace and the controller's checkpoint (without them those rows fall
            // back as the report's do).
            const auto data = strata_programs::find_data("");
            const auto x = strata::explain_row(o->row, o->threads, strata::find_paper_report_inputs(data.dir));
            switch (x.status) {
              case strata::explain_status::not_reevaluated:
                if (o->json) {
                  std::cout << strata::dump_json(strata::explain_row_json(x), 2) << "\n";
                } else {
                  std::cout << o->row << ": not re-evaluated by the explainer: " << x.reason << "\n";
                }
                return 0;
              case strata::explain_status::nothing_to_explain:
                if (o->json) {
                  std::cout << strata::dump_json(strata::explain_row_json(x), 2) << "\n";
                } else {
                  std::cout << o->row << ": " << x.reason << ": nothing to explain\n";
                }
                return 0;
              case strata::explain_status::no_evaluator:
                std::cout << o->row << ": not re-evaluated by the explainer: " << x.reason << "\n";
                return 0;
              case strata::explain_status::explained: break;
            }
            if (o->json) {
              std::cout << strata::dump_json(strata::explain_row_json(x), 2) << "\n";
            } else {
              print_text(*x.row, x.families, o->top);
            }
            return 0;
          }};
}

}  // namespace strata_eval
