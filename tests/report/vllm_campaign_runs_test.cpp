#include "strata/report/serving_validation_rows.hpp"

#include <doctest/doctest.h>

#include <cmath>     // std::isfinite
#include <optional>  // std::optional
#include <set>       // std::set
#include <string>    // std::string

using namespace strata;
using doctest::Approx;

namespace {
const std::string campaign_hf_dir = std::string(STRATA_TEST_DATA_DIR) + "/hf";
}  // namespace

TEST_CASE("vLLM campaign: the table parses, every run sourced, settings within vLLM's ranges") {
  const auto runs = vllm_campaign_runs();
  REQUIRE(runs.size() == 9);
  std::set<std::string> keys;
  for (const auto& r : runs) {
    CAPTURE(r.key);
    CHECK(keys.insert(r.key).second);  // unique row ids
    CHECK(r.settings_source.find("values.yaml") != std::string::npos);
    CHECK(r.settings_source.find("tektonc-data-collection@") != std::string::npos);
    CHECK((r.tp == 1 || r.tp == 2));
    CHECK(r.e2e_mean_ms > r.ttft_mean_ms);
    CHECK(r.itl_mean_ms > 0.0);
    CHECK(r.e2e_mean_ms > r.ttft_mean_ms + r.itl_mean_ms);  // outputs of ~250 tokens
    CHECK(r.roofline_e2e_pct >= 0.0);
  }
  // The three runs the older rows rebuild carry the same measured means as the FINDINGS table
  // (5 039, 4 675, 4 685 ms): two sources of one measurement agree.
  CHECK(runs[0].e2e_mean_ms == Approx(5039.0).epsilon(1e-3));
  CHECK(runs[1].e2e_mean_ms == Approx(4675.0).epsilon(1e-3));
  CHECK(runs[2].e2e_mean_ms == Approx(4685.0).epsilon(1e-3));
}

TEST_CASE("vLLM campaign: offered requests = sum of rate x duration; prompts are system + question") {
  for (const auto& r : vllm_campaign_runs()) {
    CAPTURE(r.key);
    double offered = 0;
    for (const auto& s : vllm_campaign_stages(r.workload)) offered += s.rate * s.duration_s;
    const auto reqs = vllm_campaign_requests(r);
    CHECK(static_cast<double>(reqs.size()) == Approx(offered));
    const auto len = vllm_campaign_lengths_of(r.workload);
    CHECK(reqs.front().prompt == len.system_prompt + len.question);
    CHECK(reqs.back().output == len.output);
    CHECK(vllm_campaign_engine(r).shared_prefix_tokens == len.system_prompt);
  }
  // Hand-checked: general 8 x 600 + 20 x 600 = 16 800, codegen 5 x 600 + 10 x 600 = 9 000, roleplay 6 x 1200 = 7 200.
  CHECK(vllm_campaign_requests(vllm_campaign_runs()[0]).size() == 16800);
  CHECK(vllm_campaign_requests(vllm_campaign_runs()[1]).size() == 9000);
  CHECK(vllm_campaign_requests(vllm_campaign_runs()[2]).size() == 7200);
}

TEST_CASE("vLLM campaign: the Qwen3-14B fixture is read by the hf_config reader; without hf_dir it is refused by name") {
  const auto runs = vllm_campaign_runs();
  const auto& q = runs[6];
  REQUIRE(q.hf_fixture == "qwen3-14b.config.json");
  const model m = vllm_campaign_model(q, campaign_hf_dir);
  CHECK(m.layers == 40);
  CHECK(m.hidden == 5120);
  CHECK(m.heads == 40);
  CHECK(m.kv_heads == 8);
  CHECK(m.name == "Qwen3-14B");
  try {
    (void)vllm_campaign_model(q, std::nullopt);
    FAIL("no error");
  } catch (const config_error& e) {
    CHECK(e.field() == "hf_dir");
  }
}

TEST_CASE("vLLM campaign: every run rebuilds and is feasible; rows carry their source and the issue's tolerances") {
  const auto rows = vllm_campaign_rows(campaign_hf_dir);
  int e2e = 0;
  for (const auto& r : rows) {
    CAPTURE(r.id);
    CHECK(r.id.rfind("validation.serving.campaign.", 0) == 0);
    CHECK(r.kind == row_kind::check);
    CHECK(r.fitted.empty());
    CHECK(std::isfinite(r.value));
    CHECK(r.value > 0.0);
    CHECK(r.source.find("error_records.csv") != std::string::npos);
    REQUIRE(r.ok().has_value());
    CHECK(r.known_disagreement.empty() == *r.ok());
    const auto is = [&](const std::string& s) { return r.id.size() >= s.size() && r.id.compare(r.id.size() - s.size(), s.size(), s) == 0; };
    if (is("e2e_mean_s")) {
      ++e2e;
      CHECK(r.tolerance == 0.15);
    }
    if (is("ttft_mean_s")) CHECK(r.tolerance == 0.25);
    if (is("itl_mean_s")) CHECK(r.tolerance == 0.10);
    if (is("served_over_offered")) CHECK(r.tolerance == 0.05);
  }
  CHECK(e2e == 9);  // every run has its E2E row
  // Without the fixture directory the Qwen3-14B runs have no rows; the preset runs the same rows.
  const auto bare = vllm_campaign_rows(std::nullopt);
  CHECK(bare.size() < rows.size());
  CHECK(bare.front().value == rows.front().value);
}
