"""`rooflab bench`: the user's kernels at each size, checked, timed, and placed on this machine's roofline."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from rooflab.contract import (EXIT_NOTHING_MEASURED, Column, Command, Hooks, Line, Mpi, Outputs, Report, Roofline,
                              Table, internal, option, quick_option)
from rooflab.diagnosis.engine import explain_kernels
from rooflab.documents.common import read
from rooflab.documents.kernels import BenchKernel
from rooflab.errors import RooflabError
from rooflab.i18n import msg, text, tr
from rooflab.interpret.bench import bench_observations
from rooflab.interpret.common import bound_word, kernel_points, nothing_measured
from rooflab.interpret.explain import explain_tables, kernel_observations
from rooflab.interpret.outline import kernels_outline, output_lines
from rooflab.kernels.builders import OPENMP_QUIET_ENV
from rooflab.kernels.tasks import rel_err
from rooflab.kernels.user import build_spec, config_for, task, timed_row, working_set
from rooflab.machine import describe
from rooflab.machine.env import git_state
from rooflab.model.caches import cache_capacities
from rooflab.model.reference import roofs_at
from rooflab.mpi.jobs import aggregate_bench_job, share_roofline
from rooflab.results.history import roofline_or_measure
from rooflab.session import Session
from rooflab.timing.harness import HarnessConfig, python_overhead, python_timed, run_samples
from rooflab.toolchain.compiler import CompileError
from rooflab.userkernel.expr import arith
from rooflab.userkernel.spec import KernelSpec, load_spec, select


def bench_specs(session: Session, specs: list[KernelSpec], *, quick: bool, roofline: list[dict] | None) -> dict:
    prec = specs[0].precision
    kernels = []
    points = []
    for spec in specs:
        roofs = roofs_at(roofline, spec.threads, spec.precision)
        caps = cache_capacities(session.machine, spec.threads)
        entry = {"name": spec.name, "spec": spec.to_dict(), "roofs": roofs, "sizes": [],
                 "git": git_state(spec.source.parent)}  # the user's work tree, to tell two records apart later
        try:
            session.progress(f"bench: compiling {spec.name}")
            lib = build_spec(spec)
            entry["library"] = lib.to_dict()
        except CompileError as exc:
            entry["error"] = str(exc)
            entry["diagnostics"] = [{"file": d.file, "line": d.line, "col": d.col, "kind": d.kind, "text": d.text}
                                    for d in exc.diagnostics]
            kernels.append(entry)
            session.record(spec.name, entry)
            continue
        for size in spec.sizes:
            label = f"{spec.name} " + " ".join(f"{k}={v}" for k, v in size.items())
            out = session.run_until_quiet(task(spec, lib, size, label), config_for(spec, quick),
                                          timeout_s=spec.timeout)
            flops, nbytes = spec.work(size)
            row = {"size": size, "label": label, "flops": flops, "bytes": nbytes,
                   "working_set_bytes": working_set(spec, lib, size), "rel_error": out.rel_error,
                   "checked": bool(spec.check)}
            if out.output:  # what the kernel printed, kept apart from rooflab's own output
                row["output"] = out.output
            if not out.ok:
                row.update(error=out.error, error_kind=out.error_kind)
            else:
                timed_row(row, flops, nbytes, out.timing, roofs, caps, points)
                out.judge(row)
            entry["sizes"].append(row)
        kernels.append(entry)
    first = kernels[0]["roofs"] if kernels else roofs_at(roofline, 1, prec)
    return {"quick": quick, "kernels": kernels, "points": points,
            "roofs": {"compute": first["compute"], "memory": first["memory"]}, "roofline_source": first["source"]}


def _rel_error(got, ref) -> float:
    g = np.asarray(got, dtype=np.float64)
    r = np.asarray(ref, dtype=np.float64)
    if g.shape != r.shape:
        raise RooflabError(f"the result has shape {g.shape}, the expected value {r.shape}")
    return rel_err(g, r)


def bench_callable(session: Session, fn, *, sizes: list[dict], setup, flops, bytes, expected=None,  # noqa: A002
                   name: str | None = None, tolerance: float = 1e-5, threads: int = 1, precision: str = "fp64",
                   quick: bool = False, roofline: list[dict] | None = None) -> dict:
    """A Python callable (e.g. a NumPy expression) at each size: ``setup(**size)`` returns its arguments,
    ``flops``/``bytes`` are numbers, expressions of the sizes, or callables of them; ``expected(*args)`` the
    reference result. It runs in this process (a Python exception is reported for its size, the others go on)."""
    name = name or getattr(fn, "__name__", "callable")
    roofs = roofs_at(roofline, threads, precision)
    caps = cache_capacities(session.machine, threads)
    cfg = HarnessConfig(min_sample_s=0.005 if quick else 0.02, samples=5 if quick else 11, warmup=1, min_samples=3,
                        budget_s=1.0 if quick else 5.0)

    def amount(v, size):
        return float(v(**size) if callable(v) else arith(v, size, f"{name}: flops/bytes"))

    rows, points = [], []
    for size in sizes:
        label = f"{name} " + " ".join(f"{k}={v}" for k, v in size.items())
        session.progress(f"bench: {label}")
        row = {"size": size, "label": label, "checked": expected is not None}
        try:
            args = setup(**size)
            args = args if isinstance(args, tuple) else (args,)
            fl, by = amount(flops, size), amount(bytes, size)
            ws = float(sum(getattr(a, "nbytes", 0) for a in args))
            row.update(flops=fl, bytes=by, working_set_bytes=ws)
            if expected is not None:
                err = _rel_error(fn(*args), expected(*args))
                row["rel_error"] = err
                if err > tolerance:
                    row.update(error=f"wrong result: max relative error {err:.3g} > tolerance {tolerance:.3g}",
                               error_kind="wrong")
                    rows.append(row)
                    session.record(label, row)
                    continue
            t = run_samples(python_timed(lambda args=args: fn(*args)), cfg, overhead_per_rep=python_overhead())
        except Exception as exc:  # the user's code: report it for this size and go on
            row.update(error=f"raised {type(exc).__name__}: {exc}", error_kind="error")
            rows.append(row)
            session.record(label, row)
            continue
        timed_row(row, fl, by, t, roofs, caps, points)
        session.check_timing(label, t)
        rows.append(row)
        session.record(label, row)
    spec = {"name": name, "prototype": f"Python callable {getattr(fn, '__qualname__', name)}", "threads": threads,
            "precision": precision}
    return {"quick": quick, "kernels": [{"name": name, "spec": spec, "roofs": roofs, "sizes": rows}],
            "points": points, "roofs": {"compute": roofs["compute"], "memory": roofs["memory"]},
            "roofline_source": roofs["source"]}


@dataclass(frozen=True)
class Options:
    target: object = option(argument=True, path="file", help="A kernel spec file (TOML); from Python also a callable "
                                                             "(with sizes, setup, flops and bytes).")
    kernels: tuple[str, ...] = option((), flag="--kernel", many=True, help="Only this kernel of the spec "
                                                                             "(repeatable).")
    quick: bool = quick_option("Fewer samples: a first look.")
    explain: bool = option(False, help="Then explain each kernel at the size furthest below its roof, as `rooflab "
                                       "explain` does: the evidence, the findings and the experiments that test them.")
    mpi: bool = option(False, help="Run as one rank of an MPI job: every rank runs the kernels on its own data at "
                                   "the same moment; rank 0 aggregates and stores.")
    # a Python callable's description (bench_callable)
    sizes: list | None = option(None, where="api", help="The sizes to run a callable at: a list of dicts.")
    setup: object = option(None, where="api", help="setup(**size) returns the callable's arguments.")
    flops: object = option(None, where="api", help="FLOP per call: a number, an expression of the sizes, or a "
                                                    "callable of them.")
    bytes: object = option(None, where="api", help="Bytes per call, as flops.")
    expected: object = option(None, where="api", help="expected(*args): the reference result to check against.")
    name: str | None = option(None, where="api", help="The callable's name in the report.")
    tolerance: float = option(1e-5, where="api", min=0, help="Largest relative error accepted.")
    threads: int = option(1, where="api", min=1, help="Threads the callable uses (for its roof).")
    precision: str = option("fp64", where="api", choices=("fp32", "fp64"), help="Precision of the callable's roof.")
    specs: tuple | None = internal()  # the kernels read from the spec file
    roofline: list | None = internal()  # this machine's stored measure runs, newest first

    @property
    def precision_needed(self) -> str:
        return self.specs[0].precision if self.specs else self.precision


_CALLABLE = ("sizes", "setup", "flops", "bytes")


def prepare(opts: Options) -> Options:
    """Every mistake in the spec (or in a callable's description) is reported before anything runs."""
    if opts.explain and opts.mpi:
        raise RooflabError("bench --explain runs in one process: leave out --mpi (explain a rank's kernel alone)")
    if callable(opts.target):
        if opts.explain:
            raise RooflabError("explain reads a C kernel's compiled code and rebuilds it: it takes a spec file, "
                               "not a Python callable")
        missing = [k for k in _CALLABLE if getattr(opts, k) is None]
        if missing:
            raise RooflabError(f"benching a callable needs {', '.join(missing)} (see help(rooflab.bench))")
        return opts
    if not isinstance(opts.target, str) and not hasattr(opts.target, "__fspath__"):
        raise RooflabError(f"bench takes a spec file or a callable, not {type(opts.target).__name__}")

    return dataclasses.replace(opts, specs=tuple(select(load_spec(opts.target, tuple(opts.kernels)), tuple(opts.kernels))))


def before(opts: Options, ctx) -> Options:
    """This machine's stored rooflines; a quick one is measured (and stored with the run) when there is none."""
    return dataclasses.replace(opts, roofline=roofline_or_measure(ctx, describe()["key"], opts.precision_needed))


def run(session: Session, opts: Options) -> dict:
    if opts.specs is None:
        return bench_callable(session, opts.target, sizes=opts.sizes, setup=opts.setup, flops=opts.flops,
                              bytes=opts.bytes, expected=opts.expected, name=opts.name, tolerance=opts.tolerance,
                              threads=opts.threads, precision=opts.precision, quick=opts.quick,
                              roofline=opts.roofline)
    doc = bench_specs(session, list(opts.specs), quick=opts.quick, roofline=opts.roofline)
    if opts.explain:
        doc["explain"] = explain_benched(session, list(opts.specs), doc, opts)
    return doc


def explain_benched(session: Session, specs: list[KernelSpec], doc: dict, opts: Options) -> list[dict]:
    """Each kernel that was measured, explained at the size where it stood furthest below its roof."""
    out = []
    for spec, k in zip(specs, doc["kernels"]):
        placed = [r for r in k.get("sizes") or [] if r.get("of_roof") is not None]
        if not placed:
            continue
        worst = min(placed, key=lambda r: r["of_roof"])
        # in a worker whose idle threads sleep at once: explain alternates threaded kernels with each other and
        # with threaded BLAS, as `rooflab explain` does
        with session.worker_env_for(OPENMP_QUIET_ENV):
            out += explain_kernels(session, [spec], sizes=worst["size"], roofline=opts.roofline, quick=opts.quick)
    return out


def _interpret(doc: dict) -> list[dict]:
    return bench_observations(doc) + kernel_observations(doc.get("explain") or [])


def exit_status(doc: dict, opts: Options) -> tuple[int, str] | None:
    if nothing_measured(doc):
        return EXIT_NOTHING_MEASURED, ("no kernel of the spec could be measured (every one failed to build, crashed, "
                                       "hung or was wrong); see above")
    return None


def _kernels(doc: dict) -> list[tuple[str, dict, list[dict]]]:
    return [(k["name"], {"name": k["name"]}, k.get("sizes") or []) for k in doc.get("kernels") or []
            if not k.get("error")]


def _built(doc: dict, args: dict, rows: list[dict]) -> list[str]:
    """Under a kernel's table: its prototype and flags, and what it printed at each size."""
    k = read(BenchKernel, next(k for k in doc.get("kernels") or [] if k["name"] == args["name"]))
    built = [k.spec.prototype if k.spec else "", " ".join(k.library.flags if k.library else [])]
    return ["  ".join(x for x in built if x)] * any(built) + [line for r in rows for line in output_lines(r)]


def _failed(doc: dict) -> list[str]:
    return [f"{k['name']}: {text(k['error'])}" for k in doc.get("kernels") or [] if k.get("error")]


def _why(doc: dict) -> list[Line]:
    if not doc.get("explain"):
        return []
    return [Line(tr("Why: each kernel at the size furthest below its roof"), strong=True),
            *kernels_outline(doc["explain"])]


def _bound(r: dict, doc: dict) -> str | None:
    if not r.get("bound"):
        return None
    return bound_word(r["bound"]) + (f" ({r['level']})" if r.get("level") else "")


def _correct(r: dict, doc: dict) -> str:
    if r.get("error_kind") == "wrong":
        return tr("wrong")
    return tr("ok ({err:.1e})", err=r["rel_error"]) if r.get("rel_error") is not None else tr("not checked")


COMMAND = Command(
    name="bench", order=2, options=Options, run=run, mpi=Mpi(aggregate=aggregate_bench_job, share=share_roofline),
    summary=msg("your kernels from a spec file (TOML): checked, timed, and placed on this machine's roofline"),
    report=Report(
        interpret=_interpret,
        headline=lambda d: tr("roofline from {source}", source=text(d.get("roofline_source") or "—")),
        tables=(Table("bench", "{name} (median time and 95% CI per call)", groups=_kernels, error_column="correct",
                      footer=_built,
                      columns=(Column("point", "pt", "mark", value=lambda r, d: r["label"]),
                               Column("size", "size", "size"),
                               Column("time_s", "time", "seconds", ci="time_ci95"),
                               Column("flops_per_s", "FLOP/s", "flops"),
                               Column("bytes_per_s", "bytes/s", "bytes_per_s"),
                               Column("intensity", "FLOP/B", "g"),
                               Column("bound", "bound", value=_bound, csv=False),
                               Column("of_roof", "of roof", "pct"),
                               Column("correct", "correct", value=_correct, csv=False),
                               Column("error", "error", "msg", report=False))),
                *explain_tables(lambda d: d.get("explain"), prefix="bench_explain")),
        notes=_failed, outline=_why,
        roofline=Roofline(points=lambda d: kernel_points(d.get("kernels")),
                          title=lambda d: tr("Your kernels on this machine"))),
    outputs=Outputs(files=("html", "csv", "plot")),
    hooks=Hooks(prepare=prepare, before=before, exit_status=exit_status))
