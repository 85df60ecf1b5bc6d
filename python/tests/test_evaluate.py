"""strata.evaluate against `strata-eval eval --json --units si` for the same arguments: equal to
the last digit (the same C++ code, strata/report/eval_step.hpp, produces both)."""

import pytest

import strata
from conftest import cli_json, eval_args, plain

TRACE = "tests/data/traces/dsv2lite_esft_trace_intent.csv"

CASES = [
    dict(model="Mixtral-8x7B", machine="h100_sxm5", phase="decode", batch=8, context=2048),
    dict(model="Mixtral-8x7B", machine="h100_sxm5", phase="prefill", batch=2, context=512),
    dict(model="Mixtral-8x7B", machine="h100_sxm5", phase="decode", batch=8, context=2048, devices=1),
    dict(model="Mixtral-8x7B", machine="h100_sxm5", phase="decode", batch=8, context=2048, ep=4),
    dict(model="Mixtral-8x7B", machine="h100_sxm5", phase="decode", batch=8, context=2048, ep=8, attention="dp",
         redundant_experts=1, ep_imbalance="mean"),
    dict(model="Mixtral-8x7B", machine="stratum-s", phase="decode", batch=8, context=2048),
    dict(model="Mixtral-8x7B", machine="stratum-l", phase="decode", batch=8, context=2048, hit_rate=0.8, detail="experts"),
    dict(model="Mixtral-8x7B", machine="stratum-s", phase="prefill", batch=2, context=512),
    dict(model="Mixtral-8x7B", machine="stratum-s", phase="decode", batch=8, context=2048, no_tiering=True, hbm_nmp=True,
         expert_mapping="all_chips"),
    dict(model="DeepSeek-V2-Lite", machine="h100_sxm5", phase="decode", batch=4, context=256, trace=TRACE, trace_position=3),
    dict(model="DeepSeek-V2-Lite", machine="h100_sxm5", phase="prefill", batch=1, context=16, trace=TRACE),
    dict(model="DeepSeek-V2-Lite", machine="stratum-s", phase="decode", batch=4, context=256, trace=TRACE, trace_seed=7),
    dict(model="tests/data/hf/deepseek-v2-lite.config.json", machine="a100_sxm4_80gb", phase="decode", batch=4, context=256),
    dict(model="Llama-3.1-8B", machine="mi300x", phase="prefill", batch=1, context=1024),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(str(v) for v in c.values())[:80])
def test_evaluate_equals_cli(case):
    r = strata.evaluate(**case)
    assert plain(r) == cli_json(*eval_args(**case))


def test_ops_is_a_dataframe_with_the_cli_rows():
    pandas = pytest.importorskip("pandas")
    r = strata.evaluate(model="Mixtral-8x7B", machine="h100_sxm5", phase="decode", batch=8, context=2048)
    assert isinstance(r["ops"], pandas.DataFrame)
    # The rows add up to the step (each includes its all-reduce): the CLI's invariant, in pandas.
    assert r["ops"]["time_s"].sum() == pytest.approx(r["time_s"], rel=1e-9)
    assert list(r["ops"].columns[:3]) == ["bound", "bytes_B", "energy_J"]


def test_ops_as_list_without_frames():
    r = strata.evaluate(model="Mixtral-8x7B", machine="h100_sxm5", phase="decode", batch=8, context=2048, ops_frame=False)
    assert isinstance(r["ops"], list) and r["ops"][0]["name"]


def test_done_when_number_is_the_clis():
    t = strata.evaluate(model="Mixtral-8x7B", machine="h100_sxm5", phase="decode", batch=8, context=2048)["time_s"]
    cli = cli_json("eval", "--model", "Mixtral-8x7B", "--machine", "h100_sxm5", "--phase", "decode", "--batch", "8",
                   "--context", "2048", "--json")
    assert repr(t) == repr(cli["time_s"])


def test_more_batch_more_tokens_per_second():
    # decode on a GPU is memory bound at small batch: 8x the batch, more tokens/s, more time per step.
    a = strata.evaluate(model="Mixtral-8x7B", machine="h100_sxm5", phase="decode", batch=1, context=2048, devices=2)
    b = strata.evaluate(model="Mixtral-8x7B", machine="h100_sxm5", phase="decode", batch=8, context=2048, devices=2)
    assert b["tokens_per_s"] > a["tokens_per_s"] and b["time_s"] > a["time_s"]


@pytest.mark.parametrize("kw,field", [
    (dict(batch=0), "batch"),
    (dict(phase="both"), "phase"),
    (dict(devices=0), "devices"),
    (dict(ep=3), "ep"),
    (dict(hit_rate=0.5), "hit_rate"),
    (dict(attention="dp"), "attention"),
    (dict(wibble=1), "wibble"),
    (dict(machine="stratum-s", devices=2), "devices"),
    (dict(machine="stratum-s", ep=2), "ep"),
    (dict(phase="prefill", trace=TRACE, trace_position=2), "trace_position"),
    (dict(model="Nope"), "model"),
    (dict(machine="nope"), "machine"),
    (dict(trace="no/such/trace.csv"), "trace"),
])
def test_errors_name_the_field(kw, field):
    args = dict(model="Mixtral-8x7B", machine="h100_sxm5", phase="decode", batch=8, context=2048)
    args.update(kw)
    with pytest.raises(strata.ConfigError) as e:
        strata.evaluate(**args)
    assert e.value.field == field
    assert isinstance(e.value, ValueError) and str(e.value)


def test_cli_refuses_the_same_inputs():
    from conftest import cli_fails
    rc, err = cli_fails("eval", "--model", "Mixtral-8x7B", "--machine", "h100_sxm5", "--phase", "decode", "--batch", "8",
                        "--context", "2048", "--ep", "3")
    with pytest.raises(strata.ConfigError) as e:
        strata.evaluate(model="Mixtral-8x7B", machine="h100_sxm5", phase="decode", batch=8, context=2048, ep=3)
    assert rc == 1 and str(e.value) in err


def test_warnings_are_python_warnings():
    with pytest.warns(strata.StrataWarning, match="does not fit"):
        strata.evaluate(model="Mixtral-8x7B", machine="h100_sxm5", phase="decode", batch=8, context=2048, devices=1)
