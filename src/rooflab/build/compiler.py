"""Find a C compiler, choose flags for the ISA, and build shared libraries into a content-addressed cache.

The cache key covers everything that changes the binary: every source and header, the flags, the compiler's
identity (path, version, target) and the machine (with ``-march=native`` the CPU model and its feature flags too).
A library is compiled under a temporary name in its final directory and published with an atomic rename, so two
processes building the same kernel at once never load a half-written file.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import platform
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from ..errors import CompileError, CompilerNotFound
from ..paths import CSRC, cache_dir

SHLIB_SUFFIX = ".dylib" if platform.system() == "Darwin" else ".so"


@dataclass(frozen=True)
class Compiler:
    path: str
    kind: str  # "gcc", "clang" or "cc" (unknown family)
    version: str
    target: str  # e.g. x86_64-linux-gnu, aarch64-linux-gnu
    arch: str  # x86_64, aarch64, ...

    @property
    def identity(self) -> str:
        return f"{self.path}|{self.version}|{self.target}"

    @property
    def cross(self) -> bool:
        """True when this compiler builds for another architecture than the one running rooflab."""
        return self.arch != _normalize_arch(platform.machine())

    def tool(self, name: str) -> str:
        """A binutils tool for this compiler's target: ``aarch64-linux-gnu-objdump`` beside
        ``aarch64-linux-gnu-gcc``, the plain tool otherwise."""
        base = os.path.basename(self.path)
        for suffix in ("gcc", "clang", "cc"):
            if base.endswith("-" + suffix):
                cand = shutil.which(base[: -len(suffix)] + name)
                if cand:
                    return cand
        return shutil.which(name) or name

    def to_dict(self) -> dict:
        return {"path": self.path, "kind": self.kind, "version": self.version, "target": self.target,
                "arch": self.arch}


def _normalize_arch(target: str) -> str:
    head = target.split("-")[0]
    return {"arm64": "aarch64", "amd64": "x86_64"}.get(head, head)


@functools.lru_cache(maxsize=16)
def probe_compiler(path: str) -> Compiler:
    """Ask a compiler who it is (``--version``, ``-dumpmachine``)."""
    try:
        ver = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30)
        tgt = subprocess.run([path, "-dumpmachine"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise CompilerNotFound(f"the C compiler {path!r} could not be run: {exc}") from exc
    if ver.returncode != 0:
        raise CompilerNotFound(f"the C compiler {path!r} failed to report its version: {ver.stderr.strip()}")
    first = (ver.stdout.strip().splitlines() or ["unknown"])[0]
    low = ver.stdout.lower()
    kind = "clang" if "clang" in low else ("gcc" if ("gcc" in low or "free software foundation" in low) else "cc")
    target = tgt.stdout.strip() if tgt.returncode == 0 and tgt.stdout.strip() else platform.machine()
    return Compiler(path=path, kind=kind, version=first, target=target, arch=_normalize_arch(target))


def find_compiler(env: dict | None = None) -> Compiler:
    """``$CC`` if set, else the first of cc, gcc, clang on PATH."""
    env = os.environ if env is None else env
    cands = [env["CC"]] if env.get("CC") else ["cc", "gcc", "clang"]
    for c in cands:
        parts = c.split()
        exe = shutil.which(parts[0], path=env.get("PATH"))
        if exe:
            return probe_compiler(exe)
    if env.get("CC"):
        raise CompilerNotFound(f"CC={env['CC']!r} was not found on PATH; set CC to a working C compiler")
    raise CompilerNotFound("no C compiler found (tried cc, gcc, clang); install one (e.g. apt-get install gcc, "
                           "xcode-select --install) or set CC")


# ---------------------------------------------------------------------------------------------- flag profiles

PROFILES = ("portable", "native", "bare")


def profile_flags(profile: str, compiler: Compiler) -> list[str]:
    """Flags of a named profile: ``portable`` runs on any CPU of the architecture; ``native`` uses all of this one;
    ``bare`` leaves optimization and target to the caller (the vectorize lab's flag matrix)."""
    if profile == "bare":  # only what a shared library needs: the caller chooses optimization and target flags
        return ["-std=gnu11", "-fPIC"]
    base = ["-O3", "-std=gnu11", "-fPIC", "-fno-strict-aliasing"]
    if profile == "portable":
        return base
    if profile == "native" and compiler.cross:
        # no "native" for a CPU we are not running on: a representative core of the target
        return base + (["-mcpu=neoverse-n1"] if compiler.arch == "aarch64" else ["-march=x86-64-v3"])
    if profile == "native":
        if compiler.arch == "x86_64" or compiler.arch.startswith("i"):
            return base + ["-march=native"]
        if compiler.arch in ("aarch64", "arm64"):
            # gcc on Arm wants -mcpu=native; Apple clang accepts -mcpu=native from clang 15 on, -march=native
            # is rejected by older ones
            return base + ["-mcpu=native"]
        return base + ["-march=native"]
    raise ValueError(f"unknown flag profile {profile!r} (choose from {', '.join(PROFILES)})")


_OMP_TEST = r"""
#include <omp.h>
int rl_omp_threads(void) { int n = 0;
#pragma omp parallel
{
#pragma omp atomic
  n++;
}
return n; }
"""

_OMP_CANDIDATES = (["-fopenmp"], ["-Xpreprocessor", "-fopenmp", "-lomp"], ["-fopenmp=libomp"])


@functools.lru_cache(maxsize=16)
def openmp_flags(compiler: Compiler) -> tuple[str, ...] | None:
    """The flags that give this compiler working OpenMP, or None when it has none (detected, not assumed)."""
    with tempfile.TemporaryDirectory(prefix="rooflab-omp-") as d:
        src = Path(d) / "omp.c"
        src.write_text(_OMP_TEST)
        for cand in _OMP_CANDIDATES:
            out = Path(d) / f"omp{SHLIB_SUFFIX}"
            cmd = [compiler.path, "-shared", "-fPIC", *cand, str(src), "-o", str(out)]
            try:
                r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
            except (OSError, subprocess.TimeoutExpired):
                continue
            if r.returncode == 0 and out.exists():
                return tuple(cand)
    return None


# ------------------------------------------------------------------------------------------------------ cache


def _cpu_identity() -> str:
    """What -march=native depends on: the CPU model and feature flags."""
    try:
        with open("/proc/cpuinfo") as f:
            keep = [ln for ln in f.read().splitlines()
                    if ln.split(":")[0].strip() in ("model name", "flags", "Features", "CPU part", "CPU implementer")]
        return "\n".join(sorted(set(keep)))
    except OSError:
        return platform.processor() + platform.machine()


def cache_key(sources: Iterable[Path], headers: Iterable[Path], flags: Sequence[str], compiler: Compiler) -> str:
    h = hashlib.sha256()
    h.update(b"rooflab-build-1\0")
    h.update(compiler.identity.encode() + b"\0")
    h.update(platform.machine().encode() + b"\0")
    h.update("\0".join(flags).encode() + b"\0")
    if any(f in ("-march=native", "-mcpu=native", "-mtune=native") for f in flags):
        h.update(_cpu_identity().encode() + b"\0")
    for p in sorted(set(Path(s) for s in sources), key=str):
        h.update(b"src:" + p.name.encode() + b"\0" + p.read_bytes() + b"\0")
    for p in sorted(set(Path(s) for s in headers), key=str):
        h.update(b"hdr:" + p.name.encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


@dataclass(frozen=True)
class Library:
    path: Path
    sources: tuple[str, ...]
    flags: tuple[str, ...]
    compiler: Compiler
    key: str
    cached: bool  # True when it came from the cache without compiling

    def to_dict(self) -> dict:
        return {"path": str(self.path), "sources": list(self.sources), "flags": list(self.flags),
                "compiler": self.compiler.to_dict(), "key": self.key}


def _headers_for(sources: Sequence[Path], include_dirs: Sequence[Path]) -> list[Path]:
    dirs = {Path(s).resolve().parent for s in sources} | {Path(d).resolve() for d in include_dirs}
    return sorted({h for d in dirs if d.is_dir() for h in d.glob("*.h")})


def build(sources: Sequence[str | Path], *, name: str, flags: Sequence[str] = (), profile: str = "native",
          openmp: bool = False, defines: dict[str, object] | None = None, include_dirs: Sequence[Path] = (),
          compiler: Compiler | None = None, cache: Path | None = None, libs: Sequence[str] = (),
          executable: bool = False) -> Library:
    """Compile ``sources`` into a shared library (cached by content); raise CompileError with diagnostics.

    ``executable=True`` links a program instead (a test driver, e.g. one run under qemu-user for another ISA).
    """
    compiler = compiler or find_compiler()
    srcs = [Path(s).resolve() for s in sources]
    for s in srcs:
        if not s.is_file():
            raise CompileError(str(s), [], f"{s}:0:0: error: source file not found")
    incs = [CSRC, *[Path(d) for d in include_dirs]]
    all_flags = list(profile_flags(profile, compiler)) + list(flags)
    if openmp:
        omp = openmp_flags(compiler)
        if omp is None:
            raise CompileError(str(srcs[0]), [compiler.path], "the compiler has no working OpenMP (-fopenmp failed)")
        all_flags += list(omp)
    for k, v in sorted((defines or {}).items()):
        all_flags.append(f"-D{k}" if v is None else f"-D{k}={v}")
    all_flags += [f"-I{d}" for d in incs]
    key = cache_key(srcs, _headers_for(srcs, incs), all_flags + list(libs) + (["<exe>"] if executable else []),
                    compiler)
    root = Path(cache) if cache else cache_dir() / "build"
    outdir = root / key[:2] / key
    final = outdir / (name if executable else f"lib{name}{SHLIB_SUFFIX}")
    if final.exists():
        return Library(final, tuple(map(str, srcs)), tuple(all_flags), compiler, key, cached=True)
    outdir.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".lib{name}-", suffix=SHLIB_SUFFIX + ".tmp", dir=outdir)
    os.close(fd)
    cmd = [compiler.path, *([] if executable else ["-shared"]), *all_flags, *map(str, srcs), "-o", tmp, "-lm", *libs]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        os.unlink(tmp)
        raise CompileError(str(srcs[0]), cmd, "the compiler did not finish within 300 s") from None
    if r.returncode != 0:
        os.unlink(tmp)
        raise CompileError(str(srcs[0]), cmd, r.stderr + r.stdout)
    meta = {"command": cmd, "compiler": compiler.to_dict(), "warnings": r.stderr}
    mfd, mtmp = tempfile.mkstemp(prefix=".meta-", dir=outdir)
    with os.fdopen(mfd, "w") as f:
        json.dump(meta, f)
    os.replace(mtmp, outdir / "meta.json")
    if executable:
        os.chmod(tmp, 0o755)
    os.replace(tmp, final)  # atomic publication: readers see either nothing or the whole library
    return Library(final, tuple(map(str, srcs)), tuple(all_flags), compiler, key, cached=False)


def build_kernel(stem: str, *, name: str | None = None, **kw) -> Library:
    """Build one of rooflab's own C files (``csrc/<stem>.c``)."""
    return build([CSRC / f"{stem}.c"], name=name or stem, **kw)
