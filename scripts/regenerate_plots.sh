#!/usr/bin/env bash
# Re-runs every design-space scenario of examples/scenarios that has a plot through strata-eval run
# and writes its table, gnuplot data and script, PNG and SVG under docs/plots/ (the PNGs are
# committed and shown in README.md).
#
#   scripts/regenerate_plots.sh BUILD_DIR     e.g. scripts/regenerate_plots.sh build
#
# Needs BUILD_DIR/examples/strata-eval (cmake --build BUILD_DIR --target strata-eval) and gnuplot
# (Debian: apt-get install gnuplot-nox); without gnuplot it writes the tables and scripts only.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: scripts/regenerate_plots.sh BUILD_DIR}
exe="$build/examples/strata-eval"
[[ -x "$exe" ]] || { echo "regenerate_plots.sh: $exe not found (cmake --build $build --target strata-eval)" >&2; exit 1; }
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
