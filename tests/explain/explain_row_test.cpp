// strata/report/explain_row.hpp: strata-eval explain's row lookup as a library function (Python's
// strata.explain).
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "strata/json.hpp"
#include "strata/report/explain_row.hpp"
#include "support/field_of.hpp"
#include "support/scratch_dir.hpp"

TEST_CASE("explain_row: the family of a row, the rows it does not re-evaluate, unknown rows") {
  CHECK(strata::explain_family_of("stratum.system.olmoe.decode_speedup") == "stratum-results");
  CHECK(strata::explain_family_of("stratum.placement.accurate_vs_uniform_min") == "stratum-results");
  CHECK(strata::explain_family_of("validation.check.x") == "gpu-validation");
  CHECK(strata::explain_family_of("hcrmap.premise.x").empty());
  CHECK(strata::explain_family_of("stratum.thermal.logic_power_limit_vs_paper_W") == "stratum-chip");
  CHECK(strata::explain_family_of("hcrmap.best_on_every_model") == "hcrmap-policies");
  CHECK(strata::explain_family_of("hcrmap.premise.hydra_d2d_ratio") == "hcrmap-policies");
  CHECK(strata::explain_family_of("hcrmap.premise.hydra_latency_ratio") == "hcrmap-policies");
  const auto h = strata::explain_row("hcrmap.premise.copies_cut_queueing");
  CHECK(h.status == strata::explain_status::not_reevaluated);
  CHECK(h.reason == strata::explain_unexplained_reason("hcrmap.premise.copies_cut_queueing"));
  const strata::json j = strata::explain_row_json(h);
  CHECK(j.at("explained") == false);
  CHECK(j.at("id") == "hcrmap.premise.copies_cut_queueing");
  std::string field;
  try {
    (void)strata::explain_row("stratum.composition.olmoe.b1.weight_stream");
  } catch (const strata::config_error& e) {
    field = e.field();
  }
  CHECK(field == "row");
}

TEST_CASE("explain_row: a failing check is explained, one within tolerance is not") {
  const auto ok = strata::explain_row("stratum.system.mixtral.decode_speedup");
  CHECK(ok.status == strata::explain_status::nothing_to_explain);
  CHECK(ok.reason == "within tolerance");
  const auto x = strata::explain_row("stratum.system.olmoe.decode_speedup");
  REQUIRE(x.status == strata::explain_status::explained);
  REQUIRE(x.row);
  CHECK(x.row->id == "stratum.system.olmoe.decode_speedup");
  CHECK_FALSE(x.row->elasticities.empty());
  const strata::json j = strata::explain_row_json(x);
  CHECK(j.at("id") == "stratum.system.olmoe.decode_speedup");
  CHECK(j.contains("family_line"));
  std::string field;
  try {
    (void)strata::explain_row("validation.no.such.row");
  } catch (const strata::config_error& e) {
    field = e.field();
  }
  CHECK(field == "row");
}

TEST_CASE("find_paper_report_inputs: what a data directory holds, as every front end reads it") {
  const std::string dir = STRATA_TEST_DATA_DIR;
  const auto in = strata::find_paper_report_inputs(dir);
  CHECK(in.dsv2lite_trace == dir + "/traces/dsv2lite_esft_trace_intent.csv");
  CHECK(in.domain_counts == dir + "/traces/olmoe_mixtral_expert_counts_by_domain.csv");
  CHECK(in.checkpoint == dir + "/hcrmap/dqn_checkpoint.json");
  CHECK(in.hf_dir == dir + "/hf");
  // The options every front end computes the rows with: those inputs, the fixtures' reader, the value.
  const auto value = strata::load_report_controller_value(in.checkpoint);
  CHECK(value.name == "masked Double DQN checkpoint");
  CHECK(static_cast<bool>(value.score));
  const auto o = strata::paper_report_options_with(in, value);
  CHECK(o.dsv2lite_trace == in.dsv2lite_trace);
  CHECK(o.domain_counts == in.domain_counts);
  CHECK(o.hf_dir == in.hf_dir);
  CHECK(o.hcrmap_value.name == value.name);
  REQUIRE(static_cast<bool>(o.read_config));
  CHECK(o.read_config(dir + "/hf/qwen3-14b.config.json").layers == 40);  // Qwen3-14B's num_hidden_layers
  // No directory, or one that holds none of them: every input falls back; no checkpoint, the greedy rule.
  const auto none = strata::find_paper_report_inputs("");
  CHECK_FALSE(none.dsv2lite_trace);
  CHECK_FALSE(none.domain_counts);
  CHECK_FALSE(none.checkpoint);
  CHECK_FALSE(none.hf_dir);
  CHECK_FALSE(static_cast<bool>(strata::load_report_controller_value(std::nullopt).score));
  strata_test::scratch_dir d("inputs");
  std::filesystem::create_directories(d.path() / "hf");        // fixtures' directory without the probe file
  std::filesystem::create_directories(d.path() / "hcrmap" / "dqn_checkpoint.json");  // not a regular file
  const auto odd = strata::find_paper_report_inputs(d.path().string());
  CHECK_FALSE(odd.hf_dir);
  CHECK_FALSE(odd.dsv2lite_trace);
  REQUIRE(odd.checkpoint);
  // Found, then refused by the reader (files that are not regular files, core/files.hpp), naming it.
  CHECK(strata_test::field_of([&] { (void)strata::load_report_controller_value(odd.checkpoint); }) == "checkpoint");
}
