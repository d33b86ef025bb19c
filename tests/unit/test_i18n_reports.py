"""Whole reports of real runs (recorded on a 2-core Zen 4 VM, long sample lists trimmed; the GPU run on the simulated
H200 of the GPU tests), drawn in English and in Chinese: the same numbers in both, and the Chinese one in Chinese
throughout."""

import io
import json
import re
from collections import Counter
from pathlib import Path

import pytest
from conftest import CJK, english_prose
from rich.console import Console

from rooflab import registry
from rooflab.i18n import using
from rooflab.interpret.machine import environment_rows
from rooflab.render.html import render_html, run_from_doc
from rooflab.render.report import render
from rooflab.render.text import kv_table, render_machine

RUNS = Path(__file__).parent.parent / "data" / "runs"
KIND = {"measure": "measure", "bench": "bench", "compare": "compare", "profile": "profile",
        "measure_gpu_simulated": "measure.gpu", "explain": "explain", "track": "track", "bisect": "bisect"}
NUMBER = re.compile(r"(?<![A-Za-z_\d.])\d+(?:\.\d+)?")


def kind_of(path: Path) -> str:
    return KIND.get(path.stem) or "lab." + path.stem.removeprefix("lab_")


DOCS = sorted(RUNS.glob("*.json"))


def draw(kind: str, doc: dict, lang: str) -> str:
    out = io.StringIO()
    con = Console(file=out, width=4000, highlight=False, color_system=None)
    with using(lang):
        render(doc, con)
        render_machine(doc["machine"], con)
        con.print(kv_table("environment", [[r["what"], r["value"]] for r in environment_rows(doc["environment"])]))
    return out.getvalue()


def test_every_kind_of_stored_run_is_recorded():
    stored = [c for c in [*registry.commands().values(), *registry.labs().values()]
              if c.needs == "session" and c.outputs.stored]
    assert {kind_of(p) for p in DOCS} == {c.kind for c in stored}


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.stem)
def test_english_and_chinese_reports_carry_the_same_numbers(path):
    doc = json.loads(path.read_text(encoding="utf-8"))
    en, zh = draw(kind_of(path), doc, "en"), draw(kind_of(path), doc, "zh")
    assert en != zh and CJK.search(zh) and not CJK.search(en)
    ne, nz = Counter(NUMBER.findall(en)), Counter(NUMBER.findall(zh))
    assert ne == nz, f"only in English: {ne - nz}; only in Chinese: {nz - ne}"
    assert len(doc["observations"]) > 0 and all(isinstance(o, dict) for o in doc["observations"])


def _prose(kind: str, doc: dict, lang: str) -> list[str]:
    return english_prose(draw(kind, doc, lang), doc)


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.stem)
def test_chinese_reports_have_no_english_sentences(path):
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert _prose(kind_of(path), doc, "zh") == []
    assert len(_prose(kind_of(path), doc, "en")) >= 3  # the check sees English prose where there is some


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_html_report_in_each_language(lang):
    runs = [run_from_doc(kind_of(p), json.loads(p.read_text(encoding="utf-8"))) for p in DOCS]
    with using(lang):
        page = render_html(runs)
    assert f"<html lang='{lang}'>" in page
    assert bool(CJK.search(page.split("<details>")[0])) == (lang == "zh")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_report_shows_a_message_as_the_dict_it_is_stored_as(lang, tmp_path):
    # the explain table's finding and experiment columns once showed {'id': ..., 'args': ..., 'text': ...}
    from rooflab.render.csvfiles import write_csv

    raw = re.compile(r"""[{\[]\s*(&#x27;|&#39;|'|")(id|join|args)\1\s*:""")
    runs = [run_from_doc(kind_of(p), json.loads(p.read_text(encoding="utf-8"))) for p in DOCS]
    with using(lang):
        page = render_html(runs)
        assert not raw.search(page), raw.search(page).group(0)
        for p, run in zip(DOCS, runs):
            folder = tmp_path / lang / p.stem
            write_csv(run["result"], str(folder))
            for f in folder.glob("*.csv"):
                assert not raw.search(f.read_text(encoding="utf-8")), (p.stem, f.name)
