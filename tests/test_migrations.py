"""The stores' schema as named, ordered migrations (issue 27, section 5; app/storage/migrations.py),
on SQLite and on a real PostgreSQL server: a new store has them all, in order; a store made
before migrations were recorded (and before parts and dialects) is brought up to date with its
captures intact; opening again applies nothing. Before, each backend patched its schema with
an ``ALTER TABLE`` of its own and nothing said what a store had had."""

from __future__ import annotations

import sqlite3
import time

import pytest

from app.storage import NewCapture, open_store
from app.storage.migrations import MIGRATIONS

NAMES = [m.__name__ for m in MIGRATIONS]

# The schema as the release before migrations wrote it, without the parts count and dialect.
OLD_SCHEMA = [
    """CREATE TABLE captures (
        id TEXT PRIMARY KEY, title TEXT NOT NULL, format TEXT NOT NULL,
        created DOUBLE PRECISION NOT NULL, size BIGINT NOT NULL, streams INTEGER NOT NULL,
        sha256 TEXT NOT NULL, expires DOUBLE PRECISION, delete_hash TEXT NOT NULL,
        redacted TEXT NOT NULL, compression TEXT, source TEXT NOT NULL DEFAULT 'upload')""",
    """CREATE TABLE capture_parts (
        capture_id TEXT NOT NULL REFERENCES captures(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL, data {blob} NOT NULL, PRIMARY KEY (capture_id, seq))""",
]
OLD_ROW = (
    "old1",
    "an old capture",
    "sse",
    time.time(),
    14,
    1,
    "x",
    None,
    "h",
    "[]",
    None,
    "upload",
)


def test_a_new_store_has_every_migration_in_order(tmp_path):
    store = open_store(f"sqlite:///{tmp_path / 'new.db'}")
    try:
        assert store.migrated == NAMES
        rows = store.execute("SELECT name FROM _migrations ORDER BY name").fetchall()
        assert [r[0] for r in rows] == NAMES
    finally:
        store.close()
    again = open_store(f"sqlite:///{tmp_path / 'new.db'}")
    try:
        assert again.migrated == []  # nothing twice
    finally:
        again.close()


def test_the_migrations_are_named_in_the_order_they_run():
    assert sorted(NAMES) == NAMES and len(set(NAMES)) == len(NAMES)
    assert all(name[:1] == "m" and name[1:4].isdigit() for name in NAMES)


def check_old_store_migrated(store) -> None:
    assert store.migrated == NAMES  # the first finds its tables there; the rest add what lacks
    assert {"parts", "dialect"} <= store.columns("captures")
    record = store.get("old1")
    assert record is not None and record.title == "an old capture" and record.dialect is None
    assert store.read_bytes("old1") == b"data: [DONE]\n\n"
    assert store.read_from("old1", 6) == b"[DONE]\n\n"  # its part's offset, filled in
    store.append("old1", b"more\n")
    assert store.read_from("old1", 14) == b"more\n"
    made, _ = store.add(NewCapture(data=b"data: {}\n\n", title="n", format="sse", streams=1))
    assert store.get(made.id) is not None and store.markers(made.id) == []


def test_a_sqlite_store_made_before_migrations_is_brought_up_to_date(tmp_path):
    path = tmp_path / "old.db"
    db = sqlite3.connect(path)
    for statement in OLD_SCHEMA:
        db.execute(statement.replace("{blob}", "BLOB"))
    db.execute(f"INSERT INTO captures VALUES ({', '.join('?' * len(OLD_ROW))})", OLD_ROW)
    db.execute("INSERT INTO capture_parts VALUES ('old1', 0, ?)", (b"data: [DONE]\n\n",))
    db.commit()
    db.close()
    store = open_store(f"sqlite:///{path}")
    try:
        check_old_store_migrated(store)
    finally:
        store.close()


@pytest.mark.integration
def test_a_postgresql_store_made_before_migrations_is_brought_up_to_date(postgres):
    import psycopg

    with psycopg.connect(postgres.url, autocommit=True) as admin:
        admin.execute("DROP DATABASE IF EXISTS migrations_old")
        admin.execute("CREATE DATABASE migrations_old")
    url = postgres.url.rsplit("/", 1)[0] + "/migrations_old"
    with psycopg.connect(url, autocommit=True) as db:
        for statement in OLD_SCHEMA:
            db.execute(statement.replace("{blob}", "BYTEA"))
        db.execute(f"INSERT INTO captures VALUES ({', '.join(['%s'] * len(OLD_ROW))})", OLD_ROW)
        db.execute("INSERT INTO capture_parts VALUES ('old1', 0, %s)", (b"data: [DONE]\n\n",))
    store = open_store(url)
    try:
        check_old_store_migrated(store)
    finally:
        store.close()
    again = open_store(url)
    try:
        assert again.migrated == []
    finally:
        again.close()
