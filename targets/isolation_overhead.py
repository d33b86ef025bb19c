"""What isolation adds to `rooflab bench` on a spec of ten small kernels (target: under 5%), measured in one run:

- the wall time of `rooflab bench SPEC --quick --no-store` on ten small kernels, two sizes each;
- in a worker like bench's, the cost of the guard around one task (``Guard.before`` and ``Guard.after``: what is
  compared and put back after every task), and of switching the FP environment around one timed call, each the
  median of many;
- in a fresh process, finding (or building, once) the guard library, which every rooflab process does once;
- isolation's share = (that + tasks x the guard's cost + timed calls x the switch's cost) / the wall time.

    python targets/isolation_overhead.py

Exits 1 when the share is 5% or more. Run it on a quiet machine: it times a real bench.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

KERNELS = ["scale", "add", "triad", "copy", "sum_sq", "axpy", "mul", "neg", "half", "twice"]
BODY = {"scale": "y[i] = 2.0 * x[i]", "add": "y[i] = x[i] + 1.0", "triad": "y[i] = x[i] + 3.0 * x[i]",
        "copy": "y[i] = x[i]", "sum_sq": "y[i] = x[i] * x[i]", "axpy": "y[i] += 0.5 * x[i]", "mul": "y[i] = x[i] * 1.5",
        "neg": "y[i] = -x[i]", "half": "y[i] = 0.5 * x[i]", "twice": "y[i] = x[i] + x[i]"}


def guard_cost(n: int = 2000) -> dict:
    """In the worker: seconds per task for the guard, and per timed call for the FP environment switch."""
    from rooflab.kernels.runner import _FpEnv
    from rooflab.timing.isolation import Guard, fp_control
    from rooflab.timing.worker import guard_library

    g = Guard(guard_library())
    per_task = []
    for _ in range(n):
        t0 = time.perf_counter()
        g.before()
        g.after()
        per_task.append(time.perf_counter() - t0)
    env = _FpEnv.get()
    per_call = []
    for _ in range(n):
        t0 = time.perf_counter()
        _FpEnv.set(env)
        fp_control()
        fp_control()
        _FpEnv.set(env)
        per_call.append(time.perf_counter() - t0)
    return {"task_s": statistics.median(per_task), "call_s": statistics.median(per_call)}


def main() -> int:
    from rooflab.timing.worker import Worker

    rooflab = str(Path(sys.executable).with_name("rooflab"))
    with tempfile.TemporaryDirectory() as d:
        src = "".join(f"void {k}(long n, const double *x, double *y) {{ for (long i = 0; i < n; i++) {BODY[k]}; }}\n"
                      for k in KERNELS)
        Path(d, "k.c").write_text(src)
        spec = 'source = "k.c"\nsizes = {n = [1000, 100000]}\nflops = "n"\nbytes = "16*n"\n'
        for k in KERNELS:
            spec += (f'[[kernel]]\nfunction = "{k}"\n[kernel.args]\nn = "n"\nx = {{shape = ["n"], dtype = "float64"}}\n'
                     'y = {shape = ["n"], dtype = "float64", output = true}\n')
        Path(d, "spec.toml").write_text(spec)
        subprocess.run([rooflab, "bench", "spec.toml", "--quick", "--no-store"], cwd=d, capture_output=True)  # builds
        t0 = time.perf_counter()
        r = subprocess.run([rooflab, "bench", "spec.toml", "--quick", "--no-store", "--json"], cwd=d,
                           capture_output=True, text=True)
        wall = time.perf_counter() - t0
    if r.returncode != 0:
        print(r.stderr[-2000:])
        return 2
    doc = json.loads(r.stdout)
    rows = [row for k in doc["kernels"] for row in k["sizes"]]
    tasks = len(rows)
    calls = sum((row.get("samples") or 0) + 3 for row in rows)  # samples, plus check, calibration and warm-up calls
    import isolation_overhead as me  # the worker imports tasks by module name: not __main__

    with Worker() as w:
        cost = w.call("guard cost", me.guard_cost)
    probe = subprocess.run([sys.executable, "-c", "import time; t = time.perf_counter(); from rooflab.timing.worker "
                            "import guard_library; guard_library(); print(time.perf_counter() - t)"],
                           capture_output=True, text=True)
    lookup = float(probe.stdout.strip() or 0.0)
    added = lookup + tasks * cost["task_s"] + calls * cost["call_s"]
    share = added / wall
    print(f"bench of {len(KERNELS)} kernels x 2 sizes: {wall:.2f} s wall, {tasks} tasks, about {calls} timed calls")
    print(f"guard library found in {lookup * 1e3:.0f} ms per process; guard per task {cost['task_s'] * 1e6:.1f} us, "
          f"FP switch per call {cost['call_s'] * 1e6:.2f} us")
    print(f"isolation adds {added * 1e3:.2f} ms = {share:.3%} of the run (target < 5%)")
    return 0 if share < 0.05 else 1


if __name__ == "__main__":
    sys.exit(main())
