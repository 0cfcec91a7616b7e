"""Two ``streamscope serve --production`` processes on different loopback ports sharing one
PostgreSQL and one Redis (docs/scaling.md): a run started on one is followed live on the other
over a real websocket, every event in order; a viewer resumes on the other process; Redis
killed (SIGKILL) mid-run and started again: every viewer ends with every event, and the
viewers on the other process were told they followed the stored recording meanwhile."""

from __future__ import annotations

import json
import threading
import time
import urllib.request

import pytest

from .fake_upstream import FakeUpstream
from .live_server import LiveServer
from .postgres_server import PostgresServer, binaries
from .redis_server import RedisServer, binary
from .test_live import collect, start, started
from .wsclient import connect

pytestmark = pytest.mark.integration  # starts real servers on loopback


@pytest.fixture(scope="module")
def backends():
    if binaries() is None or binary() is None:
        pytest.skip("PostgreSQL or redis-server is not installed (the README's test command does)")
    postgres = PostgresServer().start()
    redis_server = RedisServer().start()
    yield postgres, redis_server
    redis_server.stop()
    postgres.stop()


@pytest.fixture(scope="module")
def pair(backends, tmp_path_factory):
    postgres, redis_server = backends
    env = {
        "STREAMSCOPE_DATABASE_URL": postgres.url,
        "STREAMSCOPE_REDIS_URL": redis_server.url,
        "STREAMSCOPE_WS_PER_CLIENT": "100",
        "STREAMSCOPE_WS_RATE": "1000",
        "STREAMSCOPE_WS_BURST": "1000",
    }
    servers = [
        LiveServer(
            tmp_path_factory.mktemp(name), extra_args=["--production", "--threads", "24"], env=env
        ).start()
        for name in ("a", "b")
    ]
    yield servers
    for server in servers:
        server.stop()


@pytest.fixture
def fake():
    upstream = FakeUpstream().start()
    yield upstream
    upstream.stop()


def texts(messages: list[dict]) -> list[str]:
    return [
        e["text"]
        for m in messages
        if m["type"] == "events"
        for e in m["events"]
        if e["kind"] == "text"
    ]


def events(messages: list[dict]) -> list[dict]:
    return [e for m in messages if m["type"] == "events" for e in m["events"]]


def open_capture(server, capture_id: str, resume: dict | None = None):
    ws = connect(server.port)
    message: dict = {"type": "open", "source": {"capture": capture_id}}
    if resume is not None:
        message["resume"] = resume
    ws.send(json.dumps(message))
    return ws


def until_events(ws, count: int, timeout: float = 30) -> list[dict]:
    messages, deadline = [], time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = ws.receive(timeout=1)
        if text is None:
            continue
        messages.append(json.loads(text))
        if len(events(messages)) >= count:
            return messages
    raise AssertionError(f"fewer than {count} events within {timeout} s")


def test_a_run_on_one_process_is_followed_live_on_the_other(pair, fake):
    a, b = pair
    ws = start(a, fake, "slow:30", key=None)
    first = collect(ws, until="capture", timeout=15)
    capture_id = started(first)["capture"]
    viewer = open_capture(b, capture_id)
    seen = collect(viewer, timeout=60)
    mine = first + collect(ws, timeout=60)
    viewer.close()
    ws.close()
    assert seen[0]["type"] == "hello" and seen[1]["type"] == "capture" and seen[1]["live"]
    assert seen[-1]["type"] == "end" and seen[-1]["reason"] == "done"
    assert len(texts(seen)) == 30
    assert events(seen) == events(mine)  # every event, in order, as the run's own page got them
    assert [m["type"] for m in seen].count("summary") == 1
    # Followed live: the viewer had events before the run ended (not one replay at the end).
    assert seen.index(next(m for m in seen if m["type"] == "events")) < len(seen) - 3
    assert not [m for m in seen if m["type"] == "status" and m["state"] == "fallback"]


def test_a_viewer_resumes_on_the_other_process(pair, fake):
    a, b = pair
    ws = start(a, fake, "slow:30", key=None)
    capture_id = started(collect(ws, until="capture", timeout=15))["capture"]
    viewer = open_capture(a, capture_id)
    before = until_events(viewer, 5)
    viewer.close()  # the connection drops; the page comes back through the other process
    had = len(events(before))
    again = open_capture(b, capture_id, resume={"stream": 0, "events": had})
    after = collect(again, timeout=60)
    again.close()
    mine = collect(ws, timeout=60)
    ws.close()
    assert after[-1]["type"] == "end" and after[-1]["reason"] == "done"
    whole = events(before) + events(after)
    assert whole == events(collect_stored(b, capture_id))
    assert len(texts(before) + texts(after)) == 30 and mine[-1]["reason"] == "done"


def collect_stored(server, capture_id: str) -> list[dict]:
    """The finished run as a replay of its stored recording."""
    ws = open_capture(server, capture_id)
    messages = collect(ws, timeout=30)
    ws.close()
    assert messages[-1]["reason"] == "complete"
    return messages


def test_redis_killed_mid_run_every_viewer_ends_with_every_event(pair, backends, fake):
    a, b = pair
    _, redis_server = backends
    ws = start(a, fake, "slow:60", key=None)
    capture_id = started(collect(ws, until="capture", timeout=15))["capture"]
    viewers = [open_capture(b, capture_id), open_capture(b, capture_id)]
    local = open_capture(a, capture_id)
    results: dict[int, list[dict]] = {}

    def read(i: int, client) -> None:
        results[i] = collect(client, timeout=90)

    threads = [
        threading.Thread(target=read, args=(i, c)) for i, c in enumerate([*viewers, local, ws])
    ]
    for thread in threads:
        thread.start()
    time.sleep(1.5)  # some events through Redis first
    redis_server.kill()
    time.sleep(2.0)  # the run goes on meanwhile (100 ms a chunk)
    redis_server.start()
    for thread in threads:
        thread.join(120)
    for client in [*viewers, local, ws]:
        client.close()
    reference = events(collect_stored(b, capture_id))
    assert len([e for e in reference if e["kind"] == "text"]) == 60
    for i in range(4):
        assert results[i][-1]["type"] == "end" and results[i][-1]["reason"] == "done", i
        assert events(results[i]) == reference, i  # every event, once, in order
    for i in (0, 1):  # the viewers on the other process were told, and came back
        states = [m["state"] for m in results[i] if m["type"] == "status"]
        assert "fallback" in states and "live" in states[states.index("fallback") :], states


def test_healthz_says_whether_redis_answers_and_stays_up_without_it(pair, backends):
    a, _ = pair
    _, redis_server = backends

    def health() -> tuple[int, dict]:
        with urllib.request.urlopen(a.url + "/healthz", timeout=10) as answer:
            return answer.status, json.loads(answer.read())

    status, body = health()
    assert (status, body["redis"]) == (200, "ok")
    redis_server.kill()
    try:
        status, body = health()
        assert (status, body["status"], body["redis"]) == (200, "ok", "unreachable")
    finally:
        redis_server.start()
    assert health()[1]["redis"] == "ok"


def test_the_page_that_holds_the_delete_token_stops_the_run_from_the_other_process(pair, fake):
    """A page that resumed on another process (or any page holding the recording's delete
    token) stops the run there: the Stop reaches the run's process through its control
    stream. Before, a follower's Stop was ignored (``Mirror.cancel`` did nothing), and a Stop
    without the token still is."""
    a, b = pair
    ws = start(a, fake, "slow:300", key=None)
    first = collect(ws, until="capture", timeout=15)
    status = started(first)
    viewer = open_capture(b, status["capture"])
    seen = until_events(viewer, 3)
    viewer.send(json.dumps({"type": "stop"}))  # a share link's viewer: not theirs to stop
    viewer.send(json.dumps({"type": "stop", "delete_token": "not-the-token"}))
    seen += until_events(viewer, len(events(seen)) + 5)
    assert not [m for m in seen if m["type"] == "end"]
    viewer.send(json.dumps({"type": "stop", "delete_token": status["delete_token"]}))
    seen += collect(viewer, timeout=30)
    mine = first + collect(ws, timeout=30)
    viewer.close()
    ws.close()
    assert mine[-1]["type"] == "end" and mine[-1]["reason"] == "cancelled"
    assert seen[-1] == mine[-1]
    assert len(texts(mine)) < 300
