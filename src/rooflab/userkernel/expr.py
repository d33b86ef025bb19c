"""Safe evaluation of the expressions in a kernel spec (no ``eval`` of arbitrary Python).

* :func:`arith` evaluates FLOP and byte counts and sizes: numbers, size names, + - * / // % **, parentheses, and
  a few functions (min, max, log2, sqrt, ceil, floor).
* :func:`numpy_expr` evaluates the expected-output expression of a correctness check: the same, plus array names,
  subscripts and slices, ``@``, and attributes and calls of ``np`` (``np.cumsum(x)``, ``x.T``, ``a.sum(axis=0)``).
  Anything else (imports, dunder attributes, lambdas, comprehensions, names not given) is refused with a message.
"""

from __future__ import annotations

import ast
import math
import operator

from ..errors import RooflabError

_BIN = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
        ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow, ast.MatMult: operator.matmul}
_UN = {ast.UAdd: operator.pos, ast.USub: operator.neg}
_FUNCS = {"min": min, "max": max, "log2": math.log2, "sqrt": math.sqrt, "ceil": math.ceil, "floor": math.floor,
          "abs": abs}


class ExprError(RooflabError):
    pass


def _parse(text: str, where: str) -> ast.expr:
    if not isinstance(text, str):
        raise ExprError(f"{where}: expected an expression in quotes, got {text!r}")
    try:
        return ast.parse(text.strip(), mode="eval").body
    except SyntaxError as exc:
        raise ExprError(f"{where}: {text!r} does not parse ({exc.msg})") from None


def names_in(text: str, where: str = "expression") -> set[str]:
    return {n.id for n in ast.walk(_parse(text, where)) if isinstance(n, ast.Name)}


def arith(text: str | int | float, env: dict[str, float], where: str = "expression") -> float:
    """Evaluate an arithmetic expression over the names in ``env``."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        return text
    node = _parse(text, where)

    def ev(n):
        if isinstance(n, ast.Constant) and isinstance(n.value, (int, float)) and not isinstance(n.value, bool):
            return n.value
        if isinstance(n, ast.Name):
            if n.id not in env:
                raise ExprError(f"{where}: unknown name {n.id!r} in {text!r} (known: {', '.join(sorted(env))})")
            return env[n.id]
        if isinstance(n, ast.BinOp) and type(n.op) in _BIN and not isinstance(n.op, ast.MatMult):
            left, right = ev(n.left), ev(n.right)
            if isinstance(n.op, ast.Pow) and abs(right) > 64:
                raise ExprError(f"{where}: exponent {right} too large in {text!r}")
            try:
                return _BIN[type(n.op)](left, right)
            except ZeroDivisionError:
                raise ExprError(f"{where}: division by zero in {text!r}") from None
        if isinstance(n, ast.UnaryOp) and type(n.op) in _UN:
            return _UN[type(n.op)](ev(n.operand))
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in _FUNCS and not n.keywords:
            return _FUNCS[n.func.id](*[ev(a) for a in n.args])
        raise ExprError(f"{where}: {ast.unparse(n)!r} is not allowed in {text!r} (numbers, size names, + - * / // % "
                        f"**, and {', '.join(_FUNCS)})")

    return ev(node)


def numpy_expr(text: str, env: dict, where: str = "check"):
    """Evaluate a NumPy expression over ``env`` (arrays and scalars) with ``np`` available."""
    import numpy as np

    node = _parse(text, where)
    scope = {**env, "np": np}

    def ev(n):
        if isinstance(n, ast.Constant) and isinstance(n.value, (int, float, complex, type(None))):
            return n.value
        if isinstance(n, ast.Name):
            if n.id not in scope:
                raise ExprError(f"{where}: unknown name {n.id!r} in {text!r} (known: {', '.join(sorted(scope))})")
            return scope[n.id]
        if isinstance(n, ast.BinOp) and type(n.op) in _BIN:
            return _BIN[type(n.op)](ev(n.left), ev(n.right))
        if isinstance(n, ast.UnaryOp) and type(n.op) in _UN:
            return _UN[type(n.op)](ev(n.operand))
        if isinstance(n, ast.Attribute) and not n.attr.startswith("_"):
            return getattr(ev(n.value), n.attr)
        if isinstance(n, ast.Call):
            return ev(n.func)(*[ev(a) for a in n.args], **{k.arg: ev(k.value) for k in n.keywords if k.arg})
        if isinstance(n, ast.Subscript):
            return ev(n.value)[ev(n.slice)]
        if isinstance(n, ast.Slice):
            return slice(*(ev(x) if x is not None else None for x in (n.lower, n.upper, n.step)))
        if isinstance(n, ast.Tuple):
            return tuple(ev(x) for x in n.elts)
        raise ExprError(f"{where}: {ast.unparse(n)!r} is not allowed in {text!r}")

    try:
        return ev(node)
    except ExprError:
        raise
    except Exception as exc:  # NumPy's own errors: shapes that do not broadcast, ...
        raise ExprError(f"{where}: {text!r} failed: {type(exc).__name__}: {exc}") from None
