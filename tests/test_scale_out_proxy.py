"""A call through the recording proxy of one ``serve --production`` process is followed live
from another process sharing PostgreSQL and Redis, like a live run (docs/scaling.md,
docs/proxy.md): the proxied call's log is published to Redis as a run's is."""

from __future__ import annotations

import json

import httpx
import pytest

from .fake_upstream import FakeUpstream
from .live_server import LiveServer
from .proxy_helpers import calls
from .test_live import collect, texts
from .test_scale_out import backends  # noqa: F401 (the module's PostgreSQL and Redis)
from .wsclient import connect

pytestmark = pytest.mark.integration  # starts real servers on loopback


@pytest.fixture(scope="module")
def upstream():
    fake = FakeUpstream().start()
    yield fake
    fake.stop()


@pytest.fixture(scope="module")
def pair(backends, upstream, tmp_path_factory):  # noqa: F811
    postgres, redis_server = backends
    env = {"STREAMSCOPE_DATABASE_URL": postgres.url, "STREAMSCOPE_REDIS_URL": redis_server.url}
    proxy = ["--proxy", f"local=http://127.0.0.1:{upstream.port}"]
    servers = [
        LiveServer(
            tmp_path_factory.mktemp(name),
            extra_args=["--production", "--threads", "16", *proxy],
            env=env,
        ).start()
        for name in ("a", "b")
    ]
    yield servers
    for server in servers:
        server.stop()


def test_a_proxied_call_on_one_process_is_followed_live_on_the_other(pair):
    a, b = pair
    url = f"{a.url}/proxy/local/v1/chat/completions"
    body = {"model": "slow:30", "stream": True}
    with httpx.Client(timeout=30) as client, client.stream("POST", url, json=body) as answer:
        pieces = answer.iter_raw()
        next(pieces)
        call = calls(a)[0]
        assert call["state"] == "streaming" and call["recording"]
        ws = connect(b.port)  # the other process: it has no run of this id
        ws.send(json.dumps({"type": "open", "source": {"capture": call["recording"]}}))
        got = b"".join(pieces)
        messages = collect(ws, timeout=60)
        ws.close()
    capture = next(m for m in messages if m["type"] == "capture")
    assert capture["live"] is True, "followed on the live edge, through Redis"
    assert messages[-1] == {"type": "end", "reason": "done", "error": None}
    assert texts(messages) == "".join(f"word{i} " for i in range(30))
    assert not [m for m in messages if m["type"] == "status" and m.get("state") == "fallback"]
    assert got


def test_a_call_through_one_process_is_listed_live_on_the_others_calls_list(pair):
    """The calls list is every process's (docs/proxy.md, "The calls list"): a call made
    through A is on B's list while it streams, within a second, then with how it ended; its
    delete token stays on A. Before, B listed only its own calls."""
    import time

    a, b = pair
    url = f"{a.url}/proxy/local/v1/chat/completions"
    body = {"model": "slow:20", "stream": True}
    with httpx.Client(timeout=30) as client, client.stream("POST", url, json=body) as answer:
        pieces = answer.iter_raw()
        next(pieces)
        mine = calls(a)[0]
        deadline = time.monotonic() + 1.0
        while True:
            # Listed as it is now: A publishes each change (connecting, then streaming).
            listed = [c for c in calls(b) if c["id"] == mine["id"]]
            if (listed and listed[0]["state"] == "streaming") or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert listed, "listed on the other process within a second"
        assert listed[0]["state"] == "streaming" and listed[0]["url"] == mine["url"]
        assert listed[0]["delete_token"] is None and mine["delete_token"]
        b"".join(pieces)
    deadline = time.monotonic() + 5.0
    while time.monotonic() < deadline:
        there = next(c for c in calls(b) if c["id"] == mine["id"])
        here = next(c for c in calls(a) if c["id"] == mine["id"])
        if there["state"] == "done" and there["recording_end"] is not None:
            break
        time.sleep(0.1)
    assert there["state"] == "done" and there["tokens"] == here["tokens"]
    assert {k: v for k, v in there.items() if k != "delete_token"} == {
        k: v for k, v in here.items() if k != "delete_token"
    }
