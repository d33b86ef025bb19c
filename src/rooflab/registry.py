"""Every command and lab, found by looking: a module of :mod:`rooflab.commands` that defines ``COMMAND`` (or a
tuple ``COMMANDS``) and a module of :mod:`rooflab.labs` that defines ``LAB``. Adding a lab is adding its module;
nothing else lists it. Finding a command also declares its document kind's schema version and migrations to
:mod:`rooflab.results.schema`.

The registry loads what is asked for: ``command("bench")`` imports the module named like the command,
``for_kind("lab.fma")`` the lab's, and only a name that no module carries (a module declaring several commands, or
one named otherwise) or a full listing imports them all. A command line that runs one command therefore starts
without importing the others.
"""

from __future__ import annotations

import importlib
import pkgutil

from rooflab.contract import Command
from rooflab.errors import RooflabError
from rooflab.i18n import add_translations
from rooflab.results import schema

_PACKAGES = {"command": ("rooflab.commands", ("COMMAND", "COMMANDS")), "lab": ("rooflab.labs", ("LAB",))}
_FOUND: dict[str, dict[str, Command]] = {"command": {}, "lab": {}}  # group -> name -> command, as found
_KINDS: dict[str, str] = {}  # kind -> title of the command or lab that writes it
_SEEN: set[str] = set()  # modules already looked into
_COMPLETE: set[str] = set()  # groups whose every module has been looked into
_LISTED: dict[str, list[str]] = {}  # group -> the module names in its package


def _module_names(group: str) -> list[str]:
    if group not in _LISTED:
        package, _ = _PACKAGES[group]
        pkg = importlib.import_module(package)
        _LISTED[group] = sorted(m.name for m in pkgutil.iter_modules(pkg.__path__))
    return _LISTED[group]


def _look_into(group: str, module: str) -> None:
    """Import one module of a group's package and register what it declares (once)."""
    package, attrs = _PACKAGES[group]
    qualified = f"{package}.{module}"
    if qualified in _SEEN:
        return
    if module not in _module_names(group):
        _SEEN.add(qualified)
        return
    _SEEN.add(qualified)
    mod = importlib.import_module(qualified)
    for attr in attrs:
        val = getattr(mod, attr, None)
        for c in (val if isinstance(val, tuple) else (val,)):
            if isinstance(c, Command):
                _add(group, c)


def _add(group: str, c: Command) -> None:
    if group == "lab" and c.group != "lab":
        raise RooflabError(f"rooflab.labs: {c.name} is declared as a command, not a lab")
    if _FOUND[group].get(c.name) is c:
        return
    if c.kind in _KINDS:
        raise RooflabError(f"{c.title} and {_KINDS[c.kind]} both write documents of kind {c.kind}")
    _KINDS[c.kind] = c.title
    _FOUND[group][c.name] = c
    schema.declare(c.kind, c.version, c.migrations)
    for lang, mapping in c.translations.items():
        add_translations(lang, mapping, c.title)


def _load_group(group: str) -> None:
    if group in _COMPLETE:
        return
    for module in _module_names(group):
        _look_into(group, module)
    _COMPLETE.add(group)


def load() -> None:
    """Find every command and lab and declare their document kinds."""
    _load_group("command")
    _load_group("lab")


def reset() -> None:
    """Forget what was found, so that the next use looks again (a test adding a lab module)."""
    for found in _FOUND.values():
        found.clear()
    _KINDS.clear()
    _SEEN.clear()
    _COMPLETE.clear()
    _LISTED.clear()


def _ordered(group: str) -> dict[str, Command]:
    _load_group(group)
    return {c.name: c for c in sorted(_FOUND[group].values(), key=lambda c: (c.order, c.name))}


def commands() -> dict[str, Command]:
    return _ordered("command")


def labs() -> dict[str, Command]:
    return _ordered("lab")


def _find(group: str, name: str) -> Command | None:
    if name not in _FOUND[group] and isinstance(name, str) and name.isidentifier():
        _look_into(group, name)  # the module named like it, first
    if name not in _FOUND[group]:
        _load_group(group)
    return _FOUND[group].get(name)


def command(name: str) -> Command:
    c = _find("command", name)
    if c is None:
        raise RooflabError(f"no command {name!r}; the commands are: {', '.join(commands())}")
    return c


def lab(name: str) -> Command:
    c = _find("lab", name)
    if c is None:
        raise RooflabError(f"no lab {name!r}; the labs are: {', '.join(labs())}")
    return c


def _by_kind(kind: str) -> Command | None:
    return next((c for found in _FOUND.values() for c in found.values() if c.kind == kind), None)


def for_kind(kind: str) -> Command | None:
    """The command or lab that writes documents of ``kind`` (None for the store's own kinds: run, history ...)."""
    if not isinstance(kind, str):
        return None
    c = _by_kind(kind)
    if c is None:
        group, _, rest = kind.partition(".")
        if group == "lab" and rest.isidentifier():
            _look_into("lab", rest)
        elif group.isidentifier():
            _look_into("command", group)
        c = _by_kind(kind)
    if c is None:
        load()
        c = _by_kind(kind)
    return c
