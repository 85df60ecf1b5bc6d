#include "strata/report/serving_validation_rows.hpp"
#include "strata/workload/hf_config.hpp"

#include <doctest/doctest.h>

#include <cmath>     // std::isfinite, std::isnan
#include <optional>  // std::optional
#include <set>       // std::set
#include <stdexcept> // std::runtime_error
#include <string>    // std::string
#include <vector>    // std::vector

using namespace strata;
using doctest::Approx;

namespace {
const std::string campaign_hf_dir = std::string(STRATA_TEST_DATA_DIR) + "/hf";
const config_reader campaign_read = [](const std::string& path) { return load_hf_config(path); };
}  // namespace

TEST_CASE("vLLM campaign: the table parses, every run sourced, settings within vLLM's ranges") {
  const auto runs = vllm_campaign_runs();
  REQUIRE(runs.size() == 26);
  std::set<std::string> keys;
  for (const auto& r : runs) {
    CAPTURE(r.key);
    CHECK(keys.insert(r.key).second);  // unique row ids
    CHECK(r.key.find('.') == std::string::npos);  // row ids are dot-separated paths
    CHECK(r.settings_source.find("values.yaml") != std::string::npos);
    CHECK(r.settings_source.find("tektonc-data-collection@") != std::string::npos);
    CHECK((r.measured_source == vllm_campaign_measured_source || r.measured_source == vllm_campaign_peer_source));
    CHECK((r.tp == 1 || r.tp == 2 || r.tp == 4 || r.tp == 8));
    CHECK((r.gpu_memory_utilization == 0.9 || r.gpu_memory_utilization == 0.95));
    CHECK(r.e2e_mean_ms > r.ttft_mean_ms);
    CHECK(r.itl_mean_ms > 0.0);
    CHECK(r.e2e_mean_ms > r.ttft_mean_ms + r.itl_mean_ms);  // outputs of ~250 tokens
    // the older record's roofline errors: the first nine runs only (NaN = not read there)
    CHECK((r.measured_source == vllm_campaign_measured_source) == !std::isnan(r.roofline_e2e_pct));
    CHECK((std::isnan(r.roofline_e2e_pct) || r.roofline_e2e_pct >= 0.0));
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
  const model m = vllm_campaign_model(q, campaign_hf_dir, campaign_read);
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
  const auto rows = vllm_campaign_rows(campaign_hf_dir, campaign_read);
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
  CHECK(e2e == 26);  // every run has its E2E row
  // Without the fixture directory the Qwen3-14B runs have no rows; the preset runs the same rows.
  const auto bare = vllm_campaign_rows(std::nullopt);
  CHECK(bare.size() < rows.size());
  CHECK(bare.front().value == rows.front().value);
}

namespace {
const vllm_campaign_run& campaign_run_named(const std::vector<vllm_campaign_run>& runs, const std::string& key) {
  for (const auto& r : runs) {
    if (r.key == key) return r;
  }
  throw std::runtime_error("no run " + key);
}
}  // namespace

TEST_CASE("vLLM campaign: the added runs carry the record's settings; their offered counts follow the template") {
  const auto runs = vllm_campaign_runs();
  const auto& tp4 = campaign_run_named(runs, "31-mixtral-8x7b-tp4-general");
  CHECK(tp4.tp == 4);
  CHECK(tp4.model == "Mixtral-8x7B");
  CHECK_FALSE(tp4.cpu_offload);
  const auto& big = campaign_run_named(runs, "50-mixtral-8x22b-tp8-codegen");
  CHECK(big.tp == 8);
  CHECK(big.model == "Mixtral-8x22B");
  CHECK(big.hf_fixture.empty());  // a preset
  CHECK(vllm_campaign_requests(big).size() == 9000);  // codegen 5 x 600 + 10 x 600
  const auto& mbt = campaign_run_named(runs, "22-llama-3-1-8b-tp1-general-mbt1024");
  CHECK(mbt.max_num_batched_tokens == 1024);
  CHECK(vllm_campaign_engine(mbt).max_num_batched_tokens == 1024);
  CHECK(campaign_run_named(runs, "25-llama-3-1-8b-tp1-general-gmu095").gpu_memory_utilization == 0.95);
  CHECK(campaign_run_named(runs, "24-llama-3-1-8b-tp1-general-offload").cpu_offload);
  const auto& roleplay = campaign_run_named(runs, "19-llama-3-1-8b-tp1-roleplay");
  CHECK(vllm_campaign_requests(roleplay).size() == 7200);  // 6 x 1200
  CHECK(vllm_campaign_requests(roleplay).front().prompt == 750);  // 150 + 600
  // The TP 2 Llama run is faster per token than TP 1 (measured): ITL 5.66 against 9.04 ms.
  CHECK(campaign_run_named(runs, "26-llama-3-1-8b-tp2-general").itl_mean_ms <
        campaign_run_named(runs, "16-llama-3-1-8b-tp1-general").itl_mean_ms);
  // Only the older record's run 27 queued; every other run's mean TTFT is under 0.1 s.
  for (const auto& r : runs) {
    CAPTURE(r.key);
    CHECK(r.steady == (r.ttft_mean_ms < 100.0));
  }
}

TEST_CASE("vLLM campaign: the CodeLlama-34B and Llama-2-70B fixtures load with their stated architecture") {
  const auto runs = vllm_campaign_runs();
  const model code = vllm_campaign_model(campaign_run_named(runs, "2-codellama-34b-tp2-codegen"), campaign_hf_dir, campaign_read);
  CHECK(code.name == "CodeLlama-34B");
  CHECK(code.layers == 48);
  CHECK(code.hidden == 8192);
  CHECK(code.heads == 64);
  CHECK(code.kv_heads == 8);
  CHECK(code.vocab == 32000);
  CHECK_FALSE(code.tie_embeddings);
  const model l70 = vllm_campaign_model(campaign_run_named(runs, "6-llama-2-70b-tp4-codegen"), campaign_hf_dir, campaign_read);
  CHECK(l70.name == "Llama-2-70B");
  CHECK(l70.layers == 80);
  CHECK(l70.hidden == 8192);
  CHECK(l70.heads == 64);
  CHECK(l70.kv_heads == 8);
  CHECK_FALSE(l70.tie_embeddings);
  // Hand count (untied embeddings 2 x 32000 x 8192; per layer q/o 2 x 8192^2, k/v 2 x 8192 x 1024,
  // SwiGLU 3 x 8192 x ffn, two norms of 8192; a final norm): 33.744 B and 68.977 B, the cards'
  // "34B" and "70B" (69 B) models.
  CHECK(static_cast<double>(count_params(code).total) == Approx(33'743'970'304.0).epsilon(1e-3));
  CHECK(static_cast<double>(count_params(l70).total) == Approx(68'976'648'192.0).epsilon(1e-3));
  CHECK(count_params(l70).total > count_params(code).total);
}

TEST_CASE("vLLM campaign: peer errors are the record's absolute errors, present where the record has the row") {
  const auto runs = vllm_campaign_runs();
  for (const auto& r : runs) {
    CAPTURE(r.key);
    for (const auto* p : {&r.peers.roofline, &r.peers.llm_optimizer, &r.peers.aiconfigurator, &r.peers.trained_physics,
                          &r.peers.evolved}) {
      // a peer has all three metrics or none
      CHECK(p->e2e_pct.has_value() == p->ttft_pct.has_value());
      CHECK(p->e2e_pct.has_value() == p->itl_pct.has_value());
      if (p->e2e_pct) {
        CHECK(*p->e2e_pct >= 0.0);
        CHECK(*p->ttft_pct >= 0.0);
        CHECK(*p->itl_pct >= 0.0);
      }
    }
    const bool in_newer = r.key.rfind("27-", 0) != 0;  // run 27 of the newer record is another measurement
    CHECK(r.peers.roofline.e2e_pct.has_value() == in_newer);
    CHECK(r.peers.llm_optimizer.e2e_pct.has_value() == in_newer);
    CHECK(r.peers.trained_physics.e2e_pct.has_value() == in_newer);
    // AIConfigurator has no Mixtral row in the record (nor Qwen3-14B general)
    if (r.model.rfind("Mixtral", 0) == 0) CHECK_FALSE(r.peers.aiconfigurator.e2e_pct.has_value());
  }
  // Hand-checked against the record: run 9 blis-roofline stage -1 e2e_mean mape 45.72148..., llm-optimizer
  // 90.87172...; run 14 aiconfigurator itl_mean 8.73519...
  const auto& r9 = campaign_run_named(runs, "9-mixtral-8x7b-tp2-general");
  CHECK(*r9.peers.roofline.e2e_pct == Approx(45.72).epsilon(1e-4));
  CHECK(*r9.peers.llm_optimizer.e2e_pct == Approx(90.87).epsilon(1e-4));
  CHECK(*campaign_run_named(runs, "14-qwen3-14b-tp1-codegen").peers.aiconfigurator.itl_pct == Approx(8.74).epsilon(1e-4));
  // The two records' roofline differ (the older one at 96.21 % on run 9): kept apart.
  CHECK(r9.roofline_e2e_pct == Approx(96.21).epsilon(1e-4));
}

TEST_CASE("vLLM campaign: the sampler follows each model's generation config (top-p where it sets one)") {
  const auto runs = vllm_campaign_runs();
  for (const auto& r : runs) {
    CAPTURE(r.key);
    const bool want = r.model == "Llama-3.1-8B" || r.model == "Qwen3-14B" || r.model == "Llama-2-70B";
    CHECK(vllm_campaign_top_p(r) == want);
    CHECK(vllm_campaign_engine(r).sampler.top_p == want);
    // The byte counts stay the library's cited ones: nothing per run.
    CHECK(vllm_campaign_engine(r).sampler.plain_bytes_per_logit == gpu_sampler_params{}.plain_bytes_per_logit);
    CHECK(vllm_campaign_engine(r).sampler.filter_bytes_per_logit == gpu_sampler_params{}.filter_bytes_per_logit);
  }
}
