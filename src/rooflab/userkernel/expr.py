"""Safe evaluation of the expressions in a kernel spec (no ``eval`` of arbitrary Python).

* :func:`arith` evaluates FLOP and byte counts and sizes: numbers, size names, + - * / // % **, parentheses, and
  a few functions (min, max, log2, sqrt, ceil, floor).
* :func:`numpy_expr` evaluates the expected-output expression of a correctness check: the same, plus array names,
  subscripts and slices, ``@``, comparisons (one at a time), bitwise operators, and attributes and calls of ``np``
  (``np.cumsum(x)``, ``x.T``, ``a.sum(axis=0)``, ``np.sum(x > t)``).
  Anything else (imports, dunder attributes, lambdas, comprehensions, names not given) is refused with a message.
"""

from __future__ import annotations

import ast
import io
import keyword
import math
import operator
import tokenize

import numpy as np

from rooflab.errors import RooflabError

_BIN = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
        ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow, ast.MatMult: operator.matmul}
_UN = {ast.UAdd: operator.pos, ast.USub: operator.neg}
# a check may also compare and work on bits: np.sum(x > t), np.where(x < 0, 0, x), (h ^ k) & 255
_NP_BIN = {**_BIN, ast.BitAnd: operator.and_, ast.BitOr: operator.or_, ast.BitXor: operator.xor,
           ast.LShift: operator.lshift, ast.RShift: operator.rshift}
_NP_UN = {**_UN, ast.Invert: operator.invert}
_CMP = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Eq: operator.eq,
        ast.NotEq: operator.ne}
_FUNCS = {"min": min, "max": max, "log2": math.log2, "sqrt": math.sqrt, "ceil": math.ceil, "floor": math.floor,
          "abs": abs}


class ExprError(RooflabError):
    pass


MAX_LENGTH = 2000  # characters of one expression
MAX_DEPTH = 64  # nesting of its syntax tree
MAX_MAGNITUDE = 1e30  # no count, size or scalar of a spec is larger (as simpleeval bounds its numbers)
KW_PREFIX = "rooflab_kw_"  # a C parameter named like a Python keyword (in, is, lambda...) inside an expression


def _rename_keywords(text: str, names) -> str:
    """``in * 2`` -> ``rooflab_kw_in * 2`` when ``in`` is one of the names (a C parameter may be called ``in``)."""
    kws = {n for n in names if keyword.iskeyword(n) or n in ("True", "False", "None")}
    if not kws:
        return text
    try:
        toks = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return text
    out = [(t.type, KW_PREFIX + t.string) if t.type == tokenize.NAME and t.string in kws else (t.type, t.string)
           for t in toks]
    return tokenize.untokenize(out)


def _depth(node: ast.AST) -> int:
    deepest, stack = 0, [(node, 1)]
    while stack:
        n, d = stack.pop()
        deepest = max(deepest, d)
        stack.extend((c, d + 1) for c in ast.iter_child_nodes(n))
    return deepest


def _parse(text: str, where: str, names=()) -> ast.expr:
    if not isinstance(text, str):
        raise ExprError(f"{where}: expected an expression in quotes, got {text!r}")
    if len(text) > MAX_LENGTH:
        raise ExprError(f"{where}: the expression is {len(text)} characters long; at most {MAX_LENGTH}")
    try:
        tree = ast.parse(_rename_keywords(text.strip(), names), mode="eval").body
    except SyntaxError as exc:
        raise ExprError(f"{where}: {text!r} does not parse ({exc.msg})") from None
    except (RecursionError, MemoryError, ValueError):
        raise ExprError(f"{where}: the expression does not parse (nested too deeply)") from None
    if _depth(tree) > MAX_DEPTH:
        raise ExprError(f"{where}: the expression is nested more than {MAX_DEPTH} levels deep")
    return tree


def _name(node: ast.Name) -> str:
    return node.id[len(KW_PREFIX):] if node.id.startswith(KW_PREFIX) else node.id


def names_in(text: str, where: str = "expression", names=()) -> set[str]:
    """The names an expression uses (``names``: the ones it may use, so that a keyword among them parses)."""
    return {_name(n) for n in ast.walk(_parse(text, where, names)) if isinstance(n, ast.Name)}


def bare_names(text: str, where: str = "expression", names=()) -> set[str]:
    """The names an expression uses as values, not only as the object of an attribute (``n`` in ``n * 2``, not
    ``np`` in ``np.arange(n)``)."""
    tree = _parse(text, where, names)
    owners = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    return {_name(n) for n in ast.walk(tree) if isinstance(n, ast.Name) and id(n) not in owners}


def _bounded(v, text: str, where: str):
    """A value of an arithmetic expression, refused when it is not a finite number within MAX_MAGNITUDE."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ExprError(f"{where}: {text!r} gives {v!r}, not a number")
    if isinstance(v, float) and not math.isfinite(v):
        raise ExprError(f"{where}: {text!r} gives {v}, not a finite number")
    if abs(v) > MAX_MAGNITUDE:
        raise ExprError(f"{where}: {text!r} gives a value beyond {MAX_MAGNITUDE:g}; no count or size is that large")
    return v


def arith(text: str | int | float, env: dict[str, float], where: str = "expression") -> float:
    """Evaluate an arithmetic expression over the names in ``env`` (every intermediate value finite and within
    MAX_MAGNITUDE)."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        return _bounded(text, repr(text), where)
    node = _parse(text, where, env)

    def ev(n):
        if isinstance(n, ast.Constant) and isinstance(n.value, (int, float)) and not isinstance(n.value, bool):
            return _bounded(n.value, text, where)
        if isinstance(n, ast.Name):
            name = _name(n)
            if name not in env:
                raise ExprError(f"{where}: unknown name {name!r} in {text!r} (known: {', '.join(sorted(env))})")
            return _bounded(env[name], text, where)
        if isinstance(n, ast.BinOp) and type(n.op) in _BIN and not isinstance(n.op, ast.MatMult):
            left, right = ev(n.left), ev(n.right)
            if isinstance(n.op, ast.Pow):
                if abs(right) > 64:
                    raise ExprError(f"{where}: exponent {right} too large in {text!r}")
                if left != 0 and abs(right) * math.log10(abs(left)) > math.log10(MAX_MAGNITUDE):
                    raise ExprError(f"{where}: {text!r} gives a value beyond {MAX_MAGNITUDE:g}; no count or size is "
                                    "that large")
            try:
                return _bounded(_BIN[type(n.op)](left, right), text, where)
            except ZeroDivisionError:
                raise ExprError(f"{where}: division by zero in {text!r}") from None
            except (OverflowError, ValueError, TypeError) as exc:
                raise ExprError(f"{where}: {text!r} cannot be computed ({exc})") from None
        if isinstance(n, ast.UnaryOp) and type(n.op) in _UN:
            return _bounded(_UN[type(n.op)](ev(n.operand)), text, where)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in _FUNCS and not n.keywords:
            vals = [ev(a) for a in n.args]
            try:
                return _bounded(_FUNCS[n.func.id](*vals), text, where)
            except (ValueError, TypeError, OverflowError) as exc:
                raise ExprError(f"{where}: {ast.unparse(n)!r} cannot be computed in {text!r} ({exc})") from None
        raise ExprError(f"{where}: {ast.unparse(n)!r} is not allowed in {text!r} (numbers, size names, + - * / // % "
                        f"**, and {', '.join(_FUNCS)})")

    return ev(node)


# keyword arguments whose value may be a word (np.argsort(x, kind="stable"), np.ravel(a, order="F")): strings are
# allowed nowhere else, so that no NumPy function of an expression is given a file name
WORD_OPTIONS = frozenset({"kind", "order", "side", "mode", "dtype", "casting", "method", "norm"})


def numpy_expr(text: str, env: dict, where: str = "check"):
    """Evaluate a NumPy expression over ``env`` (arrays and scalars) with ``np`` available."""
    node = _parse(text, where, env)
    scope = {**env, "np": np}

    def kw(k: ast.keyword):
        # a word only as an option's value (kind="stable", order="F"): no string reaches a file name
        if isinstance(k.value, ast.Constant) and isinstance(k.value.value, str) and k.arg in WORD_OPTIONS \
                and len(k.value.value) <= 32:
            return k.value.value
        return ev(k.value)

    def ev(n):
        if isinstance(n, ast.Constant) and isinstance(n.value, (int, float, complex, type(None))):
            return n.value
        if isinstance(n, ast.Name):
            name = _name(n)
            if name not in scope:
                raise ExprError(f"{where}: unknown name {name!r} in {text!r} (known: {', '.join(sorted(scope))})")
            return scope[name]
        if isinstance(n, ast.BinOp) and type(n.op) in _NP_BIN:
            return _NP_BIN[type(n.op)](ev(n.left), ev(n.right))
        if isinstance(n, ast.UnaryOp) and type(n.op) in _NP_UN:
            return _NP_UN[type(n.op)](ev(n.operand))
        if isinstance(n, ast.Compare) and len(n.ops) == 1 and type(n.ops[0]) in _CMP:
            return _CMP[type(n.ops[0])](ev(n.left), ev(n.comparators[0]))
        if isinstance(n, ast.Attribute) and not n.attr.startswith("_"):
            return getattr(ev(n.value), n.attr)
        if isinstance(n, ast.Call):
            return ev(n.func)(*[ev(a) for a in n.args], **{k.arg: kw(k) for k in n.keywords if k.arg})
        if isinstance(n, ast.Subscript):
            return ev(n.value)[ev(n.slice)]
        if isinstance(n, ast.Slice):
            return slice(*(ev(x) if x is not None else None for x in (n.lower, n.upper, n.step)))
        if isinstance(n, ast.Tuple):
            return tuple(ev(x) for x in n.elts)
        if isinstance(n, ast.List):  # `[x @ y]`: the value of a one-element output
            return [ev(x) for x in n.elts]
        raise ExprError(f"{where}: {ast.unparse(n)!r} is not allowed in {text!r} (NumPy expressions over the "
                        "arguments and sizes: operators, calls, indexing, tuples and lists)")

    try:
        return ev(node)
    except ExprError:
        raise
    except RecursionError:
        raise ExprError(f"{where}: {text!r} is nested too deeply") from None
    except Exception as exc:  # NumPy's own errors: shapes that do not broadcast, ...
        raise ExprError(f"{where}: {text!r} failed: {type(exc).__name__}: {exc}") from None
