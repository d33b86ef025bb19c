"""Find a C compiler, choose flags for the ISA, and build shared libraries into a content-addressed cache.

The cache key covers everything that changes the binary: the sources, every file they include (as the compiler
itself reports them in a depfile, ``-MD``: headers reached through ``-I``, subfolders or ``#include "x.inc"``), the
flags, the compiler's identity (path, extra arguments, version, target) and the machine (with ``-march=native`` the
CPU model and its feature flags too). As ccache's direct mode does, a manifest per sources-and-flags records which
dependencies each build read and their contents; a build is reused only when every one of them is unchanged.
A library is compiled under a temporary name in its final directory and published with an atomic rename, so two
processes building the same kernel at once never load a half-written file. The cache directories are private to
the user (0700), and a library is hashed again before it is handed out, so a file changed behind rooflab's back is
rebuilt, not loaded.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import platform
import re
import shlex
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from rooflab.errors import CompileError, CompilerNotFound
from rooflab.paths import CSRC, cache_dir

SHLIB_SUFFIX = ".dylib" if platform.system() == "Darwin" else ".so"


@dataclass(frozen=True)
class Compiler:
    path: str
    kind: str  # "gcc", "clang" or "cc" (unknown family)
    version: str
    target: str  # e.g. x86_64-linux-gnu, aarch64-linux-gnu
    arch: str  # x86_64, aarch64, ...
    extra: tuple[str, ...] = ()  # arguments that come with it (CC="gcc -m32")

    @property
    def argv(self) -> list[str]:
        """How to run it: the program and its own arguments."""
        return [self.path, *self.extra]

    @property
    def identity(self) -> str:
        return f"{self.path}|{' '.join(self.extra)}|{self.version}|{self.target}"

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
                "arch": self.arch, "extra": list(self.extra)}


def _normalize_arch(target: str) -> str:
    head = target.split("-")[0]
    return {"arm64": "aarch64", "amd64": "x86_64"}.get(head, head)


@functools.lru_cache(maxsize=16)
def probe_compiler(path: str, extra: tuple[str, ...] = ()) -> Compiler:
    """Ask a compiler who it is (``--version``, ``-dumpmachine``, with the arguments it comes with)."""
    try:
        ver = subprocess.run([path, *extra, "--version"], capture_output=True, text=True, errors="replace", timeout=30)
        tgt = subprocess.run([path, *extra, "-dumpmachine"], capture_output=True, text=True, errors="replace",
                             timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise CompilerNotFound(f"the C compiler {path!r} could not be run: {exc}") from exc
    if ver.returncode != 0:
        raise CompilerNotFound(f"the C compiler {path!r} failed to report its version: {ver.stderr.strip()}")
    first = (ver.stdout.strip().splitlines() or ["unknown"])[0]
    low = ver.stdout.lower()
    kind = "clang" if "clang" in low else ("gcc" if ("gcc" in low or "free software foundation" in low) else "cc")
    target = tgt.stdout.strip() if tgt.returncode == 0 and tgt.stdout.strip() else platform.machine()
    arch = _normalize_arch(target)
    if arch == "x86_64" and "-m32" in extra:  # gcc -m32 still reports the 64-bit triple
        arch = "i386"
    return Compiler(path=path, kind=kind, version=first, target=target, arch=arch, extra=tuple(extra))


def find_compiler(env: dict | None = None) -> Compiler:
    """``$CC`` if set, else the first of cc, gcc, clang on PATH."""
    env = os.environ if env is None else env
    cands = [env["CC"]] if env.get("CC") else ["cc", "gcc", "clang"]
    for c in cands:
        try:
            parts = shlex.split(c)
        except ValueError as exc:
            raise CompilerNotFound(f"CC={c!r} cannot be read as a command: {exc}") from None
        if not parts:
            continue
        exe = shutil.which(parts[0], path=env.get("PATH"))
        if exe:
            return probe_compiler(exe, tuple(parts[1:]))
    if env.get("CC"):
        raise CompilerNotFound(f"CC={env['CC']!r} was not found on PATH; set CC to a working C compiler")
    raise CompilerNotFound("no C compiler found (tried cc, gcc, clang); install one (e.g. apt-get install gcc, "
                           "xcode-select --install) or set CC")


def preprocess(source: Path, flags: Sequence[str] = ()) -> str | None:
    """``source`` as the C preprocessor reads it with the kernel's own ``-D``/``-U``/``-I`` flags (its macros and
    conditionals resolved: ``#ifdef SP`` / ``#define REAL float``); None where no compiler runs or it fails."""
    keep = [f for f in flags if len(f) > 2 and f.startswith(("-D", "-U", "-I"))]
    try:
        cc = find_compiler()
        r = subprocess.run([cc.path, *cc.extra, "-E", "-P", "-std=gnu11", f"-I{source.parent}", *keep, str(source)],
                           capture_output=True, text=True, errors="replace", timeout=30)
    except (CompilerNotFound, OSError, subprocess.TimeoutExpired):
        return None
    return r.stdout if r.returncode == 0 and r.stdout.strip() else None


# ---------------------------------------------------------------------------------------------- flag profiles

PROFILES = ("portable", "native", "bare")


def profile_flags(profile: str, compiler: Compiler) -> list[str]:
    """Flags of a named profile: ``portable`` runs on any CPU of the architecture; ``native`` uses all of this one;
    ``bare`` leaves optimization and target to the caller (the vectorize lab's flag matrix)."""
    if profile == "bare":  # only what a shared library needs: the caller chooses optimization and target flags
        return ["-std=gnu11", "-fPIC"]
    # the compiler's own aliasing rules at -O3 (strict): what a kernel's author gets from `cc -O3`, under which a
    # double stored cannot change a row pointer or an int index, so loops through them vectorize; and a function of
    # the source calling another inlines it as in the author's program: a shared library's default lets the loader
    # replace any exported function, so gcc calls each through the PLT and inlines none (XSBench's lookup, whose
    # helpers took 83% of its time as calls)
    base = ["-O3", "-std=gnu11", "-fPIC", *not_interposable(compiler)]
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

@functools.lru_cache(maxsize=16)
def not_interposable(compiler: Compiler) -> tuple[str, ...]:
    """``-fno-semantic-interposition`` where the compiler takes it (gcc 5 and later, clang 11 and later): the
    functions of a shared library then call and inline each other as those of a program do."""
    flag = "-fno-semantic-interposition"
    return (flag,) if _builds(compiler, "int rl_flag_probe(int x) { return x + 1; }\n", ["-Werror", flag]) else ()


@functools.lru_cache(maxsize=16)
def bound_locally(compiler: Compiler) -> tuple[str, ...]:
    """``-Wl,-Bsymbolic`` where the linker takes it (ELF): the library's calls to its own functions go to them, not to
    a function of the same name an earlier library exports. rooflab's timing wrapper calls the kernel from another
    file of the library, and the loader would otherwise resolve that call in the global scope first: a kernel named
    ``advance`` (the Benchmarks Game's n-body step) was glibc's ``advance`` (regexp.h's), which crashed on its
    arguments."""
    flag = "-Wl,-Bsymbolic"
    return (flag,) if _builds(compiler, "int rl_flag_probe(int x) { return x + 1; }\n", [flag]) else ()


def _builds(compiler: Compiler, source: str, flags: list[str]) -> bool:
    """Whether the compiler builds ``source`` into a shared library with ``flags`` (a probe of what it takes)."""
    with tempfile.TemporaryDirectory(prefix="rooflab-probe-") as d:
        src, out = Path(d) / "probe.c", Path(d) / f"probe{SHLIB_SUFFIX}"
        src.write_text(source)
        try:
            r = subprocess.run([*compiler.argv, "-shared", "-fPIC", *flags, str(src), "-o", str(out)],
                               capture_output=True, text=True, errors="replace", timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            return False
        return r.returncode == 0 and out.exists()


_OMP_CANDIDATES = (["-fopenmp"], ["-Xpreprocessor", "-fopenmp", "-lomp"], ["-fopenmp=libomp"])


@functools.lru_cache(maxsize=16)
def openmp_flags(compiler: Compiler) -> tuple[str, ...] | None:
    """The flags that give this compiler working OpenMP, or None when it has none (detected, not assumed)."""
    return next((tuple(cand) for cand in _OMP_CANDIDATES if _builds(compiler, _OMP_TEST, cand)), None)


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


def _sha(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def cache_key(sources: Iterable[Path], headers: Iterable[Path], flags: Sequence[str], compiler: Compiler) -> str:
    """What a build depends on before the compiler says which files it includes: compiler, machine, flags, and
    the sources (``headers``: further files known in advance)."""
    h = hashlib.sha256()
    h.update(b"rooflab-build-2\0")
    h.update(compiler.identity.encode("utf-8", "surrogateescape") + b"\0")
    h.update(platform.machine().encode("utf-8", "surrogateescape") + b"\0")
    h.update("\0".join(flags).encode("utf-8", "surrogateescape") + b"\0")
    if any(f in ("-march=native", "-mcpu=native", "-mtune=native") for f in flags):
        h.update(_cpu_identity().encode("utf-8", "surrogateescape") + b"\0")
    for p in sorted(set(Path(s) for s in sources), key=str):
        h.update(b"src:" + os.fsencode(p) + b"\0" + p.read_bytes() + b"\0")
    for p in sorted(set(Path(s) for s in headers), key=str):
        h.update(b"hdr:" + os.fsencode(p.name) + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def parse_depfile(text: str) -> list[str]:
    """The prerequisites of a make-style depfile (``-MD``): continuation lines joined, escaped spaces kept."""
    text = text.replace("\\\n", " ")
    out = []
    for rule in text.splitlines():
        if ":" not in rule:
            continue
        head, _, deps = rule.partition(": ")
        if not deps and rule.rstrip().endswith(":"):
            continue  # a phony target of -MP
        tok, esc = [], False
        for ch in deps + " ":
            if esc:
                tok.append(ch)
                esc = False
            elif ch == "\\":
                esc = True
            elif ch.isspace():
                if tok:
                    out.append("".join(tok))
                    tok = []
            else:
                tok.append(ch)
    return out


def deps_key(base: str, deps: dict[str, str]) -> str:
    """The final key of a build: its base key and the contents of every file it read."""
    h = hashlib.sha256(base.encode("utf-8", "surrogateescape"))
    for path, digest in sorted(deps.items()):
        h.update(f"\0{path}\0{digest}".encode("utf-8", "surrogateescape"))
    return h.hexdigest()


def private_dir(path: Path) -> Path:
    """Create ``path`` (and its parents) readable and writable by this user only, and refuse one that another user
    owns or that others may write: a library loaded from it runs as this user."""
    missing = [p for p in [*reversed(path.parents), path] if not p.exists()]
    for p in missing:
        try:
            p.mkdir(mode=0o700)
        except FileExistsError:  # another process made it meanwhile
            pass
        except OSError as exc:
            raise CompileError(str(path), [], f"{p}:0:0: error: cannot create the build cache: {exc.strerror}") from None
    try:
        st = path.stat()
    except OSError as exc:
        raise CompileError(str(path), [], f"{path}:0:0: error: cannot use the build cache: {exc.strerror}") from None
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        raise CompileError(str(path), [], f"{path}:0:0: error: the build cache belongs to another user (uid "
                                          f"{st.st_uid}); set ROOFLAB_HOME to a directory of your own")
    if st.st_mode & 0o022:
        try:
            os.chmod(path, st.st_mode & ~0o077)
        except OSError:
            raise CompileError(str(path), [], f"{path}:0:0: error: the build cache can be written by others and its "
                                              "mode cannot be changed; set ROOFLAB_HOME") from None
    return path


def _read_manifest(path: Path) -> list[dict]:
    try:
        data = json.loads(path.read_text())
        return [e for e in data if isinstance(e, dict) and isinstance(e.get("deps"), dict)]
    except (OSError, ValueError):
        return []


def _write_atomic(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)


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
            raise CompileError(str(srcs[0]), compiler.argv, "the compiler has no working OpenMP (-fopenmp failed)")
        all_flags += list(omp)
    elif calls_openmp_runtime(srcs):
        # built without OpenMP (a kernel not declared OpenMP, or an experiment's one-thread build of one), its
        # pragmas ignored, but calling the runtime (omp_get_thread_num, omp_get_wtime): the runtime is linked, and
        # outside a parallel region it answers as one thread does
        omp = openmp_flags(compiler)
        libs = [*libs, *(omp or ())]
    if not executable:
        libs = [*libs, *bound_locally(compiler)]
    for k, v in sorted((defines or {}).items()):
        all_flags.append(f"-D{k}" if v is None else f"-D{k}={v}")
    all_flags += [f"-I{d}" for d in incs]
    base = cache_key(srcs, [], all_flags + list(libs) + (["<exe>"] if executable else []), compiler)
    root = private_dir(Path(cache) if cache else cache_dir() / "build")
    fname = name if executable else f"lib{name}{SHLIB_SUFFIX}"
    manifest = private_dir(root / "manifests") / f"{base}.json"
    # a build of these sources and flags whose every included file is unchanged, and whose binary is the one built
    for entry in _read_manifest(manifest):
        if all(_sha(Path(p)) == d for p, d in entry["deps"].items()):
            key = deps_key(base, entry["deps"])
            final = root / key[:2] / key / fname
            meta = _read_meta(final.parent)
            if final.exists() and meta.get("sha256") and _sha(final) == meta["sha256"]:
                return Library(final, tuple(map(str, srcs)), tuple(all_flags), compiler, key, cached=True)
    work = private_dir(root / "tmp")
    depdir = tempfile.mkdtemp(prefix=".build-", dir=work)
    tmp = os.path.join(depdir, fname + ".tmp")
    try:
        # each source to an object with its own depfile (-MD beside one -o for several sources writes one file
        # over the other), then one link
        objs, deps_listed, warnings = [], [], []
        for i, src in enumerate(srcs):
            obj = os.path.join(depdir, f"{i}.o")
            cmd = [*compiler.argv, *all_flags, "-c", str(src), "-o", obj, "-MD", "-MF", obj[:-2] + ".d"]
            r = _run_compiler(cmd, src)
            warnings.append(r.stderr)
            objs.append(obj)
            deps_listed += parse_depfile(Path(obj[:-2] + ".d").read_text(errors="replace"))
        cmd = [*compiler.argv, *([] if executable else ["-shared"]), *all_flags, *objs, "-o", tmp, "-lm", *libs]
        r = _run_compiler(cmd, srcs[0])
        warnings.append(r.stderr)
        deps = {str(Path(p).resolve()): _sha(Path(p).resolve()) for p in set(deps_listed) if not p.endswith(".o")}
        deps.update({str(s_): _sha(s_) for s_ in srcs})
        deps = {p: d for p, d in deps.items() if d is not None}
        key = deps_key(base, deps)
        outdir = private_dir(root / key[:2] / key)
        final = outdir / fname
        meta = {"command": cmd, "compiler": compiler.to_dict(), "warnings": "".join(warnings), "deps": sorted(deps),
                "sha256": _sha(Path(tmp))}
        _write_atomic(outdir / "meta.json", json.dumps(meta))
        os.chmod(tmp, 0o700)
        os.replace(tmp, final)  # atomic publication: readers see either nothing or the whole library
        entries = [e for e in _read_manifest(manifest) if e["deps"] != deps] + [{"deps": deps}]
        _write_atomic(manifest, json.dumps(entries[-16:]))
    finally:
        shutil.rmtree(depdir, ignore_errors=True)
    return Library(final, tuple(map(str, srcs)), tuple(all_flags), compiler, key, cached=False)


# the OpenMP API's functions (omp_get_thread_num, omp_get_wtime, omp_set_num_threads, omp_in_parallel, omp_init_lock,
# omp_alloc ...), not a user's function whose name merely starts with omp_
_OMP_CALL = re.compile(rb"\bomp_(?:get|set|in|init|destroy|test|unset|is|pause|display|capture|target|alloc|aligned|"
                       rb"calloc|realloc|free|fulfill|control)(?:_\w+)?\s*\(")


def calls_openmp_runtime(sources: Sequence[Path]) -> bool:
    """Whether a source calls a function of the OpenMP runtime (``omp_...(``), which a build without OpenMP must
    still link."""
    for s in sources:
        try:
            if _OMP_CALL.search(s.read_bytes()):
                return True
        except OSError:
            continue
    return False


def _run_compiler(cmd: list[str], src: Path) -> subprocess.CompletedProcess:
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=300)
    except subprocess.TimeoutExpired:
        raise CompileError(str(src), cmd, "the compiler did not finish within 300 s") from None
    except OSError as exc:
        raise CompileError(str(src), cmd, f"the compiler could not be run: {exc}") from None
    if r.returncode != 0:
        raise CompileError(str(src), cmd, r.stderr + r.stdout)
    return r


def _read_meta(d: Path) -> dict:
    try:
        return json.loads((d / "meta.json").read_text())
    except (OSError, ValueError):
        return {}


def build_kernel(stem: str, *, name: str | None = None, **kw) -> Library:
    """Build one of rooflab's own C files (``csrc/<stem>.c``)."""
    return build([CSRC / f"{stem}.c"], name=name or stem, **kw)
