"""strata from Python: the models of the strata C++ library (closed-form models of serving
Mixture-of-Experts LLMs on tiered memory) one call away from a notebook.

The results are the JSON documents of the command-line program ``strata-eval`` as Python objects,
built by the same C++ code (``_strata``, a pybind11 module over the same headers), in SI units:
``evaluate(...)`` equals ``strata-eval eval --json --units si`` and ``serve(scenario)`` equals
``strata-eval serve --json``, to the last digit; ``sweep(axes, **fixed)`` evaluates a grid of
points into a DataFrame with the same numbers, ``explain(row_id)`` and ``hcrmap(...)`` equal
``strata-eval explain --json`` and ``strata-eval hcrmap --json``; ``run(scenario)`` is the table of
``strata-eval run SCENARIO`` as a DataFrame. See docs/python.md.

    >>> import strata
    >>> r = strata.evaluate(model="Mixtral-8x7B", machine="h100_sxm5", phase="decode",
    ...                     batch=8, context=2048)
    >>> r["time_s"], r["tokens_per_s"]
"""

import os as _os
import warnings as _warnings

from . import _strata

__version__ = _strata.__version__
__all__ = [
    "ConfigError", "StrataWarning", "Model", "Machine", "Result",
    "preset_names", "machine_names", "model", "machine", "preset", "load_hf_config", "load_machine", "evaluate", "serve", "paper_rows", "data_dir",
    "sweep", "SweepFrame", "explain", "hcrmap", "run", "StepResult",
]


class ConfigError(ValueError):
    """An input strata refuses: ``field`` names the parameter, option or JSON path."""

    def __init__(self, message, field=""):
        super().__init__(message)
        self.field = field


_strata._set_config_error(ConfigError)


class StrataWarning(UserWarning):
    """A warning of the library (ignored config keys, a degree that does not fit, a trace note)."""


def _warn(lines):
    for w in lines:
        _warnings.warn(w[len("warning: "):] if w.startswith("warning: ") else w, StrataWarning, stacklevel=3)


def _html_table(rows):
    """A list of flat dicts as an HTML table (no pandas needed)."""
    import html
    cols = []
    for r in rows:
        for k in r:
            if k not in cols:
                cols.append(k)
    head = "".join("<th>%s</th>" % html.escape(str(c)) for c in cols)
    body = "".join("<tr>%s</tr>" % "".join("<td>%s</td>" % html.escape(str(r.get(c, ""))) for c in cols) for r in rows)
    return "<table><thead><tr>%s</tr></thead><tbody>%s</tbody></table>" % (head, body)


class _Params:
    """Fields of a C++ parameter struct as attributes (quantities as plain SI floats)."""

    __slots__ = ("_h",)

    def __init__(self, handle):
        object.__setattr__(self, "_h", handle)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return self._h.get(name)

    def __setattr__(self, name, value):
        self._h.set(name, value)

    def __dir__(self):
        return list(self.fields()) + ["to_dict", "to_json", "copy", "validate", "fields"]

    def fields(self):
        """The field names, in the order of the C++ struct."""
        return list(self.to_dict().keys())

    def to_dict(self):
        """Every field as a dict (quantities as SI floats, nested structs as dicts)."""
        return self._h.to_dict()

    def to_json(self):
        """The struct as strata's JSON (quantities as strings with units), as the C++ writes it."""
        return self._h.to_json()

    def validate(self):
        """Raises ConfigError naming the first field out of range."""
        self._h.validate()

    def copy(self):
        return type(self)(self._h.copy())

    def __eq__(self, other):
        return type(self) is type(other) and self.to_dict() == other.to_dict()

    def __repr__(self):
        d = self.to_dict()
        name = d.get("name", "")
        return "%s(%r)" % (type(self).__name__, name)

    def _repr_html_(self):
        return _html_table([{"field": k, "value": v} for k, v in self.to_dict().items()])


class Model(_Params):
    """A model (``strata::model``): a preset or a Hugging Face config.json, every field readable
    and settable (``m.experts``, ``m.top_k = 4``); pass it to ``evaluate(model=m, ...)``."""

    __slots__ = ()

    @property
    def ignored_keys(self):
        """The config.json keys the reader ignored although they may change cost."""
        return list(self._h.ignored_keys)

    @classmethod
    def from_dict(cls, d):
        """A model from ``to_dict()``'s form (unknown keys raise ConfigError)."""
        return cls(_strata._Model.from_dict(d))


class Machine(_Params):
    """A machine: a GPU card (``gpu_params``), a roofline machine (``roofline_machine``) or a
    Stratum system (``stratum_system_params``); ``kind`` says which. Fields in SI units."""

    __slots__ = ()

    @property
    def kind(self):
        return self._h.kind

    @property
    def preset(self):
        """The GPU preset's name; empty for a file, a Stratum system or a modified card."""
        return self._h.preset

    def fields(self):
        return list(self._h.field_names())

    def save(self, path):
        """Writes the machine as JSON ``strata-eval eval --machine`` reads (GPU or roofline)."""
        if self.kind == "stratum":
            raise ConfigError("a Stratum system has no machine file; name it by its preset", "machine")
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.to_json())
            f.write("\n")

    def __repr__(self):
        return "Machine(%r, kind=%r)" % (self.to_dict().get("name", ""), self.kind)


def preset_names():
    """The model presets, in the order ``strata-eval list`` prints them."""
    return list(_strata.preset_names())


def machine_names():
    """The machine presets: the GPU presets, then the Stratum systems."""
    return list(_strata.machine_names())


def _installed_data_dir():
    """<prefix>/share/strata for a package installed in <prefix>/lib/pythonX.Y/site-packages."""
    here = _os.path.dirname(_os.path.abspath(__file__))
    if _os.path.basename(_os.path.dirname(here)) not in ("site-packages", "dist-packages"):
        return ""
    d = _os.path.normpath(_os.path.join(here, "..", "..", "..", "..", "share", "strata"))
    return d if _os.path.isdir(d) else ""


def data_dir():
    """strata's data directory, as the programs find it: STRATA_DATA_DIR (non-empty), else
    <prefix>/share/strata for an installed package, else the source tree's tests/data for the
    build tree's module (the directory it was built with)."""
    env = _os.environ.get("STRATA_DATA_DIR")
    return env or _installed_data_dir() or _strata.data_dir()


def model(name_or_path):
    """A model preset (case-insensitive, '-' = '_') or a Hugging Face config.json, as
    ``strata-eval --model`` reads it; the reader's warnings become StrataWarning."""
    if isinstance(name_or_path, Model):
        return name_or_path.copy()
    h = _strata._Model.load(_os.fspath(name_or_path))
    _warn(h.warnings)
    return Model(h)


def preset(name):
    """The model preset ``name`` (``preset_names()``; case-insensitive, '-' = '_'), as the library's
    ``strata::preset`` gives it; a path is refused (``load_hf_config`` reads a config.json)."""
    if isinstance(name, Model) or _os.path.exists(_os.fspath(name)):
        raise ConfigError("preset: %r is not a preset name (strata.load_hf_config reads a config.json)" % (name,), "model")
    return model(name)


def load_hf_config(path):
    """The model of a Hugging Face ``config.json`` at ``path`` (``strata::load_hf_config``); the
    reader's warnings become StrataWarning. A path that is not a regular file is refused."""
    if not _os.path.isfile(_os.fspath(path)):
        raise ConfigError("load_hf_config: %r is not a regular file" % (_os.fspath(path),), "model")
    return model(path)


def load_machine(path, knobs=None):
    """The machine of a machine JSON file at ``path`` (as ``strata-eval --machine FILE`` reads it; a
    GPU, a Stratum system). A path that is not a regular file is refused (``machine`` takes presets)."""
    if not _os.path.isfile(_os.fspath(path)):
        raise ConfigError("load_machine: %r is not a regular file" % (_os.fspath(path),), "machine")
    return machine(path, knobs)


def machine(preset_or_path, knobs=None):
    """A GPU preset, a Stratum system or a machine JSON file, as ``strata-eval --machine`` reads
    it; ``knobs`` ("cited", the default, or "fitted") is ``--gpu-knobs`` (presets only)."""
    if isinstance(preset_or_path, Machine):
        return preset_or_path.copy()
    return Machine(_strata._Machine.load(_os.fspath(preset_or_path), knobs or "cited", knobs is not None))


def _frame(rows):
    try:
        import pandas
    except ImportError:
        return rows
    return pandas.DataFrame(rows)


class Result(dict):
    """A result: the CLI's JSON as a dict (``r["time_s"]``), rendered as a table in a notebook."""

    def _repr_html_(self):
        flat = [{"key": k, "value": v} for k, v in self.items() if not isinstance(v, (list, dict)) and not _is_frame(v)]
        return _html_table(flat)


def _is_frame(v):
    return type(v).__name__ == "DataFrame"


def _number_text(v):
    """A number for a notebook table: 4 significant digits (the CLI's human text), else as is."""
    return "%.4g" % v if isinstance(v, float) else v


class StepResult(Result):
    """The result of ``evaluate``: the dict of ``strata-eval eval --json --units si``, whose operator
    rows (``ops``) ``by_kind()`` sums per operator class, ``plot()`` draws as bars and a notebook
    shows under the step's scalars (``_repr_html_``)."""

    def _op_rows(self):
        ops = self.get("ops")
        if ops is None:
            return []
        if _is_frame(ops):  # a row lacks a column another row has: NaN in the frame
            return [{k: v for k, v in r.items() if not (isinstance(v, float) and v != v)}
                    for r in ops.to_dict(orient="records")]
        return list(ops)

    def by_kind(self, frame=True):
        """The operator rows summed per class: one row per ``kind`` (per ``name`` where the rows
        have no kind: the layer runs of an expert-parallel step, each row's time and energy per
        layer, counted ``layers`` times) with ``operators``, ``time_s``, ``time_share`` (of the
        summed time, which is the step's on a GPU; a Stratum step's stages overlap) and
        ``energy_J`` when the rows have it (a GPU's dynamic energy, a Stratum step's whole energy),
        the most time first (ties in order of first appearance). A DataFrame when pandas is importable and ``frame``,
        else a list of dicts; empty when the result has no operator rows."""
        rows = self._op_rows()
        by = "kind" if rows and all("kind" in r for r in rows) else "name"
        energy = bool(rows) and all("energy_J" in r for r in rows)
        groups = {}
        for r in rows:
            g = groups.setdefault(r.get(by), {by: r.get(by), "operators": 0, "time_s": 0.0})
            n = r.get("layers", 1)  # a layer run's row: per layer, for `layers` layers
            g["operators"] += n
            g["time_s"] += r.get("time_s", 0.0) * n if n != 1 else r.get("time_s", 0.0)
            if energy:
                g["energy_J"] = g.get("energy_J", 0.0) + (r["energy_J"] * n if n != 1 else r["energy_J"])
        total = sum(g["time_s"] for g in groups.values())
        out = sorted(groups.values(), key=lambda g: -g["time_s"])  # stable: ties keep their order
        for g in out:
            g["time_share"] = g["time_s"] / total if total > 0 else float("nan")
        cols = [by, "operators", "time_s", "time_share"] + (["energy_J"] if energy else [])
        out = [{c: g[c] for c in cols} for g in out]
        if not frame:
            return out
        try:
            import pandas
        except ImportError:
            return out
        return pandas.DataFrame(out, columns=cols)

    def plot(self, y=None, ax=None, **kwargs):
        """The step's operator time (and energy, when the rows have it) by operator class as
        horizontal bars, the class of most time on top (``by_kind()``), one panel per column of
        ``y`` (``"time_s"``, ``"energy_J"`` or a list; default: both that are present). Returns the
        matplotlib Axes (a list of them for more than one column); ``ax`` draws into given Axes
        (one per column). Needs matplotlib (an ImportError naming python3-matplotlib otherwise);
        ``kwargs`` go to ``Axes.barh``."""
        try:
            import matplotlib.pyplot as plt
        except ImportError as e:
            raise ImportError(_PLOT_HINT) from e
        rows = self.by_kind(frame=False)
        if not rows:
            raise ConfigError("plot: the result has no operator rows (ops) to draw", "ops")
        by = next(iter(rows[0]))
        present = [c for c in ("time_s", "energy_J") if c in rows[0]]
        ys = present if y is None else ([y] if isinstance(y, str) else list(y))
        for c in ys:
            if c not in present:
                raise ConfigError("plot: no operator column %r (columns: %s)" % (c, ", ".join(present)), "y")
        if not ys:
            raise ConfigError("plot: no column to draw", "y")
        fig = None
        if ax is None:
            fig, axes = plt.subplots(1, len(ys), squeeze=False, figsize=(6.0 * len(ys), 1.0 + 0.3 * len(rows)))
            axes = list(axes[0])
        else:
            axes = [ax] if len(ys) == 1 and not isinstance(ax, (list, tuple)) else list(ax)
            if len(axes) != len(ys):
                raise ConfigError("plot: %d Axes for %d columns (%s)" % (len(axes), len(ys), ", ".join(ys)), "ax")
        labels = [str(r[by]) for r in rows]
        where = list(range(len(rows)))
        # Two lines: side by side, one line each would run into the next panel's title.
        what = "%s on %s\n%s, batch %s, context %s" % (self.get("model", "?"), self.get("machine", "?"),
                                                      self.get("phase", "?"), self.get("batch", "?"),
                                                      self.get("context", "?"))
        for a, c in zip(axes, ys):
            a.barh(where, [r[c] for r in rows], **kwargs)
            a.set_yticks(where)
            a.set_yticklabels(labels)
            a.invert_yaxis()  # the class of most time on top
            a.set_xlabel(c)
            a.set_ylabel(by)
            a.set_title(what)
        if fig is not None:
            fig.tight_layout()  # the class names and the titles inside the figure
        return axes[0] if len(axes) == 1 else axes

    def _repr_html_(self):
        html = Result._repr_html_(self)
        rows = self.by_kind(frame=False)
        if rows:
            html += "<p>operators by class (<code>by_kind()</code>)</p>" + _html_table(
                [{k: _number_text(v) for k, v in r.items()} for r in rows])
        return html


def evaluate(model, machine, phase, batch, context, ops_frame=True, **options):
    """One serving step, as ``strata-eval eval --json --units si``: a dict with the same keys and
    numbers. ``model``/``machine``: a name, a path, or a Model/Machine. ``options``: the CLI's
    options with '_' for '-': devices, max_devices, ep, attention, redundant_experts,
    ep_imbalance, trace, trace_position, trace_seed, trace_reuse, no_tiering, hbm_nmp, detail,
    expert_mapping, hit_rate. ``ops`` is a pandas DataFrame when pandas is importable (and
    ``ops_frame``), else a list of dicts. The result is a ``StepResult``: ``by_kind()`` sums the
    operator rows per class, ``plot()`` draws them."""
    m = model if isinstance(model, Model) else globals()["model"](model)
    mach = machine if isinstance(machine, Machine) else globals()["machine"](machine)
    kw = dict(options)
    kw.update(phase=phase, batch=batch, context=context)
    if "trace" in kw and kw["trace"] is not None:
        kw["trace"] = _os.fspath(kw["trace"])
    out, warns = _strata.evaluate(m._h, mach._h, kw)
    _warn(warns)
    r = StepResult(out)
    if ops_frame and "ops" in r:
        r["ops"] = _frame(r["ops"])
    return r


def serve(scenario, base_dir=None, data_dir=None):
    """A serving scenario (the JSON of ``strata-eval serve``, as a dict) on Stratum and its GPU
    baseline: the dict of ``strata-eval serve --json``. Relative paths in the scenario are taken in
    ``base_dir`` (default: the working directory) when a file is there, else in the data
    directory."""
    if isinstance(scenario, (str, bytes, _os.PathLike)):
        raise ConfigError("serve takes the scenario as a dict (json.load the file; pass its folder as base_dir)", "scenario")
    data = _os.fspath(data_dir) if data_dir else globals()["data_dir"]()
    return Result(_strata.serve(scenario, _os.fspath(base_dir) if base_dir else "", data))


def _data_dir_and_hint(data_dir):
    """The data directory (``data_dir=``, else ``data_dir()``) and how a message names it."""
    explicit = data_dir is not None
    data = _os.fspath(data_dir) if explicit else globals()["data_dir"]()
    how = "data_dir= or STRATA_DATA_DIR chooses the data directory"
    hint = ("data directory '%s' (from %s; %s)" % (data, "data_dir=" if explicit else "strata.data_dir()", how) if data
            else "no data directory found (%s)" % how)
    return data, hint


def run(scenario, base_dir=None, data_dir=None, threads=0, frame=True):
    """A design-space study from a scenario (``strata-eval run SCENARIO``; the studies of
    examples/scenarios/, read by strata/report/scenario_json.hpp): its table, the rows and columns
    the CLI writes as CSV or JSON Lines (``index``, the axes, the outputs; the optimise study:
    ``design`` and its columns), the same numbers, as a pandas DataFrame (``attrs``: ``scenario``,
    ``study`` and, for optimise, the CLI's ``summary``); a list of dicts, each equal to a line of
    ``--format jsonl`` (None where it writes null), when pandas is absent or ``frame=False``.

    ``scenario`` is a file's path (read as the CLI reads it: a regular file within
    ``limits().json_file_bytes``; its trace and checkpoint paths are taken beside it first, then in
    the data directory) or its JSON as a dict (paths taken in ``base_dir``, default the working
    directory, then in the data directory). ``data_dir``: default ``data_dir()``. ``threads``: as
    ``--threads`` (0: the machine's cores). A bad key, value or point raises ConfigError naming the
    JSON path or the point's field, as the CLI's message does."""
    if isinstance(scenario, bytes):
        scenario = _os.fsdecode(scenario)
    if isinstance(scenario, (str, _os.PathLike)):
        arg = _os.fspath(scenario)
        if base_dir is not None:
            raise ConfigError("base_dir is for a scenario given as a dict: a file's paths are taken beside it", "base_dir")
    elif isinstance(scenario, dict):
        arg = scenario
    else:
        raise ConfigError("run takes a scenario file's path or its JSON as a dict, got %s" % type(scenario).__name__,
                          "scenario")
    if isinstance(threads, bool) or not isinstance(threads, int) or not 0 <= threads <= 1024:
        raise ConfigError("threads must be an integer in [0, 1024] (0: the machine's cores), got %r" % (threads,),
                          "threads")
    data, hint = _data_dir_and_hint(data_dir)
    order, cols, summary, name, study = _strata.run(arg, _os.fspath(base_dir) if base_dir is not None else "", data,
                                                    hint, threads)
    pandas = None
    if frame:
        try:
            import pandas
        except ImportError:
            pandas = None
    if pandas is not None:
        df = pandas.DataFrame({c: cols[c] for c in order}, columns=list(order))
        df.attrs["scenario"] = name
        df.attrs["study"] = study
        if summary:
            df.attrs["summary"] = summary
        return df
    lists = [cols[c].tolist() if hasattr(cols[c], "tolist") else list(cols[c]) for c in order]
    finite = lambda v: v if not isinstance(v, float) or v - v == 0 else None  # nan, inf: null, as the JSON Lines
    return [{c: finite(col[i]) for c, col in zip(order, lists)} for i in range(len(lists[0]) if lists else 0)]


def paper_rows(only=None, threads=0, frame=False, data_dir=None):
    """The rows of the paper report (``strata-paper-report --json``): a list of dicts (a DataFrame
    with ``frame=True`` when pandas is importable). ``only``: the families to compute (the
    program's ``--only`` names); every family when None (minutes: the HCRMap experiments run)."""
    if isinstance(only, str):
        only = [only]
    data = _os.fspath(data_dir) if data_dir else globals()["data_dir"]()
    rows = _strata.paper_rows(list(only or []), int(threads), data)
    return _frame(rows) if frame else rows


# ---- sweeps ------------------------------------------------------------------------------------

_PLOT_HINT = ("strata: plot() draws with matplotlib, which is not importable here "
              "(Debian: apt-get install python3-matplotlib; elsewhere: pip install matplotlib)")


def _require_pandas(what):
    try:
        import pandas
    except ImportError as e:
        raise ImportError("strata: %s returns a pandas DataFrame, and pandas is not importable here "
                          "(Debian: apt-get install python3-pandas; elsewhere: pip install pandas)" % what) from e
    return pandas


def _sweep_frame_class():
    """SweepFrame, made on first use (pandas is optional for the rest of the package)."""
    global SweepFrame
    if isinstance(SweepFrame, type):
        return SweepFrame
    pandas = _require_pandas("sweep")

    class _SweepFrame(pandas.DataFrame):
        """The DataFrame of ``sweep``: one row per point, the axis columns (``attrs["strata_axes"]``)
        then the result columns, in SI units; ``plot()`` draws a result against an axis."""

        @property
        def _constructor(self):
            return _SweepFrame

        @property
        def axes_names(self):
            """The sweep's axes, in the order given."""
            return list(self.attrs.get("strata_axes", []))

        def plot(self, y="tokens_per_s", x=None, ax=None, logx=False, logy=False, **kwargs):
            """``y`` against the axis ``x`` (default: the last numeric axis of more than one value),
            one line per combination of the other axes that vary; returns the matplotlib Axes.
            Needs matplotlib (an ImportError naming python3-matplotlib otherwise); ``kwargs`` go to
            ``Axes.plot``."""
            try:
                import matplotlib.pyplot as plt
            except ImportError as e:
                raise ImportError(_PLOT_HINT) from e
            if y not in self.columns:
                raise ConfigError("plot: no column %r (columns: %s)" % (y, ", ".join(map(str, self.columns))), "y")
            varying = [a for a in self.axes_names if a in self.columns and self[a].nunique(dropna=False) > 1]
            if x is None:
                numeric = [a for a in varying if pandas.api.types.is_numeric_dtype(self[a])]
                x = numeric[-1] if numeric else (varying[-1] if varying else None)
            if x is None or x not in self.columns:
                raise ConfigError("plot: no axis to draw against (pass x=)", "x")
            others = [a for a in varying if a != x]
            if ax is None:
                _, ax = plt.subplots()
            kwargs.setdefault("marker", "o")
            if others:
                by = others[0] if len(others) == 1 else others  # one key: a scalar (pandas' FutureWarning)
                for key, g in pandas.DataFrame(self).groupby(by, sort=False):
                    key = key if isinstance(key, tuple) else (key,)
                    label = ", ".join("%s=%s" % (a, v) for a, v in zip(others, key))
                    ax.plot(g[x], g[y], label=label, **kwargs)
                ax.legend()
            else:
                ax.plot(self[x], self[y], label=y, **kwargs)
            ax.set_xlabel(x)
            ax.set_ylabel(y)
            if logx:
                ax.set_xscale("log")
            if logy:
                ax.set_yscale("log")
            return ax

    _SweepFrame.__name__ = _SweepFrame.__qualname__ = "SweepFrame"
    SweepFrame = _SweepFrame
    return SweepFrame


SweepFrame = None  # the class, once pandas is imported (``sweep`` makes it)


def _axis_label(v):
    """An axis value as its column shows it: a Model by its name, a Machine by how it was named."""
    if isinstance(v, Model):
        return v.name
    if isinstance(v, Machine):
        return v._h.arg
    if isinstance(v, _os.PathLike):
        return _os.fspath(v)
    return v


def _flat(r, prefix="", out=None):
    """The scalars of a (nested) dict with '.'-joined keys; lists and frames are left out."""
    out = {} if out is None else out
    for k, v in r.items():
        key = prefix + str(k)
        if isinstance(v, dict):
            _flat(v, key + ".", out)
        elif not isinstance(v, (list, tuple)) and not _is_frame(v):
            out[key] = v
    return out


def sweep(axes, fn=None, errors="raise", **fixed):
    """Every point of the cartesian product of ``axes`` (a dict: name -> list of values; the last
    axis varies fastest) as one row of a DataFrame (a ``SweepFrame``): the axis columns, then the
    results in SI units.

    Without ``fn``, each point is ``evaluate(**fixed, **point)`` computed in C++ as a flat row
    (strata/report/eval_row.hpp): the scalar keys of ``strata-eval eval --json --units si`` for that
    point, nested ones joined by '.' (``bytes_B.weights``), with the same numbers, without the
    breakdown tree, the operator rows or a JSON document per point; ``model`` and ``machine`` may be
    axes (names, paths, Model or Machine objects, each loaded once). With ``fn``, each point is
    ``fn(**fixed, **point)``, whose dict (its scalars, nested keys joined by '.') or value (column
    ``value``) is the row. ``errors="keep"`` keeps a refused point as a row with its message in the
    column ``error`` (and ``error_field``) instead of raising ConfigError."""
    pandas = _require_pandas("sweep")
    import itertools
    if not isinstance(axes, dict) or not axes:
        raise ConfigError("axes must be a non-empty dict of name -> list of values", "axes")
    if errors not in ("raise", "keep"):
        raise ConfigError("errors must be raise or keep, got %r" % (errors,), "errors")
    names = [str(n) for n in axes]
    values = []
    for n in names:
        v = axes[n]
        if isinstance(v, (str, bytes)) or not hasattr(v, "__iter__"):
            raise ConfigError("axis %s must be a list of values, got %r" % (n, v), n)
        v = list(v)
        if not v:
            raise ConfigError("axis %s has no values" % n, n)
        values.append(v)
    for n in names:
        if n in fixed:
            raise ConfigError("%s is both an axis and a fixed argument" % n, n)
    points = list(itertools.product(*values))
    columns = {n: [_axis_label(p[i]) for p in points] for i, n in enumerate(names)}
    error_rows = []
    if fn is None:
        load = {"model": globals()["model"], "machine": globals()["machine"]}
        loaded = {}

        def handle(kind, v):
            if isinstance(v, (Model, Machine)):
                return v._h
            key = (kind, _os.fspath(v) if isinstance(v, _os.PathLike) else v)
            if key not in loaded:
                loaded[key] = load[kind](v)._h
            return loaded[key]

        vals = [[handle(n, v) for v in vs] if n in load else [_os.fspath(v) if isinstance(v, _os.PathLike) else v for v in vs]
                for n, vs in zip(names, values)]
        fix = {k: (handle(k, v) if k in load and v is not None else v) for k, v in fixed.items()}
        if "trace" in fix and isinstance(fix["trace"], _os.PathLike):
            fix["trace"] = _os.fspath(fix["trace"])
        result, warns, error_rows = _strata.sweep(names, vals, fix, errors == "keep")
        _warn(warns)
    else:
        rows = []
        for i, p in enumerate(points):
            kw = dict(fixed)
            kw.update(zip(names, p))
            try:
                r = fn(**kw)
            except ConfigError as e:
                if errors != "keep":
                    raise
                error_rows.append((i, e.field, str(e)))
                rows.append({})
                continue
            rows.append(_flat(r) if isinstance(r, dict) else {"value": r})
        result = pandas.DataFrame(rows).to_dict(orient="series") if rows else {}
    for k, col in result.items():
        if k in columns:
            if list(columns[k]) == list(col):
                continue  # the axis's own value (devices): one column
            k = "result." + k
        columns[k] = col
    if errors == "keep":
        err = [None] * len(points)
        field = [None] * len(points)
        for i, f, msg in error_rows:
            err[i], field[i] = msg, f
        columns["error"] = err
        columns["error_field"] = field
    frame = _sweep_frame_class()(columns)
    frame.attrs["strata_axes"] = names
    return frame


# ---- explain and hcrmap -------------------------------------------------------------------------

def explain(row_id, threads=0, data_dir=None):
    """A check row of the paper report out of tolerance explained: the dict of ``strata-eval
    explain ROW --json`` (its derivation, elasticities, the change of each parameter that closes
    it, the family line), or ``{"id", "explained": False, "reason"}`` for a row within tolerance,
    not a check, or not re-evaluated (hcrmap.*, stratum.thermal.*). Computes the report family
    that holds the row (seconds). ``threads``: as ``--threads`` (0: the machine's cores; the same
    explanation for every count). ``data_dir``: where the report's inputs are found, as the
    program finds them (the campaign runs' config.json fixtures, the real DeepSeek-V2-Lite trace,
    the controller's checkpoint); default ``data_dir()``. A row the explainer does not know raises
    ConfigError("row")."""
    if isinstance(threads, bool) or not isinstance(threads, int) or not 0 <= threads <= 1024:
        raise ConfigError("threads must be an integer in [0, 1024] (0: the machine's cores), got %r" % (threads,),
                          "threads")
    data = _os.fspath(data_dir) if data_dir else globals()["data_dir"]()
    return Result(_strata.explain(str(row_id), threads, data))


def hcrmap(model, mode, trace=None, policy="all", drift_tasks=None, drift_sequences=None, drift_seed=None,
           checkpoint=None, order=None, layers=None, max_windows=None, batch=None, context=None, trace_reuse=False,
           data_dir=None):
    """A routing trace replayed through HCRMap and the policies it is compared with: the dict of
    ``strata-eval hcrmap --model MODEL --mode MODE ... --json --units si`` for the same arguments
    (``trace``: one path or a list, served one after the other; relative paths in the working
    directory, then in the data directory; or ``drift_tasks`` for the synthetic task switch).
    HCRMap decides with ``checkpoint``, else the data directory's hcrmap/dqn_checkpoint.json, else
    the greedy rule (a StrataWarning says so). Options that do not apply raise ConfigError naming
    them."""
    m = model if isinstance(model, Model) else globals()["model"](model)
    if trace is not None:
        trace = [_os.fspath(trace)] if isinstance(trace, (str, bytes, _os.PathLike)) else [_os.fspath(t) for t in trace]
    data, hint = _data_dir_and_hint(data_dir)
    kw = dict(mode=mode, trace=trace, policy=policy, drift_tasks=drift_tasks, drift_sequences=drift_sequences,
              drift_seed=drift_seed, checkpoint=_os.fspath(checkpoint) if checkpoint is not None else None, order=order,
              layers=layers, max_windows=max_windows, batch=batch, context=context, trace_reuse=bool(trace_reuse),
              data_dir=data, data_hint=hint)
    out, warns = _strata.hcrmap(m._h, kw)
    _warn(warns)
    return Result(out)
