"""strata.paper_rows against `strata-paper-report --json --only ...`: the same rows (the
report's cheap families; the HCRMap experiments take minutes and are the program's tests)."""

import json
import os
import subprocess

import pytest

import strata
from conftest import SOURCE_DIR, STRATA_EVAL

ONLY = ["stratum-device", "hcrmap-metadata"]


def report_bin():
    return os.path.join(os.path.dirname(STRATA_EVAL), "strata-paper-report")


def test_rows_have_the_report_keys():
    rows = strata.paper_rows(only=ONLY)
    assert len(rows) > 5
    for r in rows:
        assert {"id", "value", "unit", "paper", "rule", "ok", "source"} <= set(r)
    ids = [r["id"] for r in rows]
    assert len(ids) == len(set(ids))


def test_rows_equal_the_program():
    if not os.path.exists(report_bin()):
        pytest.skip("strata-paper-report not built")
    p = subprocess.run([report_bin(), "--json", "--quiet", "--only", ",".join(ONLY)], capture_output=True, text=True, cwd=SOURCE_DIR)
    assert p.returncode == 0, p.stderr
    assert strata.paper_rows(only=ONLY) == json.loads(p.stdout)


def test_rows_read_the_data_directory_as_the_program():
    """The serving rows read the data directory's per-domain count table: found as the program
    finds it (find_paper_report_inputs), the same rows; a directory without it gives none."""
    if not os.path.exists(report_bin()):
        pytest.skip("strata-paper-report not built")
    p = subprocess.run([report_bin(), "--json", "--quiet", "--only", "stratum-serving"], capture_output=True, text=True,
                       cwd=SOURCE_DIR)
    assert p.returncode == 0, p.stderr
    program = json.loads(p.stdout)
    assert program and strata.paper_rows(only="stratum-serving") == program
    assert strata.paper_rows(only="stratum-serving", data_dir=os.path.join(SOURCE_DIR, "examples")) == []


def test_rows_as_dataframe():
    pandas = pytest.importorskip("pandas")
    df = strata.paper_rows(only="hcrmap-metadata", frame=True)
    assert isinstance(df, pandas.DataFrame) and "value" in df.columns and len(df) > 0


def test_unknown_family_names_only():
    with pytest.raises(strata.ConfigError) as e:
        strata.paper_rows(only=["no-such-family"])
    assert e.value.field == "only"
