"""An MPI job's document: each rank's result gathered on rank 0, the job's aggregates (what `measure --mpi` and
`bench --mpi` declare, :class:`rooflab.contract.Mpi`), and the job stored as one run. The ranks' sessions are
opened by :func:`rooflab.api.call`; this module only assembles."""

from __future__ import annotations

import dataclasses
import statistics
import sys

from rooflab.documents.common import Aggregate, MeasureAggregates, MpiJob, RankRecord, read
from rooflab.documents.kernels import BenchKernel
from rooflab.documents.measure import ceilings
from rooflab.errors import RooflabError
from rooflab.i18n import msg
from rooflab.machine import describe
from rooflab.model.roofline import attainable
from rooflab.mpi.session import run_job
from rooflab.results.history import measure_history
from rooflab.timing.checks import MeasurementWarning


def run_job_document(comm, work) -> dict | None:
    """``work(rank)`` on every rank; on rank 0 the job document (rank 0's result, or the first rank's that
    finished, with every rank's record and result under ``mpi``), elsewhere None."""
    results, records = run_job(comm, work)
    if comm.Get_rank() != 0:
        return None
    ok = [r for r in results if r]
    if not ok:
        failures = "; ".join(f"rank {r['rank']} on {r['host']}: {r['error']}" for r in records)
        raise RooflabError(f"every rank failed: {failures}")
    doc = dict(ok[0])  # carries machine and environment
    doc.pop("run_id", None)
    doc["mpi"] = {"size": comm.Get_size(), "ranks": records,
                  "hosts": sorted({r["host"] for r in records}),
                  "per_rank": [{"rank": rec["rank"], "host": rec["host"], "status": rec["status"],
                                "error": rec["error"], "result": res} for rec, res in zip(records, results)]}
    return doc


def job_results(doc: dict) -> list[dict | None]:
    """Every rank's own document, by rank (None where the rank failed)."""
    return [p.result for p in read(MpiJob, doc["mpi"]).per_rank]


def aggregate_measure_job(doc: dict, results: list, opts) -> dict:
    ranks = read(MpiJob, doc["mpi"]).ranks
    aggregates = aggregate_measure(results, ranks)
    doc["mpi"] = {**doc["mpi"], "aggregates": aggregates}
    doc["warnings"] = doc.get("warnings", []) + lag_warnings(aggregates) + _failed(ranks)
    return doc


def aggregate_bench_job(doc: dict, results: list, opts) -> dict:
    ranks = read(MpiJob, doc["mpi"]).ranks
    aggregates = aggregate_bench(results, ranks)
    newest = (opts.roofline or [None])[0]  # the stored roofline every rank placed its points on
    doc["mpi"] = {**doc["mpi"], "aggregates": aggregates,
                  "job_roofline": place_on_job_roofline(aggregates, results, newest)}
    doc["warnings"] = doc.get("warnings", []) + _failed(ranks)
    return doc


def share_roofline(opts, comm, store):
    """Rank 0 reads this machine's stored rooflines once; every rank places its points on the same roofs. Under
    MPI no rank measures one first (the ranks would measure each other): a stored one is needed."""
    history = measure_history(store, describe()["key"], limit=10) if comm.Get_rank() == 0 and store else None
    history = comm.bcast(history, root=0)
    if not history:
        raise RooflabError("bench --mpi places the kernels on a stored roofline of this machine and there is none: "
                           "run `rooflab measure` (or `mpirun -n N rooflab measure --mpi`) first")
    return dataclasses.replace(opts, roofline=list(history))


def _failed(ranks: list[RankRecord]) -> list[dict]:
    return [MeasurementWarning("rank-failed", msg("rank {rank} on {host} failed: {error}", rank=r.rank, host=r.host,
                                                  error=r.error), 1, 0,
                               msg("its traceback is in the job record (mpi.ranks); the other ranks' results are "
                                   "kept"), f"rank {r.rank}").to_dict()
            for r in ranks if r.status != "ok"]


def store_job(store, kind: str, doc: dict) -> None:
    if store is None:
        return
    job = read(MpiJob, doc["mpi"])
    header = {"machine": doc.get("machine", {}), "environment": doc.get("environment", {}), "command": list(sys.argv),
              "mpi": {"size": job.size, "hosts": job.hosts}}
    records = [(f"rank {p.rank}", {"host": p.host, "status": p.status, "error": p.error}) for p in job.per_rank]
    doc["run_id"] = store.save(kind, header, doc, records, label=f"mpi x{job.size}")


def job_roofs(measure_doc: dict | None, precision: str) -> dict | None:
    """The job's roofline from a stored `measure --mpi` run: its aggregated FMA and DRAM ceilings."""
    found = (measure_doc or {}).get("mpi")
    aggs = read(MpiJob, found).aggregates if found else None
    if not isinstance(aggs, MeasureAggregates):
        return None
    fma = [a for a in aggs.compute if a.precision == precision and a.klass == "simd_fma" and a.job]
    dram = [a for a in aggs.bandwidth if a.level == "DRAM" and a.kernel in ("read", "copy", "triad") and a.job]
    if not fma or not dram:
        return None
    return {"flops_per_s": max(a.job for a in fma), "bytes_per_s": max(a.job for a in dram),
            "ranks": max(a.ranks for a in fma)}


def _kernels(result: dict | None) -> list[BenchKernel]:
    """A rank's bench document's kernels, typed."""
    return [read(BenchKernel, k) for k in (result or {}).get("kernels") or []]


def place_on_job_roofline(aggs: list[dict], results: list[dict | None], measure_doc: dict | None) -> dict:
    """Each kernel and size's job FLOP/s against the job's roofs (DRAM and FMA aggregated over the ranks of the
    stored MPI roofline); without such a roofline, say how to get one."""
    kernels = [k for res in results for k in _kernels(res)]
    prec = (kernels[0].spec.precision if kernels and kernels[0].spec else "") or "fp64"
    roofs = job_roofs(measure_doc, prec)
    if roofs is None:
        return {"available": False, "note": msg("no stored `mpirun ... rooflab measure --mpi` run of this machine: "
                                                "the points are placed on each rank's own roofline")}
    inten = {(k.name, r.label): r.intensity for k in kernels for r in k.sizes if r.intensity}
    points = []
    for a in (read(Aggregate, x) for x in aggs):
        i = inten.get((a.kernel, a.label))
        if not i or not a.job:
            continue
        roof = attainable(i, roofs["flops_per_s"], roofs["bytes_per_s"])
        points.append({"kernel": a.kernel, "label": a.label, "intensity": i, "job_flops_per_s": a.job,
                       "job_roof_flops_per_s": roof, "of_job_roof": a.job / roof})
    return {"available": True, "roofs": roofs, "points": points}


# ------------------------------------------------------------------------------------------ aggregation (pure)


def _median(xs):
    return statistics.median(xs) if xs else None


def aggregate(items: list[tuple[int, str, float, float]]) -> dict:
    """items: (rank, host, rate, time) of one measurement on every rank that has it.

    The job's rate is the work of all ranks over the time of the slowest: sum(rate_r * t_r) / max(t_r); per node
    the same over the ranks of each host; the spread names the slowest and fastest ranks.
    """
    if not items:
        return {}
    tmax = max(t for _, _, _, t in items)
    job = sum(rate * t for _, _, rate, t in items) / tmax
    nodes = {}
    for host in sorted({h for _, h, _, _ in items}):
        mine = [(r, h, rate, t) for r, h, rate, t in items if h == host]
        nodes[host] = sum(rate * t for _, _, rate, t in mine) / max(t for _, _, _, t in mine)
    slow = min(items, key=lambda x: x[2])
    fast = max(items, key=lambda x: x[2])
    return {"job": job, "nodes": nodes, "time_max_s": tmax, "ranks": len(items),
            "slowest": {"rank": slow[0], "host": slow[1], "rate": slow[2]},
            "fastest": {"rank": fast[0], "host": fast[1], "rate": fast[2]},
            "spread": slow[2] / fast[2] if fast[2] else None}


def aggregate_measure(results: list[dict | None], records: list) -> dict:
    """Per-rank ceilings of `measure` runs gathered on rank 0 -> aggregates and spread per ceiling."""
    compute, bandwidth = {}, {}
    for rec, doc in zip(map(_record, records), results):
        if not doc:
            continue
        for c in ceilings(doc, "compute"):
            if c.get("flops_per_s") and c.get("seconds"):
                compute.setdefault((c["name"], c["threads"], c.get("precision"), c.get("klass")), []).append(
                    (rec.rank, rec.host, c["flops_per_s"], _median(c["seconds"])))
        for b in ceilings(doc, "bandwidth"):
            if b.get("bytes_per_s") and b.get("seconds"):
                bandwidth.setdefault((b["level"], b["kernel"], b["threads"]), []).append(
                    (rec.rank, rec.host, b["bytes_per_s"], _median(b["seconds"])))
    return {"compute": [{"name": k[0], "threads": k[1], "precision": k[2], "klass": k[3], **aggregate(v)}
                        for k, v in compute.items()],
            "bandwidth": [{"level": k[0], "kernel": k[1], "threads": k[2], **aggregate(v)}
                          for k, v in bandwidth.items()]}


def lag_warnings(found: dict, threshold: float = 0.9) -> list[dict]:
    aggs = read(MeasureAggregates, found)
    out = []
    for a in aggs.compute + aggs.bandwidth:
        s = a.slowest
        if a.spread is not None and a.ranks > 1 and a.spread < threshold and s is not None:
            what = a.name or f"{a.level} {a.kernel}"
            out.append(MeasurementWarning(
                "rank-lags", msg("{what} x{t}: rank {rank} on {host} reached only {frac:.0%} of the fastest rank "
                                 "(threshold {th:.0%})", what=what, t=a.threads, rank=s.rank, host=s.host,
                                 frac=a.spread, th=threshold), a.spread, threshold,
                msg("check where that rank ran (cpus in the rank table): mis-pinned or sharing cores with another "
                    "rank"), f"rank {s.rank}").to_dict())
    return out


def _record(rec) -> RankRecord:
    return read(RankRecord, rec)


def aggregate_bench(results: list[dict | None], records: list) -> list[dict]:
    """Per (kernel, size): the job's FLOP/s over the slowest rank's time, per node, and the spread."""
    items: dict = {}
    for rec, doc in zip(map(_record, records), results):
        for k in _kernels(doc):
            for r in k.sizes:
                if r.flops_per_s and r.time_s:
                    items.setdefault((k.name, r.label), []).append((rec.rank, rec.host, r.flops_per_s, r.time_s))
    return [{"kernel": k, "label": label, **aggregate(v)} for (k, label), v in items.items()]
