"""How much a kernel's time hangs on where its arrays start in their pages: each kernel of
targets/explain/cases.toml (or those named) timed with its arrays all at the start of a page (placement = "aligned",
rooflab's default, as posix_memalign(4096) and mmap place a program's arrays) against the same build with its arrays
staggered 1088 bytes apart (placement = "staggered"), in paired rounds (rooflab compare --quick). Prints one JSON line
per kernel, then how many ran 1.2x and 1.5x faster or slower staggered.

    python targets/placement_cases.py [KERNEL ...]

Run it on a quiet machine, alone. Two sets of arrays of the same placement can differ by up to about 1.25x where a
walk crosses a page at every access, so a ratio under 1.5x is not a placement effect on its own.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
import tomllib
from pathlib import Path

import rooflab
from rooflab.errors import RooflabError

CASES = Path(__file__).resolve().parent / "explain" / "cases.toml"


def _toml(v) -> str:
    """A TOML value (the cases' specs hold strings, numbers, booleans, lists and tables only)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {_toml(x)}" for k, x in v.items()) + "}"
    raise TypeError(f"no TOML for {v!r}")


def pair(kernel: dict, where: Path) -> Path:
    """A spec of two kernels, the case at each placement."""
    k = dict(kernel, source=str((CASES.parent / kernel["source"]).resolve()))
    text = "\n".join("[[kernel]]\n" + "".join(f"{json.dumps(key)} = {_toml(v)}\n" for key, v in
                                               dict(k, name=f"{kernel['name']}_{p}", placement=p).items())
                     for p in ("aligned", "staggered"))
    path = where / f"{kernel['name']}.toml"
    path.write_text(text)
    return path


def main() -> int:
    kernels = tomllib.loads(CASES.read_text())["kernel"]
    names = sys.argv[1:] or [k["name"] for k in kernels]
    by_name = {k["name"]: k for k in kernels}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        print(f"not a kernel of {CASES}: {', '.join(unknown)}", file=sys.stderr)
        return 2
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in names:
            path, t0 = pair(by_name[n], Path(tmp)), time.perf_counter()
            try:
                r = rooflab.compare(f"{path}:{n}_aligned", f"{path}:{n}_staggered", quick=True, save=False)["rows"][0]
                row = {"name": n, "staggered_speedup": r.get("speedup"), "ci95": r.get("speedup_ci95"),
                       "verdict": r.get("verdict"), "error": r.get("error")}
            except RooflabError as exc:
                row = {"name": n, "error": str(exc)}
            row["wall_s"] = round(time.perf_counter() - t0, 1)
            rows.append(row)
            print(json.dumps(row), flush=True)
    ok = [r for r in rows if not r.get("error") and r.get("staggered_speedup")]
    for k in (1.2, 1.5):
        fast = sum(r["staggered_speedup"] >= k and r["verdict"] == "faster" for r in ok)
        slow = sum(r["staggered_speedup"] <= 1 / k and r["verdict"] == "slower" for r in ok)
        print(f"staggered {k}x faster or more: {fast} of {len(ok)}; {k}x slower or more: {slow}")
    print(f"errors: {len(rows) - len(ok)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
