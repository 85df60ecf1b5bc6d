// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The measured vLLM v0.15.1 serving runs on H100 80 GB of the public BLIS measurement campaign
/// whose models strata has, as a data table (`vllm_campaign_runs`), and their rebuild with the
/// library's own API (`simulate_gpu`, the engine scheduler, default knobs, nothing fitted).
///
/// Sources (every number of the table):
/// - settings: inference-sim/tektonc-data-collection `blis-campaign/campaign/<n>-<model>-h100-<workload>/values.yaml`
///   at commit `bc8f22902803b99db17c60417db959797a36ec8d` (runs 1–12) and `0f7f91c9434483286f75500e7e4b445d13219a27`
///   (13–15): vLLM `v0.15.1`, `MAX_MODEL_LEN` 4096, `MAX_NUM_SEQS` 128, inference-perf constant-rate
///   stages, `shared_prefix` data with fixed lengths, streaming completions, `ignore_eos`. The three
///   workload templates (identical across models): general 8 req/s × 600 s then 20 × 600, system prompt
///   100, question 447, output 248; codegen 5 × 600 then 10 × 600, 100/466/247; roleplay 6 × 1200,
///   150/600/251.
/// - measured per-run means and each run's TP, `max_num_batched_tokens`, `gpu_memory_utilization` and
///   CPU-offload flag: inference-sim/sim-to-real-accuracy-validation `results/cluster_2000req/error_records.csv`
///   at commit `9bcf9391846fc2f08b94fd86919d721e67fe3f25`, column `actual` of the stage −1 (whole run)
///   rows `e2e_mean`, `ttft_mean`, `itl_mean` (ms). Its run folders are `<id>-<model>-tp<N>-<workload>`;
///   ids 27–29 there are Mixtral-8x7B variants of the general run (`max_num_batched_tokens` 1024 and
///   8192, a repeat) that the campaign directory numbers differently, so their settings are the
///   record's columns with the general template.
/// - peer errors beside strata's (docs/serving.md): the same file's `blis-roofline` rows (`mape`, %),
///   the campaign's own roofline simulator at that commit.
///
/// Left out, and why: CodeLlama-34B (runs 1–3) and Llama-2-70B (5–7): no config.json of either was
/// found in the stored corpus, so no fixture; Mixtral-8x7B reasoning (12): its values.yaml profile was
/// not read (the reasoning template's lengths are not stated here); Llama-3.1-8B (16, 19, 20, 25–29 of
/// the campaign), Mixtral-8x7B at TP 4 and Mixtral-8x22B at TP 8: their measured means were not read
/// from the 270 000-character record in this round. The 27 runs are those plus these.
///
/// Modelling choices (the same as `serving_validation_rows.hpp`'s three runs, per run):
/// - the system prompt is the cached shared prefix; every prompt is system prompt + question
///   (single-turn reading of `enable_multi_turn_chat`);
/// - no client overhead, no per-step host time (`scheduler_params{}`, the library's defaults);
/// - `--cpu-offload-gb 4` (the record's `cpu_offload` true) is not modelled: every weight in HBM
///   (`serving_validation_rows.hpp` states why the measured step rules out a weight stream per step).

#include <optional>  // std::optional
#include <string>    // std::string
#include <vector>    // std::vector

#include "strata/baseline/baseline_gpu.hpp"
#include "strata/baseline/gpu.hpp"
#include "strata/core/error.hpp"
#include "strata/stratum/serving/simulator.hpp"
#include "strata/workload/hf_config.hpp"
#include "strata/workload/presets.hpp"

namespace strata {
inline namespace v0 {

/// The inference-perf workload templates of the campaign (file comment).
enum class vllm_campaign_workload { general, codegen, roleplay };

/// One measured campaign run (file comment: every field's source).
struct vllm_campaign_run {
  std::string key;                 ///< row id part, e.g. "13-qwen3-14b-tp1-general"
  std::string model;               ///< preset name, or the name of `hf_fixture`'s model
  std::string hf_fixture;          ///< `tests/data/hf/` file name when strata has no preset ("" = preset)
  int tp = 1;                      ///< tensor-parallel GPUs
  vllm_campaign_workload workload = vllm_campaign_workload::general;
  int max_num_batched_tokens = 2048;
  double gpu_memory_utilization = 0.9;
  bool cpu_offload = false;        ///< `--cpu-offload-gb 4` set (not modelled, file comment)
  double e2e_mean_ms = 0;          ///< measured mean E2E over the run
  double ttft_mean_ms = 0;         ///< measured mean TTFT
  double itl_mean_ms = 0;          ///< measured mean inter-token latency
  bool steady = true;              ///< both stages' measured mean E2E within 10 % of each other (no queue)
  double roofline_e2e_pct = 0, roofline_ttft_pct = 0, roofline_itl_pct = 0;  ///< blis-roofline's errors (%)
  std::string settings_source;     ///< the values.yaml the template and settings are from
};

/// Where the measured means and the peer errors are stated.
inline constexpr const char* vllm_campaign_measured_source =
    "inference-sim/sim-to-real-accuracy-validation@9bcf939 results/cluster_2000req/error_records.csv";

/// The table (file comment). The stage means that make a run `steady` are in the same record.
template <class = void>
inline std::vector<vllm_campaign_run> vllm_campaign_runs() {
  const std::string c1 = "inference-sim/tektonc-data-collection@bc8f229 blis-campaign/campaign/";
  const std::string c2 = "inference-sim/tektonc-data-collection@0f7f91c blis-campaign/campaign/";
  using w = vllm_campaign_workload;
  const auto mixtral = [&](std::string key, w wl, int mbt, bool offload, double e2e, double ttft, double itl, bool steady,
                           double re, double rt, double ri, std::string dir) {
    return vllm_campaign_run{std::move(key), "Mixtral-8x7B", "", 2, wl, mbt, 0.9, offload, e2e, ttft, itl, steady,
                             re, rt, ri, c1 + dir + "/values.yaml"};
  };
  const auto qwen = [&](std::string key, w wl, double e2e, double ttft, double itl, double re, double rt, double ri,
                        std::string dir) {
    return vllm_campaign_run{std::move(key), "Qwen3-14B", "qwen3-14b.config.json", 1, wl, 2048, 0.9, false, e2e, ttft,
                             itl, true, re, rt, ri, c2 + dir + "/values.yaml"};
  };
  return {
      mixtral("9-mixtral-8x7b-tp2-general", w::general, 2048, true, 5038.638, 68.937, 20.336, true, 96.21, 47.10, 96.92,
              "9-mixtral-8x7b-h100-general"),
      mixtral("10-mixtral-8x7b-tp2-codegen", w::codegen, 2048, true, 4675.230, 58.855, 19.053, true, 97.19, 71.04, 97.56,
              "10-mixtral-8x7b-h100-codegen"),
      mixtral("11-mixtral-8x7b-tp2-roleplay", w::roleplay, 2048, true, 4684.724, 60.509, 18.728, true, 95.38, 8.12,
              96.57, "11-mixtral-8x7b-h100-roleplay"),
      // stage means 58 960 and 154 747 ms: the run queued from its first stage
      mixtral("27-mixtral-8x7b-tp2-general-mbt1024", w::general, 1024, false, 94377.023, 75824.882, 76.054, false, 99.80,
              99.96, 99.16, "9-mixtral-8x7b-h100-general"),
      mixtral("28-mixtral-8x7b-tp2-general-mbt8192", w::general, 8192, false, 5031.172, 63.709, 20.328, true, 96.18,
              30.71, 97.05, "9-mixtral-8x7b-h100-general"),
      mixtral("29-mixtral-8x7b-tp2-general-repeat", w::general, 2048, true, 5023.153, 65.649, 20.249, true, 96.20, 44.45,
              96.91, "9-mixtral-8x7b-h100-general"),
      qwen("13-qwen3-14b-tp1-general", w::general, 4064.115, 50.835, 16.336, 39.61, 463.45, 46.27,
           "13-qwen3-14b-h100-general"),
      qwen("14-qwen3-14b-tp1-codegen", w::codegen, 3318.723, 42.065, 13.375, 40.42, 256.39, 44.46,
           "14-qwen3-14b-h100-codegen"),
      qwen("15-qwen3-14b-tp1-roleplay", w::roleplay, 3284.992, 41.324, 13.113, 39.28, 377.17, 45.17,
           "15-qwen3-14b-h100-roleplay"),
  };
}

/// A run's load stages (req/s × s) from its workload template (file comment).
template <class = void>
inline std::vector<load_stage> vllm_campaign_stages(vllm_campaign_workload w) {
  switch (w) {
    case vllm_campaign_workload::general: return {{8.0, 600.0}, {20.0, 600.0}};
    case vllm_campaign_workload::codegen: return {{5.0, 600.0}, {10.0, 600.0}};
    case vllm_campaign_workload::roleplay: return {{6.0, 1200.0}};
  }
  throw config_error("workload", "[strata.vllm_campaign] workload: unknown template");
}

/// The template's fixed lengths: system prompt, question, output (file comment).
struct vllm_campaign_lengths {
  int system_prompt = 0, question = 0, output = 0;
};

template <class = void>
inline vllm_campaign_lengths vllm_campaign_lengths_of(vllm_campaign_workload w) {
  switch (w) {
    case vllm_campaign_workload::general: return {100, 447, 248};
    case vllm_campaign_workload::codegen: return {100, 466, 247};
    case vllm_campaign_workload::roleplay: return {150, 600, 251};
  }
  throw config_error("workload", "[strata.vllm_campaign] workload: unknown template");
}

/// The run's requests: constant-rate arrivals in its stages, fixed lengths.
template <class = void>
inline std::vector<request> vllm_campaign_requests(const vllm_campaign_run& run) {
  const auto len = vllm_campaign_lengths_of(run.workload);
  request_gen_params g;
  g.arrivals = arrival_process::constant;
  g.stages = vllm_campaign_stages(run.workload);
  g.prompt = {.kind = length_kind::fixed, .value = len.system_prompt + len.question, .min = 1, .max = 1024, .values = {}};
  g.output = {.kind = length_kind::fixed, .value = len.output, .min = 1, .max = 1024, .values = {}};
  return generate_requests(g);
}

/// vLLM's engine settings of the run: the record's batch budget and memory share, `MAX_NUM_SEQS`
/// 128, the system prompt as the cached shared prefix.
template <class = void>
inline engine_params vllm_campaign_engine(const vllm_campaign_run& run) {
  engine_params e;
  e.max_num_batched_tokens = run.max_num_batched_tokens;
  e.max_num_seqs = 128;
  e.gpu_memory_utilization = run.gpu_memory_utilization;
  e.shared_prefix_tokens = vllm_campaign_lengths_of(run.workload).system_prompt;
  return e;
}

/// The run's model: its preset, or its fixture read by the library's `config.json` reader from
/// `hf_dir` (`tests/data/hf`). A run that needs a fixture without `hf_dir` is a `config_error`
/// naming `hf_dir`.
template <class = void>
inline model vllm_campaign_model(const vllm_campaign_run& run, const std::optional<std::string>& hf_dir) {
  if (run.hf_fixture.empty()) return preset(run.model);
  if (!hf_dir) {
    throw config_error("hf_dir", "[strata.vllm_campaign] hf_dir: run " + run.key + " needs " + run.hf_fixture +
                                     " (tests/data/hf) and no directory was given");
  }
  model m = load_hf_config(*hf_dir + "/" + run.hf_fixture);
  m.name = run.model;
  return m;
}

/// The rebuild: the run on `card` (default the H100 SXM5 with its cited knobs) with vLLM's engine
/// scheduler and the library's default scheduler parameters; the result carries the stages.
template <class = void>
inline serving_result simulate_vllm_campaign_run(const vllm_campaign_run& run, const model& m,
                                                 const gpu_params& card = baseline_gpu(h100_sxm5())) {
  const auto reqs = vllm_campaign_requests(run);
  auto r = simulate_gpu(card, m, scheduler_params{}, reqs, run.tp, vllm_campaign_engine(run), gpu_scheduler::engine);
  add_stage_results(r, reqs, vllm_campaign_stages(run.workload));
  return r;
}

}  // namespace v0
}  // namespace strata
