"""No log line carries a query string, a header value or a key, whoever logs it (issue 10,
item 3): canaries in an upstream URL's query, in a header and as keys, on the dev server and
under gunicorn."""

from __future__ import annotations

import json
import socket

import pytest

from .live_server import LiveServer
from .test_api import request
from .test_live import collect, start

pytestmark = pytest.mark.integration  # starts real servers on loopback

QUERY = "querycanary7c1e"
HEADER = "headercanary9d2f"
TYPED = "sk-typedcanary-0123456789abcdef"
SERVER_KEY = "servercanary-not-key-shaped-4b5a"


def exercise(server, fake) -> None:
    """Runs and model lists that put every canary in front of httpx, gunicorn and the app."""
    url = f"{fake.url}?key={QUERY}"
    for model in ("replay:openai-gpt4o-length.sse", "nope", "echo-key"):
        ws = start(server, fake, model, base_url=url, key=TYPED, headers={"X-Canary": HEADER})
        collect(ws)
        ws.close()
    ws = start(server, fake, "replay:openai-gpt4o-length.sse", key=None, api_key_env="SERVER_KEY")
    collect(ws)
    ws.close()
    body = json.dumps({"base_url": url, "api_key": TYPED}).encode()
    assert (
        request(server, "POST", "/api/models", body, {"Content-Type": "application/json"})[0] == 200
    )
    body = json.dumps({"base_url": fake.url, "api_key_env": "SERVER_KEY"}).encode()
    assert (
        request(server, "POST", "/api/models", body, {"Content-Type": "application/json"})[0] == 200
    )
    assert request(server, "GET", f"/?token={QUERY}", headers={"X-Canary": HEADER})[0] == 200
    assert request(server, "GET", f"/no-such-page?key={QUERY}")[0] == 404
    bad_request_line(server, f"GET /?key={QUERY} HTTP/1.1 trailing-junk\r\n\r\n")
    bad_request_line(server, f"GET /x HTTP/1.1\r\nAuthorization Bearer {TYPED}\r\n\r\n")
    assert fake.requests[-1]["headers"]["authorization"] == f"Bearer {SERVER_KEY}"
    assert any(r["headers"].get("x-canary") == HEADER for r in fake.requests)
    exercise_apis(server, fake)


def exercise_apis(server, fake) -> None:
    """The same for the other APIs, whose keys go in their own headers (x-api-key,
    x-goog-api-key), typed and from the server."""
    root = f"http://127.0.0.1:{fake.port}"
    for api in ("anthropic", "gemini", "ollama", "responses"):
        base = (root + "/v1" if api == "responses" else root) + f"?key={QUERY}"
        for model in ("slow:2", "echo-key", "echo-split"):
            ws = start(
                server, fake, model, base_url=base, key=TYPED, api=api, headers={"X-Canary": HEADER}
            )
            collect(ws)
            ws.close()
        ws = start(
            server, fake, "slow:2", base_url=root, key=None, api=api, api_key_env="SERVER_KEY"
        )
        collect(ws)
        ws.close()
        body = json.dumps({"api": api, "base_url": base, "api_key": TYPED}).encode()
        assert (
            request(server, "POST", "/api/models", body, {"Content-Type": "application/json"})[0]
            == 200
        )
    sent = [r["headers"] for r in fake.requests]
    assert any(h.get("x-api-key") == SERVER_KEY for h in sent)
    assert any(h.get("x-goog-api-key") == TYPED for h in sent)


def bad_request_line(server, text: str) -> None:
    """A request the HTTP server itself rejects (gunicorn logs why, quoting the line)."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(text.encode())
        sock.shutdown(socket.SHUT_WR)
        while sock.recv(65536):
            pass


@pytest.mark.parametrize("production", [False, True], ids=["dev-server", "gunicorn"])
def test_no_log_line_carries_a_query_a_header_value_or_a_key(tmp_path, fake, production):
    root = f"http://127.0.0.1:{fake.port}"  # its /v1 and the other APIs' paths are under it
    env = {"SERVER_KEY": SERVER_KEY, "STREAMSCOPE_API_KEYS": f"SERVER_KEY={root}"}
    args = ["--production", "--threads", "16"] if production else []
    server = LiveServer(tmp_path / "data", extra_args=args, env=env).start()
    try:
        exercise(server, fake)
    finally:
        server.stop()
    log = server.log()
    assert '"path": "/no-such-page"' in log  # the server did log these requests
    for canary in (QUERY, HEADER, TYPED, SERVER_KEY):
        assert canary not in log, [line for line in log.splitlines() if canary in line]
    assert "?key=" not in log and "?token=" not in log
