#!/usr/bin/env bash
# Runs a strata sweep as a Slurm array job of N shards and concatenates the shards' files in order.
#
#   scripts/slurm_sweep.sh --shards N --out FILE [--dir DIR] [--partition P] -- PROGRAM ARGS...
#
# Array task i (1-based, SLURM_ARRAY_TASK_ID) runs
#   PROGRAM ARGS... --shard i/N --out DIR/shard_i
# and, once every task has finished (sbatch --wait), FILE is shard_1 … shard_N concatenated.
# strata's sweep writers put the CSV header in shard 1 only and split the points into N
# consecutive runs, so FILE is byte for byte the output of one process over the whole sweep.
# Needs a running cluster (SLURM_CONF; scripts/slurm_local.sh start makes one on this machine).
# Exit status: 0 when every task succeeded and FILE is written; 1 otherwise (the failing task's
# log is printed); 2 on a bad command line.
set -euo pipefail

shards=""
out=""
dir=""
partition=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --shards) shards=${2:-}; shift 2 ;;
    --out) out=${2:-}; shift 2 ;;
    --dir) dir=${2:-}; shift 2 ;;
    --partition) partition=${2:-}; shift 2 ;;
    --) shift; break ;;
    *) echo "slurm_sweep.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
if [[ -z "$shards" || -z "$out" || $# -eq 0 ]]; then
  sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
if ! [[ "$shards" =~ ^[0-9]+$ ]] || [[ "$shards" -lt 1 || "$shards" -gt 10000 ]]; then
  echo "slurm_sweep.sh: --shards must be an integer in [1, 10000], got '$shards'" >&2
  exit 2
fi
command -v sbatch >/dev/null || { echo "slurm_sweep.sh: sbatch not found (is Slurm installed?)" >&2; exit 1; }

dir=${dir:-$(mktemp -d "${TMPDIR:-/tmp}/strata-sweep.XXXXXX")}
mkdir -p "$dir"
rm -f "$dir"/shard_* "$dir"/task_*.log

# The task: the program with this task's shard; every word shell-quoted (%q), so arguments and a
# DIR with spaces, quotes or '$' survive.
printf -v program '%q ' "$@"
printf -v shard_prefix '%q' "$dir/shard_"
cat >"$dir/task.sh" <<EOF
#!/usr/bin/env bash
set -euo pipefail
exec $program--shard "\${SLURM_ARRAY_TASK_ID}/$shards" --out $shard_prefix"\${SLURM_ARRAY_TASK_ID}"
EOF
chmod +x "$dir/task.sh"

# --parsable: sbatch prints the job id (and ";cluster" on a multi-cluster setup) alone.
args=(--parsable --wait --array="1-$shards" --job-name=strata-sweep --output="$dir/task_%a.log" --chdir="$PWD")
[[ -n "$partition" ]] && args+=(--partition="$partition")
if ! sbatch "${args[@]}" "$dir/task.sh" >"$dir/sbatch.log" 2>"$dir/sbatch.err"; then
  echo "slurm_sweep.sh: the array job failed:" >&2
  cat "$dir/sbatch.log" "$dir/sbatch.err" >&2
  for f in "$dir"/task_*.log; do [[ -s "$f" ]] && { echo "--- $f" >&2; cat "$f" >&2; }; done
  exit 1
fi
parts=()
for i in $(seq 1 "$shards"); do
  [[ -f "$dir/shard_$i" ]] || { echo "slurm_sweep.sh: task $i wrote no $dir/shard_$i" >&2; cat "$dir/task_$i.log" >&2 || true; exit 1; }
  parts+=("$dir/shard_$i")
done
cat "${parts[@]}" >"$out"
job=$(head -n 1 "$dir/sbatch.log")
job=${job%%;*}
echo "slurm_sweep.sh: $shards shards of job $job concatenated into $out"
