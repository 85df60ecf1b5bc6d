"""strata.serve against `strata-eval serve SCENARIO --json` on the example scenarios: equal to the
last digit (read_serving_scenario + run_scenario, the same code)."""

import copy
import json
import os

import pytest

import strata
from conftest import SOURCE_DIR, cli_json

SCENARIOS = ["serve_mixtral", "serve_gpu_only_h200", "serve_dsv2lite_trace", "serve_mixtral_ep"]


def load(name):
    with open(os.path.join(SOURCE_DIR, "examples", "scenarios", name + ".json"), encoding="utf-8") as f:
        return json.load(f)


@pytest.mark.parametrize("name", SCENARIOS)
def test_serve_equals_cli(name):
    here = os.path.join(SOURCE_DIR, "examples", "scenarios")
    r = strata.serve(load(name), base_dir=here)
    assert dict(r) == cli_json("serve", os.path.join(here, name + ".json"), "--json")


def test_serve_does_not_change_its_input():
    s = load("serve_gpu_only_h200")
    before = copy.deepcopy(s)
    strata.serve(s)
    assert s == before


def test_serve_errors_name_the_json_path():
    s = load("serve_gpu_only_h200")
    s["wibble"] = 1
    with pytest.raises(strata.ConfigError) as e:
        strata.serve(s)
    assert "wibble" in e.value.field
    with pytest.raises(strata.ConfigError) as e:
        strata.serve({"model": object()})
    assert e.value.field == "model"
    with pytest.raises(strata.ConfigError) as e:
        strata.serve("examples/scenarios/serve_mixtral.json")
    assert e.value.field == "scenario"
