#!/usr/bin/env bash
# Compile cost of code that calls the models (issue 27, Deliver 1; issue 46, Deliver 1; CTest
# compile_cost.consumer).
#
# Two kinds of translation unit are timed:
# - tests/compile_cost/consumer.cpp: a user's translation unit with its own model and machine on
#   the roofline, a Mono3D die, one HCRMap window and one Stratum decode step;
# - the docs' consumer programs: every ```cpp block of README.md and docs/*.md whose first line is
#   `// consumer program: <name>. ...` (docs/using.md "Three programs of a simulator": `step`, a
#   config.json's decode step on GPUs and Stratum-L; `sweep`, a 200-point sweep to CSV; `event
#   loop`, the models inside a simulator's event loop), taken as written (each defines main).
#   Each of the three names must be found, or the script fails;
# - tests/cmake/paper_row/main.cpp: a project's own check row beside the paper report's `stratum
#   device` family (docs/paper_report.md, "Adding a check row from your own project"; CTest
#   cmake.paper_row), which includes that family's header only (issue 46: a consumer pays for the
#   families it includes), timed header-only and with STRATA_COMPILED=1 in every mode.
# Each is compiled at -O2 to an object file with -DSTRATA_COMPILED=1 (what linking strata::compiled
# puts on a user: the heavy `double` instantiations come from the library) and header-only, beside
# the umbrella strata/strata.hpp alone, and the script reports the median CPU time of the compiler
# (user + system) of each beside the same value normalised by the reference translation unit of
# scripts/compile_time.sh (nlohmann/json, Eigen/Core, Boost.Math autodiff), timed in the same run:
# normalised = CPU x ref_idle / ref, the time on the idle 2-core machine the targets were set on
# (ref_idle = 2.85 s, GCC 12).
#
#   scripts/consumer_compile_time.sh [--runs N] [--cxx g++] [--isystem DIR ...] [--compiled-only]
#                                    [--ci [--factor F]] [--only REGEX] [--extra FILE ...]
#                                    [--include-dir DIR]
#
# --only REGEX times only the rows whose name matches (extended regex): `consumer.cpp`, `docs
# program <name>` (e.g. `docs program sweep`), `paper-row`, `umbrella` and each --extra file's path;
# the reference is always timed. --extra FILE adds a translation unit of your own (timed
# header-only and with STRATA_COMPILED=1, no target), e.g. a program that calls the coverage check.
# --include-dir DIR compiles against the headers under DIR instead of include/ (a former tree
# unpacked by `git archive <commit> include | tar -x -C <dir>`, for before/after figures).
#
# Targets (normalised, with STRATA_COMPILED): consumer.cpp under 3 s, each docs program and the
# paper-row consumer under 5 s; the umbrella and the header-only compiles are stated, not targets. --ci fails (exit 1) when one of them exceeds its target x
# factor (default 2), or when the compiled consumer.cpp is not below 0.7 x its header-only compile
# (same run, so no check depends on the machine's speed). --compiled-only skips the header-only
# compiles of the docs programs (the CTest: one run each, about 45 CPU-seconds on the idle
# machine). Without --ci the script reports and exits 0 (1 when a program does not compile or a
# docs program is missing).
#
# Environment: CXX (default c++), EIGEN_INCLUDE (default: pkg-config eigen3, else /usr/include/eigen3).
set -euo pipefail
cd "$(dirname "$0")/.."

runs=3
factor=2
ci=0
compiled_only=0
cxx="${CXX:-c++}"
isystem=()
only=""
extras=()
include_dir=include
while [[ $# -gt 0 ]]; do
  case "$1" in
    --ci) ci=1 ;;
    --compiled-only) compiled_only=1 ;;
    --runs) runs="$2"; shift ;;
    --factor) factor="$2"; shift ;;
    --cxx) cxx="$2"; shift ;;
    --isystem) isystem+=(-isystem "$2"); shift ;;
    --only) only="$2"; shift ;;
    --extra) extras+=("$2"); shift ;;
    --include-dir) include_dir="$2"; shift ;;
    -h|--help) sed -n '2,44p' "$0"; exit 0 ;;
    *) echo "consumer_compile_time.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done

eigen_inc="${EIGEN_INCLUDE:-$(pkg-config --cflags-only-I eigen3 2>/dev/null | sed 's/^-I//; s/ *$//' || true)}"
[[ -n "$eigen_inc" ]] || eigen_inc=/usr/include/eigen3
flags=(-std=c++20 -O2 "-I$include_dir" "-I$eigen_inc" "${isystem[@]}")
ref_idle=2.85

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Whether the row called $1 is timed (--only).
wanted() { [[ -z "$only" ]] || [[ "$1" =~ $only ]]; }

median() { LC_ALL=C sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# Median CPU seconds (user + system) of compiling translation unit $1 with the extra flags after it.
cpu_median() {
  local tu="$1" t=() i wall user sys
  shift
  for ((i = 0; i < runs; ++i)); do
    { TIMEFORMAT='%R %U %S'; time "$cxx" "${flags[@]}" "$@" -c "$tu" -o "$work/tu.o" 2> "$work/err"; } 2> "$work/time" || {
      echo "consumer_compile_time.sh: $tu does not compile:" >&2
      cat "$work/err" >&2
      exit 1
    }
    read -r wall user sys < "$work/time"
    t+=("$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.3f", u + s }')")
  done
  printf '%s\n' "${t[@]}" | median
}
norm() { awk -v t="$1" -v r="$ref" -v i="$ref_idle" 'BEGIN { printf "%.2f", t * i / r }'; }

# The docs' consumer programs: ```cpp blocks whose first line is `// consumer program: <name>. ...`,
# written to $work/program_<n>.cpp; names[n] is <name>, where[n] the page and line.
programs=()
names=()
where=()
for page in README.md docs/*.md; do
  while IFS=$'\t' read -r line name; do
    n=${#programs[@]}
    awk -v start="$line" 'NR > start && /^ *```/ { exit } NR > start { print }' "$page" > "$work/program_$n.cpp"
    programs+=("$work/program_$n.cpp")
    names+=("$name")
    where+=("$page:$line")
  done < <(awk '
    inblock && /^ *```/ { inblock = 0; next }
    !inblock && /^ *```cpp *$/ { inblock = 1; start = NR; first = 1; next }
    inblock && first { first = 0
      if (match($0, /^ *\/\/ consumer program: [^.]+\./)) {
        name = substr($0, RSTART, RLENGTH); sub(/^ *\/\/ consumer program: /, "", name); sub(/\.$/, "", name)
        printf "%d\t%s\n", start, name
      }
    }' "$page")
done
for want in "step" "sweep" "event loop"; do
  found=0
  for name in "${names[@]}"; do [[ "$name" == "$want" ]] && found=1; done
  if [[ $found -eq 0 ]]; then
    echo "consumer_compile_time.sh: no docs block starts with '// consumer program: $want.' (README.md, docs/*.md)" >&2
    exit 1
  fi
done

printf '#include <nlohmann/json.hpp>\n#include <Eigen/Core>\n#include <boost/math/differentiation/autodiff.hpp>\n' > "$work/ref.cpp"
printf '#include <strata/strata.hpp>\n' > "$work/umbrella.cpp"
ref=$(cpu_median "$work/ref.cpp")
header_only="" compiled=""
if wanted "consumer.cpp"; then
  header_only=$(cpu_median tests/compile_cost/consumer.cpp)
  compiled=$(cpu_median tests/compile_cost/consumer.cpp -DSTRATA_COMPILED=1)
fi
program_compiled=()
program_header_only=()
for i in "${!programs[@]}"; do
  if ! wanted "docs program ${names[$i]}"; then
    program_compiled+=("")
    program_header_only+=("")
    continue
  fi
  program_compiled+=("$(cpu_median "${programs[$i]}" -DSTRATA_COMPILED=1)")
  if [[ $compiled_only -eq 1 ]]; then
    program_header_only+=("")
  else
    program_header_only+=("$(cpu_median "${programs[$i]}")")
  fi
done
paper_row_compiled="" paper_row_header_only=""
if wanted "paper-row"; then
  paper_row_compiled=$(cpu_median tests/cmake/paper_row/main.cpp -DSTRATA_COMPILED=1)
  paper_row_header_only=$(cpu_median tests/cmake/paper_row/main.cpp)
fi
extra_compiled=()
extra_header_only=()
for x in "${extras[@]}"; do
  if ! wanted "$x"; then
    extra_compiled+=("")
    extra_header_only+=("")
    continue
  fi
  extra_compiled+=("$(cpu_median "$x" -DSTRATA_COMPILED=1)")
  if [[ $compiled_only -eq 1 ]]; then extra_header_only+=(""); else extra_header_only+=("$(cpu_median "$x")"); fi
done
umbrella=""
if wanted "umbrella"; then umbrella=$(cpu_median "$work/umbrella.cpp"); fi

echo "consumer compile cost: $cxx $($cxx -dumpversion), ${flags[*]}, median of $runs, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?'), reference ${ref} s (idle ${ref_idle} s)"
echo
echo "| translation unit | CPU (s) | normalised (s) | target (s) |"
echo "| --- | ---: | ---: | ---: |"
printf '| reference (nlohmann/json, Eigen/Core, Boost autodiff) | %.2f | %.2f | – |\n' "$ref" "$ref_idle"
if [[ -n "$compiled" ]]; then
  printf '| consumer.cpp, header-only | %.2f | %s | – |\n' "$header_only" "$(norm "$header_only")"
  printf '| consumer.cpp, STRATA_COMPILED=1 (strata::compiled) | %.2f | %s | 3 |\n' "$compiled" "$(norm "$compiled")"
fi
for i in "${!programs[@]}"; do
  [[ -n "${program_compiled[$i]}" ]] || continue
  if [[ -n "${program_header_only[$i]}" ]]; then
    printf '| docs program `%s` (%s), header-only | %.2f | %s | – |\n' "${names[$i]}" "${where[$i]}" \
      "${program_header_only[$i]}" "$(norm "${program_header_only[$i]}")"
  fi
  printf '| docs program `%s` (%s), STRATA_COMPILED=1 | %.2f | %s | 5 |\n' "${names[$i]}" "${where[$i]}" \
    "${program_compiled[$i]}" "$(norm "${program_compiled[$i]}")"
done
if [[ -n "$paper_row_compiled" ]]; then
  printf '| paper-row consumer (tests/cmake/paper_row/main.cpp, one family), header-only | %.2f | %s | – |\n' \
    "$paper_row_header_only" "$(norm "$paper_row_header_only")"
  printf '| paper-row consumer, STRATA_COMPILED=1 | %.2f | %s | 5 |\n' "$paper_row_compiled" "$(norm "$paper_row_compiled")"
fi
for i in "${!extras[@]}"; do
  [[ -n "${extra_compiled[$i]}" ]] || continue
  if [[ -n "${extra_header_only[$i]}" ]]; then
    printf '| `%s`, header-only | %.2f | %s | – |\n' "${extras[$i]}" "${extra_header_only[$i]}" "$(norm "${extra_header_only[$i]}")"
  fi
  printf '| `%s`, STRATA_COMPILED=1 | %.2f | %s | – |\n' "${extras[$i]}" "${extra_compiled[$i]}" "$(norm "${extra_compiled[$i]}")"
done
if [[ -n "$umbrella" ]]; then
  printf '| `strata/strata.hpp` alone | %.2f | %s | none (stated) |\n' "$umbrella" "$(norm "$umbrella")"
fi
echo

failures=()
if [[ -n "$compiled" ]] && awk -v c="$(norm "$compiled")" -v f="$factor" 'BEGIN { exit !(c > 3 * f) }'; then
  failures+=("consumer.cpp with STRATA_COMPILED takes $(norm "$compiled") s normalised > 3 s x ${factor}")
fi
if [[ -n "$compiled" ]] && awk -v c="$compiled" -v h="$header_only" 'BEGIN { exit !(c > 0.7 * h) }'; then
  failures+=("consumer.cpp with STRATA_COMPILED (${compiled} s) is not below 0.7 x header-only (${header_only} s)")
fi
for i in "${!programs[@]}"; do
  [[ -n "${program_compiled[$i]}" ]] || continue
  c=$(norm "${program_compiled[$i]}")
  if awk -v c="$c" -v f="$factor" 'BEGIN { exit !(c > 5 * f) }'; then
    failures+=("the docs program '${names[$i]}' (${where[$i]}) with STRATA_COMPILED takes ${c} s normalised > 5 s x ${factor}")
  fi
done
c=$(norm "${paper_row_compiled:-0}")
if [[ -n "$paper_row_compiled" ]] && awk -v c="$c" -v f="$factor" 'BEGIN { exit !(c > 5 * f) }'; then
  failures+=("the paper-row consumer (tests/cmake/paper_row/main.cpp) with STRATA_COMPILED takes ${c} s normalised > 5 s x ${factor}")
fi
if [[ ${#failures[@]} -eq 0 ]]; then
  echo "consumer_compile_time.sh: consumer.cpp within 3 s x ${factor} and below 0.7 x header-only, each docs program and the paper-row consumer within 5 s x ${factor} (normalised, STRATA_COMPILED; rows timed: ${only:-all})"
  exit 0
fi
for f in "${failures[@]}"; do echo "consumer_compile_time.sh: $f" >&2; done
[[ $ci -eq 1 ]] && { echo "consumer_compile_time.sh: FAILED" >&2; exit 1; }
exit 0
