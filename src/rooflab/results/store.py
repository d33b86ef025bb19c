"""The results store: one SQLite file, written in transactions.

A run is opened (status ``running``), each finished measurement is appended and committed on its own, and the run
is closed with its result (``complete``) or marked ``interrupted`` (Ctrl-C, SIGTERM). A run that was killed outright
stays ``running`` and shows as incomplete; what it had finished is still there. SQLite's journal (write-ahead log
where the file system allows it) guarantees the file is never left half-written, and readers never wait for a
writer. The file's layout has a version (``PRAGMA user_version``) and is migrated step by step when an older one is
opened. Every SQLite failure (locked for longer than the timeout, read-only, disk full, not a database) is one
:class:`~rooflab.errors.StoreError` saying what and where; a damaged row is reported for its run, the others still
read.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import sqlite3
from pathlib import Path
from typing import Iterator

import numpy as np

from rooflab.documents.stored import run_identity
from rooflab.errors import RooflabError, RunNotFound, StoreError
from rooflab.paths import default_store_path
from rooflab.results.schema import migrate, parse_schema, schema_id
from rooflab.results.validate import check_document

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
    if isinstance(o, np.generic):
        return o.item()
    raise TypeError(f"cannot store {type(o).__name__}")


LAYOUT_VERSION = 1  # PRAGMA user_version of the file layout this rooflab writes
# (from_version) -> SQL that brings a store to from_version + 1
LAYOUT_MIGRATIONS: dict[int, str] = {0: _DDL}
LOCK_TIMEOUT_S = 30.0
MAX_RUN_ID = 2 ** 63 - 1


def _advice(exc: BaseException) -> str:
    t = str(exc).lower()
    if "locked" in t or "busy" in t:
        return ("another process holds the store locked (a long write, or a crashed one holding its lock); wait, "
                "or use --store FILE for this command")
    if "readonly" in t or "read-only" in t:
        return "the store cannot be written here: use --store FILE on a writable disk, --no-store, or ROOFLAB_HOME"
    if "full" in t:
        return "the disk is full: free some space, or use --store FILE elsewhere"
    if "not a database" in t or "malformed" in t or "corrupt" in t:
        return "the file is not a rooflab store or is damaged: move it away, or use --store FILE"
    if "unable to open" in t:
        return "the store's folder cannot be written: use --store FILE, --no-store, or set ROOFLAB_HOME"
    return "use --store FILE to write elsewhere, or --no-store"


def lock_timeout() -> float:
    """How long to wait for a store another process holds locked: ROOFLAB_STORE_TIMEOUT seconds, else 30."""
    try:
        v = float(os.environ.get("ROOFLAB_STORE_TIMEOUT", LOCK_TIMEOUT_S))
    except ValueError:
        return LOCK_TIMEOUT_S
    return v if 0 <= v <= 3600 else LOCK_TIMEOUT_S


class Store:
    def __init__(self, path: str | Path | None = None, *, timeout_s: float | None = None):
        self.path = Path(path) if path else default_store_path()
        self._db = None
        self.read_only = False
        timeout_s = lock_timeout() if timeout_s is None else timeout_s
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError as exc:
            if not self.path.is_file():
                raise StoreError(f"cannot create the folder of the results store {self.path.parent}: "
                                 f"{exc.strerror}; use --store FILE, --no-store, or set ROOFLAB_HOME to a writable "
                                 "folder") from None
        try:
            self._connect(timeout_s)
        except StoreError:
            if not (self.path.is_file() and not os.access(self.path.parent, os.W_OK | os.X_OK)
                    or self._probe_read_only()):
                raise
            # a store on a read-only medium (or in a folder that cannot be written) still reads: opened as it is
            self.close()
            with self._sql("open read-only"):
                uri = f"file:{self.path.resolve()}?mode=ro&immutable=1"
                self._db = sqlite3.connect(uri, uri=True, timeout=timeout_s)
                self._db.execute("SELECT COUNT(*) FROM runs").fetchone()
            self.read_only = True

    def _connect(self, timeout_s: float) -> None:
        with self._sql("open"):
            self._db = sqlite3.connect(str(self.path), timeout=timeout_s)
            self._db.execute("PRAGMA foreign_keys = ON")
            self._migrate_layout()
            try:  # readers never wait for a writer; a file system without shared memory keeps the rollback journal
                self._db.execute("PRAGMA journal_mode = WAL")
            except sqlite3.OperationalError:
                pass

    def _probe_read_only(self) -> bool:
        """Whether the store's file system refuses writes (a read-only mount): then it can still be read."""
        if not self.path.is_file():
            return False
        try:
            fd = os.open(self.path, os.O_RDWR)
            os.close(fd)
            return False
        except OSError as exc:
            return exc.errno in (30, 13, 1)  # EROFS, EACCES, EPERM

    @contextlib.contextmanager
    def _sql(self, what: str):
        """Every SQLite error of one operation as a StoreError naming the operation, the file and what to do."""
        try:
            yield
        except sqlite3.Error as exc:
            raise StoreError(f"results store {self.path}: cannot {what}: {exc} — {_advice(exc)}") from None
        except OverflowError:
            raise StoreError(f"results store {self.path}: cannot {what}: a number too large for it") from None

    def _migrate_layout(self) -> None:
        (ver,) = self._db.execute("PRAGMA user_version").fetchone()
        if ver > LAYOUT_VERSION:
            raise StoreError(f"the results store {self.path} was written by a newer rooflab (layout {ver}, this one "
                             f"knows {LAYOUT_VERSION}); upgrade rooflab or use --store FILE")
        has_runs = self._db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'runs'").fetchone()
        if ver == 0 and has_runs:
            ver = 1  # a store from before the layout had a version: it is layout 1
            self._db.execute(f"PRAGMA user_version = {ver}")
        while ver < LAYOUT_VERSION:
            self._db.executescript(LAYOUT_MIGRATIONS[ver])
            ver += 1
            self._db.execute(f"PRAGMA user_version = {ver}")
        self._db.commit()

    def close(self) -> None:
        if self._db is not None:
            self._db.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ---------------------------------------------------------------------------------------------- writing
    def begin(self, kind: str, header: dict, *, label: str | None = None) -> int:
        key, host = run_identity(header)
        with self._sql("start a run"), self._db:
            cur = self._db.execute(
                "INSERT INTO runs (created, kind, status, hostname, machine, label, header) VALUES (?,?,?,?,?,?,?)",
                (_now(), kind, "running", host, key, label, _dumps(header)))
        return int(cur.lastrowid)

    def save(self, kind: str, header: dict, result: dict, records: list[tuple[str, dict]] = (), *,
             status: str = "complete", label: str | None = None) -> int:
        """A whole run in one transaction (an MPI job's rank 0 writes the job this way)."""
        key, host = run_identity(header)
        with self._sql("save a run"), self._db:
            cur = self._db.execute(
                "INSERT INTO runs (created, finished, kind, status, hostname, machine, label, header, result) "
                "VALUES (?,?,?,?,?,?,?,?,?)",
                (_now(), _now(), kind, status, host, key, label, _dumps(header), _dumps(result)))
            run_id = int(cur.lastrowid)
            self._db.executemany("INSERT INTO records (run_id, seq, name, data) VALUES (?,?,?,?)",
                                 [(run_id, i, n, _dumps(d)) for i, (n, d) in enumerate(records)])
        return run_id

    def add_record(self, run_id: int, name: str, data: dict) -> None:
        with self._sql("record a measurement"), self._db:
            (seq,) = self._db.execute("SELECT COALESCE(MAX(seq), -1) + 1 FROM records WHERE run_id = ?",
                                      (run_id,)).fetchone()
            self._db.execute("INSERT INTO records (run_id, seq, name, data) VALUES (?,?,?,?)",
                             (run_id, seq, name, _dumps(data)))

    def finish(self, run_id: int, result: dict, status: str = "complete") -> None:
        with self._sql("store the run's result"), self._db:
            self._db.execute("UPDATE runs SET result = ?, status = ?, finished = ? WHERE id = ?",
                             (_dumps(result), status, _now(), run_id))

    def mark(self, run_id: int, status: str) -> None:
        with self._sql("mark the run"), self._db:
            self._db.execute("UPDATE runs SET status = ?, finished = ? WHERE id = ?", (status, _now(), run_id))

    # ---------------------------------------------------------------------------------------------- reading
    def resolve(self, ref: str | int) -> int:
        """A run id from '12', 12, 'latest' / 'last', or 'latest:KIND'."""
        s = str(ref).strip()
        if s.isascii() and s.isdigit():
            n = int(s)
            if n > MAX_RUN_ID:
                raise RunNotFound(f"{ref!r} is not a run of this store (see `rooflab history`)")
            return n
        if s in ("latest", "last") or s.startswith(("latest:", "last:")):
            kind = s.split(":", 1)[1] if ":" in s else None
            q = "SELECT id FROM runs" + (" WHERE kind = ?" if kind else "") + " ORDER BY id DESC LIMIT 1"
            with self._sql("find the latest run"):
                row = self._db.execute(q, (kind,) if kind else ()).fetchone()
            if row is None:
                raise RunNotFound("the store holds no run" + (f" of kind {kind!r}" if kind else "") +
                                  f" ({self.path})")
            return int(row[0])
        raise RunNotFound(f"{ref!r} is not a run id (use a number from `rooflab history`, or 'latest')")

    def _json(self, text: str, run_id: int, what: str):
        try:
            return json.loads(text)
        except (ValueError, TypeError, RecursionError) as exc:
            raise StoreError(f"run {run_id} in {self.path} is damaged: its {what} is not valid JSON ({exc}); the "
                             "other runs are unaffected") from None

    def get(self, ref: str | int) -> dict:
        run_id = self.resolve(ref)
        with self._sql(f"read run {run_id}"):
            row = self._db.execute("SELECT id, created, finished, kind, status, label, header, result FROM runs "
                                   "WHERE id = ?", (run_id,)).fetchone()
            if row is None:
                raise RunNotFound(f"no run {run_id} in {self.path} (see `rooflab history`)")
            rid, created, finished, kind, status, label, header, result = row
            recs = list(self._db.execute("SELECT name, data FROM records WHERE run_id = ? ORDER BY seq", (rid,)))
        records = []
        for n, d in recs:
            data = self._json(d, rid, f"record {n!r}")
            records.append({"name": n, **(data if isinstance(data, dict) else {"value": data})})
        res = self._json(result, rid, "result") if result else None
        if res is not None:
            if not isinstance(res, dict):
                raise StoreError(f"run {rid} in {self.path} is damaged: its result is not a document")
            res = self._checked(res, rid)
        head = self._json(header, rid, "header")
        if not isinstance(head, dict):
            raise StoreError(f"run {rid} in {self.path} is damaged: its header is not a document")
        doc = {"schema": schema_id("run"), "run_id": rid, "created": created, "finished": finished, "kind": kind,
               "status": status, "label": label, "header": head, "records": records, "result": res}
        return doc

    def result(self, run_id: int) -> dict | None:
        """The result document of one run (migrated), without its records; None when it has none."""
        with self._sql(f"read run {run_id}"):
            row = self._db.execute("SELECT result FROM runs WHERE id = ?", (int(run_id),)).fetchone()
        if row is None:
            raise RunNotFound(f"no run {run_id} in {self.path} (see `rooflab history`)")
        if not row[0]:
            return None
        res = self._json(row[0], run_id, "result")
        if not isinstance(res, dict):
            raise StoreError(f"run {run_id} in {self.path} is damaged: its result is not a document")
        return self._checked(res, run_id)

    def _checked(self, res: dict, run_id: int) -> dict:
        """A result brought to the current schema and checked (rooflab.results.validate)."""
        try:
            res = migrate(res)
            return check_document(parse_schema(res["schema"])[0], res)
        except RooflabError as exc:
            raise StoreError(f"run {run_id} in {self.path} is damaged or was edited by hand: {exc}") from None

    def runs(self, *, kind: str | None = None, machine: str | None = None, since: str | None = None,
             until: str | None = None, limit: int = 50) -> list[dict]:
        q = ("SELECT r.id, r.created, r.kind, r.status, r.hostname, r.machine, r.label, "
             "(SELECT COUNT(*) FROM records WHERE run_id = r.id) FROM runs r WHERE 1=1")
        args: list = []
        if kind:
            q += " AND (r.kind = ? OR r.kind LIKE ?)"
            args += [kind, f"%{kind}%"]
        if machine:  # the machine's key or host name, never any text of the header
            q += " AND (r.hostname LIKE ? OR r.machine LIKE ?)"
            args += [f"%{machine}%"] * 2
        if since:
            q += " AND r.created >= ?"
            args.append(since)
        if until:
            q += " AND r.created <= ?"
            args.append(until)
        q += " ORDER BY r.id DESC LIMIT ?"
        args.append(min(int(limit), MAX_RUN_ID))
        with self._sql("list the runs"):
            rows = list(self._db.execute(q, args))
        return [{"run_id": r[0], "created": r[1], "kind": r[2], "status": r[3], "hostname": r[4], "machine": r[5],
                 "label": r[6], "records": r[7]} for r in rows]

    def __iter__(self) -> Iterator[dict]:
        return iter(self.runs(limit=1 << 30))


def read_run_file(path: str | Path) -> dict:
    """A run saved to a file because the store could not be written (``rooflab-unsaved-*.json``), as ``get`` returns
    a stored run, so that `rooflab show FILE` draws it like any other."""
    p = Path(path)
    try:
        raw = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise StoreError(f"{p}: cannot read a saved run ({exc})") from None
    if not isinstance(raw, dict) or raw.get("schema") != "rooflab.run/1" or not isinstance(raw.get("header"), dict):
        raise StoreError(f"{p}: not a run saved by rooflab")
    result = raw.get("result") if isinstance(raw.get("result"), dict) else None
    if result is not None and "schema" in result:
        try:
            result = migrate(result)
            result = check_document(parse_schema(result["schema"])[0], result)
        except RooflabError as exc:
            raise StoreError(f"{p}: {exc}") from None
    created = _dt.datetime.fromtimestamp(p.stat().st_mtime, _dt.timezone.utc).isoformat(timespec="seconds")
    return {"schema": schema_id("run"), "run_id": p.name, "created": created, "finished": created,
            "kind": raw.get("kind", "?"), "status": raw.get("status", "?"), "label": None, "header": raw["header"],
            "records": [r for r in raw.get("records", []) if isinstance(r, dict)], "result": result}
