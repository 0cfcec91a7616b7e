"""The tool the tool cases offer, and what every streamed tool call should be."""

from __future__ import annotations

from typing import Any

import orjson

from .model import Run

NAME = "get_weather"
TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": NAME,
            "description": "The current weather in a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string", "description": "The city's name"}},
                "required": ["city"],
            },
        },
    }
]
RESULT = '{"city": "Paris", "temperature_c": 18, "sky": "clear"}'


def call_problem(run: Run) -> str | None:
    """What is wrong with the calls of choice 0, or None: each has an id, the tool's name,
    arguments that parse as a JSON object, and its own index."""
    starts = run.call_starts()
    for number, call in enumerate(run.calls(), 1):
        if not call.id:
            return f"tool call {number} has no id"
        if call.name != NAME:
            return f"tool call {number} names {call.name!r}, not {NAME!r}"
        if call.status != "valid":
            return f"tool call {number}'s arguments are not JSON: {call.error or call.status}"
        if not isinstance(orjson.loads(call.arguments), dict):
            return f"tool call {number}'s arguments are not a JSON object"
    indices = [s.index for s in starts]
    if len(set(indices)) != len(indices):
        return f"tool calls share an index: {indices}"
    ids = [s.id for s in starts]
    if len(set(ids)) != len(ids):
        return f"tool calls share an id: {ids}"
    return None
