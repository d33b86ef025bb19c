"""Targets of `rooflab measure`, measured as ratios within one run on a quiet machine.

1. fp32 FMA ceiling on all threads: >= 95% of the theoretical peak at the measured clock, never above 102%.
2. DRAM triad ceiling on all threads: within 5% of a STREAM-style triad compiled separately (-O3 -march=native
   -fopenmp), same traffic model, alternated with it round by round (A B A B ...).
3. Detected cache levels: plateau boundaries within a factor 2 of the sizes the OS reports.
4. Run-to-run spread of each ceiling over --runs runs of `rooflab measure`: coefficient of variation <= 3%.

    python bench/measure_targets.py [--runs 5] [--rounds 11] [--quick]

Never run it beside another benchmark: on a small machine both results would be wrong.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def run_measure(quick: bool) -> dict:
    cmd = [sys.executable, "-m", "rooflab", "measure", "--json", "--no-batch-sweep", "--no-store"]
    if quick:
        cmd.append("--quick")
    r = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(r.stdout)


def stream_vs_rooflab(threads: int, n: int, rounds: int = 5) -> list[tuple[float, float]]:
    from rooflab.build.compiler import find_compiler, openmp_flags
    from rooflab.labs import tasks
    from rooflab.labs.kernels import build_stream, vector_bytes
    from rooflab.machine.cpu import describe_cpu
    from rooflab.timing.harness import HarnessConfig, Timing
    from rooflab.timing.worker import Worker

    cc = find_compiler()
    omp = openmp_flags(cc)
    if omp is None:
        raise SystemExit("the STREAM reference needs OpenMP")
    exe = Path(tempfile.mkdtemp()) / "stream_ref"
    subprocess.run([cc.path, "-O3", "-march=native", *omp, str(HERE / "stream_ref.c"), "-o", str(exe)], check=True)
    lib = str(build_stream(vector_bytes(describe_cpu().isa.to_dict())).path)
    cfg = HarnessConfig(min_sample_s=0.02, samples=11, warmup=1)
    env = {**os.environ, "OMP_NUM_THREADS": str(threads), "OMP_PROC_BIND": "false"}
    pairs = []
    with Worker() as w:
        for _ in range(rounds):
            ref = float(subprocess.run([str(exe), str(n), "21"], capture_output=True, text=True, env=env,
                                       check=True).stdout)
            res = w.call("triad", tasks.stream_task, lib, "triad", [n], threads, cfg, timeout_s=600)
            t = Timing.from_dict(res[0]["timing"])
            pairs.append((24.0 * n / t.summary.median, ref))
    return pairs


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=11, help="alternated rounds of rooflab's and the reference triad")
    ap.add_argument("--quick", action="store_true", help="measure with --quick (the targets are for the default)")
    args = ap.parse_args()
    docs = [run_measure(args.quick) for _ in range(args.runs)]
    ok = True
    # 1. FMA vs theoretical
    d0 = docs[0]
    tall = d0["threads_all"]
    fma = [c for d in docs for c in d["ceilings"]["compute"]
           if c["klass"] == "simd_fma" and c["precision"] == "fp32" and c["threads"] == tall]
    fr = [c["of_theoretical"] for c in fma]
    print(f"1. fp32 FMA x{tall}, of theoretical at the measured clock, per run: "
          + ", ".join(f"{c['of_theoretical']:.1%}" + ("" if c["status"] == "ok" else f" ({c['status']}: not a roof)")
                      for c in fma))
    ok &= all(0.95 <= x <= 1.02 for x in fr)
    # 2. DRAM triad vs STREAM
    dram = next(b for b in d0["ceilings"]["bandwidth"] if b["level"] == "DRAM" and b["kernel"] == "triad"
                and b["threads"] == tall)
    n = int(dram["working_set_bytes"] // 24)
    pairs = stream_vs_rooflab(tall, n, args.rounds)
    ratios = [a / b for a, b in pairs]
    from rooflab.timing.stats import order_statistic_median_ci
    lo, hi = order_statistic_median_ci(ratios)
    print(f"2. DRAM triad x{tall} (n = {n}): rooflab / STREAM-style reference per round: "
          + ", ".join(f"{r:.3f}" for r in ratios) + f"; median {np.median(ratios):.3f} (95% CI {lo:.3f}–{hi:.3f})")
    ok &= abs(np.median(ratios) - 1.0) <= 0.05
    # 3. plateau boundaries vs the OS cache sizes
    caches = d0["machine"]["caches"]
    for d in docs:
        sw = next(s for s in d["bandwidth_sweeps"] if s["kernel"] == "read" and s["threads"] == 1)
        parts = []
        for p in sw["plateaus"]:
            if p["level"] in caches and p.get("boundary_bytes"):
                r = p["boundary_bytes"] / caches[p["level"]]
                parts.append(f"{p['level']} {r:.2f}x")
                ok &= 0.5 <= r <= 2.0
        missing = [lv for lv in caches if lv not in {p["level"] for p in sw["plateaus"]}]
        print("3. read x1 plateau edge / OS size: " + ", ".join(parts) + (f"; not found: {missing}" if missing else ""))
        ok &= not missing
    # 4. run-to-run CV
    if len(docs) >= 2:
        keys = {}
        for d in docs:
            for c in d["ceilings"]["compute"]:
                if c.get("flops_per_s"):
                    keys.setdefault(("compute", c["name"], c["threads"]), []).append(c["flops_per_s"])
            for b in d["ceilings"]["bandwidth"]:
                if b.get("bytes_per_s"):
                    keys.setdefault(("bw", b["level"], b["kernel"], b["threads"]), []).append(b["bytes_per_s"])
        worst = []
        for k, v in keys.items():
            if len(v) == len(docs):
                cv = float(np.std(v, ddof=1) / np.mean(v))
                worst.append((cv, k))
        worst.sort(reverse=True)
        within = sum(cv <= 0.03 for cv, _ in worst)
        print(f"4. run-to-run CV over {len(docs)} runs: {within}/{len(worst)} ceilings within 3%; largest: "
              + "; ".join(f"{' '.join(map(str, k[1:]))} {cv:.1%}" for cv, k in worst[:6]))
        ok &= within == len(worst)
        warned = sum(1 for d in docs for w in d["warnings"] if w["code"] in ("high-spread", "unstable-clock",
                                                                             "competing-load"))
        print(f"   noise warnings issued by rooflab across the runs: {warned}")
    print("all targets met" if ok else "some targets missed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
