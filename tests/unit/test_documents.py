"""The typed document models: one per kind rooflab writes, matching what it writes, refusing what it does not with
one line naming the field, and published as JSON Schema (rooflab schema, docs/schemas/)."""

import contextlib
import copy
import io
import json
import sys
from pathlib import Path

import jsonschema
import pytest

from rooflab import documents, registry
from rooflab.cli import main
from rooflab.results.schema import CURRENT, migrate, parse_schema
from rooflab.results.validate import DocumentError, check_document

ROOT = Path(__file__).resolve().parents[2]
RUNS = sorted((ROOT / "tests" / "data" / "runs").glob("*.json"))
sys.path.insert(0, str(ROOT / "tools"))
import schemas as schema_tool  # noqa: E402 - the tool that writes docs/schemas


def test_every_kind_a_command_or_lab_writes_has_a_model():
    written = {c.kind for c in registry.commands().values()} | {c.kind for c in registry.labs().values()}
    written |= {"run", "runs", "labs"}
    assert written - set(documents.kinds()) == set()
    assert set(documents.kinds()) - written == set()  # and no model of a kind nothing writes
    assert all(k in CURRENT or registry.for_kind(k) for k in documents.kinds())


@pytest.mark.parametrize("path", RUNS, ids=lambda p: p.stem)
def test_stored_documents_match_their_model_and_the_published_schema(path):
    doc = migrate(json.loads(path.read_text()))  # stored at an older version: read as the current one
    kind = parse_schema(doc["schema"])[0]
    assert check_document(kind, doc) is doc  # the document itself, untouched
    jsonschema.validate(doc, documents.json_schema(kind))


def test_a_damaged_document_is_one_line_naming_the_field():
    doc = json.loads((ROOT / "tests" / "data" / "runs" / "bench.json").read_text())
    cut = {k: v for k, v in doc.items() if k != "kernels"}
    with pytest.raises(DocumentError, match=r"^result\.kernels: Field required$"):
        check_document("bench", cut)
    bad = copy.deepcopy(doc)
    bad["kernels"][0]["sizes"][0]["time_s"] = "fast"
    with pytest.raises(DocumentError, match=r"kernels\[0\]\.sizes\[0\]\.time_s: Input should be a valid number"):
        check_document("bench", bad)
    info = {"schema": "rooflab.info/1", "environment": {}, "capabilities": {}}
    with pytest.raises(DocumentError, match=r"^result\.machine: Field required$"):
        check_document("info", info)
    # a message of a kind no renderer knows, where the models expect one
    odd = copy.deepcopy(doc)
    odd["observations"] = [{"oops": 1}]
    with pytest.raises(DocumentError, match=r"observations\[0\]"):
        check_document("bench", odd)


def test_a_lab_added_as_a_module_is_checked_against_the_envelope_of_every_lab():
    assert documents.model_for("lab.squares") is documents.labs.Lab
    assert check_document("lab.squares", {"schema": "rooflab.lab.squares/1", "lab": "squares", "rows": []})
    with pytest.raises(DocumentError, match=r"result\.lab: Field required"):
        check_document("lab.squares", {"schema": "rooflab.lab.squares/1", "rows": []})
    assert documents.model_for("nonsense") is None
    assert documents.json_schema("lab.fma")["properties"]["lab"]["type"] == "string"


def test_models_give_typed_access():
    doc = json.loads((ROOT / "tests" / "data" / "runs" / "explain.json").read_text())
    m = documents.model_for("explain").model_validate(doc)
    row = m.kernels[0].sizes[0]
    assert row.label == doc["kernels"][0]["sizes"][0]["label"]
    assert [f.id for f in row.findings] == [f["id"] for f in doc["kernels"][0]["sizes"][0]["findings"]]


def test_the_published_schemas_are_up_to_date():
    for kind in documents.kinds():
        published = ROOT / "docs" / "schemas" / f"{kind}.json"
        assert published.read_text(encoding="utf-8") == schema_tool.rendered(kind), \
            f"docs/schemas/{kind}.json is out of date: run python tools/schemas.py"
    assert sorted(p.stem for p in (ROOT / "docs" / "schemas").glob("*.json")) == documents.kinds()


def _cli(*args) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(list(args))
    return code, out.getvalue()


def test_schema_command_lists_the_kinds_and_shows_one():
    code, text = _cli("schema")
    assert code == 0 and "rooflab.bench/1" in text and "lab.fma" in text
    code, text = _cli("schema", "bench", "--json")
    d = json.loads(text)
    assert code == 0 and d["id"] == "rooflab.bench/1"
    assert "kernels" in d["json_schema"]["required"]
    assert d["json_schema"]["properties"]["schema"]["const"] == "rooflab.bench/1"
    assert {"field": "kernels", "required": True} == {k: next(f for f in d["fields"] if f["field"] == "kernels")[k]
                                                      for k in ("field", "required")}
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code, _ = _cli("schema", "nonsense")
    assert code == 2 and "no document kind 'nonsense'" in err.getvalue() and "bench" in err.getvalue()


# ------------------------------------------------------------------------------------------- reading parts typed


def test_a_part_read_through_its_model_has_attributes_and_defaults():
    from rooflab.documents.common import MpiJob, read
    from rooflab.documents.kernels import Reference

    job = read(MpiJob, {"size": 2, "ranks": [{"rank": 0, "host": "a"}, {"rank": 1, "host": "b", "status": "failed",
                                                                           "error": "boom"}]})
    assert job.size == 2 and [r.status for r in job.ranks] == ["ok", "failed"] and job.aggregates is None
    ref = read(Reference, {"kind": "triad", "ratio": 0.8, "ci95": [0.7, 0.9], "threads": 2})
    assert (ref.kind, ref.ratio, ref.ci95[1], ref.slow, ref.threads) == ("triad", 0.8, 0.9, None, 2)
    with pytest.raises(Exception, match="size"):
        read(MpiJob, {"ranks": []})  # what a reader needs and the part lacks is named


def test_a_message_read_through_its_model_renders_as_the_dict_it_came_from():
    from rooflab.documents.common import plain, read
    from rooflab.documents.kernels import TrialSize
    from rooflab.i18n import msg, text, using

    m = msg("the reference and the experiments ran at {size}", size="n=10")
    typed = read(TrialSize, {"text": m}).text
    assert plain(typed) == m and text(typed) == text(m) == "the reference and the experiments ran at n=10"
    with using("zh"):
        assert text(typed) == text(m)


def test_the_accessors_stand_where_a_part_may_be_missing():
    from rooflab.documents.common import Theoretical, cache_sizes, read
    from rooflab.documents.kernels import Side
    from rooflab.documents.stored import run_identity

    assert cache_sizes({"caches": {"L2": 1 << 20}}) == {"L2": 1 << 20}
    assert cache_sizes(None) == cache_sizes({"caches": None}) == {}
    assert run_identity({"machine": {"key": "k"}, "environment": {"hostname": "h"}}) == ("k", "h")
    assert run_identity({"machine": "damaged"}) == (None, None) and run_identity(None) == (None, None)
    assert read(Side, {"name": "saxpy"}).label == "saxpy" and read(Side, {"run_id": 7}).label == "run 7"
    th = read(Theoretical, {"per_core": {"fp32": {"simd_fma": 4e10}}, "cores": 2})
    assert th.core_flops("fp32", "simd_fma") == 4e10 and th.core_flops("fp64", "simd_fma") is None
