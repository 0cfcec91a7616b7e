"""Conformance reports in the store (m010, app/storage/conform.py), on SQLite and on
PostgreSQL (integration): a report is added running, rewritten as cases end, read by any
process, expires as captures do (purged with them), and is deleted with its token, its captures
with it."""

from __future__ import annotations

import time

import pytest

from app.storage import NewCapture, open_store


def capture(store) -> tuple[str, str]:
    made, token = store.add(NewCapture(data=b"data: {}\n\n", title="t", format="sse", streams=1))
    return made.id, token


def test_a_report_is_added_running_rewritten_and_read(store):
    record, token = store.add_report(["plain", "n2"], None)
    assert record.state == "running" and record.planned == ["plain", "n2"]
    assert record.document is None and record.expires is None and token
    assert record.delete_hash != token  # kept hashed
    read = store.report(record.id)
    assert read is not None and read.public() == record.public()
    assert "delete_hash" not in read.public()
    document = {"server": {"api": "chat"}, "cases": [{"case": "plain", "verdict": "pass"}]}
    captured, _ = capture(store)
    assert store.update_report(record.id, document=document, add_capture=captured)
    read = store.report(record.id)
    assert read.document == document and read.state == "running"
    assert read.captures == [captured]
    assert read.updated >= record.updated
    assert store.update_report(record.id, state="done")  # the document stays as it was
    read = store.report(record.id)
    assert read.state == "done" and read.document == document
    assert store.update_report(record.id, state="failed", error="the battery could not run")
    assert store.report(record.id).error == "the battery could not run"
    with pytest.raises(ValueError):
        store.update_report(record.id, state="exploded")
    assert not store.update_report("gone", state="done")
    assert store.report("gone") is None
    assert "m010_conform_reports" in [
        row[0] for row in store.execute("SELECT name FROM _migrations").fetchall()
    ]


def test_delete_needs_the_token_and_takes_the_captures_along(store):
    record, token = store.add_report(["plain"], 86400.0)
    first, _ = capture(store)
    second, _ = capture(store)
    other, _ = capture(store)  # not the report's
    store.update_report(record.id, add_capture=first)
    store.update_report(record.id, add_capture=second)
    for wrong in (None, "", "not-the-token"):
        with pytest.raises(PermissionError):
            store.delete_report(record.id, wrong)
    assert store.report(record.id) is not None
    assert store.delete_report(record.id, token) == [first, second]
    assert store.report(record.id) is None
    assert store.get(first) is None and store.get(second) is None
    with pytest.raises(KeyError):
        store.read_bytes(first)
    assert store.get(other) is not None
    assert store.delete_report(record.id, token) is None


def test_an_expired_report_is_gone_and_purged_with_the_captures(store):
    record, token = store.add_report(["plain"], 0.05)
    kept, _ = store.add_report(["plain"], None)
    time.sleep(0.1)
    assert store.report(record.id) is None
    assert store.delete_report(record.id, token) is None
    store.purge_expired()
    ids = {row[0] for row in store.execute("SELECT id FROM conform_reports").fetchall()}
    assert record.id not in ids and kept.id in ids  # (PostgreSQL's database is the module's)


def test_a_second_store_on_the_same_database_reads_the_progress(tmp_path):
    """Another process serving GET /api/conform/<id> reads what this one wrote."""
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    one, two = open_store(url), open_store(url)
    try:
        record, _ = one.add_report(["plain", "n2"], None)
        one.update_report(record.id, document={"cases": [{"case": "plain"}]})
        assert two.report(record.id).document == {"cases": [{"case": "plain"}]}
    finally:
        one.close()
        two.close()
