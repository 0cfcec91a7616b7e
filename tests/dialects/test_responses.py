"""OpenAI Responses: Streamscope's final ``response`` against the openai SDK's own accumulator
(``client.responses.stream(...)``, whose ``ResponseStreamState`` folds the events, fed the same
bytes through an httpx MockTransport), plus one test per quirk: logprobs, sequence gaps, a
resumed background stream and an in-band error (where the SDK raises), an incomplete response,
MCP and server tools, a truncated stream rebuilt from the timeline, bad input."""

from __future__ import annotations

import json
import re
import warnings

import httpx2
import pytest

from app.captures import read_capture
from app.domain.dialects.chat.assemble import plain
from app.domain.rules import find
from app.domain.summary import summarize

from .common import DIALECT_CAPTURES, captures, expected, summary

NAMES = captures("responses-")
SDK_ONLY = frozenset({"parsed", "parsed_arguments"})  # the SDK's structured-output helpers


def sdk_stream(data: bytes, **params):
    import openai  # by the tests that run it, not at collection

    """The SDK's final response (``get_final_response()``) for these bytes, as plain JSON."""
    params = params or {"model": "gpt-4o", "input": "hi"}

    def reply(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=data)

    with httpx2.Client(transport=httpx2.MockTransport(reply)) as http, warnings.catch_warnings():
        # The SDK's own models warn on values they do not know (a web search source of type
        # "api"), inside the SDK's accumulator: not ours to fail on.
        warnings.filterwarnings("ignore", "Pydantic serializer warnings", UserWarning)
        client = openai.OpenAI(api_key="test", base_url="http://127.0.0.1:9/v1", http_client=http)
        with client.responses.stream(**params) as stream:
            return stream.get_final_response().to_dict(mode="json", warnings=False)


def without_sdk_helpers(value):
    if isinstance(value, dict):
        return {k: without_sdk_helpers(v) for k, v in value.items() if k not in SDK_ONLY}
    if isinstance(value, list):
        return [without_sdk_helpers(v) for v in value]
    return value


def read(data: bytes):
    return read_capture(data).streams[0]


def inspect(data: bytes) -> dict:
    return plain(summarize(read(data)))


def kinds(stream, kind: str) -> list:
    return [e for e in stream.events if e.kind == kind]


def codes(stream) -> list[str]:
    return [d.code for d in stream.diagnostics]


def rules(stream, rule: str | None = None) -> list:
    """The stream's findings (of one rule)."""
    return [f for f in find(stream) if rule is None or f.rule == rule]


def frames(data: bytes) -> list[bytes]:
    return [f for f in data.split(b"\n\n") if f.strip()]


def payload_of(frame: bytes) -> dict:
    return json.loads(frame.split(b"data: ", 1)[1])


def sse(*events: dict) -> bytes:
    """A hand-made stream: each event framed as the API does, numbered in order."""
    out = []
    for number, event in enumerate(events):
        event = {"type": event["type"], "sequence_number": number, **event}
        out.append(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode())
    return b"".join(out)


def response(status: str, output: list | None = None, **fields) -> dict:
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 1,
        "status": status,
        "model": "gpt-4o",
        "output": output if output is not None else [],
        "usage": None,
        "error": None,
        "incomplete_details": None,
        **fields,
    }


MESSAGE = {
    "id": "msg_1",
    "type": "message",
    "status": "in_progress",
    "role": "assistant",
    "content": [],
}


def message_events(text_parts: list[str], index: int = 0) -> list[dict]:
    part = {"type": "output_text", "text": "", "annotations": []}
    done = {**MESSAGE, "status": "completed", "content": [{**part, "text": "".join(text_parts)}]}
    where = {"item_id": "msg_1", "output_index": index, "content_index": 0}
    return [
        {"type": "response.output_item.added", "output_index": index, "item": MESSAGE},
        {"type": "response.content_part.added", **where, "part": part},
        *({"type": "response.output_text.delta", **where, "delta": t} for t in text_parts),
        {"type": "response.output_text.done", **where, "text": "".join(text_parts)},
        {"type": "response.output_item.done", "output_index": index, "item": done},
    ]


# ---------------------------------------------------------------------- the real captures
def test_there_are_nine_real_responses_captures():
    assert len(NAMES) == 9


@pytest.mark.parametrize("name", NAMES)
def test_the_response_matches_the_sdk(name):
    theirs = without_sdk_helpers(sdk_stream((DIALECT_CAPTURES / name).read_bytes()))
    ours = summary(name)["completion"]
    assert ours == theirs


@pytest.mark.parametrize("name", NAMES)
def test_the_real_captures_read_without_a_diagnostic(name):
    assert summary(name)["diagnostics"] == []


def test_logprobs_become_logprobs_events_in_the_chat_entry_shape():
    data = (DIALECT_CAPTURES / "responses-openai-gpt-4o-mini-logprobs.sse").read_bytes()
    stream = read(data)
    events = stream.events
    logprobs = kinds(stream, "logprobs")
    assert sum(e.count for e in logprobs) == 9
    for event in logprobs:
        before = events[event.seq - 1]
        assert (before.kind, before.raw) == ("text", event.raw)  # the popover pairs them
        for entry in event.entry_list():
            assert set(entry) == {"token", "logprob", "bytes", "top_logprobs"}
            assert bytes(entry["bytes"]).decode() == entry["token"]
    tokens = "".join(entry["token"] for e in logprobs for entry in e.entry_list())
    assert tokens == expected("responses-openai-gpt-4o-mini-logprobs.sse")["final_text"]


def test_logprob_entries_are_kept_as_sent():
    """A number in another form (an upper-case exponent) stays as the server wrote it."""
    data = (DIALECT_CAPTURES / "responses-openai-gpt-4o-mini-logprobs.sse").read_bytes()
    assert b"-1.9361264946837764e-7" in data
    stream = read(data.replace(b"-1.9361264946837764e-7", b"-1.9361264946837764E-7"))
    assert any(b"-1.9361264946837764E-7" in e.entries for e in kinds(stream, "logprobs"))


def test_reasoning_summary_parts_are_paragraphs():
    name = "responses-openai-o3-mini-reasoning-summary.sse"
    stream = read((DIALECT_CAPTURES / name).read_bytes())
    breaks = [e for e in kinds(stream, "reasoning") if e.part == "break"]
    assert [e.text for e in breaks] == ["\n\n"] * 3  # four summary parts
    summary_parts = summary(name)["completion"]["output"][0]["summary"]
    assert "".join(e.text for e in kinds(stream, "reasoning")) == "\n\n".join(
        p["text"] for p in summary_parts
    )


# ---------------------------------------------------------------------- sequence numbers
def test_a_gap_in_sequence_numbers_is_flagged_where_it_is():
    data = (DIALECT_CAPTURES / "responses-openai-gpt-4-1-nano-long-text.sse").read_bytes()
    parts = frames(data)
    dropped = [p for p in parts if payload_of(p)["sequence_number"] in (10, 11)]
    stream = read(b"\n\n".join(p for p in parts if p not in dropped) + b"\n\n")
    gaps = rules(stream, "sequence-gap")
    assert len(gaps) == 1 and "sequence_gap" not in codes(stream)
    assert "from 9 to 12: 2 event(s) missing" in gaps[0].message
    assert gaps[0].line == read(data).raw[12].line - 6  # two 3-line events earlier
    assert "".join(e.text for e in kinds(stream, "text")) == "".join(
        e.text for e in kinds(read(data), "text") if e.raw not in (10, 11)
    )


def test_a_repeated_sequence_number_is_flagged():
    events = [
        {"type": "response.created", "response": response("in_progress")},
        *message_events(["a", "b"]),
    ]
    data = sse(*events).replace(b'"sequence_number": 4', b'"sequence_number": 3')
    stream = read(data)
    assert [f.message for f in rules(stream, "sequence-gap")] == [
        "sequence_number 3 after 3: repeated or out of order",
        "sequence_number jumps from 3 to 5: 1 event(s) missing",
    ]


def test_captures_without_sequence_numbers_say_nothing_about_them():
    assert rules(read((DIALECT_CAPTURES / "responses-openai-gpt-4o-text.sse").read_bytes())) == []


# ---------------------------------------------------------------------- resumed streams
def resumed(name: str, after: int) -> bytes:
    parts = frames((DIALECT_CAPTURES / name).read_bytes())
    return b"\n\n".join(p for p in parts if payload_of(p)["sequence_number"] > after) + b"\n\n"


def test_a_resumed_background_stream_reads_but_the_sdk_raises():
    name = "responses-openai-gpt-4-1-nano-long-text.sse"
    data = resumed(name, after=9)
    with pytest.raises(
        RuntimeError, match=re.escape("Expected to have received `response.created`")
    ):
        sdk_stream(data, response_id="resp_0fef", starting_after=9)
    stream = read(data)
    assert stream.dialect_name == "openai-responses"
    assert codes(stream) == ["stream_resumed", "item_not_added"]
    ours = inspect(data)
    assert ours["completion"] == summary(name)["completion"]  # response.completed still came
    assert expected(name)["final_text"].endswith(ours["normalized"]["outputs"][0]["text"])
    assert ours["normalized"]["outputs"][0]["stop_reason"] == "completed"


def test_a_resumed_tool_call_gets_its_identity_from_the_item_done():
    data = (DIALECT_CAPTURES / "responses-openai-gpt-4o-function-call.sse").read_bytes()
    parts = frames(data)
    first_delta = next(i for i, p in enumerate(parts) if b"arguments.delta" in p)
    stream = read(b"\n\n".join(parts[first_delta + 1 :]) + b"\n\n")
    starts = kinds(stream, "tool_start")
    assert [(s.call, s.id, s.name) for s in starts] == [
        (0, None, None),
        (0, "call_kL0PCQV7M2WMoVX8V8OtYSAL", "get_capital"),
    ]
    (end,) = kinds(stream, "tool_end")
    assert (end.id, end.name, end.arguments) == (
        "call_kL0PCQV7M2WMoVX8V8OtYSAL",
        "get_capital",
        'country":"France"}',  # what came after the resume; the item's own copy is whole
    )
    assert end.status == "invalid"


# ---------------------------------------------------------------------- errors and endings
NESTED_ERROR = {
    "type": "error",
    "error": {
        "type": "server_error",
        "code": "server_error",
        "message": "The server had an error",
        "param": None,
    },
}
FLAT_ERROR = {
    "type": "error",
    "code": "server_error",
    "message": "The server had an error",
    "param": None,
}


def failed_stream(error: dict) -> bytes:
    failure = {"code": "server_error", "message": "The server had an error"}
    return sse(
        {"type": "response.created", "response": response("in_progress")},
        *message_events(["Hel", "lo"])[:3],
        error,
        {"type": "response.failed", "response": response("failed", error=failure)},
    )


@pytest.mark.parametrize(
    ("error", "raised", "match"),
    [
        (NESTED_ERROR, "openai.APIError", "The server had an error"),
        (FLAT_ERROR, "RuntimeError", re.escape("Didn't receive a `response.completed` event")),
    ],
    ids=["nested-as-openai-sends-it", "flat-as-documented"],
)
def test_an_in_band_error_before_response_failed_keeps_everything(error, raised, match):
    import openai

    data = failed_stream(error)
    raised = {"openai.APIError": openai.APIError, "RuntimeError": RuntimeError}[raised]
    with pytest.raises(raised, match=match):
        sdk_stream(data)
    stream = read(data)
    assert "".join(e.text for e in kinds(stream, "text")) == "Hel"
    assert [(e.message, e.code) for e in kinds(stream, "error")] == [
        ("The server had an error", "server_error")
    ]
    assert [s.status for s in kinds(stream, "snapshot")] == ["in_progress", "failed"]
    assert [f.reason for f in kinds(stream, "finish")] == ["failed"]
    ours = inspect(data)
    assert ours["completion"]["status"] == "failed"
    assert ours["completion"]["error"]["code"] == "server_error"
    assert len(ours["normalized"]["errors"]) == 1
    assert "missing_terminal" not in codes(stream)


def test_a_failed_response_without_an_error_event_reports_its_error():
    failure = {"code": "rate_limit_exceeded", "message": "Slow down"}
    stream = read(
        sse(
            {"type": "response.created", "response": response("in_progress")},
            {"type": "response.failed", "response": response("failed", error=failure)},
        )
    )
    assert [(e.message, e.code) for e in kinds(stream, "error")] == [
        ("Slow down", "rate_limit_exceeded")
    ]


def test_an_incomplete_response_is_the_final_object_where_the_sdk_has_none():
    details = {"reason": "max_output_tokens"}
    done = {
        **MESSAGE,
        "status": "incomplete",
        "content": [{"type": "output_text", "text": "Hi", "annotations": []}],
    }
    final = response(
        "incomplete",
        [done],
        incomplete_details=details,
        usage={"input_tokens": 3, "output_tokens": 1, "total_tokens": 4},
    )
    data = sse(
        {"type": "response.created", "response": response("in_progress")},
        *message_events(["Hi"])[:-1],
        {"type": "response.output_item.done", "output_index": 0, "item": done},
        {"type": "response.incomplete", "response": final},
    )
    with pytest.raises(
        RuntimeError, match=re.escape("Didn't receive a `response.completed` event")
    ):
        sdk_stream(data)
    ours = inspect(data)
    assert ours["completion"] == final
    assert ours["normalized"]["outputs"][0]["stop_reason"] == "incomplete"
    assert ours["normalized"]["usage"]["output_tokens"] == 1
    extras = [e.fields for e in kinds(read(data), "extra")]
    assert extras == [{"incomplete_details": details}]


def test_a_truncated_stream_is_rebuilt_from_the_timeline():
    name = "responses-openai-o3-mini-reasoning-summary.sse"
    parts = frames((DIALECT_CAPTURES / name).read_bytes())
    full = summary(name)["completion"]["output"]
    # Cut inside the third summary part of the reasoning item.
    third = next(i for i, p in enumerate(parts) if b'"summary_index":2' in p and b".delta" in p)
    cut = b"\n\n".join(parts[: third + 5]) + b"\n\n"
    stream = read(cut)
    assert codes(stream) == ["item_not_done", "missing_terminal"]
    rebuilt = inspect(cut)["completion"]
    assert rebuilt["status"] == "in_progress" and rebuilt["usage"] is None
    summaries = [p["text"] for p in rebuilt["output"][0]["summary"]]
    assert summaries[:2] == [p["text"] for p in full[0]["summary"][:2]]
    assert full[0]["summary"][2]["text"].startswith(summaries[2])
    assert len(summaries) == 3
    # Cut inside the message, after the reasoning item is done: the item as done, the message
    # as added plus its text so far.
    middle = next(i for i, p in enumerate(parts) if b"output_text.delta" in p) + 10
    rebuilt = inspect(b"\n\n".join(parts[:middle]) + b"\n\n")["completion"]
    reasoning_done = next(payload_of(p) for p in parts if b"output_item.done" in p)
    assert rebuilt["output"][0] == reasoning_done["item"]
    text = rebuilt["output"][1]["content"][0]["text"]
    assert full[1]["content"][0]["text"].startswith(text) and len(text) > 10


# ---------------------------------------------------------------------- other item kinds
def kitchen_sink() -> bytes:
    """A refusal, an annotated text, an MCP call and a code interpreter call, as the API sends
    them (shapes from the openai SDK's event types)."""
    refusal_part = {"type": "refusal", "refusal": ""}
    text_part = {"type": "output_text", "text": "", "annotations": []}
    citation = {
        "type": "url_citation",
        "url": "https://example.com/",
        "title": "Ex",
        "start_index": 0,
        "end_index": 4,
    }
    message_done = {
        **MESSAGE,
        "status": "completed",
        "content": [
            {"type": "refusal", "refusal": "No."},
            {**text_part, "text": "See", "annotations": [citation]},
        ],
    }
    mcp = {
        "id": "mcp_1",
        "type": "mcp_call",
        "name": "roll",
        "server_label": "dice",
        "arguments": "",
        "status": "in_progress",
    }
    mcp_done = {**mcp, "arguments": '{"sides": 6}', "output": "4", "status": "completed"}
    code = {
        "id": "ci_1",
        "type": "code_interpreter_call",
        "code": "",
        "container_id": "c",
        "outputs": None,
        "status": "in_progress",
    }
    code_done = {**code, "code": "print(4)", "status": "completed"}
    m = {"item_id": "msg_1", "output_index": 0}
    return sse(
        {"type": "response.created", "response": response("in_progress")},
        {"type": "response.output_item.added", "output_index": 0, "item": MESSAGE},
        {"type": "response.content_part.added", **m, "content_index": 0, "part": refusal_part},
        {"type": "response.refusal.delta", **m, "content_index": 0, "delta": "No."},
        {"type": "response.refusal.done", **m, "content_index": 0, "refusal": "No."},
        {
            "type": "response.content_part.done",
            **m,
            "content_index": 0,
            "part": {**refusal_part, "refusal": "No."},
        },
        {"type": "response.content_part.added", **m, "content_index": 1, "part": text_part},
        {"type": "response.output_text.delta", **m, "content_index": 1, "delta": "See"},
        {
            "type": "response.output_text.annotation.added",
            **m,
            "content_index": 1,
            "annotation_index": 0,
            "annotation": citation,
        },
        {"type": "response.output_text.done", **m, "content_index": 1, "text": "See"},
        {"type": "response.output_item.done", "output_index": 0, "item": message_done},
        {"type": "response.output_item.added", "output_index": 1, "item": mcp},
        {"type": "response.mcp_call.in_progress", "item_id": "mcp_1", "output_index": 1},
        {
            "type": "response.mcp_call_arguments.delta",
            "item_id": "mcp_1",
            "output_index": 1,
            "delta": '{"sides"',
        },
        {
            "type": "response.mcp_call_arguments.delta",
            "item_id": "mcp_1",
            "output_index": 1,
            "delta": ": 6}",
        },
        {
            "type": "response.mcp_call_arguments.done",
            "item_id": "mcp_1",
            "output_index": 1,
            "arguments": '{"sides": 6}',
        },
        {"type": "response.mcp_call.completed", "item_id": "mcp_1", "output_index": 1},
        {"type": "response.output_item.done", "output_index": 1, "item": mcp_done},
        {"type": "response.output_item.added", "output_index": 2, "item": code},
        {
            "type": "response.code_interpreter_call.in_progress",
            "item_id": "ci_1",
            "output_index": 2,
        },
        {
            "type": "response.code_interpreter_call_code.delta",
            "item_id": "ci_1",
            "output_index": 2,
            "delta": "print(",
        },
        {
            "type": "response.code_interpreter_call_code.delta",
            "item_id": "ci_1",
            "output_index": 2,
            "delta": "4)",
        },
        {
            "type": "response.code_interpreter_call_code.done",
            "item_id": "ci_1",
            "output_index": 2,
            "code": "print(4)",
        },
        {
            "type": "response.code_interpreter_call.interpreting",
            "item_id": "ci_1",
            "output_index": 2,
        },
        {"type": "response.code_interpreter_call.completed", "item_id": "ci_1", "output_index": 2},
        {"type": "response.output_item.done", "output_index": 2, "item": code_done},
        {
            "type": "response.completed",
            "response": response("completed", [message_done, mcp_done, code_done]),
        },
    )


def test_refusal_annotations_mcp_and_code_interpreter():
    data = kitchen_sink()
    stream = read(data)
    assert stream.diagnostics == []
    assert [e.text for e in kinds(stream, "refusal")] == ["No."]
    assert [e.value["url"] for e in kinds(stream, "citation")] == ["https://example.com/"]
    assert [(s.id, s.name, s.type, s.index) for s in kinds(stream, "tool_start")] == [
        ("mcp_1", "roll", "mcp_call", 1)
    ]
    assert [(e.arguments, e.status) for e in kinds(stream, "tool_end")] == [
        ('{"sides": 6}', "valid")
    ]
    assert [(e.block, e.field, e.text) for e in kinds(stream, "block_delta")] == [
        (2, "code", "print("),
        (2, "code", "4)"),
    ]
    assert [e.summary for e in kinds(stream, "payload")] == [
        "mcp_call in progress (output 1)",
        "mcp_call completed (output 1)",
        "code_interpreter_call in progress (output 2)",
        "code_interpreter_call interpreting (output 2)",
        "code_interpreter_call completed (output 2)",
    ]
    assert [(b.block, b.type) for b in kinds(stream, "block_start")] == [
        (0, "message"),
        (1, "mcp_call"),
        (2, "code_interpreter_call"),
    ]
    assert inspect(data)["completion"] == without_sdk_helpers(sdk_stream(data))


def test_the_same_items_rebuilt_without_a_final_snapshot():
    """Without response.completed (and without the items' done events), the response is
    rebuilt from the timeline into the same items the final snapshot holds."""
    parts = frames(kitchen_sink())
    kept = [p for p in parts if b"output_item.done" not in p and b"response.completed" not in p]
    final = inspect(kitchen_sink())["completion"]["output"]
    rebuilt = inspect(b"\n\n".join(kept) + b"\n\n")["completion"]["output"]
    assert rebuilt[0]["content"] == final[0]["content"]
    assert rebuilt[1]["arguments"] == final[1]["arguments"]
    assert rebuilt[2]["code"] == final[2]["code"]


# ---------------------------------------------------------------------- bad input
def test_bad_shapes_and_unknown_events_are_said_and_nothing_is_lost():
    data = sse(
        {"type": "response.created", "response": response("in_progress")},
        *message_events(["Hel"])[:3],
        {
            "type": "response.output_text.delta",
            "item_id": "msg_1",
            "content_index": 0,
            "delta": "x",
        },
        {
            "type": "response.output_text.delta",
            "item_id": "msg_1",
            "output_index": 0,
            "content_index": 0,
            "delta": 5,
        },
        {"type": "response.brand_new_thing", "output_index": 0},
        {"type": "response.output_item.added", "output_index": 1},
        {
            "type": "response.output_item.added",
            "output_index": 2,
            "item": {"type": "message", "content": True},
        },
        {"type": 5, "error": {"message": "typeless", "code": 1}},
        {
            "type": "response.output_text.delta",
            "item_id": "msg_1",
            "output_index": 0,
            "content_index": 0,
            "delta": "lo",
        },
        {
            "type": "response.output_text.done",
            "item_id": "msg_1",
            "output_index": 0,
            "content_index": 0,
            "text": "Help",
        },
        {
            "type": "response.function_call_arguments.delta",
            "item_id": "msg_1",
            "output_index": 0,
            "delta": "{}",
        },
        {"type": "response.completed", "response": "not an object"},
    )
    stream = read(data)
    assert codes(stream) == [
        "item_shape",
        "delta_shape",
        "unknown_event",
        "item_shape",
        "args_not_tool",
        "response_not_object",
        "item_not_done",
        "item_not_done",
    ]
    assert "".join(e.text for e in kinds(stream, "text")) == "Hello"
    assert [p.category for p in kinds(stream, "payload")] == ["unknown"]
    assert [e.message for e in kinds(stream, "error")] == ["typeless"]
    (mismatch,) = rules(stream, "done-mismatch")
    assert mismatch.line == stream.raw[11].line
    assert inspect(data)["completion"]["output"][0]["content"][0]["text"] == "Hello"


def test_a_chat_chunk_inside_a_responses_stream_is_a_mixed_dialect():
    chat = b'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"x"}}]}\n\n'
    stream = read(sse({"type": "response.created", "response": response("in_progress")}) + chat)
    assert stream.dialect_name == "openai-responses"
    assert "mixed_dialects" in codes(stream)
    assert kinds(stream, "text") == []


# ---------------------------------------------------------------------- several responses
def one_response(text: str, number: int) -> list[dict]:
    done = response("completed", [{**MESSAGE, "status": "completed"}], id=f"resp_{number}")
    done["output"][0]["content"] = [{"type": "output_text", "text": text, "annotations": []}]
    return [
        {"type": "response.created", "response": response("in_progress", id=f"resp_{number}")},
        *message_events([text]),
        {"type": "response.completed", "response": done},
    ]


def test_concatenated_responses_are_one_stream_each():
    """A client that loops saves one response after another: each is a stream, its own
    completion and normalized view, as the SDK reads each alone."""
    first, second = sse(*one_response("Hello", 1)), sse(*one_response("World", 2))
    capture = read_capture(first + second + b"data: [DONE]\n\n")
    assert len(capture.streams) == 2
    for stream, alone, text in zip(
        capture.streams, (first, second), ("Hello", "World"), strict=True
    ):
        ours = plain(summarize(stream))
        assert ours["normalized"]["outputs"][0]["text"] == text
        assert ours["completion"] == without_sdk_helpers(sdk_stream(alone))
    second_codes = [d.code for d in capture.streams[1].diagnostics]
    assert "new_stream_after_done" in second_codes and "data_after_done" not in second_codes
    (note,) = [d for d in capture.streams[1].diagnostics if d.code == "new_stream_after_done"]
    assert "after response.completed" in note.message
    assert codes(capture.streams[0]) == []


def test_a_new_response_before_the_last_ended_starts_a_stream_of_its_own():
    """A client that retried a cut response saves the start of one, then the next whole."""
    cut = sse(*one_response("Hello", 1)[:-1])
    whole = sse(*one_response("World", 2))
    for data in (cut + whole, cut.replace(b"\n\n", b"\n") + whole):  # and one newline apart
        capture = read_capture(data)
        assert len(capture.streams) == 2, [s.origin for s in capture.streams]
        first, second = (plain(summarize(s)) for s in capture.streams)
        assert first["normalized"]["outputs"][0]["text"] == "Hello"
        assert "missing_terminal" in codes(capture.streams[0])
        assert second["completion"] == without_sdk_helpers(sdk_stream(whole))
        assert second["normalized"]["outputs"][0]["text"] == "World"
        assert rules(capture.streams[0], "sequence-gap") == []


def test_one_network_response_is_never_split_and_says_what_came_after_its_end():
    from app.domain.stream import Source
    from app.domain.timeline import SSEFeeder, TimelineBuilder

    data = sse(*one_response("Hello", 1), *one_response("World", 2))
    builder = TimelineBuilder(Source(data), split_on_done=False)
    feeder = SSEFeeder(builder)
    feeder.feed(data)
    (stream,) = feeder.close()
    assert "data_after_done" in codes(stream)


# ---------------------------------------------------------------------- calls the client runs
SHELL = {
    "id": "sh_1",
    "type": "shell_call",
    "call_id": "call_sh",
    "status": "in_progress",
    "action": {"commands": [], "timeout_ms": None, "max_output_length": None},
}
PATCH = {
    "id": "ap_1",
    "type": "apply_patch_call",
    "call_id": "call_ap",
    "status": "in_progress",
    "operation": {"type": "update_file", "path": "a.py", "diff": ""},
}
SHELL_OUT = {
    "id": "sho_1",
    "type": "shell_call_output",
    "call_id": "call_sh",
    "status": "in_progress",
    "output": [],
}


def client_calls() -> tuple[bytes, dict]:
    shell = {
        **SHELL,
        "status": "completed",
        "action": {**SHELL["action"], "commands": ["ls -la", "pwd"]},
    }
    patch = {
        **PATCH,
        "status": "completed",
        "operation": {**PATCH["operation"], "diff": "-a\n+b\n"},
    }
    printed = [{"stdout": "a.py\n", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}]
    shell_out = {**SHELL_OUT, "status": "completed", "output": printed}
    command = {"output_index": 0, "item_id": "sh_1"}
    events = [
        {"type": "response.created", "response": response("in_progress")},
        {"type": "response.output_item.added", "output_index": 0, "item": SHELL},
        {"type": "response.shell_call_command.added", **command, "command_index": 0, "command": ""},
        {"type": "response.shell_call_command.delta", **command, "command_index": 0, "delta": "ls"},
        {
            "type": "response.shell_call_command.delta",
            **command,
            "command_index": 0,
            "delta": " -la",
        },
        {
            "type": "response.shell_call_command.done",
            **command,
            "command_index": 0,
            "command": "ls -la",
        },
        {
            "type": "response.shell_call_command.added",
            **command,
            "command_index": 1,
            "command": "pwd",
        },
        {
            "type": "response.shell_call_command.done",
            **command,
            "command_index": 1,
            "command": "pwd",
        },
        {"type": "response.output_item.done", "output_index": 0, "item": shell},
        {"type": "response.output_item.added", "output_index": 1, "item": SHELL_OUT},
        {
            "type": "response.shell_call_output_content.delta",
            "output_index": 1,
            "item_id": "sho_1",
            "command_index": 0,
            "delta": {"stdout": "a.py\n", "stderr": ""},
        },
        {
            "type": "response.shell_call_output_content.done",
            "output_index": 1,
            "item_id": "sho_1",
            "command_index": 0,
            "output": printed,
        },
        {"type": "response.output_item.done", "output_index": 1, "item": shell_out},
        {"type": "response.output_item.added", "output_index": 2, "item": PATCH},
        *(
            {
                "type": "response.apply_patch_call_operation_diff.delta",
                "output_index": 2,
                "item_id": "ap_1",
                "delta": piece,
            }
            for piece in ("-a\n", "+b\n")
        ),
        {"type": "response.output_item.done", "output_index": 2, "item": patch},
        {
            "type": "response.completed",
            "response": response("completed", [shell, shell_out, patch]),
        },
    ]
    return sse(*events), {"shell": shell, "patch": patch}


def test_shell_and_apply_patch_calls_are_read_and_shown_as_tool_cards():
    from app.domain.dialects.responses.labels import view

    data, _ = client_calls()
    stream = read(data)
    assert codes(stream) == []  # no unknown_event
    assert plain(summarize(stream))["completion"] == without_sdk_helpers(sdk_stream(data))
    starts = {e.block: view(e) for e in kinds(stream, "block_start")}
    stops = {e.block: view(e) for e in kinds(stream, "block_stop")}
    assert starts[0]["role"] == "tool_call" and starts[0]["item"] is True
    assert stops[0]["code"] == "ls -la\npwd" and stops[0]["id"] == "call_sh"
    streamed = [e for e in kinds(stream, "block_delta") if e.block == 0]
    assert "".join(e.text for e in streamed) == "ls -la\npwd"
    assert all(view(e) == {"as": "args"} for e in streamed)
    assert starts[1]["role"] == "tool_result"
    assert stops[1]["result"] == {
        "for": {"id": "call_sh"},
        "lines": [
            {"label": "stdout", "text": "a.py\n", "url": None},
            {"label": "outcome", "text": "exit 0", "url": None},
        ],
    }
    assert starts[2]["role"] == "tool_call" and stops[2]["code"] == "update_file a.py\n-a\n+b\n"
    diff = [e.text for e in kinds(stream, "block_delta") if e.block == 2]
    assert diff == ["-a\n", "+b\n"]
    outputs = [e.summary for e in kinds(stream, "payload")]
    assert outputs == ["shell output (output 1)", "shell output done (output 1)"]


def test_a_shell_command_done_that_differs_from_its_deltas_is_said():
    data = sse(
        {"type": "response.created", "response": response("in_progress")},
        {"type": "response.output_item.added", "output_index": 0, "item": SHELL},
        {
            "type": "response.shell_call_command.added",
            "output_index": 0,
            "command_index": 0,
            "command": "l",
        },
        {
            "type": "response.shell_call_command.done",
            "output_index": 0,
            "command_index": 0,
            "command": "rm",
        },
    )
    assert [f.rule for f in rules(read(data))] == ["done-mismatch", "stream-truncated"]
