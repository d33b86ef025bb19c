"""Where a kernel's time goes, sampled: ``perf record`` on the cpu-clock software event (no hardware counters
needed) attached to the worker while it runs the kernel. The samples that fall in the kernel's own library are
mapped to byte offsets of its functions, so the hot loop is the loop where the time goes, not the one that looks
busiest in the code: in a function with a vectorized loop and a scalar reduction over the same rows (PolyBench's
atax), the reduction, which does less work per iteration, takes most of the time."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from collections import Counter
from pathlib import Path

from rooflab.kernels.user import task
from rooflab.timing.harness import HarnessConfig

SAMPLE_S = 0.1  # the kernel runs this long (one sample) while perf samples it: some 400 samples
# perf script -F tid,ip,sym,symoff,dso: "  1234  7f0010001234 atax+0x40 (/path/libk.so)"
_LINE = re.compile(r"^\s*(\d+)\s+[0-9a-f]+\s+(\S+?)\+0x([0-9a-f]+)\s+\((.+)\)\s*$")


def perf_path() -> str | None:
    return shutil.which("perf")


def parse_script(text: str, library: str | Path) -> dict[str, dict[int, int]]:
    """``perf script -F tid,ip,sym,symoff,dso`` lines: samples per byte offset, per function of ``library``."""
    want = os.path.realpath(str(library))
    out: dict[str, Counter] = {}
    for line in text.splitlines():
        m = _LINE.match(line)
        if m and os.path.realpath(m.group(4)) == want:
            out.setdefault(m.group(2), Counter())[int(m.group(3), 16)] += 1
    return {k: dict(v) for k, v in out.items()}


def runtime_samples(text: str, main_tid: int, library: str | Path) -> tuple[int, int]:
    """(samples of the worker's other threads, those of them outside ``library``) from the same ``perf script``
    lines. The other threads are an OpenMP team's: they run the kernel's parallel regions (in its library) and
    otherwise the runtime's code and the operating system's, starting, scheduling and joining regions, spinning at
    barriers and waking each other. The main thread is left out: it also makes and checks the arrays."""
    want = os.path.realpath(str(library))
    total = outside = 0
    for line in text.splitlines():
        m = _LINE.match(line)
        if m and int(m.group(1)) != main_tid:
            total += 1
            outside += os.path.realpath(m.group(4)) != want
    return total, outside


def sample_offsets(session, spec, lib, size: dict, seconds: float = SAMPLE_S
                   ) -> tuple[dict[str, dict[int, int]] | None, str | None, tuple[int, int] | None]:
    """(samples per function of the kernel's library and byte offset, None, (samples of the worker's other
    threads, those outside the kernel's library): see :func:`runtime_samples`) or (None, why there are none, the
    latter where perf ran)."""
    perf = perf_path()
    if not perf:
        return None, "perf is not installed", None
    pid = getattr(session, "worker_pid", None)
    if not pid:
        return None, "no worker process to sample", None
    with tempfile.TemporaryDirectory(prefix="rooflab-sample-") as d:
        data = Path(d) / "perf.data"
        try:
            rec = subprocess.Popen([perf, "record", "-q", "-e", "cpu-clock", "-F", "4000", "-p", str(pid), "-o",
                                    str(data)], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, text=True, errors="replace")
        except OSError as exc:
            return None, f"perf could not start: {exc}", None
        try:
            time.sleep(0.1)  # perf attaches to the worker's threads
            if rec.poll() is not None:
                said = (rec.stderr.read() if rec.stderr else "").strip().splitlines()
                return None, f"perf record could not sample the worker: {said[0] if said else rec.returncode}", None
            cfg = HarnessConfig(min_sample_s=seconds, samples=1, warmup=0, min_samples=1, budget_s=4 * seconds,
                                max_sample_s=4 * seconds)
            out = session.run(task(spec, lib, size, f"{spec.name}: sampling where its time goes"), cfg,
                              timeout_s=spec.timeout)
        finally:
            if rec.poll() is None:
                rec.send_signal(signal.SIGINT)
                try:
                    rec.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    rec.kill()
                    rec.wait()
        if not out.ok:
            return None, f"the sampled run failed: {out.error}", None
        try:
            script = subprocess.run([perf, "script", "-F", "tid,ip,sym,symoff,dso", "-i", str(data)],
                                    capture_output=True, text=True, errors="replace", timeout=60)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return None, f"perf script failed: {exc}", None
    runtime = runtime_samples(script.stdout, pid, lib.path)
    found = parse_script(script.stdout, lib.path)
    if not found:
        return None, "no sample fell in the kernel's library", runtime
    return found, None, runtime
