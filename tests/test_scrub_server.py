"""The 40-secret HAR (tests/secret_har.py) uploaded to a real server, as it is and in the forms
strict JSON refuses: no canary in any answer, download or replay message, nor anywhere in the
data directory (the SQLite database, its WAL, the log)."""

from __future__ import annotations

import gzip
import http.client
import json
import time

import pytest

from .live_server import LiveServer
from .secret_har import BREAKERS, CANARIES, entries, secret_har, survivors
from .wsclient import connect

pytestmark = pytest.mark.integration  # starts a real server on loopback


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    live = LiveServer(tmp_path_factory.mktemp("scrub-data")).start()
    yield live
    live.stop()


def request(server, method: str, path: str, body: bytes | None = None) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    try:
        headers = {"Content-Type": "application/octet-stream"} if body is not None else {}
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def replay_messages(server, capture_id: str) -> list[str]:
    """Every message of a replay over the websocket, then every raw event's text."""
    ws = connect(server.port)
    texts: list[str] = []
    try:
        ws.send(json.dumps({"type": "open", "source": {"capture": capture_id}}))
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            text = ws.receive(timeout=10)
            assert text is not None, "the server went quiet"
            texts.append(text)
            if json.loads(text)["type"] in ("end", "error"):
                break
        streams = next(json.loads(t) for t in texts if json.loads(t)["type"] == "capture")
        for stream in streams["streams"]:
            ask = {"type": "raw_request", "stream": stream["index"], "start": 0, "count": 500}
            ws.send(json.dumps(ask))
            texts.append(ws.receive(timeout=10) or "")
    finally:
        ws.close()
    return texts


def data_dir_blobs(server) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in server.data_dir.rglob("*") if path.is_file()}


UPLOADS = {
    **{breaker: (secret_har(breaker), "") for breaker in BREAKERS},
    "gzip-nan": (gzip.compress(secret_har("nan")), ""),
    "forced-har": (secret_har("lone-surrogate"), "?format=har"),
}


@pytest.mark.parametrize("name", list(UPLOADS))
def test_the_forty_secrets_reach_no_answer_download_or_replay(server, name):
    data, query = UPLOADS[name]
    status, body = request(server, "POST", f"/api/captures{query}", data)
    assert status == 201, body
    answer = json.loads(body)
    assert answer["format"] == "har" and len(answer["streams"]) == 2
    views = {"answer": body}
    capture = answer["id"]
    for path in ("", "/raw", "/download/timed", "/download/jsonl", "/download/sse"):
        status, views[path or "metadata"] = request(server, "GET", f"/api/captures/{capture}{path}")
        assert status == 200
    views["replay"] = "\n".join(replay_messages(server, capture)).encode()
    assert b"[redacted]" in views["replay"]
    assert {view: survivors(blob) for view, blob in views.items() if survivors(blob)} == {}
    kinds = {item["kind"] for item in answer["redacted"]}
    assert {"header authorization", "cookies", "url credentials", "api key (sk-)"} <= kinds


def test_no_canary_anywhere_in_the_data_directory(server):
    """Runs after the uploads above (same module server): the database, the WAL and the log."""
    for data, query in UPLOADS.values():
        status, _ = request(server, "POST", f"/api/captures{query}", data)
        assert status == 201
    time.sleep(0.2)
    blobs = data_dir_blobs(server)
    assert "streamscope.db-wal" in blobs  # WAL mode: fresh writes are in the WAL
    found = {name: survivors(blob) for name, blob in blobs.items() if survivors(blob)}
    assert found == {}
    encoded_body = entries()[2]["response"]["content"]["text"].encode()
    assert not [name for name, blob in blobs.items() if encoded_body[:40] in blob]
    assert len(CANARIES) == 40


def test_a_har_the_reader_cannot_read_is_refused_and_not_stored(server):
    truncated = secret_har("nan")[:-60]
    status, body = request(server, "POST", "/api/captures?format=har", truncated)
    assert status == 400
    error = json.loads(body)["error"]
    assert error["code"] == "cannot_scrub"
    assert error["where"] == "the HAR file" and "line 1 column" in error["why"]
    time.sleep(0.2)
    assert {name: survivors(blob) for name, blob in data_dir_blobs(server).items()} == {
        name: [] for name in data_dir_blobs(server)
    }
