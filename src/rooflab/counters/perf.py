"""perf stat / perf record on a kernel driver, and their parsers (pure, tested on recorded output)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from rooflab.errors import RooflabError

EVENTS = ("cycles", "instructions", "cache-references", "cache-misses", "branches", "branch-misses", "task-clock")


def parse_perf_stat(text: str) -> dict[str, float | None]:
    """``perf stat -x,`` output: {event: value}; None for '<not supported>' / '<not counted>'."""
    out: dict[str, float | None] = {}
    for line in text.splitlines():
        parts = line.split(",")
        if len(parts) < 3 or not parts[2]:
            continue
        ev = parts[2].split(":")[0].strip()
        try:
            out[ev] = float(parts[0])
        except ValueError:
            out[ev] = None
    return out


def parse_perf_report(text: str, limit: int = 10) -> list[dict]:
    """``perf report --stdio --sort symbol`` lines '  42.10%  driver  [.] saxpy' -> hotspots."""
    rows = []
    for line in text.splitlines():
        s = line.strip()
        if not s or s.startswith("#") or "%" not in s.split()[0]:
            continue
        parts = s.split()
        try:
            pct = float(parts[0].rstrip("%"))
        except ValueError:
            continue
        sym = s.split("] ", 1)[1].strip() if "] " in s else parts[-1]
        rows.append({"percent": pct, "symbol": sym})
    return rows[:limit]


class ToolTimeout(RooflabError):
    """A profiler stopped at its time limit."""


def run_tool(cmd: list[str], what: str, timeout: float) -> subprocess.CompletedProcess:
    """A profiler run; a time-out or a tool that cannot start is a clear error, never a traceback."""
    try:
        return subprocess.run(cmd, capture_output=True, text=True, errors="replace",
                              timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise ToolTimeout(f"{what} did not finish within {timeout:g} s (and was stopped): the kernel hangs, or the "
                          "driver runs too long; profile fewer --calls or a smaller --size") from None
    except OSError as exc:
        raise RooflabError(f"{what} could not be started: {exc}") from None


def perf_stat(exe: str | Path, timeout: float = 300, args: list[str] = ()) -> dict:
    perf = shutil.which("perf")
    r = run_tool([perf, "stat", "-x,", "-e", ",".join(EVENTS), str(exe), *args], "perf stat", timeout)
    return {"returncode": r.returncode, "counters": parse_perf_stat(r.stderr), "raw": r.stderr[-4000:]}


def perf_hotspots(exe: str | Path, workdir: Path, timeout: float = 300, args: list[str] = ()) -> dict[str, list[dict]]:
    """Hot functions and, from the debug info the driver is built with, hot source lines."""
    perf = shutil.which("perf")
    data = workdir / "perf.data"
    rec = run_tool([perf, "record", "-q", "-o", str(data), str(exe), *args], "perf record", timeout)
    if rec.returncode != 0:
        return {"functions": [], "lines": []}
    out = {}
    for key, sort in (("functions", "symbol"), ("lines", "srcline")):
        rep = run_tool([perf, "report", "--stdio", "-i", str(data), "--sort", sort], "perf report", timeout)
        out[key] = parse_perf_report(rep.stdout)
    return out
