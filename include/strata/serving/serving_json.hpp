// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Serving scenarios from JSON, their results to JSON and a text summary (the `strata-eval serve`
/// front end is a thin wrapper over `run_scenario` and `print_summary`).
///
/// Keys (all optional but `usage`; unknown keys are errors naming their path):
/// \code{.json}
/// {"system": "stratum-l", "model": "Mixtral-8x7B",
///  "requests": {"arrivals": "poisson", "rate": 4, "count": 1000, "seed": 1,
///               "stages": [{"rate": 8, "duration_s": 600}, {"rate": 20, "duration_s": 600}],
///               "prompt": {"kind": "fixed", "value": 512}, "output": {"kind": "uniform", "min": 64, "max": 256},
///               "topics": ["arxiv", "book", "c4", "github", "wikipedia"], "weights": [],
///               "paired": false,
///               "prefix_groups": {"groups": 0, "users": 1, "system_prompt": 0, "multi_turn": false}},
///  "request_list": [{"arrival_s": 0.1, "prompt": 512, "output": 128, "topic": "arxiv"}],
///  "lengths_csv": "",
///  "usage": {"counts": "traces/olmoe_mixtral_expert_counts_by_domain.csv",
///            "counts_model": "Mixtral-8x7B-v0.1", "selection": "topk2", "checkpoint": "pretrained"},
///  "classifier": {"accuracy": 0.945, "latency": "0 s", "on_device": true},
///  "scheduler": {"policy": "topic", "ttft_slo": "2 s", "tbt_slo": "200 ms", "max_batch": 64,
///                "client_overhead": "0 s", "loop": "stratum",
///                "engine": {"max_num_batched_tokens": 2048, "block_size": 16, "enable_chunked_prefill": true,
///                           "enable_prefix_caching": true}},
///  "gpu": {"name": "h100_sxm5", "gpus": 0, "compare": true, "scheduler": "engine",
///          "engine": {"max_num_batched_tokens": null, "max_num_seqs": null, "usage_context": "openai_api_server",
///                     "gpu_memory_utilization": 0.9, "block_size": 16, "enable_chunked_prefill": true,
///                     "enable_prefix_caching": true, "shared_prefix_tokens": 0,
///                     "host": {"async_scheduling": true, "step_s": 114e-6, "per_sequence_s": 12.7e-6,
///                              "tokenize_s_per_token": 2.2e-6},
///                     "sampler": {"top_p": false, "plain_bytes_per_logit": 50, "plain_kernels": 6,
///                                 "filter_bytes_per_logit": 174, "filter_kernels": 13}},
///          "ep": 1, "attention": "tp", "redundant_experts": 0, "ep_imbalance": "expected_max",
///          "replicas": {"count": 1, "router": "round_robin"},
///          "disaggregation": {"prefill": 0, "decode": 0,
///                             "link": {"kind": "network", "bandwidth": null, "latency": null}}},
///  "trace": {"path": "traces/dsv2lite_esft_trace_intent.csv", "experts": 64,
///            "label": "intent", "prompt_fraction": 0.5},
///  "thermal": {"enabled": false, "window_s": 0.005, "throttle_factor": 0.5, "limit_C": 85,
///              "cold_plate_h_W_m2K": 1.11e5, "coolant_C": 45, "grid": 0, "max_series": 512},
///  "hcrmap": {"enabled": false, "trace": "traces/dsv2lite_esft_trace_intent.csv", "experts": 0,
///             "policy": "hcrmap", "max_layers": 65536, "context": 2048, "profile_windows": 1,
///             "planning_rounds": 16, "block_tokens": 16, "control_s": 1}}
/// \endcode
/// `hcrmap` serves the same requests on an HCRMap chiplet package through the engine
/// (`serving/hcrmap_engine.hpp`: its windows as steps, its residency controller between them; the
/// routing trace gives the experts each window routes, the model must be the trace's); its results
/// are `serving_report::hcrmap` (`has_hcrmap`), a `hcrmap` key only when it is on. With `system`
/// "none" it may be the scenario's only machine.
/// `thermal` couples the Stratum run to its die stack's temperature (`serving_thermal.hpp`: refresh
/// and throttling that follow the hottest DRAM cell; off by default, every result then unchanged);
/// its results are `serving_report::thermal` (`has_thermal`), a `thermal` key only when it is on.
/// `gpu.scheduler` is the GPU baseline's (`engine.hpp`: `engine`, vLLM V1's, or `fcfs`, the
/// former one); `gpu.engine` its settings: an unset (null or absent) `max_num_batched_tokens` or
/// `max_num_seqs` is vLLM's default for the card and `usage_context` (`engine_limits_of`; 8192 and
/// 1024 on an H100 under the OpenAI API server), a value given wins. `gpu.ep` > 1 serves the model with expert parallelism
/// over that many GPUs (`gpu.gpus` 0 or the same), `gpu.attention` tp or dp, `gpu.redundant_experts`
/// EPLB slots per GPU, `gpu.ep_imbalance` the busiest GPU's load under uniform routing
/// (`workload/expert_parallel.hpp`; the defaults are tensor parallelism). `gpu.replicas` serves on
/// `count` engines, each of the GPUs above, behind a router (`round_robin`, `least_outstanding`,
/// `prefix_affinity`); `gpu.disaggregation` on `prefill` prefill and `decode` decode engines, the
/// prompt's KV moved over `link` (`nvlink` or `network`; unset bandwidth and latency are the
/// kind's, `serving/cluster.hpp`); both need the `engine` scheduler, and not both at once. `requests.stages` (non-empty) is a staged load
/// (`requests.hpp`) and each system's results then hold one `stage_result` per stage.
/// A length law (`requests.prompt`, `requests.output`) is `fixed` (`value`), `uniform` (`min`,
/// `max`), `list` (`values`), `normal` (`mean`, `sd`, clamped to [`min`, `max`]) or `lognormal`
/// (`mean`, `cv`, clamped likewise; `requests.hpp`). `lengths_csv` names a CSV of `prompt` and/or
/// `output` columns (`length_csv.hpp`) that replaces those laws (both columns: rows drawn as pairs,
/// `paired`); not with a `request_list` or a trace. `requests.prefix_groups` builds inference-perf's
/// shared-prefix workload: `groups` system prompts of `system_prompt` tokens, `users` users each,
/// `multi_turn` rounds resending the conversation (`requests.hpp`). `gpu.engine.host` is the
/// engine's host time (`engine_host.hpp`: per-step work, async scheduling, tokenisation);
/// `gpu.engine.sampler` the sampler's GPU time every step (`baseline/gpu_sampler.hpp`).
/// A non-empty `request_list` replaces the generator (its topics are `requests.topics`). The
/// usage topics are the requests' topics; a topic the count file does not hold is a
/// `config_error` naming `requests.topics[i]`. A `trace.path` replays a per-token routing trace
/// instead (`requests_from_trace`): each sequence is one request routing its decode tokens as
/// recorded, arrivals from `requests` (process, rate, seed), the topics are the trace's labels and
/// the usage tables are counted from the trace (`usage` is not read); the model's MoE layers and
/// experts must be the trace's (`config_error` naming `trace.path`). Paths are relative to the
/// base directory the caller gives. Input bounds: `serving_limits()` (requests, tokens, rate,
/// batch; the topic-layout cells of the model and topics when read; the decode steps and retained
/// samples of the requests before the run starts, naming `requests.count`, `request_list` or
/// `trace.path`) and the trace reader's `limits()`.
/// Any machine: `system` "none" runs no Stratum system (the GPU alone: `gpu.compare` must then be
/// true; no topic tables are read, `usage` is not used). `model` is a preset
/// name or a Hugging Face `config.json` path; `gpu.name` any GPU preset (`gpu_preset_names`) or a
/// machine file (a path ending in `.json` holding a `gpu_params` object, read by
/// `baseline/machine_json.hpp` as `strata-eval eval --machine` reads it; its knobs are its own, so
/// `gpu.knobs` must be `cited`). A `roofline_machine` file is refused naming `gpu.name`: the GPU
/// baseline needs one card (its memory sizes the KV cache and picks vLLM's defaults, `gpus` such
/// cards share the model), which a machine of tiers does not give apart.
/// Several machines on one load: `machines`, a list of at most `max_serving_machines` gpu blocks,
/// each with the keys of `gpu` and a `label` (default: its `name`; labels unique; `compare` true),
/// replaces `gpu` (a scenario giving both is a `config_error` naming `gpu`); each machine serves
/// the same requests and its result is `serving_report::machines[i]` under its label, the result
/// it gives alone. Errors name the block: `machines[1].name`, `machines[0].ep`.
/// Relative paths (`model`, `usage.counts`, `trace.path`, a machine file) resolve against the
/// scenario file's folder first, then the data directory.
/// `gpu.knobs` picks the card's knob set (`gpu_knob_set`, `baseline/baseline_gpu.hpp`): `cited`
/// (default: the card's own knobs, each from a cited measurement, the baseline of every comparison)
/// or `fitted` (`validated_gpu`: the knobs fitted on the 2024 measurement set);
/// `report/serving_validation_rows.hpp` checks both against measured vLLM runs.

#include <array>    // std::array, enum_names
#include <cstdint>  // std::int64_t
#include <filesystem>  // std::filesystem::exists (a path beside the scenario file)
#include <ostream>  // std::ostream
#include <sstream>  // std::ostringstream
#include <string>   // std::string
#include <utility>  // std::move
#include <vector>   // std::vector

#include "strata/baseline/gpu.hpp"
#include "strata/baseline/baseline_gpu.hpp"
#include "strata/baseline/machine_json.hpp"
#include "strata/core/json.hpp"
#include "strata/serving/hcrmap_engine.hpp"
#include "strata/serving/length_csv.hpp"
#include "strata/serving/simulator.hpp"
#include "strata/stratum/serving/serving_thermal.hpp"
#include "strata/stratum/serving/stratum_serving.hpp"
#include "strata/workload/hf_config.hpp"
#include "strata/workload/presets.hpp"
#include "strata/workload/trace_io.hpp"

namespace strata {
inline namespace v0 {

/// Where the per-topic usage tables come from.
struct serving_usage_spec {
  std::string counts = "traces/olmoe_mixtral_expert_counts_by_domain.csv";  ///< relative to the data directory
  std::string counts_model = "Mixtral-8x7B-v0.1";
  std::string selection = "topk2";
  std::string checkpoint = "pretrained";

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("counts", s.counts);
    v("counts_model", s.counts_model);
    v("selection", s.selection);
    v("checkpoint", s.checkpoint);
  }
};

/// The GPU baseline of a scenario.
struct serving_gpu_spec {
  std::string name = "h100_sxm5";  ///< a GPU preset (`gpu_preset_names`)
  int gpus = 0;                    ///< 0: the fewest that hold the model (`gpu_serving_baseline`)
  bool compare = true;
  gpu_scheduler scheduler = gpu_scheduler::engine;  ///< `engine.hpp`
  engine_params engine{};
  int ep = 1;                                               ///< EP degree (`parallelism::ep`)
  attention_parallel attention = attention_parallel::tp;    ///< `parallelism::attention`
  int redundant_experts = 0;                                ///< `parallelism::redundant_experts`
  ep_imbalance imbalance = ep_imbalance::expected_max;      ///< `parallelism::imbalance`
  gpu_knob_set knobs = default_gpu_knobs;                   ///< the card's knobs (file comment)
  replica_params replicas{};                                ///< engine replicas behind a router (`serving/cluster.hpp`)
  disaggregation_params disaggregation{};                   ///< prefill/decode engines (`serving/cluster.hpp`)

  /// The deployment's engines.
  template <class = void>
  [[nodiscard]] serving_cluster cluster() const { return {replicas, disaggregation}; }

  /// The GPUs' parallelism.
  template <class = void>
  [[nodiscard]] parallelism parallel() const { return {ep, attention, redundant_experts, imbalance}; }

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("name", s.name);
    v("gpus", s.gpus);
    v("compare", s.compare);
    v("scheduler", s.scheduler);
    v("engine", s.engine);
    v("ep", s.ep);
    v("attention", s.attention);
    v("redundant_experts", s.redundant_experts);
    v("ep_imbalance", s.imbalance);
    v("knobs", s.knobs);
    v("replicas", s.replicas);
    v("disaggregation", s.disaggregation);
  }
};

/// One machine of a scenario's `machines` list (file comment): a `gpu` block with a label.
struct serving_machine_spec {
  std::string label;       ///< its name in the results and the summary (empty: its `name`)
  serving_gpu_spec gpu{};  ///< the machine, read from the same keys as a `gpu` block, beside `label`

  /// The label the results carry: `label`, else the machine's `name`.
  template <class = void>
  [[nodiscard]] const std::string& shown_label() const { return label.empty() ? gpu.name : label; }

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("label", s.label);
    serving_gpu_spec::visit_fields(s.gpu, v);  // the gpu block's keys, flat beside `label`
  }
};

/// Most machines one scenario compares (`machines`): each runs the whole load once. [Design
/// choice: 16, every GPU preset twice over with room to spare]
inline constexpr int max_serving_machines = 16;

/// A routing trace replayed as the requests (file comment); an empty path: no trace.
struct serving_trace_spec {
  std::string path;
  int experts = 0;               ///< routed experts per layer (0: the largest id + 1)
  std::string label;             ///< topic label of every token (empty: topic "topic0")
  double prompt_fraction = 0.5;  ///< share of each sequence that is prompt

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("path", s.path);
    v("experts", s.experts);
    v("label", s.label);
    v("prompt_fraction", s.prompt_fraction);
  }
};

/// An HCRMap chiplet package served through the engine (`serving/hcrmap_engine.hpp`; file
/// comment): its routing trace and its knobs, flat beside `enabled`.
struct serving_hcrmap_spec {
  bool enabled = false;
  /// The routing trace of the served model (which experts each window routes; file comment of
  /// `hcrmap_engine.hpp`). [DeepSeek-V2-Lite's ESFT intent trace, tests/data/traces/README.md]
  std::string trace = "traces/dsv2lite_esft_trace_intent.csv";
  int experts = 0;  ///< routed experts per layer of the trace (0: the largest id + 1)
  hcrmap_serving_params params{};

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("enabled", s.enabled);
    v("trace", s.trace);
    v("experts", s.experts);
    hcrmap_serving_params::visit_fields(s.params, v);  // the package's knobs, flat beside `trace`
  }
};

/// A serving scenario (file comment).
struct serving_scenario {
  std::string system = "stratum-l";  ///< a Stratum system, or "none" (the GPU alone)
  std::string model = "Mixtral-8x7B";  ///< a preset name or a config.json path
  request_gen_params requests{.arrivals = arrival_process::poisson, .rate = 4.0, .cv = 2.0, .count = 1000,
                              .prompt = {}, .output = {.kind = length_kind::fixed, .value = 128, .min = 1, .max = 1024, .values = {}},
                              .topics = {"arxiv", "book", "c4", "github", "wikipedia"}, .weights = {}, .seed = 1, .stages = {}};
  std::vector<request_spec> request_list;
  /// A length CSV (`length_csv.hpp`) whose columns replace `requests.prompt` and/or
  /// `requests.output` (both: paired rows); empty: none.
  std::string lengths_csv;
  serving_usage_spec usage{};
  classifier_params<> classifier{};
  scheduler_params scheduler{};
  serving_gpu_spec gpu{};
  serving_trace_spec trace{};
  /// Several machines compared on the same load (file comment); non-empty: `gpu` is not used.
  std::vector<serving_machine_spec> machines;
  /// The Stratum run coupled to its die stack's temperature (`serving_thermal.hpp`; off by default).
  serving_thermal_params thermal{};
  /// An HCRMap package serving the same requests through the engine (off by default).
  serving_hcrmap_spec hcrmap{};

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("system", s.system);
    v("model", s.model);
    v("requests", s.requests);
    v("request_list", s.request_list);
    v("lengths_csv", s.lengths_csv);
    v("usage", s.usage);
    v("classifier", s.classifier);
    v("scheduler", s.scheduler);
    v("gpu", s.gpu);
    v("machines", s.machines);
    v("trace", s.trace);
    v("thermal", s.thermal);
    v("hcrmap", s.hcrmap);
  }
};

namespace detail {
/// Whether a scenario's `model` names a preset (else it is a config.json path).
template <class = void>
inline bool is_preset_name(const std::string& name) {
  for (const auto& n : preset_names()) {
    if (n == name) return true;
  }
  return false;
}
/// Whether a scenario names a config.json (a `.json` path) rather than a preset.
template <class = void>
inline bool is_config_path(const std::string& name) {
  return name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0;
}

/// One machine block of a scenario: where it is in the JSON (`gpu` or `machines[i]`), its label
/// in the results (empty for the `gpu` block) and its keys.
struct serving_machine_block {
  std::string at;
  std::string label;
  const serving_gpu_spec* gpu = nullptr;
};

/// The machine blocks a scenario runs (or checks): `machines`, else its one `gpu` block.
template <class = void>
inline std::vector<serving_machine_block> machine_blocks(const serving_scenario& s) {
  std::vector<serving_machine_block> b;
  if (s.machines.empty()) {
    b.push_back({"gpu", {}, &s.gpu});
    return b;
  }
  b.reserve(s.machines.size());
  for (std::size_t i = 0; i < s.machines.size(); ++i) {
    b.push_back({"machines[" + std::to_string(i) + "]", s.machines[i].shown_label(), &s.machines[i].gpu});
  }
  return b;
}

/// Checks a machine block's keys that need no model; `at` is its JSON path.
template <class = void>
inline void validate_machine_keys(const serving_gpu_spec& g, const std::string& at) {
  constexpr const char* m = "strata.serving";
  const std::string name_at = at + ".name";
  if (gpu_preset_named(g.name).empty()) {
    if (!is_config_path(g.name)) {
      try {
        (void)gpu_preset(g.name);
      } catch (const config_error& e) {
        throw config_error(name_at, "[strata.serving] " + name_at + ": " + e.what() +
                                        "; or a machine file (a gpu_params JSON path ending in .json)");
      }
    }
    require(g.name.size() <= 4096, m, name_at, g.name.size(), "a path of at most 4096 characters");
    // A file's knobs are its own (as `strata-eval eval --machine FILE` takes them).
    require(g.knobs == gpu_knob_set::cited, m, at + ".knobs", "fitted",
            "cited with a machine file (the file's knobs are taken as written)");
  }
  require_count(g.gpus, 0, 64, m, at + ".gpus");
  validate(g.engine, at + ".engine");
  validate(g.cluster(), at + ".");
  require(!g.cluster().clustered() || g.scheduler == gpu_scheduler::engine, m, at + ".scheduler", "fcfs",
          ("engine with " + at + ".replicas.count > 1 or " + at + ".disaggregation").c_str());
}

/// Checks a machine block's parallelism against the model it serves.
template <class = void>
inline void validate_machine_on(const serving_gpu_spec& g, const std::string& at, const model& pm) {
  constexpr const char* m = "strata.serving";
  require_count(g.ep, 1, 64, m, at + ".ep");
  if (g.ep > 1 && g.gpus != 0 && g.gpus != g.ep) {
    require(false, m, at + ".gpus", g.gpus, ("0 or " + at + ".ep (" + std::to_string(g.ep) + ")").c_str());
  }
  validate(g.parallel(), pm, g.ep, at + ".");
}

/// Checks the `machines` list itself: its size, each entry run (`compare`), labels unique.
template <class = void>
inline void validate_machine_list(const serving_scenario& s) {
  constexpr const char* m = "strata.serving";
  require(s.machines.size() <= static_cast<std::size_t>(max_serving_machines), m, "machines", s.machines.size(),
          "at most strata::max_serving_machines (16) entries");
  for (std::size_t i = 0; i < s.machines.size(); ++i) {
    const std::string at = "machines[" + std::to_string(i) + "]";
    const auto& e = s.machines[i];
    require(e.gpu.compare, m, at + ".compare", "false", "true (every listed machine is run; leave one out instead)");
    require(e.label.size() <= 256, m, at + ".label", e.label.size(), "a label of at most 256 characters");
    for (std::size_t k = 0; k < i; ++k) {
      if (s.machines[k].shown_label() == e.shown_label()) {
        require(false, m, at + ".label", e.shown_label(),
                ("a label no other machine has (machines[" + std::to_string(k) +
                 "] has it; a machine without a label is labelled by its name)").c_str());
      }
    }
  }
}
}  // namespace detail

/// Checks a scenario without reading files; throws `config_error` naming the JSON path. A
/// config.json `model` is checked when it is read (`run_scenario`); `model_of` is the model the
/// scenario serves when the caller has read it.
template <class = void>
inline void validate(const serving_scenario& s, const model* model_of = nullptr) {
  constexpr const char* m = "strata.serving";
  if (s.system != "none") (void)stratum_system(s.system);  // "machine" on an unknown name
  detail::require(s.system != "none" || s.gpu.compare || !s.machines.empty() || s.hcrmap.enabled, m, "gpu.compare",
                  "false", "true when system is \"none\" (the scenario has no other machine)");
  const bool preset_model = detail::is_preset_name(s.model);
  detail::require(preset_model || detail::is_config_path(s.model), m, "model", s.model,
                  "a preset model name or a Hugging Face config.json path (ending in .json)");
  validate(s.requests, "requests");
  detail::require(s.request_list.size() <= static_cast<std::size_t>(serving_limits().requests), m, "request_list",
                  s.request_list.size(), "at most strata::serving_limits().requests entries");
  validate(s.classifier, static_cast<int>(s.requests.topics.size()), "classifier");
  validate(s.scheduler, "scheduler");
  detail::validate_machine_list(s);
  const auto blocks = detail::machine_blocks(s);
  for (const auto& b : blocks) detail::validate_machine_keys(*b.gpu, b.at);
  detail::require(s.trace.path.size() <= 4096, m, "trace.path", s.trace.path.size(), "a path of at most 4096 characters");
  detail::require(s.lengths_csv.size() <= 4096, m, "lengths_csv", s.lengths_csv.size(), "a path of at most 4096 characters");
  detail::require(s.lengths_csv.empty() || (s.request_list.empty() && s.trace.path.empty()), m, "lengths_csv", s.lengths_csv,
                  "no lengths_csv with a request_list or a trace (their lengths are given)");
  detail::require_count(s.trace.experts, 0, 1 << 16, m, "trace.experts");
  detail::require(s.trace.label.size() <= 256, m, "trace.label", s.trace.label.size(), "a label of at most 256 characters");
  detail::require_in(s.trace.prompt_fraction, 0.0, 1.0, m, "trace.prompt_fraction");
  validate(s.thermal, "thermal");  // a value given is checked, on or off
  validate(s.hcrmap.params, "hcrmap");  // likewise
  detail::require(!s.hcrmap.enabled || !s.hcrmap.trace.empty(), m, "hcrmap.trace", "", "a routing trace CSV path");
  detail::require(s.hcrmap.trace.size() <= 4096, m, "hcrmap.trace", s.hcrmap.trace.size(), "a path of at most 4096 characters");
  detail::require_count(s.hcrmap.experts, 0, 1 << 16, m, "hcrmap.experts");
  if (s.thermal.enabled) {
    detail::require(s.system != "none", m, "thermal.enabled", "true", "false when system is \"none\" (the stack is a Stratum chip's)");
  }
  if (model_of == nullptr && !preset_model) return;  // the rest needs the model: checked when it is read
  const model pm = model_of != nullptr ? *model_of : preset(s.model);  // a trace run has the trace's one label
  for (const auto& b : blocks) detail::validate_machine_on(*b.gpu, b.at, pm);
  check_topic_cells(s.trace.path.empty() ? static_cast<std::int64_t>(s.requests.topics.size()) : 1, pm.moe_layers(),
                    pm.experts, s.trace.path.empty() ? "requests.topics" : "trace.label");
}

/// Reads a scenario from JSON text (`source` names it in errors) and validates it.
template <class = void>
inline serving_scenario read_serving_scenario(std::string_view text, const std::string& source = "scenario.json") {
  const json j = parse_json(text, source);
  auto s = from_json_at<serving_scenario>(j);
  // One form or the other: a `gpu` block beside a machine list would be a machine not run.
  detail::require(s.machines.empty() || !j.contains("gpu"), "strata.serving", "gpu", "a gpu block",
                  "absent when machines is given (list every machine in machines)");
  validate(s);
  return s;
}

/// The results of one machine of a scenario's `machines` list, under its label.
struct serving_machine_result {
  std::string label;
  serving_result result;

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("label", s.label);
    v("result", s.result);
  }
};

/// Results of a scenario: Stratum (unless its `system` is "none"), and the GPU baseline when asked
/// (`gpu`), or each machine of its `machines` list (`machines`, in the list's order; `has_gpu` is
/// then false).
struct serving_report {
  serving_result stratum;
  serving_result gpu;
  bool has_gpu = false;
  bool has_stratum = true;
  std::vector<serving_machine_result> machines;
  /// What the stack's temperature did to the Stratum run (`thermal.enabled`; `has_thermal`).
  serving_thermal_result thermal;
  bool has_thermal = false;
  /// The HCRMap package's run through the engine (`hcrmap.enabled`; `has_hcrmap`).
  serving_result hcrmap;
  bool has_hcrmap = false;

  template <class S, class V>
  static void visit_fields(S& s, V&& v) {
    v("stratum", s.stratum);
    v("gpu", s.gpu);
    v("has_gpu", s.has_gpu);
    v("has_stratum", s.has_stratum);
    // Only a scenario with a machine list has the key: a one-`gpu` scenario's JSON is unchanged.
    if (!s.machines.empty()) v("machines", s.machines);
    // Likewise the thermal coupling's results: only a scenario that turns it on.
    if (s.has_thermal) v("thermal", s.thermal);
    // Likewise the HCRMap package's run.
    if (s.has_hcrmap) v("hcrmap", s.hcrmap);
  }
};

/// The requests of a scenario (generated, or its list; a trace scenario's come from its trace).
template <class = void>
inline std::vector<request> scenario_requests(const serving_scenario& s) {
  if (!s.request_list.empty()) return requests_from_list(s.request_list, s.requests.topics, "request_list");
  return generate_requests(s.requests, "requests");
}

/// The files a scenario reads, loaded by the caller: the count table (not read with a trace) and
/// the trace (needed when `trace.path` is set).
struct serving_inputs {
  const expert_count_table* counts = nullptr;
  const routing_trace* trace = nullptr;
  const model* served = nullptr;  ///< the model read from the scenario's config.json (a preset: null)
  /// The machine of each machine block (`gpu`, or each of `machines`, in order), as
  /// `load_scenario_machines` loads them; null: every block must name a GPU preset.
  const std::vector<loaded_machine>* machines = nullptr;
  const routing_trace* hcrmap_trace = nullptr;  ///< `hcrmap.trace`, loaded (needed when `hcrmap.enabled`)
};

namespace detail {
/// The card a machine block serves on: its loaded machine, else its preset (with its knobs). A
/// roofline_machine file is refused: the GPU baseline needs one card's figures (its memory sizes
/// the KV cache and picks vLLM's engine defaults, its links carry the tensor- and expert-parallel
/// collectives over `gpus` cards), which a ready machine of tiers does not give apart.
template <class = void>
inline gpu_params serving_card(const serving_gpu_spec& g, const std::string& at, const loaded_machine* loaded) {
  const std::string name_at = at + ".name";
  if (loaded == nullptr) {
    require(!gpu_preset_named(g.name).empty(), "strata.serving", name_at, g.name, "a loaded machine file");
    return baseline_gpu(gpu_preset(g.name), g.knobs);
  }
  if (!loaded->gpu) {
    throw config_error(name_at, "[strata.serving] " + name_at + " '" + message_path(g.name) +
                                    "' is a roofline_machine file (it has \"tiers\"); serving needs a gpu_params file: "
                                    "the engine sizes its KV cache from one card's memory, takes vLLM's defaults by the "
                                    "card and spreads the model over gpus cards by tensor or expert parallelism");
  }
  try {  // the library's loaders validate; a machine the caller built is checked here
    validate(*loaded->gpu);
  } catch (const config_error& e) {
    throw config_error(name_at, "[strata.serving] " + name_at + " '" + message_path(g.name) + "': " + e.what());
  }
  return *loaded->gpu;
}
}  // namespace detail

/// The machine of each machine block of `s` (`gpu`, or each of `machines`): a GPU preset with the
/// block's knobs, or the machine file its `name` gives (`load_machine_file`), found by `resolve`
/// (a relative path to the one opened). A file that cannot be read is a `config_error` naming the
/// block's `name` (`gpu.name`, `machines[1].name`) and the file, the reader's message after it.
template <class Resolve>
std::vector<loaded_machine> load_scenario_machines(const serving_scenario& s, const Resolve& resolve) {
  std::vector<loaded_machine> out;
  for (const auto& b : detail::machine_blocks(s)) {
    const serving_gpu_spec& g = *b.gpu;
    if (!g.compare) {  // the one `gpu` block, not run: nothing to read
      out.emplace_back();
      continue;
    }
    if (const std::string n = gpu_preset_named(g.name); !n.empty()) {
      out.push_back(load_machine(n, g.knobs));
      continue;
    }
    const std::string name_at = b.at + ".name";
    try {
      out.push_back(load_machine_file(resolve(g.name), name_at));
    } catch (const config_error& e) {
      throw config_error(name_at, "[strata.serving] " + name_at + " '" + detail::message_path(g.name) + "': " + e.what());
    }
  }
  return out;
}

/// Runs a scenario on inputs already loaded (`run_scenario(s, base_dir)` loads them).
template <class = void>
inline serving_report run_scenario(const serving_scenario& s, const serving_inputs& in) {
  constexpr const char* m = "strata.serving";
  detail::require(in.served != nullptr || detail::is_preset_name(s.model), m, "model", s.model, "a loaded config.json");
  validate(s, in.served);
  stratum_serving_setup setup;
  const bool stratum = s.system != "none";
  if (stratum) setup.system = stratum_system(s.system);
  setup.m = in.served != nullptr ? *in.served : preset(s.model);
  std::vector<request> reqs;
  const routing_trace* trace = nullptr;
  if (!stratum && s.trace.path.empty()) {
    // The GPU alone: no topic tables (its engine routes no topic), the scenario's requests.
    reqs = scenario_requests(s);
  } else if (!s.trace.path.empty()) {
    detail::require(in.trace != nullptr, m, "trace.path", s.trace.path, "a loaded trace");
    trace = in.trace;
    require_trace_of_model(*trace, setup.m, "trace.path '" + s.trace.path + "'", "trace.path");
    setup.usage = topic_usage_from_trace(*trace);
    reqs = requests_from_trace(*trace, s.requests, s.trace.prompt_fraction);
  } else {
    detail::require(in.counts != nullptr, m, "usage.counts", s.usage.counts, "a loaded count table");
    setup.usage = topic_usage_from_counts(*in.counts, s.usage.counts_model, s.usage.selection, s.usage.checkpoint,
                                          s.requests.topics, setup.m.moe_layers(), "requests");
    setup.mix = s.requests.weights;
    reqs = scenario_requests(s);
  }
  // The run's work, from its requests, before it starts (serving_limits()).
  check_serving_work(reqs, trace != nullptr ? static_cast<std::int64_t>(setup.usage.topics.size()) + 1 : 0,
                     trace != nullptr ? "trace.path" : !s.request_list.empty() ? "request_list" : "requests.count");
  setup.classifier = s.classifier;
  setup.scheduler = s.scheduler;
  serving_report r;
  const std::vector<load_stage> no_stages;
  const auto& stages = trace == nullptr && s.request_list.empty() ? s.requests.stages : no_stages;
  const double overhead = s.scheduler.client_overhead.si();
  r.has_stratum = stratum;
  if (stratum && s.thermal.enabled) {
    auto run = simulate_stratum_thermal(setup, reqs, s.thermal, trace);
    r.stratum = std::move(run.serving);
    r.thermal = std::move(run.thermal);
    r.has_thermal = r.stratum.feasible;
    add_stage_results(r.stratum, reqs, stages, overhead);
  } else if (stratum) {
    r.stratum = simulate_stratum(setup, reqs, trace);
    add_stage_results(r.stratum, reqs, stages, overhead);
  }
  if (s.hcrmap.enabled) {
    detail::require(in.hcrmap_trace != nullptr, m, "hcrmap.trace", s.hcrmap.trace, "a loaded routing trace");
    r.hcrmap = simulate_hcrmap_serving({setup.m, in.hcrmap_trace, s.hcrmap.params, s.scheduler}, reqs);
    add_stage_results(r.hcrmap, reqs, stages, overhead);
    r.has_hcrmap = true;
  }
  const auto blocks = detail::machine_blocks(s);
  detail::require(in.machines == nullptr || in.machines->size() == blocks.size(), m, s.machines.empty() ? "gpu" : "machines",
                  in.machines == nullptr ? 0 : in.machines->size(), "one loaded machine per machine block");
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const serving_gpu_spec& g = *blocks[i].gpu;
    if (!g.compare) continue;  // the one `gpu` block, not asked for
    const gpu_params card = detail::serving_card(g, blocks[i].at, in.machines != nullptr ? &(*in.machines)[i] : nullptr);
    serving_result res = simulate_gpu(card, setup.m, s.scheduler, reqs, g.gpus, g.engine, g.scheduler, g.parallel(), g.cluster());
    add_stage_results(res, reqs, stages, overhead);
    if (s.machines.empty()) {
      r.has_gpu = true;
      r.gpu = std::move(res);
    } else {
      r.machines.push_back({blocks[i].label, std::move(res)});
    }
  }
  return r;
}

/// Runs a scenario; its file paths are taken relative to `base_dir` (empty: as given). A trace or
/// count table that cannot be read (`core/files.hpp`: a regular file within its size cap) is a
/// `config_error` naming `trace.path` or `usage.counts` (the reader's message follows).
template <class = void>
inline serving_report run_scenario(const serving_scenario& s, const std::string& base_dir = {},
                                   const std::string& scenario_dir = {}) {
  validate(s);
  // A relative path: beside the scenario file when a file is there, else in the data directory.
  const auto resolve = [&](const std::string& p) {
    if (!scenario_dir.empty() && !p.empty() && p.front() != '/') {
      std::error_code ec;
      std::string beside = detail::csv::relative_to(scenario_dir, p);
      if (std::filesystem::exists(beside, ec)) return beside;
    }
    return detail::csv::relative_to(base_dir, p);
  };
  if (!s.lengths_csv.empty()) {
    // The CSV's lengths replace the generator's laws; the rest of the scenario as given.
    serving_scenario with = s;
    with.lengths_csv.clear();
    try {
      apply_length_csv(with.requests, read_length_csv(resolve(s.lengths_csv)));
    } catch (const config_error& e) {
      throw config_error("lengths_csv", "[strata.serving] lengths_csv '" + s.lengths_csv + "': " + e.what());
    }
    return run_scenario(with, base_dir, scenario_dir);
  }
  serving_inputs in;
  expert_count_table counts;
  routing_trace trace;
  model served;
  if (!detail::is_preset_name(s.model)) {
    try {
      served = load_hf_config_with_warnings(resolve(s.model)).m;
    } catch (const config_error& e) {  // the reader names the file and the key; the scenario's key first
      throw config_error("model", "[strata.serving] model '" + s.model + "': " + e.what());
    }
    in.served = &served;
  }
  if (!s.trace.path.empty()) {
    const std::string path = resolve(s.trace.path);
    try {
      trace = load_trace_csv(path, {.experts = s.trace.experts, .k = 0, .label = s.trace.label});
    } catch (const config_error& e) {
      throw config_error("trace.path", "[strata.serving] trace.path '" + s.trace.path + "': " + e.what());
    }
    in.trace = &trace;
  } else if (s.system != "none") {
    try {
      counts = load_expert_counts_csv(resolve(s.usage.counts));
    } catch (const config_error& e) {
      throw config_error("usage.counts", "[strata.serving] usage.counts '" + s.usage.counts + "': " + e.what());
    }
    in.counts = &counts;
  }
  routing_trace hcrmap_trace;
  if (s.hcrmap.enabled) {
    try {
      hcrmap_trace = load_trace_csv(resolve(s.hcrmap.trace), {.experts = s.hcrmap.experts, .k = 0, .label = {}});
    } catch (const config_error& e) {
      throw config_error("hcrmap.trace", "[strata.serving] hcrmap.trace '" + s.hcrmap.trace + "': " + e.what());
    }
    in.hcrmap_trace = &hcrmap_trace;
  }
  const std::vector<loaded_machine> machines = load_scenario_machines(s, resolve);
  in.machines = &machines;
  return run_scenario(s, in);
}

/// The report as JSON text (2-space indent; the same run gives the same bytes).
template <class = void>
inline std::string serving_json(const serving_report& r) { return dump_json(json(r), 2); }

namespace detail {
template <class = void>
inline void summary_line(std::ostream& os, const serving_result& r) {
  os << r.system << " (" << r.policy << ")";
  if (!r.feasible) {
    os << ": infeasible: " << r.reason << "\n";
    return;
  }
  os << ": " << r.requests << " requests in " << r.makespan_s << " s, " << r.throughput_rps << " req/s, "
     << r.throughput_tps << " tok/s\n"
     << "  TTFT p50/p90/p99 " << r.ttft_p50_s << " / " << r.ttft_p90_s << " / " << r.ttft_p99_s << " s, TBT p50/p90/p99 "
     << r.tbt_p50_s * 1e3 << " / " << r.tbt_p90_s * 1e3 << " / " << r.tbt_p99_s * 1e3 << " ms\n"
     << "  SLO attainment " << r.slo_attainment * 100 << " % (TTFT alone " << r.ttft_attainment * 100 << " %), mean batch "
     << r.mean_batch << (r.ranks > 1 ? " over " + std::to_string(r.ranks) + " DP ranks" : std::string()) << "\n"
     << "  mean TTFT " << r.ttft.mean_s * 1e3 << " ms, ITL " << r.itl.mean_s * 1e3 << " ms, TPOT " << r.tpot.mean_s * 1e3
     << " ms, E2E " << r.e2e.mean_s << " s (p50/p90/p99 " << r.e2e.p50_s << " / " << r.e2e.p90_s << " / " << r.e2e.p99_s
     << " s)\n";
  if (r.policy == "engine" || r.policy.starts_with("engine (")) {  // the GPUs', or Stratum's through the engine
    os << "  engine steps: " << r.mixed_steps << " mixed, " << r.decode_steps << " decode, " << r.prefill_steps
       << " prefill; " << r.preemptions << " preemptions, " << r.prefix_cached_tokens << " prompt tokens from the prefix cache, KV "
       << r.kv_tokens << " tokens\n";
  }
  if (r.engines > 1 && r.decode_engines == 0) {
    os << "  " << r.engines << " replicas (" << r.router << "), requests per replica:";
    for (auto k : r.engine_requests) os << " " << k;
    os << "\n";
  } else if (r.decode_engines > 0) {
    os << "  " << r.prefill_engines << " prefill + " << r.decode_engines << " decode engines (" << r.router << "); "
       << r.kv_transfers << " KV transfers, " << r.kv_transfer_bytes / 1e9 << " GB, mean " << r.kv_transfer_mean_s * 1e3
       << " ms (max " << r.kv_transfer_max_s * 1e3 << " ms) from first token to KV at the decode engine\n";
  }
  for (const auto& st : r.stages) {
    os << "  stage " << st.stage << " [" << st.start_s << ", " << st.end_s << ") s: offered " << st.offered_rps
       << " req/s, served " << st.served_rps << " req/s, mean TTFT " << st.ttft.mean_s * 1e3 << " ms, ITL "
       << st.itl_mean_s * 1e3 << " ms, E2E " << st.e2e.mean_s << " s\n";
  }
  if (r.policy == "topic" || r.policy == "engine (topic)" || r.hot_hit_rate > 0.0) {
    os << "  hot-hit rate " << r.hot_hit_rate * 100 << " % (mix layout " << r.mix_hit_rate * 100 << " %), swaps " << r.swaps
       << " (" << r.swap_share * 100 << " % of busy time), classifier " << r.classifier_share * 100 << " % of busy time, labels right "
       << r.label_accuracy * 100 << " %\n";
  }
}
}  // namespace detail

/// Prints the report as a few lines of text, every number to 4 significant digits (docs/cli.md,
/// Output conventions; the JSON has every digit).
template <class = void>
inline void print_summary(std::ostream& os, const serving_report& r) {
  std::ostringstream text;
  text.precision(4);
  if (r.has_stratum) detail::summary_line(text, r.stratum);
  if (r.has_thermal) {
    const auto& th = r.thermal;
    text << "  thermal (" << th.model << ", " << th.windows << " windows of " << th.window_s * 1e3 << " ms): hottest DRAM cell "
         << th.peak_dram_C << " degC (limit " << th.limit_C << "), logic " << th.peak_logic_C << " degC; "
         << th.time_above_limit_s << " s above the limit, " << th.throttled_time_s << " s throttled, refresh "
         << th.refresh_overhead_share * 100 << " % of bank time; throughput lost " << th.throughput_lost * 100 << " %\n";
  }
  if (r.has_hcrmap) detail::summary_line(text, r.hcrmap);
  if (r.has_gpu) detail::summary_line(text, r.gpu);
  for (const auto& mr : r.machines) {
    text << "[" << mr.label << "] ";
    detail::summary_line(text, mr.result);
  }
  os << text.str();
}

}  // namespace v0
}  // namespace strata
