"""strata.run against `strata-eval run SCENARIO --format jsonl` (and its CSV header) for the same
scenario: the same rows, columns and numbers to the last digit (read_scenario, scenario_model and
stream_sweep: the same code); paths resolved beside the scenario first, then in the data
directory; errors carry the JSON path or the point's field."""

import copy
import csv
import io
import json
import math
import os
import pathlib
import shutil
import subprocess

import pytest

import strata
from conftest import SOURCE_DIR, STRATA_EVAL

SCENARIOS = os.path.join(SOURCE_DIR, "examples", "scenarios")
DATA = os.path.join(SOURCE_DIR, "tests", "data")
TRACE = "traces/dsv2lite_esft_trace_intent.csv"

# The studies that run in well under a second (the HCRMap figures run for seconds to minutes; a
# one-point HCRMap study below stands for them).
FAST = ["fig14_layers_tiers", "fig17_hit_rate", "fig18a_batch_context", "fig18b_throughput_per_area",
        "eq1_3_logic_budget", "optimise_64k"]

# A one-point HCRMap study (one window of one layer) naming a trace and a checkpoint by relative path.
SMALL_HCRMAP = {
    "name": "small_hcrmap", "study": "hcrmap_budget", "model": "DeepSeek-V2-Lite",
    "hcrmap": {"mode": "prefill", "windows": 1, "max_layers": 1, "trace": TRACE, "checkpoint": "hcrmap/dqn_checkpoint.json"},
    "sweep": {"axes": [{"name": "budget_factor", "kind": "list", "values": [1.0, 2.0]}]},
}


def cli_run(path, *extra, cwd=None):
    """strata-eval run PATH EXTRA...: (exit status, stdout, stderr)."""
    p = subprocess.run([STRATA_EVAL, "run", str(path), *extra], capture_output=True, text=True, cwd=cwd or SOURCE_DIR)
    return p.returncode, p.stdout, p.stderr


def cli_table(path, fmt, cwd=None):
    """The table strata-eval run PATH --format FMT writes to --out (the optimise study prints only
    its summary on standard output)."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "table." + fmt)
        rc, _, err = cli_run(path, "--format", fmt, "--out", out, cwd=cwd)
        assert rc == 0, err
        with open(out, encoding="utf-8") as f:
            return f.read()


def cli_lines(path, cwd=None):
    """The JSON Lines table of strata-eval run PATH, one dict per line."""
    return [json.loads(line) for line in cli_table(path, "jsonl", cwd=cwd).splitlines()]


def cli_header(path):
    return next(csv.reader(io.StringIO(cli_table(path, "csv"))))


def same(a, b):
    """Two table cells equal to the last digit (None: the JSON's null for nan)."""
    if a is None or b is None:
        return a is None and b is None
    return a == b  # doubles compared exactly; 16 == 16.0 (the JSON writes integers bare)


def write(tmp_path, name, scenario):
    path = tmp_path / name
    path.write_text(json.dumps(scenario), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("name", FAST)
def test_run_rows_equal_the_cli_jsonl(name):
    path = os.path.join(SCENARIOS, name + ".json")
    rows = strata.run(path, frame=False)
    want = cli_lines(path)
    assert len(rows) == len(want) > 0
    for got, exp in zip(rows, want):
        assert list(got) == list(exp)  # the same keys in the same order
        for k in exp:
            assert same(got[k], exp[k]), (name, k, got[k], exp[k])


@pytest.mark.parametrize("name", FAST)
def test_run_frame_has_the_cli_columns_and_numbers(name):
    pandas = pytest.importorskip("pandas")
    path = os.path.join(SCENARIOS, name + ".json")
    df = strata.run(path)
    assert isinstance(df, pandas.DataFrame)
    assert list(df.columns) == cli_header(path)
    with open(path, encoding="utf-8") as f:
        scenario = json.load(f)
    assert df.attrs["scenario"] == scenario["name"] and df.attrs["study"] == scenario["study"]
    for got, exp in zip(df.to_dict(orient="records"), cli_lines(path)):
        for k, v in exp.items():
            g = got[k]
            if v is None:
                assert isinstance(g, float) and not math.isfinite(g), (k, g)
            else:
                assert g == v, (name, k, g, v)
    if scenario["study"] != "optimise":
        assert str(df["index"].dtype) == "int64"
        assert list(df["index"]) == list(range(len(df)))


def test_run_dict_equals_the_file_and_does_not_change_it():
    path = os.path.join(SCENARIOS, "fig18a_batch_context.json")
    with open(path, encoding="utf-8") as f:
        scenario = json.load(f)
    before = copy.deepcopy(scenario)
    assert strata.run(scenario, frame=False) == strata.run(path, frame=False)
    assert scenario == before
    assert strata.run(pathlib.Path(path), frame=False) == strata.run(path, frame=False)


def test_run_values_are_the_study_columns():
    pandas = pytest.importorskip("pandas")
    df = strata.run(os.path.join(SCENARIOS, "fig18a_batch_context.json"))
    # Cartesian, the first axis outermost: 4 contexts x 9 batches.
    assert len(df) == 36 and list(df["context"][:9]) == [512] * 9 and list(df["batch"][:3]) == [1, 2, 4]
    assert str(df["batch"].dtype) == "int64"
    fits = (df["stratum_fits"] == 1) & (df["gpu_fits"] == 1)
    ratio = df["stratum_tokens_per_s"] / df["gpu_tokens_per_s"]
    assert ((ratio - df["speedup"]).abs()[fits] <= 1e-12 * df["speedup"][fits]).all()
    # Tokens/s of Stratum grows with the batch at a fixed context.
    for _, g in df[df["stratum_fits"] == 1].groupby("context"):
        assert (g["stratum_tokens_per_s"].diff().dropna() > 0).all()


def test_run_outputs_select_columns():
    path = os.path.join(SCENARIOS, "fig18b_throughput_per_area.json")
    rows = strata.run(path, frame=False)
    assert list(rows[0]) == ["index", "layers", "chips", "capacity_GiB", "fastest_bw_TBps", "tokens_per_s",
                             "tokens_per_s_per_mm2"]


def test_run_optimise_rows_and_summary():
    pandas = pytest.importorskip("pandas")
    path = os.path.join(SCENARIOS, "optimise_64k.json")
    df = strata.run(path)
    assert list(df["design"]) == ["optimum", "baseline"]
    rc, out, err = cli_run(path)
    assert rc == 0, err
    assert df.attrs["summary"] == out  # the CLI prints the summary only (the table goes to --out)
    # The optimum is at least as good as the system's own design.
    assert df["objective"][0] >= df["objective"][1]


def test_run_hcrmap_paths_resolve_as_the_cli(tmp_path):
    # Relative paths absent beside the scenario: found in the data directory.
    path = write(tmp_path, "small.json", SMALL_HCRMAP)
    rows = strata.run(path, frame=False)
    want = cli_lines(path)
    assert rows == want and len(rows) == 2
    # The same as a dict (its paths in base_dir, then the data directory).
    assert strata.run(SMALL_HCRMAP, base_dir=str(tmp_path), frame=False) == want
    # A file beside the scenario comes first: a copy under another name is found there ...
    shutil.copy(os.path.join(DATA, TRACE), tmp_path / "mine.csv")
    mine = dict(SMALL_HCRMAP, hcrmap=dict(SMALL_HCRMAP["hcrmap"], trace="mine.csv"))
    assert strata.run(write(tmp_path, "mine.json", mine), frame=False) == want
    with pytest.raises(strata.ConfigError) as e:  # ... and not in the working directory or data directory
        strata.run(mine, frame=False)
    assert e.value.field == "hcrmap.trace"
    assert "data directory" in str(e.value)
    # ... and shadows the data directory's file of the same relative path.
    (tmp_path / "traces").mkdir()
    (tmp_path / "traces" / os.path.basename(TRACE)).write_text("seq,pos,L1\n0,0,x\n", encoding="utf-8")
    with pytest.raises(strata.ConfigError) as e:
        strata.run(path)
    assert e.value.field == "hcrmap.trace"
    rc, _, err = cli_run(path)
    assert rc == 1 and str(e.value).split(";")[0] in err


def test_run_bad_key_raises_config_error_with_the_json_path(tmp_path):
    with open(os.path.join(SCENARIOS, "fig17_hit_rate.json"), encoding="utf-8") as f:
        good = json.load(f)
    bad = dict(good, wibble=1)
    with pytest.raises(strata.ConfigError) as e:
        strata.run(bad)
    assert e.value.field == "wibble"
    path = write(tmp_path, "bad.json", bad)
    with pytest.raises(strata.ConfigError) as e2:
        strata.run(path)
    assert e2.value.field == "wibble"
    rc, _, err = cli_run(path)
    assert rc == 1 and str(e2.value) in err  # the CLI's message, word for word
    axis = copy.deepcopy(good)
    axis["sweep"]["axes"][0]["values"][1] = 0  # batch 0
    with pytest.raises(strata.ConfigError) as e:
        strata.run(axis)
    assert e.value.field == "sweep.axes[0].values[1]"


def test_run_point_error_names_the_point():
    hostile = {"name": "ctx_hostile", "study": "hcrmap_budget", "model": "DeepSeek-V2-Lite",
               "hcrmap": {"mode": "decode", "windows": 1, "max_layers": 1},
               "sweep": {"axes": [{"name": "context", "kind": "list", "values": [1048576]}]}}
    with pytest.raises(strata.ConfigError) as e:
        strata.run(hostile)
    assert e.value.field == "hcrmap_budget[context=1048576].context"
    assert "point 1 of 1 (context=1048576)" in str(e.value)


def test_run_refuses_what_is_not_a_scenario(tmp_path):
    with pytest.raises(strata.ConfigError) as e:
        strata.run(str(tmp_path))  # a directory: the opening rule
    assert e.value.field == "scenario" and "directory" in str(e.value)
    with pytest.raises(strata.ConfigError) as e:
        strata.run(str(tmp_path / "absent.json"))
    assert e.value.field == "scenario"
    with pytest.raises(strata.ConfigError) as e:
        strata.run(42)
    assert e.value.field == "scenario"
    with pytest.raises(strata.ConfigError) as e:
        strata.run(SMALL_HCRMAP, threads=-1)
    assert e.value.field == "threads"
    with pytest.raises(strata.ConfigError) as e:
        strata.run(os.path.join(SCENARIOS, "fig17_hit_rate.json"), base_dir=str(tmp_path))
    assert e.value.field == "base_dir"
    with pytest.raises(strata.ConfigError) as e:
        strata.run({"name": "x", "study": "device", "model": object()})
    assert e.value.field == "model"


def test_run_threads_do_not_change_a_number():
    path = os.path.join(SCENARIOS, "fig14_layers_tiers.json")
    assert strata.run(path, threads=1, frame=False) == strata.run(path, threads=2, frame=False)
