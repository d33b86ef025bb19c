"""The vectorize lab: one kernel (the ikj GEMM) under a matrix of compiler flags, with the compiler's own
vectorization report and the vector width read from the compiled loop; then the separate contributions of the
memory layout (loop order), the compiler and threads."""

from __future__ import annotations

import re
import subprocess

from rooflab.toolchain.asm import audit_function
from rooflab.toolchain.compiler import Compiler, build_kernel, find_compiler, openmp_flags
from rooflab.errors import RooflabError
from rooflab.machine.env import usable_cpus
from rooflab.paths import CSRC
from rooflab.results.schema import schema_id
from rooflab.session import Session
from rooflab.timing.harness import HarnessConfig
from rooflab.kernels.gemmrun import measure_gemm


def flag_matrix(cc: Compiler) -> list[tuple[str, list[str]]]:
    novec = ["-fno-vectorize", "-fno-slp-vectorize"] if cc.kind == "clang" else ["-fno-tree-vectorize"]
    native = "-mcpu=native" if cc.arch == "aarch64" else "-march=native"
    return [
        ("-O2", ["-O2"]),
        ("-O3 vectorizer off", ["-O3", *novec]),
        ("-O3", ["-O3"]),
        (f"-O3 {native}", ["-O3", native]),
        (f"-O3 {native} -ffast-math", ["-O3", native, "-ffast-math"]),
    ]


def report_flags(cc: Compiler) -> list[str]:
    return ["-Rpass=loop-vectorize", "-Rpass-missed=loop-vectorize"] if cc.kind == "clang" else \
        ["-fopt-info-vec-optimized", "-fopt-info-vec-missed"]


def vectorization_report(cc: Compiler, flags: list[str], function_lines: tuple[int, int]) -> list[str]:
    """The compiler's messages about loops inside the timed kernel's source lines."""
    cmd = [*cc.argv, "-c", "-o", "/dev/null", f"-I{CSRC}", *flags, *report_flags(cc), str(CSRC / "loops.c")]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return [f"(no report: {exc})"]
    done, missed = [], []
    lo, hi = function_lines
    for line in (r.stderr + r.stdout).splitlines():
        m = re.match(r".*loops\.c:(\d+):\d+: (optimized|missed|remark): (.*)", line)
        if m and lo <= int(m.group(1)) <= hi:
            text = m.group(3).strip()
            if "clobbers memory" in text or text in done or text in missed:
                continue
            (done if m.group(2) == "optimized" or "vectorized loop" in text else missed).append(text)
    return (done + missed)[:6]  # what was vectorized first, then why the rest was not


def _kernel_lines(order: str = "ikj") -> tuple[int, int]:
    """The source line that expands a loop order (the compilers report the expanded loops there)."""
    lines = (CSRC / "loops.c").read_text().splitlines()
    at = next(i for i, ln in enumerate(lines, 1) if ln.startswith(f"LOOP_ORDER({order},"))
    return at, at


def run(session: Session, *, n: int | None = None, quick: bool = False, threads: int | None = None) -> dict:
    cc = find_compiler()
    n = n or (256 if quick else 512)
    tall = threads or usable_cpus()
    cfg = (HarnessConfig(min_sample_s=0.01, samples=5, warmup=1, min_samples=3, budget_s=0.5) if quick else
           HarnessConfig(min_sample_s=0.02, samples=7, warmup=1, min_samples=3, budget_s=2.0))
    lines = _kernel_lines()
    rows = []
    native_lib = None
    for label, flags in flag_matrix(cc):
        session.progress(f"vectorize: {label}")
        try:
            lib = build_kernel("loops", name="loops_flags", profile="bare", flags=flags, compiler=cc)
        except RooflabError as exc:
            rows.append({"name": label, "flags": flags, "error": str(exc), "flops_per_s": None})
            continue
        if label.startswith("-O3 -m") and "fast" not in label:
            native_lib = lib
        try:
            a = audit_function(lib.path, "gemm_ikj")
            audit = a.to_dict() if a else None
        except RooflabError:
            audit = None
        rows.append(measure_gemm(session, f"ikj {label}", str(lib.path), "rl_loop_ikj", (n, n, n), cfg,
                                 flags=flags, label=label, audit=audit,
                                 vector_bits=(audit or {}).get("vector_bits"),
                                 report=vectorization_report(cc, flags, lines)))
    contrib = []
    if native_lib is not None:
        layout = measure_gemm(session, "ijk -O3 native", str(native_lib.path),
                              "rl_loop_ijk", (n, n, n), cfg, role="layout")
        contrib.append(layout)
        omp = openmp_flags(cc) is not None
        mt = build_kernel("loops", name="loops_mt", openmp=omp, compiler=cc)
        if tall > 1:
            contrib.append(measure_gemm(session, f"ikj -O3 native x{tall}", str(mt.path), "rl_loop_ikj_mt",
                                        (n, n, n), cfg, (("int", tall),), role="threads", threads=tall,
                                        backend="openmp" if omp else "pthreads"))
    doc = {"schema": schema_id("lab.vectorize"), "lab": "vectorize", "quick": quick, "n": n, "threads_all": tall,
           "compiler": cc.to_dict(), "kernel": "ikj GEMM (fp32)", "flags": rows, "contributions": contrib}
    from rooflab.interpret.observations import vectorize_observations

    return session.finish(doc, observe=vectorize_observations)
