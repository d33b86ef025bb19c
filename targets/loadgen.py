"""A bounded competing load for the under-load checks (targets/under_load.py and the test suite's
tests/integration/test_under_load.py): a process that keeps one CPU busy, or one CPU and the memory system, while
a block runs. It is killed when the block ends, and ends by itself after ``seconds`` whatever happens."""

from __future__ import annotations

import os
import subprocess
import sys
import time


def cpu_hog(seconds: float) -> str:
    return f"import time\nend = time.time() + {seconds}\nwhile time.time() < end: pass\n"


def memory_hog(seconds: float) -> str:
    # two 256 MiB arrays: far past any last-level cache, so every copy goes to DRAM
    return ("import time, numpy as np\na = np.ones(32 << 20); b = np.empty_like(a)\n"
            f"end = time.time() + {seconds}\nwhile time.time() < end: np.copyto(b, a)\n")


def bursts(seconds: float, seed: int = 1) -> str:
    """Load as people's machines have it: a burst of a fraction of a second (0.1-0.5 s) every second or so (0.4-1.5 s
    apart), each on a CPU drawn at random, two in five of them streaming memory, the rest spinning on the core."""
    return ("import os, random, time\nimport numpy as np\n"
            f"rng = random.Random({seed}); cpus = sorted(os.sched_getaffinity(0))\n"
            "a = np.ones(8 << 20); b = np.empty_like(a)\n"
            f"end = time.time() + {seconds}\n"
            "while time.time() < end:\n"
            "    time.sleep(rng.uniform(0.4, 1.5))\n"
            "    os.sched_setaffinity(0, {rng.choice(cpus)})\n"
            "    stop, memory = time.time() + rng.uniform(0.1, 0.5), rng.random() < 0.4\n"
            "    while time.time() < stop:\n"
            "        if memory:\n"
            "            np.copyto(b, a)\n")


class Hog:
    """``with Hog(code, cpu):`` runs ``code`` in its own interpreter pinned to ``cpu`` (anywhere when None) for the
    block."""

    def __init__(self, code: str, cpu: int | None):
        self.code, self.cpu = code, cpu

    def __enter__(self):
        pin = (lambda: os.sched_setaffinity(0, {self.cpu})) if self.cpu is not None else None
        self.p = subprocess.Popen([sys.executable, "-c", self.code], preexec_fn=pin)
        time.sleep(0.5)  # let it start before measuring
        if self.p.poll() is not None:
            raise RuntimeError("the hog did not start")
        return self

    def __exit__(self, *exc):
        self.p.kill()
        self.p.wait(timeout=10)
