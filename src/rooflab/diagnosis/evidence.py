"""The evidence about one kernel: what its compiled hot loop does, what the compiler says about it, what a static
analyzer predicts for it, and, per size, what was measured (time, roofs, traffic, working set, CPUs in use)."""

from __future__ import annotations

import ast
import dataclasses
import functools
import math
import re
import subprocess
import tempfile
from pathlib import Path

from rooflab.counters.count import count_kernel
from rooflab.counters.perf import ToolTimeout
from rooflab.diagnosis.experiments import scaled_size
from rooflab.diagnosis.interchange import ACCESS as _ACCESS
from rooflab.diagnosis.interchange import closing, statement_end
from rooflab.documents.common import Isa, read
from rooflab.documents.kernels import AllThreads, Derived, Pragmas
from rooflab.errors import RooflabError
from rooflab.i18n import msg
from rooflab.kernels.user import build_spec, config_for, task, timed_row, working_set
from rooflab.model.caches import cache_capacities
from rooflab.model.reference import roofs_at
from rooflab.model.roofline import place
from rooflab.timing.harness import Timing
from rooflab.toolchain.asm import (disassemble, hot_loop_in, hot_loop_of, inner_share, line_table, loop_assembly,
                                  loop_lines, outlined_from, source_function)
from rooflab.toolchain.compiler import Library, find_compiler
from rooflab.toolchain.mca import NoPrediction, predict, without_division
from rooflab.toolchain.remarks import Remark, blank_comments, causes_of, function_lines, remarks_and_object, scoped
from rooflab.units import binary_bytes
from rooflab.userkernel.expr import ExprError, arith
from rooflab.userkernel.spec import ArrayArg, KernelSpec

# cachegrind runs a kernel 20 to 100 times slower: the traffic is counted at sizes up to this working set
TRAFFIC_MAX_BYTES = 96 << 20


_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+\w+(?:\\\n|[^\n])*", re.M)  # continued lines included


def expand_macros(source: str, body: str) -> str:
    """``body`` with the macros the source defines expanded by the C preprocessor (``A[IDX(k, j)]`` read as
    ``A[((k) * n + (j))]``: an index hidden in a macro is still an index), its pragmas kept; as it is where the
    source defines none or the preprocessor cannot run."""
    defines = _DEFINE.findall(source)
    if not defines or not body:
        return body
    try:
        cc = find_compiler()
        r = subprocess.run([cc.path, *cc.extra, "-E", "-P", "-x", "c", "-"], input="\n".join(defines) + "\n" + body,
                           capture_output=True, text=True, errors="replace", timeout=20)
    except (RooflabError, OSError, subprocess.TimeoutExpired):
        return body
    return r.stdout if r.returncode == 0 and r.stdout.strip() else body


def _pragmas(spec: KernelSpec, lines: list[int] | None = None, where: str | None = None) -> dict:
    """OpenMP and vectorization pragmas inside the kernel's own function, the arrays its threads write one element
    each of, and the array parameters it only writes; read with the source's macros expanded. What the source says
    of its loops is read from the loops that hold the hot loop's source ``lines``, where they are known, in the
    function the hot loop is in (``where``: one the kernel calls, where the time went there)."""
    try:
        text = spec.source.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {"omp": False, "omp_simd": False, "omp_text": ""}
    own = spec.audit_function or spec.function
    span = function_lines(text, own)
    raw = "\n".join(text.splitlines()[span[0] - 1:span[1]]) if span else ""
    body = expand_macros(text, raw)
    elsewhere = bool(where and where != own)
    if elsewhere:
        span = function_lines(text, where)
        raw = "\n".join(text.splitlines()[span[0] - 1:span[1]]) if span else ""
    here = expand_macros(text, raw) if elsewhere else body
    hot = expand_macros(text, without_cold_loops(raw, span[0], lines)) if span and lines else here
    return {"omp": bool(re.search(r"#\s*pragma\s+omp\s+parallel", body)),
            "omp_simd": bool(re.search(r"#\s*pragma\s+omp\s+(parallel\s+)?(for\s+)?simd", body)),
            "omp_text": "\n".join(re.findall(r"#\s*pragma\s+omp[^\n]*", body)),
            "uneven_loop": uneven_loop(hot), "thread_slots": thread_slots(body),
            "write_only": written_only(body, [k for k, v in spec.args.items() if isinstance(v, ArrayArg)]),
            "column_walks": column_walks(hot, looping_functions(text) - {spec.function}),
            "regions_in_loops": regions_in_loops(body),
            "partial_records": partial_records(text, hot), "partial_strides": partial_strides(hot),
            "loaded_bounds": loaded_bounds(hot), "select_reductions": select_reductions(hot),
            "packed_stores": packed_stores(hot),
            # a hot loop in a function the kernel calls runs inside the kernel's own loops
            "nested_loops": elsewhere or nested_loops(body), "loop_heads": loop_heads(hot), "cold_loops": hot != here}


_FOR_HEAD = re.compile(r"\bfor\s*\(\s*(?:[A-Za-z_]\w*\s+)*\**\s*([A-Za-z_]\w*)\s*=")


def _closing(text: str, i: int, open_c: str, close_c: str) -> int:
    """The index just past the bracket that closes the one at ``i`` (the text's end when it is not closed)."""
    end = closing(text, i, open_c, close_c)
    return end if end >= 0 else len(text)


def outer_loops(body: str) -> list[tuple[int, int]]:
    """The loops of a function body that no other loop holds, as (start, end) character offsets: the loop head to
    the end of the statement it governs. Comments and strings are skipped; a loop whose end cannot be found is
    left out."""
    text = re.sub(r"//[^\n]*", lambda m: " " * len(m.group(0)), blank_comments(body))
    out: list[tuple[int, int]] = []
    for m in re.finditer(r"\b(?:for|while)\s*\(", text):
        if out and m.start() < out[-1][1]:
            continue  # inside the loop before it
        head_end = closing(text, text.index("(", m.start()), "(", ")")
        end = statement_end(text, head_end) if head_end > 0 else -1
        if end > 0:
            out.append((m.start(), end))
    return out


def without_cold_loops(body: str, first_line: int, lines: list[int]) -> str:
    """The function body with the loops that hold none of the hot loop's source ``lines`` blanked out (their lines
    kept): what the source says about other loops is not about the loop the time goes to. As it is where no loop
    holds those lines (they are unknown, or a callee's)."""
    loops = outer_loops(body)
    hot = set(lines)

    def line_range(a: int, b: int) -> set[int]:
        return set(range(first_line + body.count("\n", 0, a), first_line + body.count("\n", 0, b) + 1))

    cold = [(a, b) for a, b in loops if not hot & line_range(a, b)]
    if not hot or len(cold) == len(loops):
        return body
    for a, b in reversed(cold):
        body = body[:a] + re.sub(r"[^\n]", " ", body[a:b]) + body[b:]
    return body


def nested_loops(body: str) -> bool:
    """Whether a for or while loop of the function body holds another loop (an outer loop threads could share);
    loops one after the other are not nested."""
    for m in re.finditer(r"\b(?:for|while)\s*\(", body):
        head_end = _closing(body, body.index("(", m.start()), "(", ")")
        rest = body[head_end:].lstrip()
        start = len(body) - len(rest)
        if re.search(r"\b(?:for|while)\s*\(", body[start:statement_end(body, start)]):
            return True
    return False


def source_innermost_loops(body: str, callees: frozenset = frozenset()) -> list[tuple[str, str]]:
    """The innermost for loops of a function body, as (loop variable, loop body text); ``callees``: functions with
    loops of their own, a loop that calls one of them holds that loop (LINPACK's dgefa calls daxpy for each
    column)."""
    return [(var, inner) for var, inner, _, _ in _innermost_loops(body, callees)]


# a loop head's step by a constant: `i += 8`, `i = i + 8`
_STEP = re.compile(r";\s*([A-Za-z_]\w*)\s*(?:\+=\s*(\d+)|=\s*\1\s*\+\s*(\d+))\s*\)\s*$")


def _innermost_loops(body: str, callees: frozenset = frozenset()) -> list[tuple[str, str, int, str]]:
    """The innermost for loops of a function body, as (loop variable, loop body text, the constant its head steps
    the variable by: 1 where it does not say, the head's text between its parentheses)."""
    out = []
    for m in _FOR_HEAD.finditer(body):
        head_end = _closing(body, body.index("(", m.start()), "(", ")")
        rest = body[head_end:].lstrip()
        start = len(body) - len(rest)
        end = statement_end(body, start)  # a block, or the one statement (an if with its block) it governs
        inner = body[start:end]
        if end > start and not _FOR_HEAD.search(inner) and not any(
                re.search(rf"(?<![\w.>]){re.escape(c)}\s*\(", inner) for c in callees):
            st = _STEP.search(body[m.start():head_end])
            step = int(st.group(2) or st.group(3)) if st and st.group(1) == m.group(1) else 1
            out.append((m.group(1), inner, step, body[body.index("(", m.start()) + 1:head_end - 1]))
    return out


UNROLLED_TRIPS = 16  # a loop of at most this many iterations, known when compiled, is unrolled away whole


def constant_trips(head: str) -> int | None:
    """The iterations of a loop whose head counts up by one between two numbers (``k = -1; k <= 1; k++``: 3);
    None where its bounds are not numbers."""
    c = _COUNTED.match(head)
    if not c or not (c.group(1) == c.group(3) == (c.group(6) or c.group(7) or c.group(8))):
        return None
    try:
        return max(0, int(c.group(5)) - int(c.group(2)) + (c.group(4) == "<="))
    except ValueError:
        return None


_FOR_PARTS = re.compile(r"\bfor\s*\(")
_COUNTED = re.compile(r"\s*(?:[A-Za-z_]\w*\s+)*([A-Za-z_]\w*)\s*=\s*(.+?)\s*;\s*(\w+)\s*(<=?)\s*(.+?)\s*;\s*"
                      r"(?:\+\+\s*(\w+)|(\w+)\s*\+\+|(\w+)\s*\+=\s*1)\s*$", re.S)


def loop_heads(body: str) -> list[dict]:
    """Every for loop of a function body that counts up by one (``for (long i = a; i < b; i++)``), in the order
    they appear: {var, start, bound, inclusive, outer (no loop holds it), inner (it holds no loop), indexes (its
    variable appears in a subscript of its body), used (its body uses its variable at all: ``c = (i * n + j) * n``
    before ``u[c]`` uses it)}. Loops whose head reads otherwise are left out, and count as loops for ``outer`` and
    ``inner``."""
    spans = []
    for m in _FOR_PARTS.finditer(body):
        close = _closing(body, m.end() - 1, "(", ")")
        end = statement_end(body, close)
        spans.append((m.start(), close, end if end > 0 else len(body), body[m.end():close - 1]))
    out = []
    for start, close, end, head in spans:
        c = _COUNTED.match(head)
        if not c or not (c.group(1) == c.group(3) == (c.group(6) or c.group(7) or c.group(8))):
            continue
        var, inner_text = c.group(1), body[close:end]
        out.append({"var": var, "start": c.group(2), "bound": c.group(5), "inclusive": c.group(4) == "<=",
                    "outer": not any(s < start and start < e for s, _c, e, _h in spans),
                    "inner": not any(start < s < end for s, _c, _e, _h in spans),
                    "indexes": bool(re.search(rf"\[[^\]]*\b{re.escape(var)}\b", inner_text)),
                    "used": bool(re.search(rf"\b{re.escape(var)}\b", inner_text)),
                    "step_inputs": _step_inputs_only(var, inner_text)})
    return out


def _step_inputs_only(var: str, text: str) -> bool:
    """Whether a loop's body uses its variable only to read one element of arrays it never writes, ``in[t]``: an
    input for each repetition (PolyBench's fdtd-2d, ``ey[0][j] = _fict_[t]``), the data it works on the same."""
    uses = list(re.finditer(rf"\b{re.escape(var)}\b", text))
    reads = list(re.finditer(rf"\b([A-Za-z_]\w*)\s*\[\s*{re.escape(var)}\s*\](?!\s*\[)", text))
    if not uses or len(reads) != len(uses):
        return False
    return not any(re.search(rf"\b{re.escape(m.group(1))}\s*(\[[^;=]*\])?\s*[-+*/]?=(?!=)", text) for m in reads)


def repeat_loop(heads: list[dict]) -> dict | None:
    """Of a function body's ``loop_heads``, an outermost loop that holds other loops and whose body never uses its
    variable, or uses it only to read each repetition's input (``in[t]``): a repetition over the same data (time
    steps, sweeps, iterations), each depending on the last, which threads cannot share; only the loops inside it can
    be, one parallel region per repetition. {var, start, bound, inclusive}; None where there is none."""
    for lp in heads:
        if lp["outer"] and not lp["inner"] and (not lp.get("used", True) or lp.get("step_inputs")):
            return {k: lp[k] for k in ("var", "start", "bound", "inclusive")}
    return None


def trips(loop: dict | None, scalars: dict) -> int | None:
    """A counted loop's iterations (``loop_heads``' fields), its bounds evaluated with the call's scalar arguments;
    None where they cannot be."""
    if not loop:
        return None
    try:
        n = arith(loop["bound"], scalars) - arith(loop["start"], scalars) + (1 if loop["inclusive"] else 0)
    except ExprError:
        return None
    return max(0, int(n))


def inner_trips(heads: list[dict], scalars: dict) -> list[int]:
    """Of a function body's ``loop_heads``, the iterations of each innermost loop whose bound is not a constant (a
    constant one the compiler may unroll away), per entry, evaluated with the call's scalar arguments; empty where
    any cannot be."""
    out = []
    for lp in heads:
        if not lp["inner"] or not re.search(r"[A-Za-z_]", f"{lp['start']} {lp['bound']}"):
            continue
        n = trips(lp, scalars)
        if n is None:
            return []
        out.append(n)
    return out


MAX_TERMS = 4096  # products of sums expanded while reading an index, at most


def _polynomial(node) -> dict | None:
    """An index expression of sums, differences and products of names and integers as {monomial (sorted names):
    integer coefficient}; None for anything else (a call, a division, a subscript, a cast)."""
    if isinstance(node, ast.Expression):
        return _polynomial(node.body)
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return {(): node.value}
    if isinstance(node, ast.Name):
        return {(node.id,): 1}
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        p = _polynomial(node.operand)
        return None if p is None else {k: -v if isinstance(node.op, ast.USub) else v for k, v in p.items()}
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
        a, b = _polynomial(node.left), _polynomial(node.right)
        if a is None or b is None:
            return None
        out: dict = {}
        if isinstance(node.op, ast.Mult):
            if len(a) * len(b) > MAX_TERMS:
                return None  # no index a loop walks expands that far: not read
            for ka, va in a.items():
                for kb, vb in b.items():
                    k = tuple(sorted(ka + kb))
                    out[k] = out.get(k, 0) + va * vb
        else:
            out = dict(a)
            for kb, vb in b.items():
                out[kb] = out.get(kb, 0) + (vb if isinstance(node.op, ast.Add) else -vb)
        return {k: v for k, v in out.items() if v}
    return None


def flat_stride(index: str, var: str) -> str | None:
    """How far a flat index moves when ``var`` grows by one, where the index is a polynomial in the loop variables
    linear in ``var``: "1" (contiguous), a number, or the product of the names it is multiplied by ("c", "b*c":
    ``(i * b + j) * c + k`` in a loop over j). None where the index does not use ``var`` or cannot be read."""
    try:
        poly = _polynomial(ast.parse(index.strip(), mode="eval"))
    except (SyntaxError, ValueError, RecursionError):
        return None
    if poly is None:
        return None
    terms = {k: v for k, v in poly.items() if var in k}
    if not terms or any(k.count(var) > 1 for k in terms):
        return None
    if len(terms) > 1:
        return "*".join(sorted({n for k in terms for n in k if n != var})) or None
    (k, v), = terms.items()
    names = [n for n in k if n != var]
    if not names:
        return str(abs(v))
    return "*".join(([str(abs(v))] if abs(v) != 1 else []) + names)


def looping_functions(source: str) -> frozenset:
    """The functions a C source defines whose bodies hold a loop (for, while, do)."""
    src = blank_comments(source)
    out = set()
    for m in re.finditer(r"^[A-Za-z_][\w \t*]*?\b([A-Za-z_]\w*)\s*\(", src, flags=re.M):
        close = _closing(src, src.index("(", m.start(1)), "(", ")")
        brace = re.match(r"\s*\{", src[close:])
        if not brace:
            continue  # a declaration or a call
        end = _closing(src, close + brace.end() - 1, "{", "}")
        if re.search(r"\b(for|while)\s*\(|\bdo\s*\{", src[close:end]):
            out.add(m.group(1))
    return frozenset(out)


def column_walks(body: str, callees: frozenset = frozenset()) -> list[dict]:
    """Accesses in an innermost loop that step by a row (or more) at each iteration: the loop variable multiplied by
    a length in a flat index (``B[k * N + j]`` in a loop over k), or in a row index of a multi-dimensional array
    and not in its last (``A[k][i]``): each iteration touches another cache line. [{array, index, var, stride, sum}],
    ``stride`` the length multiplied ("" for a row of a multi-dimensional array), ``sum`` whether that loop also
    accumulates a scalar (an in-order sum the walk carries)."""
    out: list[dict] = []
    for var, inner in source_innermost_loops(body, callees):
        v = re.escape(var)
        for m in _ACCESS.finditer(inner):
            name, subs = m.group(1), m.group(2)
            parts = [p for p in re.findall(r"\[((?:[^\[\]]|\[[^\[\]]*\])*)\]", subs)]
            if not parts or name == var:
                continue
            stride = None
            if len(parts) == 1:
                by = flat_stride(parts[0], var)
                if by is None:  # an index it cannot read as a polynomial: the loop variable times a length
                    t = re.search(rf"(?:\b{v}\s*\*\s*([A-Za-z_]\w*|\d+)|([A-Za-z_]\w*|\d+)\s*\*\s*{v}\b)",
                                  parts[0])
                    by = (t.group(1) or t.group(2)) if t else None
                stride = None if by is None or (by.isdigit() and int(by) <= 2) else by
            elif any(re.search(rf"\b{v}\b", p) for p in parts[:-1]) and not re.search(rf"\b{v}\b", parts[-1]):
                stride = ""  # a row
            if stride is not None and all(o["array"] != name for o in out):
                out.append({"array": name, "index": "".join(f"[{p}]" for p in parts), "var": var,
                            "stride": stride, "sum": carries_sum(inner, var)})
    return out


# a scalar or an element accumulated in a loop's body (s += ..., A[i][j] -= ...)
_ACCUMULATED = re.compile(r"(?:^|[;{}\s(])([A-Za-z_]\w*)\s*((?:\[(?:[^\[\]]|\[[^\[\]]*\])*\]\s*)*)[-+]=(?!=)")


def carries_sum(inner: str, var: str) -> bool:
    """Whether a loop over ``var`` accumulates into one place: a scalar (``s += ...``) or an element whose index
    does not name ``var`` (``A[i][j] -= A[i][k] * A[k][j]`` in a loop over k): an in-order sum that loop carries."""
    for m in _ACCUMULATED.finditer(inner):
        if not m.group(2) or not re.search(rf"\b{re.escape(var)}\b", m.group(2)):
            return True
    return False


# bytes of the C types a record's fields are commonly declared with
_C_BYTES = {"char": 1, "signed char": 1, "unsigned char": 1, "_Bool": 1, "bool": 1, "short": 2, "unsigned short": 2,
            "int": 4, "unsigned": 4, "unsigned int": 4, "long": 8, "unsigned long": 8, "long long": 8,
            "unsigned long long": 8, "float": 4, "double": 8, "long double": 16, "size_t": 8, "ptrdiff_t": 8,
            "int8_t": 1, "uint8_t": 1, "int16_t": 2, "uint16_t": 2, "int32_t": 4, "uint32_t": 4, "int64_t": 8,
            "uint64_t": 8, "float _Complex": 8, "double _Complex": 16}
_RECORD = re.compile(r"(?:typedef\s+)?struct\s*(\w+)?\s*\{([^{}]*)\}\s*(\w+)?\s*;")
_FIELD = re.compile(r"((?:(?:const|volatile|signed|unsigned|long|short)\s+)*[A-Za-z_]\w*(?:\s+_Complex)?)\s+(.+)")


def record_layouts(text: str) -> dict[str, dict]:
    """The structs a C file defines whose fields all have plain types: name (the typedef's, and ``struct tag``) ->
    {fields: {name: (offset, bytes)}, bytes} with C's alignment (each field at a multiple of its element's size, the
    whole a multiple of the largest)."""
    text = re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.S)
    out: dict[str, dict] = {}
    for m in _RECORD.finditer(text):
        tag, fields_text, alias = m.groups()
        fields: dict[str, tuple[int, int]] = {}
        offset, align, ok = 0, 1, True
        for decl in filter(None, (d.strip() for d in fields_text.split(";"))):
            f = _FIELD.fullmatch(" ".join(decl.split()))
            ctype = re.sub(r"\b(const|volatile)\s+", "", f.group(1)) if f else ""
            if not f or ctype not in _C_BYTES:
                ok = False
                break
            for name in f.group(2).split(","):
                v = re.fullmatch(r"\s*(\*?)\s*([A-Za-z_]\w*)\s*(?:\[\s*(\d+)\s*\])?\s*", name)
                if not v:
                    ok = False
                    break
                elem = 8 if v.group(1) else _C_BYTES[ctype]
                offset = -(-offset // elem) * elem
                size = elem * int(v.group(3) or 1)
                fields[v.group(2)] = (offset, size)
                offset, align = offset + size, max(align, elem)
            if not ok:
                break
        if ok and fields:
            layout = {"fields": fields, "bytes": -(-offset // align) * align}
            for key in filter(None, (alias, tag and f"struct {tag}")):
                out[key] = layout
    return out


def partial_records(text: str, body: str) -> list[dict]:
    """Arrays of records (an array of structs) that an innermost loop walks element by element while it uses only
    some of each record's fields: the rest of every line it brings in is not used. [{array, record, var, used,
    used_bytes, record_bytes}] for those using at most 3/4 of the record's bytes."""
    layouts = record_layouts(text)
    if not layouts:
        return []
    typed = {}  # variable -> record name, from declarations and parameters: `const particle *p`, `struct body b[]`
    for m in re.finditer(r"\b((?:struct\s+)?[A-Za-z_]\w*)\s*(?:const\s*)?\*?\s*(?:const\s+|restrict\s+|"
                         r"__restrict__?\s+)*([A-Za-z_]\w*)\s*(?:\[|=|,|\)|;)", body):
        if m.group(1) in layouts:
            typed[m.group(2)] = m.group(1)
    out: list[dict] = []
    for var, inner in source_innermost_loops(body):
        used: dict[str, set] = {}
        for m in re.finditer(r"\b([A-Za-z_]\w*)\s*\[([^\[\]]*)\]\s*\.\s*([A-Za-z_]\w*)", inner):
            name, index, fld = m.groups()
            if name in typed and re.search(rf"\b{re.escape(var)}\b", index) and \
                    fld in layouts[typed[name]]["fields"]:
                used.setdefault(name, set()).add(fld)
        for name, flds in used.items():
            layout = layouts[typed[name]]
            used_bytes = sum(layout["fields"][x][1] for x in flds)
            # (a field of no bytes, `double a[0]`, uses nothing a line brings in: no ratio to give)
            if 0 < used_bytes <= 0.75 * layout["bytes"] and all(o["array"] != name for o in out):
                out.append({"array": name, "record": typed[name], "var": var, "used": sorted(flds),
                            "used_bytes": used_bytes, "record_bytes": layout["bytes"]})
    return out


def partial_strides(body: str) -> list[dict]:
    """Arrays an innermost loop reads at a small constant stride while it uses only some of the elements between
    (``x[2 * i]`` with no ``x[2 * i + 1]``): the rest of each line it brings in goes unused. Interleaved data read
    whole (``z[2 * i]`` and ``z[2 * i + 1]``, a complex array) is not. [{array, var, stride, used, index}]."""
    out: list[dict] = []
    for var, inner, step, _ in _innermost_loops(body):
        v = re.escape(var)
        offsets: dict[tuple[str, int], set[int]] = {}
        plain: set[str] = set()
        first: dict[tuple[str, int], str] = {}
        for m in re.finditer(r"\b([A-Za-z_]\w*)\s*\[([^\[\]]*)\]", inner):
            name, index = m.group(1), " ".join(m.group(2).split())
            # a loop stepping by k reads x[i] at a stride of k elements as x[k * i] would
            t = re.fullmatch(rf"(?:(\d+)\s*\*\s*{v}|{v}\s*\*\s*(\d+)|(?P<bare>{v}))(?:\s*([+-])\s*(\d+))?", index)
            if t and t.group("bare") and step == 1:
                plain.add(name)  # every element, in order
            elif t:
                k = step * (1 if t.group("bare") else int(t.group(1) or t.group(2)))
                c = int(t.group(5) or 0) * (-1 if t.group(4) == "-" else 1)
                if 2 <= k <= 16:
                    offsets.setdefault((name, k), set()).add(c % k)
                    first.setdefault((name, k), index)
            elif re.search(rf"\b{v}\b", index):
                plain.add(name)
        for (name, k), used in offsets.items():
            if len(used) < k and name not in plain and all(o["array"] != name for o in out):
                out.append({"array": name, "var": var, "stride": k, "used": len(used),
                            "index": f"[{first[(name, k)]}]"})
    return out


_E = r"[^;{}?:]+?"  # an operand: no statement, block or conditional inside
_IF_SELECT = re.compile(rf"\bif\s*\(\s*(?P<a>{_E})\s*(?P<op>[<>]=?)\s*(?P<b>{_E})\s*\)\s*\{{?\s*"
                        rf"(?P<var>[A-Za-z_]\w*)\s*=\s*(?P<val>{_E})\s*;")
_TERNARY_SELECT = re.compile(rf"\b(?P<var>[A-Za-z_]\w*)\s*=\s*\(?\s*(?P<a>{_E})\s*(?P<op>[<>]=?)\s*(?P<b>{_E})\s*\)?"
                             rf"\s*\?\s*(?P<c>{_E})\s*:\s*(?P<d>{_E})\s*;")
_CALL_SELECT = re.compile(r"\b(?P<var>[A-Za-z_]\w*)\s*=\s*f(?P<op>max|min)f?\s*\(\s*(?P<a>[^,;]+?)\s*,\s*"
                          r"(?P<b>[^;]+?)\s*\)\s*;")


def _same(x: str, y: str) -> bool:
    return "".join(x.split()).strip("()") == "".join(y.split()).strip("()")


def select_reductions(body: str) -> list[dict]:
    """Running maxima and minima kept in a scalar by an innermost loop (``if (x[i] > m) m = x[i];``,
    ``m = x[i] > m ? x[i] : m;``, ``m = fmax(m, x[i]);``), not stored at each element (that is a scan). The compiler
    vectorizes them only where NaN and -0.0 need not be ordered (-ffinite-math-only, -fno-signed-zeros), and not
    at all where the branch also sets another scalar with it (``with``: an argmax's position). A loop of a few
    iterations counted between two numbers is left out: the compiler unrolls it into the loop around it, where the
    value starts again at each iteration.
    [{var, op: "max" | "min", with?}]"""
    out: list[dict] = []
    for _, inner, _, head in _innermost_loops(body):
        n = constant_trips(head)
        if n is not None and n <= UNROLLED_TRIPS:
            continue  # unrolled away (a 3-wide window's maximum): a few selects inside each iteration around it
        found = []
        carried: dict[str, str] = {}  # var -> another scalar its branch sets with it (the maximum's position)
        for m in _IF_SELECT.finditer(inner):
            a, b, var, val, op = m["a"], m["b"], m["var"], m["val"], m["op"]
            if _same(b, var) and _same(a, val):  # if (x > m) m = x: a maximum
                found.append((var, "max" if op.startswith(">") else "min"))
            elif _same(a, var) and _same(b, val):  # if (m < x) m = x
                found.append((var, "max" if op.startswith("<") else "min"))
            else:
                continue
            brace = inner.find("{", m.start(), m.end())
            end = closing(inner, brace, "{", "}") if brace >= 0 else -1
            others = [w for w in _SCALAR_SET.findall(inner[m.end():end]) if w != var] if end > 0 else []
            if others:
                carried[var] = others[0]
        for m in _TERNARY_SELECT.finditer(inner):
            a, b, var, c, d, op = m["a"], m["b"], m["var"], m["c"], m["d"], m["op"]
            if _same(b, var) and _same(c, a) and _same(d, var):  # m = x > m ? x : m
                found.append((var, "max" if op.startswith(">") else "min"))
            elif _same(a, var) and _same(c, b) and _same(d, var):  # m = m < x ? x : m
                found.append((var, "max" if op.startswith("<") else "min"))
        for m in _CALL_SELECT.finditer(inner):
            if _same(m["a"], m["var"]) or _same(m["b"], m["var"]):
                found.append((m["var"], m["op"]))
        for var, op in found:
            scan = re.search(rf"\]\s*=\s*{re.escape(var)}\s*;", inner)
            if not scan and all(o["var"] != var for o in out):
                out.append({"var": var, "op": op, **({"with": carried[var]} if var in carried else {})})
    return out


_INDEXED_STORE = re.compile(r"\b[A-Za-z_]\w*\s*\[\s*(?P<k>[A-Za-z_]\w*)\s*(?P<inc>\+\+)?\s*\]\s*=(?!=)")
_COMPARISON = re.compile(r"[<>]|[=!]=|&&|\|\||!(?!=)")


def _advances(inner: str, k: str) -> list[tuple[int, str]]:
    """Where the loop body advances the scalar ``k`` (``k++``, ``++k``, ``k += e``, ``k = k + e``), with what it
    adds ("" for a step of one)."""
    v = re.escape(k)
    out = [(m.start(), "") for m in re.finditer(rf"\b{v}\s*\+\+|\+\+\s*{v}\b", inner)]
    out += [(m.start(), m.group(1)) for m in re.finditer(rf"\b{v}\s*\+=\s*([^;]+);", inner)]
    out += [(m.start(), m.group(1)) for m in re.finditer(rf"\b{v}\s*=\s*{v}\s*\+\s*([^;]+);", inner)]
    return out


def _under_if(inner: str, pos: int) -> bool:
    """Whether position ``pos`` of a loop body is in the statement an ``if`` governs (or its else)."""
    for m in re.finditer(r"\bif\s*\(", inner):
        head_end = _closing(inner, inner.index("(", m.start()), "(", ")")
        rest = inner[head_end:].lstrip()
        start = len(inner) - len(rest)
        end = statement_end(inner, start)
        tail = re.match(r"\s*else\b", inner[end:])
        if tail:
            end = statement_end(inner, len(inner) - len(inner[end + tail.end():].lstrip()))
        if start <= pos < end:
            return True
    return False


def packed_stores(body: str) -> list[dict]:
    """Elements an innermost loop stores at a position that advances only where its data say (``if (x[i] > t)
    out[k++] = x[i];``, ``out[k] = x[i]; k += x[i] > t;``): a compaction, a filter, a queue's push. The next
    element's place depends on every test before it, so compilers keep the loop scalar (gcc: "unsupported use in
    stmt"); AVX-512's compress store packs a vector's chosen lanes at once. [{index, array}]"""
    out: list[dict] = []
    for var, inner in source_innermost_loops(body):
        for m in _INDEXED_STORE.finditer(inner):
            k = m["k"]
            if k == var or any(o["index"] == k for o in out):
                continue
            steps = _advances(inner, k)
            if m["inc"]:
                steps.append((m.start("inc"), ""))
            if steps and all(not _COMPARISON.search(e) and not _under_if(inner, p) for p, e in steps):
                continue  # advanced at every iteration: a second induction variable
            if steps:
                out.append({"index": k, "array": m.group(0).split("[")[0].strip()})
    return out


# a scalar set in a statement of its own (k = i;), not an element (a[i] = ...) nor a comparison
_SCALAR_SET = re.compile(r"(?:^|[;{}\s])([A-Za-z_]\w*)\s*=(?!=)")


_FOR_CONDITION = re.compile(r"\bfor\s*\([^;]*;([^;]*);")
# memory read in an expression: *p (a dereference, not a product), p->field, p[k]
_LOADED = re.compile(r"(?:(?<![\w)\]\s])|(?<=[(<>=!&|,]))\s*\*\s*[A-Za-z_]\w*|[A-Za-z_]\w*\s*->\s*[A-Za-z_]\w*|"
                     r"[A-Za-z_]\w*\s*\[[^\]]*\]")
_STORE = re.compile(r"(?:\]|->\s*\w+|^\s*\*\s*\w+)\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)", re.M)


_UNCOUNTED = re.compile(r"number of iterations cannot be computed|could not determine number of (loop )?iterations|"
                        r"loop count|trip count", re.I)


def loaded_bounds(body: str) -> list[dict]:
    """Loops whose condition reads memory (``i < *n``, ``i < s->len``, ``i < dims[0]``) while the loop stores
    through a pointer: unless the compiler proves the store cannot reach the bound, it reads it again at every
    iteration and cannot count the iterations, so it does not vectorize. [{var, bound}]"""
    out = []
    for m in _FOR_CONDITION.finditer(body):
        cond = m.group(1)
        var = _FOR_HEAD.match(body, m.start())
        loaded = _LOADED.search(cond)
        if not loaded:
            continue
        head_end = _closing(body, body.index("(", m.start()), "(", ")")
        rest = body[head_end:].lstrip()
        start = len(body) - len(rest)
        end = _closing(body, start, "{", "}") if rest.startswith("{") else body.find(";", start) + 1
        if end > start and _STORE.search(body[start:end]):
            out.append({"var": var.group(1) if var else "", "bound": " ".join(loaded.group(0).split())})
    return out


def written_only(body: str, names: list[str]) -> list[str]:
    """The arrays of ``names`` that the function body only assigns elements of (``a[i] = ...``), never reads: a
    cache writes each of their lines after reading it from memory first (write-allocate), which a streaming store
    avoids. A name used any other way (read, updated with +=, passed on) counts as read."""
    out = []
    body = body[body.find("{") + 1:]  # the statements, not the parameter list
    for name in names:
        uses = [m.start() for m in re.finditer(rf"\b{re.escape(name)}\b", body)]
        plain = re.compile(rf"{re.escape(name)}\s*\[[^\[\]]*(?:\[[^\[\]]*\][^\[\]]*)*\](?:\s*\[[^\[\]]*\])*\s*=(?!=)")
        if uses and all(plain.match(body, u) for u in uses):
            out.append(name)
    return out


_OMP_FOR_LOOP = re.compile(r"#\s*pragma\s+omp\s+(?:parallel\s+)?for\b[^\n]*\n\s*for\s*\(([^;]*);([^;]*);")
_INNER_FOR = re.compile(r"for\s*\([^;]*;([^;]*);")


def uneven_loop(body: str) -> dict | None:
    """A worksharing loop whose body holds a loop with a bound that depends on the shared loop's variable (a
    triangle: ``for (j = 0; j <= i; j++)``): {var, bound, read}, ``read`` where the bound is an element read at
    that variable (a sparse row's end, ``k < ptr[i + 1]``: the work follows the data, not the index); None when
    there is none (or it cannot be read)."""
    m = _OMP_FOR_LOOP.search(body)
    if not m:
        return None
    var = re.search(r"(\w+)\s*=", m.group(1))
    if not var:
        return None
    v = var.group(1)
    rest = body[m.end():m.end() + 4000]
    for inner in _INNER_FOR.finditer(rest):
        cond = inner.group(1).strip()
        if re.search(rf"\b{re.escape(v)}\b", cond):
            read = bool(re.search(rf"\w\s*\[[^\]]*\b{re.escape(v)}\b[^\]]*\]", cond))
            return {"var": v, "bound": cond, "read": read}
    return None


_TID = re.compile(r"\b(\w+)\s*=\s*omp_get_thread_num\s*\(\s*\)")
# a write to one element of an array: x[i] = / op= / ++ / -- (a row's element, x[i][j], and a struct's field,
# x[i].f, as well)
_BRACKET = r"\[((?:[^\[\]]|\[[^\[\]]*\])*)\]"  # an index, which may hold one level of brackets (x[idx[i]])
_ELEMENT_WRITE = re.compile(rf"(?:(?:\+\+|--)\s*)?\b(\w+)\s*{_BRACKET}((?:\s*{_BRACKET})*)(\s*\.\s*\w+)?\s*"
                            r"(?:[-+*/|&^]?=(?!=)|\+\+|--)")


_LOOP = re.compile(r"\b(?:for|while)\s*\(([^{}]*)\)\s*$")
_SHORT_TRIP = re.compile(r"<=?\s*(\d+)\s*;")  # a bound that is a small constant: for (b = 0; b < 8; b++)
SHORT_TRIP = 64


def _open_heads(body: str, pos: int) -> list[str]:
    """The text before each brace still open at ``pos`` (up to 300 characters: a loop's head, when it is one),
    outermost first."""
    stack: list[str] = []
    for i in range(pos):
        if body[i] == "{":
            stack.append(body[max(0, i - 300):i])
        elif body[i] == "}" and stack:
            stack.pop()
    return stack


def _in_loop(body: str, pos: int) -> bool:
    """Whether the statement at ``pos`` runs in a loop of many iterations: inside the braces of a for or while, or
    the single statement of one, whose bound is not a small constant."""
    def long_loop(head: str) -> bool:
        m = _LOOP.search(head)
        if not m:
            return False
        short = _SHORT_TRIP.search(m.group(1) + ";")
        return not (short and int(short.group(1)) <= SHORT_TRIP)

    if any(long_loop(head) for head in _open_heads(body, pos)):
        return True
    start = max(body.rfind(";", 0, pos), body.rfind("{", 0, pos), body.rfind("}", 0, pos))
    # a loop header just before the statement (its own ';'s are inside its parentheses)
    head = body[max(0, start - 300):pos]
    m = re.search(r"\b(?:for|while)\s*\([^{}]*\)\s*$", head)
    return bool(m) and long_loop(head[:m.end()])


_PARALLEL = re.compile(r"#\s*pragma\s+omp\s+parallel\b")
_FOR_COND = re.compile(r"\bfor\s*\(([^;]*);([^;]*);[^)]*\)\s*$")


def regions_in_loops(body: str) -> list[list[dict]]:
    """For each parallel region of a function body, the for loops it is nested in, outermost first, as {var,
    start, bound, inclusive} read from their heads (``for (t = 0; t < steps; t++)``): a region inside a loop is
    entered at each of its iterations. A loop whose head cannot be read is {"var": None}."""
    out = []
    for m in _PARALLEL.finditer(body):
        loops = []
        for head in _open_heads(body, m.start()):
            h = re.search(r"\b(?:for|while)\s*\(.*\)\s*$", head, re.S)
            if not h:
                continue
            f = _FOR_COND.search(head)
            cond = re.match(r"\s*(\w+)\s*(<=?)\s*(.+?)\s*$", f.group(2)) if f else None
            init = re.search(r"(\w+)\s*=\s*(.+?)\s*$", f.group(1)) if f else None
            if cond and init and init.group(1) == cond.group(1):
                loops.append({"var": cond.group(1), "start": init.group(2), "bound": cond.group(3),
                              "inclusive": cond.group(2) == "<="})
            else:
                loops.append({"var": None})
        out.append(loops)
    return out


def regions_per_call(loops: list[list[dict]], scalars: dict) -> int | None:
    """How many times one call enters its parallel regions: each region once per iteration of the loops around it
    (their bounds evaluated with the call's scalar arguments); None when a bound cannot be read or evaluated."""
    total = 0
    for nest in loops:
        n = 1
        for lp in nest:
            k = trips(lp, scalars) if lp.get("var") is not None else None
            if k is None:
                return None
            n *= k
        total += n
    return total


def thread_slots(body: str) -> list[dict]:
    """Arrays the threads of a parallel region write one element each of, inside a loop (``sum[tid] += ...``
    where tid = omp_get_thread_num()): neighbouring elements share a cache line, which then moves between the
    threads' caches at every write (false sharing). [{array, index}]; empty where there are none."""
    if not re.search(r"#\s*pragma\s+omp\s+parallel", body):
        return []
    tids = set(_TID.findall(body))
    out: list[dict] = []
    for m in _ELEMENT_WRITE.finditer(body):
        name, index = m.group(1), m.group(2)
        by_thread = "omp_get_thread_num" in index or any(re.search(rf"\b{re.escape(t)}\b", index) for t in tids)
        if by_thread and _in_loop(body, m.start()) and all(o["array"] != name for o in out):
            out.append({"array": name, "index": index.strip()})
    return out


def code_evidence(spec: KernelSpec, lib: Library, machine: dict) -> dict:
    """The compiled hot loop of the user's function (audit and detail), the compiler's vectorization remarks for
    it with their causes, and an in-core prediction where an analyzer models this core."""
    isa = machine["isa"]
    where = spec.audit_function or spec.function
    out = {"function": spec.function, "isa_vector_bits": isa.get("vector_bits", 0),
           "build": {"flags": list(lib.flags), "profile": spec.profile, "openmp": spec.openmp},
           **loop_evidence(lib, where, machine)}
    # read in the function the loop is in: the kernel's, or a helper it calls whose loop does the work
    return {**out, **scoped_evidence(spec, lib, out.get("loop_function") or where, out.get("loop_at"))}


def scoped_evidence(spec: KernelSpec, lib: Library, where: str, loop_at: list[int] | None) -> dict:
    """What the source and the compiler say about the hot loop at ``loop_at``, in the compiled function ``where``
    (the kernel's, a body outlined from it, a helper's clone): the pragmas and loop facts of its nest in the source
    function it comes from, the compiler's remarks on its lines."""
    said = remark_evidence(spec, lib, where, loop_at, [])
    pragmas = _pragmas(spec, said["loop_lines"], source_function(where))
    if pragmas.get("loaded_bounds"):
        said = remark_evidence(spec, lib, where, loop_at, pragmas["loaded_bounds"])
    return {"pragmas": pragmas, **said}


@functools.lru_cache(maxsize=32)
def _remarks_and_lines(cc, source: Path, flags: tuple[str, ...], library: str, where: str) -> tuple | None:
    """Every remark the compiler makes on the source built as the library was, and the source line of each
    instruction of ``where`` (and of the bodies outlined from it) in the library, by address."""
    with tempfile.TemporaryDirectory(prefix="rooflab-lines-") as d:
        obj = Path(d) / "kernel.o"
        found = remarks_and_object(cc, source, flags, [source.parent], obj)
        if found is None:
            return None
        try:
            table = line_table(obj, library, (where, *outlined_from(library, where)), source.name) \
                if obj.exists() else {}
        except RooflabError:
            table = {}
    return found[0], found[1], table


def remark_evidence(spec: KernelSpec, lib: Library, where: str, loop_at: list[int] | None,
                    loaded: list[dict]) -> dict:
    """The compiler's remarks about the hot loop in the compiled function ``where`` (those on the source lines its
    instructions come from; about the whole source function where those lines are unknown), their causes, the loop's
    lines and how many of the function's remarks are about its other loops."""
    found = _remarks_and_lines(lib.compiler, spec.source, tuple(f for f in lib.flags if not f.startswith("-I")),
                               str(lib.path), where)
    if found is None:
        return {"remarks": [], "causes": [], "loop_lines": [], "remarks_elsewhere": 0}
    said, dump, table = found
    try:
        span = function_lines(spec.source.read_text(encoding="utf-8", errors="replace"), source_function(where))
    except OSError:
        span = None
    return loop_remarks(said, dump, loop_lines(table, *loop_at) if loop_at and table else [], span, loaded)


def loop_remarks(said: list[Remark], dump: list[Remark], lines: list[int], span: tuple[int, int] | None,
                 loaded: list[dict]) -> dict:
    """The remarks on the hot loop's source ``lines`` (those within the function's ``span`` where the lines are
    unknown), their causes, and how many of the function's other remarks are about its other loops."""
    def in_function(r: Remark) -> bool:
        return span is None or span[0] <= r.line <= span[1]

    remarks = scoped(said, dump, (lambda r: r.line in lines) if lines else in_function)
    elsewhere = sum(1 for r in said if lines and in_function(r) and r.line not in lines and r.kind != "note")
    return {"remarks": [r.to_dict() for r in remarks], "causes": loop_causes(remarks, loaded), "loop_lines": lines,
            "remarks_elsewhere": elsewhere}


def loop_causes(remarks: list, loaded: list[dict]) -> list[str]:
    """The causes the compiler's remarks name, and aliasing where it could not count the iterations of a loop whose
    bound is read from memory that the loop's stores could reach (``loaded``: :func:`loaded_bounds`)."""
    causes = causes_of(remarks)
    if loaded and "aliasing" not in causes and any(r.kind == "missed" and _UNCOUNTED.search(r.text)
                                                   for r in remarks):
        causes.append("aliasing")
    return causes


def loop_evidence(lib: Library, where: str, machine: dict, samples: dict | None = None) -> dict:
    """The hot loop of ``where`` (audit, detail, its byte addresses and an in-core prediction), or why there is
    none. ``samples``: where a profiler found the time (per function, samples per byte offset); the hot loop is
    then the loop they fall in."""
    out = {"loop": None, "audit": None, "prediction": None}
    try:
        found = hot_loop_in(lib.path, where, samples=samples)
    except RooflabError as exc:
        return {**out, "audit_error": str(exc)}
    if found is None:
        return {**out, "audit_error": f"{where} has no loop in its compiled code"}
    name, insns, audit, detail = found
    return {"audit": audit.to_dict(), "loop": detail.to_dict(),
            "loop_at": [audit.start, audit.end],  # byte addresses in the library: which loop this is
            # the function the loop is in: the kernel's, one outlined from it, or one it calls where the time went
            "loop_function": name,
            "prediction": _prediction(insns, audit, machine.get("uarch") or {}, machine["isa"])}


def inner_loop_share(lib: Library, samples: dict[str, dict[int, int]]) -> float | None:
    """The share of the kernel's samples that fall inside an innermost loop of its functions: low when the time
    goes to loop set-up, remainders and outer loops (short inner trip counts)."""
    inside = total = 0
    for name, offsets in samples.items():
        try:
            a, b = inner_share(disassemble(lib.path, name), offsets)
        except RooflabError:
            continue
        inside, total = inside + a, total + b
    return inside / total if total else None


def _prediction(insns, audit, uarch: dict, isa: dict) -> dict:
    """llvm-mca's prediction for the loop; with divisions in it, also for the same loop with them made
    multiplications (``cycles_without_div``): how much of its time the divisions alone set."""
    text = loop_assembly(insns, audit)
    try:
        out = predict(text, uarch.get("name", ""), isa.get("arch", "x86_64"))
    except NoPrediction as exc:
        return {"error": str(exc)}
    plain = without_division(text) if isa.get("arch", "x86_64") == "x86_64" else None
    if plain:
        try:
            out["cycles_without_div"] = predict(plain, uarch.get("name", ""), "x86_64")["cycles_per_iteration"]
        except (NoPrediction, KeyError):
            pass
    return out


def sibling_prediction(spec: KernelSpec, machine: dict, where: str | None = None
                       ) -> tuple[KernelSpec, Library, dict] | None:
    """Where the analyzer cannot read the loop's AVX-512 forms: the same kernel built without AVX-512, and the
    prediction for that build's loop (the busiest of ``where``, the function the hot loop is in; measured beside it
    by the caller); None when that does not help."""
    if "avx512f" not in read(Isa, machine.get("isa")).features:
        return None
    twin = dataclasses.replace(spec, flags=[*spec.flags, "-mno-avx512f"])
    try:
        lib = build_spec(twin)
        found = hot_loop_of(lib.path, where or spec.audit_function or spec.function)
    except RooflabError:
        return None
    if found is None:
        return None
    insns, audit, detail = found
    pred = _prediction(insns, audit, machine.get("uarch") or {}, machine["isa"])
    if "error" in pred:
        return None
    pred["loop"] = detail.to_dict()
    return twin, lib, pred


STREAM_MATCH = 0.02  # a walked address covers an array when iterations times its step is within this of its size


def walked_iterations(streams: list[int], arrays: list[int], near: float | None = None) -> float | None:
    """The iterations of a function's only loop from the arrays it walks: the count N for which the most of its
    streams (each moving ``s`` bytes per iteration) cover an array (N * s within STREAM_MATCH of one's bytes); of
    counts alike, the nearest to ``near``. None where no stream covers an array."""
    best: tuple | None = None
    for a in arrays:
        for s in set(streams):
            n = a / s
            if n < 1:
                continue
            covered = sum(1 for s2 in streams if any(abs(n * s2 - b) <= STREAM_MATCH * b for b in arrays))
            key = (covered, -abs(math.log(n / near)) if near else n)
            if best is None or key > best[0]:
                best = (key, n)
    return best[1] if best else None


def cycles_per_iteration(time_s: float, clock_hz: float | None, loop: dict | None, flops: float,
                         nbytes: float, arrays: list[int] | None = None) -> tuple[float | None, float | None]:
    """(measured cycles per iteration of the hot loop, iterations per call): the iterations from the work the spec
    counts over the work one iteration does (FLOPs); for a loop of no floating-point work, the function's only
    loop, from the arrays (``arrays``: their bytes) its addresses walk, else from the bytes; None where unknown.
    (A byte count is only as good as the spec's model and the loop's: a CRC's table lookups, which no model of its
    traffic counts, made a byte a CRC read 5 bytes an iteration, and its 7.6 cycles a byte read 36.)"""
    if not (loop and clock_hz and time_s):
        return None, None
    byte_iters = nbytes / loop["bytes"] if nbytes and loop.get("bytes") else None
    walked = walked_iterations(loop.get("streams") or [], arrays, byte_iters) if arrays else None
    if flops and loop.get("flops"):
        iters = flops / loop["flops"]
    elif walked:
        iters = walked
    elif byte_iters:
        iters = byte_iters
    else:
        return None, None
    return (time_s * clock_hz / iters if iters >= 1 else None), iters


CACHEGRIND_SLOWDOWN = 100  # cachegrind runs a kernel 20 to 100 times slower than natively
TRAFFIC_BUDGET_S = 6.0  # the most one count may take; beyond it, a smaller size in the same level is counted
# the count is stopped past this: the estimate above can be far off (a vectorized GEMM ran 8x longer than it said)
TRAFFIC_TIMEOUT_S = 2 * TRAFFIC_BUDGET_S
TRAFFIC_MIN_S = 2.0  # a count that may not take this long (the kernel's time budget nearly spent) is not started
LEVEL_NUMBER = {"L1": 1, "L2": 2, "L3": 3}


def traffic_tells(row: dict) -> bool:
    """Whether counting the memory traffic can tell something here: the kernel is below its roof, bound by memory
    (is it strided, or re-reading its data?) or by compute (is it re-fetching operands it could reuse: missing
    blocking?). A roof-level kernel's traffic explains nothing; a working set in L1 has no traffic to count."""
    if row.get("bound") not in ("memory", "compute") or row.get("level") in (None, "L1"):
        return False
    every = read(AllThreads, row["all_threads"]) if row.get("all_threads") else None
    return not ((row.get("of_roof") or 0) >= 0.8 and (every is None or (every.of_roof or 0) >= 0.8))


def faster_cache_bytes(row: dict) -> float:
    """The capacity of the cache just faster than the level that holds a row's working set (0 for L1, or where it
    is not known): arrays a good deal larger than it still live in that level."""
    caps = row.get("caches") or {}
    faster = {"L2": "L1", "L3": "L2", "DRAM": "L3" if caps.get("L3") else "L2"}.get(row.get("level") or "")
    return float(caps.get(faster) or 0.0) if faster else 0.0


def counted_size(spec: KernelSpec, size: dict, row: dict) -> tuple[dict, str | None]:
    """The size to count the traffic at: the measured one when cachegrind would take under TRAFFIC_BUDGET_S, else
    the size variables scaled down together while the arrays stay more than 1.5x the cache just faster than the
    level that holds them (so the data still lives in the same level), with why."""
    est = row["time_s"] * CACHEGRIND_SLOWDOWN * 2
    if est <= TRAFFIC_BUDGET_S and row["working_set_bytes"] <= TRAFFIC_MAX_BYTES:
        return size, None

    level = row.get("level")
    floor = 1.5 * faster_cache_bytes(row)
    flops = spec.work(size)[0] or 1.0
    target = min(float(row["working_set_bytes"]), float(TRAFFIC_MAX_BYTES))
    while target > floor:
        target /= 1.5
        small = scaled_size(spec, size, max(target, floor))
        if small is None:
            break
        if row["time_s"] * (spec.work(small)[0] or flops) / flops * CACHEGRIND_SLOWDOWN * 2 <= TRAFFIC_BUDGET_S \
                and spec.array_bytes(small) <= TRAFFIC_MAX_BYTES:
            return small, msg("counted at {size} (its arrays {ws}, still in {level}): at the size measured cachegrind "
                              "would take about {t:.0f} s", size=" ".join(f"{k}={v}" for k, v in small.items()),
                              ws=binary_bytes(spec.array_bytes(small)), level=level, t=est)
    return {}, msg("not counted: cachegrind would take about {t:.0f} s at this size, and no smaller size keeps the "
                   "data in {level}", t=est, level=level)


def traffic(spec: KernelSpec, size: dict, machine: dict, progress, row: dict,
            timeout_s: float = TRAFFIC_TIMEOUT_S) -> dict:
    """Memory traffic per call implied by the counted misses, against the bytes the spec's model counts, at each
    level: ``l1_bytes`` (D1 misses: what L1 fetched), ``ll_bytes`` (misses of the simulated last level
    ``ll_level``), and ``holding_bytes``, the traffic out of the level that holds the working set (for data in L2,
    what L1 fetched; in L3, what L2 fetched, from a simulation whose last level is L2; in DRAM, what the last level
    fetched). The spec's byte model is read as the traffic from that level: far more than it means lines brought
    in and not used (strided access) or operands fetched again (missing reuse); extra D1 traffic alone is data
    reused from a faster level than the one holding the working set."""
    at, note = counted_size(spec, size, row)
    if not at:
        return {"skipped": note}
    level = row.get("level")
    last = 2 if level == "L3" else None
    try:
        c = count_kernel(spec, at, 2, machine, hotspots=False, progress=progress, last_level=last,
                         timeout_s=timeout_s)
    except ToolTimeout:
        return {"skipped": msg("not counted: cachegrind did not finish within {t:.0f} s at {size}", t=timeout_s,
                               size=" ".join(f"{k}={v}" for k, v in at.items()))}
    except RooflabError as exc:
        return {"error": str(exc)}
    model = spec.work(at)[1]
    cnt = c["counters"]
    caches = machine.get("cache_details") or []
    ll_level = max((cc["level"] for cc in caches if cc["type"] in ("Data", "Unified") and cc["level"] > 1
                    and (last is None or cc["level"] <= last)), default=None)
    if c["method"] == "cachegrind":
        l1, ll = cnt.get("l1_traffic_bytes"), cnt.get("dram_traffic_bytes")
    else:
        l1, ll = None, read(Derived, c.get("derived")).miss_traffic_bytes_per_call
    holding = {"L2": l1, "L3": ll if last == 2 else None, "DRAM": ll if last is None else None}.get(level)
    out = {"method": c["method"], "l1_bytes": l1, "ll_bytes": ll, "ll_level": f"L{ll_level}" if ll_level else None,
           "dram_bytes": ll if last is None else None, "model_bytes": model,
           "l1_ratio": l1 / model if l1 and model else None,
           "dram_ratio": ll / model if ll and model and last is None else None,
           "holding_level": level, "holding_bytes": holding,
           "holding_ratio": holding / model if holding is not None and model else None,
           "flops": spec.work(at)[0], "line_bytes": c.get("line_bytes"), "note": c.get("driver_note")}
    if at != size:
        out.update(size=at, reduced=note)
    return out


def measure_size(session, spec: KernelSpec, lib: Library, size: dict, roofs_one: dict, roofs_all: dict | None,
                 quick: bool) -> dict:
    """Time one size (checked first), place it on the roofline of the threads it was declared for and of all the
    CPUs, with its working set against the caches."""
    label = f"{spec.name} " + " ".join(f"{k}={v}" for k, v in size.items())
    out = session.run_until_quiet(task(spec, lib, size, label), config_for(spec, quick), timeout_s=spec.timeout)
    flops, nbytes = spec.work(size)
    caps = cache_capacities(session.machine, spec.threads)
    row = {"size": size, "label": label, "flops": flops, "bytes": nbytes,
           "working_set_bytes": working_set(spec, lib, size), "arrays_bytes": spec.arrays_bytes(size),
           "rel_error": out.rel_error, "checked": bool(spec.check), "caches": caps}
    if out.output:  # what the kernel printed, and what the worker put back after it
        row["output"] = out.output
    if not out.ok:
        row.update(error=out.error, error_kind=out.error_kind)
        return row
    row["cpus_busy"] = out.cpus_busy
    out.judge(row)  # others_cores: what other processes and the host's steal took meanwhile is not idle CPU time
    if out.subnormals:
        row["subnormals"] = out.subnormals
    row["timing"] = out.timing.to_dict()
    place_row(session, row, roofs_one, roofs_all)
    return row


def place_row(session, row: dict, roofs_one: dict, roofs_all: dict | None) -> None:
    """A measured size on the roofline of the threads it was declared for, and of all the CPUs (again, when the
    roofs changed: the hot loop found by sampling accesses memory another way than the one first read)."""
    t = Timing.from_dict(row["timing"])
    timed_row(row, row["flops"], row["bytes"], t, roofs_one, row["caches"], [])
    row.pop("all_threads", None)
    if roofs_all is not None and row.get("intensity"):
        p = place(row["flops"], row["bytes"], row["time_s"], row["working_set_bytes"], roofs_all,
                  cache_capacities(session.machine, roofs_all["threads"]))
        if p.get("of_roof") is not None:
            row["all_threads"] = {"threads": roofs_all["threads"], "roof_flops_per_s": p["roof_flops_per_s"],
                                  "of_roof": p["of_roof"], "level": p["level"]}


def access_kinds(code: dict) -> tuple[str, ...] | None:
    """The bandwidth kernels whose ceilings bound a loop with these memory accesses: only loads, the read kernels;
    streaming stores, the non-temporal kernels; ordinary stores (which read each line first), copy and triad (see
    :func:`roofs_for` for DRAM)."""
    audit = code.get("audit") or {}
    if not audit or not (audit.get("loads") or audit.get("stores")):
        return None
    if not audit.get("stores"):
        return ("read", "read_nt")
    if audit.get("nt_stores"):
        return ("copy_nt", "triad_nt")
    return ("copy", "triad")


def reference_kind(code: dict) -> str | None:
    """rooflab's bandwidth kernel nearest to the loop's accesses, to alternate it with: read for loads only, triad
    for two or more loads with stores, copy for one; None for streaming stores (not among the references) or an
    unknown loop."""
    audit = code.get("audit") or {}
    kinds = access_kinds(code)
    if not kinds or audit.get("nt_stores"):
        return None
    if kinds[0] == "read":
        return "read"
    return "triad" if (audit.get("loads") or 0) >= 2 else "copy"


def roofs_for(roofline: list[dict] | None, spec: KernelSpec, cpus: int, kinds: tuple[str, ...] | None = None,
              code: dict | None = None) -> tuple[dict, dict | None]:
    """The roofs at the kernel's declared thread count, and at all the CPUs (None when those are the same), the
    memory roofs from the bandwidth kernels that access memory as the loop does.

    copy and triad count the bytes a program asks for; with ordinary stores their DRAM traffic is a third (triad: a
    quarter) more, as each line written is read first. A loop that reads every array it writes (``a[i] += ...``)
    wastes no such read: every byte it moves is one it counts, as with streaming stores, so its DRAM roof is the
    streaming-store kernels' (``code`` tells which arrays it only writes)."""
    one = roofs_at(roofline, spec.threads, spec.precision, kinds)
    every = roofs_at(roofline, cpus, spec.precision, kinds) if cpus > spec.threads else None
    if roofline and kinds == ("copy", "triad") and code is not None and \
            not read(Pragmas, code.get("pragmas")).write_only:
        for roofs, t in ((one, spec.threads), (every, cpus)):
            if roofs is not None:
                _dram_from(roofs, roofs_at(roofline, t, spec.precision, ("copy_nt", "triad_nt")))
    return one, every


def _dram_from(roofs: dict, other: dict) -> None:
    """``roofs`` with its DRAM roof replaced by ``other``'s where that one is higher."""
    new = next((m for m in other["memory"] if m["level"] == "DRAM"), None)
    for i, m in enumerate(roofs["memory"]):
        if m["level"] == "DRAM" and new and new["value"] > m["value"]:
            roofs["memory"][i] = new
