"""Gemini streamGenerateContent: Streamscope's aggregated response against what google-genai
yields chunk by chunk on the same bytes (it has no accumulator: its own SSE reader runs through
an ``httpx.MockTransport``; text = the chunks' ``text``, thoughts = parts with ``thought``,
function calls in order, the rest from the last chunk that has it), where google-genai is
wrong (the JSON-array form, integer enums, Vertex's streamed arguments), and one test per quirk
the real captures do not show."""

from __future__ import annotations

import base64
import json
from typing import TYPE_CHECKING

import httpx
import pytest

from app.captures import read_capture
from app.report import render

if TYPE_CHECKING:  # the SDK is imported by the tests that run it, not at collection
    from google.genai import types
from app.domain.summary import summarize

from ..helpers import exercise
from .common import DIALECT_CAPTURES, captures, summary

NAMES = captures("gemini-")
SSE = [name for name in NAMES if name.endswith(".sse")]
JSON_ARRAY = "gemini-2-5-flash-json-array-thinking-tools.json"


def sdk_chunks(data: bytes) -> list[types.GenerateContentResponse]:
    """What ``generate_content_stream`` yields when the server answers with these bytes."""
    from google import genai
    from google.genai import types

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=data)

    http = httpx.Client(transport=httpx.MockTransport(answer))
    client = genai.Client(api_key="test-key", http_options=types.HttpOptions(httpx_client=http))
    with http:
        return list(client.models.generate_content_stream(model="gemini-test", contents="hi"))


def dump(model) -> dict | None:
    return (
        None if model is None else model.model_dump(mode="json", by_alias=True, exclude_none=True)
    )


def known(ours: dict, theirs: dict) -> dict:
    """Our values for the keys the SDK's model knows (it drops the ones it has no field for,
    such as ``serviceTier``; we keep them)."""
    return {k: ours.get(k) for k in theirs}


def parts_of(response: dict) -> list[dict]:
    return response["candidates"][0]["content"]["parts"]


def sdk_parts(chunks) -> list[types.Part]:
    return [
        part
        for chunk in chunks
        for candidate in chunk.candidates or []
        if candidate.content
        for part in candidate.content.parts or []
    ]


def last(chunks, read):
    values = [read(chunk) for chunk in chunks]
    return next((v for v in reversed(values) if v is not None), None)


def read(data: bytes):
    (stream,) = read_capture(data).streams
    return stream, summarize(stream)


def sse(*payloads: dict) -> bytes:
    return b"".join(b"data: " + json.dumps(p).encode() + b"\r\n\r\n" for p in payloads)


def chunk(parts: list[dict], index: int = 0, **candidate) -> dict:
    return {
        "candidates": [{"content": {"parts": parts, "role": "model"}, "index": index, **candidate}]
    }


def test_there_are_nine_real_gemini_captures():
    assert len(NAMES) == 9 and len(SSE) == 8


@pytest.mark.parametrize("name", SSE)
def test_the_response_agrees_with_what_the_sdk_yields(name):
    data = (DIALECT_CAPTURES / name).read_bytes()
    theirs = sdk_chunks(data)
    ours = summary(name)["completion"]
    parts = parts_of(ours)
    text = "".join(p["text"] for p in parts if "text" in p and not p.get("thought"))
    assert text == "".join(c.text or "" for c in theirs)
    thoughts = [p for p in sdk_parts(theirs) if p.thought]
    assert "".join(p["text"] for p in parts if p.get("thought")) == "".join(
        p.text or "" for p in thoughts
    )
    calls = [c for chunk in theirs for c in chunk.function_calls or []]
    assert [p["functionCall"] for p in parts if "functionCall" in p] == [dump(c) for c in calls]
    whole = [
        {key: value for key, value in dump(p).items() if key != "thoughtSignature"}
        for p in sdk_parts(theirs)
        if p.executable_code or p.code_execution_result
    ]
    assert [p for p in parts if "executableCode" in p or "codeExecutionResult" in p] == whole
    signatures = [
        base64.b64encode(p.thought_signature).decode()
        for p in sdk_parts(theirs)
        if p.thought_signature
    ]
    assert [p["thoughtSignature"] for p in parts if "thoughtSignature" in p] == signatures
    candidate = ours["candidates"][0]
    assert candidate["finishReason"] == last(
        theirs, lambda c: c.candidates and c.candidates[0].finish_reason
    )
    sdk_usage = dump(theirs[-1].usage_metadata)
    assert known(ours["usageMetadata"], sdk_usage) == sdk_usage
    assert ours["modelVersion"] == theirs[-1].model_version
    assert ours["responseId"] == theirs[-1].response_id
    grounding = last(theirs, lambda c: dump(c.candidates[0].grounding_metadata))
    assert candidate.get("groundingMetadata") == grounding
    ratings = last(theirs, lambda c: c.candidates[0].safety_ratings)
    assert candidate.get("safetyRatings") == (ratings and [dump(r) for r in ratings])


def test_text_parts_of_one_kind_are_joined_and_other_parts_kept_in_order():
    ours = summary("gemini-2-5-flash-code-execution.sse")
    kinds = [next(iter(p)) for p in parts_of(ours["completion"])]
    assert kinds == ["text", "executableCode", "codeExecutionResult", "text"]
    (stream,) = read_capture(
        (DIALECT_CAPTURES / "gemini-2-5-flash-code-execution.sse").read_bytes()
    ).streams
    starts = [(e.block, e.type) for e in stream.events if e.kind == "block_start"]
    assert starts == [(0, "text"), (1, "executableCode"), (2, "codeExecutionResult"), (3, "text")]
    assert [e.block for e in stream.events if e.kind == "block_stop"] == [0, 1, 2, 3]
    assert {e.block for e in stream.events if e.kind == "text"} == {0, 3}


def test_a_signed_part_is_never_merged_with_another():
    # The signature sits on the first answer part: thoughts, that part, the rest of the answer.
    (stream,) = read_capture(
        (DIALECT_CAPTURES / "gemini-2-5-pro-thinking.sse").read_bytes()
    ).streams
    assert [e.type for e in stream.events if e.kind == "block_start"] == ["thought", "text", "text"]
    assert [e.block for e in stream.events if e.kind == "signature"] == [1]
    assert {e.field for e in stream.events if e.kind == "reasoning"} == {"thought"}
    parts = parts_of(summary("gemini-2-5-pro-thinking.sse")["completion"])
    assert [(p.get("thought", False), "thoughtSignature" in p) for p in parts] == [
        (True, False),
        (False, True),
        (False, False),
    ]
    assert parts[1]["text"].endswith("Here is a step-by-step")
    # Gemini 3 sends it on an empty text part at the end: that part stays on its own.
    parts = parts_of(summary("gemini-3-pro-preview-text.sse")["completion"])
    assert [(p["text"][:9], "thoughtSignature" in p) for p in parts] == [
        ("There are", False),
        ("", True),
    ]


def test_a_lone_signature_part_is_a_part_of_its_own():
    data = sse(
        chunk([{"text": "Done."}]),
        chunk([{"thoughtSignature": "c2ln"}], finishReason="STOP"),
    )
    stream, result = read(data)
    assert [(e.block, e.type) for e in stream.events if e.kind == "block_start"] == [
        (0, "text"),
        (1, "thoughtSignature"),
    ]
    assert [e.block for e in stream.events if e.kind == "signature"] == [1]
    assert parts_of(result["completion"]) == [{"text": "Done."}, {"thoughtSignature": "c2ln"}]


def test_a_usage_event_only_when_the_usage_changes():
    (stream,) = read_capture(
        (DIALECT_CAPTURES / "gemini-2-0-flash-exp-text.sse").read_bytes()
    ).streams
    assert len(stream.raw) == 3
    usages = [e.usage for e in stream.events if e.kind == "usage"]
    assert [u["totalTokenCount"] for u in usages] == [15, 21]


def test_the_json_array_form_reads_as_one_stream_and_the_sdk_cannot_read_it():
    data = (DIALECT_CAPTURES / JSON_ARRAY).read_bytes()
    capture = read_capture(data)
    assert capture.format == "json" and len(capture.streams) == 1
    assert len(capture.streams[0].raw) == 2
    assert summary(JSON_ARRAY)["normalized"]["outputs"][0]["tool_calls"] == [
        {"id": None, "name": "pelican_name_generator", "arguments": "{}"}
    ]
    from google.genai import errors

    with pytest.raises(errors.UnknownApiResponseError):
        sdk_chunks(data)


def test_an_integer_finish_reason_is_kept_as_sent_and_the_sdk_crashes_on_it():
    data = sse(
        chunk([{"text": "Hi"}], finishReason=1, safetyRatings=[{"category": 8, "probability": 1}])
        | {"usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 1}}
    )
    stream, result = read(data)
    assert [e.reason for e in stream.events if e.kind == "finish"] == [1]
    assert result["normalized"]["outputs"][0]["stop_reason"] == 1
    assert result["completion"]["candidates"][0]["finishReason"] == 1
    assert result["completion"]["candidates"][0]["safetyRatings"] == [
        {"category": 8, "probability": 1}
    ]
    with pytest.raises(AttributeError, match="upper"):
        sdk_chunks(data)


def test_an_integer_finish_reason_is_shown_by_its_enum_name_and_number():
    data = sse(chunk([{"text": "Hi"}], finishReason=1), chunk([], index=1, finishReason=99))
    stream, _ = read(data)
    finishes = [e.to_json() for e in stream.events if e.kind == "finish"]
    assert [(f["reason"], f.get("label")) for f in finishes] == [
        (1, "STOP (1)"),
        (99, "99 (a number google-genai does not name)"),
    ]
    from google.genai import types

    assert types.FinishReason("STOP").name == "STOP"  # the names are the SDK's
    report = render(read_capture(data), "capture")
    assert "output 0 (stop: STOP (1))" in report
    named = sse(chunk([{"text": "Hi"}], finishReason="STOP"))
    (finish,) = [e.to_json() for e in read(named)[0].events if e.kind == "finish"]
    assert "label" not in finish  # a name says itself


def test_a_function_call_without_args_has_null_arguments_as_the_sdk_gives():
    data = sse(
        chunk([{"functionCall": {"name": "get_time", "id": "c1"}}]),
        chunk([{"functionCall": {"name": "get_date", "args": {}}}], finishReason="STOP"),
    )
    _, result = read(data)
    theirs = [c for response in sdk_chunks(data) for c in response.function_calls or []]
    assert [c.args for c in theirs] == [None, {}]
    calls = result["normalized"]["outputs"][0]["tool_calls"]
    assert [c["arguments"] for c in calls] == [None, "{}"]
    assert "args" not in parts_of(result["completion"])[0]["functionCall"]


# Vertex AI's streamed function arguments (streamFunctionCallArguments), in the shape Vertex
# sends them: the call opens with its name and willContinue, fragments follow by JSON path (a
# string goes on while its fragment says willContinue), an empty functionCall ends it.
VERTEX = sse(
    chunk(
        [{"functionCall": {"name": "plan_trip", "willContinue": True}, "thoughtSignature": "c2ln"}]
    ),
    chunk(
        [
            {
                "functionCall": {
                    "partialArgs": [
                        {"jsonPath": "$.city", "stringValue": "San ", "willContinue": True}
                    ],
                    "willContinue": True,
                }
            }
        ]
    ),
    chunk(
        [
            {
                "functionCall": {
                    "partialArgs": [
                        {"jsonPath": "$.city", "stringValue": "Francisco"},
                        {"jsonPath": "$.stops[0].name", "stringValue": "Pier 39"},
                    ],
                    "willContinue": True,
                }
            }
        ]
    ),
    chunk(
        [
            {
                "functionCall": {
                    "partialArgs": [
                        {"jsonPath": "$.stops[0].hours", "numberValue": 2},
                        {"jsonPath": "$.stops[1].name", "stringValue": 'Muir "Woods"'},
                        {"jsonPath": "$.car", "boolValue": False},
                        {"jsonPath": "$.note", "nullValue": "NULL_VALUE"},
                    ],
                    "willContinue": True,
                }
            }
        ]
    ),
    chunk([{"functionCall": {}}], finishReason="STOP")
    | {"usageMetadata": {"promptTokenCount": 20, "candidatesTokenCount": 9}},
)
VERTEX_ARGS = {
    "city": "San Francisco",
    "stops": [{"name": "Pier 39", "hours": 2}, {"name": 'Muir "Woods"'}],
    "car": False,
    "note": None,
}


def test_vertex_streamed_arguments_are_joined_into_one_call():
    stream, result = read(VERTEX)
    fragments = [e.text for e in stream.events if e.kind == "tool_args"]
    assert len(fragments) == 4  # one per part that carried fragments, and the closing text
    (end,) = [e for e in stream.events if e.kind == "tool_end"]
    assert "".join(fragments) == end.arguments
    assert json.loads(end.arguments) == VERTEX_ARGS and end.status == "valid"
    assert [(e.call, e.name) for e in stream.events if e.kind == "tool_start"] == [(0, "plan_trip")]
    assert [e.block for e in stream.events if e.kind == "block_start"] == [0]
    assert stream.diagnostics == []
    (part,) = parts_of(result["completion"])
    assert part == {
        "functionCall": {"name": "plan_trip", "args": VERTEX_ARGS},
        "thoughtSignature": "c2ln",
    }


def test_the_sdk_leaves_vertex_fragments_unjoined():
    calls = [c for chunk in sdk_chunks(VERTEX) for c in chunk.function_calls or []]
    assert len(calls) == 5  # one "call" per fragment part, none with arguments
    assert all(c.args is None for c in calls)
    assert [c.name for c in calls] == ["plan_trip", None, None, None, None]


def test_a_fragment_that_goes_back_ends_the_text_and_keeps_the_whole_object():
    data = sse(
        chunk(
            [
                {
                    "functionCall": {
                        "name": "f",
                        "partialArgs": [
                            {"jsonPath": "$.a", "stringValue": "x"},
                            {"jsonPath": "$.b", "numberValue": 1},
                        ],
                        "willContinue": True,
                    }
                }
            ]
        ),
        chunk(
            [
                {
                    "functionCall": {
                        "partialArgs": [
                            {"jsonPath": "$.a", "stringValue": "y"},
                            {"jsonPath": "not a path!"},
                        ]
                    }
                }
            ],
            finishReason="STOP",
        ),
    )
    stream, _ = read(data)
    (end,) = [e for e in stream.events if e.kind == "tool_end"]
    assert json.loads(end.arguments) == {"a": "y", "b": 1} and end.status == "valid"
    assert [d.code for d in stream.diagnostics] == ["partial_args_path", "partial_args_order"]
    assert all(d.line == 3 for d in stream.diagnostics)


def test_a_streamed_call_cut_off_is_closed_with_what_came():
    data = sse(
        chunk(
            [
                {
                    "functionCall": {
                        "name": "f",
                        "partialArgs": [
                            {"jsonPath": "$.q", "stringValue": "par", "willContinue": True}
                        ],
                        "willContinue": True,
                    }
                }
            ]
        ),
    )
    stream, result = read(data)
    (end,) = [e for e in stream.events if e.kind == "tool_end"]
    assert end.arguments == '{"q":"par"}' and end.status == "valid"
    codes = [d.code for d in stream.diagnostics]
    assert codes == ["function_call_unfinished"]
    assert stream.sightings.first("final_missing").value == "a finishReason"
    assert parts_of(result["completion"]) == [{"functionCall": {"name": "f", "args": {"q": "par"}}}]


def test_a_blocked_prompt_is_an_error_and_nothing_is_lost():
    feedback = {
        "blockReason": "SAFETY",
        "safetyRatings": [
            {"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "HIGH", "blocked": True}
        ],
    }
    data = sse(
        {
            "promptFeedback": feedback,
            "usageMetadata": {"promptTokenCount": 9, "totalTokenCount": 9},
            "modelVersion": "gemini-2.5-flash",
            "responseId": "r1",
        }
    )
    stream, result = read(data)
    assert stream.dialect_name == "gemini"
    (error,) = result["normalized"]["errors"]
    assert error["code"] == "SAFETY" and "blocked" in error["message"]
    completion = result["completion"]
    assert completion["promptFeedback"] == feedback
    assert completion["candidates"] == []
    assert completion["usageMetadata"]["promptTokenCount"] == 9
    assert completion["modelVersion"] == "gemini-2.5-flash"
    assert "final_missing" not in stream.sightings
    (theirs,) = sdk_chunks(data)
    assert theirs.prompt_feedback.block_reason == "SAFETY" and theirs.text is None


def test_an_error_element_at_the_end_of_a_json_array_keeps_the_text_before_it():
    data = (
        b'[{"candidates": [{"content": {"parts": [{"text": "Par"}], "role": "model"}, "index": 0}]}\r\n,'
        b'{"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}\r\n]'
    )
    _, result = read(data)
    assert result["normalized"]["outputs"][0]["text"] == "Par"
    assert [(e["message"], e["code"]) for e in result["normalized"]["errors"]] == [
        ("The model is overloaded.", 503)
    ]


def test_a_truncated_array_says_where_it_breaks_and_keeps_what_came():
    data = (DIALECT_CAPTURES / JSON_ARRAY).read_bytes()[:-200]
    stream, result = read(data)
    assert result["normalized"]["outputs"][0]["reasoning"].startswith("**Generating Pelican")
    problems = [d for d in stream.diagnostics if d.severity == "error"]
    assert problems and problems[0].line is not None and problems[0].line > 30


def test_wrong_shapes_are_diagnostics_with_their_line():
    data = sse(
        chunk([{"text": "A"}]),
        {"candidates": {"not": "a list"}},
        chunk(["not a part", {"text": 5}, {"text": "B"}]),
        {"candidates": [{"content": "not an object"}]},
        chunk([{"text": "C"}], finishReason={"odd": True}),
    )
    stream, result = read(data)
    assert result["normalized"]["outputs"][0]["text"] == "ABC"
    assert result["normalized"]["outputs"][0]["stop_reason"] == '{"odd":true}'
    assert [(d.code, d.line) for d in stream.diagnostics] == [
        ("candidate_shape", 3),
        ("part_shape", 5),
        ("part_shape", 5),
        ("part_shape", 7),
        ("candidate_shape", 9),
    ]


def test_candidates_are_outputs_by_index():
    data = sse(
        {
            "candidates": [
                {"content": {"parts": [{"text": "A1"}]}, "index": 0},
                {"content": {"parts": [{"text": "B1"}]}, "index": 1},
            ]
        },
        {
            "candidates": [
                {"content": {"parts": [{"text": "B2"}]}, "index": 1, "finishReason": "MAX_TOKENS"}
            ]
        },
        {
            "candidates": [
                {"content": {"parts": [{"text": "A2"}]}, "index": 0, "finishReason": "STOP"}
            ]
        },
    )
    _, result = read(data)
    outputs = result["normalized"]["outputs"]
    assert [(o["index"], o["text"], o["stop_reason"]) for o in outputs] == [
        (0, "A1A2", "STOP"),
        (1, "B1B2", "MAX_TOKENS"),
    ]
    assert [c["content"]["parts"] for c in result["completion"]["candidates"]] == [
        [{"text": "A1A2"}],
        [{"text": "B1B2"}],
    ]


def test_grounding_supports_become_citations_once():
    support = {
        "segment": {"startIndex": 0, "endIndex": 5, "text": "Hello"},
        "groundingChunkIndices": [0],
    }
    grounding = {
        "groundingChunks": [{"web": {"uri": "https://example.com", "title": "ex"}}],
        "groundingSupports": [support],
    }
    data = sse(
        chunk([{"text": "Hello"}], groundingMetadata={}),
        chunk([{"text": "!"}], groundingMetadata=grounding),
        chunk([], groundingMetadata=grounding, finishReason="STOP"),
    )
    stream, result = read(data)
    assert [(e.value, e.block) for e in stream.events if e.kind == "citation"] == [(support, 0)]
    assert result["completion"]["candidates"][0]["groundingMetadata"] == grounding


def test_metrics_count_candidates_tokens():
    metrics = summary("gemini-2-5-pro-thinking.sse")["metrics"]
    assert metrics["tokens_source"] == "usageMetadata.candidatesTokenCount"
    assert metrics["output_tokens"] == 469
    assert metrics["server"] is None


@pytest.mark.parametrize("name", [JSON_ARRAY, "gemini-2-5-flash-code-execution.sse"])
def test_every_truncation_reads_and_keeps_a_prefix_of_the_text(name):
    data = (DIALECT_CAPTURES / name).read_bytes()
    whole = summary(name)["normalized"]["outputs"][0]
    for cut in range(1, len(data), 13):
        capture = exercise(data[:cut])
        outputs = [o for s in capture.streams for o in summarize(s)["normalized"]["outputs"]]
        text = "".join(o["text"] for o in outputs)
        reasoning = "".join(o["reasoning"] for o in outputs)
        assert whole["text"].startswith(text) and whole["reasoning"].startswith(reasoning), cut


@pytest.mark.parametrize("fast", [True, False], ids=["fast path", "full reading"])
def test_usage_repeated_with_every_chunk_keeps_one_copy_of_its_details(fast, monkeypatch):
    from app.domain.dialects.gemini.interpreter import GeminiInterpreter
    from app.domain.events import Usage

    if not fast:
        monkeypatch.setattr(GeminiInterpreter, "fast", None)
    details = [{"modality": "TEXT", "tokenCount": 9}]
    chunks = [
        {
            "candidates": [{"content": {"parts": [{"text": f"t{n}"}], "role": "model"}}],
            "usageMetadata": {
                "promptTokenCount": 9,
                "candidatesTokenCount": n,
                "promptTokensDetails": details,
                "thoughtsTokensDetails": [{"modality": "TEXT", "tokenCount": n}],
            },
            "modelVersion": "gemini-2.0-flash",
        }
        for n in range(1, 5)
    ]
    data = b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks)
    stream, result = read(data)
    usages = [e.usage for e in stream.events if isinstance(e, Usage)]
    assert usages == [c["usageMetadata"] for c in chunks]  # the values, as sent
    assert all(u["promptTokensDetails"] is usages[0]["promptTokensDetails"] for u in usages)
    changing = {id(u["thoughtsTokensDetails"]) for u in usages}
    assert len(changing) == len(usages)  # a list that changes is each chunk's own
    assert result["completion"]["usageMetadata"] == chunks[-1]["usageMetadata"]
