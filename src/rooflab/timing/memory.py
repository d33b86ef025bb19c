"""Memory for kernels: aligned, skewed and (where the kernel allows) huge-page-backed NumPy arrays."""

from __future__ import annotations

import mmap
import re
import resource

import numpy as np

HUGE = 2 << 20
HUGE_FROM = 256 << 10


def _huge_backed(nbytes: int, skew: int) -> np.ndarray:
    """Bytes that start ``skew`` bytes into a 2 MiB-aligned region advised for transparent huge pages.

    With 4 KiB pages a physically indexed cache sees a working set scattered over random page frames, which
    collide in its sets: an L2 of 1 MiB then seems to end near half of that. A huge page keeps the first 2 MiB of
    the array physically contiguous, so the sweep measures the cache, not the page allocator.
    """
    # private: a shared anonymous mapping is shmem, which transparent huge pages skip unless shmem_enabled says
    # otherwise (it rarely does)
    mm = mmap.mmap(-1, nbytes + 2 * HUGE + skew, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    base = np.frombuffer(mm, np.uint8)
    off = (-base.ctypes.data) % HUGE
    if hasattr(mm, "madvise") and hasattr(mmap, "MADV_HUGEPAGE"):
        try:
            mm.madvise(mmap.MADV_HUGEPAGE)
        except OSError:  # THP off: ordinary pages, nothing else changes
            pass
    return base[off + skew: off + skew + nbytes]


def _small_backed(nbytes: int, skew: int) -> np.ndarray:
    """Bytes that start ``skew`` bytes past a page boundary of a region advised never to use transparent huge
    pages: 4 KiB pages, as a C program's malloc gets them where huge pages are given on request only."""
    mm = mmap.mmap(-1, nbytes + 4096 + skew, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    if hasattr(mm, "madvise") and hasattr(mmap, "MADV_NOHUGEPAGE"):
        try:
            mm.madvise(mmap.MADV_NOHUGEPAGE)
        except OSError:  # without THP they are 4 KiB pages anyway
            pass
    base = np.frombuffer(mm, np.uint8)
    return base[skew: skew + nbytes]


def thp_mode() -> str | None:
    """The kernel's transparent huge page mode (always, madvise or never), or None where it does not say."""
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
            text = f.read()
    except OSError:
        return None

    m = re.search(r"\[(\w+)\]", text)
    return m.group(1) if m else None


def aligned_array(n: int, dtype, fill: float | None = None, align: int = 64, skew: int | None = None,
                  huge: bool = True) -> np.ndarray:
    """A 1-D array whose data starts ``skew`` bytes past a 4 KiB boundary (None: at an ``align``-byte boundary).

    Large allocations come page-aligned, so arrays used together would sit at the same offset in their pages and
    every load would alias the store of the same element in the other array (4K aliasing), slowing copy and triad
    in L1. Give each array of a kernel a different skew (a multiple of the line size) to keep them apart. Arrays of
    256 KiB and more start in a transparent huge page where the kernel allows it; with ``huge`` False they are on
    4 KiB pages (as a C program's malloc gets them where huge pages are given on request only).
    """
    dt = np.dtype(dtype)
    nbytes = n * dt.itemsize
    if nbytes >= HUGE_FROM:
        a = (_huge_backed(nbytes, skew or 0) if huge else _small_backed(nbytes, skew or 0)).view(dt)
    else:
        raw = np.empty(nbytes + align + (skew or 0) + 4096, np.uint8)
        off = (-raw.ctypes.data) % 4096 + skew if skew is not None else (-raw.ctypes.data) % align
        a = raw[off:off + nbytes].view(dt)
    if fill is not None:
        a.fill(fill)
    return a


def address_space_left() -> int | None:
    """Bytes a process like this one may still map under RLIMIT_AS (``ulimit -v``), or None without a limit. The
    worker that runs the kernel starts with about this process's own mappings (Python, NumPy, BLAS)."""
    try:
        limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    except (OSError, ValueError):
        return None
    if limit == resource.RLIM_INFINITY or limit <= 0:
        return None
    used = 0
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    used = int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return max(0, limit - used)
