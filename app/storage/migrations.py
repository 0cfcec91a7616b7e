"""The stores' schema as named, ordered migrations (simonw/llm's ``migrations.py`` habit):
each one a function that changes the schema one step, applied once, in order, and recorded in
``_migrations`` with when it was applied. A store made by any earlier version is brought up to
date at open: its first migrations find their tables already there (``IF NOT EXISTS``) and a
column already added is not added again, so the same list serves a new store and an old one.

Adding a change of schema: one function at the end of ``MIGRATIONS``, never an edit of one
already released. SQLite and PostgreSQL differ only where ``Schema`` says (the blob type, how
a column's presence is read).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol


class Schema(Protocol):
    """What a migration may do to a store (sqlite.py, postgres.py)."""

    BLOB: str

    def execute(self, statement: str, parameters: tuple[Any, ...] = ()) -> Any: ...
    def columns(self, table: str) -> set[str]: ...


def m001_captures(schema: Schema) -> None:
    """Captures, as first released: one row each, the bytes in parts."""
    schema.execute(
        """CREATE TABLE IF NOT EXISTS captures (
            id TEXT PRIMARY KEY,
            title TEXT NOT NULL,
            format TEXT NOT NULL,
            created DOUBLE PRECISION NOT NULL,
            size BIGINT NOT NULL,
            streams INTEGER NOT NULL,
            sha256 TEXT NOT NULL,
            expires DOUBLE PRECISION,
            delete_hash TEXT NOT NULL,
            redacted TEXT NOT NULL,
            compression TEXT,
            source TEXT NOT NULL DEFAULT 'upload'
        )"""
    )
    schema.execute(
        f"""CREATE TABLE IF NOT EXISTS capture_parts (
            capture_id TEXT NOT NULL REFERENCES captures(id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            data {schema.BLOB} NOT NULL,
            PRIMARY KEY (capture_id, seq)
        )"""
    )
    schema.execute("CREATE INDEX IF NOT EXISTS captures_expires ON captures(expires)")


def m002_capture_parts_counted(schema: Schema) -> None:
    """How many parts a capture's bytes are in (a recording grows by appending parts)."""
    _add_column(schema, "captures", "parts", "INTEGER NOT NULL DEFAULT 1")


def m003_capture_dialect(schema: Schema) -> None:
    """The dialect the uploader named, when they named one."""
    _add_column(schema, "captures", "dialect", "TEXT")


def m004_markers(schema: Schema) -> None:
    """Markers a capture's owner pins on its timeline (docs/teaching.md)."""
    schema.execute(
        """CREATE TABLE IF NOT EXISTS capture_markers (
            capture_id TEXT NOT NULL REFERENCES captures(id) ON DELETE CASCADE,
            id TEXT NOT NULL,
            created DOUBLE PRECISION NOT NULL,
            body TEXT NOT NULL,
            PRIMARY KEY (capture_id, id)
        )"""
    )


def m005_rooms(schema: Schema) -> None:
    """Presenter rooms and the last state each presenter sent (docs/teaching.md)."""
    schema.execute(
        """CREATE TABLE IF NOT EXISTS rooms (
            id TEXT PRIMARY KEY,
            source TEXT NOT NULL,
            capture_id TEXT REFERENCES captures(id) ON DELETE CASCADE,
            key_hash TEXT NOT NULL,
            client_hash TEXT NOT NULL,
            created DOUBLE PRECISION NOT NULL,
            touched DOUBLE PRECISION NOT NULL,
            seq BIGINT NOT NULL DEFAULT 0,
            action TEXT,
            state TEXT,
            state_at DOUBLE PRECISION
        )"""
    )
    for name, column in (("source", "source"), ("client", "client_hash"), ("touched", "touched")):
        schema.execute(f"CREATE INDEX IF NOT EXISTS rooms_{name} ON rooms({column})")


def m006_capture_documents(schema: Schema) -> None:
    """The digest of each version of a capture's timeline document (documents.py)."""
    schema.execute(
        """CREATE TABLE IF NOT EXISTS capture_documents (
            capture_id TEXT NOT NULL REFERENCES captures(id) ON DELETE CASCADE,
            version TEXT NOT NULL,
            digest TEXT NOT NULL,
            PRIMARY KEY (capture_id, version)
        )"""
    )


def m007_capture_part_offsets(schema: Schema) -> None:
    """Where each part starts in its capture's bytes, so that a reader following a growing
    recording reads from byte N on (``read_from``), not the whole recording again."""
    if "byte_at" in schema.columns("capture_parts"):
        return
    schema.execute("ALTER TABLE capture_parts ADD COLUMN byte_at BIGINT NOT NULL DEFAULT 0")
    schema.execute(
        """UPDATE capture_parts SET byte_at = (
            SELECT COALESCE(SUM(LENGTH(p.data)), 0) FROM capture_parts p
            WHERE p.capture_id = capture_parts.capture_id AND p.seq < capture_parts.seq
        )"""
    )
    schema.execute(
        "CREATE INDEX IF NOT EXISTS capture_parts_at ON capture_parts(capture_id, byte_at)"
    )


def m008_capture_notes(schema: Schema) -> None:
    """What reading the upload said before its bytes were stored (a truncated gzip): the stored
    bytes are decompressed, so a later reading of them could not say it again."""
    _add_column(schema, "captures", "notes", "TEXT NOT NULL DEFAULT '[]'")


def m009_capture_judges(schema: Schema) -> None:
    """The client judges' last verdicts on a capture (storage/judges.py, docs/judges.md)."""
    schema.execute(
        """CREATE TABLE IF NOT EXISTS capture_judges (
            capture_id TEXT PRIMARY KEY REFERENCES captures(id) ON DELETE CASCADE,
            created DOUBLE PRECISION NOT NULL,
            verdicts TEXT NOT NULL
        )"""
    )


def m010_conform_reports(schema: Schema) -> None:
    """``streamscope conform`` reports run from the page (storage/conform.py, docs/conform.md):
    one row each, its report document as JSON, stored and expiring as captures are."""
    schema.execute(
        """CREATE TABLE IF NOT EXISTS conform_reports (
            id TEXT PRIMARY KEY,
            created DOUBLE PRECISION NOT NULL,
            updated DOUBLE PRECISION NOT NULL,
            expires DOUBLE PRECISION,
            delete_hash TEXT NOT NULL,
            state TEXT NOT NULL,
            planned TEXT NOT NULL,
            document TEXT,
            error TEXT,
            captures TEXT NOT NULL DEFAULT '[]'
        )"""
    )
    schema.execute("CREATE INDEX IF NOT EXISTS conform_reports_expires ON conform_reports(expires)")


def m011_run_calls(schema: Schema) -> None:
    """Each proxied call's run (docs/runs.md): its client and upstream, when it started, and
    what later calls are matched against (its messages and answer), so that every process
    groups a run's calls and lists them."""
    schema.execute(
        """CREATE TABLE IF NOT EXISTS run_calls (
            capture_id TEXT PRIMARY KEY REFERENCES captures(id) ON DELETE CASCADE,
            run_id TEXT NOT NULL,
            client_key TEXT NOT NULL,
            created DOUBLE PRECISION NOT NULL,
            turn TEXT
        )"""
    )
    schema.execute("CREATE INDEX IF NOT EXISTS run_calls_run ON run_calls(run_id, created)")
    schema.execute("CREATE INDEX IF NOT EXISTS run_calls_client ON run_calls(client_key, created)")


MIGRATIONS: tuple[Callable[[Schema], None], ...] = (
    m001_captures,
    m002_capture_parts_counted,
    m003_capture_dialect,
    m004_markers,
    m005_rooms,
    m006_capture_documents,
    m007_capture_part_offsets,
    m008_capture_notes,
    m009_capture_judges,
    m010_conform_reports,
    m011_run_calls,
)


def _add_column(schema: Schema, table: str, column: str, definition: str) -> None:
    """A column, unless a store made before migrations were recorded already has it."""
    if column not in schema.columns(table):
        schema.execute(f"ALTER TABLE {table} ADD COLUMN {column} {definition}")


def applied(schema: Schema) -> list[str]:
    """The names of the migrations this store has had, in the order they were applied."""
    schema.execute(
        "CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied DOUBLE PRECISION)"
    )
    rows = schema.execute("SELECT name FROM _migrations ORDER BY name").fetchall()
    return [row[0] for row in rows]


def migrate(schema: Schema, placeholder: str) -> list[str]:
    """Apply what this store has not had yet, in order; the names applied now. The caller
    holds the store's transaction (one migrator at a time)."""
    done = set(applied(schema))
    now = []
    for migration in MIGRATIONS:
        if migration.__name__ in done:
            continue
        migration(schema)
        schema.execute(
            f"INSERT INTO _migrations (name, applied) VALUES ({placeholder}, {placeholder})",
            (migration.__name__, time.time()),
        )
        now.append(migration.__name__)
    return now
