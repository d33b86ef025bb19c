"""`measure --mpi` and `bench --mpi`: the per-rank work, and the job document rank 0 assembles and stores."""

from __future__ import annotations

import sys

from rooflab.mpi.session import RankSession, aggregate_bench, aggregate_measure, lag_warnings, run_job, world
from rooflab.results.schema import schema_id


def _job(comm, work) -> dict | None:
    results, records = run_job(comm, work)
    if comm.Get_rank() != 0:
        return None
    ok = [r for r in results if r]
    if not ok:
        failures = "; ".join(f"rank {r['rank']} on {r['host']}: {r['error']}" for r in records)
        from rooflab.errors import RooflabError

        raise RooflabError(f"every rank failed: {failures}")
    doc = dict(ok[0])  # rank 0's document (or the first rank that finished) carries machine and environment
    doc.pop("run_id", None)
    doc["mpi"] = {"size": comm.Get_size(), "ranks": records,
                  "hosts": sorted({r["host"] for r in records}),
                  "per_rank": [{"rank": rec["rank"], "host": rec["host"], "status": rec["status"],
                                "error": rec["error"], "result": res} for rec, res in zip(records, results)]}
    return doc


def measure_job(opts, store, progress=None) -> dict | None:
    from rooflab.commands.measure import run

    comm = world()

    def work(rank: int) -> dict:
        with RankSession("measure", comm, store=None, progress=progress if rank == 0 else None) as s:
            return run(opts, s)

    doc = _job(comm, work)
    if doc is None:
        return None
    results = [p["result"] for p in doc["mpi"]["per_rank"]]
    doc["mpi"]["aggregates"] = aggregate_measure(results, doc["mpi"]["ranks"])
    doc["warnings"] = doc.get("warnings", []) + lag_warnings(doc["mpi"]["aggregates"]) + _failed(doc)
    doc["schema"] = schema_id("measure")
    _store_job(store, "measure", doc)
    return doc


def bench_job(specs, quick: bool, store, progress=None) -> dict | None:
    from rooflab.commands.bench import run
    from rooflab.results.history import measure_history
    from rooflab.machine import describe

    comm = world()
    # rank 0 reads this machine's stored rooflines once; every rank places its points on the same roofs
    history = measure_history(store, describe(clock=False)["key"], limit=10) if comm.Get_rank() == 0 else None
    history = comm.bcast(history, root=0)
    roof = history[0] if history else None

    def work(rank: int) -> dict:
        with RankSession("bench", comm, store=None, progress=progress if rank == 0 else None) as s:
            return run(s, specs, quick=quick, measure_doc=history or None)

    doc = _job(comm, work)
    if doc is None:
        return None
    results = [p["result"] for p in doc["mpi"]["per_rank"]]
    doc["mpi"]["aggregates"] = aggregate_bench(results, doc["mpi"]["ranks"])
    doc["mpi"]["job_roofline"] = place_on_job_roofline(doc["mpi"]["aggregates"], results, roof)
    doc["warnings"] = doc.get("warnings", []) + _failed(doc)
    doc["schema"] = schema_id("bench")
    _store_job(store, "bench", doc)
    return doc


def _failed(doc: dict) -> list[dict]:
    from rooflab.i18n import msg
    from rooflab.timing.checks import Warning_

    return [Warning_("rank-failed", msg("rank {rank} on {host} failed: {error}", rank=r["rank"], host=r["host"],
                                        error=r["error"]), 1, 0,
                     msg("its traceback is in the job record (mpi.ranks); the other ranks' results are kept"),
                     f"rank {r['rank']}").to_dict()
            for r in doc["mpi"]["ranks"] if r["status"] != "ok"]


def _store_job(store, kind: str, doc: dict) -> None:
    if store is None:
        return
    header = {"machine": doc.get("machine", {}), "environment": doc.get("environment", {}), "command": list(sys.argv),
              "mpi": {"size": doc["mpi"]["size"], "hosts": doc["mpi"]["hosts"]}}
    records = [(f"rank {p['rank']}", {"host": p["host"], "status": p["status"], "error": p["error"]})
               for p in doc["mpi"]["per_rank"]]
    doc["run_id"] = store.save(kind, header, doc, records, label=f"mpi x{doc['mpi']['size']}")


def job_roofs(measure_doc: dict | None, precision: str) -> dict | None:
    """The job's roofline from a stored `measure --mpi` run: its aggregated FMA and DRAM ceilings."""
    aggs = ((measure_doc or {}).get("mpi") or {}).get("aggregates")
    if not aggs:
        return None
    fma = [a for a in aggs["compute"] if a["name"].startswith(f"{precision} SIMD FMA")]
    dram = [a for a in aggs["bandwidth"] if a["level"] == "DRAM" and a["kernel"] in ("read", "copy", "triad")]
    if not fma or not dram:
        return None
    return {"flops_per_s": max(a["job"] for a in fma), "bytes_per_s": max(a["job"] for a in dram),
            "ranks": max(a["ranks"] for a in fma)}


def place_on_job_roofline(aggs: list[dict], results: list[dict | None], measure_doc: dict | None) -> dict:
    """Each kernel and size's job FLOP/s against the job's roofs (DRAM and FMA aggregated over the ranks of the
    stored MPI roofline); without such a roofline, say how to get one."""
    from rooflab.model.roofline import attainable

    ok = [r for r in results if r]
    prec = ok[0]["kernels"][0]["spec"].get("precision", "fp64") if ok and ok[0]["kernels"] else "fp64"
    roofs = job_roofs(measure_doc, prec)
    if roofs is None:
        from rooflab.i18n import msg

        return {"available": False, "note": msg("no stored `mpirun ... rooflab measure --mpi` run of this machine: "
                                                "the points are placed on each rank's own roofline")}
    inten = {}
    for res in ok:
        for k in res["kernels"]:
            for r in k["sizes"]:
                if r.get("intensity"):
                    inten[(k["name"], r["label"])] = r["intensity"]
    points = []
    for a in aggs:
        i = inten.get((a["kernel"], a["label"]))
        if not i:
            continue
        roof = attainable(i, roofs["flops_per_s"], roofs["bytes_per_s"])
        points.append({"kernel": a["kernel"], "label": a["label"], "intensity": i, "job_flops_per_s": a["job"],
                       "job_roof_flops_per_s": roof, "of_job_roof": a["job"] / roof})
    return {"available": True, "roofs": roofs, "points": points}
