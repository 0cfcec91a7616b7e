"""AWS Bedrock ConverseStream: the folded result against the expected results of the real
captures (their frames decoded by botocore; boto3 has no accumulator), each event against
botocore's decoding of the same bytes, and one hand-made stream per quirk the real ones do not
show: reasoning with a signature before a tool use, redacted reasoning, a guardrail stop, an
exception frame, the boto3 JSON form."""

from __future__ import annotations

import orjson
import pytest
from botocore.eventstream import EventStreamBuffer

from app.captures import read_capture
from app.domain.dialects.chat.assemble import plain
from app.domain.rules import find
from app.domain.summary import summarize

from ..eventstream_frames import frame, frames
from .common import DIALECT_CAPTURES, captures, expected, summary

NAMES = captures("bedrock-")


def read(data: bytes, fmt: str | None = None) -> dict:
    capture = read_capture(data, fmt)
    (stream,) = capture.streams
    return plain(summarize(stream)) | {"format": capture.format, "stream": stream}


def test_there_are_two_real_bedrock_captures():
    assert len(NAMES) == 2


@pytest.mark.parametrize("name", NAMES)
def test_the_result_is_the_expected_fold(name):
    assert summary(name)["completion"] == expected(name)["result"]


def botocore_messages(data: bytes) -> list:
    buffer = EventStreamBuffer()
    buffer.add_data(data)
    return [(m.headers, m.payload) for m in buffer]


@pytest.mark.parametrize("name", NAMES)
def test_each_raw_event_is_exactly_one_frame_as_botocore_decodes_it(name):
    data = (DIALECT_CAPTURES / name).read_bytes()
    theirs = botocore_messages(data)
    stream = read_capture(data).streams[0]
    assert len(stream.raw) == len(theirs)
    for raw, (headers, payload) in zip(stream.raw, theirs, strict=True):
        assert raw.event == headers[":event-type"]
        assert botocore_messages(stream.source.slice(raw.byte, raw.end)) == [(headers, payload)]
    usage = orjson.loads(theirs[-1][1])["usage"]
    assert summary(name)["metrics"]["output_tokens"] == usage["outputTokens"]


def test_the_padding_field_is_left_out_and_metrics_are_kept_as_an_extra():
    stream = read((DIALECT_CAPTURES / NAMES[0]).read_bytes())["stream"]
    meta = [e for e in stream.events if e.kind == "meta"]
    assert [m.fields for m in meta] == [{"role": "assistant"}]
    extras = [e.fields for e in stream.events if e.kind == "extra"]
    assert extras == [{"metrics": {"latencyMs": 1176}}]


REASONING_THEN_TOOL = frames(
    ("messageStart", {"role": "assistant"}),
    (
        "contentBlockDelta",
        {"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": "The user wants "}}},
    ),
    (
        "contentBlockDelta",
        {"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": "the weather."}}},
    ),
    (
        "contentBlockDelta",
        {"contentBlockIndex": 0, "delta": {"reasoningContent": {"signature": "EqoBCkgIARAB"}}},
    ),
    ("contentBlockStop", {"contentBlockIndex": 0}),
    ("contentBlockDelta", {"contentBlockIndex": 1, "delta": {"text": "Checking."}}),
    ("contentBlockStop", {"contentBlockIndex": 1}),
    (
        "contentBlockStart",
        {
            "contentBlockIndex": 2,
            "start": {"toolUse": {"toolUseId": "tooluse_1", "name": "get_weather"}},
        },
    ),
    ("contentBlockDelta", {"contentBlockIndex": 2, "delta": {"toolUse": {"input": '{"city": '}}}),
    ("contentBlockDelta", {"contentBlockIndex": 2, "delta": {"toolUse": {"input": '"Paris"}'}}}),
    ("contentBlockStop", {"contentBlockIndex": 2}),
    ("messageStop", {"stopReason": "tool_use"}),
    (
        "metadata",
        {
            "usage": {"inputTokens": 40, "outputTokens": 30, "totalTokens": 70},
            "metrics": {"latencyMs": 900},
        },
    ),
)


def test_reasoning_with_a_signature_then_a_tool_use():
    result = read(REASONING_THEN_TOOL)
    assert result["dialect"] == "bedrock-converse"
    assert result["completion"]["content"] == [
        {
            "index": 0,
            "text": "",
            "reasoning": "The user wants the weather.",
            "signature": "EqoBCkgIARAB",
            "tool": None,
        },
        {"index": 1, "text": "Checking.", "reasoning": "", "signature": None, "tool": None},
        {
            "index": 2,
            "text": "",
            "reasoning": "",
            "signature": None,
            "tool": {"id": "tooluse_1", "name": "get_weather", "arguments": '{"city": "Paris"}'},
        },
    ]
    (output,) = result["normalized"]["outputs"]
    assert output == {
        "index": 0,
        "text": "Checking.",
        "reasoning": "The user wants the weather.",
        "refusal": None,
        "tool_calls": [
            {"id": "tooluse_1", "name": "get_weather", "arguments": '{"city": "Paris"}'}
        ],
        "stop_reason": "tool_use",
    }
    assert result["normalized"]["usage"] == {"input_tokens": 40, "output_tokens": 30}
    assert [t["status"] for t in result["tool_calls"]] == ["valid"]
    stream = result["stream"]
    kinds = [e.kind for e in stream.events]
    assert kinds.count("block_start") == 3 and kinds.count("signature") == 1
    assert sum(r.reasoning for r in stream.raw) == 2 and not result["diagnostics"]


def test_redacted_reasoning_is_kept_as_such():
    data = frames(
        ("messageStart", {"role": "assistant"}),
        (
            "contentBlockDelta",
            {
                "contentBlockIndex": 0,
                "delta": {"reasoningContent": {"redactedContent": "c2VjcmV0"}},
            },
        ),
        ("contentBlockStop", {"contentBlockIndex": 0}),
        ("messageStop", {"stopReason": "end_turn"}),
    )
    result = read(data)
    block = result["completion"]["content"][0]
    assert block["redactedContent"] == "c2VjcmV0" and block["reasoning"] == ""
    deltas = [e for e in result["stream"].events if e.kind == "block_delta"]
    assert [(d.field, d.text) for d in deltas] == [("redactedContent", "c2VjcmV0")]


GUARDRAIL_TRACE = {
    "guardrail": {
        "inputAssessment": {
            "gr-1": {
                "contentPolicy": {
                    "filters": [{"type": "VIOLENCE", "confidence": "HIGH", "action": "BLOCKED"}]
                }
            }
        }
    }
}


def test_a_guardrail_stop_keeps_its_reason_and_its_trace():
    data = frames(
        ("messageStart", {"role": "assistant"}),
        (
            "contentBlockDelta",
            {"contentBlockIndex": 0, "delta": {"text": "Sorry, I can't help with that."}},
        ),
        ("contentBlockStop", {"contentBlockIndex": 0}),
        ("messageStop", {"stopReason": "guardrail_intervened"}),
        (
            "metadata",
            {
                "usage": {"inputTokens": 12, "outputTokens": 0, "totalTokens": 12},
                "metrics": {"latencyMs": 310},
                "trace": GUARDRAIL_TRACE,
            },
        ),
    )
    result = read(data)
    assert result["completion"]["stopReason"] == "guardrail_intervened"
    assert result["completion"]["trace"] == GUARDRAIL_TRACE
    assert result["normalized"]["outputs"][0]["stop_reason"] == "guardrail_intervened"
    assert result["normalized"]["usage"]["output_tokens"] == 0


def test_an_exception_frame_is_an_error_and_what_came_before_is_kept():
    data = frames(
        ("messageStart", {"role": "assistant"}),
        ("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "Hel"}}),
    ) + frame(
        "modelStreamErrorException",
        {"message": "Model stream failed", "originalStatusCode": 500},
        "exception",
    )
    result = read(data)
    assert result["errors"][0]["message"] == "Model stream failed"
    assert result["errors"][0]["code"] == "modelStreamErrorException"
    assert result["normalized"]["outputs"][0]["text"] == "Hel"
    assert result["stream"].raw[-1].event == "modelStreamErrorException"
    assert [d["code"] for d in result["diagnostics"]] == []  # an error ended it: nothing missing


def test_a_stream_that_is_only_an_exception_reads_as_bedrock():
    result = read(frame("throttlingException", {"message": "Too many tokens"}, "exception"))
    assert result["dialect"] == "bedrock-converse"
    assert result["dialect_reason"] == "exception throttlingException, line 1"
    assert [(e["message"], e["code"]) for e in result["errors"]] == [
        ("Too many tokens", "throttlingException")
    ]


def test_the_boto3_json_form_reads_the_same():
    lines = [
        {"messageStart": {"role": "assistant"}},
        {"contentBlockDelta": {"delta": {"text": "Hi"}, "contentBlockIndex": 0}},
        {"contentBlockStop": {"contentBlockIndex": 0}},
        {"messageStop": {"stopReason": "end_turn"}},
        {
            "metadata": {
                "usage": {"inputTokens": 3, "outputTokens": 1, "totalTokens": 4},
                "metrics": {"latencyMs": 5},
            }
        },
    ]
    result = read(b"\n".join(orjson.dumps(line) for line in lines) + b"\n")
    assert (result["format"], result["dialect"]) == ("jsonl", "bedrock-converse")
    assert result["dialect_reason"] == "key messageStart, line 1"
    assert result["completion"]["content"][0]["text"] == "Hi"
    assert result["completion"]["metrics"] == {"latencyMs": 5}
    assert not result["diagnostics"]


def test_wrong_shapes_are_said_and_the_rest_is_read():
    data = frames(
        ("messageStart", {"role": "assistant"}),
        ("contentBlockDelta", {"contentBlockIndex": 0, "delta": "text"}),
        ("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"image": {"format": "png"}}}),
        ("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"toolUse": {"input": "{}"}}}),
        (
            "contentBlockStart",
            {"contentBlockIndex": 1, "start": {"toolUse": {"toolUseId": "t", "name": "f"}}},
        ),
        ("contentBlockDelta", {"contentBlockIndex": 1, "delta": {"toolUse": {"input": '{"a":'}}}),
        ("contentBlockStop", {"contentBlockIndex": 7}),
    )
    result = read(data)
    codes = [d["code"] for d in result["diagnostics"]]
    assert codes == [
        "block_shape",
        "unknown_delta",
        "input_not_tool",
        "block_unknown",
    ]
    assert [f.rule for f in find(result["stream"])] == ["block-not-stopped", "stream-truncated"]
    assert result["stream"].sightings.first("final_missing").value == "messageStop"
    assert [(t["id"], t["status"], t["incomplete"]) for t in result["tool_calls"]] == [
        ("t", "invalid", True)
    ]
    extras = [e.fields for e in result["stream"].events if e.kind == "extra"]
    assert extras == [{"image": {"format": "png"}}]


def test_events_of_the_same_name_from_other_apis_are_not_bedrock():
    data = b'event: metadata\ndata: {"foo": 1}\n\nevent: messageStop\ndata: {"reason": "x"}\n\n'
    result = read(data)
    assert result["dialect"] is None
    assert "unknown_dialect" in [d["code"] for d in result["diagnostics"]]


def test_every_event_the_interpreter_reads_is_one_it_recognises() -> None:
    """The names boto3's ``{name: body}`` form is unwrapped by (app/domain/dialects/bedrock/shapes.py) are the
    events the interpreter has a handler for (bedrock.py): one list kept in two modules."""
    from app.domain.dialects.bedrock import interpreter as bedrock
    from app.domain.dialects.bedrock import shapes as bedrock_shapes

    assert set(bedrock._HANDLERS) == set(bedrock_shapes._SHAPES)
