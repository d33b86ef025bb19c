"""Experiments that test a finding without editing the user's source: the kernel rebuilt another way (flags, a build
for this CPU, OpenMP on, restrict on its pointers in a copy of the source) or run at another size, timed against the
original in interleaved rounds. Each gives a paired verdict with its confidence interval, as `rooflab compare` does,
and the variant's own correctness check; work per call is divided out when the size changes."""

from __future__ import annotations

import dataclasses
import hashlib
import re

import numpy as np

from rooflab.diagnosis.interchange import interchanged
from rooflab.diagnosis.rules.aliasing_4k import STAGGER_ALT
from rooflab.documents.common import cache_sizes
from rooflab.errors import RooflabError, WrongResult
from rooflab.i18n import msg, text
from rooflab.kernels.labkernels import stream_reference
from rooflab.kernels.runner import compare_c_kernels, compare_with_blas
from rooflab.kernels.user import build_spec, task
from rooflab.model.bounds import check_bandwidth_bound
from rooflab.model.caches import block_size
from rooflab.paths import CSRC, cache_dir
from rooflab.timing.checks import COMPETING_CORES, check_physical_limit
from rooflab.timing.harness import HarnessConfig, Timing
from rooflab.timing.stats import paired_ratio
from rooflab.toolchain.asm import hot_loop_of, source_function
from rooflab.toolchain.compiler import CompileError, private_dir
from rooflab.toolchain.remarks import function_lines
from rooflab.userkernel.expr import ExprError, arith
from rooflab.userkernel.proto import prototype_from_source
from rooflab.userkernel.spec import STAGGER, ArrayArg, KernelSpec, omp_directive_built

THRESHOLD = 0.02  # a relative change under this is no difference (as compare's default)


def _flags(spec: KernelSpec, *more: str) -> KernelSpec:
    return dataclasses.replace(spec, flags=[*spec.flags, *more])


def with_restrict(source: str, function: str, pointers: list[str]) -> str | None:
    """The source with ``__restrict__`` on the pointer parameters of ``function``'s definition; None when the
    definition is not found."""
    span = function_lines(source, function)
    if span is None:
        return None
    lines = source.splitlines(keepends=True)
    head_start = sum(len(x) for x in lines[:span[0] - 1])
    m = re.compile(rf"\b{re.escape(function)}\s*\(").search(source, head_start)
    if m is None:
        return None
    end = source.index("{", m.end())
    head = source[m.end():end]
    for name in pointers:
        head = re.sub(rf"(\*+\s*)(?:__restrict__\s+|restrict\s+)?({re.escape(name)})\b", r"\1__restrict__ \2", head)
        # an array parameter (double C[n][m], double x[]): the qualifier goes in its first brackets
        head = re.sub(rf"\b({re.escape(name)})\s*\[\s*(?:__restrict__\s*|restrict\s*)?", r"\1[__restrict__ ", head)
    return source[:m.end()] + head + source[end:]


def pointer_params(source: str, function: str) -> list[str]:
    """The names of the pointer and array parameters of ``function``'s definition in ``source`` (``float *a``,
    ``const float b[]``, ``double (*c)[n]``; not a pointer to a function); [] when the definition is not found."""
    span = function_lines(source, function)
    if span is None:
        return []
    start = sum(len(x) for x in source.splitlines(keepends=True)[:span[0] - 1])
    m = re.compile(rf"\b{re.escape(function)}\s*\(").search(source, start)
    if m is None or "{" not in source[m.end():]:
        return []
    head, depth, part, parts = source[m.end():source.index("{", m.end())], 0, "", []
    for ch in head:
        depth += ch in "([" and 1 or ch in ")]" and -1 or 0
        if ch == "," and depth == 0:
            parts.append(part)
            part = ""
        elif depth >= 0:
            part += ch
    parts.append(part)
    names = []
    for p in parts:
        if re.search(r"\(\s*\*+\s*\w+\s*\)\s*\(", p):
            continue  # a pointer to a function: restrict does not apply to it
        name = re.search(r"(?:\(\s*\*+\s*(?:restrict\s+|__restrict__\s+)?(\w+)\s*\))|(\w+)\s*(?:\[|$)", p.strip())
        if name and ("*" in p or "[" in p):
            names.append(name.group(1) or name.group(2))
    return names


def _restrict_copy(spec: KernelSpec, where: str | None = None) -> KernelSpec | None:
    """A copy of the kernel's source with restrict on the pointer parameters of its function and, where the hot loop
    lies in another function of the source (a helper it calls: ``where``), on that function's too: restrict on the
    caller's parameters says nothing to the compiler about a helper it did not inline."""
    text = spec.source.read_text(encoding="utf-8", errors="replace")
    changed = text
    pointers = [p.name for p in spec.prototype.params if p.pointer]
    if pointers:
        changed = with_restrict(changed, spec.function, pointers) or changed
    helper = source_function(where) if where else None
    if helper and helper != spec.function:
        changed = with_restrict(changed, helper, pointer_params(changed, helper)) or changed
    if changed == text:
        return None
    return _source_copy(spec, changed, "restrict")


def scaled_size(spec: KernelSpec, size: dict, target_bytes: float) -> dict | None:
    """The size variables scaled down together until the arrays fit ``target_bytes`` (None when even the smallest
    scale does not, or the spec rejects the scaled size)."""
    def at(s: float) -> dict:
        return {k: max(1, int(v * s)) if isinstance(v, int) else v * s for k, v in size.items()}

    try:
        if spec.array_bytes(size) <= target_bytes or spec.array_bytes(at(1e-9)) > target_bytes:
            return None
        lo, hi = 1e-9, 1.0
        for _ in range(50):
            mid = (lo + hi) / 2
            if spec.array_bytes(at(mid)) <= target_bytes:
                lo = mid
            else:
                hi = mid
        best = at(lo)
        spec.work(best)
        return best if best != size else None
    except RooflabError:
        return None


def _source_copy(spec: KernelSpec, changed: str, tag: str) -> KernelSpec:
    """The spec built from ``changed``, a copy of its source written to rooflab's cache (the user's file is never
    touched); the original's folder stays on the include path for its headers."""
    d = private_dir(cache_dir() / "variants")
    digest = hashlib.sha256(changed.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    path = d / f"{spec.source.stem}-{tag}-{digest}{spec.source.suffix}"
    if not path.exists():
        path.write_text(changed, encoding="utf-8")
    return dataclasses.replace(spec, source=path, flags=[*spec.flags, f"-I{spec.source.parent}"])


_OMP_FOR = re.compile(r"(#\s*pragma\s+omp\s+(?:parallel\s+)?for\b)([^\n]*)")


# the imbalance experiment schedules each parallel loop dynamically, in chunks of an eighth of a thread's share of
# the iterations (worked out at run time from the loop's bounds): small enough that work concentrated in one part of
# the iteration space (the first half of the rows of an escape-time image) is shared (guided hands that part to one
# thread as its first chunk, as static does: 1.00x where dynamic gave 1.81x), large enough that taking a chunk costs
# nothing beside its work (chunks of 4 elements made a triad at DRAM 6.7x slower). A loop whose bounds cannot be read
# (or that collapses several) gets schedule(guided).
CHUNKS_PER_THREAD = 8
_FOR_HEAD = re.compile(r"\s*(?://[^\n]*\n\s*|/\*.*?\*/\s*)*for\s*\(\s*(?:[A-Za-z_][\w\s\*]*?\s+)?([A-Za-z_]\w*)\s*=\s*"
                       r"([^;]+?)\s*;\s*\1\s*(<=|<)\s*([^;]+?)\s*;", re.S)


def dynamic_chunk(after: str) -> str | None:
    """The chunk expression for the loop that starts ``after`` a pragma: its trip count over CHUNKS_PER_THREAD
    chunks per thread, at least 1; None when its header cannot be read."""
    m = _FOR_HEAD.match(after)
    if not m:
        return None
    lo, op, hi = m.group(2), m.group(3), m.group(4)
    count = f"(({hi}) - ({lo}){' + 1' if op == '<=' else ''})"
    return f"({count} / ({CHUNKS_PER_THREAD} * omp_get_max_threads()) + 1)"


def with_dynamic_schedule(source: str, function: str) -> str | None:
    """The source with a dynamic schedule (see dynamic_chunk) on the worksharing loops of ``function`` (replacing a
    static schedule); None when it has none to change."""
    return _with_schedule(source, function, cyclic=False)


def index_arrays(spec: KernelSpec) -> list[str]:
    """The integer arrays a kernel reads and does not write (where its indices come from: x[col[k]])."""
    return [k for k, v in spec.args.items() if isinstance(v, ArrayArg) and not v.output and
            np.dtype(v.dtype).kind in "iu"]


def with_cyclic_schedule(source: str, function: str) -> str | None:
    """The source with ``schedule(static, 1)`` on the worksharing loops of ``function``: the iterations dealt to
    the threads in turn, which shares a triangle's rows evenly and gives each thread the same rows at every call
    (their data stay in its cache; a dynamic schedule moves them from thread to thread: a 600-row triangle in L2 ran
    1.3x slower dynamically, 1.4x faster dealt in turn); None when it has none to change."""
    return _with_schedule(source, function, cyclic=True)


def _with_schedule(source: str, function: str, cyclic: bool) -> str | None:
    span = function_lines(source, function)
    if span is None:
        return None
    lines = source.splitlines(keepends=True)
    a, b = span[0] - 1, span[1]
    body = "".join(lines[a:b])
    out, at = [], 0
    for m in _OMP_FOR.finditer(body):
        rest = re.sub(r"\s*\bschedule\s*\([^)]*\)", "", m.group(2))
        chunk = None if "collapse" in rest or cyclic else dynamic_chunk(body[m.end():])
        sched = "schedule(static, 1)" if cyclic else f"schedule(dynamic, {chunk})" if chunk else "schedule(guided)"
        out += [body[at:m.start()], f"{m.group(1)} {sched}{rest}"]
        at = m.end()
    if not out:
        return None
    changed = "".join(out) + body[at:]
    return ("int omp_get_max_threads(void);\n" + "".join(lines[:a]) + changed + "".join(lines[b:]))


PAD = 16  # elements between two threads' slots in the unshared copy: a line or more apart for any element type


def with_unshared_slots(source: str, arrays: list[str], params: list[str]) -> str | None:
    """The source with every element access ``a[e]`` of ``arrays`` (their declarations included) made ``a[(e) *
    PAD]``, so that each thread's element lies on a cache line of its own; None when one of them is a parameter
    (its memory is the caller's, which a copy of the source cannot enlarge) or nothing changed."""
    if not arrays or any(a in params for a in arrays):
        return None
    out = source
    for name in arrays:
        out = re.sub(rf"\b({re.escape(name)})\s*\[((?:[^\[\]]|\[[^\[\]]*\])*)\]",
                     lambda m: f"{m.group(1)}[({m.group(2)}) * {PAD}]", out)
    return out if out != source else None


def page_rows(spec: KernelSpec, size: dict) -> list[tuple[str, int]]:
    """The 2-D (or higher) arrays whose rows, at this size, are 4 KiB or more apart: (name, row bytes)."""
    out = []
    for name, v in spec.args.items():
        if not isinstance(v, ArrayArg) or len(v.shape) < 2:
            continue
        try:
            row = int(arith(v.shape[-1], size, name)) * np.dtype(v.dtype).itemsize
        except (ExprError, ValueError, TypeError):
            continue
        if row >= 4096:
            out.append((name, row))
    return out


def pow2_rows(spec: KernelSpec, size: dict) -> list[tuple[str, int]]:
    """The 2-D (or higher) arrays whose rows, at this size, are a power of two of at least 4 KiB apart: (name,
    row bytes)."""
    return [(name, row) for name, row in page_rows(spec, size) if row & (row - 1) == 0]


def padded_size(spec: KernelSpec, size: dict) -> dict | None:
    """The size with each size variable that is the row length of a power-of-two-row array one cache line (64 B)
    larger; None when no row length is a plain size variable."""
    rows = dict(pow2_rows(spec, size))
    out = dict(size)
    for name in rows:
        v = spec.args[name]
        var = str(v.shape[-1]).strip()
        if var in size and isinstance(size[var], int):
            out[var] = size[var] + max(1, 64 // np.dtype(v.dtype).itemsize)
    return out if out != size else None


def gemm_dims(spec: KernelSpec, size: dict) -> tuple[int, int, int, str] | None:
    """(M, N, K, dtype) when the kernel is a matrix product: a 2-D output C of M x N and two 2-D inputs A of M x K
    and B of K x N (by their shapes at this size), with the spec counting about 2·M·N·K FLOP; else None."""
    try:
        env = spec.scalars(size)
        shapes = {k: (tuple(int(arith(d, env, k)) for d in v.shape), v)
                  for k, v in spec.args.items() if isinstance(v, ArrayArg) and len(v.shape) == 2}
        flops = spec.work(size)[0]
    except (RooflabError, ExprError, ValueError, TypeError):
        return None
    for c, ((m, n), cv) in shapes.items():
        if not cv.output:
            continue
        for a, ((m2, k), _) in shapes.items():
            for b, ((k2, n2), _) in shapes.items():
                if len({a, b, c}) == 3 and m2 == m and n2 == n and k2 == k and k > 1 and \
                        0.8 <= flops / (2.0 * m * n * k) <= 1.25:
                    return m, n, k, cv.dtype
    return None


def blocked_gemm_spec(spec: KernelSpec, dims: tuple[int, int, int, str], l2_bytes: int) -> KernelSpec:
    """The same product (C = A·B, row-major) blocked in square tiles sized for L2, as a kernel spec checked against
    NumPy: what blocking alone gives at this size on this machine."""
    m, n, k, dtype = dims
    ctype = "float" if dtype == "float32" else "double"
    src = CSRC / "blocked_gemm.c"
    proto = prototype_from_source(src.read_text().replace("RL_T", ctype), "rl_blocked_gemm", "blocked GEMM")
    elem = 4 if ctype == "float" else 8
    args = {"M": "M", "N": "N", "K": "K", "A": ArrayArg(("M", "K"), dtype), "B": ArrayArg(("K", "N"), dtype),
            "C": ArrayArg(("M", "N"), dtype, output=True), "bs": block_size(l2_bytes // 2, elem)}
    return KernelSpec(name=f"{spec.name} blocked", source=src, function="rl_blocked_gemm", prototype=proto,
                      flops="2*M*N*K", bytes=f"{elem}*(M*K + K*N + 2*M*N)", sizes=[{"M": m, "N": n, "K": k}], args=args,
                      flags=[f"-DRL_T={ctype}"], profile=spec.profile, check={"C": "A @ B"},
                      tolerance=1e-4 if ctype == "float" else 1e-9, timeout=spec.timeout,
                      min_sample=spec.min_sample, precision="fp32" if ctype == "float" else "fp64")


def variant(exp: str, spec: KernelSpec, size: dict, ctx: dict) -> tuple[KernelSpec, dict, dict] | None:
    """(variant spec, its size, what it is) for one experiment; None when it does not apply here."""
    native = "-mcpu=native" if ctx.get("arch") == "aarch64" else "-march=native"
    if exp == "fast_math":
        return _flags(spec, "-ffast-math"), size, msg("a build with -ffast-math")
    if exp == "unroll":
        return _flags(spec, "-funroll-loops"), size, msg("a build with -funroll-loops")
    if exp == "serial":
        if not spec.openmp:
            return None
        return dataclasses.replace(spec, openmp=False, threads=1), size, msg("the same source built without OpenMP "
                                                                             "(one thread)")
    if exp == "dynamic":
        text = spec.source.read_text(encoding="utf-8", errors="replace")
        changed = with_dynamic_schedule(text, spec.function)
        if changed is None:
            return None
        return (_source_copy(spec, changed, "dynamic"), size,
                msg("its parallel loops scheduled dynamically, {n} chunks per thread (in a copy of the source)",
                    n=CHUNKS_PER_THREAD))
    if exp == "sorted":
        names = index_arrays(spec)
        if not names:
            return None
        args = {k: dataclasses.replace(v, ordered=True) if k in names else v for k, v in spec.args.items()}
        # a probe: the values are the same, their order is not, so the results differ and are not checked
        return (dataclasses.replace(spec, args=args, check={}), size,
                msg("the same build with the values of its integer input arrays sorted ({names}): neighbouring "
                    "iterations then reach neighbouring elements (a probe of the access pattern, whose results "
                    "differ and are not checked)", names=", ".join(names)))
    if exp == "cyclic":
        changed = with_cyclic_schedule(spec.source.read_text(encoding="utf-8", errors="replace"), spec.function)
        if changed is None:
            return None
        return (_source_copy(spec, changed, "cyclic"), size,
                msg("its parallel loops dealt to the threads in turn, one iteration at a time ({clause}, in a copy "
                    "of the source)", clause="schedule(static, 1)"))
    if exp == "ftz":
        if spec.openmp:
            return None  # set at load, the mode would hold for the calling thread only, not for an OpenMP team
        return (dataclasses.replace(_flags(spec, f"-include{CSRC / 'rl_ftz.h'}"), flushed=True), size,
                msg("its calls run with flush-to-zero and denormals-are-zero set"))
    if exp == "unshared":
        text = spec.source.read_text(encoding="utf-8", errors="replace")
        arrays = [s["array"] for s in ctx.get("thread_slots") or []]
        changed = with_unshared_slots(text, arrays, [p.name for p in spec.prototype.params])
        if changed is None:
            return None
        return (_source_copy(spec, changed, "unshared"), size,
                msg("each thread's element of {arrays} {pad} elements apart, on a cache line of its own (in a copy of "
                    "the source)", arrays=", ".join(arrays), pad=PAD))
    if exp == "huge_pages":
        if spec.huge_pages or ctx.get("thp") == "never":
            return None
        return (dataclasses.replace(spec, huge_pages=True), size,
                msg("its arrays on transparent huge pages (2 MiB) instead of 4 KiB pages"))
    if exp in ("placement", "placement_alt"):
        if exp == "placement" and spec.placement == "staggered":
            return (dataclasses.replace(spec, placement="aligned"), size,
                    msg("the same build with its arrays all at the start of a page (placement = \"aligned\")"))
        # the control (placement_alt): other offsets apart. Loads held behind stores 4 KiB away are freed by any
        # offsets that part the arrays; a column walk whose time hangs on which cache sets its arrays share gains
        # from one set of offsets and loses from another (column sums: 0.38x to 2.38x staggered, run after run)
        gap = STAGGER if exp == "placement" else STAGGER_ALT
        return (dataclasses.replace(spec, placement="staggered", stagger=gap), size,
                msg("the same build with its arrays staggered in their pages, each {bytes} bytes ({lines} lines) "
                    "further in than the one before", bytes=gap, lines=gap // 64))
    if exp == "padded":
        bigger = padded_size(spec, size)
        if bigger is None:
            return None
        return spec, bigger, msg("rows one cache line longer ({size})",
                                 size=" ".join(f"{k}={v}" for k, v in bigger.items()))
    if exp == "single_constants":
        return _flags(spec, "-fsingle-precision-constant"), size, msg("a build with -fsingle-precision-constant "
                                                                      "(float constants)")
    if exp == "no_trapping_math":
        return _flags(spec, "-fno-trapping-math"), size, msg("a build with -fno-trapping-math")
    if exp == "openmp_simd":
        return (_flags(spec, "-fopenmp-simd"), size,
                msg("a build with -fopenmp-simd (the source's #pragma omp simd obeyed)"))
    if exp == "no_math_errno":
        return _flags(spec, "-fno-math-errno"), size, msg("a build with -fno-math-errno")
    if exp == "vector_math":
        # what -ffast-math does for the calls (a vector math library: glibc's libmvec), without reordering sums:
        # beside a sum in the same loop (a softmax's), the two causes measured apart
        return (_flags(spec, "-ffast-math", "-fno-associative-math"), size,
                msg("a build with -ffast-math -fno-associative-math (vector math calls; sums kept in order)"))
    if exp == "reciprocal":
        # in a float kernel the reciprocal is a float's: its constants made float too, or a double constant's
        # reciprocal brings the conversions to double the division by it did not need (gcc divides a float sum by
        # 3.0 in float: the result rounds the same)
        # -freciprocal-math alone turns x / 3.0 into x * (1 / 3.0), but gcc takes the reciprocal of a divisor the
        # loop only reads (A[i][j] / tot[i]) out of the loop under -funsafe-math-optimizations alone, which also
        # reorders sums: without that (-fno-associative-math) the sums stay in order, as in the source
        flags = ["-funsafe-math-optimizations", "-fno-associative-math"]
        if spec.precision == "fp32":
            return (_flags(spec, *flags, "-fsingle-precision-constant"), size,
                    msg("a build with -funsafe-math-optimizations -fno-associative-math -fsingle-precision-constant "
                        "(reciprocals, float constants; sums kept in order)"))
        return (_flags(spec, *flags), size,
                msg("a build with -funsafe-math-optimizations -fno-associative-math (reciprocals; sums kept in "
                    "order)"))
    if exp == "cx_limited_range":
        return _flags(spec, "-fcx-limited-range"), size, msg("a build with -fcx-limited-range")
    if exp == "native":
        keep = [f for f in spec.flags if not f.startswith(("-march=", "-mcpu=", "-mtune="))]
        return dataclasses.replace(spec, profile="native", flags=keep), size, msg("a build for this CPU ({flag})",
                                                                                  flag=native)
    if exp == "vectorize":
        return (dataclasses.replace(spec, profile="native", flags=[*spec.flags, "-O3", "-ftree-vectorize", native]),
                size, msg("a build with -O3 {flag} (vectorizing)", flag=native))
    if exp == "openmp":
        # none where an OpenMP build has no directive in the kernel (HPCCG's pragmas under #ifdef USING_OMP): the
        # build would leave the loop as it is, and test nothing
        text = spec.source.read_text(encoding="utf-8", errors="replace")
        if spec.openmp or omp_directive_built(spec.source, text, spec.function, list(spec.flags)) is None:
            return None
        return dataclasses.replace(spec, openmp=True), size, msg("its OpenMP pragmas on, on all {n} CPUs",
                                                                 n=ctx.get("cpus"))
    if exp == "interchange":
        got = interchanged(spec.source.read_text(encoding="utf-8", errors="replace"), spec.function)
        if got is None:
            return None
        changed, nests = got
        return (_source_copy(spec, changed, "interchange"), size,
                msg("its loops reordered so that the innermost walks memory contiguously ({orders}; in a copy of the "
                    "source, its arrays compared with the original's after the same call)",
                    orders=", ".join("-".join(n["from"]) + " → " + "-".join(n["to"]) for n in nests)))
    if exp == "restrict":
        copy = _restrict_copy(spec, ctx.get("loop_function"))
        return (copy, size, msg("restrict on every pointer parameter (in a copy of the source)")) if copy else None
    if exp == "blocked":
        dims = gemm_dims(spec, size)
        if dims is None:
            return None
        l2 = cache_sizes(ctx).get("L2") or (1 << 20)
        b = blocked_gemm_spec(spec, dims, int(l2))
        return b, b.sizes[0], msg("the same product blocked in {bs} x {bs} tiles for L2 (rooflab's blocked GEMM, checked "
                          "against NumPy)", bs=b.args["bs"])
    if exp == "smaller":
        target = ctx.get("fits")
        if not target:
            return None
        level, cap = target
        smaller = scaled_size(spec, size, cap / 2)
        if smaller is None:
            return None
        return spec, smaller, msg("a size whose arrays fit {level} ({size})", level=level,
                                  size=" ".join(f"{k}={v}" for k, v in smaller.items()))
    return None


# experiments whose hypothesis is not about the hot loop's instructions (how threads share the work, where data
# lies, the FP mode): one that leaves the loop as it was still tests it
LOOP_BLIND = {"openmp", "serial", "dynamic", "cyclic", "sorted", "unshared", "padded", "ftz", "huge_pages",
              "placement", "placement_alt"}

# what a hot loop does per iteration, as far as a rebuild can change it
LOOP_SIGNATURE = ("instructions", "fma", "fp_add", "fp_mul", "vector_bits", "fma_bits", "loads", "stores", "spills",
                  "nt_stores")


def loop_signature(audit: dict | None) -> tuple | None:
    return tuple(audit.get(k) for k in LOOP_SIGNATURE) if audit else None


def hot_loops(spec: KernelSpec, lib, vlib, where: str | None = None) -> tuple[dict, dict] | None:
    """The audits of the original's and the variant's hottest loops (of ``where``: the function the time went to,
    by default the kernel's); None when either cannot be read."""
    where = where or spec.audit_function or spec.function
    try:
        a, b = hot_loop_of(lib.path, where), hot_loop_of(vlib.path, where)
    except RooflabError:
        return None
    return None if a is None or b is None else (a[1].to_dict(), b[1].to_dict())


def same_hot_loop(spec: KernelSpec, lib, vlib, where: str | None = None) -> bool | None:
    """Whether the variant's hottest loop is, instruction class by instruction class, the original's (same vector
    width, same FMAs, adds, loads, stores, calls counted as instructions): None when either cannot be read."""
    pair = hot_loops(spec, lib, vlib, where)
    return None if pair is None else loop_signature(pair[0]) == loop_signature(pair[1])


# experiments that rewrite the loops themselves: whether the rewrite computes the same is not known beforehand (a loop
# nest reordered across a dependence does not), so the variant's arrays after one call are compared with the
# original's; within this relative difference (the order in which an element's terms are summed stays the same,
# but a contracted multiply-add may round otherwise) where the spec gives no tolerance of its own
REWRITES = {"interchange"}
SAME_OUTPUT_TOLERANCE = 1e-9


def _rounds_config(spec: KernelSpec, rounds: int) -> HarnessConfig:
    return HarnessConfig(min_sample_s=max(0.005, min(spec.min_sample, 0.02)), samples=rounds, warmup=1)


def run_experiment(session, exp: str, spec: KernelSpec, lib, size: dict, ctx: dict, rounds: int) -> dict | None:
    """Time the original against the variant in interleaved rounds; None when the experiment does not apply."""
    if exp == "streaming_stores":
        return streaming_stores(session, spec, size, ctx, rounds)
    v = variant(exp, spec, size, ctx)
    if v is None:
        return None
    vspec, vsize, what = v
    out = {"id": exp, "what": what, "size": vsize}
    if exp == "interchange":
        # a nest whose new innermost loop sums into one element (a dot product) keeps a chain of adds the source fix
        # would split: the reordering then only approaches the fix
        nests = interchanged(spec.source.read_text(encoding="utf-8", errors="replace"), spec.function)[1]
        out["approaches"] = any(n["reduces"] for n in nests)
    label = " ".join(f"{k}={val}" for k, val in size.items())
    session.progress(f"explain: {spec.name} {label}: experiment {exp}")
    try:
        vlib = lib if vspec is spec else build_spec(vspec)
    except CompileError as exc:
        out.update(error=str(exc), error_kind="build")
        return out
    out["flags"] = list(vlib.flags)
    if vlib is not lib and vsize == size and exp not in LOOP_BLIND:
        # a rebuild tests a finding only when it changed the loop the finding is about
        pair = hot_loops(spec, lib, vlib, ctx.get("loop_function"))
        if pair is not None:
            out["loop_unchanged"] = loop_signature(pair[0]) == loop_signature(pair[1])
            # the widest vectors of each: whether the change vectorized the loop (restrict on a loop the compiler
            # kept scalar for a possible overlap) or left it scalar for another reason
            out["vector_bits"] = [pair[0].get("vector_bits") or 0, pair[1].get("vector_bits") or 0]
    cfg = _rounds_config(spec, rounds)
    a = task(spec, lib, size, f"A {spec.name} {label}")
    b = task(vspec, vlib, vsize, f"B {spec.name} ({exp}) " + " ".join(f"{k}={val}" for k, val in vsize.items()))
    # a rewrite the source fix might not be (loops reordered) must leave the very arrays the original leaves
    same = (spec.tolerance if spec.check else SAME_OUTPUT_TOLERANCE) if exp in REWRITES else None
    try:
        # under the measurement policy: measured again while disturbed, the least disturbed attempt kept
        res, judged = session.call_until_quiet(f"experiment {exp}", compare_c_kernels, a, b, cfg, rounds, same,
                                               timing_of=lambda r: Timing.from_dict(r["B"]),
                                               timeout_s=max(spec.timeout, 30.0) * 4)
    except WrongResult as exc:
        out.update(error=str(exc), error_kind="wrong", rel_error=exc.rel_error)
        return out
    except RooflabError as exc:
        out.update(error=str(exc), error_kind="error")
        return out
    # per unit of work: the same for a rebuild; the smaller size does less work per call
    fa, ba = spec.work(size)
    fb, bb = vspec.work(vsize)
    work = (fa, fb) if fa and fb else (ba, bb) if ba and bb else (1.0, 1.0)
    out["attempts"] = judged.attempts
    return _verdict(session, out, res, work, f"experiment {exp}", per_work=vsize != size,
                    others=judged.others_cores)[0]


def _verdict(session, out: dict, res: dict, work: tuple[float, float], name: str, *,
             per_work: bool, others: float | None) -> tuple[dict, Timing, Timing]:
    """``out`` with the paired verdict of B against A per unit of ``work`` (A's, B's), its interval and both checks'
    errors, the cores others used meanwhile in the attempt kept (``others``; enough to disturb it: then it refutes
    nothing), and B's timing checked; with both timings."""
    ta, tb, c = _paired(res, *work)
    lo, hi = c.ci95
    out.update(verdict=c.verdict, speedup=1 / c.ratio, speedup_ci95=[1 / hi, 1 / lo], rounds=c.rounds,
               threshold=THRESHOLD, rel_error=res["rel_error"][1], base_rel_error=res["rel_error"][0],
               a_time_s=ta.summary.median, b_time_s=tb.summary.median, per_work=per_work)
    others = _disturbing(others)
    if others is not None:
        out["disturbed_cores"] = others  # other processes and the host's steal, meanwhile: it refutes nothing
    session.check_timing(name, tb)
    return out, ta, tb


def streaming_stores(session, spec: KernelSpec, size: dict, ctx: dict, rounds: int) -> dict | None:
    """What streaming stores gain here and now at the kernel's size: rooflab's copy or triad kernel (the one nearest
    the kernel's accesses) with streaming stores against the same kernel with ordinary ones, over as many bytes of
    arrays on as many threads as the kernel keeps busy, alternated. It measures the fix on rooflab's kernel, not on
    the user's (no compiler here can be told to stream a loop's stores): it approaches the fix. None where the ISA
    has no streaming stores or the kernel's accesses match neither."""
    kind = ctx.get("stream_kind")
    if kind not in ("copy", "triad") or not ctx.get("roofs_nt"):
        return None
    n = int(spec.array_bytes(size) / (8 * (2 if kind == "copy" else 3)))
    if n < 1024:
        return None
    threads = ctx.get("busy_threads") or spec.threads
    plain, nt = (stream_reference(k, n, threads, session.machine) for k in (kind, f"{kind}_nt"))
    what = msg("rooflab's {kind} kernel with streaming stores against the same with ordinary stores, over as many "
               "bytes ({n} doubles per array) on {t} thread(s)", kind=kind, n=n, t=threads)
    # rooflab's kernel, not the user's: its speed-up confirms the effect here, and lends the user's kernel none
    out = {"id": "streaming_stores", "what": what, "size": {"n": n}, "surrogate": True}
    try:
        libs = [build_spec(plain), build_spec(nt)]
    except CompileError as exc:
        out.update(error=str(exc), error_kind="build")
        return out
    session.progress(f"explain: {spec.name}: {kind} with and without streaming stores")
    try:  # under the measurement policy: measured again while disturbed, the least disturbed attempt kept
        res, judged = session.call_until_quiet(
            "experiment streaming_stores", compare_c_kernels, task(plain, libs[0], {"n": n}, f"A {kind} n={n}"),
            task(nt, libs[1], {"n": n}, f"B {kind}_nt n={n}"), _rounds_config(spec, rounds), rounds,
            timing_of=lambda r: Timing.from_dict(r["B"]), timeout_s=max(spec.timeout, 30.0) * 4)
    except RooflabError as exc:
        out.update(error=str(exc), error_kind="error")
        return out
    out["attempts"] = judged.attempts
    out, ta, tb = _verdict(session, out, res, (1.0, 1.0), "experiment streaming_stores", per_work=False,
                           others=judged.others_cores)
    out["a_time_s"] = None  # rooflab's kernel's time: no bound on the user's kernel's saving
    m, moved = session.machine, plain.work({"n": n})[1]
    for k, t in ((kind, ta), (f"{kind}_nt", tb)):
        beyond = check_bandwidth_bound(m, "DRAM", k, threads, moved / t.summary.median, m.get("clock_hz") or 0.0)
        if beyond is not None:  # an impossible reading is no verdict
            return {**{x: out[x] for x in ("id", "what", "size")}, "error": text(beyond), "error_kind": "error"}
    return out


def _paired(res: dict, work_a: float, work_b: float) -> tuple:
    """A's timing, B's, and B's time per unit of work over A's (A's rate as a share of B's), paired round by round."""
    ta, tb = Timing.from_dict(res["A"]), Timing.from_dict(res["B"])
    c = paired_ratio([t / work_a for t in ta.samples], [t / work_b for t in tb.samples], threshold=THRESHOLD)
    return ta, tb, c


def _busy_words(others: float) -> dict:
    return msg("others (processes, the host's steal) used {cores:.2f} core(s) meanwhile: no reference",
               cores=others)


def _disturbing(others: float | None) -> float | None:
    """The cores others (processes, the host's steal) used while a paired measurement ran, when that is enough to
    disturb it; None when it is not (or the OS does not tell)."""
    return others if others is not None and others >= COMPETING_CORES else None


def reference_run(session, spec: KernelSpec, lib, size: dict, kind: str, rounds: int,
                  threads: int | None = None) -> dict | None:
    """The kernel alternated round by round with rooflab's own ``kind`` bandwidth kernel (read, copy or triad) over
    the same bytes of arrays on as many threads as the kernel keeps busy (``threads``; the spec's by default): its
    bandwidth as a share of what that kernel attains at the same
    moment, with the interval of the paired rounds. The DRAM bandwidth of a shared host moves by a third within
    seconds; a stored roof cannot say where it stands now, the alternation can."""
    arrays = {"read": 1, "copy": 2, "triad": 3}[kind]
    n = int(spec.array_bytes(size) / (8 * arrays))
    if n < 1024:
        return None
    threads = threads or spec.threads
    ref = stream_reference(kind, n, threads, session.machine)
    try:
        rlib = build_spec(ref)
    except CompileError:
        return None
    label = " ".join(f"{k}={v}" for k, v in size.items())
    session.progress(f"explain: {spec.name} {label}: alternated with rooflab's {kind} kernel")
    try:  # under the measurement policy: measured again while disturbed, the least disturbed attempt kept
        res, judged = session.call_until_quiet(
            f"reference {kind}", compare_c_kernels, task(spec, lib, size, f"A {spec.name} {label}"),
            task(ref, rlib, {"n": n}, f"B {kind} reference n={n}"), _rounds_config(spec, rounds), rounds,
            timing_of=lambda r: Timing.from_dict(r["A"]), timeout_s=max(spec.timeout, 30.0) * 4)
    except RooflabError as exc:
        return {"kind": kind, "error": str(exc)}
    bb = ref.work({"n": n})[1]
    ta, tb, c = _paired(res, spec.work(size)[1], bb)
    session.check_timing(f"reference {kind}", tb)
    m = session.machine
    beyond = check_bandwidth_bound(m, "DRAM", kind, threads, bb / tb.summary.median, m.get("clock_hz") or 0.0)
    if beyond is not None:  # an impossible or disturbed reading is no reference
        return {"kind": kind, "error": text(beyond)}
    others = _disturbing(judged.others_cores)
    if others is not None:
        return {"kind": kind, "error": text(_busy_words(others))}
    return {"kind": kind, "threads": threads, "n": n, "ratio": c.ratio, "ci95": list(c.ci95),
            "rounds": c.rounds, "bytes_per_s": spec.work(size)[1] / ta.summary.median,
            "reference_bytes_per_s": bb / tb.summary.median}


BLAS_N = (512, 1024)  # the sizes the BLAS reference GEMM is kept between (BLAS is at its pace from about 512 up)


def blas_reference_n(spec: KernelSpec, size: dict) -> int:
    """The BLAS GEMM to measure a compute-bound kernel against: n x n matrices holding as many bytes as the
    kernel's arrays (a GEMM kernel gets its own n), between BLAS_N, a multiple of 64."""
    es = 4 if spec.precision == "fp32" else 8
    n = (spec.array_bytes(size) / (3 * es)) ** 0.5
    return int(min(max(n, BLAS_N[0]), BLAS_N[1]) // 64 * 64)


def blas_reference_run(session, spec: KernelSpec, lib, size: dict, rounds: int,
                       threads: int | None = None) -> dict | None:
    """A compute-bound kernel alternated round by round with this machine's BLAS GEMM in its precision on as many
    threads as the kernel keeps busy (``threads``; the spec's by default): its FLOP rate as a share of what the best real code reaches at the same moment. On a shared host the
    second CPU comes and goes; a stored GEMM rate or peak cannot say what the threads get now, the alternation
    can. None for a precision without a BLAS GEMM, and for a kernel of integer arrays only (its operations are no
    floating-point GEMM's: a ratio to one would say nothing)."""
    threads = threads or spec.threads
    dtype = {"fp32": "float32", "fp64": "float64"}.get(spec.precision)
    if dtype is None or not spec.work(size)[0] or not spec.floating:
        return None
    n = blas_reference_n(spec, size)
    label = " ".join(f"{k}={v}" for k, v in size.items())
    session.progress(f"explain: {spec.name} {label}: alternated with the BLAS GEMM n={n}")
    try:  # under the measurement policy: measured again while disturbed, the least disturbed attempt kept
        res, judged = session.call_until_quiet(
            "reference BLAS GEMM", compare_with_blas, task(spec, lib, size, f"A {spec.name} {label}"), n, dtype,
            threads, _rounds_config(spec, rounds), rounds, timing_of=lambda r: Timing.from_dict(r["A"]),
            timeout_s=max(spec.timeout, 30.0) * 4)
    except RooflabError as exc:
        return {"kind": "blas_gemm", "error": str(exc)}
    fb = 2.0 * n ** 3
    ta, tb, c = _paired(res, spec.work(size)[0], fb)
    name = f"reference BLAS GEMM n={n} x{threads}"
    session.check_timing(name, tb)
    th = session.machine.get("theoretical")
    if th:
        lim = th["per_core"][spec.precision]["simd_fma"] * min(threads, th["cores"])
        beyond = check_physical_limit(fb / tb.summary.median, lim, what=msg("{prec} peak", prec=spec.precision),
                                      subject=name)
        if beyond is not None:  # an impossible or disturbed reading is no reference
            return {"kind": "blas_gemm", "error": text(beyond.msg)}
    others = _disturbing(judged.others_cores)
    if others is not None:
        return {"kind": "blas_gemm", "error": text(_busy_words(others))}
    return {"kind": "blas_gemm", "threads": threads, "n": n, "ratio": c.ratio, "ci95": list(c.ci95),
            "rounds": c.rounds, "flops_per_s": spec.work(size)[0] / ta.summary.median,
            "reference_flops_per_s": fb / tb.summary.median}
