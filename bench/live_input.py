"""(c) of ``bench_scale.py``: what a live read costs across Redis, measured in one run with
today's approach and a faithful floor of the one before it (issue 27, section 1).

In this process, against a real ``redis-server`` and a real SQLite store: a live run's hub
(``app/live/hub.py``) is driven read by read with ``reads`` SSE chunks, each published before
the next (one Redis entry batch per read, the steady state of a followed run), and a mirror
(``app/live/mirror.py``) takes every entry of the run's stream on this thread, timed with
``time.process_time``.

* **after** (the code as it is): the entries carry the recorded lines (``publish.py``), the
  mirror feeds them to the builder and encodes each step once for its viewers.
* **before** (a floor kept here, not the old code): the old entry of each read, ``r`` and ``e``
  ranges and ``m`` the run's ``raw_meta`` and ``events`` messages for that read (encoded by
  the run's encoder, as the old publisher did), and the least the old mirror did with each:
  split ``m``, read each message's type, parse each ``events`` message to count its events
  (the old ``entries.events_piece``); it leaves out the old mirror's merging at delivery (a
  second parse of each ``raw_meta``), so the real cost was higher.
* **refresh with Redis away**: recordings of ``lengths`` reads; one more read stored, then one
  refresh of a mirror at the end of the recording: after, ``Mirror._from_store`` (the store's
  range read and the new lines); before, the floor of the old ``StoredTail.refresh``: the
  whole recording read (``read_bytes``) and parsed into records (``read_records``), the new
  read fed.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

from app.captures.model import Capture
from app.captures.timed import read_records
from app.live.feed import TimedFeed
from app.live.hub import LiveRun
from app.live.mirror import Mirror
from app.live.publish import RunPublisher, stream_key
from app.live.recorder import Recorder
from app.live.redact import Redactor
from app.live.request import RunRequest
from app.live.streams import RedisStreams
from app.storage import open_store
from app.wire import StreamEncoder
from tests.redis_server import RedisServer


def chunk(i: int) -> bytes:
    body = {
        "id": "chatcmpl-bench",
        "object": "chat.completion.chunk",
        "model": "bench",
        "choices": [{"index": 0, "delta": {"content": f"t{i} "}, "finish_reason": None}],
    }
    return b"data: " + json.dumps(body).encode() + b"\n\n"


def new_run(store: Any) -> LiveRun:
    request = RunRequest(base_url="http://127.0.0.1:9/v1", body={"model": "m", "messages": []})
    redactor = Redactor(request.secrets())
    recorder = Recorder(store, redactor, url=request.url, body=request.body, title="bench")
    run = LiveRun(request, recorder, redactor, 250.0)
    run.upstream = _Upstream()
    return run


class _Upstream:
    def cancel(self) -> None: ...
    def stop(self, reason: str, message: str) -> None: ...


class Counter:
    """Calls to ``owner.name`` while patched in."""

    def __init__(self, owner: Any, *names: str) -> None:
        self.owner, self.names, self.calls = owner, names, 0
        self.originals = {name: getattr(owner, name) for name in names}

    def __enter__(self) -> Counter:
        for name, original in self.originals.items():

            def counted(*args: Any, _original: Any = original, **kwargs: Any) -> Any:
                self.calls += 1
                return _original(*args, **kwargs)

            setattr(self.owner, name, counted)
        return self

    def __exit__(self, *exc: object) -> None:
        for name, original in self.originals.items():
            setattr(self.owner, name, original)


def wait(check: Any, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise RuntimeError("the publisher fell behind")
        time.sleep(0.0005)


def entry_bytes(fields: dict[bytes, bytes]) -> int:
    return sum(len(k) + len(v) for k, v in fields.items())


def old_entries(run: LiveRun) -> list[dict[bytes, bytes]]:
    """The old entry of each read: its ranges and its messages, encoded by the run's encoder."""
    entries = []
    for piece in run.log:
        if piece.message is not None or (
            piece.raw_end == piece.raw_start and piece.event_end == piece.event_start
        ):
            continue
        messages = "\n".join(run.messages([piece]))
        entries.append(
            {
                b"r": f"{piece.raw_start} {piece.raw_end}".encode(),
                b"e": f"{piece.event_start} {piece.event_end}".encode(),
                b"m": messages.encode(),
            }
        )
    return entries


def old_mirror_take(fields: dict[bytes, bytes], log: list[str]) -> int:
    """The least the old mirror did with an entry; the events it counted."""
    [int(x) for x in fields[b"r"].split()]
    [int(x) for x in fields[b"e"].split()]
    counted = 0
    for text in fields[b"m"].decode().split("\n"):
        kind = text[9 : text.find('"', 9)] if text.startswith('{"type":"') else ""
        if kind == "events":
            counted += len(orjson.loads(text)["events"])
        log.append(text)
    return counted


def per_read(reads: int, redis_server: RedisServer, store: Any) -> dict[str, Any]:
    streams = RedisStreams(redis_server.url, maxlen=100_000, ttl=600, ttl_after=60)
    run = new_run(store)
    publisher = RunPublisher(run, streams).start()
    run.response(0.0, 200, "text/event-stream")
    wait(lambda: publisher.index >= len(run.log))
    # Made now, its thread not started: every read comes to it from Redis, on this thread.
    mirror = Mirror(run.capture_id, streams, store, 250.0, time.time() + 3600)
    with Counter(StreamEncoder, "raw_meta", "events") as producer_encodes:
        for i in range(reads):
            run.read(1.0 + i, chunk(i))
            wait(lambda: publisher.index >= len(run.log))
    after = streams.read(stream_key(run.capture_id), b"0", 0, count=10 * reads)
    after = [e for e in after if e.fields.get(b"o") is not None]
    with (
        Counter(orjson, "loads") as mirror_parses,
        Counter(StreamEncoder, "raw_meta", "events") as mirror_encodes,
    ):
        start = time.process_time()
        for entry in after:
            mirror._take(entry)
        after_cpu = time.process_time() - start
    run.end(1.0 + reads, "done", None)
    wait(lambda: run.finished)
    with Counter(StreamEncoder, "raw_meta", "events") as old_encodes:
        start = time.process_time()
        old = old_entries(run)[:reads]
        producer_before_cpu = time.process_time() - start
    log: list[str] = []
    with Counter(orjson, "loads") as old_parses:
        start = time.process_time()
        for fields in old:
            old_mirror_take(fields, log)
        before_cpu = time.process_time() - start
    publisher.thread.join(30)
    streams.shut()
    return {
        "reads": reads,
        "entries_after": len(after),
        "bytes_after": sum(entry_bytes(e.fields) for e in after) / reads,
        "bytes_before": sum(entry_bytes(f) for f in old) / reads,
        "cpu_after_us": 1e6 * after_cpu / reads,
        "cpu_before_us": 1e6 * before_cpu / reads,
        "producer_cpu_before_us": 1e6 * producer_before_cpu / reads,
        "producer_encodes_after": producer_encodes.calls / reads,
        "producer_encodes_before": old_encodes.calls / reads,
        "mirror_parses_after": mirror_parses.calls / reads,
        "mirror_parses_before": old_parses.calls / reads,
        "mirror_encodes_after": mirror_encodes.calls / reads,
        "same_timeline": [e.to_json() for e in mirror.stream.events][: len(run.stream.events) - 2]
        == [e.to_json() for e in run.stream.events][: len(run.stream.events) - 2],
    }


def refresh(length: int, store: Any, redis_server: RedisServer) -> dict[str, Any]:
    """One refresh at the end of a recording of ``length`` reads, before and after."""
    streams = RedisStreams(redis_server.url, maxlen=100, ttl=600, ttl_after=60)
    run = new_run(store)
    run.response(0.0, 200, "text/event-stream")
    for i in range(length):
        run.read(1.0 + i, chunk(i))
    run.recorder.flush()
    mirror = Mirror(run.capture_id, streams, store, 250.0, time.time() + 3600)
    old_feed = TimedFeed(run.recorder.header)
    for t, data in read_records(store.read_bytes(run.capture_id), Capture(format="timed")).reads:
        old_feed.read(t, data)
    fed = length
    after_s, before_s, read_after, read_before = [], [], 0, 0
    for k in range(5):
        run.read(1.0 + length + k, chunk(length + k))
        run.recorder.flush()
        at = mirror.tail.at
        start = time.perf_counter()
        mirror._from_store()
        after_s.append(time.perf_counter() - start)
        read_after += mirror.tail.at - at  # read_from gives what follows the tail's byte
        start = time.perf_counter()
        data = store.read_bytes(run.capture_id)
        records = read_records(data, Capture(format="timed"))
        for t, piece in records.reads[fed:]:
            old_feed.read(t, piece)
        fed = len(records.reads)
        before_s.append(time.perf_counter() - start)
        read_before += len(data)
    run.end(2.0 + length + 5, "done", None)
    streams.shut()
    return {
        "length": length,
        "after_ms": 1000 * sorted(after_s)[len(after_s) // 2],
        "before_ms": 1000 * sorted(before_s)[len(before_s) // 2],
        "bytes_before": read_before / 5,
        "bytes_after": read_after / 5,
        "stored_bytes": len(store.read_bytes(run.capture_id)),
    }


def measure(reads: int, lengths: list[int]) -> dict[str, Any]:
    redis_server = RedisServer().start()
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(f"sqlite:///{Path(tmp) / 'bench.db'}")
        try:
            costs = per_read(reads, redis_server, store)
            refreshes = [refresh(n, store, redis_server) for n in lengths]
        finally:
            store.close()
            redis_server.stop()
    return {"per_read": costs, "refresh": refreshes}
