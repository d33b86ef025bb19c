"""What the compiler says about vectorizing a function: its optimization remarks (gcc ``-fopt-info-vec-all``, clang
``-Rpass=loop-vectorize -Rpass-missed=loop-vectorize -Rpass-analysis=loop-vectorize``), each with its source line,
kept for the lines of one function. The source is compiled once more, to nothing, with the flags of the build."""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from rooflab.toolchain.compiler import Compiler


@dataclass(frozen=True)
class Remark:
    line: int
    kind: str  # "vectorized", "missed" or "note"
    text: str

    def to_dict(self) -> dict:
        return {"line": self.line, "kind": self.kind, "text": self.text}


def report_flags(cc: Compiler) -> list[str]:
    if cc.kind == "clang":
        return ["-Rpass=loop-vectorize", "-Rpass-missed=loop-vectorize", "-Rpass-analysis=loop-vectorize"]
    return ["-fopt-info-vec-all"]


def blank_comments(source: str) -> str:
    """C source with its block comments blanked out, their lines kept (so line numbers still hold)."""
    return re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), source, flags=re.S)


def function_lines(source: str, name: str) -> tuple[int, int] | None:
    """The first and last line of the definition of function ``name`` in C source text (its name, the parameter
    list, then a brace-matched body); None when it is not defined there."""
    text = blank_comments(source)
    text = re.sub(r"//[^\n]*", "", text)
    for m in re.finditer(rf"\b{re.escape(name)}\s*\(", text):
        depth, i = 0, m.end() - 1
        while i < len(text):  # the parameter list
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
            if depth == 0:
                break
        rest = text[i:]
        brace = re.match(r"\s*\{", rest)
        if not brace:
            continue  # a declaration or a call
        j, depth = i + brace.end() - 1, 0
        while j < len(text):
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            if depth == 0:
                break
            j += 1
        return text.count("\n", 0, m.start()) + 1, text.count("\n", 0, j) + 1
    return None


_REMARK = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):\d+: (?P<kind>optimized|missed|note|remark|warning): "
                     r"(?P<text>.*)$")


_LIBM_CLOBBER = re.compile(r"clobbers memory:.*?=\s*(?:__builtin_)?(?:sqrt|exp|log|sin|cos|tan|pow|atan|erf|cbrt|"
                           r"hypot|fmod)f?\s*\(")


def parse_remarks(output: str, source_name: str, lines: tuple[int, int] | None) -> list[Remark]:
    """The remarks of ``source_name`` within ``lines``, vectorized ones first, without repeats or noise."""
    done, missed, notes = [], [], []
    seen = set()
    for raw in output.splitlines():
        m = _REMARK.match(raw.strip())
        if not m or Path(m.group("file")).name != source_name:
            continue
        ln, text = int(m.group("line")), m.group("text").strip()
        if lines and not (lines[0] <= ln <= lines[1]):
            continue
        text = re.sub(r"\s*\[-R\S+\]$", "", text)
        if (ln, text) in seen or text.startswith("*****") or ("clobbers memory" in text and
                                                               not _LIBM_CLOBBER.search(text)):
            continue  # a call that may write memory is noise, except a libm call kept for errno: that is the cause
        seen.add((ln, text))
        low = text.lower()
        if m.group("kind") == "optimized" or low.startswith(("vectorized loop", "loop vectorized")):
            done.append(Remark(ln, "vectorized", text))
        elif m.group("kind") == "missed" or "not vectorized" in low or "couldn't vectorize" in low:
            missed.append(Remark(ln, "missed", text))
        elif "vectorized 0 loops" not in low:
            notes.append(Remark(ln, "note", text))
    return done + missed + notes


def _remarks_run(cc: Compiler, path: Path, flags: Sequence[str], include_dirs: Sequence[Path], output: str,
                 extra: Sequence[str] = ()) -> tuple[list[Remark], list[Remark]] | None:
    """Compile ``path`` to ``output`` with the remarks on: every remark of the file, and the vectorizer dump's lines
    about aliasing (gcc); None when the compiler could not be run."""
    details = ["-fdump-tree-vect-details=stdout"] if cc.kind == "gcc" else []
    cmd = [*cc.argv, "-c", "-o", output, *[f"-I{d}" for d in include_dirs], *flags, *extra, *report_flags(cc),
           *details, str(path)]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if details:  # the report on stderr, the vectorizer's dump on stdout
        return parse_remarks(r.stderr, path.name, None), alias_details(r.stdout, path.name, None, keep=None)
    return parse_remarks(r.stderr + r.stdout, path.name, None), []


def compiler_remarks(cc: Compiler, source: Path, flags: Sequence[str], function: str | None = None,
                     include_dirs: Sequence[Path] = (), limit: int = 12,
                     lines: tuple[int, int] | None = None) -> list[Remark]:
    """The compiler's vectorization remarks about ``function`` (or the source ``lines``; all of the file when
    neither) built with ``flags``."""
    path = Path(source)
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    if lines is None and function:
        lines = function_lines(text, function)
    found = _remarks_run(cc, path, flags, include_dirs, "/dev/null")
    if found is None:
        return []
    return scoped(*found, lambda r: lines is None or lines[0] <= r.line <= lines[1], limit)


def scoped(remarks: Sequence[Remark], alias: Sequence[Remark], keep, limit: int = 12) -> list[Remark]:
    """The remarks ``keep`` accepts, at most ``limit``, the last two places kept for the dump's aliasing lines."""
    said = [r for r in remarks if keep(r)]
    return (said[:limit - 2] + _first_per_kind([r for r in alias if keep(r)], 2))[:limit]


def remarks_and_object(cc: Compiler, source: Path, flags: Sequence[str], include_dirs: Sequence[Path],
                       obj: Path) -> tuple[list[Remark], list[Remark]] | None:
    """Every vectorization remark of ``source`` built with ``flags`` and the vectorizer dump's aliasing lines (see
    :func:`scoped`), the object written to ``obj`` with line tables (``-g``, which leaves the code as it is): which
    source lines each instruction comes from tells which remarks are about a given loop."""
    return _remarks_run(cc, Path(source), flags, include_dirs, str(obj), ("-g",))


# gcc's -fopt-info says nothing about a loop it gives up on for want of alias checks: its vectorizer dump does
_ALIAS_DETAIL = re.compile(r"run-time tests exceeds|versioning for alias required|bad data dependence|"
                           r"possible dependence between data-refs", re.I)


def alias_details(dump: str, source_name: str, lines: tuple[int, int] | None, keep: int | None = 2) -> list[Remark]:
    """The vectorizer dump's lines about aliasing (gcc ``-fdump-tree-vect-details``), as missed remarks: at most
    ``keep``, one per kind of message (every one of them with None)."""
    out = [Remark(r.line, "missed", re.sub(r"\s+", " ", r.text)) for r in parse_remarks(dump, source_name, lines)
           if r.kind == "missed" and _ALIAS_DETAIL.search(r.text)]
    return out if keep is None else _first_per_kind(out, keep)


def _first_per_kind(remarks: Sequence[Remark], keep: int) -> list[Remark]:
    out, kinds = [], set()
    for r in remarks:
        kind = _ALIAS_DETAIL.search(r.text).group(0).lower()
        if kind not in kinds:
            kinds.add(kind)
            out.append(r)
        if len(out) >= keep:
            break
    return out


# the compilers' words for what blocked or limited vectorization, as a structured cause (explain reads these)
CAUSES = (
    ("aliasing", re.compile(r"alias|versioned for vectori[sz]ation because of possible|dependence distance|"
                            r"bad data dependence|unsafe dependent memory|cannot identify array bounds", re.I)),
    ("reduction", re.compile(r"reduction|reassociat|unsafe fp math|in-order|fold.left|floating.point.*ordered", re.I)),
    ("stride", re.compile(r"stride|non-consecutive|not consecutive|gather|complicated access pattern|"
                          r"strided access", re.I)),
    ("call", re.compile(r"call|function calls|library call", re.I)),
    ("control_flow", re.compile(r"control flow|conditional|if-conver|early exit|unsupported control", re.I)),
    ("cost", re.compile(r"not beneficial|cost model|vectorization is not profitable", re.I)),
)


_BETWEEN = re.compile(r"dependence between (.+?) and (.+?)\s*$")


def within_one_array(text: str) -> bool:
    """Whether a remark's dependence is between two elements of one array (gcc: "can't determine dependence between
    (*perm)[i] and (*perm)[_15]", an in-place reversal): no restrict can tell those apart, they are the same
    object. A base the compiler names by a temporary alone (``*_3``) may be any object: not known to be one."""
    m = _BETWEEN.search(text)
    if not m:
        return False
    a, b = (re.match(r"[^\[]+", x.strip()) for x in m.groups())
    if not (a and b and a.group(0) == b.group(0)):
        return False
    name = re.sub(r"[()*\s]", "", a.group(0))
    return bool(re.match(r"[A-Za-z_]", name)) and not re.fullmatch(r"_\d+(?:\(D\))?", name)


def causes_of(remarks: Sequence[Remark]) -> list[str]:
    """The causes the missed remarks name (aliasing, reduction, stride, call, control_flow, cost), and aliasing
    too when a loop had to be versioned for it; not aliasing where every dependence they name is between elements
    of one array (the versioning is for that overlap, which restrict cannot lift)."""
    named = [within_one_array(r.text) for r in remarks if _BETWEEN.search(r.text)]
    one_array = bool(named) and all(named)
    out = []
    for r in remarks:
        if r.kind == "vectorized" and not re.search(r"alias", r.text, re.I):
            continue
        for cause, pat in CAUSES:
            if pat.search(r.text) and cause not in out and not (cause == "aliasing" and one_array):
                out.append(cause)
    return out
