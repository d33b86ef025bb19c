"""The results store: one SQLite file, written in transactions.

A run is opened (status ``running``), each finished measurement is appended and committed on its own, and the run
is closed with its result (``complete``) or marked ``interrupted`` (Ctrl-C, SIGTERM). A run that was killed outright
stays ``running`` and shows as incomplete; what it had finished is still there. SQLite's journal guarantees the file
is never left half-written.
"""

from __future__ import annotations

import datetime as _dt
import json
import sqlite3
from pathlib import Path
from typing import Iterator

from ..errors import RunNotFound, StoreError
from ..paths import default_store_path
from .schema import migrate, schema_id

_DDL = """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created TEXT NOT NULL,
    finished TEXT,
    kind TEXT NOT NULL,
    status TEXT NOT NULL,
    hostname TEXT,
    machine TEXT,
    label TEXT,
    header TEXT NOT NULL,
    result TEXT
);
CREATE TABLE IF NOT EXISTS records (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    name TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
);
CREATE INDEX IF NOT EXISTS runs_kind ON runs(kind, created);
"""


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def _dumps(obj) -> str:
    return json.dumps(obj, allow_nan=True, default=to_jsonable)


def to_jsonable(o):
    if hasattr(o, "to_dict"):
        return o.to_dict()
    if isinstance(o, (set, tuple)):
        return list(o)
    try:
        import numpy as np

        if isinstance(o, np.generic):
            return o.item()
    except ImportError:  # pragma: no cover
        pass
    raise TypeError(f"cannot store {type(o).__name__}")


class Store:
    def __init__(self, path: str | Path | None = None):
        self.path = Path(path) if path else default_store_path()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(self.path), timeout=30)
            self._db.execute("PRAGMA foreign_keys = ON")
            self._db.executescript(_DDL)
            self._db.commit()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"cannot open the results store {self.path}: {exc}") from exc

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ---------------------------------------------------------------------------------------------- writing
    def begin(self, kind: str, header: dict, *, label: str | None = None) -> int:
        machine = header.get("machine", {})
        key = machine.get("key") if isinstance(machine, dict) else None
        host = header.get("environment", {}).get("hostname")
        with self._db:
            cur = self._db.execute(
                "INSERT INTO runs (created, kind, status, hostname, machine, label, header) VALUES (?,?,?,?,?,?,?)",
                (_now(), kind, "running", host, key, label, _dumps(header)))
        return int(cur.lastrowid)

    def save(self, kind: str, header: dict, result: dict, records: list[tuple[str, dict]] = (), *,
             status: str = "complete", label: str | None = None) -> int:
        """A whole run in one transaction (an MPI job's rank 0 writes the job this way)."""
        machine = header.get("machine", {})
        with self._db:
            cur = self._db.execute(
                "INSERT INTO runs (created, finished, kind, status, hostname, machine, label, header, result) "
                "VALUES (?,?,?,?,?,?,?,?,?)",
                (_now(), _now(), kind, status, header.get("environment", {}).get("hostname"),
                 machine.get("key") if isinstance(machine, dict) else None, label, _dumps(header), _dumps(result)))
            run_id = int(cur.lastrowid)
            self._db.executemany("INSERT INTO records (run_id, seq, name, data) VALUES (?,?,?,?)",
                                 [(run_id, i, n, _dumps(d)) for i, (n, d) in enumerate(records)])
        return run_id

    def add_record(self, run_id: int, name: str, data: dict) -> None:
        with self._db:
            (seq,) = self._db.execute("SELECT COALESCE(MAX(seq), -1) + 1 FROM records WHERE run_id = ?",
                                      (run_id,)).fetchone()
            self._db.execute("INSERT INTO records (run_id, seq, name, data) VALUES (?,?,?,?)",
                             (run_id, seq, name, _dumps(data)))

    def finish(self, run_id: int, result: dict, status: str = "complete") -> None:
        with self._db:
            self._db.execute("UPDATE runs SET result = ?, status = ?, finished = ? WHERE id = ?",
                             (_dumps(result), status, _now(), run_id))

    def mark(self, run_id: int, status: str) -> None:
        with self._db:
            self._db.execute("UPDATE runs SET status = ?, finished = ? WHERE id = ?", (status, _now(), run_id))

    # ---------------------------------------------------------------------------------------------- reading
    def resolve(self, ref: str | int) -> int:
        """A run id from '12', 12, 'latest' / 'last', or 'latest:KIND'."""
        s = str(ref).strip()
        if s.isdigit():
            return int(s)
        if s in ("latest", "last") or s.startswith(("latest:", "last:")):
            kind = s.split(":", 1)[1] if ":" in s else None
            q = "SELECT id FROM runs" + (" WHERE kind = ?" if kind else "") + " ORDER BY id DESC LIMIT 1"
            row = self._db.execute(q, (kind,) if kind else ()).fetchone()
            if row is None:
                raise RunNotFound("the store holds no run" + (f" of kind {kind!r}" if kind else "") +
                                  f" ({self.path})")
            return int(row[0])
        raise RunNotFound(f"{ref!r} is not a run id (use a number from `rooflab history`, or 'latest')")

    def get(self, ref: str | int) -> dict:
        run_id = self.resolve(ref)
        row = self._db.execute("SELECT id, created, finished, kind, status, label, header, result FROM runs "
                               "WHERE id = ?", (run_id,)).fetchone()
        if row is None:
            raise RunNotFound(f"no run {run_id} in {self.path} (see `rooflab history`)")
        rid, created, finished, kind, status, label, header, result = row
        records = [{"name": n, **json.loads(d)} for n, d in self._db.execute(
            "SELECT name, data FROM records WHERE run_id = ? ORDER BY seq", (rid,))]
        doc = {"schema": schema_id("run"), "run_id": rid, "created": created, "finished": finished, "kind": kind, "status": status,
               "label": label, "header": json.loads(header), "records": records,
               "result": migrate(json.loads(result)) if result else None}
        return doc

    def result(self, run_id: int) -> dict | None:
        """The result document of one run (migrated), without its records; None when it has none."""
        row = self._db.execute("SELECT result FROM runs WHERE id = ?", (int(run_id),)).fetchone()
        if row is None:
            raise RunNotFound(f"no run {run_id} in {self.path} (see `rooflab history`)")
        return migrate(json.loads(row[0])) if row[0] else None

    def runs(self, *, kind: str | None = None, machine: str | None = None, since: str | None = None,
             until: str | None = None, limit: int = 50) -> list[dict]:
        q = ("SELECT r.id, r.created, r.kind, r.status, r.hostname, r.machine, r.label, "
             "(SELECT COUNT(*) FROM records WHERE run_id = r.id) FROM runs r WHERE 1=1")
        args: list = []
        if kind:
            q += " AND (r.kind = ? OR r.kind LIKE ?)"
            args += [kind, f"%{kind}%"]
        if machine:
            q += " AND (r.hostname LIKE ? OR r.machine LIKE ? OR r.header LIKE ?)"
            args += [f"%{machine}%"] * 3
        if since:
            q += " AND r.created >= ?"
            args.append(since)
        if until:
            q += " AND r.created <= ?"
            args.append(until)
        q += " ORDER BY r.id DESC LIMIT ?"
        args.append(limit)
        return [{"run_id": r[0], "created": r[1], "kind": r[2], "status": r[3], "hostname": r[4], "machine": r[5],
                 "label": r[6], "records": r[7]} for r in self._db.execute(q, args)]

    def __iter__(self) -> Iterator[dict]:
        return iter(self.runs(limit=1 << 30))
