#!/usr/bin/env bash
# Re-runs every design-space scenario of examples/scenarios that has a plot through strata-eval run
# and writes its table, gnuplot data and script, PNG and SVG under docs/plots/ (the PNGs are
# committed and shown in README.md).
#
#   scripts/regenerate_plots.sh [STRATA_EVAL]     default build/examples/strata-eval
#
# The program is the first argument, as in every script that runs one (docs/cli.md, Output
# conventions): build it with cmake --build build --target strata-eval. Needs gnuplot (Debian:
# apt-get install gnuplot-nox); without gnuplot it writes the tables and scripts only. Exit status
# 2 on a bad command line, 1 when a run fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
(( $# <= 1 )) || { echo "usage: scripts/regenerate_plots.sh [STRATA_EVAL]" >&2; exit 2; }
exe=${1:-$root/build/examples/strata-eval}
if [[ -d "$exe" ]]; then
  echo "regenerate_plots.sh: $exe is a directory; the argument is the program, e.g. $exe/examples/strata-eval" >&2
  exit 2
fi
[[ -x "$exe" ]] || { echo "regenerate_plots.sh: no program $exe (cmake --build build --target strata-eval)" >&2; exit 1; }
out="$root/docs/plots"
mkdir -p "$out"
n=0
for f in "$root"/examples/scenarios/*.json; do
  grep -q '"plot"' "$f" || continue  # the serving scenario and the optimise studies draw no plot
  echo "+ strata-eval run $(basename "$f") --plot docs/plots"
  "$exe" run "$f" --plot "$out" --data-dir "$root/tests/data" >/dev/null
  n=$((n + 1))
done
echo "regenerate_plots.sh: $n plots in docs/plots"
