"""What the CPU is: model, cores, ISA, vector registers, caches, NUMA nodes, memory.

Parsers take text (or a sysfs root) and return values, so they are tested on canned x86 and Arm inputs; only
:func:`describe_cpu` reads the running machine.
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from rooflab.machine.uarch import Uarch, identify


@dataclass(frozen=True)
class Cache:
    level: int
    type: str  # Data, Instruction, Unified
    size: int  # bytes, one instance
    line: int = 64
    ways: int | None = None
    shared_by: int = 1  # logical CPUs sharing one instance
    instances: int = 1

    @property
    def name(self) -> str:
        suffix = {"Data": "d", "Instruction": "i"}.get(self.type, "")
        return f"L{self.level}{suffix}"

    def to_dict(self) -> dict:
        return {"name": self.name, "level": self.level, "type": self.type, "size": self.size, "line": self.line,
                "ways": self.ways, "shared_by": self.shared_by, "instances": self.instances}


@dataclass(frozen=True)
class ISA:
    arch: str
    features: tuple[str, ...]  # e.g. ("sse2", "avx", "avx2", "fma", "avx512f")
    vector_bits: int  # widest SIMD register
    vector_registers: int  # architectural vector registers at that width
    fma: bool
    name: str  # the widest SIMD extension: "avx512", "avx2", "sse2", "neon", "sve", "scalar"

    def to_dict(self) -> dict:
        return {"arch": self.arch, "features": list(self.features), "vector_bits": self.vector_bits,
                "vector_registers": self.vector_registers, "fma": self.fma, "name": self.name}


@dataclass
class CPU:
    model_name: str
    arch: str
    vendor: str
    logical_cpus: int
    physical_cores: int
    sockets: int
    isa: ISA
    uarch: Uarch
    caches: list[Cache] = field(default_factory=list)
    numa_nodes: dict[int, list[int]] = field(default_factory=dict)
    memory_bytes: int | None = None
    nominal_mhz: float | None = None  # what /proc/cpuinfo says; often the TSC, not the running clock
    family: int | None = None
    model: int | None = None
    # a virtual machine: the topology it shows need not be the host's (two vCPUs may share one physical core)
    virtualized: bool = False
    smt_siblings: dict[int, list[int]] = field(default_factory=dict)  # cpu -> the CPUs of its core, per the OS

    def cache(self, level: int) -> Cache | None:
        """The data (or unified) cache of a level."""
        for c in self.caches:
            if c.level == level and c.type in ("Data", "Unified"):
                return c
        return None

    def to_dict(self) -> dict:
        return {"model_name": self.model_name, "arch": self.arch, "vendor": self.vendor,
                "logical_cpus": self.logical_cpus, "physical_cores": self.physical_cores, "sockets": self.sockets,
                "family": self.family, "model": self.model, "isa": self.isa.to_dict(), "uarch": self.uarch.to_dict(),
                "caches": [c.to_dict() for c in self.caches],
                "numa_nodes": {str(k): v for k, v in self.numa_nodes.items()},
                "memory_bytes": self.memory_bytes, "nominal_mhz": self.nominal_mhz, "virtualized": self.virtualized,
                "smt_siblings": {str(k): v for k, v in self.smt_siblings.items()}}


# ------------------------------------------------------------------------------------------------ parsers


def parse_cpuinfo(text: str) -> dict:
    """Fields of the first processor block plus the count of distinct (physical id, core id) pairs."""
    blocks = [b for b in re.split(r"\n\s*\n", text.strip()) if b.strip()]
    info: dict = {"processors": 0}
    cores = set()
    for b in blocks:
        d = {}
        for line in b.splitlines():
            if ":" in line:
                k, v = line.split(":", 1)
                d[k.strip()] = v.strip()
        if "processor" in d:
            info["processors"] += 1
            if "core id" in d:
                cores.add((d.get("physical id", "0"), d["core id"]))
        for k, v in d.items():
            info.setdefault(k, v)
    info["physical_cores"] = len(cores) or None
    return info


def parse_lscpu(text: str) -> dict:
    d = {}
    for line in text.splitlines():
        if ":" in line:
            k, v = line.split(":", 1)
            d[k.strip()] = v.strip()
    return d


_SIZE = re.compile(r"^\s*([\d.]+)\s*([KMG]?)(i?B)?", re.I)


def parse_size(s: str) -> int | None:
    """'32K', '1024 KiB', '2 MiB (2 instances)', '32768' -> bytes."""
    m = _SIZE.match(s)
    if not m:
        return None
    mult = {"": 1, "K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}[m.group(2).upper()]
    return int(float(m.group(1)) * mult)


def _cpu_list_len(s: str) -> int:
    n = 0
    for part in s.strip().split(","):
        if not part:
            continue
        if "-" in part:
            a, b = part.split("-")
            n += int(b) - int(a) + 1
        else:
            n += 1
    return n


def parse_cpu_list(s: str) -> list[int]:
    out = []
    for part in s.strip().split(","):
        if "-" in part:
            a, b = part.split("-")
            out.extend(range(int(a), int(b) + 1))
        elif part:
            out.append(int(part))
    return out


def read_sysfs_caches(root: str | Path = "/sys/devices/system/cpu", logical_cpus: int | None = None) -> list[Cache]:
    """Caches of cpu0 from sysfs (``cache/index*/{level,type,size,coherency_line_size,ways_of_associativity,...}``)."""
    base = Path(root) / "cpu0" / "cache"
    out = []
    if not base.is_dir():
        return out
    for idx in sorted(base.glob("index*")):
        def rd(name: str, idx=idx) -> str | None:
            try:
                return (idx / name).read_text().strip()
            except OSError:
                return None
        level, ctype, size = rd("level"), rd("type"), rd("size")
        if not (level and ctype and size):
            continue
        shared = rd("shared_cpu_list")
        shared_by = _cpu_list_len(shared) if shared else 1
        ways = rd("ways_of_associativity")
        line = rd("coherency_line_size")
        inst = max(1, (logical_cpus or shared_by) // max(1, shared_by))
        out.append(Cache(level=int(level), type=ctype, size=parse_size(size) or 0, line=int(line or 64),
                         ways=int(ways) if ways and ways.isdigit() and int(ways) > 0 else None,
                         shared_by=shared_by, instances=inst))
    return out


def caches_from_lscpu(d: dict) -> list[Cache]:
    """Fallback when sysfs has no cache directory: lscpu's 'L1d cache: 64 KiB (2 instances)' lines (totals)."""
    out = []
    for key, level, ctype in (("L1d cache", 1, "Data"), ("L1i cache", 1, "Instruction"), ("L2 cache", 2, "Unified"),
                              ("L3 cache", 3, "Unified")):
        v = d.get(key)
        if not v:
            continue
        total = parse_size(v)
        m = re.search(r"\((\d+) instances?\)", v)
        inst = int(m.group(1)) if m else 1
        if total:
            out.append(Cache(level=level, type=ctype, size=total // inst, instances=inst))
    return out


def parse_sysctl_caches(d: dict) -> list[Cache]:
    """macOS: hw.perflevel0.l1dcachesize etc. (performance cores), else hw.l1dcachesize."""
    def get(*keys):
        for k in keys:
            if d.get(k):
                return int(d[k])
        return None
    out = []
    for level, ctype, keys in ((1, "Data", ("hw.perflevel0.l1dcachesize", "hw.l1dcachesize")),
                               (2, "Unified", ("hw.perflevel0.l2cachesize", "hw.l2cachesize")),
                               (3, "Unified", ("hw.l3cachesize",))):
        size = get(*keys)
        if size:
            out.append(Cache(level=level, type=ctype, size=size, line=get("hw.cachelinesize") or 64))
    return out


def isa_from_flags(arch: str, flags: set[str]) -> ISA:
    """ISA features, widest vector width and register count from /proc/cpuinfo flags (x86) or Features (Arm)."""
    if arch == "x86_64":
        keep = tuple(f for f in ("sse2", "sse4_2", "avx", "avx2", "fma", "avx512f", "avx512vl", "avx512bw",
                                 "avx512_bf16", "avx512_fp16", "amx_tile") if f in flags)
        fma = "fma" in flags
        if "avx512f" in flags:
            return ISA(arch, keep, 512, 32, fma, "avx512")
        if "avx2" in flags:
            return ISA(arch, keep, 256, 16, fma, "avx2")
        if "avx" in flags:
            return ISA(arch, keep, 256, 16, fma, "avx")
        return ISA(arch, keep, 128, 16, fma, "sse2")
    if arch in ("aarch64", "arm64"):
        keep = tuple(f for f in ("asimd", "fphp", "asimdhp", "asimddp", "bf16", "i8mm", "sve", "sve2", "sme")
                     if f in flags)
        # NEON (asimd) is mandatory on AArch64; 32 x 128-bit registers; FMA (fmla) is part of it
        return ISA("aarch64", keep or ("asimd",), 128, 32, True, "sve" if "sve" in flags else "neon")
    return ISA(arch, (), 0, 0, False, "scalar")


def parse_numa(root: str | Path = "/sys/devices/system/node") -> dict[int, list[int]]:
    nodes = {}
    base = Path(root)
    if not base.is_dir():
        return nodes
    for n in sorted(base.glob("node[0-9]*")):
        try:
            cpus = parse_cpu_list((n / "cpulist").read_text())
        except OSError:
            continue
        nodes[int(n.name[4:])] = cpus
    return nodes


def parse_meminfo(text: str) -> int | None:
    m = re.search(r"^MemTotal:\s+(\d+)\s*kB", text, re.M)
    return int(m.group(1)) * 1024 if m else None


def _int(v: str | None, base: int = 10) -> int | None:
    if v is None:
        return None
    try:
        return int(v, 0) if v.startswith("0x") else int(v, base)
    except ValueError:
        return None


def cpu_from_texts(*, arch: str, cpuinfo: str = "", lscpu: str = "", sysfs_caches: list[Cache] | None = None,
                   numa: dict[int, list[int]] | None = None, meminfo: str = "", sysctl: dict | None = None,
                   logical_cpus: int | None = None, siblings: dict[int, list[int]] | None = None,
                   hypervisor: str = "") -> CPU:
    """Assemble a CPU description from the raw texts of one machine (pure: the tests feed canned inputs)."""
    ci = parse_cpuinfo(cpuinfo) if cpuinfo else {"processors": 0, "physical_cores": None}
    ls = parse_lscpu(lscpu) if lscpu else {}
    sysctl = sysctl or {}
    arch = {"arm64": "aarch64", "amd64": "x86_64"}.get(arch, arch)
    logical = logical_cpus or ci["processors"] or _int(ls.get("CPU(s)")) or _int(sysctl.get("hw.logicalcpu")) or 1
    vendor = ci.get("vendor_id") or ls.get("Vendor ID") or ("Apple" if sysctl else "")
    impl = _int(ci.get("CPU implementer"))
    part = _int(ci.get("CPU part"))
    model_name = (ci.get("model name") or ls.get("Model name") or sysctl.get("machdep.cpu.brand_string") or "")
    if not model_name and impl is not None:
        model_name = f"Arm implementer {impl:#x} part {part:#x}" if part is not None else f"Arm {impl:#x}"
    if arch == "x86_64":
        flags = set(ci.get("flags", ls.get("Flags", "")).split())
    else:
        flags = set(ci.get("Features", ls.get("Flags", "")).split())
        if sysctl:
            flags |= {"asimd"} | ({"bf16"} if sysctl.get("hw.optional.arm.FEAT_BF16") == "1" else set())
    isa = isa_from_flags(arch, flags)
    sockets = _int(ls.get("Socket(s)")) or len({ln for ln in cpuinfo.splitlines() if ln.startswith("physical id")}) or 1
    phys = ci["physical_cores"]
    if not phys and ls.get("Core(s) per socket"):
        phys = (_int(ls["Core(s) per socket"]) or 1) * sockets
    if not phys and sysctl.get("hw.physicalcpu"):
        phys = _int(sysctl["hw.physicalcpu"])
    phys = phys or logical
    family = _int(ci.get("cpu family") or ls.get("CPU family"))
    model = _int(ci.get("model") or ls.get("Model"))
    uarch = identify(arch=arch, vendor=vendor, family=family, model=model, model_name=model_name,
                     implementer=impl, part=part, vector_bits=isa.vector_bits, has_fma=isa.fma)
    caches = sysfs_caches if sysfs_caches else (caches_from_lscpu(ls) or parse_sysctl_caches(sysctl))
    mhz = ci.get("cpu MHz")
    return CPU(model_name=model_name or platform.machine(), arch=arch, vendor=vendor, logical_cpus=logical,
               physical_cores=phys, sockets=sockets, isa=isa, uarch=uarch, caches=caches,
               numa_nodes=numa or {}, memory_bytes=parse_meminfo(meminfo) if meminfo else
               _int(sysctl.get("hw.memsize")), nominal_mhz=float(mhz) if mhz else None, family=family, model=model,
               virtualized="hypervisor" in flags or bool(hypervisor.strip()) or bool(ls.get("Hypervisor vendor")),
               smt_siblings=siblings or {})


def _read(path: str) -> str:
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def _run(cmd: list[str]) -> str:
    if not shutil.which(cmd[0]):
        return ""
    try:
        return subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=20,
                              env={**os.environ, "LC_ALL": "C"}).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ""


def describe_cpu() -> CPU:
    """Read this machine (Linux: /proc, sysfs, lscpu; macOS: sysctl)."""
    arch = platform.machine()
    if platform.system() == "Darwin":
        sysctl = {}
        for line in _run(["sysctl", "-a"]).splitlines():
            if ":" in line:
                k, v = line.split(":", 1)
                sysctl[k.strip()] = v.strip()
        return cpu_from_texts(arch=arch, sysctl=sysctl)
    logical = os.cpu_count()
    return cpu_from_texts(arch=arch, cpuinfo=_read("/proc/cpuinfo"), lscpu=_run(["lscpu"]),
                          sysfs_caches=read_sysfs_caches(logical_cpus=logical), numa=parse_numa(),
                          meminfo=_read("/proc/meminfo"), logical_cpus=logical, siblings=read_siblings(),
                          hypervisor=_read("/sys/hypervisor/type"))


def read_siblings(root: str | Path = "/sys/devices/system/cpu") -> dict[int, list[int]]:
    """Each CPU's core mates as the OS reports them (``topology/thread_siblings_list``)."""
    out = {}
    base = Path(root)
    for d in sorted(base.glob("cpu[0-9]*")):
        text = _read(str(d / "topology" / "thread_siblings_list")).strip()
        if text:
            try:
                out[int(d.name[3:])] = parse_cpu_list(text)
            except ValueError:
                continue
    return out
