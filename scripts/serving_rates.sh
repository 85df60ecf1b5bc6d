#!/usr/bin/env bash
# Topic-aware batching against FCFS across request rates: runs a serving scenario through
# `strata-eval serve --json` at each rate with each scheduler and prints a markdown table
# (throughput, TTFT p99, SLO attainment, achieved hot-hit rate, swaps' share of busy time).
#
#   scripts/serving_rates.sh [STRATA_EVAL] [SCENARIO] [RATES...]
#
# Defaults: build/examples/strata-eval, examples/scenarios/serve_mixtral.json, 0.5 1 2 4 8 16.
# The scenario's "rate" and "policy" are replaced; everything else (model, system, topic mix,
# SLOs, seed) is the file's. Needs python3 for the JSON edits (Debian's python3-minimal).
set -euo pipefail
cd "$(dirname "$0")/.."
eval_bin=${1:-build/examples/strata-eval}
scenario=${2:-examples/scenarios/serve_mixtral.json}
shift $(( $# > 2 ? 2 : $# )) || true
rates=("$@")
[[ ${#rates[@]} -gt 0 ]] || rates=(0.5 1 2 4 8 16)
command -v python3 >/dev/null || { echo "serving_rates.sh: needs python3" >&2; exit 1; }
[[ -x "$eval_bin" ]] || { echo "serving_rates.sh: no program $eval_bin (build strata-eval first)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "| rate (req/s) | scheduler | throughput (req/s) | TTFT p99 (s) | SLO attainment | hot-hit rate | swaps (share of busy time) |"
echo "| ---: | --- | ---: | ---: | ---: | ---: | ---: |"
for rate in "${rates[@]}"; do
  for policy in fcfs topic; do
    python3 - "$scenario" "$rate" "$policy" >"$work/s.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
s["requests"]["rate"] = float(sys.argv[2])
s.setdefault("scheduler", {})["policy"] = sys.argv[3]
s.pop("gpu", None)
print(json.dumps(s))
EOF
    "$eval_bin" serve "$work/s.json" --json >"$work/r.json"
    python3 - "$work/r.json" "$rate" "$policy" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
r = j["stratum"] if "stratum" in j else j
print(f"| {sys.argv[2]} | {sys.argv[3]} | {r['requests_per_s']:.3g} | {r['ttft_p99_s']:.3g} | "
      f"{100 * r['slo_attainment']:.1f} % | {100 * r['hot_hit_rate']:.1f} % | {100 * r.get('swap_share', 0.0):.2f} % |")
EOF
  done
done
