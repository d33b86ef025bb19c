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
    details = ["-fdump-tree-vect-details=stdout"] if cc.kind == "gcc" else []
    cmd = [*cc.argv, "-c", "-o", "/dev/null", *[f"-I{d}" for d in include_dirs], *flags, *report_flags(cc), *details,
           str(path)]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return []
    if details:  # the report on stderr, the vectorizer's dump on stdout
        found = parse_remarks(r.stderr, path.name, lines)
        return (found[:limit - 2] + alias_details(r.stdout, path.name, lines))[:limit]
    return parse_remarks(r.stderr + r.stdout, path.name, lines)[:limit]


# gcc's -fopt-info says nothing about a loop it gives up on for want of alias checks: its vectorizer dump does
_ALIAS_DETAIL = re.compile(r"run-time tests exceeds|versioning for alias required|bad data dependence|"
                           r"possible dependence between data-refs", re.I)


def alias_details(dump: str, source_name: str, lines: tuple[int, int] | None, keep: int = 2) -> list[Remark]:
    """At most ``keep`` of the vectorizer dump's lines about aliasing (gcc ``-fdump-tree-vect-details``), one per
    kind of message, as missed remarks."""
    out, kinds = [], set()
    for r in parse_remarks(dump, source_name, lines):
        if r.kind != "missed" or not _ALIAS_DETAIL.search(r.text):
            continue
        kind = _ALIAS_DETAIL.search(r.text).group(0).lower()
        if kind in kinds:
            continue
        kinds.add(kind)
        out.append(Remark(r.line, "missed", re.sub(r"\s+", " ", r.text)))
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


def causes_of(remarks: Sequence[Remark]) -> list[str]:
    """The causes the missed remarks name (aliasing, reduction, stride, call, control_flow, cost), and aliasing
    too when a loop had to be versioned for it."""
    out = []
    for r in remarks:
        if r.kind == "vectorized" and not re.search(r"alias", r.text, re.I):
            continue
        for cause, pat in CAUSES:
            if pat.search(r.text) and cause not in out:
                out.append(cause)
    return out
