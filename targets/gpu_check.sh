#!/usr/bin/env bash
# Everything that needs a real NVIDIA GPU, in one pass, each step with its own time limit so that one failure does not
# hide the others:
#   1. the device, the driver and the Python packages;
#   2. every backend primitive once, small (FMA, read/copy/triad, cudaMemcpy, each GEMM precision), with its result
#      check, so that a broken one is named with its traceback;
#   3. pytest -m gpu (measure --device cuda --quick, structure and correctness);
#   4. targets/gpu_targets.py on the full run (ratios within that run), its document, and the report drawn from it.
#
#     bash targets/gpu_check.sh [OUTDIR]        # logs in OUTDIR (default gpu-check/)
set -u
out=${1:-gpu-check}
mkdir -p "$out"
py=${PYTHON:-python3}
export PYTHONUNBUFFERED=1
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here" || exit 2

step() {  # step NAME SECONDS CMD...
    local name=$1 limit=$2 t0 rc
    shift 2
    t0=$(date +%s)
    timeout "$limit" "$@" >"$out/$name.log" 2>&1
    rc=$?
    echo "== $name: exit $rc in $(( $(date +%s) - t0 )) s (limit $limit s)"
    tail -n 25 "$out/$name.log"
}

step env 60 bash -c "nvidia-smi; $py -c 'import sys, numpy, cupy; print(sys.version); print(\"numpy\", numpy.__version__, \"cupy\", cupy.__version__); cupy.show_config()'; $py -c 'import torch; print(\"torch\", torch.__version__, torch.version.cuda)'"

step primitives 120 "$py" - <<'PY'
import time, traceback
from rooflab.gpu import backend as B

be = B.CupyBackend(0)
print(be.device())
print(be.state())
cases = [("fma fp32", lambda: be.fma("fp32", 4096)), ("fma fp64", lambda: be.fma("fp64", 1024)),
         ("read 32 MiB", lambda: be.stream("read", 32 << 20)), ("copy 32 MiB", lambda: be.stream("copy", 32 << 20)),
         ("triad 1 GiB", lambda: be.stream("triad", 1 << 30)), ("cudaMemcpy 1 GiB", lambda: be.d2d_copy(1 << 30))]
cases += [(f"gemm {p}", (lambda p=p: be.gemm(p, 2048, 2048, 2048)))
          for p in ("fp64_tensor", "tf32", "fp16", "bf16", "fp8")]
for name, make in cases:
    try:
        t0 = time.perf_counter()
        t = make()
        t.run(2)
        s = t.run(5) / 5
        err = t.check()
        clk = t.clock_hz() if t.clock_hz else None
        print(f"{name:18s} {t.work / s:.4g}/s  rel_error {err:.2e}  clock {clk}  ({time.perf_counter() - t0:.1f} s) "
              f"{t.note}")
    except Exception:
        print(f"{name}: FAILED")
        traceback.print_exc()
be.release()
PY

step pytest 240 "$py" -m pytest -m gpu -q -p no:cacheprovider tests
step gemm 120 "$py" - <<'PY'
# The bf16 GEMM at n = 8192 and 16384, each run 1.5 s back to back (sustained: median of the second half; burst: the
# fastest 20 ms chunk): rooflab's backend, and the same cuBLAS call on operands made two ways (rooflab's: one
# generator, rounded to bf16; the targets script's: two generators, truncated), with the clock and power after each.
# Tells a size, data or call effect from a power or clock effect.
import statistics
import cupy as cp
import numpy as np
from rooflab.commands.measure.gpu import calibrate, sustain
from rooflab.gpu import backend as B

be = B.CupyBackend(0)
cublas, h = B.cublas_of(cp)


def operands(n, how):
    if how == "rounded":
        rng = cp.random.default_rng(7)
        return B._to_bf16(cp, rng.standard_normal((n, n), dtype=cp.float32)), \
            B._to_bf16(cp, rng.standard_normal((n, n), dtype=cp.float32))
    return tuple((cp.random.default_rng(s).standard_normal((n, n), dtype=cp.float32).view(cp.uint32) >> 16)
                 .astype(cp.uint16) for s in (1, 2))


def direct(n, how):
    a, b = operands(n, how)
    c = cp.empty((n, n), dtype=cp.float32)
    one, zero = np.array(1.0, np.float32), np.array(0.0, np.float32)

    def launch():
        cublas.gemmEx(h, 0, 0, n, n, n, one.ctypes.data, b.data.ptr, 14, n, a.data.ptr, 14, n, zero.ctypes.data,
                      c.data.ptr, 0, n, 68, -1)

    return B.Timed(be._events(launch), work=2.0 * n ** 3)


for n in (8192, 16384):
    for who in ("rooflab", "truncated", "rounded", "rooflab"):
        t = be.gemm("bf16", n, n, n) if who == "rooflab" else direct(n, who)
        reps = calibrate(t, 0.02)
        rates = []
        spent = 0.0
        while spent < 1.5:
            s = t.run(reps)
            spent += s
            rates.append(t.work * reps / s)
        del t
        be.release()
        st = be.state()
        print(f"n={n:6d} {who:9s} sustained {statistics.median(rates[len(rates) // 2:]) / 1e12:6.1f} "
              f"burst {max(rates) / 1e12:6.1f} TFLOP/s  sm {st.get('sm_clock_hz', 0) / 1e6:.0f} MHz "
              f"power {st.get('power_w')} W")
PY
step targets 300 "$py" targets/gpu_targets.py --json "$out/targets.json"
step report 60 "$py" - "$out/targets.json" <<'PY'
import json, sys
from rich.console import Console
from rooflab.render.report import render

render(json.load(open(sys.argv[1]))["doc"], Console(width=150, force_terminal=False))
PY
