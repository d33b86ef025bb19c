"""Loop interchange in a copy of a kernel's source: each rectangular nest of ``for`` loops whose innermost loop
walks an array by rows (a column walk) is reordered so that the loop variable most accesses step through by one
element runs innermost, and the one that steps by rows outermost (j-k-i and k-i-j products become i-k-j).

Only nests that can be reordered by moving their headers and distributing the statements between them are (see
_reordered): each loop's bounds name no other loop variable of the nest, no loop variable is assigned in the body,
and no OpenMP pragma lies in or right before the nest. Whether the reordering keeps the result is not decided here:
the experiment compares the copy's outputs with the original's on the same inputs, and reports a copy that differs
as wrong."""

from __future__ import annotations

import re
from dataclasses import dataclass

from rooflab.toolchain.remarks import function_lines

_FOR = re.compile(r"\bfor\s*\(")
_HEAD = re.compile(r"\s*(?:[A-Za-z_][\w\s\*]*?\s+)?([A-Za-z_]\w*)\s*=\s*[^;]+;\s*\1\s*(?:<|<=|!=|>|>=)\s*[^;]+;"
                   r"\s*(?:\1\s*(?:\+\+|--|[+-]=\s*[^;]+)|(?:\+\+|--)\s*\1)\s*", re.S)
_DECL = re.compile(r"(?:const\s+)?(?:unsigned\s+|signed\s+|long\s+|short\s+)*[A-Za-z_]\w*\s+([A-Za-z_]\w*)\s*=\s*"
                   r"([^;]+);", re.S)
_JUMPS = re.compile(r"\b(?:break|continue|return|goto)\b")
ACCESS = re.compile(r"\b([A-Za-z_]\w*)\s*((?:\[(?:[^\[\]]|\[[^\[\]]*\])*\]\s*)+)")


@dataclass
class _Loop:
    start: int  # of `for`
    head: str  # the text between the header's parentheses
    var: str
    body_start: int
    end: int  # just past the loop's statement
    body: str  # the statement the loop runs, as written


def _blank_comments(text: str) -> str:
    """The text with comments and string literals blanked (same length: positions stay valid)."""
    return re.sub(r"/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'",
                  lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)


def closing(text: str, i: int, open_c: str, close_c: str) -> int:
    """The index just past the bracket closing the one at ``i`` (-1 when it is not closed)."""
    depth = 0
    for j in range(i, len(text)):
        c = text[j]
        if c == open_c:
            depth += 1
        elif c == close_c:
            depth -= 1
            if depth == 0:
                return j + 1
    return -1


_HEADED = re.compile(r"(?:for|while|if)\s*\(")
_ELSE = re.compile(r"\s*else\b")


def statement_end(text: str, i: int) -> int:
    """The index just past the statement starting at ``i`` (a block; a for or while loop, or an if with its else,
    and the statement each governs; a simple statement); -1 where it does not end."""
    while i < len(text) and text[i].isspace():
        i += 1
    if text.startswith("{", i):
        return closing(text, i, "{", "}")
    m = _HEADED.match(text, i)
    if m:
        close = closing(text, m.end() - 1, "(", ")")
        end = -1 if close < 0 else statement_end(text, close)
        if end > 0 and m.group(0).startswith("if"):
            e = _ELSE.match(text, end)
            if e:
                return statement_end(text, e.end())
        return end
    depth = 0
    for j in range(i, len(text)):
        c = text[j]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth < 0:
                return -1
        elif c == ";" and depth == 0:
            return j + 1
    return -1


def _loop_at(text: str, i: int) -> _Loop | None:
    m = _FOR.match(text, i)
    if not m:
        return None
    close = closing(text, m.end() - 1, "(", ")")
    if close < 0:
        return None
    head = text[m.end():close - 1]
    h = _HEAD.fullmatch(head)
    end = statement_end(text, close)
    if not h or end < 0:
        return None
    return _Loop(i, head, h.group(1), close, end, text[close:end])


def _statements(text: str) -> list[str] | None:
    """The simple statements of ``text`` (no loops, blocks or pragmas among them), normalised; None otherwise."""
    out, pos = [], 0
    while text[pos:].strip():
        at = pos + len(text[pos:]) - len(text[pos:].lstrip())
        if text.startswith(("#", "{"), at) or _FOR.match(text, at) or re.match(r"(?:if|while|do|switch)\b", text[at:]):
            return None
        end = statement_end(text, at)
        if end < 0:
            return None
        out.append(" ".join(text[at:end].split()))
        pos = end
    return out


def _inner(loop: _Loop, text: str) -> tuple[list[str], _Loop, list[str]] | None:
    """(the simple statements before it, the loop, those after it) when ``loop``'s body holds one loop and
    otherwise only simple statements."""
    body = loop.body.strip()
    if not body:
        return None
    offset = loop.body_start + loop.body.index(body[0])
    inner_text = body[1:-1] if body.startswith("{") else body
    offset += 1 if body.startswith("{") else 0
    found = next((m for m in _FOR.finditer(inner_text) if _depth(inner_text, m.start()) == 0), None)
    if found is None:
        return None
    child = _loop_at(text, offset + found.start())
    if child is None:
        return None
    before = _statements(inner_text[:found.start()])
    after = _statements(inner_text[child.end - offset:])
    if before is None or after is None:
        return None
    return before, child, after


def _depth(text: str, i: int) -> int:
    """The bracket depth at ``i`` in ``text``."""
    return sum(1 if c in "([{" else -1 if c in ")]}" else 0 for c in text[:i])


def _uses(expr: str, var: str) -> bool:
    return re.search(rf"\b{re.escape(var)}\b", expr) is not None


def _terms(index: str) -> list[str]:
    """The top-level terms of an index expression (split at + and - outside brackets)."""
    out, depth, cur = [], 0, ""
    for c in index:
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        if c in "+-" and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += c
    return [t.strip() for t in out + [cur] if t.strip()]


def stride_scores(code: str, variables: list[str]) -> dict[str, int]:
    """Per loop variable: the array accesses in ``code`` that step by one element with it (it alone, or plus a
    constant, in a flat index or in the last subscript) less those that step by a row or more with it (multiplied in
    a flat index, or in an earlier subscript)."""
    score = {v: 0 for v in variables}
    for m in ACCESS.finditer(code):
        parts = re.findall(r"\[((?:[^\[\]]|\[[^\[\]]*\])*)\]", m.group(2))
        for n, part in enumerate(parts):
            last = n == len(parts) - 1
            for term in _terms(part):
                for v in variables:
                    if not _uses(term, v):
                        continue
                    alone = re.fullmatch(rf"\(?\s*{re.escape(v)}\s*\)?", term) is not None
                    score[v] += 1 if alone and last else -1
    return score


def _assigned(code: str, var: str) -> bool:
    v = re.escape(var)
    return re.search(rf"(?:\b{v}\s*(?:[-+*/%&|^]?=(?!=)|\+\+|--))|(?:(?:\+\+|--)\s*{v}\b)", code) is not None


_STORE = re.compile(r"([A-Za-z_]\w*\s*(?:\[[^;]*\])+)\s*=\s*([A-Za-z_]\w*)\s*;")
_EXPR_STMT = re.compile(r"[A-Za-z_]\w*\s*(?:\[[^;]*\])*\s*(?:[-+*/]?=)[^=;][^;]*;")


def _reordered(text: str, outer: _Loop) -> tuple[str, list[str], list[str], bool] | None:
    """The nest from ``outer`` reordered (its new text, the old and the new order of its variables, and whether its
    new innermost loop sums into one element: see _reduces), or None.

    Statements between the loops are handled as a compiler's loop distribution would: a scalar declaration is moved
    into the innermost body; a store into an array element before the next loop (``C[i][j] *= beta;``) runs first,
    in a nest of its own over the loops around it; a scalar accumulator declared before the next loop and stored
    after it (``double s = 0; for (j) s += ...; y[i] = s;``) becomes its element (``y[i] = 0;`` in a nest of its
    own, ``y[i] += ...`` in the loop). Anything else stops the reordering."""
    loops, levels = [outer], []
    while True:
        got = _inner(loops[-1], text)
        if got is None:
            break
        before, child, after = got
        levels.append((before, after))
        loops.append(child)
    if len(loops) < 2 or len(loops) > 4:
        return None
    innermost = loops[-1]
    names = [lp.var for lp in loops]
    if len(set(names)) != len(names):
        return None
    body = innermost.body.strip()
    code = (body[1:-1] if body.startswith("{") else body).strip()
    if "#" in code or _JUMPS.search(code) or _FOR.search(code):
        return None
    for lp in loops:
        if any(_uses(lp.head, v) for v in names if v != lp.var):
            return None  # bounds that depend on another loop: not rectangular
    sunk: list[str] = []  # declarations moved into the innermost body
    first: list[tuple[int, str]] = []  # (level, statement) run first, in nests of their own
    for level, (before, after) in enumerate(levels):
        stores = [_STORE.fullmatch(a) for a in after]
        if not all(stores):
            return None
        accumulators = {m.group(2): m.group(1) for m in stores}
        if len(accumulators) != len(after):
            return None
        for st in before:
            d = _DECL.fullmatch(st)
            if d and d.group(1) in accumulators:
                element = accumulators.pop(d.group(1))
                first.append((level, f"{element} = {d.group(2).strip()};"))
                code = re.sub(rf"\b{re.escape(d.group(1))}\b", element, code)
                sunk = [re.sub(rf"\b{re.escape(d.group(1))}\b", element, x) for x in sunk]
            elif d:
                sunk.append(st)
            elif _EXPR_STMT.fullmatch(st) and not _JUMPS.search(st):
                first.append((level, st))
            else:
                return None
        if accumulators:
            return None  # a store after the loop of something not accumulated in it
    if any(_assigned(code, v) or any(_assigned(d.split("=", 1)[1], v) for d in sunk) for v in names):
        return None
    declared = [_DECL.fullmatch(d).group(1) for d in sunk]
    if any(_assigned(code, name) or any(_uses(st, name) for _, st in first) for name in declared):
        return None
    if any(_uses(lp.head, name) for lp in loops for name in declared):
        return None  # a bound computed between the loops (i0 = d < n ? 0 : d - n + 1): it moves with its loop
    score = stride_scores("\n".join([*sunk, code]), names)
    order = sorted(names, key=lambda v: (score[v], names.index(v)))
    if order[-1] == names[-1] or score[order[-1]] <= score[names[-1]]:
        return None  # the innermost loop already steps through the most accesses by one element
    heads = {lp.var: " ".join(lp.head.split()) for lp in loops}
    line_start = text.rfind("\n", 0, outer.start) + 1
    pad = re.match(r"[ \t]*", text[line_start:outer.start]).group(0)
    parts = [_nest([heads[v] for v in names[:level + 1]], [st], pad) for level, st in first]
    parts.append(_nest([heads[v] for v in order], [*sunk, *code.splitlines()], pad))
    out = ("\n" + pad).join(parts)
    return out, names, order, _reduces(code, order[-1])


def _reduces(code: str, var: str) -> bool:
    """Whether the innermost body, with ``var`` innermost, writes an element whose index does not name ``var`` (an
    in-order sum over the new innermost loop: a dot product, still one chain of adds)."""
    for m in re.finditer(r"\b[A-Za-z_]\w*\s*((?:\[(?:[^\[\]]|\[[^\[\]]*\])*\]\s*)+)(?:[-+*/%&|^]?=)(?!=)", code):
        if not _uses(m.group(1), var):
            return True
    return False


def _nest(heads: list[str], body: list[str], pad: str) -> str:
    """Loops with ``heads`` around ``body`` (lines), indented from ``pad``; the first line unindented (it takes the
    place of the original nest)."""
    step = "    "
    lines = [pad + step * n + f"for ({h}) {{" for n, h in enumerate(heads)]
    lines += [pad + step * len(heads) + x.strip() for x in body if x.strip()]
    lines += [pad + step * n + "}" for n in reversed(range(len(heads)))]
    return "\n".join(lines)[len(pad):]


def interchanged(source: str, function: str) -> tuple[str, list[dict]] | None:
    """``source`` with each reorderable nest of ``function`` whose innermost loop walks by rows reordered, and per
    nest its orders of loop variables and whether its new innermost loop sums into one element ({"from": [...],
    "to": [...], "reduces": bool}); None when no nest could be."""
    span = function_lines(source, function)
    if span is None:
        return None
    lines = source.splitlines(keepends=True)
    lo = sum(len(x) for x in lines[:span[0] - 1])
    hi = lo + sum(len(x) for x in lines[span[0] - 1:span[1]])
    text = _blank_comments(source)
    out, done, pos = [], [], lo
    while True:
        m = _FOR.search(text, pos, hi)
        if not m:
            break
        loop = _loop_at(text, m.start())
        if loop is None or loop.end > hi:
            pos = m.end()
            continue
        before = text[lo:loop.start].rstrip().rsplit("\n", 1)[-1]
        got = None if before.lstrip().startswith("#") else _reordered(text, loop)
        if got is None:
            pos = m.end()  # look for a nest inside it
            continue
        new, old, order, reduces = got
        out.append((loop.start, loop.end, new))
        done.append({"from": old, "to": order, "reduces": reduces})
        pos = loop.end
    if not out:
        return None
    result = source
    for start, end, new in reversed(out):
        result = result[:start] + new + result[end:]
    return result, done
