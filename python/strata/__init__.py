"""strata from Python: the models of the strata C++ library (closed-form models of serving
Mixture-of-Experts LLMs on tiered memory) one call away from a notebook.

The results are the JSON documents of the command-line program ``strata-eval`` as Python objects,
built by the same C++ code (``_strata``, a pybind11 module over the same headers), in SI units:
``evaluate(...)`` equals ``strata-eval eval --json --units si`` and ``serve(scenario)`` equals
``strata-eval serve --json``, to the last digit. See docs/python.md.

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
    "preset_names", "machine_names", "model", "machine", "evaluate", "serve", "paper_rows", "data_dir",
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


def evaluate(model, machine, phase, batch, context, ops_frame=True, **options):
    """One serving step, as ``strata-eval eval --json --units si``: a dict with the same keys and
    numbers. ``model``/``machine``: a name, a path, or a Model/Machine. ``options``: the CLI's
    options with '_' for '-': devices, max_devices, ep, attention, redundant_experts,
    ep_imbalance, trace, trace_position, trace_seed, trace_reuse, no_tiering, hbm_nmp, detail,
    expert_mapping, hit_rate. ``ops`` is a pandas DataFrame when pandas is importable (and
    ``ops_frame``), else a list of dicts."""
    m = model if isinstance(model, Model) else globals()["model"](model)
    mach = machine if isinstance(machine, Machine) else globals()["machine"](machine)
    kw = dict(options)
    kw.update(phase=phase, batch=batch, context=context)
    if "trace" in kw and kw["trace"] is not None:
        kw["trace"] = _os.fspath(kw["trace"])
    out, warns = _strata.evaluate(m._h, mach._h, kw)
    _warn(warns)
    r = Result(out)
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


def paper_rows(only=None, threads=0, frame=False, data_dir=None):
    """The rows of the paper report (``strata-paper-report --json``): a list of dicts (a DataFrame
    with ``frame=True`` when pandas is importable). ``only``: the families to compute (the
    program's ``--only`` names); every family when None (minutes: the HCRMap experiments run)."""
    if isinstance(only, str):
        only = [only]
    data = _os.fspath(data_dir) if data_dir else globals()["data_dir"]()
    rows = _strata.paper_rows(list(only or []), int(threads), data)
    return _frame(rows) if frame else rows
