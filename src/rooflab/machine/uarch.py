"""Floating-point execution resources per micro-architecture, with sources.

``fma_pipes`` x ``fma_bits`` is the FMA datapath per core for the widest vector instructions the core runs at full
rate. AMD Zen 4 accepts AVX-512 but executes it on 2 x 256-bit pipes, so its FLOP/cycle equals AVX2's. ``add_pipes``
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
                "assumed": self.assumed}


# dispatch width by micro-architecture name prefix (first match wins)
_DISPATCH = (("Zen 5", 8), ("Zen", 6), ("Haswell", 4), ("Broadwell", 4), ("Skylake", 4), ("Ice Lake", 5),
             ("Sapphire", 6), ("Granite", 6), ("Alder", 6), ("Neoverse N1", 4), ("Neoverse N2", 5),
             ("Neoverse V1", 8), ("Neoverse V2", 8), ("Cortex-A76", 4), ("Cortex-A78", 4), ("Cortex-X1", 5),
             ("Apple", 8))


_AMD_SRC = "AMD Software Optimization Guide"
_INTEL_SRC = "Intel Optimization Reference Manual"
_ARM_SRC = "Arm Neoverse Software Optimization Guide"

# Intel family 6 models -> (name, fma_pipes, fma_bits)
_INTEL = {
    **{m: ("Haswell", 2, 256) for m in (0x3C, 0x3F, 0x45, 0x46)},
    **{m: ("Broadwell", 2, 256) for m in (0x3D, 0x47, 0x4F, 0x56)},
    **{m: ("Skylake", 2, 256) for m in (0x4E, 0x5E, 0x8E, 0x9E, 0xA5, 0xA6)},
    **{m: ("Skylake-SP/Cascade Lake", 2, 512) for m in (0x55,)},
    **{m: ("Ice Lake client/Tiger Lake/Rocket Lake", 2, 256) for m in (0x7D, 0x7E, 0x8C, 0x8D, 0xA7)},
    **{m: ("Ice Lake-SP", 2, 512) for m in (0x6A, 0x6C)},
    **{m: ("Sapphire/Emerald Rapids", 2, 512) for m in (0x8F, 0xCF)},
    **{m: ("Granite Rapids", 2, 512) for m in (0xAD, 0xAE)},
    **{m: ("Alder/Raptor/Meteor Lake P-core", 2, 256) for m in (0x97, 0x9A, 0xB7, 0xBA, 0xBF, 0xAA, 0xAC)},
}


def _amd(family: int, model: int) -> Uarch | None:
    if family == 0x17:
        if model < 0x30:
            return Uarch("Zen/Zen+", 2, 128, 2, _AMD_SRC + " 17h")
        return Uarch("Zen 2", 2, 256, 2, _AMD_SRC + " 17h")
    if family == 0x19:
        if 0x10 <= model <= 0x1F or 0x60 <= model <= 0x7F or 0xA0 <= model <= 0xAF:
            return Uarch("Zen 4", 2, 256, 2, _AMD_SRC + " 19h (AVX-512 runs as 2 x 256-bit)")
        return Uarch("Zen 3", 2, 256, 2, _AMD_SRC + " 19h")
    if family == 0x1A:
        if model <= 0x1F or 0x40 <= model <= 0x4F:
            return Uarch("Zen 5", 2, 512, 2, _AMD_SRC + " 1Ah")
        return Uarch("Zen 5 (mobile)", 2, 256, 2, _AMD_SRC + " 1Ah (mobile parts: 256-bit datapath)")
    return None


def _intel(family: int, model: int, model_name: str) -> Uarch | None:
    if family != 6 or model not in _INTEL:
        return None
    name, pipes, bits = _INTEL[model]
    if bits == 512 and any(s in model_name for s in ("Silver", "Bronze", "Gold 5")):
        # these Xeon SKUs have one 512-bit FMA unit (port 0+1 fused), the second (port 5) is fused off
        return Uarch(name + " (one 512-bit FMA unit)", 1, 512, 0, _INTEL_SRC)
    return Uarch(name, pipes, bits, 0, _INTEL_SRC)


_ARM_PARTS = {
    (0x41, 0xD0B): ("Cortex-A76", 2, 128), (0x41, 0xD0C): ("Neoverse N1", 2, 128),
    (0x41, 0xD41): ("Cortex-A78", 2, 128), (0x41, 0xD44): ("Cortex-X1", 4, 128),
    (0x41, 0xD40): ("Neoverse V1", 4, 128), (0x41, 0xD49): ("Neoverse N2", 2, 128),
    (0x41, 0xD4F): ("Neoverse V2", 4, 128), (0x41, 0xD8E): ("Neoverse N3", 2, 128),
    (0x41, 0xD84): ("Neoverse V3", 4, 128),
    (0x61, None): ("Apple performance core", 4, 128),
    (0xC0, 0xAC3): ("AmpereOne", 2, 128),
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
                u = Uarch(hit[0], hit[1], hit[2], 0, _ARM_SRC if implementer == 0x41 else "vendor guide")
        elif "Apple" in model_name:
            u = Uarch("Apple performance core", 4, 128, 0, "Apple silicon CPU Optimization Guide")
    if u is not None:
        return u
    pipes = 2 if has_fma else 1
    return Uarch(f"unknown ({arch})", pipes, vector_bits, 0,
                 f"not in rooflab's table: assumed {pipes} x {vector_bits}-bit from the ISA", assumed=True)
