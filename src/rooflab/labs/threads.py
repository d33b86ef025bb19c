"""The threads lab: scaling from one thread to all of a compute-bound kernel (the ladder's packed GEMM) and a
bandwidth-bound one (the triad in DRAM): speed-up, efficiency, and where bandwidth saturates."""

from __future__ import annotations

from rooflab.errors import RooflabError
from rooflab.machine.env import usable_cpus
from rooflab.results.schema import schema_id
from rooflab.session import Session
from rooflab.timing.harness import HarnessConfig, Timing
from rooflab.kernels import tasks
from rooflab.kernels.gemmrun import measure_gemm
from rooflab.kernels.builders import build_gemm, build_stream, gemm_params, vector_bytes
from rooflab.labs import ladder


# the kernels it alternates run OpenMP threads: none may spin on a core between calls (see the ladder)
WORKER_ENV = ladder.WORKER_ENV


def thread_counts(n: int) -> list[int]:
    out, t = [], 1
    while t < n:
        out.append(t)
        t *= 2
    return out + [n]


def run(session: Session, *, threads: int | None = None, quick: bool = False) -> dict:
    m = session.machine
    tall = threads or usable_cpus()
    counts = thread_counts(tall)
    gp = gemm_params(m["isa"])
    glib = str(build_gemm(gp).path)
    slib = str(build_stream(vector_bytes(m["isa"])).path)
    llc = max((m.get("caches") or {"L3": 32 << 20}).values())
    n_triad = int(max(8 * llc, 128 << 20) // 24)
    n_gemm = 512 if quick else 1024
    cfg = (HarnessConfig(min_sample_s=0.01, samples=5, warmup=1, min_samples=3, budget_s=0.6) if quick else
           HarnessConfig(min_sample_s=0.03, samples=9, warmup=1, min_samples=5, budget_s=2.0))
    gemm, triad = [], []
    for t in counts:
        gemm.append(measure_gemm(session, f"gemm x{t}", glib, "rl_gemm_packed", (n_gemm,) * 3, cfg, (("int", t),),
                                 threads=t))
        session.progress(f"threads: triad x{t}")
        try:
            (p,) = session.call(f"triad x{t}", tasks.stream_task, slib, "triad", [n_triad], t, cfg, timeout_s=600)
            tm = Timing.from_dict(p["timing"])
            triad.append({"name": f"triad x{t}", "threads": t, "bytes_per_s": 24 * n_triad / tm.summary.median,
                          "ci95": [24 * n_triad / tm.summary.ci95[1], 24 * n_triad / tm.summary.ci95[0]],
                          "rel_error": p["rel_error"], "seconds": tm.samples})
            session.check_timing(f"triad x{t}", tm)
        except RooflabError as exc:
            triad.append({"name": f"triad x{t}", "threads": t, "error": str(exc), "bytes_per_s": None})
        session.record(f"triad x{t}", triad[-1])
    for rows, key in ((gemm, "flops_per_s"), (triad, "bytes_per_s")):
        base = rows[0].get(key)
        for r in rows:
            if base and r.get(key):
                r["speedup"] = r[key] / base
                r["efficiency"] = r["speedup"] / r["threads"]
    doc = {"schema": schema_id("lab.threads"), "lab": "threads", "quick": quick, "counts": counts,
           "gemm_n": n_gemm, "triad_bytes": 24 * n_triad, "gemm": gemm, "triad": triad,
           "physical_cores": m.get("physical_cores")}
    from rooflab.interpret.observations import threads_observations

    return session.finish(doc, observe=threads_observations)

