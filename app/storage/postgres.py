"""PostgreSQL capture store (psycopg 3), for several processes or machines sharing one store
(docs/scaling.md). ``open_store("postgresql://user@host:5432/db")``."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .migrations import migrate
from .sql import SQLStore


class PostgresStore(SQLStore):
    PLACEHOLDER = "%s"
    BLOB = "BYTEA"

    def __init__(self, url: str) -> None:
        import psycopg  # an optional dependency: pip install 'streamscope[postgres]'

        self._psycopg = psycopg
        self.url = url
        super().__init__()

    def _connect(self) -> Any:
        return self._psycopg.connect(self.url, autocommit=True)

    def _migrate(self) -> list[str]:
        db = self._db()
        with db.transaction():
            # One migrator at a time when several workers start together.
            db.execute("SELECT pg_advisory_xact_lock(7419)")
            return migrate(self, self.PLACEHOLDER)

    def columns(self, table: str) -> set[str]:
        rows = self._db().execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = %s", (table,)
        )
        return {row[0] for row in rows.fetchall()}

    @contextmanager
    def _transaction(self, db: Any) -> Iterator[Any]:
        with db.transaction():
            yield db
