"""What a few connections can take from everyone (docs/security.md, "Threads" and "Request
bodies"): uploads that trickle their bodies, slow work filling gunicorn's threads, headers that
never end, and one address taking every websocket."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time

import pytest

from .live_server import LiveServer
from .rawhttp import Trickle, exchange, head
from .test_api import multipart
from .test_production import websocket_status
from .wsclient import connect

pytestmark = pytest.mark.integration  # starts real servers on loopback

GOOD = b'data: {"choices":[{"index":0,"delta":{"content":"ok"}}]}\n\n'


# Every client here is 127.0.0.1: its share of the slow work is lifted, so that what is tested
# is the server's capacity (the share has its own tests, tests/test_heavy_gets.py).
ONE_ADDRESS = {"STREAMSCOPE_WORK_PER_CLIENT": "1000"}


def upload_request(port: int, data: bytes) -> tuple[bytes, bytes]:
    body, headers = multipart({}, ("capture.sse", data))
    headers["Content-Length"] = str(len(body))
    return head("POST", "/api/captures", f"127.0.0.1:{port}", headers), body


def health(port: int, timeout: float = 15) -> dict:
    answer = exchange(port, head("GET", "/healthz", f"127.0.0.1:{port}"), timeout=timeout)
    assert answer.status == 200, answer
    return json.loads(answer.body)


# --------------------------------------------- 9a: bodies are received before an import slot
@pytest.mark.parametrize("production", [False, True], ids=["dev", "production"])
def test_uploads_trickling_their_bodies_hold_no_import_slot_and_are_cut_off(tmp_path, production):
    env = {
        "STREAMSCOPE_BODY_TIMEOUT": "3",
        "STREAMSCOPE_MAX_CONCURRENT_IMPORTS": "3",
        **ONE_ADDRESS,
    }
    args = ["--production", "--threads", "24"] if production else []
    with LiveServer(tmp_path / "data", args, env) as live:
        port = live.port
        slow_head = head(
            "POST",
            "/api/captures",
            f"127.0.0.1:{port}",
            {"Content-Type": "text/event-stream", "Content-Length": "100000"},
        )
        tricklers = [Trickle(port, slow_head) for _ in range(3)]
        try:
            time.sleep(1)  # the three are sending their bodies, a byte every half second
            answer = exchange(port, *upload_request(port, GOOD))
            assert answer.status == 201, answer  # not 503 busy: no import slot is held
            for trickler in tricklers:
                cut = trickler.answer(timeout=30)
                assert cut is not None and cut.status == 408, cut
                assert cut.error()["code"] == "too_slow"
                assert "STREAMSCOPE_BODY_MIN_RATE_KB" in cut.error()["message"]
        finally:
            for trickler in tricklers:
                trickler.stop()
        assert exchange(port, *upload_request(port, GOOD)).status == 201


# ------------------------------------- 9b: slow work never takes the threads pages need
class DrippingUpstream:
    """A loopback "upstream" that answers every request with headers, then one byte a
    second of a body that never ends: a /models call to it holds its thread."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.stopped = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        with contextlib.suppress(OSError):
            while not self.stopped.is_set():
                conn, _ = self.listener.accept()
                threading.Thread(target=self._drip, args=(conn,), daemon=True).start()

    def _drip(self, conn: socket.socket) -> None:
        with contextlib.suppress(OSError), conn:
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n")
            conn.sendall(b"Content-Length: 100000\r\n\r\n")
            while not self.stopped.wait(1):
                conn.sendall(b" ")

    def stop(self) -> None:
        self.stopped.set()
        self.listener.close()


def test_slow_requests_leave_the_reserve_to_pages_and_probes_under_gunicorn(tmp_path):
    # 12 threads, 8 kept in reserve: 4 slow requests at once, the rest answered 503 at once.
    upstream = DrippingUpstream()
    live = LiveServer(tmp_path / "data", ["--production", "--threads", "12"], ONE_ADDRESS).start()
    port = live.port
    body = json.dumps({"base_url": f"http://127.0.0.1:{upstream.port}/v1"}).encode()
    request = head(
        "POST",
        "/api/models",
        f"127.0.0.1:{port}",
        {"Content-Type": "application/json", "Content-Length": str(len(body))},
    )
    answers: list[int] = []

    def models() -> None:
        with contextlib.suppress(OSError):
            answers.append(exchange(port, request, body, timeout=60).status)

    callers = [threading.Thread(target=models, daemon=True) for _ in range(16)]
    try:
        for caller in callers:
            caller.start()
        deadline = time.monotonic() + 5
        while len(answers) < 12 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert health(port)["status"] == "ok"  # answered while the calls hold their threads
        page = exchange(port, head("GET", "/", f"127.0.0.1:{port}"), timeout=15)
        assert page.status == 200
        assert answers.count(503) == 12, answers  # refused at once, not queued
        state = health(port)
        assert state["slow_requests"] == 4 and state["slow_capacity"] == 4
    finally:
        upstream.stop()
        live.stop()


# ---------------------------------------------------- 9c: headers sent slowly, under gunicorn
def test_connections_sending_headers_slowly_hold_no_thread_and_are_closed(tmp_path):
    env = {"STREAMSCOPE_HEADER_TIMEOUT": "3", **ONE_ADDRESS}
    with LiveServer(tmp_path / "data", ["--production", "--threads", "12"], env) as live:
        port = live.port
        slow = head("GET", "/", f"127.0.0.1:{port}", {"X-Slow": "1" * 200})[:-2]  # never ends
        tricklers = [Trickle(port, b"", slow) for _ in range(30)]
        try:
            time.sleep(1.5)  # every one has sent a few bytes of its head
            assert health(port)["status"] == "ok"
            assert exchange(port, head("GET", "/", f"127.0.0.1:{port}"), timeout=15).status == 200
            closed = [t.closed_within(20) for t in tricklers]
            assert all(closed), f"{closed.count(False)} slow heads still open"
        finally:
            for trickler in tricklers:
                trickler.stop()


# ------------------------------------------- 9d: per-client limits derived from capacity
def test_one_address_gets_a_quarter_of_the_websocket_capacity_by_default(tmp_path):
    with LiveServer(tmp_path / "data", ["--production", "--threads", "24"], ONE_ADDRESS) as live:
        assert health(live.port)["websocket_capacity"] == 16
        held = [connect(live.port) for _ in range(4)]
        try:
            assert websocket_status(live) == 429  # the fifth from one address
            assert health(live.port)["websockets"] == 4  # while 12 places are free
        finally:
            for ws in held:
                ws.close()


def test_early_answers_to_clients_that_keep_sending_do_not_hold_the_worker(tmp_path):
    # An upload over the cap is answered 413 at once, and its client keeps sending a byte
    # every half second. gthread drained such a body in 1 KiB reads whose timeout restarts
    # with every byte (a thread held for minutes), then closed the connection on its main
    # loop reading for up to 2 s more, while no other connection was served. 14 of them on
    # 12 threads stopped the worker. Now each is closed, lingering on its own thread.
    with LiveServer(tmp_path / "data", ["--production", "--threads", "12"], ONE_ADDRESS) as live:
        port = live.port
        big = head(
            "POST",
            "/api/captures",
            f"127.0.0.1:{port}",
            {"Content-Type": "text/event-stream", "Content-Length": str(100 * 1024 * 1024)},
        )
        tricklers = [Trickle(port, big) for _ in range(14)]
        try:
            started = time.monotonic()
            while time.monotonic() - started < 10:  # while they are answered and closed
                assert health(port, timeout=8)["status"] == "ok"
                time.sleep(0.5)
            for trickler in tricklers:
                refused = trickler.answer(timeout=5)
                assert refused is not None and refused.status == 413, refused
                assert trickler.closed_within(5)
        finally:
            for trickler in tricklers:
                trickler.stop()
