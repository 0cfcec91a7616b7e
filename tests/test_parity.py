"""Parity with the reference client: the openai SDK's ChatCompletionStreamState, run on the
same bytes as Streamscope, for every capture that came from openai-python or openai-node."""

from __future__ import annotations

import json
import re

import pytest

from app.captures import read_capture
from app.domain.dialects.chat.assemble import assemble, plain

from .helpers import CAPTURES


def reference_captures() -> list[str]:
    table = (CAPTURES / "SOURCES.md").read_text()
    rows = re.findall(r"^\| `([^`]+\.sse)` \| (openai/openai-(?:python|node)) \|", table, re.M)
    return sorted(name for name, _ in rows)


def sdk_completion(data: bytes) -> dict:
    # The SDK is imported by the tests that run it, not when the suite is collected.
    from openai._models import construct_type
    from openai._streaming import SSEDecoder
    from openai.lib.streaming.chat import ChatCompletionStreamState
    from openai.types.chat import ChatCompletionChunk

    state = ChatCompletionStreamState()
    for event in SSEDecoder().iter_bytes(iter([data])):
        if event.data.startswith("[DONE]"):
            break
        chunk = construct_type(type_=ChatCompletionChunk, value=json.loads(event.data))
        state.handle_chunk(chunk)
    return state.current_completion_snapshot.to_dict()


def tool_calls(message: dict) -> list[tuple]:
    return [
        (c.get("id"), c["function"]["name"], c["function"]["arguments"])
        for c in message.get("tool_calls") or []
    ]


def test_the_reference_set_is_what_sources_md_says():
    names = reference_captures()
    assert len(names) == 13
    assert "openai-node-gpt4o-leading-newline.sse" in names


@pytest.mark.parametrize("name", reference_captures())
def test_streamscope_matches_the_openai_sdk(name):
    data = (CAPTURES / name).read_bytes()
    reference = sdk_completion(data)
    ours = plain(assemble(read_capture(data).streams[0].events))
    assert len(ours["choices"]) == len(reference["choices"])
    for mine, theirs in zip(ours["choices"], reference["choices"], strict=True):
        assert mine["index"] == theirs["index"]
        assert mine["message"]["content"] == theirs["message"].get("content")
        assert mine["message"]["refusal"] == theirs["message"].get("refusal")
        assert tool_calls(mine["message"]) == tool_calls(theirs["message"])
        assert mine["logprobs"] == theirs.get("logprobs")
        assert mine["finish_reason"] == theirs["finish_reason"]
    assert ours["usage"] == reference.get("usage")
    assert ours["id"] == reference["id"]
    assert ours["model"] == reference["model"]


EMPTY_THEN_TOOLS = [
    {"role": "assistant", "content": "", "refusal": None},
    {"tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "f"}}]},
    {"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}]},
]


def test_content_sent_as_empty_before_tool_calls_is_empty_as_in_the_sdk():
    chunks = []
    for number, delta in enumerate(EMPTY_THEN_TOOLS):
        last = number == len(EMPTY_THEN_TOOLS) - 1
        choice = {"index": 0, "delta": delta, "finish_reason": "tool_calls" if last else None}
        body = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}
        chunks.append(b"data: " + json.dumps({**body, "choices": [choice]}).encode() + b"\n\n")
    data = b"".join(chunks) + b"data: [DONE]\n\n"
    reference = sdk_completion(data)["choices"][0]["message"]
    ours = plain(assemble(read_capture(data).streams[0].events))["choices"][0]["message"]
    assert reference["content"] == ours["content"] == ""
    assert ours["refusal"] is None and reference.get("refusal") is None
    assert tool_calls(ours) == tool_calls(reference) == [("call_1", "f", "{}")]
