"""Findings on a real server on loopback (issue 29, "Where findings show"): a live run's page
gets them over the websocket as they happen and once more, final, after its summary; a stored
capture's replay sends them after each summary; a proxied call's listing counts them, and the
API gives the recording's."""

from __future__ import annotations

import json

import httpx
import pytest

from .helpers import corpus
from .live_server import LiveServer
from .proxy_helpers import KEY, finished_call, get_json, proxy_server
from .test_api import request
from .test_live import collect, start
from .wsclient import connect as ws_connect

pytestmark = pytest.mark.integration  # starts real servers on loopback

RULE = "tool-call-index-missing"
CAPTURE = "mistral-small-tool-call-no-index.sse"  # its second event's fragment has no index


@pytest.fixture(scope="module")
def server(tmp_path_factory, fake):
    live = LiveServer(tmp_path_factory.mktemp("findings-live")).start()
    yield live
    live.stop()


def rules(message: dict) -> set[str]:
    return {f["rule"] for f in message["findings"]}


def test_a_live_run_sends_findings_while_it_streams_and_final_after_its_summary(server, fake):
    ws = start(server, fake, f"replay:{CAPTURE}", key="sk-any", headers={"X-Gap-Ms": "1200"})
    messages = collect(ws)
    ws.close()
    types = [m["type"] for m in messages]
    assert types[-3:] == ["summary", "findings", "end"]
    final = messages[-2]
    assert final["final"] is True and RULE in rules(final)
    assert final["counts"]["error"] >= 1
    streaming = [m for m in messages[:-3] if m["type"] == "findings"]
    assert streaming, "a finding while the run streamed"
    assert all(m["final"] is False for m in streaming)
    assert RULE in rules(streaming[-1])
    # They came as the run went: after the raw event they name, before its end.
    first = messages.index(streaming[0])
    seen_raw = sum(len(m["t"]) for m in messages[:first] if m["type"] == "raw_meta")
    assert seen_raw > next(f["raw"] for f in streaming[0]["findings"] if f["rule"] == RULE)


def test_a_replay_sends_each_streams_findings_after_its_summary(server):
    status, _, body = request(
        server, "POST", "/api/captures", corpus(CAPTURE), {"X-Filename": CAPTURE}
    )
    assert status == 201
    capture = json.loads(body)["id"]
    ws = ws_connect(server.port)
    ws.send(json.dumps({"type": "open", "source": {"capture": capture}}))
    messages = collect(ws)
    ws.close()
    assert [m["type"] for m in messages][-3:] == ["summary", "findings", "end"]
    finding = next(f for f in messages[-2]["findings"] if f["rule"] == RULE)
    assert finding["raw"] == 1 and finding["doc"] == f"/rules#{RULE}"
    status, _, body = request(server, "GET", f"/api/captures/{capture}/findings")
    assert status == 200
    assert json.loads(body)["streams"][0]["findings"][0]["rule"] == RULE
    status, _, body = request(server, "GET", "/api/captures/no-such-capture-id/findings")
    assert status == 404 and json.loads(body)["error"]["code"] == "no_capture"


@pytest.fixture(scope="module")
def proxied(tmp_path_factory, fake):
    live = proxy_server(tmp_path_factory.mktemp("findings-proxy"), fake).start()
    yield live
    live.stop()


def test_a_proxied_calls_listing_counts_its_findings(proxied):
    with httpx.Client(timeout=30) as client:
        answer = client.post(
            f"{proxied.url}/proxy/local/v1/chat/completions",
            json={"model": f"replay:{CAPTURE}", "stream": True, "messages": []},
            headers={"Authorization": f"Bearer {KEY}", "X-Gap-Ms": "20"},
        )
        assert answer.status_code == 200
    call = finished_call(proxied)
    assert call["findings"] >= 1 and call["finding_counts"]["error"] >= 1
    assert call["findings"] == sum(call["finding_counts"].values())
    stored = get_json(proxied, f"/api/captures/{call['recording']}/findings")
    assert RULE in rules(stored["streams"][0])
    assert stored["streams"][0]["counts"] == call["finding_counts"]
