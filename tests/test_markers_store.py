"""Markers in the capture store, on SQLite and on a real PostgreSQL server: kept with their
capture, written only with its token, capped, and gone with it."""

from __future__ import annotations

import time

import pytest

from app.storage.markers import TooManyMarkers

from .test_storage import new


def test_markers_are_kept_written_with_the_token_and_deleted_with_their_capture(store):
    record, token = store.add(new())
    other, other_token = store.add(new())
    first = store.add_marker(record.id, token, {"t": 1.5, "label": "a", "note": ""}, 2)
    second = store.add_marker(
        record.id, token, {"event": 0, "stream": 0, "label": "b", "note": "n"}, 2
    )
    assert first is not None and second is not None and first["id"] != second["id"]
    store.add_marker(other.id, other_token, {"t": 0.0, "label": "other", "note": ""}, 2)
    assert [m["label"] for m in store.markers(record.id)] == ["a", "b"]
    with pytest.raises(TooManyMarkers):
        store.add_marker(record.id, token, {"t": 2.0, "label": "c", "note": ""}, 2)
    with pytest.raises(PermissionError):
        store.add_marker(record.id, "wrong", {"t": 2.0, "label": "c", "note": ""}, 5)
    with pytest.raises(PermissionError):
        store.delete_marker(record.id, other_token, first["id"])
    assert store.add_marker("missing", token, {"t": 0.0, "label": "x", "note": ""}, 5) is None
    assert store.delete_marker(record.id, token, first["id"]) is True
    assert store.delete_marker(record.id, token, first["id"]) is False
    assert [m["label"] for m in store.markers(record.id)] == ["b"]
    assert store.delete(record.id, token)
    assert store.markers(record.id) == []
    assert [m["label"] for m in store.markers(other.id)] == ["other"]


def test_expired_captures_take_their_markers_along(store, monkeypatch):
    record, token = store.add(new(expires_in=3600))
    assert store.add_marker(record.id, token, {"t": 0.0, "label": "x", "note": ""}, 5)
    later = time.time() + 7200
    monkeypatch.setattr("app.storage.sql.time.time", lambda: later)
    assert store.purge_expired() == 1
    assert store.markers(record.id) == []
