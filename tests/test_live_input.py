"""What crosses Redis for a live run is what came in (the recorded lines: the redacted reads
with their times), and every process builds the timeline from it with the same builder
(app/live/recorded.py, publish.py, tail.py, mirror.py), against a real redis-server and a real
SQLite store. Counted, per read: what the run's process encodes for Redis (nothing), what a
mirror parses (each recorded line once, no protocol message), and what a mirror following the
store with Redis away reads of it (what is new, not the whole recording again)."""

from __future__ import annotations

import threading

import orjson
import pytest

from app.live.publish import LINES, MESSAGE, OFFSET, RunPublisher, stream_key
from app.live.recorded import RecordedStream
from app.live.redact import Redactor
from app.wire import StreamEncoder

from .redis_server import serving
from .test_hub import new_run, sse, store  # noqa: F401  (a fixture)
from .test_redis_live import (
    follow,
    mirror_events,
    mirror_messages,
    run_events,
    texts,
    transport,
    wait_for,
)

READS = 40
# What a page gets (docs/protocol.md), as opposed to the recorded records (capture-format.md).
PROTOCOL = tuple(
    f'{{"type":"{kind}"'.encode() for kind in ("events", "raw_meta", "summary", "status", "capture")
)


def as_bytes(data: bytes | str | memoryview) -> bytes:
    return data.encode() if isinstance(data, str) else bytes(data)


@pytest.fixture
def redis_server():
    yield from serving()


class Counted:
    """Calls to the methods ``names`` of ``owner``, counted while patched in."""

    def __init__(self, monkeypatch, owner, *names: str) -> None:
        self.calls = 0
        for name in names:
            original = getattr(owner, name)

            def counted(*args, _original=original, **kwargs):
                self.calls += 1
                return _original(*args, **kwargs)

            monkeypatch.setattr(owner, name, counted)


def test_the_run_encodes_nothing_for_redis(store, redis_server, monkeypatch):  # noqa: F811
    """A run nobody on its process watches: its reads reach Redis without one encode of a
    protocol message (before: a ``raw_meta`` and an ``events`` per entry)."""
    encodes = Counted(monkeypatch, StreamEncoder, "raw_meta", "events", "raw_items")
    run, _ = new_run(store)
    publisher = RunPublisher(run, transport(redis_server)).start()
    run.response(1.0, 200, "text/event-stream")
    for i in range(READS):
        run.read(2.0 + i, sse(f"t{i}"))
        wait_for(lambda: publisher.index >= len(run.log), "published")
    assert publisher.published >= READS // 2
    assert encodes.calls == 0
    run.end(99.0, "done", None)


def test_redis_carries_the_recorded_lines_and_no_secret(store, redis_server):  # noqa: F811
    """Every entry is recorded lines at their byte of the stored recording, or a status
    message; a key the upstream echoes is redacted in both."""
    secret = "sk-live-input-canary-7d2e9a1b4c6f8e0a"
    run, _ = new_run(store)
    publisher = RunPublisher(run, transport(redis_server)).start()
    run.status("connecting", "connecting to upstream")
    run.response(1.0, 200, "text/event-stream")
    for i in range(10):
        data = sse(f"t{i} {secret}")
        run.read(2.0 + i, data[:9])  # a key cut across reads, too
        run.read(2.5 + i, data[9:])
    run.end(20.0, "done", None)
    publisher.thread.join(30)
    stored = store.read_bytes(run.capture_id)
    client = transport(redis_server)
    entries = client.read(stream_key(run.capture_id), b"0", 0, count=10000)
    lines = [e.fields for e in entries if LINES in e.fields]
    assert [e.fields for e in entries if MESSAGE in e.fields] == [
        {MESSAGE: b'{"type":"status","state":"connecting","message":"connecting to upstream"}'}
    ]
    for fields in lines:
        assert set(fields) == {OFFSET, LINES}
        at = int(fields[OFFSET])
        assert stored[at : at + len(fields[LINES])] == fields[LINES]
    assert b"".join(f[LINES] for f in lines) == stored[stored.index(b"\n") + 1 :]
    for entry in entries:
        assert secret.encode() not in b"".join(entry.fields.values())
    assert secret.encode() not in stored


def test_a_mirror_parses_each_recorded_line_once_and_no_protocol_message(
    store,  # noqa: F811
    redis_server,
    monkeypatch,
):
    """Before, a mirror parsed every ``events`` message to count its events, and the
    ``raw_meta`` messages again to merge them; now it parses the recorded lines it builds from,
    each once, and builds the same timeline as the run's process."""
    parsed: list[bytes | str] = []
    loads = orjson.loads

    def counted(data):
        parsed.append(data)
        return loads(data)

    run, _ = new_run(store)
    publisher = RunPublisher(run, transport(redis_server)).start()
    run.response(1.0, 200, "text/event-stream")
    run.read(1.5, sse("t0"))
    wait_for(lambda: publisher.published >= 1, "the first entry")
    mirror = follow(store, redis_server, run.capture_id)
    monkeypatch.setattr(orjson, "loads", counted)
    for i in range(1, READS):
        run.read(2.0 + i, sse(f"t{i}"))
        wait_for(lambda: publisher.index >= len(run.log), "published")
    run.end(99.0, "done", None)
    wait_for(lambda: mirror.finished, "the mirror's end")
    delivered = list(mirror.messages(mirror.log))
    monkeypatch.setattr(orjson, "loads", loads)
    typed = [p for p in map(as_bytes, parsed) if p.startswith(b'{"type":"')]  # not payloads
    assert [p for p in typed if p.startswith(PROTOCOL)] == []
    recorded = store.read_bytes(run.capture_id).count(b"\n") - 1  # its lines after the header
    assert len(typed) <= recorded  # each recorded line once (the first ones from the store)
    assert mirror_events([orjson.loads(t) for t in delivered]) == run_events(run)
    assert texts(mirror_messages(mirror)) == [f"t{i}" for i in range(READS)]


def test_with_redis_away_a_mirror_reads_only_what_the_store_adds(store, redis_server):  # noqa: F811
    """Before, a mirror following the store read the whole recording every half second, so
    its cost grew with the recording; now it reads from the byte it had on."""
    run, _ = new_run(store)
    RunPublisher(run, transport(redis_server)).start()
    run.response(1.0, 200, "text/event-stream")
    run.read(1.5, sse("t0"))
    run.recorder.flush()
    mirror = follow(store, redis_server, run.capture_id)
    returned: list[int] = []
    for name in ("read_bytes", "read_from"):
        original = getattr(store, name)

        def counted(*args, _original=original):
            data = _original(*args)
            if threading.current_thread() is mirror.thread:  # not the recorder's finish
                returned.append(len(data))
            return data

        setattr(store, name, counted)
    redis_server.kill()
    for i in range(1, 21):
        run.read(1.5 + i, sse(f"t{i}" + "x" * 2000))
        run.recorder.flush()
        wait_for(lambda i=i: len(texts(mirror_messages(mirror))) == i + 1, "the store's reads")
    run.end(40.0, "done", None)
    wait_for(lambda: mirror.finished, "the mirror's end")
    stored = len(store.read_bytes(run.capture_id))
    assert len(returned) >= 20  # a read of the store per poll, at least one per read
    assert sum(returned) <= 1.1 * stored, (returned, stored)
    assert mirror_events(mirror_messages(mirror)) == run_events(run)


def test_every_producer_feeds_one_recorded_stream(tmp_path):
    """Redact, record, build, log: one class (the live page's runs and proxied calls through
    the hub, ``streamscope record`` through its file), each step handing on the line it
    recorded at its byte of the recording; a key cut across reads never reaches a line."""
    from app.live.record import FileRecording

    secret = "sk-recorded-canary-0a9b8c7d6e5f4a3b"
    header = b'{"type":"header","format":"streamscope.timed","version":1,"source":{}}\n'
    path = tmp_path / "out.jsonl"
    added: list[tuple[bytes, int]] = []
    with open(path, "wb") as out:
        recorded = RecordedStream(
            Redactor([secret]),
            FileRecording(out, header),
            added=lambda line, at: added.append((line, at)),
        )
        recorded.response(1.0, 200, "text/event-stream")
        data = sse(f"hello {secret}")
        recorded.read(2.0, data[:12])
        recorded.read(3.0, data[12:])
        assert recorded.end(4.0, "done", None) == ("done", None)
    written = path.read_bytes()
    assert secret.encode() not in written
    assert b"".join(line for line, _ in added) == written[len(header) :]
    for line, at in added:
        assert written[at : at + len(line)] == line
    shown = "".join(e.to_json().get("text", "") for e in recorded.stream.events)
    assert shown.startswith("hello ") and secret not in shown
