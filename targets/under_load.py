"""rooflab measure on a busy machine, as ratios within one run.

Measures this machine quiet, then under a CPU hog pinned to one CPU, then under a memory hog pinned to one CPU
(each into one fresh store), and prints:

- the figures above their physical bound, and how many of them are shown as valid (target: 0);
- the all-thread ceilings more than 15% from quiet that are still marked ok (target: 0), and every ceiling still ok
  under load as a ratio to its quiet figure;
- whether the quiet run stays this machine's reference roofline (each roof taken from the newest run that holds it
  as a roof);
- the DRAM roof on all threads against likwid-bench (Debian's `likwid`), the best of its load, non-temporal-load and
  streaming-store triad kernels for this ISA, at the same working set and thread count: once against the roof of
  the quiet run, and as the median of alternated rounds of rooflab's own DRAM kernels and likwid's (the host's DRAM
  bandwidth swings by a third within seconds, so only alternation compares like with like). Target: >= 0.95.

    python targets/under_load.py [--full] [--rounds 9] [--no-likwid]

Never run it beside another benchmark: on a small machine both results would be wrong.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import rooflab
from rooflab.commands.measure.cpu import bound_clock
from rooflab.model.reference import roofs_at
from rooflab.results.history import measure_history
from rooflab.model.bounds import KERNEL_ACCESS, bandwidth_bound
from rooflab.results.store import Store

sys.path.insert(0, str(Path(__file__).resolve().parent))
from loadgen import Hog, cpu_hog, memory_hog  # noqa: E402

HOG_S = 600
CPU_HOG, MEM_HOG = cpu_hog(HOG_S), memory_hog(HOG_S)


def key(c: dict) -> tuple:
    if "klass" in c:
        return (c["name"], c["threads"])
    return (c["level"], c["kernel"], c["threads"])


def rate(c: dict) -> float | None:
    return c.get("flops_per_s") or c.get("bytes_per_s")


def label(k: tuple) -> str:
    return " ".join(str(x) for x in k[:-1]) + f" x{k[-1]}"


def above_bound(doc: dict) -> list[tuple[str, str, float]]:
    """(name, status, figure / bound) of every figure above its physical bound, whatever its status."""
    out = []
    m = doc["machine"]
    clock = bound_clock(m, doc["ceilings"]["compute"])
    for c in doc["ceilings"]["compute"]:
        if c.get("of_theoretical") and c["of_theoretical"] > 1.02:
            out.append((label(key(c)), c["status"], c["of_theoretical"]))
    for c in doc["ceilings"]["bandwidth"]:
        if not c.get("bytes_per_s"):
            continue
        loads, stores = KERNEL_ACCESS.get(c["kernel"], (8.0, 0.0))
        b, _ = bandwidth_bound(m["uarch"], c["level"], loads, stores, c["threads"], m["physical_cores"], clock)
        if c["bytes_per_s"] > 1.02 * b:
            out.append((label(key(c)), c["status"], c["bytes_per_s"] / b))
    return out


def likwid_pairs(isa: str) -> list[tuple[str, str]]:
    """(rooflab kernel, likwid-bench kernel) pairs that move the same bytes the same way, for this ISA."""
    w = {"avx512": "_avx512", "avx2": "_avx", "avx": "_avx"}.get(isa, "")
    return [("read", f"load{w}"), ("read_nt", "load_mem"), ("copy_nt", f"copy_mem{w}"),
            ("triad_nt", f"stream_mem{w}" if w else "stream_mem")]


def likwid(kernel: str, ws_bytes: int, threads: int, iters: int) -> float | None:
    """Bytes/s of one likwid-bench kernel at a working set (all its streams together) on the first threads of S0,
    over ``iters`` sweeps (a short run: the process start is not timed, the sweeps are)."""
    r = subprocess.run(["likwid-bench", "-t", kernel, "-w", f"S0:{max(1, ws_bytes // 1000)}kB:{threads}",
                        "-i", str(iters)], capture_output=True, text=True, timeout=300)
    m = re.search(r"MByte/s:\s+([\d.]+)", r.stdout)
    return float(m.group(1)) * 1e6 if m else None


def compare_cache_reads(quiet: dict, rounds: int) -> bool:
    """The quiet run's cache read ceilings against likwid-bench's load kernel at the same working set and thread
    count: rooflab's read kernel and likwid's alternated, rounds of both; target: median ratio >= 1 within noise."""
    if not shutil.which("likwid-bench"):
        return True
    load = likwid_pairs(quiet["machine"]["isa"]["name"])[0][1]
    rows = [c for c in quiet["ceilings"]["bandwidth"] if c["kernel"] == "read" and c["level"] in ("L1", "L2", "L3")
            and c["status"] == "ok"]
    print(f"\ncache read ceilings of the quiet run against likwid-bench {load} ({rounds} alternated rounds each):")
    ok = True
    for c in sorted(rows, key=lambda c: (c["threads"], c["level"])):
        ws = int(c["working_set_bytes"])
        iters = max(10, int(0.15 * c["bytes_per_s"] / ws))
        ratios = []
        for i in range(rounds):
            pair = {}
            for side in (("own", "lw") if i % 2 == 0 else ("lw", "own")):
                pair[side] = (rooflab_dram("read", ws, c["threads"]) if side == "own"
                              else likwid(load, ws, c["threads"], iters))
            if pair["own"] and pair["lw"]:
                ratios.append(pair["own"] / pair["lw"])
        ratios.sort()
        med = float(np.median(ratios)) if ratios else 0.0
        ok &= med >= 0.97
        print(f"  {c['level']} x{c['threads']} at {ws >> 10} KiB: ceiling {c['bytes_per_s'] / 1e9:.0f} GB/s; rooflab "
              f"read / likwid {load}: median {med:.3f} (range {ratios[0]:.3f}–{ratios[-1]:.3f})")
    return ok


def rooflab_dram(kind: str, ws_bytes: int, threads: int) -> float | None:
    """Bytes/s of one of rooflab's own DRAM kernels at a working set, timed as `rooflab measure` times a ceiling
    (median of short samples), for about as long as the likwid-bench run beside it."""
    from rooflab.kernels import tasks
    from rooflab.kernels.builders import build_stream, vector_bytes
    from rooflab.commands.measure.cpu import elements_for
    from rooflab.machine.cpu import describe_cpu
    from rooflab.timing.harness import HarnessConfig, Timing

    lib = str(build_stream(vector_bytes(describe_cpu().isa.to_dict())).path)
    cfg = HarnessConfig(min_sample_s=0.02, samples=7, warmup=1, min_samples=7, budget_s=0.5, max_sample_s=0.5)
    n = elements_for(kind, ws_bytes)
    r = tasks.stream_task(lib, kind, [n], threads, cfg)[0]
    if not r.get("timing"):
        return None
    return tasks.STREAM_BYTES_PER_ELEM[kind] * n / Timing.from_dict(r["timing"]).summary.median


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--full", action="store_true", help="the full measurement instead of --quick (several minutes)")
    ap.add_argument("--rounds", type=int, default=9, help="alternated rooflab / likwid rounds (default 9)")
    ap.add_argument("--no-likwid", action="store_true")
    a = ap.parse_args()
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        raise SystemExit("needs two CPUs: one for the hog, one at least for rooflab")
    store = Path(tempfile.mkdtemp()) / "store.sqlite"

    def measure(what: str) -> dict:
        t0 = time.time()
        doc = rooflab.measure(quick=not a.full, store=str(store))
        print(f"  {what}: run {doc['run_id']}, {time.time() - t0:.0f} s, "
              f"{len(doc['trust']['disturbed'])} ceiling(s) disturbed", flush=True)
        return doc

    print(f"rooflab measure{' --quick' if not a.full else ''}: quiet, then a hog pinned to CPU {cpus[-1]}")
    quiet = measure("quiet")
    with Hog(CPU_HOG, cpus[-1]):
        cpu = measure("CPU hog")
    with Hog(MEM_HOG, cpus[-1]):
        mem = measure("memory hog")
    loaded = {"CPU hog": cpu, "memory hog": mem}
    tall = quiet["threads_all"]
    base = {key(c): c for c in quiet["ceilings"]["compute"] + quiet["ceilings"]["bandwidth"]
            if c["status"] == "ok" and rate(c)}

    ok_targets = True
    for name, doc in [("quiet", quiet)] + list(loaded.items()):
        bad = above_bound(doc)
        shown = [b for b in bad if b[1] == "ok"]
        ok_targets &= not shown
        print(f"\n{name}: {len(bad)} figure(s) above their physical bound, {len(shown)} of them shown as valid "
              f"(target 0)")
        for n, st, r in bad:
            print(f"    {n}: {r:.3g}x its bound, status {st}")
    for name, doc in loaded.items():
        off, kept = [], []
        for c in doc["ceilings"]["compute"] + doc["ceilings"]["bandwidth"]:
            q = base.get(key(c))
            if c["status"] != "ok" or q is None:
                continue
            r = rate(c) / rate(q)
            kept.append((label(key(c)), r))
            if c["threads"] == tall and abs(r - 1) > 0.15:
                off.append((label(key(c)), r))
        ok_targets &= not off
        print(f"\n{name}: {len(off)} all-thread ceiling(s) more than 15% from quiet still marked ok (target 0)")
        for n, r in off:
            print(f"    {n}: {r:.2f}x quiet")
        print(f"  ceilings still ok under load, as ratios to quiet ({len(kept)}):")
        for n, r in kept:
            print(f"    {n}: {r:.2f}")
        marked = len(doc["trust"]["disturbed"]) + len(doc["trust"]["impossible"])
        print(f"  marked disturbed or impossible: {marked}")

    with Store(store) as st:
        history = measure_history(st, quiet["machine"]["key"])
    for prec in quiet["precisions"]:
        ref = roofs_at(history, tall, prec)
        foreign = []
        for r in ref["compute"] + ref["memory"]:
            if r["run_id"] == quiet["run_id"]:
                continue
            k = _match(loaded, r)
            q = base.get(k) if k else None
            close = q is not None and abs(r["value"] / rate(q) - 1) <= 0.15
            foreign.append(f"{r['name']} ({'within 15% of quiet' if close else 'NOT within 15% of quiet'})")
            ok_targets &= close
        print(f"\nreference roofline ({prec}, {tall} threads) after the loaded runs: "
              + ("every roof from the quiet run" if not foreign else "roofs from loaded runs: " + ", ".join(foreign)))

    fma = [c for c in quiet["ceilings"]["compute"] if c["precision"] == "fp32" and c["klass"] == "simd_fma"]
    print("\nquiet fp32 FMA: " + ", ".join(f"x{c['threads']} {c['status']} {(c.get('of_theoretical') or 0):.1%} of "
                                          "theoretical" for c in fma) + " (target >= 95%)")
    ok_targets &= all(c["status"] == "ok" and c["of_theoretical"] >= 0.95 for c in fma)
    if not a.no_likwid:
        ok_targets &= compare_cache_reads(quiet, a.rounds)
        ok_targets &= compare_likwid(quiet, tall, a.rounds)
    print("\ntargets met" if ok_targets else "\ntargets NOT met")


def _match(loaded: dict, roof: dict):
    for doc in loaded.values():
        if doc["run_id"] == roof["run_id"]:
            for c in doc["ceilings"]["compute"] + doc["ceilings"]["bandwidth"]:
                if c["status"] == "ok" and rate(c) == roof["value"]:
                    return key(c)
    return None


def compare_likwid(quiet: dict, tall: int, rounds: int) -> bool:
    if not shutil.which("likwid-bench"):
        print("\nlikwid-bench is not installed (Debian: apt-get install likwid): no DRAM comparison")
        return True
    roof = next((m for m in quiet["roofs"]["memory"] if m["level"] == "DRAM"), None)
    if roof is None:
        print("\nthe quiet run has no DRAM roof (disturbed or impossible): nothing to compare")
        return False
    dram = [c for c in quiet["ceilings"]["bandwidth"] if c["level"] == "DRAM" and c["threads"] == tall
            and c.get("working_set_bytes") and not c.get("reference")]
    ws = int(max(c["working_set_bytes"] for c in dram))
    pairs = likwid_pairs(quiet["machine"]["isa"]["name"])
    rates = {c["kernel"]: c["bytes_per_s"] for c in dram if c["status"] == "ok"}
    iters = max(4, int(0.15 * (roof["value"] or 2e10) / ws))  # about 0.15 s of sweeps per likwid run
    print(f"\nDRAM on {tall} threads at {ws >> 20} MiB against likwid-bench, {rounds} alternated rounds "
          f"(each round: every pair, rooflab first or likwid first in turn):")
    per_pair: dict[str, list[float]] = {a: [] for a, _ in pairs}
    best: list[float] = []
    for i in range(rounds):
        own, theirs = {}, {}
        for a, b in pairs:
            order = ("own", "lw") if (i + len(own)) % 2 == 0 else ("lw", "own")
            for side in order:
                if side == "own":
                    own[a] = rooflab_dram(a, ws, tall)
                else:
                    theirs[b] = likwid(b, ws, tall, iters)
            if own[a] and theirs[b]:
                per_pair[a].append(own[a] / theirs[b])
        if own and theirs:
            best.append(max(v for v in own.values() if v) / max(v for v in theirs.values() if v))
    for a, b in pairs:
        r = sorted(per_pair[a])
        if r:
            print(f"  rooflab {a} / likwid {b}: median {np.median(r):.3f} (range {r[0]:.3f}–{r[-1]:.3f}); "
                  f"in the quiet run rooflab's {a} was {(rates.get(a) or 0) / 1e9:.1f} GB/s")
    best.sort()
    med = float(np.median(best))
    print(f"  the quiet run's DRAM roof: {roof['value'] / 1e9:.1f} GB/s ({roof['kernel']}; regular stores "
          f"{(roof.get('regular_value') or 0) / 1e9:.1f} GB/s)")
    print(f"  per round, rooflab's best DRAM kernel / likwid's best: median {med:.3f} "
          f"(range {best[0]:.3f}–{best[-1]:.3f}; target >= 0.95)")
    return med >= 0.95


if __name__ == "__main__":
    main()
