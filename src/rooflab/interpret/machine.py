"""The machine, the environment and the capabilities of a run as rows of (what, value), in the reader's language:
the tables of `rooflab info` and the machine a measure report opens with."""

from __future__ import annotations

from typing import Callable

from rooflab.contract import Column, Table
from rooflab.documents.common import Machine, Theoretical, Uarch, read
from rooflab.documents.stored import Capabilities
from rooflab.i18n import text, tr
from rooflab.units import binary_bytes, si


def _rows(pairs: list[tuple]) -> list[dict]:
    return [{"what": str(k), "value": "" if v is None else str(v)} for k, v in pairs]


def machine_rows(found: dict) -> list[dict]:
    m = read(Machine, found)
    isa, u = m.isa, m.uarch or Uarch()
    pairs = [
        (tr("CPU"), m.model_name),
        (tr("micro-architecture"), tr("{name} (assumed)", name=u.name) if u.assumed else u.name),
        (tr("cores"), tr("{p} physical, {l} logical, {s} socket(s)", p=m.physical_cores, l=m.logical_cpus,
                         s=m.sockets)),
        (tr("ISA"), tr("{name} ({features}); {n} x {bits}-bit vector registers", name=isa.name,
                       features=", ".join(isa.features), n=isa.vector_registers, bits=isa.vector_bits)),
        (tr("FMA"), tr("{pipes} pipe(s) x {bits}-bit, {add} FP add pipe(s)", pipes=u.fma_pipes, bits=u.fma_bits,
                       add=u.add_pipes) if u.add_pipes else
         tr("{pipes} pipe(s) x {bits}-bit", pipes=u.fma_pipes, bits=u.fma_bits)),
        (tr("caches"), ", ".join(f"{c.name} {binary_bytes(c.size)}" + (f" x{c.instances}" if c.instances > 1 else "")
                                 for c in m.cache_details) or tr("unknown")),
        (tr("NUMA nodes"), str(len(m.numa_nodes) or 1)),
        (tr("memory"), binary_bytes(m.memory_bytes)),
    ]
    clk = m.clock
    if clk:
        lo, hi = clk.ci95 or (clk.hz, clk.hz)
        pairs.append((tr("clock (measured)"), tr("{ghz:.3f} GHz (95% CI {lo:.3f}–{hi:.3f}; {method})",
                                                 ghz=clk.hz / 1e9, lo=lo / 1e9, hi=hi / 1e9, method=text(clk.method))))
    else:
        pairs.append((tr("clock"), tr("{ghz:.3f} GHz (not measured)", ghz=m.clock_hz / 1e9) if m.clock_hz
                      else tr("unknown")))
    th = m.theoretical
    if th and th.fp64_flops is not None:
        pairs.append((tr("peak fp64 (all cores)"), si(th.fp64_flops, "FLOP/s")))
        pairs.append((tr("peak fp32 (all cores)"), si(th.fp32_flops, "FLOP/s")))
    return _rows(pairs)


def assumptions(found: dict) -> list[str]:
    """What the theoretical peaks assume, one sentence each."""
    return [text(a) for a in (read(Theoretical, found.get("theoretical")).assumptions)]


def environment_rows(env: dict) -> list[dict]:
    pairs = [(tr("OS"), env.get("os")), ("Python", env.get("python")), ("NumPy", env.get("numpy"))]
    for b in env.get("blas") or []:
        pairs.append((f"{b.get('user_api')}", tr("{api} {version} ({arch}), {n} thread(s)", api=b.get("internal_api"),
                                                 version=b.get("version"), arch=b.get("architecture") or "?",
                                                 n=b.get("num_threads"))))
    if env.get("thread_env"):
        pairs.append((tr("thread settings"), ", ".join(f"{k}={v}" for k, v in env["thread_env"].items())))
    aff = env.get("affinity")
    if aff is not None:
        pairs.append((tr("CPU affinity"), ",".join(map(str, aff))))
    pairs.append((tr("governor"), env.get("governor") or tr("not readable")))
    pairs.append((tr("ASLR"), env.get("aslr") or tr("not readable")))
    la = env.get("loadavg")
    pairs.append((tr("load average"), " ".join(f"{x:.2f}" for x in la) if la else "—"))
    g = env.get("git")
    pairs.append(("git", (f"{g['revision'][:12]}" + (tr(" (dirty)") if g["dirty"] else "")) if g else
                  tr("not a git work tree")))
    return _rows(pairs)


def capability_rows(found: dict) -> list[dict]:
    caps = read(Capabilities, found)
    cc = caps.compiler
    return _rows([
        (tr("C compiler"), f"{cc['version']} ({cc['path']}, {cc['target']})" if cc else
         caps.compiler_error or tr("none")),
        ("OpenMP", " ".join(caps.openmp.flags or ()) if caps.openmp.available else tr("not available")),
        (tr("perf counters"), tr("hardware + software") if caps.perf.hardware else
         (text(caps.perf.reason) if caps.perf.reason else tr("not available"))),
        (tr("valgrind (cachegrind)"), caps.valgrind.path or tr("not installed")),
        ("numactl", caps.numactl.path or tr("not installed")),
        (tr("objdump (assembly audit)"), tr("yes") if caps.objdump.available else tr("not installed")),
    ])


ITEM_COLUMNS = (Column("what", "item"), Column("value", "value"))


def machine_table(machine_of: Callable[[dict], dict | None]) -> Table:
    """The machine a report opens with (``machine_of(doc)``; none in a document without one), what its theoretical
    peaks assume under it."""
    return Table("machine", "Machine", rows=lambda d: machine_rows(m) if (m := machine_of(d)) else [],
                 columns=ITEM_COLUMNS, keyed=True, formats=("text", "html"),
                 footer=lambda d, args, rows: assumptions(machine_of(d)))
