"""strata.hcrmap(...) against `strata-eval hcrmap ... --json --units si` for the same arguments:
the same document (the same C++ code, strata/hcrmap/hcrmap_run.hpp, produces both)."""

import os
import warnings

import pytest

import strata
from conftest import SOURCE_DIR, cli_fails, cli_json

DATA = os.path.join(SOURCE_DIR, "tests", "data")
DSV2 = "traces/dsv2lite_esft_trace_intent.csv"  # relative: found in the data directory
LAW = "traces/dsv2lite_esft_trace_law.csv"


def cli_args(model, mode, trace=(), **kw):
    args = ["hcrmap", "--model", model, "--mode", mode]
    for t in ([trace] if isinstance(trace, str) else trace):
        args += ["--trace", t]
    for k, v in kw.items():
        if v is True:
            args.append("--" + k.replace("_", "-"))
        elif v is not None and v is not False:
            args += ["--" + k.replace("_", "-"), str(v)]
    return args + ["--json", "--units", "si"]


CASES = [
    dict(model="DeepSeek-V2-Lite", mode="prefill", trace=DSV2, policy="hcrmap", layers=2, max_windows=1),
    dict(model="DeepSeek-V2-Lite", mode="decode", trace=DSV2, layers=2, max_windows=2, batch=32, context=1024),
    dict(model="DeepSeek-V2-Lite", mode="decode", trace=DSV2, policy="static", layers=1, max_windows=1, trace_reuse=True),
    dict(model="DeepSeek-V2-Lite", mode="decode", trace=[DSV2, LAW], policy="hcrmap_frozen", layers=1, max_windows=4,
         batch=16, order="file"),
    dict(model="Mixtral-8x7B", mode="prefill", drift_tasks=3, policy="hcrmap", layers=2, max_windows=3),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(str(v) for v in c.values())[:70])
def test_hcrmap_equals_cli(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", strata.StrataWarning)
        r = strata.hcrmap(data_dir=DATA, **case)
    kw = dict(case)
    args = cli_args(kw.pop("model"), kw.pop("mode"), kw.pop("trace", ()), **kw) + ["--data-dir", DATA]
    assert dict(r) == cli_json(*args)


def test_hcrmap_default_batch_note_is_a_warning():
    with pytest.warns(strata.StrataWarning, match="distinct sequences a window of this trace holds"):
        r = strata.hcrmap("DeepSeek-V2-Lite", "decode", trace=DSV2, data_dir=DATA, layers=1, max_windows=1, policy="static")
    assert r["policies"]


def test_hcrmap_without_checkpoint_warns(tmp_path):
    with pytest.warns(strata.StrataWarning, match="no controller checkpoint"):
        strata.hcrmap("Mixtral-8x7B", "prefill", drift_tasks=2, data_dir=tmp_path, policy="hcrmap", layers=1, max_windows=1)


@pytest.mark.parametrize("kw,field", [
    (dict(mode="both"), "mode"),
    (dict(policy="best"), "policy"),
    (dict(order="random"), "order"),
    (dict(batch=16), "batch"),                 # prefill
    (dict(policy="static", checkpoint="x.json"), "checkpoint"),
    (dict(layers=0), "layers"),
    (dict(max_windows=2000), "max_windows"),
    (dict(drift_tasks=3), "drift_tasks"),      # and a trace
    (dict(trace=None), "trace"),
    (dict(trace=None, drift_tasks=1), "drift_tasks"),
    (dict(trace="no/such/trace.csv"), "trace"),
    (dict(drift_seed=3), "drift_seed"),        # without drift_tasks
])
def test_hcrmap_errors_name_the_field(kw, field):
    args = dict(model="DeepSeek-V2-Lite", mode="prefill", trace=DSV2, data_dir=DATA, layers=1, max_windows=1)
    args.update(kw)
    with pytest.raises(strata.ConfigError) as e:
        strata.hcrmap(**args)
    assert e.value.field == field


def test_hcrmap_refuses_what_the_cli_refuses():
    rc, err = cli_fails("hcrmap", "--model", "Mixtral-8x7B", "--trace", os.path.join(DATA, DSV2), "--mode", "decode")
    with pytest.raises(strata.ConfigError) as e:
        strata.hcrmap("Mixtral-8x7B", "decode", trace=os.path.join(DATA, DSV2))
    assert rc == 1 and str(e.value) in err
