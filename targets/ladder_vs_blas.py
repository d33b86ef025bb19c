"""Targets of `rooflab lab ladder`: the best own rung (the packed microkernel for this ISA) against NumPy's BLAS
at n = 512, 1000, 1024, 2000 and 2048, on one thread and on all, as the median of per-round ratios from
interleaved rounds (own, BLAS, own, BLAS ...) in one run.

Targets (the issue's): >= 0.95 at n = 512, 1024 and 2048 on one thread and on all; >= 1.0 at n = 1000 or 2000.

    python targets/ladder_vs_blas.py [--sizes 512 1000 1024 2000 2048] [--rounds 15]

OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE, where the machine sets them to dodge bugs of old OpenBLAS builds, slow a
current NumPy; this script unsets both in the worker that runs BLAS, and prints which kernel BLAS then uses.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

from rooflab.kernels import tasks
from rooflab.kernels.builders import build_gemm, gemm_params
from rooflab.kernels.builders import OPENMP_QUIET_ENV as WORKER_ENV
from rooflab.machine.cpu import describe_cpu
from rooflab.machine.env import blas_info, usable_cpus
from rooflab.timing.harness import HarnessConfig
from rooflab.timing.stats import order_statistic_median_ci
from rooflab.timing.worker import Worker


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[512, 1000, 1024, 2000, 2048])
    ap.add_argument("--rounds", type=int, default=15)
    args = ap.parse_args()
    for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        os.environ.pop(k, None)  # this process and its worker only
    p = gemm_params(describe_cpu().isa.to_dict())
    lib = str(build_gemm(p).path)
    tall = usable_cpus()
    cfg = HarnessConfig(min_sample_s=0.05, samples=args.rounds, warmup=1, min_samples=args.rounds, budget_s=1e9)
    results = {}
    with Worker(env=WORKER_ENV, default_timeout_s=1800) as w:
        blas = [(b.get("internal_api"), b.get("version"), b.get("architecture")) for b in w.call("blas", blas_info)]
        print("BLAS in the worker:", blas, "| microkernel", p.to_dict())
        for n in args.sizes:
            for t in sorted({1, tall}):
                res = w.call("ladder", tasks.ladder_task, lib, "rl_gemm_packed", n, t, cfg, (("int", t),))
                r = res["ratios"]
                lo, hi = order_statistic_median_ci(r)
                own = 2.0 * n ** 3 / np.median(res["own"]["samples"]) / 1e9
                blas = 2.0 * n ** 3 / np.median(res["blas"]["samples"]) / 1e9
                results[(n, t)] = float(np.median(r))
                print(f"n={n:5d} threads={t}: own {own:6.1f} GFLOP/s, BLAS {blas:6.1f} GFLOP/s, own/BLAS median "
                      f"per-round {np.median(r):.3f} (95% CI {lo:.3f}-{hi:.3f}), rel. error {res['rel_error']:.1e}")
    ok = all(v >= 0.95 for (n, _), v in results.items() if n in (512, 1024, 2048))
    parity = [v for (n, _), v in results.items() if n in (1000, 2000)]
    ok &= any(v >= 1.0 for v in parity) if parity else True
    print("targets met" if ok else "targets missed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
