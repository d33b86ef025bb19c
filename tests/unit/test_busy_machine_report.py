"""A run measured while a CPU was busy with another process, drawn as a user sees it: the one-thread roofline in
place of the missing all-thread one, short statuses with their reasons as numbered notes, and files that are
written or left out with the reason, never an error for a finished run."""

import copy
import io
import json
from pathlib import Path

from rich.console import Console

from rooflab import registry
from rooflab.i18n import using
from rooflab.interpret.measure import measure_observations
from rooflab.model.roofline import measure_roofs, trust
from rooflab.render import files
from rooflab.render.report import render
from rooflab.results.schema import migrate

RUN = Path(__file__).parent.parent / "data" / "runs" / "measure.json"
REASON = {"id": "other processes used {cores:.2f} core(s) meanwhile", "args": {"cores": 0.97},
          "text": "other processes used 0.97 core(s) meanwhile"}


def _busy(every_thread_count=(2,)) -> dict:
    doc = migrate(json.loads(RUN.read_text(encoding="utf-8")))
    for c in doc["ceilings"]["compute"] + doc["ceilings"]["bandwidth"]:
        if c["threads"] in every_thread_count and c.get("status") == "ok":
            c.update(status="disturbed", reason=copy.deepcopy(REASON))
    doc["roofs"], doc["trust"] = measure_roofs(doc), trust(doc)
    doc["observations"] = measure_observations(doc)
    return doc


def _draw(doc: dict, lang: str = "en") -> str:
    out = io.StringIO()
    with using(lang):
        render(doc, Console(file=out, width=200, highlight=False, color_system=None))
    return out.getvalue()


def test_the_one_thread_roofline_is_drawn_and_each_reason_is_one_numbered_note():
    doc = _busy()
    assert doc["roofs"]["threads"] == 1 and doc["roofs"]["instead_of"] == 2
    text = _draw(doc)
    assert "Roofline of this machine (1 threads)" in text and "The roofline drawn is the one-thread roofline" in text
    # the same reason is one note, named by its number in every row that has it
    assert text.count("[1] other processes used 0.97 core(s) meanwhile") == 2  # under each of the two tables
    assert "disturbed [1]" in text and "[2] " not in text
    rows = [ln for ln in text.splitlines() if "disturbed [1]" in ln]
    assert rows and all("core(s)" not in ln for ln in rows)  # the reason is not in the row
    assert "未写入" not in _draw(doc, "zh") and "单线程屋顶线" in _draw(doc, "zh")


def test_a_finished_run_without_any_roofline_still_writes_what_it_can(tmp_path):
    doc = _busy((1, 2))
    assert not doc["roofs"]["compute"] and "No roofline could be drawn" in _draw(doc)
    cmd = registry.command("measure")
    said = files.write(cmd, doc, plot=tmp_path / "roof.svg", html=tmp_path / "r.html", csv=tmp_path / "csv")
    assert not (tmp_path / "roof.svg").exists() and (tmp_path / "r.html").exists()
    assert any("no roofline written to" in s and "no compute and memory ceilings" in s for s in said), said
    ok = _busy()
    assert any(s.startswith("roofline written to") for s in files.write(cmd, ok, plot=tmp_path / "one.svg"))
    assert (tmp_path / "one.svg").read_text().lstrip().startswith("<?xml")


def test_edge_checks_are_told_in_words_and_a_damaged_one_is_passed_over():
    doc = migrate(json.loads(RUN.read_text(encoding="utf-8")))
    read1 = next(sw for sw in doc["bandwidth_sweeps"] if sw["kernel"] == "read" and sw["threads"] == 1)
    l2 = next(p for p in read1["plateaus"] if p["level"] == "L2")
    l2["edge_check"] = {"first_bytes": 5.8 * 2 ** 20, "second_bytes": 0.7 * 2 ** 20, "os_bytes": 2 ** 20,
                        "confirmed": False}
    said = " ".join(o["text"] for o in measure_observations(doc))
    assert "L2 taken at the OS's 1 MiB: the sweep put its edge at 5.8 MiB" in said
    l2["edge_check"] = {"first_bytes": 6e5, "confirmed": True}
    assert "a second sweep confirmed it" in " ".join(o["text"] for o in measure_observations(doc))
    for damaged in ({}, {"confirmed": False}, "nonsense", None):
        l2["edge_check"] = damaged
        assert measure_observations(doc)  # drawn as a plateau without a check, never a traceback


def test_files_that_could_not_be_written_are_refused_before_the_run(tmp_path):
    import pytest

    from rooflab.errors import RooflabError
    from rooflab.render.files import check_destinations

    (tmp_path / "afile").write_text("x")
    with pytest.raises(RooflabError, match="is a file, not a folder"):
        check_destinations(csv=tmp_path / "afile" / "deeper" / "tables")
    with pytest.raises(RooflabError, match=r"does not exist \(it is a file\)"):
        check_destinations(html=tmp_path / "afile" / "r.html")
    with pytest.raises(RooflabError, match="that is a folder"):
        check_destinations(html=tmp_path)
    check_destinations(html=tmp_path / "r.html", csv=tmp_path / "new" / "tables")  # folders made as needed
