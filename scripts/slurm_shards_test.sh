#!/usr/bin/env bash
# The ctest case `slurm.shards` (label slurm): a scenario run as a Slurm array job of two shards on
# a single-node cluster of this machine (scripts/slurm_local.sh, scripts/slurm_sweep.sh) must give
# byte for byte the table of one process.
#
#   scripts/slurm_shards_test.sh STRATA_EVAL SCENARIO WORKDIR
#
# Exit status: 0 when the files are equal; 77 (ctest SKIP_RETURN_CODE) when Slurm cannot start
# here, with slurm_local.sh's reason printed; 1 on any other failure. The cluster's state, logs and
# configuration live in a short directory of its own under /tmp (slurmctld refuses a state path
# with a space, and WORKDIR is in the build tree, which may have any path), removed on exit with
# the cluster stopped; the sweep's files are in WORKDIR.
set -euo pipefail
exe=$1
scenario=$2
work=$3
root=$(cd "$(dirname "$0")/.." && pwd)
start=$SECONDS
rm -rf "$work"
mkdir -p "$work"
cluster=$(mktemp -d /tmp/strata-slurm.XXXXXX)
cleanup() {
  "$root/scripts/slurm_local.sh" stop "$cluster" || true
  rm -rf "$cluster"
}
trap cleanup EXIT

rc=0
env_line=$("$root/scripts/slurm_local.sh" start "$cluster" 2>"$work/slurm_local.err") || rc=$?
cat "$work/slurm_local.err" >&2
if [[ $rc -eq 3 ]]; then
  reason=$(sed -n 's/^slurm_local.sh: Slurm cannot start here: //p' "$work/slurm_local.err" | tail -n 1)
  echo "SKIPPED: Slurm cannot start on this machine: ${reason:-see above}; the sharded sweep was not run on a cluster" >&2
  # A daemon that started and died: its log says why.
  for log in "$cluster"/slurmctld.log "$cluster"/slurmd.log; do
    [[ -s "$log" ]] && { echo "--- $log (last lines)" >&2; tail -n 5 "$log" >&2; }
  done
  exit 77
fi
if [[ $rc -ne 0 ]]; then
  echo "slurm_shards_test.sh: slurm_local.sh start failed with status $rc" >&2
  exit 1
fi
eval "$env_line"  # export SLURM_CONF=...
echo "cluster up in $((SECONDS - start)) s ($SLURM_CONF)"

"$root/scripts/slurm_sweep.sh" --shards 2 --out "$work/slurm.csv" --dir "$work/sweep" -- \
  "$exe" run "$scenario" --threads 1
"$exe" run "$scenario" --out "$work/single.csv"
for i in 1 2; do
  [[ -s "$work/sweep/shard_$i" ]] || { echo "shard $i is empty" >&2; exit 1; }
done
if ! cmp "$work/slurm.csv" "$work/single.csv"; then
  echo "the concatenated Slurm shards differ from the single-process table" >&2
  diff "$work/slurm.csv" "$work/single.csv" | head -20 >&2
  exit 1
fi
echo "slurm.shards: 2 array tasks, $(($(wc -l <"$work/single.csv") - 1)) rows, identical to one process ($((SECONDS - start)) s)"
