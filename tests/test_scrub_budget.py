"""One upload cannot hold a worker while it is scrubbed (issue 26, item 1; docs/security.md,
"Scrubbing in linear time"), under gunicorn with one worker.

Before the fix, an anonymous upload whose data line repeats ``eyJ-`` took 38 s at 300 KB, and
at 5 MB gunicorn killed the worker with nothing stored. The scrubbing patterns' growth is
judged in tests/test_scrub_linear.py; here the attack is sent whole, and the budget that
bounds any scrub is seen refusing an upload."""

from __future__ import annotations

import json
import threading

import pytest

from app.captures.ingest import IngestError, ingest
from app.captures.model import Limits
from app.captures.scrub import Unscrubbable
from app.captures.scrubbing import scrub

from .live_server import LiveServer
from .rawhttp import exchange, head, stored_captures

MB = 1024 * 1024
ATTACK = b"data: " + b"eyJ-" * (5 * MB // 4) + b"\n\ndata: {}\n\n"


def upload(server: LiveServer, body: bytes, timeout: float = 60) -> tuple[int, dict]:
    request = head(
        "POST",
        "/api/captures?format=sse",
        f"127.0.0.1:{server.port}",
        {"Content-Type": "text/event-stream", "Content-Length": str(len(body))},
    )
    answer = exchange(server.port, request, body, timeout=timeout)
    return answer.status, json.loads(answer.body)


# ------------------------------------------------------------------ the budget, in process
def test_a_scrub_past_its_budget_is_refused_with_where_and_why():
    data = b'data: {"choices":[{"delta":{"content":"\\u0041 hello"}}]}\n\n' * 20_000
    with pytest.raises(Unscrubbable) as refused:
        scrub(data, "sse", seconds=0.001)
    assert refused.value.where == "the capture"
    assert "STREAMSCOPE_SCRUB_SECONDS" in refused.value.why
    clean, _ = scrub(data, "sse", seconds=None)  # the same capture, unbounded, is scrubbed
    assert clean == data


def test_an_upload_past_the_budget_is_cannot_scrub():
    data = b"data: " + b"&key=" * 400_000 + b"\n\n"
    with pytest.raises(IngestError) as refused:
        ingest(data, "sse", Limits(scrub_seconds=0.001), store=True)
    assert refused.value.code == "cannot_scrub"
    assert "STREAMSCOPE_SCRUB_SECONDS" in refused.value.message


# ------------------------------------------------------------------ the attack, on a server
@pytest.fixture(scope="module")
def server(tmp_path_factory):
    live = LiveServer(
        tmp_path_factory.mktemp("budget"), ["--production", "--workers", "1", "--threads", "8"]
    ).start()
    yield live
    live.stop()


@pytest.mark.integration
def test_the_eyj_attack_is_scrubbed_and_stored_while_the_worker_answers(server):
    answers: list[int] = []

    def probe() -> None:
        for _ in range(5):
            answer = exchange(
                server.port, head("GET", "/healthz", f"127.0.0.1:{server.port}"), timeout=10
            )
            answers.append(answer.status)

    prober = threading.Thread(target=probe)
    prober.start()
    status, body = upload(server, ATTACK)
    prober.join(30)
    assert status == 201, body
    assert answers == [200] * 5
    raw = exchange(
        server.port, head("GET", f"/api/captures/{body['id']}/raw", f"127.0.0.1:{server.port}")
    )
    assert raw.body == ATTACK  # nothing in it is a key: stored as it came


@pytest.mark.integration
def test_an_upload_past_the_scrub_budget_is_400_cannot_scrub_and_nothing_is_stored(
    tmp_path,
):
    live = LiveServer(
        tmp_path, ["--production", "--workers", "1"], {"STREAMSCOPE_SCRUB_SECONDS": "0.01"}
    ).start()
    try:
        before = stored_captures(live.data_dir)
        status, body = upload(live, b"data: " + b"&key=" * 800_000 + b"\n\n")
        assert status == 400, body
        assert body["error"]["code"] == "cannot_scrub"
        assert "STREAMSCOPE_SCRUB_SECONDS" in body["error"]["message"]
        assert stored_captures(live.data_dir) == before
        status, _ = upload(live, b'data: {"choices":[]}\n\n')  # a small one still goes in
        assert status == 201
    finally:
        live.stop()
