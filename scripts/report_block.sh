#!/usr/bin/env bash
# The paper report in docs/paper_report.md is the program's own output, never typed by hand: the
# lines between "<!-- paper_report:begin -->" and "<!-- paper_report:end -->" are exactly what
# `strata-paper-report` prints.
#
#   scripts/report_block.sh --check  <strata-paper-report>   # exit 1 if the page differs
#   scripts/report_block.sh --update <strata-paper-report>   # rewrite the block
#   scripts/report_block.sh --check-run <directory>          # the same check on a kept run (CTest docs.paper_report)
# --check-run reads the stdout and exit status that examples/paper_report_run.sh kept (<directory>/out
# and rc: the CTest fixture strata_paper_report_run, one run of the report that several cases check)
# instead of running the program; like --check it fails when the program did not exit 0.
set -euo pipefail
page_dir="$(cd "$(dirname "$0")/.." && pwd)"
usage="usage: report_block.sh --check|--update <strata-paper-report> | --check-run <directory>"
mode=${1:?$usage}
prog=${2:?$usage}
if [[ "$mode" == --check-run ]]; then
  prog="$(cd "$prog" && pwd)"  # a directory relative to the caller's
fi
cd "$page_dir"
page=docs/paper_report.md
report=$(mktemp)
block=$(mktemp)
trap 'rm -f "$report" "$block"' EXIT
if [[ "$mode" == --check-run ]]; then
  [[ -f "$prog/rc" && -f "$prog/out" ]] ||
    { echo "no kept run of strata-paper-report in $prog (examples/paper_report_run.sh)" >&2; exit 1; }
  rc=$(<"$prog/rc")
  [[ "$rc" == 0 ]] || { echo "strata-paper-report exited with $rc (the kept run in $prog)" >&2; cat "$prog/err" >&2 || true; exit 1; }
  cp "$prog/out" "$report"
  mode=--check
else
  "$prog" >"$report"
fi
awk '/^<!-- paper_report:end -->/ { inside = 0 } inside { print } /^<!-- paper_report:begin -->/ { inside = 1 }' \
  "$page" >"$block"
case "$mode" in
  --check)
    if ! diff -u "$block" "$report"; then
      echo "$page's paper report differs from $prog's output (above); run scripts/report_block.sh --update $prog" >&2
      exit 1
    fi
    echo "$page's paper report equals the program's output ($(wc -l <"$report") lines)" ;;
  --update)
    awk -v f="$report" '
      /^<!-- paper_report:begin -->/ { print; while ((getline l < f) > 0) print l; skip = 1; next }
      /^<!-- paper_report:end -->/   { skip = 0 }
      !skip { print }' "$page" >"$page.new"
    mv "$page.new" "$page" ;;
  *) echo "report_block.sh: unknown mode $mode" >&2; exit 2 ;;
esac
