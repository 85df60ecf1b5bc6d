#!/usr/bin/env bash
# HCRMap on synthetic task switches (the drift fitted to DeepSeek-V2-Lite's ESFT switches,
# strata/workload/task_drift.hpp) for every Table 2 model: `strata-eval hcrmap --drift-tasks`
# served in file order with the six compared policies and with HCRMap's installed layout frozen,
# printed as a markdown table of latency normalised to single-copy static, the fastest policy, and
# the controller's gain (HCRMap over HCRMap frozen) with its edits.
#
#   scripts/task_switch_table.sh [STRATA_EVAL] [TASKS] [LAYERS] [MAX_WINDOWS]
#
# Defaults: build/examples/strata-eval, 3 tasks, 6 MoE layers evaluated (evenly spaced, routed
# time scaled), 24 windows served. Needs python3 to read the JSON (Debian's python3-minimal).
set -euo pipefail
cd "$(dirname "$0")/.."
eval_bin=${1:-build/examples/strata-eval}
tasks=${2:-3}
layers=${3:-6}
windows=${4:-24}
command -v python3 >/dev/null || { echo "task_switch_table.sh: needs python3" >&2; exit 1; }
[[ -x "$eval_bin" ]] || { echo "task_switch_table.sh: no program $eval_bin (build strata-eval first)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
models=(DeepSeekMoE-16B DeepSeek-V2-Lite DeepSeek-V2 DeepSeek-V3 Mixtral-8x7B Mixtral-8x22B DBRX Qwen1.5-MoE-A2.7B)

echo "| model | mode | fixed | hydra | moentwine | pimoe | hcrmap | fastest | hcrmap / frozen | edits (published) |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |"
for m in "${models[@]}"; do
  for mode in prefill decode; do
    args=(hcrmap --model "$m" --drift-tasks "$tasks" --mode "$mode" --layers "$layers" --max-windows "$windows" --json)
    "$eval_bin" "${args[@]}" >"$work/all.json"
    "$eval_bin" "${args[@]}" --policy hcrmap_frozen >"$work/frozen.json"
    python3 - "$work/all.json" "$work/frozen.json" "$m" "$mode" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
f = json.load(open(sys.argv[2]))
lat = {p["policy"]: p["normalised"]["latency"] for p in a["policies"]}
frozen = {p["policy"]: p for p in f["policies"]}["hcrmap_frozen"]["latency_s"]
h = {p["policy"]: p for p in a["policies"]}["hcrmap"]
fastest = min((v, k) for k, v in lat.items())[1]
row = [sys.argv[3], sys.argv[4]] + [f"{lat[k]:.3f}" for k in ("fixed", "hydra", "moentwine", "pimoe", "hcrmap")]
row += [fastest, f"{h['latency_s'] / frozen:.3f}", f"{h['controller_edits']['total']} ({h['controller_edits']['published']})"]
print("| " + " | ".join(row) + " |")
PY
  done
done
