// The gap explainer's families that rerun the HCRMap experiments (report/explain_groups.hpp):
// `hcrmap hydra premise` (single-copy static and Hydra alone) and `hcrmap best on every model`
// (the compared policies and HCRMap, a run stopped at the first experiment HCRMap does not lead).
// A short suite (one window of one layer per experiment) keeps the tests quick: the groups'
// evaluators against the report's own builder (`hcrmap_policy_rows` of `run_hcrmap_suite`) on it,
// exactly; a gap entry's `closes` against a direct re-evaluation; the families off by default.
// The report's own suite is compared in tests/report/hcrmap_rows_test.cpp.

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "strata/hcrmap/dqn_json.hpp"
#include "strata/hcrmap/dqn_scorer.hpp"
#include "strata/report/explain_groups.hpp"
#include "strata/report/hcrmap_rows.hpp"

namespace {

// The repository's checkpoint and the real DeepSeek-V2-Lite trace, as the paper report loads them.
strata::hcrmap_explain_setup hcrmap_short_setup() {
  std::ifstream in(std::string(STRATA_TEST_DATA_DIR) + "/hcrmap/dqn_checkpoint.json");
  std::ostringstream text;
  text << in.rdbuf();
  strata::hcrmap_explain_setup s;
  s.value = {"dqn", strata::dqn_scorer(strata::parse_dqn_checkpoint(text.str(), "dqn_checkpoint.json"))};
  s.dsv2lite_trace = std::string(STRATA_TEST_DATA_DIR) + "/traces/dsv2lite_esft_trace_intent.csv";
  s.xp.windows = 1;
  s.xp.max_layers = 1;
  return s;
}

// The report's rows of the short suite (`hcrmap_policy_rows`, the builder of every hcrmap.* row).
const std::vector<strata::paper_row>& hcrmap_short_rows() {
  static const auto rows = [] {
    const auto s = hcrmap_short_setup();
    return strata::hcrmap_policy_rows(strata::run_hcrmap_suite(s.dsv2lite_trace, s.xp, {}, s.value.score, {}, 1),
                                      s.value.name);
  }();
  return rows;
}

double hcrmap_short_row(const std::string& id) {
  for (const auto& r : hcrmap_short_rows()) {
    if (r.id == id) return r.value;
  }
  throw std::logic_error("no row " + id);
}

const std::string hydra_d2d = "hcrmap.premise.hydra_d2d_ratio";
const std::string hydra_lat = "hcrmap.premise.hydra_latency_ratio";
const std::string best_row = "hcrmap.best_on_every_model";

}  // namespace

TEST_CASE("explain hcrmap: the groups' evaluators give the report builder's rows exactly") {
  auto hydra = strata::hydra_explain_group(hcrmap_short_setup());
  const auto h = hydra.evaluate({hydra_d2d, hydra_lat});
  REQUIRE(h.size() == 2);
  CHECK(h[0] == hcrmap_short_row(hydra_d2d));  // exact: static and Hydra alone, the same doubles
  CHECK(h[1] == hcrmap_short_row(hydra_lat));
  // The experiments of an evaluation spread over threads: the same doubles.
  auto setup = hcrmap_short_setup();
  setup.threads = 3;
  auto hydra3 = strata::hydra_explain_group(setup);
  CHECK(hydra3.evaluate({hydra_d2d, hydra_lat}) == h);
  CHECK(hydra3.evaluate({hydra_lat, hydra_d2d}) == std::vector<double>{h[1], h[0]});
  auto best = strata::best_explain_group(hcrmap_short_setup());
  // Twice: the second run starts at the experiment the first found HCRMap not leading (if any).
  CHECK(best.evaluate({best_row}).at(0) == hcrmap_short_row(best_row));
  CHECK(best.evaluate({best_row}).at(0) == hcrmap_short_row(best_row));
  CHECK_THROWS_AS(hydra.evaluate({"hcrmap.premise.copies_cut_queueing"}), strata::config_error);
  CHECK_THROWS_AS(best.evaluate({hydra_d2d}), strata::config_error);
}

TEST_CASE("explain hcrmap: the parameters and what each can move") {
  const auto g = strata::hydra_explain_group(hcrmap_short_setup());
  CHECK(g.costly);
  const auto find = [&](const std::string& name) -> const strata::explain_parameter& {
    for (const auto& p : g.parameters) {
      if (p.name == name) return p;
    }
    throw std::logic_error("no parameter " + name);
  };
  // A time moves the latency only; a capacity both rows; the energies are not parameters.
  CHECK(find("hcrmap.substrate.d2d.bandwidth").feeds == std::vector<std::string>{hydra_lat});
  CHECK(find("hcrmap.critical_path.compute_scale").feeds == std::vector<std::string>{hydra_lat});
  CHECK(find("hcrmap.scale_out.link.bandwidth").feeds == std::vector<std::string>{hydra_lat});
  CHECK(find("hcrmap.substrate.hbm.capacity").feeds.empty());
  CHECK(find("hcrmap.scale_out.residency.sram_reserve").feeds.empty());
  CHECK_FALSE(find("hcrmap.substrate.chiplet_buffer").read);
  for (const auto& p : g.parameters) CHECK(p.name.find("energy") == std::string::npos);
  const auto b = strata::best_explain_group(hcrmap_short_setup());
  CHECK(b.parameters.empty());
  REQUIRE(b.choices.size() == 5);
  CHECK(b.choices.back().name == "hcrmap.controller.value");
  CHECK(b.choices.back().values.at(b.choices.back().cited) == "dqn");
  CHECK(strata::best_explain_group().choices.size() == 4);  // the greedy rule: no other value to scan
}

TEST_CASE("explain hcrmap: a time the D2D row does not read leaves it unchanged, and a time moves the latency") {
  auto g = strata::hydra_explain_group(hcrmap_short_setup());
  const auto base = g.evaluate({hydra_d2d, hydra_lat});
  for (auto& p : g.parameters) {
    if (p.name != "hcrmap.substrate.d2d.bandwidth" && p.name != "hcrmap.substrate.dram.bandwidth") continue;
    CAPTURE(p.name);
    p.set(p.cited * 0.25);
    const auto y = g.evaluate({hydra_d2d, hydra_lat});
    p.set(p.cited);
    CHECK(y[0] == base[0]);  // bit for bit
    CHECK(y[1] != base[1]);
  }
}

TEST_CASE("explain hcrmap: a gap entry's closes agrees with a direct re-evaluation") {
  const auto& report = hcrmap_short_rows();
  // The Hydra latency row, on three of its parameters (the short suite keeps each run small).
  auto g = strata::hydra_explain_group(hcrmap_short_setup());
  std::vector<strata::explain_parameter> keep;
  for (const auto& p : g.parameters) {
    if (p.name == "hcrmap.substrate.d2d.bandwidth" || p.name == "hcrmap.substrate.dram.bandwidth" ||
        p.name == "hcrmap.substrate.hbm.bandwidth") {
      keep.push_back(p);
    }
  }
  REQUIRE(keep.size() == 3);
  g.parameters = keep;
  strata::explain_options o;
  o.families = false;
  std::size_t runs = 0;
  const strata::paper_row* row = nullptr;
  for (const auto& r : report) {
    if (r.id == hydra_lat) row = &r;
  }
  REQUIRE(row != nullptr);
  REQUIRE_FALSE(row->ok().value_or(true));  // the short suite's Hydra is slower than static too
  const auto x = strata::explain_group_rows(g, report, {hydra_lat}, o, runs);
  REQUIRE(x.size() == 1);
  CHECK(x[0].elasticities.size() == 3);
  std::size_t checked = 0;
  for (const auto& e : x[0].gap) {
    if (!e.needed) continue;
    CAPTURE(e.parameter);
    for (auto& p : g.parameters) {
      if (p.name != e.parameter) continue;
      p.set(*e.needed);
      strata::paper_row again = *row;
      again.value = g.evaluate({hydra_lat}).at(0);
      p.set(p.cited);
      CHECK(again.ok().value_or(false) == e.closes);
      ++checked;
    }
  }
  CHECK(checked >= 1);
  // The best-on-every-model row: each discrete value scanned, rerun directly.
  auto b = strata::best_explain_group(hcrmap_short_setup());
  const auto y = strata::explain_group_rows(b, report, {best_row}, o, runs);
  REQUIRE(y.size() == 1);
  CHECK(y[0].elasticities.empty());
  REQUIRE(y[0].gap.size() == b.choices.size());
  if (!y[0].closed_by_one) CHECK(y[0].verdict.rfind("no single switch of its 5 discrete parameters closes it", 0) == 0);
  auto fresh = strata::best_explain_group(hcrmap_short_setup());
  for (const auto& e : y[0].gap) {
    CAPTURE(e.parameter);
    for (auto& ch : fresh.choices) {
      if (ch.name != e.parameter) continue;
      bool any = false;
      for (std::size_t v = 0; v < ch.values.size(); ++v) {
        if (v == ch.cited) continue;
        ch.set(v);
        any = any || fresh.evaluate({best_row}).at(0) == 1.0;
        ch.set(ch.cited);
      }
      CHECK(any == e.closes);
    }
  }
  // No single switch closes it: pairs of switches, each closing one rerun directly; with none
  // closing, every combination was tried (the values other than the cited of each of two switches).
  if (!y[0].closed_by_one) {
    std::size_t combinations = 0;
    for (std::size_t a = 0; a < b.choices.size(); ++a) {
      for (std::size_t c = a + 1; c < b.choices.size(); ++c) {
        combinations += (b.choices[a].values.size() - 1) * (b.choices[c].values.size() - 1);
      }
    }
    if (y[0].pairs.empty()) CHECK(y[0].switch_pairs_tried == combinations);
    CHECK(y[0].switch_pairs_tried <= combinations);
    const auto index = [&](const std::string& name) {
      for (std::size_t k = 0; k < fresh.choices.size(); ++k) {
        if (fresh.choices[k].name == name) return k;
      }
      throw std::logic_error("no choice " + name);
    };
    for (const auto& p : y[0].pairs) {
      CAPTURE(p.parameters[0]);
      CAPTURE(p.parameters[1]);
      REQUIRE(p.needed_choice[0]);
      auto& ca = fresh.choices[index(p.parameters[0])];
      auto& cb = fresh.choices[index(p.parameters[1])];
      ca.set(static_cast<std::size_t>(p.needed[0]));
      cb.set(static_cast<std::size_t>(p.needed[1]));
      CHECK(fresh.evaluate({best_row}).at(0) == 1.0);
      ca.set(ca.cited);
      cb.set(cb.cited);
    }
  }
}

TEST_CASE("explain hcrmap: the Hydra premise family runs only when asked, and says so otherwise") {
  std::vector<strata::paper_row> rows{
      strata::bound_row(hydra_d2d, 1.0006, "x", 1.0, strata::row_check::at_most, "HCRMap Fig. 2(a)"),
      strata::bound_row(hydra_lat, 1.2, "x", 1.0, strata::row_check::at_most, "HCRMap Fig. 2(a)")};
  const auto x = strata::explain_report(rows);  // the default: not re-evaluated
  CHECK(x.rows.empty());
  REQUIRE(x.unexplained.size() == 2);
  for (const auto& u : x.unexplained) {
    CHECK(u.reason.find("16 HCRMap experiments") != std::string::npos);
    CHECK(u.reason.find("strata-eval explain " + u.id) != std::string::npos);
    CHECK(u.reason.find("hcrmap_hydra_premise") != std::string::npos);
  }
  const auto owners = [](const strata::explain_options& o, const std::string& id) {
    std::size_t n = 0;
    for (const auto& f : strata::explain_families(o)) n += f.owns(id) ? 1 : 0;
    return n;
  };
  strata::explain_options on;
  on.hcrmap_hydra_premise = true;
  CHECK(owners(on, hydra_d2d) == 1);
  CHECK(owners(on, hydra_lat) == 1);
  CHECK(owners({}, hydra_lat) == 0);
  CHECK(owners({}, best_row) == 1);  // under a second: always
  CHECK(owners(on, best_row) == 1);
}
