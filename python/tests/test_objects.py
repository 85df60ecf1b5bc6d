"""Model and Machine objects: fields in SI units read and set through the C++ structs'
visit_fields, passed back to evaluate, saved and read by the CLI (round trips)."""

import json
import math

import pytest

import strata
from conftest import cli_json, eval_args, plain

STEP = dict(phase="decode", batch=8, context=2048)


def test_presets_are_the_clis():
    names = strata.preset_names()
    assert "Mixtral-8x7B" in names and "DeepSeek-V2-Lite" in names
    assert strata.machine_names()[:1] == ["h100_sxm5"] and "stratum-xl" in strata.machine_names()


def test_model_fields_in_si_and_settable():
    m = strata.model("mixtral-8x7b")  # case and '-'/'_' free, as the CLI
    assert (m.name, m.experts, m.top_k, m.layers) == ("Mixtral-8x7B", 8, 2, 32)
    assert "hidden" in m.fields() and m.to_dict()["hidden"] == m.hidden
    m2 = m.copy()
    m2.top_k = 1
    assert (m.top_k, m2.top_k) == (2, 1)
    # Half the experts per token: fewer FLOPs in the step, the rest of the model the same.
    a = strata.evaluate(model=m, machine="h100_sxm5", devices=2, **STEP)
    b = strata.evaluate(model=m2, machine="h100_sxm5", devices=2, **STEP)
    assert b["flops"] < a["flops"] and b["time_s"] < a["time_s"]


def test_model_round_trip_through_dict():
    m = strata.model("DeepSeek-V2-Lite")
    again = strata.Model.from_dict(m.to_dict())
    assert again == m
    a = strata.evaluate(model=again, machine="h100_sxm5", **STEP)
    assert plain(a) == plain(strata.evaluate(model=m, machine="h100_sxm5", **STEP))


def test_model_bad_set_names_the_field_and_keeps_the_value():
    m = strata.model("Mixtral-8x7B")
    with pytest.raises(strata.ConfigError) as e:
        m.experts = "eight"
    assert e.value.field == "experts" and m.experts == 8
    with pytest.raises(strata.ConfigError) as e:
        m.ffn = "relu"  # an enum: its names only
    assert e.value.field == "ffn"
    with pytest.raises(strata.ConfigError) as e:
        strata.Model.from_dict({"name": "x", "wings": 2})
    assert e.value.field == "model.wings"
    with pytest.raises(AttributeError):
        m.wings


def test_model_from_config_json_equals_cli(source_dir):
    path = "tests/data/hf/dbrx.config.json"
    m = strata.model(source_dir + "/" + path)
    assert m.experts == 16
    r = strata.evaluate(model=m, machine="mi300x", phase="decode", batch=4, context=256)
    assert plain(r) == cli_json(*eval_args(model=path, machine="mi300x", phase="decode", batch=4, context=256))


def test_machine_fields_in_si():
    g = strata.machine("h100_sxm5")
    assert g.kind == "gpu" and g.preset == "h100_sxm5"
    d = g.to_dict()
    # Quantities are plain SI floats: the HBM is tens of GB (bytes), its bandwidth TB/s (B/s).
    mem = [v for k, v in d.items() if isinstance(v, float) and 50e9 < v < 200e9]
    assert mem, d
    s = strata.machine("stratum-l")
    assert s.kind == "stratum" and "chips" in s.fields()


def test_modified_machine_saved_is_read_by_the_cli(tmp_path):
    g = strata.machine("h100_sxm5")
    key = next(k for k, v in g.to_dict().items() if isinstance(v, float) and 1e12 < v < 1e13 and "bandwidth" in k)
    setattr(g, key, getattr(g, key) * 2)
    assert g.preset == ""  # a modified card is no longer the preset
    f = tmp_path / "h100x2.json"
    g.save(f)
    r = strata.evaluate(model="Mixtral-8x7B", machine=g, **STEP)
    assert plain(r) == cli_json(*eval_args(model="Mixtral-8x7B", machine=f, **STEP))
    assert plain(strata.evaluate(model="Mixtral-8x7B", machine=strata.machine(f), **STEP)) == plain(r)
    # Twice the memory bandwidth: a memory-bound decode step is faster.
    base = strata.evaluate(model="Mixtral-8x7B", machine="h100_sxm5", devices=r["devices"], **STEP)
    assert r["time_s"] < base["time_s"]


def test_machine_knobs_equal_cli():
    r = strata.evaluate(model="Mixtral-8x7B", machine=strata.machine("h100_sxm5", knobs="fitted"), **STEP)
    cli = cli_json("eval", "--model", "Mixtral-8x7B", "--machine", "h100_sxm5", "--phase", "decode", "--batch", "8",
                   "--context", "2048", "--gpu-knobs", "fitted", "--json", "--units", "si")
    assert plain(r) == cli


def test_machine_errors_name_the_field(tmp_path):
    with pytest.raises(strata.ConfigError) as e:
        strata.machine("h100_sxm5", knobs="tuned")
    assert e.value.field == "knobs"
    with pytest.raises(strata.ConfigError) as e:
        strata.machine(tmp_path)  # a directory: the opening rule refuses it
    assert e.value.field == "machine"
    g = strata.machine("h100_sxm5")
    key = next(k for k, v in g.to_dict().items() if isinstance(v, float))
    with pytest.raises(strata.ConfigError) as e:
        setattr(g, key, math.inf)
    assert e.value.field == key
    with pytest.raises(strata.ConfigError):
        strata.machine("stratum-s").save(tmp_path / "s.json")


def test_html_reprs():
    assert strata.model("Mixtral-8x7B")._repr_html_().startswith("<table>")
    r = strata.evaluate(model="Mixtral-8x7B", machine="h100_sxm5", **STEP)
    html = r._repr_html_()
    assert "time_s" in html and "<table>" in html


def test_preset_load_hf_config_and_load_machine_are_model_and_machine(source_dir, tmp_path):
    assert strata.preset("mixtral-8x7b").to_dict() == strata.model("Mixtral-8x7B").to_dict()
    path = source_dir + "/tests/data/hf/dbrx.config.json"
    assert strata.load_hf_config(path).to_dict() == strata.model(path).to_dict()
    g = strata.machine("h100_sxm5")
    f = tmp_path / "card.json"
    g.save(f)
    assert strata.load_machine(f).to_dict() == g.to_dict()
    with pytest.raises(strata.ConfigError) as e:
        strata.preset(path)  # a file is not a preset name
    assert e.value.field == "model"
    with pytest.raises(strata.ConfigError) as e:
        strata.load_hf_config("Mixtral-8x7B")  # a preset name is not a file
    assert e.value.field == "model"
    with pytest.raises(strata.ConfigError) as e:
        strata.load_machine(tmp_path)  # a directory
    assert e.value.field == "machine"
    with pytest.raises(strata.ConfigError):
        strata.preset("NoSuchModel")
