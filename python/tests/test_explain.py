"""strata.explain(row) against `strata-eval explain ROW --json`: the same document (the same C++
code, strata/report/explain_row.hpp, produces both)."""

import functools

import pytest

import strata
from conftest import cli_fails, cli_json


@functools.cache
def explained(row):
    """strata.explain(row), computed once per row for this file's cases: each computes the report
    family that holds the row and, for a failing check, the explainer's re-evaluations (seconds);
    the cases below read the same document (no case changes it)."""
    return strata.explain(row)


@pytest.mark.parametrize("row", [
    "stratum.system.olmoe.decode_speedup",                  # a failing check: explained
    "stratum.system.mixtral.decode_speedup",                # within tolerance
    "stratum.system.olmoe.energy_efficiency_gain.xpu_tdp",  # not a check
    "hcrmap.premise.migration_delays_dispatch",             # not re-evaluated
    # A campaign run of a config.json fixture: the data directory's inputs, as the program's.
    "validation.serving.campaign.3-codellama-34b-tp2-roleplay.itl_mean_s",
])
def test_explain_equals_cli(row):
    assert dict(explained(row)) == cli_json("explain", row, "--json")


def test_explained_row_has_its_gap():
    x = explained("stratum.system.olmoe.decode_speedup")
    assert x["id"] == "stratum.system.olmoe.decode_speedup"
    assert x["elasticities"] and x["gap"]
    # A parameter that closes the row alone moves it by a finite number of its ranges.
    assert any(g["closes"] for g in x["gap"]) == x["closed_by_one"]


def test_within_tolerance_is_not_explained():
    x = explained("stratum.system.mixtral.decode_speedup")
    assert x == {"id": "stratum.system.mixtral.decode_speedup", "explained": False, "reason": "within tolerance"}


@pytest.mark.parametrize("row", ["stratum.composition.olmoe.b1.weight_stream", "nope.row", "validation.no.such.row"])
def test_unknown_rows_name_the_field(row):
    rc, err = cli_fails("explain", row, "--json")
    with pytest.raises(strata.ConfigError) as e:
        strata.explain(row)
    assert e.value.field == "row" and rc == 1 and str(e.value) in err


def test_threads_are_checked_and_data_dir_is_read(tmp_path):
    for bad in (-1, 1025, 1.5, True, "2"):
        with pytest.raises(strata.ConfigError) as e:
            strata.explain("stratum.system.mixtral.decode_speedup", threads=bad)
        assert e.value.field == "threads"
    # One thread or the machine's cores: the same document.
    row = "stratum.system.mixtral.decode_speedup"
    assert dict(strata.explain(row, threads=1)) == dict(explained(row))
    # A data directory without the config.json fixtures: the report has no row of that campaign run.
    with pytest.raises(strata.ConfigError) as e:
        strata.explain("validation.serving.campaign.3-codellama-34b-tp2-roleplay.itl_mean_s", data_dir=tmp_path)
    assert e.value.field == "row"
