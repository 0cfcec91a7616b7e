"""Anthropic Messages: Streamscope's final ``message`` against the official SDK's accumulator
run on the same bytes (the beta accumulator, which also keeps MCP tool input and compaction
summaries; the standard one drops them, shown below), plus the quirks worth a test each."""

from __future__ import annotations

import json

import httpx
import pytest

from app.captures import read_capture
from app.domain.dialects.chat.assemble import plain
from app.domain.rules import find
from app.domain.summary import summarize

from .common import DIALECT_CAPTURES, captures, summary

NAMES = captures("anthropic-")


def sdk_message(data: bytes, beta: bool = True) -> dict:
    """The SDK's message from ``data``: its beta accumulator's, or (``beta=False``) the
    standard one's. The SDK is imported here, by the tests that run it."""
    from anthropic._streaming import SSEDecoder
    from anthropic.lib.streaming import _beta_messages, _messages

    snapshot, buffers = None, {}
    accumulate = _beta_messages.accumulate_event if beta else _messages.accumulate_event
    extra = {"request_headers": httpx.Headers()} if beta else {}
    for sse in SSEDecoder().iter_bytes(iter([data])):
        event = json.loads(sse.data)
        if event.get("type") in ("ping", "error"):
            continue
        snapshot = accumulate(event=event, current_snapshot=snapshot, json_bufs=buffers, **extra)
    return snapshot.to_dict(warnings=False)  # the standard model warns on blocks it misreads


def known(ours: dict, theirs: dict) -> dict:
    """Our values for the keys the SDK's model knows (it drops fields it has no model for,
    such as ``usage.iterations``; we keep them)."""
    return {k: ours.get(k) for k in theirs}


def test_there_are_eleven_real_anthropic_captures():
    assert len(NAMES) == 11


@pytest.mark.parametrize("name", NAMES)
def test_the_message_matches_the_sdk(name):
    theirs = sdk_message((DIALECT_CAPTURES / name).read_bytes())
    ours = summary(name)["completion"]
    for key in ("id", "model", "role", "type", "stop_reason", "stop_sequence"):
        assert ours[key] == theirs[key], key
    assert known(ours["usage"], theirs["usage"]) == theirs["usage"]
    assert len(ours["content"]) == len(theirs["content"])
    for mine, block in zip(ours["content"], theirs["content"], strict=True):
        assert known(mine, block) == block


def test_the_standard_sdk_accumulator_loses_the_compaction_summary():
    name = "anthropic-claude-sonnet-4-6-compaction.sse"
    standard = sdk_message((DIALECT_CAPTURES / name).read_bytes(), beta=False)
    assert standard["content"][0]["content"] is None
    assert summary(name)["completion"]["content"][0]["content"].startswith("The user provided")


def test_usage_is_message_start_then_cumulative_message_delta():
    data = (DIALECT_CAPTURES / "anthropic-claude-3-5-sonnet-prompt-cache-read.sse").read_bytes()
    usage = summary("anthropic-claude-3-5-sonnet-prompt-cache-read.sse")["completion"]["usage"]
    assert usage["cache_read_input_tokens"] == 1165  # from message_start only
    assert (
        usage["output_tokens"]
        == json.loads(
            next(line for line in data.decode().splitlines() if '"message_delta"' in line)[6:]
        )["usage"]["output_tokens"]
    )


def test_an_overloaded_error_mid_stream_keeps_what_came_before():
    data = (
        b'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message",'
        b'"role":"assistant","model":"m","content":[],"usage":{"input_tokens":3,"output_tokens":1}}}\n\n'
        b'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n'
        b'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}\n\n'
        b'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n'
    )
    stream = read_capture(data).streams[0]
    assert stream.dialect_name == "anthropic-messages"
    errors = [e for e in stream.events if e.kind == "error"]
    assert [(e.message, e.code) for e in errors] == [("Overloaded", "overloaded_error")]
    assert "".join(e.text for e in stream.events if e.kind == "text") == "Hel"
    assert {f.rule for f in find(stream)} == {"block-not-stopped"}
    assert "final_missing" not in stream.sightings  # an error ended it: not cut short


def test_a_tool_input_that_is_not_json_says_where_it_breaks():
    data = (
        b'data: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","model":"x","content":[]}}\n\n'
        b'data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":{}}}\n\n'
        b'data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\\"a\\": "}}\n\n'
        b'data: {"type":"content_block_stop","index":0}\n\n'
        b'data: {"type":"message_stop"}\n\n'
    )
    ends = [e for e in read_capture(data).streams[0].events if e.kind == "tool_end"]
    assert [(e.id, e.status, e.incomplete) for e in ends] == [("toolu_1", "invalid", True)]


def _sse(*payloads: str) -> bytes:
    """Minimal Anthropic SSE: each payload with the event name its ``type`` repeats."""
    out = []
    for payload in payloads:
        kind = json.loads(payload)["type"]
        out.append(f"event: {kind}\ndata: {payload}\n\n")
    return "".join(out).encode()


START = (
    '{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant",'
    '"model":"m","content":[],"stop_reason":null,"stop_sequence":null,'
    '"usage":{"input_tokens":3,"output_tokens":1}}}'
)
STOP = '{"type":"message_stop"}'


def _summed(data: bytes) -> dict:
    capture = read_capture(data)
    assert len(capture.streams) == 1
    return plain(summarize(capture.streams[0]))


@pytest.mark.parametrize("deltas", [[""], []], ids=["empty-delta", "no-delta"])
def test_a_tool_input_sent_whole_in_its_block_start_is_its_arguments(deltas):
    opened = {"url": "https://example.com/a"}
    block = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_fetch", "input": opened}
    data = _sse(
        START,
        json.dumps({"type": "content_block_start", "index": 0, "content_block": block}),
        *(
            json.dumps(
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "input_json_delta", "partial_json": d},
                }
            )
            for d in deltas
        ),
        '{"type":"content_block_stop","index":0}',
        STOP,
    )
    summed = _summed(data)
    assert summed["completion"]["content"][0]["input"] == opened
    assert sdk_message(data)["content"][0]["input"] == opened
    call = summed["normalized"]["outputs"][0]["tool_calls"][0]
    assert json.loads(call["arguments"]) == opened
    assert [c["status"] for c in summed["tool_calls"]] == ["valid"]


def test_blocks_inside_message_start_are_kept_with_their_stop_reason():
    tool = {"type": "tool_use", "id": "toolu_1", "name": "query", "input": {"sql": "select 1"}}
    start = json.loads(START)
    start["message"].update(content=[tool], stop_reason="tool_use")
    data = _sse(json.dumps(start), STOP)
    summed = _summed(data)
    theirs = sdk_message(data)
    assert summed["completion"]["content"] == theirs["content"] == [tool]
    assert summed["completion"]["stop_reason"] == theirs["stop_reason"] == "tool_use"
    (output,) = summed["normalized"]["outputs"]
    assert output["stop_reason"] == "tool_use"
    assert [(c["id"], json.loads(c["arguments"])) for c in output["tool_calls"]] == [
        ("toolu_1", {"sql": "select 1"})
    ]
    assert [c["status"] for c in summed["tool_calls"]] == ["valid"]
    assert summed["diagnostics"] == []


def _message_delta(**fields) -> str:
    return json.dumps(
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn", "stop_sequence": None},
            "usage": {"output_tokens": 5},
            **fields,
        }
    )


def test_message_delta_top_level_fields_are_kept_as_the_beta_sdk_keeps_them():
    applied = {"applied_edits": [{"type": "clear_tool_uses_20250919", "cleared_tool_uses": 2}]}
    data = _sse(START, _message_delta(context_management=applied, input_transformations=None), STOP)
    ours, theirs = _summed(data)["completion"], sdk_message(data)
    assert ours["context_management"] == theirs["context_management"] == applied
    assert "input_transformations" not in ours  # null leaves the message's value


def test_a_fallback_block_names_the_model_that_served_as_the_beta_sdk_does():
    fallback = {
        "type": "fallback",
        "from": {"model": "m"},
        "to": {"model": "claude-fallback-1"},
        "trigger": {"type": "refusal"},
    }
    data = _sse(
        START,
        json.dumps({"type": "content_block_start", "index": 0, "content_block": fallback}),
        '{"type":"content_block_stop","index":0}',
        _message_delta(),
        STOP,
    )
    ours = _summed(data)["completion"]
    assert ours["model"] == sdk_message(data)["model"] == "claude-fallback-1"
    assert sdk_message(data, beta=False)["model"] == "m"  # the standard accumulator keeps it


def test_a_refusal_carries_its_reason_into_the_completion_and_the_normalized_output():
    details = {"type": "refusal", "category": "cyber", "explanation": "This could enable harm."}
    delta = {"type": "message_delta", "delta": {"stop_reason": "refusal", "stop_sequence": None,
             "stop_details": details}, "usage": {"output_tokens": 0}}  # fmt: skip
    data = _sse(START, json.dumps(delta), STOP)
    summed = _summed(data)
    assert summed["completion"]["stop_details"] == sdk_message(data)["stop_details"] == details
    (output,) = summed["normalized"]["outputs"]
    assert (output["stop_reason"], output["text"]) == ("refusal", "")
    assert output["refusal"] == "This could enable harm. (category: cyber)"


def test_an_answer_that_did_not_refuse_has_no_refusal():
    summed = _summed(_sse(START, _message_delta(), STOP))
    assert summed["normalized"]["outputs"][0]["refusal"] is None


def _tool(index: int, call_id: str, arguments: str) -> list[str]:
    block = {"type": "tool_use", "id": call_id, "name": "f", "input": {}}
    fragment = {"type": "input_json_delta", "partial_json": arguments}
    return [
        json.dumps({"type": "content_block_start", "index": index, "content_block": block}),
        json.dumps({"type": "content_block_delta", "index": index, "delta": fragment}),
    ]


def test_a_message_start_inside_an_open_message_starts_a_new_stream_and_says_so():
    second = START.replace('"msg_1"', '"msg_2"')
    data = _sse(
        START,
        *_tool(0, "toolu_a", '{"a": 1}'),  # never stopped: msg_1 is cut off here
        second,
        *_tool(0, "toolu_b", '{"b": 2}'),
        '{"type":"content_block_stop","index":0}',
        _message_delta(),
        STOP,
    )
    first, then = read_capture(data).streams
    cut, whole = plain(summarize(first)), plain(summarize(then))
    assert [cut["completion"]["id"], whole["completion"]["id"]] == ["msg_1", "msg_2"]
    assert [b["input"] for b in cut["completion"]["content"]] == [{"a": 1}]
    assert [b["input"] for b in whole["completion"]["content"]] == [{"b": 2}]
    # The finding is the cut message's, the stream that never stopped; the next stream says
    # where it began (a reading note).
    assert {f.rule for f in find(first)} == {
        "message-spliced",
        "block-not-stopped",
        "stream-truncated",
    }
    assert first.sightings.first("final_missing").value == "message_stop"
    (spliced,) = [f for f in find(first) if f.rule == "message-spliced"]
    at = data.index(f"event: message_start\ndata: {second}".encode())  # the event's first line
    line = data[:at].count(b"\n") + 1
    assert spliced.severity == "warning" and f"(line {line})" in spliced.message
    assert spliced.raw == len(first.raw) - 1  # at the cut message's last event
    assert "'msg_1'" in spliced.message and "'msg_2'" in spliced.message
    assert find(then) == []
    (opened,) = [d for d in then.diagnostics if d.code == "new_stream_after_done"]
    assert (opened.line, opened.byte) == (line, at) and "'msg_1', spliced" in opened.message
    assert then.raw[0].line == line  # the new message's first event is the new stream's


def test_in_a_single_response_a_spliced_message_is_said_and_read_on_in_the_same_stream():
    from app.domain.stream import Source
    from app.domain.timeline import SSEFeeder, TimelineBuilder

    second = START.replace('"msg_1"', '"msg_2"')
    data = _sse(START, *_tool(0, "toolu_a", '{"a": 1}'), second, _message_delta(), STOP)
    feeder = SSEFeeder(TimelineBuilder(Source(), split_on_done=False, timed=True), record=True)
    feeder.feed(data, 0.0)
    (stream,) = feeder.close(1.0)
    rules = [f.rule for f in find(stream)]
    assert rules == ["message-spliced"]  # its blocks ended there, none left open
    (spliced,) = find(stream)
    assert spliced.raw == 3 and stream.raw[3].event == "message_start"  # the second one
    ends = [e for e in stream.events if e.kind == "tool_end"]
    assert [(e.id, e.arguments) for e in ends] == [("toolu_a", '{"a": 1}')]  # ended, not lost
