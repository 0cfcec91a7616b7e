"""Assembling a long text stays linear in its length, in every dialect that folds deltas into
fields of its final object (Anthropic, Cohere, Bedrock, Gemini, Responses) (docs/assembly.md): ten times the deltas cost about ten times as
much. Appending each delta to the text so far (``field = field + text``) copies the whole
text each time, which made 100k deltas cost seconds and 1M deltas a hundred times that.

A ratio of CPU times, best of three, with a wide margin (linear is ~10x, the quadratic fold
was over 150x at these sizes): robust on a loaded machine."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from app.domain.dialects import by_name
from app.domain.events import BlockStart, Event, ReasoningDelta, TextDelta

SMALL = 4_000
TOKEN = " a token of some thirty bytes"  # 29 characters


def _text_events(block_value: dict[str, Any], block_type: str, count: int) -> list[Event]:
    events: list[Event] = [BlockStart(choice=0, block=0, type=block_type, value=block_value)]
    events += [TextDelta(choice=0, text=TOKEN, block=0) for _ in range(count)]
    return events


def _thinking_events(count: int) -> list[Event]:
    value = {"type": "thinking", "thinking": "", "signature": ""}
    events: list[Event] = [BlockStart(choice=0, block=0, type="thinking", value=value)]
    events += [
        ReasoningDelta(choice=0, text=TOKEN, field="thinking", block=0) for _ in range(count)
    ]
    return events


CASES: dict[str, tuple[str, Callable[[int], list[Event]], Callable[[dict[str, Any]], str]]] = {
    "anthropic text": (
        "anthropic-messages",
        lambda n: _text_events({"type": "text", "text": ""}, "text", n),
        lambda message: message["content"][0]["text"],
    ),
    "anthropic thinking": (
        "anthropic-messages",
        _thinking_events,
        lambda message: message["content"][0]["thinking"],
    ),
    "cohere": (
        "cohere",
        lambda n: _text_events({"type": "text", "text": ""}, "text", n),
        lambda response: response["message"]["content"][0]["text"],
    ),
    "bedrock": (
        "bedrock-converse",
        lambda n: _text_events({"contentBlockIndex": 0}, "text", n),
        lambda result: result["content"][0]["text"],
    ),
    "gemini": (
        "gemini",
        lambda n: _text_events({"text": ""}, "text", n),
        lambda response: response["candidates"][0]["content"]["parts"][0]["text"],
    ),
    "responses": (
        "openai-responses",
        lambda n: _text_events(
            {"type": "message", "role": "assistant", "content": []}, "message", n
        ),
        lambda response: response["output"][0]["content"][0]["text"],
    ),
}


def _cpu(fn: Callable[[], Any]) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return max(best, 1e-4)


@pytest.mark.parametrize("case", sorted(CASES))
def test_long_text_assembles_in_linear_time(case: str) -> None:
    name, make, text_of = CASES[case]
    dialect = by_name(name)
    assert dialect is not None
    small, large = make(SMALL), make(SMALL * 10)
    assert text_of(dialect.assemble(large)) == TOKEN * SMALL * 10  # the same text, whole
    ratio = _cpu(lambda: dialect.assemble(large)) / _cpu(lambda: dialect.assemble(small))
    assert ratio < 30, f"{case}: 10x the deltas cost {ratio:.0f}x (quadratic?)"
