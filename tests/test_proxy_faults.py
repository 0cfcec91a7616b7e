"""The recording proxy when things go wrong (docs/proxy.md), under the dev server and under
gunicorn: a client that goes away cancels its upstream request (the fake upstream sees the
close), whether a write or the watch notices; an upstream that breaks off mid-answer reaches
the client as a broken answer and the recording says ``disconnected``; an upstream's error
answer reaches the client as it was sent; a call is followed on the live edge by the player's
websocket, as a live run is; and the proxy's own refusals (an unknown name, a path that could
leave the upstream) use the usual error shape and ask the upstream nothing."""

from __future__ import annotations

import json
import socket
import time

import httpx
import pytest

from app.web.security import PROXIED_CSP

from .live_server import free_port
from .proxy_helpers import (
    KEY,
    calls,
    finished_call,
    proxy_server,
    recorded_reads,
    recording,
    writes,
)
from .test_live import collect, texts
from .wsclient import connect

pytestmark = pytest.mark.integration  # starts real servers on loopback

AUTH = {"Authorization": f"Bearer {KEY}"}


@pytest.fixture(scope="module", params=["dev-server", "gunicorn"])
def server(request, tmp_path_factory, fake):
    args = ["--production", "--threads", "16"] if request.param == "gunicorn" else []
    down = ["--proxy", f"down=http://127.0.0.1:{free_port()}"]  # nothing listens there
    data_dir = tmp_path_factory.mktemp(f"faults-{request.param}")
    live = proxy_server(data_dir, fake, *down, *args).start()
    yield live
    live.stop()


def chat(server, model: str) -> tuple[str, dict]:
    return f"{server.url}/proxy/local/v1/chat/completions", {"model": model, "stream": True}


def test_a_client_that_goes_away_mid_answer_cancels_the_upstream_request(server, fake):
    fake.ends.clear()
    url, body = chat(server, "slow:40")  # a chunk every 100 ms
    got = []
    with (
        httpx.Client(timeout=30) as client,
        client.stream("POST", url, json=body, headers=AUTH) as answer,
    ):
        for piece in answer.iter_raw():
            got.append(piece)
            if len(got) == 3:
                break
    gone = time.monotonic()  # the client's connection is closed here
    how, when = fake.wait_end("slow:40")
    assert how == "closed" and when - gone < 1.5, when - gone
    call = finished_call(server)
    assert call["state"] == "cancelled" and call["recording_end"] == "cancelled"
    raw, _ = recording(server, call["recording"])
    recorded = [data for _, data in recorded_reads(raw)]
    assert recorded[:3] == got and len(recorded) < 40  # what came before the client left


def test_a_client_that_goes_away_while_the_upstream_is_silent_cancels_it_too(server, fake):
    fake.ends.clear()
    url, body = chat(server, "hold")  # the head, then nothing until the client goes away
    with httpx.Client(timeout=30) as client, client.stream("POST", url, json=body) as answer:
        assert answer.status_code == 200
    gone = time.monotonic()
    how, when = fake.wait_end("hold")
    assert how == "closed" and when - gone < 2.0, when - gone  # the watch looks every 0.2 s
    assert finished_call(server)["state"] == "cancelled"


@pytest.mark.parametrize("model", ["reset:150", "close:150"])
def test_an_upstream_that_breaks_off_mid_answer_breaks_the_clients_answer(server, fake, model):
    url, body = chat(server, model)
    got = []
    with (
        httpx.Client(timeout=30) as client,
        client.stream("POST", url, json=body) as answer,
        pytest.raises((httpx.RemoteProtocolError, httpx.ReadError)),
    ):
        for piece in answer.iter_raw():
            got.append(piece)
    assert b"".join(got) == b"".join(writes(fake.requests[-1])) and len(b"".join(got)) == 150
    call = finished_call(server)
    assert call["state"] == "disconnected" and call["recording_end"] == "disconnected"
    raw, _ = recording(server, call["recording"])
    assert b'"reason":"disconnected"' in raw
    assert b"".join(data for _, data in recorded_reads(raw)) == b"".join(got)


@pytest.mark.parametrize(
    ("model", "status", "header"),
    [("429always", 429, "retry-after"), ("500", 500, None), ("html:503", 503, None)],
)
def test_an_upstream_error_reaches_the_client_as_it_was_sent(server, fake, model, status, header):
    url, body = chat(server, model)
    before = len(fake.requests)
    with httpx.Client(timeout=30) as client:
        answer = client.post(url, json=body)
    assert len(fake.requests) == before + 1, "the proxy never retries: the client decides"
    sent = fake.requests[-1]
    assert answer.status_code == status and answer.content == b"".join(writes(sent))
    if header:
        assert answer.headers[header] == "0"
    # served from Streamscope's origin: an upstream's page runs no script there
    assert PROXIED_CSP in answer.headers.get_list("content-security-policy")
    assert answer.headers["x-content-type-options"] == "nosniff"
    call = finished_call(server)
    assert call["status"] == status and call["state"] == "error"
    assert call["error"].startswith(f"HTTP {status} from upstream")


def test_a_call_is_followed_on_the_live_edge_like_a_live_run(server, fake):
    url, body = chat(server, "slow:30")
    with httpx.Client(timeout=30) as client, client.stream("POST", url, json=body) as answer:
        pieces = answer.iter_raw()
        next(pieces)
        call = calls(server)[0]
        assert call["state"] == "streaming" and call["recording"]
        ws = connect(server.port)
        ws.send(json.dumps({"type": "open", "source": {"capture": call["recording"]}}))
        got = b"".join([*list(pieces)])
        messages = collect(ws)
        ws.close()
    capture = next(m for m in messages if m["type"] == "capture")
    assert capture["live"] is True, "the player follows the call as it streams"
    assert messages[-1] == {"type": "end", "reason": "done", "error": None}
    assert texts(messages) == "".join(f"word{i} " for i in range(30))
    assert got


def test_a_recording_still_streaming_is_never_served_as_finished(server, fake):
    url, body = chat(server, "slow:20")
    with httpx.Client(timeout=30) as client, client.stream("POST", url, json=body) as answer:
        pieces = answer.iter_raw()
        next(pieces)
        capture_id = calls(server)[0]["recording"]
        page = client.get(f"{server.url}/c/{capture_id}").text
        assert "data-timeline-url" not in page, "the page follows it over the websocket"
        meta = client.get(f"{server.url}/api/captures/{capture_id}").json()
        growing = client.get(server.url + meta["timeline_url"])
        assert growing.headers["cache-control"] == "no-cache"  # never immutable while it grows
        list(pieces)
    assert finished_call(server)["recording"] == capture_id
    with httpx.Client(timeout=30) as client:
        meta = client.get(f"{server.url}/api/captures/{capture_id}").json()
        finished = client.get(server.url + meta["timeline_url"])
    assert finished.headers["cache-control"] == "public, max-age=31536000, immutable"


def test_an_unknown_upstream_is_a_404_in_the_usual_shape(server, fake):
    before = len(fake.requests)
    with httpx.Client(timeout=10) as client:
        answer = client.post(
            f"{server.url}/proxy/elsewhere/v1/chat/completions", json={}, headers={"Accept": "*/*"}
        )
    assert answer.status_code == 404
    assert answer.json()["error"]["code"] == "no_upstream"
    assert "local" in answer.json()["error"]["message"]
    assert len(fake.requests) == before


def test_an_upstream_that_is_down_is_a_502_that_says_where(server, fake):
    with httpx.Client(timeout=30) as client:
        answer = client.post(
            f"{server.url}/proxy/down/v1/chat/completions",
            json={"model": "m", "stream": True},
            headers=AUTH,
        )
    assert answer.status_code == 502, answer.text
    error = answer.json()["error"]
    assert error["code"] == "upstream_unreachable" and "127.0.0.1" in error["message"]
    assert KEY not in answer.text
    call = finished_call(server)
    assert call["upstream"] == "down" and call["state"] == "error" and call["status"] is None
    assert call["error"] == error["message"] and call["recording_end"] == "error"
    raw, _ = recording(server, call["recording"])
    assert b'"reason":"error"' in raw and KEY.encode() not in raw


def test_a_header_that_cannot_be_sent_is_a_400_and_the_call_ends(server, fake):
    # httpx sends header values as ASCII: a value with "\xe9" raised outside the exchange's
    # failure handling (500), and the call stayed "connecting", its recording never ended and
    # the exchange (body included) was never released.
    before = len(fake.requests)
    body = b'{"model":"m","stream":true}'
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(
            f"POST /proxy/local/v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n".encode()
            + b"X-Note: caf\xe9\r\nConnection: close\r\n\r\n"
            + body
        )
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, answer = data.partition(b"\r\n\r\n")
    assert int(head.split()[1]) == 400, data[:300]
    error = json.loads(answer)["error"]
    assert error["code"] == "bad_header" and "X-Note" in error["message"]
    call = finished_call(server)
    assert call["state"] == "error" and call["recording_end"] == "error"
    assert len(fake.requests) == before  # nothing went upstream


def raw_request(server, target: str) -> tuple[int, bytes]:
    """A request line sent as written (clients would normalise ``..`` away)."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(
            f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nConnection: close\r\n\r\n".encode()
        )
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


@pytest.mark.parametrize(
    "target",
    [
        "/proxy/local/v1/../../admin",
        "/proxy/local/%2e%2e/admin",
        "/proxy/local/v1/..%2fadmin",
        "/proxy/local/v1\\..\\admin",
    ],
)
def test_a_path_that_could_leave_the_upstream_is_refused_and_not_sent(server, fake, target):
    before = len(fake.requests)
    status, body = raw_request(server, target)
    assert status == 400 and json.loads(body)["error"]["code"] == "bad_proxy_path", body
    assert len(fake.requests) == before


def test_any_method_goes_with_its_query_and_body(server, fake):
    with httpx.Client(timeout=10) as client:
        for method in ("PUT", "PATCH", "DELETE", "OPTIONS"):
            answer = client.request(
                method, f"{server.url}/proxy/local/v1/things/1?a=1&b=%2F", content=b"x" * 300
            )
            assert answer.status_code == 200 and answer.headers["x-echo"] == method
            assert answer.json() == {
                "method": method,
                "path": "/v1/things/1?a=1&b=%2F",
                "body_bytes": 300,
            }
        head = client.head(f"{server.url}/proxy/local/v1/things/2")
        assert head.status_code == 200 and head.content == b""
        assert fake.requests[-1]["method"] == "HEAD"
        listed = client.get(f"{server.url}/proxy/local/v1beta/models?pageSize=1000")
        assert (
            listed.status_code == 200
            and fake.requests[-1]["path"] == "/v1beta/models?pageSize=1000"
        )
    assert finished_call(server)["method"] == "GET"


def test_a_secret_query_parameter_echoed_by_the_upstream_is_not_recorded(server, fake):
    # The recording's redactor knew the credentials of the headers only: a plain (not
    # key-shaped) ?key= value the upstream echoed back was stored.
    secret = "plainsecretvalueQQQ77"
    with httpx.Client(timeout=10) as client:
        answer = client.put(f"{server.url}/proxy/local/v1/things/3?key={secret}&a=1")
    assert answer.status_code == 200 and secret in answer.text  # the client's own, echoed
    call = finished_call(server)
    raw, _ = recording(server, call["recording"])
    assert secret.encode() not in raw and b"a=1" in raw
