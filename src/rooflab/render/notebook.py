"""Result documents as the library returns them: plain dicts (JSON as they are) that also display themselves in
Jupyter — the roofline inline, the tables, the observations and the warnings."""

from __future__ import annotations

from rooflab.render.html import CSS, run_from_doc, section_html


class Result(dict):
    """A rooflab result document; in a notebook it renders as HTML."""

    def _repr_html_(self) -> str:
        kind = str(self.get("schema", "rooflab.run/1"))[len("rooflab."):].split("/")[0]
        return f"<div class='rooflab'><style>{CSS}</style>{section_html(run_from_doc(kind, dict(self)), 'nb')}</div>"
