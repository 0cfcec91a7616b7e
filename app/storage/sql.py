"""The capture store's SQL, shared by the SQLite and PostgreSQL backends (its schema:
migrations.py).

A backend gives a connection per thread, a transaction context and its dialect (placeholder,
blob and JSON column types); everything else is here. Each write is one transaction, so a
capture is fully there or not at all. Bytes live in ``capture_parts`` so that a live recording
grows by appending rows, never by rewriting what is stored.
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import AbstractContextManager
from typing import Any

import orjson

from .base import CaptureRecord, NewCapture, hash_token, new_id, new_token, token_matches
from .conform import ConformSQL
from .documents import DocumentsSQL
from .judges import JudgesSQL
from .markers import MarkerSQL
from .rooms import RoomsSQL
from .runcalls import RunCallsSQL

COLUMNS = "id, title, format, created, size, streams, sha256, expires, delete_hash, redacted, compression, source, dialect, notes"


class SQLStore(MarkerSQL, RoomsSQL, DocumentsSQL, JudgesSQL, ConformSQL, RunCallsSQL):
    """Subclasses provide ``_connect()``, ``_transaction(db)``, ``PLACEHOLDER`` and ``BLOB``."""

    PLACEHOLDER = "?"
    BLOB = "BLOB"

    def __init__(self) -> None:
        self._local = threading.local()
        self._connections: list[Any] = []
        self._lock = threading.Lock()
        self.migrated = self._migrate()  # what this open applied (migrations.py)

    # ------------------------------------------------------------------ backend hooks
    def _connect(self) -> Any:
        raise NotImplementedError

    def _transaction(self, db: Any) -> AbstractContextManager[Any]:
        raise NotImplementedError

    def _migrate(self) -> list[str]:
        """Bring the schema up to date (``migrations.migrate``), one migrator at a time."""
        raise NotImplementedError

    def execute(self, statement: str, parameters: tuple[Any, ...] = ()) -> Any:
        """One statement on this thread's connection (a migration's step)."""
        return self._db().execute(statement, parameters)

    def columns(self, table: str) -> set[str]:
        raise NotImplementedError

    # ------------------------------------------------------------------ plumbing
    def _db(self) -> Any:
        db = getattr(self._local, "db", None)
        if db is None:
            db = self._local.db = self._connect()
            with self._lock:
                self._connections.append(db)
            # Closed when its thread is gone: connection threads come and go (threadpool.py),
            # and their connections must not keep file descriptors open after them.
            weakref.finalize(threading.current_thread(), self._close_connection, db)
        return db

    def _close_connection(self, db: Any) -> None:
        with self._lock:
            if db in self._connections:
                self._connections.remove(db)
        with contextlib.suppress(Exception):  # already closed, or the server went away
            db.close()

    def _sql(self, text: str) -> str:
        return text.replace("?", self.PLACEHOLDER)

    def _run(self, db: Any, text: str, params: tuple = ()) -> Any:
        return db.execute(self._sql(text), params)

    def _tx(self) -> AbstractContextManager[Any]:
        return self._transaction(self._db())

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
            dialect=capture.dialect,
            notes=capture.notes,
        )
        with self._tx() as db:
            self._run(
                db,
                f"INSERT INTO captures ({COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                _row(record),
            )
            self._run(
                db,
                "INSERT INTO capture_parts (capture_id, seq, data, byte_at) VALUES (?, 0, ?, 0)",
                (record.id, capture.data),
            )
        return record, token

    def _record(self, db: Any, capture_id: str) -> CaptureRecord | None:
        row = self._run(
            db, f"SELECT {COLUMNS} FROM captures WHERE id = ?", (capture_id,)
        ).fetchone()
        if row is None:
            return None
        values = list(row)
        values[9] = orjson.loads(values[9])
        values[13] = orjson.loads(values[13])
        return CaptureRecord(*values)

    def get(self, capture_id: str) -> CaptureRecord | None:
        record = self._record(self._db(), capture_id)
        if record is None or record.expired():
            return None
        return record

    def read_bytes(self, capture_id: str) -> bytes:
        return b"".join(self._parts(capture_id))

    def read_from(self, capture_id: str, start: int) -> bytes:
        """The stored bytes from byte ``start`` on: the parts after the one it falls in are
        read, not those before (their offsets are indexed: migrations.py, m007)."""
        db = self._db()
        rows = self._run(
            db,
            "SELECT byte_at, data FROM capture_parts WHERE capture_id = ? AND seq >= "
            "COALESCE((SELECT seq FROM capture_parts WHERE capture_id = ? AND byte_at <= ? "
            "ORDER BY byte_at DESC LIMIT 1), 0) ORDER BY seq",
            (capture_id, capture_id, start),
        ).fetchall()
        if not rows and self._record(db, capture_id) is None:
            raise KeyError(capture_id)
        data = b"".join(bytes(row[1]) for row in rows)
        first = int(rows[0][0]) if rows else start
        return data[max(0, start - first) :]

    def _parts(self, capture_id: str) -> Iterator[bytes]:
        db = self._db()
        # One statement: a consistent snapshot of a capture that may be growing.
        rows = self._run(
            db, "SELECT data FROM capture_parts WHERE capture_id = ? ORDER BY seq", (capture_id,)
        ).fetchall()
        if not rows and self._record(db, capture_id) is None:
            raise KeyError(capture_id)
        return (bytes(row[0]) for row in rows)

    def update(self, capture_id: str, token: str | None, *, title: str) -> CaptureRecord | None:
        with self._tx() as db:
            record = self._record(db, capture_id)
            if record is None or record.expired():
                return None
            if not token_matches(token, record.delete_hash):
                raise PermissionError("wrong or missing token")
            self._run(db, "UPDATE captures SET title = ? WHERE id = ?", (title, capture_id))
        record.title = title
        return record

    def append(
        self, capture_id: str, data: bytes, *, redacted: list[dict[str, Any]] | None = None
    ) -> None:
        with self._tx() as db:
            row = self._run(
                db,
                "UPDATE captures SET size = size + ?, parts = parts + 1 WHERE id = ? "
                "RETURNING parts, size",
                (len(data), capture_id),
            ).fetchone()
            if row is None:
                raise KeyError(capture_id)
            self._run(
                db,
                "INSERT INTO capture_parts (capture_id, seq, data, byte_at) VALUES (?, ?, ?, ?)",
                (capture_id, row[0] - 1, data, row[1] - len(data)),
            )
            if redacted is not None:
                self._set_redacted(db, capture_id, redacted)

    def finish(
        self,
        capture_id: str,
        *,
        streams: int,
        fmt: str,
        redacted: list[dict[str, Any]] | None = None,
    ) -> None:
        digest = hashlib.sha256(self.read_bytes(capture_id)).hexdigest()
        with self._tx() as db:
            self._run(
                db,
                "UPDATE captures SET streams = ?, format = ?, sha256 = ? WHERE id = ?",
                (streams, fmt, digest, capture_id),
            )
            if redacted is not None:
                self._set_redacted(db, capture_id, redacted)

    def _set_redacted(self, db: Any, capture_id: str, redacted: list[dict[str, Any]]) -> None:
        self._run(
            db,
            "UPDATE captures SET redacted = ? WHERE id = ?",
            (orjson.dumps(redacted).decode(), capture_id),
        )

    def delete(self, capture_id: str, token: str | None) -> bool:
        with self._tx() as db:
            record = self._record(db, capture_id)
            if record is None or record.expired():
                return False
            if not token_matches(token, record.delete_hash):
                raise PermissionError("wrong or missing delete token")
            self._drop_capture(db, capture_id)
        return True

    def _drop_capture(self, db: Any, capture_id: str) -> None:
        """A capture's rows, in the caller's transaction (a deleted capture, or a deleted
        conformance report's: conform.py)."""
        self._run(db, "DELETE FROM capture_parts WHERE capture_id = ?", (capture_id,))
        self._run(db, "DELETE FROM capture_markers WHERE capture_id = ?", (capture_id,))
        self._run(db, "DELETE FROM capture_judges WHERE capture_id = ?", (capture_id,))
        self._run(db, "DELETE FROM run_calls WHERE capture_id = ?", (capture_id,))
        self._run(db, "DELETE FROM captures WHERE id = ?", (capture_id,))

    def purge_expired(self) -> int:
        now = time.time()
        with self._tx() as db:
            expired = "SELECT id FROM captures WHERE expires IS NOT NULL AND expires <= ?"
            self._run(db, f"DELETE FROM capture_parts WHERE capture_id IN ({expired})", (now,))
            self._run(db, f"DELETE FROM capture_markers WHERE capture_id IN ({expired})", (now,))
            self._run(db, f"DELETE FROM capture_judges WHERE capture_id IN ({expired})", (now,))
            self._run(db, f"DELETE FROM run_calls WHERE capture_id IN ({expired})", (now,))
            self._purge_reports(db, now)
            return self._run(
                db, "DELETE FROM captures WHERE expires IS NOT NULL AND expires <= ?", (now,)
            ).rowcount

    def close(self) -> None:
        with self._lock:
            for db in self._connections:
                db.close()
            self._connections.clear()
        self._local = threading.local()


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
        record.dialect,
        orjson.dumps(record.notes).decode(),
    )
