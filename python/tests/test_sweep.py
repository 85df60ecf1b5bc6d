"""strata.sweep: the cartesian product of axes as a DataFrame, each row's numbers equal to
strata.evaluate (and so to `strata-eval eval --json --units si`) for the same point, to the last
digit; errors name the field; plot() needs matplotlib and says how to get it."""

import sys
import warnings

import pytest

import strata
from conftest import cli_json, eval_args, plain

pandas = pytest.importorskip("pandas")

TRACE = "tests/data/traces/dsv2lite_esft_trace_intent.csv"
REQUEST_KEYS = {"model", "machine", "phase", "batch", "context"}


def flat(d, prefix=""):
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(flat(v, prefix + k + "."))
        elif not isinstance(v, list) and v is not None:
            out[prefix + k] = v
    return out


def same(a, b):
    """Equal to the last digit: the same value and, for numbers, the same repr as a float."""
    if isinstance(b, bool) or isinstance(a, bool):
        return bool(a) == bool(b) and type(b) is bool
    if isinstance(b, (int, float)):
        return repr(float(a)) == repr(float(b))
    return a == b


def check_rows_equal_evaluate(frame, fixed):
    axes = frame.attrs["strata_axes"]
    assert list(frame.columns[:len(axes)]) == axes
    for _, row in frame.iterrows():
        point = dict(fixed)
        point.update({a: row[a] for a in axes})
        point = {k: (v.item() if hasattr(v, "item") else v) for k, v in point.items()}
        want = flat(plain(strata.evaluate(**point, ops_frame=False)))
        cells = {c: row[c] for c in frame.columns[len(axes):]
                 if row[c] is not None and not (isinstance(row[c], float) and row[c] != row[c])}
        # every cell is the evaluated document's value at that key ...
        for c, v in cells.items():
            assert c in want, c
            assert same(v, want[c]), (c, v, want[c])
        # ... and every scalar of the document is a cell (but the request's own keys and the axes)
        missing = {k for k in set(want) - set(cells) - REQUEST_KEYS - set(axes) if not k.startswith("breakdown.")}
        assert not missing, missing


def test_sweep_rows_equal_evaluate():
    fixed = dict(model="Mixtral-8x7B", context=512)
    frame = strata.sweep({"machine": ["h100_sxm5", "stratum-s"], "phase": ["decode", "prefill"], "batch": [1, 8]}, **fixed)
    assert len(frame) == 8
    assert list(frame["machine"]) == ["h100_sxm5"] * 4 + ["stratum-s"] * 4  # the last axis varies fastest
    assert list(frame["batch"]) == [1, 8, 1, 8, 1, 8, 1, 8]
    check_rows_equal_evaluate(frame, fixed)


@pytest.mark.parametrize("axes,fixed", [
    ({"ep": [2, 4, 8]}, dict(model="Mixtral-8x7B", machine="h100_sxm5", phase="decode", batch=16, context=1024)),
    ({"ep_imbalance": ["expected_max", "mean"]},
     dict(model="Mixtral-8x7B", machine="h100_sxm5", phase="decode", batch=16, context=1024, ep=8, attention="dp")),
    ({"trace_position": [0, 3]}, dict(model="DeepSeek-V2-Lite", machine="h100_sxm5", phase="decode", batch=4, context=256,
                                      trace=TRACE)),
    ({"hit_rate": [0.5, 0.9]}, dict(model="Mixtral-8x7B", machine="stratum-l", phase="decode", batch=8, context=2048,
                                    detail="experts")),
    ({"machine": ["stratum-s"], "no_tiering": [False, True], "expert_mapping": ["expert_parallel", "all_chips"]},
     dict(model="Mixtral-8x7B", phase="decode", batch=8, context=2048)),
    ({"model": ["Llama-3.1-8B", "tests/data/hf/deepseek-v2-lite.config.json"], "devices": [1, 2]},
     dict(machine="a100_sxm4_80gb", phase="prefill", batch=1, context=256)),
])
def test_sweep_option_axes_equal_evaluate(axes, fixed):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", strata.StrataWarning)
        frame = strata.sweep(axes, **fixed)
        check_rows_equal_evaluate(frame, fixed)


def test_sweep_row_equals_the_cli():
    frame = strata.sweep({"batch": [8]}, model="Mixtral-8x7B", machine="h100_sxm5", phase="decode", context=2048)
    cli = flat(cli_json(*eval_args(model="Mixtral-8x7B", machine="h100_sxm5", phase="decode", batch=8, context=2048)))
    for c in ("time_s", "energy_J", "tokens_per_s", "tokens_per_J", "bytes_B.weights", "fit.required_per_device_B"):
        assert repr(float(frame[c][0])) == repr(float(cli[c]))
    assert frame["verdict"][0] == cli["verdict"] and frame["devices"][0] == cli["devices"]


def test_sweep_columns_are_typed():
    frame = strata.sweep({"batch": [1, 2, 4]}, model="Mixtral-8x7B", machine="h100_sxm5", phase="decode", context=128)
    assert frame["time_s"].dtype == "float64" and frame["devices"].dtype == "int64" and frame["feasible"].dtype == bool
    assert frame["time_s"].is_monotonic_increasing
    assert isinstance(frame, strata.SweepFrame) and frame.axes_names == ["batch"]
    sub = frame[frame["batch"] > 1]
    assert isinstance(sub, strata.SweepFrame) and len(sub) == 2


def test_sweep_model_and_machine_objects():
    m = strata.model("Mixtral-8x7B")
    h = strata.machine("h100_sxm5")
    faster = h.copy()
    faster.memory_bandwidth = 2 * h.memory_bandwidth
    frame = strata.sweep({"machine": [h, faster]}, model=m, phase="decode", batch=8, context=2048)
    assert list(frame["machine"]) == ["h100_sxm5", "h100_sxm5 (modified)"]
    assert frame["time_s"][1] < frame["time_s"][0]
    assert repr(frame["time_s"][1]) == repr(strata.evaluate(model=m, machine=faster, phase="decode", batch=8, context=2048)["time_s"])


def test_sweep_with_fn():
    frame = strata.sweep({"a": [1, 2], "b": [10, 20, 30]}, fn=lambda a, b, c: {"sum": a + b + c, "nested": {"x": a * b}}, c=100)
    assert list(frame.columns) == ["a", "b", "sum", "nested.x"]
    assert list(frame["sum"]) == [111, 121, 131, 112, 122, 132] and list(frame["nested.x"]) == [10, 20, 30, 20, 40, 60]
    values = strata.sweep({"a": [3]}, fn=lambda a: a * a)
    assert list(values["value"]) == [9]


def test_sweep_with_evaluate_as_fn_equals_the_lean_path():
    axes = {"machine": ["h100_sxm5", "stratum-s"], "batch": [2, 16]}
    fixed = dict(model="Mixtral-8x7B", phase="decode", context=1024)
    lean = strata.sweep(axes, **fixed)
    slow = strata.sweep(axes, fn=lambda **kw: strata.evaluate(ops_frame=False, **kw), **fixed)
    for c in lean.columns:
        for a, b in zip(lean[c], slow[c]):
            assert a == b or (pandas.isna(a) and pandas.isna(b)), c  # missing where a machine has no such key


def test_sweep_warns_once():
    with pytest.warns(strata.StrataWarning, match="does not fit") as rec:
        strata.sweep({"batch": [1, 2, 4]}, model="Mixtral-8x7B", machine="h100_sxm5", phase="decode", context=2048, devices=1)
    assert len([w for w in rec if "does not fit" in str(w.message)]) <= 3


@pytest.mark.parametrize("axes,fixed,field", [
    ({"batch": [8, 0]}, {}, "batch"),
    ({"ep": [3]}, {}, "ep"),
    ({"phase": ["decode", "both"]}, {}, "phase"),
    ({"machine": ["h100_sxm5", "nope"]}, {}, "machine"),
    ({"batch": []}, {}, "batch"),
    ({"batch": "8"}, {}, "batch"),
    ({"batch": [8]}, {"wibble": 1}, "wibble"),
    ({"batch": [8]}, {"batch": 8}, "batch"),
    ({}, {}, "axes"),
])
def test_sweep_errors_name_the_field(axes, fixed, field):
    args = dict(model="Mixtral-8x7B", machine="h100_sxm5", phase="decode", context=2048)
    if "batch" not in axes and "batch" not in fixed:
        args["batch"] = 8
    for k in axes:
        args.pop(k, None)
    args.update(fixed)
    with pytest.raises(strata.ConfigError) as e:
        strata.sweep(axes, **args)
    assert e.value.field == field


def test_sweep_error_says_which_point():
    with pytest.raises(strata.ConfigError, match=r"sweep point 1: batch=0") as e:
        strata.sweep({"batch": [8, 0]}, model="Mixtral-8x7B", machine="h100_sxm5", phase="decode", context=2048)
    assert e.value.field == "batch"


def test_sweep_keeps_errors_when_asked():
    frame = strata.sweep({"ep": [2, 3, 4]}, model="Mixtral-8x7B", machine="h100_sxm5", phase="decode", batch=8, context=2048,
                         errors="keep")
    assert list(frame["error_field"]) == [None, "ep", None]
    assert frame["error"][1] and frame["time_s"][1] != frame["time_s"][1]  # NaN
    assert frame["time_s"][0] > 0 and frame["time_s"][2] > 0
    # an axis value refused before the evaluation is kept the same way
    phases = strata.sweep({"phase": ["decode", "both"]}, model="Mixtral-8x7B", machine="h100_sxm5", batch=8, context=2048,
                          errors="keep")
    assert list(phases["error_field"]) == [None, "phase"] and phases["time_s"][0] > 0
    with pytest.raises(strata.ConfigError) as e:
        strata.sweep({"batch": [1]}, model="Mixtral-8x7B", machine="h100_sxm5", phase="decode", context=8, errors="ignore")
    assert e.value.field == "errors"


def test_plot_without_matplotlib_names_the_package(monkeypatch):
    frame = strata.sweep({"batch": [1, 2]}, model="Mixtral-8x7B", machine="h100_sxm5", phase="decode", context=128)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib.pyplot now raises ImportError
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match="python3-matplotlib"):
        frame.plot()


def test_plot_draws_a_line_per_machine():
    pytest.importorskip("matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    frame = strata.sweep({"machine": ["h100_sxm5", "stratum-s"], "batch": [1, 4, 16]}, model="Mixtral-8x7B", phase="decode",
                         context=2048)
    ax = frame.plot(y="tokens_per_s")
    assert len(ax.get_lines()) == 2 and ax.get_xlabel() == "batch" and ax.get_ylabel() == "tokens_per_s"
    with pytest.raises(strata.ConfigError) as e:
        frame.plot(y="nope")
    assert e.value.field == "y"


class _StubAxes:
    """Records what plot() draws (matplotlib is not installed on every test machine)."""

    def __init__(self):
        self.lines, self.labels, self.legend_shown, self.scales = [], {}, False, {}

    def plot(self, x, y, label=None, **kwargs):
        self.lines.append((list(x), list(y), label, kwargs))

    def legend(self):
        self.legend_shown = True

    def set_xlabel(self, s):
        self.labels["x"] = s

    def set_ylabel(self, s):
        self.labels["y"] = s

    def set_xscale(self, s):
        self.scales["x"] = s

    def set_yscale(self, s):
        self.scales["y"] = s


def test_plot_groups_the_other_axes_into_lines(monkeypatch):
    import types
    ax = _StubAxes()
    pyplot = types.ModuleType("matplotlib.pyplot")
    pyplot.subplots = lambda: (None, ax)
    mpl = types.ModuleType("matplotlib")
    mpl.pyplot = pyplot
    monkeypatch.setitem(sys.modules, "matplotlib", mpl)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", pyplot)
    frame = strata.sweep({"machine": ["h100_sxm5", "stratum-s"], "phase": ["decode"], "batch": [1, 4, 16]},
                         model="Mixtral-8x7B", context=2048)
    assert frame.plot(y="tokens_per_J", logx=True) is ax
    # batch (the last numeric axis that varies) on x, a line per machine; phase does not vary
    assert [line[2] for line in ax.lines] == ["machine=h100_sxm5", "machine=stratum-s"]
    assert ax.lines[0][0] == [1, 4, 16] and ax.lines[1][1] == list(frame["tokens_per_J"][3:])
    assert ax.labels == {"x": "batch", "y": "tokens_per_J"} and ax.legend_shown and ax.scales == {"x": "log"}
    with pytest.raises(strata.ConfigError) as e:
        frame.plot(y="nope")
    assert e.value.field == "y"
