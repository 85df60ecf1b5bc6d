#!/bin/sh
# A scenario table is the same whatever the split: `--shard 1/2` and `--shard 2/2` concatenated,
# `--threads 1` and `--threads 2`, CSV and JSON Lines alike (ctest examples.strata-eval.run_shards).
#   examples/strata_eval_shards.sh STRATA_EVAL SCENARIO WORKDIR
set -eu
exe=$1
scenario=$2
work=$3
rm -rf "$work"
mkdir -p "$work"
for fmt in csv jsonl; do
  "$exe" run "$scenario" --format "$fmt" --threads 2 --out "$work/whole.$fmt"
  "$exe" run "$scenario" --format "$fmt" --threads 1 --out "$work/one_thread.$fmt"
  "$exe" run "$scenario" --format "$fmt" --threads 2 --shard 1/2 --out "$work/shard_1.$fmt"
  "$exe" run "$scenario" --format "$fmt" --threads 2 --shard 2/2 --out "$work/shard_2.$fmt"
  cat "$work/shard_1.$fmt" "$work/shard_2.$fmt" >"$work/shards.$fmt"
  cmp "$work/whole.$fmt" "$work/one_thread.$fmt"
  cmp "$work/whole.$fmt" "$work/shards.$fmt"
  # Both shards hold rows (a split that put everything in one shard would pass cmp trivially).
  [ -s "$work/shard_1.$fmt" ] && [ -s "$work/shard_2.$fmt" ]
  cmp -s "$work/shard_1.$fmt" "$work/whole.$fmt" && { echo "shard 1 is the whole table" >&2; exit 1; }
done
echo "identical: $(wc -l <"$work/whole.csv") CSV lines with 1 or 2 threads and as 2 shards"
