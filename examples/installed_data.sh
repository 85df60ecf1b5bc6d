#!/usr/bin/env bash
# Installed programs find their data without the source tree (CTest examples.installed_data).
#
#   examples/installed_data.sh BUILD_DIR WORK_DIR
#
# Installs BUILD_DIR into a prefix under WORK_DIR, moves the prefix elsewhere (the programs find
# share/strata from their own path, so a prefix can be moved), and from an empty directory with
# STRATA_DATA_DIR unset runs the shipped scenarios (`run`, `serve`) and `hcrmap` with its default
# checkpoint. An installed program never reads the source tree (examples/data_location.hpp): the
# checkpoint it names must be the prefix's; then every `$ strata-eval` command of the installed README
# and docs, as written (source-tree paths included). Then, with STRATA_DATA_DIR naming an empty directory,
# a missing file is an error or a warning that names its role, the data directory and --data-dir.
set -euo pipefail
build=${1:?usage: installed_data.sh BUILD_DIR WORK_DIR}
work=${2:?usage: installed_data.sh BUILD_DIR WORK_DIR}
fail() { echo "installed_data.sh: $*" >&2; exit 1; }

rm -rf "$work"
mkdir -p "$work/empty dir" "$work/no data"
cmake --install "$build" --prefix "$work/prefix + (installed)" >"$work/install.log"
mv "$work/prefix + (installed)" "$work/moved prefix"
p="$work/moved prefix"
data="$p/share/strata"
for f in traces/dsv2lite_esft_trace_intent.csv traces/olmoe_mixtral_expert_counts_by_domain.csv traces/README.md \
         traces/NOTICE hcrmap/dqn_checkpoint.json measurements/gpu_measurements.csv scenarios/serve_mixtral.json; do
  [[ -f "$data/$f" ]] || fail "share/strata/$f was not installed"
done
[[ -x "$p/bin/strata-eval" ]] || fail "bin/strata-eval was not installed (build it first)"
eval_bin="$p/bin/strata-eval"

cd "$work/empty dir"
unset STRATA_DATA_DIR

# An HCRMap study with a trace and a checkpoint, and the serving scenarios (count table, trace).
"$eval_bin" run "$data/scenarios/fig7_budget.json" --threads 2 >run.csv
head -n 1 run.csv | grep -q '^index,budget_factor,' || fail "run fig7_budget.json printed no table"
for sc in serve_mixtral_stages.json serve_dsv2lite_trace.json; do
  "$eval_bin" serve "$data/scenarios/$sc" >serve.txt || fail "serve $sc failed"
  grep -q 'Stratum' serve.txt || fail "serve $sc printed no summary"
done
# hcrmap decides with the installed checkpoint, never the source tree's.
"$eval_bin" hcrmap --model DeepSeek-V2-Lite --trace "$data/traces/dsv2lite_esft_trace_intent.csv" --mode prefill \
  --max-windows 1 --layers 2 --policy hcrmap >hcrmap.txt
grep -qF "masked Double DQN $data/hcrmap/dqn_checkpoint.json" hcrmap.txt ||
  fail "hcrmap did not use the installed checkpoint: $(head -n 1 hcrmap.txt)"

# Every `$ strata-eval ...` command of the installed README and docs (the first line of a ```text
# block, as tests/docs/check_cli_output.cmake runs them in the source tree) runs here too, from an
# empty directory with the prefix alone: paths spelt as in the source tree (examples/scenarios/...,
# tests/data/...) are found under their installed names in share/strata (strata::resolve_input_path).
# An output under /tmp is written in this test's own directory instead.
docdir="$p/share/doc/strata"
[[ -f "$docdir/README.md" && -f "$docdir/cli.md" ]] || fail "share/doc/strata has no README.md or cli.md"
commands=0
while IFS= read -r line; do
  read -r -a args <<<"${line#\$ strata-eval }"
  for i in "${!args[@]}"; do
    if [[ "${args[$i]}" == /tmp/* ]]; then args[$i]="$work/empty dir/out-$(basename "${args[$i]}")"; fi
  done
  "$eval_bin" "${args[@]}" >command.out 2>command.err ||
    fail "from the prefix alone, '${line#\$ }' failed: $(head -n 3 command.err)"
  commands=$((commands + 1))
done < <(awk '/^```text *$/ { first = 1; next } first { first = 0; if ($0 ~ /^\$ strata-eval /) print }' \
           "$docdir/README.md" "$docdir"/*.md)
[[ $commands -ge 8 ]] || fail "only $commands strata-eval commands found in the installed README and docs"

# A data directory without the files: errors and warnings name the role, the directory and --data-dir.
export STRATA_DATA_DIR="$work/no data"
if "$eval_bin" serve "$data/scenarios/serve_mixtral.json" >/dev/null 2>err.txt; then
  fail "serve ran without its count table"
fi
grep -q 'usage.counts' err.txt && grep -q -- '--data-dir' err.txt && grep -qF "$work/no data" err.txt ||
  fail "serve's error does not name usage.counts, the data directory and --data-dir: $(cat err.txt)"
"$eval_bin" hcrmap --model DeepSeek-V2-Lite --trace "$data/traces/dsv2lite_esft_trace_intent.csv" --mode prefill \
  --max-windows 1 --layers 2 --policy hcrmap >hcrmap.txt 2>err.txt
grep -q 'warning: no controller checkpoint' err.txt && grep -q -- '--data-dir' err.txt ||
  fail "hcrmap fell back to the greedy rule without a warning naming --data-dir: $(cat err.txt)"
grep -q 'greedy' hcrmap.txt || fail "hcrmap's output does not name the greedy rule it fell back to"
# --data-dir names the directory explicitly.
"$eval_bin" serve "$data/scenarios/serve_mixtral_stages.json" --data-dir "$data" >/dev/null ||
  fail "serve --data-dir failed"
echo "installed_data.sh: the installed programs ran the scenarios, serve, hcrmap and the ${commands} strata-eval commands of the installed README and docs from the moved prefix's share/strata"
