"""What a run leaves behind (issue 11, items 15 and 17): a recording of a run refused before any
byte came is Streamscope's own timed format and always uploads, with its end reason; a live
run's raw events can still be read right after its end."""

from __future__ import annotations

import json
import socket
import subprocess
import sys

import pytest

from app.captures import read_capture

from .live_server import ROOT, LiveServer
from .test_api import request
from .test_live import collect, start

pytestmark = pytest.mark.integration  # starts real servers on loopback


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    live = LiveServer(tmp_path_factory.mktemp("run-end-data")).start()
    yield live
    live.stop()


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]  # nothing listens once the socket is closed


@pytest.fixture(scope="module")
def refused(tmp_path_factory) -> bytes:
    """`streamscope record` of a refused connection: a header and an end record, no reads."""
    path = tmp_path_factory.mktemp("refused") / "refused.timed.jsonl"
    url = f"http://127.0.0.1:{closed_port()}/v1"
    command = ["record", "--base-url", url, "--model", "m", "--prompt", "hi", "-o", str(path)]
    result = subprocess.run(
        [sys.executable, "-m", "app.cli", *command],
        cwd=ROOT,
        capture_output=True,
        timeout=60,
    )
    assert result.returncode != 0
    records = [json.loads(line) for line in path.read_bytes().splitlines()]
    assert [r["type"] for r in records] == ["header", "end"]
    assert "refused" in records[-1]["error"]
    return path.read_bytes()


def test_a_refused_recording_reads_as_one_stream_with_its_end_reason(refused):
    capture = read_capture(refused)
    assert capture.format == "timed"
    assert "no_stream" not in [d.code for d in capture.diagnostics]
    (stream,) = capture.streams
    assert stream.end_reason == "error" and "connection refused" in stream.end_error
    # A timed file with neither reads nor an end record says nothing: still "no stream".
    header_only = refused.splitlines()[0] + b"\n"
    assert "no_stream" in [d.code for d in read_capture(header_only).diagnostics]


def test_a_refused_recording_uploads(server, refused):
    status, _, body = request(
        server, "POST", "/api/captures", refused, {"Content-Type": "application/x-ndjson"}
    )
    assert status == 201, body
    answer = json.loads(body)
    assert answer["diagnostics"] == []
    assert answer["format"] == "timed" and len(answer["streams"]) == 1
    status, _, _ = request(server, "GET", f"/c/{answer['id']}")
    assert status == 200
    status, _, body = request(server, "POST", "/api/captures", refused.splitlines()[0])
    assert status == 400 and json.loads(body)["error"]["code"] == "no_stream"


def test_raw_events_can_be_read_right_after_a_run_ends(server, fake):
    ws = start(server, fake, "slow:3", key=None)
    try:
        messages = collect(ws)
        assert messages[-1]["type"] == "end"
        raw_count = sum(len(m["t"]) for m in messages if m["type"] == "raw_meta")
        assert raw_count > 0
        # what the page asks as soon as the run has ended (it waits for the end to ask)
        ws.send(json.dumps({"type": "raw_request", "stream": 0, "start": 0, "count": raw_count}))
        answer = json.loads(ws.receive(timeout=5) or "null")
        assert answer is not None, "the raw request crossing the end was never answered"
        assert answer["type"] == "raw" and len(answer["items"]) == raw_count
    finally:
        ws.close()
