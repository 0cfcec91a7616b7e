"""Ollama native: Streamscope's final object against what ollama-python's client yields on the
same bytes (``Client(transport=httpx.MockTransport).chat/generate(stream=True)``: the done
line, the fragments joined, the tool calls collected), where the client is wrong (it drops
tool call ids; an in-band error raises), the server's own durations in the metrics, and one
test per quirk the real captures do not show."""

from __future__ import annotations

import json

import httpx
import pytest

from app.captures import read_capture
from app.domain.events import RawEvent
from app.domain.metrics import compute
from app.domain.stream import Source
from app.domain.summary import summarize
from app.domain.timeline import TimelineBuilder

from ..helpers import exercise
from .common import DIALECT_CAPTURES, captures, summary

NAMES = captures("ollama-")


def sdk_chunks(data: bytes, generate: bool) -> list:
    import ollama  # by the tests that run it, not at collection

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "application/x-ndjson"}, content=data)

    with ollama.Client(host="http://127.0.0.1:9", transport=httpx.MockTransport(answer)) as client:
        if generate:
            return list(client.generate(model="m", prompt="hi", stream=True))
        return list(
            client.chat(model="m", messages=[{"role": "user", "content": "hi"}], stream=True)
        )


def sdk_final(chunks: list, generate: bool) -> dict:
    """What a client user holds at the end: the done line, with the fragments joined and the
    tool calls collected."""
    final = chunks[-1].model_dump(mode="json", exclude_none=True)
    holder = final if generate else final["message"]
    key = "response" if generate else "content"
    holder[key] = "".join((c.response if generate else c.message.content) or "" for c in chunks)
    thinking = "".join((c.thinking if generate else c.message.thinking) or "" for c in chunks)
    if thinking:
        holder["thinking"] = thinking
    calls = [
        call.model_dump(mode="json")
        for c in chunks
        if not generate
        for call in c.message.tool_calls or []
    ]
    if calls:
        holder["tool_calls"] = calls
    return final


def without_none(value):
    if isinstance(value, dict):
        return {k: without_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [without_none(v) for v in value]
    return value


def read(data: bytes):
    (stream,) = read_capture(data).streams
    return stream, summarize(stream)


def ndjson(*lines: dict) -> bytes:
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


def line(content: str = "", done: bool = False, **more) -> dict:
    return {
        "model": "qwen3",
        "created_at": "2025-11-05T10:00:00Z",
        "message": {"role": "assistant", "content": content},
        "done": done,
        **more,
    }


DONE = {
    "done_reason": "stop",
    "total_duration": 900_000_000,
    "load_duration": 100_000_000,
    "prompt_eval_count": 10,
    "prompt_eval_duration": 50_000_000,
    "eval_count": 40,
    "eval_duration": 500_000_000,
}


def test_there_are_seven_real_ollama_captures():
    assert len(NAMES) == 7


@pytest.mark.parametrize("name", NAMES)
def test_the_final_object_is_what_the_client_holds(name):
    generate = "-generate-" in name
    data = (DIALECT_CAPTURES / name).read_bytes()
    theirs = sdk_final(sdk_chunks(data, generate), generate)
    ours = summary(name)["completion"]
    assert without_none(ours) == theirs


@pytest.mark.parametrize("name", NAMES)
def test_the_server_durations_are_in_the_metrics(name):
    done = json.loads((DIALECT_CAPTURES / name).read_bytes().splitlines()[-1])
    server = summary(name)["metrics"]["server"]
    assert server["eval_duration_ms"] == done["eval_duration"] / 1e6
    assert server["prompt_eval_duration_ms"] == done["prompt_eval_duration"] / 1e6
    assert server["load_duration_ms"] == done["load_duration"] / 1e6
    assert server["total_duration_ms"] == done["total_duration"] / 1e6
    assert server["eval_tokens_per_s"] == pytest.approx(
        done["eval_count"] / (done["eval_duration"] / 1e9)
    )
    assert server["prompt_eval_tokens_per_s"] == pytest.approx(
        done["prompt_eval_count"] / (done["prompt_eval_duration"] / 1e9)
    )


def test_server_rates_sit_next_to_the_wire_timed_ones():
    data = ndjson(line("A"), line("B"), line("C"), line("", True, **DONE))
    builder = TimelineBuilder(Source(data), timed=True)
    pos = 0
    for number, (text, t) in enumerate(
        zip(data.splitlines(keepends=True), [100.0, 150.0, 200.0, 260.0], strict=True)
    ):
        builder.data(RawEvent(-1, number + 1, pos, pos + len(text), t), text.strip(), pos)
        pos += len(text)
    (stream,) = builder.close()
    metrics = compute(stream)
    assert metrics.output_tokens == 40 and metrics.tokens_source == "eval_count"
    assert metrics.ttft_ms == 100.0 and metrics.e2el_ms == 200.0
    assert metrics.decode_tokens_per_s == pytest.approx(39 / 0.1)  # on the wire
    assert metrics.server is not None
    assert metrics.server["eval_tokens_per_s"] == pytest.approx(40 / 0.5)  # as the server says
    assert metrics.server["load_duration_ms"] == 100.0


def test_streams_of_other_dialects_have_no_server_section():
    assert summary("gemini-2-0-flash-exp-text.sse")["metrics"]["server"] is None
    assert (
        compute(
            read_capture(b'data: {"choices":[{"index":0,"delta":{"content":"x"}}]}\n\n').streams[0]
        ).server
        is None
    )


def test_tool_call_ids_are_kept_and_the_client_drops_them():
    call = {
        "id": "call_lyywui55",
        "function": {"index": 0, "name": "get_weather", "arguments": {"city": "Paris"}},
    }
    data = ndjson(
        line("", message={"role": "assistant", "content": "", "tool_calls": [call]}),
        line("", True, **DONE),
    )
    stream, result = read(data)
    assert result["normalized"]["outputs"][0]["tool_calls"] == [
        {"id": "call_lyywui55", "name": "get_weather", "arguments": '{"city":"Paris"}'}
    ]
    assert [(e.index, e.id) for e in stream.events if e.kind == "tool_start"] == [
        (0, "call_lyywui55")
    ]
    assert [e.status for e in stream.events if e.kind == "tool_end"] == ["valid"]
    assert result["completion"]["message"]["tool_calls"] == [call]
    (theirs,) = [c for c in sdk_chunks(data, generate=False) if c.message.tool_calls]
    assert theirs.message.tool_calls[0].model_dump() == {
        "function": {"name": "get_weather", "arguments": {"city": "Paris"}}
    }


def test_thinking_is_reasoning_and_joined_in_the_message():
    data = ndjson(
        line("", message={"role": "assistant", "content": "", "thinking": "Let me "}),
        line("", message={"role": "assistant", "content": "", "thinking": "count."}),
        line("1, 2"),
        line("", True, **DONE),
    )
    stream, result = read(data)
    assert [e.text for e in stream.events if e.kind == "reasoning"] == ["Let me ", "count."]
    assert result["completion"]["message"] == {
        "role": "assistant",
        "content": "1, 2",
        "thinking": "Let me count.",
    }
    assert without_none(result["completion"]) == sdk_final(
        sdk_chunks(data, generate=False), generate=False
    )


def test_an_error_line_keeps_what_came_before_and_the_client_raises():
    data = ndjson(line("Hel"), {"error": "model runner has unexpectedly stopped"})
    stream, result = read(data)
    assert result["normalized"]["outputs"][0]["text"] == "Hel"
    assert [e["message"] for e in result["normalized"]["errors"]] == [
        "model runner has unexpectedly stopped"
    ]
    assert "final_missing" not in stream.sightings
    import ollama

    with pytest.raises(ollama.ResponseError, match="unexpectedly stopped"):
        sdk_chunks(data, generate=False)


def test_a_stream_cut_before_its_done_line_says_so():
    stream, result = read(ndjson(line("Hel"), line("lo")))
    assert result["completion"]["message"]["content"] == "Hello"
    assert result["completion"]["done"] is False
    assert stream.diagnostics == []
    assert stream.sightings.first("final_missing").value == "the done: true line"
    assert result["metrics"]["server"] is None


def test_wrong_shapes_are_diagnostics_with_their_line():
    data = ndjson(
        line("A"),
        {"model": "qwen3", "created_at": "t", "message": "oops", "done": False},
        line("", message={"role": "assistant", "content": "B", "tool_calls": [{"nofunction": 1}]}),
        line("", True, **DONE),
    )
    stream, result = read(data)
    assert result["normalized"]["outputs"][0]["text"] == "AB"
    assert [(d.code, d.line) for d in stream.diagnostics] == [
        ("message_shape", 2),
        ("tool_call_shape", 3),
    ]


def test_logprobs_are_logprobs_events_and_joined_in_the_final_object():
    first = [
        {
            "token": "Hi",
            "logprob": -0.1,
            "bytes": [72, 105],
            "top_logprobs": [{"token": "Hi", "logprob": -0.1}],
        }
    ]
    second = [{"token": "!", "logprob": -0.5, "bytes": [33], "top_logprobs": []}]
    data = ndjson(
        {"model": "m", "created_at": "t", "response": "Hi", "done": False, "logprobs": first},
        {"model": "m", "created_at": "t", "response": "!", "done": False, "logprobs": second},
        {"model": "m", "created_at": "t2", "response": "", "done": True, **DONE},
    )
    stream, result = read(data)
    assert [e.entry_list() for e in stream.events if e.kind == "logprobs"] == [first, second]
    assert result["completion"]["logprobs"] == first + second
    assert result["completion"]["response"] == "Hi!" and result["completion"]["created_at"] == "t2"
    # Kept as sent (json.dumps spaces them), not written back out.
    sent = [json.dumps(entries)[1:-1].encode() for entries in (first, second)]
    assert [e.entries for e in stream.events if e.kind == "logprobs"] == sent


def test_a_second_response_after_done_is_a_second_stream():
    data = ndjson(line("A"), line("", True, **DONE), line("B"), line("", True, **DONE))
    streams = read_capture(data).streams
    assert [s.dialect_name for s in streams] == ["ollama", "ollama"]
    assert [summarize(s)["completion"]["message"]["content"] for s in streams] == ["A", "B"]


def test_every_truncation_reads_and_keeps_a_prefix_of_the_text():
    name = "ollama-generate-gemma3-1b-emoji.ndjson"
    data = (DIALECT_CAPTURES / name).read_bytes()
    whole = summary(name)["normalized"]["outputs"][0]["text"]
    for cut in range(1, len(data), 11):
        capture = exercise(data[:cut])
        text = "".join(
            o["text"] for s in capture.streams for o in summarize(s)["normalized"]["outputs"]
        )
        assert whole.startswith(text), cut
