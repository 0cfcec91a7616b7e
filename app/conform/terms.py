"""What each API calls the same thing: a case says ``finish(result, "length")`` and gets
``length`` in chat completions, ``max_tokens`` in Anthropic Messages and the response's status
``incomplete`` in OpenAI Responses (docs/conform.md)."""

from __future__ import annotations

from .model import Result

FINISH: dict[str, dict[str, str]] = {
    "chat": {
        "stop": "stop",
        "length": "length",
        "tool_calls": "tool_calls",
        "stop_sequence": "stop",
    },
    "anthropic": {
        "stop": "end_turn",
        "length": "max_tokens",
        "tool_calls": "tool_use",
        "stop_sequence": "stop_sequence",
    },
    "responses": {
        "stop": "completed",
        "length": "incomplete",
        "tool_calls": "completed",
    },
}
CHAT_AND_ANTHROPIC = ("chat", "anthropic")
EVERY = ("chat", "anthropic", "responses")


def finish(result: Result, meaning: str) -> str:
    """The finish reason, as the result's API spells it, that means ``meaning`` (chat's name)."""
    return FINISH.get(result.context.api, FINISH["chat"])[meaning]
