#!/usr/bin/env bash
# CLI scenarios of strata-eval that need a shell (run by CTest, examples/CMakeLists.txt):
#   strata_eval_cli.sh <strata-eval> <source dir> <scenario>
# dev_full     output to a full device must fail with exit 1 and a message
# non_utf8     a config file whose name is not UTF-8 still gives valid --json output
# oom          an allocation failure is a clear message and exit 1 (address-space limit 100 MB)
# determinism  the same inputs give byte-identical --json output across runs (uniform and traced)
# long_paths   an error about a 300-byte path, and about a long non-ASCII one, names the file (the
#              value is shortened in the middle) and is valid UTF-8
# plot_gathered  a table run as two shards and concatenated, plotted by `strata-eval plot`: the
#              .csv, .dat and .gp files byte for byte those of `strata-eval run --plot` (a lines
#              plot and a heatmap)
# same_point   one Stratum decode point through eval, run (a one-point stratum_vs_gpu study) and
#              sensitivity: the same tokens/s to the last printed digit, for several models and systems
# Paths are passed as quoted words and arrays only: any source, build or temporary directory works.
# No `exec`: the program's exit status ends the script (set -e) and the EXIT trap still removes $tmp.
set -euo pipefail
eval_bin=$1
src=$2
scenario=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run=(--phase decode --batch 2 --context 128)
case "$scenario" in
  dev_full)
    "$eval_bin" --model Mixtral-8x7B --machine h100_sxm5 "${run[@]}" --json >/dev/full ;;
  non_utf8)
    name=$(printf 'bad\377\376.config.json')
    cp "$src/tests/data/hf/mixtral-8x7b.config.json" "$tmp/$name"
    "$eval_bin" --model "$tmp/$name" --machine h100_sxm5 "${run[@]}" --json >"$tmp/out.json"
    # The name is kept with U+FFFD for the invalid bytes; the output is valid UTF-8.
    iconv -f UTF-8 -t UTF-8 "$tmp/out.json" >/dev/null
    grep '"model"' "$tmp/out.json" ;;
  oom)
    awk 'BEGIN { printf "["; for (i = 0; i < 3000000; ++i) printf "0,"; printf "0]" }' >"$tmp/big.json"
    ulimit -v 100000
    "$eval_bin" --model Mixtral-8x7B --machine "$tmp/big.json" "${run[@]}" ;;
  determinism)
    twice() {  # the same command line, run twice: byte-identical output
      "$eval_bin" "$@" "${run[@]}" --json >"$tmp/a.json"
      "$eval_bin" "$@" "${run[@]}" --json >"$tmp/b.json"
      cmp "$tmp/a.json" "$tmp/b.json"
    }
    twice --model DeepSeek-V3 --machine h100_sxm5 --devices 8
    twice --model "$src/tests/data/hf/olmoe-1b-7b-0924.config.json" --machine rtx_a6000
    twice --model DeepSeek-V2-Lite --machine h100_sxm5 --trace "$src/tests/data/traces/dsv2lite_esft_trace_intent.csv"
    echo "byte-identical" ;;
  same_point)
    # eval --json's top-level tokens_per_s, run's stratum_tokens_per_s column (CSV column 4) and
    # sensitivity --json's top-level value, compared as printed (17 significant digits).
    for point in "OLMoE-1B-7B-0924 stratum-l 16 2048" "Mixtral-8x7B stratum-xl 1 4096" \
                 "DeepSeek-V2-Lite stratum-s 64 512" "Qwen1.5-MoE-A2.7B stratum-l 256 1024"; do
      read -r model sys batch ctx <<<"$point"
      e=$("$eval_bin" eval --model "$model" --machine "$sys" --phase decode --batch "$batch" --context "$ctx" --json |
        sed -n 's/^  "tokens_per_s": \([^,]*\),\{0,1\}$/\1/p')
      printf '{"name": "one", "study": "stratum_vs_gpu", "system": "%s", "model": "%s", "sweep": {"axes": [{"name": "batch", "kind": "list", "values": [%s]}, {"name": "context", "kind": "list", "values": [%s]}]}}\n' \
        "$sys" "$model" "$batch" "$ctx" >"$tmp/one.json"
      r=$("$eval_bin" run "$tmp/one.json" 2>/dev/null | awk -F, 'NR == 2 { print $4 }')
      s=$("$eval_bin" sensitivity --of decode_tokens_per_s --machine "$sys" --model "$model" --batch "$batch" \
        --context "$ctx" --top 1 --json | sed -n 's/^  "value": \([^,]*\),\{0,1\}$/\1/p')
      echo "$point: eval $e, run $r, sensitivity $s"
      if [[ -z "$e" || "$e" != "$r" || "$e" != "$s" ]]; then
        echo "FAIL: the three views of one point differ" >&2
        exit 1
      fi
    done
    echo "the same tokens/s in eval, run and sensitivity" ;;
  long_paths)
    # 300 bytes of directories (six names of 49 bytes) before the file name, then a path of 2-byte
    # characters (a cut inside one would leave invalid UTF-8).
    long=$tmp
    for i in 1 2 3 4 5; do long+=/$(printf "d$i%.0s" {1..24})x; done
    long+=/$(printf 'e%.0s' {1..49})
    wide=$tmp/$(printf 'é%.0s' {1..100})/$(printf 'ü%.0s' {1..60})
    for path in "$long/absent.config.json" "$wide/modèle ü (1).config.json"; do
      file=${path##*/}
      rc=0
      "$eval_bin" eval --model "$path" --machine h100_sxm5 "${run[@]}" >"$tmp/out" 2>"$tmp/err" || rc=$?
      [[ $rc -eq 1 ]] || { echo "exit status $rc, expected 1 for a ${#path}-byte path" >&2; cat "$tmp/err" >&2; exit 1; }
      grep -qF "$file' and no such file" "$tmp/err" ||
        { echo "the message does not name $file:" >&2; cat "$tmp/err" >&2; exit 1; }
      grep -qF "..." "$tmp/err" || { echo "a ${#path}-byte path was not shortened:" >&2; cat "$tmp/err" >&2; exit 1; }
      iconv -f UTF-8 -t UTF-8 "$tmp/err" >/dev/null || { echo "the message is not valid UTF-8" >&2; exit 1; }
      echo "${#path}-byte path: $(head -n 1 "$tmp/err")"
    done ;;
  plot_gathered)
    printf '%s\n' '{"name": "lines", "study": "stratum_vs_gpu", "outputs": ["speedup", "energy_gain"],' \
      ' "sweep": {"axes": [{"name": "batch", "kind": "list", "values": [1, 4, 16]},' \
      '   {"name": "context", "kind": "list", "values": [512, 2048]}]},' \
      ' "plot": {"x": "batch", "y": ["speedup", "energy_gain"], "series": "context", "log_x": true}}' >"$tmp/lines.json"
    printf '%s\n' '{"name": "map", "study": "logic_budget",' \
      ' "sweep": {"axes": [{"name": "macs", "kind": "list", "values": [16384, 32768, 65536]},' \
      '   {"name": "f_GHz", "kind": "list", "values": [0.5, 1, 1.5]}]},' \
      ' "plot": {"x": "macs", "y": ["p_logic_W", "area_slack_mm2"], "series": "f_GHz", "style": "heatmap"}}' >"$tmp/map.json"
    for name in lines map; do
      sc=$tmp/$name.json
      "$eval_bin" run "$sc" --plot "$tmp/run plot" --out "$tmp/$name.csv" 2>/dev/null
      "$eval_bin" run "$sc" --shard 1/2 --out "$tmp/$name.1" 2>/dev/null
      "$eval_bin" run "$sc" --shard 2/2 --out "$tmp/$name.2" 2>/dev/null
      cat "$tmp/$name.1" "$tmp/$name.2" >"$tmp/$name gathered.csv"
      "$eval_bin" plot "$sc" "$tmp/$name gathered.csv" --plot "$tmp/gathered plot" 2>/dev/null
      for ext in csv dat gp; do
        cmp "$tmp/run plot/$name.$ext" "$tmp/gathered plot/$name.$ext" ||
          { echo "FAIL: plot's $name.$ext differs from run --plot's" >&2; exit 1; }
      done
      [[ $(wc -l <"$tmp/gathered plot/$name.dat") -gt 9 ]] || { echo "FAIL: $name.dat holds too few rows" >&2; exit 1; }
    done
    echo "plot: identical to run --plot (lines, heatmap)" ;;
  *)
    echo "unknown scenario $scenario" >&2
    exit 2 ;;
esac
