"""The capture store's contract, on SQLite and on a real PostgreSQL server started here."""

from __future__ import annotations

import gc
import hashlib
import json
import os
import threading
import time

import pytest

from app.storage import NewCapture

from .helpers import corpus
from .live_server import LiveServer
from .test_api import delete, request, upload


def new(data: bytes = b"data: [DONE]\n\n", **fields) -> NewCapture:
    return NewCapture(data=data, title=fields.pop("title", "t"), format="sse", streams=1, **fields)


def test_add_get_read(store):
    record, token = store.add(new(b"abc", redacted=[{"kind": "jwt", "count": 2}]))
    again = store.get(record.id)
    assert (
        again.title == "t" and again.size == 3 and again.redacted == [{"kind": "jwt", "count": 2}]
    )
    assert again.sha256 == hashlib.sha256(b"abc").hexdigest()
    assert store.read_bytes(record.id) == b"abc"
    assert store.get("missing") is None
    with pytest.raises(KeyError):
        store.read_bytes("missing")
    assert token and again.delete_hash != token


def test_tokens_are_checked(store):
    record, token = store.add(new())
    with pytest.raises(PermissionError):
        store.update(record.id, "wrong", title="x")
    assert store.update(record.id, token, title="renamed").title == "renamed"
    with pytest.raises(PermissionError):
        store.delete(record.id, None)
    assert store.delete(record.id, token) is True
    assert store.get(record.id) is None
    assert store.delete(record.id, token) is False


def test_append_finish_and_concurrent_growth(store):
    record, _ = store.add(new(b"head\n"))

    def writer(tag: str) -> None:
        for i in range(20):
            store.append(record.id, f"{tag}{i:02d}\n".encode())

    threads = [threading.Thread(target=writer, args=(tag,)) for tag in "abcd"]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    data = store.read_bytes(record.id)
    lines = data.decode().splitlines()
    assert lines[0] == "head" and len(lines) == 81
    for tag in "abcd":
        assert [line for line in lines if line.startswith(tag)] == [
            f"{tag}{i:02d}" for i in range(20)
        ]
    store.finish(record.id, streams=1, fmt="timed")
    finished = store.get(record.id)
    assert finished.size == len(data) and finished.sha256 == hashlib.sha256(data).hexdigest()
    assert finished.format == "timed"


def test_expiry_and_purge(store):
    record, _ = store.add(new(expires_in=0.01))
    keep, _ = store.add(new())
    time.sleep(0.05)
    assert store.get(record.id) is None
    assert store.purge_expired() >= 1
    with pytest.raises(KeyError):
        store.read_bytes(record.id)
    assert store.get(keep.id) is not None


def test_concurrent_adds_are_all_whole(store):
    results = []

    def adder(i: int) -> None:
        data = bytes([i]) * (50_000 + i)
        record, _ = store.add(new(data))
        results.append((record.id, data))

    threads = [threading.Thread(target=adder, args=(i,)) for i in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 16
    for capture_id, data in results:
        assert store.read_bytes(capture_id) == data


def test_a_finished_threads_connection_is_closed_with_it(store):
    # Connection threads come and go under the production worker; their connections must not
    # keep descriptors (SQLite) or server sessions (PostgreSQL) after them. (SQLite keeps the
    # descriptors of closed connections while another connection of the process holds a lock
    # on the file, and reuses them: bounded by the peak, so the count must stop growing.)
    record, _ = store.add(new())

    def fds() -> int:
        gc.collect()
        return len(os.listdir("/proc/self/fd"))

    def batch() -> None:
        threads = [threading.Thread(target=store.get, args=(record.id,)) for _ in range(10)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    store.get(record.id)  # this thread's own connection, kept
    batch()
    after_one = fds()
    for _ in range(4):
        batch()
    assert fds() <= after_one + 2
    assert store.get(record.id) is not None


@pytest.mark.integration
def test_the_server_runs_on_postgresql(postgres, tmp_path):
    live = LiveServer(tmp_path / "data", env={"STREAMSCOPE_DATABASE_URL": postgres.url}).start()
    try:
        status, answer = upload(live, corpus("openai-gpt4o-tool-single.sse"), title="on postgres")
        assert status == 201
        status, _, body = request(live, "GET", f"/api/captures/{answer['id']}")
        assert status == 200 and json.loads(body)["title"] == "on postgres"
        assert request(live, "GET", f"/api/captures/{answer['id']}/raw")[2] == corpus(
            "openai-gpt4o-tool-single.sse"
        )
        assert not (tmp_path / "data" / "streamscope.db").exists()
    finally:
        live.stop()
    again = LiveServer(tmp_path / "data2", env={"STREAMSCOPE_DATABASE_URL": postgres.url}).start()
    try:
        assert request(again, "GET", f"/c/{answer['id']}")[0] == 200  # another process, same store
        assert delete(again, answer) == 204
    finally:
        again.stop()


def test_a_growing_capture_is_read_from_any_byte_on(store):
    """``read_from``: what a reader following a growing recording lacks, from byte N, at any
    byte (inside a part too), with appends racing in from threads (their offsets stay whole)."""
    record, _ = store.add(new(b"head\n"))

    def writer(tag: str) -> None:
        for i in range(10):
            store.append(record.id, f"{tag}{i:02d}\n".encode())

    threads = [threading.Thread(target=writer, args=(tag,)) for tag in "ab"]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    data = store.read_bytes(record.id)
    for start in range(len(data) + 2):
        assert store.read_from(record.id, start) == data[start:]
    with pytest.raises(KeyError):
        store.read_from("missing", 0)
    empty, _ = store.add(new(b""))
    assert store.read_from(empty.id, 0) == b""
