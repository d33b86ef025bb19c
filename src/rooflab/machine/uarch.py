"""Floating-point execution resources per micro-architecture, with sources.

``fma_pipes`` x ``fma_bits`` is the FMA datapath per core for the widest vector instructions the core runs at full
rate. ``l1_load_bytes`` / ``l1_store_bytes`` are the bytes per cycle the load and store ports move to and from the L1
data cache; ``l2_bytes`` / ``l3_bytes`` the bytes per cycle, per core and per direction, the L2 and L3 deliver to the
level above (None where the guides give no figure: the L1 bound then applies to every level, since all data passes
through the load and store ports). AMD Zen 4 accepts AVX-512 but executes it on 2 x 256-bit pipes, so its FLOP/cycle equals AVX2's. ``add_pipes``
are separate FP add pipes (AMD Zen 2 and later): they let a mix of multiplies and adds without FMA run at the same
FLOP rate as FMA, and let an FMA+ADD mix exceed the FMA-only peak. rooflab's peaks assume an FMA-only mix.

Sources: AMD Software Optimization Guides for family 17h (Zen 1/2), 19h (Zen 3, Zen 4) and 1Ah (Zen 5); Intel 64 and
IA-32 Architectures Optimization Reference Manual (Haswell ... Sapphire Rapids); Arm Neoverse N1/V1/V2 Software
Optimization Guides; Apple silicon CPU Optimization Guide (M1-M4 performance cores).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Uarch:
    name: str
    fma_pipes: int
    fma_bits: int
    add_pipes: int = 0
    source: str = ""
    assumed: bool = False  # True when the CPU is not in the table and the figures come from its ISA alone
    l1_load_bytes: int = 0  # per cycle per core; 0: not known (assumed from the vector width)
    l1_store_bytes: int = 0
    l2_bytes: int | None = None
    l3_bytes: int | None = None

    @property
    def issue_width(self) -> int | None:
        """Instructions (macro-ops) dispatched per cycle, per the same guides; None when not in the table."""
        for key, w in _DISPATCH:
            if self.name.startswith(key):
                return w
        return None

    def to_dict(self) -> dict:
        return {"name": self.name, "fma_pipes": self.fma_pipes, "fma_bits": self.fma_bits,
                "add_pipes": self.add_pipes, "issue_width": self.issue_width, "source": self.source,
                "assumed": self.assumed, "l1_load_bytes": self.l1_load_bytes, "l1_store_bytes": self.l1_store_bytes,
                "l2_bytes": self.l2_bytes, "l3_bytes": self.l3_bytes}


# dispatch width by micro-architecture name prefix (first match wins)
_DISPATCH = (("Zen 5", 8), ("Zen", 6), ("Haswell", 4), ("Broadwell", 4), ("Skylake", 4), ("Ice Lake", 5),
             ("Sapphire", 6), ("Granite", 6), ("Alder", 6), ("Neoverse N1", 4), ("Neoverse N2", 5),
             ("Neoverse V1", 8), ("Neoverse V2", 8), ("Cortex-A76", 4), ("Cortex-A78", 4), ("Cortex-X1", 5),
             ("Apple", 8))


_AMD_SRC = "AMD Software Optimization Guide"
_INTEL_SRC = "Intel Optimization Reference Manual"
_ARM_SRC = "Arm Neoverse Software Optimization Guide"

# Intel family 6 models -> (name, fma_pipes, fma_bits, (L1 load, L1 store, L2) bytes per cycle)
_HSW_BW = (64, 32, 64)  # 2 x 256-bit loads + 1 x 256-bit store per cycle; 64 B/cycle L2 -> L1
_SKX_BW = (128, 64, 64)  # 2 x 512-bit loads + 1 x 512-bit store per cycle
_ICL_BW = (128, 64, 64)  # Sunny Cove: 2 x 512-bit loads, 2 stores (64 B/cycle)
_GLC_BW = (96, 64, 64)  # Golden Cove: 3 x 256-bit loads, 2 x 256-bit stores
_INTEL = {
    **{m: ("Haswell", 2, 256, _HSW_BW) for m in (0x3C, 0x3F, 0x45, 0x46)},
    **{m: ("Broadwell", 2, 256, _HSW_BW) for m in (0x3D, 0x47, 0x4F, 0x56)},
    **{m: ("Skylake", 2, 256, _HSW_BW) for m in (0x4E, 0x5E, 0x8E, 0x9E, 0xA5, 0xA6)},
    **{m: ("Skylake-SP/Cascade Lake", 2, 512, _SKX_BW) for m in (0x55,)},
    **{m: ("Ice Lake client/Tiger Lake/Rocket Lake", 2, 256, _ICL_BW) for m in (0x7D, 0x7E, 0x8C, 0x8D, 0xA7)},
    **{m: ("Ice Lake-SP", 2, 512, _ICL_BW) for m in (0x6A, 0x6C)},
    **{m: ("Sapphire/Emerald Rapids", 2, 512, _SKX_BW) for m in (0x8F, 0xCF)},
    **{m: ("Granite Rapids", 2, 512, _SKX_BW) for m in (0xAD, 0xAE)},
    **{m: ("Alder/Raptor/Meteor Lake P-core", 2, 256, _GLC_BW) for m in (0x97, 0x9A, 0xB7, 0xBA, 0xBF, 0xAA, 0xAC)},
}


def _amd(family: int, model: int) -> Uarch | None:
    # L1: Zen 1 2 x 128-bit loads + 1 x 128-bit store per cycle; Zen 2-4 2 x 256-bit loads + 1 x 256-bit store (a
    # 512-bit access of Zen 4 takes two); Zen 5 2 x 512-bit loads + 1 x 512-bit store. L2 -> L1 32 B/cycle up to
    # Zen 4, 64 on Zen 5; L3 -> L2 32 B/cycle per core.
    if family == 0x17:
        if model < 0x30:
            return Uarch("Zen/Zen+", 2, 128, 2, _AMD_SRC + " 17h", l1_load_bytes=32, l1_store_bytes=16, l2_bytes=32,
                         l3_bytes=32)
        return Uarch("Zen 2", 2, 256, 2, _AMD_SRC + " 17h", l1_load_bytes=64, l1_store_bytes=32, l2_bytes=32,
                     l3_bytes=32)
    if family == 0x19:
        if 0x10 <= model <= 0x1F or 0x60 <= model <= 0x7F or 0xA0 <= model <= 0xAF:
            return Uarch("Zen 4", 2, 256, 2, _AMD_SRC + " 19h (AVX-512 runs as 2 x 256-bit)", l1_load_bytes=64,
                         l1_store_bytes=32, l2_bytes=32, l3_bytes=32)
        return Uarch("Zen 3", 2, 256, 2, _AMD_SRC + " 19h", l1_load_bytes=64, l1_store_bytes=32, l2_bytes=32,
                     l3_bytes=32)
    if family == 0x1A:
        if model <= 0x1F or 0x40 <= model <= 0x4F:
            return Uarch("Zen 5", 2, 512, 2, _AMD_SRC + " 1Ah", l1_load_bytes=128, l1_store_bytes=64, l2_bytes=64,
                         l3_bytes=32)
        return Uarch("Zen 5 (mobile)", 2, 256, 2, _AMD_SRC + " 1Ah (mobile parts: 256-bit datapath)",
                     l1_load_bytes=64, l1_store_bytes=32, l2_bytes=64, l3_bytes=32)
    return None


def _intel(family: int, model: int, model_name: str) -> Uarch | None:
    if family != 6 or model not in _INTEL:
        return None
    name, pipes, bits, (ld, st, l2) = _INTEL[model]
    bw = dict(l1_load_bytes=ld, l1_store_bytes=st, l2_bytes=l2)
    if bits == 512 and any(s in model_name for s in ("Silver", "Bronze", "Gold 5")):
        # these Xeon SKUs have one 512-bit FMA unit (port 0+1 fused), the second (port 5) is fused off
        return Uarch(name + " (one 512-bit FMA unit)", 1, 512, 0, _INTEL_SRC, **bw)
    return Uarch(name, pipes, bits, 0, _INTEL_SRC, **bw)


# (name, FMA pipes, FMA bits, L1 load and store bytes per cycle): A76/A78/N1 2 x 128-bit loads + 1 x 128-bit store;
# the wider cores 3 x 128-bit loads (V1: 2 x 256-bit SVE) + 2 x 128-bit stores (Apple: 3 loads + 2 stores)
_ARM_PARTS = {
    (0x41, 0xD0B): ("Cortex-A76", 2, 128, 32, 16), (0x41, 0xD0C): ("Neoverse N1", 2, 128, 32, 16),
    (0x41, 0xD41): ("Cortex-A78", 2, 128, 32, 16), (0x41, 0xD44): ("Cortex-X1", 4, 128, 48, 32),
    (0x41, 0xD40): ("Neoverse V1", 4, 128, 64, 32), (0x41, 0xD49): ("Neoverse N2", 2, 128, 48, 32),
    (0x41, 0xD4F): ("Neoverse V2", 4, 128, 48, 32), (0x41, 0xD8E): ("Neoverse N3", 2, 128, 48, 32),
    (0x41, 0xD84): ("Neoverse V3", 4, 128, 48, 32),
    (0x61, None): ("Apple performance core", 4, 128, 48, 32),
    (0xC0, 0xAC3): ("AmpereOne", 2, 128, 48, 32),
}


def identify(*, arch: str, vendor: str = "", family: int | None = None, model: int | None = None,
             model_name: str = "", implementer: int | None = None, part: int | None = None,
             vector_bits: int = 128, has_fma: bool = True) -> Uarch:
    """The table entry for this CPU, or an ISA-based assumption (marked ``assumed``) when it is not listed."""
    u = None
    if arch == "x86_64" and family is not None and model is not None:
        if "AMD" in vendor:
            u = _amd(family, model)
        elif "Intel" in vendor:
            u = _intel(family, model, model_name)
    elif arch == "aarch64":
        if implementer is not None:
            hit = _ARM_PARTS.get((implementer, part)) or _ARM_PARTS.get((implementer, None))
            if hit:
                u = Uarch(hit[0], hit[1], hit[2], 0, _ARM_SRC if implementer == 0x41 else "vendor guide",
                          l1_load_bytes=hit[3], l1_store_bytes=hit[4])
        elif "Apple" in model_name:
            u = Uarch("Apple performance core", 4, 128, 0, "Apple silicon CPU Optimization Guide", l1_load_bytes=48,
                      l1_store_bytes=32)
    if u is not None:
        return u
    pipes = 2 if has_fma else 1
    vb = vector_bits // 8
    # not in the table: a generous guess, so that a bound refuses only what no core of this ISA could do
    return Uarch(f"unknown ({arch})", pipes, vector_bits, 0,
                 f"not in rooflab's table: assumed {pipes} x {vector_bits}-bit from the ISA", assumed=True,
                 l1_load_bytes=3 * vb, l1_store_bytes=2 * vb)
