"""`rooflab schema [KIND]`: the documents rooflab writes, each kind with its identifier and version, and for one
kind its fields (type, whether it is always there, what it holds) and its full JSON Schema (``--json``; also in
docs/schemas/)."""

from __future__ import annotations

from dataclasses import dataclass

from rooflab import documents
from rooflab.contract import Column, Command, Outputs, Report, Table, option
from rooflab.errors import RooflabError
from rooflab.i18n import msg
from rooflab.results.schema import schema_id


@dataclass(frozen=True)
class Options:
    kind: str | None = option(None, argument=True, metavar="KIND",
                              help="A document kind (bench, measure, explain, lab.fma, ...); none: list them.")


def _first_line(text: str | None) -> str:
    return " ".join((text or "").strip().split("\n\n")[0].split()).replace("``", "`")


def _ref(prop: dict, depth: int = 2) -> str | None:
    """The model a field holds (itself, in a list, beside null, or a list beside null)."""
    if "$ref" in prop:
        return prop["$ref"].rsplit("/", 1)[-1]
    if depth == 0:
        return None
    return next((found for p in (prop.get("items") or {}, *(prop.get("anyOf") or ()))
                 if (found := _ref(p, depth - 1))), None)


def _type(prop: dict) -> str:
    """A field's type in a few words, from its JSON Schema."""
    if "$ref" in prop:
        return prop["$ref"].rsplit("/", 1)[-1]
    if "anyOf" in prop:
        kinds = [_type(p) for p in prop["anyOf"] if p.get("type") != "null"]
        return " | ".join(dict.fromkeys(kinds)) + (" | null" if any(p.get("type") == "null" for p in prop["anyOf"])
                                                   else "")
    if prop.get("type") == "array":
        return f"list of {_type(prop.get('items') or {})}" if prop.get("items") else "list"
    if "const" in prop:
        return repr(prop["const"])
    return prop.get("type", "any")


def run(opts: Options) -> dict:
    if opts.kind is None:
        return {"kinds": [{"kind": k, "id": schema_id(k), "about": _first_line(documents.model_for(k).__doc__)}
                          for k in documents.kinds()]}
    if documents.model_for(opts.kind) is None:
        raise RooflabError(f"no document kind {opts.kind!r}; the kinds: {', '.join(documents.kinds())}")
    js = documents.json_schema(opts.kind)
    required = set(js.get("required") or ())
    fields = [{"field": name, "type": _type(prop), "required": name in required,
               "about": _first_line(prop.get("description")) or
               _first_line((js.get("$defs") or {}).get(_ref(prop) or "", {}).get("description"))}
              for name, prop in js["properties"].items()]
    return {"kind": opts.kind, "id": schema_id(opts.kind), "fields": fields, "json_schema": js}


COMMAND = Command(
    name="schema", order=9, options=Options, run=run, needs="none",
    summary=msg("the documents rooflab writes: each kind, and one kind's fields and JSON Schema"),
    report=Report(
        tables=(Table("kinds", "Document kinds", (Column("kind", "kind"), Column("id", "schema"),
                                                  Column("about", "what it holds")), rows="kinds"),
                Table("fields", "Fields of {id}", (Column("field", "field"), Column("type", "type"),
                                                  Column("required", "always there", value=lambda r, d: "yes" if
                                                         r["required"] else ""),
                                                  Column("about", "what it holds")),
                      rows="fields", title_args=lambda d: {"id": d["id"]}))),
    outputs=Outputs(stored=False, files=()))
