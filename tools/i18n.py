"""Compile the message catalogues: each ``src/rooflab/i18n/locale/LANG/LC_MESSAGES/rooflab.po`` (what translators
edit) to the ``rooflab.mo`` beside it (what rooflab reads, with Python's gettext). Needs Babel (pip install babel);
rooflab itself does not.

    python tools/i18n.py           compile every catalogue
    python tools/i18n.py --check   exit 1 where a .mo is not the compiled form of its .po

A new message: write it in English in the code (``msg("...")`` or ``tr("...")``), add its msgid and msgstr to each
.po (the placeholders and numbers the same), compile. ``pytest tests/unit/test_i18n.py`` lists every template the
code uses that a catalogue lacks, and every stale one.
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

LOCALES = Path(__file__).resolve().parents[1] / "src" / "rooflab" / "i18n" / "locale"


def compiled(po: Path) -> bytes:
    with po.open("rb") as f:
        catalog = read_po(f)
    out = io.BytesIO()
    write_mo(out, catalog)
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="only check that every .mo matches its .po")
    args = ap.parse_args(argv)
    stale = []
    for po in sorted(LOCALES.glob("*/LC_MESSAGES/*.po")):
        mo, data = po.with_suffix(".mo"), compiled(po)
        if args.check:
            if not mo.exists() or mo.read_bytes() != data:
                stale.append(mo)
        else:
            mo.write_bytes(data)
            print(f"{mo.relative_to(LOCALES.parents[2])}: {len(data)} bytes")
    for mo in stale:
        print(f"{mo} is not the compiled form of its .po: run python tools/i18n.py", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
