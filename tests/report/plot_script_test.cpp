// The gnuplot scripts of scenario plots as a reader sees them: titles wrapped to the plot's width,
// a readable legend entry per series (the scenario's labels, never a bare column name), one colour
// scale over every map of a heatmap; and the plot keys that set the labels, checked at the boundary.
#include <doctest/doctest.h>

#include <algorithm>   // std::count, std::find, std::sort, std::min, std::max
#include <array>       // std::array
#include <cmath>       // std::nan
#include <filesystem>  // std::filesystem::directory_iterator
#include <set>         // std::set
#include <sstream>     // std::istringstream, std::ostringstream
#include <string>      // std::string
#include <vector>      // std::vector

#include "strata/core/files.hpp"
#include "strata/report/scenario.hpp"
#include "strata/report/scenario_io.hpp"
#include "strata/report/scenario_json.hpp"
#include "support/field_of.hpp"

using namespace strata;
using strata_test::field_of;

namespace {

// The text lines of a gnuplot string expression 'a'."\n".'b' (gnuplot_lines), unquoted.
std::vector<std::string> text_lines(const std::string& expr) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at < expr.size()) {
    REQUIRE(expr[at] == '\'');
    const std::size_t end = expr.find('\'', at + 1);
    REQUIRE(end != std::string::npos);
    out.push_back(expr.substr(at + 1, end - at - 1));
    at = end + 1;
    if (expr.compare(at, 6, ".\"\\n\".") == 0) {
      at += 6;
    } else {
      break;
    }
  }
  CHECK(at == expr.size());
  return out;
}

// The string expression of a command `<prefix><expr> noenhanced`.
std::string expr_of(const std::string& line, const std::string& prefix) {
  REQUIRE(line.rfind(prefix, 0) == 0);
  const std::string tail = " noenhanced";
  REQUIRE(line.size() >= prefix.size() + tail.size());
  REQUIRE(line.compare(line.size() - tail.size(), tail.size(), tail) == 0);
  return line.substr(prefix.size(), line.size() - prefix.size() - tail.size());
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// Points over every value of the scenario's axes, the plotted columns 1, 2, 3, ... and a nan.
std::vector<plot_point> points_of(const scenario& s) {
  const auto space = scenario_space(s);
  plot_collector plot(s, space);
  const std::size_t columns = scenario_columns(s.study).size();
  for (std::size_t i = 0; i < space.size(); ++i) {
    std::vector<double> row(columns);
    for (std::size_t c = 0; c < columns; ++c) row[c] = static_cast<double>(i * columns + c + 1);
    if (i == 1) row.assign(columns, std::nan(""));  // a point without values: not in any range
    plot(design_point(space, i), row);
  }
  return plot.points();
}

// What every script of a plot must hold (the width rule of write_gnuplot_script):
// - a lines plot: 960 px wide; each title line, the left margin (100 px) and the key outside right
//   (its widest entry at 10 px a character and 80 px of sample line and gaps) fit;
// - a heatmap: each title line within the canvas less 40 px, each map's title within its panel
//   less 120 px; every panel with the same `set cbrange`, spanning every finite plotted value;
// - a legend entry per series and column, none a column or axis name.
void check_reader_text(const scenario& s, const std::vector<plot_point>& pts, const std::string& script) {
  const auto lines = lines_of(script);
  const auto columns = scenario_columns(s.study);
  const auto raw = [&](const std::string& t) {
    if (std::find(columns.begin(), columns.end(), t) != columns.end()) return true;
    for (const auto& a : s.axes) {
      if (a.name == t) return true;
    }
    return false;
  };
  for (const auto& l : lines) {
    for (const char* label : {"set xlabel ", "set ylabel "}) {
      if (l.rfind(label, 0) != 0) continue;
      const auto text = text_lines(expr_of(l, label));
      REQUIRE(text.size() == 1);
      CHECK_MESSAGE(!raw(text[0]), l);
    }
  }
  if (s.plot.heatmap) {
    const std::size_t n = s.plot.y.size();
    int width = 0;
    std::vector<std::string> ranges, titles;
    for (const auto& l : lines) {
      if (l.rfind("set terminal pngcairo size ", 0) == 0) width = std::stoi(l.substr(27));
      if (l.rfind("set cbrange ", 0) == 0) ranges.push_back(l);
      if (l.rfind("set title ", 0) == 0) titles.push_back(l);
      if (l.rfind("set multiplot layout ", 0) == 0) {
        const std::size_t at = l.find(" title ");
        REQUIRE(at != std::string::npos);
        for (const auto& t : text_lines(expr_of(l.substr(at), " title "))) {
          CAPTURE(t);
          CHECK(detail::text_chars(t) * plot_char_px <= static_cast<std::size_t>(width - 40));
        }
      }
    }
    REQUIRE(width > 0);
    REQUIRE(titles.size() == 2 * n);  // the map titles, in the PNG and the SVG
    for (const auto& l : titles) {
      const auto text = text_lines(expr_of(l, "set title "));
      std::string joined;
      for (const auto& t : text) {
        CAPTURE(t);
        CHECK(detail::text_chars(t) * plot_char_px <= static_cast<std::size_t>(width / static_cast<int>(n) - 120));
        joined += (joined.empty() ? "" : " ") + t;
      }
      CHECK_MESSAGE(!raw(joined), l);
    }
    // One colour scale: a `set cbrange` per map, all the same, over every finite value.
    REQUIRE(ranges.size() == 2 * n);
    for (const auto& r : ranges) CHECK(r == ranges.front());
    double lo = 0.0, hi = 0.0;
    bool any = false;
    for (const auto& p : pts) {
      for (double v : p.y) {
        if (v != v) continue;
        lo = any ? std::min(lo, v) : v;
        hi = any ? std::max(hi, v) : v;
        any = true;
      }
    }
    REQUIRE(any);
    std::array<char, 32> a{}, b{};
    CHECK(ranges.front() == "set cbrange [" + std::string(detail::number_text(lo, a)) + ":" + std::string(detail::number_text(hi, b)) + "]");
    return;
  }
  // A lines plot: one titled entry per series value and column.
  std::vector<std::string> entries;
  for (const auto& l : lines) {
    const std::size_t at = l.find(" with linespoints title ");
    if (at == std::string::npos) continue;
    std::string e = l.substr(at + 24);
    if (e.size() >= 3 && e.compare(e.size() - 3, 3, ", \\") == 0) e.resize(e.size() - 3);
    const auto text = text_lines(e);
    REQUIRE(text.size() == 1);
    CHECK_MESSAGE(!raw(text[0]), l);
    entries.push_back(text[0]);
  }
  CHECK(entries.size() == plot_series(pts).size() * s.plot.y.size());
  CHECK(std::set<std::string>(entries.begin(), entries.end()).size() == entries.size());  // told apart
  std::size_t widest = 0;
  for (const auto& e : entries) widest = std::max(widest, detail::text_chars(e));
  const auto titles = std::count_if(lines.begin(), lines.end(), [](const std::string& l) { return l.rfind("set title ", 0) == 0; });
  CHECK(titles == 1);
  for (const auto& l : lines) {
    if (l.rfind("set title ", 0) != 0) continue;
    for (const auto& t : text_lines(expr_of(l, "set title "))) {
      CAPTURE(t);
      CHECK(100 + detail::text_chars(t) * plot_char_px + widest * plot_char_px + 80 <= 960);
    }
  }
}

}  // namespace

TEST_CASE("plot titles: wrapped at word boundaries to the width, every word kept") {
  const std::string t = "Decode throughput per mm2 vs WL layers, Mixtral 8x7B, B = 16, S = 2048 (Stratum Fig. 18b)";
  const auto w = detail::wrap_plot_text(t, 60);
  // The break after a comma that leaves the first line at least half full, not inside "B = 16".
  REQUIRE(w.size() == 2);
  CHECK(w[0] == "Decode throughput per mm2 vs WL layers, Mixtral 8x7B,");
  CHECK(w[1] == "B = 16, S = 2048 (Stratum Fig. 18b)");
  CHECK(detail::wrap_plot_text(t, 200) == std::vector<std::string>{t});
  CHECK(detail::wrap_plot_text("", 10) == std::vector<std::string>{""});
  // A word longer than a line is cut; characters are code points (× is two bytes).
  CHECK(detail::wrap_plot_text("abcdefgh ij", 3) == std::vector<std::string>{"abc", "def", "gh", "ij"});
  CHECK(detail::wrap_plot_text("4\xC3\x97" "4 mesh", 3) == std::vector<std::string>{"4\xC3\x97" "4", "mes", "h"});
  CHECK(detail::wrap_plot_text("  a  b  ", 1) == std::vector<std::string>{"a", "b"});
  // Any width: every line fits, and the words read back in order.
  for (std::size_t n = 1; n <= 100; ++n) {
    CAPTURE(n);
    std::string back;
    for (const auto& l : detail::wrap_plot_text(t, n)) {
      CHECK(detail::text_chars(l) <= n);
      CHECK(!l.empty());
      back += l;
    }
    std::string squeezed;
    for (char c : t) {
      if (c != ' ') squeezed += c;
    }
    back.erase(std::remove(back.begin(), back.end(), ' '), back.end());
    CHECK(back == squeezed);
  }
  CHECK(gnuplot_lines({"a", "it's"}) == "'a'.\"\\n\".'it\xE2\x80\x99s'");
  CHECK(gnuplot_lines({}) == "''");
}

TEST_CASE("plot labels: a column's or axis's name read as text with its unit, a series value by the scenario's label") {
  CHECK(detail::plot_label("moe_layer_latency_us") == "moe layer latency (us)");
  CHECK(detail::plot_label("tokens_per_s_per_mm2") == "tokens/s/mm2");
  CHECK(detail::plot_label("fastest_bw_TBps") == "fastest bw (TB/s)");
  CHECK(detail::plot_label("p_logic_W") == "p logic (W)");
  CHECK(detail::plot_label("speedup") == "speedup");
  scenario_plot p;
  p.y = {"p_logic_W", "power_slack_W"};
  p.series = "f_GHz";
  CHECK(plot_series_label(p, 0.75) == "f = 0.75 GHz");
  p.series_label = "f_logic {} GHz";
  CHECK(plot_series_label(p, 0.75) == "f_logic 0.75 GHz");
  CHECK(plot_column_label(p, 1) == "power slack (W)");
  p.labels = {"", "slack"};
  CHECK(plot_column_label(p, 0) == "p logic (W)");
  CHECK(plot_column_label(p, 1) == "slack");

  const auto read = [](const std::string& plot) {
    return read_scenario(R"({"name": "n", "study": "logic_budget",
      "sweep": {"axes": [{"name": "macs", "kind": "list", "values": [8000, 16000]}, {"name": "f_GHz", "kind": "list", "values": [0.5, 1]}]},
      "plot": {"x": "macs", "y": ["p_logic_W", "power_slack_W"], "series": "f_GHz")" + plot + "}}",
                         "n.json");
  };
  const auto s = read(R"(, "labels": {"power_slack_W": "power slack to the 45 W cap"}, "series_label": "{} GHz")");
  CHECK(s.plot.labels == std::vector<std::string>{"", "power slack to the 45 W cap"});
  CHECK(s.plot.series_label == "{} GHz");
  const auto fails_at = [&](const std::string& plot) { return field_of([&] { (void)read(plot); }); };
  CHECK(fails_at(R"(, "labels": {"tokens_per_s": "x"})") == "plot.labels.tokens_per_s");  // not plotted
  CHECK(fails_at(R"(, "labels": {"p_logic_W": ""})") == "plot.labels.p_logic_W");
  CHECK(fails_at(R"(, "labels": {"p_logic_W": 3})") == "plot.labels.p_logic_W");
  CHECK(fails_at(R"(, "labels": ["P"])") == "plot.labels");
  CHECK(fails_at(R"(, "labels": {")" + std::string(80, 'k') + R"(": "x"})") == "plot.labels");
  CHECK(fails_at(R"(, "series_label": "batch")") == "plot.series_label");  // no {}
  CHECK(fails_at(R"(, "series_label": "{} and {}")") == "plot.series_label");
  CHECK(fails_at(R"(, "series_label": 2)") == "plot.series_label");
  CHECK(field_of([] {
          (void)read_scenario(R"({"name": "n", "study": "device", "sweep": {"axes": [{"name": "layers", "kind": "list", "values": [128]}]},
                                 "plot": {"x": "layers", "y": "latency_spread", "series_label": "{} tiers"}})",
                              "n.json");
        }) == "plot.series_label");  // no series to label
}

TEST_CASE("plot scripts of the example scenarios: titles that fit, a readable entry per series, one colour scale per heatmap") {
  const std::filesystem::path dir = std::filesystem::path(STRATA_TEST_DATA_DIR) / ".." / ".." / "examples" / "scenarios";
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() == ".json") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  int plots = 0, heatmaps = 0;
  for (const auto& f : files) {
    CAPTURE(f.filename().string());
    const std::string text = read_input_file(f.string(), "scenario", limits().json_file_bytes, "json_file_bytes");
    if (text.find("\"plot\"") == std::string::npos) continue;  // the serving scenarios and optimise studies draw none
    const auto s = read_scenario(text, f.string());
    REQUIRE(s.plot.enabled);
    ++plots;
    heatmaps += s.plot.heatmap ? 1 : 0;
    const auto pts = points_of(s);
    std::ostringstream gp;
    write_gnuplot_script(gp, s, pts);
    check_reader_text(s, pts, gp.str());
    // The committed scenarios name every plotted column and series value themselves.
    if (!s.plot.series.empty() && !s.plot.heatmap) CHECK(!s.plot.series_label.empty());
    if (s.plot.y.size() > 1) CHECK(std::count(s.plot.labels.begin(), s.plot.labels.end(), std::string{}) == 0);
  }
  CHECK(plots == 11);
  CHECK(heatmaps == 1);
}

TEST_CASE("plot scripts: long titles and labels of any scenario stay within the width rule") {
  const std::string words = "a title of many words that goes on and on past any width a plot could show in one line";
  for (const bool heatmap : {false, true}) {
    CAPTURE(heatmap);
    auto s = read_scenario(
        heatmap ? R"({"name": "h", "study": "hcrmap_pressure", "model": "DeepSeek-V2-Lite", "hcrmap": {"mode": "decode", "windows": 1, "max_layers": 1},
                     "sweep": {"axes": [{"name": "x", "kind": "integer", "first": 0, "last": 3}, {"name": "y", "kind": "integer", "first": 0, "last": 3}]},
                     "plot": {"x": "x", "series": "y", "style": "heatmap", "y": ["static_pressure", "hydra_pressure", "moentwine_pressure", "hcrmap_pressure"]}})"
                : R"({"name": "l", "study": "device",
                     "sweep": {"axes": [{"name": "layers", "kind": "list", "values": [128, 256]}, {"name": "tiers", "kind": "list", "values": [2, 4, 8]}]},
                     "plot": {"x": "layers", "y": ["latency_spread", "fastest_latency_ns"], "series": "tiers"}})",
        "s.json");
    for (const std::string& title : {std::string("short"), words, words + " " + words, std::string(150, 'w')}) {
      CAPTURE(title);
      s.title = title;
      s.plot.labels.assign(s.plot.y.size(), "");
      if (heatmap) s.plot.labels[1] = words.substr(0, 60);  // a map title longer than its panel
      const auto pts = points_of(s);
      std::ostringstream gp;
      write_gnuplot_script(gp, s, pts);
      check_reader_text(s, pts, gp.str());
      // Every word of the title is drawn.
      std::string drawn;
      for (const auto& l : lines_of(gp.str())) {
        const std::string prefix = heatmap ? "set multiplot layout 1,4" : "set title ";
        if (l.rfind(prefix, 0) != 0) continue;
        for (const auto& t : text_lines(heatmap ? expr_of(l.substr(l.find(" title ")), " title ") : expr_of(l, prefix))) {
          drawn += t;
        }
        break;
      }
      std::string want = title;
      want.erase(std::remove(want.begin(), want.end(), ' '), want.end());
      drawn.erase(std::remove(drawn.begin(), drawn.end(), ' '), drawn.end());
      CHECK(drawn == want);
    }
  }
}
