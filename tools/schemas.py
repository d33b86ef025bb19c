"""Writes docs/schemas/<kind>.json, the JSON Schema of every document kind rooflab writes (from rooflab.documents);
tests/unit/test_documents.py checks that they are up to date.

    python tools/schemas.py
"""

from __future__ import annotations

import json
from pathlib import Path

from rooflab import documents

OUT = Path(__file__).resolve().parent.parent / "docs" / "schemas"


def rendered(kind: str) -> str:
    return json.dumps(documents.json_schema(kind), indent=2, ensure_ascii=False, sort_keys=False) + "\n"


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob("*.json"):
        if old.stem not in documents.kinds():
            old.unlink()
    for kind in documents.kinds():
        (OUT / f"{kind}.json").write_text(rendered(kind), encoding="utf-8")
    print(f"{len(documents.kinds())} schemas in {OUT}")


if __name__ == "__main__":
    main()
