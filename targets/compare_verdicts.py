"""Targets of `rooflab compare`, on real kernels in one run:

* identical kernels (A against A) judged "no difference" in >= 95% of repeated comparisons;
* a real 5% difference (B does 5% more work than A) detected as "slower" within 60 s in most trials.

    python targets/compare_verdicts.py [--trials 20] [--rounds 30]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import rooflab

SPEC = Path(__file__).resolve().parent / "specs" / "saxpy_ab.toml"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=30)
    args = ap.parse_args()
    a, b = f"{SPEC}:A", f"{SPEC}:B"
    same = []
    for _ in range(args.trials):
        r = rooflab.compare(a, a, rounds=args.rounds, store=False)["rows"][0]
        same.append(r["verdict"])
        print(f"A/A: speed-up {r['speedup']:.4f} CI [{r['speedup_ci95'][0]:.4f}, {r['speedup_ci95'][1]:.4f}] "
              f"-> {r['verdict']}")
    hits, times = 0, []
    for _ in range(args.trials):
        t0 = time.monotonic()
        r = rooflab.compare(a, b, rounds=args.rounds, store=False)["rows"][0]
        times.append(time.monotonic() - t0)
        hits += r["verdict"] == "slower"
        print(f"A/B (+5% work): speed-up {r['speedup']:.4f} CI [{r['speedup_ci95'][0]:.4f}, "
              f"{r['speedup_ci95'][1]:.4f}] -> {r['verdict']} in {times[-1]:.1f} s")
    nd = same.count("no difference")
    print(f"identical kernels: 'no difference' in {nd}/{len(same)}; 5% more work: 'slower' in {hits}/{args.trials}, "
          f"at most {max(times):.1f} s per comparison")
    ok = nd >= 0.95 * len(same) and hits > args.trials / 2 and max(times) <= 60
    print("targets met" if ok else "targets missed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
