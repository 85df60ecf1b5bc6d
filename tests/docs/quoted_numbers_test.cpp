// Numbers the documentation quotes from the paper report equal the report's (issue 28, Deliver 1).
//
// A quoted number is written in Markdown as `1.99<!--r:stratum.system.mixtral.decode_speedup-->`
// (or `26.5 %<!--r:ID-->` for a fraction shown as a percentage): the comment names the report row
// and is invisible once rendered. The report's values come from docs/paper_report.md, whose block
// the CTest case docs.paper_report checks against the program's output. A quoted number must equal
// the row's value rounded to the digits it shows; a row id that is not in the report, or a quote
// whose value drifted, fails with the file and line.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "support/scratch_dir.hpp"  // strata_test::slurp

namespace {

std::string docs_root() { return std::string(STRATA_TEST_DATA_DIR) + "/../.."; }

// The report's rows `| id | kind | value | ...` between the paper_report markers.
std::map<std::string, double> report_values(const std::string& markdown) {
  std::map<std::string, double> out;
  std::istringstream in(markdown);
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line == "<!-- paper_report:begin -->") {
      inside = true;
      continue;
    }
    if (line == "<!-- paper_report:end -->") break;
    if (!inside || line.rfind("| ", 0) != 0) continue;
    std::vector<std::string> cells;
    std::size_t at = 1;
    while (at < line.size()) {
      const auto bar = line.find(" |", at);
      if (bar == std::string::npos) break;
      std::string cell = line.substr(at, bar - at);
      cell.erase(0, cell.find_first_not_of(' '));
      cells.push_back(cell);
      at = bar + 2;
    }
    if (cells.size() < 3 || cells[0] == "id" || cells[0].rfind("---", 0) == 0) continue;
    try {
      out[cells[0]] = std::stod(cells[2]);
    } catch (const std::exception&) {
      // a non-numeric value (none today) cannot be quoted
    }
  }
  return out;
}

struct quote {
  int line = 0;
  std::string text, id;
  bool percent = false;
};

std::vector<quote> quotes_in(const std::string& markdown) {
  static const std::regex pattern(R"(((?:-|\xE2\x88\x92)?[0-9]+(?:\.[0-9]+)?)( ?%)?<!--r:([A-Za-z0-9_.\-]+)-->)");
  std::vector<quote> out;
  std::istringstream in(markdown);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    for (auto it = std::sregex_iterator(line.begin(), line.end(), pattern); it != std::sregex_iterator(); ++it) {
      out.push_back({n, (*it)[1].str(), (*it)[3].str(), (*it)[2].matched});
    }
  }
  return out;
}

// "" when the quote shows the value rounded to its digits, else what is wrong.
std::string finding(const quote& q, const std::map<std::string, double>& report) {
  const auto row = report.find(q.id);
  if (row == report.end()) return "names no report row '" + q.id + "'";
  const auto dot = q.text.find('.');
  const int decimals = dot == std::string::npos ? 0 : static_cast<int>(q.text.size() - dot - 1);
  // (a leading "−", U+2212, is read as "-")
  std::string text = q.text;
  if (text.rfind("\u2212", 0) == 0) text.replace(0, std::string("\u2212").size(), "-");  // U+2212 minus
  const double shown = std::stod(text);
  const double value = q.percent ? 100.0 * row->second : row->second;
  const double half_step = 0.5 * std::pow(10.0, -decimals);
  if (std::abs(shown - value) <= half_step * (1.0 + 1e-9)) return "";
  std::ostringstream msg;
  msg.precision(12);
  msg << "quotes " << q.text << (q.percent ? " %" : "") << " for " << q.id << ", whose value is " << value;
  return msg.str();
}

}  // namespace

TEST_CASE("the checker: a quote is the value rounded to its digits, a drifted one is found") {
  const std::map<std::string, double> report{{"a.b", 0.2647}, {"c", 1.59994}};
  CHECK(finding({1, "0.265", "a.b", false}, report).empty());
  CHECK(finding({1, "0.26", "a.b", false}, report).empty());
  CHECK(finding({1, "26.5", "a.b", true}, report).empty());
  CHECK(finding({1, "1.60", "c", false}, report).empty());
  CHECK(finding({1, "2", "c", false}, report).empty());
  CHECK_FALSE(finding({1, "0.253", "a.b", false}, report).empty());  // a number of an older report
  CHECK_FALSE(finding({1, "0.27", "a.b", false}, report).empty());
  CHECK(finding({1, "0.3", "x", false}, report).find("names no report row") != std::string::npos);
  CHECK_FALSE(finding({1, "\u22121.6", "c", false}, report).empty());  // the sign counts
  const auto q = quotes_in("gain 0.265<!--r:a.b--> and 26.5 %<!--r:a.b-->\nnone\n-1.6<!--r:c--> \u22120.5<!--r:c-->");
  REQUIRE(q.size() == 4);
  CHECK(q[3].text == "\u22120.5");
  CHECK(q[0].text == "0.265");
  CHECK(q[1].percent);
  CHECK(q[2].line == 3);
  CHECK(q[2].text == "-1.6");
}

TEST_CASE("README.md and docs/ quote the paper report's current values") {
  const auto report = report_values(strata_test::slurp(docs_root() + "/docs/paper_report.md"));
  REQUIRE(report.size() > 100);  // the block is there and parsed
  std::vector<std::string> files{"README.md"};
  for (const auto& e : std::filesystem::directory_iterator(docs_root() + "/docs")) {
    if (e.is_regular_file() && e.path().extension() == ".md") files.push_back("docs/" + e.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  std::size_t quoted = 0;
  for (const auto& f : files) {
    for (const auto& q : quotes_in(strata_test::slurp(docs_root() + "/" + f))) {
      ++quoted;
      const auto why = finding(q, report);
      INFO(f << ":" << q.line);
      CHECK_MESSAGE(why.empty(), f << ":" << q.line << " " << why);
    }
  }
  CHECK(quoted >= 20);  // the pages quote the report; a lost annotation shows here
}
