"""The issue's done-when from an installed prefix: `cmake --install` into a temporary prefix, then
the one-liner with PYTHONPATH at <prefix>/<STRATA_PYTHON_INSTALL_DIR>, run outside the source and
build trees, prints the CLI's number; the installed package finds <prefix>/share/strata."""

import os
import subprocess
import sys

import pytest

from conftest import cli_json

BUILD_DIR = os.environ.get("STRATA_BUILD_DIR")
SITE = os.environ.get("STRATA_PYTHON_INSTALL_DIR")

DONE_WHEN = ("import strata; print(strata.evaluate(model='Mixtral-8x7B', machine='h100_sxm5', phase='decode', "
             "batch=8, context=2048)['time_s'])")


@pytest.mark.skipif(not BUILD_DIR or not SITE, reason="STRATA_BUILD_DIR and STRATA_PYTHON_INSTALL_DIR are set by CTest")
def test_installed_prefix_prints_the_clis_number(tmp_path):
    prefix = tmp_path / "prefix"
    p = subprocess.run(["cmake", "--install", BUILD_DIR, "--prefix", str(prefix)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    env = dict(os.environ, PYTHONPATH=str(prefix / SITE))
    env.pop("STRATA_DATA_DIR", None)
    out = subprocess.run([sys.executable, "-c", DONE_WHEN + "; print(strata.__file__); print(strata.data_dir())"],
                         capture_output=True, text=True, cwd=tmp_path, env=env)
    assert out.returncode == 0, out.stderr
    time_s, where, data = out.stdout.split("\n")[:3]
    cli = cli_json("eval", "--model", "Mixtral-8x7B", "--machine", "h100_sxm5", "--phase", "decode", "--batch", "8",
                   "--context", "2048", "--json")
    assert time_s == repr(cli["time_s"])
    assert where.startswith(str(prefix)) and data == str(prefix / "share" / "strata")
