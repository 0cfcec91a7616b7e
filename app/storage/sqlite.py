"""SQLite capture store (standard library ``sqlite3``, WAL mode).

Each thread gets its own connection (sqlite3 connections are not shared between threads);
WAL lets readers go on while one writer writes. Every write is one transaction, so a capture
is either fully there or not at all. Bytes live in ``capture_parts`` so that a live recording
can grow by appending without rewriting what is already stored.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
import time
from pathlib import Path

import orjson

from .base import CaptureRecord, NewCapture, hash_token, new_id, new_token, token_matches

SCHEMA = """
CREATE TABLE IF NOT EXISTS captures (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    format TEXT NOT NULL,
    created REAL NOT NULL,
    size INTEGER NOT NULL,
    streams INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    expires REAL,
    delete_hash TEXT NOT NULL,
    redacted TEXT NOT NULL,
    compression TEXT,
    source TEXT NOT NULL DEFAULT 'upload'
);
CREATE TABLE IF NOT EXISTS capture_parts (
    capture_id TEXT NOT NULL REFERENCES captures(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (capture_id, seq)
);
CREATE INDEX IF NOT EXISTS captures_expires ON captures(expires);
"""
COLUMNS = "id, title, format, created, size, streams, sha256, expires, delete_hash, redacted, compression, source"


class SQLiteStore:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self._db().executescript(SCHEMA)  # executescript manages its own transaction

    # ------------------------------------------------------------------ connections
    def _db(self) -> sqlite3.Connection:
        db = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(
                self.path, timeout=30, isolation_level=None, check_same_thread=False
            )
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA foreign_keys=ON")
            self._local.db = db
            with self._lock:
                self._connections.append(db)
        return db

    class _Transaction:
        def __init__(self, db: sqlite3.Connection) -> None:
            self.db = db

        def __enter__(self) -> sqlite3.Connection:
            self.db.execute("BEGIN IMMEDIATE")
            return self.db

        def __exit__(self, kind: object, *_: object) -> None:
            self.db.execute("ROLLBACK" if kind else "COMMIT")

    def _tx(self) -> SQLiteStore._Transaction:
        return self._Transaction(self._db())

    # ------------------------------------------------------------------ operations
    def add(self, capture: NewCapture) -> tuple[CaptureRecord, str]:
        token = new_token()
        now = time.time()
        record = CaptureRecord(
            id=new_id(),
            title=capture.title,
            format=capture.format,
            created=now,
            size=len(capture.data),
            streams=capture.streams,
            sha256=hashlib.sha256(capture.data).hexdigest(),
            expires=None if capture.expires_in is None else now + capture.expires_in,
            delete_hash=hash_token(token),
            redacted=capture.redacted,
            compression=capture.compression,
            source=capture.source,
        )
        with self._tx() as db:
            db.execute(
                f"INSERT INTO captures ({COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                self._row(record),
            )
            db.execute("INSERT INTO capture_parts VALUES (?, 0, ?)", (record.id, capture.data))
        return record, token

    @staticmethod
    def _row(record: CaptureRecord) -> tuple:
        return (
            record.id,
            record.title,
            record.format,
            record.created,
            record.size,
            record.streams,
            record.sha256,
            record.expires,
            record.delete_hash,
            orjson.dumps(record.redacted).decode(),
            record.compression,
            record.source,
        )

    def _record(self, capture_id: str) -> CaptureRecord | None:
        row = (
            self._db()
            .execute(f"SELECT {COLUMNS} FROM captures WHERE id = ?", (capture_id,))
            .fetchone()
        )
        if row is None:
            return None
        values = list(row)
        values[9] = orjson.loads(values[9])
        return CaptureRecord(*values)

    def get(self, capture_id: str) -> CaptureRecord | None:
        record = self._record(capture_id)
        if record is None or record.expired():
            return None
        return record

    def read_bytes(self, capture_id: str) -> bytes:
        rows = (
            self._db()
            .execute(
                "SELECT data FROM capture_parts WHERE capture_id = ? ORDER BY seq", (capture_id,)
            )
            .fetchall()
        )
        if not rows and self._record(capture_id) is None:
            raise KeyError(capture_id)
        return b"".join(row[0] for row in rows)

    def update(self, capture_id: str, token: str | None, *, title: str) -> CaptureRecord | None:
        with self._tx() as db:
            record = self._record(capture_id)
            if record is None or record.expired():
                return None
            if not token_matches(token, record.delete_hash):
                raise PermissionError("wrong or missing token")
            db.execute("UPDATE captures SET title = ? WHERE id = ?", (title, capture_id))
        record.title = title
        return record

    def append(self, capture_id: str, data: bytes) -> None:
        with self._tx() as db:
            (seq,) = db.execute(
                "SELECT COALESCE(MAX(seq), -1) + 1 FROM capture_parts WHERE capture_id = ?",
                (capture_id,),
            ).fetchone()
            db.execute("INSERT INTO capture_parts VALUES (?, ?, ?)", (capture_id, seq, data))
            db.execute("UPDATE captures SET size = size + ? WHERE id = ?", (len(data), capture_id))

    def finish(self, capture_id: str, *, streams: int, fmt: str) -> None:
        digest = hashlib.sha256(self.read_bytes(capture_id)).hexdigest()
        with self._tx() as db:
            db.execute(
                "UPDATE captures SET streams = ?, format = ?, sha256 = ? WHERE id = ?",
                (streams, fmt, digest, capture_id),
            )

    def delete(self, capture_id: str, token: str | None) -> bool:
        with self._tx() as db:
            record = self._record(capture_id)
            if record is None or record.expired():
                return False
            if not token_matches(token, record.delete_hash):
                raise PermissionError("wrong or missing delete token")
            db.execute("DELETE FROM captures WHERE id = ?", (capture_id,))
        return True

    def purge_expired(self) -> int:
        with self._tx() as db:
            cursor = db.execute(
                "DELETE FROM captures WHERE expires IS NOT NULL AND expires <= ?", (time.time(),)
            )
            return cursor.rowcount

    def close(self) -> None:
        with self._lock:
            for db in self._connections:
                db.close()
            self._connections.clear()
        self._local = threading.local()
