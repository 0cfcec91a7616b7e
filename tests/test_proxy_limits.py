"""The recording proxy's limits and safety (docs/proxy.md; docs/security.md, "Recording
proxy"): off unless upstreams are configured; on a public server, a token for every call and
for the calls list (never forwarded, recorded or logged), or the server does not start;
request bodies capped before they are received; recordings capped like live runs (the call
goes on, the recording ends ``too_large`` and its part replays); a recording deleted, or a
store that fails, never breaks the call; deadlines; a proxied call holds its unit of slow
work until it ends; and ``streamscope proxy`` runs the proxy on loopback."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.request

import httpx
import pytest
from werkzeug.serving import make_server

from app import create_app
from app.captures import read_capture
from app.web.context import services_of

from .live_server import ROOT, LiveServer, free_port
from .proxy_helpers import (
    KEY,
    TOKEN,
    calls,
    finished_call,
    nowhere,
    proxy_server,
    recorded_reads,
    recording,
    root,
    writes,
)

pytestmark = pytest.mark.integration  # starts real servers on loopback


def post(server, model: str, **headers: str) -> httpx.Response:
    with httpx.Client(timeout=60) as client:
        return client.post(
            f"{server.url}/proxy/local/v1/chat/completions",
            json={"model": model, "stream": True},
            headers=headers,
        )


def test_the_proxy_is_off_unless_upstreams_are_configured(tmp_path, fake):
    with LiveServer(tmp_path / "data") as server, httpx.Client(timeout=10) as client:
        before = len(fake.requests)
        answer = client.post(f"{server.url}/proxy/local/v1/chat/completions", json={})
        assert answer.status_code == 404 and answer.json()["error"]["code"] == "proxy_off"
        listed = client.get(f"{server.url}/api/proxy/calls")
        assert listed.status_code == 404 and listed.json()["error"]["code"] == "proxy_off"
        assert client.get(f"{server.url}/proxy").status_code == 404
        assert 'data-testid="nav-proxy"' not in client.get(server.url + "/").text
        assert len(fake.requests) == before


def serve_fails(tmp_path, *args: str, env: dict | None = None) -> str:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "app.cli",
            "serve",
            "--port",
            "0",
            "--data-dir",
            str(tmp_path),
            *args,
        ],
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    return result.stderr


def test_a_public_proxy_without_a_token_or_malformed_upstreams_stop_the_server(tmp_path, fake):
    assert "STREAMSCOPE_PROXY_TOKEN" in serve_fails(
        tmp_path, "--public", "--proxy", f"local={root(fake)}"
    )
    for value, words in [
        ("local", "write NAME=URL"),
        ("a=http://x,a=http://y", "given twice"),
        ("a=http://user:pw@example.com", "user-info"),
        ("a=ftp://example.com", "not an http(s) URL"),
        ("a=http://example.com/v1?key=1", "query"),
    ]:
        assert words in serve_fails(tmp_path, env={"STREAMSCOPE_PROXY_UPSTREAMS": value})


@pytest.fixture(scope="module")
def public(tmp_path_factory, fake):
    env = {"STREAMSCOPE_PROXY_TOKEN": TOKEN, "STREAMSCOPE_PROXY_MAX_BODY_MB": "1"}
    server = proxy_server(tmp_path_factory.mktemp("public"), fake, "--public", env=env).start()
    yield server
    server.stop()


def test_a_public_proxy_needs_its_token_before_anything_else(public, fake):
    before = len(fake.requests)
    with httpx.Client(timeout=30) as client:
        url = f"{public.url}/proxy/local/v1/chat/completions"
        refused = client.post(url, json={"model": "json"})
        assert refused.status_code == 403 and refused.json()["error"]["code"] == "proxy_token"
        wrong = client.post(url, json={"model": "json"}, headers={"X-Streamscope-Proxy-Token": "x"})
        assert wrong.status_code == 403
        # checked before the body is received: 403, not the 413 a body over the cap gets
        big = client.post(url, content=b"x" * (2 * 1024 * 1024))
        assert big.status_code == 403
        assert len(fake.requests) == before
        for path in ("/api/proxy/calls", "/proxy"):
            assert client.get(public.url + path).status_code == 403
        assert client.get(f"{public.url}/api/proxy/calls?proxy_token={TOKEN}").status_code == 200
        assert client.get(f"{public.url}/proxy?proxy_token={TOKEN}").status_code == 200


def test_the_token_opens_the_proxy_and_goes_no_further(public, fake):
    with httpx.Client(timeout=30) as client:
        by_header = client.post(
            f"{public.url}/proxy/local/v1/chat/completions",
            json={"model": "json"},
            headers={"X-Streamscope-Proxy-Token": TOKEN, "Authorization": f"Bearer {KEY}"},
        )
        assert by_header.status_code == 200
        sent = fake.requests[-1]
        assert "x-streamscope-proxy-token" not in sent["headers"]
        assert TOKEN not in json.dumps({k: sent[k] for k in ("path", "headers", "body")})
        by_query = client.post(
            f"{public.url}/proxy/local/v1beta/models/replay:gemini-2-0-flash-exp-text.sse"
            f":streamGenerateContent?alt=sse&proxy_token={TOKEN}",
            json={"contents": []},
        )
        assert by_query.status_code == 200
        sent = fake.requests[-1]
        assert sent["path"].endswith(":streamGenerateContent?alt=sse"), sent["path"]
    listed = calls(public, {"X-Streamscope-Proxy-Token": TOKEN})
    assert TOKEN not in json.dumps(listed)
    nowhere(public, TOKEN, KEY)


def test_a_request_body_over_the_cap_is_refused_before_it_is_sent(public, fake):
    before = len(fake.requests)
    with httpx.Client(timeout=30) as client:
        answer = client.post(
            f"{public.url}/proxy/local/v1/chat/completions",
            content=b"x" * (2 * 1024 * 1024),
            headers={"X-Streamscope-Proxy-Token": TOKEN},
        )
    assert answer.status_code == 413
    assert "STREAMSCOPE_PROXY_MAX_BODY_MB" in answer.json()["error"]["message"]
    assert len(fake.requests) == before


@pytest.fixture(scope="module")
def capped(tmp_path_factory, fake):
    env = {
        "STREAMSCOPE_MAX_LIVE_MB": "1",
        "STREAMSCOPE_FIRST_BYTE_TIMEOUT": "1",
        "STREAMSCOPE_IDLE_TIMEOUT": "1",
    }
    server = proxy_server(tmp_path_factory.mktemp("capped"), fake, env=env).start()
    yield server
    server.stop()


def test_a_recording_past_its_cap_ends_too_large_and_the_call_goes_on(capped, fake):
    answer = post(capped, "flood:3")
    sent = fake.requests[-1]
    assert answer.status_code == 200 and answer.content == b"".join(writes(sent))
    assert len(answer.content) > 3_000_000
    call = finished_call(capped)
    assert call["state"] == "done" and call["recording_end"] == "too_large"
    raw, _ = recording(capped, call["recording"])
    kept = b"".join(data for _, data in recorded_reads(raw))
    assert 0 < len(kept) < 1_100_000 and answer.content.startswith(kept)
    (stream,) = read_capture(raw).streams  # the part replays like any recording
    assert stream.end_reason == "too_large" and stream.events


def test_a_recording_deleted_while_it_streams_leaves_the_call_going(capped, fake):
    with httpx.Client(timeout=30) as client:
        url = f"{capped.url}/proxy/local/v1/chat/completions"
        with client.stream("POST", url, json={"model": "slow:15"}) as answer:
            pieces = answer.iter_raw()
            got = [next(pieces)]
            call = calls(capped)[0]
            deleted = client.delete(
                f"{capped.url}/api/captures/{call['recording']}",
                headers={"X-Delete-Token": call["delete_token"]},
            )
            assert deleted.status_code == 204
            got += list(pieces)
    assert b"".join(got) == b"".join(writes(fake.requests[-1]))
    call = finished_call(capped)
    assert call["state"] == "done" and call["recording_end"] == "cancelled"


@pytest.mark.parametrize(
    ("model", "words"), [("hold", "no data within 1 s"), ("drip", "no data for 1 s")]
)
def test_an_upstream_silent_past_its_deadline_breaks_the_call(capped, fake, model, words):
    fake.ends.clear()
    started = time.monotonic()
    with pytest.raises((httpx.RemoteProtocolError, httpx.ReadError)):
        post(capped, model)
    assert time.monotonic() - started < 10
    call = finished_call(capped)
    assert call["state"] == "error" and words in call["error"]
    assert fake.wait_end(model)[0] == "closed"


def test_an_upstream_without_headers_past_the_deadline_is_answered_by_the_proxy(capped, fake):
    answer = post(capped, "mute")
    assert answer.status_code == 504
    error = answer.json()["error"]
    assert error["code"] == "upstream_timeout"
    assert error["message"] == "no response headers within 1 s of the request"
    assert fake.wait_end("mute")[0] == "closed"


def test_a_proxied_call_holds_its_unit_of_slow_work_until_it_ends(tmp_path, fake):
    env = {"STREAMSCOPE_WORK_CAPACITY": "1"}
    with proxy_server(tmp_path / "data", fake, env=env) as server, httpx.Client(timeout=30) as c:
        with c.stream("GET", f"{server.url}/proxy/local/v1/drip/models") as held:
            assert held.status_code == 200
            time.sleep(0.3)
            busy = c.get(f"{server.url}/proxy/local/v1/models")
            assert busy.status_code == 503 and busy.json()["error"]["code"] == "capacity"
            health = c.get(f"{server.url}/healthz").json()
            assert health["slow_requests"] == 1
        deadline = time.monotonic() + 5
        while (
            c.get(f"{server.url}/healthz").json()["slow_requests"] and time.monotonic() < deadline
        ):
            time.sleep(0.05)
        assert c.get(f"{server.url}/proxy/local/v1/models").status_code == 200


def test_a_store_that_fails_never_breaks_the_call(tmp_path, fake):
    """The store fails under the recording (a full disk, a locked database): the call goes on,
    its answer whole; the recording is marked failed and the failure logged."""
    app = create_app(
        {"data_dir": str(tmp_path), "port": free_port(), "proxy_upstreams": f"local={root(fake)}"}
    )
    store = services_of(app).store

    def failing_append(capture_id: str, data: bytes) -> None:
        raise sqlite3.OperationalError("disk I/O error")

    store.append = failing_append  # type: ignore[method-assign]
    server = make_server("127.0.0.1", services_of(app).settings.port, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_port}"
        with httpx.Client(timeout=30) as client:
            answer = client.post(
                f"{url}/proxy/local/v1/chat/completions", json={"model": "slow:8", "stream": True}
            )
        assert answer.status_code == 200
        assert answer.content == b"".join(writes(fake.requests[-1]))
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            listed = json.loads(urllib.request.urlopen(f"{url}/api/proxy/calls").read())["calls"]
            if listed[0]["recording_end"] is not None:
                break
            time.sleep(0.05)
        assert listed[0]["state"] == "done" and listed[0]["recording_end"] == "failed"
    finally:
        server.shutdown()


def test_the_proxy_command_runs_the_proxy_and_its_pages_on_loopback(tmp_path, fake):
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "proxy", "--upstream", f"local={root(fake)}",
         "--port", str(port), "--data-dir", str(tmp_path)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )  # fmt: skip
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                front = httpx.get(url + "/", timeout=1)
                break
            except httpx.HTTPError:
                time.sleep(0.1)
        assert front.status_code == 302 and front.headers["location"] == "/proxy"
        page = httpx.get(url + "/proxy", timeout=5)
        assert page.status_code == 200 and f"{url}/proxy/local" in page.text
        answer = httpx.post(f"{url}/proxy/local/v1/chat/completions", json={"model": "json"})
        assert answer.status_code == 200 and answer.json()["object"] == "chat.completion"
    finally:
        process.terminate()
        output, _ = process.communicate(timeout=10)
    assert f"proxy: {url}/proxy/local/ -> {root(fake)}/" in output
