"""`rooflab track --history SPEC.toml`: the stored series of a kernel across commits, and its change points.

Every stored `track` run, and every `bench` run made in a clean work tree, gives the kernel's time at a commit (with
its 95% CI) and, for track, its instructions per call. The points are put in the order of the repository's
first-parent line, several points of one commit are merged (median), and the change points are found by
:mod:`rooflab.model.changepoints` on the logarithm of the time, each point weighted by its own spread: its interval,
and the spread between runs made at different moments measured on the series itself; a change in time between two
commits that one track run timed in the same rounds stands only where that run's paired step was called (see
_unpaired_changes). Instruction counts, which do not depend on the machine's noise, get a series of their own with
their near-zero spread. Nothing is measured."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rooflab.contract import Column, Command, Outputs, Report, Table, internal, option
from rooflab.documents.common import read
from rooflab.documents.kernels import Counts
from rooflab.errors import RooflabError, StoreError
from rooflab.i18n import msg, tr
from rooflab.interpret.track import history_observations
from rooflab.model.changepoints import PENALTY, between_runs_spread, change_points, log_spread
from rooflab.toolchain.revisions import first_parent_order, repository_of

MAX_RUNS = 100_000
COUNT_SPREAD = 1e-4  # the relative spread given an instruction count (cachegrind's counts repeat exactly)


@dataclass(frozen=True)
class Options:
    spec: str = option(argument=True, path="file", help="The kernel spec file (TOML), in a git repository.")
    kernel: str | None = option(None, help="The kernel of the spec (needed when the store holds several).")
    penalty: float = option(PENALTY, min=1.0, max=1000.0, help="The cost of one more change point, in units of "
                                                               "the points' own spread.")
    repository: str | None = internal()
    spec_path: str | None = internal()


def _points(store, kernel: str | None) -> tuple[list[dict], set[str]]:
    """Every stored measurement of the kernel at a commit: (points, the kernel names seen)."""
    out, names = [], set()
    for run in store.runs(kind="track", limit=MAX_RUNS) + store.runs(kind="bench", limit=MAX_RUNS):
        if run["kind"] not in ("track", "bench") or run["status"] != "complete":
            continue
        try:
            doc = store.result(run["run_id"])
        except StoreError:
            continue  # a damaged run is the store's to report; the others still make the series
        if not doc:
            continue
        if run["kind"] == "track":
            names.add(doc.get("kernel"))
            if kernel and doc.get("kernel") != kernel:
                continue
            for s in doc.get("sizes") or []:
                commit_of = {r.get("revision"): r.get("commit") for r in s["rows"]}
                for r in s["rows"]:
                    if r.get("commit") and r.get("time_s"):
                        out.append({"commit": r["commit"], "size_label": s["label"], "time_s": r["time_s"],
                                    "time_ci95": r.get("time_ci95"), "run_id": run["run_id"],
                                    "instructions": read(Counts, r.get("counts")).instructions,
                                    # its paired verdict against the revision timed before it in the same rounds
                                    "step": (commit_of.get(r.get("step_from")), r.get("step_verdict"))
                                    if r.get("step_verdict") else None})
        else:
            for k in doc.get("kernels") or []:
                names.add(k.get("name"))
                git = k.get("git") or {}
                if (kernel and k.get("name") != kernel) or not git.get("revision") or git.get("dirty") is not False:
                    continue  # a bench of uncommitted changes is no commit's figure
                for r in k.get("sizes") or []:
                    if r.get("time_s"):
                        label = " ".join(f"{a}={b}" for a, b in (r.get("size") or {}).items())
                        out.append({"commit": git["revision"], "size_label": label, "time_s": r["time_s"],
                                    "time_ci95": r.get("time_ci95"), "run_id": run["run_id"], "instructions": None})
    return out, {n for n in names if n}


def _merged(points: list[dict]) -> dict:
    """Several measurements of one commit as one point: the median time, spread and count."""
    times = [p["time_s"] for p in points]
    t = float(np.median(times))
    spread = float(np.median([log_spread(p["time_s"], p["time_ci95"]) for p in points]))
    counts = [p["instructions"] for p in points if p.get("instructions")]
    return {"time_s": t, "log_spread": spread, "time_ci95": [t * math.exp(-1.96 * spread), t * math.exp(1.96 * spread)],
            "instructions": float(np.median(counts)) if counts else None, "runs": sorted({p["run_id"] for p in points})}


def _paired(by_commit: dict[str, list]) -> dict[tuple[str, str], list[str]]:
    """(commit before, commit) -> the paired step verdicts of the runs that timed both in the same rounds."""
    out: dict[tuple[str, str], list[str]] = {}
    for commit, points in by_commit.items():
        for p in points:
            if p.get("step") and p["step"][0]:
                out.setdefault((p["step"][0], commit), []).append(p["step"][1])
    return out


def _unpaired_changes(series: list[dict], found: list[int], paired: dict) -> tuple[list[int], list[dict]]:
    """The change points in time that the paired evidence does not contradict, and those it does. Two commits timed
    in the same interleaved rounds of one track run have a paired verdict, which cancels what their separate medians
    do not: a host whose speed switches between two states for seconds at a time (1.8x apart here) gives neighbouring
    revisions timed together in a round the same state, but a mixture of states, round after round, that can set
    their medians 30% apart where no commit changed anything. A change point between two such commits is kept only
    where a run's paired step there was called (slower or faster); without paired evidence the weighted search
    decides."""
    kept, dropped = [], []
    for b in found:
        verdicts = paired.get((series[b - 1]["commit"], series[b]["commit"]), [])
        if verdicts and all(v == "no difference" for v in verdicts):
            dropped.append({"index": b, "commit": series[b]["commit"], "short": series[b]["short"],
                            "paired_verdicts": verdicts})
        else:
            kept.append(b)
    return kept, dropped


def _changes(series: list[dict], values: list[float], sigmas: list[float], what: str, penalty: float,
             paired: dict | None = None) -> tuple[list[dict], list[dict]]:
    out = []
    found = change_points(values, sigmas, penalty=penalty)
    found, dropped = _unpaired_changes(series, found, paired) if paired else (found, [])
    starts = [0, *found, len(values)]
    for seg, (a, b) in enumerate(zip(starts, starts[1:])):
        for p in series[a:b]:
            p[f"{what}_segment"] = seg
    for a, b, c in zip(starts, starts[1:], starts[2:]):
        before, after = float(np.median(values[a:b])), float(np.median(values[b:c]))
        at = series[b]
        ratio = math.exp(after - before) if what == "time" else after / before if before else None
        out.append({"index": b, "commit": at["commit"], "short": at["short"], "subject": at["subject"], "by": what,
                    "before": math.exp(before) if what == "time" else before,
                    "after": math.exp(after) if what == "time" else after, "ratio": ratio})
    return out, dropped


def run(store, opts: Options) -> dict:
    spec = Path(opts.spec).resolve()
    if not spec.is_file():
        raise RooflabError(f"{opts.spec}: no such spec file")
    repo = repository_of(spec)
    order = first_parent_order(repo)
    points, names = _points(store, opts.kernel)
    if not opts.kernel and len(names) > 1:
        raise RooflabError(f"the store holds several kernels ({', '.join(sorted(names))}): choose one with --kernel")
    off_line = {p["commit"] for p in points if p["commit"] not in order}
    sizes = []
    for label in sorted({p["size_label"] for p in points}):
        by_commit: dict[str, list] = {}
        for p in points:
            if p["size_label"] == label and p["commit"] in order:
                by_commit.setdefault(p["commit"], []).append(p)
        series = []
        for commit in sorted(by_commit, key=lambda c: order[c]["index"]):
            series.append({"commit": commit, "short": order[commit]["short"], "subject": order[commit]["subject"],
                           **_merged(by_commit[commit])})
        logs = [math.log(p["time_s"]) for p in series]
        between = between_runs_spread(logs) if len({tuple(p["runs"]) for p in series}) > 1 else 0.0
        sigmas = [math.hypot(p["log_spread"], between) for p in series]
        changes, dropped = (_changes(series, logs, sigmas, "time", opts.penalty, _paired(by_commit))
                            if len(series) >= 2 else ([], []))
        counted = [p for p in series if p.get("instructions")]
        if len(counted) >= 2:
            vals = [p["instructions"] for p in counted]
            changes += _changes(counted, vals, [max(COUNT_SPREAD * v, 1.0) for v in vals], "instructions",
                                opts.penalty)[0]
        sizes.append({"label": label, "points": series, "changes": sorted(changes, key=lambda c: c["index"]),
                      "between_runs_spread": between, "not_confirmed": dropped})
    return {"repository": str(repo), "spec": str(spec.relative_to(repo)), "kernel": opts.kernel or
            (next(iter(names)) if names else None), "sizes": sizes, "penalty": opts.penalty,
            "off_line": sorted(off_line)}


def _groups(doc: dict) -> list[tuple[str, dict, list[dict]]]:
    return [(s["label"].replace(" ", "_").replace("=", ""), {"label": s["label"]}, s["points"])
            for s in doc.get("sizes") or []]


def _change_at(p: dict, doc: dict) -> str | None:
    marks = [c for s in doc.get("sizes") or [] for c in s["changes"] if c["commit"] == p["commit"]]
    return "; ".join(tr("time {r:.3f}x", r=c["ratio"]) if c["by"] == "time" else
                     tr("instructions {r:+.2%}", r=c["ratio"] - 1.0) for c in marks) or None


COMMAND = Command(
    name="track_history", kind="track.history", order=8, options=Options, run=run, needs="store", cli=False,
    summary=msg("a kernel's stored series across commits, and its change points (rooflab track --history)"),
    report=Report(
        interpret=history_observations,
        headline=lambda d: tr("{kernel}: {n} commits measured", kernel=d.get("kernel") or "?",
                              n=max((len(s["points"]) for s in d.get("sizes") or []), default=0)),
        tables=(Table("track_history", "The series at {label}, in commit order", groups=_groups, columns=(
            Column("short", "revision"),
            Column("subject", "subject"),
            Column("time_s", "time", "seconds", ci="time_ci95"),
            Column("instructions", "instructions", "count"),
            Column("time_segment", "level", "int"),
            Column("change", "change point", value=_change_at),
            Column("runs", "runs", report=False))),)),
    outputs=Outputs(files=("html", "csv"), stored=False))
