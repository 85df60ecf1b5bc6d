#!/usr/bin/env bash
# Regenerates include/strata/baseline/gpu_measurements_data.hpp from
# tests/data/measurements/gpu_measurements.csv (the header embeds the file's bytes verbatim;
# tests/baseline/measurements_io_test.cpp fails when the two differ).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
csv="$root/tests/data/measurements/gpu_measurements.csv"
out="$root/include/strata/baseline/gpu_measurements_data.hpp"
if grep -q ')strata_csv"' "$csv"; then echo "embed_measurements.sh: the CSV holds the raw-string delimiter" >&2; exit 1; fi
python3 - "$csv" "$out" <<'PY'
import re, sys
csv = open(sys.argv[1], encoding="utf-8").read()
hdr = open(sys.argv[2], encoding="utf-8").read()
start = hdr.index('R"strata_csv(') + len('R"strata_csv(')
end = hdr.index(')strata_csv"')
open(sys.argv[2], "w", encoding="utf-8").write(hdr[:start] + csv + hdr[end:])
PY
