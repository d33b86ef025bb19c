"""The running clock under a competing process: wall-clock vs median-chunk readings of the same add chain.

Pins itself to one CPU, reads the clock alone, then again while a busy process shares that CPU. The wall-clock
reading (adds / elapsed) falls to about half; the running clock (median of short chunks, what rooflab pairs with
every peak sample) should stay within 3% of the reading taken alone. Exit 1 if it does not.

    python targets/clock_under_load.py [--cpu 0] [--samples 9]
"""

from __future__ import annotations

import argparse
import ctypes
import multiprocessing as mp
import os
import sys

import numpy as np


def spin(cpu: int) -> None:
    os.sched_setaffinity(0, {cpu})
    x = 0
    while True:
        x += 1


def read(chunked, adds: int, reps: int, samples: int) -> tuple[float, float]:
    hz = np.zeros(1)
    wall, running = [], []
    for _ in range(samples):
        t = chunked(reps, 1, hz.ctypes.data)
        wall.append(reps * adds / t)
        running.append(float(hz[0]))
    return float(np.median(wall)), float(np.median(running))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cpu", type=int, default=0)
    ap.add_argument("--samples", type=int, default=9)
    args = ap.parse_args()
    from rooflab.toolchain.compiler import build_kernel
    from rooflab.toolchain.ffi import function

    lib = build_kernel("clock")
    adds = function(lib.path, "rl_clock_adds_per_rep", ctypes.c_long, [])()
    chunked = function(lib.path, "rl_clock_chain_chunked", ctypes.c_double,
                       [ctypes.c_long, ctypes.c_int, ctypes.c_void_p])
    os.sched_setaffinity(0, {args.cpu})
    reps = 100_000  # about 30 ms at 3.5 GHz: many scheduler slices when shared
    chunked(reps, 1, np.zeros(1).ctypes.data)
    wall0, run0 = read(chunked, adds, reps, args.samples)
    p = mp.get_context("fork").Process(target=spin, args=(args.cpu,), daemon=True)
    p.start()
    try:
        chunked(reps, 1, np.zeros(1).ctypes.data)
        wall1, run1 = read(chunked, adds, reps, args.samples)
    finally:
        p.kill()
        p.join()
    print(f"alone:         wall {wall0 / 1e9:.3f} GHz, running {run0 / 1e9:.3f} GHz")
    print(f"CPU {args.cpu} shared:   wall {wall1 / 1e9:.3f} GHz, running {run1 / 1e9:.3f} GHz")
    print(f"shared / alone: wall {wall1 / wall0:.3f}, running {run1 / run0:.3f}")
    ok = abs(run1 / run0 - 1.0) <= 0.03
    print("the running clock held" if ok else "the running clock moved with the load")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
