"""The environment record: OS, Python, NumPy and its BLAS, thread settings, governor, ASLR, load, git state,
and what this machine can do (compiler, OpenMP, perf counters, valgrind, numactl)."""

from __future__ import annotations

import math
import os
import platform
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import numpy
from threadpoolctl import threadpool_info

from rooflab.errors import CompilerNotFound
from rooflab.i18n import msg
from rooflab.toolchain.compiler import find_compiler, openmp_flags

THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
               "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS", "OMP_PROC_BIND", "OMP_PLACES",
               "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "GOMP_CPU_AFFINITY")


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity, and no more than its cgroup's CPU quota allows), which is
    what "all threads" means."""
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:  # macOS
        n = os.cpu_count() or 1
    quota = cgroup_cpu_limit()
    return max(1, min(n, math.ceil(quota))) if quota else n


def tlb_entries(cpuinfo: str = "/proc/cpuinfo") -> int | None:
    """The entries of the core's last-level data TLB for 4 KiB pages where the OS says (AMD's "TLB size: 3584 4K
    pages" in /proc/cpuinfo); None elsewhere."""
    m = re.search(r"^TLB size\s*:\s*(\d+)\s*4K pages", _read(cpuinfo) or "", re.M)
    return int(m.group(1)) if m else None


def _cgroup_dirs(root: str = "/sys/fs/cgroup", proc: str = "/proc/self/cgroup") -> list[Path]:
    """This process's cgroup directories (v2 unified, and the v1 controllers), most specific first."""
    out = []
    text = _read(proc) or ""
    for line in text.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, rel = parts
        rel = rel.lstrip("/")
        if controllers == "":
            out.append(Path(root) / rel)
        for c in controllers.split(","):
            if c in ("memory", "cpu", "cpu,cpuacct"):
                out.append(Path(root) / c / rel)
    out += [Path(root), Path(root) / "memory", Path(root) / "cpu"]
    return out


def cgroup_memory_left(root: str = "/sys/fs/cgroup", proc: str = "/proc/self/cgroup") -> int | None:
    """Bytes this process's cgroup still allows (limit minus use), or None when it sets no limit."""
    for d in _cgroup_dirs(root, proc):
        for lim_f, use_f in (("memory.max", "memory.current"), ("memory.limit_in_bytes", "memory.usage_in_bytes")):
            lim, use = _read(str(d / lim_f)), _read(str(d / use_f))
            if lim is None or lim == "max":
                continue
            try:
                limit, used = int(lim), int(use or 0)
            except ValueError:
                continue
            if limit >= 1 << 60:  # v1's "no limit"
                continue
            return max(0, limit - used)
    return None


def cgroup_cpu_limit(root: str = "/sys/fs/cgroup", proc: str = "/proc/self/cgroup") -> float | None:
    """CPUs this process's cgroup allows (quota / period), or None when it sets no quota."""
    for d in _cgroup_dirs(root, proc):
        v2 = _read(str(d / "cpu.max"))
        if v2:
            q, _, per = v2.partition(" ")
            if q != "max":
                try:
                    return int(q) / int(per or 100000)
                except ValueError:
                    pass
            continue
        q, per = _read(str(d / "cpu.cfs_quota_us")), _read(str(d / "cpu.cfs_period_us"))
        if q and per:
            try:
                if int(q) > 0:
                    return int(q) / int(per)
            except ValueError:
                pass
    return None


def _read(path: str) -> str | None:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return None


def blas_info() -> list[dict]:
    """The BLAS/OpenMP libraries loaded by NumPy, their versions, architectures and thread counts."""
    keep = ("user_api", "internal_api", "prefix", "version", "num_threads", "architecture", "threading_layer",
            "filepath")
    return [{k: d.get(k) for k in keep if k in d} for d in threadpool_info()]


def _git(args: list[str], cwd, overrides: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    """git with nothing of the work tree's configuration that runs a program: no fsmonitor hook, no untracked
    cache, no clean/smudge filters (their names are read from the configuration, which runs nothing), and no
    lock taken on the index."""
    cmd = ["git", "-c", "core.fsmonitor=false", "-c", "core.untrackedCache=false", *overrides, *args]
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0"}
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, errors="replace", timeout=10, env=env,
                          stdin=subprocess.DEVNULL)


def git_state(cwd: str | Path | None = None) -> dict | None:
    """Revision and dirty state of the work tree the command runs in (None outside a git work tree), read without
    running anything the work tree configures."""
    if not shutil.which("git"):
        return None
    try:
        rev = _git(["rev-parse", "HEAD"], cwd)
        if rev.returncode != 0:
            return None
        filters = _git(["config", "--get-regexp", r"^filter\..*\.(clean|smudge|process)$"], cwd)
        overrides: list[str] = []
        for line in filters.stdout.splitlines():
            key = line.split(None, 1)[0] if line.strip() else ""
            if key:
                overrides += ["-c", f"{key}="]
        st = _git(["status", "--porcelain", "--untracked-files=no", "--no-renames"], cwd, tuple(overrides))
        top = _git(["rev-parse", "--show-toplevel"], cwd)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return {"revision": rev.stdout.strip(), "dirty": bool(st.stdout.strip()) if st.returncode == 0 else None,
            "root": top.stdout.strip()}


def loadavg() -> tuple[float, float, float] | None:
    try:
        return os.getloadavg()
    except OSError:
        return None


def environment(cwd: str | Path | None = None) -> dict:
    return {
        "hostname": socket.gethostname(),
        "os": f"{platform.system()} {platform.release()}",
        "platform": platform.platform(),
        "python": sys.version.split()[0],
        "python_executable": sys.executable,
        "numpy": numpy.__version__,
        "blas": blas_info(),
        "thread_env": {k: os.environ[k] for k in THREAD_VARS if k in os.environ},
        "governor": _read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
        "aslr": _read("/proc/sys/kernel/randomize_va_space"),
        "loadavg": loadavg(),
        "affinity": sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "git": git_state(cwd),
        "argv": list(sys.argv),
    }


def perf_probe() -> dict:
    """Whether ``perf stat`` can count hardware events here (many VMs expose only software events)."""
    perf = shutil.which("perf")
    if not perf:
        return {"available": False, "hardware": False, "software": False, "reason": msg("perf is not installed")}
    try:
        r = subprocess.run([perf, "stat", "-x,", "-e", "instructions,cycles,task-clock", "true"],
                           capture_output=True, text=True, errors="replace", timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return {"available": False, "hardware": False, "software": False, "reason": str(exc)}
    return parse_perf_probe(r.returncode, r.stderr)


def parse_perf_probe(returncode: int, stderr: str) -> dict:
    """Read ``perf stat -x, -e instructions,cycles,task-clock true`` output."""
    hw = sw = False
    for line in stderr.splitlines():
        parts = line.split(",")
        if len(parts) < 3:
            continue
        value, event = parts[0], parts[2]
        ok = value not in ("<not supported>", "<not counted>", "")
        if event.startswith(("instructions", "cycles")) and ok:
            hw = True
        if event.startswith("task-clock") and ok:
            sw = True
    reason = None
    if not hw:
        reason = (msg("hardware counters are not exposed here (a VM or perf_event_paranoid); software events only")
                  if sw else msg("perf stat failed: {why}",
                                 why=stderr.strip().splitlines()[-1] if stderr.strip() else returncode))
    return {"available": sw or hw, "hardware": hw, "software": sw, "reason": reason}


def capabilities() -> dict:
    caps: dict = {}
    try:
        cc = find_compiler()
        caps["compiler"] = cc.to_dict()
        omp = openmp_flags(cc)
        caps["openmp"] = {"available": omp is not None, "flags": list(omp) if omp else None}
    except CompilerNotFound as exc:
        caps["compiler"] = None
        caps["compiler_error"] = str(exc)
        caps["openmp"] = {"available": False, "flags": None}
    caps["perf"] = perf_probe()
    caps["valgrind"] = {"available": shutil.which("valgrind") is not None, "path": shutil.which("valgrind")}
    caps["numactl"] = {"available": shutil.which("numactl") is not None, "path": shutil.which("numactl")}
    caps["objdump"] = {"available": any(shutil.which(n) for n in ("objdump", "llvm-objdump"))}
    return caps
