"""An in-core prediction for a hot loop from a static analyzer that models the core: llvm-mca (Debian `llvm`).

Given the loop body as assembly, llvm-mca simulates many iterations on its model of a core and reports the cycles
per iteration, the block's reciprocal throughput (the bound from the execution ports alone, as if no instruction
waited for another) and how much of the time went to register dependencies versus resource pressure. A loop that
takes far more cycles than its throughput bound is bound by a dependency chain; one close to it by port pressure.

Where no model of this core exists (an older llvm-mca without Zen 4), the nearest older model of the same family is
used and the result says so; where the model cannot read the loop's instructions (Zen 3's model and AVX-512 zmm
forms), the analysis says that instead of guessing.
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from rooflab.errors import RooflabError

# the llvm CPU models for a micro-architecture, newest first: the first the installed llvm-mca knows is used
MODELS = (
    ("Zen 5", ("znver5", "znver4", "znver3")), ("Zen 4", ("znver4", "znver3")), ("Zen 3", ("znver3",)),
    ("Zen 2", ("znver2",)), ("Zen", ("znver1",)),
    ("Granite", ("graniterapids", "sapphirerapids", "icelake-server")),
    ("Sapphire", ("sapphirerapids", "icelake-server")), ("Ice Lake-SP", ("icelake-server",)),
    ("Ice Lake", ("icelake-client",)), ("Alder", ("alderlake", "skylake")), ("Skylake-SP", ("skylake-avx512",)),
    ("Skylake", ("skylake",)), ("Broadwell", ("broadwell",)), ("Haswell", ("haswell",)),
    ("Neoverse V2", ("neoverse-v2", "neoverse-v1")), ("Neoverse V1", ("neoverse-v1",)),
    ("Neoverse N2", ("neoverse-n2", "neoverse-n1")), ("Neoverse N1", ("neoverse-n1",)),
    ("Cortex-X1", ("cortex-x1", "cortex-a78")), ("Cortex-A78", ("cortex-a78", "cortex-a76")),
    ("Cortex-A76", ("cortex-a76",)), ("Apple", ("apple-m1",)),
)


class NoPrediction(RooflabError):
    """No analyzer could model this loop on this core; the message says why."""


def llvm_mca() -> str | None:
    """The newest llvm-mca installed: a newer one models newer cores (llvm 14 has no Zen 4 and cannot read AVX-512
    with its Zen 3 model; llvm 19 reads it as znver4). The unversioned ``llvm-mca`` is often the oldest."""
    found = [p for p in [shutil.which("llvm-mca")] + [shutil.which(f"llvm-mca-{v}") for v in range(30, 10, -1)] if p]
    if not found:
        return None
    return max(dict.fromkeys(found), key=_major)


def _major(tool: str) -> int:
    """The LLVM major version of an llvm-mca (0 when it does not say)."""
    m = re.search(r"llvm-mca-(\d+)$", tool)
    if m:
        return int(m.group(1))
    try:
        out = subprocess.run([tool, "--version"], capture_output=True, text=True, errors="replace", timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return 0
    m = re.search(r"LLVM version (\d+)", out)
    return int(m.group(1)) if m else 0


@functools.lru_cache(maxsize=4)
def _known(tool: str, triple: str) -> tuple[str, frozenset]:
    version = subprocess.run([tool, "--version"], capture_output=True, text=True, errors="replace", timeout=30).stdout
    ver = re.search(r"LLVM version (\S+)", version)
    r = subprocess.run([tool, f"-mtriple={triple}", "-mcpu=help"], capture_output=True, text=True, errors="replace",
                       timeout=30)
    cpus = frozenset(re.findall(r"^\s+([\w.-]+)\s+- Select the", r.stdout + r.stderr, re.M))
    return (ver.group(1) if ver else "?"), cpus


def _triple(arch: str) -> str:
    return "x86_64-unknown-linux-gnu" if arch == "x86_64" else "aarch64-unknown-linux-gnu"


def model_for(uarch: str, arch: str, tool: str | None = None) -> tuple[str, str]:
    """(llvm CPU model, note) for a micro-architecture; NoPrediction when llvm-mca or a model is missing."""
    tool = tool or llvm_mca()
    if tool is None:
        raise NoPrediction("no static analyzer: llvm-mca is not installed (apt-get install llvm)")
    version, cpus = _known(tool, _triple(arch))
    for name, models in MODELS:
        if uarch.startswith(name):
            for i, cpu in enumerate(models):
                if cpu in cpus:
                    note = "" if i == 0 else (f"llvm-mca {version} has no {uarch} model; the nearest it has, {cpu}, "
                                              "stands in")
                    return cpu, note
            raise NoPrediction(f"llvm-mca {version} has no model of {uarch} (nor of an older core of its family)")
    raise NoPrediction(f"no llvm-mca model is known for {uarch}")


def parse_mca(text: str) -> dict:
    """The numbers of an llvm-mca report (with ``-bottleneck-analysis``)."""
    def num(pattern):
        m = re.search(pattern, text)
        return float(m.group(1)) if m else None

    iters, cycles = num(r"Iterations:\s+(\d+)"), num(r"Total Cycles:\s+(\d+)")
    if not iters or not cycles:
        raise NoPrediction("llvm-mca gave no cycle count")
    deps = num(r"Data Dependencies:\s+\[\s*([\d.]+)%")
    res = num(r"Resource Pressure\s+\[\s*([\d.]+)%")
    rthr = num(r"Block RThroughput:\s+([\d.]+)")
    cpi = cycles / iters
    if deps is not None and res is not None and (deps or res):
        bound = "dependencies" if deps >= res else "resources"
    else:  # no bottleneck view: a loop far slower than its throughput bound waits on its dependencies
        bound = "dependencies" if rthr and cpi > 1.5 * rthr else "resources"
    ports = re.findall(r"^\s+- (\w+)\s+\[\s*([\d.]+)%", text.split("Resource Pressure", 1)[-1].split("Data Dep")[0],
                       re.M) if "Resource Pressure" in text else []
    return {"cycles_per_iteration": cpi, "block_rthroughput": rthr, "bound": bound,
            "dependency_share": deps / 100 if deps is not None else None,
            "resource_share": res / 100 if res is not None else None,
            "busiest": [p for p, _ in sorted(ports, key=lambda x: -float(x[1]))[:3]],
            "ipc": num(r"IPC:\s+([\d.]+)")}


_X86_DIV = re.compile(r"^(\s*)(v?)div(p[sd]|s[sd])\b(.*)$", re.M)


def without_division(assembly: str) -> str | None:
    """The same x86 loop with each FP division made a multiplication of the same operands: what the loop would
    cost if the divider did not set its pace (what multiplying by a reciprocal gives). Square roots stay: no
    multiplication replaces one. None when the loop divides nothing."""
    out, n = _X86_DIV.subn(lambda m: f"{m.group(1)}{m.group(2)}mul{m.group(3)}{m.group(4)}", assembly)
    return out if n else None


def predict(assembly: str, uarch: str, arch: str, tool: str | None = None) -> dict:
    """llvm-mca's prediction for one loop body on this core's model: cycles per iteration, its throughput bound,
    what binds it. NoPrediction says why there is none."""
    tool = tool or llvm_mca()
    cpu, note = model_for(uarch, arch, tool)
    version, _ = _known(tool, _triple(arch))
    with tempfile.TemporaryDirectory(prefix="rooflab-mca-") as d:
        src = Path(d) / "loop.s"
        src.write_text(assembly, encoding="utf-8")
        try:
            r = subprocess.run([tool, f"-mtriple={_triple(arch)}", f"-mcpu={cpu}", "-iterations=200",
                                "-bottleneck-analysis", "-instruction-info=false", "-resource-pressure=false",
                                str(src)], capture_output=True, text=True, errors="replace", timeout=60)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise NoPrediction(f"llvm-mca did not run: {exc}") from None
    if r.returncode != 0:
        said = (r.stderr or r.stdout).strip().splitlines()
        unsupported = next((ln.split("instruction:", 1)[1].strip() for ln in said if "instruction:" in ln), None)
        if unsupported:
            raise NoPrediction(f"llvm-mca {version}'s {cpu} model cannot read `{unsupported}`")
        raise NoPrediction(f"llvm-mca {version} failed: {said[0] if said else r.returncode}")
    out = parse_mca(r.stdout)
    out.update(tool=f"llvm-mca {version}", model=cpu, note=note)
    return out
