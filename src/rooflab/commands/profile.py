"""`rooflab profile`: why a kernel runs as it does.

Where perf can count hardware events: cycles, instructions and IPC against the core's dispatch width, cache
references and misses, branch misses, and hotspots (perf record). Where it cannot (virtual machines such as this
one), the run says so and falls back to cachegrind with this machine's real cache geometry: instructions, D1 and
last-level misses of the kernel function, and the traffic they imply (misses x line size) beside the spec's byte
model, so the model can be checked.
"""

from __future__ import annotations

import dataclasses
import math
import tempfile
from dataclasses import dataclass
from pathlib import Path

from rooflab.contract import Column, Command, Table, internal, option
from rooflab.counters import cachegrind, perf
from rooflab.errors import RooflabError
from rooflab.i18n import msg, tr
from rooflab.interpret.profile import profile_observations
from rooflab.kernels.user import build_driver
from rooflab.machine.env import perf_probe
from rooflab.session import Session
from rooflab.userkernel.spec import KernelSpec


def pick_size(spec: KernelSpec, given: dict | None) -> dict:
    if given:
        missing = set(spec.sizes[0]) - set(given)
        if missing:
            raise RooflabError(f"--size must give {', '.join(sorted(missing))} too")
        return {k: given[k] for k in spec.sizes[0]}
    # profilers under simulation run ~50x slower: the smallest size of the spec
    return min(spec.sizes, key=spec.array_bytes)


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


def parse_sizes(values) -> dict | None:
    """``--size NAME=NUMBER`` (repeated) as a dict; a dict (from Python) is checked the same way."""
    given = ([(f"{k}={v}", k, v) for k, v in values.items()] if isinstance(values, dict) else
             [(str(v), *str(v).partition("=")[::2]) for v in values or ()])
    out = {}
    for raw, name, num in given:
        if isinstance(num, str):
            if not raw.count("=") or not name.strip():
                raise RooflabError(f"--size {raw!r}: write NAME=NUMBER, e.g. --size n=4096")
            try:
                num = int(num) if num.strip().lstrip("-").isdigit() else float(num)
            except ValueError:
                raise RooflabError(f"--size {raw!r}: write NAME=NUMBER, e.g. --size n=4096") from None
        if isinstance(num, bool) or not isinstance(num, (int, float)) or not math.isfinite(num) or \
                not 0 <= num <= 1e15:
            raise RooflabError(f"--size {raw!r}: {raw.partition('=')[2].strip()} is not a size (a finite number "
                               "from 0 to 1e15)")
        out[name.strip()] = num
    return out or None


@dataclass(frozen=True)
class Options:
    spec: str = option(argument=True, help="A kernel spec file, or lab:NAME for one of the labs' own kernels "
                                           "(lab:gemm_ikj, lab:loop_kji, lab:stream_triad, ...).")
    kernel: str | None = option(None, help="The kernel of the spec to profile (needed when it has several).")
    size: tuple[str, ...] = option((), many=True, help="NAME=NUMBER for each size variable (default: the spec's "
                                                       "smallest size); from Python, a dict.")
    calls: int = option(3, min=1, help="Calls of the kernel.")
    cachegrind: bool = option(False, help="Use cachegrind even where perf counts.")
    resolved: KernelSpec | None = internal()


def prepare(opts: Options) -> Options:
    """The kernel read from its spec (or the labs' own kernels) and every mistake reported before anything runs."""
    if opts.spec.startswith("lab:"):
        from rooflab.kernels.labkernels import spec_for
        from rooflab.machine import describe

        specs = [spec_for(opts.spec[4:], describe())]
    else:
        from rooflab.userkernel.spec import load_spec, select

        specs = select(load_spec(opts.spec), (opts.kernel,) if opts.kernel else ())
    if len(specs) > 1:
        raise RooflabError(f"{opts.spec} has several kernels ({', '.join(s.name for s in specs)}): choose one "
                           "with --kernel")
    parse_sizes(opts.size)
    return dataclasses.replace(opts, resolved=specs[0])


def run(session: Session, opts: Options) -> dict:
    return profile(session, opts.resolved, size=parse_sizes(opts.size), calls=opts.calls,
                   force_cachegrind=opts.cachegrind)


def profile(session: Session, spec: KernelSpec, *, size: dict | None = None, calls: int = 3,
            force_cachegrind: bool = False) -> dict:
    size = pick_size(spec, size)
    flops, nbytes = spec.work(size)
    m = session.machine
    caches = m.get("cache_details") or []
    line = next((c.get("line", 64) for c in caches if c["level"] == 1), 64)
    probe = perf_probe()
    use_perf = probe["hardware"] and not force_cachegrind
    # valgrind (3.19 and older) cannot execute AVX-512: its driver is built for the same CPU without it
    extra = () if use_perf or "avx512f" not in m["isa"]["features"] else ("-mno-avx512f",)
    session.progress(f"profile: building a driver for {spec.name}")
    exe = build_driver(spec, size, calls, extra)
    doc = {"kernel": spec.to_dict(), "size": size, "calls": calls,
           "model": {"flops": flops, "bytes": nbytes}, "perf": probe, "driver": exe.to_dict()}
    if extra:
        doc["driver_note"] = ("built with -mno-avx512f because valgrind cannot run AVX-512 code: instruction counts "
                              "are those of the AVX2 build; memory traffic is comparable")
    # the profiler may run the kernel far slower than native (cachegrind: 20-100x); the spec's timeout bounds one
    # size's whole measurement, so here it bounds the driver's run, with that slowdown allowed for
    limit = spec.timeout * (1 if use_perf else 50)
    with tempfile.TemporaryDirectory(prefix="rooflab-profile-") as d:
        if use_perf:
            session.progress("profile: perf stat")
            st = perf.perf_stat(exe.path, timeout=limit)
            c = st["counters"]
            doc["method"] = "perf"
            doc["counters"] = c
            cyc, ins = c.get("cycles"), c.get("instructions")
            width = m["uarch"].get("issue_width")
            doc["derived"] = {
                "ipc": ins / cyc if cyc and ins else None, "issue_width": width,
                "cache_miss_rate": (c["cache-misses"] / c["cache-references"]) if c.get("cache-references") and
                c.get("cache-misses") is not None else None,
                "branch_miss_rate": (c["branch-misses"] / c["branches"]) if c.get("branches") and
                c.get("branch-misses") is not None else None,
                "miss_traffic_bytes_per_call": c["cache-misses"] * line / calls if c.get("cache-misses") else None,
            }
            session.progress("profile: perf record")
            spots = perf.perf_hotspots(exe.path, Path(d), timeout=limit)
            doc["hotspots"], doc["hot_lines"] = spots["functions"], spots["lines"]
        else:
            doc["method"] = "cachegrind"
            doc["fallback_reason"] = (msg("asked for cachegrind") if force_cachegrind else
                                      msg("perf hardware counters are not available: {reason}", reason=probe["reason"]))
            session.progress("profile: cachegrind (simulated caches)")
            cg = cachegrind.run_cachegrind(exe.path, caches, Path(d), timeout=limit)
            doc["cachegrind"] = {"geometry": cg["geometry"], "simulated": cg["simulated"], "command": cg["command"]}
            doc["counters"] = cachegrind_summary(cg["functions"], spec.function, calls, line)
    session.record(spec.name, {"method": doc["method"], "counters": doc["counters"]})
    return doc


def _counters(doc: dict) -> list[dict]:
    return [{"event": k, "value": v} for k, v in doc["counters"].items()]


def _counters_title(doc: dict) -> str:
    return (tr("Counters (per call, kernel function only)") if doc["method"] == "cachegrind" else
            tr("Counters (whole driver run)"))


_SPOT_COLUMNS = (Column("symbol", "where"), Column("percent", "% of samples", "f1"))

COMMAND = Command(
    name="profile", order=4, options=Options, run=run, prepare=prepare, interpret=profile_observations, outputs=(),
    summary=msg("why: hardware counters (perf) where the machine exposes them, simulated caches (cachegrind) "
                "otherwise"),
    headline=lambda d: tr("{name} at {size} · {calls} call(s) · method: {method}", name=d["kernel"]["name"],
                          size=" ".join(f"{k}={v}" for k, v in d["size"].items()), calls=d["calls"],
                          method=d["method"]),
    tables=(Table("profile_counters", _counters_title, rows=_counters, columns=(
                Column("event", "event"),
                Column("value", "value", "g6", value=lambda r, d: r["value"] if isinstance(r["value"], (int, float))
                       else tr("not counted")))),
            Table("profile_hotspots", "Hot functions (perf record)", rows="hotspots", columns=_SPOT_COLUMNS),
            Table("profile_hot_lines", "Hot source lines (perf record)", rows="hot_lines", columns=_SPOT_COLUMNS)),
)
