"""Where findings show (issue 29): the ``findings`` message (one encoder, after each stream's
summary in a replay and its timeline document), ``GET /api/captures/<id>/findings``, the
catalogue page its links point to, and a live run's findings as they happen (at most once a
second, the cost capped, once more at the end)."""

from __future__ import annotations

import json

import msgspec
import pytest

from app import protocol
from app.captures import read_capture
from app.live.findings import EVERY_S, LiveFindings
from app.live.hub import CLOSING
from app.wire import StreamEncoder
from tests.rules.cases import call
from tests.rules.kit import chunk, sse

from .test_hub import new_run
from .test_hub import store as store  # the fixture, for new_run

HOST = {"Host": "127.0.0.1:5000"}
RULE = "tool-call-index-missing"
NO_INDEX = sse(
    chunk({"role": "assistant", "tool_calls": [call(index=None)]}),
    chunk({"tool_calls": [call(index=None, id=None, name=None, args='{"a":1}')]}),
    chunk(finish="tool_calls"),
)
WITH_INDEX = sse(
    chunk({"role": "assistant", "tool_calls": [call()]}),
    chunk({"tool_calls": [call(id=None, name=None, args='{"a":1}')]}),
    chunk(finish="tool_calls"),
)


def fits(message: dict) -> None:
    fields = {k: v for k, v in message.items() if k != "type"}
    msgspec.convert(fields, protocol.SERVER_SHAPES[message["type"]])


def test_the_encoder_gives_each_finding_its_place_counts_and_doc_link():
    stream = read_capture(NO_INDEX, None).streams[0]
    message = json.loads(StreamEncoder(stream).findings(250.0))
    fits(message)
    assert message["type"] == "findings" and message["stream"] == 0 and message["final"] is True
    found = [f for f in message["findings"] if f["rule"] == RULE]
    assert len(found) == 1
    finding = found[0]
    assert finding["severity"] == "error"
    assert finding["raw"] == 0 and finding["line"] == 1 and finding["byte"] == 0
    assert finding["count"] == 2
    assert finding["doc"] == f"/rules#{RULE}"
    assert message["counts"]["error"] >= 1
    assert set(message["counts"]) == {"error", "warning", "info"}
    partial = json.loads(StreamEncoder(stream).findings(250.0, final=False))
    assert partial["final"] is False


def test_a_near_miss_has_no_such_finding():
    stream = read_capture(WITH_INDEX, None).streams[0]
    message = json.loads(StreamEncoder(stream).findings(250.0))
    assert RULE not in {f["rule"] for f in message["findings"]}


def upload(client, data: bytes) -> str:
    answer = client.post("/api/captures", data=data, headers={**HOST, "X-Filename": "t.sse"})
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()["id"]


def test_the_api_gives_each_streams_findings_and_counts(client):
    capture = upload(client, NO_INDEX)
    answer = client.get(f"/api/captures/{capture}/findings", headers=HOST)
    assert answer.status_code == 200
    body = answer.get_json()
    assert [s["stream"] for s in body["streams"]] == [0]
    stream = body["streams"][0]
    assert RULE in {f["rule"] for f in stream["findings"]}
    assert stream["counts"]["error"] == sum(f["severity"] == "error" for f in stream["findings"])
    assert set(stream["counts"]) == {"error", "warning", "info"}
    clean = upload(client, WITH_INDEX)
    body = client.get(f"/api/captures/{clean}/findings", headers=HOST).get_json()
    assert RULE not in {f["rule"] for f in body["streams"][0]["findings"]}


def test_the_api_answers_404_for_an_unknown_capture(client):
    answer = client.get("/api/captures/nope-nope-nope/findings", headers=HOST)
    assert answer.status_code == 404
    assert answer.get_json()["error"]["code"] == "no_capture"


def test_the_timeline_document_has_each_streams_findings_after_its_summary(client):
    capture = upload(client, NO_INDEX)
    answer = client.get(f"/api/captures/{capture}/timeline", headers=HOST, buffered=True)
    document = json.loads(answer.get_data())
    assert document["version"] == protocol.VERSION
    types = [m["type"] for m in document["messages"]]
    assert types[-3:] == ["summary", "findings", "end"]
    findings = document["messages"][-2]
    fits(findings)
    assert RULE in {f["rule"] for f in findings["findings"]}


def test_the_rules_page_has_an_entry_for_each_finding_link(client):
    answer = client.get("/rules", headers=HOST)
    assert answer.status_code == 200
    page = answer.get_data(as_text=True)
    assert f'id="{RULE}"' in page
    assert 'data-severity="error"' in page


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_growing_stream_is_judged_at_most_once_a_second_and_only_changes_are_sent():
    stream = read_capture(NO_INDEX, None).streams[0]
    clock = Clock()
    live = LiveFindings(StreamEncoder(stream), 250.0, clock=clock)
    assert live.due() is None and live.judged == 0  # not a second yet
    clock.now += EVERY_S
    first = live.due()
    assert first is not None and json.loads(first)["final"] is False
    assert RULE in {f["rule"] for f in json.loads(first)["findings"]}
    assert live.counts is not None and live.counts["error"] >= 1
    clock.now += 0.5
    assert live.due() is None and live.judged == 1  # within the second: not judged
    clock.now += EVERY_S
    assert live.due() is None and live.judged == 2  # judged, unchanged: nothing to send
    assert json.loads(live.final())["final"] is True


def test_judging_a_long_stream_waits_ten_times_what_it_cost():
    stream = read_capture(NO_INDEX, None).streams[0]
    clock = Clock()
    live = LiveFindings(StreamEncoder(stream), 250.0, clock=clock)
    judge = live._judge

    def slow(*, final: bool) -> str:
        clock.now += 0.5  # a judging that takes half a second
        return judge(final=final)

    live._judge = slow  # type: ignore[method-assign]
    clock.now += EVERY_S
    assert live.due() is not None
    started = clock.now - 0.5
    assert live.next_at == pytest.approx(started + 5.0)


def test_a_live_run_sends_findings_as_they_happen_and_once_more_at_its_end(store):
    clock = Clock()
    run, _ = new_run(store)
    run.findings.clock, run.findings.next_at = clock, clock.now + EVERY_S
    run.response(1.0, 200, "text/event-stream")
    events = [e + b"\n\n" for e in NO_INDEX.split(b"\n\n") if e.strip()]
    for i, data in enumerate(events):
        clock.now += 0.6
        run.read(10.0 * (i + 1), data)
    sent = [json.loads(p.message) for p in run.log if p.message]
    live = [m for m in sent if m["type"] == "findings"]
    assert live and all(m["final"] is False for m in live)
    assert RULE in {f["rule"] for f in live[-1]["findings"]}
    catch_up, _ = run.snapshot(0)  # a page that resumes gets the latest findings
    assert json.loads(catch_up[-1])["type"] == "findings"
    run.end(50.0, "done", None)
    closing = [json.loads(p.message) for p in run.log[-CLOSING:] if p.message]
    assert [m["type"] for m in closing] == ["summary", "findings", "end"]
    assert closing[1]["final"] is True
    for message in sent + closing:
        fits(message)
    _, index = run.snapshot(0)
    assert index == len(run.log) - CLOSING


def test_the_service_judges_each_stream_once_and_keeps_it_with_the_capture():
    from app.services.findings import capture_findings
    from app.services.sources import Loaded

    two = NO_INDEX + b"\n" + WITH_INDEX  # the chat reading splits a second stream at its start
    capture = read_capture(two, None)
    loaded = Loaded("k", "t", capture, {})
    found = capture_findings(loaded, 250.0)
    assert [s["stream"] for s in found] == [s.index for s in capture.streams]
    assert len(found) == 2
    assert RULE in {f["rule"] for f in found[0]["findings"]}
    assert RULE not in {f["rule"] for f in found[1]["findings"]}
    assert found[0]["counts"]["error"] >= 1
    assert all(f["doc"] == f"/rules#{f['rule']}" for s in found for f in s["findings"])
    assert capture_findings(loaded, 250.0) is found  # kept: not judged again
