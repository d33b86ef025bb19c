"""The library's entry points, generated from the registry of commands and labs; the command line calls the same
functions. :func:`call` is the one path every command takes, and the one place that opens measuring sessions:

options checked -> routed -> ``prepare`` -> ``before`` (reads the store, runs other commands) -> a session opened
-> ``run`` -> the document completed (schema, load, warnings, observations) and stored -> files written (HTML,
CSV, plot) -> returned as a :class:`~rooflab.render.notebook.Result` (a dict that draws itself in Jupyter).
"""

from __future__ import annotations

import dataclasses
import inspect
import os

from rooflab import registry
from rooflab.contract import Command, make_options, option_fields
from rooflab.errors import RooflabError
from rooflab.i18n import text
from rooflab.mpi.jobs import job_results, run_job_document, store_job
from rooflab.mpi.session import RankSession, launched_ranks, world
from rooflab.render import files
from rooflab.render.files import check_destinations
from rooflab.render.notebook import Result
from rooflab.render.plot import check_plot_path
from rooflab.results.schema import parse_schema, schema_id
from rooflab.results.store import Store
from rooflab.results.validate import check_document
from rooflab.session import Session


class _Stores:
    """The results store of one call: given as a Store (left open), a path, or None (the default store). It is
    opened when first used, so a command that needs none (``show`` of saved .json files, a run kept out of the
    store) never touches it, and closed at the end when it was opened here."""

    def __init__(self, given):
        self.given = given
        self._opened = None

    @property
    def store(self):
        if self.given is not None and not isinstance(self.given, (str, bytes)) and \
                not hasattr(self.given, "__fspath__"):
            return self.given
        if self._opened is None:
            self._opened = Store(self.given)
        return self._opened

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self._opened is not None:
            self._opened.close()


class _Lazy:
    """The store, opened when a command first uses it (``show`` of saved .json files never does)."""

    def __init__(self, stores: _Stores):
        self._stores = stores

    def __getattr__(self, name: str):
        return getattr(self._stores.store, name)


@dataclasses.dataclass
class Context:
    """What a command's ``before`` may use: the store to read (opened on first use), and other commands to run
    first (stored like any run when this one is)."""

    stores: _Stores
    save: bool
    progress: object

    @property
    def store(self):
        return self.stores.store

    def run(self, name: str, **options) -> dict:
        return call(registry.command(name), options, store=self.stores.store if self.save else None,
                    save=self.save, progress=self.progress)


def refuse_under_launcher(name: str) -> None:
    """Under mpirun without --mpi, N copies would fight over the same cores and the same store: say so (once, from
    the first rank)."""
    n = launched_ranks()
    if n:
        rank = os.environ.get("OMPI_COMM_WORLD_RANK") or os.environ.get("PMI_RANK") or os.environ.get("PMIX_RANK")
        message = (f"this process is one of {n} MPI ranks: run `mpirun -n {n} rooflab {name} --mpi` to measure with "
                   f"all of them together, or run rooflab without a launcher")
        raise RooflabError(message if rank in (None, "0") else "")


def run_in_session(cmd: Command, session, opts) -> dict:
    """Run a command in a session opened by the caller (a test's, with a machine record of its own) and complete
    its document as :func:`call` does: schema, load, warnings, observations, stored."""
    return session.finish({"schema": cmd.schema, **cmd.run(session, opts)}, observe=cmd.report.interpret)


def _mpi_job(cmd: Command, opts, stores: _Stores, save: bool, progress) -> dict | None:
    """Every rank runs the command in its own session, in step with the others; rank 0 assembles, aggregates and
    stores the job (the other ranks return None)."""
    if cmd.mpi is None:
        raise RooflabError(f"{cmd.title} does not run as an MPI job")
    comm = world()
    rank = comm.Get_rank()
    if cmd.mpi.share is not None:
        opts = cmd.mpi.share(opts, comm, stores.store if rank == 0 else None)

    def work(r: int) -> dict:
        with RankSession(cmd.kind, comm, store=None, progress=progress if r == 0 else None,
                         worker_env=dict(cmd.worker_env)) as s:
            return run_in_session(cmd, s, opts)

    doc = run_job_document(comm, work)
    if doc is None:
        return None
    doc = cmd.mpi.aggregate(doc, job_results(doc), opts)
    doc["schema"] = cmd.schema
    if save and cmd.outputs.stored:
        store_job(stores.store, cmd.kind, doc)
    return doc


def _measure(cmd: Command, opts, stores: _Stores, save: bool, progress) -> dict | None:
    if getattr(opts, "mpi", False):
        return _mpi_job(cmd, opts, stores, save, progress)
    if cmd.mpi is not None:
        refuse_under_launcher(cmd.name)
    if cmd.hooks.before is not None:
        opts = cmd.hooks.before(opts, Context(stores, save, progress))
    with Session(cmd.kind, store=stores.store if (save and cmd.outputs.stored) else None, progress=progress,
                 worker_env=dict(cmd.worker_env)) as s:
        return run_in_session(cmd, s, opts)


def resolve(cmd: Command, values: dict, *, cli: bool = False) -> tuple[Command, object]:
    """The command that runs these option values (another one where ``route`` says so) and its options, checked
    and prepared: every mistake in them is reported here, before anything starts."""
    opts = make_options(cmd.options, values, where=("both", "cli") if cli else ("both", "api"))
    if cmd.hooks.route is not None:
        routed = cmd.hooks.route(opts)
        if routed is not None:
            name, vals = routed
            return resolve(registry.command(name), vals)
    if cmd.hooks.prepare is not None:
        opts = cmd.hooks.prepare(opts)
    return cmd, opts


def call(cmd: Command, values: dict, *, store=None, save: bool = True, progress=None, html=None, csv=None,
         plot=None, cli: bool = False) -> Result | None:
    """Run ``cmd`` with option ``values`` and return its document (None on an MPI rank other than 0).

    ``store``: a :class:`~rooflab.results.store.Store`, a path, or None for the default store; ``save`` False (or
    ``store=False``) keeps the run out of it. ``html``, ``csv`` (a folder) and ``plot`` (.png, .svg or .pdf): files
    to write as well, for the commands that have them. ``cli``: the values come from the command line."""
    if store is False:
        store, save = None, False
    asked = {"html": html, "csv": csv, "plot": plot}
    for what, given in asked.items():
        if given and what not in cmd.outputs.files:
            raise RooflabError(f"{cmd.title} writes no {what} file")
    for what in cmd.outputs.required:
        if not asked[what]:
            raise RooflabError(f"{cmd.title} needs --{what} (the file to write)")
    if plot:
        check_plot_path(plot)
    if html or csv:
        check_destinations(html=html, csv=csv)
    cmd, opts = resolve(cmd, values, cli=cli)
    progress = progress or (lambda message: None)
    with _Stores(store) as stores:
        if cmd.needs == "none":
            doc = cmd.run(opts)
        elif cmd.needs == "store":
            doc = cmd.run(_Lazy(stores), opts)
        else:
            doc = _measure(cmd, opts, stores, save, progress)
    if doc is None:
        return None
    doc = Result({"schema": cmd.schema, **doc})
    if os.environ.get("ROOFLAB_CHECK_DOCUMENTS"):  # the test suite: every document written matches its model
        kind = parse_schema(doc["schema"])[0]  # show answers one run or several
        check_document(kind, doc, kind)
    doc.command = cmd
    doc.options = opts

    doc.written = files.write(cmd, doc, html=html, csv=csv, plot=plot)
    return doc


def list_labs() -> dict:
    """The labs, in the order they teach (``rooflab lab --json``)."""
    return {"schema": schema_id("labs"), "labs": [{"name": c.name, "description": text(c.summary, "en")}
                                                   for c in registry.labs().values()]}


# ------------------------------------------------------------------------------------------ generated functions

_COMMON = [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=d)
           for n, d in (("store", None), ("save", True), ("progress", None), ("html", None), ("csv", None),
                        ("plot", None))]


def signature(cmd: Command) -> inspect.Signature:
    """The Python signature of a command: its positional arguments, its options as keywords, then ``store``,
    ``save``, ``progress`` and the files it can write."""
    params = []
    for f in option_fields(cmd.options, ("both", "api")):
        kind = inspect.Parameter.POSITIONAL_OR_KEYWORD if f.opt.argument else inspect.Parameter.KEYWORD_ONLY
        default = inspect.Parameter.empty if f.default is dataclasses.MISSING else f.default
        params.append(inspect.Parameter(f.name, kind, default=default, annotation=f.type))
    positional = [p for p in params if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]
    keyword = [p for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY]
    common = [p for p in _COMMON if p.name in ("store", "save", "progress") or p.name in cmd.outputs.files]
    return inspect.Signature(positional + keyword + common)


def _doc(cmd: Command) -> str:
    summary = text(cmd.summary, "en")
    lines = [summary[:1].upper() + summary[1:] + ".", "",
             f"Returns the `{cmd.title}` document (``{cmd.schema}``).", "", "Options:"]
    for f in option_fields(cmd.options, ("both", "api")):
        lines.append(f"    {f.name}: {f.opt.help}")
    return "\n".join(lines)


def function(cmd: Command):
    """The Python function of a command or lab, with the signature :func:`signature` gives."""
    sig = signature(cmd)
    common_names = [p.name for p in _COMMON]

    def fn(*args, **kwargs):
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as exc:
            raise RooflabError(f"{cmd.title}: {exc}") from None
        values = dict(bound.arguments)
        common = {k: values.pop(k) for k in common_names if k in values}
        return call(cmd, values, **common)

    fn.__name__ = fn.__qualname__ = cmd.name
    fn.__signature__ = sig
    fn.__doc__ = _doc(cmd)
    fn.command = cmd
    return fn


class _Labs:
    """``lab(name, **options)`` runs a lab by name; ``lab.NAME(...)`` is each lab's own function, with the lab's
    options in its signature."""

    def __call__(self, name: str, *args, **kwargs):
        return getattr(self, registry.lab(name).name)(*args, **kwargs)

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        fn = function(registry.lab(name))
        setattr(self, name, fn)
        return fn

    def __dir__(self):
        return list(registry.labs())

    def __repr__(self):
        return f"<rooflab labs: {', '.join(registry.labs())}>"


lab = _Labs()

_FIXED = ["call", "function", "lab", "list_labs", "resolve", "run", "run_in_session", "signature"]


def __getattr__(name: str):
    """``api.measure``, ``api.bench`` ...: each command's function, made when first asked for (importing this module
    does not import every command); ``__all__`` lists them all."""
    if name == "__all__":
        return [*_FIXED, *registry.commands()]
    if name.startswith("_"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:
        cmd = registry.command(name)
    except RooflabError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    fn = globals()[name] = function(cmd)
    return fn


def __dir__():
    return sorted({*globals(), *registry.commands()})


def run(name: str, *args, **kwargs):
    """Any command by name (``run("measure", quick=True)``); a lab as ``"lab NAME"``."""
    if name.startswith(("lab ", "lab.")):
        return lab(name[4:], *args, **kwargs)
    fn_name = registry.command(name).name
    return (globals()[fn_name] if fn_name in globals() else __getattr__(fn_name))(*args, **kwargs)
