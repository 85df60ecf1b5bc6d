#include "strata/report/serving_validation_rows.hpp"

#include <doctest/doctest.h>

#include <string>  // std::string
#include <vector>  // std::vector

#include "strata/serving/serving_json.hpp"
#include "support/field_of.hpp"
#include "support/text_file.hpp"

using namespace strata;
using doctest::Approx;

TEST_CASE("vLLM runs: the settings their authors state, requests rate x duration per stage, prompts system + question") {
  const auto runs = mixtral_tp2_h100_vllm_runs();
  REQUIRE(runs.size() == 3);
  // inference-sim/tektonc-data-collection blis-campaign exps 9, 10, 11; the ground truth's request
  // counts (training/ split definitions: 16 800, 9 000, 7 200, none failed).
  const std::int64_t counts[] = {16800, 9000, 7200};
  const int prompts[] = {547, 566, 750};
  const int outputs[] = {248, 247, 251};
  const double e2e[] = {5.039, 4.675, 4.685};
  for (std::size_t i = 0; i < runs.size(); ++i) {
    CAPTURE(runs[i].key);
    const auto reqs = vllm_run_requests(runs[i]);
    CHECK(static_cast<std::int64_t>(reqs.size()) == counts[i]);
    CHECK(reqs.front().prompt == prompts[i]);
    CHECK(reqs.back().prompt == prompts[i]);
    CHECK(reqs.front().output == outputs[i]);
    CHECK(runs[i].engine.max_num_batched_tokens == 2048);
    CHECK(runs[i].engine.max_num_seqs == 128);
    CHECK(runs[i].engine.gpu_memory_utilization == 0.9);
    CHECK(runs[i].engine.shared_prefix_tokens == runs[i].system_prompt_tokens);
    CHECK(runs[i].measured_e2e_mean_s == Approx(e2e[i]).epsilon(1e-15));
    CHECK(runs[i].source.find("values.yaml") != std::string::npos);
    CHECK(runs[i].source.find("FINDINGS.md") != std::string::npos);
  }
  // Constant-rate arrivals: the general run's 4 800th request arrives at the stage boundary.
  const auto general = vllm_run_requests(runs[0]);
  CHECK(general[4799].arrival_s < 600.0);
  CHECK(general[4800].arrival_s == Approx(600.0).epsilon(1e-9));
  CHECK(general[4801].arrival_s - general[4800].arrival_s == Approx(1.0 / 20.0));
}

TEST_CASE("vLLM runs: rows per run and pooled, judged against the measured values, a miss names its decode step") {
  std::vector<paper_row> rows;  // the three runs' rows; the campaign rows follow them
  for (auto& r : serving_validation_rows()) {
    if (r.id.rfind("validation.serving.mixtral_tp2_h100.", 0) == 0) rows.push_back(std::move(r));
  }
  // Per knob set: 3 E2E + 5 stages (2 + 2 + 1) + pooled TTFT and time per output token.
  REQUIRE(rows.size() == 20);
  const std::string id0 = "validation.serving.mixtral_tp2_h100.";
  CHECK(rows[0].id == id0 + "general.e2e_mean_s");
  CHECK(rows[1].id == id0 + "general.stage0.served_over_offered");
  CHECK(rows[2].id == id0 + "general.stage1.served_over_offered");
  CHECK(rows[3].id == id0 + "codegen.e2e_mean_s");
  CHECK(rows[6].id == id0 + "roleplay.e2e_mean_s");
  CHECK(rows[7].id == id0 + "roleplay.stage0.served_over_offered");
  CHECK(rows[8].id == id0 + "ttft_mean_s");
  CHECK(rows[9].id == id0 + "time_per_output_token_s");
  CHECK(rows[10].id == id0 + "fitted_knobs.general.e2e_mean_s");
  CHECK(rows[19].id == id0 + "fitted_knobs.time_per_output_token_s");
  // The default (cited) knobs meet the issue's Done-when on every run: E2E within 15 %, the time per
  // output token within 15 %, served within 5 % in every stage; the fitted knobs miss the 20 req/s stage.
  for (int i = 0; i < 8; ++i) CHECK(*rows[static_cast<std::size_t>(i)].ok());
  CHECK(*rows[9].ok());
  CHECK_FALSE(*rows[12].ok());
  CHECK(rows[12].known_disagreement.find("fitted on tests/data/measurements") != std::string::npos);
  CHECK(*rows[0].paper == Approx(5.039).epsilon(1e-15));
  CHECK(*rows[8].paper == vllm_mixtral_tp2_ttft_mean_s);
  CHECK(*rows[9].paper == vllm_mixtral_tp2_time_per_output_token_s);
  CHECK(rows[0].tolerance == 0.15);
  CHECK(rows[1].tolerance == 0.05);
  CHECK(rows[8].tolerance == validation_row_tolerance);
  for (const auto& r : rows) {
    CAPTURE(r.id);
    CHECK(r.kind == row_kind::check);  // nothing is fitted to the runs
    CHECK(r.fitted.empty());
    CHECK(std::isfinite(r.value));
    CHECK(r.value > 0.0);
    REQUIRE(r.ok().has_value());
    // A row out of tolerance says where the model's time goes; a row within it says nothing.
    CHECK(r.known_disagreement.empty() == *r.ok());
    if (!*r.ok()) CHECK(r.known_disagreement.find("decode step at its mean batch") != std::string::npos);
  }
  // At 6 req/s the engine keeps up: served within 1 % of offered.
  CHECK(rows[7].value == Approx(1.0).epsilon(0.01));
}

TEST_CASE("vLLM runs: the shipped scenarios are the runs (the same GPU E2E as the report's rows)") {
  for (const auto& run : mixtral_tp2_h100_vllm_runs()) {
    if (run.key == "general") continue;  // the longest run; its rows are checked above
    CAPTURE(run.key);
    const auto root = strata_test::repo_root_dir();
    const auto path = root / "examples" / "scenarios" / ("serve_mixtral_vllm_" + run.key + ".json");
    const auto rep = run_scenario(read_serving_scenario(strata_test::text_of_file(path)), (root / "tests" / "data").string());
    REQUIRE(rep.has_gpu);
    const auto direct = simulate_vllm_run(run);
    CHECK(rep.gpu.e2e.mean_s == Approx(direct.e2e.mean_s).epsilon(1e-12));
    CHECK(rep.gpu.ttft.mean_s == Approx(direct.ttft.mean_s).epsilon(1e-12));
    REQUIRE(rep.gpu.stages.size() == run.stages.size());
    CHECK(rep.gpu.stages.back().served_rps == Approx(direct.stages.back().served_rps).epsilon(1e-12));
    // The default is the card with its cited knobs; `gpu.knobs: "fitted"` runs the knobs fitted on the
    // 2024 measurements, as the `fitted_knobs` rows do, and serves each run more slowly.
    CHECK(rep.gpu.e2e.mean_s == Approx(simulate_vllm_run(run, h100_sxm5()).e2e.mean_s).epsilon(1e-12));
    auto scenario = read_serving_scenario(strata_test::text_of_file(path));
    CHECK(scenario.gpu.knobs == gpu_knob_set::cited);
    scenario.gpu.knobs = gpu_knob_set::fitted;
    const auto fitted = run_scenario(scenario, (root / "tests" / "data").string());
    CHECK(fitted.gpu.e2e.mean_s == Approx(simulate_vllm_run(run, validated_gpu(h100_sxm5())).e2e.mean_s).epsilon(1e-12));
    CHECK(fitted.gpu.e2e.mean_s > rep.gpu.e2e.mean_s);
  }
  // A knob set the reader does not know is an error naming the key.
  const std::string bad = R"({"system": "stratum-l", "model": "Mixtral-8x7B", "gpu": {"knobs": "tuned"}})";
  CHECK(strata_test::field_of([&] { (void)read_serving_scenario(bad); }) == "gpu.knobs");
}

TEST_CASE("vLLM runs: a slower card serves each run no faster; bad stages are config errors naming them") {
  auto run = mixtral_tp2_h100_vllm_runs()[2];  // roleplay, one stage
  const auto base = simulate_vllm_run(run);
  gpu_params slow = h100_sxm5();
  slow.op_overhead = slow.op_overhead * 2.0;
  const auto slower = simulate_vllm_run(run, slow);
  CHECK(slower.e2e.mean_s > base.e2e.mean_s);
  CHECK(slower.itl.mean_s > base.itl.mean_s);
  run.stages = {{-1.0, 60.0}};
  CHECK(strata_test::field_of([&] { (void)vllm_run_requests(run); }).find("stages") != std::string::npos);
}
