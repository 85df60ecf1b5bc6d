#!/usr/bin/env bash
# Runs the libFuzzer targets of fuzz/ for a bounded time each (fuzz/README.md).
#   fuzz/run.sh <fuzz build dir> <seconds per target> [target ...]   (default: all of them)
#   (0 seconds: only write the seeds; STRATA_FUZZ_SKIP_SEEDS=1: do not rewrite them)
# Seeds come from tests/data (Hugging Face configs; the first rows of the traces and tables) and
# from fuzz_make_seeds (the parameter presets as JSON); new inputs collect in <dir>/corpus/<target>.
# A finding (crash, exception other than config_error, non-finite result, allocation above
# -malloc_limit_mb, an input slower than -timeout) is written to <dir>/artifacts/ and fails the run.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="$(cd "$1" && pwd)"
secs="$2"
shift 2
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
  targets=(fuzz_param_json fuzz_hf_config fuzz_trace_csv fuzz_expert_counts_csv fuzz_top1_transitions_csv
           fuzz_measurements_csv fuzz_dqn_checkpoint fuzz_serving_scenario fuzz_scenario_json fuzz_hcrmap_replay fuzz_scenario_run
           fuzz_scenario_table fuzz_length_csv fuzz_hotspot_files fuzz_machine_json fuzz_sweep_csv)
fi
data="$root/tests/data"
seeds="$dir/seeds"
if [[ "${STRATA_FUZZ_SKIP_SEEDS:-0}" != 1 ]]; then
mkdir -p "$seeds"/{fuzz_param_json,fuzz_hf_config,fuzz_trace_csv,fuzz_expert_counts_csv,fuzz_top1_transitions_csv,fuzz_measurements_csv,fuzz_dqn_checkpoint,fuzz_serving_scenario,fuzz_scenario_json,fuzz_hcrmap_replay,fuzz_scenario_run,fuzz_scenario_table,fuzz_length_csv,fuzz_hotspot_files,fuzz_machine_json,fuzz_sweep_csv} \
  "$dir/artifacts"
"$dir/fuzz/fuzz_make_seeds" "$seeds/fuzz_param_json" "$seeds/fuzz_dqn_checkpoint" "$seeds/fuzz_sweep_csv"
# fuzz_machine_json: the cards and the machine of fuzz_param_json, the example machine file.
cp "$seeds/fuzz_param_json"/{h100_sxm5,rtx_a6000,machine_h100x2,h100_nvl}.json "$seeds/fuzz_machine_json/"
cp "$root/examples/scenarios/machines/h100_nvl.json" "$seeds/fuzz_machine_json/h100_nvl_example.json"
cp "$data"/hf/*.json "$seeds/fuzz_hf_config/"
# fuzz_trace_csv: the first byte selects the reader options (see fuzz_trace_csv.cpp).
for opt in 0 3 4; do
  { printf "\\x0$opt"; head -n 12 "$data/traces/dsv2lite_esft_trace_intent.csv"; } >"$seeds/fuzz_trace_csv/intent_$opt.csv"
done
head -n 129 "$data/traces/dsv2lite_esft_expert_counts_by_task.csv" >"$seeds/fuzz_expert_counts_csv/esft.csv"
head -n 65 "$data/traces/olmoe_mixtral_expert_counts_by_domain.csv" >"$seeds/fuzz_expert_counts_csv/olmoe.csv"
head -n 80 "$data/traces/olmoe_mixtral_crosslayer_top1.csv" >"$seeds/fuzz_top1_transitions_csv/top1.csv"
cp "$data/measurements/gpu_measurements.csv" "$seeds/fuzz_measurements_csv/"
# fuzz_serving_scenario: the example scenarios, fewer requests (the target lowers serving_limits()).
sc="$seeds/fuzz_serving_scenario"
sed 's/"count": 2000/"count": 60/' "$root/examples/scenarios/serve_mixtral.json" >"$sc/mixtral_topic.json"
sed -e 's/"count": 2000/"count": 60/' -e 's/"policy": "topic"/"policy": "fcfs"/' -e 's/"rate": 8/"rate": 40/' \
  "$root/examples/scenarios/serve_mixtral.json" >"$sc/mixtral_fcfs_overload.json"
cp "$root/examples/scenarios/serve_dsv2lite_trace.json" "$sc/dsv2lite_trace.json"
# The serving run coupled to the Stratum stack's temperature (reduced cooling: it throttles).
sed 's/"count": 600/"count": 60/' "$root/examples/scenarios/serve_mixtral_thermal.json" >"$sc/mixtral_thermal.json"
# The same with the stack's layers set field by field (thermal.stack).
sed -e 's/"count": 600/"count": 60/' \
  -e 's/"max_series": 64}/"max_series": 64, "stack": {"tim": {"conductivity_W_mK": 0.4}, "array": {"tier_pitch_m": 1e-7, "oxide_fraction": 0.6}, "bond": {"thickness_m": 2e-6}}}/' \
  "$root/examples/scenarios/serve_mixtral_thermal.json" >"$sc/mixtral_thermal_stack.json"
cat >"$sc/olmoe_list.json" <<'JSON'
{"system": "stratum-s", "model": "OLMoE-1B-7B-0924",
 "requests": {"topics": ["arxiv", "github", "wikipedia"], "arrivals": "gamma", "cv": 3, "rate": 2},
 "request_list": [{"arrival_s": 0.5, "prompt": 300, "output": 20, "topic": "github"},
                  {"arrival_s": 0.1, "prompt": 40, "output": 1, "topic": "arxiv"}],
 "usage": {"counts_model": "OLMoE-1B-7B-0824", "selection": "topk8", "checkpoint": "pretrained"},
 "classifier": {"accuracy": 0.85, "latency": "5 ms", "on_device": false},
 "scheduler": {"policy": "topic", "ttft_slo": "500 ms", "max_batch": 8, "max_prefill": 4, "kv_tokens": 4096},
 "gpu": {"name": "rtx_a6000", "gpus": 2, "compare": true}}
JSON
# The Stratum system through the engine (scheduler.loop "engine"): the example, and a small KV with
# a small budget (chunked prompts, preemption by recompute, the topic batcher's swaps).
sed 's/"count": 500/"count": 60/' "$root/examples/scenarios/serve_mixtral_engine.json" >"$sc/mixtral_engine.json"
cat >"$sc/olmoe_engine_preempt.json" <<'JSON'
{"system": "stratum-s", "model": "OLMoE-1B-7B-0924",
 "requests": {"topics": ["arxiv", "github", "wikipedia"], "rate": 50, "count": 40,
              "prompt": {"kind": "uniform", "min": 16, "max": 300}, "output": {"kind": "uniform", "min": 1, "max": 200}},
 "usage": {"counts_model": "OLMoE-1B-7B-0824", "selection": "topk8", "checkpoint": "pretrained"},
 "scheduler": {"policy": "topic", "max_batch": 8, "max_prefill": 4, "kv_tokens": 1024, "loop": "engine",
               "engine": {"max_num_batched_tokens": 64, "block_size": 8}},
 "gpu": {"compare": false}}
JSON
# An HCRMap package through the engine (hcrmap, serving/hcrmap_engine.hpp): the example, fewer
# requests, and a small one of two layers acting after every step; the thermal coupling through
# the engine loop.
sed 's/"count": 300/"count": 40/' "$root/examples/scenarios/serve_hcrmap_engine.json" >"$sc/hcrmap_engine.json"
cat >"$sc/hcrmap_engine_small.json" <<'JSON'
{"system": "none", "model": "DeepSeek-V2-Lite", "gpu": {"compare": false},
 "requests": {"topics": ["intent"], "rate": 30, "count": 30,
              "prompt": {"kind": "uniform", "min": 8, "max": 400}, "output": {"kind": "uniform", "min": 1, "max": 60}},
 "scheduler": {"max_batch": 16, "engine": {"max_num_batched_tokens": 256, "block_size": 8}},
 "hcrmap": {"enabled": true, "policy": "moentwine", "max_layers": 2, "planning_rounds": 2, "block_tokens": 32,
            "control_s": 0}}
JSON
sed -e 's/"count": 600/"count": 60/' -e 's/"scheduler": {/"scheduler": {"loop": "engine", /' \
  "$root/examples/scenarios/serve_mixtral_thermal.json" >"$sc/mixtral_thermal_engine.json"
# Replicas behind a router and prefill/decode disaggregation (serving/cluster.hpp).
cat >"$sc/gpu_replicas.json" <<'JSON'
{"system": "none", "model": "Mixtral-8x7B", "requests": {"topics": ["t"], "rate": 20, "count": 60},
 "gpu": {"replicas": {"count": 3, "router": "least_outstanding"}}}
JSON
cat >"$sc/gpu_disaggregated.json" <<'JSON'
{"system": "none", "model": "Mixtral-8x7B", "requests": {"topics": ["t"], "rate": 20, "count": 60},
 "gpu": {"disaggregation": {"prefill": 2, "decode": 1, "link": {"kind": "nvlink", "latency": "5 us"}}}}
JSON
# fuzz_scenario_json: the design-space scenarios.
for f in "$root"/examples/scenarios/*.json; do
  case "$(basename "$f")" in serve_*) ;; *) cp "$f" "$seeds/fuzz_scenario_json/" ;; esac
done
fi
if [[ "$secs" == 0 ]]; then exit 0; fi  # seeds only

status=0
for t in "${targets[@]}"; do
  mkdir -p "$dir/corpus/$t" "$seeds/$t" "$dir/artifacts"
  case "$t" in
    fuzz_param_json|fuzz_machine_json|fuzz_hf_config|fuzz_scenario_json|fuzz_scenario_run) max_len=8192 ;;
    fuzz_dqn_checkpoint) max_len=16384 ;;  # the seed checkpoints are 2-6 KB
    *) max_len=32768 ;;
  esac
  echo "+ $t for ${secs}s"
  # Corpus directories: the run's own (new inputs are written there), the generated seeds, the
  # corpus kept in the repository (fuzz/corpus/<target>) and the regressions.
  dirs=("$dir/corpus/$t" "$seeds/$t")
  [[ -d "$root/fuzz/corpus/$t" ]] && dirs+=("$root/fuzz/corpus/$t")
  [[ -d "$root/fuzz/regressions/$t" ]] && dirs+=("$root/fuzz/regressions/$t")
  if ! "$dir/fuzz/$t" -max_total_time="$secs" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 \
      -malloc_limit_mb=1024 -print_final_stats=1 -artifact_prefix="$dir/artifacts/$t-" \
      "${dirs[@]}" 2>"$dir/$t.log"; then
    echo "FINDING in $t: see $dir/$t.log and $dir/artifacts/" >&2
    tail -n 30 "$dir/$t.log" >&2
    status=1
  fi
  grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|^#[0-9]+ *DONE" "$dir/$t.log" || true
done
exit "$status"
