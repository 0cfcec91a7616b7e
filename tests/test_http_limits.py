"""What a request may claim and cost, under the dev server and gunicorn (docs/security.md):
bodies over the cap however they are framed, Host headers the server does not serve, and
uploads that grow when decompressed or hold one enormous line."""

from __future__ import annotations

import gzip
import json

import pytest

from app.protocol import SUBPROTOCOL

from .live_server import LiveServer
from .rawhttp import (
    exchange,
    head,
    peak_kib,
    post_chunked,
    reset_peak,
    serving_pid,
    stored_captures,
)
from .test_api import multipart

pytestmark = pytest.mark.integration  # starts real servers on loopback

GOOD = b'{"choices":[{"index":0,"delta":{"content":"ok"}}]}\n'
MIB = 1024 * 1024


@pytest.fixture(scope="module", params=["dev", "production"])
def server(request, tmp_path_factory):
    args = ["--production", "--threads", "16"] if request.param == "production" else []
    env = {"STREAMSCOPE_MAX_UPLOAD_MB": "2", "STREAMSCOPE_MAX_LINE_MB": "1"}
    live = LiveServer(tmp_path_factory.mktemp(request.param), args, env).start()
    yield live
    live.stop()


# ----------------------------------------------------------- 6: chunked bodies over the cap
def test_a_chunked_raw_body_over_the_cap_is_413_and_nothing_is_stored(server):
    before = stored_captures(server.data_dir)
    body = b"data: {}\n\n" * (MIB * 3 // 10)  # 3 MiB against a 2 MB cap
    answer = post_chunked(server.port, "/api/captures", body, "text/event-stream")
    assert answer.status == 413, answer
    assert answer.error() == {
        "code": "too_large",
        "message": "the upload is over the 2 MB cap (STREAMSCOPE_MAX_UPLOAD_MB)",
    }
    assert stored_captures(server.data_dir) == before


def test_a_chunked_multipart_body_over_the_cap_is_413_and_nothing_is_stored(server):
    before = stored_captures(server.data_dir)
    body, headers = multipart({"title": "big"}, ("big.sse", b"data: {}\n\n" * (MIB * 3 // 10)))
    answer = post_chunked(server.port, "/api/captures", body, headers["Content-Type"])
    assert answer.status == 413 and answer.error()["code"] == "too_large", answer
    assert stored_captures(server.data_dir) == before


def test_a_chunked_body_under_the_cap_is_stored_whole(server):
    body = GOOD * 1000
    answer = post_chunked(server.port, "/api/captures?format=jsonl", body, "application/x-ndjson")
    assert answer.status == 201, answer
    stored = exchange(
        server.port,
        head(
            "GET", f"/api/captures/{json.loads(answer.body)['id']}/raw", f"127.0.0.1:{server.port}"
        ),
    )
    assert stored.body == body


# ------------------------------------------------------------------- 7: the Host header
def websocket_handshake(port: int, host: str, origin: str) -> bytes:
    return head(
        "GET",
        "/ws",
        host,
        {
            "Upgrade": "websocket",
            "Connection": "Upgrade",
            "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
            "Sec-WebSocket-Version": "13",
            "Sec-WebSocket-Protocol": SUBPROTOCOL,
            "Origin": origin,
        },
    )


def models_request(host: str, base_url: str) -> tuple[bytes, bytes]:
    body = json.dumps({"base_url": base_url}).encode()
    headers = {"Content-Type": "application/json", "Content-Length": str(len(body))}
    return head("POST", "/api/models", host, headers), body


def test_a_forged_host_is_refused_before_the_upgrade_and_before_any_handler(server, fake):
    evil = f"evil.example:{server.port}"
    answer = exchange(server.port, websocket_handshake(server.port, evil, f"http://{evil}"))
    assert answer.status == 400, answer  # no 101
    assert answer.error()["code"] == "bad_host"
    assert (
        evil in answer.error()["message"]
        and "STREAMSCOPE_ALLOWED_HOSTS" in answer.error()["message"]
    )
    seen = len(fake.requests)
    answer = exchange(server.port, *models_request(evil, fake.url))
    assert answer.status == 400 and answer.error()["code"] == "bad_host", answer
    assert len(fake.requests) == seen  # the upstream was never asked
    page = exchange(server.port, head("GET", "/", evil))
    assert page.status == 400 and b"bad_host" in page.body  # pages too, as an HTML error page


def test_the_loopback_names_with_the_port_are_served(server, fake):
    port = server.port
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", f"LocalHost:{port}"):
        assert exchange(port, head("GET", "/healthz", host)).status == 200, host
    for host in (f"localhost:{port + 1}", "localhost", f"127.0.0.2:{port}", f"localhost.:{port}"):
        assert exchange(port, head("GET", "/healthz", host)).status == 400, host
    origin = f"http://localhost:{port}"
    answer = exchange(port, websocket_handshake(port, f"localhost:{port}", origin))
    assert answer.status == 101, answer
    answer = exchange(port, *models_request(f"localhost:{port}", fake.url))
    assert answer.status == 200, answer


def test_hosts_from_the_allowed_list_are_served(tmp_path):
    env = {"STREAMSCOPE_ALLOWED_HOSTS": "streamscope.test, other.test:8443"}
    with LiveServer(tmp_path / "data", env=env) as live:
        port = live.port
        host = f"streamscope.test:{port}"
        assert exchange(port, head("GET", "/", host)).status == 200
        assert exchange(port, head("GET", "/", "other.test:8443")).status == 200
        assert exchange(port, head("GET", "/", f"other.test:{port}")).status == 400
        assert exchange(port, head("GET", "/", f"127.0.0.1:{port}")).status == 200
        answer = exchange(port, websocket_handshake(port, host, f"http://{host}"))
        assert answer.status == 101, answer


# ------------------------------------------- 8: what an upload may grow into once read
def test_a_gzip_upload_over_the_decompressed_cap_is_413_and_nothing_is_stored(server):
    # The cap after decompression follows the upload cap (2 MB here) unless set.
    before = stored_captures(server.data_dir)
    line = b'{"choices":[{"index":0,"delta":{"content":"' + b"a" * (3 * MIB) + b'"}}]}\n'
    body, headers = multipart({}, ("bomb.jsonl.gz", gzip.compress(GOOD + line)))
    answer = exchange(
        server.port,
        head(
            "POST",
            "/api/captures",
            f"127.0.0.1:{server.port}",
            {**headers, "Content-Length": str(len(body))},
        ),
        body,
    )
    assert answer.status == 413, answer
    assert answer.error()["code"] == "too_large_decompressed"
    assert "STREAMSCOPE_MAX_DECOMPRESSED_MB" in answer.error()["message"]
    assert stored_captures(server.data_dir) == before


def upload_gzip(server, data: bytes) -> tuple[int, dict]:
    body, headers = multipart({}, ("capture.jsonl.gz", gzip.compress(data)))
    request = head(
        "POST",
        "/api/captures",
        f"127.0.0.1:{server.port}",
        {**headers, "Content-Length": str(len(body))},
    )
    answer = exchange(server.port, request, body)
    return answer.status, json.loads(answer.body)


def test_a_line_over_the_line_cap_is_a_diagnostic_and_the_rest_is_read(server):
    hostile = b'{"x":[' + b"{}," * (MIB // 2) + b"{}]}\n"  # 1.5 MiB of empty objects
    status, answer = upload_gzip(server, GOOD + hostile + GOOD)
    assert status == 201, answer
    (problem,) = [d for d in answer["diagnostics"] if d["code"] == "line_too_long"]
    assert problem["line"] == 2 and problem["byte"] == len(GOOD)
    assert "STREAMSCOPE_MAX_LINE_MB" in problem["message"]
    assert answer["streams"][0]["choices"] == 1


def test_memory_for_one_enormous_line_is_bounded_by_the_line_cap(tmp_path):
    # Parsed whole, a line of empty JSON objects costs about 30 times its size in memory
    # (a dict per 3 bytes). Over the line cap it is skipped unparsed: what the import then
    # costs is a few copies of the bytes, however the line is made.
    env = {"STREAMSCOPE_MAX_LINE_MB": "1"}
    with LiveServer(tmp_path / "data", env=env) as live:
        pid = serving_pid(live)
        size = 16 * MIB
        hostile = b'{"x":[' + b"{}," * (size // 3) + b"{}]}\n"
        base = reset_peak(pid)
        status, answer = upload_gzip(live, GOOD + hostile)
        grown = (peak_kib(pid) - base) / 1024
        assert status == 201, answer
        assert grown < 8 * size / MIB, f"peak grew by {grown:.0f} MiB for a {size // MIB} MiB line"
