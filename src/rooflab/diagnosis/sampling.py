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
# perf script -F tid,ip,sym,symoff,dso: "  1234  7f0010001234 atax+0x40 (/path/libk.so)"; with call chains, a line
# with the thread id, then one line per frame, the sampled instruction first: "\t  7f0010001234 atax+0x40 (/path)";
# a frame in an object without symbols (libgomp) reads "\t  e732 [unknown] (/path/libgomp.so.1)"
_LINE = re.compile(r"^\s*(\d+)\s+[0-9a-f]+\s+(\S+?)(?:\+0x([0-9a-f]+))?\s+\((.+)\)\s*$")
_HEAD = re.compile(r"^\s*(\d+)\s*$")
_FRAME = re.compile(r"^\s+([0-9a-f]+)\s+(\S+?)(?:\+0x([0-9a-f]+))?\s+\((.+)\)\s*$")
# frames as deep as this are read from the stack (perf's DWARF unwinding): a libm function called from a loop is a
# frame or two below it
STACK_BYTES = 8192


def perf_path() -> str | None:
    return shutil.which("perf")


def samples(text: str):
    """(thread id, frames) per sample of ``perf script -F tid,ip,sym,symoff,dso`` output, each frame (function,
    byte offset, object file), the sampled instruction first and its callers after it where perf recorded call
    chains; frames of inlined functions (no object of their own) are left out, and a frame whose symbol perf does
    not know keeps its object (offset 0): a stripped runtime's frame is still the runtime's."""
    tid, frames = None, []
    for line in text.splitlines():
        m = _LINE.match(line)
        if m:  # a sample on one line: no call chain
            if tid is not None:
                yield tid, real_frames(frames)
            yield int(m.group(1)), [(_aliased(m.group(2)), int(m.group(3) or "0", 16), m.group(4))]
            tid, frames = None, []
            continue
        h = _HEAD.match(line)
        if h:
            if tid is not None:
                yield tid, real_frames(frames)
            tid, frames = int(h.group(1)), []
            continue
        f = _FRAME.match(line)
        if f and tid is not None:
            frames.append((f.group(1), f.group(2), int(f.group(3) or "0", 16), f.group(4)))
    if tid is not None:
        yield tid, real_frames(frames)


def _aliased(symbol: str) -> str:
    """The function a local alias stands for (gcc's ``NAME.localalias``, which calls within a library made without
    semantic interposition go to)."""
    return symbol.removesuffix(".localalias")


def real_frames(frames: list[tuple[str, str, int, str]]) -> list[tuple[str, int, str]]:
    """(function, offset, object) of each frame (ip, symbol, offset, object) perf printed. perf prints the functions
    inlined at an instruction as frames of their own, marked ``(inlined)``, before the frame holding it (the same
    ip): those are left out. A frame in a local alias is marked so as well, with no frame of its own after it: it
    is a frame of the object its caller is in (a local alias is called only from its own object)."""
    out = []
    for i, (ip, sym, off, dso) in enumerate(frames):
        if dso == "inlined":
            after = frames[i + 1] if i + 1 < len(frames) else None
            if after is None or after[0] == ip or not sym.endswith(".localalias"):
                continue
            dso = after[3]
        out.append((_aliased(sym), off, dso))
    return out


# objects whose code is the parallel runtime's or the operating system's, not work a loop asked for: a sample there
# is overhead even where the kernel's code called it (a dynamic schedule asking libgomp for its next iteration)
_RUNTIME = re.compile(r"^(libgomp|libomp|libiomp)|^\[(kernel|vdso)")


def _is_runtime(dso: str) -> bool:
    return bool(_RUNTIME.match(os.path.basename(dso.strip())))


def _in_library(frames: list, want: str) -> tuple[str, int] | None:
    """The first frame in the library ``want`` (a real path): the sampled instruction where it is there, else the
    call in the kernel that led to it (a return address: the instruction after a call in its loop). A sample whose
    instruction is in the OpenMP runtime or the operating system is nobody's loop: it is the runtime's."""
    if frames and _is_runtime(frames[0][2]):
        return None
    for sym, off, dso in frames:
        if os.path.realpath(dso) == want:
            return sym, off
    return None


def parse_script(text: str, library: str | Path) -> dict[str, dict[int, int]]:
    """Samples per byte offset, per function of ``library``: a sample in a function the kernel calls (libm's expf)
    counts where the kernel called it, so a loop's time includes its calls'."""
    want = os.path.realpath(str(library))
    out: dict[str, Counter] = {}
    for _tid, frames in samples(text):
        at = _in_library(frames, want)
        if at:
            out.setdefault(at[0], Counter())[at[1]] += 1
    return {k: dict(v) for k, v in out.items()}


def runtime_samples(text: str, main_tid: int, library: str | Path) -> tuple[int, int]:
    """(samples of the worker's other threads, those of them outside ``library`` and not called from it) from the
    same ``perf script`` lines. The other threads are an OpenMP team's: they run the kernel's parallel regions (in
    its library, or in what it calls) and otherwise the runtime's code and the operating system's, starting,
    scheduling and joining regions, spinning at barriers and waking each other. The main thread is left out: it
    also makes and checks the arrays."""
    want = os.path.realpath(str(library))
    total = outside = 0
    for tid, frames in samples(text):
        if tid != main_tid:
            total += 1
            outside += _in_library(frames, want) is None
    return total, outside


def sampling_rate(seconds: float, call_s: float | None) -> int:
    """Samples a second for about SAMPLES in all over the sampled run: at least ``seconds``, or one call where a
    call is longer (each sample carries STACK_BYTES of stack, which perf unwinds afterwards: a GEMM's 0.7 s call
    at 4,000 a second took 16 s to unwind)."""
    run = max(seconds, call_s or 0.0)
    return int(min(MAX_RATE, max(MIN_RATE, SAMPLES / run)))


SAMPLES = 400
MAX_RATE, MIN_RATE = 4000, 50


def sample_offsets(session, spec, lib, size: dict, seconds: float = SAMPLE_S, call_s: float | None = None
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
        base = [perf, "record", "-q", "-e", "cpu-clock", "-F", str(sampling_rate(seconds, call_s)), "-p", str(pid),
                "-o", str(data)]
        # with call chains where perf can unwind the stack (the time in what a loop calls is the loop's), else
        # without
        for cmd in ([*base, "--call-graph", f"dwarf,{STACK_BYTES}"], base):
            try:
                rec = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.PIPE, text=True, errors="replace")
            except OSError as exc:
                return None, f"perf could not start: {exc}", None
            time.sleep(0.1)  # perf attaches to the worker's threads
            if rec.poll() is None:
                break
        try:
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
