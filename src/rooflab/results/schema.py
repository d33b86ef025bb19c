"""Plain data for results, versioned JSON, and migrations of older documents.

Every JSON document rooflab writes carries ``schema``: ``"rooflab.<kind>/<version>"``. Readers call
:func:`migrate`, which upgrades older versions step by step through registered functions and refuses versions newer
than this rooflab knows, with a message that says so.
"""

from __future__ import annotations

from typing import Callable

from rooflab.errors import RooflabError

# (kind, from_version) -> function(doc) -> doc at from_version + 1
MIGRATIONS: dict[tuple[str, int], Callable[[dict], dict]] = {}

# kind -> current version, for the documents the store itself writes; each command and lab declares its own kind,
# version and migrations (rooflab.contract.Command), and the registry declares them here when it loads
CURRENT: dict[str, int] = {
    "history": 1,
    "run": 1,  # a stored run as `rooflab show --json` prints it: header, records and result
    "runs": 1,  # several stored runs
    "labs": 1,  # the list of labs
}
_declarations_loader: Callable[[str], object] | None = None


def declare(kind: str, version: int, migrations: dict[int, Callable[[dict], dict]] | None = None) -> None:
    """A document kind, its current version and how each older version is brought one step up."""
    CURRENT[kind] = int(version)
    for v, fn in (migrations or {}).items():
        MIGRATIONS[(kind, int(v))] = fn


def declarations_from(loader: Callable[[str], object]) -> None:
    """``loader(kind)`` declares the kind of the command that writes it (the registry's ``for_kind``); it runs when
    a kind is looked up that is not declared yet."""
    global _declarations_loader
    _declarations_loader = loader


def _known(kind: str) -> bool:
    if kind not in CURRENT and _declarations_loader is not None:
        _declarations_loader(kind)
    return kind in CURRENT


def schema_id(kind: str) -> str:
    if not _known(kind):
        raise RooflabError(f"unknown document kind {kind!r}")
    return f"rooflab.{kind}/{CURRENT[kind]}"


def parse_schema(s: str) -> tuple[str, int]:
    if not isinstance(s, str) or not s.startswith("rooflab.") or "/" not in s:
        raise RooflabError(f"not a rooflab document (schema {s!r})")
    kind, ver = s[len("rooflab."):].rsplit("/", 1)
    try:
        return kind, int(ver)
    except ValueError:
        raise RooflabError(f"bad schema version in {s!r}") from None


def migrate(doc: dict) -> dict:
    """Bring a document to the current version of its kind."""
    kind, ver = parse_schema(doc.get("schema"))
    if not _known(kind):
        raise RooflabError(f"unknown document kind {kind!r} (schema {doc.get('schema')!r})")
    cur = CURRENT[kind]
    if ver > cur:
        raise RooflabError(f"this document is rooflab.{kind}/{ver}, newer than this rooflab understands "
                           f"(/{cur}); upgrade rooflab to read it")
    while ver < cur:
        step = MIGRATIONS.get((kind, ver))
        if step is None:
            raise RooflabError(f"no migration from rooflab.{kind}/{ver} to /{ver + 1}")
        doc = step(dict(doc))
        ver += 1
        doc["schema"] = f"rooflab.{kind}/{ver}"
    return doc
