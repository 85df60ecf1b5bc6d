#!/usr/bin/env bash
# Out of memory is an error, never a crash (strata/core/out_of_memory.hpp): each program, run in a
# child under an address-space limit (ulimit -v, RLIMIT_AS) lower than its input needs, exits 1
# with "out of memory" on stderr, never by a signal; where a command is run under a ladder of
# limits, every run either answers (exit 0) or says "out of memory" (exit 1).
#
#   out_of_memory_cli.sh <program> <source dir> <case> [sanitized]
#
# case: strata-eval             every subcommand that reads a JSON file, given one that needs more,
#                               and eval's text and JSON outputs under a ladder of limits
#       strata-paper-report     a controller checkpoint that needs more (STRATA_DATA_DIR)
#       strata-train-hcrmap-dqn training under a limit below its traces and network
#       strata-chiplet-window   a decode window under a limit below its substrate and trace
# "sanitized": the build uses AddressSanitizer, which reserves terabytes of address space and so
# cannot run under RLIMIT_AS: the test is skipped (exit 77, CTest SKIP_RETURN_CODE).
# Paths are quoted words and arrays only: any source, build or temporary directory works.
set -euo pipefail
prog=$1
src=$2
scenario=$3
if [[ "${4:-}" == sanitized ]]; then
  echo "skipped: a sanitizer build cannot run under an address-space limit"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# run <limit KiB> <command...>: the command in a child under the limit; sets rc and err.
run() {
  local limit=$1
  shift
  set +e
  (ulimit -v "$limit" && "$@") >"$tmp/out" 2>"$tmp/err"
  rc=$?
  set -e
  err=$(head -c 2000 "$tmp/err")
}

# expect_oom <limit KiB> <command...>: exit 1 and "out of memory".
expect_oom() {
  run "$@"
  if [[ $rc -eq 1 && "$err" == *"out of memory"* ]]; then
    echo "ok: out of memory at $1 KiB: ${*:2}"
  else
    echo "FAIL: at $1 KiB, exit $rc (expected 1 and \"out of memory\"): ${*:2}" >&2
    echo "$err" >&2
    fail=1
  fi
}

# ladder <limits KiB (space-separated)> <command...>: at every limit exit 0, or exit 1 saying
# "out of memory"; the lowest limit must run out.
ladder() {
  local limits=$1
  shift
  local first=1
  for limit in $limits; do
    run "$limit" "$@"
    if [[ $rc -eq 0 ]]; then
      echo "ok: answers at $limit KiB: $*"
    elif [[ $rc -eq 1 && "$err" == *"out of memory"* ]]; then
      echo "ok: out of memory at $limit KiB: $*"
    else
      echo "FAIL: at $limit KiB, exit $rc (a signal is 128 + its number): $*" >&2
      echo "$err" >&2
      fail=1
    fi
    if [[ $first -eq 1 && $rc -ne 1 ]]; then
      echo "FAIL: the lowest limit, $limit KiB, does not run out of memory: $*" >&2
      fail=1
    fi
    first=0
  done
}

# A 6 MB JSON document of 3 million numbers: its tree takes over 100 MB, within every file-size cap.
awk 'BEGIN { printf "["; for (i = 0; i < 3000000; ++i) printf "0,"; printf "0]" }' >"$tmp/big.json"
big=$tmp/big.json
limit=65536  # 64 MiB: the programs start in about 12
trace=$src/tests/data/traces/dsv2lite_esft_trace_intent.csv

case "$scenario" in
  strata-eval)
    step=(--phase decode --batch 64 --context 4096)
    expect_oom $limit "$prog" eval --model Mixtral-8x7B --machine "$big" "${step[@]}"
    expect_oom $limit "$prog" eval --model "$big" --machine stratum-l "${step[@]}" --json
    expect_oom $limit "$prog" run "$big"
    expect_oom $limit "$prog" serve "$big"
    expect_oom $limit "$prog" sensitivity --of decode_tokens_per_s --model "$big"
    expect_oom $limit "$prog" hcrmap --model DeepSeek-V2-Lite --trace "$trace" --mode decode --checkpoint "$big"
    expect_oom 16384 "$prog" validate
    # The JSON path of a large step (the aborts this test was written for: nlohmann::json's
    # destructor allocating during the unwinding) and its text path, from a limit below the
    # text output's needs: a config.json of 32 layers × 32 768 experts (the L·E cap), whose
    # --detail experts tree holds 5 numbers per expert.
    printf '{"architectures": ["MixtralForCausalLM"], "model_type": "mixtral", "hidden_act": "silu", "hidden_size": 4096, "intermediate_size": 128, "num_attention_heads": 32, "num_key_value_heads": 8, "num_experts_per_tok": 8, "num_hidden_layers": 32, "num_local_experts": 32768, "max_position_embeddings": 32768, "rms_norm_eps": 1e-05, "rope_theta": 1000000.0, "tie_word_embeddings": false, "torch_dtype": "bfloat16", "vocab_size": 32000}\n' \
      >"$tmp/experts.config.json"
    wide=(eval --model "$tmp/experts.config.json" --machine stratum-l --phase decode --batch 16 --context 2048)
    ladder "16384 24576 32768 49152 65536 98304" "$prog" "${wide[@]}" --json --detail experts --hit-rate 0.5
    ladder "16384 32768 65536" "$prog" "${wide[@]}" --json --detail experts --units si
    ladder "16384 32768" "$prog" "${wide[@]}" ;;
  strata-paper-report)
    mkdir -p "$tmp/data/hcrmap"
    cp "$big" "$tmp/data/hcrmap/dqn_checkpoint.json"
    expect_oom $limit env STRATA_DATA_DIR="$tmp/data" "$prog" --quiet ;;
  strata-train-hcrmap-dqn)
    expect_oom 32768 "$prog" --episodes 2 --out "$tmp/checkpoint.json" ;;
  strata-chiplet-window)
    expect_oom 24576 "$prog" ;;
  *)
    echo "unknown case $scenario" >&2
    exit 2 ;;
esac
if [[ $fail -ne 0 ]]; then
  exit 1
fi
echo "every run answered or exited 1 saying out of memory"
