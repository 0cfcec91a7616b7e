"""A live run's hub driven read by read, as the upstream thread drives it, against a real
SQLite store: what happens when its recording is deleted while it streams."""

from __future__ import annotations

import json

import pytest

from app.live.hub import LiveRun
from app.live.recorder import FLUSH_BYTES, Recorder, Redactor
from app.live.request import RunRequest
from app.storage import open_store


class Upstream:
    """What the hub may ask of its upstream: to stop, with a reason."""

    def __init__(self) -> None:
        self.stops: list[tuple[str, str]] = []

    def stop(self, reason: str, message: str) -> None:
        self.stops.append((reason, message))

    def cancel(self) -> None:
        self.stop("cancelled", "stopped by the user")


def sse(text: str) -> bytes:
    body = {"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]}
    return b"data: " + json.dumps(body).encode() + b"\n\n"


@pytest.fixture
def store(tmp_path):
    opened = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    yield opened
    opened.close()


def new_run(store, **options) -> tuple[LiveRun, Upstream]:
    request = RunRequest(base_url="http://127.0.0.1:9/v1", body={"model": "m", "messages": []})
    redactor = Redactor(request.secrets())
    recorder = Recorder(store, redactor, url=request.url, body=request.body, title="t")
    run = LiveRun(request, recorder, redactor, 250.0, **options)
    upstream = Upstream()
    run.upstream = upstream
    return run, upstream


def messages(run: LiveRun) -> list[dict]:
    return [json.loads(p.message) for p in run.log if p.message]


def test_deleting_the_recording_while_it_streams_stops_the_run_and_ends_it(store):
    run, upstream = new_run(store)
    run.response(1.0, 200, "text/event-stream")
    run.read(2.0, sse("kept"))
    run.recorder.flush()
    assert store.delete(run.capture_id, run.recorder.delete_token)
    run.read(3.0, sse("x" * FLUSH_BYTES))  # more than a flush: written to a deleted capture
    assert upstream.stops and upstream.stops[0][0] == "cancelled"
    assert "deleted" in upstream.stops[0][1]
    run.read(4.0, sse("after the stop"))  # reads already under way when the stop came
    run.end(5.0, "cancelled", upstream.stops[0][1])
    assert run.finished and run.end_reason == "cancelled"
    end = messages(run)[-1]
    assert end["type"] == "end" and "deleted" in end["error"]
    assert store.get(run.capture_id) is None  # nothing brought it back


def peak_memory(store, cap: int, input_bytes: int) -> tuple[int, LiveRun, Upstream]:
    """Feed ``input_bytes`` of a fast stream in 16 KiB reads (reads keep coming after the stop,
    as they do while the socket shuts); the traced peak while the run holds it."""
    import tracemalloc

    read = b"".join(sse(f"token{i} ") for i in range(150))[: 16 * 1024]
    reads = input_bytes // len(read)
    tracemalloc.start()
    try:
        run, upstream = new_run(store, max_bytes=cap)
        for i in range(reads):
            run.read(float(i), read)
        run.end(float(reads), *(upstream.stops[0] if upstream.stops else ("done", None)))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak, run, upstream


def test_a_run_past_its_cap_is_stopped_and_memory_follows_the_cap_not_the_input(store):
    cap = 1_000_000
    small, run, upstream = peak_memory(store, cap, 4 * cap)
    assert upstream.stops[0][0] == "too_large" and "STREAMSCOPE_MAX_LIVE_MB" in upstream.stops[0][1]
    assert run.finished and run.end_reason == "too_large"
    assert cap < run.size < cap + 64 * 1024  # stopped at the read that crossed it
    large, _, _ = peak_memory(store, cap, 16 * cap)
    assert large < 1.2 * small, (small, large)  # four times the input, the same memory
    assert small < 12 * cap, small


def test_a_finished_run_is_the_capture_its_stored_recording_reads_as(store):
    """The live stream goes to the parsed-capture cache when the run ends (so its first open
    reads nothing again): it must be what reading the stored recording gives, event for event,
    with the same labels. The URL has a query, which the recording's source keeps and a bare
    URL would not."""
    from app.captures import read_capture
    from app.domain.summary import summarize
    from app.wire import stream_info

    from .helpers import timeline

    request = RunRequest(
        base_url="http://127.0.0.1:9/v1?api-version=2024", body={"model": "m", "messages": []}
    )
    redactor = Redactor(request.secrets())
    recorder = Recorder(store, redactor, url=request.url, body=request.body, title="t")
    run = LiveRun(request, recorder, redactor, 250.0)
    run.upstream = Upstream()
    run.response(1.0, 200, "text/event-stream")
    for t, text in ((5.0, "Hel"), (9.0, "lo")):
        data = sse(text)
        run.read(t, data[:7])
        run.read(t + 1, data[7:])
    run.read(12.0, b"data: [DONE]\n\n")
    run.end(13.0, "done", None)
    cached = run.capture()
    stored = read_capture(store.read_bytes(run.capture_id), "timed")
    assert timeline(cached.streams[0]) == timeline(stored.streams[0])
    assert stream_info(cached.streams[0]) == stream_info(stored.streams[0])
    live_summary = summarize(cached.streams[0])
    stored_summary = summarize(stored.streams[0])
    assert live_summary == stored_summary
    assert cached.header == stored.header
