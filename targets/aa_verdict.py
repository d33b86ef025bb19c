"""A/A check of the comparison verdict on real kernels: the same C kernel timed against itself in interleaved
rounds must be judged "no difference" in at least 19 of 20 comparisons (the target). For sensitivity, the script
also reports how often a kernel doing 10% more work is judged slower (twice the rounds).

    python targets/aa_verdict.py [--comparisons 20] [--rounds 15]
"""

from __future__ import annotations

import argparse
import ctypes
import sys

import numpy as np

from rooflab.kernels.builders import build_stream, vector_bytes
from rooflab.kernels.tasks import aligned_array
from rooflab.machine.cpu import describe_cpu
from rooflab.timing.harness import HarnessConfig, run_interleaved
from rooflab.timing.stats import paired_ratio


def triad(lib: str, n: int):
    f = ctypes.CDLL(lib).rl_triad
    f.restype = ctypes.c_double
    f.argtypes = [ctypes.c_long, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_double,
                  ctypes.c_long]
    a, b, c = (aligned_array(n, np.float64, v, skew=k * 1088) for k, v in enumerate((0.0, 1.0, 2.0)))
    return lambda reps: f(reps, 1, a.ctypes.data, b.ctypes.data, c.ctypes.data, 3.0, n)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--comparisons", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=15)
    args = ap.parse_args()
    lib = str(build_stream(vector_bytes(describe_cpu().isa.to_dict())).path)
    n = 16384  # 384 KiB: in L2, where run-to-run noise is large relative to the kernel
    cfg = HarnessConfig(min_sample_s=0.01, samples=args.rounds, warmup=1)
    verdicts = []
    for _ in range(args.comparisons):
        r = run_interleaved({"A": triad(lib, n), "A'": triad(lib, n)}, cfg)
        c = paired_ratio(r["A"].samples, r["A'"].samples)
        verdicts.append(c.verdict)
        print(f"A/A ratio {c.ratio:.4f} CI [{c.ci95[0]:.4f}, {c.ci95[1]:.4f}] -> {c.verdict}")
    same = verdicts.count("no difference")
    print(f"identical kernels judged 'no difference' in {same}/{len(verdicts)} comparisons")
    more = []
    cfg2 = HarnessConfig(min_sample_s=0.01, samples=2 * args.rounds, warmup=1)
    for _ in range(5):
        r = run_interleaved({"A": triad(lib, n), "B": triad(lib, int(n * 1.10))}, cfg2)
        more.append(paired_ratio(r["A"].samples, r["B"].samples))
    print(f"sensitivity: 10% more work judged slower in {sum(c.verdict == 'slower' for c in more)}/5 "
          f"({2 * args.rounds} rounds): " + ", ".join(f"{c.ratio:.3f} {c.verdict}" for c in more))
    ok = same >= 0.95 * len(verdicts)
    print("A/A target met" if ok else "A/A target missed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
