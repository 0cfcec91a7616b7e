"""Conformance reports run from the page (docs/conform.md, "In the page"): one row each, with
its state (``running``, ``done``, ``failed``), the cases it was asked to run, the report
document as ``streamscope conform --json`` prints it (rewritten after each case, so that any
process reads the progress) and the ids of the captures its cases recorded, which are stored as
any capture is and go with the report. A report expires as captures do (``EXPIRY``) and is
deleted with its delete token (kept hashed, as a capture's is)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import orjson

from .base import hash_token, new_id, new_token, token_matches

STATES = ("running", "done", "failed")
COLUMNS = "id, created, updated, expires, delete_hash, state, planned, document, error, captures"


@dataclass
class ConformRecord:
    id: str
    created: float
    updated: float
    expires: float | None
    delete_hash: str
    state: str
    planned: list[str]
    document: dict[str, Any] | None = None
    error: str | None = None
    captures: list[str] = field(default_factory=list)

    def expired(self, now: float | None = None) -> bool:
        return self.expires is not None and (now or time.time()) >= self.expires

    def public(self) -> dict[str, Any]:
        """What ``GET /api/conform/<id>`` answers (never the token's hash)."""
        return {
            "id": self.id,
            "state": self.state,
            "created": self.created,
            "updated": self.updated,
            "expires": self.expires,
            "planned": self.planned,
            "error": self.error,
            "report": self.document,
        }


class ConformSQL:
    """The report operations of ``SQLStore`` (which provides ``_tx``, ``_db``, ``_run`` and
    ``_drop_capture``)."""

    def _tx(self) -> Any: ...
    def _db(self) -> Any: ...
    def _run(self, db: Any, text: str, params: tuple = ()) -> Any: ...
    def _drop_capture(self, db: Any, capture_id: str) -> None: ...

    def add_report(self, planned: list[str], expires_in: float | None) -> tuple[ConformRecord, str]:
        """A report in state ``running``, no case done yet; its delete token (shown once)."""
        token = new_token()
        now = time.time()
        record = ConformRecord(
            id=new_id(),
            created=now,
            updated=now,
            expires=None if expires_in is None else now + expires_in,
            delete_hash=hash_token(token),
            state="running",
            planned=list(planned),
        )
        with self._tx() as db:
            self._run(
                db,
                f"INSERT INTO conform_reports ({COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (
                    record.id,
                    record.created,
                    record.updated,
                    record.expires,
                    record.delete_hash,
                    record.state,
                    orjson.dumps(record.planned).decode(),
                    None,
                    None,
                    "[]",
                ),
            )
        return record, token

    def _report_row(self, db: Any, report_id: str) -> ConformRecord | None:
        row = self._run(
            db, f"SELECT {COLUMNS} FROM conform_reports WHERE id = ?", (report_id,)
        ).fetchone()
        if row is None:
            return None
        values = list(row)
        values[6] = orjson.loads(values[6])
        values[7] = orjson.loads(values[7]) if values[7] is not None else None
        values[9] = orjson.loads(values[9])
        return ConformRecord(*values)

    def report(self, report_id: str) -> ConformRecord | None:
        """The report, or None when absent or expired."""
        record = self._report_row(self._db(), report_id)
        if record is None or record.expired():
            return None
        return record

    def update_report(
        self,
        report_id: str,
        *,
        state: str | None = None,
        document: dict[str, Any] | None = None,
        error: str | None = None,
        add_capture: str | None = None,
    ) -> bool:
        """Change what is given (its state, its document, why it failed, one more capture its
        cases recorded); False when the report is gone (deleted while it ran)."""
        if state is not None and state not in STATES:
            raise ValueError(f"state must be one of {', '.join(STATES)}")
        with self._tx() as db:
            record = self._report_row(db, report_id)
            if record is None:
                return False
            captures = record.captures + ([add_capture] if add_capture else [])
            kept = document if document is not None else record.document
            self._run(
                db,
                "UPDATE conform_reports SET updated = ?, state = ?, document = ?, error = ?, "
                "captures = ? WHERE id = ?",
                (
                    time.time(),
                    state or record.state,
                    None if kept is None else orjson.dumps(kept).decode(),
                    error if error is not None else record.error,
                    orjson.dumps(captures).decode(),
                    report_id,
                ),
            )
        return True

    def delete_report(self, report_id: str, token: str | None) -> list[str] | None:
        """Delete the report and its captures if the token is right: the captures' ids;
        None when absent; a wrong token raises PermissionError."""
        with self._tx() as db:
            record = self._report_row(db, report_id)
            if record is None or record.expired():
                return None
            if not token_matches(token, record.delete_hash):
                raise PermissionError("wrong or missing delete token")
            for capture_id in record.captures:
                self._drop_capture(db, capture_id)
            self._run(db, "DELETE FROM conform_reports WHERE id = ?", (report_id,))
        return record.captures

    def _purge_reports(self, db: Any, now: float) -> int:
        """Expired reports (their captures expire with them, and are purged as captures)."""
        return int(
            self._run(
                db,
                "DELETE FROM conform_reports WHERE expires IS NOT NULL AND expires <= ?",
                (now,),
            ).rowcount
        )
