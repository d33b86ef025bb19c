"""rooflab's own kernels for this ISA: how to build them, and whether the compiled loop matches the model.

The audit functions are pure: they take a loop's counts (from :mod:`rooflab.toolchain.asm`) and the model's
expectation, and return None when they agree or the reason they do not.
"""

from __future__ import annotations

from dataclasses import dataclass

from rooflab.toolchain.compiler import Compiler, build_kernel, find_compiler, openmp_flags
from rooflab.i18n import msg

KLASS_LABEL = {"scalar": "scalar FMA", "simd": "SIMD mul+add (no FMA)", "simd_fma": "SIMD FMA"}
PREC_TYPE = {"fp64": "double", "fp32": "float"}
# threads spin only briefly before sleeping: long enough for the barriers inside one GEMM call, short enough that
# the idle threads of one side of a paired measurement (a GEMM against BLAS) steal no cores from the other between
# calls (GNU OpenMP, LLVM OpenMP, OpenBLAS); the worker of the labs that alternate threaded kernels runs with it,
# as does explain's (a kernel against its variants and against BLAS GEMM)
OPENMP_QUIET_ENV = {"GOMP_SPINCOUNT": "30000", "KMP_BLOCKTIME": "1", "OPENBLAS_THREAD_TIMEOUT": "4"}

PREC_DTYPE = {"fp64": "float64", "fp32": "float32"}


def vector_bytes(isa: dict) -> int:
    return max(16, int(isa.get("vector_bits") or 128) // 8)


def default_chains(isa: dict) -> int:
    """Enough independent chains to cover latency x pipes, leaving registers for the constants."""
    return max(4, min(24, int(isa.get("vector_registers") or 16) - 4))


def novec_flags(cc: Compiler) -> list[str]:
    return ["-fno-vectorize", "-fno-slp-vectorize"] if cc.kind == "clang" else ["-fno-tree-vectorize"]


@dataclass(frozen=True)
class PeakVariant:
    precision: str
    klass: str
    chains: int
    vbytes: int  # 0 for scalar

    @property
    def lanes(self) -> int:
        return 1 if self.vbytes == 0 else self.vbytes * 8 // (64 if self.precision == "fp64" else 32)

    @property
    def flops_per_rep(self) -> int:
        return self.chains * self.lanes * 2


def build_peak(v: PeakVariant, cc: Compiler | None = None):
    cc = cc or find_compiler()
    flags = ["-ffp-contract=off"] if v.klass == "simd" else ["-ffp-contract=fast"]
    if v.klass == "scalar":
        flags += novec_flags(cc)
    return build_kernel("peak", name=f"peak_{v.precision}_{v.klass}_{v.chains}", flags=flags,
                        defines={"RL_T": PREC_TYPE[v.precision], "RL_VBYTES": v.vbytes, "RL_CHAINS": v.chains},
                        openmp=openmp_flags(cc) is not None, compiler=cc)


def build_stream(vbytes: int, cc: Compiler | None = None):
    cc = cc or find_compiler()
    flags = ["-fno-tree-loop-distribute-patterns"] if cc.kind == "gcc" else []
    return build_kernel("stream", name="stream", flags=flags + novec_flags(cc), defines={"RL_VBYTES": vbytes},
                        openmp=openmp_flags(cc) is not None, compiler=cc)


def build_clock(cc: Compiler | None = None):
    cc = cc or find_compiler()
    return build_kernel("clock", name="clock_mt", openmp=openmp_flags(cc) is not None, compiler=cc)


def audit_peak(a: dict | None, v: PeakVariant) -> dict | None:
    """The chain loop must hold one FMA (or one mul and one add) per chain at the expected width, and no spill."""
    if a is None:
        return msg("no loop found in the compiled kernel")
    bits = v.vbytes * 8
    if a["spills"]:
        return msg("{n} stack access(es) in the loop: accumulators spilled", n=a["spills"])
    if v.klass in ("scalar", "simd_fma"):
        if a["fma"] != v.chains:
            return msg("{n} FMA instruction(s) per iteration, the model counts {m}", n=a["fma"], m=v.chains)
        if v.klass == "simd_fma" and a["fma_bits"] != bits:
            return msg("FMA at {n} bits, the model counts {m}", n=a["fma_bits"], m=bits)
        if v.klass == "scalar" and a["vector_bits"]:
            return msg("the scalar kernel was vectorized ({n} bits)", n=a["vector_bits"])
    else:
        if a["fma"]:
            return msg("{n} FMA instruction(s) in a kernel meant to have none", n=a["fma"])
        if a["fp_mul"] != v.chains or a["fp_add"] != v.chains:
            return msg("{mul} mul + {add} add per iteration, the model counts {m} + {m}", mul=a["fp_mul"], add=a["fp_add"],
                       m=v.chains)
        if a["vector_bits"] != bits:
            return msg("vector width {n} bits, the model counts {m}", n=a["vector_bits"], m=bits)
    return None


def audit_stream(kind: str, a: dict | None, vbytes: int) -> dict | None:
    """Loads, stores and arithmetic per iteration must match one pass of the kernel's traffic model; a
    non-temporal variant (``*_nt``) must also make its loads (read) or its stores (copy, triad) non-temporal."""
    if a is None:
        return msg("no loop found in the compiled kernel")
    if kind.endswith("_nt"):
        base = kind[:-3]
        if base == "read" and a.get("nt_loads", 0) != a["loads"]:
            return msg("{nt} of {n} load(s) per iteration are non-temporal; the kernel is meant to use only "
                       "non-temporal loads", nt=a.get("nt_loads", 0), n=a["loads"])
        if base != "read" and a.get("nt_stores", 0) != a["stores"]:
            return msg("{nt} of {n} store(s) per iteration are streaming stores; the kernel is meant to use only "
                       "streaming stores", nt=a.get("nt_stores", 0), n=a["stores"])
        kind = base
    bits = vbytes * 8
    if a["spills"]:
        return msg("{n} stack access(es) in the loop", n=a["spills"])
    if a["vector_bits"] != bits:
        return msg("vector width {n} bits, expected {m}", n=a["vector_bits"], m=bits)
    loads, stores = a["loads"], a["stores"]
    if kind == "read":
        if stores or not loads:
            return msg("{loads} load(s) and {stores} store(s) per iteration; a read kernel only loads", loads=loads,
                       stores=stores)
        if a["fp_add"] != loads:
            return msg("{adds} adds per {loads} loads: passes were merged (each loaded value is used {r:g} times), which "
                       "would inflate the bandwidth", adds=a["fp_add"], loads=loads, r=a["fp_add"] / loads)
    elif kind == "copy":
        if loads != stores or not loads:
            return msg("{loads} load(s) for {stores} store(s); a copy moves one for one", loads=loads, stores=stores)
    elif kind == "triad":
        if loads != 2 * stores or not stores:
            return msg("{loads} load(s) for {stores} store(s); a triad loads two for each store", loads=loads,
                       stores=stores)
        if a["fma"] + a["fp_mul"] != stores:
            return msg("{n} multiply(-add)s per {stores} stores: passes merged or work dropped", n=a["fma"] + a["fp_mul"],
                       stores=stores)
    return None


@dataclass(frozen=True)
class GemmParams:
    """Register tile MR x NR (NR a multiple of the vector length) and cache blocks KC, MC, NC of the packed GEMM."""

    vbytes: int
    mr: int
    nr: int
    kc: int
    mc: int
    nc: int = 3072
    profile: str = "native"
    unroll: int = 1  # k steps per iteration of the microkernel loop (a hint; measured: 2 gains 3-7% on Zen 4)

    @property
    def accumulators(self) -> int:
        return self.mr * self.nr * 4 // self.vbytes

    def defines(self) -> dict:
        d = {"RL_VBYTES": self.vbytes, "RL_MR": self.mr, "RL_NR": self.nr, "RL_KC": self.kc, "RL_MC": self.mc,
             "RL_NC": self.nc}
        if self.unroll > 1:
            d["RL_UNROLL"] = self.unroll
        return d

    def to_dict(self) -> dict:
        return {"vector_bits": self.vbytes * 8, "MR": self.mr, "NR": self.nr, "KC": self.kc, "MC": self.mc,
                "NC": self.nc, "unroll": self.unroll, "accumulator_registers": self.accumulators,
                "profile": self.profile}


PORTABLE_GEMM = GemmParams(vbytes=16, mr=4, nr=8, kc=256, mc=128, profile="portable")


def gemm_params(isa: dict) -> GemmParams:
    """The microkernel tile for this ISA: accumulators MR x NR/lanes plus NR/lanes B vectors and one broadcast must
    fit the vector register file (AVX2: 16 x 256-bit -> 6 x 16; AVX-512: 32 x 512-bit -> 6 x 64, 24 accumulators and
    4 B vectors, 0.42 loads per FMA, K blocks of up to 512: measured 3-5% faster than 8 x 32 and 1-3% faster than
    K blocks of 384 on Zen 4 at n = 1000-2048; NEON: 32 x 128-bit
    -> 7 x 12: gcc's AArch64 output of this kernel spills from 24 accumulators on, seen by the assembly audit)."""
    bits = int(isa.get("vector_bits") or 128)
    regs = int(isa.get("vector_registers") or 16)
    if isa.get("arch") == "x86_64" and bits >= 512 and regs >= 32:
        return GemmParams(vbytes=64, mr=6, nr=64, kc=512, mc=96, unroll=2)
    if isa.get("arch") == "x86_64" and bits >= 256:
        return GemmParams(vbytes=32, mr=6, nr=16, kc=256, mc=120, unroll=2)
    if isa.get("arch") == "aarch64" and regs >= 32:
        return GemmParams(vbytes=16, mr=7, nr=12, kc=256, mc=112, unroll=2)
    return GemmParams(vbytes=16, mr=4, nr=8, kc=256, mc=128)


def build_gemm(p: GemmParams, cc: Compiler | None = None):
    cc = cc or find_compiler()
    return build_kernel("gemm", name=f"gemm_{p.vbytes}_{p.mr}x{p.nr}u{p.unroll}", profile=p.profile, defines=p.defines(),
                        openmp=openmp_flags(cc) is not None, compiler=cc)


def audit_microkernel(a: dict | None, p: GemmParams) -> dict | None:
    """The packed microkernel's k loop: one FMA per accumulator and k step at the tile's width, no spills (the loop
    may hold ``unroll`` k steps, or one where a compiler ignores the hint)."""
    if a is None:
        return msg("no loop found in the compiled microkernel")
    if a["spills"]:
        return msg("{n} stack access(es) in the microkernel loop: the tile does not fit the registers", n=a["spills"])
    acc = p.accumulators
    steps = {acc, acc * p.unroll}
    if p.profile == "portable" and a["fma"] == 0 and a["fp_mul"] in steps and a["fp_add"] == a["fp_mul"]:
        # the portable profile targets the baseline ISA, which on x86-64 has no FMA: multiply + add is the model
        return None if a["vector_bits"] == p.vbytes * 8 else msg("vector width {n} bits", n=a["vector_bits"])
    if a["fma"] not in steps:
        if p.unroll > 1:
            return msg("{n} FMA instruction(s) per loop iteration, the tile needs {acc} per k step ({u} unrolled "
                       "x{x})", n=a["fma"], acc=acc, u=acc * p.unroll, x=p.unroll)
        return msg("{n} FMA instruction(s) per loop iteration, the tile needs {acc} per k step", n=a["fma"], acc=acc)
    if a["fma_bits"] != p.vbytes * 8:
        return msg("FMA at {n} bits, the tile is built from {m}-bit vectors", n=a["fma_bits"], m=p.vbytes * 8)
    return None
