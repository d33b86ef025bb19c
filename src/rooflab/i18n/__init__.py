"""Every sentence rooflab prints, in English and Chinese.

Text is written in English in the code; the English template is the message's identity (gettext's msgid), and
each language's catalogue, ``locale/LANG/LC_MESSAGES/rooflab.po`` (compiled to the ``.mo`` beside it, read with
Python's gettext), maps it to a template with the same placeholders. Two ways to use it:

- ``tr(template, **args)`` renders now, in the current language (headers, table columns, labels);
- ``msg(template, **args)`` returns a message that is stored with a run (observations, warnings) and rendered later
  in whatever language the reader asks for, with ``text(message)``. It carries its English ``text`` too, for tools
  that read the JSON.

Arguments are data (numbers, names, numbers already formatted with their unit) and appear unchanged in every
language; a word that must be translated is passed as a nested ``msg``. ``join(items, sep)`` is a list rendered with
the language's separator. The language is ``--lang`` where given, else the locale (``LC_ALL``, ``LC_MESSAGES``,
``LANG``, ``LANGUAGE``): ``zh*`` gives Chinese, anything else English.
"""

from __future__ import annotations

import contextlib
import contextvars
import gettext
import os
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

LANGS = ("en", "zh")
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
DOMAIN = "rooflab"
SEPARATORS = {"zh": {"; ": "；", ", ": "，", " and ": " 和 ", ": ": "：", ". ": "。"}}

_LANG: contextvars.ContextVar[str] = contextvars.ContextVar("rooflab_lang", default="")


class Catalog:
    """A language's templates: its compiled gettext catalogue, read when first needed, and the templates commands
    and labs carry with them (``added``)."""

    def __init__(self, lang: str):
        self.lang = lang
        self.added: dict[str, str] = {}
        self._compiled: gettext.NullTranslations | None = None

    def _translations(self) -> gettext.NullTranslations:
        if self._compiled is None:
            self._compiled = gettext.translation(DOMAIN, LOCALE_DIR, languages=[self.lang], fallback=True)
        return self._compiled

    def get(self, tid: str) -> str:
        """The template of ``tid`` in this language; the English one where the catalogue has none."""
        if not tid:  # (gettext's empty msgid is the catalogue's own header)
            return tid
        return self.added.get(tid) or self._translations().gettext(tid)

    def add(self, mapping: Mapping[str, str], owner: str = "") -> None:
        """Templates a command or lab carries with it; one translated already, differently, is an error."""
        for en, translated in mapping.items():
            if self.get(en) not in (en, translated):
                raise ValueError(f"{owner}: {en!r} is already translated differently")
            self.added[en] = translated


CATALOGS: dict[str, Catalog] = {lang: Catalog(lang) for lang in LANGS if lang != "en"}


def add_translations(lang: str, mapping: Mapping[str, str], owner: str = "") -> None:
    """Templates a command or lab carries with it (its ``translations``), added to the language's catalogue."""
    CATALOGS[lang].add(mapping, owner)


def locale_lang(environ: Mapping[str, str] | None = None) -> str:
    """The language the locale asks for: the first of LC_ALL, LC_MESSAGES, LANG, LANGUAGE that is set decides."""
    env = os.environ if environ is None else environ
    for var in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        v = (env.get(var) or "").strip()
        if v:
            return "zh" if v.lower().startswith("zh") else "en"
    return "en"


def get_lang() -> str:
    return _LANG.get() or locale_lang()


def set_lang(lang: str | None) -> str:
    """Set the language of this context (None: back to the locale's); returns the language now in use."""
    if lang is not None and lang not in LANGS:
        raise ValueError(f"unknown language {lang!r}; choose one of {', '.join(LANGS)}")
    _LANG.set(lang or "")
    return get_lang()


@contextlib.contextmanager
def using(lang: str | None) -> Iterator[str]:
    """Render in ``lang`` inside the block (None: the locale's)."""
    if lang is not None and lang not in LANGS:
        raise ValueError(f"unknown language {lang!r}; choose one of {', '.join(LANGS)}")
    token = _LANG.set(lang or "")
    try:
        yield get_lang()
    finally:
        _LANG.reset(token)


def template(tid: str, lang: str) -> str:
    """The template of message ``tid`` in ``lang``; the English template where a translation is missing (the test
    suite fails on any missing one, so this only protects runs stored by other versions)."""
    if lang == "en" or lang not in CATALOGS:
        return tid
    return CATALOGS[lang].get(tid)


def _is_msg(x: Any) -> bool:
    return isinstance(x, dict) and ("id" in x or "join" in x)


def _render(x: Any, lang: str) -> Any:
    if isinstance(x, dict) and "join" in x:
        sep = SEPARATORS.get(lang, {}).get(x["sep"], x["sep"])
        return sep.join(str(_render(i, lang)) for i in x["join"])
    if isinstance(x, dict) and "id" in x:
        args = {k: _render(v, lang) if _is_msg(v) else v for k, v in (x.get("args") or {}).items()}
        try:
            return template(x["id"], lang).format(**args)
        except (KeyError, IndexError, ValueError, TypeError):
            # a message stored by another version whose arguments no longer fit: its stored English, never a crash
            return x.get("text") or x["id"]
    return x


def msg(tid: str, /, **args: Any) -> dict:
    """A message to store: rendered later in the reader's language. ``tid`` must be a literal English template."""
    m = {"id": tid, "args": args}
    m["text"] = _render(m, "en")
    return m


def join(items: Iterable[Any], sep: str = "; ") -> dict:
    """A list of messages (or plain strings) rendered with the language's separator."""
    return {"join": list(items), "sep": sep}


def tr(tid: str, /, **args: Any) -> str:
    """Render a literal English template now, in the current language."""
    return str(_render({"id": tid, "args": args}, get_lang()))


def sep(s: str) -> str:
    """A separator (``", "``, ``"; "``) in the current language."""
    return SEPARATORS.get(get_lang(), {}).get(s, s)


def text(x: Any, lang: str | None = None) -> str:
    """A stored message, join or plain string (runs stored before messages were structured) as text; a message read
    through its document model (``documents.common.Template``, ``Joined``) as well."""
    if hasattr(x, "model_dump"):
        x = x.model_dump(by_alias=True)
    return str(_render(x, lang or get_lang())) if _is_msg(x) else str(x)


__all__ = ["LANGS", "get_lang", "join", "locale_lang", "msg", "sep", "set_lang", "template", "text", "tr", "using"]
