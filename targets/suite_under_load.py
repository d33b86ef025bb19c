"""The README's test command on a machine that is not quiet: run it quiet, under a CPU hog pinned to one CPU, and under
intermittent bursts (targets/loadgen.py) that this script starts itself; print, per condition and run, how many tests
passed, failed or erred, and how long the suite took.

    python targets/suite_under_load.py                 # one run per condition
    python targets/suite_under_load.py --runs 3        # the issue's target: 0 failures in 3 runs of each
    python targets/suite_under_load.py --only hog -- -x tests/integration   # extra pytest arguments after --

Targets: 0 failed and 0 errors in every run of every condition; quiet, the suite within 300 s. Nothing else may run
on the machine meanwhile (the script's own load is the only one it means to measure under)."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from contextlib import nullcontext
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from loadgen import Hog, bursts, cpu_hog  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
HOG_S = 3600  # far longer than a suite takes; every load is killed when its suite ends


def counts(tail: str) -> dict:
    """passed / failed / errors / skipped from pytest's closing line."""
    got = {k: 0 for k in ("passed", "failed", "error", "skipped")}
    for n, what in re.findall(r"(\d+) (passed|failed|errors?|skipped)", tail):
        got["error" if what.startswith("error") else what] += int(n)
    return got


def run_suite(extra: list[str], log: Path) -> tuple[dict, float, str]:
    t0 = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *extra], cwd=ROOT,
                       capture_output=True, text=True)
    wall = time.monotonic() - t0
    log.parent.mkdir(exist_ok=True)
    log.write_text(p.stdout + p.stderr)  # the whole output, for the failures' details
    lines = [ln for ln in p.stdout.splitlines() if ln.strip()]
    failed = [ln for ln in lines if ln.startswith(("FAILED", "ERROR"))]
    return counts(lines[-1] if lines else ""), wall, "\n".join(failed)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--only", choices=("quiet", "hog", "bursts"), action="append")
    ap.add_argument("pytest_args", nargs="*")
    args = ap.parse_args()
    cpus = sorted(os.sched_getaffinity(0))
    conditions = {"quiet": lambda: nullcontext(),
                  "hog": lambda: Hog(cpu_hog(HOG_S), cpus[-1]),
                  "bursts": lambda: Hog(bursts(HOG_S), None)}
    bad = 0
    print(f"{'condition':<8} {'run':>3} {'passed':>7} {'failed':>7} {'errors':>7} {'skipped':>8} {'seconds':>8}")
    for name in args.only or list(conditions):
        for i in range(args.runs):
            log = ROOT / ".pytest-artifacts" / f"suite-{name}-{i + 1}.log"
            with conditions[name]():
                got, wall, failed = run_suite(args.pytest_args, log)
            print(f"{name:<8} {i + 1:>3} {got['passed']:>7} {got['failed']:>7} {got['error']:>7} {got['skipped']:>8} "
                  f"{wall:>8.0f}", flush=True)
            if failed:
                print("  " + failed.replace("\n", "\n  ") + f"\n  (details: {log})", flush=True)
            bad += got["failed"] + got["error"] + (got["passed"] == 0)
    print("target: 0 failed and 0 errors in every run; quiet within 300 s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
