#include "strata/report/paper.hpp"
#include "strata/report/paper_rows.hpp"

#include <doctest/doctest.h>

#include <functional>
#include <map>
#include <set>
#include <string_view>
#include <utility>

using namespace strata;

namespace {
// What paper_rows reported through its progress callback while computing all_rows().
std::vector<std::pair<std::string, std::size_t>>& progress_log() {
  static std::vector<std::pair<std::string, std::size_t>> log;
  return log;
}
// Every row, with the real trace and the per-domain count table (the serving rows), computed once.
const std::vector<paper_row>& all_rows() {
  static const auto rows = [] {
    paper_report_options o;
    o.dsv2lite_trace = std::string(STRATA_TEST_DATA_DIR) + "/traces/dsv2lite_esft_trace_intent.csv";
    o.domain_counts = std::string(STRATA_TEST_DATA_DIR) + "/traces/olmoe_mixtral_expert_counts_by_domain.csv";
    o.progress = [](std::string_view family, std::size_t n) { progress_log().emplace_back(family, n); };
    o.experiment_progress = [](std::string_view model, std::string_view mode) {
      progress_log().emplace_back("experiment " + std::string(model) + " " + std::string(mode), 0);
    };
    return paper_rows(o);
  }();
  return rows;
}
}  // namespace

TEST_CASE("paper_rows reports each family as it is done, and the HCRMap experiments one by one") {
  const auto& rows = all_rows();
  std::size_t families = 0, steps = 0, total = 0;
  for (const auto& [name, n] : progress_log()) {
    total += n;
    if (name.rfind("experiment ", 0) == 0) {
      ++steps;
      CHECK(n == 0);
    } else {
      ++families;
    }
  }
  CHECK(families == 10);  // with the count table: device ... serving ... validation
  CHECK(total == rows.size());
  // The HCRMap suite is cached per trace and value: its 16 experiments are heard the first time.
  CHECK((steps == 16 || steps == 0));
  REQUIRE_FALSE(progress_log().empty());
  CHECK(progress_log().front().first == "stratum device");
  CHECK(progress_log().back().first == "gpu validation");
}

// The test suite runs the same computation as examples/paper_report and fails on any calibration
// row out of tolerance (spec/numbers.md).
TEST_CASE("every calibration row of the paper report is within tolerance") {
  for (const auto& r : all_rows()) {
    CAPTURE(r.id);
    CAPTURE(r.value);
    CHECK(std::isfinite(r.value));
    if (r.check == row_check::predict) {
      CHECK_FALSE(r.paper.has_value());
      CHECK_FALSE(r.ok().has_value());
    } else if (r.known_disagreement.empty()) {
      REQUIRE(r.ok().has_value());
      CHECK(*r.ok());
    } else {
      // A row the model is known to miss must still miss: if a change makes it pass, its
      // known_disagreement note is stale and must go.
      REQUIRE(r.ok().has_value());
      CHECK_FALSE(*r.ok());
      CHECK(r.kind == row_kind::check);
    }
  }
}

TEST_CASE("the report has every stratum.device, stratum.logic and hcrmap.metadata id of numbers.md, once") {
  const std::set<std::string> expected = {
      "stratum.device.tiers",
      "stratum.device.fast_slow_latency_ratio_1024",
      "stratum.device.latency_vs_layer_r2_1024",
      "stratum.device.internal_bw_slowest_tier_TBps",
      "stratum.device.internal_bw_fastest_tier_TBps",
      "stratum.device.chip_capacity_GB",
      "stratum.device.density_Gb_per_mm2",
      "stratum.device.density_vs_ddr5_32Gb",
      "stratum.device.fast_slow_latency_ratio_512",
      "stratum.logic.area_budget_mm2",
      "stratum.logic.macs",
      "stratum.logic.peak_tflops",
      "stratum.logic.active_area_mm2",
      "stratum.logic.area_utilization",
      "stratum.logic.peak_power_W",
      "stratum.logic.power_cap_W",
      "stratum.logic.max_macs_within_budget",
      "stratum.logic.tiering_table_area_fraction_of_pe",
      "hcrmap.metadata.directory_bytes_per_replica",
      "hcrmap.metadata.directory_bytes_largest_model",
      "hcrmap.metadata.pressure_counter_bytes",
      // Further checks the spec supports.
      "stratum.device.memory_die_area_mm2",
      "stratum.logic.power_tsv_area_mm2",
      "stratum.logic.pe_area_share",
      "stratum.system.olmoe.params_B",
      "stratum.system.mixtral.params_B",
      "stratum.system.qwen2_5_32b.params_B",
      "stratum.system.llama4_scout.params_B",
      "stratum.system.mixtral.expert_weight_share",
      "stratum.system.S.capacity_GB",
      "stratum.device.staircase_quadratic_share_1024",
      "stratum.chip.logic_die_area_mm2",
  };
  std::set<std::string> seen;
  for (const auto& r : all_rows()) {
    CHECK_MESSAGE(seen.insert(r.id).second, "duplicate id " << r.id);
    CHECK_FALSE(r.source.empty());
    CHECK_FALSE(r.unit.empty());
  }
  for (const auto& id : expected) CHECK_MESSAGE(seen.count(id) == 1, "missing " << id);
}

TEST_CASE("row values come from the models: changing a parameter moves them") {
  mono3d_params<> p;
  p.staircase_step = p.staircase_step * 1.5;
  const auto rows = stratum_device_rows(p);
  const auto base = stratum_device_rows();
  REQUIRE(rows.size() == base.size());
  CHECK(rows[1].id == "stratum.device.fast_slow_latency_ratio_1024");
  CHECK(rows[1].value > base[1].value);
  CHECK_FALSE(*rows[1].ok());  // a 1.5x longer staircase breaks the calibration

  logic_die_params<> lp;
  lp.e_mac = lp.e_mac * 2.0;
  const auto value_of = [](const std::vector<paper_row>& rows, const std::string& id) {
    for (const auto& r : rows)
      if (r.id == id) return r.value;
    FAIL("no row " << id);
    return 0.0;
  };
  CHECK(value_of(stratum_logic_rows(lp), "stratum.logic.peak_power_W") >
        value_of(stratum_logic_rows(), "stratum.logic.peak_power_W"));
}

TEST_CASE("row checks judge values as numbers.md says") {
  paper_row r{"x", 1.02, "x", 1.0, 0.03, row_check::relative, "s", row_kind::check, "", ""};
  CHECK(*r.ok());
  r.value = 1.04;
  CHECK_FALSE(*r.ok());
  r.check = row_check::at_least;
  CHECK(*r.ok());
  r.value = 0.99;
  CHECK_FALSE(*r.ok());
  r.check = row_check::at_most;
  CHECK(*r.ok());
  r.check = row_check::exact;
  CHECK_FALSE(*r.ok());
  r.value = 1.0;
  CHECK(*r.ok());
  r.value = std::nan("");
  CHECK_FALSE(*r.ok());
}

TEST_CASE("the metadata rows are computed from the structures, for the largest Table 2 model") {
  const auto rows = hcrmap_metadata_rows();
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].value == double(sizeof(directory_entry)));
  // DeepSeek-V3 has the most routed experts (58 × 256) of Table 2's models.
  CHECK(rows[1].value == double(metadata(substrate{}, 58, 256, 1.3).directory_bytes));
  // A 16 × 16 mesh has more links and banks, so more counters.
  substrate_params big;
  big.mesh_x = 16;
  big.mesh_y = 16;
  CHECK(hcrmap_metadata_rows(big)[2].value > rows[2].value);
}

TEST_CASE("every row has a kind; fit rows name their parameter, predictions have no paper value") {
  int checks = 0, fits = 0;
  for (const auto& r : all_rows()) {
    CAPTURE(r.id);
    switch (r.kind) {
      case row_kind::fit:
        ++fits;
        CHECK_FALSE(r.fitted.empty());
        // Judged against the row it was solved from, or (the GPU knobs fitted on a measurement
        // set) a reported value with no paper value.
        CHECK((r.paper.has_value() || r.check == row_check::predict));
        break;
      case row_kind::prediction:
        CHECK(r.check == row_check::predict);
        CHECK(r.fitted.empty());
        break;
      case row_kind::check:
        ++checks;
        CHECK(r.fitted.empty());
        CHECK(r.paper.has_value());
        break;
      case row_kind::input:
        CHECK(r.fitted.empty());
        break;
    }
    // Unjudged rows are predictions, or fits that report a fitted value with no paper value.
    CHECK((r.check == row_check::predict) ==
          (r.kind == row_kind::prediction || (r.kind == row_kind::fit && !r.paper.has_value())));
  }
  // The report must validate, not only calibrate: more checks than fits.
  CHECK(checks > fits);
  CHECK(std::string(to_string(row_kind::fit)) == "fit");
}

namespace {

/// All rows that depend on the Stratum device and logic-die parameter sets.
std::vector<paper_row> stratum_rows(const mono3d_params<>& mp, const dram_die_reference<>& ddr5,
                                    const logic_die_params<>& lp,
                                    const stratum_chip_params<>& cp = {}) {
  auto rows = stratum_device_rows(mp, ddr5);
  for (auto& r : stratum_logic_rows(lp, mp)) rows.push_back(std::move(r));
  for (auto& r : stratum_chip_rows(cp)) rows.push_back(std::move(r));
  return rows;
}

/// The fitted parameters, each scaled by a factor; a new fit row must add its parameter here.
const std::map<std::string, std::function<std::vector<paper_row>(double)>>& perturbations() {
  static const std::map<std::string, std::function<std::vector<paper_row>(double)>> table = {
      {"mono3d_params.staircase_step",
       [](double f) {
         mono3d_params<> p;
         p.staircase_step = p.staircase_step * f;
         return stratum_rows(p, {}, {});
       }},
      {"mono3d_params.cell_depth",
       [](double f) {
         mono3d_params<> p;
         p.cell_depth = p.cell_depth * f;
         return stratum_rows(p, {}, {});
       }},
      {"dram_die_reference.die_area",
       [](double f) {
         dram_die_reference<> d;
         d.die_area = d.die_area * f;
         return stratum_rows({}, d, {});
       }},
      {"logic_die_params.i_tsv",
       [](double f) {
         logic_die_params<> lp;
         lp.i_tsv = lp.i_tsv * f;
         return stratum_rows({}, {}, lp);
       }},
      {"logic_die_params.a_mac",
       [](double f) {
         logic_die_params<> lp;
         lp.a_mac = lp.a_mac * f;
         return stratum_rows({}, {}, lp);
       }},
      {"stratum_chip_params.bond_edge",
       [](double f) {
         stratum_chip_params<> cp;
         cp.bond_edge = cp.bond_edge * f;
         return stratum_rows({}, {}, {}, cp);
       }},
      {"logic_die_params.p_misc_per_mm2",
       [](double f) {
         logic_die_params<> lp;
         lp.p_misc_per_mm2 = lp.p_misc_per_mm2 * f;
         return stratum_rows({}, {}, lp);
       }},
  };
  return table;
}

}  // namespace

/// Parameters solved jointly from several rows by least squares (report/stratum_rows.hpp): a
/// ±10 % move need not push any one row out of its tolerance, so their test is that the default
/// is the solution (tests/report/stratum_rows_test.cpp), not the 10 % rule.
static const std::set<std::string>& least_squares_fits() {
  static const std::set<std::string> s = {// the GPU knobs fitted on the measurement set
                                          // (tests/baseline/validation_test.cpp)
                                          "gpu_params.memory_efficiency", "gpu_params.compute_efficiency",
                                          "gpu_params.op_overhead"};
  return s;
}

TEST_CASE("every fit row fails when its fitted parameter moves by 10 % either way") {
  paper_report_options with_trace;
  with_trace.dsv2lite_trace = std::string(STRATA_TEST_DATA_DIR) + "/traces/dsv2lite_esft_trace_intent.csv";
  for (const auto& row : paper_rows(with_trace)) {
    if (row.kind != row_kind::fit || least_squares_fits().count(row.fitted) != 0) continue;
    CAPTURE(row.id);
    CAPTURE(row.fitted);
    const auto it = perturbations().find(row.fitted);
    REQUIRE_MESSAGE(it != perturbations().end(), "no perturbation for " << row.fitted);
    for (const double f : {0.9, 1.1}) {
      CAPTURE(f);
      bool found = false;
      for (const auto& r : it->second(f)) {
        if (r.id != row.id) continue;
        found = true;
        REQUIRE(r.ok().has_value());
        CHECK_FALSE(*r.ok());
      }
      CHECK(found);
    }
    // At the fitted value itself the row passes (the same computation as the report).
    for (const auto& r : it->second(1.0))
      if (r.id == row.id) CHECK(*r.ok());
  }
}

TEST_CASE("serving rows: the paper's serving inputs echoed, the simulation's predictions (topic vs FCFS)") {
  std::map<std::string, paper_row> by_id;
  for (const auto& r : all_rows()) {
    if (r.id.rfind("stratum.serving.", 0) == 0) by_id.emplace(r.id, r);
  }
  for (const char* id : {"stratum.serving.mixtral.aggregated_hit_rate", "stratum.serving.olmoe.aggregated_hit_rate",
                         "stratum.serving.llama4_scout.aggregated_hit_rate", "stratum.serving.classifier.accuracy_mmlu",
                         "stratum.serving.classifier.accuracy_chatbot_arena"}) {
    CAPTURE(id);
    REQUIRE(by_id.count(id) == 1);
    CHECK(by_id.at(id).kind == row_kind::input);
    CHECK(by_id.at(id).ok().value_or(false));
  }
  CHECK(by_id.at("stratum.serving.classifier.latency_ms").kind == row_kind::check);
  CHECK(by_id.at("stratum.serving.classifier.latency_ms").value > 0.0);
  for (const std::string w : {"mixtral", "olmoe"}) {
    CAPTURE(w);
    const auto v = [&](const std::string& k) { return by_id.at("stratum.serving." + w + "." + k).value; };
    for (const char* k : {"hit_rate_topic", "hit_rate_fcfs", "rate_at_90pct_ttft_topic", "rate_at_90pct_ttft_fcfs"}) {
      CHECK(by_id.at("stratum.serving." + w + "." + k).kind == row_kind::prediction);
    }
    // At a light load same-topic batches place by their own table: above the mix layout FCFS
    // keeps. At half the capacity running batches mix topics and a swap to one group's layout
    // costs the others their hits: below FCFS (README's Serving section says so and why).
    CHECK(v("hit_rate_topic") > v("hit_rate_fcfs"));
    CHECK(v("hit_rate_topic_half_capacity") < v("hit_rate_topic"));
    CHECK(v("hit_rate_fcfs_half_capacity") == Approx(v("hit_rate_fcfs")).epsilon(0.01));  // the mix layout either way
    CHECK(v("hit_rate_fcfs") > 0.0);
    CHECK(v("hit_rate_topic") < 1.0);
    // At equal TTFT-SLO attainment the topic batcher sustains no more than FCFS (the README's
    // Serving section says so and why); a change that makes it win must update that note.
    CHECK(v("rate_at_90pct_ttft_topic") <= v("rate_at_90pct_ttft_fcfs"));
    // The bisection ends inside its bracket (neither scheduler is saturated at 0.25 or unsaturated at 256 req/s).
    for (const char* k : {"rate_at_90pct_ttft_topic", "rate_at_90pct_ttft_fcfs"}) {
      CHECK(v(k) > 0.25);
      CHECK(v(k) < 256.0);
    }
  }
}

TEST_CASE("the sustained-rate bisection finds the threshold of a monotone attainment curve") {
  const auto r = detail::sustained_rate([](double rate) { return rate <= 10.0 ? 1.0 : 0.5; }, 0.9);
  CHECK(r <= 10.0);
  CHECK(r > 10.0 / 1.03);
  CHECK(detail::sustained_rate([](double) { return 0.0; }, 0.9) == 0.25);
  CHECK(detail::sustained_rate([](double) { return 1.0; }, 0.9) == 256.0);
}
