"""Stored and saved documents are checked when they are read: a damaged or hand-edited document is one line naming
the field, never a traceback in the middle of a report.

Two checks, both cheap next to reading the JSON:

- the shape of the whole document: nesting at most ``MAX_DEPTH`` deep, and no finite number beyond ``ABSURD`` in
  magnitude (nothing rooflab measures comes near it; a 1e308 put there by hand would overflow the drawing);
- the typed model of its kind (:mod:`rooflab.documents`), which names the first field that is not what rooflab
  writes. A document of a million rows is checked on the rows a report shows (the first and the last
  ``ROWS_SHOWN``), so that it is drawn within seconds.
"""

from __future__ import annotations

import math
from typing import Any

from pydantic import ValidationError

from rooflab.documents import model_for
from rooflab.errors import RooflabError

MAX_DEPTH = 64
ABSURD = 1e100
NODE_BUDGET = 400_000  # values walked per document; past it, the typed check of the rows shown still holds
ROWS_SHOWN = 200  # rows a report shows at each end of a long table


class DocumentError(RooflabError):
    """A stored or saved document that is not what rooflab wrote."""


def _shown(doc: dict) -> dict:
    """The parts of a long document a report shows: each long list cut to its first and last ROWS_SHOWN items."""
    def cut(v):
        return v[:ROWS_SHOWN] + v[-ROWS_SHOWN:] if isinstance(v, list) and len(v) > 2 * ROWS_SHOWN else v

    out = dict(doc)
    if isinstance(out.get("kernels"), list):
        out["kernels"] = [dict(k, sizes=cut(k["sizes"])) if isinstance(k, dict) and isinstance(k.get("sizes"), list)
                          else k for k in cut(out["kernels"])]
    if isinstance(out.get("points"), list):
        out["points"] = cut(out["points"])
    return out


def _where(loc) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _path(node) -> str:
    """A field's path from its (parent, key) chain, built only when a field is reported."""
    parts = []
    while isinstance(node, tuple):
        node, key = node
        parts.append(f"[{key}]" if isinstance(key, int) else f".{key}")
    return str(node) + "".join(reversed(parts))


def _walk(doc: Any, where: str) -> None:
    stack = [(doc, where, 0)]  # (value, its place as (parent place, key), depth)
    seen = 0
    while stack and seen < NODE_BUDGET:
        obj, place, depth = stack.pop()
        seen += 1
        if depth > MAX_DEPTH:
            raise DocumentError(f"{_path(place)}: nested more than {MAX_DEPTH} levels deep")
        if isinstance(obj, dict):
            stack.extend((v, (place, k), depth + 1) for k, v in obj.items())
        elif isinstance(obj, list):
            stack.extend((v, (place, i), depth + 1) for i, v in enumerate(obj))
        elif isinstance(obj, float):
            if math.isfinite(obj) and abs(obj) > ABSURD:
                raise DocumentError(f"{_path(place)}: {obj:g} is not a figure rooflab could have measured")
        elif isinstance(obj, int) and not isinstance(obj, bool) and abs(obj) > ABSURD:
            raise DocumentError(f"{_path(place)}: {obj} is not a figure rooflab could have measured")


def check_document(kind: str, doc: dict, where: str = "result") -> dict:
    """``doc`` itself when it has the shape rooflab writes for ``kind``; else DocumentError naming the field."""
    if not isinstance(doc, dict):
        raise DocumentError(f"{where}: not a document")
    _walk(doc, where)
    model = model_for(kind)
    if model is not None:
        try:
            model.model_validate(_shown(doc))
        except ValidationError as exc:
            e = exc.errors()[0]
            raise DocumentError(f"{where}.{_where(e['loc'])}: {e['msg']}") from None
    if kind == "bench":  # samples are seconds: compare and the statistics divide by them
        for i, k in enumerate(_shown(doc)["kernels"]):
            for r in k.get("sizes") or []:
                secs = r.get("seconds")
                if secs is not None and not all(math.isfinite(s) and s > 0 for s in secs):
                    raise DocumentError(f"{where}.kernels[{i}] ({r.get('label')!r}): seconds: samples must be "
                                        "positive, finite seconds")
    return doc
