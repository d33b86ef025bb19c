"""The contract every command and lab declares, as one object: what it is called and does, its typed options, how it
runs, the document it returns (schema and version, with migrations from older versions), the environment of its
worker, how its numbers are read (interpretation) and the tables a report shows of it.

The registry (:mod:`rooflab.registry`) collects these objects; the command line (:mod:`rooflab.cli`) and the Python
API (:mod:`rooflab.api`) are both generated from them, so the two cannot drift apart. This module holds only the
declarations: it imports nothing of rooflab but the error type.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, field

from rooflab.errors import RooflabError
from rooflab.paths import MAX_THREADS

# ------------------------------------------------------------------------------------------------------ options


@dataclass(frozen=True)
class Opt:
    """How one field of an options dataclass is offered to users.

    ``flag``: its spelling on the command line (default ``--field-name``); a boolean whose default is True is offered
    as its negation (``negate``, default ``--no-field-name``). ``argument``: a positional argument (``many``: any
    number of them). ``where``: "both", "cli" (a command-line concern, e.g. an exit status) or "api" (only Python
    can pass it, e.g. a callable); "internal" fields are filled by the command itself before it runs. ``parse``
    turns the command line's text into the field's value (``--size n=4096`` into ``{"n": 4096}``)."""

    help: str = ""
    flag: str | None = None
    negate: str | None = None
    negate_help: str = ""  # the command line's help of the negation
    choices: tuple | None = None
    min: float | None = None
    max: float | None = None
    metavar: str | None = None
    argument: bool = False
    many: bool = False
    required: bool = False
    path: str | None = None  # "file" or "dir": a path on the command line
    where: str = "both"
    parse: Callable | None = None


def option(default=MISSING, *, help: str = "", **kw):  # noqa: A002 - the word users see
    """A field of an options dataclass with how it is offered (see :class:`Opt`)."""
    opt = Opt(help=help, **kw)
    if isinstance(default, (list, dict, set)):
        return field(default_factory=lambda d=default: type(d)(d), metadata={"rooflab": opt})
    if default is MISSING:
        return field(metadata={"rooflab": opt})
    return field(default=default, metadata={"rooflab": opt})


def internal(default=None):
    """A field the command fills itself (from ``prepare`` or ``before``): neither a CLI option nor an API argument."""
    return field(default=default, metadata={"rooflab": Opt(where="internal")}, compare=False, repr=False)


@dataclass(frozen=True)
class OptionField:
    name: str
    type: object  # the resolved annotation
    opt: Opt
    default: object  # MISSING when required

    @property
    def cli_flag(self) -> str:
        if self.opt.flag:
            return self.opt.flag
        if self.base is bool and self.default is True:
            return self.opt.negate or "--no-" + self.name.replace("_", "-")
        return "--" + self.name.replace("_", "-")

    @property
    def base(self):
        """The field's type without ``None`` (``int | None`` -> int; ``tuple[str, ...]`` -> tuple)."""
        t = self.type
        args = [a for a in typing.get_args(t) if a is not type(None)]
        if typing.get_origin(t) in (typing.Union, types.UnionType) and len(args) == 1:
            t = args[0]
        return typing.get_origin(t) or t

    @property
    def optional(self) -> bool:
        return type(None) in typing.get_args(self.type)


def option_fields(cls, where: tuple[str, ...] = ("both", "cli", "api")) -> list[OptionField]:
    """The options of an options dataclass offered in ``where`` (internal fields never are)."""
    hints = typing.get_type_hints(cls)
    out = []
    for f in dataclasses.fields(cls):
        opt = f.metadata.get("rooflab") or Opt()
        if opt.where not in where:
            continue
        default = f.default if f.default is not MISSING else (
            f.default_factory() if f.default_factory is not MISSING else MISSING)
        out.append(OptionField(f.name, hints[f.name], opt, default))
    return out


def _check(f: OptionField, v):
    """The value of one option, checked as the command line checks it; a clear error names the option."""
    name = f.name
    if v is None:
        if f.optional or f.default is None:
            return None
        raise RooflabError(f"option {name}: a value is required")
    base = f.base
    if base is bool:
        if not isinstance(v, bool):
            raise RooflabError(f"option {name}: expected True or False, got {v!r}")
        return v
    if base is int:
        if isinstance(v, bool) or not isinstance(v, int):
            raise RooflabError(f"option {name}: expected a whole number, got {v!r}")
    elif base is float:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise RooflabError(f"option {name}: expected a finite number, got {v!r}")
        v = float(v)
    elif base is tuple:
        if isinstance(v, Mapping):  # NAME=VALUE options (--size n=4096) take a dict from Python
            v = tuple(f"{k}={x}" for k, x in v.items())
        if isinstance(v, str) or not isinstance(v, (list, tuple)):
            raise RooflabError(f"option {name}: expected a list, got {v!r}")
        v = tuple(v)
    elif base is str:
        if not isinstance(v, str):
            raise RooflabError(f"option {name}: expected text, got {v!r}")
    if f.opt.choices is not None:
        bad = [x for x in (v if base is tuple else (v,)) if x not in f.opt.choices]
        if bad:
            raise RooflabError(f"option {name}: {bad[0]!r} is not one of {', '.join(map(str, f.opt.choices))}")
    if f.opt.min is not None and isinstance(v, (int, float)) and v < f.opt.min:
        raise RooflabError(f"option {name}: {v!r} is below its least value {f.opt.min:g}")
    if f.opt.max is not None and isinstance(v, (int, float)) and v > f.opt.max:
        raise RooflabError(f"option {name}: {v!r} is above its largest value {f.opt.max:g}")
    return v


def make_options(cls, values: Mapping, where: tuple[str, ...] = ("both", "api")):
    """An options object from keyword values, every one checked (unknown names, types, choices, ranges): the API
    and the command line build their options here."""
    fields_ = {f.name: f for f in option_fields(cls, where)}
    unknown = [k for k in values if k not in fields_]
    if unknown:
        known = ", ".join(fields_) or "none"
        raise RooflabError(f"unknown option {unknown[0]!r} (the options are: {known})")
    given = {}
    for name, f in fields_.items():
        if name in values:
            given[name] = _check(f, values[name])
        elif f.default is MISSING:
            raise RooflabError(f"option {name} is required")
    return cls(**given)


# ------------------------------------------------------------------------------------------------------ tables

# the formats a column may declare; the renderers format each (rooflab.render.tables)
# ("mark": the label of the row's point on the declared roofline, shown as that point's mark in the terminal)
FORMATS = ("text", "msg", "int", "g", "g6", "f1", "f2", "flops", "bytes_per_s", "bytes", "seconds", "pct", "pct1", "x",
           "x3", "sci", "bits", "bar", "ns", "size", "mark", "ghz", "count")


@dataclass(frozen=True)
class Column:
    """One column: the row's field ``key`` (also the CSV header), its header in English (translated when shown),
    how its value is shown (``fmt``, one of FORMATS), and optionally a function ``value(row, doc)`` that computes it
    and a field ``ci`` holding its confidence interval [lo, hi]. ``report``/``csv``: whether the reports (terminal,
    HTML) and the CSV file have it. ``note``: the row's field giving the reason behind the cell (a status's why), shown
    as a number in the cell and the reason, once, under the table."""

    key: str
    label: str
    fmt: str = "text"
    value: Callable[[dict, dict], object] | None = None
    ci: str | None = None
    report: bool = True
    csv: bool = True
    note: str | None = None

    def __post_init__(self):
        if self.fmt not in FORMATS:
            raise ValueError(f"column {self.key}: unknown format {self.fmt!r}")

    def get(self, row: dict, doc: dict):
        return self.value(row, doc) if self.value is not None else row.get(self.key)


@dataclass(frozen=True)
class Table:
    """A table of a document: ``rows(doc)`` (or the list at the document's key ``rows``), its ``columns``, a title in
    English (``title_args(doc)`` fills it). ``groups(doc)`` makes several tables of one shape, as
    (name suffix, title args, rows) each (one per kernel, one per matrix size). A row with an ``error`` shows "—" in
    the cells it has no value for and the error in ``error_column``. ``footer(doc, args, rows) -> [str]``: lines the
    reports print under it (what a kernel printed, what a figure assumes); ``keyed``: a table of names and values,
    drawn without a header; ``formats``: where it is shown ("text", "html", "csv")."""

    name: str
    title: str | Callable[[dict], str]  # a template in English, or a function giving the title in the language
    columns: tuple[Column, ...]
    rows: str | Callable[[dict], list[dict]] = ""
    title_args: Callable[[dict], dict] | None = None
    groups: Callable[[dict], list[tuple[str, dict, list[dict]]]] | None = None
    error_column: str | None = None
    footer: Callable[[dict, dict, list[dict]], list[str]] | None = None
    keyed: bool = False
    formats: tuple[str, ...] = ("text", "html", "csv")

    def instances(self, doc: dict) -> list[tuple[str, str, dict, list[dict]]]:
        """(file name, title template, title arguments, rows) of each table this declaration makes of ``doc``."""
        if self.groups is not None:
            return [(f"{self.name}_{suffix}" if suffix else self.name, self.title, args, rows)
                    for suffix, args, rows in self.groups(doc)]
        rows = self.rows(doc) if callable(self.rows) else (doc.get(self.rows) or [])
        if not rows:
            return []
        return [(self.name, self.title, self.title_args(doc) if self.title_args else {}, rows)]


# ---------------------------------------------------------------------------------------------------- commands


@dataclass(frozen=True)
class Mpi:
    """How a command runs as an MPI job (``--mpi``): ``share(options, comm, store)`` gives every rank what rank 0
    read (returns the options), ``aggregate(doc, results, options)`` adds the job's aggregates to the job
    document."""

    aggregate: Callable[[dict, list], dict]
    share: Callable | None = None


@dataclass(frozen=True)
class RoofPoint:
    """A point a roofline draws: its label, intensity (FLOP/byte) and FLOP rate, with what a tooltip shows (bytes/s,
    the share of its roof, the CI of its rate); ``flagged``: above its roof (drawn as a cross); ``kernel``: one of
    the user's kernels (numbered on the HTML page) rather than one of rooflab's own sweep."""

    label: str
    intensity: float
    flops_per_s: float
    bytes_per_s: float | None = None
    of_roof: float | None = None
    ci: tuple | list | None = None
    flagged: bool = False
    kernel: bool = False


def _document_roofs(doc: dict) -> dict:
    return doc.get("roofs") or {}


@dataclass(frozen=True)
class Roofline:
    """The roofline a report draws of a document, whatever the format (the ASCII roofline, the plot, the HTML page):
    ``roofs(document) -> {"compute": [{name, value}], "memory": [...]}`` (the document's ``roofs`` unless said
    otherwise), ``points(document) -> [RoofPoint]``, its ``title(document)`` in the reader's language, and whether
    the points are one ``path``, drawn joined in their order."""

    points: Callable[[dict], list[RoofPoint]]
    roofs: Callable[[dict], dict] = _document_roofs
    title: Callable[[dict], str] | None = None
    path: bool = False  # the points are steps of one path (revisions in commit order): joined by arrows in order


@dataclass(frozen=True)
class Line:
    """A line of a report's outline (explain's findings with their evidence): its ``text`` in the reader's language,
    its ``indent`` (in characters), ``strong`` (a name or a finding's title), and an ``aside`` shown beside it
    dimmed."""

    text: str
    indent: int = 0
    strong: bool = False
    aside: str = ""


@dataclass(frozen=True)
class Report:
    """What the reports show of a command's document: its ``tables`` (text, HTML, CSV), ``headline(document) ->
    str`` (the rest of the report's first line), ``interpret(document) -> messages`` (observations written from the
    numbers, after the load check), whether the command line prints it (``shows``: a report command's output is
    its HTML page, nothing more), the ``roofline`` it draws (:class:`Roofline`), ``notes(document) -> [str]``:
    lines after the tables (what was skipped and why), and ``outline(document) -> [Line]``: text with structure,
    after the roofline (explain's findings, each with its evidence and experiments).

    The terminal draws them in this order: heading (``title``, or the command's, then the headline), tables, notes,
    roofline, outline, observations, warnings; the HTML page opens with the roofline."""

    tables: tuple[Table, ...] = ()
    headline: Callable[[dict], str] | None = None
    interpret: Callable[[dict], list] | None = None
    shows: bool = True
    roofline: Roofline | None = None
    notes: Callable[[dict], list[str]] | None = None
    outline: Callable[[dict], list[Line]] | None = None
    title: str | None = None  # the report's first words, where they are not the command's (``rooflab NAME``)


@dataclass(frozen=True)
class Outputs:
    """What a command writes besides the document it prints: the ``files`` it can write (``html``, ``csv``,
    ``plot``), those it cannot run without (``required``: a report is its HTML page), and whether its runs go to
    the store (``stored``)."""

    files: tuple[str, ...] = ("html", "csv")
    required: tuple[str, ...] = ()
    stored: bool = True


@dataclass(frozen=True)
class Hooks:
    """Where a command steps in around its run: ``prepare(options) -> options`` checks and resolves options before
    anything starts (a spec file is read and every mistake in it reported); ``before(options, context) ->
    options`` reads the store or runs other commands first (``context.store``, ``context.run(name, **options)``);
    ``route(options) -> (name, options) | None`` hands these options to another command (``measure --device
    cuda``); ``exit_status(document, options) -> (status, message) | None`` is the command line's exit status."""

    prepare: Callable | None = None
    before: Callable | None = None
    route: Callable | None = None
    exit_status: Callable | None = None


@dataclass(frozen=True)
class Command:
    """One command or lab.

    - ``name``: ``rooflab NAME`` (``rooflab lab NAME`` for a lab) and the API function's name; ``summary``: one line
      (an ``i18n.msg``), the CLI's help and the API's docstring.
    - ``options``: a dataclass whose fields (declared with :func:`option`) are the CLI options and the API's
      keyword arguments.
    - ``run``: ``run(session, options) -> document`` for a command that measures (``needs="session"``);
      ``run(store, options)`` for one that reads the store (``needs="store"``); ``run(options)`` otherwise.
    - ``group`` ("lab" for a lab), ``order`` (its place in the list of its group), ``cli`` (offered on the command
      line, or through another command's ``route`` only).
    - ``kind``/``version``/``migrations``: the document's schema ``rooflab.<kind>/<version>``; ``migrations[v]``
      brings a document of version v to v + 1.
    - ``worker_env``: environment of the worker process that runs its kernels.
    - ``report``: what the reports show of its document (:class:`Report`).
    - ``outputs``: the files it writes and whether it is stored (:class:`Outputs`).
    - ``hooks``: where it steps in around its run (:class:`Hooks`).
    - ``mpi``: how it runs as an MPI job, when it can.
    - ``translations``: the templates of its messages, headers and titles in other languages, where the module
      carries them itself (``{"zh": {english: chinese}}``); the others are in the gettext catalogues
      (``rooflab/i18n/locale/LANG/LC_MESSAGES/rooflab.po``).
    """

    name: str
    summary: dict
    options: type
    run: Callable
    needs: str = "session"
    group: str = ""
    order: int = 100
    cli: bool = True
    kind: str = ""
    version: int = 1
    migrations: Mapping[int, Callable[[dict], dict]] = field(default_factory=dict)
    worker_env: Mapping[str, str] = field(default_factory=dict)
    report: Report = Report()
    outputs: Outputs = Outputs()
    hooks: Hooks = Hooks()
    mpi: Mpi | None = None
    translations: Mapping[str, Mapping[str, str]] = field(default_factory=dict)  # {"zh": {english: chinese}}

    def __post_init__(self):
        if not self.kind:
            object.__setattr__(self, "kind", f"lab.{self.name}" if self.group == "lab" else self.name)
        if self.needs not in ("session", "store", "none"):
            raise ValueError(f"{self.name}: needs is one of session, store, none")
        if not dataclasses.is_dataclass(self.options):
            raise ValueError(f"{self.name}: options must be a dataclass")

    @property
    def schema(self) -> str:
        return f"rooflab.{self.kind}/{self.version}"

    @property
    def title(self) -> str:
        return f"rooflab {'lab ' if self.group == 'lab' else ''}{self.name}"


def Lab(**kw) -> Command:  # noqa: N802 - reads as the declaration it is
    """A lab: a command of the ``lab`` group, stored, with HTML and CSV outputs."""
    return Command(group="lab", **kw)


@dataclass(frozen=True)
class NoOptions:
    """A command without options."""


# ---------------------------------------------------------------------------------------------- common options


def quick_option(help: str = "Fewer variants and samples: a first look."):  # noqa: A002
    return option(False, help=help)


def threads_option(help: str = "Threads (default: all the CPUs this process may use).", minimum: int = 1):  # noqa: A002

    return option(None, min=minimum, max=MAX_THREADS, help=help)


def n_option(default: str):
    return option(None, flag="--n", min=1, help=f"Matrix size ({default}).")


@dataclass(frozen=True)
class QuickOptions:
    """The options of a lab that has no other: a quick first look or the full run."""

    quick: bool = quick_option()


# exit statuses of the command line beyond 0 (done), 2 (a user error, with one line saying what), 130/143 (stopped)
EXIT_SLOWER = 1  # compare --fail-if-slower: B was slower than A
EXIT_NOTHING_MEASURED = 3  # bench: every kernel failed to build, crashed, hung or was wrong
