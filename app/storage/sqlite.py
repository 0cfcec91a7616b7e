"""SQLite capture store (standard library ``sqlite3``, WAL mode): the default, in the data
directory. Each thread gets its own connection; WAL lets readers go on while one writes."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .migrations import migrate
from .sql import SQLStore


class SQLiteStore(SQLStore):
    PLACEHOLDER = "?"
    BLOB = "BLOB"

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        super().__init__()

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA foreign_keys=ON")
        return db

    def _migrate(self) -> list[str]:
        with self._transaction(self._db()):  # BEGIN IMMEDIATE: one migrator at a time
            return migrate(self, self.PLACEHOLDER)

    def columns(self, table: str) -> set[str]:
        return {row[1] for row in self._db().execute(f"PRAGMA table_info({table})")}

    @contextmanager
    def _transaction(self, db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
