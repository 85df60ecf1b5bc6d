#!/usr/bin/env bash
# Files in and out of the strata programs (run by CTest, examples/CMakeLists.txt):
#   strata_files_cli.sh <program> <source dir> <case>
#
# Reader cases: the program is handed, where it reads a file of one role, a character device
# (/dev/zero), a directory and a FIFO nobody writes (in a scratch directory under TMPDIR, names
# with spaces). Each run must end at once (a `timeout` turns a blocking read into a failure) with
# exit status 1 and a message naming the role and the file and why it is refused.
# UTF-8 cases: a name of bytes FF FE (a config file name, a measurement id) reaches --json output,
# which must be valid UTF-8 (iconv) with the bytes written as U+FFFD.
set -u
prog=$1
src=$2
case_name=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
dsv2="$src/tests/data/traces/dsv2lite_esft_trace_intent.csv"

# The inputs that are not regular files: path and what the opening rule calls it.
mkdir "$tmp/a dir"
mkfifo "$tmp/a fifo"
inputs=("/dev/zero" "$tmp/a dir" "$tmp/a fifo")
kinds=("a character device" "a directory" "a FIFO")

# A JSON string of $1 (quotes and backslashes escaped).
json_string() {
  local s=${1//\\/\\\\}
  printf '"%s"' "${s//\"/\\\"}"
}

# refused <role> <input> <kind> <command...>: the command must exit 1 within the timeout, naming
# the role and the file (its last component: a long path is shortened in the middle) and the kind.
refused() {
  local role=$1 input=$2 kind=$3
  shift 3
  local rc=0
  timeout 20 "$@" </dev/null >"$tmp/out" 2>"$tmp/err" || rc=$?
  if [ "$rc" -eq 124 ]; then
    echo "FAIL ($role $input): the program blocked (killed after 20 s): $*" >&2
    fail=1
    return
  fi
  if [ "$rc" -ne 1 ]; then
    echo "FAIL ($role $input): exit status $rc, expected 1: $*" >&2
    cat "$tmp/err" >&2
    fail=1
    return
  fi
  local name
  name=$(basename -- "$input")
  if ! grep -qF -- "$role '" "$tmp/err" || ! grep -qF -- "$name' is not a regular file ($kind)" "$tmp/err"; then
    echo "FAIL ($role $input): the message does not name the role '$role', the file and '$kind':" >&2
    cat "$tmp/err" >&2
    fail=1
    return
  fi
  echo "ok: $role $input: $(head -n 1 "$tmp/err")"
}

# each <role> <command builder>: runs `refused` for every input; the builder prints nothing and
# sets the array `cmd` for the input "$1".
each() {
  local role=$1 builder=$2 i
  for i in "${!inputs[@]}"; do
    cmd=()
    "$builder" "${inputs[$i]}"
    refused "$role" "${inputs[$i]}" "${kinds[$i]}" "${cmd[@]}"
  done
}

# valid_utf8 <file> <fixed text>: the file is valid UTF-8 and holds the text.
valid_utf8() {
  if ! iconv -f UTF-8 -t UTF-8 "$1" >/dev/null; then
    echo "FAIL: $1 is not valid UTF-8" >&2
    fail=1
  elif ! grep -qF -- "$2" "$1"; then
    echo "FAIL: $1 does not hold '$2':" >&2
    head -c 2000 "$1" >&2
    fail=1
  else
    echo "ok: valid UTF-8 holding $2"
  fi
}

run_args=(--phase decode --batch 1 --context 8)
fffd=$(printf '\357\277\275')
bad=$(printf 'bad\377\376')
case "$case_name" in
  eval_model)
    b() { cmd=("$prog" --model "$1" --machine h100_sxm5 "${run_args[@]}"); }
    each config.json b ;;
  eval_machine)
    b() { cmd=("$prog" --model Mixtral-8x7B --machine "$1" "${run_args[@]}"); }
    each machine b ;;
  eval_trace)
    b() { cmd=("$prog" --model Mixtral-8x7B --machine stratum-l "${run_args[@]}" --trace "$1"); }
    each trace b ;;
  run_scenario)
    b() { cmd=("$prog" run "$1"); }
    each scenario b ;;
  run_hcrmap_trace | run_hcrmap_checkpoint)
    key=${case_name#run_hcrmap_}
    b() {
      printf '{"name": "x", "study": "hcrmap_budget", "model": "DeepSeek-V2-Lite", "hcrmap": {"%s": %s}, "sweep": {"axes": [{"name": "budget_factor", "kind": "list", "values": [1.3]}]}}\n' \
        "$key" "$(json_string "$1")" >"$tmp/s.json"
      cmd=("$prog" run "$tmp/s.json")
    }
    each "$key" b ;;
  serve_scenario)
    b() { cmd=("$prog" serve "$1"); }
    each scenario b ;;
  serve_trace)
    b() {
      printf '{"model": "DeepSeek-V2-Lite", "trace": {"path": %s, "experts": 64}}\n' "$(json_string "$1")" >"$tmp/s.json"
      cmd=("$prog" serve "$tmp/s.json")
    }
    each trace b ;;
  serve_counts)
    b() {
      printf '{"usage": {"counts": %s}}\n' "$(json_string "$1")" >"$tmp/s.json"
      cmd=("$prog" serve "$tmp/s.json")
    }
    each "count table" b ;;
  hcrmap_model)
    b() { cmd=("$prog" hcrmap --model "$1" --trace "$dsv2" --mode decode); }
    each config.json b ;;
  hcrmap_trace)
    b() { cmd=("$prog" hcrmap --model DeepSeek-V2-Lite --trace "$1" --mode decode); }
    each trace b ;;
  hcrmap_checkpoint)
    b() { cmd=("$prog" hcrmap --model DeepSeek-V2-Lite --trace "$dsv2" --mode decode --checkpoint "$1"); }
    each checkpoint b ;;
  validate_csv)
    b() { cmd=("$prog" validate --csv "$1"); }
    each measurements b ;;
  sensitivity_model)
    b() { cmd=("$prog" sensitivity --of decode_tokens_per_s --model "$1"); }
    each config.json b ;;
  chiplet_window)
    b() { cmd=("$prog" "$1"); }
    each trace b ;;
  paper_report_checkpoint)
    # The report's data directory ($STRATA_DATA_DIR) with the checkpoint replaced by each input.
    b() {
      rm -rf "$tmp/data"
      mkdir -p "$tmp/data/hcrmap"
      ln -s "$1" "$tmp/data/hcrmap/dqn_checkpoint.json"
      cmd=(env "STRATA_DATA_DIR=$tmp/data" "$prog" --quiet)
    }
    for i in "${!inputs[@]}"; do
      cmd=()
      b "${inputs[$i]}"
      refused checkpoint "$tmp/data/hcrmap/dqn_checkpoint.json" "${kinds[$i]}" "${cmd[@]}"
    done ;;
  train_trace)
    b() {
      rm -rf "$tmp/data"
      mkdir -p "$tmp/data/traces"
      ln -s "$1" "$tmp/data/traces/dsv2lite_esft_trace_intent.csv"
      cmd=("$prog" --data-dir "$tmp/data" --out "$tmp/ck.json" --episodes 1)
    }
    for i in "${!inputs[@]}"; do
      cmd=()
      b "${inputs[$i]}"
      refused trace "$tmp/data/traces/dsv2lite_esft_trace_intent.csv" "${kinds[$i]}" "${cmd[@]}"
    done ;;
  utf8_hcrmap)
    cp "$src/tests/data/hf/deepseek-v2-lite.config.json" "$tmp/$bad.config.json"
    "$prog" hcrmap --model "$tmp/$bad.config.json" --trace "$dsv2" --mode decode --batch 32 --policy hcrmap --layers 2 \
      --max-windows 1 --json >"$tmp/out.json" || fail=1
    valid_utf8 "$tmp/out.json" "\"model\": \"bad$fffd" ;;
  utf8_sensitivity)
    cp "$src/tests/data/hf/mixtral-8x7b.config.json" "$tmp/$bad.config.json"
    "$prog" sensitivity --of decode_tokens_per_s --model "$tmp/$bad.config.json" --top 1 --json >"$tmp/out.json" || fail=1
    valid_utf8 "$tmp/out.json" "bad$fffd" ;;
  utf8_validate)
    { sed -n '1,/^id,/p' "$src/tests/data/measurements/gpu_measurements.csv"
      # The first two rows of every source (a short fit; the name is what this case checks).
      grep -v '^#' "$src/tests/data/measurements/gpu_measurements.csv" | sed -n '2,$p' |
        awk -F, '{ s = $1; sub(/-.*/, "", s); if (++n[s] <= 2) print }' | sed "1s/^[^,]*,/$bad,/"
    } >"$tmp/m.csv"
    "$prog" validate --csv "$tmp/m.csv" --json >"$tmp/out.json" || fail=1
    valid_utf8 "$tmp/out.json" "\"bad$fffd" ;;
  *)
    echo "unknown case $case_name" >&2
    exit 2 ;;
esac
if [ "$fail" -ne 0 ]; then exit 1; fi
echo "passed"
