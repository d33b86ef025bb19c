"""The HTML report in a real browser (headless Chromium through Playwright): it renders without console errors,
draws as many ceilings and points as the runs hold, shows a point's tooltip on hover, and lets a ceiling be
switched off. A screenshot is kept in .pytest-artifacts/ for a person to look at."""

import contextlib
import io
import re
import shutil
from pathlib import Path

import pytest

from rooflab.cli import main
from rooflab.results.store import Store
from conftest import store_with_quick_measure

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
pw = pytest.importorskip("playwright.sync_api", reason="needs the playwright package")
pytestmark = [pytest.mark.cc, pytest.mark.skipif(not CHROMIUM, reason="needs Chromium (apt-get install chromium)")]
ARTIFACTS = Path(__file__).resolve().parents[2] / ".pytest-artifacts"
DATA = Path(__file__).resolve().parents[1] / "data"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def report(tmp_path_factory, quick_measure):
    """A report of the session's quick measure, a ladder lab and a bench run (and, when the machine was too busy for
    the measure to hold an fp32 roof, the quick roofline bench measured first)."""
    d = tmp_path_factory.mktemp("report")
    store = store_with_quick_measure(quick_measure, d)
    refused = []
    for args in (["lab", "ladder", "--quick", "--n", "128"],
                 ["bench", str(DATA / "user_kernels.toml"), "--kernel", "scale", "--quick"]):
        for _ in range(3):
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                code = main(args + ["--json", "--store", str(store)])
            # on a busy machine a measurement may be refused, with its reason (exit 2, "not measured"): tried again,
            # and where every try was refused the report is drawn without that run
            if code != 2 or "not measured" not in err.getvalue():
                break
        if code == 2 and "not measured" in err.getvalue():
            refused.append(args[:2])
            continue
        assert code == 0, err.getvalue()
    assert len(refused) < 2, refused
    with Store(store) as st:
        runs = [st.get(r["run_id"]) for r in reversed(st.runs())]
    page = d / "report.html"
    assert main(["report", *[str(r["run_id"]) for r in runs], "--store", str(store), "--html", str(page)]) == 0
    return page, runs


def test_report_in_chromium(report, capsys):
    capsys.readouterr()
    page_path, runs = report
    measure = next(r["result"] for r in runs if r["kind"] == "measure")
    bench = next((r["result"] for r in runs if r["kind"] == "bench"), None)
    with pw.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(viewport={"width": 1000, "height": 1400})
        errors = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(page_path.as_uri())
        assert errors == []
        sections = page.locator("section")
        kinds = [r["kind"] for r in runs]
        assert sections.count() == len(runs)  # one section per run, in the order asked
        m_sec = sections.nth(kinds.index("measure"))
        assert m_sec.locator(".ceiling").count() == len(measure["roofs"]["compute"]) + len(measure["roofs"]["memory"])
        # the batch sweep ran on every thread: its points are drawn on an all-thread roofline only
        swept = [] if measure["roofs"].get("instead_of") else measure["sweep"]
        assert m_sec.locator("circle.point").count() == len(swept)
        if "lab.ladder" in kinds:  # refused on a busy machine at every try, it has no section
            assert sections.nth(kinds.index("lab.ladder")).locator("table").count() >= 1  # the ladder's rungs
        if bench is not None:
            b_sec = sections.nth(kinds.index("bench"))
            assert b_sec.locator("circle.point").count() == len(bench["points"])
            # every kernel point numbered beside it and named in the legend under the plot
            assert b_sec.locator("text.point-label").count() == len(bench["points"]) == b_sec.locator(
                "ol.legend li").count()
        # no message object, dict or list drawn as Python writes it
        body = page.locator("body").inner_text()
        assert not re.search(r"\{'\w+': |\[\{'", body), re.search(r".{40}(\{'\w+': |\[\{').{40}", body)
        # no two labels of a roofline drawn over each other
        overlaps = page.evaluate(OVERLAPS_JS)
        assert overlaps == [], overlaps
        if swept:
            point = m_sec.locator("circle.point").nth(0)
            point.hover()
            tip = page.locator(".tip").first
            assert tip.is_visible() and tip.text_content().startswith(f"B={swept[0]['B']}:")
        first = m_sec.locator(".toggles input").first
        first.uncheck()
        assert m_sec.locator(".ceiling.hidden").count() == 1
        first.check()
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "report.png"), full_page=True)
        browser.close()
    assert (ARTIFACTS / "report.png").stat().st_size > 10000


OVERLAPS_JS = """() => {
    const out = [];
    document.querySelectorAll('svg.roofline').forEach(svg => {
        const boxes = [...svg.querySelectorAll('text.label, text.point-label')].map(t => [t.textContent, t.getBBox()]);
        for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
            const [na, a] = boxes[i], [nb, b] = boxes[j];
            if (a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height)
                out.push(na + ' / ' + nb);
        }
    });
    return out;
}"""


def test_crowded_ceilings_and_points_keep_their_labels_apart(tmp_path):
    """Ceilings a percent apart and kernel points on top of each other: every label readable."""
    from rooflab.render.html import render_html

    comp = [{"name": f"fp32 SIMD (no FMA) {i} x2", "value": 2e11 * (1 - 0.01 * i)} for i in range(7)]
    mem = [{"name": f"L{i} copy x2", "value": 4e11 * (1 - 0.02 * i)} for i in range(5)]
    sizes = [{"label": f"kernel n={1000 + i}", "intensity": 0.25 * (1 + 0.01 * i), "flops_per_s": 1e9 * (1 + 0.01 * i),
              "bytes_per_s": 4e9, "of_roof": 0.1} for i in range(12)]
    doc = {"roofs": {"compute": comp, "memory": mem}, "kernels": [{"name": "kernel", "sizes": sizes}]}
    run = {"run_id": 1, "kind": "bench", "created": "2026-01-01T00:00:00+00:00", "status": "complete",
           "header": {"machine": {}, "environment": {}, "command": ["x"]}, "result": doc}
    page_path = tmp_path / "crowded.html"
    page_path.write_text(render_html([run]), encoding="utf-8")
    with pw.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(viewport={"width": 1000, "height": 1000})
        page.goto(page_path.as_uri())
        assert page.locator("text.label").count() == len(comp) + len(mem)
        assert page.locator("text.point-label").count() == len(sizes) == page.locator("ol.legend li").count()
        overlaps = page.evaluate(OVERLAPS_JS)
        browser.close()
    assert overlaps == [], overlaps
