#!/usr/bin/env bash
# The paper report in docs/paper_report.md is the program's own output, never typed by hand: the
# lines between "<!-- paper_report:begin -->" and "<!-- paper_report:end -->" are exactly what
# `strata-paper-report` prints.
#
#   scripts/report_block.sh --check  <strata-paper-report>   # exit 1 if the page differs (CTest docs.paper_report)
#   scripts/report_block.sh --update <strata-paper-report>   # rewrite the block
set -euo pipefail
cd "$(dirname "$0")/.."
page=docs/paper_report.md
mode=${1:?usage: report_block.sh --check|--update <strata-paper-report>}
prog=${2:?usage: report_block.sh --check|--update <strata-paper-report>}
report=$(mktemp)
block=$(mktemp)
trap 'rm -f "$report" "$block"' EXIT
"$prog" >"$report"
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
