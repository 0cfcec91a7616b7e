"""Each proxied call's run, kept with its recording (docs/runs.md, "Across processes"): which
run, for which client and upstream, when, and what a later call is matched against (the call's
messages and answer: ``app/domain/callruns.py``'s ``turn_json``, at most ``MAX_TURN``
characters, else none kept). A capture's row goes with it."""

from __future__ import annotations

from typing import Any

import orjson

MAX_TURN = 1 << 20  # characters of one call's kept messages and answer


class RunCallsSQL:
    """The run operations of ``SQLStore`` (which provides ``_tx``, ``_db`` and ``_run``)."""

    def _tx(self) -> Any: ...
    def _db(self) -> Any: ...
    def _run(self, db: Any, text: str, params: tuple = ()) -> Any: ...

    def remember_run_call(
        self, capture_id: str, run: str, key: str, created: float, turn: dict[str, Any] | None
    ) -> None:
        """Keep the call's run (nothing when its capture is gone)."""
        text = orjson.dumps(turn).decode() if turn is not None else None
        if text is not None and len(text) > MAX_TURN:
            text = None
        with self._tx() as db:
            if self._run(db, "SELECT 1 FROM captures WHERE id = ?", (capture_id,)).fetchone():
                self._run(
                    db,
                    "INSERT INTO run_calls (capture_id, run_id, client_key, created, turn) "
                    "VALUES (?, ?, ?, ?, ?) ON CONFLICT (capture_id) DO UPDATE SET "
                    "run_id = excluded.run_id, turn = excluded.turn",
                    (capture_id, run, key, created, text),
                )

    def recent_run_calls(self, key: str, since: float, limit: int) -> list[dict[str, Any]]:
        """The newest calls of ``key`` made since ``since`` (at most ``limit``), each with its
        capture id, run, start and kept turn (None when none was kept)."""
        rows = self._run(
            self._db(),
            "SELECT capture_id, run_id, created, turn FROM run_calls "
            "WHERE client_key = ? AND created >= ? ORDER BY created DESC LIMIT ?",
            (key, since, limit),
        ).fetchall()
        return [
            {
                "capture_id": row[0],
                "run": row[1],
                "created": float(row[2]),
                "turn": orjson.loads(row[3]) if row[3] is not None else None,
            }
            for row in rows
        ]

    def run_call_ids(self, run: str, limit: int) -> list[str]:
        """The capture ids of a run's calls, oldest first (at most ``limit``)."""
        rows = self._run(
            self._db(),
            "SELECT capture_id FROM run_calls WHERE run_id = ? ORDER BY created LIMIT ?",
            (run, limit),
        ).fetchall()
        return [row[0] for row in rows]
