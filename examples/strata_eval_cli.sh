#!/bin/sh
# CLI scenarios of strata-eval that need a shell (run by CTest, examples/CMakeLists.txt):
#   strata_eval_cli.sh <strata-eval> <source dir> <scenario>
# dev_full     output to a full device must fail with exit 1 and a message
# non_utf8     a config file whose name is not UTF-8 still gives valid --json output
# oom          an allocation failure is a clear message and exit 1 (address-space limit 100 MB)
# determinism  the same inputs give byte-identical --json output across runs (uniform and traced)
set -eu
eval_bin=$1
src=$2
scenario=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run="--phase decode --batch 2 --context 128"
case "$scenario" in
  dev_full)
    exec "$eval_bin" --model Mixtral-8x7B --machine h100_sxm5 $run --json >/dev/full ;;
  non_utf8)
    name=$(printf 'bad\377\376.config.json')
    cp "$src/tests/data/hf/mixtral-8x7b.config.json" "$tmp/$name"
    "$eval_bin" --model "$tmp/$name" --machine h100_sxm5 $run --json >"$tmp/out.json"
    # The name is kept with U+FFFD for the invalid bytes; the output is valid UTF-8.
    iconv -f UTF-8 -t UTF-8 "$tmp/out.json" >/dev/null
    grep '"model"' "$tmp/out.json" ;;
  oom)
    { printf '['; yes '0,' | head -n 3000000 | tr -d '\n'; printf '0]'; } >"$tmp/big.json"
    ulimit -v 100000
    exec "$eval_bin" --model Mixtral-8x7B --machine "$tmp/big.json" $run ;;
  determinism)
    for args in "--model DeepSeek-V3 --machine h100_sxm5 --devices 8" \
                "--model $src/tests/data/hf/olmoe-1b-7b-0924.config.json --machine rtx_a6000" \
                "--model DeepSeek-V2-Lite --machine h100_sxm5 --trace $src/tests/data/traces/dsv2lite_esft_trace_intent.csv"; do
      # shellcheck disable=SC2086  # word splitting of $args is intended
      "$eval_bin" $args $run --json >"$tmp/a.json"
      # shellcheck disable=SC2086
      "$eval_bin" $args $run --json >"$tmp/b.json"
      cmp "$tmp/a.json" "$tmp/b.json"
    done
    echo "byte-identical" ;;
  *)
    echo "unknown scenario $scenario" >&2
    exit 2 ;;
esac
