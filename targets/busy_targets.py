"""`rooflab measure --quick` on a machine that is not quiet, against quiet runs made just before, as ratios within
one run of this script:

- **Intermittent bursts** (targets/loadgen.py: 0.1-0.5 s of work every 0.4-1.5 s, on a CPU drawn at random, two in
  five streaming memory), ``--runs`` times: two quiet runs, then one under the bursts. Counted: ceilings marked ok
  under the bursts that are more than 15% below both quiet runs (target 0), cache edges (each plateau's edge, per
  kernel, thread count and level) more than 2x from both quiet runs (target 0), and impossible figures (target 0).
- **A one-core CPU hog**: `rooflab measure --quick --plot roof.svg` under a hog pinned to one CPU must exit 0 with a
  one-thread roofline drawn, and its one-thread compute ceilings must be ok and within 10% of the quiet run.

    python targets/busy_targets.py [--runs 3] [--seed 1]

Nothing else may run on the machine meanwhile: the script's own load is the only one it means to measure under.
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import rooflab
from rooflab.results.store import Store

sys.path.insert(0, str(Path(__file__).resolve().parent))
from loadgen import Hog, bursts, cpu_hog  # noqa: E402

LOAD_S = 600


def key(c: dict) -> tuple:
    if "klass" in c:
        return (c["name"], c["threads"])
    return (c["level"], c["kernel"], c["threads"], c.get("reference"))


def rate(c: dict) -> float | None:
    return c.get("flops_per_s") or c.get("bytes_per_s")


def ceilings(doc: dict) -> list[dict]:
    return doc["ceilings"]["compute"] + doc["ceilings"]["bandwidth"]


def edges(doc: dict) -> dict:
    """Each plateau's edge (bytes), by (kernel, threads, level)."""
    out = {}
    for sw in doc["bandwidth_sweeps"]:
        for p in sw["plateaus"]:
            if p["level"] not in ("?", "DRAM") and p.get("boundary_bytes"):
                out[(sw["kernel"], sw["threads"], p["level"])] = p["boundary_bytes"]
    return out


def measure(store: str) -> dict:
    return rooflab.measure(quick=True, store=store)


def bursts_part(runs: int, seed: int, store: str) -> bool:
    low_total = edge_total = impossible_total = 0
    for i in range(runs):
        q1, q2 = measure(store), measure(store)
        with Hog(bursts(LOAD_S, seed + i), None):
            b = measure(store)
        quiet = [{key(c): c for c in ceilings(q) if c["status"] == "ok" and rate(c)} for q in (q1, q2)]
        low = []
        for c in ceilings(b):
            k = key(c)
            if c["status"] != "ok" or not rate(c) or not all(k in q for q in quiet):
                continue
            ratios = [rate(c) / rate(q[k]) for q in quiet]
            if all(r < 0.85 for r in ratios):
                low.append((k, ratios, c, [q[k] for q in quiet]))
        qe = [edges(q1), edges(q2)]
        far = []
        for k, e in edges(b).items():
            ref = [q[k] for q in qe if k in q]
            if ref and all(abs(math.log(e / r)) > math.log(2.0) for r in ref):
                far.append((k, e, ref))
        impossible = [key(c) for c in ceilings(b) if c["status"] == "impossible"]
        disturbed = len(b["trust"]["disturbed"])
        print(f"bursts run {i + 1}: {len(low)} ok ceiling(s) more than 15% below both quiet runs, {len(far)} edge(s) "
              f"more than 2x from both, {len(impossible)} impossible; {disturbed} marked disturbed", flush=True)
        for k, ratios, c, qs in low:
            # what the run itself saw, to tell a burst it missed from a figure that moved for another reason
            ws = "/".join(f"{(x.get('working_set_bytes') or 0) / 1024:.0f}" for x in (c, *qs))
            print(f"    {k}: {ratios[0]:.2f}x and {ratios[1]:.2f}x the quiet runs, marked ok; meanwhile others "
                  f"{c.get('others_cores') or 0:.2f} core(s), running {c.get('running') or 0:.2f}, rounds dropped "
                  f"{c.get('disturbed_rounds') or []}; working sets (KiB, this run/quiet runs) {ws}")
        for k, e, ref in far:
            print(f"    edge {k}: {e / 1024:.0f} KiB against {', '.join(f'{r / 1024:.0f}' for r in ref)} KiB quiet")
        low_total += len(low)
        edge_total += len(far)
        impossible_total += len(impossible)
    print(f"bursts: {low_total} low ok ceilings, {edge_total} far edges, {impossible_total} impossible "
          "(targets 0, 0, 0)")
    return low_total == edge_total == impossible_total == 0


def hog_part(store: str) -> bool:
    cpus = sorted(os.sched_getaffinity(0))
    quiet = measure(store)
    plot = Path(tempfile.mkdtemp()) / "roof.svg"
    with Hog(cpu_hog(LOAD_S), cpus[-1]):
        p = subprocess.run([sys.executable, "-m", "rooflab", "measure", "--quick", "--store", store, "--plot",
                            str(plot)], capture_output=True, text=True)
    with Store(store) as st:
        run = st.runs(kind="measure", limit=1)[0]
        doc = st.result(run["run_id"])
    roofs = doc["roofs"]
    base = {key(c): c for c in ceilings(quiet) if c["status"] == "ok"}
    one = [c for c in doc["ceilings"]["compute"] if c["threads"] == 1 and c["klass"] != "blas_gemm"]
    bad = [c for c in one if c["status"] != "ok" or key(c) not in base
           or abs(rate(c) / rate(base[key(c)]) - 1) > 0.10]
    print(f"one-core hog: exit {p.returncode}, plot {'written' if plot.exists() else 'MISSING'}, roofline on "
          f"{roofs.get('threads')} thread(s); {len(one) - len(bad)} of {len(one)} one-thread compute ceilings ok and "
          "within 10% of quiet")
    for c in bad:
        q = base.get(key(c))
        print(f"    {c['name']} x1: {c['status']}" + (f", {rate(c) / rate(q):.2f}x quiet" if q and rate(c) else ""))
    return p.returncode == 0 and plot.exists() and roofs.get("threads") == 1 and not bad


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    if len(os.sched_getaffinity(0)) < 2:
        raise SystemExit("needs two CPUs")
    store = str(Path(tempfile.mkdtemp()) / "store.sqlite")
    t0 = time.time()
    ok = bursts_part(a.runs, a.seed, store)
    ok &= hog_part(store)
    print(f"\n{'targets met' if ok else 'targets NOT met'} ({time.time() - t0:.0f} s)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
