"""The vectorize lab: one kernel (the ikj GEMM) under a matrix of compiler flags, with the compiler's own
vectorization report and the vector width read from the compiled loop; then the separate contributions of the
memory layout (loop order), the compiler and threads."""

from __future__ import annotations

from dataclasses import dataclass

from rooflab.contract import Column, Lab, Report, Table, n_option, quick_option, threads_option
from rooflab.documents import common as documents
from rooflab.documents.common import read
from rooflab.documents.labs import Contribution
from rooflab.errors import RooflabError
from rooflab.i18n import msg, tr
from rooflab.interpret.common import disturbed_rows, load_caveat, ok_rows
from rooflab.kernels.gemmrun import measure_gemm
from rooflab.machine.env import usable_cpus
from rooflab.paths import CSRC
from rooflab.session import Session
from rooflab.timing.harness import HarnessConfig
from rooflab.toolchain.asm import audit_function
from rooflab.toolchain.compiler import Compiler, build_kernel, find_compiler, openmp_flags
from rooflab.toolchain.remarks import compiler_remarks
from rooflab.units import si


@dataclass(frozen=True)
class Options:
    n: int | None = n_option("default 512; --quick: 256")
    quick: bool = quick_option()
    threads: int | None = threads_option()


def flag_matrix(cc: Compiler) -> list[tuple[str, str, list[str]]]:
    """(id, label, flags) of each build: the id is what the observations read, the label what people read."""
    novec = ["-fno-vectorize", "-fno-slp-vectorize"] if cc.kind == "clang" else ["-fno-tree-vectorize"]
    native = "-mcpu=native" if cc.arch == "aarch64" else "-march=native"
    return [
        ("O2", "-O2", ["-O2"]),
        ("O3_novec", "-O3 vectorizer off", ["-O3", *novec]),
        ("O3", "-O3", ["-O3"]),
        ("O3_native", f"-O3 {native}", ["-O3", native]),
        ("O3_native_fastmath", f"-O3 {native} -ffast-math", ["-O3", native, "-ffast-math"]),
    ]


def _kernel_lines(order: str = "ikj") -> tuple[int, int]:
    """The source line that expands a loop order (the compilers report the expanded loops there)."""
    lines = (CSRC / "loops.c").read_text().splitlines()
    at = next(i for i, ln in enumerate(lines, 1) if ln.startswith(f"LOOP_ORDER({order},"))
    return at, at


def vectorization_report(cc: Compiler, flags: list[str]) -> list[str]:
    """The compiler's messages about the ikj loop's vectorization (the line its loop order expands on)."""
    return [r.text for r in compiler_remarks(cc, CSRC / "loops.c", flags, lines=_kernel_lines(), limit=6)]


def run(session: Session, opts: Options) -> dict:
    quick = opts.quick
    cc = find_compiler()
    n = opts.n or (256 if quick else 512)
    threads_all = opts.threads or usable_cpus()
    cfg = (HarnessConfig(min_sample_s=0.01, samples=5, warmup=1, min_samples=3, budget_s=0.5) if quick else
           HarnessConfig(min_sample_s=0.02, samples=7, warmup=1, min_samples=3, budget_s=2.0))
    rows = []
    native_lib = None
    for fid, label, flags in flag_matrix(cc):
        session.progress(f"vectorize: {label}")
        try:
            lib = build_kernel("loops", name="loops_flags", profile="bare", flags=flags, compiler=cc)
        except RooflabError as exc:
            rows.append({"name": label, "id": fid, "flags": flags, "error": str(exc), "flops_per_s": None})
            continue
        if fid == "O3_native":
            native_lib = lib
        try:
            a = audit_function(lib.path, "gemm_ikj")
            audit = a.to_dict() if a else None
        except RooflabError:
            audit = None
        rows.append(measure_gemm(session, f"ikj {label}", str(lib.path), "rl_loop_ikj", (n, n, n), cfg,
                                 flags=flags, label=label, id=fid, audit=audit,
                                 vector_bits=(audit or {}).get("vector_bits"),
                                 report=vectorization_report(cc, flags)))
    contrib = []
    if native_lib is not None:
        layout = measure_gemm(session, "ijk -O3 native", str(native_lib.path),
                              "rl_loop_ijk", (n, n, n), cfg, role="layout")
        contrib.append(layout)
        omp = openmp_flags(cc) is not None
        mt = build_kernel("loops", name="loops_mt", openmp=omp, compiler=cc)
        if threads_all > 1:
            contrib.append(measure_gemm(session, f"ikj -O3 native x{threads_all}", str(mt.path), "rl_loop_ikj_mt",
                                        (n, n, n), cfg, (("int", threads_all),), role="threads", threads=threads_all,
                                        backend="openmp" if omp else "pthreads"))
    return {"lab": "vectorize", "quick": quick, "n": n, "threads_all": threads_all, "compiler": cc.to_dict(),
            "kernel": "ikj GEMM (fp32)", "flags": rows, "contributions": contrib}


# ------------------------------------------------------------------------------------ observations


def vectorize_observations(doc: dict) -> list[dict]:
    rows = ok_rows(doc["flags"])
    if not rows:
        return [msg("No flag combination could be measured.")]
    out = load_caveat(doc)
    for r in rows:
        vb = r.get("vector_bits")
        width = msg("{bits}-bit vectors", bits=vb) if vb else msg("scalar code")
        rep = r.get("report") or []
        said = msg("; the compiler says: {said}", said=rep[0]) if rep else ""
        out.append(msg("{label}: {rate} with {width} in the inner loop{said}.", label=r["label"],
                       rate=si(r["flops_per_s"], "FLOP/s"), width=width, said=said))
    worst = min(rows, key=lambda r: r["flops_per_s"])
    best = max(rows, key=lambda r: r["flops_per_s"])
    out.append(msg("Compiler contribution: {f:.1f}x from {worst} to {best} on the same source.",
                   f=best["flops_per_s"] / worst["flops_per_s"], worst=worst["label"], best=best["label"]))
    c = {r.role: r for r in (read(Contribution, x) for x in ok_rows(doc.get("contributions", [])))}
    nat = next((r for r in rows if r.get("id") == "O3_native"), None)
    if nat and "layout" in c:
        out.append(msg("Layout contribution: ikj runs {f:.1f}x ijk with the same flags — the inner loop must walk "
                       "memory contiguously before any vector unit can help.",
                       f=nat["flops_per_s"] / c["layout"].flops_per_s))
    if nat and "threads" in c:
        out.append(msg("Threads contribution: {f:.2f}x on {t} threads.", f=c["threads"].flops_per_s /
                       nat["flops_per_s"], t=c["threads"].threads))
    return out



_VECTORIZE_IDS = (("-O2", "O2"), ("-O3 vectorizer off", "O3_novec"), ("-O3", "O3"))


def vectorize_1_to_2(doc: dict) -> dict:
    """Builds of /1 were told apart by their flag labels: each gets the id of its build."""
    for r in doc.get("flags") or []:
        if isinstance(r, dict) and "id" not in r:
            label = str(r.get("label", ""))
            rid = dict(_VECTORIZE_IDS).get(label)
            if rid is None and label.startswith("-O3 -m"):
                rid = "O3_native_fastmath" if "fast-math" in label else "O3_native"
            r["id"] = rid or ""
    return doc


LAB = Lab(
    name="vectorize", order=6, options=Options, run=run, version=2, migrations={1: vectorize_1_to_2},
    summary=msg("one kernel under a flags matrix with the compiler's vectorization report; layout, compiler and "
                "threads"),
    report=Report(
        interpret=lambda d: (disturbed_rows((d.get("flags") or []) + (d.get("contributions") or []))
                             + vectorize_observations(d)),
        headline=lambda d: f"{d['kernel']}, n = {d['n']} · {read(documents.Compiler, d.get('compiler')).version}",
        tables=(Table("vectorize_flags", "Flags matrix", rows="flags", error_column="rel_error", columns=(
                    Column("name", "flags"),
                    Column("flops_per_s", "FLOP/s", "flops"),
                    Column("vector_bits", "inner loop", "bits",
                           value=lambda r, d: None if r.get("error") else r.get("vector_bits") or 0),
                    Column("report", "compiler's report", csv=False,
                           value=lambda r, d: None if r.get("error") else
                           (r.get("report") or [tr("(no message)")])[0][:60]),
                    Column("rel_error", "rel. error", "sci"))),
                Table("vectorize_contributions", "Layout and threads", rows="contributions", error_column="rel_error",
                      columns=(Column("name", "variant"),
                               Column("threads", "threads", "int", report=False),
                               Column("flops_per_s", "FLOP/s", "flops"),
                               Column("rel_error", "rel. error", "sci"))))))
