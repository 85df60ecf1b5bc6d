"""A step's breakdown: StepResult.by_kind() sums the CLI's operator rows per class, plot() draws
them (matplotlib optional: a stand-in records what is drawn where matplotlib is not installed),
_repr_html_ shows the table; none of them changes a number of the result."""

import copy
import sys
import types

import pytest

import strata
from conftest import cli_json, eval_args

GPU = dict(model="Mixtral-8x7B", machine="h100_sxm5", phase="decode", batch=8, context=2048)
STRATUM = dict(model="Mixtral-8x7B", machine="stratum-s", phase="decode", batch=8, context=2048)
EP = dict(model="Mixtral-8x7B", machine="h100_sxm5", phase="decode", batch=8, context=2048, ep=4)


def sums_by(ops, by, col):
    """The CLI's rows summed per `by`, in row order (the order by_kind adds them)."""
    out = {}
    for r in ops:
        out[r[by]] = out.get(r[by], 0.0) + r[col]
    return out


@pytest.mark.parametrize("case", [GPU, STRATUM], ids=["gpu", "stratum"])
def test_by_kind_sums_the_cli_rows(case):
    rows = strata.evaluate(**case).by_kind(frame=False)
    ops = cli_json(*eval_args(**case))["ops"]
    time, energy = sums_by(ops, "kind", "time_s"), sums_by(ops, "kind", "energy_J")
    assert [r["kind"] for r in rows] == sorted(time, key=lambda k: -time[k])  # most time first
    for r in rows:
        assert r["time_s"] == time[r["kind"]] and r["energy_J"] == energy[r["kind"]]
        assert r["operators"] == sum(1 for o in ops if o["kind"] == r["kind"])
    assert sum(r["operators"] for r in rows) == len(ops)
    assert sum(r["time_share"] for r in rows) == pytest.approx(1.0, rel=1e-12)


def test_by_kind_conserves_the_step():
    g = strata.evaluate(**GPU)
    rows = g.by_kind(frame=False)
    # GPU: each row includes its all-reduce, so the classes add up to the step's time and its
    # dynamic energy (the static power is the step's, no operator's).
    assert sum(r["time_s"] for r in rows) == pytest.approx(g["time_s"], rel=1e-9)
    assert sum(r["energy_J"] for r in rows) == pytest.approx(g["dynamic_energy_J"], rel=1e-9)
    assert g["dynamic_energy_J"] < g["energy_J"]
    s = strata.evaluate(**STRATUM)
    # Stratum: the energies add up to the step's (the stages' times overlap, the energies do not).
    assert sum(r["energy_J"] for r in s.by_kind(frame=False)) == pytest.approx(s["energy_J"], rel=1e-9)


def test_by_kind_of_expert_parallel_rows_is_by_name():
    r = strata.evaluate(**EP)
    rows = r.by_kind(frame=False)
    ops = r._op_rows()
    assert "kind" not in ops[0] and list(rows[0])[0] == "name"
    # A layer run's row is per layer: counted once per layer it stands for, the step is conserved.
    assert sum(x["operators"] for x in rows) == sum(o["layers"] for o in ops) > len(ops)
    assert sum(x["time_s"] for x in rows) == pytest.approx(r["time_s"], rel=1e-9)
    assert sum(x["energy_J"] for x in rows) == pytest.approx(r["dynamic_energy_J"], rel=1e-9)
    run = next(x for x in rows if x["name"] == "layers 0-31 / routed_experts")
    assert run["operators"] == 32 and run["time_s"] == 32 * next(o for o in ops if o["name"] == run["name"])["time_s"]


def test_by_kind_frame_and_list_agree():
    pandas = pytest.importorskip("pandas")
    r = strata.evaluate(**GPU)
    df = r.by_kind()
    assert isinstance(df, pandas.DataFrame)
    assert df.to_dict(orient="records") == r.by_kind(frame=False)
    assert strata.evaluate(**GPU, ops_frame=False).by_kind(frame=False) == r.by_kind(frame=False)


def test_repr_html_shows_the_breakdown_table():
    r = strata.evaluate(**GPU)
    before = copy.deepcopy(r.by_kind(frame=False))
    html = r._repr_html_()
    assert "operators by class" in html and "<th>kind</th>" in html and "<th>time_share</th>" in html
    for row in before:
        assert "<td>%s</td>" % row["kind"] in html
    assert "<td>time_s</td>" in html  # the step's scalars come first
    assert r.by_kind(frame=False) == before


class FakeAxes:
    """Records what plot() draws (matplotlib is not installed on every test machine)."""

    def __init__(self):
        self.bars, self.ticks, self.labels, self.inverted, self.xlabel, self.title = None, None, None, False, None, None

    def barh(self, where, values, **kwargs):
        self.bars = (list(where), list(values), kwargs)

    def set_yticks(self, t):
        self.ticks = list(t)

    def set_yticklabels(self, labels):
        self.labels = list(labels)

    def invert_yaxis(self):
        self.inverted = True

    def set_xlabel(self, s):
        self.xlabel = s

    def set_ylabel(self, s):
        self.ylabel = s

    def set_title(self, s):
        self.title = s


def fake_matplotlib(monkeypatch):
    made = []

    def subplots(nrows, ncols, squeeze=True, figsize=None):
        assert nrows == 1 and not squeeze
        row = [FakeAxes() for _ in range(ncols)]
        made.extend(row)
        return None, [row]

    pyplot = types.ModuleType("matplotlib.pyplot")
    pyplot.subplots = subplots
    mpl = types.ModuleType("matplotlib")
    mpl.pyplot = pyplot
    monkeypatch.setitem(sys.modules, "matplotlib", mpl)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", pyplot)
    return made


def test_plot_draws_time_and_energy_by_class(monkeypatch):
    made = fake_matplotlib(monkeypatch)
    r = strata.evaluate(**STRATUM)
    before = copy.deepcopy({k: v for k, v in r.items() if k != "ops"})
    rows = r.by_kind(frame=False)
    axes = r.plot(color="C1")
    assert axes == made and len(axes) == 2
    for ax, col in zip(axes, ["time_s", "energy_J"]):
        assert ax.bars[0] == list(range(len(rows))) and ax.bars[1] == [x[col] for x in rows]
        assert ax.bars[2] == {"color": "C1"}
        assert ax.labels == [x["kind"] for x in rows] and ax.inverted and ax.xlabel == col
        assert "Mixtral-8x7B" in ax.title and "decode" in ax.title
    assert {k: v for k, v in r.items() if k != "ops"} == before


def test_plot_one_column_and_given_axes(monkeypatch):
    made = fake_matplotlib(monkeypatch)
    r = strata.evaluate(**GPU)
    ax = r.plot(y="energy_J")
    assert ax is made[0] and ax.xlabel == "energy_J"
    mine = FakeAxes()
    assert r.plot(y="time_s", ax=mine) is mine and mine.bars[1] == [x["time_s"] for x in r.by_kind(frame=False)]
    two = [FakeAxes(), FakeAxes()]
    assert r.plot(ax=two) == two
    with pytest.raises(strata.ConfigError) as e:
        r.plot(ax=[FakeAxes()])
    assert e.value.field == "ax"
    with pytest.raises(strata.ConfigError) as e:
        r.plot(y="flops")
    assert e.value.field == "y"


def test_plot_without_matplotlib_names_the_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib.pyplot now raises ImportError
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match="python3-matplotlib"):
        strata.evaluate(**GPU).plot()


def test_plot_with_matplotlib():
    pytest.importorskip("matplotlib", reason="matplotlib is not installed (Debian: apt-get install python3-matplotlib)")
    import matplotlib
    matplotlib.use("Agg")
    r = strata.evaluate(**GPU)
    time_ax, energy_ax = r.plot()
    rows = r.by_kind(frame=False)
    assert [p.get_width() for p in time_ax.patches] == [x["time_s"] for x in rows]
    assert [t.get_text() for t in time_ax.get_yticklabels()] == [x["kind"] for x in rows]
    assert energy_ax.get_xlabel() == "energy_J"
