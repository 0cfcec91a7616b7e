"""The production server (gunicorn, threaded workers): probes, capacity, per-client limits,
structured logs, and live runs."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from .fake_upstream import FakeUpstream
from .live_server import LiveServer
from .test_api import request, upload
from .test_live import collect, start, started
from .wsclient import connect

pytestmark = pytest.mark.integration  # starts real servers on loopback


def websocket_status(server) -> int:
    """Open a websocket and return 101, or the HTTP status it was refused with."""
    try:
        ws = connect(server.port)
    except Exception as exc:  # websockets raises InvalidStatus with the response
        return exc.response.status_code
    ws.close()
    return 101


@pytest.fixture(scope="module")
def production(tmp_path_factory):
    # 12 threads: 4 websockets at most (8 are kept for pages and 503 answers).
    env = {
        "STREAMSCOPE_WS_PER_CLIENT": "100",
        "STREAMSCOPE_WS_RATE": "1000",
        "STREAMSCOPE_WS_BURST": "1000",
    }
    live = LiveServer(
        tmp_path_factory.mktemp("prod"), extra_args=["--production", "--threads", "12"], env=env
    ).start()
    yield live
    live.stop()


def test_healthz(production):
    status, headers, body = request(production, "GET", "/healthz")
    health = json.loads(body)
    assert status == 200 and headers["content-type"].startswith("application/json")
    assert health["status"] == "ok" and health["store"] == "ok"
    assert health["redis"] == "off"  # no STREAMSCOPE_REDIS_URL: each process serves its own
    assert health["websocket_capacity"] == 4


def test_beyond_capacity_new_viewers_get_a_clear_503_not_a_hang(production):
    held = []
    for _ in range(4):
        ws = connect(production.port)
        ws.send(json.dumps({"type": "open", "source": {"demo": "seed-docs"}}))
        assert json.loads(ws.receive(timeout=5))["type"] == "hello"
        held.append(ws)
    try:
        assert json.loads(request(production, "GET", "/healthz")[2])["websockets"] == 4
        started_at = time.monotonic()
        try:
            connect(production.port)
            refused = None
        except Exception as exc:
            refused = exc
        assert refused is not None and refused.response.status_code == 503
        assert json.loads(refused.response.body)["error"]["code"] == "capacity"
        assert time.monotonic() - started_at < 3
        assert request(production, "GET", "/")[0] == 200  # pages are still served
    finally:
        for ws in held:
            ws.close()
    deadline = time.monotonic() + 10
    while websocket_status(production) != 101:
        assert time.monotonic() < deadline, "capacity was not given back"
        time.sleep(0.2)


def test_replays_live_runs_and_followers_work_under_gunicorn(production):
    fake = FakeUpstream().start()
    try:
        ws = start(production, fake, "slow:15", key=None)
        first = collect(ws, until="capture", timeout=10)
        viewer = connect(production.port)
        viewer.send(json.dumps({"type": "open", "source": {"capture": started(first)["capture"]}}))
        seen = collect(viewer)
        rest = collect(ws)
        viewer.close()
        ws.close()
        assert rest[-1]["reason"] == "done" and seen[-1]["reason"] == "done"
    finally:
        fake.stop()


def test_structured_logs_one_line_per_request_and_per_stream_and_no_secrets(production):
    secret = "sk-logcanary-0123456789abcdef01234567"
    status, answer = upload(
        production,
        f'data: {{"choices":[{{"index":0,"delta":{{"content":"{secret}"}}}}]}}\n\n'.encode(),
        title=secret,
    )
    assert status == 201
    request(production, "GET", f"/c/{answer['id']}?t=1&token={secret}")
    time.sleep(0.3)
    lines = [json.loads(line) for line in production.log().splitlines() if line.startswith("{")]
    requests = [line for line in lines if line.get("event") == "request"]
    streams = [line for line in lines if line.get("event") == "stream"]
    assert any(
        r["path"] == f"/c/{answer['id']}" and r["status"] == 200 and "ms" in r for r in requests
    )
    assert any(
        r["path"] == "/api/captures" and r["method"] == "POST" and r["status"] == 201
        for r in requests
    )
    assert streams and {"kind", "source", "messages", "bytes", "seconds", "ended"} <= set(
        streams[0]
    )
    assert secret not in production.log()


def test_per_client_limits_apply_before_the_upgrade(tmp_path):
    env = {
        "STREAMSCOPE_WS_PER_CLIENT": "2",
        "STREAMSCOPE_WS_RATE": "0.5",
        "STREAMSCOPE_WS_BURST": "3",
    }
    live = LiveServer(
        tmp_path / "limits", extra_args=["--production", "--threads", "16"], env=env
    ).start()
    try:
        a, b = connect(live.port), connect(live.port)
        assert websocket_status(live) == 429  # a third at once from one address
        a.close()
        b.close()
        time.sleep(0.3)
        # Of the burst of 3, a and b used 2 (the refused third took none): one more gets in,
        # then new connections are refused until the bucket refills at 0.5 per second.
        assert [websocket_status(live) for _ in range(3)] == [101, 429, 429]
        assert request(live, "GET", "/healthz")[0] == 200
    finally:
        live.stop()


def worker_threads(server) -> int:
    """Threads of the gunicorn worker (the server process's only child)."""
    pid = server.process.pid
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    assert len(children) == 1, children
    status = Path(f"/proc/{children[0]}/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("Threads:")))


def test_worker_threads_return_to_the_baseline_after_viewers_leave(tmp_path):
    # gunicorn's own pool keeps every thread it ever started; ours ends idle ones.
    env = {
        "STREAMSCOPE_THREAD_IDLE_S": "0.5",
        "STREAMSCOPE_WS_RATE": "1000",
        "STREAMSCOPE_WS_PER_CLIENT": "100",  # every viewer here comes from 127.0.0.1
    }
    live = LiveServer(
        tmp_path / "data", extra_args=["--production", "--threads", "48"], env=env
    ).start()
    try:
        assert request(live, "GET", "/healthz")[0] == 200
        time.sleep(1.5)
        baseline = worker_threads(live)
        viewers = []
        for _ in range(30):
            ws = connect(live.port)
            ws.send(json.dumps({"type": "open", "source": {"demo": "seed-docs"}}))
            assert json.loads(ws.receive(timeout=5))["type"] == "hello"
            viewers.append(ws)
        crowded = worker_threads(live)
        for ws in viewers:
            ws.close()
        deadline = time.monotonic() + 20
        while worker_threads(live) > baseline + 2 and time.monotonic() < deadline:
            time.sleep(0.2)
        after = worker_threads(live)
        assert crowded >= baseline + 30, (baseline, crowded)
        assert after <= baseline + 2, (baseline, crowded, after)
        assert websocket_status(live) == 101  # and it still serves
    finally:
        live.stop()
