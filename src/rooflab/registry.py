"""Every command and lab, found by looking: a module of :mod:`rooflab.commands` that defines ``COMMAND`` (or a
tuple ``COMMANDS``) and a module of :mod:`rooflab.labs` that defines ``LAB``. Adding a lab is adding its module;
nothing else lists it. Loading the registry also declares each document kind's schema version and migrations to
:mod:`rooflab.results.schema`.
"""

from __future__ import annotations

import importlib
import pkgutil

from rooflab.contract import Command
from rooflab.errors import RooflabError
from rooflab.i18n import add_translations
from rooflab.results import schema

_COMMANDS: dict[str, Command] = {}
_LABS: dict[str, Command] = {}


def _found(package: str, attrs: tuple[str, ...]) -> list[Command]:
    pkg = importlib.import_module(package)
    out = []
    for m in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
        mod = importlib.import_module(f"{package}.{m.name}")
        for attr in attrs:
            val = getattr(mod, attr, None)
            for c in (val if isinstance(val, tuple) else (val,)):
                if isinstance(c, Command):
                    out.append(c)
    return out


def load() -> None:
    """Find the commands and labs (once) and declare their document kinds."""
    if _COMMANDS:
        return
    cmds = _found("rooflab.commands", ("COMMAND", "COMMANDS"))
    labs = _found("rooflab.labs", ("LAB",))
    for c in labs:
        if c.group != "lab":
            raise RooflabError(f"rooflab.labs: {c.name} is declared as a command, not a lab")
    seen_kinds: dict[str, str] = {}
    for c in sorted(cmds, key=lambda c: (c.order, c.name)):
        _COMMANDS[c.name] = c
    for c in sorted(labs, key=lambda c: (c.order, c.name)):
        _LABS[c.name] = c
    for c in [*cmds, *labs]:
        if c.kind in seen_kinds:
            raise RooflabError(f"{c.name} and {seen_kinds[c.kind]} both write documents of kind {c.kind}")
        seen_kinds[c.kind] = c.name
        schema.declare(c.kind, c.version, c.migrations)
        for lang, mapping in c.translations.items():
            add_translations(lang, mapping, c.title)


def reset() -> None:
    """Forget what was found, so that the next use looks again (a test adding a lab module)."""
    _COMMANDS.clear()
    _LABS.clear()


def commands() -> dict[str, Command]:
    load()
    return dict(_COMMANDS)


def labs() -> dict[str, Command]:
    load()
    return dict(_LABS)


def command(name: str) -> Command:
    load()
    if name not in _COMMANDS:
        raise RooflabError(f"no command {name!r}; the commands are: {', '.join(_COMMANDS)}")
    return _COMMANDS[name]


def lab(name: str) -> Command:
    load()
    if name not in _LABS:
        raise RooflabError(f"no lab {name!r}; the labs are: {', '.join(_LABS)}")
    return _LABS[name]


def for_kind(kind: str) -> Command | None:
    """The command or lab that writes documents of ``kind`` (None for the store's own kinds: run, history ...)."""
    load()
    return next((c for c in [*_COMMANDS.values(), *_LABS.values()] if c.kind == kind), None)
