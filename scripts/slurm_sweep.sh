#!/usr/bin/env bash
# Runs a strata sweep as a Slurm array job of N shards and concatenates the shards' files in order.
#
#   scripts/slurm_sweep.sh --shards N --out FILE [--dir DIR] [--partition P] [--sbatch-arg ARG]...
#                          [--no-wait] -- PROGRAM ARGS...
#   scripts/slurm_sweep.sh collect --dir DIR [--out FILE] [--rerun] [--no-wait] [--partition P]
#                          [--sbatch-arg ARG]...
#
# Array task i (1-based, SLURM_ARRAY_TASK_ID) runs, in the directory the sweep was submitted from,
#   PROGRAM ARGS... --shard i/N --out DIR/shard_i
# and, when it exits 0, writes the marker DIR/done_i. FILE is shard_1 ... shard_N concatenated:
# strata's sweep writers put the CSV header in shard 1 only and split the points into N
# consecutive runs, so FILE is byte for byte the output of one process over the whole sweep.
#
# DIR holds the shards, the markers, the tasks' logs (task_i.log) and what collect needs: the
# shard count (shards), the command (command, its words NUL-separated), FILE (out), the sbatch
# options (sbatch_args, NUL-separated), the submit directory (workdir) and the job ids (jobs).
# Default: a new directory strata-sweep-<date>-<time>-XXXX under the working directory. Every
# node must see DIR at the same path (a shared file system: the home or project directory, not a
# node's /tmp); a run in an existing DIR replaces the sweep there.
#
# --sbatch-arg ARG (repeatable) passes ARG to sbatch as one word, after this script's own options
# (so it overrides them, e.g. --sbatch-arg=--job-name=fig18): --sbatch-arg=--time=02:00:00
# --sbatch-arg=--mem-per-cpu=2G --sbatch-arg=--account=proj. sbatch itself also reads SBATCH_*
# environment variables (SBATCH_PARTITION, SBATCH_TIMELIMIT, SBATCH_ACCOUNT, SBATCH_MEM_PER_CPU,
# ...; a command-line option wins over its variable). --partition P is --sbatch-arg=--partition=P.
#
# Without --no-wait the job is submitted with sbatch --wait and collected when it ends. With
# --no-wait the job id and DIR are printed at once; collect later. collect checks that every task
# wrote its shard and its marker, and writes FILE (a temporary file beside it, renamed when
# complete: an existing FILE is never lost). Missing or failed shards are listed (with their logs'
# last lines) and the status is 1; with --rerun just those shards are resubmitted as an array of
# their indices (with the sweep's sbatch options, then collect's own), waited for (or not, with
# --no-wait) and collected. collect refuses while a job of the sweep is still queued or running.
# Needs a running cluster (SLURM_CONF; scripts/slurm_local.sh start makes one on this machine).
# Exit status: 0 when FILE is written (or, with --no-wait, the job submitted); 1 when a shard is
# missing or failed, a job is still running, or sbatch fails; 2 on a bad command line.
set -euo pipefail

me=slurm_sweep.sh
usage() {  # on stderr with status 2 (a bad command line), or on stdout with status 0 (--help)
  if [[ ${1:-2} -eq 0 ]]; then sed -n '2,37p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi
  sed -n '2,37p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
die() { echo "$me: $*" >&2; exit 1; }
absolute() { if [[ "$1" == /* ]]; then printf '%s' "$1"; else printf '%s' "$PWD/$1"; fi; }
# The content of a file written by printf '%s' (kept whole: newlines and all).
read_file() { local v=""; IFS= read -r -d '' v <"$1" || true; printf '%s' "$v"; }

mode=run
if [[ "${1:-}" == collect ]]; then
  mode=collect
  shift
fi
shards=""
out=""
dir=""
wait=1
rerun=0
sbatch_extra=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --shards) [[ $mode == run && $# -ge 2 ]] || usage; shards=$2; shift 2 ;;
    --out) [[ $# -ge 2 ]] || usage; out=$2; shift 2 ;;
    --dir) [[ $# -ge 2 ]] || usage; dir=$2; shift 2 ;;
    --partition) [[ $# -ge 2 ]] || usage; sbatch_extra+=("--partition=$2"); shift 2 ;;
    --sbatch-arg) [[ $# -ge 2 ]] || usage; sbatch_extra+=("$2"); shift 2 ;;
    --sbatch-arg=*) sbatch_extra+=("${1#--sbatch-arg=}"); shift ;;
    --no-wait) wait=0; shift ;;
    --rerun) [[ $mode == collect ]] || usage; rerun=1; shift ;;
    --) [[ $mode == run ]] || usage; shift; break ;;
    -h|--help) usage 0 ;;
    *) echo "$me: unknown argument '$1'" >&2; exit 2 ;;
  esac
done

# Submits the array `$1` (e.g. 1-4 or 2,5) of the sweep in $dir with the recorded sbatch options
# and then "$@"; waits when $wait is 1. Prints nothing; the job id is appended to $dir/jobs.
submit() {
  local array=$1 recorded=() args rc=0 job
  shift
  command -v sbatch >/dev/null || die "sbatch not found (is Slurm installed?)"
  [[ -s "$dir/sbatch_args" ]] && mapfile -d '' recorded <"$dir/sbatch_args"
  # --parsable: sbatch prints the job id (and ";cluster" on a multi-cluster setup) alone.
  args=(--parsable --array="$array" --job-name=strata-sweep --output="$dir/task_%a.log"
        --chdir="$(read_file "$dir/workdir")" "${recorded[@]}" "$@")
  [[ $wait -eq 1 ]] && args+=(--wait)
  sbatch "${args[@]}" "$dir/task.sh" >"$dir/sbatch.log" 2>"$dir/sbatch.err" || rc=$?
  job=$(head -n 1 "$dir/sbatch.log")
  job=${job%%;*}
  if [[ -z "$job" ]]; then
    echo "$me: sbatch failed (status $rc):" >&2
    cat "$dir/sbatch.log" "$dir/sbatch.err" >&2
    exit 1
  fi
  echo "$job" >>"$dir/jobs"
  submitted=$job
}

# Lists the shards of $dir without a shard file and a done marker into `missing`.
find_missing() {
  missing=()
  local i
  for ((i = 1; i <= n; ++i)); do
    [[ -f "$dir/done_$i" && -f "$dir/shard_$i" ]] || missing+=("$i")
  done
}

# Concatenates the shards of $dir into $out, or lists the missing ones and returns 1.
collect() {
  local i parts=() tmp
  find_missing
  if [[ ${#missing[@]} -gt 0 ]]; then
    echo "$me: ${#missing[@]} of $n shards missing or failed in $dir: ${missing[*]}" >&2
    for i in "${missing[@]}"; do
      if [[ -f "$dir/shard_$i" ]]; then
        echo "  shard $i: written, but its task did not finish (no done_$i)" >&2
      else
        echo "  shard $i: not written (the task failed, was killed or has not run)" >&2
      fi
      if [[ -s "$dir/task_$i.log" ]]; then
        echo "  --- $dir/task_$i.log (last lines)" >&2
        tail -n 5 "$dir/task_$i.log" | sed 's/^/  /' >&2
      fi
    done
    return 1
  fi
  for ((i = 1; i <= n; ++i)); do parts+=("$dir/shard_$i"); done
  tmp=$(mktemp "$(dirname "$out")/.$(basename "$out").XXXXXX") || die "cannot write $out (does its directory exist?)"
  if ! cat "${parts[@]}" >"$tmp" || ! mv -f "$tmp" "$out"; then
    rm -f "$tmp"
    die "cannot write $out"
  fi
  echo "$me: $n shards of $dir (jobs $(paste -sd, "$dir/jobs" 2>/dev/null || echo ?)) concatenated into $out"
}

if [[ $mode == run ]]; then
  [[ -n "$shards" && -n "$out" && $# -gt 0 ]] || usage
  if ! [[ "$shards" =~ ^[1-9][0-9]*$ ]] || [[ ${#shards} -gt 5 ]] || [[ "$shards" -gt 10000 ]]; then
    echo "$me: --shards must be an integer in [1, 10000], got '$shards'" >&2
    exit 2
  fi
  if [[ -z "$dir" ]]; then
    dir=$(mktemp -d "$PWD/strata-sweep-$(date +%Y%m%d-%H%M%S)-XXXX")
  else
    mkdir -p "$dir"
  fi
  dir=$(cd "$dir" && pwd)
  out=$(absolute "$out")
  rm -f "$dir"/shard_* "$dir"/done_* "$dir"/task_*.log "$dir/jobs"
  n=$shards
  printf '%s' "$n" >"$dir/shards"
  printf '%s' "$out" >"$dir/out"
  printf '%s' "$PWD" >"$dir/workdir"
  printf '%s\0' "$@" >"$dir/command"
  : >"$dir/sbatch_args"
  [[ ${#sbatch_extra[@]} -gt 0 ]] && printf '%s\0' "${sbatch_extra[@]}" >"$dir/sbatch_args"
  sbatch_extra=()
  # The task: the recorded command with this task's shard, then the marker. DIR enters the script
  # shell-quoted (%q); the command's words are read back from their NUL-separated file, so
  # arguments and paths with spaces, quotes or '$' survive.
  printf -v qdir '%q' "$dir"
  cat >"$dir/task.sh" <<EOF
#!/usr/bin/env bash
set -euo pipefail
dir=$qdir
i=\${SLURM_ARRAY_TASK_ID:?not run as a Slurm array task}
n=\$(<"\$dir/shards")
mapfile -d '' cmd <"\$dir/command"
rm -f "\$dir/done_\$i"
"\${cmd[@]}" --shard "\$i/\$n" --out "\$dir/shard_\$i"
echo "\${SLURM_ARRAY_JOB_ID:-}" >"\$dir/done_\$i"
EOF
  chmod +x "$dir/task.sh"
  submit "1-$n"
  if [[ $wait -eq 0 ]]; then
    printf -v qd '%q' "$dir"
    echo "$me: submitted job $submitted ($n shards) in $dir"
    echo "$me: when it ends: scripts/slurm_sweep.sh collect --dir $qd"
    exit 0
  fi
  collect || { printf -v qd '%q' "$dir"; echo "$me: rerun them with: scripts/slurm_sweep.sh collect --dir $qd --rerun" >&2; exit 1; }
  exit 0
fi

# collect
[[ -n "$dir" ]] || usage
[[ -d "$dir" && -f "$dir/shards" && -f "$dir/command" && -f "$dir/task.sh" ]] ||
  die "--dir '$dir' holds no sweep of this script (no shards, command and task.sh files)"
dir=$(cd "$dir" && pwd)
n=$(read_file "$dir/shards")
[[ "$n" =~ ^[1-9][0-9]*$ ]] || die "$dir/shards does not hold a shard count"
out=$(absolute "${out:-$(read_file "$dir/out")}")
# A task of the sweep still queued or running: its shard is not missing yet.
if command -v squeue >/dev/null && [[ -s "$dir/jobs" ]]; then
  while read -r job; do
    queued=$(squeue -h -j "$job" -o '%i %T' 2>/dev/null || true)
    if [[ -n "$queued" ]]; then
      die "job $job of $dir still has tasks queued or running: collect when it ends (squeue -j $job)"
    fi
  done <"$dir/jobs"
fi
if collect; then exit 0; fi
[[ $rerun -eq 1 ]] || { printf -v qd '%q' "$dir"; echo "$me: rerun them with: scripts/slurm_sweep.sh collect --dir $qd --rerun" >&2; exit 1; }
array=$(IFS=,; echo "${missing[*]}")
submit "$array" "${sbatch_extra[@]}"
if [[ $wait -eq 0 ]]; then
  printf -v qd '%q' "$dir"
  echo "$me: resubmitted shards $array as job $submitted; when it ends: scripts/slurm_sweep.sh collect --dir $qd"
  exit 0
fi
echo "$me: reran shards $array as job $submitted"
collect || exit 1
