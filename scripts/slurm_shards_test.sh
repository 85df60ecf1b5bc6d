#!/usr/bin/env bash
# The ctest case `slurm.shards` (label slurm): sweeps of a scenario as Slurm array jobs on a
# single-node cluster of this machine (scripts/slurm_local.sh, scripts/slurm_sweep.sh):
# 1. two shards, waited for, with --sbatch-arg words holding spaces and '$': byte for byte the
#    table of one process;
# 2. three shards submitted with --no-wait from a working directory with a space (the default
#    sweep directory is made there), the task of shard 2 killed (SIGKILL, by a wrapper of the
#    program): collect lists shard 2, exits 1 and leaves an existing output as it was; collect
#    --rerun resubmits shard 2 alone and gathers the table, byte for byte one process's;
# 3. the gathered table plotted by `strata-eval plot`: its .csv, .dat and .gp byte for byte those
#    of `strata-eval run --plot`.
#
#   scripts/slurm_shards_test.sh STRATA_EVAL SCENARIO WORKDIR
#
# Exit status: 0 when all holds; 77 (ctest SKIP_RETURN_CODE) when Slurm cannot start here, with
# slurm_local.sh's reason printed; 1 on any other failure. The cluster's state, logs and
# configuration live in a short directory of its own under /tmp (slurmctld refuses a state path
# with a space, and WORKDIR is in the build tree, which may have any path), removed on exit with
# the cluster stopped; the sweeps' files are in WORKDIR.
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

fail() { echo "slurm_shards_test.sh: $*" >&2; exit 1; }
sweep=("$root/scripts/slurm_sweep.sh")

# 1. Two shards, waited for; sbatch options as single words (a split one would be taken for the
# batch script's name and fail).
"${sweep[@]}" --shards 2 --out "$work/slurm.csv" --dir "$work/sweep" \
  --sbatch-arg '--comment=strata test $HOME (a b)' --sbatch-arg=--time=10 -- \
  "$exe" run "$scenario" --threads 1
"$exe" run "$scenario" --out "$work/single.csv"
for i in 1 2; do
  [[ -s "$work/sweep/shard_$i" ]] || fail "shard $i is empty"
  [[ -f "$work/sweep/done_$i" ]] || fail "shard $i has no done marker"
done
if ! cmp "$work/slurm.csv" "$work/single.csv"; then
  diff "$work/slurm.csv" "$work/single.csv" | head -20 >&2
  fail "the concatenated Slurm shards differ from the single-process table"
fi
echo "sweep 1: 2 array tasks, $(($(wc -l <"$work/single.csv") - 1)) rows, identical to one process ($((SECONDS - start)) s)"

# 2. --no-wait, shard 2 killed, collect, collect --rerun. The wrapper kills its own process on
# shard 2 while the flag file exists, as a node failure or the OOM killer would.
submit="$work/submit dir"
mkdir -p "$submit"
wrapper="$work/kill shard 2.sh"
printf '%s\n' '#!/usr/bin/env bash' 'flag=$1' 'shift' \
  'for a in "$@"; do [[ "$a" == 2/* && -e "$flag" ]] && kill -KILL $$; done' 'exec "$@"' >"$wrapper"
chmod +x "$wrapper"
: >"$work/kill flag"
echo "an earlier table" >"$work/gathered.csv"
(cd "$submit" && "${sweep[@]}" --shards 3 --out ../gathered.csv --no-wait -- \
  "$wrapper" "$work/kill flag" "$exe" run "$scenario" --threads 1) >"$work/no_wait.out"
cat "$work/no_wait.out"
grep -q "submitted job [0-9]" "$work/no_wait.out" || fail "--no-wait printed no job id"
dirs=("$submit"/strata-sweep-*)
[[ ${#dirs[@]} -eq 1 && -d "${dirs[0]}" ]] || fail "--no-wait made no single strata-sweep-* directory in '$submit'"
dir=${dirs[0]}
grep -qF "$dir" "$work/no_wait.out" || fail "--no-wait did not print its directory"
job=$(head -n 1 "$dir/jobs")
for _ in $(seq 600); do
  [[ -z "$(squeue -h -j "$job" 2>/dev/null)" ]] && break
  sleep 0.1
done
[[ -z "$(squeue -h -j "$job" 2>/dev/null)" && -f "$dir/done_1" && -f "$dir/done_3" ]] ||
  fail "job $job did not end with shards 1 and 3 done within 60 s"
rc=0
"${sweep[@]}" collect --dir "$dir" 2>"$work/collect.err" || rc=$?
cat "$work/collect.err"
[[ $rc -eq 1 ]] || fail "collect with shard 2 killed exited $rc, not 1"
grep -q "1 of 3 shards missing or failed in .*: 2\$" "$work/collect.err" || fail "collect did not list shard 2 alone"
[[ "$(cat "$work/gathered.csv")" == "an earlier table" ]] || fail "a failed collect changed the existing output"
rm -f "$work/kill flag"
"${sweep[@]}" collect --dir "$dir" --rerun >"$work/rerun.out"
cat "$work/rerun.out"
grep -q "reran shards 2 as job" "$work/rerun.out" || fail "collect --rerun did not rerun shard 2 alone"
[[ $(wc -l <"$dir/jobs") -eq 2 ]] || fail "collect --rerun submitted no second job"
if ! cmp "$work/gathered.csv" "$work/single.csv"; then
  diff "$work/gathered.csv" "$work/single.csv" | head -20 >&2
  fail "the table gathered after the rerun differs from the single-process table"
fi
echo "sweep 2: --no-wait, shard 2 killed, listed by collect and rerun: identical to one process ($((SECONDS - start)) s)"

# 3. The gathered table plots as run --plot does.
"$exe" plot "$scenario" "$work/gathered.csv" --plot "$work/plot gathered"
"$exe" run "$scenario" --plot "$work/plot run" --out "$work/run.csv"
dats=("$work/plot run"/*.dat)  # the scenario's name is the plot's file stem
[[ ${#dats[@]} -eq 1 && -f "${dats[0]}" ]] || fail "run --plot wrote no single .dat file"
name=$(basename "${dats[0]}" .dat)
for ext in csv dat gp; do
  cmp "$work/plot gathered/$name.$ext" "$work/plot run/$name.$ext" || fail "plot's $name.$ext differs from run --plot's"
done
if command -v gnuplot >/dev/null; then
  [[ -s "$work/plot gathered/$name.png" && -s "$work/plot gathered/$name.svg" ]] || fail "plot drew no PNG or SVG"
fi
echo "slurm.shards: no-wait, collect, a killed shard rerun, the gathered table plotted ($((SECONDS - start)) s)"
