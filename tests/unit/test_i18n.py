"""Every message exists in English and Chinese, with the same placeholders and the same numbers."""

import ast
import re
import string
from collections import Counter
from pathlib import Path

import pytest

import rooflab
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from rooflab import i18n, registry
from rooflab.i18n import join, msg, text, tr, using

SRC = Path(rooflab.__file__).parent
PO = SRC / "i18n" / "locale" / "zh" / "LC_MESSAGES" / "rooflab.po"
registry.load()  # the commands and labs that carry their own translations add them to the catalogue
with PO.open("rb") as _f:
    CATALOG = read_po(_f)
ZH = {m.id: m.string for m in CATALOG if m.id}
ZH.update(i18n.CATALOGS["zh"].added)
CJK = re.compile(r"[\u4e00-\u9fff]")
# a number standing alone: not the 32 of fp32 or the 1 of L1, not inside a placeholder
NUMBER = re.compile(r"(?<![A-Za-z_\d.])\d+(?:\.\d+)?")


# the one module that translates templates it does not hold: the column headers and table titles each command
# and lab declares (rooflab.contract.Column and Table), which the scan below collects where they are declared
TRANSLATES_DECLARED = "render/tables.py"
WORDS = re.compile(r"[a-z]{2,}")


def _declared_text(node: ast.Call, name: str) -> ast.AST | None:
    """The header of a Column(key, label, ...) or the title of a Table(name, title, ...) declaration."""
    pos, kw = {"Column": (1, "label"), "Table": (1, "title")}[name]
    if len(node.args) > pos:
        return node.args[pos]
    return next((k.value for k in node.keywords if k.arg == kw), None)


def templates_in_source() -> tuple[dict[str, list[str]], list[str]]:
    """Every template passed to msg() or tr() in rooflab's source, and every column header and table title the
    commands and labs declare (those with words in them): {template: [where]}; and calls whose template is not a
    literal string (those could never be checked, so they are errors)."""
    found: dict[str, list[str]] = {}
    dynamic = []
    for path in sorted(SRC.rglob("*.py")):
        if "i18n" in path.parts:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
            where = f"{path.relative_to(SRC)}:{node.lineno}"
            if name in ("Column", "Table"):
                a = _declared_text(node, name)
                if isinstance(a, ast.Constant) and isinstance(a.value, str) and WORDS.search(a.value):
                    found.setdefault(a.value, []).append(where)
                continue
            if name not in ("msg", "tr") or not node.args:
                continue
            a = node.args[0]
            if isinstance(a, ast.Constant) and isinstance(a.value, str):
                found.setdefault(a.value, []).append(where)
            elif path.relative_to(SRC).as_posix() != TRANSLATES_DECLARED:
                dynamic.append(where)
    return found, dynamic


FOUND, DYNAMIC = templates_in_source()


def fields(t: str) -> Counter:
    return Counter((name, spec, conv) for _, name, spec, conv in string.Formatter().parse(t) if name is not None)


def literal_numbers(t: str) -> Counter:
    lit = "".join(part for part, *_ in string.Formatter().parse(t))
    return Counter(NUMBER.findall(lit))


def test_the_scan_finds_the_messages():
    # guards the scanner itself: it must see the templates of observations, warnings and renderers
    assert len(FOUND) > 300
    assert "Observations" in FOUND and any(t.startswith("Ridge point") for t in FOUND)
    assert any(t.startswith("competing load") for t in FOUND)


def test_every_template_is_a_literal():
    assert DYNAMIC == [], "msg()/tr() called with a computed template (cannot be translated or checked): " + \
        ", ".join(DYNAMIC)


def test_the_catalogue_is_gettext_compiled_and_complete():
    import io

    # what rooflab reads (the .mo) is the compiled form of what translators edit (the .po): tools/i18n.py
    out = io.BytesIO()
    write_mo(out, CATALOG)
    assert PO.with_suffix(".mo").read_bytes() == out.getvalue(), "run python tools/i18n.py to compile the .po"
    assert all(m.string and not m.fuzzy for m in CATALOG if m.id)  # every message translated, none left fuzzy
    assert all("python-brace-format" in m.flags for m in CATALOG if m.id and "{" in m.id)
    assert i18n.template("Observations", "zh") == ZH["Observations"] != "Observations"  # read through gettext
    assert i18n.template("", "zh") == ""  # (the catalogue's header is no message)


def test_every_template_has_a_chinese_translation():
    missing = {t: w for t, w in FOUND.items() if t not in ZH}
    assert not missing, "no Chinese for:\n" + "\n".join(f"  {w[0]}: {t!r}" for t, w in missing.items())


# templates no longer used that documents stored by an earlier rooflab still name: kept, marked in the catalogue by
# a translator comment "former", so that a stored run shows in Chinese as it did
FORMER = {m.id for m in CATALOG if m.id and any(c.strip().startswith("former") for c in m.user_comments)}


def test_no_stale_translations():
    stale = [t for t in ZH if t not in FOUND and t not in FORMER]
    assert not stale, "translations of templates no longer used:\n" + "\n".join(map(repr, stale))


@pytest.mark.parametrize("en", sorted(ZH))
def test_translation_keeps_placeholders_numbers_and_is_chinese(en):
    zh = ZH[en]
    assert fields(zh) == fields(en), f"placeholders differ: {en!r} vs {zh!r}"
    assert literal_numbers(zh) == literal_numbers(en), f"numbers differ: {en!r} vs {zh!r}"
    letters = re.sub(r"\{[^}]*\}", "", en)
    if re.search(r"[a-z]{2,}", letters):  # a template with words in it is translated, not copied
        assert CJK.search(zh), f"not Chinese: {zh!r}"


def test_messages_render_in_both_languages_from_the_same_arguments():
    m = msg("One thread reads {r:.0f}x faster from L1 ({l1}) than from DRAM ({dram}): blocking for cache is worth that "
            "much to a memory-bound kernel.", r=7.96, l1="211 GB/s", dram="28.1 GB/s")
    assert m["text"].startswith("One thread reads 8x faster")
    zh = text(m, "zh")
    assert CJK.search(zh) and "8" in zh and "211 GB/s" in zh and "28.1 GB/s" in zh
    nested = msg("{prec}: FMA gives {r:.2f}x the FLOP rate of separate multiply and add ({why}).", prec="fp32", r=1.0,
                 why=msg("without FMA, a multiply and an add take two issue slots"))
    assert "two issue slots" in text(nested, "en") and "two issue" not in text(nested, "zh")
    j = join([msg("{level} until about {edge}", level="L1", edge="32 KiB"),
              msg("{level} until about {edge}", level="L2", edge="1 MiB")])
    assert text(j, "en") == "L1 until about 32 KiB; L2 until about 1 MiB"
    assert "；" in text(j, "zh")


def test_a_stored_plain_string_passes_through_and_unknown_templates_fall_back_to_english():
    assert text("an observation stored as text", "zh") == "an observation stored as text"
    assert text({"id": "not a known template {x}", "args": {"x": 3}}, "zh") == "not a known template 3"
    # arguments that no longer fit the template (another version stored them): the stored English text
    stale = {"id": "Observations", "args": {}, "text": "Observations"}
    assert text({**stale, "id": "IPC {ipc:.2f}.", "args": {"ipc": None}, "text": "IPC 1.00."}, "zh") == "IPC 1.00."
    assert text(stale, "zh") == ZH["Observations"]


def test_language_from_locale_and_from_the_switch():
    assert i18n.locale_lang({"LANG": "zh_CN.UTF-8"}) == "zh"
    assert i18n.locale_lang({"LC_ALL": "en_US.UTF-8", "LANG": "zh_CN.UTF-8"}) == "en"
    assert i18n.locale_lang({"LC_ALL": "", "LC_MESSAGES": "zh_TW", "LANG": "C"}) == "zh"
    assert i18n.locale_lang({"LANGUAGE": "zh_CN:en"}) == "zh"
    assert i18n.locale_lang({}) == "en"
    with using("zh"):
        assert tr("Observations") == ZH["Observations"]
        with using("en"):
            assert tr("Observations") == "Observations"
    with pytest.raises(ValueError, match="unknown language"):
        i18n.set_lang("fr")
