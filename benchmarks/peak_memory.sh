#!/usr/bin/env bash
# Peak memory (max RSS) of the programs on the commands of docs/speed.md, each against its stated
# budget; prints a markdown table (docs/speed.md, peak memory).
#
#   benchmarks/peak_memory.sh <build dir> [--check] [--quick] [--helper <peak_rss>] [--eval <strata-eval>]
#
# <build dir>  holds examples/strata-eval (and examples/strata-paper-report for its row); --eval
#              names the strata-eval program instead (a multi-configuration build)
# --check      exit 1 when a command fails, exceeds its memory budget or its output budget
# --quick      leave out the paper report (about 20 s of two cores) and the 100 000-request run
# --helper     the peak_rss program (benchmarks/peak_rss.cpp); without it, GNU time
#              (/usr/bin/time -f %M) where installed, else peak_rss compiled here with ${CXX:-c++}
# The peak is the child's ru_maxrss (getrusage), in MiB. Generated inputs (the 32 × 4096 and
# 32 × 32 768 expert config.json, the 100 000-request scenario) live in a temporary directory.
# Times are printed for orientation and never checked (a shared machine varies).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
build=${1:?usage: peak_memory.sh <build dir> [--check] [--quick] [--helper <peak_rss>]}
shift
check=0
quick=0
helper=""
eval_override=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --check) check=1 ;;
    --quick) quick=1 ;;
    --helper) helper=${2:?--helper needs a path}; shift ;;
    --eval) eval_override=${2:?--eval needs a path}; shift ;;
    *) echo "peak_memory.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done
eval_bin=${eval_override:-$build/examples/strata-eval}
report_bin=$build/examples/strata-paper-report
if [[ ! -x "$eval_bin" ]]; then
  echo "peak_memory.sh: no $eval_bin (build the strata-eval target)" >&2
  exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# measure <KiB file> <command...>: runs the command, its stdout into $tmp/out, stderr into $tmp/err.
if [[ -z "$helper" ]]; then
  if [[ -x /usr/bin/time ]] && /usr/bin/time -f %M -o "$tmp/probe" true 2>/dev/null; then
    helper=gnu-time
  else
    "${CXX:-c++}" -O2 -o "$tmp/peak_rss" "$here/peak_rss.cpp"
    helper=$tmp/peak_rss
  fi
fi
measure() {
  local file=$1
  shift
  if [[ "$helper" == gnu-time ]]; then
    /usr/bin/time -f %M -o "$file" "$@" >"$tmp/out" 2>"$tmp/err"
  else
    "$helper" "$file" "$@" >"$tmp/out" 2>"$tmp/err"
  fi
}

# A Mixtral-style config.json of L layers × E experts (FFN 128 wide, top-8).
config() {
  printf '{"architectures": ["MixtralForCausalLM"], "model_type": "mixtral", "hidden_act": "silu", "hidden_size": 4096, "intermediate_size": 128, "num_attention_heads": 32, "num_key_value_heads": 8, "num_experts_per_tok": 8, "num_hidden_layers": %d, "num_local_experts": %d, "max_position_embeddings": 32768, "rms_norm_eps": 1e-05, "rope_theta": 1000000.0, "tie_word_embeddings": false, "torch_dtype": "bfloat16", "vocab_size": 32000}\n' \
    "$1" "$2" >"$3"
}
config 32 4096 "$tmp/experts_4096.config.json"
config 32 32768 "$tmp/experts_32768.config.json"
sed 's/"rate": 8, "count": 2000/"rate": 12, "count": 100000/' "$src/examples/scenarios/serve_mixtral.json" >"$tmp/serve_100k.json"

fail=0
echo "| command | peak memory (MiB) | budget (MiB) | output (bytes) | output budget | time (s) |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
# row <label> <memory budget MiB> <output budget bytes, 0: none> <command...>
row() {
  local label=$1 budget=$2 out_budget=$3
  shift 3
  local t0 t1 rc=0
  t0=$(date +%s.%N)
  measure "$tmp/kib" "$@" || rc=$?
  t1=$(date +%s.%N)
  local kib mib bytes secs
  kib=$(tail -n 1 "$tmp/kib")
  mib=$(awk -v k="$kib" 'BEGIN { printf "%.1f", k / 1024 }')
  bytes=$(wc -c <"$tmp/out" | tr -d ' ')
  secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
  echo "| $label | $mib | $budget | $bytes | $([[ $out_budget -gt 0 ]] && echo "$out_budget" || echo "–") | $secs |"
  if [[ $rc -ne 0 ]]; then
    echo "peak_memory.sh: exit $rc: $*" >&2
    head -c 2000 "$tmp/err" >&2
    fail=1
  fi
  if awk -v k="$kib" -v b="$budget" 'BEGIN { exit !(k > b * 1024) }'; then
    echo "peak_memory.sh: $label: $mib MiB over its budget of $budget MiB" >&2
    fail=1
  fi
  if [[ $out_budget -gt 0 && $bytes -gt $out_budget ]]; then
    echo "peak_memory.sh: $label: $bytes bytes of output over its budget of $out_budget" >&2
    fail=1
  fi
}

dsv3=(eval --model DeepSeek-V3 --phase decode --batch 64 --context 4096)
row '`eval` DeepSeek-V3 decode B 64 S 4096, `h100_sxm5 --devices 8`' 32 0 "$eval_bin" "${dsv3[@]}" --machine h100_sxm5 --devices 8
row 'the same, `--json`' 32 4000000 "$eval_bin" "${dsv3[@]}" --machine h100_sxm5 --devices 8 --json
row 'the same on `stratum-l`' 32 0 "$eval_bin" "${dsv3[@]}" --machine stratum-l
row 'the same, `--json`' 96 4000000 "$eval_bin" "${dsv3[@]}" --machine stratum-l --json
row 'the same, `--json --detail experts --hit-rate 0.5`' 96 4000000 "$eval_bin" "${dsv3[@]}" --machine stratum-l --json --detail experts --hit-rate 0.5
small=(eval --phase decode --batch 16 --context 2048 --machine stratum-l)
row '32 layers × 4096 experts config.json, `stratum-l` B 16 S 2048' 64 0 "$eval_bin" "${small[@]}" --model "$tmp/experts_4096.config.json"
row 'the same, `--json`' 128 8000000 "$eval_bin" "${small[@]}" --model "$tmp/experts_4096.config.json" --json
row 'the same, `--json --detail experts --hit-rate 0.5`' 128 32000000 "$eval_bin" "${small[@]}" --model "$tmp/experts_4096.config.json" --json --detail experts --hit-rate 0.5
row '32 × 32 768 experts (L·E = 2²⁰, the cap), text' 512 0 "$eval_bin" "${small[@]}" --model "$tmp/experts_32768.config.json"
row 'the same, `--json`' 512 8000000 "$eval_bin" "${small[@]}" --model "$tmp/experts_32768.config.json" --json
row '`hcrmap` replay, DeepSeek-V2-Lite trace, decode B 32, 8 windows, six policies' 64 0 \
  "$eval_bin" hcrmap --model DeepSeek-V2-Lite --trace "$src/tests/data/traces/dsv2lite_esft_trace_intent.csv" \
  --mode decode --batch 32 --context 1024 --max-windows 8
if [[ $quick -eq 0 ]]; then
  row '`serve` 100 000 Mixtral requests at 12 req/s, Stratum-L (topic) and H100' 256 0 \
    "$eval_bin" serve "$tmp/serve_100k.json" --data-dir "$src/tests/data"
  if [[ -x "$report_bin" ]]; then
    row '`strata-paper-report`' 256 0 "$report_bin" --quiet
  fi
fi
if [[ $check -eq 1 && $fail -ne 0 ]]; then
  exit 1
fi
exit 0
