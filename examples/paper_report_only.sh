#!/usr/bin/env bash
# strata-paper-report --only (run by CTest, examples/CMakeLists.txt):
#   paper_report_only.sh <strata-paper-report> <docs/paper_report.md>
# --only computes and prints only the named families (a comma list, repeatable, or a group), in
# report order, the same rows as the whole report (docs/paper_report.md's block, which
# docs.paper_report keeps equal to it); the exit status judges only the rows printed (the Stratum group's known
# disagreements fail rows but exit 0); an unknown or empty family is exit 2 naming it and the
# valid spellings. Paths are passed as quoted words and arrays only.
set -euo pipefail
prog=$1
docs=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "$*" >&2; exit 1; }

# Two families, given in the other order and as two options: 13 device rows, then 3 metadata rows.
rc=0
"$prog" --only hcrmap-metadata --only stratum-device --threads 2 >"$tmp/two.md" 2>"$tmp/two.err" || rc=$?
[[ $rc -eq 0 ]] || { cat "$tmp/two.err" >&2; fail "--only hcrmap-metadata --only stratum-device: exit $rc"; }
grep -E '^\| (stratum|hcrmap|validation)\.' "$tmp/two.md" | cut -d' ' -f2 | cut -d. -f1-2 | uniq >"$tmp/two.families"
printf 'stratum.device\nhcrmap.metadata\n' | cmp -s - "$tmp/two.families" ||
  { cat "$tmp/two.families" >&2; fail "--only: families printed out of report order or not selected"; }
grep -q '^16 rows: ' "$tmp/two.md" || fail "--only stratum-device,hcrmap-metadata: expected 16 rows"
# Progress names the two families and nothing else; no warning about data these families do not read.
[[ $(grep -c ' rows (' "$tmp/two.err") -eq 2 ]] || { cat "$tmp/two.err" >&2; fail "expected two progress lines"; }
if grep -q -e 'warning' -e 'experiment' "$tmp/two.err"; then cat "$tmp/two.err" >&2; fail "unexpected stderr"; fi

# The rows are the whole report's.
grep -E '^\| (stratum\.device|hcrmap\.metadata)\.' "$docs" >"$tmp/whole.rows"
grep -E '^\| (stratum|hcrmap)\.' "$tmp/two.md" | cmp -s - "$tmp/whole.rows" ||
  fail "--only stratum-device,hcrmap-metadata: rows differ from the whole report's ($docs)"

# The same as a comma list: the same bytes.
"$prog" --only stratum-device,hcrmap-metadata --quiet >"$tmp/comma.md"
cmp -s "$tmp/two.md" "$tmp/comma.md" || fail "--only a,b differs from --only a --only b"

# A group, as JSON: every row a Stratum row, no HCRMap experiment run; the rows that fail carry a
# known disagreement, so the exit status is 0.
rc=0
"$prog" --only stratum --json --threads 2 >"$tmp/stratum.json" 2>"$tmp/stratum.err" || rc=$?
[[ $rc -eq 0 ]] || { cat "$tmp/stratum.err" >&2; fail "--only stratum --json: exit $rc"; }
if grep -q -e 'hcrmap' -e 'gpu validation' "$tmp/stratum.err"; then cat "$tmp/stratum.err" >&2; fail "--only stratum ran other families"; fi
ids=$(grep -E '^    "id": ' "$tmp/stratum.json" | sed -E 's/^    "id": "([^"]*)",?$/\1/')
[[ -n $ids ]] || fail "--only stratum --json printed no rows"
if grep -v -E '^stratum\.' <<<"$ids"; then fail "--only stratum printed a row of another family"; fi
grep -q '"ok": false' "$tmp/stratum.json" || fail "expected the Stratum group's known disagreements (failing rows)"
if grep -B1 '"ok": false' "$tmp/stratum.json" | grep -q '"known_disagreement": null'; then
  fail "a failing Stratum row without a known disagreement"
fi

# Unknown and empty families: exit 2, naming the family and the valid spellings.
for bad in stratum-dev "stratum,bogus" "" ","; do
  rc=0
  "$prog" --only "$bad" >"$tmp/bad.out" 2>"$tmp/bad.err" || rc=$?
  [[ $rc -eq 2 ]] || fail "--only '$bad': exit status $rc, expected 2"
  grep -qF -- "--only: unknown family" "$tmp/bad.err" || { cat "$tmp/bad.err" >&2; fail "--only '$bad': no message"; }
  grep -qF "valid: stratum, hcrmap, gpu, stratum-device," "$tmp/bad.err" || fail "--only '$bad': valid spellings not listed"
  [[ ! -s $tmp/bad.out ]] || fail "--only '$bad': printed a report"
done
grep -qF "'bogus'" <("$prog" --only stratum,bogus 2>&1 || true) || fail "--only stratum,bogus does not name bogus"
rc=0
"$prog" --only >"$tmp/bad.out" 2>"$tmp/bad.err" || rc=$?
[[ $rc -eq 2 ]] || fail "--only without a value: exit status $rc, expected 2"
echo "--only: selected families in report order, exit status of the rows printed, unknown family exit 2"
