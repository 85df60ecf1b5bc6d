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
# The EV6 temperature map of docs/thermal.md: strata-eval thermal's 64 x 64 grid model on HotSpot's
# example (tests/data/thermal/hotspot) writes HotSpot's -grid_steady_file ("Layer n:", then
# index<TAB>kelvin per cell, row 0 at the die's top edge); its die layer (Layer 0) becomes
# thermal_ev6_grid.dat, x_mm y_mm kelvin at the cell centres, bottom row first, one blank line after
# each row (thermal_ev6_grid.gp plots it with image). The die's size is the floorplan's extent.
hs="$root/tests/data/thermal/hotspot"
grid_file=$(mktemp "${TMPDIR:-/tmp}/ev6_grid_steady.XXXXXX")
trap 'rm -f "$grid_file"' EXIT
echo "+ strata-eval thermal --model grid --grid 64 --grid-steady-file (HotSpot's EV6 example)"
"$exe" thermal --config "$hs/hotspot.config" --floorplan "$hs/ev6.flp" --power "$hs/gcc.ptrace" \
  --model grid --grid 64 --grid-steady-file "$grid_file" >/dev/null
read -r die_w die_h < <(awk 'NF >= 5 && $1 !~ /^#/ { if ($4 + $2 > w) w = $4 + $2; if ($5 + $3 > h) h = $5 + $3 }
                             END { printf "%.9g %.9g\n", w, h }' "$hs/ev6.flp")
dat_tmp=$(mktemp "$out/.thermal_ev6_grid.dat.XXXXXX")
awk -v n=64 -v w="$die_w" -v h="$die_h" '
  /^Layer / { layer = $2 + 0; next }
  layer == 0 && NF == 2 { t[$1 + 0] = $2; cells++ }
  END {
    if (cells != n * n) { print "regenerate_plots.sh: the grid file has " cells " die cells, expected " n * n > "/dev/stderr"; exit 1 }
    print "# strata thermal grid model, HotSpot EV6 example (gcc mean power), die layer, " n " x " n " cells: x_mm y_mm kelvin"
    print "# from strata-eval thermal --model grid --grid " n " --grid-steady-file (scripts/regenerate_plots.sh)"
    for (r = 0; r < n; r++) {            # r: row from the bottom; HotSpot row i = n - 1 - r
      for (j = 0; j < n; j++)
        printf "%.6g %.6g %s\n", (j + 0.5) * w / n * 1000, (r + 0.5) * h / n * 1000, t[(n - 1 - r) * n + j]
      print ""
    }
  }' "$grid_file" >"$dat_tmp"
mv "$dat_tmp" "$out/thermal_ev6_grid.dat"
if command -v gnuplot >/dev/null 2>&1; then
  # Drawn to a temporary name, renamed over the PNG when gnuplot succeeds.
  if (cd "$out" && sed 's/^set output "thermal_ev6_grid.png"/set output ".thermal_ev6_grid.png.tmp"/' \
        thermal_ev6_grid.gp | gnuplot); then
    mv "$out/.thermal_ev6_grid.png.tmp" "$out/thermal_ev6_grid.png"
  else
    rm -f "$out/.thermal_ev6_grid.png.tmp"
    echo "regenerate_plots.sh: gnuplot failed on thermal_ev6_grid.gp" >&2
    exit 1
  fi
  n=$((n + 1))
else
  echo "regenerate_plots.sh: no gnuplot; wrote docs/plots/thermal_ev6_grid.dat only" >&2
fi
echo "regenerate_plots.sh: $n plots in docs/plots"
