#include "strata/report/scenario.hpp"

#include <doctest/doctest.h>

#include <algorithm>  // std::count
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "strata/report/scenario_io.hpp"
#include "strata/report/scenario_files.hpp"
#include "strata/report/scenario_json.hpp"
#include "strata/workload/trace_gen.hpp"
#include "support/field_of.hpp"
#include "support/opening_rule.hpp"
#include "support/scratch_dir.hpp"

using namespace strata;
using strata_test::field_of;

namespace {

// A small HCRMap comparison: two evaluated layers, two windows (seconds on one core).
const char* const small_hcrmap = R"("hcrmap": {"mode": "decode", "windows": 2, "max_layers": 2})";

scenario budget_scenario(const std::string& axes, const std::string& hcrmap = small_hcrmap) {
  return read_scenario(R"({"name": "b", "study": "hcrmap_budget", "model": "DeepSeek-V2-Lite", )" + hcrmap +
                           R"(, "sweep": {"axes": [)" + axes + "]}}",
                       "budget.json");
}

double column(const scenario& s, const std::vector<double>& row, const std::string& name) {
  const auto cols = scenario_columns(s.study);
  for (std::size_t i = 0; i < cols.size(); ++i) {
    if (cols[i] == name) return row.at(i);
  }
  FAIL("no column " << name);
  return 0.0;
}

}  // namespace

TEST_CASE("HCRMap budget study: a point is run_residency_point's comparison, column for column") {
  const auto s = budget_scenario(R"({"name": "budget_factor", "kind": "list", "values": [1.0, 1.6]},
                                    {"name": "sram_scale", "kind": "list", "values": [0.5]})");
  CHECK(s.hcrmap.mode == phase::decode);
  CHECK(s.hcrmap.windows == 2);
  CHECK(s.hcrmap.max_layers == 2);
  const scenario_model model(s);
  REQUIRE(model.space().size() == 2);
  const auto m = preset("DeepSeek-V2-Lite");
  const auto trace = hcrmap_trace(m);
  experiment_params xp;
  xp.windows = 2;
  xp.max_layers = 2;
  for (std::size_t i = 0; i < 2; ++i) {
    const design_point x(model.space(), i);
    const auto row = model(x);
    REQUIRE(row.size() == scenario_columns(s.study).size());
    const residency_point p{.budget_factor = x["budget_factor"], .sram_scale = 0.5, .hbm_scale = 1.0};
    const auto r = run_residency_point({}, m, trace, phase::decode, p, scenario_hcrmap_policies(), xp);
    CAPTURE(p.budget_factor);
    CHECK(column(s, row, "static_normalised") == 1.0);
    CHECK(column(s, row, "hcrmap_normalised") == r.normalised(policy_kind::hcrmap));
    CHECK(column(s, row, "moentwine_normalised") == r.normalised(policy_kind::moentwine));
    CHECK(column(s, row, "static_latency_us") == doctest::Approx(r.of(policy_kind::single_copy_static).latency_s * 1e6));
    CHECK(column(s, row, "hcrmap_edp_ratio") ==
          doctest::Approx(r.of(policy_kind::hcrmap).edp / r.of(policy_kind::single_copy_static).edp));
    CHECK(column(s, row, "packages") == double(r.packages));
    CHECK(column(s, row, "hcrmap_replicas") == double(r.of(policy_kind::hcrmap).replicas));
  }
  // B_res = 1 x the experts: fixed replication has no room for a copy and is static exactly.
  const auto at1 = model(design_point(model.space(), 0));
  CHECK(column(s, at1, "fixed_normalised") == 1.0);
  CHECK(column(s, at1, "fixed_replicas") < column(s, model(design_point(model.space(), 1)), "fixed_replicas"));
}

TEST_CASE("HCRMap budget study: the decode shape is an axis (context) and an option (kv), routed time beside end to end") {
  const auto s = budget_scenario(R"({"name": "context", "kind": "list", "values": [512, 4096]})",
                                 R"("hcrmap": {"mode": "decode", "windows": 1, "max_layers": 1, "kv": "dram"})");
  CHECK(s.hcrmap.kv == kv_placement::dram);
  const scenario_model model(s);
  REQUIRE(model.space().size() == 2);
  const auto m = preset("DeepSeek-V2-Lite");
  const auto trace = hcrmap_trace(m);
  std::vector<double> non_routed;
  for (std::size_t i = 0; i < 2; ++i) {
    const design_point x(model.space(), i);
    const auto row = model(x);
    experiment_params xp;
    xp.windows = 1;
    xp.max_layers = 1;
    xp.context = static_cast<int>(x["context"]);
    xp.scale_out.residency.kv = kv_placement::dram;
    const auto r = run_residency_point({}, m, trace, phase::decode, {}, scenario_hcrmap_policies(), xp);
    CAPTURE(xp.context);
    CHECK(column(s, row, "static_routed_us") == doctest::Approx(r.of(policy_kind::single_copy_static).moe_s * 1e6));
    CHECK(column(s, row, "hcrmap_routed_us") == doctest::Approx(r.of(policy_kind::hcrmap).moe_s * 1e6));
    CHECK(column(s, row, "non_routed_us") == doctest::Approx(r.non_routed_s * 1e6));
    // End to end = routed + the policy-independent rest.
    CHECK(column(s, row, "static_latency_us") ==
          doctest::Approx(column(s, row, "static_routed_us") + column(s, row, "non_routed_us")));
    non_routed.push_back(column(s, row, "non_routed_us"));
  }
  CHECK(non_routed[1] > non_routed[0]);  // 8x the KV cache to read every step
  const auto fails_at = [](const std::string& text) { return field_of([&] { (void)read_scenario(text, "bad.json"); }); };
  CHECK(fails_at(R"({"name": "b", "study": "hcrmap_budget", "hcrmap": {"kv": "on_die"}, "sweep": {"axes": [{"name": "context", "kind": "list", "values": [512]}]}})") ==
        "hcrmap.kv");
}

TEST_CASE("run_residency_point: Table 1's point is run_experiment's; the budget and the scales are checked") {
  const auto m = preset("DeepSeek-V2-Lite");
  const auto trace = hcrmap_trace(m);
  experiment_params xp;
  xp.windows = 1;
  xp.max_layers = 1;
  const std::vector<policy_kind> pol{policy_kind::single_copy_static, policy_kind::hcrmap};
  const auto a = run_residency_point({}, m, trace, phase::prefill, {}, pol, xp);
  const auto b = run_experiment(substrate{}, m, trace, phase::prefill, pol, xp);
  CHECK(a.of(policy_kind::hcrmap).latency_s == b.of(policy_kind::hcrmap).latency_s);
  CHECK(a.packages == b.packages);
  CHECK(field_of([&] { (void)run_residency_point({}, m, trace, phase::prefill, {.budget_factor = 0.9}, pol, xp); }) ==
        "budget_factor");
  CHECK(field_of([&] { (void)run_residency_point({}, m, trace, phase::prefill, {.sram_scale = 32.0}, pol, xp); }) ==
        "sram_scale");
  CHECK(field_of([&] { (void)run_residency_point({}, m, trace, phase::prefill, {.hbm_scale = 0.0}, pol, xp); }) ==
        "hbm_scale");
}

TEST_CASE("HCRMap pressure study: each policy's map sums to the chiplet count, static's busy time is the routed work") {
  const auto s = read_scenario(
      R"({"name": "p", "study": "hcrmap_pressure", "model": "DeepSeek-V2-Lite", )" + std::string(small_hcrmap) +
          R"(, "sweep": {"axes": [{"name": "x", "kind": "integer", "first": 0, "last": 3},
                                 {"name": "y", "kind": "integer", "first": 0, "last": 3}]},
             "plot": {"x": "x", "series": "y", "y": ["static_pressure", "hcrmap_pressure"], "style": "heatmap"}})",
      "pressure.json");
  const substrate_params sp;
  REQUIRE(sp.mesh_x == 4);
  REQUIRE(sp.mesh_y == 4);
  const scenario_model model(s);
  REQUIRE(model.space().size() == 16);
  const auto cols = scenario_columns(s.study);
  std::vector<double> sums(cols.size(), 0.0);
  plot_collector plot(s, model.space());
  for (std::size_t i = 0; i < model.space().size(); ++i) {
    const design_point x(model.space(), i);
    const auto row = model(x);
    plot(x, row);
    for (std::size_t c = 0; c < row.size(); ++c) sums[c] += row[c];
  }
  for (std::size_t c = 0; c < 6; ++c) {
    CAPTURE(cols[c]);
    CHECK(sums[c] == doctest::Approx(16.0));
  }
  // Static's busy time over the package: tokens x k per evaluated layer, Ops per token on one
  // chiplet's cores (Eq. 13 at chiplet level), the same routed work whatever the placement.
  const auto m = preset("DeepSeek-V2-Lite");
  const substrate sub;
  const critical_path_params cp;
  const double chiplet = sub.core_throughput().si() * cp.tile_utilization * sp.cores_per_chiplet;
  const double work_us = 512.0 * m.top_k * 2.0 * moe_shape(m).flops_per_token.si() / chiplet * 1e6;
  CHECK(sums[6] == doctest::Approx(work_us).epsilon(1e-9));
  CHECK(sums[7] == doctest::Approx(work_us).epsilon(1e-9));

  // The heatmap: one scanline per y value, rows "x y static hcrmap"; the script draws two maps.
  std::ostringstream dat, gp;
  write_plot_data(dat, s, plot.points());
  write_gnuplot_script(gp, s, plot.points());
  const std::string d = dat.str();
  CHECK(d.rfind("# x y static_pressure hcrmap_pressure\n0 0 ", 0) == 0);
  CHECK(d.find("\n3 0 ") < d.find("\n\n0 1 "));
  CHECK(gp.str().find("set multiplot layout 1,2") != std::string::npos);
  CHECK(gp.str().find("using 1:2:4 with image") != std::string::npos);
}

TEST_CASE("HCRMap scenarios: bad input names its JSON path") {
  const auto fails_at = [](const std::string& text) { return field_of([&] { (void)read_scenario(text, "bad.json"); }); };
  const std::string budget_axis = R"({"name": "budget_factor", "kind": "list", "values": [1.3]})";
  CHECK(fails_at(R"({"name": "b", "study": "hcrmap_budget", "sweep": {"axes": [{"name": "budget_factor", "kind": "list", "values": [0.5]}]}})") ==
        "sweep.axes[0].values[0]");
  CHECK(fails_at(R"({"name": "b", "study": "hcrmap_budget", "model": "Qwen2.5-32B", "sweep": {"axes": [)" + budget_axis + "]}}") ==
        "model");
  CHECK(fails_at(R"({"name": "b", "study": "device", "hcrmap": {}, "sweep": {"axes": [{"name": "layers", "kind": "list", "values": [512]}]}})") ==
        "hcrmap");
  CHECK(fails_at(R"({"name": "b", "study": "hcrmap_budget", "hcrmap": {"mode": "train"}, "sweep": {"axes": [)" + budget_axis + "]}}") ==
        "hcrmap.mode");
  CHECK(fails_at(R"({"name": "b", "study": "hcrmap_budget", "hcrmap": {"windows": 0}, "sweep": {"axes": [)" + budget_axis + "]}}") ==
        "hcrmap.windows");
  CHECK(fails_at(R"({"name": "b", "study": "hcrmap_budget", "hcrmap": {"seed": 1}, "sweep": {"axes": [)" + budget_axis + "]}}") ==
        "hcrmap.seed");
  CHECK(fails_at(R"({"name": "p", "study": "hcrmap_pressure", "sweep": {"axes": [{"name": "x", "kind": "integer", "first": 0, "last": 4}]}})") ==
        "sweep.axes[0].last");
  // Each point is a whole experiment: the points of an HCRMap study are bounded.
  CHECK(fails_at(R"({"name": "b", "study": "hcrmap_budget", "sweep": {"axes": [{"name": "budget_factor", "kind": "linear", "first": 1, "last": 4, "count": 300}]}})") ==
        "sweep.axes");
  CHECK(fails_at(R"({"name": "p", "study": "hcrmap_pressure", "sweep": {"axes": [{"name": "x", "kind": "integer", "first": 0, "last": 3}]},
                     "plot": {"x": "x", "y": "hcrmap_pressure", "style": "heatmap"}})") == "plot.series");
  CHECK(fails_at(R"({"name": "p", "study": "hcrmap_pressure", "sweep": {"axes": [{"name": "x", "kind": "integer", "first": 0, "last": 3}]},
                     "plot": {"x": "x", "y": "hcrmap_pressure", "style": "bars"}})") == "plot.style");
  // A trace the scenario names must be loaded; a file that cannot be read names its key.
  const auto named = budget_scenario(budget_axis, R"("hcrmap": {"trace": "no/such/trace.csv"})");
  CHECK(field_of([&] { (void)scenario_model(named); }) == "hcrmap.trace");
  CHECK(field_of([&] { (void)load_scenario_inputs(named); }) == "hcrmap.trace");
  const auto ck = budget_scenario(budget_axis, R"("hcrmap": {"checkpoint": "no/such/dqn.json"})");
  CHECK(field_of([&] { (void)load_scenario_inputs(ck); }) == "hcrmap.checkpoint");
  // A loaded trace of another routing width than the model's top-6 is refused by both studies.
  for (const int k : {1, 3}) {
    CAPTURE(k);
    auto g = trace_gen_for(preset("DeepSeek-V2-Lite"));
    g.sequences = 8;
    g.k = k;
    for (const char* study : {"hcrmap_budget", "hcrmap_pressure"}) {
      CAPTURE(study);
      const std::string axis = std::string(study) == "hcrmap_budget" ? budget_axis
                                                                      : R"({"name": "x", "kind": "list", "values": [0]})";
      const auto sc = read_scenario(R"({"name": "b", "study": ")" + std::string(study) +
                                        R"(", "model": "DeepSeek-V2-Lite", "hcrmap": {"trace": "narrow.csv", "max_layers": 2}, "sweep": {"axes": [)" +
                                        axis + "]}}",
                                    "narrow.json");
      scenario_inputs in;
      in.trace = generate_trace(g);
      CHECK_THROWS_WITH_AS((void)scenario_model(sc, in),
                           doctest::Contains(("hcrmap.trace narrow.csv: top-" + std::to_string(k) +
                                              " routing, but DeepSeek-V2-Lite routes top-6").c_str()),
                           config_error);
      in.trace = generate_trace(g);
      CHECK(field_of([&] { (void)scenario_model(sc, in); }) == "hcrmap.trace");
    }
  }
}

TEST_CASE("a device study checks its own points: their layers and tiers, the system's only where no axis sets them") {
  const auto device_study = [](const std::string& sweep) {
    return read_scenario(R"({"name": "d", "study": "device", "sweep": )" + sweep + "}", "d.json");
  };
  const auto fails = [&](const std::string& sweep) { return field_of([&] { (void)device_study(sweep); }); };
  const auto layers = [](const std::string& v) { return R"({"name": "layers", "kind": "list", "values": [)" + v + "]}"; };
  const auto tiers = [](const std::string& v) { return R"({"name": "tiers", "kind": "list", "values": [)" + v + "]}"; };
  // Layers {4, 6} x tiers {2}: every point has tiers <= layers (the system's 8 tiers are not a point's).
  const auto ok = device_study(R"({"axes": [)" + layers("4, 6") + ", " + tiers("2") + "]}");
  const scenario_model run(ok);
  REQUIRE(run.space().size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    const auto row = run(design_point(run.space(), i));
    CHECK(row.front() > 1.0);  // the latency spread of 2 tiers
    CHECK(std::isfinite(row.front()));
  }
  CHECK_NOTHROW((void)device_study(R"({"axes": [)" + tiers("2, 4") + ", " + layers("4, 16") + "]}"));
  CHECK_NOTHROW((void)device_study(R"({"axes": [)" + layers("8, 1024") + "]}"));  // the system's 8 tiers
  CHECK_NOTHROW((void)device_study(R"({"axes": [)" + tiers("1, 16") + "]}"));      // the system's layers
  // Refused, naming the point: a product point, the system's tiers at a point's layers, a zipped point.
  CHECK(fails(R"({"axes": [)" + layers("4, 6") + ", " + tiers("2, 5") + "]}") == "sweep.axes");
  CHECK_THROWS_WITH_AS((void)device_study(R"({"axes": [)" + layers("4, 6") + ", " + tiers("2, 5") + "]}"),
                       doctest::Contains("at point 1 (layers 4, tiers 5) sets more tiers (5) than WL layers (4)"), config_error);
  CHECK_THROWS_WITH_AS((void)device_study(R"({"axes": [)" + layers("16, 4") + "]}"),
                       doctest::Contains("at point 1 (layers 4, the system's tiers 8)"), config_error);
  CHECK_THROWS_WITH_AS(
      (void)device_study(R"({"combine": "zip", "axes": [)" + layers("4, 16, 8") + ", " + tiers("4, 2, 16") + "]}"),
      doctest::Contains("at point 2 (layers 8, tiers 16) sets more tiers (16)"), config_error);
  CHECK_NOTHROW((void)device_study(R"({"combine": "zip", "axes": [)" + layers("4, 16") + ", " + tiers("4, 16") + "]}"));
}

namespace {

// The characters of `line` outside its single-quoted strings (a quote never occurs inside one).
std::string outside_quotes(const std::string& line) {
  std::string out;
  bool inside = false;
  for (char c : line) {
    if (c == '\'') {
      inside = !inside;
    } else if (!inside) {
      out += c;
    }
  }
  CHECK_MESSAGE(!inside, "a string is left open: " << line);
  return out;
}

// Every line of `script` is a comment or a command whose outside-quote text is the script's own:
// no backquote, macro, shell escape, double quote or function call from the data.
void check_script_lines(const std::string& script) {
  std::istringstream in(script);
  std::string line;
  while (std::getline(in, line)) {
    CAPTURE(line);
    if (line.rfind("# ", 0) == 0) continue;
    const bool command = line.rfind("set ", 0) == 0 || line.rfind("unset ", 0) == 0 || line.rfind("plot ", 0) == 0 ||
                         line.rfind("     '", 0) == 0 || line == "replot";
    CHECK(command);
    std::string bare = outside_quotes(line);
    // The one double-quoted text of a script: its own newline between the lines of a wrapped title.
    for (std::size_t at = bare.find(".\"\\n\"."); at != std::string::npos; at = bare.find(".\"\\n\".")) bare.erase(at, 6);
    for (const char* bad : {"`", "@", "!", "\"", "system", "load", "call", "print"}) CHECK(bare.find(bad) == std::string::npos);
  }
}

}  // namespace

TEST_CASE("gnuplot scripts: text from outside is a single-quoted string, a file name is a file") {
  SUBCASE("gnuplot_string") {
    CHECK(gnuplot_string("fig 18b") == "'fig 18b'");
    CHECK(gnuplot_string("it's") == "'it\xE2\x80\x99s'");
    CHECK(gnuplot_string("''") == "'\xE2\x80\x99\xE2\x80\x99'");
    CHECK(gnuplot_string("`touch x` $(y) @m \"q\" \\") == "'`touch x` $(y) @m \"q\" \\'");
    CHECK(gnuplot_string("a\nset output '|x'\r\t\x7f") == "'a set output \xE2\x80\x99|x\xE2\x80\x99   '");
    CHECK(gnuplot_string("") == "''");
  }
  SUBCASE("gnuplot_file") {
    CHECK(gnuplot_file("fig.dat") == "'./fig.dat'");
    CHECK(gnuplot_file("<touch x") == "'./<touch x'");
    CHECK(gnuplot_file("|touch x") == "'./|touch x'");
    CHECK(gnuplot_file("-") == "'./-'");
    CHECK(gnuplot_file("/abs/fig.png") == "'/abs/fig.png'");
    CHECK(field_of([] { (void)gnuplot_file("it's.png"); }) == "plot");
    CHECK(field_of([] { (void)gnuplot_file("a\nb.png"); }) == "plot");
  }
  SUBCASE("every outside string of a scenario, lines and heatmap") {
    auto s = read_scenario(R"({"name": "n", "study": "device", "title": "t",
      "sweep": {"axes": [{"name": "layers", "kind": "list", "values": [128, 256]}, {"name": "tiers", "kind": "list", "values": [2, 4]}]},
      "plot": {"x": "layers", "y": ["latency_spread", "fastest_latency_ns"], "series": "tiers"}})",
                           "n.json");
    const std::vector<plot_point> pts{{128, 2, {1.0, 2.0}}, {256, 2, {1.5, 2.5}}, {128, 4, {1.1, 2.1}}, {256, 4, {1.6, 2.6}}};
    std::ostringstream plain;
    write_gnuplot_script(plain, s, pts);
    const auto lines = [](const std::string& t) { return std::count(t.begin(), t.end(), '\n'); };
    // A library caller may set any text, the file stem included.
    const std::string hostile = "x `touch PWN` ' . system('touch PWN') . ' \" . system(\"touch PWN\") . \" @m\n!touch PWN\\";
    s.name = "n `touch PWN` <x|y";
    s.title = hostile;
    s.plot.title = hostile + "t";
    s.plot.x_label = hostile + "x";
    s.plot.y_label = hostile + "y";
    s.plot.series = hostile + "s";
    s.plot.y = {hostile + "1", hostile + "2"};
    for (const bool heatmap : {false, true}) {
      CAPTURE(heatmap);
      s.plot.heatmap = heatmap;
      std::ostringstream gp;
      write_gnuplot_script(gp, s, pts, {.data = {}, .png = ".n.png.1.render", .svg = {}});
      const std::string text = gp.str();
      check_script_lines(text);
      if (!heatmap) CHECK(lines(text) == lines(plain.str()));  // no newline from the data
      // The title, wrapped at spaces into lines joined by the script's own ."\n". (a line each).
      std::string joined = text;
      for (std::size_t at = joined.find("'.\"\\n\".'"); at != std::string::npos; at = joined.find("'.\"\\n\".'")) {
        joined.replace(at, 8, " ");
      }
      CHECK(joined.find(std::string(heatmap ? "set multiplot layout 1,2 title" : "set title") +
                        " 'x `touch PWN` \xE2\x80\x99 . system(\xE2\x80\x99touch PWN\xE2\x80\x99) . \xE2\x80\x99 \" . "
                        "system(\"touch PWN\") . \" @m !touch PWN\\t' noenhanced\n") != std::string::npos);
      CHECK(joined != text);  // wrapped
      CHECK(text.find("set output './.n.png.1.render'\n") != std::string::npos);
      CHECK(text.find("set output './n `touch PWN` <x|y.svg'\n") != std::string::npos);
      CHECK(text.find("'./n `touch PWN` <x|y.dat'") != std::string::npos);
    }
  }
}

TEST_CASE("a device point's fewest chips: the bounded scan gives the full scan's answer") {
  // The scan starts at ⌊routed-expert bytes / (stages × one chip's capacity)⌋ and skips a chip
  // whose logic die is infeasible; the reference tries every count from 1.
  const auto reference = [](stratum_system_params<> p, const model& m, const step_shape& s) {
    for (int c = 1; c <= 256; ++c) {
      p.chips = c;
      if (evaluate_decode(p, m, s).feasible) return c;
    }
    return 0;
  };
  const step_shape s{.mode = phase::decode, .batch = 16, .context = 2048};
  for (const char* name : {"Mixtral-8x7B", "OLMoE-1B-7B-0924", "DeepSeek-V2-Lite", "Qwen2.5-32B", "Mixtral-8x22B"}) {
    const auto m = preset(name);
    for (const char* sys : {"stratum-s", "stratum-l", "stratum-xl"}) {
      for (int layers : {64, 256, 1024}) {
        CAPTURE(name);
        CAPTURE(sys);
        CAPTURE(layers);
        const auto p = detail::device_point_system(stratum_system(sys), layers, 4);
        const auto [chips, r] = detail::fewest_chips(p, m, s, {});
        CHECK(chips == reference(p, m, s));
        CHECK(r.feasible == (chips > 0));
      }
    }
  }
}

TEST_CASE("the files a scenario names open under the opening rule (core/files.hpp), named by their key") {
  const std::string budget_axis = R"({"name": "budget_factor", "kind": "list", "values": [1.3]})";
  const auto with = [&](const char* key, const std::string& path) {
    return budget_scenario(budget_axis, std::string(R"("hcrmap": {")") + key + "\": " + json(path).dump() + "}");
  };
  SUBCASE("hcrmap.trace") {
    strata_test::check_opening_rule([&](const std::string& p) { (void)load_scenario_inputs(with("trace", p)); }, "trace",
                                    "hcrmap.trace", &input_limits::trace_file_bytes, "trace_file_bytes",
                                    "seq,pos,L1\n0,0,0 1 2 3 4 5\n");
  }
  SUBCASE("hcrmap.checkpoint") {
    strata_test::check_opening_rule([&](const std::string& p) { (void)load_scenario_inputs(with("checkpoint", p)); },
                                    "checkpoint", "hcrmap.checkpoint", &input_limits::checkpoint_file_bytes,
                                    "checkpoint_file_bytes",
                                    strata_test::slurp(std::string(STRATA_TEST_DATA_DIR) + "/hcrmap/dqn_checkpoint.json"));
  }
}

TEST_CASE("a scenario whose name is invalid UTF-8 (bytes FF FE) is refused naming the file, not a type_error") {
  const std::string text = "{\"name\": \"b\xFF\xFE\", \"study\": \"device\", \"sweep\": {\"axes\": []}}";
  CHECK_THROWS_WITH_AS((void)read_scenario(text, "bad_name.json"), doctest::Contains("bad_name.json"), config_error);
}
