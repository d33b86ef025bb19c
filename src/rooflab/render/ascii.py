"""A log-log roofline drawn with characters (pure: data in, lines of text out)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from rooflab.i18n import tr
from rooflab.units import drawable, si

MARKS = "123456789ABCDEFGHJKLMNPQRSTUVWXYZ"
LINE_CHARS = "=-~:+*#%"


@dataclass(frozen=True)
class Point:
    label: str
    intensity: float
    flops: float
    flagged: bool = False  # above its roof: drawn as 'x', not as a real point


def ascii_roofline(compute: list[tuple[str, float]], memory: list[tuple[str, float]], points: list[Point], *,
                   width: int = 72, height: int = 20, xmin: float | None = None, xmax: float | None = None,
                   title: str = "") -> list[str]:
    """Every memory roof (bytes/s, one character each) and compute roof (FLOP/s) as its own line; points marked.

    Lines are capped by the highest compute roof, as a roofline is. Returns the lines of the plot with a legend.
    """
    compute = [(n, v) for n, v in compute if drawable(v)]
    memory = [(n, v) for n, v in memory if drawable(v)]
    points = [p for p in points if drawable(p.intensity) and drawable(p.flops)]
    if not compute or not memory:
        return [tr("(no roofline: a compute and a memory ceiling are needed)")]
    top = max(v for _, v in compute)
    ridges = [top / bw for _, bw in memory]
    xs = [p.intensity for p in points if p.intensity > 0]
    xmin = xmin or 2 ** math.floor(math.log2(min(ridges + xs) / 8))
    xmax = xmax or 2 ** math.ceil(math.log2(max(ridges + xs) * 8))
    low_roof = min(bw for _, bw in memory) * xmin
    ys = [p.flops for p in points if p.flops > 0]
    ymin = 10 ** math.floor(math.log10(min([low_roof] + ys + [v for _, v in compute]) / 2))
    ymax = 10 ** math.ceil(math.log10(top * 1.5))
    lx0, lx1 = math.log10(xmin), math.log10(xmax)
    ly0, ly1 = math.log10(ymin), math.log10(ymax)

    def col(x: float) -> int:
        return round((math.log10(x) - lx0) / (lx1 - lx0) * (width - 1))

    def row(y: float) -> int:
        return height - 1 - round((math.log10(y) - ly0) / (ly1 - ly0) * (height - 1))

    grid = [[" "] * width for _ in range(height)]
    legend = []
    # compute roofs: horizontal lines, from the memory roof of the fastest level up to the right edge
    fastest = max(bw for _, bw in memory)
    for k, (name, v) in enumerate(sorted(compute, key=lambda t: -t[1])):
        ch = LINE_CHARS[k % len(LINE_CHARS)] if k else "="
        r = row(v)
        if not 0 <= r < height:
            continue
        start = max(0, col(max(v / fastest, xmin)))
        for c in range(start, width):
            if grid[r][c] == " ":
                grid[r][c] = ch
        legend.append(f"  {ch * 3} {name}: {si(v, 'FLOP/s')}")
    # memory roofs: slope 1 in log-log, each capped at the top compute roof
    for k, (name, bw) in enumerate(sorted(memory, key=lambda t: -t[1])):
        ch = "/" if k == 0 else "/\\|.,;'`"[k % 8]
        for c in range(width):
            x = 10 ** (lx0 + c / (width - 1) * (lx1 - lx0))
            y = x * bw
            if y > top:
                break
            r = row(y)
            if 0 <= r < height and grid[r][c] == " ":
                grid[r][c] = ch
        legend.append(f"  {ch * 3} {name}: {si(bw, 'B/s')}")
    for p in points:
        if p.intensity <= 0 or p.flops <= 0:
            continue
        c, r = col(p.intensity), row(p.flops)
        if 0 <= c < width and 0 <= r < height:
            grid[r][c] = "x" if p.flagged else p.label
    lines = [title] if title else []
    for i, g in enumerate(grid):
        y = 10 ** (ly1 - i / (height - 1) * (ly1 - ly0))
        lab = si(y, "") if i % 4 == 0 else ""
        lines.append(f"{lab:>9} |" + "".join(g))
    lines.append(" " * 10 + "+" + "-" * width)
    ticks = [" "] * width
    x = 10 ** math.ceil(lx0)
    while x <= xmax:
        c = col(x)
        s = f"{x:g}"
        if c + len(s) <= width:
            ticks[c:c + len(s)] = list(s)
        x *= 10
    lines.append(" " * 11 + "".join(ticks))
    lines.append(" " * 11 + tr("arithmetic intensity (FLOP/byte) ->  vertical: FLOP/s"))
    lines += legend
    return lines
