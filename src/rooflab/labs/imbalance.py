"""The imbalance lab: the same work split coarsely (a few strips that do not divide evenly between the threads)
and finely (row by row), with each thread's busy time and the idle time at the barrier — the "49 strips on 48
threads" effect at the scale of this machine: threads + 1 strips on the threads there are."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rooflab.contract import Column, Lab, Report, Table, quick_option, threads_option
from rooflab.documents.common import read
from rooflab.documents.labs import ImbalanceCase
from rooflab.errors import RooflabError
from rooflab.i18n import join, msg, tr
from rooflab.interpret.common import disturbed_rows, load_caveat
from rooflab.kernels import tasks
from rooflab.machine.env import usable_cpus
from rooflab.session import Session
from rooflab.timing.harness import HarnessConfig, Timing
from rooflab.toolchain.compiler import build_kernel, find_compiler, openmp_flags
from rooflab.units import pct, seconds


@dataclass(frozen=True)
class Options:
    threads: int | None = threads_option(minimum=2)
    quick: bool = quick_option()


def run(session: Session, opts: Options) -> dict:
    quick = opts.quick
    t = opts.threads or usable_cpus()
    if t < 2:
        raise RooflabError("the imbalance lab needs at least 2 threads (this process may use 1 CPU)")
    lib = str(build_kernel("imbalance", openmp=openmp_flags(find_compiler()) is not None).path)
    rows, work = 48 * t, 2000 if quick else 4000
    cfg = (HarnessConfig(min_sample_s=0.01, samples=5, warmup=1, min_samples=5, budget_s=1.0) if quick else
           HarnessConfig(min_sample_s=0.03, samples=11, warmup=1, min_samples=7, budget_s=3.0))
    cases = [("coarse", t + 1, False, msg("{strips} strips on {t} threads: one thread gets two", strips=t + 1, t=t)),
             ("fine", t + 1, True, msg("row by row, round robin"))]
    out = []
    for name, strips, fine, what in cases:
        session.progress(f"imbalance: {name}")
        try:
            res, judged = session.call_until_quiet(name, tasks.imbalance_task, lib, t, rows, work, strips, fine, cfg,
                                                   timing_of=lambda r: Timing.from_dict(r["timing"]))
        except RooflabError as exc:
            out.append({"name": name, "what": what, "error": str(exc)})
            continue
        tm = Timing.from_dict(res["timing"])
        busy = np.median(np.array(res["busy"]), axis=0)
        wall = tm.summary.median
        out.append({"name": name, "what": what, "strips": strips if not fine else rows, "threads": t,
                    "wall_s": wall, "wall_ci95": list(tm.summary.ci95), "busy_s": busy.tolist(),
                    "idle_fraction": float(1 - busy.mean() / wall), "max_over_mean": float(busy.max() / busy.mean()),
                    "rel_error": res["rel_error"], "seconds": tm.samples})
        judged.judge(out[-1])
        session.check_timing(name, tm)
        session.record(name, out[-1])
    return {"lab": "imbalance", "quick": quick, "threads": t, "rows": rows, "work_per_row": work, "cases": out,
            "predicted_coarse_over_fine": (2 * rows / (t + 1)) / (rows / t)}


# ------------------------------------------------------------------------------------ observations


def imbalance_observations(doc: dict) -> list[dict]:
    out = load_caveat(doc)
    c = {x["name"]: x for x in doc["cases"] if not x.get("error")}
    for name in ("coarse", "fine"):
        x = c.get(name)
        if x:
            args = dict(what=x["what"], wall=seconds(x["wall_s"]), busy=join([seconds(b) for b in x["busy_s"]], ", "),
                        idle=pct(x["idle_fraction"]))
            out.append(msg("coarse ({what}): wall {wall}; busy per thread {busy}; {idle} of the thread time is spent "
                           "waiting at the barrier.", **args) if name == "coarse" else
                       msg("fine ({what}): wall {wall}; busy per thread {busy}; {idle} of the thread time is spent "
                           "waiting at the barrier.", **args))
    if "coarse" in c and "fine" in c:
        coarse, fine = read(ImbalanceCase, c["coarse"]), read(ImbalanceCase, c["fine"])
        r = coarse.wall_s / fine.wall_s
        out.append(msg("Coarse takes {r:.2f}x the time of fine, where the strip count predicts {p:.2f}x: the job lasts as "
                       "long as its slowest thread. With {strips} strips on {t} threads one thread works twice while "
                       "the others idle; at 49 strips on 48 threads that is almost 2x.", r=r,
                       p=doc["predicted_coarse_over_fine"], strips=doc["threads"] + 1, t=doc["threads"]))
    return out



LAB = Lab(
    name="imbalance", order=8, options=Options, run=run,
    summary=msg("coarse vs fine work split: busy time per thread and idle time at the barrier"),
    report=Report(
        interpret=lambda d: disturbed_rows(d.get("cases") or []) + imbalance_observations(d),
        headline=lambda d: tr("{rows} rows on {t} threads", rows=d["rows"], t=d["threads"]),
        tables=(Table("imbalance_cases", "Work split", rows="cases", error_column="what", columns=(
               Column("name", "split"),
               Column("wall_s", "wall", "seconds", ci="wall_ci95"),
               Column("busy_s", "busy per thread", value=lambda r, d: " / ".join(seconds(b) for b in r["busy_s"])
                   if r.get("busy_s") else None, csv=False),
               Column("idle_fraction", "idle at barrier", "pct"),
               Column("what", "", "msg"))),)))
