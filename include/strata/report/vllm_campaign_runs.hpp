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
/// - runs 16–26 (Llama-3.1-8B TP 1 and 2), 30–31 (Mixtral-8x7B at `gpu_memory_utilization` 0.95 and
///   at TP 4) and 49–51 (Mixtral-8x22B TP 8), and every peer's per-run error:
///   inference-sim/sim-to-real-accuracy-validation `results_iter36/error_records.csv` at commit
///   `378810d69ca8f27f8b841017117ecd0edfada7b7` (`vllm_campaign_peer_source`), its stage −1 rows
///   (`actual` for the measured means, `mape` for the peers); its `actual` equals the older record's on
///   the runs both hold. Its H100 runs of a workload template this file does not hold (`general-lite`,
///   `reasoning-lite`) are not rebuilt; its run 27 is such a `general-lite` run, a different
///   measurement from the older record's queued run 27.
/// - peer errors at the older commit: that file's `blis-roofline` rows (`roofline_*_pct`, the first
///   nine runs), kept beside the newer record's.
///
/// - CodeLlama-34B (runs 2, 3) and Llama-2-70B (6, 7): no preset; their `config.json` ship as
///   `tests/data/hf/codellama-34b.config.json` and `llama-2-70b.config.json` (provenance in that
///   folder's README), read by the library's reader (`hf_dir`).
///
/// Left out, and why: the general runs of CodeLlama-34B (1) and Llama-2-70B (5), Mixtral-8x7B
/// reasoning (12) and Llama-3.1-8B's codegen/roleplay at TP 2: not in the newer record (its H100 ids,
/// as read: 2, 3, 6, 7, 9–11, 13–16, 18, 19, 22–31, 49–51, 53), and their profiles were not read
/// from the older one; run 53 (Mixtral-8x22B `reasoning-lite`) and the `general-lite` run 27: their
/// templates are not in this file. The newer record was read to offset 760 000 of its 923 299
/// characters (every H100 run up to run 53; what follows, as far as sampled, is A100 and L40S).
///
/// Modelling choices (the same as `serving_validation_rows.hpp`'s three runs, per run):
/// - the system prompt is the cached shared prefix; every prompt is system prompt + question
///   (single-turn reading of `enable_multi_turn_chat`);
/// - no client overhead (`scheduler_params{}`); the engine's host time and sampler at the library's
///   defaults, the sampler top-p filtered where the model's generation config asks for it
///   (`vllm_campaign_top_p`, `baseline/gpu_sampler.hpp`);
/// - the tensor-parallel all-reduce is vLLM's custom all-reduce (`vllm_campaign_card`,
///   `allreduce_algorithm::vllm_custom`: what vLLM v0.15.1 runs on 2, 4 or 8 NVLinked H100s), at its
///   published H100 latencies instead of the NCCL ring's 2(n − 1) steps;
/// - `--cpu-offload-gb 4` (the record's `cpu_offload` true) is not modelled: every weight in HBM
///   (`serving_validation_rows.hpp` states why the measured step rules out a weight stream per step).

#include <functional>  // std::function, the config.json reader
#include <limits>    // std::numeric_limits
#include <optional>  // std::optional
#include <string>    // std::string
#include <string_view>  // std::string_view
#include <utility>   // std::move
#include <vector>    // std::vector

#include "strata/baseline/baseline_gpu.hpp"
#include "strata/baseline/gpu.hpp"
#include "strata/core/error.hpp"
#include "strata/serving/simulator.hpp"
#include "strata/workload/presets.hpp"

namespace strata {
inline namespace v0 {

/// The inference-perf workload templates of the campaign (file comment).
enum class vllm_campaign_workload { general, codegen, roleplay };

/// One peer's published absolute errors on a run, % (column `mape` of the stage −1 rows);
/// empty where the record has no row (AIConfigurator does not run Mixtral or Qwen3-14B general)
/// or where the row was not read (file comment).
struct vllm_campaign_peer_errors {
  std::optional<double> e2e_pct, ttft_pct, itl_pct;
};

/// The peers of the record `vllm_campaign_peer_source`, by its `simulator` column:
/// `blis-roofline` (the campaign's roofline simulator), `llm-optimizer-estimate`,
/// `aiconfigurator-estimate`, `blis-trained-physics` (the campaign's simulator with coefficients
/// trained on these runs) and `blis-evolved` (its evolved-latency variant, also trained on them).
struct vllm_campaign_peers {
  vllm_campaign_peer_errors roofline, llm_optimizer, aiconfigurator, trained_physics, evolved;
};

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
  bool steady = true;              ///< the measured run did not queue (mean TTFT under 0.1 s; run 27's is 75.8 s)
  /// blis-roofline's errors (%) in `vllm_campaign_measured_source` (@ 9bcf939); NaN for the runs added
  /// from `vllm_campaign_peer_source`, whose peer errors are in `peers`.
  double roofline_e2e_pct = 0, roofline_ttft_pct = 0, roofline_itl_pct = 0;
  std::string settings_source;     ///< the values.yaml the template and settings are from
  std::string measured_source;     ///< the record the measured means are read from
  vllm_campaign_peers peers{};     ///< the peers' published errors on this run (`vllm_campaign_peer_source`)
};

/// Where the measured means and the peer errors are stated.
inline constexpr const char* vllm_campaign_measured_source =
    "inference-sim/sim-to-real-accuracy-validation@9bcf939 results/cluster_2000req/error_records.csv";

/// Where the peers' per-run errors are stated, and the measured means of the runs added from it
/// (the same measurements: its `actual` column equals `vllm_campaign_measured_source`'s on the
/// runs both hold, e.g. run 9's E2E 5038.638 ms).
inline constexpr const char* vllm_campaign_peer_source =
    "inference-sim/sim-to-real-accuracy-validation@378810d results_iter36/error_records.csv";

/// The table (file comment). The TTFT that makes a run `steady` is in the same record.
template <class = void>
inline std::vector<vllm_campaign_run> vllm_campaign_runs() {
  const std::string c1 = "inference-sim/tektonc-data-collection@bc8f229 blis-campaign/campaign/";
  const std::string c2 = "inference-sim/tektonc-data-collection@0f7f91c blis-campaign/campaign/";
  const double not_read = std::numeric_limits<double>::quiet_NaN();
  using w = vllm_campaign_workload;
  using pe = vllm_campaign_peer_errors;
  const auto mixtral = [&](std::string key, w wl, int mbt, bool offload, double e2e, double ttft, double itl, bool steady,
                           double re, double rt, double ri, const std::string& dir) {
    return vllm_campaign_run{std::move(key), "Mixtral-8x7B", "", 2, wl, mbt, 0.9, offload, e2e, ttft, itl, steady,
                             re, rt, ri, c1 + dir + "/values.yaml", vllm_campaign_measured_source, {}};
  };
  const auto qwen = [&](std::string key, w wl, double e2e, double ttft, double itl, double re, double rt, double ri,
                        const std::string& dir) {
    return vllm_campaign_run{std::move(key), "Qwen3-14B", "qwen3-14b.config.json", 1, wl, 2048, 0.9, false, e2e, ttft,
                             itl, true, re, rt, ri, c2 + dir + "/values.yaml", vllm_campaign_measured_source, {}};
  };
  // Runs added from vllm_campaign_peer_source (Llama-3.1-8B: the record's
  // meta-llama/Llama-3.1-8B-Instruct, Mixtral-8x22B: mistralai/Mixtral-8x22B-Instruct-v0.1; the
  // presets have their architectures, the 8x22B preset's vocabulary is the base model's 32 000 of
  // the instruct model's 32 768): tp, max_num_batched_tokens, gpu_memory_utilization and cpu_offload
  // from the record's columns, lengths and stages from the workload's template as read in the
  // Mixtral-8x7B runs' files (these runs' own values.yaml were not read).
  const auto added = [&](std::string key, std::string model_name, w wl, int tp, int mbt, double gmu, bool offload,
                         double e2e, double ttft, double itl, const char* tmpl) {
    return vllm_campaign_run{std::move(key), std::move(model_name), "", tp, wl, mbt, gmu, offload, e2e, ttft, itl, true,
                             not_read, not_read, not_read,
                             c1 + tmpl + "/values.yaml (the workload's template; tp, max_num_batched_tokens, "
                                          "gpu_memory_utilization and cpu_offload from the record's columns)",
                             vllm_campaign_peer_source, {}};
  };
  const auto llama = [&](std::string key, w wl, int tp, int mbt, double gmu, bool offload, double e2e, double ttft,
                         double itl, const char* tmpl) {
    return added(std::move(key), "Llama-3.1-8B", wl, tp, mbt, gmu, offload, e2e, ttft, itl, tmpl);
  };
  // CodeLlama-34B and Llama-2-70B (the record's codellama/CodeLlama-34b-Instruct-hf and
  // meta-llama/Llama-2-70b-hf): no preset, their config.json fixtures (tests/data/hf, provenance in
  // its README) read by the hf_config reader; the record holds their codegen and roleplay runs.
  const auto fixture = [&](std::string key, std::string model_name, std::string file, w wl, int tp, double e2e,
                           double ttft, double itl, const char* tmpl) {
    return vllm_campaign_run{std::move(key), std::move(model_name), std::move(file), tp, wl, 2048, 0.9, true, e2e, ttft,
                             itl, true, not_read, not_read, not_read,
                             c1 + tmpl + "/values.yaml (the workload's template; tp, max_num_batched_tokens, "
                                          "gpu_memory_utilization and cpu_offload from the record's columns)",
                             vllm_campaign_peer_source, {}};
  };
  std::vector<vllm_campaign_run> runs{
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
      llama("16-llama-3-1-8b-tp1-general", w::general, 1, 2048, 0.9, false, 2167.956, 28.547, 9.037,
            "9-mixtral-8x7b-h100-general"),
      llama("18-llama-3-1-8b-tp1-codegen", w::codegen, 1, 2048, 0.9, false, 1889.696, 25.281, 7.919,
            "10-mixtral-8x7b-h100-codegen"),
      llama("19-llama-3-1-8b-tp1-roleplay", w::roleplay, 1, 2048, 0.9, false, 1884.778, 25.999, 7.770,
            "11-mixtral-8x7b-h100-roleplay"),
      llama("22-llama-3-1-8b-tp1-general-mbt1024", w::general, 1, 1024, 0.9, false, 2411.327, 31.237, 10.065,
            "9-mixtral-8x7b-h100-general"),
      llama("23-llama-3-1-8b-tp1-general-mbt8192", w::general, 1, 8192, 0.9, false, 2135.814, 29.051, 8.884,
            "9-mixtral-8x7b-h100-general"),
      llama("24-llama-3-1-8b-tp1-general-offload", w::general, 1, 2048, 0.9, true, 2123.392, 29.600, 8.893,
            "9-mixtral-8x7b-h100-general"),
      llama("25-llama-3-1-8b-tp1-general-gmu095", w::general, 1, 2048, 0.95, false, 2135.264, 28.192, 8.887,
            "9-mixtral-8x7b-h100-general"),
      llama("26-llama-3-1-8b-tp2-general", w::general, 2, 2048, 0.9, false, 1356.075, 20.950, 5.657,
            "9-mixtral-8x7b-h100-general"),
      fixture("2-codellama-34b-tp2-codegen", "CodeLlama-34B", "codellama-34b.config.json", w::codegen, 2, 3722.858,
              45.581, 14.805, "10-mixtral-8x7b-h100-codegen"),
      fixture("3-codellama-34b-tp2-roleplay", "CodeLlama-34B", "codellama-34b.config.json", w::roleplay, 2, 3669.731,
              45.684, 14.353, "11-mixtral-8x7b-h100-roleplay"),
      fixture("6-llama-2-70b-tp4-codegen", "Llama-2-70B", "llama-2-70b.config.json", w::codegen, 4, 4605.498, 55.587,
              18.650, "10-mixtral-8x7b-h100-codegen"),
      fixture("7-llama-2-70b-tp4-roleplay", "Llama-2-70B", "llama-2-70b.config.json", w::roleplay, 4, 4561.571, 54.754,
              18.105, "11-mixtral-8x7b-h100-roleplay"),
      added("30-mixtral-8x7b-tp2-general-gmu095", "Mixtral-8x7B", w::general, 2, 2048, 0.95, false, 5000.205, 63.783,
            20.205, "9-mixtral-8x7b-h100-general"),
      added("31-mixtral-8x7b-tp4-general", "Mixtral-8x7B", w::general, 4, 2048, 0.9, false, 2799.512, 37.028, 11.255,
            "9-mixtral-8x7b-h100-general"),
      added("49-mixtral-8x22b-tp8-general", "Mixtral-8x22B", w::general, 8, 2048, 0.9, false, 4825.595, 61.845, 19.224,
            "9-mixtral-8x7b-h100-general"),
      added("50-mixtral-8x22b-tp8-codegen", "Mixtral-8x22B", w::codegen, 8, 2048, 0.9, false, 4447.049, 58.169, 17.787,
            "10-mixtral-8x7b-h100-codegen"),
      added("51-mixtral-8x22b-tp8-roleplay", "Mixtral-8x22B", w::roleplay, 8, 2048, 0.9, false, 4509.578, 57.689,
            17.760, "11-mixtral-8x7b-h100-roleplay"),
  };
  // The peers' `mape` (%) of the stage -1 rows of vllm_campaign_peer_source, E2E / TTFT / ITL, as
  // the record states them (rounded to 0.01); {} where it has no row or the row was not read.
  const auto set = [&](std::string_view key, const vllm_campaign_peers& p) {
    for (auto& r : runs) {
      if (r.key == key) r.peers = p;
    }
  };
  set("2-codellama-34b-tp2-codegen", {pe{17.48, 1085.71, 30.49}, pe{4.65, 2388.70, 33.95}, pe{56.14, 1479.91, 39.83},
                                      pe{13.56, 23.62, 14.51}, pe{10.01, 29.22, 10.81}});
  set("3-codellama-34b-tp2-roleplay", {pe{4.78, 1511.74, 23.13}, pe{9.00, 1882.77, 32.45}, pe{29.88, 292.44, 27.83},
                                       pe{17.44, 41.01, 18.29}, pe{13.39, 27.61, 14.32}});
  set("6-llama-2-70b-tp4-codegen", {pe{33.36, 886.47, 45.06}, pe{36.10, 1600.58, 56.64}, pe{77.58, 2180.39, 50.63},
                                    pe{0.85, 20.81, 1.95}, pe{0.21, 11.04, 1.19}});
  set("7-llama-2-70b-tp4-roleplay", {pe{23.96, 1242.74, 39.61}, pe{39.34, 1278.59, 55.72}, pe{48.99, 1281.81, 33.43},
                                     pe{2.97, 28.72, 2.20}, pe{2.62, 23.14, 1.91}});
  set("9-mixtral-8x7b-tp2-general", {pe{45.72, 114.97, 48.50}, pe{90.87, 29.35, 91.85}, pe{}, pe{6.61, 26.07, 5.91},
                                     pe{3.59, 23.72, 2.85}});
  set("10-mixtral-8x7b-tp2-codegen", {pe{45.99, 66.21, 48.21}, pe{90.95, 58.34, 91.53}, pe{}, pe{12.13, 17.84, 10.80},
                                      pe{10.90, 14.27, 9.53}});
  set("11-mixtral-8x7b-tp2-roleplay", {pe{39.91, 194.96, 43.69}, pe{90.97, 67.52, 91.42}, pe{}, pe{13.07, 18.89, 12.07},
                                       pe{12.31, 16.56, 11.28}});
  set("13-qwen3-14b-tp1-general", {pe{33.42, 791.52, 44.17}, pe{21.05, 5064.34, 43.37}, pe{}, pe{5.70, 10.59, 6.44},
                                   pe{17.97, 20.88, 18.92}});
  set("14-qwen3-14b-tp1-codegen", {pe{22.62, 892.00, 34.63}, pe{28.22, 1515.60, 48.46}, pe{23.73, 1156.59, 8.74},
                                   pe{6.79, 6.37, 6.33}, pe{0.81, 17.22, 1.48}});
  set("15-qwen3-14b-tp1-roleplay", {pe{12.67, 1201.22, 28.89}, pe{29.29, 1362.69, 47.79}, pe{7.86, 974.50, 5.46},
                                    pe{8.67, 9.69, 7.48}, pe{1.38, 11.26, 0.17}});
  set("16-llama-3-1-8b-tp1-general", {pe{33.03, 663.14, 44.71}, pe{40.03, 1151.07, 57.93}, pe{20.57, 345.07, 11.42},
                                      pe{2.18, 13.14, 6.47}, pe{10.95, 33.46, 15.25}});
  set("18-llama-3-1-8b-tp1-codegen", {pe{28.18, 679.18, 40.45}, pe{51.43, 287.92, 58.09}, pe{5.49, 271.97, 13.14},
                                      pe{3.53, 14.27, 1.09}, pe{0.54, 21.02, 4.08}});
  set("19-llama-3-1-8b-tp1-roleplay", {pe{11.84, 1024.73, 29.52}, pe{52.00, 202.41, 57.65}, pe{1.20, 613.36, 13.68},
                                       pe{2.84, 11.97, 1.75}, pe{1.78, 12.75, 2.80}});
  set("22-llama-3-1-8b-tp1-general-mbt1024", {pe{41.09, 518.41, 50.63}, pe{46.09, 1043.30, 62.22},
                                              pe{8.40, 306.73, 0.03}, pe{13.58, 0.40, 17.46}, pe{19.95, 20.22, 23.89}});
  set("23-llama-3-1-8b-tp1-general-mbt8192", {pe{30.20, 899.65, 45.29}, pe{39.13, 1129.35, 57.20},
                                              pe{22.39, 337.34, 13.34}, pe{1.94, 20.44, 6.18}, pe{9.60, 39.99, 13.90}});
  set("24-llama-3-1-8b-tp1-general-offload", {pe{31.63, 635.98, 43.82}, pe{38.77, 1106.55, 57.25},
                                              pe{23.10, 329.23, 13.21}, pe{0.13, 9.12, 4.97}, pe{9.08, 28.71, 13.89}});
  set("25-llama-3-1-8b-tp1-general-gmu095", {pe{32.01, 672.74, 43.78}, pe{39.11, 1166.81, 57.21},
                                              pe{22.42, 350.67, 13.30}, pe{0.69, 14.57, 4.89}, pe{9.59, 35.14, 13.82}});
  set("26-llama-3-1-8b-tp2-general", {pe{52.56, 316.75, 60.21}, pe{66.08, 132.46, 70.69}, pe{0.35, 711.06, 14.76},
                                      pe{15.06, 14.38, 19.33}, pe{11.72, 21.80, 16.20}});
  // Run 27 of vllm_campaign_peer_source is another measurement (its `general-lite` profile, 4 451 ms
  // E2E, unqueued) than the queued general run of vllm_campaign_measured_source: no peer errors here.
  set("28-mixtral-8x7b-tp2-general-mbt8192", {pe{44.07, 256.43, 48.48}, pe{90.86, 23.56, 91.84}, pe{},
                                              pe{6.79, 17.80, 5.95}, pe{3.74, 14.50, 2.85}});
  set("29-mixtral-8x7b-tp2-general-repeat", {pe{45.55, 125.73, 48.28}, pe{90.84, 25.82, 91.81}, pe{},
                                             pe{6.94, 22.37, 6.37}, pe{3.91, 19.90, 3.29}});
  set("30-mixtral-8x7b-tp2-general-gmu095", {pe{45.30, 132.34, 48.17}, pe{90.80, 23.65, 91.79}, pe{},
                                              pe{7.43, 20.10, 6.59}, pe{4.38, 17.55, 3.51}});
  set("31-mixtral-8x7b-tp4-general", {pe{52.77, 84.73, 54.90}, pe{92.42, 67.12, 92.84}, pe{}, pe{0.90, 8.60, 0.36},
                                      pe{1.74, 3.41, 1.13}});
  set("49-mixtral-8x22b-tp8-general", {pe{58.15, 87.51, 59.91}, pe{91.03, 24.33, 91.90}, pe{},
                                       pe{12.17, 26.01, 11.72}, pe{9.72, 25.23, 9.24}});
  set("50-mixtral-8x22b-tp8-codegen", {pe{59.83, 12.31, 60.34}, pe{90.93, 59.51, 91.36}, pe{}, pe{6.38, 28.04, 5.83},
                                       pe{2.81, 26.86, 2.22}});
  set("51-mixtral-8x22b-tp8-roleplay", {pe{53.98, 153.11, 56.55}, pe{91.04, 67.35, 91.36}, pe{},
                                        pe{6.71, 25.96, 6.23}, pe{2.97, 25.06, 2.44}});
  return runs;
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

/// Whether the run's requests are top-p filtered (`gpu_sampler_params::top_p`, the sampler's sort
/// path). inference-perf sends no sampling parameters (the values.yaml `api`/`server` blocks set
/// only streaming and `ignore_eos`), so vLLM v0.15.1 applies the model's `generation_config.json`
/// (`--generation-config auto`, the default): meta-llama/Llama-3.1-8B-Instruct temperature 0.6,
/// top_p 0.9; Qwen/Qwen3-14B temperature 0.6, top_k 20, top_p 0.95; meta-llama/Llama-2-70b-hf
/// temperature 0.6, top_p 0.9 (the Llama 2 files' first revision had temperature 0.9, top_p 0.6:
/// top-p filtered either way). The Mixtral instruct models and CodeLlama-34b-Instruct-hf set no
/// sampling defaults: plain random sampling.
template <class = void>
inline bool vllm_campaign_top_p(const vllm_campaign_run& run) {
  return run.model == "Llama-3.1-8B" || run.model == "Qwen3-14B" || run.model == "Llama-2-70B";
}

/// vLLM's engine settings of the run: the record's batch budget and memory share, `MAX_NUM_SEQS`
/// 128, the system prompt as the cached shared prefix, the sampler of the model's generation
/// config (`vllm_campaign_top_p`).
template <class = void>
inline engine_params vllm_campaign_engine(const vllm_campaign_run& run) {
  engine_params e;
  e.sampler.top_p = vllm_campaign_top_p(run);
  e.max_num_batched_tokens = run.max_num_batched_tokens;
  e.max_num_seqs = 128;
  e.gpu_memory_utilization = run.gpu_memory_utilization;
  e.shared_prefix_tokens = vllm_campaign_lengths_of(run.workload).system_prompt;
  return e;
}

/// Reads a model from a Hugging Face `config.json` path: `load_hf_config` of
/// `strata/workload/hf_config.hpp`, passed in by the caller so that the report's row builders
/// stay free of the JSON library (only I/O headers read JSON).
using config_reader = std::function<model(const std::string& path)>;

/// The run's model: its preset, or its fixture read by `read` (the library's `config.json`
/// reader, `load_hf_config`) from `hf_dir` (`tests/data/hf`). A run that needs a fixture without
/// `hf_dir` or a reader is a `config_error` naming `hf_dir`.
template <class = void>
inline model vllm_campaign_model(const vllm_campaign_run& run, const std::optional<std::string>& hf_dir,
                                 const config_reader& read = {}) {
  if (run.hf_fixture.empty()) return preset(run.model);
  if (!hf_dir || !read) {
    throw config_error("hf_dir", "[strata.vllm_campaign] hf_dir: run " + run.key + " needs " + run.hf_fixture +
                                     (hf_dir ? " and no config.json reader was given (load_hf_config)"
                                             : " (tests/data/hf) and no directory was given"));
  }
  model m = read(*hf_dir + "/" + run.hf_fixture);
  m.name = run.model;
  return m;
}

/// The card a run is served on: `card` with the all-reduce vLLM v0.15.1 runs on one H100 node,
/// its custom all-reduce (`allreduce_algorithm::vllm_custom`, `workload/roofline.hpp`: vLLM takes
/// it over NCCL for 2, 4, 6 or 8 fully NVLinked GPUs and messages under 8 MiB, every TP run here).
template <class = void>
inline gpu_params vllm_campaign_card(gpu_params card) {
  card.allreduce = allreduce_algorithm::vllm_custom;
  return card;
}

/// The rebuild: the run on `card` (default the H100 SXM5 with its cited knobs; its all-reduce
/// vLLM's, `vllm_campaign_card`) with vLLM's engine scheduler and the library's default scheduler
/// parameters; the result carries the stages. `reqs` must be `vllm_campaign_requests(run)`: they
/// read the run's workload alone, so a caller that rebuilds the run on many cards (the gap
/// explainer, `report/explain_groups.hpp`) draws them once.
template <class = void>
inline serving_result simulate_vllm_campaign_run(const vllm_campaign_run& run, const model& m, const gpu_params& card,
                                                 const std::vector<request>& reqs) {
  auto r = simulate_gpu(vllm_campaign_card(card), m, scheduler_params{}, reqs, run.tp, vllm_campaign_engine(run),
                        gpu_scheduler::engine);
  add_stage_results(r, reqs, vllm_campaign_stages(run.workload));
  return r;
}

/// The rebuild of the run on `card` (above), its requests drawn (`vllm_campaign_requests`).
template <class = void>
inline serving_result simulate_vllm_campaign_run(const vllm_campaign_run& run, const model& m,
                                                 const gpu_params& card = baseline_gpu(h100_sxm5())) {
  return simulate_vllm_campaign_run(run, m, card, vllm_campaign_requests(run));
}

}  // namespace v0
}  // namespace strata
