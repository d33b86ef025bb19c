"""Publication-quality roofline plots (matplotlib, imported only when a plot is asked for)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

from rooflab.documents.common import read
from rooflab.documents.measure import Gpu
from rooflab.errors import NothingToDraw, RooflabError
from rooflab.i18n import get_lang, tr, using
from rooflab.render.roofs import is_path, roofline_of
from rooflab.render.text import MAX_POINTS, thinned

FORMATS = (".png", ".svg", ".pdf")
# fonts with Chinese glyphs, in order of preference; a Chinese plot needs one (matplotlib's default has none)
CJK_FONTS = ("Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "WenQuanYi Zen Hei", "WenQuanYi Micro Hei",
             "Microsoft YaHei", "SimHei", "PingFang SC", "Hiragino Sans GB", "Heiti SC", "AR PL UMing CN")


def cjk_font() -> str | None:
    """The first installed font from CJK_FONTS, or None."""
    from matplotlib import font_manager

    have = {f.name for f in font_manager.fontManager.ttflist}
    return next((f for f in CJK_FONTS if f in have), None)


def check_plot_path(path: str | Path) -> Path:
    """Validate a plot destination before any measuring starts (format, folder, matplotlib present)."""
    path = Path(path)
    if path.suffix.lower() not in FORMATS:
        raise RooflabError(f"--plot {path}: choose a .png, .svg or .pdf file")
    if not path.parent.resolve().is_dir():
        raise RooflabError(f"--plot {path}: the folder {path.parent} does not exist")
    if importlib.util.find_spec("matplotlib") is None:
        raise RooflabError("plotting needs matplotlib (pip install matplotlib)")
    return path


def _plain(label: str) -> str:
    """A label drawn as the text it is: matplotlib reads $...$ as mathematics (a kernel called cost$1 would fail to
    draw), so every dollar sign is escaped."""
    return str(label).replace("$", r"\$")


def plot_roofline(doc, path: str | Path, *, title: str | None = None) -> Path:
    """Log-log roofline of a measure (or bench) document, or of several overlaid (a list of (tag, document)):
    every ceiling labelled, every point labelled."""
    path = check_plot_path(path)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # Chinese labels where a font can draw them; otherwise the plot stays in English (boxes help nobody)
    lang = get_lang()
    font = cjk_font() if lang == "zh" else None
    if lang == "zh" and font is None:
        lang = "en"
    with using(lang), plt.rc_context({"font.sans-serif": [font, "DejaVu Sans"]} if font else {}):
        return _draw(plt, doc, path, title)


def _draw(plt, doc, path: Path, title: str | None) -> Path:
    if isinstance(doc, list):
        tagged = doc
        compute, memory = [], []
        for tag, d in tagged:
            r = d.get("roofs") or {}
            compute += [{**c, "name": f"{tag}: {c['name']}"} for c in r.get("compute", [])]
            memory += [{**m, "name": f"{tag}: {m['name']}"} for m in r.get("memory", [])]
        doc = {"roofs": {"compute": compute, "memory": memory}, "sweep": [], "points": [],
               "machine": tagged[0][1].get("machine", {}), "threads_all": tagged[0][1].get("threads_all")}
        title = title or tr("Rooflines of {runs}", runs=", ".join(t for t, _ in tagged))
    roofs = doc.get("roofs") or {}
    comp, mem, pts = roofline_of(doc)
    if not comp or not mem:
        raise NothingToDraw(tr("this run has no compute and memory ceilings to draw"))
    top = max(c["value"] for c in comp)
    xs = [p.intensity for p in pts] + [top / m["value"] for m in mem]

    xmin, xmax = min(xs) / 8, max(xs) * 8
    x = np.logspace(np.log10(xmin), np.log10(xmax), 400)
    fig, ax = plt.subplots(figsize=(9, 6), dpi=150)
    cmap = plt.get_cmap("viridis")
    for i, m in enumerate(sorted(mem, key=lambda m: -m["value"])):
        y = np.minimum(x * m["value"], top)
        ax.loglog(x, y, color=cmap(i / max(1, len(mem))), lw=2,
                  label=_plain(f"{m['name']}: {m['value'] / 1e9:.1f} GB/s"))
    for j, c in enumerate(sorted(comp, key=lambda c: -c["value"])):
        ax.axhline(c["value"], color="0.3", ls=["-", "--", ":", "-."][j % 4], lw=1.2,
                   label=_plain(f"{c['name']}: {c['value'] / 1e9:.1f} GFLOP/s"))

    drawn = thinned(pts)
    if len(drawn) > 1 and is_path(doc):  # steps of one path (revisions in commit order): joined by arrows
        for a, b in zip(drawn, drawn[1:]):
            ax.annotate("", xy=(b.intensity, b.flops_per_s), xytext=(a.intensity, a.flops_per_s),
                        arrowprops={"arrowstyle": "->", "color": "0.5", "lw": 1.2})
    for p in drawn:
        ax.plot(p.intensity, p.flops_per_s, "x" if p.flagged else "o", color="crimson", ms=6)
        if len(drawn) > 40:  # labels only where they can be read
            continue
        ax.annotate(_plain(p.label + (tr(" (above roof)") if p.flagged else "")), (p.intensity, p.flops_per_s),
                    textcoords="offset points", xytext=(4, -10), fontsize=7)
    if len(pts) > MAX_POINTS:
        ax.text(0.01, 0.01, _plain(tr("{n} of {total} points drawn, evenly spread", n=len(drawn), total=len(pts))),
                transform=ax.transAxes, fontsize=7, color="0.4")
    ax.set_xlabel(tr("arithmetic intensity (FLOP/byte)"))
    ax.set_ylabel("FLOP/s")
    m = doc.get("machine", {})
    if title is None and doc.get("gpu"):
        title = tr("Roofline: {model}", model=read(Gpu, doc["gpu"]).name)
    threads = roofs.get("threads", doc.get("threads_all"))
    ax.set_title(_plain(title or (tr("Roofline: {model} ({n} threads)", model=m.get("model_name", ""), n=threads)
                                  if threads else tr("Roofline: {model}", model=m.get("model_name", "")))))
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path
