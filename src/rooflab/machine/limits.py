"""Theoretical limits: FMA pipes x lanes x 2 x measured clock x cores, with the assumptions written out."""

from __future__ import annotations

import ctypes
from dataclasses import dataclass, field

import numpy as np

from rooflab.i18n import msg
from rooflab.machine.cpu import CPU
from rooflab.timing.harness import HarnessConfig, calibrate
from rooflab.timing.stats import order_statistic_median_ci
from rooflab.toolchain.compiler import build_kernel
from rooflab.toolchain.ffi import function

ELEM_BITS = {"fp64": 64, "fp32": 32}
KLASSES = ("scalar", "simd", "simd_fma")


@dataclass(frozen=True)
class ClockMeasurement:
    hz: float
    ci95: tuple[float, float]
    samples: int
    method: dict  # an i18n message

    def to_dict(self) -> dict:
        return {"hz": self.hz, "ci95": list(self.ci95), "samples": self.samples, "method": self.method}


def measure_clock(config: HarnessConfig = HarnessConfig(min_sample_s=0.01, samples=9, warmup=3, budget_s=3.0)
                  ) -> ClockMeasurement | None:
    """Core clock from a dependent integer-add chain timed in C; None where no chain exists for the ISA.

    Each sample is the median of short timed chunks of the chain, so a sample in which the core was taken away for
    a while still reads the clock the core ran at (see ``rl_clock_chain_chunked``)."""
    lib = build_kernel("clock")
    adds = function(lib.path, "rl_clock_adds_per_rep", ctypes.c_long, [])()
    chunked = function(lib.path, "rl_clock_chain_chunked", ctypes.c_double,
                       [ctypes.c_long, ctypes.c_int, ctypes.c_void_p])
    hz = np.zeros(1)
    if chunked(1, 1, hz.ctypes.data) < 0:
        return None

    def sample(reps: int) -> float:
        return chunked(reps, 1, hz.ctypes.data)

    reps = calibrate(sample, config.min_sample_s, max_reps=config.max_reps)
    for _ in range(max(0, config.warmup - 1)):
        sample(reps)
    got = []
    for _ in range(max(1, config.samples)):
        sample(reps)
        got.append(float(hz[0]))
    lo, hi = order_statistic_median_ci(got)
    return ClockMeasurement(hz=float(np.median(got)), ci95=(lo, hi), samples=len(got),
                            method=msg("dependent chain of {adds} register adds (1 cycle each), timed in C in short "
                                       "chunks (median chunk)", adds=adds))


def flops_per_cycle(cpu: CPU, precision: str, klass: str) -> float:
    """Peak FLOP per cycle of one core for an instruction class.

    ``simd_fma``: FMA pipes x lanes x 2. ``simd``: vector multiplies and adds in equal numbers without FMA
    (multiplies on the FMA pipes, adds on the FMA or separate add pipes). ``scalar``: one lane of FMA (or mul+add).
    """
    u = cpu.uarch
    bits = ELEM_BITS[precision]
    lanes = max(1, min(u.fma_bits, cpu.isa.vector_bits or u.fma_bits) // bits)
    balanced = min(u.fma_pipes, (u.fma_pipes + u.add_pipes) / 2)  # mul (= add) instructions per cycle
    if klass == "simd_fma":
        return u.fma_pipes * lanes * 2 if cpu.isa.fma else balanced * lanes * 2
    if klass == "simd":
        return balanced * lanes * 2
    if klass == "scalar":
        return u.fma_pipes * 2 if cpu.isa.fma else balanced * 2
    raise ValueError(f"unknown instruction class {klass!r}")


@dataclass
class Theoretical:
    clock_hz: float
    clock_source: dict | str
    cores: int
    fp64_flops: float  # all cores, FMA at the widest full-rate vector width
    fp32_flops: float
    per_core: dict = field(default_factory=dict)  # {"fp32": {"scalar": ..., "simd": ..., "simd_fma": ...}, ...}
    assumptions: list[dict] = field(default_factory=list)  # i18n messages

    def limit(self, precision: str, klass: str, threads: int) -> float:
        return self.per_core[precision][klass] * min(threads, self.cores)

    def to_dict(self) -> dict:
        return {"clock_hz": self.clock_hz, "clock_source": self.clock_source, "cores": self.cores,
                "fp64_flops": self.fp64_flops, "fp32_flops": self.fp32_flops, "per_core": self.per_core,
                "assumptions": self.assumptions}


def theoretical(cpu: CPU, clock_hz: float, clock_source: str) -> Theoretical:
    u = cpu.uarch
    per_core = {p: {k: flops_per_cycle(cpu, p, k) * clock_hz for k in KLASSES} for p in ELEM_BITS}
    cores = cpu.physical_cores
    notes = [
        msg("{name}: {pipes} FMA pipe(s) x {bits}-bit per core ({source})", name=u.name, pipes=u.fma_pipes,
            bits=u.fma_bits, source=u.source),
        msg("peak = FMA pipes x lanes x 2 FLOP x clock x {cores} physical core(s); an FMA-only instruction mix",
            cores=cores),
        msg("clock {ghz:.3f} GHz ({source}); all cores assumed to hold it (turbo may drop under load)",
            ghz=clock_hz / 1e9, source=clock_source),
    ]
    if u.add_pipes:
        notes.append(msg("{n} separate FP add pipe(s): an FMA+ADD mix can exceed the FMA-only peak", n=u.add_pipes))
    if cpu.isa.vector_bits > u.fma_bits:
        notes.append(msg("the ISA has {reg}-bit registers, executed on {pipe}-bit pipes", reg=cpu.isa.vector_bits,
                         pipe=u.fma_bits))
    if u.assumed:
        notes.append(msg("this CPU is not in rooflab's table: the peak is a guess from its ISA"))
    return Theoretical(clock_hz=clock_hz, clock_source=clock_source, cores=cores,
                       fp64_flops=flops_per_cycle(cpu, "fp64", "simd_fma") * clock_hz * cores,
                       fp32_flops=flops_per_cycle(cpu, "fp32", "simd_fma") * clock_hz * cores,
                       per_core=per_core, assumptions=notes)
