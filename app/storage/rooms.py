"""Presenter rooms in the store (docs/teaching.md): what a room shows, its presenter key's
hash, and the last state its presenter mirrored, so that rooms survive a restart and late
joiners land where the class is.

A room is gone when its capture is (deleted or expired: the foreign key cascades, and an
expired capture hides its rooms until it is purged) or after ``ROOM_IDLE_S`` without a
presenter action or a viewer joining. ``RoomsSQL`` is mixed into the capture store's SQL core
(``sql.py``), so SQLite and PostgreSQL keep rooms alike, in the same transactions machinery.
The live side of a room (its message stream) is not here: ``app/rooms/bus.py``.
"""

from __future__ import annotations

import hashlib
import time
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

import orjson

from .base import hash_token, new_id, new_token, token_matches

ROOM_IDLE_S = 86400.0  # a room with no presenter action and no new viewer for a day is gone
DEMO_PREFIX = "demos/"
ROOM_COLUMNS = (
    "r.id, r.source, r.key_hash, r.created, r.touched, r.seq, r.action, r.state, r.state_at"
)


def client_hash(address: str) -> str:
    """What a room keeps of its creator's address: enough to count their rooms, not the address."""
    return hashlib.sha256(f"streamscope-room-client:{address}".encode()).hexdigest()


@dataclass(frozen=True)
class RoomRecord:
    id: str
    source: str  # a capture id, or "demos/<name>"
    key_hash: str
    created: float
    touched: float
    seq: int = 0  # the last mirrored state's number (0: the presenter has not acted yet)
    action: str | None = None
    state: dict[str, Any] | None = None
    state_at: float | None = None  # when that state was mirrored (wall clock)

    @property
    def demo(self) -> str | None:
        return (
            self.source.removeprefix(DEMO_PREFIX) if self.source.startswith(DEMO_PREFIX) else None
        )

    def key_matches(self, key: str | None) -> bool:
        """Constant-time check of a presented key against the stored hash."""
        return token_matches(key, self.key_hash)

    def expires(self) -> float:
        return self.touched + ROOM_IDLE_S


class RoomStore(Protocol):
    """Rooms in the store. Every operation is atomic and safe to share between threads."""

    def create_room(
        self, source: str, client: str, now: float | None = None
    ) -> tuple[RoomRecord, str]:
        """A new room showing ``source``; returns it and its presenter key (kept only hashed)."""

    def get_room(self, room_id: str, now: float | None = None) -> RoomRecord | None:
        """The room, or None when absent, idle too long, or its capture is gone."""

    def save_room_state(
        self, room_id: str, seq: int, action: str, state: dict[str, Any], now: float | None = None
    ) -> None:
        """The presenter's latest state (also marks the room active)."""

    def touch_room(self, room_id: str, now: float | None = None) -> None:
        """A viewer joined: the room is not idle."""

    def count_rooms(
        self, *, source: str | None = None, client: str | None = None, now: float | None = None
    ) -> int:
        """Live rooms showing ``source``, or made from the address ``client``."""

    def purge_rooms(self, now: float | None = None) -> int:
        """Remove idle rooms and rooms whose capture is gone; returns how many."""


class RoomsSQL:
    """``RoomStore`` over the SQL core; ``SQLStore`` provides the connection plumbing."""

    def _tx(self) -> AbstractContextManager[Any]:
        raise NotImplementedError

    def _db(self) -> Any:
        raise NotImplementedError

    def _run(self, db: Any, text: str, params: tuple = ()) -> Any:
        raise NotImplementedError

    def create_room(
        self, source: str, client: str, now: float | None = None
    ) -> tuple[RoomRecord, str]:
        now = time.time() if now is None else now
        key = new_token()
        record = RoomRecord(new_id(), source, hash_token(key), now, now)
        capture_id = None if record.demo is not None else source
        with self._tx() as db:
            self._run(
                db,
                "INSERT INTO rooms (id, source, capture_id, key_hash, client_hash, created, touched)"
                " VALUES (?,?,?,?,?,?,?)",
                (record.id, source, capture_id, record.key_hash, client_hash(client), now, now),
            )
        return record, key

    def get_room(self, room_id: str, now: float | None = None) -> RoomRecord | None:
        now = time.time() if now is None else now
        row = self._run(
            self._db(),
            f"SELECT {ROOM_COLUMNS} FROM rooms r {_LIVE_JOIN} WHERE r.id = ? AND {_LIVE}",
            (room_id, now - ROOM_IDLE_S, now),
        ).fetchone()
        if row is None:
            return None
        values = list(row)
        values[7] = orjson.loads(values[7]) if values[7] else None
        return RoomRecord(*values)

    def save_room_state(
        self, room_id: str, seq: int, action: str, state: dict[str, Any], now: float | None = None
    ) -> None:
        now = time.time() if now is None else now
        with self._tx() as db:
            # A slower writer of an older state never overwrites a newer one.
            self._run(
                db,
                "UPDATE rooms SET seq = ?, action = ?, state = ?, state_at = ?, touched = ?"
                " WHERE id = ? AND seq < ?",
                (seq, action, orjson.dumps(state).decode(), now, now, room_id, seq),
            )

    def touch_room(self, room_id: str, now: float | None = None) -> None:
        now = time.time() if now is None else now
        with self._tx() as db:
            self._run(
                db, "UPDATE rooms SET touched = ? WHERE id = ? AND touched < ?", (now, room_id, now)
            )

    def count_rooms(
        self, *, source: str | None = None, client: str | None = None, now: float | None = None
    ) -> int:
        now = time.time() if now is None else now
        column, value = (
            ("r.source", source)
            if source is not None
            else ("r.client_hash", client_hash(client or ""))
        )
        row = self._run(
            self._db(),
            f"SELECT COUNT(*) FROM rooms r {_LIVE_JOIN} WHERE {column} = ? AND {_LIVE}",
            (value, now - ROOM_IDLE_S, now),
        ).fetchone()
        return int(row[0])

    def purge_rooms(self, now: float | None = None) -> int:
        now = time.time() if now is None else now
        with self._tx() as db:
            gone = (
                "SELECT r.id FROM rooms r LEFT JOIN captures c ON c.id = r.capture_id"
                " WHERE r.touched <= ? OR (r.capture_id IS NOT NULL"
                " AND (c.id IS NULL OR (c.expires IS NOT NULL AND c.expires <= ?)))"
            )
            return int(
                self._run(
                    db, f"DELETE FROM rooms WHERE id IN ({gone})", (now - ROOM_IDLE_S, now)
                ).rowcount
            )


# A room is live while it has been active within ROOM_IDLE_S and its capture (if any) is there
# and not expired. Parameters: the idle cutoff, then now.
_LIVE_JOIN = "LEFT JOIN captures c ON c.id = r.capture_id"
_LIVE = (
    "r.touched > ? AND (r.capture_id IS NULL OR (c.id IS NOT NULL"
    " AND (c.expires IS NULL OR c.expires > ?)))"
)
