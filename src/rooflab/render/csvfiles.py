"""The CSV format: every table a document's command declares, as a file of raw numbers (not formatted), one per
table (one per kernel or size where a table is one per group)."""

from __future__ import annotations

import csv
import re
from pathlib import Path

from rooflab.render.tables import declared_tables, raw
from rooflab.render.text import visible


def tables_of(doc: dict) -> dict[str, tuple[list[str], list[list]]]:
    """The tables of a run as plain rows (raw numbers, not formatted): name -> (columns, rows), as the CSV files
    hold them."""
    return {name: (heads, rows) for t in declared_tables(doc, shown_in="csv") for name, heads, rows in raw(t, doc)}


def safe_file_stem(name: str, limit: int = 120) -> str:
    """A file name made of a table's name: letters, digits, dot, dash and underscore only (a kernel called
    ``a/b`` or ``../x`` names a file in the CSV folder, never another path)."""
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "table"
    return stem[:limit]


def write_csv(doc: dict, directory, prefix: str = "") -> list:
    """Every table of a run as a CSV file (raw numbers) in ``directory``; returns the paths written."""
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    paths = []
    used: set[str] = set()
    for name, (cols, rows) in tables_of(doc).items():
        stem = safe_file_stem(f"{prefix}{name}")
        while stem in used:  # two kernels whose names differ only in characters a file name cannot hold
            stem += "_"
        used.add(stem)
        path = d / f"{stem}.csv"
        with open(path, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow([visible(str(c)) for c in cols])
            w.writerows([visible(c) if isinstance(c, str) else c for c in row] for row in rows)
        paths.append(path)
    return paths
