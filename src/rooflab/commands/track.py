"""`rooflab track SPEC.toml --revs A..B`: a kernel's path across commits, on this machine's roofline.

Each revision's spec and sources are read as they were at that revision (``git archive`` into a folder of its own;
the user's work tree, index and branches are never touched; ``WORKTREE`` is the working tree as it is), built and
checked one by one in the worker, so that a revision that fails to build, crashes, hangs or is wrong is reported in
its row while the others go on. The revisions that pass are then timed together, in the same interleaved rounds of
one worker: each step's speed-up is a paired verdict with its 95% CI, as `compare` gives, never two runs made
minutes apart. Beside the time, cachegrind's deterministic counts (instructions, simulated D1 and last-level misses
per call) tell a step that added work from one the machine's noise made look slower.
"""

from __future__ import annotations

import dataclasses
import tempfile
from dataclasses import dataclass
from pathlib import Path

from rooflab.contract import (EXIT_SLOWER, Column, Command, Hooks, Outputs, Report, Roofline, RoofPoint, Table,
                              internal, option, quick_option)
from rooflab.counters.count import count_kernel
from rooflab.documents.common import read
from rooflab.documents.kernels import Counts
from rooflab.errors import RooflabError
from rooflab.i18n import msg, text, tr
from rooflab.interpret.common import bound_word
from rooflab.interpret.track import track_observations
from rooflab.kernels.runner import interleave_c_kernels
from rooflab.kernels.user import build_spec, config_for, task, timed_row, working_set
from rooflab.machine import describe
from rooflab.model.caches import cache_capacities
from rooflab.model.reference import roofs_at
from rooflab.results.history import roofline_or_measure
from rooflab.session import Session
from rooflab.timing.harness import HarnessConfig, Timing
from rooflab.timing.stats import paired_ratio
from rooflab.toolchain.compiler import CompileError
from rooflab.toolchain.revisions import Revision, repository_of, resolve, tree_at
from rooflab.units import drawable
from rooflab.userkernel.spec import KernelSpec, load_spec, one_kernel, parse_size_values, size_for

COUNT_BUDGET_S = 30.0  # the most cachegrind may take for one revision at one size (it runs a kernel ~50x slower)


@dataclass(frozen=True)
class Options:
    spec: str = option(argument=True, path="file", help="The kernel spec file (TOML), in a git repository; read at "
                                                        "each revision as it was then.")
    revs: str = option("", help="The revisions, oldest first: A,B,C (any git refs; WORKTREE is the working tree "
                                 "as it is) or a range A..B (A, then each commit after it up to B).")
    kernel: str | None = option(None, help="The kernel of the spec to track (needed when it has several).")
    size: tuple[str, ...] = option((), many=True, help="NAME=NUMBER for each size variable (default: the sizes of "
                                                       "the newest revision's spec); from Python, a dict.")
    rounds: int = option(15, min=3, max=1000, help="Interleaved rounds: each one sample of every revision.")
    threshold: float = option(0.02, min=0.0, max=1.0, help="A step is called faster or slower only when its whole "
                                                            "95% CI lies beyond this relative change.")
    counts: bool = option(True, negate="--no-counts", help="Count instructions and simulated cache misses with "
                                                            "cachegrind, per revision and size.",
                          negate_help="Time only (no cachegrind).")
    fail_if_slower: bool = option(False, help="Exit 1 when the newest revision is slower than the one before it: "
                                              "by a paired verdict beyond --slower-by, or by more instructions "
                                              "than --instructions-by.")
    slower_by: float = option(0.05, min=0.0, max=10.0, help="With --fail-if-slower: the slowdown (a relative "
                                                             "change of the time, whole 95% CI beyond it) that fails.")
    instructions_by: float = option(0.01, min=0.0, max=10.0, help="With --fail-if-slower: the relative increase of "
                                                                   "the instruction count that fails.")
    quick: bool = quick_option("Fewer rounds and shorter samples: a first look.")
    history: bool = option(False, help="Measure nothing: read the kernel's stored series across commits (every "
                                       "track run, and bench runs of clean work trees) and find its change points.")
    repository: str | None = internal()
    spec_path: str | None = internal()  # the spec's path inside the repository
    revisions: tuple | None = internal()
    roofline: list | None = internal()


def route(opts: Options):
    """``--history``: the stored series is read instead (track_history), measuring nothing."""
    if not opts.history:
        return None
    if opts.revs:
        raise RooflabError("--history reads the stored runs of every revision: leave out --revs")
    return "track_history", {"spec": opts.spec, "kernel": opts.kernel}


def prepare(opts: Options) -> Options:
    """The repository, the revisions and the sizes, every mistake reported before anything is built."""
    spec = Path(opts.spec).resolve()
    if not spec.is_file():
        raise RooflabError(f"{opts.spec}: no such spec file")
    repo = repository_of(spec)
    revisions = resolve(repo, opts.revs)
    if len(revisions) < 2:
        raise RooflabError(f"--revs {opts.revs}: one revision; track compares two or more")
    parse_size_values(opts.size)
    return dataclasses.replace(opts, repository=str(repo), spec_path=str(spec.relative_to(repo)),
                               revisions=tuple(revisions))


def before(opts: Options, ctx) -> Options:
    return dataclasses.replace(opts, roofline=roofline_or_measure(ctx, describe()["key"], _precision(opts)))


def _precision(opts: Options) -> str:
    try:
        specs = load_spec(Path(opts.repository) / opts.spec_path)
        return one_kernel(specs, opts.kernel).precision
    except RooflabError:
        return "fp64"


def _at(rev: Revision, opts: Options, workdir: Path, session: Session) -> dict:
    """One revision read and built: its kernel and library, or the reason it has none."""
    entry = {**rev.to_dict()}
    try:
        tree = tree_at(Path(opts.repository), rev, workdir / (rev.commit or "worktree"))
        spec_file = tree / opts.spec_path
        if not spec_file.is_file():
            raise RooflabError(f"{opts.spec_path} does not exist at {rev.short}")
        spec = one_kernel(load_spec(spec_file, (opts.kernel,) if opts.kernel else ()), opts.kernel)
        session.progress(f"track: building {rev.short}")
        lib = build_spec(spec)
    except CompileError as exc:
        entry.update(error=_compiler_said(exc, tree), error_kind="build", detail=str(exc))
        return entry
    except RooflabError as exc:
        entry.update(error=str(exc), error_kind="spec")
        return entry
    entry.update(spec_obj=spec, lib=lib, library=lib.to_dict(), flags=list(lib.flags))
    return entry


def _compiler_said(exc: CompileError, tree: Path) -> str:
    """What the compiler said, in its first errors, with each file named as it is in the repository (not in the
    folder the revision was written to): ``k.c:1:104: error: expected ';' before '}' token``."""
    errors = [d for d in exc.diagnostics if d.kind in ("error", "fatal error")] or exc.diagnostics
    if not errors:
        return str(exc).splitlines()[0]

    def where(path: str) -> str:
        try:
            return str(Path(path).resolve().relative_to(tree.resolve()))
        except ValueError:
            return path
    return "; ".join(f"{where(d.file)}:{d.line}:{d.col}: {d.kind}: {d.text}" for d in errors[:2])


def _counts(spec: KernelSpec, size: dict, machine: dict, time_s: float) -> dict:
    """Instructions and simulated misses per call (cachegrind), or why there are none."""
    if time_s * 50 * 3 > COUNT_BUDGET_S:
        return {"skipped": msg("cachegrind would take about {s:.0f} s at this size (over {b:.0f} s): give a smaller "
                               "--size to count", s=time_s * 150, b=COUNT_BUDGET_S)}
    try:
        c = count_kernel(spec, size, 3, machine, force_cachegrind=True, hotspots=False, timeout_s=4 * COUNT_BUDGET_S)
    except RooflabError as exc:
        return {"skipped": msg("cachegrind could not count: {why}", why=str(exc))}
    k = c["counters"]
    return {"instructions": k["instructions"], "d1_misses": k["d1_misses"], "ll_misses": k["ll_misses"],
            "note": c.get("driver_note")}


def _step(prev: dict, row: dict, key: str, threshold: float) -> None:
    """The paired verdict of ``row`` against ``prev`` (timed in the same rounds): ``KEY_speedup`` (the time of
    ``prev`` over the time of ``row``, median of the rounds), its ``KEY_ci95``, ``KEY_verdict`` and the revision it
    is against (``KEY_from``)."""
    c = paired_ratio(prev["seconds"], row["seconds"], threshold=threshold)
    row.update({f"{key}_speedup": c.speedup, f"{key}_ci95": [1.0 / c.ci95[1], 1.0 / c.ci95[0]],
                f"{key}_verdict": c.verdict, f"{key}_from": prev["revision"]})


def _moved(prev: dict, row: dict) -> dict | None:
    """Where a step moved the kernel to another bound or level (memory -> compute, L3 -> L2)."""
    bound = {"memory": msg("memory-bound"), "compute": msg("compute-bound")}
    if prev.get("bound") in bound and row.get("bound") in bound and prev["bound"] != row["bound"]:
        return msg("from {a} to {b}", a=bound[prev["bound"]], b=bound[row["bound"]])
    if prev.get("bound") == "memory" and prev.get("level") and row.get("level") and prev["level"] != row["level"]:
        return msg("from {a} to {b}", a=prev["level"], b=row["level"])
    return None


def run(session: Session, opts: Options) -> dict:
    with tempfile.TemporaryDirectory(prefix="rooflab-track-") as d:  # each revision's tree, removed after
        return _track(session, opts, [_at(r, opts, Path(d), session) for r in opts.revisions])


def _track(session: Session, opts: Options, revs: list[dict]) -> dict:
    built = [r for r in revs if "error" not in r]
    newest = built[-1]["spec_obj"] if built else None
    given = parse_size_values(opts.size)
    sizes = [size_for(newest, given)] if given and newest else (newest.sizes if newest else [])
    prec = newest.precision if newest else "fp64"
    threads = newest.threads if newest else 1
    roofs = roofs_at(opts.roofline, threads, prec)
    caps = cache_capacities(session.machine, threads)
    cfg = config_for(newest, opts.quick) if newest else HarnessConfig()
    rounds = max(5, opts.rounds // 2) if opts.quick else opts.rounds
    out_sizes = []
    for size in sizes:
        label = " ".join(f"{k}={v}" for k, v in size.items())
        rows, kernels = [], {}
        for i, r in enumerate(revs):
            row = {"revision": i, "short": r["short"], "subject": r["subject"], "commit": r["commit"],
                   "label": f"{r['short']} {label}", "size_label": label}
            rows.append(row)
            if "error" in r:
                row.update(error=r["error"], error_kind=r["error_kind"])
                continue
            spec = r["spec_obj"]
            try:
                here = size_for(spec, size)
            except RooflabError as exc:
                row.update(error=str(exc), error_kind="spec")
                continue
            k = task(spec, r["lib"], here, f"{r['short']} {spec.name} {label}")
            # checked alone first, in the worker: a revision that crashes, hangs or is wrong is reported in its row
            out = session.run(k, HarnessConfig(min_sample_s=0.001, samples=1, warmup=0, min_samples=1,
                                               budget_s=0.5), timeout_s=spec.timeout)
            if not out.ok:
                row.update(error=out.error, error_kind=out.error_kind, rel_error=out.rel_error)
                continue
            flops, nbytes = spec.work(here)
            row.update(size=here, flops=flops, bytes=nbytes, working_set_bytes=working_set(spec, r["lib"], here),
                       rel_error=out.rel_error)
            kernels[i] = k
        if kernels:
            session.progress(f"track: {len(kernels)} revisions in interleaved rounds at {label}")
            try:
                res, judged = session.call_until_quiet(
                    f"track {label}", interleave_c_kernels, {str(i): k for i, k in kernels.items()}, cfg, rounds,
                    timing_of=lambda x: Timing.from_dict(next(iter(x.values()))["timing"]),
                    timeout_s=sum(revs[i]["spec_obj"].timeout for i in kernels) * 4)
            except RooflabError as exc:
                for i in kernels:
                    rows[i].update(error=str(exc), error_kind="error")
                res, judged = {}, None
            points: list = []
            for key, got in res.items():
                row = rows[int(key)]
                t = Timing.from_dict(got["timing"])
                timed_row(row, row["flops"], row["bytes"], t, roofs, caps, points)
                judged.judge(row)
                session.check_timing(row["label"], t)
        timed = [r for r in rows if r.get("seconds")]
        for prev, row in zip(timed, timed[1:]):
            _step(prev, row, "step", opts.threshold)
            row["moved"] = _moved(prev, row)
        for row in timed[1:]:
            _step(timed[0], row, "cumulative", opts.threshold)
        if opts.counts:
            for i, r in enumerate(revs):
                if rows[i].get("seconds"):
                    session.progress(f"track: counting {r['short']} at {label}")
                    rows[i]["counts"] = _counts(r["spec_obj"], rows[i]["size"], session.machine, rows[i]["time_s"])
        for row in rows:
            session.record(row["label"], {k: v for k, v in row.items() if k != "seconds"})
        out_sizes.append({"size": size, "label": label, "rows": rows})
    return {"repository": opts.repository, "spec": opts.spec_path, "kernel": newest.name if newest else opts.kernel,
            "revisions": [{k: v for k, v in r.items() if k not in ("spec_obj", "lib")} for r in revs],
            "sizes": out_sizes, "rounds": rounds, "threshold": opts.threshold, "quick": opts.quick,
            "roofs": {"compute": roofs["compute"], "memory": roofs["memory"]}, "roofline_source": roofs["source"]}


def newest_step(doc: dict, slower_by: float, instructions_by: float) -> list[dict]:
    """Why the newest revision counts as slower than the one before it, at each size (none: it does not)."""
    out = []
    for s in doc.get("sizes") or []:
        rows = [r for r in s["rows"] if r.get("time_s")]
        if len(rows) < 2 or rows[-1]["revision"] != len(doc["revisions"]) - 1:
            continue
        prev, last = rows[-2], rows[-1]
        ci = last.get("step_ci95")
        if ci and 1.0 / ci[1] > 1.0 + slower_by:  # the whole interval of its time ratio beyond the threshold
            out.append(msg("{label}: {b} is slower than {a} ({r:.3f}x the time, 95% CI {lo:.3f}-{hi:.3f}x)",
                           label=s["label"], a=prev["short"], b=last["short"], r=1 / last["step_speedup"],
                           lo=1.0 / ci[1], hi=1.0 / ci[0]))
        ia, ib = read(Counts, prev.get("counts")).instructions, read(Counts, last.get("counts")).instructions
        if ia and ib and ib > ia * (1.0 + instructions_by):
            out.append(msg("{label}: {b} executes {r:.2%} more instructions per call than {a}", label=s["label"],
                           a=prev["short"], b=last["short"], r=ib / ia - 1.0))
    return out


def exit_status(doc: dict, opts: Options) -> tuple[int, str] | None:
    if not any(r.get("time_s") for s in doc.get("sizes") or [] for r in s["rows"]):
        return 2, "no revision could be measured (each failed to build, crashed, hung or was wrong); see above"
    if opts.fail_if_slower:
        why = newest_step(doc, opts.slower_by, opts.instructions_by)
        if why:
            return EXIT_SLOWER, "; ".join(text(w) for w in why)
    return None


def _groups(doc: dict) -> list[tuple[str, dict, list[dict]]]:
    return [(s["label"].replace(" ", "_").replace("=", ""), {"label": s["label"]}, s["rows"])
            for s in doc.get("sizes") or []]


def _count(key: str):
    return lambda r, d: (r.get("counts") or {}).get(key)


def _bound(r: dict, d: dict) -> str | None:
    if not r.get("bound"):
        return None
    return bound_word(r["bound"]) + (f" ({r['level']})" if r.get("level") else "")


def point_label(r: dict, doc: dict) -> str:
    """A revision's point: its short id and subject (and its size, where the run has several)."""
    several = len(doc.get("sizes") or []) > 1
    return f"{r['short']} {r['subject'][:40]}" + (f" ({r['size_label']})" if several else "")


def _points(doc: dict) -> list[RoofPoint]:
    """Each revision measured, in commit order (the path the trajectory draws)."""
    return [RoofPoint(point_label(r, doc), r["intensity"], r["flops_per_s"], r.get("bytes_per_s"), r.get("of_roof"),
                      r.get("ci95"), bool(r.get("above_roof")), kernel=True)
            for s in doc.get("sizes") or [] for r in s["rows"]
            if drawable(r.get("intensity")) and drawable(r.get("flops_per_s"))]


def _headline(doc: dict) -> str:
    return tr("{kernel} over {n} revisions · {rounds} interleaved rounds", kernel=doc.get("kernel") or "?",
              n=len(doc.get("revisions") or []), rounds=doc.get("rounds"))


COMMAND = Command(
    name="track", order=7, options=Options, run=run,
    summary=msg("a kernel across git revisions: each step's paired speed-up, instructions and misses, on the "
                "roofline"),
    report=Report(
        interpret=track_observations, headline=_headline,
        tables=(Table("track", "Revisions at {label}, oldest first: time per call, speed-ups paired (95% CI), "
                               "counts per call", groups=_groups,
                      error_column="time_s", columns=(
                          Column("point", "pt", "mark", value=point_label),
                          Column("short", "revision"),
                          Column("subject", "subject"),
                          Column("time_s", "time", "seconds", ci="time_ci95"),
                          Column("step_speedup", "step", "x", ci="step_ci95"),
                          Column("step_verdict", "verdict", report=False),
                          Column("cumulative_speedup", "since the first", "x", ci="cumulative_ci95"),
                          Column("instructions", "instructions", "count", value=_count("instructions")),
                          Column("d1_misses", "D1 misses", "count", value=_count("d1_misses")),
                          Column("ll_misses", "LL misses", "count", value=_count("ll_misses")),
                          Column("bound", "bound", value=_bound, report=False),
                          Column("moved", "moved", "msg"),
                          Column("of_roof", "of roof", "pct"))),),
        roofline=Roofline(points=_points, title=lambda d: tr("The kernel's path across revisions"), path=True)),
    outputs=Outputs(files=("html", "csv", "plot")),
    hooks=Hooks(prepare=prepare, before=before, route=route, exit_status=exit_status))
