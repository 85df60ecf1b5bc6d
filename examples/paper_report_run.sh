#!/usr/bin/env bash
# One run of the whole paper report for the CTest cases that check it (the fixture
# strata_paper_report_run, examples/CMakeLists.txt):
#   paper_report_run.sh <strata-paper-report> <directory>
# Runs `strata-paper-report --threads 2` and keeps its stdout, stderr and exit status in
# <directory>/out, err and rc (the directory emptied first). It fails only when the program cannot
# be run or the files cannot be written: the exit status is the checking cases' to judge
# (docs.paper_report: 0; examples.strata-paper-report.threads: the same as on one thread).
# Paths are passed as quoted words only: any build or temporary directory works.
set -euo pipefail
prog=$1
dir=$2
[[ -x "$prog" ]] || { echo "paper_report_run.sh: $prog is not an executable" >&2; exit 1; }
mkdir -p "$dir"
rm -f "$dir/out" "$dir/err" "$dir/rc"
rc=0
"$prog" --threads 2 >"$dir/out.tmp" 2>"$dir/err.tmp" || rc=$?
mv "$dir/out.tmp" "$dir/out"
mv "$dir/err.tmp" "$dir/err"
echo "$rc" >"$dir/rc"
echo "strata-paper-report --threads 2: exit status $rc, $(wc -l <"$dir/out") lines kept in $dir"
