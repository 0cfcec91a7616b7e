"""One client's share of proxied calls (issue 26, item 4; docs/proxy.md, "Limits and
safety"), under gunicorn with the fake upstream.

Before: one client made 28 slow proxied calls and took all 24 units of slow work, so every
other client's uploads and websockets got 503; and a client that stopped reading kept its call
open for 212 s, since the idle deadline watched only the upstream. Now an address holds at
most its share (a quarter of the capacity, like websockets), the next call is 429 before
anything is sent, and a call whose client reads nothing for the idle deadline ends
``client_stalled``, its thread given back."""

from __future__ import annotations

import json
import socket
import time

import pytest

from .proxy_helpers import calls, proxy_server
from .rawhttp import exchange, head, read_answer

pytestmark = pytest.mark.integration  # starts real servers on loopback

OTHER = "127.0.0.2"  # another client: every 127.x address is this machine's loopback


def call_request(port: int, model: str) -> bytes:
    body = json.dumps({"model": model, "stream": True}).encode()
    headers = {"Content-Type": "application/json", "Content-Length": str(len(body))}
    return head("POST", "/proxy/local/v1/chat/completions", f"127.0.0.1:{port}", headers) + body


def health(port: int, source: str = "127.0.0.1") -> dict:
    with socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0)) as s:
        s.sendall(head("GET", "/healthz", f"127.0.0.1:{port}"))
        return json.loads(read_answer(s).body)


@pytest.fixture
def server(tmp_path, fake):
    env = {"STREAMSCOPE_IDLE_TIMEOUT": "2"}
    live = proxy_server(tmp_path / "data", fake, "--production", "--threads", "24", env=env)
    live.start()
    yield live
    live.stop()


def test_one_client_gets_its_share_of_slow_calls_and_others_are_still_served(server):
    port = server.port
    capacity = health(port)["slow_capacity"]  # 24 threads - 8 in reserve = 16
    share = capacity // 4
    opened: list[socket.socket] = []
    statuses: list[int] = []
    try:
        for _ in range(share + 3):  # slow calls (one chunk every 100 ms), kept open
            sock = socket.create_connection(("127.0.0.1", port), timeout=10)
            sock.sendall(call_request(port, "slow:100"))
            opened.append(sock)
        time.sleep(1.0)
        for sock in opened:
            sock.settimeout(0.5)
            try:
                first = sock.recv(64)
            except TimeoutError:
                first = b""
            statuses.append(int(first.split(b" ")[1]) if first.startswith(b"HTTP/") else 0)
        assert statuses.count(200) == share, statuses
        assert statuses.count(429) == 3, statuses
        # Another address uploads as if nothing happened (before: 503 capacity).
        body = b'data: {"choices":[{"index":0,"delta":{"content":"hi"}}]}\n\n'
        upload = head(
            "POST",
            "/api/captures?format=sse",
            f"127.0.0.1:{port}",
            {"Content-Type": "text/event-stream", "Content-Length": str(len(body))},
        )
        with socket.create_connection(
            ("127.0.0.1", port), timeout=10, source_address=(OTHER, 0)
        ) as s:
            s.sendall(upload + body)
            assert read_answer(s).status == 201
        assert health(port, OTHER)["slow_requests"] == share
    finally:
        for sock in opened:
            sock.close()


def test_a_call_whose_client_reads_nothing_ends_client_stalled(server, fake):
    port = server.port
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # fills at once
    sock.connect(("127.0.0.1", port))
    sock.sendall(call_request(port, "flood:64"))
    started = time.monotonic()
    try:
        deadline = started + 30
        ended = None
        while time.monotonic() < deadline:
            listed = calls(server)
            if listed and listed[0]["state"] not in ("connecting", "streaming"):
                ended = listed[0]
                break
            time.sleep(0.2)
        took = time.monotonic() - started
        assert ended is not None, "the call did not end (before: it stayed open 212 s)"
        assert ended["state"] == "client_stalled", ended
        assert "read nothing for 2 s" in ended["error"]
        assert took < 15, took
        deadline = time.monotonic() + 10
        while health(port)["slow_requests"] and time.monotonic() < deadline:
            time.sleep(0.1)
        assert health(port)["slow_requests"] == 0  # its thread is free again
        how, _ = fake.wait_end("flood:64")
        assert how == "closed"  # the upstream was let go, not read to its end
    finally:
        sock.close()


def test_a_reading_client_is_not_stalled_by_a_slow_upstream(server):
    """Guard: the idle deadline for the client runs only while a write waits on it."""
    answer = exchange(server.port, call_request(server.port, "slow:40"), timeout=30)
    assert answer.status == 200
    assert answer.body.count(b"data: ") >= 40
    assert calls(server)[0]["state"] == "done"
