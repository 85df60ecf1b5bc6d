#!/usr/bin/env bash
# strata-paper-report on one thread and on two (run by CTest, examples/CMakeLists.txt):
#   paper_report_threads.sh <strata-paper-report> <run directory>
# The markdown report is byte-identical, and stderr too once the progress lines (they carry the
# time, and with two threads the experiments end in another order) are left out; every HCRMap
# experiment is reported once either way. A bad --threads is exit 2.
# The run on two threads is the one the fixture strata_paper_report_run kept (examples/
# paper_report_run.sh: `--threads 2`, its stdout, stderr and exit status in <run directory>/out,
# err and rc), which docs.paper_report checks too; this script runs the report on one thread.
# Paths are passed as quoted words and arrays only: any source, build or temporary directory works.
set -euo pipefail
prog=$1
run=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[[ -f "$run/rc" && -f "$run/out" && -f "$run/err" ]] ||
  { echo "no kept run of strata-paper-report --threads 2 in $run (the fixture examples.strata-paper-report.run)" >&2; exit 1; }
for n in 1 2; do
  rc=0
  if [[ $n -eq 2 ]]; then
    cp "$run/out" "$tmp/out.2"
    cp "$run/err" "$tmp/err.2"
    rc=$(<"$run/rc")
  else
    "$prog" --threads "$n" >"$tmp/out.$n" 2>"$tmp/err.$n" || rc=$?
  fi
  [[ $rc -eq 0 ]] || { echo "--threads $n: exit status $rc" >&2; cat "$tmp/err.$n" >&2; exit 1; }
  # Progress lines end with the time so far, "(<seconds> s)".
  grep -v -E '^strata-paper-report: .* \([0-9.e+-]+ s\)$' "$tmp/err.$n" >"$tmp/notes.$n" || true
  grep -E '^strata-paper-report: hcrmap policies: experiment .* (prefill|decode) done \(' "$tmp/err.$n" |
    sed -E 's/ \([0-9.e+-]+ s\)$//' | LC_ALL=C sort >"$tmp/experiments.$n"
done
cmp "$tmp/out.1" "$tmp/out.2" || { echo "the report differs between --threads 1 and --threads 2" >&2;
                                   diff "$tmp/out.1" "$tmp/out.2" | head -n 20 >&2; exit 1; }
cmp "$tmp/notes.1" "$tmp/notes.2" || { echo "stderr (without progress) differs" >&2; exit 1; }
cmp "$tmp/experiments.1" "$tmp/experiments.2" || { echo "the experiments heard differ" >&2; exit 1; }
[[ $(wc -l <"$tmp/experiments.2") -eq 16 && $(LC_ALL=C sort -u "$tmp/experiments.2" | wc -l) -eq 16 ]] ||
  { echo "expected 16 distinct HCRMap experiments on stderr" >&2; cat "$tmp/err.2" >&2; exit 1; }
for bad in x -1 1025 ""; do
  rc=0
  "$prog" --threads "$bad" >"$tmp/bad.out" 2>"$tmp/bad.err" || rc=$?
  [[ $rc -eq 2 ]] || { echo "--threads '$bad': exit status $rc, expected 2" >&2; exit 1; }
  grep -qF -- "--threads takes a count" "$tmp/bad.err" || { echo "--threads '$bad': no message" >&2; cat "$tmp/bad.err" >&2; exit 1; }
done
echo "byte-identical on 1 and 2 threads ($(wc -l <"$tmp/out.1") lines)"
