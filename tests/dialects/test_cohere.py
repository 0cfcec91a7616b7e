"""Cohere v2 chat: the final v2 chat response against the expected results of the real
captures, and against the official cohere SDK run on the same bytes (it reads each event into
its typed models; it has no accumulator, so its events are folded here, plainly), plus
hand-made streams for what the real captures do not show: a tool plan with parallel tool
calls, citations, an error in message-end, a stream cut short."""

from __future__ import annotations

import json

import httpx
import pytest
from cohere import ClientV2

from app.captures import read_capture
from app.domain.dialects.chat.assemble import plain
from app.domain.rules import find
from app.domain.summary import summarize

from .common import DIALECT_CAPTURES, captures, expected, summary

NAMES = captures("cohere-")


def sdk_events(data: bytes) -> list:
    """The official client's own SSE reader and event models over the bytes."""

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=data)

    client = ClientV2(
        api_key="test",
        httpx_client=httpx.Client(transport=httpx.MockTransport(answer)),
        log_warning_experimental_features=False,
    )
    return list(client.chat_stream(model="command-a", messages=[{"role": "user", "content": "hi"}]))


def sdk_fold(events: list) -> dict:
    """The SDK's typed events folded into a v2 chat response, field by field."""
    message = {"role": None, "content": {}, "tool_plan": "", "tool_calls": {}, "citations": []}
    response = {"id": None, "finish_reason": None, "message": message, "usage": None}
    for event in events:
        delta = getattr(event, "delta", None)
        if event.type == "message-start":
            response["id"], message["role"] = event.id, delta.message.role
        elif event.type == "content-start":
            part = delta.message.content
            message["content"][event.index] = {"type": part.type, part.type: ""}
        elif event.type == "content-delta":
            part, target = delta.message.content, message["content"][event.index]
            for key in ("text", "thinking"):
                if getattr(part, key):
                    target[key] += getattr(part, key)
        elif event.type == "tool-plan-delta":
            message["tool_plan"] += delta.message.tool_plan
        elif event.type == "tool-call-start":
            call = delta.message.tool_calls
            function = {"name": call.function.name, "arguments": call.function.arguments or ""}
            message["tool_calls"][event.index] = {
                "id": call.id,
                "type": call.type,
                "function": function,
            }
        elif event.type == "tool-call-delta":
            fragment = delta.message.tool_calls.function.arguments
            message["tool_calls"][event.index]["function"]["arguments"] += fragment
        elif event.type == "citation-start":
            message["citations"].append(delta.message.citations.dict())
        elif event.type == "message-end":
            response["finish_reason"], response["usage"] = delta.finish_reason, delta.usage.dict()
    message["content"] = [message["content"][i] for i in sorted(message["content"])]
    message["tool_calls"] = [message["tool_calls"][i] for i in sorted(message["tool_calls"])]
    return response


def read(data: bytes) -> dict:
    (stream,) = read_capture(data).streams
    return plain(summarize(stream)) | {"stream": stream}


def test_there_are_two_real_cohere_captures():
    assert len(NAMES) == 2


@pytest.mark.parametrize("name", NAMES)
def test_the_response_matches_the_expected_fold(name):
    want = expected(name)["result"]
    ours = summary(name)["completion"]
    assert ours["id"] == want["id"]
    assert ours["finish_reason"] == want["finish_reason"]
    assert ours["usage"] == want["usage"]
    assert ours["message"]["tool_plan"] == want["tool_plan"]
    parts = [
        {
            "index": i,
            "type": p["type"],
            "text": p.get("text", ""),
            "thinking": p.get("thinking", ""),
        }
        for i, p in enumerate(ours["message"]["content"])
    ]
    assert parts == want["content"]


def sse(*payloads: str) -> bytes:
    """Events framed as Cohere frames them: an event line naming the payload's type."""
    return b"".join(f"event: {json.loads(p)['type']}\ndata: {p}\n\n".encode() for p in payloads)


TOOL_CALLS = (
    sse(
        '{"id":"c0ffee01","type":"message-start","delta":{"message":{"role":"assistant","content":[],"tool_plan":"","tool_calls":[],"citations":[]}}}',
        '{"type":"tool-plan-delta","delta":{"message":{"tool_plan":"I will look up"}}}',
        '{"type":"tool-plan-delta","delta":{"message":{"tool_plan":" the weather in both cities."}}}',
        '{"type":"tool-call-start","index":0,"delta":{"message":{"tool_calls":{"id":"get_weather_a1","type":"function","function":{"name":"get_weather","arguments":""}}}}}',
        '{"type":"tool-call-delta","index":0,"delta":{"message":{"tool_calls":{"function":{"arguments":"{\\n    \\""}}}}}',
        '{"type":"tool-call-delta","index":0,"delta":{"message":{"tool_calls":{"function":{"arguments":"city\\": \\"Paris\\"\\n}"}}}}}',
        '{"type":"tool-call-end","index":0}',
        '{"type":"tool-call-start","index":1,"delta":{"message":{"tool_calls":{"id":"get_weather_b2","type":"function","function":{"name":"get_weather","arguments":"{\\"city\\": "}}}}}',
        '{"type":"tool-call-delta","index":1,"delta":{"message":{"tool_calls":{"function":{"arguments":"\\"Oslo\\"}"}}}}}',
        '{"type":"tool-call-end","index":1}',
        '{"type":"message-end","delta":{"finish_reason":"TOOL_CALL","usage":{"billed_units":{"input_tokens":30,"output_tokens":41},"tokens":{"input_tokens":812,"output_tokens":73}}}}',
    )
    + b"data: [DONE]\n\n"
)

CITATIONS = sse(
    '{"type":"message-start","id":"c0ffee02","delta":{"message":{"role":"assistant","content":[],"tool_plan":"","tool_calls":[],"citations":[]}}}',
    '{"type":"content-start","index":0,"delta":{"message":{"content":{"type":"text","text":""}}}}',
    '{"type":"content-delta","index":0,"delta":{"message":{"content":{"text":"We offer gym memberships"}}}}',
    '{"type":"content-delta","index":0,"delta":{"message":{"content":{"text":" and yoga classes."}}}}',
    '{"type":"citation-start","index":0,"delta":{"message":{"citations":{"start":9,"end":24,"text":"gym memberships","sources":[{"type":"document","id":"doc:1","document":{"id":"doc:1","text":"Gym memberships are free."}}],"type":"TEXT_CONTENT","content_index":0}}}}',
    '{"type":"citation-end","index":0}',
    '{"type":"citation-start","index":1,"delta":{"message":{"citations":{"start":29,"end":41,"text":"yoga classes","sources":[{"type":"document","id":"doc:2","document":{"id":"doc:2","text":"Yoga on Fridays."}}],"type":"TEXT_CONTENT","content_index":0}}}}',
    '{"type":"citation-end","index":1}',
    '{"type":"content-end","index":0}',
    '{"type":"message-end","delta":{"finish_reason":"COMPLETE","usage":{"billed_units":{"input_tokens":20,"output_tokens":9},"tokens":{"input_tokens":500,"output_tokens":12}}}}',
)


@pytest.mark.parametrize(
    "data",
    [*((DIALECT_CAPTURES / n).read_bytes() for n in NAMES), TOOL_CALLS, CITATIONS],
    ids=[*NAMES, "tool-calls", "citations"],
)
def test_the_response_matches_the_sdk_read_of_the_same_bytes(data):
    theirs = sdk_fold(sdk_events(data))
    ours = read(data)["completion"]
    assert ours == theirs
    assert not read(data)["diagnostics"]


def test_the_sdk_reads_token_counts_as_floats_we_keep_them_as_sent():
    data = (DIALECT_CAPTURES / NAMES[0]).read_bytes()
    sdk_usage = sdk_fold(sdk_events(data))["usage"]
    assert isinstance(sdk_usage["tokens"]["output_tokens"], float)
    assert isinstance(summary(NAMES[0])["completion"]["usage"]["tokens"]["output_tokens"], int)


def test_a_tool_plan_and_parallel_tool_calls():
    result = read(TOOL_CALLS)
    assert result["dialect"] == "cohere"
    (output,) = result["normalized"]["outputs"]
    assert output["reasoning"] == "I will look up the weather in both cities."
    assert [(c["id"], c["name"], c["arguments"]) for c in output["tool_calls"]] == [
        ("get_weather_a1", "get_weather", '{\n    "city": "Paris"\n}'),
        ("get_weather_b2", "get_weather", '{"city": "Oslo"}'),
    ]
    assert output["stop_reason"] == "TOOL_CALL"
    assert result["normalized"]["usage"] == {"input_tokens": 812, "output_tokens": 73}
    plan = [e for e in result["stream"].events if e.kind == "reasoning"]
    assert {(e.field, e.block) for e in plan} == {("tool_plan", None)}
    assert [t["status"] for t in result["tool_calls"]] == ["valid", "valid"]
    assert [e.kind for e in result["stream"].events][-1] == "done"


def test_citations_are_kept_with_their_content_block():
    result = read(CITATIONS)
    citations = [e for e in result["stream"].events if e.kind == "citation"]
    assert [(c.block, c.value["text"]) for c in citations] == [
        (0, "gym memberships"),
        (0, "yoga classes"),
    ]
    message = result["completion"]["message"]
    assert [c["sources"][0]["id"] for c in message["citations"]] == ["doc:1", "doc:2"]
    assert message["content"] == [
        {"type": "text", "text": "We offer gym memberships and yoga classes."}
    ]


def test_an_error_in_message_end_is_an_error():
    data = (
        b'data: {"type":"message-start","id":"x","delta":{"message":{"role":"assistant"}}}\n\n'
        b'data: {"type":"content-start","index":0,"delta":{"message":{"content":{"type":"text","text":""}}}}\n\n'
        b'data: {"type":"content-delta","index":0,"delta":{"message":{"content":{"text":"Par"}}}}\n\n'
        b'data: {"type":"message-end","delta":{"finish_reason":"ERROR","error":"internal server error"}}\n\n'
    )
    result = read(data)
    assert [(e["message"], e["code"]) for e in result["errors"]] == [
        ("internal server error", "ERROR")
    ]
    assert result["normalized"]["outputs"][0]["text"] == "Par"
    assert result["completion"]["finish_reason"] == "ERROR"


def test_a_stream_cut_short_closes_what_is_open_and_says_so():
    data = (
        b'data: {"type":"message-start","id":"x","delta":{"message":{"role":"assistant"}}}\n\n'
        b'data: {"type":"content-start","index":0,"delta":{"message":{"content":{"type":"text","text":""}}}}\n\n'
        b'data: {"type":"content-delta","index":0,"delta":{"message":{"content":{"text":"Checking"}}}}\n\n'
        b'data: {"type":"tool-call-start","index":0,"delta":{"message":{"tool_calls":{"id":"f_1","type":"function","function":{"name":"f","arguments":"{\\"a\\": "}}}}}\n\n'
    )
    result = read(data)
    codes = [d["code"] for d in result["diagnostics"]]
    assert codes == []
    stream = result["stream"]
    assert [f.message for f in find(stream)] == [
        "tool call 0 never ended",
        "content 0 never ended",
        "the stream ended without message-end",
    ]
    assert stream.sightings.first("final_missing").value == "message-end"
    assert [(t["id"], t["status"], t["incomplete"]) for t in result["tool_calls"]] == [
        ("f_1", "invalid", True)
    ]
    assert result["completion"]["message"]["tool_calls"][0]["function"]["arguments"] == '{"a": '


def test_wrong_shapes_and_unknown_events_are_said_and_kept():
    data = (
        b'data: {"type":"message-start","id":"x","delta":{"message":{"role":"assistant"}}}\n\n'
        b'data: {"type":"content-delta","index":3,"delta":{"message":{"content":{"text":"a"}}}}\n\n'
        b'data: {"type":"content-start","index":"0","delta":{}}\n\n'
        b'data: {"type":"tool-call-delta","index":4,"delta":{}}\n\n'
        b'data: {"type":"debug","prompt":"..."}\n\n'
        b'data: {"type":"message-end","delta":{"finish_reason":"COMPLETE"}}\n\n'
    )
    result = read(data)
    assert [d["code"] for d in result["diagnostics"]] == [
        "block_unknown",
        "block_shape",
        "block_unknown",
    ]
    assert [p["category"] for p in result["payloads"]] == ["foreign_event"]
    assert result["normalized"]["outputs"][0]["text"] == "a"
    assert result["completion"]["message"]["content"] == [{"type": "text", "text": "a"}]


def test_other_apis_events_of_the_same_names_are_not_cohere():
    data = b'data: {"type":"tool-call-start","toolCallId":"call_1","toolName":"bash"}\n\n'
    result = read(data)
    assert result["dialect"] is None
