"""The client judges' verdicts on a capture, kept with it (docs/judges.md, "On a server"): the
last run's verdicts, one list per stream, as ``POST /api/captures/<id>/judges`` made them; a
capture's row goes with it."""

from __future__ import annotations

import time
from typing import Any

import orjson


class JudgesSQL:
    """The verdict operations of ``SQLStore`` (which provides ``_tx``, ``_db`` and ``_run``)."""

    def _tx(self) -> Any: ...
    def _db(self) -> Any: ...
    def _run(self, db: Any, text: str, params: tuple = ()) -> Any: ...

    def judge_verdicts(self, capture_id: str) -> dict[str, Any] | None:
        """``{"streams": [[verdict, ...], ...], "created": time}`` of the last run, or None."""
        row = self._run(
            self._db(),
            "SELECT created, verdicts FROM capture_judges WHERE capture_id = ?",
            (capture_id,),
        ).fetchone()
        if not row:
            return None
        return {"streams": orjson.loads(row[1]), "created": float(row[0])}

    def remember_verdicts(self, capture_id: str, streams: list[list[dict[str, Any]]]) -> None:
        """Keep a run's verdicts in place of the last (nothing when the capture is gone)."""
        with self._tx() as db:
            if self._run(db, "SELECT 1 FROM captures WHERE id = ?", (capture_id,)).fetchone():
                self._run(
                    db,
                    "INSERT INTO capture_judges (capture_id, created, verdicts) VALUES (?, ?, ?) "
                    "ON CONFLICT (capture_id) DO UPDATE SET created = excluded.created, "
                    "verdicts = excluded.verdicts",
                    (capture_id, time.time(), orjson.dumps(streams).decode()),
                )
