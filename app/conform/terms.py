"""What each API calls the same thing: a case says ``finish(result, "length")`` and gets
``length`` in chat completions, ``max_tokens`` in Anthropic Messages and the response's status
``incomplete`` in OpenAI Responses (docs/conform.md). Legacy completions say what chat
completions say."""

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
    "completions": {
        "stop": "stop",
        "length": "length",
        "stop_sequence": "stop",
    },
    "responses": {
        "stop": "completed",
        "length": "incomplete",
        "tool_calls": "completed",
    },
}
CHAT_AND_ANTHROPIC = ("chat", "anthropic")
# The APIs with messages, tools and reasoning: every one the battery speaks but legacy
# completions, which has a prompt and text only.
CONVERSATIONAL = ("chat", "anthropic", "responses")
EVERY = (*CONVERSATIONAL, "completions")
CHAT_AND_COMPLETIONS = ("chat", "completions")  # n, stream_options, as chat completions has them


def finish(result: Result, meaning: str) -> str:
    """The finish reason, as the result's API spells it, that means ``meaning`` (chat's name)."""
    return FINISH.get(result.context.api, FINISH["chat"])[meaning]
