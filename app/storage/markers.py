"""Markers: notes pinned to moments of a stored capture (docs/teaching.md, "Markers").

A marker is kept with its capture (``capture_markers``, deleted with it) and written only with
the capture's delete token. Its fields are checked by ``app.markers`` before they get here; the
store keeps them as one JSON text so that a new optional field needs no migration.
"""

from __future__ import annotations

import secrets
import time
from typing import Any

import orjson

from .base import CaptureRecord, token_matches

MARKER_ID_BYTES = 6  # 8 URL-safe characters: unique within one capture's few markers


class TooManyMarkers(Exception):
    """The capture already has as many markers as it may."""


class MarkerSQL:
    """The marker operations of ``SQLStore`` (which provides ``_tx``, ``_db``, ``_run`` and
    ``_record``)."""

    def _tx(self) -> Any: ...
    def _db(self) -> Any: ...
    def _run(self, db: Any, text: str, params: tuple = ()) -> Any: ...
    def _record(self, db: Any, capture_id: str) -> CaptureRecord | None: ...

    def _owned(self, db: Any, capture_id: str, token: str | None) -> CaptureRecord | None:
        record = self._record(db, capture_id)
        if record is None or record.expired():
            return None
        if not token_matches(token, record.delete_hash):
            raise PermissionError("wrong or missing delete token")
        return record

    def add_marker(
        self, capture_id: str, token: str | None, fields: dict[str, Any], limit: int
    ) -> dict[str, Any] | None:
        """Pin a marker (fields already checked); None when the capture is absent; raises
        PermissionError (wrong token) or TooManyMarkers (``limit`` reached)."""
        with self._tx() as db:
            if self._owned(db, capture_id, token) is None:
                return None
            count = self._run(
                db, "SELECT COUNT(*) FROM capture_markers WHERE capture_id = ?", (capture_id,)
            ).fetchone()[0]
            if count >= limit:
                raise TooManyMarkers(f"this capture already has {count} markers (at most {limit})")
            marker = {"id": secrets.token_urlsafe(MARKER_ID_BYTES), **fields}
            marker["created"] = time.time()
            self._run(
                db,
                "INSERT INTO capture_markers VALUES (?, ?, ?, ?)",
                (capture_id, marker["id"], marker["created"], orjson.dumps(marker).decode()),
            )
        return marker

    def markers(self, capture_id: str) -> list[dict[str, Any]]:
        """A capture's markers in the order they were added."""
        rows = self._run(
            self._db(),
            "SELECT body FROM capture_markers WHERE capture_id = ? ORDER BY created, id",
            (capture_id,),
        ).fetchall()
        return [orjson.loads(row[0]) for row in rows]

    def delete_marker(self, capture_id: str, token: str | None, marker_id: str) -> bool:
        """Remove one marker: True; absent capture or marker: False; wrong token:
        PermissionError."""
        with self._tx() as db:
            if self._owned(db, capture_id, token) is None:
                return False
            cursor = self._run(
                db,
                "DELETE FROM capture_markers WHERE capture_id = ? AND id = ?",
                (capture_id, marker_id),
            )
            return bool(cursor.rowcount)
