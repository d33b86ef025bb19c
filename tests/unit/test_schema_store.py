import sqlite3

import pytest

from rooflab.errors import RooflabError, RunNotFound
from rooflab.results import schema
from rooflab.results.schema import migrate
from rooflab.results.store import Store


def test_migration_chain_applies_registered_steps(monkeypatch):
    monkeypatch.setitem(schema.CURRENT, "measure", 3)
    monkeypatch.setitem(schema.MIGRATIONS, ("measure", 1), lambda d: {"ceilings": d.pop("roofs"), **d})
    monkeypatch.setitem(schema.MIGRATIONS, ("measure", 2), lambda d: {**d, "warnings": d.get("warnings", [])})
    out = migrate({"schema": "rooflab.measure/1", "roofs": [1]})
    assert out == {"schema": "rooflab.measure/3", "ceilings": [1], "warnings": []}


def test_migration_refuses_newer_and_unknown_documents():
    with pytest.raises(RooflabError, match="newer than this rooflab"):
        migrate({"schema": "rooflab.measure/99"})
    with pytest.raises(RooflabError, match="unknown document kind"):
        migrate({"schema": "rooflab.nonsense/1"})
    with pytest.raises(RooflabError, match="not a rooflab document"):
        migrate({"schema": "other/1"})
    assert migrate({"schema": "rooflab.bench/1", "x": 1}) == {"schema": "rooflab.bench/1", "x": 1}


def _header():
    return {"machine": {"key": "box-1234"}, "environment": {"hostname": "box"}, "command": ["rooflab", "x"]}


def test_store_run_lifecycle(tmp_path):
    with Store(tmp_path / "s.sqlite") as st:
        rid = st.begin("measure", _header(), label="first")
        st.add_record(rid, "a", {"v": 1})
        st.add_record(rid, "b", {"v": 2})
        st.finish(rid, {"schema": "rooflab.measure/1", "ceilings": []})
        doc = st.get(rid)
        assert doc["status"] == "complete" and doc["label"] == "first"
        assert [r["name"] for r in doc["records"]] == ["a", "b"] and doc["records"][1]["v"] == 2
        assert doc["result"]["schema"] == "rooflab.measure/2"
        assert st.resolve("latest") == rid and st.resolve("latest:measure") == rid
        runs = st.runs(kind="measure")
        assert runs[0]["records"] == 2 and runs[0]["hostname"] == "box"
        assert st.runs(machine="nomatch") == []


def test_interrupted_run_keeps_finished_records(tmp_path):
    path = tmp_path / "s.sqlite"
    with Store(path) as st:
        rid = st.begin("measure", _header())
        st.add_record(rid, "done", {"v": 1})
        st.mark(rid, "interrupted")
    # a new connection (a later process) sees the finished record and the status
    with Store(path) as st:
        doc = st.get(rid)
        assert doc["status"] == "interrupted" and doc["result"] is None and len(doc["records"]) == 1


def test_unknown_runs_give_clear_errors(tmp_path):
    with Store(tmp_path / "s.sqlite") as st:
        with pytest.raises(RunNotFound, match="holds no run"):
            st.resolve("latest")
        with pytest.raises(RunNotFound, match="no run 42"):
            st.get(42)
        with pytest.raises(RunNotFound, match="not a run id"):
            st.get("yesterday")


def test_corrupt_store_is_reported(tmp_path):
    p = tmp_path / "bad.sqlite"
    p.write_bytes(b"this is not a database" * 100)
    with pytest.raises(RooflabError, match="cannot open: file is not a database .* not a rooflab store"):
        Store(p)


def test_store_is_plain_sqlite(tmp_path):
    p = tmp_path / "s.sqlite"
    with Store(p) as st:
        st.begin("bench", _header())
    con = sqlite3.connect(p)
    assert con.execute("SELECT kind, status FROM runs").fetchall() == [("bench", "running")]
