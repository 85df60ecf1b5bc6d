"""Shared helpers of the strata Python tests: the CLI run as a subprocess (STRATA_EVAL, set by
CTest to build/examples/strata-eval) and the repository root (STRATA_SOURCE_DIR)."""

import json
import os
import subprocess

import pytest

SOURCE_DIR = os.environ.get("STRATA_SOURCE_DIR", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
STRATA_EVAL = os.environ.get("STRATA_EVAL", os.path.join(SOURCE_DIR, "build", "examples", "strata-eval"))


def cli_json(*args, cwd=None):
    """strata-eval ARGS --json as a Python object (exit status 0 required)."""
    p = subprocess.run([STRATA_EVAL, *map(str, args)], capture_output=True, text=True, cwd=cwd or SOURCE_DIR)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def cli_fails(*args):
    """strata-eval ARGS: (exit status, stderr) of a run expected to fail."""
    p = subprocess.run([STRATA_EVAL, *map(str, args)], capture_output=True, text=True, cwd=SOURCE_DIR)
    assert p.returncode != 0
    return p.returncode, p.stderr


def eval_args(**kw):
    """The CLI's eval options of evaluate()'s keyword arguments (flags for True, '-' for '_')."""
    args = ["eval"]
    for k, v in kw.items():
        if v is True:
            args.append("--" + k.replace("_", "-"))
        elif v is not None and v is not False:
            args += ["--" + k.replace("_", "-"), str(v)]
    return args + ["--json", "--units", "si"]


def plain(r):
    """A result with its ops DataFrame turned back into the list of dicts of the JSON."""
    out = dict(r)
    ops = out.get("ops")
    if ops is not None and not isinstance(ops, list):
        out["ops"] = [{k: v for k, v in row.items() if not _missing(v)} for row in ops.to_dict(orient="records")]
    return out


def _missing(v):
    return isinstance(v, float) and v != v  # NaN: a column the row does not have


@pytest.fixture
def source_dir():
    return SOURCE_DIR
