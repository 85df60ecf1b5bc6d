// SPDX-License-Identifier: MIT
// The plot of any sweep's CSV (strata/report/sweep_plot.hpp, issue 46): the reader's quoting and
// bounds, the columns a plot selects, the data blocks and the gnuplot script, checked by hand on
// small tables, and a sweep's own CSV (csv_writer) read back.
#include <doctest/doctest.h>

#include <cmath>
#include <initializer_list>
#include <sstream>
#include <string>
#include <vector>

#include "strata/core/sweep.hpp"
#include "strata/core/sweep_io.hpp"
#include "strata/report/sweep_plot.hpp"
#include "support/field_of.hpp"

namespace {

// `f()` throws a config_error of field `field` whose message holds each of `parts`.
template <class F>
void sweep_plot_expect(F&& f, const std::string& field, std::initializer_list<const char*> parts) {
  std::string got = "<no config_error>", what;
  try {
    f();
  } catch (const strata::config_error& e) {
    got = e.field();
    what = e.what();
  }
  CHECK(got == field);
  for (const char* part : parts) {
    INFO("message: ", what);
    CHECK(what.find(part) != std::string::npos);
  }
}

// A small sweep table: batch x context, two results; the batch column splits it into lines.
const char* const sweep_plot_small_csv =
    "index,batch,context,tokens_per_s,feasible,reason\n"
    "0,1,512,100.5,1,\n"
    "1,1,1024,90,1,\n"
    "2,8,512,700,1,\"fits, barely\"\n"
    "3,8,1024,nan,0,\"KV \"\"cache\"\" too large\"\n";

std::string sweep_plot_data_text(const strata::sweep_csv_table& t, const strata::sweep_plot_spec& s) {
  std::ostringstream os;
  strata::write_sweep_plot_data(os, t, s, strata::select_sweep_plot(t, s));
  return os.str();
}

std::string sweep_plot_script_text(const strata::sweep_csv_table& t, const strata::sweep_plot_spec& s) {
  std::ostringstream os;
  strata::write_sweep_gnuplot_script(os, t, s, strata::select_sweep_plot(t, s));
  return os.str();
}

}  // namespace

TEST_CASE("read_sweep_csv: header, rows, quoted fields and their lines") {
  const auto t = strata::read_sweep_csv(sweep_plot_small_csv, "small.csv");
  CHECK(t.columns == std::vector<std::string>{"index", "batch", "context", "tokens_per_s", "feasible", "reason"});
  REQUIRE(t.rows.size() == 4);
  CHECK(t.rows[2][5] == "fits, barely");
  CHECK(t.rows[3][5] == "KV \"cache\" too large");
  CHECK(t.rows[0][5].empty());
  CHECK(t.lines == std::vector<std::size_t>{2, 3, 4, 5});
  // CRLF, no final newline, blank lines at the end, a newline inside quotes (the next row's line).
  const auto u = strata::read_sweep_csv("a,b\r\n1,\"x\ny\"\r\n2,3\n\n", "u.csv");
  REQUIRE(u.rows.size() == 2);
  CHECK(u.rows[0][1] == "x\ny");
  CHECK(u.lines == std::vector<std::size_t>{2, 4});
  CHECK(strata::read_sweep_csv("a,b\n1,2", "v.csv").rows.size() == 1);
}

TEST_CASE("read_sweep_csv: malformed and oversized tables are config_errors naming file:line") {
  sweep_plot_expect([] { (void)strata::read_sweep_csv("", "e.csv"); }, "csv", {"e.csv:1", "no header row"});
  sweep_plot_expect([] { (void)strata::read_sweep_csv("a,b\n1\n", "f.csv"); }, "csv",
                                    {"f.csv:2", "1 fields, the header has 2"});
  sweep_plot_expect([] { (void)strata::read_sweep_csv("a,b\n1,2\n\n3,4\n", "g.csv"); }, "csv",
                                    {"g.csv:3", "empty line"});
  sweep_plot_expect([] { (void)strata::read_sweep_csv("a,a\n1,2\n", "h.csv"); }, "csv",
                                    {"h.csv:1", "column 'a' appears twice"});
  sweep_plot_expect([] { (void)strata::read_sweep_csv("a,\n1,2\n", "i.csv"); }, "csv",
                                    {"i.csv:1", "column 2 of the header has no name"});
  sweep_plot_expect([] { (void)strata::read_sweep_csv("a,b\n1,\"2\n", "j.csv"); }, "csv",
                                    {"j.csv:2", "not closed"});
  sweep_plot_expect([] { (void)strata::read_sweep_csv("a,b\n1,\"2\"x\n", "k.csv"); }, "csv",
                                    {"k.csv:2", "after a quoted field"});
  sweep_plot_expect([] { (void)strata::read_sweep_csv("a,b\n1,2\"\n", "l.csv"); }, "csv",
                                    {"l.csv:2", "quote inside an unquoted field"});
  sweep_plot_expect([] { (void)strata::read_sweep_csv("a,b\n1,2\r3\n", "m.csv"); }, "csv",
                                    {"m.csv:2", "carriage return"});
  // Bounds: a cell, the columns, the cells of the whole table.
  const std::string long_cell = "a\n" + std::string(strata::sweep_csv_max_cell_bytes + 1, '7') + "\n";
  sweep_plot_expect([&] { (void)strata::read_sweep_csv(long_cell, "n.csv"); }, "csv",
                                    {"n.csv:2", "longer than 4096 bytes"});
  std::string wide;
  for (std::size_t c = 0; c <= strata::sweep_csv_max_columns; ++c) wide += (c ? ",c" : "c") + std::to_string(c);
  sweep_plot_expect([&] { (void)strata::read_sweep_csv(wide, "o.csv"); }, "csv",
                                    {"o.csv:1", "more than 4096 columns"});
  const strata_test::scoped_restore restore(strata::limits());
  strata::limits().table_cells = 5;
  sweep_plot_expect([] { (void)strata::read_sweep_csv("a,b\n1,2\n3,4\n", "p.csv"); }, "csv",
                                    {"p.csv:3", "table_cells = 5"});
}

TEST_CASE("select_sweep_plot: groups in order of first appearance, numbers and gaps") {
  const auto t = strata::read_sweep_csv(sweep_plot_small_csv, "small.csv");
  const strata::sweep_plot_spec s{.x = "context", .y = {"tokens_per_s", "feasible"}, .by = "batch", .name = "tp"};
  const auto p = strata::select_sweep_plot(t, s);
  CHECK(p.groups == std::vector<std::string>{"1", "8"});
  REQUIRE(p.rows.size() == 4);
  CHECK(p.rows[1].group == 0);
  CHECK(p.rows[2].group == 1);
  CHECK(p.rows[1].x == 1024.0);
  CHECK(p.rows[0].y == std::vector<double>{100.5, 1.0});
  CHECK(std::isnan(p.rows[3].y[0]));
  // Without `by`: one group holding every row.
  const auto q = strata::select_sweep_plot(t, {.x = "index", .y = {"tokens_per_s"}});
  CHECK(q.groups.size() == 1);
  CHECK(q.rows.size() == 4);
}

TEST_CASE("select_sweep_plot: an unknown column or a text cell is a config_error naming it") {
  const auto t = strata::read_sweep_csv(sweep_plot_small_csv, "small.csv");
  sweep_plot_expect([&] { (void)strata::select_sweep_plot(t, {.x = "ctx", .y = {"tokens_per_s"}}); }, "x",
                                    {"no column 'ctx'", "index, batch, context"});
  sweep_plot_expect(
      [&] { (void)strata::select_sweep_plot(t, {.x = "context", .y = {"tokens_per_s", "latency"}}); }, "y",
      {"no column 'latency'"});
  sweep_plot_expect(
      [&] { (void)strata::select_sweep_plot(t, {.x = "context", .y = {"tokens_per_s"}, .by = "tiers"}); }, "by",
      {"no column 'tiers'"});
  sweep_plot_expect([&] { (void)strata::select_sweep_plot(t, {.x = "context", .y = {"reason"}}); }, "csv",
                                    {"small.csv:2", "column 'reason' holds '', not a number"});
  sweep_plot_expect([&] { (void)strata::select_sweep_plot(t, {.x = "context", .y = {}}); }, "y",
                                    {"y names no column"});
  sweep_plot_expect(
      [&] { (void)strata::select_sweep_plot(t, {.x = "context", .y = {"batch"}, .name = "../x"}); }, "name",
      {"not a file name"});
  const auto empty = strata::read_sweep_csv("x,y\n", "empty.csv");
  sweep_plot_expect([&] { (void)strata::select_sweep_plot(empty, {.x = "x", .y = {"y"}}); }, "csv",
                    {"empty.csv", "no rows"});
  // More lines than a legend can hold: 65 groups of one y column.
  std::string many = "g,x,y\n";
  for (int i = 0; i < 65; ++i) many += std::to_string(i) + ",1,2\n";
  const auto m = strata::read_sweep_csv(many, "many.csv");
  CHECK(strata::select_sweep_plot(m, {.x = "x", .y = {"y"}}).rows.size() == 65);
  sweep_plot_expect([&] { (void)strata::select_sweep_plot(m, {.x = "x", .y = {"y"}, .by = "g"}); }, "by",
                                    {"column 'g' has more than 64 values", "64 lines"});
}

TEST_CASE("write_sweep_plot_data: one block per group, x then the y columns, nan for a gap") {
  const auto t = strata::read_sweep_csv(sweep_plot_small_csv, "small.csv");
  const strata::sweep_plot_spec s{.x = "context", .y = {"tokens_per_s"}, .by = "batch", .name = "tp"};
  CHECK(sweep_plot_data_text(t, s) ==
        "# tp: from small.csv, x context, y tokens_per_s, one block per value of batch\n"
        "# batch = 1\n"
        "512 100.5\n"
        "1024 90\n"
        "\n\n"
        "# batch = 8\n"
        "512 700\n"
        "1024 nan\n");
}

TEST_CASE("write_sweep_gnuplot_script: names the columns and the files, quotes outside text") {
  const auto t = strata::read_sweep_csv(sweep_plot_small_csv, "small.csv");
  const strata::sweep_plot_spec s{.x = "context", .y = {"tokens_per_s", "feasible"}, .by = "batch", .name = "tp",
                                  .log_y = true};
  const std::string gp = sweep_plot_script_text(t, s);
  CHECK(gp.find("# tp: written by strata-eval plot --csv from small.csv; gnuplot tp.gp (in this directory)\n") == 0);
  CHECK(gp.find("set xlabel 'context' noenhanced\n") != std::string::npos);
  CHECK(gp.find("set ylabel 'tokens/s, feasible' noenhanced\n") != std::string::npos);
  CHECK(gp.find("set logscale y\n") != std::string::npos);
  CHECK(gp.find("set logscale x\n") == std::string::npos);
  CHECK(gp.find("set output './tp.png'\n") != std::string::npos);
  CHECK(gp.find("set output './tp.svg'\nreplot\nset output\n") != std::string::npos);
  // Two groups x two columns: four lines, each naming its block and column.
  CHECK(gp.find("plot './tp.dat' index 0 using 1:2 with linespoints title 'batch = 1: tokens/s', \\\n"
                "     './tp.dat' index 0 using 1:3 with linespoints title 'batch = 1: feasible', \\\n"
                "     './tp.dat' index 1 using 1:2 with linespoints title 'batch = 8: tokens/s', \\\n"
                "     './tp.dat' index 1 using 1:3 with linespoints title 'batch = 8: feasible'\n") != std::string::npos);
  CHECK(gp.find("set title 'tokens/s, feasible against context' noenhanced\n") != std::string::npos);
  // A hostile group value and title stay text: the quote is drawn as U+2019, the newline a space.
  const auto h = strata::read_sweep_csv("g,x,y\n\"a'b\nsystem('rm')\",1,2\n", "h.csv");
  const std::string hp = sweep_plot_script_text(h, {.x = "x", .y = {"y"}, .by = "g", .name = "h", .title = "t'`x`\n@m"});
  CHECK(hp.find("title 'g = a\xE2\x80\x99" "b system(\xE2\x80\x99rm\xE2\x80\x99)'") != std::string::npos);
  CHECK(hp.find("set title 't\xE2\x80\x99`x` @m' noenhanced\n") != std::string::npos);
  // A name the script cannot hold is refused.
  sweep_plot_expect([&] { (void)sweep_plot_script_text(h, {.x = "x", .y = {"y"}, .name = "a'b"}); }, "plot",
                                    {"holds a quote"});
}

TEST_CASE("a sweep's own CSV (csv_writer) plots by its columns") {
  auto space = strata::cartesian({strata::list_axis("batch", {1, 2}), strata::integer_axis("context", 512, 1024, 512)});
  std::ostringstream csv;
  strata::csv_writer writer(csv, space, {});
  strata::sweep_options options{.threads = 1};
  strata::stream_sweep(space, [](const strata::design_point& x) { return x.as_int("batch") * 1000.0 / x.as_int("context"); },
                       writer, options);
  const auto t = strata::read_sweep_csv(csv.str(), "sweep.csv");
  CHECK(t.columns == std::vector<std::string>{"index", "batch", "context", "value"});
  CHECK(sweep_plot_data_text(t, {.x = "context", .y = {"value"}, .by = "batch", .name = "s"}) ==
        "# s: from sweep.csv, x context, y value, one block per value of batch\n"
        "# batch = 1\n512 1.953125\n1024 0.9765625\n\n\n"
        "# batch = 2\n512 3.90625\n1024 1.953125\n");
}
