"""Simulated cache counts with valgrind's cachegrind, given this machine's real cache geometry explicitly."""

from __future__ import annotations

import shutil
from pathlib import Path

from rooflab.counters.perf import run_tool
from rooflab.errors import RooflabError


def simulable(size: int, ways: int, line: int) -> tuple[int, int, int]:
    """A cache cachegrind can simulate (its set count a power of two) as close to the real one as there is: the same
    size with the associativity nearest the real one that makes the sets a power of two (a 300 MiB, 20-way L3 of
    64-byte lines is simulated 75-way), else the real associativity with the size rounded down to whole sets."""
    lines = max(1, size // line)
    sets = 1
    options = []
    while sets <= lines:
        if lines % sets == 0:
            options.append((sets, lines // sets))
        sets *= 2
    exact = [(abs(w - ways), w, s) for s, w in options if w >= 1]
    if exact and min(exact)[0] <= 4 * ways:
        _, w, s = min(exact)
        return s * w * line, w, line
    sets = 1 << max(0, (lines // max(1, ways)).bit_length() - 1)
    return sets * ways * line, ways, line


def geometry(caches: list[dict]) -> dict[str, str]:
    """--I1/--D1/--LL arguments (size,assoc,line) from the machine's cache list; LL is the last level. Each is one
    cachegrind accepts (:func:`simulable`)."""
    def arg(c):
        return ",".join(map(str, simulable(int(c["size"]), int(c.get("ways") or 8), int(c.get("line") or 64))))
    out = {}
    for c in caches:
        if c["level"] == 1 and c["type"] == "Instruction":
            out["I1"] = arg(c)
        elif c["level"] == 1 and c["type"] in ("Data", "Unified"):
            out["D1"] = arg(c)
    last = max((c for c in caches if c["type"] in ("Data", "Unified")), key=lambda c: c["level"], default=None)
    if last is not None and last["level"] > 1:
        out["LL"] = arg(last)
    return out


def parse_out_file(text: str) -> tuple[list[str], dict[str, dict[str, int]]]:
    """A cachegrind.out file: the event names and the counts summed per function."""
    events: list[str] = []
    per_fn: dict[str, dict[str, int]] = {}
    fn = None
    for line in text.splitlines():
        if line.startswith("events:"):
            events = line.split(":", 1)[1].split()
        elif line.startswith("fn="):
            fn = line[3:].strip()
            per_fn.setdefault(fn, {e: 0 for e in events})
        elif line and line[0].isdigit() and fn is not None:
            nums = line.split()[1:]
            row = per_fn[fn]
            for e, v in zip(events, nums):
                row[e] = row.get(e, 0) + int(v)
    return events, per_fn


def run_cachegrind(exe: str | Path, caches: list[dict], workdir: Path, timeout: float = 900,
                   args: list[str] = ()) -> dict:
    vg = shutil.which("valgrind")
    if not vg:
        raise RooflabError("valgrind is not installed (apt-get install valgrind): no hardware counters and no "
                           "simulated ones either")
    out = workdir / "cachegrind.out"
    geo = geometry(caches)
    cmd = [vg, "--tool=cachegrind", "--cache-sim=yes", f"--cachegrind-out-file={out}"]
    cmd += [f"--{k}={v}" for k, v in geo.items()]
    r = run_tool(cmd + [str(exe), *args], "cachegrind", timeout)
    if r.returncode != 0 or not out.exists():
        lines = [ln.split("== ", 1)[-1] for ln in r.stderr.splitlines()]
        why = next((ln for ln in lines if "Unrecognised instruction" in ln or "Process terminating" in ln),
                   lines[-1] if lines else f"exit status {r.returncode}")
        raise RooflabError(f"cachegrind could not run the driver: {why}")
    text = out.read_text(errors="replace")
    events, per_fn = parse_out_file(text)
    desc = [ln[5:].strip() for ln in text.splitlines() if ln.startswith("desc:")]
    return {"geometry": geo, "simulated": desc, "events": events, "functions": per_fn,
            "command": cmd + [str(exe), *args]}


def cachegrind_summary(per_fn: dict[str, dict[str, int]], function: str, calls: int, line: int) -> dict:
    """Counts of the kernel's own function per call, and the traffic they imply."""
    row = next((v for k, v in per_fn.items() if k == function or k.endswith(":" + function)), None)
    if row is None:
        raise RooflabError(f"cachegrind saw no function {function!r} (was it inlined into the driver?)")
    d1 = row.get("D1mr", 0) + row.get("D1mw", 0)
    ll = row.get("DLmr", 0) + row.get("DLmw", 0)
    return {"instructions": row.get("Ir", 0) / calls, "data_reads": row.get("Dr", 0) / calls,
            "data_writes": row.get("Dw", 0) / calls, "d1_misses": d1 / calls, "ll_misses": ll / calls,
            "l1_traffic_bytes": d1 * line / calls, "dram_traffic_bytes": ll * line / calls}
