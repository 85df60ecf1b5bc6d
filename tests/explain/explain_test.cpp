// SPDX-License-Identifier: MIT
// The gap explainer (report/explain.hpp, report/explain_groups.hpp): a gap re-derived by hand from
// a one-parameter closed form, every out-of-tolerance check row of the re-evaluated families with
// a verified gap list, family lines that hold when their changes are re-run together, the cited
// range table and its docs copy.

#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "strata/report/explain_groups.hpp"
#include "strata/report/explain_json.hpp"
#include "strata/report/paper_rows.hpp"
#include "strata/report/parameter_ranges.hpp"

namespace {

// The rows of the GPU validation's measurement set as `validation_rows` builds them, from the
// published fit without the leave-one-out folds (which no check row reads).
std::vector<strata::paper_row> explain_test_validation_rows() {
  const strata::fit_options fo{};
  std::vector<strata::prepared_measurement> p;
  for (const auto& m : strata::published_gpu_measurements()) p.push_back(strata::prepare_measurement(m, fo.model));
  return strata::validation_rows(strata::report_gpu_baseline(p, strata::published_gpu_fit(), fo.model));
}

const strata::explain_group& explain_test_group(const std::string& family) {
  static std::vector<std::pair<std::string, strata::explain_group>> made;
  for (const auto& [name, g] : made) {
    if (name == family) return g;
  }
  for (const auto& f : strata::explain_families()) {
    if (f.name == family) {
      made.emplace_back(family, f.make());
      return made.back().second;
    }
  }
  throw std::logic_error("no family " + family);
}

// Row `id` of group `family` with the parameters `changes` set, run on a fresh copy of the group
// (not through the explainer's runner).
double explain_test_rerun(const std::string& family, const std::vector<std::pair<std::string, double>>& changes,
                          const std::string& id) {
  auto g = explain_test_group(family);  // a copy shares the group's state: undo below
  std::vector<std::size_t> set;
  for (const auto& [name, v] : changes) {
    for (std::size_t i = 0; i < g.parameters.size(); ++i) {
      if (g.parameters[i].name == name) {
        g.parameters[i].set(v);
        set.push_back(i);
      }
    }
  }
  REQUIRE(set.size() == changes.size());
  const double y = g.evaluate({id}).front();
  for (std::size_t i : set) g.parameters[i].set(g.parameters[i].cited);
  return y;
}

const strata::paper_row& explain_test_row(const std::vector<strata::paper_row>& rows, const std::string& id) {
  for (const auto& r : rows) {
    if (r.id == id) return r;
  }
  throw std::logic_error("no row " + id);
}

bool explain_test_passes(strata::paper_row r, double v) {
  r.value = v;
  return r.ok().value_or(false);
}

}  // namespace

TEST_CASE("explain: the per-operator cost that closes a validation row, by hand (the row is affine in it)") {
  // model_measurement's time is a sum over operators of their roofline time plus the per-operator
  // cost l: affine in l, t(l) = t0 + n (l - l0). The row is above its band: the needed l puts it on
  // the band's upper edge, paper (1 + tol).
  const auto rows = explain_test_validation_rows();
  const std::string id = "validation.check.vllm3240-mixtral8x7b-a100-tp2-b64";
  const auto& row = explain_test_row(rows, id);
  REQUIRE(!row.ok().value_or(true));
  const double l0 = strata::published_gpu_fit().knobs.op_overhead.si();
  const double t0 = explain_test_rerun("gpu validation", {}, id);
  CHECK(t0 == doctest::Approx(row.value).epsilon(1e-12));
  const double t1 = explain_test_rerun("gpu validation", {{"gpu_knobs.op_overhead", l0 + 1e-6}}, id);
  const double n = (t1 - t0) / 1e-6;  // operators (weighted by steps) of the run
  CHECK(n > 0.0);
  const double t2 = explain_test_rerun("gpu validation", {{"gpu_knobs.op_overhead", l0 - 5e-6}}, id);
  CHECK(t2 == doctest::Approx(t0 - 5e-6 * n).epsilon(1e-9));  // affine
  const double edge = *row.paper * (1.0 + row.tolerance);
  REQUIRE(t0 > edge);
  const double by_hand = l0 + (edge - t0) / n;

  const auto x = strata::explain_report(rows, {id});
  REQUIRE(x.rows.size() == 1);
  const auto& r = x.rows.front();
  CHECK(r.closed_by_one);
  bool found = false;
  for (const auto& e : r.gap) {
    if (e.parameter != "gpu_knobs.op_overhead") continue;
    found = true;
    REQUIRE(e.needed);
    CHECK(*e.needed == doctest::Approx(by_hand).epsilon(1e-5));
    CHECK(*e.needed <= by_hand * (1.0 + 1e-9));  // on the passing side of the edge
    CHECK(e.closes);
    // op_overhead's cited range is [0, 60 us] (linear): the change over the range's width.
    CHECK(e.range_units == doctest::Approx(std::abs(*e.needed - l0) / 60e-6).epsilon(1e-12));
    REQUIRE(e.relative_change);
    CHECK(*e.relative_change == doctest::Approx(*e.needed / l0 - 1.0));
    CHECK(explain_test_passes(row, explain_test_rerun("gpu validation", {{"gpu_knobs.op_overhead", *e.needed}}, id)));
  }
  CHECK(found);
  // Ranked by range units, the closing ones first.
  for (std::size_t i = 1; i < r.gap.size(); ++i) {
    if (r.gap[i].closes) {
      CHECK(r.gap[i - 1].closes);
      CHECK(r.gap[i - 1].range_units <= r.gap[i].range_units);
    }
  }
  const auto j = strata::row_explanation_json(r);
  for (const char* k : {"parameter", "cited", "needed", "relative_change", "range_units", "closes"}) {
    CHECK(j["gap"][0].contains(k));
  }
}

TEST_CASE("explain: every failing check row of the re-evaluated families has a verified gap list") {
  strata::paper_report_options po;
  po.only = {"stratum-results"};
  po.threads = 1;
  auto rows = strata::paper_rows(po);
  for (auto& r : explain_test_validation_rows()) rows.push_back(std::move(r));
  for (auto& r : strata::serving_validation_rows(strata::baseline_gpu(strata::h100_sxm5()),
                                                 "validation.serving.mixtral_tp2_h100.", "cited knobs")) {
    rows.push_back(std::move(r));
  }
  std::vector<std::string> failing;
  for (const auto& r : rows) {
    if (r.kind == strata::row_kind::check && !r.ok().value_or(true)) failing.push_back(r.id);
  }
  // The known misses of these families (docs/paper_report.md): five Stratum rows and two
  // validation rows. The serving rows on the cited knobs are within tolerance since the engine
  // charges vLLM's sampler (`baseline/gpu_sampler.hpp`: the three-run mean TTFT -24.99 %).
  CHECK(failing.size() == 7);
  const auto x = strata::explain_report(rows);
  CHECK(x.unexplained.empty());
  REQUIRE(x.rows.size() == failing.size());
  std::size_t closed = 0;
  for (const auto& r : x.rows) {
    CAPTURE(r.id);
    CHECK(std::find(failing.begin(), failing.end(), r.id) != failing.end());
    CHECK(!r.gap.empty());
    CHECK(!r.elasticities.empty());
    const auto& row = explain_test_row(rows, r.id);
    for (const auto& e : r.gap) {
      CAPTURE(e.parameter);
      if (!e.needed) {
        CHECK(!e.closes);
        continue;
      }
      // `closes` is what a fresh run of the row with that change alone says.
      CHECK(e.closes == explain_test_passes(row, explain_test_rerun(r.family, {{e.parameter, *e.needed}}, r.id)));
    }
    for (const auto& p : r.pairs) {
      if (!p.closes) continue;
      CHECK(explain_test_passes(row, explain_test_rerun(r.family, {{p.parameters[0], p.needed[0]}, {p.parameters[1], p.needed[1]}}, r.id)));
    }
    closed += r.closed_by_one ? 1 : 0;
  }
  CHECK(closed >= 6);
  // Family lines: their changes re-run together close what they say and break what they say.
  REQUIRE(!x.families.empty());
  for (const auto& f : x.families) {
    CAPTURE(f.family);
    std::vector<std::pair<std::string, double>> changes;
    for (const auto& c : f.changes) changes.push_back({c.parameter, c.needed});
    for (const auto& id : f.closes) CHECK(explain_test_passes(explain_test_row(rows, id), explain_test_rerun(f.family, changes, id)));
    for (const auto& id : f.still_failing) CHECK(!explain_test_passes(explain_test_row(rows, id), explain_test_rerun(f.family, changes, id)));
    for (const auto& id : f.breaks) CHECK(!explain_test_passes(explain_test_row(rows, id), explain_test_rerun(f.family, changes, id)));
    CHECK(f.closes.size() + f.still_failing.size() == f.failing);
  }
  // The Stratum family: one change closes more than one row.
  for (const auto& f : x.families) {
    if (f.family == "stratum results") CHECK(f.closes.size() >= 2);
  }
}

TEST_CASE("explain: an HCRMap row without a family is listed with the reason it is not re-evaluated") {
  std::vector<strata::paper_row> rows{strata::bound_row("hcrmap.premise.copies_cut_queueing", 1.5, "x", 1.0,
                                                        strata::row_check::at_most, "HCRMap Fig. 2(b)")};
  const auto x = strata::explain_report(rows);
  CHECK(x.rows.empty());
  REQUIRE(x.unexplained.size() == 1);
  CHECK(x.unexplained[0].reason.find("16 HCRMap experiments") != std::string::npos);
  CHECK(x.unexplained[0].reason.find("no gap is verified") != std::string::npos);
}

TEST_CASE("explain: ranges resolve through the table, the aliases and the one-decade default") {
  const auto oh = strata::range_of("stratum_system_params.xpu.op_overhead", 4e-6);  // alias of gpu_params
  CHECK(oh.stated);
  CHECK(oh.lo == 0.0);
  CHECK(oh.hi == doctest::Approx(60e-6));
  CHECK(!oh.logarithmic());
  CHECK(oh.units(4e-6, 10e-6) == doctest::Approx(0.1));
  const auto bw = strata::range_of("gpu_params.memory_bandwidth", 3.35e12);  // relative
  CHECK(bw.lo == doctest::Approx(3.0e12));
  CHECK(bw.hi == doctest::Approx(3.35e12));
  CHECK(bw.units(3.35e12, 3.0e12) == doctest::Approx(1.0));
  CHECK(bw.at(3.35e12, 1.0, -1) == doctest::Approx(3.0e12));
  const auto none = strata::range_of("stratum_system_params.nmp.chip.memory.staircase_step", 1e-6);
  CHECK(!none.stated);
  CHECK(none.lo == doctest::Approx(1e-7));
  CHECK(none.hi == doctest::Approx(1e-5));
  CHECK(none.units(1e-6, 1e-5) == doctest::Approx(0.5));  // one decade of a two-decade range
  CHECK(!strata::range_of("gpu_params.peak_flops_fp4", 0.0).usable());  // cited 0, no stated range: no scale
  // The nested DRAM refresh structs read one JESD79-5 range (the aliases).
  for (const char* k : {"stratum_system_params.nmp.refresh.t_refi", "stratum_system_params.hbm.refresh.t_refi",
                        "stratum_stack_params.refresh.t_refi"}) {
    CAPTURE(k);
    const auto r = strata::range_of(k, 3.9e-6);
    CHECK(r.stated);
    CHECK(r.lo == doctest::Approx(1.95e-6));
    CHECK(r.hi == doctest::Approx(3.9e-6));
  }
  // A fraction, efficiency, utilisation or share bounded by its definition has that range, not a
  // decade each way (which put an efficiency of 0.9 up to 9).
  for (const char* k : {"stratum_system_params.nmp.compute_efficiency", "stratum_system_params.nmp.chip.memory.array_efficiency",
                        "stratum_system_params.nmp.chip.logic.alpha", "stratum_system_params.nmp.chip.logic.tech.sram_array_efficiency",
                        "stratum_system_params.nmp.chip.logic.tech.placement_utilization",
                        "stratum_system_params.nmp.chip.logic.tech.fp16_add_area_fraction", "stratum_stack_params.array.oxide_fraction",
                        "stratum_stack_params.dram_load", "critical_path_params.tile_utilization", "critical_path_params.alpha_mig",
                        "critical_path_params.compute_scale", "gpu_params.usable_memory_fraction",
                        "stratum_system_params.xpu_wait_power_fraction"}) {
    CAPTURE(k);
    const auto r = strata::range_of(k, 0.5);
    CHECK(r.stated);
    CHECK(r.lo == 0.0);
    CHECK(r.hi == 1.0);
    CHECK(r.units(0.5, 0.75) == doctest::Approx(0.25));  // linear: a quarter of the range
  }
  for (const char* k : {"gpu_params.compute_efficiency", "gpu_params.memory_efficiency"}) {
    CAPTURE(k);
    CHECK(strata::range_of(k, 0.8).hi == 1.0);
  }
  // Every parameter of the generated table named as a fraction, efficiency or utilisation has a
  // range within [0, 1].
  std::istringstream table(strata::parameter_range_table_markdown());
  std::size_t fractions = 0;
  for (std::string line; std::getline(table, line);) {
    const auto a = line.find("| ", 0), b = line.find(" |", 2);
    if (a != 0 || b == std::string::npos) continue;
    const std::string key = line.substr(2, b - 2);
    bool fraction = false;
    for (const char* end : {"efficiency", "fraction", "utilization", "alpha", "dram_load"}) {
      const std::string e(end);
      fraction = fraction || (key.size() >= e.size() && key.compare(key.size() - e.size(), e.size(), e) == 0);
    }
    if (!fraction) continue;
    CAPTURE(key);
    ++fractions;
    const auto range = line.find(" | ", b + 2);
    REQUIRE(range != std::string::npos);
    const auto dots = line.find(" .. ", range);
    REQUIRE(dots != std::string::npos);
    CHECK(std::stod(line.substr(dots + 4)) <= 1.0);
  }
  CHECK(fractions >= 18);
  // A supply voltage within JEDEC's tolerance; the HBM2 tier within HBM2's pin rates.
  const auto vdd = strata::range_of("stratum_system_params.nmp.chip.logic.v_dram_core", 1.1);
  CHECK(vdd.lo == doctest::Approx(1.067));
  CHECK(vdd.hi == doctest::Approx(1.166));
  const auto hbm = strata::range_of("substrate_params.hbm.bandwidth", 460e9);
  CHECK(hbm.lo == doctest::Approx(460e9 * 1.4 / 1.8));
  CHECK(hbm.hi == doctest::Approx(460e9 * 2.4 / 1.8));
  CHECK(hbm.units(460e9, 120e9) == doctest::Approx(std::log(460.0 / 120.0) / std::log(2.4 / 1.4)));
  // HCRMap Table 1's DRAM tier, 8 DDR5-6400 channels at 8 B a transfer: the JEDEC speed bins
  // DDR5-3200 to DDR5-8800 over the same channels; its HBM2 tier, 8 GB over two stacks: JESD235B's
  // 1 to 24 GB a stack.
  const auto ddr5 = strata::range_of("substrate_params.dram.bandwidth", 8 * 6400e6 * 8);
  CHECK(ddr5.stated);
  CHECK(ddr5.lo == doctest::Approx(8 * 3200e6 * 8));
  CHECK(ddr5.hi == doctest::Approx(8 * 8800e6 * 8));
  const auto hbm_capacity = strata::range_of("substrate_params.hbm.capacity", 8e9);
  CHECK(hbm_capacity.lo == doctest::Approx(2 * 1e9));
  CHECK(hbm_capacity.hi == doctest::Approx(2 * 24e9));
  CHECK(hbm_capacity.units(8e9, 16e9) == doctest::Approx(std::log(2.0) / std::log(24.0)));
  // Every stated range is a range, names its source and is a parameter of the table (directly or
  // through an alias): a mistyped key would state nothing.
  const std::string all = strata::parameter_range_table_markdown();
  for (const auto& r : strata::parameter_ranges()) {
    CAPTURE(r.key);
    CHECK(r.lo < r.hi);
    CHECK(!r.source.empty());
    bool found = all.find("| " + r.key + " |") != std::string::npos;
    for (const auto& [from, to] : strata::parameter_range_aliases()) {
      if (r.key.compare(0, to.size(), to) == 0) {
        found = found || all.find("| " + from + r.key.substr(to.size()) + " |") != std::string::npos;
      }
    }
    CHECK(found);
  }
}

TEST_CASE("explain: a row id the report lacks is a config_error naming id") {
  auto g = strata::stratum_explain_group();
  std::size_t n = 0;
  CHECK_THROWS_AS(strata::explain_group_rows(g, {}, {"stratum.system.olmoe.decode_speedup"}, {}, n), strata::config_error);
  try {
    strata::explain_group_rows(g, {}, {"stratum.system.olmoe.decode_speedup"}, {}, n);
  } catch (const strata::config_error& e) {
    CHECK(e.field() == "id");
  }
}

TEST_CASE("explain: docs/paper_report.md carries the generated range table") {
  std::ifstream in("../docs/paper_report.md");
  REQUIRE(in);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  const std::string begin = "<!-- parameter_ranges:begin -->\n", end = "<!-- parameter_ranges:end -->";
  const auto a = text.find(begin), b = text.find(end);
  REQUIRE(a != std::string::npos);
  REQUIRE(b != std::string::npos);
  CHECK(text.substr(a + begin.size(), b - a - begin.size()) == strata::parameter_range_table_markdown());
}
