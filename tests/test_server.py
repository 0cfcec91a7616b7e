"""A real ``streamscope serve`` on a loopback port: pages, headers, and the websocket."""

from __future__ import annotations

import base64
import http.client
import json
import os
import socket
import time

import pytest

from app.protocol import SUBPROTOCOL, VERSION

from .live_server import LiveServer
from .wsclient import ConnectionClosed
from .wsclient import connect as ws_connect

pytestmark = pytest.mark.integration  # starts real servers on loopback

CSP = "default-src 'none'; script-src http://127.0.0.1:{port}/static/; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    live = LiveServer(tmp_path_factory.mktemp("server-data")).start()
    yield live
    live.stop()


def handshake(server, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    key = base64.b64encode(os.urandom(16)).decode()
    connection.request(
        "GET",
        "/ws",
        headers={
            "Upgrade": "websocket",
            "Connection": "Upgrade",
            "Sec-WebSocket-Key": key,
            "Sec-WebSocket-Version": "13",
            **headers,
        },
    )
    response = connection.getresponse()
    body = response.read() if response.status != 101 else b""
    result = response.status, {k.lower(): v for k, v in response.getheaders()}, body
    connection.close()
    return result


def test_foreign_origin_is_refused_before_any_upgrade(server):
    status, headers, body = handshake(
        server, {"Origin": "http://evil.example", "Sec-WebSocket-Protocol": SUBPROTOCOL}
    )
    assert status == 403
    assert "upgrade" not in headers.get("connection", "").lower()
    assert json.loads(body)["error"]["code"] == "bad_origin"


def test_missing_subprotocol_is_refused(server):
    status, _, body = handshake(server, {"Origin": server.url})
    assert status == 400
    assert json.loads(body)["error"]["code"] == "bad_subprotocol"


def test_same_origin_handshake_upgrades_with_the_versioned_subprotocol(server):
    status, headers, _ = handshake(
        server, {"Origin": server.url, "Sec-WebSocket-Protocol": f"other, {SUBPROTOCOL}"}
    )
    assert status == 101
    assert headers["sec-websocket-protocol"] == SUBPROTOCOL


def connect(server):
    return ws_connect(server.port)


def receive_until_end(ws, timeout: float = 20) -> list[dict]:
    messages = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = ws.receive(timeout=5)
        assert text is not None, "the server went quiet"
        message = json.loads(text)
        messages.append(message)
        if message["type"] in ("end", "error"):
            return messages
    raise AssertionError("no end message")


def test_a_replay_over_a_real_websocket(server):
    ws = connect(server)
    try:
        ws.send(json.dumps({"type": "open", "source": {"demo": "n3-choices"}}))
        messages = receive_until_end(ws)
        assert messages[0]["type"] == "hello" and messages[0]["version"] == VERSION
        assert messages[-1] == {"type": "end", "reason": "complete"}
        events = [e for m in messages if m["type"] == "events" for e in m["events"]]
        assert {e["choice"] for e in events if e["kind"] == "text"} == {0, 1, 2}
        ws.send(json.dumps({"type": "raw_request", "stream": 0, "start": 0, "count": 2}))
        raw = json.loads(ws.receive(timeout=5))
        assert raw["type"] == "raw" and len(raw["items"]) == 2
    finally:
        ws.close()


def test_an_oversized_client_message_closes_the_connection(server):
    ws = connect(server)
    try:
        ws.send(json.dumps({"type": "open", "source": {"demo": "x" * 200_000}}))
        with pytest.raises(ConnectionClosed):
            for _ in range(20):
                ws.receive(timeout=1)
        assert ws.close_code == 1009  # message too big
    finally:
        ws.close()
    check = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    check.request("GET", "/")
    assert check.getresponse().status == 200
    check.close()


def test_every_page_sends_the_security_headers(server):
    for path in ("/", "/demos/seed-docs", "/static/js/main.js", "/nope", "/api/captures/nope"):
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
        connection.request("GET", path)
        response = connection.getresponse()
        response.read()
        assert response.getheader("Content-Security-Policy") == CSP.format(port=server.port), path
        assert response.getheader("X-Content-Type-Options") == "nosniff", path
        assert "unsafe-inline" not in response.getheader("Content-Security-Policy")
        connection.close()


def test_errors_are_one_json_shape_for_the_api_and_a_page_for_people(server):
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    connection.request("GET", "/api/captures/does-not-exist")
    response = connection.getresponse()
    assert response.status == 404
    assert json.loads(response.read()) == {
        "error": {
            "code": "no_capture",
            "message": "no such capture (deleted, expired, or never uploaded)",
        }
    }
    connection.request("GET", "/demos/%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E")
    response = connection.getresponse()
    page = response.read().decode()
    assert response.status == 404
    assert "<img src=x" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "Traceback" not in page


def test_templates_have_no_inline_scripts_or_handlers():
    import re
    from pathlib import Path

    for template in (Path(__file__).resolve().parent.parent / "templates").glob("*.html"):
        text = template.read_text()
        for tag in re.findall(r"<script[^>]*>", text):
            assert "src=" in tag, template.name
        assert not re.search(r"\son[a-z]+\s*=", text), template.name


def test_static_js_never_writes_markup():
    import re
    from pathlib import Path

    for path in (Path(__file__).resolve().parent.parent / "static" / "js").rglob("*.js"):
        assert not re.search(
            r"innerHTML|outerHTML|insertAdjacentHTML|document\.write", path.read_text()
        ), path.name


def test_socket_closed_by_the_page_frees_its_thread(server):
    def threads() -> int:
        with open(f"/proc/{server.process.pid}/status") as handle:
            status = handle.read()
        return int(
            next(line.split()[1] for line in status.splitlines() if line.startswith("Threads:"))
        )

    def settled() -> int:
        last, stable_since = threads(), time.monotonic()
        while time.monotonic() - stable_since < 0.5:
            time.sleep(0.05)
            now = threads()
            if now != last:
                last, stable_since = now, time.monotonic()
        return last

    baseline = settled()
    clients = [connect(server) for _ in range(8)]
    for ws in clients:
        ws.send(json.dumps({"type": "open", "source": {"demo": "seed-docs"}}))
        receive_until_end(ws)
    assert threads() >= baseline + 8
    for ws in clients:
        ws.close()
    deadline = time.monotonic() + 10
    while threads() > baseline and time.monotonic() < deadline:
        time.sleep(0.1)
    assert threads() <= baseline


def test_a_viewer_that_stops_reading_is_dropped_within_seconds(server):
    # A capture big enough to fill the kernel's socket buffers several times over.
    chunk = b'data: {"choices":[{"index":0,"delta":{"content":"' + b"x" * 400 + b'"}}]}\n\n'
    body = chunk * 60000 + b"data: [DONE]\n\n"
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    connection.request(
        "POST", "/api/captures", body=body, headers={"Content-Type": "text/event-stream"}
    )
    response = connection.getresponse()
    capture_id = json.loads(response.read())["id"]
    assert response.status == 201
    connection.close()
    closes_before = server.log().count('"event": "stream"')
    raw = socket.create_connection(("127.0.0.1", server.port))
    key = base64.b64encode(os.urandom(16)).decode()
    raw.sendall(
        (
            f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: {SUBPROTOCOL}\r\n\r\n"
        ).encode()
    )
    time.sleep(0.3)
    message = json.dumps({"type": "open", "source": {"capture": capture_id}}).encode()
    mask = os.urandom(4)
    raw.sendall(
        bytes([0x81, 0x80 | len(message)])
        + mask
        + bytes(b ^ mask[i % 4] for i, b in enumerate(message))
    )
    started = time.monotonic()
    try:
        # We read nothing. The server keeps answering others meanwhile...
        time.sleep(1)
        check = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
        check.request("GET", "/")
        assert check.getresponse().status == 200
        check.close()
        # ...and lets go of us within seconds.
        while server.log().count('"event": "stream"') == closes_before:
            assert time.monotonic() - started < 20, "the server kept a non-reading viewer for 20 s"
            time.sleep(0.1)
        held = time.monotonic() - started
        assert held < 10, f"held for {held:.1f} s"
        assert '"ended": "connection closed (TimeoutError)"' in server.log()
        # And the connection really ends: draining it reaches EOF.
        raw.settimeout(10)
        while raw.recv(1 << 20):
            pass
    finally:
        raw.close()
